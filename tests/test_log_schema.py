"""The event schema `loopspec schema` prints and the wire decoder come from one layout
(`loopspec.model.log_layout`), and agree but where `log_schema`'s docstring says they differ.

A valid event line broken in one place (a value replaced, a member removed or added): the
schema accepts it only if the decoder reads it and writes it back unchanged (or refuses it for
the one relation JSON Schema cannot state), and the decoder reads what the schema rejects only at
the places the schema is deliberately stricter.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from json_breaks import DROP, Place, broken, places
from jsonschema import Draft202012Validator
from spec_helpers import run, wire
from test_wire_fuzz import SAMPLES as WIRE_FUZZ_SAMPLES

from loopspec.model.errors import InvalidEventError
from loopspec.model.wire import event_from_wire, event_to_wire
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.conformance.driver_protocol import protocol_schema

VALIDATOR = Draft202012Validator({**protocol_schema(), "$ref": "#/$defs/event"})

# Lines of every core type, as the model writes them: the demo (hooks rewrite and ask, an
# approval), and the wire fuzz test's programs (reasoning, a hook asking, a result's meta).
SAMPLES: list[dict[str, Any]] = [
    json.loads(json.dumps(line))
    for line in wire(run(DEMO_CONFIG, DEMO_COMMANDS).log) + WIRE_FUZZ_SAMPLES
]

# Values of other types and at the edges of the bounds (no whole-number float: see log_schema).
_OTHER_VALUES: tuple[object, ...] = ("x", "", "tool/call", 7, 0, -1, 1.5, True, None, [], {"a": 1})
# Members a break may add to the envelope or to `data`, and the values they may get.
_ADDED_KEYS = ("surfaceOp", "sourceEventSeqs", "interrupted", "usage", "meta")
_ADDED_VALUES: tuple[object, ...] = ("append", [1], False, None, {})


def _decoded(line: dict[str, Any]) -> tuple[bool, InvalidEventError | None]:
    try:
        event_from_wire(line)
    except InvalidEventError as error:
        return False, error
    return True, None


def _where_the_schema_is_stricter(place: Place, how: object) -> bool:
    """The places `log_schema` lists where the schema rejects what the decoder reads."""
    key = place[-1]
    in_message = any(step in ("data", "message") for step in place[:-1])
    return (
        (in_message and key in ("id", "role") and how is DROP)  # a message's id and role
        or (key == "isError" and how in (DROP, None))  # a tool-result block's isError
        or "source" in place  # a message's source: the shape of its kind
        or (key == "type" and len(place) > 1 and isinstance(place[-2], int))  # a block kind
        or (key in ("usage", "error", "meta", "updatedInput") and how is None)  # null: left out
    )


def _agree(line: dict[str, Any], place: Place, how: object) -> None:
    valid = VALIDATOR.is_valid(line)
    decoded, error = _decoded(line)
    if valid and not decoded:
        assert error is not None
        # The one relation JSON Schema cannot state: a tool result's block cites its source.
        assert error.rule_id == "LOG-6", (line, error)
        assert "cites" in error.message, (line, error)
    elif valid:
        assert event_to_wire(event_from_wire(line)) == line, line
    elif decoded:
        assert _where_the_schema_is_stricter(place, how), f"only the schema refuses {line!r}"


def test_PROTO_1_every_sample_line_is_valid_and_read_back_unchanged() -> None:
    """PROTO-1: the model's lines of every core type validate and round-trip."""
    assert {line["type"] for line in SAMPLES} >= {
        "turn/start", "turn/end", "step/start", "step/end", "user/message",
        "assistant/message", "tool/call", "tool/result", "hook/invoked", "hook/result",
        "approval/asked", "approval/decided",
    }  # fmt: skip
    assert any("rewrite" in line["data"] for line in SAMPLES if line["type"] == "tool/call")
    for line in SAMPLES:
        assert list(VALIDATOR.iter_errors(line)) == [], line
        assert event_to_wire(event_from_wire(line)) == line


def _normal(place: Place) -> Place:
    """`place` with every index 0: the places of items of one array alike."""
    return tuple(0 if isinstance(step, int) else step for step in place)


def _shapes(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line of each shape (type and normalised places): the breaks of the others repeat
    theirs (validating is slow: jsonschema takes milliseconds a line)."""
    shapes: dict[object, dict[str, Any]] = {}
    for line in lines:
        shape = (line["type"], frozenset(map(_normal, places(line))))
        shapes.setdefault(shape, line)
    return list(shapes.values())


SHAPES = _shapes(SAMPLES)


@pytest.mark.parametrize(
    "line", SHAPES, ids=[f"{i}-{line['type']}" for i, line in enumerate(SHAPES)]
)
def test_PROTO_1_the_schema_accepts_a_broken_line_only_if_the_decoder_reads_it_back(
    line: dict[str, Any],
) -> None:
    """PROTO-1, LOG-4: a valid line broken in one place (a value of another type or at a
    bound, a member removed or added) that the schema accepts is read and written back
    unchanged by the decoder, but for a tool result citing another call than its source
    (LOG-6, which JSON Schema cannot state); one the decoder reads and the schema rejects is
    broken where the schema is deliberately stricter (a target's message ids, roles, sources,
    blocks, nulls). Every place of every shape, every break: no sample can miss one."""
    seen: set[Place] = set()
    for place in places(line):
        if _normal(place) not in seen:
            seen.add(_normal(place))
            for how in (DROP, *_OTHER_VALUES):
                _agree(broken(line, place, how), place, how)
    if line is next(other for other in SHAPES if other["type"] == line["type"]):
        for owner in ((), ("data",)):
            for key in _ADDED_KEYS:
                for value in _ADDED_VALUES:
                    _agree(broken(line, (*owner, key), value), (*owner, key), value)


@pytest.mark.parametrize(
    ("kind", "place", "value"),
    [
        ("assistant/message", ("data", "interrupted"), False),  # only ever written true
        ("hook/invoked", ("data", "dialect"), "bash"),  # a closed set
        ("hook/result", ("data", "durationMs"), -1),  # a bound
        ("tool/call", ("data", "callId"), ""),  # never empty
        ("step/start", ("surfaceOp",), "append"),  # surface metadata on a surface event only
        ("tool/result", ("data", "meta"), None),  # left out, never null
    ],
)
def test_PROTO_1_the_schema_states_what_the_old_hand_written_one_missed(
    kind: str, place: Place, value: object
) -> None:
    """PROTO-1: bounds, closed sets and the surface rule the decoder enforces are in the
    schema too (the hand-written event schema accepted each of these)."""
    line = next(line for line in SAMPLES if line["type"] == kind)
    changed = broken(line, place, value)
    assert not VALIDATOR.is_valid(changed)
    if value is not None:
        with pytest.raises(InvalidEventError):
            event_from_wire(changed)


def test_REC_1_the_schema_says_which_events_time_is_not_free() -> None:
    """REC-1: crash repair's closers carry the time of the last event before them, which
    conform's invariants judge on a target's log since cfbc58f; the published schema said every
    event's time is free, any clock."""
    schema = json.dumps(protocol_schema())
    assert "free: any clock" not in schema
    assert "crash repair's closers carry the time of the last event before them (REC-1)" in schema
