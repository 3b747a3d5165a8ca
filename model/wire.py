"""The dsh wire format: JSON objects <-> frozen events, exactly.

`event_from_wire(obj)` validates and builds an event; `event_to_wire(event)` gives back the same
JSON object (`event_to_wire(event_from_wire(obj)) == obj` for every valid `obj`; the one
normalisation is that a message without `role` gains its role, and an optional payload written
as null is left out). The functions are registered on `converter`, a cattrs converter, so
`converter.structure(obj, Event)` and `converter.unstructure(event)` are the public spelling.

Neither direction is written per class: the reader and the writer of every event, message and
block class are generated at import from `loopspec.model.log_layout` (the classes' fields and
the few layout facts they cannot state), compiled to one straight-line function per class as
attrs compiles its methods, so reading costs what a hand-written reader does.

Every refusal is an `InvalidEventError` carrying a rule ID and a message that names the field.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from typing import Any, assert_never

import attrs
import cattrs

from loopspec.model.errors import InvalidEventError
from loopspec.model.events import (
    APPEND,
    Event,
    OpaqueEvent,
    SessionHeader,
    SurfaceAppend,
    SurfaceOp,
    SurfaceReplace,
)
from loopspec.model.facts import surface_op_missing, time_below_zero
from loopspec.model.json_text import integer_written_as_double, spelled
from loopspec.model.jsonvalue import EMPTY, FrozenMap, JsonValue, NotJsonError, freeze, thaw
from loopspec.model.log_layout import (
    BLOCK_CLASSES,
    ENVELOPE_KEYS,
    ENVELOPE_REST,
    EVENT_CLASSES,
    EVENT_LAYOUTS,
    HEADER,
    HEADER_RULE,
    MESSAGE_CLASSES,
    NEVER,
    ROLE_RULE,
    SHAPE_RULE,
    SURFACE_APPEND,
    SURFACE_REPLACE_TAG,
    SURFACE_TYPES,
    EventLayout,
    LogField,
    LogObject,
    log_object,
    surface_fields,
)
from loopspec.model.messages import (
    AssistantMessage,
    ContentBlock,
    OpaqueBlock,
    ResultContentBlock,
    TextBlock,
    ToolResultBlock,
    ToolResultMessage,
    UserMessage,
)

__all__ = [
    "ENVELOPE_KEYS",
    "SURFACE_TYPES",
    "assistant_message_from_wire",
    "block_from_wire",
    "block_to_wire",
    "converter",
    "event_data_to_wire",
    "event_from_wire",
    "event_to_wire",
    "header_from_wire",
    "header_to_wire",
    "message_to_wire",
    "tool_result_message_from_wire",
    "user_message_from_wire",
]

WireObject = dict[str, Any]


# ---------------------------------------------------------------------------------------------
# Readers of one member, by shape: each names the member it failed on. The generated readers
# call these.


def _frozen(value: object, where: str) -> JsonValue:
    try:
        return freeze(value, where)
    except NotJsonError as error:
        raise InvalidEventError(str(error), rule_id="LOG-3") from error


def _map(value: object, where: str, rule: str = "LOG-4") -> FrozenMap:
    if not isinstance(value, Mapping):
        raise InvalidEventError(f"{where} must be an object", rule_id=rule)
    frozen = _frozen(value, where)
    assert isinstance(frozen, FrozenMap)
    return frozen


# The scalar readers take the rule a refusal names where a field's is not LOG-4 (the
# header's members: LOG-5); the generated readers pass it only then.
def _int(data: Mapping[str, object], key: str, where: str, rule: str = "LOG-4") -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        why = integer_written_as_double(value)
        raise InvalidEventError(f"{where}.{key} must be an integer{why}", rule_id=rule)
    return value


def _opt_int(data: Mapping[str, object], key: str, where: str, rule: str = "LOG-4") -> int | None:
    return None if key not in data else _int(data, key, where, rule)


def _str(data: Mapping[str, object], key: str, where: str, rule: str = "LOG-4") -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise InvalidEventError(f"{where}.{key} must be a string", rule_id=rule)
    return value


def _opt_str(data: Mapping[str, object], key: str, where: str, rule: str = "LOG-4") -> str | None:
    return None if key not in data else _str(data, key, where, rule)


def _number(data: Mapping[str, object], key: str, where: str, rule: str = "LOG-4") -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidEventError(f"{where}.{key} must be a number", rule_id=rule)
    if type(value) is float and value - value != 0.0:  # an infinity (json reads 1e999 so)
        raise InvalidEventError(f"{where}.{key} must be a finite number", rule_id=rule)
    return value


# JavaScript's largest exact integer (`Number.MAX_SAFE_INTEGER`): dsh refuses a header timestamp
# above it.
_MAX_SAFE_INTEGER = 2**53 - 1


def _whole_number(data: Mapping[str, object], key: str, where: str, rule: str = "LOG-4") -> int:
    """A number of a whole value from 0 to 2^53 - 1, written as an integer or not (1.0, 1e3)."""
    value = _number(data, key, where, rule)
    if value != int(value) or not 0 <= value <= _MAX_SAFE_INTEGER:
        raise InvalidEventError(
            f"{where}.{key} must be a whole number from 0 to 2^53 - 1, got {_shown(value)}",
            rule_id=rule,
        )
    return int(value)


def _shown(value: float) -> str:
    """`value` as an error message shows it: Python refuses to write an integer of more than
    4,300 digits (`sys.get_int_max_str_digits`), which a decoded JSON object may hold."""
    if type(value) is int and value.bit_length() > 64:
        sign = "a negative" if value < 0 else "an"
        return f"{sign} integer of {value.bit_length()} bits"
    return repr(value)


def _flag(data: Mapping[str, object], key: str, where: str, rule: str) -> bool:
    value = data.get(key, False)
    if value is not True and key in data:
        raise InvalidEventError(f"{where}.{key} may only be true", rule_id=rule)
    return bool(value)


def _opt_bool(data: Mapping[str, object], key: str, where: str, rule: str) -> bool | None:
    value = data.get(key)
    if value is not None and not isinstance(value, bool):
        raise InvalidEventError(f"{where}.{key} must be a boolean", rule_id=rule)
    return value


def _opt_map(data: Mapping[str, object], key: str, where: str) -> FrozenMap | None:
    value = data.get(key)
    return None if value is None else _map(value, f"{where}.{key}")


def _opt_json(data: Mapping[str, object], key: str, where: str) -> JsonValue:
    return _frozen(data[key], f"{where}.{key}") if key in data else None


def _strings(data: Mapping[str, object], key: str, where: str, rule: str) -> tuple[str, ...]:
    value = data.get(key) if isinstance(data, Mapping) else None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidEventError(f"{where}.{key} must be strings", rule_id=rule)
    return tuple(value)


def _blocks(value: object, where: str) -> tuple[ContentBlock, ...]:
    if not isinstance(value, list):
        raise InvalidEventError(f"{where} must be an array", rule_id="LOG-4")
    return tuple(block_from_wire(item, f"{where}[{i}]") for i, item in enumerate(value))


def _result_blocks(value: object, where: str, rule: str) -> tuple[ResultContentBlock, ...]:
    blocks = _blocks(value, where)
    for index, block in enumerate(blocks):
        if not isinstance(block, TextBlock | OpaqueBlock):
            # Named by the type the line gives it (`_blocks` read it: a list of objects).
            kind = spelled(typing.cast(list[Mapping[str, object]], value)[index]["type"])
            msg = f"{where}[{index}] cannot nest a {kind} block"
            raise InvalidEventError(msg, rule_id=rule)
    return typing.cast(tuple[ResultContentBlock, ...], blocks)


def _result_block(value: object, where: str, rule: str) -> ToolResultBlock:
    blocks = _blocks(value, where)
    if len(blocks) != 1 or not isinstance(blocks[0], ToolResultBlock):
        raise InvalidEventError(f"{where} must be exactly one tool-result block", rule_id=rule)
    return blocks[0]


def _rest(data: Mapping[str, object], known: tuple[str, ...], where: str) -> FrozenMap:
    rest = {k: v for k, v in data.items() if k not in known}
    # The shared empty map when nothing is left (nearly always): one object, not one per field.
    return _map(rest, where) if rest else EMPTY


# ---------------------------------------------------------------------------------------------
# Writers of one member's value.

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


# ---------------------------------------------------------------------------------------------
# Surface metadata: the two operations' spellings are the layout's (a bare tag, a tagged object).


_SURFACE_RULE = SHAPE_RULE["surface"]


def _surface_from_wire(
    obj: Mapping[str, object], kind: str
) -> tuple[SurfaceOp, tuple[int, ...] | None]:
    op = obj.get("surfaceOp")
    if op is None:  # null reads as absent, as check reads it
        raise InvalidEventError(surface_op_missing(kind), rule_id=_SURFACE_RULE)
    surface: SurfaceOp
    tag, name = SURFACE_REPLACE_TAG
    if op == SURFACE_APPEND:
        surface = APPEND
    elif isinstance(op, Mapping) and op.get(tag) == name:
        surface = SurfaceReplace(_int(op, "start", "surfaceOp"), _int(op, "end", "surfaceOp"))
    else:
        raise InvalidEventError(
            f"{kind} has an unknown surfaceOp {spelled(op)}", rule_id=_SURFACE_RULE
        )
    sources = obj.get("sourceEventSeqs")
    if sources is None and "sourceEventSeqs" not in obj:
        return surface, None
    if not isinstance(sources, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in sources
    ):
        msg = "sourceEventSeqs must be an array of integers"
        raise InvalidEventError(msg, rule_id=SHAPE_RULE["sources"])
    return surface, tuple(sources)


def _surface_op(surface: SurfaceOp) -> object:
    match surface:
        case SurfaceAppend():
            return SURFACE_APPEND
        case SurfaceReplace():
            tag, name = SURFACE_REPLACE_TAG
            return {tag: name, "start": surface.start, "end": surface.end}
        case _:
            assert_never(surface)


# ---------------------------------------------------------------------------------------------
# The generated readers and writers.


class _Generator:
    """Compiles, into one namespace, a reader and a writer per class of the layout: each reads
    or writes its members in place, in the layout's order, with their keys as constants."""

    def __init__(self) -> None:
        readers = (
            _int,
            _opt_int,
            _str,
            _opt_str,
            _number,
            _whole_number,
            _flag,
            _opt_bool,
            _map,
            _opt_map,
        )
        helpers = (_opt_json, _strings, _blocks, _result_blocks, _result_block, _rest)
        writers = (_thawed, _extended, _surface_from_wire, _surface_op)
        self.namespace: dict[str, Any] = {
            function.__name__: function for function in (*readers, *helpers, *writers)
        }
        self.namespace.update(InvalidEventError=InvalidEventError, Mapping=Mapping)
        self.readers: dict[type, Callable[..., Any]] = {}
        self.writers: dict[type, Callable[[Any], Any]] = {}

    def _bind(self, value: object, stem: str) -> str:
        name = f"_{stem}_{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def _compile(self, name: str, params: str, lines: list[str]) -> Callable[..., Any]:
        body = "".join(f"    {line}\n" for line in lines)
        source = f"def {name}({params}):\n{body}"
        exec(compile(source, f"<log layout {name}>", "exec"), self.namespace)
        made: Callable[..., Any] = self.namespace[name]
        return made

    # Reading.

    def _read_member(self, field: LogField, obj: str, where: str) -> str:
        """The expression reading `field` from the mapping `obj`; `where` is an expression for
        the object's path."""
        key = repr(field.wire)
        path = f"{where} + {'.' + field.wire!r}"
        rule = repr(field.rule)
        scalar_rule = "" if field.rule == "LOG-4" else f", {rule}"  # the hot path passes none
        match field.shape:
            case "int":
                return f"_{'opt_' if field.optional else ''}int({obj}, {key}, {where}{scalar_rule})"
            case "str":
                return f"_{'opt_' if field.optional else ''}str({obj}, {key}, {where}{scalar_rule})"
            case "number":
                reader = "_whole_number" if field.hint is int else "_number"
                return f"{reader}({obj}, {key}, {where}{scalar_rule})"
            case "flag":
                return f"_flag({obj}, {key}, {where}, {rule})"
            case "bool":
                assert field.null_is_absent, field  # `_opt_bool` reads null as left out
                return f"_opt_bool({obj}, {key}, {where}, {rule})"
            case "object":
                if field.null_is_absent:
                    return f"_opt_map({obj}, {key}, {where})"
                return f"_map({obj}.get({key}), {path}{scalar_rule})"
            case "json":
                assert field.null_is_absent, field  # `_opt_json` reads null as left out
                return f"_opt_json({obj}, {key}, {where})"
            case "strings":
                return f"_strings({obj}, {key}, {where}, {rule})"
            case "blocks":
                return f"_blocks({obj}.get({key}), {path})"
            case "result-blocks":
                return f"_result_blocks({obj}.get({key}), {path}, {rule})"
            case "result-block":
                return f"_result_block({obj}.get({key}), {path}, {rule})"
            case "message" | "nested":
                assert field.target is not None
                reader = self.reader_name(field.target)
                read = f"{reader}({obj}.get({key}), {path}, {rule})"
                if field.optional:
                    return f"(None if {key} not in {obj} else {read})"
                return read
            case "surface" | "sources":
                raise TypeError(f"{field.name}: the envelope's, not an object's")
            case _:
                assert_never(field.shape)

    def _construct(self, layout: LogObject, values: dict[str, str]) -> str:
        """The call building `layout.cls` from the expressions in `values`, by field order."""
        args = [values[f.name] for f in attrs.fields(layout.cls) if f.name in values]
        return f"{self._bind(layout.cls, layout.cls.__name__)}({', '.join(args)})"

    def _object_lines(self, layout: LogObject, obj: str, where: str) -> tuple[list[str], str]:
        """Lines reading each member of `layout` into a local, and the constructor call."""
        lines: list[str] = []
        values: dict[str, str] = {}
        for index, field in enumerate(layout.fields):
            var = values[field.name] = f"v{index}"
            if field.shape in ("int", "str"):
                # The common case inline (a value of exactly the type); the reader otherwise,
                # which takes what the type allows and refuses the rest.
                exact = field.shape
                lines.append(f"{var} = {obj}.get({field.wire!r})")
                odd = f"{var} is not None or {field.wire!r} in {obj}" if field.optional else ""
                test = f"type({var}) is not {exact}" + (f" and ({odd})" if odd else "")
                lines += [f"if {test}:", f"    {var} = {self._read_member(field, obj, where)}"]
                continue
            lines.append(f"{var} = {self._read_member(field, obj, where)}")
        if layout.rest is not None:
            values[layout.rest] = "rest"
            known = self._bind(layout.known, "known")
            lines.append(f"rest = _rest({obj}, {known}, {where})")
        return lines, self._construct(layout, values)

    def reader_name(self, cls: type) -> str:
        """The generated reader of an object class: `(value, where, rule)` -> instance; the
        value is checked to be an object (refused under `rule`), a role tag matched."""
        name = f"_read_{cls.__name__}"
        if name in self.namespace:
            return name
        layout = log_object(cls)
        lines = [
            "if not isinstance(value, Mapping):",
            "    raise InvalidEventError(where + ' must be an object', rule_id=rule)",
            "obj = value",
        ]
        if layout.tag is not None and layout.tag[0] == "role":
            key, role = layout.tag
            lines += [
                f"if obj.get({key!r}, {role!r}) != {role!r}:",
                f"    raise InvalidEventError(where + {f'.{key} must be {spelled(role)}'!r},"
                f" rule_id={ROLE_RULE!r})",
            ]
        member_lines, built = self._object_lines(layout, "obj", "where")
        self._compile(name, "value, where, rule", [*lines, *member_lines, f"return {built}"])
        return name

    def event_reader(self, layout: EventLayout) -> Callable[..., Event]:
        """`(obj, data, seq, time, env)` -> the event: surface metadata first, then `data`."""
        where = repr(f"{layout.type}.data")
        lines: list[str] = []
        values = {"seq": "seq", "time": "time", ENVELOPE_REST: "env"}
        if layout.surface:
            lines.append(f"surface, sources = _surface_from_wire(obj, {layout.type!r})")
            values.update(surface="surface", sources="sources")
        if layout.data_field is not None:
            assert layout.data_field.target is not None
            reader = self.reader_name(layout.data_field.target)
            values[layout.data_field.name] = f"{reader}(data, {where}, 'LOG-4')"
            built = self._construct(log_object(layout.cls), values)
        else:
            member_lines, _ = self._object_lines(layout.data, "data", where)
            lines += member_lines
            values.update({f.name: f"v{i}" for i, f in enumerate(layout.data.fields)})
            if layout.data.rest is not None:
                values[layout.data.rest] = "rest"
            built = self._construct(log_object(layout.cls), values)
        name = f"_event_{layout.cls.__name__}"
        return self._compile(name, "obj, data, seq, time, env", [*lines, f"return {built}"])

    # Writing.

    def _write_member(self, field: LogField, value: str) -> str:
        """The expression writing the value in `value` (not None, when the member may be)."""
        match field.shape:
            case "int" | "str" | "number" | "bool":
                return value
            case "flag":
                return "True"
            case "object" | "json":
                return f"_thawed({value})"
            case "strings" | "sources":
                return f"list({value})"
            case "blocks" | "result-blocks":
                return f"[block_to_wire(item) for item in {value}]"
            case "result-block":
                return f"[block_to_wire({value})]"
            case "message" | "nested":
                assert field.target is not None
                return f"{self.writer_name(field.target)}({value})"
            case "surface":
                return f"_surface_op({value})"
            case _:
                assert_never(field.shape)

    def _members_lines(
        self, fields: tuple[LogField, ...], var: str, opening: list[str]
    ) -> list[str]:
        """Lines building `wire`: the members always written in one literal, each one left
        out when None (or a flag when unset) after its test."""
        lines: list[str] = []
        literal = list(opening)
        for field in fields:
            read = f"{var}.{field.name}"
            if field.omitted_when is NEVER and not lines:
                literal.append(f"{field.wire!r}: {self._write_member(field, read)}")
                continue
            if not lines:
                lines.append(f"wire = {{{', '.join(literal)}}}")
            if field.omitted_when is NEVER:
                lines.append(f"wire[{field.wire!r}] = {self._write_member(field, read)}")
                continue
            test = "if item:" if field.omitted_when is False else "if item is not None:"
            lines += [
                f"item = {read}",
                test,
                f"    wire[{field.wire!r}] = {self._write_member(field, 'item')}",
            ]
        if not lines:
            lines.append(f"wire = {{{', '.join(literal)}}}")
        return lines

    def writer_name(self, cls: type) -> str:
        """The generated writer of an object class: instance -> its JSON object."""
        name = f"_write_{cls.__name__}"
        if name in self.namespace:
            return name
        layout = log_object(cls)
        opening = [f"{layout.tag[0]!r}: {layout.tag[1]!r}"] if layout.tag is not None else []
        lines = self._members_lines(layout.fields, "value", opening)
        if layout.rest is not None:
            lines.append(f"return _extended(wire, value.{layout.rest})")
        else:
            lines.append("return wire")
        self._compile(name, "value", lines)
        return name

    def event_writers(self, layout: EventLayout) -> tuple[Callable[..., Any], Callable[..., Any]]:
        """The writers of an event's `data` member and of its whole JSON object."""
        stem = layout.cls.__name__
        if layout.data_field is not None:
            assert layout.data_field.target is not None
            target = self.writer_name(layout.data_field.target)
            data_lines = [f"return {target}(value.{layout.data_field.name})"]
        else:
            data_lines = self._members_lines(layout.data.fields, "value", [])
            rest = layout.data.rest
            data_lines.append(f"return _extended(wire, value.{rest})" if rest else "return wire")
        data = self._compile(f"_data_{stem}", "value", data_lines)
        opening = [
            f"'type': {layout.type!r}",
            "'seq': value.seq",
            "'time': value.time",
            f"'data': _data_{stem}(value)",
        ]
        lines = self._members_lines(surface_fields(layout.cls), "value", opening)
        lines.append(f"return _extended(wire, value.{ENVELOPE_REST})")
        return data, self._compile(f"_line_{stem}", "value", lines)


