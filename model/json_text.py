"""JSON text read and written as json reads and writes it, without importing json.

json's decoder imports re, enum and collections, together several times the interpreter's
start; `loopspec check` reads a log's lines, a hooked call's arguments and the other loops'
records with json's C scanner alone (`json_scanner`, `value_of`, `loads`) and writes its JSON
report and the values a violation names with json's C string encoder (`json_dumps`); json is
imported only to word what it refuses. A module apart from the frozen values the model keeps
(`jsonvalue`), which a check reads no log with: their classes and code cost a clean check 0.4M
instructions at start-up (benchmarks/bench_cli.py).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


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


_NUMBERS = (int, float)  # (a tuple: `int | float` makes a union object at each test)


def same_json(left: object, right: object) -> bool:
    """Whether two parsed JSON values (dicts, lists, as json reads them) are one value as SPEC.md
    section 2 compares arguments: key order aside, a number as the number it is (`1` and `1.0`
    one value, every digit of an integer counted), `true` not `1` (Python's `==` holds
    `True == 1`). The one such comparison of check's and conform's readers (the model's frozen
    values: `invariants.same_arguments`)."""
    if type(left) is str:  # (first: most values compared are strings)
        return type(right) is str and left == right
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, dict) and isinstance(right, dict):
        if left.keys() != right.keys():
            return False
        # A loop, where ruff's SIM110 would have `all` over a generator: a call more a value.
        for key, item in left.items():  # noqa: SIM110
            if not same_json(item, right[key]):
                return False
        return True
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_json, left, right))
    if isinstance(left, _NUMBERS) and isinstance(right, _NUMBERS):
        return left == right
    return type(left) is type(right) and bool(left == right)


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
