"""The session logs under tests/fixtures/logs/, and how each one is made.

Every fixture starts from a log the reference model writes (`loopspec.properties.logcheck.synth`),
so the valid ones keep every rule by construction. `violations/RULE.jsonl` is the model's demo
log with one small edit that breaks exactly RULE, the example `loopspec spec RULE --example`
prints (each edit is a function of `loopspec.properties.logcheck.rule_examples`; its docstring
says what it does). `bad/` holds input the checker must refuse cleanly. `valid/` holds logs
that must pass, several written the way a real harness writes them.

The files are generated, never edited by hand: run `.venv/bin/python tests/check_fixtures.py` to
rewrite them; a test fails when they drift from what this module builds.
"""

from __future__ import annotations

import json
from pathlib import Path

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
from loopspec.properties.logcheck.rule_examples import (
    RULE_BREAKERS,
    Rows,
    breaking_log,
    dated_and_named,
    demo_rows,
    find_row,
    fresh_row,
    row_data,
)
from loopspec.properties.logcheck.synth import (
    HEADER,
    Row,
    as_harness_writes,
    jsonl,
    model_rows,
    renumber,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "logs"

# ---------------------------------------------------------------------------------------------
# Logs that keep every rule.


def _placeholders(rows: Rows) -> Rows:
    """What snapshot normalisation does: times zeroed, ids replaced by placeholders."""
    for row in rows:
        for key in ("time", "time0"):
            if key in row:
                row[key] = 0
        message = row_data(row).get("message")
        if row["type"] == "user/message":
            message = row["data"]
        if isinstance(message, dict) and "id" in message:
            message["id"] = "{{sessionId}}"
    return rows


def _pruned_repair() -> Rows:
    """Turn 4 opens by pruning turn 3's repair result; the replacement keeps its error code, and
    is dated and named as the pruner writes it (when turn 4 opened, a message id of its own)."""
    commands = (*DEMO_COMMANDS, SubmitUser("Go on."), ModelReplies((TextBlock("Done."),)))
    rows = model_rows(DEMO_CONFIG, commands)
    repair = rows[find_row(rows, "tool/result", call="call_e")]
    pruned = fresh_row(repair)
    pruned["surfaceOp"] = {"op": "replace", "start": repair["seq"], "end": repair["seq"]}
    pruned["sourceEventSeqs"] = [repair["seq"]]
    pruned["data"]["message"]["content"][0]["content"] = [{"type": "text", "text": "[pruned]"}]
    rows.insert(find_row(rows, "turn/start", turn=4) + 1, pruned)
    return renumber(dated_and_named(rows))


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
    violations = {f"violations/{rule}.jsonl": breaking_log(rule) for rule in RULE_BREAKERS}
    files.update({path: text.encode() for path, text in violations.items()})
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
        # One line each, the same on every Python (3.13 removes a docstring's indentation).
        lines.append(f"  - {rule}: {' '.join((breaker.__doc__ or '').split())}")
    return "\n".join(lines) + "\n"


def write_fixtures(root: Path = FIXTURES) -> None:
    """(Re)write every fixture file under `root`."""
    for relative, content in all_fixtures().items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


if __name__ == "__main__":
    write_fixtures()
