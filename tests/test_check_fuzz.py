"""`loopspec check` under generated input: damaged logs never crash it, valid logs never fail it.

Budgets scale with the Hypothesis profile: bounded under `ci`, many more cases under `thorough`.
"""

from __future__ import annotations

import io
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from check_fixtures import FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import run_state_machine_as_test

from loopspec.model import invariants
from loopspec.model.events import Event
from loopspec.model.facts import CallFact, Fact, FactError, fact_from_wire, facts_of
from loopspec.model.invariants import (
    INVARIANTS,
    LogMonitor,
    citation_read_whole,
    repair_shapes_read_as_repair,
)
from loopspec.model.prefix import Prefix, Violation
from loopspec.model.wire import event_to_wire
from loopspec.properties.cli.main import main
from loopspec.properties.logcheck import clean_events
from loopspec.properties.logcheck.checker import (
    ErrorKind,
    LogReport,
    _lossless_float,
    check_stream,
)
from loopspec.properties.logcheck.clean_events import JUDGES, QUIET_KINDS
from loopspec.properties.logcheck.synth import HEADER, as_harness_writes, jsonl, renumber
from loopspec.properties.stateful.model_machine import ModelMachine

PROFILE = settings()
SEEDS = [
    (FIXTURES / "valid" / name).read_bytes()
    for name in ("model-demo.jsonl", "harness-written.jsonl", "crash-tail.jsonl")
]
STATUSES = {"ok", "violations", "error", "unsupported"}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a JSON value, as key/index paths."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*prefix, index)))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    return [_replace(item, rest, new) if i == head else item for i, item in enumerate(value)]


@st.composite
def damaged_logs(draw: st.DrawFn) -> bytes:
    """A valid log with a few kinds of damage: values, lines, bytes, cuts."""
    lines = draw(st.sampled_from(SEEDS)).splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(lines) - 1))
        damage = draw(
            st.sampled_from(["value", "value", "delete", "duplicate", "swap", "line", "bytes"])
        )
        if damage == "value":
            try:
                obj = json.loads(lines[index])
            except (ValueError, RecursionError):  # damaged already
                continue
            path = draw(st.sampled_from(_paths(obj)))
            new = _replace(obj, path, draw(json_values))
            lines[index] = json.dumps(new).encode() + b"\n"
        elif damage == "delete" and len(lines) > 1:
            del lines[index]
        elif damage == "duplicate":
            lines.insert(index, lines[index])
        elif damage == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        elif damage == "line":
            lines[index] = draw(
                st.sampled_from(
                    [
                        b"[" * 100_000 + b"\n",
                        b'{"type": "x", "seq": 1e400}\n',
                        b'{"type": "x", "seq": 99999999999999999999999999}\n',
                        b'{"type": "text-chunks", "seq0": 5, "data": {"texts": 7}}\n',
                        b"\xef\xbb\xbf{}\n",
                        b"\x00\x01\x02\n",
                        b'"just a string"\n',
                    ]
                )
            )
        elif damage == "bytes":
            noise = draw(st.binary(min_size=1, max_size=6))
            at = draw(st.integers(0, len(lines[index])))
            lines[index] = lines[index][:at] + noise + lines[index][at:]
    data = b"".join(lines)
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return data


# Drawing a damaged log is most of the cost of each check of one (4.1 of 4.6 s for 600 logs), so
# the checks below that read one damaged log run on the same draw, each on the most logs any of
# them had as a test of its own (600; the dispatch and shortcut checks had 180).
# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(PROFILE, max_examples=PROFILE.max_examples * 10)
@given(damaged_logs())
def test_damaged_logs_never_raise_and_the_checkers_shortcuts_judge_as_the_full_path(
    data: bytes,
) -> None:
    """Any damage gives a report — violations, errors or notices — never an exception; dispatch
    by type and skipping quiet events' facts change no verdict."""
    report = check_stream("fuzz", io.BytesIO(data))
    assert report.status in STATUSES
    assert all(error.message for error in report.errors)
    assert len(report.errors) <= 2  # at most a header error and one line error
    monitor_dispatch_equals_every_invariant_on_every_event(data)
    assert report == check_stream("fuzz", io.BytesIO(data), quick=False), (
        "skipping the facts of events `LogMonitor.quiet_kind` calls quiet changed the report"
    )


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(PROFILE, max_examples=PROFILE.max_examples * 2)
@given(damaged_logs())
def test_damaged_logs_through_the_cli_exit_0_1_or_2(data: bytes) -> None:
    """Through the command line (stdin, JSON output): an exit code in {0, 1, 2}, one JSON
    object on stdout, and nothing on stderr (no traceback)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.TextIOWrapper(io.BytesIO(data)), out, err
    try:
        code = main(["check", "--format", "json", "-"])
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    assert code in (0, 1, 2)
    assert err.getvalue() == ""
    assert json.loads(out.getvalue())["summary"]["exit_code"] == code


@settings(PROFILE, max_examples=PROFILE.max_examples)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    """Bytes that are no log at all are errors, not exceptions."""
    report = check_stream("noise", io.BytesIO(data))
    assert report.status in STATUSES


def test_enormous_line_at_default_limit_is_refused_in_bounded_memory() -> None:
    """A line past the default 16 MiB limit is refused without reading it whole."""
    big = HEADER_LINE + b'{"type": "x", "seq": 0, "data": "' + b"a" * (17 << 20) + b'"}\n'
    report = check_stream("big", io.BytesIO(big))
    assert [e.kind for e in report.errors] == [ErrorKind.LINE_TOO_LONG]


HEADER_LINE = json.dumps(HEADER).encode() + b"\n"


# ---------------------------------------------------------------------------------------------
# Logs the model writes: never a false violation; facts from the wire agree with the model's.


def _fact_fields(fact: Fact) -> dict[str, object]:
    fields = {name: getattr(fact, name) for name in Fact.__slots__}
    calls = fact.calls
    fields["calls"] = None if calls is None else [_call(c) for c in calls]
    return fields


def _call(call: CallFact) -> tuple[str, str, str]:
    return (call.id, call.name, call.arguments)


def _assert_checker_accepts(log: tuple[Event, ...]) -> None:
    rows = [event_to_wire(event) for event in log]
    for text in (jsonl(HEADER, rows), jsonl(HEADER, as_harness_writes(rows))):
        report: LogReport = check_stream("model", io.BytesIO(text.encode()))
        assert report.violations == [], [f.violation for f in report.violations]
        assert report.errors == []
    for event, row in zip(log, rows, strict=True):
        assert _fact_fields(fact_from_wire(row)) == _fact_fields(facts_of(event))


class CheckedModelMachine(ModelMachine):
    """The model's stateful machine; at the end of each program its log goes through the checker."""

    def teardown(self) -> None:
        _assert_checker_accepts(self.state.log)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_model_logs_pass_the_checker_plain_and_as_harnesses_write_them() -> None:
    """Every log a random command program makes the model write — and the same log with stream
    chunks, compact rows and plugin events added — checks clean; `fact_from_wire` reads each
    event exactly as `facts_of` sees the event itself."""
    budget = settings(PROFILE, max_examples=max(50, PROFILE.max_examples))
    run_state_machine_as_test(CheckedModelMachine, settings=budget)


