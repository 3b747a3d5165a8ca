"""RW and HOOK rules: the atomic three-reader rewrite and how hook answers combine."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from spec_helpers import calls, clean, results, run, types, wire, with_hooks

from loopspec.model.commands import (
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Deny,
    HookAnswers,
    HookAudit,
    ModelReplies,
    Pass,
    PreVerdict,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec
from loopspec.model.derive import derive_messages
from loopspec.model.events import HookResulted, ToolCallRecorded
from loopspec.model.facts import fact_from_wire
from loopspec.model.invariants import check_facts
from loopspec.model.jsonvalue import parse_arguments
from loopspec.model.messages import AssistantMessage, ToolCallBlock
from loopspec.model.replay import ApprovalShown, CallShown, present_log
from loopspec.model.rewrite import resolve_call
from loopspec.model.state import HookVote, LoopState
from loopspec.properties.conformance.run import spec_text
from loopspec.properties.logcheck.checker import check_stream
from loopspec.properties.logcheck.synth import HEADER, jsonl, renumber
from loopspec.properties.stateful.state_checks import all_violations

BASH = ToolCallBlock("c1", "bash", '{"command":"rm -rf build"}')
SAFE = {"command": "rm -rf ./build --one-file-system"}
TWO_HOOKS = with_hooks(
    HookSpec("first", "PreToolUse", "bash"), HookSpec("second", "PreToolUse", "bash")
)


def _program(*verdicts: PreVerdict) -> list[Command]:
    return [SubmitUser("clean"), ModelReplies((BASH,)), *(HookAnswers(v) for v in verdicts)]


def _record(state: LoopState) -> ToolCallRecorded:
    (record,) = calls(state.log)
    return record


def _history_arguments(state: LoopState) -> str:
    for message in derive_messages(state.log):
        if isinstance(message, AssistantMessage) and message.tool_calls:
            return message.tool_calls[0].arguments
    raise AssertionError("no call in history")


def test_RW_1_rewrite_reaches_history_audit_presentation_and_execution() -> None:
    """RW-1: after a rewrite, all four readers hold the same value."""
    state = run(TWO_HOOKS, [*_program(Pass(), Allow(SAFE))])
    effective = _record(state).arguments
    assert json.loads(effective) == SAFE
    assert _history_arguments(state) == effective
    shown = [s for s in present_log(state.log) if isinstance(s, CallShown)]
    assert shown[0].arguments == parse_arguments(effective)
    assert shown[0].view.title == SAFE["command"]
    assert [e.arguments for e in state.executions] == [effective]
    assert all_violations(state) == []


def test_RW_1_an_execution_only_rewrite_is_caught() -> None:
    """RW-1: a log whose audit record disagrees with history is a violation."""
    log = wire(run(TWO_HOOKS, [*_program(Pass(), Allow(SAFE))]).log)
    for obj in log:
        if obj["type"] == "tool/call":
            data = obj["data"]
            assert isinstance(data, dict)
            data["arguments"] = BASH.arguments
            data.pop("rewrite")
    rules = {v.rule_id for v in check_facts(fact_from_wire(o) for o in log)}
    assert "RW-1" in rules


def test_RW_2_sidecar_keeps_the_original_and_names_the_hooks() -> None:
    """RW-2: the sidecar holds the model's string; hooks in configured order, winner last."""
    state = run(TWO_HOOKS, [*_program(Allow({"command": "echo one"}), Allow(SAFE))])
    sidecar = _record(state).rewrite
    assert sidecar is not None
    assert sidecar.original_arguments == BASH.arguments
    assert sidecar.handler_ids == ("first", "second")
    assert json.loads(_record(state).arguments) == SAFE


def test_RW_2_identical_replacement_is_still_recorded() -> None:
    """RW-2: a hook that supplies the same input still leaves a sidecar (a hook decided it)."""
    state = run(TWO_HOOKS, [*_program(Pass(), Allow({"command": "rm -rf build"}))])
    record = _record(state)
    assert record.rewrite is not None
    assert record.rewrite.original_arguments == BASH.arguments


def test_RW_2_dropped_sidecar_is_caught() -> None:
    """RW-2: a hook's applied input without a sidecar is reported when the call succeeds."""
    program = [*_program(Pass(), Allow(SAFE)), ToolFinishes("c1", ToolSucceeded("ok"))]
    log = wire(run(TWO_HOOKS, program).log)
    for obj in log:
        if obj["type"] == "tool/call":
            data = obj["data"]
            assert isinstance(data, dict)
            data.pop("rewrite")
    rules = {v.rule_id for v in check_facts(fact_from_wire(o) for o in log)}
    assert rules == {"RW-2"}


