"""Presentation is observable in conformance (capability "presentation"): what a target's UI was
sent is compared with the model's, and a wrong card or permission request is blamed on its rule.

Each mutant below is the model with its presentation alone changed (the log, the bodies and the
history stay right), so only the comparison of presented ACP messages can catch it.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from batches import BATCH_SEED, seeded
from bridge_doubles import BridgeOnTheModel
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from mutants import Mutant, MutantTarget, Patch
from node_requirements import Need

from loopspec.model import acp, presenters, replay
from loopspec.model.acp import permission_request
from loopspec.model.commands import (
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    HookAnswers,
    ModelReplies,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import Event, ToolCallRecorded
from loopspec.model.jsonvalue import FrozenMap, JsonValue, parse_arguments
from loopspec.model.messages import ToolCallBlock
from loopspec.model.presenters import present_call
from loopspec.model.views import GenericCallView
from loopspec.model.wire import event_from_wire
from loopspec.properties.cli.conform_run import counts_line
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.impl_adapter import impl_adapter
from loopspec.properties.conformance.impl_target import AdapterTarget, bundled_target
from loopspec.properties.conformance.machine import conformance_machine
from loopspec.properties.conformance.presented import invalid_acp, presentation_rule
from loopspec.properties.conformance.process_target import (
    ProcessTarget,
    ProcessTargetError,
    comparable,
)
from loopspec.properties.conformance.run import replay_case, rule_table, run_conformance
from loopspec.properties.conformance.situations import presentation_situations
from loopspec.properties.conformance.target import ModelTarget
from loopspec.properties.spec_presentation import CALL_EXAMPLES, RESULT_EXAMPLES

KILL_BUDGET = settings(
    max_examples=400,
    stateful_step_count=40,
    database=None,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)
PRESENTATION_RULES = ("VIEW-2", "VIEW-3", "VIEW-4", "ACP-1", "ACP-2", "ACP-3")

_real_feed = replay.LogPresenter.feed
Feed = Callable[[replay.LogPresenter, Event], replay.Shown | None]


def _card_shows_original() -> list[Patch]:
    """The UI renders a rewritten call from the model's original arguments (and so asks for
    approval of them too): the execution-only rewrite, seen from the user's side."""

    def feed(self: replay.LogPresenter, event: Event) -> replay.Shown | None:
        if isinstance(event, ToolCallRecorded) and event.rewrite is not None:
            event = attrs.evolve(event, arguments=event.rewrite.original_arguments)
        return _real_feed(self, event)

    return [(replay.LogPresenter, "feed", feed)]


def _permission_shows_original() -> list[Patch]:
    """The card shows the effective input, but the permission request the original one."""
    originals: dict[str, tuple[str, JsonValue]] = {}

    def feed(self: replay.LogPresenter, event: Event) -> replay.Shown | None:
        shown = _real_feed(self, event)
        if isinstance(event, ToolCallRecorded) and event.rewrite is not None:
            originals[event.call_id] = (
                event.name,
                parse_arguments(event.rewrite.original_arguments),
            )
        if isinstance(shown, replay.ApprovalShown) and shown.call_id in originals:
            name, original = originals[shown.call_id]
            request = permission_request(
                "session",
                shown.call_id,
                present_call(name, original),
                arguments=original,
                session_cwd="/workspace",
            )
            return replay.ApprovalShown(shown.seq, shown.call_id, original, request)
        return shown

    return [(replay.LogPresenter, "feed", feed)]


def _permission_narrows_input() -> list[Patch]:
    """A permission request whose rawInput is only the command, not the arguments that run."""

    def feed(self: replay.LogPresenter, event: Event) -> replay.Shown | None:
        shown = _real_feed(self, event)
        if isinstance(shown, replay.ApprovalShown) and isinstance(shown.arguments, FrozenMap):
            command = shown.arguments.get("command")
            if isinstance(command, str):
                tool_call = shown.request["toolCall"]
                assert isinstance(tool_call, dict)
                request = {**shown.request, "toolCall": {**tool_call, "rawInput": command}}
                return replay.ApprovalShown(shown.seq, shown.call_id, shown.arguments, request)
        return shown

    return [(replay.LogPresenter, "feed", feed)]


def _terminal_for_everyone() -> list[Patch]:
    """Terminal cards embed a terminal although the client cannot show one."""

    def feed(self: replay.LogPresenter, event: Event) -> replay.Shown | None:
        self._terminal_capable = True
        return _real_feed(self, event)

    return [(replay.LogPresenter, "feed", feed)]


PRESENTATION_MUTANTS = [
    Mutant(
        "card-shows-original-arguments",
        "RW-1",
        "cards render a rewritten call from its original arguments",
        _card_shows_original,
    ),
    Mutant(
        "permission-shows-original-input",
        "RW-4",
        "the permission request carries the input before the rewrite",
        _permission_shows_original,
    ),
    Mutant(
        "permission-raw-input-is-the-command",
        "ACP-3",
        "the permission request's rawInput is the command string, not the arguments",
        _permission_narrows_input,
    ),
    Mutant(
        "terminal-for-every-client",
        "ACP-2",
        "a client that is not terminal-capable gets an embedded terminal",
        _terminal_for_everyone,
    ),
]


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize("mutant", PRESENTATION_MUTANTS, ids=[m.name for m in PRESENTATION_MUTANTS])
def test_RW_1_a_presentation_mutant_is_caught_with_its_rule(mutant: Mutant) -> None:
    """RW-1, RW-4, ACP-3, ACP-2: a target whose UI alone is wrong diverges, blamed on the rule
    its presentation breaks (the log, bodies and history are the model's)."""
    with pytest.raises(DivergenceFound) as found:
        run_state_machine_as_test(
            seeded(conformance_machine(lambda: MutantTarget(mutant))), settings=KILL_BUDGET
        )
    divergence = found.value.divergence
    assert divergence.rule_id == mutant.rule_id, divergence.what
    assert divergence.expected.presented != divergence.actual.presented


REWRITE_CONFIG = LoopConfig(
    tools=(ToolSpec("bash", required_keys=("command",)),),
    hooks=(HookSpec("rw", "PreToolUse", "bash"),),
)
REWRITE_AND_ASK = (
    SubmitUser("go"),
    ModelReplies((ToolCallBlock("c1", "bash", '{"command":"rm -rf /"}'),)),
    HookAnswers(Ask("check", FrozenMap({"command": "ls"}))),
    ApprovalAnswers("allowed-once"),
    ToolFinishes("c1", ToolSucceeded("a.txt\n[exit code: 0]")),
    ModelReplies(()),
)


@pytest.mark.parametrize(
    ("mutant", "rule"),
    [(m, m.rule_id) for m in PRESENTATION_MUTANTS[:3]],
    ids=[m.name for m in PRESENTATION_MUTANTS[:3]],
)
def test_RW_4_a_fixed_rewrite_and_ask_blames_the_presentation(mutant: Mutant, rule: str) -> None:
    """RW-4, RW-1, ACP-3: one rewrite that asks for approval; the mutant's card or permission
    request is blamed at the command that shows it, and the bundled impl agrees with the model."""
    found = replay_case(lambda: MutantTarget(mutant), REWRITE_CONFIG, list(REWRITE_AND_ASK))
    assert found.divergence is not None
    assert found.divergence.rule_id == rule, found.divergence.what
    assert found.divergence.index == 2  # the HookAnswers commits the call and asks
    assert replay_case(bundled_target, REWRITE_CONFIG, list(REWRITE_AND_ASK)).divergence is None


