"""A scripted world: provider, hooks, approval channel and tool bodies that answer when told.

Every seam request becomes a pending future; a test (or the demo) resolves the oldest one of
its kind with `reply` / `fail` (the model), `answer_hook` (the next PreToolUse hook, in the
order the loop asked), `answer_approval`, or `finish` (a running body, with the verdicts of the
PostToolUse hooks that will judge it). An answer nobody waits for is refused with `NotPending`,
and nothing changes: the world refuses exactly where a real environment could not act.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable
from typing import TypeVar

from loopspec.impl.errors import MalformedReply, NotPending, WrongVerdictCount
from loopspec.impl.hooks import HookTable
from loopspec.impl.replies import reply_problem
from loopspec.impl.seams import (
    ApprovalRequest,
    ModelRequest,
    PostToolUseRequest,
    PreToolUseRequest,
    ProviderFailed,
)
from loopspec.impl.tools import RegisteredTool, ToolExecution
from loopspec.model.commands import (
    APPROVAL_OUTCOMES,
    HookAnswers,
    HookAudit,
    ModelReplies,
    PostVerdict,
    PreVerdict,
    ToolOutcome,
)
from loopspec.model.config import POST_TOOL_USE, HookSpec

T = TypeVar("T")


class ScriptedWorld:
    """Implements `Provider`, `HookRunner` and `Approver`, and serves as every tool's body."""

    def __init__(self, hooks: Iterable[HookSpec]) -> None:
        self._hooks = HookTable(hooks)
        self._model: deque[asyncio.Future[ModelReplies]] = deque()
        self._pre_hooks: deque[asyncio.Future[HookAnswers]] = deque()
        self._approvals: deque[asyncio.Future[str]] = deque()
        self._bodies: dict[str, tuple[ToolExecution, asyncio.Future[ToolOutcome]]] = {}
        self._post_verdicts: dict[str, deque[PostVerdict]] = {}
        self.requests: list[ModelRequest] = []
        self.executions: list[ToolExecution] = []

    def tool(
        self, name: str, *, concurrency_safe: bool = False, required_keys: tuple[str, ...] = ()
    ) -> RegisteredTool:
        """A tool whose body waits for `finish`."""
        return RegisteredTool(name, self._body, concurrency_safe, required_keys)

    # -- the seams the loop calls ------------------------------------------------------------

    def complete(self, request: ModelRequest) -> asyncio.Future[ModelReplies]:
        """A model request, answered by `reply` or `fail`."""
        self.requests.append(request)
        return _remember(self._model)

    def pre_tool_use(self, request: PreToolUseRequest) -> asyncio.Future[HookAnswers]:
        """A PreToolUse hook run, answered by `answer_hook`."""
        return _remember(self._pre_hooks)

    def post_tool_use(self, request: PostToolUseRequest) -> asyncio.Future[PostVerdict]:
        """A PostToolUse hook run, answered from the verdicts `finish` brought."""
        answer: asyncio.Future[PostVerdict] = asyncio.get_running_loop().create_future()
        verdicts = self._post_verdicts.get(request.execution.call_id)
        if verdicts:
            answer.set_result(verdicts.popleft())
        else:
            missing = f"no PostToolUse verdict for {request.hook.handler_id}"
            answer.set_exception(NotPending(missing))
        return answer

    def request_approval(self, request: ApprovalRequest) -> asyncio.Future[str]:
        """An approval prompt, answered by `answer_approval`."""
        return _remember(self._approvals)

    def _body(self, execution: ToolExecution) -> asyncio.Future[ToolOutcome]:
        self.executions.append(execution)
        outcome: asyncio.Future[ToolOutcome] = asyncio.get_running_loop().create_future()
        self._bodies[execution.call_id] = (execution, outcome)
        return outcome

    # -- what a test does --------------------------------------------------------------------

    def reply(self, reply: ModelReplies) -> None:
        """The model answers the pending request."""
        problem = reply_problem(reply)
        waiting = _oldest(self._model, "model request")
        if problem is not None:
            raise MalformedReply(problem)
        waiting.set_result(reply)

    def fail(self, message: str, code: str = "UNKNOWN") -> None:
        """The pending model request fails."""
        _oldest(self._model, "model request").set_exception(ProviderFailed(message, code))

    def answer_hook(self, verdict: PreVerdict, audit: HookAudit | None = None) -> None:
        """The PreToolUse hook the loop is waiting on answers (`audit`: how it ran)."""
        _oldest(self._pre_hooks, "PreToolUse hook").set_result(HookAnswers(verdict, audit))

    def answer_approval(self, outcome: str) -> None:
        """The user answers the pending approval prompt."""
        if outcome not in APPROVAL_OUTCOMES:
            raise ValueError(f"unknown approval outcome {outcome!r}")
        _oldest(self._approvals, "approval request").set_result(outcome)

    def finish(self, call_id: str, outcome: ToolOutcome, post: tuple[PostVerdict, ...]) -> None:
        """The running body of `call_id` settles; `post` holds one verdict per matching hook."""
        running = self._bodies.get(call_id)
        if running is None or running[1].done():
            raise NotPending(f"no running call {call_id!r}")
        execution, body = running
        judges = self._hooks.matching(POST_TOOL_USE, execution.tool_name)
        if len(post) != len(judges):
            msg = f"{len(judges)} PostToolUse hook(s) match, {len(post)} verdict(s) given"
            raise WrongVerdictCount(msg)
        del self._bodies[call_id]
        self._post_verdicts[call_id] = deque(post)
        body.set_result(outcome)


def _remember(pending: deque[asyncio.Future[T]]) -> asyncio.Future[T]:
    future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    pending.append(future)
    return future


def _oldest(pending: deque[asyncio.Future[T]], what: str) -> asyncio.Future[T]:
    """The oldest request still waiting (answered or cancelled ones are forgotten).

    `NotPending` if there is none. The request stays queued until it is resolved.
    """
    while pending and pending[0].done():
        pending.popleft()
    if not pending:
        raise NotPending(f"no {what} is pending")
    return pending[0]
