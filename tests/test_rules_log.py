"""LOG rules: the envelope, frozen JSON, the wire codec, the surface, atomic commits."""

from __future__ import annotations

import io
import json
import math
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st
from spec_helpers import PLAIN, clean, run, wire

from loopspec.model.commands import (
    Command,
    Crash,
    ModelReplies,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.derive import derive_messages
from loopspec.model.errors import InvalidEventError
from loopspec.model.events import Event, StepStarted, TurnStarted
from loopspec.model.facts import fact_from_wire, facts_of
from loopspec.model.invariants import LogMonitor, check_facts
from loopspec.model.jsonvalue import FrozenMap, NotJsonError, freeze, parse_arguments, thaw
from loopspec.model.log_layout import SURFACE_TYPES as layout_surface_types
from loopspec.model.messages import TextBlock, ToolCallBlock, UserMessage
from loopspec.model.prefix import PACKED_SURFACE, REMEMBERED_GONE, SKIPS_KEPT, Prefix
from loopspec.model.prefix import SURFACE_TYPES as prefix_surface_types
from loopspec.model.wire import (
    converter,
    event_from_wire,
    event_to_wire,
    header_from_wire,
    header_to_wire,
)
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.cli.spec_example import example_file_name
from loopspec.properties.conformance.run import spec_text
from loopspec.properties.logcheck.checker import check_stream
from loopspec.properties.logcheck.rule_examples import edited_rows, example_header, number
from loopspec.properties.logcheck.synth import jsonl

DEMO = run(DEMO_CONFIG, DEMO_COMMANDS)


def test_LOG_1_seqs_are_contiguous_from_zero() -> None:
    """LOG-1: every event's seq is its index."""
    assert [event.seq for event in DEMO.log] == list(range(len(DEMO.log)))


def test_LOG_1_gap_is_reported() -> None:
    """LOG-1: a skipped seq is a violation."""
    events: list[Event] = [TurnStarted(0, 0, 1), StepStarted(2, 0, 1, 1)]
    assert [v.rule_id for v in check_facts(facts_of(e) for e in events)] == ["LOG-1"]


def _renumbered(seqs: dict[int, int]) -> list[dict[str, object]]:
    """The demo log's wire events, the event at each index in `seqs` given that seq instead."""
    events = wire(DEMO.log)
    for index, seq in seqs.items():
        events[index] = {**events[index], "seq": seq}
    return events


class _Pipe(io.BytesIO):
    """A log read once, as from a pipe: no copy is looked for where it was first written, no
    seq a break skipped on the lines (a stream that can seek back is read again, as a file
    is)."""

    def seekable(self) -> bool:
        return False


def _log_1_findings(
    events: list[dict[str, object]], *, quick: bool, piped: bool = False
) -> list[tuple[int, str]]:
    """The line and words of each LOG-1 of the log of `events`, read as a file is (read again
    where a violation asks) or as a pipe (`piped`)."""
    header = {"type": "session", "version": 0, "id": "s", "createdAt": 0, "cwd": "/w"}
    text = "".join(json.dumps(line) + "\n" for line in [header, *events]).encode()
    report = check_stream("log", _Pipe(text) if piped else io.BytesIO(text), quick=quick)
    assert report.errors == []
    return [
        (f.line, f.violation.message) for f in report.violations if f.violation.rule_id == "LOG-1"
    ]


TAKEN = (
    ": that seq is taken already; each event's is the one before it + 1, after a compact row "
    "(one per item) or a resume too (go on from the log's last seq)"
)


@pytest.mark.parametrize("quick", [True, False], ids=["quick", "every fact"])
def test_LOG_1_a_repeated_seq_is_one_violation_and_the_events_after_it_keep_the_rule(
    quick: bool,
) -> None:
    """LOG-1: a seq written twice is one violation, at the repeat. The next event, whose seq is
    its index again, keeps the rule: it was reported too ('seq 6 where 5 was due'), sending
    the maintainer to a line with nothing wrong on it. A jump is still one violation, whether
    the numbering goes on from the jump (a log restarted at seq 0) or returns to the index."""
    assert _log_1_findings(_renumbered({5: 4}), quick=quick) == [
        (7, "seq 4 where 5 was due" + TAKEN)
    ]
    assert _log_1_findings(_renumbered({5: 9}), quick=quick) == [(7, "seq 9 where 5 was due")]
    shifted = {index: index + 3 for index in range(5, len(DEMO.log))}
    assert _log_1_findings(_renumbered(shifted), quick=quick) == [
        (7, "seq 8 where 5 was due: no line carries seqs 5 to 7 (a line deleted, or a seq its "
         "writer skipped)")
    ]  # fmt: skip
    restarted = {index: index - 5 for index in range(5, len(DEMO.log))}
    assert _log_1_findings(_renumbered(restarted), quick=quick) == [
        (7, "seq 0 where 5 was due" + TAKEN)
    ]


@pytest.mark.parametrize("quick", [True, False], ids=["quick", "every fact"])
def test_LOG_1_a_line_moved_later_is_a_seq_skipped_not_one_taken(quick: bool) -> None:
    """LOG-1: a line moved later (seq 12 written after seq 19) read 'seq 12 where 19 was due:
    that seq is taken already', though no line before carried seq 12: the break at seq 13
    skipped it, and the words say so, read from a file or a pipe alike. A seq a break skipped
    long before the last few is not said taken either; one that came since is."""
    events = wire(DEMO.log)
    moved = [*events[:12], *events[13:19], events[12], *events[19:]]
    assert _log_1_findings(moved, quick=quick) == [
        (14, "seq 13 where 12 was due: seq 12 comes later, at line 20 (lines out of order)"),
        (20, "seq 12 where 19 was due: seq 13 came where 12 was due, skipping it (lines out of "
         "order); each line's seq is the one before it + 1, lines in the order they were written"),
    ]  # fmt: skip
    # Written again after seq 25 too: that copy's seq is taken, no longer skipped by the break.
    again = [*moved[:26], events[12], *moved[26:]]
    assert _log_1_findings(again, quick=quick, piped=True)[2] == (
        28,
        "seq 12 where 26 was due" + TAKEN,
    )
    prefix = Prefix()
    for seq in range(0, 4 * SKIPS_KEPT, 2):  # every other seq skipped
        prefix.expected_seq = seq
        prefix.note_break(seq + 2)
    assert prefix.skipped_by(2 * SKIPS_KEPT + 1) == (2 * SKIPS_KEPT, 2 * SKIPS_KEPT + 2)
    assert (prefix.skipped_by(1), prefix.skips_forgotten) == (None, True)


@pytest.mark.parametrize("quick", [True, False], ids=["quick", "every fact"])
def test_LOG_1_a_line_inserted_with_a_taken_seq_is_one_violation(quick: bool) -> None:
    """LOG-1: an event written again not right after itself (turn 1's step/start copied after
    its user message) reuses a taken seq: from a pipe, LOG-1 once, at the copy, and what the
    copy breaks (STEP-1), as SPEC's LOG-1 says (from a file, the line it repeats is found).
    The event after it, whose seq the numbering before the copy gave, was a second LOG-1
    ('seq 3 where 2 was due')."""
    events = wire(DEMO.log)
    assert [event["type"] for event in events[1:3]] == ["step/start", "user/message"]
    inserted = [*events[:3], events[1], *events[3:]]
    assert _log_1_findings(inserted, quick=quick, piped=True) == [
        (5, "seq 1 where 3 was due" + TAKEN)
    ]


@pytest.mark.parametrize(
    ("value", "where"),
    [
        (math.nan, "$"),
        ({"a": [1, math.inf]}, "$.a[1]"),
        ({"x": -0.0}, "$.x"),
        ({1: "key"}, "$"),
        ({"f": print}, "$.f"),
    ],
)
def test_LOG_3_non_json_is_refused_with_its_path(value: object, where: str) -> None:
    """LOG-3: values JSON cannot carry losslessly are refused, naming where they are."""
    with pytest.raises(NotJsonError) as error:
        freeze(value)
    assert error.value.path == where


def test_LOG_3_cycles_are_refused() -> None:
    """LOG-3: a cyclic structure is not JSON."""
    cyclic: list[object] = []
    cyclic.append(cyclic)
    with pytest.raises(NotJsonError, match="cycle"):
        freeze(cyclic)


def test_LOG_3_frozen_values_do_not_alias_the_caller() -> None:
    """LOG-3: freezing snapshots; changing the original afterwards changes nothing."""
    original: dict[str, object] = {"command": ["ls", "-l"], "env": {"A": "1"}}
    frozen = freeze(original)
    commands = original["command"]
    assert isinstance(commands, list)
    commands.append("/")
    assert thaw(frozen) == {"command": ["ls", "-l"], "env": {"A": "1"}}
    assert isinstance(frozen, FrozenMap)
    with pytest.raises(AttributeError):
        frozen._items = MappingProxyType({})


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@pytest.mark.no_cover
@given(json_values)
def test_LOG_3_freeze_thaw_round_trips(value: object) -> None:
    """LOG-3: any JSON value (but -0.0) survives freeze and thaw unchanged."""
    try:
        frozen = freeze(value)
    except NotJsonError:
        return  # -0.0 somewhere inside
    assert thaw(frozen) == value
    assert json.loads(json.dumps(thaw(frozen))) == value


def test_LOG_4_wire_round_trips_every_model_event() -> None:
    """LOG-4: reading what the model wrote gives back the same events and the same JSON."""
    for event in DEMO.log:
        obj = json.loads(json.dumps(event_to_wire(event)))
        assert event_from_wire(obj) == event
        assert event_to_wire(event_from_wire(obj)) == obj
        assert converter.unstructure(converter.structure(obj, type(event))) == obj


def test_LOG_4_unknown_types_are_kept_verbatim() -> None:
    """LOG-4: a plugin event round-trips untouched, envelope extras included."""
    obj = {"type": "session/title", "seq": 3, "time": 9, "data": {"title": "x"}, "ignorable": True}
    assert event_to_wire(event_from_wire(obj)) == obj


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        ({"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": "1"}}, "turn"),
        ({"type": "turn/start", "seq": -1, "time": 0, "data": {"turn": 1}}, "seq"),
        ({"type": "step/start", "seq": 0, "time": 0, "data": {"turn": 1}}, "step"),
        (
            {
                "type": "tool/call",
                "seq": 0,
                "time": 0,
                "data": {"turn": 1, "step": 1, "callId": "", "name": "x", "arguments": ""},
            },
            "call_id",
        ),
        ({"type": "turn/end", "seq": 0, "time": 0, "data": {"turn": 1, "reason": {}}}, "kind"),
        (
            {
                "type": "hook/result",
                "seq": 0,
                "time": 0,
                "data": {
                    "turn": 1,
                    "point": "P",
                    "handlerId": "h",
                    "decision": "deny",
                    "durationMs": -1,
                },
            },
            "durationMs",
        ),
        ({"type": "assistant/message", "seq": 0, "time": 1.5, "data": {}}, "time"),
        ([1, 2], "object"),
    ],
)
def test_LOG_4_invalid_events_cannot_be_read(obj: object, field: str) -> None:
    """LOG-4: a malformed event is refused, and the error names what is wrong."""
    with pytest.raises(InvalidEventError) as error:
        event_from_wire(obj)
    assert field in str(error.value)


