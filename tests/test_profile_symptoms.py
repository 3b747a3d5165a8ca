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

import attrs

from loopspec.model.commands import (
    Abort,
    Command,
    Crash,
    ModelFails,
    ModelReplies,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles.dsh import PROFILE as DSH
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
