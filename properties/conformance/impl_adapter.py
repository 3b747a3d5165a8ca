"""Driving an implementation with the model's commands, and observing what it did.

`LoopAdapter` is what the conformance machine (`loopspec.properties.stateful.impl_machine`) needs
from any
implementation: `apply` one command (raising `AdapterRefused` when the implementation refuses
it, having changed nothing) and `observe` everything comparable with the model. `ImplAdapter`
is the adapter for `impl`. It maps each command onto the implementation's real inputs:

| command          | what the adapter does                                                   |
|------------------|-------------------------------------------------------------------------|
| SubmitUser       | `AgentLoop.submit(text)`                                                |
| ModelReplies     | the scripted provider answers the pending request (`ScriptedWorld.reply`) |
| ModelFails       | the pending request fails (`ScriptedWorld.fail`)                        |
| HookAnswers      | the PreToolUse hook the loop waits on answers (`answer_hook`)           |
| ApprovalAnswers  | the pending approval prompt is answered (`answer_approval`)             |
| ToolFinishes     | that call's body settles, with its PostToolUse verdicts (`finish`)      |
| Abort            | `AgentLoop.abort(cause)`                                                |
| Crash            | the loop is discarded as a dying process would be; the file stays       |
| Recover          | a fresh loop opens the same file (tail cut, crash repaired)             |

After every command the adapter runs the event loop until the implementation is settled
(waiting on outside input). The log is observed from the file on disk, so every step also
checks that what is durable is what the live loop committed: `observe` reads it back with the
implementation's own reader; `observe_added` holds the bytes appended since its last call to the
reference spelling of the events the loop committed (`encode_event(event_to_wire(event))`,
framed into units), byte for byte, and reads them with the reader only when they differ (or
the loop is down), to say what differs. Time is not compared with the model's (a real
implementation stamps its clock's time); here the clock moves on a millisecond per event from
the configuration's epoch, across a crash too, so that the target's log is held to what REC-1
says of the times repair stamps.

`observe` gives the whole state (log, history, presentation live and replayed, body runs);
`observe_added` only what the log and the bodies gained since its last call, reading only the
bytes appended since — what a conformance run compares after each command, at a cost that does
not grow with the log.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import selectors
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, assert_never

import attrs

from loopspec.impl.agent_loop import AgentLoop, LoopSettings
from loopspec.impl.clock import TickingClock
from loopspec.impl.errors import Refused
from loopspec.impl.framing import UNIT_KEY, close_lines, encode_event
from loopspec.impl.history import History
from loopspec.impl.log_reader import parse_unit_wires, read_log
from loopspec.impl.log_writer import UNSYNCED, Durability
from loopspec.impl.opening import SessionInfo
from loopspec.impl.presentation import ApprovalPrompt, Audience, CallCard, ResultCard, Shown, replay
from loopspec.impl.scripted import ScriptedWorld
from loopspec.impl.session_log import SessionLog, UnitListener
from loopspec.impl.tools import ToolExecution
from loopspec.model.commands import (
    Abort,
    ApprovalAnswers,
    Command,
    Crash,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Recover,
    SubmitUser,
    ToolFinishes,
)
from loopspec.model.config import LoopConfig
from loopspec.model.messages import Message
from loopspec.model.wire import event_to_wire

SETTLE_ROUNDS = 1000
SETTLE_ITERATIONS = 3000  # event-loop iterations, across a command's rounds, before it gives up
SESSION = SessionInfo("session", "/workspace")
"""The session the model's presentation defaults to, so ACP payloads compare directly."""

WireObject = dict[str, Any]


class AdapterRefused(Exception):
    """The implementation refused the command and, by contract, changed nothing."""


@attrs.frozen
class ShownItem:
    """One presentation item in a form every implementation can give: kind, seq, call, payload.

    `view` is the render intent when the implementation exposes it (None for prompts, or when
    it only speaks ACP); `payload` is the ACP params it emitted.
    """

    kind: str
    seq: int
    call_id: str
    view: object
    payload: object


