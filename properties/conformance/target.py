"""What a checked implementation looks like to loopspec: a `ConformanceTarget`.

Any implementation — the bundled `impl/`, a Python loop wrapped in an adapter, a process in
another language speaking the driver protocol — is driven the same way: `reset(config)`, then
one `apply(command)` per command, each answered by an `Observation`. The reference model is a
target too (`ModelTarget`), which is how expected observations are computed.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import attrs

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.model.derive import derive_messages
from loopspec.model.errors import TransitionRefused
from loopspec.model.events import (
    AssistantMessageRecorded,
    Event,
    ToolResultRecorded,
    UserMessageRecorded,
)
from loopspec.model.replay import LogPresenter, presented_wire
from loopspec.model.state import LoopState
from loopspec.model.transitions import step
from loopspec.model.wire import event_to_wire
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.history_change import DerivedHistory, HistoryChange

SurfaceEvent = UserMessageRecorded | AssistantMessageRecorded | ToolResultRecorded


@attrs.frozen
class Observation:
    """What one command did: refused (with a rule), or the events, commits and bodies it added."""

    accepted: bool
    events: tuple[dict[str, Any], ...] = ()
    commits: tuple[int, ...] = ()
    executed: tuple[tuple[str, str], ...] = ()
    refusal_rule: str | None = None
    refusal_message: str | None = None
    # Index ranges [start, end) of `events` that must land in one commit (rule LOG-8); only
    # the model states them: a reply with tool calls together with every call's tool/call.
    atomic: tuple[tuple[int, int], ...] = ()
    # What the target's UI presented for this command's events, as ACP messages `{method,
    # params}` (capability "presentation"); None when the target does not report it.
    presented: tuple[dict[str, Any], ...] | None = None
    # How the command changed the history the target's next model request would carry
    # (capability "history"), made canonical (`history_change`); None when not reported.
    history: HistoryChange | None = None


def refused_alike(expected: Observation, actual: Observation) -> bool:
    """Whether a refusal reads the same on both sides: the model accepted the command, or the
    target names no rule for refusing it, or the model's (conform, replay and the exhaustive
    pass alike)."""
    return (
        expected.accepted
        or actual.refusal_rule is None
        or actual.refusal_rule == expected.refusal_rule
    )


def atomic_units(events: tuple[dict[str, Any], ...]) -> tuple[tuple[int, int], ...]:
    """The ranges that must commit whole: each reply with calls through its last tool/call."""
    units = []
    for start, event in enumerate(events):
        if event.get("type") != "assistant/message":
            continue
        content = event["data"]["message"]["content"]
        ids = {block["id"] for block in content if block.get("type") == "tool-call"}
        end = start + 1
        for index in range(start + 1, len(events)):
            if not ids:
                break
            if events[index].get("type") == "tool/call":
                ids.discard(events[index]["data"]["callId"])
                end = index + 1
        if end > start + 1:
            units.append((start, end))
    return tuple(units)


@runtime_checkable
class ConformanceTarget(Protocol):
    """An implementation under test."""

    name: str

    def reset(self, config: LoopConfig) -> frozenset[str]:
        """Start a fresh session; return the capabilities the implementation declares."""
        ...

    def apply(self, command: Command) -> Observation:
        """Apply one command and report what it did."""
        ...

    def close(self) -> None:
        """Release whatever the target holds (processes, files)."""
        ...


def missing_members(made: object) -> list[str]:
    """The members of `ConformanceTarget` that `made` lacks, in the Protocol's order."""
    declared = [*ConformanceTarget.__annotations__, *vars(ConformanceTarget)]
    members = [name for name in dict.fromkeys(declared) if not name.startswith("_")]
    return [name for name in members if not hasattr(made, name)]


class ModelTarget:
    """The reference model as a target: the oracle every other target is compared with."""

    name = "model"

    def __init__(self) -> None:
        self.state: LoopState | None = None
        # Whether observations carry the presentation. As a target the model declares it; as
        # the oracle it presents only for a target that reports one (capability
        # "presentation"), so nothing is compared with a target that cannot show it.
        self.presenting = True
        self._presenter = LogPresenter()
        # Whether observations carry the history (capability "history"), likewise.
        self.reporting_history = True
        self._history = DerivedHistory()

    def reset(self, config: LoopConfig) -> frozenset[str]:
        """Start from an empty log; the model has every capability."""
        self.state = LoopState(config)
        self._presenter = LogPresenter()
        self._history = DerivedHistory()
        return frozenset(CAPABILITIES)

    def apply(self, command: Command) -> Observation:
        """Step the model and describe the step."""
        before = self.state
        assert before is not None, "reset first"
        try:
            after = step(before, command)
        except TransitionRefused as refusal:
            return Observation(False, refusal_rule=refusal.rule_id, refusal_message=refusal.message)
        self.state = after
        added = after.log[len(before.log) :]
        events = tuple(event_to_wire(e) for e in added)
        presented = None
        if self.presenting:
            shown = (self._presenter.feed(event) for event in added)
            presented = tuple(presented_wire(item) for item in shown if item is not None)
        new_ends = after.commit_ends[len(before.commit_ends) :]
        starts = (len(before.log), *new_ends[:-1]) if new_ends else ()
        return Observation(
            True,
            events=events,
            atomic=atomic_units(events),
            commits=tuple(end - start for start, end in zip(starts, new_ends, strict=True)),
            executed=tuple(
                (run.call_id, run.arguments) for run in after.executions[len(before.executions) :]
            ),
            presented=presented,
            history=self._history_change(after.log, added) if self.reporting_history else None,
        )

    def _history_change(self, log: tuple[Event, ...], added: tuple[Event, ...]) -> HistoryChange:
        # Only a surface event changes what `derive_messages` gives: others skip the walk.
        if any(isinstance(event, SurfaceEvent) for event in added):
            return self._history.change(derive_messages(log))
        return self._history.unchanged()

    def close(self) -> None:
        """Nothing to release."""
        self.state = None
