"""Presentation by replay: the views and ACP updates a log produces (rules VIEW-2, ACP-1, RW-1).

Presentation reads the audit record: a call's card is rendered from `tool/call.arguments`, and
its result card from the durable result plus the remembered call. Because the rewrite lands in
`tool/call` before anything renders, the UI shows exactly what runs. Live emission and replay
must agree, so both go through this one function of the log.
"""

from __future__ import annotations

from collections.abc import Iterable

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


def present_log(
    log: Iterable[Event],
    *,
    session_id: str = "session",
    session_cwd: str = "/workspace",
    terminal_capable: bool = False,
) -> list[Shown]:
    """Everything a UI shows for the calls in `log`, in log order."""
    shown: list[Shown] = []
    calls: dict[str, tuple[str, JsonValue, ToolCallView]] = {}
    for event in log:
        if isinstance(event, ToolCallRecorded):
            arguments = parse_arguments(event.arguments)
            view = present_call(event.name, arguments)
            calls[event.call_id] = (event.name, arguments, view)
            note = tool_call_notification(
                session_id,
                event.call_id,
                view,
                arguments=arguments,
                session_cwd=session_cwd,
                terminal_capable=terminal_capable,
            )
            shown.append(CallShown(event.seq, event.call_id, view, arguments, note))
        elif isinstance(event, ApprovalAsked) and event.call_id in calls:
            _name, arguments, view = calls[event.call_id]
            request = permission_request(
                session_id, event.call_id, view, arguments=arguments, session_cwd=session_cwd
            )
            shown.append(ApprovalShown(event.seq, event.call_id, arguments, request))
        elif isinstance(event, ToolResultRecorded) and isinstance(event.surface, SurfaceAppend):
            name, arguments, call_view = calls.get(event.call_id, (None, None, None))
            result = event.message.result
            view_of_result = present_result(
                name, arguments, call_view, result.content, result.failed, event.meta
            )
            note = tool_result_notification(
                session_id,
                event.call_id,
                view_of_result,
                is_error=result.failed,
                terminal_capable=terminal_capable,
                session_cwd=session_cwd,
            )
            shown.append(ResultShown(event.seq, event.call_id, view_of_result, note))
    return shown
