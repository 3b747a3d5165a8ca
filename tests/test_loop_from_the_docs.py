"""What a loop written in another language, from the docs alone, is told.

A JavaScript loop written from README.md, docs/tutorial.md, SPEC.md and `loopspec schema` only
made these mistakes the docs let it make; each report must name what it did and the rule that
says otherwise, not a rule it kept.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from loopspec import spec_text
from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
    audit_words,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.properties.conformance.command_codec import (
    ProtocolError,
    command_from_json,
    command_to_json,
)
from loopspec.properties.conformance.compare import Divergence
from loopspec.properties.conformance.driver_protocol import REFUSAL_RULES, protocol_schema
from loopspec.properties.conformance.machine import _fits, _reduced
from loopspec.properties.conformance.run import TargetError, replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.conformance.wire_layout import MEANINGS

Event = dict[str, Any]

READ = '{"file_path":"a.txt"}'
READ_TOOL = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
GUARDED_BASH = LoopConfig(
    tools=(ToolSpec("bash", concurrency_safe=False, required_keys=("command",)),),
    hooks=(HookSpec("guard", "PreToolUse", ""),),
)


class InvokedAsTheHookStarts(ModelTarget):
    """The model, except that a PreToolUse hook's hook/invoked is written when the hook starts
    (with the reply that starts it) rather than with its answer, as a loop that logs the
    invocation before awaiting the hook does. Only the reply's first hook is so moved."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "invoked as the hook starts"
        self._logged = 0
        self._turn = 0
        self._moved: Event | None = None

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = list(observed.events)
        if isinstance(command, ModelReplies) and observed.accepted and not events:
            # The model waits for the hooks; this loop logs the first one's invocation now.
            self._moved = {
                "type": "hook/invoked",
                "seq": self._logged,
                "time": 0,
                "data": {
                    "turn": self._turn,
                    "point": "PreToolUse",
                    "dialect": "claude-code",
                    "handlerId": "guard",
                    "matcher": "",
                    "callId": command.tool_calls[0].id,
                },
            }
            events = [self._moved]
        elif isinstance(command, HookAnswers) and self._moved is not None:
            assert events[0]["type"] == "hook/invoked"
            events, self._moved = events[1:], None
        for event in events:
            if event["type"] == "turn/start":
                self._turn = event["data"]["turn"]
        self._logged += len(events)
        return attrs.evolve(
            observed, events=tuple(events), commits=(len(events),) if events else ()
        )


def test_HOOK_4_a_hook_invoked_logged_as_the_hook_starts_is_named_so() -> None:
    """HOOK-4: a loop that logs a hook's hook/invoked before awaiting the hook reports it with
    the reply; the report says it came before the answer (it said the hook ran twice: "hook
    guard runs once per call")."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command":"ls"}'),)),
        HookAnswers(Pass()),
        ToolFinishes("c1", ToolSucceeded("ok")),
    ]
    replay = replay_case(InvokedAsTheHookStarts, GUARDED_BASH, program)
    assert replay.divergence is not None
    assert (replay.divergence.index, replay.divergence.rule_id) == (1, "HOOK-4")
    assert "runs once per call" not in replay.divergence.what
    assert replay.divergence.what.startswith(
        "the target appends the hook/invoked of hook guard before the hook has answered"
    )


def test_HOOK_4_the_moved_invocation_is_the_only_difference() -> None:
    """HOOK-4: control: the same target reports every other event as the model does, so the
    report above is about the moved hook/invoked alone."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command":"ls"}'),)),
    ]
    model, moved = ModelTarget(), InvokedAsTheHookStarts()
    model.reset(GUARDED_BASH)
    moved.reset(GUARDED_BASH)
    for command in program:
        model.apply(command)
        moved.apply(command)
    answer = HookAnswers(Pass())
    by_model, by_moved = model.apply(answer).events, moved.apply(answer).events
    assert [e["type"] for e in by_model] == ["hook/invoked", *(e["type"] for e in by_moved)]
    assert by_model[1:] == by_moved


def test_MODEL_1_refusal_rules_say_the_phase_is_judged_first() -> None:
    """MODEL-1: a command outside the phase that takes it is refused with MODEL-1, before
    EXE-4 or DEC-2 could apply; the schema's `refusalRules` say so (a loop written from them
    refused an approval answer while idle with DEC-2, "no approval is pending")."""
    model = ModelTarget()
    model.reset(GUARDED_BASH)
    idle_answer = model.apply(ApprovalAnswers("allowed-once"))
    idle_outcome = model.apply(ToolFinishes("c1", ToolSucceeded("ok")))
    assert (idle_answer.accepted, idle_outcome.accepted) == (False, False)
    assert (idle_answer.refusal_rule, idle_outcome.refusal_rule) == ("MODEL-1", "MODEL-1")
    assert "judged first" in REFUSAL_RULES["MODEL-1"]
    for rule in ("EXE-4", "DEC-2"):
        assert "during a batch" in REFUSAL_RULES[rule], rule
    assert "open model request" in REFUSAL_RULES["EXE-1"]


