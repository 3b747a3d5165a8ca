"""What a user hands loopspec never runs code, loses data, hangs it or crashes it (SAFE-1..5).

Case files, `--log` paths, scenario, settings and case documents, target processes and hook
processes are the inputs; each test names the rule it holds.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shlex
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from node_requirements import Need
from plugin_targets import DivergesOnOddRuns

from loopspec.impl.clock import SystemClock
from loopspec.impl.log_file import LockedLogFile, NotALogFile
from loopspec.impl.log_writer import SYNCED
from loopspec.impl.opening import SessionInfo, open_log
from loopspec.impl.user_files import shown
from loopspec.model.config import LoopConfig
from loopspec.properties import pytest_plugin
from loopspec.properties.cli.command_words import answers_for, command_words
from loopspec.properties.cli.conform_run import replay_header
from loopspec.properties.cli.main import main
from loopspec.properties.conformance import driver_protocol
from loopspec.properties.conformance.case_format import BUNDLED_IMPL
from loopspec.properties.conformance.case_portable import portable, shared
from loopspec.properties.conformance.command_codec import (
    command_from_json,
    config_from_json,
    config_to_json,
)
from loopspec.properties.conformance.impl_target import scratch_root
from loopspec.properties.conformance.process_target import (
    STDERR_TAIL,
    ProcessTarget,
    ProcessTargetError,
)
from loopspec.properties.conformance.run import (
    SYS_EXIT_IN_TARGET,
    _divergence_in,
    load_case,
    spec_text,
)
from loopspec.properties.conformance.target_frames import TRACEBACK_HEADING
from loopspec.properties.stateful.strategies import CONFIGS

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
REGRESSION = ROOT / "tests" / "regressions" / "dsh-duplicate-call-ids.json"
CLI = (sys.executable, "-m", "loopspec.properties.cli.main")
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


def _case_recording(tmp_path: Path, target: dict[str, str] | None) -> Path:
    """A regression case recording `target`, or naming none (None: no `target` member)."""
    document = json.loads(REGRESSION.read_text(encoding="utf-8"))
    document.pop("target", None)
    if target is not None:
        document["target"] = target
    path = tmp_path / "case.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _scenario(tmp_path: Path) -> Path:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({**SCENARIO, "cwd": str(tmp_path)}), encoding="utf-8")
    return path


# --- SAFE-1: a case file never names what runs ---------------------------------------------------


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_SAFE_1_replay_never_runs_the_command_a_case_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: a recorded `cmd` is shown with how to use it, and nothing runs it."""
    marker = tmp_path / "ran"
    case = _case_recording(tmp_path, {"cmd": f"touch {shlex.quote(str(marker))}"})
    assert main(["replay", str(case), "--bundled"]) == 0
    out = capsys.readouterr().out
    assert not marker.exists()
    # Named for what it is: the factory's module path meant nothing to a reader.
    assert "replaying against loopspec's bundled implementation\n" in out
    assert "not this replay's target: pass --cmd" in out
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
    assert main(["replay", str(case), "--bundled"]) == 0
    assert "planted_target" not in sys.modules
    assert not (tmp_path / "imported").exists()
    assert "pass --impl planted_target:make" in capsys.readouterr().out


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_SAFE_1_replaying_against_another_target_does_not_ask_for_the_recorded_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: a colleague replays a shared case naming their own loop: the note says which
    target the case was found on and that it is not the one replayed, not 'pass --cmd python3
    loop.py to replay against it', which they may just have done in their own words."""
    case = _case_recording(tmp_path, {"cmd": "python3 loop.py"})
    assert (
        main(["replay", str(case), "--impl", "loopspec.properties.conformance.target:ModelTarget"])
        == 0
    )
    note = capsys.readouterr().out.splitlines()[1]
    assert note == (
        "  the case was found on --cmd 'python3 loop.py', not this replay's target: the program "
        "runs on loopspec.properties.conformance.target:ModelTarget, not on the recorded one"
    )


def test_SAFE_1_a_recorded_cmd_with_a_hidden_secret_asks_for_the_secret_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: a case hides a secret of its --cmd as `<hidden>`; replay said 'pass --cmd
    'env API_TOKEN=<hidden> python3 loop.py' to replay against it', which, copied, runs the
    loop with the token `<hidden>`. It now says to put the secret back."""
    recorded = portable("env API_TOKEN=s3cr3t python3 loop.py")
    assert "<hidden>" in recorded
    case = _case_recording(tmp_path, {"cmd": recorded})
    assert main(["replay", str(case), "--bundled"]) == 0
    note = capsys.readouterr().out.splitlines()[1]
    assert note == (
        f"  the case was found on --cmd {shlex.quote(recorded)}, not this replay's target: to "
        "replay on it, pass that --cmd with each <hidden> put back as the secret it stands for "
        "(the case does not keep it)"
    )


@pytest.mark.parametrize(
    ("typed", "same"),
    [
        ("examples/dsh-adapter/run.sh --fast", True),
        ("./examples/dsh-adapter/run.sh  --fast", True),
        (f"{Path.cwd()}/examples/dsh-adapter/run.sh --fast", True),  # written ./ in a case
        ("examples/dsh-adapter/run.sh", False),
        ("run.sh --fast", False),
    ],
)
def test_SAFE_1_replay_says_whether_it_runs_the_command_the_case_records(
    tmp_path: Path, typed: str, *, same: bool
) -> None:
    """SAFE-1: replay said "recorded target: --cmd X (the one replayed)" when the command typed
    was X, which read as if replay had run the recorded loop, and "(as conform was given it, in
    the folder it ran in), not run" when it was `./X`, the same file. It says whether the
    target replayed is the one the case records, a path's `./` or the folder's absolute path
    aside (a program named without a `/` is looked up on PATH: another command)."""
    case = load_case(_case_recording(tmp_path, {"cmd": "examples/dsh-adapter/run.sh --fast"}))
    note = replay_header("case.json", {"cmd": typed}, case, profile_note=None)[1]
    recorded = "  the case was found on --cmd 'examples/dsh-adapter/run.sh --fast'"
    if same:
        assert note == f"{recorded}, the same command as this replay's"
    else:
        assert note == (
            f"{recorded} (as conform was given it, in the folder it ran in), not this replay's "
            f"command: the program runs on {typed.strip()}, not on the recorded one"
        )


_SAME_BUNDLED = (
    "  the case was found on loopspec's bundled implementation, the same target as this replay's"
)

_HAND_WRITTEN = "  the case names no loop it was found on (a case written by hand)"


@pytest.mark.no_cover
@pytest.mark.parametrize(
    ("target", "replayed_on", "expected"),
    [
        ({}, [], _SAME_BUNDLED),
        # Named by its factory, it is still the one the case was found on.
        ({}, ["--impl", BUNDLED_IMPL], _SAME_BUNDLED),
        # A case written by hand may name no target: the case format reads that as the bundled
        # implementation, as it reads {} (`loopspec schema case`, the tutorial's member table),
        # but it was found on none, and its writer replays it on their own loop.
        (None, [], _HAND_WRITTEN),
        (None, ["--impl", BUNDLED_IMPL], _HAND_WRITTEN),
        (None, ["--impl", "loopspec.properties.conformance.target:ModelTarget"], _HAND_WRITTEN),
        (
            {},
            ["--impl", "loopspec.properties.conformance.target:ModelTarget"],
            "  the case was found on loopspec's bundled implementation, not this replay's target: "
            "replay with no --impl or --cmd to run it",
        ),
    ],
)
def test_SAFE_1_a_case_found_on_the_bundled_implementation_says_so(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    target: dict[str, str] | None,
    replayed_on: list[str],
    expected: str,
) -> None:
    """SAFE-1: a case conform found without --impl or --cmd records the target {} (the bundled
    implementation, as the case schema says); replay read it 'recorded target: none', which a
    colleague took for a target lost on the way, then 'recorded target: ... (the one
    replayed)', which read as if replay ran the recorded loop: it says whether the two are the
    same target. The bundled implementation named by its factory is named as the bundled one
    (its name was empty: 'replaying against '). A case naming no target, written by hand, was
    said to be found on the bundled implementation, 'not this replay's target', to the person
    replaying the question they had just written on their own loop."""
    case = _case_recording(tmp_path, target)
    assert main(["replay", str(case), *replayed_on]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == expected
    if replayed_on[1:] == [BUNDLED_IMPL]:
        assert out[0] == f"{case}: replaying against loopspec's bundled implementation"


def test_SAFE_1_a_case_saved_back_with_a_byte_order_mark_replays_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: a shared case that came back through an editor saving a UTF-8 BOM replays as it
    did (it was refused: 'the case file is not JSON: Unexpected UTF-8 BOM')."""
    case = _case_recording(tmp_path, {})
    assert main(["replay", str(case)]) == 0
    plain = capsys.readouterr().out
    case.write_bytes(b"\xef\xbb\xbf" + case.read_bytes())
    assert main(["replay", str(case)]) == 0
    assert capsys.readouterr().out == plain


