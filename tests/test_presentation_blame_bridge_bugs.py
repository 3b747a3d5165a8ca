"""Blame for the mistakes an ACP bridge written from the tutorial makes: each test names the
rule a bridge with that one bug really breaks, and what its report must tell the author."""

from __future__ import annotations

import importlib.metadata
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from bridge_doubles import BridgeOnTheModel, card_of
from mutants import Mutant, MutantTarget, Patch

from loopspec.model import presenters
from loopspec.model.commands import ModelReplies, SubmitUser
from loopspec.model.config import LoopConfig
from loopspec.model.jsonvalue import FrozenMap, JsonValue
from loopspec.model.messages import ToolCallBlock
from loopspec.model.pure import presentation
from loopspec.model.toolargs import ArgumentShapeError
from loopspec.model.views import FileDiff
from loopspec.properties.conformance.presented import presentation_rule
from loopspec.properties.conformance.run import run_conformance
from loopspec.properties.conformance.target import ModelTarget
from loopspec.properties.spec_presentation import CALL_EXAMPLES
from loopspec.properties.stateful.strategies import TOOLS

READ_ARGUMENTS = '{"file_path": "/workspace/a.txt"}'


def _recorded(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"type": "tool/call", "data": {"callId": call_id, "name": name, "arguments": arguments}}


def _answered(call_id: str, text: str) -> dict[str, Any]:
    block = {
        "type": "tool-result",
        "toolCallId": call_id,
        "content": [{"type": "text", "text": text}],
        "isError": True,
    }
    return {"type": "tool/result", "data": {"message": {"role": "user", "content": [block]}}}


def _update(update: dict[str, Any]) -> dict[str, Any]:
    return {"method": "session/update", "params": {"sessionId": "s", "update": update}}


def _read_card(call_id: str = "c1") -> dict[str, Any]:
    return _update(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": call_id,
            "title": "Read a.txt",
            "kind": "read",
            "locations": [{"path": "/workspace/a.txt", "line": 1}],
            "rawInput": {"file_path": "/workspace/a.txt"},
            "status": "in_progress",
        }
    )


def _failed_update(call_id: str, text: str) -> dict[str, Any]:
    item = {"type": "content", "content": {"type": "text", "text": text}}
    return _update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call_id,
            "status": "failed",
            "content": [item],
        }
    )


def test_VIEW_2_a_card_with_rawOutput_in_place_of_rawInput_is_no_rewrite_bug() -> None:
    """VIEW-2: a bridge that writes the call's arguments as `rawOutput` (the two swapped) was
    blamed on RW-1, 'the card shows other arguments than tool/call records', on a call no hook
    rewrote; the card leaves out a field section 12 gives and carries one it never writes."""
    card = _read_card()
    swapped = json.loads(json.dumps(card))
    update = swapped["params"]["update"]
    update["rawOutput"] = update.pop("rawInput")
    found = presentation_rule([card], [swapped], (_recorded("c1", "read", READ_ARGUMENTS),))
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert "leaves out rawInput" in what, what
    assert "carries rawOutput, which section 12 never writes on a card" in what, what


def test_VIEW_4_a_wrong_title_on_an_identity_rewrite_is_no_rewrite_bug() -> None:
    """VIEW-4: a loop that tests "inside the workspace" by string prefix titles a write to
    `/workspace-old/a.txt` as `-old/a.txt`. On a call a hook rewrote to its own input (an
    identity rewrite, which random programs draw) the report said RW-1, 'the card shows the
    input before the rewrite': that input is the one in effect, so its card is the right one
    but for the title."""
    arguments = '{"file_path":"/workspace-old/a.txt","content":"new"}'
    record = _recorded("c1", "write", arguments)
    record["data"]["rewrite"] = {"originalArguments": arguments, "handlerIds": ["guard"]}
    model = ModelTarget()
    model.reset(LoopConfig(tools=TOOLS))
    model.presenting = True
    model.apply(SubmitUser(""))
    (card,) = model.apply(ModelReplies((ToolCallBlock("c1", "write", arguments),))).presented or ()
    wrong = json.loads(json.dumps(card))
    wrong["params"]["update"]["title"] = "Write -old/a.txt"
    found = presentation_rule([card], [wrong], (record,))
    assert found is not None
    rule, what = found
    assert rule == "VIEW-4", what


