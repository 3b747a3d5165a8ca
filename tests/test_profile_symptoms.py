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

from loopspec.model.commands import Command, ModelFails, ModelReplies, SubmitUser
from loopspec.model.messages import TextBlock
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
