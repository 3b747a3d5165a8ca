"""LOG-4 for the required members of `data`: section 10's catalogue, rendered from the wire types
(`log_layout.EVENT_LAYOUTS`), says which an event must carry, and check must read each the same
way: an event without one is unreadable, on the checker's full path and on its clean-event judges
alike. (Before, `approval/asked` without `toolName` passed: the catalogue required it, the
reader took it as optional.)"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from check_fixtures import FIXTURES

from loopspec.model.log_layout import EVENT_LAYOUTS, OBJECT_KIND, log_object
from loopspec.properties.logcheck.checker import ErrorKind, check_stream
from loopspec.properties.logcheck.synth import HEADER, jsonl


def _log_holding(kind: str) -> list[dict[str, Any]]:
    """The events of the first valid fixture log that holds an event of type `kind`."""
    for log in sorted((FIXTURES / "valid").glob("*.jsonl")):
        rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()[1:]]
        if any(row.get("type") == kind for row in rows):
            return rows
    raise AssertionError(f"no valid fixture log holds a {kind} event")


def _required_members() -> list[tuple[str, str, str]]:
    """Each event type, a member of its `data` its layout requires, and its rule: the
    members of `data`, or of the object that is `data` (a user message). A member that must be
    an object with a string kind (a turn/end reason) is TURN-5's."""
    found = []
    for layout in EVENT_LAYOUTS.values():
        owner = layout.cls
        fields = layout.data.fields
        if layout.data_field is not None:
            assert layout.data_field.target is not None
            owner = layout.data_field.target
            fields = log_object(owner).fields
        found += [
            (layout.type, f.wire, "TURN-5" if (owner, f.name) in OBJECT_KIND else f.rule)
            for f in fields
            if not f.optional
        ]
    return found


_CASES = [
    pytest.param(kind, key, rule, id=f"{kind}-{key}") for kind, key, rule in _required_members()
]


def test_LOG_4_every_event_type_has_a_required_member_checked() -> None:
    """Every event type has a member it cannot do without, checked below."""
    assert {kind for kind, _, _ in _required_members()} == {
        layout.type for layout in EVENT_LAYOUTS.values()
    }


@pytest.mark.parametrize(("kind", "key", "rule"), _CASES)
def test_LOG_4_an_event_without_a_required_member_is_unreadable_on_both_paths(
    kind: str, key: str, rule: str
) -> None:
    """A valid log with its first `kind` event's `data.key` left out: one input
    error at its line, naming the member and its rule, the same with and without the judges."""
    rows = _log_holding(kind)
    at = next(i for i, row in enumerate(rows) if row["type"] == kind)
    del rows[at]["data"][key]
    data = jsonl(HEADER, rows).encode()
    full = check_stream("log", io.BytesIO(data), quick=False)
    assert [(e.kind, e.line, e.rule_id) for e in full.errors] == [
        (ErrorKind.BAD_EVENT, at + 2, rule)
    ], full.errors
    assert key in full.errors[0].message
    assert check_stream("log", io.BytesIO(data)) == full
