"""The dsh wire format: JSON objects <-> frozen events, exactly.

`event_from_wire(obj)` validates and builds an event; `event_to_wire(event)` gives back the same
JSON object (`event_to_wire(event_from_wire(obj)) == obj` for every valid `obj`; the one
normalisation is that a message without `role` gains its role). The functions are registered on
`converter`, a cattrs converter, so `converter.structure(obj, Event)` and
`converter.unstructure(event)` are the public spelling.

Every refusal is an `InvalidEventError` carrying a rule ID and a message that names the field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, assert_never

import cattrs

from loopspec.model.errors import InvalidEventError
from loopspec.model.events import (
    APPEND,
    ApprovalAsked,
    ApprovalDecided,
    AssistantMessageRecorded,
    Event,
    HookInvoked,
    HookResulted,
    OpaqueEvent,
    RewriteSidecar,
    SessionHeader,
    StepEnded,
    StepStarted,
    SurfaceAppend,
    SurfaceOp,
    SurfaceReplace,
    ToolCallRecorded,
    ToolResultRecorded,
    TurnEnded,
    TurnStarted,
    UserMessageRecorded,
)
from loopspec.model.jsonvalue import EMPTY, FrozenMap, JsonValue, NotJsonError, freeze, thaw
from loopspec.model.messages import (
    AssistantMessage,
    ContentBlock,
    OpaqueBlock,
    ReasoningBlock,
    ResultContentBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultMessage,
    UserMessage,
)

ENVELOPE_KEYS = ("type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs")
SURFACE_TYPES = frozenset({"user/message", "assistant/message", "tool/result"})

WireObject = dict[str, Any]


# ---------------------------------------------------------------------------------------------
# Field readers: each names the field it failed on.


def _frozen(value: object, where: str) -> JsonValue:
    try:
        return freeze(value, where)
    except NotJsonError as error:
        raise InvalidEventError(str(error), rule_id="LOG-3") from error


def _map(value: object, where: str) -> FrozenMap:
    if not isinstance(value, Mapping):
        raise InvalidEventError(f"{where} must be an object", rule_id="LOG-4")
    frozen = _frozen(value, where)
    assert isinstance(frozen, FrozenMap)
    return frozen


def _int(data: Mapping[str, object], key: str, where: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidEventError(f"{where}.{key} must be an integer", rule_id="LOG-4")
    return value


def _opt_int(data: Mapping[str, object], key: str, where: str) -> int | None:
    return None if key not in data else _int(data, key, where)


def _str(data: Mapping[str, object], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise InvalidEventError(f"{where}.{key} must be a string", rule_id="LOG-4")
    return value


def _opt_str(data: Mapping[str, object], key: str, where: str) -> str | None:
    return None if key not in data else _str(data, key, where)


def _number(data: Mapping[str, object], key: str, where: str) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidEventError(f"{where}.{key} must be a number", rule_id="LOG-4")
    return value


def _rest(data: Mapping[str, object], known: tuple[str, ...], where: str) -> FrozenMap:
    rest = {k: v for k, v in data.items() if k not in known}
    # The shared empty map when nothing is left (nearly always): one object, not one per field.
    return _map(rest, where) if rest else EMPTY


# ---------------------------------------------------------------------------------------------
# Content blocks and messages.


def block_from_wire(obj: object, where: str) -> ContentBlock:
    """One content block."""
    if not isinstance(obj, Mapping) or not isinstance(obj.get("type"), str):
        raise InvalidEventError(f"{where} must be an object with a string type", rule_id="LOG-4")
    kind = obj["type"]
    if kind == "text":
        return TextBlock(_str(obj, "text", where), _rest(obj, ("type", "text"), where))
    if kind == "reasoning":
        return ReasoningBlock(_str(obj, "text", where), _rest(obj, ("type", "text"), where))
    if kind == "tool-call":
        known = ("type", "id", "name", "arguments")
        return ToolCallBlock(
            id=_str(obj, "id", where),
            name=_str(obj, "name", where),
            arguments=_str(obj, "arguments", where),
            extra=_rest(obj, known, where),
        )
    if kind == "tool-result":
        content = obj.get("content")
        if not isinstance(content, list):
            raise InvalidEventError(f"{where}.content must be an array", rule_id="LOG-4")
        is_error = obj.get("isError")
        if is_error is not None and not isinstance(is_error, bool):
            raise InvalidEventError(f"{where}.isError must be a boolean", rule_id="LOG-4")
        return ToolResultBlock(
            tool_call_id=_str(obj, "toolCallId", where),
            content=tuple(
                _result_content(item, f"{where}.content[{i}]") for i, item in enumerate(content)
            ),
            is_error=is_error,
            extra=_rest(obj, ("type", "toolCallId", "content", "isError"), where),
        )
    return OpaqueBlock(kind, _rest(obj, ("type",), where))


def _result_content(obj: object, where: str) -> ResultContentBlock:
    block = block_from_wire(obj, where)
    if isinstance(block, TextBlock | OpaqueBlock):
        return block
    raise InvalidEventError(f"{where} cannot nest a {type(block).__name__}", rule_id="LOG-6")


def block_to_wire(block: ContentBlock) -> WireObject:
    """The JSON object of one content block."""
    match block:
        case TextBlock():
            return _extended({"type": "text", "text": block.text}, block.extra)
        case ReasoningBlock():
            return _extended({"type": "reasoning", "text": block.text}, block.extra)
        case ToolCallBlock():
            call: WireObject = {
                "type": "tool-call",
                "id": block.id,
                "name": block.name,
                "arguments": block.arguments,
            }
            return _extended(call, block.extra)
        case ToolResultBlock():
            wire: WireObject = {
                "type": "tool-result",
                "toolCallId": block.tool_call_id,
                "content": [block_to_wire(item) for item in block.content],
            }
            if block.is_error is not None:
                wire["isError"] = block.is_error
            return _extended(wire, block.extra)
        case OpaqueBlock():
            return _extended({"type": block.type}, block.data)
        case _:
            assert_never(block)


_SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})


def _thawed(value: JsonValue) -> object:
    """`thaw(value)`, reading exact frozen containers directly: the encoder's hottest walk."""
    kind = type(value)
    if kind in _SCALAR_TYPES:
        return value
    if type(value) is FrozenMap:
        return {key: _thawed(item) for key, item in value._items.items()}
    if type(value) is tuple:
        return [_thawed(item) for item in value]
    return thaw(value)


