"""What a user hands loopspec never runs code, loses data, hangs it or crashes it (SAFE-1..5).

Case files, `--log` paths, scenario, settings and case documents, target processes and hook
processes are the inputs; each test names the rule it holds.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest

from loopspec.impl.clock import SystemClock
from loopspec.impl.log_file import LockedLogFile, NotALogFile
from loopspec.impl.log_writer import SYNCED
from loopspec.impl.opening import SessionInfo, open_log
from loopspec.properties.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
REGRESSION = ROOT / "tests" / "regressions" / "dsh-duplicate-call-ids.json"
SCENARIO = {
    "tools": [{"name": "bash", "requiredKeys": ["command"]}],
    "turns": [
        {
            "user": "list",
            "replies": [
                {
                    "blocks": [
                        {
                            "type": "tool-call",
                            "id": "c1",
                            "name": "bash",
                            "arguments": '{"command": "ls"}',
                        }
                    ],
                    "finish": "completed",
                },
                {"blocks": [{"type": "text", "text": "done"}], "finish": "completed"},
            ],
        }
    ],
}


def _case_recording(tmp_path: Path, target: dict[str, str]) -> Path:
    document = json.loads(REGRESSION.read_text(encoding="utf-8"))
    document["target"] = target
    path = tmp_path / "case.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _scenario(tmp_path: Path) -> Path:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({**SCENARIO, "cwd": str(tmp_path)}), encoding="utf-8")
    return path


# --- SAFE-1: a case file never names what runs ---------------------------------------------------


def test_SAFE_1_replay_never_runs_the_command_a_case_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: a recorded `cmd` is shown with how to use it, and nothing runs it."""
    marker = tmp_path / "ran"
    case = _case_recording(tmp_path, {"cmd": f"touch {shlex.quote(str(marker))}"})
    assert main(["replay", str(case)]) == 0
    out = capsys.readouterr().out
    assert not marker.exists()
    assert "replaying against loopspec.properties.conformance.impl_target:bundled_target" in out
    assert "not run; pass --cmd" in out
    assert str(marker) in out


def test_SAFE_1_replay_never_imports_the_module_a_case_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAFE-1: a recorded `impl` is not imported, even when it is importable."""
    (tmp_path / "planted_target.py").write_text(
        f"open({str(tmp_path / 'imported')!r}, 'w').close()\ndef make(): raise SystemExit(9)\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    case = _case_recording(tmp_path, {"impl": "planted_target:make"})
    assert main(["replay", str(case)]) == 0
    assert "planted_target" not in sys.modules
    assert not (tmp_path / "imported").exists()
    assert "pass --impl planted_target:make" in capsys.readouterr().out


def test_SAFE_1_the_recorded_target_is_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: terminal control characters in a recorded target are printed escaped."""
    case = _case_recording(tmp_path, {"cmd": "evil\x1b[2Jcmd"})
    assert main(["replay", str(case)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\\x1b[2J" in out


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("target", "abc", "$.target"),
        ("target", {"cmd": 5}, "$.target"),
        ("profile", [], "$.profile"),
        ("commands", "x", "$.commands"),
        ("config", 5, "$.config"),
    ],
)
def test_SAFE_1_a_malformed_case_file_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: object, says: str
) -> None:
    """SAFE-1: wrong types anywhere in a case file exit 2 naming the JSON path."""
    document = json.loads(REGRESSION.read_text(encoding="utf-8"))
    document[field] = value
    path = tmp_path / "case.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert says in err
    assert "Traceback" not in err


# --- SAFE-2: a log path is never destroyed -------------------------------------------------------


def _run(tmp_path: Path, log: Path | str, *extra: str) -> int:
    return main(["run", str(_scenario(tmp_path)), "--log", str(log), *extra])


@pytest.mark.parametrize("content", [b"my notes\nkeep me\n", b"no newline at all", b"{}\n"])
def test_SAFE_2_run_refuses_a_file_that_is_not_a_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    """SAFE-2: a user's file at --log is left byte for byte as it was; exit 2."""
    victim = tmp_path / "notes.txt"
    victim.write_bytes(content)
    assert _run(tmp_path, victim) == 2
    assert victim.read_bytes() == content
    assert "not a loopspec log" in capsys.readouterr().err


