"""The model-visible history, kept up to date as units commit (rules HIST-1, LOG-7).

History is what the next model request carries: the messages of the surface events, in surface
order. An `append` adds its event's message at the end; a `replace {start, end}` swaps the run
of current nodes from seq `start` to seq `end` for its own message. An assistant message with no
content (it only carried usage) stays on the surface but is not sent. Every other event is
invisible. Appends cost O(1); only a replace walks the surface.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from loopspec.impl.errors import CorruptLog
from loopspec.model.events import (
    AssistantMessageRecorded,
    Event,
    SurfaceAppend,
    SurfaceReplace,
    ToolResultRecorded,
    UserMessageRecorded,
)
from loopspec.model.messages import AssistantMessage, Message

SurfaceNode = tuple[int, Message]
SurfaceEvent = UserMessageRecorded | AssistantMessageRecorded | ToolResultRecorded


class History:
    """The surface nodes `(seq, message)` in order, fed one event at a time."""

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self._nodes: list[SurfaceNode] = []
        # The sent messages, kept in step with the nodes: an append adds at most one, so only a
        # replace rebuilds them. `messages` hands out a tuple of them, made when it changed.
        self._sent: list[Message] = []
        self._handed: tuple[Message, ...] | None = ()
        self.feed(events)

    def feed(self, events: Iterable[Event]) -> None:
        """Fold committed events into the surface."""
        for event in events:
            if isinstance(event, SurfaceEvent):
                self._place(event)

    def messages(self) -> tuple[Message, ...]:
        """The messages the next model request must carry, oldest first."""
        if self._handed is None:
            self._handed = tuple(self._sent)
        return self._handed

    def _place(self, event: SurfaceEvent) -> None:
        node = (event.seq, event.message)
        match event.surface:
            case SurfaceAppend():
                self._nodes.append(node)
                if _is_sent(event.message):
                    self._sent.append(event.message)
                    self._handed = None
            case SurfaceReplace(start=start, end=end):
                seqs = [seq for seq, _message in self._nodes]
                if start not in seqs or end not in seqs or seqs.index(start) > seqs.index(end):
                    msg = f"seq {event.seq} replaces {start}..{end}, which are not on the surface"
                    raise CorruptLog(f"[LOG-7] {msg}")
                self._nodes[seqs.index(start) : seqs.index(end) + 1] = [node]
                self._sent = [message for _seq, message in self._nodes if _is_sent(message)]
                self._handed = None
            case _:
                assert_never(event.surface)


def _is_sent(message: Message) -> bool:
    return not (isinstance(message, AssistantMessage) and not message.content)
