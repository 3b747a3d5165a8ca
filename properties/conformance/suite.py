"""The conformance suite the pytest plugin runs (`pytest --loopspec-impl=MODULE:FACTORY`).

Not collected by loopspec's own test run: the plugin adds this file only when a target is given.
It runs what `loopspec conform` runs, with the active Hypothesis profile's budget and the seed
of `--hypothesis-seed` (as `conform --seed`; without it, the same programs every run), and fails
with what the CLI prints: the shrunk program, the rule and how it is broken, the diff, the rule's
SPEC text, the saved case file and the pytest command that replays it alone (pytest's own
settings, such as `pythonpath`, apply to it as they do here; a `loopspec replay` line would miss
them) — and nothing of Hypothesis's own output. A divergence the target does not repeat when
its program is rerun is reported and saved alike, after conform's exit-2 error. A pass prints
conform's verdict and rule tally (`pytest -rP` shows it). While it runs, conform's progress line
is written on pytest's terminal every `PROGRESS_LINE_SECONDS`, past pytest's capture.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections import Counter
from collections.abc import Callable
from typing import Protocol

import pytest
from hypothesis import settings

from loopspec.impl.system_words import system_reason
from loopspec.model.errors import LoopSpecError, tagged
from loopspec.properties.cli.conform_run import (
    budget_note,
    counterexample_lines,
    counts_line,
    nothing_checked,
    saved_case,
    with_saved_program,
)
from loopspec.properties.conformance.case_portable import labelled
from loopspec.properties.conformance.compare import spec_pointer
from loopspec.properties.conformance.run import (
    PYTEST_OPTIONS,
    RunReport,
    TargetError,
    UnrepeatedDivergence,
    close_factory,
    resolve_target,
    rule_table,
    run_conformance,
    with_wait_hint,
)
from loopspec.properties.pytest_plugin import (
    as_typed,
    case_folder,
    committed_elsewhere,
    rerun_command,
    stop_when_not_started,
    take_started_target,
)


def _seed(config: pytest.Config) -> int | None:
    """Hypothesis's own `--hypothesis-seed=N`, taken as `loopspec conform --seed N`; None (the
    derandomized sequence: the same programs every run) when it is not given."""
    given = config.getoption("hypothesis_seed", default=None)
    if given is None:
        return None
    try:
        return int(given)
    except ValueError:
        said = f"--hypothesis-seed={given}: the loopspec suite takes an integer seed"
        pytest.fail(f"loopspec: error: {said}", pytrace=False)


class _Capture(Protocol):
    """What of pytest's capture manager (the `capturemanager` plugin) lifts its capture."""

    def global_and_fixture_disabled(self) -> contextlib.AbstractContextManager[None]: ...


def _progress_line(config: pytest.Config) -> Callable[[str], None] | None:
    """conform's progress as whole lines on pytest's terminal, written past its capture: a
    long suite printed nothing (its stderr is captured), and CI systems end a silent job.
    None where pytest has no terminal reporter (`-p no:terminal`). (On a pytest-xdist worker
    the lines go where its output does, which nobody sees: the README says so.)"""
    reporter: pytest.TerminalReporter | None = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return None
    capture: _Capture | None = config.pluginmanager.get_plugin("capturemanager")

    def say(line: str) -> None:
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            reporter.write_line(line)

    return say


def clock() -> float:
    """What `--loopspec-max-seconds` is measured with: `time.monotonic`, looked up at each call
    (a test of the budget replaces it, where sleeping a target through one was flaky)."""
    return time.monotonic()


