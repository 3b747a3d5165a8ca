"""Fresh bugs of session 24, blamed on the rule their author must fix, in words that say what.

Session 24 wrote twenty-eight more wrong loops outside the project (copies of `impl/` and of
`examples/js-loop/`, each with one bug) and ran `loopspec conform` on each. Where the report
named another rule than the one the bug breaks, the difference is planted here in the model and
a fixed program that shows it is replayed:

- crash repair that names the open step by counting every step/start of the log, so after a
  first turn its result names a step that is not open: read as a result in the wrong step
  (STEP-3) where the repair is what is wrong (REC-1), as its step/end naming the wrong step
  already was (STEP-2 read as REC-1);
- a result that cites the seq after its tool/call's, its own: read as a citation of no
  earlier event (LOG-2), which is true, where the fix is to cite the tool/call (ORD-2, at the
  same seq), whose words name the seq to cite;
- a reopened loop whose client is sent nothing of what crash repair appends: named right
  (PROTO-1, a message left out), in words that now say the result is crash repair's, which a
  reopened loop's client is sent as any later event;
- a tool result message written with OpenAI's role "tool": stopped as PROTO-1, a broken
  protocol schema in the history the answer reports, where the event breaks LOG-6 (a result
  message has role user), which conform names as it names HOOK-1 and TURN-5 for such values.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import attrs
import pytest
from fresh_bugs import (
    FreshBug,
    assert_blamed_on,
    assert_passes_on_model,
    calls,
    copied,
    names,
    report,
    row_named,
)

from loopspec.model.commands import (
    Command,
    Crash,
    ModelFails,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig, ToolSpec
from loopspec.model.events import StepStarted
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
READS = LoopConfig(tools=(READ,))


class RepairCountsEveryStep(ModelTarget):
    """The model, except that crash repair names the open step by the number of step/start
    events in the whole log, not in the open turn."""

    def apply(self, command: Command) -> Observation:
        if not isinstance(command, Recover):
            return super().apply(command)
        assert self.state is not None
        steps_seen = sum(1 for event in self.state.log if isinstance(event, StepStarted))
        observed = super().apply(command)
        events: list[dict[str, Any]] = copied(observed)
        for event in events:
            if "step" in event["data"]:
                event["data"]["step"] = steps_seen
        return attrs.evolve(observed, events=tuple(events))


class CitesTheSeqAfterItsCall(ModelTarget):
    """The model, except that a result cites the seq after its tool/call's (a writer that reads
    the next seq after adding the record, not the seq it added)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        for event in events:
            if event["type"] == "tool/result" and "sourceEventSeqs" in event:
                event["sourceEventSeqs"] = [seq + 1 for seq in event["sourceEventSeqs"]]
        return attrs.evolve(observed, events=tuple(events))


class ShowsNothingOfTheRepair(ModelTarget):
    """The model, except that its client is sent nothing for what crash repair appends (the
    reopened loop subscribes its presenter after the repair)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        return attrs.evolve(observed, presented=()) if isinstance(command, Recover) else observed


PROGRAMS: list[FreshBug] = [
    (
        "crash repair names the open step by counting every step of the log",
        RepairCountsEveryStep,
        READS,
        (
            SubmitUser(""),
            ModelFails(""),
            SubmitUser(""),
            calls("c1", "read", '{"file_path":""}'),
            Crash(),
            Recover(),
        ),
        "REC-1",
    ),
    (
        "a result cites the seq after its tool/call's, its own",
        CitesTheSeqAfterItsCall,
        READS,
        (
            SubmitUser(""),
            calls("c1", "read", '{"file_path":""}'),
            ToolFinishes("c1", ToolSucceeded("")),
        ),
        "ORD-2",
    ),
    (
        "a reopened loop's client is sent nothing of the crash repair",
        ShowsNothingOfTheRepair,
        READS,
        (SubmitUser(""), calls("c1", "read", '{"file_path":""}'), Crash(), Recover()),
        "PROTO-1",
    ),
]


@pytest.mark.parametrize("row", PROGRAMS, ids=names(PROGRAMS))
def test_MODEL_1_a_fresh_bug_of_round_5_is_blamed_on_the_rule_its_author_must_fix(
    row: FreshBug,
) -> None:
    """MODEL-1 (REC-1, ORD-2, PROTO-1): the first divergence names the rule broken."""
    assert_blamed_on(row)


@pytest.mark.parametrize("row", PROGRAMS, ids=names(PROGRAMS))
def test_MODEL_1_the_round_5_programs_pass_on_the_model(row: FreshBug) -> None:
    """MODEL-1: control: without the bug, no program diverges."""
    assert_passes_on_model(row)


def test_REC_1_a_repair_result_in_the_wrong_step_names_the_repair() -> None:
    """REC-1: the report says the repair's result breaks STEP-3, and what repair appends."""
    said = report(*row_named(PROGRAMS, "crash repair names the open step")[1:4])
    assert "the target's crash repair breaks STEP-3" in said, said
    assert "then appends step/end if a step is open" in said, said


def test_LOG_6_a_result_message_of_role_tool_names_LOG_6_though_the_history_carries_it() -> None:
    """LOG-6: a loop that writes a tool result message with OpenAI's role "tool" was stopped as
    PROTO-1 ("breaks the protocol schema at history/appended/0/..."): the history it reports
    carries the same message, and the schema's most specific error lay there. The event is what
    the model refuses, under LOG-6, so conform names LOG-6, still stopping (exit 2) as for
    any value it cannot compare."""
    message = {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "c1",
                "content": [{"type": "text", "text": ""}],
                "isError": False,
            }
        ],
        "source": {"kind": "tool", "callId": "c1"},
        "id": "m1",
    }
    event = {
        "type": "tool/result",
        "seq": 0,
        "time": 0,
        "data": {"turn": 1, "step": 1, "message": message},
        "surfaceOp": "append",
    }
    ready = {"type": "ready", "implementation": "fake", "capabilities": ["history"]}
    answer = {"type": "observed", "seq": 0, "accepted": True, "events": [event]}
    answer |= {"commits": [1], "executed": [], "history": {"kept": 0, "appended": [message]}}
    code = (
        f"import sys; sys.stdin.readline(); print({json.dumps(ready)!r}, flush=True);"
        f"sys.stdin.readline(); print({json.dumps(answer)!r}, flush=True); sys.stdin.read()"
    )
    target = ProcessTarget([sys.executable, "-c", code], name="fake")
    target.reset(LoopConfig())
    with pytest.raises(ProcessTargetError, match=r"message\.role must be 'user'") as caught:
        target.apply(SubmitUser("hi"))
    assert caught.value.rule_id == "LOG-6"


def test_ORD_2_a_result_citing_itself_names_the_seq_of_its_call() -> None:
    """ORD-2: the report names the tool/call seq the result must cite."""
    said = report(*row_named(PROGRAMS, "a result cites the seq after")[1:4])
    assert "does not cite its tool/call seq 4 in sourceEventSeqs" in said, said


def test_PROTO_1_an_update_left_out_at_a_repair_result_says_it_is_the_repair_s() -> None:
    """PROTO-1: the report says the result left unshown is crash repair's, and that a reopened
    loop's client is sent it."""
    said = report(*row_named(PROGRAMS, "a reopened loop's client is sent nothing")[1:4])
    assert "this result is crash repair's TOOL_OUTCOME_UNKNOWN" in said, said
    assert "a reopened loop's client is sent what repair appends" in said, said