def test_RW_1_a_card_kept_from_an_earlier_rewrite_names_the_hook_it_shows() -> None:
    """RW-1: a card that shows the first of two hooks' inputs is blamed with the hook it shows
    and the one in effect. After cutting down, the first hook's input is often the model's own,
    and 'the card shows the input before the rewrite' sent a planted bug's finder to look for
    the model's input where the first rewrite was kept."""
    config = LoopConfig(
        tools=(ToolSpec("bash", required_keys=("command",)),),
        hooks=(HookSpec("first", "PreToolUse", "bash"), HookSpec("second", "PreToolUse", "bash")),
    )
    model = ModelTarget()
    model.reset(config)
    program = (
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command":"rm -rf /"}'),)),
        HookAnswers(Allow(FrozenMap({"command": "ls"}))),
        HookAnswers(Allow(FrozenMap({"command": "pwd"}))),
    )
    observed = [model.apply(command) for command in program]
    history = [event for seen in observed for event in seen.events]
    expected = observed[-1].presented
    assert expected is not None
    card = json.loads(json.dumps(expected[0]))
    card["params"]["update"]["rawInput"] = {"command": "ls"}
    found = presentation_rule(expected, [card, *expected[1:]], history)
    assert found is not None
    rule, what = found
    assert rule == "RW-1", what
    assert "shows the input hook first supplied, which hook second's later rewrite" in what, what


def test_ACP_3_the_bundled_impl_reports_the_rewritten_input_it_asks_about() -> None:
    """ACP-3, RW-4: the bundled impl's reported permission request carries the effective input."""
    target = bundled_target()
    try:
        assert "presentation" in target.reset(REWRITE_CONFIG)
        observations = [target.apply(command) for command in REWRITE_AND_ASK]
    finally:
        target.close()
    asked = observations[2].presented
    assert asked is not None
    methods = [message["method"] for message in asked]
    assert methods == ["session/update", "session/request_permission"]
    assert asked[1]["params"]["toolCall"]["rawInput"] == {"command": "ls"}
    assert all(invalid_acp(message) is None for message in asked)
    finished = observations[4].presented
    assert finished is not None
    assert finished[0]["params"]["update"]["sessionUpdate"] == "tool_call_update"


def test_ACP_1_an_invalid_presented_message_is_blamed_on_ACP_1() -> None:
    """ACP-1: a presented message that is not strictly valid ACP names ACP-1; one of another
    method (a bridge's terminal/create) says which two methods presented holds."""
    assert invalid_acp({"method": "session/update", "params": {"update": {}}}) is not None
    assert invalid_acp({"method": "terminal/create", "params": {}}) == (
        "unknown method 'terminal/create': presented holds session/update and "
        "session/request_permission messages only"
    )


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_VIEW_2_the_bundled_impl_is_conformant_with_presentation_compared() -> None:
    """VIEW-2, VIEW-3, VIEW-4, ACP-1, ACP-2, ACP-3: the bundled impl declares presentation, passes,
    and the presentation rules are reported exercised."""
    report = run_conformance(
        bundled_target, examples=25, seed_value=BATCH_SEED, show_progress=False
    )
    assert report.conformant, report.divergence and report.divergence.what
    assert "presentation" in report.capabilities
    statuses = {row["rule"]: row["status"] for row in rule_table(report)}
    for rule in ("VIEW-2", "VIEW-3", "ACP-1", "ACP-2", "ACP-3"):
        assert statuses[rule] == "exercised", (rule, statuses[rule])
    assert statuses["VIEW-1"].startswith("not observable")


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_VIEW_2_without_the_capability_presentation_rules_are_not_applicable() -> None:
    """VIEW-2: a target that does not declare presentation is not compared on it, and its
    presentation rules are reported not applicable."""
    without = frozenset(CAPABILITIES) - {"presentation"}

    def factory() -> Any:
        return AdapterTarget(impl_adapter, "impl without presentation", without)

    report = run_conformance(factory, examples=10, seed_value=BATCH_SEED, show_progress=False)
    assert report.conformant, report.divergence and report.divergence.what
    statuses = {row["rule"]: row["status"] for row in rule_table(report)}
    assert all(statuses[rule] == "not applicable" for rule in PRESENTATION_RULES)


# ---------------------------------------------------------------------------------------------
# The JS loop renders its cards itself (examples/js-loop/present.mjs); every presenter, fallback
# and title rule is compared with the model's on fixed calls.

NODE = shutil.which("node")
JS_LOOP = Path(__file__).resolve().parent.parent / "examples" / "js-loop" / "main.mjs"
CARD_CONFIG = LoopConfig(
    tools=(
        ToolSpec("read", concurrency_safe=True),
        ToolSpec("edit"),
        ToolSpec("write"),
        ToolSpec("todo"),
        ToolSpec("grep", concurrency_safe=True),
        ToolSpec("bash"),
    ),
)
CARDS: list[tuple[str, str, ToolOutcome]] = [
    ("read", '{"file_path":"/workspace/src/a.py","offset":0,"limit":3}', ToolSucceeded("l1")),
    ("read", '{"file_path":"/etc/hosts","offset":7}', ToolSucceeded("x")),
    ("read", '{"file_path":"/workspace/../workspace/b","offset":-1}', ToolSucceeded("y")),
    ("read", '{"file_path":"/workspace","limit":1.0}', ToolFailed("no such file")),
    (
        "edit",
        '{"file_path":"/workspace/x.txt","old_string":"","new_string":"hi","replace_all":true}',
        ToolSucceeded("ok", meta={"diffs": [{"path": "/workspace/x.txt", "newText": "hi"}]}),
    ),
    ("edit", '{"file_path":"/workspace/y","old_string":"a","new_string":"b"}', ToolFailed("no")),
    ("edit", '{"file_path":"rel/y","old_string":"a","new_string":"b"}', ToolSucceeded("done")),
    ("edit", '{"file_path":"/workspace/z","old_string":"a"}', ToolSucceeded("?")),
    (
        "write",
        '{"file_path":"/workspace/w.txt","content":"new"}',
        ToolSucceeded("w", meta={"diffs": [{"path": 1}]}),
    ),
    ("write", '{"file_path":"/workspace/w.txt","content":3}', ToolSucceeded("w")),
    ("write", '{"file_path":"/tmp/w","content":""}', ToolFailed("denied", "EACCES")),
    ("todo", '{"todos":[{"content":"a","status":"pending"}]}', ToolSucceeded("saved")),
    ("todo", '{"todos":[{"content":"a"}]}', ToolSucceeded("")),
    ("grep", '{"pattern":"x","n":5.0,"big":123456789012345678901234567890}', ToolSucceeded("g")),
    ("grep", "null", ToolSucceeded("g")),
    (
        "bash",
        '{"command":"sleep 9","run_in_background":true,"description":"bg"}',
        ToolSucceeded("started ````x``\n\n"),
    ),
    (
        "bash",
        '{"command":"make","cwd":"rel","description":""}',
        ToolSucceeded("o\n[exit code: 2]\n"),
    ),
    ("bash", '{"command":"kill","description":"stop it"}', ToolSucceeded("[signal: SIGKILL]")),
    ("bash", '{"command":"x"}', ToolSucceeded("a\n[exit code: 007]")),
    ("bash", '{"command":"y"}', ToolFailed("boom")),
    ("bash", '{"command":3}', ToolSucceeded("fallback")),
    # (last: the mutant tests below name cards by their place)
    ("write", '{"file_path":"","content":"x"}', ToolSucceeded("w")),
    (
        "edit",
        '{"file_path":"","old_string":"a","new_string":"b"}',
        ToolSucceeded("ok", meta={"diffs": [{"path": "", "newText": "b"}]}),
    ),
]


def _card_program() -> list[Command]:
    program: list[Command] = [SubmitUser("show me every card")]
    for index, (name, arguments, outcome) in enumerate(CARDS, start=1):
        call_id = f"c{index}"
        program += [
            ModelReplies((ToolCallBlock(call_id, name, arguments),)),
            ToolFinishes(call_id, outcome),
        ]
    return [*program, ModelReplies(())]


