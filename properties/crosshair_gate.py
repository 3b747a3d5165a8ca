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

Modules (one CrossHair process per module and budget) and planted bugs run in parallel, one
process per core. Exit 0 when nothing was found and every planted bug was caught, 1 on a
counterexample or a planted bug that survived (the messages name file, line and the failing
call), 2 when CrossHair itself failed.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs

PURE_MODULES = (
    "loopspec.model.pure.decisions",
    "loopspec.model.pure.pairing",
    "loopspec.model.pure.presentation",
)
CONDITION = re.compile(r"^\s*(pre|post):", re.MULTILINE)
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
    "orphan_results": 2.0,  # unanswered_calls with its arguments swapped: no mutant of its own
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


def check(module: str, functions: tuple[str, ...], timeout: float) -> tuple[int, str, float]:
    """Run `crosshair check` on some functions of one module, `timeout` per condition."""
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "crosshair",
            "check",
            *(f"{module}.{function}" for function in functions),
            "--per_condition_timeout",
            str(timeout),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr, time.monotonic() - started


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


def check_planted(bug: PlantedBug, timeout: float, folder: Path) -> tuple[str, int, str, float]:
    """Run CrossHair on one planted bug: exit 1 (a counterexample) means the bug was caught."""
    started = time.monotonic()
    target = plant(bug, folder)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "crosshair",
            "check",
            target,
            "--per_condition_timeout",
            str(timeout),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=folder,
    )
    return bug.name, done.returncode, done.stdout + done.stderr, time.monotonic() - started


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
    override_text = os.environ.get("CROSSHAIR_TIMEOUT")
    override = float(override_text) if override_text else None
    groups = {module: budget_groups(module, override) for module in PURE_MODULES}
    runs = [(m, budget, functions) for m in PURE_MODULES for budget, functions in groups[m].items()]
    workers = max(1, min(len(runs) + len(PLANTED_BUGS), os.cpu_count() or 1))
    worst = 0
    with (
        tempfile.TemporaryDirectory(prefix="loopspec-planted-") as scratch,
        ThreadPoolExecutor(max_workers=workers) as pool,
    ):
        # map submits every run at once; the module runs are read only after both are queued.
        module_runs = pool.map(lambda run: check(run[0], run[2], run[1]), runs)
        planted = pool.map(
            lambda b: check_planted(b, budget_of(b.function, override), Path(scratch)),
            PLANTED_BUGS,
        )
        checked = list(module_runs)
        for module in PURE_MODULES:
            results = [
                result for run, result in zip(runs, checked, strict=True) if run[0] == module
            ]
            code = max(result[0] for result in results)
            seconds = sum(result[2] for result in results)
            status = {0: "no counterexample", 1: "COUNTEREXAMPLE"}.get(code, "CROSSHAIR FAILED")
            print(
                f"crosshair {module}: {conditions_in(module)} conditions, {status} "
                f"({seconds:.0f} s, {budgets_text(groups[module])})"
            )
            for result_code, output, _ in results:
                if result_code != 0:
                    print(output.rstrip())
                    worst = max(worst, 1 if result_code == 1 else 2)
        for name, code, output, seconds in planted:
            status = {1: "caught", 0: "NOT CAUGHT"}.get(code, "CROSSHAIR FAILED")
            print(f"crosshair planted bug {name}: {status} ({seconds:.0f} s)")
            if code != 1:
                print(output.rstrip())
                worst = max(worst, 1 if code == 0 else 2)
    return worst


if __name__ == "__main__":
    sys.exit(main())
