"""SPEC.md's generated tables list the values of every wire field the model closes.

A reader learning the contract from SPEC.md alone must see which words an approval outcome, a
hook's point, dialect and decision, or a card's tool kind may be; the tables are rendered from
the model's own sets (`log_layout.ENUMS`, `log_layout.WRITTEN_WORDS`, `views.TOOL_KINDS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import get_args

import pytest

from loopspec import spec_text
from loopspec.model import acp
from loopspec.model.acp import CARD_STATUSES
from loopspec.model.commands import APPROVAL_OUTCOMES
from loopspec.model.config import HOOK_POINTS
from loopspec.model.events import (
    END_INTERRUPTED,
    TURN_END_KINDS,
    ApprovalDecided,
    HookInvoked,
    HookResulted,
    TurnEnded,
)
from loopspec.model.facts import HOOK_DECISIONS, HOOK_DIALECTS
from loopspec.model.log_layout import ENUMS, EVENT_LAYOUTS, WRITTEN_KINDS, WRITTEN_WORDS
from loopspec.model.views import (
    CALL_CARDS,
    RESULT_CARDS,
    TOOL_KINDS,
    ToolCallView,
    ToolResultView,
)
from loopspec.properties.conformance.log_schema import field_schema
from loopspec.properties.spec_doc import render_event_catalogue
from loopspec.properties.spec_presentation import (
    render_call_cards,
    render_result_updates,
    render_statuses,
)
from loopspec.properties.spec_rules import rule_sections

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


def test_TURN_5_the_schema_lists_the_turn_end_kinds_from_the_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A kind the loop comes to write shows in the schema without anyone rewording it."""
    (field,) = (f for f in EVENT_LAYOUTS[TurnEnded].data.fields if f.name == "reason")
    monkeypatch.setitem(WRITTEN_KINDS, (TurnEnded, "reason"), TURN_END_KINDS | {"handed-over"})
    assert "handed-over" in field_schema(TurnEnded, field)["description"]
    monkeypatch.setitem(WRITTEN_KINDS, (TurnEnded, "reason"), TURN_END_KINDS - {END_INTERRUPTED})
    description = field_schema(TurnEnded, field)["description"]
    assert END_INTERRUPTED not in description, description


def _status_table() -> list[list[str]]:
    """The rows of SPEC's status table: message, occasion, statuses (each in backticks)."""
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in render_statuses().splitlines()
        if line.startswith("| `")
    ]
    assert rows, render_statuses()
    return rows


def test_ACP_1_the_status_table_lists_every_status_the_model_sends_and_no_other() -> None:
    sent = {status for row in _status_table() for status in _listed(row[2])}
    assert sent == CARD_STATUSES
    (line,) = (row for row in render_statuses().splitlines() if row.startswith("A card's"))
    assert _listed(line.split(" is ", 1)[1].split("never", 1)[0]) == set(CARD_STATUSES)


def test_ACP_1_the_status_table_reads_what_the_bridge_sends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A status the bridge comes to send (here a failed result's) shows in the table."""
    monkeypatch.setattr(acp, "STATUS_FAILED", "errored")
    rows = {(row[0], row[1]): _listed(row[2]) for row in _status_table()}
    assert rows[("`tool_call_update`", "its `tool/result` with `isError`")] == {"errored"}
    assert rows[("`tool_call`", "its `tool/call`")] == {acp.STATUS_IN_PROGRESS}


@pytest.mark.parametrize(
    ("renderer", "views", "cards"),
    [
        (render_call_cards, "the call views", CALL_CARDS),
        (render_result_updates, "the result views", RESULT_CARDS),
    ],
    ids=["call", "result"],
)
def test_VIEW_1_the_presentation_tables_list_every_card_of_the_closed_union(
    renderer: Callable[[], str], views: str, cards: frozenset[str]
) -> None:
    (line,) = (row for row in renderer().splitlines() if views in row)
    assert _listed(line.split(views, 1)[1]) == set(cards)


def test_VIEW_1_the_card_sets_are_one_card_per_variant_of_the_unions() -> None:
    assert {view.CARD for view in get_args(ToolCallView)} == CALL_CARDS
    assert {view.CARD for view in get_args(ToolResultView)} == RESULT_CARDS


def test_VIEW_1_the_rule_names_every_card_kind() -> None:
    """VIEW-1's own words list the variants (`Call views are a | b | c, result views ...`)."""
    rule = rule_sections(spec_text())["VIEW-1"]
    found = re.search(r"Call views are ([a-z |]+), result views ([a-z |]+),", rule)
    assert found is not None, rule
    assert set(found.group(1).split(" | ")) == CALL_CARDS
    assert set(found.group(2).split(" | ")) == RESULT_CARDS
