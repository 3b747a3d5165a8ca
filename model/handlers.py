"""One handler per legal (phase, command) pair; `loopspec.model.transitions` maps pairs to handlers.

Each handler receives a state whose phase has already been checked by `step`, and returns the
next state. A handler that finds the command inconsistent with the state raises
`TransitionRefused` before building anything, so a refusal never changes the state.
"""

from __future__ import annotations

import attrs

from loopspec.model.commands import (
    FINISH_CANCELLED,
    FINISH_MAX_TOKENS,
    Abort,
    ApprovalAnswers,
    Crash,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Recover,
    SubmitUser,
    ToolFinishes,
)
from loopspec.model.config import PRE_TOOL_USE
from loopspec.model.dispatch import (
    advance,
    answer_approval,
    finish_call,
    post_hooks,
    prepare_result,
)
from loopspec.model.draft import Draft
from loopspec.model.errors import TransitionRefused
from loopspec.model.events import (
    END_COMPLETED,
    END_ERROR,
    END_MAX_TOKENS,
    AssistantMessageRecorded,
    HookInvoked,
    HookResulted,
    TurnStarted,
)
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import AssistantMessage, ContentBlock, ReasoningBlock, TextBlock
from loopspec.model.records import aborted, close_step, end_turn, open_step, reason
from loopspec.model.repair import interrupted_turn_closers
from loopspec.model.rewrite import (
    commit_reply_with_calls,
    input_problem,
    supplied_input,
    verdict_reason,
)
from loopspec.model.state import (
    ASKING,
    RUNNING,
    AwaitingModel,
    Crashed,
    Dispatching,
    HookVote,
    Idle,
    LoopState,
    PendingHook,
    QueuedMessage,
    Rewriting,
)


def _refuse(state: LoopState, command: str, rule_id: str, message: str) -> TransitionRefused:
    return TransitionRefused(message, rule_id=rule_id, phase=state.phase.NAME, command=command)


def _model_source(state: LoopState) -> FrozenMap:
    return FrozenMap(
        {"kind": "model", "provider": state.config.provider, "model": state.config.model}
    )


def _append_assistant(
    draft: Draft, turn: int, step: int, content: tuple[ContentBlock, ...], *, interrupted: bool
) -> None:
    message = AssistantMessage(draft.message_id(), content, _model_source(draft.state))
    draft.add(AssistantMessageRecorded, turn, step, message, interrupted=interrupted)


def _delivered_prefix(blocks: tuple[ContentBlock, ...]) -> tuple[ContentBlock, ...]:
    """What survives an interruption: non-blank text and reasoning, never a tool call."""
    return tuple(b for b in blocks if isinstance(b, TextBlock | ReasoningBlock) and b.text.strip())


# ---------------------------------------------------------------------------------------------
# The user.


def submit_user_when_idle(state: LoopState, command: SubmitUser) -> LoopState:
    """Open a turn and its first step; parked messages come first, then the user's (TURN-1)."""
    draft = Draft(state)
    turn = state.next_turn
    draft.add(TurnStarted, turn)
    open_step(draft, turn, 1, (*state.inbox, QueuedMessage(command.text)))
    draft.set(phase=AwaitingModel(turn, 1), next_turn=turn + 1, inbox=())
    return draft.commit()


def submit_user_when_busy(state: LoopState, command: SubmitUser) -> LoopState:
    """Queue the message for the next step boundary; nothing is logged yet (rule ADJ-4)."""
    return attrs.evolve(state, inbox=(*state.inbox, QueuedMessage(command.text)))


# ---------------------------------------------------------------------------------------------
# The model.


