"""Deep-frozen JSON values.

Every payload the model stores is a *lossless JSON snapshot*: plain JSON types, with objects as
`FrozenMap` and arrays as tuples, so nothing reachable from an event can be mutated after the
event exists (rule LOG-3). `freeze` is the single gate: it refuses anything JSON cannot carry
losslessly (NaN, infinities, -0.0, non-string keys, cycles, foreign objects) and names the path
of the offending value.
"""

from __future__ import annotations

# collections.abc's own source, loaded with the interpreter: importing collections.abc imports
# collections, which costs `loopspec check` a fifth of the interpreter's start
# (tests/test_check_startup.py).
from _collections_abc import Mapping

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import MappingProxyType
    from typing import Any, TypeAlias
else:
    MappingProxyType = type(type.__dict__)  # as `types` defines it, without importing it


class NotJsonError(ValueError):
    """A value that is not lossless JSON was offered where JSON is required."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"not lossless JSON at {path}: {reason}")


class FrozenMap(Mapping[str, "JsonValue"]):
    """An immutable, hashable, insertion-ordered JSON object."""

    __slots__ = ("_hash", "_items")

    # A read-only view: `fm._items[k] = v` fails too, not only `fm.x = v`.
    _items: MappingProxyType[str, JsonValue]
    _hash: int | None

    def __init__(self, items: Mapping[str, JsonValue] | None = None) -> None:
        object.__setattr__(self, "_items", MappingProxyType(dict(items or {})))
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name: str, value: object) -> None:
        msg = "FrozenMap is immutable"
        raise AttributeError(msg)

    def __getitem__(self, key: str) -> JsonValue:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        # The read-only view answers directly; `Mapping`'s default tries a lookup and catches.
        return key in self._items

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(tuple(self._items.items())))
        assert self._hash is not None
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._items == other._items
        if isinstance(other, Mapping):
            return self._items == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"


# A union of types, not `typing.Union`: `loopspec check` reads values of this type without
# importing typing (tests/test_check_startup.py).
JsonValue: TypeAlias = bool | int | float | str | tuple["JsonValue", ...] | FrozenMap | None

EMPTY = FrozenMap()


# Python refuses to print integers with more digits than this (`sys.int_max_str_digits`), so a
# larger one could be frozen but never written back: it is not lossless JSON here.
MAX_INT_DIGITS = 4300


def freeze(value: object, path: str = "$") -> JsonValue:
    """Snapshot `value` as a deep-frozen JSON value, or raise `NotJsonError` naming the path."""
    try:
        return _freeze(value, path, set())
    except RecursionError as error:
        raise NotJsonError(path, "nested too deeply") from error


def _freeze(value: object, path: str, active: set[int]) -> JsonValue:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        # Bit length bounds the digit count (4 bits > 1 digit), so the exact test runs rarely.
        if value.bit_length() > MAX_INT_DIGITS * 4 or (
            value.bit_length() > MAX_INT_DIGITS * 3 and abs(value) >= 10**MAX_INT_DIGITS
        ):
            raise NotJsonError(path, "integer too large to write as JSON")
        return int(value)
    if isinstance(value, float):
        import math  # noqa: PLC0415 (a log's arguments seldom hold a float: check starts without)

        if math.isnan(value) or math.isinf(value):
            raise NotJsonError(path, "NaN and infinities have no JSON form")
        if value == 0.0 and math.copysign(1.0, value) < 0:
            raise NotJsonError(path, "-0 does not survive a JSON round trip")
        return value
    if isinstance(value, FrozenMap):
        return value
    if isinstance(value, Mapping | list | tuple):
        marker = id(value)
        if marker in active:
            raise NotJsonError(path, "cycle")
        active.add(marker)
        try:
            if isinstance(value, Mapping):
                frozen: dict[str, JsonValue] = {}
                for key, item in value.items():
                    if not isinstance(key, str):
                        raise NotJsonError(path, f"object key {key!r} is not a string")
                    frozen[key] = _freeze(item, f"{path}.{key}", active)
                return FrozenMap(frozen)
            return tuple(_freeze(item, f"{path}[{i}]", active) for i, item in enumerate(value))
        finally:
            active.discard(marker)
    raise NotJsonError(path, f"{type(value).__name__} is not a JSON type")


def thaw(value: JsonValue) -> object:
    """The plain `dict`/`list` form of a frozen value, for `json.dumps` and for callers."""
    if isinstance(value, FrozenMap):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [thaw(item) for item in value]
    return value


def dumps(value: JsonValue) -> str:
    """Compact JSON text of a frozen value (key order preserved)."""
    import json  # noqa: PLC0415 (`loopspec check` reads a log without it, and without re)

    return json.dumps(thaw(value), ensure_ascii=False, separators=(",", ":"))


JSON_SPACE = " \t\n\r"
"""What json reads as whitespace around a value."""


class ScannerSettings:
    """What json's C scanner reads of its decoder (`json.JSONDecoder`'s settings), held without
    json's decoder, which imports re: strict strings, integers read as `int`, a number with a
    fraction or an exponent read by `parse_float`, and `NaN`, `Infinity` and `-Infinity` by
    `parse_constant`."""

    def __init__(
        self, parse_float: Callable[[str], object], parse_constant: Callable[[str], object]
    ) -> None:
        self.strict = True
        self.object_hook = self.object_pairs_hook = None
        self.parse_float, self.parse_int = parse_float, int
        self.parse_constant = parse_constant


def json_scanner(
    parse_float: Callable[[str], object], parse_constant: Callable[[str], object]
) -> Callable[[str, int], tuple[Any, int]]:
    """json's reader of one value, `scan(text, index) -> (value, index past it)`, with a
    decoder's `parse_float` and `parse_constant` (`ScannerSettings`): CPython's C scanner, called
    directly (`raw_decode` only wraps it in a frame that words its StopIteration); where an
    interpreter lacks it, json's own, on a decoder (it reads the decoder's parsers too)."""
    try:
        from _json import make_scanner  # noqa: PLC0415 (once per reader; CPython's C scanner)
    except ImportError:
        from json import JSONDecoder  # noqa: PLC0415 (only without the C scanner: it imports re)
        from json.scanner import make_scanner as python_scanner  # noqa: PLC0415 (likewise)

        decoder = JSONDecoder(parse_float=parse_float, parse_constant=parse_constant)
        # (typeshed types the scanner's context as another scanner; a decoder is what it reads)
        return python_scanner(decoder)  # type: ignore[arg-type]
    # (typeshed types the scanner's context as another scanner; the settings serve)
    return make_scanner(ScannerSettings(parse_float, parse_constant))  # type: ignore[arg-type]


_CONSTANTS = {"-Infinity": -float("inf"), "Infinity": float("inf"), "NaN": float("nan")}
"""What `json.loads` reads `NaN` and the infinities as."""


def loads(text: str) -> object:
    """`json.loads(text)`: what json's scanner reads of a text that holds one JSON value, the
    rest (what it refuses, with its error) from `json.loads` itself. `loopspec check` parses a
    hooked call's arguments so, without importing json, whose decoder imports re, enum and
    collections: together several times the interpreter's start."""
    try:
        value = value_of(text)
    except RecursionError:
        value = NOT_JSON
    if value is not NOT_JSON:
        return value
    import json  # noqa: PLC0415 (see above)

    return json.loads(text)


