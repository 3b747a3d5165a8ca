"""pytest plugin: `pytest --loopspec-impl=package.module:factory` runs the conformance suite.

The factory returns a `loopspec.properties.conformance.target.ConformanceTarget`, for example an
adapter around your own loop; `--loopspec-cmd=COMMAND` runs a driver-protocol process instead.
A target option written wrongly, a module or factory that cannot be loaded, a `--loopspec-cmd`
process that exits or is still silent at the answer timeout before answering its first message
(it is started when pytest starts, but in a mode running no test: `--collect-only`,
`--fixtures`, `--markers`), or a case folder pytest cannot write, stops pytest before it
collects anything (a usage error, exit 4, one line); a factory that makes no target fails each
loopspec test with that line. Needs pytest 7 or newer.

First, every saved case is replayed against that target as a test of its own, collected as its
file (`loopspec-cases/case-ADJ-4-0.json::replay`; naming the file or that id runs the case
alone): the `*.json` files of the case directory
(`--loopspec-case-dir`, default `loopspec-cases/` in pytest's rootdir, whose committed cases
replay also when that option names another folder), of each
`--loopspec-cases=PATH` (a directory, or one case file; repeatable), and each file named on the
command line that holds a case, by its content, whatever its name (`pytest
~/Downloads/alice-case.json --loopspec-cmd=...`; named without a target, it stops pytest saying
to name one), and each case file of a folder named there, as `replay DIR` reads one. Each replays as
`loopspec replay CASE` does, on the target the command line names (never the one the case
records, SPEC SAFE-1) and with the profile the case names. It fails with replay's report when the
case still diverges and with replay's one-line error when the file cannot be used; it is skipped,
saying why, when the case needs a capability the target does not declare (conform would never
send that target such a program). A pass prints replay's verdict (`pytest -rP` shows it); one
whose program no longer sets up the rule the case recorded, or whose target cannot show that
rule, is listed in pytest's terminal summary and given a `loopspec` JUnit property saying so
(a warning would fail it under `filterwarnings = error`). A file of a case folder named like a
case but not ending in `.json` (`x.json.txt`) is not replayed: it is a skipped test saying so,
as replay names it.
Commit the case files next to your tests: they are your regression suite. `-k "not saved_case"`
runs the random suite alone.

Then the random suite, `loopspec.properties.conformance.suite`: it runs as many programs as the
active Hypothesis profile's `max_examples`, so a profile registered in your `conftest.py` and
chosen with `--hypothesis-profile=NAME` sizes it (loopspec's own `ci`, `dev` and `thorough`
profiles exist only in its repository's tests), and `--loopspec-max-seconds=S` ends its search S
seconds after it started, as `conform --max-seconds` does (a pass saying so; none run by then, a
failure). Its programs are the same every run unless Hypothesis's `--hypothesis-seed=N` is given:
then they are those `loopspec conform --seed N` draws. A counterexample is saved in the case
directory; so is the program of a divergence the target did not repeat when it was rerun, its
failure beginning with conform's exit-2 error. A failure's first line names the rule, and it is all
that pytest's short summary and a JUnit report's `message` show of it, wherever pytest runs (`CI`
set, `-vv`; an error's without its `loopspec: error: `); its last line is the pytest command that
replays the saved case alone. A pass prints conform's verdict and rule tally (`pytest -rP` shows
it). While it runs, it writes conform's progress line on pytest's terminal every 30 s, past
pytest's capture (a long suite printed nothing, and CI systems end silent jobs).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
from collections.abc import Generator, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from loopspec.model.errors import NO_RULE_BROKEN, LoopSpecError, tagged
from loopspec.properties.cli.counts import seconds_above_zero, seconds_at_least_zero
from loopspec.properties.conformance.case_portable import portable

if TYPE_CHECKING:
    from loopspec.properties.conformance.run import SharedProcess

SUITE = Path(__file__).with_name("conformance") / "suite.py"
DEFAULT_CASE_DIR = "loopspec-cases"

SAVED_CASES = pytest.StashKey[list[Path]]()
"""The case files to replay, found when pytest starts."""

SAVED_CASE_TEST = "replay"
"""The name of a saved case's one test, after its file's path: `case-ADJ-4-0.json::replay`. The
file's name in it too (`::test_saved_case_replays[case-ADJ-4-0.json]`) made `FAILED ` and the id
84 characters, and pytest's summary at 80 columns then shows none of the message, the rule."""

