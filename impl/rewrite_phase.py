"""The rewrite phase: PreToolUse hooks decide about every call before any identity exists.

When a reply calls tools, every PreToolUse hook that matches a call answers once (calls in
model order, hooks in configured order, rule HOOK-4), and each answer is audited as it comes
(`hook/invoked`, `hook/result` with any proposed input). Nothing of the reply is logged until
the last answer; then `seal` merges each call's answers (`loopspec.impl.policy`) and records, as one
unit, the `assistant/message` carrying the effective arguments and one `tool/call` per call,
with the rewrite sidecar where a hook's input was applied (rules RW-1 .. RW-3).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import attrs

from loopspec.impl.batch import Slot
from loopspec.impl.context import LoopContext
from loopspec.impl.policy import Vote, argument_problem, proposed_input, rule_on, stated_reason
from loopspec.impl.recorder import HookSaid
from loopspec.impl.seams import PreToolUseRequest
from loopspec.impl.tools import seal
from loopspec.impl.waiting import on_loop
from loopspec.model.commands import Allow, Ask, Deny, HookAnswers, ModelReplies, Pass
from loopspec.model.config import PRE_TOOL_USE, HookSpec
from loopspec.model.messages import ToolCallBlock

Waiter = Callable[[asyncio.Future[Any]], Awaitable[bool]]
"""Waits for a future or an abort; True when the abort came."""


class RewritePhase:
    """Asks the hooks about one reply's calls, then seals the reply."""

    def __init__(self, context: LoopContext, turn: int, step: int) -> None:
        self._ctx = context
        self._turn = turn
        self._step = step

    async def ask_hooks(self, reply: ModelReplies, wait: Waiter) -> list[Vote] | None:
        """Every matching hook's vote, or None when an abort came first."""
        ctx = self._ctx
        votes: list[Vote] = []
        for index, call in enumerate(reply.tool_calls):
            if argument_problem(call, ctx.tools.get(call.name)) is not None:
                continue  # such a call fails without policy: no hook sees it
            for hook in ctx.hooks.matching(PRE_TOOL_USE, call.name):
                started = ctx.clock.monotonic_ms()
                request = PreToolUseRequest(self._turn, hook, call)
                answer = on_loop(ctx.hook_runner.pre_tool_use(request), ctx.event_loop)
                if await wait(answer):
                    return None
                said = _pre_answer(hook, answer)
                self._audit(hook, call, said, ctx.clock.monotonic_ms() - started)
                votes.append(Vote(index, hook.handler_id, said.verdict))
        return votes

    def _audit(self, hook: HookSpec, call: ToolCallBlock, answer: HookAnswers, took: float) -> None:
        recorder = self._ctx.recorder
        recorder.hook_invoked(self._turn, hook, call.id)
        verdict = answer.verdict
        said = HookSaid.of(
            verdict, stated_reason(verdict), answer.audit, took, proposed_input(verdict)
        )
        recorder.hook_resulted(self._turn, hook, call.id, said)

    def seal(self, reply: ModelReplies, votes: list[Vote]) -> list[Slot]:
        """Record the reply with effective arguments and one `tool/call` per call (rule RW-3)."""
        ctx, turn, step = self._ctx, self._turn, self._step
        calls = reply.tool_calls
        # Each call's votes, in the order given (configured order), gathered in one pass rather
        # than by a filter over every vote per call.
        votes_by_call: list[list[Vote]] = [[] for _call in calls]
        for vote in votes:
            votes_by_call[vote.call_index].append(vote)
        rulings = {
            call.id: rule_on(call, votes_by_call[index], ctx.tools.get(call.name))
            for index, call in enumerate(calls)
        }
        effective = {
            call.id: attrs.evolve(call, arguments=rulings[call.id].arguments) for call in calls
        }
        content = [
            effective[block.id] if isinstance(block, ToolCallBlock) else block
            for block in reply.blocks
        ]
        ctx.recorder.assistant_message(turn, step, content)
        slots = []
        for call in calls:
            ruling = rulings[call.id]
            call_seq = ctx.recorder.tool_call(turn, step, effective[call.id], ruling.rewrite)
            execution = seal(turn, step, call.id, call.name, ruling.arguments, parsed=ruling.parsed)
            slots.append(Slot(execution, call_seq, ruling, ctx.tools.get(call.name)))
        return slots


# A union written in a call is built again on every call; the classes are named once here.
_PRE_VERDICTS = (Pass, Allow, Ask, Deny)


def _pre_answer(hook: HookSpec, answer: asyncio.Future[HookAnswers]) -> HookAnswers:
    """A hook's answer; a runner that failed, or answered nonsense, denies the call."""
    if answer.cancelled() or answer.exception() is not None:
        return HookAnswers(Deny(f"PreToolUse hook {hook.handler_id} failed"))
    said = answer.result()
    if isinstance(said, HookAnswers) and isinstance(said.verdict, _PRE_VERDICTS):
        return said
    return HookAnswers(Deny(f"PreToolUse hook {hook.handler_id} gave no verdict"))
