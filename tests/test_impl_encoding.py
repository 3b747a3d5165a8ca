"""`impl`'s fast write path gives exactly what the reference path gives (LOG-3, LOG-4).

The writer encodes with a C encoder built once instead of `json.dumps`, stores an event the
caller built as it is when a per-class walk finds it deeply frozen, and writes an event of exact
frozen JSON types straight from its fields. All are shortcuts: these tests hold them to the
slow spelling on generated values, and check that each way of not being plain is caught.
"""

from __future__ import annotations

import json
import math
import typing
from collections.abc import Mapping
from typing import Any

import attrs
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from loopspec.impl.errors import NotJsonData
from loopspec.impl.event_lines import plain_event_line, plain_json_text, unchecked_line_writers
from loopspec.impl.framing import compact_json, encode_event
from loopspec.impl.session_log import SessionLog, _deeply_frozen, _reference_line
from loopspec.impl.snapshot import plain, snapshot
from loopspec.model.errors import InvalidEventError
from loopspec.model.events import (
    APPEND,
    HOOK_DIALECTS,
    ApprovalAsked,
    ApprovalDecided,
    AssistantMessageRecorded,
    Event,
    HookInvoked,
    HookResulted,
    OpaqueEvent,
    RewriteSidecar,
    StepEnded,
    StepStarted,
    SurfaceAppend,
    SurfaceReplace,
    ToolCallRecorded,
    ToolResultRecorded,
    TurnEnded,
    TurnStarted,
    UserMessageRecorded,
)
from loopspec.model.jsonvalue import EMPTY, FrozenMap
from loopspec.model.messages import (
    AssistantMessage,
    OpaqueBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultMessage,
    UserMessage,
)
from loopspec.model.state import LoopState
from loopspec.model.transitions import step
from loopspec.model.wire import event_from_wire, event_to_wire
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG


def reference_encoding(wire: Mapping[str, object]) -> bytes:
    """The spelling the fast encoder replaces."""
    try:
        text = json.dumps(wire, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(wire, separators=(",", ":"), allow_nan=False).encode("ascii")


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities included: both spellings must refuse them alike
    | st.text()  # lone surrogates included: both fall back to escaped ASCII
)
keys = st.text(max_size=4) | st.integers(-3, 3) | st.booleans() | st.floats(0, 2)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(keys, inner, max_size=3)
    ),
    max_leaves=12,
)


class NotJson:
    """A value of no JSON type."""


def _outcome(encode: Any, wire: Mapping[str, object]) -> bytes | type[BaseException]:
    try:
        return encode(wire)  # type: ignore[no-any-return]
    except (ValueError, TypeError) as error:
        return type(error)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(max_examples=150)
@given(st.dictionaries(keys, values, max_size=5), st.booleans())
def test_LOG_3_fast_encoder_writes_the_reference_bytes(
    wire: dict[Any, object], foreign: bool
) -> None:
    """LOG-3: same bytes as `json.dumps` for every value, same refusal (ValueError, TypeError)
    for NaN, infinities, foreign objects."""
    if foreign:
        wire = {**wire, "x": [NotJson()]}
    assert _outcome(encode_event, wire) == _outcome(reference_encoding, wire)


def test_LOG_3_fast_encoder_refuses_cycles() -> None:
    """LOG-3: a cycle is refused (by the recursion limit, as the writer expects)."""
    cyclic: list[object] = []
    cyclic.append(cyclic)
    with pytest.raises(RecursionError):
        encode_event({"data": cyclic})
    assert encode_event({"a": math.pi}) == reference_encoding({"a": math.pi})


class Sink:
    """Keeps each unit's encoded events, each line's unit marker checked and taken off."""

    def __init__(self) -> None:
        self.units: list[list[bytes]] = []

    def write_unit(self, unit: bytes) -> None:
        lines = unit.splitlines()
        if len(lines) > 1:
            markers = [b',"unit":[%d,%d]}' % (k, len(lines)) for k in range(1, len(lines) + 1)]
            assert all(map(bytes.endswith, lines, markers)), unit
            lines = [line.removesuffix(m) + b"}" for line, m in zip(lines, markers, strict=True)]
        self.units.append(lines)


