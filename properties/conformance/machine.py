"""Conformance: drive any target and the model with the same commands; the first difference wins.

`ConformanceMachine` is a Hypothesis `RuleBasedStateMachine`, one class for every run (a
`ConformanceRun` holds what a run's programs share), that generates command programs from the
*model's* state (so programs stay meaningful), sends every command to the model and to the
target, and compares their observations after each one. Commands that need a
capability the target does not declare are never generated, and their rules are reported as
not applicable. A difference raises `DivergenceFound`, which carries the command program so far,
the first diverging observation and the rule it breaks; Hypothesis then shrinks the program.

Comparison (`loopspec.properties.conformance.compare`) ignores `time` and message ids
(implementations may use clocks
and UUIDs). With a `Profile`, a real harness's known divergences are erased and the runs are
compared whole at quiet points instead (`loopspec.properties.conformance.profile_check`); every
program is then
settled to a quiet end, and the known divergences each program showed are counted.
"""

from __future__ import annotations

import functools
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any, Literal, TypeVar, assert_never

import attrs
from hypothesis import note
from hypothesis import strategies as st
from hypothesis.control import current_build_context, currently_in_test_context, should_note
from hypothesis.internal.conjecture.data import Status
from hypothesis.internal.observability import observability_enabled
from hypothesis.stateful import RuleBasedStateMachine, rule

