"""The pre-identity rewrite phase and the atomic three-reader commit (rules RW-1 .. RW-4).

Design: PreToolUse hooks run once per call *before* anything of the model's reply is logged.
Their answers are merged per call (deny > ask > allow > pass; rewrites by configured order),
and only then is the reply committed, in ONE commit, as:

1. `assistant/message` whose tool-call blocks carry the effective arguments (what the model
   history replays and the provider receives next request),
2. one `tool/call` per call, in model order, with the same effective arguments and, for a
   rewritten call, the sidecar `rewrite = {originalArguments, handlerIds}`,

so derived history, the audit record and presentation (which renders `tool/call.arguments`)
can never disagree, at any prefix of the log. The merged decision is carried to the
pre-execute gate, so hooks are never asked twice (rule HOOK-4).
"""

from __future__ import annotations

from typing import assert_never

import attrs

from loopspec.model.commands import Allow, Ask, Deny, ModelReplies, Pass, PreVerdict
from loopspec.model.config import LoopConfig
from loopspec.model.draft import Draft
from loopspec.model.events import AssistantMessageRecorded, RewriteSidecar, ToolCallRecorded
from loopspec.model.jsonvalue import FrozenMap, JsonValue, dumps, parse_arguments
from loopspec.model.messages import AssistantMessage, ContentBlock, ToolCallBlock
from loopspec.model.pure.decisions import (
    RANK_ALLOW,
    RANK_ASK,
    RANK_DENY,
    RANK_PASS,
    merged_rank,
    winning_rewrite,
)
from loopspec.model.state import ALLOW, ASK, DENY, CallSlot, HookVote
from loopspec.model.wording import (
    DENIED_WITHOUT_REASON,
    INVALID_INPUT,
    NOT_AN_OBJECT,
    REASON_SEPARATOR,
    REWRITE_REFUSED,
)

INVALID = "invalid"  # arguments that fail the tool's input contract: final error, no policy


@attrs.frozen
class Resolution:
    """The outcome of the rewrite phase for one call."""

    arguments: str
    sidecar: RewriteSidecar | None
    decision: str
    reason: str | None


def rank_of(verdict: PreVerdict) -> int:
    """The strictness rank of one hook answer."""
    match verdict:
        case Pass():
            return RANK_PASS
        case Allow():
            return RANK_ALLOW
        case Ask():
            return RANK_ASK
        case Deny():
            return RANK_DENY
        case _:
            assert_never(verdict)


def supplied_input(verdict: PreVerdict) -> JsonValue:
    """The replacement input a hook supplied, or None."""
    match verdict:
        case Allow() | Ask():
            return verdict.updated_input
        case Pass() | Deny():
            return None
        case _:
            assert_never(verdict)


def verdict_reason(verdict: PreVerdict) -> str | None:
    """The reason a hook gave, if any."""
    match verdict:
        case Pass():
            return None
        case Allow() | Ask() | Deny():
            return verdict.reason
        case _:
            assert_never(verdict)


def _reasons(votes: tuple[HookVote, ...], rank: int) -> str | None:
    texts = []
    for vote in votes:
        text = verdict_reason(vote.verdict)
        if rank_of(vote.verdict) == rank and text:
            texts.append(text)
    return REASON_SEPARATOR.join(texts) if texts else None


def input_problem(call: ToolCallBlock, config: LoopConfig) -> str | None:
    """Why the model's arguments cannot seal an execution, or None (rule EXE-2).

    Such a call ends as a final error without any policy: no hook sees it.
    """
    tool = config.tool(call.name)
    original = parse_arguments(call.arguments)
    if tool is not None:
        problem = tool.input_problem(original)
        return None if problem is None else INVALID_INPUT.format(tool=call.name, problem=problem)
    if not isinstance(original, FrozenMap):
        return INVALID_INPUT.format(tool=call.name, problem=NOT_AN_OBJECT)
    return None


