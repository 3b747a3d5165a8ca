"""Run an ACP agent and record every JSON-RPC line passed each way, for `loopspec check`.

Usage: python3 record_acp.py FOLDER COMMAND [ARG ...]

Start this where the editor would start the agent: it starts COMMAND, passes the editor's lines
to the agent's stdin and the agent's stdout back, unchanged, and appends each line, both
directions, to a new FOLDER/acp-<time>-<pid>.jsonl as it passes (a line is recorded before it
is passed on, so a request comes before its answer). The agent's stderr is left as it is. It
ends with the agent's exit status; SIGTERM, SIGHUP and SIGINT are passed on to the agent.
Only the Python standard library is used.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from typing import IO

USAGE = "usage: python3 record_acp.py FOLDER COMMAND [ARG ...]"


def main(arguments: list[str]) -> int:
    if len(arguments) < 2:
        print(USAGE, file=sys.stderr)
        return 2
    folder, command = arguments[0], arguments[1:]
    os.makedirs(folder, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    path = os.path.join(folder, f"acp-{stamp}-{os.getpid()}.jsonl")
    with open(path, "ab") as recording:
        lock = threading.Lock()
        try:
            agent = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError as error:
            print(f"record_acp.py: cannot start {command[0]}: {error.strerror}", file=sys.stderr)
            return 127
        assert agent.stdin is not None
        assert agent.stdout is not None
        # The editor ends an agent with a signal: passed on, or the agent would outlive this.
        for ending in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(ending, lambda number, _frame: agent.send_signal(number))
        to_agent = threading.Thread(
            target=_pass_lines, args=(sys.stdin.buffer, agent.stdin, recording, lock), daemon=True
        )
        # The thread starts with these signals blocked, so the kernel hands them to this one
        # (it may pick any thread not blocking them): taken by the reader thread, the handler
        # would wait on this thread's read, which only the agent's ending ends.
        endings = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}
        signal.pthread_sigmask(signal.SIG_BLOCK, endings)
        to_agent.start()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, endings)
        _pass_lines(agent.stdout, sys.stdout.buffer, recording, lock)
        status = agent.wait()
        return 128 - status if status < 0 else status  # a signal's number, as a shell says it


def _pass_lines(
    source: IO[bytes], sink: IO[bytes], recording: IO[bytes], lock: threading.Lock
) -> None:
    """Copy `source` to `sink` line by line, recording each line first; close `sink` at the end
    (the agent reads the end of its input as the editor gone)."""
    # A broken pipe or a closed stream: the other side is gone, and so is this copy.
    with contextlib.suppress(BrokenPipeError, ValueError):
        for line in iter(source.readline, b""):
            with lock:
                recording.write(line if line.endswith(b"\n") else line + b"\n")
                recording.flush()
            sink.write(line)
            sink.flush()
    with contextlib.suppress(BrokenPipeError):
        sink.close()


if __name__ == "__main__":
    code = main(sys.argv[1:])
    # Without the interpreter's shutdown: the thread still reading the editor's input holds
    # stdin's lock, which shutdown would wait for and then abort on (SIGABRT).
    with contextlib.suppress(BrokenPipeError, ValueError):
        sys.stdout.flush()
    os._exit(code)
