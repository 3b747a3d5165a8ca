"""What a target reports a body ran with (`executed`): the value its arguments denote.

Real dsh runs the body of a call recorded with arguments `""` with the object `{}` (it parses
empty text as `{}`, as EXE-2 does), and its adapter reports `JSON.stringify` of what the body
got, `"{}"`. conform blamed EXE-3 ("the body runs with other arguments than its tool/call
records"), though by EXE-2 blank text denotes `{}` to every reader.
"""

from __future__ import annotations

import attrs
import pytest

from loopspec.model.commands import Command, ModelReplies, SubmitUser, ToolFinishes, ToolSucceeded
from loopspec.model.config import LoopConfig, ToolSpec
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles.dsh import PROFILE as DSH

CONFIG = LoopConfig(tools=(ToolSpec("write", concurrency_safe=False),), max_parallel=1)


def _program(arguments: str) -> list[Command]:
    return [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "write", arguments),)),
        ToolFinishes("c1", ToolSucceeded("done")),
        ModelReplies((TextBlock("ok"),)),
    ]


class ReportsTheObjectItsBodyGot(ModelTarget):
    """The model, reporting each body's arguments as a JavaScript loop reports the object its
    body got (`JSON.stringify(args)`): blank text as `{}`."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        executed = tuple(
            (call_id, "{}" if not arguments.strip() else arguments)
            for call_id, arguments in observed.executed
        )
        return attrs.evolve(observed, executed=executed)


class ReportsEmptyText(ModelTarget):
    """The model, reporting every body as run with empty text whatever its call recorded."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        return attrs.evolve(observed, executed=tuple((c, "") for c, _ in observed.executed))


@pytest.mark.parametrize("arguments", ["", " ", "\n\t", "\u3000"])
@pytest.mark.parametrize("profiled", [False, True])
def test_EXE_3_a_body_reported_as_run_with_the_object_blank_arguments_denote_conforms(
    arguments: str, profiled: bool
) -> None:
    """EXE-3, EXE-2: `"{}"` for a call recorded with blank arguments is what the call's
    arguments denote, with and without a profile (whose runs parse `executed` themselves)."""
    replay = replay_case(
        ReportsTheObjectItsBodyGot, CONFIG, _program(arguments), DSH if profiled else None
    )
    assert replay.divergence is None, replay.divergence and replay.divergence.what


@pytest.mark.parametrize("profiled", [False, True])
def test_EXE_3_a_body_reported_as_run_with_blank_text_for_an_object_with_keys_diverges(
    profiled: bool,
) -> None:
    """EXE-3: blank text is `{}`, not any object: a body reported as run with `""` for a call
    recorded with `{"path": "a"}` ran with other arguments."""
    replay = replay_case(
        ReportsEmptyText, CONFIG, _program('{"path": "a"}'), DSH if profiled else None
    )
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-3", replay.divergence.what
