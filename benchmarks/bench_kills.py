"""Examples until each mutant's first failing program, over many fixed batches (issue #15, item 2).

Run by hand: `.venv/bin/python benchmarks/bench_kills.py [--seeds N] [--mutant NAME ...] [--fresh]`.

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
import functools
import importlib
import pkgutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

import loopspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

# tests/ is on the path only from here on.
import batches
from batches import seeded
from mutants import MUTANTS, Mutant, MutantTarget
from test_mutants import KILL_BUDGET

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.machine import conformance_machine
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.source_literals import without_source_literals
from loopspec.properties.conformance.target import ModelTarget

GOAL = 10  # median examples to the first failing program, per mutant


def load_every_loopspec_module() -> None:
    """Import all of loopspec first, as a test run has. (Hypothesis's pool of literals found in
    loaded modules is kept out of every kill's draws, as `tests/conftest.py` keeps it out of
    every test's: `without_source_literals`.)"""
    for module in pkgutil.walk_packages(loopspec.__path__, "loopspec."):
        if module.name.rpartition(".")[2] != "__main__":
            importlib.import_module(module.name)


def examples_to_kill(mutant: Mutant, batch: int) -> tuple[int | None, str]:
    """Programs drawn from `batch` up to the first one `mutant` fails (None: none within the
    budget, or one blamed on a rule it does not break), and what was blamed."""
    return examples_to_fail(lambda: MutantTarget(mutant), mutant.blamed, batch)


def examples_to_fail(
    make: Callable[[], ModelTarget], blamed: frozenset[str], batch: int
) -> tuple[int | None, str]:
    """Programs drawn from `batch` up to the first one the target `make` makes fails (None:
    none within the budget, or one blamed on a rule not in `blamed`), and what was blamed."""
    examples = 0
    pin: dict[str, str] = {}

    def factory() -> ModelTarget:
        nonlocal examples
        if not pin:  # Hypothesis replays the failing program once: not a new example
            examples += 1
        return make()

    machine = seeded(conformance_machine(factory, pin=pin), batch)
    try:
        with without_source_literals():  # as every test and conform draw (tests/conftest.py)
            run_state_machine_as_test(machine, settings=KILL_BUDGET)
    except DivergenceFound as found:
        rule_id = found.divergence.rule_id
        return (examples if rule_id in blamed else None), rule_id
    return None, "none"


def timed_failure(
    make: Callable[[], ModelTarget], blamed: frozenset[str], batch: int
) -> tuple[int | None, str, float]:
    """`examples_to_fail`, and the CPU seconds it took."""
    started = time.process_time()
    examples, rule_id = examples_to_fail(make, blamed, batch)
    return examples, rule_id, time.process_time() - started


def fresh_loops() -> list[tuple[str, Callable[[], ModelTarget], frozenset[str]]]:
    """Rounds 10 to 15's wrong loops (tests/test_blame_fresh_bugs_round10.py to round15.py),
    each planted in the model: its name, the target, and the rules a first failing program may
    rightly be blamed on. Rounds 12 and 13's are listed here; rounds 10, 11, 14 and 15's are
    their tables' rows (`_table_rows`) and a few planted in a test's own row. Left out: the
    presenter raising (a breakage, not a divergence)."""
    import test_blame_fresh_bugs_round10 as r10  # noqa: PLC0415 (pytest, only with --fresh)
    import test_blame_fresh_bugs_round11 as r11  # noqa: PLC0415
    import test_blame_fresh_bugs_round12 as r12  # noqa: PLC0415
    import test_blame_fresh_bugs_round13 as r13  # noqa: PLC0415
    import test_blame_fresh_bugs_round14 as r14  # noqa: PLC0415
    import test_blame_fresh_bugs_round15 as r15  # noqa: PLC0415
    from fresh_bugs import CapOneOff, planted  # noqa: PLC0415

    from loopspec.model import dispatch, rewrite  # noqa: PLC0415

    first_unstarted = planted(
        dispatch, "_abort_unstarted", r13._aborts_the_first_unstarted_call, ""
    )
    every_reason = planted(rewrite, "_reasons", r13._every_hooks_reason, "")
    invalid_as_invalid = planted(
        dispatch, "_abort_unstarted", r14._aborts_invalid_input_as_invalid, ""
    )
    keeps_the_rewrite = planted(rewrite, "resolve_call", r14._resolved_keeping_the_rewrite, "")
    loops: list[tuple[str, type[ModelTarget], set[str]]] = [
        ("r12 failed request's own kind", r12.FAILED_REQUEST_OWN_KIND[1], {"TEXT-2"}),
        ("r12 repair timed in seconds", r12.REPAIR_TIMED_IN_SECONDS[1], {"REC-1"}),
        ("r12 sp-model3 refused context", r12.QueuesARefusedOutcomesContexts, {"MODEL-3"}),
        ("r12 times in seconds", r12.TimesInSeconds, {"LOG-4"}),
        ("r12 missing keys sorted", r12.SORTS_MISSING_KEYS, {"TEXT-1"}),
        ("r12 settles the running call", r12.SettlesTheRunningCall, {"EXE-4"}),
        ("r12 js-abort1 drain skips gate", r12.DrainSkipsTheGate, {"ABORT-1"}),
        ("r12 bash titled by description", r12.BASH_TITLED_BY_DESCRIPTION[1], {"VIEW-2"}),
        ("r12 stuck after a reopen", r12.StaysCrashedAfterABalancedReopen, {"REC-2"}),
        ("r12 history cleared each turn", r12.ClearsItsHistoryEachTurn, {"HIST-1"}),
        ("r13 blank the Go way", r13.BLANK_TO_PYTHON_ALONE_UNREGISTERED[1], {"EXE-2"}),
        ("r13 hook for invalid input", r13.HOOKED_INVALID_BEFORE_UNREGISTERED[1], {"HOOK-4"}),
        # EXE-5 (1)'s, the rule broken, hooks matching the call or not (an EXE-2 reading
        # looks the same where no probe tells).
        ("r13 unregistered input", r13.UNREGISTERED_INPUT_UNJUDGED[1], {"EXE-5"}),
        ("r13 ask outranks deny", r13.AskOutranksDeny, {"DEC-1", "HOOK-2"}),
        ("r13 cap one off", CapOneOff, {"SCHED-1"}),
        ("r13 abort ends first unstarted", first_unstarted, {"ABORT-1"}),
        ("r13 every hook's reason", every_reason, {"DEC-1", "DEC-2"}),
        ("r13 reason as stderr", r13.WritesTheReasonAsStderr, {"TEXT-2"}),
        ("r13 aborted success's context", r13.QueuesContextsAsBodiesFinish, {"ADJ-4"}),
        ("r10 settles an asking call", r10.SettlesAnAskingCall, {"EXE-4"}),
        ("r10 cancels with the result", r10.CancelsWithTheResult, {"ABORT-3"}),
        ("r10 cites the reply", r10.CitesTheReply, {"ORD-2"}),
        ("r10 records the answer's word", r10.RecordsTheAnswersWord, {"TEXT-2"}),
        ("r10 unknown tool's input unchecked", r10.UNKNOWN_UNCHECKED, {"EXE-5", "EXE-2"}),
        ("r11 ignores denies", r11.IGNORES_DENIES, {"DEC-1", "HOOK-2"}),
        ("r11 plain quotes", r11.PLAIN_QUOTES, {"TEXT-1"}),
        ("r14 abort answers invalid as invalid", invalid_as_invalid, {"ABORT-1"}),
        ("r14 denied call keeps a rewrite", keeps_the_rewrite, {"HOOK-3"}),
        ("r14 reply without calls ends turn", r14.EndsTheTurnOnAReplyWithoutCalls, {"STEP-4"}),
        # This abort answers every call whose result waits uncommitted ABORTED_BEFORE_DISPATCH:
        # EXE-5 where the call had invalid input (the row's own program); DEC-1 where it was
        # denied, which random programs reach first (17 of batches 0-19), a denied call's
        # result being its deny's error (TEXT-1's row of DEC-1); ABORT-1 where its body had
        # finished (batch 17), a finished body keeping its result.
        (
            "r15 abort answers judged calls unstarted",
            r15.AbortsJudgedCalls,
            {"EXE-5", "DEC-1", "ABORT-1"},
        ),
        # Error info on every error result of a finished body's command: EXE-4 on a failure
        # without a code, DEC-1 on a denial committed with it, DEC-3 on a blocked failure with a
        # code (round 11's tests of NullErrorCode name each; 4 of batches 0-19 reach the last).
        (
            "r11 a failure without a code written with a null code",
            r11.NullErrorCode,
            {"EXE-4", "DEC-1", "DEC-3"},
        ),
        # The model's input run for every rewritten call: RW-4 after an approval, RW-1 with none
        # (its round 14 test says so; batches 14 and 18 reach it with no approval first).
        (
            "r14 the model's input run after an approved rewrite",
            r14.RunsTheModelsInput,
            {"RW-4", "RW-1"},
        ),
    ]
    listed = {target: rules for _, target, rules in loops}
    for number, module in ((10, r10), (11, r11), (14, r14), (15, r15)):
        for what, target, rule_id in _table_rows(module):
            if target in listed:
                # Another row of the same loop: the rule it names is right too (round 15's
                # hooks run last first are HOOK-4's for PreToolUse, HOOK-5's for PostToolUse).
                listed[target].add(rule_id)
                continue
            listed[target] = {rule_id}
            loops.append((f"r{number} {what}", target, listed[target]))
    return [(name, target, frozenset(rules)) for name, target, rules in loops]


def _table_rows(module: object) -> list[tuple[str, type[ModelTarget], str]]:
    """What each `FreshBug` row a round's module holds (alone or in a list) plants: what the
    bug is, the target, and the rule the row names."""
    rows: list[tuple[str, type[ModelTarget], str]] = []
    for value in vars(module).values():
        for row in value if isinstance(value, list) else [value]:
            if (
                isinstance(row, tuple)
                and len(row) == 5
                and isinstance(row[1], type)
                and issubclass(row[1], ModelTarget)
                and isinstance(row[4], str)
            ):
                rows.append((str(row[0]), row[1], row[4]))
    return rows


def drawn_programs(count: int) -> list[tuple[LoopConfig, list[Command]]]:
    """The configuration and commands (settling tail included) of each program a run of
    `count` examples draws from batch 0 on the model."""
    return batches.drawn_programs(settings(KILL_BUDGET, max_examples=count))


def failing(
    make: Callable[[], ModelTarget], programs: list[tuple[LoopConfig, list[Command]]]
) -> int:
    """How many of `programs` the target `make` makes fails."""
    return sum(
        replay_case(make, config, commands).divergence is not None for config, commands in programs
    )


def main() -> None:
    """Kill every chosen mutant on each batch; print the table and the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="batches 0..N-1 (default 10)")
    parser.add_argument(
        "--mutant", action="append", help="only this mutant or --fresh loop (repeatable)"
    )
    parser.add_argument(
        "--programs", type=int, default=200, help="programs replayed per mutant (0: none)"
    )
    parser.add_argument(
        "--fresh", action="store_true", help="also rounds 10 to 15's wrong loops (fresh_loops)"
    )
    args = parser.parse_args()
    load_every_loopspec_module()
    programs = drawn_programs(args.programs) if args.programs else []
    chosen: list[tuple[str, str, Callable[[], ModelTarget], frozenset[str]]] = [
        (m.name, m.rule_id, functools.partial(MutantTarget, m), m.blamed)
        for m in MUTANTS
        if not args.mutant or m.name in args.mutant
    ]
    if args.fresh:
        chosen += [
            (name, min(rules), make, rules)
            for name, make, rules in fresh_loops()
            if not args.mutant or name in args.mutant
        ]
    budget = KILL_BUDGET.max_examples
    width = max([35, *(len(name) + 1 for name, *_ in chosen)])  # a fresh loop's name is long
    print(f"examples to the first failing program, batches 0..{args.seeds - 1}, budget {budget}")
    print(
        f"{'mutant':<{width}}{'rule':<8}{'batch 0':>8}{'median':>8}{'worst':>7}{'missed':>7}"
        f"{'cpu s':>7}{'fails':>11}  all"
    )
    medians: list[float] = []
    seconds: list[float] = []
    worst_overall = 0
    started = time.process_time()
    for name, rule_id, make, rules in chosen:
        kills = [timed_failure(make, rules, batch) for batch in range(args.seeds)]
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
        failed = failing(make, programs) if programs else 0
        share = f"1 in {len(programs) / failed:.1f}" if failed else "-"
        print(
            f"{name:<{width}}{rule_id:<8}{counts[0]:>8}{median:>8g}{max(counts):>7}"
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