_GENERATOR = _Generator()
_EVENT_READERS: dict[str, Callable[..., Event]] = {
    layout.type: _GENERATOR.event_reader(layout) for layout in EVENT_LAYOUTS.values()
}
_DATA_WRITERS: dict[type, Callable[[Any], object]] = {}
_EVENT_WRITERS: dict[type, Callable[[Any], WireObject]] = {}
for _layout in EVENT_LAYOUTS.values():
    _DATA_WRITERS[_layout.cls], _EVENT_WRITERS[_layout.cls] = _GENERATOR.event_writers(_layout)
_BLOCK_READERS: dict[str, Callable[[object, str, str], ContentBlock]] = {
    _tag[1]: _GENERATOR.namespace[_GENERATOR.reader_name(cls)]
    for cls in BLOCK_CLASSES
    if (_tag := log_object(cls).tag) is not None
}
_BLOCK_WRITERS: dict[type, Callable[[Any], WireObject]] = {
    cls: _GENERATOR.namespace[_GENERATOR.writer_name(cls)] for cls in (*BLOCK_CLASSES, OpaqueBlock)
}
_read_opaque_block = _GENERATOR.namespace[_GENERATOR.reader_name(OpaqueBlock)]
_MESSAGE_READERS = {
    cls: _GENERATOR.namespace[_GENERATOR.reader_name(cls)] for cls in MESSAGE_CLASSES
}
_MESSAGE_WRITERS: dict[type, Callable[[Any], WireObject]] = {
    cls: _GENERATOR.namespace[_GENERATOR.writer_name(cls)] for cls in MESSAGE_CLASSES
}
_EVENT_WRITERS[OpaqueEvent] = _GENERATOR.namespace[_GENERATOR.writer_name(OpaqueEvent)]
_read_header = _GENERATOR.namespace[_GENERATOR.reader_name(SessionHeader)]


