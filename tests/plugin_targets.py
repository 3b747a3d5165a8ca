"""Targets the pytest-plugin test points the plugin at (importable via PYTHONPATH=tests)."""

from __future__ import annotations

from typing import ClassVar

import attrs
from mutants import MUTANTS, MutantTarget

from loopspec.model.commands import Command, ModelReplies
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.target import ModelTarget, Observation


def turn_end_with_step_open() -> MutantTarget:
    """A loop that writes turn/end before step/end."""
    return MutantTarget(next(m for m in MUTANTS if m.name == "turn-end-with-step-open"))


class RaisesAtTheSecondReply(ModelTarget):
    """The model, raising inside `apply` at the second model reply of a program."""

    def __init__(self) -> None:
        super().__init__()
        self.replies = 0

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ModelReplies):
            self.replies += 1
            if self.replies == 2:
                _fail_at_the_second_reply()
        return super().apply(command)


def _fail_at_the_second_reply() -> None:
    """Raise as a loop wrapping another error in its own does: a cause under the error."""
    try:
        _read_the_reply({})
    except KeyError as missing:
        raise RuntimeError("the second reply") from missing


def _read_the_reply(reply: dict[str, str]) -> str:
    return reply["second"]


def raises_at_the_second_reply() -> RaisesAtTheSecondReply:
    """A loop that raises: a broken target, not a counterexample (SAFE-5)."""
    return RaisesAtTheSecondReply()


class _DeclaresNothing(ModelTarget):
    """The model, declaring no optional capability."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        super().reset(config)
        return frozenset()


def declares_nothing() -> ModelTarget:
    """A loop without optional features: conform never sends it an abort, a hook or a crash."""
    return _DeclaresNothing()


def completion_order_results() -> MutantTarget:
    """A loop that commits results as bodies finish (ORD-3): found after a number of programs
    that depends on the seed."""
    return MutantTarget(next(m for m in MUTANTS if m.name == "completion-order-results"))


class DivergesOnOddRuns(ModelTarget):
    """The model, except that every other program it runs drops the last event of each
    command's answer: one program answered two ways (a `reset` keeping the last session, a
    race). It does not present: section 12's examples, played first, would use its odd runs."""

    runs: ClassVar[int] = 0

    def reset(self, config: LoopConfig) -> frozenset[str]:
        DivergesOnOddRuns.runs += 1
        return super().reset(config) - {"presentation"}

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if DivergesOnOddRuns.runs % 2 and observed.events:
            return attrs.evolve(observed, events=observed.events[:-1])
        return observed
