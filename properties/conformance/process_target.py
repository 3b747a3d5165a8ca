"""An implementation in any language, as a `ConformanceTarget`: a process speaking the driver
protocol (`loopspec.properties.conformance.driver_protocol`) on its stdin and stdout (rule PROTO-1).

`ProcessTarget(command)` starts the command (a shell-like string, split with `shlex`, or an argv
list) at the first `reset`, sends one JSON line per message and reads exactly one JSON line back.
Every answer is checked against the protocol's JSON Schema and against the message it answers
(`ready` for `reset`, `observed` with the same seq for a command, `bye` for `shutdown`). Anything
that goes wrong — the process cannot start, dies, stays silent past the per-message timeout,
writes something that is not JSON or not the expected answer — raises `ProcessTargetError`,
whose message quotes the offending line and the tail of the process's stderr, and kills the
process; the next `reset` starts a fresh one.

`normalized(event)` is the form in which events are compared with the model's: implementations
may use real clocks and their own message ids, so `time` and message ids are dropped.
"""

from __future__ import annotations

import ast
import contextlib
import errno
import functools
import heapq
import itertools
import json
import os
import platform
import queue
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, Final, NamedTuple, NoReturn

from loopspec.impl.hookbridge.reaping import kill_marked, marked_environment, new_token
from loopspec.impl.system_words import system_reason
from loopspec.impl.user_files import MAX_JSON_DEPTH, json_depth, shown
from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.model.errors import NO_RULE_BROKEN, InvalidEventError, LoopSpecError
from loopspec.model.json_text import spelled, too_long_integer
from loopspec.model.repeated_keys import repeated_key
from loopspec.properties.conformance.case_portable import portable
from loopspec.properties.conformance.command_codec import command_to_json, config_to_json
from loopspec.properties.conformance.driver_protocol import (
    FROM_IMPLEMENTATION,
    PROTOCOL_VERSION,
)
from loopspec.properties.conformance.event_fields import normalized
from loopspec.properties.conformance.history_change import (
    HistoryChange,
    HistoryRewound,
    ReportedHistory,
    comparable_change,
)
from loopspec.properties.conformance.presented import normalized_item
from loopspec.properties.conformance.schema_shape import UNKNOWN, Shaper, shaper
from loopspec.properties.conformance.start_errors import (
    env_missed,
    impl_module_given_as_command,
    missing_in_shell_code,
    missing_relative_paths,
    module_missing,
    nearest_file,
    npx_silent_hint,
    path_split_at_spaces,
    script_missing,
    setup_problem,
    start_hint,
)
from loopspec.properties.conformance.target import Observation
from loopspec.properties.conformance.waiting import still_waiting
from loopspec.properties.json_schema_words import schema_error_words
from loopspec.properties.target_signals import children_start_with_default_interrupts
from loopspec.properties.typographic import curled_quotes_hint

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

DEFAULT_TIMEOUT: Final = 10.0
SHUTDOWN_GRACE: Final = 2.0
TERM_GRACE: Final = 1.0
"""How long a target asked to end (SIGTERM) has to remove what it made before it is killed."""
LINE_EXCERPT: Final = 300
STDERR_TAIL: Final = 2000
HEADLINE_BYTES: Final = 500
"""How much of stderr's last line written flush left is kept besides its tail (a headline)."""
MAX_LINE_BYTES: Final = 16 * 1024 * 1024
"""The longest answer line read from a target (rule SAFE-4); a longer one is a protocol error."""
POLL_INTERVAL: Final = 0.1
EXITED_GRACE: Final = 0.3
QUICK_MULTIPLE: Final = 10
QUICK_FLOOR: Final = 0.5
"""Inside `ProcessTarget.quick_answers`, an answer is awaited `QUICK_MULTIPLE` times the slowest
answer of its type so far, at least `QUICK_FLOOR` seconds (and never longer than the timeout)."""
LINES_BUFFERED: Final = 64
"""Lines read ahead of the conversation; a target that floods output then waits to write."""
READ_BYTES: Final = 1 << 16
"""The most a target's output is read at once."""


def _type_guard(item: object) -> str | None:
    """The event type an `allOf` item of the event schema is about, when it is exactly
    `{"if": {"properties": {"type": {"const": T}}, "required": ["type"]}, "then": ...}`."""
    if not isinstance(item, dict) or set(item) != {"if", "then"}:
        return None
    match item["if"]:
        case {"properties": {"type": {"const": str() as name}}}:
            guard = {"properties": {"type": {"const": name}}, "required": ["type"]}
            return name if item["if"] == guard else None
        case _:
            return None


def _event_validators() -> dict[str | None, Draft202012Validator]:
    """Per event type, a validator of the event schema keeping only that type's `if`/`then`
    (under None: none of them, for a type the schema does not name).

    The full schema tries every type's `if` on every event: 10-17 ms per answer of a few events,
    more than a real loop's own work per command. On an event whose `type` is a string, every
    other type's `if` fails and its `then` adds nothing, so the reduced schema gives the same
    verdict. Empty (no shortcut) if an `allOf` item is not such a type guard.
    """
    from jsonschema import Draft202012Validator  # noqa: PLC0415 (see `_validators`)

    defs = FROM_IMPLEMENTATION["$defs"]
    event = defs["event"]
    by_type: dict[str | None, list[object]] = {None: []}
    for item in event.get("allOf", []):
        name = _type_guard(item)
        if name is None:
            return {}
        by_type.setdefault(name, []).append(item)
    return {
        name: Draft202012Validator({**event, "allOf": items, "$defs": defs})
        for name, items in by_type.items()
    }


def _clock_free_schemas() -> bool:
    """Whether the event schema asks of `seq` and `time` only a non-negative integer (LOG-4),
    and of `sourceEventSeqs` (where a type allows it) only a list of integers, at the top level
    and in every type's branch: then an event with any such values is valid exactly when the
    same event with all of them set to 0 is."""
    event = FROM_IMPLEMENTATION["$defs"]["event"]
    levels = [event, event.get("then", {}), *(item["then"] for item in event.get("allOf", []))]
    free: dict[str, tuple[dict[str, object], ...]] = {
        "seq": ({}, {"type": "integer", "minimum": 0}),
        # (The envelope bounds it below, LOG-4; each type's branch may say only integer.)
        "time": ({}, {"type": "integer"}, {"type": "integer", "minimum": 0}),
        "sourceEventSeqs": ({}, {"type": "array", "items": {"type": "integer"}}),
    }
    for level in levels:
        properties = level.get("properties", {})
        for name, allowed in free.items():
            asked = {k: v for k, v in properties.get(name, {}).items() if k != "description"}
            if asked not in allowed:
                return False
        # Any other keyword (if, not, ...) must not speak of them at all, but to ask that they
        # are there (`required`): the same event with other such values is there alike.
        others = {
            k: v for k, v in level.items() if k not in ("properties", "required", "allOf", "then")
        }
        said = json.dumps(_without_required(others))
        if any(f'"{name}"' in said for name in free):
            return False
    return True


def _without_required(schema: object) -> object:
    """`schema` with every `required` list left out."""
    if isinstance(schema, dict):
        return {k: _without_required(v) for k, v in schema.items() if k != "required"}
    if isinstance(schema, list):
        return [_without_required(item) for item in schema]
    return schema


# Where each message event's message sits in the event, and the message's schema.
_MESSAGE_AT: Final = {
    "user/message": ((), "UserMessage"),
    "assistant/message": (("message",), "AssistantMessage"),
    "tool/result": (("message",), "ToolResultMessage"),
}


def _free_message_ids() -> bool:
    """Whether the schema asks of a message event's message `id` only a string: each message
    schema says so and says nothing else of `id`, and each message event's branch reaches its
    message only at `_MESSAGE_AT`. Then such an event is valid exactly when the same event with
    the id "" is (a loop that makes a fresh id per message, a UUID, repeats no event else)."""
    defs = FROM_IMPLEMENTATION["$defs"]
    data_free = {k: v for k, v in defs["event"]["properties"]["data"].items() if k != "description"}
    if data_free:
        return False
    branches = {
        name: item["then"]
        for item in defs["event"].get("allOf", [])
        if (name := _type_guard(item)) is not None
    }
    for kind, (path, name) in _MESSAGE_AT.items():
        message = defs["messages"].get(name, {})
        id_ = message.get("properties", {}).get("id", {})
        asked = {k: v for k, v in id_.items() if k != "description"}
        others = {k: v for k, v in message.items() if k not in ("properties", "required")}
        if asked != {"type": "string"} or '"id"' in json.dumps(_without_required(others)):
            return False
        at = branches.get(kind, {})
        for step in ("data", *path):
            # A closed object (`additionalProperties: false`) keeps the keys an id changes not.
            words = {"type", "required", "properties", "description", "additionalProperties"}
            if set(at) - words or at.get("additionalProperties", False) is not False:
                return False
            at = at.get("properties", {}).get(step, {})
        if at != {"$ref": f"#/$defs/messages/{name}"}:
            return False
    return True


_CLOCK_FREE = _clock_free_schemas()
_IDS_FREE = _free_message_ids()
# Events found valid, by their JSON with the values above set to 0 and "": a run repeats most
# events but for those (a turn's start, a step's end, the same reply), and a check costs
# 0.2-1 ms.
_VALID_EVENTS: set[str] = set()
_VALID_EVENTS_KEPT: Final = 20_000


