"""ABORT-1's interrupt reaches a target however conform was started: a `--cmd` target, and the
CLI a harness session cuts short with SIGINT, begin with SIGINT and SIGQUIT at their default
action. Started in the background by a shell without job control (`loopspec conform ... &` in a
script, a CI step, under `nohup`), loopspec was handed both ignored and handed them on: an abort
sent as SIGINT was ignored in the background and obeyed in a terminal.

Each test hands this process SIGINT and SIGQUIT ignored, as such a shell does, and reads what the
child began with in /proc (Linux).
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from loopspec.model.commands import SubmitUser
from loopspec.properties.cli.main import main
from loopspec.properties.conformance import process_target
from loopspec.properties.conformance.process_target import ProcessTarget
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
