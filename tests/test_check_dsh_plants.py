"""`loopspec check` on logs in dsh's shape, written by hand as dsh 0.1.0-rc.8 writes them.

dsh's Claude Code bridge audits hooks with no `callId`, a new `handlerId` per run
(`claude-code:<point>:<n>`), after the call's `tool/call` and before its `tool/result`, and runs
PostToolUse hooks for calls whose body never ran (a deny, an abort before dispatch: recorded with
real dsh on 2026-12-05, `tests/regressions/dsh-post-hooks-for-unrun-calls.json`). A hook naming
no call is for a call of its step still without a result: when one call alone awaits one, it is
that call, and check judges it as it judges a hook naming its call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loopspec.properties.cli.main import main

Event = dict[str, Any]

HEADER = {"type": "session", "version": 0, "id": "s", "createdAt": 0, "cwd": "/work"}


def _message(kind: str, seq: int, data: dict[str, Any], **envelope: Any) -> Event:
    return {"type": kind, "seq": seq, "time": 1796452795000 + seq, "data": data, **envelope}


ARGUMENTS = '{"key": "a"}'


def _call(call_id: str, arguments: str = ARGUMENTS) -> dict[str, str]:
    return {"type": "tool-call", "id": call_id, "name": "read", "arguments": arguments}


def _hook(point: str, n: int, decision: str) -> list[tuple[str, dict[str, Any]]]:
    handler = f"claude-code:{point}:{n}"
    invoked = {"turn": 1, "point": point, "dialect": "claude-code", "handlerId": handler}
    answer = {"turn": 1, "point": point, "handlerId": handler, "decision": decision}
    return [("hook/invoked", invoked), ("hook/result", {**answer, "exitCode": 0, "durationMs": 1})]


def _result(call_id: str, text: str, *, failed: bool, code: str | None = None) -> dict[str, Any]:
    block = {"type": "tool-result", "toolCallId": call_id, "isError": failed}
    block["content"] = [{"type": "text", "text": text}]
    data: dict[str, Any] = {
        "turn": 1,
        "step": 1,
        "message": {
            "role": "user",
            "content": [block],
            "source": {"kind": "tool", "callId": call_id},
        },
    }
    if code is not None:
        data["error"] = {"name": "AbortError", "code": code}
    return data


def dsh_log(
    path: Path,
    calls: list[str],
    middle: list[tuple[str, dict[str, Any]]],
    *,
    aborted: bool = False,
    arguments: str = ARGUMENTS,
) -> Path:
    """A one-turn log: the user asks, the reply makes `calls` (each with `arguments`), each
    recorded, then `middle` (hooks and results, in order), and a closing text reply (with
    `aborted`, the step ends and the turn ends aborted)."""
    events: list[Event] = []

    def add(kind: str, data: dict[str, Any], **envelope: Any) -> None:
        events.append(_message(kind, len(events), data, **envelope))

    add("turn/start", {"turn": 1})
    add("step/start", {"turn": 1, "step": 1})
    user = {"role": "user", "content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}}
    add("user/message", user, surfaceOp="append")
    model = {"kind": "model", "provider": "scripted", "model": "scripted-model"}
    reply = {
        "role": "assistant",
        "content": [_call(c, arguments) for c in calls],
        "source": model,
    }
    add("assistant/message", {"turn": 1, "step": 1, "message": reply}, surfaceOp="append")
    records = {}
    for call_id in calls:
        records[call_id] = len(events)
        add("tool/call", {"turn": 1, "step": 1, "callId": call_id, "name": "read",
                          "arguments": arguments})  # fmt: skip
    for kind, data in middle:
        if kind == "tool/result":
            call_id = data["message"]["source"]["callId"]
            add(kind, data, surfaceOp="append", sourceEventSeqs=[records[call_id]])
        else:
            add(kind, data)
    add("step/end", {"turn": 1, "step": 1})
    if aborted:
        add("turn/end", {"turn": 1, "reason": {"kind": "aborted", "reason": {"kind": "user"}}})
        path.write_text("".join(json.dumps(e) + "\n" for e in [HEADER, *events]), encoding="utf-8")
        return path
    add("step/start", {"turn": 1, "step": 2})
    text = {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "source": model}
    add("assistant/message", {"turn": 1, "step": 2, "message": text}, surfaceOp="append")
    add("step/end", {"turn": 1, "step": 2})
    add("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    path.write_text("".join(json.dumps(e) + "\n" for e in [HEADER, *events]), encoding="utf-8")
    return path


def checked(capsys: pytest.CaptureFixture[str], log: Path) -> tuple[int, list[str]]:
    code = main(["check", "--format", "json", str(log)])
    document = json.loads(capsys.readouterr().out)
    (report,) = document["logs"]
    return code, [f"{v['rule']} {v['seq']}: {v['message']}" for v in report["violations"]]


def only_violation(capsys: pytest.CaptureFixture[str], log: Path) -> str:
    """The one violation check finds in `log`, having exited 1."""
    code, found = checked(capsys, log)
    assert (code, len(found)) == (1, 1), found
    return found[0]


DENIED = _result("c1", "Error: no reads today", failed=True)
READ = _result("c1", "A", failed=False)


def test_HOOK_5_dsh_s_post_hook_for_a_denied_call_naming_none_is_named_at_the_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real dsh denies c1 (its PreToolUse hook, naming no call) and still runs its PostToolUse
    hook before writing the denial: with c1 alone awaiting a result, both hooks are c1's. It
    passed, 0 violations, as the hooks name no call."""
    middle = [
        *_hook("PreToolUse", 1, "deny"),
        *_hook("PostToolUse", 2, "pass"),
        ("tool/result", DENIED),
    ]
    assert only_violation(capsys, dsh_log(tmp_path / "denied.jsonl", ["c1"], middle)) == (
        "HOOK-5 9: PostToolUse hook claude-code:PostToolUse:2 was invoked (seq 7), naming no "
        "call, while call c1 alone awaited a result, yet PreToolUse hook claude-code:PreToolUse:1 "
        "denied it (seq 6), naming none, and its result is an error: its body never ran (had it "
        "run, the deny was not obeyed, DEC-1): a call whose body never ran gets no PostToolUse "
        "hook, only a body that ran does"
    )