def _thaw_map(value: FrozenMap) -> WireObject:
    if type(value) is FrozenMap:
        return {key: _thawed(item) for key, item in value._items.items()}
    plain = thaw(value)
    assert isinstance(plain, dict)
    return plain


def _extended(wire: WireObject, extra: FrozenMap) -> WireObject:
    """`{**wire, **thaw(extra)}`, built in place (`wire` is always the caller's fresh dict),
    and without a walk for the empty extras nearly every value has."""
    if type(extra) is not FrozenMap or extra._items:
        wire.update(_thaw_map(extra))
    return wire


def _message_parts(
    obj: object, role: str, where: str
) -> tuple[str | None, tuple[ContentBlock, ...], FrozenMap, FrozenMap]:
    if not isinstance(obj, Mapping):
        raise InvalidEventError(f"{where} must be an object", rule_id="LOG-4")
    if obj.get("role", role) != role:
        raise InvalidEventError(f"{where}.role must be {role!r}", rule_id="LOG-6")
    content = obj.get("content")
    if not isinstance(content, list):
        raise InvalidEventError(f"{where}.content must be an array", rule_id="LOG-4")
    blocks = tuple(block_from_wire(item, f"{where}.content[{i}]") for i, item in enumerate(content))
    source = _map(obj.get("source"), f"{where}.source")
    extra = _rest(obj, ("id", "role", "content", "source"), where)
    return _opt_str(obj, "id", where), blocks, source, extra


def user_message_from_wire(obj: object, where: str) -> UserMessage:
    """A user message object."""
    message_id, blocks, source, extra = _message_parts(obj, "user", where)
    return UserMessage(message_id, blocks, source, extra)


