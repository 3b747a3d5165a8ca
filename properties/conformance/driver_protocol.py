"""The driver protocol: how loopspec drives an implementation in any language (rule PROTO-1).

JSON lines over the implementation's stdin/stdout, one message per line, UTF-8. loopspec sends;
the implementation answers every message with exactly one line. Anything it writes to stderr is
shown to the user but never parsed.

    -> {"type": "reset", "protocol": 1, "config": CONFIG}
    <- {"type": "ready", "implementation": str, "capabilities": [CAPABILITY, ...]}

  `reset` starts a fresh session (empty log) with the given configuration; the first one is
  the handshake. Capabilities say which optional features the implementation has; commands that
  need a missing capability are never sent, and their rules are reported "not applicable".

    -> {"type": "command", "seq": int, "command": COMMAND}
    <- {"type": "observed", "seq": int, "accepted": true,
        "events": [EVENT, ...],        # the wire events this command appended, in order
        "commits": [int, ...],         # the sizes of the atomic commits they form, in order
        "executed": [{"callId": str, "arguments": str}, ...]}   # bodies started, in order
    <- {"type": "observed", "seq": int, "accepted": false,
        "refusal": {"rule": str, "message": str}}  # refused: nothing changed

  `Crash` means: forget everything not committed (keep the durable log). `Recover` means:
  reopen from the durable log, repairing an open tail turn.

    -> {"type": "shutdown"}
    <- {"type": "bye"}

COMMAND and CONFIG are defined in `loopspec.properties.conformance.command_codec`; EVENT is the dsh
wire event
`{type, seq, time, data, surfaceOp?, sourceEventSeqs?}`. Comparisons ignore `time` and message
ids, so implementations may use real clocks and UUIDs. `loopspec schema` prints the JSON Schema
of every message below.
"""

from __future__ import annotations

from typing import Any

PROTOCOL_VERSION = 1

CAPABILITIES = {
    "rewrite": "PreToolUse hooks may replace a call's input (updatedInput)",
    "pre-hooks": "PreToolUse hooks (HookAnswers commands)",
    "post-hooks": "PostToolUse hooks (verdicts in ToolFinishes.post)",
    "approval": "ask decisions and ApprovalAnswers",
    "parallel": "concurrency-safe calls overlap (max_parallel > 1)",
    "abort": "Abort commands",
    "crash-repair": "Crash and Recover commands",
    "max-tokens": "ModelReplies finishing max-tokens or cancelled",
    "queued-input": "SubmitUser while a turn is open",
    "result-meta": "ToolSucceeded.meta reaches the tool/result (presentation meta)",
}

_STRING = {"type": "string"}
_JSON: dict[str, Any] = {}
_AUDIT = {
    "type": "object",
    "properties": {
        "decision": _STRING,
        "exitCode": {"type": "integer"},
        "stderrSummary": _STRING,
        "durationMs": {"type": "number", "minimum": 0},
    },
}
_VERDICT = {
    "oneOf": [
        {"type": "object", "required": ["decision"], "properties": {"decision": {"const": "pass"}}},
        {
            "type": "object",
            "required": ["decision"],
            "properties": {
                "decision": {"enum": ["allow", "ask"]},
                "reason": _STRING,
                "updatedInput": _JSON,
            },
        },
        {
            "type": "object",
            "required": ["decision", "reason"],
            "properties": {"decision": {"const": "deny"}, "reason": _STRING},
        },
    ]
}
_POST_VERDICT = {
    "oneOf": [
        {
            "type": "object",
            "required": ["decision"],
            "properties": {"decision": {"const": "pass"}, "audit": _AUDIT},
        },
        {
            "type": "object",
            "required": ["decision", "text"],
            "properties": {"decision": {"const": "context"}, "text": _STRING, "audit": _AUDIT},
        },
        {
            "type": "object",
            "required": ["decision", "reason"],
            "properties": {"decision": {"const": "block"}, "reason": _STRING, "audit": _AUDIT},
        },
    ]
}
_BLOCK = {
    "oneOf": [
        {
            "type": "object",
            "required": ["type", "text"],
            "properties": {"type": {"enum": ["text", "reasoning"]}, "text": _STRING},
        },
        {
            "type": "object",
            "required": ["type", "id", "name", "arguments"],
            "properties": {
                "type": {"const": "tool-call"},
                "id": {"type": "string", "minLength": 1},
                "name": {"type": "string", "minLength": 1},
                "arguments": _STRING,
            },
        },
    ]
}


def _command(kind: str, required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["kind", *required],
        "properties": {"kind": {"const": kind}, **properties},
    }


