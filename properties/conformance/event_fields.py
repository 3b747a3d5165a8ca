"""Reading one fact of a log event as conformance compares it: the plain JSON object a target or
the model appended, read leniently (a target's event may lack any field, or hold another type).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from loopspec.model.log_layout import NULL_IS_ABSENT_IN_DATA

Event = dict[str, Any]


def data_of(event: Event | None) -> dict[str, Any]:
    """An event's data, {} where it has none (or no object)."""
    data = event.get("data") if event is not None else None
    return data if isinstance(data, dict) else {}


def call_id_of(event: Event | None) -> str | None:
    """The call an event names: its data's callId, or its message's source's (a context)."""
    data = data_of(event)
    if isinstance(data.get("callId"), str):
        return str(data["callId"])
    message = data.get("message")
    if isinstance(message, dict):
        source = message.get("source")
        if isinstance(source, dict) and isinstance(source.get("callId"), str):
            return str(source["callId"])
    return None


def call_record(call_id: str | None, events: Sequence[Event]) -> Event | None:
    """The latest tool/call of `events` recording call `call_id` (ids are unique within a reply
    only), None when none does."""
    return next(
        (e for e in reversed(events) if e.get("type") == "tool/call" and call_id_of(e) == call_id),
        None,
    )


def result_for(call_id: str | None, events: Sequence[Event]) -> bool:
    """Whether `events` hold a tool/result of call `call_id`."""
    return any(e.get("type") == "tool/result" and call_id_of(e) == call_id for e in events)


def approval_asked_for(call_id: str | None, events: Sequence[Event]) -> bool:
    """Whether `events` hold an approval/asked about call `call_id`."""
    return any(e.get("type") == "approval/asked" and call_id_of(e) == call_id for e in events)


def error_code(event: Event | None) -> object:
    """A tool/result's error code, None when it carries none."""
    error = data_of(event).get("error")
    return error.get("code") if isinstance(error, dict) else None


def message_text(message: Event) -> str | None:
    """The text of a user/message of one text block, else None."""
    content = data_of(message).get("content")
    texts = [b.get("text") for b in content or [] if isinstance(b, dict)]
    return texts[0] if len(texts) == 1 and isinstance(texts[0], str) else None


def whitespace_only(message: Event) -> bool:
    """Whether a user/message is one text block of only whitespace (not empty)."""
    text = message_text(message)
    return text is not None and text != "" and not text.strip()


def normalized(event: dict[str, Any]) -> dict[str, Any]:
    """`event` without what implementations may choose freely: `time` and message ids; and
    without a member written null that every reader takes as left out (`"meta": null`).

    Message ids sit in `data.message.id` (assistant messages, tool results) and, for
    `user/message`, whose data is the message itself, in `data.id`.
    """
    out = {key: value for key, value in event.items() if key != "time"}
    data = out.get("data")
    if isinstance(data, dict):
        data = dict(data)
        for key in NULL_IS_ABSENT_IN_DATA.get(out.get("type", ""), ()):
            if key in data and data[key] is None:
                del data[key]
        message = data.get("message")
        if isinstance(message, dict):
            data["message"] = {k: v for k, v in message.items() if k != "id"}
        if out.get("type") == "user/message":
            data.pop("id", None)
        out["data"] = data
    return out
