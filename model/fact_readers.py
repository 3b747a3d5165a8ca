"""How `facts.fact_from_wire` reads the data of each event type the rules read: one reader a
type, which checks each member it reads and words its refusal (`FactError`).

A module of their own, imported at the first event whose fact is read from its JSON
(`facts.fact_from_wire`): `loopspec check` reads a clean dsh log with the clean-event judges
alone (`logcheck.clean_events`), and imports none of this (tests/test_check_startup.py).
"""

from __future__ import annotations

from loopspec.model.facts import (
    _ABSENT,
    HOOK_DECISIONS,
    HOOK_DIALECTS,
    OPTIONAL_MEMBERS,
    CallFact,
    FactError,
    _is_map,
    dialect_problem,
    member_problem,
    message_plain,
    optional_members_typed,
    result_content_plain,
    source_names_another_call,
    unknown_decision,
)
from loopspec.model.json_text import spelled

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, NoReturn

    from loopspec.model.facts import Fact


def _int(data: Mapping[str, Any], key: str, where: str = "data") -> int:
    value = data.get(key)
    if type(value) is not int:
        raise FactError(member_problem(data, key, where, "an integer"))
    return value


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    # Absent, or a string: the model's reader refuses null there (only an optional object may
    # be null), as check must, or `callId: null` reads as no call (DEC-2 blamed for LOG-4).
    value = data.get(key)
    if type(value) is not str and (value is not None or key in data):
        raise FactError(f"data.{key} must be a string")
    return value


def _str(data: Mapping[str, Any], key: str, where: str = "data") -> str:
    value = data.get(key)
    if type(value) is not str:
        raise FactError(member_problem(data, key, where, "a string"))
    return value


def _empty(where: str, key: str) -> NoReturn:
    """LOG-4: a call's id and tool name, a result's call id and an approval's id and outcome
    are non-empty strings, as the model's reader asks (providers pair a result by the id; an
    empty one pairs nothing)."""
    raise FactError(f"{where}.{key} must be a non-empty string")


def _no_strs(data: Mapping[str, Any], keys: tuple[str, ...], where: str) -> NoReturn:
    """Raise for the first of `keys` that is not a string (one is not)."""
    for key in keys:
        _str(data, key, where)
    raise AssertionError("one of the fields is not a string")


def read_message(event_type: str, message: object, where: str) -> None:
    """Read a message that is not plain (`message_plain`, `result_content_plain`) with the
    model's own reader, the one statement of its shape: raise `FactError` with its words and
    rule when it refuses it. (Imported here, on a line that needs it: check reads a clean log
    without the event model.)"""
    from loopspec.model.errors import LoopSpecError  # noqa: PLC0415 -- see above
    from loopspec.model.wire import (  # noqa: PLC0415
        assistant_message_from_wire,
        tool_result_message_from_wire,
        user_message_from_wire,
    )

    readers = {
        "user/message": user_message_from_wire,
        "assistant/message": assistant_message_from_wire,
        "tool/result": tool_result_message_from_wire,
    }
    try:
        readers[event_type](message, where)
    except LoopSpecError as error:
        raise FactError(error.message, error.rule_id) from None


def _absent_or_of_type(value: object, json_type: type) -> bool:
    if value is _ABSENT or type(value) is json_type:
        return True
    return json_type is dict and (value is None or _is_map(value))


def _optional_members_read(kind: str, data: Mapping[str, Any]) -> None:
    if not optional_members_typed(kind, data):
        _refuse_optional_member(kind, data)


def _refuse_optional_member(kind: str, data: Mapping[str, Any]) -> NoReturn:
    """Raise naming the first of `OPTIONAL_MEMBERS[kind]` not of its type (one is not)."""
    for key, json_type, kind_words in OPTIONAL_MEMBERS[kind]:
        if not _absent_or_of_type(data.get(key, _ABSENT), json_type):
            raise FactError(member_problem(data, key, "data", kind_words))
    raise AssertionError("every optional member is of its type")