def test_HOOK_5_a_post_hook_naming_none_is_judged_only_where_one_call_awaits_a_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Allowed and run, c1's PostToolUse hook is in place; an abort before dispatch (its code
    says so) gets none, naming a call or not; with two calls awaiting results, the hook may be
    the other's, and nothing is said."""
    ran = [
        *_hook("PreToolUse", 1, "allow"),
        *_hook("PostToolUse", 2, "pass"),
        ("tool/result", READ),
    ]
    assert checked(capsys, dsh_log(tmp_path / "ran.jsonl", ["c1"], ran)) == (0, [])
    unstarted = _result(
        "c1",
        "Error: tool call aborted before dispatch",
        failed=True,
        code="ABORTED_BEFORE_DISPATCH",
    )
    aborted = [*_hook("PostToolUse", 1, "pass"), ("tool/result", unstarted)]
    code, found = checked(
        capsys, dsh_log(tmp_path / "aborted.jsonl", ["c1"], aborted, aborted=True)
    )
    assert code == 1
    assert [line.split(",")[0] for line in found] == [
        "HOOK-5 7: PostToolUse hook claude-code:PostToolUse:1 was invoked (seq 5)"
    ]
    assert "yet its result says its body never started (ABORTED_BEFORE_DISPATCH)" in found[0]
    second = _result("c2", "B", failed=False)
    two = [
        *_hook("PreToolUse", 1, "deny"),
        *_hook("PostToolUse", 2, "pass"),
        ("tool/result", DENIED),
        ("tool/result", second),
    ]
    assert checked(capsys, dsh_log(tmp_path / "two.jsonl", ["c1", "c2"], two)) == (0, [])


