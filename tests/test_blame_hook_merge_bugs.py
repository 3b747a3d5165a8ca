"""Wrong merges of several PreToolUse answers, blamed on the rule their author must fix.

Session 21 wrote more wrong loops outside the project (copies of `impl/`, each with one bug) and
ran `loopspec conform` on each. Two merges of one call's hook answers were blamed elsewhere:

- the last hook to answer decides the input, so a later passthrough erases an earlier hook's
  input (Claude Code #15897): where that input is one the tool cannot take, the model refuses
  the call (HOOK-6) and the loop asks the user about the model's own input instead — read as an
  approval asked before the call could start (SCHED-2), then as HOOK-6 until session 39, when
  the call made again with an input its tool takes showed that input erased too (HOOK-3; a
  loop that judges no input, and drops only one it cannot take, is HOOK-6's);
- an explicit allow skips the prompt another hook asked for: read as a loop that never asks
  (DEC-2) where the merge is what is wrong (HOOK-2: deny > ask > allow > pass).

Each bug is planted in the model (the rest of the model unchanged) and a fixed program that shows
it is replayed. A loop that ignores every hook's input, or never asks at all, shows the same in
these programs: the sentence names both causes, and the single-hook controls keep their rules.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from loopspec.model import rewrite
from loopspec.model.commands import (
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    HookAnswers,
    HookAudit,
    ModelReplies,
    Pass,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.model.pure.decisions import RANK_ALLOW, RANK_ASK, merged_rank, winning_rewrite
from loopspec.model.rewrite import Resolution, resolve_call
from loopspec.model.state import DENY
from loopspec.model.wording import REWRITE_REFUSED_WORDS
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
TWO_PRE_HOOKS = LoopConfig(
    tools=(READ,),
    hooks=(HookSpec("everything", "PreToolUse"), HookSpec("late", "PreToolUse", ".*")),
)
ONE_PRE_HOOK = LoopConfig(tools=(READ,), hooks=(HookSpec("everything", "PreToolUse"),))
READ_CALL = ToolCallBlock("c1", "read", '{"file_path":"a.txt"}')


def _last_answer_decides(supplied: tuple[bool, ...], merged: int) -> int:
    # The input is the last answer's: one that supplies none leaves the model's own.
    return winning_rewrite(supplied, merged) if supplied and supplied[-1] else -1


def _allow_skips_the_prompt(ranks: tuple[int, ...]) -> int:
    strictest = merged_rank(ranks)
    return RANK_ALLOW if strictest == RANK_ASK and RANK_ALLOW in ranks else strictest


class PassthroughErasesRewrite(ModelTarget):
    """The model, except that a hook answering after a rewriting one without an input erases it."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "winning_rewrite", _last_answer_decides)
            return super().apply(command)


class AllowOutranksAsk(ModelTarget):
    """The model, except that an explicit allow wins over another hook's ask."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "merged_rank", _allow_skips_the_prompt)
            return super().apply(command)


class IgnoresSuppliedInputs(ModelTarget):
    """Control: the model, except that no hook's input is ever applied."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "winning_rewrite", lambda _supplied, _merged: -1)
            return super().apply(command)


class FirstRewriteWins(ModelTarget):
    """Control: the model, except that the first hook to supply an input wins."""

    def apply(self, command: Command) -> Observation:
        def first(supplied: tuple[bool, ...], merged: int) -> int:
            last = winning_rewrite(supplied, merged)
            return supplied.index(True) if last >= 0 else last

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "winning_rewrite", first)
            return super().apply(command)


