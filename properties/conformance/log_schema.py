"""The JSON Schema of a session-log event, generated from the layout the codec is generated from
(`loopspec.model.log_layout`), for `loopspec schema` (`driver_protocol`'s `$defs/event` and
`$defs/messages`).

Every member's schema comes from its layout field: its shape (integer, string, object, blocks,
message, ...), whether the wire may leave it out, whether null reads as left out (an optional
object or payload: `usage`, `error`, `meta`, `updatedInput`; the decoder writes it back left out),
the bounds the classes' validators enforce (`MINIMUM`, `NON_EMPTY`, `ENUMS`), the words the
loop writes where any is read (`WRITTEN_WORDS`, a description), and each event's
envelope (surface metadata only on the three surface types). Only descriptions are prose here.

The schema describes what a conformance target must report; the decoder (`loopspec.model.wire`)
reads real dsh logs too. They agree on every event but where they differ on purpose:

Stricter than the decoder (the schema rejects, the decoder reads):
- a member its type does not define in a core event's envelope, its `data` object or an object
  nested there (a tool/call's `rewrite`), `additionalProperties: false`: a reader keeps one
  unread (a loop's own trace id, a key misspelt beside the right one), but the model writes
  none, so a target's report holding one differs from the model's by it (LOG-4, which conform
  names with the member). An opaque event, a member holding any JSON (`meta`, `updatedInput`)
  or an open object (`usage`, `error`, a turn/end `reason`), and a message (a user/message's
  `data` too), its source and blocks stay open: the history a target reports (HIST-1) holds
  messages of these shapes, and a real loop's carry members of its own there (dsh's history
  holds a source with `form` and `sections`); conform names LOG-4 for such a member in an
  event's message where it alone makes the event differ;
- a message's `id` and `role` are required (a real log may leave either out; the decoder gives
  the message its role) and so is a tool-result block's `isError` (null, which the decoder
  reads as left out, too);
- a message's `source` has the shape its kind says (user, plugin, model, tool), and a message
  holds only the blocks a loop writes: text in a user message and a tool result, text,
  reasoning and tool calls in an assistant message (the decoder keeps any block as opaque).

Looser than the decoder (the schema cannot say it; the decoder refuses):
- a tool result message's `source.callId` must be its block's `toolCallId` (LOG-6): JSON Schema
  cannot compare two members;
- an integer written with a zero fraction (`3.0`) is an integer to JSON Schema; the decoder,
  like dsh, wants `seq`, `turn`, ... written as integers (only `time` may be a whole float), and
  conform blames such a line on LOG-4, as check does.

`tests/test_log_schema.py` holds the two to exactly this: a valid line broken in one place is
accepted by the schema only if the decoder reads it back unchanged, and read by the decoder but
rejected by the schema only at a place listed above.
"""

from __future__ import annotations

from typing import Any, assert_never

from loopspec.model.events import END_ABORTED, END_ERROR, END_INTERRUPTED, SurfaceReplace, TurnEnded
from loopspec.model.log_layout import (
    ENUMS,
    EVENT_LAYOUTS,
    MESSAGE_BLOCKS,
    MESSAGE_CLASSES,
    MESSAGE_SOURCES,
    MINIMUM,
    NON_EMPTY,
    OBJECT_KIND,
    SURFACE_APPEND,
    SURFACE_REPLACE_TAG,
    SURFACE_TYPES,
    TARGET_REQUIRED,
    WRITTEN_KINDS,
    WRITTEN_WORDS,
    EventLayout,
    LogField,
    LogObject,
    log_object,
    surface_fields,
)
from loopspec.properties.conformance.schema_shapes import described, tagged

_STRING: dict[str, Any] = {"type": "string"}
_JSON: dict[str, Any] = {"description": "any JSON value"}
_NULL_WORDS = "null, like leaving it out, is none"

# Prose only: what a member means, where its type does not say it.
DESCRIPTIONS: dict[tuple[type, str], str] = {
    (TurnEnded, "reason"): "Why the turn ended, by its kind",
}
# What an object whose `kind` the loop writes (`WRITTEN_KINDS`) carries beside some kinds; the
# kinds themselves are listed from `WRITTEN_KINDS`, so one added or dropped shows in the schema.
KIND_NOTES: dict[tuple[type, str], dict[str, str]] = {
    (TurnEnded, "reason"): {
        END_ABORTED: "with reason {kind: the abort's cause}, ABORT-3",
        END_ERROR: "with error {message, code}, TEXT-2",
        END_INTERRUPTED: "written by crash repair, REC-1",
    },
}
for _message in MESSAGE_CLASSES:
    DESCRIPTIONS[(_message, "id")] = "free: implementations choose their own"
