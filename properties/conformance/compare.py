"""Comparing one observation of a target with the model's: what compares, and how it shows.

What may differ freely is normalized away first: `time` and message ids (implementations use
clocks and UUIDs; approval ids are part of the contract, SPEC §2), how arguments are serialized
(compared as the JSON values they denote), events outside the spec's vocabulary, seqs and seq
citations (they count those events too). Naming the rule a difference breaks is `blame`'s job
(`blame.classify`).
"""

from __future__ import annotations

from typing import Any

import attrs

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.model.errors import tagged
from loopspec.model.events import CORE_TYPES
from loopspec.properties.conformance.event_fields import Event, normalized
from loopspec.properties.conformance.history_change import comparable_change
from loopspec.properties.conformance.json_diff import labelled_json_diff
from loopspec.properties.conformance.json_values import ParsedJson, as_run_value, as_value
from loopspec.properties.conformance.presented import normalized_item
from loopspec.properties.conformance.target import Observation

# The blame of a difference no rule in SPEC.md prescribes: a gap to close in SPEC, not a guess.
NO_RULE = "NO-RULE"


def spec_pointer(rule: str) -> str:
    """` (loopspec spec RULE)`, where a report names `rule`, so its reader can look it up;
    "" for NO_RULE, which SPEC.md does not state."""
    return f" (loopspec spec {rule})" if rule != NO_RULE else ""


@attrs.frozen
class Divergence:
    """The first observation where the target and the model disagree."""

    index: int
    command: Command
    rule_id: str
    what: str
    expected: Observation
    actual: Observation
    # What differs that no observation holds (the model's, the target's), as JSON: under a
    # profile, which calls ran at the same time in runs it compares whole.
    apart: tuple[object, object] | None = None

    def diff(self) -> str:
        """A readable unified diff of the two observations, JSON shown as JSON.

        When they compare equal, the target broke a rule in what the comparison sets aside or
        holds apart (LOG-1's seqs, ORD-2's citations, LOG-8's commits, `apart`): the diff then
        shows that, the events with their seqs and the commits, so a report never shows an
        empty diff.
        """
        # The target's seq of each event shown: a violation names the event by it.
        seqs = [event.get("seq") for event in self.actual.events if in_scope(event)]
        shown = (displayed_observation(self.expected), displayed_observation(self.actual))
        diff = labelled_json_diff(*shown, target_seqs=seqs)
        if diff:
            return diff
        if self.apart is not None and (diff := labelled_json_diff(*self.apart)):
            return diff
        shown = (_displayed_with_seqs(self.expected), _displayed_with_seqs(self.actual))
        diff = labelled_json_diff(*shown)
        if diff:
            return diff
        return "(the observations are the same, seqs and commits too: see the line above)"


class DivergenceFound(AssertionError):
    """Raised inside the machine; carries the program and the divergence."""

    def __init__(
        self, divergence: Divergence, config: LoopConfig, program: tuple[Command, ...]
    ) -> None:
        self.divergence = divergence
        self.config = config
        self.program = program
        super().__init__(
            tagged(
                divergence.rule_id,
                f"after command #{divergence.index + 1} ({divergence.command.NAME}): "
                f"{divergence.what}",
            )
        )


def normalized_event(event: Event) -> Event:
    """An event without what implementations may choose freely.

    Free: `time` and message ids (`event_fields.normalized` drops those), and how effective
    arguments are serialized (key order, spacing, number spelling) — arguments are compared as
    the JSON values they denote.
    """
    # `normalized` copies the envelope, `data` and `data.message`; what is changed below is
    # copied too (the content list and its call blocks), and the rest is shared, not copied:
    # nothing writes to a normalized event below its envelope.
    event = normalized(event)
    data = event.get("data")
    if not isinstance(data, dict):
        return event
    if event.get("type") in ("tool/call", "approval/asked") and "arguments" in data:
        data["arguments"] = as_value(data["arguments"])
    message = data.get("message")
    if isinstance(message, dict):
        content = message.get("content")
        if isinstance(content, list | tuple) and any(map(is_call_block, content)):
            message["content"] = type(content)(
                {**block, "arguments": as_value(block.get("arguments"))}
                if is_call_block(block)
                else block
                for block in content
            )
    return event


def is_call_block(block: object) -> bool:
    return isinstance(block, dict) and block.get("type") == "tool-call"


def in_scope(event: Event) -> bool:
    """Whether the spec speaks about this event type (SPEC §4: other types are opaque)."""
    return event.get("type") in CORE_TYPES


