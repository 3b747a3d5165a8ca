"""Profile symptoms excuse only the situation they describe.

A hard known divergence of a profile is recognised by a *symptom* on one command; where it
shows, both runs are cut and the program counts as that known divergence. A symptom that fires
outside its situation hides a real bug behind a known one: a wrong loop (not the real harness)
that shows the same difference somewhere else must still be reported, blamed on the rule it
breaks. Each test below replays such a loop under the profile and requires the report. (Each
symptom's own situation is held by its regression case, `tests/regressions/`, replayed on the
real harness by tests/test_dsh_adapter.py and tests/test_real_harness*.py.)
"""

from __future__ import annotations

import copy
from typing import Any

import attrs
import pytest
from mutants import MUTANTS, MutantTarget

from loopspec.model.commands import (
    Abort,
    ApprovalAnswers,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostPass,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.rewrite import input_problem
from loopspec.model.state import RUNNING, Dispatching, Rewriting
from loopspec.model.wire import event_to_wire
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.situation_sweep import SITUATIONS, settled_program
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles import PROFILES
from loopspec.properties.profiles.dsh import PROFILE as DSH
from loopspec.properties.profiles.dsh import UNLOSSLESS_ARGUMENTS
from loopspec.properties.profiles.runs import result_call, with_result_text
from loopspec.properties.stateful import strategies as gen


class RepeatsAFailedPrompt(ModelTarget):
    """The model, but a failed request queues its turn's prompt again: the next turn opens with
    the failed prompt before the user's new message (a retry that keeps what it retried)."""

    name = "repeats-a-failed-prompt"

    def __init__(self) -> None:
        super().__init__()
        self._prompt: str | None = None

    def apply(self, command: Command) -> Observation:
        if isinstance(command, SubmitUser) and self._prompt is None:
            self._prompt = command.text
        if isinstance(command, ModelFails) and self._prompt is not None:
            super().apply(SubmitUser(self._prompt))  # queued while the turn is open: no event
            self._prompt = None
        return super().apply(command)


def test_ADJ_4_parked_input_is_excused_only_after_a_crash() -> None:
    """ADJ-4: dsh's `queued-input-survives-crash` describes input a failed request parked and a
    crash the model lost it in. Its symptom read only that the last turn ended `error`, so with
    no crash at all it excused a loop that opens the next turn with input nobody queued."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelFails("overloaded", "OVERLOADED"),
        SubmitUser("next"),
        ModelReplies((TextBlock("ok"),)),
    ]
    replay = replay_case(RepeatsAFailedPrompt, gen.CONFIGS[0], program, DSH)
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "ADJ-4", replay.divergence.what


class DropsParkedInput(ModelTarget):
    """The model, but a failed request loses the messages queued in its turn (the model parks
    them for the next turn, ADJ-4). A queued message logs nothing, so it is held back and sent
    on with the next command, unless that command is the failure."""

    name = "drops-parked-input"

    def __init__(self) -> None:
        super().__init__()
        self._queued: list[SubmitUser] = []

    def apply(self, command: Command) -> Observation:
        assert self.state is not None
        if isinstance(command, SubmitUser) and self.state.phase.NAME != "Idle":
            self._queued.append(command)
            return Observation(True)
        if not isinstance(command, ModelFails):
            for queued in self._queued:
                super().apply(queued)
        self._queued = []
        return super().apply(command)


def test_ADJ_4_a_crash_excuses_only_the_input_it_lost() -> None:
    """ADJ-4: after a crash that cut a turn, dsh's turns may open with input the model lost at
    it (`queued-input-survives-crash`). The symptom excused any turn that opened with other
    messages once any crash had cut a turn, so a later failed request's parked message, lost,
    passed under dsh's profile; the crash here lost nothing (nothing was queued)."""
    program: list[Command] = [
        SubmitUser("hi"),
        Crash(),
        Recover(),
        SubmitUser("again"),
        SubmitUser("queued"),
        ModelFails("overloaded", "OVERLOADED"),
        SubmitUser("next"),
        ModelReplies((TextBlock("ok"),)),
    ]
    assert replay_case(DropsParkedInput, gen.CONFIGS[0], program[3:], DSH).divergence is not None
    replay = replay_case(DropsParkedInput, gen.CONFIGS[0], program, DSH)
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "ADJ-4", replay.divergence.what


class IgnoresAnAbortBeforeTheReply(ModelTarget):
    """The model, but an abort while the model's reply is awaited is taken and does nothing:
    the turn goes on with the reply that comes."""

    name = "ignores-an-abort-before-the-reply"

    def apply(self, command: Command) -> Observation:
        assert self.state is not None
        if isinstance(command, Abort) and self.state.phase.NAME == "AwaitingModel":
            return Observation(True)
        return super().apply(command)


def test_ABORT_2_an_abort_is_excused_only_while_pre_hooks_answer() -> None:
    """ABORT-2: dsh's `abort-during-pre-hook-keeps-reply` describes an abort while a reply's
    PreToolUse hooks answer. Its symptom read only that the model's abort ended the turn with
    no result and dsh's did not end it, so a loop that ignores an abort while it waits for the
    model's reply (no reply, no hook) passed under dsh's profile."""
    program: list[Command] = [SubmitUser("hi"), Abort("user"), ModelReplies((TextBlock("ok"),))]
    replay = replay_case(IgnoresAnAbortBeforeTheReply, gen.CONFIGS[0], program, DSH)
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "ABORT-2", replay.divergence.what


class ContinuesAfterMaxTokens(ModelTarget):
    """The model, but a reply cut off at max-tokens does not end the turn: the loop opens the
    next step to let the model go on (STEP-4), where the model ends the turn `max-tokens`."""

    name = "continues-after-max-tokens"

    def apply(self, command: Command) -> Observation:
        observation = super().apply(command)
        if not (isinstance(command, ModelReplies) and command.finish == "max-tokens"):
            return observation
        events = [copy.deepcopy(event) for event in observation.events]
        for event in events:
            if event["type"] == "turn/end" and event["data"]["reason"]["kind"] == "max-tokens":
                turn = event["data"]["turn"]
                steps = [e["data"]["step"] for e in events if e["type"] == "step/end"]
                event["type"] = "step/start"
                event["data"] = {"turn": turn, "step": steps[-1] + 1}
        return attrs.evolve(observation, events=tuple(events))


def test_STEP_4_max_tokens_is_excused_only_with_a_message_queued() -> None:
    """STEP-4: dsh's `max-tokens-continues-with-queued-input` describes a reply cut off at
    max-tokens while a user message is queued: dsh opens the next step with it. Its symptom
    read only that the model ended the turn and dsh opened a step, so a loop that goes on after
    max-tokens with nothing queued passed under dsh's profile."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((TextBlock("cut off"),), finish="max-tokens"),
    ]
    replay = replay_case(ContinuesAfterMaxTokens, gen.CONFIGS[0], program, DSH)
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "STEP-4", replay.divergence.what


class ResumesAnAbortedTurn(ModelTarget):
    """The model, but when an aborted turn has drained, the loop opens a new turn by itself
    with the aborted turn's prompt (a retry nobody asked for)."""

    name = "resumes-an-aborted-turn"

    def __init__(self) -> None:
        super().__init__()
        self._prompt = ""

    def apply(self, command: Command) -> Observation:
        observation = super().apply(command)
        if isinstance(command, SubmitUser) and any(
            event["type"] == "turn/start" for event in observation.events
        ):
            self._prompt = command.text
        ended = [e for e in observation.events if e["type"] == "turn/end"]
        if not ended or ended[-1]["data"]["reason"]["kind"] != "aborted":
            return observation
        if isinstance(command, Abort):
            return observation  # nothing ran: the turn ends with the abort itself
        again = super().apply(SubmitUser(self._prompt))
        events = (*observation.events, *again.events)
        return attrs.evolve(
            observation, events=events, commits=(*observation.commits, *again.commits)
        )


def test_TURN_1_a_turn_after_an_abort_is_excused_only_for_a_message_sent_meanwhile() -> None:
    """TURN-1: dsh's `submit-while-aborting-starts-turn` describes a message sent while an
    aborted turn drains, which opens a turn by itself when the aborted one ends. Its symptom
    read only that a turn opened right after the aborted one, so a loop that reopens the
    aborted turn's prompt by itself, with nothing sent, passed under dsh's profile: a turn the
    user did not open."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", gen.ARGUMENTS["read"][0]),)),
        Abort("user"),
        ToolFinishes("c1", ToolSucceeded("A")),
        SubmitUser("next"),
        ModelReplies((TextBlock("ok"),)),
    ]
    replay = replay_case(ResumesAnAbortedTurn, gen.CONFIGS[0], program, DSH)
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "TURN-1", replay.divergence.what


def _mutant(name: str) -> MutantTarget:
    return MutantTarget(next(m for m in MUTANTS if m.name == name))


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_EXE_3_arguments_no_hook_supplied_are_no_rewrite(harness: str) -> None:
    """EXE-3: the CLIs' known RW-1 runs a hook's rewrite while the call record keeps the
    model's input. Its symptom read only that what ran was not what the record holds, so a
    loop whose body ran arguments changed after the call was sealed, with no hook at all,
    passed under both profiles (mutant mutable-arguments: never caught)."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "bash", gen.ARGUMENTS["bash"][0]),)),
        ToolFinishes("c1", ToolSucceeded("A")),
        ModelReplies((TextBlock("done"),)),
    ]
    replay = replay_case(
        lambda: _mutant("mutable-arguments"), gen.CONFIGS[0], program, PROFILES[harness]
    )
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-3", replay.divergence.what


