"""The reference model under random command programs (rules MODEL-1, MODEL-2, MODEL-3)."""

from __future__ import annotations

import pytest
from batches import seeded
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

from loopspec.model.transitions import TRANSITIONS
from loopspec.properties.stateful.model_machine import TRANSITION_HITS, ModelMachine


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_2_3_model_keeps_every_invariant_and_reaches_every_transition() -> None:
    """MODEL-1, MODEL-2, MODEL-3: programs keep every invariant and reach every table row."""
    TRANSITION_HITS.clear()
    profile = settings()
    # Reaching every row is a property of the generator at this budget. Each batch is a fixed
    # sequence of examples (`batches.py`); a rare row (an abort while tools run, an answered
    # approval) can be missed by one batch of 150 programs (measured: 0 to 20 hits per row
    # across seeds), so up to two more fixed batches may add to it. A row no batch reaches is a
    # generator that cannot reach it. Programs of 40 steps by default; a profile that asks for
    # longer programs than Hypothesis's default of 50 (`thorough`) gets them.
    steps = profile.stateful_step_count
    missing: list[tuple[str, str]] = []
    budget = settings(
        profile,
        stateful_step_count=40 if steps <= 50 else steps,
        max_examples=max(150, profile.max_examples),
        database=None,
    )
    for batch in range(3):
        run_state_machine_as_test(seeded(ModelMachine, batch), settings=budget)
        accepted = {(p, c) for (p, c, outcome) in TRANSITION_HITS if outcome == "accepted"}
        missing = [(t.phase, t.command) for t in TRANSITIONS]
        missing = [row for row in missing if row not in accepted]
        if not missing:
            break
    assert not missing, f"transitions never exercised in three batches: {missing}"
    steps = sum(TRANSITION_HITS.values())
    print(f"model machine: {steps} steps, {len(accepted)} of {len(TRANSITIONS)} transitions")
    assert steps >= 2000
