"""TURN, STEP, ORD, ADJ, EXE, DEC, SCHED, ABORT, REC: the loop's structure, shown by programs."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import pytest
from spec_helpers import PLAIN, calls, clean, results, run, types, wire, with_hooks

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
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.errors import TransitionRefused
from loopspec.model.events import (
    AssistantMessageRecorded,
    StepEnded,
    StepStarted,
    TurnEnded,
    TurnStarted,
    UserMessageRecorded,
)
from loopspec.model.facts import fact_from_wire
from loopspec.model.invariants import check_facts
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.model.repair import interrupted_turn_closers
from loopspec.model.state import Idle
from loopspec.properties.conformance.impl_target import bundled_target
from loopspec.properties.conformance.process_target import comparable
from loopspec.properties.conformance.run import spec_text
from loopspec.properties.conformance.target import ModelTarget
from loopspec.properties.logcheck.checker import check_stream
from loopspec.properties.logcheck.synth import HEADER, as_harness_writes, jsonl, renumber

READ_A = ToolCallBlock("c1", "read", '{"file_path":"a"}')
READ_B = ToolCallBlock("c2", "read", '{"file_path":"b"}')
BASH = ToolCallBlock("c3", "bash", '{"command":"ls"}')


def _violations_after_edit(
    program: list[Command], edit: Callable[[list[dict[str, object]]], None]
) -> list[str]:
    """Rule IDs the invariants report after `edit(wire_log)` mutates a valid log."""
    log = wire(run(PLAIN, program).log)
    edit(log)
    return sorted({v.rule_id for v in check_facts(fact_from_wire(o) for o in log)})


def test_TURN_1_turns_count_from_one_and_never_nest() -> None:
    """TURN-1: each user turn opens the next number; a second turn/start inside is reported."""
    state = run(PLAIN, [SubmitUser("a"), ModelReplies((TextBlock("b"),)), SubmitUser("c")])
    assert [e.turn for e in state.log if isinstance(e, TurnStarted)] == [1, 2]

    def nest(log: list[dict[str, object]]) -> None:
        log.insert(2, {"type": "turn/start", "seq": 2, "time": 0, "data": {"turn": 2}})
        for seq, obj in enumerate(log):
            obj["seq"] = seq

    assert "TURN-1" in _violations_after_edit(
        [SubmitUser("a"), ModelReplies((TextBlock("b"),))], nest
    )


def test_TURN_2_turn_end_needs_the_step_closed() -> None:
    """TURN-2: turn/end with a step open is reported."""

    def drop_step_end(log: list[dict[str, object]]) -> None:
        index = next(i for i, o in enumerate(log) if o["type"] == "step/end")
        del log[index]
        for seq, obj in enumerate(log):
            obj["seq"] = seq

    rules = _violations_after_edit(
        [SubmitUser("a"), ModelReplies((TextBlock("b"),))], drop_step_end
    )
    assert rules == ["TURN-2"]


def test_TURN_3_loop_events_need_an_open_turn() -> None:
    """TURN-3: a step outside a turn is reported; a user message between turns is fine."""

    def add_outside(log: list[dict[str, object]]) -> None:
        log.append(
            {
                "type": "user/message",
                "seq": len(log),
                "time": 0,
                "surfaceOp": "append",
                "data": {"role": "user", "content": [], "source": {"kind": "user"}},
            }
        )
        log.append(
            {"type": "step/start", "seq": len(log), "time": 0, "data": {"turn": 1, "step": 9}}
        )

    assert _violations_after_edit(
        [SubmitUser("a"), ModelReplies((TextBlock("b"),))], add_outside
    ) == ["TURN-3"]


def test_TURN_5_every_turn_ends_with_a_reason_kind() -> None:
    """TURN-5: completed, error and aborted turns say why."""
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies((TextBlock("b"),)),
            SubmitUser("c"),
            ModelFails("overloaded", "OVERLOADED"),
            SubmitUser("d"),
            Abort(),
        ],
    )
    reasons = [e.reason_kind for e in state.log if isinstance(e, TurnEnded)]
    assert reasons == ["completed", "error", "aborted"]
    assert clean(state.log) == []


def test_STEP_1_STEP_2_steps_count_within_the_turn() -> None:
    """STEP-1, STEP-2: steps restart at 1 each turn and each step/end closes its step."""
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies((READ_A,)),
            ToolFinishes("c1", ToolSucceeded("A")),
            ModelReplies((TextBlock("b"),)),
            SubmitUser("c"),
            ModelReplies((TextBlock("d"),)),
        ],
    )
    starts = [(e.turn, e.step) for e in state.log if isinstance(e, StepStarted)]
    ends = [(e.turn, e.step) for e in state.log if isinstance(e, StepEnded)]
    assert starts == ends == [(1, 1), (1, 2), (2, 1)]


def test_STEP_3_results_belong_to_the_open_step() -> None:
    """STEP-3: a result that names another step is reported (a result in the wrong turn)."""

    def misfile(log: list[dict[str, object]]) -> None:
        result = next(o for o in log if o["type"] == "tool/result")
        data = result["data"]
        assert isinstance(data, dict)
        data["step"] = 2

    rules = _violations_after_edit(
        [SubmitUser("a"), ModelReplies((READ_A,)), ToolFinishes("c1", ToolSucceeded("A"))], misfile
    )
    assert rules == ["STEP-3"]


def test_STEP_4_max_tokens_drops_calls_and_ends_the_turn() -> None:
    """STEP-4: a truncated reply keeps its text and reasoning, blank blocks too (a cancelled one
    drops them, ABORT-2), runs nothing, ends the turn max-tokens."""
    kept = (TextBlock("partial"), TextBlock(" "), ReasoningBlock(""))
    state = run(PLAIN, [SubmitUser("a"), ModelReplies((*kept, READ_A), "max-tokens")])
    reply = next(e for e in state.log if isinstance(e, AssistantMessageRecorded))
    assert reply.message.content == kept
    assert calls(state.log) == []
    last = state.log[-1]
    assert isinstance(last, TurnEnded)
    assert last.reason_kind == "max-tokens"


def test_STEP_4_queued_message_opens_another_step_instead_of_ending() -> None:
    """STEP-4, ADJ-4: a completed reply with a message queued starts the next step."""
    state = run(PLAIN, [SubmitUser("a"), SubmitUser("also this"), ModelReplies((TextBlock("b"),))])
    assert types(state.log)[-2:] == ["step/start", "user/message"]
    assert isinstance(state.log[-1], UserMessageRecorded)


def test_ORD_1_reply_precedes_its_call_records() -> None:
    """ORD-1: the reply comes first, then one tool/call per call, in model order."""
    state = run(PLAIN, [SubmitUser("a"), ModelReplies((READ_A, READ_B))])
    assert types(state.log)[3:6] == ["assistant/message", "tool/call", "tool/call"]
    assert [c.call_id for c in calls(state.log)] == ["c1", "c2"]


def test_ORD_2_results_cite_their_call_records() -> None:
    """ORD-2: each result cites its tool/call's seq; dropping the citation is reported."""
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies((READ_A, READ_B)),
            ToolFinishes("c1", ToolSucceeded("A")),
            ToolFinishes("c2", ToolSucceeded("B")),
        ],
    )
    seq_of = {c.call_id: c.seq for c in calls(state.log)}
    assert [(r.call_id, r.sources) for r in results(state.log)] == [
        ("c1", (seq_of["c1"],)),
        ("c2", (seq_of["c2"],)),
    ]

    def uncite(log: list[dict[str, object]]) -> None:
        next(o for o in log if o["type"] == "tool/result").pop("sourceEventSeqs")

    rules = _violations_after_edit(
        [SubmitUser("a"), ModelReplies((READ_A,)), ToolFinishes("c1", ToolSucceeded("A"))], uncite
    )
    assert rules == ["ORD-2"]


