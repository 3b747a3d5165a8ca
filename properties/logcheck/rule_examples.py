"""Each rule `loopspec check` judges a log by, shown broken: the reference model's demo log with
one small edit that breaks exactly that rule.

`loopspec spec RULE --example` prints one (`properties.cli.spec_example`), and the repository's
fixtures `tests/fixtures/logs/violations/RULE.jsonl` are these logs written out
(`tests/check_fixtures.py`): one source for both. Each edit is a function below, its docstring
saying what it does; `breaking_rows` applies one to the demo log and numbers the result. The
rules of `RULE_BREAKERS` are exactly those SPEC.md's invariant registry (section 7) names, as
the tests hold; LOG-8, which check judges only in a log that marks its commits (version 1, as
`loopspec run` writes it), is broken in the demo log written so (`MARKED_RULE_BREAKERS`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from loopspec.model.repair import NOT_STARTED_TEXT, REPAIR_RESULT_ID
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.logcheck.synth import (
    HEADER,
    MARKED_HEADER,
    Row,
    jsonl,
    marked_model_rows,
    model_rows,
    renumber,
)

Rows = list[Row]
Mutation = Callable[[Rows], Rows]


def demo_rows() -> Rows:
    """The model's log of the scripted demo: two full turns, then a crash and its repair."""
    return model_rows(DEMO_CONFIG, DEMO_COMMANDS)


# ---------------------------------------------------------------------------------------------
# Finding rows.


def row_data(row: Row) -> dict[str, Any]:
    data = row.get("data")
    return data if isinstance(data, dict) else {}


def call_of(row: Row) -> str | None:
    """The call a row is about: tool/call's callId, tool/result's toolCallId."""
    data = row_data(row)
    if row["type"] == "tool/result":
        return str(data["message"]["content"][0]["toolCallId"])
    call_id = data.get("callId")
    return call_id if isinstance(call_id, str) else None


def find_row(rows: Rows, kind: str, *, call: str | None = None, **fields: object) -> int:
    """The index of the first row of type `kind` about `call` with these data fields."""
    for index, row in enumerate(rows):
        if row["type"] != kind or (call is not None and call_of(row) != call):
            continue
        if all(row_data(row).get(key) == value for key, value in fields.items()):
            return index
    raise LookupError(f"no {kind} {call or ''} {fields}")


def message_id(row: Row) -> str | None:
    """The id of the message a surface row carries, if it has one."""
    data = row_data(row)
    message = data if row["type"] == "user/message" else data.get("message")
    name = message.get("id") if isinstance(message, dict) else None
    return name if isinstance(name, str) else None


def fresh_row(row: Row) -> Row:
    """A copy of `row` to insert: numbering gives it the next seq, and `edited_rows` its own time
    and message id."""
    new = copy.deepcopy(row)
    new["seq"] = None
    return new


# ---------------------------------------------------------------------------------------------
# One edit per rule. Each returns rows with seq None for new rows; `number` numbers them.


def break_log_1(rows: Rows) -> Rows:
    """The last event skips a seq: it carries one more than its index."""
    return rows  # numbering would undo an edit made here: `number` makes it


def break_log_2(rows: Rows) -> Rows:
    """The first step/end carries surfaceOp, which only surface events may."""
    rows[find_row(rows, "step/end", turn=1, step=1)]["surfaceOp"] = "append"
    return rows


def break_log_7(rows: Rows) -> Rows:
    """Between the steps of turn 1, a tool/result replacement shadows the user's message."""
    target = rows[find_row(rows, "user/message")]["seq"]
    replacement = fresh_row(rows[find_row(rows, "tool/result", call="call_a")])
    replacement["surfaceOp"] = {"op": "replace", "start": target, "end": target}
    replacement["sourceEventSeqs"] = [target]
    rows.insert(find_row(rows, "step/end", turn=1, step=1) + 1, replacement)
    return rows


def break_turn_1(rows: Rows) -> Rows:
    """Turn 2 and everything after it are numbered one higher: turn 3 starts where 2 was due."""
    start = find_row(rows, "turn/start", turn=2)
    for row in rows[start:]:
        data = row_data(row)
        if type(data.get("turn")) is int:
            data["turn"] += 1
    return rows


