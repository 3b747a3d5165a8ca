"""Benchmark conformance throughput against the cheapest stateful test Hypothesis can run.

Run by hand: `.venv/bin/python benchmarks/bench_conform.py [--examples N] [--rounds R]`.

Issue #15's first target: `loopspec conform` on the bundled implementation should run at least
0.2x the steps per second of a trivial two-rule Hypothesis state machine (a counter that goes up
and down, one invariant), so that what a conformance step costs beyond Hypothesis's own
bookkeeping stays small. Each side runs in a fresh interpreter of its own (this one, the same
environment, an untimed run of 5 examples first), interleaved round by round so load on the
machine hits them alike, with the same number of examples and runs and the same cap on program
length (40 steps); the ratio of the best rounds is printed with MET or MISSED.

Until session 23 the trivial machine ran in this process, after loopspec's imports and the
conform runs: its full collections walked the objects they left, 15-18% of its CPU went to the
collector against about 10% in a fresh process, and the slower yardstick flattered conform's
ratio. The trivial machine's process now never imports loopspec (conform's import of it is
inside `conform_steps`). The old figure is still printed, labelled: conform's process times the
trivial machine after its own runs. In two runs of session 23 the ratio was 0.190 and 0.176
fresh against 0.212 and 0.206 the old way (the collector's share 9% against 16-17%).

The trivial machine's programs run nearly to the cap, while a conform program ends after a few
turns (a third end after each), so Hypothesis's cost per program weighs more on conform's steps.
A second ratio, also judged, runs the trivial machine with its cap at conform's mean program
length in the same round: the cost of a conformance step beyond Hypothesis's at equal program
lengths. That cap is a whole number of steps and the trivial machine's mean length misses
conform's by up to a step, so the ratio is also printed (in brackets, since session 20) against
the trivial machine's rate at conform's mean length exactly, worked out from each round's two
trivial runs (`rate_at_length`).

Conform runs once per seed of `--seeds` (1..N, 4 by default) in every round, and its rate is
their pooled commands over their pooled CPU time: one seed's programs are longer or shorter than
another's, and a change to generation moves which programs a seed draws, so a single seed's rate
moved with its program lengths rather than with the cost of a command (one seed went from 12.6
to 10.1 commands a program when the swarm was drawn first, and its ratio fell by a third).
The trivial machine runs as many times per round, pooled likewise (since session 19): one run of
it is short (half a second), and a full collection of the process's objects falling in it or not
moved its rate by a tenth or more, so the best of a few single runs was the luckiest one (the
ratio to that is printed too, in brackets).

A conform run's commands are all it sends: section 12's presentation examples before the
search and the targeted programs of rare situations after it count too (since session 21; their
CPU always counted, and leaving their commands out, about a tenth of a run's on the bundled
implementation, put conform's rate that much too low).

With `--cmd COMMAND`, conform runs that driver-protocol target instead of the bundled
implementation (the issue's second figure is the js-loop's: `--cmd "node
examples/js-loop/main.mjs"`); only conform's own CPU is counted, not the target process's.

With `--instructions` (valgrind installed), the same ratio is also counted in instructions per
step (callgrind, a fresh interpreter per run, a short run's count subtracted for start-up),
which the load of a shared machine does not move; as in the timed runs, the trivial machine's
interpreter does not import loopspec (until session 23 it did: 766.6k instructions a step
against 765.1k now, since a counted run of 25 programs seldom makes a full collection); it
counts conform's default seed only (minutes per seed), so it too moves with that seed's program
lengths, and the trivial machine derandomized, so that two counts of the same code agree.

With `--syscalls` (strace installed), conform's system calls per command are counted by kind
(`strace -c -f`, the same short and long runs as `--instructions`, the short run's counts
subtracted): a count callgrind does not see, nor does the load of a shared machine move it.

Every run also prints where each side's CPU went (`CpuSplit`): the kernel's share (system
calls, page faults), the collector's (timed by `gc.callbacks`), the page faults per step, and
the involuntary context switches per CPU second (the machine's load taking the CPU away, and
the caches with it). In session 23, on a machine loaded six times over, the ratio in time was
0.17 where the ratio in instructions was 0.27: conform's system time was 2.6% of its CPU, its
collections 4.3% (the trivial machine's 15%), 0.35 page faults a command, and both sides were
preempted alike per CPU second (the trivial machine then timed in conform's process). None of
those explains the gap: a conformance step runs far
more distinct code and data than the two-rule machine's and executes fewer instructions per
cycle, the more so when other processes share the caches.

In session 24 the bundled implementation's adapter stopped parsing back each command's appended
lines: it holds them byte for byte to the reference spelling of the events the live loop
committed (`ImplAdapter.observe_added`), and reads them with the implementation's reader only
when they differ or the loop is down. 2,755k instructions a command became 2,666k (`--instructions`'
count of conform, the same machine state), 0.277x to 0.287x the trivial machine's 765k. Its
settle then ran the event loop until no callback was due instead of three iterations a round
(two for most commands): 2,654k. A reopened session (conform's Recover) then read its log with
one decode of each line's text where it made two, no copy of a line without a commit marker, and
remembered its calls' cards without building them: 2,653.7k to 2,647.9k (counted on one tree).

Tried in session 24 and not adopted: a Hypothesis step that sends a stretch of the program (up
to the loop's next idle point, `--steps` still capping its commands) instead of one command,
to spare each command Hypothesis's stop and rule draws and their spans. It spared nothing:
3,089k instructions a command against 3,077k for the same tree without it, counted as
`--instructions` does but over 100 derandomized programs less 5 (1,908 and 1,960 commands).
Programs overran Hypothesis's replays more often (103 against 87 per 200 complete, seeds 1
and 2), and a run whose deadline fell while shrinking kept a longer program in five seeds of
six.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from callgrind import instructions_running
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

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
        TRIVIAL_PROGRAMS[0] += 1


TRIVIAL_STEPS = [0]
TRIVIAL_PROGRAMS = [0]
# The last trivial measurement's first run alone, in steps per CPU second.
TRIVIAL_FIRST_RUN = [0.0]
# The last conform run's commands, its programs run to their end or abandoned, and those
# programs' commands (the sweeps' left out: a program's length is the search's).
CONFORM_STEPS_AND_PROGRAMS = [0, 0, 0]


class CpuSplit:
    """Where one side's CPU went over the runs it measures (`measuring`): user and system time,
    the collector's time, minor page faults and involuntary context switches, added up."""

    def __init__(self) -> None:
        self.user = self.system = self.collecting = 0.0
        self.page_faults = self.preempted = self.steps = 0
        self._collection_started = 0.0

    @contextlib.contextmanager
    def measuring(self) -> Iterator[None]:
        """Add what the enclosed code spends to the totals."""
        times, usage = os.times(), resource.getrusage(resource.RUSAGE_SELF)
        gc.callbacks.append(self._collector_phase)
        try:
            yield
        finally:
            gc.callbacks.remove(self._collector_phase)
            after, usage_after = os.times(), resource.getrusage(resource.RUSAGE_SELF)
            self.user += after.user - times.user
            self.system += after.system - times.system
            self.page_faults += usage_after.ru_minflt - usage.ru_minflt
            self.preempted += usage_after.ru_nivcsw - usage.ru_nivcsw

    def _collector_phase(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self._collection_started = time.process_time()
        else:
            self.collecting += time.process_time() - self._collection_started

    def as_dict(self) -> dict[str, float]:
        """The totals, for a timed process to send to the benchmark's."""
        return {
            "user": self.user,
            "system": self.system,
            "collecting": self.collecting,
            "page_faults": self.page_faults,
            "preempted": self.preempted,
            "steps": self.steps,
        }

    def add(self, totals: dict[str, float]) -> None:
        """Add a timed process's totals (`as_dict`) to these."""
        self.user += totals["user"]
        self.system += totals["system"]
        self.collecting += totals["collecting"]
        self.page_faults += int(totals["page_faults"])
        self.preempted += int(totals["preempted"])
        self.steps += int(totals["steps"])

    def line(self) -> str:
        """The split as one line (`steps`: those the runs measured took)."""
        cpu = max(self.user + self.system, 1e-9)
        steps = max(self.steps, 1)
        return (
            f"system {100 * self.system / cpu:.1f}%, collector {100 * self.collecting / cpu:.1f}%"
            f" of CPU; {self.page_faults / steps:.2f} page faults a step, "
            f"{self.preempted / cpu:.0f} involuntary context switches a CPU second"
        )


TRIVIAL_SPLIT = CpuSplit()
CONFORM_SPLIT = CpuSplit()
# The trivial machine run in conform's process after conform's runs, as measured before session 23.
SHARED_SPLIT = CpuSplit()


def trivial_rate(
    examples: int,
    steps_per_program: int = STEPS_PER_PROGRAM,
    runs: int = 1,
    *,
    derandomize: bool = False,
    split: CpuSplit = TRIVIAL_SPLIT,
) -> float:
    """Steps per CPU second of the two-rule machine, pooled over `runs` runs of `examples`
    programs of at most `steps_per_program` steps (TRIVIAL_FIRST_RUN: the first run's alone);
    `derandomize`: the same programs on every run, as a counted run needs; `split`: where
    their CPU is added up."""
    budget = settings(
        max_examples=examples,
        derandomize=derandomize,
        stateful_step_count=steps_per_program,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    steps = programs = 0
    spent = 0.0
    for _ in range(runs):
        TRIVIAL_STEPS[0] = TRIVIAL_PROGRAMS[0] = 0
        started = time.process_time()
        with split.measuring():
            run_state_machine_as_test(Counter, settings=budget)
        took = time.process_time() - started
        split.steps += TRIVIAL_STEPS[0]
        if not steps:
            TRIVIAL_FIRST_RUN[0] = TRIVIAL_STEPS[0] / took
        steps, programs, spent = (
            steps + TRIVIAL_STEPS[0],
            programs + TRIVIAL_PROGRAMS[0],
            spent + took,
        )
    TRIVIAL_STEPS[0], TRIVIAL_PROGRAMS[0] = steps, programs
    return steps / spent


def rate_at_length(
    first: tuple[int, int, float], second: tuple[int, int, float], length: float
) -> float:
    """Steps per CPU second of programs `length` steps long, from two runs' (steps, programs,
    CPU seconds) at different lengths: the CPU as a cost per program plus a cost per step. The
    cap matching conform's mean length is a whole number of steps, and Hypothesis ends some
    programs early, so the matched run's mean length missed conform's by a step either way
    (12.9 to 14.8 steps for conform's 14.4 in one session), and a program's fixed cost moved
    that ratio by a tenth; this one is at conform's length itself."""
    (steps_a, programs_a, cpu_a), (steps_b, programs_b, cpu_b) = first, second
    determinant = programs_a * steps_b - programs_b * steps_a
    if not determinant:
        return steps_b / cpu_b
    per_program = (cpu_a * steps_b - cpu_b * steps_a) / determinant
    per_step = (programs_a * cpu_b - programs_b * cpu_a) / determinant
    return length / (per_program + per_step * length)


def conform_steps(examples: int, seed: int | None = None, cmd: str | None = None) -> int:
    """Run `loopspec conform` on the bundled implementation, or on the `cmd` process (with
    `seed`, else its fixed derandomized sequence); the commands it sent."""
    # Imported here, not at the top: the trivial machine's process (timed or counted) must not
    # hold loopspec's modules, whose objects its full collections would walk.
    from loopspec.properties.cli.main import main as loopspec_main  # noqa: PLC0415 -- see above

    out = io.StringIO()
    argv = ["conform", "--examples", str(examples), "--format", "json"]
    if seed is not None:
        argv += ["--seed", str(seed)]
    if cmd is not None:
        argv += ["--cmd", cmd]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = loopspec_main(argv)
    report = json.loads(out.getvalue())
    if code != 0 or not report["conformant"]:
        raise SystemExit(
            f"{cmd or 'the bundled implementation'} is not conformant: nothing to measure"
        )
    steps, programs = int(report["steps"]), int(report["examples"]) + int(report["retries"])
    CONFORM_STEPS_AND_PROGRAMS[:] = [steps, programs, sum(report["transitions"].values())]
    return steps


def conform_rate(examples: int, seeds: int, cmd: str | None = None) -> float:
    """Commands per CPU second of `loopspec conform` on the bundled implementation (or `cmd`),
    pooled over one run per seed 1..`seeds`; CONFORM_STEPS_AND_PROGRAMS holds the pooled
    counts."""
    steps = programs = searched = 0
    started = time.process_time()
    for seed in range(1, seeds + 1):
        with CONFORM_SPLIT.measuring():
            ran = conform_steps(examples, seed, cmd)
        CONFORM_SPLIT.steps += ran
        steps += ran
        programs += CONFORM_STEPS_AND_PROGRAMS[1]
        searched += CONFORM_STEPS_AND_PROGRAMS[2]
    CONFORM_STEPS_AND_PROGRAMS[:] = [steps, programs, searched]
    return steps / (time.process_time() - started)


# ---------------------------------------------------------------------------------------------
# Timed runs, each side in a fresh interpreter of its own (see the module's docstring).

WARM_UP_EXAMPLES = 5  # an untimed run first, so first-use costs (lazy imports, caches) fall out


def trivial_record(examples: int, cap: int, runs: int, split: CpuSplit) -> dict[str, Any]:
    """Time the trivial machine (`trivial_rate`) and say what it measured."""
    rate = trivial_rate(examples, cap, runs, split=split)
    return {
        "rate": rate,
        "first_run": TRIVIAL_FIRST_RUN[0],
        "steps": TRIVIAL_STEPS[0],
        "programs": TRIVIAL_PROGRAMS[0],
        "split": split.as_dict(),
    }


def time_run(side: str, examples: int, cap: int, runs: int, cmd: str | None) -> dict[str, Any]:
    """What a timed interpreter does: warm up, time one side, say what it measured. Conform's
    interpreter then times the trivial machine too, on the heap conform's runs left (`shared`),
    as the benchmark measured before session 23."""
    if side == "trivial":
        trivial_rate(WARM_UP_EXAMPLES, cap, split=CpuSplit())
        return trivial_record(examples, cap, runs, TRIVIAL_SPLIT)
    conform_steps(WARM_UP_EXAMPLES, 1, cmd)
    rate = conform_rate(examples, runs, cmd)
    steps, programs, searched = CONFORM_STEPS_AND_PROGRAMS
    return {
        "rate": rate,
        "steps": steps,
        "programs": programs,
        "searched": searched,
        "split": CONFORM_SPLIT.as_dict(),
        "shared": trivial_record(examples, STEPS_PER_PROGRAM, runs, SHARED_SPLIT),
    }


def in_fresh_process(
    side: str, examples: int, cap: int, runs: int, cmd: str | None = None
) -> dict[str, Any]:
    """`time_run` in a fresh interpreter (this one, with this environment), its record."""
    command = [sys.executable, __file__, "--time-run", side, str(cap), str(runs)]
    command += ["--examples", str(examples)]
    if cmd is not None:
        command += ["--cmd", cmd]
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"timing {side} failed:\n{done.stderr.strip()}")
    record: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return record


# ---------------------------------------------------------------------------------------------
# Instructions, counted by callgrind in a fresh interpreter per run.

INSTRUCTION_EXAMPLES = (5, 25)  # a short run (start-up, first-use caches) and a long one


def count_run(which: str, examples: int) -> None:
    """What a counted interpreter does: run one side, print the steps it took."""
    if which == "trivial":
        # Derandomized, as conform's counted run is: drawn afresh, the trivial machine's
        # programs, and its instructions per step, moved from one count to the next (804k and
        # 730k in two counts of the same code).
        trivial_rate(examples, derandomize=True)
        print(TRIVIAL_STEPS[0])
    else:
        print(conform_steps(examples))


def instructions_of(which: str, examples: int, out: Path) -> tuple[int, int]:
    """The instructions a fresh interpreter executes importing this module and running one
    side for `examples` programs, and the steps that run took."""
    instructions, printed = instructions_running(__file__, [which, str(examples)], out)
    return instructions, int(printed.split()[-1])


def instructions_per_step(which: str, tmp: Path) -> float:
    """One side's instructions per step, the short run's subtracted from the long run's."""
    (short, short_steps), (long, long_steps) = (
        instructions_of(which, examples, tmp / f"callgrind-{which}-{examples}.out")
        for examples in INSTRUCTION_EXAMPLES
    )
    return (long - short) / (long_steps - short_steps)


def instruction_ratio() -> None:
    """Print each side's instructions per step and their ratio (steps per instruction)."""
    if shutil.which("valgrind") is None:
        print("instructions: valgrind not installed")
        return
    with tempfile.TemporaryDirectory(prefix="bench-conform-") as name:
        trivial = instructions_per_step("trivial", Path(name))
        conform = instructions_per_step("conform", Path(name))
    low, high = INSTRUCTION_EXAMPLES
    print(f"instructions per step (callgrind, {high} less {low} programs):")
    print(f"  trivial two-rule machine {trivial / 1e3:8.0f}k")
    print(f"  loopspec conform         {conform / 1e3:8.0f}k")
    verdict = "MET" if trivial / conform >= GOAL else "MISSED"
    print(f"conform / trivial, in instructions: {trivial / conform:.3f} (goal >= {GOAL}) {verdict}")


# ---------------------------------------------------------------------------------------------
# System calls, counted by strace in a fresh interpreter per run.


def syscalls_of(examples: int, out: Path) -> tuple[dict[str, int], int]:
    """The system calls, by kind, a fresh interpreter makes running conform for `examples`
    programs (its children's too), and the commands that run sent."""
    command = [sys.executable, __file__, "--count-run", "conform", str(examples)]
    done = subprocess.run(
        ["strace", "-f", "-c", "-o", str(out), *command],
        check=True,
        capture_output=True,
        text=True,
    )
    calls: dict[str, int] = {}
    for line in out.read_text().splitlines():
        fields = line.split()
        # A row: % time, seconds, usecs/call, calls, [errors,] syscall.
        if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
            calls[fields[-1]] = int(fields[3])
    return calls, int(done.stdout.split()[-1])


def syscall_counts() -> None:
    """Print conform's system calls per command, by kind, most first."""
    if shutil.which("strace") is None:
        print("system calls: strace not installed")
        return
    with tempfile.TemporaryDirectory(prefix="bench-conform-") as name:
        (short, short_steps), (long, long_steps) = (
            syscalls_of(examples, Path(name) / f"strace-{examples}.txt")
            for examples in INSTRUCTION_EXAMPLES
        )
    steps = long_steps - short_steps
    per_command = {kind: (long.get(kind, 0) - short.get(kind, 0)) / steps for kind in long}
    shown = sorted((-count, kind) for kind, count in per_command.items() if count >= 0.005)
    low, high = INSTRUCTION_EXAMPLES
    print(f"system calls per command (strace, {high} less {low} programs, {steps} commands):")
    print("  " + ", ".join(f"{kind} {-count:.2f}" for count, kind in shown))
    print(f"  all kinds {sum(per_command.values()):.2f}")


def main() -> None:
    """Interleave both, print the best rates and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--seeds",
        type=int,
        default=4,
        help="conform runs once per seed 1..N in each round, pooled (default 4)",
    )
    parser.add_argument(
        "--cmd",
        help="measure conform on this driver-protocol process, not the bundled implementation",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count instructions per step with valgrind's callgrind (minutes more)",
    )
    parser.add_argument(
        "--syscalls",
        action="store_true",
        help="also count conform's system calls per command with strace",
    )
    parser.add_argument(
        "--count-run", nargs=2, metavar=("SIDE", "EXAMPLES"), help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--time-run", nargs=3, metavar=("SIDE", "CAP", "RUNS"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.cmd and (args.instructions or args.syscalls):
        parser.error("--instructions and --syscalls count the bundled implementation only")
    if args.count_run:
        which, examples = args.count_run
        count_run(which, int(examples))
        return
    if args.time_run:
        side, cap_text, runs_text = args.time_run
        record = time_run(side, args.examples, int(cap_text), int(runs_text), args.cmd)
        print(json.dumps(record))
        return
    trivial: list[float] = []
    trivial_alone: list[float] = []  # one trivial run per round, as the benchmark measured before
    shared: list[float] = []  # the trivial machine in conform's process, after conform's runs
    conform: list[float] = []
    matched: list[float] = []  # the trivial machine at conform's mean program length
    matched_alone: list[float] = []
    matched_lengths: list[float] = []
    exact: list[float] = []  # the trivial machine's rate at conform's mean length exactly
    cap = 0  # the trivial machine's cap giving conform's mean length, set in the first round
    for _ in range(args.rounds):
        # As many runs of the trivial machine as of conform: a short run's rate moves with
        # whether a full collection fell in it (a tenth of a second in a run of half a second),
        # and the best of a few short runs was the best of that luck.
        run = in_fresh_process("trivial", args.examples, STEPS_PER_PROGRAM, args.seeds)
        TRIVIAL_SPLIT.add(run["split"])
        trivial.append(run["rate"])
        trivial_alone.append(run["first_run"])
        trivial_length = run["steps"] / max(run["programs"], 1)
        at_cap = (run["steps"], run["programs"], run["steps"] / run["rate"])
        run = in_fresh_process("conform", args.examples, STEPS_PER_PROGRAM, args.seeds, args.cmd)
        CONFORM_SPLIT.add(run["split"])
        SHARED_SPLIT.add(run["shared"]["split"])
        conform.append(run["rate"])
        shared.append(run["shared"]["rate"])
        conform_length = run["searched"] / max(run["programs"], 1)
        if not cap:
            # Hypothesis ends some programs before the cap: scale the cap once so the mean
            # length, not the cap, matches conform's.
            run = in_fresh_process("trivial", args.examples, max(1, round(conform_length)), 1)
            TRIVIAL_SPLIT.add(run["split"])
            below = run["steps"] / max(run["programs"], 1)
            cap = max(1, round(round(conform_length) * conform_length / max(below, 1.0)))
        run = in_fresh_process("trivial", args.examples, cap, args.seeds)
        TRIVIAL_SPLIT.add(run["split"])
        matched.append(run["rate"])
        matched_alone.append(run["first_run"])
        matched_lengths.append(run["steps"] / max(run["programs"], 1))
        at_match = (run["steps"], run["programs"], run["steps"] / run["rate"])
        exact.append(rate_at_length(at_cap, at_match, conform_length))
    best_trivial, best_conform = max(trivial), max(conform)
    ratio = best_conform / best_trivial
    print(
        f"trivial two-rule machine: {best_trivial:,.0f} steps/s (CPU), best of {args.rounds}, "
        f"{args.seeds} runs pooled, in a fresh process of its own"
    )
    target = f"--cmd {args.cmd}" if args.cmd else "bundled impl"
    print(
        f"loopspec conform, {target}: {best_conform:,.0f} commands/s (CPU), "
        f"seeds 1..{args.seeds} pooled, in a fresh process of its own"
    )
    verdict = "MET" if ratio >= GOAL else "MISSED"
    print(f"conform / trivial: {ratio:.3f} (goal >= {GOAL}) {verdict}")
    alone = best_conform / max(trivial_alone)
    print(f"  (one trivial run a round, as measured before session 19: {alone:.3f})")
    in_conform = best_conform / max(shared)
    print(
        f"  (the trivial machine in conform's process after its runs, as measured before "
        f"session 23: {max(shared):,.0f} steps/s, ratio {in_conform:.3f})"
    )
    # Hypothesis's cost per program is spread over a program's steps: the ratio moves with the
    # programs' lengths, which differ (a conform program ends after a few turns).
    print(
        f"steps per program: trivial {trivial_length:.1f}, conform {conform_length:.1f} "
        "(programs abandoned by Hypothesis included; last round)"
    )
    best_matched = max(matched)
    at_length = best_conform / best_matched
    verdict = "MET" if at_length >= GOAL else "MISSED"
    print(
        f"trivial machine at conform's program length (cap {cap}, mean "
        f"{matched_lengths[-1]:.1f} steps): "
        f"{best_matched:,.0f} steps/s (CPU)"
    )
    print(f"conform / trivial at equal program length: {at_length:.3f} (goal >= {GOAL}) {verdict}")
    alone = best_conform / max(matched_alone)
    print(f"  (one trivial run a round, as measured before session 19: {alone:.3f})")
    print(
        f"  (the trivial machine at conform's mean length exactly, from its cost per program and "
        f"per step in each round's two runs: {best_conform / max(exact):.3f})"
    )
    print("where the CPU went, every round:")
    print(f"  trivial two-rule machine:      {TRIVIAL_SPLIT.line()}")
    print(f"  loopspec conform:              {CONFORM_SPLIT.line()}")
    print(f"  trivial in conform's process:  {SHARED_SPLIT.line()}")
    if args.instructions:
        instruction_ratio()
    if args.syscalls:
        syscall_counts()


if __name__ == "__main__":
    main()