def test_ORD_2_a_call_record_naming_another_tool_is_reported() -> None:
    """ORD-2: a tool/call record whose tool name is not that of the reply's call with its id is
    reported, naming both (until this test, only generated programs reached this check)."""
    log = wire(run(PLAIN, [SubmitUser("a"), ModelReplies((READ_A,))]).log)
    data = next(o for o in log if o["type"] == "tool/call")["data"]
    assert isinstance(data, dict)
    data["name"] = "bash"
    (violation,) = check_facts(fact_from_wire(o) for o in log)
    assert violation.rule_id == "ORD-2"
    assert violation.message == "tool/call names bash, the reply read"


def test_ORD_3_results_commit_in_model_order_whatever_finishes_first() -> None:
    """ORD-3: c2 finishing first still commits after c1; swapping them is reported."""
    program: list[Command] = [
        SubmitUser("a"),
        ModelReplies((READ_A, READ_B)),
        ToolFinishes("c2", ToolSucceeded("B")),
        ToolFinishes("c1", ToolSucceeded("A")),
    ]
    state = run(PLAIN, program)
    assert [r.call_id for r in results(state.log)] == ["c1", "c2"]

    def swap(log: list[dict[str, object]]) -> None:
        first = next(i for i, o in enumerate(log) if o["type"] == "tool/result")
        log[first], log[first + 1] = log[first + 1], log[first]
        log[first]["seq"], log[first + 1]["seq"] = first, first + 1

    assert _violations_after_edit(program, swap) == ["ORD-3"]


def test_ADJ_1_contexts_wait_for_the_next_step() -> None:
    """ADJ-1, ADJ-4: a tool's context appears after the next step/start, never between results."""
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies((READ_A, READ_B)),
            ToolFinishes("c1", ToolSucceeded("A", contexts=("note",))),
            ToolFinishes("c2", ToolSucceeded("B")),
        ],
    )
    tail = types(state.log)[6:]
    assert tail == ["tool/result", "tool/result", "step/end", "step/start", "user/message"]
    assert clean(state.log) == []


