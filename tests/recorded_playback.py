"""A conformance target that plays back what a real CLI was seen to do.

The real-CLI tests run the binary once, keep its observations, then replay the same program
under profiles that lack one known divergence: the same observations must then be blamed on
that divergence's rule. Playing them back, rather than running the binary again per profile,
keeps those checks to one CLI session each.
"""

from __future__ import annotations

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.target import Observation
from loopspec.properties.harnesses.conform_driver import CAPABILITIES


class RecordedPlayback:
    """What the real target observed, played again."""

    name = "recorded"

    def __init__(self, kept: list[Observation]) -> None:
        self._kept = iter(kept)

    def reset(self, config: LoopConfig) -> frozenset[str]:
        return frozenset(CAPABILITIES)

    def apply(self, command: Command) -> Observation:
        return next(self._kept)

    def close(self) -> None:
        """Nothing to release."""