def test_LOG_5_header_round_trips_and_is_required() -> None:
    """LOG-5: the header line reads and writes back; anything else first is refused."""
    header = {
        "type": "session",
        "version": 0,
        "id": "s",
        "createdAt": 0,
        "cwd": "/w",
        "delegationDepth": 0,
    }
    assert header_to_wire(header_from_wire(header)) == header
    with pytest.raises(InvalidEventError, match="header"):
        header_from_wire({"type": "turn/start", "seq": 0})


def test_LOG_2_surface_metadata_only_on_surface_events() -> None:
    """LOG-2: surfaceOp on a non-surface event, or missing on a surface event, is refused."""
    with pytest.raises(InvalidEventError, match="surface"):
        event_from_wire(
            {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}, "surfaceOp": "append"}
        )
    user = {
        "type": "user/message",
        "seq": 0,
        "time": 0,
        "data": {"role": "user", "content": [], "source": {"kind": "user"}},
    }
    with pytest.raises(InvalidEventError, match="surfaceOp"):
        event_from_wire(user)


def test_LOG_2_sources_must_cite_earlier_events() -> None:
    """LOG-2: a source seq at or after the event is a violation, named with the seq it cites
    (a converter that dropped events and renumbered the rest cites by their old seqs)."""
    for cited, what in ((0, "itself"), (1, "a later event")):
        log = wire(DEMO.log)
        reply = next(obj for obj in log if obj["type"] == "assistant/message")
        seq = reply["seq"]
        assert isinstance(seq, int)
        reply["sourceEventSeqs"] = [seq + cited]
        found = check_facts(fact_from_wire(o) for o in log)
        assert [(v.rule_id, v.message) for v in found] == [
            (
                "LOG-2",
                f"sourceEventSeqs must cite earlier events: it cites seq {seq + cited}, {what}",
            )
        ]


