"""A real-CLI conform driver ended from outside leaves nothing behind (SAFE-3).

`loopspec conform --cmd examples/claude-code-adapter/run.sh` runs the conform driver, which
makes a session folder in TMPDIR (and the control socket's folder in /tmp when TMPDIR is long)
and starts the CLI in a session of its own. conform ending a driver that missed its answer
deadline, a CI job cancelled, Ctrl-C and a closed terminal signal it; conform's own exit closes
its stdin. Before, a signal ended the driver on the spot: the folders stayed and the CLI ran on.
One real driver per case, the CLI started and then ended within a second or two (SIGHUP
takes the same handler as SIGTERM).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest
from node_requirements import Need
from terminal_signals import as_a_terminals_foreground_job

from loopspec.impl.hookbridge.reaping import descendants
from loopspec.model.commands import SubmitUser
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.command_codec import command_to_json, config_to_json
from loopspec.properties.conformance.driver_protocol import PROTOCOL_VERSION
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError
from loopspec.properties.harnesses.cli_wire import TOOL_PROGRAM

ROOT = Path(__file__).resolve().parent.parent
CLI = (sys.executable, "-m", "loopspec.properties.cli.main")
WAIT = 30.0


def _send(stdin: IO[str], message: dict[str, object]) -> None:
    stdin.write(json.dumps(message) + "\n")
    stdin.flush()


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZXx"


def _until(probe: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not probe():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.needs(Need.CLAUDE_CODE)
@pytest.mark.parametrize("ending", ["SIGTERM", "SIGINT", "stdin closed"])
def test_SAFE_3_an_ended_conform_driver_leaves_no_folder_and_no_process(
    tmp_path: Path, ending: str
) -> None:
    # Long enough that the control socket gets a folder of its own in /tmp.
    tmpdir = tmp_path / ("t" * 60)
    tmpdir.mkdir()
    driver = subprocess.Popen(
        [sys.executable, "-m", "loopspec.properties.harnesses.conform_driver", "claude-code"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmpdir), "PYTHONPATH": str(ROOT)},
        start_new_session=True,  # as conform starts it
        preexec_fn=as_a_terminals_foreground_job,  # noqa: PLW1509 (no thread of this test runs)
    )
    below: set[int] = set()
    folders: list[Path] = []
    try:
        assert driver.stdin is not None
        assert driver.stdout is not None
        config = config_to_json(LoopConfig())
        _send(driver.stdin, {"type": "reset", "protocol": PROTOCOL_VERSION, "config": config})
        assert json.loads(driver.stdout.readline())["type"] == "ready"
        (session,) = tmpdir.iterdir()
        tool = (session / "bin" / TOOL_PROGRAM).read_text(encoding="utf-8")
        socket_folder = Path(tool.split()[-2].strip("'")).parent
        assert not socket_folder.is_relative_to(tmpdir), "the socket's folder is in /tmp"
        folders = [session, socket_folder]
        assert all(folder.is_dir() for folder in folders)
        command = command_to_json(SubmitUser("hi"))
        _send(driver.stdin, {"type": "command", "seq": 0, "command": command})
        _until(lambda: descendants(driver.pid), "the CLI to start")
        time.sleep(0.3)  # the CLI's own children, if it starts any at once
        below = descendants(driver.pid)

        if ending == "stdin closed":
            driver.stdin.close()
            expected = 0
        else:
            signum = signal.Signals[ending]
            driver.send_signal(signum)
            expected = 128 + signum
        code = driver.wait(timeout=WAIT)
        time.sleep(0.5)  # what it ended has gone by now
        assert [pid for pid in below if _alive(pid)] == [], "the CLI outlived the driver"
        assert [str(f) for f in folders if f.exists()] == []
        assert code == expected
    finally:
        for pid in [driver.pid, *below]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        driver.wait()
        for folder in folders:
            subprocess.run(["rm", "-rf", str(folder)], check=False)


# A driver whose SIGTERM another of its threads takes once the driver is back reading stdin: the
# state a SIGTERM that lands just before that read leaves (or one the model server's thread takes).
_SIGTERM_PAST_THE_DRIVERS_MAIN_THREAD = """
import json, signal, sys, threading, time
from loopspec.properties.harnesses import conform_driver as driver
answered = threading.Event()
def take_sigterm():
    answered.wait()
    time.sleep(0.5)  # the main thread is back in its read of stdin by now
    signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
def write(answer):
    print(json.dumps(answer), flush=True)
    answered.set()