SAYS_NOTHING_PROPERTY = "loopspec"
"""The name of the JUnit property (a test report's `user_properties`) a saved case gets when it
passed while its pass says nothing of the rule it recorded (its program no longer sets it up, a
target that cannot show it, a divergence its loop did not repeat), holding replay's verdict and
why: pytest's terminal summary lists these (`pytest_terminal_summary`), read from the reports,
which pytest-xdist sends its controller, where a list kept by the process that ran the case
stayed in the worker and the controller's summary said nothing."""

PASSED_OVER = pytest.StashKey[list[tuple[Path, str]]]()
"""The files of the case folders named like a case but not read as one (`x.json.txt`), with
the line that says so: each is reported as a skipped test."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add `--loopspec-impl`, `--loopspec-cmd`, `--loopspec-answer-timeout`,
    `--loopspec-max-seconds`, `--loopspec-case-dir` and `--loopspec-cases`."""
    group = parser.getgroup("loopspec", "check a tool-call loop against the loopspec model")
    group.addoption(
        "--loopspec-impl",
        metavar="MODULE:FACTORY",
        default=None,
        help="run the conformance suite against this ConformanceTarget factory: as many "
        "programs as the Hypothesis profile's max_examples (--hypothesis-profile), the same "
        "every run unless --hypothesis-seed=N draws those of `loopspec conform --seed N`",
    )
    group.addoption(
        "--loopspec-cmd",
        metavar="COMMAND",
        default=None,
        help="run the conformance suite against a driver-protocol process",
    )
    group.addoption(
        "--loopspec-answer-timeout",
        metavar="S",
        type=seconds_above_zero,
        default=None,
        help="seconds a --loopspec-cmd process has to answer each message, its start-up (the "
        "first reset) included (default 10)",
    )
    group.addoption(
        "--loopspec-max-seconds",
        metavar="S",
        type=seconds_at_least_zero,
        default=None,
        help="end the random suite's search when S seconds have passed since it started, with "
        "the programs run by then (the one running is finished first): it passes saying how "
        "many, and fails when none ran; a counterexample being shrunk keeps the smallest "
        "program found by then (default: no limit, max_examples programs)",
    )
    group.addoption(
        "--loopspec-case-dir",
        metavar="DIR",
        default=None,
        help="where a failing program is saved as a replayable case; the cases already there, "
        f"and those of {DEFAULT_CASE_DIR}/ in the rootdir, are replayed first, one test each "
        f"(default {DEFAULT_CASE_DIR}/ in the rootdir)",
    )
    group.addoption(
        "--loopspec-cases",
        metavar="PATH",
        action="append",
        default=[],
        help="also replay the case files in this directory (its *.json), or this case file, "
        "one test each, before the random suite; repeatable",
    )


ERROR_PREFIX = "loopspec: error: "
"""How the `loopspec` command's errors, and so the plugin's, begin."""


def refused(text: str, rule_id: str = NO_RULE_BROKEN) -> pytest.UsageError:
    """What stops pytest before it collects anything, worded as the `loopspec` command's errors
    are but for their `error: `, which pytest's own `ERROR: ` ahead says already (the line read
    `ERROR: loopspec: error: ...`): one line, naming a rule only when one is broken."""
    return pytest.UsageError(f"loopspec: {tagged(rule_id, text)}")


STOPPED_AT_START_UP = (
    "loopspec: the target never answered its first message: stopping here, where every later "
    "saved case and the random suite would start it again and fail alike"
)
"""What pytest ends with after a loopspec test whose `--loopspec-cmd` process never got going:
it exited, or was still silent at the deadline, before its first answer."""


def stop_when_not_started(session: pytest.Session, not_started: bool) -> None:
    """Stop pytest after this test when its target never got going
    (`TargetError.never_got_going`): a process that answered its first message when pytest
    started (`_start_the_process`) and, started again, did not, failed every later saved case
    and the random suite alike, each restarting it and printing the same words, or waiting out
    the answer timeout."""
    if not_started:
        session.shouldfail = STOPPED_AT_START_UP


def case_folder(config: pytest.Config) -> Path:
    """Where the suite saves a counterexample: `--loopspec-case-dir` as given (relative to the
    current directory), else `loopspec-cases/` in the rootdir, found wherever pytest runs."""
    given = config.getoption("--loopspec-case-dir")
    return _typed_path(given).resolve() if given else config.rootpath / DEFAULT_CASE_DIR