@pytest.mark.no_cover
@pytest.mark.needs(Need.NODE)
@pytest.mark.parametrize(
    ("config", "program"),
    [(CARD_CONFIG, _card_program()), (REWRITE_CONFIG, list(REWRITE_AND_ASK))],
    ids=["every-card", "rewrite-and-ask"],
)
def test_VIEW_2_the_js_loop_renders_every_card_as_the_model_does(
    config: LoopConfig, program: list[Command]
) -> None:
    """VIEW-2, VIEW-3, VIEW-4, ACP-2, ACP-3: the JS loop's own presenter sends, command by
    command, the ACP messages the model's does, each strictly valid."""
    assert NODE is not None
    js_loop = ProcessTarget([NODE, str(JS_LOOP)], name="js-loop")
    model = ModelTarget()
    try:
        assert "presentation" in js_loop.reset(config)
        model.reset(config)
        sent = 0
        for command in program:
            expected, actual = model.apply(command), js_loop.apply(command)
            assert comparable(actual) == comparable(expected), command
            for message in actual.presented or ():
                assert invalid_acp(message) is None, message
                sent += 1
        assert sent >= len([c for c in program if isinstance(c, ModelReplies)]) - 1
    finally:
        js_loop.close()


def _card_for(call_id: str, arguments: str) -> dict[str, Any]:
    view = present_call("read", parse_arguments(arguments))
    note = acp.tool_call_notification(
        "s",
        call_id,
        view,
        arguments=parse_arguments(arguments),
        session_cwd="/workspace",
        terminal_capable=False,
    )
    return {"method": "session/update", "params": note}


def test_VIEW_3_a_card_left_out_is_named_not_compared_with_the_next_call() -> None:
    """VIEW-3: a target that sends no card for one call (here an invalid one) while it sends
    the next call's is told it shows nothing for that call; it read 'the target sends
    session/update for call c2 where the model sends session/update for call c1' (VIEW-2).
    A Node bridge that held its card back until the call's result was told only 'a
    session/update is due'; the report now says which message is due at which event, in the
    command that appends it."""
    first, second = _card_for("c1", "{}"), _card_for("c2", '{"file_path":"a.txt"}')
    found = presentation_rule([first, second], [second], history=())
    assert found is not None
    rule, what = found
    assert rule == "VIEW-3", what
    assert "shows nothing for call c1" in what, what
    assert (
        "the tool_call card of call c1 is due at its tool/call, among the messages of the "
        "command that appends it, neither left out nor held back" in what
    ), what
    recorded = {"type": "tool/call", "data": {"callId": "c1", "name": "read", "arguments": "{}"}}
    extra = presentation_rule([second], [first, second], history=(recorded,))
    assert extra is not None
    assert "for call c1 unasked" in extra[1], extra


def test_PROTO_1_declaring_presentation_without_reporting_it_is_a_protocol_error() -> None:
    """PROTO-1: a target that declares presentation must send `presented` with every accepted
    observation; one that omits it is reported as a protocol failure, not compared."""
    ready = {"type": "ready", "implementation": "fake", "capabilities": ["presentation"]}
    observed = {"type": "observed", "seq": 0, "accepted": True, "events": []}
    observed |= {"commits": [], "executed": []}
    code = (
        f"import sys; sys.stdin.readline(); print({json.dumps(ready)!r}, flush=True);"
        f"sys.stdin.readline(); print({json.dumps(observed)!r}, flush=True); sys.stdin.read()"
    )
    target = ProcessTarget([sys.executable, "-c", code], name="fake")
    try:
        assert target.reset(LoopConfig()) == frozenset({"presentation"})
        with pytest.raises(ProcessTargetError, match="declares presentation") as caught:
            target.apply(SubmitUser("hi"))
        assert caught.value.rule_id == "PROTO-1"
    finally:
        target.close()


def _titles_never_relative() -> list[Patch]:
    """Titles keep the absolute path even inside the workspace."""
    return [(acp, "relativize_title", lambda title, path, cwd: title)]


def _fallback_is_blank() -> list[Patch]:
    """A call no presenter renders gets a card titled by nothing useful, of kind execute."""

    def fallback(tool_name: str, arguments: JsonValue) -> GenericCallView:
        return GenericCallView(title="tool", kind="execute", raw_input=arguments)

    return [(presenters, "generic_call_fallback", fallback)]


def _read_range_reworded() -> list[Patch]:
    """A limited read's title words its range its own way: the path in it is right."""

    def title(path: str, offset: int | None, limit: int | None) -> str:
        return f"Read {path}" + ("" if limit is None else f" (first {limit} lines)")

    return [(presenters, "read_title", title)]


def _diff_titles_dropped() -> list[Patch]:
    """A write's result update leaves out the title its diff view carries."""
    real = acp.tool_result_notification

    def update(*args: Any, **kwargs: Any) -> dict[str, object]:
        note = real(*args, **kwargs)
        shown = note["update"]
        assert isinstance(shown, dict)
        return {**note, "update": {k: v for k, v in shown.items() if k != "title"}}

    return [(replay, "tool_result_notification", update)]


def _exit_marker_kept() -> list[Patch]:
    """A foreground command's output keeps its exit-code or signal marker line (still fenced)."""
    return [(presenters, "parse_exit_marker", lambda text: (text, None, None))]


@pytest.mark.parametrize(
    ("mutant", "first_call", "at_result"),
    [
        (
            Mutant("titles-never-relative", "VIEW-4", "absolute titles", _titles_never_relative),
            1,
            False,
        ),
        (
            Mutant("blank-fallback", "VIEW-3", "a useless generic card", _fallback_is_blank),
            3,
            False,
        ),
        (
            Mutant("read-range-reworded", "VIEW-2", "another range wording", _read_range_reworded),
            1,
            False,
        ),
        (
            Mutant(
                "diff-title-dropped", "VIEW-2", "no title on a diff result", _diff_titles_dropped
            ),
            5,
            True,
        ),
        (
            Mutant("exit-marker-kept", "VIEW-2", "the marker line shown", _exit_marker_kept),
            17,
            True,
        ),
    ],
    ids=["VIEW-4", "VIEW-3", "VIEW-2-title-range", "VIEW-2-result-title", "VIEW-2-fenced-output"],
)
def test_VIEW_4_title_and_fallback_mistakes_are_blamed_on_their_rule(
    mutant: Mutant, first_call: int, at_result: bool
) -> None:
    """VIEW-4, VIEW-3, VIEW-2: on the fixed card program, a title left absolute inside the
    workspace and a fallback card that is not the generic one diverge at the first such card;
    a title whose path is right but whose other words differ, or a diff result without its
    title, is the presenter's view (VIEW-2), not VIEW-4; so is fenced output that differs
    inside the fence (ACP-2 is about whether it is fenced)."""
    found = replay_case(lambda: MutantTarget(mutant), CARD_CONFIG, _card_program())
    assert found.divergence is not None
    assert found.divergence.rule_id == mutant.rule_id, found.divergence.what
    reply = 2 * first_call - 1  # the reply carrying that call; its result comes one later
    assert found.divergence.index == reply + (1 if at_result else 0)


def _update_for(call_id: str, text: str) -> dict[str, Any]:
    return {
        "method": "session/update",
        "params": {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call_id,
                "status": "completed",
                "content": [{"type": "content", "content": {"type": "text", "text": text}}],
            },
        },
    }


