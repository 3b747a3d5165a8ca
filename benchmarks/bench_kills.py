"""Examples until each mutant's first failing program, over many fixed batches (issue #15, item 2).

Run by hand: `.venv/bin/python benchmarks/bench_kills.py [--seeds N] [--mutant NAME ...]`.

Issue #15's second target: generation leans on rewrites, several hooks, parallel calls,
approvals, aborts and crashes so that no mutant needs more than about 10 examples to fail.
`tests/test_mutants.py` measures that on one fixed batch, where a lucky or unlucky draw decides a
mutant's figure. This runs the same generation-only kill (the same budget, the conformance
machine on `tests/mutants.py`) on batches 0 to N-1 of `tests/batches.py` (batch 0 is the test's)
and prints, per mutant, the examples up to and including the first failing program: on batch 0,
the median and the worst over the batches, and how many batches did not kill it within the
budget; and the CPU seconds each kill took (generation only: no shrinking), their median per
mutant and, at the end, their median and worst over every kill. "About 10" is read as: every
mutant's median is at most 10 (MET, else MISSED); the worst single batch is printed beside it,
since a median says nothing of the tail.

A kill blamed on a rule the mutant does not break is counted as not killed, and named.

The examples to a kill depend on Hypothesis's first examples (the simplest continuation of each
new random prefix comes among them), so the table also gives, per mutant, how many of the
programs of a whole run (`--programs N`, drawn on the model from batch 0, then replayed on each
mutant) fail: one in how many, the generator's strength past its first examples.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import statistics
import sys
import time
from pathlib import Path

from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

import loopspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

# tests/ is on the path only from here on.
from batches import seeded
from mutants import MUTANTS, Mutant, MutantTarget
from test_mutants import KILL_BUDGET

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.machine import conformance_machine
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget

GOAL = 10  # median examples to the first failing program, per mutant


def load_every_loopspec_module() -> None:
    """Import all of loopspec first, as `tests/conftest.py` does, so the literals Hypothesis
    may draw from loaded modules (see `tests/batches.py`) are those of a test run."""
    for module in pkgutil.walk_packages(loopspec.__path__, "loopspec."):
        if module.name.rpartition(".")[2] != "__main__":
            importlib.import_module(module.name)


def examples_to_kill(mutant: Mutant, batch: int) -> tuple[int | None, str]:
    """Programs drawn from `batch` up to the first one `mutant` fails (None: none within the
    budget, or one blamed on a rule it does not break), and what was blamed."""
    examples = 0
    pin: dict[str, str] = {}

    def factory() -> MutantTarget:
        nonlocal examples
        if not pin:  # Hypothesis replays the failing program once: not a new example
            examples += 1
        return MutantTarget(mutant)

    machine = seeded(conformance_machine(factory, pin=pin), batch)
    try:
        run_state_machine_as_test(machine, settings=KILL_BUDGET)
    except DivergenceFound as found:
        rule_id = found.divergence.rule_id
        return (examples if rule_id in mutant.blamed else None), rule_id
    return None, "none"


def timed_kill(mutant: Mutant, batch: int) -> tuple[int | None, str, float]:
    """`examples_to_kill`, and the CPU seconds it took."""
    started = time.process_time()
    examples, rule_id = examples_to_kill(mutant, batch)
    return examples, rule_id, time.process_time() - started


def drawn_programs(count: int) -> list[tuple[LoopConfig, list[Command]]]:
    """The configuration and commands (settling tail included) of each program a run of
    `count` examples draws from batch 0 on the model."""
    programs: list[tuple[LoopConfig, list[Command]]] = []
    base = conformance_machine(ModelTarget)

    class Recording(base):  # type: ignore[misc,valid-type]
        def teardown(self) -> None:
            super().teardown()
            programs.append((self.config, list(self.program)))

    run_state_machine_as_test(seeded(Recording), settings=settings(KILL_BUDGET, max_examples=count))
    return programs


def failing(mutant: Mutant, programs: list[tuple[LoopConfig, list[Command]]]) -> int:
    """How many of `programs` `mutant` fails."""
    return sum(
        replay_case(lambda: MutantTarget(mutant), config, commands).divergence is not None
        for config, commands in programs
    )


def main() -> None:
    """Kill every chosen mutant on each batch; print the table and the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="batches 0..N-1 (default 10)")
    parser.add_argument("--mutant", action="append", help="only this mutant (repeatable)")
    parser.add_argument(
        "--programs", type=int, default=200, help="programs replayed per mutant (0: none)"
    )
    args = parser.parse_args()
    load_every_loopspec_module()
    programs = drawn_programs(args.programs) if args.programs else []
    chosen = [m for m in MUTANTS if not args.mutant or m.name in args.mutant]
    budget = KILL_BUDGET.max_examples
    print(f"examples to the first failing program, batches 0..{args.seeds - 1}, budget {budget}")
    print(
        f"{'mutant':<35}{'rule':<8}{'batch 0':>8}{'median':>8}{'worst':>7}{'missed':>7}"
        f"{'cpu s':>7}{'fails':>11}  all"
    )
    medians: list[float] = []
    seconds: list[float] = []
    worst_overall = 0
    started = time.process_time()
    for mutant in chosen:
        kills = [timed_kill(mutant, batch) for batch in range(args.seeds)]
        # A batch that does not kill within the budget counts as one more than the budget.
        counts = [budget + 1 if examples is None else examples for examples, _, _ in kills]
        wrong = sorted({rule for examples, rule, _ in kills if examples is None and rule != "none"})
        took = [cpu for _, _, cpu in kills]
        seconds += took
        median = statistics.median(counts)
        medians.append(median)
        worst_overall = max(worst_overall, *counts)
        missed = sum(examples is None for examples, _, _ in kills)
        listed = " ".join(str(c) for c in counts)
        blamed = f"  blamed elsewhere: {', '.join(wrong)}" if wrong else ""
        failed = failing(mutant, programs) if programs else 0
        share = f"1 in {len(programs) / failed:.1f}" if failed else "-"
        print(
            f"{mutant.name:<35}{mutant.rule_id:<8}{counts[0]:>8}{median:>8g}{max(counts):>7}"
            f"{missed:>7}{statistics.median(took):>7.2f}{share:>11}  {listed}{blamed}"
        )
    verdict = "MET" if all(m <= GOAL for m in medians) else "MISSED"
    print(
        f"worst median {max(medians):g}, worst single batch {worst_overall}; goal: every median"
        f" <= {GOAL}: {verdict}  ({time.process_time() - started:.1f} s CPU)"
    )
    print(
        f"kill time, generation only: median {statistics.median(seconds):.3f} s CPU,"
        f" worst {max(seconds):.3f} s, over {len(seconds)} kills"
    )
    if programs:
        print(f"fails: of the {len(programs)} programs a run of {args.programs} examples drew")


if __name__ == "__main__":
    main()