def break_turn_2(rows: Rows) -> Rows:
    """Turn 1's second step never ends: turn/end comes while it is open."""
    del rows[find_row(rows, "step/end", turn=1, step=2)]
    return rows


def break_turn_3(rows: Rows) -> Rows:
    """A request/header (an in-turn event) between turn 1's end and turn 2's start."""
    header: Row = {"type": "request/header", "seq": None, "time": 0, "data": {"header": {}}}
    rows.insert(find_row(rows, "turn/start", turn=2), header)
    return rows


def break_step_1(rows: Rows) -> Rows:
    """Turn 1's second step is numbered 3 throughout: it starts where step 2 was due."""
    for index in range(find_row(rows, "step/start", turn=1, step=2), len(rows)):
        data = row_data(rows[index])
        if data.get("turn") == 1 and data.get("step") == 2:
            data["step"] = 3
    return rows


def break_step_2(rows: Rows) -> Rows:
    """Turn 1's second step/end names step 1."""
    row_data(rows[find_row(rows, "step/end", turn=1, step=2)])["step"] = 1
    return rows


def break_step_3(rows: Rows) -> Rows:
    """The reply of turn 1's second step names step 1."""
    row_data(rows[find_row(rows, "assistant/message", turn=1, step=2)])["step"] = 1
    return rows


def break_ord_1(rows: Rows) -> Rows:
    """In turn 2, the tool/call is recorded before the reply that makes the call."""
    reply = find_row(rows, "assistant/message", turn=2, step=1)
    call = find_row(rows, "tool/call", call="call_d")
    rows[reply], rows[call] = rows[call], rows[reply]
    return rows


def break_exe_1(rows: Rows) -> Rows:
    """Turn 3's reply carries its one tool call twice, under the same id, and the harness
    records and repairs each: two tool/calls, two repair results, both citing the first
    tool/call, since results pair by id."""
    reply = row_data(rows[find_row(rows, "assistant/message", turn=3, step=1)])
    content = reply["message"]["content"]
    content.append(copy.deepcopy(content[-1]))
    for kind in ("tool/call", "tool/result"):
        first = find_row(rows, kind, call="call_e")
        rows.insert(first + 1, fresh_row(rows[first]))
    return rows


def break_exe_2(rows: Rows) -> Rows:
    """The model sends call_a's path as a JSON string, not an object (in the reply and its
    tool/call alike), and the loop reads the file all the same: its result reports success."""
    arguments = '"a.txt"'
    reply = row_data(rows[find_row(rows, "assistant/message", turn=1, step=1)])
    for block in reply["message"]["content"]:
        if block.get("id") == "call_a":
            block["arguments"] = arguments
    row_data(rows[find_row(rows, "tool/call", call="call_a")])["arguments"] = arguments
    return rows


def break_ord_2(rows: Rows) -> Rows:
    """The result for call_a does not cite its tool/call."""
    del rows[find_row(rows, "tool/result", call="call_a")]["sourceEventSeqs"]
    return rows


def break_rw_1(rows: Rows) -> Rows:
    """The tool/call for call_a records other arguments than the reply shows."""
    call = row_data(rows[find_row(rows, "tool/call", call="call_a")])
    call["arguments"] = '{"file_path":"z.txt"}'
    return rows


def break_adj_1(rows: Rows) -> Rows:
    """A user message lands after turn 1's calls are recorded, before their results."""
    message = fresh_row(rows[find_row(rows, "user/message")])
    message["data"]["content"] = [{"type": "text", "text": "one more thing"}]
    rows.insert(find_row(rows, "tool/call", call="call_c") + 1, message)
    return rows


def break_adj_4(rows: Rows) -> Rows:
    """A tool context lands after turn 2's last result, before its step/end, not after the next
    step/start."""
    context = fresh_row(rows[find_row(rows, "user/message")])
    context["data"]["content"] = [{"type": "text", "text": "a note from the tool"}]
    context["data"]["source"] = {"kind": "plugin", "plugin": "tool-context"}
    rows.insert(find_row(rows, "tool/result", call="call_d") + 1, context)
    return rows


