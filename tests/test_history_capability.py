"""The capability "history": conform compares the messages a target's next model request would
carry with the model's `derive_messages` (rule HIST-1).

Without it no protocol message carried that history, so a loop whose history dropped a blank
reply (its log still held the reply) passed conform at every seed. A target reports, per
command, how its history changed (`kept`, `appended`); each side's change is made canonical, so
a target that resends the whole history compares the same as one that sends only what changed.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import attrs
import pytest
from batches import seeded
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from loopspec.impl import history as impl_history
from loopspec.model.commands import (
    Command,
    HookAnswers,
    ModelReplies,
    Pass,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ToolCallBlock,
    UserMessage,
    model_source,
)
from loopspec.model.wire import message_to_wire
from loopspec.properties.conformance.compare import DivergenceFound, normalized_observation
from loopspec.properties.conformance.driver_protocol import CAPABILITIES, protocol_schema
from loopspec.properties.conformance.history_change import (
    DerivedHistory,
    HistoryChange,
    ReportedHistory,
    comparable_change,
)
from loopspec.properties.conformance.history_rule import history_rule
from loopspec.properties.conformance.impl_target import bundled_target
from loopspec.properties.conformance.machine import conformance_machine
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError
from loopspec.properties.conformance.run import RunReport, replay_case, rule_table
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles import PROFILES, KnownDivergence, Profile

BLANK_REPLY: tuple[Command, ...] = (SubmitUser("hi"), ModelReplies((TextBlock("  "),)))
BUDGET = settings(
    max_examples=200,
    stateful_step_count=40,
    database=None,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def _drops_blank_replies(message: Message) -> bool:
    """The planted bug (s16's B10): a reply whose text is blank is not worth sending."""
    if isinstance(message, AssistantMessage) and message.content:
        blank = all(isinstance(b, TextBlock) and not b.text.strip() for b in message.content)
        if blank:
            return False
    return not (isinstance(message, AssistantMessage) and not message.content)


@pytest.fixture
def history_drops_blank_replies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bundled loop, with a history that leaves out a blank reply its log keeps."""
    monkeypatch.setattr(impl_history, "_is_sent", _drops_blank_replies)


@pytest.mark.no_cover
@pytest.mark.usefixtures("history_drops_blank_replies")
def test_HIST_1_conform_catches_a_history_that_drops_a_blank_reply() -> None:
    """HIST-1: random programs on the bundled loop with the planted bug diverge, blamed on
    HIST-1, naming the message left out (before the capability, every program passed)."""
    with pytest.raises(DivergenceFound) as found:
        run_state_machine_as_test(seeded(conformance_machine(bundled_target)), settings=BUDGET)
    divergence = found.value.divergence
    assert divergence.rule_id == "HIST-1", divergence.what
    assert "the target leaves out the model's assistant message" in divergence.what


def _drops_contexts(message: Message) -> bool:
    """A loop written outside the project (session 21, h6): queued contexts are logged, but
    sent as reminders some other way, never in the history."""
    if isinstance(message, UserMessage) and message.source.get("kind") == "plugin":
        return False
    return not (isinstance(message, AssistantMessage) and not message.content)


def test_HIST_1_a_context_left_out_is_named_as_a_context(monkeypatch: pytest.MonkeyPatch) -> None:
    """HIST-1: a queued context the history leaves out is named as one, with its plugin (it
    read as a user message, which sends its author to what the user typed)."""
    monkeypatch.setattr(impl_history, "_is_sent", _drops_contexts)
    read = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a"}'),)),
        ToolFinishes("c1", ToolSucceeded("a", contexts=("d",))),
    ]
    replay = replay_case(bundled_target, LoopConfig(tools=(read,)), program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "HIST-1", replay.divergence.what
    assert (
        "the target leaves out the model's user (a context queued by plugin tool-context) "
        'message [{"type": "text", "text": "d"}]'
    ) in replay.divergence.what


@pytest.mark.usefixtures("history_drops_blank_replies")
def test_HIST_1_a_replayed_blank_reply_names_the_message_left_out() -> None:
    """HIST-1: the report names the first differing message: its index, its role, what the
    model's history holds there, and both histories' sizes."""
    replay = replay_case(bundled_target, LoopConfig(), list(BLANK_REPLY))
    assert replay.divergence is not None
    assert replay.divergence.index == 1
    assert (replay.divergence.rule_id, replay.divergence.what) == (
        "HIST-1",
        "message #2 of the history the next model request would carry: the target leaves out "
        'the model\'s assistant message [{"type": "text", "text": "  "}] (the model\'s history '
        "holds 2 message(s), the target's 1)",
    )


@pytest.mark.usefixtures("history_drops_blank_replies")
def test_HIST_1_under_a_profile_a_history_is_held_to_the_targets_own_log() -> None:
    """HIST-1: under a profile (whose runs were compared without their histories, so a loop
    reporting one passed whatever it sent) the history is compared with what the target's own
    log derives, and a blank reply the log keeps but the history leaves out is named."""
    replay = replay_case(bundled_target, LoopConfig(), list(BLANK_REPLY), PROFILES["dsh"])
    assert replay.divergence is not None
    assert replay.divergence.index == 1
    assert (replay.divergence.rule_id, replay.divergence.what) == (
        "HIST-1",
        "message #2 of the history the next model request would carry: the target leaves out "
        'its own log\'s assistant message [{"type": "text", "text": "  "}] (its own log\'s '
        "history holds 2 message(s), the target's 1) (under the dsh profile a history is held "
        "to what the target's own log derives)",
    )


def _drops_replies_with_calls(message: Message) -> bool:
    """A planted bug: a reply that calls a tool is left out of the history its log keeps."""
    calls = isinstance(message, AssistantMessage) and any(
        isinstance(block, ToolCallBlock) for block in message.content
    )
    return not calls and _drops_blank_replies(message)


def test_HIST_1_under_a_profile_a_case_that_ends_while_a_call_runs_still_names_its_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HIST-1: under a profile a history difference waits for the next quiet point (a log that
    breaks a rule is blamed on that rule first); a case that ends before one, its call still
    running, is not passed for it: the difference is named at the command where it showed."""
    monkeypatch.setattr(impl_history, "_is_sent", _drops_replies_with_calls)
    config = LoopConfig(tools=(ToolSpec("bash", required_keys=("command",)),))
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command": "ls"}'),)),
    ]
    replay = replay_case(bundled_target, config, program, PROFILES["dsh"])
    assert replay.divergence is not None
    assert (replay.divergence.index, replay.divergence.rule_id) == (1, "HIST-1")
    assert "the target leaves out its own log's assistant message" in replay.divergence.what