def model_replies(state: LoopState, command: ModelReplies) -> LoopState:
    """Commit the reply, or hold it for the rewrite phase when PreToolUse hooks match."""
    phase = state.phase
    assert isinstance(phase, AwaitingModel)
    calls = command.tool_calls
    ids = [call.id for call in calls]
    if len(set(ids)) != len(ids):
        raise _refuse(state, command.NAME, "EXE-1", "tool call ids repeat within one reply")
    draft = Draft(state)
    turn, step = phase.turn, phase.step
    if command.finish == FINISH_CANCELLED:
        kept = _delivered_prefix(command.blocks)
        if kept:
            _append_assistant(draft, turn, step, kept, interrupted=True)
        close_step(draft, turn, step)
        end_turn(draft, turn, aborted("user"))
        draft.set(phase=Idle())
        return draft.commit()
    if command.finish == FINISH_MAX_TOKENS:
        # A truncated reply's tool calls are incomplete: they are dropped and nothing runs.
        content = tuple(b for b in command.blocks if isinstance(b, TextBlock | ReasoningBlock))
        _append_assistant(draft, turn, step, content, interrupted=False)
        close_step(draft, turn, step)
        end_turn(draft, turn, reason(END_MAX_TOKENS))
        draft.set(phase=Idle())
        return draft.commit()
    if not calls:
        _append_assistant(draft, turn, step, command.blocks, interrupted=False)
        close_step(draft, turn, step)
        if state.inbox:
            open_step(draft, turn, step + 1, state.inbox)
            draft.set(phase=AwaitingModel(turn, step + 1), inbox=())
        else:
            end_turn(draft, turn, reason(END_COMPLETED))
            draft.set(phase=Idle())
        return draft.commit()
    queue = tuple(
        PendingHook(index, hook)
        for index, call in enumerate(calls)
        if input_problem(call, state.config) is None
        for hook in state.config.hooks_for(PRE_TOOL_USE, call.name)
    )
    if queue:
        return attrs.evolve(state, phase=Rewriting(turn, step, command, queue))
    return _commit_batch(draft, turn, step, command, ())


def _commit_batch(
    draft: Draft, turn: int, step: int, reply: ModelReplies, votes: tuple[HookVote, ...]
) -> LoopState:
    slots = commit_reply_with_calls(draft, turn, step, reply, votes)
    draft.set(phase=advance(draft, Dispatching(turn, step, slots)))
    return draft.commit()


def model_fails(state: LoopState, command: ModelFails) -> LoopState:
    """A failed model request ends the step and the turn with `error`."""
    phase = state.phase
    assert isinstance(phase, AwaitingModel)
    draft = Draft(state)
    close_step(draft, phase.turn, phase.step)
    failure = FrozenMap({"message": command.message, "code": command.code})
    end_turn(draft, phase.turn, reason(END_ERROR, error=failure))
    draft.set(phase=Idle())
    return draft.commit()


# ---------------------------------------------------------------------------------------------
# Hooks and approvals.


def hook_answers(state: LoopState, command: HookAnswers) -> LoopState:
    """Audit one PreToolUse answer; after the last one, commit the reply atomically (RW-3)."""
    phase = state.phase
    assert isinstance(phase, Rewriting)
    pending = phase.queue[0]
    call = phase.reply.tool_calls[pending.call_index]
    hook = pending.hook
    verdict = command.verdict
    draft = Draft(state)
    draft.add(
        HookInvoked,
        phase.turn,
        PRE_TOOL_USE,
        hook.dialect,
        hook.handler_id,
        hook.matcher,
        call.id,
    )
    audit = command.audit
    draft.add(
        HookResulted,
        phase.turn,
        PRE_TOOL_USE,
        hook.handler_id,
        verdict.TAG if audit is None or audit.decision is None else audit.decision,
        0.0 if audit is None else audit.duration_ms,
        exit_code=None if audit is None else audit.exit_code,
        stderr_summary=verdict_reason(verdict) if audit is None else audit.stderr_summary,
        call_id=call.id,
        updated_input=supplied_input(verdict),
    )
    votes = (*phase.votes, HookVote(pending.call_index, hook.handler_id, verdict))
    if len(phase.queue) > 1:
        draft.set(phase=attrs.evolve(phase, queue=phase.queue[1:], votes=votes))
        return draft.commit()
    return _commit_batch(draft, phase.turn, phase.step, phase.reply, votes)


