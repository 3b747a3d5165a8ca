"""The turn and step numbers that were due (`Prefix.*_due`, TURN-1 and STEP-1 blamed once): the
fast paths `start_turn`, `end_turn` and `start_step` take when the numbers agree leave the same
state as the rule written out in full, on any sequence of numbers, wrong ones included.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopspec.model.prefix import Prefix

PROFILE = settings()


class Numbering:
    """The due numbering written out in full, for every event alike."""

    def __init__(self) -> None:
        self.open_turn: int | None = None
        self.next_turn = 1
        self.open_step: int | None = None
        self.next_step = 1
        self.open_turn_due: int | None = None
        self.next_turn_due: int | None = None
        self.open_step_due: int | None = None
        self.next_step_due: int | None = None

    def start_turn(self, turn: int | None) -> None:
        due = turn if turn == self.next_turn_due else self.next_turn
        self.open_turn_due = due if turn != due and self.open_turn is None else None
        self.open_step_due = self.next_step_due = None
        self.open_turn, self.open_step, self.next_step = turn, None, 1

    def end_turn(self, turn: int | None) -> None:
        given = self.open_turn
        self.open_turn, self.open_step = None, None
        self.next_turn = (turn or self.next_turn) + 1
        other = self.open_turn_due if turn == given else given
        self.next_turn_due = other + 1 if other is not None and turn is not None else None
        self.open_turn_due = self.open_step_due = self.next_step_due = None

    def start_step(self, step: int | None) -> None:
        due = step if step is not None and step == self.next_step_due else self.next_step
        wrong = step is not None and step != due and self.open_step is None
        self.open_step_due = due if wrong else None
        self.next_step_due = due + 1 if wrong else None
        self.open_step = step
        self.next_step = (step or self.next_step) + 1

    def end_step(self) -> None:
        self.open_step_due = None
        self.open_step = None


def _numbers(state: Prefix | Numbering) -> tuple[int | None, ...]:
    return (
        state.open_turn,
        state.next_turn,
        state.open_step,
        state.next_step,
        state.open_turn_due,
        state.next_turn_due,
        state.open_step_due,
        state.next_step_due,
    )


numbers = st.none() | st.integers(0, 4)
events = st.lists(
    st.tuples(st.sampled_from(["turn/start", "turn/end", "step/start", "step/end"]), numbers),
    max_size=30,
)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(PROFILE, max_examples=PROFILE.max_examples * 5)
@given(events)
def test_TURN_1_STEP_1_due_numbers_follow_the_rule_on_any_numbering(
    sequence: list[tuple[str, int | None]],
) -> None:
    prefix, reference = Prefix(), Numbering()
    for seq, (kind, number) in enumerate(sequence):
        if kind == "turn/start":
            prefix.start_turn(number)
            reference.start_turn(number)
        elif kind == "turn/end":
            prefix.end_turn(number)
            reference.end_turn(number)
        elif kind == "step/start":
            prefix.start_step(number)
            reference.start_step(number)
        else:
            prefix.end_step(seq)
            reference.end_step()
        assert _numbers(prefix) == _numbers(reference), (seq, kind, number)
