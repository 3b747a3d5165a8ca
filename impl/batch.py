"""One step's tool batch: gate, approvals, parallel bodies, results in model order, abort drain.

After every outside event the batch moves as far as it can (`_move`), in this order:

1. the **gate**, in model order: an invalid or denied call gets its error result at once; a call
   that may start now (rule SCHED-1: an exclusive call runs alone, concurrency-safe calls run
   together up to `max_parallel`) is either asked about (decision `ask`: `approval/asked` with
   the effective arguments, rules DEC-2, RW-4) or started; an unknown tool fails at start;
2. after an abort, every call that never started gets `ABORTED_BEFORE_DISPATCH` (a pending
   approval is first recorded as `cancelled`), while running bodies drain (rule ABORT-1);
3. the **commit cursor**: results are appended only for the contiguous ready prefix, so they
   land in model order whatever order bodies finished in (rule ORD-3), each preceded by the
   audit of the PostToolUse hooks that judged it. Contexts a result brings are parked in the
   inbox; they open the next step, after the batch's last result (rule ADJ-4).

Write-ahead: a body starts, and an approval is requested, only after the unit recording them
(the `tool/call`, the `approval/asked`) is durable.
"""

from __future__ import annotations

import asyncio
import enum
from typing import Any

import attrs

from loopspec.impl.context import TOOL_CONTEXT_PLUGIN, LoopContext, Queued
from loopspec.impl.policy import Decision, Ruling
from loopspec.impl.recorder import HookSaid
from loopspec.impl.results import (
    ABORTED_BEFORE_DISPATCH,
    ALLOWED_ONCE,
    APPROVAL_REFUSALS,
    INVALID_INPUT,
    UNKNOWN_TOOL,
    PreparedResult,
    approval_outcome,
    error_result,
    judged_result,
    post_verdict,
    tool_outcome,
)
from loopspec.impl.seams import ApprovalRequest, PostToolUseRequest
from loopspec.impl.tools import RegisteredTool, Stage, ToolExecution
from loopspec.impl.waiting import on_loop
from loopspec.model.commands import PostBlock, PostVerdict, ToolOutcome
from loopspec.model.config import POST_TOOL_USE, HookSpec


class Status(enum.Enum):
    """Where a call is in the batch; a call only moves forward."""

    WAITING = "waiting"
    ASKING = "asking"
    RUNNING = "running"
    JUDGING = "judging"
    READY = "ready"
    COMMITTED = "committed"


@attrs.define
class Slot:
    """One sealed call of the batch and everything in flight for it."""

    execution: ToolExecution
    call_seq: int
    ruling: Ruling
    tool: RegisteredTool | None
    status: Status = Status.WAITING
    approval: asyncio.Future[str] | None = None
    body: asyncio.Future[ToolOutcome] | None = None
    finished_after_abort: bool = False
    outcome: ToolOutcome | None = None
    verdicts: list[tuple[HookSpec, asyncio.Future[PostVerdict]]] = attrs.Factory(list)
    judging_since_ms: float = 0.0
    result: PreparedResult | None = None

    @property
    def concurrency_safe(self) -> bool:
        """Whether this call may run beside other safe calls."""
        return self.tool is not None and self.tool.concurrency_safe

    @property
    def approval_id(self) -> str:
        """The id of this call's approval request."""
        return f"approval-{self.execution.call_id}"

    @property
    def busy(self) -> bool:
        """Started and not yet judged: it counts against the parallelism cap."""
        return self.status in (Status.RUNNING, Status.JUDGING)