NOT_JSON = object()
"""What `value_of` gives for a text that holds no JSON value."""


def value_of(text: str) -> object:
    """`json.loads(text)`, or `NOT_JSON` where json.loads raises a ValueError (a RecursionError
    is raised, for a value nested deeper than the stack allows): json's scanner alone reads it,
    and why a text is no JSON is not asked, so json is not imported (see `loads`)."""
    if not SCANNERS:
        SCANNERS.append(json_scanner(float, _CONSTANTS.__getitem__))
    # (Stripped only where it has space to strip: most texts are a value alone, and the strips
    # cost more than scanning a short one.)
    start = 0 if text[:1] not in JSON_SPACE else len(text) - len(text.lstrip(JSON_SPACE))
    try:
        value, end = SCANNERS[0](text, start)
    # What the scanner raises for a text it cannot read (SystemError: Python 3.11's C scanner,
    # while json.decoder is not imported, for a malformed value).
    except (ValueError, StopIteration, SystemError):
        return NOT_JSON
    return NOT_JSON if end != len(text) and text[end:].strip(JSON_SPACE) else value


SCANNERS: list[Callable[[str, int], tuple[object, int]]] = []
"""The scanner `value_of` reads with, once it has read a text (empty before): a reader on a hot
path may call it as `value_of` does, on a text that opens with its value (json reads no space
before it), to spare a call."""


