"""`loopspec check` on logs broken in ways a crash does not break them, settled against dsh.

What dsh (0.1.0-rc.8) does was observed with its own `load()` on the fixture
`valid/harness-written.jsonl` edited as each test says.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from check_fixtures import FIXTURES

from loopspec.properties.cli.main import main

VALID = FIXTURES / "valid" / "harness-written.jsonl"


@pytest.mark.parametrize("blank", [b"\n", b"  \n", b"\n\n"], ids=["empty", "spaces", "two"])
@pytest.mark.parametrize("newline", [b"", b"\n"], ids=["torn", "torn-then-newline"])
def test_LOG_4_a_blank_line_followed_only_by_a_torn_last_line_is_an_error_not_a_crash_tail(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, blank: bytes, newline: bytes
) -> None:
    """LOG-4: dsh, reopening such a log, drops the blank and the torn line and resumes, as it
    does a torn last line alone; but its writer writes no blank line (it appends no empty
    batch; a crash keeps a prefix of one batch's lines), so no crash leaves this file, and
    check does not excuse it as the torn-commit notice of a crash: the blank line is the error
    (exit 2), as any blank line with a line after it is."""
    *whole, last = VALID.read_bytes().splitlines(keepends=True)
    path = tmp_path / "edited.jsonl"
    path.write_bytes(b"".join(whole) + blank + last[: len(last) // 2] + newline)
    code = main(["check", str(path)])
    out = capsys.readouterr().out
    assert code == 2, out
    assert out.splitlines()[0].startswith(
        f"{path}:{len(whole) + 1}: error invalid-json LOG-4: a blank line with lines after it"
    )
    assert "torn-commit" not in out


def test_LOG_3_a_repeated_key_is_read_as_its_last_value_as_help_and_dsh_say(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-3: check does not refuse a key given twice (finding one costs the hot path half
    again); it reads the last value, as dsh's JSON.parse does (a header giving version 7 then
    0 opens in dsh as version 0), and its --help says so, where it said nothing of repeats."""
    header, *rest = VALID.read_bytes().splitlines(keepends=True)
    path = tmp_path / "repeated.jsonl"
    path.write_bytes(
        header.replace(b'"version": 0', b'"version": 7, "version": 0') + b"".join(rest)
    )
    assert main(["check", str(path)]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "A key given twice in one object is not refused" in said
    assert "check reads the last value, as dsh does" in said
