"""One missing event, one finding in check's text report: the follow-on violations one cause
explains are folded into the first (`report.fold_cascades`), listed in full under -v and kept
whole in the JSON; and a result mislabelled with crash repair's code is told what to change.

Each log is the model's demo log (tests/fixtures/logs/valid/model-demo.jsonl) with one edit.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from check_fixtures import FIXTURES

from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.logcheck.checker import LogReport, check_paths, check_stream
from loopspec.properties.logcheck.files import LogSource
from loopspec.properties.logcheck.report import log_text_lines
from loopspec.properties.logcheck.synth import MARKED_HEADER, marked_model_rows

DEMO = FIXTURES / "valid" / "model-demo.jsonl"


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DEMO.read_text().splitlines()]


def _without(tmp_path: Path, *seqs: int) -> LogReport:
    """The demo log without the events `seqs`, checked."""
    return _checked(tmp_path, _rows_without(*seqs))


def _rows_without(*seqs: int) -> list[dict[str, Any]]:
    """The demo log without the events `seqs`, the rest renumbered so that no seq is missed
    (LOG-1 stays kept: the one fault is the event gone)."""
    rows = [row for row in _rows() if row.get("seq") not in seqs]
    renumbered = {}
    for number, row in enumerate(rows[1:]):
        renumbered[row["seq"]] = number
        row["seq"] = number
    for row in rows:
        if "sourceEventSeqs" in row:
            row["sourceEventSeqs"] = [renumbered[seq] for seq in row["sourceEventSeqs"]]
    return rows


def _checked(tmp_path: Path, rows: list[dict[str, Any]]) -> LogReport:
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    (report,) = check_paths([str(path)])
    return report


def _said(lines: list[str], rule: str) -> list[str]:
    return [line for line in lines if f": {rule} (seq " in line]


def _one_line(report: LogReport, rule: str, violations: int) -> str:
    """The one text line of `rule`'s `violations` violations, each listed under -v."""
    assert sum(f.violation.rule_id == rule for f in report.violations) == violations
    assert len(_said(log_text_lines(report, verbose=True), rule)) == violations
    (line,) = _said(log_text_lines(report), rule)
    return line


def test_a_turn_with_no_turn_start_is_one_TURN_3_line(tmp_path: Path) -> None:
    """Turn 1's turn/start gone: every later event of the turn is "outside any turn", 16 TURN-3
    violations, printed as one line naming the others' seqs; -v and the JSON keep all 16."""
    report = _without(tmp_path, 0)
    assert _one_line(report, "TURN-3", 16).endswith(
        "TURN-3 (seq 0): step/start outside any turn [events 0 (line 2)]; "
        "and 15 more events likewise (seqs 2-9, 11-12, 14-18; -v lists each)"
    )
    # What the cascade does not explain stays a line of its own: the turn/end with no turn
    # open (TURN-2). The results outside the turn answer their calls, in order: they were
    # blamed ORD-3 too, for one lost turn/start.
    lines = log_text_lines(report)
    assert len(_said(lines, "TURN-2")) == 1
    assert _said(lines, "ORD-3") == []


def test_a_step_with_no_step_start_is_one_STEP_3_line(tmp_path: Path) -> None:
    """Turn 1's first step/start gone: its reply, calls and results are "outside any step",
    7 STEP-3 violations, one line."""
    report = _without(tmp_path, 1)
    assert sum(f.violation.rule_id == "STEP-3" for f in report.violations) == 7
    (folded,) = _said(log_text_lines(report), "STEP-3")
    assert "assistant/message outside any step" in folded
    assert folded.endswith("; and 6 more events likewise (seqs 7-9, 11-12, 14; -v lists each)")


def test_another_finding_on_an_event_of_the_cascade_ends_nothing(tmp_path: Path) -> None:
    """Turn 1 without turn/start, and a hook/invoked lost in it (its seq skipped): the LOG-1
    and HOOK-1 on the next event, which is outside the turn too, are listed on their own lines,
    LOG-1 before that event's TURN-3, and the cascade goes on past them: one TURN-3 line."""
    rows = [row for row in _rows_without(0) if row.get("seq") != 4]
    report = _checked(tmp_path, rows)
    lines = log_text_lines(report)
    (folded,) = _said(lines, "TURN-3")
    assert folded.endswith(
        "; and 14 more events likewise (seqs 2-3, 5-9, 11-12, 14-18; -v lists each)"
    )
    assert len(_said(lines, "LOG-1")) == 1
    assert len(_said(lines, "HOOK-1")) == 1


