"""A choice Hypothesis replays where another bound is drawn keeps its share of the options.

Every choice of a conformance program is an index below a bound (`swarm.Choose`), and the
generator's weights are written as how many of a pick's options are each kind (`("abort",
"abort", drawn)`: an abort in two of three). Hypothesis replays recorded choices where other
draws now come: it splices one part of a program into another, and a program's bounds follow
its state. Drawn below each bound, a replayed choice larger than the new bound did not fit and
Hypothesis made it index 0: a choice drawn below 12 and read below 3 was index 0 in 10 of 12.
Every choice is now drawn in one range (`machine.CHOICE_RANGE`) and scaled to its bound, so a
replayed choice always fits and keeps its place. (One where Hypothesis's own draw was, its
boolean between steps, still becomes index 0: that excess stays.)
"""

from __future__ import annotations

from collections import Counter
from random import Random

from hypothesis import strategies as st
from hypothesis.internal.conjecture.data import ConjectureData

from loopspec.properties.conformance import machine

DRAWS = 600


def _replayed(recorded_below: int, read_below: int) -> Counter[int]:
    """The indices below `read_below` that choices drawn below `recorded_below` become when
    Hypothesis replays them there, over DRAWS fresh draws."""
    indices: Counter[int] = Counter()
    for seed in range(DRAWS):
        fresh = ConjectureData(random=Random(seed))
        machine._chooser(st.DataObject(fresh))(recorded_below)
        replay = ConjectureData.for_choices(fresh.choices)
        indices[machine._chooser(st.DataObject(replay))(read_below)] += 1
    return indices


def test_MODEL_1_a_replayed_choice_keeps_its_share_under_another_bound() -> None:
    """Choices drawn below 12 (the model request's failure, the reply's shape) and read below 3
    (a step's kind) are each index as often as the others, not mostly index 0."""
    indices = _replayed(12, 3)
    shares = [indices[index] / DRAWS for index in range(3)]
    assert all(0.25 <= share <= 0.42 for share in shares), shares
