"""Comparing one observation of a target with the model's, and naming the rule a difference breaks.

What may differ freely is normalized away first: `time` and message ids (implementations use
clocks and UUIDs), how arguments are serialized (compared as the JSON values they denote),
events outside the spec's vocabulary, seqs and seq citations (they count those events too).
`classify` turns the first remaining difference into a rule ID and one sentence.
"""

from __future__ import annotations

import copy
import difflib
import json
from typing import Any

import attrs

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.model.events import CORE_TYPES
from loopspec.model.transitions import transition_for
from loopspec.properties.conformance.process_target import normalized
from loopspec.properties.conformance.target import Observation


@attrs.frozen
class Divergence:
    """The first observation where the target and the model disagree."""

    index: int
    command: Command
    rule_id: str
    what: str
    expected: Observation
    actual: Observation

    def diff(self) -> str:
        """A readable unified diff of the two observations (normalized)."""

        def lines(observation: Observation) -> list[str]:
            return json.dumps(
                normalized_observation(observation), indent=1, sort_keys=True
            ).splitlines()

        return "\n".join(
            difflib.unified_diff(
                lines(self.expected), lines(self.actual), "model", "target", lineterm="", n=2
            )
        )


class DivergenceFound(AssertionError):
    """Raised inside the machine; carries the program and the divergence."""

    def __init__(
        self, divergence: Divergence, config: LoopConfig, program: tuple[Command, ...]
    ) -> None:
        self.divergence = divergence
        self.config = config
        self.program = program
        super().__init__(
            f"[{divergence.rule_id}] after command #{divergence.index + 1} "
            f"({divergence.command.NAME}): {divergence.what}"
        )


def _as_value(raw: object) -> object:
    """Arguments text as the JSON value it denotes, so serialization style cannot differ."""
    if not isinstance(raw, str):
        return raw
    try:
        return {"$json": json.loads(raw)}
    except (ValueError, RecursionError):
        return raw


def normalized_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event without what implementations may choose freely.

    Free: `time` and message ids (`process_target.normalized` drops those), and how effective
    arguments are serialized (key order, spacing, number spelling) — arguments are compared as
    the JSON values they denote.
    """
    event = copy.deepcopy(normalized(event))
    data = event.get("data")
    if not isinstance(data, dict):
        return event
    if event.get("type") in ("tool/call", "approval/asked") and "arguments" in data:
        data["arguments"] = _as_value(data["arguments"])
    message = data.get("message")
    if isinstance(message, dict):
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool-call":
                block["arguments"] = _as_value(block.get("arguments"))
    return event


def in_scope(event: dict[str, Any]) -> bool:
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
        "events": [_positional(normalized_event(e)) for e in observation.events if in_scope(e)],
        "executed": [
            [call_id, _as_value(arguments)] for call_id, arguments in observation.executed
        ],
    }


def _positional(event: dict[str, Any]) -> dict[str, Any]:
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


def _first_event_difference(
    expected: tuple[dict[str, Any], ...], actual: tuple[dict[str, Any], ...]
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    expected = tuple(e for e in expected if in_scope(e))
    actual = tuple(e for e in actual if in_scope(e))
    for want, got in zip(expected, actual, strict=False):
        if _positional(normalized_event(want)) != _positional(normalized_event(got)):
            return want, got
    if len(expected) > len(actual):
        return expected[len(actual)], None
    if len(actual) > len(expected):
        return None, actual[len(expected)]
    return None, None


def _supplied_inputs(events: tuple[dict[str, Any], ...]) -> list[Any]:
    return [
        e["data"]["updatedInput"]
        for e in events
        if e.get("type") == "hook/result" and "updatedInput" in e.get("data", {})
    ]


def _call_arguments(event: dict[str, Any]) -> list[Any]:
    data = event.get("data", {})
    if event.get("type") == "tool/call":
        raw = [data.get("arguments")]
    else:
        content = data.get("message", {}).get("content", [])
        raw = [b.get("arguments") for b in content if b.get("type") == "tool-call"]
    parsed = []
    for text in raw:
        try:
            parsed.append(json.loads(text))
        except (TypeError, ValueError):
            parsed.append(text)
    return parsed


def _other_rewrite_won(want: dict[str, Any], got: dict[str, Any], supplied: list[Any]) -> bool:
    """Whether the target applied an earlier hook's rewrite where the model applied the last."""
    if len(supplied) < 2:
        return False
    wanted, applied = _call_arguments(want), _call_arguments(got)
    if any(a != w and a in supplied[:-1] for w, a in zip(wanted, applied, strict=False)):
        return True
    sidecars = [e["data"].get("rewrite") for e in (want, got) if e.get("type") == "tool/call"]
    return (
        len(sidecars) == 2
        and all(isinstance(x, dict) for x in sidecars)
        and sidecars[0]["handlerIds"] != sidecars[1]["handlerIds"]
    )