def in_configured_order(votes: tuple[HookVote, ...], config: LoopConfig) -> tuple[HookVote, ...]:
    """The votes in the order their hooks are configured, whatever order they arrived in.

    Hooks of unknown handler ids keep their relative order after the configured ones. Merging
    by arrival would let the hook that finished last win (rule HOOK-3).
    """
    position = {hook.handler_id: index for index, hook in enumerate(config.hooks)}
    return tuple(sorted(votes, key=lambda vote: position.get(vote.handler_id, len(position))))


def resolve_call(
    call: ToolCallBlock, votes: tuple[HookVote, ...], config: LoopConfig
) -> Resolution:
    """Merge one call's hook answers into its effective arguments and pre-execute decision."""
    votes = in_configured_order(votes, config)
    problem = input_problem(call, config)
    if problem is not None:
        return Resolution(call.arguments, None, INVALID, problem)
    tool = config.tool(call.name)
    merged = merged_rank(tuple(rank_of(vote.verdict) for vote in votes))
    if merged == RANK_DENY:
        why_denied = _reasons(votes, RANK_DENY) or DENIED_WITHOUT_REASON
        return Resolution(call.arguments, None, DENY, why_denied)
    decision = ASK if merged == RANK_ASK else ALLOW
    why = _reasons(votes, RANK_ASK) if merged == RANK_ASK else None
    supplied = tuple(supplied_input(vote.verdict) is not None for vote in votes)
    winner = winning_rewrite(supplied, merged)
    if winner < 0:
        return Resolution(call.arguments, None, decision, why)
    proposed = supplied_input(votes[winner].verdict)
    problem = (
        tool.input_problem(proposed)
        if tool is not None
        else (None if isinstance(proposed, FrozenMap) else NOT_AN_OBJECT)
    )
    if problem is not None:
        refused = REWRITE_REFUSED.format(
            hook=votes[winner].handler_id, tool=call.name, problem=problem
        )
        return Resolution(call.arguments, None, DENY, refused)
    # An applied replacement is always recorded, even when it equals the original: the audit
    # must say a hook decided this input (rule RW-2).
    rewriters = tuple(vote.handler_id for vote, given in zip(votes, supplied, strict=True) if given)
    # The winner is last, so the sidecar names every proposer and ends with the one in effect.
    in_effect = votes[winner].handler_id
    ordered = (*(h for h in rewriters if h != in_effect), in_effect)
    return Resolution(dumps(proposed), RewriteSidecar(call.arguments, ordered), decision, why)


def commit_reply_with_calls(
    draft: Draft, turn: int, step: int, reply: ModelReplies, votes: tuple[HookVote, ...]
) -> tuple[CallSlot, ...]:
    """Append the reply and every call's sealed identity as one unit; return the batch slots."""
    config = draft.state.config
    calls = reply.tool_calls
    resolutions = {
        call.id: resolve_call(call, tuple(v for v in votes if v.call_index == index), config)
        for index, call in enumerate(calls)
    }
    content: list[ContentBlock] = []
    for block in reply.blocks:
        if isinstance(block, ToolCallBlock):
            content.append(attrs.evolve(block, arguments=resolutions[block.id].arguments))
        else:
            content.append(block)
    message = AssistantMessage(
        draft.message_id(), tuple(content), _model_source(config.provider, config.model)
    )
    draft.add(AssistantMessageRecorded, turn, step, message)
    slots = []
    for call in calls:
        resolution = resolutions[call.id]
        call_seq = draft.next_seq
        draft.add(
            ToolCallRecorded,
            turn,
            step,
            call.id,
            call.name,
            resolution.arguments,
            resolution.sidecar,
        )
        tool = config.tool(call.name)
        slots.append(
            CallSlot(
                call_id=call.id,
                name=call.name,
                arguments=resolution.arguments,
                call_seq=call_seq,
                decision=resolution.decision,
                reason=resolution.reason,
                concurrency_safe=tool is not None and tool.concurrency_safe,
            )
        )
    return tuple(slots)


def _model_source(provider: str, model: str) -> FrozenMap:
    return FrozenMap({"kind": "model", "provider": provider, "model": model})
