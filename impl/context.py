"""What one open loop's parts share: its log, seams, tables and the inbox of waiting messages."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import attrs

from loopspec.impl.clock import Clock
from loopspec.impl.history import History
from loopspec.impl.hooks import HookTable
from loopspec.impl.recorder import Recorder
from loopspec.impl.seams import Approver, HookRunner, Provider
from loopspec.impl.session_log import SessionLog
from loopspec.impl.tools import ToolRegistry
from loopspec.impl.waiting import WaitPoint

TOOL_CONTEXT_PLUGIN = "tool-context"


@attrs.frozen
class Queued:
    """A model-visible message waiting for the next step boundary (rule ADJ-4).

    `plugin` is None for what the user typed, else the plugin that produced the context.
    """

    text: str
    plugin: str | None = None


@attrs.define
class LoopContext:
    """The collaborators of one open loop."""

    log: SessionLog
    recorder: Recorder
    history: History
    waits: WaitPoint
    clock: Clock
    tools: ToolRegistry
    hooks: HookTable
    provider: Provider
    hook_runner: HookRunner
    approver: Approver
    max_parallel: int
    event_loop: asyncio.AbstractEventLoop
    inbox: list[Queued] = attrs.Factory(list)

    def queue(self, messages: Iterable[Queued]) -> None:
        """Park messages for the next step boundary, in order."""
        self.inbox.extend(messages)

    def take_inbox(self) -> list[Queued]:
        """Everything parked, oldest first; the inbox is empty afterwards."""
        taken, self.inbox = self.inbox, []
        return taken
