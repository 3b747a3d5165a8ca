"""The saved cases the pytest plugin replays before the random suite, one test per case file.

Not collected by loopspec's own test run: the plugin adds this file only when a target is given
and there is a case to replay (`loopspec.properties.pytest_plugin` says where it looks). Each
test replays its case as `loopspec replay CASE --impl/--cmd ...` does, with the same code, on the
target the command line names (never the one the case records, SPEC SAFE-1), and fails with
what replay prints.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from loopspec.model.errors import LoopSpecError
from loopspec.properties.cli.conform_run import (
    case_replay_error,
    replay_command,
    replay_header,
    replay_profile,
    replay_verdict_lines,
)
from loopspec.properties.conformance.run import (
    PYTEST_OPTIONS,
    Replay,
    TargetError,
    UndeclaredCapability,
    close_factory,
    load_case,
    replay_case,
    resolve_target,
)
from loopspec.properties.pytest_plugin import SAVED_CASES


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One test per saved case file, named after it."""
    if "saved_case" in metafunc.fixturenames:
        cases = metafunc.config.stash[SAVED_CASES]
        metafunc.parametrize("saved_case", [pytest.param(path, id=name) for path, name in cases])


def _as_typed(path: Path) -> str:
    """The case's path from the current directory when it lies below it: what a user would
    type to replay it alone."""
    here = Path(os.getcwd())
    return str(path.relative_to(here)) if path.is_relative_to(here) else str(path)


def test_saved_case_replays(saved_case: Path, request: pytest.FixtureRequest) -> None:
    """A saved case replays without a divergence on the target the command line names."""
    impl = request.config.getoption("--loopspec-impl")
    cmd = request.config.getoption("--loopspec-cmd")
    name = _as_typed(saved_case)
    # Failed or skipped outside the `except`s: inside, pytest would print the error as context.
    unusable: TargetError | None = None
    replay: Replay | None = None
    unclosed: LoopSpecError | None = None
    try:
        case = load_case(saved_case)
        factory, target = resolve_target(impl, cmd, PYTEST_OPTIONS)
    except TargetError as error:
        unusable = error
    if unusable is not None:
        pytest.fail(f"loopspec: error: [{unusable.rule_id}] {unusable.message}", pytrace=False)
    profile, profile_note = replay_profile(None, case.profile)
    try:
        replay = replay_case(factory, case.config, case.commands, profile)
    except TargetError as broke:
        unusable = case_replay_error(name, broke)
    finally:
        try:
            close_factory(factory)
        except LoopSpecError as error:  # a shared process's wrong answer to shutdown
            unclosed = error
    if isinstance(unusable, UndeclaredCapability):
        # Not a failure: conform never sends this target such a program, so the case says
        # nothing about it (a case from a build, or a colleague's loop, with more features).
        pytest.skip(f"loopspec: {unusable.message}")
    if unusable is not None:
        pytest.fail(f"loopspec: error: [{unusable.rule_id}] {unusable.message}", pytrace=False)
    assert replay is not None
    replayed = target.get("cmd") or target.get("impl") or ""
    if replay.divergence is not None:
        lines = [
            *replay_header(name, replayed, case, impl=impl, cmd=cmd, profile_note=profile_note),
            *replay_verdict_lines(name, case, profile, replay, bundled=False),
            "",
            f"replay it alone: {replay_command(Path(name), target)}",
        ]
        pytest.fail("\n".join(lines), pytrace=False)
    if unclosed is not None:  # the replay itself did not diverge: say what failed after it
        said = f"[{unclosed.rule_id}] after a replay without divergence: {unclosed.message}"
        pytest.fail(f"loopspec: error: {said}", pytrace=False)