def test_DEC_1_codex_runs_only_a_call_denied_without_a_reason() -> None:
    """DEC-1: Codex ignores a PreToolUse hook that denies without a reason, and the call runs.
    Its symptom excused every denied call that ran, so a loop that runs a call a hook denied
    saying why passed under the codex profile."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "bash", gen.ARGUMENTS["bash"][0]),)),
        HookAnswers(Deny("not here")),
        HookAnswers(Pass()),
    ]
    config = gen.CONFIGS[2]
    replay = replay_case(lambda: _mutant("deny-still-executes"), config, program, PROFILES["codex"])
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "DEC-1", replay.divergence.what
    unreasoned = [*program[:2], HookAnswers(Deny("")), HookAnswers(Deny(" "))]
    known = replay_case(
        lambda: _mutant("deny-still-executes"), config, unreasoned, PROFILES["codex"]
    )
    assert known.stopped_by == "DEC-1", known.divergence


class SaysDeniedWithoutTheReason(ModelTarget):
    """The model, but a denied call's result drops the hooks' reasons (`Error: denied`), and it
    reports no history to hold that result to."""

    name = "says-denied-without-the-reason"

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self.reporting_history = False
        return super().reset(config) - {"history"}

    def apply(self, command: Command) -> Observation:
        seen = super().apply(command)
        denied = [
            e
            for e in seen.events
            if e["type"] == "tool/result"
            and e["data"]["message"]["content"][0]["content"][0]["text"].startswith("Error: ")
        ]
        return attrs.evolve(
            seen,
            events=tuple(
                with_result_text(e, "Error: denied") if e in denied else e for e in seen.events
            ),
        )


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_HOOK_2_DEC_1_only_a_deny_without_a_reason_excuses_denied(harness: str) -> None:
    """HOOK-2: the CLI gives the model one denying hook's reason, `denied` for one that gave
    none. Read from the hook records, whose reasons the audit shape erases first, every denial
    was one without a reason, so a loop dropping a lone deny's reason passed under both
    profiles; with a second hook denying without a reason it is the known divergence."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "bash", gen.ARGUMENTS["bash"][0]),)),
        HookAnswers(Deny("not here")),
        HookAnswers(Pass()),
    ]
    config = gen.CONFIGS[2]
    replay = replay_case(SaysDeniedWithoutTheReason, config, program, PROFILES[harness])
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "DEC-1", replay.divergence.what
    one_unreasoned = [*program[:3], HookAnswers(Deny(""))]
    known = replay_case(SaysDeniedWithoutTheReason, config, one_unreasoned, PROFILES[harness])
    assert known.divergence is None, known.divergence
    assert "HOOK-2" in known.known
    # A deny no hook was asked for (both refuse it) carries no events to read: no KeyError.
    refused: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((TextBlock("ok"),)),
        HookAnswers(Deny("")),
    ]
    assert (
        replay_case(SaysDeniedWithoutTheReason, config, refused, PROFILES[harness]).divergence
        is None
    )