def test_two_turns_with_no_turn_start_are_two_findings(tmp_path: Path) -> None:
    """Turns 1 and 3 both without turn/start: two causes, two TURN-3 lines. The turn/end of
    turn 1 with no turn open (TURN-2) lies between them, where that state changed."""
    report = _without(tmp_path, 0, 36)
    folded = _said(log_text_lines(report), "TURN-3")
    assert [line.split(": ")[1] for line in folded] == ["TURN-3 (seq 0)", "TURN-3 (seq 35)"]
    assert all("more events likewise" in line for line in folded)


def test_one_events_violations_about_several_calls_are_one_line(tmp_path: Path) -> None:
    """Three calls left unanswered at one turn/end (their results lost): three ADJ-3 violations
    of one event, citing the same events, one sentence but for the call each names. They
    printed as three lines (cascade folding takes only violations citing no other event); they
    are one line naming the other calls, -v and the JSON keep the three."""
    report = _without(tmp_path, 12, 13, 15)
    assert _one_line(report, "ADJ-3", 3).endswith(
        "ADJ-3 (seq 17): turn ends with call call_a unanswered [events 17 (line 19), 7 (line 9)]"
        "; and 2 more likewise (call_b, call_c; -v lists each)"
    )


def test_a_result_mislabelled_outcome_unknown_is_told_the_code_is_wrong(tmp_path: Path) -> None:
    """A result the loop writes mid-turn, labelled TOOL_OUTCOME_UNKNOWN (crash repair's code):
    the first REC-1 line spoke of repair timing only; it names the code and says the loop's own
    result carries the tool's error, never a repair code. It is the one finding: the turn going
    on after it showed the result was no repair, where each later event of the step was blamed
    as one between crash repair's closers, and the turn's end as a repaired turn's that did not
    end interrupted (two more REC-1 lines for the one wrong code)."""
    rows = _rows()
    (result,) = [row for row in rows if row.get("seq") == 12]
    block = result["data"]["message"]["content"][0]
    block["isError"] = True
    block["content"] = [{"type": "text", "text": "Error: the read failed"}]
    result["data"]["error"] = {"name": "ToolOutcomeUnknownError", "code": "TOOL_OUTCOME_UNKNOWN"}
    report = _checked(tmp_path, rows)
    assert [found.violation.rule_id for found in report.violations] == ["REC-1"]
    first = _said(log_text_lines(report), "REC-1")[0]
    assert "REC-1 (seq 12): the tool/result for call_a carries TOOL_OUTCOME_UNKNOWN" in first
    assert "the call's own answer carries the tool's error, never a repair code" in first


def _from_seq(rows: list[dict[str, Any]], seq: int) -> int:
    return next(at for at, row in enumerate(rows) if row.get("seq") == seq)


@pytest.mark.parametrize(
    ("copied", "seq", "said"),
    [
        # A writer resuming turn 2 from its first hook/invoked, after the call's record: the
        # hooks' pairs ran again (HOOK-4 twice), the reply and the record were written twice
        # (ORD-1, ADJ-1, ORD-2), then its result, ... a line each.
        (
            lambda rows: [*rows[: _from_seq(rows, 30)], *rows[_from_seq(rows, 24) :]],
            24,
            "lines 32 to 37 repeat lines 26 to 31, the events of seqs 24 to 29 again",
        ),
        # Turn 3 pasted again at the end: LOG-1 and TURN-1, the copy then judged as a turn.
        (
            lambda rows: [*rows, *rows[_from_seq(rows, 36) :]],
            36,
            "lines 46 to 53 repeat lines 38 to 45, the events of seqs 36 to 43 again",
        ),
        # The last four events again, from a call's record after its turn ended: LOG-1, three
        # events outside any turn (TURN-3) and a turn/end with none open (REC-1).
        (
            lambda rows: [*rows, *rows[_from_seq(rows, 40) :]],
            40,
            "lines 46 to 49 repeat lines 42 to 45, the events of seqs 40 to 43 again",
        ),
        # The log's events appended to it again, its header left out (`tail -n +2 a >> a`).
        (
            lambda rows: [*rows, *rows[1:]],
            0,
            "lines 46 to 89 repeat lines 2 to 45, the events of seqs 0 to 43 again",
        ),
    ],
    ids=["a resume from a hook", "a turn", "a turn's last events", "every event"],
)
def test_LOG_1_a_stretch_of_lines_copied_is_one_LOG_1_line(
    tmp_path: Path,
    copied: Callable[[list[dict[str, Any]]], list[dict[str, Any]]],
    seq: int,
    said: str,
) -> None:
    """LOG-1: lines repeating a stretch of the log's earlier lines, each at the seq it had
    there, are one LOG-1 naming both stretches, the copy judged by no other rule; they were a
    LOG-1 'seq 24 where 30 was due' and what each copied event broke, judged anew (check keeps
    no line's contents but the line before it: it reads the file again to find the first)."""
    report = _checked(tmp_path, copied(_rows()))
    assert [found.violation.rule_id for found in report.violations] == ["LOG-1"]
    (line,) = log_text_lines(report)[:1]
    assert f": LOG-1 (seq {seq}): {said} (times aside" in line


