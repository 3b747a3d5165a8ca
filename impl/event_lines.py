"""An event's log line written straight from the frozen event, for the events the loop builds.

The reference spelling of a line is `encode_event(event_to_wire(event))`: the event mapped to
plain dicts and lists, then encoded by the C encoder. Both steps walk the whole event and
allocate its wire object, several times what writing the text costs. `plain_event_line` writes
the same text directly: strings escaped by the C `encode_basestring` the encoder itself uses,
numbers by the reprs the encoder uses, and payloads (`extra` maps, reasons, updated inputs, ...)
by a small walk that spells values exactly as the encoder does.

The writer of each event, message and block class is not written by hand: it is generated at
import from the session log's layout (`loopspec.model.log_layout`: each class's members, keys,
order, tag, what is left out and what is kept verbatim, the same layout model/wire.py's reader
and writer are generated from), compiled to one function per class with the members' keys as
fixed text, as attrs compiles its methods; tests hold every class's line to the reference byte
for byte.

It only does so for an event built entirely of exact types: `str`, `int`, `float`, `bool`,
`None`, tuples, `FrozenMap`s with string keys, and the event, message and block classes
themselves (no subclasses, which may add state). Such an event is deeply frozen, so the log
can keep the caller's object. Anything else (a list or dict inside, a subclass, a float JSON
cannot carry or only carries with a lost sign, an extra field that collides with a known one,
an integer too long to print, text with a lone surrogate) makes it answer None, and the caller
takes the reference path, which also names what JSON cannot carry.

The log takes each line *open* (`open_event_line`, `OPEN_LINE_WRITERS`): without its closing
brace, which the commit writes, after the unit marker when the unit holds several events.
"""

from __future__ import annotations

import typing
from _json import encode_basestring
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

import attrs

from loopspec.impl.framing import UNIT_KEY
from loopspec.model.events import Event, SurfaceAppend, SurfaceOp, SurfaceReplace
from loopspec.model.jsonvalue import EMPTY, FrozenMap
from loopspec.model.log_layout import (
    ENVELOPE_FIELDS,
    ENVELOPE_KEYS,
    ENVELOPE_REST,
    EVENT_LAYOUTS,
    NEVER,
    SURFACE_APPEND,
    SURFACE_REPLACE_TAG,
    LogField,
    LogObject,
    is_payload,
    log_object,
)


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
        # Strings inline: most payload values are. Each member is one f-string (one join),
        # not two concatenations.
        parts.append(f"{_string(key)}:{_string(item) if type(item) is str else _value(item)}")
    return f"{{{','.join(parts)}}}"


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


def _int_item(value: object) -> str:
    if type(value) is not int:
        _not_plain()
    return _int_text(value)


def _string_item(value: object) -> str:
    if type(value) is not str:
        _not_plain()
    return _string(value)


_APPEND_TEXT = _string(SURFACE_APPEND)
_REPLACE_OPENING = "{" + ":".join(_string(part) for part in SURFACE_REPLACE_TAG)


def _surface_op(surface: object) -> str:
    """The `surfaceOp` value, as the layout spells the two operations: a bare tag, and an
    object tagged by its `op` with the class's fields."""
    if type(surface) is SurfaceAppend:
        return _APPEND_TEXT
    if type(surface) is SurfaceReplace:
        start, end = surface.start, surface.end
        if type(start) is not int or type(end) is not int:
            _not_plain()
        return f'{_REPLACE_OPENING},"start":{start},"end":{end}}}'
    _not_plain()


# ---------------------------------------------------------------------------------------------
# Writers generated from the classes.

_Writer = Callable[[Any], str]
_ENVELOPE = frozenset({*ENVELOPE_KEYS, UNIT_KEY})  # `unit` is the framing's, never an extra's


@attrs.frozen
class _Member:
    """One member of a written object: its key, the attribute it holds (the object itself when
    empty), how that is written (its type, or an event's data object), the value that leaves
    the member out, and whether it is written as a one-item array."""

    key: str
    attribute: str
    hint: object
    omitted_when: object = NEVER
    in_array: bool = False


def _member(field: LogField) -> _Member:
    """The member a field of the layout writes (a tool result message's one block: as its
    `content` array)."""
    return _Member(
        field.wire, field.name, field.hint, field.omitted_when, field.shape == "result-block"
    )


