"""The saved cases the pytest plugin replays before the random suite, one test per case file.

Not collected by loopspec's own test run: the plugin adds this file only when a target is given
and there is a case to replay (`loopspec.properties.pytest_plugin` says where it looks). Each
test replays its case as `loopspec replay CASE --impl/--cmd ...` does, with the same code, on the
target the command line names (never the one the case records, SPEC SAFE-1), and fails with
what replay prints.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import attrs
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
    TargetFactory,
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


@attrs.frozen
class _Target:
    """The target the command line names, resolved once for every saved case, or why not."""

    factory: TargetFactory | None
    named: dict[str, str]
    unusable: TargetError | None = None


@pytest.fixture(scope="module")
def replay_target(request: pytest.FixtureRequest) -> Iterator[_Target]:
    """One target for all the saved cases: a --loopspec-cmd process serves every case, reset
    between them, as it serves conform's programs (one start of Node per case, before). A
    process that leaves without `bye` fails the last case's teardown, saying so."""
    impl = request.config.getoption("--loopspec-impl")
    cmd = request.config.getoption("--loopspec-cmd")
    try:
        factory, named = resolve_target(impl, cmd, PYTEST_OPTIONS)
    except TargetError as error:
        yield _Target(None, {}, error)
        return
    yield _Target(factory, named)
    unclosed: LoopSpecError | None = None
    try:
        close_factory(factory)
    except LoopSpecError as error:  # a shared process's wrong answer to shutdown
        unclosed = error
    if unclosed is not None:
        said = f"[{unclosed.rule_id}] after the saved cases replayed: {unclosed.message}"
        pytest.fail(f"loopspec: error: {said}", pytrace=False)


def test_saved_case_replays(
    saved_case: Path, replay_target: _Target, request: pytest.FixtureRequest
) -> None:
    """A saved case replays without a divergence on the target the command line names."""
    name = _as_typed(saved_case)
    # Failed or skipped outside the `except`s: inside, pytest would print the error as context.
    unusable = replay_target.unusable
    replay: Replay | None = None
    if unusable is None:
        try:
            case = load_case(saved_case)
        except TargetError as error:
            unusable = error
    if unusable is not None:
        pytest.fail(f"loopspec: error: [{unusable.rule_id}] {unusable.message}", pytrace=False)
    factory = replay_target.factory
    assert factory is not None
    profile, profile_note = replay_profile(None, case.profile)
    try:
        replay = replay_case(factory, case.config, case.commands, profile)
    except TargetError as broke:
        unusable = case_replay_error(name, broke)
    if isinstance(unusable, UndeclaredCapability):
        # Not a failure: conform never sends this target such a program, so the case says
        # nothing about it (a case from a build, or a colleague's loop, with more features).
        pytest.skip(f"loopspec: {unusable.message}")
    if unusable is not None:
        pytest.fail(f"loopspec: error: [{unusable.rule_id}] {unusable.message}", pytrace=False)
    assert replay is not None
    if replay.divergence is not None:
        target = replay_target.named
        impl = request.config.getoption("--loopspec-impl")
        cmd = request.config.getoption("--loopspec-cmd")
        replayed = target.get("cmd") or target.get("impl") or ""
        lines = [
            *replay_header(name, replayed, case, impl=impl, cmd=cmd, profile_note=profile_note),
            *replay_verdict_lines(name, case, profile, replay, bundled=False),
            "",
            f"replay it alone: {replay_command(Path(name), target)}",
        ]
        pytest.fail("\n".join(lines), pytrace=False)
