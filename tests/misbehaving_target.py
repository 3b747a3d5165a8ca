"""A driver-protocol target that works, then breaks: `python misbehaving_target.py MODE N`.

It relays every message to the JavaScript loop (`examples/js-loop/main.mjs`) and its answers
back, until the Nth command; then, by MODE: `die` exits, `garbage` answers with a line that is
not JSON, `deep` answers with JSON nested 100,000 deep, `nested` with JSON one level deeper than
conform reads (201), `hang` stops answering, `flood` writes an endless line, `detach` leaves a
`setsid` child holding stdout and exits (its pid in $MISBEHAVING_PIDFILE when set); `nobye`
answers every message but `shutdown`, where it exits without `bye` (give it an N no program
reaches); `noturnend` keeps to the protocol but leaves every `turn/end` out of its answers from
the Nth command on, a loop that breaks a rule. Used by tests/test_safety.py (SAFE-3, SAFE-5) and
tests/test_pytest_plugin.py; a test using it needs node, and says so with
`@pytest.mark.needs(Need.NODE)` (tests/node_requirements.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

JS_LOOP = Path(__file__).resolve().parent.parent / "examples" / "js-loop" / "main.mjs"


def misbehave(mode: str) -> None:
    """Break the conversation the way `mode` says."""
    if mode == "die":
        sys.exit(3)
    if mode == "garbage":
        sys.stdout.write("this is not json\n")
    elif mode == "deep":
        sys.stdout.write("[" * 100_000 + "]" * 100_000 + "\n")
    elif mode == "nested":  # one level deeper than conform reads, arrays and objects in turn
        sys.stdout.write('{"a":[' * 100 + "{}" + "]}" * 100 + "\n")
    elif mode == "flood":
        chunk = "x" * 65536
        while True:
            sys.stdout.write(chunk)
    elif mode == "detach":
        child = subprocess.Popen(["sleep", "300"], start_new_session=True)
        pidfile = os.environ.get("MISBEHAVING_PIDFILE")
        if pidfile:
            Path(pidfile).write_text(str(child.pid), encoding="utf-8")
        sys.exit(0)
    sys.stdout.flush()
    time.sleep(600)  # `hang`, and after garbage: stay silent until killed


def without_turn_ends(answer: str) -> str:
    """An `observed` answer without its `turn/end` events, committed as one commit."""
    message = json.loads(answer)
    if message.get("type") != "observed" or not message.get("accepted"):
        return answer
    events = [event for event in message["events"] if event.get("type") != "turn/end"]
    message["events"], message["commits"] = events, [len(events)] if events else []
    return json.dumps(message) + "\n"


def main() -> None:
    """Relay to the JavaScript loop until the Nth command, then misbehave."""
    mode, breaking_at = sys.argv[1], int(sys.argv[2])
    loop = subprocess.Popen(
        ["node", str(JS_LOOP)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert loop.stdin is not None
    assert loop.stdout is not None
    commands = 0
    for line in sys.stdin:
        if mode == "nobye" and json.loads(line).get("type") == "shutdown":
            sys.exit(0)  # the run is over: leave without answering `bye`
        if json.loads(line).get("type") == "command":
            commands += 1
            if commands >= breaking_at and mode != "noturnend":
                misbehave(mode)
        loop.stdin.write(line)
        loop.stdin.flush()
        answer = loop.stdout.readline()
        mutated = mode == "noturnend" and commands >= breaking_at
        sys.stdout.write(without_turn_ends(answer) if mutated else answer)
        sys.stdout.flush()
        if json.loads(line).get("type") == "shutdown":
            # `bye` relayed: leave, as the loop does (the driver waits for the exit).
            sys.exit(0)


if __name__ == "__main__":
    main()
