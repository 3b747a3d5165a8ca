"""Run CrossHair over the pure core and fail on any counterexample.

The pure core is `model/pure/`: plain-valued functions (no attrs classes, no `typing.Literal`,
which CrossHair 0.0.113 cannot build) that the model, the bridge and the projections call. Each
function states PEP 316 contracts; CrossHair searches for inputs that break them. "No
counterexample within the budget" is not a proof: the budget per condition is bounded so
`make test` stays fast, and `CROSSHAIR_TIMEOUT` raises it for long runs.

Contracts that pass everything prove nothing, so the gate also plants the bugs an audit found
contracts missing (`PLANTED_BUGS`: the first rewrite wins instead of the last, the cap counted
inclusively, a gate that never lets a call start) in a copy of the module and requires CrossHair
to find a counterexample for each, against the postcondition written for it: the copy states
only that one of the function's postconditions, since CrossHair spends its whole budget on each
condition the bug does not break (the module run checks them all on the correct code).

Modules and planted bugs run in parallel, one process per core. Exit 0 when nothing was found
and every planted bug was caught, 1 on a counterexample or a planted bug that survived (the
messages name file, line and the failing call), 2 when CrossHair itself failed.
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


def check(module: str, timeout: float) -> tuple[str, int, str, float]:
    """Run `crosshair check` on one module."""
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "crosshair",
            "check",
            module,
            "--per_condition_timeout",
            str(timeout),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return module, done.returncode, done.stdout + done.stderr, time.monotonic() - started


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


def main() -> int:
    """Check every pure module and every planted bug; print a line each, and what failed."""
    timeout = float(os.environ.get("CROSSHAIR_TIMEOUT", "2"))
    workers = max(1, min(len(PURE_MODULES) + len(PLANTED_BUGS), os.cpu_count() or 1))
    worst = 0
    with (
        tempfile.TemporaryDirectory(prefix="loopspec-planted-") as scratch,
        ThreadPoolExecutor(max_workers=workers) as pool,
    ):
        modules = pool.map(lambda m: check(m, timeout), PURE_MODULES)
        planted = pool.map(lambda b: check_planted(b, timeout, Path(scratch)), PLANTED_BUGS)
        for module, code, output, seconds in modules:
            status = {0: "no counterexample", 1: "COUNTEREXAMPLE"}.get(code, "CROSSHAIR FAILED")
            print(
                f"crosshair {module}: {conditions_in(module)} conditions, {status} "
                f"({seconds:.0f} s, {timeout:g} s per condition)"
            )
            if code != 0:
                print(output.rstrip())
                worst = max(worst, 1 if code == 1 else 2)
        for name, code, output, seconds in planted:
            status = {1: "caught", 0: "NOT CAUGHT"}.get(code, "CROSSHAIR FAILED")
            print(f"crosshair planted bug {name}: {status} ({seconds:.0f} s)")
            if code != 1:
                print(output.rstrip())
                worst = max(worst, 1 if code == 0 else 2)
    return worst


if __name__ == "__main__":
    sys.exit(main())