@attrs.frozen
class ExecutionSeen:
    """A tool body that ran: its call and the arguments it received (raw text and parsed)."""

    turn: int
    step: int
    call_id: str
    raw_arguments: str
    parsed_arguments: object


@attrs.frozen
class Added:
    """What an implementation did since the last look: events appended to its log (wire),
    where the commit units among them end (counted over the whole log), and bodies run."""

    events: tuple[WireObject, ...]
    unit_ends: tuple[int, ...]
    executions: tuple[ExecutionSeen, ...]
    # What the live presentation emitted since the last look, in order.
    shown: tuple[ShownItem, ...] = ()
    # The messages the live loop's next model request would carry; None while it is down.
    history: tuple[Message, ...] | None = None


@attrs.frozen
class Observation:
    """Everything about an implementation the machine compares with the model."""

    log: tuple[WireObject, ...]
    unit_ends: tuple[int, ...]
    history: tuple[Message, ...]
    shown_live: tuple[ShownItem, ...]
    shown_on_replay: tuple[ShownItem, ...]
    executions: tuple[ExecutionSeen, ...]


class LoopAdapter(Protocol):
    """What the conformance machine needs from an implementation under test."""

    def apply(self, command: Command) -> None:
        """Apply `command`, then run until settled; `AdapterRefused` if it was refused."""

    def observe(self) -> Observation:
        """The implementation's state, as comparable data."""

    def close(self) -> None:
        """Release everything (files, event loops)."""


AdapterFactory = Callable[[LoopConfig, Path], LoopAdapter]
"""Builds an adapter for a configuration, working in a fresh directory."""


def shown_item(shown: Shown) -> ShownItem:
    """The comparable form of one of `impl`'s presentation items."""
    match shown:
        case CallCard():
            return ShownItem("call", shown.seq, shown.call_id, shown.view, shown.update)
        case ApprovalPrompt():
            return ShownItem("approval", shown.seq, shown.call_id, None, shown.request)
        case ResultCard():
            return ShownItem("result", shown.seq, shown.call_id, shown.view, shown.update)
        case _:
            assert_never(shown)


def presented_message(item: ShownItem) -> WireObject:
    """A shown item as the driver protocol reports it: the ACP message, `{method, params}`."""
    method = "session/request_permission" if item.kind == "approval" else "session/update"
    return {"method": method, "params": item.payload}


def execution_seen(execution: ToolExecution) -> ExecutionSeen:
    """The comparable form of a body run."""
    return ExecutionSeen(
        execution.turn,
        execution.step,
        execution.call_id,
        execution.raw_arguments,
        execution.arguments,
    )


class _NoIdlePolling(selectors.DefaultSelector):
    """The adapter's event loop's selector: a poll that may not wait (timeout 0) while nothing
    but the loop's own wake-up socket is registered is skipped. `impl` on a scripted world does
    no I/O, and the wake-up socket only wakes a loop blocked in a wait; the skipped poll was a
    system call per event-loop iteration, several per command.

    While it settles a loop (`_SettlingEventLoop.run_until_idle`), a poll asked to wait stops
    the loop instead: the event loop asks for a wait (a timeout other than 0) exactly when no
    callback is due, only outside input or a timer can move it. So the adapter learns that
    without reading asyncio's private queue of due callbacks."""

    def __init__(self) -> None:
        super().__init__()
        self._settling: asyncio.AbstractEventLoop | None = None
        self._busy_left = 0  # iterations with a callback due the settle may still begin
        self.busy = 0  # those it began

    def settle(self, loop: asyncio.AbstractEventLoop, busy_left: int) -> None:
        """Stop `loop` at its first iteration with no callback due, or once `busy_left`
        iterations with one have begun."""
        self._settling, self._busy_left, self.busy = loop, busy_left, 0

    def settled(self) -> None:
        """Poll as ever again."""
        self._settling = None

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        settling = self._settling
        if settling is not None:
            if timeout != 0 or self.busy >= self._busy_left:
                self._settling = None
                settling.stop()  # the iteration runs nothing more: none is due, or the cap hit
                return []
            self.busy += 1
        if timeout == 0 and len(self.get_map()) <= 1:
            return []
        return super().select(timeout)