@functools.cache
def _data_shapers() -> dict[str, Shaper]:
    """Per event type, the shape of its `data` under its branch of the event schema
    (`schema_shape`), for each type whose branch is the one place the event schema speaks of
    `data`'s value: the top level asks nothing of it, no other keyword there or in the branch
    names it (but to require it), and no other branch is about the type. Then an event of that
    type is valid exactly when the same event with its data's shape is. Built at the first
    event remembered (see `_validators`)."""
    defs = FROM_IMPLEMENTATION["$defs"]
    event = defs["event"]
    asked = {k: v for k, v in event["properties"]["data"].items() if k != "description"}
    others = {k: v for k, v in event.items() if k not in ("properties", "allOf", "description")}
    if asked or '"data"' in json.dumps(_without_required(others)):
        return {}
    branches: dict[str, list[dict[str, Any]]] = {}
    for item in event.get("allOf", []):
        name = _type_guard(item)
        if name is None:
            return {}
        branches.setdefault(name, []).append(item["then"])
    shapers = {}
    for name, thens in branches.items():
        (then, *more) = thens
        said = {k: v for k, v in then.items() if k not in ("properties", "description")}
        if more or '"data"' in json.dumps(_without_required(said)):
            continue
        shapers[name] = shaper(then.get("properties", {}).get("data", {}), defs)
    return shapers


def _remembered_as(event: dict[str, Any]) -> str | None:
    """The key `event` is remembered by once found valid; None: not to be remembered."""
    seq, time_ = event.get("seq"), event.get("time")
    if not (_CLOCK_FREE and type(seq) is int and seq >= 0 and type(time_) is int and time_ >= 0):
        return None
    key = {**event, "seq": 0, "time": 0}
    cited = event.get("sourceEventSeqs")
    if isinstance(cited, list) and all(type(seq) is int for seq in cited):
        key["sourceEventSeqs"] = [0] * len(cited)
    shape = _data_shapers().get(str(event.get("type")))
    at = _MESSAGE_AT.get(str(event.get("type"))) if _IDS_FREE else None
    if shape is not None and "data" in event:
        data = shape(event["data"])
        if data is UNKNOWN:
            return None
        key["data"] = data
    elif at is not None:
        key["data"] = _without_id(event.get("data"), at[0])
    return json.dumps(key, sort_keys=True)


def _without_id(data: object, path: tuple[str, ...]) -> object:
    """`data` with the message at `path` in it holding the id "", if that id is a string."""
    if not isinstance(data, dict):
        return data
    if path:
        return {**data, path[0]: _without_id(data[path[0]], path[1:])} if path[0] in data else data
    return {**data, "id": ""} if type(data.get("id")) is str else data


def _event_valid(event: dict[str, Any], validator: Draft202012Validator) -> bool:
    key = _remembered_as(event)
    if key is None:
        return bool(validator.is_valid(event))
    if key in _VALID_EVENTS:
        return True
    if not validator.is_valid(event):
        return False
    if len(_VALID_EVENTS) >= _VALID_EVENTS_KEPT:
        _VALID_EVENTS.clear()
    _VALID_EVENTS.add(key)
    return True


def _appended_schema() -> dict[str, Any] | None:
    """The schema of an item of an accepted answer's `history.appended`, when that is the one
    place the protocol schema speaks of `appended` and it asks only that it is a list of such
    items; else None."""
    said = json.dumps(_without_required(FROM_IMPLEMENTATION))
    if said.count('"appended"') != 1:
        return None
    for item in FROM_IMPLEMENTATION.get("allOf", []):
        for branch in item.get("then", {}).get("allOf", []):
            history = branch.get("then", {}).get("properties", {}).get("history")
            if not isinstance(history, dict):
                continue
            appended = history.get("properties", {}).get("appended", {})
            asked = {k: v for k, v in appended.items() if k != "description"}
            if set(asked) == {"type", "items"} and asked["type"] == "array":
                items: dict[str, Any] = asked["items"]
                return items
    return None


_APPENDED_SCHEMA = _appended_schema()


class _Validators(NamedTuple):
    answer: Draft202012Validator
    """The whole protocol schema, for any answer."""
    events: dict[str | None, Draft202012Validator]
    """Per event type, its branch of the event schema (`_event_validators`)."""
    message: Draft202012Validator | None
    """An item of `history.appended`, when `_appended_schema` found its schema."""


@functools.cache
def _validators() -> _Validators:
    """The protocol's validators, built when a target's first answer is checked (only a --cmd
    target's answers are): importing jsonschema and building them at load time was a fifth of a
    `replay` on the bundled implementation."""
    from jsonschema import Draft202012Validator  # noqa: PLC0415 (only when answers are checked)

    message = (
        None
        if _APPENDED_SCHEMA is None
        else Draft202012Validator({**_APPENDED_SCHEMA, "$defs": FROM_IMPLEMENTATION["$defs"]})
    )
    return _Validators(Draft202012Validator(FROM_IMPLEMENTATION), _event_validators(), message)


# Whether an appended message is valid exactly when it is with the id "": each is one of the
# message schemas, whose ids are free.
_ANY_MESSAGE = {"anyOf": [{"$ref": f"#/$defs/messages/{name}"} for _, name in _MESSAGE_AT.values()]}
_APPENDED_IDS_FREE = _IDS_FREE and _APPENDED_SCHEMA == _ANY_MESSAGE
# Appended messages found valid, by their JSON with the id "": a history repeats the messages
# its events carried, and a history's check by the full schema was a third of conform's CPU.
_VALID_MESSAGES: set[str] = set()


def _free_answer_counts() -> bool:
    """Whether the protocol schema, outside its `$defs` (events and messages, checked apart),
    asks of an answer's `seq` only an integer and of its history's `kept` only a non-negative
    integer, and names them nowhere else but to require them: then an answer is valid exactly
    when the same answer with both set to 0 is."""
    top = _without_required({k: v for k, v in FROM_IMPLEMENTATION.items() if k != "$defs"})
    allowed = {"seq": {"type": "integer"}, "kept": {"type": "integer", "minimum": 0}}
    found = dict.fromkeys(allowed, 0)
    stack: list[object] = [top]
    while stack:
        schema = stack.pop()
        if isinstance(schema, list):
            stack.extend(schema)
        if not isinstance(schema, dict):
            continue
        stack.extend(schema.values())
        properties = schema.get("properties")
        for name, asked in allowed.items():
            if isinstance(properties, dict) and name in properties:
                found[name] += 1
                if {k: v for k, v in properties[name].items() if k != "description"} != asked:
                    return False
    said = json.dumps(top)
    return all(said.count(f'"{name}"') == found[name] for name in allowed)


_COUNTS_FREE = _free_answer_counts()
# Answers found valid without their events and appended messages, by their JSON with seq and
# kept set to 0: most commands start no body and present nothing, and a check costs 0.5 ms.
_VALID_SHELLS: set[str] = set()


def _shell_valid(shell: dict[str, Any]) -> bool:
    """`shell` (an answer without its events and appended messages) is valid, remembered."""
    seq, history = shell.get("seq"), shell.get("history")
    kept = history.get("kept") if isinstance(history, dict) else 0
    if not (_COUNTS_FREE and type(seq) is int and type(kept) is int and kept >= 0):
        return bool(_validators().answer.is_valid(shell))
    key = {**shell, "seq": 0}
    if isinstance(history, dict):
        key["history"] = {**history, "kept": 0}
    remembered = json.dumps(key, sort_keys=True)
    if remembered in _VALID_SHELLS:
        return True
    if not _validators().answer.is_valid(shell):
        return False
    if len(_VALID_SHELLS) >= _VALID_EVENTS_KEPT:
        _VALID_SHELLS.clear()
    _VALID_SHELLS.add(remembered)
    return True


def _message_valid(message: object) -> bool:
    validator = _validators().message
    assert validator is not None
    if not isinstance(message, dict):
        return bool(validator.is_valid(message))
    key = json.dumps(_without_id(message, ()) if _APPENDED_IDS_FREE else message, sort_keys=True)
    if key in _VALID_MESSAGES:
        return True
    if not validator.is_valid(message):
        return False
    if len(_VALID_MESSAGES) >= _VALID_EVENTS_KEPT:
        _VALID_MESSAGES.clear()
    _VALID_MESSAGES.add(key)
    return True


def _surely_valid(answer: object) -> bool:
    """Whether `answer` is valid under the protocol schema, checked the quick way: the answer
    without its events and its history's appended messages by the full schema (they are only
    their lists' `items`), then each event by its type's reduced schema and each appended
    message by the items' schema. False means "maybe not": the caller asks the full schema."""
    validators = _validators()
    if not validators.events or not isinstance(answer, dict):
        return False
    events = answer.get("events")
    if not isinstance(events, list):
        return False
    shell = {**answer, "events": []}
    history = answer.get("history")
    appended = history.get("appended") if isinstance(history, dict) else None
    if validators.message is not None and isinstance(history, dict) and isinstance(appended, list):
        shell["history"] = {**history, "appended": []}
    else:
        appended = []
    if not _shell_valid(shell):
        return False
    for event in events:
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            return False
        validator = validators.events.get(event["type"], validators.events[None])
        if not _event_valid(event, validator):
            return False
    return all(map(_message_valid, appended))


