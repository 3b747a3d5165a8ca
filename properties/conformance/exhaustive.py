"""Bounded-exhaustive conformance: every command program up to K commands over a small alphabet.

Random programs find most bugs fast; they guarantee nothing. `run_exhaustive(target, k)` runs
*every* program of at most `k` commands over the alphabet below against the model and reports how
many there were, so a clean run states a guarantee: every program of at most k commands over this
alphabet agrees with the model (what TLC gives for a specification, given for an implementation).

The alphabet (SPEC section "Bounded-exhaustive conformance"), chosen per state from the model's
phase, so that every program is meaningful:

- idle: the user submits "go";
- awaiting the model: a reply with text only; with one `read` call; with a `read` and a `bash`
  call (parallel-safe, then exclusive); with two `read` calls (both parallel-safe: they run at
  once, and settle in either order); the request fails (OVERLOADED);
- rewriting (two PreToolUse hooks, `guard` then `late`, match `bash`): pass; allow with a
  rewrite to `{"command":"ls"}`; ask with a rewrite to `{"command":"ls -la"}`; deny;
- dispatching: every approval outcome while one is asked; for each running call, in any order
  (all completion orders), success "ok" deferring the context "ctx", or failure "boom"; a
  `read`'s outcome is judged by the PostToolUse hook `audit`: the success passed, given the
  context "note" or blocked ("withheld"), the failure passed (`finishes`);
- any phase but idle and crashed: abort, crash; crashed: recover. The abort's cause cycles
  with the log's length (`abort_on`), so the programs send every cause (ABORT-3) without
  multiplying them; one sent while an earlier abort drains takes another cause than that one's.

Symmetry reduction: call ids are assigned in order (`c1`, `c2`, ...) and texts are fixed, so
programs that differ only by renaming ids or texts are one program. Each program is run from a
fresh session and, after its last command, driven to a quiet end with the settling commands of
profiled runs, so what is still running or queued is compared too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import assert_never

import attrs

from loopspec.model.commands import (
    APPROVAL_OUTCOMES,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, HookSpec, LoopConfig, ToolSpec
from loopspec.model.errors import TransitionRefused
from loopspec.model.events import ToolCallRecorded
from loopspec.model.invariants import LogMonitor
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.state import (
    ASKING,
    RUNNING,
    AwaitingModel,
    Crashed,
    Dispatching,
    Idle,
    LoopState,
    Rewriting,
)
from loopspec.model.transitions import step
from loopspec.properties.conformance.blame.classify import classify
from loopspec.properties.conformance.blame.own_log import log_violations
from loopspec.properties.conformance.blame.probes import probe_for
from loopspec.properties.conformance.compare import (
    Divergence,
    DivergenceFound,
    same_normalized,
    split_units,
)
from loopspec.properties.conformance.profile_check import settling_command
from loopspec.properties.conformance.target import (
    ConformanceTarget,
    ModelTarget,
    Observation,
    refused_alike,
)
from loopspec.properties.stateful.strategies import abort_on

EXHAUSTIVE_CONFIG = LoopConfig(
    tools=(
        ToolSpec("read", concurrency_safe=True, required_keys=("file_path",)),
        ToolSpec("bash", concurrency_safe=False, required_keys=("command",)),
    ),
    hooks=(
        HookSpec("guard", "PreToolUse", "bash"),
        HookSpec("late", "PreToolUse", "bash"),
        HookSpec("audit", "PostToolUse", "read"),
    ),
    max_parallel=2,
)
SETTLE_LIMIT = 32
READ_ARGUMENTS = '{"file_path":"a.txt"}'
BASH_ARGUMENTS = '{"command":"rm -rf build"}'


def alphabet(state: LoopState) -> list[Command]:
    """The commands a program may take next in `state` (see the module docstring)."""
    phase = state.phase
    commands: list[Command] = []
    match phase:
        case Idle():
            return [SubmitUser("go")]
        case Crashed():
            return [Recover()]
        case AwaitingModel():
            first = 1 + sum(isinstance(event, ToolCallRecorded) for event in state.log)
            read = ToolCallBlock(f"c{first}", "read", READ_ARGUMENTS)
            bash = ToolCallBlock(f"c{first + 1}", "bash", BASH_ARGUMENTS)
            other_read = ToolCallBlock(f"c{first + 1}", "read", READ_ARGUMENTS)
            commands += [
                ModelReplies((TextBlock("done"),)),
                ModelReplies((read,)),
                ModelReplies((read, bash)),
                ModelReplies((read, other_read)),
                ModelFails("overloaded", "OVERLOADED"),
            ]
        case Rewriting():
            commands += [
                HookAnswers(Pass()),
                HookAnswers(Allow(updated_input=FrozenMap({"command": "ls"}))),
                HookAnswers(Ask(updated_input=FrozenMap({"command": "ls -la"}))),
                HookAnswers(Deny(reason="no")),
                HookAnswers(Deny(reason="")),
            ]
        case Dispatching():
            if any(slot.status == ASKING for slot in phase.slots):
                commands += [ApprovalAnswers(outcome) for outcome in sorted(APPROVAL_OUTCOMES)]
            for slot in phase.slots:
                if slot.status == RUNNING:
                    commands += finishes(slot.call_id, slot.name, state.config)
        case _:
            assert_never(phase)
    landing = phase.aborting if isinstance(phase, Dispatching) else None
    return [*commands, abort_on(len(state.log), landing), Crash()]


def finishes(call_id: str, name: str, config: LoopConfig) -> list[Command]:
    """A running call's outcomes: success deferring a context, or failure; where a PostToolUse
    hook judges it (a `read`), the success passed, given a context or blocked, the failure
    passed."""
    success = ToolSucceeded("ok", contexts=("ctx",))
    failure = ToolFailed("boom")
    if not config.hooks_for(POST_TOOL_USE, name):
        return [ToolFinishes(call_id, success), ToolFinishes(call_id, failure)]
    return [
        ToolFinishes(call_id, success, (PostPass(),)),
        ToolFinishes(call_id, success, (PostContext("note"),)),
        ToolFinishes(call_id, success, (PostBlock("withheld"),)),
        ToolFinishes(call_id, failure, (PostPass(),)),
    ]


def programs(k: int, config: LoopConfig = EXHAUSTIVE_CONFIG) -> Iterator[tuple[Command, ...]]:
    """Every maximal program of at most `k` commands: each is a prefix of none of the others.

    A program the model refuses a command of ends there (the refusal is compared, and nothing
    follows from a refused command that the next program does not try).
    """

    def extend(state: LoopState, program: tuple[Command, ...]) -> Iterator[tuple[Command, ...]]:
        if len(program) == k:
            yield program
            return
        for command in alphabet(state):
            try:
                after = step(state, command)
            except TransitionRefused:
                yield (*program, command)
                continue
            yield from extend(after, (*program, command))

    yield from extend(LoopState(config), ())


@attrs.frozen
class ExhaustiveReport:
    """How many programs ran, how many programs of at most k commands they cover, and the first
    divergence (with its program), if any."""

    k: int
    runs: int
    programs: int
    commands: int
    divergence: Divergence | None = None
    # The commands sent up to the diverging one: the program's, then its settling tail's (a
    # case of the program alone replayed as "no divergence" when the tail diverged).
    program: tuple[Command, ...] = ()
    out_of_time: bool = False
    """The deadline ended the pass before its last program: no guarantee."""

    @property
    def guarantee(self) -> str:
        """What a clean run establishes, in one sentence."""
        return (
            f"every program of at most {self.k} commands over the exhaustive alphabet "
            f"({self.programs} programs) agrees with the model"
        )


# Made afresh for each program: told of each command sent, the model's state before and after
# it and the model's observation (conform counts the pass's coverage so, `machine.CountCommand`).
CommandCounter = Callable[[Command, LoopState, LoopState | None, Observation], None]


def run_exhaustive(
    target: ConformanceTarget,
    k: int,
    config: LoopConfig = EXHAUSTIVE_CONFIG,
    *,
    progress: Callable[[int], None] | None = None,
    deadline: float | None = None,
    counter: Callable[[], CommandCounter] | None = None,
) -> ExhaustiveReport:
    """Run every maximal program of at most `k` commands on `target`; stop at a divergence, or
    before a program once `time.monotonic()` has passed `deadline` (conform's --max-seconds,
    which the pass ignored: K = 6 on the bundled loop ran 35 s of a 2 s budget). `counter`
    makes what each program's commands are counted with."""
    import time  # noqa: PLC0415 (only for a run with a budget)

    runs = commands = 0
    prefixes: set[tuple[Command, ...]] = set()
    for program in programs(k, config):
        if deadline is not None and time.monotonic() >= deadline:
            return ExhaustiveReport(k, runs, len(prefixes), commands, out_of_time=True)
        runs += 1
        prefixes.update(program[:length] for length in range(1, len(program) + 1))
        count = None if counter is None else counter()
        divergence, sent = run_program(target, config, program, count=count)
        commands += len(sent)
        if progress is not None:
            progress(runs)
        if divergence is not None:
            return ExhaustiveReport(k, runs, len(prefixes), commands, divergence, sent)
    return ExhaustiveReport(k, runs, len(prefixes), commands)


