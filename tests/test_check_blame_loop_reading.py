"""`loopspec check` on hand-written logs whose verdict SPEC.md's words decide, for the rules of
the log and the loop's structure (LOG, TURN, STEP, ORD, ADJ, ABORT, REC): session 21's reading
of the spec by a harness author who knows only SPEC.md and docs/.

Each log is under tests/fixtures/logs/blame/ (see its README): each test is a case where the
checker's verdict differed from what SPEC.md says, fixed since.
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from blame_logs import BLAME, blamed, check

from loopspec import spec_text as shipped_spec
from loopspec.model.errors import InvalidEventError
from loopspec.model.wire import event_from_wire
from loopspec.properties.conformance.run import spec_text


def test_ORD_2_a_record_after_a_reply_that_makes_no_calls_is_blamed_on_ORD_2() -> None:
    """ORD-2: each tool/call records a call of the step's reply; ORD-1 only asks that it come
    after the reply. A tool/call after a reply that makes no calls (an interrupted one, which
    keeps only its text, ABORT-2) was blamed on ORD-1 as coming "before the step's reply named
    it", though the reply came first: the record names a call the reply does not make. A
    record before any reply is still ORD-1's."""
    report = check(BLAME / "violations" / "ORD-2-record-of-an-interrupted-reply.jsonl")
    assert blamed(report) == [("ORD-2", 6)]
    (found,) = report.violations
    assert found.violation.related == (3,)  # the reply
    assert "makes no tool calls" in found.violation.message
    report = check(BLAME / "violations" / "ORD-1-record-before-the-reply.jsonl")
    assert blamed(report) == [("ORD-1", 5)]


def test_TURN_3_a_step_end_outside_any_turn_is_blamed_once_as_a_step_start_is() -> None:
    """TURN-3: step/end happens only inside an open turn. A step/end after its turn ended was
    blamed twice, on TURN-3 and on STEP-2 ("does not close the open step, turn None step
    None", Python's None in a user's report), where a step/start there is TURN-3's alone: no
    step can be open outside a turn, so STEP-2 adds nothing."""
    report = check(BLAME / "violations" / "TURN-3-step-end-after-the-turn-ended.jsonl")
    assert blamed(report) == [("TURN-3", 8)]


def test_STEP_2_a_step_end_with_no_step_open_says_so() -> None:
    """STEP-2: a second step/end, with no step of the turn open, was reported as not closing
    "the open step, turn 1 step None": the report now says no step of turn 1 is open."""
    report = check(BLAME / "violations" / "STEP-2-step-end-with-no-step-open.jsonl")
    assert blamed(report) == [("STEP-2", 7)]
    (found,) = report.violations
    assert found.violation.message == "step/end of turn 1 step 1, but no step of turn 1 is open"
    assert "None" not in found.violation.message


@pytest.mark.parametrize(
    ("log", "line", "says"),
    [
        ("LOG-6-result-with-role-tool", 7, 'data.message.role must be "user", not "tool"'),
        ("LOG-6-reply-with-role-user", 5, 'data.message.role must be "assistant", not "user"'),
        (
            "LOG-6-result-block-of-another-type",
            7,
            "content must be exactly one tool-result block; it holds 'tool_result'",
        ),
        (
            "LOG-6-text-beside-the-result-block",
            7,
            "content must be exactly one tool-result block; it holds 'tool-result', 'text'",
        ),
    ],
)
def test_LOG_6_check_refuses_the_message_the_model_cannot_read(
    log: str, line: int, says: str
) -> None:
    """LOG-6: a tool result message has role user and its content is exactly one tool-result
    block; a message's role is the one its event says. The model's reader refuses each of
    these lines under LOG-6, and `check` read them all: a result written with OpenAI's role
    `tool` or Anthropic's block type `tool_result`, or a reply whose role is `user`, passed as
    clean, and a text block beside the one result block was refused as not having "exactly
    one tool-result block", which it had. Each is now an input error at its line, naming LOG-6
    and what the content holds."""
    path = BLAME / "violations" / f"{log}.jsonl"
    report = check(path)
    assert (blamed(report), report.status) == ([("LOG-6", line)], "error")
    assert says in report.errors[0].message
    wire = json.loads(path.read_text(encoding="utf-8").splitlines()[line - 1])
    with pytest.raises(InvalidEventError) as refused:
        event_from_wire(wire)
    assert refused.value.rule_id == "LOG-6"