def _most_specific_error(answer: object) -> Any:
    """The most specific way `answer` breaks the protocol schema (the schema's variants are
    tagged: it names the wrong field and what was expected there), or None."""
    from jsonschema.exceptions import relevance  # noqa: PLC0415 (see `_validators`)

    def rank(error: Any) -> tuple[object, ...]:
        # jsonschema ranks siblings by path, the last highest: three events without a seq were
        # named at events/2. Of those alike, the first in the answer is named (max keeps it).
        return tuple(None if isinstance(part, deque) else part for part in relevance(error))

    return _in_its_variant(max(_validators().answer.iter_errors(answer), key=rank, default=None))


# The members whose constant value tells a schema's variants apart.
_TAGS: Final = frozenset({"type", "role", "kind"})


def _wrong_variant(error: Any) -> bool:
    """Whether `error` says its instance is another variant than the schema tried (a tag
    member of another value), not a wrong member of that variant."""
    if error.validator in ("const", "enum"):
        return bool(error.path) and error.path[-1] in _TAGS
    if error.validator in ("anyOf", "oneOf") and error.context:
        return all(map(_ruled_out, _variants(error)))
    return False


def _variants(error: Any) -> list[list[Any]]:
    """The errors of an `anyOf` or `oneOf` error's context, one list per variant tried."""
    by_variant: dict[object, list[Any]] = {}
    for each in error.context:
        by_variant.setdefault(each.relative_schema_path[0], []).append(each)
    return list(by_variant.values())


def _ruled_out(errors: list[Any]) -> bool:
    return any(map(_wrong_variant, errors))


def _in_its_variant(error: Any) -> Any:
    """The error `best_match` descends to from `error`, save that an `anyOf` or `oneOf`
    failing in exactly one variant whose tags the instance has is followed into that variant:
    a message whose tool-result block lacks its `isError` is a tool result message lacking
    it, not a user message whose block is no text (the deepest error, which `best_match`
    names, since every variant fails)."""
    from jsonschema.exceptions import relevance  # noqa: PLC0415 (see `_validators`)

    while error is not None and error.context:
        fitting = [errors for errors in _variants(error) if not _ruled_out(errors)]
        if error.validator in ("anyOf", "oneOf") and len(fitting) == 1:
            error = max(fitting[0], key=relevance)
            continue
        # As `best_match` descends: to the deepest error, unless two tie.
        first, *second = heapq.nsmallest(2, error.context, key=relevance)
        if second and relevance(first) == relevance(second[0]):
            break
        error = first
    return error


# The schema's keywords for a value out of a member's range, its type being right.
_VALUE_KEYWORDS: Final = frozenset(
    {"enum", "const", "minLength", "minimum", "maximum", "exclusiveMinimum", "minItems"}
)


def _refused_value(answer: dict[str, Any], wrong: Any) -> tuple[int, InvalidEventError] | None:
    """Where `wrong`, the schema's error, is a value of an event in `answer` out of its range,
    or the event as a whole (a `hook/result` carrying `surfaceOp`, which no variant allows), and
    the model's reader refuses it under a rule of its own (not LOG-4, the event's shape), the
    event's index and that refusal (its rule and words); else None."""
    path = list(wrong.absolute_path)
    if len(path) < 2 or path[0] != "events":
        return None
    if len(path) > 2 and wrong.validator not in _VALUE_KEYWORDS:
        return None
    index = path[1]
    events = answer.get("events")
    if type(index) is not int or not isinstance(events, list) or index >= len(events):
        return None
    from loopspec.model.wire import event_from_wire  # noqa: PLC0415 (only for a wrong answer)

    try:
        event_from_wire(events[index])
    except InvalidEventError as error:
        # LOG-4 is the event's shape, which the protocol's schema states: PROTO-1's.
        return None if error.rule_id == "LOG-4" else (index, error)
    return None


def undefined_members_only(answer: dict[str, Any]) -> bool:
    """Whether every way `answer` breaks the protocol schema is a member an event's type does
    not define (`additionalProperties`, in an event's envelope, data or sidecar): the schema
    says what the model writes, and conform compares such an event with the model's, naming
    LOG-4 and the member, rather than refusing the answer."""
    errors = list(_validators().answer.iter_errors(answer))
    return bool(errors) and all(
        error.validator == "additionalProperties"
        and len(error.absolute_path) >= 2
        and error.absolute_path[0] == "events"
        for error in errors
    )


def _first_refused_value(
    answer: dict[str, Any], wrong: Any
) -> tuple[int, InvalidEventError] | None:
    """`_refused_value` of `wrong`, the most specific error, else of the first of the answer's
    errors that has one: the most specific may lie in the history, which carries an event's
    message again (a tool/result's written with role "tool" breaks LOG-6 in the event and only
    the protocol's message shapes in the history)."""
    found = _refused_value(answer, wrong)
    errors = iter(()) if found is not None else _validators().answer.iter_errors(answer)
    return next(filter(None, (_refused_value(answer, error) for error in errors)), found)


def _merged_history_message(answer: object) -> str | None:
    """Words on the first message of the answer's history that joins a tool result with other
    blocks (a user message's text, another result), as a loop merging consecutive user
    messages sends it; None when there is none (or the answer is no object at all: `null`)."""
    history = answer.get("history") if isinstance(answer, dict) else None
    appended = history.get("appended") if isinstance(history, dict) else None
    for index, message in enumerate(appended if isinstance(appended, list) else ()):
        blocks = message.get("content") if isinstance(message, dict) else None
        if not isinstance(blocks, list) or len(blocks) < 2:
            continue
        kinds = [block.get("type") if isinstance(block, dict) else None for block in blocks]
        if "tool-result" not in kinds:
            continue
        return (
            f"history/appended/{index}, one {message.get('role')} message of {len(blocks)} "
            f"blocks ({', '.join(map(str, kinds))}): the history is the log's surface "
            "messages, one per user/message, assistant/message and tool/result, a tool "
            "result's holding its one tool-result block (LOG-6); messages merged into one (as "
            "a provider wanting roles to alternate is sent them) are a history the model "
            "never derives"
        )
    return None


_POSIX: Final = os.name == "posix"


EXITED_AT_START_UP: Final = (
    "the process exited at start-up, before answering its first message (reset)"
)
"""What a `--cmd` process that exited before its first answer did; its exit status and the last
of its stderr follow on lines of their own."""

EXITED_BETWEEN_PROGRAMS: Final = (
    " (it exited with status 0, having answered before: one process serves every program, "
    "each begun by a reset, and a loop exits only once it has answered shutdown)"
)
"""What follows "the process ended its output instead of answering reset" for a process that
answered before and then exited 0, as a loop written to run one session does."""

EXITED_STARTED_AGAIN: Final = (
    " (it exited with status 0 before its first answer, started again after the process before "
    "it ended; a loop exits only once it has answered shutdown)"
)
"""What follows those words for a process started again (the one before it ended, having
answered) that exited 0 before answering its first reset: "having answered before" was false."""

HUNG_AT_START_UP: Final = "the process hung at start-up, before answering its first message"
"""What a `--cmd` process still running and silent at its first message's deadline did: "no
answer to reset within T s" follows, then the option that waits longer and its stderr."""


class ProcessTargetError(LoopSpecError):
    """The process behind a `ProcessTarget` failed to speak the driver protocol (PROTO-1), or
    reported an event of the right shape whose value the model refuses (the model's rule), or a
    history message merging a tool result with other blocks (HIST-1).

    `at_start_up`: the process never got going (it could not be started, or exited before its
    first answer without writing one): its message is the whole sentence a person reads.
    `hung_at_start_up`: it was alive and silent at its first message's deadline, never having
    answered one; every later start would most likely wait alike.
    """

    def __init__(
        self,
        message: str,
        rule_id: str = "PROTO-1",
        *,
        at_start_up: bool = False,
        hung_at_start_up: bool = False,
    ) -> None:
        super().__init__(message, rule_id=rule_id)
        self.at_start_up = at_start_up
        self.hung_at_start_up = hung_at_start_up


def comparable(observation: Observation) -> tuple[object, ...]:
    """An observation as compared across targets: normalized events; the rule of a refusal;
    what was presented, without the free session id (None when not reported).

    Refusal messages are prose for people, so only the rule ID is compared.
    """
    presented = observation.presented
    return (
        observation.accepted,
        tuple(normalized(event) for event in observation.events),
        observation.commits,
        observation.executed,
        observation.refusal_rule,
        None if presented is None else tuple(map(normalized_item, presented)),
        None if observation.history is None else comparable_change(observation.history),
    )


def _excerpt(line: bytes | str) -> str:
    """The line a target wrote, as it wrote it (its control characters escaped, cut after
    `LINE_EXCERPT` characters): in Python's quotes, `null` read as the string 'null'."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = text.rstrip("\r\n")
    if not text.strip():  # nothing to see between the colon and the line's end
        return f"(blank: {len(text)} white-space characters)" if text else "(empty)"
    if len(text) > LINE_EXCERPT:
        return f"{shown(text, LINE_EXCERPT)} ({len(text)} characters)"
    return shown(text, LINE_EXCERPT)


REPR_READ_BYTES: Final = 1 << 20
"""The longest line not JSON that is tried as a Python value's repr (`_not_json_cause`)."""


