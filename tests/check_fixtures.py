"""The session logs under tests/fixtures/logs/, and how each one is made.

Every fixture starts from a log the reference model writes (`loopspec.properties.logcheck.synth`),
so the valid
ones keep every rule by construction. `violations/RULE.jsonl` is the model's demo log with one
small edit that breaks exactly RULE (each edit is a function below; its docstring says what it
does). `bad/` holds input the checker must refuse cleanly. `valid/` holds logs that must pass,
several written the way a real harness writes them.

The files are generated, never edited by hand: run `.venv/bin/python tests/check_fixtures.py` to
rewrite them; a test fails when they drift from what this module builds.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from loopspec.model.commands import (
    Allow,
    HookAnswers,
    ModelReplies,
    Pass,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.logcheck.synth import (
    HEADER,
    Row,
    as_harness_writes,
    jsonl,
    model_rows,
    renumber,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "logs"

Rows = list[Row]
Mutation = Callable[[Rows], Rows]


def demo_rows() -> Rows:
    """The model's log of the scripted demo: two full turns, then a crash and its repair."""
    return model_rows(DEMO_CONFIG, DEMO_COMMANDS)


# ---------------------------------------------------------------------------------------------
# Finding rows.


def _data(row: Row) -> dict[str, Any]:
    data = row.get("data")
    return data if isinstance(data, dict) else {}


def _call_of(row: Row) -> str | None:
    """The call a row is about: tool/call's callId, tool/result's toolCallId."""
    data = _data(row)
    if row["type"] == "tool/result":
        return str(data["message"]["content"][0]["toolCallId"])
    call_id = data.get("callId")
    return call_id if isinstance(call_id, str) else None


def _at(rows: Rows, kind: str, *, call: str | None = None, **fields: object) -> int:
    """The index of the first row of type `kind` about `call` with these data fields."""
    for index, row in enumerate(rows):
        if row["type"] != kind or (call is not None and _call_of(row) != call):
            continue
        if all(_data(row).get(key) == value for key, value in fields.items()):
            return index
    raise LookupError(f"no {kind} {call or ''} {fields}")


def _fresh(row: Row) -> Row:
    """A copy of `row` to insert: renumbering gives it the next seq."""
    new = copy.deepcopy(row)
    new["seq"] = None
    return new


# ---------------------------------------------------------------------------------------------
# One edit per rule. Each returns rows with seq None for new rows; `_rule_log` renumbers.


def break_log_1(rows: Rows) -> Rows:
    """The last event skips a seq (done after renumbering, see `_rule_log`)."""
    return rows


def break_log_2(rows: Rows) -> Rows:
    """The first step/end carries surfaceOp, which only surface events may."""
    rows[_at(rows, "step/end", turn=1, step=1)]["surfaceOp"] = "append"
    return rows


def break_log_7(rows: Rows) -> Rows:
    """Between the steps of turn 1, a tool/result replacement shadows the user's message."""
    target = rows[_at(rows, "user/message")]["seq"]
    replacement = _fresh(rows[_at(rows, "tool/result", call="call_a")])
    replacement["surfaceOp"] = {"op": "replace", "start": target, "end": target}
    replacement["sourceEventSeqs"] = [target]
    rows.insert(_at(rows, "step/end", turn=1, step=1) + 1, replacement)
    return rows


def break_turn_1(rows: Rows) -> Rows:
    """Turn 2 and everything after it are numbered one higher: turn 3 starts where 2 was due."""
    start = _at(rows, "turn/start", turn=2)
    for row in rows[start:]:
        data = _data(row)
        if type(data.get("turn")) is int:
            data["turn"] += 1
    return rows


def break_turn_2(rows: Rows) -> Rows:
    """Turn 1's second step never ends: turn/end comes while it is open."""
    del rows[_at(rows, "step/end", turn=1, step=2)]
    return rows


def break_turn_3(rows: Rows) -> Rows:
    """A request/header (an in-turn event) between turn 1's end and turn 2's start."""
    header: Row = {"type": "request/header", "seq": None, "time": 0, "data": {"header": {}}}
    rows.insert(_at(rows, "turn/start", turn=2), header)
    return rows


