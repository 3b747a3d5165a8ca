"""The batch: pre-execute gate, approvals, parallel dispatch, model-order commit, abort drain.

`advance` is the one place a batch moves. It is called after every command that can unblock a
call and does, in order:

1. the **gate**, in model order: a denied or invalid call gets its error result at once; a call
   that may start (rule SCHED-1) is asked about (decision `ask`, rule DEC-2) or dispatched;
2. on abort, every call that never started gets `ABORTED_BEFORE_DISPATCH` (rule ABORT-1);
3. the **commit cursor**: results are appended only for the contiguous ready prefix, so they land
   in model order whatever order the bodies finished in (rule ORD-3). PostToolUse audit events
   precede the result they judge;
4. when the last result is committed, the step ends; contexts the batch produced wait in the inbox
   and open the next step (rule ADJ-4), or, after an abort, the turn ends `aborted`.
"""

from __future__ import annotations

from typing import assert_never

import attrs

from loopspec.model import wording
from loopspec.model.commands import (
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    ToolFailed,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, HookSpec
from loopspec.model.draft import Draft
from loopspec.model.events import ApprovalAsked, ApprovalDecided, HookInvoked, HookResulted
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import TextBlock
from loopspec.model.pure.decisions import commit_prefix, may_start
from loopspec.model.records import (
    ABORTED,
    ABORTED_BEFORE_DISPATCH,
    INVALID_TOOL_INPUT,
    UNKNOWN_TOOL,
    aborted,
    append_result,
    close_step,
    end_turn,
    error_info,
    error_text,
    open_step,
)
from loopspec.model.rewrite import INVALID
from loopspec.model.state import (
    ASK,
    ASKING,
    COMMITTED,
    DENY,
    READY,
    RUNNING,
    WAITING,
    AwaitingModel,
    CallSlot,
    Dispatching,
    Execution,
    Idle,
    Phase,
    PreparedResult,
    QueuedMessage,
)


def _error_result(message: str, info: FrozenMap | None = None) -> PreparedResult:
    return PreparedResult(error_text(message), is_error=True, error_info=info)


def _aborted_before_dispatch() -> PreparedResult:
    info = error_info("AbortError", ABORTED_BEFORE_DISPATCH)
    return _error_result(wording.ABORTED_BEFORE_DISPATCH, info)


def _start(draft: Draft, phase: Dispatching, slot: CallSlot) -> CallSlot:
    if draft.state.config.tool(slot.name) is None:
        info = error_info("UnknownToolError", UNKNOWN_TOOL)
        text = wording.UNKNOWN_TOOL.format(tool=slot.name)
        return attrs.evolve(slot, status=READY, result=_error_result(text, info))
    executions = draft.changes.get("executions", draft.state.executions)
    run = Execution(phase.turn, phase.step, slot.call_id, slot.arguments)
    draft.set(executions=(*executions, run))
    return attrs.evolve(slot, status=RUNNING)


def _gate(draft: Draft, phase: Dispatching) -> Dispatching:
    slots = list(phase.slots)
    gate = phase.gate
    cap = draft.state.config.max_parallel
    while gate < len(slots) and phase.aborting is None:
        slot = slots[gate]
        if slot.status == ASKING:
            break
        if slot.decision == INVALID:
            info = error_info("InvalidToolInputError", INVALID_TOOL_INPUT)
            slots[gate] = attrs.evolve(
                slot, status=READY, result=_error_result(slot.reason or "", info)
            )
            gate += 1
            continue
        if slot.decision == DENY:
            slots[gate] = attrs.evolve(slot, status=READY, result=_error_result(slot.reason or ""))
            gate += 1
            continue
        safe = tuple(s.concurrency_safe for s in slots)
        running = tuple(s.status == RUNNING for s in slots)
        if not may_start(safe, running, gate, cap):
            break
        if slot.decision == ASK and slot.status == WAITING:
            approval_id = wording.APPROVAL_ID.format(call_id=slot.call_id)
            draft.add(
                ApprovalAsked, approval_id, slot.name, slot.call_id, slot.reason, slot.arguments
            )
            slots[gate] = attrs.evolve(slot, status=ASKING, approval_id=approval_id)
            break
        slots[gate] = _start(draft, phase, slot)
        gate += 1
    return attrs.evolve(phase, slots=tuple(slots), gate=gate)


def _abort_unstarted(draft: Draft, phase: Dispatching) -> Dispatching:
    slots = list(phase.slots)
    for index in range(phase.gate, len(slots)):
        slot = slots[index]
        if slot.status == ASKING:
            approval_id = slot.approval_id or ""
            draft.add(ApprovalDecided, approval_id, "cancelled")
        if slot.status in (WAITING, ASKING):
            slots[index] = attrs.evolve(slot, status=READY, result=_aborted_before_dispatch())
    return attrs.evolve(phase, slots=tuple(slots), gate=len(slots))


def _append_post_audit(draft: Draft, turn: int, slot: CallSlot, result: PreparedResult) -> None:
    for hook, verdict in result.post:
        draft.add(
            HookInvoked,
            turn,
            POST_TOOL_USE,
            hook.dialect,
            hook.handler_id,
            hook.matcher,
            slot.call_id,
        )
        reason = verdict.reason if isinstance(verdict, PostBlock) else None
        audit = verdict.audit
        draft.add(
            HookResulted,
            turn,
            POST_TOOL_USE,
            hook.handler_id,
            verdict.TAG if audit is None or audit.decision is None else audit.decision,
            0.0 if audit is None else audit.duration_ms,
            exit_code=None if audit is None else audit.exit_code,
            stderr_summary=reason if audit is None else audit.stderr_summary,
            call_id=slot.call_id,
        )


def _commit_ready(draft: Draft, phase: Dispatching) -> Dispatching:
    slots = list(phase.slots)
    end = commit_prefix(tuple(s.status == READY for s in slots), phase.cursor)
    inbox = list(draft.inbox)
    for index in range(phase.cursor, end):
        slot = slots[index]
        result = slot.result
        assert result is not None
        _append_post_audit(draft, phase.turn, slot, result)
        append_result(
            draft,
            phase.turn,
            phase.step,
            slot.call_id,
            result.content,
            is_error=result.is_error,
            error=result.error_info,
            meta=result.meta,
            call_seq=slot.call_seq,
        )
        inbox.extend(QueuedMessage(text, plugin="tool-context") for text in result.contexts)
        slots[index] = attrs.evolve(slot, status=COMMITTED)
    draft.set(inbox=tuple(inbox))
    return attrs.evolve(phase, slots=tuple(slots), cursor=end)


def advance(draft: Draft, phase: Dispatching) -> Phase:
    """Move the batch as far as it can go without another command; return the next phase."""
    phase = _gate(draft, phase)
    if phase.aborting is not None:
        phase = _abort_unstarted(draft, phase)
    phase = _commit_ready(draft, phase)
    if phase.cursor < len(phase.slots):
        return phase
    close_step(draft, phase.turn, phase.step)
    if phase.aborting is not None:
        # Contexts stay parked in the inbox and open the next turn's first step.
        end_turn(draft, phase.turn, aborted(phase.aborting))
        return Idle()
    next_step = phase.step + 1
    open_step(draft, phase.turn, next_step, draft.inbox)
    draft.set(inbox=())
    return AwaitingModel(phase.turn, next_step)


def answer_approval(draft: Draft, phase: Dispatching, outcome: str) -> Phase:
    """Record the approval answer; `allowed-once` dispatches exactly the approved input."""
    index = phase.gate
    slot = phase.slots[index]
    approval_id = slot.approval_id or ""
    draft.add(ApprovalDecided, approval_id, outcome)
    if outcome == "allowed-once":
        started = _start(draft, phase, slot)
    else:
        denial = wording.APPROVAL_DENIALS[outcome].format(tool=slot.name)
        started = attrs.evolve(slot, status=READY, result=_error_result(denial))
    slots = (*phase.slots[:index], started, *phase.slots[index + 1 :])
    return advance(draft, attrs.evolve(phase, slots=slots, gate=index + 1))


def post_hooks(draft: Draft, slot: CallSlot) -> tuple[HookSpec, ...]:
    """The PostToolUse hooks that judge this call's result, in configured order."""
    return draft.state.config.hooks_for(POST_TOOL_USE, slot.name)


def prepare_result(
    slot: CallSlot,
    outcome: ToolSucceeded | ToolFailed,
    post: tuple[tuple[HookSpec, PostVerdict], ...],
    aborting: str | None,
) -> PreparedResult:
    """The result a finished body commits, after abort and PostToolUse decisions (DEC-3)."""
    match outcome:
        case ToolSucceeded():
            if aborting is not None:
                # A success that lands after an abort is reported as aborted (rule ABORT-1).
                info = error_info("AbortError", ABORTED)
                result = _error_result(wording.ABORTED_WHILE_RUNNING, info)
            else:
                result = PreparedResult(
                    (TextBlock(outcome.text),),
                    is_error=False,
                    meta=outcome.meta,
                    # An empty context is no context (ADJ-4), the body's own as a hook's.
                    contexts=tuple(text for text in outcome.contexts if text),
                )
        case ToolFailed():
            failure_info = (
                None if outcome.code is None else error_info(outcome.error_name, outcome.code)
            )
            result = _error_result(outcome.message, failure_info)
        case _:
            assert_never(outcome)
    blocks: list[str] = []
    blocked = False
    hook_contexts: list[str] = []
    for _hook, verdict in post:
        match verdict:
            case PostPass():
                pass
            case PostContext():
                # An empty context is no context (ADJ-4): nothing to show, and a provider
                # refuses an empty text block.
                if verdict.text:
                    hook_contexts.append(verdict.text)
            case PostBlock():
                # An empty reason says nothing, and a provider refuses an empty text block.
                if verdict.reason:
                    blocks.append(verdict.reason)
                blocked = True
            case _:
                assert_never(verdict)
    if blocked:
        # A block replaces the content and drops the body's own contexts (rule DEC-3).
        return PreparedResult(
            tuple(TextBlock(text) for text in blocks or [wording.BLOCKED_WITHOUT_REASON]),
            is_error=True,
            contexts=tuple(hook_contexts),
            post=post,
        )
    return attrs.evolve(result, contexts=result.contexts + tuple(hook_contexts), post=post)


def finish_call(draft: Draft, phase: Dispatching, index: int, result: PreparedResult) -> Phase:
    """Mark a running call's result ready and advance the batch."""
    slot = attrs.evolve(phase.slots[index], status=READY, result=result)
    slots = (*phase.slots[:index], slot, *phase.slots[index + 1 :])
    return advance(draft, attrs.evolve(phase, slots=slots))