def test_LOG_1_another_session_appended_without_its_header_is_no_copy(tmp_path: Path) -> None:
    """LOG-1: another session's events appended without their header (its user's first words
    not this one's) begin as this log began, turn 1's start and its step's: read as a copy of
    those two lines, its user message was 'outside any turn' and so was every event after it
    (TURN-3, 13 more). They are a numbering begun again, judged as before: LOG-1 once, and the
    TURN-1 of a turn 1 where turn 4 was due."""
    rows = _rows()
    other = json.loads(json.dumps(rows[1:]).replace("Read a.txt and b.txt", "Read d.txt and e.txt"))
    report = _checked(tmp_path, [*rows, *other])
    found = [(f.violation.rule_id, f.violation.seq, f.line) for f in report.violations]
    assert found == [("LOG-1", 0, 46), ("TURN-1", 0, 46)], report.violations
    assert report.violations[0].violation.message.startswith("seq 0 where 44 was due")


@pytest.mark.parametrize("retimed", [False, True], ids=["pasted", "written again later"])
def test_LOG_1_a_copy_holding_compact_chunk_rows_is_one_LOG_1_line(
    tmp_path: Path, retimed: bool
) -> None:
    """LOG-1: a harness's log (compact chunk rows among its events) with its last turn pasted
    again: the copy stopped at its first row, whose chunks were then judged with the turn's
    start left out, 'outside any turn' (TURN-3, 8 events), with a second LOG-1 and a REC-1 at
    its turn/end. A row repeating its original, at the seqs it stands for, goes on the copy.
    Written again by a writer resuming, its rows' times (time0, dt) differ as its events' do,
    and are set aside alike: they read as a numbering begun again (LOG-1 and TURN-1)."""
    lines = (FIXTURES / "valid" / "harness-written.jsonl").read_text().splitlines(keepends=True)
    assert lines[78].startswith('{"type": "turn/start", "seq": 138,')
    copy = lines[78:]
    if retimed:
        copy = [_later(line) for line in copy]
        assert any('"time0"' in line for line in copy)
    path = tmp_path / "log.jsonl"
    path.write_text("".join([*lines, *copy]))
    (report,) = check_paths([str(path)])
    assert [found.violation.rule_id for found in report.violations] == ["LOG-1"]
    assert report.violations[0].violation.message.startswith(
        "lines 94 to 108 repeat lines 79 to 93, the events of seqs 138 to 157 again"
    )
    assert report.events == 178  # every chunk of the copy's rows counted


def test_LOG_1_a_copy_on_standard_input_from_a_file_is_one_LOG_1_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LOG-1: `check - < log.jsonl` read a copy of turn 3 line by line (LOG-1 and TURN-1),
    where `check log.jsonl` names it once: standard input from a file is read again too, from
    where its log starts, without moving the check's own reading."""
    rows = _rows()
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in [*rows, *rows[-8:]]))
    with path.open("rb") as stdin:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stdin))
        (report,) = check_paths(["-"])
    assert [found.violation.rule_id for found in report.violations] == ["LOG-1"]
    assert report.violations[0].violation.message.startswith(
        "lines 46 to 53 repeat lines 38 to 45, the events of seqs 36 to 43 again"
    )


