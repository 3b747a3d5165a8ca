"""CPU of the test suite per test file, counting every process a file starts (issue #15, item 7).

Run by hand: `.venv/bin/python benchmarks/bench_suite_cpu.py [--out F.jsonl] [--compare OLD.jsonl]
[--top N] [tests/test_x.py ...]` (every test file when none is named; the whole suite takes about
six minutes of CPU). Each file runs alone, one after another, as `make pytest` runs the suite:
coverage on, bytecode kept in a prefix, the real-harness reports saved to a scratch folder.

This process makes itself a child subreaper (Linux), so a process a test leaves behind reparents
here rather than to init and its CPU is counted too; `time make test` would miss it. Each row is
user and system CPU of the file's pytest and all its descendants, and the wall time. `--compare`
puts another run's figures beside each file (a run of an older commit, from its own worktree:
`git worktree add DIR COMMIT && make -C DIR venv`, then this script from DIR).

A file run alone pays pytest's start-up (about 1 s of CPU: conftest imports all of loopspec) that
the suite, one pytest, pays once; the total printed is the sum over files, so it is above what
the suite's pytest costs by that much per file. CPU times barely move with other processes' load;
work that polls, or that scans every process on the machine (`kill_marked`), does.
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


def run_file(test_file: str, scratch: Path) -> dict[str, object]:
    """One test file under pytest as `make pytest` runs it; its CPU and that of all it started."""
    env = os.environ | {
        "PYTHONDONTWRITEBYTECODE": "",
        "PYTHONPYCACHEPREFIX": str(ROOT / "build" / "pycache"),
        "LOOPSPEC_HARNESS_REPORTS": str(scratch / "harness-reports"),
        "COVERAGE_FILE": str(scratch / "coverage"),
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--cov", "--cov-report=", test_file],
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


def main() -> int:
    """Run the files, append each row to --out as it finishes, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="test files (default: every tests/test_*.py)")
    parser.add_argument("--out", type=Path, help="append each file's row here (JSON Lines)")
    parser.add_argument("--compare", type=Path, help="an earlier run's --out, shown beside")
    parser.add_argument("--top", type=int, default=20, help="files shown (default 20)")
    args = parser.parse_args()
    files = args.files or sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("tests/test_*.py"))
    older = load(args.compare) if args.compare else {}
    become_subreaper()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-suite-cpu-") as scratch:
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
