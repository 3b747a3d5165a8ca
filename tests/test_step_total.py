"""MODEL-1: `step` is total — every phase and every command give a state or one refusal."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from spec_helpers import run, with_hooks

from loopspec.model.commands import (
    COMMAND_NAMES,
    Ask,
    Command,
    Crash,
    HookAnswers,
    ModelReplies,
    Pass,
    SubmitUser,
)
from loopspec.model.config import HookSpec
from loopspec.model.errors import TransitionRefused
from loopspec.model.messages import ToolCallBlock
from loopspec.model.state import PHASE_NAMES, LoopState
from loopspec.model.transitions import TRANSITIONS, step, transition_for
from loopspec.properties.stateful.strategies import any_commands

CONFIG = with_hooks(HookSpec("h1", "PreToolUse", "bash"), HookSpec("h2", "PreToolUse", "bash"))
BASH = ToolCallBlock("c1", "bash", '{"command":"ls"}')
READ = ToolCallBlock("c2", "read", '{"file_path":"a"}')

STATES: dict[str, LoopState] = {
    "Idle": LoopState(CONFIG),
    "AwaitingModel": run(CONFIG, [SubmitUser("a")]),
    "Rewriting": run(CONFIG, [SubmitUser("a"), ModelReplies((BASH,))]),
    "Dispatching": run(
        CONFIG,
        [SubmitUser("a"), ModelReplies((READ, BASH)), HookAnswers(Ask()), HookAnswers(Pass())],
    ),
    "Crashed": run(CONFIG, [SubmitUser("a"), Crash()]),
}


def test_MODEL_1_every_phase_has_a_representative_state() -> None:
    """MODEL-1: the states below cover every phase of the closed Phase union."""
    assert sorted(STATES) == sorted(PHASE_NAMES)
    for name, state in STATES.items():
        assert name == state.phase.NAME


@pytest.mark.parametrize("phase", PHASE_NAMES)
@given(command=any_commands)
def test_MODEL_1_step_is_total(phase: str, command: Command) -> None:
    """MODEL-1: any command in any phase yields a state or a TransitionRefused, nothing else."""
    state = STATES[phase]
    outcome: LoopState | TransitionRefused
    try:
        outcome = step(state, command)
    except TransitionRefused as refusal:
        outcome = refusal
    if isinstance(outcome, TransitionRefused):
        assert outcome.phase == phase
        assert outcome.rule_id
    else:
        assert transition_for(phase, command.NAME) is not None


@pytest.mark.parametrize("phase", PHASE_NAMES)
@pytest.mark.parametrize("command", COMMAND_NAMES)
def test_MODEL_1_pairs_outside_the_table_are_refused(phase: str, command: str) -> None:
    """MODEL-1: the table is the whole truth: a pair missing from it is refused with MODEL-1."""
    row = transition_for(phase, command)
    if row is not None:
        assert row in TRANSITIONS
        return
    samples: dict[str, Command] = {
        "SubmitUser": SubmitUser("x"),
        "ModelReplies": ModelReplies(()),
        "HookAnswers": HookAnswers(Pass()),
    }
    sample = samples.get(command)
    if sample is None:
        return
    with pytest.raises(TransitionRefused) as refusal:
        step(STATES[phase], sample)
    assert refusal.value.rule_id == "MODEL-1"


@given(st.sampled_from(PHASE_NAMES), any_commands)
def test_MODEL_2_step_never_changes_its_input(phase: str, command: Command) -> None:
    """MODEL-2: the state passed to step is equal before and after, accepted or refused."""
    state = STATES[phase]
    before = (state.log, state.phase, state.inbox, state.commit_ends, state.executions)
    try:
        after = step(state, command)
        assert after.log[: len(state.log)] == state.log
    except TransitionRefused:
        pass
    assert (state.log, state.phase, state.inbox, state.commit_ends, state.executions) == before


@given(st.sampled_from(PHASE_NAMES), any_commands)
def test_MODEL_3_a_refusal_leaves_the_state_exactly_as_it_was(phase: str, command: Command) -> None:
    """MODEL-3: after a refusal the caller's state equals a copy taken before, field by field,
    and stepping it again gives the same outcome (nothing was half-applied)."""
    state = STATES[phase]
    copy = attrs.evolve(state)
    try:
        step(state, command)
    except TransitionRefused as refusal:
        first = (refusal.rule_id, refusal.message)
    else:
        return
    assert state == copy
    with pytest.raises(TransitionRefused) as again:
        step(state, command)
    assert (again.value.rule_id, again.value.message) == first
