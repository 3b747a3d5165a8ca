"""Crash repair: the deterministic closers of an interrupted tail turn (rules REC-1, REC-2).

A crash may leave the last turn open. On reopen, before anything else is appended, the open turn
is closed so the log is balanced again and every call the model history shows has a result:

- each call of the open step's `assistant/message` still without a result gets one synthetic
  error `tool/result`, in transcript order: `TOOL_OUTCOME_UNKNOWN` (citing the `tool/call` seq)
  when its identity was recorded — it may have run, so it must not be retried blindly — else
  `TOOL_NOT_STARTED`;
- then `step/end` if a step is open, then `turn/end {kind: interrupted}`.

Closer seqs continue the log; their time is the last event's time. A balanced log gets nothing.
"""

from __future__ import annotations

from loopspec.model.events import (
    END_INTERRUPTED,
    AssistantMessageRecorded,
    Event,
    StepEnded,
    StepStarted,
    SurfaceAppend,
    ToolCallRecorded,
    ToolResultRecorded,
    TurnEnded,
    TurnStarted,
)
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import TextBlock, ToolResultBlock, ToolResultMessage, tool_source
from loopspec.model.records import TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN, error_info
from loopspec.model.wording import ERROR_PREFIX, NOT_STARTED, OUTCOME_UNKNOWN

OUTCOME_UNKNOWN_TEXT = ERROR_PREFIX + OUTCOME_UNKNOWN
NOT_STARTED_TEXT = ERROR_PREFIX + NOT_STARTED
# A repair result's message id is this, its call's id, `-` and its seq (as dsh names it).
REPAIR_RESULT_ID = "interrupted-tool-result-"


def interrupted_turn_closers(log: tuple[Event, ...]) -> tuple[Event, ...]:
    """The events that close the log's open tail turn; empty when the log is balanced."""
    open_turn: int | None = None
    open_step: int | None = None
    pending: dict[str, int | None] = {}  # callId -> tool/call seq (None: not started)
    for event in log:
        match event:
            case TurnStarted():
                open_turn, open_step, pending = event.turn, None, {}
            case TurnEnded():
                open_turn, open_step, pending = None, None, {}
            case StepStarted():
                open_step, pending = event.step, {}
            case StepEnded():
                open_step, pending = None, {}
            case AssistantMessageRecorded():
                for call in event.message.tool_calls:
                    pending[call.id] = None
            case ToolCallRecorded():
                if event.call_id in pending:
                    pending[event.call_id] = event.seq
            case ToolResultRecorded():
                if isinstance(event.surface, SurfaceAppend):
                    pending.pop(event.call_id, None)
            case _:
                pass
    if open_turn is None:
        return ()
    turn = open_turn
    time = log[-1].time if log else 0
    seq = len(log)
    closers: list[Event] = []
    if open_step is not None:
        for call_id, call_seq in pending.items():
            started = call_seq is not None
            text = OUTCOME_UNKNOWN_TEXT if started else NOT_STARTED_TEXT
            info = (
                error_info("ToolOutcomeUnknownError", TOOL_OUTCOME_UNKNOWN)
                if started
                else error_info("ToolNotStartedError", TOOL_NOT_STARTED)
            )
            message = ToolResultMessage(
                f"{REPAIR_RESULT_ID}{call_id}-{seq}",
                ToolResultBlock(call_id, (TextBlock(text),), True),
                tool_source(call_id),
            )
            sources = (call_seq,) if call_seq is not None else None
            closers.append(
                ToolResultRecorded(seq, time, turn, open_step, message, error=info, sources=sources)
            )
            seq += 1
        closers.append(StepEnded(seq, time, turn, open_step))
        seq += 1
    closers.append(TurnEnded(seq, time, turn, FrozenMap({"kind": END_INTERRUPTED})))
    return tuple(closers)