class NeverAsks(ModelTarget):
    """Control: the model, except that an ask is run as an allow."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "merged_rank", lambda r: min(merged_rank(r), RANK_ALLOW))
            return super().apply(command)


class DropsUnacceptableInputs(ModelTarget):
    """Control: the model, except that an input the tool cannot take is dropped, not refused."""

    def apply(self, command: Command) -> Observation:
        def keeps_the_models(call: ToolCallBlock, votes: Any, config: LoopConfig) -> Resolution:
            resolution = resolve_call(call, votes, config)
            if resolution.decision != DENY or REWRITE_REFUSED_WORDS not in str(resolution.reason):
                return resolution
            dropped = [
                attrs.evolve(vote, verdict=attrs.evolve(vote.verdict, updated_input=None))
                if isinstance(vote.verdict, Allow | Ask)
                else vote
                for vote in votes
            ]
            return resolve_call(call, tuple(dropped), config)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "resolve_call", keeps_the_models)
            return super().apply(command)


class LeavesOutAnIdentitySidecar(ModelTarget):
    """Control: the model, except that an input equal to the model's arguments is not recorded."""

    def apply(self, command: Command) -> Observation:
        def unrecorded(call: ToolCallBlock, votes: Any, config: LoopConfig) -> Resolution:
            resolution = resolve_call(call, votes, config)
            if resolution.sidecar is None or resolution.arguments != call.arguments:
                return resolution
            return attrs.evolve(resolution, sidecar=None)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "resolve_call", unrecorded)
            return super().apply(command)


def _program(*answers: HookAnswers) -> list[Command]:
    return [SubmitUser("hi"), ModelReplies((READ_CALL,)), *answers]


UNACCEPTABLE_ASK = HookAnswers(Ask(updated_input="not an object"))
UNACCEPTABLE_ALLOW = HookAnswers(Allow(updated_input="not an object"))

PROGRAMS: list[tuple[str, type[ModelTarget], LoopConfig, list[Command], str]] = [
    (
        "a passthrough erases an unacceptable ask's input: the model input is asked about",
        PassthroughErasesRewrite,
        TWO_PRE_HOOKS,
        _program(UNACCEPTABLE_ASK, HookAnswers(Pass())),
        "HOOK-3",
    ),
    (
        "a plain allow erases an unacceptable ask's input: the model input is asked about",
        PassthroughErasesRewrite,
        TWO_PRE_HOOKS,
        _program(UNACCEPTABLE_ASK, HookAnswers(Allow())),
        "HOOK-3",
    ),
    (
        "a passthrough erases an unacceptable allow's input: the model input runs",
        PassthroughErasesRewrite,
        TWO_PRE_HOOKS,
        _program(UNACCEPTABLE_ALLOW, HookAnswers(Pass())),
        "HOOK-3",
    ),
    (
        "control: every input ignored, one hook's unacceptable ask",
        IgnoresSuppliedInputs,
        ONE_PRE_HOOK,
        _program(UNACCEPTABLE_ASK),
        "RW-2",
    ),
    (
        "control: the first input wins over a later unacceptable one, which the model refuses",
        FirstRewriteWins,
        TWO_PRE_HOOKS,
        _program(HookAnswers(Ask(updated_input={"file_path": "b"})), UNACCEPTABLE_ALLOW),
        "HOOK-3",
    ),
    (
        "an allow before an ask skips the prompt",
        AllowOutranksAsk,
        TWO_PRE_HOOKS,
        _program(HookAnswers(Allow()), HookAnswers(Ask())),
        "HOOK-2",
    ),
    (
        "an allow after an ask skips the prompt",
        AllowOutranksAsk,
        TWO_PRE_HOOKS,
        _program(HookAnswers(Ask()), HookAnswers(Allow())),
        "HOOK-2",
    ),
    (
        "an allow audited approve (dsh's word) before an ask skips the prompt",
        AllowOutranksAsk,
        TWO_PRE_HOOKS,
        _program(HookAnswers(Allow(), HookAudit(decision="approve")), HookAnswers(Ask())),
        "HOOK-2",
    ),
    (
        "control: a loop that never asks, the only hook asking",
        NeverAsks,
        ONE_PRE_HOOK,
        _program(HookAnswers(Ask())),
        "DEC-2",
    ),
    (
        "control: a loop that never asks, the other hook passing",
        NeverAsks,
        TWO_PRE_HOOKS,
        _program(HookAnswers(Ask()), HookAnswers(Pass())),
        "DEC-2",
    ),
    (
        "control: an unacceptable input read as none, an acceptable one applied",
        DropsUnacceptableInputs,
        ONE_PRE_HOOK,
        _program(UNACCEPTABLE_ASK),
        "HOOK-6",
    ),
    (
        "control: the first input wins, equal to the last one merged into the model's arguments",
        FirstRewriteWins,
        TWO_PRE_HOOKS,
        [
            SubmitUser("hi"),
            ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a.txt","limit":1}'),)),
            HookAnswers(Allow(updated_input={"file_path": "a.txt", "limit": 1})),
            HookAnswers(Allow(updated_input={"file_path": "a.txt"})),
        ],
        "HOOK-3",
    ),
]