def test_PROTO_1_a_card_held_back_for_a_later_command_is_out_of_its_command() -> None:
    """PROTO-1: a bridge that holds a read's card back until the call's result (so the update
    goes out first) was blamed on VIEW-3, whose rule is the generic fallback, though the call
    has a presenter; PROTO-1 gives each tool event its message in the command appending it. A
    call no presenter renders, left out, is still VIEW-3: the bridge must show the generic
    card."""
    history = (_recorded("c1", "read", READ_ARGUMENTS),)
    found = presentation_rule([_read_card()], [], history)
    assert found is not None
    rule, what = found
    assert rule == "PROTO-1", what
    assert "neither left out nor held back for a later one" in what, what
    generic = _update(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c2",
            "title": "grep",
            "kind": "other",
            "rawInput": {"pattern": "x"},
            "status": "in_progress",
        }
    )
    found = presentation_rule([generic], [], (_recorded("c2", "grep", '{"pattern": "x"}'),))
    assert found is not None
    assert found[0] == "VIEW-3", found
    assert "no presenter renders grep" in found[1], found


def test_VIEW_2_an_update_sent_at_a_denial_is_named_before_the_results() -> None:
    """VIEW-2: a bridge that sends its own "failed" update when the user rejects a call, and
    then the one the denied call's tool/result calls for, was told its update came 'after the
    one its tool/result called for'; it came before, in the same command."""
    history = (_recorded("c1", "read", READ_ARGUMENTS), _answered("c1", "denied"))
    own = _update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "failed"})
    due = _failed_update("c1", "denied")
    found = presentation_rule([due], [own, due], history)
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert "before the one its tool/result calls for, later in this command" in what, what
    assert "after the one" not in what, what


def test_VIEW_2_a_wrong_kind_names_the_kind_section_12_gives() -> None:
    """VIEW-2: a write card of kind "other" was told only 'the card is the presenter's view of
    the call's arguments'; the report now says which kind each tool's card has."""
    arguments = '{"file_path": "/workspace/n.md", "content": "x"}'
    card = _update(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c1",
            "title": "Write n.md",
            "kind": "edit",
            "locations": [{"path": "/workspace/n.md"}],
            "content": [{"type": "diff", "path": "/workspace/n.md", "newText": "x"}],
            "rawInput": {"file_path": "/workspace/n.md", "content": "x"},
            "status": "in_progress",
        }
    )
    other = json.loads(json.dumps(card))
    other["params"]["update"]["kind"] = "other"
    found = presentation_rule([card], [other], (_recorded("c1", "write", arguments),))
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert '"edit" for write and edit' in what, what
    assert '("edit" here)' in what, what


def test_VIEW_2_a_tool_call_id_of_the_bridges_own_says_which_id_to_use() -> None:
    """VIEW-2: a bridge that prefixes call ids ("call_c1") was told only that it sends a
    message for call call_c1 where the model sends one for c1; no tool/call records call_c1,
    and the report says the id is the one tool/call records."""
    renamed = json.loads(json.dumps(_read_card()))
    renamed["params"]["update"]["toolCallId"] = "call_c1"
    found = presentation_rule([_read_card()], [renamed], (_recorded("c1", "read", READ_ARGUMENTS),))
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert "no tool/call records a call call_c1" in what, what
    assert "toolCallId is the callId its tool/call records" in what, what


def _raw_input_null(message: dict[str, Any]) -> None:
    """A bridge writing `rawInput: null` on a card whose arguments have no value (the text
    `null`), where section 12 leaves the key out."""
    card = card_of(message)
    if card.get("sessionUpdate") != "tool_call_update" and "rawInput" not in card:
        card["rawInput"] = None


def test_ACP_1_arguments_null_are_among_the_rows_conform_plays() -> None:
    """ACP-1: arguments that are JSON `null` have no value, so the card has no rawInput; a
    bridge writing `"rawInput": null` passed 200 programs on seeds 1 and 2, which never drew
    such arguments. Section 12 now has the row, which conform plays before its programs."""
    assert any(example.arguments == "null" for example in CALL_EXAMPLES)
    bridge = lambda: BridgeOnTheModel(_raw_input_null, "a bridge writing rawInput null")  # noqa: E731
    report = run_conformance(bridge, examples=1, seed_value=1, show_progress=False)
    assert report.divergence is not None
    assert report.divergence.rule_id == "ACP-1", report.divergence.what
    assert "rawInput is null: leave the key out" in report.divergence.what


