"""The commit-marker reader's fast path (`CommitUnits.take`), and the checker's loop, which
judges the usual lines itself, against the reader's general path (`CommitUnits.take_generally`):
the same LOG-8 verdicts, and the same state on every line.

The fast path judges the usual lines (a commit by itself, a commit's first line, the next line of
the open one) without validating the marker the general way; lines are drawn as whole commits
with some markers, types and seqs damaged, so that both paths and the hand-over between them
are reached.
"""

from __future__ import annotations

import copy
import io
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopspec.impl import framing
from loopspec.model.prefix import Prefix
from loopspec.properties import logcheck
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.logcheck.checker import LogReport, NoticeKind, check_stream
from loopspec.properties.logcheck.commit_units import CommitUnits
from loopspec.properties.logcheck.synth import MARKED_HEADER, jsonl, marked_model_rows

PROFILE = settings()

# Odd markers: a bool or a float where an integer belongs, too many parts, not a list (two
# characters or two keys among them), k > n, n < 2, k = 0.
ODD_MARKERS = [
    [True, 2],
    [1, True],
    [1.0, 2],
    [2, 2.0],
    [1, 2, 3],
    "1/2",
    "12",
    {},
    {"k": 1, "n": 2},
    [3, 2],
    [1, 1],
    [0, 2],
]
TYPES = ["tool/call", "assistant/message", "tool/result", "step/end"]


def _event(kind: str, seq: Any, calls: list[str]) -> dict[str, Any]:
    obj: dict[str, Any] = {"type": kind}
    if seq is not None:
        obj["seq"] = seq
    if kind == "tool/call":
        obj["data"] = {"callId": calls[0] if calls else "c1"}
    elif kind == "assistant/message":
        content = [{"type": "tool-call", "id": call_id} for call_id in calls]
        obj["data"] = {"message": {"content": content}}
        obj["surfaceOp"] = "append"
    return obj


@st.composite
def marked_lines(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Lines of commits of 1 to 4 events, each marked [k, n] when n >= 2, then damaged."""
    lines: list[dict[str, Any]] = []
    for size in draw(st.lists(st.integers(1, 4), max_size=8)):
        for k in range(1, size + 1):
            kind = draw(st.sampled_from(TYPES))
            calls = draw(st.lists(st.sampled_from(["c1", "c2", "c3"]), max_size=3))
            event = _event(kind, len(lines), calls)
            if size > 1:
                event["unit"] = [k, size]
            lines.append(event)
    for _ in range(draw(st.integers(0, 4))):
        if not lines:
            break
        at = draw(st.integers(0, len(lines) - 1))
        damage = draw(
            st.sampled_from(["odd-marker", "marker", "drop-marker", "drop", "swap", "seq", "seq0"])
        )
        if damage == "odd-marker":
            lines[at]["unit"] = draw(st.sampled_from(ODD_MARKERS))
        elif damage == "marker":
            lines[at]["unit"] = draw(st.lists(st.integers(0, 4), min_size=2, max_size=2))
        elif damage == "drop-marker":
            lines[at].pop("unit", None)
        elif damage == "drop":
            del lines[at]
        elif damage == "swap" and at + 1 < len(lines):
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
        elif damage == "seq":
            lines[at]["seq"] = draw(st.sampled_from([None, "3", 2.0, True]))
        elif damage == "seq0":
            lines[at]["seq0"] = lines[at].pop("seq", 0)
    return lines


# What a later line can read between commits: the rest is set afresh when a commit opens.
BETWEEN_COMMITS = {"_size", "_position", "_cut", "_reply"}


def _state(units: CommitUnits) -> dict[str, Any]:
    """The reader's state that a later line can read, and what it tells the invariants."""
    if units._pending is not None:  # a reply read when a verdict needs it: read it now
        units._read_pending()
    state = {
        key: value
        for key, value in vars(units).items()
        if key != "_prefix" and (units._size or key in BETWEEN_COMMITS)
    }
    state["unrecorded_blamed"] = units._prefix.unrecorded_blamed
    return state


def _seq_and_kind(obj: dict[str, Any]) -> tuple[object, object]:
    """The seq and type the checker passes `take` (the seq None where it could not read both,
    as for an object without a type)."""
    try:
        return obj.get("seq"), obj["type"]
    except KeyError:
        return None, None


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(PROFILE, max_examples=PROFILE.max_examples * 5)
@given(marked_lines())
def test_LOG_8_commit_markers_fast_path_judges_as_the_general_path(
    lines: list[dict[str, Any]],
) -> None:
    fast, general = CommitUnits(Prefix()), CommitUnits(Prefix())
    for line, obj in enumerate(lines, start=2):
        taken = fast.take(obj, line, *_seq_and_kind(obj))
        assert list(taken) == list(general.take_generally(obj, line)), obj
        assert _state(fast) == _state(general), obj
    assert fast.torn() == general.torn()


def test_the_checker_reads_the_marker_the_writer_writes() -> None:
    """The commit reader names the marker's field itself, so that a marked log is checked
    without importing `impl`: it is the field `impl.framing` writes."""
    assert logcheck.UNIT_KEY == framing.UNIT_KEY


def test_LOG_8_a_malformed_marker_is_shown_as_the_log_writes_it() -> None:
    """A marker is quoted in JSON (true, not Python's True), so that a user can find it in the
    log, and a long one is shortened."""
    units = CommitUnits(Prefix())
    found = units.take_generally({"type": "step/end", "seq": 3, "unit": [True, None]}, 5)
    assert [v.rule_id for v in found] == ["LOG-8"]
    assert "the unit marker [true, null]," in found[0].message, found[0].message
    long = {"type": "step/end", "seq": 3, "unit": "x" * 500}
    message = CommitUnits(Prefix()).take_generally(long, 5)[0].message
    assert '"xxx' in message
    assert "..., which is not" in message


# The demo as `loopspec run` writes it: commits of 2 to 7 events, replies with calls and records.
DEMO_ROWS = marked_model_rows(DEMO_CONFIG, DEMO_COMMANDS)


@st.composite
def damaged_demo(draw: st.DrawFn) -> list[dict[str, Any]]:
    """The demo's rows, some markers, seqs and lines damaged, cut short or not."""
    rows = copy.deepcopy(DEMO_ROWS[: draw(st.integers(1, len(DEMO_ROWS)))])
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(rows) - 1))
        damage = draw(
            st.sampled_from(["odd-marker", "marker", "drop-marker", "drop", "swap", "call-id"])
        )
        if damage == "call-id":  # the commit whole, a call of its reply without a record
            calls = [row for row in rows if row["type"] == "tool/call"]
            if calls:
                draw(st.sampled_from(calls))["data"]["callId"] = "call_elsewhere"
        elif damage == "odd-marker":
            rows[at]["unit"] = draw(st.sampled_from(ODD_MARKERS))
        elif damage == "marker":
            rows[at]["unit"] = draw(st.lists(st.integers(0, 8), min_size=2, max_size=2))
        elif damage == "drop-marker":
            rows[at].pop("unit", None)
        elif damage == "drop" and len(rows) > 1:
            del rows[at]
        elif damage == "swap" and at + 1 < len(rows):
            rows[at], rows[at + 1] = rows[at + 1], rows[at]
    return rows


