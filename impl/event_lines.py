"""An event's log line written straight from the frozen event, for the events the loop builds.

The reference spelling of a line is `encode_event(event_to_wire(event))`: the event mapped to
plain dicts and lists, then encoded by the C encoder. Both steps walk the whole event and
allocate its wire object, several times what writing the text costs. `plain_event_line` writes
the same text directly, per event class: the envelope and every known field in fixed pieces,
strings escaped by the C `encode_basestring` the encoder itself uses, numbers by the reprs the
encoder uses, and payloads (`extra` maps, reasons, updated inputs, ...) by a small walk that
spells values exactly as the encoder does.

It only does so for an event built entirely of exact types: `str`, `int`, `float`, `bool`,
`None`, tuples, `FrozenMap`s with string keys, and the event, message and block classes
themselves (no subclasses, which may add state). Such an event is deeply frozen, so the log
can keep the caller's object. Anything else (a list or dict inside, a subclass, a float JSON
cannot carry or only carries with a lost sign, an extra field that collides with a known one,
an integer too long to print, text with a lone surrogate) makes it answer None, and the caller
takes the reference path, which also names what JSON cannot carry.
"""

from __future__ import annotations

from _json import encode_basestring
from collections.abc import Callable
from typing import Any, NoReturn

from loopspec.impl.framing import UNIT_KEY
from loopspec.model.events import (
    ApprovalAsked,
    ApprovalDecided,
    AssistantMessageRecorded,
    Event,
    HookInvoked,
    HookResulted,
    OpaqueEvent,
    RewriteSidecar,
    StepEnded,
    StepStarted,
    SurfaceAppend,
    SurfaceReplace,
    ToolCallRecorded,
    ToolResultRecorded,
    TurnEnded,
    TurnStarted,
    UserMessageRecorded,
)
from loopspec.model.jsonvalue import EMPTY, FrozenMap
from loopspec.model.messages import (
    AssistantMessage,
    OpaqueBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultMessage,
    UserMessage,
)
from loopspec.model.wire import ENVELOPE_KEYS


class _NotPlain(Exception):
    """The event holds something only the reference path writes (or refuses) correctly."""


def _not_plain() -> NoReturn:
    raise _NotPlain


_string = encode_basestring  # the quoted, escaped form the C encoder writes (ensure_ascii off)
_int_text = int.__repr__  # what the C encoder writes for an int (ValueError past 4300 digits)
_float_text = float.__repr__


def _number_text(value: float) -> str:
    """A finite float as the encoder writes it; NaN, infinities and -0.0 are not plain."""
    text = _float_text(value)
    # Every finite repr ends in a digit; "nan", "inf" and "-inf" end in a letter.
    if text[-1] > "9" or text == "-0.0":
        _not_plain()
    return text