def test_ADJ_1_codex_places_only_a_hook_s_context_before_a_result() -> None:
    """ADJ-1: Codex writes a PostToolUse hook's context between a call and its output. Its
    symptom excused any context written while a call of the step awaits its result, so a loop
    that delivers a body's deferred context mid-batch (mutant context-between-call-and-result,
    never caught under the codex profile) passed."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies(
            (
                ToolCallBlock("c1", "read", gen.ARGUMENTS["read"][0]),
                ToolCallBlock("c2", "read", gen.ARGUMENTS["read"][1]),
            )
        ),
        ToolFinishes("c1", ToolSucceeded("A", contexts=("from c1",))),
        ToolFinishes("c2", ToolSucceeded("B")),
        ModelReplies((TextBlock("done"),)),
    ]
    replay = replay_case(
        lambda: _mutant("context-between-call-and-result"),
        gen.CONFIGS[0],
        program,
        PROFILES["codex"],
    )
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "ADJ-1", replay.divergence.what


class AnswersAnAbortedPromptLate(ModelTarget):
    """The model, but the prompt after an aborted turn first gets a reply to the aborted one:
    the loop logs the model's late answer to it before the new turn opens."""

    name = "answers-an-aborted-prompt-late"

    def __init__(self) -> None:
        super().__init__()
        self._aborted = False

    def apply(self, command: Command) -> Observation:
        observation = super().apply(command)
        ends = [e for e in observation.events if e["type"] == "turn/end"]
        if ends:
            self._aborted = ends[-1]["data"]["reason"]["kind"] == "aborted"
        if not (isinstance(command, SubmitUser) and observation.events[:1]):
            return observation
        first = observation.events[0]
        if not (self._aborted and first["type"] == "turn/start"):
            return observation
        late = {
            "type": "assistant/message",
            "seq": first["seq"],
            "time": first["time"],
            "data": {
                "turn": first["data"]["turn"] - 1,
                "step": 1,
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "late"}],
                    "source": {"kind": "model", "provider": "scripted", "model": "scripted-model"},
                    "id": "late",
                },
            },
            "surfaceOp": "append",
        }
        events = [{**event, "seq": event["seq"] + 1} for event in observation.events]
        joined = (late, *events)
        return attrs.evolve(observation, events=joined, commits=(1, *observation.commits))


def test_TURN_3_claude_code_invents_only_its_own_record_at_a_resume() -> None:
    """TURN-3: resuming after an interrupt, Claude Code writes an assistant message of its own
    (model <synthetic>, "No response requested.") before the new turn. Its symptom excused any
    assistant message there, so a loop that logs a late model reply to the aborted prompt,
    between two turns, passed under the claude-code profile."""
    program: list[Command] = [SubmitUser("hi"), Abort("user"), SubmitUser("again")]
    replay = replay_case(
        AnswersAnAbortedPromptLate, gen.CONFIGS[0], program, PROFILES["claude-code"]
    )
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "TURN-3", replay.divergence.what


class TakesOneHookAnswerPerCall(ModelTarget):
    """The model, but a call's second PreToolUse hook never gets its answer taken: the loop
    refuses it as if no hook were waiting."""

    name = "takes-one-hook-answer-per-call"

    def __init__(self) -> None:
        super().__init__()
        self._answers = 0

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ModelReplies):
            self._answers = 0
        if isinstance(command, HookAnswers):
            self._answers += 1
            if self._answers == 2:
                return Observation(False, refusal_rule="MODEL-1", refusal_message="no hook waits")
        return super().apply(command)


def test_HOOK_4_a_refused_hook_answer_is_excused_only_while_the_gate_is_held() -> None:
    """HOOK-4: dsh's `later-pre-hooks-wait-at-gate` describes a later call's hooks waiting
    while an earlier call holds the gate (its body runs, or its approval waits). Its symptom
    read only that dsh refused a HookAnswers the model took, so a loop that refuses a call's
    second hook passed under dsh's profile before any call had started."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "bash", gen.ARGUMENTS["bash"][0]),)),
        HookAnswers(Pass()),
        HookAnswers(Pass()),
        HookAnswers(Pass()),
        ToolFinishes("c1", ToolSucceeded("A")),
        ModelReplies((TextBlock("done"),)),
    ]
    replay = replay_case(TakesOneHookAnswerPerCall, gen.CONFIGS[1], program, DSH)
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "HOOK-4", replay.divergence.what


class TakesAnAnswerToNothing(ModelTarget):
    """The model, but an approval answer while no approval is asked is taken, and ignored."""

    name = "takes-an-answer-to-nothing"

    def apply(self, command: Command) -> Observation:
        observation = super().apply(command)
        if isinstance(command, ApprovalAnswers) and not observation.accepted:
            return Observation(True)
        return observation


def test_MODEL_1_an_approval_answer_is_excused_only_when_dsh_asked() -> None:
    """MODEL-1: dsh's `approval-asked-before-later-hooks` describes an approval dsh asked at
    an earlier call's gate while the model still waits for a later call's hooks. Its symptom
    read only that dsh took an ApprovalAnswers the model refused there, so a loop that takes an
    answer when it asked nothing passed under dsh's profile."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "bash", gen.ARGUMENTS["bash"][0]),)),
        ApprovalAnswers("allowed-once"),
        HookAnswers(Pass()),
        HookAnswers(Pass()),
        ToolFinishes("c1", ToolSucceeded("A")),
        ModelReplies((TextBlock("done"),)),
    ]
    replay = replay_case(TakesAnAnswerToNothing, gen.CONFIGS[1], program, DSH)
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "MODEL-1", replay.divergence.what


