"""The target's own log held to the invariant registry, event by event (`log_violations`),
before any comparison: a rule its output breaks by itself is the blame."""

from __future__ import annotations

import json
from collections.abc import Sequence

from loopspec.model.facts import SECONDS_SINCE_EPOCH, FactError, fact_from_wire
from loopspec.model.invariants import LogMonitor
from loopspec.model.prefix import Violation
from loopspec.properties.conformance.event_fields import Event


def log_violations(
    monitor: LogMonitor, events: Sequence[Event], model_events: Sequence[Event] = ()
) -> list[Violation]:
    """What the target's events break by themselves, fed in order through `monitor`;
    `model_events`, what the model appended for the same command, give its clock.

    An event the rules cannot even read is a violation too, of the rule its `FactError` names:
    TURN-5 for a reason without a string kind, LOG-4 for an event that is not valid, ...
    """
    found: list[Violation] = []
    model_clock = max((e["time"] for e in model_events if type(e.get("time")) is int), default=None)
    for event in events:
        at = violation_seq(event)
        clock = _unwhole_time(event)
        if clock is not None:
            found.append(Violation("LOG-4", at, clock))
        elif "time" not in event:
            # As check says of such a line (section 10 makes `time` required): the facts the
            # rules read take none, and the comparison ignores times, so it read as TURN-1's
            # "turn/start differs in its envelope".
            kind = event.get("type")
            missing = f"{kind}.time" if type(kind) is str and kind else "the event's time"
            found.append(Violation("LOG-4", at, f"{missing} is missing"))
        try:
            fact = fact_from_wire(event)
        except FactError as error:
            found.append(Violation(error.rule_id, at, str(error)))
            continue
        broken = monitor.feed(fact)
        # Seconds where a rule of the event's own times it (REC-1's closers) are that rule's.
        seconds = None if broken else _time_in_seconds(event, model_clock)
        if seconds is not None:
            found.append(Violation("LOG-4", at, seconds))
        found += broken
    return found


def violation_seq(event: Event) -> int:
    """The seq a violation of `event` is placed at: its own, or -1 where it has none (an int)."""
    seq = event.get("seq")
    return seq if type(seq) is int else -1


def _unwhole_time(event: Event) -> str | None:
    """What is wrong with an event's `time` that is there but no whole number of milliseconds
    (section 10; the log's reader refuses it, LOG-4), or None. The facts the rules read take
    no time but a whole one, so only this tells an in-process target's clock is wrong."""
    time = event.get("time")
    if "time" not in event or type(time) is int:
        return None
    if type(time) is float and time.is_integer():
        return None
    seconds = (
        " (seconds, as Python's time.time() gives them: int(time.time() * 1000) is milliseconds)"
        if type(time) is float and 1e9 <= time < 1e10
        else ""
    )
    return (
        f"{event.get('type')}.time is {json.dumps(time)}, where an event's time is a whole "
        f"number of milliseconds since the Unix epoch{seconds}"
    )


def _time_in_seconds(event: Event, model_clock: int | None) -> str | None:
    """What is wrong with an event's whole `time` that counts seconds, where the model's clock
    (its time for the same command) counts milliseconds (LOG-4), or None. Times are compared
    nowhere else, so a loop writing `int(time.time())` passed every program."""
    time = event.get("time")
    if model_clock is None or model_clock < 10**12 or type(time) is not int:
        return None
    if time not in SECONDS_SINCE_EPOCH:  # a clock no loop keeps once the model's reads ms
        return None
    return (
        f"{event.get('type')}.time is {time}, where an event's time is a whole number of "
        f"milliseconds since the Unix epoch: {time} counts seconds (int(time.time()), a Unix "
        f"timestamp; {time * 1000} would be milliseconds), and the model's clock reads "
        f"{model_clock}"
    )
