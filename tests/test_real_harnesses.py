"""The real Claude Code 2.1.332 and Codex 0.171.0 loops, driven offline by `loopspec run --harness`.

Each test plays one scripted scenario from examples/claude-code-adapter/scenarios/ on the real
binary (a mock model on 127.0.0.1, a temporary HOME, real hook processes, real shell commands)
and reads the report; the transcript or rollout it wrote is then held to the rules by
`loopspec check`. The binaries come from `npm ci` in examples/claude-code-adapter/ and
examples/codex-adapter/ (run here when node_modules is missing). When they cannot be installed
the tests fail with the reason: they are never skipped silently.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from harness_reports import reports_dir, save_report
from node_requirements import Need, install_problem

from loopspec.properties.cli.main import main
from loopspec.properties.harnesses.report import NOT_REPORTED_RUN
from loopspec.properties.harnesses.script import Harness

# Every test here plays on the real CLI its `harness` fixture names.
pytestmark = pytest.mark.needs(Need.ITS_HARNESS)

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples" / "claude-code-adapter" / "scenarios"


@pytest.fixture(scope="module", params=[h.value for h in Harness])
def harness(request: pytest.FixtureRequest) -> str:
    """Each real harness, installed; a failure (never a skip) when it cannot be."""
    name = str(request.param)
    problem = install_problem(Harness(name))
    if problem is not None:
        pytest.fail(problem)
    return name


def play(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    harness: str,
    scenario: str,
    hooks: str,
) -> tuple[int, list[str], Path]:
    """Run `loopspec run --harness`; exit code, report lines and the copied log."""
    log = tmp_path / f"{harness}-{scenario}-{hooks}.jsonl"
    code = main(
        [
            "run",
            str(SCENARIOS / f"{scenario}.json"),
            "--harness",
            harness,
            "--hooks",
            str(SCENARIOS / f"{hooks}.json"),
            "--log",
            str(log),
        ]
    )
    out = capsys.readouterr().out
    if reports_dir() is not None:  # before the print below, which check_text would capture
        name = f"{harness}-{scenario}-{hooks}"
        save_report(f"{name}.run.txt", out)
        save_report(f"{name}.check.txt", check_text(capsys, log))
    print(out, file=sys.stderr)  # the report, for whoever reads the test output
    return code, out.splitlines(), log


def check_text(capsys: pytest.CaptureFixture[str], log: Path) -> str:
    """`loopspec check`'s text report of a log, less its lines on records it cannot check."""
    main(["check", str(log)])
    captured = capsys.readouterr()
    lines = (captured.out + captured.err).splitlines(keepends=True)
    return "".join(line for line in lines if "not checkable" not in line)


def divergences(lines: list[str]) -> list[str]:
    """The rule IDs of the report's divergence lines."""
    start = next(i for i, line in enumerate(lines) if line.startswith("== divergences"))
    return [line.split("]")[0].strip(" [") for line in lines[start + 1 :] if "] " in line]


def check_rules(capsys: pytest.CaptureFixture[str], log: Path) -> list[str]:
    """The rules `loopspec check` finds broken in a log."""
    main(["check", "--format", "json", str(log)])
    parsed = json.loads(capsys.readouterr().out)
    return [v["rule"] for v in parsed["logs"][0]["violations"]]