_BEGUN_NOWHERE = re.compile(
    r"marked event (\d+) of a commit of (\d+),? (but no commit|though none) is open"
)


def _begun_nowhere(message: str) -> str:
    """`message`, or where it says a line is marked inside a commit none opened, that marker
    alone: the checker says it as a LOG-1 at a taken seq (a copy's line, told from a pipe)."""
    marked = _BEGUN_NOWHERE.search(message)
    return message if marked is None else f"marked event {marked[1]} of {marked[2]}, none open"


def _log_8(report: LogReport) -> list[tuple[int | None, str, str]]:
    """The LOG-8 findings of `report`, with where they are, in order (a LOG-1 in place of one,
    at a taken seq, as that LOG-8: `_begun_nowhere`)."""
    found = [
        (found.line, _begun_nowhere(found.violation.message), "violation")
        for found in report.violations
        if found.violation.rule_id == "LOG-8"
        or (found.violation.rule_id == "LOG-1" and "though none is open" in found.violation.message)
    ]
    torn = [
        (notice.line, notice.message, "notice")
        for notice in report.notices
        if notice.kind == NoticeKind.TORN_COMMIT
    ]
    return found + torn


@pytest.mark.no_cover
@settings(PROFILE, max_examples=PROFILE.max_examples * 2)
@given(damaged_demo())
def test_a_marked_log_is_judged_alike_with_and_without_the_checker_s_shortcuts(
    rows: list[dict[str, Any]],
) -> None:
    """The whole report, every rule's findings: where the loop holds a reply its judge folded
    (LOG-8's `take_held_reply`), a commit broken after it leaves the reply's calls without a
    record blamed by LOG-8 alone, as where the reply's fact was read (`quick=False`)."""
    data = (jsonl(MARKED_HEADER, rows) + "\n").encode()
    quick = check_stream("log.jsonl", io.BytesIO(data))
    assert quick == check_stream("log.jsonl", io.BytesIO(data), quick=False)


def _reply_row(seq: int, content: list[dict[str, Any]], unit: list[int]) -> dict[str, Any]:
    message = {"role": "assistant", "content": content, "source": {"kind": "model"}}
    return {
        "type": "assistant/message",
        "seq": seq,
        "time": seq,
        "data": {"turn": 1, "step": 1, "message": message},
        "surfaceOp": "append",
        "unit": unit,
    }


