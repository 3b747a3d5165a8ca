"""pytest with loopspec's plugin, run in the test's own process (`InnerPytest`).

A test of the plugin reads what a user's `pytest --loopspec-impl=...` prints and exits with. A
fresh interpreter for each such run cost about a second of CPU (pytest, Hypothesis and loopspec
imported again) and bought nothing those tests look at; pytester runs it here instead. A module
using it loads pytester (`pytest_plugins`) and makes an `InnerPytest` of its fixtures. Such a
run, or a CLI verb a test runs in its own process where it ran one in a process of its own, is
`untraced`.
"""

from __future__ import annotations

import contextlib
import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import coverage
import pytest
from hypothesis import core as hypothesis_core
from hypothesis import settings

from loopspec.properties.conformance import run

# Every module a pytest run of the plugin imports lazily, imported here before pytester's
# snapshot of sys.modules: pytester drops what a run imported, while the modules that stay keep
# what they took from it (InnerPytest.run fails naming any module missing here).
PRELOADED = tuple(
    map(
        importlib.import_module,
        (
            "email.parser",
            "hypothesis.stateful",
            "importlib.readers",
            "jsonschema",
            "loopspec.model.fact_readers",
            "loopspec.properties.conformance.exhaustive",
            "loopspec.properties.conformance.machine",
            "loopspec.properties.conformance.presentation_sweep",
            "loopspec.properties.conformance.report_documents",
            "loopspec.properties.conformance.saved_cases",
            "loopspec.properties.conformance.situation_sweep",
            "loopspec.properties.conformance.suite",
            "loopspec.properties.spec_presentation",
            "loopspec.properties.stateful.swarm",
            "loopspec.version_lookup",
        ),
    )
)
CI_VARIABLES = ("CI", "BUILD_NUMBER")  # where either is set, pytest prints as on a CI


# The suite runs with the user's active Hypothesis profile; a small one keeps these runs short.
USER_CONFTEST = """
from hypothesis import settings

settings.register_profile("users-ci", max_examples={examples}, derandomize=True, database=None)
settings.load_profile("users-ci")
"""


@contextlib.contextmanager
def untraced() -> Iterator[None]:
    """Coverage stopped for what runs inside, as it never traced a process a test started: a
    run moved into the test's own process leaves the coverage report as it was, and the tracer
    would double its CPU."""
    tracer = coverage.Coverage.current()
    if tracer is not None:
        tracer.stop()
    try:
        yield
    finally:
        if tracer is not None:
            tracer.start()


class _ModulesAtEnd:
    """A plugin of an inner pytest run noting the modules loaded when the run ends, and the
    file of each, before pytester drops those the run imported."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def pytest_unconfigure(self) -> None:
        self.files = {
            name: str(getattr(m, "__file__", "")) for name, m in list(sys.modules.items())
        }


class InnerPytest:
    """Runs pytest with the plugin aimed at a target in this process, through pytester, as a
    user's `pytest` runs in their folder: a fresh interpreter for each run cost about a second
    of CPU (pytest, Hypothesis and loopspec imported again) and bought nothing the runs below
    look at. pytester gives back sys.modules and sys.path; this gives back the working folder,
    the environment, the Hypothesis profile the user's conftest loads and the seed
    `--hypothesis-seed` forces, each of which would otherwise outlive the run."""

    def __init__(self, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
        self.pytester = pytester
        self.monkeypatch = monkeypatch

    def __call__(
        self,
        tmp_path: Path,
        target: str,
        option: str = "--loopspec-impl",
        examples: int = 25,
        *more: str,
        cwd: Path | None = None,
        ci: bool | None = None,
        columns: int | None = None,
        conftest_end: str = "",
    ) -> subprocess.CompletedProcess[str]:
        """pytest run in `cwd` (default `tmp_path`, the rootdir) with the plugin aimed at
        `target`; `more` replaces `-x` (stop at the first failure) by other arguments. `ci`
        True or False sets `CI` or unsets both variables pytest reads as a CI's (None: as this
        run has them); `columns` the terminal's width pytest writes for; `conftest_end` ends
        the user's conftest."""
        conftest = USER_CONFTEST.format(examples=examples) + conftest_end
        (tmp_path / "conftest.py").write_text(conftest, encoding="utf-8")
        arguments = [*(more or ["-x"]), f"{option}={target}"]
        return self.run(cwd or tmp_path, tmp_path, *arguments, ci=ci, columns=columns)

    def run(
        self,
        cwd: Path,
        users_folder: Path,
        *arguments: str,
        ci: bool | None = None,
        columns: int | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """`pytest -p no:cacheprovider -q ARGUMENTS` in `cwd`: its exit status, stdout and
        stderr, as a process's would be. Only modules of `users_folder` may be new to this
        process after it: any other one pytester drops after the run, while the modules that
        stay keep what they took from it (a second run's conformance machine then failed
        Hypothesis's check that it is a RuleBasedStateMachine)."""
        profile = settings.get_current_profile_name()
        loaded_before, loaded_at_end = set(sys.modules), _ModulesAtEnd()
        with self.monkeypatch.context() as patch:
            patch.chdir(cwd)
            patch.setenv("PY_COLORS", "0")  # uncoloured where a CI job asks for colour
            if ci is not None:
                for name in CI_VARIABLES:
                    patch.delenv(name, raising=False)
                if ci:
                    patch.setenv("CI", "true")
            if columns is not None:
                patch.setenv("COLUMNS", str(columns))
            patch.setattr(hypothesis_core, "global_force_seed", hypothesis_core.global_force_seed)
            # A user's conftest may set it (the progress test does).
            patch.setattr(run, "PROGRESS_LINE_SECONDS", run.PROGRESS_LINE_SECONDS)
            try:
                with untraced():
                    done = self.pytester.runpytest_inprocess(
                        "-p", "no:cacheprovider", "-q", *arguments, plugins=[loaded_at_end]
                    )
            finally:
                settings.load_profile(profile)
        imported = sorted(
            name
            for name, file in loaded_at_end.files.items()
            if name not in loaded_before and not file.startswith(str(users_folder))
        )
        assert imported == [], f"import these in PRELOADED: {imported}"
        return subprocess.CompletedProcess(
            arguments, int(done.ret), done.stdout.str() + "\n", done.stderr.str() + "\n"
        )
