"""`impl` against the model under random command programs (rules MODEL-1, LOG-8, RW-1, ACP-1)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import attrs
import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

from loopspec.model.events import AssistantMessageRecorded
from loopspec.model.state import LoopState
from loopspec.model.transitions import TRANSITIONS, step
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.conformance.impl_adapter import impl_adapter
from loopspec.properties.stateful.impl_machine import CONFORMANCE_HITS, compare, conformance_machine

ImplConformance = conformance_machine(impl_adapter, "ImplConformance")


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_LOG_8_RW_1_impl_matches_the_model_step_for_step() -> None:
    """Every step: same refusals, same durable log and commit units, history, views, runs.

    MODEL-1, MODEL-3: both refuse the same commands, and a refusal changes nothing.
    """
    CONFORMANCE_HITS.clear()
    profile = settings()
    # Reaching every row and refusal kind is a property of the generator at this budget, so it
    # is checked on a fixed sequence of examples (as the model's own machine test does).
    budget = settings(
        profile,
        stateful_step_count=max(40, profile.stateful_step_count),
        max_examples=max(100, profile.max_examples),
        derandomize=True,
        database=None,
    )
    started = time.perf_counter()
    run_state_machine_as_test(ImplConformance, settings=budget)
    accepted = {(p, c) for (p, c, outcome), n in CONFORMANCE_HITS.items() if outcome == "accepted"}
    missing = [(t.phase, t.command) for t in TRANSITIONS if (t.phase, t.command) not in accepted]
    assert not missing, f"transitions never exercised: {missing}"
    refused = {outcome for (_p, _c, outcome) in CONFORMANCE_HITS if outcome != "accepted"}
    expected_refusals = {"MODEL-1", "EXE-1", "EXE-4", "HOOK-5", "ABORT-1", "DEC-2"}
    assert expected_refusals <= refused, f"refusals never exercised: {expected_refusals - refused}"
    steps = sum(CONFORMANCE_HITS.values())
    took = time.perf_counter() - started
    outcomes = Counter(outcome for (_p, _c, outcome) in CONFORMANCE_HITS.elements())
    print(f"conformance machine: {steps} commands in {took:.1f} s; {dict(outcomes)}")
    assert steps >= 2000


def test_LOG_8_finer_commits_are_allowed_except_inside_a_reply_unit(tmp_path: Path) -> None:
    """LOG-8: other implementations may commit event by event, but never split a reply unit."""
    state = LoopState(DEMO_CONFIG)
    adapter = impl_adapter(DEMO_CONFIG, tmp_path)
    for command in DEMO_COMMANDS:
        state = step(state, command)
        adapter.apply(command)
    seen = adapter.observe()
    adapter.close()
    compare(state, seen)
    inside_replies = {
        end
        for index, event in enumerate(state.log)
        if isinstance(event, AssistantMessageRecorded) and event.message.tool_calls
        for end in range(index + 1, index + 1 + len(event.message.tool_calls))
    }
    finest = tuple(end for end in range(1, len(seen.log) + 1) if end not in inside_replies)
    reply = min(inside_replies) - 1
    compare(state, attrs.evolve(seen, unit_ends=finest), exact_commits=False)
    with pytest.raises(AssertionError, match="LOG-8"):
        compare(state, attrs.evolve(seen, unit_ends=finest), exact_commits=True)
    split = tuple(sorted({*finest, reply + 2}))
    with pytest.raises(AssertionError, match="inside the reply"):
        compare(state, attrs.evolve(seen, unit_ends=split), exact_commits=False)
