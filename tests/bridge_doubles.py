"""An ACP bridge with one bug, held alone: the model plays the loop, and a damage function
changes each ACP message its UI is sent as that bridge would (the shape of an ACP bridge
author's target). Shared by the presentation blame tests (test_presentation_*,
test_blame_fresh_bugs_round3)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import attrs

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.target import ModelTarget, Observation

Damage = Callable[[dict[str, Any]], None]
"""Changes one presented ACP message (`{"method", "params"}`, a JSON copy) in place."""


def damaged(observed: Observation, damage: Damage) -> Observation:
    """`observed` with its presented messages copied as plain JSON and each changed by
    `damage` (the observation itself is left as it was)."""
    presented: list[dict[str, Any]] = json.loads(json.dumps(list(observed.presented or ())))
    for message in presented:
        damage(message)
    return attrs.evolve(observed, presented=tuple(presented))


def card_of(message: dict[str, Any]) -> dict[str, Any]:
    """The card a message carries: an update's, or a permission request's toolCall ({} for
    neither)."""
    params = message["params"]
    card: dict[str, Any] = params.get("update") or params.get("toolCall") or {}
    return card


class BridgeOnTheModel:
    """The model as the loop, its presented messages changed by `damage`; declares every
    capability."""

    def __init__(self, damage: Damage, name: str = "a bridge on the model") -> None:
        self.loop = ModelTarget()
        self.damage = damage
        self.name = name

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self.loop.reset(config)
        return frozenset(CAPABILITIES)

    def apply(self, command: Command) -> Observation:
        return damaged(self.loop.apply(command), self.damage)

    def close(self) -> None:
        self.loop.close()
