"""check names the line of each event a verdict rests on, beside its seq (`logcheck.event_lines`).

A harness author opens the log by line, where the report cited seqs alone (`[events 30, 25]`):
the lines are found after the check, by one more read of a log that broke a rule.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loopspec.model.prefix import Violation
from loopspec.properties.cli.main import main
from loopspec.properties.logcheck.checker import FoundViolation, LogReport, check_stream
from loopspec.properties.logcheck.event_lines import place_events

FIXTURES = Path(__file__).parent / "fixtures" / "logs"
DEC_1 = FIXTURES / "violations" / "DEC-1.jsonl"
# In DEC-1.jsonl the tool/result seq 30 (line 32) reports success for a call whose PreToolUse
# hook/result seq 25 (line 27) denied it.
RESULT_LINE, HOOK_RESULT_LINE = 32, 27


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["check", *argv])
    return code, capsys.readouterr().out


def _dec_1(violations: list[dict[str, Any]]) -> dict[str, Any]:
    (found,) = (each for each in violations if each["rule"] == "DEC-1")
    return found


def test_DEC_1_the_text_report_names_the_line_of_each_event_the_verdict_rests_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """DEC-1: the bracket gives each seq its line, the hook/result's the one an editor opens."""
    code, out = _check(capsys, str(DEC_1))
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith(f"{DEC_1}:{RESULT_LINE}: DEC-1 (seq 30): ")
    assert first.endswith(f"[events 30 (line {RESULT_LINE}), 25 (line {HOOK_RESULT_LINE})]")
    line = DEC_1.read_text(encoding="utf-8").splitlines()[HOOK_RESULT_LINE - 1]
    assert json.loads(line)["type"] == "hook/result"
    assert json.loads(line)["seq"] == 25


def test_DEC_1_the_json_report_gives_event_lines_beside_the_seqs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """DEC-1: `event_lines` lists the line of each of `events`, in their order (loopspec-check/1
    gained the key; every other key reads as before)."""
    code, out = _check(capsys, "--format", "json", str(DEC_1))
    assert code == 1
    document = json.loads(out)
    assert document["format"] == "loopspec-check/1"
    found = _dec_1(document["logs"][0]["violations"])
    assert found["events"] == [30, 25]
    assert found["event_lines"] == [RESULT_LINE, HOOK_RESULT_LINE]


def test_LOG_1_a_seq_on_several_lines_names_the_event_check_had_read_when_it_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LOG-1: a broken log that carries seq 25 three times (a stray event early, the hook/result,
    a copy after the violation) names, for the DEC-1 verdict, the hook/result: the last line
    with that seq before the violation's, neither the first nor the last in the file."""
    lines = DEC_1.read_text(encoding="utf-8").splitlines(keepends=True)
    stray = json.dumps({"type": "x/note", "seq": 25, "time": 1700000000001, "data": {}}) + "\n"
    copy = lines[HOOK_RESULT_LINE - 1]
    broken = [*lines[:2], stray, *lines[2:RESULT_LINE], copy, *lines[RESULT_LINE:]]
    log = tmp_path / "broken.jsonl"
    log.write_text("".join(broken), encoding="utf-8")
    code, out = _check(capsys, "--format", "json", str(log))
    assert code == 1
    found = _dec_1(json.loads(out)["logs"][0]["violations"])
    # One line inserted before both: the result is on line 33, the hook/result on line 28.
    assert found["line"] == RESULT_LINE + 1
    assert found["event_lines"] == [RESULT_LINE + 1, HOOK_RESULT_LINE + 1]