class _SettlingEventLoop(asyncio.SelectorEventLoop):
    """An event loop on a `_NoIdlePolling` selector, which it can run until no callback is due."""

    def __init__(self) -> None:
        self._polling = _NoIdlePolling()
        super().__init__(self._polling)

    def run_until_idle(self, busy_left: int) -> int:
        """Run until an iteration begins with no callback due (the loop can then move only on
        outside input), or `busy_left` iterations with one have begun; how many of those did."""
        self._polling.settle(self, busy_left)
        try:
            self.run_forever()
        finally:
            self._polling.settled()
        return self._polling.busy


# Event loops that programs ended with nothing left to run, for the next programs: making one
# (a wake-up socket pair, an epoll instance, their registration) and closing it cost more than
# a short program's commands. Closed when the process exits.
_IDLE_EVENT_LOOPS: list[_SettlingEventLoop] = []
_IDLE_EVENT_LOOPS_KEPT = 4  # several adapters may be open at once; more are closed


def _event_loop() -> _SettlingEventLoop:
    """An event loop with nothing scheduled: one an ended program left, else a new one."""
    if _IDLE_EVENT_LOOPS:
        return _IDLE_EVENT_LOOPS.pop()
    return _SettlingEventLoop()


def _give_back(loop: _SettlingEventLoop) -> None:
    """Keep `loop` for the next program when nothing is left on it to run (no task, no
    callback, no timer), so no program can see another's leftovers; else close it."""
    # `_ready` and `_scheduled` are asyncio's own queues (no public way to ask); an event loop
    # without them is taken for a busy one, and closed.
    quiet = (
        not asyncio.all_tasks(loop)
        and not getattr(loop, "_ready", True)
        and not getattr(loop, "_scheduled", True)
    )
    if quiet and len(_IDLE_EVENT_LOOPS) < _IDLE_EVENT_LOOPS_KEPT:
        _IDLE_EVENT_LOOPS.append(loop)
    else:
        loop.close()


@atexit.register
def _close_idle_event_loops() -> None:
    while _IDLE_EVENT_LOOPS:
        _IDLE_EVENT_LOOPS.pop().close()