def test_HOOK_5_a_post_hook_naming_none_before_its_step_s_reply_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that audits c1's PostToolUse hook (naming no call, as dsh's) once the next step
    has started, before that step's reply: no call of that step is made yet, so no body of it
    ran to judge. It passed, 0 violations, where a hook naming a call so placed was named."""
    log = dsh_log(
        tmp_path / "ran.jsonl", ["c1"], [*_hook("PreToolUse", 1, "allow"), ("tool/result", READ)]
    )
    header, *events = log.read_text(encoding="utf-8").splitlines()
    reply = next(n for n, line in enumerate(events) if '"step": 2, "message"' in line)
    post = [json.dumps(_message(kind, 0, data)) for kind, data in _hook("PostToolUse", 2, "pass")]
    events[reply:reply] = post
    renumbered = [json.dumps({**json.loads(line), "seq": seq}) for seq, line in enumerate(events)]
    log.write_text("\n".join([header, *renumbered]) + "\n", encoding="utf-8")
    assert only_violation(capsys, log) == (
        f"HOOK-5 {reply}: PostToolUse hook claude-code:PostToolUse:2 is invoked, naming no call, "
        "before its step's reply: no call of the step is made yet, and a PostToolUse hook's "
        "hook/invoked and hook/result come after the call's body ran and before that call's "
        "tool/result, in its step"
    )


def test_HOOK_4_a_pre_hook_naming_none_after_the_step_s_every_result_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that audits its PreToolUse hooks once the batch is done, as dsh writes them
    (no callId): the hook decided nothing, every call having its result. It passed."""
    late = [("tool/result", READ), *_hook("PreToolUse", 1, "allow")]
    assert only_violation(capsys, dsh_log(tmp_path / "late.jsonl", ["c1"], late)) == (
        "HOOK-4 6: PreToolUse hook claude-code:PreToolUse:1 is invoked after every call of the "
        "step has its tool/result (the last at seq 5), naming none: a PreToolUse hook answers "
        "before its call is decided, so its hook/invoked and hook/result come before that "
        "call's tool/result"
    )


def test_HOOK_1_dsh_s_post_block_naming_none_ignored_by_the_result_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PostToolUse hook blocks c1's result (naming no call, as dsh audits it) and the writer
    keeps the body's success: with c1 alone awaiting a result, the block is c1's. It passed."""
    ignored = [*_hook("PostToolUse", 1, "block"), ("tool/result", READ)]
    assert only_violation(capsys, dsh_log(tmp_path / "ignored.jsonl", ["c1"], ignored)) == (
        'HOOK-1 7: PostToolUse hook claude-code:PostToolUse:1 is audited "block" for c1, whose '
        "result is not an error: a block replaces it (DEC-3) (the hook named no call: c1 alone "
        "awaited a result, so it was c1's)"
    )


def test_ABORT_1_a_turn_whose_result_says_an_abort_stopped_it_ends_aborted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that answers the calls an abort stopped (ABORTED, ABORTED_BEFORE_DISPATCH) and
    then asks the model again, the turn ending completed: it passed, 0 violations. Ended
    aborted, the same results pass; docs/check.md quotes the words."""
    stopped = _result("c1", "Error: tool call aborted", failed=True, code="ABORTED")
    unstarted = _result(
        "c2",
        "Error: tool call aborted before dispatch",
        failed=True,
        code="ABORTED_BEFORE_DISPATCH",
    )
    middle = [("tool/result", stopped), ("tool/result", unstarted)]
    found = only_violation(capsys, dsh_log(tmp_path / "went-on.jsonl", ["c1", "c2"], middle))
    assert found == (
        'ABORT-1 12: turn 1 ends "completed" after call c1\'s result says an abort stopped it '
        '(ABORTED, seq 6): after an abort the step ends, then the turn, with {"kind": '
        '"aborted", "reason": {"kind": <cause>}}, and no step follows'
    )
    ended = dsh_log(tmp_path / "ended.jsonl", ["c1", "c2"], middle, aborted=True)
    assert checked(capsys, ended) == (0, [])
    docs = (Path(__file__).resolve().parent.parent / "docs" / "check.md").read_text("utf-8")
    quoted = '"completed" after call c3\'s result says an abort stopped it'
    assert quoted in " ".join(docs.split())
    assert quoted.replace("c3", "c1") in found


