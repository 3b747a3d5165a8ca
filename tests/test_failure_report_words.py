"""What a failure report says to a harness author who reads it without loopspec's source: the
rule the loop broke, in the words of SPEC.md, not the protocol schema's or Python's."""

from __future__ import annotations

import json
import sys

import pytest

from loopspec.model.commands import SubmitUser
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError


def _answering(event: dict[str, object]) -> ProcessTarget:
    """A process target that answers its first command with `event` alone."""
    ready = {"type": "ready", "implementation": "fake", "capabilities": []}
    answer = {"type": "observed", "seq": 0, "accepted": True, "events": [event]}
    answer |= {"commits": [1], "executed": []}
    code = (
        f"import sys; sys.stdin.readline(); print({json.dumps(ready)!r}, flush=True);"
        f"sys.stdin.readline(); print({json.dumps(answer)!r}, flush=True); sys.stdin.read()"
    )
    return ProcessTarget([sys.executable, "-c", code], name="fake")


def test_LOG_2_an_off_surface_event_with_surface_metadata_names_LOG_2_not_the_schema() -> None:
    """LOG-2: a loop that wrote `surfaceOp` on a turn/start was stopped as PROTO-1 with the
    schema validator's words: the event as a Python dict and "should not be valid under
    {'anyOf': ...", a slice of the schema. The model's reader refuses the event under LOG-2,
    as check does the same line of a log: conform says that."""
    event = {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}}
    event["surfaceOp"] = "append"
    target = _answering(event)
    target.reset(LoopConfig())
    with pytest.raises(ProcessTargetError) as caught:
        target.apply(SubmitUser("hi"))
    said = str(caught.value)
    assert caught.value.rule_id == "LOG-2", said
    assert "turn/start is not a surface event and must not carry surfaceOp" in said, said
    assert "should not be valid under" not in said, said
    assert "{'type'" not in said, said