# ---------------------------------------------------------------------------------------------
# Dispatch by type gives what running every invariant on every event gives.


def _facts(data: bytes) -> list[Fact]:
    facts = []
    for line in data.splitlines()[1:]:
        try:
            obj = json.loads(line)
            if isinstance(obj, dict):
                facts.append(fact_from_wire(obj))
        except (ValueError, RecursionError, FactError):
            continue
    return facts


def monitor_dispatch_equals_every_invariant_on_every_event(data: bytes) -> None:
    """`Invariant.reads` only skips checks that cannot object: same violations, same order."""
    monitor, prefix = LogMonitor(), Prefix()
    for fact in _facts(data):
        everything: list[Violation] = [v for inv in INVARIANTS for v in inv.check(prefix, fact)]
        if fact.type == "tool/result":  # the merges `feed` makes of what the checks found
            everything = citation_read_whole(everything)
        everything = repair_shapes_read_as_repair(prefix, fact, everything)
        prefix.fold(fact)
        assert monitor.feed(fact) == everything


def test_monitors_share_each_type_s_checks() -> None:
    """A monitor works out which checks read a type once for every monitor after it: conform
    makes one per program, and each worked out every type's checks again."""
    assert LogMonitor().checks_for("turn/started") is LogMonitor().checks_for("turn/started")


def test_an_invariant_registered_after_a_monitor_ran_is_run_by_later_monitors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shared checks are worked out again for a registry that has grown since."""
    LogMonitor().checks_for("turn/started")
    monkeypatch.setattr(invariants, "INVARIANTS", list(INVARIANTS))

    @invariants.invariant("flags_every_event", "LOG-1")
    def flags_every_event(prefix: Prefix, fact: Fact) -> list[Violation]:
        """Objects to everything."""
        return [Violation("LOG-1", fact.seq, "flagged", ())]

    assert flags_every_event in LogMonitor().checks_for("turn/started")


FIXTURE_LOGS = sorted(FIXTURES.rglob("*.jsonl"))


@pytest.mark.parametrize("path", FIXTURE_LOGS, ids=lambda path: str(path.relative_to(FIXTURES)))
def test_fixture_logs_judge_alike_by_dispatch_and_by_every_invariant(path: Path) -> None:
    """The damaged-log test's dispatch comparison on every fixture log, valid, broken or bad:
    fixed logs that reach the guard each invariant keeps for the types it does not read,
    whatever a random draw reaches (the other comparison, with and without the judges, runs on
    the fixtures below)."""
    monitor_dispatch_equals_every_invariant_on_every_event(path.read_bytes())


def _row(rows: list[dict[str, Any]], kind: str, **fields: object) -> dict[str, Any]:
    """The first row of type `kind` whose data has these fields."""
    return next(
        row
        for row in rows
        if row["type"] == kind and all(row["data"].get(k) == v for k, v in fields.items())
    )


def _first_result(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The tool-result block of the first tool/result row."""
    block: dict[str, Any] = _row(rows, "tool/result")["data"]["message"]["content"][0]
    return block


def _without(rows: list[dict[str, Any]], kind: str, **fields: object) -> list[dict[str, Any]]:
    """`rows` without the first row of `kind` with these fields, the later ones renumbered."""
    gone = _row(rows, kind, **fields)
    return renumber([row for row in rows if row is not gone])


