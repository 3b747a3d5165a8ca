"""Blame where a difference comes with what another rule governs: an audit, a rewrite.

A PostToolUse audit that comes with a result committed too early is blamed on the result's rule.

A PostToolUse hook's audit pair precedes the result it judges, in the result's commit (HOOK-5).
A loop that commits results as bodies finish (breaking ORD-3) therefore appends, when a later
call finishes first, the audit pair and then the result, none of which the model appends yet:
the first extra event is the audit, which broke nothing. Found when the conformance machine's
programs grew longer: the completion-order mutant was blamed on HOOK-5.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from mutants import MUTANTS, MutantTarget

from loopspec.model.commands import (
    Allow,
    Ask,
    Command,
    Deny,
    HookAnswers,
    HookAudit,
    ModelReplies,
    Pass,
    PostPass,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, PRE_TOOL_USE, HookSpec, LoopConfig
from loopspec.model.jsonvalue import freeze
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.blame.classify import classify
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.stateful.strategies import CONFIGS

# Two parallel reads, each judged by the `audit` PostToolUse hook; the later one finishes first.
HOOKED: LoopConfig = CONFIGS[1]
LATER_FIRST: list[Command] = [
    SubmitUser("read both"),
    ModelReplies(
        (
            ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),
            ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),
        )
    ),
    ToolFinishes("c2", ToolSucceeded("B"), (PostPass(),)),
    ToolFinishes("c1", ToolSucceeded("A"), (PostPass(),)),
]


def test_ORD_3_an_early_result_with_its_post_audit_is_blamed_on_result_order() -> None:
    """ORD-3: results committed as bodies finish, with a PostToolUse hook, break ORD-3 (their
    audit pairs precede them as HOOK-5 asks), not HOOK-5."""
    mutant = next(m for m in MUTANTS if m.name == "completion-order-results")
    replay = replay_case(lambda: MutantTarget(mutant), HOOKED, LATER_FIRST)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "ORD-3", replay.divergence.what
    assert replay.divergence.index == 2


def _model_events(
    program: list[Command], config: LoopConfig = HOOKED
) -> tuple[list[dict[str, Any]], Observation]:
    """Every event the model appends for `program`, and its last command's observation."""
    model = ModelTarget()
    model.reset(config)
    history: list[dict[str, Any]] = []
    for command in program:
        last = model.apply(command)
        history += last.events
    return history, last


def test_HOOK_8_a_post_audit_before_a_result_the_model_commits_too_is_the_audit_fault() -> None:
    """HOOK-8: a PostToolUse audit the target adds before a result the model commits in the
    same command is the audit's own fault (here a hook run on a call its matcher does not
    name), not the result's, although the result follows it."""
    _, read_finished = _model_events(LATER_FIRST)
    audit = read_finished.events[0]  # the `audit` hook's hook/invoked for c1, a read
    assert audit["type"] == "hook/invoked"
    assert audit["data"]["point"] == "PostToolUse"
    grep: list[Command] = [
        SubmitUser("find it"),
        ModelReplies((ToolCallBlock("c1", "grep", '{"pattern":"TODO"}'),)),
        ToolFinishes("c1", ToolSucceeded("found")),
    ]
    history, expected = _model_events(grep)
    actual = attrs.evolve(expected, events=(audit, *expected.events))
    rule, what = classify(
        grep[-1], "Dispatching", expected, actual, target_violations=(), history=tuple(history)
    )
    assert rule == "HOOK-8", what


# A bash call, rewritten by the `rewriter` hook (after `guard` passes), then run.
REWRITTEN: list[Command] = [
    SubmitUser("list"),
    ModelReplies((ToolCallBlock("c1", "bash", '{"command":"ls"}'),)),
    HookAnswers(Pass()),
    HookAnswers(Allow(updated_input=freeze({"command": "echo rewritten"}))),
]


@pytest.mark.parametrize(
    ("mutant_name", "rule"),
    [("mutable-arguments", "EXE-3"), ("execution-only-rewrite", "RW-1")],
)
def test_EXE_3_a_body_run_with_arguments_changed_after_sealing_is_blamed_on_EXE_3(
    mutant_name: str, rule: str
) -> None:
    """EXE-3, RW-1: on a rewritten call, a body that runs with arguments neither the model nor
    a hook gave (changed after they were sealed) breaks EXE-3; one that runs with the input a
    hook supplied while the record keeps the model's (an execution-only rewrite) breaks RW-1.
    Both were read as RW-1 ('the rewrite reaches the tool too') whenever a rewrite was near."""
    mutant = next(m for m in MUTANTS if m.name == mutant_name)
    replay = replay_case(lambda: MutantTarget(mutant), CONFIGS[1], REWRITTEN)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == rule, replay.divergence.what


