"""`loopspec check` on Claude Code transcripts and Codex rollouts (hand-written fixtures).

The fixtures under tests/fixtures/logs/claude-code/ and codex/ hold only the fields a check
reads; `violations/RULE.jsonl` breaks RULE, `valid/` logs keep every rule their dialect shows.
"""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from check_fixtures import FIXTURES
from hypothesis import example, given
from hypothesis import strategies as st

from loopspec.model.invariants import rule_ids
from loopspec.properties.cli.main import main
from loopspec.properties.harnesses import hook_audit
from loopspec.properties.harnesses import report as report_of_run
from loopspec.properties.harnesses.script import Harness
from loopspec.properties.logcheck import claude_code, claude_code_hooks, codex
from loopspec.properties.logcheck.checker import (
    SNIFF_BYTES,
    ErrorKind,
    Limits,
    LogReport,
    NoticeKind,
    check_paths,
    check_stream,
)
from loopspec.properties.logcheck.harness_logs import RULES_CONSIDERED
from loopspec.properties.spec_rules import rule_sections

CLAUDE = FIXTURES / "claude-code"
CODEX = FIXTURES / "codex"


def check(path: Path) -> LogReport:
    """The report of one fixture."""
    (report,) = check_paths([str(path)])
    return report


def rules(report: LogReport) -> list[str]:
    """The rules a report's violations name, in order."""
    return [found.violation.rule_id for found in report.violations]


def only_violation(path: Path, rule: str) -> tuple[int, tuple[int, ...], str]:
    """The line, cited lines and message of the one violation a fixture holds, of `rule`."""
    report = check(path)
    assert rules(report) == [rule]
    (found,) = report.violations
    assert found.events is not None
    return found.line, found.events, found.violation.message


# ---------------------------------------------------------------------------------------------
# The rules, one by one.


def test_RW_1_claude_code_rewrite_that_ran_differs_from_history_and_call_record() -> None:
    """RW-1: a PreToolUse hook's `updatedInput` (hook_success attachment) ran — the call has a
    result — while the assistant tool_use block keeps the model's input: reported at the result,
    citing the hook record and the call."""
    report = check(CLAUDE / "violations" / "RW-1.jsonl")
    assert rules(report) == ["RW-1"]
    (found,) = report.violations
    assert found.line == 4
    assert found.events == (4, 3, 2)
    assert "echo rewritten" in found.violation.message
    assert "echo original" in found.violation.message
    assert report.dialect == "claude-code"


def test_RW_1_a_hook_loopspec_run_wrapped_is_named_as_its_user_configured_it(
    tmp_path: Path,
) -> None:
    """RW-1: `loopspec run --harness` wraps each hook for its audit, and Claude Code records the
    wrapped command; the report names the hook by its id and the user's own command, not
    by the wrapper's `env LOOPSPEC_HOOK=...` prefix and interpreter path."""
    command = hook_audit.wrapped(
        "python3 rewrite.py", "claude-code:PreToolUse:1", "/tmp/a", "/tmp/h"
    )
    assert hook_audit.hook_of(command) == ("claude-code:PreToolUse:1", "python3 rewrite.py")
    assert hook_audit.hook_of("python3 rewrite.py") is None
    # The reader looks for the wrapper's mark before it imports the wrapper to read the command.
    assert claude_code.WRAPPED_HOOK_MARK == hook_audit.HOOK_VARIABLE + "="
    transcript = (CLAUDE / "violations" / "RW-1.jsonl").read_text()
    wrapped = transcript.replace('"command":"rewrite.py"', f'"command":{json.dumps(command)}')
    assert wrapped != transcript
    (tmp_path / "t.jsonl").write_text(wrapped)
    (found,) = check(tmp_path / "t.jsonl").violations
    assert "hook `claude-code:PreToolUse:1 python3 rewrite.py` supplied" in found.violation.message
    assert "LOOPSPEC_HOOK" not in found.violation.message


def test_RW_1_a_hook_with_a_long_command_is_named_by_its_start_and_its_end(tmp_path: Path) -> None:
    """RW-1: a hook's command too long to show whole is cut in the middle. It was cut at its
    end: `claude-code:PreToolUse:1 python3 /home/sam/work/agent-hooks/...`, and with five hooks
    in one folder the user could not tell which one rewrote the call."""
    command = "python3 /home/sam/work/acme/agent-hooks/policies/rewrite_bash.py"
    transcript = (CLAUDE / "violations" / "RW-1.jsonl").read_text()
    (tmp_path / "t.jsonl").write_text(
        transcript.replace('"command":"rewrite.py"', f'"command":{json.dumps(command)}')
    )
    (found,) = check(tmp_path / "t.jsonl").violations
    assert "hook `python3 /home/sam/work/acme/ag...hooks/policies/rewrite_bash.py` supplied" in (
        found.violation.message
    )


def test_RW_1_claude_code_rewrite_to_the_same_input_or_denied_keeps_the_rule(
    tmp_path: Path,
) -> None:
    """RW-1: a hook that supplies the model's own input changes nothing, and a denied call never
    ran, so neither is a divergence: denied by a hook whose answer is recorded, or by one
    whose answer is not (Claude Code 2.1.332 records no denying PreToolUse hook, only the
    denial on the result record, `permissionDecision` of source `hook`, beside another hook's
    rewrite: seen offline 2026-12-06, for a deny, a legacy block and exit 2). Nor is a hook's
    Edit input without the `replace_all: false` Claude Code 2.1.332 records (and sends the
    model) where the model left it out: the Edit runs with its default, as recorded; it read
    as the hook's rewrite. Nor is a hook's input naming the call's file by the absolute path
    Claude Code hands its hooks for the model's relative one (resolved against the records'
    `cwd`, the latest record's for a call recorded twice; each of a passthrough hook's Read,
    Write and Edit calls read as RW-1), while one naming a file in another folder is RW-1. One
    of true is another input, as `true` is another value than the call's `1` (SPEC.md section
    2), which `==` took for it."""
    names = (
        "rewrite-to-the-same-input.jsonl",
        "denied-rewrite-never-ran.jsonl",
        "a-hook-passes-an-edit-back-without-its-default.jsonl",
        "a-rewrite-then-another-hook-denies.jsonl",
        "a-hook-hands-back-a-relative-path-made-absolute.jsonl",
    )
    for name in names:
        report = check(CLAUDE / "valid" / name)
        assert report.violations == [], name
        assert report.status == "ok"
    text = (CLAUDE / "valid" / names[2]).read_text()
    replacing_all = text.replace('"replace_all":false', '"replace_all":true')
    assert replacing_all != text
    (tmp_path / "t.jsonl").write_text(replacing_all)
    assert rules(check(tmp_path / "t.jsonl")) == ["RW-1"]
    text = (CLAUDE / "valid" / names[4]).read_text()
    moved = text.replace("/home/sam/app/notes.txt", "/home/sam/other/notes.txt", 1)
    assert moved != text
    (tmp_path / "t.jsonl").write_text(moved)
    assert rules(check(tmp_path / "t.jsonl")) == ["RW-1"]
    # The absolute path spelt another way names the same file, as `run --harness` reads it.
    spelled = text.replace("/home/sam/app/notes.txt", "/home/sam/app/docs/../notes.txt", 1)
    assert spelled != text
    (tmp_path / "t.jsonl").write_text(spelled)
    assert rules(check(tmp_path / "t.jsonl")) == []
    # A call recorded again, the latest record's `cwd` is its folder, as its input is the latest.
    lines = text.splitlines(keepends=True)
    earlier = lines[1].replace('"uuid":"u2"', '"uuid":"u2a"').replace("/home/sam/app", "/old")
    (tmp_path / "t.jsonl").write_text("".join([lines[0], earlier, *lines[1:]]))
    assert "RW-1" not in rules(check(tmp_path / "t.jsonl"))
    # Compared as SPEC.md section 2 says: 1.0 is the call's 1, `true` is not (it read as 1).
    same = (CLAUDE / "valid" / names[0]).read_text()
    for hooks, found in (("1.0", []), ("true", ["RW-1"])):
        timed = same.replace('"description":"print"}}', '"description":"print","timeout":1}}')
        timed = timed.replace('\\"print\\"}', f'\\"print\\",\\"timeout\\":{hooks}}}')
        assert '"timeout":1}' in timed, hooks
        assert f'\\"timeout\\":{hooks}' in timed, hooks
        (tmp_path / "t.jsonl").write_text(timed)
        assert rules(check(tmp_path / "t.jsonl")) == found, hooks


def test_RW_1_a_rewritten_call_the_permission_check_refused_never_ran(tmp_path: Path) -> None:
    """RW-1: a PreToolUse hook supplies an `updatedInput` without a decision, and Claude Code's
    permission check then refuses the call (the result record's `permissionDecision` says
    `reject`: Write not allowed, plan or don't-ask mode). Nothing ran, so no input that ran
    differs from the history; it read as "ran with the input that hook supplied". A result the
    permission check accepted (or one without the field, as older transcripts write) did run."""
    path = CLAUDE / "valid" / "rewrite-then-refused-by-permissions.jsonl"
    assert check(path).violations == []
    text = path.read_text()
    for accepted in ('"decision":"accept"', ""):
        changed = (
            text.replace('"decision":"reject"', accepted)
            if accepted
            else re.sub(r'"permissionDecision":\{[^}]*\},', "", text)
        )
        assert changed != text
        (tmp_path / "t.jsonl").write_text(changed)
        assert rules(check(tmp_path / "t.jsonl")) == ["RW-1"], accepted


