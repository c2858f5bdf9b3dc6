#!/usr/bin/env python3
"""Whole-process comparison: `sandbox-lint` against `bandit -r` over the same Python files.

Builds a directory of N snippets (the typical data-processing sample and every Python
fixture, round-robin), runs each tool over it several times, and prints medians and the
ratio. Both tools are measured in the same run on the same files, so the ratio holds on a
noisy machine where the absolute times do not.

    python3 benches/lint_vs_bandit.py [--files 300] [--runs 5] [--lint target/release/sandbox-lint]
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def corpus(directory: Path, count: int) -> int:
    sources = [ROOT / "benches/data/typical.py"] + sorted((ROOT / "policies/fixtures/python").glob("*.py"))
    total = 0
    for i in range(count):
        text = sources[i % len(sources)].read_bytes()
        (directory / f"snippet_{i:04d}.py").write_bytes(text)
        total += len(text)
    return total


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{command[0]} failed with exit code {done.returncode}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lint", default=str(ROOT / "target/release/sandbox-lint"))
    args = parser.parse_args()
    bandit = shutil.which("bandit")
    if bandit is None:
        sys.exit("bandit is not installed: pip install bandit")
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        size = corpus(directory, args.files)
        lint_cmd = [args.lint, "--policy", "standard", "--format", "json", str(directory)]
        bandit_cmd = [bandit, "-r", "-q", "-f", "json", str(directory)]
        timed(lint_cmd), timed(bandit_cmd)  # warm the page cache
        lint_times, bandit_times = [], []
        for _ in range(args.runs):
            lint_times.append(timed(lint_cmd))
            bandit_times.append(timed(bandit_cmd))
    lint_median, bandit_median = statistics.median(lint_times), statistics.median(bandit_times)
    print(f"{args.files} files, {size / 1024:.0f} KiB, {args.runs} runs each")
    print(f"sandbox-lint  median {lint_median * 1000:8.1f} ms  ({lint_median / args.files * 1e6:.0f} us/file)")
    print(f"bandit -r     median {bandit_median * 1000:8.1f} ms  ({bandit_median / args.files * 1e6:.0f} us/file)")
    print(f"ratio         {bandit_median / lint_median:.1f}x faster")


if __name__ == "__main__":
    main()
