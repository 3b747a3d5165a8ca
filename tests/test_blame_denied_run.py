"""A call one hook denies and another allows, logged as denied and run anyway: the merge was
right, the run was not (DEC-1), and conform says so rather than blaming the merge (HOOK-2).

Conform's kill matrix found it: once programs were drawn a turn per Hypothesis step, the
first program to catch the `deny-still-executes` mutant had two hooks on its call, and the
report named HOOK-2 ("a deny outranks every other answer"), sending the reader to a merge
whose outcome the target's own log shows right.
"""

from __future__ import annotations

import pytest
from mutants import MUTANTS, MutantTarget

from loopspec.model import rewrite
from loopspec.model.commands import Allow, Command, Deny, HookAnswers, ModelReplies, SubmitUser
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.model.pure.decisions import RANK_ALLOW
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

GREP = ToolSpec("grep", concurrency_safe=True, required_keys=("pattern",))
TWO_HOOKS = LoopConfig(
    tools=(GREP,),
    hooks=(HookSpec("guard", "PreToolUse", "*"), HookSpec("rewriter", "PreToolUse", "*")),
)
RUNS_DENIED = next(mutant for mutant in MUTANTS if mutant.name == "deny-still-executes")
PROGRAM: list[Command] = [
    SubmitUser("find a"),
    ModelReplies((ToolCallBlock("c1", "grep", '{"pattern":"a"}'),)),
    HookAnswers(Deny("")),
    HookAnswers(Allow()),
]


class AllowOutranksDeny(ModelTarget):
    """The model, except that the hooks' answers merge to an allow whatever they are."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "merged_rank", lambda _ranks: RANK_ALLOW)
            return super().apply(command)


def test_DEC_1_a_call_logged_as_denied_and_run_anyway_is_not_a_wrong_merge() -> None:
    """DEC-1: the body ran though the target logged the deny that outranked the allow."""
    replay = replay_case(lambda: MutantTarget(RUNS_DENIED), TWO_HOOKS, PROGRAM)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "DEC-1", replay.divergence.what


def test_HOOK_2_a_call_run_as_allowed_over_a_deny_is_a_wrong_merge() -> None:
    """HOOK-2: a target that runs the call as allowed, over the deny, merged wrongly."""
    replay = replay_case(AllowOutranksDeny, TWO_HOOKS, PROGRAM)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "HOOK-2", replay.divergence.what