def test_RW_1_claude_code_a_write_whose_result_records_other_content(tmp_path: Path) -> None:
    """RW-1 without a PreToolUse record: a PermissionRequest hook that allows a Write with an
    `updatedInput` (Claude Code 2.1.332 runs it; the transcript records only the decision) wrote
    other content than the tool_use the history keeps. The result record's `toolUseResult`
    says what a Write or an Edit did, so what ran is compared with the call; before, nothing
    was reported. The Edit whose result matches its call keeps the rule."""
    report = check(CLAUDE / "violations" / "RW-1-a-permission-hook-rewrote-a-write.jsonl")
    assert rules(report) == ["RW-1"]
    (found,) = report.violations
    assert (found.line, found.events) == (4, (4, 2))
    assert found.violation.message == (
        'call toolu_w ran {"content": "hook text\\n", "file_path": "/w/g.txt"}, but the model '
        'history and the log\'s call record keep {"content": "model text\\n", "file_path": '
        '"/w/g.txt"}'
    )
    # An Edit whose result records other strings than its call is held the same way.
    text = (CLAUDE / "violations" / "RW-1-a-permission-hook-rewrote-a-write.jsonl").read_text()
    edited = text.replace('"newString":"model"', '"newString":"hooked"')
    assert edited != text
    (tmp_path / "t.jsonl").write_text(edited)
    assert [(f.violation.rule_id, f.line) for f in check(tmp_path / "t.jsonl").violations] == [
        ("RW-1", 4),
        ("RW-1", 6),
    ]
    # An Edit's recorded oldString is the text the tool matched: Claude Code matches the
    # model's straight quotes to the file's curly ones and records those. Not a rewrite.
    curly = text.replace('"oldString":"hook"', '"oldString":"\u201chook\u201d"')
    assert curly != text
    (tmp_path / "t.jsonl").write_text(curly)
    assert rules(check(tmp_path / "t.jsonl")) == ["RW-1"]
    # A Bash call's rewrite by such a hook runs recorded nowhere (re-observed offline with
    # 2.1.332, 2026-12-05: the result records the output, the attachment only the decision):
    # the report says RW-1 is checked in part, not in full.
    assert "a Bash command's, is not seen" in report.checked_in_part["RW-1"]


def test_RW_1_a_pre_tool_use_rewrite_of_a_write_is_reported_once(tmp_path: Path) -> None:
    """RW-1: when a PreToolUse hook's `updatedInput` ran and the Write's result also records it,
    the call is reported once, from the hook record (it names the hook)."""
    text = (CLAUDE / "violations" / "RW-1-a-permission-hook-rewrote-a-write.jsonl").read_text()
    hook = (
        '{"type":"hook_success","hookEvent":"PreToolUse","toolUseID":"toolu_w","command":'
        '"stamp.py","stdout":"{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PreToolUse\\",'
        '\\"updatedInput\\":{\\"file_path\\":\\"/w/g.txt\\",\\"content\\":\\"hook text\\\\n\\"}}}"}'
    )
    pre = text.replace(
        '{"type":"hook_permission_decision","decision":"allow","toolUseID":"toolu_w",'
        '"hookEvent":"PermissionRequest"}',
        hook,
    )
    assert pre != text
    (tmp_path / "t.jsonl").write_text(pre)
    (found,) = check(tmp_path / "t.jsonl").violations
    assert found.violation.rule_id == "RW-1"
    assert "hook `stamp.py` supplied" in found.violation.message


@pytest.mark.parametrize(
    ("name", "ran"),
    [
        ("RW-1.jsonl", "ran echo rewritten,"),
        # An MCP tool's call (`function_call` of `namespace` `mcp__notes`): its McpToolCall
        # records the arguments it ran with, a PreToolUse hook matching `mcp__notes__lookup`
        # having rewritten them (Codex 0.171.0, observed offline); check read no McpToolCall.
        ("RW-1-a-hook-rewrote-an-mcp-call.jsonl", 'ran {"scope": "team", "topic": "tides"},'),
    ],
)
def test_RW_1_RW_2_codex_command_that_ran_differs_from_the_function_call(
    name: str, ran: str
) -> None:
    """RW-1: the CommandExecution ran `echo rewritten` (the McpToolCall other arguments) while
    the function_call (history and rollout) keeps the model's. RW-2: the rollout holds no hook
    record, so nothing says who supplied the input that ran."""
    report = check(CODEX / "violations" / name)
    assert rules(report) == ["RW-1", "RW-2"]
    assert all(found.line == 4 for found in report.violations)
    assert report.violations[0].events == (4, 3)
    assert ran in report.violations[0].violation.message


def test_ORD_3_results_written_in_completion_order_are_reported() -> None:
    """ORD-3: the second call's result is written before the first's, in both dialects."""
    for path in (CLAUDE / "violations" / "ORD-3.jsonl", CODEX / "violations" / "ORD-3.jsonl"):
        report = check(path)
        assert rules(report) == ["ORD-3"], path
        assert "call_b" in report.violations[0].violation.message or "toolu_b" in (
            report.violations[0].violation.message
        )


def test_ORD_3_results_in_issue_order_keep_the_rule() -> None:
    """ORD-3: Codex runs two calls in parallel (executions finish in the other order) and writes
    their outputs in issue order: no violation."""
    report = check(CODEX / "valid" / "parallel-calls-in-issue-order.jsonl")
    assert report.violations == []
    assert report.status == "ok"


def test_ADJ_1_a_message_between_calls_and_results_is_reported() -> None:
    """ADJ-1: a user message (Claude Code) or a developer message (Codex) written while a call
    awaits its result."""
    claude = check(CLAUDE / "violations" / "ADJ-1.jsonl")
    assert rules(claude) == ["ADJ-1"]
    assert claude.violations[0].events == (3, 2)
    # One call reads in the singular (it read "while calls toolu_a await results").
    assert claude.violations[0].violation.message == (
        "a user message lands while call toolu_a awaits its result"
    )
    codex_report = check(CODEX / "violations" / "ADJ-1.jsonl")
    assert rules(codex_report) == ["ADJ-1"]
    assert "developer message" in codex_report.violations[0].violation.message


def test_ADJ_2_a_second_result_for_one_call_is_reported() -> None:
    """ADJ-2: a result for a call that was already answered."""
    for path in (CLAUDE / "violations" / "ADJ-2.jsonl", CODEX / "violations" / "ADJ-2.jsonl"):
        report = check(path)
        assert rules(report) == ["ADJ-2"], path
        assert "already answered" in report.violations[0].violation.message


def test_ADJ_3_a_reply_after_an_unanswered_call_is_reported() -> None:
    """ADJ-3: the model replies again while an earlier call never got its result."""
    report = check(CLAUDE / "violations" / "ADJ-3.jsonl")
    assert rules(report) == ["ADJ-3"]
    assert report.violations[0].violation.message == (
        "a new model reply comes while call toolu_a was never answered"
    )


def test_EXE_1_a_reply_repeating_a_call_id_is_reported() -> None:
    """EXE-1: a reply carries one call id twice (Claude Code: in one record, a converter's
    writing, where the CLI writes each call as a record of its own; Codex: two function_calls
    of one reply)."""
    for path in (CLAUDE / "violations" / "EXE-1.jsonl", CODEX / "violations" / "EXE-1.jsonl"):
        report = check(path)
        assert rules(report) == ["EXE-1"], path


def test_HOOK_4_claude_code_hook_answering_one_call_twice_is_reported() -> None:
    """HOOK-4: the same PreToolUse hook's hook_success appears twice for one call."""
    report = check(CLAUDE / "violations" / "HOOK-4.jsonl")
    assert rules(report) == ["HOOK-4"]
    assert report.violations[0].events == (4, 3)


def _with_another_hook(text: str, supplied: str) -> str:
    """The HOOK-6 fixture with another hook's success answer for the call, supplying
    `supplied` (JSON, escaped as the stdout holds it), after the first hook's record."""
    lines = text.splitlines(keepends=True)
    other = (
        lines[2]
        .replace("rewrite.py", "other.py")
        .replace("hook_non_blocking_error", "hook_success")
    )
    other = other.replace('\\"ls -la\\"', supplied).replace('"uuid":"u3"', '"uuid":"u3b"')
    return "".join([*lines[:3], other, *lines[3:]])


HOOK_6_ANSWER = '"updatedInput\\":\\"ls -la\\"}}'
"""How the HOOK-6 fixture's hook answer ends (its stdout, escaped in the attachment)."""


