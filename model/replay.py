"""Presentation by replay: the views and ACP updates a log produces (rules VIEW-2, ACP-1, RW-1).

Presentation reads the audit record: a call's card is rendered from `tool/call.arguments`, and
its result card from the durable result plus the remembered call. Because the rewrite lands in
`tool/call` before anything renders, the UI shows exactly what runs. Live emission and replay
must agree, so both go through this one function of the log.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

import attrs

from loopspec.model.acp import permission_request, tool_call_notification, tool_result_notification
from loopspec.model.events import (
    ApprovalAsked,
    Event,
    SurfaceAppend,
    ToolCallRecorded,
    ToolResultRecorded,
)
from loopspec.model.jsonvalue import JsonValue, parse_arguments
from loopspec.model.presenters import present_call, present_result
from loopspec.model.views import ToolCallView, ToolResultView


@attrs.frozen
class CallShown:
    """A call's card, as the UI first shows it."""

    seq: int
    call_id: str
    view: ToolCallView
    arguments: JsonValue
    notification: dict[str, object] = attrs.field(eq=False)


@attrs.frozen
class ApprovalShown:
    """An approval prompt: the exact input the user is asked to approve."""

    seq: int
    call_id: str
    arguments: JsonValue
    request: dict[str, object] = attrs.field(eq=False)


@attrs.frozen
class ResultShown:
    """A result's card update."""

    seq: int
    call_id: str
    view: ToolResultView
    notification: dict[str, object] = attrs.field(eq=False)


Shown = CallShown | ApprovalShown | ResultShown


class LogPresenter:
    """The fold behind `present_log`, one event at a time: what a live UI shows as each event
    commits. It remembers every call, so a result (or an approval) shows with its call's view."""

    def __init__(
        self,
        *,
        session_id: str = "session",
        session_cwd: str = "/workspace",
        terminal_capable: bool = False,
    ) -> None:
        self._session_id = session_id
        self._session_cwd = session_cwd
        self._terminal_capable = terminal_capable
        self._calls: dict[str, tuple[str, JsonValue, ToolCallView]] = {}

    def feed(self, event: Event) -> Shown | None:
        """What `event` shows, if anything."""
        session_id, session_cwd = self._session_id, self._session_cwd
        if isinstance(event, ToolCallRecorded):
            arguments = parse_arguments(event.arguments)
            view = present_call(event.name, arguments)
            self._calls[event.call_id] = (event.name, arguments, view)
            note = tool_call_notification(
                session_id,
                event.call_id,
                view,
                arguments=arguments,
                session_cwd=session_cwd,
                terminal_capable=self._terminal_capable,
            )
            return CallShown(event.seq, event.call_id, view, arguments, note)
        if isinstance(event, ApprovalAsked) and event.call_id in self._calls:
            _name, arguments, view = self._calls[event.call_id]
            request = permission_request(
                session_id, event.call_id, view, arguments=arguments, session_cwd=session_cwd
            )
            return ApprovalShown(event.seq, event.call_id, arguments, request)
        if isinstance(event, ToolResultRecorded) and isinstance(event.surface, SurfaceAppend):
            name, arguments, call_view = self._calls.get(event.call_id, (None, None, None))
            result = event.message.result
            view_of_result = present_result(
                name, arguments, call_view, result.content, result.failed, event.meta
            )
            note = tool_result_notification(
                session_id,
                event.call_id,
                view_of_result,
                is_error=result.failed,
                terminal_capable=self._terminal_capable,
                session_cwd=session_cwd,
            )
            return ResultShown(event.seq, event.call_id, view_of_result, note)
        return None


def present_log(
    log: Iterable[Event],
    *,
    session_id: str = "session",
    session_cwd: str = "/workspace",
    terminal_capable: bool = False,
) -> list[Shown]:
    """Everything a UI shows for the calls in `log`, in log order."""
    presenter = LogPresenter(
        session_id=session_id, session_cwd=session_cwd, terminal_capable=terminal_capable
    )
    return [shown for shown in map(presenter.feed, log) if shown is not None]


def presented_wire(shown: Shown) -> dict[str, object]:
    """A shown item as the ACP message a client receives: `{method, params}` (JSON-RPC style),
    `session/update` for a card, `session/request_permission` for an approval prompt."""
    match shown:
        case CallShown() | ResultShown():
            return {"method": "session/update", "params": shown.notification}
        case ApprovalShown():
            return {"method": "session/request_permission", "params": shown.request}
        case _:
            assert_never(shown)
