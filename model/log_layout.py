"""How a dsh session log spells events, messages and blocks: the one layout that the reference
codec (`loopspec.model.wire`: reading and writing), the impl's line writer
(`loopspec.impl.event_lines`) and the JSON Schema of an event (`loopspec schema`) are all
generated from.

The attrs classes (`loopspec.model.events`, `loopspec.model.messages`) give each wire object its
fields, their order, types and defaults. A member's key is its field's name in camelCase. What
the classes cannot say is stated once here:

- each class's tag on the wire (an event's `type`, a block's `type`, a message's `role`);
- which event fields live in the envelope beside `data`, under which keys (`ENVELOPE_FIELDS`),
  and the one event whose `data` is the value of its one field (`DATA_IS_FIELD`);
- wire keys that are not the camelCase of the field (`RENAMED`) and the order a message writes
  its members in (`MEMBER_ORDER`);
- which optional values are left out: a field that may be None when it is None, a flag (a bool
  defaulting to False) unless it is true (`LogField.omitted_when`), and which are read as left
  out when written null (`NULL_IS_ABSENT`);
- what is kept verbatim (`VERBATIM`): the unknown members of an object, beside the known ones;
- the rule each refusal carries (`SHAPE_RULE`, `FIELD_RULE`);
- what the classes' validators refuse, restated for the schema (`MINIMUM`, `NON_EMPTY`,
  `ENUMS`), the closed sets of words the loop writes where a reader takes any (`WRITTEN_WORDS`, and
  `WRITTEN_KINDS` for an object's `kind`),
  and what a conformance target must report although a log read from a real dsh may
  leave it out (`TARGET_REQUIRED`, `MESSAGE_SOURCES`, `MESSAGE_BLOCKS`).

This module imports no reader or writer: `loopspec.impl` may read it (the evidence boundary).
"""

from __future__ import annotations

import typing
from typing import Any, Literal

import attrs

from loopspec.model.commands import APPROVAL_OUTCOMES
from loopspec.model.config import HOOK_POINTS
from loopspec.model.events import (
    HOOK_DIALECTS,
    TURN_END_KINDS,
    ApprovalAsked,
    ApprovalDecided,
    Event,
    HookInvoked,
    HookResulted,
    OpaqueEvent,
    RewriteSidecar,
    SessionHeader,
    SurfaceEvent,
    SurfaceReplace,
    ToolCallRecorded,
    TurnEnded,
    UserMessageRecorded,
)
from loopspec.model.facts import HOOK_DECISIONS
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import (
    AssistantMessage,
    ContentBlock,
    OpaqueBlock,
    ReasoningBlock,
    ResultContentBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultMessage,
    UserMessage,
)

# The envelope's members, in the order every event line writes them.
ENVELOPE_KEYS = ("type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs")
# Event fields that live in the envelope beside `data`, and their keys.
ENVELOPE_FIELDS: dict[str, str] = {
    "seq": "seq",
    "time": "time",
    "surface": "surfaceOp",
    "sources": "sourceEventSeqs",
}
# The three event types that carry surface metadata (and must carry `surfaceOp`, LOG-2).
SURFACE_TYPES = frozenset(cls.TYPE for cls in typing.get_args(SurfaceEvent))
# The core event classes, each with its wire `type`; any other type is an `OpaqueEvent`.
EVENT_CLASSES: tuple[type, ...] = tuple(
    cls for cls in typing.get_args(Event) if cls is not OpaqueEvent
)
# An event whose `data` is the value of one field (user/message: the message object itself).
DATA_IS_FIELD: dict[type, str] = {UserMessageRecorded: "message"}

# The content block classes, told apart by their `type` member; any other is an `OpaqueBlock`.
BLOCK_CLASSES: tuple[type, ...] = (TextBlock, ReasoningBlock, ToolCallBlock, ToolResultBlock)
MESSAGE_CLASSES: tuple[type, ...] = (UserMessage, AssistantMessage, ToolResultMessage)