def _permission_for(call_id: str) -> dict[str, Any]:
    options = [
        {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
    ]
    tool_call = {"toolCallId": call_id, "title": "Read a.txt"}
    return {
        "method": "session/request_permission",
        "params": {"sessionId": "s", "toolCall": tool_call, "options": options},
    }


def test_PROTO_1_a_result_update_sent_before_its_card_is_named_as_out_of_order() -> None:
    """PROTO-1: presented messages come in the order of the events they present. A bridge that
    flushes its cards after the command's updates (an invalid call's update before its card) was
    told 'the target sends a session/update for call c1 unasked' (VIEW-2), and one that asks
    permission before the next call's card 'shows nothing for call c2' (VIEW-3): both false."""
    card, update = _card_for("c1", "{}"), _update_for("c1", "Error: bad")
    found = presentation_rule([card, update], [update, card], history=())
    assert found is not None
    rule, what = found
    assert rule == "PROTO-1", what
    assert "the tool_call_update of call c1 before the tool_call card of call c1" in what, what
    second = _card_for("c2", '{"file_path":"a.txt"}')
    asked = _permission_for("c1")
    found = presentation_rule([card, second, asked], [card, asked, second], history=())
    assert found is not None
    assert found[0] == "PROTO-1", found
    assert "the permission request for call c1 before the tool_call card of call c2" in found[1]


def test_VIEW_2_a_card_sent_twice_is_named_as_sent_again() -> None:
    """VIEW-2: a bridge that sends a call's card twice was told it sends the card 'unasked'."""
    card = _card_for("c1", '{"file_path":"a.txt"}')
    found = presentation_rule([card], [card, card], history=())
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert "sends the tool_call card of call c1 a second time" in what, what


def test_ACP_2_only_terminal_meta_is_blamed_on_ACP_2() -> None:
    """ACP-2: a card whose `_meta` holds a terminal key, sent to a client that is not
    terminal-capable, is ACP-2; a bridge's own `_meta` key beside it does not change that."""
    card = _card_for("c1", '{"file_path":"a.txt"}')
    terminal = json.loads(json.dumps(card))
    terminal["params"]["update"]["_meta"] = {
        "terminal_info": {"terminal_id": "c1"},
        "zed.dev/x": 1,
    }
    found = presentation_rule([card], [terminal], history=())
    assert found is not None
    assert found[0] == "ACP-2", found


def _with_extension_meta(message: dict[str, Any]) -> None:
    """A bridge's own `_meta` keys, as Zed's adds, on the message, its card and its content."""
    params = message["params"]
    params["_meta"] = {"zed.dev/trace": "t1"}
    card = params.get("update") or params.get("toolCall") or {}
    card["_meta"] = {**(card.get("_meta") or {}), "zed.dev/x": 1}
    for item in card.get("content") or []:
        item["_meta"] = {"zed.dev/shown": True}


@pytest.mark.no_cover
def test_VIEW_2_a_bridges_own_meta_keys_pass() -> None:
    """VIEW-2, ACP-1: ACP reserves `_meta` for extensions, and Zed's bridge adds its own keys;
    conform compared `_meta` strictly and blamed such a bridge on VIEW-2 ('the model sends
    _meta only for a terminal'). A bridge adding `{"zed.dev/x": 1}` to its messages, cards and
    content items is now conformant, a rewrite with approval included."""
    card = _card_for("c1", '{"file_path":"a.txt"}')
    extended = json.loads(json.dumps(card))
    _with_extension_meta(extended)
    assert invalid_acp(extended) is None
    assert presentation_rule([card], [extended], history=()) is None
    bridge = lambda: BridgeOnTheModel(_with_extension_meta)  # noqa: E731
    found = replay_case(bridge, REWRITE_CONFIG, list(REWRITE_AND_ASK))
    assert found.divergence is None, found.divergence.what
    report = run_conformance(bridge, examples=10, seed_value=BATCH_SEED, show_progress=False)
    assert report.conformant, report.divergence and report.divergence.what
    assert report.presentation_examples == len(CALL_EXAMPLES) + len(RESULT_EXAMPLES)


def _original_under_meta(shown: object) -> Callable[[dict[str, Any]], None]:
    """A bridge that keeps REWRITE_AND_ASK's input before the rewrite (or a part of it) under a
    `_meta` key of its own on every message about call c1, for provenance."""

    def provenance(message: dict[str, Any]) -> None:
        params = message["params"]
        card = params.get("update") or params.get("toolCall") or {}
        if card.get("toolCallId") == "c1":
            card["_meta"] = {"zed.dev/original": shown}

    return provenance


@pytest.mark.parametrize(
    "shown",
    [{"command": "rm -rf /"}, '{"command":"rm -rf /"}', "rm -rf /", [{"input": "rm -rf /"}]],
    ids=["object", "json-text", "replaced-string", "nested"],
)
def test_RW_1_RW_4_a_bridge_may_keep_the_input_before_a_rewrite_under_its_own_meta_key(
    shown: object,
) -> None:
    """RW-1, RW-4: clients must not interpret a `_meta` key they do not know, and ACP has no
    field for a rewritten input, so a bridge may carry the original input there for provenance,
    as `tool/call` keeps it in its sidecar (peers' convention). What the rules hold to the
    effective input is what a message shows: its rawInput, title and content. A bridge doing so
    was blamed on RW-1 for its card and RW-4 for its permission request; it is conformant, and
    the same original shown as the card's rawInput is still RW-1."""
    bridge = lambda: BridgeOnTheModel(_original_under_meta(shown))  # noqa: E731
    found = replay_case(bridge, REWRITE_CONFIG, list(REWRITE_AND_ASK))
    assert found.divergence is None, found.divergence.what
    model = ModelTarget()
    model.reset(REWRITE_CONFIG)
    model.presenting = True
    history: list[dict[str, Any]] = []
    presented: list[object] = []
    for command in REWRITE_AND_ASK:
        observation = model.apply(command)
        history.extend(observation.events)
        presented.extend(observation.presented or ())
    card = next(m for m in presented if _card_for_call(m, "c1"))
    kept = json.loads(json.dumps(card))
    _original_under_meta(shown)(kept)
    assert presentation_rule([card], [kept], history) is None
    shown_raw = json.loads(json.dumps(card))
    shown_raw["params"]["update"]["rawInput"] = {"command": "rm -rf /"}
    found_raw = presentation_rule([card], [shown_raw], history)
    assert found_raw is not None
    assert found_raw[0] == "RW-1", found_raw


def _card_for_call(message: object, call_id: str) -> bool:
    """Whether a presented message is the tool_call card of `call_id`."""
    if not isinstance(message, dict):
        return False
    update = message.get("params", {}).get("update") or {}
    return bool(update.get("sessionUpdate") == "tool_call" and update.get("toolCallId") == call_id)


def test_VIEW_2_a_changed_terminal_meta_key_is_blamed_on_VIEW_2() -> None:
    """VIEW-2: the `_meta` keys the model writes (a terminal's, for a terminal-capable client)
    are compared like any field. A bridge writing another cwd in terminal_info was told 'no
    terminal goes to a client that is not terminal-capable' (ACP-2), though both sent one; a
    bridge's own key beside them still passes."""
    view = present_call("bash", parse_arguments('{"command": "ls", "cwd": "build"}'))
    note = acp.tool_call_notification(
        "s",
        "c1",
        view,
        arguments=parse_arguments('{"command": "ls", "cwd": "build"}'),
        session_cwd="/workspace",
        terminal_capable=True,
    )
    card = {"method": "session/update", "params": note}
    extended = json.loads(json.dumps(card))
    extended["params"]["update"]["_meta"]["zed.dev/x"] = 1
    assert presentation_rule([card], [extended], history=()) is None
    moved = json.loads(json.dumps(card))
    moved["params"]["update"]["_meta"]["terminal_info"]["cwd"] = "/elsewhere"
    found = presentation_rule([card], [moved], history=())
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert "terminal_info" in what, what


def test_VIEW_2_a_wrong_status_or_option_is_named_not_called_a_view_of_the_arguments() -> None:
    """VIEW-2: a card sent `pending`, a result update `completed` for an error, and a permission
    request offering `allow_always` were each explained as 'the card is the presenter's view of
    the call's arguments' (or '... of the durable result'), which says nothing about status or
    options; the explanation now states what SPEC.md section 12 requires of them."""
    card = _card_for("c1", '{"file_path":"a.txt"}')
    pending = json.loads(json.dumps(card))
    pending["params"]["update"]["status"] = "pending"
    unsaid = json.loads(json.dumps(card))  # ACP reads a card without a status as pending
    del unsaid["params"]["update"]["status"]
    for sent in (pending, unsaid):
        found = presentation_rule([card], [sent], history=())
        assert found is not None
        assert found[0] == "VIEW-2", found
        assert 'a card\'s status is "in_progress"' in found[1], found
    # SPEC.md says why (dsh's bridge), against ACP's meaning of `pending`, and what such a
    # bridge meets.
    spec = " ".join((Path(__file__).resolve().parents[1] / "SPEC.md").read_text("utf-8").split())
    assert "loopspec follows dsh's mapping" in spec
    assert "A bridge that opens a card `pending`, or leaves its `status` out, meets VIEW-2" in spec
    failed = _update_for("c1", "Error: denied")
    failed["params"]["update"]["status"] = "failed"
    completed = _update_for("c1", "Error: denied")
    found = presentation_rule([failed], [completed], history=())
    assert found is not None
    assert '"failed" when the result has isError' in found[1], found
    want = _permission_for("c1")
    always = json.loads(json.dumps(want))
    always["params"]["options"].insert(
        1, {"optionId": "allow_always", "name": "Always", "kind": "allow_always"}
    )
    found = presentation_rule([want], [always], history=())
    assert found is not None
    assert "allow_once" in found[1], found
    assert "presenter's view" not in found[1], found


def test_VIEW_2_a_status_in_a_permission_request_is_named_not_a_traceback() -> None:
    """VIEW-2: a permission request's toolCall has the card's fields but `sessionUpdate` and
    `status` (SPEC.md section 12). A bridge sending one with `"status": "pending"` made conform
    look up the status a message without a `sessionUpdate` must have, and end in a KeyError."""
    want = _permission_for("c1")
    pending = json.loads(json.dumps(want))
    pending["params"]["toolCall"]["status"] = "pending"
    found = presentation_rule([want], [pending], history=())
    assert found is not None
    assert found[0] == "VIEW-2", found
    assert "permission request's toolCall carries no status" in found[1], found


def _edit_swapped(message: dict[str, Any]) -> None:
    """An edit card whose diff shows the new text as the old and the old as the new."""
    for item in message["params"].get("update", {}).get("content") or []:
        if item.get("type") == "diff" and "oldText" in item:
            item["oldText"], item["newText"] = item["newText"], item["oldText"]


def _titles_left_absolute(message: dict[str, Any]) -> None:
    """A card whose title names its path as the arguments give it, never relative."""
    card = message["params"].get("update") or message["params"].get("toolCall") or {}
    where = [*(card.get("locations") or []), *(card.get("content") or [])]
    path = next((item["path"] for item in where if "path" in item), None)
    if isinstance(path, str) and path.startswith("/workspace/") and "title" in card:
        card["title"] = card["title"].replace(path.removeprefix("/workspace/"), path)


def _empty_description_shown(message: dict[str, Any]) -> None:
    """A bash card that shows an empty description as an empty text block."""
    card = message["params"].get("update") or {}
    arguments = card.get("rawInput")
    shown = card.get("sessionUpdate") == "tool_call" and "content" not in card
    if shown and isinstance(arguments, dict) and arguments.get("description") == "":
        card["content"] = [{"type": "content", "content": {"type": "text", "text": ""}}]


def _fence_of_three(message: dict[str, Any]) -> None:
    """A result update that fences console output with three backticks, whatever it holds."""
    for item in message["params"].get("update", {}).get("content") or []:
        text = item.get("content", {}).get("text")
        fence = text.split("console\n", 1)[0] if isinstance(text, str) else ""
        if len(fence) > 3 and set(fence) == {"`"} and text.endswith(fence):
            item["content"]["text"] = f"```{text[len(fence) : -len(fence)]}```"


def _result_titled_by_its_diff(message: dict[str, Any]) -> None:
    """A result update whose title names its first applied diff's path, made relative."""
    update = message["params"].get("update") or {}
    diffs = [item for item in update.get("content") or [] if item.get("type") == "diff"]
    if update.get("sessionUpdate") == "tool_call_update" and "title" in update and diffs:
        verb = update["title"].split(" ", 1)[0]
        update["title"] = f"{verb} {diffs[0]['path'].removeprefix('/workspace/')}"


def _float_offset_read_as_integer(message: dict[str, Any]) -> None:
    """A read card for `offset: 1.0` rendered as for `offset: 1` (JavaScript's JSON.parse
    reads both as 1), not as the generic card section 12 gives a number of another type."""
    card = message["params"].get("update") or {}
    arguments = card.get("rawInput")
    if card.get("title") != "read" or not isinstance(arguments, dict):
        return
    path, offset = arguments.get("file_path"), arguments.get("offset")
    if isinstance(path, str) and isinstance(offset, float) and offset.is_integer():
        line = max(int(offset), 1)
        card.update(title=f"Read {path} (from line {line})", kind="read")
        card["locations"] = [{"path": path, "line": line}]


@pytest.mark.parametrize(
    ("damage", "rule"),
    [
        (_edit_swapped, "VIEW-2"),
        # Coverage off: deterministic tests cover every model arc these do, not edit-swapped's
        # (benchmarks/coverage_owners.py).
        pytest.param(_titles_left_absolute, "VIEW-4", marks=pytest.mark.no_cover),
        pytest.param(_empty_description_shown, "VIEW-2", marks=pytest.mark.no_cover),
        pytest.param(_fence_of_three, "VIEW-2", marks=pytest.mark.no_cover),
        pytest.param(_result_titled_by_its_diff, "VIEW-2", marks=pytest.mark.no_cover),
        pytest.param(_float_offset_read_as_integer, "VIEW-3", marks=pytest.mark.no_cover),
    ],
    ids=[
        "edit-swapped",
        "titles-left-absolute",
        "empty-description-shown",
        "fence-of-three",
        "result-titled-by-its-diff",
        "float-offset-read-as-integer",
    ],
)
def test_VIEW_2_section_12_examples_catch_what_the_random_programs_never_draw(
    damage: Callable[[dict[str, Any]], None], rule: str
) -> None:
    """VIEW-2, VIEW-4: the random programs draw relative paths, no edit call and no description,
    so an ACP bridge that swaps an edit's old and new text, leaves titles absolute inside the
    workspace or shows an empty description passed 500 of them CONFORMANT. conform plays every
    example of SPEC.md section 12 on a target that presents, and names the rule. A bridge
    fencing output holding ``` with three backticks, or titling a result update by an applied
    diff naming another path, passed those examples too, until rows showed both; so did a
    JavaScript bridge rendering `read` with `offset: 1.0` as a read card (JSON.parse cannot
    tell 1.0 from 1), until a row showed a number of another type. The examples were played
    after the random search, so each of these bugs was reported only after every program had
    run (137 to 226 s on a real bridge); they come first, and no program is run."""
    report = run_conformance(
        lambda: BridgeOnTheModel(damage), examples=10, seed_value=None, show_progress=False
    )
    assert report.divergence is not None, "a bridge bug section 12 shows was not caught"
    assert report.divergence.rule_id == rule, report.divergence.what
    assert report.presentation_examples > 0
    assert report.presentation_diverged
    assert report.examples == 0, "random programs ran before section 12's examples"
    line = counts_line(report)
    assert line.startswith(
        f"{report.presentation_examples} of SPEC.md section 12's presentation examples, "
        "the last diverging"
    ), line
    assert "program" not in line, line
    assert "command" not in line, line
    clean = run_conformance(
        lambda: BridgeOnTheModel(lambda message: None),
        examples=10,
        seed_value=None,
        show_progress=False,
    )
    assert clean.conformant, clean.divergence
    assert clean.presentation_examples == len(CALL_EXAMPLES) + len(RESULT_EXAMPLES)
    assert not clean.presentation_diverged
    assert clean.examples == 10


def test_VIEW_4_only_an_absolute_path_in_a_title_is_its_situation() -> None:
    """VIEW-4: a card naming a relative path (all the random programs draw) shows it as given
    whatever the session cwd, so it does not create VIEW-4's situation; the rule table read
    'VIEW-4 exercised x126' for runs that never drew an absolute path."""
    relative = _card_for("c1", '{"file_path":"a.txt"}')
    inside = _card_for("c1", '{"file_path":"/workspace/a.txt"}')
    assert "VIEW-4" not in presentation_situations((relative,))
    assert "VIEW-4" in presentation_situations((inside,))


def _tutorial_bridge_target(bridge: type) -> type:
    """The tutorial's `BridgeOnTheModel`, run as written, with `bridge` as its `MyBridge`."""
    text = (Path(__file__).parent.parent / "docs" / "tutorial.md").read_text(encoding="utf-8")
    marker = "<!-- bridge-on-the-model: "
    code = text.split(marker, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {"MyBridge": bridge}
    exec(compile(code, "docs/tutorial.md", "exec"), namespace)  # the repository's own docs
    made: type = namespace["BridgeOnTheModel"]
    return made


class _ModelsOwnBridge:
    """A bridge that sends what the model presents (`LogPresenter`), event by event."""

    def __init__(self) -> None:
        self.presenter = replay.LogPresenter()

    def on_event(self, event: dict[str, Any]) -> list[dict[str, object]]:
        shown = self.presenter.feed(event_from_wire(event))
        return [] if shown is None else [replay.presented_wire(shown)]


class _OriginalInputBridge(_ModelsOwnBridge):
    """The same bridge, rendering a rewritten call's card from the model's original input."""

    def on_event(self, event: dict[str, Any]) -> list[dict[str, object]]:
        data = event.get("data") or {}
        if event.get("type") == "tool/call" and "rewrite" in data:
            original = {**data, "arguments": data["rewrite"]["originalArguments"]}
            event = {**event, "data": {k: v for k, v in original.items() if k != "rewrite"}}
        return super().on_event(event)


class _ChattyBridge(_ModelsOwnBridge):
    """The same bridge, also streaming each reply's text to the editor, as Zed's bridges do."""

    def on_event(self, event: dict[str, Any]) -> list[dict[str, object]]:
        data = event.get("data") or {}
        chunks: list[dict[str, object]] = [
            {
                "method": "session/update",
                "params": {
                    "sessionId": "s",
                    "update": {"sessionUpdate": "agent_message_chunk", "content": block},
                },
            }
            for block in (data.get("message") or {}).get("content") or []
            if event.get("type") == "assistant/message" and block.get("type") == "text"
        ]
        return chunks + super().on_event(event)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_PROTO_1_the_tutorials_bridge_wrapper_reports_only_tool_messages() -> None:
    """PROTO-1: presented carries the tool messages only. A bridge that also streams the reply's
    text (agent_message_chunk), wrapped as the tutorial said ('report what it sent'), diverged
    on every reply with text; the tutorial's wrapper now drops the editor's other updates."""
    chatty = _tutorial_bridge_target(_ChattyBridge)
    report = run_conformance(chatty, examples=20, seed_value=BATCH_SEED, show_progress=False)
    assert report.conformant, report.divergence and report.divergence.what


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_RW_1_the_tutorial_holds_a_bridge_alone_on_the_model() -> None:
    """RW-1, VIEW-2: the tutorial's wrapper for checking an ACP bridge alone (the model plays
    the loop) runs as quoted: a bridge that sends what the model presents is conformant, with
    no rule left not applicable, and one that renders a rewritten call's card from the original
    input is blamed on RW-1."""
    good = _tutorial_bridge_target(_ModelsOwnBridge)
    report = run_conformance(good, examples=20, seed_value=BATCH_SEED, show_progress=False)
    assert report.conformant, report.divergence and report.divergence.what
    assert report.presentation_examples > 0
    # The model plays every capability, so the bridge sees aborts, parallel bodies, post-hooks
    # and repaired crashes too: the wrapper declared five, and no such program was sent.
    inapplicable = [row["rule"] for row in rule_table(report) if row["status"] == "not applicable"]
    assert inapplicable == [], inapplicable
    bad = _tutorial_bridge_target(_OriginalInputBridge)
    # Not shrunk: the rule is that of the program found (shrinking keeps it, MODEL-1's shrink
    # tests), and shrinking this one replayed it 284 times, 4.5 s of the test's 4.8 s of CPU.
    report = run_conformance(
        bad, examples=200, seed_value=BATCH_SEED, show_progress=False, shrink=False
    )
    assert report.divergence is not None
    assert report.divergence.rule_id == "RW-1", report.divergence.what


def test_VIEW_2_a_card_for_a_call_never_recorded_says_so() -> None:
    """VIEW-2: a bridge that draws cards from the streamed reply showed one for a call a
    max-tokens reply dropped, and was told it sends the card 'unasked'; the explanation now
    says no tool/call records that call, and when a card is due."""
    card = _card_for("c1", '{"file_path":"a.txt"}')
    found = presentation_rule([], [card], history=())
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert "the tool_call card of call c1, a call no tool/call records" in what, what


def test_VIEW_2_a_permission_request_for_a_denied_call_says_no_approval_was_asked() -> None:
    """VIEW-2, HOOK-2: a bridge that prompts as soon as one PreToolUse hook says ask sent a
    permission request for a call another hook denied, and was told it sends it 'unasked'; the
    explanation now says no approval/asked asks about the call, and that deny beat ask."""
    denied = {
        "type": "hook/result",
        "data": {"point": "PreToolUse", "handlerId": "guard", "decision": "deny", "callId": "c1"},
    }
    update = _update_for("c1", "Error: denied")
    found = presentation_rule([update], [_permission_for("c1"), update], history=(denied,))
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert "the permission request for call c1, a call no approval/asked asks about" in what
    assert "deny > ask, HOOK-2" in what, what


def _result_history(call_id: str, text: str) -> tuple[dict[str, Any], ...]:
    """A `tool/call` of `read` and its `tool/result` with `text`, as a target's events."""
    call = {
        "type": "tool/call",
        "data": {"callId": call_id, "name": "read", "arguments": '{"file_path":"a.txt"}'},
    }
    block = {
        "type": "tool-result",
        "toolCallId": call_id,
        "content": [{"type": "text", "text": text}],
    }
    result = {"type": "tool/result", "data": {"message": {"role": "user", "content": [block]}}}
    return call, result


def _with_update(message: dict[str, Any], **fields: object) -> dict[str, Any]:
    """A copy of `message` whose update has `fields` set."""
    changed: dict[str, Any] = json.loads(json.dumps(message))
    changed["params"]["update"].update(fields)
    return changed


def test_PROTO_1_a_message_chunk_in_presented_names_what_presented_carries() -> None:
    """PROTO-1: an ACP bridge sends the editor agent_message_chunk updates beside its tool
    cards; reported as presented, one was blamed on VIEW-2 as 'the target sends a
    session/update for call None unasked'. The report now names the message and says presented
    carries only the three tool messages."""
    chunk = {
        "method": "session/update",
        "params": {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "Looking."},
            },
        },
    }
    found = presentation_rule([], [chunk], history=())
    assert found is not None
    rule, what = found
    assert rule == "PROTO-1", what
    assert "sends a session/update agent_message_chunk" in what, what
    assert "None" not in what, what