def test_HIST_1_under_a_profile_a_history_difference_is_named_when_a_hard_divergence_stops_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HIST-1: a history difference waiting for the next quiet point is named, at the command
    where it showed, when a hard known divergence shows first and stops the program there: the
    stop cuts the runs, while the history is held to the target's own log, which no known
    divergence of the runs explains. (Without it the program passed, the stop shown.)"""
    monkeypatch.setattr(impl_history, "_is_sent", _drops_replies_with_calls)
    config = LoopConfig(tools=(ToolSpec("bash", required_keys=("command",)),))
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command": "ls"}'),)),
        ToolFinishes("c1", ToolSucceeded("ok")),
    ]

    def stopping_at(kind: str) -> Profile:
        stop = KnownDivergence(
            "stops", ("EXE-1",), "a test's", symptom=lambda command, *_: command["kind"] == kind
        )
        return Profile("stopping", "the bundled loop", (stop,))

    replay = replay_case(bundled_target, config, program, stopping_at("ToolFinishes"))
    assert replay.divergence is not None
    assert (replay.divergence.index, replay.divergence.rule_id) == (1, "HIST-1")
    assert "the target leaves out its own log's assistant message" in replay.divergence.what
    assert "(under the stopping profile a history is held" in replay.divergence.what


def test_HIST_1_the_bundled_loop_declares_history_and_agrees_with_the_model() -> None:
    """HIST-1: the bundled loop reports its `History.messages()`, equal to `derive_messages`
    after every command, a blank reply included, and a crash and a repair too."""
    replay = replay_case(bundled_target, LoopConfig(), list(BLANK_REPLY))
    assert replay.divergence is None
    assert "history" in replay.capabilities


SOURCE = model_source("p", "m")


def _wire(*texts: str) -> list[dict[str, Any]]:
    return [
        message_to_wire(AssistantMessage(f"m{i}", (TextBlock(text),), SOURCE))
        for i, text in enumerate(texts)
    ]


def _with_arguments(change: HistoryChange, arguments: str) -> list[dict[str, Any]]:
    """The change's one message, its one tool call given `arguments`."""
    message = change.appended[0]
    return [{**message, "content": [{**message["content"][0], "arguments": arguments}]}]