def test_SAFE_1_a_session_log_given_to_replay_is_named_for_what_it_is(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """SAFE-1: a session log given to replay is refused saying it is JSON Lines and which verb
    reads it (it read 'the case file is not JSON: Extra data: line 2 column 1')."""
    log = ROOT / "tests" / "fixtures" / "logs" / "valid" / "model-demo.jsonl"
    assert main(["replay", str(log)]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: {log}: one JSON value per line (JSON Lines, a session "
        "log?), not a case file; a session log is checked with `loopspec check`\n"
    )


def test_SAFE_1_the_recorded_target_is_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: terminal control characters in a recorded target are printed escaped."""
    case = _case_recording(tmp_path, {"cmd": "evil\x1b[2Jcmd"})
    assert main(["replay", str(case), "--bundled"]) == 0
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


def test_SAFE_2_a_dsh_log_with_its_header_is_refused_as_not_loopspec_s_not_as_broken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-2: a dsh log's header begins as loopspec's own do, so the refusal came from reading
    it as one, and said "[SAFE-2] dsh.jsonl: line 3: [LOG-4] reasoning-chunks.seq must be an
    integer": a valid dsh log (check keeps it) read as a log that breaks LOG-4. The refusal
    now says the file is not a log loopspec can append to, and why, and the file is kept."""
    dsh = tmp_path / "dsh.jsonl"
    rows = [
        {"type": "session", "version": 0, "id": "s", "createdAt": 1, "cwd": "/w"},
        {"type": "turn/start", "seq": 0, "time": 1, "data": {"turn": 1}},
        {"type": "step/start", "seq": 1, "time": 1, "data": {"turn": 1, "step": 1}},
        {
            "type": "reasoning-chunks",
            "seq0": 2,
            "time0": 1,
            "data": {"turn": 1, "step": 1, "index": 0, "dt": [0], "texts": ["hm"]},
        },
    ]
    content = "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in rows).encode()
    dsh.write_bytes(content)
    assert _run(tmp_path, dsh) == 2
    assert dsh.read_bytes() == content
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"loopspec: error: [SAFE-2] {dsh}: exists and is not a log loopspec")
    assert "a dsh log" in line


@pytest.mark.parametrize("torn", [False, True], ids=["whole", "torn last line"])
def test_SAFE_2_a_dsh_log_whose_rows_loopspec_reads_is_refused_by_its_header_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], torn: bool
) -> None:
    """SAFE-2: dsh writes the same event layout under header version 0, so a dsh log without
    compact chunk rows read as a loopspec log and `run --log` appended to it (two of the four
    dsh sample logs), or cut its torn last line. loopspec writes version 1 only: the log is
    refused by its version, and kept byte for byte."""
    dsh = tmp_path / "dsh.jsonl"
    rows = [
        {"type": "session", "version": 0, "id": "s", "createdAt": 1, "cwd": "/w"},
        {"type": "turn/start", "seq": 0, "time": 1, "data": {"turn": 1}},
        {
            "type": "turn/end",
            "seq": 1,
            "time": 2,
            "data": {"turn": 1, "reason": {"kind": "completed"}},
        },
    ]
    content = "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in rows).encode()
    if torn:
        content += b'{"type":"turn/sta'
    dsh.write_bytes(content)
    assert _run(tmp_path, dsh) == 2
    assert dsh.read_bytes() == content
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"loopspec: error: [SAFE-2] {dsh}: exists and is not a log loopspec")
    assert "header version 0, where loopspec writes and appends to version 1 only" in line


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


def test_SAFE_2_run_appends_to_its_own_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-2: a second run on the same log keeps the first run's events and adds its own."""
    log = tmp_path / "out.jsonl"
    assert _run(tmp_path, log) == 0
    first = log.read_bytes()
    capsys.readouterr()
    assert _run(tmp_path, log) == 0
    second = log.read_bytes()
    assert second.startswith(first)
    assert len(second) > len(first)
    out = capsys.readouterr().out
    assert "from earlier runs" in out
    assert out.count("\n  c1 bash ") == 1  # the audit section shows this run's calls only
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
        [*CLI, *args],
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
    done = _loopspec(
        "run", str(_scenario(tmp_path)), "--hooks", str(hooks), "--log", "out.jsonl", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "Event loop is closed" not in done.stderr
    assert "held by the hook" in done.stdout  # the hook's deny was read, not a timeout
    child = int(pidfile.read_text(encoding="utf-8"))
    assert not _alive(child)


def test_SAFE_3_the_program_ends_a_hook_child_that_escaped_its_token(tmp_path: Path) -> None:
    """SAFE-3: `env -i setsid sleep &` carries no token and leaves the group; the `loopspec`
    program (a subreaper) still ends it before exiting."""
    pidfile = tmp_path / "child.pid"
    command = (
        f"env -i setsid sleep 300 >/dev/null 2>&1 </dev/null & "
        f"echo $! > {shlex.quote(str(pidfile))}; echo {shlex.quote(DENY)}"
    )
    hooks = _hooks_file(tmp_path, command)
    done = _loopspec(
        "run", str(_scenario(tmp_path)), "--hooks", str(hooks), "--log", "out.jsonl", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "held by the hook" in done.stdout
    assert not _alive(int(pidfile.read_text(encoding="utf-8")))


MISBEHAVING = ROOT / "tests" / "misbehaving_target.py"


def _misbehaving(mode: str, at: int) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(MISBEHAVING))} {mode} {at}"


@pytest.mark.needs(Need.NODE)
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


def _wait_until(ready: Callable[[], bool]) -> None:
    """Wait for a started process to reach the point a test signals it at. Bounded generously:
    a SIGTERM sent before loopspec installed its handler (a loaded CI machine starting Python
    slowly) would end it by the default action, a failure that says nothing of the rule."""
    deadline = time.monotonic() + 60
    while not ready():
        assert time.monotonic() < deadline, "the process did not get there within 60 s"
        time.sleep(0.02)


# Answers reset, notes its pid, then neither answers nor ends on SIGTERM or a closed stdin.
_STUBBORN_TARGET = """
import json, os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
sys.stdin.readline()
ready = {"type": "ready", "protocol": 1, "implementation": "stubborn", "capabilities": []}
print(json.dumps(ready), flush=True)
with open(sys.argv[1], "w") as pidfile:
    pidfile.write(str(os.getpid()))
while True:
    time.sleep(1)
"""


