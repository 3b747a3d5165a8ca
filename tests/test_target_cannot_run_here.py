"""PROTO-1: a target that cannot run on this machine is a setup error, not a protocol break.

A case found on a real harness (tests/regressions/claude-code-*.json) replayed where that
harness is not installed was tagged `[PROTO-1] ... the target failed in reset`, as if a loop had
broken the protocol. The driver protocol gives such a target an exit status, 69 (EX_UNAVAILABLE)
before its first answer, and loopspec's adapters use it: the run ends with exit 2, no rule, and
the target's stderr saying what to install.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from loopspec.properties.cli.main import main
from loopspec.properties.conformance.driver_protocol import CANNOT_RUN_HERE
from loopspec.properties.harnesses import conform_driver
from loopspec.properties.harnesses.script import Harness

ROOT = Path(__file__).resolve().parent.parent


def _exits_before_answering(tmp_path: Path, status: int) -> str:
    """A target that writes a line to stderr and exits with `status` before any answer."""
    script = tmp_path / "target.py"
    script.write_text(
        "import sys\n"
        "sys.stderr.write('frobnicator is not installed: run `npm ci` in adapter/\\n')\n"
        f"sys.exit({status})\n",
        encoding="utf-8",
    )
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_PROTO_1_a_target_exiting_69_before_its_first_answer_is_a_setup_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: exit status 69 before the handshake names no rule and shows what to install."""
    command = _exits_before_answering(tmp_path, CANNOT_RUN_HERE)
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    err = capsys.readouterr().err
    first, *rest = err.splitlines()
    assert first.startswith("loopspec: error: ")
    assert "target.py: it cannot run on this machine" in first  # the command, then its words
    assert "failed in reset" not in first  # which the start-up words say already
    assert "[PROTO-1]" not in err
    assert first.endswith(
        "it cannot run on this machine (exit status 69 before its first answer: a setup "
        "problem, not a protocol break); install what its stderr names, then run this again"
    )
    assert "stderr (tail): frobnicator is not installed: run `npm ci` in adapter/" in rest
    assert "Traceback" not in err


def test_PROTO_1_a_target_dying_otherwise_before_its_first_answer_stays_PROTO_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: any other status is the target's failure, as before (SAFE-5)."""
    command = _exits_before_answering(tmp_path, 1)
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith("loopspec: error: [PROTO-1] ")
    assert "failed in" not in first
    assert first.endswith(
        "target.py: the process exited at start-up, before answering its first message (reset)"
    )