def test_RW_3_hooks_answer_before_the_reply_is_committed() -> None:
    """RW-3: hook audit first; then the reply and every call record in one commit."""
    state = run(TWO_HOOKS, [*_program(Pass(), Allow(SAFE))])
    assert types(state.log)[3:] == [
        "hook/invoked",
        "hook/result",
        "hook/invoked",
        "hook/result",
        "assistant/message",
        "tool/call",
    ]
    reply_index = types(state.log).index("assistant/message")
    assert reply_index + 2 in state.commit_ends or state.commit_ends[-1] >= reply_index + 2
    commit_of = [
        next(i for i, end in enumerate(state.commit_ends) if seq < end)
        for seq in range(len(state.log))
    ]
    assert commit_of[reply_index] == commit_of[reply_index + 1]


def test_RW_3_nothing_of_the_reply_exists_while_hooks_decide() -> None:
    """RW-3: between the reply and the last hook answer, no reader can see the call."""
    state = run(TWO_HOOKS, _program(Pass()))
    assert "assistant/message" not in types(state.log)
    assert derive_messages(state.log)[-1].ROLE == "user"


def test_RW_4_approval_shows_and_runs_the_rewritten_input() -> None:
    """RW-4: ask + rewrite: the prompt shows the effective input and approval runs it."""
    state = run(TWO_HOOKS, [*_program(Ask("check"), Allow(SAFE)), ApprovalAnswers("allowed-once")])
    effective = _record(state).arguments
    asked = [s for s in present_log(state.log) if isinstance(s, ApprovalShown)]
    assert asked[0].arguments == parse_arguments(effective)
    tool_call = asked[0].request["toolCall"]
    assert isinstance(tool_call, dict)
    assert tool_call["rawInput"] == SAFE
    assert [e.arguments for e in state.executions] == [effective]


def test_RW_4_an_approval_showing_the_original_is_caught() -> None:
    """RW-4: an approval request that shows other arguments than the record is a violation."""
    log = wire(run(TWO_HOOKS, _program(Ask("check"), Allow(SAFE))).log)
    for obj in log:
        if obj["type"] == "approval/asked":
            data = obj["data"]
            assert isinstance(data, dict)
            data["arguments"] = BASH.arguments
    assert {v.rule_id for v in check_facts(fact_from_wire(o) for o in log)} == {"RW-4"}


def test_HOOK_1_every_result_answers_an_invocation() -> None:
    """HOOK-1: hook pairs are in the turn; an unpaired hook/result is reported."""
    log = wire(run(TWO_HOOKS, _program(Pass(), Pass())).log)
    first_invoked = next(i for i, o in enumerate(log) if o["type"] == "hook/invoked")
    del log[first_invoked]
    for seq, obj in enumerate(log):
        obj["seq"] = seq
        if "sourceEventSeqs" in obj:
            obj["sourceEventSeqs"] = [s - 1 for s in obj["sourceEventSeqs"]]  # type: ignore[attr-defined]
    assert {v.rule_id for v in check_facts(fact_from_wire(o) for o in log)} == {"HOOK-1"}


DECISIONS: list[tuple[PreVerdict, PreVerdict, str]] = [
    (Pass(), Pass(), "runs"),
    (Allow(), Pass(), "runs"),
    (Ask(), Allow(), "asks"),
    (Allow(), Ask(), "asks"),
    (Deny("no"), Allow(), "denied"),
    (Ask(), Deny("no"), "denied"),
]


@pytest.mark.parametrize(("a", "b", "outcome"), DECISIONS)
def test_HOOK_2_deny_beats_ask_beats_allow_beats_pass(
    a: PreVerdict, b: PreVerdict, outcome: str
) -> None:
    """HOOK-2: the strictest answer decides, whichever hook gives it."""
    state = run(TWO_HOOKS, _program(a, b))
    observed = (
        "asks"
        if "approval/asked" in types(state.log)
        else "denied"
        if results(state.log)
        else "runs"
    )
    assert observed == outcome


def test_HOOK_2_reasons_of_the_winning_rank_are_joined() -> None:
    """HOOK-2: two denies: both reasons reach the model."""
    state = run(TWO_HOOKS, _program(Deny("too risky"), Deny("not on fridays")))
    assert results(state.log)[0].message.text == "Error: too risky; not on fridays"


