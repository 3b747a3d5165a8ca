"""`loopspec check` on Claude Code transcripts and Codex rollouts with one writer bug planted.

Each log below is written by hand in the shape Claude Code 2.1.332 and Codex 0.171.0 write
(the records check reads, with only the fields it reads), then given one bug a CLI, or a tool
that converts or forwards its logs, could write: a result moved, written twice or late, a hook
record out of place, a compaction between a call and its result, a resume without the repair.
Check must name the rule SPEC.md says the bug breaks, at the line to fix, once: what only
follows from it (a result written late after its call was blamed as left unanswered) is not
blamed again.
"""

from __future__ import annotations

import io
import json
import shlex
from typing import Any

from loopspec.properties.logcheck.checker import check_stream

Record = dict[str, Any]


def _check(records: list[Record]) -> list[tuple[str, int, tuple[int, ...], str]]:
    """Each violation of the log `records` make: rule, line, cited lines, message."""
    text = "".join(json.dumps(record) + "\n" for record in records)
    report = check_stream("planted.jsonl", io.BytesIO(text.encode()))
    assert report.errors == [], report.errors
    return [
        (found.violation.rule_id, found.line or 0, found.events or (), found.violation.message)
        for found in report.violations
    ]


# ---------------------------------------------------------------------------------------------
# Claude Code: one block per record, a reply's records sharing `message.id`.


def _prompt(text: str) -> Record:
    return {"type": "user", "sessionId": "s1", "message": {"role": "user", "content": text}}


def _tool_use(message_id: str, call_id: str, command: str) -> Record:
    block = {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}
    message = {"id": message_id, "role": "assistant", "content": [block]}
    return {"type": "assistant", "sessionId": "s1", "message": message}


def _text(message_id: str, text: str, model: str = "claude-sonnet-4-5") -> Record:
    content = [{"type": "text", "text": text}]
    message = {"id": message_id, "role": "assistant", "model": model, "content": content}
    return {"type": "assistant", "sessionId": "s1", "message": message}


def _result(call_id: str, output: str) -> Record:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": output}
    return {"type": "user", "sessionId": "s1", "message": {"role": "user", "content": [block]}}


def _hook(call_id: str, command: str) -> Record:
    output = {"hookEventName": "PreToolUse", "updatedInput": {"command": command}}
    attachment = {
        "type": "hook_success",
        "hookEvent": "PreToolUse",
        "toolUseID": call_id,
        "command": "python3 hooks/rewrite.py",
        "stdout": json.dumps({"hookSpecificOutput": output}),
    }
    return {"type": "attachment", "sessionId": "s1", "attachment": attachment}


# Two calls of one reply (lines 2, 3), answered in order (4, 5), then the model's answer (6).
TWO_CALLS = [
    _prompt("print two words"),
    _tool_use("msg_1", "toolu_a", "echo one"),
    _tool_use("msg_1", "toolu_b", "echo two"),
    _result("toolu_a", "one"),
    _result("toolu_b", "two"),
    _text("msg_2", "Printed both."),
]


def test_the_unplanted_transcript_keeps_every_rule() -> None:
    assert _check(TWO_CALLS) == []


def test_ADJ_3_results_written_after_the_next_reply_are_blamed_once_at_that_reply() -> None:
    """The model's answer written before the two results: ADJ-3 at the answer, naming both
    calls. The results after it answer those calls, late: each was also blamed ADJ-2 ("a
    result for call toolu_a, which is not awaited"), three lines for one misplaced record."""
    planted = [*TWO_CALLS[:3], TWO_CALLS[5], *TWO_CALLS[3:5]]
    ((rule, line, cited, message),) = _check(planted)
    assert (rule, line, cited) == ("ADJ-3", 4, (4, 2, 3))
    assert message == "a new model reply comes while calls toolu_a, toolu_b were never answered"


def test_ADJ_2_a_result_written_twice_names_the_line_of_the_first() -> None:
    """A forwarder that writes a result record twice: ADJ-2 at the second, citing the first
    (it cited only its own line, leaving the user to search for the answer it repeats)."""
    planted = [*TWO_CALLS[:5], TWO_CALLS[4], TWO_CALLS[5]]
    assert _check(planted) == [
        ("ADJ-2", 6, (6, 5), "a result for call toolu_b, which is already answered")
    ]


