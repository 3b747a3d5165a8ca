"""Commit units on disk: one JSON event per line, with a marker on multi-event units.

An event that is a commit by itself is written as its plain dsh wire object. Every event of a
unit of n >= 2 events carries one extra envelope field, `"unit": [k, n]` (event k of n, k from
1), so a reader can tell a whole unit from a unit that a crash cut short and drop the latter
(rule LOG-8). Readers that do not know the field keep it as an unknown envelope field, so the
file stays a valid dsh log for them.
"""

from __future__ import annotations

from _json import encode_basestring, make_encoder

# typing's flag, read by type checkers by name: `loopspec check` reads a version-1 log's commit
# markers (`unit_marker`) with this module, and without typing, collections or json (which import
# re, enum and more: twice the interpreter's start).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import NoReturn

UNIT_KEY = "unit"


def _not_json(value: object) -> NoReturn:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# The C encoder `json.dumps(wire, ensure_ascii=False, separators=(",", ":"), allow_nan=False)`
# builds afresh on every call, built once: the same bytes without the per-call set-up, which
# costs as much as encoding a whole event. No cycle bookkeeping (markers None): a cyclic value
# exhausts the recursion limit instead, and the caller treats RecursionError as a refusal too.
_COMPACT = make_encoder(None, _not_json, encode_basestring, None, ":", ",", False, False, False)


def compact_json(value: object) -> str:
    """`json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)`.

    ValueError (NaN, infinities, integers too long to print), TypeError (a value of no JSON
    type) or RecursionError (nesting too deep, or a cycle) when `value` is not JSON.
    """
    return "".join(_COMPACT(value, 0))


def encode_event(wire: Mapping[str, object]) -> bytes:
    """One compact JSON object, without the newline; text stays readable UTF-8 where it can.

    Refuses what `compact_json` refuses, with the same errors.
    """
    try:
        return compact_json(wire).encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate has no UTF-8 form; the escaped spelling is still lossless JSON.
        import json  # noqa: PLC0415 (see above)

        return json.dumps(wire, separators=(",", ":"), allow_nan=False).encode("ascii")


def close_lines(parts: list[bytes]) -> bytes:
    """One commit unit as a single write, from `parts`: each event's open line (its encoding
    without the closing brace) followed by one slot, which this fills with the line's ending:
    its marker `"unit":[k,n]` when the unit has several events, the brace, the newline.

    The slots are filled by one slice assignment and the unit joined once, so a commit costs a
    few C calls however many events it holds, not a slice and a concatenation per line."""
    size = len(parts) // 2
    # The usual sizes' endings are looked up in place: a call costs as much as the lookup.
    parts[1::2] = _ENDINGS.get(size) or _line_endings(size)
    return b"".join(parts)


_SINGLE_ENDING = (b"}\n",)  # a unit of one event carries no marker
_OPENING = b',"%s":[' % UNIT_KEY.encode()
# The endings of the lines of a unit of each size seen. Sizes past the cap (units that large
# are rare) are spelled afresh each time.
_ENDINGS: dict[int, tuple[bytes, ...]] = {1: _SINGLE_ENDING}
_ENDINGS_CACHED_UP_TO = 256


def _line_endings(size: int) -> tuple[bytes, ...]:
    """What follows each open line of a unit of `size` >= 1 events: for several, its marker
    `"unit":[k,size]`, then the brace and the newline."""
    endings = _ENDINGS.get(size)
    if endings is None:
        if size < 1:
            raise ValueError("a commit unit holds at least one event")
        endings = tuple(_OPENING + b"%d,%d]}\n" % (k, size) for k in range(1, size + 1))
        if size <= _ENDINGS_CACHED_UP_TO:
            _ENDINGS[size] = endings
    return endings


def unit_marker(obj: Mapping[str, object]) -> tuple[int, int] | None:
    """The `(k, n)` marker of a decoded line, None for a single-event unit, ValueError if bad."""
    marker = obj.get(UNIT_KEY)
    if marker is None:
        return None
    if (
        not isinstance(marker, list)
        or len(marker) != 2
        or not all(type(part) is int for part in marker)
        or not 1 <= marker[0] <= marker[1]
        or marker[1] < 2
    ):
        raise ValueError(f"bad unit marker {marker!r}")
    return marker[0], marker[1]


def without_marker(obj: Mapping[str, object]) -> dict[str, object]:
    """The event's wire object as the loop built it."""
    return {key: value for key, value in obj.items() if key != UNIT_KEY}
