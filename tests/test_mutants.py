"""The conformance machine rejects every mutant, naming the rule it breaks (the kill matrix).

A conformance suite that passes everything proves nothing. Each mutant in `tests/mutants.py`
plants one bug real loops have; the machine must find it within a fixed budget and blame the
right rule. The correct implementations (the model itself here; `impl/` and the JavaScript loop
in their own tests) must pass the same machine.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from mutants import MUTANTS, Mutant, MutantTarget

from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.machine import conformance_machine
from loopspec.properties.conformance.target import ModelTarget

KILL_BUDGET = settings(
    max_examples=400,
    stateful_step_count=40,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.generate, Phase.shrink],
    suppress_health_check=list(HealthCheck),
)
KILL_MATRIX: list[str] = []


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_MODEL_1_every_mutant_is_caught_with_its_rule(mutant: Mutant) -> None:
    """MODEL-1, RW-1, RW-2, RW-4, HOOK-3, HOOK-4, ORD-3, ADJ-1, STEP-3, TURN-2, EXE-3, DEC-1:
    each planted bug is found and attributed to the rule it breaks."""
    started = time.monotonic()
    examples = 0

    def factory() -> MutantTarget:
        nonlocal examples
        examples += 1
        return MutantTarget(mutant)

    with pytest.raises(DivergenceFound) as found:
        run_state_machine_as_test(conformance_machine(factory), settings=KILL_BUDGET)
    seconds = time.monotonic() - started
    divergence = found.value.divergence
    KILL_MATRIX.append(
        f"{mutant.name:<34} {mutant.rule_id:<7} caught as {divergence.rule_id:<7} "
        f"{examples:>4} examples {seconds:6.1f} s  program of {len(found.value.program)}"
    )
    print("\n" + KILL_MATRIX[-1])
    assert divergence.rule_id == mutant.rule_id, divergence.what


def test_MODEL_1_the_model_passes_its_own_conformance_machine() -> None:
    """MODEL-1: control: the correct implementation (the model as a target) is never rejected."""
    run_state_machine_as_test(
        conformance_machine(ModelTarget),
        settings=settings(KILL_BUDGET, max_examples=100),
    )