def test_HOOK_4_a_hook_record_written_after_its_calls_result_is_blamed_there() -> None:
    """A PreToolUse hook's record written after the result of the call it answered (Claude
    Code writes it before): HOOK-4 at the hook's line, naming the result's, and the rewrite it
    supplied, which ran while the history keeps the model's input, is still RW-1 (it was
    missed: the result had been judged with no hook record yet)."""
    planted = [*TWO_CALLS[:3], TWO_CALLS[3], _hook("toolu_a", "echo rewritten"), *TWO_CALLS[4:]]
    found = _check(planted)
    assert [(rule, line, cited) for rule, line, cited, _ in found] == [
        ("HOOK-4", 5, (5, 4)),
        ("RW-1", 5, (5, 4, 2)),
    ]
    assert found[0][3] == (
        "PreToolUse hook `python3 hooks/rewrite.py` is recorded for call toolu_a after that "
        "call's result (line 4): a PreToolUse hook answers before its call runs"
    )
    # Written in its place, the same hook is RW-1's alone, at the result.
    in_place = [*TWO_CALLS[:3], _hook("toolu_a", "echo rewritten"), *TWO_CALLS[3:]]
    assert [(rule, line) for rule, line, _, _ in _check(in_place)] == [("RW-1", 5)]


def test_HOOK_4_a_hook_record_written_again_after_its_calls_result_is_blamed_once() -> None:
    """A converter that writes a hook's record again after its call's result (no uuid tells
    the copy): one HOOK-4 at the copy, citing the first answer and the result, where that one
    record was blamed twice at its line (answering again; recorded after the result)."""
    hook = _hook("toolu_a", "echo one")
    planted = [*TWO_CALLS[:3], hook, TWO_CALLS[3], hook, *TWO_CALLS[4:]]
    assert _check(planted) == [
        (
            "HOOK-4",
            6,
            (6, 4, 5),
            "PreToolUse hook `python3 hooks/rewrite.py` answers call toolu_a again (line 4), after "
            "that call's result (line 5): a PreToolUse hook answers once per call, before its "
            "call runs",
        )
    ]


def test_ADJ_1_a_compaction_summary_between_a_call_and_its_result_is_named_so() -> None:
    """A compaction's summary (`isCompactSummary`) written between the calls and their
    results: ADJ-1, named as what it is, where it said "a user message"."""
    summary = {**_prompt("This session is being continued. Summary: ..."), "isCompactSummary": True}
    planted = [*TWO_CALLS[:3], summary, *TWO_CALLS[3:]]
    assert _check(planted) == [
        (
            "ADJ-1",
            4,
            (4, 2, 3),
            "a compaction summary (isCompactSummary) lands while calls toolu_a, toolu_b await "
            "their results",
        )
    ]


def test_REC_1_claude_codes_own_message_where_a_call_awaits_its_repair() -> None:
    """Killed while a call ran, resumed without the repair result Claude Code writes
    (`toolDenialKind` interrupted), its own `No response requested.` (model `<synthetic>`)
    comes while the call still awaits its result: REC-1 there, where it said ADJ-3 ("a new
    model reply comes"), a reply the model never made."""
    planted = [
        _prompt("run the long job"),
        _tool_use("msg_1", "toolu_long", "sleep 60"),
        _text("m-synthetic", "No response requested.", model="<synthetic>"),
        _prompt("go on"),
        _text("msg_2", "Done."),
    ]
    assert _check(planted) == [
        (
            "REC-1",
            3,
            (3, 2),
            "an assistant message the model never wrote (No response requested.) comes where "
            "call toolu_long still awaits its result, and no repair answered it: a turn cut "
            "short (by a crash, or by a failed request or an interrupt the log does not mark) "
            "closes adding no reply: crash repair only answers the calls awaiting results",
        )
    ]