def _wire_surface(fact: Fact, obj: Mapping[str, Any]) -> None:
    op = obj.get("surfaceOp")
    if op == "append":
        fact.surface = "append"
    elif _is_map(op) and op.get("op") == "replace":
        fact.surface = "replace"
        start, end = _int(op, "start", "surfaceOp"), _int(op, "end", "surfaceOp")
        fact.surface_start, fact.surface_end = start, end
    elif op is not None:
        shapes = '"append" or {"op": "replace", "start": <seq>, "end": <seq>}'
        raise FactError(f"unknown surfaceOp {spelled(op)}: it is {shapes}", "LOG-2")
    if "sourceEventSeqs" in obj:  # null too is no array (log_layout.NULL_IS_ABSENT)
        sources = obj["sourceEventSeqs"]
        if not isinstance(sources, list):
            raise FactError("sourceEventSeqs must be an array of integers", "LOG-2")
        for source in sources:
            if type(source) is not int:
                raise FactError("sourceEventSeqs must be an array of integers", "LOG-2")
        fact.sources = tuple(sources)


def _numbered_from_one(data: Mapping[str, Any], key: str) -> NoReturn:
    """Refuse a turn or step numbered below 1, as the model's reader does (`events._counter`):
    TURN-1 numbers turns from 1, STEP-1 a turn's steps."""
    rule = "STEP-1" if key == "step" else "TURN-1"
    raise FactError(f"data.{key} must be an integer >= 1, got {data[key]}", rule)