_ENVELOPE_DESCRIPTIONS = {
    "seq": "the event's index in the log (LOG-1)",
    "time": "milliseconds since the Unix epoch, 0 or more (LOG-4), from any clock, except that "
    "crash repair's closers carry the time of the last event before them (REC-1)",
}


def _bounded(schema: dict[str, Any], owner: type, name: str) -> dict[str, Any]:
    """`schema` with the bounds the layout states for the field `name` of `owner`."""
    if (owner, name) in ENUMS:
        schema = {"enum": sorted(ENUMS[(owner, name)])}
    if (owner, name) in MINIMUM:
        schema = {**schema, "minimum": MINIMUM[(owner, name)]}
    if (owner, name) in NON_EMPTY and schema.get("type") == "string":
        schema = {**schema, "minLength": 1}
    return schema


def _blocks(owner: type) -> dict[str, Any]:
    """The blocks a target's `owner` (a message, a tool result block) holds."""
    schemas = [object_schema(log_object(cls)) for cls in MESSAGE_BLOCKS[owner]]
    return schemas[0] if len(schemas) == 1 else {"oneOf": schemas}


def _source(owner: type) -> dict[str, Any]:
    """The sources a target's message of class `owner` carries."""
    schemas = [
        {
            "type": "object",
            "required": ["kind", *members],
            "properties": {"kind": {"const": kind}, **{m: dict(_STRING) for m in members}},
        }
        for kind, members in MESSAGE_SOURCES[owner].items()
    ]
    return schemas[0] if len(schemas) == 1 else {"oneOf": schemas}


def surface_op_schema() -> dict[str, Any]:
    """`surfaceOp`: the append tag, or a replace object with the seqs it replaces."""
    tag, name = SURFACE_REPLACE_TAG
    bounds = {
        field.wire: _bounded({"type": "integer"}, SurfaceReplace, field.name)
        for field in log_object(SurfaceReplace).fields
    }
    replace = {
        "type": "object",
        "required": [tag, *bounds],
        "properties": {tag: {"const": name}, **bounds},
        "additionalProperties": False,
    }
    return {"oneOf": [{"const": SURFACE_APPEND}, replace]}


def field_schema(owner: type, field: LogField) -> dict[str, Any]:
    """The JSON Schema of one member of an object of class `owner`."""
    schema: dict[str, Any]
    match field.shape:
        case "int":
            schema = {"type": "integer"}
        case "str":
            schema = dict(_STRING)
        case "number" if field.hint is int:  # a whole number, written as one or not (LOG-5)
            schema = {"type": "integer", "minimum": 0, "maximum": 2**53 - 1}
        case "number":
            schema = {"type": "number"}
        case "flag":
            schema = {"const": True, "description": "written only when true"}
        case "bool":
            schema = {"type": "boolean"}
        case "object":
            schema = {"type": "object"}
            if (owner, field.name) in OBJECT_KIND:
                kind = {"type": "string", "minLength": 1}
                schema.update(required=["kind"], properties={"kind": kind})
        case "json":
            schema = dict(_JSON)
        case "strings":
            schema = {"type": "array", "items": _bounded(dict(_STRING), owner, field.name)}
            if (owner, field.name) in NON_EMPTY:
                schema["minItems"] = 1
        case "blocks" | "result-blocks":
            schema = {"type": "array", "items": _blocks(owner)}
        case "result-block":
            block = object_schema(log_object(field.hint))
            schema = {"type": "array", "items": block, "minItems": 1, "maxItems": 1}
        case "message":
            assert field.target is not None
            schema = {"$ref": f"#/$defs/messages/{field.target.__name__}"}
        case "nested":
            assert field.target is not None
            schema = object_schema(log_object(field.target), closed=True)
        case "surface":
            schema = surface_op_schema()
        case "sources":
            schema = {"type": "array", "items": {"type": "integer"}}
        case _:
            assert_never(field.shape)
    schema = _bounded(schema, owner, field.name)
    why = DESCRIPTIONS.get((owner, field.name))
    if field.null_is_absent and (owner, field.name) not in TARGET_REQUIRED:
        # As every reader takes it (`log_layout.NULL_IS_ABSENT`); a member a target must write
        # is refused null, as it is refused left out.
        if "type" in schema:
            schema = {**schema, "type": [schema["type"], "null"]}
        said = why or schema.get("description")
        why = f"{said}; {_NULL_WORDS}" if said else _NULL_WORDS
    if (owner, field.name) in WRITTEN_WORDS:
        # Not an enum: a reader takes any non-empty word here (a harness may write its own).
        words = ", ".join(sorted(WRITTEN_WORDS[(owner, field.name)]))
        why = f"the loop writes one of: {words}; a harness may write its own"
    if (owner, field.name) in WRITTEN_KINDS:
        notes = KIND_NOTES.get((owner, field.name), {})
        kinds = ", ".join(
            f"{kind} ({notes[kind]})" if kind in notes else kind
            for kind in sorted(WRITTEN_KINDS[(owner, field.name)])
        )
        # Not an enum either: a plugin may write a kind of its own (TURN-5).
        written = f"the loop writes one of the kinds {kinds}; a plugin may write its own (TURN-5)"
        why = f"{why}: {written}" if why else written
    return {**schema, "description": why} if why else schema