def test_RW_2_a_pre_hook_naming_none_that_supplied_an_input_is_the_lone_call_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer in dsh's shape (hooks naming no call, audited after the call's tool/call) that
    records a PreToolUse hook's `updatedInput` and runs the model's input, as dsh 0.1.0-rc.8
    runs it (SPEC section 8; dsh records no `updatedInput`): with c1 alone awaiting a result,
    the input is c1's, neither recorded (no sidecar) nor refused (the result is a success),
    RW-2's. It passed, the hook naming no call. With two calls awaiting results, or a later
    hook's deny, nothing is said."""
    rewrite = _hook("PreToolUse", 1, "allow")
    rewrite[1][1]["updatedInput"] = {"key": "b"}
    ran = [*rewrite, ("tool/result", READ)]
    found = only_violation(capsys, dsh_log(tmp_path / "ran.jsonl", ["c1"], ran))
    assert found.startswith(
        "RW-2 7: hook claude-code:PreToolUse:1 (the hook named no call: c1 alone awaited a "
        "result, so it was c1's) supplied an input for c1 that was neither recorded as a rewrite "
        "nor refused: its tool/call (seq 4) carries no rewrite sidecar, and its result reports "
        "success"
    )
    second = _result("c2", "B", failed=False)
    two = [*rewrite, ("tool/result", READ), ("tool/result", second)]
    assert checked(capsys, dsh_log(tmp_path / "two.jsonl", ["c1", "c2"], two)) == (0, [])
    denied = [*rewrite, *_hook("PreToolUse", 2, "deny"), ("tool/result", DENIED)]
    assert checked(capsys, dsh_log(tmp_path / "denied.jsonl", ["c1"], denied)) == (0, [])


def test_REC_1_a_repair_that_answers_the_calls_but_never_ends_the_turn_is_named_at_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """dsh's crash repair, as real dsh 0.1.0-rc.8 writes it (killed mid-batch, resumed):
    TOOL_OUTCOME_UNKNOWN for the recorded call, step/end, turn/end interrupted, then the
    session/end-seed of the resume. A fork whose repair drops its turn/end leaves the next turn
    starting inside turn 1: that is the repair's fault (REC-1), said so, at the new turn/start.
    It was TURN-1, "turn 2 starts inside open turn 1", with nothing pointing at the repair."""
    unknown = _result(
        "c1", "The tool call was interrupted", failed=True, code="TOOL_OUTCOME_UNKNOWN"
    )
    unknown["error"]["name"] = "ToolOutcomeUnknownError"
    log = dsh_log(tmp_path / "repaired.jsonl", ["c1"], [("tool/result", unknown)], aborted=True)
    lines = log.read_text("utf-8").splitlines()
    repaired = [json.loads(line) for line in lines]
    for closer in repaired[-3:]:  # dsh stamps the closers with the last real event's time
        closer["time"] = repaired[-4]["time"]
    repaired[-1]["data"]["reason"] = {"kind": "interrupted"}
    resumed: list[Event] = [
        _message("session/end-seed", 0, {}),
        _message("turn/start", 0, {"turn": 2}),
    ]
    for event in resumed:
        event["seq"] = len(repaired) - 1
        repaired.append(event)
    log.write_text("".join(json.dumps(e) + "\n" for e in repaired), encoding="utf-8")
    assert checked(capsys, log) == (0, [])  # the repair as dsh writes it, closing turn 1
    dropped = [e for e in repaired if e["type"] != "turn/end"]
    for seq, event in enumerate(dropped[1:]):
        event["seq"] = seq
    log.write_text("".join(json.dumps(e) + "\n" for e in dropped), encoding="utf-8")
    assert only_violation(capsys, log) == (
        "REC-1 8: turn 2 starts inside open turn 1, which crash repair, from its first result "
        "(seq 5), left open: after the repair's results come step/end, if a step is open, then "
        'turn/end {"kind": "interrupted"}'
    )


