"""Real hook scripts, read per dialect into the model's verdicts, with their audit (HOOK-1).

Every case runs under the default policy and under fail-closed: none of these is a fault, so the
policy must not change anything.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import attrs
import pytest
from spec_helpers import TOOLS, clean, run
from test_hookbridge_support import (
    BASH_CALL,
    HOOKS,
    RESPONSE,
    bash,
    case_id,
    frozen_object,
    make_bridge,
    python,
    run_one_post,
    run_one_pre,
    run_post,
)

from loopspec.impl.hookbridge.pre_tool_use import read_pre_tool_use
from loopspec.impl.hookbridge.process import ProcessOutcome
from loopspec.model.commands import (
    Allow,
    Ask,
    Deny,
    HookAudit,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    SubmitUser,
)
from loopspec.model.config import POST_TOOL_USE, LoopConfig
from loopspec.model.events import HookResulted
from loopspec.model.messages import ToolCallBlock

POLICIES = pytest.mark.parametrize("fail_closed", [False, True], ids=["default", "fail-closed"])
REWRITTEN = frozen_object(dict(BASH_CALL, command="rm -rf ./build --one-file-system"))

PRE_CASES: list[tuple[str, str, PreVerdict, str]] = [
    ("claude-code", bash("allow.sh"), Allow(reason="looks harmless"), "allow"),
    ("claude-code", bash("deny_json.sh"), Deny("production is off limits"), "deny"),
    ("claude-code", bash("deny_exit2.sh"), Deny("rm is not allowed in this repository"), "block"),
    ("claude-code", bash("exit2_silent.sh"), Deny(), "block"),
    ("claude-code", bash("ask.sh"), Ask("deletes files"), "ask"),
    ("claude-code", bash("defer.sh"), Ask("deferred to the permission flow: not my call"), "defer"),
    ("claude-code", bash("passthrough_empty.sh"), Pass(), "pass"),
    ("claude-code", bash("silent.sh"), Pass(), "pass"),
    ("claude-code", bash("plain_text.sh"), Pass(), "pass"),
    ("claude-code", bash("legacy_block.sh"), Deny("legacy policy says no"), "block"),
    ("claude-code", bash("legacy_approve.sh"), Allow(reason="legacy policy says yes"), "approve"),
    (
        "claude-code",
        python("rewrite.py", "rm -rf ./build --one-file-system"),
        Allow(REWRITTEN),
        "allow",
    ),
    ("codex", python("rewrite.py", "rm -rf ./build --one-file-system"), Allow(REWRITTEN), "allow"),
    ("codex", bash("deny_json.sh"), Deny("production is off limits"), "deny"),
    ("codex", bash("deny_exit2.sh"), Deny("rm is not allowed in this repository"), "block"),
    ("codex", bash("legacy_block.sh"), Deny("legacy policy says no"), "block"),
    ("codex", bash("passthrough_empty.sh"), Pass(), "pass"),
    ("codex", bash("silent.sh"), Pass(), "pass"),
    ("codex", bash("plain_text.sh"), Pass(), "pass"),
]


@POLICIES
@pytest.mark.parametrize(("dialect", "command", "verdict", "decision"), PRE_CASES, ids=case_id)
def test_HOOK_1_pre_tool_use_answers_become_verdicts(
    dialect: str, command: str, verdict: PreVerdict, decision: str, fail_closed: bool
) -> None:
    """HOOK-1: each answer has its dialect's verdict and an audit naming what the hook said."""
    result = run_one_pre(make_bridge(command, dialect=dialect, fail_closed=fail_closed))
    assert result.verdict == verdict
    assert result.audit.decision == decision
    assert result.audit.fault is None
    assert result.audit.fail_closed is fail_closed


POST_NOTE = f"bash said {RESPONSE!r}"
POST_ANSWERS: list[tuple[str, PostVerdict, str]] = [
    (python("post_context.py"), PostContext(POST_NOTE), "allow"),
    (bash("post_block.sh"), PostBlock("the output contains a secret"), "block"),
    (
        bash("post_block_and_context.sh"),
        PostBlock("the output contains a secret\n\nrotate the key before retrying"),
        "block",
    ),
    (bash("deny_exit2.sh"), PostBlock("rm is not allowed in this repository"), "block"),
    (bash("passthrough_empty.sh"), PostPass(), "pass"),
    (bash("silent.sh"), PostPass(), "pass"),
]
POST_CASES = [
    (dialect, command, verdict, decision)
    for dialect in ("claude-code", "codex")
    for command, verdict, decision in POST_ANSWERS
]