def break_adj_2(rows: Rows) -> Rows:
    """The result for call_b is committed twice."""
    # call_b's, whose copy lands where the approval/decided was, at a seq no message's id
    # names: the copy is named for its seq (m14), as the model names a message
    first = find_row(rows, "tool/result", call="call_b")
    rows.insert(first + 1, fresh_row(rows[first]))
    return rows


def break_adj_3(rows: Rows) -> Rows:
    """Turn 2's call is never answered, and the turn ends completed."""
    del rows[find_row(rows, "tool/result", call="call_d")]
    return rows


def break_ord_3(rows: Rows) -> Rows:
    """The results for call_a and call_b are committed out of model order."""
    first = find_row(rows, "tool/result", call="call_a")
    second = find_row(rows, "tool/result", call="call_b")
    rows[first], rows[second] = rows[second], rows[first]
    return rows


def break_hook_1(rows: Rows) -> Rows:
    """Turn 2's safe-flags hook/result answers no hook/invoked."""
    del rows[find_row(rows, "hook/invoked", turn=2, handlerId="safe-flags")]
    return rows


def break_hook_4(rows: Rows) -> Rows:
    """Turn 2's policy hook runs twice for the same call."""
    invoked = find_row(rows, "hook/invoked", turn=2, handlerId="policy")
    pair = [fresh_row(rows[invoked]), fresh_row(rows[invoked + 1])]
    rows[invoked + 2 : invoked + 2] = pair
    return rows


def break_hook_5(rows: Rows) -> Rows:
    """An audit PostToolUse hook's pair for call_a is written right after call_a's result."""
    pre = find_row(rows, "hook/invoked", turn=1, handlerId="policy")
    invoked, answered = fresh_row(rows[pre]), fresh_row(rows[pre + 1])
    result = find_row(rows, "tool/result", call="call_a")
    for row in (invoked, answered):
        row_data(row).update({"point": "PostToolUse", "handlerId": "audit", "callId": "call_a"})
        for copied in ("matcher", "stderrSummary"):
            row_data(row).pop(copied, None)
    row_data(answered)["decision"] = "pass"
    rows[result + 1 : result + 1] = [invoked, answered]
    return rows


def break_rw_2(rows: Rows) -> Rows:
    """call_c's rewrite sidecar names the policy hook, which supplied no input, last."""
    sidecar = row_data(rows[find_row(rows, "tool/call", call="call_c")])["rewrite"]
    sidecar["handlerIds"] = [*sidecar["handlerIds"], "policy"]
    return rows


def break_rw_3(rows: Rows) -> Rows:
    """The safe-flags hook answers call_c only after turn 1's reply is committed."""
    invoked = find_row(rows, "hook/invoked", turn=1, handlerId="safe-flags")
    pair = rows[invoked : invoked + 2]
    del rows[invoked : invoked + 2]
    reply = find_row(rows, "assistant/message", turn=1, step=1)
    rows[reply + 1 : reply + 1] = pair
    return rows


def break_rw_4(rows: Rows) -> Rows:
    """The approval request for call_c shows the original input, not the rewritten one."""
    call = row_data(rows[find_row(rows, "tool/call", call="call_c")])
    original = call["rewrite"]["originalArguments"]
    row_data(rows[find_row(rows, "approval/asked")])["arguments"] = original
    return rows


def break_hook_6(rows: Rows) -> Rows:
    """A read-guard PreToolUse hook allows call_a with an input that is a string, "a.txt", no
    JSON object, and call_a runs: its result reports success."""
    pre = find_row(rows, "hook/invoked", turn=1, handlerId="policy")
    invoked, answered = fresh_row(rows[pre]), fresh_row(rows[pre + 1])
    for row in (invoked, answered):
        row_data(row).update({"handlerId": "read-guard", "callId": "call_a"})
        for copied in ("matcher", "stderrSummary", "reason"):
            row_data(row).pop(copied, None)
    row_data(answered).update({"decision": "allow", "updatedInput": "a.txt"})
    rows[pre:pre] = [invoked, answered]
    return rows


