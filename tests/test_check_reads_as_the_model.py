"""LOG-4 and the rules a line's shape answers to: `loopspec check` reads a log line as the
model's reader (`model.wire.event_from_wire`) reads it. It refused none of 83 line shapes the
model cannot read (a content block that is not an object, a message id of another type than a
string, null in an optional string such as a hook's `callId`), and blamed one of them on a
rule it did not break (an `approval/asked` with `callId: null`, DEC-2, where the model says
LOG-4). Each shape below is made from a valid log by changing, adding or removing one member of
the last event of its type; the fact reader (`model.facts.fact_from_wire`, the checker's full
path, which reads the first event of each type) and `check` itself (its clean-event judges
first, for a later one) must refuse exactly the shapes the model refuses, under its rule."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from check_fixtures import FIXTURES

from loopspec.model.errors import LoopSpecError
from loopspec.model.facts import FactError, fact_from_wire
from loopspec.model.log_layout import EVENT_LAYOUTS
from loopspec.model.wire import event_from_wire
from loopspec.properties.logcheck.checker import check_stream

Members = tuple[str | int, ...]
_REMOVED = object()
_TEXT = {"type": "text"}
# A value of each JSON type, the empty string (an approval's id "" passed check, which the model
# refuses), 0 and -1 (a turn or step numbered 0 was read on and blamed on STEP-2 or STEP-3), a
# text block without its text (a tool result's was LOG-6 in check, LOG-4 in the model), and
# removal: what one member is changed to.
_REPLACEMENTS: tuple[object, ...] = ("s", "", 1, 0, -1, None, [], {}, _TEXT, True, False, _REMOVED)


# Valid logs whose events hold every optional member between them: the model's demo (with the
# members it leaves out written in), a rewrite sidecar, an approval asked with its reason.
_BASES = (
    FIXTURES / "valid" / "model-demo.jsonl",
    FIXTURES / "blame" / "valid" / "RW-2-two-rewrites-both-named.jsonl",
    FIXTURES / "blame" / "valid" / "DEC-2-approved-before-the-call-ran.jsonl",
)


def _base_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of the log at `path`, with valid optional members it leaves out written in."""
    rows: list[dict[str, Any]] = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows[1:]:
        data = row["data"]
        if row["type"] == "hook/invoked":
            data.setdefault("matcher", "bash")
        elif row["type"] == "hook/result":
            data.setdefault("exitCode", 0)
            data.setdefault("stderrSummary", "")
        elif row["type"] == "assistant/message":
            data["message"]["content"].insert(0, {"type": "reasoning", "text": "r"})
            data.setdefault("usage", {})
            data["message"].setdefault("id", "m")
        elif row["type"] == "user/message":
            data["content"].append({"type": "image", "data": "x"})
            data.setdefault("id", "u")
        elif row["type"] == "approval/asked":
            data.setdefault("reason", "asked")
    return rows


def _paths(value: object, path: Members) -> Iterator[Members]:
    if isinstance(value, dict):
        for key, member in value.items():
            yield (*path, key)
            yield from _paths(member, (*path, key))
    elif isinstance(value, list):
        for index, member in enumerate(value):
            yield (*path, index)
            yield from _paths(member, (*path, index))


def _changed(row: dict[str, Any], path: Members, value: object) -> dict[str, Any] | None:
    """`row` with the member at `path` set to `value` (or removed); None for an array item
    removed (that is another array, not a member left out)."""
    changed = copy.deepcopy(row)
    holder: Any = changed
    for key in path[:-1]:
        holder = holder[key]
    if value is _REMOVED:
        if isinstance(holder, list):
            return None
        holder.pop(path[-1], None)
    else:
        holder[path[-1]] = value
    return changed


# Per event type, the optional members of its `data` (`log_layout`, the model's wire types).
_OPTIONAL = {
    layout.type: tuple(field.wire for field in layout.data.fields if field.optional)
    for layout in EVENT_LAYOUTS.values()
}


