"""`impl`'s fast write path gives exactly what the reference path gives (LOG-3, LOG-4).

The writer encodes with a C encoder built once instead of `json.dumps`, and stores an event the
caller built as it is when a per-class walk finds it deeply frozen. Both are shortcuts: these
tests hold them to the slow spelling on generated values.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopspec.impl.framing import encode_event
from loopspec.impl.session_log import SessionLog
from loopspec.model.events import Event, OpaqueEvent, ToolCallRecorded, UserMessageRecorded
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import TextBlock, UserMessage
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
    """Keeps each unit's encoded events."""

    def __init__(self) -> None:
        self.units: list[list[bytes]] = []

    def write_unit(self, encoded: Sequence[bytes]) -> None:
        self.units.append(list(encoded))


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