def test_REC_1_a_message_the_model_never_wrote_after_its_prompt_guesses_no_crash() -> None:
    """Claude Code's own message right after a prompt the model never answered: an API error
    notice that lost its `isApiErrorMessage` mark, or `No response requested.` after an
    interrupt whose notice `[Request interrupted by user]` was dropped, reads as a crash's
    resume. REC-1 at the message, as before, but the words said "before a crash cut the turn,
    and resuming adds": a guess the transcript does not bear out. They say what it shows."""
    cut_short = (
        "follows, sent to it as its own: a turn cut short (by a crash, or by a failed request or "
        "an interrupt the log does not mark) closes adding no reply: crash repair only answers "
        "the calls awaiting results"
    )
    unmarked_error = _text("m-synthetic", "API Error: 500", model="<synthetic>")
    lost_notice = _text("m-synthetic", "No response requested.", model="<synthetic>")
    for own, shown in ((unmarked_error, "API Error: 500"), (lost_notice, "No response requested.")):
        planted = [_prompt("summarise the repository"), own, _prompt("go on"), _text("m2", "Done.")]
        assert _check(planted) == [
            (
                "REC-1",
                2,
                (2, 1),
                f"the model never replied to line 1, and an assistant message it never wrote "
                f"({shown}) {cut_short}",
            )
        ]
    # With its mark, the error notice is no reply (never sent to the model): nothing to blame.
    marked = {**unmarked_error, "isApiErrorMessage": True}
    assert _check([_prompt("summarise the repository"), marked, _prompt("go on")]) == []


def test_LOG_3_a_record_written_twice_whole_is_read_once_and_one_rewritten_is_noted() -> None:
    """A transcript's record written twice, uuid and every byte alike (a forwarder's retry, a
    copy appended): resuming, Claude Code 2.1.332 sends it to the model once (seen offline
    2026-12-05 with a result, and a tool_use, written again next to itself or at the end of
    the file), so check reads it once, with a notice naming both lines. It was blamed as the
    model saw it twice (ADJ-2, EXE-1). Another record with that uuid, its content changed, is
    judged as the record it is, and noted: Claude Code resumes with the later (seen too), not
    what the model was sent."""
    records = [{**record, "uuid": f"u{n}"} for n, record in enumerate(TWO_CALLS, 1)]
    text = "".join(json.dumps(record) + "\n" for record in records)
    lines = text.splitlines(keepends=True)
    again = [*lines[:4], lines[3], *lines[4:], lines[2], lines[4]]
    report = check_stream("planted.jsonl", io.BytesIO("".join(again).encode()))
    assert (report.errors, report.violations) == ([], [])
    assert [(n.kind, n.line, n.rule_id) for n in report.notices] == [("repeated-record", 5, None)]
    assert report.notices[0].message == (
        "line 5 is line 4 written again, uuid and all: Claude Code reads one record per uuid "
        "when it resumes the session, so check reads it once; so do 2 more line(s): 8, 9"
    )
    assert report.events == len(records)
    # The same uuid with other content: a second result, ADJ-2 naming both lines, and a note
    # saying what the log shows (it was ADJ-2 alone: two results, as if the CLI wrote both).
    changed = {
        **records[3],
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "ONE"}],
        },
    }
    planted = [*lines[:4], json.dumps(changed) + "\n", *lines[4:]]
    report = check_stream("planted.jsonl", io.BytesIO("".join(planted).encode()))
    assert [(f.violation.rule_id, f.line, f.events) for f in report.violations] == [
        ("ADJ-2", 5, (5, 4))
    ]
    assert [(n.kind, n.line, n.rule_id, n.message) for n in report.notices] == [
        (
            "rewritten-record",
            5,
            "LOG-3",
            "line 5 gives the uuid of line 4 with other content: resuming the session, Claude "
            "Code sends the model the later record in place of the one it was sent; check reads "
            "both",
        )
    ]
    # A prompt given again with other content breaks no rule check reads: the note alone.
    edited = lines[0] + json.dumps({**records[0], "message": {"role": "user", "content": "x"}})
    report = check_stream("planted.jsonl", io.BytesIO(edited.encode()))
    assert report.violations == []
    assert [(n.kind, n.line) for n in report.notices] == [("rewritten-record", 2)]


# ---------------------------------------------------------------------------------------------
# Codex: `{timestamp, type, payload}` records.


def _codex(kind: str, payload: Record) -> Record:
    return {"timestamp": "2026-12-05T10:00:00.000Z", "type": kind, "payload": payload}


def _task(turn: str) -> Record:
    return _codex("event_msg", {"type": "task_started", "turn_id": turn})


def _user(text: str) -> Record:
    content = [{"type": "input_text", "text": text}]
    return _codex("response_item", {"type": "message", "role": "user", "content": content})


def _call(call_id: str, command: str) -> Record:
    arguments = json.dumps({"cmd": command})
    payload = {"type": "function_call", "name": "exec_command", "arguments": arguments}
    return _codex("response_item", {**payload, "call_id": call_id})