# The event field keeping the envelope's unknown members (beside `data`).
ENVELOPE_REST = "envelope_extra"
# Fields whose value is kept verbatim, beside the known members (their unknown members): an
# object's `extra`, an event's `envelope_extra`, an opaque block's members beside its type. An
# opaque event's `data` is its whole `data` member, verbatim.
VERBATIM = frozenset(
    {
        *((cls, "extra") for cls in (*EVENT_CLASSES, *MESSAGE_CLASSES, *BLOCK_CLASSES)),
        *((cls, ENVELOPE_REST) for cls in (*EVENT_CLASSES, OpaqueEvent)),
        (SessionHeader, "extra"),
        (OpaqueBlock, "data"),
    }
)
# An opaque event (a type outside the core vocabulary) is its envelope, `data` verbatim: its
# layout is `log_object(OpaqueEvent)`, whose `data` is written even when it is null.
ALWAYS_WRITTEN = frozenset({(OpaqueEvent, "data")})
# Keys that are not the camelCase of their field: a tool result message's one block is its
# `content` array (of exactly that one block, LOG-6).
RENAMED: dict[tuple[type, str], str] = {(ToolResultMessage, "result"): "content"}
# The order a class writes its members in, where it is not its field order: a message writes
# its (optional) id after its source.
MEMBER_ORDER: dict[type, tuple[str, ...]] = {
    UserMessage: ("content", "source", "id", "extra"),
    AssistantMessage: ("content", "source", "id", "extra"),
    ToolResultMessage: ("result", "source", "id", "extra"),
}
# The two surface operations: an append is the bare string, a replace an object tagged by `op`
# with the class's fields (the seqs it replaces, LOG-2).
SURFACE_APPEND = "append"
SURFACE_REPLACE_TAG = ("op", "replace")
# Fields the wire requires although their class gives them a default: a surface event's
# `surfaceOp` (LOG-2; the class defaults to an append).
WIRE_REQUIRED = frozenset((cls, "surface") for cls in typing.get_args(SurfaceEvent))
# Fields a class types `int` that the wire may write as any JSON number of a whole value (1.0 and
# 1e3 are 1 and 1000, as JavaScript, which writes dsh's logs, reads them), from 0 to 2^53 - 1:
# dsh's header timestamp, which dsh (0.1.0-rc.8) refuses to resume a log by otherwise (LOG-5).
READ_AS_WHOLE_NUMBER = frozenset({(SessionHeader, "created_at")})

RuleId = str
# The rule a refusal of each shape carries (LOG-4, a malformed value, unless stated).
SHAPE_RULE: dict[Shape, RuleId] = {
    "json": "LOG-3",  # what JSON cannot carry losslessly (NaN, -0.0, a too-long integer)
    "surface": "LOG-2",
    "sources": "LOG-2",
    "result-block": "LOG-6",  # a tool result message holds exactly one tool-result block
    "result-blocks": "LOG-6",  # a tool result's content nests only text and opaque blocks
}
# Refusals of one field that carry another rule than their shape's.
FIELD_RULE: dict[tuple[type, str], RuleId] = {
    (ToolCallRecorded, "rewrite"): "RW-2",
    (RewriteSidecar, "handler_ids"): "RW-2",
    # TURN-5 states what a turn/end's reason is: an object with a non-empty string kind.
    (TurnEnded, "reason"): "TURN-5",
    # LOG-5 states the header's members and their types.
    **{(SessionHeader, name): "LOG-5" for name in ("version", "id", "created_at", "cwd")},
}
HEADER_TAG = ("type", "session")  # the header line's tag (it is no event: no seq, no data)
HEADER_RULE: RuleId = "LOG-5"  # the first line must be the session header
ROLE_RULE: RuleId = "LOG-6"  # a message's role is the one its place on the log says

