"""ABORT-1's interrupt reaches a target however conform was started: a `--cmd` target, and the
CLI a harness session cuts short with SIGINT, begin with SIGINT and SIGQUIT at their default
action. Started in the background by a shell without job control (`loopspec conform ... &` in a
script, a CI step, under `nohup`), loopspec was handed both ignored and handed them on: an abort
sent as SIGINT was ignored in the background and obeyed in a terminal.

Each test hands this process SIGINT and SIGQUIT ignored, as such a shell does, and reads what the
child began with in /proc (Linux).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from terminal_signals import as_a_terminals_foreground_job

from loopspec.model.commands import SubmitUser
from loopspec.properties.cli.main import main
from loopspec.properties.conformance import process_target
from loopspec.properties.conformance.process_target import ProcessTarget
from loopspec.properties.harnesses import session
from loopspec.properties.harnesses.session import _run_turn
from loopspec.properties.stateful.strategies import CONFIGS

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads a process's ignored signals in /proc"
)

BACKGROUND_IGNORED = (signal.SIGINT, signal.SIGQUIT)


@pytest.fixture
def started_in_the_background() -> Iterator[None]:
    """SIGINT and SIGQUIT ignored in this process while the test runs, as a shell without job
    control starts a background job; the handlers it had back after."""
    before = {signum: signal.getsignal(signum) for signum in BACKGROUND_IGNORED}
    for signum in BACKGROUND_IGNORED:
        signal.signal(signum, signal.SIG_IGN)
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def _ignored(status_line: str) -> set[int]:
    """The signals a `SigIgn:` line of /proc/PID/status names."""
    mask = int(status_line.rsplit(maxsplit=1)[-1], 16)
    return {signum for signum in range(1, 65) if mask >> (signum - 1) & 1}


# Says what it began with ignored on stderr, then that it cannot run here: the line shows it.
SAYS_ITS_IGNORED_SIGNALS = "#!/bin/sh\ngrep SigIgn: /proc/self/status >&2\nexit 69\n"


@pytest.mark.usefixtures("started_in_the_background")
def test_ABORT_1_a_cmd_target_starts_with_sigint_and_sigquit_at_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ABORT-1: conform started with both ignored starts its `--cmd` target with neither
    ignored, and still ignores them itself (a Ctrl-C meant for the foreground job does not end
    a background run)."""
    script = tmp_path / "loop.sh"
    script.write_text(SAYS_ITS_IGNORED_SIGNALS, encoding="utf-8")
    script.chmod(0o755)
    assert main(["conform", "--cmd", str(script), "--examples", "1"]) == 2
    (said,) = (line for line in capsys.readouterr().err.splitlines() if "SigIgn:" in line)
    assert _ignored(said).isdisjoint(BACKGROUND_IGNORED)
    for signum in BACKGROUND_IGNORED:
        signal.raise_signal(signum)  # would raise KeyboardInterrupt, or end pytest, if heeded


@pytest.mark.usefixtures("started_in_the_background")
def test_ABORT_1_a_harness_turn_starts_with_sigint_and_sigquit_at_default(
    tmp_path: Path,
) -> None:
    """ABORT-1: the CLI a harness session runs, and cuts short with SIGINT for an abort, begins
    with neither ignored."""
    code, killed, stdout, _ = _run_turn(
        ["grep", "SigIgn:", "/proc/self/status"], tmp_path, {}, 30.0, None
    )
    assert (code, killed) == (0, False)
    assert _ignored(stdout).isdisjoint(BACKGROUND_IGNORED)


# Answers `reset` with ready and every command with a refusal, each at once.
REFUSES_EVERY_COMMAND = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    message = json.loads(line)\n"
    "    if message['type'] == 'reset':\n"
    "        answer = {'type': 'ready', 'implementation': 'refuses', 'capabilities': []}\n"
    "    elif message['type'] == 'shutdown':\n"
    "        sys.exit(print(json.dumps({'type': 'bye'}), flush=True))\n"
    "    else:\n"
    "        refusal = {'rule': 'MODEL-1', 'message': 'refused'}\n"
    "        answer = {'type': 'observed', 'seq': message['seq'], 'accepted': False,\n"
    "                  'refusal': refusal}\n"
    "    print(json.dumps(answer), flush=True)\n"
)