def normalized_observation(observation: Observation) -> dict[str, Any]:
    """The comparable part of an observation.

    Events outside the spec's vocabulary (plugin events, streaming chunks) are left out, and
    so are seqs and seq citations: they count those events too. The target's own log is still
    held to LOG-1 and ORD-2 by the invariants, event by event.
    """
    if not observation.accepted:
        return {"accepted": False}
    return {
        "accepted": True,
        "events": [positional(normalized_event(e)) for e in observation.events if in_scope(e)],
        "executed": [
            [call_id, as_run_value(arguments)] for call_id, arguments in observation.executed
        ],
        # Compared only where the target reports it (the model presents for such targets only).
        **(
            {"presented": [normalized_item(item) for item in observation.presented]}
            if observation.presented is not None
            else {}
        ),
        # Likewise the history (capability "history"), as its canonical change.
        **(
            {"history": comparable_change(observation.history)}
            if observation.history is not None
            else {}
        ),
    }


# Observation fields `normalized_observation` reads but for the events: the commits are held to
# LOG-8 by `split_units`, a refusal's rule and words by `refused_alike`; `atomic` is the model's.
_NORMALIZED_BESIDE_EVENTS = tuple(
    field.name
    for field in attrs.fields(Observation)
    if field.name not in ("events", "atomic", "commits", "refusal_rule", "refusal_message")
)


def same_normalized(expected: Observation, actual: Observation) -> bool:
    """Whether the two observations are equal once normalized (`normalized_observation`).

    Equal in every field it reads, events but for their `time`, they are: it drops `time` and
    normalizes every other value by what that value is alone. That is the common case (a
    conforming target), and it compares at a fraction of the cost of normalizing both; only
    observations that differ there are normalized."""
    if (
        len(expected.events) == len(actual.events)
        and all(
            getattr(expected, name) == getattr(actual, name) for name in _NORMALIZED_BESIDE_EVENTS
        )
        and all(map(equal_but_time, expected.events, actual.events))
    ):
        return True
    return normalized_observation(expected) == normalized_observation(actual)


def equal_but_time(expected: Event, actual: Event) -> bool:
    if expected == actual:
        return True
    if expected.keys() != actual.keys():
        return False
    return all(expected[key] == actual[key] for key in expected if key != "time")


def _shown(value: object) -> object:
    """A comparable value as plain JSON: parsed arguments as their value, 0.0 as 0 (a whole
    double from 2^53 on stays a double: `1e+300`, not the 301 digits of its exact value)."""
    if isinstance(value, ParsedJson):
        return _shown(value.value)
    if isinstance(value, dict):
        return {key: _shown(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_shown(item) for item in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < _EXACT_DOUBLES:
        return int(value)
    return value


# Every integer below 2^53 is a double; from there a whole double's digits are mostly noise.
_EXACT_DOUBLES = 2.0**53


def displayed_observation(observation: Observation) -> object:
    """The normalized observation as plain JSON, for people: what compares equal shows equal."""
    if not observation.accepted:
        return {
            "accepted": False,
            "refusal": {"rule": observation.refusal_rule, "message": observation.refusal_message},
        }
    shown = _shown(normalized_observation(observation))
    assert isinstance(shown, dict)
    # Each body as the driver protocol reports it, not as the pair the comparison holds.
    shown["executed"] = [
        {"callId": call_id, "arguments": arguments} for call_id, arguments in shown["executed"]
    ]
    return shown


def _displayed_with_seqs(observation: Observation) -> object:
    """An observation for people, with every event's seq and seq citations kept, and the
    commits the events form."""
    if not observation.accepted:
        return displayed_observation(observation)
    events = [_shown(normalized_event(e)) for e in observation.events]
    return {"commits": list(observation.commits), "events": events}


def positional(event: Event) -> Event:
    event.pop("seq", None)
    event.pop("sourceEventSeqs", None)
    return event


def split_units(expected: Observation, actual: Observation) -> list[tuple[int, int]]:
    """The model's atomic units that the target's commit boundaries cut through (LOG-8).

    A target may commit more finely than the model, one event at a time even, except inside
    the units the spec names.
    """
    total = sum(actual.commits)
    if actual.events and total != len(actual.events):
        return [(0, len(actual.events))]
    # Commit boundaries, counted in in-scope events (the model's units index those).
    boundaries, kept = set(), 0
    sizes = iter(actual.commits)
    next_end = next(sizes, None)
    for raw_end, event in enumerate(actual.events, start=1):
        kept += in_scope(event)
        if raw_end == next_end:
            boundaries.add(kept)
            next_end = raw_end + next(sizes, 0)
    return [(s, e) for s, e in expected.atomic if any(s < b < e for b in boundaries)]