def object_schema(
    layout: LogObject, *, with_description: bool = True, closed: bool = False
) -> dict[str, Any]:
    """A wire object: its tag, its members, which a target must write; `closed`, no other
    (an event's data and what nests there: the module docstring says why messages stay open)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    if layout.tag is not None:
        key, value = layout.tag
        properties[key] = {"const": value}
        required.append(key)
    for field in layout.fields:
        properties[field.wire] = field_schema(layout.cls, field)
        if not field.optional or (layout.cls, field.name) in TARGET_REQUIRED:
            required.append(field.wire)
    schema: dict[str, Any] = {"type": "object", "required": required, "properties": properties}
    if closed:  # a member the layout does not define is LOG-4's: the model writes none
        schema["additionalProperties"] = False
    return described(schema, layout.cls) if with_description else schema


def message_schema(cls: type) -> dict[str, Any]:
    """A message as a target reports it: required id and role, its kind's source and blocks."""
    schema = object_schema(log_object(cls))
    schema["properties"]["source"] = _source(cls)
    return schema


def event_schema(layout: EventLayout) -> dict[str, Any]:
    """One core event: its envelope and its `data`."""
    cls = layout.cls
    whole = log_object(cls)
    properties: dict[str, Any] = {"type": {"const": layout.type}}
    required = ["type"]
    for field in whole.fields:
        if field.name in _ENVELOPE_DESCRIPTIONS:
            schema = field_schema(cls, field)
            properties[field.wire] = {**schema, "description": _ENVELOPE_DESCRIPTIONS[field.name]}
            required.append(field.wire)
    if layout.data_field is not None:
        properties["data"] = field_schema(cls, layout.data_field)
    else:
        properties["data"] = object_schema(layout.data, with_description=False, closed=True)
    required.append("data")
    for field in surface_fields(cls):
        properties[field.wire] = field_schema(cls, field)
        if not field.optional:
            required.append(field.wire)
    schema = {
        "type": "object",
        "required": required,
        "properties": properties,
        "additionalProperties": False,
    }
    return described(schema, cls)


_NO_SURFACE = {
    "not": {"anyOf": [{"required": [key]} for key in ("surfaceOp", "sourceEventSeqs")]},
}

MESSAGE_SCHEMAS: dict[str, dict[str, Any]] = {
    cls.__name__: message_schema(cls) for cls in MESSAGE_CLASSES
}
EVENT_SCHEMA: dict[str, Any] = {
    **tagged(
        "type",
        [(layout.type, event_schema(layout)) for layout in EVENT_LAYOUTS.values()],
        closed=False,
    ),
    "description": "One log event. Any type other than the core ones listed is opaque: kept, "
    "compared by no rule (SPEC section 4). A core event's envelope and data hold the members "
    "its type defines alone (LOG-4: a log's reader keeps another unread, but the model writes "
    "none, so a report holding one differs from the model's); a message stays open, being "
    "the shape of a reported history's messages too (HIST-1), which carry a loop's own "
    "members.",
}
EVENT_SCHEMA["properties"] = {
    "type": {"type": "string", "minLength": 1},
    "seq": {"type": "integer", "minimum": 0},
    "time": {"type": "integer", "minimum": 0},
    "data": _JSON,
}
EVENT_SCHEMA["required"] = ["type", "seq", "time", "data"]
# Surface metadata only on the three surface types, core or not (LOG-2).
EVENT_SCHEMA["if"] = {"properties": {"type": {"not": {"enum": sorted(SURFACE_TYPES)}}}}
EVENT_SCHEMA["then"] = _NO_SURFACE