driver.end_cleanly_on_signals()
threading.Thread(target=take_sigterm).start()
sys.exit(driver.serve(driver.Harness.CLAUDE_CODE, iter(sys.stdin.readline, ""), write))
"""


@pytest.mark.needs(Need.CLAUDE_CODE)
def test_SAFE_3_a_driver_whose_main_thread_a_sigterm_does_not_wake_still_tidies_and_ends(
    tmp_path: Path,
) -> None:
    """A SIGTERM that interrupts none of the driver's calls still ends it at once, its session
    folder removed. The driver's handler ran only when its read of stdin returned: conform,
    ending it, sends no more lines, so it killed the driver a second later, the folder left."""
    driver = subprocess.Popen(
        [sys.executable, "-c", _SIGTERM_PAST_THE_DRIVERS_MAIN_THREAD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)},
    )
    try:
        assert driver.stdin is not None
        assert driver.stdout is not None
        config = config_to_json(LoopConfig())
        _send(driver.stdin, {"type": "reset", "protocol": PROTOCOL_VERSION, "config": config})
        assert json.loads(driver.stdout.readline())["type"] == "ready"
        assert list(tmp_path.iterdir()) != []  # the session's folder
        try:
            code = driver.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the driver went on reading stdin {WAIT:.0f} s past its SIGTERM")
    finally:
        driver.kill()
        driver.wait()
    assert code == 128 + signal.SIGTERM
    assert list(tmp_path.iterdir()) == []


# A target that makes a folder and removes it when asked to end (SIGTERM), as the driver does.
# Its handler comes before the folder, which the tests wait for: a SIGTERM between the two killed
# it, the folder left. It sleeps in short steps: Python runs the handler of a SIGTERM that lands
# just before a sleep only when the sleep ends, and conform kills the target a second after it.
TIDY_TARGET = (
    "import os, shutil, signal, sys, time\n"
    "def end(signum, frame):\n"
    "    shutil.rmtree(sys.argv[1], ignore_errors=True)\n"
    "    os._exit(128 + signum)\n"
    "signal.signal(signal.SIGTERM, end)\n"
    "os.mkdir(sys.argv[1])\n"
    "print('started', file=sys.stderr, flush=True)\n"
    "while True:\n"
    "    time.sleep(0.05)\n"
)


def test_SAFE_3_a_target_conform_ends_at_its_answer_deadline_may_remove_its_folder(
    tmp_path: Path,
) -> None:
    """conform asks a target that missed its deadline to end before it kills it: killed at once,
    the driver left its session folder at each missed deadline."""
    folder = tmp_path / "session"
    argv = [sys.executable, "-c", TIDY_TARGET, str(folder)]
    target = ProcessTarget(argv, timeout=2.0, name="tidy")
    with pytest.raises(ProcessTargetError, match="no answer to reset"):
        target.reset(LoopConfig())
    assert not folder.exists()
    assert target.exit_code == 128 + signal.SIGTERM


def test_SAFE_3_a_sigterm_run_asks_what_it_started_to_end_before_killing_it(
    tmp_path: Path,
) -> None:
    """`loopspec conform` ended by SIGTERM (a CI job cancelled) ends every process below it:
    asked first, so its target can remove what it made, then killed."""
    folder = tmp_path / "session"
    script = (
        "import subprocess, sys\n"
        "from loopspec.impl.hookbridge.reaping import become_subreaper, end_descendants\n"
        "assert become_subreaper()\n"
        f"child = subprocess.Popen([sys.executable, '-c', {TIDY_TARGET!r}, sys.argv[1]],"
        " stderr=subprocess.PIPE, text=True, start_new_session=True)\n"
        "assert child.stderr.readline() == 'started\\n'\n"
        "print(child.pid, child.pid in end_descendants())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=ROOT,
    )
    pid, ended = done.stdout.split()
    assert ended == "True"
    assert not _alive(int(pid))
    assert not folder.exists()


def _as_under_nohup() -> None:
    """In the child, before exec: SIGHUP ignored, as `nohup` starts a program."""
    as_a_terminals_foreground_job()
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def test_SAFE_3_a_run_started_under_nohup_outlives_a_closed_terminal(tmp_path: Path) -> None:
    """`nohup loopspec conform ...`: SIGHUP, ignored when the run started, stays ignored, and
    the run ends only when told otherwise (here SIGTERM, exit 143). loopspec's own SIGHUP
    handler replaced the ignoring, and a closed terminal ended the run nohup was to keep."""
    folder = tmp_path / "session"
    command = shlex.join([sys.executable, "-c", TIDY_TARGET, str(folder)])
    run = subprocess.Popen(
        [*CLI, "conform", "--cmd", command, "--answer-timeout", "60"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        preexec_fn=_as_under_nohup,  # noqa: PLW1509 (no thread of this test runs)
    )
    try:
        _until(folder.exists, "the target to start")
        # Handled, SIGHUP would run first (handlers run in signal order) and end the run 129.
        run.send_signal(signal.SIGHUP)
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=WAIT)
    finally:
        run.kill()
    assert run.returncode == 128 + signal.SIGTERM, err
    assert "stopped by SIGTERM" in err


@pytest.mark.parametrize(
    ("ending", "cause"), [("SIGTERM", "SIGTERM"), ("SIGINT", "Ctrl-C"), ("SIGQUIT", "SIGQUIT")]
)
def test_SAFE_3_a_conform_run_a_signal_ends_says_so_in_one_line_and_its_target_tidies_up(
    tmp_path: Path, ending: str, cause: str
) -> None:
    """`loopspec conform` ended by SIGTERM, Ctrl-C or Ctrl-\\ (SIGQUIT) exits 128 + the signal
    with one line saying why, its target asked to end first (its folder removed). Before, it
    ended silently: a CI log showed a bare exit 143, and SIGQUIT left the target running. And a
    single Ctrl-C said shutdown to the hung target and awaited its answer for the whole
    --answer-timeout (here a minute): it is asked to end and killed a second later, as at a
    missed deadline."""
    folder = tmp_path / "session"
    command = shlex.join([sys.executable, "-c", TIDY_TARGET, str(folder)])
    run = subprocess.Popen(
        [*CLI, "conform", "--cmd", command, "--answer-timeout", "60"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        preexec_fn=as_a_terminals_foreground_job,  # noqa: PLW1509 (no thread of this test runs)
    )
    try:
        _until(folder.exists, "the target to start")
        signum = signal.Signals[ending]
        run.send_signal(signum)
        sent = time.monotonic()
        _, err = run.communicate(timeout=WAIT)
        took = time.monotonic() - sent
    finally:
        run.kill()
    # About a second (SIGTERM's grace); the rest is a loaded machine's slack.
    assert took < 10, f"{took:.1f} s after {cause}"
    assert err.splitlines() == [
        f"loopspec: stopped by {cause}: every process the run started is ended, "
        "its report not written"
    ]
    assert run.returncode == 128 + signum
    assert not folder.exists()