def _harness_written(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The harness-written seed's rows in place of `rows` (compact rows, replies citing their
    chunks), which it returns."""
    rows[:] = [json.loads(line) for line in SEEDS[1].splitlines()[1:]]
    return rows


def _a_later_compact_row_with_a_seq(rows: list[dict[str, Any]]) -> None:
    """The harness-written seed, its second compact row given a seq: an event then (the checker
    counts a row's run apart from events after the first row)."""
    row = [row for row in _harness_written(rows) if "seq0" in row][1]
    row["seq"] = row["seq0"]


def _cited_chunks(rows: list[dict[str, Any]]) -> list[Any]:
    """The harness-written seed's first reply's sources (the seqs of its chunks, one after
    another), to edit."""
    reply = _row(_harness_written(rows), "assistant/message")
    sources: list[Any] = reply["sourceEventSeqs"]
    return sources


def _cites_a_chunk_as_a_float(rows: list[dict[str, Any]]) -> None:
    """The seed's first reply citing its second chunk's seq as a float (8.0 for 8)."""
    sources = _cited_chunks(rows)
    sources[1] = float(sources[1])


def _cites_chunks_up_to_itself(rows: list[dict[str, Any]]) -> None:
    """The seed's first reply citing seqs one after another up to its own."""
    sources = _cited_chunks(rows)
    seq = _row(rows, "assistant/message")["seq"]
    sources[:] = range(seq - len(sources) + 1, seq + 1)


# Damage the random draws reach but no fixture has, each a one-line edit of the model's demo log
# (what `check` must say about it): a field the fact reader refuses, or an event an invariant
# judges on a branch only damaged logs take.
DAMAGE: dict[str, tuple[Callable[[list[dict[str, Any]]], Any], str]] = {
    "seq out of range": (
        lambda rows: _row(rows, "hook/invoked").update(seq=2**64),
        "seq 18446744073709551616 is out of range",
    ),
    # An event's data emptied by hand: it read as its first member missing alone.
    "an event's data emptied": (
        lambda rows: _row(rows, "tool/call").update(data={}),
        "tool/call: data is an empty object, so data.turn is missing; it must be an integer",
    ),
    "a seq that is no integer": (
        lambda rows: _row(rows, "hook/invoked").update(seq="3"),
        'hook/invoked: seq must be an integer, not "3" (did you mean 3?)',
    ),
    "an event of a type no rule reads": (
        lambda rows: rows.__setitem__(
            slice(None),
            renumber([rows[0], {"type": "plugin/note", "seq": None, "time": 0}, *rows[1:]]),
        ),
        "not read: plugin/note",
    ),
    "an event without a time": (
        lambda rows: _row(rows, "step/end").pop("time"),
        "step/end: time is missing; it must be a number of whole milliseconds",
    ),
    "a time in milliseconds and a fraction": (
        lambda rows: _row(rows, "step/end").update(time=0.5),
        "step/end: time must be a number of whole milliseconds",
    ),
    "data not an object": (
        lambda rows: _row(rows, "user/message").update(data=7),
        "data must be an object",
    ),
    "unknown surfaceOp": (
        lambda rows: _row(rows, "user/message").update(surfaceOp="prepend"),
        "unknown surfaceOp",
    ),
    "reply with an unknown surfaceOp": (
        lambda rows: _row(rows, "assistant/message").update(surfaceOp="prepend"),
        "unknown surfaceOp",
    ),
    "a source that is no seq": (
        lambda rows: _row(rows, "user/message").update(sourceEventSeqs=[0, "1"]),
        "sourceEventSeqs must be an array of integers",
    ),
    "a source cited twice": (
        lambda rows: _row(rows, "user/message").update(sourceEventSeqs=[0, 0]),
        "sourceEventSeqs repeat a seq",
    ),
    "a result citing a number": (
        lambda rows: _first_result(rows).update(toolCallId=7),
        "toolCallId",
    ),
    "a hook naming another turn": (
        lambda rows: _row(rows, "hook/invoked")["data"].update(turn=9),
        "names turn 9, open is 1",
    ),
    "a step numbered past the one due": (
        lambda rows: _row(rows, "step/start", turn=1, step=2)["data"].update(step=3),
        "step/start of turn 1 step 3 where turn 1 step 2 was due",
    ),
    "a step naming another turn": (
        lambda rows: _row(rows, "step/start", turn=1, step=2)["data"].update(turn=9),
        "step/start of turn 9 step 2 where turn 1 step 2 was due",
    ),
    "a misnumbered step, then its turn starts again": (
        lambda rows: (
            _row(rows, "step/start", turn=1, step=2)["data"].update(step=3),
            _row(rows, "step/end", turn=1, step=2)["data"].update(step=3),
            _row(rows, "turn/end", turn=1).update(type="turn/start", data={"turn": 1}),
        ),
        "TURN-1 turn 1 starts inside open turn 1",
    ),
    "an approval for a call never recorded": (
        lambda rows: _row(rows, "approval/asked")["data"].update(callId="call_z"),
        "DEC-2 approval/asked approval-call_c names call call_z, which no tool/call of this "
        "step records",
    ),
    "an interrupted turn ends inside its answered step": (
        lambda rows: rows.__setitem__(slice(None), _without(rows, "step/end", turn=3, step=1)),
        "REC-1 crash repair breaks TURN-2 at its turn/end {interrupted}: turn/end while step 1 "
        "is open",
    ),
    "approvals outside a step": (
        lambda rows: rows.__setitem__(slice(None), _without(rows, "step/start", turn=1, step=1)),
        "STEP-3 tool/result outside any step",
    ),
    "a call outside a step": (
        # (Its repair's result, outside any step too, answers the call: the step/start lost is
        # named, and no REC-1 for a call left unanswered follows from it.)
        lambda rows: rows.__setitem__(slice(None), _without(rows, "step/start", turn=3, step=1)),
        "STEP-3 tool/result outside any step",
    ),
    "a result citing nothing": (
        lambda rows: _row(rows, "tool/result", turn=2).update(sourceEventSeqs=[]),
        "ORD-2 result for call_d does not cite its tool/call seq 29 in sourceEventSeqs",
    ),
    "a compact row, not the first, with a seq of its own": (
        _a_later_compact_row_with_a_seq,
        "tool-call-chunks: time is missing",
    ),
    "a reply citing a chunk's seq as a float": (
        _cites_a_chunk_as_a_float,
        "sourceEventSeqs must be an array of integers",
    ),
    "a reply citing true for seq 1": (
        lambda rows: _cited_chunks(rows).__setitem__(slice(None), [0, True, 2]),
        "sourceEventSeqs must be an array of integers",
    ),
    "a reply citing its chunks and itself": (
        _cites_chunks_up_to_itself,
        "sourceEventSeqs must cite earlier events",
    ),
    "a turn numbered past the one due": (
        lambda rows: _row(rows, "turn/start", turn=2)["data"].update(turn=5),
        "TURN-1 turn 5 starts where turn 2 was due",
    ),
}


@pytest.mark.parametrize("name", DAMAGE)
def test_fixed_damage_is_judged_alike_by_every_path_and_named(name: str) -> None:
    """The damaged-log test's comparisons on damage made by hand, and what `check` says of it."""
    edit, said = DAMAGE[name]
    rows = [json.loads(line) for line in SEEDS[0].splitlines()[1:]]
    edit(rows)
    data = jsonl(HEADER, rows).encode()
    report = check_stream("damaged", io.BytesIO(data))
    monitor_dispatch_equals_every_invariant_on_every_event(data)
    assert report == check_stream("damaged", io.BytesIO(data), quick=False)
    found = [e.message for e in report.errors] + [
        f"{f.violation.rule_id} {f.violation.message}" for f in report.violations
    ]
    found += [f"not read: {kind}" for kind in report.unread_types]
    assert any(said in text for text in found), found


def _without_member(value: Any, path: tuple[Any, ...]) -> Any:
    """`value` without the object member at `path` (a path ending at an array's item: as is)."""
    *parent, key = path
    place = value
    for step in parent:
        place = place[step]
    if isinstance(place, dict):
        del place[key]
    return value


@pytest.mark.parametrize("kind", sorted(JUDGES))
def test_each_member_a_judge_reads_missing_or_an_array_is_judged_as_the_full_path(
    kind: str,
) -> None:
    """The first event of `kind` in the model's demo log, each member it holds (at any depth)
    left out, then made an empty array: no exception, and the report of the full path. A judge
    reads the members of a clean event by subscript (`clean_events`), so a member missing, an
    array where an object is read, or an empty array where its first item is must send the
    event down the full path, not raise."""
    rows = [json.loads(line) for line in SEEDS[0].splitlines()[1:]]
    at = next(index for index, row in enumerate(rows) if row["type"] == kind)
    for path in _paths(rows[at])[1:]:
        if path[0] in ("type", "seq", "time"):
            continue  # read by the checker's loop before any judge
        for edit in (_without_member, lambda row, path: _replace(row, path, [])):
            edited = [*rows[:at], edit(json.loads(json.dumps(rows[at])), path), *rows[at + 1 :]]
            data = jsonl(HEADER, edited).encode()
            report = check_stream("edited", io.BytesIO(data))
            assert report == check_stream("edited", io.BytesIO(data), quick=False), path


@pytest.mark.parametrize("kind", ["assistant/chunk", "hook/custom", "x", "tool/result"])
def test_checks_for_unknown_and_known_types_are_a_registry_subset(kind: str) -> None:
    """The dispatch keeps registry order."""
    checks = LogMonitor().checks_for(kind)
    order = [inv.check for inv in INVARIANTS]
    assert [order.index(c) for c in checks] == sorted(order.index(c) for c in checks)


# ---------------------------------------------------------------------------------------------
# The checker's shortcuts judge as the full path does.


def _surface_op(seqs: list[int]) -> st.SearchStrategy[tuple[str, int, int, int]]:
    known = st.sampled_from(seqs) if seqs else st.integers(0, 3)
    any_seq = known | st.integers(-2, 40)
    return st.tuples(st.sampled_from(["append", "replace"]), any_seq, any_seq, any_seq)


def _surface_step(
    prefix: Prefix, surface: list[int], op: str, ends: tuple[int, int], seq: int
) -> None:
    """Fold one surface event into `prefix` and into `surface` (a plain list searched
    linearly), checking first that both find the same span for the event's start and end."""
    start, end = ends
    fact = Fact("tool/result", seq)
    fact.surface = op
    fact.surface_start, fact.surface_end = start, end
    expected = None
    if start in surface and end in surface and surface.index(start) <= surface.index(end):
        expected = (surface.index(start), surface.index(end))
    assert prefix.surface_span(start, end) == expected
    prefix.fold(fact)
    if op == "append":
        surface.append(seq)
    elif expected is not None:
        surface[expected[0] : expected[1] + 1] = [seq]
    assert list(prefix.surface_seqs) == surface


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(PROFILE, max_examples=PROFILE.max_examples * 3)
@given(st.data())
def test_surface_positions_are_those_a_linear_search_finds(data: st.DataObject) -> None:
    """`Prefix.surface_span` (bisecting while surface events come in order) finds what a linear
    search of the surface finds, in order or not, through appends and replaces."""
    prefix, surface = Prefix(), list[int]()
    next_seq = 0
    for _ in range(data.draw(st.integers(0, 30))):
        op, start, end, stray = data.draw(_surface_op(surface))
        seq = data.draw(st.sampled_from([next_seq, next_seq, next_seq, stray]))
        next_seq = max(next_seq, seq) + 1
        _surface_step(prefix, surface, op, (start, end), seq)


@pytest.mark.parametrize(
    "ops",
    [
        # In order: a replace inherits the first replaced node's key; replacing the replacement
        # drops its key; spans that are reversed, or name a node not on the surface, are none.
        [
            ("append", 0),
            ("append", 1),
            ("append", 2),
            ("replace", 0, 1, 3),
            ("replace", 3, 2, 4),
            ("replace", 2, 4, 5),
            ("replace", 9, 4, 6),
            ("append", 7),
        ],
        # Out of order (a seq not above the last): positions are found by searching the surface;
        # a node replaced by itself keeps its own key.
        [
            ("append", 5),
            ("replace", 5, 5, 5),
            ("append", 3),
            ("replace", 5, 3, 8),
            ("replace", 5, 8, 9),
            ("append", 1),
            ("replace", 8, 1, 2),
        ],
    ],
    ids=["in-order", "out-of-order"],
)
def test_surface_positions_on_fixed_appends_and_replaces(ops: list[tuple[Any, ...]]) -> None:
    """The same comparison on fixed sequences that take every branch of the position map."""
    prefix, surface = Prefix(), list[int]()
    for op in ops:
        kind, *rest = op
        start, end, seq = rest if kind == "replace" else (-1, -1, rest[0])
        _surface_step(prefix, surface, kind, (start, end), seq)


# ---------------------------------------------------------------------------------------------
# The clean-event judges (`logcheck.clean_events`) judge as the invariants do, on logs broken
# where the rules look: ids, numbers, citations and surface ops taken from elsewhere in the log.

RELATION_SEEDS = [
    [json.loads(line) for line in path.read_text().splitlines()[1:]]
    for folder in ("valid", "violations")
    for path in sorted((FIXTURES / folder).glob("*.jsonl"))
]
# Fields the judges read, in `data`, in a content block, or on the event itself.
RELATION_KEYS = (
    "turn",
    "step",
    "callId",
    "toolCallId",
    "id",
    "name",
    "arguments",
    "handlerId",
    "point",
    "decision",
    "outcome",
    "interrupted",
    "isError",
    "error",
    "reason",
    "usage",
    "matcher",
    "exitCode",
    "stderrSummary",
    "durationMs",
    "rewrite",
    "surfaceOp",
    "sourceEventSeqs",
    "content",
    "message",
)


def _places(row: Any) -> list[dict[str, Any]]:
    """The objects of a row that hold fields the judges read."""
    found = [row]
    data = row.get("data")
    if isinstance(data, dict):
        found.append(data)
        message = data.get("message")
        if isinstance(message, dict):
            found.append(message)
            content = message.get("content")
            if isinstance(content, list):
                found.extend(block for block in content if isinstance(block, dict))
    return found


def _values_in_log(rows: list[Any], key: str) -> list[Any]:
    values: list[Any] = []
    for row in rows:
        for place in _places(row):
            if key in place and place[key] not in values:
                values.append(place[key])
    return values


def _plausible(draw: st.DrawFn, rows: list[Any], key: str, old: Any) -> Any:
    """A value for `key` that is wrong in a way the rules can see, often one from elsewhere."""
    seqs = [row["seq"] for row in rows if isinstance(row.get("seq"), int)] or [0]
    choices: list[Any] = [*_values_in_log(rows, key), None, True, False, "x", []]
    if isinstance(old, int) and not isinstance(old, bool):
        choices += [old - 1, old + 1, 0]
    if key == "surfaceOp":
        start, end = draw(st.sampled_from(seqs)), draw(st.sampled_from(seqs))
        choices += ["append", {"op": "replace", "start": start, "end": end}]
    if key == "sourceEventSeqs":
        cited = draw(st.lists(st.sampled_from([*seqs, -1, 10**6]), max_size=4))
        choices += [cited, [*cited, *cited[:1]]]
    if key == "error":
        choices += [{"code": "TOOL_NOT_STARTED"}, {"code": "TOOL_OUTCOME_UNKNOWN"}]
    if key == "outcome":
        choices += ["denied", "allowed-once"]
    if key == "durationMs":
        choices += [-1, -0.5, 2.5, 7]
    if key == "reason":
        choices += [{"kind": "error"}, {"kind": "completed"}, {"kind": 1}]
    if key == "rewrite":
        handlers = _values_in_log(rows, "handlerId")
        choices += [{"handlerIds": handlers[:1], "originalArguments": "{}"}]
    return draw(st.sampled_from(choices))


def _renumbered(rows: list[Any], cite_along: bool) -> list[Any]:
    """`rows` with contiguous seqs again, citations mapped along or left as they were."""
    mapping: dict[object, int] = {}
    seq = 0
    out = []
    for row in rows:
        new = dict(row)
        if "seq0" in row and "seq" not in row:
            new["seq0"] = seq
            texts = row.get("data", {}).get("texts", row.get("data", {}).get("args", []))
            seq += len(texts) if isinstance(texts, list) else 1
        else:
            if isinstance(row.get("seq"), int):
                mapping.setdefault(row["seq"], seq)
            new["seq"] = seq
            seq += 1
        out.append(new)
    if cite_along:
        for row in out:
            sources = row.get("sourceEventSeqs")
            if isinstance(sources, list):
                row["sourceEventSeqs"] = [mapping.get(s, s) for s in sources]
            op = row.get("surfaceOp")
            if isinstance(op, dict):
                start, end = op.get("start"), op.get("end")
                row["surfaceOp"] = {**op, "start": mapping.get(start, start)}
                row["surfaceOp"]["end"] = mapping.get(end, end)
    return out


@st.composite
def relationally_broken_logs(draw: st.DrawFn) -> bytes:
    """A fixture log (valid or breaking one rule), often with fields the rules relate changed,
    rows dropped, repeated or moved, and seqs mostly made contiguous again, so that the events
    reach the judges rather than fail LOG-1 first."""
    rows = [json.loads(json.dumps(row)) for row in draw(st.sampled_from(RELATION_SEEDS))]
    for _ in range(draw(st.integers(0, 3))):
        index = draw(st.integers(0, len(rows) - 1))
        # Mostly an event a judge reads (not a stream chunk or a plugin event).
        judged = [i for i, row in enumerate(rows) if row.get("type") in JUDGES]
        if judged and draw(st.integers(0, 3)) > 0:
            index = draw(st.sampled_from(judged))
        damage = draw(st.sampled_from(["field", "field", "field", "drop", "repeat", "move"]))
        if damage == "field":
            place = draw(st.sampled_from(_places(rows[index])))
            present = [key for key in RELATION_KEYS if key in place]
            # Mostly a field the event has: each type reads only a few of them.
            keys = present if present and draw(st.integers(0, 3)) > 0 else RELATION_KEYS
            key = draw(st.sampled_from(keys))
            if draw(st.integers(0, 5)) == 0:
                place.pop(key, None)
            else:
                # A copy: a value taken from elsewhere in the log may hold `place` itself.
                place[key] = json.loads(json.dumps(_plausible(draw, rows, key, place.get(key))))
        elif damage == "drop" and len(rows) > 1:
            del rows[index]
        elif damage == "repeat":
            rows.insert(index, json.loads(json.dumps(rows[index])))
        elif damage == "move":
            rows.insert(draw(st.integers(0, len(rows) - 1)), rows.pop(index))
    renumber = draw(st.sampled_from(["cite along", "cite along", "seqs only", "no"]))
    if renumber != "no":
        rows = _renumbered(rows, cite_along=renumber == "cite along")
    return jsonl(HEADER, rows).encode()


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(PROFILE, max_examples=PROFILE.max_examples * 2)
@given(relationally_broken_logs())
def test_clean_event_judges_find_what_the_invariants_find(data: bytes) -> None:
    """With the judges (the checker's default) and without (every event's fact fed to every
    invariant of its type): the same report, violation for violation."""
    quick = check_stream("relations", io.BytesIO(data))
    full = check_stream("relations", io.BytesIO(data), quick=False)
    assert quick == full


@pytest.mark.parametrize(
    "path",
    [path for folder in ("valid", "violations") for path in sorted((FIXTURES / folder).glob("*"))],
    ids=lambda path: f"{path.parent.name}/{path.name}",
)
def test_clean_event_judges_find_what_the_invariants_find_in_each_fixture(path: Path) -> None:
    """Each rule's fixture breaks its rule at an event a judge would call clean if it skipped
    that rule's condition: with and without the judges, the same report."""
    data = path.read_bytes()
    full = check_stream(path.name, io.BytesIO(data), quick=False)
    assert check_stream(path.name, io.BytesIO(data)) == full


def _deny_the_first_approval(rows: list[Any]) -> list[Any]:
    decided = next(row for row in rows if row["type"] == "approval/decided")
    decided["data"]["outcome"] = "denied"
    return rows


def _deny_the_first_approval_then_allow_one_never_asked(rows: list[Any]) -> list[Any]:
    """The denial, then an allowed-once answer to no request (DEC-2's), which clears what awaits
    an approval: the denied call's success is then barred by the refusal alone."""
    _deny_the_first_approval(rows)
    at = next(i for i, row in enumerate(rows) if row["type"] == "approval/decided")
    stray = json.loads(json.dumps(rows[at]))
    stray["data"].update(id="approval-never-asked", outcome="allowed-once")
    rows.insert(at + 1, stray)
    return _renumbered(rows, cite_along=True)


def _record_the_first_call_twice(rows: list[Any]) -> list[Any]:
    at = next(i for i, row in enumerate(rows) if row["type"] == "tool/call")
    rows.insert(at + 1, json.loads(json.dumps(rows[at])))
    return _renumbered(rows, cite_along=True)


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (_deny_the_first_approval, "DEC-2"),
        (_deny_the_first_approval_then_allow_one_never_asked, "DEC-2"),
        (_record_the_first_call_twice, "ORD-2"),
    ],
)
def test_clean_event_judges_see_rare_breaks(
    edit: Callable[[list[Any]], list[Any]], rule: str
) -> None:
    """Breaks too rare for the generator above to make often: a call whose approval was
    denied reports success (DEC-2 at a tool/result), also once nothing else awaits its approval;
    a call recorded twice (ORD-2)."""
    demo = (FIXTURES / "valid" / "model-demo.jsonl").read_text().splitlines()[1:]
    data = jsonl(HEADER, edit([json.loads(line) for line in demo])).encode()
    full = check_stream("rare", io.BytesIO(data), quick=False)
    assert rule in full.rule_counts
    assert check_stream("rare", io.BytesIO(data)) == full


