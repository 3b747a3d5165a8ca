"""Builders for the events the loop appends, so every handler writes them the same way."""

from __future__ import annotations

from loopspec.model.draft import Draft
from loopspec.model.events import (
    END_ABORTED,
    StepEnded,
    StepStarted,
    ToolResultRecorded,
    TurnEnded,
    UserMessageRecorded,
)
from loopspec.model.jsonvalue import FrozenMap, JsonValue
from loopspec.model.messages import (
    ResultContentBlock,
    TextBlock,
    ToolResultBlock,
    ToolResultMessage,
    UserMessage,
    plugin_source,
    tool_source,
    user_source,
)
from loopspec.model.state import QueuedMessage
from loopspec.model.wording import ERROR_PREFIX

ABORTED_BEFORE_DISPATCH = "ABORTED_BEFORE_DISPATCH"
ABORTED = "ABORTED"
UNKNOWN_TOOL = "UNKNOWN_TOOL"
INVALID_TOOL_INPUT = "INVALID_TOOL_INPUT"
TOOL_OUTCOME_UNKNOWN = "TOOL_OUTCOME_UNKNOWN"
TOOL_NOT_STARTED = "TOOL_NOT_STARTED"


def reason(kind: str, **fields: JsonValue) -> FrozenMap:
    """A turn/end reason `{kind, ...}`."""
    return FrozenMap({"kind": kind, **fields})


def aborted(cause: str) -> FrozenMap:
    """The reason of a turn ended by an abort."""
    return reason(END_ABORTED, reason=FrozenMap({"kind": cause}))


def error_info(name: str, code: str) -> FrozenMap:
    """The `{name, code}` error info a tool/result carries."""
    return FrozenMap({"name": name, "code": code})


def error_text(message: str) -> tuple[ResultContentBlock, ...]:
    """The content of an error result: one text block `Error: <message>` (rule DEC-1)."""
    return (TextBlock(ERROR_PREFIX + message),)


def open_step(draft: Draft, turn: int, step: int, messages: tuple[QueuedMessage, ...]) -> None:
    """Append `step/start` and then each queued message, in FIFO order (rule ADJ-4)."""
    draft.add(StepStarted, turn, step)
    for queued in messages:
        source = user_source() if queued.plugin is None else plugin_source(queued.plugin)
        message = UserMessage(draft.message_id(), (TextBlock(queued.text),), source)
        draft.add(UserMessageRecorded, message)


def close_step(draft: Draft, turn: int, step: int) -> None:
    """Append `step/end` for the open step."""
    draft.add(StepEnded, turn, step)


def end_turn(draft: Draft, turn: int, why: FrozenMap) -> None:
    """Append `turn/end` with its reason."""
    draft.add(TurnEnded, turn, why)


def append_result(
    draft: Draft,
    turn: int,
    step: int,
    call_id: str,
    content: tuple[ResultContentBlock, ...],
    *,
    is_error: bool,
    error: FrozenMap | None = None,
    meta: JsonValue = None,
    call_seq: int | None,
    message_id: str | None = None,
) -> None:
    """Append a `tool/result` citing its `tool/call` (rule ORD-2)."""
    result = ToolResultBlock(call_id, content, is_error)
    message = ToolResultMessage(message_id or draft.message_id(), result, tool_source(call_id))
    sources = None if call_seq is None else (call_seq,)
    draft.add(ToolResultRecorded, turn, step, message, error=error, meta=meta, sources=sources)
