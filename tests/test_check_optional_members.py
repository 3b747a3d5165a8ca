"""LOG-4 for the optional members of `data`: one of another JSON type than section 10's
catalogue gives it (a tool/result's `error` as a string, ...) makes the event unreadable, on the
checker's full path and on its clean-event judges alike."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from check_fixtures import FIXTURES

from loopspec.model.facts import OPTIONAL_MEMBERS
from loopspec.model.log_layout import EVENT_LAYOUTS
from loopspec.properties.logcheck.checker import ErrorKind, check_stream
from loopspec.properties.logcheck.synth import HEADER, jsonl

# Optional members a fact reader reads itself, each with its own check (`model/facts.py`).
_READ_BY_READERS = {
    ("hook/invoked", "callId"),
    ("hook/result", "callId"),
    ("approval/asked", "callId"),
    ("approval/asked", "arguments"),
}
_JSON_TYPE = {"object": dict, "flag": bool, "bool": bool, "int": int, "str": str}
_WRONG = {dict: ("boom", 7, [1]), bool: ("yes", 1, {}), int: ("3", 1.5, True), str: (7, [], {})}


def test_LOG_4_the_optional_members_checked_are_the_catalogues() -> None:
    """The table check reads is every optional member of a plain JSON type the wire types
    give an event (any-JSON members, `meta` and `updatedInput`, take every value), null read as
    left out where the layout says (`NULL_IS_ABSENT`)."""
    derived = {
        (layout.type, field.wire, _JSON_TYPE[field.shape])
        for layout in EVENT_LAYOUTS.values()
        for field in layout.data.fields
        if field.optional and field.shape in _JSON_TYPE
    }
    table = {
        (kind, key, json_type)
        for kind, rows in OPTIONAL_MEMBERS.items()
        for key, json_type, _ in rows
    }
    assert table == {row for row in derived if row[:2] not in _READ_BY_READERS}
    # check reads null as left out for an object alone, as the layout says every reader does.
    null_is_absent = {
        (layout.type, field.wire)
        for layout in EVENT_LAYOUTS.values()
        for field in layout.data.fields
        if field.null_is_absent and field.shape in _JSON_TYPE
    }
    assert {(kind, key) for kind, key, json_type in table if json_type is dict} == null_is_absent


_CASES = [
    pytest.param(kind, key, wrong, id=f"{kind}-{key}-{type(wrong).__name__}")
    for kind, rows in OPTIONAL_MEMBERS.items()
    for key, json_type, _ in rows
    for wrong in _WRONG[json_type]
]


@pytest.mark.parametrize(("kind", "key", "wrong"), _CASES)
def test_LOG_4_an_optional_member_of_another_type_is_unreadable_on_both_paths(
    kind: str, key: str, wrong: Any
) -> None:
    """The demo log with the first `kind` event's `data.key` set to `wrong`: one LOG-4 input
    error at its line naming the member, the same with and without the clean-event judges."""
    rows = [
        json.loads(line)
        for line in (FIXTURES / "valid" / "model-demo.jsonl").read_text().splitlines()[1:]
    ]
    at = next(i for i, row in enumerate(rows) if row["type"] == kind)
    rows[at]["data"][key] = wrong
    data = jsonl(HEADER, rows).encode()
    full = check_stream("log", io.BytesIO(data), quick=False)
    assert [(e.kind, e.line, e.rule_id) for e in full.errors] == [
        (ErrorKind.BAD_EVENT, at + 2, "LOG-4")
    ]
    assert f"data.{key}" in full.errors[0].message
    assert check_stream("log", io.BytesIO(data)) == full


def test_LOG_4_null_reads_as_absent_only_for_an_optional_object() -> None:
    """An optional object written null (a reply's `usage`, a result's `error`) is one left
    out, as the model's reader takes it; a string, integer or boolean written null is refused,
    as that reader refuses it: check read `callId: null` on an approval as no call, and blamed
    DEC-2 where the model says LOG-4."""
    rows = [
        json.loads(line)
        for line in (FIXTURES / "valid" / "model-demo.jsonl").read_text().splitlines()[1:]
    ]
    nulled: tuple[dict[str, Any], str] | None = None
    for row in rows:
        for key, json_type, _ in OPTIONAL_MEMBERS.get(row["type"], ()):
            if json_type is dict:
                row["data"].setdefault(key, None)
            elif key not in row["data"] and nulled is None:
                nulled = (row, key)
    data = jsonl(HEADER, rows).encode()
    full = check_stream("log", io.BytesIO(data), quick=False)
    assert full.errors == []
    assert full.violations == []
    assert check_stream("log", io.BytesIO(data)) == full
    assert nulled is not None
    row, key = nulled
    row["data"][key] = None
    for quick in (False, True):
        report = check_stream("log", io.BytesIO(jsonl(HEADER, rows).encode()), quick=quick)
        (error,) = report.errors
        assert (error.rule_id, f"data.{key} must be" in error.message) == ("LOG-4", True)
