"""Arguments blank but not empty (`" "`, `"\\n"`): EXE-2 reads them as `{}`; real dsh reads only
the empty string so and ends such a call INVALID_ARGS without running it.

conform reported that, under the dsh profile, as NO-RULE with a diff of `commit` fields, and
without a profile as ORD-3 (a result committed early). It is dsh's known divergence
`whitespace-arguments-invalid` (EXE-2), and without the profile it is blamed on EXE-2. The real
loop is replayed by tests/test_dsh_adapter.py (tests/regressions/dsh-whitespace-arguments-
invalid.json); here a stand-in ends such calls as dsh does.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from test_executed_arguments import _program

from loopspec.model.commands import Command, ModelReplies, SubmitUser
from loopspec.model.config import LoopConfig, ToolSpec
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles.dsh import PROFILE as DSH
from loopspec.properties.profiles.known import Profile
from loopspec.properties.profiles.runs import result_call, with_result_text

CONFIG = LoopConfig(
    tools=(
        ToolSpec("write", concurrency_safe=False),
        ToolSpec("read", concurrency_safe=True, required_keys=("path",)),
    ),
    max_parallel=2,
)
# What dsh 0.1.0-rc.8 writes for arguments that do not parse to an object.
DSH_NOT_AN_OBJECT = 'Error: invalid arguments: "arguments" must be an object'


class EndsCallsAsDshDoes(ModelTarget):
    """The model, except that a call whose arguments `misread` finds no object in ends at once
    as dsh ends it: INVALID_ARGS in dsh's words, its body never started."""

    def misread(self, arguments: str) -> bool:
        """Whether dsh finds no JSON in `arguments` that EXE-2 reads as `{}`."""
        return arguments != "" and not arguments.strip()

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self._originals: dict[str, str] = {}
        # Its history would carry the model's results: not what is compared here.
        return super().reset(config) - {"history"}

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ModelReplies):
            for call in command.tool_calls:
                if self.misread(call.arguments):
                    self._originals[call.id] = call.arguments
            # "[]" is no object to the model either: it ends the call at once, unrun.
            blocks = tuple(
                attrs.evolve(block, arguments="[]")
                if isinstance(block, ToolCallBlock) and block.id in self._originals
                else block
                for block in command.blocks
            )
            command = attrs.evolve(command, blocks=blocks)
        observed = super().apply(command)
        return attrs.evolve(observed, events=tuple(map(self._as_dsh, observed.events)))

    def _as_dsh(self, event: dict[str, Any]) -> dict[str, Any]:
        data = event.get("data", {})
        if event["type"] == "tool/call" and data["callId"] in self._originals:
            return {**event, "data": {**data, "arguments": self._originals[data["callId"]]}}
        if event["type"] == "assistant/message":
            content = [
                {**block, "arguments": self._originals[block["id"]]}
                if block.get("type") == "tool-call" and block["id"] in self._originals
                else block
                for block in data["message"]["content"]
            ]
            return {**event, "data": {**data, "message": {**data["message"], "content": content}}}
        if event["type"] == "tool/result" and result_call(event) in self._originals:
            changed = with_result_text(event, DSH_NOT_AN_OBJECT)
            changed["data"]["error"] = {"name": "ToolArgsError", "code": "INVALID_ARGS"}
            return changed
        return event


class EndsEveryCallAsInvalid(EndsCallsAsDshDoes):
    """A loop that fails every call as dsh fails one without an object: not dsh's divergence."""

    def misread(self, arguments: str) -> bool:
        return True


@pytest.mark.parametrize("arguments", [" ", "\n", "\t \r\n", "\u3000", "\x1c"])
def test_EXE_2_dsh_ending_blank_arguments_as_invalid_is_its_known_divergence(
    arguments: str,
) -> None:
    """EXE-2: under the dsh profile the call is `whitespace-arguments-invalid`, cut at the
    reply; without a profile it is blamed on EXE-2 (it read as ORD-3: a result committed
    before its turn), saying how the loop read the blank text."""
    known = replay_case(EndsCallsAsDshDoes, CONFIG, _program(arguments), DSH)
    assert known.divergence is None, known.divergence and known.divergence.what
    assert known.stopped_by == "whitespace-arguments-invalid"
    assert known.stopped_at == 1
    unknown = replay_case(EndsCallsAsDshDoes, CONFIG, _program(arguments))
    assert unknown.divergence is not None
    assert unknown.divergence.rule_id == "EXE-2", unknown.divergence.what
    assert "reads only the empty string as {}" in unknown.divergence.what


def test_EXE_2_the_divergence_excuses_only_blank_arguments_dsh_cannot_parse() -> None:
    """EXE-2: a loop that fails a call with arguments `{}` as invalid is a counterexample under
    the profile; one whose call has blank arguments that the model too finds invalid (the tool
    requires a key) is erased as dsh's invalid-input-error, not cut."""
    for arguments in ("{}", '{"path": "a"}'):
        found = replay_case(EndsEveryCallAsInvalid, CONFIG, _program(arguments), DSH)
        assert found.stopped_by is None
        assert found.divergence is not None, arguments
    required: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", " "),)),
        ModelReplies((TextBlock("ok"),)),
    ]
    replay = replay_case(EndsCallsAsDshDoes, CONFIG, required, DSH)
    assert replay.divergence is None, replay.divergence and replay.divergence.what
    assert replay.stopped_by is None
    assert "invalid-input-error" in replay.known


def test_EXE_2_random_programs_on_dsh_leave_out_calls_it_would_cut() -> None:
    """EXE-2: a reply calling a tool without required keys with blank but not empty arguments
    is left out of random programs under the profile (the cut would end them there); empty
    arguments, blank ones the model too finds invalid, and unregistered tools are sent."""
    avoided = [
        (name, arguments)
        for name in ("write", "read", "nope")
        for arguments in ("", " ", "\n", "{}")
        if DSH.avoids(ModelReplies((ToolCallBlock("c1", name, arguments),)), CONFIG)
    ]
    assert avoided == [("write", " "), ("write", "\n")]


def test_EXE_2_a_dsh_profile_without_the_divergence_blames_EXE_2() -> None:
    """EXE-2: under a dsh profile that does not know `whitespace-arguments-invalid` (as before
    it was found), the call is a counterexample blamed on EXE-2; it was NO-RULE, with a diff of
    `commit` fields a person could not act on."""
    kept = tuple(d for d in DSH.divergences if d.key != "whitespace-arguments-invalid")
    without = Profile("dsh-less", DSH.implementation, kept, DSH.capabilities)
    found = replay_case(EndsCallsAsDshDoes, CONFIG, _program(" "), without)
    assert found.divergence is not None
    assert found.divergence.rule_id == "EXE-2", found.divergence.what
    assert "blank" in found.divergence.what