def _value(value: object) -> str:
    """The JSON text of a frozen payload made only of exact JSON types."""
    if type(value) is str:
        return _string(value)
    if type(value) is FrozenMap:
        return _object(value)
    if type(value) is int:
        return _int_text(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is float:
        return _number_text(value)
    if type(value) is tuple:
        return "[" + ",".join([_value(item) for item in value]) + "]"
    _not_plain()


def plain_json_text(value: object) -> str | None:
    """`compact_json(thaw(value))` for a frozen value made only of exact JSON types (a rewrite's
    input, say); None for anything else, which the caller must snapshot (and so check) first."""
    try:
        return _value(value)
    except (_NotPlain, ValueError, RecursionError):
        return None


def _object(value: FrozenMap) -> str:
    items = value._items
    if not items:
        return "{}"
    parts = []
    for key, item in items.items():
        if type(key) is not str:
            _not_plain()
        # Strings inline: most payload values are.
        parts.append(_string(key) + ":" + (_string(item) if type(item) is str else _value(item)))
    return "{" + ",".join(parts) + "}"


def _tail(extra: object, known: frozenset[str]) -> str:
    """`,"key":value` for each extra field; a key the object already has is not plain (the
    reference overwrites it in place), nor is an extra that is not an exact `FrozenMap`."""
    if extra is EMPTY:
        return ""
    if type(extra) is not FrozenMap:
        _not_plain()
    parts = []
    for key, item in extra._items.items():
        if type(key) is not str or key in known:
            _not_plain()
        parts.append("," + _string(key) + ":" + _value(item))
    return "".join(parts)


def _optional_text(key: str, value: object) -> str:
    """`,"key":"value"` for a string, nothing for None."""
    if value is None:
        return ""
    if type(value) is not str:
        _not_plain()
    return key + _string(value)


_ENVELOPE = frozenset({*ENVELOPE_KEYS, UNIT_KEY})
_MESSAGE = frozenset({"role", "content", "source", "id"})
_TEXT_BLOCK = frozenset({"type", "text"})
_CALL_BLOCK = frozenset({"type", "id", "name", "arguments"})
_RESULT_BLOCK = frozenset({"type", "toolCallId", "content", "isError"})
_TYPE_ONLY = frozenset({"type"})
_TURN = frozenset({"turn"})
_TURN_END = frozenset({"turn", "reason"})
_STEP = frozenset({"turn", "step"})
_ASSISTANT = frozenset({"turn", "step", "message", "usage", "interrupted"})
_CALL = frozenset({"turn", "step", "callId", "name", "arguments", "rewrite"})
_RESULT = frozenset({"turn", "step", "message", "error", "meta"})
_INVOKED = frozenset({"turn", "point", "dialect", "handlerId", "matcher", "callId"})
_HOOK_RESULT = frozenset(
    {
        "turn",
        "point",
        "handlerId",
        "decision",
        "durationMs",
        "exitCode",
        "stderrSummary",
        "callId",
        "updatedInput",
    }
)
_ASKED = frozenset({"id", "toolName", "callId", "reason", "arguments"})
_DECIDED = frozenset({"id", "outcome"})


# The `,"key":` openers of optional string fields.
_ARGUMENTS_KEY = ',"arguments":'
_CALL_ID_KEY = ',"callId":'
_ID_KEY = ',"id":'
_MATCHER_KEY = ',"matcher":'
_REASON_KEY = ',"reason":'
_STDERR_SUMMARY_KEY = ',"stderrSummary":'


def _surface(surface: object, sources: object) -> str:
    if type(surface) is SurfaceAppend:  # (the usual case, appending, is spelled inline)
        text = ',"surfaceOp":"append"'
    elif type(surface) is SurfaceReplace:
        start, end = surface.start, surface.end
        if type(start) is not int or type(end) is not int:
            _not_plain()
        text = f',"surfaceOp":{{"op":"replace","start":{start},"end":{end}}}'
    else:
        _not_plain()
    if sources is None:
        return text
    if type(sources) is not tuple:
        _not_plain()
    for seq in sources:
        if type(seq) is not int:
            _not_plain()
    return f'{text},"sourceEventSeqs":[{",".join(map(_int_text, sources))}]'


def _block(block: object) -> str:
    if type(block) is TextBlock or type(block) is ReasoningBlock:
        if type(block.text) is not str:
            _not_plain()
        extra = block.extra
        extra_text = "" if extra is EMPTY else _tail(extra, _TEXT_BLOCK)
        return f'{{"type":"{block.TYPE}","text":{_string(block.text)}{extra_text}}}'
    if type(block) is ToolCallBlock:
        call_id, name, arguments = block.id, block.name, block.arguments
        if not type(call_id) is type(name) is type(arguments) is str:
            _not_plain()
        extra = block.extra
        extra_text = "" if extra is EMPTY else _tail(extra, _CALL_BLOCK)
        return (
            f'{{"type":"tool-call","id":{_string(call_id)},"name":{_string(name)},'
            f'"arguments":{_string(arguments)}{extra_text}}}'
        )
    if type(block) is ToolResultBlock:
        return _result_block(block)
    if type(block) is OpaqueBlock:
        if type(block.type) is not str:
            _not_plain()
        return f'{{"type":{_string(block.type)}{_tail(block.data, _TYPE_ONLY)}}}'
    _not_plain()


def _result_block(block: ToolResultBlock) -> str:
    call_id, content, is_error = block.tool_call_id, block.content, block.is_error
    if type(call_id) is not str or type(content) is not tuple:
        _not_plain()
    if is_error is None:
        error_text = ""
    elif is_error is True:
        error_text = ',"isError":true'
    elif is_error is False:
        error_text = ',"isError":false'
    else:
        _not_plain()
    extra = block.extra
    extra_text = "" if extra is EMPTY else _tail(extra, _RESULT_BLOCK)
    return (
        f'{{"type":"tool-result","toolCallId":{_string(call_id)},'
        f'"content":[{",".join([_block(item) for item in content])}]'
        f"{error_text}{extra_text}}}"
    )


def _message(message: object) -> str:
    if type(message) is UserMessage or type(message) is AssistantMessage:
        content = message.content
        if type(content) is not tuple:
            _not_plain()
        blocks = ",".join([_block(block) for block in content])
    elif type(message) is ToolResultMessage:
        if type(message.result) is not ToolResultBlock:
            _not_plain()
        blocks = _result_block(message.result)
    else:
        _not_plain()
    source, message_id, extra = message.source, message.id, message.extra
    if type(source) is not FrozenMap:
        _not_plain()
    if message_id is None:
        id_text = ""
    elif type(message_id) is str:
        id_text = ',"id":' + _string(message_id)
    else:
        _not_plain()
    extra_text = "" if extra is EMPTY else _tail(extra, _MESSAGE)
    return (
        f'{{"role":"{message.ROLE}","content":[{blocks}],"source":{_object(source)}'
        f"{id_text}{extra_text}}}"
    )


def _turn_started(event: TurnStarted) -> str:
    turn = event.turn
    if type(turn) is not int:
        _not_plain()
    extra = event.extra
    extra_text = "" if extra is EMPTY else _tail(extra, _TURN)
    return f'{{"turn":{turn}{extra_text}}}'


def _turn_ended(event: TurnEnded) -> str:
    turn = event.turn
    if type(turn) is not int:
        _not_plain()
    extra = event.extra
    extra_text = "" if extra is EMPTY else _tail(extra, _TURN_END)
    return f'{{"turn":{turn},"reason":{_value(event.reason)}{extra_text}}}'


def _step(event: StepStarted | StepEnded) -> str:
    turn, step = event.turn, event.step
    if not type(turn) is type(step) is int:
        _not_plain()
    extra = event.extra
    extra_text = "" if extra is EMPTY else _tail(extra, _STEP)
    return f'{{"turn":{turn},"step":{step}{extra_text}}}'


def _user_message(event: UserMessageRecorded) -> str:
    return _message(event.message)


def _assistant_message(event: AssistantMessageRecorded) -> str:
    turn, step, usage, interrupted = event.turn, event.step, event.usage, event.interrupted
    if not type(turn) is type(step) is int:
        _not_plain()
    if interrupted is True:
        interrupted_text = ',"interrupted":true'
    elif interrupted is False:
        interrupted_text = ""
    else:
        _not_plain()
    usage_text = "" if usage is None else ',"usage":' + _value(usage)
    extra = event.extra
    extra_text = "" if extra is EMPTY else _tail(extra, _ASSISTANT)
    return (
        f'{{"turn":{turn},"step":{step},"message":{_message(event.message)}'
        f"{usage_text}{interrupted_text}{extra_text}}}"
    )


def _tool_call(event: ToolCallRecorded) -> str:
    turn, step, call_id, name = event.turn, event.step, event.call_id, event.name
    arguments, rewrite = event.arguments, event.rewrite
    if not (type(turn) is type(step) is int and type(call_id) is type(name) is str):
        _not_plain()
    if type(arguments) is not str:
        _not_plain()
    if rewrite is None:
        rewrite_text = ""
    elif type(rewrite) is RewriteSidecar:
        original = rewrite.original_arguments
        if type(original) is not str:
            _not_plain()
        rewrite_text = (
            f',"rewrite":{{"originalArguments":{_string(original)},'
            f'"handlerIds":{_value(rewrite.handler_ids)}}}'
        )
    else:
        _not_plain()
    extra = event.extra
    extra_text = "" if extra is EMPTY else _tail(extra, _CALL)
    return (
        f'{{"turn":{turn},"step":{step},"callId":{_string(call_id)},"name":{_string(name)},'
        f'"arguments":{_string(arguments)}{rewrite_text}{extra_text}}}'
    )


def _tool_result(event: ToolResultRecorded) -> str:
    turn, step, error, meta = event.turn, event.step, event.error, event.meta
    if not type(turn) is type(step) is int:
        _not_plain()
    error_text = "" if error is None else ',"error":' + _value(error)
    meta_text = "" if meta is None else ',"meta":' + _value(meta)
    extra = event.extra
    extra_text = "" if extra is EMPTY else _tail(extra, _RESULT)
    return (
        f'{{"turn":{turn},"step":{step},"message":{_message(event.message)}'
        f"{error_text}{meta_text}{extra_text}}}"
    )


def _hook_invoked(event: HookInvoked) -> str:
    turn, point, dialect, handler = event.turn, event.point, event.dialect, event.handler_id
    if not (type(turn) is int and type(point) is type(dialect) is type(handler) is str):
        _not_plain()
    extra = event.extra
    extra_text = "" if extra is EMPTY else _tail(extra, _INVOKED)
    return (
        f'{{"turn":{turn},"point":{_string(point)},"dialect":{_string(dialect)},'
        f'"handlerId":{_string(handler)}{_optional_text(_MATCHER_KEY, event.matcher)}'
        f"{_optional_text(_CALL_ID_KEY, event.call_id)}{extra_text}}}"
    )


def _hook_resulted(event: HookResulted) -> str:
    turn, point, handler, decision = event.turn, event.point, event.handler_id, event.decision
    if not (type(turn) is int and type(point) is type(handler) is type(decision) is str):
        _not_plain()
    duration, exit_code, updated = event.duration_ms, event.exit_code, event.updated_input
    if type(duration) is float:
        duration_text = _number_text(duration)
    elif type(duration) is int:
        duration_text = _int_text(duration)
    else:
        _not_plain()
    if exit_code is None:
        exit_text = ""
    elif type(exit_code) is int:
        exit_text = ',"exitCode":' + _int_text(exit_code)
    else:
        _not_plain()
    updated_text = "" if updated is None else ',"updatedInput":' + _value(updated)
    extra = event.extra
    extra_text = "" if extra is EMPTY else _tail(extra, _HOOK_RESULT)
    return (
        f'{{"turn":{turn},"point":{_string(point)},"handlerId":{_string(handler)},'
        f'"decision":{_string(decision)},"durationMs":{duration_text}{exit_text}'
        f"{_optional_text(_STDERR_SUMMARY_KEY, event.stderr_summary)}"
        f"{_optional_text(_CALL_ID_KEY, event.call_id)}{updated_text}"
        f"{extra_text}}}"
    )


def _approval_asked(event: ApprovalAsked) -> str:
    request, tool = event.id, event.tool_name
    if not type(request) is type(tool) is str:
        _not_plain()
    extra = event.extra
    extra_text = "" if extra is EMPTY else _tail(extra, _ASKED)
    return (
        f'{{"id":{_string(request)},"toolName":{_string(tool)}'
        f"{_optional_text(_CALL_ID_KEY, event.call_id)}"
        f"{_optional_text(_REASON_KEY, event.reason)}"
        f"{_optional_text(_ARGUMENTS_KEY, event.arguments)}{extra_text}}}"
    )


def _approval_decided(event: ApprovalDecided) -> str:
    request, outcome = event.id, event.outcome
    if not type(request) is type(outcome) is str:
        _not_plain()
    extra = event.extra
    extra_text = "" if extra is EMPTY else _tail(extra, _DECIDED)
    return f'{{"id":{_string(request)},"outcome":{_string(outcome)}{extra_text}}}'


_DataWriter = Callable[[Any], str]
# Per exact event class: how its line opens (up to the seq), its `data` writer, and whether it
# carries surface fields.
_WRITERS: dict[type, tuple[str, _DataWriter, bool]] = {
    kind: (f'{{"type":"{kind.TYPE}","seq":', data, surface)
    for kind, data, surface in (
        (TurnStarted, _turn_started, False),
        (TurnEnded, _turn_ended, False),
        (StepStarted, _step, False),
        (StepEnded, _step, False),
        (UserMessageRecorded, _user_message, True),
        (AssistantMessageRecorded, _assistant_message, True),
        (ToolCallRecorded, _tool_call, False),
        (ToolResultRecorded, _tool_result, True),
        (HookInvoked, _hook_invoked, False),
        (HookResulted, _hook_resulted, False),
        (ApprovalAsked, _approval_asked, False),
        (ApprovalDecided, _approval_decided, False),
    )
}
_APPENDED = ',"surfaceOp":"append"'


def plain_event_line(event: Event) -> bytes | None:
    """`encode_event(event_to_wire(event))` for an event built only of exact frozen JSON types
    (so deeply frozen); None for any other event, which the reference path must handle."""
    try:
        found = _WRITERS.get(type(event))
        if found is not None:
            opening, data, surface = found
            seq, time = event.seq, event.time
            if type(seq) is not int or type(time) is not int:
                return None
            text = f'{opening}{seq},"time":{time},"data":{data(event)}'
            if surface:
                kind, sources = event.surface, event.sources  # type: ignore[union-attr]
                if type(kind) is SurfaceAppend and sources is None:
                    text += _APPENDED
                else:
                    text += _surface(kind, sources)
        elif type(event) is OpaqueEvent:
            kind, seq, time = event.type, event.seq, event.time
            if not (type(kind) is str and type(seq) is type(time) is int):
                return None
            text = f'{{"type":{_string(kind)},"seq":{seq},"time":{time},"data":{_value(event.data)}'
        else:
            return None
        envelope_extra = event.envelope_extra
        if envelope_extra is not EMPTY:
            text += _tail(envelope_extra, _ENVELOPE)
        return (text + "}").encode("utf-8")
    except (_NotPlain, ValueError, TypeError, RecursionError):
        return None