def test_RW_1_a_rewriting_hook_changes_what_runs_but_not_history_or_log(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """RW-1 in the real loop: the hook's `updatedInput` runs (`echo rewritten`), while the next
    request's history and the transcript/rollout keep `echo original`; `check` finds RW-1 in
    the log it wrote (and RW-2 in a Codex rollout, which records no hook). The run stayed
    offline: only the mock was contacted."""
    code, lines, log = play(capsys, tmp_path, harness, "one-call", "rewrite")
    assert code == 1
    # The report compares RW-1 twice; Codex's rollout adds check's RW-2 (no hook recorded).
    assert divergences(lines) == ["RW-1", "RW-1"] + (
        ["RW-2"] if harness == Harness.CODEX.value else []
    )
    assert all(x.endswith("(known bug)") for x in lines if x.startswith("  [RW-"))
    assert any("ran echo rewritten but the next request's history holds" in x for x in lines)
    # Some connects were seen (the CLI reached the mock): a tracer that saw none says "all 0".
    assert any(re.match(r"offline: all [1-9]\d* connects went to the mock", x) for x in lines)
    in_log = check_rules(capsys, log)
    assert "RW-1" in in_log
    if harness == Harness.CODEX.value:
        assert "RW-2" in in_log  # the rollout names no hook for the input that ran


def test_RW_1_a_resumed_session_still_holds_the_models_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """RW-1 across a resume: the second turn resumes the session (`claude -p --continue`,
    `codex exec resume --last`); its request still carries the first turn's call with the
    model's input although the rewrite ran, and every call has its result (no ADJ-3)."""
    code, lines, log = play(capsys, tmp_path, harness, "two-turns", "rewrite")
    assert code == 1
    assert lines[0].endswith("2 turn(s)")
    assert divergences(lines) == ["RW-1"] * 4 + (
        ["RW-2"] * 2 if harness == Harness.CODEX.value else []
    )
    assert any("toolu_one: ran echo rewritten but the next request's history" in x for x in lines)
    assert check_rules(capsys, log).count("RW-1") == 2


def test_RW_1_claude_codes_file_tools_run_a_hooks_write_and_edit_the_history_keeps_the_models(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """RW-1 with Claude Code's Read, Write and Edit: a hook's Write content and Edit text run
    (the Read after them shows `two line`, `added by the hook`), while the next request and the
    transcript keep the model's; `check` finds both from what the transcript's results record
    the tools did, and not the Read the hook handed back as it saw it (its path made absolute:
    it read as RW-1), and `check --known claude-code` passes the log. Codex offers a mock
    model no file tool: the scenario is refused at its call, nothing run."""
    if harness == Harness.CODEX.value:
        code = main(["run", str(SCENARIOS / "file-tools.json"), "--harness", harness])
        assert code == 2
        assert "file-tools.json:13: $.turns[0].replies[0].blocks[1].name is" in (
            capsys.readouterr().err
        )
        return
    code, lines, log = play(capsys, tmp_path, harness, "file-tools", "rewrite-file-tools")
    assert code == 1
    assert divergences(lines) == ["RW-1"] * 4
    assert all(x.endswith("(known bug)") for x in lines if x.startswith("  [RW-"))
    assert any(x.startswith('  [RW-1] toolu_edit: ran {"new_string": "two"} but') for x in lines)
    assert any("2\ttwo line\\n3\tadded by the hook" in x for x in lines if "toolu_read:" in x)
    assert check_rules(capsys, log) == ["RW-1", "RW-1"]
    assert main(["check", "--known", "claude-code", str(log)]) == 0


def test_HOOK_3_two_rewriting_hooks_the_last_to_finish_wins(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """HOOK-3 in the real loop: the first configured hook answers 3 s late and its rewrite
    runs; the model says the last hook in configured order wins."""
    code, lines, log = play(capsys, tmp_path, harness, "one-call", "two-rewrites")
    assert code == 1
    assert "HOOK-3" in divergences(lines)
    hook_3 = next(x for x in lines if x.startswith("  [HOOK-3]"))
    assert "ran echo from-the-first-hook" in hook_3
    assert "which finished last" in hook_3
    assert "RW-1" in check_rules(capsys, log)


def test_HOOK_3_a_passthrough_finishing_last_keeps_the_rewrite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """HOOK-3's passthrough clause holds in both loops: a hook that answers nothing, 3 s after a
    rewriting hook, does not erase the rewrite (which still breaks RW-1)."""
    code, lines, _ = play(capsys, tmp_path, harness, "one-call", "rewrite-then-passthrough")
    assert code == 1
    assert divergences(lines) == ["RW-1", "RW-1"] + (
        ["RW-2"] if harness == Harness.CODEX.value else []
    )
    ran = next(x for x in lines if x.startswith("    ran         : "))
    assert "echo rewritten" in ran


def test_ORD_3_parallel_results_claude_code_completion_order_codex_issue_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """ORD-3: two read-only calls, the first slower. Claude Code sends their results back in
    completion order (ORD-3 broken, in the request and in the transcript); Codex in issue order
    (ORD-3 kept)."""
    code, lines, log = play(capsys, tmp_path, harness, "two-calls", "no-hooks")
    found_in_log = check_rules(capsys, log)
    if harness == Harness.CLAUDE_CODE.value:
        assert code == 1
        assert divergences(lines) == ["ORD-3"]
        assert found_in_log == ["ORD-3"]
    else:
        assert code == 0
        assert divergences(lines) == []
        assert found_in_log == []


def test_DEC_1_a_denied_call_never_runs_and_its_result_says_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """DEC-1 holds in both loops: a PreToolUse deny keeps the command from running (no
    PostToolUse observer fires), and the next request carries an error result with the hook's
    reason (ADJ-3 holds too)."""
    code, lines, log = play(capsys, tmp_path, harness, "one-call", "deny")
    assert code == 0
    assert divergences(lines) == []
    assert f"    ran         : {NOT_REPORTED_RUN}" in lines
    assert any(x.startswith("  toolu_print: ") and "blocked by policy" in x for x in lines)
    assert check_rules(capsys, log) == []


def test_DEC_1_a_deny_that_also_supplies_an_input_is_ignored_by_codex(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """DEC-1: a PreToolUse deny with a reason that also carries an `updatedInput`. Claude Code
    denies the call; Codex 0.171.0 ignores the answer and runs the model's command, as it does a
    deny without a reason (SPEC.md section 11). Neither log shows it to `check`: a denied
    call's rewrite is discarded, and a rollout records no hook."""
    code, lines, log = play(capsys, tmp_path, harness, "one-call", "deny-with-a-rewrite")
    assert check_rules(capsys, log) == []
    if harness == Harness.CLAUDE_CODE.value:
        assert code == 0
        assert divergences(lines) == []
        assert f"    ran         : {NOT_REPORTED_RUN}" in lines
    else:
        assert code == 1
        assert divergences(lines) == ["DEC-1"]
        assert '    ran         : {"command": "echo original"}' in lines


def test_HOOK_7_a_hook_that_crashed_or_printed_broken_json_is_no_decision_the_call_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """HOOK-7 holds in both loops: a PreToolUse hook that exits 1, and a deny hook whose JSON
    is cut off, decide nothing; the model's command runs. `run` notes both hooks after its
    audit; `check` notes both in the Claude Code transcript (which keeps their records) and says
    a Codex rollout cannot show them (it records no hook run)."""
    code, lines, log = play(capsys, tmp_path, harness, "one-call", "faulty-hooks")
    assert code == 0
    assert divergences(lines) == []
    ran = next(line for line in lines if line.startswith("    ran         : "))
    assert "echo original" in ran
    # Both CLIs run a call's hooks at once: a note comes where its hook first failed, in
    # whichever order the two finished.
    noted = [line for line in lines if line.startswith("  HOOK-7: hook ")]
    assert sorted(line.split(" failed ")[0] for line in noted) == [
        f"  HOOK-7: hook {harness}:PreToolUse:1",
        f"  HOOK-7: hook {harness}:PreToolUse:2",
    ]
    main(["check", "--format", "json", str(log)])
    checked = json.loads(capsys.readouterr().out)["logs"][0]
    assert checked["violations"] == []
    if harness == "claude-code":
        notices = [(n["kind"], n["rule"]) for n in checked["notices"]]
        assert notices == [("hook-fault", "HOOK-7"), ("hook-fault", "HOOK-7")]
        said = sorted(checked["notices"], key=lambda n: "invalid-json: " in n["message"])
        assert "crash: exit code 1 (stderr: audit db is locked)" in said[0]["message"]
        assert "invalid-json: " in said[1]["message"]
    else:
        assert checked["notices"] == []
        assert "HOOK-7" in checked["rules_not_checkable"]


def test_DEC_1_a_json_deny_after_exit_2_gives_claude_code_its_reason_and_codex_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """A hook that prints a JSON deny and exits 2 with another reason on stderr: both loops deny
    the call, Claude Code 2.1.332 telling the model the JSON's reason (its documentation says
    stdout goes unread after exit 2) and Codex stderr's. The hook line's note said the JSON was
    not read in both."""
    code, lines, log = play(capsys, tmp_path, harness, "one-call", "deny-exit-2")
    assert code == 0
    assert divergences(lines) == []
    assert f"    ran         : {NOT_REPORTED_RUN}" in lines
    [result] = [x for x in lines if x.startswith("  toolu_print: ")]
    [hook] = [x for x in lines if x.startswith(f"  {harness}:PreToolUse:1 ")]
    if harness == Harness.CLAUDE_CODE.value:
        assert "denied in JSON" in result
        assert "denied on stderr" not in result
        assert "; block (note: exit 2 with a JSON deny, whose reason the model is told" in hook
    else:
        assert "denied on stderr" in result
        assert "denied in JSON" not in result
        assert "(Codex reads only stderr after exit 2), the reason is stderr" in hook
    assert check_rules(capsys, log) == []


def test_ADJ_1_a_post_tool_use_context_lands_between_call_and_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """ADJ-1: a PostToolUse hook answers `additionalContext`. Codex writes it as a developer
    message before the call's output, in the rollout and in the next request's history, so
    something model-visible sits between a call and its result (`check`: ADJ-1 at that
    message). Claude Code puts it beside the result (an attachment folded into the result's
    message): ADJ-1 holds. `run`'s verdict agrees with `check`: it finds the developer message
    in the next request and exits 1 (it said 0 divergences beside the check line)."""
    code, lines, log = play(capsys, tmp_path, harness, "one-call", "post-context")
    if harness == Harness.CLAUDE_CODE.value:
        assert code == 0
        assert divergences(lines) == []
        assert check_rules(capsys, log) == []
    else:
        assert code == 1
        assert divergences(lines) == ["ADJ-1"]
        assert "== divergences from the model: 1 ==" in lines
        assert any(
            x.startswith("  [ADJ-1] toolu_print: the next request carries a developer")
            and x.endswith("(known bug)")
            for x in lines
        )
        assert check_rules(capsys, log) == ["ADJ-1"]
        assert any("ADJ-1: a developer message lands while call toolu_print" in x for x in lines)


def test_REC_1_a_crash_mid_call_then_resume(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """REC-1: the harness is killed (SIGKILL) while a call runs, then the session is resumed.
    Both give the model a synthetic result for the call (Claude Code: the outcome is unknown;
    Codex: "aborted"). Claude Code also adds an assistant message the model never wrote ("No
    response requested."), which `check` finds in the transcript right after the repair result
    (REC-1); Codex never writes its repair to the rollout, which keeps the call
    unanswered when the next turn starts (`check`: REC-1, where that turn starts; the user
    message and the reply that follow are not blamed on ADJ-1 and ADJ-3 as well)."""
    code, lines, log = play(capsys, tmp_path, harness, "crash-resume", "no-hooks")
    assert "turn 1 crashed (SIGKILL), the next resumed it" in lines[0]
    assert code == 1
    # The resumed turn gets its scripted reply: the invented message is no reply of the mock's.
    assert "Resumed." in log.read_text()
    result = next(x for x in lines if x.startswith("  toolu_long: "))
    in_log = check_rules(capsys, log)
    if harness == Harness.CLAUDE_CODE.value:
        assert "outcome is" in result
        assert divergences(lines) == ["REC-1"]
        assert any("never wrote: No response requested." in x for x in lines)
        # The transcript shows it too: the repair result, then the <synthetic> message.
        assert in_log == ["REC-1"]
    else:
        assert result == "  toolu_long: aborted"
        assert divergences(lines) == ["REC-1"]
        assert any("a result the log never recorded" in x for x in lines)
        assert in_log == ["REC-1"]


def test_ABORT_1_an_interrupt_mid_call_then_resume(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, harness: str
) -> None:
    """ABORT-1: the user interrupts (SIGINT) while a call runs, then resumes. Codex ends the
    running call "aborted by user" and writes it to the rollout (holds). Claude Code tells the
    model the user rejected the call although it was running, and adds an assistant message the
    model never wrote ("No response requested."), which `check` finds in its transcript too."""
    code, lines, log = play(capsys, tmp_path, harness, "abort-resume", "no-hooks")
    assert "turn 1 aborted (SIGINT), the next resumed it" in lines[0]
    assert "Resumed." in log.read_text()
    result = next(x for x in lines if x.startswith("  toolu_long: "))
    in_log = check_rules(capsys, log)
    if harness == Harness.CLAUDE_CODE.value:
        assert in_log == ["ABORT-1"]
        assert code == 1
        assert "doesn't want to proceed" in result
        assert divergences(lines) == ["ABORT-1"]
        assert any("never wrote: No response requested." in x for x in lines)
    else:
        assert in_log == []
        assert code == 0
        assert "aborted by user" in result
        assert divergences(lines) == []