@pytest.mark.parametrize(
    ("name", "target", "config", "program", "rule"), PROGRAMS, ids=[p[0] for p in PROGRAMS]
)
def test_MODEL_1_a_wrong_merge_is_blamed_on_the_rule_its_author_must_fix(
    name: str, target: type[ModelTarget], config: LoopConfig, program: list[Command], rule: str
) -> None:
    """MODEL-1 (HOOK-6, HOOK-2): the first divergence names the rule the bug breaks."""
    replay = replay_case(target, config, program)
    assert replay.divergence is not None, "the bug was not found"
    assert replay.divergence.rule_id == rule, replay.divergence.what


def test_HOOK_3_the_report_names_the_hook_and_the_later_passthrough() -> None:
    """HOOK-3: the report names the hook whose input the model refuses, the hook after it that
    must not have erased it, and the input its tool takes erased too (the call made again)."""
    replay = replay_case(PassthroughErasesRewrite, TWO_PRE_HOOKS, PROGRAMS[0][3])
    assert replay.divergence is not None
    what = replay.divergence.what
    told = "an input its tool takes is dropped too"
    for named in ("hook everything", "call c1", "hook late answered after", "HOOK-3", told):
        assert named in what, what


IDENTITY_THEN_PASS = _program(
    HookAnswers(Allow(updated_input={"file_path": "a.txt"})), HookAnswers(Pass())
)
OTHER_INPUT_THEN_PASS = _program(
    HookAnswers(Allow(updated_input={"file_path": "b.txt"})), HookAnswers(Pass())
)


