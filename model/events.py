"""Session-log events: the dsh wire envelope `{type, seq, time, data}` as frozen classes.

Each class is one wire `type`, named as a past-tense fact. Construction validates everything a
single event can show on its own (field types, numbering from 1, surface metadata only on the
three surface types); relations between events are the invariants' job. Fields the rules do not
read are kept in `extra` (inside `data`) and `envelope_extra` (beside it), so a log read from a
real harness writes back unchanged. Any type outside the core vocabulary is an `OpaqueEvent`.
"""

from __future__ import annotations

import math
from typing import ClassVar

import attrs

from loopspec.model.errors import InvalidEventError
from loopspec.model.facts import HOOK_DECISIONS, dialect_problem, unknown_decision
from loopspec.model.facts import HOOK_DIALECTS as _DIALECTS_THE_CHECKER_READS
from loopspec.model.json_text import spelled
from loopspec.model.jsonvalue import EMPTY, FrozenMap, JsonValue
from loopspec.model.messages import AssistantMessage, ToolResultMessage, UserMessage

# Defined with the facts: the checker reads a hook's dialect without importing this module.
HOOK_DIALECTS = _DIALECTS_THE_CHECKER_READS
# The kinds of turn/end reason the loop writes (TURN-5: a plugin may end a turn with its own).
END_COMPLETED = "completed"
END_MAX_TOKENS = "max-tokens"
END_ERROR = "error"
END_ABORTED = "aborted"
END_INTERRUPTED = "interrupted"  # crash repair's (REC-1)
TURN_END_KINDS = frozenset({END_COMPLETED, END_MAX_TOKENS, END_ERROR, END_ABORTED, END_INTERRUPTED})