def demo_events() -> tuple[Event, ...]:
    state = LoopState(DEMO_CONFIG)
    for command in DEMO_COMMANDS:
        state = step(state, command)
    return state.log


def test_LOG_3_frozen_events_are_stored_as_given_and_written_as_the_reference() -> None:
    """LOG-3: a deeply frozen event (built by the model, or read back) is kept as it is, and
    its line is the reference encoding of its wire form."""
    for events in (demo_events(), [event_from_wire(event_to_wire(e)) for e in demo_events()]):
        sink = Sink()
        log = SessionLog(sink)
        for event in events:
            assert log.add(event) is event
        log.commit()
        assert sink.units[0] == [reference_encoding(event_to_wire(e)) for e in events]


def test_LOG_3_any_mutable_part_makes_a_frozen_copy() -> None:
    """LOG-3: a list, a dict, a tuple holding one, a FrozenMap holding one, at the top of the
    data or deep in a message's block: the stored event is a rebuilt, equal copy."""
    mutable_data: list[object] = [
        [1],
        {"k": 1},
        (1, [2]),
        FrozenMap({"k": [1]}),  # type: ignore[dict-item]
        FrozenMap({"k": (1, {"n": 2})}),  # type: ignore[dict-item]
    ]
    for data in mutable_data:
        note = OpaqueEvent("plugin/note", 0, 1, data)  # type: ignore[arg-type]
        stored = SessionLog(Sink()).add(note)
        assert stored is not note
        assert isinstance(stored, OpaqueEvent)
        assert not _holds_mutable(stored.data)
        assert stored == event_from_wire(event_to_wire(note))
    hint = FrozenMap({"hint": [1]})  # type: ignore[dict-item]
    call = ToolCallRecorded(0, 1, 1, 1, "c", "bash", "{}", None, hint)
    block = TextBlock("x", FrozenMap({"why": {"a": 1}}))  # type: ignore[dict-item]
    said = UserMessageRecorded(0, 1, UserMessage("m0", (block,), FrozenMap({"kind": "user"})))
    events: list[Event] = [call, said]
    for event in events:
        stored = SessionLog(Sink()).add(event)
        assert stored is not event
        assert stored == event_from_wire(event_to_wire(event))
    assert isinstance(stored, UserMessageRecorded)
    stored_block = stored.message.content[0]
    assert isinstance(stored_block, TextBlock)
    assert not _holds_mutable(stored_block.extra)


def _holds_mutable(value: object) -> bool:
    if isinstance(value, list | dict):
        return True
    if isinstance(value, FrozenMap):
        return any(_holds_mutable(item) for item in value.values())
    return isinstance(value, tuple) and any(_holds_mutable(item) for item in value)


# --- events written straight from their fields ---------------------------------------------

texts = st.text(max_size=6)


class Text(str):
    """A string subclass: it may carry state, so it is not plain."""


class TextStub(TextBlock):
    """A block subclass: not plain either."""


class MessageStub(UserMessage):
    """A message subclass, held by a field typed as the exact class."""


class ResultStub(ToolResultBlock):
    """A result block subclass, held by a field typed as the exact class."""


class SidecarStub(RewriteSidecar):
    """A rewrite sidecar subclass."""