def test_HIST_1_a_target_may_resend_its_whole_history_with_fresh_ids() -> None:
    """HIST-1: a target that keeps nothing and resends every message (with new ids, arguments
    spelled its own way) reports the same canonical change as one that sends only what changed;
    a changed message is where the change starts, whatever `kept` it was sent with."""
    deltas, wholes = ReportedHistory(), ReportedHistory()
    first = _wire("a")
    assert deltas.change(0, first) == wholes.change(0, first)
    second = _wire("a", "b")
    renamed = [{**message, "id": f"other-{i}"} for i, message in enumerate(second)]
    delta = deltas.change(1, second[1:])
    whole = wholes.change(0, renamed)
    assert (
        comparable_change(delta)
        == comparable_change(whole)
        == comparable_change(HistoryChange(1, tuple(second[1:])))
    )
    rewritten = wholes.change(0, _wire("a", "c"))
    assert (rewritten.kept, [m["content"][0]["text"] for m in rewritten.appended]) == (1, ["c"])
    with pytest.raises(
        ValueError, match=re.escape("history.kept is 3, but the history it reported holds 2")
    ):
        deltas.change(3, [])


def test_RW_1_history_arguments_other_than_the_call_records_are_RW_1() -> None:
    """RW-1: a history whose tool call carries other arguments than its tool/call (the
    history's reader disagrees) is RW-1, naming the call; spelling alone is no difference."""
    call = ToolCallBlock("c1", "bash", '{"command": "ls"}')
    mine = DerivedHistory().change((AssistantMessage("m1", (call,), SOURCE),))
    respelled = ReportedHistory().change(0, _with_arguments(mine, '{"command":"ls"}'))
    assert history_rule(mine, respelled) is None
    other = ReportedHistory().change(0, _with_arguments(mine, '{"command": "rm"}'))
    assert history_rule(mine, other) == (
        "RW-1",
        "message #1 of the history the next model request would carry (assistant) gives call "
        'c1 other arguments than its tool/call records: the model\'s {"command": "ls"}, the '
        'target\'s {"command": "rm"}',
    )


def _fake(answers: list[dict[str, Any]], capabilities: list[str]) -> list[str]:
    """A fake implementation answering reset, then each command with the next answer, then
    shutdown."""
    ready = {"type": "ready", "implementation": "fake", "capabilities": capabilities}
    lines = [json.dumps(ready), *map(json.dumps, answers), json.dumps({"type": "bye"})]
    code = (
        "import sys\n"
        f"for line in {lines!r}:\n"
        "    sys.stdin.readline(); print(line, flush=True)\n"
        "sys.stdin.read()\n"
    )
    return [sys.executable, "-c", code]