def _erased(
    events: tuple[dict[str, Any], ...], keys: tuple[str, ...]
) -> tuple[dict[str, Any], ...]:
    """`events` with `keys` taken out of every data but a tool/result's, as a profile erases
    what an implementation spells its own way (dsh's hook events carry no callId and a fresh
    handler id per invocation)."""
    return tuple(
        event
        if event["type"] == "tool/result"
        else {**event, "data": {k: v for k, v in event["data"].items() if k not in keys}}
        for event in events
    )


def test_HOOK_5_a_missing_audit_whose_id_a_profile_erased_names_its_point_and_matcher() -> None:
    """HOOK-5: when a profile erased the hook's handler id (dsh names each invocation its own
    way), a missing audit names the hook by point and matcher; the report said 'hook None'."""
    history, expected = _model_events(LATER_FIRST)
    erased = _erased(expected.events, ("handlerId",))
    audit, *rest = erased
    assert audit["type"] == "hook/invoked"
    erased_expected = attrs.evolve(expected, events=erased)
    actual = attrs.evolve(expected, events=tuple(rest))
    rule, what = classify(
        LATER_FIRST[-1],
        "Dispatching",
        erased_expected,
        actual,
        target_violations=(),
        history=tuple(history),
    )
    assert "None" not in what
    assert 'the PostToolUse hook matching "read" must run' in what, what
    assert rule == "HOOK-5"


# Two parallel reads; a PreToolUse hook asks for the second, whose approval is pending when the
# first finishes (the case dsh showed: it holds the first result until the answer).
ASKING = attrs.evolve(
    CONFIGS[1],
    hooks=(
        HookSpec("read-audit", PRE_TOOL_USE, "read"),
        HookSpec("read-after", POST_TOOL_USE, "read"),
    ),
)
FIRST_FINISHES_WHILE_ASKING: list[Command] = [
    SubmitUser("read both"),
    ModelReplies(
        (
            ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),
            ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),
        )
    ),
    HookAnswers(Allow()),
    HookAnswers(Ask()),
    ToolFinishes("c1", ToolSucceeded("A"), (PostPass(),)),
]


@pytest.mark.parametrize("erase_ids", [False, True])
def test_SCHED_2_a_result_held_back_while_a_later_call_awaits_approval_is_blamed_on_SCHED_2(
    erase_ids: bool,
) -> None:
    """SCHED-2: while a later call waits for its approval, the calls that started before it
    commit their results. A target that appends nothing when the earlier body finishes (the
    audit pair and the result come only after the answer) breaks SCHED-2; it was blamed on
    HOOK-5 ('hook None must run'), the audit being the first event it lacks, also when a
    profile erased the audit's ids (`erase_ids`, as the dsh profile does)."""
    history, expected = _model_events(FIRST_FINISHES_WHILE_ASKING, ASKING)
    kinds = [event["type"] for event in expected.events]
    assert kinds == ["hook/invoked", "hook/result", "tool/result"]
    if erase_ids:
        erased = _erased(expected.events, ("handlerId", "callId"))
        expected = attrs.evolve(expected, events=erased)
    actual = attrs.evolve(expected, events=(), atomic=(), commits=())
    rule, what = classify(
        FIRST_FINISHES_WHILE_ASKING[-1],
        "Dispatching",
        expected,
        actual,
        target_violations=(),
        history=tuple(history),
    )
    assert rule == "SCHED-2", what
    assert "call c2 waits for its approval" in what, what


# A hook that answers with its own audit: an exit-2 deny that left no stderr (PreToolUse), and a
# PostToolUse pass that reports its exit code, stderr and time.
EXIT_2_DENY = HookAudit(decision="block", exit_code=2, duration_ms=12.5)
PASS_AUDIT = HookAudit(exit_code=0, stderr_summary="ok\n", duration_ms=3.5)
AUDITED: list[tuple[LoopConfig, list[Command], dict[str, Any]]] = [
    (
        CONFIGS[1],
        [
            SubmitUser("list"),
            ModelReplies((ToolCallBlock("c1", "bash", '{"command":"ls"}'),)),
            HookAnswers(Deny("no"), EXIT_2_DENY),
        ],
        {"stderrSummary": "no"},  # the verdict's reason, where the audit has no stderr
    ),
    (
        HOOKED,
        [
            SubmitUser("read it"),
            ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),)),
            ToolFinishes("c1", ToolSucceeded("A"), (PostPass(PASS_AUDIT),)),
        ],
        {"exitCode": None, "stderrSummary": None, "durationMs": 0},  # the audit ignored
    ),
]


