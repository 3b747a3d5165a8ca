"""A sidecar or an approval reason worded wrong: the report shows the model's value and the
target's.

Session 21 wrote loops outside the project (copies of `impl/`) that record the sidecar's
`originalArguments` re-serialized (`json.dumps(json.loads(raw))`, a space after `:`), and that
join several hooks' reasons with `, `. conform named the right rules (RW-2, DEC-2) but said
only "the rewrite sidecar records every applied rewrite" and "approval/asked differs in
reason": the author had to diff the case by hand to see which part was wrong.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest

from loopspec.model import rewrite
from loopspec.model.commands import Allow, Ask, Command, HookAnswers, ModelReplies, SubmitUser
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
TWO_PRE_HOOKS = LoopConfig(
    tools=(READ,),
    hooks=(HookSpec("everything", "PreToolUse"), HookSpec("late", "PreToolUse", ".*")),
)
REPLY = ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a"}'),))


class ReserializesTheOriginal(ModelTarget):
    """The model, except that a sidecar's originalArguments is the model's arguments written
    again by Python's json.dumps."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events: list[dict[str, Any]] = json.loads(json.dumps(list(observed.events)))
        for event in events:
            sidecar = event["data"].get("rewrite") if event["type"] == "tool/call" else None
            if sidecar is not None:
                sidecar["originalArguments"] = json.dumps(json.loads(sidecar["originalArguments"]))
        return attrs.evolve(observed, events=tuple(events))


class JoinsReasonsWithCommas(ModelTarget):
    """The model, except that several hooks' reasons are joined with ', '."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "REASON_SEPARATOR", ", ")
            return super().apply(command)


def test_RW_2_a_wrong_original_shows_both_strings() -> None:
    """RW-2: the report quotes the model's original string and the target's."""
    program: list[Command] = [
        SubmitUser("hi"),
        REPLY,
        HookAnswers(Allow(updated_input={"file_path": "b"})),
        HookAnswers(Allow()),
    ]
    assert replay_case(ModelTarget, TWO_PRE_HOOKS, program).divergence is None
    replay = replay_case(ReserializesTheOriginal, TWO_PRE_HOOKS, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "RW-2", replay.divergence.what
    shown = [json.dumps(arguments) for arguments in ('{"file_path":"a"}', '{"file_path": "a"}')]
    assert f"the model's {shown[0]}, the target's {shown[1]}" in (replay.divergence.what)


def test_DEC_2_a_reason_joined_otherwise_shows_both() -> None:
    """DEC-2: the report says how reasons are joined and shows the model's and the target's."""
    program: list[Command] = [
        SubmitUser("hi"),
        REPLY,
        HookAnswers(Ask("one")),
        HookAnswers(Ask("two")),
    ]
    assert replay_case(ModelTarget, TWO_PRE_HOOKS, program).divergence is None
    replay = replay_case(JoinsReasonsWithCommas, TWO_PRE_HOOKS, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "DEC-2", replay.divergence.what
    what = replay.divergence.what
    assert 'joined by "; " in configured order' in what, what
    assert 'the model\'s "one; two", the target\'s "one, two"' in what, what


class AddsASidecarMember(ModelTarget):
    """The model, except that a sidecar carries a member of the target's own besides its two."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events: list[dict[str, Any]] = json.loads(json.dumps(list(observed.events)))
        for event in events:
            sidecar = event["data"].get("rewrite") if event["type"] == "tool/call" else None
            if sidecar is not None:
                sidecar["hookOutput"] = "rewrote a to b"
        return attrs.evolve(observed, events=tuple(events))


def test_RW_2_a_sidecar_member_of_the_targets_own_is_shown_not_its_equal_hook_list() -> None:
    """RW-2: a sidecar whose originalArguments and handlerIds are the model's but which holds
    a member of its own was reported as naming the wrong hooks, quoting two equal lists (the
    model's ['everything'], the target's ['everything']); the report shows both sidecars, as
    JSON writes them."""
    program: list[Command] = [
        SubmitUser("hi"),
        REPLY,
        HookAnswers(Allow(updated_input={"file_path": "b"})),
        HookAnswers(Allow()),
    ]
    replay = replay_case(AddsASidecarMember, TWO_PRE_HOOKS, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "RW-2", replay.divergence.what
    what = replay.divergence.what
    assert "the sidecar holds originalArguments and handlerIds, nothing else" in what, what
    assert '"hookOutput": "rewrote a to b"' in what, what
    assert "names every hook" not in what, what