def test_ADJ_1_a_message_between_call_and_result_is_reported() -> None:
    """ADJ-1: a context slipped between a call and its result is a violation."""

    def slip(log: list[dict[str, object]]) -> None:
        index = next(i for i, o in enumerate(log) if o["type"] == "tool/result")
        log.insert(
            index,
            {
                "type": "user/message",
                "seq": 0,
                "time": 0,
                "surfaceOp": "append",
                "data": {"role": "user", "content": [], "source": {"kind": "plugin"}},
            },
        )
        for seq, obj in enumerate(log):
            obj["seq"] = seq
        result = log[index + 1]
        result["sourceEventSeqs"] = [index - 1]

    rules = _violations_after_edit(
        [SubmitUser("a"), ModelReplies((READ_A,)), ToolFinishes("c1", ToolSucceeded("A"))], slip
    )
    assert rules == ["ADJ-1"]


def test_ADJ_2_orphan_and_duplicate_results_are_reported() -> None:
    """ADJ-2: a second result for the same call is reported."""

    def duplicate(log: list[dict[str, object]]) -> None:
        index = next(i for i, o in enumerate(log) if o["type"] == "tool/result")
        copy = dict(log[index])
        log.insert(index + 1, copy)
        for seq, obj in enumerate(log):
            obj["seq"] = seq

    rules = _violations_after_edit(
        [SubmitUser("a"), ModelReplies((READ_A,)), ToolFinishes("c1", ToolSucceeded("A"))],
        duplicate,
    )
    assert rules == ["ADJ-2"]


def test_ADJ_3_a_turn_cannot_end_with_an_unanswered_call() -> None:
    """ADJ-3: removing a result leaves a shown call unanswered when the turn ends."""

    def drop_result(log: list[dict[str, object]]) -> None:
        index = next(i for i, o in enumerate(log) if o["type"] == "tool/result")
        del log[index]
        for seq, obj in enumerate(log):
            obj["seq"] = seq

    rules = _violations_after_edit(
        [
            SubmitUser("a"),
            ModelReplies((READ_A,)),
            ToolFinishes("c1", ToolSucceeded("A")),
            ModelReplies((TextBlock("done"),)),
        ],
        drop_result,
    )
    assert rules == ["ADJ-3"]


def test_ADJ_4_user_typing_mid_batch_waits_for_the_step_boundary() -> None:
    """ADJ-4: a message typed while tools run lands after the next step/start, FIFO."""
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies((READ_A,)),
            SubmitUser("first"),
            SubmitUser("second"),
            ToolFinishes("c1", ToolSucceeded("A")),
        ],
    )
    texts = [e.message.content for e in state.log[-2:] if isinstance(e, UserMessageRecorded)]
    assert texts == [(TextBlock("first"),), (TextBlock("second"),)]
    assert types(state.log)[-4:-2] == ["step/end", "step/start"]


def test_ADJ_4_contexts_join_the_queue_when_their_result_commits() -> None:
    """ADJ-4: a call's contexts are queued when its result commits (model order), not when its
    body finishes: c2 finishes first, yet c1's contexts come first; within a call, the body's
    own contexts precede its PostToolUse hook's."""
    config = with_hooks(HookSpec("note", "PostToolUse", "read"))
    state = run(
        config,
        [
            SubmitUser("a"),
            ModelReplies((READ_A, READ_B)),
            ToolFinishes("c2", ToolSucceeded("B", ("c2 body",)), (PostContext("c2 hook"),)),
            ToolFinishes("c1", ToolSucceeded("A", ("c1 body",)), (PostContext("c1 hook"),)),
        ],
    )
    messages = [e.message.content for e in state.log if isinstance(e, UserMessageRecorded)]
    delivered = messages[1:]  # after the prompt
    assert delivered == [
        (TextBlock("c1 body"),),
        (TextBlock("c1 hook"),),
        (TextBlock("c2 body"),),
        (TextBlock("c2 hook"),),
    ]


EMPTY_CONTEXT_PROGRAM: tuple[Command, ...] = (
    SubmitUser("a"),
    ModelReplies((READ_A,)),
    ToolFinishes("c1", ToolSucceeded("A"), (PostContext(""), PostContext(" \n"))),
    ModelReplies((TextBlock("done"),)),
)


def test_ADJ_4_an_empty_post_context_adds_no_message_a_blank_one_does() -> None:
    """ADJ-4: a PostToolUse hook's empty context ("") is no context, as Claude Code and dsh
    read an empty additionalContext: nothing is queued, so no empty user/message (which a
    provider refuses) reaches the next step. A whitespace-only context is delivered as given,
    as every real harness does; the hook's audit still records its answer."""
    config = with_hooks(
        HookSpec("quiet", "PostToolUse", "read"), HookSpec("blank", "PostToolUse", "*")
    )
    state = run(config, EMPTY_CONTEXT_PROGRAM)
    messages = [e.message.content for e in state.log if isinstance(e, UserMessageRecorded)]
    assert messages == [(TextBlock("a"),), (TextBlock(" \n"),)]
    assert types(state.log).count("hook/result") == 2
    assert clean(state.log) == []


