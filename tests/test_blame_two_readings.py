"""Two fresh bugs of session 20's table whose observation another bug shares: the report names
both, so either author finds theirs (session 21, h3's runs, h6's fix).

- a parallel cap counted one off (`<= max_parallel`) asks for a safe call's approval while
  maxParallel calls still run: blamed SCHED-2 ("asked only when the call could start"), as a
  loop that asks before the slot is free would be. The report now says the cap is full and
  names SCHED-1's off-by-one; since session 24 conform answers the approval allowed-once to
  tell the two apart, and names SCHED-1 where the target then starts the call at once.
- hooks let see a call to an unregistered tool whose arguments are not an object: shrunk to
  U+FEFF arguments, blamed EXE-2 (JavaScript's trim calls them blank). The report now also
  names EXE-5, for a Python loop that has no such reading.
"""

from __future__ import annotations

import attrs
import pytest
from fresh_bugs import CapOneOff

from loopspec.model import handlers
from loopspec.model.commands import (
    ApprovalAnswers,
    Ask,
    Command,
    HookAnswers,
    ModelReplies,
    Pass,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.model.rewrite import input_problem
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
LATE = HookSpec("late", "PreToolUse", ".*")


class AsksBeforeTheSlotIsFree(CapOneOff):
    """A loop that asks about a call while the cap is full but, approved, waits for a slot
    before it starts the call (here: the off-by-one cap's observation, without the start)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if isinstance(command, ApprovalAnswers):
            return attrs.evolve(observed, executed=())
        return observed


def _objects_checked_for_registered_tools(call: ToolCallBlock, config: LoopConfig) -> str | None:
    return input_problem(call, config) if config.tool(call.name) is not None else None


class HooksSeeUnregisteredNonObjects(ModelTarget):
    """The model, except that a call to an unregistered tool goes to its hooks whatever its
    arguments are."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(handlers, "input_problem", _objects_checked_for_registered_tools)
            return super().apply(command)


@pytest.mark.parametrize(
    ("target", "rule", "said"),
    [
        (
            AsksBeforeTheSlotIsFree,
            "SCHED-2",
            "with 1 safe call(s) running and maxParallel 1, it cannot start yet: a loop whose "
            "cap counts one off (SCHED-1) asks here too",
        ),
        (
            CapOneOff,
            "SCHED-1",
            "the target asks about call c2 and, approved, starts it while 1 safe call(s) run, "
            "where maxParallel 1 lets no more start: its cap counts one off",
        ),
    ],
    ids=["asks before the slot is free", "cap one off"],
)
def test_SCHED_2_an_approval_asked_with_the_cap_full_names_the_cap(
    target: type[ModelTarget], rule: str, said: str
) -> None:
    """SCHED-2, SCHED-1: the report says the cap holds the call back, and names SCHED-1; where
    the target, the approval answered allowed-once, starts the call at once, SCHED-1 it is."""
    config = LoopConfig(tools=(READ,), hooks=(LATE,), max_parallel=1)
    calls = (
        ToolCallBlock("c1", "read", '{"file_path":"a"}'),
        ToolCallBlock("c2", "read", '{"file_path":"b"}'),
    )
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies(calls),
        HookAnswers(Pass()),
        HookAnswers(Ask()),
    ]
    assert replay_case(ModelTarget, config, program).divergence is None
    replay = replay_case(target, config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == rule, replay.divergence.what
    assert said in replay.divergence.what, replay.divergence.what


def test_EXE_2_hooks_waited_on_for_an_unregistered_tool_name_EXE_5_too() -> None:
    """EXE-2, EXE-5: the report names both readings of the call."""
    config = LoopConfig(hooks=(LATE,))
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "missing_tool", "\ufeff"),)),
    ]
    assert replay_case(ModelTarget, config, program).divergence is None
    replay = replay_case(HooksSeeUnregisteredNonObjects, config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-2", replay.divergence.what
    assert "or the loop lets hooks see call c1, whose tool missing_tool is not registered" in (
        replay.divergence.what
    )


def test_SCHED_2_the_calls_before_an_approval_are_those_of_its_own_step() -> None:
    """SCHED-2, SCHED-1: call ids repeat across steps. Where step 1 ran a call c2 and step 2's
    reply is c1, c2, the report on c2's early approval read step 1's c2 as the call and said it
    "comes after no call still without a result", leaving out c1 and the full cap."""
    config = LoopConfig(tools=(READ,), hooks=(LATE,), max_parallel=1)
    first = ToolCallBlock("c1", "read", '{"file_path":"a"}')
    second = ToolCallBlock("c2", "read", '{"file_path":"b"}')
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((second,)),
        HookAnswers(Pass()),
        ToolFinishes("c2", ToolSucceeded("x")),
        ModelReplies((first, second)),
        HookAnswers(Pass()),
        HookAnswers(Ask()),
    ]
    assert replay_case(ModelTarget, config, program).divergence is None
    replay = replay_case(AsksBeforeTheSlotIsFree, config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "SCHED-2", replay.divergence.what
    what = replay.divergence.what
    assert "it comes after call c1 (read), still without a result" in what, what
    assert "a loop whose cap counts one off (SCHED-1) asks here too" in what, what
