"""conform on a Python target (`--impl`) whose events hold a field of the wrong JSON type: a
report, never a traceback. (A `--cmd` target's answers are held to `loopspec schema` first.)"""

from __future__ import annotations

import attrs

from loopspec.model.commands import Command, ModelReplies, SubmitUser
from loopspec.model.config import LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation


class ErrorAsText(ModelTarget):
    """The model, except that a tool/result's `error` is a string, not `{name, code}`."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "error as text"

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = tuple(
            {**event, "data": {**event["data"], "error": "boom"}}
            if event["type"] == "tool/result" and "error" in event["data"]
            else event
            for event in observed.events
        )
        return attrs.evolve(observed, events=events)


def test_LOG_4_a_result_whose_error_is_text_is_reported_not_raised() -> None:
    """LOG-4: an unknown tool's result whose `error` the target wrote as text is a report naming
    the field, as `check` reports it (conform ended in AttributeError: 'str' object has no
    attribute 'get'; then, until `check` held optional fields to their types, it read as EXE-5,
    a result that differs)."""
    config = LoopConfig(tools=(ToolSpec("read", concurrency_safe=True),))
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "missing_tool", "{}"),)),
    ]
    replay = replay_case(ErrorAsText, config, program)
    assert replay.divergence is not None
    assert (replay.divergence.index, replay.divergence.rule_id) == (1, "LOG-4")
    assert replay.divergence.what.endswith("data.error must be an object"), replay.divergence
