"""`loopspec check` on a line that is not JSON, run as a user runs it: in a fresh interpreter.

The checker reads lines with json's C scanner without importing json's decoder (start-up,
tests/test_check_startup.py). Python 3.11's scanner reports most malformed values through
`json.decoder.JSONDecodeError`, which it looks up among the modules already imported: in a fresh
interpreter it found none and raised SystemError, a traceback. A test process has json's decoder
loaded already, so only a new interpreter shows it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEADER = {"type": "session", "version": 0, "id": "s", "createdAt": 0, "cwd": "/w"}
TURN = {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}}
MISSING_COMMA = '{"type": "step/start" "seq": 1}'


@pytest.mark.parametrize(
    ("lines", "at"),
    [
        ([json.dumps(HEADER), json.dumps(TURN), MISSING_COMMA], 3),
        ([MISSING_COMMA], 1),
    ],
    ids=["after-a-dsh-header", "first-line"],
)
def test_LOG_4_check_names_a_malformed_line_in_one_line_not_a_traceback(
    tmp_path: Path, lines: list[str], at: int
) -> None:
    """LOG-4: a line whose JSON misses a comma is an invalid-json error naming its file and
    line, exit 2 (it ended in "SystemError: <_json.Scanner object ...> returned NULL without
    setting an exception", exit 1, on Python 3.11)."""
    log = tmp_path / "bad.jsonl"
    log.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "loopspec", "check", str(log)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{log}:{at}: error invalid-json LOG-4: " in done.stdout, done.stdout