def test_ABORT_2_a_turn_that_goes_on_after_an_interrupted_reply_is_blamed_and_spec_says_so() -> (
    None
):
    """ABORT-2: after an interrupted reply the step and turn end `aborted`; a log whose turn
    goes on to a second step and ends `completed` breaks that. `check` passed it (its invariant
    read only the reply's calls), and SPEC.md said so; the invariant
    `interrupted_reply_ends_its_turn` now blames the second step/start, once (not the
    `completed` end as well), and SPEC.md says it does."""
    report = check(BLAME / "violations" / "ABORT-2-turn-goes-on-after-an-interrupted-reply.jsonl")
    assert blamed(report) == [("ABORT-2", 7)]
    assert report.violations[0].violation.related == (3,)  # the interrupted reply
    assert "interrupted_reply_ends_its_turn" in spec_text("ABORT-2")
    assert "that its step and turn then end aborted, are not flagged" not in spec_text("ABORT-2")


def test_REC_1_a_step_between_the_repair_and_the_turn_end_is_blamed_and_spec_says_so() -> None:
    """REC-1: repair closes the turn right after its results; a log with a whole step between
    the repair result and the `interrupted` turn/end breaks that. `check` passed it (its
    invariant read the results' codes and how the turn ends), and SPEC.md said so; the invariant
    `repair_closers_follow_each_other` now blames the step/start that intrudes, once, and
    SPEC.md says it does."""
    report = check(BLAME / "violations" / "REC-1-a-step-between-the-repair-and-the-turn-end.jsonl")
    assert blamed(report) == [("REC-1", 9)]
    assert report.violations[0].violation.related == (5,)  # the repair's first result
    assert "repair_closers_follow_each_other" in spec_text("REC-1")
    said = spec_text("REC-1")
    assert "that the closers follow the repair results with nothing between is not" not in said


def test_TURN_5_asks_for_the_kind_alone_and_check_reads_no_more() -> None:
    """TURN-5: SPEC.md listed `aborted` "(with the cause)" and `interrupted` "(repair only)",
    which read as if a reason without a cause, or an `interrupted` turn no repair closed, broke
    TURN-5; the model's TurnEnded and `check` ask for a string kind alone, the rest being
    ABORT-3's and REC-1's. It now says so."""
    said = spec_text("TURN-5")
    assert "This rule asks for the kind alone" in said
    assert "(with the cause)" not in said


def test_LOG_4_an_event_without_a_time_in_whole_milliseconds_is_refused(tmp_path: Path) -> None:
    """LOG-4: every event is `{type, seq, time, data}`, and the model's reader refuses one
    without a `time`, or with one that is not a number of whole milliseconds; `check` never
    read `time` and passed such a log with 0 violations. Each is now an input error at its
    line; a whole number written as a float (`1000.0`) is read, as the model reads it. A time
    below 0 (dsh writes its clock's, never before the epoch, as the header's createdAt) passed
    both readers; SPEC gave events no range. It is refused by both, on check's quick path
    too."""
    lines = (BLAME / "violations" / "ORD-1-two-text-replies.jsonl").read_text().splitlines()
    for time, status, found in (
        (None, "error", [("LOG-4", 3)]),
        ("noon", "error", [("LOG-4", 3)]),
        (1000.5, "error", [("LOG-4", 3)]),
        (1000.0, "violations", [("ORD-1", 6)]),
        (-1, "error", [("LOG-4", 3)]),
        (-1.0, "error", [("LOG-4", 3)]),
        (0, "violations", [("ORD-1", 6)]),
    ):
        step = json.loads(lines[2])
        if time is None:
            del step["time"]
        else:
            step["time"] = time
        with pytest.raises(InvalidEventError) if status == "error" else nullcontext():
            event_from_wire(step)
        path = tmp_path / "timed.jsonl"
        path.write_text("\n".join([*lines[:2], json.dumps(step), *lines[3:]]) + "\n")
        report = check(path)
        assert (blamed(report), report.status) == (found, status), time


