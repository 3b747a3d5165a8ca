"""A refused call answered before an earlier call's approval, found by an abort: the report
says the gate held it.

Session 21 wrote a loop outside the project (a copy of `impl/`) that answers denied and invalid
calls as soon as an earlier call's approval is asked ("refused calls need no approval"). Only an
abort while that approval is pending shows it: the model finds the refused call not started
(`ABORTED_BEFORE_DISPATCH`, ABORT-1; EXE-5 and DEC-1 say so), the loop answered it as refused.
conform named ABORT-1 and said only that the result is an ABORTED_BEFORE_DISPATCH error, which
sent the author to the abort drain; an abort drain that skips refused calls looks the same. The
report now names the approval that held the gate and SCHED-2, which no refused call passes.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest

from loopspec.model.commands import (
    Abort,
    Allow,
    Ask,
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    SubmitUser,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
ONE_PRE_HOOK = LoopConfig(tools=(READ,), hooks=(HookSpec("everything", "PreToolUse"),))
FIRST = ToolCallBlock("c1", "read", '{"file_path":"a"}')


class RefusedBeforeTheApproval(ModelTarget):
    """The model, except that a call an abort finds behind a pending approval is answered with
    its refusal (its deny reason, or its invalid input) instead of as never started."""

    invalid = False

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, Abort):
            return observed
        events: list[dict[str, Any]] = json.loads(json.dumps(list(observed.events)))
        for event in events:
            data = event["data"]
            if event["type"] == "tool/result" and data["message"]["source"]["callId"] == "c2":
                if self.invalid:
                    data["error"] = {"name": "InvalidToolInputError", "code": "INVALID_TOOL_INPUT"}
                    text = "Error: invalid input for tool read: the input must be a JSON object"
                else:
                    del data["error"]
                    text = "Error: no"
                data["message"]["content"][0]["content"] = [{"type": "text", "text": text}]
        return attrs.evolve(observed, events=tuple(events))


class InvalidBeforeTheApproval(RefusedBeforeTheApproval):
    """The same, the refused call's arguments not an object."""

    invalid = True


class UnknownBeforeTheApproval(ModelTarget):
    """The model, except that a call to an unregistered tool an abort finds behind a pending
    approval is answered UNKNOWN_TOOL instead of as never started."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, Abort):
            return observed
        events: list[dict[str, Any]] = json.loads(json.dumps(list(observed.events)))
        for event in events:
            data = event["data"]
            if event["type"] == "tool/result" and data["message"]["source"]["callId"] == "c2":
                data["error"] = {"name": "UnknownToolError", "code": "UNKNOWN_TOOL"}
                text = "Error: unknown tool nope"
                data["message"]["content"][0]["content"] = [{"type": "text", "text": text}]
        return attrs.evolve(observed, events=tuple(events))


DENIED = [
    SubmitUser("hi"),
    ModelReplies((FIRST, ToolCallBlock("c2", "read", '{"file_path":"b"}'))),
    HookAnswers(Ask()),
    HookAnswers(Deny("no")),
    Abort(),
]
INVALID = [
    SubmitUser("hi"),
    ModelReplies((FIRST, ToolCallBlock("c2", "read", "[1]"))),
    HookAnswers(Ask()),
    Abort(),
]


UNKNOWN = [
    SubmitUser("hi"),
    ModelReplies((FIRST, ToolCallBlock("c2", "nope", '{"a":1}'))),
    HookAnswers(Ask()),
    HookAnswers(Allow()),
    Abort(),
]


@pytest.mark.parametrize(
    ("target", "program"),
    [
        (RefusedBeforeTheApproval, DENIED),
        (InvalidBeforeTheApproval, INVALID),
        # Blamed on SCHED-1 ("starts only when no earlier call runs"), though none ran: the
        # approval held the gate.
        (UnknownBeforeTheApproval, UNKNOWN),
    ],
    ids=["denied", "invalid", "unknown tool"],
)
def test_ABORT_1_a_refused_call_behind_a_pending_approval_names_the_gate(
    target: type[ModelTarget], program: list[Command]
) -> None:
    """ABORT-1, SCHED-2: the report names the approval that held the gate."""
    assert replay_case(ModelTarget, ONE_PRE_HOOK, program).divergence is None
    replay = replay_case(target, ONE_PRE_HOOK, program)
    assert replay.divergence is not None, "the bug was not found"
    assert replay.divergence.rule_id == "ABORT-1", replay.divergence.what
    what = replay.divergence.what
    for named in ("call c1's pending approval held the gate", "SCHED-2", "call c2 not started"):
        assert named in what, what
    # An abort drain that answers a call behind the gate with its verdict looks the same: the
    # report says which two rules it cannot tell apart, and why.
    assert "Two bugs give this result, and no log tells them apart" in what, what
    assert "its result commits only after call c1's (ORD-3)" in what, what
    # Which to look at first: the gate (a loop answering refused calls as its hooks decide,
    # round 12's Python loop), then the drain; the words gave both rules and no order.
    assert "Look at the gate first (SCHED-2)" in what, what
    assert "if yours holds the call there, fix the abort's drain (ABORT-1" in what, what
