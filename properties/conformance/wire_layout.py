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
    HookAnswers,
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
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
    audit_words,
    post_audit_words,
)
from loopspec.model.config import HOOK_POINTS, HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import HOOK_DIALECTS
from loopspec.model.facts import HOOK_DECISIONS
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
    (HookAudit, "decision"): HOOK_DECISIONS,
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
MINIMUM: dict[tuple[type, str], int] = {
    (LoopConfig, "max_parallel"): 1,
    (LoopConfig, "epoch_ms"): 0,
}
# The largest value a field may take: the clock's start is a session header's createdAt, which
# LOG-5 bounds by JavaScript's largest exact integer (the model refuses more).
MAXIMUM: dict[tuple[type, str], int] = {(LoopConfig, "epoch_ms"): 2**53 - 1}
# Strings that may not be empty (the classes refuse an empty one).
NON_EMPTY: frozenset[tuple[type, str]] = frozenset(
    {(ToolCallBlock, "id"), (ToolCallBlock, "name"), (HookSpec, "handler_id")}
)


def _agreeing_words() -> str:
    """The audit words each PreToolUse verdict may record (HOOK-1), in words, from the model's
    own table (`audit_words`), for a schema reader who has no source to look them up in."""
    verdicts: tuple[tuple[str, PreVerdict, PreVerdict | None], ...] = (
        ("a pass", Pass(), None),
        ("an allow", Allow(), Allow(updated_input={})),
        ("an ask", Ask(), Ask(updated_input={})),
        ("a deny", Deny("r"), None),
    )

    def either(verdict: PreVerdict) -> str:
        *first, last = sorted(audit_words(verdict))
        return f"{', '.join(first)} or {last}" if first else last

    parts = []
    for label, verdict, supplying in verdicts:
        words = either(verdict)
        if supplying is not None:
            words += f" ({either(supplying)} alone with updatedInput)"
        parts.append(f"{words} for {label}")
    return "; ".join(parts)


def _agreeing_post_words() -> str:
    """The audit words each PostToolUse verdict may record (HOOK-1, `post_audit_words`)."""
    verdicts: tuple[tuple[str, PostVerdict], ...] = (
        ("a pass", PostPass()),
        ("a context", PostContext("c")),
        ("a block", PostBlock("r")),
    )
    parts = []
    for label, verdict in verdicts:
        *first, last = sorted(post_audit_words(verdict))
        parts.append(f"{', '.join(first)} or {last} for {label}")
    return "; ".join(parts)


_AUDIT_TAKEN = "how the hook ran: the hook/result takes its fields from it (durationMs 0 when it "
_POST_AUDIT = (
    f"{_AUDIT_TAKEN}has none); absent: the verdict's word, durationMs 0 and, for a block, its "
    "reason as stderrSummary (a pass or a context gives none) (TEXT-2)"
)
"""What a PostToolUse verdict's `audit` is for."""

