"""A unified diff of two observations shown as JSON, each hunk naming the elements it changes.

A hunk of indented JSON shows a few lines of an event's `data`; the event's `type` sorts last,
outside the hunk's context, so a reader saw `"arguments": {"file_path": ""}` and could not tell
which event held it. As `git diff` ends a hunk header with its function, each header here ends
with what its changed lines belong to:
`@@ -74,5 +74,5 @@ events[5] approval/asked (the target's seq 7)`.

The JSON is what `json.dumps(value, indent=1, sort_keys=True)` writes of an object whose members
are lists (events, executed, presented, commits): a member opens at one space of indent, each of
its elements at two, and an element's own members at three. The list `history.appended` (the
messages a command added to the next model request) sits one level deeper, its elements at
three: a hunk there is named `history.appended[1] role user`, where it was named nothing.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence

_CONTEXT = 2
_SECTION = re.compile(r'^ "([^"]+)": \[$')
_OBJECT = re.compile(r'^ "([^"]+)": \{$')
_HISTORY_LIST = re.compile(r'^  "(appended)": \[$')
# A history message's role, its own member (an event's message sits deeper, in its data).
_ROLE = re.compile(r'^ {4}"(role)": ("(?:[^"\\]|\\.)*")')
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@$")
# The members naming an element: an event's type; an ACP message's method and update kind.
_NAMING = re.compile(r'^(?: {3}"(?:type|method)"| {5}"sessionUpdate"): ("(?:[^"\\]|\\.)*")')
_PUNCTUATION = frozenset({"{", "}", "},", "[", "]", "],"})

Element = tuple[str, int]
"""The member holding a list, and an element's index in it."""


class _Side:
    """One side's JSON lines, which element each line belongs to, and each element's name."""

    def __init__(self, value: object) -> None:
        self.lines = json.dumps(value, indent=1, sort_keys=True).splitlines()
        self.owners: list[Element | None] = []
        self.names: dict[Element, str] = {}
        section: str | None = None
        parent: str | None = None  # the object member a nested list belongs to
        element_depth = 2
        index = -1
        for line in self.lines:
            opened = _SECTION.match(line)
            nested = _HISTORY_LIST.match(line) if parent == "history" else None
            if opened is not None:
                section, element_depth, index = opened[1], 2, -1
            elif nested is not None:
                section, element_depth, index = f"{parent}.{nested[1]}", 3, -1
            if opened is not None or nested is not None:
                self.owners.append(None)
                continue
            depth = len(line) - len(line.lstrip(" "))
            if depth == 1:
                member = _OBJECT.match(line)
                parent = member[1] if member is not None else None
            if section is None or depth < element_depth:
                section = None  # the list closed (or the line is another member)
                self.owners.append(None)
                continue
            if depth == element_depth and line.strip() not in _PUNCTUATION - {"{", "["}:
                index += 1  # an element starts (a closing bracket ends one)
            element = (section, index)
            self.owners.append(element)
            word = self._naming_word(line, element_depth)
            if word is not None:
                known = self.names.get(element)
                self.names[element] = f"{known} {word}" if known else word

    @staticmethod
    def _naming_word(line: str, element_depth: int) -> str | None:
        """What `line` says of the element it belongs to, if it names it."""
        if element_depth == 3:  # a history message
            role = _ROLE.match(line)
            return None if role is None else f"role {json.loads(role[2])}"
        naming = _NAMING.match(line)
        return None if naming is None else str(json.loads(naming[1]))

    def changed(self, line_numbers: Sequence[int]) -> list[Element]:
        """The elements the changed lines (0-based) belong to, in order, brackets aside."""
        found: list[Element] = []
        for number in line_numbers:
            owner = self.owners[number]
            bracket = self.lines[number].strip() in _PUNCTUATION
            if owner is not None and not bracket and owner not in found:
                found.append(owner)
        return found

    def label(self, element: Element) -> str:
        section, index = element
        name = self.names.get(element)
        return f"{section}[{index}]" + (f" {name}" if name else "")


def labelled_json_diff(
    expected: object, actual: object, target_seqs: Sequence[object] | None = None
) -> str:
    """The diff of `expected` (the model's) and `actual` (the target's), each hunk naming the
    elements it changes; `target_seqs[i]`, when given, is the seq of the target's `events[i]`
    in its own log (the comparison leaves seqs out; a violation names them)."""
    model, target = _Side(expected), _Side(actual)
    out: list[str] = []
    hunk_at: int | None = None
    removed: list[int] = []
    added: list[int] = []
    model_line = target_line = 0

    def close_hunk() -> None:
        if hunk_at is not None:
            where = _where(model, target, removed, added, target_seqs)
            if where:
                out[hunk_at] += f" {where}"

    for line in difflib.unified_diff(
        model.lines, target.lines, "model", "target", lineterm="", n=_CONTEXT
    ):
        header = _HUNK.match(line)
        if header is not None:
            close_hunk()
            hunk_at, removed, added = len(out), [], []
            model_line, target_line = int(header[1]) - 1, int(header[2]) - 1
        elif hunk_at is not None and line.startswith("-"):
            removed.append(model_line)
            model_line += 1
        elif hunk_at is not None and line.startswith("+"):
            added.append(target_line)
            target_line += 1
        elif hunk_at is not None:
            model_line, target_line = model_line + 1, target_line + 1
        out.append(line)
    close_hunk()
    return "\n".join(out)


def _where(
    model: _Side,
    target: _Side,
    removed: list[int],
    added: list[int],
    target_seqs: Sequence[object] | None,
) -> str:
    """What a hunk's changed lines belong to: the elements both sides change, then the model's
    alone, then the target's alone."""

    def seq(element: Element, whose: str = "the target's ") -> str:
        section, index = element
        if section != "events" or target_seqs is None or index >= len(target_seqs):
            return ""
        return f" ({whose}seq {target_seqs[index]})"

    in_model = [(element, model.label(element)) for element in model.changed(removed)]
    in_target = [(element, target.label(element)) for element in target.changed(added)]
    target_labels = {label for _, label in in_target}
    model_labels = {label for _, label in in_model}
    parts = [label + seq(element) for element, label in in_target if label in model_labels]
    parts += [f"the model's {label}" for _, label in in_model if label not in target_labels]
    parts += [
        f"the target's {label}{seq(element, '')}"
        for element, label in in_target
        if label not in model_labels
    ]
    return ", ".join(parts)