def test_VIEW_2_an_update_after_the_result_says_the_status_went_back() -> None:
    """VIEW-2: a bridge that re-opened a finished call (`in_progress` after `completed`) was
    told it sends 'a session/update for call c1 unasked'; the report now says an update follows
    the one its tool/result called for and the status must stay; one sent before any result
    says updates come at results."""
    history = _result_history("c1", "hello")
    done = _update_for("c1", "hello")
    reopened = {
        "method": "session/update",
        "params": {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c1",
                "status": "in_progress",
            },
        },
    }
    found = presentation_rule([done], [done, reopened], history=history)
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert '(status "in_progress") after the one its tool/result called for' in what, what
    card = _card_for("c1", '{"file_path":"a.txt"}')
    found = presentation_rule([card], [card, reopened], history=history[:1])
    assert found is not None
    assert "before any tool/result of the call" in found[1], found


def test_VIEW_2_a_field_ACP_allows_but_section_12_never_writes_is_named() -> None:
    """VIEW-2: a bridge adding `rawOutput` to its result updates (ACP allows it, Zed's bridge
    sends it) was told 'the update is the presenter's view of the durable result'; the report
    now says the update carries a field section 12 never writes there, and where a bridge's own
    data may go."""
    history = _result_history("c1", "hello")
    done = _update_for("c1", "hello")
    found = presentation_rule([done], [_with_update(done, rawOutput={"ok": 1})], history=history)
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert "tool_call_update carries rawOutput, which ACP allows" in what, what


