"""Crash repair: closing the turn a crash left open, before anything else is appended.

On reopen, if the last turn has no `turn/end`, the loop appends one unit that closes it (rules
REC-1, REC-2), in this order:

1. for each call of the open step's reply that has no result yet, in the order the reply made
   them, a synthetic error `tool/result`: `TOOL_OUTCOME_UNKNOWN` citing its `tool/call` when the
   identity was recorded (the body may have run, so nothing should retry it blindly), otherwise
   `TOOL_NOT_STARTED` (it cannot have run);
2. `step/end` when a step is open;
3. `turn/end {kind: "interrupted"}`.

The closers continue the seqs and carry the time of the last event in the log.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from loopspec.model.events import (
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
from loopspec.model.messages import TextBlock, ToolResultBlock, ToolResultMessage

RECORDED_BUT_UNFINISHED = (
    "Error: the session stopped after this tool call was recorded and before its result was. "
    "It may or may not have taken effect; check before repeating anything with side effects."
)
NEVER_STARTED = (
    "Error: the session stopped before this tool call started. It had no effect and may be "
    "issued again."
)


@attrs.define
class _OpenTail:
    """What is still open at the end of the log."""

    turn: int | None = None
    step: int | None = None
    # Calls of the open step without a result, in reply order -> their tool/call seq, if any.
    unanswered: dict[str, int | None] = attrs.Factory(dict)

    def fold(self, event: Event) -> None:
        match event:
            case TurnStarted():
                self.turn, self.step, self.unanswered = event.turn, None, {}
            case TurnEnded():
                self.turn, self.step, self.unanswered = None, None, {}
            case StepStarted():
                self.step, self.unanswered = event.step, {}
            case StepEnded():
                self.step, self.unanswered = None, {}
            case AssistantMessageRecorded():
                self.unanswered.update((call.id, None) for call in event.message.tool_calls)
            case ToolCallRecorded() if event.call_id in self.unanswered:
                self.unanswered[event.call_id] = event.seq
            case ToolResultRecorded() if isinstance(event.surface, SurfaceAppend):
                self.unanswered.pop(event.call_id, None)
            case _:
                pass


def closers(log: Sequence[Event]) -> list[Event]:
    """The events that close the log's open tail turn; empty when every turn is closed."""
    tail = _OpenTail()
    for event in log:
        tail.fold(event)
    if tail.turn is None:
        return []
    time = log[-1].time if log else 0
    made: list[Event] = []

    def next_seq() -> int:
        return len(log) + len(made)

    if tail.step is not None:
        for call_id, call_seq in tail.unanswered.items():
            answer = _synthetic_answer(next_seq(), call_id, call_seq)
            made.append(
                ToolResultRecorded(
                    next_seq(),
                    time,
                    tail.turn,
                    tail.step,
                    answer.message,
                    error=answer.error,
                    sources=None if call_seq is None else (call_seq,),
                )
            )
        made.append(StepEnded(next_seq(), time, tail.turn, tail.step))
    made.append(TurnEnded(next_seq(), time, tail.turn, FrozenMap({"kind": "interrupted"})))
    return made


@attrs.frozen
class _SyntheticAnswer:
    message: ToolResultMessage
    error: FrozenMap


def _synthetic_answer(seq: int, call_id: str, call_seq: int | None) -> _SyntheticAnswer:
    """The error a repaired call reports: it may have run (recorded) or cannot have (not)."""
    if call_seq is None:
        text, error = NEVER_STARTED, ("ToolNotStartedError", "TOOL_NOT_STARTED")
    else:
        text, error = RECORDED_BUT_UNFINISHED, ("ToolOutcomeUnknownError", "TOOL_OUTCOME_UNKNOWN")
    message = ToolResultMessage(
        f"interrupted-tool-result-{call_id}-{seq}",
        ToolResultBlock(call_id, (TextBlock(text),), True),
        FrozenMap({"kind": "tool", "callId": call_id}),
    )
    return _SyntheticAnswer(message, FrozenMap({"name": error[0], "code": error[1]}))
