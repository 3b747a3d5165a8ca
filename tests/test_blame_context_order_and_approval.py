"""Two loops written outside the project (session 21, h6) whose report named the right rule
in words that did not say what was wrong:

- a result's PostToolUse contexts queued before the body's own: ADJ-4 said only "queued
  messages are delivered FIFO", which the loop does; the report now says the order a call's
  contexts join the queue in (the body's own first, then its hooks' in configured order);
- an approval answered `unavailable` (no approval channel) run as if allowed: DEC-2 said only
  "the target does not append the model's tool/result for call c1"; it now says that only
  allowed-once runs a call and the answer given ends it with its own error.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest

from loopspec.model import dispatch, handlers
from loopspec.model.commands import (
    ApprovalAnswers,
    Ask,
    Command,
    HookAnswers,
    ModelReplies,
    PostContext,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
READ_CALL = ToolCallBlock("c1", "read", '{"file_path":"a"}')


class HookContextsFirst(ModelTarget):
    """The model, except that a result's hook contexts open the next step before the body's."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events: list[dict[str, Any]] = json.loads(json.dumps(list(observed.events)))
        at = [
            i
            for i, e in enumerate(events)
            if e["type"] == "user/message" and e["data"]["source"].get("kind") == "plugin"
        ]
        texts = [events[i]["data"]["content"] for i in at]
        for i, content in zip(at, reversed(texts), strict=True):
            events[i]["data"]["content"] = content
        return attrs.evolve(observed, events=tuple(events))


_ANSWER = dispatch.answer_approval


def _unavailable_runs(draft: Any, phase: Any, outcome: str) -> Any:
    return _ANSWER(draft, phase, "allowed-once" if outcome == "unavailable" else outcome)


class UnavailableRuns(ModelTarget):
    """The model, except that an approval answered `unavailable` runs the call (recorded as
    answered so: the loop had nobody to ask, and ran it)."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(handlers, "answer_approval", _unavailable_runs)
            observed = super().apply(command)
        events: list[dict[str, Any]] = json.loads(json.dumps(list(observed.events)))
        for event in events:
            if event["type"] == "approval/decided" and command == ApprovalAnswers("unavailable"):
                event["data"]["outcome"] = "unavailable"
        return attrs.evolve(observed, events=tuple(events))


def test_ADJ_4_contexts_out_of_order_say_the_body_s_come_first() -> None:
    """ADJ-4: the report states the order a call's contexts join the queue in."""
    config = LoopConfig(tools=(READ,), hooks=(HookSpec("after-all", "PostToolUse"),))
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((READ_CALL,)),
        ToolFinishes("c1", ToolSucceeded("a", contexts=("body",)), (PostContext("hook"),)),
    ]
    assert replay_case(ModelTarget, config, program).divergence is None
    replay = replay_case(HookContextsFirst, config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "ADJ-4", replay.divergence.what
    assert "the body's own first, then its PostToolUse hooks' in configured order" in (
        replay.divergence.what
    )


def test_DEC_2_an_unavailable_approval_that_runs_says_only_allowed_once_runs() -> None:
    """DEC-2: the report says only allowed-once runs a call, and names the answer given."""
    config = LoopConfig(tools=(READ,), hooks=(HookSpec("everything", "PreToolUse"),))
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((READ_CALL,)),
        HookAnswers(Ask()),
        ApprovalAnswers("unavailable"),
    ]
    assert replay_case(ModelTarget, config, program).divergence is None
    replay = replay_case(UnavailableRuns, config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "DEC-2", replay.divergence.what
    assert "only an approval answered allowed-once runs the call; unavailable ends it" in (
        replay.divergence.what
    )