def _output(call_id: str, output: str) -> Record:
    payload = {"type": "function_call_output", "call_id": call_id, "output": output}
    return _codex("response_item", payload)


def _answer(text: str) -> Record:
    content = [{"type": "output_text", "text": text}]
    return _codex("response_item", {"type": "message", "role": "assistant", "content": content})


# Turn 1: a call (line 3) and its output (4), the answer (5); turn 2 starts at line 6.
TWO_TURNS = [
    _task("turn1"),
    _user("print one"),
    _call("call_1", "echo one"),
    _output("call_1", "one"),
    _answer("Printed one."),
    _task("turn2"),
    _user("and two"),
    _answer("Two."),
]


def test_the_unplanted_rollout_keeps_every_rule() -> None:
    assert _check(TWO_TURNS) == []


def test_ADJ_2_a_rollout_line_written_twice_is_read_twice_as_codex_resumes_it() -> None:
    """A rollout's records have no id of their own, and Codex 0.171.0, resuming, sends each
    line the rollout holds, an output written twice, next to itself, twice (seen offline
    2026-12-05): that output is ADJ-2 at the copy, as the model was sent two, where a
    transcript's copy is set aside (Claude Code sends it once)."""
    twice = [*TWO_TURNS[:4], TWO_TURNS[3], *TWO_TURNS[4:]]
    assert [(rule, line, cited) for rule, line, cited, _ in _check(twice)] == [("ADJ-2", 5, (5, 4))]


def test_ADJ_1_a_compacted_record_between_a_call_and_its_output() -> None:
    """A `compacted` record (the history replaced by its summary) between a call and its
    output: ADJ-1 (SPEC: nothing replaces the history from the reply on before its last
    result), where check read no compaction in a rollout and found nothing."""
    compacted = _codex("compacted", {"message": "summary", "replacement_history": []})
    planted = [*TWO_TURNS[:3], compacted, *TWO_TURNS[3:]]
    assert _check(planted) == [
        (
            "ADJ-1",
            4,
            (4, 3),
            "a compaction summary (compacted) lands while call call_1 awaits its result",
        )
    ]


def test_an_output_written_after_the_next_turns_start_is_no_crash() -> None:
    """An output written after the next turn's task_started, before anything the model reads
    in it (the answer before it joins the call's reply: a rollout marks no reply's end): the
    call was answered, nothing sits between it and its call in the history, and a rollout
    numbers no turn's events, so nothing is broken that it shows. It was REC-1 ("a turn a crash
    left open"), and the output ADJ-2. After the next turn's prompt, that prompt landed between
    the call and its output: ADJ-1 at the prompt. With the next reply before any output, the
    turn was opened over a call a crash left unanswered: REC-1, as before."""
    after_start = [*TWO_TURNS[:3], TWO_TURNS[4], TWO_TURNS[5], TWO_TURNS[3], *TWO_TURNS[6:]]
    assert _check(after_start) == []
    after_prompt = [*TWO_TURNS[:3], *TWO_TURNS[4:7], TWO_TURNS[3], TWO_TURNS[7]]
    assert [(rule, line, cited) for rule, line, cited, _ in _check(after_prompt)] == [
        ("ADJ-1", 6, (6, 3))
    ]
    never = [*TWO_TURNS[:3], *TWO_TURNS[5:]]
    assert [(rule, line) for rule, line, _, _ in _check(never)] == [("REC-1", 4)]


def test_ADJ_2_an_output_written_before_its_call_splits_no_reply() -> None:
    """Two calls of one reply, the second's output written between them (a forwarder flushing
    outputs early): ADJ-2 at the output, answering no call yet, and nothing more: the output
    answers the call made after it, which was then blamed ADJ-3 too where the answer came (and,
    before that, the output ended the reply, so the second call read as a new reply while the
    first awaited its output: one more ADJ-3, and that output ADJ-2 too), four lines for one
    misplaced record. A Claude Code result written before its call is the same one ADJ-2,
    where an ORD-3 at the next result and an ADJ-3 at the next reply followed."""
    planted = [
        _task("turn1"),
        _user("print two words"),
        _call("call_1", "echo one"),
        _output("call_2", "two"),
        _call("call_2", "echo two"),
        _output("call_1", "one"),
        _answer("Printed both."),
    ]
    assert [(rule, line, cited) for rule, line, cited, _ in _check(planted)] == [
        ("ADJ-2", 4, (4,)),
    ]
    early = [TWO_CALLS[0], TWO_CALLS[3], *TWO_CALLS[1:3], *TWO_CALLS[4:]]
    assert [(rule, line) for rule, line, _, _ in _check(early)] == [("ADJ-2", 2)]
    # An answer right after an output for no call is a reply of its own, as before.
    typo = [*planted[:3], _output("call_x", "one"), _answer("Printed one.")]
    assert [(rule, line) for rule, line, _, _ in _check(typo)] == [("ADJ-2", 4), ("ADJ-3", 5)]