def assistant_message_from_wire(obj: object, where: str) -> AssistantMessage:
    """An assistant message object."""
    message_id, blocks, source, extra = _message_parts(obj, "assistant", where)
    return AssistantMessage(message_id, blocks, source, extra)


def tool_result_message_from_wire(obj: object, where: str) -> ToolResultMessage:
    """A tool result message: exactly one tool-result block citing `source.callId`."""
    message_id, blocks, source, extra = _message_parts(obj, "user", where)
    if len(blocks) != 1 or not isinstance(blocks[0], ToolResultBlock):
        msg = f"{where}.content must be exactly one tool-result block"
        raise InvalidEventError(msg, rule_id="LOG-6")
    return ToolResultMessage(message_id, blocks[0], source, extra)


def message_to_wire(message: UserMessage | AssistantMessage | ToolResultMessage) -> WireObject:
    """The JSON object of a message (role always written)."""
    blocks: tuple[ContentBlock, ...]
    match message:
        case UserMessage() | AssistantMessage():
            blocks = message.content
        case ToolResultMessage():
            blocks = (message.result,)
        case _:
            assert_never(message)
    wire: WireObject = {
        "role": message.ROLE,
        "content": [block_to_wire(block) for block in blocks],
        "source": _thaw_map(message.source),
    }
    if message.id is not None:
        wire["id"] = message.id
    return _extended(wire, message.extra)


# ---------------------------------------------------------------------------------------------
# Envelope and surface metadata.


def _surface_from_wire(
    obj: Mapping[str, object], kind: str
) -> tuple[SurfaceOp, tuple[int, ...] | None]:
    if "surfaceOp" not in obj:
        raise InvalidEventError(f"{kind} must carry surfaceOp", rule_id="LOG-2")
    op = obj["surfaceOp"]
    surface: SurfaceOp
    if op == "append":
        surface = APPEND
    elif isinstance(op, Mapping) and op.get("op") == "replace":
        surface = SurfaceReplace(_int(op, "start", "surfaceOp"), _int(op, "end", "surfaceOp"))
    else:
        raise InvalidEventError(f"{kind} has an unknown surfaceOp {op!r}", rule_id="LOG-2")
    sources = obj.get("sourceEventSeqs")
    if sources is None and "sourceEventSeqs" not in obj:
        return surface, None
    if not isinstance(sources, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in sources
    ):
        raise InvalidEventError("sourceEventSeqs must be an array of integers", rule_id="LOG-2")
    return surface, tuple(sources)


def _surface_to_wire(surface: SurfaceOp, sources: tuple[int, ...] | None) -> WireObject:
    wire: WireObject = {}
    match surface:
        case SurfaceAppend():
            wire["surfaceOp"] = "append"
        case SurfaceReplace():
            wire["surfaceOp"] = {"op": "replace", "start": surface.start, "end": surface.end}
        case _:
            assert_never(surface)
    if sources is not None:
        wire["sourceEventSeqs"] = list(sources)
    return wire


def event_from_wire(obj: object) -> Event:
    """Build one event from its JSON object, or raise `InvalidEventError`."""
    if not isinstance(obj, Mapping):
        raise InvalidEventError("an event line must be a JSON object", rule_id="LOG-4")
    kind = obj.get("type")
    if not isinstance(kind, str) or not kind:
        raise InvalidEventError("an event needs a non-empty string type", rule_id="LOG-4")
    seq = _int(obj, "seq", kind)
    time = _number(obj, "time", kind)
    if not float(time).is_integer():
        raise InvalidEventError(f"{kind}.time must be whole milliseconds", rule_id="LOG-4")
    envelope_extra = _rest(obj, ENVELOPE_KEYS, kind)
    if kind not in SURFACE_TYPES and ("surfaceOp" in obj or "sourceEventSeqs" in obj):
        msg = f"{kind} is not a surface event and must not carry surfaceOp or sourceEventSeqs"
        raise InvalidEventError(msg, rule_id="LOG-2")
    reader = _READERS.get(kind)
    if reader is None:
        return OpaqueEvent(
            kind, seq, int(time), _frozen(obj.get("data"), f"{kind}.data"), envelope_extra
        )
    data = obj.get("data")
    if not isinstance(data, Mapping):
        raise InvalidEventError(f"{kind}.data must be an object", rule_id="LOG-4")
    return reader(obj, data, seq, int(time), envelope_extra)