def _not_json_cause(raw: bytes, error: ValueError) -> str:
    """What an answer line that is no JSON most likely is, and what to do: JSON that goes on
    past the line's end (written with indent), a Python value as `print` writes it (a dict's
    repr), else, most often, a print left in the loop on stdout, the protocol's channel."""
    text = raw.decode("utf-8", "replace").strip()
    if isinstance(error, json.JSONDecodeError) and error.msg == "Invalid control character at":
        # A writer of its own (C, Tcl) escaping only some of them: the line is the answer.
        code = ord(error.doc[error.pos])
        before = shown(error.doc[max(0, error.pos - 40) : error.pos], 40)
        return (
            f"a string in it holds U+{code:04X} as itself, after {before!r}: JSON writes each "
            f"character U+0000..U+001F in a string as an escape, \\u{code:04x} (or \\n, \\t, "
            f"\\r, \\b, \\f){_ESCAPES_READ}"
        )
    if (
        isinstance(error, json.JSONDecodeError)
        and error.msg in ("Expecting ',' delimiter", "Expecting ':' delimiter")
        and 0 < error.pos < len(error.doc)
        and error.doc[error.pos - 1] == '"'
        and text[:1] == "{"
    ):
        before = shown(error.doc[max(0, error.pos - 40) : error.pos], 40)
        return (
            f"a string in it ends at a quote its text goes on after, after {before!r}: JSON "
            f'writes a " inside a string as \\"{_ESCAPES_READ}'
        )
    if (
        isinstance(error, json.JSONDecodeError)
        and text[:1] in ("{", "[")
        and error.pos >= len(error.doc.rstrip())
    ):
        return (
            "the line ends before its JSON does: each answer is one line, so write it without "
            "line breaks (Python: json.dumps(answer) without indent; JavaScript: "
            "JSON.stringify(answer) without its third argument)"
        )
    if len(text) <= REPR_READ_BYTES:
        try:
            value = ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            value = None
        if isinstance(value, dict | list):
            return (
                "it is written as Python writes a value (print(answer): quotes ', True, None), "
                "not as JSON: write json.dumps(answer)"
            )
    return (
        "stdout carries only the protocol's messages: write anything else (debugging output) "
        "to stderr"
    )


# Where a JSON writer's escapes are lost after it: the shell printing its answer.
_ESCAPES_READ = (
    "; a writer that escapes it loses the escape where what prints its answer reads "
    'backslashes (bash: echo -e "$answer", printf "$answer"): print the line as it is, '
    "printf '%s\\n' \"$answer\""
)


def _refuse_constant(name: str) -> object:
    msg = f"{name} is not JSON"
    raise ValueError(msg)


# A decoder of the answers, made once: `json.loads` makes one per call when given any option.
_ANSWER_DECODER: Final = json.JSONDecoder(parse_constant=_refuse_constant)


def _answer_json(raw: bytes) -> Any:
    """`json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)`, with the decoder
    made once (`_ANSWER_DECODER`); ValueError when `raw` is not a JSON text."""
    text = raw.decode("utf-8")
    if text.startswith("\ufeff"):  # refused by `json.loads` alone, in its own words
        return json.loads(text, parse_constant=_refuse_constant)
    return _ANSWER_DECODER.decode(text)


LONG_LINE_BYTES: Final = 1024
"""A message line longer than this is named beside a target that died on it (`long_line_note`)."""
SCANNER_LINE_BYTES: Final = 64 * 1024
"""Go's `bufio.Scanner` refuses a line longer than this (its newline counted) by default."""


def backslashes_lost_note(message: dict[str, Any], stderr: str) -> str:
    """A note for a target whose stderr quotes the message it died on with its backslashes
    taken away (a shell's `read` without -r: `\\"` read as `"`, the line no JSON any more);
    "" when it quotes none so."""
    sent = json.dumps(message)
    first = sent.find("\\")
    if first < 0:
        return ""
    read = re.sub(r"\\(.)", r"\1", sent)
    around = slice(max(0, first - 30), first + 30)
    if read[around] not in stderr or sent[around] in stderr:
        return ""
    return (
        " (its stderr quotes the message with its backslashes taken away, as a shell's read "
        "without -r reads a line: read it with IFS= read -r line)"
    )


def long_line_note(message: dict[str, Any]) -> str:
    """What a target that died on `message` may have met: a line longer than a fixed buffer
    holds (C's `fgets` into a 1024- or 4096-byte array reads it in pieces, the first no JSON
    that ends), or "" for a short one."""
    size = len(json.dumps(message)) + 1  # ASCII, as sent, and its newline
    if size <= LONG_LINE_BYTES:
        return ""
    scanner = (
        ", and Go's bufio.Scanner stops at a line over 64 KiB, Scan returning false, unless "
        "given a larger buffer (Scanner.Buffer)"
        if size > SCANNER_LINE_BYTES
        else ""
    )
    return (
        f" (its line was {size:,} bytes: a loop reading lines into a fixed buffer, C's fgets "
        f"into an array, reads it in pieces{scanner}; read each line whole, C's getline)"
    )


UNENDED = ", and it waits to read more input, its answer begun and not ended"
# Both leave a process blocked reading its input, its stdout empty: from outside they are one.
UNFLUSHED = (
    ", and it waits to read more input: either its answer sits unwritten in its stdout buffer "
    "(Perl, Python and C buffer output to a pipe, and so do a Java Writer, a Rust "
    "BufWriter and a Go bufio.Writer), so flush each line (Perl: STDOUT->autoflush(1); Python: "
    "print(..., flush=True); Java: out.flush() after each line, or a PrintStream made with "
    "autoFlush true and println; Rust: out.flush() after each writeln!, or println!, which "
    "flushes a line; C: fflush(stdout) after each line, or setvbuf(stdout, NULL, _IOLBF, 0) "
    "once; Go: w.Flush() after each line, or write to os.Stdout, which holds nothing), "
    "or it reads its input to the end before answering (Python's sys.stdin.read() or "
    "json.load(sys.stdin), Node's fs.readFileSync(0)), an end that comes only after shutdown: "
    "read one line, answer it, then read the next"
)


UNFLUSHED_BETWEEN = (
    ", and every process of it waits to read, none of them loopspec's input: its answer sits "
    "in the stdout buffer of a process it passes each message through (a coprocess or a pipe "
    "stage), which waits for its next line; make that process flush each line (jq: "
    "--unbuffered; sed: -u; grep: --line-buffered; awk: fflush(); python3: -u)"
)


# How a thread other than main is said to have died while the process lives on: a JVM's
# uncaught exception (`Exception in thread "pool-1-thread-1" java.lang...`), and a Rust panic
# (`thread '<unnamed>' (1345) panicked at src/main.rs:10:41:`; older Rust writes no id).
_THREAD_DEATH = re.compile(
    r'^(?:Exception in thread "(?P<jvm>[^"\n]+)" '
    r"|thread '(?P<rust>[^'\n]+)'(?: \(\d+\))? panicked at )",
    re.MULTILINE,
)
THREAD_DIED = ": waiting longer will not help"
_RUST_PANIC = re.compile(rb"thread '[^'\n]+'(?: \(\d+\))? panicked at ")
# What Rust writes around a panic's frames, which says nothing of the panic itself.
_RUST_ASIDE = re.compile(rb"stack backtrace:$|note: ")


def _thread_died(stderr: str) -> str:
    """Why a live target that wrote a thread's uncaught exception or panic does not answer, in
    words ending with `THREAD_DIED`; "" when its stderr shows none (or only its main thread's,
    which ends the process)."""
    deaths: list[tuple[str, str]] = []
    for death in _THREAD_DEATH.finditer(stderr):
        if death["jvm"] is not None:
            deaths.append((death["jvm"], "died of an uncaught exception"))
        else:
            deaths.append((death["rust"], "panicked"))
    deaths = [(thread, how) for thread, how in deaths if thread != "main"]
    if not deaths:
        return ""
    thread, how = deaths[-1]
    return (
        f', and its thread "{thread}" {how} (stderr below) while the process lives on: '
        "catch it in that thread and answer (or end the process)"
        f"{THREAD_DIED}"
    )


def _null_hint(wrong: Any) -> str:
    """What to do about a member written `null` where the schema wants a value: a required list
    left empty (Go's encoding/json writes a nil slice so), or a typed struct's empty optional
    field (Rust's serde writes `None` so unless told not to)."""
    if wrong.validator != "type" or wrong.instance is not None or not wrong.absolute_path:
        return ""
    if wrong.validator_value == "array" and _required_member(wrong):
        return (
            "; an empty list is written [], never null (Go's encoding/json writes a nil slice "
            "as null: make it with make([]T, 0) or []T{})"
        )
    if _required_member(wrong):
        # Leaving it out breaks the schema too: the member needs a value of its type.
        member, kind = wrong.absolute_path[-1], wrong.validator_value
        # By sound: "an integer", "an object" (the schema's types), "a string", "a number".
        article = "an" if str(kind)[:1] in ("a", "e", "i", "o", "u") else "a"
        return (
            f"; {member} is required, {article} {kind}: write one, never null (a "
            "default where your value may be missing, as jq's // gives)"
        )
    return (
        "; a member with no value is left out, not written null (Rust's serde: "
        '#[serde(skip_serializing_if = "Option::is_none")])'
    )


