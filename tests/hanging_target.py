"""A driver-protocol target in Python that hangs on one kind of command: `python hanging_target.py`.

It answers every message as the reference model does (so a program never diverges), except that
a `ToolFinishes` whose outcome failed, once a PreToolUse hook has answered in the program, is
never answered: the process stays silent until it is killed. Counted from each `reset`, so a
replayed program hangs at the same command whatever the process ran before. With `--slow S`,
another failed outcome with an empty message (conform never draws one; cutting a program down
tries one) is answered after S seconds: slow, not hung. Used by
tests/test_breakage_reduction.py (SAFE-5: cutting down the program of a target that hangs). With
`--first-command-after S`, the first command the process is sent is answered after S seconds
(one long wait inside a program: tests/test_ci_use.py's progress lines).

conform starts the process again after every hang, and importing loopspec costs about 0.3 s of
CPU a start, most of what such a test spends. So with `--model PATH` the process imports nothing
of loopspec (run it with `python -S`): it takes the model's answers from `serve_model` listening
on the Unix socket PATH (the tests run it in a thread of their own process), one connection per
process. Without it, the process runs the model itself.
"""

from __future__ import annotations

import json
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def model_answers() -> Callable[[str], str]:
    """Answers to the protocol's `reset` and `command` lines from one reference model."""
    # Imported here, not on top: the process that asks a model server must not pay for them.
    from loopspec.properties.conformance import command_codec  # noqa: PLC0415
    from loopspec.properties.conformance.history_change import history_wire  # noqa: PLC0415
    from loopspec.properties.conformance.target import ModelTarget  # noqa: PLC0415

    model = ModelTarget()

    def answer(line: str) -> str:
        message = json.loads(line)
        if message["type"] == "reset":
            capabilities = model.reset(command_codec.config_from_json(message["config"]))
            ready = {
                "type": "ready",
                "implementation": "hangs",
                "capabilities": sorted(capabilities),
            }
            return json.dumps(ready)
        observed = model.apply(command_codec.command_from_json(message["command"]))
        reply: dict[str, object] = {"type": "observed", "seq": message["seq"]}
        if observed.accepted:
            reply |= {
                "accepted": True,
                "events": list(observed.events),
                "commits": list(observed.commits),
                "executed": [{"callId": c, "arguments": a} for c, a in observed.executed],
                "presented": list(observed.presented or ()),
            }
            if observed.history is not None:
                reply["history"] = history_wire(observed.history)
        else:
            refusal = {"rule": observed.refusal_rule, "message": observed.refusal_message}
            reply |= {"accepted": False, "refusal": refusal}
        return json.dumps(reply)

    return answer


@contextmanager
def serve_model(path: str) -> Iterator[None]:
    """Serve `model_answers` on the Unix socket `path` (a fresh model for each connection) from
    a thread, until the block ends."""

    class Answering(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            answer = model_answers()
            try:
                for line in self.rfile:
                    self.wfile.write(answer(line.decode()).encode() + b"\n")
                    self.wfile.flush()
            except OSError:
                pass  # the process was killed (a hang's timeout): its connection is gone

    server = socketserver.ThreadingUnixStreamServer(path, Answering)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _asking(path: str) -> Callable[[str], str]:
    """Answers from the model server on the Unix socket `path`."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    stream = connection.makefile("rw", encoding="utf-8")

    def answer(line: str) -> str:
        stream.write(line.rstrip("\n") + "\n")
        stream.flush()
        return stream.readline().rstrip("\n")

    return answer


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    """Serve the protocol on stdin/stdout until shutdown."""
    options = sys.argv[1:]
    slow = float(options[options.index("--slow") + 1]) if "--slow" in options else 0.0
    first_after = "--first-command-after"
    first_wait = float(options[options.index(first_after) + 1]) if first_after in options else 0.0
    if "--model" in options:
        answer = _asking(options[options.index("--model") + 1])
    else:
        answer = model_answers()
    hooked = False
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "shutdown":
            _say(json.dumps({"type": "bye"}))
            return
        command = message.get("command", {}) if message["type"] != "reset" else {}
        outcome = command.get("outcome", {}) if command.get("kind") == "ToolFinishes" else {}
        if message["type"] == "command" and first_wait:
            time.sleep(first_wait)
            first_wait = 0.0
        if outcome.get("ok") is False:
            if hooked:
                time.sleep(600)  # the bug: stuck; the driver's answer timeout ends it
            if not outcome["message"]:
                time.sleep(slow)
        reply = answer(line)
        accepted = bool(json.loads(reply).get("accepted"))
        hooked = message["type"] != "reset" and (
            hooked or (accepted and command["kind"] == "HookAnswers")
        )
        _say(reply)


if __name__ == "__main__":
    main()
