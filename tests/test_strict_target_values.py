"""Values a strict target (its own JSON reader and writer) breaks on, from conform's side: what
its report says about them, and that the report and the case it saves stay readable.

A loop that writes a lone surrogate as U+FFFD in a key, or quotes a missing required key with a
simpler escaper than Python's `repr`, is told what it changed (`value_notes`); a report quoting
a lone surrogate is printed, escaped, where it ended in a traceback (exit 3); and a case whose
shrunk arguments or blame hold one is replayable, where `replay` refused it (SAFE-4).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from loopspec.model.commands import ModelReplies, SubmitUser
from loopspec.model.config import LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.presented import presentation_rule
from loopspec.properties.conformance.reduce import smaller_candidates
from loopspec.properties.conformance.run import case_fields
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.conformance.value_notes import value_notes
from loopspec.properties.stateful.strategies import TOOLS

ROOT = Path(__file__).resolve().parents[1]


def _card(raw_input: dict[str, object], title: str = "grep") -> dict[str, object]:
    update = {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": title}
    return {"method": "session/update", "params": {"update": {**update, "rawInput": raw_input}}}


def test_PROTO_1_a_key_whose_lone_surrogate_became_U_FFFD_is_named() -> None:
    """The note names the replaced key: the notes looked only at values under keys both sides
    share, so a key the target changed got the bare diff."""
    model = _card({"pattern": "TODO", "\udfff": True})
    target = _card({"pattern": "TODO", "\ufffd": True})
    notes = value_notes(
        Observation(True, presented=(model,)), Observation(True, presented=(target,))
    )
    assert any("lone surrogate U+DFFF" in note and "rawInput, a key" in note for note in notes)


def test_TEXT_1_missing_keys_quoted_otherwise_than_repr_get_a_note() -> None:
    """A target writing the missing keys with a simpler escaper than Python's repr (a raw NUL,
    `ascii`'s escape of a printable letter) is told how the wording quotes them."""
    want = "Error: invalid input for tool preread: missing required 'n\u00e4me', 'a\\x00b'"
    for got in (
        "Error: invalid input for tool preread: missing required 'n\\xe4me', 'a\\x00b'",
        "Error: invalid input for tool preread: missing required 'n\u00e4me', 'a\x00b'",
    ):
        event = {"type": "tool/result", "data": {"text": want}}
        written = {"type": "tool/result", "data": {"text": got}}
        notes = value_notes(
            Observation(True, events=(event,)), Observation(True, events=(written,))
        )
        assert any("as Python's repr writes a string" in note for note in notes), got


def test_PROTO_1_a_report_quoting_a_lone_surrogate_is_printed_escaped() -> None:
    """The CLI's streams write a lone surrogate as its escape: a counterexample whose title held
    one ended in a UnicodeEncodeError traceback (exit 3) on a UTF-8 stdout."""
    program = (
        "from loopspec.properties.cli.main import _escape_what_the_output_cannot_encode\n"
        "_escape_what_the_output_cannot_encode()\n"
        "print('title Read a\\udc00.txt')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        env={"PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8", "PATH": ""},
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == "title Read a\\udc00.txt\n"


def _holds_lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(char) <= 0xDFFF for char in text)


def test_SAFE_4_a_saved_case_never_holds_a_lone_surrogate_as_a_character() -> None:
    """Shrunk arguments and the blame a case records write a lone surrogate as its escape: the
    shrinker wrote `{"pattern":"","\\udfff":true}` with the character itself, and the blame
    quoted a title holding one, so `replay` refused the case conform had just saved."""
    config = LoopConfig(tools=(ToolSpec("grep", required_keys=("pattern",)),))
    call = ToolCallBlock("c1", "grep", '{"pattern":"TODO","\\udfff":true}')
    program = (SubmitUser("go"), ModelReplies((call,)))
    shrunk = [
        command.tool_calls[0].arguments
        for _, candidate in smaller_candidates(config, program)
        for command in candidate
        if isinstance(command, ModelReplies) and command.tool_calls
    ]
    assert any(arguments != call.arguments for arguments in shrunk)
    assert not any(map(_holds_lone_surrogate, shrunk)), shrunk
    # The escape reads back as the same key.
    assert any("\udfff" in json.loads(arguments) for arguments in shrunk)
    document = case_fields(
        {}, rule="VIEW-4", what="the title names a\udc00.txt", config=config, commands=program
    )
    text = json.dumps(document, ensure_ascii=False)
    assert not _holds_lone_surrogate(text)
    assert "a\\udc00.txt" in document["what"]


def _blame_of_a_retitled_card(tool: str, arguments: str, title: str) -> tuple[str, str] | None:
    """What conform blames a card for whose title the target wrote as `title`, the model's card
    of one `tool` call with `arguments` otherwise."""
    target = ModelTarget()
    target.reset(LoopConfig(tools=TOOLS))
    target.apply(SubmitUser("go"))
    observed = target.apply(ModelReplies((ToolCallBlock("c1", tool, arguments),)))
    (card,) = observed.presented or ()
    retitled = copy.deepcopy(card)
    retitled["params"]["update"]["title"] = title
    recorded = [event for event in observed.events if event["type"] == "tool/call"]
    return presentation_rule([card], [retitled], recorded)


def test_VIEW_4_a_title_whose_lone_surrogate_was_replaced_is_not_told_about_relative_paths() -> (
    None
):
    """The blame says the title keeps the path's lone surrogate, where it explained when a path
    is made relative, which the target had not got wrong."""
    found = _blame_of_a_retitled_card("read", '{"file_path":"a\\udc00.txt"}', "Read a\ufffd.txt")
    assert found is not None
    rule, why = found
    assert rule == "VIEW-4"
    assert "its lone surrogate too" in why
    assert "made relative" not in why


@pytest.mark.parametrize(
    ("replacement", "said"),
    [("?", "'?' in its place"), ("\ufffd", "U+FFFD in its place"), ("", "nothing in its place")],
)
def test_VIEW_2_a_bash_title_that_lost_its_lone_surrogate_says_so(
    replacement: str, said: str
) -> None:
    """A bash card's title is its command; a target whose title lost the command's lone
    surrogate (replaced, or dropped) got 'the card is the presenter's view of the call's
    arguments', which names nothing the target got wrong."""
    found = _blame_of_a_retitled_card("bash", '{"command":"echo a\\udc00"}', "echo a" + replacement)
    assert found is not None
    rule, why = found
    assert rule == "VIEW-2"
    assert "which hold the lone surrogate U+DC00" in why
    assert f"the model's title keeps it (\"echo a\\udc00\"), the target's has {said}" in why
    assert "write it in the JSON as the escape \\udc00" in why
