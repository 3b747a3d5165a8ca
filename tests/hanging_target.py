"""A driver-protocol target in Python that hangs on one kind of command: `python hanging_target.py`.

It answers every message as the reference model does (so a program never diverges), except that
a `ToolFinishes` whose outcome failed, once a PreToolUse hook has answered in the program, is
never answered: the process stays silent until it is killed. Counted from each `reset`, so a
replayed program hangs at the same command whatever the process ran before. With `--slow S`,
another failed outcome with an empty message (conform never draws one; cutting a program down
tries one) is answered after S seconds: slow, not hung. Used by
tests/test_breakage_reduction.py (SAFE-5: cutting down the program of a target that hangs).
"""

from __future__ import annotations

import json
import sys
import time

from loopspec.model.commands import HookAnswers, ToolFailed, ToolFinishes
from loopspec.properties.conformance.command_codec import command_from_json, config_from_json
from loopspec.properties.conformance.target import ModelTarget


def _say(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    """Serve the protocol on stdin/stdout until shutdown."""
    slow = float(sys.argv[2]) if sys.argv[1:2] == ["--slow"] else 0.0
    model = ModelTarget()
    hooked = False
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "shutdown":
            _say({"type": "bye"})
            return
        if message["type"] == "reset":
            capabilities = model.reset(config_from_json(message["config"]))
            hooked = False
            _say({"type": "ready", "implementation": "hangs", "capabilities": sorted(capabilities)})
            continue
        command = command_from_json(message["command"])
        if isinstance(command, ToolFinishes) and isinstance(command.outcome, ToolFailed):
            if hooked:
                time.sleep(600)  # the bug: stuck; the driver's answer timeout ends it
            if not command.outcome.message:
                time.sleep(slow)
        observed = model.apply(command)
        hooked = hooked or (observed.accepted and isinstance(command, HookAnswers))
        answer: dict[str, object] = {"type": "observed", "seq": message["seq"]}
        if observed.accepted:
            answer |= {
                "accepted": True,
                "events": list(observed.events),
                "commits": list(observed.commits),
                "executed": [{"callId": c, "arguments": a} for c, a in observed.executed],
                "presented": list(observed.presented or ()),
            }
        else:
            refusal = {"rule": observed.refusal_rule, "message": observed.refusal_message}
            answer |= {"accepted": False, "refusal": refusal}
        _say(answer)


if __name__ == "__main__":
    main()