def _bool_is_an_integer() -> list[Patch]:
    """A reader that takes Python's `isinstance(value, int)` for a JSON integer: `true` is 1."""

    def optional_int(fields: FrozenMap, key: str, *, minimum: int) -> int | None:
        value = fields.get(key)
        if value is None or (isinstance(value, int) and value >= minimum):
            return value
        raise ArgumentShapeError(f"{key!r} is no integer")

    return [(presenters, "optional_int", optional_int)]


def _thirty_two_bit_integers() -> list[Patch]:
    """A reader whose integers stop at 32 bits (Tcl's `string is integer`, a Java `int`): an
    offset or limit past them is no integer, so the read's card is the generic one."""

    def optional_int(fields: FrozenMap, key: str, *, minimum: int) -> int | None:
        value = fields.get(key)
        if value is None:
            return None
        if type(value) is int and minimum <= value < 2**32:
            return value
        raise ArgumentShapeError(f"{key!r} is no 32-bit integer")

    return [(presenters, "optional_int", optional_int)]


def _any_decimal_exit_code() -> list[Patch]:
    """A marker reader that takes any decimal, so `[exit code: 01]` is stripped as exit 1."""

    def exit_code_of(line: str) -> int | None:
        number = line.removeprefix("[exit code: ").removesuffix("]")
        if not line.startswith("[exit code: ") or not number.lstrip("-").isdigit():
            return None
        return int(number)

    return [(presentation, "exit_code_of", exit_code_of)]


def _well_formed_diffs_only() -> list[Patch]:
    """A meta.diffs reader that skips a malformed entry and keeps the others."""

    def diffs_from_meta(meta: JsonValue) -> tuple[FileDiff, ...]:
        entries = meta.get("diffs") if isinstance(meta, FrozenMap) else None
        kept = []
        for entry in entries if isinstance(entries, tuple) else ():
            if not isinstance(entry, FrozenMap):
                continue
            path, new_text, old_text = entry.get("path"), entry.get("newText"), entry.get("oldText")
            if not (isinstance(path, str) and isinstance(new_text, str)):
                continue
            if old_text is None or isinstance(old_text, str):
                kept.append(FileDiff(path, old_text, new_text))
        return tuple(kept)

    return [(presenters, "diffs_from_meta", diffs_from_meta)]


@pytest.mark.no_cover
@pytest.mark.parametrize(
    ("mutant", "says"),
    [
        (
            # Its card's location line is true, not an integer: invalid ACP comes first.
            Mutant("bool-offset", "ACP-1", "offset true read as 1", _bool_is_an_integer),
            'line: true is not of type "integer"',
        ),
        (
            Mutant("int32-offset", "VIEW-2", "no integer past 32 bits", _thirty_two_bit_integers),
            "an integer of 33 bits",
        ),
        (
            Mutant("loose-exit-code", "VIEW-2", "[exit code: 01] stripped", _any_decimal_exit_code),
            "exit or signal marker line removed",
        ),
        (
            Mutant("partial-diffs", "VIEW-2", "malformed diffs skipped", _well_formed_diffs_only),
            "content",
        ),
    ],
    ids=["bool-offset", "int32-offset", "loose-exit-code", "partial-diffs"],
)
def test_VIEW_2_section_12_rows_catch_what_random_programs_never_draw(
    mutant: Mutant, says: str
) -> None:
    """VIEW-2, ACP-1: section 12 says offset and limit are JSON integers (true is none, and so
    is neither past 2^32 nor past 2^64 out of range), an exit marker's N is canonical decimal,
    and one malformed meta.diffs entry discards them all; a bridge getting any of these wrong
    (Python's bool an int, a Tcl loop's `string is integer`, a \\d+ marker, skipping the bad
    entry) passed 200 programs on seeds 1 and 2, which never drew such input. Each is now a
    row of section 12, which conform plays before its programs."""
    report = run_conformance(
        lambda: MutantTarget(mutant), examples=1, seed_value=1, show_progress=False
    )
    assert report.divergence is not None, mutant.name
    assert report.divergence.rule_id == mutant.rule_id, report.divergence.what
    assert says in report.divergence.what, report.divergence.what