# ---------------------------------------------------------------------------------------------
# The public API.


def block_from_wire(obj: object, where: str) -> ContentBlock:
    """One content block."""
    if not isinstance(obj, Mapping) or not isinstance(obj.get("type"), str):
        raise InvalidEventError(f"{where} must be an object with a string type", rule_id="LOG-4")
    read = _BLOCK_READERS.get(obj["type"], _read_opaque_block)
    block: ContentBlock = read(obj, where, "LOG-4")
    return block


def block_to_wire(block: ContentBlock) -> WireObject:
    """The JSON object of one content block."""
    write = _BLOCK_WRITERS.get(type(block)) or _writer_by_class(_BLOCK_WRITERS, block)
    return write(block)


_GENERATOR.namespace["block_to_wire"] = block_to_wire  # the generated writers' blocks


def _writer_by_class(
    writers: Mapping[type, Callable[[Any], Any]], value: object
) -> Callable[[Any], Any]:
    """The writer of the nearest class `value` is an instance of (a subclass's)."""
    for cls in type(value).__mro__:
        if cls in writers:
            return writers[cls]
    raise TypeError(f"no wire form for {type(value).__name__}")


def user_message_from_wire(obj: object, where: str) -> UserMessage:
    """A user message object."""
    message: UserMessage = _MESSAGE_READERS[UserMessage](obj, where, "LOG-4")
    return message