def committed_elsewhere(config: pytest.Config) -> list[Path]:
    """`loopspec-cases/` in the rootdir, where `--loopspec-case-dir` names another folder and
    it exists: the cases committed there replay too, and a failure found again is theirs, not
    a new case of the other folder ([] otherwise)."""
    committed = config.rootpath / DEFAULT_CASE_DIR
    elsewhere = committed.is_dir() and committed.resolve() != case_folder(config).resolve()
    return [committed] if elsewhere else []


def _typed_path(given: str) -> Path:
    """A path option as typed: `--loopspec-cases=~/Downloads/case.json` reaches pytest with its
    `~` unexpanded (a shell expands one only at a word's start), and named nothing. A `~name` of
    a user this machine lacks stays as typed, as a shell leaves it (pathlib's raises)."""
    return Path(os.path.expanduser(given))


def as_typed(path: Path) -> str:
    """`path` from the current directory when it lies below it: what a user would type."""
    here = Path(os.getcwd())
    return str(path.relative_to(here)) if path.is_relative_to(here) else str(path)


def rerun_command(config: pytest.Config, case: Path) -> str:
    """The pytest command line that replays `case` alone on this run's target: what a report
    under pytest offers to rerun (a `loopspec replay` line would not see what pytest's own
    settings, such as `pythonpath`, put on the import path). A `--loopspec-cmd` is shown as a
    case records it: a report's label says when a `<hidden>` needs its secret back
    (`case_portable.labelled`)."""
    typed = as_typed(case)
    argv = ["pytest", typed]
    if not case.resolve().is_relative_to(config.rootpath.resolve()):
        # pytest finds its configuration from the paths it is given: given a case outside the
        # project (a colleague's, in ~/Downloads), it read no pytest.ini, and without its
        # `pythonpath` the line failed to load the loop it names.
        inipath = config.inipath
        found = ["-c", as_typed(inipath)] if inipath else [f"--rootdir={as_typed(config.rootpath)}"]
        argv[1:1] = found
    for option in ("--loopspec-impl", "--loopspec-cmd", "--loopspec-case-dir"):
        given = config.getoption(option)
        if given:
            # A --cmd as the case records it (SAFE-1): a report lands in CI logs.
            shown = portable(given) if option == "--loopspec-cmd" else given
            argv.append(f"{option}={shown}")
    timeout = config.getoption("--loopspec-answer-timeout")
    if timeout is not None:
        argv.append(f"--loopspec-answer-timeout={timeout:g}")
    # A case outside the case folder needs no --loopspec-cases: named as a path, it is read.
    return shlex.join(argv)


def _saved_cases(config: pytest.Config, as_paths: Sequence[str] = ()) -> list[Path]:
    """Each case file to replay, in the order named (a folder's sorted by name), then those
    the command line names as paths (`as_paths`, `_cases_named_as_paths`). The files the
    folders hold named like a case but not read (`PASSED_OVER`) are stashed too."""
    found: list[Path] = []
    passed: list[tuple[Path, str]] = []
    named = config.getoption("--loopspec-cases")
    folder = case_folder(config)
    if folder.exists() and not folder.is_dir():  # as `conform --case-dir` refuses it
        where = config.getoption("--loopspec-case-dir") or folder
        raise refused(f"--loopspec-case-dir {where}: exists and is not a directory")
    named = [*named, *as_paths]
    # The committed cases still replay where new ones are saved elsewhere (a read-only
    # checkout's `--loopspec-case-dir="$RUNNER_TEMP/..."`): else that option dropped them.
    kept = [(committed, None) for committed in committed_elsewhere(config)]
    places = [(folder, None), *kept, *((_typed_path(given), given) for given in named)]
    for place, given in places:
        if place.is_file():
            found.append(place.resolve())
        elif place.is_dir():
            # As `replay DIR` reads a folder (x.JSON is a case; x.json.txt is named, not read).
            from loopspec.properties.conformance.case_folder import (  # noqa: PLC0415 (only here)
                folder_cases,
                passed_over_words,
            )

            listed, passed_over = folder_cases(place)
            if not listed and given is not None:  # a wrong folder must not pass for a suite
                also = f"; {passed_over_words(given, passed_over)}" if passed_over else ""
                raise refused(
                    f"--loopspec-cases {given}: a directory without case files (*.json){also}"
                )
            found += [path.resolve() for path in listed]
            # Not read, as `replay DIR` names them: in silence, an attachment saved as
            # x.json.txt beside the other cases looked replayed and passing.
            typed = given or as_typed(place)
            passed += [(path.resolve(), passed_over_words(typed, [path])) for path in passed_over]
        elif place.exists():
            # A device or a FIFO: refused unread. `replay` reads a FIFO once, as a stream; here
            # collection names the case and its item reads it later, so a pipe cannot serve both.
            from loopspec.impl.user_files import file_kind  # noqa: PLC0415 (only here)

            kind = file_kind(place.stat().st_mode)
            raise refused(
                f"--loopspec-cases {given}: is {kind}, not a case file or a directory", "SAFE-4"
            )
        elif given is not None:  # the default folder need not exist until a case is saved
            raise refused(f"--loopspec-cases {given}: no such file or directory")
    config.stash[PASSED_OVER] = list(dict(passed).items())  # a folder named twice, once
    return list(dict.fromkeys(found))  # a folder named twice replays once