def test_SAFE_5_ctrl_c_while_an_answer_is_awaited_ends_the_process_that_owes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SAFE-5: Ctrl-C while a `--cmd` process works on a command, as conform cuts a
    counterexample down (which keeps the smallest program so far and goes on), left the answer
    unread in the shared process: the next reset, or the shutdown, read it as its own, and a
    sound target was blamed, 'expected "bye" in answer to shutdown, got "observed"' (PROTO-1,
    exit 2, after the run's report). The process that owes it is ended; the next reset starts
    another, which answers it."""
    target = ProcessTarget([sys.executable, "-S", "-c", REFUSES_EVERY_COMMAND])
    try:
        target.reset(CONFIGS[0])

        def interrupted(process: object, timeout: float) -> bytes | None:
            raise KeyboardInterrupt  # as Ctrl-C lands in the wait, the answer on its way

        with monkeypatch.context() as waiting:
            waiting.setattr(process_target._Process, "receive", interrupted)
            with pytest.raises(KeyboardInterrupt):
                target.apply(SubmitUser("hi"))
        assert target.reset(CONFIGS[0]) == frozenset()
        assert not target.apply(SubmitUser("hi")).accepted
    finally:
        target.close()
    assert target.exit_code == 0  # a shutdown answered by its bye


def test_SAFE_3_a_harness_turn_unwound_ends_the_cli_and_what_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAFE-3: a turn whose wait is cut short (the session's SIGTERM or Ctrl-C) ends the CLI's
    process group, in a session of its own, before the session's folder it writes in is
    removed: it kept running and writing there."""
    started: list[subprocess.Popen[str]] = []

    def interrupted(process: subprocess.Popen[str], *_: object) -> tuple[int, bool, str, str]:
        started.append(process)
        raise KeyboardInterrupt

    monkeypatch.setattr(session, "_turn_awaited", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _run_turn(["sh", "-c", "sleep 30 & exec sleep 30"], tmp_path, {}, 30.0, None)
    (cli,) = started
    assert cli.returncode == -signal.SIGKILL
    assert _group_gone(cli.pid)  # the backgrounded sleep too


def _group_gone(group: int) -> bool:
    """Whether every process of group `group` has ended within a few seconds (a killed one
    stays a zombie until the process it was handed to reaps it)."""
    deadline = time.monotonic() + 5
    while _running_in_group(group):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _running_in_group(group: int) -> list[int]:
    """The processes of group `group` that are not zombies, as /proc shows them."""
    running = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text(encoding="utf-8").rsplit(")", 1)[1].split()
        except (OSError, IndexError):  # ended while read
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            running.append(int(stat.parent.name))
    return running


@pytest.fixture
def own_signal_handlers() -> Iterator[None]:
    """The session's handlers of SIGTERM, SIGHUP and SIGINT, put back after the test."""
    before = {signum: signal.getsignal(signum) for signum in session.SESSION_ENDING}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


@pytest.mark.usefixtures("own_signal_handlers")
def test_SAFE_3_a_harness_session_ended_by_sigterm_removes_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAFE-3: the session process `run --harness` starts, ended by SIGTERM (how loopspec ends
    its descendants) or Ctrl-C, removes its folder (the CLI's HOME, its transcript, the hooks'
    audit): its default action left a loopspec-session-* folder in TMPDIR at each."""
    folders: list[Path] = []

    def ended(_request: object, root: Path) -> dict[str, object]:
        folders.append(root)
        (root / "home").mkdir()
        assert signal.getsignal(signal.SIGTERM) is session._ended_once
        signal.raise_signal(signal.SIGTERM)
        raise AssertionError("SIGTERM went unheeded")

    monkeypatch.setattr(session, "_request_from_json", lambda _document: None)
    monkeypatch.setattr(session, "run_inside", ended)
    (tmp_path / "request.json").write_text("{}", encoding="utf-8")
    with pytest.raises(SystemExit) as end:
        session.main([str(tmp_path / "request.json"), str(tmp_path / "result.json")])
    assert end.value.code == 128 + signal.SIGTERM
    (folder,) = folders
    assert not folder.exists()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN  # a second one cuts nothing


def test_SAFE_3_ctrl_c_gives_a_harness_session_time_to_remove_its_folder(tmp_path: Path) -> None:
    """SAFE-3: Ctrl-C while `run --harness` waits for its session process gives that process
    time to end its CLI and remove its folder: `subprocess.run` killed it a quarter of a second
    in, and its folder stayed in TMPDIR."""
    cleaned = tmp_path / "cleaned"
    # Takes a while to end on SIGTERM (or SIGINT), as a session removing its folder may.
    slow_to_end = 'trap "sleep 0.1; : > \\"$0\\"; exit 143" TERM INT; while :; do sleep 0.02; done'
    before = signal.signal(signal.SIGALRM, lambda _signum, _frame: _raise(KeyboardInterrupt()))
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    try:
        with pytest.raises(KeyboardInterrupt):
            session._session_run(["sh", "-c", slow_to_end, str(cleaned)], dict(os.environ), 30.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
    assert cleaned.exists()


def _raise(error: BaseException) -> None:
    raise error


# Says, as the process exits, whether SIGINT and SIGTERM are ignored: an atexit callback
# registered first runs last, once the run's own have run.
_AS_IT_EXITS = """
import atexit, os, signal
ignored = lambda signum: signal.getsignal(signum) is signal.SIG_IGN
atexit.register(lambda: print(ignored(signal.SIGINT), ignored(signal.SIGTERM)))
from loopspec.properties.cli.prompt_ending import end_promptly
end_promptly([signal.SIGTERM], lambda signum: os._exit(128 + signum))
print("report")
"""


def test_SAFE_3_a_signal_once_the_run_is_over_leaves_its_status_and_output_alone() -> None:
    """SAFE-3: Ctrl-C or SIGTERM after a verb that starts processes has returned (its report
    written, its processes ended) is ignored: Python gives a signal it handles its default
    action back as it tears itself down, and a run ended then was killed by it (status -2 in 2
    of 8 Ctrl-Cs to `conform --exhaustive 3` as it ended), its verdict's status lost, no line
    said. An ignored signal keeps its disposition through that teardown."""
    done = subprocess.run(
        [sys.executable, "-c", _AS_IT_EXITS],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=as_a_terminals_foreground_job,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "report\nTrue True\n", "")