# A local model's two replies, each numbering its call `call_0`, each call with its hook's record
# after its own (lines 2-4, 5-7), then the model's answer.
REUSED_ID = [
    _prompt("print two words, one at a time"),
    _tool_use("msg_1", "call_0", "echo one"),
    _hook("call_0", "echo one"),
    _result("call_0", "one"),
    _tool_use("msg_2", "call_0", "echo two"),
    _hook("call_0", "echo two"),
    _result("call_0", "two"),
    _text("msg_3", "Printed both."),
]


def test_a_call_id_a_later_reply_reuses_is_a_new_call_with_hooks_of_its_own() -> None:
    """Local models number each reply's calls anew (`call_0`), and Claude Code keeps the id:
    EXE-1 asks ids to differ within a reply only, so the second `call_0` is a new call. Its
    hook's record was read as the first call's hook answering again after that call's result
    (HOOK-4 twice) and what the first hook supplied as run by the second call (RW-1 twice)."""
    reused = REUSED_ID
    assert _check(reused) == []
    # The second call's hook rewrote its input: RW-1 once, at its result, naming its own hook.
    rewritten = [*reused[:5], _hook("call_0", "echo rewritten"), *reused[6:]]
    assert [(rule, line, cited) for rule, line, cited, _ in _check(rewritten)] == [
        ("RW-1", 7, (7, 6, 5))
    ]


def test_two_replies_a_server_gave_one_message_id_are_told_apart_by_their_request() -> None:
    """A server in front of the model may give two replies one `message.id`: loopspec's own
    scripted model did, numbering its replies by the assistant messages a request holds, when
    Claude Code 2.1.332 left a reused id's call out of the request (seen offline 2026-12-05).
    Each record names the request it answers (`requestRef`), which tells the replies apart:
    the second reply's `call_0` was read as the first reply's call id given twice (EXE-1)."""

    def answering(record: Record, request: str) -> Record:
        return {**record, "requestRef": request}

    one_id = [
        REUSED_ID[0],
        answering(_tool_use("msg_1", "call_0", "echo one"), "req-1"),
        answering(_tool_use("msg_1", "call_1", "echo uno"), "req-1"),
        _result("call_0", "one"),
        _result("call_1", "uno"),
        answering(_tool_use("msg_1", "call_0", "echo two"), "req-2"),
        _result("call_0", "two"),
        answering(_text("msg_2", "Printed them."), "req-3"),
    ]
    assert _check(one_id) == []
    # Without the request's mark (a converter's), one id is one reply, as before.
    unmarked = [{k: v for k, v in r.items() if k != "requestRef"} for r in one_id]
    assert [(rule, line) for rule, line, _, _ in _check(unmarked)] == [("EXE-1", 6)]


