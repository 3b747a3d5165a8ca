"""`loopspec check` reads a log's lines as text in chunks (`checker.LineReader`), and from a line
that reader cannot hand over (past the line bound, not UTF-8) as bytes, one line at a time: every
report is the one reading each line as bytes gives, wherever the chunks end."""

from __future__ import annotations

import io
import json

import pytest

from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.logcheck import checker
from loopspec.properties.logcheck.checker import Limits, LogReport, check_stream
from loopspec.properties.logcheck.synth import HEADER, MARKED_HEADER, jsonl, marked_model_rows

# The demo's first turn as `loopspec run` writes it, a reply's text holding characters of two,
# three and four bytes (so that chunks end inside one).
_ROWS = marked_model_rows(DEMO_CONFIG, DEMO_COMMANDS[:7])
_TEXT = jsonl(MARKED_HEADER, _ROWS).replace(
    "Reading both files", "Re\u00e9ding b\u20acth f\U0001f600les"
)
LIMIT = 1000  # bytes a line may hold: the longest line of `_TEXT` is shorter
assert max(len(line.encode()) for line in _TEXT.splitlines()) < LIMIT
LINES = _TEXT.encode().splitlines(keepends=True)
AT = 6  # the line the broken logs below break


def _with(line: bytes) -> bytes:
    return b"".join([*LINES[: AT - 1], line, *LINES[AT:]])


LOGS = {
    "whole": b"".join(LINES),
    "torn last line": b"".join(LINES)[:-9],
    "torn inside a character": b"".join(LINES[:AT]) + "\u20ac".encode()[:2],
    "blank lines last": b"".join(LINES) + b"\n \n",
    "a blank line between": _with(b"\n" + LINES[AT - 1]),
    "not UTF-8": _with(LINES[AT - 1].replace(b'"type"', b'"t\xffpe"')),
    "not UTF-8, last": b"".join(LINES) + b"\xff\n",
    "a line past the bound": _with(LINES[AT - 1][:-2] + b" " * LIMIT + b"}\n"),
    "a line past the bound, last": b"".join(LINES) + b"{" + b" " * LIMIT,
    "a line at the bound": b"".join(LINES) + b" " * (LIMIT - 2) + b"{}\n",
    "a line one past the bound": b"".join(LINES) + b" " * (LIMIT - 1) + b"{}\n",
    "carriage returns": b"".join(LINES).replace(b"\n", b"\r\n"),
    "version 0": jsonl(HEADER, []).encode() + b"".join(LINES[1:])[:-4],
}


def _report(log: bytes) -> LogReport:
    return check_stream("log", io.BytesIO(log), Limits(max_line_bytes=LIMIT))


@pytest.mark.parametrize("chunk", [1, 7, 64, LIMIT])
@pytest.mark.parametrize("log", LOGS.values(), ids=LOGS.keys())
def test_SAFE_4_LOG_4_LOG_8_lines_read_as_text_in_chunks_are_reported_as_read_one_by_one(
    monkeypatch: pytest.MonkeyPatch, log: bytes, chunk: int
) -> None:
    """SAFE-4, LOG-4, LOG-8: chunks of any size give the report of lines read as bytes one at a
    time (a bound below the chunk reads so), and each broken log is reported at its line."""
    monkeypatch.setattr(checker, "TEXT_CHUNK", 1 << 40)
    one_by_one = _report(log)
    monkeypatch.setattr(checker, "TEXT_CHUNK", chunk)
    assert _report(log) == one_by_one
    assert len(one_by_one.errors) <= 1
    assert all((error.line or 0) >= AT for error in one_by_one.errors)


def test_SAFE_4_a_log_read_as_text_stops_at_the_line_past_the_bound() -> None:
    """SAFE-4: with the bound at its usual size (text chunks), a line past it is the error, at
    its line, with the lines after it unread; its chunks cut a character of every width."""
    bound = checker.TEXT_CHUNK
    filler = "\u00e9\u20ac\U0001f600" * bound
    event = {"type": "x", "seq": 0, "time": 0, "data": {"t": filler}}
    log = (jsonl(HEADER, []) + json.dumps(event, ensure_ascii=False)[:bound] + "\n{}\n").encode()
    report = check_stream("log", io.BytesIO(log), Limits(max_line_bytes=bound))
    assert [(error.line, error.rule_id) for error in report.errors] == [(2, "SAFE-4")]
    assert report.lines_unread
