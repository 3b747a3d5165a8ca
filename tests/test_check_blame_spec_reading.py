"""`loopspec check` on hand-written logs whose verdict SPEC.md's words decide (session 14's
reading of the spec by a harness author who knows only SPEC.md and the tutorial).

Each log is under tests/fixtures/logs/blame/ (see its README): each test is a case where the
checker's verdict differed from what SPEC.md says, fixed since.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from blame_logs import BLAME, blamed, check
from check_fixtures import FIXTURES

from loopspec.model.commands import (
    APPROVAL_OUTCOMES,
    Abort,
    ApprovalAnswers,
    Crash,
    Recover,
    SubmitUser,
)
from loopspec.model.errors import InvalidEventError, TransitionRefused
from loopspec.model.facts import Fact, FactError, fact_from_wire
from loopspec.model.invariants import LogMonitor
from loopspec.model.prefix import REFUSING_OUTCOMES, Violation
from loopspec.model.state import LoopState
from loopspec.model.transitions import step
from loopspec.model.wire import event_from_wire
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.conformance.run import spec_text
from loopspec.properties.logcheck.check_document import log_to_json
from loopspec.properties.logcheck.checker import LogReport, check_stream
from loopspec.properties.logcheck.compact_rows import CompactRowError, compact_run
from loopspec.properties.logcheck.report import not_checkable_lines, rules_checked
from loopspec.properties.logcheck.synth import HEADER, jsonl, model_rows, renumber
from loopspec.properties.profiles import PROFILES


def test_DEC_2_a_deferred_call_that_ran_without_approval_is_blamed() -> None:
    """DEC-2 with HOOK-2: a Claude Code `defer` counts as `ask` (recorded as `defer`), so only
    an allowed-once answer runs the call. A call whose hook deferred and whose success came with
    no approval at all passed `check`, which took only the word `ask` for an ask. The same log
    with the approval asked and answered allowed-once keeps every rule."""
    report = check(BLAME / "violations" / "DEC-2-deferred-call-ran-unapproved.jsonl")
    assert blamed(report) == [("DEC-2", 9)]
    assert report.violations[0].violation.related == (4,)  # the hook's defer
    report = check(BLAME / "valid" / "DEC-2-deferred-call-approved.jsonl")
    assert (blamed(report), report.status) == ([], "ok")


def test_RW_2_a_sidecar_that_leaves_out_a_hook_that_supplied_an_input_is_blamed() -> None:
    """RW-2: the sidecar names every hook that supplied an input, the one in effect last (SPEC
    section 3). Hooks h1 and h2 both rewrote c1, and the sidecar names h2 alone: `check` passed
    it. Naming both keeps every rule."""
    report = check(BLAME / "violations" / "RW-2-sidecar-omits-a-supplying-hook.jsonl")
    assert blamed(report) == [("RW-2", 10)]
    (found,) = report.violations
    assert found.violation.related == (4,)  # h1's answer, the input left out
    assert "h1" in found.violation.message
    report = check(BLAME / "valid" / "RW-2-two-rewrites-both-named.jsonl")
    assert (blamed(report), report.status) == ([], "ok")


@pytest.mark.parametrize(("recorded", "blamed_at"), [("true", [("RW-2", 10)]), ("1.0", [])])
def test_RW_2_the_record_holds_the_hook_s_input_as_the_json_value_it_gave(
    recorded: str, blamed_at: list[tuple[str, int]], tmp_path: Path
) -> None:
    """RW-2: a rewrite is recorded as the JSON value the hook gave, compared as section 2 says:
    h2 supplied `"timeout": 1` and the record says `true`, another value, which check passed
    (it compared with Python's ==, where True == 1); `1.0` is the same number."""
    name = "RW-2-hook-gave-1-record-says-true.jsonl"
    text = (BLAME / "violations" / name).read_text()
    log = tmp_path / name
    log.write_text(text.replace('\\"timeout\\":true', f'\\"timeout\\":{recorded}'))
    report = check(log)
    assert blamed(report) == blamed_at
    if blamed_at:
        assert '{"command": "ls --safe", "timeout": 1}' in report.violations[0].violation.message


@pytest.mark.parametrize(
    ("marks", "blamed_at"),
    [((None, None), [("LOG-8", 8), ("STEP-1", 8)]), (([1, 2], [2, 2]), [("LOG-8", 8)])],
    ids=["no marker", "another commit"],
)
def test_LOG_8_STEP_1_events_are_known_lost_only_where_another_commit_breaks_one(
    marks: tuple[list[int] | None, list[int] | None],
    blamed_at: list[tuple[str, int]],
    tmp_path: Path,
) -> None:
    """LOG-8: a result's commit of two ends at the next line, a step/start. Marked as the first
    of another commit, it shows the result's commit lost its second event (a step/end), and
    the step/start inside the step left open is that loss, not STEP-1 too; with no marker it
    may be the due event written without one, so no event is known lost and STEP-1 is
    reported. SPEC.md said a lost step/end is never STEP-1 too, which a reader took for both."""
    name = "LOG-8-commit-broken-by-a-line-without-a-marker.jsonl"
    rows = [json.loads(line) for line in (BLAME / "violations" / name).read_text().splitlines()]
    for row, mark in zip(rows[7:9], marks, strict=True):
        if mark is not None:
            row["unit"] = mark
    log = tmp_path / name
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert blamed(check(log)) == blamed_at
    said = " ".join(spec_text("LOG-8").split())
    assert "a line with no marker may be the due event written without one" in said


def test_RW_2_a_sidecar_on_a_call_a_hook_denied_is_blamed() -> None:
    """RW-2 with HOOK-3: a deny discards every rewrite, and the sidecar is present exactly
    when an input was applied. h1 rewrote c1 and h2 denied it; the record still carried h1's
    input and a sidecar naming h1, and `check` passed it. The call recorded with the model's
    input and no sidecar keeps every rule."""
    report = check(BLAME / "violations" / "RW-2-sidecar-on-a-denied-call.jsonl")
    assert blamed(report) == [("RW-2", 10)]
    (found,) = report.violations
    assert found.violation.related == (6,)  # h2's deny
    assert "h2" in found.violation.message
    report = check(BLAME / "valid" / "RW-2-deny-discards-the-rewrite.jsonl")
    assert (blamed(report), report.status) == ([], "ok")


def test_RW_2_a_pass_supplies_no_input_and_spec_says_which_words_do() -> None:
    """RW-2: a hook/result whose decision is `pass` carrying an `updatedInput` supplies no
    input (only `allow` and `ask` do; the bridge records what a hook sent, honoured or not), so
    a call recorded without a sidecar keeps every rule. SPEC.md did not say which decision
    words supply an input: its RW-2 read as if this log broke it."""
    report = check(BLAME / "valid" / "RW-2-a-pass-supplies-no-input.jsonl")
    assert (blamed(report), report.status) == ([], "ok")
    assert "its decision is `allow` or `ask`" in spec_text("RW-2")


def test_RW_2_check_leaves_the_sidecar_order_and_an_unrecorded_input_on_a_failed_call() -> None:
    """RW-2: a sidecar naming both rewriting hooks out of configured order, and a supplied
    input left unrecorded on a call whose body then failed, break RW-2's text; from a log
    `check` judges neither (the audit's order is not judged either, HOOK-4; a refusal and a
    body's failure differ only in wording, TEXT-1), and SPEC.md now says so where a reader of
    RW-2 looks (it named the invariants alone)."""
    for name in (
        "RW-2-sidecar-names-hooks-out-of-order.jsonl",
        "RW-2-unrecorded-rewrite-then-the-body-failed.jsonl",
    ):
        report = check(BLAME / "unchecked" / name)
        assert (blamed(report), report.status) == ([], "ok")
    assert "The order of the hooks a sidecar names before the last" in spec_text("RW-2")


def test_EXE_4_LOG_4_check_leaves_a_post_hook_replacing_the_output_and_spec_says_so() -> None:
    """EXE-4, LOG-4: a PostToolUse hook that replaced a read's output (its hook/result holding
    the new text as `updatedToolOutput`, the result a success holding it) breaks EXE-4, the
    result being the body's; a log does not record what the body returned, and the member is
    one hook/result does not define, read and kept (LOG-4). SPEC.md's out-of-scope list did not
    name such hooks (Gemini CLI's `tool_output`, OpenCode #13574): it now says what check and
    conform do with one."""
    report = check(BLAME / "unchecked" / "EXE-4-post-hook-replaced-the-output.jsonl")
    assert (blamed(report), report.status) == ([], "ok")
    spec = (Path(__file__).resolve().parents[1] / "SPEC.md").read_text(encoding="utf-8")
    scope = spec.split("## 4. Scope")[1].split("## 5. Rules")[0]
    said = " ".join(scope.split())
    assert "**A PostToolUse hook replacing a tool's output**" in said
    assert "names EXE-4 where a harness's hook replaces a success's text" in said
    assert "`check` judges neither" in said


def test_RW_3_a_named_hook_that_answers_after_the_record_is_RW_2_saying_why() -> None:
    """RW-3: a sidecar names h1, whose rewrite is audited only after the reply and its record.
    RW-3's **Where.** read as if check blamed that on RW-3; it is RW-2 at the record (no prefix
    up to it shows h1's input: the verdict is prefix-closed), and the message said only 'h1 has
    no audited rewrite for this call', with the audit in plain sight two lines below. It now
    says none came before the record, and why that is what counts; SPEC.md says which part of
    RW-3 check judges."""
    report = check(BLAME / "violations" / "RW-2-sidecar-names-a-hook-that-answers-later.jsonl")
    assert blamed(report) == [("RW-2", 6)]
    assert "none before this record" in report.violations[0].violation.message
    assert "one that has not answered by then is RW-2's" in spec_text("RW-3")


def test_HOOK_1_an_empty_point_or_handler_is_refused_and_spec_says_what_a_point_is() -> None:
    """HOOK-1: a hook's point and handlerId are non-empty strings (dsh's own hook invariant);
    a hook/invoked and hook/result at point "" were read as valid. SPEC.md's HOOK-1 did not say
    what a point is (the README did: PreToolUse or PostToolUse), and check reads any other
    (dsh audits UserPromptSubmit and Stop hooks too): it now says both."""
    report = check(BLAME / "violations" / "HOOK-1-empty-point.jsonl")
    assert blamed(report) == [("HOOK-1", 5)]
    assert report.status == "error"
    assert "`UserPromptSubmit`" in spec_text("HOOK-1")


def test_LOG_4_a_hook_without_its_dialect_or_duration_is_refused_naming_the_field() -> None:
    """LOG-4: the event catalogue (SPEC.md section 10) lists hook/invoked.dialect and
    hook/result.durationMs as required, and the model's reader refuses an event without them;
    check read both as valid (it judged each only when present)."""
    for name, line, field in (
        ("LOG-4-hook-without-dialect.jsonl", 5, "dialect"),
        ("LOG-4-hook-result-without-duration.jsonl", 6, "durationMs"),
    ):
        report = check(BLAME / "violations" / name)
        assert blamed(report) == [("LOG-4", line)]
        assert f"data.{field}" in report.errors[0].message


def test_LOG_4_a_missing_member_says_it_is_missing_and_a_mistyped_one_what_it_must_be() -> None:
    """LOG-4: a hook/invoked without dialect read "data.dialect must be a string" (and so did
    every absent required member: "must be an integer", "must be a number"), which a reader
    takes for a value of the wrong type; it now says the member is missing. A member that is
    there with the wrong type still says what it must be. Members outside `data` name where
    they are (a replace's surfaceOp, a reply's tool-call block, a compact row)."""
    for name, line, want in (
        ("LOG-4-hook-without-dialect.jsonl", 5, "hook/invoked: data.dialect is missing"),
        ("LOG-4-hook-result-without-duration.jsonl", 6, "hook/result: data.durationMs is missing"),
    ):
        report = check(BLAME / "violations" / name)
        assert [(e.line, e.rule_id) for e in report.errors] == [(line, "LOG-4")]
        assert report.errors[0].message.startswith(want + "; it must be a "), name
    hook = {"turn": 1, "point": "PreToolUse", "handlerId": "h1"}
    step = {"turn": 1, "step": 1}
    call = {"type": "tool-call", "id": "c1", "name": "read"}
    reply = {"message": {"content": [call]}, **step}
    replace = {"op": "replace", "start": 0}
    ran = {"callId": "c1", "name": "read", "arguments": "{}", **step}
    for obj, want in (
        ({"type": "hook/invoked", "data": {**hook, "dialect": 3}}, "data.dialect must be a string"),
        ({"type": "hook/invoked", "data": {"point": "p"}}, "data.turn is missing"),
        (
            {"type": "hook/result", "data": {**hook, "decision": "pass", "durationMs": "5"}},
            "data.durationMs must be a number",
        ),
        (
            {"type": "tool/call", "data": {"name": "read", "arguments": "{}", **step}},
            "data.callId is missing",
        ),
        ({"type": "tool/call", "data": {"callId": 1, **step}}, "data.callId must be a string"),
        (
            {"type": "assistant/message", "data": reply},
            "data.message.content[].arguments is missing",
        ),
        (
            {"type": "user/message", "data": {}, "surfaceOp": replace},
            "surfaceOp.end is missing",
        ),
        (
            {"type": "tool/call", "data": {**ran, "rewrite": {"originalArguments": "{}"}}},
            "data.rewrite.handlerIds is missing; it must be an array of strings",
        ),
        (
            {
                "type": "tool/call",
                "data": {**ran, "rewrite": {"originalArguments": "{}", "handlerIds": [1]}},
            },
            "data.rewrite.handlerIds must be an array of strings",
        ),
    ):
        with pytest.raises(FactError) as refused:
            fact_from_wire({"seq": 1, **obj})
        assert str(refused.value).startswith(want), (obj, str(refused.value))
    row = {"type": "text-chunks", "seq0": 1, "time0": 0, "data": {"step": 1, "texts": []}}
    with pytest.raises(CompactRowError, match=r"^text-chunks\.data\.turn is missing; it must"):
        compact_run(row)
    with pytest.raises(CompactRowError, match=r"^text-chunks\.seq0 must be an integer$"):
        compact_run({**row, "seq0": "1"})


def test_LOG_8_spec_states_the_commit_marker_a_version_1_log_carries(tmp_path: Path) -> None:
    """LOG-8: check holds a version 1 log's commit markers to LOG-8, but SPEC.md never said
    what a marker is (the README said `unit: [k, n]`, not that k counts from 1 nor that a
    commit of one event has none): a log written from the spec's words, marking k from 0, got
    four LOG-8 violations. SPEC.md's LOG-8 now states the marker; a log marked as it says
    keeps every rule."""
    assert "carries the member unit: [k, n] beside its data, k counting 1..n" in spec_text("LOG-8")
    text = [{"type": "text", "text": "hi"}]
    user = {"id": "m2", "role": "user", "content": text, "source": {"kind": "user"}}
    model = {"kind": "model", "provider": "p", "model": "m"}
    reply = {"id": "m3", "role": "assistant", "content": text, "source": model}
    commits = [  # SubmitUser's commit, then the reply's
        [
            ("turn/start", {"turn": 1}),
            ("step/start", {"turn": 1, "step": 1}),
            ("user/message", user),
        ],
        [
            ("assistant/message", {"turn": 1, "step": 1, "message": reply}),
            ("step/end", {"turn": 1, "step": 1}),
            ("turn/end", {"turn": 1, "reason": {"kind": "completed"}}),
        ],
    ]
    lines: list[dict[str, object]] = [
        {"type": "session", "version": 1, "id": "s", "createdAt": 1, "cwd": "/w"}
    ]
    for commit in commits:
        for k, (kind, data) in enumerate(commit, start=1):
            event = {"type": kind, "seq": len(lines) - 1, "time": 1, "data": data}
            if kind.endswith("/message"):
                event["surfaceOp"] = "append"
            lines.append(event | {"unit": [k, len(commit)]})
    log = tmp_path / "marked.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = check(log)
    assert (blamed(report), report.status) == ([], "ok")
    assert "LOG-8" in rules_checked(report)


def test_DEC_2_a_call_run_after_an_answer_other_than_allowed_once_names_that_answer() -> None:
    """DEC-2: only allowed-once runs an asked call. An approval answered `allow-always` (no
    outcome DEC-2 lists) and then a success was blamed 'call c1 was not approved but its result
    reports success', citing only the result: a reader looking at an answer that reads like an
    approval could not tell why. The message now quotes the answer and cites its line."""
    report = check(BLAME / "violations" / "DEC-2-approval-answered-an-unlisted-word-then-ran.jsonl")
    assert blamed(report) == [("DEC-2", 11)]
    (found,) = report.violations
    assert 'answered "allow-always"' in found.violation.message
    assert found.violation.related == (8,)  # the approval/decided


def test_DEC_2_an_answer_of_no_listed_word_is_said_to_be_none_of_DEC_2s(tmp_path: Path) -> None:
    """DEC-2: a call answered 'approved' (a loop's own word for allowed-once) that then ran
    was blamed 'call c1 was not approved (its approval was answered 'approved'; ...)', which
    reads as a contradiction; the message now says the word is none of DEC-2's outcomes and
    lists them. A listed refusal ('rejected') keeps its words."""
    source = BLAME / "violations" / "DEC-2-approval-answered-an-unlisted-word-then-ran.jsonl"
    text = source.read_text(encoding="utf-8")
    assert text.count("allow-always") == 1
    messages = {}
    for word in ("approved", "rejected"):
        log = tmp_path / f"{word}.jsonl"
        log.write_text(text.replace("allow-always", word), encoding="utf-8")
        report = check(log)
        assert blamed(report) == [("DEC-2", 11)]
        messages[word] = report.violations[0].violation.message
    assert messages["approved"] == (
        'call c1 ran (its result reports success) after its approval was answered "approved", '
        "none of DEC-2's outcomes (allowed-once, rejected, cancelled, unavailable): only "
        "allowed-once runs a call"
    )
    assert messages["rejected"].startswith("call c1 was not approved (its approval was answered")


def test_DEC_2_the_checkers_refusing_outcomes_are_DEC_2s_but_allowed_once() -> None:
    """The words the checker lists are the model's approval outcomes, less allowed-once."""
    assert set(REFUSING_OUTCOMES) == APPROVAL_OUTCOMES - {"allowed-once"}


STEP_1 = {"turn": 1, "step": 1}
HEADER_0 = {"type": "session", "version": 0, "id": "s", "createdAt": 1, "cwd": "/w"}


def _turn_asked(text: str, *later: dict[str, object]) -> list[dict[str, object]]:
    """A version-0 log's rows: its header, turn 1's step 1 opened by the user's `text`, then
    `later`; numbered from seq 0, at time 1."""
    events: list[dict[str, object]] = [
        {"type": "turn/start", "data": {"turn": 1}},
        {"type": "step/start", "data": STEP_1},
        {
            "type": "user/message",
            "surfaceOp": "append",
            "data": {"role": "user", "content": [{"type": "text", "text": text}],
                     "source": {"kind": "user"}},
        },
        *later,
    ]  # fmt: skip
    return [HEADER_0] + [{"seq": seq, "time": 1, **event} for seq, event in enumerate(events)]


def _reply(*content: object) -> dict[str, object]:
    """Step 1's assistant/message holding `content`."""
    message = {"role": "assistant", "content": list(content), "source": {"kind": "model"}}
    return {
        "type": "assistant/message",
        "surfaceOp": "append",
        "data": {**STEP_1, "message": message},
    }


def _one_call_turn(reply_call: Mapping[str, object], result_content: object) -> str:
    """A log's text: a turn whose reply holds `reply_call` as its block, recorded as call c1,
    and answered by a tool/result whose message content is `result_content`."""
    return jsonl(None, _turn_asked(
        "ls",
        _reply(reply_call),
        {"type": "tool/call",
         "data": {**STEP_1, "callId": "c1", "name": "bash", "arguments": '{"command":"ls"}'}},
        {
            "type": "tool/result",
            "surfaceOp": "append",
            "sourceEventSeqs": [4],
            "data": {**STEP_1, "message": {"role": "user", "content": result_content,
                                           "source": {"kind": "tool", "callId": "c1"}}},
        },
    ))  # fmt: skip


def test_ORD_2_and_LOG_4_a_log_written_in_the_anthropic_apis_shapes_is_told_the_dsh_ones(
    tmp_path: Path,
) -> None:
    """A harness author writing the log from the API they know wrote a call as a `tool_use`
    block, and a result's content as a string. The first was blamed "tool/call c1 is not a call
    of the step's reply, which makes no tool calls" (it does, to its author), the second "needs
    message.content" (it has one): each now says the shape section 10 gives."""
    tool_use = {"type": "tool_use", "id": "c1", "name": "bash", "input": {"command": "ls"}}
    tool_call = {"type": "tool-call", "id": "c1", "name": "bash", "arguments": '{"command":"ls"}'}
    result = [{"type": "tool-result", "toolCallId": "c1", "isError": False,
               "content": [{"type": "text", "text": "a.txt"}]}]  # fmt: skip
    log = tmp_path / "anthropic-call.jsonl"
    log.write_text(_one_call_turn(tool_use, result), encoding="utf-8")
    report = check(log)
    assert blamed(report)[0] == ("ORD-2", 6)
    assert report.violations[0].violation.message.endswith(
        "which makes no tool calls (a call is a block of the reply's message.content "
        '{"type": "tool-call", "id", "name", "arguments"})'
    )
    log = tmp_path / "anthropic-result.jsonl"
    log.write_text(_one_call_turn(tool_call, "a.txt"), encoding="utf-8")
    report = check(log)
    assert blamed(report) == [("LOG-4", 7)]
    assert report.errors[0].message == (
        "tool/result: data.message.content must be an array of content blocks, not a string: "
        'write it as [{"type": "tool-result", "toolCallId": ..., "content": [{"type": "text", '
        '"text": ...}], "isError": ...}]'
    )
    log.write_text(_one_call_turn(tool_call, result), encoding="utf-8")
    assert blamed(check(log)) == []  # in the shapes section 10 gives: a crash tail, no fault


def test_TURN_3_a_step_end_written_after_its_turn_end_is_tied_to_that_TURN_2(
    tmp_path: Path,
) -> None:
    """TURN-2: turn/end comes after the open step's step/end. A loop that writes the two the
    other way round got TURN-2 at the turn/end and then "step/end outside any turn" (TURN-3),
    which read as a second fault of its own; it now says which step it closes and the
    turn/end it follows, and cites that line, as a late result cites the turn it missed."""
    lines = _turn_asked(
        "hi",
        _reply({"type": "text", "text": "hello"}),
        {"type": "turn/end", "data": {"turn": 1, "reason": {"kind": "completed"}}},
        {"type": "step/end", "data": STEP_1},
    )
    log = tmp_path / "turn-end-first.jsonl"
    log.write_text(jsonl(None, lines), encoding="utf-8")
    report = check(log)
    assert blamed(report) == [("TURN-2", 6), ("TURN-3", 7)]
    late = report.violations[1]
    assert late.violation.message == (
        "step/end outside any turn (it closes step 1 of turn 1, which the turn/end at seq 4 "
        "ended while it was open: write step/end before turn/end, TURN-2)"
    )
    assert late.events == (5, 4)
    # The step closed in its place, a second step/end after the turn/end is only TURN-3's.
    closed = [*lines[:5], {**lines[6], "seq": 4}, {**lines[5], "seq": 5}, {**lines[6], "seq": 6}]
    log.write_text(jsonl(None, closed), encoding="utf-8")
    report = check(log)
    assert blamed(report) == [("TURN-3", 8)]
    assert report.violations[0].violation.message == "step/end outside any turn"


def test_DEC_2_a_second_answer_to_one_approval_request_says_it_was_answered_before() -> None:
    """DEC-2: each request is answered once. A second approval/decided for approval-c1 was
    blamed 'answers no pending request', though the request is right there two lines up; the
    message now says it was answered already, and cites that answer."""
    report = check(BLAME / "violations" / "DEC-2-approval-answered-twice.jsonl")
    assert blamed(report) == [("DEC-2", 11)]
    (found,) = report.violations
    assert "already answered at seq 8" in found.violation.message
    assert found.violation.related == (8,)


def test_DEC_2_an_approval_asked_for_a_call_never_recorded_is_blamed_at_its_line() -> None:
    """DEC-2: an ask is asked when the call could start, after its tool/call. An approval/asked
    naming call c9, which no tool/call records, passed: only c1, whose hook asked and which ran
    with no approval of its own, was blamed. The request is blamed at its line too."""
    report = check(BLAME / "violations" / "DEC-2-approval-for-an-unrecorded-call.jsonl")
    assert blamed(report) == [("DEC-2", 9), ("DEC-2", 11)]
    assert report.violations[0].violation.message == (
        "approval/asked approval-c9 names call c9, which no tool/call of this step records: "
        "approval is asked for a recorded call"
    )


def _asked_for_c1() -> list[dict[str, object]]:
    """The unrecorded-call fixture with its request naming c1, the call its hook asked about:
    a valid log (the request asked after the call's record, answered allowed-once)."""
    path = BLAME / "violations" / "DEC-2-approval-for-an-unrecorded-call.jsonl"
    text = path.read_text().replace('"c9"', '"c1"').replace("approval-c9", "approval-c1")
    return [json.loads(line) for line in text.splitlines()]


def _checked(rows: list[dict[str, object]]) -> LogReport:
    text = "".join(json.dumps(row) + "\n" for row in [rows[0], *renumber(rows[1:])])
    return check_stream("asked.jsonl", io.BytesIO(text.encode()))


def test_DEC_2_a_request_after_its_call_s_result_or_naming_another_tool_is_blamed() -> None:
    """DEC-2: approval is asked before the call runs, about that call: dsh asks with the
    call's own tool name (`exec.name`) before its body. A request asked after its call's result,
    and one naming `read` for a call of `bash`, passed check (SPEC said it did not judge
    them); each is blamed at the request."""
    rows = _asked_for_c1()
    assert blamed(_checked(rows)) == []
    asked, decided, result = rows[8], rows[9], rows[10]
    # A success there already ran before its approval (blamed at the result, once).
    assert blamed(_checked([*rows[:8], result, asked, decided, *rows[11:]])) == [("DEC-2", 9)]
    failed = json.loads(json.dumps(result).replace('"isError": false', '"isError": true'))
    late = _checked([*rows[:8], failed, asked, decided, *rows[11:]])
    assert blamed(late) == [("DEC-2", 10)]
    assert late.violations[-1].violation.message == (
        "approval/asked approval-c1 asks about call c1 after its result (seq 7): approval is "
        "asked before the call runs"
    )
    renamed = json.loads(json.dumps(asked).replace('"toolName": "bash"', '"toolName": "read"'))
    report = _checked([*rows[:8], renamed, *rows[9:]])
    assert blamed(report) == [("DEC-2", 9)]
    assert report.violations[0].violation.message == (
        'approval/asked approval-c1 names tool "read" for call c1, a call of "bash": a request '
        "names its call's tool"
    )


def test_DEC_2_a_request_left_unanswered_at_its_step_s_end_ends_no_turn_completed() -> None:
    """DEC-2: a request about a call is answered in the call's step; dsh writes its answer in
    the same `request` that asked, so only a crash leaves one unanswered, and the crash repair
    ends the turn interrupted (REC-1). A request left unanswered, its call refused, the turn
    then ending completed, passed check; it is blamed at the turn's end. Ended interrupted (a
    crash repair's shape, with no repair result where the call had its result) it is not."""
    rows = _asked_for_c1()
    result = json.loads(json.dumps(rows[10]).replace('"isError": false', '"isError": true'))
    left = [*rows[:9], result, *rows[11:]]
    report = _checked(left)
    assert blamed(report) == [("DEC-2", 12)]
    assert report.violations[0].violation.message == (
        "turn 1 ends completed with approval/asked approval-c1 about call c1 left unanswered "
        "when its step ended (seq 9): a request is answered in its call's step, and only a crash "
        "leaves one unanswered, its repair ending the turn interrupted"
    )
    interrupted = json.loads(json.dumps(left[-1]).replace('"completed"', '"interrupted"'))
    assert "DEC-2" not in {rule for rule, _line in blamed(_checked([*left[:-1], interrupted]))}


@pytest.mark.parametrize(
    ("fixture", "rule", "line", "answer"),
    [
        ("DEC-2-request-left-unanswered-then-the-turn-ends-in-error", "DEC-2", 14, "rejected"),
        ("ABORT-3-abort-leaves-a-request-unanswered", "ABORT-3", 12, "cancelled"),
    ],
    ids=["ends in error", "ends aborted"],
)
def test_DEC_2_ABORT_3_a_request_left_unanswered_ends_no_turn_in_error_or_aborted(
    fixture: str, rule: str, line: int, answer: str
) -> None:
    """DEC-2, ABORT-3: a request left unanswered at its step's end ends only a turn a crash
    repair closes (interrupted); check judged that of a turn ending completed alone. A refused
    call whose rejection was never written, the next model request failing (the turn ends in
    error), and an abort that wrote its ABORTED_BEFORE_DISPATCH result but not the cancelled
    answer due before it, each passed; each is blamed at the turn's end. The answer written
    before the call's result keeps every rule; written after the step, in the turn, it is
    blamed there (ABORT-3 places an abort's), and not again at the turn's end; written after
    the turn's end, it is that fault, not blamed again; ended interrupted (as a crash repair
    ends it) the request is not blamed."""
    logged = (BLAME / "violations" / f"{fixture}.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in logged.splitlines()]
    report = _checked(rows)
    assert blamed(report) == [(rule, line)]
    assert report.violations[0].violation.related == (9,)  # the step's end
    decided = {"type": "approval/decided", "seq": None, "time": rows[8]["time"]}
    decided["data"] = {"id": "approval-c1", "outcome": answer}
    assert blamed(_checked([*rows[:9], decided, *rows[9:]])) == []
    assert blamed(_checked([*rows[:11], decided, *rows[11:]])) == [(rule, 12)]
    assert blamed(_checked([*rows, decided])) == [(rule, line)]
    interrupted = {**rows[-1], "data": {"turn": 1, "reason": {"kind": "interrupted"}}}
    assert rule not in {found for found, _line in blamed(_checked([*rows[:-1], interrupted]))}


def test_DEC_2_every_request_a_turn_left_unanswered_is_named_at_its_end() -> None:
    """DEC-2: the turn's end named only the first of two requests left unanswered when their
    step ended (approval-c1), and an answer to the second written after the turn's end was then
    blamed as a fault of its own; the end names both, once, and neither answer is blamed again."""
    path = BLAME / "violations" / "DEC-2-request-left-unanswered-then-the-turn-ends-in-error.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def for_c2(row: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(row).replace('"c1"', '"c2"').replace("approval-c1", "approval-c2")
        return {**json.loads(text), "seq": 100 + row["seq"]}  # renumbered below, cited alike

    reply = json.loads(json.dumps(rows[4]))
    reply["data"]["message"]["content"].append(for_c2(rows[4])["data"]["message"]["content"][0])
    c2_result = for_c2(rows[9])
    c2_result["sourceEventSeqs"] = [104]  # its tool/call's
    both = [*rows[:4], reply, rows[5], for_c2(rows[5]), *rows[6:9], *map(for_c2, rows[6:9])]
    both += [rows[9], c2_result, *rows[10:]]
    report = _checked(both)
    assert blamed(report) == [("DEC-2", 19)]
    assert (
        "with approval/asked approval-c1 about call c1 and approval-c2 about call c2 left "
        "unanswered when their step ended (seq 14)"
    ) in report.violations[0].violation.message
    decided = {"type": "approval/decided", "seq": None, "time": rows[-1]["time"]}
    decided["data"] = {"id": "approval-c2", "outcome": "rejected"}
    assert blamed(_checked([*both, decided])) == [("DEC-2", 19)]


def test_HOOK_4_a_reply_between_a_hook_s_invoked_and_its_result_is_blamed() -> None:
    """HOOK-4: a hook's audit pair is appended together (the model), or awaited before the
    model request or after the reply (dsh). A reply written between a PreToolUse hook's
    hook/invoked and its hook/result passed check; it is blamed at the reply, naming the
    invoked. (Another hook's pair between them is dsh's, for calls that run together.)"""
    rows = _asked_for_c1()
    report = _checked([*rows[:5], rows[6], rows[5], *rows[7:]])
    assert blamed(report) == [("HOOK-4", 6)]
    assert report.violations[0].violation.message == (
        "the reply comes while PreToolUse hook h1's hook/invoked (seq 3) awaits its "
        "hook/result: a hook's audit pair is appended together, before the reply or after it"
    )
    assert report.violations[0].violation.related == (3,)


def test_HOOK_4_REC_1_a_hook_pair_a_crash_cut_holds_up_no_later_turn_s_reply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HOOK-4, REC-1: a crash cut turn 1 after a hook's hook/invoked, and repair closed it. That
    hook stays pending for good, and every later reply was read with its fact (the clean path
    held back while any hook was pending: 7% more instructions on a 20,000-event log behind
    such a turn). HOOK-4 asks about the open turn's hooks alone; so does the clean path, and
    turn 2's reply is judged there, not fed to the invariants."""
    rows = _asked_for_c1()
    invoked = rows[4]
    closers = [
        {"type": "step/end", "seq": None, "time": invoked["time"], "data": {"turn": 1, "step": 1}},
        {
            "type": "turn/end",
            "seq": None,
            "time": invoked["time"],
            "data": {"turn": 1, "reason": {"kind": "interrupted"}},
        },
    ]
    again = json.loads(json.dumps(rows[1:]).replace('"turn": 1', '"turn": 2'))
    fed: list[str] = []
    feed = LogMonitor.feed

    def feeding(monitor: LogMonitor, fact: Fact) -> list[Violation]:
        fed.append(fact.type)
        return feed(monitor, fact)

    monkeypatch.setattr(LogMonitor, "feed", feeding)
    report = _checked([rows[0], *rows[1:5], *closers, *again])
    assert (blamed(report), report.notices) == ([], [])
    assert "assistant/message" not in fed, fed


def test_DEC_2_an_approval_asked_for_a_call_between_turns_says_no_step_is_open() -> None:
    """DEC-2: an approval/asked naming a call between turns (where TURN-3 allows an approval
    event) was blamed in words saying no tool/call "of this step" records it, with no step
    open; the words say none is."""
    rows = model_rows(DEMO_CONFIG, DEMO_COMMANDS[:9])
    assert rows[-1]["type"] == "turn/end"
    asked = {"id": "approval-call_a", "toolName": "read", "callId": "call_a"}
    rows.append({"type": "approval/asked", "seq": len(rows), "time": 0, "data": asked})
    report = check_stream("between.jsonl", io.BytesIO(jsonl(HEADER, rows).encode()))
    assert blamed(report) == [("DEC-2", len(rows) + 1)]
    assert report.violations[0].violation.message == (
        "approval/asked approval-call_a names call call_a while no step is open (between steps "
        "or turns): approval is asked for a recorded call"
    )


def test_ADJ_2_a_result_written_in_the_next_step_is_ADJ_2_alone_not_ADJ_3_too() -> None:
    """ADJ-2: a result answers a call of its own step. The demo's result for call_c written
    after the step ended, in the next step, was ADJ-2 and, at the turn's end, ADJ-3 too
    ('turn ends with call call_c unanswered'), with its result right there in the history. It
    is ADJ-2 alone, whose words name the reply that made the call."""
    rows = model_rows(DEMO_CONFIG, DEMO_COMMANDS[:9])
    late = next(i for i, row in enumerate(rows) if row["type"] == "step/end") - 1
    assert rows[late]["data"]["message"]["source"]["callId"] == "call_c"
    moved = rows.pop(late)
    at = next(i for i, row in enumerate(rows) if row["type"] == "step/start" and i > late)
    moved["data"] = {**moved["data"], "step": 2}
    rows = renumber([*rows[: at + 1], moved, *rows[at + 1 :]])
    report = check_stream("late.jsonl", io.BytesIO(jsonl(HEADER, rows).encode()))
    assert blamed(report) == [("ADJ-2", at + 3)]
    assert report.violations[0].violation.message == (
        "result for call_c, which no call of this step made (call call_c of the reply at seq 7, "
        "an earlier step's: a result is appended in its call's step, before that step ends)"
    )


def test_LOG_5_an_unknown_header_version_is_an_error_naming_the_version_and_LOG_5() -> None:
    """LOG-5: the header's version is 0, or 1 for the logs `loopspec run` writes. A log of
    version 7 was checked as version 0 with a notice, exit 0; dsh (0.1.0-rc.8) refuses to open
    it ("reads only v0"), so what its lines mean is not known: an error at line 1 naming the
    version, LOG-5, and nothing judged."""
    report = check(FIXTURES / "bad" / "unknown-version.jsonl")
    assert [(e.kind, e.line, e.rule_id) for e in report.errors] == [
        ("unsupported-layout", 1, "LOG-5")
    ]
    assert "version is 7, which check cannot read" in report.errors[0].message
    assert report.notices == []
    assert report.violations == []
    assert report.status == "unsupported"


def test_ADJ_1_a_replacement_of_nodes_before_the_reply_lands_before_the_calls() -> None:
    """ADJ-1: nothing model-visible between a reply's calls and its last result. A user/message
    that replaces (LOG-7) the turn's opening message while c1 awaits its result takes that
    message's place, before the call: the history is summary, call, result, which every provider
    accepts. check blamed ADJ-1 (it read any user/message there as landing between); ADJ-1's
    text said only 'appended', leaving a replacement undecided. Before the reply is in surface
    order (LOG-7): a second summary replacing the first, whose seq is after the reply's but
    which stands before it, was blamed (check compared seqs). One that replaces the reply
    itself does land where the call was, and is still blamed, saying which part it broke."""
    for name in ("replace-before-the-reply", "replace-of-an-earlier-summary"):
        report = check(BLAME / "valid" / f"ADJ-1-{name}-while-a-call-awaits.jsonl")
        assert (blamed(report), report.status) == ([], "ok"), name
    report = check(BLAME / "violations" / "ADJ-1-replace-of-the-reply-while-its-call-awaits.jsonl")
    assert blamed(report) == [("ADJ-1", 7)]
    assert "not all before the reply (seq 3)" in report.violations[0].violation.message


@pytest.mark.parametrize(("end", "blamed_at"), [(3, [("ADJ-1", 11)]), (8, [])])
def test_ADJ_1_a_reply_with_calls_replaces_only_the_surface_s_last_nodes(
    end: int, blamed_at: list[tuple[str, int]], tmp_path: Path
) -> None:
    """ADJ-1: turn 2's reply, making c1, replaces turn 1 (nodes 2..3), and so stands where node
    2 stood, before turn 2's prompt (seq 8): the history is the call, the prompt, the result,
    which no provider takes, and check passed it (ADJ-1 spoke of messages appended or replacing
    after the reply). Replacing 2..8, the prompt too, leaves the call last, before its result."""
    name = "ADJ-1-reply-replacing-nodes-before-the-prompt.jsonl"
    text = (BLAME / "violations" / name).read_text()
    log = tmp_path / name
    log.write_text(text.replace('"start": 2, "end": 3}', f'"start": 2, "end": {end}}}'))
    report = check(log)
    assert blamed(report) == blamed_at
    assert "A reply with calls that replaces nodes replaces the surface's last ones" in " ".join(
        spec_text("ADJ-1").split()
    )
    assert "nor replaces (LOG-7) nodes from the reply on" in spec_text("ADJ-1")


def test_HOOK_1_a_hook_result_that_names_no_call_answers_for_the_call_its_invoked_names() -> None:
    """HOOK-1: a hook/result answers the pending hook/invoked of its (turn, point, handlerId),
    and names the same call *when both name one*: a result that names none answers for the
    call its hook/invoked names. check dropped such an answer, so an ask in it never made its
    call wait for approval (a success with no approval passed DEC-2), and a rewrite in it
    was 'no audited rewrite for this call' (RW-2) for the sidecar that named it."""
    report = check(BLAME / "violations" / "DEC-2-ask-whose-result-names-no-call.jsonl")
    assert blamed(report) == [("DEC-2", 9)]
    assert report.violations[0].violation.related == (4,)  # the ask
    report = check(BLAME / "valid" / "RW-2-rewrite-whose-result-names-no-call.jsonl")
    assert (blamed(report), report.status) == ([], "ok")


def test_REC_1_a_not_started_repair_of_a_recorded_call_is_REC_1_alone(tmp_path: Path) -> None:
    """REC-1: a repair answers a recorded call TOOL_OUTCOME_UNKNOWN citing its tool/call, an
    unrecorded one TOOL_NOT_STARTED. A TOOL_NOT_STARTED repair of a recorded call cites no
    record, as that code says there is none: it was blamed REC-1 and ORD-2 ('does not cite its
    tool/call') at the same line, one fault twice. It is REC-1 alone; the same repair worded
    TOOL_OUTCOME_UNKNOWN without the citation breaks ORD-2's citation at crash repair's result,
    which is REC-1's, as conform names it (its words say ORD-2's)."""
    path = BLAME / "violations" / "REC-1-not-started-for-a-recorded-call.jsonl"
    assert blamed(check(path)) == [("REC-1", 7)]
    text = path.read_text(encoding="utf-8")
    unknown = text.replace("TOOL_NOT_STARTED", "TOOL_OUTCOME_UNKNOWN")
    assert unknown != text
    other = tmp_path / "outcome-unknown-without-citation.jsonl"
    other.write_text(unknown, encoding="utf-8")
    report = check(other)
    assert blamed(report) == [("REC-1", 7)]
    assert "crash repair breaks ORD-2 at its result: result for c1 does not cite" in (
        report.violations[0].violation.message
    )


def test_ABORT_2_an_interrupted_reply_with_a_call_is_ABORT_2_alone_ABORT_1_unmarked(
    tmp_path: Path,
) -> None:
    """ABORT-2: a cancelled reply keeps only its text, never a tool call. An interrupted reply
    carrying call c1, then the turn ending aborted, was blamed ABORT-2 at the reply and ADJ-3
    at the turn/end (c1 unanswered): one fault twice, since the call should not be shown at
    all. It is ABORT-2 alone; the same reply not marked interrupted leaves c1 to the abort to
    answer, ABORT-1 (it read ADJ-3, where conform named ABORT-1)."""
    path = BLAME / "violations" / "ABORT-2-interrupted-reply-with-a-call.jsonl"
    assert blamed(check(path)) == [("ABORT-2", 5)]
    text = path.read_text(encoding="utf-8")
    whole = text.replace(', "interrupted": true', "")
    assert whole != text
    other = tmp_path / "uninterrupted.jsonl"
    other.write_text(whole, encoding="utf-8")
    assert blamed(check(other)) == [("ABORT-1", 7)]


def test_RW_2_a_sidecar_naming_a_hook_whose_word_supplies_no_input_is_blamed() -> None:
    """RW-2: only an `allow` or an `ask` carrying `updatedInput` supplies an input; a `pass`
    (or `defer`, `approve`) supplies none, whatever it carries, so a call it alone answered was
    not rewritten. A sidecar naming such a hook, with the reply and record carrying its input,
    passed `check`, which took any audited `updatedInput` for a rewrite."""
    report = check(BLAME / "violations" / "RW-2-sidecar-names-a-pass.jsonl")
    assert blamed(report) == [("RW-2", 8)]
    (found,) = report.violations
    assert "whose answer (pass) supplies no input" in found.violation.message
    assert found.violation.related == (4,)  # the pass


def test_LOG_1_a_compact_row_counted_as_one_seq_is_blamed_at_the_next_event() -> None:
    """LOG-1 with SPEC.md's compact chunk rows (section 10): a row stands for one chunk per
    item, seqs `seq0`, `seq0 + 1`, ..., so the next event's seq follows the last of them. A
    writer that counted the three-item row as one seq is blamed once, at the reply after it.
    (Written from SPEC.md's table of compact rows, which it did not have: section 4 named the
    rows and gave no format.)"""
    path = BLAME / "violations" / "LOG-1-compact-row-counted-as-one-seq.jsonl"
    report = check(path)
    assert blamed(report) == [("LOG-1", 6)]
    assert report.violations[0].violation.message.startswith(
        "seq 4 where 6 was due: that seq is taken already; each event's is the one before it + "
        "1, after a compact row (one per item)"
    )
    assert "the next line's seq follows the last of them (LOG-1)" in _spec_words()


def test_STEP_3_compact_rows_as_SPEC_words_them_keep_every_rule() -> None:
    """STEP-3 with SPEC.md's compact chunk rows: rows of each type, with the members SPEC.md's
    table lists and others it says are kept unread (`index`, a call's `id` and `name`),
    an empty row standing for no event, in two steps, keep every rule; each item counts as an
    event."""
    report = check(BLAME / "valid" / "STEP-3-compact-chunk-rows.jsonl")
    assert (blamed(report), report.status, report.events) == ([], "ok", 19)
    spec = _spec_words()
    assert "An empty array stands for no event." in spec
    assert "(`index`, a call's `id` and `name`, ...) are kept and never read" in spec


def test_STEP_3_a_compact_row_naming_another_step_is_blamed_once() -> None:
    """STEP-3: a compact row's chunks name the row's turn and step, which must be the open
    ones. A three-item row naming step 2 while step 1 is open was blamed three times at its one
    line, once per chunk, for one wrong number; it is blamed once, citing the row's other
    chunks' seqs."""
    report = check(BLAME / "violations" / "STEP-3-compact-row-names-another-step.jsonl")
    assert blamed(report) == [("STEP-3", 5)]
    (found,) = report.violations
    assert found.events == (3, 4, 5)
    assert "names turn 1 step 2, the open step is turn 1 step 1" in found.violation.message


# SPEC.md's generated table of compact chunk rows (section 10): row type, then the members.
_COMPACT_TABLE_ROW = re.compile(r"^\| `([a-z-]+-chunks)` \| [^|]+ \| ([^|]+) \|$", re.MULTILINE)
_MEMBER = re.compile(r"`([a-zA-Z0-9.]+)`: ([a-z]+)")
# The value a row of the one-step log below gives each member SPEC.md lists, and one of
# another JSON type.
_ROW_VALUES: dict[str, object] = {
    "seq0": 3,
    "time0": 0,
    "data.turn": 1,
    "data.step": 1,
    "data.dt": [1],  # the gap to the second chunk's time (an array of integers)
}
_OTHER_TYPE = {"integer": "1", "array": "ab"}


def _spec() -> str:
    return (Path(__file__).resolve().parents[1] / "SPEC.md").read_text(encoding="utf-8")


def _spec_words() -> str:
    """SPEC.md with its line breaks read as spaces, as a reader reads its prose."""
    return " ".join(_spec().split())


def _spec_compact_rows() -> dict[str, list[tuple[str, str]]]:
    """Each compact row type SPEC.md lists, with its members (wire path, JSON type)."""
    table = _spec().split("<!-- generated:compact-rows -->")[1].split("<!-- end generated")[0]
    return {kind: _MEMBER.findall(members) for kind, members in _COMPACT_TABLE_ROW.findall(table)}


def _row(kind: str, members: dict[str, object]) -> dict[str, object]:
    """A compact row of `kind` with each member (wire path: value) set."""
    row: dict[str, object] = {"type": kind}
    for path, value in members.items():
        holder: dict[str, object] = row
        *parents, key = path.split(".")
        for parent in parents:
            child = holder.setdefault(parent, {})
            assert isinstance(child, dict)
            holder = child
        holder[key] = value
    return row


def _streamed_as(tmp_path: Path, row: dict[str, object]) -> LogReport:
    """The report of a one-step turn whose reply's two chunks (seqs 3, 4) are `row` (line 5)."""

    def event(kind: str, seq: int, data: Mapping[str, object], **rest: object) -> str:
        return json.dumps({"type": kind, "seq": seq, "time": seq, "data": data, **rest})

    step = {"turn": 1, "step": 1}
    reply = {
        "id": "m5",
        "role": "assistant",
        "content": [{"type": "text", "text": "ab"}],
        "source": {"kind": "model", "provider": "p", "model": "m"},
    }
    user = {"id": "m2", "role": "user", "content": [], "source": {"kind": "user"}}
    lines = [
        json.dumps({"type": "session", "version": 0, "id": "s", "createdAt": 0, "cwd": "/w"}),
        event("turn/start", 0, {"turn": 1}),
        event("step/start", 1, step),
        event("user/message", 2, user, surfaceOp="append", sourceEventSeqs=[0]),
        json.dumps(row),
        event("assistant/message", 5, {**step, "message": reply}, surfaceOp="append"),
        event("step/end", 6, step),
        event("turn/end", 7, {"turn": 1, "reason": {"kind": "completed"}}),
    ]
    path = tmp_path / "streamed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return check(path)


def test_LOG_4_SPEC_s_compact_row_table_is_the_format_check_reads(tmp_path: Path) -> None:
    """LOG-4: SPEC.md named compact `*-chunks` rows without their format, so a harness author
    could not write one from it. Its table (rendered from the reader's declarations) is held
    to the reader here: a row with just the members it lists, in its JSON types, stands for one
    chunk per item of its array; without any one of them, or with one of another JSON type, it
    is refused as input naming LOG-4, at its line; so is a row whose time0, its first chunk's
    time, is below 0, as an event's would be (check passed any time0, reading none)."""
    rows = _spec_compact_rows()
    assert set(rows) == {"reasoning-chunks", "text-chunks", "tool-call-chunks"}
    for kind, members in rows.items():
        values = {path: _ROW_VALUES.get(path, ["a", "b"]) for path, _ in members}
        # One array of items, beside the gaps' (SPEC: `data.dt`: array of integers).
        arrays = [path for path, json_type in members if json_type == "array"]
        assert (len(arrays), arrays[0]) == (2, "data.dt"), arrays
        report = _streamed_as(tmp_path, _row(kind, values))
        assert (blamed(report), report.events) == ([], 8), kind
        for path, json_type in members:
            lacking = {p: v for p, v in values.items() if p != path}
            mistyped = {**values, path: _OTHER_TYPE[json_type]}
            for broken in (lacking, mistyped):
                report = _streamed_as(tmp_path, _row(kind, broken))
                assert (blamed(report), report.status) == ([("LOG-4", 5)], "error"), broken
        # time0 is the first chunk's time: 0 or more, as an event's (it passed unread).
        report = _streamed_as(tmp_path, _row(kind, {**values, "time0": -1}))
        assert (blamed(report), report.status) == ([("LOG-4", 5)], "error"), kind
        assert report.errors[0].message.startswith(f"{kind}: time0 -1 is below 0"), kind


def test_RW_2_a_sidecar_naming_no_hook_is_a_violation_and_check_reads_on() -> None:
    """RW-2: the sidecar is present exactly when a hook-supplied input was applied, and names the
    hooks that supplied one (the model cannot construct one naming none, `RewriteSidecar`). A
    tool/call whose sidecar's handlerIds was empty passed `check`, then was an input error that
    left the rest of the log unread; the line is readable and breaks RW-2, which check judges: a
    violation at its line, and the events after it are judged (all 8 read)."""
    report = check(BLAME / "violations" / "RW-2-sidecar-names-no-hook.jsonl")
    assert (blamed(report), report.status, report.events) == ([("RW-2", 6)], "violations", 8)
    assert "names no hook" in report.violations[0].violation.message
    lines = (BLAME / "violations" / "RW-2-sidecar-names-no-hook.jsonl").read_text().splitlines()
    with pytest.raises(InvalidEventError) as refused:  # the model's reader cannot build it
        event_from_wire(json.loads(lines[5]))
    assert refused.value.rule_id == "RW-2"


@pytest.mark.parametrize(
    "rewrite",
    [
        "x",
        {"originalArguments": "{}", "handlerIds": "h1"},
        {"originalArguments": "{}", "handlerIds": [1]},
    ],
)
def test_RW_2_a_sidecar_check_cannot_read_names_RW_2_as_the_model_does(
    rewrite: object, tmp_path: Path
) -> None:
    """RW-2: a sidecar that is no object, or whose handlerIds are not strings, cannot be read:
    the model's reader names RW-2, the rule that says what a sidecar is, and check named LOG-4.
    Both name RW-2, at the line."""
    lines = (BLAME / "violations" / "RW-2-sidecar-names-no-hook.jsonl").read_text().splitlines()
    call = json.loads(lines[5])
    call["data"]["rewrite"] = rewrite
    with pytest.raises(InvalidEventError) as refused:
        event_from_wire(call)
    assert refused.value.rule_id == "RW-2"
    path = tmp_path / "sidecar.jsonl"
    path.write_text("\n".join([*lines[:5], json.dumps(call), *lines[6:]]) + "\n")
    report = check(path)
    assert (blamed(report), report.status) == ([("RW-2", 6)], "error")


def test_DEC_1_a_denied_call_whose_result_reports_success_is_blamed_on_DEC_1() -> None:
    """DEC-1: a denied call never runs; its result is an error. A call a PreToolUse hook audited
    `deny` whose result reported success passed `check`; and when another hook had asked, the
    same log was blamed on DEC-2 (`ran before its approval`), though a deny outranks an ask
    (HOOK-2) and no approval was due. Both are now DEC-1 at the result, citing the deny; the
    asked-and-denied call whose result is the deny's error keeps every rule."""
    report = check(BLAME / "violations" / "DEC-1-denied-call-succeeded.jsonl")
    assert blamed(report) == [("DEC-1", 9)]
    assert report.violations[0].violation.related == (4,)  # h1's deny
    report = check(BLAME / "violations" / "DEC-1-asked-and-denied-call-succeeded.jsonl")
    assert blamed(report) == [("DEC-1", 11)]
    assert report.violations[0].violation.related == (6,)  # h2's deny, not h1's ask
    report = check(BLAME / "valid" / "DEC-1-asked-and-denied-call-fails.jsonl")
    assert (blamed(report), report.status) == ([], "ok")
    assert "DEC-1" in rules_checked(report)


def test_HOOK_1_a_hook_audited_allow_with_the_blocking_exit_code_is_blamed() -> None:
    """HOOK-1: exit code 2 is a hook's blocking exit, whatever its stdout says; an audit
    recording it goes with a deny or a block, or with a failed hook's pass (`error`), and the
    model refuses an allow that exited 2. A log whose PreToolUse hook/result said `allow` with
    `exitCode: 2` passed `check`: the line holds the contradiction, and SPEC's Where did not
    say the checker leaves it. It is blamed at that line; the same hook audited `deny`, its call
    ending in the deny's error, keeps every rule."""
    report = check(BLAME / "violations" / "HOOK-1-exit-2-audited-as-allow.jsonl")
    assert blamed(report) == [("HOOK-1", 6)]
    assert "exit code 2" in report.violations[0].violation.message
    report = check(BLAME / "valid" / "HOOK-1-exit-2-audited-as-deny.jsonl")
    assert (blamed(report), report.status) == ([], "ok")


def test_RW_2_an_input_applied_without_its_sidecar_names_the_record_that_lacks_it() -> None:
    """RW-2: a supplied input without a sidecar is blamed at the call's result (an error result
    would have excused it, as a refusal), but the report cited that result alone and said only
    that the input was "neither recorded as a rewrite nor refused": a reader had to find the
    tool/call that lacks the sidecar, and the hook's answer, by hand. It now cites both."""
    report = check(BLAME / "violations" / "RW-2-rewrite-applied-without-its-sidecar.jsonl")
    assert blamed(report) == [("RW-2", 9)]
    (found,) = report.violations
    assert found.violation.related == (4, 6)  # h1's answer, the tool/call without a sidecar
    assert "its tool/call (seq 6) carries no rewrite sidecar" in found.violation.message


def test_HOOK_1_spec_says_check_leaves_a_hook_invoked_left_without_its_result() -> None:
    """HOOK-1 is titled "paired", but its words hold only a hook/result to a pending
    hook/invoked: a reader could not tell whether a log whose PostToolUse hook/invoked never
    got its hook/result (the body's result committed after it) breaks it. `check` passes it (a
    crash may cut a log between the two where its loop commits them apart, LOG-8), and HOOK-1's
    Where now says so, and that conformance compares the audit with the model's."""
    report = check(BLAME / "unchecked" / "HOOK-1-invoked-never-answered.jsonl")
    assert (blamed(report), report.status) == ([], "ok")
    where = spec_text("HOOK-1")
    assert "a hook/invoked left without its hook/result is not flagged by the checker" in where


def test_DEC_1_a_denial_without_the_error_flag_is_a_facet_the_codex_profile_tolerates() -> None:
    """DEC-1: Codex writes a PreToolUse denial without the error flag (TEXT-1; HOOK-2 where
    several hooks deny) and runs a call denied without a reason (DEC-1), so its own log breaks
    `denied_call_never_succeeds` wherever those show: the replay of
    tests/regressions/codex-HOOK-2.json on the real binary failed on it once the invariant
    came (thorough profile). The violation names its facet, and the Codex profile's three
    divergences tolerate it, as they do HOOK-1's post-block facet."""
    report = check(BLAME / "violations" / "DEC-1-denied-call-succeeded.jsonl")
    assert report.violations[0].violation.facet_name == "DEC-1:denied-not-an-error"
    codex = {d.key: d for d in PROFILES["codex"].divergences}
    for key in ("TEXT-1", "HOOK-2", "DEC-1"):
        assert "DEC-1:denied-not-an-error" in codex[key].tolerates, key


def test_RW_2_an_input_a_hook_supplied_after_the_tool_call_is_held_to_the_sidecar_too(
    tmp_path: Path,
) -> None:
    """RW-2: dsh audits a call's PreToolUse hooks after its tool/call record. A hook that
    supplied an input there, on a record without a sidecar whose result is a success, passed
    `check` (0 violations), though the same answer audited before the reply is blamed: the
    prefix held a supplied input to the sidecar only when the record came after it. A result
    that reports the input refused (an error) keeps every rule, and a later hook's deny
    discards the input (HOOK-3): that call's success is DEC-1's, not RW-2's."""
    name = "RW-2-rewrite-audited-after-the-record-without-its-sidecar.jsonl"
    report = check(BLAME / "violations" / name)
    assert blamed(report) == [("RW-2", 9)]
    (found,) = report.violations
    assert found.violation.related == (6, 4)  # h1's answer, the tool/call without a sidecar
    report = check(BLAME / "valid" / "RW-2-rewrite-audited-after-the-record-refused.jsonl")
    assert (blamed(report), report.status) == ([], "ok")
    rows = (BLAME / "violations" / name).read_text().splitlines(keepends=True)
    denied = [
        '{"type": "hook/invoked", "seq": 7, "time": 0, "data": {"turn": 1, "point": '
        '"PreToolUse", "dialect": "claude-code", "handlerId": "h2", "callId": "c1"}}\n',
        '{"type": "hook/result", "seq": 8, "time": 0, "data": {"turn": 1, "point": '
        '"PreToolUse", "handlerId": "h2", "decision": "deny", "durationMs": 1, "callId": "c1"}}\n',
    ]
    renumbered = [
        re.sub(r'"seq": (\d+)', lambda m: f'"seq": {int(m.group(1)) + 2}', row) for row in rows[8:]
    ]
    variant = tmp_path / "denied-later.jsonl"
    variant.write_text("".join([*rows[:8], *denied, *renumbered]))
    assert [rule for rule, _ in blamed(check(variant))] == ["DEC-1"]


def test_DEC_1_claude_codes_profile_does_not_tolerate_a_denial_without_the_error_flag() -> None:
    """DEC-1: Claude Code writes a PreToolUse denial as an error result (its replays of
    tests/regressions/claude-code-HOOK-2.json and -TEXT-1.json show no such facet), so no entry
    of its profile excuses a denied call whose result reports success: the tolerance e5f111b
    gave Codex's TEXT-1 and HOOK-2 reached Claude Code's divergences of those keys too."""
    for divergence in PROFILES["claude-code"].divergences:
        assert "DEC-1:denied-not-an-error" not in divergence.tolerates, divergence.key


@pytest.mark.parametrize("hooks_before_the_record", [True, False])
def test_RW_2_a_sidecar_naming_a_hook_whose_answer_names_no_call_is_not_blamed(
    hooks_before_the_record: bool,
) -> None:
    """RW-2: a log whose hooks name no call (dsh writes no callId) was reported with RW-2 under
    `rules_not_checkable` and, beside it, an RW-2 violation: 'the sidecar names hook h1, which
    has no audited rewrite for this call', for h1's allow that supplied the input one line
    above, which check could not tie to the call. A hook that answered before the record
    naming no call is now not blamed; one that had not answered by the record still is (no
    callId is needed to see that, RW-3), and RW-2 is listed as checked in part, saying so."""
    path = BLAME / "violations" / "DEC-1-a-hook-naming-no-call-denied-a-call-that-ran.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    header, turn_start, step_start, user, reply, call, invoked, result, *rest = rows
    call["data"]["arguments"] = '{"command":"rm -rf build/tmp"}'
    reply["data"]["message"]["content"][0]["arguments"] = call["data"]["arguments"]
    call["data"]["rewrite"] = {
        "originalArguments": '{"command":"rm -rf build"}',
        "handlerIds": ["h1"],
    }
    result["data"] |= {"decision": "allow", "updatedInput": {"command": "rm -rf build/tmp"}}
    hooks_and_call = [invoked, result, call] if hooks_before_the_record else [call, invoked, result]
    events = [turn_start, step_start, user, reply, *hooks_and_call, *rest]
    for seq, event in enumerate(events):
        event["seq"] = seq
    rest[0]["sourceEventSeqs"] = [events.index(call)]
    report = check_stream("rewritten.jsonl", io.BytesIO(jsonl(header, events).encode()))
    expected = [] if hooks_before_the_record else [("RW-2", 6)]
    assert blamed(report) == expected
    entry = log_to_json(report)
    assert "RW-2" not in entry["rules_not_checkable"]
    assert (
        "had not answered by the call's record, is checked"
        in (entry["rules_checked_in_part"]["RW-2"])
    )


def test_DEC_1_a_log_whose_hooks_name_no_call_says_which_rules_it_could_not_judge() -> None:
    """DEC-1 and the rules of a hook's call, in part: dsh's hook events carry no `callId`. A
    real dsh log whose hook denied a call that then ran read 0 violations, with DEC-1 among
    `rules_checked`: a user trusted it. A hook naming no call is now taken for the one call of
    its step awaiting a result, so that log (its one call denied) is blamed on DEC-1, saying
    how the hook was tied to it; with a second call awaiting one, the deny is anybody's and
    nothing is said. Either way the rules such hooks hide in part are listed under
    `rules_checked_in_part`, RW-3 under `rules_not_checkable`, and the text report says so. The
    same log with the hooks naming the call leaves nothing unchecked."""
    path = BLAME / "violations" / "DEC-1-a-hook-naming-no-call-denied-a-call-that-ran.jsonl"
    report = check(path)
    assert blamed(report) == [("DEC-1", 9)]
    assert report.violations[0].violation.message.endswith(
        "(the hook named no call: c1 alone awaited a result, so it was c1's)"
    )
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    header, turn_start, step_start, user, reply, call, *hooks, result, step_end, turn_end = rows
    second_block = {**reply["data"]["message"]["content"][0], "id": "c2"}
    reply["data"]["message"]["content"].append(second_block)
    second_call = json.loads(json.dumps(call))
    second_call["data"]["callId"] = "c2"
    second_result = json.loads(json.dumps(result))
    second_result["data"]["message"]["content"][0]["toolCallId"] = "c2"
    second_result["data"]["message"]["source"]["callId"] = "c2"
    events = [turn_start, step_start, user, reply, call, second_call, *hooks, result]
    events += [second_result, step_end, turn_end]
    for seq, event in enumerate(events):
        event["seq"] = seq
    result["sourceEventSeqs"], second_result["sourceEventSeqs"] = [4], [5]
    report = check_stream("two.jsonl", io.BytesIO(jsonl(header, events).encode()))
    assert (blamed(report), report.status) == ([], "ok")
    entry = log_to_json(report)
    assert sorted(entry["rules_not_checkable"]) == ["RW-3"]
    assert sorted(entry["rules_checked_in_part"]) == [
        "DEC-1", "DEC-2", "HOOK-1", "HOOK-4", "HOOK-5", "HOOK-6", "RW-2"
    ]  # fmt: skip
    assert {"DEC-1", "DEC-2", "HOOK-1", "HOOK-4"} <= set(entry["rules_checked"])
    # One hook ran (its hook/invoked and hook/result are two events): one run, said so.
    assert entry["rules_checked_in_part"]["DEC-1"] == (
        "1 of the log's 1 PreToolUse and PostToolUse hook run (hook/invoked) names no call (no "
        "callId), so check cannot see a call that ran although a PreToolUse hook denied it "
        "while another call of its step awaited a result (a deny while the call alone awaited "
        "one is taken for it, and checked)"
    )
    (said,) = not_checkable_lines([report])
    assert (
        "not checkable: RW-3; checked in part: DEC-1, DEC-2, HOOK-1, HOOK-4, HOOK-5, HOOK-6, RW-2"
        in said
    )
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        if row["type"].startswith("hook/"):
            row["data"]["callId"] = "c1"
    report = check_stream("named.jsonl", io.BytesIO(jsonl(rows[0], rows[1:]).encode()))
    assert blamed(report) == [("DEC-1", 9)]
    assert "named no call" not in report.violations[0].violation.message
    assert (report.not_checkable, report.checked_in_part) == ({}, {})
    assert not_checkable_lines([report]) == []


def test_REC_1_the_readme_says_check_judges_the_time_of_repair_closers() -> None:
    """REC-1: since cfbc58f check blames a crash repair closer not timed as the last event
    before the repair, but README's check section still said check judges no event's `time`,
    so a harness author read a REC-1 about times as check contradicting its own page."""
    report = check(BLAME / "violations" / "REC-1-closers-timed-by-the-clock.jsonl")
    assert {rule for rule, _line in blamed(report)} == {"REC-1"}
    readme = " ".join((Path(__file__).parent.parent / "README.md").read_text().split())
    assert "judges neither `time`" not in readme
    assert "`check` judges an event's `time` only where crash repair's closers" in readme


@pytest.mark.parametrize(("member", "rule"), [("step", "STEP-1"), ("turn", "TURN-1")])
def test_STEP_1_a_compact_row_numbered_0_is_refused_as_its_chunk_events_are(
    tmp_path: Path, member: str, rule: str
) -> None:
    """STEP-1, TURN-1: a compact row of step 0 (or turn 0) was read on and blamed on STEP-3
    (TURN-3), where the `assistant/chunk` events it stands for, each on its own line, are
    refused under STEP-1 (TURN-1) as the model's reader refuses them: both refuse the line
    under the rule that numbers from 1."""
    lines = (FIXTURES / "valid" / "harness-written.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[9])
    assert row["type"] == "text-chunks"
    row["data"][member] = 0
    compact = tmp_path / "compact.jsonl"
    compact.write_text("\n".join([*lines[:9], json.dumps(row), *lines[10:]]) + "\n")
    chunks = [
        {"type": "assistant/chunk", "seq": row["seq0"] + index, "time": 0, "data": row["data"]}
        for index in range(len(row["data"]["texts"]))
    ]
    one_by_one = tmp_path / "events.jsonl"
    one_by_one.write_text("\n".join([*lines[:9], *map(json.dumps, chunks), *lines[10:]]) + "\n")
    for path in (compact, one_by_one):
        report = check(path)
        assert blamed(report) == [(rule, 10)], path
        (error,) = report.errors
        assert error.message.endswith(f"data.{member} must be an integer >= 1, got 0"), path


# The demo's first turn cut by a crash while call_c's approval request is pending, and repaired
# (REC-1): the repair answers the call and closes its step and turn, and answers no request.
_CUT_WHILE_ASKING = (*DEMO_COMMANDS[:6], Crash(), Recover())


@pytest.mark.parametrize("then", [(), (SubmitUser("go on"),)], ids=["between turns", "next turn"])
def test_DEC_2_an_answer_to_a_request_whose_step_ended_answers_no_pending_request(
    then: tuple[SubmitUser, ...],
) -> None:
    """DEC-2: an answer answers a pending request, and a request asked about a call is pending
    no longer than the call's step: the model, its step ended (here by a crash repair), has no
    request to answer and refuses the answer. A log answering it after the step's end, between
    turns (where TURN-3 allows an approval event) or in the next turn, passed check, which kept
    the request pending for ever; the answer is blamed at its line, citing the step's end."""
    state = LoopState(DEMO_CONFIG)
    for command in (*_CUT_WHILE_ASKING, *then):
        state = step(state, command)
    with pytest.raises(TransitionRefused):
        step(state, ApprovalAnswers("allowed-once"))
    rows = model_rows(DEMO_CONFIG, (*_CUT_WHILE_ASKING, *then))
    assert [row["type"] for row in rows if row["type"].startswith("approval/")] == [
        "approval/asked"
    ]
    assert blamed(check_stream("cut.jsonl", io.BytesIO(jsonl(HEADER, rows).encode()))) == []
    step_end = next(row["seq"] for row in rows if row["type"] == "step/end")
    answer = {"id": "approval-call_c", "outcome": "allowed-once"}
    rows.append({"type": "approval/decided", "seq": len(rows), "time": 0, "data": answer})
    rows[-1]["time"] = rows[-2]["time"]
    report = check_stream("answered-late.jsonl", io.BytesIO(jsonl(HEADER, rows).encode()))
    assert blamed(report) == [("DEC-2", len(rows) + 1)]
    (found,) = report.violations
    assert found.violation.message == (
        f"approval/decided approval-call_c answers a request of call call_c whose step ended at "
        f"seq {step_end}: a request is answered in its call's step"
    )
    assert found.violation.related == (step_end,)


def test_DEC_2_a_request_naming_no_call_may_be_answered_between_turns() -> None:
    """TURN-3 and DEC-2: an approval event names no turn, and a request that names no call is
    tied to no step: asked and answered between turns, it keeps every rule."""
    rows = model_rows(DEMO_CONFIG, DEMO_COMMANDS[:9])
    assert rows[-1]["type"] == "turn/end"
    time = rows[-1]["time"]
    asked = {"id": "approval-session", "toolName": "settings"}
    rows.append({"type": "approval/asked", "seq": len(rows), "time": time, "data": asked})
    decided = {"id": "approval-session", "outcome": "rejected"}
    rows.append({"type": "approval/decided", "seq": len(rows), "time": time, "data": decided})
    report = check_stream("between.jsonl", io.BytesIO(jsonl(HEADER, rows).encode()))
    assert (blamed(report), report.notices) == ([], [])


def test_ABORT_3_a_cancelled_answer_after_its_calls_result_in_the_step_is_named_ABORT_3() -> None:
    """ABORT-3: an abort's cancelled approval is written before the call's
    ABORTED_BEFORE_DISPATCH result. The model's log of the demo aborted while call_c awaits its
    approval, with the two swapped (the answer after the result, still in the step), passed
    check, which named ABORT-3 only for an answer written after the step ended."""
    rows = model_rows(DEMO_CONFIG, (*DEMO_COMMANDS[:6], Abort("user")))
    assert blamed(check_stream("kept.jsonl", io.BytesIO(jsonl(HEADER, rows).encode()))) == []
    at = next(i for i, row in enumerate(rows) if row["type"] == "approval/decided")
    assert rows[at + 1]["data"]["message"]["source"]["callId"] == "call_c"
    rows[at]["data"], rows[at + 1]["data"] = rows[at + 1]["data"], rows[at]["data"]
    rows[at]["type"], rows[at + 1]["type"] = "tool/result", "approval/decided"
    rows[at]["surfaceOp"], rows[at]["sourceEventSeqs"] = rows[at + 1].pop("surfaceOp"), [10]
    del rows[at + 1]["sourceEventSeqs"]
    report = check_stream("swapped.jsonl", io.BytesIO(jsonl(HEADER, rows).encode()))
    assert blamed(report) == [("ABORT-3", at + 3)]
    (found,) = report.violations
    assert found.violation.message.startswith(
        f"approval/decided approval-call_c cancels the request of call call_c after that call's "
        f"result (seq {at}): an abort's cancelled approval is written when the abort lands"
    )
