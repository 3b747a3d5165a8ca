"""`loopspec check` on hand-written logs whose verdict SPEC.md's words decide, for the rules of
the log and the loop's structure (LOG, TURN, STEP, ORD, ADJ, ABORT, REC): session 21's reading
of the spec by a harness author who knows only SPEC.md and docs/.

Each log is under tests/fixtures/logs/blame/ (see its README): each test is a case where the
checker's verdict differed from what SPEC.md says, fixed since.
"""

from __future__ import annotations

from blame_logs import BLAME, blamed, check


def test_ORD_2_a_record_after_a_reply_that_makes_no_calls_is_blamed_on_ORD_2() -> None:
    """ORD-2: each tool/call records a call of the step's reply; ORD-1 only asks that it come
    after the reply. A tool/call after a reply that makes no calls (an interrupted one, which
    keeps only its text, ABORT-2) was blamed on ORD-1 as coming "before the step's reply named
    it", though the reply came first: the record names a call the reply does not make. A
    record before any reply is still ORD-1's."""
    report = check(BLAME / "violations" / "ORD-2-record-of-an-interrupted-reply.jsonl")
    assert blamed(report) == [("ORD-2", 6)]
    (found,) = report.violations
    assert found.violation.related == (3,)  # the reply
    assert "makes no tool calls" in found.violation.message
    report = check(BLAME / "violations" / "ORD-1-record-before-the-reply.jsonl")
    assert blamed(report) == [("ORD-1", 5)]
