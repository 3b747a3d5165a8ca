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
        "executed": [{"callId": str, "arguments": str}, ...],   # bodies started, in order
        "presented": [{"method": str, "params": {...}}, ...]}   # capability "presentation"
    <- {"type": "observed", "seq": int, "accepted": false,
        "refusal": {"rule": str, "message": str}}  # refused: nothing changed

  `presented` (only with the capability "presentation") is what the implementation's UI was
  sent for the events this command appended, in order, as ACP messages: `session/update` (a
  `tool_call` card when a call is recorded, a `tool_call_update` when its result is) and
  `session/request_permission` (when an approval is asked). The client is not
  terminal-capable and the session cwd is `/workspace`; `sessionId` is free.

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

import functools
import typing
from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from loopspec.model.commands import (
    Command,
)
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance import log_schema
from loopspec.properties.conformance.log_schema import described, tagged
from loopspec.properties.conformance.wire_layout import (
    CLASSES,
    TAGS,
    UNIONS,
    wire_fields,
)

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
    "presentation": "observed.presented: the ACP messages the UI was sent for the command's "
    "events (call and result cards, permission requests)",
}

# The ACP methods a target with the capability "presentation" reports, and when it sends each.
PRESENTED_METHODS = {
    "session/update": "a tool_call card at each tool/call, a tool_call_update at each tool/result",
    "session/request_permission": "at each approval/asked, with the call's effective rawInput",
}

_STRING: dict[str, Any] = {"type": "string"}
_JSON: dict[str, Any] = {"description": "any JSON value"}

# ---------------------------------------------------------------------------------------------
# Commands and configurations: generated from the attrs classes the codec builds
# (`loopspec.model.commands`, `loopspec.model.config`). Wire names are the fields' names in
# camelCase; what the attrs types cannot say — a union member's tag, a closed set of strings,
# a field the wire requires although the class has a default — is stated once, in
# `wire_layout`, which the codec is generated from too.


def _type_schema(annotation: str) -> dict[str, Any]:
    """The JSON Schema of one field's annotation (as attrs keeps it: source text)."""
    if annotation.endswith(" | None"):
        return _type_schema(annotation.removesuffix(" | None"))
    if annotation.startswith("tuple[") and annotation.endswith(", ...]"):
        return {"type": "array", "items": _type_schema(annotation[6:-6])}
    named = _NAMED_TYPES.get(annotation)
    if named is not None:
        return named()
    raise LookupError(f"no JSON Schema for the annotation {annotation!r}")