class ImplAdapter:
    """Runs `impl.AgentLoop` on a scripted world and a log file in `workdir`."""

    def __init__(
        self,
        config: LoopConfig,
        workdir: Path,
        *,
        durability: Durability = UNSYNCED,
        on_commit: UnitListener | None = None,
        log_name: str = "session.jsonl",
    ) -> None:
        self._config = config
        self._path = workdir / log_name
        self._durability = durability
        self._on_commit = on_commit
        self._event_loop = _event_loop()
        self._released = False  # the event loop given back (`close`)
        self._shown: list[Shown] = []
        self._earlier_runs: list[ToolExecution] = []
        # One clock for every loop that opens the log: a reopened one goes on from its time.
        self._clock = TickingClock(config.epoch_ms)
        self._world, agent = self._open()
        self._agent: AgentLoop | None = agent
        # How far `observe_added` has read: bytes of the file, events, body runs.
        self._read_bytes = 0
        self._read_events = 0
        self._read_runs = 0
        self._read_shown = 0
        self._reader: int | None = None  # a read-only descriptor of the log, once opened

    def _open(self) -> tuple[ScriptedWorld, AgentLoop]:
        config = self._config
        world = ScriptedWorld(config.hooks)
        tools = [
            world.tool(
                spec.name, concurrency_safe=spec.concurrency_safe, required_keys=spec.required_keys
            )
            for spec in config.tools
        ]
        settings = LoopSettings(config.hooks, config.max_parallel, config.provider, config.model)
        agent = AgentLoop.open(
            self._path,
            settings=settings,
            tools=tools,
            provider=world,
            hook_runner=world,
            approver=world,
            durability=self._durability,
            clock=self._clock,
            session=SESSION,
            on_shown=self._shown.append,
            event_loop=self._event_loop,
        )
        if self._on_commit is not None:
            agent.log.subscribe(self._on_commit)
        return world, agent

    def _live(self) -> tuple[ScriptedWorld, AgentLoop]:
        if self._agent is None:
            raise AdapterRefused("the implementation is down (crashed)")
        return self._world, self._agent

    def apply(self, command: Command) -> None:
        """Map `command` onto the implementation's inputs, then settle."""
        try:
            self._dispatch(command)
        except Refused as refusal:
            raise AdapterRefused(f"{type(refusal).__name__}: {refusal}") from refusal
        self._settle()

    def _dispatch(self, command: Command) -> None:
        match command:
            case SubmitUser():
                self._live()[1].submit(command.text)
            case ModelReplies():
                self._live()[0].reply(command)
            case ModelFails():
                self._live()[0].fail(command.message, command.code)
            case HookAnswers():
                self._live()[0].answer_hook(command.verdict, command.audit)
            case ApprovalAnswers():
                self._live()[0].answer_approval(command.outcome)
            case ToolFinishes():
                self._live()[0].finish(command.call_id, command.outcome, command.post)
            case Abort():
                self._live()[1].abort(command.cause)
            case Crash():
                self._crash()
            case Recover():
                # While a loop is alive, the new one is refused by the file lock, not by us.
                world, agent = self._open()
                self._earlier_runs.extend(self._world.executions)
                self._world, self._agent = world, agent
            case _:
                assert_never(command)

    def _crash(self) -> None:
        self._live()[1].discard()
        pending = asyncio.all_tasks(self._event_loop)
        if pending:
            gathered = asyncio.gather(*pending, return_exceptions=True)
            self._event_loop.run_until_complete(gathered)
        self._agent = None

    def _settle(self) -> None:
        loop = self._event_loop
        busy_left = SETTLE_ITERATIONS
        # A round runs the event loop until no callback is due: most commands take two
        # iterations, a woken future's callback, then the turn's step up to its next wait.
        for _round in range(SETTLE_ROUNDS):
            if self._agent is None or self._agent.settled:
                return
            busy_left -= loop.run_until_idle(busy_left)
        raise AssertionError(f"the loop did not settle within {SETTLE_ROUNDS} rounds")

    def observe(self) -> Observation:
        """Read the durable log back and collect what was shown and run."""
        parsed = read_log(self._path)
        history = History(parsed.events).messages()
        if self._agent is not None:
            in_memory = [event_to_wire(event) for event in self._agent.events]
            on_disk = [event_to_wire(event) for event in parsed.events]
            assert in_memory == on_disk, "the file does not hold what the loop committed"
            assert self._agent.history.messages() == history, "live history differs from replay"
        replayed = replay(parsed.events, Audience(SESSION.id, SESSION.cwd))
        runs = [*self._earlier_runs, *self._world.executions]
        return Observation(
            log=tuple(event_to_wire(event) for event in parsed.events),
            unit_ends=parsed.unit_ends,
            history=history,
            shown_live=tuple(shown_item(item) for item in self._shown),
            shown_on_replay=tuple(shown_item(item) for item in replayed),
            executions=tuple(execution_seen(run) for run in runs),
        )

    def observe_added(self) -> Added:
        """The events and body runs since the last call, reading only the bytes appended since.

        The new events on disk must be the ones the live loop committed last (checked on the
        delta only, `_as_spelled`, else by reading it back). The first call reads the header
        too.
        """
        if self._reader is None:  # opened once: the loop only appends to (or cuts) the file
            self._reader = os.open(self._path, os.O_RDONLY | os.O_CLOEXEC)
        data = _read_from(self._reader, self._read_bytes)
        if self._read_bytes == 0:
            header_end = data.find(b"\n") + 1
            if not header_end:
                history = None if self._agent is None else self._agent.history.messages()
                return Added((), (), self._added_runs(), self._added_shown(), history)
            self._read_bytes = header_end
            data = data[header_end:]
        first = self._read_events
        agent = self._agent
        # Most commands: the appended bytes are the reference spelling of what the live loop
        # committed, and need not be parsed to be held to it (`_as_spelled`).
        spelled = None if agent is None else _as_spelled(agent.log, first, data)
        if agent is not None and spelled is not None:
            wires, ends, size = spelled
            self._read_bytes += size
            self._read_events += len(wires)
            return Added(
                wires,
                tuple(first + end for end in ends),
                self._added_runs(),
                self._added_shown(),
                agent.history.messages(),
            )
        # The lines are held to the wire objects of the events the live loop committed, so
        # they need not be rebuilt as events first only to be turned back.
        on_disk, ends, size = parse_unit_wires(data, first_seq=first, first_line=first + 2)
        self._read_bytes += size
        self._read_events += len(on_disk)
        wires = tuple(on_disk)
        if self._agent is not None and wires:
            live = self._agent.log.events_between(first, first + len(wires))
            in_memory = [event_to_wire(event) for event in live]
            assert in_memory == on_disk, "the file does not hold what the loop committed"
        return Added(
            wires,
            tuple(first + end for end in ends),
            self._added_runs(),
            self._added_shown(),
            None if self._agent is None else self._agent.history.messages(),
        )

    def _added_shown(self) -> tuple[ShownItem, ...]:
        added = self._shown[self._read_shown :]
        self._read_shown = len(self._shown)
        return tuple(shown_item(item) for item in added)

    def _added_runs(self) -> tuple[ExecutionSeen, ...]:
        runs = [*self._earlier_runs, *self._world.executions]
        added = runs[self._read_runs :]
        self._read_runs = len(runs)
        return tuple(execution_seen(run) for run in added)

    def close(self) -> None:
        """Discard the loop and give its event loop back (or close it)."""
        if self._agent is not None:
            self._crash()
        if not self._released:  # a second close must not hand the event loop out twice
            self._released = True
            _give_back(self._event_loop)
        if self._reader is not None:
            os.close(self._reader)
            self._reader = None


