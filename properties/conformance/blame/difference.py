"""The first in-scope event where the target's events and the model's differ (changed in
place, missing or extra), and whether it is only elsewhere (reordered)."""

from __future__ import annotations

from typing import Literal, assert_never

import attrs

from loopspec.properties.conformance.compare import in_scope, normalized_event, positional
from loopspec.properties.conformance.event_fields import Event
from loopspec.properties.conformance.target import Observation

Relation = Literal["changed", "missing", "extra"]


@attrs.frozen
class Difference:
    """The first differing in-scope event: changed in place, missing from or extra in the target."""

    relation: Relation
    want: Event | None
    got: Event | None
    at: int  # where in the target's events (all of them) the difference shows


def first_event_difference(
    expected: tuple[Event, ...], actual: tuple[Event, ...]
) -> Difference | None:
    """The first in-scope event where `actual` (the target's) differs from `expected` (the
    model's), compared normalized and by position: changed in place, missing or extra; None when
    they agree."""
    want_all = [e for e in expected if in_scope(e)]
    got_all = [(i, e) for i, e in enumerate(actual) if in_scope(e)]
    wants = [positional(normalized_event(e)) for e in want_all]
    gots = [positional(normalized_event(e)) for _, e in got_all]
    for index, (want, got) in enumerate(zip(wants, gots, strict=False)):
        if want == got:
            continue
        at, event = got_all[index]
        if want.get("type") != got.get("type"):
            # One side has an event the other lacks here, if the rest lines up after it.
            if index + 1 < len(wants) and wants[index + 1] == got:
                return Difference("missing", want_all[index], None, at)
            if index + 1 < len(gots) and gots[index + 1] == want:
                return Difference("extra", None, event, at)
            # A block of several events: the side whose event comes again later on the other
            # (a hook run twice, as a run flattened by a profile shows it, is extra audit).
            if got not in wants[index + 1 :] and want in gots[index + 1 :]:
                return Difference("extra", None, event, at)
            if got.get("type") in {w.get("type") for w in wants[index + 1 :]}:
                return Difference("missing", want_all[index], None, at)
            return Difference("extra", None, event, at)
        return Difference("changed", want_all[index], event, at)
    if len(wants) > len(gots):
        return Difference("missing", want_all[len(gots)], None, len(actual))
    if len(gots) > len(wants):
        at, event = got_all[len(wants)]
        return Difference("extra", None, event, at)
    return None


def reordered_elsewhere(difference: Difference, expected: Observation, actual: Observation) -> bool:
    """Whether the differing event is there on the other side too, only elsewhere."""
    match difference.relation:
        case "missing":
            wanted, others = difference.want, actual.events
        case "extra":
            wanted, others = difference.got, expected.events
        case "changed":
            return False
        case _:
            assert_never(difference.relation)
    assert wanted is not None
    same = positional(normalized_event(wanted))
    return sum(positional(normalized_event(e)) == same for e in others) > 0