# The value a writer that leaves out "empty" members (Go's `omitempty`) drops, per JSON type.
_ZERO_VALUES: Final = {"boolean": "false", "integer": "0", "number": "0", "string": '""'}


def _left_out_hint(wrong: Any) -> str:
    """What to do about a required member left out whose type has a zero value: it is written
    whatever it holds. The loop may be in any language, so Go's cause is told as a condition:
    encoding/json leaves a field tagged `omitempty` out when it holds false, 0 or "" (a
    result's `"isError": false`, a hook's `"durationMs": 0`)."""
    if wrong.validator != "required" or not isinstance(wrong.instance, dict):
        return ""
    missing = [member for member in wrong.validator_value if member not in wrong.instance]
    properties = _referred(wrong.schema).get("properties", {})
    kind = _referred(properties.get(missing[0], {})).get("type") if missing else None
    if kind not in _ZERO_VALUES:
        return ""
    zero = _ZERO_VALUES[kind]
    return (
        f"; {missing[0]} is written even when it is {zero} (if the loop writes it with Go's "
        f"encoding/json, a field tagged omitempty holding {zero} is left out: drop omitempty there)"
    )


def _required_member(wrong: Any) -> bool:
    """Whether the member `wrong` is about is one its object's schema requires, so that leaving
    it out is no answer either (False where the schema path cannot be followed). The path
    goes on inside a `$ref`'s target (an event's members, `#/$defs/event`) without naming it."""
    if len(wrong.absolute_schema_path) < 3:
        return False
    *parent_path, properties, member, _ = wrong.absolute_schema_path
    schema: Any = FROM_IMPLEMENTATION
    for step in parent_path:
        try:
            schema = _referred(schema)[step]
        except (KeyError, IndexError, TypeError):
            return False
    schema = _referred(schema)
    return properties == "properties" and member in schema.get("required", ())


def _referred(schema: Any) -> Any:
    """`schema`, or the schema its local `$ref` (`#/$defs/event`) names."""
    while isinstance(schema, dict) and str(schema.get("$ref", "")).startswith("#/"):
        target: Any = FROM_IMPLEMENTATION
        for step in schema["$ref"][2:].split("/"):
            target = target[step]
        schema = target
    return schema


def _commits_hint(wrong: Any, answer: Any) -> str:
    """What `commits` holds, when the schema refused it: its error ("0 is less than the minimum
    of 1") does not say what the numbers count."""
    path = list(wrong.absolute_path)
    if not path or path[0] != "commits" or not isinstance(answer, dict):
        return ""
    events = answer.get("events")
    return "; " + _commits_meaning(len(events) if isinstance(events, list) else None)


def _commits_meaning(count: int | None) -> str:
    """`commits` explained, with what it holds for `count` events appended when known."""
    meaning = (
        "commits holds the size of each atomic commit the appended events form, in order "
        "(LOG-8): each at least 1, together the number of events"
    )
    if count is None:
        return meaning
    if count == 0:
        return f"{meaning}: with no event appended, commits is []"
    return f"{meaning}: for {count} event(s) written at once, [{count}]"


class _WaitingCalls(NamedTuple):
    """The numbers `/proc/PID/task/TID/syscall` starts with for a thread blocked in read, or
    waiting for a child (wait4): the system call numbers differ by architecture."""

    read: str
    wait4: str


# Linux's system call numbers where loopspec knows them; elsewhere no hint is given.
_WAITING_CALLS: Final = {
    "x86_64": _WaitingCalls(read="0", wait4="61"),
    "aarch64": _WaitingCalls(read="63", wait4="260"),
}


@functools.cache
def _waiting_calls() -> _WaitingCalls | None:
    """This machine's read and wait4 numbers (None: an architecture loopspec does not know)."""
    return _WAITING_CALLS.get(platform.machine())


def _reads_its_input(popen: subprocess.Popen[bytes]) -> bool:
    """Whether the target, or a process it started, is blocked reading the pipe loopspec
    writes its messages to (Linux: `/proc/PID/task/TID/syscall` says read on fd 0 of that pipe,
    in any of its threads: a JVM reads in a thread of its own, its main one waiting to join
    it): it takes itself to have answered, so its answer is in a buffer it never flushed."""
    if popen.stdin is None or _waiting_calls() is None:
        return False
    try:
        pipe = os.fstat(popen.stdin.fileno()).st_ino
    except OSError:
        return False
    pending, seen = [popen.pid], set[int]()
    while pending and len(seen) < 64:  # a target's own tree, not the machine's
        pid = pending.pop()
        seen.add(pid)
        try:
            reads_fd_0 = os.stat(f"/proc/{pid}/fd/0").st_ino == pipe
            for task in Path(f"/proc/{pid}/task").iterdir():
                if reads_fd_0 and _reads_fd_0(task):
                    return True
                children = (task / "children").read_text().split()
                pending.extend(int(child) for child in children if int(child) not in seen)
        except (OSError, ValueError, IndexError):
            continue  # gone, not Linux, or not ours to read: no hint
    return False


def _every_process_reads(popen: subprocess.Popen[bytes]) -> bool:
    """Whether every thread of the target and of each process it started is blocked in a read
    or waits for a child (Linux: `/proc/PID/task/TID/syscall`), none reading loopspec's pipe
    (`_reads_its_input`): a shell loop passing each message to a coprocess (jq, sed) waits to
    read its answer, which sits in that coprocess's stdout buffer while it waits for its next
    line. Nothing runs, so nothing will answer (two threads reading at least: one alone may be
    a loop reading its input another way)."""
    calls = _waiting_calls()
    if calls is None:
        return False
    pending, seen, reading = [popen.pid], set[int](), 0
    while pending and len(seen) < 64:  # a target's own tree, not the machine's
        pid = pending.pop()
        seen.add(pid)
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                call = task.joinpath("syscall").read_text().split()[:1]
                if call not in ([calls.read], [calls.wait4]):  # a subshell awaits a child
                    return False
                reading += call == [calls.read]
                children = (task / "children").read_text().split()
                pending.extend(int(child) for child in children if int(child) not in seen)
        except (OSError, ValueError, IndexError):
            return False  # gone, not Linux, or not ours to read: no hint
    return not pending and reading > 1  # (a tree past the cap, not all read: no hint)


def _repeats_counted(lines: list[str]) -> list[str]:
    """`lines` with each run of more than two equal lines kept once and its count said."""
    kept: list[str] = []
    for line, run in itertools.groupby(lines):
        times = len(list(run))
        if times > 2:
            indent = line[: len(line) - len(line.lstrip())]
            kept += [line, f"{indent}[the line above {times - 1} times more]"]
        else:
            kept += [line] * times
    return kept


def _reads_fd_0(task: Path) -> bool:
    """Whether the thread `task` (`/proc/PID/task/TID`) is blocked in read(0, ...)."""
    calls = _waiting_calls()
    if calls is None:
        return False
    try:
        return task.joinpath("syscall").read_text().split()[:2] == [calls.read, "0x0"]
    except OSError:
        return False  # the thread ended meanwhile


def _other_encoding(raw: bytes) -> str:
    """What an answer that is not UTF-8 reads as instead, said after its offset: JSON in
    Latin-1 is what an encoder that writes characters unencoded leaves below U+0100."""
    try:
        json.loads(raw.decode("latin-1"))
    except ValueError:
        return ""
    return ", though it reads as JSON in Latin-1"


def _may_nest_deeper(raw: bytes) -> bool:
    """Whether the answer `raw` might nest deeper than `MAX_JSON_DEPTH`: each array or object
    opens with a bracket byte of its own (text in strings only adds to the count), so a line
    with no more brackets than that nests no deeper, and `json_depth`'s walk of the parsed
    answer (a sixth of conform's own CPU on a JavaScript loop) is left out."""
    return raw.count(b"{") + raw.count(b"[") > MAX_JSON_DEPTH


# The processes started and not yet ended, for `end_running_targets`.
_RUNNING: set[_Process] = set()


def end_running_targets() -> None:
    """End every target process still running, as `_Process.kill` does (SIGTERM, then SIGKILL):
    for a host that ends on a signal without unwinding (pytest on SIGTERM), where each one, in
    a session of its own, was left running (SAFE-3)."""
    for process in list(_RUNNING):
        process.kill()