def _counter(_instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        msg = f"{attribute.name} must be an integer >= 1, got {spelled(value)}"
        # Turns are numbered from 1 (TURN-1), a turn's steps too (STEP-1).
        raise InvalidEventError(msg, rule_id="STEP-1" if attribute.name == "step" else "TURN-1")


def _seq(_instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        msg = f"{attribute.name} must be an integer >= 0, got {spelled(value)}"
        raise InvalidEventError(msg, rule_id="LOG-1")


def _text(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    if not isinstance(value, str) or not value:
        msg = f"{attribute.name} must be a non-empty string, got {spelled(value)}"
        raise InvalidEventError(msg, rule_id="LOG-4")


def _hook_name(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    # HOOK-1 states it: an audit's pair is keyed by (turn, point, handlerId), and an empty one
    # names no hook. check names the same rule for the same line (`fact_readers._read_hook`).
    if not isinstance(value, str) or not value:
        msg = f"{attribute.name} must be a non-empty string, got {spelled(value)}"
        raise InvalidEventError(msg, rule_id="HOOK-1" if isinstance(value, str) else "LOG-4")


@attrs.frozen
class SurfaceAppend:
    """The event's message is appended to the model-visible surface."""


@attrs.frozen
class SurfaceReplace:
    """The event's message replaces surface nodes `start`..`end` (seqs, inclusive)."""

    start: int = attrs.field(validator=_seq)
    end: int = attrs.field(validator=_seq)


SurfaceOp = SurfaceAppend | SurfaceReplace
APPEND = SurfaceAppend()


@attrs.frozen
class SessionHeader:
    """The first line of a session log; it is not an event and has no seq."""

    version: int
    id: str
    created_at: int
    cwd: str
    extra: FrozenMap = EMPTY


@attrs.frozen
class TurnStarted:
    """A turn opened."""

    TYPE: ClassVar[str] = "turn/start"
    seq: int = attrs.field(validator=_seq)
    time: int
    turn: int = attrs.field(validator=_counter)
    extra: FrozenMap = EMPTY
    envelope_extra: FrozenMap = EMPTY


@attrs.frozen
class TurnEnded:
    """A turn closed; `reason` is `{kind, ...}` (completed, aborted, error, ...)."""

    TYPE: ClassVar[str] = "turn/end"
    seq: int = attrs.field(validator=_seq)
    time: int
    turn: int = attrs.field(validator=_counter)
    reason: FrozenMap
    extra: FrozenMap = EMPTY
    envelope_extra: FrozenMap = EMPTY

    def __attrs_post_init__(self) -> None:
        kind = self.reason.get("kind")
        if not isinstance(kind, str) or not kind:
            msg = "turn/end reason needs a non-empty string kind"
            raise InvalidEventError(msg, rule_id="TURN-5")

    @property
    def reason_kind(self) -> str:
        """The reason's kind tag."""
        kind = self.reason["kind"]
        assert isinstance(kind, str)
        return kind


@attrs.frozen
class StepStarted:
    """A step (one model request and its tool batch) opened inside the open turn."""

    TYPE: ClassVar[str] = "step/start"
    seq: int = attrs.field(validator=_seq)
    time: int
    turn: int = attrs.field(validator=_counter)
    step: int = attrs.field(validator=_counter)
    extra: FrozenMap = EMPTY
    envelope_extra: FrozenMap = EMPTY


@attrs.frozen
class StepEnded:
    """The open step closed."""

    TYPE: ClassVar[str] = "step/end"
    seq: int = attrs.field(validator=_seq)
    time: int
    turn: int = attrs.field(validator=_counter)
    step: int = attrs.field(validator=_counter)
    extra: FrozenMap = EMPTY
    envelope_extra: FrozenMap = EMPTY


@attrs.frozen
class UserMessageRecorded:
    """A user-role message entered the surface (prompt, runtime context, post-tool context)."""

    TYPE: ClassVar[str] = "user/message"
    seq: int = attrs.field(validator=_seq)
    time: int
    message: UserMessage
    surface: SurfaceOp = APPEND
    sources: tuple[int, ...] | None = None
    envelope_extra: FrozenMap = EMPTY


@attrs.frozen
class AssistantMessageRecorded:
    """The model's reply for a step; its tool-call blocks carry the effective arguments."""

    TYPE: ClassVar[str] = "assistant/message"
    seq: int = attrs.field(validator=_seq)
    time: int
    turn: int = attrs.field(validator=_counter)
    step: int = attrs.field(validator=_counter)
    message: AssistantMessage
    usage: FrozenMap | None = None
    interrupted: bool = False
    surface: SurfaceOp = APPEND
    sources: tuple[int, ...] | None = None
    extra: FrozenMap = EMPTY
    envelope_extra: FrozenMap = EMPTY


@attrs.frozen
class RewriteSidecar:
    """What a hook rewrite replaced: the model's original raw arguments and who rewrote them.

    Wire form: `tool/call.data.rewrite = {originalArguments: str, handlerIds: [str, ...]}`.
    """

    original_arguments: str
    handler_ids: tuple[str, ...]

    def __attrs_post_init__(self) -> None:
        if not self.handler_ids or not all(self.handler_ids):
            raise InvalidEventError("a rewrite names at least one hook", rule_id="RW-2")


@attrs.frozen
class ToolCallRecorded:
    """The audit record of a sealed tool execution identity: what runs, with what arguments."""

    TYPE: ClassVar[str] = "tool/call"
    seq: int = attrs.field(validator=_seq)
    time: int
    turn: int = attrs.field(validator=_counter)
    step: int = attrs.field(validator=_counter)
    call_id: str = attrs.field(validator=_text)
    name: str = attrs.field(validator=_text)
    arguments: str
    rewrite: RewriteSidecar | None = None
    extra: FrozenMap = EMPTY
    envelope_extra: FrozenMap = EMPTY


@attrs.frozen
class ToolResultRecorded:
    """A tool result entered the surface; `error` is `{name, code}` when the failure has info."""

    TYPE: ClassVar[str] = "tool/result"
    seq: int = attrs.field(validator=_seq)
    time: int
    turn: int = attrs.field(validator=_counter)
    step: int = attrs.field(validator=_counter)
    message: ToolResultMessage
    error: FrozenMap | None = None
    meta: JsonValue = None
    surface: SurfaceOp = APPEND
    sources: tuple[int, ...] | None = None
    extra: FrozenMap = EMPTY
    envelope_extra: FrozenMap = EMPTY

    @property
    def call_id(self) -> str:
        """The call this result answers."""
        return self.message.call_id

    @property
    def error_code(self) -> str | None:
        """The error code, when the result carries error info."""
        code = self.error.get("code") if self.error is not None else None
        return code if isinstance(code, str) else None


@attrs.frozen
class HookInvoked:
    """A configured hook was started for a hook point (audit)."""

    TYPE: ClassVar[str] = "hook/invoked"
    seq: int = attrs.field(validator=_seq)
    time: int
    turn: int = attrs.field(validator=_counter)
    point: str = attrs.field(validator=_hook_name)
    dialect: str
    handler_id: str = attrs.field(validator=_hook_name)
    matcher: str | None = None
    call_id: str | None = None
    extra: FrozenMap = EMPTY
    envelope_extra: FrozenMap = EMPTY

    def __attrs_post_init__(self) -> None:
        if self.dialect not in HOOK_DIALECTS:
            raise InvalidEventError(dialect_problem(self.dialect), rule_id="HOOK-1")


@attrs.frozen
class HookResulted:
    """A hook finished; `decision` is what it said, one of `HOOK_DECISIONS` (allow, deny, ...)."""

    TYPE: ClassVar[str] = "hook/result"
    seq: int = attrs.field(validator=_seq)
    time: int
    turn: int = attrs.field(validator=_counter)
    point: str = attrs.field(validator=_hook_name)
    handler_id: str = attrs.field(validator=_hook_name)
    decision: str
    duration_ms: float
    exit_code: int | None = None
    stderr_summary: str | None = None
    call_id: str | None = None
    updated_input: JsonValue = None
    extra: FrozenMap = EMPTY
    envelope_extra: FrozenMap = EMPTY

    def __attrs_post_init__(self) -> None:
        if self.decision not in HOOK_DECISIONS:
            raise InvalidEventError(unknown_decision(self.decision), rule_id="HOOK-1")
        # `< inf`, not `math.isfinite`: an integer too large for a float is finite, and
        # `isfinite` raises OverflowError on it (as check reads it: `facts.hook_duration_valid`).
        if not isinstance(self.duration_ms, int | float) or not 0 <= self.duration_ms < math.inf:
            msg = f"durationMs must be a finite number >= 0, got {spelled(self.duration_ms)}"
            raise InvalidEventError(msg, rule_id="HOOK-1")


@attrs.frozen
class ApprovalAsked:
    """The user was asked to approve a call; `arguments` is the exact input being approved."""

    TYPE: ClassVar[str] = "approval/asked"
    seq: int = attrs.field(validator=_seq)
    time: int
    id: str = attrs.field(validator=_text)
    tool_name: str
    call_id: str | None = None
    reason: str | None = None
    arguments: str | None = None
    extra: FrozenMap = EMPTY
    envelope_extra: FrozenMap = EMPTY


@attrs.frozen
class ApprovalDecided:
    """The user (or the approval channel) answered an approval request."""

    TYPE: ClassVar[str] = "approval/decided"
    seq: int = attrs.field(validator=_seq)
    time: int
    id: str = attrs.field(validator=_text)
    outcome: str = attrs.field(validator=_text)
    extra: FrozenMap = EMPTY
    envelope_extra: FrozenMap = EMPTY


@attrs.frozen
class OpaqueEvent:
    """Any event type outside the core vocabulary, kept verbatim (plugin events, chunks, ...)."""

    type: str = attrs.field(validator=_text)
    seq: int = attrs.field(validator=_seq)
    time: int
    data: JsonValue
    envelope_extra: FrozenMap = EMPTY


Event = (
    TurnStarted
    | TurnEnded
    | StepStarted
    | StepEnded
    | UserMessageRecorded
    | AssistantMessageRecorded
    | ToolCallRecorded
    | ToolResultRecorded
    | HookInvoked
    | HookResulted
    | ApprovalAsked
    | ApprovalDecided
    | OpaqueEvent
)

SurfaceEvent = UserMessageRecorded | AssistantMessageRecorded | ToolResultRecorded

CORE_TYPES: tuple[str, ...] = (
    TurnStarted.TYPE,
    TurnEnded.TYPE,
    StepStarted.TYPE,
    StepEnded.TYPE,
    UserMessageRecorded.TYPE,
    AssistantMessageRecorded.TYPE,
    ToolCallRecorded.TYPE,
    ToolResultRecorded.TYPE,
    HookInvoked.TYPE,
    HookResulted.TYPE,
    ApprovalAsked.TYPE,
    ApprovalDecided.TYPE,
)


def event_type(event: Event) -> str:
    """The wire `type` of any event."""
    if isinstance(event, OpaqueEvent):
        return event.type
    return event.TYPE
