"""The JSON a hook reads on stdin, per dialect.

Claude Code: `session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`,
`tool_name`, `tool_input`, `tool_use_id`, and for PostToolUse `tool_response`. Codex sends the
same and adds `turn_id` and `model`.
"""

from __future__ import annotations

import json

import attrs

from loopspec.impl.hookbridge.settings import CODEX
from loopspec.model.config import POST_TOOL_USE
from loopspec.model.jsonvalue import JsonValue, thaw


@attrs.frozen
class SessionFacts:
    """What every payload says about the session, fixed for a bridge's lifetime."""

    session_id: str
    cwd: str
    transcript_path: str | None
    permission_mode: str
    model: str


@attrs.frozen
class CallFacts:
    """What a payload says about the one call being judged."""

    point: str
    call_id: str
    tool_name: str
    tool_input: JsonValue
    tool_response: JsonValue
    turn_id: str


def payload_bytes(dialect: str, session: SessionFacts, call: CallFacts) -> bytes:
    """The UTF-8 JSON document written to the hook's stdin."""
    payload: dict[str, object] = {
        "session_id": session.session_id,
        "transcript_path": session.transcript_path,
        "cwd": session.cwd,
        "permission_mode": session.permission_mode,
        "hook_event_name": call.point,
        "tool_name": call.tool_name,
        "tool_input": thaw(call.tool_input),
        "tool_use_id": call.call_id,
    }
    if call.point == POST_TOOL_USE:
        payload["tool_response"] = thaw(call.tool_response)
    if dialect == CODEX:
        payload["turn_id"] = call.turn_id
        payload["model"] = session.model
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")
