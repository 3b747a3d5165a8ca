"""One turn, from the user's message to `turn/end`: model requests, rewrite phase, batches.

A step sends the history to the model and acts on the reply:

- a failed request ends the turn `error`; an abort while waiting ends it `aborted`;
- a reply the provider cut (`cancelled`) keeps only its delivered text, marked interrupted, and
  ends the turn `aborted`; a `max-tokens` reply keeps its text, drops its incomplete calls and
  ends the turn `max-tokens`;
- a reply without calls ends the step; messages that arrived meanwhile open the next step,
  otherwise the turn ends `completed`;
- a reply with calls goes through the rewrite phase (`loopspec.impl.rewrite_phase`) and only then is
  committed, in one unit with every call's sealed identity (rule RW-3) and the batch's first
  moves. An abort during the rewrite phase keeps the reply's text only: no call ever existed.

After a batch the step ends and the next one opens with whatever the inbox holds, unless the
batch was aborted, which ends the turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import attrs

from loopspec.impl.batch import Batch
from loopspec.impl.context import LoopContext, Queued
from loopspec.impl.replies import delivered_text, reply_problem, text_only
from loopspec.impl.rewrite_phase import RewritePhase
from loopspec.impl.seams import ModelRequest, ProviderFailed
from loopspec.impl.waiting import on_loop
from loopspec.model.commands import (
    FINISH_CANCELLED,
    FINISH_MAX_TOKENS,
    ModelReplies,
)
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import ContentBlock

MALFORMED_REPLY_RETRIES = 2
"""How often a malformed reply is asked for again before the turn ends in error."""


@attrs.frozen
class Aborted:
    """The turn was aborted while waiting; `cause` is who stopped it."""

    cause: str


def aborted_reason(cause: str) -> FrozenMap:
    """The `turn/end` reason of an aborted turn."""
    return FrozenMap({"kind": "aborted", "reason": FrozenMap({"kind": cause})})


def plain_reason(kind: str) -> FrozenMap:
    """A `turn/end` reason with nothing but its kind."""
    return FrozenMap({"kind": kind})


class Turn:
    """Runs one turn; the `abort` future is resolved with a cause to stop it."""

    def __init__(self, context: LoopContext, turn: int, abort: asyncio.Future[str]) -> None:
        self._ctx = context
        self._turn = turn
        self._abort = abort

    async def run(self, opening: Sequence[Queued]) -> None:
        """Open the turn with `opening` (parked messages first) and run it to `turn/end`."""
        self._ctx.recorder.turn_started(self._turn)
        step: int | None = 1
        self._open_step(1, opening)
        while step is not None:
            answer = await self._ask_model(step)
            match answer:
                case Aborted():
                    self._end(step, aborted_reason(answer.cause))
                    step = None
                case ProviderFailed():
                    failure = FrozenMap({"message": answer.message, "code": answer.code})
                    self._end(step, FrozenMap({"kind": "error", "error": failure}))
                    step = None
                case ModelReplies():
                    step = await self._act_on(step, answer)

    # -- steps -------------------------------------------------------------------------------

    def _open_step(self, step: int, messages: Sequence[Queued]) -> None:
        recorder = self._ctx.recorder
        recorder.step_started(self._turn, step)
        for message in messages:
            recorder.user_message(message.text, message.plugin)

    def _end(self, step: int, reason: FrozenMap) -> None:
        self._ctx.recorder.step_ended(self._turn, step)
        self._ctx.recorder.turn_ended(self._turn, reason)

    def _next_step(self, step: int) -> int:
        self._ctx.recorder.step_ended(self._turn, step)
        self._open_step(step + 1, self._ctx.take_inbox())
        return step + 1

    async def _act_on(self, step: int, reply: ModelReplies) -> int | None:
        """Log the reply and run what it asks for; the next step, or None when the turn ended."""
        recorder = self._ctx.recorder
        if reply.finish == FINISH_CANCELLED:
            self._keep_interrupted(step, reply.blocks)
            self._end(step, aborted_reason("user"))
            return None
        if reply.finish == FINISH_MAX_TOKENS:
            recorder.assistant_message(self._turn, step, text_only(reply.blocks))
            self._end(step, plain_reason("max-tokens"))
            return None
        if not reply.tool_calls:
            recorder.assistant_message(self._turn, step, reply.blocks)
            if self._ctx.inbox:
                return self._next_step(step)
            self._end(step, plain_reason("completed"))
            return None
        rewrite = RewritePhase(self._ctx, self._turn, step)
        votes = await rewrite.ask_hooks(reply, self._aborted_while_waiting)
        if votes is None:
            self._keep_interrupted(step, reply.blocks)
            self._end(step, aborted_reason(self._abort.result()))
            return None
        slots = rewrite.seal(reply, votes)
        cause = await Batch(self._ctx, self._turn, slots, self._abort).run()
        if cause is not None:
            self._end(step, aborted_reason(cause))
            return None
        return self._next_step(step)

    def _keep_interrupted(self, step: int, blocks: Sequence[ContentBlock]) -> None:
        kept = delivered_text(blocks)
        if kept:
            self._ctx.recorder.assistant_message(self._turn, step, kept, interrupted=True)

    # -- waiting on the outside --------------------------------------------------------------

    async def _ask_model(self, step: int) -> ModelReplies | ProviderFailed | Aborted:
        ctx = self._ctx
        ctx.log.commit()  # the request goes out only once its step is on record
        tool_names = tuple(tool.name for tool in ctx.tools.tools)
        request = ModelRequest(self._turn, step, ctx.history.messages(), tool_names)
        for _attempt in range(1 + MALFORMED_REPLY_RETRIES):
            pending = on_loop(ctx.provider.complete(request), ctx.event_loop)
            if await self._aborted_while_waiting(pending):
                return Aborted(self._abort.result())
            try:
                reply = pending.result()
            except ProviderFailed as failure:
                return failure
            except Exception as error:
                return ProviderFailed(str(error) or type(error).__name__)
            if reply_problem(reply) is None:
                return reply
        return ProviderFailed("the provider kept sending malformed replies", "MALFORMED_REPLY")

    async def _aborted_while_waiting(self, answer: asyncio.Future[Any]) -> bool:
        """Wait for `answer` or an abort; on abort (or if the loop is cancelled) drop `answer`."""
        try:
            await self._ctx.waits.until_any((answer, self._abort))
        except asyncio.CancelledError:
            answer.cancel()
            raise
        if self._abort.done():
            answer.cancel()
            return True
        return False