@pytest.mark.parametrize(
    "program",
    [IDENTITY_THEN_PASS, OTHER_INPUT_THEN_PASS],
    ids=["an identity input left unrecorded", "another input not applied"],
)
def test_HOOK_3_RW_2_an_input_a_later_passthrough_erased_names_the_passthrough(
    program: list[Command],
) -> None:
    """HOOK-3: an input left out after a later hook passed is reported with that hook:
    another input, kept out of every reader and the run, is the passthrough's erasure (HOOK-3,
    the words saying a loop ignoring every input reads so too); an identity input, whose
    missing sidecar alone shows, is too once the call made again with another input shows it
    erased (it read as RW-2, a loop leaving out an identity input's sidecar, on seeds 60 and 67
    of 50-69). RW-2: one hook alone names no other: its input went nowhere (round 18's Claude
    Code #79321, where RW-1 was named though every reader agreed)."""
    assert replay_case(ModelTarget, TWO_PRE_HOOKS, program).divergence is None
    replay = replay_case(PassthroughErasesRewrite, TWO_PRE_HOOKS, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "HOOK-3", replay.divergence.what
    hint = "hook late answered after hook everything without an input: a passthrough never"
    assert hint in replay.divergence.what, replay.divergence.what
    alone = replay_case(IgnoresSuppliedInputs, ONE_PRE_HOOK, program[:3])
    assert alone.divergence is not None
    assert alone.divergence.rule_id == "RW-2", alone.divergence.what
    assert "HOOK-3" not in alone.divergence.what, alone.divergence.what


def test_RW_2_an_identity_input_left_unrecorded_by_a_loop_applying_others_is_RW_2() -> None:
    """RW-2: a loop that applies a hook's input but records no sidecar when it equals the
    model's arguments: the call made again with another input shows it recorded, so the missing
    sidecar is what is wrong, not an erased input."""
    replay = replay_case(LeavesOutAnIdentitySidecar, TWO_PRE_HOOKS, IDENTITY_THEN_PASS)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "RW-2", replay.divergence.what
    assert "(equal to the model's own, which still gets one)" in replay.divergence.what


def test_HOOK_2_the_report_names_who_asked_and_who_allowed() -> None:
    """HOOK-2: the report names the asking and the allowing hook."""
    replay = replay_case(AllowOutranksAsk, TWO_PRE_HOOKS, PROGRAMS[5][3])
    assert replay.divergence is not None
    assert "hook late asked and hook everything allowed call c1" in replay.divergence.what


@pytest.mark.parametrize("program", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_MODEL_1_the_programs_pass_on_the_model(
    program: tuple[str, type[ModelTarget], LoopConfig, list[Command], str],
) -> None:
    """MODEL-1: control: without the bug, no program diverges."""
    _name, _target, config, commands, _rule = program
    assert replay_case(ModelTarget, config, commands).divergence is None


# c1's approval is rejected: an approval allowed-once would leave another reading, a loop that
# remembers it for the tool (DEC-2, tests/test_blame_fresh_bugs_round4.py).
ASKED_ALONE_FIRST: list[Command] = [
    SubmitUser("hi"),
    ModelReplies((READ_CALL,)),
    HookAnswers(Ask()),
    HookAnswers(Pass()),
    ApprovalAnswers("rejected"),
    ModelReplies((ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),)),
    HookAnswers(Allow()),
    HookAnswers(Ask()),
]


def test_HOOK_2_an_allow_over_an_ask_names_a_loop_that_never_asks_unless_it_asked() -> None:
    """HOOK-2, DEC-2: where one hook allowed and one asked, a loop that never asks at all
    skips the prompt as a wrong merge does: the report names both causes. Once the loop has
    asked for an earlier call, only the merge is wrong, and the report names it alone."""
    assert replay_case(ModelTarget, TWO_PRE_HOOKS, ASKED_ALONE_FIRST).divergence is None
    never = replay_case(NeverAsks, TWO_PRE_HOOKS, PROGRAMS[5][3])
    assert never.divergence is not None
    assert never.divergence.rule_id == "HOOK-2", never.divergence.what
    assert "or the loop never asks at all (DEC-2" in never.divergence.what
    merge = replay_case(AllowOutranksAsk, TWO_PRE_HOOKS, ASKED_ALONE_FIRST)
    assert merge.divergence is not None
    assert merge.divergence.rule_id == "HOOK-2", merge.divergence.what
    assert "hook late asked and hook everything allowed call c2" in merge.divergence.what
    assert "DEC-2" not in merge.divergence.what, merge.divergence.what


def test_DEC_2_an_allow_for_an_earlier_call_of_the_same_id_is_not_this_calls() -> None:
    """DEC-2: call ids repeat across steps. Where step 1's call c1 was allowed by one hook and
    step 2's c1 is asked about by the other, a loop that never asks was told HOOK-2 ("hook late
    asked and hook everything allowed call c1"): the allow was step 1's."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((READ_CALL,)),
        HookAnswers(Allow()),
        HookAnswers(Pass()),
        ToolFinishes("c1", ToolSucceeded("text")),
        ModelReplies((READ_CALL,)),
        HookAnswers(Pass()),
        HookAnswers(Ask()),
    ]
    assert replay_case(ModelTarget, TWO_PRE_HOOKS, program).divergence is None
    replay = replay_case(NeverAsks, TWO_PRE_HOOKS, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "DEC-2", replay.divergence.what
