"""Claude Code's `/compact` in the model requests it sends: read by the mock model (which reply a
request asks for) and the run report (what the model was sent of each call).

Claude Code 2.1.332 (observed offline, 2026-12-06) asks the model for the summary with the
history up to the turn's last tool result (the turn's last reply left out), its last user
message ending in a text that begins with `COMPACT_REQUEST_START`; each request after it carries
the summary, the messages it kept (that last reply among them), then its record of the command
(`COMPACT_COMMAND`) and what followed. The history before the compaction is in no later request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

COMPACT_REQUEST_START = "CRITICAL: Respond with TEXT ONLY."
COMPACT_COMMAND = "<command-name>/compact</command-name>"


def _messages(body: Any) -> list[Any] | None:
    messages = body.get("messages") if isinstance(body, dict) else None
    return messages if isinstance(messages, list) else None


def _summary_request_text(block: Any) -> bool:
    return (
        isinstance(block, dict)
        and isinstance(block.get("text"), str)
        and block["text"].startswith(COMPACT_REQUEST_START)
    )


def asks_for_a_summary(body: Any) -> bool:
    """Whether an Anthropic Messages request is Claude Code's `/compact` summary request."""
    messages = _messages(body)
    last = messages[-1] if messages else None
    if not isinstance(last, dict) or last.get("role") != "user":
        return False
    content = last.get("content")
    if isinstance(content, str):
        return content.startswith(COMPACT_REQUEST_START)
    return isinstance(content, list) and bool(content) and _summary_request_text(content[-1])


def after_compaction(body: Any) -> Any:
    """The request with only its messages after its last record of `/compact`, or None when it
    holds none (no compaction replaced its history)."""
    messages = _messages(body)
    if messages is None:
        return None
    marked = [i for i, m in enumerate(messages) if COMPACT_COMMAND in json.dumps(m)]
    return {**body, "messages": messages[marked[-1] + 1 :]} if marked else None


def whole_history(bodies: Sequence[Any]) -> Any:
    """The last request of `bodies` with each compaction's history put back before what followed
    it: the messages each summary request sent (without its request for the summary; a retry
    once), then the
    last request's since its last record of `/compact`. The last request as it is when no
    compaction came before it."""
    if not bodies:
        return None
    before: list[Any] = []
    summarized: list[Any] | None = None  # the latest summary request's (a retry's replaces it)
    for body in [*bodies[:-1], None]:
        if body is not None and asks_for_a_summary(body):
            since = after_compaction(body)
            # (A last message holding both the record of an earlier `/compact` and the request
            # for this summary leaves nothing after the record: its own messages are sent.)
            sent = (_messages(since) if since is not None else None) or _messages(body) or []
            summarized = [*sent[:-1], _without_summary_request(sent[-1])] if sent else None
        elif summarized is not None:
            before += summarized
            summarized = None
    last = bodies[-1]
    since = after_compaction(last)
    if not before or since is None:
        return last
    return {**last, "messages": [*before, *(_messages(since) or [])]}


def _without_summary_request(message: Any) -> Any:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return message
    return {**message, "content": [b for b in content if not _summary_request_text(b)]}
