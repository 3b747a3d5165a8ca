"""A turn opened while the open turn's calls await their results: check reads it as a crash left
unrepaired (REC-1) in every dialect; conform, which knows whether a crash came, names TURN-1
where none did."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from loopspec.model.commands import Command, ModelReplies, SubmitUser
from loopspec.model.invariants import LogMonitor
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.blame.classify import classify
from loopspec.properties.conformance.blame.own_log import log_violations
from loopspec.properties.conformance.target import ModelTarget
from loopspec.properties.stateful.strategies import CONFIGS


@pytest.mark.parametrize(("crashed", "rule"), [(False, "TURN-1"), (True, "REC-1")])
def test_TURN_1_a_turn_opened_over_waiting_calls_without_a_crash_is_not_blamed_on_repair(
    crashed: bool, rule: str
) -> None:
    """TURN-1: a target that opens turn 2 for a message sent while turn 1's call still runs
    (the model parks the message) breaks TURN-1: no crash came, so no repair was due. The same
    turn/start after a crash is the repair the target skipped (REC-1), as check names it."""
    program: list[Command] = [
        SubmitUser("read it"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),)),
        SubmitUser("and then"),
    ]
    model = ModelTarget()
    model.reset(CONFIGS[0])
    history: list[dict[str, Any]] = []
    for command in program:
        expected = model.apply(command)
        history += expected.events
    assert expected.accepted
    assert not expected.events  # parked
    seq = len(history)
    nested = {"type": "turn/start", "seq": seq, "time": 1700000000000, "data": {"turn": 2}}
    actual = attrs.evolve(expected, events=(nested,))
    monitor = LogMonitor()
    log_violations(monitor, history)
    violations = log_violations(monitor, actual.events)
    assert [v.rule_id for v in violations] == ["REC-1"]  # what check names, a log alone
    found, what = classify(
        program[-1],
        "AwaitingTools",
        expected,
        actual,
        target_violations=violations,
        history=tuple(history),
        crashed=crashed,
    )
    assert found == rule, what
    assert what.startswith(
        f"the target's own log breaks {rule} at its seq {seq}: turn 2 starts inside open turn 1, "
        "where call c1 still awaits its result"
    )
    assert ("crash repair" in what) is crashed
