"""`loopspec check` under generated input: damaged logs never crash it, valid logs never fail it.

Budgets scale with the Hypothesis profile: bounded under `ci`, many more cases under `thorough`.
"""

from __future__ import annotations

import io
import json
import sys
from typing import Any

import pytest
from check_fixtures import FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import run_state_machine_as_test

from loopspec.model.events import Event
from loopspec.model.facts import CallFact, Fact, FactError, fact_from_wire, facts_of
from loopspec.model.invariants import INVARIANTS, LogMonitor, Prefix, Violation
from loopspec.model.wire import event_to_wire
from loopspec.properties.cli.main import main
from loopspec.properties.logcheck.checker import ErrorKind, LogReport, check_stream
from loopspec.properties.logcheck.synth import HEADER, as_harness_writes, jsonl
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


@settings(PROFILE, max_examples=PROFILE.max_examples * 10)
@given(damaged_logs())
def test_damaged_logs_never_raise(data: bytes) -> None:
    """Any damage gives a report — violations, errors or notices — never an exception."""
    report = check_stream("fuzz", io.BytesIO(data))
    assert report.status in STATUSES
    assert all(error.message for error in report.errors)
    assert len(report.errors) <= 2  # at most a header error and one line error


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


@settings(PROFILE, max_examples=PROFILE.max_examples * 3)
@given(damaged_logs())
def test_monitor_dispatch_equals_every_invariant_on_every_event(data: bytes) -> None:
    """`Invariant.reads` only skips checks that cannot object: same violations, same order."""
    monitor, prefix = LogMonitor(), Prefix()
    for fact in _facts(data):
        everything: list[Violation] = [v for inv in INVARIANTS for v in inv.check(prefix, fact)]
        prefix.fold(fact)
        assert monitor.feed(fact) == everything


@pytest.mark.parametrize("kind", ["assistant/chunk", "hook/custom", "x", "tool/result"])
def test_checks_for_unknown_and_known_types_are_a_registry_subset(kind: str) -> None:
    """The dispatch keeps registry order."""
    checks = LogMonitor().checks_for(kind)
    order = [inv.check for inv in INVARIANTS]
    assert [order.index(c) for c in checks] == sorted(order.index(c) for c in checks)


# ---------------------------------------------------------------------------------------------
# The checker's shortcuts judge as the full path does.


@settings(PROFILE, max_examples=PROFILE.max_examples * 3)
@given(damaged_logs())
def test_quiet_events_are_judged_as_their_facts_would_be(data: bytes) -> None:
    """Skipping the facts of events `LogMonitor.quiet_kind` calls quiet changes no report."""
    quick = check_stream("fuzz", io.BytesIO(data))
    full = check_stream("fuzz", io.BytesIO(data), quick=False)
    assert quick == full


def _surface_op(seqs: list[int]) -> st.SearchStrategy[tuple[str, int, int, int]]:
    known = st.sampled_from(seqs) if seqs else st.integers(0, 3)
    any_seq = known | st.integers(-2, 40)
    return st.tuples(st.sampled_from(["append", "replace"]), any_seq, any_seq, any_seq)


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