def break_step_1(rows: Rows) -> Rows:
    """Turn 1's second step is numbered 3 throughout: it starts where step 2 was due."""
    for index in range(_at(rows, "step/start", turn=1, step=2), len(rows)):
        data = _data(rows[index])
        if data.get("turn") == 1 and data.get("step") == 2:
            data["step"] = 3
    return rows


def break_step_2(rows: Rows) -> Rows:
    """Turn 1's second step/end names step 1."""
    _data(rows[_at(rows, "step/end", turn=1, step=2)])["step"] = 1
    return rows


def break_step_3(rows: Rows) -> Rows:
    """The reply of turn 1's second step names step 1."""
    _data(rows[_at(rows, "assistant/message", turn=1, step=2)])["step"] = 1
    return rows


def break_ord_1(rows: Rows) -> Rows:
    """In turn 2, the tool/call is recorded before the reply that makes the call."""
    reply = _at(rows, "assistant/message", turn=2, step=1)
    call = _at(rows, "tool/call", call="call_d")
    rows[reply], rows[call] = rows[call], rows[reply]
    return rows


def break_exe_1(rows: Rows) -> Rows:
    """Turn 3's reply carries its one tool call twice, under the same id."""
    content = _data(rows[_at(rows, "assistant/message", turn=3, step=1)])["message"]["content"]
    content.append(copy.deepcopy(content[-1]))
    return rows


def break_ord_2(rows: Rows) -> Rows:
    """The result for call_a does not cite its tool/call."""
    del rows[_at(rows, "tool/result", call="call_a")]["sourceEventSeqs"]
    return rows


def break_rw_1(rows: Rows) -> Rows:
    """The tool/call for call_a records other arguments than the reply shows."""
    _data(rows[_at(rows, "tool/call", call="call_a")])["arguments"] = '{"file_path":"z.txt"}'
    return rows


def break_adj_1(rows: Rows) -> Rows:
    """A user message lands after turn 1's calls are recorded, before their results."""
    message = _fresh(rows[_at(rows, "user/message")])
    message["data"]["content"] = [{"type": "text", "text": "one more thing"}]
    rows.insert(_at(rows, "tool/call", call="call_c") + 1, message)
    return rows


def break_adj_4(rows: Rows) -> Rows:
    """A tool context lands after turn 2's last result, before its step/end, not after the next
    step/start."""
    context = _fresh(rows[_at(rows, "user/message")])
    context["data"]["content"] = [{"type": "text", "text": "a note from the tool"}]
    context["data"]["source"] = {"kind": "plugin", "plugin": "tool-context"}
    rows.insert(_at(rows, "tool/result", call="call_d") + 1, context)
    return rows


def break_adj_2(rows: Rows) -> Rows:
    """The result for call_a is committed twice."""
    first = _at(rows, "tool/result", call="call_a")
    rows.insert(first + 1, _fresh(rows[first]))
    return rows


def break_adj_3(rows: Rows) -> Rows:
    """Turn 2's call is never answered, and the turn ends completed."""
    del rows[_at(rows, "tool/result", call="call_d")]
    return rows


def break_ord_3(rows: Rows) -> Rows:
    """The results for call_a and call_b are committed out of model order."""
    first = _at(rows, "tool/result", call="call_a")
    second = _at(rows, "tool/result", call="call_b")
    rows[first], rows[second] = rows[second], rows[first]
    return rows


def break_hook_1(rows: Rows) -> Rows:
    """Turn 2's safe-flags hook/result answers no hook/invoked."""
    del rows[_at(rows, "hook/invoked", turn=2, handlerId="safe-flags")]
    return rows


def break_hook_4(rows: Rows) -> Rows:
    """Turn 2's policy hook runs twice for the same call."""
    invoked = _at(rows, "hook/invoked", turn=2, handlerId="policy")
    pair = [_fresh(rows[invoked]), _fresh(rows[invoked + 1])]
    rows[invoked + 2 : invoked + 2] = pair
    return rows


def break_rw_2(rows: Rows) -> Rows:
    """call_c's rewrite sidecar names the policy hook, which supplied no input, last."""
    sidecar = _data(rows[_at(rows, "tool/call", call="call_c")])["rewrite"]
    sidecar["handlerIds"] = [*sidecar["handlerIds"], "policy"]
    return rows