# What the classes' validators refuse, as bounds the schema states too.
MINIMUM: dict[tuple[type, str], int] = {
    **{(cls, "seq"): 0 for cls in (*EVENT_CLASSES, OpaqueEvent)},
    **{(cls, "turn"): 1 for cls in EVENT_CLASSES if "turn" in attrs.fields_dict(cls)},
    **{(cls, "step"): 1 for cls in EVENT_CLASSES if "step" in attrs.fields_dict(cls)},
    (SurfaceReplace, "start"): 0,
    (SurfaceReplace, "end"): 0,
    (HookResulted, "duration_ms"): 0,
}
NON_EMPTY = frozenset(
    {
        (ToolCallRecorded, "call_id"),
        (ToolCallRecorded, "name"),
        (HookInvoked, "point"),
        (HookInvoked, "handler_id"),
        (HookResulted, "point"),
        (HookResulted, "handler_id"),
        (ApprovalAsked, "id"),
        (ApprovalDecided, "id"),
        (ApprovalDecided, "outcome"),
        (ToolCallBlock, "id"),
        (ToolCallBlock, "name"),
        (ToolResultBlock, "tool_call_id"),
        (RewriteSidecar, "handler_ids"),  # each of them, and at least one
    }
)
ENUMS: dict[tuple[type, str], frozenset[str]] = {
    (HookInvoked, "dialect"): HOOK_DIALECTS,
    (HookResulted, "decision"): HOOK_DECISIONS,
}
# Strings the loop writes from a closed set where the classes and the reader take any non-empty
# one (a real harness may write words of its own: DEC-2 runs a call only on allowed-once, and
# reads any other answer as a refusal), so SPEC.md's event catalogue and the schema can list them.
WRITTEN_WORDS: dict[tuple[type, str], frozenset[str]] = {
    (HookInvoked, "point"): HOOK_POINTS,
    (HookResulted, "point"): HOOK_POINTS,
    (ApprovalDecided, "outcome"): APPROVAL_OUTCOMES,
}
# A turn/end reason is an object with a non-empty string `kind` (TURN-5).
OBJECT_KIND = frozenset({(TurnEnded, "reason")})
# The kinds the loop writes in such an object (a plugin may end a turn with its own).
WRITTEN_KINDS: dict[tuple[type, str], frozenset[str]] = {(TurnEnded, "reason"): TURN_END_KINDS}

# What a conformance target must report although a real dsh log may leave it out (the decoder
# reads such logs): a message's id and role, a tool result block's isError.
TARGET_REQUIRED = frozenset(
    {
        *((cls, "id") for cls in MESSAGE_CLASSES),
        *((cls, "role") for cls in MESSAGE_CLASSES),
        (ToolResultBlock, "is_error"),
    }
)
# The sources a target's messages carry: each kind with its string members (the decoder keeps
# any object).
MESSAGE_SOURCES: dict[type, dict[str, tuple[str, ...]]] = {
    UserMessage: {"user": (), "plugin": ("plugin",)},
    AssistantMessage: {"model": ("provider", "model")},
    ToolResultMessage: {"tool": ("callId",)},
}
# The blocks a target's messages hold (the decoder keeps any block, opaque ones included).
MESSAGE_BLOCKS: dict[type, tuple[type, ...]] = {
    UserMessage: (TextBlock,),
    AssistantMessage: (TextBlock, ReasoningBlock, ToolCallBlock),
    ToolResultBlock: (TextBlock,),
}

# ---------------------------------------------------------------------------------------------
# The layout of each class, computed from the classes and the facts above.