def test_LOG_3_check_refuses_the_numbers_the_model_refuses_in_event_data(tmp_path: Path) -> None:
    """LOG-3: event data is lossless JSON; the model's reader refuses -0.0 and a number too
    large for a double (1e400 reads as an infinity), naming LOG-3. `check` read both and passed
    the log. Each is now an input error at its line naming LOG-3 and the number; the integer
    -0 (which reads as 0, for the model too) and 0.0 are read."""
    lines = (BLAME / "violations" / "ORD-1-two-text-replies.jsonl").read_text().splitlines()
    for number, found in (
        ("-0.0", [("LOG-3", 5)]),
        ("-0e0", [("LOG-3", 5)]),
        ("1e400", [("LOG-3", 5)]),
        ("-0", [("ORD-1", 6)]),
        ("0.0", [("ORD-1", 6)]),
    ):
        usage = f'}}}}, "usage": {{"tokens": {number}}}}}, "surfaceOp"'
        reply = lines[4].replace('}}}, "surfaceOp"', usage)
        assert json.loads(reply)["data"]["usage"] is not None
        if found[0][0] == "LOG-3":
            with pytest.raises(InvalidEventError) as refused:
                event_from_wire(json.loads(reply))
            assert refused.value.rule_id == "LOG-3"
        path = tmp_path / "numbers.jsonl"
        path.write_text("\n".join([*lines[:4], reply, *lines[5:]]) + "\n")
        report = check(path)
        assert blamed(report) == found, number
        if found[0][0] == "LOG-3":
            assert f"the number {number} " in report.errors[0].message


def test_ORD_1_a_compaction_written_as_an_assistant_message_is_no_second_reply() -> None:
    """ORD-1 with ADJ-1: a message that replaces only nodes before the reply takes their place,
    before the calls (ADJ-1), and an assistant/message that replaces nodes and makes no calls
    is a compaction, not a reply (the checker's own fold reads it so). Written while a call
    awaits its result, it was blamed as "a second assistant/message in one step", though the
    same summary written before the reply passed. It keeps every rule now; a second appended
    reply is still ORD-1's."""
    name = "ORD-1-compaction-as-an-assistant-message-while-a-call-awaits.jsonl"
    report = check(BLAME / "valid" / name)
    assert (blamed(report), report.status) == ([], "ok")
    report = check(BLAME / "violations" / "ORD-1-two-text-replies.jsonl")
    assert blamed(report) == [("ORD-1", 6)]
    assert "makes no calls is a compaction, not a reply" in spec_text("ORD-1")


def test_ADJ_4_check_does_not_judge_an_empty_context_delivered_and_spec_says_so() -> None:
    """ADJ-4: an empty context is no context, and nothing is queued for it; a tool's empty
    context delivered as a user/message of its own breaks that (dsh's known
    `empty-tool-context-delivered`), and `check`, which reads no message's text, passes it.
    ADJ-4's Where listed what the checker leaves to conformance without it."""
    report = check(BLAME / "unchecked" / "ADJ-4-an-empty-tool-context-delivered.jsonl")
    assert (blamed(report), report.status) == ([], "ok")
    assert "nor is an empty context delivered as a message of its own" in spec_text("ADJ-4")


