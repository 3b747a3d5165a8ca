"""`replay CASE --reduce` on a case that cannot be cut any further, cut down to a case
already saved, or passing: it says so, and writes nothing. (tests/test_case_travel.py covers a
case that can be cut.)"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path
from typing import Any

import pytest
from test_case_travel import _failed_report

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.properties.cli import conform_run
from loopspec.properties.cli.conform_run import write_case_file
from loopspec.properties.cli.main import main
from loopspec.properties.conformance import run as conformance_run
from loopspec.properties.conformance.reduce import Reduction, StillDiverges, reduce_program


def test_PROTO_1_replay_reduce_says_a_minimal_case_cannot_be_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: a case `--reduce` has cut already cannot be cut again. `--reduce` said
    "reduced: 2 of 2 commands still diverge on TURN-5 (...); saved as" the case itself, which
    read as a cut-down file beside it."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "bug-1234"
    write_case_file(_failed_report(), folder, {"impl": "mine:make"})
    impl = ["--impl", "test_case_travel:turn_end_reason_as_text"]
    assert main(["replay", str(folder / "case-TURN-5-0.json"), *impl, "--reduce"]) == 1
    minimal = folder / "case-TURN-5-1.json"  # its tools and texts cut
    assert capsys.readouterr().out.endswith(f"; saved as {minimal}\n")
    # Cut down again, the case is the file just written: "saved as" it read as a new file.
    assert main(["replay", str(folder / "case-TURN-5-0.json"), *impl, "--reduce"]) == 1
    assert capsys.readouterr().out.endswith(f"; already saved as {minimal}\n")
    before = minimal.read_bytes()
    assert main(["replay", str(minimal), *impl, "--reduce"]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    said = (
        r"reduced: nothing can be cut: each of its 2 commands and every call, hook and detail "
        r"is needed for TURN-5 \(\d+ replays\); no file written"
    )
    assert re.fullmatch(said, last), last
    assert sorted(path.name for path in folder.iterdir()) == [
        "case-TURN-5-0.json",
        "case-TURN-5-1.json",
    ]
    assert minimal.read_bytes() == before
    # On a loop it passes on there is nothing to cut by: --reduce said nothing of itself.
    model = ["--impl", "loopspec.properties.conformance.target:ModelTarget"]
    assert main(["replay", str(minimal), *model, "--reduce"]) == 0
    assert capsys.readouterr().out.endswith(
        "\nreduced: nothing: the case passes on this target, and only a program that diverges "
        "is cut down (--reduce on a loop that still diverges on it); no file written\n"
    )
    assert len(list(folder.iterdir())) == 2


@pytest.mark.parametrize("kept", [0, 1])
def test_PROTO_1_replay_reduce_stopped_by_ctrl_c_says_so(
    kept: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PROTO-1: Ctrl-C while `--reduce` cuts a case down keeps the smallest program found by
    then, as conform does, and says Ctrl-C stopped it: stopped before a smaller program
    diverged, it said "nothing can be cut: each of its 2 commands ... is needed", and after one
    did, that the case it saved was cut down, as if to the end."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    monkeypatch.chdir(tmp_path)
    write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})

    def interrupted(config: Any, program: Any, still: StillDiverges, **bounds: Any) -> Reduction:
        diverged: list[bool] = []

        def until_ctrl_c(config: LoopConfig, program: tuple[Command, ...]) -> bool:
            if len(diverged) == kept:
                raise KeyboardInterrupt
            if still(config, program):
                diverged.append(True)
                return True
            return False

        return reduce_program(config, program, until_ctrl_c, **bounds)

    monkeypatch.setattr(conformance_run, "reduce_program", interrupted)
    impl = ["--impl", "test_case_travel:turn_end_reason_as_text"]
    assert main(["replay", "case-TURN-5-0.json", *impl, "--reduce"]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    if kept:
        said = r"reduced: 2 of 2 commands still diverge on TURN-5 \(\d+ replays\); saved as "
        said += r"case-TURN-5-1.json; Ctrl-C stopped the cutting: --reduce on it cuts it further"
    else:
        said = r"reduced: nothing cut: Ctrl-C stopped the cutting before a smaller program "
        said += r"diverged alike \(\d+ replays?\); no file written"
    assert re.fullmatch(said, last), last


def test_PROTO_1_replay_reduce_whose_case_cannot_be_saved_still_gives_its_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: `--reduce` beside a case in a folder it cannot write (read-only, another
    user's) ended 'loopspec: error: ...: read-only file system', exit 2, the replay's verdict
    never printed. The verdict is printed and kept (1), the reduced line says the case was not
    saved, and stderr says where and why. The cut-down case is printed under it (it was lost).
    """
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    monkeypatch.chdir(tmp_path)
    write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})

    def read_only(document: object, folder: Path) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(folder / "case-TURN-5-1.json"))

    monkeypatch.setattr(conform_run, "_save_case_document", read_only)
    impl = ["--impl", "test_case_travel:turn_end_reason_as_text"]
    assert main(["replay", "case-TURN-5-0.json", *impl, "--reduce"]) == 1
    shown = capsys.readouterr()
    said = r"reduced: 2 of 2 commands still diverge on TURN-5 \(\d+ replays\); not saved "
    said += r"\(the error is on stderr\); the cut-down case:"
    # It was printed nowhere: the case's configuration and its two commands follow.
    lines = shown.out.splitlines()
    assert re.fullmatch(said, lines[-7]), lines[-7]
    assert lines[-6].startswith("  configuration: {")
    assert lines[-5] == "  program:"
    assert lines[-4:-2] == ['    #1 the user sends ""', '       {"kind": "SubmitUser", "text": ""}']
    assert "case-TURN-5-0.json: diverges" in shown.out
    assert shown.err == (
        "loopspec: error: the cut-down case was not saved in .: read-only file system\n"
    )
