"""The conformance machine rejects every mutant, naming the rule it breaks (the kill matrix).

A conformance suite that passes everything proves nothing. Each mutant in `tests/mutants.py`
plants one bug real loops have; the machine must find it within a fixed budget and blame the
right rule. The correct implementations (the model itself here; `impl/` and the JavaScript loop
in their own tests) must pass the same machine.

The kill test runs generation only: what it times is how fast random programs find each bug,
and the rule is that of the first failing program. Shrinking is checked once, on one mutant
(`test_MODEL_1_shrinking_keeps_the_rule_a_mutant_broke`), and timed separately; the blame
matrix (`tests/test_blame_matrix.py`) shrinks more. The matrix is printed with `-s`.
"""

from __future__ import annotations

import statistics
import time

import pytest
from batches import seeded
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from minimality import removable_parts
from mutants import MUTANTS, Mutant, MutantTarget

from loopspec.properties.conformance.command_codec import command_to_json
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.machine import conformance_machine
from loopspec.properties.conformance.run import reduce_counterexample

KILL_BUDGET = settings(
    max_examples=400,
    stateful_step_count=40,
    database=None,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)
SHRINK_BUDGET = settings(KILL_BUDGET, phases=[Phase.generate, Phase.shrink])
# Mutant name -> (examples until the first failing program, CPU seconds to find it).
KILLS: dict[str, tuple[int, float]] = {}


def _kill(mutant: Mutant, budget: settings) -> tuple[DivergenceFound, int, float]:
    """Run the machine on `mutant` until it diverges: the divergence, examples, CPU seconds."""
    examples = 0

    def factory() -> MutantTarget:
        nonlocal examples
        examples += 1
        return MutantTarget(mutant)

    started = time.process_time()
    with pytest.raises(DivergenceFound) as found:
        run_state_machine_as_test(seeded(conformance_machine(factory)), settings=budget)
    return found.value, examples, time.process_time() - started


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_MODEL_1_every_mutant_is_caught_with_its_rule(mutant: Mutant) -> None:
    """MODEL-1, RW-1, RW-2, RW-4, HOOK-3, HOOK-4, ORD-3, ADJ-1, STEP-3, TURN-2, EXE-3, DEC-1,
    ABORT-2, ABORT-3, REC-1: each planted bug is found and attributed to the rule it breaks."""
    found, examples, seconds = _kill(mutant, KILL_BUDGET)
    divergence = found.divergence
    KILLS[mutant.name] = (examples, seconds)
    # The program as found, not shrunk: conform cuts a shrunk one down the same way (MODEL-1,
    # tests/test_minimal_cases.py), and a longer program asks more of the cutting.
    started = time.process_time()
    reduced = reduce_counterexample(lambda: MutantTarget(mutant), found)
    cutting = time.process_time() - started
    print(
        f"\n{mutant.name:<34} {mutant.rule_id:<7} caught as {divergence.rule_id:<7} "
        f"{examples:>4} examples {seconds:6.2f} s CPU  program of {len(found.program)}, "
        f"cut down to {len(reduced.program)} in {reduced.replays} replays, {cutting:.2f} s CPU"
    )
    assert divergence.rule_id in mutant.blamed, divergence.what
    assert reduced.divergence.rule_id == divergence.rule_id, reduced.divergence.what
    program = reduced.program
    assert (
        removable_parts(lambda: MutantTarget(mutant), reduced.config, program, divergence.rule_id)
        == []
    ), [command_to_json(command) for command in program]


def test_MODEL_1_kill_matrix_summary() -> None:
    """The kill matrix's totals: median examples and CPU seconds to a kill (generation only).

    Printed for the record (`-s`); it asserts only that every mutant was killed in this run,
    never a time. Runs after the kill tests (file order), and skips when they were deselected.
    """
    if len(KILLS) < len(MUTANTS):
        pytest.skip("the kill tests did not all run in this session")
    examples = [kill[0] for kill in KILLS.values()]
    seconds = [kill[1] for kill in KILLS.values()]
    print(
        f"\nkill matrix: {len(KILLS)} mutants; median {statistics.median(examples):g} examples"
        f" (max {max(examples)}), median {statistics.median(seconds):.2f} s CPU"
        f" (max {max(seconds):.2f} s), generation only"
    )


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_shrinking_keeps_the_rule_a_mutant_broke() -> None:
    """MODEL-1: shrinking a mutant's failing program keeps the rule it broke (timed apart)."""
    mutant = next(m for m in MUTANTS if m.name == "completion-order-results")
    found, _examples, seconds = _kill(mutant, SHRINK_BUDGET)
    print(f"\nshrinking {mutant.name}: {seconds:.2f} s CPU, program of {len(found.program)}")
    assert found.divergence.rule_id == mutant.rule_id, found.divergence.what


# The control, the correct implementation (the model as a target) never rejected, is
# test_generation_reach: its 200 programs run this machine on the model with this budget's steps.