COMMAND_SCHEMA: dict[str, Any] = {
    "oneOf": [
        _command("SubmitUser", ["text"], {"text": _STRING}),
        _command(
            "ModelReplies",
            ["blocks", "finish"],
            {
                "finish": {"enum": ["completed", "max-tokens", "cancelled"]},
                "blocks": {"type": "array", "items": _BLOCK},
            },
        ),
        _command("ModelFails", ["message", "code"], {"message": _STRING, "code": _STRING}),
        _command("HookAnswers", ["verdict"], {"verdict": _VERDICT, "audit": _AUDIT}),
        _command(
            "ApprovalAnswers",
            ["outcome"],
            {"outcome": {"enum": ["allowed-once", "rejected", "cancelled", "unavailable"]}},
        ),
        _command(
            "ToolFinishes",
            ["callId", "outcome"],
            {
                "callId": _STRING,
                "outcome": {
                    "oneOf": [
                        {
                            "type": "object",
                            "required": ["ok", "text"],
                            "properties": {
                                "ok": {"const": True},
                                "text": _STRING,
                                "contexts": {"type": "array", "items": _STRING},
                                "meta": _JSON,
                            },
                        },
                        {
                            "type": "object",
                            "required": ["ok", "message"],
                            "properties": {
                                "ok": {"const": False},
                                "message": _STRING,
                                "code": _STRING,
                                "errorName": _STRING,
                            },
                        },
                    ]
                },
                "post": {"type": "array", "items": _POST_VERDICT},
            },
        ),
        _command("Abort", ["cause"], {"cause": {"enum": ["user", "parent", "hook", "disposed"]}}),
        _command("Crash", [], {}),
        _command("Recover", [], {}),
    ]
}

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["tools", "hooks", "maxParallel", "provider", "model", "epochMs"],
    "properties": {
        "tools": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "concurrencySafe", "requiredKeys"],
                "properties": {
                    "name": _STRING,
                    "concurrencySafe": {"type": "boolean"},
                    "requiredKeys": {"type": "array", "items": _STRING},
                },
            },
        },
        "hooks": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["handlerId", "point", "matcher", "dialect"],
                "properties": {
                    "handlerId": _STRING,
                    "point": {"enum": ["PreToolUse", "PostToolUse"]},
                    "matcher": _STRING,
                    "dialect": {"enum": ["claude-code", "codex"]},
                },
            },
        },
        "maxParallel": {"type": "integer", "minimum": 1},
        "provider": _STRING,
        "model": _STRING,
        "epochMs": {"type": "integer"},
    },
}

EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "seq", "time", "data"],
    "properties": {
        "type": {"type": "string", "minLength": 1},
        "seq": {"type": "integer", "minimum": 0},
        "time": {"type": "integer"},
        "data": _JSON,
        "surfaceOp": _JSON,
        "sourceEventSeqs": {"type": "array", "items": {"type": "integer"}},
    },
}

TO_IMPLEMENTATION: dict[str, Any] = {
    "oneOf": [
        {
            "type": "object",
            "required": ["type", "protocol", "config"],
            "properties": {
                "type": {"const": "reset"},
                "protocol": {"const": PROTOCOL_VERSION},
                "config": CONFIG_SCHEMA,
            },
        },
        {
            "type": "object",
            "required": ["type", "seq", "command"],
            "properties": {
                "type": {"const": "command"},
                "seq": {"type": "integer"},
                "command": COMMAND_SCHEMA,
            },
        },
        {"type": "object", "required": ["type"], "properties": {"type": {"const": "shutdown"}}},
    ]
}

FROM_IMPLEMENTATION: dict[str, Any] = {
    "oneOf": [
        {
            "type": "object",
            "required": ["type", "implementation", "capabilities"],
            "properties": {
                "type": {"const": "ready"},
                "implementation": _STRING,
                "capabilities": {"type": "array", "items": {"enum": sorted(CAPABILITIES)}},
            },
        },
        {
            "type": "object",
            "required": ["type", "seq", "accepted", "events", "commits", "executed"],
            "properties": {
                "type": {"const": "observed"},
                "seq": {"type": "integer"},
                "accepted": {"const": True},
                "events": {"type": "array", "items": EVENT_SCHEMA},
                "commits": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                "executed": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["callId", "arguments"],
                        "properties": {"callId": _STRING, "arguments": _STRING},
                    },
                },
            },
        },
        {
            "type": "object",
            "required": ["type", "seq", "accepted", "refusal"],
            "properties": {
                "type": {"const": "observed"},
                "seq": {"type": "integer"},
                "accepted": {"const": False},
                "refusal": {
                    "type": "object",
                    "required": ["rule", "message"],
                    "properties": {"rule": _STRING, "message": _STRING},
                },
            },
        },
        {"type": "object", "required": ["type"], "properties": {"type": {"const": "bye"}}},
    ]
}


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of every message, both directions."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "loopspec driver protocol",
        "description": "JSON lines between loopspec (the driver) and an implementation.",
        "version": PROTOCOL_VERSION,
        "$defs": {
            "toImplementation": TO_IMPLEMENTATION,
            "fromImplementation": FROM_IMPLEMENTATION,
            "command": COMMAND_SCHEMA,
            "config": CONFIG_SCHEMA,
            "event": EVENT_SCHEMA,
        },
        "capabilities": CAPABILITIES,
    }
