"""`loopspec check` notes each hook whose own output or process went wrong (HOOK-7), in the words
`loopspec run` prints for it: a fault breaks no rule, but "0 violations" alone told a hook's
author that all went well while the hook crashed on every call."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from loopspec.impl.hook_fault_kinds import FaultKind
from loopspec.properties.cli.main import main
from loopspec.properties.logcheck import MAX_TRACKED_HOOKS
from loopspec.properties.logcheck.checker import NoticeKind, check_stream
from loopspec.properties.logcheck.hook_faults import UNSUPPORTED, HookRuns

SCENARIO = {
    "tools": [{"name": "bash", "concurrencySafe": False, "requiredKeys": ["command"]}],
    "turns": [
        {
            "user": "list and print",
            "replies": [
                {
                    "blocks": [
                        {
                            "type": "tool-call",
                            "id": "c1",
                            "name": "bash",
                            "arguments": '{"command": "ls"}',
                        },
                        {
                            "type": "tool-call",
                            "id": "c2",
                            "name": "bash",
                            "arguments": '{"command": "pwd"}',
                        },
                    ],
                    "finish": "completed",
                },
                {"blocks": [{"type": "text", "text": "done"}], "finish": "completed"},
            ],
        }
    ],
    "approvals": {"c1": "allowed-once", "c2": "allowed-once"},
}
SOUND = "cat >/dev/null; echo '{}'"
CRASHES = "cat >/dev/null; echo 'no config' >&2; exit 1"
LOGS_A_FAULT_WORD = "cat >/dev/null; echo 'crash: recovered from a cache miss' >&2; echo '{}'"


def _run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], commands: list[str], *flags: str
) -> tuple[str, Path]:
    """`loopspec run`'s output and the log it wrote, with these PreToolUse hooks on `bash`."""
    scenario, settings, log = (tmp_path / name for name in ("s.json", "h.json", "out.jsonl"))
    scenario.write_text(json.dumps({**SCENARIO, "cwd": str(tmp_path)}))
    hooks = [{"type": "command", "command": command} for command in commands]
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": hooks}]}})
    )
    main(["run", str(scenario), "--hooks", str(settings), "--log", str(log), *flags])
    return capsys.readouterr().out, log


def _check(capsys: pytest.CaptureFixture[str], log: Path) -> tuple[int, list[str]]:
    code = main(["check", str(log)])
    return code, capsys.readouterr().out.splitlines()


def test_HOOK_7_check_notes_a_hook_that_crashed_on_every_call_as_run_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, log = _run(tmp_path, capsys, [SOUND, CRASHES])
    ran = [
        line.removeprefix("  HOOK-7: ")
        for line in out.splitlines()
        if line.startswith("  HOOK-7: ")
    ]
    code, lines = _check(capsys, log)
    assert code == 0  # a note, not a violation: the loop handled the fault as HOOK-7 says
    assert lines[-1] == "checked 1 log, 21 events: 0 violations; 1 notice (hook-fault: 1)"
    where, said = lines[0].split(": notice hook-fault HOOK-7: ")
    assert ran == [said]  # one hook, worded alike by both
    assert said == (
        "hook claude-code:PreToolUse:2 failed in all 2 of its runs: its own output or process "
        "went wrong (first: call c1, crash: exit code 1 (stderr: no config)); the loop recorded "
        "no decision, the outcome HOOK-7 gives a fault (its dialect's, or a deny under "
        "fail-closed): no rule is broken, but the hook's answer was not read"
    )
    # The line of the first faulted hook/result, and its seq in the JSON output.
    record = json.loads(log.read_text().splitlines()[int(where.rsplit(":", 1)[1]) - 1])
    assert (record["type"], record["data"]["handlerId"]) == (
        "hook/result",
        "claude-code:PreToolUse:2",
    )
    main(["check", "--format", "json", str(log)])
    [notice] = json.loads(capsys.readouterr().out)["logs"][0]["notices"]
    assert (notice["kind"], notice["rule"], notice["seq"]) == (
        "hook-fault",
        "HOOK-7",
        record["seq"],
    )


def test_HOOK_7_check_notes_a_fail_closed_deny_by_its_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, log = _run(tmp_path, capsys, [CRASHES], "--fail-closed")
    _, lines = _check(capsys, log)
    assert "failed in all 2 of its runs" in lines[0]
    assert "the loop recorded 'deny'," in lines[0]


def test_HOOK_7_check_reads_a_sound_hooks_fault_word_on_stderr_as_no_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hook that answers and logs 'crash: ...' on stderr has no fault: the audit writes its
    stderr as `stderr: crash: ...`, so the log tells it from a crash."""
    _, log = _run(tmp_path, capsys, [LOGS_A_FAULT_WORD])
    assert '"stderrSummary":"stderr: crash: recovered from a cache miss"' in log.read_text()
    code, lines = _check(capsys, log)
    assert (code, lines) == (0, ["checked 1 log, 17 events: 0 violations"])


def test_HOOK_7_check_notes_alike_on_its_quick_and_full_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, log = _run(tmp_path, capsys, [CRASHES, SOUND])
    data = log.read_bytes()
    quick = check_stream("l", io.BytesIO(data))
    full = check_stream("l", io.BytesIO(data), quick=False)
    assert quick == full
    assert [n.kind for n in quick.notices] == [NoticeKind.HOOK_FAULT]


def test_HOOK_7_a_dsh_log_hook_audited_error_is_noted_without_a_fault_kind() -> None:
    """Another loop's `error` (HOOK-1: a hook that failed without a decision) is a fault whatever
    its summary says."""
    runs = HookRuns()
    runs.see_wire({"handlerId": "h", "decision": "error", "stderrSummary": "boom"}, 3, 2)
    runs.see_wire({"handlerId": "h", "decision": "pass"}, 5, 4)
    [(first, note)] = runs.notes()
    assert (first.line, first.seq, first.kind) == (3, 2, "error")
    assert note.startswith(
        "hook h failed in 1 of its 2 runs: its own output or process went wrong (error: boom)"
    )


def test_HOOK_7_check_counts_the_runs_of_a_bounded_number_of_hooks() -> None:
    runs = HookRuns()
    for n in range(MAX_TRACKED_HOOKS + 5):
        runs.see(f"h{n}", "pass", None)
    runs.see("late", "error", "crash: exit code 1")
    [(_, note)] = runs.notes()
    assert note.startswith("hook late failed 1 time: ")


def test_HOOK_7_a_well_formed_answer_its_dialect_does_not_support_is_not_called_broken() -> None:
    """A Codex hook answering `ask`, which Codex does not support: the answer was well formed,
    the dialect refused it. The note said the hook's "own output or process went wrong"."""
    runs = HookRuns()
    summary = "unsupported: permissionDecision:ask is not supported"
    runs.see("codex:PreToolUse:1", "error", summary, call_id="c1")
    [(first, note)] = runs.notes()
    assert first.kind == UNSUPPORTED == FaultKind.UNSUPPORTED
    assert note == (
        "hook codex:PreToolUse:1 failed in its only run: its answer is well formed but one its "
        "dialect does not support (call c1, unsupported: permissionDecision:ask is not "
        "supported); the loop recorded no decision, the outcome HOOK-7 gives a fault (its "
        "dialect's, or a deny under fail-closed): no rule is broken, but the hook's answer was "
        "not acted on"
    )
