"""MODEL-1: `step` is total — every phase and every command give a state or one refusal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mypy import api as mypy_api
from spec_helpers import run, with_hooks

from loopspec.model.commands import (
    COMMAND_NAMES,
    Abort,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec
from loopspec.model.errors import TransitionRefused
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.state import (
    ASKING,
    PHASE_NAMES,
    READY,
    SLOT_DECISIONS,
    SLOT_STATUSES,
    AwaitingModel,
    CallSlot,
    Crashed,
    Dispatching,
    HookVote,
    Idle,
    LoopState,
    PendingHook,
    Phase,
    PreparedResult,
    QueuedMessage,
    Rewriting,
)
from loopspec.model.transitions import TRANSITIONS, step, transition_for
from loopspec.properties.stateful.strategies import CONFIGS, any_commands, pre_verdicts

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


@pytest.mark.no_cover
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
        "ModelFails": ModelFails("overloaded"),
        "HookAnswers": HookAnswers(Pass()),
        "ApprovalAnswers": ApprovalAnswers("allowed-once"),
        "ToolFinishes": ToolFinishes("c1", ToolSucceeded("x")),
        "Abort": Abort(),
        "Crash": Crash(),
        "Recover": Recover(),
    }
    assert sorted(samples) == sorted(COMMAND_NAMES)
    sample = samples[command]
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


# -- every constructible state, reachable or not -------------------------------------------------

_PROGRAMS: tuple[list[Command], ...] = (
    [],
    [SubmitUser("a")],
    [SubmitUser("a"), ModelReplies((READ, BASH)), HookAnswers(Ask()), HookAnswers(Pass())],
    [SubmitUser("a"), ModelReplies((BASH,)), Crash()],
)
_REACHABLE_LOGS = tuple(run(CONFIG, program).log for program in _PROGRAMS)
_SMALL = st.integers(min_value=-1, max_value=4)
_IDS = st.sampled_from(["c1", "c2", "c900", "", "nope"])
_NAMES = st.sampled_from(["read", "bash", "missing_tool", ""])
_HOOKS = st.sampled_from(CONFIGS[1].hooks + CONFIGS[2].hooks)


def _calls() -> st.SearchStrategy[ToolCallBlock]:
    return st.builds(
        ToolCallBlock,
        id=_IDS.filter(bool),
        name=_NAMES.filter(bool),
        arguments=st.sampled_from(['{"command":"ls"}', '{"file_path":"a"}', "", "[1]"]),
    )


_replies = st.builds(
    ModelReplies,
    blocks=st.lists(st.one_of(_calls(), st.builds(TextBlock, st.just("t"))), max_size=3).map(tuple),
    finish=st.sampled_from(["completed", "max-tokens", "cancelled"]),
)
_results = st.one_of(
    st.none(),
    st.builds(
        PreparedResult,
        content=st.just((TextBlock("r"),)),
        is_error=st.booleans(),
        contexts=st.lists(st.just("ctx"), max_size=1).map(tuple),
    ),
)
_slots = st.builds(
    CallSlot,
    call_id=_IDS,
    name=_NAMES,
    arguments=st.sampled_from(['{"command":"ls"}', "[1]"]),
    call_seq=_SMALL,
    decision=st.sampled_from([*SLOT_DECISIONS, "bogus"]),
    reason=st.sampled_from([None, "why"]),
    concurrency_safe=st.booleans(),
    status=st.sampled_from([*SLOT_STATUSES, "bogus"]),
    approval_id=st.sampled_from([None, "", "approval-c1"]),
    result=_results,
)
_phases: st.SearchStrategy[Phase] = st.one_of(
    st.just(Idle()),
    st.just(Crashed()),
    st.builds(AwaitingModel, turn=_SMALL, step=_SMALL),
    st.builds(
        Rewriting,
        turn=_SMALL,
        step=_SMALL,
        reply=_replies,
        queue=st.lists(st.builds(PendingHook, call_index=_SMALL, hook=_HOOKS), max_size=3).map(
            tuple
        ),
        votes=st.lists(
            st.builds(
                HookVote, call_index=_SMALL, handler_id=st.just("guard"), verdict=pre_verdicts
            ),
            max_size=2,
        ).map(tuple),
    ),
    st.builds(
        Dispatching,
        turn=_SMALL,
        step=_SMALL,
        slots=st.lists(_slots, max_size=3).map(tuple),
        gate=_SMALL,
        cursor=_SMALL,
        aborting=st.sampled_from([None, "user", "parent", "bogus"]),
    ),
)
any_states: st.SearchStrategy[LoopState] = st.builds(
    LoopState,
    config=st.sampled_from(CONFIGS),
    log=st.sampled_from(_REACHABLE_LOGS),
    phase=_phases,
    next_turn=_SMALL,
    inbox=st.lists(st.builds(QueuedMessage, st.sampled_from(["", "q"])), max_size=2).map(tuple),
).map(lambda s: attrs.evolve(s, commit_ends=(len(s.log),) if s.log else ()))


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(max_examples=600)
@given(state=any_states, command=any_commands)
def test_MODEL_1_step_is_total_on_every_constructible_state(
    state: LoopState, command: Command
) -> None:
    """MODEL-1: on any well-typed state, reachable or not, step returns a state or raises
    exactly TransitionRefused (never IndexError, AssertionError, InvalidEventError, ...)."""
    try:
        step(state, command)
    except TransitionRefused as refusal:
        outcome = refusal
    else:
        return
    assert outcome.phase == state.phase.NAME
    assert outcome.rule_id


def test_MODEL_1_the_audits_two_crashes_are_refusals_now() -> None:
    """MODEL-1: a rewrite phase with nothing left to ask, and an asking slot without an
    approval id, are refused with MODEL-1 instead of raising inside a handler."""
    rewriting = attrs.evolve(STATES["Rewriting"], phase=Rewriting(1, 1, ModelReplies((BASH,)), ()))
    with pytest.raises(TransitionRefused) as empty_queue:
        step(rewriting, HookAnswers(Pass()))
    assert empty_queue.value.rule_id == "MODEL-1"
    dispatching = run(
        CONFIG, [SubmitUser("a"), ModelReplies((BASH,)), HookAnswers(Ask()), HookAnswers(Pass())]
    )
    phase = dispatching.phase
    assert isinstance(phase, Dispatching)
    assert phase.slots[0].status == ASKING
    asking = (attrs.evolve(phase.slots[0], approval_id=None),)
    broken = attrs.evolve(dispatching, phase=attrs.evolve(phase, slots=asking))
    with pytest.raises(TransitionRefused) as no_id:
        step(broken, ApprovalAnswers("allowed-once"))
    assert no_id.value.rule_id == "MODEL-1"


def _with_phase(name: str, **changes: Any) -> LoopState:
    """The representative state of phase `name`, its phase changed as `changes` say."""
    state = STATES[name]
    return attrs.evolve(state, phase=attrs.evolve(state.phase, **changes))


def _with_slot(**changes: Any) -> LoopState:
    """The representative dispatching state, its first slot changed as `changes` say."""
    phase = STATES["Dispatching"].phase
    assert isinstance(phase, Dispatching)
    return _with_phase(
        "Dispatching", slots=(attrs.evolve(phase.slots[0], **changes), *phase.slots[1:])
    )


# A command each phase's table row takes, so the state's consistency is what is refused.
_TAKEN: dict[str, Command] = {
    "Idle": SubmitUser("x"),
    "AwaitingModel": ModelReplies(()),
    "Rewriting": HookAnswers(Pass()),
    "Dispatching": Abort(),
}


@pytest.mark.parametrize(
    ("state", "problem"),
    [
        (attrs.evolve(STATES["Idle"], next_turn=0), "next turn 0 is below 1"),
        (_with_phase("AwaitingModel", turn=0), "turn 0, step 1 are not both >= 1"),
        (_with_phase("Rewriting", step=0), "turn 1, step 0 are not both >= 1"),
        (
            _with_phase("Rewriting", queue=(PendingHook(5, CONFIG.hooks[0]),)),
            "a pending hook names a call the reply does not have",
        ),
        (_with_phase("Dispatching", turn=0), "turn 0, step 1 are not both >= 1"),
        (_with_phase("Dispatching", gate=9), "cursor 0 or gate 9 is outside 0..2"),
        (_with_slot(call_id=""), "slot 0 has an empty call id or tool name"),
        (_with_slot(call_seq=-1), "slot 0 cites seq -1"),
        (_with_slot(status=READY, result=None), "slot 0 is ready without a result"),
    ],
    ids=[
        "next-turn",
        "awaiting-turn",
        "rewriting-step",
        "rewriting-call-index",
        "dispatching-turn",
        "dispatching-gate",
        "empty-call-id",
        "negative-seq",
        "ready-without-result",
    ],
)
def test_MODEL_1_an_inconsistent_constructed_state_is_refused_naming_the_problem(
    state: LoopState, problem: str
) -> None:
    """MODEL-1: each inconsistency `state_problem` knows is refused, with what it is, by a
    command the phase's table row takes. The totality test's drawn states hold these too; these
    fixed ones are what keep each branch in the coverage table (benchmarks/coverage_owners.py
    counts a test as drawn when its code or words name what draws programs)."""
    with pytest.raises(TransitionRefused) as refused:
        step(state, _TAKEN[state.phase.NAME])
    assert refused.value.rule_id == "MODEL-1"
    assert str(refused.value).endswith(f"the state is inconsistent: {problem}"), refused.value


def test_MODEL_1_mypy_rejects_a_row_whose_handler_takes_another_command(tmp_path: Path) -> None:
    """MODEL-1: the table is typed: a row pairing Crash with a SubmitUser handler is a type
    error, the row pairing it with its own command is not."""
    rows = tmp_path / "rows.py"
    rows.write_text(
        "from loopspec.model import handlers\n"
        "from loopspec.model.commands import Crash, SubmitUser\n"
        "from loopspec.model.transitions import Transition\n"
        'ok = Transition("Idle", SubmitUser, handlers.submit_user_when_idle, "", (), ())\n'
        'bad = Transition("Idle", Crash, handlers.submit_user_when_idle, "", (), ())\n',
        encoding="utf-8",
    )
    report, _errors, status = mypy_api.run(["--strict", "--no-error-summary", str(rows)])
    assert status == 1
    assert [line.split(":")[1] for line in report.splitlines() if ": error:" in line] == ["5"]
    assert "[arg-type]" in report