def _as_spelled(
    log: SessionLog, first: int, data: bytes
) -> tuple[tuple[WireObject, ...], list[int], int] | None:
    """The wire objects of the units the live `log` committed from event `first` on, where
    those units end (counted from `first`) and their bytes, when `data` (the file's bytes from
    that event on) is exactly their reference spelling: each event's
    `encode_event(event_to_wire(event))`, framed as `close_lines` frames a unit. None when it
    is not, or when a line would not read back as its event (a seq out of order, an event whose
    own fields hold the unit marker's key): the caller then reads `data` with the
    implementation's reader, which says what differs.

    Bytes equal to that spelling read back, line by line, as those wire objects and markers,
    with no key given twice, so this holds the file to everything reading it back does, and to
    the byte; it spares the parse and the check for repeated keys of every line."""
    ends = log.unit_ends_after(first)
    if not ends:
        return ((), [], 0) if not data else None
    events = log.events_between(first, ends[-1])
    wires = tuple(event_to_wire(event) for event in events)
    units: list[bytes] = []
    start = first
    for end in ends:
        parts: list[bytes] = []
        for seq in range(start, end):
            wire = wires[seq - first]
            if events[seq - first].seq != seq or UNIT_KEY in wire:
                return None
            parts += (encode_event(wire)[:-1], b"")
        units.append(close_lines(parts))
        start = end
    spelled = b"".join(units)
    if spelled != data:
        return None
    return wires, [end - first for end in ends], len(spelled)


_READ_CHUNK = 1 << 16
"""Bytes asked for per read: more than a command appends, so one `pread` reads its bytes."""


def _read_from(descriptor: int, offset: int) -> bytes:
    """The file's bytes from `offset` to its end: `pread`s, no seek, no size asked first (a
    regular file's read comes back short only at its end)."""
    chunk = os.pread(descriptor, _READ_CHUNK, offset)
    if len(chunk) < _READ_CHUNK:
        return chunk
    chunks = [chunk]
    while len(chunk) == _READ_CHUNK:
        offset += len(chunk)
        chunk = os.pread(descriptor, _READ_CHUNK, offset)
        chunks.append(chunk)
    return b"".join(chunks)


def impl_adapter(config: LoopConfig, workdir: Path) -> LoopAdapter:
    """The `AdapterFactory` for `impl`."""
    return ImplAdapter(config, workdir)
