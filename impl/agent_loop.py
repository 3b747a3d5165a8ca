"""`AgentLoop`: one open session of the tool-call loop, on asyncio.

Open it on a log file with the seams (provider, hook runner, approver) and the tools; then feed
it user messages with `submit` and stop it with `abort`. Opening repairs a crash: the torn tail
is cut and the turn a crash left open is closed (see `loopspec.impl.opening`,
`loopspec.impl.repair`).

- `submit` opens a turn when none runs (parked messages first, then this one, rule TURN-1);
  during a turn the message waits for the next step boundary (rule ADJ-4).
- `abort` stops the running turn (rules ABORT-1, ABORT-2); it is refused when no turn runs or
  the turn is already aborting.
- `settled` says whether the loop is waiting for the outside world with nothing left to do.
- Every shown item (call cards, prompts, results) goes to `on_shown` as its unit commits.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable
from pathlib import Path

import attrs

from loopspec.impl.clock import Clock, SystemClock
from loopspec.impl.context import LoopContext, Queued
from loopspec.impl.errors import AlreadyAborting, LoopDiscarded, NothingToAbort
from loopspec.impl.history import History
from loopspec.impl.hooks import HookTable
from loopspec.impl.log_reader import TailDamage
from loopspec.impl.log_writer import SYNCED, Durability, UnitWriter
from loopspec.impl.opening import SessionInfo, open_log
from loopspec.impl.presentation import Audience, Presentation, ShownSink
from loopspec.impl.recorder import Recorder
from loopspec.impl.repair import closers
from loopspec.impl.seams import Approver, HookRunner, Provider
from loopspec.impl.session_log import SessionLog
from loopspec.impl.tools import RegisteredTool, ToolRegistry
from loopspec.impl.turn import Turn
from loopspec.impl.waiting import WaitPoint
from loopspec.model.commands import ABORT_CAUSES
from loopspec.model.config import HookSpec
from loopspec.model.events import Event, TurnStarted


@attrs.frozen
class LoopSettings:
    """How the loop behaves: its hooks (in order), its parallelism, whom it names as model."""

    hooks: tuple[HookSpec, ...] = ()
    max_parallel: int = 10
    provider: str = "scripted"
    model: str = "scripted-model"
    terminal_client: bool = False

    def __attrs_post_init__(self) -> None:
        if self.max_parallel < 1:
            raise ValueError("max_parallel must be at least 1")


@attrs.frozen
class Recovery:
    """What opening found: damage cut from the tail, and closers appended for an open turn."""

    damage: TailDamage
    repair_events: int


@attrs.define
class _RunningTurn:
    abort: asyncio.Future[str]
    task: asyncio.Task[None]


class AgentLoop:
    """An open session; build it with `AgentLoop.open`."""

    def __init__(
        self,
        context: LoopContext,
        writer: UnitWriter,
        recovery: Recovery,
        next_turn: int,
    ) -> None:
        self._ctx = context
        self._writer = writer
        self.recovery = recovery
        self._next_turn = next_turn
        self._running: _RunningTurn | None = None
        self._discarded = False

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        settings: LoopSettings,
        tools: Iterable[RegisteredTool],
        provider: Provider,
        hook_runner: HookRunner,
        approver: Approver,
        durability: Durability = SYNCED,
        clock: Clock | None = None,
        session: SessionInfo | None = None,
        on_shown: ShownSink | None = None,
        event_loop: asyncio.AbstractEventLoop | None = None,
    ) -> AgentLoop:
        """Open (or create) the session log at `path` and repair a crash tail.

        The loop runs on `event_loop` (by default the running one). `SessionLocked` if another
        live loop holds the file; `CorruptLog` if it holds damage a crash cannot explain.
        """
        clock = clock or SystemClock()
        info = session or SessionInfo(uuid.uuid4().hex, str(Path.cwd()))
        # Everything that can refuse the configuration does so before the file is locked.
        registry, hooks = ToolRegistry(tools), HookTable(settings.hooks)
        running_on = event_loop or asyncio.get_running_loop()
        opened = open_log(path, durability, info, clock)
        log = opened.log
        previous = log.events
        history = History(previous)
        log.subscribe(history.feed)
        header = opened.header
        audience = Audience(header.id, header.cwd, settings.terminal_client)
        presentation = Presentation(audience, on_shown)
        presentation.remember(previous)
        log.subscribe(presentation.show)
        context = LoopContext(
            log=log,
            recorder=Recorder(log, clock, settings.provider, settings.model),
            history=history,
            waits=WaitPoint(log),
            clock=clock,
            tools=registry,
            hooks=hooks,
            provider=provider,
            hook_runner=hook_runner,
            approver=approver,
            max_parallel=settings.max_parallel,
            event_loop=running_on,
        )
        repairs = closers(previous)
        for event in repairs:
            log.add(event)
        log.commit()
        recovery = Recovery(opened.damage, len(repairs))
        return cls(context, opened.writer, recovery, _last_turn(previous) + 1)

    # -- inputs ------------------------------------------------------------------------------

    def submit(self, text: str) -> None:
        """The user sends `text`: it opens a turn, or waits for the next step boundary."""
        self._check_alive()
        ctx = self._ctx
        if self._running is not None:
            ctx.queue([Queued(text)])
            return
        opening = [*ctx.take_inbox(), Queued(text)]
        abort: asyncio.Future[str] = ctx.event_loop.create_future()
        turn = Turn(ctx, self._next_turn, abort)
        self._next_turn += 1
        task = ctx.event_loop.create_task(self._drive(turn, opening))
        self._running = _RunningTurn(abort, task)

    def abort(self, cause: str = "user") -> None:
        """Stop the running turn; refused when none runs or it is already aborting."""
        self._check_alive()
        if cause not in ABORT_CAUSES:
            raise ValueError(f"unknown abort cause {cause!r}")
        if self._running is None:
            raise NothingToAbort("no turn is running")
        if self._running.abort.done():
            raise AlreadyAborting("the turn is already aborting")
        self._running.abort.set_result(cause)

    async def _drive(self, turn: Turn, opening: list[Queued]) -> None:
        await turn.run(opening)
        self._ctx.log.commit()
        self._running = None

    # -- state -------------------------------------------------------------------------------

    @property
    def settled(self) -> bool:
        """Waiting for the outside world with nothing left to do (re-raises a crashed turn)."""
        if self._running is None:
            return True
        task = self._running.task
        if task.done():
            task.result()  # a turn that died of a bug must not pass for a quiet loop
            return True
        return self._ctx.waits.parked

    @property
    def turn_running(self) -> bool:
        """Whether a turn is open (it may be waiting on a hook, a tool or the model)."""
        if self._running is not None and self._running.task.done():
            self._running.task.result()  # surface a turn that died of a bug
        return self._running is not None

    @property
    def events(self) -> tuple[Event, ...]:
        """The committed log."""
        return tuple(self._ctx.log.events)

    @property
    def unit_ends(self) -> tuple[int, ...]:
        """Where each committed unit ended."""
        return self._ctx.log.unit_ends

    @property
    def history(self) -> History:
        """The model-visible history of the committed log."""
        return self._ctx.history

    @property
    def log(self) -> SessionLog:
        """The session log (subscribe to it to follow commits)."""
        return self._ctx.log

    # -- ending ------------------------------------------------------------------------------

    def close(self) -> None:
        """Write what is buffered and release the log; a running turn is abandoned."""
        if not self._discarded:
            self._stop_turn()
            self._ctx.log.discard()
            self._writer.close()
            self._discarded = True

    def discard(self) -> None:
        """Drop the loop as a dying process would: nothing more is written or flushed."""
        if not self._discarded:
            self._stop_turn()
            self._ctx.log.discard()
            self._writer.abandon()
            self._discarded = True

    def _stop_turn(self) -> None:
        if self._running is not None:
            self._running.task.cancel()
            self._running = None

    def _check_alive(self) -> None:
        if self._discarded:
            raise LoopDiscarded("this loop was closed")


def _last_turn(events: Iterable[Event]) -> int:
    last = 0
    for event in events:
        if isinstance(event, TurnStarted):
            last = event.turn
    return last