@pytest.mark.parametrize(
    ("surface", "says"),
    [
        ({"surfaceOp": {"op": "append"}}, 'unknown surfaceOp {"op": "append"}: it is "append"'),
        ({"surfaceOp": "prepend"}, 'unknown surfaceOp "prepend"'),
        ({"surfaceOp": "append", "sourceEventSeqs": "3"}, "must be an array of integers"),
        ({"surfaceOp": "append", "sourceEventSeqs": ["3"]}, "must be an array of integers"),
    ],
)
def test_LOG_2_a_surfaceOp_or_citation_check_cannot_read_names_LOG_2_as_the_model_does(
    surface: dict[str, object], says: str, tmp_path: Path
) -> None:
    """LOG-2: the surface events carry surfaceOp, the string "append" or a replace, and may
    carry sourceEventSeqs, seqs of earlier events. The model's reader refuses a surfaceOp of
    another shape, and citations that are not an array of integers, naming LOG-2; `check`
    refused the same lines naming LOG-4 (a missing surfaceOp was already LOG-2's). Both name
    LOG-2 now, and the message says what a surfaceOp is."""
    lines = (BLAME / "violations" / "ORD-1-two-text-replies.jsonl").read_text().splitlines()
    user = json.loads(lines[3])
    user.pop("surfaceOp")
    user.update(surface)
    with pytest.raises(InvalidEventError) as refused:
        event_from_wire(user)
    assert refused.value.rule_id == "LOG-2"
    path = tmp_path / "surface.jsonl"
    path.write_text("\n".join([*lines[:3], json.dumps(user), *lines[4:]]) + "\n")
    report = check(path)
    assert (blamed(report), report.status) == ([("LOG-2", 4)], "error")
    assert says in report.errors[0].message


@pytest.mark.parametrize("surface", [{}, {"surfaceOp": None}], ids=["absent", "null"])
def test_LOG_2_a_surface_event_without_surfaceOp_reads_alike_absent_or_null(
    surface: dict[str, object], tmp_path: Path
) -> None:
    """LOG-2: a surfaceOp written as null reads as one left out, by check and by the model's
    reader alike: check blames LOG-2 at the line and reads on (a log in the June layout, whose
    messages carry none, is told by a later line), and the model's reader, which cannot build
    the event, refuses it in the same words, which say what to write (a loop's author was told
    only that it "must carry surfaceOp"). The model's reader called null "an unknown
    surfaceOp None", a shape it is not."""
    lines = (BLAME / "violations" / "ORD-1-two-text-replies.jsonl").read_text().splitlines()
    user = json.loads(lines[3])
    user.pop("surfaceOp")
    user.update(surface)
    with pytest.raises(InvalidEventError) as refused:
        event_from_wire(user)
    says = (
        'user/message must carry surfaceOp: "append" when its message joins the end of the '
        'model\'s history, {"op": "replace", "start": S, "end": E} when it replaces nodes S..E '
        "(LOG-7)"
    )
    assert (refused.value.rule_id, refused.value.message) == ("LOG-2", says)
    path = tmp_path / "surface.jsonl"
    path.write_text("\n".join([*lines[:3], json.dumps(user), *lines[4:]]) + "\n")
    report = check(path)
    assert (blamed(report), report.status) == ([("LOG-2", 4), ("ORD-1", 6)], "violations")
    assert report.violations[0].violation.message == says


@pytest.mark.parametrize(
    ("log", "line", "rule"),
    [
        ("ORD-3-later-result-first", 8, "ORD-3"),
        ("DEC-1-denied-call-succeeded", 9, "DEC-1"),
        ("DEC-2-call-ran-before-its-approval", 9, "DEC-2"),
        ("RW-2-rewrite-applied-without-its-sidecar", 9, "RW-2"),
        ("STEP-3-result-in-the-next-step", 9, "STEP-3"),
    ],
)
def test_LOG_2_ORD_3_DEC_1_DEC_2_RW_2_STEP_3_a_result_without_surfaceOp_is_judged_as_an_append(
    log: str, line: int, rule: str, tmp_path: Path
) -> None:
    """LOG-2, and the rules of results: a tool/result without surfaceOp answers its call, as
    the append its writer meant (as the model's result event, `ToolResultRecorded`, is one
    unless it names a replace), so the rules a result keeps judge it too. It was LOG-2's alone:
    a result out of the reply's order, or a denied call's success, went unjudged so."""
    lines = (BLAME / "violations" / f"{log}.jsonl").read_text().splitlines()
    result = json.loads(lines[line - 1])
    assert result["type"] == "tool/result"
    del result["surfaceOp"]
    path = tmp_path / "result.jsonl"
    path.write_text("\n".join([*lines[: line - 1], json.dumps(result), *lines[line:]]) + "\n")
    assert blamed(check(path)) == [("LOG-2", line), (rule, line)]