class HoldsCallsBehindADeniedOne(ModelTarget):
    """The model, but a call a hook denied keeps its place in the schedule: finishing a call
    after it is refused (EXE-4: no such running call) as long as the loop has not released it."""

    name = "holds-calls-behind-a-denied-one"

    def __init__(self) -> None:
        super().__init__()
        self._denied = False

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ModelReplies):
            self._denied = False
        if isinstance(command, HookAnswers) and isinstance(command.verdict, Deny):
            self._denied = True
        if isinstance(command, ToolFinishes) and self._denied:
            return Observation(False, refusal_rule="EXE-4", refusal_message="not running")
        return super().apply(command)


def test_SCHED_1_only_a_call_with_invalid_input_holds_its_place() -> None:
    """SCHED-1: in dsh a call the model settles without running, for its input, still takes
    its turn in the schedule (`settled-call-holds-its-place`). The symptom counted any earlier
    call the model never ran, so a loop that holds later calls behind a call a hook denied
    passed under dsh's profile."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies(
            (
                ToolCallBlock("c1", "bash", gen.ARGUMENTS["bash"][0]),
                ToolCallBlock("c2", "read", gen.ARGUMENTS["read"][0]),
            )
        ),
        HookAnswers(Deny("not here")),
        HookAnswers(Pass()),
        ToolFinishes("c2", ToolSucceeded("A"), post=(PostPass(),)),  # the audit hook's answer
        ModelReplies((TextBlock("done"),)),
    ]
    for profile in (None, DSH):
        replay = replay_case(HoldsCallsBehindADeniedOne, gen.CONFIGS[1], program, profile)
        assert replay.stopped_by is None
        assert replay.divergence is not None
        # The refusal is the schedule's fault, with or without the profile: the target holds
        # c2 behind a call that never ran (EXE-4 would say it refused a running call's outcome).
        assert replay.divergence.index == 4, replay.divergence.what
        assert replay.divergence.rule_id == "SCHED-1", replay.divergence.what
        assert "behind call c1, denied by a hook" in replay.divergence.what
    # A refused outcome of a call with no unrun call before it stays EXE-4's.
    passed = [*program[:2], HookAnswers(Pass()), HookAnswers(Pass())]
    finished = ToolFinishes("c1", ToolSucceeded("A"))
    replay = replay_case(RefusesEveryOutcome, gen.CONFIGS[1], [*passed, finished])
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-4", replay.divergence.what


class HoldsCallsBehindAnInvalidOne(ModelTarget):
    """The model, but as dsh schedules: a call missing a required key keeps its place, so
    finishing a later call is refused (EXE-4: no such running call) while a call before the
    invalid one still runs."""

    name = "holds-calls-behind-an-invalid-one"

    def __init__(self) -> None:
        super().__init__()
        self._ahead: set[str] = set()  # the calls before the invalid one, still running
        self._held: set[str] = set()

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ModelReplies) and self.state is not None:
            calls = command.tool_calls
            invalid = [i for i, c in enumerate(calls) if input_problem(c, self.state.config)]
            first = invalid[0] if invalid else len(calls)
            self._ahead = {c.id for c in calls[:first]}
            self._held = {c.id for c in calls[first + 1 :]}
        if isinstance(command, ToolFinishes):
            if command.call_id in self._held and self._ahead:
                return Observation(False, refusal_rule="EXE-4", refusal_message="not running")
            self._ahead.discard(command.call_id)
        return super().apply(command)


def test_SCHED_1_a_call_missing_a_required_key_holds_its_place_in_dsh() -> None:
    """SCHED-1: dsh's `settled-call-holds-its-place` also holds later calls behind a call whose
    arguments are an object missing a required key. The symptom read that from the model's
    INVALID_TOOL_INPUT result, which the model logs only after the running call before it
    (SCHED-2), so dsh refusing to finish the later call was blamed on SCHED-1 (found by
    conform on dsh 0.1.0-rc.8: a `{}` read between two reads)."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies(
            (
                ToolCallBlock("c1", "read", gen.ARGUMENTS["read"][0]),
                ToolCallBlock("c2", "read", "{}"),
                ToolCallBlock("c3", "read", gen.ARGUMENTS["read"][1]),
            )
        ),
        ToolFinishes("c3", ToolSucceeded("B")),
        ToolFinishes("c1", ToolSucceeded("A")),
    ]
    replay = replay_case(HoldsCallsBehindAnInvalidOne, gen.CONFIGS[0], program, DSH)
    assert replay.divergence is None, replay.divergence.what
    assert "settled-call-holds-its-place" in replay.known
    # Without the profile the refused outcome is a counterexample.
    assert replay_case(HoldsCallsBehindAnInvalidOne, gen.CONFIGS[0], program).divergence


class LeavesItsMessageWaitingAfterAnAbort(ModelTarget):
    """The model, but the SubmitUser that opens the first turn after an aborted one, with a
    message parked while the aborted turn drained, leaves its own message out of that turn:
    dsh after an abort whose cause is `disposed` (no wake-up, dsh-agent-loop index.js:446)."""

    name = "leaves-its-message-waiting-after-an-abort"

    def __init__(self) -> None:
        super().__init__()
        self._aborted = False

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        self._aborted = self._aborted or isinstance(command, Abort)
        events = list(observed.events)
        messages = [e for e in events if e["type"] == "user/message"]
        if not (isinstance(command, SubmitUser) and self._aborted and len(messages) > 1):
            return observed  # no turn opened with a parked message besides its own
        self._aborted = False
        events.pop()  # its own user/message, the last event the model appended
        return attrs.evolve(observed, events=tuple(events), commits=(len(events),))