def test_ORD_2_a_result_citing_no_earlier_event_is_blamed_on_its_citation_alone() -> None:
    """ORD-2: a result that cites itself or a later seq in place of its tool/call is ORD-2's,
    whose words name the seq to cite, not LOG-2's too (check and conform read it alike); one
    that cites its tool/call and itself keeps LOG-2."""
    for cited, words in ((0, "the result itself"), (1, "after the result")):
        log = wire(DEMO.log)
        result = next(obj for obj in log if obj["type"] == "tool/result")
        seq, call = result["seq"], result["sourceEventSeqs"]
        assert isinstance(seq, int)
        assert isinstance(call, list)
        result["sourceEventSeqs"] = [seq + cited]
        found = check_facts(fact_from_wire(o) for o in log)
        assert [v.rule_id for v in found] == ["ORD-2"], found
        assert found[0].message.endswith(f"which cites seq {seq + cited}, {words}")
        result["sourceEventSeqs"] = [*call, seq]
        found = check_facts(fact_from_wire(o) for o in log)
        assert [v.rule_id for v in found] == ["LOG-2"], found


def test_LOG_2_source_seqs_are_optional_and_the_rule_says_so() -> None:
    """LOG-2: a user/message without sourceEventSeqs keeps the rule (the model writes none: a
    prompt cites no event), an empty list breaks it; the rule's text says the member is optional
    (it read as if every surface event carried a non-empty list, and an implementer writing a
    user message from SPEC.md could not tell what it should cite)."""
    assert not [o for o in wire(DEMO.log) if o["type"] != "tool/result" and "sourceEventSeqs" in o]
    log = wire(DEMO.log)
    prompt = next(o for o in log if o["type"] == "user/message")
    assert check_facts(fact_from_wire(o) for o in log) == []
    prompt["sourceEventSeqs"] = []
    assert {v.rule_id for v in check_facts(fact_from_wire(o) for o in log)} == {"LOG-2"}
    assert "`sourceEventSeqs` (optional there" in spec_text("LOG-2")