def approval_answers(state: LoopState, command: ApprovalAnswers) -> LoopState:
    """Answer the pending approval request of the batch."""
    phase = state.phase
    assert isinstance(phase, Dispatching)
    if phase.gate >= len(phase.slots) or phase.slots[phase.gate].status != ASKING:
        raise _refuse(state, command.NAME, "DEC-2", "no approval request is pending")
    draft = Draft(state)
    draft.set(phase=answer_approval(draft, phase, command.outcome))
    return draft.commit()


# ---------------------------------------------------------------------------------------------
# Tools.


def tool_finishes(state: LoopState, command: ToolFinishes) -> LoopState:
    """A running body settled: prepare its result; commit whatever prefix is now ready."""
    phase = state.phase
    assert isinstance(phase, Dispatching)
    index = next(
        (
            i
            for i, s in enumerate(phase.slots)
            if s.call_id == command.call_id and s.status == RUNNING
        ),
        None,
    )
    if index is None:
        msg = f"no running call {command.call_id!r} in this step"
        raise _refuse(state, command.NAME, "EXE-4", msg)
    draft = Draft(state)
    hooks = post_hooks(draft, phase.slots[index])
    if len(command.post) != len(hooks):
        msg = f"{len(hooks)} PostToolUse hook(s) match, {len(command.post)} verdict(s) given"
        raise _refuse(state, command.NAME, "HOOK-5", msg)
    post = tuple(zip(hooks, command.post, strict=True))
    result = prepare_result(phase.slots[index], command.outcome, post, phase.aborting)
    draft.set(phase=finish_call(draft, phase, index, result))
    return draft.commit()


# ---------------------------------------------------------------------------------------------
# Abort, crash and recovery.


def abort_awaiting_model(state: LoopState, command: Abort) -> LoopState:
    """Abort before any reply: close the step and end the turn `aborted` (ABORT-2)."""
    phase = state.phase
    assert isinstance(phase, AwaitingModel)
    draft = Draft(state)
    close_step(draft, phase.turn, phase.step)
    end_turn(draft, phase.turn, aborted(command.cause))
    draft.set(phase=Idle())
    return draft.commit()


def abort_rewriting(state: LoopState, command: Abort) -> LoopState:
    """Abort during the rewrite phase: keep the reply's text only; no call ever existed."""
    phase = state.phase
    assert isinstance(phase, Rewriting)
    draft = Draft(state)
    kept = _delivered_prefix(phase.reply.blocks)
    if kept:
        _append_assistant(draft, phase.turn, phase.step, kept, interrupted=True)
    close_step(draft, phase.turn, phase.step)
    end_turn(draft, phase.turn, aborted(command.cause))
    draft.set(phase=Idle())
    return draft.commit()


def abort_dispatching(state: LoopState, command: Abort) -> LoopState:
    """Abort the batch: no new starts; running calls drain; the rest are aborted (ABORT-1)."""
    phase = state.phase
    assert isinstance(phase, Dispatching)
    if phase.aborting is not None:
        raise _refuse(state, command.NAME, "ABORT-1", "the batch is already aborting")
    draft = Draft(state)
    draft.set(phase=advance(draft, attrs.evolve(phase, aborting=command.cause)))
    return draft.commit()


def crash(state: LoopState, command: Crash) -> LoopState:
    """Lose everything volatile; the committed log survives whole (rule LOG-8)."""
    return attrs.evolve(state, phase=Crashed(), inbox=())


def recover(state: LoopState, command: Recover) -> LoopState:
    """Append the repair closers of the open tail turn, if any (rule REC-1)."""
    closers = interrupted_turn_closers(state.log)
    if not closers:
        return attrs.evolve(state, phase=Idle())
    log = state.log + closers
    return attrs.evolve(state, log=log, commit_ends=(*state.commit_ends, len(log)), phase=Idle())
