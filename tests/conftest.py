"""Hypothesis profiles: `ci` (derandomized, bounded; the default under CI=true), `dev` (the
default elsewhere) and `thorough` (long runs). Choose with HYPOTHESIS_PROFILE=name.

No test draws from Hypothesis's pool of literals found in loaded source, as conform does not
(`batches.py` says why a fixed batch would move with it)."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from loopspec.properties.conformance import run as conformance_run
from loopspec.properties.conformance.source_literals import without_source_literals


@pytest.fixture(autouse=True, scope="session")
def _no_source_literals() -> Iterator[None]:
    """Every test draws as `loopspec conform` does: from no loaded module's literals, so a
    literal added anywhere, or the modules a test happens to import, leave a fixed batch as
    it is."""
    with without_source_literals():
        yield


@pytest.fixture(autouse=True, scope="session")
def _no_progress_lines() -> Iterator[None]:
    """No in-process conform prints its every-30-s progress line: on a loaded machine a run
    passing 30 s would add one to the stderr many tests compare whole (tests/test_ci_use.py
    sets the interval it tests)."""
    every = conformance_run.PROGRESS_LINE_SECONDS
    conformance_run.PROGRESS_LINE_SECONDS = math.inf
    yield
    conformance_run.PROGRESS_LINE_SECONDS = every


settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=60,
    deadline=None,
    database=None,
    print_blob=True,
    # A loaded CI machine makes generation slow: health checks judge the machine, not the loop.
    suppress_health_check=list(HealthCheck),
)
settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile(
    "thorough",
    max_examples=2000,
    stateful_step_count=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the mutant kill matrix when the mutant tests ran."""
    module = sys.modules.get("test_mutants")
    matrix: list[str] = getattr(module, "KILL_MATRIX", []) if module is not None else []
    if matrix:
        terminalreporter.section("mutant kill matrix (mutant, rule broken, rule blamed, cost)")
        for row in matrix:
            terminalreporter.write_line(row)
