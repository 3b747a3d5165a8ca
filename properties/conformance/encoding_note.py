"""Text a process target read or wrote in another encoding than UTF-8 (rule PROTO-1).

Each driver protocol line is UTF-8. A process whose runtime reads or writes its standard streams
in the locale's charset (a JVM: ASCII under `LC_ALL=C`, where each other character is written as
`?`) answers with valid JSON all the same, so nothing fails at the protocol's level: the text a
command carried comes back changed, and the rule whose event holds it is blamed. This finds that
change in a divergence and says what it is, beside the rule.
"""

from __future__ import annotations

from typing import Final

from loopspec.properties.conformance.target import Observation

REPLACEMENTS: Final = frozenset("?\ufffd")
"""What an encoder or decoder puts for a character it cannot take (`?` in Java and C, U+FFFD)."""


def encoding_note(expected: Observation, actual: Observation) -> str | None:
    """A line saying where the target's text is the model's with characters replaced (or UTF-8
    bytes read as Latin-1 characters), and why that happens; None when no text is so."""
    events = _string_pairs("events", list(zip(expected.events, actual.events, strict=False)))
    executed = list(zip(expected.executed, actual.executed, strict=False))
    for path, want, got in [*events, *_string_pairs("executed", executed)]:
        how = _changed(want, got)
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


def _string_pairs(path: str, pairs: object) -> list[tuple[str, str, str]]:
    """Every pair of differing strings at the same place in two JSON values (`pairs` a list of
    such values side by side), with its path."""
    found: list[tuple[str, str, str]] = []
    if isinstance(pairs, list):
        for index, (want, got) in enumerate(pairs):
            found += _walk(f"{path}[{index}]", want, got)
    return found


def _walk(path: str, want: object, got: object) -> list[tuple[str, str, str]]:
    if isinstance(want, str) and isinstance(got, str):
        return [(path, want, got)] if want != got else []
    if isinstance(want, dict) and isinstance(got, dict):
        found: list[tuple[str, str, str]] = []
        for key in want.keys() & got.keys():
            found += _walk(f"{path}.{key}", want[key], got[key])
        return found
    if isinstance(want, list | tuple) and isinstance(got, list | tuple):
        return _string_pairs(path, list(zip(want, got, strict=False)))
    return []


def _changed(want: str, got: str) -> str | None:
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