# A rewrite sidecar of one hook, applied, is judged without its fact (`clean_events`); every
# other sidecar by `rewrite_traced_to_hooks` itself. Generated around the demo's rewritten call:
# its hooks' answers, where they come, and the sidecar itself.
_DEMO_ROWS = [
    json.loads(line)
    for line in (FIXTURES / "valid" / "model-demo.jsonl").read_text().splitlines()[1:]
]
_REWRITTEN = "call_c"
_EFFECTIVE = {"command": "rm -rf ./build --one-file-system"}  # the arguments call_c runs with


_OTHER_INPUT = {"command": "rm -rf build"}
_HOOKS = ["policy", "safe-flags", "other"]
_DECISIONS = ["allow", "ask", "deny", "block", "pass"]


def _hook_pair(handler: str, decision: str, supplied: object) -> list[dict[str, Any]]:
    """A hook/invoked and its PreToolUse hook/result about the rewritten call."""
    invoked = {"turn": 1, "point": "PreToolUse", "dialect": "claude-code", "handlerId": handler}
    result = {**invoked, "decision": decision, "durationMs": 0.0}
    del result["dialect"]
    if supplied is not None:
        result["updatedInput"] = supplied
    return [
        {"type": "hook/invoked", "seq": None, "time": 1, "data": {**invoked, "callId": _REWRITTEN}},
        {"type": "hook/result", "seq": None, "time": 1, "data": {**result, "callId": _REWRITTEN}},
    ]