def test_LOG_8_a_second_reply_after_one_the_loop_held_is_judged_as_without_the_hold() -> None:
    """The loop holds a commit's first reply its judge folded clean (here one without calls);
    a second reply in the commit, whose call has no record there, still breaks LOG-8 (and
    ORD-1), as where no reply was held (`quick=False`)."""
    user = {"role": "user", "content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}}
    call = {"type": "tool-call", "id": "c1", "name": "bash", "arguments": "{}"}
    rows = [
        {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}, "unit": [1, 3]},
        {"type": "step/start", "seq": 1, "time": 1, "data": {"turn": 1, "step": 1}, "unit": [2, 3]},
        {"type": "user/message", "seq": 2, "time": 2, "data": user, "surfaceOp": "append"}
        | {"unit": [3, 3]},
        {"type": "assistant/chunk", "seq": 3, "time": 3, "data": {"turn": 1, "step": 1}}
        | {"unit": [1, 3]},
        _reply_row(4, [{"type": "text", "text": "first"}], [2, 3]),
        _reply_row(5, [call], [3, 3]),
    ]
    data = (jsonl(MARKED_HEADER, rows) + "\n").encode()
    quick = check_stream("log.jsonl", io.BytesIO(data))
    assert quick == check_stream("log.jsonl", io.BytesIO(data), quick=False)
    assert "LOG-8" in quick.rule_counts, quick.violations


def test_LOG_8_a_reply_opening_its_commit_held_by_the_loop_is_judged_as_without_the_hold() -> None:
    """The loop holds a reply that opens its commit, as one later in it: where the commit ends
    with a call of the reply unrecorded, or breaks off after it, LOG-8 blames the calls
    without a record as where the reply's fact was read (`quick=False`)."""
    user = {"role": "user", "content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}}
    calls = [
        {"type": "tool-call", "id": call_id, "name": "bash", "arguments": "{}"}
        for call_id in ("c1", "c2")
    ]
    record = {"turn": 1, "step": 1, "callId": "c1", "name": "bash", "arguments": "{}"}
    opening = [
        {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}, "unit": [1, 3]},
        {"type": "step/start", "seq": 1, "time": 1, "data": {"turn": 1, "step": 1}, "unit": [2, 3]},
        {"type": "user/message", "seq": 2, "time": 2, "data": user, "surfaceOp": "append"}
        | {"unit": [3, 3]},
        _reply_row(3, calls, [1, 3]),
        {"type": "tool/call", "seq": 4, "time": 4, "data": record, "unit": [2, 3]},
    ]
    step_end = {"type": "step/end", "seq": 5, "time": 5, "data": {"turn": 1, "step": 1}}
    ended = [*opening, step_end | {"unit": [3, 3]}]
    broken = [*opening, step_end | {"unit": [1, 2]}]
    for rows, words in ((ended, "without a tool/call for c2"), (broken, "breaks off after 2")):
        data = (jsonl(MARKED_HEADER, rows) + "\n").encode()
        quick = check_stream("log.jsonl", io.BytesIO(data))
        assert quick == check_stream("log.jsonl", io.BytesIO(data), quick=False)
        log_8 = [found for found in quick.violations if found.violation.rule_id == "LOG-8"]
        assert len(log_8) == 1, quick.violations
        assert words in log_8[0].violation.message, log_8[0].violation.message


@pytest.mark.no_cover
@settings(PROFILE, max_examples=PROFILE.max_examples * 5)
@given(damaged_demo(), st.booleans())
def test_LOG_8_the_checker_judges_commit_markers_as_the_general_path(
    rows: list[dict[str, Any]], quick: bool
) -> None:
    """Whatever way the checker's loop reads a line (itself, or through `take`), it finds what
    `take_generally` finds on each line it read, and the same commit torn at the end."""
    text = jsonl(MARKED_HEADER, rows) + "\n"
    report = check_stream("log.jsonl", io.BytesIO(text.encode()), quick=quick)
    general = CommitUnits(Prefix())
    expected: list[tuple[int | None, str, str]] = []
    for line, obj in enumerate(rows[: report.lines - 1], start=2):
        expected += [
            (line, _begun_nowhere(v.message), "violation")
            for v in general.take_generally(obj, line)
        ]
    torn = general.torn()
    if torn is not None and not report.errors:
        expected.append((torn[0], torn[2], "notice"))
    assert _log_8(report) == expected