@pytest.mark.parametrize(("cause", "known"), [("disposed", True), ("user", False)])
def test_ADJ_4_dsh_leaves_a_message_waiting_only_after_a_disposed_abort(
    cause: str, known: bool
) -> None:
    """ADJ-4: dsh requests no wake-up after an abort whose cause is `disposed`, so a message
    sent while that turn drained opens the next turn without the SubmitUser's own message
    (`disposed-abort-input-waits`, found by conform on dsh 0.1.0-rc.8 and blamed ADJ-4 where
    `aborted-body-context-kept` came along). After any other cause dsh opens that turn by
    itself (`submit-while-aborting-starts-turn`): the same difference there is a bug, whose
    words name the prompt's own message left out (they said "a message queued while the last
    turn ran ... is parked", of the message the target did deliver)."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", gen.ARGUMENTS["read"][0]),)),
        Abort(cause),
        SubmitUser("sent while the turn drains"),
        ToolFinishes("c1", ToolSucceeded("A")),
        SubmitUser("next"),
    ]
    replay = replay_case(LeavesItsMessageWaitingAfterAnAbort, gen.CONFIGS[0], program, DSH)
    assert (replay.divergence is None) is known, replay.divergence
    assert ("disposed-abort-input-waits" in replay.known) is known
    if replay.divergence is not None:  # named as the prompt's own, not as the parked one
        assert 'the prompt\'s own message, "next": the messages the last turn left queued' in (
            replay.divergence.what
        )


class RefusesEveryOutcome(ModelTarget):
    """The model, but every tool outcome is refused."""

    name = "refuses-every-outcome"

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ToolFinishes):
            return Observation(False, refusal_rule="EXE-4", refusal_message="not running")
        return super().apply(command)


class RedeliversContextsAfterAnAbort(ModelTarget):
    """The model, but the first turn after an aborted one opens with every tool context the
    session has delivered so far, again (an abort that replays the context queue)."""

    name = "redelivers-contexts-after-an-abort"

    def __init__(self) -> None:
        super().__init__()
        self._aborted = False
        self._contexts: list[dict[str, object]] = []

    def apply(self, command: Command) -> Observation:
        observation = super().apply(command)
        events = list(observation.events)
        self._contexts += [e for e in events if _is_tool_context(e)]
        ends = [e for e in events if e["type"] == "turn/end"]
        if ends:
            self._aborted = ends[-1]["data"]["reason"]["kind"] == "aborted"
        opened = any(e["type"] == "turn/start" for e in events)
        if not (isinstance(command, SubmitUser) and opened and self._aborted):
            return observation
        self._aborted = False
        seq = events[-1]["seq"]
        again = [{**e, "seq": seq + 1 + n} for n, e in enumerate(self._contexts)]
        joined = (*events, *again)
        return attrs.evolve(observation, events=joined, commits=(len(joined),))


def _is_tool_context(event: dict[str, object]) -> bool:
    data = event["data"]
    assert isinstance(data, dict)
    return event["type"] == "user/message" and data["source"].get("plugin") == "tool-context"


def test_ADJ_4_only_the_aborted_turn_s_contexts_are_excused_after_it() -> None:
    """ADJ-4: dsh's `aborted-body-context-kept` describes the contexts of calls settled around
    an abort reaching the next turn otherwise than in the model. Its symptom excused any tool
    context that differed there, so a loop that delivers an earlier turn's context again after
    an abort passed under dsh's profile."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", gen.ARGUMENTS["read"][0]),)),
        ToolFinishes("c1", ToolSucceeded("A", contexts=("from the first turn",))),
        ModelReplies((TextBlock("ok"),)),
        SubmitUser("two"),
        ModelReplies((ToolCallBlock("c2", "read", gen.ARGUMENTS["read"][1]),)),
        Abort("user"),
        ToolFinishes("c2", ToolSucceeded("B")),
        SubmitUser("next"),
        ModelReplies((TextBlock("ok"),)),
    ]
    replay = replay_case(RedeliversContextsAfterAnAbort, gen.CONFIGS[0], program, DSH)
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "ADJ-4", replay.divergence.what


class WordsEveryBlockAlike(ModelTarget):
    """The model, but a result its PostToolUse hooks blocked says one fixed text, whatever
    reasons the hooks gave."""

    name = "words-every-block-alike"

    def apply(self, command: Command) -> Observation:
        observation = super().apply(command)
        blocked = {
            e["data"].get("callId")
            for e in observation.events
            if e["type"] == "hook/result" and e["data"].get("decision") == "block"
        }
        events = [copy.deepcopy(event) for event in observation.events]
        for event in events:
            if event["type"] == "tool/result":
                block = event["data"]["message"]["content"][0]
                if block["toolCallId"] in blocked:
                    block["content"] = [{"type": "text", "text": "Error: withheld"}]
        return attrs.evolve(observation, events=tuple(events))


def test_DEC_3_claude_code_keeps_only_the_body_s_own_output() -> None:
    """DEC-3: Claude Code lets a result its PostToolUse hook blocked through with the body's
    output (the reason follows as a system reminder). Its symptom excused any text other than
    the reasons, so a loop that words every blocked result alike, dropping the reasons for a
    text of its own, passed under the claude-code profile."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", gen.ARGUMENTS["read"][0]),)),
        ToolFinishes("c1", ToolSucceeded("A"), post=(PostBlock("output withheld"),)),
        ModelReplies((TextBlock("done"),)),
    ]
    replay = replay_case(WordsEveryBlockAlike, gen.CONFIGS[1], program, PROFILES["claude-code"])
    assert replay.stopped_by is None
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "DEC-3", replay.divergence.what


class UnknownToolAsInvalidInput(ModelTarget):
    """The model, but a call to a tool the loop does not have is answered as invalid input
    (INVALID_TOOL_INPUT, 'Error: invalid input'), where the model says unknown tool."""

    name = "unknown-tool-as-invalid-input"

    def apply(self, command: Command) -> Observation:
        observation = super().apply(command)
        events = [copy.deepcopy(event) for event in observation.events]
        for event in events:
            error = event["data"].get("error") if event["type"] == "tool/result" else None
            if error is not None and error.get("code") == "UNKNOWN_TOOL":
                event["data"]["error"] = {
                    "name": "InvalidToolInputError",
                    "code": "INVALID_TOOL_INPUT",
                }
                block = event["data"]["message"]["content"][0]
                block["content"] = [{"type": "text", "text": "Error: invalid input"}]
        return attrs.evolve(observation, events=tuple(events))


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_EXE_5_only_a_call_the_cli_runs_is_its_adapter_s_limit(harness: str) -> None:
    """EXE-5: under the CLIs' profiles a call the model settles without running (an unknown
    tool) cuts the program where the CLI runs it instead (`shell-mapped-tools`, an adapter
    limit). The symptom cut wherever the loop did not settle it with the model's code, so a
    loop that settles it with another code passed under both profiles."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "missing_tool", gen.ARGUMENTS["missing_tool"][0]),)),
        ModelReplies((TextBlock("done"),)),
    ]
    replay = replay_case(UnknownToolAsInvalidInput, gen.CONFIGS[0], program, PROFILES[harness])
    assert replay.stopped_by is None
    assert replay.divergence is not None
    # Reported at the reply, and blamed as without a profile: TEXT-1's eraser drops a
    # result's error code (a shell command cannot carry one), which tells EXE-5, but the loop
    # shows no TEXT-1 wording, so blame leaves it in.
    assert replay.divergence.index == 1, replay.divergence.what
    assert replay.divergence.rule_id == "EXE-5", replay.divergence.what
    assert "UNKNOWN_TOOL" in replay.divergence.what, replay.divergence.what