@st.composite
def _edited_hook_pairs(draw: st.DrawFn) -> list[tuple[list[dict[str, Any]], bool]]:
    """The demo's two hooks of its rewritten call (one asks, one supplies the arguments the
    call runs with), each pair with whether it comes after the reply, edited a few times."""
    pairs = [(_hook_pair("policy", "ask", None), False)]
    pairs.append((_hook_pair("safe-flags", "allow", _EFFECTIVE), False))
    for _ in range(draw(st.integers(0, 3))):
        edit = draw(st.sampled_from(["add", "decision", "input", "point", "unnamed", "after"]))
        if edit == "add" or not pairs:
            handler, decision = draw(st.sampled_from(_HOOKS)), draw(st.sampled_from(_DECISIONS))
            supplied = draw(st.sampled_from([None, _EFFECTIVE, _OTHER_INPUT]))
            pairs.insert(
                draw(st.integers(0, len(pairs))), (_hook_pair(handler, decision, supplied), False)
            )
            continue
        at = draw(st.integers(0, len(pairs) - 1))
        pair = pairs[at][0]
        invoked, result = pair
        if edit == "decision":
            result["data"]["decision"] = draw(st.sampled_from(_DECISIONS))
        elif edit == "input":
            supplied = draw(st.sampled_from([None, _EFFECTIVE, _OTHER_INPUT]))
            result["data"].pop("updatedInput", None)
            if supplied is not None:
                result["data"]["updatedInput"] = supplied
        elif edit == "point":
            invoked["data"]["point"] = result["data"]["point"] = "PostToolUse"
        elif edit == "unnamed":
            invoked["data"].pop("callId", None)
            result["data"].pop("callId", None)
        else:
            pairs[at] = (pair, True)
    return pairs