@attrs.frozen
class _DataObject:
    """The `data` object of an event: members read from the event itself, and its extra field."""

    members: tuple[_Member, ...]
    tail: str | None


def _literal(text: str) -> str:
    """`text` as literal f-string text; refuses what would need escaping in generated source."""
    if any(mark in text for mark in ("\\", "'", "\n", "\r")):
        raise ValueError(f"cannot write {text!r} as generated source")
    return text.replace("{", "{{").replace("}", "}}")


class _Generator:
    """Compiles, into one namespace, one function per event class writing its whole line, each
    nested object inline (its exact type checked, its members read in place), and one function
    per class or union of classes that a tuple's items may be (chosen by exact type)."""

    def __init__(self, *, checked: bool = True) -> None:
        self._checked = checked
        self.namespace: dict[str, Any] = {
            "_not_plain": _not_plain,
            "_string": _string,
            "_value": _value,
            "_object": _object,
            "_tail": _tail,
            "_int_item": _int_item,
            "_string_item": _string_item,
            "_surface_op": _surface_op,
            "_int_text": _int_text,
            "_number_text": _number_text,
            "_float_text": _float_text,
            "_APPEND_TEXT": _APPEND_TEXT,
            "SurfaceAppend": SurfaceAppend,
            "EMPTY": EMPTY,
            "FrozenMap": FrozenMap,
        }
        self._names: dict[object, str] = {}

    def _exact(self, var: str, kind: str) -> list[str]:
        """Lines refusing a `var` that is not exactly of the type named `kind` (none in an
        unchecked generator, which only measures what the checks cost)."""
        return [f"if type({var}) is not {kind}:", "    _not_plain()"] if self._checked else []

    def _bind(self, value: object, stem: str) -> str:
        name = f"_{stem}{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def _compile(self, name: str, lines: list[str], result: str) -> None:
        body = "".join(f"    {line}\n" for line in [*lines, f"return {result}"])
        exec(
            compile(f"def {name}(value):\n{body}", f"<wire writer {name}>", "exec"), self.namespace
        )

    def event_writer(self, cls: type) -> _Writer:
        """An event's line but its closing brace and newline (an *open line*): the envelope
        members in `ENVELOPE_KEYS` order, `data` among them, then the envelope's extra fields;
        all in one function. The brace is left to the commit, which writes the unit marker
        before it on a unit of several events (`framing.close_lines`), without copying the
        line again to make room."""
        whole = log_object(cls)
        layout = EVENT_LAYOUTS.get(cls)
        envelope = {
            field.wire: _member(field)
            for field in whole.fields
            if layout is None or field.name in ENVELOPE_FIELDS
        }
        if layout is not None and layout.data_field is not None:
            envelope["data"] = _Member("data", layout.data_field.name, layout.data_field.hint)
        elif layout is not None:
            data = _DataObject(tuple(map(_member, layout.data.fields)), layout.data.rest)
            envelope["data"] = _Member("data", "", data)
        opening = [] if layout is None else [("type", layout.type)]
        members = [envelope[key] for key in ENVELOPE_KEYS if key in envelope]
        rest = whole.rest if layout is None else ENVELOPE_REST
        lines, text = self._object_code("value", opening, members, rest, _ENVELOPE)
        name = f"_line_{cls.__name__}"
        closing = "}}"  # the object's closing brace, as f-string source
        if not text.endswith(closing):
            raise TypeError(f"the line of {cls.__name__} does not end its object")
        self._compile(name, lines, f"f'{text.removesuffix(closing)}'")
        writer: _Writer = self.namespace[name]
        return writer

    def writer_name(self, hint: object) -> str:
        """The name of a generated function writing an instance of `hint`, an attrs class or a
        union of them (chosen by exact type): for the items of a tuple."""
        if hint in self._names:
            return self._names[hint]
        if isinstance(hint, type) and attrs.has(hint):
            name = self._names[hint] = f"_write_{hint.__name__}"
            lines, text = self._class_code(hint, "value")
            self._compile(name, lines, f"f'{text}'")
            return name
        table = self.dispatch_table(hint)
        name = self._names[hint] = self._bind(None, "choose")
        lines = [f"write = {table}.get(type(value))", "if write is None:", "    _not_plain()"]
        self._compile(name, lines, "write(value)")
        return name

    def dispatch_table(self, hint: object) -> str:
        """The name of a dict from each class of `hint`, a union of attrs classes, to the
        generated function writing it (so an instance's writer is chosen by exact type)."""
        key = ("table", hint)
        if key in self._names:
            return self._names[key]
        choices = typing.get_args(hint)
        if not choices or not all(isinstance(c, type) and attrs.has(c) for c in choices):
            raise TypeError(f"no wire writer for {hint!r}")
        by_class: dict[type, _Writer] = {}
        table = self._names[key] = self._bind(by_class, "by_class")
        for choice in choices:
            by_class[choice] = self.namespace[self.writer_name(choice)]
        return table

    def _class_code(self, cls: type, var: str) -> tuple[list[str], str]:
        """Lines checking that `var` is exactly a `cls` and reading its members, and the
        f-string text of its object: its tag, its members, its extra fields."""
        layout: LogObject = log_object(cls)
        members = [_member(field) for field in layout.fields]
        opening = [layout.tag] if layout.tag is not None else []
        lines = self._exact(var, self._bind(cls, "cls"))
        object_lines, text = self._object_code(var, opening, members, layout.rest, None)
        return lines + object_lines, text

    def _object_code(
        self,
        var: str,
        opening: list[tuple[str, str]],
        members: Sequence[_Member],
        tail: str | None,
        known: frozenset[str] | None,
    ) -> tuple[list[str], str]:
        """Lines reading the members of the object in `var`, and the f-string text writing it
        as `{constants,members,tail}`: required members inline, each optional one as its own
        `,"key":value` text or nothing. The extra fields may not repeat a key the object can
        have (`known`, else every key it can write)."""
        lines: list[str] = []
        text = _literal("{" + ",".join(f"{_string(key)}:{_string(v)}" for key, v in opening))
        opened = bool(opening)
        for index, member in enumerate(members):
            member_var = f"{var}_{index}"
            read = f".{member.attribute}" if member.attribute else ""
            lines.append(f"{member_var} = {var}{read}")
            checks, field = self._value_code(member.hint, member_var)
            if member.in_array:
                field = f"[{field}]"
            key = _literal(("," if opened else "") + _string(member.key) + ":")
            if member.omitted_when is NEVER:
                lines += checks
                text += key + field
            elif not opened:
                raise TypeError(f"an object cannot open with the optional {member.key!r}")
            else:
                written = f"{member_var}_text"
                lines += [f"if {member_var} is {member.omitted_when!r}:", f"    {written} = ''"]
                lines += ["else:", *(f"    {line}" for line in checks)]
                lines.append(f"    {written} = f'{key}{field}'")
                text += f"{{{written}}}"
            opened = True
        if tail is not None:
            if known is None:
                known = frozenset([*(key for key, _ in opening), *(m.key for m in members)])
            extra, known_name = f"{var}_extra", self._bind(known, "known")
            lines.append(f"{extra} = {var}.{tail}")
            lines.append(f"{extra} = '' if {extra} is EMPTY else _tail({extra}, {known_name})")
            text += f"{{{extra}}}"
        return lines, text + "}}"

    def _value_code(self, hint: object, var: str) -> tuple[list[str], str]:
        """Lines checking that `var` holds a plain `hint`, and the f-string text writing it."""
        if isinstance(hint, _DataObject):
            return self._object_code(var, [], hint.members, hint.tail, None)
        if hint is int:
            return self._exact(var, "int"), f"{{{var}}}"
        if hint is str:
            return self._exact(var, "str"), f"{{_string({var})}}"
        # Booleans, numbers and the surface operation are spelled in place rather than by a
        # helper call: a call costs more than the spelling, and events hold many of them.
        written = f"{var}_spelled"
        if hint is bool:
            spell = [f"if {var} is True:", f"    {written} = 'true'"]
            spell += [f"elif {var} is False:", f"    {written} = 'false'"]
            return [*spell, "else:", "    _not_plain()"], f"{{{written}}}"
        if hint is float:  # a number field: an int or a float, never a bool
            # `_number_text` in place: every repr of a finite float ends in a digit.
            spell = [f"if type({var}) is float:", f"    {written} = _float_text({var})"]
            spell += [f"    if {written}[-1] > '9' or {written} == '-0.0':", "        _not_plain()"]
            spell += [f"elif type({var}) is int:", f"    {written} = _int_text({var})"]
            return [*spell, "else:", "    _not_plain()"], f"{{{written}}}"
        if hint is FrozenMap:
            return self._exact(var, "FrozenMap"), f"{{_object({var})}}"
        if hint == SurfaceOp:
            spell = [f"if type({var}) is SurfaceAppend:", f"    {written} = _APPEND_TEXT"]
            spell += ["else:", f"    {written} = _surface_op({var})"]
            return spell, f"{{{written}}}"
        if is_payload(hint):  # mostly an object (an input, a reason): its writer called directly
            spell = [f"{written} = _object({var}) if type({var}) is FrozenMap else _value({var})"]
            return spell, f"{{{written}}}"
        if isinstance(hint, type) and attrs.has(hint):
            return self._class_code(hint, var)
        if typing.get_origin(hint) is tuple:
            item, ellipsis = typing.get_args(hint)
            if ellipsis is not Ellipsis:
                raise TypeError(f"no wire writer for {hint!r}")
            check = self._exact(var, "tuple")
            if typing.get_args(item):  # a union: each item's writer chosen in place, which
                # saves a call per item over a `map` of the chooser (messages hold many blocks)
                table, written = self.dispatch_table(item), f"{var}_items"
                check += [f"{written} = []", f"for {var}_item in {var}:"]
                check += [f"    {var}_write = {table}.get(type({var}_item))"]
                check += [f"    if {var}_write is None:", "        _not_plain()"]
                check += [f"    {written}.append({var}_write({var}_item))"]
                return check, f'[{{",".join({written})}}]'
            return check, f'[{{",".join(map({self._item_writer(item)}, {var}))}}]'
        choices = typing.get_args(hint)
        if type(None) in choices:  # what an optional member holds when it is written
            (present,) = [choice for choice in choices if choice is not type(None)]
            return self._value_code(present, var)
        return [], f"{{{self.writer_name(hint)}({var})}}"

    def _item_writer(self, hint: object) -> str:
        if hint is int:
            return "_int_item"
        if hint is str:
            return "_string_item"
        return self.writer_name(hint)


