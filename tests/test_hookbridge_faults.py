"""Hook faults (HOOK-7): the dialect's documented outcome by default, a deny under fail-closed,
and always a record in the audit. Non-object rewrites end refused by the loop's merge (HOOK-6).
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import attrs
import pytest
from spec_helpers import TOOLS, clean, results, run
from test_hookbridge_support import (
    BASH_CALL,
    bash,
    case_id,
    make_bridge,
    python,
    run_one_pre,
    run_post,
    settings_document,
)

from loopspec.impl.hookbridge import FaultKind, HookBridge, parse_settings
from loopspec.model.commands import (
    Allow,
    Deny,
    ModelReplies,
    Pass,
    PostBlock,
    PostPass,
    PreVerdict,
    SubmitUser,
)
from loopspec.model.config import POST_TOOL_USE, LoopConfig
from loopspec.model.messages import ToolCallBlock
from loopspec.model.rewrite import resolve_call
from loopspec.model.state import DENY, HookVote

SHORT_TIMEOUT = 0.5
"""The timeout of a hook that hangs: what it costs each test that waits for it."""
ENDING_TIMEOUT = 60.0
"""The timeout of a hook that ends by itself, which costs nothing (see `timeout_for`)."""
HANG = bash("hang.sh", "/dev/null")


def timeout_for(fault: FaultKind) -> float:
    """A hook that ends by itself gets the usual timeout, which costs nothing: on a loaded CI
    machine (load 20 on 2 cores) a Python hook took 2 s to start and end (0.12 s unloaded),
    past SHORT_TIMEOUT, and was audited a timeout instead of its own fault."""
    return SHORT_TIMEOUT if fault is FaultKind.TIMEOUT else ENDING_TIMEOUT


@attrs.frozen
class FaultCase:
    """One faulty hook and what its dialect does with it by default."""

    dialect: str
    command: str
    verdict: PreVerdict
    word: str
    """The audit's decision word under the default policy."""
    fault: FaultKind
    exit_code: int | None

    def __str__(self) -> str:
        return f"{self.dialect}-{case_id(self.command)}"


BOTH_DIALECTS: list[tuple[str, PreVerdict, str, FaultKind, int | None]] = [
    (HANG, Pass(), "error", FaultKind.TIMEOUT, None),
    (bash("crash.sh"), Pass(), "error", FaultKind.CRASH, 1),
    (bash("invalid_json.sh"), Pass(), "error", FaultKind.INVALID_JSON, 0),
    (python("huge_output.py", "stdout"), Pass(), "error", FaultKind.OUTPUT_TOO_LARGE, None),
    (python("huge_output.py", "stderr"), Pass(), "error", FaultKind.OUTPUT_TOO_LARGE, None),
    (bash("wrong_event.sh"), Pass(), "pass", FaultKind.WRONG_EVENT, 0),
    (python("non_object_input.py"), Allow("rm -rf /"), "allow", FaultKind.NON_OBJECT_INPUT, 0),
]
PRE_FAULTS = [
    *(FaultCase(dialect, *case) for dialect in ("claude-code", "codex") for case in BOTH_DIALECTS),
    FaultCase("codex", bash("allow.sh"), Pass(), "error", FaultKind.UNSUPPORTED, 0),
    FaultCase("codex", bash("ask.sh"), Pass(), "error", FaultKind.UNSUPPORTED, 0),
    FaultCase("codex", bash("legacy_approve.sh"), Pass(), "error", FaultKind.UNSUPPORTED, 0),
    FaultCase("codex", bash("exit2_silent.sh"), Pass(), "error", FaultKind.UNSUPPORTED, 2),
    FaultCase("codex", bash("defer.sh"), Pass(), "error", FaultKind.INVALID_OUTPUT, 0),
]