def break_rw_3(rows: Rows) -> Rows:
    """The safe-flags hook answers call_c only after turn 1's reply is committed."""
    invoked = _at(rows, "hook/invoked", turn=1, handlerId="safe-flags")
    pair = rows[invoked : invoked + 2]
    del rows[invoked : invoked + 2]
    reply = _at(rows, "assistant/message", turn=1, step=1)
    rows[reply + 1 : reply + 1] = pair
    return rows


def break_rw_4(rows: Rows) -> Rows:
    """The approval request for call_c shows the original input, not the rewritten one."""
    original = _data(rows[_at(rows, "tool/call", call="call_c")])["rewrite"]["originalArguments"]
    _data(rows[_at(rows, "approval/asked")])["arguments"] = original
    return rows


def break_dec_1(rows: Rows) -> Rows:
    """call_d, which the policy hook denied, has a result that reports success."""
    result = _data(rows[_at(rows, "tool/result", call="call_d")])
    block = result["message"]["content"][0]
    block.update({"content": [{"type": "text", "text": "wrote /dev/sda"}], "isError": False})
    return rows


def break_dec_2(rows: Rows) -> Rows:
    """The approval/decided answers a request id that was never asked."""
    _data(rows[_at(rows, "approval/decided")])["id"] = "approval-never-asked"
    return rows


def break_abort_2(rows: Rows) -> Rows:
    """Turn 3's reply is marked interrupted yet keeps its tool call."""
    _data(rows[_at(rows, "assistant/message", turn=3, step=1)])["interrupted"] = True
    return rows


def break_rec_1(rows: Rows) -> Rows:
    """The repair result for call_e says TOOL_NOT_STARTED though its tool/call was recorded."""
    error = _data(rows[_at(rows, "tool/result", call="call_e")])["error"]
    error.update({"name": "ToolNotStartedError", "code": "TOOL_NOT_STARTED"})
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
    "DEC-1": break_dec_1,
    "DEC-2": break_dec_2,
    "ABORT-2": break_abort_2,
    "REC-1": break_rec_1,
}


def _rule_log(rule: str) -> str:
    rows = renumber(RULE_BREAKERS[rule](copy.deepcopy(demo_rows())))
    if rule == "LOG-1":
        rows[-1]["seq"] += 1
    return jsonl(HEADER, rows)


# ---------------------------------------------------------------------------------------------
# Logs that keep every rule.


def _placeholders(rows: Rows) -> Rows:
    """What snapshot normalisation does: times zeroed, ids replaced by placeholders."""
    for row in rows:
        for key in ("time", "time0"):
            if key in row:
                row[key] = 0
        message = _data(row).get("message")
        if row["type"] == "user/message":
            message = row["data"]
        if isinstance(message, dict) and "id" in message:
            message["id"] = "{{sessionId}}"
    return rows


def _pruned_repair() -> Rows:
    """Turn 4 opens by pruning turn 3's repair result; the replacement keeps its error code."""
    commands = (*DEMO_COMMANDS, SubmitUser("Go on."), ModelReplies((TextBlock("Done."),)))
    rows = model_rows(DEMO_CONFIG, commands)
    repair = rows[_at(rows, "tool/result", call="call_e")]
    pruned = _fresh(repair)
    pruned["surfaceOp"] = {"op": "replace", "start": repair["seq"], "end": repair["seq"]}
    pruned["sourceEventSeqs"] = [repair["seq"]]
    pruned["data"]["message"]["content"][0]["content"] = [{"type": "text", "text": "[pruned]"}]
    rows.insert(_at(rows, "turn/start", turn=4) + 1, pruned)
    return renumber(rows)


def _reused_call_id() -> Rows:
    """Two steps of one turn whose replies both call `c1` (ids are unique only per reply); the
    first call is rewritten by a hook, the second is not."""
    config = LoopConfig(
        tools=(ToolSpec("bash", required_keys=("command",)),),
        hooks=(HookSpec("guard", "PreToolUse", "bash"), HookSpec("rewriter", "PreToolUse", "bash")),
    )
    call = ToolCallBlock("c1", "bash", '{"command":"ls"}')
    commands = (
        SubmitUser("List twice."),
        ModelReplies((call,)),
        HookAnswers(Pass()),
        HookAnswers(Allow({"command": "ls -a"})),
        ToolFinishes("c1", ToolSucceeded("a")),
        ModelReplies((call,)),
        HookAnswers(Pass()),
        HookAnswers(Pass()),
        ToolFinishes("c1", ToolSucceeded("b")),
        ModelReplies((TextBlock("Listed twice."),)),
    )
    return model_rows(config, commands)


