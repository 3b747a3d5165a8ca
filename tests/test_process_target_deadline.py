"""A process target at the very moment its answer timeout strikes (PROTO-1).

A timeout tells a hang from a slow answer; what the target managed to do by then is not a hang.
Each situation is made certain, not raced for: the process has exited, and its output has been
read, before the deadline is looked at.
"""

from __future__ import annotations

import queue
import shlex
import sys
import time

import pytest

from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.process_target import (
    ProcessTarget,
    ProcessTargetError,
    _Process,
)


def test_PROTO_1_an_answer_that_arrived_as_the_deadline_struck_is_taken_not_a_hang() -> None:
    """PROTO-1: a line queued when the wait for an answer times out is the answer, and the end
    of output after it is the end: `receive` raised `queue.Empty` ("no answer within N s")
    while the driver's last answer sat read and waiting, as when a driver answers and exits
    just as the timeout strikes."""
    process = _Process([sys.executable, "-c", 'print(\'{"type": "bye"}\')'])
    try:
        process.popen.wait()
        process._threads[0].join()  # stdout read to its end: the line, then the end
        assert process.receive(0.0) == b'{"type": "bye"}\n'
        assert process.receive(0.0) is None
    finally:
        process.kill()


def test_PROTO_1_a_driver_that_exits_as_its_timeout_strikes_is_reported_as_exited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PROTO-1: a target that exited by the time its answer's wait ran out stopped; it did not
    hang. It was reported as 'no answer to reset within 5 s', a crash read as a deadlock, and
    its last stderr was not waited for; now the report says it exited, with its exit code and
    the end of its stderr."""

    def deadline_at_exit(process: _Process, timeout: float) -> bytes | None:
        process.popen.wait()  # the deadline strikes once the process has exited
        raise queue.Empty

    monkeypatch.setattr(_Process, "receive", deadline_at_exit)
    code = "import sys; sys.stdin.readline(); sys.stderr.write('out of memory\\n'); sys.exit(3)"
    target = ProcessTarget([sys.executable, "-c", code], name="exits", timeout=5)
    with pytest.raises(ProcessTargetError) as caught:
        target.reset(LoopConfig())
    message = str(caught.value)
    assert "exits: the process exited instead of answering reset\n" in message, message
    assert "no answer" not in message
    assert "exit code: 3" in message
    assert "out of memory" in message


def test_PROTO_1_a_driver_that_stopped_reading_is_said_in_the_systems_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PROTO-1: a driver that closed its input before it read `reset`, and runs on, is named in
    the system's words, as every refusal quotes the system; it said "([Errno 32] Broken pipe)".
    One that exited first ended its output too, and says so as one whose output ended first
    does: which end of the wire loopspec saw first was the scheduler's choice. The write waits
    until the driver has closed its input (or exited), so the pipe is certainly closed."""
    send = _Process.send

    def send_once_deaf(process: _Process, line: str) -> None:
        deadline = time.monotonic() + 30
        while "deaf now" not in process.stderr_tail() and process.popen.poll() is None:
            assert time.monotonic() < deadline, "the driver never closed its input"
            time.sleep(0.01)
        send(process, line)

    monkeypatch.setattr(_Process, "send", send_once_deaf)
    deaf = "import os, sys, time; os.close(0); print('deaf now', file=sys.stderr); time.sleep(60)"
    for code, said in (
        (deaf, "the process stopped reading its input before reset (broken pipe)"),
        ("pass", "the process exited at start-up, before answering its first message (reset)"),
    ):
        target = ProcessTarget(shlex.join([sys.executable, "-c", code]), name="deaf")
        with pytest.raises(ProcessTargetError) as refused:
            target.reset(LoopConfig())
        assert refused.value.message.splitlines()[0] == f"deaf: {said}"