def event_strategy(odd: bool) -> st.SearchStrategy[object]:
    """Events of every class. With `odd`, any field may now and then hold what is not plain:
    a mutable container, a subclass, a foreign object, a float JSON cannot carry (or carries
    without its sign), an integer too long to print, text with a lone surrogate, a bool where a
    number goes, an extra field that collides with a known one (the reference overwrites it in
    place), or the reserved `unit` envelope field."""

    def maybe(plain: st.SearchStrategy[Any], *others: object) -> st.SearchStrategy[Any]:
        if not odd:
            return plain
        drawn = [other for other in others if isinstance(other, st.SearchStrategy)]
        given = [other for other in others if not isinstance(other, st.SearchStrategy)]
        return st.one_of(plain, plain, plain, st.sampled_from(given), *drawn)

    huge = st.builds(pow, st.just(10), st.just(5000))  # too long to print (not in a repr)

    text = maybe(texts, Text("x"), "lone \ud800", 7, None)
    name = texts.filter(bool)
    optional = st.none() | text
    number = maybe(
        st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False),
        float("nan"),
        float("inf"),
        -0.0,
        huge,
    )
    scalar = st.none() | st.booleans() | number | text
    payload = st.recursive(
        scalar,
        lambda inner: (
            maybe(st.lists(inner, max_size=3).map(tuple), [1], (1, [2]))
            | maybe(st.dictionaries(texts, inner, max_size=3).map(FrozenMap), {"k": 1})
        ),
        max_leaves=8,
    )
    keys = maybe(texts, "type", "turn", "id", "text", "unit", "seq", "role", "callId")
    extra = st.one_of(
        st.just(EMPTY),
        st.just(FrozenMap()),
        st.dictionaries(keys, payload, max_size=2).map(FrozenMap),
    )
    a_map = maybe(st.dictionaries(texts, payload, max_size=3).map(FrozenMap), [1], NotJson())
    counter = maybe(st.integers(1, 10**6), True, huge)
    seq = st.integers(0, 10**6)
    time = maybe(st.integers(0, 2**45), True, 1.5, Text("1"))
    flag = maybe(st.booleans(), 0, 1)
    simple_blocks = (
        st.builds(TextBlock, text, extra)
        | st.builds(ReasoningBlock, text, extra)
        | st.builds(OpaqueBlock, text, extra)
        | st.builds(ToolCallBlock, name, name, text, extra)
    )
    result_blocks = st.builds(
        ToolResultBlock,
        name,
        maybe(st.lists(simple_blocks, max_size=2).map(tuple), [TextBlock("x")]),
        st.none() | flag,
        extra,
    )
    block = maybe(simple_blocks | result_blocks, TextStub("x"))
    block_tuple = maybe(st.lists(block, max_size=3).map(tuple), [TextBlock("x")])
    surface = maybe(
        st.sampled_from([APPEND, SurfaceAppend()]) | st.builds(SurfaceReplace, seq, seq),
        NotJson(),
    )
    sources = st.none() | maybe(st.lists(seq, max_size=3).map(tuple), [1], (True,))
    result_message = st.builds(
        lambda call_id, content, is_error, extra, message_id: ToolResultMessage(
            message_id, ToolResultBlock(call_id, content, is_error), FrozenMap({"callId": call_id})
        ),
        name,
        st.lists(simple_blocks, max_size=2).map(tuple),
        st.none() | st.booleans(),
        extra,
        optional,
    )
    return st.one_of(
        _built(TurnStarted, seq, time, counter, extra, extra),
        _built(TurnEnded, seq, time, counter, a_map, extra),
        _built(StepStarted, seq, time, counter, counter, extra, extra),
        _built(StepEnded, seq, time, counter, counter, extra, extra),
        _built(
            UserMessageRecorded,
            seq,
            time,
            st.builds(UserMessage, optional, block_tuple, a_map, extra),
            surface,
            sources,
            extra,
        ),
        _built(
            AssistantMessageRecorded,
            seq,
            time,
            counter,
            counter,
            st.builds(AssistantMessage, optional, block_tuple, a_map, extra),
            st.none() | a_map,
            flag,
            surface,
            sources,
            extra,
            extra,
        ),
        _built(
            ToolCallRecorded,
            seq,
            time,
            counter,
            counter,
            name,
            name,
            text,
            st.none() | st.builds(RewriteSidecar, text, maybe(st.just(("h",)), ["h"], ("h", 1))),
            extra,
            extra,
        ),
        _built(
            ToolResultRecorded,
            seq,
            time,
            counter,
            counter,
            result_message,
            st.none() | a_map,
            payload,
            surface,
            sources,
            extra,
            extra,
        ),
        _built(
            HookInvoked,
            seq,
            time,
            counter,
            name,
            st.sampled_from(sorted(HOOK_DIALECTS)),
            name,
            optional,
            optional,
            extra,
            extra,
        ),
        _built(
            HookResulted,
            seq,
            time,
            counter,
            name,
            name,
            text,
            maybe(st.floats(0, 1e6) | st.integers(0, 10**6), -0.0, True),
            st.none() | maybe(st.integers(-3, 300), True),
            optional,
            optional,
            payload,
            extra,
            extra,
        ),
        _built(ApprovalAsked, seq, time, name, text, optional, optional, optional, extra, extra),
        _built(ApprovalDecided, seq, time, name, name, extra, extra),
        _built(OpaqueEvent, name, seq, time, payload, extra),
    )


