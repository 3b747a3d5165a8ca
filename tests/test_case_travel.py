"""A case file travels further: Omar posts one to a public tracker.

(tests/test_case_sharing.py covers Alice saving a case and Bob replaying it in another folder.)
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from test_blame_matrix import FIRST_USER

from loopspec.properties.cli.conform_run import replay_header, save_case, with_saved_program
from loopspec.properties.conformance.run import RunReport, TargetError, load_case, replay_case

TURN_5 = FIRST_USER[0]


def _failed_report() -> RunReport:
    """A counterexample report without a search: the TURN-5 program, replayed."""
    replay = replay_case(TURN_5.target, TURN_5.config, list(TURN_5.program))
    assert replay.divergence is not None
    return RunReport("turn-end reason as text", frozenset(), 1, len(TURN_5.program), 0.0,
                     replay.divergence, TURN_5.program, TURN_5.config, {}, {})  # fmt: skip


@pytest.fixture
def omar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Omar's project folder, inside his home folder, as the working directory."""
    home = tmp_path / "home" / "omar"
    project = home / "work" / "loop"
    project.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    return project


def test_SAFE_1_a_saved_case_names_neither_omar_s_folders_nor_his_secrets(omar: Path) -> None:
    """SAFE-1: a case is made for a public bug report, and replay never runs the target it
    records: the `--cmd` it records, and a broken target's error line that repeats it, held
    the working folder's and the home folder's absolute paths (the user's name) and the value
    of an API_TOKEN=... word, which a replayer does not need. A path in the working folder is
    written from it (./), one elsewhere in the home folder from ~, a secret's value hidden."""
    home = omar.parent.parent
    cmd = f"env API_TOKEN=s3cret MODE=fast node {omar}/loop.mjs --config {home}/loop.json"
    portable = "env API_TOKEN=<hidden> MODE=fast node ./loop.mjs --config ~/loop.json"
    saved = save_case(_failed_report(), omar / "cases", {"cmd": cmd})
    broke = TargetError(
        f"the target failed in apply: {cmd}: the process ended its output\nstderr: {home}",
        config=TURN_5.config,
        program=TURN_5.program,
    )
    with_saved_program(broke, omar / "cases", {"cmd": cmd}, None)
    broken = next((omar / "cases").glob("case-PROTO-1-*.json"))
    for case in (saved, broken):
        text = case.read_text(encoding="utf-8")
        assert "s3cret" not in text
        assert "omar" not in text
        assert json.loads(text)["target"] == {"cmd": portable}
    what = json.loads(broken.read_text(encoding="utf-8"))["what"]
    assert what == f"the target failed in apply: {portable}: the process ended its output"
    # Replayed with the command typed as before, in the same folder: the recorded one.
    header = replay_header(str(saved), cmd, load_case(saved), impl=None, cmd=cmd, profile_note=None)
    assert header[1] == f"  recorded target: --cmd {shlex.quote(portable)} (the one replayed)"