# What each field means, for the JSON Schema's descriptions: a case file is read and edited by
# people who have only `loopspec schema case`, the README and SPEC.md.
MEANINGS: dict[tuple[type, str], str] = {
    (LoopConfig, "tools"): "the registered tools; a call naming another ends as UNKNOWN_TOOL",
    (LoopConfig, "hooks"): "the configured hooks, in the order they run and combine",
    (LoopConfig, "max_parallel"): "at most this many concurrency-safe bodies run at once "
    "(SCHED-1; with the capability parallel)",
    (LoopConfig, "provider"): "the provider name the assistant messages' source carries",
    (LoopConfig, "model"): "the model name the assistant messages' source carries",
    (LoopConfig, "epoch_ms"): "the model's event times are epochMs + seq; times are never compared",
    (ToolSpec, "name"): "the name calls use",
    (ToolSpec, "concurrency_safe"): "whether its bodies may overlap (SCHED-1); false: it runs "
    "alone",
    (ToolSpec, "required_keys"): "keys the input object must hold; a call missing one ends as "
    "INVALID_TOOL_INPUT (EXE-5)",
    (HookSpec, "handler_id"): "the hook's id, unique in the configuration; the hook/invoked and "
    "hook/result events name it",
    (HookSpec, "point"): "when it runs: PreToolUse (before a call runs, answered by HookAnswers) "
    "or PostToolUse (on a result, answered in ToolFinishes.post)",
    (HookSpec, "matcher"): 'a regex the whole tool name must match; "" or "*" match every tool',
    (HookSpec, "dialect"): "whose hooks these are, claude-code or codex; its hook events carry it",
    (SubmitUser, "text"): "what the user typed",
    (ModelReplies, "blocks"): "the reply's blocks in the order the model wrote them",
    (ModelReplies, "finish"): "how the reply ended: completed, max-tokens or cancelled (the last "
    "two with the capability max-tokens)",
    (ModelFails, "message"): "the failure's message, in the turn/end error",
    (ModelFails, "code"): "the failure's code, in the turn/end error",
    (TextBlock, "text"): "the text",
    (ReasoningBlock, "text"): "the reasoning text",
    (ToolCallBlock, "id"): "the call's id, unique within the reply (EXE-1)",
    (ToolCallBlock, "name"): "the tool the call names",
    (ToolCallBlock, "arguments"): "the input as the raw string the model wrote: blank means {}, "
    "and a string that is not a JSON object is invalid input (EXE-2)",
    (HookAnswers, "verdict"): "the hook's decision: pass, allow, ask or deny (merged by HOOK-2)",
    (HookAnswers, "audit"): f"{_AUDIT_TAKEN}has none); absent: the verdict's word, durationMs 0 "
    "and, as stderrSummary, the verdict's reason if it gave one (TEXT-2)",
    (Allow, "updated_input"): "the whole input that replaces the call's (capability rewrite); "
    "null: none",
    (Allow, "reason"): "the hook's reason, if it gave one",
    (Ask, "reason"): "the hook's reason, if it gave one",
    (Ask, "updated_input"): "the whole input that replaces the call's (capability rewrite); "
    "null: none",
    (Deny, "reason"): "why: the denied call's result is the error `Error: ` and the reasons "
    "(DEC-1, TEXT-1)",
    (HookAudit, "decision"): "the decision word to record in place of the verdict's own; on a "
    f"PreToolUse answer one that agrees with its verdict: {_agreeing_words()}; on a PostToolUse "
    f"verdict: {_agreeing_post_words()} (HOOK-1)",
    (HookAudit, "exit_code"): "the hook process's exit code; 2, the blocking exit, only on a deny "
    "or a block, or on a pass audited error (HOOK-1)",
    (HookAudit, "stderr_summary"): "what the hook printed on stderr, in short",
    (HookAudit, "duration_ms"): "how long the hook ran, in milliseconds; the hook/result records "
    "0 when it is left out",
    (ApprovalAnswers, "outcome"): "the answer: allowed-once runs the call; rejected, cancelled "
    "and unavailable end it unrun",
    (ToolFinishes, "call_id"): "the id of the running call whose body settles",
    (ToolFinishes, "outcome"): "what the body did: ok true (succeeded) or false (failed)",
    (ToolFinishes, "post"): "one verdict per PostToolUse hook that matches the call, in "
    "configured order (capability post-hooks)",
    (ToolSucceeded, "text"): "the body's output: the result's one text block",
    (ToolSucceeded, "contexts"): "messages for the model, queued when the result commits and "
    "delivered after the next step/start (ADJ-4)",
    (ToolSucceeded, "meta"): "presentation meta the result carries (capability result-meta); "
    "null, like no meta, is none: the result then has no meta member",
    (ToolFailed, "message"): "what failed: the result is the error `Error: ` and this (TEXT-1)",
    (ToolFailed, "code"): "when given, the result's error.code (its error.name is errorName); "
    "left out, never null, when the failure has none",
    (ToolFailed, "error_name"): "the result's error.name when code is given; ToolError when left "
    "out (a case written by hand: conform and replay always send it)",
    (PostContext, "text"): "context for the model, delivered after the batch",
    (PostContext, "audit"): _POST_AUDIT,
    (PostPass, "audit"): _POST_AUDIT,
    (PostBlock, "reason"): "what the model sees as an error instead of the result",
    (PostBlock, "audit"): f"{_AUDIT_TAKEN}has none); absent: the verdict's word, durationMs 0 "
    "and, as stderrSummary, the block's reason if it gave one (TEXT-2)",
    (Abort, "cause"): "who cancelled the turn: user, parent, hook or disposed",
}

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
    maximum: int | None
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
            maximum=MAXIMUM.get((cls, field.name)),
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