@pytest.mark.parametrize(
    ("source", "rule", "says"),
    [
        ({"kind": "tool"}, "LOG-6", 'tool result block cites "c1" but its source names no call'),
        (None, "LOG-4", "data.message.source is missing; it must be an object"),
        ("tool", "LOG-4", "data.message.source must be an object"),
    ],
)
def test_LOG_6_a_result_whose_source_names_no_call_is_refused_as_the_model_refuses_it(
    source: object, rule: str, says: str, tmp_path: Path
) -> None:
    """LOG-6: a tool result block's toolCallId equals source.callId. A source naming no call
    (or no source at all) passed `check`, which compared the two only when both were there;
    the model's reader refuses it (LOG-6, or LOG-4 for a source that is no object). Each is now
    an input error naming that rule."""
    lines = (BLAME / "violations" / "LOG-6-result-with-role-tool.jsonl").read_text().splitlines()
    result = json.loads(lines[6])
    result["data"]["message"]["role"] = "user"
    if source is None:
        del result["data"]["message"]["source"]
    else:
        result["data"]["message"]["source"] = source
    with pytest.raises(InvalidEventError) as refused:
        event_from_wire(result)
    assert refused.value.rule_id == rule
    if rule == "LOG-6":  # the model's reader says what check says ("None" was Python's word)
        assert says in str(refused.value), refused.value
    path = tmp_path / "source.jsonl"
    path.write_text("\n".join([*lines[:6], json.dumps(result), *lines[7:]]) + "\n")
    report = check(path)
    assert (blamed(report), report.status) == ([(rule, 7)], "error")
    assert says in report.errors[0].message


def test_LOG_4_check_refuses_a_message_the_models_reader_refuses_and_spec_says_so(
    tmp_path: Path,
) -> None:
    """LOG-4: the model's reader refuses a message whose text block has no text, or whose id
    is a number. `check` read of a message only what its rules read and passed both, and
    SPEC.md said so; a log it passed was then one the model could not read. It now refuses
    each at its line, in the model's words, and section 2 says a message is read whole."""
    lines = (BLAME / "violations" / "ORD-1-two-text-replies.jsonl").read_text().splitlines()
    user = json.loads(lines[3])
    for broken in ({"content": [{"type": "text"}]}, {"id": 7}):
        edited = {**user, "data": {**user["data"], **broken}}
        with pytest.raises(InvalidEventError) as refused:
            event_from_wire(edited)
        assert refused.value.rule_id == "LOG-4"
        path = tmp_path / "message.jsonl"
        path.write_text("\n".join([*lines[:3], json.dumps(edited), *lines[4:]]) + "\n")
        report = check(path)
        assert blamed(report) == [("LOG-4", 4)]
        assert refused.value.message in report.errors[0].message
    spec = " ".join(shipped_spec().split())
    assert "the rest of a message's shape" not in spec
    assert "its text and reasoning blocks" in spec