def test_VIEW_3_a_generic_card_without_kind_says_kind_is_written() -> None:
    """VIEW-3: a bridge that leaves out `kind: "other"` (ACP's default) on a generic card was
    told 'a call no presenter renders shows as a generic card'; the report now says the card
    leaves out kind and which kind is due."""
    card = _card_for("c1", "{}")
    unkinded = json.loads(json.dumps(card))
    del unkinded["params"]["update"]["kind"]
    call = {"type": "tool/call", "data": {"callId": "c1", "name": "read", "arguments": "{}"}}
    found = presentation_rule([card], [unkinded], history=(call,))
    assert found is not None
    rule, what = found
    assert rule == "VIEW-3", what
    assert 'leaves out kind; section 12 writes it on every card, "other" here' in what, what


def test_VIEW_3_a_result_shown_other_than_its_raw_content_is_named_so() -> None:
    """VIEW-3: a result no presenter renders shows its raw content, but conform looked the
    result up by a `callId` a tool/result's data does not have (the call is named inside its
    message), so every such difference read 'the update is the presenter's view of the durable
    result' (VIEW-2)."""
    history = _result_history("c1", "hello")
    found = presentation_rule(
        [_update_for("c1", "hello")], [_update_for("c1", "hello!")], history=history
    )
    assert found is not None
    rule, what = found
    assert rule == "VIEW-3", what
    assert "shows its raw content" in what, what


