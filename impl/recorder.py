"""Builds the loop's events and adds them to the open unit, so every part writes them alike.

Each event gets the next seq and the clock's time. A message carried by an event is named
`m<seq>` after that event: unique within the session and the same on every run of the same
inputs, so logs can be compared and messages found again from their event.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from loopspec.impl.clock import Clock
from loopspec.impl.session_log import SessionLog
from loopspec.model.commands import HookAudit, PostVerdict, PreVerdict
from loopspec.model.config import HookSpec
from loopspec.model.events import (
    ApprovalAsked,
    ApprovalDecided,
    AssistantMessageRecorded,
    HookInvoked,
    HookResulted,
    RewriteSidecar,
    StepEnded,
    StepStarted,
    ToolCallRecorded,
    ToolResultRecorded,
    TurnEnded,
    TurnStarted,
    UserMessageRecorded,
)
from loopspec.model.jsonvalue import FrozenMap, JsonValue
from loopspec.model.messages import (
    AssistantMessage,
    ContentBlock,
    ResultContentBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultMessage,
    UserMessage,
)


@attrs.frozen
class HookSaid:
    """The audited answer of one hook run, as `hook/result` records it."""

    decision: str
    duration_ms: float
    exit_code: int | None
    stderr_summary: str | None
    updated_input: JsonValue = None

    @classmethod
    def of(
        cls,
        verdict: PreVerdict | PostVerdict,
        reason: str | None,
        audit: HookAudit | None,
        measured_ms: float,
        updated_input: JsonValue = None,
    ) -> HookSaid:
        """The record of a verdict; a runner's audit, when given, says how the hook ran."""
        if audit is None:
            return cls(verdict.TAG, measured_ms, None, reason, updated_input)
        decision = verdict.TAG if audit.decision is None else audit.decision
        return cls(
            decision, audit.duration_ms, audit.exit_code, audit.stderr_summary, updated_input
        )


class Recorder:
    """Adds well-formed events to a session log."""

    def __init__(self, log: SessionLog, clock: Clock, provider: str, model: str) -> None:
        self._log = log
        self._clock = clock
        self._model_source = FrozenMap({"kind": "model", "provider": provider, "model": model})

    def _next(self) -> tuple[int, int]:
        return self._log.next_seq, self._clock.wall_ms()

    def _message_id(self) -> str:
        return f"m{self._log.next_seq}"

    def turn_started(self, turn: int) -> None:
        """`turn/start`."""
        self._log.add(TurnStarted(*self._next(), turn))

    def turn_ended(self, turn: int, reason: FrozenMap) -> None:
        """`turn/end` with its `{kind, ...}` reason."""
        self._log.add(TurnEnded(*self._next(), turn, reason))

    def step_started(self, turn: int, step: int) -> None:
        """`step/start`."""
        self._log.add(StepStarted(*self._next(), turn, step))

    def step_ended(self, turn: int, step: int) -> None:
        """`step/end`."""
        self._log.add(StepEnded(*self._next(), turn, step))

    def user_message(self, text: str, plugin: str | None) -> None:
        """A user-role message: typed by the user, or a context a plugin produced."""
        source = {"kind": "user"} if plugin is None else {"kind": "plugin", "plugin": plugin}
        message = UserMessage(self._message_id(), (TextBlock(text),), FrozenMap(source))
        self._log.add(UserMessageRecorded(*self._next(), message))

    def assistant_message(
        self, turn: int, step: int, content: Sequence[ContentBlock], *, interrupted: bool = False
    ) -> None:
        """The model's reply for the step (tool calls carrying their effective arguments)."""
        message = AssistantMessage(self._message_id(), tuple(content), self._model_source)
        self._log.add(
            AssistantMessageRecorded(*self._next(), turn, step, message, interrupted=interrupted)
        )

    def tool_call(
        self, turn: int, step: int, call: ToolCallBlock, rewrite: RewriteSidecar | None
    ) -> int:
        """A sealed identity's audit record (`call` with its effective arguments); its seq."""
        seq, time = self._next()
        self._log.add(
            ToolCallRecorded(seq, time, turn, step, call.id, call.name, call.arguments, rewrite)
        )
        return seq

    def tool_result(
        self,
        turn: int,
        step: int,
        call_id: str,
        outcome: tuple[Sequence[ResultContentBlock], bool],
        *,
        error: FrozenMap | None,
        meta: JsonValue,
        call_seq: int,
    ) -> None:
        """A result entering the surface, citing its `tool/call`."""
        content, is_error = outcome
        block = ToolResultBlock(call_id, tuple(content), is_error)
        source = FrozenMap({"kind": "tool", "callId": call_id})
        message = ToolResultMessage(self._message_id(), block, source)
        self._log.add(
            ToolResultRecorded(
                *self._next(), turn, step, message, error=error, meta=meta, sources=(call_seq,)
            )
        )

    def hook_invoked(self, turn: int, hook: HookSpec, call_id: str) -> None:
        """Audit: a hook was run for a call."""
        seq, time = self._next()
        self._log.add(
            HookInvoked(
                seq, time, turn, hook.point, hook.dialect, hook.handler_id, hook.matcher, call_id
            )
        )

    def hook_resulted(self, turn: int, hook: HookSpec, call_id: str, said: HookSaid) -> None:
        """Audit: what the hook answered and how it ran."""
        self._log.add(
            HookResulted(
                *self._next(),
                turn,
                hook.point,
                hook.handler_id,
                said.decision,
                said.duration_ms,
                exit_code=said.exit_code,
                stderr_summary=said.stderr_summary,
                call_id=call_id,
                updated_input=said.updated_input,
            )
        )

    def approval_asked(
        self, approval_id: str, tool_name: str, call_id: str, reason: str | None, arguments: str
    ) -> None:
        """The user is asked to approve exactly `arguments`."""
        self._log.add(
            ApprovalAsked(*self._next(), approval_id, tool_name, call_id, reason, arguments)
        )

    def approval_decided(self, approval_id: str, outcome: str) -> None:
        """The approval request was answered (or cancelled)."""
        self._log.add(ApprovalDecided(*self._next(), approval_id, outcome))
