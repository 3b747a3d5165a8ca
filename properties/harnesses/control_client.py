"""The hook and tool commands a real CLI runs under `loopspec conform`: each asks the adapter.

`python control_client.py hook SOCKET HANDLER_ID` is a PreToolUse hook command: it sends the
JSON the CLI wrote on its stdin to the conformance adapter (`conform_driver`) over the Unix
socket SOCKET and blocks until the adapter answers with what the hook prints and its exit code.
`python control_client.py tool SOCKET CALL_ID NAME ARGUMENTS` is the tool body a shell call of
the CLI runs: it tells the adapter that the call started with these arguments and blocks until
the adapter releases it with the output, the error text and the exit code the program chose.
It imports nothing from loopspec, so it starts as fast as Python can. It holds its connection
until it ends, so the adapter sees its end (when the CLI sees the hook finish) as the close.
"""

from __future__ import annotations

import json
import os
import socket
import sys

HELD: list[socket.socket] = []
"""The connection, held open until the process ends (the system closes it then)."""


def ask(path: str, request: dict[str, object]) -> dict[str, object]:
    """Send one JSON line; the adapter's one JSON line back (blocks until it answers)."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    HELD.append(connection)
    connection.connect(path)
    connection.sendall(json.dumps(request).encode("utf-8") + b"\n")
    received = b""
    while not received.endswith(b"\n"):
        chunk = connection.recv(65536)
        if not chunk:
            break
        received += chunk
    answer: dict[str, object] = json.loads(received.decode("utf-8"))
    return answer


def main(argv: list[str]) -> int:
    """Run as a hook or a tool; exit with the code the adapter chose."""
    if len(argv) >= 3 and argv[0] == "hook":
        raw = sys.stdin.read()
        try:
            seen: object = json.loads(raw)
        except ValueError:
            seen = raw
        answer = ask(argv[1], {"kind": "hook", "handler": argv[2], "stdin": seen})
    elif len(argv) == 5 and argv[0] == "tool":
        request: dict[str, object] = {
            "kind": "tool",
            "call": argv[2],
            "name": argv[3],
            "arguments": argv[4],
        }
        answer = ask(argv[1], request)
    else:
        sys.stderr.write(
            "usage: control_client.py hook SOCKET HANDLER_ID | tool SOCKET CALL_ID NAME ARGUMENTS\n"
        )
        return 2
    sys.stdout.write(str(answer.get("stdout", "")))
    sys.stderr.write(str(answer.get("stderr", "")))
    code = answer.get("exitCode", 0)
    return code if isinstance(code, int) else 1


if __name__ == "__main__":
    status = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)  # at once: the held connection closes as the process ends
