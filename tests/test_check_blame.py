"""`loopspec check` blames the rule a log really broke, at the line that broke it.

The logs under tests/fixtures/logs/blame/ were written by hand from SPEC.md alone, each the
smallest log that breaks one rule (`violations/`) or a near miss that keeps every rule
(`valid/`), in an audit of the checker's blame (see that folder's README). Each test here is
a case the checker got wrong before its fix.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from blame_logs import BLAME, blamed, check
from check_fixtures import FIXTURES

from loopspec import spec_text as spec_document
from loopspec.model.commands import HookAudit
from loopspec.model.errors import InvalidEventError
from loopspec.model.facts import HOOK_DECISION_WORDS, HOOK_DECISIONS, FactError, fact_from_wire
from loopspec.model.wire import event_from_wire
from loopspec.properties.conformance.command_codec import ProtocolError, command_from_json
from loopspec.properties.conformance.run import spec_text
from loopspec.properties.logcheck.checker import ErrorKind, check_paths, check_stream
from loopspec.properties.logcheck.report import rules_checked


def test_ORD_1_a_second_reply_without_calls_is_blamed() -> None:
    """ORD-1: a step has at most one assistant/message, also when neither carries a call; the
    second reply is the line that breaks it."""
    report = check(BLAME / "violations" / "ORD-1-two-text-replies.jsonl")
    assert blamed(report) == [("ORD-1", 6)]


def test_ORD_2_a_result_without_its_citation_names_the_field_to_fill() -> None:
    """ORD-2: a result that does not cite its call's record says where the citation goes. A
    harness author whose results lacked `sourceEventSeqs` read "does not cite its tool/call seq
    4" and had to find the field's name in the tutorial."""
    report = check(FIXTURES / "violations" / "ORD-2.jsonl")
    assert [rule for rule, _ in blamed(report)] == ["ORD-2"]
    assert report.violations[0].violation.message.endswith("in sourceEventSeqs")


def test_ADJ_1_a_message_between_a_call_and_its_result_says_where_it_goes() -> None:
    """ADJ-1: a user/message written while a call awaits its result is told where it belongs,
    after the next step/start (ADJ-4). "user/message lands while call c1 awaits its result"
    named the fault but not the fix, which only ADJ-4's text, another rule, states."""
    report = check(FIXTURES / "violations" / "ADJ-1.jsonl")
    assert [rule for rule, _ in blamed(report)] == ["ADJ-1"]
    message = report.violations[0].violation.message
    assert message.startswith("user/message lands while"), message
    assert message.endswith("; hold it for the next step/start (ADJ-4)"), message


def test_TURN_5_a_reason_without_a_string_kind_is_blamed_on_TURN_5() -> None:
    """TURN-5: a turn/end whose reason.kind is not a string cannot be read; the error names
    TURN-5, the rule that says what a reason is, not LOG-4."""
    report = check(BLAME / "violations" / "TURN-5-reason-kind-not-a-string.jsonl")
    assert blamed(report) == [("TURN-5", 7)]
    assert report.status == "error"


def _refused_alike(line: int, edit: Callable[[dict[str, Any]], object]) -> str:
    """The rule the model's reader and check (on both of its paths) refuse the valid TURN-5 near
    miss with `edit` made to its line `line`: one input error there, the same rule."""
    lines = (BLAME / "violations" / "TURN-5-reason-kind-not-a-string.jsonl").read_text()
    rows = lines.splitlines()
    event = json.loads(rows[line - 1])
    edit(event)
    with pytest.raises(InvalidEventError) as refused:
        event_from_wire(event)
    rows[line - 1] = json.dumps(event)
    rows[6] = rows[6].replace('"kind": 7', '"kind": "completed"')
    data = ("\n".join(rows) + "\n").encode()
    reports = [check_stream("log", io.BytesIO(data), quick=quick) for quick in (True, False)]
    for report in reports:
        assert [(e.rule_id, e.line, e.kind) for e in report.errors] == [
            (refused.value.rule_id, line, ErrorKind.BAD_EVENT)
        ], report
        assert (report.violations, report.status) == ([], "error")
    return refused.value.rule_id


def test_TURN_5_an_empty_reason_kind_is_refused_as_the_model_refuses_it() -> None:
    """TURN-5: a reason's kind names why the turn ended, and the model's reader refuses the empty
    string; check read `{"kind": ""}` and passed the log as clean."""
    assert _refused_alike(7, lambda e: e["data"]["reason"].update(kind="")) == "TURN-5"


def test_LOG_4_an_event_of_the_empty_type_is_refused_as_the_model_refuses_it() -> None:
    """LOG-4: an event's type is a non-empty string (the model's reader refuses ""); check read
    a step/start retyped "" as an event no rule reads and blamed every event of its step on
    STEP-3, a rule the harness did not break."""
    assert _refused_alike(3, lambda e: e.update(type="")) == "LOG-4"


def test_HOOK_1_a_negative_duration_is_blamed_and_check_reads_on() -> None:
    """HOOK-1: durationMs is finite and not negative; a hook/result with -1 was read as valid."""
    report = check(BLAME / "violations" / "HOOK-1-negative-duration.jsonl")
    assert blamed(report) == [("HOOK-1", 6)]
    # A number check can read, which breaks only HOOK-1, which it judges: a violation, and the
    # lines after it are read (it was an input error that left them unread).
    assert report.status == "violations"
    assert report.events == report.lines - 1


