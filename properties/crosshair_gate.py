"""Run CrossHair over the pure core and fail on any counterexample.

The pure core is `model/pure/`: plain-valued functions (no attrs classes, no `typing.Literal`,
which CrossHair 0.0.113 cannot build) that the model, the bridge and the projections call. Each
function states PEP 316 contracts; CrossHair searches for inputs that break them. "No
counterexample within the budget" is not a proof: CrossHair confirms none of these conditions
over all paths, so it spends a function's whole budget (CPU seconds per condition) on each of
its postconditions, and the budget is bounded per function (`BUDGETS`) so `make test` stays
fast; `CROSSHAIR_TIMEOUT` sets one budget for every function, for long runs.

Contracts that pass everything prove nothing, so the gate also plants the bugs an audit found
contracts missing (`PLANTED_BUGS`: the first rewrite wins instead of the last, the cap counted
inclusively, a gate that never lets a call start) in a copy of the module and requires CrossHair
to find a counterexample for each, against the postcondition written for it: the copy states
only that one of the function's postconditions, since CrossHair spends its whole budget on each
condition the bug does not break (the module run checks them all on the correct code).

Each module's budget groups and each planted bug is one `crosshair check` call (a job); the
jobs are shared out over one worker process per core, costliest first, and a worker runs its
jobs one after another, as one `crosshair check` runs the functions it names, each call with its
own budget. CrossHair's start-up (about 0.3 s of CPU) is paid once per core instead of once per
job. Exit 0 when nothing was found and every planted bug was caught, 1 on a counterexample or a
planted bug that survived (the messages name file, line and the failing call), 2 when CrossHair
itself failed.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import attrs

PURE_MODULES = (
    "loopspec.model.pure.decisions",
    "loopspec.model.pure.pairing",
    "loopspec.model.pure.presentation",
)
CONDITION = re.compile(r"^\s*(pre|post):", re.MULTILINE)
POSTCONDITIONS = re.compile(r"^\s*post:", re.MULTILINE)
POSTCONDITION = re.compile(r"^\s*post:\s*(.*?)\s*$")
# The budget of a function BUDGETS does not name (a new one): what every function had before
# BUDGETS, the budget the operator mutants were first measured against.
DEFAULT_BUDGET = 2.0
# CPU seconds per condition, per function: three times the slowest time CrossHair took to kill
# one of the function's operator mutants (benchmarks/crosshair_mutants.py --kill-times, each
# mutant 2 s kills, session 18), rounded up to a quarter second and at least half a second. A
# function keeps 2 s when that is more, when it has no mutant to time, or when 2 s kills one of
# its mutants only in some runs (a smaller budget would kill it less often still).
BUDGETS: dict[str, float] = {
    "merged_rank": 0.5,  # slowest kill 0.05 s
    "winning_rewrite": 1.0,  # 0.31 s
    "commit_prefix": 0.75,  # 0.20 s
    "may_start": 2.0,  # 1.34 s
    "unanswered_calls": 0.75,  # 0.19 s
    # unanswered_calls with its arguments swapped: no operator to mutate; swapping them back
    # (by hand, session 32) breaks two postconditions within 0.1 s, in each of three runs
    "orphan_results": 0.5,
    "repeated_ids": 1.75,  # 0.54 s
    "results_in_call_order": 2.0,  # 1.53 s
    "is_absolute": 0.5,  # 0.06 s
    "normalize_absolute": 2.0,  # 0.36 s, but an emptied "/" (line 42) lives some runs at 2 s
    "workspace_relative": 2.0,  # 1.09 s
    "relativize_title": 1.0,  # 0.30 s
    "resolve_terminal_cwd": 0.5,  # 0.02 s
    "longest_backtick_run": 0.5,  # 0.14 s
    "fenced_console": 2.0,  # 0.23 s, but a fence a backtick short lives some runs below 2 s
    "exit_code_of": 1.75,  # 0.51 s
    "signal_of": 2.0,  # 0.61 s
    "parse_exit_marker": 0.5,  # 0.05 s
    "first_line": 0.5,  # 0.01 s
    "read_title": 0.5,  # 0.11 s
    "file_title": 0.5,  # 0.02 s (session 36, its one mutant: a string emptied)
}


@attrs.frozen
class PlantedBug:
    """A wrong implementation of one pure function that its contracts must reject."""

    name: str
    module: str
    function: str
    edits: tuple[tuple[str, str], ...]
    # The postcondition (as written after `post:`) that must reject the bug.
    condition: str


PLANTED_BUGS = (
    PlantedBug(
        "first-rewrite-wins",
        "loopspec.model.pure.decisions",
        "winning_rewrite",
        (("for index in range(len(supplied) - 1, -1, -1):", "for index in range(len(supplied)):"),),
        "__return__ == -1 or not any(supplied[__return__ + 1:])",
    ),
    PlantedBug(
        "cap-inclusive",
        "loopspec.model.pure.decisions",
        "may_start",
        (("return sum(earlier) < cap", "return sum(earlier) <= cap"),),
        "not __return__ or sum(running[:index]) < cap",
    ),
    PlantedBug(
        "never-start",
        "loopspec.model.pure.decisions",
        "may_start",
        (
            ("return not any(earlier)", "return False"),
            ("return sum(earlier) < cap", "return False"),
        ),
        "__return__ or any(running[:index])",
    ),
)


def conditions_in(module: str) -> int:
    """How many pre/post conditions a module states."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return 0
    return len(CONDITION.findall(Path(spec.origin).read_text(encoding="utf-8")))


