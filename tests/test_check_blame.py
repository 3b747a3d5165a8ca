"""`loopspec check` blames the rule a log really broke, at the line that broke it.

The logs under tests/fixtures/logs/blame/ were written by hand from SPEC.md alone, each the
smallest log that breaks one rule (`violations/`) or a near miss that keeps every rule
(`valid/`), in an audit of the checker's blame (see that folder's README). Each test here is
a case the checker got wrong before its fix.
"""

from __future__ import annotations

from pathlib import Path

from check_fixtures import FIXTURES

from loopspec.properties.logcheck.checker import LogReport, check_paths

BLAME = FIXTURES / "blame"


def check(path: Path) -> LogReport:
    """The report of one fixture."""
    (report,) = check_paths([str(path)])
    return report


def blamed(report: LogReport) -> list[tuple[str, int | None]]:
    """(rule, line) of each violation and error, in the order reported."""
    found: list[tuple[str, int | None]] = [(f.violation.rule_id, f.line) for f in report.violations]
    found += [(e.rule_id or "", e.line) for e in report.errors]
    return found


def test_ORD_1_a_second_reply_without_calls_is_blamed() -> None:
    """ORD-1: a step has at most one assistant/message, also when neither carries a call; the
    second reply is the line that breaks it."""
    report = check(BLAME / "violations" / "ORD-1-two-text-replies.jsonl")
    assert blamed(report) == [("ORD-1", 6)]
