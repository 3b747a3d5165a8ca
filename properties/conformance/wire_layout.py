"""How the driver protocol spells commands and configurations: the one layout that the codec
(`command_codec`: encoding and decoding) and the JSON Schema (`driver_protocol`: what
`loopspec schema` prints) are both generated from.

The attrs classes (`loopspec.model.commands`, `loopspec.model.config`) give each wire object
its fields, their order, types and defaults. Wire names are the fields' names in camelCase. What
the attrs types cannot say is stated once here: a union member's tag, a closed set of strings,
a lower bound, a string that may not be empty, a field the wire requires although its class
gives it a default.
"""

from __future__ import annotations

import typing

import attrs

from loopspec.model.commands import (
    ABORT_CAUSES,
    APPROVAL_OUTCOMES,
    FINISH_REASONS,
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Deny,
    HookAudit,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    ReplyBlock,
    ToolFailed,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import HOOK_POINTS, HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import HOOK_DIALECTS
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock

# A union member's discriminating key and value on the wire.
TAGS: dict[type, tuple[str, object]] = {
    **{cls: ("kind", cls.NAME) for cls in typing.get_args(Command)},
    Pass: ("decision", "pass"),
    Allow: ("decision", "allow"),
    Ask: ("decision", "ask"),
    Deny: ("decision", "deny"),
    PostPass: ("decision", "pass"),
    PostContext: ("decision", "context"),
    PostBlock: ("decision", "block"),
    ToolSucceeded: ("ok", True),
    ToolFailed: ("ok", False),
    TextBlock: ("type", "text"),
    ReasoningBlock: ("type", "reasoning"),
    ToolCallBlock: ("type", "tool-call"),
}
# (class, field) -> the closed set of strings it takes.
ENUMS: dict[tuple[type, str], frozenset[str]] = {
    (ModelReplies, "finish"): FINISH_REASONS,
    (ApprovalAnswers, "outcome"): APPROVAL_OUTCOMES,
    (Abort, "cause"): ABORT_CAUSES,
    (HookSpec, "point"): HOOK_POINTS,
    (HookSpec, "dialect"): HOOK_DIALECTS,
}
# Fields the wire requires although their class gives them a default.
WIRE_REQUIRED: frozenset[tuple[type, str]] = frozenset(
    {
        (ModelReplies, "finish"),
        (ModelFails, "code"),
        (ApprovalAnswers, "outcome"),
        (Abort, "cause"),
        (Deny, "reason"),
        *((LoopConfig, f.name) for f in attrs.fields(LoopConfig)),
        (HookSpec, "point"),
        (HookSpec, "matcher"),
        (HookSpec, "dialect"),
        (ToolSpec, "concurrency_safe"),
        (ToolSpec, "required_keys"),
    }
)
# Fields never on the wire (kept verbatim inside loopspec only).
NOT_ON_THE_WIRE = frozenset({"extra"})
MINIMUM: dict[tuple[type, str], int] = {(LoopConfig, "max_parallel"): 1}
# Strings that may not be empty (the classes refuse an empty one).
NON_EMPTY: frozenset[tuple[type, str]] = frozenset(
    {(ToolCallBlock, "id"), (ToolCallBlock, "name"), (HookSpec, "handler_id")}
)

# The closed unions and the classes a field's annotation may name, by that name.
UNIONS: dict[str, object] = {
    "Command": Command,
    "ReplyBlock": ReplyBlock,
    "PreVerdict": PreVerdict,
    "PostVerdict": PostVerdict,
    "ToolOutcome": ToolOutcome,
}
CLASSES: dict[str, type] = {cls.__name__: cls for cls in (HookAudit, ToolSpec, HookSpec)}
_UNION_NAMES = {
    frozenset(typing.get_args(union)): name for name, union in UNIONS.items() if name != "Command"
}


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def annotation_text(annotation: object) -> str:
    """A field's type as source text, whether attrs keeps the text or (once something resolved
    the module's annotations) the objects."""
    if isinstance(annotation, str):
        return annotation
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is tuple and len(args) == 2 and args[1] is Ellipsis:
        return f"tuple[{annotation_text(args[0])}, ...]"
    if args and {bool, int, float, str} <= set(args):
        return "JsonValue"
    if args and type(None) in args:
        rest = tuple(a for a in args if a is not type(None))
        inner = annotation_text(rest[0]) if len(rest) == 1 else _UNION_NAMES[frozenset(rest)]
        return f"{inner} | None"
    if args and frozenset(args) in _UNION_NAMES:
        return _UNION_NAMES[frozenset(args)]
    return str(getattr(annotation, "__name__", annotation))


@attrs.frozen
class WireField:
    """One field of a wire object."""

    name: str  # the attrs field's name
    wire: str  # its key on the wire
    annotation: str  # its type, as source text ("tuple[ToolSpec, ...]", "str | None", ...)
    required: bool  # the wire must carry it (else it is omitted when None or absent)
    enum: frozenset[str] | None
    minimum: int | None
    non_empty: bool  # a string that may not be ""


_FIELDS: dict[type, tuple[WireField, ...]] = {}


def wire_fields(cls: type) -> tuple[WireField, ...]:
    """The wire fields of an attrs class, in its field order."""
    known = _FIELDS.get(cls)
    if known is None:
        known = _FIELDS[cls] = _fields_of(cls)
    return known


def _fields_of(cls: type) -> tuple[WireField, ...]:
    return tuple(
        WireField(
            name=field.name,
            wire=camel(field.name),
            annotation=annotation_text(field.type),
            required=field.default is attrs.NOTHING or (cls, field.name) in WIRE_REQUIRED,
            enum=ENUMS.get((cls, field.name)),
            minimum=MINIMUM.get((cls, field.name)),
            non_empty=(cls, field.name) in NON_EMPTY,
        )
        for field in attrs.fields(cls)
        if field.name not in NOT_ON_THE_WIRE
    )


def union_members(name: str) -> tuple[type, ...]:
    """The member classes of the closed union named `name`."""
    return typing.get_args(UNIONS[name])


def union_key(name: str) -> str:
    """The key whose value tells the members of the union `name` apart."""
    return TAGS[union_members(name)[0]][0]