def loads_refusing(text: str, refuse: Callable[[str], object]) -> object:
    """`json.loads(text, parse_constant=refuse)`: json calls `refuse` with the name of each
    `NaN`, `Infinity` or `-Infinity` it reads, so a text naming none is read as `loads` reads
    it, without json (the readers of Claude Code and Codex logs refuse them, as JSON.parse and
    serde_json do)."""
    if "NaN" in text or "Infinity" in text:
        import json  # noqa: PLC0415 (see `loads`)

        return json.loads(text, parse_constant=refuse)
    return loads(text)


def json_dumps(value: object, *, indent: int | None = None, sort_keys: bool = False) -> str:
    """`json.dumps(value, indent=indent, sort_keys=sort_keys)`, ASCII with escapes, without
    importing json (see `loads`): `loopspec check` writes its JSON report so, and the values a
    Claude Code or Codex log's violation names. A value of a type no such text holds (a key
    that is no string, an object json refuses) is left to json itself, which words it as it
    always did (tests/test_check_report_json.py holds the two to the same text)."""
    parts: list[str] = []
    # The indent of each level (None: all on one line, members parted by ", "); sorted keys.
    layout = (None if indent is None else " " * indent, sort_keys)
    if not _encode(value, layout, None if indent is None else "\n", parts):
        import json  # noqa: PLC0415 (see above)

        return json.dumps(value, indent=indent, sort_keys=sort_keys)
    return "".join(parts)


def integer_written_as_double(value: object) -> str:
    """Why `value`, read where an integer must be, is none, when it is a double of whole value
    (what a JSON library reading every number as a double writes back for an integer); ""
    otherwise."""
    if type(value) is not float or not value.is_integer():
        return ""
    return (
        f", got {value!r}: a number written with a fraction or an exponent is none (a reader "
        "that takes every number as a double, as Gson does, writes the integer 1 back as 1.0; "
        "keep the number's text or read a long)"
    )


def spelled(value: object) -> str:
    """`value` as a message names it: as JSON writes it (`null`, `true`, `"x"`), the spelling
    of the log, answer or file it came from, where Python's repr said `None`, `True`, `'x'`;
    on one line, letters as written and a character that shows nothing (a zero-width space,
    a direction mark) as its `\\u` escape, as repr showed them; repr for a value JSON has no
    spelling of (an object a Python caller passed)."""
    import json  # noqa: PLC0415 (only for a message about a wrong value: see `loads`)

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return repr(value)
    if text.isprintable():
        return text
    return "".join(each if each.isprintable() else json.dumps(each)[1:-1] for each in text)


def _string_encoder() -> Callable[[str], str]:
    """json's C encoder of a string as ASCII with escapes (`_json`, which check's reader of log
    lines loaded)."""
    try:
        from _json import encode_basestring_ascii  # noqa: PLC0415
    except ImportError:  # an interpreter without CPython's C accelerator: json's own encoder
        from json.encoder import py_encode_basestring_ascii  # noqa: PLC0415

        return py_encode_basestring_ascii
    return encode_basestring_ascii


_encode_string = _string_encoder()


