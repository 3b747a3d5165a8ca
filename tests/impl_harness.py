"""A scripted `impl` session for tests: one loop, one scripted world, run until settled."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from loopspec.impl.agent_loop import AgentLoop, LoopSettings
from loopspec.impl.clock import FixedClock
from loopspec.impl.log_writer import WRITTEN
from loopspec.impl.opening import SessionInfo
from loopspec.impl.presentation import Shown
from loopspec.impl.scripted import ScriptedWorld
from loopspec.impl.seams import Approver, HookRunner, Provider
from loopspec.impl.tools import RegisteredTool
from loopspec.model.events import Event
from loopspec.model.wire import event_to_wire


class Session:
    """An `AgentLoop` on a scripted world; every seam may be replaced by a real one."""

    def __init__(
        self,
        path: Path,
        tools: Iterable[RegisteredTool] | None = None,
        *,
        settings: LoopSettings | None = None,
        provider: Provider | None = None,
        hook_runner: HookRunner | None = None,
        approver: Approver | None = None,
    ) -> None:
        settings = settings or LoopSettings()
        self.world = ScriptedWorld(settings.hooks)
        self.event_loop = asyncio.new_event_loop()
        self.shown: list[Shown] = []
        self.loop = AgentLoop.open(
            path,
            settings=settings,
            tools=self.world_tools() if tools is None else tools,
            provider=provider or self.world,
            hook_runner=hook_runner or self.world,
            approver=approver or self.world,
            durability=WRITTEN,
            clock=FixedClock(0),
            session=SessionInfo("test", "/w"),
            on_shown=self.shown.append,
            event_loop=self.event_loop,
        )

    def world_tools(self) -> list[RegisteredTool]:
        """The default tools: a parallel-safe `read` and an exclusive `bash`."""
        return [
            self.world.tool("read", concurrency_safe=True, required_keys=("file_path",)),
            self.world.tool("bash", required_keys=("command",)),
        ]

    def settle(self, *, rounds: int = 1000) -> None:
        """Run the event loop until the loop waits on the outside world."""
        for _round in range(rounds):
            if self.loop.settled:
                return
            self.event_loop.run_until_complete(asyncio.sleep(0))
        raise AssertionError("the loop did not settle")

    def run_until(self, done: asyncio.Future[object]) -> None:
        """Run the event loop until `done` (for sessions with real, timed bodies)."""
        self.event_loop.run_until_complete(done)

    def types(self) -> list[str]:
        """The wire types of the committed log."""
        return [event_to_wire(event)["type"] for event in self.loop.events]

    def events(self) -> tuple[Event, ...]:
        """The committed log."""
        return self.loop.events

    def close(self) -> None:
        """Release the log and the event loop."""
        self.loop.close()
        self.event_loop.close()
