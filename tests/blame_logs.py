"""The hand-written logs under tests/fixtures/logs/blame/ and what `check` blames in one: the
helpers the tests that read them share (test_check_blame, test_check_blame_spec_reading)."""

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
