"""The loop's `HookRunner` seam, answered by real hook processes through a `HookBridge`.

The loop asks about one hook at a time, in configured order. The first question about a call
starts every matching hook for it at once (the bridge runs them concurrently and returns them
in configured order); later questions about the same call pick their hook's answer from that
one run. So hooks overlap, yet their answers reach the loop in configured order — the
determinism fix for rewrites racing by completion order.
"""

from __future__ import annotations

import asyncio

from loopspec.impl.hookbridge.bridge import HookBridge, PostHookRun, PreHookRun
from loopspec.impl.seams import PostToolUseRequest, PreToolUseRequest
from loopspec.impl.snapshot import plain
from loopspec.model.commands import HookAnswers, PostVerdict, ToolFailed, ToolSucceeded
from loopspec.model.jsonvalue import parse_arguments, thaw


class BridgeHookRunner:
    """Runs configured command hooks for the loop."""

    def __init__(self, bridge: HookBridge) -> None:
        self._bridge = bridge
        self._pre: dict[tuple[int, str], asyncio.Task[tuple[PreHookRun, ...]]] = {}
        self._post: dict[tuple[int, str], asyncio.Task[tuple[PostHookRun, ...]]] = {}

    def pre_tool_use(self, request: PreToolUseRequest) -> asyncio.Task[HookAnswers]:
        """The answer of `request.hook` for this call."""
        key = (request.turn, request.call.id)
        if key not in self._pre:
            tool_input = thaw(parse_arguments(request.call.arguments))
            self._pre[key] = asyncio.ensure_future(
                self._bridge.pre_tool_use(request.call.id, request.call.name, tool_input)
            )
        runs = self._pre[key]
        handler_id = request.hook.handler_id

        async def answer() -> HookAnswers:
            for run in await asyncio.shield(runs):
                if run.handler_id == handler_id:
                    return run.answer()
            msg = f"hook {handler_id} did not run for call {request.call.id}"
            raise LookupError(msg)

        return asyncio.ensure_future(answer())

    def post_tool_use(self, request: PostToolUseRequest) -> asyncio.Task[PostVerdict]:
        """The verdict of `request.hook` on this call's outcome."""
        execution = request.execution
        key = (request.turn, execution.call_id)
        if key not in self._post:
            outcome = request.outcome
            response: object
            if isinstance(outcome, ToolSucceeded):
                response = {"output": outcome.text}
            else:
                assert isinstance(outcome, ToolFailed)
                response = {"error": outcome.message}
            self._post[key] = asyncio.ensure_future(
                self._bridge.post_tool_use(
                    execution.call_id, execution.tool_name, plain(execution.arguments), response
                )
            )
        runs = self._post[key]
        handler_id = request.hook.handler_id

        async def verdict() -> PostVerdict:
            for run in await asyncio.shield(runs):
                if run.handler_id == handler_id:
                    return run.verdict
            msg = f"hook {handler_id} did not run for call {execution.call_id}"
            raise LookupError(msg)

        return asyncio.ensure_future(verdict())
