"""Values a process target changed on their way through its own JSON (rule PROTO-1).

Each driver protocol line is UTF-8, and numbers are exact. A process whose runtime reads or
writes its standard streams in the locale's charset (a JVM: ASCII under `LC_ALL=C`, where each
other character is written as `?`), or whose JSON library reads every number as a double (Gson's
default, JavaScript's `JSON.parse`) or integers as a 64-bit `long`, answers with valid JSON all
the same, so nothing fails at the protocol's level: a value a command carried comes back
changed, and the rule whose event holds it is blamed. These notes find that change in a
divergence and say what it is, beside the rule.
"""

from __future__ import annotations

import json
from typing import Final

from loopspec.model.jsonvalue import as_javascript_round_trips
from loopspec.model.wording import MISSING_KEYS
from loopspec.properties.conformance.target import Observation

REPLACEMENTS: Final = frozenset("?\ufffd")
"""What an encoder or decoder puts for a character it cannot take (`?` in Java and C, U+FFFD)."""


def value_notes(expected: Observation, actual: Observation) -> list[str]:
    """The notes for the values the target changed on their way (at most one of each kind)."""
    events = _leaf_pairs("events", list(zip(expected.events, actual.events, strict=False)))
    executed = list(zip(expected.executed, actual.executed, strict=False))
    # A card's rawInput is the one place a parsed argument string comes back (EXE-2).
    presented = list(zip(expected.presented or (), actual.presented or (), strict=False))
    pairs = [*events, *_leaf_pairs("executed", executed), *_leaf_pairs("presented", presented)]
    notes = [encoding_note(pairs), number_note(pairs), quoting_note(pairs)]
    return [note for note in notes if note is not None]


def number_note(pairs: list[tuple[str, object, object]]) -> str | None:
    """A line saying where the target has a number the model has, read as a double or cut to a
    64-bit integer; None when no number is so."""
    for path, want, got in pairs:
        if isinstance(want, bool) or isinstance(got, bool) or want == got:
            continue  # (1 and 1.0 are one number: the comparison takes them as equal)
        if isinstance(want, int) and isinstance(got, float) and _as_double(want) == got:
            return (
                f"note: the target has {got!r} where the model has the integer {want} (at "
                f"{path}): it read the integer as a double, as Gson's default and JavaScript's "
                "JSON.parse do; keep every digit (Java: BigInteger or the number's text)"
            )
        if (
            isinstance(want, int)
            and isinstance(got, int)
            and got == as_javascript_round_trips(want)
        ):
            return (
                f"note: the target has {got} where the model has the integer {want} (at "
                f"{path}): it read the integer as a double and wrote it back with zeros, as "
                "JavaScript's JSON.parse and JSON.stringify do, and Go's encoding/json into an "
                "interface{} (a float64), and jq 1.6 with any number; keep every digit "
                "(JavaScript: a reviver reading the number's source text, or BigInt; Go: "
                "json.Decoder's UseNumber; jq: 1.7 or later, which keeps the digits of a number "
                "it does not compute with)"
            )
        if isinstance(want, float) and isinstance(got, int) and _as_double(got) == want:
            return (
                f"note: the target has the integer {got} where the model has the double "
                f"{want!r} (at {path}): it wrote the double as plain digits, an integer that is "
                "compared exactly, as Rust's {} (Display) writes an f64; write a double with an "
                "exponent or a fraction (Rust: {:?} or {:e}), or keep the number's text"
            )
        if isinstance(want, int) and isinstance(got, int) and not -(2**63) <= want < 2**63:
            return (
                f"note: the target has {got} where the model has {want} (at {path}): an "
                "integer past 64 bits does not fit a long (Rust: i64 or u64); keep every digit "
                "(Java: BigInteger or the number's text)"
            )
    return None


_MISSING_KEYS = MISSING_KEYS.partition("{")[0]


def quoting_note(pairs: list[tuple[str, object, object]]) -> str | None:
    """A line saying the target quotes missing required keys otherwise than the wording does
    (EXE-5, HOOK-6: each as Python's `repr`); None when no text differs there."""
    for path, want, got in pairs:
        if not isinstance(want, str) or not isinstance(got, str) or want == got:
            continue
        start = want.find(_MISSING_KEYS)
        if start >= 0 and got[: start + len(_MISSING_KEYS)] == want[: start + len(_MISSING_KEYS)]:
            return (
                f"note: the target quotes the missing keys otherwise (at {path}): the wording "
                "writes each key as Python's repr writes a string: in single quotes, or double "
                "ones when the key holds ' and no \", each printable character as itself "
                "(an \u00e4 too, where Python's ascii escapes it), \\, tab, newline and "
                "return as \\\\, \\t, \\n and \\r, any other as \\x, \\u or \\U and its hex "
                "digits ('a\\x00b'); see the wording table in SPEC.md section 9"
            )
    return None


def _as_double(value: int) -> float | None:
    try:
        return float(value)
    except OverflowError:
        return None