class HooksEveryCallAtItsGate(ModelTarget):
    """The model, but at each call's start the loop runs the `guard` hook again, whatever the
    call's tool: its matcher ('bash|write') is not read."""

    name = "hooks-every-call-at-its-gate"

    def __init__(self) -> None:
        super().__init__()
        self._shift = 0  # the audit events added so far: later seqs move up by as many

    def apply(self, command: Command) -> Observation:
        observation = super().apply(command)
        out: list[dict[str, object]] = []
        for event in observation.events:
            out.append({**event, "seq": event["seq"] + self._shift})
            if event["type"] != "tool/call":
                continue
            data = event["data"]
            audit = {"turn": data["turn"], "point": "PreToolUse", "callId": data["callId"]}
            invoked = {**audit, "dialect": "claude-code", "handlerId": "guard"}
            invoked["matcher"] = "bash|write"
            result = {**audit, "handlerId": "guard", "decision": "pass", "durationMs": 0}
            for kind, body in (("hook/invoked", invoked), ("hook/result", result)):
                self._shift += 1
                out.append({**event, "type": kind, "seq": event["seq"] + self._shift, "data": body})
        commits = (len(out),) if len(out) != len(observation.events) else observation.commits
        return attrs.evolve(observation, events=tuple(out), commits=commits)


def test_HOOK_8_only_an_unanchored_match_is_excused_at_the_gate() -> None:
    """HOOK-8: dsh's `pre-hook-matcher-unanchored` describes a hook whose matcher fits part of
    a tool's name ('read' for 'read_more') running at the call's gate. Its symptom excused any
    hook run at a gate beyond the model's, so a loop that runs a hook whose matcher fits no
    part of the name passed under dsh's profile."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", gen.ARGUMENTS["read"][0]),)),
        ToolFinishes("c1", ToolSucceeded("A"), post=(PostPass(),)),
        ModelReplies((TextBlock("done"),)),
    ]
    replay = replay_case(HooksEveryCallAtItsGate, gen.CONFIGS[1], program, DSH)
    assert replay.stopped_by is None
    assert replay.divergence is not None
    # Reported, and blamed as without a profile (HOOK-8, the hook and its matcher): dsh's
    # hook-audit-shape erases the callId a hook event names, but the loop names it as the
    # model does, so blame leaves that eraser out.
    assert replay.divergence.index == 2, replay.divergence.what
    assert replay.divergence.rule_id == "HOOK-8", replay.divergence.what
    assert '"bash|write"' in replay.divergence.what, replay.divergence.what
    erased = "with none of the dsh profile's known divergences erased, as leaving them in adds"
    assert erased in replay.divergence.what, replay.divergence.what


class CountsPostHooksUnanchored(ModelTarget):
    """The model, except that it refuses a call's outcome sent without PostToolUse verdicts as
    dsh's adapter does where its bridge counts a hook the model does not (HOOK-5)."""

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ToolFinishes) and not command.post:
            return Observation(False, refusal_rule="HOOK-5", refusal_message="1 hook, 0 verdicts")
        return super().apply(command)


@pytest.mark.parametrize(
    ("matcher", "excused"),
    [("read", True), ("grep", False)],
    ids=["matcher fits the name in part", "matcher fits no part of the name"],
)
def test_HOOK_8_HOOK_5_a_post_hook_matched_unanchored_is_dsh_known(
    matcher: str, excused: bool
) -> None:
    """HOOK-8, HOOK-5: dsh's bridge matches a PostToolUse matcher unanchored too ('read' for
    tool 'preread'), so its adapter refuses a call's outcome that carries the model's count of
    verdicts (none). Conform's dsh test found it once the draws gave such a hook (session 39),
    blaming STEP-4 for commit markers; a refusal where the matcher fits no part of the name
    is still a divergence."""
    config = LoopConfig(
        tools=(ToolSpec("preread", concurrency_safe=True, required_keys=("file_path",)),),
        hooks=(HookSpec("audit", "PostToolUse", matcher),),
    )
    program: list[Command] = [
        SubmitUser(""),
        ModelReplies((ToolCallBlock("c1", "preread", '{"file_path":""}'),)),
        ToolFinishes("c1", ToolSucceeded("")),
    ]
    replay = replay_case(CountsPostHooksUnanchored, config, program, DSH)
    if excused:
        assert replay.divergence is None
        assert replay.stopped_by is not None
    else:
        assert replay.divergence is not None