def test_ADJ_4_the_bundled_impl_drops_an_empty_post_context_as_the_model_does() -> None:
    """ADJ-4: the implementation, given the same verdicts, appends what the model appends."""
    config = with_hooks(
        HookSpec("quiet", "PostToolUse", "read"), HookSpec("blank", "PostToolUse", "*")
    )
    model, impl = ModelTarget(), bundled_target()
    model.reset(config)
    impl.reset(config)
    try:
        for command in EMPTY_CONTEXT_PROGRAM:
            assert comparable(impl.apply(command)) == comparable(model.apply(command)), command
    finally:
        impl.close()


# A context that arose in a step, as the model would append it at the next step/start.
LATE_CONTEXT: dict[str, object] = {
    "type": "user/message",
    "seq": None,
    "time": 0,
    "surfaceOp": "append",
    "data": {
        "id": "late",
        "role": "user",
        "content": [{"type": "text", "text": "a note"}],
        "source": {"kind": "plugin", "plugin": "tool-context"},
    },
}
GUARDED = with_hooks(HookSpec("guard", "PreToolUse", "bash"))
ONE_READ: list[Command] = [
    SubmitUser("a"),
    ModelReplies((READ_A,)),
    ToolFinishes("c1", ToolSucceeded("A")),
]
TEXT_ONLY: list[Command] = [SubmitUser("a"), ModelReplies((TextBlock("b"),))]


def _blamed_with_message(
    config: LoopConfig,
    program: list[Command],
    place: Callable[[list[str]], int],
    rows: list[dict[str, object]] | None = None,
) -> tuple[list[tuple[str, int]], int]:
    """(rule, seq) of each violation `loopspec check` reports, shortcuts on and off alike, in
    the model's log of `program` (or `rows`) with LATE_CONTEXT inserted at `place(types)`; and
    the seq the message got."""
    rows = wire(run(config, program).log) if rows is None else rows
    at = place([str(row["type"]) for row in rows])
    rows.insert(at, dict(LATE_CONTEXT))
    data = jsonl(HEADER, renumber(rows)).encode()
    report = check_stream("adj-4", io.BytesIO(data))
    assert report == check_stream("adj-4", io.BytesIO(data), quick=False)
    assert not report.errors
    return [(found.violation.rule_id, found.violation.seq) for found in report.violations], at


@pytest.mark.parametrize(
    ("config", "program", "place"),
    [
        pytest.param(
            PLAIN, ONE_READ, lambda t: t.index("tool/result") + 1, id="after-the-last-result"
        ),
        pytest.param(
            PLAIN, TEXT_ONLY, lambda t: t.index("assistant/message") + 1, id="after-a-text-reply"
        ),
        pytest.param(
            PLAIN,
            [*ONE_READ, ModelReplies((TextBlock("b"),))],
            lambda t: t.index("step/end") + 1,
            id="between-two-steps",
        ),
        pytest.param(PLAIN, TEXT_ONLY, lambda t: t.index("turn/end"), id="after-the-last-step"),
        pytest.param(
            GUARDED,
            [
                SubmitUser("a"),
                ModelReplies((BASH,)),
                HookAnswers(Pass()),
                ToolFinishes("c3", ToolSucceeded("x")),
            ],
            lambda t: t.index("assistant/message"),
            id="during-the-pre-tool-hooks",
        ),
    ],
)
def test_ADJ_4_a_message_appended_mid_step_or_between_steps_is_blamed(
    config: LoopConfig, program: list[Command], place: Callable[[list[str]], int]
) -> None:
    """ADJ-4: in a turn, a message appended after its step's reply, results or tool hooks, or
    outside a step once the first began, is blamed at its own seq, and only on ADJ-4 (no call
    awaits a result there, so ADJ-1 holds: the history alone looks the same)."""
    blamed, at = _blamed_with_message(config, program, place)
    assert blamed == [("ADJ-4", at)]


def test_ADJ_1_ADJ_4_a_message_while_calls_await_results_is_blamed_on_ADJ_1_alone() -> None:
    """ADJ-1, ADJ-4: a message between a call and its result breaks both; ADJ-1, the precise
    rule (providers reject that history), is the one blamed."""
    blamed, at = _blamed_with_message(PLAIN, ONE_READ, lambda t: t.index("tool/result"))
    assert blamed == [("ADJ-1", at)]


def test_ADJ_4_messages_at_the_step_boundary_keep_the_rule() -> None:
    """ADJ-4: what a log cannot show wrong is not flagged: the model's queued messages (a typed
    one and a tool's context) after the next step/start with a harness's plugin events among
    them; the turn's own message before its first step (dsh writes it there); a message between
    turns (TURN-3 allows it)."""
    program: list[Command] = [
        SubmitUser("a"),
        ModelReplies((READ_A,)),
        SubmitUser("typed meanwhile"),
        ToolFinishes("c1", ToolSucceeded("A", contexts=("note",))),
        ModelReplies((TextBlock("b"),)),
    ]
    rows = as_harness_writes(wire(run(PLAIN, program).log))
    data = jsonl(HEADER, rows).encode()
    assert [t for t in (str(r["type"]) for r in rows) if t != "assistant/chunk"].count(
        "user/message"
    ) == 3
    assert check_stream("queued", io.BytesIO(data)).violations == []
    assert check_stream("queued", io.BytesIO(data), quick=False).violations == []
    dsh_layout = wire(run(PLAIN, TEXT_ONLY).log)
    dsh_layout.insert(1, dsh_layout.pop(2))  # turn/start, user/message, step/start
    blamed, _ = _blamed_with_message(PLAIN, [], lambda t: t.index("step/start"), dsh_layout)
    assert blamed == []
    blamed, _ = _blamed_with_message(PLAIN, TEXT_ONLY, len)
    assert blamed == []