def test_a_hook_written_before_the_reply_that_reuses_its_calls_id_is_that_calls() -> None:
    """Claude Code 2.1.332 writes a PreToolUse hook's record after its call's own record (seen
    offline 2026-12-05 in 551 replies numbering their calls `call_0`, `call_1` anew, the
    blocks streamed at once or 2 s apart), so a hook record before its reply is a converter's,
    writing hooks in the model's order, and check takes it for that reply's call, as it does
    for an id not reused (below). With the id reused, the record stands after the earlier
    call's result: it was blamed as that call's hook answering again and late (HOOK-4 twice),
    and what it supplied as run by the earlier call (RW-1 citing `echo one`)."""
    # The second hook's record moved before its reply, after the first call's result.
    reused = [*REUSED_ID[:4], REUSED_ID[5], REUSED_ID[4], *REUSED_ID[6:]]
    assert _check(reused) == []
    # What it supplied is held to the new call: RW-1 at that call's result, citing the hook.
    rewritten = [*reused[:4], _hook("call_0", "echo rewritten"), *reused[5:]]
    assert [(rule, line, cited) for rule, line, cited, _ in _check(rewritten)] == [
        ("RW-1", 7, (7, 5, 6))
    ]
    # The next reply makes no call_0: the earlier call's hook, recorded after its result.
    other = [
        *reused[:2],
        reused[3],
        _hook("call_0", "echo one"),
        _tool_use("msg_2", "call_1", "echo two"),
        _result("call_1", "two"),
        reused[7],
    ]
    found = _check(other)
    assert [(rule, line, cited) for rule, line, cited, _ in found] == [("HOOK-4", 4, (4, 3))]
    assert found[0][3] == (
        "PreToolUse hook `python3 hooks/rewrite.py` is recorded for call call_0 after that "
        "call's result (line 3): a PreToolUse hook answers before its call runs"
    )
    # The new call has its own record of that hook, in its place: the one before the reply was
    # the earlier call's, late.
    late = [*reused[:6], _hook("call_0", "echo two"), *reused[6:]]
    found = _check(late)
    assert [(rule, line, cited) for rule, line, cited, _ in found] == [("HOOK-4", 5, (5, 4))]


def test_HOOK_4_a_hook_naming_a_call_its_step_never_makes_is_blamed_at_its_own_line() -> None:
    """A forwarder that writes a hook record with the id of the next turn's call: HOOK-4 at
    that record (the reply being run makes no such call), where check blamed the next turn's
    own hook record, the one in its place, for answering again."""
    second_turn = [
        _prompt("and two"),
        _tool_use("msg_3", "toolu_c", "echo three"),
        _hook("toolu_c", "echo three"),
        _result("toolu_c", "three"),
        _text("msg_4", "Printed three."),
    ]
    planted = [*TWO_CALLS[:3], _hook("toolu_c", "echo one"), *TWO_CALLS[3:], *second_turn]
    found = _check(planted)
    assert [(rule, line, cited) for rule, line, cited, _ in found] == [("HOOK-4", 4, (4, 2))]
    assert found[0][3] == (
        "PreToolUse hook `python3 hooks/rewrite.py` answers call toolu_c, which the reply being "
        "run (line 2) does not make: a PreToolUse hook answers a call of its step's reply"
    )
    # Written before its own call, in the model's order (hooks answer before the reply is
    # committed), a hook record is its call's, in whichever record of the reply makes it.
    before = [*TWO_CALLS, second_turn[0], second_turn[2], second_turn[1], *second_turn[3:]]
    assert _check(before) == []
    both_before = [TWO_CALLS[0], _hook("toolu_a", "echo one"), _hook("toolu_b", "echo two")]
    assert _check([*both_before, *TWO_CALLS[1:]]) == []
    # Naming a call no reply makes before the log ends: blamed there too.
    assert [(rule, line) for rule, line, _, _ in _check([*TWO_CALLS, _hook("toolu_z", "x")])] == [
        ("HOOK-4", 7)
    ]


def _ran(call_id: str, command: str) -> Record:
    item = {"type": "CommandExecution", "id": call_id, "command": ["/bin/bash", "-lc", command]}
    return _codex("event_msg", {"type": "item_completed", "item": item})


def test_REC_1_a_resumed_rollout_whose_task_started_was_dropped() -> None:
    """Codex killed while a call ran writes no repair; resumed, the next turn's task_started
    dropped (a converter keeping response_items only), the user's message opens the turn: REC-1
    there, once, where check said ADJ-1 at the message and ADJ-3 at the reply, two rules for
    one crash left unrepaired. The command's record between them changes nothing."""
    planted = [
        _task("turn1"),
        _user("run the long job"),
        _call("call_1", "sleep 60"),
        _user("go on"),
        _ran("call_1", "sleep 60"),
        _answer("Resumed."),
    ]
    assert _check(planted) == [
        (
            "REC-1",
            4,
            (4, 3),
            "a turn (a user's prompt) starts, where call call_1 still awaits its result: a turn "
            "a crash left open is closed by crash repair, which answers its calls, before the "
            "next starts",
        )
    ]
    # With the call's output after the message, the message landed between them: ADJ-1.
    answered = [*planted[:5], _output("call_1", "done"), planted[5]]
    assert [(rule, line, cited) for rule, line, cited, _ in _check(answered)] == [
        ("ADJ-1", 4, (4, 3))
    ]


