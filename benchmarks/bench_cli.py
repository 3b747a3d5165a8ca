"""Benchmark the command line's start-up against `python -c pass`.

Run by hand: `.venv/bin/python benchmarks/bench_cli.py [--rounds N]`. Each round starts the
interpreter bare, then each measured command, interleaved so load on the machine hits all of
them alike; it prints the median wall time of each and its ratio to the bare interpreter. The
targets:

- issue #11: `loopspec --help` answers in under 0.5 s, which on any machine that starts Python in
  well under 0.2 s means a ratio of a few at most; the verbs' own modules (Hypothesis, the
  checker, the model) are imported only by the verb that runs;
- issue #15: `loopspec check` starts near the interpreter: `check --help` imports no checker and
  no model, and checking a small dsh log (a header and one short turn) imports the invariants
  it runs but not Hypothesis, cattrs or the event model. The ratios are printed; what each
  imports is a test (`tests/test_check_startup.py`), the time is only measured here.

Every command runs with its bytecode cached (in a temporary `PYTHONPYCACHEPREFIX`, written by a
warm-up run, even where `PYTHONDONTWRITEBYTECODE` is set), as an installed copy runs: otherwise
each start would compile loopspec's sources, which no user's start pays.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
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


def _wall(argv: Sequence[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - started


# A small clean dsh log: a header and one turn of one step, as `loopspec check` sees it.
SMALL_LOG = [
    {"type": "session", "version": 0, "id": "s", "createdAt": 1700000000000, "cwd": "/w"},
    {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
    {"type": "step/start", "seq": 1, "time": 0, "data": {"turn": 1, "step": 1}},
    {"type": "assistant/chunk", "seq": 2, "time": 0, "data": {"turn": 1, "step": 1}},
    {"type": "step/end", "seq": 3, "time": 0, "data": {"turn": 1, "step": 1}},
    {"type": "turn/end", "seq": 4, "time": 0, "data": {"turn": 1, "reason": {"kind": "completed"}}},
]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the start-up times and ratios; exit 1 when `--help` misses 0.5 s."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        small_log = Path(tmp, "small.jsonl")
        small_log.write_text("".join(json.dumps(row) + "\n" for row in SMALL_LOG))
        env = {
            **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            "PYTHONPYCACHEPREFIX": str(Path(tmp, "pycache")),
        }
        return _measure(args.rounds, small_log, env)


def _measure(rounds: int, small_log: Path, env: dict[str, str]) -> int:
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "loopspec --help": [*_loopspec(), "--help"],
        "loopspec --version": [*_loopspec(), "--version"],
        "loopspec check --help": [*_loopspec(), "check", "--help"],
        "loopspec check SMALL": [*_loopspec(), "check", str(small_log)],
        # What checking a dsh log cannot avoid: the invariants are attrs classes.
        "python -c 'import attrs'": [sys.executable, "-c", "import attrs"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # warm the file and bytecode caches once
        _wall(command, env)
    for _ in range(rounds):
        for name, command in commands.items():
            times[name].append(_wall(command, env))
    baseline = statistics.median(times["python -c pass"])
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:26} {median * 1000:7.1f} ms  {median / baseline:5.2f}x python -c pass")
    help_seconds = statistics.median(times["loopspec --help"])
    verdict = "met" if help_seconds < TARGET_SECONDS else "MISSED"
    print(f"target: loopspec --help under {TARGET_SECONDS} s: {verdict}")
    return 0 if verdict == "met" else 1


if __name__ == "__main__":
    sys.exit(main())