def contracted_functions(module: str) -> dict[str, int]:
    """The module's top-level functions that state conditions, each with how many it states;
    ValueError when a condition sits anywhere else (the gate would not check it)."""
    spec = importlib.util.find_spec(module)
    assert spec is not None
    assert spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    functions = {
        node.name: len(CONDITION.findall(ast.get_docstring(node) or ""))
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }
    contracted = {name: count for name, count in functions.items() if count}
    if sum(contracted.values()) != conditions_in(module):
        msg = f"{module} states conditions outside a top-level function's docstring"
        raise ValueError(msg)
    return contracted


def budget_of(function: str, override: float | None) -> float:
    """CPU seconds per condition for `function`: `override` (CROSSHAIR_TIMEOUT) when set."""
    if override is not None:
        return override
    return BUDGETS.get(function, DEFAULT_BUDGET)


def budget_groups(module: str, override: float | None) -> dict[float, tuple[str, ...]]:
    """The module's contracted functions by budget: one CrossHair process each."""
    groups: dict[float, list[str]] = {}
    for function in contracted_functions(module):
        groups.setdefault(budget_of(function, override), []).append(function)
    return {budget: tuple(functions) for budget, functions in groups.items()}


@attrs.frozen
class Job:
    """One `crosshair check` call: `targets` (module.function) at `budget` CPU seconds per
    condition. `key` names what it checks (a module, or a planted bug's name); `cost`, the CPU
    it is expected to take, shares the jobs out over the workers."""

    key: str
    targets: tuple[str, ...]
    budget: float
    cost: float


@attrs.frozen
class Outcome:
    """What `crosshair check` gave for a job: its exit code, what it printed, its wall time."""

    code: int
    output: str
    seconds: float


def postconditions_of(module: str, functions: tuple[str, ...]) -> int:
    """How many postconditions `functions` of `module` state (each gets the whole budget)."""
    spec = importlib.util.find_spec(module)
    assert spec is not None
    assert spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    return sum(
        len(POSTCONDITIONS.findall(ast.get_docstring(node) or ""))
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name in functions
    )


def module_jobs(module: str, override: float | None) -> list[Job]:
    """A job per budget group of the module's contracted functions."""
    return [
        Job(
            module,
            tuple(f"{module}.{function}" for function in functions),
            budget,
            budget * max(1, postconditions_of(module, functions)),
        )
        for budget, functions in budget_groups(module, override).items()
    ]


def share_out(jobs: list[Job], workers: int) -> list[list[Job]]:
    """The jobs over at most `workers` lists of about equal cost: each job, costliest first, to
    the list costing least so far (every job in exactly one list; no list empty)."""
    lists: list[list[Job]] = [[] for _ in range(max(1, min(workers, len(jobs))))]
    totals = [0.0] * len(lists)
    for job in sorted(jobs, key=lambda job: job.cost, reverse=True):
        cheapest = totals.index(min(totals))
        lists[cheapest].append(job)
        totals[cheapest] += job.cost
    return lists


def run_job(targets: tuple[str, ...], budget: float) -> Outcome:
    """`crosshair check TARGETS --per_condition_timeout BUDGET` in this process (a worker, whose
    audit wall is up), its printing captured; an exception CrossHair raises is exit 2."""
    from crosshair.main import unwalled_main  # noqa: PLC0415 (heavy; workers only)

    printed = io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        try:
            code = unwalled_main(["check", *targets, "--per_condition_timeout", str(budget)])
        except Exception:  # CrossHair failing: exit 2, as a process of its own that crashed
            traceback.print_exc()
            code = 2
    return Outcome(code, printed.getvalue(), time.monotonic() - started)


def worker() -> int:
    """Read jobs (JSON lines of targets and budget) from stdin, then run each, writing a JSON
    line of its outcome to stdout as it ends. Runs in the folder holding the planted copies."""
    from crosshair.auditwall import engage_auditwall  # noqa: PLC0415 (heavy; workers only)

    jobs: list[dict[str, Any]] = [json.loads(line) for line in sys.stdin if line.strip()]
    out = sys.stdout
    # As `crosshair check` does: code under analysis may not write files or start processes.
    engage_auditwall()
    for job in jobs:
        outcome = run_job(tuple(job["targets"]), float(job["budget"]))
        out.write(json.dumps(attrs.asdict(outcome)) + "\n")
        out.flush()
    return 0