def test_SAFE_3_a_conform_run_ended_by_sigterm_ends_its_target(tmp_path: Path) -> None:
    """SAFE-3: SIGTERM (a CI job's `timeout`) ends `loopspec conform` with exit 143 and its
    target with it. The default action killed loopspec on the spot: the target, in a session of
    its own, went on running (h3's Frank found one left after `timeout 3`)."""
    script, pidfile = tmp_path / "stubborn.py", tmp_path / "target.pid"
    script.write_text(_STUBBORN_TARGET, encoding="utf-8")
    command = shlex.join([sys.executable, str(script), str(pidfile)])
    run = subprocess.Popen(
        [*CLI, "conform", "--cmd", command, "--examples", "2"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The target answered reset: conform awaits its first answer.
        _wait_until(lambda: pidfile.exists() and bool(pidfile.read_text(encoding="utf-8")))
        target = int(pidfile.read_text(encoding="utf-8"))
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 143, err
    assert "Traceback" not in err
    assert not _alive(target)


# The bundled target, noting its second reset: the first program has made its scratch folder.
_NOTING_IMPL = """
from pathlib import Path
from loopspec.properties.conformance.impl_target import bundled_target


class Noting:
    def __init__(self):
        self._inner = bundled_target()
        self._resets = 0

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def reset(self, config):
        self._resets += 1
        if self._resets == 2:
            Path("second-reset").touch()
        return self._inner.reset(config)
"""


def test_SAFE_3_a_conform_run_ended_by_sigterm_leaves_no_scratch_folder(tmp_path: Path) -> None:
    """SAFE-3: SIGTERM ends a conform run on the in-process target (the bundled one, or
    --impl) without leaving the folder its programs ran in: os._exit passed the finalizer that
    removes it, and every such run left a loopspec-* folder in /dev/shm (or TMPDIR)."""
    (tmp_path / "noting.py").write_text(_NOTING_IMPL, encoding="utf-8")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    run = subprocess.Popen(
        [*CLI, "conform", "--impl", "noting:Noting", "--examples", "100000"],
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(scratch), "HYPOTHESIS_STORAGE_DIRECTORY": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_until((tmp_path / "second-reset").exists)
        assert [path.name[:9] for path in scratch.iterdir()] == ["loopspec-"]
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 143, err
    assert list(scratch.iterdir()) == []


# A test of a user's suite, run by pytest beside the plugin's: what SIGTERM does meanwhile.
_SIGTERM_PROBE = """
import signal
from loopspec.properties import pytest_plugin


def test_sigterm_ends_what_loopspec_left():
    assert signal.getsignal(signal.SIGTERM) is pytest_plugin._end_after_cleaning_up
"""


def test_SAFE_3_pytest_running_the_plugin_cleans_up_before_sigterm_ends_it(
    pytester: pytest.Pytester,
) -> None:
    """SAFE-3: SIGTERM (a CI job's timeout) ended pytest running the plugin by its default
    action, which pytest keeps: the in-process target's folder was left in /dev/shm (or TMPDIR),
    a --loopspec-cmd loop running. While a target is given, the plugin's handler is SIGTERM's
    (below, what it does), and the default action is back once pytest ends."""
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    pytester.makepyfile(test_users=_SIGTERM_PROBE)
    done = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "-q", f"--loopspec-impl={BUNDLED_IMPL}", "-k", "test_users"
    )
    done.assert_outcomes(passed=1)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_SAFE_3_the_plugin_s_sigterm_handler_ends_targets_and_scratch_then_pytest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAFE-3: on SIGTERM the plugin ends a --loopspec-cmd process still running (in a session
    of its own, it outlived pytest) and removes the in-process target's scratch folder, then
    ends pytest by the signal's default action, as it would have ended without the plugin."""
    script, pidfile = tmp_path / "stubborn.py", tmp_path / "target.pid"
    script.write_text(_STUBBORN_TARGET, encoding="utf-8")
    target = ProcessTarget([sys.executable, str(script), str(pidfile)])
    target.reset(LoopConfig())
    scratch = scratch_root()
    ended_by: list[tuple[int, object]] = []
    kill = os.kill

    def kill_all_but_this_process(pid: int, signum: int) -> None:
        if pid == os.getpid():
            ended_by.append((pid, signal.getsignal(signum)))
        else:
            kill(pid, signum)

    monkeypatch.setattr(os, "kill", kill_all_but_this_process)
    try:
        pytest_plugin._end_after_cleaning_up(signal.SIGTERM, None)
    finally:
        monkeypatch.undo()
        target.close()
    assert not _alive(int(pidfile.read_text(encoding="utf-8")))
    assert not scratch.exists()
    assert ended_by == [(os.getpid(), signal.SIG_DFL)]


def test_SAFE_3_the_scratch_folder_is_removed_at_exit_without_a_resource_warning(
    tmp_path: Path,
) -> None:
    """SAFE-3: a process that made the in-process target's scratch folder removes it at exit
    itself; left to the folder's finalizer, every conform run under PYTHONWARNINGS=default
    ended "ResourceWarning: Implicitly cleaning up <TemporaryDirectory '/dev/shm/loopspec-...'>"."""
    making = (
        "from loopspec.properties.conformance.impl_target import scratch_root\n"
        "print(scratch_root())\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "default", "-c", making],
        env={**os.environ, "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert Path(done.stdout.strip()).parent == tmp_path
    assert list(tmp_path.iterdir()) == []


def test_SAFE_3_a_sigterm_while_the_in_process_target_loads_still_ends_the_run() -> None:
    """SAFE-3: SIGTERM landing while the in-process target's module is still being imported
    (found in sys.modules, its `remove_scratch` not defined yet) ends the run as any SIGTERM
    does, 143 and one line: the handler's AttributeError went on through that import, and
    `loopspec demo` ended "cannot load ...impl_target: partially initialized module", exit 2."""
    loading = (
        "import sys, types\n"
        "from loopspec.properties.cli import main\n"
        "name = 'loopspec.properties.conformance.impl_target'\n"
        "sys.modules[name] = types.ModuleType(name)\n"
        "main._end_everything_below(15)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", loading], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stderr) == (
        143,
        "loopspec: stopped by SIGTERM: every process the run started is ended, its report not "
        "written\n",
    )


def test_SAFE_3_a_replay_ended_by_sigterm_keeps_what_it_printed(tmp_path: Path) -> None:
    """SAFE-3: a replay SIGTERM ends still shows what it printed before (its header, naming the
    case and target). Exiting without Python's flush at exit lost it wherever stdout is a pipe
    or a file (a CI log), which Python buffers: the log showed nothing of the run."""
    script, pidfile = tmp_path / "stubborn.py", tmp_path / "target.pid"
    script.write_text(_STUBBORN_TARGET, encoding="utf-8")
    command = shlex.join([sys.executable, str(script), str(pidfile)])
    case = ROOT / "tests" / "regressions" / "codex-ADJ-1.json"
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    run = subprocess.Popen(
        [*CLI, "replay", str(case), "--cmd", command],
        cwd=tmp_path,
        env=buffered,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The target answered reset: the header is printed by now.
        _wait_until(lambda: pidfile.exists() and bool(pidfile.read_text(encoding="utf-8")))
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 143, err
    # Its paths from the folder it ran in, as a case writes them (SAFE-1); a long one is cut.
    named = shlex.join([sys.executable, "./stubborn.py", "./target.pid"])
    assert f"{case}: replaying against {shown(named)}" in out


# `loopspec run --harness` whose harness never ends: `drive` replaced, so no CLI need be
# installed. It notes that it started (after writing to the log when told to), then waits.
_HANGING_HARNESS_RUN = """
import sys, time
from pathlib import Path
import loopspec.properties.harnesses.cli as harness_cli
started, written, log = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[-1])
def drive(request):
    if written:
        log.write_text(written)
    started.write_text("started")
    time.sleep(60)
harness_cli.drive = drive
from loopspec.properties.cli.main import main
sys.argv = ["loopspec", *sys.argv[3:]]
sys.exit(main())
"""


@pytest.mark.parametrize("written", ["", "someone else's line\n"])
def test_SAFE_3_a_harness_run_ended_by_sigterm_leaves_no_empty_log_to_refuse_its_rerun(
    tmp_path: Path, written: str
) -> None:
    """SAFE-3: `loopspec run --harness ... --log OUT` creates OUT at the start; SIGTERM ended it
    by `os._exit`, past the removal of the file it could not fill, so an empty OUT stayed and
    the rerun naming it was refused ("exists; give --log a new path"). The empty file the run
    created goes now; one that holds anything is kept."""
    started, log = tmp_path / "started", tmp_path / "out.jsonl"
    scenario = ROOT / "examples" / "claude-code-adapter" / "scenarios" / "one-call.json"
    given = ["run", str(scenario), "--harness", "claude-code", "--log", str(log)]
    script = [sys.executable, "-c", _HANGING_HARNESS_RUN, str(started), written, *given]
    run = subprocess.Popen(script, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        _wait_until(started.exists)  # the harness started: the log was created before
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 143, err
    if written:
        assert log.read_text(encoding="utf-8") == written
    else:
        assert not log.exists()


# `loopspec run --harness` whose harness wrote a transcript of 4000 bytes (`drive` replaced, so
# no CLI need be installed; the report, which reads the whole session, is one line), run under
# a file size limit of 1000 bytes: the system takes only part of the copy, as a full disk does.
_TRANSCRIPT_PAST_THE_DISK = """
import resource, sys, types
import loopspec.properties.harnesses.cli as harness_cli
def drive(request):
    return {"logs": [{"path": ".claude/projects/p/s.jsonl", "text": "x" * 3999 + "\\n"}]}
harness_cli.drive = drive
harness_cli.session_view = lambda *given, **named: types.SimpleNamespace(divergences=[])
harness_cli.report_lines = lambda view, result: ["the report"]
resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
from loopspec.properties.cli.main import main
sys.argv = ["loopspec", *sys.argv[1:]]
sys.exit(main())
"""


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE (POSIX)")
def test_SAFE_4_a_harness_transcript_the_disk_takes_part_of_leaves_no_cut_copy(
    tmp_path: Path,
) -> None:
    """SAFE-4: `run --harness --log OUT` copied the transcript with one `write`, whose short
    count on a full disk went unchecked: OUT kept the first part and the run went on as if it
    were whole. The copy is written whole or the file the run created is removed, with one
    line saying the log was not created."""
    log = tmp_path / "out.jsonl"
    scenario = ROOT / "examples" / "claude-code-adapter" / "scenarios" / "one-call.json"
    given = ["run", str(scenario), "--harness", "claude-code", "--log", str(log)]
    done = subprocess.run(
        [sys.executable, "-c", _TRANSCRIPT_PAST_THE_DISK, *given],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        # Under the limit, a module compiled would be cached cut short, failing every later
        # process that imports it from the same cache.
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        check=False,
    )
    assert (done.returncode, done.stderr) == (
        2,
        f"loopspec: error: {log}: cannot create the log: file too large\n",
    )
    assert not os.path.lexists(log)


# A harness run whose SIGTERM (or Ctrl-C's SIGINT) another of its threads takes while the main
# thread sleeps: the state a signal that lands between the main thread's last check for signals
# and its blocking call leaves (a loaded machine made that window wide enough to hit).
_SIGNAL_PAST_THE_MAIN_THREAD = """
import signal, sys, threading, time
import loopspec.properties.harnesses.cli as harness_cli
signum = signal.Signals[sys.argv[1]]
signal.signal(signal.SIGINT, signal.default_int_handler)  # even where it started ignored
asleep = threading.Event()
def take_signal():
    asleep.wait()
    time.sleep(0.5)  # the main thread is in its sleep by now
    signal.pthread_kill(threading.get_ident(), signum)
def drive(request):
    threading.Thread(target=take_signal).start()
    asleep.set()
    time.sleep(60)
harness_cli.drive = drive
from loopspec.properties.cli.main import main
sys.argv = ["loopspec", *sys.argv[2:]]
sys.exit(main())
"""


@pytest.mark.parametrize(("ending", "cause"), [("SIGTERM", "SIGTERM"), ("SIGINT", "Ctrl-C")])
def test_SAFE_3_a_signal_the_main_thread_does_not_wake_for_still_ends_the_run(
    tmp_path: Path, ending: str, cause: str
) -> None:
    """SAFE-3: SIGTERM and Ctrl-C end a run at once even when they interrupt none of the main
    thread's calls. Python runs a signal's handler only when the main thread next checks for
    one: a signal that landed just before the main thread slept (or read its harness's output)
    ended the run only when that call returned, 60 s later here, with every target still
    running (the flaky `test_SAFE_3_a_harness_run_ended_by_sigterm_...` under load)."""
    scenario = ROOT / "examples" / "claude-code-adapter" / "scenarios" / "one-call.json"
    given = ["run", str(scenario), "--harness", "claude-code", "--log", str(tmp_path / "out")]
    script = [sys.executable, "-c", _SIGNAL_PAST_THE_MAIN_THREAD, ending, *given]
    run = subprocess.Popen(script, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        _, err = run.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the run went on sleeping 30 s past its {ending}")
    finally:
        run.kill()
    assert run.returncode == 128 + signal.Signals[ending], err
    assert f"stopped by {cause}" in err


def test_SAFE_3_the_readme_says_how_an_interrupt_and_sigterm_end_a_run() -> None:
    """SAFE-3: README states the exit statuses of a run Ctrl-C or SIGTERM ends, which the tests
    above hold (143 for SIGTERM); it named neither, and a CI author read 143 as a crash."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"Ctrl-C ends a run with exit {128 + signal.SIGINT}" in readme
    assert f"SIGTERM (`timeout`, a CI job cancelled) with exit {128 + signal.SIGTERM}" in readme


def test_SAFE_3_a_run_ended_by_sigterm_exits_though_its_stdout_is_a_full_pipe(
    tmp_path: Path,
) -> None:
    """SAFE-3: SIGTERM ends a replay with exit 143 even when what it still has to print cannot
    be written: its stdout a pipe that is full and that nobody reads. Flushing the output at
    SIGTERM blocked there for ever, with the run's target already ended."""
    script, pidfile = tmp_path / "stubborn.py", tmp_path / "target.pid"
    script.write_text(_STUBBORN_TARGET, encoding="utf-8")
    command = shlex.join([sys.executable, str(script), str(pidfile)])
    case = ROOT / "tests" / "regressions" / "codex-ADJ-1.json"
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    unread, stdout = os.pipe()
    try:
        os.write(stdout, b"x" * (fcntl.fcntl(stdout, fcntl.F_GETPIPE_SZ) - 16))
        run = subprocess.Popen(
            [*CLI, "replay", str(case), "--cmd", command],
            cwd=tmp_path,
            env=buffered,
            stdout=stdout,
            stderr=subprocess.DEVNULL,
        )
    finally:
        os.close(stdout)
    try:
        # The target answered reset: the header waits in the buffer.
        _wait_until(lambda: pidfile.exists() and bool(pidfile.read_text(encoding="utf-8")))
        run.send_signal(signal.SIGTERM)
        assert run.wait(timeout=30) == 143
    finally:
        run.kill()
        os.close(unread)


# `loopspec` whose alarms another thread takes (the state of an alarm that lands just before a
# blocking write: Python runs its handler only when the main thread next checks for signals).
_ALARMS_PAST_THE_MAIN_THREAD = """
import signal, sys, threading
def alarm_elsewhere(seconds):
    ring = lambda: signal.pthread_kill(threading.get_ident(), signal.SIGALRM)
    threading.Timer(seconds, ring).start()
    return 0
signal.alarm = alarm_elsewhere
from loopspec.properties.cli.main import main
sys.argv = ["loopspec", *sys.argv[1:]]
sys.exit(main())
"""


def test_SAFE_3_a_sigterm_run_whose_flush_deadline_wakes_no_call_still_exits(
    tmp_path: Path,
) -> None:
    """SAFE-3: the 2 s a SIGTERM'd run may spend flushing into a full pipe nobody reads hold
    even when the alarm that ends them interrupts none of its calls: the flush's write blocked
    for ever, the run's target already ended."""
    script, pidfile = tmp_path / "stubborn.py", tmp_path / "target.pid"
    script.write_text(_STUBBORN_TARGET, encoding="utf-8")
    command = shlex.join([sys.executable, str(script), str(pidfile)])
    case = ROOT / "tests" / "regressions" / "codex-ADJ-1.json"
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    given = ["replay", str(case), "--cmd", command]
    unread, stdout = os.pipe()
    try:
        os.write(stdout, b"x" * (fcntl.fcntl(stdout, fcntl.F_GETPIPE_SZ) - 16))
        run = subprocess.Popen(
            [sys.executable, "-c", _ALARMS_PAST_THE_MAIN_THREAD, *given],
            cwd=tmp_path,
            env=buffered,
            stdout=stdout,
            stderr=subprocess.DEVNULL,
        )
    finally:
        os.close(stdout)
    try:
        # The target answered reset: the header waits in the buffer.
        _wait_until(lambda: pidfile.exists() and bool(pidfile.read_text(encoding="utf-8")))
        run.send_signal(signal.SIGTERM)
        try:
            assert run.wait(timeout=30) == 143
        except subprocess.TimeoutExpired:
            pytest.fail("the run went on writing to a full pipe 30 s past its SIGTERM")
    finally:
        run.kill()
        os.close(unread)


@pytest.mark.needs(Need.NODE)
def test_SAFE_3_a_target_that_exits_leaving_its_pipe_held_is_an_ended_output(
    tmp_path: Path,
) -> None:
    """SAFE-3: a target exits while a setsid child holds its stdout: no wait for the timeout."""
    pidfile = tmp_path / "child.pid"
    done = subprocess.run(
        [*CLI, "conform", "--cmd", _misbehaving("detach", 1), "--examples", "3"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
        env={**os.environ, "MISBEHAVING_PIDFILE": str(pidfile)},
    )
    assert done.returncode == 2
    assert "ended its output instead of answering" in done.stderr
    assert not _alive(int(pidfile.read_text(encoding="utf-8")))


# --- SAFE-5: a broken target is a protocol failure, not a counterexample -------------------------


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("die", "ended its output instead of answering"),
        # A line that is not JSON is most often a print left in the loop: say where it goes.
        (
            "garbage",
            "not a JSON line (Expecting value: line 1 column 1 (char 0)); stdout carries "
            "only the protocol's messages: write anything else (debugging output) to "
            "stderr",
        ),
        ("deep", "nests deeper than 200 levels"),
        ("nested", "nests deeper than 200 levels"),
        ("flood", "longer than"),
    ],
)
@pytest.mark.needs(Need.NODE)
def test_SAFE_5_a_target_that_breaks_mid_run_exits_2_naming_PROTO_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, says: str
) -> None:
    """SAFE-5: dies, garbage, deep JSON, an endless line after 30 good commands: exit 2, and
    the program it broke in is saved as a case (named on the error's first line)."""
    argv = ["conform", "--cmd", _misbehaving(mode, 30), "--examples", "20"]
    code = main([*argv, "--case-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "[PROTO-1]" in err
    assert says in err
    (case,) = tmp_path.iterdir()
    assert f"; rerun it: loopspec replay {shlex.quote(str(case))} --cmd " in err.splitlines()[0]
    # One number for the command, its place in the saved program: not also the seq the message
    # carried (counted over the process's life, found in no case).
    assert re.search(r"command #\d+ of a program \(", err.splitlines()[0]), err
    assert "of seq" not in err
    # The case is for sharing: it holds the error's first line, never the target's stderr,
    # and the line's paths from the working folder (SAFE-1); the command by its number in it.
    what = json.loads(case.read_text(encoding="utf-8"))["what"]
    first = err.splitlines()[0].removeprefix("loopspec: error: [PROTO-1] ").split(" command #")[0]
    assert what.startswith(shared(first)), what  # a path outside both folders by its last name
    assert re.search(r" command #\d+ of the case\b", what), what
    assert "Traceback" not in err
    assert "Flaky" not in err


# Every JSON value that is no object, as a whole answer: the reset's, and the first command's
# after a good reset (the shutdown that follows reads the same way).
_NOT_AN_OBJECT = ("null", "[]", "3", '"ready"', "true")


@pytest.mark.no_cover
@pytest.mark.parametrize("answer", _NOT_AN_OBJECT)
@pytest.mark.parametrize("good_reset", [False, True])
def test_SAFE_5_an_answer_that_is_no_json_object_is_a_protocol_failure(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
    good_reset: bool,
) -> None:
    """SAFE-5: a target answering `null` (or `[]`, `3`, a string) where an object was due ends
    the run with exit 2 naming PROTO-1, where `null` once crashed loopspec (exit 3) reading the
    answer's history."""
    ready = {"type": "ready", "protocol": 1, "implementation": "x", "capabilities": []}
    (tmp_path / "ready.txt").write_text((json.dumps(ready) if good_reset else answer) + "\n")
    (tmp_path / "answer.txt").write_text(answer + "\n")
    script = "read a; cat ready.txt; read b; cat answer.txt; read c; cat answer.txt"
    argv = ["conform", "--cmd", f"sh -c {shlex.quote(script)}", "--examples", "1"]
    monkeypatch.chdir(tmp_path)
    code = main([*argv, "--case-dir", "cases"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "[PROTO-1]" in err
    assert "Traceback" not in err


def test_SAFE_5_an_error_whose_context_loops_back_is_searched_once() -> None:
    """SAFE-5: looking for the divergence inside whatever a run raised ends on an exception
    chain that loops back (an error raised while handling one that handled it)."""
    first, second = ValueError("first"), ValueError("second")
    first.__context__, second.__context__ = second, first
    assert _divergence_in(first) is None


@pytest.mark.parametrize("style", ["text", "json"])
def test_SAFE_5_a_program_answered_two_ways_exits_2_with_its_program_saved_and_shown(
    style: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """SAFE-5: a target that diverges, then answers the same program otherwise when conform
    reruns it to shrink, exits 2 with one error line naming the first divergence and what a
    target must do (it was a traceback: Hypothesis's FlakyFailure group), and the program is
    saved as a case and shown, text and JSON alike: nothing was left to replay or attach to a
    bug report (h5, the real Claude Code CLI's race). The case says a replay of it may pass."""
    monkeypatch.setattr(DivergesOnOddRuns, "runs", 0)
    monkeypatch.chdir(tmp_path)
    argv = ["conform", "--impl", "plugin_targets:DivergesOnOddRuns", "--format", style]
    code = main([*argv, "--examples", "5", "--case-dir", "cases"])
    out, err = capsys.readouterr()
    assert code == 2, err
    (case,) = (tmp_path / "cases").iterdir()
    replay = f"loopspec replay cases/{case.name} --impl plugin_targets:DivergesOnOddRuns"
    (line,) = err.splitlines()
    assert line.startswith(
        "loopspec: error: [PROTO-1] the target answered a program differently when it ran "
        "again (conform reruns a diverging program to confirm and shrink it); the first run "
        "found ["
    )
    assert line.endswith(
        "`reset` starts an empty session, and nothing may carry over from an "
        "earlier program or depend on time or chance (a Go map is iterated in another order "
        f"each time: order by the reply's calls or the configuration); its program is saved: "
        f"rerun: {replay}"
    )
    saved = json.loads(case.read_text(encoding="utf-8"))
    assert case.name == f"case-{saved['rule']}-0.json"
    assert f"found [{saved['rule']}] after command #{len(saved['commands'])} " in line
    assert saved["summary"].endswith("so a replay may pass (replay it a few times)")
    assert saved["unrepeated"] is True
    if style == "json":
        document = json.loads(out)
        assert (document["unrepeated"], document["conformant"]) == (True, False)
        assert document["verdict"] == "DIVERGED ONCE, NOT WHEN RERUN"
        divergence = document["divergence"]
        assert (divergence["rule"], divergence["program"]) == (saved["rule"], saved["commands"])
        assert (divergence["case"], divergence["replay"]) == (f"cases/{case.name}", replay)
        return
    # Replayed when the loop answers it the other way (an even run), the pass says the case
    # was saved from a divergence not repeated: "passes now" read as the race fixed.
    monkeypatch.setattr(DivergesOnOddRuns, "runs", 1)
    assert main(["replay", *replay.split()[2:]]) == 0
    replayed = capsys.readouterr().out
    assert replayed.splitlines()[-2].endswith(
        f"no divergence: passes this time, but the case was saved from a divergence "
        f"({saved['rule']}) its loop did not repeat when conform ran the program again"
    ), replayed
    assert replayed.splitlines()[-1].startswith(
        "  the loop answered this program two ways when the case was saved (a race, "
    )
    lines = out.splitlines()
    assert lines[0].endswith(
        f": DIVERGED ONCE, NOT WHEN RERUN: {saved['rule']} (loopspec spec {saved['rule']})"
    )
    assert "the target did not diverge when conform ran this program again" in lines[2]
    assert "command program as the first run found it (not shrunk" in out
    assert f"\nsaved case: cases/{case.name}\nrerun: {replay}\n" in out
    assert lines[-1] == (
        f"DIVERGED ONCE, NOT WHEN RERUN: {saved['rule']} (loopspec spec {saved['rule']}); "
        f"rerun: {replay}"
    )


def test_PROTO_1_a_loop_exiting_0_between_programs_is_told_one_process_serves_them_all() -> None:
    """PROTO-1: a `--cmd` loop that answers a session, then exits 0 as if done, is told that one
    process serves every program, each begun by a reset: "the process ended its output instead
    of answering reset" said what the wire saw, not what the loop must do."""
    ready = json.dumps({"type": "ready", "implementation": "once", "capabilities": []})
    once = f"import sys; sys.stdin.readline(); print({ready!r}, flush=True)"
    target = ProcessTarget(shlex.join([sys.executable, "-c", once]), name="once")
    try:
        assert target.reset(LoopConfig()) == frozenset()
        with pytest.raises(ProcessTargetError) as refused:
            target.reset(LoopConfig())
    finally:
        target.close()
    assert refused.value.message.splitlines()[:2] == [
        "once: the process ended its output instead of answering reset (it exited with status "
        "0, having answered before: one process serves every program, each begun by a reset, "
        "and a loop exits only once it has answered shutdown)",
        "exit code: 0",
    ]


def test_PROTO_1_a_loop_started_again_exiting_0_is_not_said_to_have_answered(
    tmp_path: Path,
) -> None:
    """PROTO-1: a process started again after the one before it ended, exiting 0 before its
    first answer, was said to have "exited with status 0, having answered before": the target
    had (another process), this one had not."""
    ready = json.dumps({"type": "ready", "implementation": "twice", "capabilities": []})
    marker = shlex.quote(str(tmp_path / "started"))
    # The first process answers one reset and exits 1 at the next; every later one exits 0.
    script = (
        f"read -r line; [ -e {marker} ] && exit 0; touch {marker}; "
        f"echo {shlex.quote(ready)}; read -r line; exit 1"
    )
    target = ProcessTarget(["sh", "-c", script], name="twice")
    try:
        assert target.reset(LoopConfig()) == frozenset()
        for _ in range(2):
            with pytest.raises(ProcessTargetError) as refused:
                target.reset(LoopConfig())
    finally:
        target.close()
    assert refused.value.message.splitlines()[:2] == [
        "twice: the process ended its output instead of answering reset (it exited with status "
        "0 before its first answer, started again after the process before it ended; a loop "
        "exits only once it has answered shutdown)",
        "exit code: 0",
    ]


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.needs(Need.NODE)
def test_SAFE_5_a_target_leaving_without_bye_gets_its_report_then_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: a target that answers every program and then exits at `shutdown` without `bye`
    ends the run with exit 2 naming that, after the report of the run it finished (the report,
    minutes of work, was lost to the last message)."""
    code = main(["conform", "--cmd", _misbehaving("nobye", 10**6), "--examples", "3"])
    out, err = capsys.readouterr()
    assert code == 2
    assert ": CONFORMANT" in out.splitlines()[0]
    first = err.splitlines()[0]
    assert first.startswith("loopspec: error: [PROTO-1] after the run reported above: ")
    # and says what the protocol wanted, where it named only the missing answer
    assert first.endswith(
        "the process ended its output instead of answering shutdown (a loop answers shutdown "
        'with {"type": "bye"}, then exits)'
    )
    # replay too: its verdict first, then the same line
    case = tmp_path / "case.json"
    document = {
        "loopspec": "case",
        "version": 1,
        "target": {},
        "config": config_to_json(CONFIGS[0]),
        "commands": [{"kind": "SubmitUser", "text": "hi"}],
    }
    case.write_text(json.dumps(document), encoding="utf-8")
    code = main(["replay", str(case), "--cmd", _misbehaving("nobye", 10**6)])
    out, err = capsys.readouterr()
    assert code == 2
    assert f"{case}: 1 command replayed, no divergence" in out
    assert err.splitlines()[0] == first


@pytest.mark.needs(Need.NODE)
def test_SAFE_5_a_target_leaving_without_bye_is_named_when_the_budget_checked_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: `--max-seconds 0` checks no program, but the target was started (its first
    reset); one that then exits at `shutdown` without `bye` is named after the "nothing was
    checked" line, as after a report (bd1659e's early exit 2 dropped it without a word)."""
    cases = str(tmp_path / "cases")
    given = ["--cmd", _misbehaving("nobye", 10**6), "--max-seconds", "0", "--case-dir", cases]
    assert main(["conform", *given]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    nothing, unclosed, *_stderr_tail = err.splitlines()
    assert nothing == (
        "loopspec: error: the --max-seconds 0 budget ended before the first program: "
        "nothing was checked"
    )
    assert unclosed.startswith("loopspec: error: [PROTO-1] after the budget ended: ")
    assert unclosed.endswith(
        'instead of answering shutdown (a loop answers shutdown with {"type": "bye"}, then exits)'
    )


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.needs(Need.NODE)
def test_SAFE_5_a_targets_stderr_is_shown_when_it_breaks_as_the_protocol_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: a target's stderr is not shown while it answers, and its tail is shown when it
    breaks; the protocol's documentation says so, and how to read all of it (it said stderr 'is
    shown to the user', and a user's debugging lines never appeared in a conforming run)."""
    # The shell prints 42-from-stderr: the command line itself does not hold that text.
    debugging = (
        f"sh -c {shlex.quote('echo $((6*7))-from-stderr >&2; exec ' + _misbehaving('die', 3))}"
    )
    code = main(["conform", "--cmd", debugging, "--examples", "2", "--case-dir", str(tmp_path)])
    assert code == 2
    broke = capsys.readouterr()
    assert "stderr (tail): 42-from-stderr" in broke.err
    js_loop = ROOT / "examples" / "js-loop" / "main.mjs"
    loud = f"echo $((6*7))-from-stderr >&2; exec node {shlex.quote(str(js_loop))}"
    conforming = shlex.join(["sh", "-c", loud])
    assert main(["conform", "--cmd", conforming, "--examples", "2"]) == 0
    assert "42-from-stderr" not in "".join(capsys.readouterr())
    documented = " ".join((driver_protocol.__doc__ or "").split())
    assert "its last 2000 bytes are shown when the process breaks the protocol" in documented
    assert STDERR_TAIL == 2000


def _below_the_line(err: str) -> list[str]:
    """The files of the frames an error prints below its line (a Python target's own, under
    `TRACEBACK_HEADING`), by name, each once: [] where the line is alone. No traceback of
    loopspec's, and no frame of a file outside the target's, is ever among them."""
    assert "Traceback (most recent call last)" not in err, err
    first, *below = err.strip().splitlines()
    assert first.startswith("loopspec: error: "), err
    if not below:
        return []
    assert below[0] == TRACEBACK_HEADING, err
    return sorted({Path(line.split('"')[1]).name for line in below if line.startswith('  File "')})


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize(
    ("factory", "says"),
    [
        ("raising_factory", "RuntimeError: the factory is broken"),
        ("apply_raises", "ZeroDivisionError: boom inside apply"),
        # sys.exit ended conform itself, with the loop's status: 0, a pass, and nothing said.
        (
            "exits_at_once",
            "SystemExit: 0 (at {folder}/broken_targets.py:24, in exits_at_once)"
            + SYS_EXIT_IN_TARGET,
        ),
        (
            "not_a_target",
            "the factory returned a str, not a ConformanceTarget (it has no name, "
            "reset, apply, close)",
        ),
        # The article fits the type's name: it read "returned a int".
        (
            "an_int",
            "the factory returned an int, not a ConformanceTarget (it has no name, "
            "reset, apply, close)",
        ),
    ],
)
def test_SAFE_5_a_python_target_that_raises_exits_2_in_one_line_then_its_own_frames(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    factory: str,
    says: str,
) -> None:
    """SAFE-5: a factory that raises, `apply` that raises, a factory returning junk: exit 2,
    one line, and below it the frames of the target's code that raised (none of loopspec's);
    junk raised nothing of the target's, so its line is alone."""
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
        "    return ApplyRaises()\n"
        "def an_int():\n"
        "    return 42\n"
        "def exits_at_once():\n"
        "    raise SystemExit(0)\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    # Each parameter's own module file, not the one an earlier parameter imported.
    monkeypatch.delitem(sys.modules, "broken_targets", raising=False)
    cases = tmp_path / "cases"
    argv = ["conform", "--impl", f"broken_targets:{factory}", "--examples", "20"]
    code = main([*argv, "--case-dir", str(cases)])
    err = capsys.readouterr().err
    assert code == 2
    assert says.format(folder=tmp_path) in err.splitlines()[0]
    raised = factory in ("raising_factory", "apply_raises", "exits_at_once")
    assert _below_the_line(err) == (["broken_targets.py"] if raised else []), err
    err = err.splitlines()[0]
    if factory != "apply_raises":  # broken before any program ran: nothing to replay
        assert not cases.exists()
        return
    # No traceback is printed, so the line says where in the target's code it raised, at which
    # command of the program, and how to rerun that program (it was random: without the case a
    # crash found once could not be reproduced).
    (case,) = cases.iterdir()
    document = json.loads(case.read_text(encoding="utf-8"))
    program = [command_from_json(each) for each in document["commands"]]
    config = config_from_json(document["config"])
    # The command in words, as a counterexample names it (its number alone sent one counting).
    words = command_words(program[3], answers_for(config, program).get(3))
    assert err.strip().endswith(
        f"ZeroDivisionError: boom inside apply (at {tmp_path / 'broken_targets.py'}:15, in apply)"
        f"; at command #4 of a program ({words}); rerun it: loopspec replay "
        f"{shlex.quote(str(case))} --impl broken_targets:apply_raises"
    )
    assert main(["replay", str(case), "--impl", "broken_targets:apply_raises"]) == 2
    # Replay names the command of the case it broke on, as conform names it in the program
    # (it said only where the target raised, leaving the colleague to count commands).
    replayed = capsys.readouterr().err
    assert _below_the_line(replayed) == ["broken_targets.py"], replayed
    replayed = replayed.splitlines()[0]
    assert "ZeroDivisionError: boom inside apply" in replayed
    assert re.search(r"\(at .+broken_targets\.py:15, in apply\); at command #4 of the case ",
                     replayed), replayed  # fmt: skip
    assert replayed.endswith(f"; at command #4 of the case ({words})"), replayed
    # A folder's replay says it alike, the case's line then the frames (its JSON, the line).
    assert main(["replay", str(cases), "--impl", "broken_targets:apply_raises"]) == 2
    in_a_folder = capsys.readouterr().err
    assert _below_the_line(in_a_folder) == ["broken_targets.py"], in_a_folder
    assert in_a_folder.startswith(f"{replayed}\n"), in_a_folder
    assert main(["replay", str(case), "--impl", "broken_targets:ApplyRaises"]) == 2
    bundled = main(["replay", str(case), "--bundled"])
    assert bundled == 0, "the bundled implementation runs the program"


@pytest.mark.parametrize(
    ("target", "says"),
    [
        (
            "ForgetsItsReturn",
            "the target failed in apply: TypeError: apply returned None (a forgotten return?), "
            "not an Observation (loopspec.properties.conformance.target); apply is defined at "
            "{folder}/wrong_answers.py:9; at command #1 of a program",
        ),
        (
            "MisspeltCapability",
            'the target failed in reset: ValueError: reset returned "pre_hooks", which is no '
            "capability (did you mean pre-hooks?); the capabilities are abort, approval, ",
        ),
    ],
)
def test_SAFE_5_a_python_target_answering_the_wrong_thing_exits_2_in_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    target: str,
    says: str,
) -> None:
    """SAFE-5: an `apply` that forgot its `return` broke inside the comparison, a traceback and
    exit 1 (a counterexample's), then named no line of the loop; a capability misspelt in what
    `reset` returns was kept, its rules read "not applicable" with nothing saying why, where a
    `--cmd` target's `ready` is refused for it. Each is now the target's error: exit 2, one line
    naming what it returned."""
    (tmp_path / "wrong_answers.py").write_text(
        "from loopspec.properties.conformance.target import ModelTarget\n"
        "class ForgetsItsReturn:\n"
        "    name = 'forgets its return'\n"
        "    def __init__(self):\n"
        "        self.inner = ModelTarget()\n"
        "    def reset(self, config):\n"
        "        self.inner.reset(config)\n"
        "        return frozenset()\n"
        "    def apply(self, command):\n"
        "        self.inner.apply(command)\n"
        "    def close(self):\n"
        "        self.inner.close()\n"
        "class MisspeltCapability(ForgetsItsReturn):\n"
        "    def reset(self, config):\n"
        "        return frozenset({'parallel', 'pre_hooks'})\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "wrong_answers", raising=False)
    argv = ["conform", "--impl", f"wrong_answers:{target}", "--examples", "5"]
    code = main([*argv, "--case-dir", str(tmp_path / "cases")])
    err = capsys.readouterr().err
    assert (code, "Traceback" in err, len(err.strip().splitlines())) == (2, False, 1)
    # No line of the loop raised: the forgotten return's is named by where apply is defined.
    assert says.format(folder=tmp_path) in err


def importable(folder: Path, monkeypatch: pytest.MonkeyPatch, module: str, source: str) -> None:
    """`source` as the module `module`, importable from `folder` (not one imported before)."""
    (folder / f"{module}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, module, raising=False)


def test_SAFE_5_a_ctrl_c_inside_a_python_targets_apply_says_where_it_waited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: a Python target's apply that never returns (its loop thread died, and apply
    waits on a queue) holds the run until Ctrl-C, which said only that the run stopped; the
    line now names the line of the target it waited at, and that no timeout holds it."""
    source = (
        "from loopspec.properties.conformance.target import ModelTarget\n"
        "class WaitsForEver(ModelTarget):\n"
        "    def apply(self, command):\n"
        "        raise KeyboardInterrupt  # Ctrl-C, landing where the loop waits\n"
    )
    importable(tmp_path, monkeypatch, "waits_for_ever", source)
    cases = str(tmp_path / "cases")
    assert main(["conform", "--impl", "waits_for_ever:WaitsForEver", "--case-dir", cases]) == 130
    assert capsys.readouterr().err == (
        "loopspec: stopped by Ctrl-C: every process the run started is ended, its report not "
        f"written; the target's apply had not returned (at {tmp_path / 'waits_for_ever.py'}:4, "
        "in apply): a Python target runs in loopspec's process, with no answer timeout\n"
    )


def test_SAFE_5_a_target_that_raises_in_the_exhaustive_pass_exits_2_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: `--exhaustive K` holds a target that raises to what the random search does: one
    PROTO-1 line, then the target's own frames, exit 2, the program saved (it ended in a
    traceback and exit 1, found with a loop whose log reader refused the seqs it had written
    itself)."""
    (tmp_path / "raises_third.py").write_text(
        "from loopspec.properties.conformance.impl_target import bundled_target\n"
        "class RaisesThird:\n"
        "    name = 'raises-third'\n"
        "    def __init__(self):\n"
        "        self.inner, self.count = bundled_target(), 0\n"
        "    def reset(self, config):\n"
        "        return self.inner.reset(config)\n"
        "    def apply(self, command):\n"
        "        self.count += 1\n"
        "        if self.count == 3:\n"
        "            raise ZeroDivisionError('boom in the exhaustive pass')\n"
        "        return self.inner.apply(command)\n"
        "    def close(self):\n"
        "        self.inner.close()\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    cases = tmp_path / "cases"
    argv = ["conform", "--impl", "raises_third:RaisesThird", "--exhaustive", "3"]
    code = main([*argv, "--examples", "1", "--case-dir", str(cases)])
    err = capsys.readouterr().err
    assert (code, _below_the_line(err)) == (2, ["raises_third.py"]), err
    err = err.splitlines()[0]
    assert "[PROTO-1]" in err
    assert "ZeroDivisionError: boom in the exhaustive pass" in err
    (case,) = cases.iterdir()
    rerun = shlex.join(["loopspec", "replay", str(case), "--impl", "raises_third:RaisesThird"])
    assert f"rerun it: {rerun}" in err


@pytest.mark.needs(Need.NODE)
def test_SAFE_5_replay_against_a_broken_target_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: replay's target dying mid-case is PROTO-1, exit 2."""
    case = _case_recording(tmp_path, {})
    assert main(["replay", str(case), "--cmd", _misbehaving("die", 1)]) == 2
    assert "[PROTO-1]" in capsys.readouterr().err


# --- SAFE-4: user input is bounded and never crashes loopspec ------------------------------------


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize(
    ("patch", "says"),
    [
        ('{"turns": "abc"}', "$.turns"),
        ('{"turns": []}', "$.turns must list at least one turn"),
        ('{"results": [1]}', "$.results"),
        ('{"maxParallel": 0}', "$.maxParallel"),
        ('{"maxParallel": -1}', "$.maxParallel"),
        ('{"maxParallel": 1e999}', "$.maxParallel"),
        ('{"maxParallel": true}', "$.maxParallel"),
        ('{"tools": [{"name": "bash"}, {"name": "bash"}]}', "declared twice"),
        ('{"tools": [{"name": "bash", "requiredKeys": [1]}]}', "requiredKeys"),
        ('{"turns": [{"user": 5}]}', "$.turns[0].user"),
        ('{"turns": [{"user": "x\\ud800"}]}', "lone surrogate"),
        ('{"cwd": "/nonexistent/where/hooks/run"}', "$.cwd"),
        ('{"approvals": {"c1": 5}}', "approval outcome"),
        ('{"cwd": ' + _deep(100_000)[:-1] + "}", "nested deeper than 200"),
    ],
)
def test_SAFE_4_a_malformed_scenario_exits_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], patch: str, says: str
) -> None:
    """SAFE-4: wrong types, bad numbers, duplicates, deep nesting, a bad cwd: exit 2, one line."""
    path = tmp_path / "scenario.json"
    # The patch's one key replaces the scenario's: a key given twice is refused (LOG-3's reading).
    key = patch[2 : patch.index('"', 2)]
    base = json.dumps({k: v for k, v in {**SCENARIO, "cwd": str(tmp_path)}.items() if k != key})
    # Spliced as text, so 1e999 stays as written.
    path.write_text(base[:-1] + ", " + patch[1:], encoding="utf-8")
    log = tmp_path / "out.jsonl"
    assert main(["run", str(path), "--log", str(log)]) == 2
    err = capsys.readouterr().err
    assert says in err
    assert str(path) in err
    assert len(err.strip().splitlines()) == 1
    assert not log.exists()


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ('{"dialect": []}', "$.dialect"),
        (
            '{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true", '
            '"timeout": 1' + "0" * 400 + "}]}]}}",
            "timeout",
        ),
        ('{"hooks": ' + _deep(100_000) + "}", "nested deeper than 200"),
        ('{"hooks": {"PreToolUse": [{"matcher": "("}]}}', "not a valid regex"),
    ],
)
def test_SAFE_4_a_malformed_settings_file_exits_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], settings: str, says: str
) -> None:
    """SAFE-4: settings with wrong types, a 400-digit timeout or deep nesting: exit 2."""
    hooks = tmp_path / "hooks.json"
    hooks.write_text(settings, encoding="utf-8")
    assert _run(tmp_path, tmp_path / "out.jsonl", "--hooks", str(hooks)) == 2
    err = capsys.readouterr().err
    assert says in err
    assert "Traceback" not in err


@pytest.mark.parametrize("verb", ["run", "replay", "hooks"])
def test_SAFE_4_devices_and_directories_are_refused_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], verb: str
) -> None:
    """SAFE-4: /dev/zero and a directory where a file is expected: exit 2 without reading."""
    for bad in ("/dev/zero", str(tmp_path)):
        if verb == "hooks":
            code = _run(tmp_path, tmp_path / "out.jsonl", "--hooks", bad)
        else:
            code = main(
                [verb, bad, "--log", str(tmp_path / "o.jsonl")] if verb == "run" else [verb, bad]
            )
        assert code == 2
    err = capsys.readouterr().err
    assert "a character device" in err
    assert "a directory" in err


def _check_with_stdin_closed(*paths: str) -> subprocess.CompletedProcess[str]:
    """`loopspec check PATHS <&-`: started with no standard input at all."""
    return _with_stdin_closed("check", *paths)


def _with_stdin_closed(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`loopspec ARGS <&-`: started with no standard input at all."""
    return subprocess.run(
        [*CLI, *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=lambda: os.close(0),
    )


def test_SAFE_4_check_skips_a_fifo_in_a_directory_and_survives_closed_stdin(
    tmp_path: Path,
) -> None:
    """SAFE-4: `check DIR` with a FIFO named x.jsonl ends; `check - <&-` and a huge
    --max-line-bytes are exit 2 without a traceback."""
    os.mkfifo(tmp_path / "x.jsonl")
    done = _loopspec("check", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    closed = _check_with_stdin_closed("-")
    assert closed.returncode == 2
    assert "standard input is closed" in closed.stdout + closed.stderr
    huge = _loopspec("check", "--max-line-bytes", "9" * 23, str(tmp_path), cwd=tmp_path)
    assert huge.returncode == 2
    assert "Traceback" not in huge.stderr


@pytest.mark.parametrize("stdin", ["-", "/dev/stdin"])
def test_SAFE_4_standard_input_named_when_it_is_closed_is_one_line_and_exit_2(
    tmp_path: Path, stdin: str
) -> None:
    """SAFE-4: a scenario, hooks file, case or log named as standard input (`-`, /dev/stdin)
    when loopspec started without one (`<&-`, a cron job) is refused as closed. Descriptor 0
    was by then a pipe loopspec had made for itself: `run - <&-` waited for ever on it, `replay
    - <&-` said standard input was a terminal, `check /dev/stdin` that there was no such file."""
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(SCENARIO), encoding="utf-8")
    log = tmp_path / "out.jsonl"
    for args in [
        ["run", stdin, "--log", str(log)],
        ["run", str(scenario), "--hooks", stdin, "--log", str(log)],
        ["replay", stdin, "--bundled"],
        ["spec", "--check", stdin],
    ]:
        done = _with_stdin_closed(*args, cwd=tmp_path)
        assert (done.returncode, done.stdout) == (2, ""), args
        assert done.stderr.startswith(f"loopspec: error: {stdin}: standard input is closed")
    assert not log.exists()
    valid = Path(__file__).resolve().parent / "fixtures" / "logs" / "valid"
    done = _check_with_stdin_closed(str(next(valid.glob("*.jsonl"))), stdin)
    assert done.returncode == 2
    assert f"{stdin}: error unreadable: standard input is closed" in done.stdout


def test_SAFE_4_check_reads_a_named_pipe_with_stdin_closed(tmp_path: Path) -> None:
    """SAFE-4: `check <(zstdcat x.zst) <&-` (a FIFO named, standard input closed, as a cron job
    may start it) checks the log and exits 0. Closing the pipe's reader asked whether it was
    standard input's, and with no standard input that raised: a traceback, exit 1."""
    valid = Path(__file__).resolve().parent / "fixtures" / "logs" / "valid" / "crash-tail.jsonl"
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    writer = subprocess.Popen(["cp", str(valid), str(pipe)])
    try:
        done = _check_with_stdin_closed(str(pipe))
    finally:
        writer.wait(timeout=30)
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checked 1 log" in done.stdout


def test_SAFE_4_spec_says_a_named_fifo_is_read_and_waits_for_its_writer() -> None:
    """SAFE-4: `check f.jsonl` on a FIFO nobody writes waits (a reader of SAFE-4 expected it
    refused unread, as a device is, or skipped, as in a directory); a named FIFO is read on
    purpose (`check <(zstdcat log.zst)`, the test above). SAFE-4 said nothing of it; it now
    says so."""
    assert "a FIFO named on the command line is read as standard input is" in spec_text("SAFE-4")


def test_SAFE_4_bad_cmd_quoting_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """SAFE-4: `--cmd "python3 'abc"` cannot be split: one line, exit 2. A usage error names no
    rule (it said [PROTO-1], as if a target had spoken the protocol wrongly)."""
    assert main(["conform", "--cmd", "python3 'abc"]) == 2
    err = capsys.readouterr().err
    assert err.startswith('loopspec: error: --cmd "python3 \'abc" cannot be split into words: ')
    assert err.count("\n") == 1


# --- HOOK-7 / HOOK-6: what a hook prints never crashes the report --------------------------------


def _hook_answering(tmp_path: Path, answer: str, dialect: str = "claude-code") -> Path:
    script = tmp_path / "answer.py"
    script.write_text(f"import sys\nsys.stdin.read()\nsys.stdout.write({answer!r})\n")
    hooks = tmp_path / "hooks.json"
    handler = {"type": "command", "command": shlex.join([sys.executable, str(script)])}
    hooks.write_text(
        json.dumps(
            {"dialect": dialect, "hooks": {"PreToolUse": [{"matcher": "", "hooks": [handler]}]}}
        ),
        encoding="utf-8",
    )
    return hooks


def _hook_results(log: Path) -> list[dict[str, object]]:
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return [e["data"] for e in events if e.get("type") == "hook/result"]


@pytest.mark.parametrize(
    ("answer", "fault"),
    [
        (
            '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
            '"permissionDecision": "allow", "updatedInput": {"command": "x\\ud800y"}}}',
            "lone surrogate",
        ),
        ('{"a": ' + _deep(100_000) + "}", "nested deeper than 200"),
    ],
)
def test_HOOK_7_unprintable_or_deep_hook_output_is_a_recorded_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], answer: str, fault: str
) -> None:
    """HOOK-7: a lone surrogate or 100,000-deep JSON is invalid-json, recorded; no crash."""
    log = tmp_path / "out.jsonl"
    assert _run(tmp_path, log, "--hooks", str(_hook_answering(tmp_path, answer))) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    results = _hook_results(log)
    assert len(results) == 1
    assert "invalid-json" in json.dumps(results[0])
    assert fault in json.dumps(results[0])


