"""What the model answered after each program prefix of a conformance run, so that a prefix
Hypothesis runs again is answered from memory.

Hypothesis makes most programs by changing earlier ones, which keep their first commands: four
commands in ten that a run on the bundled loop sends (100 programs, seeds 1-2) continue a prefix
the model had already stepped through in that run. The oracle is a function of its configuration,
what it reports (`presenting`, `reporting_history`) and the commands so far, so `ModelTarget` with
an `OracleMemo` answers such a command with the observation it gave the first time, and takes up
the state, presenter and history it had after it; only a command new after its prefix is stepped.
Every command is still sent to the target and compared as before: what is saved is the model's
own work, a seventh of a run's.

Commands are looked up by `==` and hash, and a command found is taken only when its repr is the
other's too: 1, 1.0 and True are equal in Python (so are FrozenMaps holding them), and the model
writes them apart. A program that meets such a twin is not remembered from there on. (Keyed by
repr, every command paid for one: the memory cost more than it saved in a run of 25 programs.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from loopspec.model.commands import Command
    from loopspec.model.config import LoopConfig
    from loopspec.model.replay import LogPresenter
    from loopspec.model.state import LoopState
    from loopspec.properties.conformance.history_change import DerivedHistory
    from loopspec.properties.conformance.target import Observation

NODES_KEPT: Final = 5_000
"""Prefixes remembered at most; then the memory starts again. A prefix holds about 7 kB (its
state, observation, presenter and history; what it shares with others counted once), so at
most some 35 MB; a run of 100 programs on the bundled loop remembers about 1,200, and
Hypothesis changes recent programs most, which a memory started again soon holds too."""


class MemoNode:
    """One prefix: the model's answer to its last command, and where the model was after it.
    The presenter and history are never fed again: a `ModelTarget` copies them first."""

    __slots__ = ("children", "command", "history", "observation", "presenter", "state")

    def __init__(
        self,
        command: Command,
        observation: Observation,
        state: LoopState,
        presenter: LogPresenter,
        history: DerivedHistory,
    ) -> None:
        self.command = command
        self.observation = observation
        self.state = state
        self.presenter = presenter
        self.history = history
        self.children: Children = {}


Children = dict["Command", MemoNode]
"""A prefix's continuations, by the next command."""


class OracleMemo:
    """The prefixes of one run's programs, from each configuration's empty log."""

    def __init__(self, kept: int = NODES_KEPT) -> None:
        self._roots: dict[tuple[LoopConfig, bool, bool], tuple[LoopConfig, Children]] = {}
        self._nodes = 0
        self._kept = kept

    @property
    def size(self) -> int:
        """The prefixes remembered."""
        return self._nodes

    def first(
        self, config: LoopConfig, presenting: bool, reporting_history: bool
    ) -> Children | None:
        """The one-command prefixes under `config`, for an oracle reporting what the flags
        say; None when a configuration equal to it but not the same value came first."""
        key = (config, presenting, reporting_history)
        known = self._roots.get(key)
        if known is None:
            known = self._roots[key] = (config, {})
        first, children = known
        return children if first is config or repr(first) == repr(config) else None

    def remember(self, prefix: Children, after: MemoNode) -> None:
        """`after` as the prefix whose continuations are `prefix`, continued by its command."""
        if self._nodes >= self._kept:
            self._roots.clear()
            self._nodes = 0
        prefix[after.command] = after
        self._nodes += 1
