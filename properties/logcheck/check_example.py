"""The commented example of `loopspec check --format json` that `logcheck.report`'s documentation
shows, made from the shapes the document is written from (`logcheck.check_document`): each key
in the order written, with what it means as its `Key` says it. The meanings are written once,
there; `tests/test_check_schema.py` holds the documentation to this text.

`python -m loopspec.properties.logcheck.check_example` prints it (to paste after a change).
"""

from __future__ import annotations

import json
import textwrap
from typing import Any, Final

from loopspec.properties.logcheck.check_document import (
    DOCUMENT,
    KNOWN_DIVERGENCE,
    VIOLATION,
    VIOLATION_KEYS,
    Key,
    Shape,
)

INDENT: Final = 4
"""The example's indent in report.py's docstring."""
COMMENT_COLUMN: Final = 46
"""Where a key's `// meaning` starts (counted from the example's own indent)."""
WIDTH: Final = 100

# A value for each key that is not an object or a list of objects, by `SHAPE.KEY`; a map of
# objects (loop or rule -> object) names its one example member here.
EXAMPLES: Final[dict[str, object]] = {
    "loopspec-check/1.format": "loopspec-check/1",
    "log.path": "logs/a.jsonl",
    "log.status": "violations",
    "log.header_version": 0,
    "log.lines": 76,
    "log.events": 137,
    "log.violations_omitted": 0,
    "log.unread_event_types": {"agent/inbox/spliced": 2},
    "log.dialect": "dsh",
    "log.rules_checked": ["ABORT-2", "ADJ-1"],
    "log.rules_not_checkable": {},
    "log.rules_checked_in_part": {},
    "log.known_divergences_omitted": 0,
    "log.known_rules": {"RW-1": "claude-code"},
    "violation.line": 57,
    "violation.seq": 56,
    "violation.rule": "ADJ-1",
    "violation.message": "...",
    "violation.events": [56, 52],
    "violation.event_lines": [57, 53],
    "violation.not_known": "not the known divergence: codex's is ...",
    "known_divergence.known_by": "claude-code",  # its other keys: a violation's (`_keys`)
    "error.line": 40,
    "error.kind": "torn-tail",
    "error.rule": "LOG-8",
    "error.message": "...",
    "notice.line": 31,
    "notice.seq": 30,
    "notice.kind": "crash-tail",
    "notice.rule": "REC-2",
    "notice.message": "...",
    "skipped.path": "home/.claude/history.jsonl",
    "skipped.kind": "claude-code-prompt-history",
    "skipped.message": "Claude Code's prompt history (...): not a session log, ...",
    "summary.logs": 2,
    "summary.events": 1204,
    "summary.violations": 1,
    "summary.violations_by_rule": {"ADJ-1": 1},
    "summary.errors": 1,
    "summary.errors_by_kind": {"torn-tail": 1},
    "summary.notices": 1,
    "summary.notices_by_kind": {"crash-tail": 1},
    "summary.logs_by_status": {"error": 1, "violations": 1},
    "summary.exit_code": 2,
    "summary.strict_known": True,
    "summary.hook_faults_fail": True,
    "summary.known_divergences": 0,
    "summary.known_divergences_by_rule": {},
    "summary.known_divergence_hints": {"claude-code": {"RW-1": 1}},
    "summary.known_lists": "claude-code",
    "summary.skipped": 1,
    "summary.skipped_by_kind": {"claude-code-prompt-history": 1},
    "known_list.logs": 2,
    "known_list.occurred": ["RW-1"],
    "known_list.did_not_occur": "HOOK-7",
    "known_list.race_not_lost": "ORD-3",
    "known_list.not_exercised": ["EXE-1", "REC-1"],
    "situations.situations": 3,
    "situations.logs": 2,
}


def commented_example() -> str:
    """The whole example, indented as report.py's docstring holds it."""
    lines = [" " * INDENT + "{"]
    _keys(DOCUMENT, INDENT + 2, lines)
    lines.append(" " * INDENT + "}")
    return "\n".join(lines) + "\n"


def _keys(shape: Shape, indent: int, lines: list[str]) -> None:
    """`shape`'s keys; those it begins with that another shape has, and that other shape's
    name said instead (a known divergence is a violation, but for why one is not known, and
    one more key)."""
    keys = shape.keys
    if shape is KNOWN_DIVERGENCE:
        shared = len(VIOLATION_KEYS)
        assert keys[:shared] == VIOLATION.keys[:shared] == VIOLATION_KEYS
        (not_known,) = VIOLATION.keys[shared:]
        _commented(" " * indent + "...", f"a violation's keys but {not_known.name}, then", lines)
        keys = keys[shared:]
    for number, key in enumerate(keys):
        comma = "," if number < len(keys) - 1 else ""
        _key(shape, key, indent, comma, lines)


def _key(shape: Shape, key: Key, indent: int, comma: str, lines: list[str]) -> None:
    """`key`'s lines: its value, or its object's keys in turn, with its meaning beside."""
    margin = " " * indent
    schema: Any = key.schema
    inner = None
    opened, closed = "", ""
    if isinstance(schema, Shape):
        inner, opened, closed = schema, "{", "}"
    elif isinstance(schema, dict) and isinstance(schema.get("items"), Shape):
        inner, opened, closed = schema["items"], "[", "]"
    elif isinstance(schema, dict) and isinstance(schema.get("additionalProperties"), Shape):
        inner, opened, closed = schema["additionalProperties"], "{", "}"
    meaning = _meaning(key)
    if inner is None:
        value = json.dumps(EXAMPLES[f"{shape.name}.{key.name}"], ensure_ascii=False)
        _commented(f'{margin}"{key.name}": {value}{comma}', meaning, lines)
        return
    _commented(f'{margin}"{key.name}": {opened}', meaning, lines)
    if opened == "[":  # a list of objects: one of them
        lines.append(f"{margin}  {{")
        _keys(inner, indent + 4, lines)
        lines.append(f"{margin}  }}")
    elif isinstance(schema, dict):  # a map of objects: one member
        member = json.dumps(EXAMPLES[f"{shape.name}.{key.name}"])
        lines.append(f"{margin}  {member}: {{")
        _keys(inner, indent + 4, lines)
        lines.append(f"{margin}  }}")
    else:
        _keys(inner, indent + 2, lines)
    lines.append(f"{margin}{closed}{comma}")


def _meaning(key: Key) -> str:
    """What `key` means, with the values an enumerated one takes and a text's longest."""
    schema: Any = key.schema
    if not isinstance(schema, dict):
        return key.meaning
    meaning = key.meaning
    if "maxLength" in schema:
        meaning += f", at most {schema['maxLength']} characters"
    values = schema.get("enum", ())
    if 0 < len(values) <= 6:
        meaning += f": {' | '.join(json.dumps(value) for value in values)}"
    return meaning


def _commented(code: str, meaning: str, lines: list[str]) -> None:
    """`code`, then `// meaning` from `COMMENT_COLUMN` on, wrapped at `WIDTH` onto lines of
    comment alone at that column; below the code where it reaches the column."""
    column = INDENT + COMMENT_COLUMN
    wrapped = textwrap.wrap(meaning, WIDTH - column - 3, break_on_hyphens=False)
    comments = [f"{' ' * column}// {line}" for line in wrapped]
    if len(code) + 2 > column:
        lines += [code, *comments]
    else:
        lines += [code.ljust(column) + comments[0].lstrip(), *comments[1:]]


if __name__ == "__main__":
    print(commented_example(), end="")