@pytest.mark.parametrize(
    "specific",
    [
        {"permissionDecision": "deny", "updatedInput": {"command": "rm -rf /"}},
        {"permissionDecision": "deny"},
        {"permissionDecision": "deny", "permissionDecisionReason": "  "},
    ],
)
def test_HOOK_7_a_codex_deny_is_a_deny_even_when_malformed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], specific: dict[str, object]
) -> None:
    """HOOK-7: Codex deny with updatedInput, or without a reason, denies (fault recorded)."""
    answer = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}})
    log = tmp_path / "out.jsonl"
    assert _run(tmp_path, log, "--hooks", str(_hook_answering(tmp_path, answer, "codex"))) == 0
    capsys.readouterr()
    (result,) = _hook_results(log)
    assert result["decision"] == "deny"
    assert "unsupported" in json.dumps(result)
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    outcomes = [e["data"] for e in events if e.get("type") == "tool/result"]
    assert outcomes
    assert all("removed" not in json.dumps(o) for o in outcomes)


# --- SAFE-6: hooks can be given a reduced environment --------------------------------------------


def test_SAFE_6_hook_env_passes_only_the_named_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-6: with --hook-env, a secret in loopspec's environment does not reach the hook."""
    monkeypatch.setenv("LOOPSPEC_TEST_SECRET", "hunter2")
    monkeypatch.setenv("LOOPSPEC_TEST_SHARED", "visible")
    dump = tmp_path / "env.txt"
    hooks = _hooks_file(tmp_path, f"env > {shlex.quote(str(dump))}")
    assert _run(tmp_path, tmp_path / "a.jsonl", "--hooks", str(hooks)) == 0
    assert "LOOPSPEC_TEST_SECRET=hunter2" in dump.read_text(encoding="utf-8")
    args = ["--hooks", str(hooks), "--hook-env", "PATH", "--hook-env", "LOOPSPEC_TEST_SHARED"]
    assert _run(tmp_path, tmp_path / "b.jsonl", *args) == 0
    seen = dump.read_text(encoding="utf-8")
    assert "hunter2" not in seen
    assert "LOOPSPEC_TEST_SHARED=visible" in seen
    assert f"PATH={os.environ['PATH']}" in seen