def break_dec_1(rows: Rows) -> Rows:
    """call_d, which the policy hook denied, has a result that reports success."""
    result = row_data(rows[find_row(rows, "tool/result", call="call_d")])
    block = result["message"]["content"][0]
    block.update({"content": [{"type": "text", "text": "wrote /dev/sda"}], "isError": False})
    return rows


def break_dec_2(rows: Rows) -> Rows:
    """The user rejects call_c's approval, and call_c runs all the same: its result reports
    success."""
    row_data(rows[find_row(rows, "approval/decided")])["outcome"] = "rejected"
    return rows


def break_abort_2(rows: Rows) -> Rows:
    """Turn 3's reply is cut by the user's stop, and kept as interrupted with its tool call;
    its step ends, and its turn aborted, with no call recorded or run (so no crash follows)."""
    reply = find_row(rows, "assistant/message", turn=3, step=1)
    row_data(rows[reply])["interrupted"] = True
    step_end = rows[find_row(rows, "step/end", turn=3, step=1)]
    turn_end = rows[find_row(rows, "turn/end", turn=3)]
    row_data(turn_end)["reason"] = {"kind": "aborted", "reason": {"kind": "user"}}
    return [*rows[: reply + 1], step_end, turn_end]


def break_abort_1(rows: Rows) -> Rows:
    """call_c's result says an abort stopped it (ABORTED), yet turn 1 goes on to a second step
    and ends completed."""
    result = row_data(rows[find_row(rows, "tool/result", call="call_c")])
    block = result["message"]["content"][0]
    block.update({"content": [{"type": "text", "text": "Error: tool call aborted"}]})
    block["isError"] = True
    result["error"] = {"name": "AbortError", "code": "ABORTED"}
    return rows


def break_abort_3(rows: Rows) -> Rows:
    """The user stops turn 1 while call_c awaits its approval: the request is answered
    cancelled and call_c ends ABORTED_BEFORE_DISPATCH, the step and the turn aborted, but the
    cancelled answer is written after the turn ended, where it goes before call_c's result."""
    answer = rows[find_row(rows, "approval/decided")]
    row_data(answer)["outcome"] = "cancelled"
    result = row_data(rows[find_row(rows, "tool/result", call="call_c")])
    block = result["message"]["content"][0]
    text = "Error: tool call aborted before dispatch"
    block.update({"content": [{"type": "text", "text": text}], "isError": True})
    result["error"] = {"name": "AbortError", "code": "ABORTED_BEFORE_DISPATCH"}
    step_end = find_row(rows, "step/end", turn=1, step=1)
    turn_end = find_row(rows, "turn/end", turn=1)
    row_data(rows[turn_end])["reason"] = {"kind": "aborted", "reason": {"kind": "user"}}
    kept = [row for row in rows[: step_end + 1] if row is not answer]
    return [*kept, rows[turn_end], answer, *rows[turn_end + 1 :]]


def break_rec_1(rows: Rows) -> Rows:
    """The repair answers call_e as a call never recorded (TOOL_NOT_STARTED, in its words,
    citing no tool/call), though its tool/call was recorded."""
    result = rows[find_row(rows, "tool/result", call="call_e")]
    data = row_data(result)
    data["error"].update({"name": "ToolNotStartedError", "code": "TOOL_NOT_STARTED"})
    data["message"]["content"][0]["content"] = [{"type": "text", "text": NOT_STARTED_TEXT}]
    del result["sourceEventSeqs"]
    return rows


RULE_BREAKERS: dict[str, Mutation] = {
    "LOG-1": break_log_1,
    "LOG-2": break_log_2,
    "LOG-7": break_log_7,
    "TURN-1": break_turn_1,
    "TURN-2": break_turn_2,
    "TURN-3": break_turn_3,
    "STEP-1": break_step_1,
    "STEP-2": break_step_2,
    "STEP-3": break_step_3,
    "ORD-1": break_ord_1,
    "ORD-2": break_ord_2,
    "ORD-3": break_ord_3,
    "EXE-1": break_exe_1,
    "EXE-2": break_exe_2,
    "RW-1": break_rw_1,
    "RW-2": break_rw_2,
    "RW-3": break_rw_3,
    "RW-4": break_rw_4,
    "ADJ-1": break_adj_1,
    "ADJ-2": break_adj_2,
    "ADJ-3": break_adj_3,
    "ADJ-4": break_adj_4,
    "HOOK-1": break_hook_1,
    "HOOK-4": break_hook_4,
    "HOOK-5": break_hook_5,
    "HOOK-6": break_hook_6,
    "DEC-1": break_dec_1,
    "DEC-2": break_dec_2,
    "ABORT-1": break_abort_1,
    "ABORT-2": break_abort_2,
    "ABORT-3": break_abort_3,
    "REC-1": break_rec_1,
}