@pytest.mark.parametrize("quick", [False, True])
def test_LOG_1_LOG_8_a_late_event_of_a_commit_broken_off_is_no_copy_of_it(quick: bool) -> None:
    """LOG-1, LOG-8: a commit of 3 broken off after its first event (an unmarked event at seq
    2), then its event 2 at seq 1: seq 1 was never written, yet the checker read the line as
    that commit written again ("seq 1 is written again, event 2 of the commit of 3") and fed
    the commit tracker no more of it, so a later line was blamed LOG-8 where the general path
    finds nothing (found by the property above under the dev profile's random search)."""
    # As the property drew it, times and all (with other times the line reads otherwise).
    t = 1_700_000_000_000
    text = [{"type": "text", "text": "Read a.txt"}]
    rows: list[dict[str, Any]] = [
        {"type": "turn/start", "seq": 0, "time": t, "data": {"turn": 1}, "unit": [1, 3]},
        {
            "type": "user/message",
            "seq": 2,
            "time": t + 2,
            "data": {"role": "user", "content": text, "source": {"kind": "user"}, "id": "m2"},
            "surfaceOp": "append",
        },
        {
            "type": "step/start",
            "seq": 1,
            "time": t + 1,
            "data": {"turn": 1, "step": 1},
            "unit": [2, 3],
        },
        {
            "type": "hook/result",
            "seq": 4,
            "time": t + 4,
            "data": {
                "turn": 1,
                "point": "PreToolUse",
                "handlerId": "policy",
                "decision": "ask",
                "durationMs": 0.0,
                "stderrSummary": "deleting files needs a human",
                "callId": "call_c",
            },
            "unit": [2, 2],
        },
    ]
    log = jsonl(MARKED_HEADER, rows) + "\n"
    report = check_stream("log.jsonl", io.BytesIO(log.encode()), quick=quick)
    general = CommitUnits(Prefix())
    expected = [
        (line, v.message, "violation")
        for line, obj in enumerate(rows, start=2)
        for v in general.take_generally(obj, line)
    ]
    assert [line for line, _, _ in expected] == [3]
    assert _log_8(report) == expected
    assert not [f for f in report.violations if "written again" in f.violation.message]


def test_LOG_8_a_held_reply_s_commit_is_not_read_with_an_earlier_commit_s_records() -> None:
    """A later step may make a call under an id an earlier step's call had: where the loop
    holds the later reply, its commit's records are its own, so a commit ending without that
    call's record breaks LOG-8 as where the reply's fact was read (`quick=False`)."""
    call = [{"type": "tool-call", "id": "c1", "name": "bash", "arguments": "{}"}]
    record = {"turn": 1, "step": 1, "callId": "c1", "name": "bash", "arguments": "{}"}
    block = {"type": "tool-result", "toolCallId": "c1", "content": [{"type": "text", "text": "x"}]}
    answer = {"role": "user", "content": [block], "source": {"kind": "tool", "callId": "c1"}}
    result = {"turn": 1, "step": 1, "message": answer}
    later = _reply_row(7, call, [1, 2])
    later["data"]["step"] = 2
    rows = [
        {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}, "unit": [1, 2]},
        {"type": "step/start", "seq": 1, "time": 1, "data": {"turn": 1, "step": 1}, "unit": [2, 2]},
        _reply_row(2, call, [1, 2]),
        {"type": "tool/call", "seq": 3, "time": 3, "data": record, "unit": [2, 2]},
        {"type": "tool/result", "seq": 4, "time": 4, "data": result, "surfaceOp": "append"}
        | {"sourceEventSeqs": [3]},
        {"type": "step/end", "seq": 5, "time": 5, "data": {"turn": 1, "step": 1}, "unit": [1, 2]},
        {"type": "step/start", "seq": 6, "time": 6, "data": {"turn": 1, "step": 2}, "unit": [2, 2]},
        later,
        {"type": "step/end", "seq": 8, "time": 8, "data": {"turn": 1, "step": 2}, "unit": [2, 2]},
    ]
    data = (jsonl(MARKED_HEADER, rows) + "\n").encode()
    quick = check_stream("log.jsonl", io.BytesIO(data))
    assert quick == check_stream("log.jsonl", io.BytesIO(data), quick=False)
    messages = [found.violation.message for found in quick.violations]
    assert any("without a tool/call for c1" in message for message in messages), messages


def test_LOG_8_a_line_begun_nowhere_is_the_last_line_s_alone() -> None:
    """LOG-8: the reader's `begun_nowhere`, the LOG-8 of a line marked event k > 1 of a commit
    none opened, which the checker words as a copy at a taken seq, named that line's violation
    on every later line too (never reset): it is the line `take` read last, or None."""
    units = CommitUnits(Prefix())
    (found,) = units.take({"type": "step/end", "seq": 0, "unit": [2, 3]}, 2, 0, "step/end")
    assert units.begun_nowhere is found
    units.take({"type": "step/end", "seq": 1, "unit": [3, 3]}, 3, 1, "step/end")
    assert not units.take({"type": "turn/end", "seq": 2}, 4, 2, "turn/end")
    assert units.begun_nowhere is None
