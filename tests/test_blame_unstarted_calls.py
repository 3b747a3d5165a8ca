"""Blame for a body the target starts where the model ends the call with an error instead.

The model answers some calls at the gate, without running them: invalid input and an unknown
tool (EXE-5), a call whose approval was answered otherwise than allowed-once (DEC-2), a call a
hook denied or whose rewrite was refused (DEC-1). A target that runs such a call was blamed on
DEC-1, "it is answered with an error instead", whatever the error was; the report now names
the rule of the error's row in SPEC.md's wording table (section 9).
"""

from __future__ import annotations

import pytest

from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    SubmitUser,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

BASH = ToolSpec("bash", concurrency_safe=False, required_keys=("command",))
GUARDED = LoopConfig(tools=(BASH,), hooks=(HookSpec("guard", "PreToolUse", "bash"),))


class StartsAnyway(ModelTarget):
    """The model, but the last command also starts call c1's body with `arguments`."""

    def __init__(self, arguments: str, last: int) -> None:
        super().__init__()
        self.arguments, self.last, self.applied = arguments, last, 0

    def apply(self, command: Command) -> Observation:
        """Step the model; at the last command, start c1 too."""
        observed = super().apply(command)
        self.applied += 1
        if self.applied - 1 != self.last:
            return observed
        started = (*observed.executed, ("c1", self.arguments))
        return Observation(True, observed.events, observed.commits, started, atomic=observed.atomic)


def _blame(config: LoopConfig, program: list[Command], arguments: str) -> tuple[str, str]:
    replay = replay_case(lambda: StartsAnyway(arguments, len(program) - 1), config, program)
    assert replay.divergence is not None
    return replay.divergence.rule_id, replay.divergence.what


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("bash", "{}", "its input is invalid"),
        ("nope", '{"a":1}', "its tool is not registered"),
    ],
)
def test_EXE_5_running_a_call_with_invalid_input_or_an_unknown_tool_is_blamed_on_EXE_5(
    name: str, arguments: str, says: str
) -> None:
    """EXE-5: a call missing a required key ends as INVALID_TOOL_INPUT and one of a tool the
    configuration lacks as UNKNOWN_TOOL, neither running; a target that ran either was told
    DEC-1, though no hook denied anything."""
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", name, arguments),)),
    ]
    rule, what = _blame(LoopConfig(tools=(BASH,)), program, arguments)
    assert rule == "EXE-5", what
    assert says in what


def test_DEC_2_running_a_call_whose_approval_was_rejected_is_blamed_on_DEC_2() -> None:
    """DEC-2: only allowed-once runs an asked call; a target that ran one the user rejected was
    told DEC-1 ("it is answered with an error instead")."""
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command":"ls"}'),)),
        HookAnswers(Ask()),
        ApprovalAnswers("rejected"),
    ]
    rule, what = _blame(GUARDED, program, '{"command":"ls"}')
    assert rule == "DEC-2", what
    assert 'answered "rejected"' in what


def test_DEC_1_running_a_denied_call_is_still_blamed_on_DEC_1() -> None:
    """DEC-1: a denied call never runs; that blame is unchanged."""
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command":"ls"}'),)),
        HookAnswers(Deny("no")),
    ]
    rule, what = _blame(GUARDED, program, '{"command":"ls"}')
    assert rule == "DEC-1", what


LS = ToolCallBlock("c1", "bash", '{"command":"ls"}')
# Step 1 asks about call c1 and the user rejects it; step 2's reply reuses the id c1.
REJECTED_IN_STEP_1: list[Command] = [
    SubmitUser("go"),
    ModelReplies((LS,)),
    HookAnswers(Ask()),
    ApprovalAnswers("rejected"),
]


@pytest.mark.parametrize(
    ("step_2", "rule", "says"),
    [
        (
            [
                ModelReplies((ToolCallBlock("c2", "bash", '{"command":"pwd"}'), LS)),
                HookAnswers(Allow()),
                HookAnswers(Allow()),
                Abort(),
            ],
            "ABORT-1",
            "after an abort no call starts",
        ),
        (
            [ModelReplies((LS,)), HookAnswers(Ask()), Abort()],
            "DEC-2",
            'its approval was answered "cancelled"',
        ),
    ],
    ids=["allowed, behind an exclusive call", "asked again"],
)
def test_ABORT_1_a_call_id_reused_in_a_later_step_is_not_judged_by_the_earlier_calls_approval(
    step_2: list[Command], rule: str, says: str
) -> None:
    """ABORT-1, DEC-2: call ids repeat across steps, and the earlier call's approval is not the
    later one's. A target starting step 2's call c1 at an abort was told "it waits for approval
    (rejected)" (DEC-2) though no hook asked about it, or that its approval was answered
    'rejected' where the abort cancelled it: the lookups read step 1's c1."""
    program: list[Command] = [*REJECTED_IN_STEP_1, *step_2]
    assert replay_case(ModelTarget, GUARDED, program).divergence is None
    found, what = _blame(GUARDED, program, '{"command":"ls"}')
    assert found == rule, what
    assert says in what, what
    assert "rejected" not in what, what
