"""The history a target's next model request would carry, as each command changes it
(capability "history", rule HIST-1).

A target with the capability reports, per accepted command, how the history changed: the first
`kept` messages of the history it reported before stay, and `appended` follow them. An append
keeps them all; a rewrite (a repair, a compaction) keeps fewer and resends the rest, and a
target may always keep none and send the whole history. So the protocol carries each message
once in the usual case, not the whole history after every command (which would cost O(n²)
per program), and any rewrite is still expressible.

Targets choose `kept` freely, so the comparison does not compare it as sent: each side's change
is made canonical first (`kept` is raised past every resent message that compares equal to the
one it replaces, ids and argument spelling free, as everywhere). Two targets that agreed on the
history before a command then agree after it exactly when their canonical changes are equal,
so an observation is compared on its own, and only what changed is normalized and compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from loopspec.model.messages import Message
from loopspec.model.wire import message_to_wire
from loopspec.properties.conformance.json_values import as_value

WireMessage = dict[str, Any]


@attrs.frozen
class HistoryChange:
    """What one command did to the history: `kept` messages stay, `appended` follow."""

    kept: int
    appended: tuple[WireMessage, ...]
    # The whole history after the command, for reports only: `kept` and `appended` say it.
    whole: tuple[WireMessage, ...] = attrs.field(eq=False, repr=False, default=())


def history_wire(change: HistoryChange) -> dict[str, Any]:
    """The `history` member of an `observed` answer that reports `change`."""
    return {"kept": change.kept, "appended": list(change.appended)}


class HistoryRewound(ValueError):
    """A target kept more messages than the history it had reported holds."""


def comparable_message(message: object) -> object:
    """A wire message without what a target chooses freely: its id, and how each tool call's
    arguments are spelled (compared as the JSON values they denote)."""
    if not isinstance(message, dict):
        return message
    kept = {key: value for key, value in message.items() if key != "id"}
    content = kept.get("content")
    if isinstance(content, list):
        kept["content"] = [
            {**block, "arguments": as_value(block.get("arguments"))}
            if isinstance(block, dict) and block.get("type") == "tool-call"
            else block
            for block in content
        ]
    return kept


def comparable_change(change: HistoryChange) -> dict[str, Any]:
    """The compared part of a change: how many messages stayed, and the normalized rest."""
    return {"kept": change.kept, "appended": [comparable_message(m) for m in change.appended]}


class ReportedHistory:
    """The history a target reported, kept up to date from its changes (a process target's)."""

    def __init__(self) -> None:
        self._whole: tuple[WireMessage, ...] = ()

    def change(self, kept: int, appended: Sequence[WireMessage]) -> HistoryChange:
        """The canonical change a reported one makes; `HistoryRewound` if `kept` is too large."""
        before = self._whole
        if not 0 <= kept <= len(before):
            msg = f"history.kept is {kept}, but the history it reported holds {len(before)}"
            raise HistoryRewound(msg)
        whole = (*before[:kept], *appended)
        self._whole = whole
        same = kept
        while same < min(len(before), len(whole)) and comparable_message(
            before[same]
        ) == comparable_message(whole[same]):
            same += 1
        return HistoryChange(same, whole[same:], whole)


class DerivedHistory:
    """The history a loop in Python derives (the model's, the bundled target's), reported as
    canonical changes: only the messages that changed are written in wire form."""

    def __init__(self) -> None:
        self._messages: tuple[Message, ...] = ()
        self._whole: tuple[WireMessage, ...] = ()

    def change(self, messages: tuple[Message, ...]) -> HistoryChange:
        """The change from the history seen last to `messages`."""
        before = self._messages
        if messages is before:  # a loop hands out the same tuple while nothing changed
            return self.unchanged()
        same = 0
        # Messages a loop keeps are the same objects (or equal ones, after a reopen).
        while same < min(len(before), len(messages)) and (
            before[same] is messages[same] or before[same] == messages[same]
        ):
            same += 1
        appended = tuple(message_to_wire(message) for message in messages[same:])
        self._messages = messages
        self._whole = (*self._whole[:same], *appended)
        return HistoryChange(same, appended, self._whole)

    def unchanged(self) -> HistoryChange:
        """No change: a crashed loop sends nothing, and its durable log keeps its history."""
        return HistoryChange(len(self._messages), (), self._whole)