# --- HOOK-6: a rewrite is checked against the tool's input types ---------------------------------


@pytest.mark.parametrize(
    ("rewrite", "runs"),
    [({"command": 42}, False), ({"command": "ls -l"}, True), ({"other": "x"}, False)],
)
def test_HOOK_6_a_rewrite_of_the_wrong_type_is_refused_never_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rewrite: dict[str, object], runs: bool
) -> None:
    """HOOK-6: `updatedInput {"command": 42}` breaks the tool's declared string type: denied."""
    scenario = tmp_path / "scenario.json"
    tool = {
        "name": "bash",
        "inputSchema": {"properties": {"command": {"type": "string"}}, "required": ["command"]},
    }
    scenario.write_text(
        json.dumps({**SCENARIO, "tools": [tool], "cwd": str(tmp_path)}), encoding="utf-8"
    )
    answer = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": rewrite,
            }
        }
    )
    log = tmp_path / "out.jsonl"
    hooks = _hook_answering(tmp_path, answer)
    assert main(["run", str(scenario), "--hooks", str(hooks), "--log", str(log)]) == 0
    capsys.readouterr()
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    calls = [e["data"] for e in events if e.get("type") == "tool/call"]
    results = [e["data"] for e in events if e.get("type") == "tool/result"]
    assert len(calls) == len(results) == 1
    text = json.dumps(results[0])
    if runs:
        assert "rewrite" in calls[0]
        assert "ls -l" in json.dumps(calls[0])
    else:
        assert "rewrite" not in calls[0]  # the original arguments stay on record
        assert "rewrote the input of bash" in text
        assert "must be" in text or "missing required" in text


