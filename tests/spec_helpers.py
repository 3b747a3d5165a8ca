"""Small helpers the rule tests share: run a command program, look at what it logged."""

from __future__ import annotations

from collections.abc import Iterable

from loopspec.model.commands import Command
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import Event, ToolCallRecorded, ToolResultRecorded, event_type
from loopspec.model.invariants import check_log
from loopspec.model.prefix import Violation
from loopspec.model.state import LoopState
from loopspec.model.transitions import step
from loopspec.model.wire import event_to_wire

TOOLS = (
    ToolSpec("read", concurrency_safe=True, required_keys=("file_path",)),
    ToolSpec("bash", concurrency_safe=False, required_keys=("command",)),
)
PLAIN = LoopConfig(tools=TOOLS)


def with_hooks(*hooks: HookSpec, max_parallel: int = 10) -> LoopConfig:
    """The standard tools with these hooks."""
    return LoopConfig(tools=TOOLS, hooks=hooks, max_parallel=max_parallel)


def run(config: LoopConfig, commands: Iterable[Command]) -> LoopState:
    """Apply every command in order (any refusal propagates)."""
    state = LoopState(config)
    for command in commands:
        state = step(state, command)
    return state


def types(log: Iterable[Event]) -> list[str]:
    """The wire types of a log, in order."""
    return [event_type(event) for event in log]


def calls(log: Iterable[Event]) -> list[ToolCallRecorded]:
    """The tool/call records of a log."""
    return [e for e in log if isinstance(e, ToolCallRecorded)]


def results(log: Iterable[Event]) -> list[ToolResultRecorded]:
    """The tool/result events of a log."""
    return [e for e in log if isinstance(e, ToolResultRecorded)]


def wire(log: Iterable[Event]) -> list[dict[str, object]]:
    """The wire JSON of every event."""
    return [event_to_wire(event) for event in log]


def clean(log: Iterable[Event]) -> list[Violation]:
    """Violations of the log invariants (a valid log has none)."""
    return check_log(log)
