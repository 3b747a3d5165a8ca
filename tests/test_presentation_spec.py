"""SPEC section 12 (the presentation contract) is generated and true.

Its tables are checked against the model itself: each row's call is run through the reference
model (`ModelTarget`, the oracle `loopspec conform` compares a target with), and what the model
presents for it must be what the row says. The freshness test fails on a hand edit of a table
and on a change to a presenter.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from loopspec.model import presenters
from loopspec.model.commands import (
    ApprovalAnswers,
    Ask,
    Command,
    HookAnswers,
    ModelReplies,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.jsonvalue import freeze
from loopspec.model.messages import ToolCallBlock
from loopspec.model.views import GenericCallView
from loopspec.properties.conformance import driver_protocol
from loopspec.properties.conformance.target import ModelTarget
from loopspec.properties.spec_doc import splice_generated_sections
from loopspec.properties.spec_presentation import (
    ABSENT,
    CALL_EXAMPLES,
    CALL_ID,
    RESULT_EXAMPLES,
    WORKED_EXAMPLE,
    ResultExample,
)

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "SPEC.md").read_text(encoding="utf-8")
TOOLS = ("bash", "read", "write", "edit", "todo", "grep")
CONFIG = LoopConfig(tools=tuple(ToolSpec(name) for name in TOOLS))
CODE_SPAN = re.compile(r"^(`+)(.*)\1$", re.S)


def _block(name: str) -> str:
    return SPEC.split(f"<!-- generated:{name} -->\n")[1].split(f"<!-- end generated:{name}")[0]


def _table_rows(name: str) -> list[list[str]]:
    """The cells of each body row of a generated table."""
    rows = [line for line in _block(name).splitlines() if line.startswith("| ")][1:]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]


def _code(cell: str) -> str:
    """The text of a cell holding one code span."""
    match = CODE_SPAN.match(cell)
    assert match is not None, cell
    text = match.group(2).replace("\\|", "|")
    return text[1:-1] if text.startswith(" `") or text.endswith("` ") else text


def _field(cell: str) -> Any:
    """A cell's JSON value, or ABSENT when the row says the field is not sent."""
    return ABSENT if cell == ABSENT else json.loads(_code(cell))


def _run(commands: list[Command], config: LoopConfig = CONFIG) -> list[dict[str, Any]]:
    """Every message the model presents while it runs `commands`."""
    model = ModelTarget()
    model.reset(config)
    presented: list[dict[str, Any]] = []
    for command in commands:
        observation = model.apply(command)
        assert observation.accepted, observation.refusal_message
        presented.extend(observation.presented or ())
    return presented


def _reply(tool: str, arguments: str) -> list[Command]:
    return [SubmitUser("go"), ModelReplies((ToolCallBlock(CALL_ID, tool, arguments),))]


def _outcome(example: ResultExample) -> ToolFinishes:
    meta = freeze(example.meta)
    if example.is_error:
        return ToolFinishes(CALL_ID, ToolFailed(example.text.removeprefix("Error: ")))
    return ToolFinishes(CALL_ID, ToolSucceeded(example.text, meta=meta))


def _sent(update: dict[str, Any], key: str) -> Any:
    return update.get(key, ABSENT)


def test_VIEW_2_every_call_card_row_is_what_the_model_presents() -> None:
    """VIEW-2, VIEW-3, VIEW-4: each row of the call-card table, run through the model, is the
    `tool_call` card the model presents for that call (title, kind, locations, content)."""
    rows = _table_rows("presentation-calls")
    assert len(rows) == len(CALL_EXAMPLES)
    for row, example in zip(rows, CALL_EXAMPLES, strict=True):
        tool, arguments, _case, view, title, kind, locations, content = row
        assert tool == f"`{example.tool}`"
        assert (
            arguments == "(empty)"
            if not example.arguments
            else _code(arguments) == example.arguments
        )
        presented = _run(_reply(example.tool, example.arguments))
        card = presented[0]["params"]["update"]
        assert card["sessionUpdate"] == "tool_call"
        assert card["status"] == "in_progress"
        assert view in {"generic", "terminal", "diff"}
        got = [_sent(card, key) for key in ("title", "kind", "locations", "content")]
        assert got == [_field(title), _field(kind), _field(locations), _field(content)], row


def test_VIEW_3_every_result_update_row_is_what_the_model_presents() -> None:
    """VIEW-3, ACP-2: each row of the result-update table, run through the model, is the
    `tool_call_update` the model presents for that result (status, title, content)."""
    rows = _table_rows("presentation-results")
    assert len(rows) == len(RESULT_EXAMPLES)
    for row, example in zip(rows, RESULT_EXAMPLES, strict=True):
        tool, arguments, _case, _result, _view, status, title, content = row
        assert (tool, _code(arguments)) == (f"`{example.tool}`", example.arguments)
        presented = _run([*_reply(example.tool, example.arguments), _outcome(example)])
        update = presented[-1]["params"]["update"]
        assert update["sessionUpdate"] == "tool_call_update"
        got = [_sent(update, key) for key in ("status", "title", "content")]
        assert got == [_field(status), _field(title), _field(content)], row


def test_ACP_3_the_worked_example_is_what_conform_expects() -> None:
    """ACP-3, PROTO-1: the worked example's messages are the model's, in full, for a read call
    a PreToolUse hook asks about, approved, then finished."""
    example = WORKED_EXAMPLE
    config = LoopConfig(
        tools=(ToolSpec("read", required_keys=("file_path",)),),
        hooks=(HookSpec("check", "PreToolUse", "read"),),
    )
    commands = [
        *_reply(example.tool, example.arguments),
        HookAnswers(Ask("check")),
        ApprovalAnswers("allowed-once"),
        ToolFinishes(CALL_ID, ToolSucceeded(example.text)),
    ]
    fenced = _block("presentation-example").split("```json\n")[1].split("\n```")[0]
    stated = [json.loads(line) for line in fenced.splitlines()]
    assert [message["method"] for message in stated] == [
        "session/update",
        "session/request_permission",
        "session/update",
    ]
    assert _run(commands, config) == stated


def test_MODEL_1_a_hand_edited_presentation_table_is_stale() -> None:
    """Traceability: editing a generated presentation row by hand fails the freshness check."""
    edited = SPEC.replace('`"Read a.txt"`', '`"Read the file a.txt"`', 1)
    assert edited != SPEC
    assert splice_generated_sections(edited) == SPEC


def test_MODEL_1_a_changed_presenter_makes_the_presentation_table_stale(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Traceability: a presenter that changes a card (here read's kind) makes SPEC stale until
    it is regenerated."""
    changed = dict(presenters.CALL_PRESENTERS)
    changed["read"] = lambda arguments: GenericCallView("Read", kind="other", raw_input=arguments)
    monkeypatch.setattr(presenters, "CALL_PRESENTERS", MappingProxyType(changed))
    assert splice_generated_sections(SPEC) != SPEC


def test_PROTO_1_the_driver_protocol_points_to_the_presentation_tables() -> None:
    """PROTO-1: where an implementer of `presentation` reads the protocol (the page `conform
    --help` names, and `loopspec schema`'s description of `observed.presented`), it says where
    the messages' contents are stated: section 12 (an implementer writing from the docs found
    the methods named there but no word of what a card holds)."""
    heading = next(line for line in SPEC.splitlines() if line.startswith("## 12. "))
    assert "Presentation" in heading
    observed = json.dumps(driver_protocol.protocol_schema())
    assert "presented" in observed
    assert "SPEC.md section 12" in observed
    assert "SPEC.md section 12" in " ".join((driver_protocol.__doc__ or "").split())
