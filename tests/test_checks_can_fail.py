"""The checks that once could not fail, each shown failing against the bug it is there for.

An audit found checks that held by construction: the model machine's MODEL-3 assert compared
the state with itself, the HOOK-3 completion-order test sorted the votes before merging, the
"presentation matches history" state check rendered the same value on both sides, and the
RW-4/ACP-3 tests fed the rewritten arguments in themselves. Each test here plants the bug the
check exists for and requires the check to report it (and, unplanted, to stay quiet).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import attrs
import pytest
from batches import seeded
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from mutants import _rewrite_only_in
from spec_helpers import clean, run, with_hooks

from loopspec.model import dispatch, handlers, rewrite, transitions
from loopspec.model.commands import (
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    HookAnswers,
    ModelReplies,
    SubmitUser,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.errors import TransitionRefused
from loopspec.model.events import Event, ToolCallRecorded
from loopspec.model.jsonvalue import FrozenMap, parse_arguments, thaw
from loopspec.model.messages import ToolCallBlock
from loopspec.model.presenters import present_call
from loopspec.model.replay import ApprovalShown, Shown, present_log
from loopspec.model.state import HookVote, LoopState, QueuedMessage
from loopspec.model.views import GenericCallView, TerminalCallView
from loopspec.properties.stateful import state_checks
from loopspec.properties.stateful.model_machine import ModelMachine
from loopspec.properties.stateful.strategies import WIDE_ARGUMENTS, WIDE_REWRITES

BASH = ToolCallBlock("c1", "bash", '{"command":"rm -rf build"}')
SAFE = FrozenMap({"command": "rm -rf ./build --one-file-system", "cwd": "/w"})
ASKER = with_hooks(HookSpec("asker", "PreToolUse", "bash"))
ASK_WITH_REWRITE: list[Command] = [
    SubmitUser("go"),
    ModelReplies((BASH,)),
    HookAnswers(Ask("check", SAFE)),
]
# No shrink phase: the test asks only whether the machine fails, with which rule, and the
# shrinking of its counterexample took 74 of the test's 74 s of CPU (the failing program is found
# 0.2 s in, by the 6th of 40 programs; over 20 seeds by the 3rd to the 23rd).
SHORT = settings(
    max_examples=40,
    stateful_step_count=20,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    report_multiple_bugs=False,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)


@contextmanager
def _planted(owner: object, name: str, value: object) -> Iterator[None]:
    saved = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


# -- MODEL-3: the machine compares the state with a copy taken before the step ------------------


def _refuse_after_touching(state: LoopState, command: SubmitUser) -> LoopState:
    """A refusal that first changed the state it was given (possible through object.__setattr__)."""
    object.__setattr__(state, "inbox", (*state.inbox, QueuedMessage("leaked")))
    msg = "refused after touching the state"
    raise TransitionRefused(msg, rule_id="ADJ-4", phase=state.phase.NAME, command=command.NAME)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_3_the_model_machine_catches_a_refusal_that_changed_the_state() -> None:
    """MODEL-3: with a handler that changes the state and then refuses, the machine fails;
    the machine's old check (`self.state is before`) held for this bug."""
    key = ("AwaitingModel", "SubmitUser")
    row = transitions._BY_PAIR[key]
    touching = attrs.evolve(row, handler=_refuse_after_touching)
    with (
        _planted(transitions, "_BY_PAIR", {**transitions._BY_PAIR, key: touching}),
        pytest.raises(AssertionError, match="MODEL-3"),
    ):
        run_state_machine_as_test(seeded(ModelMachine), settings=SHORT)


# -- HOOK-3: the merge orders votes itself --------------------------------------------------------


def test_HOOK_3_merging_in_arrival_order_is_caught() -> None:
    """HOOK-3: without the merge's own configured ordering, votes that arrive second-hook-first
    let the first configured hook win, and the completion-order property fails."""
    two = with_hooks(HookSpec("first", "PreToolUse", "bash"), HookSpec("second", "PreToolUse"))
    votes = (
        HookVote(0, "second", Allow(SAFE)),
        HookVote(0, "first", Allow(FrozenMap({"command": "echo one"}))),
    )
    assert parse_arguments(rewrite.resolve_call(BASH, votes, two).arguments) == SAFE
    with _planted(rewrite, "in_configured_order", lambda votes, _config: votes):
        assert parse_arguments(rewrite.resolve_call(BASH, votes, two).arguments) != SAFE


# -- RW-1: presentation is compared with history through the real readers ----------------------