def test_VIEW_3_an_edit_result_without_diffs_says_why_it_is_raw_content() -> None:
    """VIEW-3: a bridge that shows an edit's arguments as the diff when its result has no
    meta.diffs (as a write does) was told 'a result no presenter renders shows its raw
    content', though edit has a presenter; the report now says when an edit's result is raw."""
    arguments = '{"file_path": "/workspace/a.py", "old_string": "x", "new_string": "y"}'
    history = (_recorded("c1", "edit", arguments), _answered("c1", "Edited"))
    raw = _failed_update("c1", "Edited")
    diffed = _update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "failed",
            "title": "Edit a.py",
            "content": [
                {"type": "diff", "path": "/workspace/a.py", "oldText": "x", "newText": "y"}
            ],
        }
    )
    found = presentation_rule([raw], [diffed], history)
    assert found is not None
    rule, what = found
    assert rule == "VIEW-3", what
    assert "an edit whose result has no usable meta.diffs" in what, what


def _as_a_double(value: Any) -> Any:
    """A JSON value as JavaScript's JSON.parse holds it: an integer past 2^53 rounded."""
    if isinstance(value, dict):
        return {key: _as_a_double(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_a_double(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
        return int(float(value))
    return value


def _raw_input_rounded(message: dict[str, Any]) -> None:
    """A bridge reading arguments with JSON.parse alone: a card's rawInput rounds an integer
    past 2^53."""
    card = card_of(message)
    if "rawInput" in card:
        card["rawInput"] = _as_a_double(card["rawInput"])


def test_EXE_2_a_bridge_rounding_integers_past_2_53_is_caught_by_a_row() -> None:
    """EXE-2: a Node bridge reading arguments with JSON.parse shows 9007199254740993 as
    ...992; no random program draws such an integer, so it passed 200 programs. Section 12 now
    has a row with one, and the report names JavaScript's reading."""
    bridge = lambda: BridgeOnTheModel(_raw_input_rounded, "a bridge rounding big integers")  # noqa: E731
    report = run_conformance(bridge, examples=1, seed_value=1, show_progress=False)
    assert report.divergence is not None
    assert report.divergence.rule_id == "EXE-2", report.divergence.what
    assert "9007199254740993" in report.divergence.what, report.divergence.what


def test_ACP_1_strict_validation_runs_on_the_pinned_acp_package() -> None:
    """ACP-1: what counts as strictly valid ACP is the pinned agent-client-protocol's schema
    and round trip, and SPEC.md section 12 names its version; the environment checking a bridge
    runs that version, and the dependency range admits only its minor series."""
    root = Path(__file__).resolve().parent.parent
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (pinned,) = [
        pin.split("==")[1]
        for pin in project["optional-dependencies"]["dev"]
        if pin.startswith("agent-client-protocol==")
    ]
    assert importlib.metadata.version("agent-client-protocol") == pinned
    major_minor = ".".join(pinned.split(".")[:2])
    assert (
        f"agent-client-protocol>={pinned},<0.{int(pinned.split('.')[1]) + 1}"
        in project["dependencies"]
    )
    spec = (root / "SPEC.md").read_text(encoding="utf-8")
    assert re.search(rf"`agent-client-protocol`, {re.escape(major_minor)}\)", spec)


@pytest.mark.no_cover
def test_PROTO_1_conform_resets_one_target_object_for_many_programs() -> None:
    """PROTO-1: the tutorial tells a bridge wrapper that `reset` is called again on the same
    object before each program, so one starting a bridge process in `reset` must end the last
    one there (it said only that `close` ends it: a Node bridge wrapped so left one process
    running per program)."""
    resets: list[int] = []

    class Counting(ModelTarget):
        def reset(self, config: LoopConfig) -> frozenset[str]:
            resets.append(id(self))
            return super().reset(config)

    report = run_conformance(Counting, examples=3, seed_value=1, show_progress=False)
    assert report.conformant
    assert max(resets.count(target) for target in set(resets)) >= 3