class Changed(ModelTarget):
    """The model, with `change` applied to what it observed for each command."""

    def __init__(self, change: Callable[[Command, Observation], Observation]) -> None:
        super().__init__()
        self.name = "changed model"
        self._change = change

    def apply(self, command: Command) -> Observation:
        return self._change(command, super().apply(command))


def _starts_c3_at_once(command: Command, observed: Observation) -> Observation:
    """A gate that settles a call of an unregistered tool at once, without waiting for its
    turn: the call after it starts with the reply."""
    if isinstance(command, ModelReplies):
        return attrs.evolve(observed, executed=(*observed.executed, ("c3", READ)))
    return observed


def test_SCHED_1_a_call_started_too_early_names_the_calls_before_it() -> None:
    """SCHED-1: the report names the earlier calls still without a result, with their tools,
    so a reader sees that c2's tool is not registered, and says that such a call is exclusive
    (it said only "an exclusive call waits for every earlier call", and both c1 and c3 are
    calls of a concurrency-safe tool)."""
    config = LoopConfig(tools=(READ_TOOL,), max_parallel=2)
    reply = ModelReplies(
        (
            ToolCallBlock("c1", "read", READ),
            ToolCallBlock("c2", "missing_tool", "{}"),
            ToolCallBlock("c3", "read", READ),
        )
    )
    replay = replay_case(lambda: Changed(_starts_c3_at_once), config, [SubmitUser("hi"), reply])
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "SCHED-1"
    what = replay.divergence.what
    assert "calls c1 (read), c2 (missing_tool), still without a result" in what
    assert "a tool the configuration lacks counts as one" in what


def _asks_at_once(command: Command, observed: Observation) -> Observation:
    """A gate whose cap lets one more safe call through: c2's approval is asked while c1 still
    holds the only slot."""
    if isinstance(command, HookAnswers) and isinstance(command.verdict, Ask):
        asked: Event = {
            "type": "approval/asked",
            "seq": observed.events[-1]["seq"] + 1,
            "time": 0,
            "data": {"id": "approval-c2", "toolName": "read", "callId": "c2", "arguments": READ},
        }
        events = (*observed.events, asked)
        return attrs.evolve(observed, events=events, commits=(len(events),))
    return observed


