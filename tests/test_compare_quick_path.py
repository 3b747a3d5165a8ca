"""conform's quick comparison (`compare.same_normalized`) gives the normalized comparison's
verdict: it compares the observations' fields as they are, events but for their `time`, and
normalizes both only when they differ there."""

from __future__ import annotations

import copy
import random
from typing import Any

import attrs
from json_breaks import DROP, broken, places

from loopspec.model.commands import Command, ModelReplies, SubmitUser, ToolFinishes, ToolSucceeded
from loopspec.model.config import LoopConfig, ToolSpec
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.conformance.compare import normalized_observation, same_normalized
from loopspec.properties.conformance.target import ModelTarget, Observation

CONFIG = LoopConfig(tools=(ToolSpec("read", concurrency_safe=True),), max_parallel=2)
PROGRAM: list[Command] = [
    SubmitUser("hi"),
    ModelReplies(
        (
            TextBlock("let me look"),
            ToolCallBlock("c1", "read", '{"file_path": "a.txt", "limit": 5}'),
            ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),
        )
    ),
    ToolFinishes("c2", ToolSucceeded("B")),
    ToolFinishes("c1", ToolSucceeded("A")),
    ModelReplies((TextBlock("done"),)),
]
WRONG_VALUES: tuple[object, ...] = (None, 0, 1, 1.0, True, False, "", "x", [], {})


def _observations() -> list[Observation]:
    model = ModelTarget()
    model.reset(CONFIG)
    observations = [model.apply(command) for command in PROGRAM]
    assert all(o.accepted for o in observations)
    return observations


def _agree(expected: Observation, actual: Observation) -> bool:
    normalized = normalized_observation(expected) == normalized_observation(actual)
    assert same_normalized(expected, actual) == normalized, (expected, actual)
    return normalized


def _with_events(observation: Observation, events: list[dict[str, Any]]) -> Observation:
    return attrs.evolve(observation, events=tuple(events))


def test_MODEL_1_the_quick_comparison_passes_what_normalizing_passes() -> None:
    """Another clock, other message ids, arguments spelt otherwise, other commit sizes: the
    same observation, quickly or after normalizing."""
    for observation in _observations():
        assert _agree(observation, observation)
        events = [dict(event) for event in observation.events]
        later = [{**event, "time": int(event["time"]) + 5} for event in events]
        assert _agree(observation, _with_events(observation, later))
        assert _agree(observation, attrs.evolve(observation, commits=(len(events),)))
        fresh = copy.deepcopy(events)
        for event in fresh:
            message = event["data"].get("message")
            if isinstance(message, dict):
                message["id"] = "msg_fresh"
            if event["type"] == "tool/call":
                event["data"]["arguments"] = event["data"]["arguments"].replace(",", ", ")
        assert _agree(observation, _with_events(observation, fresh))


def test_MODEL_1_the_quick_comparison_fails_what_normalizing_fails() -> None:
    """Observations changed at random places (a value of another type or none, a key left out,
    `true` for `1`): the quick comparison's verdict is the normalized comparison's each time,
    and many of the changes are differences."""
    rng = random.Random(17)
    differ = 0
    for observation in _observations():
        events = [copy.deepcopy(dict(event)) for event in observation.events]
        paths = [path for path in places(events) if len(path) > 1]  # inside an event
        for _ in range(40 if paths else 0):
            place = rng.choice(paths)
            # A member (a key, not an index) is sometimes removed rather than changed.
            drop = isinstance(place[-1], str) and rng.random() < 0.25
            changed = broken(events, place, DROP if drop else rng.choice(WRONG_VALUES))
            differ += not _agree(observation, _with_events(observation, changed))
        if observation.executed:
            other = ((observation.executed[0][0], "{}"),)
            assert not _agree(observation, attrs.evolve(observation, executed=other))
        if observation.presented:
            assert not _agree(observation, attrs.evolve(observation, presented=()))
        refused = Observation(False, refusal_rule="MODEL-1")
        assert not _agree(observation, refused)
    assert differ >= 60