@pytest.mark.parametrize(
    ("edit", "found"),
    [
        (lambda text: text, ["HOOK-6"]),
        # Recorded as a success (another version, a converter): the same input, the same fault.
        (lambda text: text.replace("hook_non_blocking_error", "hook_success"), ["HOOK-6"]),
        # The call failed: no success reports it ran.
        (lambda text: text.replace('"is_error":false', '"is_error":true'), []),
        # JSON null supplies no input (the dialect's reading), nor does a deny run the call.
        (lambda text: text.replace('\\"ls -la\\"', "null"), []),
        (lambda text: text.replace('\\"allow\\"', '\\"deny\\"'), []),
        # Another hook supplied an object: which input was in effect, the log does not say (it
        # differs from the call's, RW-1 as ever).
        (lambda text: _with_another_hook(text, '{\\"command\\":\\"ls -a\\"}'), ["RW-1"]),
        # Another that supplied none changes nothing.
        (lambda text: _with_another_hook(text, "null"), ["HOOK-6"]),
    ],
    ids=[
        "schema-refused",
        "as-a-success",
        "failed",
        "null",
        "denied",
        "beside-an-object",
        "beside-none",
    ],
)
def test_HOOK_6_claude_code_a_call_run_although_its_hooks_input_is_no_object_is_reported(
    tmp_path: Path, edit: Any, found: list[str]
) -> None:
    """HOOK-6: a PreToolUse hook supplies `"ls -la"`, a string, as the call's input; Claude
    Code's schema refuses the answer (`hook_non_blocking_error`) and the call runs the model's
    input and succeeds, where the model denies it, naming the hook. The transcript holds all
    that, yet HOOK-6 was listed as not checkable and nothing was said. Not judged where the
    call failed, the input is null (none supplied), the hook denied, or another hook supplied
    an object (the configured order, which says which was in effect, is not recorded)."""
    text = (CLAUDE / "violations" / "HOOK-6.jsonl").read_text()
    assert HOOK_6_ANSWER in text
    edited = edit(text)
    (tmp_path / "t.jsonl").write_text(edited)
    report = check(tmp_path / "t.jsonl")
    assert rules(report) == found
    if found == ["HOOK-6"]:
        (violation,) = report.violations
        result = 1 + next(n for n, line in enumerate(edited.splitlines()) if "tool_result" in line)
        assert (violation.line, violation.events) == (result, (result, 3))
        assert violation.violation.facet == "non-object-input-ran"
        assert violation.violation.message == (
            'hook `rewrite.py` supplied an input for toolu_a that is a string, "ls -la", yet its '
            "result reports success: an input in effect that is not a JSON object denies the "
            "call, with a reason naming the hook, and the call never runs"
        )
    assert "HOOK-6" not in claude_code.NOT_CHECKABLE
    assert "HOOK-6" in claude_code.CHECKED_IN_PART


def test_EXE_1_a_repeated_call_id_is_the_one_divergence_when_both_calls_ran() -> None:
    """EXE-1: a reply repeats a call id and the loop runs both calls and answers each (what
    Claude Code 2.1.332 and Codex 0.171.0 do). The reply breaks EXE-1, and that is all: each
    result answers one of the two calls (not ADJ-2, "already answered"), and each call ran its
    own input (Codex: not RW-1 and RW-2, the second command compared with the first call's)."""
    claude = check(CLAUDE / "violations" / "EXE-1-both-calls-answered.jsonl")
    assert rules(claude) == ["EXE-1"]
    assert claude.violations[0].violation.message == "the reply carries call id toolu_d twice"
    assert claude.notices == []
    rollout = check(CODEX / "violations" / "EXE-1-both-calls-ran-and-were-answered.jsonl")
    assert rules(rollout) == ["EXE-1"]
    assert (rollout.violations[0].line, rollout.violations[0].events) == (4, (4, 3))


def test_EXE_1_a_repeated_call_id_whose_command_ran_another_input_is_still_RW_1(
    tmp_path: Path,
) -> None:
    """RW-1 still holds a repeated id to its calls: a command that is neither call's input is a
    divergence (EXE-1 for the reply, RW-1 and RW-2 for what ran)."""
    text = (CODEX / "violations" / "EXE-1-both-calls-ran-and-were-answered.jsonl").read_text()
    changed = text.replace('"-lc","echo two"]', '"-lc","echo three"]')
    assert changed != text
    (tmp_path / "rollout.jsonl").write_text(changed)
    report = check(tmp_path / "rollout.jsonl")
    assert rules(report) == ["EXE-1", "RW-1", "RW-2"]
    assert "ran echo three" in report.violations[1].violation.message


def test_REC_1_codex_resumed_after_a_crash_without_writing_the_repair() -> None:
    """REC-1: Codex killed while a call runs, then resumed (`codex exec resume`), gives the model a
    synthetic "aborted" result but never writes it to the rollout: the next turn's task_started
    finds the call unanswered. That is the repair missing from the log (REC-1), reported once
    where the new turn starts; the user message and the reply that follow are not blamed on
    ADJ-1 and ADJ-3 as well."""
    report = check(CODEX / "violations" / "REC-1-resumed-without-a-repair.jsonl")
    assert rules(report) == ["REC-1"]
    (found,) = report.violations
    assert (found.line, found.events) == (5, (5, 4))
    # Worded as a dsh log's REC-1 (tests/test_check_cli.py), in the rollout's terms: it read
    # "a new turn starts while call call_long awaits its result: the turn before ended without
    # answering it, and no repair result was written", another sentence for the same break.
    assert found.violation.message == (
        "turn turn2 (task_started) starts, where call call_long still awaits its result: a turn "
        "a crash left open is closed by crash repair, which answers its calls, before the next "
        "starts"
    )
    assert "REC-1" not in report.not_checkable
    assert report.notices == []


@pytest.mark.parametrize(("turns", "blamed"), [(1, []), (2, []), (0, ["REC-1"])])
def test_REC_1_a_codex_turn_rolled_back_with_its_call_unanswered_leaves_none_to_repair(
    tmp_path: Path, turns: int, blamed: list[str]
) -> None:
    """REC-1: the rollout above with a `thread_rolled_back` of the crashed turn before the next
    task_started. Codex rebuilds the history without the last `num_turns` user turns (counted
    by user messages from the end), so call_long is in no history the next turn reads: no
    repair is owed. check read no rollback, and named REC-1 at turn2 as if the call still
    awaited its result. A rollback of no turn takes nothing out: REC-1 as before."""
    path = CODEX / "valid" / "a-turn-rolled-back-with-its-call-unanswered.jsonl"
    if turns != 1:
        text = path.read_text(encoding="utf-8").replace('"num_turns":1', f'"num_turns":{turns}')
        path = tmp_path / "rolled-back.jsonl"
        path.write_text(text, encoding="utf-8")
    report = check(path)
    assert rules(report) == blamed
    assert report.errors == []


def test_REC_1_claude_code_resumed_after_a_crash_without_writing_the_repair(
    tmp_path: Path,
) -> None:
    """REC-1: a transcript whose next prompt comes while a call awaits its result, and whose
    next reply comes before any result, opened a turn over a crash left unrepaired (Claude Code
    2.1.332 writes the repair first: `valid/a-crash-repair-then-the-next-prompt.jsonl`). It was
    ADJ-1 at the prompt and ADJ-3 at the reply, two rules for one missing repair, where a dsh log
    or a Codex rollout says REC-1: now the same sentence, once, at the prompt. A prompt whose
    `parentUuid` names the call's record is Claude Code forking or rewinding the session there
    (`--fork-session`, `--resume-session-at`: it sends the model a result no result record holds),
    and is said so, in a shape of its own. A prompt whose call is answered after it stays
    ADJ-1 (`violations/ADJ-1.jsonl`)."""
    forked = CLAUDE / "violations" / "REC-1-resumed-without-a-repair.jsonl"
    report = check(forked)
    assert rules(report) == ["REC-1"]
    (found,) = report.violations
    assert (found.line, found.events) == (3, (3, 2))
    assert found.violation.message == (
        "a turn (a user's prompt whose parentUuid names the record of call toolu_long) starts, "
        "where call toolu_long still awaits its result: a turn a crash left open is closed by "
        "crash repair, which answers its calls, before the next starts; a fork or rewind there "
        "(--fork-session, --resume-session-at) sends the model a result for it that no result "
        "record holds"
    )
    assert found.violation.facet == "unrecorded-repair-on-fork"
    # The prompt hung from no record (a converter dropping parentUuid): a crash's lost repair.
    unhung = tmp_path / "unhung.jsonl"
    unhung.write_text(forked.read_text().replace('"parentUuid":"u2"', '"parentUuid":null'))
    (found,) = check(unhung).violations
    assert found.violation.message == (
        "a turn (a user's prompt) starts, where call toolu_long still awaits its result: a turn "
        "a crash left open is closed by crash repair, which answers its calls, before the next "
        "starts"
    )
    assert found.violation.facet == "prompt-opened-over-calls"
    assert rules(check(CLAUDE / "violations" / "ADJ-1.jsonl")) == ["ADJ-1"]


def test_REC_1_claude_code_rewound_in_the_same_file_is_read_by_its_branch() -> None:
    """REC-1: `--resume-session-at` a call's record (here, a hook's record hung from it) writes
    the branch on in the same file, after the other branch's result for the call: the prompt
    hangs from the call's record, so on its branch the call awaits a result the model was sent
    and no result record holds. Read in the order written, the other branch's result answered it and
    check said nothing. A branch from a turn's end, with the other branch's call left awaiting,
    or from a call's result, is what the model saw: no blame (it was REC-1)."""
    report = check(CLAUDE / "violations" / "REC-1-rewound-at-a-call-in-the-same-file.jsonl")
    assert rules(report) == ["REC-1"]
    (found,) = report.violations
    assert (found.line, found.events, found.violation.facet) == (
        6,
        (6, 2),
        "unrecorded-repair-on-fork",
    )
    assert "record of call toolu_two) starts, where call toolu_two still awaits" in (
        found.violation.message
    )
    assert report.notices == []


REWOUND_AT_A_RESULT = CLAUDE / "violations" / "REC-1-rewound-at-one-of-a-replys-results.jsonl"


