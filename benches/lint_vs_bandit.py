#!/usr/bin/env python3
"""Whole-process comparison: `sandbox-lint` against `bandit -r` over the same Python files.

Builds a directory of N snippets (the typical data-processing sample and every Python
fixture, round-robin), runs each tool over it several times, and prints medians and the
ratio. Both tools are measured in the same run on the same files, so the ratio holds on a
noisy machine where the absolute times do not. Besides wall-clock time it prints the CPU
time (user + system) each process used: on a machine other work keeps busy, sandbox-lint's
two threads wait for cores and its wall-clock ratio falls, while the CPU-time ratio, the
work each tool does, stays.

    python3 benches/lint_vs_bandit.py [--files 300] [--runs 5] [--lint target/release/sandbox-lint]
    python3 benches/lint_vs_bandit.py --directory DIR   # an existing directory of snippets instead
"""

import argparse
import resource
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


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run."""
    cpu_before = cpu_of_children()
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{command[0]} failed with exit code {done.returncode}")
    return elapsed, cpu_of_children() - cpu_before


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lint", default=str(ROOT / "target/release/sandbox-lint"))
    parser.add_argument("--directory", help="lint this directory instead of building the sample")
    args = parser.parse_args()
    bandit = shutil.which("bandit")
    if bandit is None:
        sys.exit("bandit is not installed: pip install bandit")
    with tempfile.TemporaryDirectory() as tmp:
        if args.directory:
            directory = Path(args.directory)
            python = [p for p in directory.rglob("*.py") if p.is_file()]
            args.files, size = len(python), sum(p.stat().st_size for p in python)
        else:
            directory = Path(tmp)
            size = corpus(directory, args.files)
        lint_cmd = [args.lint, "--policy", "standard", "--format", "json", str(directory)]
        bandit_cmd = [bandit, "-r", "-q", "-f", "json", str(directory)]
        timed(lint_cmd), timed(bandit_cmd)  # warm the page cache
        lint_times, bandit_times = [], []
        for _ in range(args.runs):
            lint_times.append(timed(lint_cmd))
            bandit_times.append(timed(bandit_cmd))
    def median(times, which):
        return statistics.median(t[which] for t in times)

    lint_median, bandit_median = median(lint_times, 0), median(bandit_times, 0)
    lint_cpu, bandit_cpu = median(lint_times, 1), median(bandit_times, 1)
    print(f"{args.files} files, {size / 1024:.0f} KiB, {args.runs} runs each; medians")
    print(f"sandbox-lint  {lint_median * 1000:8.1f} ms wall ({lint_median / args.files * 1e6:.0f} us/file), {lint_cpu * 1000:8.1f} ms CPU")
    print(f"bandit -r     {bandit_median * 1000:8.1f} ms wall ({bandit_median / args.files * 1e6:.0f} us/file), {bandit_cpu * 1000:8.1f} ms CPU")
    print(f"ratio         {bandit_median / lint_median:.1f}x faster (wall), {bandit_cpu / lint_cpu:.1f}x less CPU")


if __name__ == "__main__":
    main()