@pytest.mark.parametrize(("config", "program", "changed"), AUDITED, ids=["pre", "post"])
def test_TEXT_2_a_hook_result_without_its_audits_fields_is_blamed_on_TEXT_2(
    config: LoopConfig, program: list[Command], changed: dict[str, Any]
) -> None:
    """TEXT-2: a hook/result whose exitCode, stderrSummary or durationMs are not those of the
    answer's audit (a target that falls back to the verdict's reason, or ignores the audit)
    breaks TEXT-2, which states them. They were blamed on HOOK-1 (PreToolUse: pairing and
    enclosure) and HOOK-5 (PostToolUse: one verdict per hook), neither of which says them."""
    history, expected = _model_events(program, config)
    events = list(expected.events)
    index = next(i for i, e in enumerate(events) if e["type"] == "hook/result")
    data = {**events[index]["data"], **changed}
    events[index] = {**events[index], "data": {k: v for k, v in data.items() if v is not None}}
    actual = attrs.evolve(expected, events=tuple(events))
    phase = "Rewriting" if isinstance(program[-1], HookAnswers) else "Dispatching"
    rule, what = classify(
        program[-1], phase, expected, actual, target_violations=(), history=tuple(history)
    )
    assert rule == "TEXT-2", what


def test_SCHED_2_an_approval_asked_after_this_commands_results_is_blamed_on_SCHED_2() -> None:
    """SCHED-2: an approval the target asks in the right command but after that command's
    results (it commits the earlier call's result, then lets the waiting call through the gate)
    is blamed on SCHED-2, and the report says the target appends it later; it read 'the target
    does not append the model's approval/asked' (DEC-2), though the diff showed it appended."""
    program: list[Command] = [
        SubmitUser("read, then list"),
        ModelReplies(
            (
                ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),
                ToolCallBlock("c2", "bash", '{"command":"ls"}'),
            )
        ),
        HookAnswers(Ask("check it")),  # guard asks about c2, which waits for c1 to finish
        HookAnswers(Pass()),  # rewriter
        ToolFinishes("c1", ToolSucceeded("A"), (PostPass(),)),
    ]
    history, expected = _model_events(program, CONFIGS[1])
    kinds = [e["type"] for e in expected.events]
    assert kinds[0] == "approval/asked"
    assert "tool/result" in kinds
    actual = attrs.evolve(expected, events=(*expected.events[1:], expected.events[0]))
    rule, what = classify(
        program[-1], "Dispatching", expected, actual, target_violations=(), history=tuple(history)
    )
    assert rule == "SCHED-2", what
    assert "appends the model's approval/asked later" in what, what


def test_HOOK_5_a_result_committed_before_its_own_post_audit_is_blamed_on_HOOK_5() -> None:
    """HOOK-5: a settled body's PostToolUse audit pairs precede the result they judge. A loop
    that commits a call's result and then its audit (the model commits both in this command)
    was blamed on ORD-3, "commits only after the results of every earlier call of the reply",
    also for the reply's only call; the result is not early, its audit is late."""
    judged: list[Command] = [
        SubmitUser("read it"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),)),
        ToolFinishes("c1", ToolSucceeded("A"), (PostPass(),)),
    ]
    history, expected = _model_events(judged)
    audit = [e for e in expected.events if e["type"].startswith("hook/")]
    rest = [e for e in expected.events if not e["type"].startswith("hook/")]
    assert [e["type"] for e in audit] == ["hook/invoked", "hook/result"]
    assert rest[0]["type"] == "tool/result"
    late = (rest[0], *audit, *rest[1:])
    seq = expected.events[0]["seq"]
    late = tuple({**event, "seq": seq + n} for n, event in enumerate(late))
    actual = attrs.evolve(expected, events=late)
    rule, what = classify(
        judged[-1], "Dispatching", expected, actual, target_violations=(), history=tuple(history)
    )
    assert rule == "HOOK-5", what
    assert "c1's result before hook audit's audit of it" in what
