"""Which tests own which branch arcs of loopspec.model: may a costly test run without coverage?

`make test` measures branch coverage of loopspec.model (pyproject [tool.coverage]); the tracer
doubles or triples the CPU of model-heavy tests. pytest-cov's `no_cover` marker stops the tracer
during a test's call phase (its setup and teardown are still measured). A test may carry the
marker only if every arc it covers is covered by another test too, so the coverage report is the
same. This script proves it from runs with per-test contexts. A marked test's call phase is
never traced, so the marked tests run a second time with this file as a pytest plugin, which
keeps only them and takes their mark off (without that run the proof holds nothing: the script
exits 1 when no marked test's call phase is in the data):

    COVERAGE_FILE=/tmp/ctx.coverage .venv/bin/python -m pytest --cov --cov-context=test \\
        -p no:randomly --junitxml=/tmp/junit.xml
    PYTHONPATH=benchmarks COVERAGE_FILE=/tmp/marked.coverage .venv/bin/python -m pytest \\
        -p coverage_owners --cov --cov-context=test -p no:randomly
    .venv/bin/python -m coverage combine --keep --data-file=/tmp/all.coverage \\
        /tmp/ctx.coverage /tmp/marked.coverage
    .venv/bin/python benchmarks/coverage_owners.py /tmp/all.coverage --junit /tmp/junit.xml

Tests added since that run can be measured alone (same command on their files, another
COVERAGE_FILE) and merged with `coverage combine --keep --data-file=ALL RUN1 RUN2`, as long as
the model files they reach are unchanged (arcs are line numbers).

It collects the suite (no test runs) to learn which tests carry `no_cover` and which draw random
inputs: Hypothesis tests and state machines, and, to be safe, every test whose source names
conform, `random` or a strategy drawn outside `@given`, or calls (or takes as a fixture) a
function of its module that does, directly or through another. Then it prints, per test file, its
seconds in that run (wall, tracer on, from the JUnit file), how many arcs its tests cover, how
many of those no other file covers (unique) and how many no deterministic test of another file
covers (alone: 0 means the whole file may be marked), and checks two things, exiting 1 when
either fails:

1. the arcs covered without the marked tests' call phases equal the arcs of the whole run (the
   report loses nothing), and
2. every arc a marked test covers is also covered by an unmarked deterministic test (so the
   claim does not rest on what a random test happened to reach in that one run).

`--candidates SECONDS` (with `--junit`) lists instead the unmarked tests of at least SECONDS
that may carry the marker, all together: chosen costliest first, each only if every arc of its
call phase is still covered by a deterministic kept context once the ones chosen before it are
paused. A run of a few files is enough to find candidates (a missing cover only hides one); mark
them, then check the marking on a run of the whole suite as above.

Arcs are read from the coverage data file's `arc` table (coverage.py's schema 7) with one SQL
aggregation, since asking the API once per context and file would take minutes.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import io
import sqlite3
import sys
import types
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from xml.etree import ElementTree

import attrs
import pytest

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_VERSION = 7
# A test or helper whose source names one of these may draw random inputs even if it is not a
# Hypothesis test (conform's random programs, strategies drawn by hand, `random`).
RANDOM_SOURCES = (
    "run_conformance",
    "conform",
    "swarm",
    "random",
    ".example(",
    "find(",
    "run_state_machine_as_test",
)
NO_COVER = "no_cover"


@attrs.frozen
class CollectedTest:
    """One collected test: its node id, whether it carries no_cover, whether it is random."""

    nodeid: str
    marked: bool
    random: bool


class _Collector:
    """A pytest plugin that records each collected item's marker and randomness."""

    def __init__(self) -> None:
        self.tests: list[CollectedTest] = []

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        random_helpers: dict[str, set[str]] = {}
        for item in items:
            module = getattr(item, "module", None)
            name = getattr(module, "__name__", "")
            if module is not None and name not in random_helpers:
                random_helpers[name] = _random_helpers(module)
            self.tests.append(
                CollectedTest(
                    item.nodeid,
                    item.get_closest_marker(NO_COVER) is not None,
                    _draws_examples(item) or _names_random(item, random_helpers.get(name, set())),
                )
            )