def _present_originals(log: tuple[Event, ...], **kwargs: Any) -> list[Shown]:
    """A presentation reader that renders the model's original arguments of rewritten calls."""
    shown_from = tuple(
        attrs.evolve(e, arguments=e.rewrite.original_arguments)
        if isinstance(e, ToolCallRecorded) and e.rewrite is not None
        else e
        for e in log
    )
    return present_log(shown_from, **kwargs)


def test_RW_1_presentation_that_shows_the_original_is_caught_by_the_state_check() -> None:
    """RW-1, RW-4: a presentation reader showing the original of a rewritten call is reported by
    `presentation_matches_history`, while every log invariant stays quiet (the log is right)."""
    state = run(ASKER, ASK_WITH_REWRITE)
    assert clean(state.log) == []
    assert list(state_checks.presentation_matches_history(state)) == []
    with _planted(state_checks, "present_log", _present_originals):
        found = {v.rule_id for v in state_checks.presentation_matches_history(state)}
    assert found == {"RW-1", "RW-4"}


# -- RW-4 / ACP-3 through the model: the rewrite comes from the hook, not from the test ---------


def _approval_and_execution() -> tuple[object, object, str]:
    state = run(ASKER, [*ASK_WITH_REWRITE, ApprovalAnswers("allowed-once")])
    prompts = [s for s in present_log(state.log) if isinstance(s, ApprovalShown)]
    assert len(prompts) == 1
    tool_call = prompts[0].request["toolCall"]
    assert isinstance(tool_call, dict)
    return tool_call["rawInput"], prompts[0].arguments, state.executions[0].arguments


def test_RW_4_ACP_3_the_prompt_shows_and_approval_runs_what_the_hook_supplied() -> None:
    """RW-4, ACP-3: a hook asks and rewrites; the model's own log, replayed, prompts with the
    hook's input as rawInput, and approval runs exactly it (not the model's original)."""
    raw_input, shown, executed = _approval_and_execution()
    assert raw_input == thaw(SAFE) != json.loads(BASH.arguments)
    assert shown == SAFE
    assert json.loads(executed) == thaw(SAFE)


@pytest.mark.parametrize("readers", [{"history", "execution"}, {"history", "audit"}])
def test_RW_4_ACP_3_a_rewrite_that_misses_the_audit_or_the_tool_fails_that_test(
    readers: set[str],
) -> None:
    """RW-4, ACP-3: the test above fails when the rewrite misses the audit record (the prompt
    shows the original) or the execution (approval runs the original)."""
    with (
        _planted(handlers, "commit_reply_with_calls", _rewrite_only_in(readers)),
        pytest.raises(AssertionError),
    ):
        test_RW_4_ACP_3_the_prompt_shows_and_approval_runs_what_the_hook_supplied()


# -- SCHED-2: a gate that never opens is caught at the model level -------------------------------


def test_SCHED_2_a_gate_that_never_opens_is_caught_by_the_state_check() -> None:
    """SCHED-2: with may_start always false the batch hangs, and `batch_can_progress` says so."""
    program: list[Command] = [SubmitUser("go"), ModelReplies((BASH,))]
    plain = LoopConfig(tools=ASKER.tools)
    assert list(state_checks.batch_can_progress(run(plain, program))) == []
    with _planted(dispatch, "may_start", lambda *_: False):
        stuck = run(plain, program)
    assert [v.rule_id for v in state_checks.batch_can_progress(stuck)] == ["SCHED-2"]


# -- generated rewrites change the card kind, cwd and background flag ---------------------------


def _kind(tool: str, arguments: object) -> str:
    return type(present_call(tool, parse_arguments(str(arguments)))).__name__


def test_RW_1_generated_rewrites_change_card_kind_cwd_and_background() -> None:
    """RW-1: the machine's rewrites turn terminal cards generic and back, diff cards generic and
    back, and change cwd and run_in_background, so presentation is checked across kinds."""
    changes: set[tuple[str, str]] = set()
    for tool in ("bash", "write"):
        for original in WIDE_ARGUMENTS[tool]:
            for replacement in WIDE_REWRITES[tool]:
                before = _kind(tool, original)
                after = type(present_call(tool, replacement)).__name__
                changes.add((before, after))
    kinds = {TerminalCallView.__name__, GenericCallView.__name__, "DiffCallView"}
    assert {(a, b) for a in kinds for b in kinds if a != b} & changes >= {
        ("TerminalCallView", "GenericCallView"),
        ("GenericCallView", "TerminalCallView"),
        ("DiffCallView", "GenericCallView"),
        ("GenericCallView", "DiffCallView"),
    }
    keys = {
        key
        for replacement in WIDE_REWRITES["bash"]
        if isinstance(replacement, FrozenMap)
        for key in replacement
    }
    assert {"cwd", "run_in_background"} <= keys