def _read_turn(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    fact.turn = _int(data, "turn")
    if fact.turn < 1:
        _numbered_from_one(data, "turn")
    reason = data.get("reason")
    if fact.type == "turn/end":
        # A kind names why the turn ended: the empty string names nothing (`TurnEnded`).
        if not _is_map(reason) or type(reason.get("kind")) is not str or not reason["kind"]:
            raise FactError(_no_reason(reason), "TURN-5")
        fact.reason_kind = reason["kind"]


def _no_reason(reason: object) -> str:
    """What a turn/end's reason must be, and, for a bare word, how to write it."""
    must = "must be an object with a non-empty string kind"
    if reason is None:
        return f'data.reason is missing; it {must}, as {{"kind": "completed"}}'
    if isinstance(reason, str) and reason:
        word = spelled(reason)
        return f'data.reason {must}: write {{"kind": {word}}}, not the string {word}'
    return f'data.reason {must}, as {{"kind": "completed"}}; got {spelled(reason)}'


def _read_step(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    # `_int` inlined for the common case: chunks make up most of a real log.
    turn: Any = data.get("turn")  # compared only once known to be an int
    step: Any = data.get("step")
    if type(turn) is not int or type(step) is not int or turn < 1 or step < 1:
        _int(data, "turn")  # raises, naming the field that is wrong
        _int(data, "step")
        _numbered_from_one(data, "turn" if turn < 1 else "step")
    fact.turn, fact.step = turn, step


def _read_user(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    _wire_surface(fact, obj)
    _role_read(data, "user", "data")
    # The message's members section 10 requires, though no rule reads them (LOG-4).
    if not isinstance(data.get("content"), list):
        raise FactError(member_problem(data, "content", "data", "an array"))
    if not _is_map(data.get("source")):
        raise FactError(member_problem(data, "source", "data", "an object"))
    if not message_plain(data, data["content"], False):
        read_message(fact.type, data, "user/message.data")


def _read_assistant(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    _wire_surface(fact, obj)
    _read_step(fact, obj, data)
    fact.interrupted = data.get("interrupted") is True
    if not fact.interrupted and "interrupted" in data:
        # A flag, as the model's reader takes it: a reply not interrupted leaves it out.
        raise FactError("data.interrupted may only be true")
    message = data.get("message")
    content = message.get("content") if _is_map(message) else None
    if not isinstance(content, list):
        raise FactError(_no_content(message, '[{"type": "text", "text": ...}]'))
    _role_read(message, "assistant", "data.message")
    calls = []
    for block in content:
        # `_is_map` and `_str` inlined for the common case: a reply has a block per text and
        # per call, and replies are among the most frequent events that carry data.
        if (type(block) is dict or _is_map(block)) and block.get("type") == "tool-call":
            call_id, name, arguments = block.get("id"), block.get("name"), block.get("arguments")
            if type(call_id) is not str or type(name) is not str or type(arguments) is not str:
                _no_strs(block, ("id", "name", "arguments"), "data.message.content[]")
            if not call_id or not name:
                _empty("data.message.content[]", "id" if not call_id else "name")
            calls.append(CallFact(call_id, name, arguments))
    fact.calls = tuple(calls)
    if not message_plain(message, content, True):
        read_message(fact.type, message, "assistant/message.data.message")
    _optional_members_read(fact.type, data)


_ONE_RESULT_BLOCK = (
    '[{"type": "tool-result", "toolCallId": ..., "content": [{"type": "text", "text": ...}], '
    '"isError": ...}]'
)


def _no_content(message: object, shape: str) -> str:
    """Why a message's content cannot be read, and, for a string (the Anthropic API's
    shorthand), the `shape` to write instead: it said "needs message.content" of both."""
    if not _is_map(message):
        return "data.message must be an object {role, content, ...}"
    if isinstance(message.get("content"), str):
        return (
            "data.message.content must be an array of content blocks, not a string: write it "
            f"as {shape}"
        )
    return member_problem(message, "content", "data.message", "an array of content blocks")


def _read_call(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    _read_step(fact, obj, data)
    # `_str` inlined for the common case, as in `_read_step`.
    call_id, name, arguments = data.get("callId"), data.get("name"), data.get("arguments")
    if type(call_id) is not str or type(name) is not str or type(arguments) is not str:
        _no_strs(data, ("callId", "name", "arguments"), "data")
    if not call_id or not name:
        _empty("data", "callId" if not call_id else "name")
    fact.call_id, fact.name, fact.arguments = call_id, name, arguments
    # RW-2 says what a sidecar is, as the model's reader says (`log_layout.FIELD_RULE`): one
    # it cannot read, null too, is refused under that rule.
    rewrite = data.get("rewrite", _ABSENT)
    if rewrite is not _ABSENT:
        if not _is_map(rewrite):
            raise FactError("data.rewrite must be an object", "RW-2")
        # The model's reader's order: the original arguments, then the hooks.
        original = _str(rewrite, "originalArguments", "data.rewrite")
        handlers = rewrite.get("handlerIds")
        if not isinstance(handlers, list) or any(type(h) is not str for h in handlers):
            kind = "an array of strings"
            raise FactError(member_problem(rewrite, "handlerIds", "data.rewrite", kind), "RW-2")
        # A sidecar that names no hook, or the empty name, is read: it breaks RW-2, which
        # `invariants.rewrite_traced_to_hooks` says, and the log is read on.
        fact.original_arguments = original
        fact.rewrite_handlers = tuple(handlers)


def _read_result(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    _wire_surface(fact, obj)
    _read_step(fact, obj, data)
    message = data.get("message")
    # `_is_map` inlined for the common case (and `_str` below), as in `_read_assistant`.
    content = message.get("content") if type(message) is dict or _is_map(message) else None
    if not isinstance(content, list):
        raise FactError(_no_content(message, _ONE_RESULT_BLOCK))
    block = content[0] if len(content) == 1 else None
    if not _is_map(block) or block.get("type") != "tool-result":
        try:
            read_message(fact.type, message, "tool/result.data.message")
        except FactError as refused:
            # A block its reader refuses as malformed (LOG-4: no block at all, or a text block
            # without its text), which the model's reader says before what the content holds.
            if refused.rule_id != "LOG-6":
                raise
        raise FactError(_not_one_result_block(content), "LOG-6")
    _role_read(message, "user", "data.message")
    call_id = block.get("toolCallId")
    fact.call_id = (
        call_id if type(call_id) is str else _str(block, "toolCallId", "data.message.content[0]")
    )
    if not call_id:  # before its source, as the model's reader builds the block first
        _empty("data.message.content[0]", "toolCallId")
    source = message.get("source") if _is_map(message) else None
    if not _is_map(source):
        what = "is missing; it must be" if source is None else "must be"
        raise FactError(f"data.message.source {what} an object")
    if source.get("callId") != call_id:  # a source naming no call names another (LOG-6)
        raise FactError(source_names_another_call(call_id, source.get("callId")), "LOG-6")
    flag = block.get("isError")
    if flag is not None and type(flag) is not bool:
        # Read as not an error, `"true"` would blame a denial on DEC-1 (the model refuses it).
        raise FactError(member_problem(block, "isError", "data.message.content[0]", "a boolean"))
    fact.is_error = flag is True
    if not (message_plain(message, (), False) and result_content_plain(block)):
        read_message(fact.type, message, "tool/result.data.message")
    error = data.get("error")
    if error is not None:
        if not _is_map(error):
            _refuse_optional_member(fact.type, data)
        if type(error.get("code")) is str:
            fact.error_code = error["code"]
    if fact.is_error and fact.error_code is None:
        first = block["content"][:1]
        if first and first[0].get("type") == "text":
            fact.error_text = first[0]["text"]


def _role_read(message: object, role: str, where: str) -> None:
    """LOG-6: a message's `role`, when written, is the one its event type says (the model's
    reader refuses another; a message without one gains it). `message` is one its reader has
    already found to be an object."""
    written = message.get("role", role) if _is_map(message) else role
    if written != role:
        raise FactError(f"{where}.role must be {spelled(role)}, not {spelled(written)}", "LOG-6")


def _not_one_result_block(content: list[Any]) -> str:
    """Why a tool/result message's `content` is not exactly one tool-result block."""
    kinds = ", ".join(repr(block.get("type") if _is_map(block) else block) for block in content)
    return (
        "tool/result message content must be exactly one tool-result block; "
        f"it holds {kinds or 'none'}"
    )


def _read_hook(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    # The checks of `_int`, `_str` and `_opt_str` inlined for the common case, as in `_read_step`.
    turn: Any = data.get("turn")  # compared only once known to be an int
    point, handler = data.get("point"), data.get("handlerId")
    call_id = data.get("callId")
    if (
        type(turn) is not int
        or type(point) is not str
        or type(handler) is not str
        or (type(call_id) is not str and (call_id is not None or "callId" in data))
    ):
        _int(data, "turn")  # raises, naming the first field that is wrong
        _str(data, "point")
        _str(data, "handlerId")
        _opt_str(data, "callId")
    if turn < 1:
        _numbered_from_one(data, "turn")
    if not point or not handler:
        # Pairs are keyed by (turn, point, handlerId): an empty one names no hook (HOOK-1).
        raise FactError("a hook's point and handlerId must not be empty", "HOOK-1")
    fact.turn, fact.point, fact.handler_id, fact.call_id = turn, point, handler, call_id
    if fact.type == "hook/result":
        fact.decision = _str(data, "decision")
        if fact.decision not in HOOK_DECISIONS:
            raise FactError(unknown_decision(fact.decision), "HOOK-1")
        fact.updated_input = data.get("updatedInput")
        duration = data.get("durationMs")
        if type(duration) is not int and type(duration) is not float:  # not a bool
            raise FactError(member_problem(data, "durationMs", "data", "a number"))
        # A number out of HOOK-1's range is read: `hook_audit_paired_in_turn` blames it, and
        # the log is read on (nothing else reads how long a hook took).
        fact.duration_ms = duration
    else:
        dialect = data.get("dialect")
        # A string first: a list or an object is not hashable, so no set can be asked of it.
        if type(dialect) is not str or dialect not in HOOK_DIALECTS:
            if type(dialect) is not str:
                raise FactError(member_problem(data, "dialect", "data", "a string"))
            raise FactError(dialect_problem(dialect), "HOOK-1")
    _optional_members_read(fact.type, data)
    if fact.type == "hook/result":
        fact.exit_code = data.get("exitCode")  # an integer or absent: read just above


def _read_approval(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    fact.approval_id = _str(data, "id")
    if not fact.approval_id:  # the model's reader refuses it: a request named "" pairs nothing
        _empty("data", "id")
    if fact.type == "approval/asked":
        fact.call_id = _opt_str(data, "callId")
        fact.name = _str(data, "toolName")
        fact.arguments = _opt_str(data, "arguments")
        _optional_members_read(fact.type, data)
    else:
        fact.outcome = _str(data, "outcome")
        if not fact.outcome:
            _empty("data", "outcome")


CORE_READERS: dict[str, Callable[[Fact, Mapping[str, Any], Mapping[str, Any]], None]] = {
    "turn/start": _read_turn,
    "turn/end": _read_turn,
    "step/start": _read_step,
    "step/end": _read_step,
    "assistant/chunk": _read_step,
    "user/message": _read_user,
    "assistant/message": _read_assistant,
    "tool/call": _read_call,
    "tool/result": _read_result,
    "hook/invoked": _read_hook,
    "hook/result": _read_hook,
    "approval/asked": _read_approval,
    "approval/decided": _read_approval,
}
"""The reader of each type of `facts.READ_TYPES` (a test holds the two to each other)."""