Shape = Literal[
    "int",
    "str",
    "number",
    "flag",
    "bool",
    "object",
    "json",
    "strings",
    "blocks",
    "result-blocks",
    "result-block",
    "message",
    "nested",
    "surface",
    "sources",
]
NEVER = "never"  # `omitted_when` of a member always written
# The shapes of optional members whose null reads as left out, by every reader of the format
# (the model's, check's, the schema `loopspec schema` prints for conform): an object whose members
# the format leaves open (`usage`, `error`), any JSON (`meta`, `updatedInput`, whose None is no
# value: dsh writes a tool's null presentation meta as `"meta": null`), and a tool-result block's
# `isError`, save in conform's schema, which a target must write (`TARGET_REQUIRED`: refused null
# as left out). Any other member written null is refused: a string, an integer, an array, a flag,
# a nested object (LOG-4, or the member's rule).
NULL_IS_ABSENT: frozenset[Shape] = frozenset({"object", "json", "bool"})


@attrs.frozen
class LogField:
    """One member of a wire object."""

    name: str  # the attrs field's name
    wire: str  # its key on the wire
    shape: Shape  # how its value is read and written
    hint: Any  # its resolved annotation
    optional: bool  # the wire may leave it out (the class's default is then the value)
    omitted_when: object  # the value written by leaving the member out (None, False), or NEVER
    rule: RuleId  # the rule a refusal of it carries
    target: type | None  # the class of a "message" or "nested" value

    @property
    def null_is_absent(self) -> bool:
        """Whether the member written null is read as left out (`NULL_IS_ABSENT`)."""
        return self.optional and self.shape in NULL_IS_ABSENT


@attrs.frozen
class LogObject:
    """A wire object: its tag member, its known members in the order it writes them, and the
    field keeping its unknown members."""

    cls: type
    tag: tuple[str, str] | None
    fields: tuple[LogField, ...]
    rest: str | None

    @property
    def known(self) -> tuple[str, ...]:
        """Every key the object knows (its tag's included): the rest are kept verbatim."""
        head = (self.tag[0],) if self.tag is not None else ()
        return (*head, *(f.wire for f in self.fields))


@attrs.frozen
class EventLayout:
    """An event class: its type, its envelope members beside seq and time (surface metadata),
    and its `data`: an object, or the value of one field (`data_field`)."""

    cls: type
    type: str
    surface: bool
    data: LogObject
    data_field: LogField | None


def camel(name: str) -> str:
    """A field's key on the wire: its name in camelCase."""
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


_HINTS: dict[type, dict[str, Any]] = {}


def hints(cls: type) -> dict[str, Any]:
    """`cls`'s resolved annotations."""
    known = _HINTS.get(cls)
    if known is None:
        known = _HINTS[cls] = typing.get_type_hints(cls)
    return known


def is_payload(hint: object) -> bool:
    """Whether `hint` is `JsonValue` (a union of None, scalars, tuples and `FrozenMap`)."""
    choices = typing.get_args(hint)
    return FrozenMap in choices and str in choices and type(None) in choices


_ARRAYS: dict[object, Shape] = {
    tuple[str, ...]: "strings",
    tuple[ContentBlock, ...]: "blocks",
    tuple[ResultContentBlock, ...]: "result-blocks",
    tuple[int, ...]: "sources",
}


def _shape(cls: type, field: attrs.Attribute[Any], hint: object) -> tuple[Shape, type | None]:
    """How a field's value is spelled, from its annotation."""
    if is_payload(hint):
        return "json", None
    if hint is bool and field.default is False:
        return "flag", None  # a bool that is only ever set (an optional one is a "bool")
    present = [c for c in typing.get_args(hint) if c is not type(None)]
    if len(present) == 1 and len(typing.get_args(hint)) == 2:
        hint = present[0]  # `X | None`: the shape of X
    if (cls, field.name) in READ_AS_WHOLE_NUMBER or hint is float:
        return "number", None
    simple: dict[object, Shape] = {int: "int", str: "str", FrozenMap: "object", bool: "bool"}
    if hint in simple:
        return simple[hint], None
    if hint in _ARRAYS:
        return _ARRAYS[hint], None
    if hint is ToolResultBlock:
        return "result-block", None
    if hint in MESSAGE_CLASSES:
        return "message", hint
    if field.name == "surface":
        return "surface", None
    if isinstance(hint, type) and attrs.has(hint):
        return "nested", hint
    raise TypeError(f"{cls.__name__}.{field.name}: no wire shape for {hint!r}")