@pytest.mark.parametrize(
    ("calls_before", "max_parallel", "expected"),
    [
        ((READ_A, BASH), 10, "ABORTED_BEFORE_DISPATCH"),  # bash waits for c1: the gate is held
        ((READ_A, READ_B), 1, "ABORTED_BEFORE_DISPATCH"),  # c2 waits for a free slot
        ((READ_A,), 1, "INVALID_TOOL_INPUT"),  # no free slot needed: it passed the gate
    ],
)
def test_EXE_5_invalid_input_ends_when_the_call_reaches_the_gate(
    calls_before: tuple[ToolCallBlock, ...], max_parallel: int, expected: str
) -> None:
    """EXE-5: a call with invalid input ends INVALID_TOOL_INPUT when it reaches the gate, in
    model order; an abort that lands while an earlier call holds the gate finds it not started."""
    invalid = ToolCallBlock("c9", "read", "{}")
    state = run(
        with_hooks(max_parallel=max_parallel),
        [
            SubmitUser("a"),
            ModelReplies((*calls_before, invalid)),
            Abort("user"),
            ToolFinishes("c1", ToolSucceeded("A")),  # c1 drains; then every result commits
        ],
    )
    codes = {r.call_id: r.error_code for r in results(state.log)}
    assert codes["c9"] == expected


def test_EXE_1_repeated_call_ids_are_refused() -> None:
    """EXE-1: a reply that repeats a call id is refused and changes nothing."""
    state = run(PLAIN, [SubmitUser("a")])
    with pytest.raises(TransitionRefused) as refusal:
        run(PLAIN, [SubmitUser("a"), ModelReplies((READ_A, READ_A))])
    assert refusal.value.rule_id == "EXE-1"
    assert state.log == run(PLAIN, [SubmitUser("a")]).log


def test_EXE_2_invalid_arguments_fail_without_policy() -> None:
    """EXE-2: a call missing a required key fails INVALID_TOOL_INPUT; no hook is asked."""
    config = with_hooks(HookSpec("h", "PreToolUse", "*"))
    state = run(config, [SubmitUser("a"), ModelReplies((ToolCallBlock("c1", "read", "{}"),))])
    assert "hook/invoked" not in types(state.log)
    assert results(state.log)[0].error_code == "INVALID_TOOL_INPUT"


def test_EXE_3_identity_is_sealed_before_the_gate() -> None:
    """EXE-3: tool/call is committed with the reply, before any approval is asked."""
    config = with_hooks(HookSpec("h", "PreToolUse", "bash"))
    state = run(config, [SubmitUser("a"), ModelReplies((BASH,)), HookAnswers(Ask("sure?"))])
    assert types(state.log)[-3:] == ["assistant/message", "tool/call", "approval/asked"]


def test_EXE_4_a_failed_body_reports_its_error_as_name_and_code() -> None:
    """EXE-4: a failed body's `errorName` and `code` reach `tool/result.error` as `{name, code}`,
    the wire names the rule's text gives (it said `{errorName, code}`, the command's names, and
    an implementer writing the event from SPEC.md alone would have used those)."""
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies((READ_A,)),
            ToolFinishes("c1", ToolFailed("boom", "E_BOOM", "BoomError")),
        ],
    )
    (result,) = [o for o in wire(state.log) if o["type"] == "tool/result"]
    data = result["data"]
    assert isinstance(data, dict)
    assert data["error"] == {"name": "BoomError", "code": "E_BOOM"}
    assert "`{name, code}` (the body's `errorName` and `code`)" in spec_text("EXE-4")


def test_EXE_4_outcomes_only_for_running_calls() -> None:
    """EXE-4: a tool outcome for a call that is not running is refused."""
    state = run(
        PLAIN, [SubmitUser("a"), ModelReplies((READ_A,)), ToolFinishes("c1", ToolSucceeded("A"))]
    )
    with pytest.raises(TransitionRefused) as refusal:
        run(
            PLAIN,
            [
                SubmitUser("a"),
                ModelReplies((READ_A, BASH)),
                ToolFinishes("c3", ToolSucceeded("early")),
            ],
        )
    assert refusal.value.rule_id == "EXE-4"
    assert clean(state.log) == []