def test_HOOK_3_passthrough_never_erases_and_deny_discards() -> None:
    """HOOK-3: a later passthrough keeps the rewrite; any deny discards every rewrite."""
    kept = run(TWO_HOOKS, _program(Allow(SAFE), Pass()))
    assert json.loads(_record(kept).arguments) == SAFE
    discarded = run(TWO_HOOKS, _program(Allow(SAFE), Deny("no")))
    assert _record(discarded).arguments == BASH.arguments
    assert _record(discarded).rewrite is None


answer_orders = st.permutations([0, 1])


@given(answer_orders)
def test_HOOK_3_result_is_independent_of_completion_order(order: list[int]) -> None:
    """HOOK-3: answers are combined in configured order, so finishing order cannot matter.

    The votes reach the merge in the order the hooks finished (`order`), unsorted: the merge
    itself must put them in configured order, so the second configured hook's input wins.
    """
    answers: list[PreVerdict] = [Allow({"command": "echo one"}), Allow(SAFE)]
    votes = tuple(HookVote(0, ("first", "second")[i], answers[i]) for i in order)
    resolution = resolve_call(BASH, votes, TWO_HOOKS)
    assert json.loads(resolution.arguments) == SAFE
    assert resolution.sidecar is not None
    assert resolution.sidecar.handler_ids == ("first", "second")


def test_HOOK_4_each_hook_answers_once_per_call() -> None:
    """HOOK-4: two calls, two hooks: four answers, each (call, hook) once; the gate asks none."""
    program: list[Command] = [
        SubmitUser("a"),
        ModelReplies((BASH, ToolCallBlock("c2", "bash", '{"command":"ls"}'))),
        HookAnswers(Pass()),
        HookAnswers(Ask()),
        HookAnswers(Pass()),
        HookAnswers(Pass()),
        ApprovalAnswers("allowed-once"),
    ]
    state = run(TWO_HOOKS, program)
    answered = [(e.call_id, e.handler_id) for e in state.log if isinstance(e, HookResulted)]
    assert answered == [("c1", "first"), ("c1", "second"), ("c2", "first"), ("c2", "second")]
    assert clean(state.log) == []


def test_HOOK_4_a_second_run_is_caught() -> None:
    """HOOK-4: a hook invoked twice for one call is reported."""
    log = wire(run(TWO_HOOKS, _program(Pass(), Pass())).log)
    pair = [dict(o) for o in log if str(o["type"]).startswith("hook/")][:2]
    insert_at = next(i for i, o in enumerate(log) if o["type"] == "assistant/message")
    log[insert_at:insert_at] = pair
    for seq, obj in enumerate(log):
        obj["seq"] = seq
        if "sourceEventSeqs" in obj:
            obj["sourceEventSeqs"] = [s + 2 for s in obj["sourceEventSeqs"]]  # type: ignore[attr-defined]
    assert {v.rule_id for v in check_facts(fact_from_wire(o) for o in log)} == {"HOOK-4"}


def _blamed_with_arguments(raw: str, *, hooks_after_reply: bool) -> list[tuple[str, int]]:
    """(rule, seq) of each violation `loopspec check` reports, shortcuts on and off alike, in the
    log of two passing hooks for c1 whose reply and record show `raw` as c1's arguments, the
    hooks' audit before the reply (the model's order) or after the call record (as the real
    CLIs' harness drivers write it)."""
    rows = wire(run(TWO_HOOKS, [*_program(Pass(), Pass())]).log)
    reply = next(o for o in rows if o["type"] == "assistant/message")
    reply["data"]["message"]["content"][0]["arguments"] = raw  # type: ignore[index]
    record = next(o for o in rows if o["type"] == "tool/call")
    record["data"]["arguments"] = raw  # type: ignore[index]
    if hooks_after_reply:
        audit = [o for o in rows if str(o["type"]).startswith("hook/")]
        rows = [o for o in rows if not str(o["type"]).startswith("hook/")]
        at = next(i for i, o in enumerate(rows) if o["type"] == "tool/call") + 1
        rows[at:at] = [{**o, "seq": None} for o in audit]
    data = jsonl(HEADER, renumber(rows)).encode()
    report = check_stream("hook-4", io.BytesIO(data))
    assert report == check_stream("hook-4", io.BytesIO(data), quick=False)
    assert not report.errors
    return [(found.violation.rule_id, found.violation.seq) for found in report.violations]