def test_LOG_6_result_block_must_match_its_source() -> None:
    """LOG-6: a tool result whose block cites another call than its source is refused."""
    obj = next(o for o in wire(DEMO.log) if o["type"] == "tool/result")
    data = obj["data"]
    assert isinstance(data, dict)
    data["message"]["source"]["callId"] = "someone-else"
    with pytest.raises(InvalidEventError, match="LOG-6"):
        event_from_wire(obj)


def _replace(seq: int, start: int, end: int, kind: str = "user/message") -> dict[str, object]:
    if kind == "tool/result":
        return {
            "type": kind,
            "seq": seq,
            "time": 0,
            "surfaceOp": {"op": "replace", "start": start, "end": end},
            "sourceEventSeqs": [start],
            "data": {
                "turn": 1,
                "step": 1,
                "message": {
                    "role": "user",
                    "source": {"kind": "tool", "callId": "c1"},
                    "content": [{"type": "tool-result", "toolCallId": "c1", "content": []}],
                },
            },
        }
    return {
        "type": kind,
        "seq": seq,
        "time": 0,
        "sourceEventSeqs": [start],
        "surfaceOp": {"op": "replace", "start": start, "end": end},
        "data": {
            "role": "user",
            "content": [{"type": "text", "text": "summary"}],
            "source": {"kind": "plugin", "plugin": "compaction"},
        },
    }