def test_EXE_4_a_second_outcome_after_the_batch_ended_is_MODEL_1_s_refusal() -> None:
    """EXE-4 with MODEL-1: "anything else is refused" named no rule; a second outcome for a
    call whose result ended the batch (the loop now awaits the model) is refused with MODEL-1,
    a phase that takes no tool outcome, while one for a call of an open batch that is not
    running is EXE-4's. SPEC's EXE-4 now says which."""
    program: list[Command] = [
        SubmitUser("a"),
        ModelReplies((READ_A,)),
        ToolFinishes("c1", ToolSucceeded("A")),
    ]
    with pytest.raises(TransitionRefused) as refusal:
        run(PLAIN, [*program, ToolFinishes("c1", ToolSucceeded("again"))])
    assert refusal.value.rule_id == "MODEL-1"
    assert "with MODEL-1 when none is" in spec_text("EXE-4")


def test_DEC_1_denied_calls_never_run_and_say_why() -> None:
    """DEC-1: the deny reason is the result's text; nothing executed."""
    config = with_hooks(HookSpec("h", "PreToolUse", "bash"))
    state = run(config, [SubmitUser("a"), ModelReplies((BASH,)), HookAnswers(Deny("not today"))])
    (result,) = results(state.log)
    assert result.message.text == "Error: not today"
    assert result.message.result.failed
    assert state.executions == ()


@pytest.mark.parametrize(
    ("outcome", "runs", "text"),
    [
        ("allowed-once", True, None),
        ("rejected", False, "Error: the user rejected tool bash"),
        ("cancelled", False, "Error: the approval request for tool bash was cancelled"),
        (
            "unavailable",
            False,
            "Error: tool bash needs approval but no approval channel is available",
        ),
    ],
)
def test_DEC_2_only_allowed_once_runs(outcome: str, runs: bool, text: str | None) -> None:
    """DEC-2: each approval outcome; refusals become error results with distinct reasons."""
    config = with_hooks(HookSpec("h", "PreToolUse", "bash"))
    state = run(
        config,
        [SubmitUser("a"), ModelReplies((BASH,)), HookAnswers(Ask()), ApprovalAnswers(outcome)],
    )
    assert (len(state.executions) == 1) is runs
    if text is not None:
        assert results(state.log)[0].message.text == text
    assert clean(state.log) == []


def test_DEC_2_SCHED_1_an_earlier_call_finishing_leaves_a_pending_approval_pending() -> None:
    """DEC-2, SCHED-1: while a later call waits for approval, an earlier call finishing commits
    its result and starts nothing (the gate stops at the asking call); the answer runs it."""
    config = with_hooks(HookSpec("h", "PreToolUse", "read"))
    asking: list[Command] = [
        SubmitUser("a"),
        ModelReplies((READ_A, READ_B)),
        HookAnswers(Allow()),
        HookAnswers(Ask()),
    ]
    state = run(config, [*asking, ToolFinishes("c1", ToolSucceeded("A"))])
    assert [e.call_id for e in state.executions] == ["c1"]
    assert types(state.log)[-2:] == ["approval/asked", "tool/result"]
    state = run(
        config,
        [
            *asking,
            ToolFinishes("c1", ToolSucceeded("A")),
            ApprovalAnswers("allowed-once"),
            ToolFinishes("c2", ToolSucceeded("B")),
        ],
    )
    assert [e.call_id for e in state.executions] == ["c1", "c2"]
    assert [r.call_id for r in results(state.log)] == ["c1", "c2"]
    assert clean(state.log) == []


def test_DEC_2_approval_without_a_request_is_refused() -> None:
    """DEC-2: an answer with no pending request is refused."""
    with pytest.raises(TransitionRefused) as refusal:
        run(PLAIN, [SubmitUser("a"), ModelReplies((READ_A,)), ApprovalAnswers("allowed-once")])
    assert refusal.value.rule_id == "DEC-2"


def test_DEC_3_post_block_replaces_the_result_and_drops_body_contexts() -> None:
    """DEC-3, HOOK-5: block reasons become the error; the hook's own context survives."""
    config = with_hooks(HookSpec("p1", "PostToolUse", "read"), HookSpec("p2", "PostToolUse", "*"))
    state = run(
        config,
        [
            SubmitUser("a"),
            ModelReplies((READ_A,)),
            ToolFinishes(
                "c1",
                ToolSucceeded("secret", contexts=("body ctx",)),
                (PostBlock("withheld"), PostContext("hook ctx")),
            ),
        ],
    )
    (result,) = results(state.log)
    assert result.message.text == "withheld"
    assert result.message.result.failed
    contexts = [e.message.content for e in state.log if isinstance(e, UserMessageRecorded)][1:]
    assert contexts == [(TextBlock("hook ctx"),)]
    hook_types = types(state.log)[5:10]
    assert hook_types == [
        "hook/invoked",
        "hook/result",
        "hook/invoked",
        "hook/result",
        "tool/result",
    ]


