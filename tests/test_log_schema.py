"""The event schema `loopspec schema` prints and the wire decoder come from one layout
(`loopspec.model.log_layout`), and agree but where `log_schema`'s docstring says they differ.

A valid event line broken in one place (a value replaced, a member removed or added): the
schema accepts it only if the decoder reads it and writes it back unchanged (a member written
null that it reads as left out, left out; or refuses it for the one relation JSON Schema cannot
state), and the decoder reads what the schema rejects only at the places the schema is
deliberately stricter. Null is read one way by the decoder, check and conform: as left out
where the layout says so (`NULL_IS_ABSENT`), refused elsewhere.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from check_fixtures import FIXTURES
from json_breaks import DROP, Place, broken, places
from jsonschema import Draft202012Validator
from spec_helpers import run, wire
from test_wire_fuzz import SAMPLES as WIRE_FUZZ_SAMPLES

from loopspec.model.errors import InvalidEventError
from loopspec.model.events import (
    AssistantMessageRecorded,
    ToolResultRecorded,
    UserMessageRecorded,
)
from loopspec.model.log_layout import ENVELOPE_KEYS, EVENT_LAYOUTS, LogField, log_object
from loopspec.model.messages import (
    AssistantMessage,
    ToolResultBlock,
    ToolResultMessage,
    UserMessage,
)
from loopspec.model.wire import event_from_wire, event_to_wire
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.conformance import process_target
from loopspec.properties.conformance.driver_protocol import protocol_schema
from loopspec.properties.conformance.event_fields import normalized
from loopspec.properties.logcheck.checker import ErrorKind, FoundViolation, InputError, check_stream
from loopspec.properties.logcheck.synth import jsonl

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


_LAYOUTS = {layout.type: layout for layout in EVENT_LAYOUTS.values()}


def _undefined(line: dict[str, Any], place: Place) -> bool:
    """Whether `place`, in the envelope or the `data` object of `line`, is a member its type
    does not define (which the decoder keeps unread, and the schema refuses: LOG-4; a message,
    a user/message's data, stays open)."""
    layout = _LAYOUTS[line["type"]]
    if len(place) == 1:
        return place[0] not in ENVELOPE_KEYS
    in_data = place[:-1] == ("data",) and layout.data_field is None
    return in_data and place[-1] not in layout.data.known


def _where_the_schema_is_stricter(line: dict[str, Any], place: Place, how: object) -> bool:
    """The places `log_schema` lists where the schema rejects what the decoder reads."""
    key = place[-1]
    in_message = any(step in ("data", "message") for step in place[:-1])
    return (
        (how is not DROP and _undefined(line, place))  # a member its type does not define
        or (in_message and key in ("id", "role") and how is DROP)  # a message's id and role
        or (key == "isError" and how in (DROP, None))  # a tool-result block's isError
        or "source" in place  # a message's source: the shape of its kind
        or (key == "type" and len(place) > 1 and isinstance(place[-2], int))  # a block kind
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
        written = event_to_wire(event_from_wire(line))
        # A member written null that both read as left out is written back left out.
        assert written in (line, broken(line, place, DROP) if how is None else line), line
    elif decoded:
        assert _where_the_schema_is_stricter(line, place, how), f"only the schema refuses {line!r}"


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
    with pytest.raises(InvalidEventError):
        event_from_wire(changed)


def test_REC_1_the_schema_says_which_events_time_is_not_free() -> None:
    """REC-1: crash repair's closers carry the time of the last event before them, which
    conform's invariants judge on a target's log since cfbc58f; the published schema said every
    event's time is free, any clock."""
    schema = json.dumps(protocol_schema())
    assert "free: any clock" not in schema
    assert "crash repair's closers carry the time of the last event before them (REC-1)" in schema


# Each optional member of the layout, and where a line of the model's demo log holds it: null
# there is read one way by the decoder, by check and by conform's schema.
_DEMO = [
    json.loads(line)
    for line in (FIXTURES / "valid" / "model-demo.jsonl").read_text(encoding="utf-8").splitlines()
]
_OPTIONAL_PLACES: dict[tuple[type, str], tuple[str, Place]] = {
    (UserMessageRecorded, "sources"): ("user/message", ("sourceEventSeqs",)),
    (UserMessage, "id"): ("user/message", ("data", "id")),
    (AssistantMessageRecorded, "sources"): ("assistant/message", ("sourceEventSeqs",)),
    (AssistantMessage, "id"): ("assistant/message", ("data", "message", "id")),
    (ToolResultRecorded, "sources"): ("tool/result", ("sourceEventSeqs",)),
    (ToolResultMessage, "id"): ("tool/result", ("data", "message", "id")),
    (ToolResultBlock, "is_error"): ("tool/result", ("data", "message", "content", 0, "isError")),
    **{
        (layout.cls, field.name): (layout.type, ("data", field.wire))
        for layout in EVENT_LAYOUTS.values()
        for field in layout.data.fields
        if field.optional and layout.data_field is None
    },
}


def _optional_field(owner: type, name: str) -> LogField:
    return next(field for field in log_object(owner).fields if field.name == name)


def _conform_refuses(event: dict[str, Any]) -> bool:
    """Whether conform refuses a --cmd target's answer carrying `event` (PROTO-1)."""
    answer = {"type": "observed", "seq": 0, "accepted": True, "events": [event],
              "commits": [1], "executed": []}  # fmt: skip
    return process_target._most_specific_error(answer) is not None


def _check_report(rows: list[dict[str, Any]]) -> tuple[list[InputError], list[FoundViolation]]:
    report = check_stream("log", io.BytesIO(jsonl(rows[0], rows[1:]).encode()))
    return (report.errors, report.violations)


@pytest.mark.parametrize(
    ("owner", "name"),
    list(_OPTIONAL_PLACES),
    ids=[f"{o.__name__}-{n}" for o, n in _OPTIONAL_PLACES],
)
def test_LOG_2_LOG_4_PROTO_1_a_member_written_null_is_read_one_way_by_check_and_conform(
    owner: type, name: str
) -> None:
    """LOG-4, LOG-2, PROTO-1: an optional member written null is the member left out for the
    model's reader, for `check` and for conform's schema alike where the layout says null reads
    so (an open object, any JSON: dsh writes a tool's null presentation meta as "meta": null),
    and refused by all three elsewhere. check read "meta": null as no meta and conform refused
    it (PROTO-1, "leave the member out"), then, accepted, compared it with the model's result
    without meta (EXE-4); check read "sourceEventSeqs": null as none (ORD-2 for
    a tool result, nothing for a user message) where the model refuses it (LOG-2)."""
    field = _optional_field(owner, name)
    kind, place = _OPTIONAL_PLACES[(owner, name)]
    # The first event of its kind (check's full path reads it) and the last (its quick judges).
    ats = [i for i, row in enumerate(_DEMO) if row.get("type") == kind]
    for at in {ats[0], ats[-1]}:
        null = broken(_DEMO[at], place, None)
        nulled, dropped = (
            [*_DEMO[:at], line, *_DEMO[at + 1 :]] for line in (null, broken(null, place, DROP))
        )
        refused = [_conform_refuses(rows[at]) for rows in (nulled, dropped)]
        if field.null_is_absent:
            assert event_from_wire(nulled[at]) == event_from_wire(dropped[at])
            assert _check_report(nulled) == _check_report(dropped)
            assert refused[0] == refused[1]
            # Accepted, conform compares the two alike (EXE-4 saw "meta": null as a result's
            # own meta); a target must write isError whether or not null is none.
            assert refused[0] or normalized(null) == normalized(dropped[at])
            continue
        with pytest.raises(InvalidEventError):
            event_from_wire(nulled[at])
        errors, _ = _check_report(nulled)
        assert [(error.kind, error.line) for error in errors] == [(ErrorKind.BAD_EVENT, at + 1)]
        assert refused[0]


def test_LOG_4_every_optional_member_of_the_layout_is_read_one_way_with_null() -> None:
    """The table above holds every optional member of every event, message and block."""
    optional = {
        (cls, field.name)
        for cls in (
            *EVENT_LAYOUTS,
            UserMessage,
            AssistantMessage,
            ToolResultMessage,
            ToolResultBlock,
        )
        for field in log_object(cls).fields
        if field.optional
    }
    assert optional == set(_OPTIONAL_PLACES)