def test_DEC_2_a_call_that_succeeds_while_its_approval_request_is_unanswered_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """dsh asks through its approval service after a hook's ask (the hook naming no call, the
    request naming it): real dsh writes approval/asked, approval/decided allowed-once, then the
    result. A fork that runs the call before the answer (or with none) passed, 0 violations:
    the ask was a hook's naming no call, so check did not know the call awaited one."""
    asked = {"id": "a-1", "toolName": "read", "callId": "c1"}
    allowed = {"id": "a-1", "outcome": "allowed-once"}
    ask = _hook("PreToolUse", 1, "ask")
    in_order = [
        *ask,
        ("approval/asked", asked),
        ("approval/decided", allowed),
        ("tool/result", READ),
    ]
    assert checked(capsys, dsh_log(tmp_path / "asked.jsonl", ["c1"], in_order)) == (0, [])
    late = [*ask, ("approval/asked", asked), ("tool/result", READ), ("approval/decided", allowed)]
    assert only_violation(capsys, dsh_log(tmp_path / "late.jsonl", ["c1"], late)) == (
        "DEC-2 8: call c1 ran before its approval: its approval was asked, and its result "
        "reports success with no allowed-once answer before it"
    )
    unanswered = [*ask, ("approval/asked", asked), ("tool/result", READ)]
    found = only_violation(capsys, dsh_log(tmp_path / "unanswered.jsonl", ["c1"], unanswered))
    assert found.startswith("DEC-2 8: call c1 ran before its approval")


def test_LOG_7_a_compaction_that_parts_a_call_from_its_result_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """dsh's manual compaction (compaction-basic 0.1.0-rc.8, recorded) writes a user/message
    replacing whole turns, never parting a reply's calls from their results. One whose span
    ends at c1's result leaves c2's result in the history with no call before it, which every
    provider refuses (HIST-2); one starting at c2's result leaves c1's call unanswered. Both
    passed, 0 violations: LOG-7 read only that start and end were current nodes."""
    log = dsh_log(
        tmp_path / "compacted.jsonl",
        ["c1", "c2"],
        [("tool/result", READ), ("tool/result", _result("c2", "B", failed=False))],
    )
    events = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    summary = {
        "role": "user",
        "content": [{"type": "text", "text": "Summary: two files were read."}],
        "source": {"kind": "plugin", "plugin": "compact"},
    }

    def compacted(start: int, end: int) -> str:
        replace = {"op": "replace", "start": start, "end": end}
        event = _message("user/message", len(events) - 1, summary, surfaceOp=replace)
        log.write_text("".join(json.dumps(e) + "\n" for e in [*events, event]), "utf-8")
        return only_violation(capsys, log)

    assert checked(capsys, log) == (0, [])  # 2: the prompt, 3: the reply, 6 and 7: results
    replace = {"op": "replace", "start": 2, "end": 7}  # the whole batch, as dsh compacts
    whole = _message("user/message", len(events) - 1, summary, surfaceOp=replace)
    log.write_text("".join(json.dumps(e) + "\n" for e in [*events, whole]), "utf-8")
    assert checked(capsys, log) == (0, [])
    assert compacted(2, 6) == (
        "LOG-7 13: replace 2..6 parts a call from its result: the tool/result at seq 7, left "
        "in the history, answers a call this replacement takes away; a replacement keeps a "
        "reply's calls and their results together"
    )
    assert compacted(7, 10) == (
        "LOG-7 13: replace 7..10 parts a call from its result: it takes away the tool/result at "
        "seq 7, whose call stays in the history; a replacement keeps a reply's calls and their "
        "results together"
    )