def _draws_examples(item: pytest.Item) -> bool:
    """A Hypothesis test or state machine (whatever module it sits in)."""
    function = getattr(item, "obj", None)
    if getattr(function, "is_hypothesis_test", False):
        return True
    cls = getattr(item, "cls", None)
    return cls is not None and any(c.__module__ == "hypothesis.stateful" for c in cls.__mro__)


def _source(function: object) -> str:
    try:
        return inspect.getsource(function)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return ""


def _mentions(source: str, words: Iterable[str]) -> bool:
    return any(word in source for word in words)


def _random_helpers(module: types.ModuleType) -> set[str]:
    """The module's own functions and fixtures that draw random inputs, directly or through
    another of them (a closure over the module's names)."""
    sources = {
        name: _source(getattr(value, "__wrapped__", value))
        for name, value in vars(module).items()
        if callable(value) and getattr(value, "__module__", None) == module.__name__
    }
    random = {name for name, source in sources.items() if _mentions(source, RANDOM_SOURCES)}
    while True:
        calls = {f"{name}(" for name in random} | random
        more = {n for n, source in sources.items() if n not in random and _mentions(source, calls)}
        if not more:
            return random
        random |= more


def _names_random(item: pytest.Item, random_helpers: set[str]) -> bool:
    """The test's own source names a random source, or it calls or uses as a fixture one of its
    module's random helpers."""
    source = _source(getattr(item, "function", None))
    if not source:
        return True  # cannot tell: count it random
    calls = {f"{name}(" for name in random_helpers}
    fixtures = set(getattr(item, "fixturenames", ()))
    return (
        _mentions(source, RANDOM_SOURCES)
        or _mentions(source, calls)
        or bool(fixtures & random_helpers)
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """As a plugin (`-p coverage_owners`): run only the tests marked `no_cover`, unmarked, so
    pytest-cov traces their call phases (after conftest has marked UNTRACED_FILES' tests)."""
    marked = [item for item in items if item.get_closest_marker(NO_COVER) is not None]
    for item in marked:
        for node in item.listchain():
            node.own_markers[:] = [m for m in node.own_markers if m.name != NO_COVER]
    config.hook.pytest_deselected(items=[item for item in items if item not in marked])
    items[:] = marked


def collect(test_paths: Sequence[str]) -> list[CollectedTest]:
    """The suite's tests, collected (not run) in this process."""
    collector = _Collector()
    with contextlib.redirect_stdout(io.StringIO()) as listing:
        code = pytest.main(
            ["--collect-only", "-q", "-p", "no:randomly", "-p", "no:cov", *test_paths],
            plugins=[collector],
        )
    if code != 0:
        print(listing.getvalue(), file=sys.stderr)
    if code != 0:
        raise SystemExit(f"coverage_owners: collecting {' '.join(test_paths)} failed ({code})")
    return collector.tests


def junit_seconds(path: Path | None) -> dict[str, float]:
    """Seconds per test file from a JUnit XML report (empty without one)."""
    if path is None:
        return {}
    seconds: dict[str, float] = defaultdict(float)
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").split(".")
        # classname is "tests.test_x" or "tests.test_x.TestClass"
        test_file = "/".join(module[:2]) + ".py" if len(module) >= 2 else "?"
        seconds[test_file] += float(case.get("time", "0"))
    return seconds


@attrs.frozen
class ArcOwners:
    """Per arc (file, from, to): the test files covering it, and whether a kept test (the call
    phase of an unmarked test, or any setup/teardown) and a kept deterministic one do."""

    files: dict[tuple[int, int, int], set[str]]
    deterministic_files: dict[tuple[int, int, int], set[str]]
    kept: set[tuple[int, int, int]]
    kept_deterministic: set[tuple[int, int, int]]
    marked: set[tuple[int, int, int]]


def test_file_of(context: str) -> str:
    """tests/test_x.py of a context 'tests/test_x.py::name|run' ('' outside any test)."""
    return context.split("::", 1)[0] if "::" in context else "(no test)"


def arc_owners(data_file: Path, tests: Iterable[CollectedTest]) -> ArcOwners:
    """Read every arc with its contexts and sort them into the groups above."""
    by_id = {t.nodeid: t for t in tests}
    connection = sqlite3.connect(f"file:{data_file}?mode=ro", uri=True)
    (version,) = connection.execute("select version from coverage_schema").fetchone()
    if version != SCHEMA_VERSION:
        raise SystemExit(f"coverage_owners: {data_file} has schema {version}, not {SCHEMA_VERSION}")
    rows: list[tuple[int, str, int, int]] = []
    for context_id, context in connection.execute("select id, context from context"):
        nodeid, _, phase = context.rpartition("|")
        test = by_id.get(nodeid)
        marked_call = test is not None and test.marked and phase == "run"
        # The empty context is import and collection, the same in every run. A context of a
        # test that no longer exists counts as random: it cannot be relied on.
        deterministic = not context or (test is not None and not test.random and not marked_call)
        rows.append((context_id, test_file_of(context), int(not marked_call), int(deterministic)))
    connection.execute("create temp table info (id integer, test_file text, kept int, det int)")
    connection.executemany("insert into info values (?, ?, ?, ?)", rows)
    files: dict[tuple[int, int, int], set[str]] = defaultdict(set)
    deterministic_files: dict[tuple[int, int, int], set[str]] = defaultdict(set)
    kept: set[tuple[int, int, int]] = set()
    kept_deterministic: set[tuple[int, int, int]] = set()
    marked: set[tuple[int, int, int]] = set()
    query = """
        select arc.file_id, arc.fromno, arc.tono, info.test_file,
               max(info.kept), max(info.det), min(info.kept)
        from arc join info on info.id = arc.context_id
        group by arc.file_id, arc.fromno, arc.tono, info.test_file
    """
    for file_id, start, end, test_file, any_kept, any_det, all_kept in connection.execute(query):
        arc = (file_id, start, end)
        files[arc].add(test_file)
        if any_kept:
            kept.add(arc)
        if any_det:
            kept_deterministic.add(arc)
            deterministic_files[arc].add(test_file)
        if not all_kept:
            marked.add(arc)
    return ArcOwners(dict(files), dict(deterministic_files), kept, kept_deterministic, marked)


def test_seconds(path: Path | None) -> dict[str, float]:
    """Seconds per test (node id without its file's folder split by dots) from a JUnit report."""
    if path is None:
        return {}
    seconds: dict[str, float] = {}
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").split(".")
        nodeid = "/".join(module[:2]) + ".py::" + "::".join([*module[2:], case.get("name", "")])
        seconds[nodeid] = float(case.get("time", "0"))
    return seconds


def candidates(
    data_file: Path, tests: Sequence[CollectedTest], seconds: dict[str, float]
) -> list[tuple[str, float, int]]:
    """Unmarked tests whose call phase covers no arc that the kept deterministic contexts left
    would not cover, chosen greedily, costliest first: each one chosen no longer counts as a
    cover for the next, so the whole list may be marked at once and the two checks still hold.
    (node id, seconds, arcs of its call phase) each."""
    by_id = {t.nodeid: t for t in tests}
    connection = sqlite3.connect(f"file:{data_file}?mode=ro", uri=True)
    contexts = dict(connection.execute("select id, context from context"))
    # A test that ran (JUnit has it) but reached no model arc, so no context, is a candidate too.
    arcs_of: dict[str, set[tuple[int, int, int]]] = {
        nodeid: set() for nodeid in seconds if nodeid in by_id and not by_id[nodeid].marked
    }
    covers: dict[tuple[int, int, int], int] = defaultdict(int)
    for context_id, file_id, start, end in connection.execute(
        "select context_id, file_id, fromno, tono from arc"
    ):
        context = contexts[context_id]
        nodeid, _, phase = context.rpartition("|")
        test = by_id.get(nodeid)
        arc = (file_id, start, end)
        if test is not None and phase == "run" and not test.marked:
            arcs_of.setdefault(nodeid, set()).add(arc)
        kept = test is None or not (test.marked and phase == "run")
        if not context or (kept and test is not None and not test.random):
            covers[arc] += 1
    chosen: list[tuple[str, float, int]] = []
    for nodeid in sorted(arcs_of, key=lambda n: -seconds.get(n, 0.0)):
        own = 0 if by_id[nodeid].random else 1
        if all(covers[arc] > own for arc in arcs_of[nodeid]):
            if own:
                for arc in arcs_of[nodeid]:
                    covers[arc] -= 1
            chosen.append((nodeid, seconds.get(nodeid, 0.0), len(arcs_of[nodeid])))
    return chosen


def traced_marked_tests(data_file: Path, tests: Iterable[CollectedTest]) -> int:
    """How many marked tests have a call phase in the data (one reaching no model arc has none)."""
    connection = sqlite3.connect(f"file:{data_file}?mode=ro", uri=True)
    contexts = {context for (context,) in connection.execute("select context from context")}
    return sum(1 for t in tests if t.marked and f"{t.nodeid}|run" in contexts)


def source_names(data_file: Path) -> dict[int, str]:
    connection = sqlite3.connect(f"file:{data_file}?mode=ro", uri=True)
    return {
        i: str(Path(p).relative_to(ROOT)) if p.startswith(str(ROOT)) else p
        for i, p in connection.execute("select id, path from file")
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("data_file", type=Path, help="coverage data file with test contexts")
    parser.add_argument("--junit", type=Path, help="JUnit XML of the same run (seconds)")
    parser.add_argument("tests", nargs="*", default=["tests"], help="test paths to collect")
    parser.add_argument(
        "--candidates",
        type=float,
        metavar="SECONDS",
        help="list the unmarked tests of at least SECONDS (JUnit) that may be marked together",
    )
    args = parser.parse_intermixed_args(argv)
    tests = collect(args.tests)
    if args.candidates is not None:
        chosen = candidates(args.data_file, tests, test_seconds(args.junit))
        for nodeid, spent, arc_count in chosen:
            if spent >= args.candidates:
                print(f"{spent:7.2f} s {arc_count:5} arcs  {nodeid}")
        return 0
    owners = arc_owners(args.data_file, tests)
    seconds = junit_seconds(args.junit)
    per_file: dict[str, int] = defaultdict(int)
    unique: dict[str, int] = defaultdict(int)
    alone: dict[str, int] = defaultdict(int)
    for arc, test_files in owners.files.items():
        others_deterministic = owners.deterministic_files.get(arc, set())
        for test_file in test_files:
            per_file[test_file] += 1
            if not others_deterministic - {test_file}:
                alone[test_file] += 1
        if len(test_files) == 1:
            unique[next(iter(test_files))] += 1
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for test in tests:
        test_file = test_file_of(test.nodeid)
        counts[test_file][0] += 1
        counts[test_file][1] += test.marked
    print(
        f"{'test file':<44} {'tests':>5} {'marked':>6} {'seconds':>8} {'arcs':>6} "
        f"{'unique':>6} {'alone':>6}"
    )
    for test_file in sorted(per_file, key=lambda f: -seconds.get(f, 0.0)):
        n, marked = counts.get(test_file, [0, 0])
        shown = f"{seconds[test_file]:8.1f}" if test_file in seconds else f"{'-':>8}"
        print(
            f"{test_file:<44} {n:>5} {marked:>6} {shown} "
            f"{per_file[test_file]:>6} {unique.get(test_file, 0):>6} {alone.get(test_file, 0):>6}"
        )
    everything = set(owners.files)
    lost = everything - owners.kept
    unsafe = owners.marked - owners.kept_deterministic
    marked_tests = sum(t.marked for t in tests)
    traced = traced_marked_tests(args.data_file, tests)
    print(
        f"\n{len(everything)} arcs in the run; {marked_tests} tests marked {NO_COVER} "
        f"({traced} of them with a traced call phase); "
        f"{len(owners.kept)} arcs without their call phases; "
        f"{len(owners.kept_deterministic)} arcs of deterministic kept tests"
    )
    if marked_tests and not traced:
        print("no marked test's call phase is in the data: run them with -p coverage_owners")
        return 1
    names = source_names(args.data_file)
    for label, arcs in (
        ("arcs only marked tests cover (the report would lose them)", lost),
        ("arcs of marked tests no deterministic kept test covers", unsafe),
    ):
        print(f"{label}: {len(arcs)}")
        for file_id, start, end in sorted(arcs)[:40]:
            print(f"  {names.get(file_id, file_id)}: {start} -> {end}")
    return 1 if lost or unsafe else 0


if __name__ == "__main__":
    sys.exit(main())
