"""Under a profile, the history a target reports held to its own log (capability "history",
rule HIST-1).

A profile lists how a real loop's log differs from the model's (a plugin's extra message, its
own wording of a result, a call recorded when it starts) and erases those differences before
the two logs are compared. The messages a loop's next model request carries follow its log, so
comparing them with the model's history would show every one of those known differences again,
at whichever command the loop logged it. HIST-1 is about the derivation itself: the history is
the log's surface, nothing more. So under a profile each history the target reports is compared
with `derive_messages` of the target's own log as it reported it up to that command: a loop
whose requests leave out, add or change a message its log holds is still blamed on HIST-1 (RW-1
when only a call's arguments differ), and its log is held to the model's by the profile.

A known divergence may put a message in the log that the loop's requests leave out, or the
other way round (Claude Code's transcript keeps a failed request as an assistant message it
never sends; its requests leave out a call reusing an earlier reply's call id, a placeholder in
its place): its `erase_history` removes that message from both histories (seeing both, so what
it removes from the reported one is what the log accounts for), and a history that differs only
there is that divergence, shown (`OwnLogHistory.shown`), not a counterexample.
"""

from __future__ import annotations

from collections.abc import Sequence

from loopspec.model.derive import derive_messages
from loopspec.model.errors import InvalidEventError
from loopspec.model.events import Event
from loopspec.model.log_layout import SURFACE_TYPES
from loopspec.model.wire import event_from_wire
from loopspec.properties.conformance.history_change import DerivedHistory, HistoryChange
from loopspec.properties.conformance.history_rule import history_rule
from loopspec.properties.conformance.target import Observation
from loopspec.properties.profiles.known import HistoryEraser

OWN_LOG = "its own log's"


class OwnLogHistory:
    """One program's target log so far, and the history it derives."""

    def __init__(self, erasers: Sequence[tuple[str, HistoryEraser]] = ()) -> None:
        self._erasers = tuple(erasers)
        self.shown: set[str] = set()  # the known divergences whose erasing made them agree
        self._log: list[Event] = []
        self._derived = DerivedHistory()
        # A log event loopspec cannot read: the log's own rules report it, and from there the
        # log derives nothing to hold the history to.
        self._unreadable = False

    def feed(self, actual: Observation) -> tuple[str, str] | None:
        """The rule and how the history `actual` reports differs from the one the target's log
        derives, its events included; None when they agree or the target reports none."""
        if not actual.accepted or actual.history is None or self._unreadable:
            return None
        try:
            # Only surface events derive a message: the others (most of a log) are not read.
            self._log.extend(
                event_from_wire(event)
                for event in actual.events
                if event.get("type") in SURFACE_TYPES
            )
            expected = self._derived.change(derive_messages(self._log))
        except InvalidEventError:
            self._unreadable = True
            return None
        found = history_rule(expected, actual.history, OWN_LOG)
        if found is None or not self._erasers:
            return found
        return self._erased(expected, actual.history)

    def _erased(self, expected: HistoryChange, actual: HistoryChange) -> tuple[str, str] | None:
        """The comparison of both whole histories with the known divergences erased."""
        sides = [list(expected.whole), list(actual.whole)]
        changed: set[str] = set()
        for key, erase in self._erasers:
            erased = list(erase(*sides))
            if erased != sides:
                changed.add(key)
            sides = erased
        want, got = (HistoryChange(0, tuple(side), tuple(side)) for side in sides)
        found = history_rule(want, got, OWN_LOG)
        if found is None:
            self.shown |= changed
            return None
        rule_id, what = found
        return rule_id, f"{what} (with the profile's known history divergences erased)"