class Batch:
    """Runs one step's sealed calls to their committed results."""

    def __init__(
        self, context: LoopContext, turn: int, slots: list[Slot], abort: asyncio.Future[str]
    ) -> None:
        self._ctx = context
        self._turn = turn
        self._slots = slots
        self._abort = abort
        self._abort_cause: str | None = None
        self._gate = 0
        self._cursor = 0

    async def run(self) -> str | None:
        """Drive the batch until every result is committed; the abort cause, if it aborted."""
        self._move()
        while self._cursor < len(self._slots):
            self._ctx.log.commit()
            self._launch()
            try:
                await self._ctx.waits.until_any(self._watched())
            except asyncio.CancelledError:
                # The loop is going away: stop what it started, and write nothing more.
                for future in self._watched():
                    if future is not self._abort:
                        future.cancel()
                raise
            self._absorb()
            self._move()
        return self._abort_cause

    # -- outside events ----------------------------------------------------------------------

    def _watched(self) -> list[asyncio.Future[Any]]:
        watched: list[asyncio.Future[Any]] = []
        if self._abort_cause is None:
            watched.append(self._abort)
        for slot in self._slots:
            if slot.status is Status.ASKING and slot.approval is not None:
                watched.append(slot.approval)
            elif slot.status is Status.RUNNING and slot.body is not None:
                watched.append(slot.body)
            elif slot.status is Status.JUDGING:
                watched.extend(future for _hook, future in slot.verdicts if not future.done())
        return watched

    def _launch(self) -> None:
        """Start what the last move decided, now that its records are committed."""
        ctx = self._ctx
        for slot in self._slots:
            if slot.status is Status.RUNNING and slot.body is None and slot.tool is not None:
                slot.execution.enter(Stage.STARTED)
                slot.body = on_loop(slot.tool.body(slot.execution), ctx.event_loop)
            elif slot.status is Status.ASKING and slot.approval is None:
                request = ApprovalRequest(slot.approval_id, slot.execution, slot.ruling.reason)
                slot.approval = on_loop(ctx.approver.request_approval(request), ctx.event_loop)

    def _absorb(self) -> None:
        """Take in every outside event that has happened, abort first, then in model order."""
        if self._abort_cause is None and self._abort.done():
            self._abort_cause = self._abort.result()
        for index, slot in enumerate(self._slots):
            if slot.status is Status.ASKING and slot.approval is not None:
                if slot.approval.done() and self._abort_cause is None:
                    self._answered(index, slot)
            elif slot.status is Status.RUNNING and slot.body is not None and slot.body.done():
                self._finished(slot)
            if slot.status is Status.JUDGING and all(f.done() for _h, f in slot.verdicts):
                self._judged(slot)

    def _answered(self, index: int, slot: Slot) -> None:
        outcome = approval_outcome(slot.approval)
        self._ctx.recorder.approval_decided(slot.approval_id, outcome)
        slot.execution.enter(Stage.DECIDED)
        if outcome == ALLOWED_ONCE:
            self._start(slot)
        else:
            name = slot.execution.tool_name
            self._ready(slot, error_result(APPROVAL_REFUSALS[outcome].format(name=name)))
        self._gate = index + 1

    def _finished(self, slot: Slot) -> None:
        assert slot.body is not None
        slot.outcome = tool_outcome(slot.body)
        slot.finished_after_abort = self._abort_cause is not None
        slot.execution.enter(Stage.FINISHED)
        ctx = self._ctx
        slot.judging_since_ms = ctx.clock.monotonic_ms()
        for hook in ctx.hooks.matching(POST_TOOL_USE, slot.execution.tool_name):
            request = PostToolUseRequest(self._turn, hook, slot.execution, slot.outcome)
            verdict = on_loop(ctx.hook_runner.post_tool_use(request), ctx.event_loop)
            slot.verdicts.append((hook, verdict))
        slot.status = Status.JUDGING

    def _judged(self, slot: Slot) -> None:
        assert slot.outcome is not None
        took = self._ctx.clock.monotonic_ms() - slot.judging_since_ms
        audit = tuple((hook, post_verdict(hook, f), took) for hook, f in slot.verdicts)
        slot.execution.enter(Stage.JUDGED)
        self._ready(slot, judged_result(slot.outcome, audit, after_abort=slot.finished_after_abort))

    # -- moving ------------------------------------------------------------------------------

    def _move(self) -> None:
        if self._abort_cause is None:
            self._open_gate()
        else:
            self._abort_unstarted()
        self._commit_ready()

    def _open_gate(self) -> None:
        while self._gate < len(self._slots):
            slot = self._slots[self._gate]
            if slot.status is not Status.WAITING:
                break  # the call at the gate waits for its approval
            ruling = slot.ruling
            if ruling.decision is Decision.INVALID:
                slot.execution.enter(Stage.DECIDED)
                self._ready(slot, error_result(ruling.reason or "", *INVALID_INPUT))
            elif ruling.decision is Decision.DENY:
                slot.execution.enter(Stage.DECIDED)
                self._ready(slot, error_result(ruling.reason or ""))
            elif not self._may_start(self._gate):
                break
            elif ruling.decision is Decision.ASK:
                execution = slot.execution
                self._ctx.recorder.approval_asked(
                    slot.approval_id,
                    execution.tool_name,
                    execution.call_id,
                    ruling.reason,
                    execution.raw_arguments,
                )
                slot.status = Status.ASKING
                break
            else:
                slot.execution.enter(Stage.DECIDED)
                self._start(slot)
            self._gate += 1

    def _may_start(self, index: int) -> bool:
        """Rule SCHED-1 for the call at `index`, given the calls before it."""
        busy = [slot for slot in self._slots[:index] if slot.busy]
        if not self._slots[index].concurrency_safe:
            return not busy
        if any(not slot.concurrency_safe for slot in busy):
            return False
        return len(busy) < self._ctx.max_parallel

    def _start(self, slot: Slot) -> None:
        if slot.tool is None:
            name = slot.execution.tool_name
            self._ready(slot, error_result(f"unknown tool {name}", *UNKNOWN_TOOL))
        else:
            slot.status = Status.RUNNING  # the body itself is launched after the commit

    def _abort_unstarted(self) -> None:
        for slot in self._slots[self._gate :]:
            if slot.status is Status.ASKING:
                self._ctx.recorder.approval_decided(slot.approval_id, "cancelled")
                if slot.approval is not None:
                    slot.approval.cancel()
            if slot.status in (Status.WAITING, Status.ASKING):
                failure = error_result(
                    "tool call aborted before dispatch", *ABORTED_BEFORE_DISPATCH
                )
                self._ready(slot, failure)
        self._gate = len(self._slots)

    def _ready(self, slot: Slot, result: PreparedResult) -> None:
        slot.result = result
        slot.status = Status.READY

    def _commit_ready(self) -> None:
        recorder = self._ctx.recorder
        while self._cursor < len(self._slots):
            slot = self._slots[self._cursor]
            if slot.status is not Status.READY:
                return
            result = slot.result
            assert result is not None
            execution = slot.execution
            for hook, verdict, took in result.audit:
                recorder.hook_invoked(self._turn, hook, execution.call_id)
                reason = verdict.reason if isinstance(verdict, PostBlock) else None
                said = HookSaid.of(verdict, reason, verdict.audit, took)
                recorder.hook_resulted(self._turn, hook, execution.call_id, said)
            recorder.tool_result(
                self._turn,
                execution.step,
                execution.call_id,
                (result.content, result.is_error),
                error=result.error,
                meta=result.meta,
                call_seq=slot.call_seq,
            )
            self._ctx.queue(Queued(text, TOOL_CONTEXT_PLUGIN) for text in result.contexts)
            execution.enter(Stage.COMMITTED)
            slot.status = Status.COMMITTED
            self._cursor += 1
