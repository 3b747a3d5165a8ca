"""One conformance run: pick a target, run the machine, report by rule, save a replayable case.

Used by `loopspec conform`, `loopspec replay`, `make demo` and the pytest plugin.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import re
import shlex
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

import attrs

import loopspec
from loopspec import spec_text as shipped_spec
from loopspec.impl.user_files import (
    UserFileError,
    parse_user_json,
    read_user_file,
    refused_json,
    shown,
)
from loopspec.model.commands import (
    Allow,
    Ask,
    Command,
    Crash,
    HookAnswers,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig
from loopspec.model.errors import NO_RULE_BROKEN, LoopSpecError
from loopspec.model.invariants import LogMonitor, rule_ids
from loopspec.model.json_location import (
    leading_path,
    line_and_column,
    line_of,
    lines_of,
)
from loopspec.model.json_text import spelled
from loopspec.model.near_miss import did_you_mean, without_offer
from loopspec.model.repeated_keys import RepeatedKey, given_twice
from loopspec.model.state import RUNNING, Dispatching
from loopspec.model.transitions import TRANSITIONS
from loopspec.properties.conformance.blame.classify import classify
from loopspec.properties.conformance.blame.own_log import log_violations
from loopspec.properties.conformance.capability_needs import hook_capabilities, needed_capabilities
from loopspec.properties.conformance.case_format import (
    BUNDLED_IMPL,
    CASE_MEMBERS,
    CASE_VERSION,
    TARGET_KINDS,
    TEXT_LIST_MEMBERS,
    TEXT_MEMBERS,
)
from loopspec.properties.conformance.case_json_fault import case_json_fault
from loopspec.properties.conformance.case_portable import (
    ELSEWHERE,
    HIDDEN,
    hidden_left,
    portable,
    put_back_words,
    shared,
    shared_target,
)
from loopspec.properties.conformance.case_text import NotCaseText, case_text
from loopspec.properties.conformance.command_codec import (
    command_from_json,
    command_to_json,
    config_from_json,
    config_to_json,
    given_instead,
)
from loopspec.properties.conformance.compare import (
    NO_RULE,
    Divergence,
    DivergenceFound,
    split_units,
)
from loopspec.properties.conformance.compare import normalized_observation as normalized
from loopspec.properties.conformance.document_schema import converter
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.impl_factories import (
    missing_attribute,
    missing_factory,
    missing_module,
    missing_submodule,
    module_below,
)
from loopspec.properties.conformance.json_values import lone_surrogates_escaped
from loopspec.properties.conformance.process_target import (
    DEFAULT_TIMEOUT,
    THREAD_DIED,
    UNENDED,
    UNFLUSHED,
    UNFLUSHED_BETWEEN,
    ProcessTarget,
    ProcessTargetError,
)
from loopspec.properties.conformance.profile_check import ProfileChecker
from loopspec.properties.conformance.reduce import Program, reduce_program
from loopspec.properties.conformance.situations import SITUATION_HITS, presentation_situations
from loopspec.properties.conformance.source_literals import without_source_literals
from loopspec.properties.conformance.target import (
    ConformanceTarget,
    ModelTarget,
    Observation,
    missing_members,
    refused_alike,
)
from loopspec.properties.conformance.target_frames import (
    exception_line,
    innermost_of_target,
    target_file,
    target_traceback,
)
from loopspec.properties.conformance.verdicts import Verdict, run_verdict
from loopspec.properties.conformance.waiting import command_sent, listening
from loopspec.properties.profiles import PROFILES, Profile
from loopspec.properties.spec_rules import rule_sections
from loopspec.properties.typographic import curled_quotes_hint

# Hypothesis, and the conformance machine and configurations built on it, only where conform
# generates programs (`run_conformance`): `replay` and the pytest plugin's cases generate none,
# and importing them was a third of each replay's start-up.
if TYPE_CHECKING:
    from hypothesis.stateful import RuleBasedStateMachine

    from loopspec.properties.conformance.exhaustive import CommandCounter
    from loopspec.properties.conformance.report_documents import KnownDivergenceRow, RuleRow

TargetFactory = Callable[[], ConformanceTarget]
_Result = TypeVar("_Result")

# The capabilities any one of which brings each rule's situation about; a target with none of
# them cannot break the rule, so the report says "not applicable (needs ...)" for it. A rule a
# loop declaring nothing can break has no entry: a body's contexts (ADJ-4), a reply's reasoning
# and blank blocks (STEP-4), a call held back while another runs, one slot or more (SCHED-1).
RULE_NEEDS: dict[str, tuple[str, ...]] = {
    "RW-1": ("rewrite",),
    "RW-2": ("rewrite",),
    # Every PreToolUse answer is audited before the reply, a rewrite or none.
    "RW-3": ("pre-hooks",),
    "RW-4": ("approval",),
    # A call a hook denied (or refused for a rewrite its tool cannot take, HOOK-6).
    "DEC-1": ("pre-hooks",),
    "HOOK-2": ("pre-hooks",),
    "HOOK-3": ("rewrite",),
    "HOOK-4": ("pre-hooks",),
    "HOOK-5": ("post-hooks",),
    "HOOK-6": ("rewrite",),
    "DEC-2": ("approval",),
    "DEC-3": ("post-hooks",),
    "ABORT-1": ("abort",),
    # An Abort while the reply is awaited, or a reply whose stream finished cancelled.
    "ABORT-2": ("abort", "max-tokens"),
    "REC-1": ("crash-repair",),
    "REC-2": ("crash-repair",),
    "VIEW-2": ("presentation",),
    "VIEW-3": ("presentation",),
    "VIEW-4": ("presentation",),
    "ACP-1": ("presentation",),
    "ACP-2": ("presentation",),
    "ACP-3": ("presentation",),
    "SCHED-2": ("approval",),
    # The hook audit, and which tools a hook's matcher selects: PreToolUse or PostToolUse hooks.
    "HOOK-1": ("pre-hooks", "post-hooks"),
    "HOOK-8": ("pre-hooks", "post-hooks"),
    # An abort's cause: an Abort, or a reply whose stream finished cancelled.
    "ABORT-3": ("abort", "max-tokens"),
}


def rule_needs(rule: str) -> tuple[str, ...]:
    """The capabilities any one of which brings `rule`'s situation about (() when none)."""
    return RULE_NEEDS.get(rule, ())


class TargetError(LoopSpecError):
    """The target could not be started or resolved, or it broke while a program ran.

    `config` and `program` are, when it broke in a program, that program's configuration and
    its commands up to the one it broke on (the last): enough for a case that replays it.
    `at_start_up`: a `--cmd` process that never got going (`ProcessTargetError.at_start_up`),
    which every later program would meet again; `hung_at_start_up`, one still silent at its
    first message's deadline (`ProcessTargetError.hung_at_start_up`). `trace`: where an
    in-process target's own code raised, the lines of `target_traceback`, which the pytest
    plugin, `conform` and `replay` print below the error's line (it names the innermost).
    """

    def __init__(
        self,
        message: str,
        *,
        config: LoopConfig | None = None,
        program: tuple[Command, ...] = (),
        rule_id: str = "PROTO-1",
        at_start_up: bool = False,
        hung_at_start_up: bool = False,
        trace: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message, rule_id=rule_id)
        self.config = config
        self.program = program
        self.at_start_up = at_start_up
        self.hung_at_start_up = hung_at_start_up
        self.trace = trace

    @property
    def never_got_going(self) -> bool:
        """The process never answered a message: every later start would fail alike."""
        return self.at_start_up or self.hung_at_start_up


class UnrepeatedDivergence(TargetError):
    """A divergence that did not happen again when conform reran its program to confirm and
    shrink it: the target answered one program two ways, no counterexample (exit 2). `report`
    is the run's, holding the first run's divergence and program (not cut down, `unrepeated`),
    which conform saves as a case and prints before the error: something to replay."""

    def __init__(self, message: str, report: RunReport) -> None:
        super().__init__(message)
        self.report = report


class CaseFileFault(TargetError):
    """A case file replay cannot use: the user's input, never the target's answer, so nothing
    about it blames the target. It names the rule the file's content breaks when SPEC states
    one: PROTO-1 for the shape of its `config` and `commands` (the driver protocol's JSON), the
    model's rule for a value the model refuses (an audit word contradicting its verdict,
    HOOK-1), SAFE-4 past a bound; the case format's own members and the JSON text itself are
    no rule's, so their faults carry no tag, only the file, line and JSON path."""

    def __init__(self, message: str, *, rule_id: str = NO_RULE_BROKEN) -> None:
        super().__init__(message, rule_id=rule_id)