def _rewrite_refusal_blames_another_hook(
    want: dict[str, Any] | None, got: dict[str, Any] | None, history: tuple[dict[str, Any], ...]
) -> bool:
    """Both refuse a call's rewrite, but name different hooks: the merge order differs."""
    if want is None or got is None:
        return False
    texts = [json.dumps(e.get("data", {}).get("message", {})) for e in (want, got)]
    rewriters = {
        str(e["data"].get("handlerId"))
        for e in history
        if e.get("type") == "hook/result" and "updatedInput" in e.get("data", {})
    }
    named = [{h for h in rewriters if f"hook {h} rewrote" in text} for text in texts]
    return bool(named[0]) and bool(named[1]) and named[0] != named[1]


def classify(
    command: Command,
    phase: str,
    expected: Observation,
    actual: Observation,
    *,
    target_violations: list[str],
    history: tuple[dict[str, Any], ...] = (),
) -> tuple[str, str]:
    """The rule a divergence breaks, and one sentence saying how.

    `history` is every event the model appended so far, this command's included.
    """
    if target_violations:
        return target_violations[0], "the target's log breaks an invariant"
    if expected.accepted != actual.accepted:
        if actual.accepted:
            return (
                expected.refusal_rule or "MODEL-1",
                f"the model refuses {command.NAME} here ({expected.refusal_message}); "
                "the target accepted it",
            )
        return "MODEL-3", (
            f"the target refused {command.NAME} ({actual.refusal_rule}); the model accepts it"
        )
    if not expected.accepted:
        return "MODEL-1", (
            f"both refuse; the model with {expected.refusal_rule}, the target "
            f"with {actual.refusal_rule}"
        )
    want, got = _first_event_difference(expected.events, actual.events)
    kinds = {str(e.get("type")) for e in (want, got) if e is not None}
    if want is not None and got is not None and kinds <= {"assistant/message", "tool/call"}:
        if _other_rewrite_won(want, got, _supplied_inputs(history)):
            return "HOOK-3", "a rewrite other than the last one in configured order won"
        if kinds == {"tool/call"} and want["data"].get("arguments") == got["data"].get("arguments"):
            return "RW-2", "the tool/call rewrite sidecar differs"
        where = "audit record" if kinds == {"tool/call"} else "model history"
        return "RW-1", f"the call's arguments in the {where} differ from the model's"
    if any(kind.startswith("hook/") for kind in kinds):
        return "HOOK-4", "the hooks that ran (or their audit) differ"
    if "approval/asked" in kinds:
        return "RW-4", "the approval request differs"
    if kinds == {"user/message"}:
        return "ADJ-4", "the messages queued for this step differ"
    if "tool/result" in kinds:
        if _rewrite_refusal_blames_another_hook(want, got, history):
            return "HOOK-3", "a rewrite other than the last one in configured order decided"
        return "ORD-3", "a different result is committed here"
    if kinds:
        row = transition_for(phase, command.NAME)
        rules = row.rules if row is not None else ("MODEL-1",)
        return rules[0], f"the appended events differ at {sorted(kinds)[0]}"
    if expected.executed != actual.executed:
        expected_ids = {call_id for call_id, _ in expected.executed}
        if any(call_id not in expected_ids for call_id, _ in actual.executed):
            return "DEC-1", "a body ran that the model never dispatched"
        return "EXE-3", "a body ran with other arguments than its sealed identity"
    return "LOG-8", "a unit the spec requires to be atomic was split across commits"