def test_SAFE_4_run_refuses_to_append_to_a_log_over_the_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAFE-4: an existing log larger than the append cap is refused before it is read, naming
    SAFE-4, the rule that states the cap (it named SAFE-2, which says nothing of sizes)."""
    log = tmp_path / "out.jsonl"
    assert _run(tmp_path, log) == 0
    before = log.read_bytes()
    monkeypatch.setattr("loopspec.properties.cli.run_session.LOG_APPEND_CAP", len(before) - 1)
    capsys.readouterr()
    assert _run(tmp_path, log) == 2
    assert log.read_bytes() == before
    assert capsys.readouterr().err.startswith(f"loopspec: error: [SAFE-4] {log}: larger than ")


def test_SAFE_5_an_impl_module_that_fails_to_import_exits_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    """SAFE-5: `--impl` naming a module that raises, does not parse or exits (a script parsing
    its arguments as it is imported): one line, exit 2, and below it the module's own frames
    where it raised or exited (the pytest plugin's stop alike). The exit ended conform with
    the script's status, 0 a pass, and argparse's usage line alone."""
    (tmp_path / "raises_on_import.py").write_text("raise RuntimeError('at import')\n")
    (tmp_path / "does_not_parse.py").write_text("def f(:\n")
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(0)\n")
    (tmp_path / "exits_saying_why.py").write_text("import sys\nsys.exit('needs 3.12')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in ("raises_on_import", "does_not_parse", "exits_on_import", "exits_saying_why"):
        assert main(["conform", "--impl", f"{module}:make"]) == 2
    err = capsys.readouterr().err
    assert "RuntimeError: at import" in err
    assert "SyntaxError" in err
    assert "Traceback" not in err
    assert (
        f"exits_on_import:make: SystemExit: 0 (at {tmp_path / 'exits_on_import.py'}:2, in "
        "<module>): the module exited while it was imported; a script parsing its arguments "
        "as it is imported does so (argparse): keep what runs it as a program under `if "
        '__name__ == "__main__":`\n'
    ) in err, err
    # Its own message says why: not told to move argument parsing it may not have.
    assert (
        f"exits_saying_why:make: SystemExit: needs 3.12 (at {tmp_path / 'exits_saying_why.py'}:2"
        ", in <module>): the module exited while it was imported\n"
    ) in err, err
    frames = {
        module: f'{TRACEBACK_HEADING}\n  File "{tmp_path / module}.py", line {line}, in <module>\n'
        for module, line in (("raises_on_import", 1), ("exits_on_import", 2))
    }
    assert all(frame in err for frame in frames.values()), err
    monkeypatch.setattr(request.config.option, "loopspec_impl", "raises_on_import:make")
    with pytest.raises(pytest.UsageError) as stopped:
        pytest_plugin._check_target(request.config)
    assert f"RuntimeError: at import (at {tmp_path / 'raises_on_import.py'}:1, in <module>)\n" in (
        str(stopped.value)
    )
    assert frames["raises_on_import"] in str(stopped.value), stopped.value
    assert str(stopped.value).endswith("\n    raise RuntimeError('at import')"), stopped.value
    # Run from another folder than the module's (a shared case replayed elsewhere): the error
    # says where the module was looked for.
    monkeypatch.chdir(tmp_path)
    assert main(["conform", "--impl", "not_in_this_folder:make"]) == 2
    err = capsys.readouterr().err
    assert (
        f"No module named 'not_in_this_folder' (looked in the current directory, {tmp_path}" in err
    )


def test_SAFE_5_an_impl_given_as_a_file_path_says_what_to_pass_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: `--impl ../proj/my_loop.py:Loop` (a colleague pointing at the file of a shared
    case's loop) is refused naming the module and the folder to run in, not with Python's
    "the 'package' argument is required to perform a relative import"."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "my_loop.py").write_text("def Loop():\n    raise AssertionError\n")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert main(["conform", "--impl", "../proj/my_loop.py:Loop"]) == 2
    assert main(["conform", "--impl", f"{tmp_path}/proj/my_loop:Loop"]) == 2
    first, second = capsys.readouterr().err.splitlines()
    assert first.endswith(
        "--impl takes a module name, not a file path (../proj/my_loop.py): run loopspec in "
        "../proj with --impl my_loop:Loop, or put ../proj on PYTHONPATH"
    )
    assert f"run loopspec in {tmp_path}/proj with --impl my_loop:Loop" in second


def test_SAFE_5_an_impl_given_as_the_path_of_a_package_module_names_its_dotted_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: `--impl src/agent/loop.py:Loop`, a module of a package in a src layout, is
    refused naming the dotted module and the folder above the package (it said: run in
    src/agent with --impl loop:Loop, where the package's relative imports fail); from the
    folder holding the package, the dotted name alone."""
    package = tmp_path / "src" / "agent"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "loop.py").write_text("from . import helpers\n")
    monkeypatch.chdir(tmp_path)
    assert main(["conform", "--impl", "src/agent/loop.py:Loop"]) == 2
    monkeypatch.chdir(tmp_path / "src")
    assert main(["conform", "--impl", "agent/loop.py:Loop"]) == 2
    first, second = capsys.readouterr().err.splitlines()
    assert first.endswith(
        "--impl takes a module name, not a file path (src/agent/loop.py): run loopspec in src "
        "with --impl agent.loop:Loop, or put src on PYTHONPATH"
    ), first
    assert second.endswith(
        "--impl takes a module name, not a file path (agent/loop.py): give --impl agent.loop:Loop"
    ), second


