"""check and conform name the same rule for the same fault.

A person who finds a fault with `loopspec conform` and then runs `loopspec check` on the log
the loop wrote (or the other way round) must see the same rule named first. Each row is a
wrong loop of an earlier round whose own log shows the fault: conform's report on its program,
and check's on the log its target wrote for it, name the row's rule, and both say `phrase`.
Where they disagreed: crash repair's results out of order, citing no tool/call, answering a
call twice, in the wrong step, or its turn/end with a step open (check named ORD-3, ORD-2,
ADJ-2, STEP-3, TURN-2; conform REC-1); an abort's drain leaving a call unanswered (check ADJ-3,
conform ABORT-1); an abort's cancelled approval written after its step (check DEC-2, conform
ABORT-3). `model.invariants` now names them so for both.
"""

from __future__ import annotations

import pytest
import test_blame_fresh_bugs as round_1
import test_blame_fresh_bugs_round3 as round_3
import test_blame_fresh_bugs_round5 as round_5
from fresh_bugs import FreshBug, blamed, own_log_checked, row_named
from test_blame_fresh_bugs_round12 import GATE_CALL_LEFT_UNANSWERED
from test_blame_fresh_bugs_round14 import APPROVAL_CANCELLED_AFTER_THE_STEP

AGREEING: list[tuple[FreshBug, str]] = [
    (
        row_named(round_1.PROGRAMS, "crash repair answers the open step's calls in reverse"),
        "crash repair breaks ORD-3 at its result: result for c2 (call #2) before any for c1",
    ),
    (
        row_named(round_1.PROGRAMS, "crash repair closes the turn without"),
        "crash repair breaks TURN-2 at its turn/end {interrupted}: turn/end while step 1 is open",
    ),
    (
        row_named(round_3.PROGRAMS, "crash repair's results cite no tool/call"),
        "crash repair breaks ORD-2 at its result: result for c1 does not cite its tool/call",
    ),
    (
        row_named(round_3.PROGRAMS, "crash repair answers a call already answered"),
        "crash repair breaks ADJ-2 at its result: a second result for c1",
    ),
    (
        row_named(round_5.PROGRAMS, "crash repair names the open step"),
        "crash repair breaks STEP-3 at its result",
    ),
    (GATE_CALL_LEFT_UNANSWERED, "ABORTED_BEFORE_DISPATCH"),
    (
        APPROVAL_CANCELLED_AFTER_THE_STEP,
        "an abort's cancelled approval is written when the abort lands",
    ),
]


@pytest.mark.parametrize(
    ("row", "phrase"), AGREEING, ids=[f"{row[4]} {row[0]}" for row, _ in AGREEING]
)
def test_REC_1_ABORT_1_ABORT_3_check_names_first_the_rule_conform_names(
    row: FreshBug, phrase: str
) -> None:
    """REC-1, ABORT-1, ABORT-3: check's first violation on the target's own log is the rule
    conform's report names, the row's, and both say `phrase`."""
    divergence = blamed(*row[1:4])
    found = own_log_checked(row)
    assert found, "check found nothing in the target's log"
    rule, words = found[0]
    assert (divergence.rule_id, rule) == (row[4], row[4]), (divergence.what, found)
    assert phrase in words, words
    assert phrase in divergence.what, divergence.what