from loopspec.model.commands import (
    APPROVAL_OUTCOMES,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    HookAnswers,
    ModelReplies,
    PreVerdict,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, PRE_TOOL_USE, LoopConfig
from loopspec.model.events import TurnEnded
from loopspec.model.invariants import LogMonitor
from loopspec.model.messages import ToolCallBlock
from loopspec.model.state import (
    ASKING,
    RUNNING,
    AwaitingModel,
    Crashed,
    Dispatching,
    Idle,
    LoopState,
    Phase,
    Rewriting,
)
from loopspec.model.transitions import transition_for
from loopspec.properties.conformance.blame.classify import classify
from loopspec.properties.conformance.blame.history import hook_audit_rule
from loopspec.properties.conformance.blame.own_log import log_violations
from loopspec.properties.conformance.blame.probes import probe_for
from loopspec.properties.conformance.capability_needs import hook_capabilities, needed_capabilities
from loopspec.properties.conformance.compare import (
    Divergence,
    DivergenceFound,
    same_normalized,
    split_units,
)
from loopspec.properties.conformance.profile_check import ProfileChecker, settling_command
from loopspec.properties.conformance.reduce import weight
from loopspec.properties.conformance.situations import SITUATION_HITS, Situations
from loopspec.properties.conformance.target import (
    ConformanceTarget,
    ModelTarget,
    Observation,
    refused_alike,
)
from loopspec.properties.profiles.known import Profile
from loopspec.properties.stateful import strategies as gen
from loopspec.properties.stateful import swarm as swarming

TargetFactory = Callable[[], ConformanceTarget]

# What the comparison of a card checks (capability "presentation"; not applicable without it).
_CARD_RULES = ("VIEW-2", "VIEW-3", "VIEW-4", "ACP-1")
_RESULT_RULES = (
    *("LOG-1", "LOG-2", "LOG-6", "ORD-2", "ORD-3", "ADJ-2", "STEP-3", "DEC-1", "HOOK-6"),
    "TEXT-2",
)
# Which rules the comparison of an appended event of each type checks (beyond the transition's
# own rules). Every event the target reports is read through the event classes (LOG-4). A rule
# whose situation an event creates (`situations`) is among them; a test holds the two together.
RULES_BY_EVENT: dict[str, tuple[str, ...]] = {
    "turn/start": ("LOG-1", "LOG-4", "TURN-1", "TURN-3"),
    "turn/end": ("LOG-1", "LOG-4", "TURN-2", "TURN-5", "ADJ-3", "ABORT-3"),
    "step/start": ("LOG-1", "LOG-4", "STEP-1", "TURN-3"),
    "step/end": ("LOG-1", "LOG-4", "STEP-2"),
    "user/message": ("LOG-1", "LOG-2", "LOG-4", "LOG-6", "ADJ-1", "HIST-1", "TEXT-2"),
    "assistant/message": (
        *("LOG-1", "LOG-2", "LOG-4", "LOG-6", "ORD-1", "EXE-1", "STEP-3", "HIST-1", "TEXT-2"),
    ),
    "tool/call": (
        *("LOG-1", "LOG-4", "ORD-1", "ORD-2", "RW-1", "EXE-2", "EXE-3", "STEP-3"),
        *_CARD_RULES,
    ),
    "tool/result": (*_RESULT_RULES, "LOG-4", *_CARD_RULES, "ACP-2"),
    "hook/invoked": ("LOG-1", "LOG-4", "HOOK-1", "HOOK-8", "TURN-3"),
    "hook/result": ("LOG-1", "LOG-4", "HOOK-1"),
    "approval/asked": ("LOG-1", "LOG-4", "DEC-2", "SCHED-2", "RW-4", "ACP-1", "ACP-3"),
    "approval/decided": ("LOG-1", "LOG-4", "DEC-2", "SCHED-2"),
}

# (phase, command, outcome) -> hits, over every conformance run in this process.
TRANSITION_HITS: Counter[tuple[str, str, str]] = Counter()
RULE_HITS: Counter[str] = Counter()
# "complete" / "abandoned" -> programs, until the first divergence (not the shrinking after it).
PROGRAM_ENDS: Counter[str] = Counter()
# Known divergence key -> programs that showed it (profiled runs only).
KNOWN_HITS: Counter[str] = Counter()
# Commands a settling tail may add to a program at most (a quiet end is a few commands away).
SETTLE_LIMIT = 64
# Draws of a reply a profile avoids at most; the last is sent whatever it holds.
AVOID_TRIES = 8
# A model request fails in one of twelve; in one of four while input is queued (typed while it
# was awaited), since the failure must keep that input for the next turn (ADJ-4): at one in
# twelve, 5 programs of 900 had such a failure.
FAILS_ONE_IN = 12
FAILS_QUEUED_ONE_IN = 4


def prompt_texts(profile: Profile | None) -> st.SearchStrategy[str]:
    """What the user types: every text of the generator, less those the profile's target is
    known to refuse at once (`Profile.avoids`; a blank prompt on Claude Code, TURN-1), which
    would end the program at that command. Without such a profile, the generator's own.
    (A prompt is judged under the first configuration: what a CLI refuses of a prompt is its
    text alone.) The user types what `swarm.exacting_text` makes of the text drawn."""
    if profile is None:
        return gen.texts
    refused = {
        t
        for t in gen.TEXTS
        if profile.avoids(SubmitUser(swarming.exacting_text(t)), gen.CONFIGS[0])
    }
    if not refused:
        return gen.texts
    return gen.texts.filter(lambda text: text not in refused)


@attrs.define(eq=False)
class ConformanceRun:
    """What the programs of one run share: the target factory, the profile, the rule of the
    first divergence found (see `ConformanceMachine.diverged`; the caller may watch it), and what
    the target declares for the probe configuration, asked once per run: a reset costs a process
    target (a real loop booting) as much as a short program, and every program would otherwise
    pay it twice. The program's own reset still reports what it runs with."""

    factory: TargetFactory
    profile: Profile | None = None
    pinned: dict[str, str] = attrs.field(factory=dict)
    prompts: st.SearchStrategy[str] = attrs.field(init=False)
    probed: frozenset[str] | None = attrs.field(init=False, default=None)
    # When a list: the smallest program (`reduce.weight`) of those that raised the run's
    # divergence. Hypothesis holds its shrunk program until it has done, and a run whose time
    # ends while it shrinks reports this one instead.
    smallest: list[DivergenceFound] | None = None

    def __attrs_post_init__(self) -> None:
        self.prompts = prompt_texts(self.profile)

    def keep_if_smallest(self, found: DivergenceFound) -> None:
        """Keep `found` in `smallest` (when kept) if no smaller program raised the divergence."""
        if self.smallest is None:
            return
        kept = self.smallest
        if not kept or weight(found.config, found.program) < weight(
            kept[0].config, kept[0].program
        ):
            kept[:] = [found]


class ConformanceMachine(RuleBasedStateMachine):
    """Random command programs; the model is the oracle. One class for every run: what a run's
    programs share is its `ConformanceRun`, handed to each program's machine (Hypothesis keeps
    every machine class it has run for good, with what the class holds)."""

    def __init__(self, run: ConformanceRun) -> None:
        super().__init__()
        self.run = run
        self.profile = run.profile
        self.oracle = ModelTarget()
        self.target = run.factory()
        self.capabilities = frozenset[str]()
        self.program: list[Command] = []
        self.config = gen.CONFIGS[0]
        self.next_call = 1
        self.monitor = LogMonitor()
        self.situations = Situations()
        self.history: list[dict[str, Any]] = []
        self.checker = self._checker()
        self.failed = False
        self.swarm = swarming.Swarm(*(False for _ in attrs.fields(swarming.Swarm)))
        self.raised = False  # this program raised the run's first divergence
        self.ended = False  # the program sends no more commands (see `step`)
        self.aimed_batches: swarming.Aimed = set()  # see `swarming.first_aim`
        self.configured = False  # `configure` ran (see `configure`)
        self._noting: bool | None = None  # see `noting`
        if currently_in_test_context():  # Hypothesis is running a program: draw now
            try:
                self.configure(self.data)
            except BaseException:
                # Hypothesis tears down only a machine it has been handed.
                self.target.close()
                raise

    @property
    def phase(self) -> Phase:
        assert self.oracle.state is not None
        return self.oracle.state.phase

    def has(self, capability: str) -> bool:
        return capability in self.capabilities

    def noting(self) -> bool:
        """`_noted()`, asked once per program: whether Hypothesis keeps notes does not
        change while it runs one (its final run, its verbosity, observability)."""
        if self._noting is None:
            self._noting = _noted()
        return self._noting

    def configure(self, data: st.DataObject) -> None:
        """Reset both with a configuration the target can run: when Hypothesis makes the
        machine, so the configuration and the swarm are a program's first choices (a
        machine made outside a test run configures at its first step).

        First, because Hypothesis's first examples run each new random prefix with every
        later choice the simplest, and count each as an example: when its own switch-off
        draw for rules (one rule here, so it decides nothing) came first, that prefix was
        that draw alone, and half the early examples were the first configuration's
        simplest program again. Not an `initialize` rule: Hypothesis builds and validates a
        fresh strategy for a machine's initialize rules in every program, which cost more
        than the configuring.
        """
        self.configured = True
        if self.run.probed is None:
            self.run.probed = self.target.reset(gen.CONFIGS[0])
        probe = self.run.probed
        configs = [c for c in swarming.CONFIGS if _fits(c, probe)] or [
            _reduced(gen.CONFIGS[0], probe)
        ]
        self.config = _draw(data, _one_of_these(tuple(configs)))
        if _cut_at_keyless_call(self.profile, self.config):
            # Its calls would be drawn again (real dsh refuses their blank arguments): without
            # the tool, the programs are those drawn before it came.
            self.config = swarming.without_keyless_tool(self.config)
        # Blank arguments add a call to every batch, which a target the profile is cut at
        # would end each program at (a reply drawn again has one too): off for it, and not
        # drawn, so its programs are those drawn before the feature came.
        cut = _cut_at_blank_arguments(self.profile, self.config)
        without = {"blank_arguments"} if cut else set()
        if self.profile is not None:  # no real CLI can be put in them (see FEATURE_ODDS)
            without |= {"timed_out_hooks", "null_keys"}
        self.swarm = swarming.swarms(_chooser(data), without=frozenset(without))
        self.checker = self._checker()
        self.capabilities = self.target.reset(self.config)
        self.oracle.reset(self.config)
        self.oracle.presenting = self.has("presentation")
        self.oracle.reporting_history = self.has("history")
        if self.noting():
            note(f"target {self.target.name} declares {sorted(self.capabilities)}")

    def _checker(self) -> ProfileChecker | None:
        """What compares the runs under the profile, for the configuration drawn."""
        return ProfileChecker(self.profile, self.config) if self.profile is not None else None

    @property
    def stopped(self) -> bool:
        """A hard known divergence showed: the runs went different ways; stop comparing."""
        return self.checker is not None and self.checker.stop is not None

    def apply(self, command: Command) -> None:
        """Send one command to both; compare."""
        assert self.oracle.state is not None
        if self.stopped:
            return
        if self.failed:
            return
        before = self.oracle.state
        phase = before.phase.NAME
        self.program.append(command)
        if self.noting():
            note(f"#{len(self.program)} {command!r}")
        expected = self.oracle.apply(command)
        actual = self.target.apply(command)
        if not self.has("presentation"):  # what a target does not declare is not compared
            actual = attrs.evolve(actual, presented=None)
        if not self.has("history"):
            actual = attrs.evolve(actual, history=None)
        situations = self.situations.feed(command, before, self.oracle.state, expected)
        if not self.run.pinned:  # coverage counts the programs run, not the shrinking after them
            _count_coverage(phase, command, expected, situations)
        violations = log_violations(self.monitor, actual.events, expected.events)
        self.history.extend(expected.events)
        for event in expected.events:
            if str(event.get("type")) == "tool/call":
                self.next_call = max(self.next_call, int(str(event["data"]["callId"])[1:] or 0) + 1)
        if self.checker is not None:
            found = self.checker.feed(
                command,
                phase_before=phase,
                phase_after=self.oracle.state.phase.NAME,
                expected=expected,
                actual=actual,
                violations=violations,
            )
            if found is not None:
                self.diverged(found)
            return
        split = split_units(expected, actual)
        if (
            same_normalized(expected, actual)
            and refused_alike(expected, actual)
            and not split
            and not violations
        ):
            return
        rule_id, what = classify(
            command,
            phase,
            expected,
            actual,
            target_violations=violations,
            history=tuple(self.history),
            crashed=any(isinstance(c, Crash) for c in self.program),
            probe=probe_for(self.target),
            config=self.config,
            program=tuple(self.program),
        )
        self.diverged(Divergence(len(self.program) - 1, command, rule_id, what, expected, actual))

    def diverged(self, divergence: Divergence) -> None:
        """Stop comparing this program; report the divergence unless it blames another rule.

        The first divergence of a run pins its rule: while Hypothesis shrinks, a program
        that diverges for another rule counts as passing, so the shrunk program shows the
        same broken rule as the one first found. (The pin never moves: a program's outcome
        must not change between Hypothesis's runs of it.)
        """
        self.failed = True
        first = not self.run.pinned
        if self.run.pinned.setdefault("rule", divergence.rule_id) != divergence.rule_id:
            return
        self.raised = first
        found = DivergenceFound(divergence, self.config, tuple(self.program))
        self.run.keep_if_smallest(found)
        raise found

    @functools.cached_property
    def data(self) -> st.DataObject:
        """The program's data, the one object `st.data()` would hand each step. Not drawn as
        the step's argument: that draw, a strategy's draw and a span in every step, cost
        more than choosing the command, and every span is one more for Hypothesis to group
        and copy when it mutates a program."""
        return st.DataObject(current_build_context().data)

    @rule()
    def step(self) -> None:
        """Send one of the commands the model's phase allows, drawn from those alone.

        One rule that works out the phase's possible commands once, instead of a rule per
        command kind, each with a precondition: Hypothesis chose among those by drawing
        rules and rejecting the ones whose precondition failed, and switched rules off per
        program (its own swarm over rules), so a program whose only possible command was
        switched off in some phase (the user's turn in Idle) was abandoned there: most
        programs ended after their first turn, and were drawn again. The features a
        program leans on are drawn by `swarming.Swarm` instead. The first possible
        command is the one that moves the program on, which shrinking prefers.
        """
        data = self.data
        if not self.configured:
            self.configure(data)
        if self.ended:
            return
        choose = _chooser(data)
        choices = _possible(self.phase)
        aim: str | None = None
        if swarming.denied_call_passed_busy_slots(self.phase, self.config.max_parallel):
            # Where an abort tells a denied call that waited for a slot from one that passed
            # the gate (DEC-1): one step of three disrupted, an abort among the disruptions,
            # brought it in 2 programs of 600; three of five, the disruptions last, in 4 of
            # 200 (Hypothesis draws the least index more often): now first.
            choices = ("disrupt", "disrupt", *choices)
        elif (aim := swarming.first_aim(self.swarm, self.phase, self.aimed_batches)) is not None:
            # A disruption aimed at a running batch, each kind once per batch: first, so the
            # simplest continuation of a program sends it (see `swarming.first_aim`).
            choices = ("disrupt", *choices)
            assert isinstance(self.phase, Dispatching)
            self.aimed_batches.add((*swarming.batch_key(self.phase), aim))
        elif self.swarm.aborts and swarming.approval_pending(self.phase):
            # An abort while a call waits for approval (see `disrupt`): three steps of five
            # disrupted there, not one of three.
            choices = (*choices, "disrupt", "disrupt")
        elif swarming.batch_aims(self.swarm, self.phase, self.aimed_batches):
            # A disruption aimed at the running batch: two steps of four disrupted there.
            choices = (*choices, "disrupt")
        kind = swarming.pick(choose, choices)
        moving = next((choice for choice in choices if choice != "disrupt"), None)
        if kind == "disrupt" and not self.disrupt(choose, data, aim) and moving is not None:
            # No disruption after all (none drawn, or none the target can take): the
            # program moves on in this step rather than spend one of Hypothesis's steps
            # (its stop and rule draws, a tenth of the steps) on sending nothing.
            kind = moving
        self.send(kind, choose, data)

    def send(self, kind: StepKind, choose: swarming.Choose, data: st.DataObject) -> None:
        """Send a command of `kind` (a disruption is sent by `disrupt`)."""
        match kind:
            case "submit_user":
                # After each turn a third of the programs end, and the simplest choice
                # ends it: a failing program's later turns are one choice away from gone,
                # which shrinking finds (deleting a whole turn's choices in the middle of
                # a program is beyond it), and programs stay a few turns long.
                if self.program and choose(3) == self.ending_choice():
                    self.end(data)
                    return
                self.submit_user(swarming.exacting_text(_draw(data, self.run.prompts)))
            case "model_replies":
                self.model_replies(choose)
            case "hook_answers":
                self.hook_answers(choose)
            case "tool_finishes":
                self.tool_finishes(choose)
            case "approval_answers":
                self.approval_answers(swarming.pick(choose, APPROVAL_ANSWERS))
            case "disrupt":
                pass  # `step` sent it, if the target could take it
            case "recover":
                self.recover()
            case kind:
                assert_never(kind)

    def ending_choice(self) -> int:
        """The choice that ends the program between turns: the simplest (0), but after a turn
        that ended aborted, where the simplest types one more prompt: what an abort left
        behind (a context its batch queued or a body gave after it, an answer it owed) shows
        in the turn after it. Ended there, a loop delivering an aborted success's context in
        the next turn needed a median of 46 programs (batches 0-19). Only after the program's
        first aborted turn: with early aborts in the simplest program (`swarm.FEATURE_ODDS`),
        its every turn ended aborted and typed the next, up to the step count. So too after the
        session was reopened: a loop that a reopen repairing nothing left crashed refuses that
        prompt (REC-2)."""
        assert self.oracle.state is not None
        if self.program and isinstance(self.program[-1], Recover):
            return 2
        log = self.oracle.state.log
        last = log[-1] if log else None
        if not (isinstance(last, TurnEnded) and _aborted(last)):
            return 0
        first = sum(isinstance(event, TurnEnded) and _aborted(event) for event in log) == 1
        return 2 if first else 0

    def end(self, data: st.DataObject) -> None:
        """End the program here: settle and compare its tail, then stop Hypothesis's run of
        it, which would otherwise go on with steps that send nothing up to the step count.
        (Hypothesis's own stop is a rare draw that shrinking never makes: it lowers choices,
        and stopping is the higher one.) A Hypothesis without `conjecture_data` gets the
        steps that send nothing."""
        self.settle()
        self.ended = True
        inner = getattr(data, "conjecture_data", None)
        if inner is not None and callable(getattr(inner, "conclude_test", None)):
            inner.conclude_test(Status.VALID)

    def submit_user(self, text: str) -> None:
        """The user starts a turn."""
        self.apply(SubmitUser(text))

    def model_replies(self, choose: swarming.Choose) -> None:
        """The model answers (or, one time in twelve, fails; in four while input is
        queued, which a failed request must keep: ADJ-4)."""
        assert self.oracle.state is not None
        queued = bool(self.oracle.state.inbox)
        one_in = FAILS_QUEUED_ONE_IN if queued else FAILS_ONE_IN
        if choose(one_in) == one_in - 1:
            self.apply(gen.failure_on(len(self.oracle.state.log)))
            return
        phase = self.phase
        first_step = isinstance(phase, AwaitingModel) and phase.step == 1
        for _ in range(AVOID_TRIES):
            reply = swarming.model_replies(
                choose,
                self.swarm,
                self.config,
                self.next_call,
                first_step=first_step,
                queued=queued,
            )
            if not self.has("max-tokens") and reply.finish != "completed":
                reply = ModelReplies(reply.blocks)
            # A reply the profile's target is cut at (a call a CLI runs that the model
            # settles unrun) is drawn again: such calls ended most programs at their first
            # reply on a real CLI, before a call ran or an abort came over one.
            if self.profile is None or not self.profile.avoids(reply, self.config):
                break
        self.next_call += len(reply.tool_calls)
        self.apply(reply)

    def hook_answers(self, choose: swarming.Choose) -> None:
        """The next PreToolUse hook answers."""
        phase = self.phase
        assert isinstance(phase, Rewriting)
        pending = phase.queue[0]
        call = phase.reply.tool_calls[pending.call_index]
        hooks = self.config.hooks_for(PRE_TOOL_USE, call.name)
        hook_index = hooks.index(pending.hook)
        lone_hook = len(hooks) == 1
        verdict = swarming.pre_verdicts(
            choose,
            self.swarm,
            call,
            call_index=pending.call_index,
            hook_index=hook_index,
            lone_hook=lone_hook,
        )
        # A pass timed out only where the call has no other hook: a deny read into it there
        # shows as that (HOOK-2), not as a rewrite erased (RW-1).
        self.answer_hook(verdict, timed_out=self.swarm.timed_out_hooks and lone_hook)
        # `LAST_WORD`'s answer is not drawn: sent with the answer before it, so the program
        # draws what it drew before that hook came.
        while (
            isinstance(self.phase, Rewriting)
            and self.phase.queue[0].hook == swarming.LAST_WORD
            and not (self.failed or self.stopped)
        ):
            self.answer_hook(swarming.last_word(self.phase, self.config))

    def answer_hook(self, verdict: PreVerdict, *, timed_out: bool = False) -> None:
        """Send a PreToolUse answer, less what the target cannot take; a pass `timed_out`
        comes with the audit of a hook killed at its timeout (`swarming.pre_audit`)."""
        if not self.has("rewrite") and isinstance(verdict, Allow | Ask):
            verdict = attrs.evolve(verdict, updated_input=None)
        if not self.has("approval") and isinstance(verdict, Ask):
            verdict = Allow()
        self.apply(HookAnswers(verdict, swarming.pre_audit(verdict, timed_out=timed_out)))

    def approval_answers(self, outcome: str) -> None:
        """The user answers the approval prompt."""
        self.apply(ApprovalAnswers(outcome))

    def tool_finishes(self, choose: swarming.Choose) -> None:
        """A running call settles, in any order."""
        phase = self.phase
        assert isinstance(phase, Dispatching)
        running = [s for s in phase.slots if s.status == RUNNING]
        slot = swarming.settling(choose, self.swarm, running)
        hooks = self.config.hooks_for(POST_TOOL_USE, slot.name)
        post = swarming.post_answers(choose, self.swarm, len(hooks), slot.call_id)
        outcome = swarming.tool_outcomes(choose, self.swarm, slot.call_id)
        if isinstance(outcome, ToolSucceeded) and not self.has("result-meta"):
            outcome = attrs.evolve(outcome, meta=None)
        self.apply(ToolFinishes(slot.call_id, outcome, post))

    def disrupt(self, choose: swarming.Choose, data: st.DataObject, aim: str | None = None) -> bool:
        """Stop, crash, or type mid-turn — each only when the target can; `aim`, where the step
        aimed one (see `swarming.first_aim`); whether a command was sent."""
        kind = self.drawn_disruption(choose) if aim is None else aim
        command: Command | None = None
        if kind == "settled" and isinstance(self.phase, Dispatching):
            # A call waiting for its approval first (`swarming.first_aim`), then model order.
            slots = sorted(self.phase.slots, key=lambda slot: slot.status != ASKING)
            settled = [s.call_id for s in slots if s.status != RUNNING]
            if settled:
                call_id = swarming.pick(choose, settled)
                command = ToolFinishes(call_id, swarming.settled_call_outcome(choose, call_id))
        elif kind in ("abort", swarming.AGAIN) and self.has("abort"):
            assert self.oracle.state is not None
            landing = self.phase.aborting if isinstance(self.phase, Dispatching) else None
            command = gen.abort_on(len(self.oracle.state.log), landing)
        elif kind == "crash" and self.has("crash-repair"):
            command = Crash()
        elif kind == "interject" and self.has("queued-input"):
            command = SubmitUser(self.typed_mid_turn(choose, data))
        elif kind == "arbitrary":
            command = _draw(data, gen.any_commands)
        if command is None or not self.supports(command):
            return False
        self.apply(command)
        return True

    def typed_mid_turn(self, choose: swarming.Choose, data: st.DataObject) -> str:
        """What the user types mid-turn: with a message of theirs queued, in one of two its
        text again (a second press of Enter, which ADJ-4 delivers twice: drawn among the
        prompts alone, a loop dropping it as a bounce needed a median of 46 programs, batches
        0-19); otherwise a prompt drawn."""
        assert self.oracle.state is not None
        typed = [queued.text for queued in self.oracle.state.inbox if queued.plugin is None]
        if typed and choose(2) == 0:
            return typed[-1]
        return swarming.exacting_text(_draw(data, self.run.prompts))

    def drawn_disruption(self, choose: swarming.Choose) -> str:
        """The kind of disruption drawn, weighted by the swarm and by what `phase` is one
        disruption away from."""
        kind = swarming.disruptions(choose, self.swarm)
        if swarming.denied_call_passed_busy_slots(self.phase, self.config.max_parallel):
            # An abort first: Hypothesis draws the least index more often than the others.
            return swarming.pick(choose, ("abort", "abort", kind))  # see `step`
        if self.swarm.aborts and swarming.later_call_waits(self.phase):
            return swarming.pick(choose, (kind, kind, "abort"))
        if self.cannot_take(kind) and self.has("abort") and _calls_run(self.phase):
            # A crash or typed input the target cannot take would send nothing; over a
            # running call it is an abort instead. A real CLI (neither) otherwise aborted
            # mostly before its calls ran: while hooks run, where its cut ends the program.
            return "abort"
        # One draw more only where a rare situation is one disruption away.
        aimed = swarming.aimed_disruptions(self.swarm, self.phase, kind, self.aimed_batches)
        return swarming.pick(choose, aimed)

    def cannot_take(self, kind: str) -> bool:
        """Whether disruption `kind` is one the target declares no capability for."""
        needed = {"crash": "crash-repair", "interject": "queued-input"}.get(kind)
        return needed is not None and not self.has(needed)

    def supports(self, command: Command) -> bool:
        """Whether the target declared what `command` needs (and is not known to refuse it
        at once: see `prompt_texts`)."""
        if self.profile is not None and self.profile.avoids(command, self.config):
            return False
        idle = isinstance(self.phase, Idle)
        return all(self.has(needed) for needed in needed_capabilities(command, idle=idle))

    def recover(self) -> None:
        """The session is reopened."""
        self.apply(Recover())

    def teardown(self) -> None:
        # Hypothesis abandons a program it cannot continue (its size budget ran out, or
        # swarm testing disabled every rule the phase allows): count it apart.
        data = current_build_context().data
        abandoned = data.status in (Status.OVERRUN, Status.INVALID)
        if not self.run.pinned or self.raised:
            PROGRAM_ENDS["abandoned" if abandoned else "complete"] += 1
        # Ctrl-C may have struck mid-command: the target's state (a process's unread answer)
        # is unknown, and what settling sent would be judged against it.
        interrupted = isinstance(sys.exc_info()[1], KeyboardInterrupt)
        try:
            # Not an abandoned program: Hypothesis drops what it raises, yet a divergence
            # would pin its rule and turn the runs after it into "shrinking".
            if self.configured and not self.failed and not abandoned and not interrupted:
                self.settle()  # what is still queued or running is compared too
            if self.checker is not None and not self.failed:
                KNOWN_HITS.update(self.checker.shown())
        finally:
            self.target.close()

    def settle(self) -> None:
        """Drive both to a quiet end, so the program's tail is compared too."""
        for _ in range(SETTLE_LIMIT):
            assert self.oracle.state is not None
            command = settling_command(self.oracle.state.phase, self.config)
            if command is None or self.stopped:
                return
            if self.noting():
                note(f"settling: #{len(self.program) + 1} {command!r}")
            self.apply(command)


def conformance_machine(
    factory: TargetFactory, profile: Profile | None = None, *, pin: dict[str, str] | None = None
) -> type[RuleBasedStateMachine]:
    """A machine class bound to one run against the target made by `factory`, made without
    arguments as Hypothesis makes a class (tests subclass it; `run_conformance` hands
    Hypothesis a function making `ConformanceMachine(run)` instead, and makes no class).

    With `profile`, the target's known divergences are erased before comparing. `pin` receives
    the rule of the first divergence found (under the key "rule").
    """
    run = ConformanceRun(factory, profile, {} if pin is None else pin)

    class Bound(ConformanceMachine):
        def __init__(self) -> None:
            super().__init__(run)

    Bound.__name__ = "ConformanceMachine"
    return Bound


def _cut_at_blank_arguments(profile: Profile | None, config: LoopConfig) -> bool:
    """Whether `profile`'s target is cut at a reply whose call has blank arguments (a real
    CLI runs such a call, which the model settles unrun: `Profile.avoids`)."""
    blank = ToolCallBlock("c1", config.tools[0].name, gen.PYTHON_ONLY_BLANK)
    return profile is not None and profile.avoids(ModelReplies((blank,)), config)


def _cut_at_keyless_call(profile: Profile | None, config: LoopConfig) -> bool:
    """Whether `profile`'s target is cut at a call of the tool without required keys that
    `config` has, with the blank arguments random programs give it (`Profile.avoids`)."""
    call = ToolCallBlock("c1", swarming.KEYLESS_TOOL.name, swarming.KEYLESS_ARGUMENTS)
    return (
        profile is not None
        and config.tool(call.name) is not None
        and profile.avoids(ModelReplies((call,)), config)
    )


def _aborted(ended: TurnEnded) -> bool:
    return ended.reason.get("kind") == "aborted"


def _calls_run(phase: Phase) -> bool:
    """Whether a call of the batch is running."""
    return isinstance(phase, Dispatching) and any(slot.status == RUNNING for slot in phase.slots)


def _noted() -> bool:
    """Whether Hypothesis keeps a note made now (the final run of a failing program, verbose
    output, observability): only then is the note's text, a command's repr, worth making."""
    return should_note() or observability_enabled()


_Option = TypeVar("_Option")
_Drawn = TypeVar("_Drawn")


def _draw(data: st.DataObject, strategy: st.SearchStrategy[_Drawn]) -> _Drawn:
    """`data.draw(strategy)`: the same draw, without what `DataObject.draw` adds around it for
    a test that prints its draws (a numbered "Draw n" line, an argument span for the explain
    phase, a check that the strategy left `random` alone). The machine prints none (it notes
    each command instead), runs no explain phase, and its strategies never touch `random`;
    the additions cost more than the draw. Choices and spans are those `data.draw` makes.

    `conjecture_data` is Hypothesis's own (tests pin the version that has it); a Hypothesis
    without it gets the public `data.draw`, which draws the same programs, only slower."""
    inner = getattr(data, "conjecture_data", None)
    if inner is None or not callable(getattr(inner, "draw", None)):
        return data.draw(strategy)
    drawn: _Drawn = inner.draw(strategy)
    return drawn


def _chooser(data: st.DataObject) -> swarming.Choose:
    """Draws an index below a bound as one integer choice, straight from Hypothesis's choice
    sequence (see `swarming.Choose`): `st.integers(0, bound - 1)` makes the same choice, and a
    Hypothesis without `conjecture_data` (see `_draw`) gets that, only slower."""
    inner = getattr(data, "conjecture_data", None)
    if inner is None or not callable(getattr(inner, "draw_integer", None)):
        return lambda bound: data.draw(_below(bound)) if bound > 1 else 0
    draw_integer = inner.draw_integer
    return lambda bound: draw_integer(0, bound - 1) if bound > 1 else 0


@functools.lru_cache(maxsize=64)
def _below(bound: int) -> st.SearchStrategy[int]:
    return st.integers(0, bound - 1)


@functools.lru_cache(maxsize=1024)
def _one_of_these(options: tuple[_Option, ...]) -> st.SearchStrategy[_Option]:
    """`st.sampled_from(options)`, built once per `options`: Hypothesis validates a new
    strategy at its first draw, which costs more than the draw; the draws are the same."""
    return st.sampled_from(options)


APPROVAL_ANSWERS = tuple(sorted(APPROVAL_OUTCOMES))
# What the machine may send in a phase (see `ConformanceMachine.step`).
StepKind = Literal[
    "submit_user",
    "model_replies",
    "hook_answers",
    "tool_finishes",
    "approval_answers",
    "disrupt",
    "recover",
]


def _possible(phase: Phase) -> tuple[StepKind, ...]:
    """The kinds of command the machine may send in `phase`, the one that moves the program on
    first, each as often as it comes here. Stop, crash and typing mid-turn (`disrupt`) come in
    one step of three, in every phase: in one of two, most turns were cut short before their
    hooks had answered or their calls had settled. Between turns they bring the crash of an
    idle loop (a loop that rebuilt only an open turn from its log forgot its turn count there)
    and, crashed, commands the model refuses until the session is reopened."""
    match phase:
        case Idle():
            return ("submit_user", "submit_user", "disrupt")
        case AwaitingModel():
            return ("model_replies", "model_replies", "disrupt")
        case Rewriting():
            return ("hook_answers", "hook_answers", "disrupt")
        case Dispatching():
            statuses = {slot.status for slot in phase.slots}
            running: tuple[StepKind, ...] = ("tool_finishes",) if RUNNING in statuses else ()
            asking: tuple[StepKind, ...] = ("approval_answers",) if ASKING in statuses else ()
            moving = (*running, *asking)
            return (*(moving * 2 if len(moving) == 1 else moving), "disrupt")
        case Crashed():
            return ("recover", "recover", "disrupt")
        case _:
            assert_never(phase)


def _count_coverage(
    phase: str, command: Command, expected: Observation, situations: list[str]
) -> None:
    """Count the transition taken, and the command as observed (`count_observed` adds the rules
    it checked and the situations it created)."""
    outcome = "accepted" if expected.accepted else (expected.refusal_rule or "?")
    TRANSITION_HITS[(phase, command.NAME, outcome)] += 1
    # What a command checks depends only on this key (see `_rules_checked`), and a run sees a
    # few hundred distinct ones: the rules of each are added up once per run, not per command.
    kinds = tuple(map(_kind, expected.events))
    key = (phase, command.NAME, outcome, kinds, bool(expected.executed))
    _OBSERVED[(key, tuple(situations))] += 1


def reset_coverage() -> None:
    """Forget what earlier runs counted, what they left uncounted too: a run counts from here."""
    count_observed()
    for counter in (TRANSITION_HITS, RULE_HITS, KNOWN_HITS, PROGRAM_ENDS, SITUATION_HITS):
        counter.clear()


def program_counter() -> Callable[[Command, LoopState, LoopState | None, Observation], None]:
    """What counts one program played outside the search (conform's --exhaustive pass) as the
    search counts its programs' commands: the transition, the rules checked and the situations
    created (`count_observed` adds the last two up)."""
    situations = Situations()

    def count(
        command: Command, before: LoopState, after: LoopState | None, expected: Observation
    ) -> None:
        created = situations.feed(command, before, after, expected)
        _count_coverage(before.phase.NAME, command, expected, created)

    return count


def count_observed() -> None:
    """Add the rules checked and the situations created by the commands counted since the last
    call (`_count_coverage`) to RULE_HITS and SITUATION_HITS."""
    for (key, situations), times in _OBSERVED.items():
        checked = _rules_checked(key)
        for rule_id, checks in checked.items():
            RULE_HITS[rule_id] += checks * times
        created = Counter(situations)
        for rule_id, count in created.items():
            SITUATION_HITS[rule_id] += count * times
            # A situation this command created is in the observation compared next, so its
            # rule was checked there too (the report showed "exercised x1633 (checked x491)"
            # for LOG-4): as often as it was created, where that is more often than the
            # comparison counted it.
            beyond = count - checked.get(rule_id, 0)
            if beyond > 0:
                RULE_HITS[rule_id] += beyond * times
    _OBSERVED.clear()


_HOOK_AUDITS = frozenset(("hook/invoked", "hook/result"))
# Each event's type, and a hook audit's rule ("" for other events).
_Kinds = tuple[tuple[str, str], ...]
# (phase, command, outcome, event kinds, executed): what decides the rules a command checks.
_CheckKey = tuple[str, str, str, _Kinds, bool]
# (what a command checked, the situations it created) -> commands so observed, not yet counted.
_OBSERVED: Counter[tuple[_CheckKey, tuple[str, ...]]] = Counter()


def _kind(event: dict[str, Any]) -> tuple[str, str]:
    kind = str(event.get("type"))
    return kind, hook_audit_rule(event) if kind in _HOOK_AUDITS else ""


def _rules_checked(key: _CheckKey) -> dict[str, int]:
    """The rules compared by a command `key` describes: sent in a phase, with an outcome, and an
    expected observation with events of some kinds and (or not) a body run."""
    phase, command_name, outcome, kinds, executed = key
    row = transition_for(phase, command_name)
    checked: Counter[str] = Counter()
    if outcome == "accepted" and row is not None:
        checked.update(row.rules)
        for kind, audit_rule in kinds:
            checked.update(RULES_BY_EVENT.get(kind, ("LOG-1",)))
            if audit_rule:
                checked[audit_rule] += 1
        if executed:
            checked.update(("EXE-3", "SCHED-1", "EXE-4"))
    elif outcome != "accepted":
        checked.update(("MODEL-1", "MODEL-3"))
    return dict(checked)


def _fits(config: LoopConfig, capabilities: frozenset[str]) -> bool:
    if not all(need in capabilities for need in hook_capabilities(config)):
        return False
    return not (config.max_parallel > 1 and "parallel" not in capabilities)


def _reduced(config: LoopConfig, capabilities: frozenset[str]) -> LoopConfig:
    """The simplest configuration a target without optional features can run."""
    return attrs.evolve(
        config, hooks=(), max_parallel=config.max_parallel if "parallel" in capabilities else 1
    )
