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

Which files cost the most, and what moved since a named commit, without paying that start-up
per file: `--per-test OUT.jsonl` runs the named files (or the suite) in one pytest as `make
pytest` does, benchmarks/suite_cpu_plugin.py appending each test's CPU to OUT.jsonl (pytest's
process, the children it reaped and its live descendants, read from /proc: the real CLIs'
shared drivers count in the tests they serve), collection's, and the session teardown's.
`--since COMMIT` runs the same files in a worktree of that commit too (`--old-tree DIR`, made
and given a venv where missing; its rows go to OUT.older.jsonl), `--group` files per pytest,
the two trees alternating group by group so that load moving over the minutes falls on both
alike, and prints the costliest files beside their older figures, the files and the tests whose
CPU moved most, and the tests added and removed. `--show OUT.jsonl [--compare OLDER.jsonl]`
prints the same from saved runs. Session 36, under load: 14 of the costliest files (the real
CLIs', dsh's, the JS loop's, the reach, mutant and profile tests) took 175.2 s at 6c6844b and
170.8 s at 11bd56d, the reach test's three batches +4.6 s, the deadline-while-shrinking test
+3.3 s, dsh's and the JS loop's random programs -5.4 s.
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
from typing import NamedTuple

from suite_cpu_plugin import OUT_VARIABLE

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


def pytest_environment(tree: Path, scratch: Path) -> dict[str, str]:
    """The environment `make pytest` gives pytest in `tree`: bytecode kept in its prefix, the
    real-harness reports and coverage's data in the scratch folder."""
    return os.environ | {
        "PYTHONDONTWRITEBYTECODE": "",
        "PYTHONPYCACHEPREFIX": str(tree / "build" / "pycache"),
        "LOOPSPEC_HARNESS_REPORTS": str(scratch / "harness-reports"),
        "COVERAGE_FILE": str(scratch / "coverage"),
    }


def run_file(test_file: str, scratch: Path, *, cov: bool = True) -> dict[str, object]:
    """One test file under pytest as `make pytest` runs it; its CPU and that of all it started.

    With `cov` false the file runs without `--cov`: the difference is what coverage's tracer
    costs the file (a `no_cover` test already runs untraced either way)."""
    cover = ["--cov", "--cov-report="] if cov else []
    argv = [sys.executable, "-m", "pytest", *cover, test_file]
    spent = _pytest_spending(argv, ROOT, pytest_environment(ROOT, scratch))
    return {
        "file": test_file,
        "cov": cov,
        "user": round(spent.user, 2),
        "sys": round(spent.sys, 2),
        "wall": round(spent.wall, 1),
        "exit": spent.exit,
        "summary": spent.summary,
    }


class _Spent(NamedTuple):
    """What one pytest run and all it started cost, and how it ended."""

    user: float
    sys: float
    wall: float
    exit: int
    summary: str  # pytest's last line ("" when it printed none)


def _pytest_spending(argv: list[str], cwd: Path, env: dict[str, str]) -> _Spent:
    """Run pytest as `argv` in `cwd`; its CPU and its descendants' (those left behind reaped)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    reap_everything()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = done.stdout.strip().splitlines()
    return _Spent(
        after.ru_utime - before.ru_utime,
        after.ru_stime - before.ru_stime,
        time.monotonic() - started,
        done.returncode,
        lines[-1] if lines else "",
    )


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


def run_per_test(tree: Path, files: list[str], scratch: Path, out: Path) -> tuple[float, str]:
    """`files` of `tree` (those it has) in one pytest as `make pytest` runs them, each test's CPU
    appended to `out` by suite_cpu_plugin; the CPU of it all (descendants left behind too) and
    pytest's summary line."""
    present = [name for name in files if (tree / name).exists()]
    if not present:
        return 0.0, "no such files here"
    env = pytest_environment(tree, scratch) | {
        OUT_VARIABLE: str(out),
        "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "benchmarks"), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
    }
    spent = _pytest_spending(
        [
            *(str(tree / ".venv" / "bin" / "python"), "-m", "pytest", "--cov", "--cov-report="),
            *("-p", "suite_cpu_plugin", "-p", "no:randomly", *present),
        ],
        tree,
        env,
    )
    return spent.user + spent.sys, spent.summary or f"exit {spent.exit}"


def load_per_test(path: Path) -> dict[str, float]:
    """Each test's CPU in a --per-test file (a test measured twice: its least); the rows of
    each pytest run (`<collection>`, `<session teardown>`) summed."""
    tests: dict[str, float] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line:
            row = json.loads(line)
            name, spent = str(row["test"]), float(row["cpu"])
            if name.startswith("<"):
                tests[name] = tests.get(name, 0.0) + spent
            else:
                tests[name] = min(spent, tests.get(name, spent))
    return tests


def by_file(tests: dict[str, float]) -> dict[str, tuple[float, int]]:
    """CPU and test count of each file (collection is its own row)."""
    files: dict[str, tuple[float, int]] = {}
    for name, spent in tests.items():
        test_file = name.split("::", 1)[0]
        total, count = files.get(test_file, (0.0, 0))
        files[test_file] = (total + spent, count + 1)
    return files


def print_per_test(new: dict[str, float], old: dict[str, float], top: int) -> None:
    """The costliest files; with an older run, the files and tests that moved most, the tests
    added and removed, and the totals of both."""
    files, old_files = by_file(new), by_file(old)
    print(f"{'file':52} {'cpu s':>7} {'tests':>6}" + ("  older cpu  tests" if old else ""))
    for test_file, (spent, count) in sorted(files.items(), key=lambda kv: -kv[1][0])[:top]:
        line = f"{test_file:52} {spent:7.1f} {count:6}"
        if test_file in old_files:
            line += f"  {old_files[test_file][0]:9.1f} {old_files[test_file][1]:6}"
        print(line)
    print(f"{len(new)} tests, {sum(new.values()):.1f} s of CPU")
    if not old:
        return
    print(f"older: {len(old)} tests, {sum(old.values()):.1f} s of CPU")
    moved = {
        name: files.get(name, (0.0, 0))[0] - old_files.get(name, (0.0, 0))[0]
        for name in files.keys() | old_files.keys()
    }
    print("\nfiles that moved most (cpu s, now - older; tests now, older):")
    for name, delta in sorted(moved.items(), key=lambda kv: -abs(kv[1]))[:top]:
        now_count, old_count = files.get(name, (0, 0))[1], old_files.get(name, (0, 0))[1]
        print(f"{name:52} {delta:+7.1f} {now_count:6} {old_count:6}")
    added = {name: spent for name, spent in new.items() if name not in old}
    removed = {name: spent for name, spent in old.items() if name not in new}
    print(f"\n{len(added)} tests added, {sum(added.values()):.1f} s; ", end="")
    print(f"{len(removed)} removed, {sum(removed.values()):.1f} s")
    for name, spent in sorted(added.items(), key=lambda kv: -kv[1])[: min(top, 10)]:
        print(f"  + {spent:6.2f} {name}")
    shared = {name: new[name] - old[name] for name in new.keys() & old.keys()}
    print("\ntests in both that moved most (cpu s, now - older):")
    for name, delta in sorted(shared.items(), key=lambda kv: -abs(kv[1]))[:top]:
        print(f"  {delta:+6.2f} {old[name]:6.2f} -> {new[name]:6.2f} {name}")


def per_test(args: argparse.Namespace, files: list[str]) -> int:
    """--per-test (and --since): run, save, print."""
    out: Path = args.per_test
    old_out = out.with_name(out.stem + ".older" + out.suffix)
    old_tree: Path | None = None
    if args.since:
        old_tree = args.old_tree or Path(tempfile.gettempdir()) / f"loopspec-{args.since}"
        if not old_tree.exists():
            subprocess.run(
                ["git", "worktree", "add", "--detach", str(old_tree), args.since],
                cwd=ROOT,
                check=True,
            )
        subprocess.run(["make", "-C", str(old_tree), "venv"], check=True)
    # Groups of files, the two trees alternating (the order flipping each group), so that a
    # machine's load moving over the minutes falls on both alike.
    groups = [files[start : start + args.group] for start in range(0, len(files), args.group)]
    whole: dict[Path, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-suite-cpu-") as scratch:
        for index, group in enumerate(groups):
            trees = [(ROOT, out)] + ([(old_tree, old_out)] if old_tree else [])
            for tree, saved in trees if index % 2 == 0 else trees[::-1]:
                spent, summary = run_per_test(tree, group, Path(scratch), saved)
                whole[tree] = whole.get(tree, 0.0) + spent
                print(
                    f"{tree.name} group {index + 1}/{len(groups)}: {spent:.1f} s, {summary}",
                    file=sys.stderr,
                )
    print_per_test(load_per_test(out), load_per_test(old_out) if old_tree else {}, args.top)
    print(
        f"\nevery pytest of this run, start-up and leftovers included: {whole[ROOT]:.1f} s"
        + (f", older {whole[old_tree]:.1f} s" if old_tree else "")
    )
    return 0


def main() -> int:
    """Run the files, append each row to --out as it finishes, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="test files (default: every tests/test_*.py)")
    parser.add_argument("--out", type=Path, help="append each file's row here (JSON Lines)")
    parser.add_argument(
        "--compare", type=Path, help="an earlier run's --out (with --show: its --per-test file)"
    )
    parser.add_argument("--top", type=int, default=20, help="files shown (default 20)")
    parser.add_argument(
        "--tracer-cost",
        type=int,
        metavar="ROUNDS",
        help="run each file with and without --cov, interleaved, ROUNDS times: the tracer's cost",
    )
    parser.add_argument(
        "--per-test",
        type=Path,
        metavar="OUT.jsonl",
        help="one pytest for all files, each test's CPU appended to OUT.jsonl",
    )
    parser.add_argument("--since", metavar="COMMIT", help="with --per-test: COMMIT's tree too")
    parser.add_argument("--old-tree", type=Path, help="COMMIT's worktree (default: a temp dir)")
    parser.add_argument("--group", type=int, default=25, help="files per pytest with --since")
    parser.add_argument(
        "--show", type=Path, metavar="NEW.jsonl", help="print a saved --per-test run (--compare)"
    )
    args = parser.parse_args()
    files = args.files or sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("tests/test_*.py"))
    if args.show:
        print_per_test(
            load_per_test(args.show), load_per_test(args.compare) if args.compare else {}, args.top
        )
        return 0
    if args.per_test:
        become_subreaper()
        return per_test(args, files)
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