# Reasons and contexts that say nothing: a block with no reason, a block with one and one
# without, and a body's empty and blank deferred contexts.
EMPTY_TEXTS_PROGRAM: tuple[Command, ...] = (
    SubmitUser("a"),
    ModelReplies((READ_A, ToolCallBlock("c2", "read", READ_A.arguments))),
    ToolFinishes("c1", ToolSucceeded("A"), (PostBlock(""), PostBlock(""))),
    ToolFinishes("c2", ToolSucceeded("B", contexts=("", " ")), (PostPass(), PostPass())),
    ModelReplies((ToolCallBlock("c3", "read", READ_A.arguments),)),
    ToolFinishes("c3", ToolSucceeded("C"), (PostBlock(""), PostBlock("why"))),
    ModelReplies((TextBlock("done"),)),
)


def test_DEC_3_a_reasonless_block_is_worded_and_ADJ_4_an_empty_body_context_is_dropped() -> None:
    """DEC-3: a PostToolUse block whose hooks gave no reason shows `blocked by PostToolUse
    hook` (dsh's words), and an empty reason beside a given one is left out, so no result
    carries an empty text block (which a provider refuses). ADJ-4: a body's own empty deferred
    context is no context, as a hook's is; a blank one is delivered."""
    config = with_hooks(HookSpec("p1", "PostToolUse", "read"), HookSpec("p2", "PostToolUse", "*"))
    state = run(config, EMPTY_TEXTS_PROGRAM)
    shown = {r.message.result.tool_call_id: r.message.result.content for r in results(state.log)}
    assert shown["c1"] == (TextBlock("blocked by PostToolUse hook"),)
    assert shown["c3"] == (TextBlock("why"),)
    messages = [e.message.content for e in state.log if isinstance(e, UserMessageRecorded)]
    assert messages == [(TextBlock("a"),), (TextBlock(" "),)]
    assert clean(state.log) == []


def test_DEC_3_the_bundled_impl_words_a_reasonless_block_and_drops_empty_contexts() -> None:
    """DEC-3, ADJ-4: the implementation, given the same verdicts, shows what the model shows,
    and no text it records is empty."""
    config = with_hooks(HookSpec("p1", "PostToolUse", "read"), HookSpec("p2", "PostToolUse", "*"))
    model, impl = ModelTarget(), bundled_target()
    model.reset(config)
    impl.reset(config)
    try:
        for command in EMPTY_TEXTS_PROGRAM:
            got = impl.apply(command)
            assert comparable(got) == comparable(model.apply(command)), command
            assert '"text": ""' not in json.dumps(list(got.events)), command
    finally:
        impl.close()


def test_HOOK_5_post_verdicts_must_match_the_hooks() -> None:
    """HOOK-5: a settled body with the wrong number of PostToolUse verdicts is refused."""
    config = with_hooks(HookSpec("p1", "PostToolUse", "read"))
    with pytest.raises(TransitionRefused) as refusal:
        run(
            config,
            [SubmitUser("a"), ModelReplies((READ_A,)), ToolFinishes("c1", ToolSucceeded("A"))],
        )
    assert refusal.value.rule_id == "HOOK-5"


def test_SCHED_1_exclusive_calls_wait_and_the_cap_holds() -> None:
    """SCHED-1: safe calls overlap up to the cap; an exclusive call waits for all before it."""
    config = with_hooks(max_parallel=1)
    state = run(config, [SubmitUser("a"), ModelReplies((READ_A, READ_B, BASH))])
    assert [e.call_id for e in state.executions] == ["c1"]
    state = run(PLAIN, [SubmitUser("a"), ModelReplies((READ_A, READ_B, BASH))])
    assert [e.call_id for e in state.executions] == ["c1", "c2"]
    with pytest.raises(TransitionRefused):
        run(
            PLAIN,
            [
                SubmitUser("a"),
                ModelReplies((READ_A, READ_B, BASH)),
                ToolFinishes("c3", ToolSucceeded("too soon")),
            ],
        )
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies((READ_A, READ_B, BASH)),
            ToolFinishes("c2", ToolSucceeded("B")),
            ToolFinishes("c1", ToolSucceeded("A")),
        ],
    )
    assert [e.call_id for e in state.executions] == ["c1", "c2", "c3"]


def test_ABORT_1_abort_drains_running_and_aborts_the_rest() -> None:
    """ABORT-1: running calls drain (success becomes ABORTED); unstarted get a synthetic pair."""
    draining = run(PLAIN, [SubmitUser("a"), ModelReplies((READ_A, BASH)), Abort()])
    assert not isinstance(draining.phase, Idle), "c1 is still running: the batch drains first"
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies((READ_A, BASH)),
            Abort(),
            ToolFinishes("c1", ToolSucceeded("A")),
        ],
    )
    codes = [r.error_code for r in results(state.log)]
    assert codes == ["ABORTED", "ABORTED_BEFORE_DISPATCH"]
    last = state.log[-1]
    assert isinstance(last, TurnEnded)
    assert last.reason_kind == "aborted"
    assert isinstance(state.phase, Idle)
    assert clean(state.log) == []


