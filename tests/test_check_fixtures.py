"""`loopspec check` on the project's own fixture logs: one per rule, valid ones, bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from check_fixtures import FIXTURES, all_fixtures

from loopspec.model.invariants import rule_ids
from loopspec.properties.logcheck.checker import (
    ErrorKind,
    LogReport,
    NoticeKind,
    check_paths,
    check_stream,
)
from loopspec.properties.logcheck.rule_examples import RULE_BREAKERS

VALID = sorted((FIXTURES / "valid").glob("*.jsonl"))
RULE_FIXTURES = sorted((FIXTURES / "violations").glob("*.jsonl"))


def check(path: Path) -> LogReport:
    """The report of one fixture."""
    (report,) = check_paths([str(path)])
    return report


def test_fixtures_are_what_the_generator_builds() -> None:
    """The fixture files are generated from the model; rerun tests/check_fixtures.py if not."""
    expected = all_fixtures()
    # claude-code/ and codex/ hold hand-written logs of other dialects (tests/test_harness_logs.py);
    # blame/ hand-written dsh logs of an audit of what check blames (tests/test_check_blame.py).
    hand_written = {"claude-code", "codex", "blame"}
    on_disk = {
        str(path.relative_to(FIXTURES)): path.read_bytes()
        for path in FIXTURES.rglob("*")
        if path.is_file() and path.relative_to(FIXTURES).parts[0] not in hand_written
    }
    assert on_disk == expected


def test_every_invariant_rule_has_a_fixture_that_breaks_it() -> None:
    """Each rule the invariant registry enforces has violations/RULE.jsonl."""
    assert {path.stem for path in RULE_FIXTURES} == set(rule_ids()) == set(RULE_BREAKERS)


@pytest.mark.parametrize("path", RULE_FIXTURES, ids=lambda path: path.stem)
def test_each_rule_fixture_yields_exactly_its_rule(path: Path) -> None:
    """LOG-1, LOG-2, LOG-7, TURN-1, TURN-2, TURN-3, STEP-1, STEP-2, STEP-3, ORD-1, ORD-2, ORD-3,
    EXE-1, RW-1, RW-2, RW-3, RW-4, ADJ-1, ADJ-2, ADJ-3, HOOK-1, HOOK-4, HOOK-5, DEC-1,
    DEC-2, ABORT-2, REC-1:
    violations/RULE.jsonl breaks RULE once and nothing else, and it is read without errors."""
    report = check(path)
    assert [found.violation.rule_id for found in report.violations] == [path.stem]
    assert report.status == "violations"
    assert not report.errors


@pytest.mark.parametrize("path", VALID, ids=lambda path: path.stem)
def test_valid_fixtures_keep_every_rule(path: Path) -> None:
    """Logs the model wrote — plain, dressed as a real harness writes them (compact chunk rows,
    plugin events, placeholders), or with a crash tail — give no violation and no error."""
    report = check(path)
    assert report.violations == []
    assert report.errors == []
    assert report.status == "ok"
    assert report.events > 0


def test_REC_2_crash_tail_is_a_notice_not_a_violation() -> None:
    """REC-2: a log whose last turn is open needs repair; it is reported as a notice at the
    line of the open turn's turn/start, and the log still passes."""
    report = check(FIXTURES / "valid" / "crash-tail.jsonl")
    (notice,) = report.notices
    assert (notice.kind, notice.rule_id) == (NoticeKind.CRASH_TAIL, "REC-2")
    lines = (FIXTURES / "valid" / "crash-tail.jsonl").read_text().splitlines()
    assert notice.line is not None
    assert '"turn/start"' in lines[notice.line - 1]
    assert f'"seq": {notice.seq},' in lines[notice.line - 1]