@pytest.mark.parametrize(
    ("lines", "parent", "found"),
    [
        # The branch hangs from a's result (line 4): b's result (line 5) is the other branch's.
        (None, "u4", [("REC-1", 7, (7, 3), "unrecorded-repair-on-fork")]),
        # --fork-session there: the new file holds the reply and a's result, then the prompt.
        ([1, 2, 3, 4, 7, 8], "u4", [("REC-1", 5, (5, 3), "unrecorded-repair-on-fork")]),
        # From the last result written: the branch holds both.
        (None, "u5", []),
        # --fork-session at b's call, before any result: both await one on the branch.
        ([1, 2, 3, 7, 8], "u3", [("REC-1", 4, (4, 2, 3), "unrecorded-repair-on-fork")]),
        # b's result written first (ORD-3), the branch from a's, the last written: both held.
        ([1, 2, 3, 5, 4, 6, 7, 8], "u4", [("ORD-3", 4, (4, 2), "result-before-earlier-calls")]),
        # From b's, written first: a's result, written after it, is not on the branch.
        (
            [1, 2, 3, 5, 4, 6, 7, 8],
            "u5",
            [
                ("ORD-3", 4, (4, 2), "result-before-earlier-calls"),
                ("REC-1", 7, (7, 2), "unrecorded-repair-on-fork"),
            ],
        ),
    ],
)
def test_REC_1_claude_code_rewound_at_one_of_a_replys_results_holds_those_written_by_then(
    tmp_path: Path,
    lines: list[int] | None,
    parent: str,
    found: list[tuple[str, int, tuple[int, ...], str]],
) -> None:
    """REC-1: `--resume-session-at` the record of one result of a reply of several calls (with
    `--fork-session` or not) sends the model, as Claude Code 2.1.332 was seen to (offline,
    2026-12-05, two and three calls, each result branched from), every call of the reply, the
    results written up to that record, and for each call whose result was written after it an
    error result no record holds: the fork shape. The parentUuid chain does not say it (each
    result hangs from its own call's record), and read in the order written the other
    branch's results answered the call: check said nothing."""
    records = REWOUND_AT_A_RESULT.read_text().splitlines(keepends=True)
    path = tmp_path / "branch.jsonl"
    chosen = [records[n - 1] for n in lines] if lines is not None else records
    path.write_text(
        "".join(chosen).replace(
            '"uuid":"u7","parentUuid":"u4"', f'"uuid":"u7","parentUuid":"{parent}"'
        )
    )
    report = check(path)
    assert [
        (f.violation.rule_id, f.line, f.events, f.violation.facet) for f in report.violations
    ] == found
    if lines is None and parent == "u4":
        assert report.violations[0].violation.message.startswith(
            "a turn (a user's prompt whose parentUuid names line 4, a branch holding only the "
            "results written by then) starts, where call toolu_b still awaits its result: "
        )
        assert report.violations[0].violation.message.endswith(
            "a result for it that no result record holds"
        )
    if parent == "u3":  # one result per call, however many await
        assert report.violations[0].violation.message.endswith(
            "where calls toolu_a, toolu_b still await their results: a turn a crash left open is "
            "closed by crash repair, which answers its calls, before the next starts; a fork or "
            "rewind there (--fork-session, --resume-session-at) sends the model a result for each "
            "that no result record holds"
        )


def test_ADJ_1_claude_code_a_prompt_after_an_unanswered_call_at_the_end_of_the_log(
    tmp_path: Path,
) -> None:
    """ADJ-1: a prompt held to see what follows it (REC-1 or ADJ-1) is still blamed when the
    log ends after it, at its own line, with the crash tail noticed."""
    lines = (CLAUDE / "violations" / "REC-1-resumed-without-a-repair.jsonl").read_text()
    path = tmp_path / "t.jsonl"
    path.write_text("".join(lines.splitlines(keepends=True)[:3]))
    report = check(path)
    assert [(f.violation.rule_id, f.line) for f in report.violations] == [("ADJ-1", 3)]
    assert [n.kind for n in report.notices] == ["crash-tail"]


def test_REC_1_claude_code_a_crash_repair_followed_by_a_message_the_model_never_wrote() -> None:
    """REC-1: Claude Code resumed after a crash answers the interrupted call (a result record
    marked `toolDenialKind: interrupted`) and then writes an assistant message of model
    `<synthetic>`, which the next request carries as the model's own: a repair adds results
    only. `loopspec run` counted it (REC-1) while check, calling REC-1 not checkable, passed the
    transcript. Reported once, at the message, citing the repair; a repair followed by the
    next prompt, or by an API error notice (never sent to the model), keeps REC-1."""
    report = check(CLAUDE / "violations" / "REC-1-a-repair-adds-an-assistant-message.jsonl")
    assert rules(report) == ["REC-1"]
    (found,) = report.violations
    assert (found.line, found.events) == (4, (4, 3))
    assert found.violation.message == (
        "the crash repair of call toolu_long is followed by an assistant message the model "
        "never wrote (No response requested.): a repair adds results only"
    )
    assert "REC-1" not in report.not_checkable
    assert check(CLAUDE / "valid" / "a-crash-repair-then-the-next-prompt.jsonl").violations == []


INVENTED_ON_RESUMING = [
    pytest.param(
        "REC-1-a-crash-before-the-reply.jsonl",
        "REC-1",
        (
            2,
            (2, 1),
            "the model never replied to line 1, and an assistant message it never wrote (No "
            "response requested.) follows, sent to it as its own: a turn cut short (by a crash, "
            "or by a failed request or an interrupt the log does not mark) closes adding no "
            "reply: crash repair only answers the calls awaiting results",
        ),
        id="REC-1",
    ),
    pytest.param(
        # 2.1.332 asks again after a reply holding no text (STEP-4's known divergence), and
        # resumed after a second such reply hangs its message from the record before it, in its
        # place (seen 2026-12-06): the next request carries it as the model's, where check
        # read the replies in the order written and passed the transcript.
        "REC-1-a-reply-holding-no-text-replaced-on-resume.jsonl",
        "REC-1",
        (
            5,
            (5, 3, 4),
            "the model's reply at line 4 to line 3 is left off the branch the session resumes, "
            "and an assistant message it never wrote (No response requested.) hangs from line 3 "
            "in its place, sent to it as its own: resuming a session adds no reply: crash repair "
            "only answers the calls awaiting results",
        ),
        id="REC-1-replaced",
    ),
    pytest.param(
        "ABORT-2.jsonl",
        "ABORT-2",
        (
            3,
            (3, 2),
            "after the interrupt at line 2, which came before the model's reply ended, an "
            "assistant message the model never wrote (No response requested.) is sent to it as "
            "its own: an interrupted reply keeps only the text the model delivered",
        ),
        id="ABORT-2",
    ),
]


@pytest.mark.parametrize(("name", "rule", "found"), INVENTED_ON_RESUMING)
def test_REC_1_ABORT_2_claude_code_resumed_before_the_reply_with_a_message_the_model_never_wrote(
    name: str, rule: str, found: tuple[int, tuple[int, ...], str]
) -> None:
    """REC-1, ABORT-2: Claude Code 2.1.332, stopped while the model's reply streamed, before any
    block of it was written, and resumed (`claude -p --continue`), writes an assistant message of
    model `<synthetic>` (`No response requested.`) that the next request carries as the model's
    own (observed 2026-12-04). Killed (SIGKILL), it writes it right after the prompt: no call
    awaited a result, so no repair record came first, and check passed the transcript (REC-1).
    Interrupted (SIGINT), it writes the notice `[Request interrupted by user]` first (no `for
    tool use`: no call ran), and check named ABORT-1, whose abort answers a batch's calls: an
    interrupt before the reply ended is ABORT-2's, whose reply keeps only what the model
    delivered. Each reported once, at the message, citing the record it follows."""
    report = check(CLAUDE / "violations" / name)
    assert only_violation(CLAUDE / "violations" / name, rule) == found
    assert (rule in report.checked_in_part) == (rule == "ABORT-2")
    assert rule not in report.not_checkable


def test_REC_1_claude_code_no_resume_after_an_api_error_or_a_quiet_turns_close(
    tmp_path: Path,
) -> None:
    """REC-1: an API error notice (never sent to the model) answering the prompt before Claude
    Code's own message, or a message Claude Code marks as a quiet turn's close, is no resume of a
    turn a crash cut: not blamed."""
    path = CLAUDE / "violations" / "REC-1-a-crash-before-the-reply.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    api_error = json.loads(lines[1]) | {"isApiErrorMessage": True}
    api_error["message"] = api_error["message"] | {
        "content": [{"type": "text", "text": "API Error: 500"}]
    }
    (tmp_path / "api-error.jsonl").write_text(
        "".join([lines[0], json.dumps(api_error) + "\n", *lines[1:]])
    )
    assert check(tmp_path / "api-error.jsonl").violations == []
    quiet = json.dumps(json.loads(lines[1]) | {"closesQuietTurn": True}) + "\n"
    (tmp_path / "quiet.jsonl").write_text("".join([lines[0], quiet, *lines[2:]]))
    assert check(tmp_path / "quiet.jsonl").violations == []


def test_ABORT_1_claude_code_an_interrupt_then_a_message_the_model_never_wrote(
    tmp_path: Path,
) -> None:
    """ABORT-1: Claude Code interrupted while a call runs answers it as rejected, writes the
    notice `[Request interrupted by user for tool use]`, and on resuming writes an assistant
    message of model `<synthetic>` (`No response requested.`), which the next request carries
    as the model's: an abort adds no reply. `loopspec run --harness` named it ABORT-1 while
    check passed the transcript, listing ABORT-1 in neither of its lists. Reported once, at the
    message, citing the notice; without that message nothing is invented after an abort, and
    after an ordinary message rather than the notice it is no abort's."""
    path = CLAUDE / "violations" / "ABORT-1.jsonl"
    report = check(path)
    assert rules(report) == ["ABORT-1"]
    (found,) = report.violations
    assert (found.line, found.events) == (5, (5, 4))
    assert found.violation.message == (
        "after the interrupt at line 4, an assistant message the model never wrote (No response "
        "requested.) is sent to it as its own: an abort answers the calls and ends the turn, "
        "adding no reply"
    )
    assert "ABORT-1" in report.checked_in_part
    lines = path.read_text().splitlines(keepends=True)
    (tmp_path / "kept.jsonl").write_text("".join(lines[:4] + lines[5:]))
    assert check(tmp_path / "kept.jsonl").violations == []
    typed = lines[3].replace("[Request interrupted by user for tool use]", "stop please")
    (tmp_path / "typed.jsonl").write_text("".join([*lines[:3], typed, *lines[4:]]))
    # No abort there: a message the model never answered, then Claude Code's own, is the
    # resume of a turn a crash cut (REC-1).
    assert rules(check(tmp_path / "typed.jsonl")) == ["REC-1"]
    # The notice of an interrupt before the reply ended, a plain string too: ABORT-2's.
    plain = lines[3].replace(
        '[{"type":"text","text":"[Request interrupted by user for tool use]"}]',
        '"[Request interrupted by user]"',
    )
    (tmp_path / "plain.jsonl").write_text("".join([*lines[:3], plain, *lines[4:]]))
    assert rules(check(tmp_path / "plain.jsonl")) == ["ABORT-2"]


