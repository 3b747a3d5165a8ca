"""The one place the loop waits for the outside world, and where a commit unit ends.

Everything the loop appends between two waits is a reaction to one outside event (a reply, a
hook answer, a finished body, an approval, an abort), and `until_any` commits it as one unit
just before the loop blocks (rule LOG-8). A wait whose futures are already done does not block
and does not end the unit. While blocked, `parked` is true: the loop needs outside input before
it can move again (tests use this to run the loop exactly until it has nothing left to do).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Collection
from typing import Any, TypeVar

from loopspec.impl.session_log import SessionLog

T = TypeVar("T")


def on_loop(answer: Awaitable[T], loop: asyncio.AbstractEventLoop) -> asyncio.Future[T]:
    """`asyncio.ensure_future(answer, loop=loop)`: the usual answer of a seam, already a future
    of `loop`, is taken as it is, without the calls `ensure_future` makes to find that out."""
    if type(answer) is asyncio.Future and answer.get_loop() is loop:
        return answer
    return asyncio.ensure_future(answer, loop=loop)


class WaitPoint:
    """Commits the open unit, then blocks until one of the given futures is done."""

    def __init__(self, log: SessionLog) -> None:
        self._log = log
        self._blocked_on: tuple[asyncio.Future[Any], ...] | None = None

    async def until_any(self, futures: Collection[asyncio.Future[Any]]) -> None:
        """Return once any of `futures` is done (at once if one already is)."""
        if not futures:
            raise ValueError("waiting on nothing would never return")
        # A plain loop, not `any` over a generator: the loop waits here once per outside
        # answer, and the generator costs more than the check.
        for future in futures:
            if future.done():
                return
        self._log.commit()
        blocked_on = self._blocked_on = tuple(futures)
        # What `asyncio.wait(..., return_when=FIRST_COMPLETED)` does, without the sets of done
        # and pending futures nobody reads: the loop waits here once per outside answer.
        # The futures' own loop (the running one), read without `get_running_loop`'s getpid().
        woken: asyncio.Future[None] = blocked_on[0].get_loop().create_future()

        def wake(_done: asyncio.Future[Any]) -> None:
            if not woken.done():
                woken.set_result(None)

        for future in blocked_on:
            future.add_done_callback(wake)
        try:
            await woken
        finally:
            for future in blocked_on:
                future.remove_done_callback(wake)
            self._blocked_on = None

    @property
    def parked(self) -> bool:
        """Blocked, and nothing it waits for has happened yet."""
        blocked_on = self._blocked_on
        if blocked_on is None:
            return False
        # Asked after every outside answer: a loop, as `all` over a generator costs more.
        for future in blocked_on:  # noqa: SIM110
            if future.done():
                return False
        return True