def test_HOOK_5_dsh_s_post_hook_for_a_denied_call_is_named_while_a_later_call_is_unrecorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real dsh records a call's tool/call as the call starts and audits its hooks after it:
    with c2 (exclusive) still to start, c1's deny and the PostToolUse hook dsh runs for it can
    be c1's alone. It passed, c1 and c2 both awaiting results; with c2 recorded too, the hook
    may be either's, and nothing is said."""
    middle = [
        *_hook("PreToolUse", 1, "deny"),
        *_hook("PostToolUse", 2, "pass"),
        ("tool/result", DENIED),
        *_hook("PreToolUse", 3, "allow"),
        ("tool/result", _result("c2", "B", failed=False)),
    ]
    # Both calls recorded at once, before c1's hooks (as a writer recording every call with
    # the reply does): the hooks may be either's.
    log = dsh_log(tmp_path / "two.jsonl", ["c1", "c2"], middle)
    assert checked(capsys, log) == (0, [])
    header, *events = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    c2_record = events.pop(5)  # as dsh writes it: c2 recorded as it starts, after c1's result
    events.insert(10, c2_record)
    for seq, event in enumerate(events):
        event["seq"] = seq
    events[9]["sourceEventSeqs"], events[13]["sourceEventSeqs"] = [4], [10]
    log.write_text("".join(json.dumps(e) + "\n" for e in [header, *events]), encoding="utf-8")
    assert only_violation(capsys, log).startswith(
        "HOOK-5 9: PostToolUse hook claude-code:PostToolUse:2 was invoked (seq 7), naming no "
        "call, while call c1 alone awaited a result"
    )


@pytest.mark.parametrize(
    ("arguments", "what"),
    [
        ("[1, 2]", '"[1, 2]" are an array, not an object'),
        ("{key: a}", '"{key: a}" are not valid JSON'),
        ('"a.txt"', '"\\"a.txt\\"" are a string, not an object'),
        ("1e400", '"1e400" are a number, not an object'),
        (
            '{"offset": -0.0}',
            '"{\\"offset\\": -0.0}" have no lossless JSON value (LOG-3), so every reader keeps '
            "their raw text",
        ),
        (" \n", None),  # blank: {} (EXE-2)
        ('{"offset": 1.0}', None),
    ],
)
def test_EXE_2_a_call_whose_arguments_are_no_object_that_succeeds_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: str, what: str | None
) -> None:
    """A writer that runs c1 with arguments that are not a JSON object (EXE-2: it ends as an
    INVALID_TOOL_INPUT error, unrun) and writes its success. It passed, 0 violations: no rule
    of check read a call's arguments but against another reader's. Its error passes."""
    ran = dsh_log(tmp_path / "ran.jsonl", ["c1"], [("tool/result", READ)], arguments=arguments)
    if what is None:
        assert checked(capsys, ran) == (0, [])
        return
    assert only_violation(capsys, ran) == (
        f"EXE-2 5: call c1's arguments {what}, yet its result reports success: a call whose "
        "arguments are not a JSON object never runs, it ends as an INVALID_TOOL_INPUT error "
        "before any hook (EXE-5)"
    )
    invalid = [("tool/result", _result("c1", "Error: invalid", failed=True))]
    refused = dsh_log(tmp_path / "refused.jsonl", ["c1"], invalid, arguments=arguments)
    assert checked(capsys, refused) == (0, [])