@pytest.mark.parametrize("raw", ["[1]", "not json", '{"x": -0.0}', '"ls"'])
def test_HOOK_4_hooks_for_a_call_whose_arguments_are_no_object_are_blamed(raw: str) -> None:
    """HOOK-4, EXE-5: no hook sees a call whose arguments are not a JSON object (EXE-2 parses
    -0.0 as no value, so that call too). Audited before the reply, the reply showing the call is
    blamed (seq 7); audited after the call record, each hook (seqs 5 and 7). Blank arguments are
    {}: hooks may run."""
    assert _blamed_with_arguments(raw, hooks_after_reply=False) == [("HOOK-4", 7)]
    assert _blamed_with_arguments(raw, hooks_after_reply=True) == [("HOOK-4", 5), ("HOOK-4", 7)]
    for valid in ("", '{"command": "ls"}'):
        assert _blamed_with_arguments(valid, hooks_after_reply=False) == []
        assert _blamed_with_arguments(valid, hooks_after_reply=True) == []


BAD_REWRITES: list[tuple[object, str]] = [
    ("rm -rf /", "the input must be a JSON object"),
    ({"cmd": "ls"}, "missing required 'command'"),
]


@pytest.mark.parametrize(("rewrite", "why"), BAD_REWRITES)
def test_HOOK_6_unacceptable_rewrites_are_refused_never_run(rewrite: object, why: str) -> None:
    """HOOK-6: a bad rewrite denies the call with a reason; the original stays on record."""
    state = run(TWO_HOOKS, _program(Pass(), Allow(rewrite)))
    assert _record(state).arguments == BASH.arguments
    assert _record(state).rewrite is None
    assert why in results(state.log)[0].message.text
    assert "second" in results(state.log)[0].message.text
    assert state.executions == ()
    assert clean(state.log) == []


def _mutate_first(
    log: list[dict[str, object]], kind: str, change: Callable[[dict[str, object]], None]
) -> None:
    obj = next(o for o in log if o["type"] == kind)
    data = obj["data"]
    assert isinstance(data, dict)
    change(data)


def test_RW_2_sidecar_naming_an_unaudited_hook_is_caught() -> None:
    """RW-2: a sidecar that names a hook with no audited rewrite for the call is reported."""
    log = wire(run(TWO_HOOKS, _program(Pass(), Allow(SAFE))).log)
    _mutate_first(
        log,
        "tool/call",
        lambda d: d.update(rewrite={"originalArguments": BASH.arguments, "handlerIds": ["ghost"]}),
    )
    assert {v.rule_id for v in check_facts(fact_from_wire(o) for o in log)} == {"RW-2"}


def test_HOOK_1_audit_records_how_a_real_hook_ran() -> None:
    """HOOK-1: exit code, stderr, duration and the decision word of a hook reach hook/result."""
    audit = HookAudit(decision="block", exit_code=2, stderr_summary="no rm", duration_ms=12.5)
    state = run(
        TWO_HOOKS,
        [
            SubmitUser("clean"),
            ModelReplies((BASH,)),
            HookAnswers(Deny("no rm"), audit),
            HookAnswers(Pass()),
        ],
    )
    first = next(e for e in state.log if isinstance(e, HookResulted))
    assert (first.decision, first.exit_code, first.stderr_summary, first.duration_ms) == (
        "block",
        2,
        "no rm",
        12.5,
    )
    assert clean(state.log) == []


def test_HOOK_6_an_unacceptable_input_a_later_hook_replaces_is_not_judged() -> None:
    """HOOK-6 with HOOK-3: only the input in effect is judged. The first hook supplies a list,
    the second a good object: the call runs the second's input and the sidecar names both. The
    prose said "a supplied input that is not a JSON object denies the call", which read as if
    the first hook's list denied it; it now says the input in effect is judged."""
    state = run(TWO_HOOKS, _program(Allow([1]), Allow(SAFE)))
    record = _record(state)
    assert json.loads(record.arguments) == SAFE
    assert record.rewrite is not None
    assert record.rewrite.handler_ids == ("first", "second")
    assert "An earlier hook's input that a later one replaces is not judged" in spec_text("HOOK-6")


def test_EXE_2_the_integer_minus_zero_is_zero_and_a_float_one_stays_raw() -> None:
    """EXE-2: `-0` written as an integer is 0 (Python's `json` reads it so; JavaScript's
    `JSON.parse` reads -0, so a JavaScript loop must not take "-0 is refused", LOG-3, for it),
    while `-0.0` and `-0e0` are float negative zeros, not lossless, and stay the raw string.
    SPEC gave only `{"x":-0.0}`; it now says which is which."""
    assert parse_arguments('{"n":-0}') == {"n": 0}
    for raw in ('{"n":-0.0}', '{"n":-0e0}'):
        assert parse_arguments(raw) == raw
    assert "the integer `-0` is `0`" in spec_text("EXE-2")