def test_ORD_3_a_subagent_transcript_is_judged_not_skipped() -> None:
    """ORD-3: a subagent's own transcript (`<session>/subagents/agent-*.jsonl`) marks every
    record `isSidechain`. It is that conversation, so its records are judged: before, all were
    skipped as another conversation's and the log passed every rule unread."""
    report = check(CLAUDE / "violations" / "ORD-3-in-a-subagent-transcript.jsonl")
    assert rules(report) == ["ORD-3"]
    assert report.violations[0].events == (4, 2)
    # In a main transcript the subagent's records that Claude Code wrote inline are still
    # another conversation: its user message is not a message between the Agent call and its
    # result (ADJ-1).
    main_log = check(CLAUDE / "valid" / "a-main-transcript-skips-an-inline-subagent.jsonl")
    assert main_log.violations == []


def test_ADJ_3_an_api_error_message_is_no_model_reply() -> None:
    """ADJ-3, ADJ-2: when the model's stream breaks after a tool_use block, Claude Code 2.1.332
    writes an `assistant` record of its own (`isApiErrorMessage`, model `<synthetic>`: "API
    Error: Connection lost mid-response"), then runs the call and sends the next request with
    the partial reply and its result, without that message. It is shown to the user, never to
    the model: not a new reply while the call awaits its result (ADJ-3; the result after it is
    that call's, written late, not blamed again)."""
    report = check(CLAUDE / "valid" / "connection-lost-mid-reply.jsonl")
    assert (rules(report), report.notices) == ([], [])
    # Without the mark it is a reply like any other, and the rules see it.
    text = (CLAUDE / "valid" / "connection-lost-mid-reply.jsonl").read_text()
    unmarked = text.replace('"isApiErrorMessage":true,', "")
    assert unmarked != text
    replied = check_stream("unmarked.jsonl", io.BytesIO(unmarked.encode()))
    assert rules(replied) == ["ADJ-3"]


def test_a_forked_session_that_opens_with_a_mode_record_is_a_transcript() -> None:
    """`claude --resume ID --fork-session` writes a new transcript whose first record is
    `{"type": "mode", ...}`; it was taken for a dsh log and failed with LOG-5 (exit 2). A
    record of a type this reader does not know, carrying a `sessionId`, is Claude Code's too."""
    report = check(CLAUDE / "valid" / "forked-session-opens-with-a-mode-record.jsonl")
    assert (report.dialect, report.status, report.errors) == ("claude-code", "ok", [])
    future = b'{"type":"some-later-record","sessionId":"s2"}\n'
    body = (CLAUDE / "violations" / "ORD-3.jsonl").read_bytes()
    later = check_stream("later.jsonl", io.BytesIO(future + body))
    assert (later.dialect, rules(later)) == ("claude-code", ["ORD-3"])


def test_HOOK_4_two_hooks_whose_commands_begin_alike_are_two_hooks(tmp_path: Path) -> None:
    """HOOK-4: two PreToolUse hooks whose commands share their first 60 characters (one
    program, a long policy path, then `--team alpha` / `--team beta`) each answer a call once.
    A report shows a hook's command cut at 60 characters, and the cut was also what told hooks
    apart, so the second answer read as the first hook answering again. The same command
    answering twice is still HOOK-4, named as cut."""
    path = CLAUDE / "valid" / "two-hooks-whose-commands-begin-alike.jsonl"
    assert check(path).violations == []
    text = path.read_text()
    same = text.replace("--team beta", "--team alpha")
    assert same != text
    (tmp_path / "t.jsonl").write_text(same)
    (found,) = check(tmp_path / "t.jsonl").violations
    assert found.violation.rule_id == "HOOK-4"
    assert found.violation.message == (
        "PreToolUse hook `/opt/hooks/policy-guard --poli...licies/shell.yaml --team alpha` "
        "answers call toolu_a again"
    )


HOOK_FAULTS = CLAUDE / "valid" / "hook-faults-a-crash-broken-json-a-timeout.jsonl"


def test_HOOK_7_claude_code_hooks_that_crashed_printed_broken_json_or_timed_out_are_noted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """HOOK-7: a transcript whose audit hook crashed and timed out, whose deny hook printed
    broken JSON (Claude Code ran the call) and misspelt its decision, and whose audit command
    crashed again as a PostToolUse hook: no rule is broken, but each hook gets one notice, in the
    words `run` prints after its hook audit. `check` said "0 violations" and nothing else, as if
    the deny hook had been heard. A hook that printed nothing leaves no record, so the notes
    count failures, not runs; a sound rewrite in the same log is not noted."""
    report = check(HOOK_FAULTS)
    assert (report.violations, report.status) == ([], "ok")
    noted = [
        (n.kind, n.rule_id, n.line, n.message.partition(": its own")[0]) for n in report.notices
    ]
    assert noted == [
        (NoticeKind.HOOK_FAULT, "HOOK-7", 6, "hook `audit.py` (PreToolUse) failed 2 times"),
        (NoticeKind.HOOK_FAULT, "HOOK-7", 8, "hook `deny.py` (PreToolUse) failed 2 times"),
        (NoticeKind.HOOK_FAULT, "HOOK-7", 15, "hook `audit.py` (PostToolUse) failed 1 time"),
    ]
    crash, broken, post = (n.message for n in report.notices)
    assert "(first: call toolu_a, crash: exit code 1 (stderr: Python traceback, ending: " in crash
    assert "RuntimeError: audit db is locked)); Claude Code took no decision from it " in crash
    assert "(first: call toolu_b, invalid-json: stdout is not valid JSON: " in broken
    assert "(call toolu_d, crash: exit code 3); Claude Code took no decision from it" in post
    assert main(["check", str(HOOK_FAULTS)]) == 0
    out = capsys.readouterr().out
    assert f"{HOOK_FAULTS}:6: notice hook-fault HOOK-7: hook `audit.py` (PreToolUse)" in out
    assert out.splitlines()[-1].endswith("0 violations; 3 notices (hook-fault: 3)")


def test_HOOK_7_a_hook_claude_code_timed_out_is_noted_in_the_transcripts_words(
    tmp_path: Path,
) -> None:
    """HOOK-7: a `hook_cancelled` record says Claude Code cancelled the hook at its timeout, and
    the call then ran. The note said "its process group was killed" and "the loop recorded no
    decision", the bundled loop's words, which no transcript shows."""
    lines = HOOK_FAULTS.read_text().splitlines()
    cancelled = json.loads(lines[10])
    assert cancelled["attachment"]["type"] == "hook_cancelled"
    cancelled["attachment"]["toolUseID"] = "toolu_a"
    cancelled["attachment"]["timeoutMs"] = 2500
    transcript = tmp_path / "timed-out.jsonl"
    transcript.write_text("\n".join([lines[0], lines[1], json.dumps(cancelled), lines[6]]) + "\n")
    report = check(transcript)
    [notice] = report.notices
    assert notice.message == (
        "hook `audit.py` (PreToolUse) failed 1 time: its own output or process went wrong "
        "(call toolu_a, timeout: no exit within 2.5 s; Claude Code cancelled it); Claude Code "
        "took no decision from it (a fault's outcome in its dialect, HOOK-7): no rule is "
        "broken, but the hook's answer was not read"
    )


def test_HOOK_7_a_post_tool_use_hook_claude_code_timed_out_is_noted(tmp_path: Path) -> None:
    """HOOK-7: Claude Code 2.1.332 records a PostToolUse hook's timeout as a `hook_cancelled`
    holding only its name, point and call (no `timedOut`, no command; an interrupt during a
    hook writes no record), which was read as a cancellation that is no fault: no note."""
    lines = HOOK_FAULTS.read_text().splitlines()
    cancelled = {
        "type": "attachment",
        "uuid": "u8",
        "parentUuid": "u7",
        "sessionId": "s1",
        "attachment": {
            "type": "hook_cancelled",
            "hookName": "PostToolUse:Bash",
            "toolUseID": "toolu_a",
            "hookEvent": "PostToolUse",
        },
    }
    transcript = tmp_path / "post-timed-out.jsonl"
    transcript.write_text("\n".join([lines[0], lines[1], lines[6], json.dumps(cancelled)]) + "\n")
    report = check(transcript)
    [notice] = report.notices
    assert notice.message == (
        "hook `PostToolUse:Bash` (PostToolUse) failed 1 time: its own output or process went "
        "wrong (call toolu_a, timeout: no exit within its timeout; Claude Code cancelled it); "
        "Claude Code took no decision from it (a fault's outcome in its dialect, HOOK-7): no "
        "rule is broken, but the hook's answer was not read"
    )