def _cases_named_as_paths(config: pytest.Config, *, in_folders: bool) -> list[str]:
    """The command-line paths (`pytest ~/Downloads/alice-case.json`, maybe with `::test`) that
    name a file holding a loopspec case, by its content: pytest collects no such file outside
    the case folders, and said "not found" of a colleague's case named so, where naming it with
    `--loopspec-cases` replayed it. Only files pytest would not collect as Python are read.
    `in_folders`: also each case file (`*.json` holding a case) of a folder named there, as
    `replay DIR` reads one: `pytest ~/Downloads --loopspec-cmd=...` ran the random suite alone
    and passed, as if the cases there had. Only paths typed count, not pytest's default ones."""
    named: list[str] = []
    typed_args = set(config.invocation_params.args)
    for argument in config.args:
        if argument not in typed_args:
            continue  # pytest's testpaths or current folder: nothing the user named
        typed = argument.partition("::")[0]
        path = Path(config.invocation_params.dir, _typed_path(typed))
        if path.is_file() and path.suffix != ".py":
            # Imported here: the plugin loads in every pytest run, this only given a file to read.
            from loopspec.properties.conformance.case_text import holds_a_case  # noqa: PLC0415

            if holds_a_case(path):
                named.append(typed)
        elif in_folders and path.is_dir():
            from loopspec.properties.conformance.case_folder import folder_cases  # noqa: PLC0415
            from loopspec.properties.conformance.case_text import holds_a_case  # noqa: PLC0415

            listed = folder_cases(path).cases
            named += [os.path.join(typed, case.name) for case in listed if holds_a_case(case)]
    return named


def pytest_configure(config: pytest.Config) -> None:
    """Check the target and find the saved cases when a target was given (a target that cannot
    be loaded, or a wrong --loopspec-cases, stops pytest before it collects anything, as a
    case named as a path without a target does)."""
    for option in ("--loopspec-impl", "--loopspec-cmd"):
        given = config.getoption(option)
        if given is not None and not given.strip():
            # As conform refuses an empty --cmd: `--loopspec-cmd="$LOOP"` with LOOP unset
            # collected no loopspec test and ended "no tests ran", naming nothing.
            from loopspec.properties.conformance.run import empty_target  # noqa: PLC0415

            raise refused(empty_target(option))
    if config.getoption("--loopspec-impl") and config.getoption("--loopspec-cmd"):
        # As conform refuses --impl with --cmd: one of them would be dropped unseen.
        raise refused("--loopspec-impl and --loopspec-cmd each name the target: give one")
    timeout = config.getoption("--loopspec-answer-timeout")
    if timeout is not None and not config.getoption("--loopspec-cmd"):  # as conform refuses it
        raise refused("--loopspec-answer-timeout applies to --loopspec-cmd only")
    if config.getoption("--loopspec-impl") or config.getoption("--loopspec-cmd"):
        _clean_up_at_sigterm(config)  # from here: the check may start a --loopspec-cmd process
        _check_target(config)
        as_paths = _cases_named_as_paths(config, in_folders=True)
        config.stash[SAVED_CASES] = cases = _saved_cases(config, as_paths)
        if not any(_names_a_file(config, argument, cases) for argument in config.args):
            _check_case_folder(config)  # the random suite runs, and saves its counterexample
    elif as_paths := _cases_named_as_paths(config, in_folders=False):
        # Without a target the plugin collects nothing, and pytest said "not found" of it.
        raise refused(
            f"{as_paths[0]} is a loopspec case: name the loop to replay it on, "
            "--loopspec-cmd=COMMAND (a driver-protocol process) or --loopspec-impl=MODULE:FACTORY"
        )