def test_HOOK_1_a_dsh_log_that_ignores_a_post_block_is_blamed_on_HOOK_1() -> None:
    """HOOK-1: a PostToolUse hook audited `block` whose result is no error (the loop ignored the
    block) passed check, which let every loop write a block so because Claude Code and Codex
    do; in a dsh-format log it is blamed at the result, and the block applied passes."""
    report = check(BLAME / "violations" / "HOOK-1-post-block-ignored.jsonl")
    assert blamed(report) == [("HOOK-1", 9)]
    (found,) = report.violations
    assert found.violation.facet_name == "HOOK-1:post-block-not-an-error"
    assert blamed(check(BLAME / "valid" / "HOOK-1-post-block-replaces-the-result.jsonl")) == []


def test_HOOK_1_an_unknown_dialect_is_refused() -> None:
    """HOOK-1: a hook/invoked's dialect is claude-code or codex; another was read as valid."""
    report = check(BLAME / "violations" / "HOOK-1-unknown-dialect.jsonl")
    assert blamed(report) == [("HOOK-1", 5)]


def test_LOG_6_a_result_whose_block_and_source_name_other_calls_is_refused() -> None:
    """LOG-6: the tool-result block's toolCallId equals source.callId; a result whose block
    answers c1 while its source names c2 was read as valid."""
    report = check(BLAME / "violations" / "LOG-6-result-ids-disagree.jsonl")
    assert blamed(report) == [("LOG-6", 7)]


def test_LOG_6_a_result_with_two_blocks_is_blamed_on_LOG_6() -> None:
    """LOG-6: a tool result message has exactly one tool-result block; two are refused naming
    LOG-6, not LOG-4."""
    report = check(BLAME / "violations" / "LOG-6-two-result-blocks.jsonl")
    assert blamed(report) == [("LOG-6", 7)]


def test_ORD_3_the_result_committed_too_early_is_blamed() -> None:
    """ORD-3: when call 2's result is appended while call 1 has none, that result breaks the
    order, and its line is blamed (call 1's result, in its right place after it, was)."""
    report = check(BLAME / "violations" / "ORD-3-later-result-first.jsonl")
    assert blamed(report) == [("ORD-3", 8)]
    assert "c1" in report.violations[0].violation.message


def test_ORD_3_a_crash_after_a_result_committed_too_early_is_still_a_violation() -> None:
    """ORD-3: the same log cut by a crash right after call 2's result is not a clean crash tail:
    REC-1's repair would answer call 1 after call 2, and that repair would have been blamed."""
    report = check(BLAME / "violations" / "ORD-3-later-result-then-crash.jsonl")
    assert blamed(report) == [("ORD-3", 8)]
    assert [notice.rule_id for notice in report.notices] == ["REC-2"]


def test_LOG_5_a_header_with_a_seq_is_blamed_alone() -> None:
    """LOG-5: a header that carries a seq is a malformed header, not an event: LOG-5 at line 1
    and nothing else (it was read as event 0, and every real event was then one seq late, a
    LOG-1 the log does not break)."""
    report = check(BLAME / "violations" / "LOG-5-header-with-a-seq.jsonl")
    assert blamed(report) == [("LOG-5", 1)]
    assert report.events == 6


def test_RW_1_RW_4_arguments_are_compared_as_the_values_they_denote() -> None:
    """RW-1, RW-4: the readers must hold the same value (EXE-2 parses every reader's string
    alike); a tool/call or an approval/asked that spells the reply's arguments with other
    whitespace keeps the rules (both were flagged, comparing the strings), and so does one
    spelling a number otherwise (`1.0` for `1`, `2e1` for `20`): section 2 says so, where a
    reader of "another JSON value" predicted RW-1 for it (SPEC.md named no number's spelling)."""
    for name in (
        "RW-1-same-value-other-spelling.jsonl",
        "RW-1-one-number-other-spelling.jsonl",
        "RW-4-same-value-other-spelling.jsonl",
    ):
        report = check(BLAME / "valid" / name)
        assert (blamed(report), report.status) == ([], "ok"), name
    said = " ".join(spec_document().split())
    assert "so `1`, `1.0` and `1e0` are one value" in said
    assert "while `true` is not `1` and an integer keeps every digit" in said


def test_RW_1_true_is_not_the_number_1() -> None:
    """RW-1: values are JSON values, not Python's: `true` in history and `1` in the audit
    record are two inputs."""
    report = check(BLAME / "violations" / "RW-1-true-is-not-1.jsonl")
    assert blamed(report) == [("RW-1", 6)]


def test_LOG_5_the_header_fields_have_the_types_spec_states() -> None:
    """LOG-5: a header whose createdAt is an ISO date string is refused naming LOG-5, the rule
    that states the header's member types (SPEC.md named the header's fields but not their
    types, so a reader wrote a string; the refusal then named LOG-4)."""
    report = check(BLAME / "violations" / "LOG-5-created-at-a-string.jsonl")
    assert blamed(report) == [("LOG-5", 1)]
    assert "`createdAt` a whole number of milliseconds" in spec_text("LOG-5")


def test_ORD_2_a_second_record_of_a_call_is_blamed_alone() -> None:
    """ORD-2: a call recorded twice is blamed at the second tool/call; the result that then
    cites the first record, its call's record, is not blamed too (the second record had
    replaced the first, so the result was said not to cite "its" tool/call)."""
    report = check(BLAME / "violations" / "ORD-2-call-recorded-twice.jsonl")
    assert blamed(report) == [("ORD-2", 7)]


def test_LOG_7_a_replace_of_one_node_names_it_as_start_and_end() -> None:
    """LOG-7: a pruned tool result is replaced by a replace whose start and end are the same
    node; it keeps the rules, and SPEC.md says so (it said "start before end", so a reader
    expected a one-node replace to be refused)."""
    report = check(BLAME / "valid" / "LOG-7-prune-one-result.jsonl")
    assert (blamed(report), report.status) == ([], "ok")
    assert "start before end" not in spec_text("LOG-7")
    assert "the same node to replace one" in spec_text("LOG-7")


