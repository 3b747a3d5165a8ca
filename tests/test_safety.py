"""What a user hands loopspec never runs code, loses data, hangs it or crashes it (SAFE-1..5).

Case files, `--log` paths, scenario, settings and case documents, target processes and hook
processes are the inputs; each test names the rule it holds.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
import time
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


# --- SAFE-3: nothing loopspec starts outlives it -------------------------------------------------

DENY = (
    '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
    '"permissionDecision": "deny", "permissionDecisionReason": "held by the hook"}}'
)


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return stat_line[stat_line.rfind(")") + 2] not in "ZXx"


def _loopspec(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command line in its own process, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "loopspec.properties.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        check=False,
    )


def _hooks_file(tmp_path: Path, command: str) -> Path:
    hooks = tmp_path / "hooks.json"
    handler = {"type": "command", "command": command, "timeout": 20}
    hooks.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [handler]}]}}),
        encoding="utf-8",
    )
    return hooks


@pytest.mark.parametrize("holds_the_pipe", [True, False])
def test_SAFE_3_a_hook_child_that_calls_setsid_is_killed_and_the_answer_kept(
    tmp_path: Path, holds_the_pipe: bool
) -> None:
    """SAFE-3: `setsid sleep 300 &` then an answer: the answer counts, the child is gone."""
    pidfile = tmp_path / "child.pid"
    redirect = "" if holds_the_pipe else " >/dev/null 2>&1 </dev/null"
    command = (
        f"setsid sleep 300{redirect} & echo $! > {shlex.quote(str(pidfile))}; "
        f"echo {shlex.quote(DENY)}"
    )
    hooks = _hooks_file(tmp_path, command)
    started = time.monotonic()
    done = _loopspec(
        "run", str(_scenario(tmp_path)), "--hooks", str(hooks), "--log", "out.jsonl", cwd=tmp_path
    )
    assert time.monotonic() - started < 20  # not the hook's timeout
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "Event loop is closed" not in done.stderr
    assert "held by the hook" in done.stdout  # the hook's deny was read, not a timeout
    child = int(pidfile.read_text(encoding="utf-8"))
    assert not _alive(child)


MISBEHAVING = ROOT / "tests" / "misbehaving_target.py"


def _misbehaving(mode: str, at: int) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(MISBEHAVING))} {mode} {at}"


def test_SAFE_3_a_target_that_leaves_a_detached_child_neither_hangs_nor_leaks(
    tmp_path: Path,
) -> None:
    """SAFE-3: `setsid sleep & exec loop`: conform finishes, and the sleeper is gone by pid."""
    pidfile = tmp_path / "sleeper.pid"
    js_loop = ROOT / "examples" / "js-loop" / "main.mjs"
    script = (
        f"setsid sleep 600 & echo $! > {shlex.quote(str(pidfile))}; "
        f"exec node {shlex.quote(str(js_loop))}"
    )
    done = _loopspec(
        "conform", "--cmd", f"sh -c {shlex.quote(script)}", "--examples", "3", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert not _alive(int(pidfile.read_text(encoding="utf-8")))


def test_SAFE_3_a_target_that_exits_leaving_its_pipe_held_is_an_ended_output(
    tmp_path: Path,
) -> None:
    """SAFE-3: a target exits while a setsid child holds its stdout: no wait for the timeout."""
    pidfile = tmp_path / "child.pid"
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "loopspec.properties.cli.main", "conform"]
        + ["--cmd", _misbehaving("detach", 5), "--examples", "3"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
        env={**os.environ, "MISBEHAVING_PIDFILE": str(pidfile)},
    )
    assert time.monotonic() - started < 60
    assert done.returncode == 2
    assert "ended its output instead of answering" in done.stderr
    assert not _alive(int(pidfile.read_text(encoding="utf-8")))


# --- SAFE-5: a broken target is a protocol failure, not a counterexample -------------------------


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("die", "ended its output instead of answering"),
        ("garbage", "not a JSON line"),
        ("deep", "nests deeper than 200 levels"),
        ("flood", "longer than"),
    ],
)
def test_SAFE_5_a_target_that_breaks_mid_run_exits_2_naming_PROTO_1(
    capsys: pytest.CaptureFixture[str], mode: str, says: str
) -> None:
    """SAFE-5: dies, garbage, deep JSON, an endless line after 30 good commands: exit 2."""
    code = main(["conform", "--cmd", _misbehaving(mode, 30), "--examples", "20"])
    err = capsys.readouterr().err
    assert code == 2
    assert "[PROTO-1]" in err
    assert says in err
    assert "Traceback" not in err
    assert "Flaky" not in err


@pytest.mark.parametrize(
    ("factory", "says"),
    [
        ("raising_factory", "RuntimeError: the factory is broken"),
        ("apply_raises", "ZeroDivisionError: boom inside apply"),
        ("not_a_target", "the target failed in"),
    ],
)
def test_SAFE_5_a_python_target_that_raises_exits_2_in_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    factory: str,
    says: str,
) -> None:
    """SAFE-5: a factory that raises, `apply` that raises, a factory returning junk: exit 2."""
    (tmp_path / "broken_targets.py").write_text(
        "from loopspec.properties.conformance.impl_target import bundled_target\n"
        "def raising_factory():\n"
        "    raise RuntimeError('the factory is broken')\n"
        "def not_a_target():\n"
        "    return 'abc'\n"
        "class ApplyRaises:\n"
        "    name = 'apply-raises'\n"
        "    def __init__(self):\n"
        "        self.inner, self.count = bundled_target(), 0\n"
        "    def reset(self, config):\n"
        "        return self.inner.reset(config)\n"
        "    def apply(self, command):\n"
        "        self.count += 1\n"
        "        if self.count > 3:\n"
        "            raise ZeroDivisionError('boom inside apply')\n"
        "        return self.inner.apply(command)\n"
        "    def close(self):\n"
        "        self.inner.close()\n"
        "def apply_raises():\n"
        "    return ApplyRaises()\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(["conform", "--impl", f"broken_targets:{factory}", "--examples", "20"])
    err = capsys.readouterr().err
    assert code == 2
    assert says in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_SAFE_5_replay_against_a_broken_target_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: replay's target dying mid-case is PROTO-1, exit 2."""
    case = _case_recording(tmp_path, {})
    assert main(["replay", str(case), "--cmd", _misbehaving("die", 1)]) == 2
    assert "[PROTO-1]" in capsys.readouterr().err