def test_VIEW_2_a_diff_results_title_keeps_the_arguments_path() -> None:
    """VIEW-2: a bridge that titled an edit's result update by its applied diff's path was told
    'the update is the presenter's view of the durable result'; the report now says the title
    names the path as the arguments give it."""
    update = {
        "method": "session/update",
        "params": {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c1",
                "status": "completed",
                "title": "Edit /workspace/a.py",
                "content": [{"type": "diff", "path": "/workspace/b.py", "newText": "y"}],
            },
        },
    }
    found = presentation_rule([update], [_with_update(update, title="Edit b.py")], history=())
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert "the path as the arguments give it" in what, what


def test_VIEW_2_a_fence_a_diff_card_or_a_diff_result_says_what_section_12_requires() -> None:
    """VIEW-2: a bridge fencing output holding ``` with three backticks, one writing
    `oldText: ""` for an edit that creates, and one taking an edit result's oldText from its
    arguments over meta.diffs were told only 'the fenced output is the result's text blocks
    joined by newlines', 'the card is the presenter's view of the call's arguments' and 'the
    update is the presenter's view of the durable result'; each explanation now says what the
    fence, the card's diff and the result's diffs must be."""
    fenced = _update_for("c1", "````console\n```sh\nmake\n```\n````")
    short = _update_for("c1", "```console\n```sh\nmake\n```\n```")
    found = presentation_rule([fenced], [short], history=())
    assert found is not None
    assert found[0] == "VIEW-2", found
    assert "one backtick longer than the output's longest run of backticks" in found[1], found
    arguments = '{"file_path": "b.py", "old_string": "", "new_string": "pass"}'
    note = acp.tool_call_notification(
        "s",
        "c1",
        present_call("edit", parse_arguments(arguments)),
        arguments=parse_arguments(arguments),
        session_cwd="/workspace",
        terminal_capable=False,
    )
    card = {"method": "session/update", "params": note}
    emptied = json.loads(json.dumps(card))
    emptied["params"]["update"]["content"][0]["oldText"] = ""
    call = {"type": "tool/call", "data": {"callId": "c1", "name": "edit", "arguments": arguments}}
    found = presentation_rule([card], [emptied], history=(call,))
    assert found is not None
    assert found[0] == "VIEW-2", found
    assert "oldText left out when old_string is empty" in found[1], found
    applied = {
        "type": "diff",
        "path": "/workspace/a.py",
        "oldText": "x = 1\n",
        "newText": "x = 2\n",
    }
    done = _update_for("c1", "Edited")
    done["params"]["update"]["content"] = [applied]
    guessed = _with_update(done, content=[{**applied, "oldText": "x = 1"}])
    found = presentation_rule([done], [guessed], history=())
    assert found is not None
    assert found[0] == "VIEW-2", found
    assert "shows its result's meta.diffs as recorded" in found[1], found


def test_VIEW_4_a_location_or_diff_path_made_relative_is_blamed_on_VIEW_4() -> None:
    """VIEW-4: titles are made relative, locations and diff paths stay raw. A bridge writing a
    read's location (or an edit result's diff path) relative to the workspace was blamed on
    VIEW-2, 'the card is the presenter's view of the call's arguments'; and a read's location
    line 0 for offset 0 got the same words, where the line is the first line shown."""
    card = _card_for("c1", '{"file_path":"/workspace/a.txt"}')
    relative = json.loads(json.dumps(card))
    relative["params"]["update"]["locations"][0]["path"] = "a.txt"
    found = presentation_rule([card], [relative], history=())
    assert found is not None
    assert found[0] == "VIEW-4", found
    assert "locations and diff paths stay as the arguments give them" in found[1], found
    applied = {"type": "diff", "path": "/workspace/a.py", "newText": "x = 2\n"}
    done = _update_for("c1", "Edited")
    done["params"]["update"]["content"] = [applied]
    shortened = _with_update(done, content=[{**applied, "path": "a.py"}])
    found = presentation_rule([done], [shortened], history=())
    assert found is not None
    assert found[0] == "VIEW-4", found
    zero = _card_for("c1", '{"file_path":"a.txt","offset":0}')
    line_zero = json.loads(json.dumps(zero))
    line_zero["params"]["update"]["locations"][0]["line"] = 0
    found = presentation_rule([zero], [line_zero], history=())
    assert found is not None
    assert found[0] == "VIEW-2", found
    assert "line the first line shown" in found[1], found


