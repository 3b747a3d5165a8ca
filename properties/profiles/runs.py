"""Whole runs in comparable form, for comparing an implementation with known divergences.

A *run* is one program's observations, normalized: `time` and message ids dropped (as
`loopspec.properties.conformance.process_target.normalized` does), events outside the kept types
dropped, seqs
turned into positions and `sourceEventSeqs` into labels of the cited events
(`tool/call:<callId>`), each event tagged with the commit it belongs to (`commit: [command,
k]`), executed arguments parsed. Runs are plain JSON-like data, so an *eraser* (a function from
a pair of runs to a pair of runs) can remove one known difference before the two are compared.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from loopspec.properties.conformance.process_target import normalized
from loopspec.properties.conformance.target import Observation

Json = dict[str, Any]
Event = dict[str, Any]
Obs = dict[str, Any]  # {"accepted": False, "rule": str} | {"accepted": True, "events", "executed"}
Run = list[Obs]
Pair = tuple[Run, Run]


def _parsed(arguments: str) -> object:
    try:
        value: object = json.loads(arguments)
    except (ValueError, RecursionError):
        return arguments
    return value


class RunNormalizer:
    """Normalizes a run one observation at a time (labels carry over between commands)."""

    def __init__(self, keep: Callable[[str], bool]) -> None:
        self._keep = keep
        self._labels: dict[int, str] = {}
        self._index = 0

    def add(self, observation: Observation) -> Obs:
        """The next observation in comparable form."""
        index = self._index
        self._index += 1
        if not observation.accepted:
            return {"accepted": False, "rule": observation.refusal_rule}
        commit_of = [k for k, size in enumerate(observation.commits) for _ in range(size)]
        if len(commit_of) != len(observation.events):
            commit_of = [0] * len(observation.events)
        events: list[Event] = []
        for raw, commit in zip(observation.events, commit_of, strict=True):
            if not self._keep(str(raw.get("type"))):
                continue
            event = normalized(raw)
            seq = event.pop("seq", None)
            data = raw.get("data")
            call_id = data.get("callId") if isinstance(data, dict) else None
            label = (
                f"tool/call:{call_id}"
                if raw.get("type") == "tool/call"
                else f"{raw.get('type')}@{len(self._labels)}"
            )
            if isinstance(seq, int):
                self._labels[seq] = label
            cites = [self._labels[s] for s in event.pop("sourceEventSeqs", []) if s in self._labels]
            if cites:
                event["cites"] = cites
            event["commit"] = [index, commit]
            events.append(event)
        executed = [[call_id, _parsed(arguments)] for call_id, arguments in observation.executed]
        return {"accepted": True, "events": events, "executed": executed}


def normalize_run(observations: Sequence[Observation], keep: Callable[[str], bool]) -> Run:
    """A whole run in comparable form."""
    normalizer = RunNormalizer(keep)
    return [normalizer.add(observation) for observation in observations]


def events_of(run: Run) -> Iterator[Event]:
    """Every event of an accepted command, in order."""
    for obs in run:
        if obs["accepted"]:
            yield from obs["events"]


def map_events(run: Run, change: Callable[[Event], Event | None]) -> Run:
    """`run` with every event replaced by `change(event)` (None drops it)."""
    out: Run = []
    for obs in run:
        if not obs["accepted"]:
            out.append(obs)
            continue
        events = [new for new in (change(e) for e in obs["events"]) if new is not None]
        out.append({**obs, "events": events})
    return out


def both(change: Callable[[Run], Run]) -> Callable[[Pair], Pair]:
    """An eraser applying the same change to both runs."""
    return lambda pair: (change(pair[0]), change(pair[1]))


def result_call(event: Event) -> str:
    """The call id a tool/result answers."""
    return str(event["data"]["message"]["content"][0]["toolCallId"])


def result_code(event: Event) -> str | None:
    """A tool/result's error code, or None for a success."""
    error = event["data"].get("error")
    return None if error is None else str(error.get("code"))


def result_text(event: Event) -> str:
    """A tool/result's text."""
    return str(event["data"]["message"]["content"][0]["content"][0]["text"])


def with_result_text(event: Event, text: str) -> Event:
    """A copy of a tool/result with another text."""
    event = copy.deepcopy(event)
    event["data"]["message"]["content"][0]["content"][0]["text"] = text
    return event


def is_hook_at(event: Event, point: str) -> bool:
    """Whether `event` is a hook audit event at `point`."""
    hook = event["type"] in ("hook/invoked", "hook/result")
    return hook and event["data"].get("point") == point


def user_texts(obs: Obs) -> list[tuple[str, str]]:
    """(text, plugin or 'user') of each user/message an observation appended."""
    return [
        (str(e["data"]["content"][0]["text"]), str(e["data"]["source"].get("plugin", "user")))
        for e in obs["events"]
        if e["type"] == "user/message"
    ]


def results_with_code(obs: Obs, code: str) -> list[str]:
    """Call ids of the tool/results with error `code` an observation appended."""
    events = obs["events"] if obs["accepted"] else []
    return [result_call(e) for e in events if e["type"] == "tool/result" and result_code(e) == code]