def test_SCHED_2_an_approval_asked_too_early_names_the_call_holding_the_slot() -> None:
    """SCHED-2: an approval asked before the call could start names the earlier call that
    still holds the slot (it said "after the calls before it", which a loop that let a second
    call past a cap of one could not tell from its own log)."""
    config = LoopConfig(
        tools=(READ_TOOL,), hooks=(HookSpec("gate", "PreToolUse", "*"),), max_parallel=1
    )
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", READ), ToolCallBlock("c2", "read", READ))),
        HookAnswers(Pass()),
        HookAnswers(Ask()),
    ]
    replay = replay_case(lambda: Changed(_asks_at_once), config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "SCHED-2"
    what = replay.divergence.what
    assert (
        "could start under SCHED-1, and it comes after call c1 (read), still without a result; "
        "with 1 safe call(s) running and maxParallel 1, it cannot start yet"
    ) in what, what


def _descriptions(schema: object) -> list[str]:
    if isinstance(schema, dict):
        own = [schema["description"]] if isinstance(schema.get("description"), str) else []
        return own + [d for value in schema.values() for d in _descriptions(value)]
    if isinstance(schema, list):
        return [d for value in schema for d in _descriptions(value)]
    return []


def test_HOOK_1_the_schema_says_which_audit_words_agree_with_each_verdict() -> None:
    """HOOK-1: the schema a loop in another language reads names the audit words each
    PreToolUse verdict may record, as the model decides them (it named a function of the
    model's source, `commands.audit_words`, which such a reader does not have)."""
    texts = _descriptions(protocol_schema())
    assert not [t for t in texts if "commands." in t]
    (decision,) = {t for t in texts if "agrees with its verdict" in t}
    for label, verdict in (("an allow", Allow()), ("a deny", Deny("no"))):
        listed = decision.split(f" for {label}")[0].rsplit(": ", 1)[-1].rsplit("; ", 1)[-1]
        words = set(listed.split(" (")[0].replace(" or ", ", ").split(", "))
        assert words == audit_words(verdict), label


def _approval_answers_refused_with_dec_2(command: Command, observed: Observation) -> Observation:
    """A loop that asks "is an approval pending?" before "does this phase take answers?"."""
    if isinstance(command, ApprovalAnswers) and not observed.accepted:
        return attrs.evolve(observed, refusal_rule="DEC-2", refusal_message="none pending")
    return observed


def test_MODEL_1_a_refusal_naming_the_commands_own_rule_is_told_the_phase_comes_first() -> None:
    """MODEL-1: a target refusing an approval answer while idle with DEC-2 is told that the
    idle phase does not take it and that the phase is judged first (the report said only "the
    model with MODEL-1, the target with DEC-2", and MODEL-1's text speaks of the model's own
    `step` function)."""
    replay = replay_case(
        lambda: Changed(_approval_answers_refused_with_dec_2),
        GUARDED_BASH,
        [ApprovalAnswers("allowed-once")],
    )
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "MODEL-1"
    assert replay.divergence.what == (
        "both refuse ApprovalAnswers; the model with MODEL-1 (Idle does not take "
        "ApprovalAnswers, and the phase is judged before any other rule: SPEC.md section 6 "
        "lists every pair refused so), the target with DEC-2"
    )


def _audits_as_the_body_settles(command: Command, observed: Observation) -> Observation:
    """A loop that writes a PostToolUse hook's audit when the body settles, while the result
    still waits for an earlier call's."""
    if isinstance(command, ToolFinishes) and command.call_id == "c2" and not observed.events:
        audit: list[Event] = [
            {"type": "hook/invoked", "seq": 6, "time": 0, "data": {
                "turn": 1, "point": "PostToolUse", "dialect": "claude-code",
                "handlerId": "audit", "matcher": "read", "callId": "c2"}},
            {"type": "hook/result", "seq": 7, "time": 0, "data": {
                "turn": 1, "point": "PostToolUse", "handlerId": "audit", "decision": "pass",
                "durationMs": 0, "callId": "c2"}},
        ]  # fmt: skip
        return attrs.evolve(observed, events=tuple(audit), commits=(2,))
    return observed


def test_HOOK_5_a_post_audit_written_as_the_body_settles_is_named_so() -> None:
    """HOOK-5: the audit of a PostToolUse hook written when a later call's body settles, before
    its result can commit, is reported as such (it read "hook audit runs once per call")."""
    config = LoopConfig(
        tools=(READ_TOOL,), hooks=(HookSpec("audit", "PostToolUse", "read"),), max_parallel=2
    )
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", READ), ToolCallBlock("c2", "read", READ))),
        ToolFinishes("c2", ToolSucceeded("b"), post=(PostPass(),)),
    ]
    replay = replay_case(lambda: Changed(_audits_as_the_body_settles), config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "HOOK-5"
    assert replay.divergence.what.startswith(
        "the target audits hook audit on call c2 before that call's result commits"
    )


def _aborts_running_calls(command: Command, observed: Observation) -> Observation:
    """A loop that answers a running call ABORTED at once, as if its body were killed."""
    if isinstance(command, Abort) and not observed.events:
        block = {
            "type": "tool-result",
            "toolCallId": "c1",
            "content": [{"type": "text", "text": "Error: tool call aborted"}],
            "isError": True,
        }
        result: Event = {
            "type": "tool/result", "seq": 5, "time": 0, "surfaceOp": "append",
            "sourceEventSeqs": [4],
            "data": {"turn": 1, "step": 1, "error": {"name": "AbortError", "code": "ABORTED"},
                     "message": {"role": "user", "content": [block], "id": "m5",
                                 "source": {"kind": "tool", "callId": "c1"}}},
        }  # fmt: skip
        return attrs.evolve(observed, events=(result,), commits=(1,))
    return observed


def test_ABORT_1_a_running_call_answered_at_the_abort_is_told_it_drains() -> None:
    """ABORT-1: a loop that answers a running call ABORTED when the abort lands is told that
    running calls drain (it read only "the target appends a tool/result the model does not")."""
    config = LoopConfig(tools=(READ_TOOL,))
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", READ),)),
        Abort("user"),
    ]
    replay = replay_case(lambda: Changed(_aborts_running_calls), config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "ABORT-1"
    assert "after an abort a running call drains: call c1's result waits for its body" in (
        replay.divergence.what
    )


def _unknown_tool_settled_at_the_gate(command: Command, observed: Observation) -> Observation:
    """A gate that answers a call of an unregistered tool as soon as the call reaches it,
    without waiting for the earlier call: an abort then leaves its UNKNOWN_TOOL result."""
    changed = []
    for event in observed.events:
        data = event.get("data", {})
        if event["type"] == "tool/result" and data["message"]["source"]["callId"] == "c2":
            block = data["message"]["content"][0]
            block = {**block, "content": [{"type": "text", "text": "Error: unknown tool nope"}]}
            message = {**data["message"], "content": [block]}
            error = {"name": "UnknownToolError", "code": "UNKNOWN_TOOL"}
            changed.append({**event, "data": {**data, "message": message, "error": error}})
            continue
        changed.append(event)
    return attrs.evolve(observed, events=tuple(changed))


def test_SCHED_1_an_unknown_tool_settled_before_its_turn_is_told_it_waits_as_exclusive() -> None:
    """SCHED-1: a call of an unregistered tool is exclusive, so it waits behind a running call
    and is still unstarted when an abort lands. A loop that answered it UNKNOWN_TOOL at once read
    "after an abort it is an ABORTED_BEFORE_DISPATCH error", blamed on ABORT-1, which its abort
    had kept; then EXE-5, which a loop letting an exclusive call pass a running safe one (a
    fresh outside bug, the same observation) does not break: SCHED-1 states the wait."""
    config = LoopConfig(tools=(READ_TOOL,), max_parallel=2)
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", READ), ToolCallBlock("c2", "nope", "{}"))),
        Abort("user"),
        ToolFinishes("c1", ToolSucceeded("a")),
    ]
    replay = replay_case(lambda: Changed(_unknown_tool_settled_at_the_gate), config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "SCHED-1"
    assert "is an exclusive call, which starts only when no earlier call runs" in (
        replay.divergence.what
    )
    assert "ends UNKNOWN_TOOL only then, where its body would start (EXE-5)" in (
        replay.divergence.what
    )


def test_EXE_2_blank_is_what_pythons_strip_removes_not_javascripts_trim() -> None:
    """EXE-2: SPEC.md and the tutorial tell a JavaScript loop that blank arguments are what
    Python's `str.strip` removes, which `trim` does not match: U+001C..U+001F and U+0085 are
    blank, U+FEFF is not. A loop using `trim` read "\\x1c" as invalid JSON where the model
    reads `{}` (replayed from a case file; the random programs never drew it)."""
    config = LoopConfig(tools=(READ_TOOL,))
    for raw, problem in (
        ("\x1c\x1d\x1e\x1f\x85", "missing required 'file_path'"),
        ("\ufeff", "the input must be a JSON object"),
    ):
        model = ModelTarget()
        model.reset(config)
        model.apply(SubmitUser("hi"))
        events = model.apply(ModelReplies((ToolCallBlock("c1", "read", raw),))).events
        (result,) = [e for e in events if e["type"] == "tool/result"]
        text = result["data"]["message"]["content"][0]["content"][0]["text"]
        assert text == f"Error: invalid input for tool read: {problem}", repr(raw)


def _sidecar_only_if_changed(command: Command, observed: Observation) -> Observation:
    """A loop that records the rewrite sidecar only when the hook's input differs from the
    model's, the usual "did anything change?" shortcut."""
    events = []
    for event in observed.events:
        data = event.get("data", {})
        rewrite = data.get("rewrite") if event["type"] == "tool/call" else None
        if rewrite is not None and json.loads(rewrite["originalArguments"]) == json.loads(
            data["arguments"]
        ):
            events.append({**event, "data": {k: v for k, v in data.items() if k != "rewrite"}})
            continue
        events.append(event)
    return attrs.evolve(observed, events=tuple(events))


def test_RW_2_a_sidecar_left_out_for_an_unchanged_input_is_named_so() -> None:
    """RW-2: a hook that supplies the model's own input still gets a sidecar; a loop that left
    it out is told so (it read "the rewrite sidecar records every applied rewrite")."""
    config = LoopConfig(tools=(READ_TOOL,), hooks=(HookSpec("late", "PreToolUse", ".*"),))
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", READ),)),
        HookAnswers(Allow(updated_input={"file_path": "a.txt"})),
    ]
    divergence = _found(_sidecar_only_if_changed, config, program)
    assert divergence.rule_id == "RW-2"
    assert divergence.what.endswith(
        "the target records no rewrite sidecar, but a hook-supplied input was applied (equal "
        "to the model's own, which still gets one)"
    )