class CaseFileUnreadable(CaseFileFault):
    """A case file, or a folder of them, that is missing or that the system will not let
    loopspec read. No rule is broken, so its text carries no rule tag, as `check` reports a
    missing log ("error unreadable", no rule): a [PROTO-1] there sent the reader to the driver
    protocol for a typo in a path."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


class UndeclaredCapability(TargetError):
    """A case needs a capability the replayed target does not declare: conform never sends that
    target such a program, so the case says nothing about it (the pytest plugin skips it).
    `command_index` is the command (0-based) that needs it; None for the configuration. No rule
    is broken (a target may declare what it likes, and the case is sound), so it names none."""

    def __init__(self, message: str, *, command_index: int | None) -> None:
        super().__init__(message, rule_id=NO_RULE_BROKEN)
        self.command_index = command_index


class OutsideProfile(TargetError):
    """A case needing a capability its replay's profile's implementation does not declare
    (`_outside_profile`); `command_index` as `UndeclaredCapability`'s, so the error names the
    line of what needs it. No rule is broken: the case and the profile do not fit together."""

    def __init__(self, message: str, *, command_index: int | None) -> None:
        super().__init__(message, rule_id=NO_RULE_BROKEN)
        self.command_index = command_index


class SharedProcess:
    """A target factory for `--cmd`: one process serves every program, reset between them.

    Starting a harness (Node, its packages) costs far more than a program; the driver
    protocol's `reset` starts a fresh session in the same process. A process that failed is
    replaced at the next reset. `close()` ends it.
    """

    def __init__(
        self, argv: list[str], *, timeout: float = DEFAULT_TIMEOUT, name: str = ""
    ) -> None:
        self._target = ProcessTarget(argv, timeout=timeout, name=name)

    def __call__(self) -> ConformanceTarget:
        return _Lease(self._target)

    def quick_answers(self) -> contextlib.AbstractContextManager[None]:
        """Shorter answer timeouts while inside (`ProcessTarget.quick_answers`)."""
        return self._target.quick_answers()

    def start_refusal(self) -> str | None:
        """Why the process cannot start, found without starting it (`ProcessTarget`'s)."""
        return self._target.start_refusal()

    def close(self) -> None:
        """End the process."""
        self._target.close()


class _Lease:
    """The shared process, lent to one program: closing it leaves the process running."""

    def __init__(self, target: ProcessTarget) -> None:
        self._target = target
        self.name = target.name

    def reset(self, config: LoopConfig) -> frozenset[str]:
        return self._target.reset(config)

    def apply(self, command: Command) -> Observation:
        return self._target.apply(command)

    def close(self) -> None:
        """Nothing: the process outlives the program."""


class TargetBreakage:
    """The first failure of a target during one run; once there is one, every later use fails.

    A target that dies, hangs, writes garbage or raises says nothing about the rules (SAFE-5).
    Hypothesis would retry such a failure, see it vanish (a shared process is restarted at the
    next reset) and report a flaky counterexample; failing every later use instead ends the run
    at once, and the runner reports the first failure as PROTO-1, exit 2.
    """

    def __init__(self) -> None:
        self.first: TargetError | None = None

    def call(
        self,
        what: str,
        action: Callable[[], _Result],
        program: tuple[LoopConfig | None, Sequence[Command]] = (None, ()),
    ) -> _Result:
        """`action()`; any exception it raises is recorded and raised as `TargetError`, with
        `program` (the configuration and the commands sent so far) when one was running.
        (The commands are copied only then: a running program passes its list as it grows.)"""
        if self.first is not None:
            raise self.again()
        try:
            # A Python loop's prints are its debugging output, not the report: on stderr, where
            # on stdout they broke a `--format json` document (a CI job's `> conform.json`).
            with contextlib.redirect_stdout(sys.stderr):
                return action()
        # Anything a target does wrong, whatever its language; and a Python target's sys.exit,
        # which ended conform's own process with its status (0: a CI job read a pass).
        except (Exception, SystemExit) as error:
            config, commands = program
            message = f"the target failed in {what}: {_one_line(error)}"

            at_start_up = isinstance(error, ProcessTargetError) and error.at_start_up
            hung_at_start_up = isinstance(error, ProcessTargetError) and error.hung_at_start_up
            if at_start_up or hung_at_start_up:
                # "failed in reset" before "exited (hung) at start-up, before answering its
                # first message" says it twice: the process's own words are the sentence.
                message = _one_line(error)
            # A fault of the user's input (a `--cmd` typed with curled quotes) stays no rule's.
            user_fault = isinstance(error, LoopSpecError) and error.rule_id == NO_RULE_BROKEN
            rule = NO_RULE_BROKEN if user_fault else "PROTO-1"
            if isinstance(error, ProcessTargetError):
                # Its rule is PROTO-1, none (the user's fault), or the model's for an event of
                # the right shape whose value the model refuses (HOOK-1's words, LOG-6's role).
                rule = error.rule_id
            self.first = TargetError(
                message,
                config=config,
                program=tuple(commands),
                rule_id=rule,
                at_start_up=at_start_up,
                hung_at_start_up=hung_at_start_up,
                trace=() if isinstance(error, LoopSpecError) else tuple(target_traceback(error)),
            )
            raise self.again() from error

    def again(self) -> TargetError:
        """The first failure, as a fresh exception to raise."""
        assert self.first is not None
        first = self.first
        return TargetError(
            first.message,
            config=first.config,
            program=first.program,
            rule_id=first.rule_id,
            at_start_up=first.at_start_up,
            hung_at_start_up=first.hung_at_start_up,
            trace=first.trace,
        )


def _one_line(error: Exception | SystemExit) -> str:
    if isinstance(error, LoopSpecError):
        return error.message  # ours: already says what and where (a process's stderr tail)
    said = exception_line(error)
    where = _raised_in_target(error)
    said = f"{said} ({where})" if where else said
    if isinstance(error, SystemExit):
        return f"{said}{SYS_EXIT_IN_TARGET}"
    return said + _raised_presenting(error.__traceback__)


SYS_EXIT_IN_TARGET = (
    "; sys.exit in a Python target ends the process that runs it, loopspec's: raise an "
    "exception to say what went wrong"
)
"""What follows a Python target's `SystemExit` (its `sys.exit`, an argparse usage error): it
ended conform with the loop's status, 0 read as a pass, and no word of why."""


def _raised_presenting(chain: TracebackType | None) -> str:
    """A note when the target raised while presenting (a frame of a file or function named
    for it: presenters.py, present_card), which VIEW-3 says never fails; else nothing."""
    if not any(
        "present" in f"{Path(f.filename).name} {f.name}" for f in traceback.extract_tb(chain)
    ):
        return ""
    return (
        "; it raised while presenting: a presenter that raises, as one given arguments it "
        "cannot read, falls back to a generic card (VIEW-3: presentation never fails)"
    )


def _raised_in_target(error: BaseException) -> str | None:
    """Where in the target's own code `error` was raised: the innermost frame outside
    loopspec and the standard library (no Python traceback is printed, SAFE-5: this and the
    target's own frames below the line, `target_traceback`, point to the bug), as
    `file:line, in function`; None when there is no such frame."""
    return innermost_of_target(error.__traceback__)


def _capabilities(declared: object) -> frozenset[str]:
    if not isinstance(declared, frozenset | set) or not all(isinstance(c, str) for c in declared):
        msg = f"reset must return a set of capability names, not {type(declared).__name__}"
        raise TypeError(msg)
    # As a `--cmd` target's `ready` is held to the schema: a misspelt name ("pre_hooks") was
    # kept, its capability's rules read "not applicable" and nothing said why.
    for name in sorted(declared - CAPABILITIES.keys()):
        hint = did_you_mean(name, CAPABILITIES)
        msg = (
            f"reset returned {shown(spelled(name), 42)}, which is no capability{hint}; the "
            f"capabilities are {', '.join(sorted(CAPABILITIES))}"
        )
        raise ValueError(msg)
    return frozenset(declared)


def _a_target(made: object) -> ConformanceTarget:
    """What a factory made, refused at once (not at its first use) unless it is a target."""
    # Members asked with hasattr, not isinstance: Python 3.12 and later check a protocol
    # without calling __getattr__, so a wrapper handing members on to the target it wraps was
    # refused there ("it has no )") and taken on 3.11.
    missing = missing_members(made)
    if missing:
        kind = type(made).__name__
        article = "an" if kind[:1].lower() in "aeiou" else "a"
        raise TypeError(
            f"the factory returned {article} {kind}, not a ConformanceTarget "
            f"(it has no {', '.join(missing)})"
        )
    return cast("ConformanceTarget", made)


def _an_observation(made: object, apply: Callable[..., object]) -> Observation:
    """What `apply` returned, refused at once unless it is an `Observation`: a loop that forgot
    its `return` (None) broke inside the comparison, a traceback and exit 1. No line of the
    target's raised, so the line its `apply` is defined at is named."""
    if not isinstance(made, Observation):
        kind = type(made).__name__
        article = "an" if kind[:1].lower() in "aeiou" else "a"
        what = "None (a forgotten return?)" if made is None else f"{article} {kind}"
        defined = _defined_in_target(apply)
        raise TypeError(
            f"apply returned {what}, not an Observation (loopspec.properties.conformance.target)"
            + (f"; apply is defined {defined}" if defined else "")
        )
    return made


def _defined_in_target(function: Callable[..., object]) -> str | None:
    """Where the target's own `function` is defined, `at file:line`, as a raising line is
    named; None for one of loopspec's (a wrapper of the model) or one with no source."""
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    if code is None:
        return None
    shown = target_file(code.co_filename)
    return None if shown is None else f"at {shown}:{code.co_firstlineno}"


def _frozen_payload(command: Command) -> bool:
    """Whether `command` hands the target a frozen JSON value (a `FrozenMap`, tuples) that
    its events may carry on: a hook's input, a body's meta. Only then are they walked, as a
    walk of every answer costs a run more than its comparisons."""
    match command:
        case HookAnswers(verdict=Allow(updated_input=supplied) | Ask(updated_input=supplied)):
            return supplied is not None
        case ToolFinishes(outcome=ToolSucceeded(meta=meta)):
            return meta is not None
        case _:
            return False


def _not_json_at(value: object, path: str) -> str | None:
    """The path of the first value in `value` that a log line cannot hold, with its type."""
    if isinstance(value, dict):
        for key, item in value.items():
            found = _not_json_at(item, f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(value, list | tuple):  # a tuple is written as a list
        for index, item in enumerate(value):
            found = _not_json_at(item, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if value is None or isinstance(value, str | int | float):
        return None
    return f"{path} is {_a(type(value).__name__)}"


def _a(kind: str) -> str:
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"


def _json_events(observation: Observation, command: Command) -> Observation:
    """`observation`, refused when an event it reports holds what no log line can: a command's
    frozen value handed on unthawed compared equal to the model's dict, then broke the report
    of any difference (a traceback, exit 3)."""
    if not _frozen_payload(command):
        return observation
    for index, event in enumerate(observation.events):
        found = _not_json_at(event, f"events[{index}]")
        if found is not None:
            raise TypeError(
                f"apply returned an event that is not JSON: {found}; a command's JSON values "
                "(a hook's updated_input, a result's meta) are frozen, and "
                "loopspec.model.jsonvalue.thaw gives the dicts and lists a log line holds"
            )
    return observation


class GuardedTarget:
    """A target whose every failure goes through a `TargetBreakage`. With `within`, it declares
    only those of its capabilities (a profile's implementation's: `Profile.capabilities`)."""

    def __init__(
        self,
        factory: TargetFactory,
        breakage: TargetBreakage,
        within: frozenset[str] | None = None,
    ) -> None:
        self._within = within
        self._breakage = breakage
        self._target = breakage.call("its factory", lambda: _a_target(factory()))
        self.name = breakage.call("its name", lambda: str(self._target.name))
        self._config: LoopConfig | None = None
        self._sent: list[Command] = []  # this program's commands, for a case if it breaks

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self._config, self._sent = config, []
        declared = self._breakage.call("reset", lambda: _capabilities(self._target.reset(config)))
        return declared if self._within is None else declared & self._within

    def apply(self, command: Command) -> Observation:
        self._sent.append(command)
        command_sent(len(self._sent))
        return self._breakage.call(
            "apply",
            lambda: _json_events(
                _an_observation(self._target.apply(command), self._target.apply), command
            ),
            (self._config, self._sent),
        )

    def probe(self, command: Command) -> Observation | None:
        """`apply` after a divergence, to sharpen its blame (`blame.probes.probe_for`): a failure
        then is None, not the run's breakage, which would turn the divergence into PROTO-1."""
        if self._breakage.first is not None:
            return None
        try:
            with contextlib.redirect_stdout(sys.stderr):  # its prints, as in `call`
                return self._target.apply(command)
        except (Exception, SystemExit):  # whatever a target raises, the probe tells nothing
            return None

    def close(self) -> None:
        if self._breakage.first is None:
            self._breakage.call("close", self._target.close)
            return
        # Already broken: still release what it holds (a loop, a process), quietly.
        with contextlib.suppress(Exception, SystemExit), contextlib.redirect_stdout(sys.stderr):
            self._target.close()


def interrupted_in_target(stop: BaseException) -> str | None:
    """Where a Ctrl-C found a Python target's own code, when it landed in the target's `reset`
    or `apply` there: such a call that never returns (a loop thread died, and `apply` waits on
    its queue) holds the run until Ctrl-C, with no answer timeout to name it, and the line said
    only that the run stopped. None when it landed elsewhere, or in loopspec's code alone."""
    methods = {GuardedTarget.reset.__code__: "reset", GuardedTarget.apply.__code__: "apply"}
    chain, method = stop.__traceback__, None
    while chain is not None and method is None:  # from where it was caught, inwards
        method = methods.get(chain.tb_frame.f_code)
        chain = chain.tb_next
    # Only the frames inside that call: the ones around it (Hypothesis's) are not the target.
    where = innermost_of_target(chain) if method is not None else None
    if where is None:
        return None
    return (
        f"the target's {method} had not returned ({where}): a Python target runs in "
        "loopspec's process, with no answer timeout"
    )


def close_factory(factory: TargetFactory) -> None:
    """End what a factory keeps between programs (a shared process), if anything."""
    if isinstance(factory, SharedProcess):
        factory.close()


@attrs.frozen
class TargetOptions:
    """How the user named the target: the options' spelling, the program they ran, and how
    that program is told to import from another folder (`{folder}` stands for the folder)."""

    impl: str
    cmd: str
    runner: str
    import_from: str


CLI_OPTIONS = TargetOptions("--impl", "--cmd", "loopspec", "put {folder} on PYTHONPATH")
# pytest users set the import path in pytest's own settings, not in the environment.
PYTEST_OPTIONS = TargetOptions(
    "--loopspec-impl",
    "--loopspec-cmd",
    "pytest",
    "name {folder} in pytest's `pythonpath` setting (its paths are from the rootdir)",
)


# A `~` for the home folder inside a word: after `=` or `:`, the whole of a path's first part.
_HOME_INSIDE: Final = re.compile(r"(?<=[=:])~(?=/|$)")


def _home_expanded(word: str) -> str:
    """`word` with the home folder for a `~` that starts it or a path in it (`NAME=~/x`)."""
    if word.startswith("~"):
        word = os.path.expanduser(word)
    return _HOME_INSIDE.sub(lambda _: os.path.expanduser("~"), word)


def empty_target(option: str) -> str:
    """What an empty `--cmd` or `--impl` (conform's, replay's or the plugin's) is told: what to
    give, and the usual cause, a variable left unset (`--cmd "$LOOP"`)."""
    given = "MODULE:FACTORY" if option.endswith("impl") else "'node loop.mjs'"
    return (
        f"{option} is empty: give it the loop to test ({option} {given}); a variable left "
        f'unset gives an empty one ({option} "$LOOP")'
    )


def resolve_target(
    impl: str | None,
    cmd: str | None,
    options: TargetOptions = CLI_OPTIONS,
    *,
    answer_timeout: float | None = None,
) -> tuple[TargetFactory, dict[str, str]]:
    """The target factory for `--impl MODULE:FACTORY`, `--cmd COMMAND` (answering each message
    within `answer_timeout` seconds, None: `DEFAULT_TIMEOUT`), or the bundled impl.

    Errors name the options as `options` spells them (the pytest plugin's are `--loopspec-*`).
    An option written wrongly, or naming a module or factory that is not there, is a usage
    error and names no rule; a module that fails to load (it raises, or imports what this
    Python lacks), or a factory that is no callable, is the target's (SAFE-5: PROTO-1).
    Pass the factory to `close_factory` when done.
    """
    if cmd is not None:
        try:
            argv = shlex.split(cmd)
        except ValueError as error:  # unbalanced quotes, a lone escape
            raise TargetError(
                f"{options.cmd} {portable(cmd)!r} cannot be split into words: {error}",
                rule_id=NO_RULE_BROKEN,
            ) from None
        if not argv:
            raise TargetError(empty_target(options.cmd), rule_id=NO_RULE_BROKEN)
        if HIDDEN in cmd or ELSEWHERE in cmd:  # pasted from a case or a rerun line
            raise TargetError(hidden_left(options.cmd, cmd), rule_id=NO_RULE_BROKEN)
        # The command is split here, not by a shell, and a case and the console show a path
        # under the home folder from `~` (SAFE-1), also inside a word (`PYTHONPATH=~/lib`,
        # `--config=~/c.json`): every word starting `~`, and a `~` after `=` or `:` that a `/`
        # or the word's end follows, is expanded, so a rerun line pasted as printed starts the
        # same target. Unlike a shell, quoting does not keep a `~` literal: the split words no
        # longer say which were quoted.
        argv = [_home_expanded(word) for word in argv]
        timeout = DEFAULT_TIMEOUT if answer_timeout is None else answer_timeout
        # Named as a case records it (SAFE-1): the name heads reports and errors, which land
        # in CI logs, and the command as typed may hold a token.
        named = portable(shlex.join(argv))
        return SharedProcess(argv, timeout=timeout, name=named), {"cmd": cmd}
    if impl is not None and not impl.strip():
        # `--impl "$IMPL"` with IMPL unset: read as no --impl, the run passed on the bundled
        # implementation, a green CI step that tested nothing of the user's loop.
        raise TargetError(empty_target(options.impl), rule_id=NO_RULE_BROKEN)
    spec = impl or BUNDLED_IMPL
    # `--impl \u2018mine:make\u2019` copied from a chat: the quotes are read as part of the names.
    curled = curled_quotes_hint([spec])
    # A name that fails to load with such quotes in it is the user's input written wrongly,
    # which blames no target (SPEC section 2); otherwise the target cannot be loaded (PROTO-1).
    blame = NO_RULE_BROKEN if curled else "PROTO-1"
    # A module or factory of that name not there at all is a name written wrongly (or run from
    # another folder), as a `--cmd` program not on PATH is: no target was reached to blame.
    module_name, _, attribute = spec.partition(":")
    # Find the user's module the way `python -m` would: the current directory first.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    if not module_name or not attribute:
        # The module's factories are offered only for a module name (a path is said below).
        path = "/" in module_name or module_name.endswith(".py")
        offer = (
            "" if curled or path or not module_name else missing_factory(module_name, options.impl)
        )
        raise TargetError(
            f"{options.impl} must be MODULE:FACTORY, got {spec!r}{curled}{offer}",
            rule_id=NO_RULE_BROKEN,
        )
    if module_name.endswith(".py") or "/" in module_name or os.sep in module_name:
        raise TargetError(_path_given(module_name, attribute, options), rule_id=NO_RULE_BROKEN)
    try:
        with contextlib.redirect_stdout(sys.stderr):  # what it prints loading, as in `call`
            module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        # Say where it was looked for: the usual cause is running from another folder.
        top = module_name.partition(".")[0]
        if error.name == top:  # the module itself: a copy of the loop kept in another folder
            blame = NO_RULE_BROKEN
            below = module_below(top, os.getcwd())
            holder = "the folder that holds" if below is None else f"{below}, which holds"
            where = missing_module(top, os.getcwd()) or (
                f" (looked in the current directory, {os.getcwd()}, then sys.path: run "
                f"{options.runner} in {holder} {top}, or "
                + options.import_from.format(folder=below or "that folder")
                + ")"
            )
        elif error.name and f"{module_name}.".startswith(f"{error.name}."):
            # A package on the way found, a module of it named wrongly: no target reached.
            blame = NO_RULE_BROKEN
            package, _, leaf = error.name.rpartition(".")
            where = missing_submodule(package, leaf)
        else:  # found, and it imports what this Python does not have (a colleague's loop)
            where = (
                f" (imported by {module_name}: is it installed where loopspec runs, {sys.prefix}?)"
            )
        raise TargetError(f"cannot load {spec}: {error}{where}{curled}", rule_id=blame) from error
    except (ImportError, AttributeError) as error:
        raise TargetError(f"cannot load {spec}: {error}{curled}", rule_id=blame) from error
    except Exception as error:  # the module itself fails while importing (SAFE-5)
        raise TargetError(
            f"cannot load {spec}: {_one_line(error)}", trace=tuple(target_traceback(error))
        ) from error
    except SystemExit as error:  # it exits: often a script's argparse, run when it is imported
        said, raised_at = exception_line(error), _raised_in_target(error)
        raise TargetError(
            f"cannot load {spec}: {said}{f' ({raised_at})' if raised_at else ''}: the module "
            f"exited while it was imported{_exit_on_import_advice(error)}",
            trace=tuple(target_traceback(error)),
        ) from error
    try:
        factory = getattr(module, attribute)
    except AttributeError as error:  # a factory misspelt, or a module's name for another
        offer = "" if curled else missing_attribute(module, attribute)
        raise TargetError(
            f"cannot load {spec}: {error}{curled}{offer}", rule_id=NO_RULE_BROKEN
        ) from error
    if not callable(factory):  # a module's constant or submodule: name its factory instead
        kind = type(factory)
        # The loop made once (`loop = MyLoop()`), where conform makes one for each run.
        offer = (
            f": it is a {kind.__name__} made once; name what makes one for each run, its class "
            f"({options.impl} {module_name}:{kind.__name__})"
            if kind.__module__ == module.__name__ and getattr(module, kind.__name__, None) is kind
            else missing_attribute(module, attribute)
        )
        raise TargetError(f"{spec} is not callable{offer}")
    # A case found on the bundled implementation records `{}`: a colleague replays it there with
    # no option, where a recorded --impl asked them to name it and called the pass "not the
    # recorded target".
    return factory, {} if spec == BUNDLED_IMPL else {"impl": spec}


def _exit_on_import_advice(error: SystemExit) -> str:
    """What follows "the module exited while it was imported": a message it exited with says
    why itself (`sys.exit("needs Python 3.12")` was told to move its argument parsing); a
    status is most often a script's argument parsing (argparse's 2), run on import."""
    if isinstance(error.code, str):
        return ""
    return (
        "; a script parsing its arguments as it is imported does so (argparse): keep what runs "
        'it as a program under `if __name__ == "__main__":`'
    )


def _path_given(module_name: str, attribute: str, options: TargetOptions) -> str:
    """What to pass instead of a file path as `--impl`'s MODULE: a path is not importable (it
    failed with "the 'package' argument is required to perform a relative import")."""
    path = Path(module_name)
    parts, above = [path.name.removesuffix(".py")], path.parent
    # A module of a package is imported by its dotted name from the folder above the package:
    # run from the module's own folder, its package's relative imports would fail.
    while above.name not in ("", "..") and (above / "__init__.py").is_file():
        parts.insert(0, above.name)
        above = above.parent
    name, folder = ".".join(parts), str(above)
    said = f"{options.impl} takes a module name, not a file path ({module_name})"
    if above == Path():  # importable from here already
        return f"{said}: give {options.impl} {name}:{attribute}"
    return (
        f"{said}: run {options.runner} in {folder} with {options.impl} {name}:{attribute}, or "
        + options.import_from.format(folder=folder)
    )


@attrs.frozen
class UnplayedSituation:
    """A targeted program of a rare situation (`situation_sweep`) that a profile kept from
    being compared through: its situation's name and why."""

    name: str
    reason: str


@attrs.frozen
class RunReport:
    """What a conformance run found and covered."""

    target: str
    capabilities: frozenset[str]
    examples: int
    # The commands sent in all: the random programs' and the sweeps' around them (section 12's
    # examples, the targeted situations), whose time `seconds` counts too.
    steps: int
    seconds: float
    divergence: Divergence | None
    program: tuple[Command, ...]
    config: LoopConfig | None
    transitions: dict[str, int]
    rules: dict[str, int]
    profile: Profile | None = None
    known: dict[str, int] = attrs.field(factory=dict)
    # Per rule, the situations the programs created (`loopspec.properties.conformance.situations`).
    situations: dict[str, int] = attrs.field(factory=dict)
    # Programs Hypothesis ran again while shrinking a counterexample (not counted in `examples`).
    shrink_runs: int = 0
    # Programs Hypothesis abandoned part-way and replaced (not counted in `examples` either).
    retries: int = 0
    # Smaller programs replayed to cut the shrunk counterexample down (`reduce_counterexample`).
    reduce_runs: int = 0
    # The run's time (`run_conformance`'s `deadline`) ended it: the search before `examples`
    # programs, or the shrinking and cutting down of its counterexample.
    out_of_time: bool = False
    # SPEC.md section 12's examples played before the search (`presentation_sweep`), none when
    # the target does not present.
    presentation_examples: int = 0
    # The targeted programs of rare situations played after the search (`situation_sweep`),
    # none when a divergence was found before them.
    situation_examples: int = 0
    # The divergence is the last of `presentation_examples`: no random program was run.
    presentation_diverged: bool = False
    # Under a profile, the targeted programs not played, or stopped at a known divergence,
    # each with why: the situation they were written for was not compared.
    situations_unplayed: tuple[UnplayedSituation, ...] = ()
    # Cutting the counterexample down stopped at its own bounds (`REDUCE_SECONDS`,
    # `REDUCE_REPLAYS`), not the run's time: the program shown may be cut further.
    cut_short: bool = False
    # Ctrl-C stopped the shrinking or the cutting down of the counterexample: the smallest
    # program found by then is shown, and may be cut further.
    stopped_by_ctrl_c: bool = False
    # The runs of an --exhaustive pass played before, none diverging (`with_pass_before`):
    # their commands, time, transitions, rules and situations are counted in the above.
    exhaustive_runs: int = 0
    # The divergence did not happen again when its program was rerun (`UnrepeatedDivergence`):
    # the target answered one program two ways, and a replay of its case may pass.
    unrepeated: bool = False

    @property
    def conformant(self) -> bool:
        """No divergence was found."""
        return self.divergence is None

    @property
    def verdict(self) -> Verdict:
        """The run's verdict, in the words every report says it in."""
        return run_verdict(conformant=self.conformant, unrepeated=self.unrepeated)


@attrs.frozen
class PassBefore:
    """What a pass played before the search (conform's --exhaustive, none diverging) ran and
    covered, counted as the search counts its programs (`machine.program_counter`)."""

    runs: int
    commands: int
    seconds: float
    transitions: dict[str, int]
    rules: dict[str, int]
    situations: dict[str, int]


def counted_pass(runs: int, commands: int, seconds: float) -> PassBefore:
    """What the pass just played covered: counted since `machine.reset_coverage`."""
    from loopspec.properties.conformance import machine as conformance  # noqa: PLC0415

    conformance.count_observed()
    return PassBefore(
        runs,
        commands,
        seconds,
        transition_rows(conformance.TRANSITION_HITS),
        dict(conformance.RULE_HITS),
        dict(SITUATION_HITS),
    )


def with_pass_before(report: RunReport, before: PassBefore) -> RunReport:
    """`report` with the pass played before counted in: a rule its runs reached is reported
    reached (after a pass the budget ended, every rule read "not reached by the generator")."""

    def added(counts: dict[str, int], more: dict[str, int]) -> dict[str, int]:
        return {key: counts.get(key, 0) + more.get(key, 0) for key in {**counts, **more}}

    transitions = added(report.transitions, before.transitions)
    return attrs.evolve(
        report,
        steps=report.steps + before.commands,
        seconds=report.seconds + before.seconds,
        # In `transition_rows`'s order: a row's words sort as its key does (no name holds a
        # character before the space).
        transitions=dict(sorted(transitions.items())),
        rules=added(report.rules, before.rules),
        situations=added(report.situations, before.situations),
        exhaustive_runs=before.runs,
    )


def transition_rows(hits: Mapping[tuple[str, str, str], int]) -> dict[str, int]:
    """Transitions taken, as the reports write them (`phase + command -> outcome`), in order."""
    return {f"{p} + {c} -> {o}": n for (p, c, o), n in sorted(hits.items())}


PROGRESS_LINE_SECONDS = 30.0
"""How often a run that cannot redraw its progress line (stderr a CI log, a file, a pipe; `CI`
set; `TERM=dumb`) prints one: CI systems end a job silent for minutes (CircleCI and Travis
after 10), and a redrawn line there is one carriage return after another."""


def progress_redraws() -> bool:
    """Whether the progress line may be redrawn in place: stderr is a terminal that is neither
    a CI's (`CI` set, as GitHub Actions and GitLab set it, even on a pseudo-terminal) nor a
    dumb one."""
    in_ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return sys.stderr.isatty() and not in_ci and os.environ.get("TERM") != "dumb"


REDRAW_SECONDS = 1.0
"""How often a line redrawn in place is redrawn while one program runs: its seconds go on."""


class _Progress:
    """How far a run is, on stderr: redrawn in place on a terminal (`progress_redraws`), else
    one whole line every `PROGRESS_LINE_SECONDS`, so a CI log shows the run alive, a program
    running for minutes too (it is told of each command and wait: `waiting`). With `say_line`,
    the whole lines go to it instead (the pytest plugin's terminal)."""

    def __init__(
        self, budget: int, started: float, say_line: Callable[[str], None] | None = None
    ) -> None:
        self.budget = budget
        self.started = started
        self.say_line = say_line
        self.redraws = say_line is None and progress_redraws()
        self.last_said = self.started
        self.drawn = False
        self.width = 0  # of the longest line drawn in place
        self.status: Callable[[], str] = lambda: f"0/{budget} programs"
        # The program running: the last command sent to it (0: none yet), and since when the
        # run has been at that step.
        self.command = 0
        self.step_started = started

    def show(self, shrink_runs: int, reduce_runs: int = 0) -> None:
        """Complete programs of the budget (never more), then what Hypothesis runs besides,
        then the replays cutting the counterexample down."""
        self._next_status(lambda: self._programs(shrink_runs, reduce_runs))

    def _programs(self, shrink_runs: int, reduce_runs: int) -> str:
        from loopspec.properties.conformance import machine as conformance  # noqa: PLC0415

        done, retries = conformance.PROGRAM_ENDS["complete"], conformance.PROGRAM_ENDS["abandoned"]
        besides = f" (+{retries} abandoned)" if retries else ""
        if shrink_runs:
            besides += f", shrinking the counterexample: {shrink_runs} runs"
        if reduce_runs:
            besides += f", cutting it down: {reduce_runs} replay{'s' if reduce_runs > 1 else ''}"
        return f"{done}/{self.budget} programs{besides}"

    def sweeping(self, what: str, played: int) -> None:
        """A program of a sweep played before or after the search (a slow target's sweep of
        SPEC.md section 12's examples ran for minutes without a line)."""
        self._next_status(lambda: f"{what}: {played}")

    def _next_status(self, status: Callable[[], str]) -> None:
        self.status, self.command, self.step_started = status, 0, time.monotonic()
        if self.redraws or self.step_started - self.last_said >= PROGRESS_LINE_SECONDS:
            self._say(status())

    def waiting(self, command: int | None) -> None:
        """Told of the command `command` sent to the program running, or (None) of a wait for
        the target's answer: the line again, saying where the program is, once it is due
        (a program of a real CLI runs for minutes, and a CI log had no line all that time)."""
        now = time.monotonic()
        if command is not None:
            self.command, self.step_started = command, now
        if now - self.last_said < (REDRAW_SECONDS if self.redraws else PROGRESS_LINE_SECONDS):
            return
        at = f"the one running at its command {self.command}" if self.command else ""
        awaited = f"waiting {now - self.step_started:.0f} s for the target's answer"
        running = ", ".join(part for part in (at, awaited if command is None else "") if part)
        self._say(self.status(), running)

    def _say(self, said: str, running: str = "") -> None:
        now = time.monotonic()
        said = f"  {said}, {now - self.started:.0f} s" + (f"; {running}" if running else "")
        self.last_said = now
        if self.redraws:
            # Spaces over what a longer line drawn before left (no terminal escapes).
            print(f"\r{said.ljust(self.width)}", end="", file=sys.stderr, flush=True)
            self.width = max(self.width, len(said))
            self.drawn = True
        elif self.say_line is not None:
            self.say_line(said)
        else:
            print(said, file=sys.stderr, flush=True)

    def end(self) -> None:
        """End a redrawn line, so what follows starts on a line of its own."""
        if self.drawn:
            print(file=sys.stderr)


@contextlib.contextmanager
def sweep_progress(what: str) -> Iterator[Callable[[int], None]]:
    """A pass run before the search (conform's --exhaustive K) shown as the search is, on
    stderr: told how many of its programs have been `what` (a pass of K = 6 ran 35 s on the
    bundled loop, and a slow target's minutes, without a line a CI log could show)."""
    progress = _Progress(0, time.monotonic())
    try:
        with _told_of_waits(progress, show=True):
            yield lambda played: progress.sweeping(what, played)
    finally:
        progress.end()


def _told_of_waits(progress: _Progress, show: bool) -> contextlib.AbstractContextManager[None]:
    """`progress` told of each command sent and each wait for an answer, if it is shown."""
    return listening(progress.waiting) if show else contextlib.nullcontext()


# Allocations between two collections of the youngest generation during a run (Python's default
# is 700): see `_young_collections_rarer`.
YOUNG_GENERATION_THRESHOLD = 5000


@contextlib.contextmanager
def _young_collections_rarer() -> Iterator[None]:
    """Collect the youngest generation less often while Hypothesis runs the programs.

    A run keeps what Hypothesis learns of the programs (its tree of choices) and allocates a
    great deal of short-lived data per command; at the default threshold, the collections that
    follow keep promoting and re-scanning the growing tree, about an eighth of a run's CPU.
    The older generations' thresholds are left alone; the previous setting is restored.
    """
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], YOUNG_GENERATION_THRESHOLD), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


class _OneProgramAtATime:
    """Makes each program's machine, and lets go of what the one before held.

    Hypothesis keeps a finished machine in reference cycles (its rule strategy, and the test
    case's data, point back at it), so everything the machine held (the model's states, the
    target and its loop, the log monitor, the expected events) stayed allocated until the
    collector found the cycle, programs later: each program then allocated fresh memory
    instead of reusing the last one's while it was still in the cache, and every collection
    traversed the dead programs. Hypothesis runs one program at a time and is done with a
    machine (torn down) before it asks for the next one, so emptying the last machine there
    frees its state at once, by reference counting.
    """

    def __init__(self, machine: Callable[[], RuleBasedStateMachine]) -> None:
        self._machine = machine
        self._last: RuleBasedStateMachine | None = None

    def next(self) -> RuleBasedStateMachine:
        """A fresh machine for the next program, once the last one's state is let go."""
        self.release()
        self._last = self._machine()
        return self._last

    def release(self) -> None:
        """Empty the last machine made: Hypothesis has torn it down and never uses it again."""
        if self._last is not None:
            vars(self._last).clear()
            self._last = None


def _new_program(
    machine: Callable[[], RuleBasedStateMachine],
) -> Callable[[], RuleBasedStateMachine]:
    """`machine` as the state machine factory Hypothesis is given: a function, not the class.

    Hypothesis digests its factory's source once per run (the key of a database it is not
    given here, and the seed of a run without one), and a class's digest re-reads and
    re-tokenizes the whole module, about 30 ms a run; this function's is a few lines. The
    seed of a run without `--seed` then no longer moves with every edit of the machine.
    """

    def new_program() -> RuleBasedStateMachine:
        return machine()

    return new_program


class _OutOfTime(KeyboardInterrupt):
    """The run's deadline passed: raised where the next program would start and caught around
    Hypothesis. An interrupt to Hypothesis, as Ctrl-C is: it takes any other exception for the
    program's own outcome, and a program that ended before its first draw, unlike its earlier
    run, for a flaky strategy (FlakyStrategyDefinition)."""


def run_conformance(
    factory: TargetFactory,
    *,
    examples: int,
    seed_value: int | None,
    steps: int = 40,
    show_progress: bool = True,
    progress_line: Callable[[str], None] | None = None,
    profile: Profile | None = None,
    shrink: bool = True,
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> RunReport:
    """Run the conformance machine against the target; never raises for a divergence.

    With `profile`, the target's known divergences are erased
    (`loopspec.properties.conformance.profile_check`). Without `shrink`, a counterexample is
    reported as found (a bounded run on a slow target: shrinking replays it many times).

    With `deadline` (a time of `clock`), no program starts once it has passed: the search ends
    with the programs run so far (`out_of_time`), a counterexample being shrunk keeps the
    smallest program found so far, and cutting one down stops there too (`REDUCE_SECONDS` at
    most). The program running when it passes is finished: the run may end that much later.

    With `show_progress`, how far the run is goes to stderr (`_Progress`), or as whole lines to
    `progress_line` when it is given.
    """
    # Only here, see the imports above.
    from hypothesis import HealthCheck, Phase, Verbosity, seed, settings  # noqa: PLC0415
    from hypothesis.stateful import get_state_machine_test  # noqa: PLC0415

    from loopspec.properties.conformance import machine as conformance  # noqa: PLC0415
    from loopspec.properties.conformance.presentation_sweep import (  # noqa: PLC0415
        sweep_presentation,
    )
    from loopspec.properties.conformance.situation_sweep import sweep_situations  # noqa: PLC0415
    from loopspec.properties.stateful.strategies import CONFIGS  # noqa: PLC0415

    breakage = TargetBreakage()
    # A profile describes its implementation for what conform sends that one: a target with
    # more capabilities is sent only those (the rest would be blamed through the profile's
    # erasers, which know nothing of them), and their rules are reported not applicable.
    within = profile.capabilities if profile is not None else None
    # Its seconds count from here: a target's start-up (a JVM, a real CLI) may be long.
    progress_report = _Progress(examples, time.monotonic(), progress_line)
    probe = GuardedTarget(factory, breakage, within)
    try:
        with _told_of_waits(progress_report, show_progress):
            capabilities = probe.reset(CONFIGS[0])
        name = probe.name
    finally:
        probe.close()
    counted = Counter[str]()
    started = time.monotonic()

    def counting_factory() -> ConformanceTarget:
        if deadline is not None and clock() >= deadline:
            raise _OutOfTime
        # Once a divergence is found, every further program is Hypothesis shrinking it.
        counted["shrink" if pin else "examples"] += 1
        if show_progress:
            progress_report.show(counted["shrink"])
        return GuardedTarget(factory, breakage, within)

    conformance.reset_coverage()
    pin: dict[str, str] = {}
    smallest: list[DivergenceFound] = []
    # One machine class for every run: Hypothesis keeps each class it has run for good.
    shared = conformance.ConformanceRun(counting_factory, profile, pin, smallest)
    budget = settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        database=None,
        derandomize=seed_value is None,
        phases=[Phase.generate, Phase.shrink] if shrink else [Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        # conform prints its own report; Hypothesis's (e.g. a slow-shrink warning) would land in
        # the middle of `--format json` on stdout.
        verbosity=Verbosity.quiet,
        # Stop generating at the first divergence: `examples` then counts programs, not
        # Hypothesis's hunt for further bugs.
        report_multiple_bugs=False,
    )
    # Hypothesis takes any callable that returns a machine ("it can be a class or a
    # function", `run_state_machine_as_test`), though its annotation names a class.
    programs = _OneProgramAtATime(lambda: conformance.ConformanceMachine(shared))
    new_program = cast("type[RuleBasedStateMachine]", _new_program(programs.next))
    test = get_state_machine_test(new_program, settings=budget)
    if seed_value is not None:
        test = seed(seed_value)(test)
    divergence: Divergence | None = None
    program: tuple[Command, ...] = ()
    config: LoopConfig | None = None
    out_of_time = False
    cut_short = False
    stopped_by_ctrl_c = False
    unrepeated: DivergenceFound | None = None  # the rerun of its program did not diverge
    searched = False  # the presentation examples all passed, and the search began
    # The commands each of section 12's programs sent (the last diverging), and each targeted
    # program of rare situations likewise: counted in `steps`, as their time is in `seconds`.
    swept: list[tuple[Command, ...]] = []
    targeted: list[tuple[Command, ...]] = []
    unplayed: list[UnplayedSituation] = []

    def counted_in(
        programs: list[tuple[Command, ...]], what: str
    ) -> Callable[[tuple[Command, ...]], None]:
        """`programs.append`, showing how many a sweep has played: a slow target's sweep of
        section 12's examples ran for minutes without a line."""

        def played_one(commands: tuple[Command, ...]) -> None:
            programs.append(commands)
            if show_progress:
                progress_report.sweeping(what, len(programs))

        return played_one

    played = counted_in(swept, "SPEC.md section 12's presentation examples played")
    targeted_one = counted_in(targeted, "targeted programs of rare situations played")

    def reducing(replays: int) -> None:
        progress_report.show(counted["shrink"], replays)

    def seconds_left() -> float:
        """What cutting a program down may spend: `REDUCE_SECONDS`, less once the deadline
        is that close (0 or less: not cut down at all)."""
        return REDUCE_SECONDS if deadline is None else min(REDUCE_SECONDS, deadline - clock())

    def broken(first: TargetError) -> TargetError:
        """The run's breakage, its program cut down when shrinking (`reduce_breakage`)."""
        nonlocal out_of_time
        left = seconds_left()
        out_of_time = out_of_time or left <= 0
        if not shrink or left <= 0:
            return first
        progress = reducing if show_progress else None
        return reduce_breakage(factory, first, profile, progress, max_seconds=left)

    def settled(found: DivergenceFound, *, cut: bool = True) -> None:
        """`found` as the run's counterexample, cut down when shrinking (and `cut`)."""
        nonlocal divergence, program, config, out_of_time, cut_short, stopped_by_ctrl_c
        divergence, program, config = found.divergence, found.program, found.config
        left = seconds_left()
        out_of_time = out_of_time or left <= 0
        if shrink and cut and left > 0:
            progress = reducing if show_progress else None
            reduced = reduce_counterexample(factory, found, profile, progress, max_seconds=left)
            divergence, program, config = reduced.divergence, reduced.program, reduced.config
            counted["reduce"] = reduced.replays
            stopped_by_ctrl_c = reduced.interrupted
            # The run's own deadline ending it is said as out_of_time; its own bounds, here.
            cut_short = not reduced.complete and not out_of_time and not reduced.interrupted

    listened = contextlib.ExitStack()  # each command and wait, shrinking and cutting down too
    listened.enter_context(_told_of_waits(progress_report, show_progress))
    try:
        with _young_collections_rarer():
            # Before the search: a row costs a program's time, and a bridge bug only a row
            # shows (an edit's diff swapped, an absolute title) was reported after every random
            # program, minutes later. A diverging row ends the run as a program's divergence does.
            if _sweeps(profile, capabilities) and (deadline is None or clock() < deadline):
                sweep_presentation(
                    lambda: GuardedTarget(factory, breakage, within),
                    capabilities,
                    _count_presentation,
                    played,
                )
            searched = True
            try:
                with without_source_literals():
                    test()
            finally:
                programs.release()
            if profile is None and (deadline is None or clock() < deadline):
                # Counted as the random programs are (rules, situations, transitions): the
                # verdict named them, yet the rules only they reach read "not reached by the
                # generator" (19 after one program on the bundled loop).
                sweep_situations(
                    lambda: GuardedTarget(factory, breakage, within),
                    capabilities,
                    played=targeted_one,
                    counter=conformance.program_counter,
                )
            elif profile is not None:
                _sweep_situations_profiled(
                    factory,
                    capabilities,
                    profile,
                    played=targeted_one,
                    counter=conformance.program_counter,
                    unplayed=unplayed.append,
                    in_time=lambda: deadline is None or clock() < deadline,
                )
    except _OutOfTime:
        out_of_time = True
        if breakage.first is not None:
            raise broken(breakage.again()) from None
        if smallest:  # the time ended Hypothesis's shrinking: the smallest program so far
            settled(smallest[0])
    except KeyboardInterrupt:
        if breakage.first is not None or not smallest:
            raise
        # Ctrl-C while Hypothesis shrank a divergence the search had found: the smallest program
        # so far is still one, kept as when cutting it down is stopped (not cut: the user asked
        # for the run to end), where the run ended "its report not written", no case saved.
        stopped_by_ctrl_c = True
        settled(smallest[0], cut=False)
    except DivergenceFound as found:
        if breakage.first is not None:
            raise broken(breakage.again()) from None
        settled(found)
    except Exception as error:
        # A broken target, however Hypothesis wrapped it (a flaky failure, a group): SAFE-5.
        if breakage.first is not None:
            raise broken(breakage.again()) from None
        # A divergence Hypothesis could not repeat: the model is deterministic, so the target
        # answered one program two ways (most often a `reset` that keeps the last session).
        # Its program is reported as found, not cut down (a rerun need not diverge): a person
        # holds something to replay and attach to a bug report (`UnrepeatedDivergence`).
        unrepeated = _divergence_in(error)
        if unrepeated is None:
            raise
        divergence, program, config = unrepeated.divergence, unrepeated.program, unrepeated.config
    finally:
        listened.close()
        progress_report.end()
    conformance.count_observed()
    transitions = transition_rows(conformance.TRANSITION_HITS)
    report = RunReport(
        name,
        capabilities,
        conformance.PROGRAM_ENDS["complete"],
        # The targeted programs' commands are among the transitions counted; section 12's
        # examples' are not (they count their presentation situations alone).
        sum(conformance.TRANSITION_HITS.values()) + sum(map(len, swept)),
        time.monotonic() - started,
        divergence,
        program,
        config,
        transitions,
        dict(conformance.RULE_HITS),
        profile,
        dict(conformance.KNOWN_HITS),
        dict(SITUATION_HITS),
        counted["shrink"],
        conformance.PROGRAM_ENDS["abandoned"],
        counted["reduce"],
        out_of_time,
        len(swept),
        len(targeted),
        divergence is not None and not searched,
        tuple(unplayed),
        cut_short,
        stopped_by_ctrl_c,
        unrepeated=unrepeated is not None,
    )
    if unrepeated is not None:
        raise UnrepeatedDivergence(_unrepeatable(unrepeated), report)
    return report


def _sweep_situations_profiled(
    factory: TargetFactory,
    capabilities: frozenset[str],
    profile: Profile,
    *,
    played: Callable[[tuple[Command, ...]], None],
    counter: Callable[[], CommandCounter],
    unplayed: Callable[[UnplayedSituation], None],
    in_time: Callable[[], bool],
) -> None:
    """The targeted programs of rare situations under `profile`: each replayed as a case is
    (its settling tail sent too), compared whole with the profile's known divergences erased,
    its commands counted with what `counter` makes; raises `DivergenceFound` for the first that
    diverges. `unplayed` is told of each not played (`skipped_under`) or stopped at a known
    divergence, with why; no program starts once `in_time` says the run's time is over."""
    from loopspec.properties.conformance import machine as conformance  # noqa: PLC0415
    from loopspec.properties.conformance.situation_sweep import (  # noqa: PLC0415
        settled_program,
        situations_for,
        skipped_under,
    )

    for situation in situations_for(capabilities):
        if not in_time():
            return
        skipped = skipped_under(situation, profile)
        if skipped is not None:
            unplayed(UnplayedSituation(situation.name, f"not played: {skipped}"))
            continue
        commands = list(settled_program(situation))
        replay = replay_case(factory, situation.config, commands, profile, count=counter())
        if replay.divergence is not None:
            sent = tuple(commands[: replay.divergence.index + 1])
            played(sent)
            raise DivergenceFound(replay.divergence, situation.config, sent)
        conformance.KNOWN_HITS.update(replay.known)
        if replay.stopped_by is None or replay.stopped_at is None:
            played(tuple(commands))
            continue
        played(tuple(commands[: replay.stopped_at + 1]))
        stopped = commands[replay.stopped_at]
        unplayed(
            UnplayedSituation(
                situation.name,
                f"stopped at its command #{replay.stopped_at + 1} ({stopped.NAME}) by the "
                f"known divergence {replay.stopped_by}: nothing after it is compared",
            )
        )


def _sweeps(profile: Profile | None, capabilities: frozenset[str]) -> bool:
    """Whether section 12's examples are played (`presentation_sweep`): on a target that
    presents, compared whole (a profile describes a harness, and none presents)."""
    return profile is None and "presentation" in capabilities


def _count_presentation(expected: Observation) -> None:
    """A swept command's presentation situations, each also checked, for the rule table."""
    situations = presentation_situations(expected.presented or ())
    SITUATION_HITS.update(situations)
    from loopspec.properties.conformance import machine as conformance  # noqa: PLC0415

    conformance.RULE_HITS.update(situations)


# What cutting a counterexample down may spend at most: candidates replayed, and seconds. The
# bundled mutants' shrunk programs need 23 to 95 replays (a hundredth of a second of CPU or
# so); a slow target is stopped at the limit with the smallest program found so far.
REDUCE_REPLAYS = 2000
REDUCE_SECONDS = 60.0


@attrs.frozen
class Reduced:
    """A counterexample cut down: its configuration, program and divergence (replayed)."""

    config: LoopConfig
    program: tuple[Command, ...]
    divergence: Divergence
    replays: int
    complete: bool = True  # False: cutting stopped at its bounds, not at the smallest
    interrupted: bool = False  # Ctrl-C stopped the cutting (before its end or its bounds)


Witness = TypeVar("Witness")


def _cut_down(
    config: LoopConfig,
    program: Program,
    original: Witness,
    replayed: Callable[[LoopConfig, Program], Witness | None],
    progress: Callable[[int], None] | None,
    *,
    max_seconds: float = REDUCE_SECONDS,
) -> tuple[LoopConfig, Program, Witness, int, bool, bool]:
    """`config` and `program` cut down (`reduce_program`) while replaying a candidate gives a
    witness of the same failure (`replayed`: None when it does not fail alike), with the kept
    program's witness, the replays made, whether cutting went to its end (False: it stopped
    at `max_replays` or `max_seconds`, or Ctrl-C, with a program that may be cut further) and
    whether Ctrl-C stopped it. The whole
    program is replayed first: when it does not fail alike again (a failure that depends on
    earlier programs), or the user stops that replay (Ctrl-C), it is kept with `original`, as
    it is when nothing smaller fails alike.
    Bounded by `REDUCE_REPLAYS` and `max_seconds`; Ctrl-C while cutting keeps the smallest
    program so far."""
    latest = [original]
    replays = 0

    def still_fails(config: LoopConfig, program: Program) -> bool:
        nonlocal replays
        replays += 1
        if progress is not None:
            progress(replays)
        witness = replayed(config, program)
        if witness is None:
            return False
        latest[0] = witness
        return True

    try:
        confirmed = still_fails(config, program)
    except KeyboardInterrupt:  # stopped before anything was cut: the run's own failure
        return config, program, original, replays, False, True
    if not confirmed:
        return config, program, original, replays, True, False
    reduction = reduce_program(
        config, program, still_fails, max_replays=REDUCE_REPLAYS, max_seconds=max_seconds
    )
    ended = (reduction.complete, reduction.interrupted)
    if (reduction.config, reduction.program) == (config, program):
        return config, program, original, replays, *ended
    # Each candidate that failed alike became the reduction's current program: the last
    # witness is the kept program's.
    return reduction.config, reduction.program, latest[0], replays, *ended


NARROWER_RULES: Final[Mapping[str, frozenset[str]]] = MappingProxyType(
    {"HOOK-2": frozenset({"DEC-1", "DEC-2"}), "EXE-2": frozenset({"EXE-5"})}
)
"""Rules a smaller program may be blamed on in place of the counterexample's, which it then
keeps: the bug needs less than the first rule's situation, or the smaller program tells two
readings apart. HOOK-2 is the merge of several hooks' answers; with the other hooks cut, a
lone deny the target still runs breaks DEC-1 (a deny it ignores whatever the other answers), a
lone ask it runs unasked DEC-2. An unregistered tool's call whose arguments are lossy JSON or
blank to JavaScript alone, answered UNKNOWN_TOOL or shown to hooks, is read as EXE-2 (a reader
took them for an object) while calls still run or hooks wait: a reply calling the tool with
`[]`, sent to tell, cannot be sent then. With those cut, it can, and a target answering that
UNKNOWN_TOOL too judges no input of such a tool, EXE-5 (`_unknown_tool_input_unchecked`)."""


def reduce_counterexample(
    factory: TargetFactory,
    found: DivergenceFound,
    profile: Profile | None = None,
    progress: Callable[[int], None] | None = None,
    *,
    max_seconds: float = REDUCE_SECONDS,
) -> Reduced:
    """`found`'s program cut down to one from which no command, reply block, hook, tool or
    detail can be taken without losing the divergence or changing its rule, but to a narrower
    one (`NARROWER_RULES`; `loopspec.properties.conformance.reduce`), each candidate replayed
    on a fresh model and target as `loopspec replay` replays a case. A candidate the target
    breaks on (raises, dies, stops answering) or cannot be sent is not kept; the program
    Hypothesis shrank is kept unless a smaller one diverges alike (and when replaying it finds
    no such divergence: a difference only the machine's comparison sees). `progress` is told
    the replays made; `max_seconds` bounds the cutting (`_cut_down`)."""
    rule = [found.divergence.rule_id]

    def diverging(config: LoopConfig, program: Program) -> Divergence | None:
        try:
            replay = replay_case(factory, config, list(program), profile)
        except TargetError:
            return None
        divergence = replay.divergence
        if divergence is None:
            return None
        if divergence.rule_id in NARROWER_RULES.get(rule[0], ()):
            rule[0] = divergence.rule_id  # kept from now on, as the first rule was
        return divergence if divergence.rule_id == rule[0] else None

    with _quick_answers(factory):
        config, program, divergence, replays, complete, interrupted = _cut_down(
            found.config,
            found.program,
            found.divergence,
            diverging,
            progress,
            max_seconds=max_seconds,
        )
    return Reduced(config, program, divergence, replays, complete, interrupted)


def _quick_answers(factory: TargetFactory) -> contextlib.AbstractContextManager[object]:
    """While cutting a case down, a process target's answers are awaited a multiple of its
    slowest so far, not the full timeout (`ProcessTarget.quick_answers`): a candidate it hangs
    on then costs about a second, not ten. A candidate that times out is not kept, unless the
    run's own failure was a timeout at a command of the same kind (`reduce_breakage`), whose
    kept program is confirmed with the full timeout. An in-process target has no timeout."""
    if isinstance(factory, SharedProcess):
        return factory.quick_answers()
    return contextlib.nullcontext()


def reduce_breakage(
    factory: TargetFactory,
    broke: TargetError,
    profile: Profile | None = None,
    progress: Callable[[int], None] | None = None,
    *,
    max_seconds: float = REDUCE_SECONDS,
) -> TargetError:
    """`broke`, the target's failure inside a program (SAFE-5), with that program cut down as
    `reduce_counterexample` cuts a divergence down (`_cut_down`), each candidate replayed on a
    fresh target as `loopspec replay` replays a case; `broke` itself when it has no program, or
    when replaying its program does not break the target alike (a failure that depends on
    earlier programs).

    A candidate is kept when the target breaks on it *the same way* (`_breakage_signature`):
    in the same step (apply, reset, ...) with the same first line of the error, the command
    number a process target counts over its life masked; at a command of the same kind (the
    candidate's last); with the same frames (`file:line`) in what a process wrote to stderr,
    so a planted `throw` stays that throw and a process dying of another bug is not taken for
    it; and with the same exit code. A candidate that diverges first, or breaks otherwise, is
    not kept. The error returned is the last kept replay's (its program ends at the command
    the target broke on).

    Why replays and not Hypothesis: a breakage ends the run at once (`TargetBreakage`), because
    Hypothesis retries a failure, and a process restarted at the next reset may not repeat it
    (a flaky run, not a report); so Hypothesis never shrinks a breakage. Replaying needs no
    such guard: each candidate has its own breakage record.

    A process target's candidates are awaited a multiple of its slowest answer in the run
    (`_quick_answers`), so a candidate it hangs on costs about a second (its wait and a
    restart), not the full timeout; "no answer within" is then alike whatever the wait (the
    signature masks it). When the run's failure was such a timeout, the smallest program kept
    is replayed once more with the full timeout and reported only if the target hangs on it
    again, at a command of the same kind (an answer slower than the short wait is not a hang);
    else the program kept before it is tried, and so on back to the run's own program and
    error. The seconds bound is checked between candidates: at most one timeout beyond it. An
    in-process target that hangs on a candidate cannot be stopped but by Ctrl-C, as in the run
    itself."""
    if broke.config is None or not broke.program:
        return broke
    wanted = _breakage_signature(broke)

    def breaking(config: LoopConfig, program: Program) -> TargetError | None:
        try:
            replay_case(factory, config, list(program), profile)
        except UndeclaredCapability:
            return None
        except TargetError as again:
            if again.config is None or _breakage_signature(again) != wanted:
                return None
            return again
        return None

    # Every program kept, in the order kept: the last is the smallest.
    kept: list[tuple[LoopConfig, Program]] = []

    def kept_if_breaking(config: LoopConfig, program: Program) -> TargetError | None:
        again = breaking(config, program)
        if again is not None:
            kept.append((config, program))
        return again

    with _quick_answers(factory):
        *_, smallest, replays, _, _ = _cut_down(
            broke.config, broke.program, broke, kept_if_breaking, progress, max_seconds=max_seconds
        )
    if smallest is broke or not _NO_ANSWER.search(broke.message.partition("\n")[0]):
        return smallest
    # Kept after a shorter wait: a hang only if the full timeout passes too. A program kept
    # on a slow answer (a loaded machine) gives way to the one kept before it, down to the
    # run's own, which hung for the full timeout in the run.
    try:
        for config, program in reversed(kept):
            if (config, program) == (broke.config, broke.program):
                break
            replays += 1
            if progress is not None:
                progress(replays)
            confirmed = breaking(config, program)
            if confirmed is not None:
                return confirmed
    except KeyboardInterrupt:  # stopped while confirming: the run's own failure
        pass
    return broke


# Where a process target counts its commands over its life ("answering the command of seq 41"),
# not in the program: masked when two breakages are compared.
_PROCESS_COMMAND_NUMBER = re.compile(r"\bcommand of seq \d+\b")
# An answer carrying the wrong seq (`ProcessTarget`): the seq sent counts over the process's life,
# and the wrong one answered often follows it (an off-by-one).
_WRONG_SEQ = re.compile(r"\bcarries seq .*?, not its command's seq \d+")
# A frame of a stack trace as JavaScript (`file.mjs:190:48`) or Python (`File "x.py", line 12`)
# prints it.
_FRAME = re.compile(r'[^\s()]+:\d+:\d+|File "[^"]+", line \d+')
_EXIT_CODE = re.compile(r"^exit code: -?\d+$", re.MULTILINE)
# A process target's answer timeout (`ProcessTarget`), masked: shorter while cutting down.
_NO_ANSWER = re.compile(r"\bno answer to (.*) within [\d.]+ s\b")


def with_wait_hint(text: str, option: str) -> str:
    """`text` with a process target's "no answer to X within T s" followed by the option that
    waits longer: `--answer-timeout` where the CLI prints it, `--loopspec-answer-timeout` where
    the pytest plugin does. Added where the error is printed, not in the target's message:
    breakages are compared on that message, and a saved case holds it for either reader. A
    target found waiting for its next message, its answer unflushed, gets none: waiting longer
    would not help it."""
    if any(words in text for words in (UNFLUSHED, UNFLUSHED_BETWEEN, UNENDED, THREAD_DIED)):
        return text
    return _NO_ANSWER.sub(lambda said: f"{said[0]} (to wait longer: {option} S)", text, count=1)


def _breakage_signature(broke: TargetError) -> tuple[str, str, tuple[str, ...], tuple[str, ...]]:
    """What two breakages must share to be the same (`reduce_breakage`)."""
    first, _, rest = broke.message.partition("\n")
    kind = broke.program[-1].NAME if broke.program else ""
    first = _PROCESS_COMMAND_NUMBER.sub("command of seq N", first)
    first = _WRONG_SEQ.sub("carries seq M, not its command's seq N", first)
    return (
        _NO_ANSWER.sub(r"no answer to \1 within T s", first),
        kind,
        tuple(_FRAME.findall(rest)),
        tuple(_EXIT_CODE.findall(rest)),
    )


def _divergence_in(error: BaseException) -> DivergenceFound | None:
    """The divergence an exception carries, however Hypothesis wrapped it (a flaky failure is
    an exception group holding the first run's error)."""
    pending: list[BaseException] = [error]
    seen: set[int] = set()  # a context chain may loop back
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, DivergenceFound):
            return current
        if isinstance(current, BaseExceptionGroup):
            pending += current.exceptions
        pending += [e for e in (current.__cause__, current.__context__) if e is not None]
    return None


def _unrepeatable(found: DivergenceFound) -> str:
    """Why a divergence that did not happen again is the target's fault, not a counterexample."""
    return (
        f"the target answered a program differently when it ran again (conform reruns a "
        f"diverging program to confirm and shrink it); the first run found {found}; a target "
        "must answer a program alike every time: `reset` starts an empty session, and nothing "
        "may carry over from an earlier program or depend on time or chance (a Go map is "
        "iterated in another order each time: order by the reply's calls or the configuration)"
    )


def spec_text(rule_id: str) -> str:
    """The rule's section of SPEC.md (shipped as package data)."""
    try:
        text = shipped_spec()
    except OSError:
        return ""
    return rule_sections(text).get(rule_id, "")


def all_rules() -> list[str]:
    """Every rule ID SPEC.md states (or the code cites, when SPEC.md is not at hand)."""
    try:
        text = shipped_spec()
        return list(rule_sections(text))
    except OSError:
        return sorted(set(rule_ids()) | {r for t in TRANSITIONS for r in t.rules})


# Rules no target can show conform breaking: the driver protocol carries a target's log events,
# executed calls, presented ACP messages and refusals, and these rules are about something else.
# Each says what conform does not see. The model's own tests prove the model's side; nothing in a
# conform run checks the target's, so the row never reads "exercised" however many of the events
# around it were compared (HIST-1 did, while a history that dropped a reply passed every seed).
NOT_OBSERVABLE_STATUS = "not observable by conform (model tests)"
_PROVIDER_REQUESTS = "the target's requests to its model's provider"
_LOOPSPECS_OWN = "a rule about loopspec itself (what it does with a user's input), not a target"
NOT_OBSERVABLE: dict[str, str] = {
    "LOG-3": "how the target holds event data in memory (frozen, never aliased)",
    "LOG-5": "the log's header line: the protocol carries only events",
    "LOG-7": "surface replaces: no command makes a target compact or prune its history",
    "VIEW-1": "the target's types (how its code is written)",
    "HIST-1": (
        "the messages the target sends its model: the protocol carries its log (whose "
        "messages LOG-2, ORD-1, TEXT-1 and TEXT-2 compare), not its model requests"
    ),
    "HIST-2": _PROVIDER_REQUESTS,
    "HIST-3": _PROVIDER_REQUESTS,
    "HOOK-7": "hook processes' faults: a program scripts each hook's answer, so no hook runs",
    "MODEL-2": "a rule about the model's own states, not a target",
    **dict.fromkeys(("SAFE-1", "SAFE-2", "SAFE-3", "SAFE-4", "SAFE-5", "SAFE-6"), _LOOPSPECS_OWN),
}
# What a capability lets conform observe of such a rule: with it, the row is like any other.
OBSERVABLE_WITH = {"HIST-1": "history"}


def reported_with(rule: str) -> str | None:
    """The capability a target must declare for what it reports to carry what `rule` is about
    (HIST-1: `history`; the ACP cards' rules: `presentation`), or None. Such a capability adds
    to a target's reports, not to what it is sent: a case found with it replays on a target
    without it, and compares nothing the rule speaks about."""
    if rule in OBSERVABLE_WITH:
        return OBSERVABLE_WITH[rule]
    return "presentation" if rule_needs(rule) == ("presentation",) else None


# Parts of rules conform observes that no target reports either: the row names them.
UNOBSERVED_PARTS = {
    "RW-1": (
        "the arguments in the messages the target sends its model (its log's, what ran and "
        "what it presented are compared)"
    ),
}


# Parts of a rule no program reaches, whatever it draws (SPEC.md section 12 says which and why):
# a tool body's outcome carries text only, and conform presents to a client without terminals.
# The model's own tests prove them; a rule row names them beside its status.
UNREACHABLE_PARTS = {
    "ACP-1": "image, audio and other non-text result blocks (a tool outcome carries text only)",
    "ACP-2": "the terminal a terminal-capable client gets (conform's client has none)",
    "VIEW-3": "the raw fallback of non-text result blocks (a tool outcome carries text only)",
}


def rule_table(report: RunReport) -> list[dict[str, Any]]:
    """`rule_rows` as the JSON documents write them."""
    return [converter.unstructure(row) for row in rule_rows(report)]


def rule_rows(report: RunReport) -> list[RuleRow]:
    """Per rule: exercised, checked only, not applicable, not observable, or never reached.

    `generated` counts the situations programs created that the rule governs (duplicate call
    ids for EXE-1, a deny for DEC-1, ...); `checked` counts the comparisons that covered the
    events the rule speaks about. A rule is "exercised" only when its situation was generated.
    """
    # The documents' classes, only where a report is written: a replay starts without them.
    from loopspec.properties.conformance.report_documents import RuleRow as Row  # noqa: PLC0415

    rows: list[RuleRow] = []
    for rule in all_rules():
        alternatives = rule_needs(rule)
        needs = " or ".join(alternatives) or None
        generated = report.situations.get(rule, 0)
        checked = report.steps if rule == "PROTO-1" else report.rules.get(rule, 0)
        observable = OBSERVABLE_WITH.get(rule) in report.capabilities
        if rule in NOT_OBSERVABLE and not observable:
            status, generated, checked = NOT_OBSERVABLE_STATUS, 0, 0
        elif alternatives and not set(alternatives) & set(report.capabilities):
            status, generated, checked = "not applicable", 0, 0
        elif generated:
            status = "exercised"
        elif checked:
            status = "checked, situation never generated"
        else:
            status = "not reached by the generator"
        known = sorted(k for k in report.known if rule in _known_rules(report.profile, k))
        unreachable = UNREACHABLE_PARTS.get(rule)
        unobservable = None if observable else NOT_OBSERVABLE.get(rule)
        unobservable = unobservable or _unobserved_part(rule, report.capabilities)
        # A known divergence may touch a rule conform does not observe: a profile reads it
        # in the log (Claude Code's transcript holds a reply the model never wrote, HIST-1).
        if status == "not applicable":
            known, unreachable, unobservable = [], None, None
        if known:
            status = "known divergence"
        if report.divergence is not None and report.divergence.rule_id == rule:
            status = "VIOLATED"
        rows.append(
            Row(
                rule,
                status,
                count=generated,
                generated=generated,
                checked=checked,
                needs=needs or None,
                known=known,
                unreachable=unreachable or None,
                unobservable=unobservable or None,
            )
        )
    return rows


def _unobserved_part(rule: str, capabilities: frozenset[str]) -> str | None:
    """The part of an observed rule no protocol message of this target carries."""
    if rule == "RW-1" and "history" in capabilities:  # its arguments are in the history
        return None
    return UNOBSERVED_PARTS.get(rule)


def _known_rules(profile: Profile | None, key: str) -> tuple[str, ...]:
    return profile.divergence(key).rules if profile is not None else ()


def known_table(report: RunReport) -> list[dict[str, Any]]:
    """`known_rows` as the JSON documents write them."""
    return [converter.unstructure(row) for row in known_rows(report)]


def known_rows(report: RunReport) -> list[KnownDivergenceRow]:
    """Per known divergence of the run's profile: how many programs showed it, and what it is."""
    from loopspec.properties.conformance.report_documents import (  # noqa: PLC0415 (see rule_rows)
        KnownDivergenceRow as Row,
    )

    if report.profile is None:
        return []
    return [
        Row(known.key, list(known.rules), report.known.get(known.key, 0), known.what, known.hard)
        for known in report.profile.divergences
    ]


def profile_named(name: str | None) -> Profile | None:
    """The profile called `name` (None for none)."""
    if name is None:
        return None
    try:
        return PROFILES[name]
    except KeyError:
        raise TargetError(
            f"unknown profile {name!r}; known profiles: {', '.join(sorted(PROFILES))}"
        ) from None


def case_fields(
    target: dict[str, str],
    *,
    rule: str,
    what: str,
    config: LoopConfig,
    commands: Iterable[Command],
    profile: str | None = None,
    capabilities: frozenset[str] | None = None,
) -> dict[str, Any]:
    """A replayable case file's document: the one shape every saved case has (a random or
    exhaustive counterexample, a program a target broke in). `capabilities` are those the target
    declared, when known: a colleague replaying on another build can tell why it differs. The
    target and `what` are written as `case_portable` says: a case is shared, and its paths and
    secrets are this machine's."""
    return {
        "loopspec": "case",
        "version": CASE_VERSION,
        "loopspecVersion": loopspec.__version__,
        "target": shared_target(target),
        **({"capabilities": sorted(capabilities)} if capabilities is not None else {}),
        "rule": rule,
        "what": lone_surrogates_escaped(shared(what)),
        "summary": _how_to_replay(shared_target(target), rule),
        "config": config_to_json(config),
        "commands": [command_to_json(c) for c in commands],
        **({"profile": profile} if profile is not None else {}),
    }


SUMMARY_CASE = "CASE"
"""What a case's summary writes for the case file in the replay command it gives."""


def _how_to_replay(recorded: dict[str, str], rule: str) -> str:
    """A saved case's `summary`: what loopspec found (conform, or replay --reduce cutting a case
    down) and the command that replays the case. A case is often sent alone, attached to a bug
    report, to someone who never saw the console that said `rerun:`; the file named the rule
    and the target, not the verb that reads it."""
    found = (
        "differ from the model where no rule covers the difference"
        if rule == NO_RULE
        else f"break {rule} (`loopspec spec {rule}` prints the rule)"
    )
    for option in ("cmd", "impl"):
        if option in recorded:
            named = f"--{option} {shlex.quote(recorded[option])}"
            words = put_back_words(recorded[option])
            back = f", {words}" if words else ""
            return (
                f"loopspec saw the loop it ran as {named} {found} on this program; "
                f"replay it with `loopspec replay {SUMMARY_CASE} {named}`, {SUMMARY_CASE} this "
                f"file and the --{option} naming your copy of the loop{back}"
            )
    return (
        f"loopspec saw its bundled implementation {found} on this program; replay it "
        f"with `loopspec replay {SUMMARY_CASE}`, {SUMMARY_CASE} this file"
    )


def case_document(report: RunReport, target: dict[str, str]) -> dict[str, Any]:
    """The replayable case file of a failed run; its `summary` says so when the divergence
    did not happen again on a rerun (`RunReport.unrepeated`): a replay of it may pass."""
    assert report.divergence is not None
    assert report.config is not None
    document = case_fields(
        target,
        rule=report.divergence.rule_id,
        what=report.divergence.what,
        config=report.config,
        commands=report.program,
        profile=report.profile.name if report.profile is not None else None,
        capabilities=report.capabilities,
    )
    if report.unrepeated:
        document["summary"] += (
            "; it did not diverge when loopspec ran the program again: the loop answered one "
            "program two ways, so a replay may pass (replay it a few times)"
        )
        document["unrepeated"] = True  # replay's verdict reads it, not the summary's words
    return document


KNOWN_DIVERGENCE_CASE = "the known divergence "
"""How a profile's case (tests/regressions/) names what it recorded, its `Case.rule`: a known
divergence's key, not a rule's ID."""


@attrs.frozen
class Case:
    """A replayable case: the target it was found on (shown, never run), the configuration,
    the commands."""

    target: dict[str, str]
    config: LoopConfig
    commands: list[Command]
    profile: Profile | None = None
    # What the run that saved it found (a rule, or a profile's known divergence and its rules):
    # shown by replay next to its verdict, never used to reach it.
    rule: str | None = None
    # What the target it was found on declared, when the case says (shown, never used).
    capabilities: frozenset[str] | None = None
    # The lines of the file the configuration's hooks and each command start on, named by a
    # refusal about them (a case is edited by hand); 1 for a case not read from a file.
    hooks_line: int = 1
    command_lines: tuple[int, ...] = ()
    # The loopspec that wrote it, when the case says: another one's rules may blame otherwise.
    written_by: str | None = None
    # False when the file has no `target` (written by hand): read as the bundled implementation,
    # as the case format says, but found on no loop, which replay must not claim.
    target_given: bool = True
    # True when the run that saved it saw its divergence once, not when it ran the program
    # again: a replay passing may be chance, which replay says.
    unrepeated: bool = False
    # The key of the known divergence a profile's case (tests/regressions/) recorded, where
    # `rule` shows it with its rules; None for a case recording a rule.
    known_divergence: str | None = None

    def line_of_command(self, index: int | None) -> int:
        """The line command `index` (0-based; None: the configuration's hooks) starts on."""
        if index is None:
            return self.hooks_line
        return self.command_lines[index] if index < len(self.command_lines) else 1


CASE_FILE_CAP = 16 * 1024 * 1024
"""Bytes a case file may hold (rule SAFE-4); the shrunk programs conform saves are kilobytes."""


# What a case file over the cap is likely to be: not one conform saved.
_TOO_LARGE = "; a case conform saves is a few kilobytes: is this the file you meant?"


def load_case(path: Path) -> Case:
    """A case file's recorded target, configuration, commands and profile.

    The recorded target is data to show, never to run (rule SAFE-1): `loopspec replay` runs the
    target its own command line names. An error names the file and, for a fault in a field,
    the line it is on (a case is edited by hand: a JSON path alone is hard to find).
    """
    try:
        data = read_user_file(path, cap=CASE_FILE_CAP, what="case file", too_large=_TOO_LARGE)
    except UserFileError as error:
        if error.unreadable:
            raise CaseFileUnreadable(str(error)) from error
        # A device, or a file over the cap: what SAFE-4 refuses unread.
        raise CaseFileFault(str(error), rule_id=error.rule_id) from error
    try:
        text = case_text(path, data)  # as it came back: a byte order mark, UTF-16, packed
    except NotCaseText as error:
        raise CaseFileFault(str(error)) from error
    try:
        document = parse_user_json(text)
    except json.JSONDecodeError as error:
        if error.msg == "Extra data" and _json_lines(text):
            raise CaseFileFault(
                f"{path}: one JSON value per line (JSON Lines, a session log?), not a case "
                "file; a session log is checked with `loopspec check`"
            ) from error
        raise CaseFileFault(case_json_fault(path, text, error)) from error
    except UserFileError as error:  # nested too deeply, a lone surrogate: SAFE-4's bounds
        said = refused_json(path, error, "case file")
        raise CaseFileFault(said, rule_id=error.rule_id) from error
    except RepeatedKey as error:
        # A parser keeps the last of two equal keys: the first (an edit pasted above the
        # original, a second "commands") would be dropped without a word.
        said = given_twice(shown(error.path, 80))
        raise CaseFileFault(f"{path}:{error.line}: {said}: keep one") from error
    except ValueError as error:  # NaN, an integer too long to read
        raise CaseFileFault(f"{path}{_value_fault(text, error)}") from error
    try:
        case = _case_from(document)
    except _CaseFault as fault:
        where = leading_path(fault.message)
        line = f":{line_of(text, where)}" if where is not None else ""
        another = _another_release(document, fault.message)
        # In another release's case, an unknown name is likely that release's own: a guess at
        # a misspelling ("did you mean SubmitUser?") beside the release note was two answers.
        fault_said = without_offer(fault.message) if another else fault.message
        said = f"{path}{line}: {fault_said}{another}"
        raise CaseFileFault(said, rule_id=fault.rule_id) from fault
    hooks_line, *command_lines = lines_of(
        text, [("config", "hooks"), *(("commands", i) for i in range(len(case.commands)))]
    )
    return attrs.evolve(case, hooks_line=hooks_line, command_lines=tuple(command_lines))


def _another_release(document: object, fault: str) -> str:
    """What a fault in a case written by another loopspec release adds: that release may write
    a member, field, command or value this one does not know (a newer one's command read here
    as a misspelling, "did you mean SubmitUser?"); "" for a case of this release, or a fault
    that names the releases already or is about the format's version, which says its own."""
    written_by = document.get("loopspecVersion") if isinstance(document, dict) else None
    if not isinstance(written_by, str) or written_by == loopspec.__version__:
        return ""
    if "written by" in fault or fault.startswith("$.version "):
        return ""
    return (
        f"; the case was written by loopspec {shown(written_by, 40)} and this is "
        f"{loopspec.__version__}: if the file is as that release wrote it, replay it with that "
        "release"
    )


def _json_lines(text: str) -> bool:
    """Whether `text` starts with two lines that are each one JSON value (a session log), the
    first no case (a case written on one line, pasted twice, is a case with more after it)."""
    lines = [line for line in text.splitlines() if line.strip()][:2]
    try:
        values = [json.loads(line) for line in lines]
    except ValueError:
        return False
    if len(values) < 2:
        return False
    return not (isinstance(values[0], dict) and values[0].get("loopspec") == "case")


# A value the JSON grammar has but a strict reader refuses: NaN and Infinity (not JSON), and an
# integer with more digits than Python converts (it would be exact, SPEC's numbers are).
_REFUSED_VALUE = r'"(?:[^"\\]|\\.)*"|(NaN|-?Infinity|-?\d{%d,})'  # % the fewest digits refused


def _value_fault(text: str, error: ValueError) -> str:
    """`:line: what` for a value the strict parser refused, the line and column of the first
    such value (no parser position comes with these errors)."""
    limit = sys.get_int_max_str_digits()
    for found in re.finditer(_REFUSED_VALUE % (limit + 1), text):
        value = found.group(1)
        if value is None:
            continue  # a string: skipped whole, so a NaN inside one is not taken for the value
        line, column = line_and_column(text, found.start())
        if value[-1].isdigit():
            digits = len(value.lstrip("-"))
            what = f"an integer of {digits} digits, more than the {limit} a case may hold"
        else:
            what = f"{value} is no JSON value"
        return f":{line}: the case file is not JSON: {what}: column {column}"
    return f": the case file is not JSON: {error}"


class _CaseFault(LoopSpecError):
    """What is wrong in a parsed case document, starting with the JSON path where it can; its
    rule as `CaseFileFault` says (none for the case format's own members)."""

    def __init__(self, message: str, *, rule_id: str = NO_RULE_BROKEN) -> None:
        super().__init__(message, rule_id=rule_id)


def _not_a_case(document: dict[str, Any]) -> str:
    """What else a shared file without the case marker may be, and what reads it: `loopspec
    run`'s inputs travel with hook bugs, and neither is a case (run writes none); a report
    conform or replay wrote with --format json is attached to a bug in the case's place, and
    a log's one line, or a schema, is sent for one."""
    if "loopspec" in document:
        return ""
    report = _a_report(document)
    if report:
        return report
    if isinstance(document.get("$schema"), str):
        return " (this is a JSON Schema, as `loopspec schema` prints one, not a case)"
    if isinstance(document.get("type"), str) and ("seq" in document or "sessionId" in document):
        return " (this is one line of a session log or transcript: `loopspec check` reads a log)"
    if document.get("type") == "session":
        return " (this is a session log's header line: `loopspec check` reads a log)"
    if "turns" in document:
        return (
            " (this is a scenario: `loopspec run SCENARIO --hooks SETTINGS` runs it, "
            "--harness claude-code or codex in that CLI)"
        )
    if "hooks" in document and "commands" not in document:
        return (
            " (this reads as a hooks settings file: `loopspec run SCENARIO --hooks SETTINGS` "
            "runs those hooks)"
        )
    return ""


def _a_report(document: dict[str, Any]) -> str:
    """What a `--format json` report named as a case says of itself, and where its case is:
    " (this is ...)", or "" for a document that is no such report."""
    form = document.get("format")
    divergence = document.get("divergence")
    saved = divergence.get("case") if isinstance(divergence, dict) else None
    if form == "loopspec-conform/1":
        if isinstance(saved, str):
            where = (
                f"the case it saved is {shown(saved, 120)}, named from the folder conform ran "
                "in: replay that file"
            )
        elif isinstance(divergence, dict):
            # `"case": null`: a divergence found, its case not saved (--no-save, or unwritable).
            rule = divergence.get("rule")
            broken = f" ({shown(rule, 40)})" if isinstance(rule, str) else ""
            where = f"it found a divergence{broken} but saved no case"
        else:
            where = "it found no divergence and saved no case"
        return f" (this is the report `loopspec conform --format json` writes: {where})"
    if form == "loopspec-replay/1":
        case = document.get("case")
        of = f" of {shown(case, 120)}" if isinstance(case, str) else ""
        return f" (this is the report `loopspec replay --format json` writes{of}: replay that file)"
    if form == "loopspec-replay-cases/1":
        return " (this is the report `loopspec replay --format json` writes of several cases)"
    if form == "loopspec-check/1":
        return " (this is the report `loopspec check --format json` writes of logs)"
    if isinstance(form, str) and form.startswith("loopspec-"):
        return f" (this is a {shown(form, 40)} report, which loopspec writes with --format json)"
    return ""


def _case_from(document: object) -> Case:
    """The case a parsed case document holds."""
    if not isinstance(document, dict):
        # `$ ...`: named at line 1, as the case's other faults are at theirs.
        said = given_instead(document).removeprefix(", ")
        raise _CaseFault(f"$ must be an object, {said}: a loopspec case file is one JSON object")
    if document.get("loopspec") != "case":
        found = json.dumps(document["loopspec"]) if "loopspec" in document else "missing"
        raise _CaseFault(
            f'$.loopspec is {shown(found, 40)}; a case file has "case" there{_not_a_case(document)}'
        )
    for key in document:
        if key not in CASE_MEMBERS:
            # A misspelt member would be ignored: "profle" replayed without its profile.
            hint = did_you_mean(key, CASE_MEMBERS)
            raise _CaseFault(
                f"$.{shown(key, 40)} is not a member of a case file{hint}; its members are "
                f"{', '.join(CASE_MEMBERS)}"
            )
    for key in TEXT_MEMBERS:
        if key in document and not isinstance(document[key], str):
            raise _CaseFault(f"$.{key} must be a string")
    for key in TEXT_LIST_MEMBERS:
        listed = document.get(key, [])
        if not (isinstance(listed, list) and all(isinstance(item, str) for item in listed)):
            raise _CaseFault(f"$.{key} must be a list of strings")
    for index, name in enumerate(document.get("capabilities", [])):
        if name not in CAPABILITIES:
            # Replay repeats them beside the target's own: a misspelt one would read as what
            # the colleague's loop declared.
            hint = did_you_mean(name, CAPABILITIES)
            raise _CaseFault(
                f"$.capabilities[{index}] is {shown(spelled(name), 42)}, which is no "
                f"capability{hint}; the capabilities are {', '.join(sorted(CAPABILITIES))}"
            )
    version = document.get("version")
    if version != CASE_VERSION or isinstance(version, bool):  # `true` equals 1 in Python
        # Another version's commands may mean something else: replaying them as this one's
        # would report a verdict on a program nobody wrote.
        found = "missing" if "version" not in document else json.dumps(version)
        written_by = document.get("loopspecVersion")
        by = f"loopspec {shown(written_by, 40)}" if isinstance(written_by, str) else "that version"
        if type(version) is not int:
            advice = f"the format version is a whole number, {CASE_VERSION} for this loopspec"
        elif written_by == loopspec.__version__:
            # This release writes only CASE_VERSION: a hand edit, and "replay it with loopspec
            # 0.1.0" told the colleague to install the release they were running.
            advice = (
                f"the case says this release, {by}, wrote it, and this release writes version "
                f"{CASE_VERSION}: the version was edited; set it back to {CASE_VERSION}"
            )
        elif version > CASE_VERSION:
            advice = f"it was written by a newer loopspec: replay it with {by}"
        else:
            # A colleague who received it cannot run conform on the loop it was found on: the
            # release that wrote it can replay it.
            older = by if isinstance(written_by, str) else "the loopspec that wrote it"
            advice = (
                f"it was written by an older loopspec: replay it with {older}, or run conform "
                "again with this one on the loop it was found on to record the program anew"
            )
        raise _CaseFault(
            f"$.version is {found}; this loopspec reads case files of version "
            f"{CASE_VERSION}: {advice}"
        )
    target = document.get("target", {})
    if not isinstance(target, dict) or not all(isinstance(value, str) for value in target.values()):
        raise _CaseFault("$.target must be an object of strings")
    for key in target:
        if key not in TARGET_KINDS:
            # Replay shows the recorded target: a misspelt key read as "recorded target: none".
            hint = did_you_mean(key, TARGET_KINDS)
            raise _CaseFault(
                f"$.target.{shown(key, 40)} is not a member of a target{hint}; a target is "
                '{"impl": MODULE:FACTORY} or {"cmd": COMMAND}'
            )
    if len(target) > 1:
        raise _CaseFault("$.target names both impl and cmd; a case is found on one target")
    if target == {"impl": BUNDLED_IMPL}:  # an earlier conform's record of the bundled one
        target = {}
    raw_commands = document.get("commands")
    if not isinstance(raw_commands, list) or not raw_commands:
        # Zero commands would replay as "no divergence": a pass for a case that holds nothing.
        raise _CaseFault("$.commands must be a non-empty list of commands")
    profile = document.get("profile")
    if profile is not None and profile not in PROFILES:
        raise _CaseFault(
            f"$.profile is {shown(spelled(profile), 42)}; known profiles: "
            f"{', '.join(sorted(PROFILES))}"
        )
    try:
        config = config_from_json(document.get("config"))
        commands = [command_from_json(c, f"$.commands[{i}]") for i, c in enumerate(raw_commands)]
    except LoopSpecError as error:  # PROTO-1 for a shape, the model's rule for a value
        raise _CaseFault(error.message, rule_id=error.rule_id) from error
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        raise _CaseFault(f"malformed case: {error}", rule_id="PROTO-1") from error
    rule = document.get("rule")
    writer: str | None = document.get("loopspecVersion")  # a string: checked above
    if rule is not None and rule != NO_RULE and rule not in all_rules():
        # Replay repeats the recorded rule beside its verdict: an unknown one would read as
        # what the case shows (a hand edit, or a case from a loopspec with other rules).
        other = writer is not None and writer != loopspec.__version__
        advice = (
            f"; the case was written by loopspec {shown(writer or '', 40)}: replay it with that "
            f"version (this is {loopspec.__version__})"
            if other
            else " (loopspec spec lists them by family)"
        )
        raise _CaseFault(
            f"$.rule is {spelled(rule)}, which is no rule of this loopspec's SPEC.md{advice}"
        )
    known, rules = document.get("divergence"), document.get("rules")
    named = profile_named(profile)
    if isinstance(known, str) and named is not None:
        try:
            named.divergence(known)
        except KeyError as error:
            raise _CaseFault(
                f"$.divergence is {spelled(known)}, which the {named.name} profile does not "
                "list (SPEC.md sections 8 and 11 list each profile's)"
            ) from error
    recorded_known = known if rule is None and isinstance(known, str) else None
    if recorded_known is not None:  # a profile's case (tests/regressions/)
        # A key that is its one rule's ID is said once: "RW-1 (RW-1)" read as two things.
        touched = rules if rules and rules != [known] else []
        rule = f"{KNOWN_DIVERGENCE_CASE}{known}" + (f" ({', '.join(touched)})" if touched else "")
    declared = document.get("capabilities")
    capabilities = frozenset(declared) if declared is not None else None
    unrepeated = document.get("unrepeated", False)
    if not isinstance(unrepeated, bool):
        raise _CaseFault(f"$.unrepeated must be true or false{given_instead(unrepeated)}")
    return Case(
        target,
        config,
        commands,
        named,
        rule,
        capabilities,
        written_by=writer,
        target_given="target" in document,
        unrepeated=unrepeated,
        known_divergence=recorded_known,
    )


@attrs.frozen
class Replay:
    """What replaying a case found: a divergence, a known divergence that stopped it, or neither."""

    divergence: Divergence | None
    known: frozenset[str] = frozenset()
    stopped_by: str | None = None
    stopped_at: int | None = None  # the command (0-based) where the known divergence showed
    capabilities: frozenset[str] = frozenset()  # what the replayed target declared
    # The commands (0-based) the model refused, with the rule: a hand-edited case whose
    # command is refused by both sides replays as "no divergence" and tests nothing there.
    refused: tuple[tuple[int, str], ...] = ()
    # What the model answered each command compared (both sides alike, but the last of a
    # divergence): a hand-written case asks a question, and this is its answer.
    answers: tuple[Observation, ...] = ()


def _outside_profile(
    what: str, needed: Sequence[str], profile: Profile, command_index: int | None
) -> OutsideProfile:
    """A case that uses a capability the profile's implementation does not declare: conform
    never sends that implementation such a command, so the profile says nothing about it, and
    comparing with its divergences erased would blame a right answer (the codex profile on an
    abort: EXE-4, where the model's result had the error the profile erased)."""
    lacking = ", ".join(profile.undeclared(needed))
    return OutsideProfile(
        f"{what} needs the capability {lacking}, which the {profile.name} profile's "
        f"implementation ({profile.implementation}) does not declare: the profile does not "
        "describe it, so the case cannot be replayed with it (replay with the profile of the "
        "implementation the case was recorded on, or --profile none to compare whole)",
        command_index=command_index,
    )


def _running_calls(oracle: ModelTarget) -> tuple[str, ...]:
    """The calls whose bodies the model runs now: two or more only a `parallel` loop runs."""
    phase = oracle.state.phase if oracle.state is not None else None
    if not isinstance(phase, Dispatching):
        return ()
    return tuple(slot.call_id for slot in phase.slots if slot.status == RUNNING)


def replay_case(
    factory: TargetFactory,
    config: LoopConfig,
    commands: list[Command],
    profile: Profile | None = None,
    *,
    count: CommandCounter | None = None,
) -> Replay:
    """Run a fixed program against target and model; the first divergence, if any. `count` is
    told of each command the model is sent, with the model's states around it and its
    observation (conform counts its targeted programs so)."""
    oracle, target = ModelTarget(), GuardedTarget(factory, TargetBreakage())
    checker = ProfileChecker(profile, config) if profile is not None else None
    try:
        oracle.reset(config)
        capabilities = target.reset(config)
        # A hook the loop cannot run diverges at the first call it matches, blamed on a rule
        # for a feature the loop lacks. (A maxParallel above 1 is not refused: a case runs
        # alike on a sequential loop until the model runs two bodies at once, refused below.)
        lacking_config = [c for c in hook_capabilities(config) if c not in capabilities]
        if lacking_config:
            raise UndeclaredCapability(
                f"the case's configuration (its hooks) needs the capability "
                f"{', '.join(lacking_config)}, which {target.name} does not declare, so the "
                "case cannot be replayed on it (conform configures a loop only with hooks it "
                "declares)",
                command_index=None,
            )
        if profile is not None and profile.undeclared(hook_capabilities(config)):
            needed = hook_capabilities(config)
            raise _outside_profile("the case's configuration", needed, profile, None)
        presenting = oracle.presenting = "presentation" in capabilities
        reporting_history = oracle.reporting_history = "history" in capabilities
        history: list[dict[str, Any]] = []
        refused: list[tuple[int, str]] = []
        answers: list[Observation] = []
        monitor = LogMonitor()
        for index, command in enumerate(commands):
            phase = oracle.state.phase.NAME if oracle.state is not None else "Idle"
            # A case found on a loop with more capabilities (a colleague's): conform would never
            # send this command here, and its divergence would blame a rule for a missing feature.
            needed = needed_capabilities(command, idle=phase == "Idle")
            lacking = [capability for capability in needed if capability not in capabilities]
            if lacking:
                raise UndeclaredCapability(
                    f"command #{index + 1} of the case ({command.NAME}) needs the capability "
                    f"{', '.join(lacking)}, which {target.name} does not declare, so the case "
                    "cannot be replayed on it (conform sends a loop only commands it declares)",
                    command_index=index,
                )
            if profile is not None and profile.undeclared(needed):
                raise _outside_profile(
                    f"command #{index + 1} of the case ({command.NAME})", needed, profile, index
                )
            before = oracle.state
            expected = oracle.apply(command)
            if count is not None and before is not None:
                count(command, before, oracle.state, expected)
            overlapping = () if "parallel" in capabilities else _running_calls(oracle)
            if len(overlapping) > 1:
                raise UndeclaredCapability(
                    f"command #{index + 1} of the case ({command.NAME}) needs the capability "
                    f"parallel, which {target.name} does not declare, so the case cannot be "
                    f"replayed on it (the model runs calls {', '.join(overlapping)} at once "
                    f"under the case's maxParallel {config.max_parallel}; conform configures "
                    "a loop without parallel with maxParallel 1)",
                    command_index=index,
                )
            actual = target.apply(command)
            if not expected.accepted:
                refused.append((index, expected.refusal_rule or NO_RULE))
            if not presenting:  # what a target does not declare is not compared
                actual = attrs.evolve(actual, presented=None)
            if not reporting_history:
                actual = attrs.evolve(actual, history=None)
            violations = log_violations(monitor, actual.events, expected.events)
            if checker is not None:
                after = oracle.state.phase.NAME if oracle.state is not None else "Idle"
                found = checker.feed(
                    command,
                    phase_before=phase,
                    phase_after=after,
                    expected=expected,
                    actual=actual,
                    violations=violations,
                )
                if found is not None:
                    return Replay(found, capabilities=capabilities, refused=tuple(refused))
                if checker.stop is not None:
                    break
                continue
            history.extend(expected.events)
            answers.append(expected)
            if (
                normalized(expected) != normalized(actual)
                or not refused_alike(expected, actual)
                or split_units(expected, actual)
                or violations
            ):
                rule_id, what = classify(
                    command,
                    phase,
                    expected,
                    actual,
                    target_violations=violations,
                    history=tuple(history),
                    crashed=any(isinstance(c, Crash) for c in commands[: index + 1]),
                    probe=target.probe,
                    config=config,
                    program=commands[: index + 1],
                )
                divergence = Divergence(index, command, rule_id, what, expected, actual)
                return Replay(divergence, capabilities=capabilities, refused=tuple(refused))
    finally:
        target.close()
    if checker is None:
        return Replay(None, capabilities=capabilities, refused=tuple(refused), answers=(*answers,))
    stop = checker.stop
    unsent = checker.unsent_history() if stop is None else None
    if unsent is not None:
        return Replay(unsent, capabilities=capabilities, refused=tuple(refused))
    if stop is None:
        return Replay(None, checker.shown(), capabilities=capabilities, refused=tuple(refused))
    return Replay(None, checker.shown(), stop.key, stop.index, capabilities, tuple(refused))
