"""Arguments text compared as the JSON value it denotes, so serialization style cannot differ.

Shared by the comparison of events (`compare`) and of the history a target reports
(`history_change`), which must agree on what "the same arguments" means; the arguments a body
runs with (`executed`) are a value, not a text, so blank text is `{}` there (`as_run_value`).
"""

from __future__ import annotations

import json
import math
import re

from loopspec.model.json_text import same_json


class ParsedJson:
    """Arguments text as the JSON value it denotes (compared by value, shown as JSON)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParsedJson) and same_json(self.value, other.value)

    def __hash__(self) -> int:
        return hash(json.dumps(_hashable(self.value), sort_keys=True))

    def __repr__(self) -> str:
        return f"ParsedJson({self.value!r})"


def _hashable(value: object) -> object:
    # 1.0 hashes as 1, since they compare equal.
    if isinstance(value, dict):
        return {key: _hashable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_hashable(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def as_value(raw: object) -> object:
    """Arguments text as the JSON value it denotes, so serialization style cannot differ."""
    if not isinstance(raw, str):
        return raw
    try:
        return ParsedJson(json.loads(raw, parse_float=_lossless, parse_constant=_no_json))
    except (ValueError, RecursionError):
        return raw


def as_run_value(raw: object) -> object:
    """A body's arguments (an observation's `executed`) as the value the body runs with: blank
    text is `{}`, as EXE-2 reads a call's arguments for every reader, so a loop reporting the
    object its body got (`{}`) agrees with one reporting the text its tool/call records (`""`,
    `" "`); other text as `as_value` reads it."""
    if isinstance(raw, str) and not raw.strip():
        return as_value("{}")
    return as_value(raw)


def blank_but_not_empty(arguments: object) -> bool:
    """Whether arguments are blank as EXE-2 reads them (Python's `str.strip`), so `{}`, but not
    the empty string: what a loop reading only empty text as `{}` parses as JSON, and finds
    none in."""
    return isinstance(arguments, str) and arguments != "" and not arguments.strip()


def _no_json(constant: str) -> object:
    """NaN and Infinity are not JSON (EXE-2 keeps such arguments as their raw text): parsed,
    NaN is unequal to itself, and two sides writing the same text differed."""
    raise ValueError(f"{constant} is not JSON")


def _lossless(text: str) -> float:
    """A number with a fraction or an exponent, unless it has no lossless value (`1e400`, an
    infinity, or `-0.0`): EXE-2 keeps such arguments as their raw text, and a diff showing them
    parsed showed the model's side holding an Infinity it never wrote."""
    value = float(text)
    if math.isinf(value) or (value == 0 and math.copysign(1.0, value) < 0):
        raise ValueError(f"{text} has no lossless value")
    return value


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogates_escaped(text: str) -> str:
    """`text` with each lone surrogate written as its `\\u` escape (`\\udc00`): a file holding
    one as a character is no text, which a case's reader refuses (SAFE-4), so a case that
    spelled one so could not be replayed. In a JSON string the escape denotes the same value."""
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", text)