def test_LOG_1_a_copy_in_bytes_checked_in_process_is_one_LOG_1_line() -> None:
    """LOG-1: `check_stream` called on bytes in memory, with no source, read a copy of turn 3
    as a pipe does (LOG-1 and TURN-1: no copy looked for); a stream that can seek is read
    again itself, as a file is. `check_paths` names the copy once the same way."""
    lines = DEMO.read_bytes().splitlines(keepends=True)
    report = check_stream("log", io.BytesIO(b"".join([*lines, *lines[-8:]])))
    assert [found.violation.rule_id for found in report.violations] == ["LOG-1"]
    assert report.violations[0].violation.message.startswith(
        "lines 46 to 53 repeat lines 38 to 45, the events of seqs 36 to 43 again"
    )
    assert report.violations[0].event_lines == (46,)


def _later(line: str) -> str:
    """`line`'s event an hour later: its time, or a compact row's time0 and gaps."""
    event = json.loads(line)
    for key in ("time", "time0"):
        if key in event:
            event[key] += 3_600_000
    if "seq0" in event and "dt" in event["data"]:
        event["data"]["dt"] = [gap + 1 for gap in event["data"]["dt"]]
    return json.dumps(event) + "\n"


class _Pipe(io.BytesIO):
    """A log read once, as from a pipe: it cannot seek back."""

    def seekable(self) -> bool:
        return False


def _reversed(lines: list[bytes]) -> list[bytes]:
    return lines[::-1]


DSH_LOG = FIXTURES / "valid" / "harness-written.jsonl"  # (8 compact chunk rows)


def _marked_demo() -> bytes:
    """The demo log as `loopspec run` writes it: version 1, its commits marked (LOG-8)."""
    rows = [MARKED_HEADER, *marked_model_rows(DEMO_CONFIG, DEMO_COMMANDS)]
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


@pytest.mark.parametrize(
    ("log", "order", "first", "how", "others", "piped_listed"),
    [
        (DEMO.read_bytes(), _reversed, 43, "in reverse order (reversed, by tac?)", 92, None),
        (DEMO.read_bytes(), sorted, 11, "in another order (sorted or shuffled?)", 99, 100),
        (DSH_LOG.read_bytes(), _reversed, 157, "in reverse order (reversed, by tac?)", 184, None),
        # (its commits' holes leave LOG-1s unlisted: a pipe's breaks cannot show the order;
        # those LOG-1s are among the others the order makes)
        (_marked_demo(), _reversed, 43, "in reverse order (reversed, by tac?)", 65, 25),
        (_marked_demo(), sorted, 11, "in another order (sorted or shuffled?)", 71, 37),
    ],
    ids=[
        "reversed",
        "sorted",
        "a dsh log with compact rows reversed",
        "a version-1 log reversed",
        "a version-1 log sorted",
    ],
)
def test_LOG_1_a_log_whose_lines_were_reordered_is_one_LOG_1(
    log: bytes,
    order: Callable[[list[bytes]], list[bytes]],
    first: int,
    how: str,
    others: int,
    *,
    piped_listed: int | None,
    tmp_path: Path,
) -> None:
    """LOG-1: the demo log's event lines reversed (tac) or sorted (sort) after its header read
    as 93 and 100 violations (LOG-1, TURN-3, ORD-1, ...) and a turn left open; only the first
    line's LOG-1 was the log's fault. Read again, the log holds every seq once: that LOG-1 says
    so, counted alone, the rest left out, and how to put the lines back. From a pipe, which
    cannot be read again, as before, its first LOG-1 saying why and to check the log saved. A
    dsh log reversed was 'in another order': a compact row's seqs ascend within its line. A
    version-1 log reversed was 7 violations, LOG-8s first, none naming the order: its broken
    commits left out the LOG-1s after them, and its fold's count of others left those out
    (25 and 36, where the same log version 0 says 92). From a pipe, a log reversed whose every
    LOG-1 is listed is folded as well, its breaks' seqs going down from the last to 0 (else
    `piped_listed` violations are listed). A file gone since it was read was said to be a pipe,
    'which cannot be read twice'."""
    header, *events = log.splitlines(keepends=True)
    text = b"".join([header, *order(events)])
    report = check_stream("log", io.BytesIO(text))
    (found,) = report.violations
    assert (found.violation.rule_id, found.violation.seq, found.line) == ("LOG-1", first, 2)
    assert found.violation.message.startswith(
        f"seq {first} where 0 was due: the log's lines hold seqs 0 to {report.events - 1}, each "
        f"once, {how}; a log's lines come in the order written, each seq the one before it + 1: "
        "put them back with jq -cs 'sort_by(.seq // .seq0 // -1)[]' FILE > sorted.jsonl and "
        f"check sorted.jsonl ({others} other violations and the turn "
    )
    assert (report.rule_counts, report.notices) == ({"LOG-1": 1}, [])
    piped = check_stream("log", _Pipe(text))
    if piped_listed is None:
        (found,) = piped.violations
        assert found.violation.message.startswith(
            f"seq {first} where 0 was due: the log's lines go from seq {first} down to 0 "
            "(reversed, by tac?); a log's lines come in the order written"
        ), found.violation.message
        assert f"({others} other violations and the turn " in found.violation.message
        return
    assert len(piped.violations) == piped_listed
    (said,) = [found for found in piped.violations if "from a pipe" in found.violation.message]
    assert said.violation.rule_id == "LOG-1"
    assert said.violation.message.endswith(
        "; more than half the log's lines break LOG-1, as a log's lines sorted or reversed after "
        "they were written do: read from a pipe, which cannot be read twice, their order is not "
        "looked at; check the log saved to a file to learn whether it is that"
    )
    gone = check_stream("log", _Pipe(text), source=LogSource(str(tmp_path / "gone.jsonl")))
    (said,) = [found for found in gone.violations if "more than half" in found.violation.message]
    assert said.violation.message.endswith(
        "they were written do: the log could not be read again (gone or changed since it was "
        "read), their order is not looked at; check it again to learn whether it is that"
    )