Reader = Callable[[Mapping[str, Any], Mapping[str, Any], int, int, FrozenMap], Event]


def _turn_start(obj: Any, data: Any, seq: int, time: int, env: FrozenMap) -> Event:
    return TurnStarted(
        seq,
        time,
        _int(data, "turn", "turn/start.data"),
        _rest(data, ("turn",), "turn/start.data"),
        env,
    )


def _turn_end(obj: Any, data: Any, seq: int, time: int, env: FrozenMap) -> Event:
    where = "turn/end.data"
    return TurnEnded(
        seq,
        time,
        _int(data, "turn", where),
        _map(data.get("reason"), where + ".reason"),
        _rest(data, ("turn", "reason"), where),
        env,
    )


def _step(cls: type[StepStarted] | type[StepEnded]) -> Reader:
    def read(obj: Any, data: Any, seq: int, time: int, env: FrozenMap) -> Event:
        where = f"{cls.TYPE}.data"
        return cls(
            seq,
            time,
            _int(data, "turn", where),
            _int(data, "step", where),
            _rest(data, ("turn", "step"), where),
            env,
        )

    return read


def _user_message(obj: Any, data: Any, seq: int, time: int, env: FrozenMap) -> Event:
    surface, sources = _surface_from_wire(obj, "user/message")
    message = user_message_from_wire(data, "user/message.data")
    return UserMessageRecorded(seq, time, message, surface, sources, env)


def _assistant_message(obj: Any, data: Any, seq: int, time: int, env: FrozenMap) -> Event:
    where = "assistant/message.data"
    surface, sources = _surface_from_wire(obj, "assistant/message")
    interrupted = data.get("interrupted", False)
    if interrupted is not True and "interrupted" in data:
        raise InvalidEventError(f"{where}.interrupted may only be true", rule_id="LOG-4")
    usage = data.get("usage")
    return AssistantMessageRecorded(
        seq,
        time,
        _int(data, "turn", where),
        _int(data, "step", where),
        assistant_message_from_wire(data.get("message"), where + ".message"),
        usage=None if usage is None else _map(usage, where + ".usage"),
        interrupted=bool(interrupted),
        surface=surface,
        sources=sources,
        extra=_rest(data, ("turn", "step", "message", "usage", "interrupted"), where),
        envelope_extra=env,
    )


def _tool_call(obj: Any, data: Any, seq: int, time: int, env: FrozenMap) -> Event:
    where = "tool/call.data"
    rewrite = None
    if "rewrite" in data:
        sidecar = data["rewrite"]
        handlers = sidecar.get("handlerIds") if isinstance(sidecar, Mapping) else None
        if not isinstance(handlers, list) or not all(isinstance(h, str) for h in handlers):
            raise InvalidEventError(f"{where}.rewrite.handlerIds must be strings", rule_id="RW-2")
        rewrite = RewriteSidecar(
            _str(sidecar, "originalArguments", where + ".rewrite"), tuple(handlers)
        )
    known = ("turn", "step", "callId", "name", "arguments", "rewrite")
    return ToolCallRecorded(
        seq,
        time,
        _int(data, "turn", where),
        _int(data, "step", where),
        _str(data, "callId", where),
        _str(data, "name", where),
        _str(data, "arguments", where),
        rewrite,
        _rest(data, known, where),
        env,
    )


def _tool_result(obj: Any, data: Any, seq: int, time: int, env: FrozenMap) -> Event:
    where = "tool/result.data"
    surface, sources = _surface_from_wire(obj, "tool/result")
    error = data.get("error")
    return ToolResultRecorded(
        seq,
        time,
        _int(data, "turn", where),
        _int(data, "step", where),
        tool_result_message_from_wire(data.get("message"), where + ".message"),
        error=None if error is None else _map(error, where + ".error"),
        meta=_frozen(data["meta"], where + ".meta") if "meta" in data else None,
        surface=surface,
        sources=sources,
        extra=_rest(data, ("turn", "step", "message", "error", "meta"), where),
        envelope_extra=env,
    )


