"""CPU of the test suite per test file, counting every process a file starts (issue #15, item 7).

Run by hand: `.venv/bin/python benchmarks/bench_suite_cpu.py [--out F.jsonl] [--compare OLD.jsonl]
[--top N] [--tracer-cost ROUNDS] [tests/test_x.py ...]` (every test file when none is named; the
whole suite takes about six minutes of CPU). Each file runs alone, one after another, as `make
pytest` runs the suite: coverage on, bytecode kept in a prefix, the real-harness reports saved to a
scratch folder. `--tracer-cost` runs each file with and without `--cov` instead, alternately, and
prints the least CPU of each: what coverage's tracer costs the file (the A/B that decides where a
`no_cover` marker pays, benchmarks/coverage_owners.py deciding where it is safe).

This process makes itself a child subreaper (Linux), so a process a test leaves behind reparents
here rather than to init and its CPU is counted too; `time make test` would miss it. Each row is
user and system CPU of the file's pytest and all its descendants, and the wall time. `--compare`
puts another run's figures beside each file (a run of an older commit, from its own worktree:
`git worktree add DIR COMMIT && make -C DIR venv`, then this script from DIR).

A file run alone pays pytest's start-up (about 1 s of CPU: conftest imports all of loopspec) that
the suite, one pytest, pays once; the total printed is the sum over files, so it is above what
the suite's pytest costs by that much per file. On a machine other processes load, the same file's
CPU time moves by up to a third between runs (session 17: 33.3 s and 22.4 s), so compare the least
of interleaved runs, never one run each.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """Orphaned descendants reparent here, so their CPU reaches RUSAGE_CHILDREN when reaped."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def reap_everything() -> None:
    """Wait for every descendant that reparented here (a test's leftovers)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.05)


def run_file(test_file: str, scratch: Path, *, cov: bool = True) -> dict[str, object]:
    """One test file under pytest as `make pytest` runs it; its CPU and that of all it started.

    With `cov` false the file runs without `--cov`: the difference is what coverage's tracer
    costs the file (a `no_cover` test already runs untraced either way)."""
    env = os.environ | {
        "PYTHONDONTWRITEBYTECODE": "",
        "PYTHONPYCACHEPREFIX": str(ROOT / "build" / "pycache"),
        "LOOPSPEC_HARNESS_REPORTS": str(scratch / "harness-reports"),
        "COVERAGE_FILE": str(scratch / "coverage"),
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *(["--cov", "--cov-report="] if cov else []), test_file],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    reap_everything()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = done.stdout.strip().splitlines()
    return {
        "file": test_file,
        "cov": cov,
        "user": round(after.ru_utime - before.ru_utime, 2),
        "sys": round(after.ru_stime - before.ru_stime, 2),
        "wall": round(time.monotonic() - started, 1),
        "exit": done.returncode,
        "summary": lines[-1] if lines else "",
    }


def load(path: Path) -> dict[str, dict[str, object]]:
    """Rows of an earlier run, by file."""
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line)
    return {str(row["file"]): row for row in rows}


def cpu(row: dict[str, object]) -> float:
    """User plus system seconds of a row."""
    return float(str(row["user"])) + float(str(row["sys"]))


def print_table(
    rows: list[dict[str, object]], older: dict[str, dict[str, object]], top: int
) -> None:
    """The files by CPU, most first, each beside its older figures when given; then totals."""
    print(
        f"{'file':44} {'user':>7} {'sys':>6} {'wall':>6}" + ("   older user/sys" if older else "")
    )
    for row in sorted(rows, key=cpu, reverse=True)[:top]:
        line = f"{row['file']!s:44} {row['user']!s:>7} {row['sys']!s:>6} {row['wall']!s:>6}"
        before = older.get(str(row["file"]))
        if before is not None:
            line += f"   {before['user']!s:>7} {before['sys']!s:>6}"
        if row["exit"] != 0:
            line += f"   exit {row['exit']}: {row['summary']}"
        print(line)
    user = sum(float(str(r["user"])) for r in rows)
    system = sum(float(str(r["sys"])) for r in rows)
    print(f"{len(rows)} files: user {user:.1f} s, sys {system:.1f} s")
    shared = [r for r in rows if str(r["file"]) in older]
    if shared:
        old_user = sum(float(str(older[str(r["file"])]["user"])) for r in shared)
        old_sys = sum(float(str(older[str(r["file"])]["sys"])) for r in shared)
        print(
            f"{len(shared)} files in both runs, older: user {old_user:.1f} s, sys {old_sys:.1f} s"
        )


def tracer_cost(files: list[str], rounds: int, scratch: Path, out: Path | None) -> None:
    """Each file with and without `--cov`, interleaved (the order flips each round), `rounds`
    times; the least CPU of each and their difference, the tracer's cost. The least, since load
    only ever adds to CPU time."""
    runs: dict[tuple[str, bool], list[float]] = {}
    failed: set[str] = set()
    for round_index in range(rounds):
        for test_file in files:
            for cov in (True, False) if round_index % 2 == 0 else (False, True):
                row = run_file(test_file, scratch, cov=cov)
                runs.setdefault((test_file, cov), []).append(cpu(row))
                if row["exit"] != 0:
                    failed.add(test_file)
                print(f"{test_file} cov={cov}: {cpu(row):.1f} s", file=sys.stderr)
                if out:
                    with out.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(row) + "\n")
    print(f"{'file':44} {'--cov':>7} {'none':>7} {'tracer':>7}")
    traced = untraced = 0.0
    for test_file in files:
        with_cov, without = min(runs[test_file, True]), min(runs[test_file, False])
        traced, untraced = traced + with_cov, untraced + without
        note = "   a run failed: not comparable" if test_file in failed else ""
        print(f"{test_file:44} {with_cov:7.1f} {without:7.1f} {with_cov - without:7.1f}{note}")
    print(f"{len(files)} files, least of {rounds}: --cov {traced:.1f} s, none {untraced:.1f} s")


def main() -> int:
    """Run the files, append each row to --out as it finishes, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="test files (default: every tests/test_*.py)")
    parser.add_argument("--out", type=Path, help="append each file's row here (JSON Lines)")
    parser.add_argument("--compare", type=Path, help="an earlier run's --out, shown beside")
    parser.add_argument("--top", type=int, default=20, help="files shown (default 20)")
    parser.add_argument(
        "--tracer-cost",
        type=int,
        metavar="ROUNDS",
        help="run each file with and without --cov, interleaved, ROUNDS times: the tracer's cost",
    )
    args = parser.parse_args()
    files = args.files or sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("tests/test_*.py"))
    older = load(args.compare) if args.compare else {}
    become_subreaper()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-suite-cpu-") as scratch:
        if args.tracer_cost:
            tracer_cost(files, args.tracer_cost, Path(scratch), args.out)
            return 0
        for test_file in files:
            row = run_file(test_file, Path(scratch))
            rows.append(row)
            print(f"{test_file}: user {row['user']} s, sys {row['sys']} s", file=sys.stderr)
            if args.out:
                with args.out.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(row) + "\n")
    print_table(rows, older, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