def _found(
    change: Callable[[Command, Observation], Observation],
    config: LoopConfig,
    program: list[Command],
) -> Divergence:
    """The divergence the model changed by `change` shows on `program`."""
    replay = replay_case(lambda: Changed(change), config, program)
    assert replay.divergence is not None
    return replay.divergence


def _with_hook_result(observed: Observation, member: str, value: object) -> Observation:
    """`observed`, its hook/result (the answer's second event) given `member` = `value`."""
    events = [dict(event) for event in observed.events]
    result = events[1] = {**events[1], "data": dict(events[1]["data"])}
    result["data"][member] = value
    return attrs.evolve(observed, events=tuple(events))


def _times_its_own_hooks(command: Command, observed: Observation) -> Observation:
    """A loop that writes the durationMs it measured, where the answer carries no audit."""
    if not isinstance(command, HookAnswers):
        return observed
    return _with_hook_result(observed, "durationMs", 5)


def test_TEXT_2_a_hook_timed_by_the_loop_is_told_which_field_takes_what() -> None:
    """TEXT-2: without an audit, durationMs is 0 and stderrSummary the hook's reason; a loop
    that wrote the time it measured read "durationMs 0, no exitCode and the hook's reason",
    which named no field for the reason and left the measured time unexplained."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command":"ls"}'),)),
        HookAnswers(Pass()),
    ]
    divergence = _found(_times_its_own_hooks, GUARDED_BASH, program)
    assert divergence.rule_id == "TEXT-2"
    assert divergence.what.endswith(
        "without an audit, durationMs 0, no exitCode and stderrSummary the hook's reason (none "
        "when it gave none): not what the loop measured"
    )


def _hands_on_the_frozen_input(command: Command, observed: Observation) -> Observation:
    """A Python adapter that writes the hook's `updated_input` into its hook/result as it got
    it, a FrozenMap, where its log writer would write the dict."""
    if not isinstance(command, HookAnswers) or not isinstance(command.verdict, Allow):
        return observed
    return _with_hook_result(observed, "updatedInput", command.verdict.updated_input)


def test_SAFE_5_an_event_holding_a_frozen_value_is_the_targets_error_naming_its_path() -> None:
    """SAFE-5: a Python target whose hook/result holds the hook's input as the command gave it,
    a FrozenMap, is told where and what to call (a newcomer's adapter did so; its report of a
    difference then ended in loopspec's traceback, exit 3, as the diff could not print it)."""
    config = LoopConfig(tools=(READ_TOOL,), hooks=(HookSpec("late", "PreToolUse", ".*"),))
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", READ),)),
        HookAnswers(Allow(updated_input={"file_path": "b.txt"})),
    ]
    with pytest.raises(TargetError) as broken:
        replay_case(lambda: Changed(_hands_on_the_frozen_input), config, program)
    assert (len(broken.value.program), broken.value.rule_id) == (3, "PROTO-1")
    assert "apply returned an event that is not JSON: events[1].data.updatedInput is a " in str(
        broken.value
    )
    assert "FrozenMap; " in str(broken.value)
    assert "loopspec.model.jsonvalue.thaw gives the dicts and lists" in str(broken.value)


