"""PROTO-1: a folder of cases replays every case in it, and says what it passed over.

`loopspec replay DIR` read `*.json` alone, case-sensitively: a colleague's `x.JSON` was skipped
in silence, and so was `x.json.txt` (a mail client's or a browser's name for a saved
attachment), and the folder's run passed without them. `x.JSON` is read now; a file named like
a case with more after `.json` is named on stderr, one line per folder, with how many there are.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from loopspec.properties.cli.main import main

CASE = Path(__file__).parent / "regressions" / "codex-ABORT-1.json"


def test_PROTO_1_replay_of_a_folder_reads_an_upper_case_json_and_names_what_it_passed_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: x.JSON is replayed; x.json.txt and y.json.bak are named, counted, not read."""
    folder = tmp_path / "cases"
    folder.mkdir()
    for name in ("x.JSON", "x.json.txt", "y.json.bak"):
        shutil.copy(CASE, folder / name)
    (folder / "notes.md").write_text("not a case\n", encoding="utf-8")
    assert main(["replay", str(folder), "--bundled", "--format", "json"]) == 0
    said = capsys.readouterr()
    (case,) = json.loads(said.out)["cases"]
    assert case["case"] == str(folder / "x.JSON")
    assert said.err == (
        f"loopspec replay: note: {folder}: 2 files named like a case but not ending in .json, "
        "not replayed: x.json.txt, y.json.bak (rename one to end in .json to replay it)\n"
    )


def test_PROTO_1_a_folder_holding_only_a_renamed_case_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: with no case read, the refusal (exit 2) names the file that looked like one."""
    folder = tmp_path / "cases"
    folder.mkdir()
    shutil.copy(CASE, folder / "case-ABORT-1-0.json.txt")
    assert main(["replay", str(folder), "--bundled"]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: {folder}: a directory without case files (*.json); {folder}: 1 file "
        "named like a case but not ending in .json, not replayed: case-ABORT-1-0.json.txt "
        "(rename it to end in .json to replay it)\n"
    )