@st.composite
def _rewrite_sidecars(draw: st.DrawFn) -> object:
    """The demo's sidecar (naming safe-flags), or another."""
    handlers: list[object] = ["safe-flags"]
    if draw(st.integers(0, 2)) == 0:
        handlers = draw(st.lists(st.sampled_from(_HOOKS), max_size=3))
    sidecar: dict[str, object] = {
        "originalArguments": '{"command":"rm -rf build"}',
        "handlerIds": handlers,
    }
    odd = draw(st.sampled_from(["", "", "", "", "", "", "handler", "original", "not an object"]))
    if odd == "handler":
        sidecar["handlerIds"] = [*handlers, draw(st.sampled_from([None, 1, ""]))]
    elif odd == "original":
        sidecar["originalArguments"] = draw(st.sampled_from([None, 1, {}]))
    return ["safe-flags"] if odd == "not an object" else sidecar


@st.composite
def rewritten_call_logs(draw: st.DrawFn) -> bytes:
    """The demo with the hooks of its rewritten call edited (their answers, and whether each
    comes before the reply or after it, before the call's record), and its sidecar drawn."""
    rows = [json.loads(json.dumps(row)) for row in _DEMO_ROWS]
    rows = [row for row in rows if not (row["type"].startswith("hook/") and row["seq"] < 7)]
    reply = next(i for i, row in enumerate(rows) if row["type"] == "assistant/message")
    pairs = draw(_edited_hook_pairs())
    rows[reply + 1 : reply + 1] = [row for pair, after in pairs if after for row in pair]
    rows[reply:reply] = [row for pair, after in pairs if not after for row in pair]
    record = next(
        row for row in rows if row["type"] == "tool/call" and row["data"]["callId"] == _REWRITTEN
    )
    record["data"]["rewrite"] = draw(_rewrite_sidecars())
    return jsonl(HEADER, renumber(rows)).encode()


