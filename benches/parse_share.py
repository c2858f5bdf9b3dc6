#!/usr/bin/env python3
"""Instructions, not time: how sandbox-lint's work splits between tree-sitter's parse and
the analyzer's own part (lowering, analysis and the policy's judgement).

Runs sandbox-lint under valgrind's callgrind over a directory (by default the 300-file
sample of lint_vs_bandit.py), and splits the inclusive instruction counts: start-up and
output, tree-sitter's parse, and everything else in judging a file. Instruction counts do
not depend on the machine's load, so two builds can be compared on a busy machine.

    python3 benches/parse_share.py [DIR] [--files 300] [--lint target/release/sandbox-lint]
"""

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lint_vs_bandit import ROOT, corpus  # noqa: E402

# Each part is the inclusive cost of these functions (callgrind_annotate's names, without the
# file). tree-sitter's parse is counted in its C functions, which nothing inlines: a Rust
# function's inclusive cost is split by callgrind_annotate over the files inlined into it.
# A file is judged in two steps, analysis and then the policy's judgement and the file's part
# of the output; builds before that split judged it in `lint_source`, which is counted instead
# when the profile has it.
JUDGING_BEFORE_THE_SPLIT = ["code_sandbox_mcp::lint::lint_source"]
PARTS = {
    "judging a file": ["code_sandbox_mcp::analysis::analyze", "code_sandbox_mcp::lint::report"],
    "tree-sitter parse": [
        "ts_parser_new",
        "ts_parser_set_language",
        "ts_parser_parse_with_options",
        "ts_parser_delete",
    ],
}


def annotated(profile: Path) -> str:
    return subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--auto=no", "--threshold=100", str(profile)],
        capture_output=True, text=True, check=True,
    ).stdout


def summed(text: str, functions: list[str]) -> int:
    found = 0
    for function in functions:
        # The entry of the function itself (marked with its binary), not of code inlined.
        match = re.search(r"^\s*([\d,]+) \([^)]*\)\s+\S+?:" + re.escape(function) + r" \[", text, re.M)
        found += int(match.group(1).replace(",", "")) if match else 0
    return found


def inclusive(profile: Path) -> tuple[int, dict[str, int]]:
    text = annotated(profile)
    total = int(re.search(r"([\d,]+) \([^)]*\)\s+PROGRAM TOTALS", text).group(1).replace(",", ""))
    found = {part: summed(text, functions) for part, functions in PARTS.items()}
    found["judging a file"] = summed(text, JUDGING_BEFORE_THE_SPLIT) or found["judging a file"]
    return total, found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("directory", nargs="?")
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--lint", default=str(ROOT / "target/release/sandbox-lint"))
    parser.add_argument("--policy", default="standard")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(args.directory) if args.directory else Path(tmp) / "sample"
        if not args.directory:
            directory.mkdir()
            corpus(directory, args.files)
        files = sum(1 for p in directory.rglob("*") if p.suffix in {".py", ".js", ".mjs", ".cjs"})
        profile = Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile}",
             args.lint, "--policy", args.policy, "--format", "json", str(directory)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        total, found = inclusive(profile)
    judging, parse = found["judging a file"], found["tree-sitter parse"]
    if not judging or not parse:
        sys.exit("the profile names neither a file's analysis and report nor lint_source: "
                 "were they inlined?")
    ours = judging - parse
    print(f"{files} files, policy {args.policy}; instructions, total and per file")
    print("(tree-sitter parse: creating the parser, parsing, deleting the parser; freeing the")
    print(" tree and walking it count as the analyzer's)")
    for label, count in [
        ("whole process", total),
        ("start-up and output", total - judging),
        ("tree-sitter parse", parse),
        ("analyzer and policy", ours),
    ]:
        print(f"{label:22} {count / 1e6:10.1f} M  {count / files / 1e6:8.2f} M/file")
    print(f"analyzer / parse       {ours / parse:10.2f}")


if __name__ == "__main__":
    main()