def _class_schema(cls: type) -> dict[str, Any]:
    """An attrs class as a JSON object: its wire fields, its tag, what is required."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    tag = TAGS.get(cls)
    if tag is not None:
        properties[tag[0]] = {"const": tag[1]}
        required.append(tag[0])
    for field in wire_fields(cls):
        schema = _type_schema(field.annotation)
        if field.enum is not None:
            schema = {"enum": sorted(field.enum)}
        if field.minimum is not None:
            schema = {**schema, "minimum": field.minimum}
        properties[field.wire] = schema
        if field.required:
            required.append(field.wire)
    return described({"type": "object", "required": required, "properties": properties}, cls)


def _union_schema(union: object) -> dict[str, Any]:
    members = typing.get_args(union)
    key = TAGS[members[0]][0]
    return tagged(key, [(TAGS[m][1], _class_schema(m)) for m in members])


_NAMED_TYPES: dict[str, Callable[[], dict[str, Any]]] = {
    "str": lambda: dict(_STRING),
    "int": lambda: {"type": "integer"},
    "float": lambda: {"type": "number"},
    "bool": lambda: {"type": "boolean"},
    "JsonValue": lambda: dict(_JSON),
    "FrozenMap": lambda: {"type": "object"},
    # The unions and classes a field may name, as the layout (and so the codec) names them.
    **{name: functools.partial(_union_schema, union) for name, union in UNIONS.items()},
    **{name: functools.partial(_class_schema, cls) for name, cls in CLASSES.items()},
}

COMMAND_SCHEMA: dict[str, Any] = _union_schema(Command)
CONFIG_SCHEMA: dict[str, Any] = _class_schema(LoopConfig)

# ---------------------------------------------------------------------------------------------
# Events and messages: generated from the session log's layout (`loopspec.model.log_layout`),
# the one the wire codec is generated from, in `log_schema` (which lists where the schema is
# deliberately stricter than the codec).

EVENT_SCHEMA: dict[str, Any] = log_schema.EVENT_SCHEMA
MESSAGE_SCHEMAS: dict[str, dict[str, Any]] = log_schema.MESSAGE_SCHEMAS

# The rules a refusal may name: the model refuses with these (transition table and handlers).
REFUSAL_RULES: dict[str, str] = {
    "MODEL-1": "the command is not accepted in the current phase",
    "EXE-1": "a reply whose tool calls repeat an id",
    "EXE-4": "a tool outcome for a call whose body is not running",
    "HOOK-5": "a tool outcome without one verdict per matching PostToolUse hook",
    "DEC-2": "an approval answer while no approval is pending",
    "ABORT-1": "a command the aborting batch no longer takes",
    "PROTO-1": "a command the implementation cannot decode (not refused by the model)",
}

TO_IMPLEMENTATION: dict[str, Any] = tagged(
    "type",
    [
        (
            "reset",
            {
                "type": "object",
                "required": ["type", "protocol", "config"],
                "properties": {"protocol": {"const": PROTOCOL_VERSION}, "config": CONFIG_SCHEMA},
                "description": "Start a fresh session (empty log) with this configuration.",
            },
        ),
        (
            "command",
            {
                "type": "object",
                "required": ["type", "seq", "command"],
                "properties": {"seq": {"type": "integer"}, "command": COMMAND_SCHEMA},
                "description": "Apply one command; answer with observed, the same seq.",
            },
        ),
        ("shutdown", {"type": "object", "description": "End; answer with bye."}),
    ],
)

_OBSERVED_ACCEPTED: dict[str, Any] = {
    "type": "object",
    "required": ["type", "seq", "accepted", "events", "commits", "executed"],
    "properties": {
        "seq": {"type": "integer", "description": "the seq of the command this answers"},
        "accepted": {"const": True},
        "events": {
            "type": "array",
            "items": {"$ref": "#/$defs/event"},
            "description": "the events this command appended, in order",
        },
        "commits": {
            "type": "array",
            "items": {"type": "integer", "minimum": 1},
            "description": "the sizes of the atomic commits the events form, in order (LOG-8)",
        },
        "executed": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["callId", "arguments"],
                "properties": {"callId": _STRING, "arguments": _STRING},
            },
            "description": "the tool bodies this command started, with their arguments",
        },
        "presented": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["method", "params"],
                "properties": {
                    "method": {"enum": sorted(PRESENTED_METHODS)},
                    "params": {
                        "type": "object",
                        "description": "the ACP params, strictly valid for the method (ACP-1)",
                    },
                },
            },
            "description": "with the capability presentation: the ACP messages the UI was sent "
            "for this command's events, in order "
            + "; ".join(f"{m} ({why})" for m, why in PRESENTED_METHODS.items()),
        },
    },
}
_OBSERVED_REFUSED: dict[str, Any] = {
    "type": "object",
    "required": ["type", "seq", "accepted", "refusal"],
    "properties": {
        "seq": {"type": "integer"},
        "accepted": {"const": False},
        "refusal": {
            "type": "object",
            "required": ["rule", "message"],
            "properties": {
                "rule": {
                    "type": "string",
                    "pattern": "^[A-Z]+-[0-9]+$",
                    "examples": sorted(REFUSAL_RULES),
                    "description": "the rule ID the refusal names; the model refuses with "
                    + "; ".join(f"{r} ({why})" for r, why in REFUSAL_RULES.items()),
                },
                "message": _STRING,
            },
        },
    },
    "description": "The command was refused and changed nothing (MODEL-3).",
}
FROM_IMPLEMENTATION: dict[str, Any] = tagged(
    "type",
    [
        (
            "ready",
            {
                "type": "object",
                "required": ["type", "implementation", "capabilities"],
                "properties": {
                    "implementation": _STRING,
                    "capabilities": {"type": "array", "items": {"enum": sorted(CAPABILITIES)}},
                },
                "description": "The answer to reset: the optional capabilities implemented.",
            },
        ),
        (
            "observed",
            tagged("accepted", [(True, _OBSERVED_ACCEPTED), (False, _OBSERVED_REFUSED)]),
        ),
        ("bye", {"type": "object", "description": "The answer to shutdown."}),
    ],
)
FROM_IMPLEMENTATION["$defs"] = {"event": EVENT_SCHEMA, "messages": MESSAGE_SCHEMAS}


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
            "messages": MESSAGE_SCHEMAS,
        },
        "refusalRules": REFUSAL_RULES,
        "capabilities": CAPABILITIES,
    }


def explain(schema: dict[str, Any], instance: object) -> str | None:
    """Why `instance` does not validate against `schema` (a `$defs` member of
    `protocol_schema()`), in one line naming the JSON path and what was expected; None if valid.
    """
    validator = Draft202012Validator({**protocol_schema(), **schema})
    error = best_match(validator.iter_errors(instance))
    if error is None:
        return None
    path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"{path}: {error.message}"