def _built(kind: type, *fields: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    """An instance of `kind`, or None where its own validation refuses the drawn fields."""

    def build(*values: object) -> object:
        try:
            return kind(*values)
        except (InvalidEventError, TypeError, AttributeError):
            return None

    return st.builds(build, *fields)


any_events = st.one_of(event_strategy(odd=False), event_strategy(odd=True))


def _reference_outcome(event: Event) -> tuple[bytes, Event] | type[BaseException]:
    try:
        return _reference_line(event)
    except Exception as error:  # whatever the reference path does, the log must do alike
        return type(error)


@settings(max_examples=300)
@given(any_events)
def test_LOG_3_events_written_from_their_fields_are_the_reference_bytes(event: object) -> None:
    """LOG-3: an event written straight from its fields gets exactly the reference line, and
    only an event the reference walk finds deeply frozen is written that way; every other event
    (and so every refusal) goes the reference way."""
    assume(event is not None)
    assert isinstance(event, Event)
    line = plain_event_line(event)
    if line is not None:
        assert line == encode_event(event_to_wire(event))
        assert _deeply_frozen(event)
        assert b"-0.0" not in line or not _negative_zero_in(event_to_wire(event))
    logged = attrs.evolve(event, seq=0)  # the first event of a new log
    _assert_logged_as_the_reference(logged)


def _log_outcome(event: Event) -> tuple[bytes, Event] | type[BaseException]:
    sink = Sink()
    log = SessionLog(sink)
    try:
        stored = log.add(event)
    except Exception as error:  # compared with the reference path's refusal
        return type(error)
    log.commit()
    return sink.units[0][0], stored


def _assert_logged_as_the_reference(event: Event) -> None:
    """The log writes, stores (itself or a copy) or refuses `event` as the reference path."""
    logged, reference = _log_outcome(event), _reference_outcome(event)
    if isinstance(logged, type) or isinstance(reference, type):
        assert logged is reference, event
        return
    assert logged[0] == reference[0], event
    assert logged[1] == reference[1], event
    assert (logged[1] is event) == (reference[1] is event), event


def _negative_zero_in(value: object) -> bool:
    if isinstance(value, float):
        return value == 0.0 and math.copysign(1.0, value) < 0
    if isinstance(value, dict):
        return any(_negative_zero_in(item) for item in value.values())
    if isinstance(value, list):
        return any(_negative_zero_in(item) for item in value)
    return False


def test_LOG_3_every_event_the_loop_builds_is_written_from_its_fields() -> None:
    """LOG-3: the shortcut is not a dead branch: every event of a loop run (and the same
    events read back) is written from its fields, as the reference bytes."""
    loop_events = demo_events()
    read_back = [event_from_wire(event_to_wire(e)) for e in loop_events]
    kinds = set()
    for event in (*loop_events, *read_back):
        assert plain_event_line(event) == encode_event(event_to_wire(event))
        kinds.add(type(event))
    assert len(kinds) >= 8


def _every_member_written() -> list[Event]:
    """One event of each class with every optional member present, extra fields at every level,
    blocks of each class, and a replacing surface with its sources."""
    extra, envelope = FrozenMap({"hint": "h"}), FrozenMap({"trace": 7})
    image = OpaqueBlock("image", FrozenMap({"url": "u"}))
    blocks = (
        TextBlock("t", extra),
        ReasoningBlock("r", extra),
        ToolCallBlock("c1", "bash", "{}", extra),
        ToolResultBlock("c1", (TextBlock("o", extra), image), True, extra),
        image,
    )
    user = FrozenMap({"kind": "user"})
    result = ToolResultBlock("c1", (TextBlock("ok"),), False, extra)
    tool = FrozenMap({"kind": "tool", "callId": "c1"})
    replace = SurfaceReplace(1, 2)
    return [
        TurnStarted(3, 4, 1, extra, envelope),
        TurnEnded(3, 4, 1, FrozenMap({"kind": "completed"}), extra, envelope),
        StepStarted(3, 4, 1, 2, extra, envelope),
        StepEnded(3, 4, 1, 2, extra, envelope),
        UserMessageRecorded(
            3, 4, UserMessage("m1", blocks, user, extra), replace, (1, 2), envelope
        ),
        AssistantMessageRecorded(
            3,
            4,
            1,
            2,
            AssistantMessage("m2", blocks, user, extra),
            FrozenMap({"input": 5}),
            True,
            replace,
            (1,),
            extra,
            envelope,
        ),
        ToolCallRecorded(
            3, 4, 1, 2, "c1", "bash", "{}", RewriteSidecar("{}", ("h",)), extra, envelope
        ),
        ToolResultRecorded(
            3,
            4,
            1,
            2,
            ToolResultMessage("m3", result, tool, extra),
            FrozenMap({"code": "E"}),
            (1, "two", 3.5, None, FrozenMap({"k": False})),
            replace,
            (2,),
            extra,
            envelope,
        ),
        HookInvoked(3, 4, 1, "PreToolUse", "codex", "h", "bash", "c1", extra, envelope),
        HookResulted(
            3,
            4,
            1,
            "PreToolUse",
            "h",
            "allow",
            1.5,
            2,
            "oops",
            "c1",
            FrozenMap({"a": 1}),
            extra,
            envelope,
        ),
        ApprovalAsked(3, 4, "a1", "bash", "c1", "why", "{}", extra, envelope),
        ApprovalDecided(3, 4, "a1", "approved", extra, envelope),
        OpaqueEvent("plugin/note", 3, 4, FrozenMap({"k": (1, "x")}), envelope),
    ]


def _every_optional_member_left_out() -> list[Event]:
    """One event of each class with every member that may be left out at its leaving-out
    value (None, or False for a flag), no extra fields, and a null opaque payload."""
    user = FrozenMap({"kind": "user"})
    result = ToolResultBlock("c1", (), None)
    return [
        TurnStarted(3, 4, 1),
        TurnEnded(3, 4, 1, FrozenMap({"kind": "aborted"})),
        StepStarted(3, 4, 1, 2),
        StepEnded(3, 4, 1, 2),
        UserMessageRecorded(3, 4, UserMessage(None, (), user)),
        AssistantMessageRecorded(3, 4, 1, 2, AssistantMessage(None, (result,), user)),
        ToolCallRecorded(3, 4, 1, 2, "c1", "bash", ""),
        ToolResultRecorded(
            3, 4, 1, 2, ToolResultMessage(None, result, FrozenMap({"callId": "c1"}))
        ),
        HookInvoked(3, 4, 1, "Stop", "claude-code", "h"),
        HookResulted(3, 4, 1, "Stop", "h", "pass", 3),
        ApprovalAsked(3, 4, "a1", "bash"),
        ApprovalDecided(3, 4, "a1", "denied"),
        OpaqueEvent("plugin/note", 3, 4, None),
    ]


def test_LOG_3_each_class_writer_spells_every_member_as_the_reference() -> None:
    """LOG-3: the writers generated from the classes follow model/wire.py for every event class,
    with each optional member written and with each left out: the same keys, in the same
    order, each value spelled alike (so a rename, reordering or omission rule of the reference
    that the generator does not follow fails here, whatever Hypothesis happens to draw)."""
    every_class = set(typing.get_args(Event))
    for events in (_every_member_written(), _every_optional_member_left_out()):
        assert {type(event) for event in events} == every_class
        for event in events:
            line = plain_event_line(event)
            assert line == encode_event(event_to_wire(event)), event
            assert json.loads(line) == event_to_wire(event)


_UNCHECKED = unchecked_line_writers()


def _assert_unchecked_writes_alike(event: Event) -> None:
    line = plain_event_line(event)
    if line is not None:
        assert (_UNCHECKED[type(event)](event) + "}").encode() == line, event


def test_LOG_3_the_unchecked_floor_writes_what_the_checked_writers_write() -> None:
    """The writers bench_impl measures as the floor (generated without exact-type checks)
    spell every member of every class exactly as the log's writers do, so the floor times the
    same bytes."""
    for events in (_every_member_written(), _every_optional_member_left_out(), demo_events()):
        for event in events:
            assert plain_event_line(event) is not None
            _assert_unchecked_writes_alike(event)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(max_examples=60)
@given(any_events)
def test_LOG_3_the_unchecked_floor_writes_generated_plain_events_alike(event: object) -> None:
    """The same on generated events of every class (those the checked writers write)."""
    assume(isinstance(event, Event))
    assert isinstance(event, Event)
    _assert_unchecked_writes_alike(event)


def _not_plain_events() -> list[Event]:
    """One event per way of not being plain (each would be written wrongly, or kept though
    not frozen, if taken for plain)."""
    minus_zero, huge = -0.0, 10**5000
    call = ToolCallBlock("c1", "bash", "{}")
    text = TextBlock("hi")
    user = FrozenMap({"kind": "user"})
    odd_payloads: list[object] = [
        minus_zero,
        float("nan"),
        float("inf"),
        huge,
        [1],
        {"k": 1},
        (1, [2]),
        Text("x"),
        NotJson(),
        FrozenMap({1: "x"}),  # type: ignore[dict-item]
        FrozenMap({Text("k"): "x"}),
        "lone \ud800",
    ]
    events: list[Event] = [
        OpaqueEvent("plugin/note", 0, 1, payload)  # type: ignore[arg-type]
        for payload in odd_payloads
    ]
    events += [
        OpaqueEvent("plugin/note", 0, 1, FrozenMap({"x": payload}))  # type: ignore[dict-item]
        for payload in odd_payloads
    ]
    events += [
        TurnStarted(0, True, 1),
        TurnStarted(0, 1.5, 1),  # type: ignore[arg-type]
        TurnStarted(0, 1, 1, FrozenMap({"turn": 2})),
        TurnStarted(0, 1, 1, envelope_extra=FrozenMap({"unit": [1, 2]})),  # type: ignore[dict-item]
        TurnStarted(0, 1, 1, envelope_extra=FrozenMap({"unit": 1})),
        UserMessageRecorded(0, 1, MessageStub(None, (text,), user)),
        ToolCallRecorded(0, 1, 1, 1, "c1", "bash", "{}", SidecarStub("{}", ("h",))),
        ToolResultRecorded(
            0, 1, 1, 1, ToolResultMessage(None, ResultStub("c1", ()), FrozenMap({"callId": "c1"}))
        ),
        TurnStarted(0, 1, 1, envelope_extra=FrozenMap({"type": "x"})),
        StepStarted(0, 1, 1, 1, FrozenMap({"step": 2})),
        HookResulted(0, 1, 1, "PreToolUse", "h", "allow", minus_zero),
        HookResulted(0, 1, 1, "PreToolUse", "h", "allow", True),
        HookResulted(0, 1, 1, "PreToolUse", "h", "allow", 1.0, exit_code=True),
        HookResulted(0, 1, 1, "PreToolUse", "h", Text("allow"), 1.0),
        HookInvoked(0, 1, 1, "PreToolUse", "codex", "h", matcher=7),  # type: ignore[arg-type]
        HookInvoked(0, 1, 1, "PreToolUse", "codex", Text("h")),
        ToolCallRecorded(0, 1, 1, 1, "c1", "bash", 7),  # type: ignore[arg-type]
        ToolCallRecorded(0, 1, 1, 1, "c1", "bash", "{}", RewriteSidecar("{}", ["h"])),  # type: ignore[arg-type]
        AssistantMessageRecorded(0, 1, 1, 1, AssistantMessage(None, (call,), user), interrupted=1),  # type: ignore[arg-type]
        AssistantMessageRecorded(0, 1, 1, 1, AssistantMessage(None, [call], user)),  # type: ignore[arg-type]
        AssistantMessageRecorded(0, 1, 1, 1, AssistantMessage(None, (TextStub("x"),), user)),
        AssistantMessageRecorded(0, 1, 1, 1, AssistantMessage(7, (call,), user)),  # type: ignore[arg-type]
        AssistantMessageRecorded(
            0, 1, 1, 1, AssistantMessage(None, (text,), user, FrozenMap({"role": "x"}))
        ),
        UserMessageRecorded(0, 1, UserMessage(None, (text,), user), sources=[1]),  # type: ignore[arg-type]
        UserMessageRecorded(0, 1, UserMessage(None, (text,), [1])),  # type: ignore[arg-type]
        UserMessageRecorded(
            0, 1, UserMessage(None, (TextBlock("x", FrozenMap({"text": "y"})),), user)
        ),
        UserMessageRecorded(0, 1, UserMessage(None, (ToolResultBlock("c1", (text,), 0),), user)),  # type: ignore[arg-type]
        UserMessageRecorded(0, 1, UserMessage(None, (ToolResultBlock("c1", [text]),), user)),  # type: ignore[arg-type]
        UserMessageRecorded(
            0, 1, UserMessage(None, (OpaqueBlock("image", FrozenMap({"type": "x"})),), user)
        ),
    ]
    return events


def test_LOG_3_what_is_not_plain_takes_the_reference_path() -> None:
    """LOG-3: each way an event can fail to be plain sends it the reference way, whose line,
    stored copy or refusal the log then gives."""
    for event in _not_plain_events():
        assert plain_event_line(event) is None, event
        _assert_logged_as_the_reference(event)


def _frozen_shape(value: object) -> object:
    """`value` with dicts as `FrozenMap`s and lists as tuples, nothing checked or dropped."""
    if isinstance(value, dict):
        return FrozenMap({key: _frozen_shape(item) for key, item in value.items()})  # type: ignore[misc]
    if isinstance(value, list | tuple):
        return tuple(_frozen_shape(item) for item in value)
    return value


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(max_examples=150)
@given(values, st.booleans())
def test_RW_1_a_plain_rewrite_input_is_written_as_its_snapshot_would_be(
    value: object, foreign: bool
) -> None:
    """RW-1: a hook's input of exact frozen JSON types is written without a snapshot, as the
    snapshot's compact text; anything else (a foreign object, NaN, -0.0, a non-string key) is
    left to the snapshot, which refuses it."""
    frozen = _frozen_shape([value, NotJson()] if foreign else value)
    text = plain_json_text(frozen)
    try:
        reference: str | type[BaseException] = compact_json(plain(snapshot(frozen)))
    except NotJsonData as error:
        reference = type(error)
    if text is not None:
        assert text == reference
    else:
        assert reference is NotJsonData or _has_non_plain_part(frozen)


def _has_non_plain_part(value: object) -> bool:
    if isinstance(value, FrozenMap):
        return any(type(key) is not str or _has_non_plain_part(item) for key, item in value.items())
    if isinstance(value, tuple):
        return any(_has_non_plain_part(item) for item in value)
    return type(value) not in (str, int, float, bool, type(None))
