"""What a hook author's mistake looks like in the audit (HOOK-7): a malformed answer is a fault
named with its cause; an answer its dialect reads without a fault but that drops what the hook
meant (a typo'd key, text before the JSON, JSON after exit 2, a reason on stderr after exit 0)
is a note beside the decision word, and keeps its documented outcome, also under fail-closed.
"""

from __future__ import annotations

import json
import shlex
import sys

import attrs
import pytest
from test_hookbridge_support import make_bridge, run_one_pre, run_post

from loopspec.impl.hookbridge import FaultKind
from loopspec.model.commands import Allow, Deny, Pass, PostBlock
from loopspec.model.config import POST_TOOL_USE

REWRITE = {"hookEventName": "PreToolUse", "permissionDecision": "allow"}


def _printing(*lines: str, stderr: str = "", exit_code: int = 0) -> str:
    """A hook command that reads its input, prints `lines` and exits with `exit_code`."""
    said = "".join(f"printf '%s\\n' {shlex.quote(line)}; " for line in lines)
    errs = f"printf '%s\\n' {shlex.quote(stderr)} >&2; " if stderr else ""
    return f"cat >/dev/null; {said}{errs}exit {exit_code}"


def _summary(command: str, *, dialect: str = "claude-code", fail_closed: bool = False) -> str:
    run = run_one_pre(make_bridge(command, dialect=dialect, fail_closed=fail_closed))
    summary = run.audit.as_hook_audit().stderr_summary
    assert summary is not None
    return summary


@pytest.mark.parametrize("fail_closed", [False, True])
def test_HOOK_7_a_typoed_updated_input_key_is_named_with_the_key_it_meant(
    fail_closed: bool,
) -> None:
    """`updatedinput` is not read: the call is allowed unchanged, and the audit says why."""
    answer = {"hookSpecificOutput": dict(REWRITE, updatedinput={"command": "ls --dry-run"})}
    command = _printing(json.dumps(answer))
    run = run_one_pre(make_bridge(command, fail_closed=fail_closed))
    assert run.verdict == Allow()
    assert run.audit.as_hook_audit().stderr_summary == (
        "note: ignored, not a key Claude Code reads: $.hookSpecificOutput.updatedinput "
        "(did you mean updatedInput?)"
    )


def test_HOOK_7_codex_still_refuses_the_typoed_key_as_a_fault() -> None:
    """Codex defines no other keys: the same answer is an invalid-output fault, no note."""
    answer = {"hookSpecificOutput": dict(REWRITE, updatedinput={"command": "ls"})}
    run = run_one_pre(make_bridge(_printing(json.dumps(answer)), dialect="codex"))
    assert run.audit.fault is not None
    assert run.audit.fault.kind == FaultKind.INVALID_OUTPUT
    assert run.audit.note is None


def test_HOOK_7_text_before_the_json_is_named_with_the_line_of_the_ignored_answer() -> None:
    answer = {"hookSpecificOutput": dict(REWRITE, updatedInput={"command": "ls"})}
    run = run_one_pre(make_bridge(_printing("guard: rewriting", json.dumps(answer))))
    assert run.verdict == Pass()
    assert "the JSON object on line 2 was ignored" in (run.audit.note or "")


def test_HOOK_7_a_json_deny_after_exit_2_is_read_as_claude_code_reads_it() -> None:
    """Claude Code 2.1.332 tells the model a JSON deny's reason after exit 2, not stderr (seen
    with the pinned CLI, tests/test_real_harnesses.py), though its documentation says stdout
    goes unread then: the bridge denied with stderr and the note said the JSON was not read."""
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "rm is not allowed",
        }
    }
    run = run_one_pre(make_bridge(_printing(json.dumps(deny), stderr="guard: no", exit_code=2)))
    assert run.verdict == Deny("rm is not allowed")
    assert run.audit.decision == "block"  # the word of an exit-2 deny (HOOK-1)
    assert run.audit.note == (
        "exit 2 with a JSON deny, whose reason the model is told instead of stderr: Claude Code "
        "2.1.332 reads it all the same, though its documentation says stdout goes unread after "
        "exit 2; exit 0 to answer in JSON"
    )


def test_HOOK_7_a_reasonless_json_deny_after_exit_2_leaves_stderr_unsaid() -> None:
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}
    run = run_one_pre(make_bridge(_printing(json.dumps(deny), stderr="guard: no", exit_code=2)))
    assert run.verdict == Deny()