def test_VIEW_3_an_offset_written_as_a_float_is_a_wrong_type() -> None:
    """VIEW-3: SPEC.md section 12 tells a JavaScript loop that `offset` is an integer as the
    JSON text writes it: `1.0` is another type, shown as the generic card, which `JSON.parse`
    cannot tell from `1` (a JavaScript bridge showed a read card; replayed from a case file)."""
    config = LoopConfig(tools=(READ_TOOL,))
    kinds = []
    for offset in ("1", "1.0"):
        model = ModelTarget()
        model.presenting = True
        model.reset(config)
        model.apply(SubmitUser("hi"))
        arguments = f'{{"file_path":"a.txt","offset":{offset}}}'
        observed = model.apply(ModelReplies((ToolCallBlock("c1", "read", arguments),)))
        (card,) = [m for m in observed.presented or () if m["method"] == "session/update"][:1]
        kinds.append(card["params"]["update"]["kind"])
    assert kinds == ["read", "other"]


TUTORIAL = " ".join((Path(__file__).parent.parent / "docs" / "tutorial.md").read_text().split())


def _rule_words(rule: str) -> str:
    """The **Rule.** and **Why.** of `rule` in SPEC.md, its lines joined."""
    return " ".join(spec_text().split(f"### {rule} ")[1].split("**Where.**")[0].split())


def _model_on(config: LoopConfig, *program: Command) -> list[Observation]:
    model = ModelTarget()
    model.reset(config)
    return [model.apply(command) for command in program]


def _kinds(observed: Observation) -> list[str]:
    return [f"{e['type']} {e['data'].get('callId', '')}".strip() for e in observed.events]


@pytest.mark.parametrize("finish", ["max-tokens", "cancelled"])
def test_EXE_1_a_cut_reply_repeating_an_id_is_refused_as_the_docs_say(finish: str) -> None:
    """EXE-1: a reply cut by max-tokens or cancelled whose calls repeat an id is refused, though
    its finish would drop the calls; SPEC.md, the tutorial and the schema's refusal rules say so
    (a Go loop written from them had to guess, round 19)."""
    blocks = (TextBlock("x"), ToolCallBlock("c1", "read", READ), ToolCallBlock("c1", "read", READ))
    _, refused = _model_on(
        LoopConfig(tools=(READ_TOOL,)), SubmitUser("hi"), ModelReplies(blocks, finish)
    )
    assert (refused.accepted, refused.refusal_rule, refused.events) == (False, "EXE-1", ())
    assert "refused, whatever its finish: one cut by max-tokens or cancelled too" in (
        _rule_words("EXE-1")
    )
    assert "calls repeating an id are still refused first, EXE-1" in _rule_words("STEP-4")
    assert "a reply whose calls repeat an id is refused all the same, EXE-1" in (
        _rule_words("ABORT-2")
    )
    assert "either, its calls repeating an id, is refused (EXE-1)" in TUTORIAL
    assert "whatever its finish (max-tokens and cancelled too" in REFUSAL_RULES["EXE-1"]


def test_HOOK_5_a_post_audit_waits_for_its_results_commit_as_the_docs_say() -> None:
    """HOOK-5: a PostToolUse hook's audit pair is appended with its call's result when that
    commits, in model order, not when the body settles; SPEC.md and the tutorial say so (only
    the transition table did, and a Go loop written from the docs had to guess, round 19)."""
    config = LoopConfig(
        tools=(READ_TOOL,), hooks=(HookSpec("audit", "PostToolUse", "read"),), max_parallel=2
    )
    reply = ModelReplies((ToolCallBlock("c1", "read", READ), ToolCallBlock("c2", "read", READ)))
    *_, second, first = _model_on(
        config,
        SubmitUser("hi"),
        reply,
        ToolFinishes("c2", ToolSucceeded("b"), post=(PostPass(),)),
        ToolFinishes("c1", ToolSucceeded("a"), post=(PostPass(),)),
    )
    assert second.events == ()
    pair_and_result = ["hook/invoked", "hook/result", "tool/result"]
    assert [kind.split()[0] for kind in _kinds(first)] == [
        *pair_and_result, *pair_and_result, "step/end", "step/start"
    ]  # fmt: skip
    assert [e["data"]["callId"] for e in first.events if e["type"] == "hook/invoked"] == [
        "c1",
        "c2",
    ]
    assert "appended when the result they judge commits, right before it" in (_rule_words("HOOK-5"))
    assert "when it commits (in model order, ORD-3" in TUTORIAL
    assert "A PostToolUse hook's pair goes in the answer to the command that commits" in TUTORIAL


