"""Whether a reader showed a call's arguments parsed another way than EXE-2 parses them.

A bridge or a loop in another language reads a `tool/call`'s raw argument string with its own
tools: JavaScript's `trim` keeps U+001C..U+001F and U+0085, which Python's `str.strip` (and so
EXE-2's "blank") removes, and removes U+FEFF, which it keeps; `JSON.parse` reads `1e400` as an
infinity (written back as `null`) and `-0.0` as -0 (written back as `0`), which LOG-3 has no
value for, so EXE-2 keeps that text as a string. A reader that shows such a reading disagrees
with the record on how to parse, not on which arguments the call has: EXE-2, not RW-1.
"""

from __future__ import annotations

import json
import math

from loopspec.model.json_text import same_json
from loopspec.model.jsonvalue import JAVASCRIPT_TRIMMED, parse_arguments, thaw

# The words a report uses for EXE-2's reading, from its rule text.
EXE_2_READING = (
    "blank text (empty, or only whitespace as Python's str.strip removes it: U+001C..U+001F "
    "and U+0085 too, not U+FEFF) is {}, JSON whose value is lossless (LOG-3: no -0, infinity "
    "or integer of more than 4300 digits) is that value, any other text stays the string"
)


def _javascript_number(text: str) -> object:
    """A JSON number as JavaScript's JSON.parse and JSON.stringify carry it: a double, an
    infinity written as null, -0 as 0."""
    number = float(text)
    if not math.isfinite(number):
        return None
    if number.is_integer() and abs(number) < 1e21:
        return int(number)
    return number


def _javascript_reading(raw: str) -> object:
    """`raw` read as JavaScript's `JSON.parse` reads it, then written back as JSON; the text
    itself when JSON.parse rejects it."""
    if raw.strip(JAVASCRIPT_TRIMMED) == "":
        return {}
    try:
        return json.loads(
            raw,
            parse_int=_javascript_number,
            parse_float=_javascript_number,
            parse_constant=_no_constant,
        )
    except (ValueError, RecursionError):
        return raw


def _no_constant(name: str) -> object:
    """JSON.parse knows no NaN or Infinity (Python's json.loads reads them)."""
    raise ValueError(name)


def misread(raw: str, shown: object) -> bool:
    """Whether `shown`, which differs from EXE-2's reading of `raw`, is another reading of it:
    the text unparsed, JavaScript's reading, or `{}` for text EXE-2 reads as no object (a
    reader that calls it blank, or falls back to no arguments). `{}` where EXE-2 reads an
    object is the arguments dropped, not read another way (RW-1, ACP-3)."""
    model = thaw(parse_arguments(raw))
    # Compared as SPEC section 2 compares values (`same_json`): Python's `==` holds `True == 1`.
    if same_json(shown, model):
        return False
    fallback = shown == {} and not isinstance(model, dict)
    return fallback or same_json(shown, raw) or same_json(shown, _javascript_reading(raw))