def test_HOOK_7_a_json_rewrite_after_exit_2_is_not_read_and_stderr_is_the_reason() -> None:
    """Claude Code denies the call with stderr whatever else the JSON says (an allow, a rewrite,
    `{}`): only a deny is read after exit 2."""
    answer = {"hookSpecificOutput": dict(REWRITE, updatedInput={"command": "ls"})}
    run = run_one_pre(make_bridge(_printing(json.dumps(answer), stderr="guard: no", exit_code=2)))
    assert run.verdict == Deny("guard: no")
    assert run.audit.note == (
        "exit 2: the JSON on stdout is not read (Claude Code reads a deny, a block or a context "
        "from it, no other answer), the reason is stderr; exit 0 to answer in JSON"
    )


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ({"decision": "block", "reason": "secret in output"}, PostBlock("secret in output")),
        (
            {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ctx"}},
            PostBlock("guard: no\n\nctx"),
        ),
        ({"continue": False, "stopReason": "stop"}, PostBlock("guard: no")),
    ],
    ids=["block", "context", "continue-false"],
)
def test_HOOK_7_a_post_tool_use_json_after_exit_2_is_read_as_claude_code_reads_it(
    answer: dict[str, object], verdict: PostBlock
) -> None:
    """After exit 2 Claude Code 2.1.332 tells the model a JSON block's reason instead of stderr,
    and a context beside stderr's block; `continue: false` leaves stderr the reason."""
    command = _printing(json.dumps(answer), stderr="guard: no", exit_code=2)
    (run,) = run_post(make_bridge(command, point=POST_TOOL_USE))
    assert attrs.evolve(run.verdict, audit=None) == verdict
    assert run.audit.decision == "block"


def test_HOOK_7_codex_json_after_exit_2_is_worded_as_codex_behaves() -> None:
    """The note said "as Claude Code documents" of a Codex hook: Codex's own hook runner reads
    only stderr after exit 2."""
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}
    command = _printing(json.dumps(deny), stderr="no rm", exit_code=2)
    run = run_one_pre(make_bridge(command, dialect="codex"))
    assert run.verdict == Deny("no rm")
    assert run.audit.note == (
        "exit 2: the JSON on stdout is not read (Codex reads only stderr after exit 2), the "
        "reason is stderr; exit 0 to answer in JSON"
    )


def test_HOOK_7_a_reason_on_stderr_after_exit_0_is_labelled_as_stderr() -> None:
    summary = _summary(_printing(stderr="guard: refusing rm"))
    assert summary.startswith("note: exit 0 with nothing on stdout is no decision")
    assert summary.endswith("(stderr: guard: refusing rm)")


@pytest.mark.parametrize("dialect", ["claude-code", "codex"])
def test_HOOK_7_a_hook_that_only_logs_to_stderr_gets_no_note(dialect: str) -> None:
    """Every exit-0 hook with stderr alone got "exit 2 would deny the call": noise for a hook
    that only logs. Its stderr is still shown, without a note."""
    run = run_one_pre(make_bridge(_printing(stderr="audit: saw ls -la"), dialect=dialect))
    assert run.verdict == Pass()
    assert run.audit.note is None
    assert run.audit.as_hook_audit().stderr_summary == "audit: saw ls -la"


def test_HOOK_7_a_quiet_passthrough_has_no_note() -> None:
    run = run_one_pre(make_bridge(_printing()))
    assert run.verdict == Pass()
    assert run.audit.note is None
    assert run.audit.as_hook_audit().stderr_summary is None


def test_HOOK_7_two_json_objects_are_named_as_such() -> None:
    answer = {"hookSpecificOutput": dict(REWRITE, updatedInput={"command": "ls"})}
    summary = _summary(_printing(json.dumps(answer), json.dumps({"systemMessage": "done"})))
    assert summary == (
        "invalid-json: stdout holds more than one JSON value (the next at line 2); print one object"
    )


def test_HOOK_7_a_python_traceback_is_summarised_by_its_last_line() -> None:
    """The first line of a traceback says only that one follows; the error is its last."""
    crash = shlex.join([sys.executable, "-c", "import json; json.loads('{}')['cmd']"])
    summary = _summary(crash)
    assert summary == "crash: exit code 1 (stderr: Python traceback, ending: KeyError: 'cmd')"