class _Process:
    """A running child: stdin for requests, a reader thread per output stream."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        # Its own process group, so that ending it also ends whatever a wrapper script started,
        # and a token in its environment, so that ending it also ends what left the group.
        self._token = new_token()
        # An abort the loop is sent as SIGINT reaches it whether conform ran in the background.
        children_start_with_default_interrupts()
        self.popen = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=_POSIX,
            env=marked_environment(os.environ, self._token),
        )
        _RUNNING.add(self)
        self.lines: queue.Queue[bytes | None] = queue.Queue(maxsize=LINES_BUFFERED)
        self.unended = b""  # the start of a line written and not ended yet (`_lines_of`)
        self.answered = False  # whether it answered a message (`ProcessTarget.slowest` outlives it)
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._headline = self._line_start = b""
        self._headline_open = False  # a Rust panic's line was kept: its message comes next
        self._lock = threading.Lock()
        assert self.popen.stdout is not None
        assert self.popen.stderr is not None
        self._threads = (
            threading.Thread(target=self._read_lines, args=(self.popen.stdout,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(self.popen.stderr,), daemon=True),
        )
        for thread in self._threads:
            thread.start()

    def _read_lines(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(ValueError, OSError):  # the stream was closed under us
            for line in self._lines_of(stream.fileno()):
                self.lines.put(line)
                if len(line) > MAX_LINE_BYTES:
                    break  # the conversation fails on this line; reading on is pointless
        self.lines.put(None)  # end of output: the process closed stdout or died

    def _lines_of(self, fd: int) -> Iterator[bytes]:
        """The lines the process writes on `fd`, each with its newline (the last one may have
        none), one longer than `MAX_LINE_BYTES` cut after a byte more. Read as the system hands
        them over, not by `readline`, so that the start of a line not ended yet is seen
        (`unended`): an answer written without its newline, the loop waiting for the next
        message."""
        parts: list[bytes] = []
        size = 0
        while chunk := os.read(fd, READ_BYTES):
            *ended, rest = chunk.split(b"\n")
            for end in ended:
                # Cut as `readline(MAX_LINE_BYTES + 1)` would (a whole line is not copied).
                yield b"".join([*parts, end, b"\n"])[: MAX_LINE_BYTES + 1]
                parts, size = [], 0
            if rest:
                parts.append(rest)
                size += len(rest)
            self.unended = parts[0][:LINE_EXCERPT] if parts else b""
            if size > MAX_LINE_BYTES:
                yield b"".join(parts)[: MAX_LINE_BYTES + 1]
                return
        if parts:
            yield b"".join(parts)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        # os.read returns whatever is there, so the tail is current even mid-line.
        for chunk in iter(lambda: os.read(stream.fileno(), 4096), b""):
            with self._lock:
                self._stderr.append(chunk)
                self._stderr_size += len(chunk)
                while self._stderr_size - len(self._stderr[0]) >= STDERR_TAIL:
                    self._stderr_size -= len(self._stderr.popleft())
                self._note_headline(chunk)

    def _note_headline(self, chunk: bytes) -> None:
        """Keep the last whole line of stderr written flush left: a JVM's `Exception in thread
        "main" ...` or `Caused by: ...` heads its stack trace's indented frames, which past 2000
        bytes (a deep or a recursive call) fill the tail without it. A Rust panic's line is kept
        with the message under it, and the `stack backtrace:` and `note: ...` lines Rust writes
        around the frames are not headlines."""
        lines = chunk.split(b"\n")
        lines[0] = self._line_start + lines[0]
        for line in lines[:-1]:
            if not line.strip() or line[:1] in (b" ", b"\t") or _RUST_ASIDE.match(line):
                continue
            if self._headline_open:  # the message under a Rust panic's line
                self._headline = (self._headline + b"\n" + line)[:HEADLINE_BYTES]
                self._headline_open = False
                continue
            self._headline = line[:HEADLINE_BYTES]
            self._headline_open = _RUST_PANIC.match(line) is not None
        self._line_start = lines[-1][:HEADLINE_BYTES]

    def stderr_tail(self) -> str:
        """The last characters the process wrote to stderr."""
        with self._lock:
            text = b"".join(self._stderr).decode("utf-8", "replace")
        return text[-STDERR_TAIL:]

    def stderr_shown(self) -> str:
        """The tail of stderr as a failure shows it: headed by its last line written flush left
        when the tail no longer holds it (`_note_headline`), a line repeated more than twice in a
        row (a recursion's frame) said once with its count."""
        tail = self.stderr_tail().strip()
        with self._lock:
            headline = self._headline.decode("utf-8", "replace").strip()
        if headline and headline.splitlines()[0] not in tail:
            # The tail was cut, most likely inside a line: a fragment such as `)` says nothing.
            whole_lines = tail.partition("\n")[2] or tail
            tail = f"{headline}\n[...]\n{whole_lines}"
        return "\n".join(_repeats_counted(tail.splitlines()))

    def send(self, line: str) -> None:
        """Write one line; `OSError` when the process no longer reads."""
        stdin = self.popen.stdin
        assert stdin is not None
        stdin.write(line.encode("utf-8") + b"\n")
        stdin.flush()

    def receive(self, timeout: float) -> bytes | None:
        """The next line (None at end of output); `queue.Empty` after `timeout` seconds.

        A process that has exited has no more to say, even while a child it left behind holds
        its stdout open: once what it wrote has had `EXITED_GRACE` to arrive, that is the end.
        """
        deadline = time.monotonic() + timeout
        exited_at: float | None = None
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                return self.lines.get(timeout=min(remaining, POLL_INTERVAL))
            except queue.Empty:
                if self.popen.poll() is None:
                    still_waiting()  # a long wait is no silence in a CI log
                    continue
                exited_at = exited_at or time.monotonic()
                if time.monotonic() - exited_at > EXITED_GRACE:
                    return None
        # What arrived as the deadline struck is the answer (or the end of output), not a
        # hang: the last wait may time out a moment before a driver's last line is queued.
        with contextlib.suppress(queue.Empty):
            return self.lines.get_nowait()
        raise queue.Empty

    def settle(self, grace: float) -> int | None:
        """Wait up to `grace` seconds for the exit (and the last stderr); the exit code."""
        try:
            code = self.popen.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            return None
        self._threads[1].join(timeout=grace)
        return code

    def kill(self) -> None:
        """End the process, its group and every process it started (SAFE-3); release the pipes.

        Asked first (SIGTERM), then killed: a killed target cannot remove the folders it made
        (the real-CLI driver's session folders were left in TMPDIR at each missed deadline)."""
        _RUNNING.discard(self)
        if _POSIX:
            if self.popen.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.popen.pid, signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.popen.wait(timeout=TERM_GRACE)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.popen.pid, signal.SIGKILL)
        elif self.popen.poll() is None:
            self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=SHUTDOWN_GRACE)
        if _POSIX:
            # Children that called setsid left the group but may still hold the pipes.
            kill_marked(self._token)
        # The readers see end of output once nothing holds the pipes; close them only then
        # (closing a buffered stream a reader is blocked in would block here too).
        deadline = time.monotonic() + SHUTDOWN_GRACE
        for thread in self._threads:
            while thread.is_alive() and time.monotonic() < deadline:
                self._drain_lines()
                thread.join(timeout=0.05)
        if self.popen.stdin is not None:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()
        for thread, stream in zip(
            self._threads, (self.popen.stdout, self.popen.stderr), strict=True
        ):
            if stream is not None and not thread.is_alive():
                with contextlib.suppress(OSError):
                    stream.close()

    def _drain_lines(self) -> None:
        """Drop unread lines, so a reader blocked on the full queue can reach end of output."""
        with contextlib.suppress(queue.Empty):
            while True:
                self.lines.get_nowait()


class ProcessTarget:
    """A process speaking the driver protocol, as a `ConformanceTarget`."""

    def __init__(
        self, command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, name: str = ""
    ) -> None:
        try:
            self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        except ValueError as error:  # unbalanced quotes
            msg = f"cannot split the command {command!r}: {error}"
            raise ProcessTargetError(msg) from error
        if not self.argv:
            msg = "a ProcessTarget needs a command"
            raise ProcessTargetError(msg)
        self.timeout = timeout
        self.name = name or shlex.join(self.argv)
        self.implementation: str | None = None
        self.exit_code: int | None = None  # of the last process, once it has ended
        self._process: _Process | None = None
        self._seq = 0
        self._capabilities = frozenset[str]()
        self._history = ReportedHistory()
        # Per answer type (ready, observed, bye), the longest a good answer took, in seconds.
        self.slowest: dict[str, float] = {}
        self._last_line = b""  # the last answer read, as the process wrote it
        self._quick = False

    # -- the ConformanceTarget protocol ----------------------------------------------------------

    def reset(self, config: LoopConfig) -> frozenset[str]:
        """Start a fresh session (starting the process if needed); the declared capabilities."""
        if self._process is None:
            self._process = self._start()
        message = {"type": "reset", "protocol": PROTOCOL_VERSION, "config": config_to_json(config)}
        answer = self._exchange(message, "ready")
        self.implementation = answer["implementation"]
        self._capabilities = frozenset[str](answer["capabilities"])
        self._history = ReportedHistory()
        return self._capabilities

    def apply(self, command: Command) -> Observation:
        """Send one command; its observation."""
        if self._process is None:
            msg = f"{self.name}: reset first"
            raise ProcessTargetError(msg)
        seq = self._seq
        self._seq += 1
        message = {"type": "command", "seq": seq, "command": command_to_json(command)}
        answer = self._exchange(message, "observed", seq=seq)
        if not answer["accepted"]:
            refusal = answer["refusal"]
            return Observation(
                False, refusal_rule=refusal["rule"], refusal_message=refusal["message"]
            )
        events = tuple(answer["events"])
        commits = tuple(answer["commits"])
        if sum(commits) != len(events):
            self._fail(
                f"commits {list(commits)} do not add up to the {len(events)} event(s) appended; "
                f"{_commits_meaning(len(events))}",
                line=self._last_line,
            )
        executed = tuple((run["callId"], run["arguments"]) for run in answer["executed"])
        presented = answer.get("presented")
        if presented is None and "presentation" in self._capabilities:
            self._fail(
                "it declares presentation but its observed has no presented",
                line=self._last_line,
            )
        return Observation(
            True,
            events=events,
            commits=commits,
            executed=executed,
            presented=None if presented is None else tuple(presented),
            history=self._history_change(answer),
        )

    def _history_change(self, answer: dict[str, Any]) -> HistoryChange | None:
        """The canonical change an accepted answer's `history` makes (capability "history")."""
        if "history" not in self._capabilities:
            return None
        reported = answer.get("history")
        if reported is None:
            self._fail("it declares history but its observed has no history", line=self._last_line)
        try:
            return self._history.change(reported["kept"], reported["appended"])
        except HistoryRewound as error:
            self._fail(str(error), line=self._last_line)

    def close(self) -> None:
        """Say shutdown, wait for `bye` and the exit; kill after a grace period.

        Closing a target whose process is gone (or never started) does nothing. A wrong answer
        to shutdown raises `ProcessTargetError`, after the process has been ended.
        """
        process = self._process
        if process is None:
            return
        # Closed as Ctrl-C unwinds the run: the user wants it stopped now, and a target that
        # hangs would be awaited for its whole answer timeout. Asked to end (SIGTERM) and
        # killed a second later, as at a missed deadline.
        interrupted = isinstance(sys.exc_info()[1], KeyboardInterrupt)
        try:
            if process.popen.poll() is None and not interrupted:
                self._exchange({"type": "shutdown"}, "bye")
                process.settle(SHUTDOWN_GRACE)
        finally:
            self._process = None
            process.kill()
            self.exit_code = process.popen.returncode

    @contextlib.contextmanager
    def quick_answers(self) -> Iterator[None]:
        """While inside, wait for an answer a generous multiple of the slowest good answer of
        its type so far (`QUICK_MULTIPLE`, `QUICK_FLOOR`), not `timeout`; a type not answered
        yet gets `timeout`. For replays whose hang costs the wait each time (cutting a case
        down), where a target that answered every message of a run within milliseconds would
        otherwise be waited on for the full timeout per candidate it hangs on."""
        self._quick = True
        try:
            yield
        finally:
            self._quick = False

    def answer_timeout(self, expected: str) -> float:
        """How long an answer of type `expected` is awaited now."""
        slowest = self.slowest.get(expected)
        if not self._quick or slowest is None:
            return self.timeout
        return min(self.timeout, max(QUICK_FLOOR, QUICK_MULTIPLE * slowest))

    def __enter__(self) -> ProcessTarget:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # -- the wire --------------------------------------------------------------------------------

    def _start(self) -> _Process:
        try:
            return _Process(self.argv)
        except OSError as error:
            # A program that never started broke no rule: the command or the machine is set up
            # wrongly (SPEC PROTO-1), as a target exiting 69 before its first answer is.
            raise ProcessTargetError(
                self._not_started(error), rule_id=NO_RULE_BROKEN, at_start_up=True
            ) from error

    def start_refusal(self) -> str | None:
        """What starting the program would be refused with, found without starting it: a
        program that is not there (not on PATH), a directory, a file without the execute bit;
        None where it may start (a `#!` line's interpreter is judged by starting it)."""
        program = self.argv[0]
        path = program if "/" in program else shutil.which(program)
        if path is None or not os.path.exists(path):
            return self._not_started(FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT)))
        if os.path.isdir(path) or not os.access(path, os.X_OK):
            return self._not_started(PermissionError(errno.EACCES, os.strerror(errno.EACCES)))
        return None

    def _not_started(self, error: OSError) -> str:
        """Why the program could not be started, in the system's words, naming the program
        (the target's name, the line before, holds the whole command line), with what the
        words mean for this program where they mislead: a script's `#!` line naming a missing
        interpreter also says "no such file or directory"."""
        # As a case would write it (SAFE-1): errors land in CI logs, and the word may hold a
        # token (`API_TOKEN=... node`).
        program = self.argv[0]
        started = portable(shlex.quote(program))
        # A command of one word is the program: "./loop.sh: cannot start ./loop.sh" said it twice.
        which = "" if started == self.name else f" {started}"
        msg = f"{self.name}: cannot start{which}: {system_reason(error)}"
        variable, assigns, _ = program.partition("=")
        curled = curled_quotes_hint(self.argv)
        if os.path.isdir(program):
            # The system says "permission denied" (or, without a `/`, that no program of the
            # name is on PATH), and `portable` shows the current folder as ".": say what the
            # word names, by its full path.
            folder = os.path.abspath(program)
            named = "the current directory" if folder == os.getcwd() else "a directory"
            msg = (
                f"{self.name}: cannot start{which}: it is {named}, {folder}, not a "
                "program: give the command that runs the loop"
            )
        elif assigns and variable.isidentifier() and isinstance(error, FileNotFoundError):
            # `API_TOKEN=... node loop.mjs` as typed in a shell: run by none, the
            # assignment is taken for the program. Its value stays out (SAFE-1).
            msg += (
                f" (`{variable}=...` sets a variable only in a shell, and this command runs"
                f" in none: begin it with `env`, `env {variable}=... PROGRAM ...`)"
            )
        elif not curled:  # else the quotes are the cause, which their hint says
            msg += start_hint(program, error)
        return msg + curled

    def _fail(
        self,
        problem: str,
        *,
        line: bytes | str | None = None,
        grace: float = 0.2,
        rule: str = "PROTO-1",
        files_missed: str = "",
        hung: bool = False,
    ) -> NoReturn:
        """Raise `ProcessTargetError` describing `problem` under `rule`; the process is ended
        first. `files_missed`, the note of the command's files that are not there ending
        `problem`, is kept after a setup problem's words that replace `problem`. `hung`: it was
        alive and silent at the deadline."""
        process = self._process
        self._process = None
        # A program started with a curled quote in its words (`python3 \u2018x.py\u2019`)
        # fails in its own words, which name the file, not the quotes. Before its first answer,
        # the failure is the command line's, as typed: it blames no rule (SPEC section 2).
        curled = curled_quotes_hint(self.argv)
        if curled and not self.slowest:
            rule = NO_RULE_BROKEN
        parts = [f"{self.name}: {problem}{curled}"]
        at_start_up = False
        if line is not None:
            parts.append(f"offending line: {_excerpt(line)}")
        if process is not None:
            code = process.settle(grace)
            process.kill()
            self.exit_code = process.popen.returncode
            # Exited on its own before its first answer with a status saying the machine lacks
            # what it needs: a setup problem, whatever the wire showed as it went (a timeout
            # striking, a closed input), not a protocol break (SPEC PROTO-1).
            setup = None
            if rule == "PROTO-1" and not self.slowest:
                # A package the loop imports missing: its stderr says which (a traceback, not a
                # status, since an uncaught error exits 1 as any other does).
                setup = setup_problem(code) or (
                    module_missing(self.argv, process.stderr_tail()) if code else None
                )
                if code == 127 and setup is not None:
                    setup += env_missed(process.stderr_tail())
            if setup is not None:
                parts[0] = f"{self.name}: {setup}{files_missed}{curled}"
                rule = NO_RULE_BROKEN
            if code is not None:
                parts.append(f"exit code: {code}")
                at_start_up = line is None and not self.slowest
            tail = process.stderr_shown()
            parts.append(f"stderr (tail): {tail}" if tail else "stderr: (empty)")
        raise ProcessTargetError(
            "\n".join(parts),
            rule_id=rule,
            at_start_up=at_start_up,
            hung_at_start_up=hung and not self.slowest,
        )

    def _ended(self, ended: str, what: str) -> NoReturn:
        """Fail on a process that `ended` (its output, or its reading of its input) before
        answering `what`: before its first answer, the words or the setup problem its stderr
        shows (a script that is not there, a path split at its space), whichever way the wire
        saw it end first."""
        process = self._process
        assert process is not None
        rule = "PROTO-1"
        missing = []
        files_missed = ""
        code = None
        if what == "reset":
            code = process.settle(1.0)  # its last stderr, which may name the file it missed
            if code is not None and not self.slowest:
                # Dead before any answer, however the wire saw it (an ended output, a broken
                # pipe): "ended its output instead of answering reset" read as a protocol
                # slip to a person whose `--cmd` never got going (`node mian.mjs`).
                ended = EXITED_AT_START_UP
            # else `_fail` says what the status means, or that the quotes are curled (the
            # file missed is then named with the quotes, which are the mistake); bash exits 127
            # on a script it cannot open, and the script missed says more than the status
            stderr = process.stderr_tail()
            said_by_status = setup_problem(code) is not None and not (
                code == 127 and script_missing(self.argv, stderr)
            )
            if not said_by_status and not curled_quotes_hint(self.argv):
                missing = missing_relative_paths(self.argv, stderr)
                # A shell given code: the paths the shell's, node's or python's line names.
                said_in_code = missing_in_shell_code(self.argv, stderr)
                if said_in_code and not self.slowest:
                    files_missed = f" ({'; '.join(said_in_code)})"
                    ended += files_missed
                    rule = NO_RULE_BROKEN
        if missing:
            # A shared case replayed from another folder: `node loop/main.mjs` starts,
            # and dies on a script path that only resolved where the case was found.
            spaced = path_split_at_spaces(self.argv, missing)
            quote = (
                f"; {portable(spaced)} is one: quote a path holding a space, as a shell "
                f"reads it ({shlex.quote(portable(spaced))})"
                if spaced is not None
                else ""
            )
            # An absolute path (the script where a colleague's case found it) is from nowhere.
            said = [
                f"{', '.join(map(portable, paths))}: no such file{where}"
                for paths, where in (
                    ([path for path in missing if os.path.isabs(path)], ""),
                    (
                        [path for path in missing if not os.path.isabs(path)],
                        f" relative to the current directory, {os.getcwd()}",
                    ),
                )
                if paths
            ]
            files_missed = f" ({'; '.join(said)}{quote})"
            if len(missing) == 1 and spaced is None:  # a typo's file beside it, offered
                files_missed += nearest_file(missing[0])
            ended += files_missed
            if not self.slowest and script_missing(self.argv, process.stderr_tail()):
                rule = NO_RULE_BROKEN
        elif what == "reset" and code == 0 and not self.slowest:
            impl = impl_module_given_as_command(self.argv)
            if impl is not None:
                ended += impl
                rule = NO_RULE_BROKEN
        elif what == "reset" and code == 0:
            # It answered a program, then exited 0 as if done: "ended its output instead of
            # answering reset" did not say that one process serves every program.
            ended += EXITED_BETWEEN_PROGRAMS if process.answered else EXITED_STARTED_AGAIN
        if what == "shutdown":
            ended += ' (a loop answers shutdown with {"type": "bye"}, then exits)'
        self._fail(ended, grace=1.0, rule=rule, files_missed=files_missed)

    def _sent_and_answered(
        self, process: _Process, message: dict[str, Any], what: str, timeout: float
    ) -> bytes | None:
        """Send `message` and await its answer's line (None: the output ended)."""
        try:
            process.send(json.dumps(message))
        except OSError as error:
            if process.settle(1.0) is not None:
                # It ended before reading what was sent: said as an ended output is, whichever
                # end of the wire the scheduler let loopspec see first. A line longer than
                # the pipe holds is one such: the process stopped reading inside it.
                ended = f"the process ended its output instead of answering {what}"
                self._ended(ended + long_line_note(message), what)
            said = system_reason(error)  # the system's words, not "[Errno 32] Broken pipe"
            self._ended(f"the process stopped reading its input before {what} ({said})", what)
        try:
            raw = process.receive(timeout)
        except queue.Empty:
            if process.popen.poll() is None:
                # Alive at the deadline: a hang. No exit to wait for; a wait here would be paid
                # again by every candidate a case's cutting-down hangs on.
                # A thread that died says why no answer came: the thread still reading the
                # input (a Rust loop's main, handing lines to a worker) would look unflushed.
                died = _thread_died(process.stderr_tail())
                waits = not died and _reads_its_input(process.popen)
                if waits and process.unended:
                    self._fail(
                        f"no answer to {what} within {timeout:g} s{UNENDED}: it wrote "
                        f"{_excerpt(process.unended)} and no newline after it; end each answer "
                        "with one (Python: print(...) ends its line, sys.stdout.write(...) does "
                        "not; Node: process.stdout.write(JSON.stringify(answer) + '\\n'))",
                        grace=0.0,
                        hung=True,
                    )
                unflushed = UNFLUSHED if waits else ""
                if not waits and not died and _every_process_reads(process.popen):
                    unflushed = UNFLUSHED_BETWEEN
                fetching = "" if self.slowest else npx_silent_hint(self.argv, process.stderr_tail())
                # Silent from its start: said as one exiting then is (`EXITED_AT_START_UP`),
                # where "no answer to reset" alone read as a protocol slip mid-run.
                silent = not (self.slowest or unflushed or died)
                self._fail(
                    f"{HUNG_AT_START_UP + ': ' if silent else ''}no answer to {what} within "
                    f"{timeout:g} s{unflushed}{died}{fetching}",
                    grace=0.0,
                    hung=True,
                )
            # It exited as the timeout struck (a child it left may hold its stdout): not a
            # hang. Its exit code and the last of its stderr say why it stopped.
            self._fail(f"the process exited instead of answering {what}", grace=1.0)
        return raw

    def _exchange(
        self, message: dict[str, Any], expected: str, *, seq: int | None = None
    ) -> dict[str, Any]:
        process = self._process
        assert process is not None
        # The seq the message carried, as the target's own logs show it: it counts over the
        # process's life, so it is not the command's place in the program ("command #3").
        what = message["type"] if seq is None else f"the command of seq {seq}"
        timeout = self.answer_timeout(expected)
        sent = time.monotonic()
        try:
            raw = self._sent_and_answered(process, message, what, timeout)
        except KeyboardInterrupt:
            # Ctrl-C between the message and its answer, which may still come: the next
            # message (the next program's reset while a counterexample is cut down, the
            # shutdown) read it as its own, and the target was blamed for PROTO-1, exit 2,
            # after the run's report. The process is ended instead; a reset starts another.
            self._process = None
            process.kill()
            self.exit_code = process.popen.returncode
            raise
        took = time.monotonic() - sent
        if raw is None:
            ended = f"the process ended its output instead of answering {what}"
            process.settle(0.5)  # its last stderr, which may quote the message as it read it
            lost = backslashes_lost_note(message, process.stderr_tail())
            self._ended(ended + long_line_note(message) + lost, what)
        if len(raw) > MAX_LINE_BYTES:
            self._fail(f"the answer to {what} is longer than {MAX_LINE_BYTES} bytes", line=raw)
        try:
            answer = _answer_json(raw)
        except UnicodeDecodeError as error:
            # Not a stray print: a JSON encoder whose output was written without UTF-8
            # (Perl's JSON::PP without ->utf8, a Latin-1 stream), so the debugging hint misleads.
            self._fail(
                f"the answer to {what} is not UTF-8 (byte 0x{raw[error.start]:02x} at offset "
                f"{error.start}){_other_encoding(raw)}: the protocol's lines are JSON encoded "
                "as UTF-8, every character above U+007F as its UTF-8 bytes or a \\u escape",
                line=raw,
            )
        except ValueError as error:  # JSONDecodeError is a ValueError
            too_long = too_long_integer(error)
            if too_long is not None:  # JSON, with a number loopspec does not read
                self._fail(f"the answer to {what} holds {too_long}", line=raw)
            self._fail(
                f"the answer to {what} is not a JSON line ({error}); {_not_json_cause(raw, error)}",
                line=raw,
            )
        except RecursionError:
            self._fail(f"the answer to {what} nests deeper than {MAX_JSON_DEPTH} levels", line=raw)
        if _may_nest_deeper(raw) and json_depth(answer) > MAX_JSON_DEPTH:
            self._fail(f"the answer to {what} nests deeper than {MAX_JSON_DEPTH} levels", line=raw)
        text = raw.decode("utf-8")  # (it decoded above)
        repeat = repeated_key(text, answer)
        if repeat is not None:  # the parser kept the last of two values silently
            self._fail(f"the answer to {what} is ambiguous: {repeat}", line=raw)
        # The most specific error (the schema's variants are tagged): it names the wrong
        # field and what was expected there.
        wrong = None if _surely_valid(answer) else _most_specific_error(answer)
        if wrong is not None and undefined_members_only(answer):
            # Members no event of their type defines break no protocol: the comparison names
            # LOG-4 for them, where a profile may know one as its harness's (SPEC LOG-4).
            wrong = None
        if wrong is not None:
            refused = _first_refused_value(answer, wrong)
            if refused is not None:
                # An event of the right shape with a value the model refuses: the target wrote
                # a record that breaks the model's rule (HOOK-1's words, TURN-5's kind), which
                # is what it did wrong, as check says of the same line in a log.
                index, refusal = refused
                self._fail(
                    f"the answer to {what} reports an event the model refuses, events[{index}]: "
                    f"{refusal.message}",
                    line=raw,
                    rule=refusal.rule_id,
                )
            merged = _merged_history_message(answer)
            if merged is not None:
                # Messages the target joined into one: its history is not the log's (HIST-1),
                # which is what it did wrong; no message shape holds such a message.
                self._fail(f"the answer to {what} reports {merged}", line=raw, rule="HIST-1")
            where = "/".join(str(p) for p in wrong.absolute_path) or "(top level)"
            self._fail(
                f"the answer to {what} breaks the protocol schema at {where}: "
                f"{schema_error_words(wrong)[:LINE_EXCERPT]}{_null_hint(wrong)}"
                f"{_left_out_hint(wrong)}{_commits_hint(wrong, answer)}",
                line=raw,
            )
        if answer.get("type") != expected:
            self._fail(
                f"expected {spelled(expected)} in answer to {what}, got "
                f"{spelled(answer.get('type'))}",
                line=raw,
            )
        if seq is not None and answer.get("seq") != seq:
            # The seq sent too: once the command is named by its place in the program, that
            # is the only word of which seq the answer should have carried.
            self._fail(
                f"the answer to {what} carries seq {spelled(answer.get('seq'))}, not its "
                f"command's seq {seq}",
                line=raw,
            )
        self.slowest[expected] = max(took, self.slowest.get(expected, 0.0))
        process.answered = True
        self._last_line = raw  # what a later fault in this answer quotes, as it was written
        result: dict[str, Any] = answer
        return result