def test_REC_1_pruned_repair_result_is_not_a_repair() -> None:
    """REC-1: a later replacement of a repair result keeps its TOOL_OUTCOME_UNKNOWN code while its
    call lies in an earlier step; only appended results are judged as repairs. The replacement
    is written when turn 4 opens, under an id of its own (it kept the repair result's time,
    before turn 4's start, and its id)."""
    path = FIXTURES / "valid" / "pruned-repair-result.jsonl"
    assert check(path).status == "ok"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    (pruned,) = [row for row in rows if isinstance(row.get("surfaceOp"), dict)]
    (repair,) = [row for row in rows if row["seq"] in pruned["sourceEventSeqs"]]
    assert pruned["time"] == rows[pruned["seq"] - 1]["time"] > repair["time"]
    assert pruned["data"]["message"]["id"] != repair["data"]["message"]["id"]


def test_HOOK_4_RW_2_a_call_id_reused_in_a_later_step_is_a_new_call() -> None:
    """HOOK-4, RW-2: call ids are unique only within a reply. When a later step of the same turn
    reuses one, its PreToolUse hooks run again for what is a new call, and an earlier step's
    rewrite does not apply to it: no violation."""
    report = check(FIXTURES / "valid" / "call-id-reused-across-steps.jsonl")
    assert report.status == "ok"
    text = (FIXTURES / "valid" / "call-id-reused-across-steps.jsonl").read_text()
    assert text.count('"handlerId": "guard"') == 4  # invoked and answered once per step


def test_harness_fixtures_expand_compact_chunk_rows() -> None:
    """Compact rows stand for several chunk events: the event count exceeds the line count."""
    report = check(FIXTURES / "valid" / "harness-written.jsonl")
    assert report.events > report.lines
    assert report.unread_types["request/header"] >= 1


# Each bad fixture: the one error it must produce, at which line (None: no line to blame).
BAD = {
    "invalid-json.jsonl": (ErrorKind.INVALID_JSON, 11, "LOG-4"),
    "invalid-utf8.jsonl": (ErrorKind.INVALID_UTF8, 4, "LOG-4"),
    "june-layout.jsonl": (ErrorKind.UNSUPPORTED_LAYOUT, 2, None),
    "june-layout-marked-late.jsonl": (ErrorKind.UNSUPPORTED_LAYOUT, 6, None),
    "malformed-header.jsonl": (ErrorKind.BAD_HEADER, 1, "LOG-5"),
    "missing-field.jsonl": (ErrorKind.BAD_EVENT, 10, "LOG-4"),
    "missing-header.jsonl": (ErrorKind.BAD_HEADER, 1, "LOG-5"),
    # Some other JSON Lines file (an app's own log): one error, not a second for its line 1.
    "neither-header-nor-event.jsonl": (ErrorKind.BAD_HEADER, 1, "LOG-5"),
    # Its records typed but without seq (another harness's log, a rollout of a newer Codex):
    # one error still, not a second for an event without seq.
    "typed-records-without-seq.jsonl": (ErrorKind.BAD_HEADER, 1, "LOG-5"),
    "not-an-object.jsonl": (ErrorKind.BAD_EVENT, 6, "LOG-4"),
    "result-error-a-string.jsonl": (ErrorKind.BAD_EVENT, 14, "LOG-4"),
    "second-header.jsonl": (ErrorKind.BAD_EVENT, 8, "LOG-5"),
    "unknown-compact-row.jsonl": (ErrorKind.BAD_EVENT, 5, "LOG-4"),
    "unknown-version.jsonl": (ErrorKind.UNSUPPORTED_LAYOUT, 1, "LOG-5"),
    "wrong-types.jsonl": (ErrorKind.BAD_EVENT, 10, "LOG-4"),
}


def test_every_bad_fixture_is_listed() -> None:
    """The table below covers every file under bad/."""
    assert {path.name for path in (FIXTURES / "bad").iterdir()} == set(BAD)