def _event_writers(*, checked: bool = True) -> dict[type, _Writer]:
    generator = _Generator(checked=checked)
    return {cls: generator.event_writer(cls) for cls in typing.get_args(Event)}


OPEN_LINE_WRITERS: Mapping[type, Callable[[Any], str]] = _event_writers()
"""Per event class: its open line (all of it but the closing brace and newline) written from
the event's fields, for an event built only of exact frozen JSON types; for any other event
the writer raises one of `NOT_PLAIN`."""
NOT_PLAIN: tuple[type[Exception], ...] = (_NotPlain, ValueError, TypeError, RecursionError)
"""What an open line writer raises for an event only the reference path writes (or refuses):
a part that is not plain, a float or an integer JSON cannot carry (ValueError), and a nesting
too deep (RecursionError)."""


def unchecked_line_writers() -> Mapping[type, Callable[[Any], str]]:
    """`OPEN_LINE_WRITERS` generated without their exact-type checks, for measuring only
    (benchmarks/bench_impl.py): the same text for every event the checked writers accept, and
    for anything else wrong text or an error. Never for writing a log."""
    return _event_writers(checked=False)


def open_event_line(event: Event) -> bytes | None:
    """`encode_event(event_to_wire(event))` without its closing brace, for an event built only
    of exact frozen JSON types (so deeply frozen); None for any other event, which the reference
    path must handle."""
    write = OPEN_LINE_WRITERS.get(type(event))
    if write is None:
        return None
    try:
        # Encoding here, not at commit: a lone surrogate has no UTF-8 form (UnicodeEncodeError,
        # a ValueError), and the reference path spells it escaped.
        return write(event).encode()
    except NOT_PLAIN:
        return None


def plain_event_line(event: Event) -> bytes | None:
    """`encode_event(event_to_wire(event))` for an event built only of exact frozen JSON types
    (so deeply frozen); None for any other event, which the reference path must handle."""
    line = open_event_line(event)
    return None if line is None else line + b"}"