def test_LOG_7_replace_swaps_current_nodes_for_one() -> None:
    """LOG-7: a valid replace shrinks history to the replacement; a stale one is reported."""
    base = wire(
        run(
            PLAIN,
            [
                SubmitUser("a"),
                ModelReplies((TextBlock("b"),)),
                SubmitUser("c"),
                ModelReplies((TextBlock("d"),)),
            ],
        ).log
    )
    surface = [int(str(o["seq"])) for o in base if "surfaceOp" in o]
    first, second, last = surface[0], surface[1], surface[-1]
    replaced = [*base, _replace(len(base), first, last)]
    events = [event_from_wire(o) for o in replaced]
    (summary,) = derive_messages(events)
    assert isinstance(summary, UserMessage)
    assert summary.content == (TextBlock("summary"),)
    assert check_facts(fact_from_wire(o) for o in replaced) == []
    stale = [*replaced, _replace(len(replaced), first, second)]
    rules = [v.rule_id for v in check_facts(fact_from_wire(o) for o in stale)]
    assert rules == ["LOG-7"]
    with pytest.raises(InvalidEventError, match="LOG-7"):
        derive_messages(event_from_wire(o) for o in stale)


def test_LOG_2_surface_events_are_one_set_and_the_words_name_each() -> None:
    """LOG-2: the prefix's literal set of surface events (kept for check's cheap start-up) is
    the wire layout's, derived from the event union, and the words refusing surface metadata
    elsewhere name each of them."""
    assert prefix_surface_types == layout_surface_types
    said = check_facts(
        fact_from_wire(o)
        for o in [
            {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
            {"type": "step/start", "seq": 1, "time": 0, "data": {"turn": 1, "step": 1}},
            {
                "type": "step/end",
                "seq": 2,
                "time": 0,
                "data": {"turn": 1, "step": 1},
                "surfaceOp": "append",
            },
        ]
    )
    (log2,) = [v.message for v in said if v.rule_id == "LOG-2"]
    assert all(kind in log2 for kind in layout_surface_types), log2


def test_LOG_7_a_result_replace_over_several_nodes_from_a_result_is_one_violation() -> None:
    """LOG-7: a tool/result replacement whose span starts at a result and covers more nodes
    (the result and the reply after it) crashed check with an internal error (exit 3): the kind
    of its first node, a result, was looked up among the surface codes results do not have."""
    program: list[Command] = [
        SubmitUser("a"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a"}'),)),
        ToolFinishes("c1", ToolSucceeded("A")),
        ModelReplies((TextBlock("b"),)),
    ]
    base = wire(run(PLAIN, program).log)
    result = next(int(str(o["seq"])) for o in base if o["type"] == "tool/result")
    last = [int(str(o["seq"])) for o in base if "surfaceOp" in o][-1]
    log = [*base, _replace(len(base), result, last, "tool/result")]
    # (Past the turn's end, the result is also TURN-3's: outside any turn.)
    found = check_facts(fact_from_wire(o) for o in log)
    assert [(v.rule_id, v.message) for v in found if v.rule_id == "LOG-7"] == [
        (
            "LOG-7",
            f"replace {result}..{last} shadows 2 nodes: a tool/result replacement must shadow "
            "exactly one tool/result, the result it prunes",
        )
    ]


def test_LOG_7_a_stale_replace_says_which_node_is_gone_and_what_took_it() -> None:
    """LOG-7: the violation says of each named node why it is not current: replaced (by which
    seq, also cited as a related event), never a message (a seq where a turn/start is), a
    replacement refused before, or named after the other. It said only "does not name current
    nodes", so a harness author could not tell a stale seq from a wrong one."""
    base = wire(run(PLAIN, [SubmitUser("a"), ModelReplies((TextBlock("b"),))]).log)
    surface = [int(str(o["seq"])) for o in base if "surfaceOp" in o]
    first, last = surface[0], surface[-1]
    turn_start = next(int(str(o["seq"])) for o in base if o["type"] == "turn/start")
    summary = len(base)

    def log7(*replaces: tuple[int, int]) -> list[tuple[str, tuple[int, ...]]]:
        log = [*base, _replace(summary, first, last)]
        for start, end in replaces:  # each cites seq 0, so that none is LOG-2 as well
            log.append({**_replace(len(log), start, end), "sourceEventSeqs": [0]})
        found = check_facts(fact_from_wire(o) for o in log)
        assert {v.rule_id for v in found} == {"LOG-7"}
        return [(v.message, v.related) for v in found]

    ((message, related),) = log7((first, summary))
    assert message.endswith(f"start {first} was replaced by seq {summary}")
    assert summary in related
    ((message, related),) = log7((first, last))
    assert message.endswith(f"start {first} and end {last} were replaced by seq {summary}")
    ((message, _),) = log7((turn_start, summary))
    assert f"start {turn_start} was never a message" in message
    refused = summary + 1
    (_, (message, _)) = log7((first, first), (refused, refused))
    assert f"start and end {refused} is a replacement that was refused" in message
    ((message, related),) = log7((summary + 5, summary))
    assert f"start {summary + 5} is no event before this one" in message
    # Only events the log holds before the replace are cited (it cited the seq named, which
    # no line holds), the replace itself aside.
    assert summary + 5 not in related
    assert summary in related
    # Two current nodes, named the wrong way round.
    log = [*base, _replace(summary, last, first)]
    (violation,) = check_facts(fact_from_wire(o) for o in log)
    assert violation.message.endswith(f"start {last} comes after end {first}")


def test_LOG_7_the_nodes_a_long_log_s_replacements_took_off_are_remembered_within_a_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LOG-7: the prefix remembers the latest nodes taken off the surface, not every one. It kept
    each replaced seq, so `check` on a log compacted again and again grew with the log's length
    (1.4M events of compacted turns: 61 MB, 17 MB before LOG-7 said why a node is gone). A stale
    replace still names what took a recent node; of one gone long ago it says it may have gone
    with an earlier replacement, not that it was never a message. The bound is made small here
    (the code reads it at each use), so the log that passes it stays short."""
    remembered = 8
    assert remembered < REMEMBERED_GONE
    monkeypatch.setattr("loopspec.model.prefix.REMEMBERED_GONE", remembered)
    monkeypatch.setattr("loopspec.model.invariants.REMEMBERED_GONE", remembered)
    base = wire(run(PLAIN, [SubmitUser("a"), ModelReplies((TextBlock("b"),))]).log)
    surface = [int(str(o["seq"])) for o in base if "surfaceOp" in o]
    log = [*base, _replace(len(base), surface[0], surface[-1])]
    for seq in range(len(log), len(log) + 3 * remembered):  # each summary replaces the last
        log.append(_replace(seq, seq - 1, seq - 1))
    monitor = LogMonitor()
    assert [v for o in log for v in monitor.feed(fact_from_wire(o))] == []
    assert len(monitor.prefix.gone) <= 2 * remembered

    summary = len(log) - 1

    def stale(start: int) -> str:
        """LOG-7's words on a replace of `start` through the current summary."""
        log.append(_replace(len(log), start, summary))
        (violation,) = monitor.feed(fact_from_wire(log[-1]))
        assert violation.rule_id == "LOG-7"
        return violation.message

    recent = summary - 1  # the summary before the current one
    assert stale(recent).endswith(f"start {recent} was replaced by seq {recent + 1}")
    forgotten = stale(surface[0])
    assert f"start {surface[0]} is no current node: it was never a message, or it went" in forgotten
    assert f"those of the last {remembered} nodes to go" in forgotten


def test_LOG_7_a_surface_packed_into_arrays_is_judged_as_one_in_lists(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LOG-7: the prefix keeps the surface in lists until it is `PACKED_SURFACE` nodes long,
    then in arrays; a replace across that point and a stale one past it are judged alike
    either way. The length is made small here (the code reads it at each use)."""
    packed_at = 16
    assert packed_at < PACKED_SURFACE
    monkeypatch.setattr("loopspec.model.prefix.PACKED_SURFACE", packed_at)
    turn: list[Command] = [SubmitUser("a"), ModelReplies((TextBlock("b"),))]
    base = wire(run(PLAIN, turn * (packed_at // 2 + 2)).log)
    surface = [int(str(o["seq"])) for o in base if "surfaceOp" in o]
    first, last = surface[packed_at - 3], surface[packed_at + 1]
    summary = len(base)
    log = [*base, _replace(summary, first, last)]
    log.append({**_replace(len(log), first, summary), "sourceEventSeqs": [0]})  # stale

    def judged() -> tuple[list[tuple[str, str, tuple[int, ...]]], list[int], str]:
        monitor = LogMonitor()
        found = [v for o in log for v in monitor.feed(fact_from_wire(o))]
        seqs = monitor.prefix.surface_seqs
        return [(v.rule_id, v.message, v.related) for v in found], list(seqs), type(seqs).__name__

    packed, surface_packed, kind = judged()
    assert kind == "array"
    assert surface_packed == [*surface[: packed_at - 3], summary, *surface[packed_at + 2 :]]
    assert [rule for rule, _, _ in packed] == ["LOG-7"]
    monkeypatch.setattr("loopspec.model.prefix.PACKED_SURFACE", len(surface) + 1)
    assert judged() == (packed, surface_packed, "list")


def test_LOG_7_result_replacement_shadows_exactly_one_result() -> None:
    """LOG-7: a tool/result replacement over a user message is reported."""
    base = wire(run(PLAIN, [SubmitUser("a"), ModelReplies((TextBlock("b"),))]).log)
    user_seq = next(o["seq"] for o in base if o["type"] == "user/message")
    assert isinstance(user_seq, int)
    # Reopen a turn so the replacement is enclosed.
    log = [*base, {"type": "turn/start", "seq": len(base), "time": 0, "data": {"turn": 2}}]
    log.append(_replace(len(log), user_seq, user_seq, kind="tool/result"))
    rules = [v.rule_id for v in check_facts(fact_from_wire(o) for o in log)]
    assert rules == ["LOG-7"]


def test_LOG_8_each_command_is_one_commit_and_a_crash_keeps_commits_whole() -> None:
    """LOG-8: commit boundaries follow commands; a crash loses nothing committed."""
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies(
            (
                ToolCallBlock("c1", "read", '{"file_path":"a"}'),
                ToolCallBlock("c2", "read", '{"file_path":"b"}'),
            )
        ),
        ToolFinishes("c2", ToolSucceeded("B")),
    ]
    state = run(PLAIN, program)
    assert state.commit_ends == (3, 6)  # c2's result waits for c1's (ORD-3): nothing new
    crashed = run(PLAIN, [*program, Crash(), Recover()])
    assert crashed.log[:6] == state.log
    assert crashed.commit_ends == (3, 6, len(crashed.log))
    assert clean(crashed.log) == []


def test_EXE_2_arguments_parse_the_same_everywhere() -> None:
    """EXE-2: empty means {}, invalid JSON stays the raw string, objects freeze."""
    assert parse_arguments("") == FrozenMap()
    assert parse_arguments("  ") == FrozenMap()
    assert parse_arguments("{not json") == "{not json"
    assert parse_arguments("NaN") == "NaN"
    assert parse_arguments('{"a":[1]}') == FrozenMap({"a": (1,)})


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        (
            "LOG-2",
            "step/end must not carry surface metadata: only a user/message, an assistant/message "
            "and a tool/result, which add to the history, carry surfaceOp and sourceEventSeqs; "
            "leave them out of this line",
        ),
        (
            "LOG-7",
            "replace 2..2 shadows the user/message at seq 2, no tool/result: a tool/result "
            "replacement must shadow exactly one tool/result, the result it prunes",
        ),
    ],
)
def test_LOG_2_LOG_7_the_words_name_what_the_line_holds_and_what_to_do(
    rule: str, said: str
) -> None:
    """LOG-2, LOG-7: 'step/end must not carry surface metadata' named neither the members
    meant nor which events carry them; 'a tool/result replacement must shadow exactly one
    tool/result' not what it shadowed (the user's message, in `spec LOG-7 --example`)."""
    name = example_file_name(rule)
    text = jsonl(example_header(rule), number(rule, edited_rows(rule)))
    (found,) = check_stream(name, io.BytesIO(text.encode())).violations
    assert (found.violation.rule_id, found.violation.message) == (rule, said)