def _observed(seq: int, **more: object) -> dict[str, Any]:
    return {"type": "observed", "seq": seq, "accepted": True, "events": [], "commits": [],
            "executed": [], **more}  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "complaint"),
    [
        (_observed(0), "it declares history but its observed has no history"),
        (
            _observed(0, history={"kept": 2, "appended": []}),
            "history.kept is 2, but the history it reported holds 0",
        ),
        (_observed(0, history={"kept": 0}), "breaks the protocol schema at history"),
    ],
)
def test_PROTO_1_a_target_declaring_history_must_report_it_whole(
    answer: dict[str, Any], complaint: str
) -> None:
    """PROTO-1: with the capability, every accepted observed carries `history`, keeping no
    more messages than it reported, in the schema's shape."""
    target = ProcessTarget(_fake([answer], ["history"]), name="fake")
    try:
        assert target.reset(LoopConfig()) == frozenset({"history"})
        with pytest.raises(ProcessTargetError, match=complaint):
            target.apply(SubmitUser("hi"))
    finally:
        target.close()


def test_HIST_1_a_process_target_reports_its_history_as_changes() -> None:
    """HIST-1: a process target's changes, read back, compare equal to the model's."""
    model = ModelTarget()
    model.reset(LoopConfig())
    first, second = (model.apply(command) for command in BLANK_REPLY)
    assert first.history is not None
    assert second.history is not None
    answers = [
        _observed(0, history={"kept": 0, "appended": list(first.history.appended)}),
        # The whole history again, as a target that does not track what it sent would.
        _observed(1, history={"kept": 0, "appended": list(second.history.whole)}),
    ]
    target = ProcessTarget(_fake(answers, ["history"]), name="fake")
    try:
        target.reset(LoopConfig())
        for expected in (first, second):
            actual = target.apply(SubmitUser("hi"))
            assert actual.history is not None
            mine = attrs.evolve(expected, events=(), commits=(), executed=(), presented=None)
            assert normalized_observation(actual) == normalized_observation(mine)
    finally:
        target.close()


def _report(capabilities: frozenset[str]) -> RunReport:
    return RunReport("conformant", capabilities, 1, 2, 0.0, None, (), LoopConfig(), {},
                     {"HIST-1": 5, "RW-1": 5}, situations={"HIST-1": 3, "RW-1": 3})  # fmt: skip


def test_HIST_1_the_rule_table_observes_HIST_1_only_with_the_history_capability() -> None:
    """HIST-1: with the capability, its row is counted like any other (and RW-1's history
    reader is seen too); without it, the row stays "not observable" with its note."""
    rows = {row["rule"]: row for row in rule_table(_report(frozenset(CAPABILITIES)))}
    assert rows["HIST-1"]["status"] == "exercised"
    assert (rows["HIST-1"]["generated"], rows["HIST-1"]["checked"]) == (3, 5)
    assert "unobservable" not in rows["HIST-1"]
    assert "unobservable" not in rows["RW-1"]
    without = frozenset(CAPABILITIES) - {"history"}
    rows = {row["rule"]: row for row in rule_table(_report(without))}
    assert rows["HIST-1"]["status"].startswith("not observable")
    assert "sends its model" in rows["HIST-1"]["unobservable"]
    assert "sends its model" in rows["RW-1"]["unobservable"]


def test_PROTO_1_the_schema_states_the_history_member() -> None:
    """PROTO-1: `loopspec schema` states `observed.history` and the capability."""
    schema = protocol_schema()
    assert "history" in schema["capabilities"]
    observed = json.dumps(schema["$defs"]["fromImplementation"])
    assert '"kept"' in observed
    assert "#/$defs/messages/AssistantMessage" in observed


def test_HIST_1_a_hook_rewrite_keeps_the_histories_in_step() -> None:
    """HIST-1: through a hook's answer and a tool's result, the bundled loop's history is the
    model's (the result message appended after the reply with its call)."""
    config = LoopConfig(
        tools=(ToolSpec("bash", required_keys=("command",)),),
        hooks=(HookSpec("h", "PreToolUse", "bash"),),
    )
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command": "ls"}'),)),
        HookAnswers(Pass()),
        ToolFinishes("c1", ToolSucceeded("ok")),
    ]
    replay = replay_case(bundled_target, config, program)
    assert replay.divergence is None


def test_HIST_1_an_observation_without_history_compares_as_before() -> None:
    """HIST-1: an observation that carries no history (a target without the capability) is
    normalized exactly as before: no `history` member."""
    assert "history" not in normalized_observation(Observation(True))
