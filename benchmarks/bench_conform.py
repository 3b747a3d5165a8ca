"""Benchmark conformance throughput against the cheapest stateful test Hypothesis can run.

Run by hand: `.venv/bin/python benchmarks/bench_conform.py [--examples N] [--rounds R]`.

Issue #15's first target: `loopspec conform` on the bundled implementation should run at least
0.2x the steps per second of a trivial two-rule Hypothesis state machine (a counter that goes up
and down, one invariant), so that what a conformance step costs beyond Hypothesis's own
bookkeeping stays small. Both run in this process, interleaved round by round so load on the
machine hits them alike, with the same number of examples and the same program length; the
ratio of the best rounds is printed with MET or MISSED.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import time

from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from loopspec.properties.cli.main import main as loopspec_main

GOAL = 0.2
STEPS_PER_PROGRAM = 40  # the conformance machine's default program length


class Counter(RuleBasedStateMachine):
    """The trivial baseline: two rules and an invariant, nothing to compare."""

    def __init__(self) -> None:
        super().__init__()
        self.value = 0
        self.steps = 0

    @rule()
    def up(self) -> None:
        """Count up."""
        self.value += 1
        self.steps += 1

    @rule()
    def down(self) -> None:
        """Count down."""
        self.value -= 1
        self.steps += 1

    @invariant()
    def bounded(self) -> None:
        """Never further from zero than the steps taken."""
        assert abs(self.value) <= self.steps

    def teardown(self) -> None:
        """Add this program's steps to the total."""
        TRIVIAL_STEPS[0] += self.steps


TRIVIAL_STEPS = [0]


def trivial_rate(examples: int) -> float:
    """Steps per CPU second of the two-rule machine over `examples` programs."""
    TRIVIAL_STEPS[0] = 0
    budget = settings(
        max_examples=examples,
        stateful_step_count=STEPS_PER_PROGRAM,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    started = time.process_time()
    run_state_machine_as_test(Counter, settings=budget)
    return TRIVIAL_STEPS[0] / (time.process_time() - started)


def conform_rate(examples: int) -> float:
    """Commands per CPU second of `loopspec conform` on the bundled implementation."""
    out = io.StringIO()
    started = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = loopspec_main(["conform", "--examples", str(examples), "--format", "json"])
    seconds = time.process_time() - started
    report = json.loads(out.getvalue())
    if code != 0 or not report["conformant"]:
        raise SystemExit("the bundled implementation is not conformant: nothing to measure")
    return int(report["steps"]) / seconds


def main() -> None:
    """Interleave both, print the best rates and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    trivial: list[float] = []
    conform: list[float] = []
    for _ in range(args.rounds):
        trivial.append(trivial_rate(args.examples))
        conform.append(conform_rate(args.examples))
    best_trivial, best_conform = max(trivial), max(conform)
    ratio = best_conform / best_trivial
    print(f"trivial two-rule machine: {best_trivial:,.0f} steps/s (CPU), best of {args.rounds}")
    print(f"loopspec conform, bundled impl: {best_conform:,.0f} commands/s (CPU)")
    verdict = "MET" if ratio >= GOAL else "MISSED"
    print(f"conform / trivial: {ratio:.3f} (goal >= {GOAL}) {verdict}")


if __name__ == "__main__":
    main()
