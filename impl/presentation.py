"""What a UI is shown for the calls in a log: cards, approval prompts, ACP payloads (ACP-1, RW-1).

`Presentation` turns committed events into `Shown` items: a call card at each `tool/call`
(rendered from its recorded, effective arguments), a permission prompt at each
`approval/asked`, a result card at each appended `tool/result` (rendered with the call it
answers). The live loop feeds it every unit as it commits and hands each item to a sink; a
replay feeds it a stored log. Because both go through the same fold of the log, what a client
saw live is exactly what replaying the log shows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import attrs

from loopspec.impl.acp_bridge import Wire, call_update, permission_prompt, result_update
from loopspec.impl.presenters import StoredResult, call_view, result_view
from loopspec.model.events import (
    ApprovalAsked,
    Event,
    SurfaceAppend,
    ToolCallRecorded,
    ToolResultRecorded,
)
from loopspec.model.jsonvalue import JsonValue, parse_arguments
from loopspec.model.views import ToolCallView, ToolResultView


@attrs.frozen
class CallCard:
    """A call as the UI first shows it."""

    seq: int
    call_id: str
    view: ToolCallView
    arguments: JsonValue
    update: Wire = attrs.field(eq=False)


@attrs.frozen
class ApprovalPrompt:
    """A permission prompt for exactly the input that will run."""

    seq: int
    call_id: str
    arguments: JsonValue
    request: Wire = attrs.field(eq=False)


@attrs.frozen
class ResultCard:
    """A result's card update."""

    seq: int
    call_id: str
    view: ToolResultView
    update: Wire = attrs.field(eq=False)


Shown = CallCard | ApprovalPrompt | ResultCard
ShownSink = Callable[[Shown], None]


@attrs.frozen
class Audience:
    """Who is watching: the ACP session, its working directory, and its terminal support."""

    session_id: str = "session"
    cwd: str = "/workspace"
    terminal: bool = False


class Presentation:
    """Folds events into shown items, remembering each call for its result card."""

    def __init__(self, audience: Audience, sink: ShownSink | None = None) -> None:
        self._audience = audience
        self._sink = sink
        self._calls: dict[str, tuple[str, JsonValue, ToolCallView]] = {}

    def remember(self, events: Iterable[Event]) -> None:
        """Learn the calls of events already shown (a reopened log), emitting nothing: only a
        call's card holds what a later item needs, so no item is built."""
        for event in events:
            if isinstance(event, ToolCallRecorded):
                self._learn(event)

    def show(self, events: Iterable[Event]) -> None:
        """Emit what newly committed events show, in log order."""
        for event in events:
            shown = self._fold(event)
            if shown is not None and self._sink is not None:
                self._sink(shown)

    def _learn(self, event: ToolCallRecorded) -> tuple[JsonValue, ToolCallView]:
        """Remember a call's name, parsed arguments and view, for its later items."""
        arguments = parse_arguments(event.arguments)
        view = call_view(event.name, arguments)
        self._calls[event.call_id] = (event.name, arguments, view)
        return arguments, view

    def _fold(self, event: Event) -> Shown | None:
        audience = self._audience
        if isinstance(event, ToolCallRecorded):
            arguments, view = self._learn(event)
            update = call_update(
                audience.session_id,
                event.call_id,
                view,
                arguments,
                audience.cwd,
                terminal=audience.terminal,
            )
            return CallCard(event.seq, event.call_id, view, arguments, update)
        if isinstance(event, ApprovalAsked) and event.call_id in self._calls:
            _name, arguments, view = self._calls[event.call_id]
            request = permission_prompt(
                audience.session_id, event.call_id, view, arguments, audience.cwd
            )
            return ApprovalPrompt(event.seq, event.call_id, arguments, request)
        if isinstance(event, ToolResultRecorded) and isinstance(event.surface, SurfaceAppend):
            name, arguments, shown_as = self._calls.get(event.call_id, (None, None, None))
            block = event.message.result
            stored = StoredResult(block.content, block.failed, event.meta)
            view_of_result = result_view(name, arguments, shown_as, stored)
            update = result_update(
                audience.session_id,
                event.call_id,
                view_of_result,
                audience.cwd,
                failed=block.failed,
                terminal=audience.terminal,
            )
            return ResultCard(event.seq, event.call_id, view_of_result, update)
        return None


def replay(events: Iterable[Event], audience: Audience) -> list[Shown]:
    """Everything a UI shows for a stored log, in log order."""
    shown: list[Shown] = []
    Presentation(audience, shown.append).show(events)
    return shown
