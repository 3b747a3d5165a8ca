"""The driver protocol: how loopspec drives an implementation in any language (rule PROTO-1).

JSON lines over the implementation's stdin/stdout, one message per line, UTF-8 whatever the locale
(a JVM reads `System.in` and writes `System.out` in the locale's charset, ASCII under `LC_ALL=C`:
give both `StandardCharsets.UTF_8`). What loopspec sends is ASCII: a character past U+007F goes as
a `\\u` escape, one past U+FFFF as its two UTF-16 halves (`"\\ud83d\\udcc2"` is one character,
which a reader must join: Rust's `char::from_u32` refuses each half alone); a lone surrogate escape
stands only inside a call's `arguments` text (EXE-2), never in a string of the message itself, so a
reader that keeps strings as UTF-8 (a Rust `String`) reads every message. loopspec sends; the
implementation answers every message with exactly one line, flushed (Perl's, Python's and C's
stdio, a Java `Writer` and a Rust `BufWriter` hold output to a pipe in a buffer: a loop found
waiting, in any of its threads, for its next message with no answer sent is told to flush; a thread
other than main that died, a JVM's uncaught exception or a Rust panic, while the process lives on
is named instead), within 10 seconds (the first `reset`'s answer, which includes the process's
start-up, too): a later answer is a hang, and the run ends with PROTO-1 (exit 2). A loop that
starts or answers slowly (a JVM, a large bundle) is given longer with `--answer-timeout S`
(conform, replay; the pytest plugin's `--loopspec-answer-timeout S`). What it writes to stderr is
never read as an answer and not shown as it comes (a run sends thousands of commands): its last
2000 bytes are shown when the process breaks the protocol (dies, hangs, answers a line that is not
the protocol's), headed by the last line written flush left when they no longer hold it (a JVM
prints `Exception in thread "main" ...` above a stack trace longer than that; a Rust panic's line
and its message are kept together), and a line repeated in a row is said once with its count. To
read all of it, send it to a file: `--cmd "sh -c 'node loop.mjs 2>>debug.log'"`.

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
        "presented": [{"method": str, "params": {...}}, ...],   # capability "presentation"
        "history": {"kept": int, "appended": [MESSAGE, ...]}}   # capability "history"
    <- {"type": "observed", "seq": int, "accepted": false,
        "refusal": {"rule": str, "message": str}}  # refused: nothing changed

  `events` are compared with the model's command by command, so an event belongs in the answer
  to the command that, in the model, appends it (the transition table, SPEC.md section 6): a
  `HookAnswers` stands for the hook running and answering, so a PreToolUse hook's `hook/invoked`
  and `hook/result` both go in its answer, never the `hook/invoked` in an earlier one (HOOK-4);
  a result in the answer to the command that lets it commit (ORD-3), and the next `step/start`
  with the messages queued for it in the one that commits the batch's last result. `commits`
  may always be one commit of every event (`[len(events)]`, none when there are none), and
  `executed` gives each body the arguments it runs with: the effective string `tool/call`
  records. Argument strings are compared as the JSON values they denote, so spacing and key
  order are yours, and a body's blank text denotes `{}` (EXE-2): reporting the object the body
  got, `"{}"`, for a call recorded with `""` agrees.

  A refusal's `rule` is compared with the model's: the rule the model refuses that command with
  (`refusalRules` in `loopspec schema` says when each applies; MODEL-1 for a command the phase
  does not take). Its `message` is free.

  `presented` (only with the capability "presentation") is what the implementation's UI was
  sent for the events this command appended, in order, as ACP messages: `session/update` (a
  `tool_call` card when a call is recorded, a `tool_call_update` when its result is) and
  `session/request_permission` (when an approval is asked). The client is not
  terminal-capable and the session cwd is `/workspace`; `sessionId` is free. What each message
  holds (title, kind, locations, content, status) for each tool and argument shape is stated in
  SPEC.md section 12, generated from the model's presenters.

  `history` (only with the capability "history") is how the command changed the messages the
  implementation's next model request would carry (HIST-1: the surface's messages in surface
  order, an assistant message with no content left out): the first `kept` messages of the
  history it reported last (none after `reset`) stay, and `appended` follow them. After an
  append, `kept` is the number reported before; when the history is rewritten (a surface
  `replace`, a repair), `kept` is where the rewrite starts, and every message after it is sent
  again. Keeping none and sending the whole history is always correct, but costs a run O(n²).
  A refused command changes nothing and carries none; a `Crash` keeps the history (the durable
  log does), and `Recover` appends its repairs' messages. MESSAGE is a message as an event's
  `data.message` holds it (`messages` in the schema's `$defs`); its id is free and its
  arguments are compared as values, as in events.

  `Crash` means: forget everything not committed (keep the durable log). `Recover` means:
  reopen from the durable log, repairing an open tail turn.

    -> {"type": "shutdown"}
    <- {"type": "bye"}

  A loop answers `shutdown` with `bye` and then exits; one that exits without it is reported
  (PROTO-1, exit 2) after the verdict of the run it finished.

A target that cannot run on this machine (a package or binary it needs is not installed) exits
before answering its first `reset` with status 69 (`EX_UNAVAILABLE` of sysexits.h), what to
install on stderr: loopspec reports a setup error naming no rule (exit 2) and shows that stderr,
where any other death is PROTO-1's. loopspec's adapters of real harnesses do so. A command whose
program cannot be started, whose interpreter cannot find the script it is given, or that exits
127 or 126 before its first answer (a shell's or `env`'s program not found, not executable), is
a setup error too, as is one dying before its first answer on a package it imports that is not
installed, or installed in another version (a Python `ModuleNotFoundError` or `ImportError`,
Node's `ERR_MODULE_NOT_FOUND`, on its stderr).

COMMAND and CONFIG, with what each field means, are in `loopspec schema` (`command` and `config`
in its `$defs`; `loopspec.properties.conformance.command_codec` decodes them); EVENT is the dsh
wire event
`{type, seq, time, data, surfaceOp?, sourceEventSeqs?}`, its schema generated by `log_schema` from
the layout the wire codec is generated from. Comparisons ignore `time` and message
ids, so implementations may use real clocks and UUIDs. `loopspec schema` prints the JSON Schema
of every message below.

Numbers are exact: an integer keeps every digit, however large, and values (a hook's
`updatedInput`, a rewrite's arguments, `meta`) are compared as the JSON values they denote. A
peer whose parser reads every number as a double (JavaScript's `JSON.parse`) changes an integer
beyond 2^53 and is reported for it (RW-2 when it is a hook's input, a note saying the integer
was read as a double); such a peer must keep integers whole, e.g. by parsing them as BigInt (in
Java, whose Gson reads every number as a double and whose `long` stops at 64 bits: BigInteger, or
the number's text). In Node 20 a `JSON.parse` reviver sees a
number's source text (its third argument) only when node runs with
`--harmony-json-parse-with-source`; without it, read numbers from the line yourself. A number
written with a fraction or an exponent is a double (IEEE 754 binary64, as Python and JavaScript
read it), and `1` equals `1.0`: write it back in any form that reads as the same double
(`1e+300`, `30000000000000004e-17` for `0.30000000000000004`), never as the integer its decimal
digits spell, which is compared exactly (the double `1e300` is 10^300 + 5.25e283, not the
integer 10^300). A number printed with 15 significant digits (Perl's default) turns
`0.30000000000000004` into `0.3`; Perl's JSON::PP with `allow_bignum` keeps every digit, but
prints a Math::BigFloat as plain digits (`bstr`), where its `bsstr` keeps the exponent, and
JSON::PP 4.07 reads an integer of 20 digits above 2^64 - 1, or of 19 digits below -2^63, as a
double even with `allow_bignum`.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable
from typing import Any, Final

from loopspec.model.commands import (
    Command,
)
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance import log_schema
from loopspec.properties.conformance.schema_shapes import described, tagged
from loopspec.properties.conformance.wire_layout import (
    CLASSES,
    MEANINGS,
    TAGS,
    UNIONS,
    wire_fields,
)
from loopspec.properties.json_schema_words import schema_error_words

PROTOCOL_VERSION = 1
# The exit status of a target that cannot run here (see the module's text): EX_UNAVAILABLE.
CANNOT_RUN_HERE: Final = 69

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
    "history": "observed.history: how the command changed the messages the next model request "
    "would carry (HIST-1)",
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
        if field.maximum is not None:
            schema = {**schema, "maximum": field.maximum}
        if field.non_empty:
            schema = {**schema, "minLength": 1}
        meaning = MEANINGS.get((cls, field.name))
        if meaning is not None:
            schema = {**schema, "description": meaning}
        properties[field.wire] = schema
        if field.required:
            required.append(field.wire)
    schema = {
        "type": "object",
        "required": required,
        "properties": properties,
        # The codec refuses a member the class lacks: a misspelt optional one would be lost.
        "additionalProperties": False,
    }
    return described(schema, cls)


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
    "MODEL-1": "the command is not accepted in the current phase (SPEC.md section 6 lists every "
    "such pair): the phase is judged first, so EXE-1, EXE-4, HOOK-5, DEC-2 and ABORT-1 apply "
    "only in a phase that takes the command",
    "EXE-1": "a reply, to the open model request, whose tool calls repeat an id, whatever its "
    "finish (max-tokens and cancelled too, though they would drop its calls)",
    "EXE-4": "a tool outcome, during a batch, for a call whose body is not running",
    "HOOK-5": "a tool outcome, for a running call, without one verdict per matching "
    "PostToolUse hook (an outcome for a call not running is EXE-4's, judged first)",
    "DEC-2": "an approval answer, during a batch, while no approval is pending (an abort cancels "
    "a pending one)",
    "ABORT-1": "an Abort while the batch still drains after an earlier Abort",
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
            + "; ".join(f"{m} ({why})" for m, why in PRESENTED_METHODS.items())
            + "; what each holds, per tool and argument shape: SPEC.md section 12",
        },
        "history": {
            "type": "object",
            "required": ["kept", "appended"],
            "properties": {
                "kept": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "how many messages of the history reported last stay",
                },
                "appended": {
                    "type": "array",
                    "items": {
                        "anyOf": [{"$ref": f"#/$defs/messages/{name}"} for name in MESSAGE_SCHEMAS]
                    },
                    "description": "the messages that follow them, in order",
                },
            },
            "additionalProperties": False,
            "description": "with the capability history: how this command changed the messages "
            "the next model request would carry (HIST-1): the first `kept` of the history "
            "reported last stay, `appended` follow",
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
        "description": (
            "JSON lines between loopspec (the driver) and an implementation; what each message "
            "means: python -m pydoc loopspec.properties.conformance.driver_protocol"
        ),
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
    # jsonschema only here: every run imports this module for its schemas, few explain one.
    from jsonschema import Draft202012Validator  # noqa: PLC0415
    from jsonschema.exceptions import best_match  # noqa: PLC0415

    validator = Draft202012Validator({**protocol_schema(), **schema})
    error = best_match(validator.iter_errors(instance))
    if error is None:
        return None
    path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"{path}: {schema_error_words(error)}"
