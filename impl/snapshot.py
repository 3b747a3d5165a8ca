"""Deep-frozen JSON snapshots that nothing can change afterwards.

`snapshot(value)` copies a JSON-shaped value into builtins that refuse every mutation: objects
become read-only mapping proxies over a private dict, arrays become tuples. Neither has an
attribute to rebind, so even `object.__setattr__` fails, and because the copy is fresh, the
caller's object is never aliased. Anything JSON cannot carry losslessly (NaN, infinities, -0.0,
integers too long to print, nesting too deep to walk, non-string keys, cycles, other types) is
refused with `NotJsonData` naming where it was found.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Union

from loopspec.impl.errors import NotJsonData
from loopspec.model.jsonvalue import FrozenMap

_MAX_FAST_DEPTH = 64  # deeper (or cyclic) values take the slow path, which detects cycles
# Python will not print an integer with more digits than this (`sys.int_max_str_digits`), so
# a longer one could be stored but never written back.
MAX_INT_DIGITS = 4300

FrozenObject = MappingProxyType[str, "Snapshot"]
Snapshot = Union[None, bool, int, float, str, tuple["Snapshot", ...], "FrozenObject"]


def snapshot(value: object, path: str = "$") -> Snapshot:
    """A deep, immutable copy of `value`, or `NotJsonData` naming the offending path."""
    try:
        return _copy(value, path, set())
    except RecursionError as error:
        raise NotJsonData(path, "nested too deeply") from error


def check_json(value: object, path: str = "$") -> None:
    """Refuse `value` unless it is lossless JSON (same rules as `snapshot`, nothing copied)."""
    if not _plainly_json(value, 0):
        snapshot(value, path)  # slow path: finds the offending value and names it


def _printable(value: int) -> bool:
    # 2**(3n) < 10**n < 2**(4n): the bit length decides, except in between, which is rare.
    bits = value.bit_length()
    if bits <= MAX_INT_DIGITS * 3:
        return True
    return bits <= MAX_INT_DIGITS * 4 and abs(value) < 10**MAX_INT_DIGITS


def _plainly_json(value: object, depth: int) -> bool:
    """A fast check over the plain dicts and lists a wire object is made of."""
    if value is None or type(value) in (str, bool):
        return True
    if isinstance(value, int) and type(value) is int:
        return _printable(value)
    if isinstance(value, float) and type(value) is float:
        return math.isfinite(value) and not (value == 0.0 and math.copysign(1.0, value) < 0)
    if depth > _MAX_FAST_DEPTH:
        return False
    if isinstance(value, dict) and type(value) is dict:
        return all(
            type(key) is str and _plainly_json(item, depth + 1) for key, item in value.items()
        )
    if isinstance(value, list | tuple) and type(value) in (list, tuple):
        return all(_plainly_json(item, depth + 1) for item in value)
    return False


def plain(value: Snapshot) -> object:
    """A mutable `dict`/`list` copy of a snapshot, for callers that want to edit their own."""
    if isinstance(value, MappingProxyType):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [plain(item) for item in value]
    return value


def _scalar(value: object, path: str) -> Snapshot:
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise NotJsonData(path, "NaN and infinities have no JSON form")
        if value == 0.0 and math.copysign(1.0, value) < 0:
            raise NotJsonData(path, "-0.0 does not survive a JSON round trip")
        return float(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        if not _printable(value):
            raise NotJsonData(path, "integer too large to write as JSON")
        return int(value)
    assert isinstance(value, str)
    return str(value)


def _copy(value: object, path: str, open_containers: set[int]) -> Snapshot:
    if value is None or isinstance(value, bool | int | float | str):
        return _scalar(value, path)
    if not isinstance(value, Mapping | list | tuple):
        raise NotJsonData(path, f"{type(value).__name__} is not a JSON type")
    marker = id(value)
    if marker in open_containers:
        raise NotJsonData(path, "the value contains itself (a cycle)")
    open_containers.add(marker)
    try:
        if isinstance(value, Mapping):
            copied: dict[str, Snapshot] = {}
            # A frozen map (a hook's proposed input) is read through its read-only view: its
            # `Mapping` items view costs a Python call per item.
            items = value._items.items() if type(value) is FrozenMap else value.items()
            for key, item in items:
                if not isinstance(key, str):
                    raise NotJsonData(path, f"object key {key!r} is not a string")
                copied[key] = _copy(item, f"{path}.{key}", open_containers)
            return MappingProxyType(copied)
        return tuple(
            _copy(item, f"{path}[{index}]", open_containers) for index, item in enumerate(value)
        )
    finally:
        open_containers.discard(marker)
