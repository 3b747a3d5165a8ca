"""Messages a person reads name a wrong value as JSON writes it (`model.json_text.spelled`),
the spelling of the file or answer it came from, not as Python's repr does: `"x"`, not `'x'`;
an object, not a Python dict; a block by the type its line gives it, not a Python class."""

from __future__ import annotations

import pytest
from test_blame_matrix import _reason, changed

from loopspec.model.commands import Abort, ApprovalAnswers, ModelReplies, SubmitUser
from loopspec.model.config import LoopConfig
from loopspec.model.errors import InvalidEventError
from loopspec.model.messages import TextBlock
from loopspec.model.wire import event_from_wire
from loopspec.properties.conformance.compare import displayed_observation
from loopspec.properties.conformance.profile_check import _as_observation
from loopspec.properties.conformance.run import replay_case


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: ModelReplies((TextBlock("x"),), "stopped"), 'unknown finish reason "stopped"'),
        (lambda: ApprovalAnswers("yes"), 'unknown approval outcome "yes"'),
        (lambda: Abort("me"), 'unknown abort cause "me"'),
    ],
    ids=["finish", "outcome", "cause"],
)
def test_PROTO_1_an_unknown_word_of_a_command_is_quoted_as_json_quotes_it(
    make: object, words: str
) -> None:
    """PROTO-1: a command's unknown word is named in JSON's quotes, where it was `'stopped'`."""
    assert callable(make)
    with pytest.raises(InvalidEventError) as refused:
        make()
    assert words in str(refused.value)


def test_LOG_6_a_result_nesting_a_call_names_the_block_by_its_type() -> None:
    """LOG-6: a tool result nesting a tool-call block names it by its wire type, where the
    message named the Python class (`cannot nest a ToolCallBlock`)."""
    nested = {"type": "tool-call", "id": "x", "name": "n", "arguments": "{}"}
    result = {"type": "tool-result", "toolCallId": "c", "content": [nested], "isError": False}
    message = {
        "id": "m",
        "role": "user",
        "content": [result],
        "source": {"kind": "tool", "callId": "c"},
    }
    line = {"type": "tool/result", "seq": 1, "time": 1, "surfaceOp": "append",
            "data": {"turn": 1, "step": 1, "message": message}}  # fmt: skip
    with pytest.raises(InvalidEventError) as refused:
        event_from_wire(line)
    assert str(refused.value).endswith('.content[0] cannot nest a "tool-call" block')


def test_MODEL_1_a_profile_run_s_executed_arguments_show_as_json() -> None:
    """MODEL-1: the bodies a run under a profile started show in the report's diff as the
    driver protocol reports them, where repr wrote `{'command': 'ls'}` and `'\\x85 x'`; blank
    text as the `{}` it denotes (EXE-2), as it is compared."""
    executed = [["c1", {"command": "ls"}], ["c2", "\x85 x"], ["c3", "\x85"]]
    run = [{"accepted": True, "events": [], "executed": executed}]
    shown = displayed_observation(_as_observation(run, 0, {}))
    assert isinstance(shown, dict)
    assert shown["executed"] == [
        {"callId": "c1", "arguments": {"command": "ls"}},
        {"callId": "c2", "arguments": "\x85 x"},
        {"callId": "c3", "arguments": {}},
    ]


@pytest.mark.parametrize(
    ("reason", "rule", "words"),
    [
        ({"kind": "done"}, "STEP-4", 'the model ends the turn "completed", the target "done"'),
        (
            {"kind": "completed", "why": None},
            "STEP-4",
            'is {"kind": "completed"} in the model, {"kind": "completed", "why": null} in',
        ),
    ],
    ids=["another kind", "another member"],
)
def test_STEP_4_a_turn_end_reason_is_quoted_as_json(reason: object, rule: str, words: str) -> None:
    """STEP-4: the blame quotes the target's turn/end reason as its log writes it (`null`,
    `"done"`), where repr wrote `{'kind': 'completed', 'why': None}`."""
    target = changed(_reason({"completed": reason}))
    replay = replay_case(target, LoopConfig(), [SubmitUser("hi"), ModelReplies((TextBlock("ok"),))])
    assert replay.divergence is not None
    assert replay.divergence.rule_id == rule, replay.divergence.what
    assert words in replay.divergence.what, replay.divergence.what