@settings(PROFILE, max_examples=PROFILE.max_examples * 4)
@given(rewritten_call_logs())
def test_rewrite_sidecars_judged_without_their_fact_as_the_invariants_judge_them(
    data: bytes,
) -> None:
    """With the judges and without: the same report on every sidecar and its hooks' answers."""
    quick = check_stream("rewrite", io.BytesIO(data))
    assert quick == check_stream("rewrite", io.BytesIO(data), quick=False)


def test_a_one_hook_rewrite_is_judged_without_its_fact(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's sidecar (one hook's input, applied) takes the judge's own reading: the fact's
    reading, for any event of the demo, would fail this."""

    def no_fact(obj: dict[str, Any]) -> Fact:
        raise AssertionError(f"read with its fact: {obj}")

    monkeypatch.setattr(clean_events, "_fact", no_fact)
    report = check_stream(
        "demo", io.BytesIO((FIXTURES / "valid" / "model-demo.jsonl").read_bytes())
    )
    assert report.status == "ok"


@pytest.mark.no_cover
@settings(PROFILE, max_examples=PROFILE.max_examples * 4)
@given(
    st.one_of(
        st.floats(allow_nan=False).map(repr),
        st.sampled_from(["-0.0", "0e0", "-0e9", "1e400", "-1e400", "1e-400", "-1e-400", "-2.5"]),
    )
)
def test_a_number_is_refused_only_where_a_json_round_trip_loses_it(text: str) -> None:
    """LOG-3 as the checker's scanner reads a number with a fraction or an exponent: its quick
    return (neither minus nor an infinity) and its refusals agree with what the number is."""
    value = float(text)
    loses = math.isinf(value) or (value == 0 and math.copysign(1, value) < 0)
    try:
        read = _lossless_float(text)
    except ValueError:
        assert loses
    else:
        assert not loses
        assert read == value


@pytest.mark.parametrize("duration", [-1, -0.5, 0, 0.0, 2.5, 10**30, True, None, "1", [1]])
def test_hook_durations_judged_as_the_invariants_judge_them(duration: object) -> None:
    """HOOK-1's finite, not negative duration, as the judge of hook/result reads it inline."""
    rows = [json.loads(json.dumps(row)) for row in _DEMO_ROWS]
    next(row for row in rows if row["type"] == "hook/result")["data"]["durationMs"] = duration
    data = jsonl(HEADER, rows).encode()
    full = check_stream("duration", io.BytesIO(data), quick=False)
    assert check_stream("duration", io.BytesIO(data)) == full