def test_LOG_4_a_compact_row_timed_before_the_epoch_is_refused_as_its_chunks_would_be() -> None:
    """LOG-4: a compact row stands for its chunk events, the first timed `time0`, and an
    event's time is whole milliseconds, 0 or more. A row whose writer left time0 at -1 (its
    "not timed yet") passed check, which read no time0; it is refused at its line, as each of
    its chunks written alone would be, and the row of the valid fixture keeps every rule."""
    report = check(BLAME / "violations" / "LOG-4-compact-row-timed-before-the-epoch.jsonl")
    assert (blamed(report), report.status) == ([("LOG-4", 5)], "error")
    assert report.errors[0].message == (
        "text-chunks: time0 -1 is below 0: its first chunk's time is milliseconds since the "
        "Unix epoch, 0 or more, as an event's"
    )
    assert blamed(check(BLAME / "valid" / "STEP-3-compact-chunk-rows.jsonl")) == []


_NO_GAPS = object()


@pytest.mark.parametrize(
    ("gaps", "said"),
    [
        ("1", "text-chunks.data.dt must be an array of integers"),
        ([1, 1.5], "text-chunks.data.dt must be an array of integers"),
        ([1, True], "text-chunks.data.dt must be an array of integers"),
        (_NO_GAPS, "text-chunks.data.dt is missing; it must be an array of integers"),
        (
            [0, -1700000000006],
            "text-chunks: data.dt times its last chunk at -1 (time0 1700000000005 and every "
            "gap), below 0: a chunk's time is milliseconds since the Unix epoch, 0 or more, as "
            "an event's",
        ),
        ([0, -5, 1], None),  # a clock set back a little: no rule orders times
    ],
    ids=["a string", "a fraction", "a bool", "missing", "a chunk before the epoch", "a gap back"],
)
def test_LOG_4_a_compact_row_s_gaps_time_its_chunks_as_events(
    gaps: object, said: str | None
) -> None:
    """LOG-4: a row's `dt` gives each chunk after its first a time, time0 plus the gaps before
    it, and an event's time is an integer, 0 or more. check read no `dt`: a row of gaps "1" or
    1.5, or one timing its last chunk before the epoch, passed though those chunks written
    alone are refused; each is an input error at its line, and so is a gap `true` (a sum reads
    it as 1). A gap back in time breaks no rule."""
    lines = (BLAME / "valid" / "STEP-3-compact-chunk-rows.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    row = rows[5]  # text-chunks, three chunks from time0 1700000000005
    if gaps is _NO_GAPS:
        del row["data"]["dt"]
    else:
        row["data"]["dt"] = gaps
    text = "".join(json.dumps(each) + "\n" for each in rows)
    report = check_stream("gaps.jsonl", io.BytesIO(text.encode()))
    if said is None:
        assert (report.errors, report.violations) == ([], [])
        return
    assert [(error.line, error.rule_id, error.message) for error in report.errors] == [
        (6, "LOG-4", said)
    ]


@pytest.mark.parametrize("packed_at", [4096, 2], ids=["lists", "arrays"])
def test_LOG_7_a_pruned_result_answering_another_call_is_blamed(
    monkeypatch: pytest.MonkeyPatch, packed_at: int
) -> None:
    """LOG-7: a tool/result replacement answers the call of the result it shadows. A prune of
    c1's result written with c2's id (c2's own result still there) passed check, which kept no
    call per surface node; it is blamed at the replacement, citing the shadowed result. The
    prune naming its own call keeps every rule, the surface in lists or packed into arrays."""
    monkeypatch.setattr("loopspec.model.prefix.PACKED_SURFACE", packed_at)
    report = check(BLAME / "violations" / "LOG-7-prune-answers-another-call.jsonl")
    assert blamed(report) == [("LOG-7", 16)]
    (found,) = report.violations
    assert found.violation.message == (
        "replace 6..6 shadows the tool/result at seq 6, which answers another call than c2: a "
        "tool/result replacement answers the call of the result it shadows (the same toolCallId)"
    )
    assert found.violation.related == (6, 6)  # (start and end)
    assert blamed(check(BLAME / "valid" / "LOG-7-prune-one-result.jsonl")) == []


def test_REC_1_a_repair_with_the_wrong_code_is_blamed_on_REC_1_alone() -> None:
    """REC-1: a repair result saying TOOL_OUTCOME_UNKNOWN for a call never recorded has the
    wrong code (TOOL_NOT_STARTED would answer it rightly); it is REC-1, not also ADJ-2 (which
    was named first, as if a result had come before its call's record)."""
    report = check(BLAME / "violations" / "REC-1-outcome-unknown-for-an-unrecorded-call.jsonl")
    assert blamed(report) == [("REC-1", 6)]


# Logs that break a rule in ways a log alone does not let `check` judge: SPEC.md says which part
# of the rule its invariant holds a log to, so a reader does not expect the rest to be flagged.


def test_RW_3_check_judges_the_hooks_a_sidecar_names_and_spec_says_so() -> None:
    """RW-3: a PreToolUse hook that passed, audited after the reply carrying its call, breaks
    RW-3's text, but `check` judges only the hooks a rewrite sidecar names (the real CLIs'
    conform drivers audit every hook after the reply: RW-3 is their design difference), and
    SPEC.md now says so where a reader of RW-3 looks (it named the invariant alone)."""
    report = check(BLAME / "unchecked" / "RW-3-pass-hook-after-reply.jsonl")
    assert (blamed(report), report.status) == ([], "ok")
    assert "a rewrite sidecar names" in spec_text("RW-3")


def test_HOOK_4_check_judges_hooks_answering_twice_and_spec_says_so() -> None:
    """HOOK-4: hooks run for the reply's calls out of model order break HOOK-4's text; from a
    log `check` does not judge the order (the CLIs run a reply's hooks at once and audit them as
    they finish), and SPEC.md says so (it named the invariant alone)."""
    report = check(BLAME / "unchecked" / "HOOK-4-hooks-out-of-model-order.jsonl")
    assert (blamed(report), report.status) == ([], "ok")
    assert "answers twice for one call" in spec_text("HOOK-4")


def test_HOOK_4_a_hook_for_a_call_whose_arguments_are_no_object_is_blamed() -> None:
    """HOOK-4: a PreToolUse hook audited for call c1, then a reply whose c1 has arguments that
    are not a JSON object (no hook may see such a call, EXE-5): the reply is blamed, the line
    that shows the call (check said nothing: the log was under unchecked/). A call missing a key
    its tool requires is invalid too, which a log cannot show; SPEC.md says so."""
    report = check(BLAME / "violations" / "HOOK-4-hook-for-invalid-arguments.jsonl")
    assert blamed(report) == [("HOOK-4", 7)]
    assert report.violations[0].violation.related == (4,)  # the hook's audited answer
    assert "not a JSON object" in spec_text("HOOK-4")


def test_HOOK_4_a_hook_for_a_call_the_reply_does_not_show_is_blamed() -> None:
    """HOOK-4: PreToolUse hooks ran for c1 and c2, then the reply showed c1 alone (a harness that
    dropped a call after its hooks ran, or audited a call that never ran): a hook answered for
    a call that is none of the step's. `check` said nothing (h8's outside-harness session). It
    is blamed once, at the step/end that closes the step without c2, citing the hook's answer
    and the reply; a reply cancelled while the hooks run keeps no call (ABORT-2), and is no
    violation (`valid/HOOK-4-abort-while-hooks-run-drops-the-calls.jsonl`)."""
    report = check(BLAME / "violations" / "HOOK-4-hook-for-a-call-the-reply-does-not-show.jsonl")
    assert blamed(report) == [("HOOK-4", 12)]
    violation = report.violations[0].violation
    assert violation.message == (
        "PreToolUse hook guard answered for call c2, which the step's reply does not show: "
        "hooks run for the calls of their step's reply only"
    )
    assert violation.related == (6, 7)  # the hook's answer, the reply
    near_miss = check(BLAME / "valid" / "HOOK-4-abort-while-hooks-run-drops-the-calls.jsonl")
    assert (blamed(near_miss), near_miss.status) == ([], "ok")
    assert "does not show" in spec_text("HOOK-4")


@pytest.mark.parametrize("named", ["c1", "c9"])
def test_HOOK_5_a_post_hook_for_a_call_its_step_s_reply_does_not_make_is_blamed(
    tmp_path: Path, named: str
) -> None:
    """HOOK-5: a PostToolUse hook audited in step 3, whose reply makes no call, for c1, answered
    in step 1 (step 2 answered c2), or for c9, never made. A hook for a call of the last step
    that answered any was blamed; check keeps no earlier step's results, and said nothing of
    either. A PostToolUse hook judges a call of its own step: once the step's reply is read, a
    hook for a call it does not make is blamed at its hook/invoked, citing the reply. Audited
    before that reply, the same hook was not judged (no call of the step is made yet): it is
    blamed at its hook/invoked too."""
    path = BLAME / "violations" / "HOOK-5-post-hook-for-a-call-two-steps-back.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[15:17] = [line.replace('"c1"', f'"{named}"') for line in lines[15:17]]
    _write(tmp_path / "after.jsonl", lines)
    report = check(tmp_path / "after.jsonl")
    assert blamed(report) == [("HOOK-5", 16)]
    violation = report.violations[0].violation
    assert violation.message == (
        f"PostToolUse hook audit is invoked for call {named}, which its step's reply (seq 13) "
        "does not make: a PostToolUse hook's hook/invoked and hook/result come after the call's "
        "body ran and before that call's tool/result, in its step"
    )
    assert violation.related == (13,)
    assert "its step's reply does not make" in spec_text("HOOK-5")
    # The hook pair moved before the reply (seqs renumbered as lines).
    lines[14:17] = [*lines[15:17], lines[14]]
    _write(tmp_path / "before.jsonl", lines)
    report = check(tmp_path / "before.jsonl")
    assert blamed(report) == [("HOOK-5", 15)]
    assert report.violations[0].violation.message == (
        f"PostToolUse hook audit is invoked for call {named} before its step's reply: no call of "
        "the step is made yet, and a PostToolUse hook's hook/invoked and hook/result come after "
        "the call's body ran and before that call's tool/result, in its step"
    )
    assert "before its step's reply" in spec_text("HOOK-5")


def _write(path: Path, lines: list[str]) -> None:
    """`lines` (a header, then events) written to `path`, each event's seq its place."""
    events = [json.loads(line) for line in lines[1:]]
    for seq, event in enumerate(events):
        event["seq"] = seq
    path.write_text(lines[0] + "".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")


def test_HOOK_4_a_pre_hook_between_steps_for_a_call_the_last_step_did_not_answer_is_blamed(
    tmp_path: Path,
) -> None:
    """HOOK-4: a PreToolUse hook audited between steps 1 and 2 for c9, a call no step made (as
    for one answered two steps back, which check no longer keeps): the next step's start
    forgot it, and check said nothing. A PreToolUse hook answers a call of its step's reply, in
    that step: it is blamed at its hook/invoked, as one for a call the last step answered."""
    path = BLAME / "violations" / "RW-2-late-rewrite-before-the-next-reply.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[8:11] = [line.replace('"c1"', '"c9"') for line in (*lines[9:11], lines[8])]
    _write(tmp_path / "between.jsonl", lines)
    report = check(tmp_path / "between.jsonl")
    assert blamed(report) == [("HOOK-4", 9)]
    assert report.violations[0].violation.message == (
        "PreToolUse hook guard is invoked for call c9 between steps (no step is open): a "
        "PreToolUse hook answers a call of its step's reply, in that step"
    )
    assert "a call the last step that answered calls did not answer" in spec_text("HOOK-4")


@pytest.mark.parametrize("decision", ["allow", "deny"])
def test_RW_2_HOOK_4_an_input_supplied_late_before_a_reply_without_its_call_is_blamed(
    tmp_path: Path, decision: str
) -> None:
    """RW-2, HOOK-4: c1 succeeded in step 1, its record without a sidecar; in step 2, before
    the reply, a PreToolUse hook supplied an input for c1, and the reply (text alone) does not
    make c1 again. The input was neither recorded nor refused: RW-2, as it is when the hook
    answers between the steps or after the reply. Audited before the reply, the hook may have
    been for a call of that reply, so check left it, and only HOOK-4 was named at the
    step/end; RW-2 is named there too now. A deny supplies no input (HOOK-3): HOOK-4 alone."""
    path = BLAME / "violations" / "RW-2-late-rewrite-before-the-next-reply.jsonl"
    if decision != "allow":
        path = tmp_path / "denied.jsonl"
        text = (BLAME / "violations" / "RW-2-late-rewrite-before-the-next-reply.jsonl").read_text()
        path.write_text(text.replace('"decision": "allow"', f'"decision": "{decision}"'))
        assert blamed(check(path)) == [("HOOK-4", 13)]
        return
    report = check(path)
    assert blamed(report) == [("HOOK-4", 13), ("RW-2", 13)]
    violation = report.violations[1].violation
    assert violation.message == (
        "hook guard supplied an input for c1 after that call's tool/result (seq 5, in an "
        "earlier step), which reports success, before a reply (seq 10) that does not make c1 "
        "again: the input was neither recorded as a rewrite nor refused, its tool/call (seq 4) "
        "carrying no rewrite sidecar; a PreToolUse hook answers before its call is decided"
    )
    assert violation.related == (9, 5, 4)
    assert "before a reply that does not make it" in spec_text("RW-2")


def test_RW_2_a_rewrite_audited_at_a_misspelt_point_says_where_it_was_audited(
    tmp_path: Path,
) -> None:
    """RW-2: a harness that spells its hook point its own way (`pre_tool_use`) and records the
    rewrite in the sidecar read 'the sidecar names hook guard, which has no audited rewrite for
    this call', though the hook's answer supplying that input is right there (h8's
    outside-harness session). The message now names the point the answer was audited at."""
    source = {"kind": "model", "provider": "p", "model": "m"}
    arguments = '{"command": "echo rm -rf b"}'

    def event(kind: str, seq: int, data: dict[str, object], **surface: object) -> object:
        return {"type": kind, "seq": seq, "time": 1, "data": data, **surface}

    hook = {"turn": 1, "point": "pre_tool_use", "handlerId": "guard", "callId": "c1"}
    call = {"type": "tool-call", "id": "c1", "name": "bash", "arguments": arguments}
    reply = {"id": "a", "role": "assistant", "content": [call], "source": source}
    sidecar = {"originalArguments": '{"command": "rm -rf b"}', "handlerIds": ["guard"]}
    lines = [
        {"type": "session", "version": 0, "id": "s", "createdAt": 1, "cwd": "/w"},
        event("turn/start", 0, {"turn": 1}),
        event("step/start", 1, {"turn": 1, "step": 1}),
        event("hook/invoked", 2, {**hook, "dialect": "claude-code"}),
        event(
            "hook/result",
            3,
            {**hook, "decision": "allow", "durationMs": 1, "updatedInput": json.loads(arguments)},
        ),
        event("assistant/message", 4, {"turn": 1, "step": 1, "message": reply}, surfaceOp="append"),
        event(
            "tool/call",
            5,
            {"turn": 1, "step": 1, "callId": "c1", "name": "bash", "arguments": arguments}
            | {"rewrite": sidecar},
        ),
    ]
    log = tmp_path / "eve.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = check(log)
    assert [(f.violation.rule_id, f.line, f.violation.message) for f in report.violations] == [
        (
            "RW-2",
            7,
            "call c1: the sidecar names hook guard, which has no audited rewrite for this call "
            "(its answer for this call is audited at point 'pre_tool_use'; a rewrite is a "
            "PreToolUse answer's)",
        )
    ]


@pytest.mark.parametrize("dialect", [[], {}, ["claude-code"]])
def test_HOOK_1_a_dialect_that_is_no_string_is_an_input_error_not_a_crash(
    tmp_path: Path, dialect: object
) -> None:
    """HOOK-1, LOG-4: a hook's dialect that is a list or an object is reported as a value of the
    wrong type on its line (the dialect check asked a set about it first, and `check` crashed
    with 'unhashable type'); the quick path and the facts say the same."""
    log = tmp_path / "dialect.jsonl"
    invoked = {
        "type": "hook/invoked",
        "seq": 1,
        "time": 1,
        "data": {"turn": 1, "point": "PreToolUse", "dialect": dialect, "handlerId": "p"},
    }
    lines = [
        {"type": "session", "version": 0, "id": "s", "createdAt": 1, "cwd": "/w"},
        {"type": "turn/start", "seq": 0, "time": 1, "data": {"turn": 1}},
        invoked,
    ]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = check(log)
    assert [(e.line, e.rule_id, e.message) for e in report.errors] == [
        (3, "LOG-4", "hook/invoked: data.dialect must be a string")
    ]
    with pytest.raises(FactError, match="dialect must be a string"):
        fact_from_wire(invoked)


def test_ADJ_4_a_context_after_the_last_result_is_blamed_and_ADJ_1_keeps_what_it_blamed() -> None:
    """ADJ-4: a tool's context appended after its call's result, before the step ends, waited
    for no step/start; `check` said nothing (no call awaited a result, so ADJ-1 held). ADJ-1:
    the same context before the result breaks both rules and is blamed on ADJ-1 alone, the
    precise one (providers reject that history)."""
    report = check(BLAME / "violations" / "ADJ-4-context-after-the-last-result.jsonl")
    assert blamed(report) == [("ADJ-4", 8)]
    assert report.violations[0].violation.related == (5,)  # the result it came after
    report = check(BLAME / "violations" / "ADJ-1-context-before-the-result.jsonl")
    assert blamed(report) == [("ADJ-1", 7)]


def test_ADJ_4_messages_where_a_step_opens_keep_the_rule_and_spec_says_what_is_not_judged() -> None:
    """ADJ-4: the turn's own message before its first step (as dsh writes it), a typed message
    and a context after step 2's step/start with a plugin event among them, and a message
    between turns keep every rule; SPEC.md's Where says what a log cannot show (the order and
    source of queued messages)."""
    report = check(BLAME / "valid" / "ADJ-4-messages-where-a-step-opens.jsonl")
    assert (blamed(report), report.status) == ([], "ok")
    assert "messages_wait_for_step_start" in spec_text("ADJ-4")
    assert "their order and sources" in spec_text("ADJ-4")


# One planted bug, one violation: a consequence of a violation already reported is not blamed
# again on another rule (an audit planting the bugs real loops make in valid dsh logs).


def test_TURN_1_a_turn_numbered_past_the_due_one_is_blamed_once() -> None:
    """TURN-1: a turn/start numbered 3 where 2 was due, whose events all name turn 2, is one
    violation at the turn/start; every later event was blamed again (STEP-1, STEP-3, STEP-2,
    TURN-2: five rules for one wrong number). The events after it may name the turn by either
    number, as the seqs after a LOG-1 break may."""
    report = check(BLAME / "violations" / "TURN-1-turn-numbered-past-the-due-one.jsonl")
    assert blamed(report) == [("TURN-1", 13)]


def test_STEP_1_a_step_numbered_past_the_due_one_is_blamed_once() -> None:
    """STEP-1: a step/start numbered 3 where 2 was due, whose reply and step/end name step 2, is
    one violation (it was three: STEP-1, then STEP-3 and STEP-2 on the step's own events)."""
    report = check(BLAME / "violations" / "STEP-1-step-numbered-past-the-due-one.jsonl")
    assert blamed(report) == [("STEP-1", 9)]


def test_STEP_3_a_result_in_the_next_step_is_blamed_on_STEP_3_alone() -> None:
    """STEP-3: a call's result appended after the next step/start, still naming its step, is
    STEP-3 at that line and nothing else. It was also ADJ-2 on the same line ('which no call of
    this step made', what STEP-3 says) and ADJ-3 at the turn's end, though the call has its
    result in the turn's history."""
    report = check(BLAME / "violations" / "STEP-3-result-in-the-next-step.jsonl")
    assert blamed(report) == [("STEP-3", 9)]


def test_STEP_3_a_result_in_the_next_turn_adds_no_consequences() -> None:
    """STEP-3: a result appended in the next turn: turn 1 ended with the call unanswered (ADJ-3,
    true of every prefix up to it), and the result is STEP-3, which says it is the result turn
    1 lacked; the result was also blamed ADJ-2, and the turn's own message after it ADJ-4, as if
    the misplaced result were a step's."""
    report = check(BLAME / "violations" / "STEP-3-result-in-the-next-turn.jsonl")
    assert blamed(report) == [("ADJ-3", 11), ("STEP-3", 14)]
    # The STEP-3 names the turn/end its absence was blamed at, so a reader sees one bug.
    late = report.violations[1].violation
    assert late.related == (9,)
    assert "c1's result, which its turn lacked when it ended at seq 9" in late.message


def test_DEC_2_a_call_that_ran_before_its_approval_is_blamed() -> None:
    """DEC-2: a PreToolUse hook asked about c1, and c1's success is committed before the
    approval is asked (an approval after the call ran): only allowed-once runs an asked call.
    `check` said nothing. The same log with the answer before the result keeps every rule."""
    report = check(BLAME / "violations" / "DEC-2-call-ran-before-its-approval.jsonl")
    assert blamed(report) == [("DEC-2", 9)]
    assert report.violations[0].violation.related == (4,)  # the hook's ask
    report = check(BLAME / "valid" / "DEC-2-approved-before-the-call-ran.jsonl")
    assert (blamed(report), report.status) == ([], "ok")


def test_EXE_1_a_repeated_id_whose_calls_are_each_recorded_and_answered_is_EXE_1_alone(
    tmp_path: Path,
) -> None:
    """EXE-1: a reply repeating c1 whose two calls the loop records and answers under that id
    (what dsh does) is EXE-1 at the reply and nothing else, as on Claude Code and Codex logs; it
    was also RW-1 (the first record compared with the second call), ORD-2 ('recorded twice')
    and ADJ-2 ('a second result'). Each call still holds its record and result to the rules:
    a record no call of the reply shows is RW-1, a third record ORD-2."""
    path = BLAME / "violations" / "EXE-1-both-calls-recorded-and-answered.jsonl"
    assert blamed(check(path)) == [("EXE-1", 5)]
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    other = tmp_path / "other-input.jsonl"
    other.write_text("".join(lines).replace('b.txt\\"}"}}', 'c.txt\\"}"}}'), encoding="utf-8")
    assert blamed(check(other)) == [("EXE-1", 5), ("RW-1", 8)]
    third = json.loads(lines[7])  # the second call's record, once more after its result
    third["seq"] = 8
    renumbered = [json.loads(line) for line in lines[9:]]
    for seq, event in enumerate(renumbered, start=9):
        event["seq"] = seq
    again = tmp_path / "recorded-three-times.jsonl"
    again.write_text(
        "".join(lines[:9]) + "".join(json.dumps(e) + "\n" for e in (third, *renumbered)),
        encoding="utf-8",
    )
    assert blamed(check(again)) == [("EXE-1", 5), ("ORD-2", 10)]


def test_REC_1_a_repair_that_leaves_a_call_unanswered_is_blamed_on_REC_1() -> None:
    """REC-1: a crash repair that closes the step and ends the turn interrupted without a result
    for the recorded call c1 broke REC-1 (the repair answers every call of the open step first);
    it was blamed ADJ-3 alone, the rule a completed turn with an unanswered call breaks."""
    report = check(BLAME / "violations" / "REC-1-repair-leaves-a-call-unanswered.jsonl")
    assert blamed(report) == [("REC-1", 8)]
    assert report.violations[0].violation.related == (3,)  # the reply showing the call


def test_HOOK_1_a_hook_result_naming_another_call_than_its_invocation_is_blamed() -> None:
    """HOOK-1: hook fix is invoked for c1 and its hook/result names c2: the audit no longer says
    which call the hook answered for. It was read as c2's answer and blamed twice on RW-2 (c1's
    sidecar names a hook with no rewrite for c1; fix supplied c2 an input never applied); now it
    is HOOK-1 at the hook/result, and the answer is c1's, as its invocation says."""
    report = check(BLAME / "violations" / "HOOK-1-hook-result-names-another-call.jsonl")
    assert blamed(report) == [("HOOK-1", 6)]
    assert report.violations[0].violation.related == (3,)  # the hook/invoked it answers


def test_LOG_8_a_reply_committed_without_a_call_record_is_blamed_where_its_commit_ends() -> None:
    """LOG-8: on a log that marks its commits (version 1), a reply with calls c1 and c2 whose
    commit ends after c1's record is blamed at that record's line (it passed: no rule read the
    markers), and c2's record in the next commit is not blamed again."""
    report = check(BLAME / "violations" / "LOG-8-reply-apart-from-its-records.jsonl")
    assert blamed(report) == [("LOG-8", 6)]
    (found,) = report.violations
    assert "c2" in found.violation.message
    assert found.events == (4, 3)


def test_LOG_8_a_record_lost_from_its_commit_is_LOG_8_and_its_result_not_ADJ_2() -> None:
    """LOG-8: a reply's commit of three whose third event, c2's record, never came breaks off
    at the next line; c2's result, which then has no record before it, is not blamed again
    (it was ADJ-2 alone)."""
    report = check(BLAME / "violations" / "LOG-8-record-lost-from-its-commit.jsonl")
    assert blamed(report) == [("LOG-8", 7)]
    (found,) = report.violations
    assert "breaks off after 2 of its 3 events" in found.violation.message
    assert found.events == (5, 3)


def test_LOG_8_a_commit_a_crash_cut_at_the_end_is_a_notice() -> None:
    """LOG-8: the last commit stopping before its last event is what a crash may leave, which
    the harness drops whole on reopening: a notice naming LOG-8 beside REC-2's, no violation."""
    report = check(BLAME / "valid" / "LOG-8-torn-last-commit.jsonl")
    assert (blamed(report), report.status) == ([], "ok")
    kinds = [(notice.kind, notice.rule_id, notice.line) for notice in report.notices]
    assert kinds == [("crash-tail", "REC-2", 2), ("torn-commit", "LOG-8", 5)]
    assert "drops whole" in report.notices[1].message


def test_LOG_8_a_dsh_log_is_not_held_to_commits_and_the_report_says_which_was(
    tmp_path: Path,
) -> None:
    """LOG-8: a version 0 log carries no commit markers and may commit event by event (SPEC
    section 8): the same events with header version 0 pass, and `rules_checked` lists LOG-8
    only for the version 1 log; a version check does not know is not judged at all (dsh opens
    only version 0): no violation, no rule checked."""
    marked = BLAME / "violations" / "LOG-8-reply-apart-from-its-records.jsonl"
    header, *rest = marked.read_text(encoding="utf-8").splitlines(keepends=True)
    dsh, future = tmp_path / "dsh.jsonl", tmp_path / "future.jsonl"
    dsh.write_text(header.replace('"version": 1', '"version": 0') + "".join(rest))
    future.write_text(header.replace('"version": 1', '"version": 3') + "".join(rest))
    paths = [str(marked), str(dsh), str(future)]
    reports = {report.version: report for report in check_paths(paths)}
    assert blamed(reports[0]) == []
    assert reports[0].status == "ok"
    checked = {version: rules_checked(report) for version, report in reports.items()}
    assert "LOG-8" in checked[1]
    assert "LOG-8" not in checked[0]
    assert set(checked[1]) - set(checked[0]) == {"LOG-8"}
    # A version this checker does not know is not checked, and says so.
    assert (reports[3].violations, checked[3]) == ([], [])
    assert "version is 3, which check cannot read" in reports[3].errors[0].message


@pytest.mark.parametrize(("typo", "meant"), [("dney", "deny"), ("alow", "allow")])
def test_HOOK_1_a_misspelt_decision_word_is_refused_with_the_word_meant(
    tmp_path: Path, typo: str, meant: str
) -> None:
    """HOOK-1: a hook/result's decision is one of the words dsh, Claude Code and Codex record;
    a harness that wrote "dney" passed `check` silently (its call then ran as if no hook had
    denied it). The line, the rule and the word meant are named; the quick path, the facts
    and the event class say the same."""
    result = {
        "type": "hook/result",
        "seq": 2,
        "time": 1,
        "data": {
            "turn": 1,
            "point": "PreToolUse",
            "handlerId": "p",
            "decision": typo,
            "durationMs": 0,
        },
    }
    lines = [
        {"type": "session", "version": 0, "id": "s", "createdAt": 1, "cwd": "/w"},
        {"type": "turn/start", "seq": 0, "time": 1, "data": {"turn": 1}},
        {
            "type": "hook/invoked",
            "seq": 1,
            "time": 1,
            "data": {"turn": 1, "point": "PreToolUse", "dialect": "codex", "handlerId": "p"},
        },
        result,
    ]
    log = tmp_path / "typo.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    words = "pass, allow, ask, deny, approve, block, defer, stop, error"
    why = f'hook decision must be one of {words}, got "{typo}" (did you mean "{meant}"?)'
    report = check(log)
    assert [(e.line, e.rule_id, e.message) for e in report.errors] == [
        (4, "HOOK-1", f"hook/result: {why}")
    ]
    with pytest.raises(FactError, match=r"did you mean"):
        fact_from_wire(result)
    with pytest.raises(InvalidEventError) as refused:
        event_from_wire(result)
    assert refused.value.rule_id == "HOOK-1"
    assert str(refused.value).endswith(why)


def test_HOOK_1_an_audit_recording_an_unknown_decision_word_is_refused() -> None:
    """HOOK-1: a `HookAudit` (a command's, or the hook bridge's) records only a known decision
    word; a case file's `"decision": "dney"` was replayed and written to the log as it was."""
    with pytest.raises(InvalidEventError) as refused:
        HookAudit(decision="dney")
    assert refused.value.rule_id == "HOOK-1"
    wire = {"kind": "HookAnswers", "verdict": {"decision": "pass"}, "audit": {"decision": "dney"}}
    with pytest.raises(
        ProtocolError, match=r"\$\.audit\.decision must be .*\(did you mean deny\?\)"
    ):
        command_from_json(wire)
    for word in HOOK_DECISIONS:  # each recorded word stays readable
        assert HookAudit(decision=word).decision == word


def test_HOOK_1_the_readme_lists_the_decision_words_check_reads() -> None:
    """HOOK-1: README's guide to writing logs lists every decision word a hook/result may carry
    and says another is refused. It said other words "are kept and apply none", so a reader
    took any word for valid, and `check` refuses a typo ("dney") since the list was closed."""
    readme = (FIXTURES.parent.parent.parent / "README.md").read_text(encoding="utf-8")
    words = " ".join(readme.split())
    listed = ", ".join(f"`{word}`" for word in HOOK_DECISION_WORDS)
    assert f"`decision` is one of {listed}" in words
    assert "other words are kept" not in words


_HOOK_RUNS_IN_ORDERS = [
    [("c0", "h1"), ("c0", "h2"), ("c1", "h1")],
    [("c0", "h1"), ("c1", "h1"), ("c0", "h2")],
    [("c1", "h1"), ("c0", "h1"), ("c0", "h2")],
    [("c2", "h1"), ("c0", "h1"), ("c1", "h2")],
]


@pytest.mark.parametrize("runs", _HOOK_RUNS_IN_ORDERS)
def test_HOOK_4_each_hooked_call_of_a_reply_is_asked_whatever_order_its_hooks_ran_in(
    runs: list[tuple[str, str]],
) -> None:
    """HOOK-4: a reply with two calls, c0's arguments an object and c1's not, each run through
    PreToolUse hooks (and c2, which the reply does not make): the reply is blamed whichever
    call's hooks ran first or between the other's, as the full path blames it."""
    lines = (BLAME / "violations" / "HOOK-4-hook-for-invalid-arguments.jsonl").read_text()
    rows = [json.loads(text) for text in lines.splitlines()]
    header, start, step, user, *_rest = rows
    hooks: list[dict[str, Any]] = []
    for call_id, handler in runs:
        fields = {"turn": 1, "point": "PreToolUse", "handlerId": handler, "callId": call_id}
        invoked = {**fields, "dialect": "claude-code"}
        result = {**fields, "decision": "pass", "durationMs": 1}
        hooks += [{"type": "hook/invoked", "data": invoked}]
        hooks += [{"type": "hook/result", "data": result}]
    calls = [("c0", '{"path": "a"}'), ("c1", "not json")]
    content = [{"type": "tool-call", "id": c, "name": "read", "arguments": a} for c, a in calls]
    source = {"kind": "model", "provider": "p", "model": "m"}
    message = {"id": "a", "role": "assistant", "content": content, "source": source}
    reply_data = {"turn": 1, "step": 1, "message": message}
    reply = {"type": "assistant/message", "surfaceOp": "append", "data": reply_data}
    events = [start, step, user, *hooks, reply]
    for seq, event in enumerate(events):
        event.update(seq=seq, time=1000)
    data = "".join(json.dumps(row) + "\n" for row in [header, *events]).encode()
    quick = check_stream("hooked", io.BytesIO(data))
    assert ("HOOK-4", len(events) + 1) in blamed(quick)  # the reply's line
    assert quick == check_stream("hooked", io.BytesIO(data), quick=False)


def test_LOG_4_REC_1_times_going_backwards_across_a_resume_break_no_rule() -> None:
    """LOG-4: times follow no order (SPEC says so; dsh stamps each append with its clock, which
    a resume on another machine may find behind): the demo log with its second turn timed an
    hour before its first keeps every rule, as check judges it."""
    demo = (FIXTURES / "valid" / "model-demo.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in demo.splitlines()]
    second_turn = next(i for i, row in enumerate(rows) if row.get("data") == {"turn": 2})
    for row in rows[second_turn:]:
        row["time"] -= 3_600_000
    text = "".join(json.dumps(row) + "\n" for row in rows)
    report = check_stream("resumed.jsonl", io.BytesIO(text.encode()))
    assert (report.errors, report.violations, report.notices) == ([], [], [])
    assert "Times follow no order: an event timed before the one before it" in spec_document()