def test_ABORT_1_a_failure_landing_after_the_abort_stays_the_bodys_failure() -> None:
    """ABORT-1: only a success becomes ABORTED; a failure keeps its message and {name, code}."""
    post = HookSpec("post", "PostToolUse", "read")
    finish = ToolFinishes("c1", ToolFailed("disk full", "ENOSPC"), (PostContext("seen"),))
    state = run(with_hooks(post), [SubmitUser("a"), ModelReplies((READ_A,)), Abort(), finish])
    (result,) = results(state.log)
    assert result.message.result.content == (TextBlock("Error: disk full"),)
    assert result.error == {"name": "ToolError", "code": "ENOSPC"}
    assert state.inbox[0].text == "seen", "its PostToolUse context waits for the next turn"


def test_ABORT_1_abort_cancels_a_pending_approval() -> None:
    """ABORT-1: a pending approval is answered cancelled and the call never runs."""
    config = with_hooks(HookSpec("h", "PreToolUse", "bash"))
    state = run(config, [SubmitUser("a"), ModelReplies((BASH,)), HookAnswers(Ask()), Abort()])
    assert "approval/decided" in types(state.log)
    assert results(state.log)[0].error_code == "ABORTED_BEFORE_DISPATCH"
    assert state.executions == ()


def test_ABORT_2_cancelled_reply_keeps_text_only() -> None:
    """ABORT-2: delivered text survives as an interrupted reply; calls never do."""
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies(
                (ReasoningBlock("thinking"), TextBlock(" "), TextBlock("so far"), READ_A),
                "cancelled",
            ),
        ],
    )
    reply = next(e for e in state.log if isinstance(e, AssistantMessageRecorded))
    assert reply.interrupted
    assert reply.message.content == (ReasoningBlock("thinking"), TextBlock("so far"))
    empty = run(PLAIN, [SubmitUser("a"), ModelReplies((READ_A,), "cancelled")])
    assert "assistant/message" not in types(empty.log)
    assert clean(state.log) == []
    assert clean(empty.log) == []


def test_ABORT_2_abort_during_hooks_keeps_text_only() -> None:
    """ABORT-2: aborting while hooks decide commits no call at all."""
    config = with_hooks(HookSpec("h", "PreToolUse", "bash"))
    state = run(config, [SubmitUser("a"), ModelReplies((TextBlock("let me"), BASH)), Abort()])
    assert calls(state.log) == []
    assert clean(state.log) == []


def test_REC_1_repair_distinguishes_recorded_from_unrecorded_calls() -> None:
    """REC-1: a recorded call gets OUTCOME_UNKNOWN, an unrecorded one NOT_STARTED."""
    state = run(PLAIN, [SubmitUser("a"), ModelReplies((READ_A, READ_B)), Crash(), Recover()])
    assert [r.error_code for r in results(state.log)] == ["TOOL_OUTCOME_UNKNOWN"] * 2
    assert types(state.log)[-2:] == ["step/end", "turn/end"]
    last = state.log[-1]
    assert isinstance(last, TurnEnded)
    assert last.reason_kind == "interrupted"
    times = {e.time for e in state.log[-4:]}
    assert times == {state.log[-5].time}
    # A reply whose call was never recorded (a dsh-style log): NOT_STARTED, no citation.
    log = [e for e in run(PLAIN, [SubmitUser("a"), ModelReplies((READ_A,))]).log if e.seq != 4]
    closers = interrupted_turn_closers(tuple(log))
    assert next(getattr(c, "error_code", None) for c in closers) == "TOOL_NOT_STARTED"


def test_REC_1_balanced_logs_get_nothing() -> None:
    """REC-1: a log without an open turn needs no closers."""
    state = run(PLAIN, [SubmitUser("a"), ModelReplies((TextBlock("b"),))])
    assert interrupted_turn_closers(state.log) == ()
    assert interrupted_turn_closers(()) == ()


def test_REC_2_recovery_leaves_a_balanced_log() -> None:
    """REC-2: after Recover the log is balanced and the next turn numbers on."""
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies((READ_A,)),
            Crash(),
            Recover(),
            SubmitUser("again"),
            ModelReplies((TextBlock("ok"),)),
        ],
    )
    assert clean(state.log) == []
    assert [e.turn for e in state.log if isinstance(e, TurnStarted)] == [1, 2]


def test_REC_2_crash_in_the_middle_of_hooks_repairs_to_a_closed_turn() -> None:
    """REC-2: a crash before the reply was committed closes the turn with no calls."""
    config = with_hooks(HookSpec("h1", "PreToolUse", "bash"), HookSpec("h2", "PreToolUse", "bash"))
    state = run(
        config, [SubmitUser("a"), ModelReplies((BASH,)), HookAnswers(Ask()), Crash(), Recover()]
    )
    assert calls(state.log) == []
    assert types(state.log)[-2:] == ["step/end", "turn/end"]
    assert clean(state.log) == []


def test_DEC_2_failed_tool_is_an_error_result_not_a_failed_turn() -> None:
    """DEC-1, DEC-2: a failing body is an error result carrying its code; the turn goes on."""
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies((READ_A,)),
            ToolFinishes("c1", ToolFailed("disk on fire", "EIO")),
        ],
    )
    (result,) = results(state.log)
    assert result.message.text == "Error: disk on fire"
    assert result.error_code == "EIO"
    assert not isinstance(state.phase, Idle)