def test_PROTO_1_a_permission_request_sent_in_place_of_its_card_says_the_card_comes_first() -> None:
    """PROTO-1: a bridge that, like Zed's adapters, asks first and shows the card once the user
    answers sent the permission request where the model sends the call's card; it was told 'the
    target sends session/request_permission for call c1 where the model sends session/update
    for call c1' (VIEW-2). The report now says the card is due first and why."""
    first, second = _card_for("c1", '{"file_path":"a.txt"}'), _card_for("c2", "{}")
    asked = _permission_for("c1")
    found = presentation_rule([first, second, asked], [asked], history=())
    assert found is not None
    rule, what = found
    assert rule == "PROTO-1", what
    assert "sends the permission request for call c1 where its tool_call card is due" in what


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [
        ("\x1c\x1d\x85", "\x1c\x1d\x85"),  # blank to Python's str.strip, not to JavaScript's trim
        ("\ufeff", {}),  # blank to JavaScript's trim, not to str.strip
        ('{"file_path": "a.txt", "limit": 1e400}', {"file_path": "a.txt", "limit": None}),
        ('{"file_path": "a.txt", "offset": -0.0}', {"file_path": "a.txt", "offset": 0}),
        ('{"file_path": "a.txt"}', '{"file_path": "a.txt"}'),  # shown unparsed
    ],
)
def test_EXE_2_a_card_that_parses_the_arguments_another_way_is_blamed_on_EXE_2(
    arguments: str, shown: object
) -> None:
    """EXE-2: a JavaScript bridge that read `\\x1c\\x1d\\x85` with `trim` and `JSON.parse`
    showed the text where the model shows {}; conform blamed RW-1, 'the card shows other
    arguments than tool/call records', though the card showed what tool/call records, parsed
    another way. The report now blames EXE-2 and says how EXE-2 reads the text."""
    card = _card_for("c1", arguments)
    call = {"type": "tool/call", "data": {"callId": "c1", "name": "read", "arguments": arguments}}
    misread = _with_update(card, rawInput=shown)
    found = presentation_rule([card], [misread], history=(call,))
    assert found is not None
    rule, what = found
    assert rule == "EXE-2", what
    assert f"records the arguments {json.dumps(arguments)}, which EXE-2 reads as" in what, what
    assert "as Python's str.strip removes it" in what, what
    parsed = parse_arguments(arguments)
    request = permission_request(
        "s", "c1", present_call("read", parsed), arguments=parsed, session_cwd="/workspace"
    )
    asked = {"method": "session/request_permission", "params": request}
    wrong = json.loads(json.dumps(asked))
    wrong["params"]["toolCall"]["rawInput"] = shown
    found = presentation_rule([asked], [wrong], history=(call,))
    assert found is not None
    assert found[0] == "EXE-2", found


@pytest.mark.parametrize(
    "shown",
    [{"file_path": "b.txt"}, {}],
    ids=["another-calls-arguments", "arguments-dropped"],
)
def test_RW_1_a_card_showing_other_arguments_is_still_RW_1(shown: object) -> None:
    """RW-1: a card whose rawInput is no reading of what tool/call records (another call's
    arguments, or none where the record holds a non-empty object) stays RW-1; only another
    parse of the same text is EXE-2."""
    card = _card_for("c1", '{"file_path": "a.txt"}')
    call = {
        "type": "tool/call",
        "data": {"callId": "c1", "name": "read", "arguments": '{"file_path": "a.txt"}'},
    }
    found = presentation_rule([card], [_with_update(card, rawInput=shown)], history=(call,))
    assert found is not None
    assert found[0] == "RW-1", found
    assert "the card shows other arguments than tool/call records" in found[1], found


def test_RW_1_a_card_showing_true_for_a_number_is_no_reading_of_the_arguments() -> None:
    """RW-1: `true` is not `1` (SPEC section 2). A card showing `"limit": true` where tool/call
    records `"limit": 1`, beside an integer JavaScript's JSON.parse rounds, was taken for
    JavaScript's reading of the text (Python's `==` holds `True == 1`) and blamed on EXE-2."""
    big = 12345678901234567890
    arguments = f'{{"file_path": "a.txt", "limit": 1, "offset": {big}}}'
    card = _card_for("c1", arguments)
    call = {"type": "tool/call", "data": {"callId": "c1", "name": "read", "arguments": arguments}}
    shown = {"file_path": "a.txt", "limit": True, "offset": float(big)}
    found = presentation_rule([card], [_with_update(card, rawInput=shown)], history=(call,))
    assert found is not None
    assert found[0] == "RW-1", found


@pytest.mark.parametrize(
    ("tool", "arguments", "why"),
    [
        ("read", '{"file_path": "a.txt", "offset": 1.0}', "1.0 is a number of another type"),
        ("read", '{"file_path": "a.txt", "limit": 0}', "'limit' must be an integer >= 1"),
        ("bash", '{"command": ["ls"]}', "'command' must be a string"),
        ("grep", '{"pattern": "TODO"}', "no presenter renders grep"),
    ],
)
def test_VIEW_3_a_generic_card_rendered_as_a_tools_card_says_why_it_is_generic(
    tool: str, arguments: str, why: str
) -> None:
    """VIEW-3: a JavaScript bridge rendered `read` with `{"offset": 1.0}` as "Read a.txt (from
    line 1)" (JSON.parse reads 1.0 as 1) and was told only 'a call no presenter renders shows as
    a generic card', though read has a presenter; the report now says what the presenter
    refuses in the arguments, and, for an integer, that 1.0 is not one."""
    parsed = parse_arguments(arguments)
    generic = acp.tool_call_notification(
        "s",
        "c1",
        present_call(tool, parsed),
        arguments=parsed,
        session_cwd="/workspace",
        terminal_capable=False,
    )
    card = {"method": "session/update", "params": generic}
    call = {"type": "tool/call", "data": {"callId": "c1", "name": tool, "arguments": arguments}}
    rendered = _with_update(card, title="Read a.txt (from line 1)", kind="read")
    found = presentation_rule([card], [rendered], history=(call,))
    assert found is not None
    rule, what = found
    assert rule == "VIEW-3", what
    assert why in what, what


@pytest.mark.parametrize(
    ("path", "wrong_title", "why"),
    [
        (
            "/workspace/src/a.py",
            "Read /workspace/src/a.py",
            "/workspace/src/a.py is inside the session cwd /workspace, so the title names it "
            'src/a.py ("Read src/a.py")',
        ),
        (
            "/workspace/",
            "Read .",
            'the title names /workspace/ as the arguments give it ("Read /workspace/"): a path '
            "is made relative only when it is absolute and strictly inside the session cwd",
        ),
    ],
    ids=["never-relative", "cwd-itself-made-relative"],
)
def test_VIEW_4_a_titles_path_is_told_how_the_model_writes_it(
    path: str, wrong_title: str, why: str
) -> None:
    """VIEW-4: a bridge that never made titles relative was told only 'a title's path is
    relative only inside the session cwd', which reads as if it had made one relative; the
    report now names the path, the session cwd and the title the model writes."""
    arguments = json.dumps({"file_path": path})
    card = _card_for("c1", arguments)
    call = {"type": "tool/call", "data": {"callId": "c1", "name": "read", "arguments": arguments}}
    found = presentation_rule([card], [_with_update(card, title=wrong_title)], history=(call,))
    assert found is not None
    rule, what = found
    assert rule == "VIEW-4", what
    assert why in what, what


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (
            '{"command": "sleep 60", "run_in_background": true}',
            "kept whole, its exit or signal marker line too (run_in_background",
        ),
        ('{"command": "sleep 60"}', "a foreground command's exit or signal marker line removed"),
    ],
    ids=["background", "foreground"],
)
def test_VIEW_2_a_background_commands_output_is_told_it_keeps_its_marker(
    arguments: str, said: str
) -> None:
    """VIEW-2: a bridge that stripped `[exit code: 0]` from a background command's output was
    told the fenced output has 'a foreground command's exit or signal marker line removed',
    which it had done; the report now says a background command's text is kept whole."""
    call = {"type": "tool/call", "data": {"callId": "c1", "name": "bash", "arguments": arguments}}
    mine = _update_for("c1", "```console\nstarted\n[exit code: 0]\n```")
    theirs = _update_for("c1", "```console\nstarted\n```")
    found = presentation_rule([mine], [theirs], history=(call,))
    assert found is not None
    rule, what = found
    assert rule == "VIEW-2", what
    assert said in what, what
