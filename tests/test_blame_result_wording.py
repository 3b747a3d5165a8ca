"""Blame for a call's error result: judged as the model does but worded otherwise, or read
from arguments that are blank to one reader alone.

A call missing a required key ends as an INVALID_TOOL_INPUT error and one naming a tool the
configuration lacks as an UNKNOWN_TOOL error (EXE-5), in the words of SPEC.md's wording table
(section 9, TEXT-1). A loop that wrote the missing key as JavaScript quotes it ("command", not
Python's 'command') got the error right and the words wrong, and was told "a call the tool
cannot take ends as an INVALID_TOOL_INPUT error": what it did. The report now says the verdict
is right and the words are not, and quotes them.
"""

from __future__ import annotations

import json

import attrs
import pytest

from loopspec.model.commands import (
    Abort,
    Command,
    ModelReplies,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

BASH = ToolSpec("bash", concurrency_safe=False, required_keys=("command",))


class RewordsResults(ModelTarget):
    """The model, with `old` replaced by `new` in the text of every tool result it appends."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__()
        self.old, self.new = old, new

    def apply(self, command: Command) -> Observation:
        """Step the model, then reword its results."""
        observed = super().apply(command)
        events = tuple(self._reworded(event) for event in observed.events)
        return attrs.evolve(observed, events=events)

    def _reworded(self, event: dict[str, object]) -> dict[str, object]:
        if event.get("type") != "tool/result":
            return event
        text = json.dumps(event)
        return dict(json.loads(text.replace(self.old, self.new)))


@pytest.mark.parametrize(
    ("arguments", "tool", "old", "new", "code"),
    [
        ("{}", "bash", "'command'", '\\"command\\"', "INVALID_TOOL_INPUT"),
        ('{"a":1}', "nope", "unknown tool", "no such tool", "UNKNOWN_TOOL"),
    ],
)
def test_TEXT_1_a_right_error_in_other_words_is_said_to_be_a_wording_fault(
    arguments: str, tool: str, old: str, new: str, code: str
) -> None:
    """TEXT-1: the report says the target's error is the right one (EXE-5 kept), that its
    words are not section 9's, and quotes the model's words. It named EXE-5, the order calls
    are judged in, which such a loop keeps: its words are TEXT-1's, as EXE-5 itself says."""
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", tool, arguments),)),
    ]
    replay = replay_case(lambda: RewordsResults(old, new), LoopConfig(tools=(BASH,)), program)
    assert replay.divergence is not None
    divergence = replay.divergence
    assert divergence.rule_id == "TEXT-1", divergence.what
    assert f"the target ends it as the {code} error it is (EXE-5)" in divergence.what
    assert "but not as SPEC.md section 9 words it: the text" in divergence.what
    assert old in divergence.what


def test_TEXT_1_ABORT_1_an_abort_s_error_named_otherwise_says_the_name_differs() -> None:
    """TEXT-1 (ABORT-1): a loop ending an aborted call as the ABORTED error it is, in section
    9's words, but naming the error `Error` (not `AbortError`) was told its text was not
    section 9's and sent to reread the text, which was right. The name is what differs."""
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command": "ls"}'),)),
        Abort(),
        ToolFinishes("c1", ToolSucceeded("done")),
    ]
    renamed = RewordsResults('"AbortError"', '"Error"')
    replay = replay_case(lambda: renamed, LoopConfig(tools=(BASH,)), program)
    assert replay.divergence is not None
    divergence = replay.divergence
    assert divergence.rule_id == "TEXT-1", divergence.what
    assert divergence.what.endswith(
        "in SPEC.md section 9's words, but its error info's name is \"Error\" where section "
        '9\'s row names it "AbortError"'
    ), divergence.what


def test_EXE_2_arguments_blank_to_python_alone_say_javascript_s_trim_keeps_them() -> None:
    """EXE-2: arguments of U+001C..U+001F and U+0085 alone are blank as Python's str.strip
    reads them, so {} (a read missing file_path); JavaScript's trim keeps them, so a loop
    reading blank its way found no JSON object. The report said "the call's arguments parse to
    another value here (blank means {}, ...)" and left the reader to find which characters; it
    now says these are blank to Python alone, as it says of U+FEFF, blank to JavaScript alone.
    A Rust loop reading blank as `trim().is_empty()` met the same (Rust's trim takes Unicode's
    White_Space, without U+001C..U+001F), and the report named JavaScript and Java alone."""
    read = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", "read", "\x1c\x1d\x1e\x1f\x85"),)),
    ]
    trims_as_javascript = RewordsResults(
        "missing required 'file_path'", "the input must be a JSON object"
    )
    replay = replay_case(lambda: trims_as_javascript, LoopConfig(tools=(read,)), program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-2", replay.divergence.what
    assert "blank as Python's str.strip reads them" in replay.divergence.what
    assert "JavaScript's trim keeps these characters" in replay.divergence.what
    assert "Rust's str::trim and char::is_whitespace keep U+001C..U+001F" in replay.divergence.what
    # A loop that only tests for "" (Python's `if arguments:`) is told its own bug too.
    assert "tests only for the empty string" in replay.divergence.what