class RejectsUnlosslessArgumentsAsDsh(ModelTarget):
    """The model, except that a call whose arguments hold no lossless JSON value (-0.0, 1e400)
    ends as dsh 0.1.0-rc.8 ends it: parsed, past its argument validation, failed unrun with
    its own words and no code."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        # Its history would carry the model's results: not what is compared here.
        return super().reset(config) - {"history"}

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = [self._as_dsh(event) for event in observed.events]
        return attrs.evolve(observed, events=tuple(events))

    @staticmethod
    def _as_dsh(event: dict[str, Any]) -> dict[str, Any]:
        # c3's NaN is no JSON at all: dsh's argument validation refuses it as the profile knows.
        if event["type"] != "tool/result" or result_call(event) == "c3":
            return event
        changed = with_result_text(event, UNLOSSLESS_ARGUMENTS)
        changed["data"].pop("error", None)
        return changed


def test_EXE_2_dsh_failing_arguments_without_a_lossless_value_is_its_invalid_input_error() -> None:
    """EXE-2: the model keeps arguments holding -0.0 or 1e400 as their raw string, not an
    object (INVALID_TOOL_INPUT); dsh reads them as JSON.parse does and fails the call unrun
    in words of its own, with no code. The targeted program of that situation, played under
    the dsh profile on real dsh, was a counterexample (EXE-4); it is the profile's
    invalid-input-error."""
    (situation,) = [s for s in SITUATIONS if "lossless" in s.name]
    replay = replay_case(
        RejectsUnlosslessArgumentsAsDsh,
        situation.config,
        list(settled_program(situation)),
        DSH,
    )
    assert replay.divergence is None, replay.divergence
    assert "invalid-input-error" in replay.known


class ExitsLeavingItsCallUnanswered(ModelTarget):
    """The model, but an abort while a call runs ends the turn at once (step/end, turn/end
    aborted by the user) leaving the call unanswered and writing nothing else: Claude Code
    2.1.332, whose exit on SIGINT does not wait for its file pool threads, which write the
    call's answer and the interrupt's notice."""

    name = "exits-leaving-its-call-unanswered"

    def apply(self, command: Command) -> Observation:
        phase = self.state.phase if self.state is not None else None
        running = [
            slot.call_id
            for slot in (phase.slots if isinstance(phase, Dispatching) else ())
            if slot.status == RUNNING
        ]
        if not isinstance(command, Abort) or not running:
            return super().apply(command)
        super().apply(command)
        every: list[dict[str, Any]] = []
        for call_id in running:  # the model drains it: its turn's end, without the result
            every.extend(super().apply(ToolFinishes(call_id, ToolSucceeded(""))).events)
        events = [dict(e) for e in every if e["type"] in ("step/end", "turn/end")]
        first = min(int(e["seq"]) for e in every)
        for offset, event in enumerate(events):
            event["seq"] = first + offset
        return Observation(True, events=tuple(events), commits=(len(events),))


_ABORT_OVER_A_RUNNING_CALL: list[Command] = [
    SubmitUser("hi"),
    ModelReplies((TextBlock("go"), ToolCallBlock("c1", "bash", '{"command":"ls"}'))),
    Abort(),
    ToolFinishes("c1", ToolSucceeded("a.txt")),
]


def test_ABORT_1_claude_code_leaving_a_running_call_unanswered_at_its_exit_is_known() -> None:
    """ABORT-1: interrupted while a call runs, Claude Code 2.1.332 exits now and then before it
    has answered the call or written its notice (its exit does not wait for the file pool
    threads that write them): 1 of 20 unforced aborts at load 7.5 on 2 cores, 2026-12-05; every
    time with those threads held, tests/test_real_harness_abort.py). The call stays unanswered
    until the next turn, where the model lets it drain: Claude Code's profile knows it, and was
    blaming it on ADJ-3. Codex's profile does not (Codex answers a running call it kills)."""
    replay = replay_case(
        ExitsLeavingItsCallUnanswered,
        gen.CONFIGS[0],
        _ABORT_OVER_A_RUNNING_CALL,
        PROFILES["claude-code"],
    )
    assert replay.divergence is None, replay.divergence
    assert replay.stopped_by == "ABORT-1:unanswered-at-exit"
    codex = replay_case(
        ExitsLeavingItsCallUnanswered, gen.CONFIGS[0], _ABORT_OVER_A_RUNNING_CALL, PROFILES["codex"]
    )
    assert codex.divergence is not None


class RejectsAHookedReplyLastFirst(ModelTarget):
    """The model, but a reply whose PreToolUse hooks run is logged at once (its reply and a
    record per call: Claude Code writes them before the hooks, RW-3), and an abort there
    rejects each of its calls, the last first, then writes the interrupt's notice: Claude Code
    2.1.332 interrupted as a read's hook ran beside a grep it had started (the grep's body
    killed first), 11 of 13 replays of that case, 2026-12-05."""

    name = "rejects-a-hooked-reply-last-first"

    def __init__(self) -> None:
        super().__init__()
        self._seq = 0
        self._kept: tuple[ToolCallBlock, ...] = ()
        self._records: dict[str, int] = {}  # each call's tool/call seq

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self._seq, self._kept, self._records = 0, (), {}
        # Its history would lack the kept calls the log holds: not what is compared here.
        return super().reset(config) - {"history"}

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = [dict(e) for e in observed.events]
        where = {"turn": 1, "step": 1}
        hooks_run = self.state is not None and isinstance(self.state.phase, Rewriting)
        if isinstance(command, ModelReplies) and hooks_run:
            self._kept = command.tool_calls
            blocks = [attrs.asdict(call) | {"type": "tool-call"} for call in self._kept]
            message = {"role": "assistant", "content": blocks, "source": {"kind": "model"}}
            events = [
                {"type": "assistant/message", "data": where | {"message": message}} | _APPENDED,
                *(
                    {
                        "type": "tool/call",
                        "data": where | {"callId": c.id, "name": c.name, "arguments": c.arguments},
                    }
                    for c in self._kept
                ),
            ]
        elif isinstance(command, Abort) and self._kept:
            notice = {"role": "user", "content": [{"type": "text", "text": "[interrupted]"}]}
            rejections = [_rejection(c.id, self._records[c.id], where) for c in self._kept[::-1]]
            events = [
                *rejections,
                {"type": "user/message", "data": notice | {"source": {"kind": "user"}}} | _APPENDED,
                *events,
            ]
            self._kept = ()
        for event in events:
            event["seq"], event["time"] = self._seq, 1_700_000_000_000 + self._seq
            if event["type"] == "tool/call":
                self._records[event["data"]["callId"]] = self._seq
            self._seq += 1
        return attrs.evolve(observed, events=tuple(events), commits=(len(events),) * bool(events))