def encoding_note(pairs: list[tuple[str, object, object]]) -> str | None:
    """A line saying where the target's text is the model's with characters replaced (or UTF-8
    bytes read as Latin-1 characters), and why that happens; None when no text is so."""
    for path, want, got in pairs:
        if not isinstance(want, str) or not isinstance(got, str):
            continue
        surrogate = _surrogate_replaced(want, got)
        if surrogate is not None:
            return (
                f"note: the target has {surrogate} (at {path}): a lone surrogate has no UTF-8 "
                "form, so an encoder puts a replacement for it (Java's writes '?'), and a Rust "
                "String cannot hold it (a reader that decodes it into one puts U+FFFD: keep "
                "such a string as its UTF-16 units), nor a Go string (encoding/json reads it as "
                "U+FFFD: give the body the arguments' own text, not the value re-encoded); "
                "write it as a \\u escape in the JSON, "
                f"\\u{ord(want[_first_difference(want, got)]):04x}, as JSON allows (a call's "
                "arguments may hold one, EXE-2)"
            )
        escaped = escaped_whole(want, got)
        if escaped is not None:
            words, halves = escaped
            return (
                f"note: the target has {words} (at {path}): a \\u escape holds four hex "
                "digits, so a character past U+FFFF written as one escape of more reads as "
                "another character and the digits left over; write it as its two UTF-16 halves "
                f"({halves}) or as itself, in UTF-8"
            )
        how = encoding_change(want, got)
        if how is not None:
            return (
                f"note: the target has {how} (at {path}): it read or wrote that "
                "text in another encoding than UTF-8, which each protocol line is in (a JVM "
                "reads System.in and writes System.out in the locale's charset, ASCII under "
                "LC_ALL=C or LANG=C: read through new InputStreamReader(System.in, "
                "StandardCharsets.UTF_8) and write through new PrintStream(new "
                "FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8))"
            )
    return None


def _first_difference(want: str, got: str) -> int:
    return next(i for i, (old, new) in enumerate(zip(want, got, strict=False)) if old != new)


def _surrogate_replaced(want: str, got: str) -> str | None:
    """How `got` is `want` with its lone surrogates replaced, in words; None if it is not."""
    if len(want) != len(got) or want == got:
        return None
    for old, new in zip(want, got, strict=True):
        if old != new and not ("\ud800" <= old <= "\udfff" and new in REPLACEMENTS):
            return None
    first = _first_difference(want, got)
    return f"{got[first]!r} where the model has the lone surrogate U+{ord(want[first]):04X}"


def escaped_whole(want: str, got: str) -> tuple[str, str] | None:
    """How `got` is `want` with each character past U+FFFF written as one `\\u` escape of its
    five or six hex digits (`\\u1f512`, read back as U+1F51 and "2"), in words, and the first
    such character's two UTF-16 halves as escapes; None if not."""
    if want == got or want.isascii():
        return None
    misread = "".join(
        chr(int(f"{ord(char):x}"[:4], 16)) + f"{ord(char):x}"[4:] if ord(char) > 0xFFFF else char
        for char in want
    )
    if got != misread:
        return None
    first = next(char for char in want if ord(char) > 0xFFFF)
    above_plane = ord(first) - 0x10000
    high, low = 0xD800 + (above_plane >> 10), 0xDC00 + (above_plane & 0x3FF)
    return (
        f"U+{ord(first):04X} written as \\u{ord(first):x}, which reads as "
        f"{chr(int(f'{ord(first):x}'[:4], 16))!r} and {f'{ord(first):x}'[4:]!r}",
        f"\\u{high:04x}\\u{low:04x}",
    )


def _leaf_pairs(path: str, pairs: object) -> list[tuple[str, object, object]]:
    """Every pair of differing values that hold no others at the same place in two JSON values
    (`pairs` a list of such values side by side), with its path; a string holding a JSON object
    or array (a call's arguments) is looked into."""
    found: list[tuple[str, object, object]] = []
    if isinstance(pairs, list):
        for index, (want, got) in enumerate(pairs):
            found += _walk(f"{path}[{index}]", want, got)
    return found


def _walk(path: str, want: object, got: object) -> list[tuple[str, object, object]]:
    if isinstance(want, str) and isinstance(got, str):
        if want == got:
            return []
        inside = _walk(path, _container(want), _container(got))
        return [(path, want, got), *inside]
    if isinstance(want, dict) and isinstance(got, dict):
        found: list[tuple[str, object, object]] = []
        for key in want.keys() & got.keys():
            found += _walk(f"{path}.{key}", want[key], got[key])
        # Keys only one side has, paired in order: a key changed on its way (a lone surrogate
        # replaced) is one the model's object lacks and the target's has.
        model_only = [key for key in want if key not in got]
        target_only = [key for key in got if key not in want]
        if len(model_only) == len(target_only):
            found += [
                (f"{path}, a key", old, new)
                for old, new in zip(model_only, target_only, strict=True)
            ]
        return found
    if isinstance(want, list | tuple) and isinstance(got, list | tuple):
        return _leaf_pairs(path, list(zip(want, got, strict=False)))
    if want is None or got is None or (type(want) is type(got) and want == got):
        return []
    return [(path, want, got)]


def _container(text: str) -> object:
    """The JSON object or array `text` holds, or None."""
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def encoding_change(want: str, got: str) -> str | None:
    """How `got` is `want` passed through a wrong encoding, in words; None if it is not."""
    if len(want) == len(got):
        lost = [
            (old, new)
            for old, new in zip(want, got, strict=True)
            if old != new and not (new in REPLACEMENTS and not old.isascii())
        ]
        first = next(
            (i for i, pair in enumerate(zip(want, got, strict=True)) if len(set(pair)) == 2), None
        )
        if first is not None and not lost:
            return f"{got[first]!r} where the model has U+{ord(want[first]):04X}"
    try:
        misread = want.encode("utf-8").decode("latin-1")
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 form
        return None
    if got == misread:
        return f"{got!r} where the model has {want!r}: its UTF-8 bytes read as Latin-1"
    return None