@pytest.mark.parametrize("case", PRE_FAULTS, ids=str)
def test_HOOK_7_pre_tool_use_faults_have_the_dialects_outcome_by_default(case: FaultCase) -> None:
    """HOOK-7: by default a fault gets its dialect's documented outcome and is audited."""
    bridge = make_bridge(case.command, dialect=case.dialect, timeout=timeout_for(case.fault))
    result = run_one_pre(bridge)
    assert result.verdict == case.verdict
    assert result.audit.decision == case.word
    assert result.audit.fault is not None
    assert result.audit.fault.kind == case.fault
    assert result.audit.exit_code == case.exit_code
    summary = result.audit.as_hook_audit().stderr_summary
    assert summary is not None
    assert summary.startswith(f"{case.fault}: ")


@pytest.mark.parametrize("case", PRE_FAULTS, ids=str)
def test_HOOK_7_pre_tool_use_faults_deny_under_fail_closed(case: FaultCase) -> None:
    """HOOK-7: under fail-closed every fault denies, naming the hook and the fault."""
    bridge = make_bridge(
        case.command, dialect=case.dialect, timeout=timeout_for(case.fault), fail_closed=True
    )
    result = run_one_pre(bridge)
    assert isinstance(result.verdict, Deny)
    assert f"PreToolUse hook {case.dialect}:PreToolUse:1 is fail-closed" in result.verdict.reason
    assert str(case.fault) in result.verdict.reason
    assert result.audit.decision == "deny"
    assert result.audit.fault is not None
    assert result.audit.fault.kind == case.fault
    assert result.audit.exit_code == case.exit_code


def test_HOOK_7_the_crash_audit_keeps_the_first_stderr_line() -> None:
    """HOOK-7: a crash is audited with its exit code and the first line of what it printed."""
    result = run_one_pre(make_bridge(bash("crash.sh")))
    assert result.audit.exit_code == 1
    assert result.audit.stderr_summary == "boom: the policy file is missing"
    assert result.audit.as_hook_audit().stderr_summary == (
        "crash: exit code 1 (stderr: boom: the policy file is missing)"
    )


def test_HOOK_7_a_claude_code_exit_2_without_stderr_still_blocks() -> None:
    """HOOK-7: what Codex marks Failed is a plain block in Claude Code; neither is fail-closed."""
    assert run_one_pre(make_bridge(bash("exit2_silent.sh"))).verdict == Deny()


def _process_gone(pid: int) -> bool:
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
        except FileNotFoundError:
            return True
        if stat.rsplit(")", 1)[1].split()[0] in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False


def test_HOOK_7_a_hung_hook_is_killed_with_its_whole_process_group(tmp_path: Path) -> None:
    """HOOK-7: at the timeout the hook and the child it started are both killed."""
    pid_file = tmp_path / "child.pid"
    started = time.monotonic()
    result = run_one_pre(make_bridge(bash("hang.sh", str(pid_file)), timeout=SHORT_TIMEOUT))
    assert time.monotonic() - started < 5.0
    assert result.audit.fault is not None
    assert result.audit.fault.kind == FaultKind.TIMEOUT
    assert result.audit.duration_ms >= SHORT_TIMEOUT * 1000
    assert _process_gone(int(pid_file.read_text(encoding="utf-8")))


def test_HOOK_7_cancelling_the_call_kills_its_hooks(tmp_path: Path) -> None:
    """HOOK-7: when the loop aborts, no hook process it started outlives the call."""
    pid_file = tmp_path / "child.pid"
    bridge = make_bridge(bash("hang.sh", str(pid_file)), timeout=30.0)

    async def abort_while_running() -> None:
        task = asyncio.create_task(bridge.pre_tool_use("call-1", "bash", BASH_CALL))
        while not pid_file.exists() or not pid_file.read_text(encoding="utf-8").strip():
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(abort_while_running())
    assert _process_gone(int(pid_file.read_text(encoding="utf-8")))


def test_HOOK_7_a_hook_that_cannot_start_is_a_fault(tmp_path: Path) -> None:
    """HOOK-7: a missing working directory means no process at all: spawn-failed, audited."""
    gone = tmp_path / "removed"
    default = run_one_pre(make_bridge(bash("allow.sh"), cwd=gone))
    assert default.verdict == Pass()
    assert default.audit.fault is not None
    assert default.audit.fault.kind == FaultKind.SPAWN_FAILED
    closed = run_one_pre(make_bridge(bash("allow.sh"), cwd=gone, fail_closed=True))
    assert isinstance(closed.verdict, Deny)