def assistant_message_from_wire(obj: object, where: str) -> AssistantMessage:
    """An assistant message object."""
    message: AssistantMessage = _MESSAGE_READERS[AssistantMessage](obj, where, "LOG-4")
    return message


def tool_result_message_from_wire(obj: object, where: str) -> ToolResultMessage:
    """A tool result message: exactly one tool-result block citing `source.callId`."""
    message: ToolResultMessage = _MESSAGE_READERS[ToolResultMessage](obj, where, "LOG-4")
    return message


def message_to_wire(message: UserMessage | AssistantMessage | ToolResultMessage) -> WireObject:
    """The JSON object of a message (role always written)."""
    write = _MESSAGE_WRITERS.get(type(message)) or _writer_by_class(_MESSAGE_WRITERS, message)
    return write(message)


def event_from_wire(obj: object) -> Event:
    """Build one event from its JSON object, or raise `InvalidEventError`."""
    if not isinstance(obj, Mapping):
        raise InvalidEventError("an event line must be a JSON object", rule_id="LOG-4")
    kind = obj.get("type")
    if not isinstance(kind, str) or not kind:
        raise InvalidEventError("an event needs a non-empty string type", rule_id="LOG-4")
    seq = _int(obj, "seq", kind)
    time = _number(obj, "time", kind)
    # An integer is whole; `float()` of one too large for a float raises OverflowError.
    if type(time) is float and not time.is_integer():
        raise InvalidEventError(f"{kind}.time must be whole milliseconds", rule_id="LOG-4")
    if time < 0:
        raise InvalidEventError(f"{kind}.{time_below_zero(time)}", rule_id="LOG-4")
    envelope_extra = _rest(obj, ENVELOPE_KEYS, kind)
    if kind not in SURFACE_TYPES and ("surfaceOp" in obj or "sourceEventSeqs" in obj):
        msg = f"{kind} is not a surface event and must not carry surfaceOp or sourceEventSeqs"
        raise InvalidEventError(msg, rule_id="LOG-2")
    reader = _EVENT_READERS.get(kind)
    if reader is None:
        return OpaqueEvent(
            kind, seq, int(time), _frozen(obj.get("data"), f"{kind}.data"), envelope_extra
        )
    data = obj.get("data")
    if not isinstance(data, Mapping):
        raise InvalidEventError(f"{kind}.data must be an object", rule_id="LOG-4")
    return reader(obj, data, seq, int(time), envelope_extra)