@pytest.mark.parametrize(
    ("written", "stamped", "found"),
    [
        (("assistant/message", 1), False, ["LOG-1 3"]),
        (("tool/result", 1), True, ["LOG-1 5"]),
        (("turn/end", 1), False, ["LOG-1 10"]),
        (("assistant/message", 3), False, ["LOG-1 3"]),
        (("tool/call", 1), None, ["LOG-1 4", "ORD-2 4", "RW-1 4"]),
    ],
)
def test_LOG_1_events_written_again_on_resuming_are_one_fault(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    written: tuple[str, int],
    stamped: bool | None,
    found: list[str],
) -> None:
    """A writer that, resuming, writes its last event again (stamped anew, or not), or its
    last three (the reply, the call's record, its result): LOG-1 once, naming the repetition,
    where check added what each copy breaks (the reply: ORD-1 and ADJ-1; the record: ORD-2;
    the result: ADJ-2; the turn's end: TURN-2). Another event at a taken seq (`stamped` None:
    the call recorded with other arguments) is no repetition, judged as the event it is."""
    kind, lines = written  # the first event written again, and how many from it
    log = dsh_log(tmp_path / "resumed.jsonl", ["c1"], [("tool/result", READ)])
    header, *events = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    at = next(index for index, event in enumerate(events) if event["type"] == kind)
    again = json.loads(json.dumps(events[at : at + lines]))
    if stamped:
        again[0]["time"] += 7
    if stamped is None:
        again[0]["data"]["arguments"] = '{"key": "b"}'
    events[at + lines : at + lines] = again
    log.write_text("".join(json.dumps(e) + "\n" for e in [header, *events]), encoding="utf-8")
    code, said = checked(capsys, log)
    assert (code, [each.split(":")[0] for each in said]) == (1, found)
    if stamped is not None:
        seq, line = events[at]["seq"], at + 2
        what = (
            f"line {line + 1} repeats line {line}, the event of seq {seq} again"
            if lines == 1
            else f"lines {line + lines} to {line + 2 * lines - 1} repeat lines {line} to "
            f"{line + lines - 1}, the events of seqs {seq} to {seq + lines - 1} again"
        )
        assert said[0].endswith(
            f"{what} (times aside: copied, or written again by a writer resuming): each event "
            "is written once, and a resumed writer goes on from the log's last seq "
            f"({seq + lines - 1}); the lines repeated are not judged again"
        )


@pytest.mark.parametrize(
    ("updated", "rule", "what"),
    [
        ("ls -la", "HOOK-6", 'a string, "ls -la"'),
        ([1, 2], "HOOK-6", "an array, [1, 2]"),
        ({"key": "b"}, "RW-2", None),
    ],
)
def test_HOOK_6_an_input_that_is_no_object_run_anyway_is_named(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    updated: object,
    rule: str,
    what: str | None,
) -> None:
    """HOOK-6: a PreToolUse hook's allow supplies an input that is no JSON object, and the call
    succeeds (the writer ran it, or ran the model's input in its place). Such an input denies
    the call. It was RW-2, 'neither recorded as a rewrite nor refused ... record that input as
    the call's arguments', which no record could do. An object so supplied is still RW-2, and
    the call refused (its result an error) breaks neither."""
    invoked, answer = _hook("PreToolUse", 1, "allow")
    answer[1]["updatedInput"] = updated
    ran = dsh_log(tmp_path / "ran.jsonl", ["c1"], [invoked, answer, ("tool/result", READ)])
    found = only_violation(capsys, ran)
    assert found.startswith(f"{rule} 7: ")
    if what is not None:
        assert found == (
            f"HOOK-6 7: hook claude-code:PreToolUse:1 (the hook named no call: c1 alone awaited "
            f"a result, so it was c1's) supplied an input for c1 that is {what}, yet its result "
            "reports success: an input in effect that is not a JSON object denies the call, "
            "with a reason naming the hook, and the call never runs"
        )
    refused = _result("c1", "Error: hook claude-code:PreToolUse:1 rewrote ...", failed=True)
    middle = [invoked, answer, ("tool/result", refused)]
    assert checked(capsys, dsh_log(tmp_path / "refused.jsonl", ["c1"], middle)) == (0, [])
