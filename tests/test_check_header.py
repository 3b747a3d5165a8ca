"""`loopspec check` on a dsh log's header, held to what dsh (0.1.0-rc.8) opens.

Observed with real dsh's `load()` on the fixture `valid/harness-written.jsonl` with its header
edited: it refuses a `createdAt` of -5, 1.5, -0 or 2^53 ("first line is not a session header")
and a `version` other than 0 ("uses log format v7, but this harness reads only v0"), and opens
a `createdAt` of 1700000000000.0 or 1e3 (JavaScript reads both as whole numbers).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopspec.properties.cli.main import main
from loopspec.properties.logcheck.checker import check_paths

HEADER = {"type": "session", "version": 0, "id": "s", "createdAt": 0, "cwd": "/w"}
TURN = [
    {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
    {"type": "turn/end", "seq": 1, "time": 0, "data": {"turn": 1, "reason": {"kind": "completed"}}},
]
# A header as loopspec's docs write it is read without the model's codec, one as dsh writes it
# (with delegationDepth) by the codec (`logcheck.header_version`): both must refuse alike.
SHAPES = {"usual": {}, "as-dsh-writes-it": {"delegationDepth": 0}}


def _log(tmp_path: Path, created_at: str, extra: dict[str, int]) -> Path:
    header = json.dumps({**HEADER, **extra}).replace('"createdAt": 0', f'"createdAt": {created_at}')
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join([header, *map(json.dumps, TURN)]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("created_at", ["-5", "1.5", "9007199254740992", "-1e3"])
def test_LOG_5_a_createdAt_dsh_refuses_is_an_error_at_line_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], created_at: str, shape: str
) -> None:
    """LOG-5: `createdAt` is a whole number of milliseconds from 0 to 2^53 - 1. -5 and 1.5 were
    read (1.5 truncated to 1) and the log passed, exit 0, though dsh refuses to resume it."""
    path = _log(tmp_path, created_at, SHAPES[shape])
    [report] = check_paths([str(path)])
    assert [(e.kind, e.line, e.rule_id) for e in report.errors] == [("bad-header", 1, "LOG-5")]
    must = "session.createdAt must be a whole number from 0 to 2^53 - 1, got "
    assert report.errors[0].message.startswith(must)
    capsys.readouterr()
    assert main(["check", str(path)]) == 2
    assert f"{path}:1: error bad-header LOG-5: session.createdAt" in capsys.readouterr().out


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("created_at", ["0", "1700000000000", "1700000000000.0", "1e3"])
def test_LOG_5_a_createdAt_dsh_opens_is_read(tmp_path: Path, created_at: str, shape: str) -> None:
    """LOG-5: a whole number, written as an integer or not, is a `createdAt` dsh opens."""
    [report] = check_paths([str(_log(tmp_path, created_at, SHAPES[shape]))])
    assert report.errors == []
    assert report.status == "ok"


@pytest.mark.parametrize("version", [7, -1, 2])
def test_LOG_5_a_version_neither_check_nor_dsh_reads_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], version: int
) -> None:
    """LOG-5: a header version other than 0 and 1 was checked as version 0 with a notice, exit 0;
    dsh refuses such a log, so its lines' meaning is unknown: an error naming the version."""
    path = tmp_path / "session.jsonl"
    lines = [{**HEADER, "version": version}, *TURN]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    capsys.readouterr()
    assert main(["check", str(path)]) == 2
    out = capsys.readouterr().out
    assert f"{path}:1: error unsupported-layout LOG-5: the header's version is {version}," in out
