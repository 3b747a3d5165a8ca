"""The saved cases the pytest plugin replays before the random suite, one test per case file.

Each case file is collected as a file of its own (`SavedCaseFile`), so its test's node id is the
file's path from the rootdir and `replay` (`loopspec-cases/case-ADJ-4-0.json::replay`), and
`pytest loopspec-cases/case-ADJ-4-0.json` runs it alone. The plugin
collects these only when a target is given (`loopspec.properties.pytest_plugin` says where it
looks). Each test replays its case as `loopspec replay CASE --impl/--cmd ...` does, with the
same code, on the target the command line names (never the one the case records, SPEC SAFE-1),
and fails with what replay prints.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
import pytest

from loopspec.model.errors import LoopSpecError, tagged
from loopspec.properties.cli.conform_run import (
    UNREPEATED_PASS_NOTE,
    case_replay_error,
    not_a_valid_program,
    passes_unreached,
    passes_unrepeated,
    passes_unseen,
    replay_header,
    replay_profile,
    replay_verdict_lines,
    unreached_words,
)
from loopspec.properties.conformance.case_portable import labelled
from loopspec.properties.conformance.compare import spec_pointer
from loopspec.properties.conformance.run import (
    PYTEST_OPTIONS,
    Replay,
    SharedProcess,
    TargetError,
    TargetFactory,
    UndeclaredCapability,
    close_factory,
    load_case,
    replay_case,
    resolve_target,
    with_wait_hint,
)
from loopspec.properties.conformance.verdicts import Verdict
from loopspec.properties.pytest_plugin import (
    SAVED_CASE_TEST,
    SAYS_NOTHING_PROPERTY,
    as_typed,
    hand_on_started_target,
    rerun_command,
    stop_when_not_started,
    take_started_target,
)


@attrs.frozen
class _Target:
    """The target the command line names, resolved once for every saved case, or why not."""

    factory: TargetFactory | None
    named: dict[str, str]
    unusable: TargetError | None = None


# One target for all the saved cases: a --loopspec-cmd process serves every case, reset between
# them, as it serves conform's programs (one start of Node per case, before).
_REPLAY_TARGET = pytest.StashKey[_Target]()


def _replay_target(config: pytest.Config) -> _Target:
    """The target the saved cases replay on, resolved at the first case."""
    if _REPLAY_TARGET not in config.stash and (started := take_started_target(config)):
        # The process started when pytest started: none is started twice.
        config.stash[_REPLAY_TARGET] = _Target(*started)
    if _REPLAY_TARGET not in config.stash:
        impl = config.getoption("--loopspec-impl")
        cmd = config.getoption("--loopspec-cmd")
        try:
            timeout = config.getoption("--loopspec-answer-timeout")
            factory, named = resolve_target(impl, cmd, PYTEST_OPTIONS, answer_timeout=timeout)
        except TargetError as error:
            config.stash[_REPLAY_TARGET] = _Target(None, {}, error)
        else:
            config.stash[_REPLAY_TARGET] = _Target(factory, named)
    return config.stash[_REPLAY_TARGET]


def close_replay_target(
    config: pytest.Config, *, quietly: bool = False, hand_on: bool = False
) -> None:
    """End the saved cases' target, after the last of them (the plugin's teardown hook). A
    process that leaves without `bye` fails that case's teardown, saying so, unless `quietly`
    (pytest stopping early). With `hand_on` (the random suite runs next), a `--loopspec-cmd`
    process is kept running for the suite to take: started again there, its start-up fell
    inside `--loopspec-max-seconds` (a process a case broke is replaced at the next reset)."""
    target = config.stash.get(_REPLAY_TARGET, None)
    if target is None or target.factory is None:
        return
    del config.stash[_REPLAY_TARGET]
    if hand_on and isinstance(target.factory, SharedProcess):
        hand_on_started_target(config, target.factory, target.named)
        return
    unclosed: LoopSpecError | None = None
    try:
        close_factory(target.factory)
    except LoopSpecError as error:  # a shared process's wrong answer to shutdown
        unclosed = error
    if unclosed is not None and not quietly:
        said = tagged(unclosed.rule_id, f"after the saved cases replayed: {unclosed.message}")
        said = with_wait_hint(said, "--loopspec-answer-timeout")
        pytest.fail(f"loopspec: error: {said}", pytrace=False)


def heading(item: pytest.Item) -> str:
    """The heading of a case file's test's failure, `replay loopspec-cases/case-ADJ-4-0.json`:
    its name alone, `replay`, would not say which case failed. (Its node id would, but pytest
    -v writes an id ending in the heading with the heading's dots made `::`.)"""
    return f"{item.name} {item.nodeid.rpartition('::')[0]}"


class SavedCaseFile(pytest.File):
    """A case file, collected as a test file of its own: one test, `replay` (the file's path,
    in its node id, names the case)."""

    def collect(self) -> Iterable[SavedCase]:
        yield SavedCase.from_parent(self, name=SAVED_CASE_TEST)


class SavedCase(pytest.Item):
    """A saved case replays without a divergence on the target the command line names."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.extra_keyword_matches.add("saved_case")  # `-k "not saved_case"`

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, heading(self)

    def runtest(self) -> None:
        passed = _replays(self.path, _replay_target(self.config), self.config, self.session)
        # What the pass is worth, as replay says it: `pytest -rP` shows it, and a JUnit report
        # keeps it as the test's output.
        print("\n".join(passed.lines))
        if passed.says_nothing is not None:
            # Still a pass (replay exits 0: the program is valid), but not a silent one: a case
            # cut by hand past its rule's situation passed as if the bug were fixed. Said in
            # pytest's terminal summary and as a JUnit property, never as a warning (a project
            # with `filterwarnings = error` would see a passing case fail).
            self.user_properties.append((SAYS_NOTHING_PROPERTY, passed.says_nothing))


class PassedOverFile(pytest.Item):
    """A file of a case folder named like a case but not ending in .json (`x.json.txt`, as a
    mail client saves an attachment): not replayed, and reported as a skipped test saying so,
    as `loopspec replay DIR` names it on stderr."""

    def __init__(self, *, reason: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reason = reason
        self.extra_keyword_matches.add("saved_case")  # `-k "not saved_case"`, as the cases

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, heading(self)

    def runtest(self) -> None:
        pytest.skip(f"loopspec: {self.reason}")


@attrs.frozen
class _Passed:
    """A saved case that replayed without a divergence: replay's report of it (`lines`), and
    what its pass says nothing of (`says_nothing`: its verdict line, and why), if anything."""

    lines: list[str]
    says_nothing: str | None


def _replays(
    saved_case: Path, replay_target: _Target, config: pytest.Config, session: pytest.Session
) -> _Passed:
    """Replay `saved_case`: fail with replay's report when it diverges, with its error when it
    cannot be used; skip when it needs a capability the target does not declare. Passing, what
    replay prints of it."""
    name = as_typed(saved_case)
    # Failed or skipped outside the `except`s: inside, pytest would print the error as context.
    unusable = replay_target.unusable
    replay: Replay | None = None
    if unusable is None:
        try:
            case = load_case(saved_case)
        except TargetError as error:
            unusable = error
    if unusable is not None:
        pytest.fail(f"loopspec: error: {unusable}", pytrace=False)
    factory = replay_target.factory
    assert factory is not None
    profile, profile_note = replay_profile(None, case.profile)
    try:
        replay = replay_case(factory, case.config, case.commands, profile)
    except TargetError as broke:
        unusable = case_replay_error(name, case, broke)
        stop_when_not_started(session, broke.never_got_going)
    else:
        unusable = not_a_valid_program(name, case, profile, replay)
    if isinstance(unusable, UndeclaredCapability):
        # Not a failure: conform never sends this target such a program, so the case says
        # nothing about it (a case from a build, or a colleague's loop, with more features).
        pytest.skip(f"loopspec: {unusable.message}")
    if unusable is not None:
        said = with_wait_hint(str(unusable), "--loopspec-answer-timeout")
        # A Python loop's own frames, below the line: pytest prints no traceback of it.
        trace = unusable.trace if isinstance(unusable, TargetError) else ()
        pytest.fail("\n".join([f"loopspec: error: {said}", *trace]), pytrace=False)
    assert replay is not None
    if replay.divergence is not None:
        target = replay_target.named
        rule = replay.divergence.rule_id
        lines = [
            # First, the rule first: pytest's summary line and a JUnit report's message show
            # this line alone, and the summary cuts it at the terminal's width.
            f"{rule}: loopspec replay: {name}: {Verdict.DIVERGES}{spec_pointer(rule)}",
            *replay_header(name, target, case, profile_note=profile_note),
            *replay_verdict_lines(name, case, profile, replay, bundled=not target),
            "",
            labelled("replay it alone", rerun_command(config, saved_case)),
        ]
        pytest.fail("\n".join(lines), pytrace=False)
    bundled = not replay_target.named
    lines = [
        *replay_header(name, replay_target.named, case, profile_note=profile_note),
        *replay_verdict_lines(name, case, profile, replay, bundled=bundled),
    ]
    verdict = next(line for line in lines[1:] if line.startswith(f"{name}: "))
    says_nothing = None
    if passes_unrepeated(case, profile, replay, bundled=bundled):
        says_nothing = f"{verdict}: {UNREPEATED_PASS_NOTE}"
    elif case.rule and passes_unreached(case, profile, replay, bundled=bundled):
        says_nothing = f"{verdict}: {unreached_words(case.rule)}"
    elif passes_unseen(case, profile, replay, bundled=bundled) is not None:
        says_nothing = verdict  # it names the capability the target does not declare
    return _Passed(lines, says_nothing)