def test_SCHED_1_an_unknown_tools_call_waits_as_an_exclusive_one_as_the_docs_say() -> None:
    """SCHED-1: a call of a tool the configuration lacks is exclusive: it gets its UNKNOWN_TOOL
    result once no earlier call runs, and the safe call after it waits behind it; SPEC.md's
    SCHED-1 and EXE-5 and the tutorial's sections 3 and 5 say so (a Go loop written from the
    tutorial found it in SCHED-1's words alone, round 19)."""
    config = LoopConfig(tools=(READ_TOOL,), max_parallel=3)
    reply = ModelReplies(
        (
            ToolCallBlock("c1", "read", READ),
            ToolCallBlock("c2", "nope", "{}"),
            ToolCallBlock("c3", "read", READ),
        )
    )
    _, replied, finished = _model_on(
        config, SubmitUser("hi"), reply, ToolFinishes("c1", ToolSucceeded("a"))
    )
    assert replied.executed == (("c1", READ),)
    assert [e["data"].get("error") for e in finished.events if e["type"] == "tool/result"] == [
        None,
        {"name": "UnknownToolError", "code": "UNKNOWN_TOOL"},
    ]
    assert finished.executed == (("c3", READ),)
    assert "holds every later call behind it until then" in _rule_words("SCHED-1")
    assert "it reaches dispatch as an exclusive call does, once no earlier call runs" in (
        _rule_words("EXE-5")
    )
    assert "counts as exclusive all the same" in TUTORIAL
    assert "a call of a tool the configuration lacks is exclusive, section 3" in TUTORIAL


def test_ADJ_4_STEP_4_a_message_typed_mid_turn_waits_as_the_tutorial_says() -> None:
    """ADJ-4, STEP-4: with `queued-input`, a reply without calls while a message is queued opens
    a step for it rather than ending the turn; a message typed while a body runs comes before
    that body's context, which joins the queue only as its result commits; a failed request
    parks it before the next turn's own message. The tutorial's `queued-input` row said only
    "also while a turn is open", and its section 2 that a reply without calls ends the turn."""
    config = LoopConfig(tools=(READ_TOOL,))
    *_, no_calls = _model_on(config, SubmitUser("hi"), SubmitUser("more"), ModelReplies(()))
    assert _kinds(no_calls) == ["assistant/message", "step/end", "step/start", "user/message"]
    call = ModelReplies((ToolCallBlock("c1", "read", READ),))
    finished = ToolFinishes("c1", ToolSucceeded("a", contexts=("ctx",)))
    *_, committed = _model_on(config, SubmitUser("hi"), call, SubmitUser("typed"), finished)
    delivered = [e["data"]["content"][0]["text"] for e in committed.events[3:]]
    assert delivered == ["typed", "ctx"]
    *_, next_turn = _model_on(
        config, SubmitUser("hi"), SubmitUser("more"), ModelFails("x"), SubmitUser("next")
    )
    assert [e["data"]["content"][0]["text"] for e in next_turn.events[2:]] == ["more", "next"]
    assert "in the order each joined the queue (a context when its result commits" in TUTORIAL
    assert "opens a new step rather than ending the turn (STEP-4)" in TUTORIAL
    assert "before that turn's own message (ADJ-4)" in TUTORIAL


def test_REC_1_a_settled_result_never_committed_is_repaired_as_the_docs_say() -> None:
    """REC-1: a crash while a settled body's result waits behind a running earlier call loses
    that result: Recover answers both calls TOOL_OUTCOME_UNKNOWN. REC-1 said "still without a
    result", which a Go loop written from the docs had to read as "in the log" (round 19)."""
    config = LoopConfig(tools=(READ_TOOL,), max_parallel=2)
    reply = ModelReplies((ToolCallBlock("c1", "read", READ), ToolCallBlock("c2", "read", READ)))
    program = (SubmitUser("hi"), reply, ToolFinishes("c2", ToolSucceeded("b")), Crash(), Recover())
    *_, recovered = _model_on(config, *program)
    codes = [e["data"]["error"]["code"] for e in recovered.events if e["type"] == "tool/result"]
    assert codes == ["TOOL_OUTCOME_UNKNOWN", "TOOL_OUTCOME_UNKNOWN"]
    assert "(one whose body settled while its result waited behind an earlier call's too" in (
        _rule_words("REC-1")
    )
    assert "a body that settled while its result waited behind an earlier call's too" in TUTORIAL


def test_SCHED_1_a_loop_without_parallel_is_sent_max_parallel_1_as_the_tutorial_says() -> None:
    """SCHED-1: conform sends a loop that does not declare `parallel` configurations whose
    `max_parallel` is 1, so it never has to choose between the cap and running one body at a
    time; the tutorial says so (a Go loop written from it forced 1 on a guess, round 19)."""
    wide = LoopConfig(tools=(READ_TOOL,), max_parallel=3)
    assert not _fits(wide, frozenset())
    assert _reduced(wide, frozenset()).max_parallel == 1
    assert _reduced(wide, frozenset({"parallel"})).max_parallel == 3
    assert "`max_parallel` is 1 until you declare `parallel`" in TUTORIAL