def _omitted_when(field: attrs.Attribute[Any], shape: Shape, hint: object) -> object:
    if shape == "flag":
        return False
    if type(None) in typing.get_args(hint):
        return None
    return NEVER


def _field(cls: type, field: attrs.Attribute[Any]) -> LogField:
    hint = hints(cls)[field.name]
    shape, target = _shape(cls, field, hint)
    omitted = NEVER if (cls, field.name) in ALWAYS_WRITTEN else _omitted_when(field, shape, hint)
    return LogField(
        name=field.name,
        wire=RENAMED.get((cls, field.name), ENVELOPE_FIELDS.get(field.name, camel(field.name))),
        shape=shape,
        hint=hint,
        optional=(field.default is not attrs.NOTHING or omitted is None)
        and (cls, field.name) not in WIRE_REQUIRED,
        omitted_when=omitted,
        rule=FIELD_RULE.get((cls, field.name), SHAPE_RULE.get(shape, "LOG-4")),
        target=target,
    )


def _tag(cls: type) -> tuple[str, str] | None:
    if cls is SessionHeader:
        return HEADER_TAG
    for key, constant in (("type", "TYPE"), ("role", "ROLE")):
        value = cls.__dict__.get(constant)
        if isinstance(value, str):
            return key, value
    return None


_OBJECTS: dict[type, LogObject] = {}


def log_object(cls: type) -> LogObject:
    """The wire object of an attrs class: its members, and the field keeping its unknown ones
    (an event's own, not its envelope's, when it has both)."""
    known = _OBJECTS.get(cls)
    if known is not None:
        return known
    fields = attrs.fields(cls)
    verbatim = [field.name for field in fields if (cls, field.name) in VERBATIM]
    rest = next((name for name in verbatim if name != ENVELOPE_REST), None)
    if rest is None and verbatim:
        rest = verbatim[0]
    by_name = {field.name: field for field in fields if field.name not in verbatim}
    order = MEMBER_ORDER.get(cls, tuple(by_name))
    members = tuple(_field(cls, by_name[name]) for name in order if name in by_name)
    tag = None if cls in EVENT_CLASSES else _tag(cls)
    made = _OBJECTS[cls] = LogObject(cls, tag, members, rest)
    return made


def event_layout(cls: type) -> EventLayout:
    """The layout of a core event class: its `data` is its members but the envelope's."""
    kind = cls.__dict__["TYPE"]
    whole = log_object(cls)
    members = tuple(field for field in whole.fields if field.name not in ENVELOPE_FIELDS)
    rest = whole.rest if whole.rest != ENVELOPE_REST else None
    data = LogObject(cls, None, members, rest)
    data_field = None
    if cls in DATA_IS_FIELD:
        (data_field,) = data.fields
    return EventLayout(cls, kind, kind in SURFACE_TYPES, data, data_field)


def surface_fields(cls: type) -> tuple[LogField, ...]:
    """An event class's surface members (surfaceOp, sourceEventSeqs), in envelope order."""
    return tuple(f for f in log_object(cls).fields if f.name in ("surface", "sources"))


EVENT_LAYOUTS: dict[type, EventLayout] = {cls: event_layout(cls) for cls in EVENT_CLASSES}
HEADER: LogObject = log_object(SessionHeader)
# Per event type, the `data` members whose null reads as left out (`NULL_IS_ABSENT`): what a
# comparer of wire events drops before it compares (conform's `event_fields.normalized`).
NULL_IS_ABSENT_IN_DATA: dict[str, frozenset[str]] = {
    layout.type: absent
    for layout in EVENT_LAYOUTS.values()
    if (absent := frozenset(f.wire for f in layout.data.fields if f.null_is_absent))
}
