"""A path option typed with `~name` for a user this machine does not know (a rerun line pasted
from a colleague's machine): left as typed, as a shell leaves it, never a traceback."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from loopspec.properties.cli.main import main
from loopspec.properties.pytest_plugin import _saved_cases, case_folder

NO_SUCH_USER = "~no-such-user-on-this-machine"

# A driver-protocol process that answers `reset` and ends at the first command: conform saves
# the program it broke on as a case.
_BREAKS_AT_ONCE = """
import json, sys
for line in sys.stdin:
    if json.loads(line)["type"] != "reset":
        sys.exit(3)
    print(json.dumps({"type": "ready", "implementation": "breaks", "capabilities": []}), flush=True)
"""


def test_PROTO_1_a_case_dir_from_an_unknown_users_home_is_kept_as_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: `conform --case-dir=~bo/cases` on a machine without a user bo stopped with
    pathlib's RuntimeError traceback (exit 1) once `~` after `=` was expanded; a shell leaves
    such a `~` as typed, and so does conform: the case is saved under a folder of that name."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.py").write_text(_BREAKS_AT_ONCE, encoding="utf-8")
    cmd = f"{shlex.quote(sys.executable)} loop.py"
    given = f"{NO_SUCH_USER}/cases"
    assert main(["conform", "--cmd", cmd, f"--case-dir={given}", "--examples", "1"]) == 2
    saved = shlex.quote(f"{given}/case-PROTO-1-0.json")  # quoted: no shell expands it either
    assert f"rerun it: loopspec replay {saved} " in capsys.readouterr().err
    assert (tmp_path / given / "case-PROTO-1-0.json").is_file()


def test_PROTO_1_the_plugin_names_a_case_from_an_unknown_users_home_as_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: the pytest plugin's `--loopspec-cases=~bo/case.json` and
    `--loopspec-case-dir=~bo/cases` raised pathlib's RuntimeError out of pytest's start-up
    where a bad path is one usage line."""
    monkeypatch.chdir(tmp_path)
    given = f"{NO_SUCH_USER}/case.json"
    options: dict[str, object] = {"--loopspec-cases": [given], "--loopspec-case-dir": None}
    config = cast("pytest.Config", SimpleNamespace(getoption=options.get, rootpath=tmp_path))
    with pytest.raises(pytest.UsageError) as refused:
        _saved_cases(config)
    assert str(refused.value) == (f"loopspec: --loopspec-cases {given}: no such file or directory")
    options["--loopspec-case-dir"] = f"{NO_SUCH_USER}/cases"
    assert case_folder(config) == tmp_path / NO_SUCH_USER / "cases"