@pytest.mark.parametrize(
    ("record", "hook_output"),
    [
        (  # a crash: Claude Code puts its words before the hook's stderr
            {
                "type": "hook_non_blocking_error",
                "exitCode": 1,
                "stdout": "",
                "stderr": (
                    "Failed with non-blocking status code: Traceback (most recent call last):\n"
                    "ValueError: no policy"
                ),
            },
            (1, "", "Traceback (most recent call last):\nValueError: no policy"),
        ),
        (  # a crash that wrote no stderr
            {
                "type": "hook_non_blocking_error",
                "exitCode": 7,
                "stdout": "",
                "stderr": ("Failed with non-blocking status code: No stderr output"),
            },
            (7, "", ""),
        ),
        (  # broken JSON, kept as text
            {"type": "hook_success", "exitCode": 0, "stderr": "", "stdout": '{"decision": '},
            (0, '{"decision": ', ""),
        ),
        (  # an answer Claude Code's schema refused: its message stands in for stderr
            {
                "type": "hook_non_blocking_error",
                "exitCode": 0,
                "stderr": (
                    "Hook JSON output validation failed \u2014 updatedInput: expected record"
                ),
                "stdout": '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
                '"permissionDecision": "allow", "updatedInput": "ls"}}',
            },
            (
                0,
                '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
                '"permissionDecision": "allow", "updatedInput": "ls"}}',
                "",
            ),
        ),
    ],
)
def test_HOOK_7_a_transcripts_hook_record_reads_as_run_harness_reads_the_hooks_output(
    record: dict[str, Any], hook_output: tuple[int, str, str]
) -> None:
    """HOOK-7: `check` reads a transcript's hook record as `run --harness` reads what the same
    hook printed (its audit wrapper's record), so both word the fault alike."""
    exit_code, stdout, stderr = hook_output
    audited = {
        "hook": "claude-code:PreToolUse:1",
        "stdin": json.dumps({"hook_event_name": "PreToolUse", "tool_use_id": "toolu_a"}),
        "stdout": stdout,
        "stderr": stderr,
        "exitCode": exit_code,
        "started": 0.0,
        "finished": 0.0,
    }
    (answer,) = report_of_run.hook_answers([audited], Harness.CLAUDE_CODE)
    read = claude_code_hooks.read_hook_run(
        {**record, "hookEvent": "PreToolUse", "toolUseID": "toolu_a", "command": "h.py"}
    )
    assert read == (answer.word, answer.summary)
    assert answer.fault is not None


@pytest.mark.parametrize(
    "damage",
    [
        {"type": []},
        {"hookEvent": {}},
        {
            "stdout": '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
            '"permissionDecision": []}}'
        },
        {"exitCode": [1]},
        {"durationMs": 10**400, "timeoutMs": [], "type": "hook_cancelled", "timedOut": True},
    ],
)
def test_HOOK_7_a_damaged_hook_record_never_crashes_check(damage: dict[str, Any]) -> None:
    """HOOK-7: a hook record holding any JSON value where a string or a number belongs is read
    or skipped, never a traceback (a list as `type` raised TypeError: unhashable type)."""
    records = [json.loads(line) for line in HOOK_FAULTS.read_text().splitlines()]
    records[7]["attachment"].update(damage)
    data = "".join(json.dumps(record) + "\n" for record in records).encode()
    report = check_stream("damaged.jsonl", io.BytesIO(data))
    assert report.errors == []
    assert report.status == "ok"


def test_HOOK_7_a_codex_rollout_says_it_cannot_show_its_hooks_faults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """HOOK-7: a Codex rollout records no hook run, so a hook that crashed, or answered `ask`
    (Codex runs the call), leaves no trace. The report said nothing of hook faults, as if none
    had happened; it now lists HOOK-7 as not checkable, naming the command that shows them."""
    rollout = CODEX / "valid" / "parallel-calls-in-issue-order.jsonl"
    report = check(rollout)
    assert "loopspec run --harness codex" in report.not_checkable["HOOK-7"]
    assert main(["check", str(rollout)]) == 0
    listed = capsys.readouterr().out.splitlines()[0]
    assert ", HOOK-4, HOOK-5, HOOK-6, HOOK-7, LOG-1" in listed
    assert "HOOK-7" not in check(CLAUDE / "valid" / "two-calls-in-order.jsonl").not_checkable


_PLAIN_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from(["", "ls", "allow", "deny"]),
    st.dictionaries(
        st.sampled_from(["command", "x"]), st.sampled_from(["ls", 1, math.nan]), max_size=2
    ),
)
_SPECIFIC = st.dictionaries(
    st.sampled_from(
        [
            "hookEventName",
            "permissionDecision",
            "permissionDecisionReason",
            "updatedInput",
            "additionalContext",
            "updatedinput",
        ]
    ),
    st.one_of(_PLAIN_VALUES, st.sampled_from(["PreToolUse", "PostToolUse", "ask", "defer"])),
)


@pytest.mark.no_cover
@example(  # NaN passed the shortcut, and the reader calls it invalid JSON
    event="PreToolUse",
    answer={"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"x": math.nan}}},
    exit_code=0,
    stderr="",
)
@given(
    event=st.sampled_from(["PreToolUse", "PostToolUse"]),
    answer=st.one_of(
        st.fixed_dictionaries({"hookSpecificOutput": _SPECIFIC}),
        st.dictionaries(st.sampled_from(["hookSpecificOutput", "continue", "decision"]), _SPECIFIC),
    ),
    exit_code=st.sampled_from([0, 0, 2]),
    stderr=st.sampled_from(["", "", "denied"]),
)
def test_HOOK_7_an_answer_check_passes_without_the_reader_has_no_fault_and_no_note(
    event: str, answer: dict[str, Any], exit_code: int, stderr: str
) -> None:
    """HOOK-7: `check` leaves the hook reader (attrs, the model) unimported for the usual
    answers (`plainly_answered`); every answer it so passes is one the reader finds neither a
    fault nor a note in, so no fault goes unnoted."""
    record = {
        "type": "hook_success",
        "hookEvent": event,
        "toolUseID": "toolu_a",
        "stdout": json.dumps(answer),
        "stderr": stderr,
        "exitCode": exit_code,
    }
    if claude_code_hooks.plainly_answered(record, event):
        read = claude_code_hooks.read_hook_run(record)
        assert read is not None
        assert read[1] is None  # the audit summary: no fault, no note, no stderr


# ---------------------------------------------------------------------------------------------
# Dialects, valid logs, what cannot be checked.


@pytest.mark.parametrize(
    "path",
    sorted((CLAUDE / "valid").glob("*.jsonl")) + sorted((CODEX / "valid").glob("*.jsonl")),
    ids=lambda path: f"{path.parent.parent.name}/{path.stem}",
)
def test_valid_harness_logs_keep_every_rule_they_show(path: Path) -> None:
    """Valid transcripts and rollouts: no violation, no error, read as their dialect."""
    report = check(path)
    assert report.violations == []
    assert report.errors == []
    assert report.status == "ok"
    assert report.dialect == path.parent.parent.name
    assert report.events > 0


def test_HOOK_3_rules_a_dialect_cannot_show_are_not_checkable_never_passed() -> None:
    """Every rule a dialect cannot show — HOOK-3 in both: neither log records the configured hook
    order — is listed with its reason; the rest of the rules considered are the ones judged."""
    claude = check(CLAUDE / "valid" / "two-calls-in-order.jsonl")
    rollout = check(CODEX / "valid" / "parallel-calls-in-issue-order.jsonl")
    assert claude.not_checkable == claude_code.NOT_CHECKABLE
    assert rollout.not_checkable == codex.NOT_CHECKABLE
    for report in (claude, rollout):
        assert "HOOK-3" in report.not_checkable
        assert all(reason for reason in report.not_checkable.values())
        assert set(report.not_checkable) < set(RULES_CONSIDERED)
        judged = set(RULES_CONSIDERED) - set(report.not_checkable)
        assert {"RW-1", "ORD-3", "ADJ-1", "ADJ-2", "ADJ-3", "EXE-1"} <= judged
    assert "HOOK-4" not in claude.not_checkable  # the transcript records each hook's answer
    assert "RW-2" not in rollout.not_checkable  # an unrecorded rewrite shows in a rollout


def test_json_report_names_the_dialect_and_the_rules_not_checkable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--format json: `dialect` and `rules_not_checkable` (rule -> reason) per log; a dsh log
    says "dsh" with none. Violations are counted like any other."""
    rw1 = CODEX / "violations" / "RW-1.jsonl"
    dsh = FIXTURES / "valid" / "model-demo.jsonl"
    code = main(["check", "--format", "json", str(rw1), str(dsh)])
    parsed = json.loads(capsys.readouterr().out)
    assert code == 1
    rollout, dsh_log = parsed["logs"]
    assert rollout["dialect"] == "codex"
    assert rollout["rules_not_checkable"] == dict(sorted(codex.NOT_CHECKABLE.items()))
    assert rollout["header_version"] is None
    assert [v["rule"] for v in rollout["violations"]] == ["RW-1", "RW-2"]
    assert dsh_log["dialect"] == "dsh"
    assert dsh_log["rules_not_checkable"] == {}
    assert parsed["summary"]["violations_by_rule"] == {"RW-1": 1, "RW-2": 1}


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_json_report_lists_the_rules_each_log_was_judged_by(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--format json: `rules_checked` lists, per log, the rules a violation could name — on a
    dsh log every rule an invariant carries, on a transcript or rollout those its dialect can
    show — so a CI job can tell a log that kept ORD-3 from one no rule looked at for it. Before,
    a dsh log said only `"rules_not_checkable": {}`, which read as "every rule checked and
    kept", SCHED-1 and TEXT-1 included, though `check` judges neither."""
    claude = CLAUDE / "valid" / "two-calls-in-order.jsonl"
    dsh = FIXTURES / "valid" / "model-demo.jsonl"
    assert main(["check", "--format", "json", str(claude), str(dsh)]) == 0
    claude_log, dsh_log = json.loads(capsys.readouterr().out)["logs"]
    assert dsh_log["rules_checked"] == sorted(rule_ids())
    assert claude_log["rules_checked"] == sorted(
        (set(rule_ids()) - set(claude_code.NOT_CHECKABLE)) | set(claude_code.CHECKED_IN_PART)
    )
    assert {
        *("RW-1", "ORD-3", "ADJ-1", "ADJ-2", "ADJ-3", "EXE-1", "HOOK-4", "REC-1"),
        *("ABORT-1", "ABORT-2", "HOOK-6"),
    } == (set(claude_log["rules_checked"]))
    assert set(claude_log["rules_checked_in_part"]) == {"RW-1", "ABORT-1", "ABORT-2", "HOOK-6"}
    for log in (claude_log, dsh_log):
        assert not set(log["rules_checked"]) & set(log["rules_not_checkable"])
        # Rules only conform judges are in neither list (SPEC.md section 2).
        assert "SCHED-1" not in log["rules_checked"]
        assert "TEXT-1" not in log["rules_checked"]
    broken = CODEX / "violations" / "RW-1.jsonl"
    assert main(["check", "--format", "json", str(broken)]) == 1
    (rollout,) = json.loads(capsys.readouterr().out)["logs"]
    assert {v["rule"] for v in rollout["violations"]} <= set(rollout["rules_checked"])
    # SPEC.md section 2 tells a reader which rules a log is checked by: those whose Where.
    # names an invariant. That must stay the list a dsh log reports.
    spec = (Path(__file__).resolve().parents[1] / "SPEC.md").read_text(encoding="utf-8")
    named = {
        rule
        for rule, section in rule_sections(spec).items()
        if re.search(r"\*\*Where\.\*\*[^\n]*\binvariants? `", section)
    }
    assert sorted(named) == dsh_log["rules_checked"]
    # A layout these rules do not cover is checked by none of them.
    june = FIXTURES / "bad" / "june-layout.jsonl"
    assert main(["check", "--format", "json", str(june)]) == 2
    (unsupported,) = json.loads(capsys.readouterr().out)["logs"]
    assert (unsupported["status"], unsupported["rules_checked"]) == ("unsupported", [])


def test_text_report_says_what_is_not_checkable(capsys: pytest.CaptureFixture[str]) -> None:
    """Text: one line per foreign log naming the dialect and the rules it cannot show."""
    path = CLAUDE / "valid" / "two-calls-in-order.jsonl"
    code = main(["check", str(path)])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0].startswith(f"{path}: claude-code log; not checkable from such a log")
    assert "HOOK-3" in out[0]
    assert "TURN-1" in out[0]
    assert out[-1] == "checked 1 log, 10 events: 0 violations"
    broken = CLAUDE / "violations" / "ORD-3.jsonl"
    assert main(["check", str(broken)]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"{broken}:4: ORD-3: the result for call toolu_b is written before")
    assert first.endswith("[lines 4, 2]")