def break_log_8(rows: Rows) -> Rows:
    """Turn 2's reply is committed without the tool/call for call_d it makes: its commit is cut
    in two right after the reply."""
    reply = find_row(rows, "assistant/message", turn=2, step=1)
    start = reply - rows[reply]["unit"][0] + 1
    end = start + rows[reply]["unit"][1]
    for first, last in ((start, reply + 1), (reply + 1, end)):
        for k, index in enumerate(range(first, last), start=1):
            rows[index]["unit"] = [k, last - first]
    return rows


MARKED_RULE_BREAKERS: dict[str, Mutation] = {"LOG-8": break_log_8}
"""The edits of the demo log as `loopspec run` writes it, its commits marked."""


def example_rules() -> list[str]:
    """Every rule with an example log."""
    return [*RULE_BREAKERS, *MARKED_RULE_BREAKERS]


def example_header(rule: str) -> Row:
    """The header of `rule`'s example logs: a version 1 log's for a rule of marked commits."""
    return MARKED_HEADER if rule in MARKED_RULE_BREAKERS else HEADER


def keeping_rows(rule: str) -> Rows:
    """The demo log `rule`'s example edits, which keeps every rule."""
    if rule in MARKED_RULE_BREAKERS:
        return marked_model_rows(DEMO_CONFIG, DEMO_COMMANDS)
    return demo_rows()


def edited_rows(rule: str) -> Rows:
    """The demo log with `rule`'s edit, not yet numbered: the rows it keeps carry their seqs
    in the demo log, a row it adds none (None)."""
    breaker = RULE_BREAKERS.get(rule) or MARKED_RULE_BREAKERS[rule]
    return dated_and_named(breaker(keeping_rows(rule)))


def dated_and_named(edited: Rows) -> Rows:
    """`edited` dated and named as a harness with the edit's one bug writes it (in place): a row
    the edit adds has the time of the row before it and, a message, the id the model gives one
    at its seq (`m` and the seq; an appended repair result, the repair's name for its call and
    seq): an edit adds a message only where the keeping log's row at that seq is no message,
    whose id a kept row carries on. A row it moves before a later-written one takes that one's
    time, as a clock that never runs back dates it. A copied row kept its original's."""
    clock = 0
    for row, numbered in zip(edited, renumber(edited), strict=True):
        added = row["seq"] is None
        if added or row["time"] < clock:
            row["time"] = clock
        if added and (copied := message_id(row)) is not None:
            seq = numbered["seq"]
            # a copy replacing a repair result (a pruner's) is no repair's: an id of its own
            repair = copied.startswith(REPAIR_RESULT_ID) and row.get("surfaceOp") == "append"
            name = f"{REPAIR_RESULT_ID}{call_of(row)}-{seq}" if repair else f"m{seq}"
            data = row_data(row)
            (data if row["type"] == "user/message" else data["message"])["id"] = name
        clock = row["time"]
    return edited


def number(rule: str, edited: Rows) -> Rows:
    """`edited` (from `edited_rows`) numbered as the breaking log has it."""
    rows = renumber(edited)
    if rule == "LOG-1":  # the one edit to a seq itself, which numbering would undo
        rows[-1]["seq"] += 1
    return rows


def breaking_rows(rule: str) -> Rows:
    """The demo log with `rule`'s edit: it breaks `rule` and no other."""
    return number(rule, edited_rows(rule))


def breaking_log(rule: str) -> str:
    """The text of `breaking_rows(rule)`'s log file, its header first."""
    return jsonl(example_header(rule), breaking_rows(rule))