def _check_case_folder(config: pytest.Config) -> None:
    """Stop pytest before it collects anything when the case folder cannot be written, as
    `conform --case-dir` refuses one before its search: found only when the search saved its
    counterexample, minutes later, no case was kept to replay (a read-only checkout in CI)."""
    from loopspec.properties.cli.conform_run import unwritable_folder  # noqa: PLC0415 (as above)

    folder = case_folder(config)
    why = unwritable_folder(folder)
    if why is None:
        return
    given = config.getoption("--loopspec-case-dir")
    if given:
        raise refused(
            f"--loopspec-case-dir {given}: {why}: give it a folder pytest can write, where the "
            "random suite saves a counterexample"
        )
    raise refused(
        f"the case folder, {folder} ({DEFAULT_CASE_DIR}/ in pytest's rootdir, where the random "
        f"suite saves a counterexample): {why}: --loopspec-case-dir=DIR names one pytest can "
        'write (in GitHub Actions, --loopspec-case-dir="$RUNNER_TEMP/loopspec-cases")'
    )


def _clean_up_at_sigterm(config: pytest.Config) -> None:
    """Until pytest ends, let SIGTERM (a CI job's timeout) end the targets' processes and remove
    the in-process target's scratch folder before it ends pytest as it would have: its default
    action, which pytest keeps, left both (a loopspec-* folder in /dev/shm, a --cmd loop running
    in a session of its own). A handler someone else set is left alone."""
    import signal  # noqa: PLC0415 (only with a target)
    import threading  # noqa: PLC0415 (likewise)

    if threading.current_thread() is not threading.main_thread():
        return  # signal.signal works from the main thread only
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return
    signal.signal(signal.SIGTERM, _end_after_cleaning_up)
    config.add_cleanup(_restore_sigterm)


def _restore_sigterm() -> None:
    """SIGTERM's default action back, where the handler is still ours (pytest run in-process by
    a test, pytester's, ends before the process that started it)."""
    import signal  # noqa: PLC0415 (loaded by _clean_up_at_sigterm)

    if signal.getsignal(signal.SIGTERM) is _end_after_cleaning_up:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _end_after_cleaning_up(signum: int, _frame: object) -> None:
    """End what the targets left (their modules looked up, not imported: one not loaded left
    nothing), then end pytest by the signal's default action, as without this handler."""
    import signal  # noqa: PLC0415 (loaded by _clean_up_at_sigterm)
    import sys  # noqa: PLC0415 (likewise)

    for module, ending in (
        ("loopspec.properties.conformance.process_target", "end_running_targets"),
        ("loopspec.properties.conformance.impl_target", "remove_scratch"),
    ):
        end = getattr(sys.modules.get(module), ending, None)
        if end is not None:
            with contextlib.suppress(OSError):
                end()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _check_target(config: pytest.Config) -> None:
    """Stop pytest before it collects anything, with one line, when the target is written
    wrongly, its module cannot be loaded, its program cannot start (a setup error naming no
    rule) or its process never answers its first message (`_start_the_process`): else every
    saved case and the random suite would fail with that same line. (Started, not guessed
    from its words: which of them are files, `node -r dotenv/config main.mjs`, a check could
    only guess.)"""
    # Imported here: the plugin loads in every pytest run, the conformance code only with a target.
    from loopspec.properties.conformance.run import (  # noqa: PLC0415
        PYTEST_OPTIONS,
        SharedProcess,
        TargetError,
        close_factory,
        resolve_target,
    )

    unusable: TargetError | None = None
    try:
        factory, named = resolve_target(
            config.getoption("--loopspec-impl"),
            config.getoption("--loopspec-cmd"),
            PYTEST_OPTIONS,
            answer_timeout=config.getoption("--loopspec-answer-timeout"),
        )
    except TargetError as error:
        unusable = error
    else:
        cannot_start = factory.start_refusal() if isinstance(factory, SharedProcess) else None
        elsewhere = _script_in_the_rootdir(config)
        if (
            elsewhere is not None
            or cannot_start is not None
            or not isinstance(factory, SharedProcess)
        ):
            close_factory(factory)
        if elsewhere is not None:
            raise refused(elsewhere)
        if cannot_start is not None:
            raise refused(cannot_start)
        if isinstance(factory, SharedProcess):
            _start_the_process(config, factory, named)
    if unusable is not None:  # raised outside the `except`: pytest would print the context
        # Below the line, where a module that raised while imported did: its own frames.
        said = "\n".join([unusable.message + _configuration_unread(config), *unusable.trace])
        raise refused(said, unusable.rule_id)


STARTED_TARGET = pytest.StashKey[tuple["SharedProcess", dict[str, str]]]()
"""The `--loopspec-cmd` process started when pytest starts, and its target as a case records
it, for the first loopspec test to take (`take_started_target`)."""