@POLICIES
@pytest.mark.parametrize(("dialect", "command", "verdict", "decision"), POST_CASES, ids=case_id)
def test_HOOK_5_post_tool_use_answers_become_verdicts_carrying_their_audit(
    dialect: str, command: str, verdict: PostVerdict, decision: str, fail_closed: bool
) -> None:
    """HOOK-5: context, block, block-with-context, exit 2 and no opinion, in both dialects."""
    (result,) = run_post(
        make_bridge(command, dialect=dialect, point=POST_TOOL_USE, fail_closed=fail_closed)
    )
    assert attrs.evolve(result.verdict, audit=None) == verdict
    assert result.verdict.audit == result.audit.as_hook_audit()
    assert result.audit.decision == decision
    assert result.audit.fault is None


@pytest.mark.parametrize(
    ("dialect", "verdict"), [("claude-code", Deny("bom")), ("codex", Pass())], ids=str
)
def test_HOOK_1_claude_code_reads_an_answer_after_a_byte_order_mark(
    dialect: str, verdict: PreVerdict
) -> None:
    """HOOK-1: Claude Code 2.1.332 skips a byte order mark before a hook's stdout, and denied a
    call whose hook printed its deny after one; Codex 0.171.0 read it as text and ran the call
    (both observed offline). The bundled reader read it as text in both."""
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "bom",
        }
    }
    stdout = ("\ufeff" + json.dumps(answer) + "\n").encode()
    read = read_pre_tool_use(dialect, ProcessOutcome(0, None, stdout, b"", 1.0), 10.0, 1 << 20)
    assert (read.verdict, read.fault) == (verdict, None)


def test_HOOK_1_audit_record_shape_and_the_model_accepts_it() -> None:
    """HOOK-1: the audit has decision, exit code, stderr summary, duration; the loop logs it."""
    bridge = make_bridge(bash("deny_exit2.sh"))
    result = run_one_pre(bridge)
    audit = result.audit
    assert (audit.handler_id, audit.point, audit.dialect, audit.call_id) == (
        "claude-code:PreToolUse:1",
        "PreToolUse",
        "claude-code",
        "call-1",
    )
    assert (audit.decision, audit.exit_code) == ("block", 2)
    assert audit.stderr_summary == "rm is not allowed in this repository"
    assert math.isfinite(audit.duration_ms)
    assert audit.duration_ms > 0
    assert (audit.fault, audit.updated_input) == (None, None)
    assert audit.as_hook_audit() == HookAudit(
        "block", 2, "rm is not allowed in this repository", audit.duration_ms
    )
    config = LoopConfig(tools=TOOLS, hooks=bridge.specs())
    call = ToolCallBlock("call-1", "bash", json.dumps(BASH_CALL))
    state = run(config, [SubmitUser("clean up"), ModelReplies((call,)), result.answer()])
    (logged,) = [e for e in state.log if isinstance(e, HookResulted)]
    assert (logged.decision, logged.exit_code, logged.stderr_summary) == (
        "block",
        2,
        "rm is not allowed in this repository",
    )
    assert logged.duration_ms == audit.duration_ms
    assert clean(state.log) == []


def test_HOOK_1_audit_keeps_the_supplied_updated_input() -> None:
    """HOOK-1: a rewrite's input is in the audit as the hook supplied it."""
    result = run_one_pre(make_bridge(python("rewrite.py", "ls build")))
    assert result.audit.updated_input == dict(BASH_CALL, command="ls build")
    assert result.audit.stderr_summary is None
    assert result.audit.exit_code == 0


def _recorded(tmp_path: Path, dialect: str, point: str) -> dict[str, object]:
    record = tmp_path / "payload.json"
    bridge = make_bridge(python("record_payload.py", str(record)), dialect=dialect, point=point)
    if point == POST_TOOL_USE:
        run_post(bridge)
    else:
        run_one_pre(bridge)
    loaded = json.loads(record.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_HOOK_1_claude_code_payload_on_stdin(tmp_path: Path) -> None:
    """HOOK-1: Claude Code hooks read the documented PreToolUse fields, and the project dir."""
    record = _recorded(tmp_path, "claude-code", "PreToolUse")
    assert record["payload"] == {
        "session_id": "session-1",
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": str(HOOKS),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "bash",
        "tool_input": BASH_CALL,
        "tool_use_id": "call-1",
    }
    assert record["project_dir"] == str(HOOKS)


def test_HOOK_1_codex_payload_adds_turn_and_model(tmp_path: Path) -> None:
    """HOOK-1: Codex hooks also get `turn_id` and `model`; PostToolUse adds `tool_response`."""
    record = _recorded(tmp_path, "codex", POST_TOOL_USE)
    payload = record["payload"]
    assert isinstance(payload, dict)
    assert payload["hook_event_name"] == "PostToolUse"
    assert (payload["turn_id"], payload["model"]) == ("turn-1", "test-model")
    assert payload["tool_response"] == RESPONSE
    assert payload["tool_input"] == BASH_CALL


def test_HOOK_5_post_context_is_read_from_a_python_hook() -> None:
    """HOOK-5: a PostToolUse note reaches the verdict verbatim."""
    result = run_one_post(python("post_context.py"))
    assert isinstance(result.verdict, PostContext)
    assert result.verdict.text == POST_NOTE