def run_program(
    target: ConformanceTarget,
    config: LoopConfig,
    program: tuple[Command, ...],
    *,
    observe: Callable[[Observation], None] | None = None,
    count: CommandCounter | None = None,
) -> tuple[Divergence | None, tuple[Command, ...]]:
    """Run `program` and its settling tail on a fresh session of `target` and of the model;
    the divergence, if any, and the commands sent (up to the diverging one). `observe` is
    given the model's observation of each command sent, `count` that and the model's states
    around it."""
    oracle = ModelTarget()
    oracle.reset(config)
    declared = target.reset(config)
    presenting = oracle.presenting = "presentation" in declared
    reporting_history = oracle.reporting_history = "history" in declared
    monitor = LogMonitor()
    history: list[dict[str, object]] = []
    sent: list[Command] = []
    tail: list[Command] = []
    queue = list(program)
    while queue or len(tail) < SETTLE_LIMIT:
        if queue:
            command = queue.pop(0)
        else:
            assert oracle.state is not None
            settle = settling_command(oracle.state.phase, config)
            if settle is None:
                break
            command = settle
            tail.append(command)
        before = oracle.state
        assert before is not None
        phase = before.phase.NAME
        expected = oracle.apply(command)
        if observe is not None:
            observe(expected)
        if count is not None:
            count(command, before, oracle.state, expected)
        actual = target.apply(command)
        if not presenting:  # what a target does not declare is not compared
            actual = attrs.evolve(actual, presented=None)
        if not reporting_history:
            actual = attrs.evolve(actual, history=None)
        sent.append(command)
        violations = log_violations(monitor, actual.events, expected.events)
        history.extend(expected.events)
        if (
            not same_normalized(expected, actual)
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
                crashed=any(isinstance(c, Crash) for c in sent),
                config=config,
                program=tuple(sent),
                # One command more where only the target's next move tells two bugs apart:
                # the program ends here, and the next one resets the target.
                probe=probe_for(target),
            )
            divergence = Divergence(len(sent) - 1, command, rule_id, what, expected, actual)
            return divergence, tuple(sent)
    return None, tuple(sent)


def play_each(
    make_target: Callable[[], ConformanceTarget],
    programs: Iterable[tuple[LoopConfig, tuple[Command, ...]]],
    observe: Callable[[Observation], None] | None = None,
    played: Callable[[tuple[Command, ...]], None] | None = None,
    counter: Callable[[], CommandCounter] | None = None,
) -> None:
    """Play each (config, program) on one target, a fresh session each, `played` told of each
    run the commands it sent (the program and its settling tail, up to a divergence), each
    program's commands counted with what `counter` makes; raises `DivergenceFound` for the
    first that diverges. The targeted sweeps around a random search play their programs this
    way."""
    target = make_target()
    try:
        for config, program in programs:
            count = None if counter is None else counter()
            divergence, sent = run_program(target, config, program, observe=observe, count=count)
            if played is not None:
                played(sent)
            if divergence is not None:
                raise DivergenceFound(divergence, config, sent)
    finally:
        target.close()
