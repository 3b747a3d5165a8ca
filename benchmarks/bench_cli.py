"""Benchmark the command line's start-up: `loopspec --help` and `--version` vs `python -c pass`.

Run by hand: `.venv/bin/python benchmarks/bench_cli.py [--rounds N]`. Each round starts the
interpreter bare, then each measured command, interleaved so load on the machine hits all of
them alike; it prints the median wall time of each and its ratio to the bare interpreter. The
target (issue #11): `loopspec --help` answers in under 0.5 s, which on any machine that starts
Python in well under 0.2 s means a ratio of a few at most; the verbs' own modules (Hypothesis,
the checker, the model) are imported only by the verb that runs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

TARGET_SECONDS = 0.5


def _loopspec() -> list[str]:
    """The console script beside this interpreter, or `python -m loopspec`."""
    script = Path(sys.executable).with_name("loopspec")
    if script.exists():
        return [str(script)]
    found = shutil.which("loopspec")
    return [found] if found else [sys.executable, "-m", "loopspec"]


def _wall(argv: Sequence[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> int:
    """Print the start-up times and ratios; exit 1 when `--help` misses 0.5 s."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "loopspec --help": [*_loopspec(), "--help"],
        "loopspec --version": [*_loopspec(), "--version"],
        "loopspec check --help": [*_loopspec(), "check", "--help"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for name, command in commands.items():  # warm the file cache once
        _wall(command)
        del name
    for _ in range(args.rounds):
        for name, command in commands.items():
            times[name].append(_wall(command))
    baseline = statistics.median(times["python -c pass"])
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:24} {median * 1000:7.1f} ms  {median / baseline:5.2f}x python -c pass")
    help_seconds = statistics.median(times["loopspec --help"])
    verdict = "met" if help_seconds < TARGET_SECONDS else "MISSED"
    print(f"target: loopspec --help under {TARGET_SECONDS} s: {verdict}")
    return 0 if verdict == "met" else 1


if __name__ == "__main__":
    sys.exit(main())
