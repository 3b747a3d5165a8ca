"""Run CrossHair over the pure core and fail on any counterexample.

The pure core is `model/pure/`: plain-valued functions (no attrs classes, no `typing.Literal`,
which CrossHair 0.0.113 cannot build) that the model, the bridge and the projections call. Each
function states PEP 316 contracts; CrossHair searches for inputs that break them. "No
counterexample within the budget" is not a proof: the budget per condition is bounded so
`make test` stays fast, and `CROSSHAIR_TIMEOUT` raises it for long runs.

Modules run in parallel, one process per core. Exit 0 when nothing was found, 1 on a
counterexample (the messages name file, line and the failing call), 2 when CrossHair itself
failed.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PURE_MODULES = (
    "loopspec.model.pure.decisions",
    "loopspec.model.pure.pairing",
    "loopspec.model.pure.presentation",
)
CONDITION = re.compile(r"^\s*(pre|post):", re.MULTILINE)


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


def main() -> int:
    """Check every pure module; print a line per module and every counterexample."""
    timeout = float(os.environ.get("CROSSHAIR_TIMEOUT", "2"))
    workers = max(1, min(len(PURE_MODULES), os.cpu_count() or 1))
    worst = 0
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for module, code, output, seconds in pool.map(lambda m: check(m, timeout), PURE_MODULES):
            status = {0: "no counterexample", 1: "COUNTEREXAMPLE"}.get(code, "CROSSHAIR FAILED")
            print(
                f"crosshair {module}: {conditions_in(module)} conditions, {status} "
                f"({seconds:.0f} s, {timeout:g} s per condition)"
            )
            if code != 0:
                print(output.rstrip())
                worst = max(worst, 1 if code == 1 else 2)
    return worst


if __name__ == "__main__":
    sys.exit(main())