def _one_command(command: str, ran: Record) -> list[Record]:
    """A turn of one call of `command` (lines 1-3), the record `ran` of its run (4), its output
    (5) and the model's answer (6)."""
    return [
        _task("turn1"),
        _user("run a command"),
        _call("call_1", command),
        ran,
        _output("call_1", "done"),
        _answer("Ran it."),
    ]


def test_RW_1_a_command_record_naming_no_call_ran_what_no_reader_holds() -> None:
    """A forwarder that renames a CommandExecution's id: a command ran as a call no
    function_call makes, so neither the history nor the call record holds what ran: RW-1 at
    that record, where check judged nothing (the call it ran for has no run to compare)."""
    ran = _one_command("echo one", _ran("call_1", "echo one"))
    assert _check(ran) == []
    renamed = [*ran[:3], _ran("exec_1", "echo one"), *ran[4:]]
    assert _check(renamed) == [
        (
            "RW-1",
            4,
            (4,),
            "a command ran as call exec_1 (echo one), which no call before it in the log makes: "
            "neither the model history nor the log's call record holds what ran",
        )
    ]
    # The call's function_call dropped: blamed once, at the first record left without it
    # (the output answering no call only follows from it).
    dropped = [*ran[:2], *ran[3:]]
    assert [(rule, line) for rule, line, _, _ in _check(dropped)] == [("RW-1", 3)]
    output_first = [*ran[:2], ran[4], ran[3], ran[5]]
    assert [(rule, line) for rule, line, _, _ in _check(output_first)] == [("ADJ-2", 3)]
    # The user's own `!` command runs for no call.
    shell = _ran("exec_2", "ls")
    shell["payload"]["item"]["source"] = "user_shell"
    assert _check([*ran, shell]) == []


def test_REC_1_once_where_a_resumed_turns_task_started_follows_its_prompt() -> None:
    """Records ordered by a timestamp they share put the resumed turn's task_started after its
    user message: REC-1 at the turn start, once, where check also blamed the message ADJ-1 for
    landing while the call awaited its output."""
    planted = [
        _task("turn1"),
        _user("run the long job"),
        _call("call_1", "sleep 60"),
        _user("go on"),
        _task("turn2"),
        _answer("Resumed."),
    ]
    assert [(rule, line, cited) for rule, line, cited, _ in _check(planted)] == [
        ("REC-1", 5, (5, 3))
    ]


def test_RW_1_reads_a_command_joined_into_one_shell_quoted_string() -> None:
    """A CommandExecution whose command is the argv joined into one string (as Codex's
    app-server reports it, `/bin/bash -lc 'echo one'`) ran the call's own script: no RW-1 and
    RW-2, which check reported comparing the whole string with the call's `cmd`. A script that
    differs is still RW-1, named by the script."""

    def joined(call_id: str, command: str) -> Record:
        record = _ran(call_id, command)
        item = record["payload"]["item"]
        item["command"] = shlex.join(item["command"])
        return record

    ran = _one_command("echo 'one two'", joined("call_1", "echo 'one two'"))
    assert _check(ran) == []
    rewritten = [*ran[:3], joined("call_1", "echo rewritten"), *ran[4:]]
    found = _check(rewritten)
    assert [(rule, line) for rule, line, _, _ in found] == [("RW-1", 4), ("RW-2", 4)]
    assert found[0][3] == (
        "call call_1 ran echo rewritten, but the model history and the log's call record keep "
        """{"cmd": "echo 'one two'"}"""
    )


def test_a_pre_tool_use_hook_record_without_its_call_id_is_an_input_error_at_its_line() -> None:
    """A PreToolUse hook_success whose toolUseID a converter dropped names no call: an input
    error at its line, as a tool_use or tool_result without its id is (Claude Code writes one
    on every such record), where check read it as naming call "None"."""
    hook = _hook("toolu_a", "echo one")
    del hook["attachment"]["toolUseID"]
    text = "".join(json.dumps(record) + "\n" for record in [*TWO_CALLS[:3], hook])
    report = check_stream("planted.jsonl", io.BytesIO(text.encode()))
    assert [(error.line, error.kind, error.message) for error in report.errors] == [
        (
            4,
            "bad-event",
            "a claude-code record: a PreToolUse hook_success's toolUseID must be a non-empty "
            "string, not null",
        )
    ]