def run_worker(jobs: list[Job], folder: Path) -> list[Outcome]:
    """One worker process running `jobs` in `folder`; a job it gave no outcome for (the worker
    died) failed with exit 2 and the worker's stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "loopspec.properties.crosshair_gate", "--worker"],
        input="".join(
            json.dumps({"targets": list(job.targets), "budget": job.budget}) + "\n" for job in jobs
        ),
        capture_output=True,
        text=True,
        check=False,
        cwd=folder,
    )
    outcomes: list[Outcome] = []
    stray: list[str] = []  # anything else on stdout (a library writing to the descriptor)
    for line in done.stdout.splitlines():
        try:
            outcomes.append(Outcome(**json.loads(line)))
        except (ValueError, TypeError):
            stray.append(line)
    lost = f"the CrossHair worker exited {done.returncode}:\n{done.stderr}" + "\n".join(stray)
    return outcomes + [Outcome(2, lost, 0.0)] * (len(jobs) - len(outcomes))


def only_condition(source: str, bug: PlantedBug) -> str:
    """`source` with `bug.function` stating `bug.condition` as its only postcondition."""
    (function,) = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef) and node.name == bug.function
    ]
    docstring = function.body[0]
    assert docstring.end_lineno is not None
    kept: list[str] = []
    stated = 0
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        written = POSTCONDITION.match(line)
        if written is not None and docstring.lineno <= number <= docstring.end_lineno:
            if written.group(1) != bug.condition:
                continue
            stated += 1
        kept.append(line)
    if stated != 1:
        msg = f"planted bug {bug.name}: {bug.function} no longer states post: {bug.condition}"
        raise ValueError(msg)
    return "".join(kept)


def plant(bug: PlantedBug, folder: Path) -> str:
    """Write the module with `bug` planted into `folder`, its function stating only the
    postcondition that must reject the bug; return the target to check."""
    spec = importlib.util.find_spec(bug.module)
    assert spec is not None
    assert spec.origin is not None
    source = Path(spec.origin).read_text(encoding="utf-8")
    for old, new in bug.edits:
        if source.count(old) != 1:
            msg = f"planted bug {bug.name}: {old!r} no longer occurs once in {bug.module}"
            raise ValueError(msg)
        source = source.replace(old, new)
    source = only_condition(source, bug)
    stem = "planted_" + bug.name.replace("-", "_")
    (folder / f"{stem}.py").write_text(source, encoding="utf-8")
    return f"{stem}.{bug.function}"


def budgets_text(groups: dict[float, tuple[str, ...]]) -> str:
    """'2 s per condition' for one budget, else each budget with its functions."""
    if len(groups) == 1:
        return f"{next(iter(groups)):g} s per condition"
    return "; ".join(
        f"{budget:g} s per condition: {', '.join(functions)}"
        for budget, functions in sorted(groups.items(), reverse=True)
    )


def main() -> int:
    """Check every pure module and every planted bug; print a line each, and what failed."""
    if sys.argv[1:] == ["--worker"]:
        return worker()
    override_text = os.environ.get("CROSSHAIR_TIMEOUT")
    override = float(override_text) if override_text else None
    groups = {module: budget_groups(module, override) for module in PURE_MODULES}
    worst = 0
    with tempfile.TemporaryDirectory(prefix="loopspec-planted-") as scratch:
        jobs = [job for module in PURE_MODULES for job in module_jobs(module, override)]
        for bug in PLANTED_BUGS:
            budget = budget_of(bug.function, override)
            jobs.append(Job(f"planted:{bug.name}", (plant(bug, Path(scratch)),), budget, budget))
        shares = share_out(jobs, os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=len(shares)) as pool:
            ran = pool.map(lambda share: run_worker(share, Path(scratch)), shares)
            outcomes = {
                job: outcome
                for share, results in zip(shares, ran, strict=True)
                for job, outcome in zip(share, results, strict=True)
            }
    for module in PURE_MODULES:
        results = [outcome for job, outcome in outcomes.items() if job.key == module]
        code = max(result.code for result in results)
        seconds = sum(result.seconds for result in results)
        status = {0: "no counterexample", 1: "COUNTEREXAMPLE"}.get(code, "CROSSHAIR FAILED")
        print(
            f"crosshair {module}: {conditions_in(module)} conditions, {status} "
            f"({seconds:.0f} s, {budgets_text(groups[module])})"
        )
        for result in results:
            if result.code != 0:
                print(result.output.rstrip())
                worst = max(worst, 1 if result.code == 1 else 2)
    for bug in PLANTED_BUGS:
        (result,) = [
            outcome for job, outcome in outcomes.items() if job.key == f"planted:{bug.name}"
        ]
        status = {1: "caught", 0: "NOT CAUGHT"}.get(result.code, "CROSSHAIR FAILED")
        print(f"crosshair planted bug {bug.name}: {status} ({result.seconds:.0f} s)")
        if result.code != 1:
            print(result.output.rstrip())
            worst = max(worst, 1 if result.code == 0 else 2)
    return worst


if __name__ == "__main__":
    sys.exit(main())