@pytest.mark.parametrize(("bridge_policy", "own_policy"), [(False, True), (True, False)])
def test_HOOK_7_a_hooks_own_fail_closed_overrides_the_bridge(
    bridge_policy: bool, own_policy: bool
) -> None:
    """HOOK-7: `failClosed` on a handler wins over the bridge's policy, either way."""
    document = settings_document(bash("crash.sh"))
    hooks = document["hooks"]
    assert isinstance(hooks, dict)
    hooks["PreToolUse"][0]["hooks"][0]["failClosed"] = own_policy
    settings = parse_settings(document)
    bridge = HookBridge(settings, session_id="s", cwd="/", fail_closed=bridge_policy)
    result = run_one_pre(bridge)
    assert isinstance(result.verdict, Deny) is own_policy
    assert result.audit.fail_closed is own_policy


POST_FAULTS: list[tuple[str, str, FaultKind]] = [
    (dialect, command, fault)
    for dialect in ("claude-code", "codex")
    for command, fault in [
        (HANG, FaultKind.TIMEOUT),
        (bash("crash.sh"), FaultKind.CRASH),
        (bash("invalid_json.sh"), FaultKind.INVALID_JSON),
        (bash("post_wrong_event.sh"), FaultKind.WRONG_EVENT),
    ]
]


@pytest.mark.parametrize("fail_closed", [False, True], ids=["default", "fail-closed"])
@pytest.mark.parametrize(("dialect", "command", "fault"), POST_FAULTS, ids=case_id)
def test_HOOK_7_post_tool_use_faults_pass_by_default_and_block_under_fail_closed(
    dialect: str, command: str, fault: FaultKind, fail_closed: bool
) -> None:
    """HOOK-7: a broken PostToolUse hook has no say by default, and blocks when fail-closed."""
    bridge = make_bridge(
        command,
        dialect=dialect,
        point=POST_TOOL_USE,
        timeout=timeout_for(fault),
        fail_closed=fail_closed,
    )
    (result,) = run_post(bridge)
    assert result.audit.fault is not None
    assert result.audit.fault.kind == fault
    assert result.verdict.audit == result.audit.as_hook_audit()
    if fail_closed:
        assert isinstance(result.verdict, PostBlock)
        assert f"{dialect}:PostToolUse:1" in result.verdict.reason
        assert result.audit.decision == "block"
    else:
        assert isinstance(result.verdict, PostPass)
        assert result.audit.decision in ("error", "pass")


def test_HOOK_6_a_non_object_rewrite_is_refused_by_the_loop_never_run() -> None:
    """HOOK-6: by default the string input reaches the merge, which denies naming the hook."""
    bridge = make_bridge(python("non_object_input.py"))
    result = run_one_pre(bridge)
    assert result.verdict == Allow("rm -rf /")
    config = LoopConfig(tools=TOOLS, hooks=bridge.specs())
    call = ToolCallBlock("call-1", "bash", json.dumps(BASH_CALL))
    resolution = resolve_call(call, (HookVote(0, result.handler_id, result.verdict),), config)
    assert resolution.decision == DENY
    assert "claude-code:PreToolUse:1" in (resolution.reason or "")
    state = run(config, [SubmitUser("clean"), ModelReplies((call,)), result.answer()])
    assert state.executions == ()
    (refused,) = results(state.log)
    assert "the input must be a JSON object" in refused.message.text
    assert clean(state.log) == []


def test_HOOK_6_a_non_object_rewrite_denies_at_the_bridge_under_fail_closed() -> None:
    """HOOK-6: fail-closed refuses the bad input before the loop sees it."""
    result = run_one_pre(make_bridge(python("non_object_input.py"), fail_closed=True))
    assert isinstance(result.verdict, Deny)
    assert "non-object-updated-input" in result.verdict.reason
    assert result.audit.updated_input == "rm -rf /"