def _encode(
    value: object, layout: tuple[str | None, bool], newline: str | None, parts: list[str]
) -> bool:
    """Append `value`'s JSON text, as json's encoder writes it, to `parts`, lines after the
    first starting with `newline` (None: on one line); False for a value it leaves to json."""
    # In json's order of tests (`json.encoder._make_iterencode`): a bool is an int too.
    if isinstance(value, str):
        parts.append(_encode_string(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, int):
        parts.append(int.__repr__(value))
    elif isinstance(value, float):
        parts.append(_float_text(value))
    elif isinstance(value, (list, tuple, dict)):
        return _encode_items(value, layout, newline, parts)
    else:
        return False
    return True


def _encode_items(
    value: list[object] | tuple[object, ...] | dict[object, object],
    layout: tuple[str | None, bool],
    newline: str | None,
    parts: list[str],
) -> bool:
    """An array's or an object's JSON text (`_encode`): one member a line, indented, or all
    on one line."""
    brackets = "{}" if isinstance(value, dict) else "[]"
    if not value:
        parts.append(brackets)
        return True
    indent, sort_keys = layout
    inner = None if newline is None or indent is None else newline + indent
    between = ", " if inner is None else "," + inner
    separator = brackets[0] + ("" if inner is None else inner)
    if isinstance(value, dict):
        members = [(key, item) for key, item in value.items() if isinstance(key, str)]
        if len(members) < len(value):  # json writes some other keys as strings: left to it
            return False
        for key, item in sorted(members) if sort_keys else members:
            parts.append(separator)
            parts.append(_encode_string(key))
            parts.append(": ")
            if not _encode(item, layout, inner, parts):
                return False
            separator = between
    else:
        for item in value:
            parts.append(separator)
            if not _encode(item, layout, inner, parts):
                return False
            separator = between
    parts.append(("" if newline is None else newline) + brackets[1])
    return True


def _float_text(value: float) -> str:
    """A float as json writes it: NaN and the infinities by JavaScript's names."""
    if value != value:  # noqa: PLR0124 (NaN alone is unequal to itself; json tests so too)
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


_INFINITY = float("inf")


def json_refusal(error: BaseException) -> str:
    """Why a JSON reader refused a text: `too_long_integer`'s words, or the error's own."""
    return too_long_integer(error) or str(error)


def too_long_integer(error: BaseException) -> str | None:
    """Python's refusal of an integer written with more digits than it converts (4,300 by
    default), in loopspec's words, where Python's advise calling `sys.set_int_max_str_digits()`;
    None for another error. loopspec reads no such number: converting one costs time quadratic
    in its length."""
    said = str(error)
    if not said.startswith("Exceeds the limit (") or "integer string conversion" not in said:
        return None
    limit = said.removeprefix("Exceeds the limit (").partition(" ")[0]
    digits = said.partition("value has ")[2].partition(" ")[0]
    written = f"of {digits} digits" if digits.isdigit() else "too long"
    return f"an integer {written}, more than the {limit} digits loopspec reads in a number"


# What JavaScript's `String.prototype.trim` removes: WhiteSpace (tab, VT, FF, U+FEFF, the space
# separators) and LineTerminator. Python's `str.strip`, which says what is blank (EXE-2), also
# removes U+001C..U+001F and U+0085, and not U+FEFF: a JavaScript loop must not trim with it.
JAVASCRIPT_TRIMMED = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def as_javascript_round_trips(value: int) -> int | float:
    """The integer `value` after JavaScript's JSON.parse and JSON.stringify: past 2^53 the
    nearest double, written by its shortest digits and zeros (98765432109876543210 comes back
    98765432109876540000), or from 1e21 on in exponent form, which reads back as a double;
    `value` itself where a double holds it exactly or none can (Infinity to JSON.parse)."""
    if abs(value) <= 2**53:
        return value
    try:
        nearest = float(value)
    except OverflowError:
        return value
    if abs(nearest) >= 1e21:
        return nearest
    from decimal import Decimal  # noqa: PLC0415 (only for a number past 2^53)

    return int(Decimal(repr(nearest)))


def parse_arguments(raw: str) -> JsonValue:
    """Parse a tool call's raw argument string the way every reader must (rule EXE-2).

    An empty string means `{}`; text that is not valid JSON stays the raw string, so a
    malformed call still has one well-defined value in every reader.
    """
    # The value is frozen, so one parse serves every reader of the same text: conform's model,
    # its rewrite check, the loop's presenter and the generator each parsed a call's arguments.
    if raw in _PARSED_ARGUMENTS:
        return _PARSED_ARGUMENTS[raw]
    if raw.strip() == "":
        return EMPTY
    try:
        parsed = value_of(raw)  # (json.loads, without json: why a text is no JSON is not asked)
    except RecursionError:  # (as deep as the caller's stack allows: not kept)
        return raw
    if parsed is NOT_JSON:
        value: JsonValue = raw
    else:
        try:
            value = freeze(parsed)
        except NotJsonError:  # (nested too deep is one: not kept)
            return raw
    if len(raw) <= _PARSED_ARGUMENTS_LONGEST:
        if len(_PARSED_ARGUMENTS) >= _PARSED_ARGUMENTS_KEPT:
            _PARSED_ARGUMENTS.clear()
        _PARSED_ARGUMENTS[raw] = value
    return value


# Arguments parsed lately, by their text (`parse_arguments`); short texts only, a few hundred.
_PARSED_ARGUMENTS: dict[str, JsonValue] = {}
_PARSED_ARGUMENTS_KEPT = 256
_PARSED_ARGUMENTS_LONGEST = 1024