@pytest.mark.parametrize(
    ("line", "edit", "says"),
    [
        (5, ("message", "content", 0, "id"), "data.message.content[].id must be a non-empty"),
        (5, ("message", "content", 0, "name"), "data.message.content[].name must be a non-empty"),
        (6, ("callId",), "data.callId must be a non-empty string"),
        (6, ("name",), "data.name must be a non-empty string"),
    ],
)
def test_LOG_4_a_call_with_an_empty_id_or_tool_name_is_refused_as_the_model_refuses_it(
    line: int, edit: tuple[str | int, ...], says: str, tmp_path: Path
) -> None:
    """LOG-4: the model's reader refuses a tool-call block or a tool/call whose id or tool name
    is the empty string (providers pair a result to its call by the id); `check` read them, and
    a reply calling "" passed as clean. Each is now an input error at its line."""
    lines = (BLAME / "violations" / "ORD-1-record-before-the-reply.jsonl").read_text().splitlines()
    # The reply first, each line keeping its seq: a log that keeps every rule.
    call, reply = json.loads(lines[4]), json.loads(lines[5])
    call["seq"], reply["seq"] = reply["seq"], call["seq"]
    result = json.loads(lines[6])
    result["sourceEventSeqs"] = [call["seq"]]
    lines[4], lines[5], lines[6] = json.dumps(reply), json.dumps(call), json.dumps(result)
    path = tmp_path / "empty.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert (blamed(check(path)), check(path).status) == ([], "ok")
    event = json.loads(lines[line - 1])
    holder: Any = event["data"]
    for key in edit[:-1]:
        holder = holder[key]
    holder[edit[-1]] = ""
    with pytest.raises(InvalidEventError) as refused:
        event_from_wire(event)
    assert refused.value.rule_id == "LOG-4"
    lines[line - 1] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n")
    report = check(path)
    assert (blamed(report), report.status) == ([("LOG-4", line)], "error")
    assert says in report.errors[0].message


def test_LOG_3_names_the_minus_zero_it_refuses() -> None:
    """LOG-3: the Rule listed "-0" among the values refused, but the model refuses a float
    negative zero only (-0.0, -0e0), and the JSON integer -0 reads as 0 (JSON.parse gives -0,
    so a JavaScript implementer refused it); check reads it too (see the LOG-3 test above).
    The Rule now says which."""
    said = spec_text("LOG-3")
    assert "a float negative zero" in said
    assert "the JSON integer `-0` reads as `0`" in said


def _result_text_as_a_string(line: dict[str, Any]) -> None:
    line["data"]["message"]["content"][0]["content"] = "Error: denied"


def _reply_text_as_a_number(line: dict[str, Any]) -> None:
    line["data"]["message"]["content"][0]["text"] = 7


def _reason_as_a_word(line: dict[str, Any]) -> None:
    line["data"]["reason"] = "completed"


@pytest.mark.parametrize(
    ("line_number", "edit", "rule", "says"),
    [
        (
            11,
            _result_text_as_a_string,
            "LOG-4",
            "tool/result.data.message.content[0].content must be an array",
        ),
        (
            9,
            _reply_text_as_a_number,
            "LOG-4",
            "assistant/message.data.message.content[0].text must be a string",
        ),
        (
            13,
            _reason_as_a_word,
            "TURN-5",
            'turn/end: data.reason must be an object with a non-empty string kind: write {"kind": '
            '"completed"}, not the string "completed"',
        ),
    ],
    ids=["result", "reply", "reason"],
)
def test_LOG_4_a_member_check_cannot_read_is_named_by_its_path_once(
    line_number: int, edit: Any, rule: str, says: str, tmp_path: Path
) -> None:
    """LOG-4, TURN-5: a message's member of the wrong type is named by the model's reader's
    path, which starts with the event's type: it read "tool/result: tool/result.data.message
    ...", the type twice, to a loop's author who wrote a result's text as a string; and a
    turn/end's reason written as a bare word says how to write it (it read "turn/end: turn/end
    needs a reason with a non-empty string kind")."""
    lines = (BLAME / "valid" / "DEC-1-asked-and-denied-call-fails.jsonl").read_text().splitlines()
    broken = json.loads(lines[line_number - 1])
    edit(broken)
    lines[line_number - 1] = json.dumps(broken)
    path = tmp_path / "member.jsonl"
    path.write_text("\n".join(lines) + "\n")
    report = check(path)
    assert (blamed(report), report.status) == ([(rule, line_number)], "error")
    assert report.errors[0].message == says