def test_PROTO_1_a_failure_without_a_code_leaves_it_out_as_the_schema_says() -> None:
    """PROTO-1: a body's failure without a code is sent with no `code` member, never `null`,
    which the decoder refuses; the schema's words for the field say so (a Go loop written from
    them asked whether `null` is "given", round 19)."""
    sent = command_to_json(ToolFinishes("c1", ToolFailed("boom")))
    assert "code" not in sent["outcome"]
    with pytest.raises(ProtocolError, match=r"\$\.outcome\.code must be a string, not null"):
        command_from_json({**sent, "outcome": {**sent["outcome"], "code": None}})
    assert "left out, never null, when the failure has none" in MEANINGS[(ToolFailed, "code")]


BASH_TOOL = ToolSpec("bash", concurrency_safe=False, required_keys=("command",))
LS = '{"command":"ls"}'
ASKED_READ = LoopConfig(
    tools=(READ_TOOL, BASH_TOOL), hooks=(HookSpec("gate", "PreToolUse", "read"),), max_parallel=2
)
BASH_READ_BASH = ModelReplies(
    (
        ToolCallBlock("c1", "bash", LS),
        ToolCallBlock("c2", "read", READ),
        ToolCallBlock("c3", "bash", LS),
    )
)


def test_SCHED_2_an_approval_is_asked_at_the_gate_as_the_tutorial_says() -> None:
    """SCHED-2: a call a hook asks about, behind a running exclusive call, is asked about in the
    command that settles that call, before its result; the tutorial's `approval` row said only
    that "the pending request is answered"."""
    *_, settled, allowed = _model_on(
        ASKED_READ,
        SubmitUser("hi"),
        BASH_READ_BASH,
        HookAnswers(Ask()),
        ToolFinishes("c1", ToolSucceeded("a")),
        ApprovalAnswers("allowed-once"),
    )
    assert _kinds(settled) == ["approval/asked c2", "tool/result"]
    assert allowed.executed == (("c2", READ),)
    assert "only when its call reaches the gate and could start (SCHED-2)" in TUTORIAL
    assert "in the command that settles that call, before its result" in TUTORIAL
    (row,) = [line for line in spec_text().splitlines() if line.startswith("| Dispatching | ToolF")]
    assert "approval/asked for an asked call that can now start (SCHED-2); for each newly" in row


def test_ABORT_1_ORD_3_an_abort_behind_a_running_body_waits_as_the_tutorial_says() -> None:
    """ABORT-1, ORD-3: an abort while the first call runs appends nothing; the body drains, and
    its ABORTED result, the unstarted calls' ABORTED_BEFORE_DISPATCH and the turn's end come
    with its ToolFinishes. The tutorial's `abort` row said only "the turn is stopped", and the
    transition table's that the abort appends the ABORTED_BEFORE_DISPATCH results."""
    *_, aborted, drained = _model_on(
        ASKED_READ,
        SubmitUser("hi"),
        BASH_READ_BASH,
        HookAnswers(Ask()),
        Abort("user"),
        ToolFinishes("c1", ToolSucceeded("a")),
    )
    assert (aborted.accepted, aborted.events) == (True, ())
    codes = [e["data"]["error"]["code"] for e in drained.events if e["type"] == "tool/result"]
    assert codes == ["ABORTED", "ABORTED_BEFORE_DISPATCH", "ABORTED_BEFORE_DISPATCH"]
    assert _kinds(drained)[-2:] == ["step/end", "turn/end"]
    assert "an abort while an earlier body runs appends nothing yet" in TUTORIAL
    assert "running bodies drain (their `ToolFinishes` still come" in TUTORIAL
    (row,) = [line for line in spec_text().splitlines() if line.startswith("| Dispatching | Abort")]
    assert "ABORTED_BEFORE_DISPATCH for calls not started, nothing past a running call" in row


def test_RW_3_HOOK_4_a_reply_waits_for_its_hooks_as_the_tutorial_says() -> None:
    """RW-3, HOOK-4: a reply whose calls a PreToolUse hook matches appends nothing; each answer
    appends its audit, and the last one the reply and its calls after it. The tutorial's
    `pre-hooks` row said only "the next PreToolUse hook answers"."""
    reply = ModelReplies((ToolCallBlock("c1", "bash", LS), ToolCallBlock("c2", "bash", LS)))
    *_, held, first, last = _model_on(
        GUARDED_BASH, SubmitUser("hi"), reply, HookAnswers(Pass()), HookAnswers(Pass())
    )
    assert held.events == ()
    assert _kinds(first) == ["hook/invoked c1", "hook/result c1"]
    assert _kinds(last) == [
        "hook/invoked c2",
        "hook/result c2",
        "assistant/message",
        "tool/call c1",
        "tool/call c2",
    ]
    assert "a `ModelReplies` some hook matches appends nothing" in TUTORIAL
    assert "each call's matching hooks in configured order" in TUTORIAL