def test_SAFE_2_run_refuses_a_dsh_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SAFE-2: a dsh log is a log, but not one loopspec appends to."""
    dsh = tmp_path / "dsh.jsonl"
    content = b'{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}\n'
    dsh.write_bytes(content)
    assert _run(tmp_path, dsh) == 2
    assert dsh.read_bytes() == content


def test_SAFE_2_run_refuses_fifos_symlinks_and_devices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-2: a FIFO, a symbolic link (even to a log) and /dev/null stay what they were."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert _run(tmp_path, fifo) == 2
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    real = tmp_path / "real.jsonl"
    assert _run(tmp_path, real) == 0
    before = real.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert _run(tmp_path, link) == 2
    assert link.is_symlink()
    assert real.read_bytes() == before
    assert _run(tmp_path, "/dev/null") == 2
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    err = capsys.readouterr().err
    assert "a FIFO" in err
    assert "a symbolic link" in err
    assert "a character device" in err
    assert "Traceback" not in err


def test_SAFE_2_run_appends_to_its_own_log(tmp_path: Path) -> None:
    """SAFE-2: a second run on the same log keeps the first run's events and adds its own."""
    log = tmp_path / "out.jsonl"
    assert _run(tmp_path, log) == 0
    first = log.read_bytes()
    assert _run(tmp_path, log) == 0
    second = log.read_bytes()
    assert second.startswith(first)
    assert len(second) > len(first)
    assert main(["check", str(log)]) == 0


def test_SAFE_2_run_refuses_a_log_another_run_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-2: the lock is not defeated: the held log is untouched and the second run exits 2."""
    log = tmp_path / "out.jsonl"
    assert _run(tmp_path, log) == 0
    before = log.read_bytes()
    holder = LockedLogFile.open(log)
    try:
        assert _run(tmp_path, log) == 2
    finally:
        holder.close()
    assert log.read_bytes() == before
    assert "held by another live session" in capsys.readouterr().err


def test_SAFE_2_an_invalid_hooks_file_leaves_the_log_alone(tmp_path: Path) -> None:
    """SAFE-2: refusing the hooks file happens before the log path is touched."""
    log = tmp_path / "out.jsonl"
    assert _run(tmp_path, log) == 0
    before = log.read_bytes()
    hooks = tmp_path / "hooks.json"
    hooks.write_text('{"hooks": {"PreToolUse": 5}}', encoding="utf-8")
    assert _run(tmp_path, log, "--hooks", str(hooks)) == 2
    assert log.read_bytes() == before
    fresh = tmp_path / "fresh.jsonl"
    assert _run(tmp_path, fresh, "--hooks", str(hooks)) == 2
    assert not fresh.exists()


def test_SAFE_2_a_compressed_log_path_is_refused_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-2: `.jsonl.zst` is refused with a clear line, existing or not."""
    packed = tmp_path / "old.jsonl.zst"
    packed.write_bytes(b"\x28\xb5\x2f\xfdsomething")
    assert _run(tmp_path, packed) == 2
    assert packed.read_bytes() == b"\x28\xb5\x2f\xfdsomething"
    assert _run(tmp_path, tmp_path / "new.jsonl.zst") == 2
    assert not (tmp_path / "new.jsonl.zst").exists()
    err = capsys.readouterr().err
    assert "compressed log" in err
    assert "Traceback" not in err


def test_SAFE_2_open_log_never_truncates_a_file_that_is_not_a_log(tmp_path: Path) -> None:
    """SAFE-2: `open_log` cuts only a torn loopspec header; other text is refused as it is."""
    victim = tmp_path / "notes.jsonl"
    victim.write_bytes(b"important, no newline")
    with pytest.raises(NotALogFile):
        open_log(victim, SYNCED, SessionInfo("s", str(tmp_path)), SystemClock())
    assert victim.read_bytes() == b"important, no newline"
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(b'{"type":"session","vers')
    opened = open_log(torn, SYNCED, SessionInfo("s", str(tmp_path)), SystemClock())
    opened.writer.close()
    assert torn.read_bytes().startswith(b'{"type":"session","version":1,"id":"s"')