def _start_the_process(
    config: pytest.Config, factory: SharedProcess, named: dict[str, str]
) -> None:
    """Start the `--loopspec-cmd` process and send it its first message, stopping pytest before
    it collects anything when it never answers it (it exits, a script mistyped, or is silent at
    the answer timeout): the first saved case was failed for it, its file named as the cause.
    The process is kept for the first loopspec test (none is started twice). Not where pytest
    runs no test (`_runs_no_test`), nor on pytest-xdist's workers, whose controller started
    one (then ended it: its workers start their own)."""
    from loopspec.properties.conformance.process_target import (  # noqa: PLC0415 (as above)
        ProcessTargetError,
    )
    from loopspec.properties.conformance.run import with_wait_hint  # noqa: PLC0415 (likewise)
    from loopspec.properties.stateful.strategies import CONFIGS  # noqa: PLC0415 (likewise)

    # No test runs here: a pytest-xdist worker's controller started one already.
    if _runs_no_test(config) or hasattr(config, "workerinput"):
        factory.close()
        return
    not_started: ProcessTargetError | None = None
    try:
        factory().reset(CONFIGS[0])
    except ProcessTargetError as error:  # one that answered wrongly: its first test says so
        if error.at_start_up or error.hung_at_start_up:
            not_started = error
    distributed = getattr(config.option, "dist", "no") != "no"  # its workers run the tests
    if not_started is not None or distributed:
        with contextlib.suppress(LoopSpecError):  # a process that never answered has no bye
            factory.close()
    if not_started is not None:  # raised outside the `except`: pytest would print the context
        said = with_wait_hint(not_started.message, "--loopspec-answer-timeout")
        raise refused(said, not_started.rule_id)
    if not distributed:
        hand_on_started_target(config, factory, named)


def hand_on_started_target(
    config: pytest.Config, factory: SharedProcess, named: dict[str, str]
) -> None:
    """Keep the running `--loopspec-cmd` process for the next loopspec test to take
    (`take_started_target`): the one started with pytest, or the saved cases' after the last of
    them, for the random suite (a second start fell inside `--loopspec-max-seconds`)."""
    config.stash[STARTED_TARGET] = (factory, named)
    config.add_cleanup(functools.partial(_end_untaken_target, config))


# The options of pytest's modes that run no test body: they list the tests (`--collect-only`),
# the fixtures or markers, the cache, pytest's help, or set fixtures up alone. Looked up by
# name with a default: a plugin giving one may be off (`-p no:cacheprovider`).
_NO_TEST_MODES = (
    "collectonly",
    "help",
    "showfixtures",
    "show_fixtures_per_test",
    "markers",
    "setuponly",
    "setupplan",
    "cacheshow",
)


def _runs_no_test(config: pytest.Config) -> bool:
    """Whether pytest runs in a mode that runs no test, where starting the `--loopspec-cmd`
    process only cost its start-up, and one that never answered stopped `pytest --markers`."""
    return any(getattr(config.option, mode, None) for mode in _NO_TEST_MODES)


def take_started_target(
    config: pytest.Config,
) -> tuple[SharedProcess, dict[str, str]] | None:
    """The `--loopspec-cmd` process started when pytest started, for the loopspec test that
    takes it first (it ends it), or None: taken already, or none was started."""
    if STARTED_TARGET not in config.stash:
        return None
    started = config.stash[STARTED_TARGET]
    del config.stash[STARTED_TARGET]
    return started


def _end_untaken_target(config: pytest.Config) -> None:
    """End the started process where no loopspec test took it (`-k` deselected them all)."""
    started = take_started_target(config)
    if started is not None:
        with contextlib.suppress(LoopSpecError):
            started[0].close()


def _script_in_the_rootdir(config: pytest.Config) -> str | None:
    """Where pytest runs outside its rootdir, the line for a `--loopspec-cmd` whose script (or
    program, `./loop.sh`) by a relative path is not in the current folder but in the rootdir:
    the process starts in the current folder (as `conform --cmd` does), and a script named in
    the rootdir's `addopts` failed every loopspec test, the rootdir unnamed. None otherwise."""
    import shlex  # noqa: PLC0415 (only with a --loopspec-cmd)

    from loopspec.properties.conformance.start_errors import (  # noqa: PLC0415 (likewise)
        missing_relative_paths,
    )

    command = config.getoption("--loopspec-cmd")
    here, root = Path(os.getcwd()), config.rootpath
    if not command or here.resolve() == root.resolve():
        return None
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    program = [argv[0]] if argv and "/" in argv[0] and not os.path.isabs(argv[0]) else []
    for word in [*program, *missing_relative_paths(argv, "")]:
        if not os.path.lexists(word) and (root / word).exists():
            return (
                # The command as a case writes it (SAFE-1): the line lands in CI logs.
                f"--loopspec-cmd {portable(shlex.quote(command))}: {word}: no such file "
                "relative to the current "
                f"directory, {here}, where the process starts; the rootdir, {root}, holds it: "
                "run pytest there"
            )
    return None