def test_TEXT_1_an_empty_body_text_is_one_empty_block_as_the_tutorial_says() -> None:
    """TEXT-1: a body's empty success is one text block `""` and its empty failure `Error: `,
    where an empty context is none (ADJ-4); the tutorial said "its text as one text block",
    which a loop dropping empty blocks (as providers refuse them) could read either way."""
    texts = []
    for outcome in (ToolSucceeded(""), ToolFailed("")):
        reply = ModelReplies((ToolCallBlock("c1", "read", READ),))
        *_, settled = _model_on(
            LoopConfig(tools=(READ_TOOL,)), SubmitUser("hi"), reply, ToolFinishes("c1", outcome)
        )
        texts.append(settled.events[0]["data"]["message"]["content"][0]["content"])
    assert texts == [[{"type": "text", "text": ""}], [{"type": "text", "text": "Error: "}]]
    assert 'an empty text too (one block `""`, unlike an empty context below)' in TUTORIAL


@pytest.mark.parametrize(
    ("post", "delivered"),
    [
        ((PostContext("p1"), PostContext("p2")), ["b1", "b2", "p1", "p2"]),
        ((PostContext(""), PostContext("p2")), ["b1", "b2", "p2"]),
        ((PostBlock("no"), PostContext("p2")), ["p2"]),
    ],
)
def test_ADJ_4_DEC_3_post_hook_contexts_follow_the_bodys_as_the_tutorial_says(
    post: tuple[PostVerdict, ...], delivered: list[str]
) -> None:
    """ADJ-4, DEC-3: PostToolUse contexts are queued after the body's own, in configured
    order, an empty one being none, and a block drops the body's alone; the tutorial's
    `post-hooks` row said only that the hooks' contexts are "still queued"."""
    config = LoopConfig(
        tools=(READ_TOOL,),
        hooks=(HookSpec("h1", "PostToolUse", "*"), HookSpec("h2", "PostToolUse", "*")),
    )
    reply = ModelReplies((ToolCallBlock("c1", "read", READ),))
    finished = ToolFinishes("c1", ToolSucceeded("a", contexts=("b1", "b2")), post=post)
    *_, settled = _model_on(config, SubmitUser("hi"), reply, finished)
    messages = [e for e in settled.events if e["type"] == "user/message"]
    assert [e["data"]["content"][0]["text"] for e in messages] == delivered
    assert "a `PostContext`'s text is queued after the body's own contexts, in configured" in (
        TUTORIAL
    )


@pytest.mark.parametrize(
    ("finish", "kept"), [("max-tokens", [[]]), ("cancelled", [])], ids=["max-tokens", "cancelled"]
)
def test_STEP_4_ABORT_2_a_cut_reply_of_calls_alone_as_the_tutorial_says(
    finish: str, kept: list[list[object]]
) -> None:
    """STEP-4, ABORT-2: a max-tokens reply of calls alone is still an assistant/message, with
    empty content, where a cancelled one leaves none; the tutorial's `max-tokens` row said what
    each keeps but not that one writes an empty message and the other none."""
    reply = ModelReplies((ToolCallBlock("c1", "read", READ),), finish)
    *_, cut = _model_on(LoopConfig(tools=(READ_TOOL,)), SubmitUser("hi"), reply)
    messages = [e for e in cut.events if e["type"] == "assistant/message"]
    assert [e["data"]["message"]["content"] for e in messages] == kept
    assert "written even when nothing is left, with empty `content`: STEP-4" in TUTORIAL
    assert "and no `assistant/message` when none is: ABORT-2" in TUTORIAL


def test_ABORT_2_an_abort_while_hooks_run_keeps_the_replys_words_as_the_tutorial_says() -> None:
    """ABORT-2: an abort while a reply's PreToolUse hooks run writes the held reply as a
    cancelled one: interrupted, its non-blank text and reasoning alone, after the audit of the
    hook that answered. The transition table's row and ABORT-2's words had to be read together
    (a Go loop written from the docs, round 19); the tutorial's `abort` row now says it."""
    reply = ModelReplies(
        (
            ReasoningBlock("r"),
            TextBlock(" "),
            TextBlock("t"),
            ToolCallBlock("c1", "bash", LS),
            ToolCallBlock("c2", "bash", LS),
        )
    )
    *_, aborted = _model_on(
        GUARDED_BASH, SubmitUser("hi"), reply, HookAnswers(Pass()), Abort("user")
    )
    message = aborted.events[0]["data"]
    assert message["interrupted"] is True
    assert message["message"]["content"] == [
        {"type": "reasoning", "text": "r"},
        {"type": "text", "text": "t"},
    ]
    assert _kinds(aborted)[1:] == ["step/end", "turn/end"]
    assert "a reply held for its hooks is then written as a cancelled one is" in TUTORIAL


def test_TEXT_1_a_keys_repr_follows_the_running_pythons_unicode_as_spec_says() -> None:
    """TEXT-1: a missing key is quoted as `repr` quotes it, whose printable characters are the
    running Python's Unicode version's; section 9 names that version for each Python loopspec
    runs on (it named 3.11's alone, and a Go loop written from it asked which, round 19)."""
    unicode = ".".join(unicodedata.unidata_version.split(".")[:2])
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    said = " ".join(spec_text().split("\n## 9. ")[1].split("<!-- generated:wording")[0].split())
    assert f"{unicode} for {python}" in said
    assert "a character a later version assigned is escaped by an earlier Python" in said
