"""Blame for a loop that waits for PreToolUse hooks on a call whose input is invalid.

HOOK-4: calls with invalid arguments get no PreToolUse hook; EXE-5 (1): such a call (not a JSON
object, or missing a key its registered tool requires) ends as INVALID_TOOL_INPUT at the gate,
and no hook sees it. A loop that holds the reply back for a hook that matches such a call's
tool commits nothing where the model commits the reply at once: conform said only "ORD-1: the
target does not append the model's assistant/message". It now names HOOK-4 and the call.
"""

from __future__ import annotations

from typing import Any

import pytest

from loopspec.model.commands import Command, ModelReplies, SubmitUser
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

BASH = ToolSpec("bash", concurrency_safe=False, required_keys=("command",))
GUARDED = LoopConfig(tools=(BASH,), hooks=(HookSpec("guard", "PreToolUse", "bash|nope"),))


class WaitsForHooks(ModelTarget):
    """The model, but a reply's commit is held back as if its hooks had to answer first."""

    def apply(self, command: Command) -> Observation:
        """Step the model; report nothing for a reply."""
        observed = super().apply(command)
        if isinstance(command, ModelReplies) and observed.accepted:
            nothing: tuple[dict[str, Any], ...] = ()
            return Observation(True, nothing, ())
        return observed


@pytest.mark.parametrize(
    ("name", "arguments", "problem", "rule"),
    [
        ("bash", "{}", "missing required 'command'", "HOOK-4"),
        ("bash", "[1]", "the input must be a JSON object", "HOOK-4"),
        ("nope", "not json", "the input must be a JSON object", "EXE-5"),
    ],
)
def test_HOOK_4_EXE_5_a_reply_held_for_hooks_of_an_invalid_call_names_the_call(
    name: str, arguments: str, problem: str, rule: str
) -> None:
    """HOOK-4: the target waits for `guard` on a call no hook may see; the report names the
    call and why its input is invalid (it said ORD-1). EXE-5 where the call's tool is not
    registered: EXE-5 (1) says no hook sees such a call either, the clause a loop judging a
    registered tool's input alone breaks."""
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", name, arguments),)),
    ]
    replay = replay_case(WaitsForHooks, GUARDED, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == rule, replay.divergence.what
    assert f"call c1's input is invalid (invalid input for tool {name}: {problem})" in (
        replay.divergence.what
    )