@pytest.mark.parametrize(
    ("member", "value"),
    [
        ("stderrSummary", None),
        ("stderrSummary", 1),
        ("stderrSummary", ""),
        ("stderrSummary", "TIMEOUT: the hook did not answer"),
        ("updatedInput", None),
        ("updatedInput", {"command": "ls"}),
    ],
)
def test_a_hook_answer_s_summary_and_input_judged_as_the_invariants_judge_them(
    member: str, value: object
) -> None:
    """The members of a hook/result that its judge tests for before it reads them (most answers
    give neither): written null, of another type, empty, a fault's or an input, the report of
    the full path."""
    rows = [json.loads(json.dumps(row)) for row in _DEMO_ROWS]
    next(row for row in rows if row["type"] == "hook/result")["data"][member] = value
    data = jsonl(HEADER, rows).encode()
    full = check_stream("answer", io.BytesIO(data), quick=False)
    assert check_stream("answer", io.BytesIO(data)) == full


@pytest.mark.parametrize("kind", sorted(JUDGES))
def test_every_clean_event_judge_stands_for_the_checks_of_its_type(kind: str) -> None:
    """A judge stands for the checks the registry runs on its type, in its order: an invariant
    added later that reads the type fails here, where check (which does not import the registry
    for a clean log) would skip it on every event the judge finds clean."""
    names = {inv.check: inv.name for inv in INVARIANTS}
    assert tuple(names[check] for check in LogMonitor().checks_for(kind)) == JUDGES[kind].stands_for


@pytest.mark.parametrize("kind", sorted(QUIET_KINDS))
def test_the_quiet_kinds_check_knows_without_the_registry_are_the_registry_s(kind: str) -> None:
    """A type check judges quietly from its first event is as quiet as the monitor says."""
    assert LogMonitor().quiet_kind(kind) == QUIET_KINDS[kind]


@pytest.mark.parametrize("tail", [b"\n", b""])
def test_a_first_line_nested_too_deeply_is_an_error_not_a_crash(tail: bytes) -> None:
    """The sniffing of a foreign first record gives up on it; the dsh reader reports it."""
    report = check_stream("deep", io.BytesIO(b"[" * 30_000 + tail))
    assert [e.kind for e in report.errors] == [
        ErrorKind.INVALID_JSON if tail else ErrorKind.TORN_TAIL
    ]
