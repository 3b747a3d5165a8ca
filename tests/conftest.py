"""Hypothesis profiles: `ci` (derandomized, bounded; the default under CI=true), `dev` (the
default elsewhere) and `thorough` (long runs). Choose with HYPOTHESIS_PROFILE=name.

No test draws from Hypothesis's pool of literals found in loaded source, as conform does not
(`batches.py` says why a fixed batch would move with it)."""

from __future__ import annotations

import math
import os
import sys
from collections import Counter
from collections.abc import Iterator

import pytest
from harness_reports import reports_dir
from hypothesis import HealthCheck, settings
from node_requirements import (
    HARNESS_NEEDS,
    HARNESSES_NEEDED,
    SKIPPED_SUMMARY_FILE,
    Need,
    harness_need,
    install_problem,
    need_skipped,
    skipped_summary,
    unavailable,
)
from real_cli_drivers import RealCliDrivers

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


@pytest.fixture(scope="session")
def real_cli_drivers() -> Iterator[RealCliDrivers]:
    """The conform driver of each real CLI, one process for the run (tests/real_cli_drivers.py)."""
    drivers = RealCliDrivers()
    try:
        yield drivers
    finally:
        drivers.close()


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


# Every test of these files runs with coverage's tracer paused in its call phase, as if it carried
# pytest-cov's `no_cover` marker: benchmarks/coverage_owners.py showed that a deterministic test of
# another file reaches every model arc they reach, so the coverage report stays the same, while
# the tracer cost their processes a third to a half of their CPU (#15 item 7). A test added to one
# of them is untraced too: docs/development.md says how to check that nothing is lost.
UNTRACED_FILES = frozenset(
    {
        "test_acp_recording.py",
        "test_answer_timeout.py",
        "test_blame_fresh_bugs_round6.py",
        "test_blame_matrix.py",
        "test_breakage_reduction.py",
        "test_case_from_colleague.py",
        "test_case_sharing.py",
        "test_case_travel.py",
        "test_check_arguments.py",
        "test_check_schema.py",
        "test_ci_use.py",
        "test_cli_conventions.py",
        "test_cli_output_encoding.py",
        "test_cli_run.py",
        "test_cli_signals.py",
        "test_conform_budget.py",
        "test_conform_driver_cleanup.py",
        "test_core_contracts.py",
        "test_crosshair_gate.py",
        "test_exhaustive.py",
        "test_exhaustive_switches.py",
        "test_fuzz_inputs.py",
        "test_harness_logs.py",
        "test_help_startup.py",
        "test_history_capability.py",
        "test_hookbridge_faults.py",
        "test_hookbridge_notes.py",
        "test_hookbridge_order.py",
        "test_hookbridge_verdicts.py",
        "test_impl_boundary.py",
        "test_install_as_user.py",
        "test_minimal_cases.py",
        "test_model_stream.py",
        "test_namespace.py",
        "test_presentation_blame_bridge_bugs.py",
        "test_process_target_deadline.py",
        "test_process_target_schema.py",
        "test_profile_symptoms.py",
        "test_profiles.py",
        "test_pytest_plugin.py",
        "test_python_versions.py",
        "test_readme_commands.py",
        "test_real_cli_output_shape.py",
        "test_real_harness_abort.py",
        "test_real_harness_conform.py",
        "test_real_harness_parallel.py",
        "test_real_harness_post_hooks.py",
        "test_real_harness_programs.py",
        "test_real_harnesses.py",
        "test_replay_startup.py",
        "test_safety.py",
        "test_seed_programs.py",
        "test_spec_closed_values.py",
        "test_spec_example.py",
        "test_spec_traceability.py",
        "test_target_cannot_run_here.py",
        "test_target_cannot_start.py",
    }
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "needs(*needs): what the test drives that only Node.js or npm provides "
        "(tests/node_requirements.py Need); skipped, saying so, where this machine lacks it",
    )


def _needs(item: pytest.Item) -> list[Need]:
    """What `item`'s `needs` markers ask for, Need.ITS_HARNESS read from its `harness` (or
    `name`) parameter."""
    needs = [need for marker in item.iter_markers("needs") for need in marker.args]
    if Need.ITS_HARNESS in needs:
        assert isinstance(item, pytest.Function), item
        needs.remove(Need.ITS_HARNESS)
        params = item.callspec.params
        needs.append(harness_need(params["harness"] if "harness" in params else params["name"]))
    return needs


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test of UNTRACED_FILES `no_cover`, before any other plugin reads markers;
    skip, with the reason, every test needing what node or npm provides where they are not."""
    for item in items:
        if item.path.name in UNTRACED_FILES:
            item.add_marker(pytest.mark.no_cover)
        for need in _needs(item):
            reason = unavailable(need)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
                break


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Install, once, a real CLI a test needs where node and npm are here but it is not yet (a
    bare `pytest`, no `make harnesses`), failing the test with why where that fails: the driver
    tests waited on a CLI never installed, one of them with no deadline."""
    for need in _needs(item):
        harness = HARNESSES_NEEDED.get(need)
        if harness is not None and unavailable(need) is None:
            problem = install_problem(harness)
            if problem is not None:
                pytest.fail(problem, pytrace=False)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the mutant kill matrix when the mutant tests ran, and how many tests were skipped
    for want of node or npm (never read as full coverage): `make test` prints it again last,
    with each real CLI whose tests saved no report (Makefile saved-harness-reports)."""
    module = sys.modules.get("test_mutants")
    matrix: list[str] = getattr(module, "KILL_MATRIX", []) if module is not None else []
    if matrix:
        terminalreporter.section("mutant kill matrix (mutant, rule broken, rule blamed, cost)")
        for row in matrix:
            terminalreporter.write_line(row)
    # Read from the skip reports, which a pytest-xdist controller receives too.
    reasons = [report.longrepr for report in terminalreporter.stats.get("skipped", [])]
    skipped = [
        need
        for reason in reasons
        if isinstance(reason, tuple)
        and (need := need_skipped(reason[2].removeprefix("Skipped: "))) is not None
    ]
    summary = skipped_summary(Counter(skipped))
    if summary:
        terminalreporter.section("skipped for want of Node.js/npm", yellow=True)
        for line in summary:
            terminalreporter.write_line(line)
    directory = reports_dir()
    if directory is not None and summary:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / SKIPPED_SUMMARY_FILE).write_text("\n".join(summary) + "\n", encoding="utf-8")
        for harness, need in HARNESS_NEEDS.items():
            if need in skipped:
                reason = unavailable(need) or ""
                (directory / f"{harness.value}.skipped.txt").write_text(reason + "\n", "utf-8")
