"""SPEC.md's generated tables list the values of every wire field the model closes.

A reader learning the contract from SPEC.md alone must see which words an approval outcome, a
hook's point, dialect and decision, or a card's tool kind may be; the tables are rendered from
the model's own sets (`log_layout.ENUMS`, `log_layout.WRITTEN_WORDS`, `views.TOOL_KINDS`).
"""

from __future__ import annotations

import re

import pytest

from loopspec.model.commands import APPROVAL_OUTCOMES
from loopspec.model.config import HOOK_POINTS
from loopspec.model.events import (
    TURN_END_KINDS,
    ApprovalDecided,
    HookInvoked,
    HookResulted,
    TurnEnded,
)
from loopspec.model.facts import HOOK_DECISIONS, HOOK_DIALECTS
from loopspec.model.log_layout import ENUMS, EVENT_LAYOUTS, WRITTEN_KINDS, WRITTEN_WORDS
from loopspec.model.views import TOOL_KINDS
from loopspec.properties.conformance.log_schema import field_schema
from loopspec.properties.spec_doc import render_event_catalogue
from loopspec.properties.spec_presentation import render_call_cards

# The event fields whose values the model closes, with the set each takes: what a command or a
# configuration may carry into them (`wire_layout.ENUMS` on the driver side), so a new closed
# field must be registered in the layout before its row can say what it takes.
CLOSED_EVENT_FIELDS: dict[tuple[type, str], frozenset[str]] = {
    (HookInvoked, "point"): HOOK_POINTS,
    (HookResulted, "point"): HOOK_POINTS,
    (HookInvoked, "dialect"): HOOK_DIALECTS,
    (HookResulted, "decision"): HOOK_DECISIONS,
    (ApprovalDecided, "outcome"): APPROVAL_OUTCOMES,
    (TurnEnded, "reason"): TURN_END_KINDS,  # its `kind`
}
# Where the loop's words are stated: refused otherwise, or written and any other read.
REGISTERS = (ENUMS, WRITTEN_WORDS, WRITTEN_KINDS)


def _cell(cls: type, name: str) -> str:
    """The catalogue's text for field `name` of event class `cls`, up to the next field."""
    layout = EVENT_LAYOUTS[cls]
    wire = next(field.wire for field in layout.data.fields if field.name == name)
    row = next(
        line
        for line in render_event_catalogue().splitlines()
        if line.startswith(f"| `{layout.type}` |")
    )
    found = re.search(rf"`{wire}`: ([^;|]*)", row)
    assert found is not None, f"{layout.type} row lists no {wire}: {row}"
    return found.group(1)


def _listed(text: str) -> set[str]:
    """The values a cell lists (each in backticks), the shape of an object aside."""
    return {word for word in re.findall(r"`([^`]+)`", text) if not word.startswith("{")}


@pytest.mark.parametrize(
    ("cls", "name"), list(CLOSED_EVENT_FIELDS), ids=lambda v: getattr(v, "__name__", v)
)
def test_LOG_4_each_closed_event_field_row_lists_its_values(cls: type, name: str) -> None:
    (registered,) = (where[(cls, name)] for where in REGISTERS if (cls, name) in where)
    assert registered == CLOSED_EVENT_FIELDS[(cls, name)], f"{cls.__name__}.{name} unregistered"
    cell = _cell(cls, name)
    assert _listed(cell) == set(CLOSED_EVENT_FIELDS[(cls, name)]), cell
    # The word says whether a reader refuses any other value or takes it.
    assert ("one of" in cell) == ((cls, name) in ENUMS), cell
    assert ("the loop writes" in cell) == ((cls, name) not in ENUMS), cell


def test_LOG_4_an_open_string_field_lists_no_values() -> None:
    assert _listed(_cell(ApprovalDecided, "id")) == set()


def test_DEC_2_the_schema_names_the_outcomes_the_loop_writes_without_refusing_others() -> None:
    (field,) = (f for f in EVENT_LAYOUTS[ApprovalDecided].data.fields if f.name == "outcome")
    schema = field_schema(ApprovalDecided, field)
    assert "enum" not in schema  # a harness's own word is read (DEC-2 reads it as a refusal)
    assert all(outcome in schema["description"] for outcome in APPROVAL_OUTCOMES), schema


def test_VIEW_1_the_call_card_table_lists_every_tool_kind() -> None:
    (line,) = (row for row in render_call_cards().splitlines() if "tool kinds" in row)
    assert _listed(line.split("tool kinds", 1)[1]) == set(TOOL_KINDS)


def test_TURN_5_the_schema_names_every_turn_end_kind_the_loop_writes() -> None:
    (field,) = (f for f in EVENT_LAYOUTS[TurnEnded].data.fields if f.name == "reason")
    description = field_schema(TurnEnded, field)["description"]
    assert all(kind in description for kind in TURN_END_KINDS), description