# pytest's configuration files, and what marks one as holding pytest's settings ("": any).
_CONFIGURATION_FILES = (
    ("pytest.ini", ""),
    (".pytest.ini", ""),
    ("pyproject.toml", "[tool.pytest"),
    ("tox.ini", "[pytest]"),
    ("setup.cfg", "[tool:pytest]"),
)


def _configuration_unread(config: pytest.Config) -> str:
    """A note when pytest read no configuration file though the current folder holds one: it
    looks for one from the paths given, and given a case outside the project
    (`pytest ../Downloads/alice-case.json`), read no `pythonpath`, and the advice to name the
    loop's folder there sent the user to a setting they had. "" otherwise."""
    if config.inipath is not None:
        return ""
    here = config.invocation_params.dir
    for name, mark in _CONFIGURATION_FILES:
        path = here / name
        try:
            found = path.is_file() and mark in path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if found:
            return (
                f"; pytest read no {name} (it looks for its settings from the paths given, not "
                f"from the current folder): add -c {name}"
            )
    return ""


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A saved case file, where pytest meets it (a path named, or a folder walked), is a test
    file of its own: `pytest loopspec-cases/case-ADJ-4-0.json` runs that case alone."""
    cases = parent.config.stash.get(SAVED_CASES, [])
    # A case named on the command line may end otherwise (`alice-case`, `case.txt`).
    if not cases or file_path.suffix == ".py" or file_path.resolve() not in cases:
        return None
    # Imported here: the plugin loads in every pytest run, the replaying code only with a case.
    from loopspec.properties.conformance.saved_cases import SavedCaseFile  # noqa: PLC0415

    # Its path from the rootdir, as for a case pytest did not meet: a case outside the rootdir
    # named on the command line (the `replay it alone:` line of a colleague's case) got pytest's
    # id from that path argument, "", and its report lines read `::replay`.
    nodeid = Path(os.path.relpath(file_path, parent.config.rootpath)).as_posix()
    return SavedCaseFile.from_parent(parent, path=file_path, nodeid=nodeid)


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect: they apply to these tests too
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the saved cases (after the case folders' files not read as one), then the random
    suite, after the tests pytest collected; when the command line names a saved case file,
    that is what runs (nothing is added).

    The cases pytest did not meet, and the suite's module, are collected here, not named as
    command-line paths: pytest drops a path lying under another one it collects and never
    enters a virtualenv, so with loopspec installed in the project's own `.venv` and pytest run
    from the project, a path argument would silently add nothing."""
    if SAVED_CASES not in config.stash:
        return
    from loopspec.properties.conformance.saved_cases import (  # noqa: PLC0415 (as above)
        PassedOverFile,
        SavedCase,
        SavedCaseFile,
    )

    met = {item.path.resolve(): item for item in items if isinstance(item, SavedCase)}
    if any(_names_a_file(config, argument, met) for argument in config.args):
        return
    items[:] = [item for item in items if not isinstance(item, SavedCase)]
    # The files not read as cases first: the last saved case hands its process on to the suite
    # right after it (`close_replay_target`).
    for path, reason in config.stash.get(PASSED_OVER, []):
        nodeid = f"{Path(os.path.relpath(path, config.rootpath)).as_posix()}::{SAVED_CASE_TEST}"
        items.append(
            PassedOverFile.from_parent(
                session, name=SAVED_CASE_TEST, path=path, nodeid=nodeid, reason=reason
            )
        )
    for path in config.stash[SAVED_CASES]:
        if path in met:
            items.append(met[path])
        else:
            # Outside the rootdir too, its path from there, as pytest names a path argument.
            nodeid = Path(os.path.relpath(path, config.rootpath)).as_posix()
            found = SavedCaseFile.from_parent(session, path=path, nodeid=nodeid)
            items.extend(session.genitems(found))
    module = pytest.Module.from_parent(session, path=SUITE, nodeid=f"loopspec/{SUITE.name}")
    items.extend(session.genitems(module))


