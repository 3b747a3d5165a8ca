"""PROTO-1: a target that cannot run on this machine is a setup error, not a protocol break.

A case found on a real harness (tests/regressions/claude-code-*.json) replayed where that
harness is not installed was tagged `[PROTO-1] ... the target failed in reset`, as if a loop had
broken the protocol. The driver protocol gives such a target an exit status, 69 (EX_UNAVAILABLE)
before its first answer, and loopspec's adapters use it: the run ends with exit 2, no rule, and
the target's stderr saying what to install.
"""

from __future__ import annotations

import shlex
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
    assert first.startswith("loopspec: error: the target failed in reset: ")
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
    assert first.startswith("loopspec: error: [PROTO-1] the target failed in reset: ")
    assert first.endswith("the process ended its output instead of answering reset")


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