def _hook_invoked(obj: Any, data: Any, seq: int, time: int, env: FrozenMap) -> Event:
    where = "hook/invoked.data"
    known = ("turn", "point", "dialect", "handlerId", "matcher", "callId")
    return HookInvoked(
        seq,
        time,
        _int(data, "turn", where),
        _str(data, "point", where),
        _str(data, "dialect", where),
        _str(data, "handlerId", where),
        _opt_str(data, "matcher", where),
        _opt_str(data, "callId", where),
        _rest(data, known, where),
        env,
    )


def _hook_result(obj: Any, data: Any, seq: int, time: int, env: FrozenMap) -> Event:
    where = "hook/result.data"
    known = (
        "turn",
        "point",
        "handlerId",
        "decision",
        "durationMs",
        "exitCode",
        "stderrSummary",
        "callId",
        "updatedInput",
    )
    return HookResulted(
        seq,
        time,
        _int(data, "turn", where),
        _str(data, "point", where),
        _str(data, "handlerId", where),
        _str(data, "decision", where),
        _number(data, "durationMs", where),
        _opt_int(data, "exitCode", where),
        _opt_str(data, "stderrSummary", where),
        _opt_str(data, "callId", where),
        _frozen(data["updatedInput"], where) if "updatedInput" in data else None,
        _rest(data, known, where),
        env,
    )


def _approval_asked(obj: Any, data: Any, seq: int, time: int, env: FrozenMap) -> Event:
    where = "approval/asked.data"
    known = ("id", "toolName", "callId", "reason", "arguments")
    return ApprovalAsked(
        seq,
        time,
        _str(data, "id", where),
        _str(data, "toolName", where),
        _opt_str(data, "callId", where),
        _opt_str(data, "reason", where),
        _opt_str(data, "arguments", where),
        _rest(data, known, where),
        env,
    )


def _approval_decided(obj: Any, data: Any, seq: int, time: int, env: FrozenMap) -> Event:
    where = "approval/decided.data"
    return ApprovalDecided(
        seq,
        time,
        _str(data, "id", where),
        _str(data, "outcome", where),
        _rest(data, ("id", "outcome"), where),
        env,
    )


_READERS: dict[str, Reader] = {
    TurnStarted.TYPE: _turn_start,
    TurnEnded.TYPE: _turn_end,
    StepStarted.TYPE: _step(StepStarted),
    StepEnded.TYPE: _step(StepEnded),
    UserMessageRecorded.TYPE: _user_message,
    AssistantMessageRecorded.TYPE: _assistant_message,
    ToolCallRecorded.TYPE: _tool_call,
    ToolResultRecorded.TYPE: _tool_result,
    HookInvoked.TYPE: _hook_invoked,
    HookResulted.TYPE: _hook_result,
    ApprovalAsked.TYPE: _approval_asked,
    ApprovalDecided.TYPE: _approval_decided,
}


def _optional(wire: WireObject, key: str, value: object) -> None:
    if value is not None:
        wire[key] = value