def test_text_report_says_once_what_a_folder_of_foreign_logs_cannot_show(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Text: a folder of transcripts says what their format cannot show once, counted, after
    every log's findings; it said the same long line after each log (21 in this folder)."""
    assert main(["check", str(CLAUDE)]) == 1
    out = capsys.readouterr().out.splitlines()
    said = [line for line in out if "not checkable" in line]
    logs = len(list(CLAUDE.rglob("*.jsonl")))
    assert said == [
        f"{logs} claude-code logs: not checkable from such logs (see --format json for why): "
        + said[0].split("(see --format json for why): ")[1]
    ]
    assert "HOOK-3" in said[0]
    # then the line on Claude Code's own divergences among them, the rules named, the summary
    assert out.index(said[0]) == len(out) - 4
    assert out[-3].startswith("known divergences of claude-code among these")
    assert out[-1].startswith(f"checked {logs} logs")


def test_a_rollout_whose_first_record_is_longer_than_the_sniffed_head_is_still_codex() -> None:
    """A Codex session_meta carries the model's whole instructions: a first line longer than
    `SNIFF_BYTES` is recognised by how it begins. Read from a plain (unbuffered) stream."""
    text = (CODEX / "violations" / "RW-1.jsonl").read_text()
    first, rest = text.split("\n", 1)
    meta = json.loads(first)
    meta["payload"]["base_instructions"] = "x" * (2 * SNIFF_BYTES)
    data = (json.dumps(meta, separators=(",", ":")) + "\n" + rest).encode()
    report = check_stream("rollout.jsonl", io.BytesIO(data))
    assert report.dialect == "codex"
    assert rules(report) == ["RW-1", "RW-2"]


@pytest.mark.parametrize(("payload", "said"), [(None, "null"), ([], "[]"), (..., "missing")])
@pytest.mark.parametrize("line", [1, 2])
def test_a_rollout_record_whose_payload_is_no_object_is_named_as_a_codex_record(
    payload: Any, said: str, line: int
) -> None:
    """A rollout record's payload that is no object (a session_meta written `"payload": null`
    by hand, say) is an error at its line saying what a rollout record needs. On the first line
    it was no rollout record at all, and check asked for a dsh session header; on a later one it
    was skipped unread."""
    records = (CODEX / "violations" / "RW-1.jsonl").read_text().splitlines()
    broken = json.loads(records[line - 1])
    del broken["payload"]
    if payload is not ...:
        broken["payload"] = payload
    records[line - 1] = json.dumps(broken)
    report = check_stream("rollout.jsonl", io.BytesIO("\n".join(records).encode() + b"\n"))
    assert report.dialect == "codex"
    (error,) = report.errors
    assert (error.line, error.kind) == (line, ErrorKind.BAD_EVENT)
    assert error.message == (
        "a codex record: a rollout record is {timestamp, type, payload}: its payload must be a "
        f"JSON object ({{}} where nothing in it is read), not {said}"
    )


def test_a_transcript_may_open_with_a_summary_or_a_file_history_snapshot() -> None:
    """Older transcripts open with records that carry no sessionId: still Claude Code."""
    body = (CLAUDE / "violations" / "ORD-3.jsonl").read_bytes()
    for first in (
        b'{"type":"summary","summary":"Reading files","leafUuid":"u6"}\n',
        b'{"type":"file-history-snapshot","messageId":"m0","snapshot":{}}\n',
    ):
        report = check_stream("old.jsonl", io.BytesIO(first + body))
        assert report.dialect == "claude-code"
        assert rules(report) == ["ORD-3"]


def test_REC_2_a_call_awaiting_its_result_at_the_end_is_a_crash_tail_notice() -> None:
    """REC-2: a transcript cut off while a call runs needs repair: a notice, not a violation."""
    lines = (CLAUDE / "violations" / "RW-1.jsonl").read_bytes().splitlines(keepends=True)
    report = check_stream("cut.jsonl", io.BytesIO(b"".join(lines[:3])))
    assert report.violations == []
    (notice,) = report.notices
    assert (notice.kind, notice.rule_id, notice.line) == (NoticeKind.CRASH_TAIL, "REC-2", 2)
    assert notice.message.startswith("call toolu_a still awaits its result at the end of the log")


@pytest.mark.parametrize("loop", ["claude-code", "codex"])
@pytest.mark.parametrize(
    ("where", "torn"),
    [
        ("last", "cut"),  # the crash's write, the file's last line
        ("middle", "cut"),  # the same after the CLI resumed and wrote on past it
        ("middle", "zeros"),  # the file's new length on disk, its data not
    ],
)
def test_LOG_8_a_write_a_crash_cut_off_is_skipped_with_a_notice(
    loop: str, where: str, torn: str
) -> None:
    """LOG-8: a crashed CLI leaves its last write cut off; resuming the session, Claude Code
    (2.1.332) and Codex (0.171.0) skip that line and write on after it, so it can stand
    anywhere in the log, and nothing it held is in the session. check gives it the torn-commit
    notice and reads on: a violation after it is still found. It was an error (torn-tail for
    the last line, invalid-json before that), exit 2, and check did not read past it."""
    lines = (FIXTURES / loop / "violations" / "ORD-3.jsonl").read_bytes().splitlines(True)
    written = (lines[1][:30] + b"\n") if torn == "cut" else bytes(60) + b"\n"
    if where == "last":
        text = b"".join(lines) + written.rstrip(b"\n")
        at = len(lines) + 1
    else:
        text = b"".join([*lines[:2], written, *lines[2:]])
        at = 3
    report = check_stream("resumed.jsonl", io.BytesIO(text))
    assert report.errors == []
    (notice,) = [n for n in report.notices if n.kind == NoticeKind.TORN_COMMIT]
    assert (notice.line, notice.rule_id) == (at, "LOG-8")
    name = {"claude-code": "Claude Code", "codex": "Codex"}[loop]
    assert notice.message.endswith(
        f"a write a crash cut off, which {name} skips when it reads the log to resume the "
        "session; check skips it too"
    )
    assert [f.violation.rule_id for f in report.violations] == ["ORD-3"]


def test_bad_input_in_a_harness_log_is_an_error_not_a_traceback() -> None:
    """Invalid JSON that no cut explains stops the log with an input error naming the line."""
    text = (CODEX / "violations" / "ORD-3.jsonl").read_bytes()
    lines = text.splitlines(keepends=True)
    broken = b"".join([*lines[:3], b'{"type": "response_item",,}\n', *lines[3:]])
    bad = check_stream("bad.jsonl", io.BytesIO(broken))
    assert [(e.kind, e.line) for e in bad.errors] == [(ErrorKind.INVALID_JSON, 4)]
    assert bad.status == "error"
    # Worded as a dsh log's line is: Python's own words said "line 1 column 26 (char 25)" of
    # the file's line 4.
    assert bad.errors[0].message == (
        "invalid JSON at column 26: Expecting property name enclosed in double quotes"
    )


@pytest.mark.parametrize("blank", [b"\n", b"   \n"], ids=["empty", "spaces"])
@pytest.mark.parametrize(
    "log",
    [CLAUDE / "violations" / "ORD-3.jsonl", CODEX / "violations" / "ORD-3.jsonl"],
    ids=["claude-code", "codex"],
)
def test_LOG_4_a_blank_line_in_a_harness_log_is_read_past_as_its_cli_does(
    log: Path, blank: bytes, tmp_path: Path
) -> None:
    """LOG-4: resuming a session, Claude Code 2.1.332 and Codex 0.171.0 skip a blank line in
    the middle of their log and read on past it (seen), unlike dsh, which refuses the log or
    drops what follows: check judges such a transcript or rollout as if the line were not
    there, where a dsh log's blank line before others is an input error."""
    lines = log.read_bytes().splitlines(keepends=True)
    spaced = tmp_path / log.name
    spaced.write_bytes(b"".join([*lines[:2], blank, *lines[2:]]))
    whole, with_blank = check(log), check(spaced)
    assert with_blank.errors == whole.errors == []
    said = [(f.violation.rule_id, f.violation.message) for f in whole.violations]
    assert [(f.violation.rule_id, f.violation.message) for f in with_blank.violations] == said
    assert [f.line for f in with_blank.violations] == [f.line + 1 for f in whole.violations]


@pytest.mark.parametrize("at_end", [False, True], ids=["mid-log", "last-line"])
def test_LOG_4_a_bad_line_in_a_harness_log_says_lines_went_unchecked_only_when_some_did(
    at_end: bool, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-4: invalid JSON stops a rollout's check there, and the text says `not checked past`
    that line only when a line follows it: on the last line it said so too, though nothing was
    left unchecked."""
    lines = (CODEX / "violations" / "ORD-3.jsonl").read_bytes().splitlines(keepends=True)
    at = len(lines) if at_end else 3
    broken = tmp_path / "bad.jsonl"
    broken.write_bytes(b"".join([*lines[:at], b'{"type": "response_item",,}\n', *lines[at:]]))
    assert main(["check", str(broken)]) == 2
    out = capsys.readouterr().out
    assert f"{broken}:{at + 1}: error invalid-json" in out
    assert (f"{broken}: not checked past line {at + 1}:" in out) is not at_end, out


# ---------------------------------------------------------------------------------------------
# Damaged logs never crash the reader.

HARNESS_SEEDS = sorted(CLAUDE.rglob("*.jsonl")) + sorted(CODEX.rglob("*.jsonl"))
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**40), max_value=2**40)
    | st.text(max_size=8)
    | st.sampled_from(["tool_use", "tool_result", "hook_success", "PreToolUse", "function_call"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


def _places(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_places(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_places(item, (*prefix, index)))
    return found


def _put(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _put(value[path[0]], path[1:], new)
    return copy


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@given(
    seed=st.sampled_from(HARNESS_SEEDS),
    line=st.integers(min_value=1, max_value=20),
    place=st.integers(min_value=0, max_value=200),
    value=JSON_VALUES,
)
def test_a_damaged_transcript_or_rollout_never_crashes_check(
    seed: Path, line: int, place: int, value: Any
) -> None:
    """Any value put anywhere in any record after the first (which says the dialect) gives a
    report — violations or errors — never an exception."""
    records = [json.loads(text) for text in seed.read_text().splitlines()]
    index = 1 + line % (len(records) - 1)
    places = _places(records[index])
    records[index] = _put(records[index], places[place % len(places)], value)
    data = "".join(json.dumps(record) + "\n" for record in records).encode()
    report = check_stream(str(seed), io.BytesIO(data))
    assert report.status in {"ok", "violations", "error"}
    assert report.dialect in {"claude-code", "codex"}


def _hand_written_logs() -> list[str]:
    """The logs of docs/check.md's section on writing a transcript or rollout by hand."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "check.md").read_text("utf-8")
    section = page.split("## A transcript or rollout by hand", 1)[1]
    return re.findall(r"```json\n(.*?)```", section, re.DOTALL)


def test_RW_1_the_transcript_and_rollout_docs_check_md_writes_by_hand_say_what_it_says(
    tmp_path: Path,
) -> None:
    """RW-1, RW-2: the two logs docs/check.md shows a user how to write by hand, to share what
    check found without their prompts, are read as a transcript and a rollout, and reported as
    the page says: RW-1 at line 4 of each, and RW-2 too for the rollout."""
    transcript, rollout = _hand_written_logs()
    found: dict[str, tuple[str, list[tuple[int, str]]]] = {}
    for name, text in (("transcript.jsonl", transcript), ("rollout.jsonl", rollout)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        report = check(tmp_path / name)
        found[name] = (report.dialect, [(v.line, v.violation.rule_id) for v in report.violations])
    assert found == {
        "transcript.jsonl": (claude_code.NAME, [(4, "RW-1")]),
        "rollout.jsonl": (codex.NAME, [(4, "RW-1"), (4, "RW-2")]),
    }


@pytest.mark.parametrize(
    ("recorded", "rule"),
    [
        (CLAUDE / "valid" / "two-calls-in-order.jsonl", ""),
        (CODEX / "valid" / "parallel-calls-in-issue-order.jsonl", ""),
        (FIXTURES.parent / "acp" / "rewritten-call-approved.jsonl", " ACP-1"),
    ],
    ids=["transcript", "rollout", "acp-recording"],
)
def test_a_byte_that_is_not_utf8_is_shown_in_a_transcript_a_rollout_and_a_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], recorded: Path, rule: str
) -> None:
    """A path written in Latin-1 into a transcript, a rollout or an ACP recording read only
    'not UTF-8 at byte N of the line', where a dsh log's reader shows the byte too (0xf6): the
    value tells Latin-1 text from a torn multi-byte character."""
    lines = recorded.read_bytes().split(b"\n")
    at = lines[1].index(b'"', 5) + 1
    lines[1] = lines[1][:at] + b"\xf6" + lines[1][at:]
    copy = tmp_path / recorded.name
    copy.write_bytes(b"\n".join(lines))
    assert main(["check", str(copy)]) == 2
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        f"{copy}:2: error invalid-utf8{rule}: not UTF-8 at byte {at + 1} of the line (0xf6)"
    )