def _names_a_file(config: pytest.Config, argument: str, cases: Iterable[Path]) -> bool:
    """Whether a command-line argument names one of `cases` (a path, maybe with `::test`)."""
    path = Path(config.invocation_params.dir, argument.partition("::")[0])
    return path.resolve() in cases


def _runs_a_report(item: pytest.Item) -> bool:
    """Whether `item` is one of the plugin's tests, whose failures are loopspec's reports."""
    if item.path == SUITE:
        return True
    from loopspec.properties.conformance.saved_cases import SavedCase  # noqa: PLC0415 (as above)

    return isinstance(item, SavedCase)


# An old-style wrapper: `wrapper=True` needs pluggy 1.1, newer than what pytest 7.0 allows.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    """Keep a loopspec report's first line, the one naming the rule, as its crash message: all
    that pytest's short summary and a JUnit report's `message` show of it. Pytest prints a
    whole crash message in its summary where `CI` or `BUILD_NUMBER` is set, or with -vv (the
    report came twice), and JUnit's `message` held the whole report. Pytest before 7.4 keeps
    no crash message for `pytest.fail(..., pytrace=False)`: one is made. The failure section
    keeps the whole report."""
    outcome = yield
    excinfo = call.excinfo
    if excinfo is not None and excinfo.errisinstance(pytest.skip.Exception):
        _skipped_at_the_case(item, outcome.get_result())
    if excinfo is None or not excinfo.errisinstance(pytest.fail.Exception):
        return
    if SAVED_CASES not in item.config.stash or not _runs_a_report(item):
        return
    failure = outcome.get_result().longrepr
    if not hasattr(failure, "reprcrash"):
        return
    crash = failure.reprcrash or excinfo.getrepr(style="short").reprcrash
    if crash is not None:
        # Without pytest's `Failed: `, which the summary would show before the rule, nor an
        # error's `loopspec: error: `: at 80 columns the summary cut `[PROTO-1]` off a target
        # that broke (`... - loopspec: error...`), the failure's own text keeping the words.
        first = crash.message.partition("\n")[0].removeprefix("Failed: ")
        crash.message = first.removeprefix(ERROR_PREFIX)
        failure.reprcrash = crash


def _skipped_at_the_case(item: pytest.Item, report: pytest.TestReport) -> None:
    """Place a saved case's skip (or a passed-over file's) at its file, where pytest placed it
    at the line of loopspec's source that skipped it (`-rs`: `SKIPPED [1] .../site-packages/
    loopspec/properties/conformance/saved_cases.py:132: ...`)."""
    if SAVED_CASES not in item.config.stash or not isinstance(report.longrepr, tuple):
        return
    from loopspec.properties.conformance.saved_cases import (  # noqa: PLC0415 (as above)
        PassedOverFile,
        SavedCase,
    )

    if isinstance(item, SavedCase | PassedOverFile):
        # No line: pytest's summary then names the file alone, as it does a skip in setup
        # (its annotation wants an int, its summary takes None).
        report.longrepr = cast("tuple[str, int, str]", (str(item.path), None, report.longrepr[2]))


# Last: after pytest's own teardown of the case, which a failure raised before it skipped, and
# the next test then failed at its setup ("previous item was not torn down properly").
@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After the last saved case in a row, end the target they replayed on, or hand a
    `--loopspec-cmd` process on to the random suite when it runs next."""
    if SAVED_CASES not in item.config.stash:
        return
    from loopspec.properties.conformance.saved_cases import (  # noqa: PLC0415 (as above)
        SavedCase,
        close_replay_target,
    )

    if isinstance(item, SavedCase) and not isinstance(nextitem, SavedCase):
        close_replay_target(item.config, hand_on=nextitem is not None and nextitem.path == SUITE)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """List the saved cases whose pass says nothing of the rule they recorded, after the run:
    shown without `-rP`, and a pass all the same."""
    passes = [
        value
        for report in terminalreporter.stats.get("passed", [])
        if report.nodeid.endswith(f"::{SAVED_CASE_TEST}")  # not a user's own test's property
        for name, value in report.user_properties
        if name == SAYS_NOTHING_PROPERTY
    ]
    if passes:
        terminalreporter.section("loopspec: saved cases passing without their rule", yellow=True)
        for said in passes:
            terminalreporter.write_line(said)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """End the saved cases' target if pytest stopped before their last (`-x`)."""
    if SAVED_CASES in session.config.stash:
        from loopspec.properties.conformance.saved_cases import (  # noqa: PLC0415 (as above)
            close_replay_target,
        )

        close_replay_target(session.config, quietly=True)
