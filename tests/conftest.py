"""Hypothesis profiles: `ci` (derandomized, bounded; the default under CI=true), `dev` (the
default elsewhere) and `thorough` (long runs). Choose with HYPOTHESIS_PROFILE=name.

Every loopspec module is imported before the tests are collected, so the programs a fixed batch
draws do not depend on which tests run (`batches.py` says why they would)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys

import pytest
from hypothesis import HealthCheck, settings

import loopspec


def _load_every_loopspec_module() -> None:
    """Import all of loopspec before any test is collected.

    Hypothesis sometimes draws a literal from the source of the local modules loaded at that
    moment (see `batches.py`), so without this a fixed batch depends on which tests run: the
    whole suite imports more modules (and a test that runs a CLI verb imports one more midway)
    than one file run alone, and a failure seen in CI could not be rerun with the same programs.
    `__main__` is skipped: importing it runs the CLI.
    """
    for module in pkgutil.walk_packages(loopspec.__path__, "loopspec."):
        if module.name.rpartition(".")[2] != "__main__":
            importlib.import_module(module.name)


_load_every_loopspec_module()

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