def test_LOG_1_a_seq_only_a_later_line_carries_is_named_there_and_one_none_carries_is_null(
    tmp_path: Path,
) -> None:
    """LOG-1: a seq the log carries only after the violation's line names that line; one on
    no line read has none (null), where a guess would send the reader to a wrong event. A seq
    a compact chunk row covers names the row; a member `seq` nested in an event's data is no
    event's seq. Written without spaces, as a JavaScript harness writes JSON."""
    rows = [
        {"type": "session", "version": 0, "id": "s", "createdAt": 0},
        {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
        {"type": "text-chunks", "seq0": 1, "time0": 0,
         "data": {"turn": 1, "step": 1, "index": 0, "dt": [1, 1], "texts": ["a", "b"]}},
        {"type": "x/note", "seq": 4, "time": 0, "data": {"seq": 9}},
        {"type": "x/note", "seq": 9, "time": 0, "data": {}},
        # More chunks than seqs wanted: the row is read the other way round (`_row_seqs`).
        {"type": "text-chunks", "seq0": 70, "time0": 0,
         "data": {"turn": 1, "step": 1, "index": 0, "dt": [1] * 10, "texts": ["t"] * 10}},
    ]  # fmt: skip
    log = tmp_path / "rows.jsonl"
    compact = "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in rows)
    log.write_text(compact, encoding="utf-8")
    report = LogReport(str(log))
    report.lines = len(rows)
    report.violations.append(FoundViolation(4, Violation("LOG-1", 4, "...", (2, 9, 77, 99))))
    with log.open("rb") as stream:
        stream.read()  # where the check left it
        place_events(report, stream, 1 << 20)
    assert report.violations[0].event_lines == (4, 3, 5, 6, None)


class _Pipe(io.BytesIO):
    """A log read once, as from a pipe: it cannot seek back."""

    def seekable(self) -> bool:
        return False


_DEMO = (FIXTURES / "valid" / "model-demo.jsonl").read_bytes().splitlines(keepends=True)


@pytest.mark.parametrize(
    ("lines", "seq", "said"),
    [
        ([*_DEMO[:13], *_DEMO[14:]], 13, ": no line carries seq 12 (a line deleted, or a seq"),
        ([*_DEMO[:13], *_DEMO[15:]], 14, ": no line carries seqs 12 to 13 (a line deleted"),
        (
            [*_DEMO[:13], *_DEMO[14:20], _DEMO[13], *_DEMO[20:]],
            13,
            ": seq 12 comes later, at line 20 (lines out of order)",
        ),
    ],
    ids=["deleted", "two deleted", "moved"],
)
def test_LOG_1_a_gap_says_whether_any_line_carries_the_seq_it_skipped(
    lines: list[bytes], seq: int, said: str
) -> None:
    """LOG-1: a line deleted from the demo log read `seq 13 where 12 was due`, which did not
    say that no line carries seq 12 (nor, for a line moved, that it comes later). Read from a
    pipe, which cannot be read again to look, the words stay as they were."""
    log = b"".join(lines)
    gap = check_stream("log", io.BytesIO(log)).violations[0].violation
    assert (gap.rule_id, gap.seq) == ("LOG-1", seq)
    assert gap.message.startswith(f"seq {seq} where 12 was due{said}")
    piped = check_stream("log", _Pipe(log)).violations[0].violation
    assert piped.message == f"seq {seq} where 12 was due"


def _check_stdin(stdin: Any, *argv: str) -> subprocess.CompletedProcess[str]:
    """`loopspec check ... -` in its own process, its standard input `stdin`, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "loopspec", "check", *argv, "-"],
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_DEC_1_a_log_piped_to_stdin_names_the_offending_events_line_alone() -> None:
    """DEC-1: a pipe cannot be read twice, so only the line the check was at is known: the
    text names it, the other seq stands alone, and JSON says null for it."""
    for argv, said in (((), "text"), (("--format", "json"), "json")):
        with subprocess.Popen(["cat", str(DEC_1)], stdout=subprocess.PIPE) as cat:
            checked = _check_stdin(cat.stdout, *argv)
        assert checked.returncode == 1, checked.stderr
        if said == "text":
            assert checked.stdout.splitlines()[0].endswith(f"[events 30 (line {RESULT_LINE}), 25]")
        else:
            violations = json.loads(checked.stdout)["logs"][0]["violations"]
            assert _dec_1(violations)["event_lines"] == [RESULT_LINE, None]


def test_DEC_1_a_log_redirected_to_stdin_from_a_file_names_every_events_line() -> None:
    """DEC-1: `check - < log.jsonl` reads a file, which can be read again: the bracket names the
    hook/result's line too, as `check log.jsonl` does (it named the offending line alone, as
    for a pipe)."""
    with DEC_1.open("rb") as log:
        checked = _check_stdin(log)
    assert checked.returncode == 1, checked.stderr
    first = checked.stdout.splitlines()[0]
    assert first.endswith(f"[events 30 (line {RESULT_LINE}), 25 (line {HOOK_RESULT_LINE})]")


def test_DEC_1_stdin_read_again_starts_where_its_log_started(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """DEC-1: standard input a file whose log starts past a first part another program read
    (`(read header; loopspec check -) < file`) is read again from there, not from the file's
    first byte (the lines would be counted from a line of no log)."""
    before = b"a line another program read\n" * 3
    log = tmp_path / "after-a-header.jsonl"
    log.write_bytes(before + DEC_1.read_bytes())
    with log.open("rb") as stdin:
        stdin.read(len(before))
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stdin))
        code, out = _check(capsys, "--format", "json", "-")
    assert code == 1
    assert _dec_1(json.loads(out)["logs"][0]["violations"])["event_lines"] == [
        RESULT_LINE,
        HOOK_RESULT_LINE,
    ]


def test_DEC_1_a_compressed_log_redirected_to_stdin_is_read_again_decompressed(
    tmp_path: Path,
) -> None:
    """DEC-1: zstd data on standard input from a file is decompressed again to find the lines."""
    zstandard = pytest.importorskip("zstandard")
    log = tmp_path / "session.jsonl.zst"
    log.write_bytes(zstandard.ZstdCompressor().compress(DEC_1.read_bytes()))
    with log.open("rb") as stdin:
        checked = _check_stdin(stdin, "--format", "json")
    assert checked.returncode == 1, checked.stderr
    violations = json.loads(checked.stdout)["logs"][0]["violations"]
    assert _dec_1(violations)["event_lines"] == [RESULT_LINE, HOOK_RESULT_LINE]


def test_DEC_1_a_compressed_log_is_opened_again_to_find_the_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DEC-1: a zstd-compressed log's stream cannot seek back; the file is opened again."""
    zstandard = pytest.importorskip("zstandard")
    log = tmp_path / "session.jsonl.zst"
    log.write_bytes(zstandard.ZstdCompressor().compress(DEC_1.read_bytes()))
    code, out = _check(capsys, "--format", "json", str(log))
    assert code == 1
    found = _dec_1(json.loads(out)["logs"][0]["violations"])
    assert found["event_lines"] == [RESULT_LINE, HOOK_RESULT_LINE]


def test_RW_1_a_codex_rollouts_event_lines_are_its_events_which_are_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """RW-1: a Codex rollout has no seqs: its `events` are lines already, and `event_lines`
    says the same; the text keeps `[lines ...]`."""
    rollout = FIXTURES / "codex" / "violations" / "RW-1.jsonl"
    code, out = _check(capsys, "--format", "json", str(rollout))
    violations = json.loads(out)["logs"][0]["violations"]
    assert violations
    assert code == 1
    assert all(each["event_lines"] == each["events"] for each in violations)
    code, out = _check(capsys, str(rollout))
    assert "[lines " in out.splitlines()[0]
    assert "(line " not in out
