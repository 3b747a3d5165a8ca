"""The command line where standard output is not UTF-8: characters it lacks are escaped.

A CI job or a container whose locale is Latin-1, or the C locale with `PYTHONUTF8=0`, or
`PYTHONIOENCODING=ascii`, gives Python an output stream that cannot encode SPEC.md's dashes or a
user's own text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# The environments a CI may give: each leaves Python a stdout that is not UTF-8.
NOT_UTF_8 = {
    "ascii": {"PYTHONIOENCODING": "ascii"},
    "C-locale-no-utf8-mode": {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
    "latin-1": {"PYTHONIOENCODING": "latin-1"},
}

USERS_TEXT = "Écris un mot — «vite»."
SCENARIO = {
    "tools": [{"name": "bash", "requiredKeys": ["command"]}],
    "turns": [
        {
            "user": USERS_TEXT,
            "replies": [{"blocks": [{"type": "text", "text": "Écrit."}], "finish": "completed"}],
        }
    ],
}


def _loopspec(
    argv: list[str], cwd: Path, changes: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    return _python(["-m", "loopspec", *argv], cwd, changes)


def _python(
    argv: list[str], cwd: Path, changes: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    """This Python run with `argv` where the environment's encoding settings are `changes`."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("LC_", "PYTHONIOENCODING", "PYTHONUTF8"))
    }
    return subprocess.run(
        [sys.executable, *argv],
        cwd=cwd,
        env={**environment, **changes},
        capture_output=True,
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize("environment", NOT_UTF_8.values(), ids=NOT_UTF_8.keys())
def test_SAFE_4_a_users_text_and_spec_text_print_escaped_on_an_output_that_is_not_utf_8(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    """SAFE-4: `loopspec run` of a scenario holding a user's French and `loopspec spec` (SPEC
    text holds dashes) exit 0, writing each character the output's encoding lacks as Python's
    `\\u2014` escape. Both ended in a UnicodeEncodeError traceback and exit 1."""
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(SCENARIO, ensure_ascii=False), encoding="utf-8")
    encoding = environment.get("PYTHONIOENCODING", "ascii")
    ran = _loopspec(["run", str(scenario), "--log", "run.jsonl"], tmp_path, environment)
    assert (ran.returncode, ran.stderr) == (0, b""), ran.stderr.decode(encoding)
    shown = ran.stdout.decode(encoding)
    escaped = USERS_TEXT.encode(encoding, "backslashreplace").decode(encoding)
    assert f"user: '{escaped}'" in shown, shown
    spec = _loopspec(["spec"], tmp_path, environment)
    assert (spec.returncode, spec.stderr) == (0, b""), spec.stderr.decode(encoding)
    assert "\\u2014" in spec.stdout.decode(encoding)


def test_SAFE_4_a_utf_8_output_prints_a_users_text_as_it_is(tmp_path: Path) -> None:
    """SAFE-4: where stdout is UTF-8 nothing is escaped (the escaping applies to other
    encodings only)."""
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(SCENARIO, ensure_ascii=False), encoding="utf-8")
    ran = _loopspec(
        ["run", str(scenario), "--log", "run.jsonl"], tmp_path, {"PYTHONIOENCODING": "utf-8"}
    )
    assert ran.returncode == 0, ran.stderr.decode("utf-8")
    assert f"user: '{USERS_TEXT}'" in ran.stdout.decode("utf-8")


# One turn run as a harness session runs the CLI's, printing what it read.
TURN = """
import sys
from pathlib import Path

from loopspec.properties.harnesses.session import _run_turn

code, killed, out, err = _run_turn(["printf", sys.argv[1]], Path("."), {}, 30.0, None)
sys.stdout.write(ascii(out))
"""


def test_SAFE_4_a_harness_turns_output_is_read_as_utf_8_whatever_the_locale(
    tmp_path: Path,
) -> None:
    """SAFE-4: a real CLI's turn (run with LANG=C.UTF-8) writes UTF-8, and loopspec reads it so
    where its own locale is ASCII (the C locale, PYTHONUTF8=0): it read it in the locale's
    encoding, and the first non-ASCII byte ended the harness run in a UnicodeDecodeError."""
    turn = tmp_path / "turn.py"
    turn.write_text(TURN, encoding="utf-8")
    utf_8 = r"caf\303\251 \342\200\224"  # printf's octal escapes for "café —"
    done = _python([str(turn), utf_8], tmp_path, NOT_UTF_8["C-locale-no-utf8-mode"])
    assert (done.returncode, done.stderr) == (0, b""), done.stderr.decode("ascii", "replace")
    assert done.stdout == ascii("café —").encode("ascii")