def _swapped(lines: list[bytes], *at: int) -> list[bytes]:
    """`lines` with each line at `at` and the one after it swapped."""
    lines = list(lines)
    for index in at:
        lines[index], lines[index + 1] = lines[index + 1], lines[index]
    return lines


def _moved_later(lines: list[bytes], *moves: tuple[int, int]) -> list[bytes]:
    """`lines` with the line at each (from, to) moved to `to`."""
    lines = list(lines)
    for source, target in moves:
        lines.insert(target, lines.pop(source))
    return lines


@pytest.mark.parametrize(
    ("moved", "breaks"),
    [
        (lambda lines: _swapped(lines, 5, 20, 35), 3),
        (lambda lines: _moved_later(lines, (12, 18), (30, 36)), 4),
    ],
    ids=["three pairs swapped", "two lines moved later"],
)
def test_LOG_1_a_few_lines_moved_keep_their_own_words_not_a_reordered_log(
    moved: Callable[[list[bytes]], list[bytes]], breaks: int
) -> None:
    """LOG-1: three pairs of the demo log's lines swapped, or two lines moved later, hold every
    seq once too, and read as one LOG-1 'in another order', every other violation dropped:
    only a log breaking LOG-1 on more than half its lines is taken for one sorted or reversed.
    Each break keeps its words, where the seq it skipped comes."""
    header, *events = DEMO.read_bytes().splitlines(keepends=True)
    report = check_stream("log", io.BytesIO(b"".join([header, *moved(events)])))
    assert report.rule_counts["LOG-1"] == breaks
    messages = [found.violation.message for found in report.violations]
    assert not [message for message in messages if "this order makes" in message]
    assert any("(lines out of order)" in message for message in messages)


def test_LOG_1_a_reordered_log_keeps_the_notices_its_order_did_not_make() -> None:
    """LOG-1: a log reversed, its times in seconds, lost its time-in-seconds notice: every
    notice was cleared as made by the order. Only the turn left open at the end is."""
    header, *events = DEMO.read_bytes().splitlines(keepends=True)
    in_seconds = []
    for line in events:
        event = json.loads(line)
        event["time"] //= 1000
        in_seconds.append(json.dumps(event).encode() + b"\n")
    report = check_stream("log", io.BytesIO(b"".join([header, *in_seconds[::-1]])))
    (found,) = report.violations
    assert found.violation.message.endswith(
        "violations and the turn left open at the end this order makes, not listed)"
    )
    assert [notice.kind for notice in report.notices] == ["time-in-seconds"]