def test_SAFE_3_an_exiting_subreaper_ends_even_children_that_cleared_their_environment() -> None:
    """SAFE-3: `setsid env -i sleep &` escapes the token; as a subreaper, the process that exits
    still finds it below itself and kills it (the entry point's exit path)."""
    script = (
        "import subprocess\n"
        "from loopspec.impl.hookbridge.reaping import become_subreaper, kill_descendants\n"
        "assert become_subreaper()\n"
        "out = subprocess.run(['sh', '-c', 'setsid env -i sleep 300 >/dev/null 2>&1 & echo $!'],"
        " capture_output=True, text=True, check=True).stdout\n"
        "pid = int(out)\n"
        "print(pid, pid in kill_descendants())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    pid, killed = done.stdout.split()
    assert killed == "True"
    assert not _alive(int(pid))


def test_SAFE_2_a_log_with_an_integer_too_long_to_read_is_refused_in_loopspec_s_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-2: `run --log` naming one of its own logs whose line 2 holds a number of 5,000
    digits refused it with Python's advice to "use sys.set_int_max_str_digits()"; it names the
    line and the number loopspec does not read, and keeps the file."""
    log = tmp_path / "own.jsonl"
    assert _run(tmp_path, log) == 0
    capsys.readouterr()
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1].replace('"time":', '"time":' + "7" * 5000 + ',"was":', 1)
    content = "".join(lines).encode()
    log.write_bytes(content)
    assert _run(tmp_path, log) == 2
    assert log.read_bytes() == content
    said = capsys.readouterr().err
    assert "(line 2 is not JSON: an integer of 5000 digits, more than the 4300 digits " in said
    assert "set_int_max_str_digits" not in said


def test_SAFE_1_replay_of_the_recorded_factory_names_it_the_same_factory_not_the_same_loop(
    tmp_path: Path,
) -> None:
    """SAFE-1: a case found on `--impl my_loop:make` replayed with the same words said "the same
    target", which vouched for a loop replay cannot tell apart (a colleague's own my_loop.py):
    the same words are the same factory named, and the note says that much only."""
    case = load_case(_case_recording(tmp_path, {"impl": "my_loop:make"}))
    note = replay_header("case.json", {"impl": "my_loop:make"}, case, profile_note=None)[1]
    assert note == "  the case was found on --impl my_loop:make, the same factory as this replay's"