def valid_logs() -> dict[str, str]:
    """File name -> text of each log that keeps every rule."""
    real_header = {**HEADER, "delegationDepth": 0}
    snapshot_header = {**HEADER, "id": "{{sessionId}}", "createdAt": 0, "cwd": "{{cwd}}"}
    crashed = model_rows(DEMO_CONFIG, DEMO_COMMANDS[:-1])
    return {
        "model-demo.jsonl": jsonl(HEADER, demo_rows()),
        "harness-written.jsonl": jsonl(real_header, as_harness_writes(demo_rows())),
        "snapshot-placeholders.jsonl": jsonl(
            snapshot_header, _placeholders(as_harness_writes(demo_rows()))
        ),
        "pruned-repair-result.jsonl": jsonl(HEADER, _pruned_repair()),
        "call-id-reused-across-steps.jsonl": jsonl(HEADER, _reused_call_id()),
        "crash-tail.jsonl": jsonl(HEADER, as_harness_writes(crashed)),
        "no-final-newline.jsonl": jsonl(HEADER, demo_rows()).rstrip("\n"),
    }


# ---------------------------------------------------------------------------------------------
# Input the checker must refuse cleanly.


def _cut_mid_last_line(text: str) -> str:
    """`text` with its last line cut in half, no newline: a write a crash cut off."""
    *whole, last = _lines(text)
    return "".join(whole) + last[: len(last) // 2]


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _june_layout(*, marked_at_start: bool) -> str:
    """A log in the June-2026 layout: flat results, context messages, no surface ops."""
    start: Row = {"turn": 1, "trigger": "user"} if marked_at_start else {"turn": 1}
    call = {"type": "tool-call", "id": "c1", "name": "read", "arguments": '{"file_path":"a"}'}
    rows: Rows = [
        {"type": "turn/start", "seq": 0, "time": 0, "data": start},
        {"type": "user/message", "seq": 1, "time": 0, "data": {"content": [], "source": {}}},
        {"type": "step/start", "seq": 2, "time": 0, "data": {"turn": 1, "step": 1}},
        {
            "type": "assistant/message",
            "seq": 3,
            "time": 0,
            "data": {
                "turn": 1,
                "step": 1,
                "message": {"role": "assistant", "content": [call], "source": {}},
            },
            "surfaceOp": "append",
        },
        {
            "type": "tool/result",
            "seq": 4,
            "time": 0,
            "data": {"turn": 1, "step": 1, "callId": "c1", "content": [], "isError": False},
        },
        {"type": "context/message", "seq": 5, "time": 0, "data": {"content": [], "source": {}}},
        {"type": "step/end", "seq": 6, "time": 0, "data": {"turn": 1, "step": 1}},
        {"type": "turn/end", "seq": 7, "time": 0, "data": {"turn": 1, "reason": {"kind": "x"}}},
    ]
    return jsonl(HEADER, rows)


def crashed_logs() -> dict[str, str]:
    """File name -> text of each log a crash left with a torn last line: no violation, no
    input error, a notice (LOG-8), as the harness drops that line on reopening."""
    crashed = model_rows(DEMO_CONFIG, DEMO_COMMANDS[:-1])
    return {"torn-last-line.jsonl": _cut_mid_last_line(jsonl(HEADER, crashed))}


def bad_logs() -> dict[str, bytes]:
    """File name -> bytes of each log the checker must report as unreadable input."""
    good = jsonl(HEADER, demo_rows())
    lines = _lines(good)
    call_line = next(i for i, line in enumerate(lines) if '"tool/call"' in line)
    wrong_type = json.loads(lines[call_line])
    wrong_type["data"]["turn"] = "1"
    missing = json.loads(lines[call_line])
    del missing["data"]["callId"]
    result_line = next(i for i, line in enumerate(lines) if '"tool/result"' in line)
    string_error = json.loads(lines[result_line])
    string_error["data"]["error"] = "boom"  # the catalogue's `error` is an object
    compact = {"type": "image-chunks", "seq0": 3, "time0": 0, "data": {"turn": 1, "step": 1}}

    def replaced(index: int, new: str) -> str:
        return "".join([*lines[:index], new, *lines[index + 1 :]])

    bad = {
        "invalid-json.jsonl": replaced(10, '{"type": "step/end", "seq": 9,, "data": {}}\n'),
        "wrong-types.jsonl": replaced(call_line, json.dumps(wrong_type) + "\n"),
        "missing-field.jsonl": replaced(call_line, json.dumps(missing) + "\n"),
        "result-error-a-string.jsonl": replaced(result_line, json.dumps(string_error) + "\n"),
        "not-an-object.jsonl": replaced(5, "[1, 2, 3]\n"),
        "missing-header.jsonl": "".join(lines[1:]),
        "second-header.jsonl": replaced(7, lines[0]),
        "malformed-header.jsonl": replaced(0, json.dumps({**HEADER, "cwd": None}) + "\n"),
        # A version neither check nor dsh reads (dsh refuses it: "reads only v0").
        "unknown-version.jsonl": replaced(0, json.dumps({**HEADER, "version": 7}) + "\n"),
        "unknown-compact-row.jsonl": replaced(4, json.dumps(compact) + "\n"),
        "june-layout.jsonl": _june_layout(marked_at_start=True),
        "june-layout-marked-late.jsonl": _june_layout(marked_at_start=False),
        # Some other JSON Lines file, an application's own log: neither header nor events.
        "neither-header-nor-event.jsonl": "".join(
            json.dumps({"level": "info", "msg": msg, "ts": 1764633600 + i}) + "\n"
            for i, msg in enumerate(("agent started", "tool call", "slow tool"))
        ),
        # Records with a type but no seq: another harness's log, or a newer Codex's rollout
        # opening with a record type check does not know.
        "typed-records-without-seq.jsonl": "".join(
            json.dumps({"type": "log", "level": "info", "msg": msg, "ts": 1764633600 + i}) + "\n"
            for i, msg in enumerate(("agent started", "tool call"))
        ),
    }
    encoded = {name: text.encode() for name, text in bad.items()}
    # Line 4 holds the user's prompt; one byte of it is not UTF-8.
    encoded["invalid-utf8.jsonl"] = good.encode().replace(b"Read a.txt", b"Read \xff.txt", 1)
    return encoded


# ---------------------------------------------------------------------------------------------
# Writing them.


def all_fixtures() -> dict[str, bytes]:
    """Relative path -> content of every fixture file, README included."""
    files = {f"valid/{name}": text.encode() for name, text in valid_logs().items()}
    files.update({f"violations/{rule}.jsonl": _rule_log(rule).encode() for rule in RULE_BREAKERS})
    files.update({f"crashed/{name}": text.encode() for name, text in crashed_logs().items()})
    files.update({f"bad/{name}": content for name, content in bad_logs().items()})
    files["README.md"] = _readme().encode()
    return files


def _readme() -> str:
    lines = [
        "# Session-log fixtures for `loopspec check`",
        "",
        "Generated by `tests/check_fixtures.py` from the reference model; do not edit by hand.",
        "",
        "- `valid/`: logs that keep every rule (some written the way a real dsh harness",
        "  writes them: compact chunk rows, plugin events, placeholders).",
        "- `crashed/`: logs whose last line a crash cut off: a notice (LOG-8), exit 0.",
        "- `bad/`: input the checker refuses cleanly (exit 2), one problem each.",
        "- `violations/RULE.jsonl`: the demo log with one edit that breaks exactly RULE:",
        "",
    ]
    for rule, breaker in RULE_BREAKERS.items():
        lines.append(f"  - {rule}: {(breaker.__doc__ or '').strip()}")
    return "\n".join(lines) + "\n"


def write_fixtures(root: Path = FIXTURES) -> None:
    """(Re)write every fixture file under `root`."""
    for relative, content in all_fixtures().items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


if __name__ == "__main__":
    write_fixtures()