@pytest.mark.parametrize("name", sorted(BAD))
def test_LOG_4_LOG_5_LOG_8_bad_input_gives_one_clear_error_with_its_line(name: str) -> None:
    """LOG-4, LOG-5, LOG-8: bad input is one error naming its kind, line and the rule the log
    breaks (a torn last line: a commit not whole); never a violation."""
    report = check(FIXTURES / "bad" / name)
    kind, line, rule = BAD[name]
    assert [(e.kind, e.line, e.rule_id) for e in report.errors] == [(kind, line, rule)]
    assert report.violations == []
    assert report.errors[0].message


def test_LOG_5_missing_header_still_checks_the_events() -> None:
    """LOG-5: a log without its header is reported, and its events are still checked."""
    report = check(FIXTURES / "bad" / "missing-header.jsonl")
    assert report.events == check(FIXTURES / "valid" / "model-demo.jsonl").events


def test_LOG_8_a_torn_last_line_is_a_notice_and_keeps_the_crash_notice() -> None:
    """LOG-8: a cut-off last line is what a crash leaves, which the harness drops on reopening
    (dsh, whose logs are version 0 as this one, drops it and closes the turn it cut): a notice
    saying how far the log was checked, not invalid JSON; the open turn is still noticed. It
    was a torn-tail error, exit 2, on a version 0 log: CI went red on a crashed real session."""
    path = FIXTURES / "crashed" / "torn-last-line.jsonl"
    report = check(path)
    lines = path.read_bytes().count(b"\n") + 1
    assert [(n.kind, n.rule_id) for n in report.notices] == [
        (NoticeKind.CRASH_TAIL, "REC-2"),
        (NoticeKind.TORN_COMMIT, "LOG-8"),
    ]
    torn = report.notices[1]
    assert torn.line == lines
    assert torn.message.startswith(f"line {lines} stops short (")
    assert torn.message.endswith(f"checked up to line {lines - 1}")
    assert report.status == "ok"


def test_june_layout_reports_no_violations_even_when_marked_late() -> None:
    """An old-layout log is not covered: what looked like violations before the marker is
    dropped, so an unsupported log never shows a false violation."""
    path = FIXTURES / "bad" / "june-layout-marked-late.jsonl"
    before_marker = b"".join(path.read_bytes().splitlines(keepends=True)[:5])
    assert check_stream("prefix", io.BytesIO(before_marker)).rule_counts == {"LOG-2": 1}
    report = check(path)
    assert report.status == "unsupported"
    assert report.violations == []
    assert not report.rule_counts


def _events_in(lines: list[bytes]) -> int:
    """The events `lines` hold, counted apart from check: one a line with a seq, and the run a
    compact row stands for."""
    count = 0
    for line in lines:
        row = json.loads(line)
        data = row.get("data", {})
        count += 1 if "seq" in row else len(data.get("texts", data.get("args")))
    return count


def test_a_report_counts_the_events_read_not_the_header_a_torn_tail_or_where_it_stopped() -> None:
    """A report's events: one per event line and a compact row's run, where the header, a torn
    last line and the line an input error stopped check at hold none."""
    harness = (FIXTURES / "valid" / "harness-written.jsonl").read_bytes().splitlines(True)
    whole = check_stream("harness", io.BytesIO(b"".join(harness)))
    # (Without the judges, each compact row is read fact by fact.)
    full = check_stream("full path", io.BytesIO(b"".join(harness)), quick=False)
    torn = check_stream("torn", io.BytesIO(b"".join(harness) + b'{"type": "turn/st'))
    assert (whole.status, full.status, torn.status) == ("ok", "ok", "ok")
    assert whole.events == full.events == torn.events == _events_in(harness[1:])
    demo = (FIXTURES / "valid" / "model-demo.jsonl").read_bytes().splitlines(True)
    stopped = check_stream(
        "stopped", io.BytesIO(b"".join([*demo[:10], b'{"type": "tool/call", "seq": 9}\n', *demo]))
    )
    assert [(error.line, error.rule_id) for error in stopped.errors] == [(11, "LOG-4")]
    assert stopped.events == _events_in(demo[1:10])
