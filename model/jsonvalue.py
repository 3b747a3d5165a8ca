"""Deep-frozen JSON values.

Every payload the model stores is a *lossless JSON snapshot*: plain JSON types, with objects as
`FrozenMap` and arrays as tuples, so nothing reachable from an event can be mutated after the
event exists (rule LOG-3). `freeze` is the single gate: it refuses anything JSON cannot carry
losslessly (NaN, infinities, -0.0, non-string keys, cycles, foreign objects) and names the path
of the offending value. JSON text is read and written by `json_text`.
"""

from __future__ import annotations

# collections.abc's own source, loaded with the interpreter: importing collections.abc imports
# collections, which costs `loopspec check` a fifth of the interpreter's start
# (tests/test_check_startup.py).
from _collections_abc import Mapping

from loopspec.model.json_text import NOT_JSON, value_of

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import MappingProxyType
    from typing import TypeAlias
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


def same_value(left: JsonValue, right: JsonValue) -> bool:
    """Whether two values are the same JSON value: 1 equals 1.0, but true is not 1."""
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, FrozenMap) and isinstance(right, FrozenMap):
        return left.keys() == right.keys() and all(same_value(left[k], right[k]) for k in left)
    if isinstance(left, tuple) and isinstance(right, tuple):
        return len(left) == len(right) and all(
            same_value(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    return type(left) is type(right) and left == right