def test_PROTO_1_the_real_harness_adapter_exits_69_when_its_cli_is_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: examples/claude-code-adapter/run.sh with no `npm ci` done exits 69, saying to
    run it in the adapter folder (a checkout's folder with its lock file, no binary)."""
    adapter = tmp_path / "claude-code-adapter"
    adapter.mkdir()
    (adapter / "package-lock.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(conform_driver, "default_adapter_dir", lambda harness: adapter)
    assert conform_driver.main([Harness.CLAUDE_CODE.value]) == CANNOT_RUN_HERE
    err = capsys.readouterr().err
    assert err.startswith("claude-code is not installed: ")
    assert err.rstrip().endswith(f"run `npm ci` in {adapter}")


def test_PROTO_1_the_dsh_adapter_exits_69_when_its_packages_are_not_installed(
    tmp_path: Path,
) -> None:
    """PROTO-1: examples/dsh-adapter/run.sh, copied where no node_modules is, exits 69."""
    copy = tmp_path / "dsh-adapter"
    copy.mkdir()
    run_sh = (ROOT / "examples" / "dsh-adapter" / "run.sh").read_text(encoding="utf-8")
    (copy / "run.sh").write_text(run_sh, encoding="utf-8")
    done = subprocess.run(
        ["sh", str(copy / "run.sh")], capture_output=True, text=True, check=False, timeout=30
    )
    assert done.returncode == CANNOT_RUN_HERE
    assert "not installed" in done.stderr
    assert str(copy) in done.stderr


def _adapter_copy(tmp_path: Path, *, with_loopspec: bool) -> Path:
    """examples/codex-adapter/run.sh and the launcher it runs, in a checkout copy without a
    .venv (where a fresh clone is before `make venv`), its `loopspec` package linked or not."""
    examples = tmp_path / "checkout" / "examples"
    (examples / "codex-adapter").mkdir(parents=True)
    for part in ("conform-driver.sh", "codex-adapter/run.sh"):
        (examples / part).write_bytes((ROOT / "examples" / part).read_bytes())
    if with_loopspec:
        (tmp_path / "checkout" / "loopspec").symlink_to(ROOT / "loopspec")
    return examples / "codex-adapter" / "run.sh"


def _path_with_python3(tmp_path: Path, python3: str | None) -> str:
    """A PATH whose python3 runs `python3` (None: there is none) and that holds what run.sh
    needs besides, sh and dirname."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("sh", "dirname"):
        found = shutil.which(tool)
        assert found is not None
        (folder / tool).symlink_to(found)
    if python3 is not None:
        (folder / "python3").write_text(f'#!/bin/sh\nexec {python3} "$@"\n', encoding="utf-8")
        (folder / "python3").chmod(0o755)
    return str(folder)


def _adapter_run(
    run_sh: Path, path: str, pythonpath: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """run.sh with `path` for PATH (and `pythonpath` for PYTHONPATH, else none), from a folder
    holding no loopspec (Python's `-c` imports from the current one), as a process with no
    input: what it says and its status."""
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    if pythonpath is not None:
        environment["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(
        ["sh", str(run_sh)],
        cwd=run_sh.parent,
        env={**environment, "PATH": path},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )


@pytest.mark.parametrize(
    ("with_loopspec", "missing"),
    [
        # The checkout's loopspec is found, what it imports is not (python3 of the system).
        pytest.param(True, "No module named 'attrs'", id="its packages missing"),
        pytest.param(False, "No module named 'loopspec'", id="loopspec missing"),
    ],
)
def test_PROTO_1_a_real_harness_adapter_whose_python_lacks_loopspec_exits_69(
    with_loopspec: bool, missing: str, tmp_path: Path
) -> None:
    """PROTO-1: run.sh in a checkout without .venv runs python3, which died on an import with a
    stack trace (exit 1: loopspec said "[PROTO-1] the process ended its output"); it says which
    Python lacks loopspec and what to do, and exits 69, the protocol's setup error."""
    run_sh = _adapter_copy(tmp_path, with_loopspec=with_loopspec)
    # Without site-packages: a Python where neither loopspec nor what it imports is installed.
    python3 = f"{shlex.quote(sys.executable)} -S"
    done = _adapter_run(run_sh, _path_with_python3(tmp_path, python3))
    assert done.returncode == CANNOT_RUN_HERE, done.stderr
    assert done.stderr == (
        f"codex-adapter: loopspec is not installed for {sys.executable} ({missing}): run make "
        f"venv in {tmp_path / 'checkout'}, which makes the .venv the adapter uses, or install "
        "loopspec for that Python\n"
    )


def test_PROTO_1_a_real_harness_adapter_with_no_python_at_all_exits_69(tmp_path: Path) -> None:
    """PROTO-1: no .venv and no python3 on PATH: run.sh said "exec: python3: not found" (127)."""
    run_sh = _adapter_copy(tmp_path, with_loopspec=True)
    done = _adapter_run(run_sh, _path_with_python3(tmp_path, None))
    assert done.returncode == CANNOT_RUN_HERE, done.stderr
    assert done.stderr == (
        f"codex-adapter: no Python to run it: {tmp_path / 'checkout'} has no .venv (make venv "
        "there makes one) and no python3 is on PATH\n"
    )


def test_PROTO_1_a_real_harness_adapter_on_a_python_too_old_exits_69(tmp_path: Path) -> None:
    """PROTO-1: a python3 older than loopspec's 3.11 (Debian 11's 3.9) failed on loopspec's
    syntax with a stack trace; it says which Python is too old. (This Python is made to report
    3.9 as it starts, by a sitecustomize module.)"""
    run_sh = _adapter_copy(tmp_path, with_loopspec=True)
    older = tmp_path / "older"
    older.mkdir()
    (older / "sitecustomize.py").write_text(
        "import sys\nsys.version_info = (3, 9, 18, 'final', 0)\nsys.version = '3.9.18 (main)'\n",
        encoding="utf-8",
    )
    path = _path_with_python3(tmp_path, shlex.quote(sys.executable))
    done = _adapter_run(run_sh, path, pythonpath=older)
    assert done.returncode == CANNOT_RUN_HERE, done.stderr
    assert done.stderr == (
        f"codex-adapter: loopspec needs Python 3.11 or later, and {sys.executable} is 3.9.18: "
        f"run make venv in {tmp_path / 'checkout'}, which makes the .venv the adapter uses "
        "(with a python3 of 3.11 or later)\n"
    )