def event_data_to_wire(event: Event) -> object:
    """The `data` member of an event's JSON object."""
    write = _DATA_WRITERS.get(type(event))
    if write is not None:
        return write(event)
    if isinstance(event, OpaqueEvent):
        return _thawed(event.data)
    return _writer_by_class(_DATA_WRITERS, event)(event)


def event_to_wire(event: Event) -> WireObject:
    """The JSON object of one event, envelope included."""
    write = _EVENT_WRITERS.get(type(event))
    if write is not None:
        return write(event)
    written: WireObject = _writer_by_class(_EVENT_WRITERS, event)(event)
    return written


def header_from_wire(obj: object) -> SessionHeader:
    """The session header line."""
    assert HEADER.tag is not None
    key, tag = HEADER.tag
    if not isinstance(obj, Mapping) or obj.get(key) != tag:
        raise InvalidEventError(
            'the first line must be the {"type": "session"} header', rule_id=HEADER_RULE
        )
    header: SessionHeader = _read_header(obj, tag, HEADER_RULE)
    return header


_write_header = _GENERATOR.namespace[_GENERATOR.writer_name(SessionHeader)]


def header_to_wire(header: SessionHeader) -> WireObject:
    """The JSON object of the header line."""
    wire: WireObject = _write_header(header)
    return wire


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
    for cls in (*EVENT_CLASSES, OpaqueEvent):
        converter.register_structure_hook(cls, _structure_as(cls))
        converter.register_unstructure_hook(cls, event_to_wire)
    converter.register_structure_hook(SessionHeader, lambda obj, _type: header_from_wire(obj))
    converter.register_unstructure_hook(SessionHeader, header_to_wire)
    return converter


converter = _make_converter()
