"""Where in a JSON file a JSON path points: the line an error about a hand-edited file names.

Decoders name what is wrong by JSON path (`$.commands[2].callId is missing`); a person editing
the file in an editor needs the line too. `line_of` finds the deepest part of the path the text
holds — the member's key, an item, or for a member that is missing, the object it is missing
from — and returns its line, 1-based. The text must be valid JSON (it was parsed already).
"""

from __future__ import annotations

import json
import re

Path = tuple[str | int, ...]

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
# `$`, then `.name` or `[index]` steps; a name stops at what cannot be part of one in a message.
_PATH = re.compile(r"\$((?:\.[^.\[\s:;,]+|\[\d+\])*)")
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def leading_path(message: str) -> Path | None:
    """The JSON path a message starts with (`$.a[1].b must ...` -> ("a", 1, "b")), or None."""
    found = _PATH.match(message)
    if found is None:
        return None
    return tuple(name if name else int(index) for name, index in _STEP.findall(found.group(1)))


def line_of(text: str, path: Path) -> int:
    """The line of `path`'s deepest part present in `text` (1 for the root)."""
    return lines_of(text, [path])[0]


def lines_of(text: str, paths: list[Path]) -> list[int]:
    """`line_of` for each of `paths`, the text scanned once (a case has a line per command)."""
    starts: dict[Path, int] = {}
    _scan(text, 0, (), starts)
    lines = []
    for path in paths:
        offset = next(
            (starts[path[:depth]] for depth in range(len(path), -1, -1) if path[:depth] in starts),
            0,
        )
        lines.append(text.count("\n", 0, offset) + 1)
    return lines


# A string (escapes and all, no backtracking on one left open) or a bracket.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def offset_past_depth(text: str, depth: int) -> int | None:
    """The offset of the first bracket that nests deeper than `depth` in the JSON `text` (its
    strings skipped), or None: where a file refused for its nesting goes too deep."""
    level = 0
    for found in _STRING_OR_BRACKET.finditer(text):
        opening = text[found.start()]
        if opening in "[{":
            level += 1
            if level > depth:
                return found.start()
        elif opening in "]}":
            level -= 1
    return None


def line_and_column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of the character at `offset`."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def _skip(text: str, index: int) -> int:
    found = _SPACE.match(text, index)
    assert found is not None  # the pattern matches the empty string
    return found.end()


def _scan(text: str, index: int, path: Path, starts: dict[Path, int]) -> int:
    """Record where each value under `path` starts (a member: where its key starts); the offset
    after the value that starts at `index`. Depth is bounded by the parser's limit."""
    index = _skip(text, index)
    starts.setdefault(path, index)
    opening = text[index]
    if opening == "{":
        index = _skip(text, index + 1)
        while text[index] != "}":
            key, after = _string(text, index)
            member = (*path, key)
            starts[member] = index  # a repeated key: the last one, as the parser keeps it
            index = _skip(text, _scan(text, _skip(text, after) + 1, member, starts))
            if text[index] == ",":
                index = _skip(text, index + 1)
        return index + 1
    if opening == "[":
        index = _skip(text, index + 1)
        item = 0
        while text[index] != "]":
            index = _skip(text, _scan(text, index, (*path, item), starts))
            item += 1
            if text[index] == ",":
                index = _skip(text, index + 1)
        return index + 1
    if opening == '"':
        return _string(text, index)[1]
    scalar = _SCALAR.match(text, index)
    assert scalar is not None, "line_of needs valid JSON"
    return scalar.end()


def _string(text: str, index: int) -> tuple[str, int]:
    """The JSON string starting at `index`, and the offset after it."""
    value, after = _DECODER.raw_decode(text, index)
    assert isinstance(value, str)
    return value, after