def test_target_conforms_to_the_model(request: pytest.FixtureRequest) -> None:
    """Every random command program gives the same observations from the target and the model."""
    folder = case_folder(request.config)
    # From the suite's start (an --impl target's start-up included; a --cmd process started
    # with pytest, then handed on by the saved cases): the tests and saved cases before it are
    # sized apart.
    max_seconds: float | None = request.config.getoption("--loopspec-max-seconds")
    deadline = None if max_seconds is None else clock() + max_seconds
    # A target that cannot be loaded or breaks (SAFE-5) fails with the line `loopspec conform`
    # prints, not with a traceback through loopspec's own frames.
    # (Failed outside the `except`: inside, pytest would print the TargetError as its context.)
    unusable: TargetError | None = None
    try:
        # The process started when pytest started, where no saved case took it first.
        factory, target = take_started_target(request.config) or resolve_target(
            request.config.getoption("--loopspec-impl"),
            request.config.getoption("--loopspec-cmd"),
            PYTEST_OPTIONS,
            answer_timeout=request.config.getoption("--loopspec-answer-timeout"),
        )
    except TargetError as error:
        unusable = error
    if unusable is not None:
        pytest.fail(f"loopspec: error: {unusable}", pytrace=False)
    profile = settings()
    progress_line = _progress_line(request.config)
    broken: TargetError | None = None
    unclosed: LoopSpecError | None = None
    unrepeated: UnrepeatedDivergence | None = None
    try:
        report = run_conformance(
            factory,
            examples=profile.max_examples,
            steps=profile.stateful_step_count,
            seed_value=_seed(request.config),
            show_progress=progress_line is not None,
            progress_line=progress_line,
            deadline=deadline,
            clock=clock,
        )
    except UnrepeatedDivergence as not_again:  # reported and saved as conform does it
        unrepeated, report = not_again, not_again.report
    except TargetError as broke:
        stop_when_not_started(request.session, broke.never_got_going)
        rerun_case = functools.partial(rerun_command, request.config)
        committed = committed_elsewhere(request.config)
        broken = with_saved_program(broke, folder, target, None, rerun_case, also_in=committed)
    finally:
        try:
            close_factory(factory)
        except LoopSpecError as error:  # a shared process's wrong answer to shutdown
            unclosed = error
    if broken is not None:
        said = with_wait_hint(str(broken), "--loopspec-answer-timeout")
        # A Python loop's own frames, below the line: pytest prints no traceback of it.
        pytest.fail("\n".join([f"loopspec: error: {said}", *broken.trace]), pytrace=False)
    ended = budget_note(report, max_seconds, MAX_SECONDS)
    if report.divergence is None:
        if unclosed is not None:  # the run itself conformed: say what failed after it
            said = tagged(unclosed.rule_id, f"after a conforming run: {unclosed.message}")
            said = with_wait_hint(said, "--loopspec-answer-timeout")
            pytest.fail(f"loopspec: error: {said}", pytrace=False)
        if report.examples == 0:  # as conform's exit 2: a pass here would be green on nothing
            said = nothing_checked(report, max_seconds, MAX_SECONDS)
            pytest.fail(f"loopspec: error: {said}", pytrace=False)
        # What the pass is worth, as conform's verdict says it: `pytest -rP` shows it, and a
        # JUnit report keeps it as the test's output.
        statuses = Counter(row["status"] for row in rule_table(report))
        capabilities = ", ".join(sorted(report.capabilities)) or "none"
        print(f"loopspec conform: {report.target}: {report.verdict}")
        print(f"  {counts_line(report)}; capabilities: {capabilities}")
        if ended is not None:
            print(f"  {ended}")
        print(f"  rules: {'; '.join(f'{status} {n}' for status, n in statuses.items())}")
        return
    # A case saved by an earlier run, still diverging, is found again, not saved again: in the
    # case folder, or committed in loopspec-cases/ where the case folder is another.
    try:
        case_path, already_saved = saved_case(
            report, folder, target, committed_elsewhere(request.config)
        )
    except OSError as error:  # the counterexample is still reported, as `conform` reports it
        said = system_reason(error)
        # A read-only checkout is the usual cause in CI: name the option that moves the case,
        # or, given already, say its folder is the one pytest cannot write.
        elsewhere = (
            "--loopspec-case-dir names a folder pytest cannot write: give it one it can"
            if request.config.getoption("--loopspec-case-dir")
            else "--loopspec-case-dir=DIR saves it in a folder pytest can write"
        )
        saved = [f"loopspec: error: the case was not saved in {folder}: {said} ({elsewhere})"]
    else:
        if already_saved:
            found = (
                f"the case an earlier run saved: {as_typed(case_path)} (every run replays it first"
            )
        elif _on_ci():
            # A CI job's machine is thrown away: "from now on" held for no later run there.
            # (--loopspec-case-dir may name a folder outside the checkout.)
            kept = as_typed(case_path.parent)
            found = (
                f"saved case: {as_typed(case_path)} (on this CI job's machine: keep {kept}/ "
                "as the job's artifact and commit the case, and every run replays it first"
            )
        else:
            found = f"saved case: {as_typed(case_path)} (every run replays it first from now on"
        if unrepeated is not None:
            # Saved all the same, as conform saves it: the program is random, and without it
            # the race could not be shown or attached to a bug report. Its replay passing by
            # chance is said here and in the case's summary.
            found += "; it may pass there, as its rerun here did, until the loop answers alike"
        rerun = labelled("replay it alone", rerun_command(request.config, case_path))
        saved = ["", f"{found})", rerun]
    failure = counterexample_failure(report, target, saved, max_seconds)
    if unrepeated is not None:
        # First, as a broken target's error is: the rule broken is determinism (PROTO-1), its
        # words naming the first run's rule, and pytest's summary and JUnit show this line.
        failure = f"loopspec: error: {unrepeated}\n\n{failure}"
    pytest.fail(failure, pytrace=False)


def _on_ci() -> bool:
    """Whether this runs on a CI, by the variables pytest itself reads so (`CI`,
    `BUILD_NUMBER`)."""
    return any(name in os.environ for name in ("CI", "BUILD_NUMBER"))


MAX_SECONDS = "--loopspec-max-seconds"
"""The plugin's time budget, as a report names it (conform's `--max-seconds`)."""


def counterexample_failure(
    report: RunReport,
    target: dict[str, str],
    saved: list[str],
    max_seconds: float | None = None,
) -> str:
    """The failure the random suite's test ends with: `report`'s counterexample as `loopspec
    conform` prints it, then `saved` (the lines of its case); `max_seconds`, the
    `--loopspec-max-seconds` given."""
    assert report.divergence is not None
    rule = report.divergence.rule_id
    # What ended its shrinking early (Ctrl-C, its bounds, the time budget), as conform says it:
    # a program that may be cut further read as the smallest.
    ended = budget_note(report, max_seconds, MAX_SECONDS)
    lines = [
        # The rule first on the first line: pytest's summary and a JUnit report's message show
        # that line alone, and the summary cuts it at the terminal's width after the test's id
        # (a --cmd target named before it left no room for the rule at 80 to 120 columns).
        f"{rule}: loopspec conform: {report.target}: {report.verdict}{spec_pointer(rule)}",
        f"  {counts_line(report)}",
        *([f"  {ended}"] if ended is not None else []),
        "",
        *counterexample_lines(report, None, target),
        *saved,
    ]
    return "\n".join(lines)