def event_data_to_wire(event: Event) -> object:
    """The `data` member of an event's JSON object."""
    data: WireObject
    match event:
        case TurnStarted():
            data = {"turn": event.turn}
        case TurnEnded():
            data = {"turn": event.turn, "reason": _thawed(event.reason)}
        case StepStarted() | StepEnded():
            data = {"turn": event.turn, "step": event.step}
        case UserMessageRecorded():
            return message_to_wire(event.message)
        case AssistantMessageRecorded():
            data = {
                "turn": event.turn,
                "step": event.step,
                "message": message_to_wire(event.message),
            }
            _optional(data, "usage", None if event.usage is None else _thawed(event.usage))
            if event.interrupted:
                data["interrupted"] = True
        case ToolCallRecorded():
            data = {
                "turn": event.turn,
                "step": event.step,
                "callId": event.call_id,
                "name": event.name,
                "arguments": event.arguments,
            }
            if event.rewrite is not None:
                data["rewrite"] = {
                    "originalArguments": event.rewrite.original_arguments,
                    "handlerIds": list(event.rewrite.handler_ids),
                }
        case ToolResultRecorded():
            data = {
                "turn": event.turn,
                "step": event.step,
                "message": message_to_wire(event.message),
            }
            _optional(data, "error", None if event.error is None else _thawed(event.error))
            _optional(data, "meta", _thawed(event.meta))
        case HookInvoked():
            data = {
                "turn": event.turn,
                "point": event.point,
                "dialect": event.dialect,
                "handlerId": event.handler_id,
            }
            _optional(data, "matcher", event.matcher)
            _optional(data, "callId", event.call_id)
        case HookResulted():
            data = {
                "turn": event.turn,
                "point": event.point,
                "handlerId": event.handler_id,
                "decision": event.decision,
                "durationMs": event.duration_ms,
            }
            _optional(data, "exitCode", event.exit_code)
            _optional(data, "stderrSummary", event.stderr_summary)
            _optional(data, "callId", event.call_id)
            _optional(data, "updatedInput", _thawed(event.updated_input))
        case ApprovalAsked():
            data = {"id": event.id, "toolName": event.tool_name}
            _optional(data, "callId", event.call_id)
            _optional(data, "reason", event.reason)
            _optional(data, "arguments", event.arguments)
        case ApprovalDecided():
            data = {"id": event.id, "outcome": event.outcome}
        case OpaqueEvent():
            return _thawed(event.data)
        case _:
            assert_never(event)
    return _extended(data, event.extra)


def event_to_wire(event: Event) -> WireObject:
    """The JSON object of one event, envelope included."""
    wire: WireObject = {
        "type": event.TYPE if not isinstance(event, OpaqueEvent) else event.type,
        "seq": event.seq,
        "time": event.time,
        "data": event_data_to_wire(event),
    }
    if isinstance(event, UserMessageRecorded | AssistantMessageRecorded | ToolResultRecorded):
        wire.update(_surface_to_wire(event.surface, event.sources))
    return _extended(wire, event.envelope_extra)


def header_from_wire(obj: object) -> SessionHeader:
    """The session header line."""
    if not isinstance(obj, Mapping) or obj.get("type") != "session":
        raise InvalidEventError(
            'the first line must be the {"type": "session"} header', rule_id="LOG-5"
        )
    return SessionHeader(
        version=_int(obj, "version", "session"),
        id=_str(obj, "id", "session"),
        created_at=int(_number(obj, "createdAt", "session")),
        cwd=_str(obj, "cwd", "session"),
        extra=_rest(obj, ("type", "version", "id", "createdAt", "cwd"), "session"),
    )


def header_to_wire(header: SessionHeader) -> WireObject:
    """The JSON object of the header line."""
    return {
        "type": "session",
        "version": header.version,
        "id": header.id,
        "createdAt": header.created_at,
        "cwd": header.cwd,
        **_thaw_map(header.extra),
    }


def _structure_as(cls: type) -> Callable[[object, type], Event]:
    def structure(obj: object, _type: type) -> Event:
        event = event_from_wire(obj)
        if not isinstance(event, cls):
            msg = f"expected a {cls.__name__} event, got {type(event).__name__}"
            raise InvalidEventError(msg, rule_id="LOG-4")
        return event

    return structure


def _make_converter() -> cattrs.Converter:
    converter = cattrs.Converter()
    converter.register_structure_hook(Event, lambda obj, _type: event_from_wire(obj))
    converter.register_unstructure_hook(Event, event_to_wire)
    for cls in _READERS_CLASSES:
        converter.register_structure_hook(cls, _structure_as(cls))
        converter.register_unstructure_hook(cls, event_to_wire)
    converter.register_structure_hook(SessionHeader, lambda obj, _type: header_from_wire(obj))
    converter.register_unstructure_hook(SessionHeader, header_to_wire)
    return converter


_READERS_CLASSES: tuple[type, ...] = (
    TurnStarted,
    TurnEnded,
    StepStarted,
    StepEnded,
    UserMessageRecorded,
    AssistantMessageRecorded,
    ToolCallRecorded,
    ToolResultRecorded,
    HookInvoked,
    HookResulted,
    ApprovalAsked,
    ApprovalDecided,
    OpaqueEvent,
)

converter = _make_converter()