def _shapes(
    rows: list[dict[str, Any]], seen: set[tuple[str, tuple[str, ...], str]]
) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(line index, what changed, the changed row): one per event type, member and value not
    `seen` yet, each added to `seen`. The last event of its type whose member it is: the first
    of a type takes check's full path, a later one its clean-event judge first."""
    for index, row in reversed(list(enumerate(rows[1:], 1))):
        # Each member it has, and each optional one the wire types give its type that it lacks.
        optional = _OPTIONAL.get(row["type"], ())
        added = [("data", key) for key in optional if key not in row["data"]]
        for path in [*_paths(row["data"], ("data",)), *added]:
            generic = tuple("#" if type(key) is int else str(key) for key in path)
            for value in _REPLACEMENTS:
                kind = "removed" if value is _REMOVED else repr(value)
                if (row["type"], generic, kind) in seen:
                    continue
                changed = _changed(row, path, value)
                if changed is not None:
                    seen.add((row["type"], generic, kind))
                    what = f"{row['type']} {'/'.join(map(str, path))} {value!r}"
                    yield index, what, changed


def _model_rule(row: dict[str, Any]) -> str | None:
    try:
        event_from_wire(row)
    except LoopSpecError as error:
        return error.rule_id
    return None


def _fact_rule(row: dict[str, Any]) -> str | None:
    try:
        fact_from_wire(row)
    except FactError as error:
        return error.rule_id
    return None


def _check_rule(rows: list[dict[str, Any]], line: int, read_on: bool) -> str | None:
    """The rule of check's input error at `line`; or, for a line check reads on (`_read_on`),
    of its violation there."""
    text = "".join(json.dumps(row) + "\n" for row in rows).encode()
    report = check_stream("shape.jsonl", io.BytesIO(text))
    if read_on:
        return next((v.violation.rule_id for v in report.violations if v.line == line), None)
    return next((error.rule_id or "" for error in report.errors if error.line == line), None)


def _read_on(row: dict[str, Any]) -> bool:
    """Whether `row` is a tool/call whose sidecar names no hook, or the empty name, or a
    hook/result whose duration is negative: the model cannot build it, and check reads it and
    blames RW-2 (9d7d8dd) or HOOK-1 (a14db6c) at its line, reading on."""
    duration: Any = row["data"].get("durationMs") if row["type"] == "hook/result" else None
    if type(duration) in (int, float) and duration < 0:
        return True
    rewrite = row["data"].get("rewrite") if row["type"] == "tool/call" else None
    handlers = rewrite.get("handlerIds") if isinstance(rewrite, dict) else None
    return (
        isinstance(handlers, list)
        and all(type(handler) is str for handler in handlers)
        and not (handlers and all(handlers))
    )


@pytest.mark.parametrize("base", _BASES, ids=lambda path: path.stem)
def test_LOG_4_the_base_logs_of_the_shapes_are_valid(base: Path) -> None:
    rows = _base_rows(base)
    text = "".join(json.dumps(row) + "\n" for row in rows).encode()
    report = check_stream("base.jsonl", io.BytesIO(text))
    assert (report.errors, report.violations) == ([], [])
    assert all(_model_rule(row) is None for row in rows[1:])


def test_LOG_4_check_refuses_exactly_the_line_shapes_the_model_refuses_under_its_rule() -> None:
    disagreements = []
    seen: set[tuple[str, tuple[str, ...], str]] = set()
    for base in _BASES:
        rows = _base_rows(base)
        for index, what, changed in _shapes(rows, seen):
            model = _model_rule(changed)
            read_on = _read_on(changed)
            # A line check reads on yields a fact: the model's refusal is its violation.
            fact = model if read_on and _fact_rule(changed) is None else _fact_rule(changed)
            log = [*rows[:index], changed, *rows[index + 1 :]]
            checked = _check_rule(log, index + 1, read_on)
            if not model == fact == checked:
                disagreements.append(f"{what}: model {model}, facts {fact}, check {checked}")
    assert len(seen) > 650  # every event type's members, each changed up to eight ways
    assert disagreements == []
