"""A draft commit: the events one command appends, built against the state they extend.

A handler appends events to a `Draft`, records the state changes it makes with `set`, and
finishes with `commit()`, which returns the next state with all the draft's events as ONE commit
(rule LOG-8). Seqs continue the log (rule LOG-1); times are deterministic (`epoch_ms + seq`) so
two runs of the same commands produce the same log. Message ids are deterministic too:
`m<seq>` of the event that carries the message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from loopspec.model.events import Event
from loopspec.model.state import LoopState, QueuedMessage

EventT = TypeVar("EventT", bound=Event)


class Draft:
    """Events to append on top of `state`, committed together with field changes."""

    def __init__(self, state: LoopState) -> None:
        self.state = state
        self.events: list[Event] = []
        self.changes: dict[str, Any] = {}

    @property
    def next_seq(self) -> int:
        """The seq the next appended event gets."""
        return len(self.state.log) + len(self.events)

    def time(self) -> int:
        """The deterministic time of the next event."""
        return self.state.config.epoch_ms + self.next_seq

    def message_id(self) -> str:
        """The deterministic id of a message carried by the next event."""
        return f"m{self.next_seq}"

    def add(self, make: Callable[..., EventT], *args: Any, **kwargs: Any) -> EventT:
        """Append `make(seq, time, *args, **kwargs)`."""
        event = make(self.next_seq, self.time(), *args, **kwargs)
        self.events.append(event)
        return event

    def set(self, **changes: Any) -> None:
        """Record state field changes to apply at commit."""
        self.changes.update(changes)

    @property
    def inbox(self) -> tuple[QueuedMessage, ...]:
        """The inbox as changed so far."""
        inbox: tuple[QueuedMessage, ...] = self.changes.get("inbox", self.state.inbox)
        return inbox

    def commit(self) -> LoopState:
        """The next state: the draft's events appended as one commit, plus the changes."""
        if not self.events:
            return attrs.evolve(self.state, **self.changes)
        log = self.state.log + tuple(self.events)
        return attrs.evolve(
            self.state, log=log, commit_ends=(*self.state.commit_ends, len(log)), **self.changes
        )