def test_an_everyday_session_of_many_features_keeps_every_rule() -> None:
    """What a user's own sessions hold beside a mock model's Bash calls, each shape as Claude
    Code 2.1.332 wrote it offline (2026-12-05): hooks of other events and their context and
    system-message attachments, an image with the `isMeta` record naming its file, API errors
    retried (`system` records) and one that failed for good (`isApiErrorMessage`), thinking,
    a disabled TodoWrite, an MCP tool, a background Task and its `<task-notification>`, a
    message queued while a tool ran (`queued_command`), a refusal, a Stop hook's feedback
    (`isMeta`) that resumes the turn, `/compact`'s boundary and summary, WebFetch offline. None
    breaks a rule or is a hook fault; the MCP call is read like any (its result written before
    the Bash call's, which the model called first, is ORD-3)."""
    path = CLAUDE / "valid" / "an-everyday-session.jsonl"
    report = check(path)
    assert (report.status, rules(report), report.notices, report.errors) == ("ok", [], [], [])
    lines = path.read_text().splitlines(keepends=True)
    (mcp_result,) = [i for i, line in enumerate(lines) if '"tool_use_id":"toolu_add"' in line]
    (bash_hook,) = [i for i, line in enumerate(lines) if '"uuid":"a4"' in line]
    swapped = [
        *lines[:bash_hook],
        lines[mcp_result],
        *lines[bash_hook:mcp_result],
        *lines[mcp_result + 1 :],
    ]
    out_of_order = check_stream("swapped.jsonl", io.BytesIO("".join(swapped).encode()))
    assert rules(out_of_order) == ["ORD-3"]


def test_SAFE_4_a_transcript_line_past_the_bound_names_the_option_that_reads_it() -> None:
    """A prompt holding pasted images, or a PDF the Read tool returned whole, is one transcript
    line of their base64: a valid transcript can pass the line bound. The error said only that
    the line was too long, and the next line "fix that line", which a user cannot do to what
    Claude Code wrote; it now names --max-line-bytes, with which the same transcript reads."""
    text = (CLAUDE / "valid" / "an-everyday-session.jsonl").read_text()
    pasted = text.replace('"data":"iVBORw0KGgo="', '"data":"' + "A" * 3000 + '"')
    assert pasted != text
    bounded = check_stream("t.jsonl", io.BytesIO(pasted.encode()), Limits(max_line_bytes=2048))
    (error,) = bounded.errors
    assert (error.kind, error.line) == (ErrorKind.LINE_TOO_LONG, 4)
    assert error.message == (
        "the line is longer than 2048 bytes: check again with a larger --max-line-bytes to read it"
    )
    assert check_stream("t.jsonl", io.BytesIO(pasted.encode())).status == "ok"


def test_SAFE_4_a_line_past_the_bound_is_not_called_a_line_to_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The line after the error said "fix that line and check again"; it now points at the
    error's own remedy."""
    text = (CLAUDE / "valid" / "an-everyday-session.jsonl").read_text()
    path = tmp_path / "t.jsonl"
    path.write_text(text.replace('"data":"iVBORw0KGgo="', '"data":"' + "A" * 3000 + '"'))
    assert main(["check", "--max-line-bytes", "2048", str(path)]) == 2
    out = capsys.readouterr().out
    stop = f"{path}: not checked past line 4: check again with a larger --max-line-bytes to "
    assert stop + "judge the rest" in out
    assert "fix that line" not in out