def _rejection(call_id: str, record: int, where: dict[str, int]) -> dict[str, Any]:
    text = [{"type": "text", "text": "rejected by the user"}]
    block = {"type": "tool-result", "toolCallId": call_id, "content": text, "isError": True}
    message = {"role": "user", "content": [block], "source": {"kind": "tool", "callId": call_id}}
    sources = {"sourceEventSeqs": [record]}
    return {"type": "tool/result", "data": where | {"message": message}} | sources | _APPENDED


_APPENDED = {"surfaceOp": "append"}


_READ_HOOKED = LoopConfig(
    tools=(
        ToolSpec("read", concurrency_safe=True, required_keys=("file_path",)),
        ToolSpec("grep", concurrency_safe=True, required_keys=("pattern",)),
        ToolSpec("bash", required_keys=("command",)),
    ),
    hooks=(HookSpec("read-audit", matcher="read"),),
    max_parallel=2,
)


def _aborted_as_hooks_run(first: ToolCallBlock, second: ToolCallBlock) -> list[Command]:
    return [SubmitUser("ok"), ModelReplies((first, second)), Abort()]


def test_ABORT_2_ORD_3_claude_code_rejecting_kept_reads_as_they_end_is_known() -> None:
    """ABORT-2, ORD-3: interrupted while a read's PreToolUse hook ran beside a grep it had
    started, Claude Code 2.1.332 keeps both calls (ABORT-2) and rejects them in the order the
    interrupt ends them, the grep's first, as it logs parallel reads' results (ORD-3): README's
    `conform --profile claude-code` run ended in that ORD-3 counterexample. Its profile's
    `ABORT-2:completion-order` knows it; with a call that writes before the read (Claude Code
    runs such a call alone), or under Codex's profile (Codex writes a reply's answers in call
    order), it is still ORD-3."""
    read, grep = (
        ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),
        ToolCallBlock("c2", "grep", '{"pattern":"x"}'),
    )
    reads = _aborted_as_hooks_run(read, grep)
    replay = replay_case(RejectsAHookedReplyLastFirst, _READ_HOOKED, reads, PROFILES["claude-code"])
    assert replay.divergence is None, replay.divergence and replay.divergence.what
    assert replay.stopped_by == "ABORT-2:completion-order"
    codex = replay_case(RejectsAHookedReplyLastFirst, _READ_HOOKED, reads, PROFILES["codex"])
    assert codex.divergence is not None
    assert codex.divergence.rule_id == "ORD-3"
    bash, later_read = ToolCallBlock("c1", "bash", '{"command":"ls"}'), attrs.evolve(read, id="c2")
    writes = _aborted_as_hooks_run(bash, later_read)
    wrong = replay_case(RejectsAHookedReplyLastFirst, _READ_HOOKED, writes, PROFILES["claude-code"])
    assert wrong.divergence is not None
    assert wrong.divergence.rule_id == "ORD-3"


class RejectsRunningReadsLastFirst(ModelTarget):
    """The model, but an abort rejects at once every call of the reply still unanswered, the
    last first, those it runs and those it queues past its cap alike: Claude Code 2.1.332
    interrupted as two reads and a grep ran (it runs read-only calls together past its cap),
    the last read's rejection first in 4 of 6 replays of
    tests/regressions/claude-code-ABORT-1-completion-order.json, 2026-12-06."""

    name = "rejects-running-reads-last-first"

    def apply(self, command: Command) -> Observation:
        before = self.state
        observed = super().apply(command)
        if not isinstance(command, Abort) or before is None:
            return observed
        waiting: dict[str, int] = {}  # the reply's unanswered calls, each with its record's seq
        where: dict[str, int] = {}
        for seq, event in enumerate(event_to_wire(e) for e in before.log):
            if event["type"] == "tool/call":
                waiting[event["data"]["callId"]] = seq
                where = {"turn": event["data"]["turn"], "step": event["data"]["step"]}
            elif event["type"] == "tool/result":
                waiting.pop(result_call(event), None)
        events = [_rejection(call, record, where) for call, record in reversed(waiting.items())]
        for seq, event in enumerate(events, start=len(before.log)):
            event["seq"], event["time"] = seq, 1_700_000_000_000 + seq
        return attrs.evolve(observed, events=tuple(events), commits=(len(events),) * bool(events))


_READS_UNHOOKED = attrs.evolve(_READ_HOOKED, hooks=())


def test_ABORT_1_ORD_3_claude_code_rejecting_running_reads_as_they_end_is_known() -> None:
    """ABORT-1, ORD-3: interrupted as a reply's two reads ran and its third read waited past
    the cap (in the model), Claude Code 2.1.332, which runs them all, rejects them in the order
    the interrupt ends them, the last first: conform --profile claude-code ended in that ORD-3
    counterexample (seed 3711, 2026-12-06), which ABORT-2:completion-order knew only of calls
    whose hooks ran. Its profile's `ABORT-1:completion-order` knows it; with a call that writes
    among them, or under Codex's profile, it is still ORD-3."""
    first, last = (
        ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),
        ToolCallBlock("c3", "read", '{"file_path":"b.txt"}'),
    )
    reads: list[Command] = [
        SubmitUser("ok"),
        ModelReplies((first, ToolCallBlock("c2", "grep", '{"pattern":"x"}'), last)),
        Abort(),
    ]
    profile = PROFILES["claude-code"]
    replay = replay_case(RejectsRunningReadsLastFirst, _READS_UNHOOKED, reads, profile)
    assert replay.divergence is None, replay.divergence and replay.divergence.what
    assert replay.stopped_by == "ABORT-1:completion-order"
    codex = replay_case(RejectsRunningReadsLastFirst, _READS_UNHOOKED, reads, PROFILES["codex"])
    assert codex.divergence is not None
    assert codex.divergence.rule_id == "ORD-3"
    bash = ToolCallBlock("c2", "bash", '{"command":"ls"}')
    writes: list[Command] = [SubmitUser("ok"), ModelReplies((first, bash, last)), Abort()]
    wrong = replay_case(RejectsRunningReadsLastFirst, _READS_UNHOOKED, writes, profile)
    assert wrong.divergence is not None
    assert wrong.divergence.rule_id == "ORD-3"
