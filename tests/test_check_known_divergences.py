"""`loopspec check --known` and `--fail-on-hook-faults`: a CI step tells a real CLI's known
divergences from a new problem, and may fail on a hook's fault (HOOK-7).

Both CLIs break RW-1 on every rewrite, so without `--known` check exits 1 on every such log.
The fixtures are the hand-written transcripts and rollouts under tests/fixtures/logs/."""

from __future__ import annotations

import ast
import importlib
import io
import json
from pathlib import Path
from types import ModuleType

import jsonschema
import pytest

from loopspec.model import invariants
from loopspec.model.invariants import rule_ids
from loopspec.properties.cli.main import main
from loopspec.properties.harnesses.profiles import KNOWN
from loopspec.properties.harnesses.script import Harness
from loopspec.properties.logcheck import check_document, claude_code, codex, commit_units
from loopspec.properties.logcheck.checker import check_stream
from loopspec.properties.logcheck.harness_logs import FACETS, check_foreign
from loopspec.properties.logcheck.known_divergences import (
    IN_PART_RULES,
    KNOWN_RULES,
    KNOWN_SHAPES,
    LOOPS,
    RACY_RULES,
    checkable_rules,
)
from loopspec.properties.logcheck.report_schema import check_schema
from loopspec.properties.profiles.dsh import PROFILE as DSH_PROFILE

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
CC_RW_1 = str(LOGS / "claude-code" / "violations" / "RW-1.jsonl")
CC_ORD_3 = str(LOGS / "claude-code" / "violations" / "ORD-3.jsonl")
CC_HOOK_4 = str(LOGS / "claude-code" / "violations" / "HOOK-4.jsonl")
CC_HOOK_FAULTS = str(
    LOGS / "claude-code" / "valid" / "hook-faults-a-crash-broken-json-a-timeout.jsonl"
)
CODEX_RW_1 = str(LOGS / "codex" / "violations" / "RW-1.jsonl")  # RW-1 and RW-2
HARNESS_LOOPS = tuple(harness.value for harness in Harness)
"""The loops `run --harness` drives, whose lists are `properties.harnesses.profiles.KNOWN`'s."""


def check(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    status = main(["check", *arguments])
    out, err = capsys.readouterr()
    return status, out, err


def known_in_one_shape_only(
    capsys: pytest.CaptureFixture[str], loop: str, logs: tuple[str, str], why: str
) -> str:
    """`check --known LOOP` passes the first of `logs`, of the loop's known shape, and fails
    the second, of another shape of the same rule, with `why` among its lines: its report."""
    its_shape, another_shape = logs
    status, out, _ = check(capsys, "--known", loop, its_shape)
    assert status == 0, out
    status, out, _ = check(capsys, "--known", loop, another_shape)
    assert status == 1, out
    assert why + "\n" in out
    return out


def test_RW_1_ORD_3_known_claude_code_sets_its_known_divergences_aside(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """RW-1, ORD-3: Claude Code's known divergences, listed as known, leave the exit code 0;
    without --known, the report says which of its violations they are, and what sets them
    aside (a user seeing RW-1 in a transcript of theirs was left to find out it is the CLI's);
    `--format json` says it in its summary's known_divergence_hints, which it left out."""
    status, out, _ = check(capsys, CC_RW_1, CC_ORD_3)
    assert status == 1
    assert (
        "known divergences of claude-code among these (ORD-3: 1, RW-1: 1): its own logs break "
        "these rules in this shape; --known claude-code sets them aside\n"
    ) in out
    status, out, _ = check(capsys, "--format", "json", CC_RW_1, CC_ORD_3)
    hints = {"claude-code": {"ORD-3": 1, "RW-1": 1}}
    assert json.loads(out)["summary"]["known_divergence_hints"] == hints
    status, out, _ = check(capsys, "--known", "claude-code", "--format", "json", CC_RW_1, CC_ORD_3)
    assert "known_divergence_hints" not in json.loads(out)["summary"]
    status, out, _ = check(capsys, "--known", "claude-code", CC_RW_1, CC_ORD_3)
    assert "known divergences of claude-code among these" not in out
    assert status == 0, out
    assert f"{CC_RW_1}:4: known divergence of claude-code: RW-1: " in out
    assert ": known divergence of claude-code: ORD-3: " in out
    assert out.endswith(
        "checked 2 logs, 11 events: 0 violations; 2 known divergences (ORD-3: 1, RW-1: 1)\n"
    )


def test_RW_1_RW_2_a_loops_known_divergences_apply_to_its_own_logs_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """RW-1, RW-2: Claude Code's list does not excuse a Codex rollout; Codex's does."""
    status, out, _ = check(capsys, "--known", "claude-code", CODEX_RW_1)
    assert status == 1, out
    assert "2 violations (RW-1: 1, RW-2: 1)" in out
    status, out, _ = check(capsys, "--known", "claude-code,codex", CODEX_RW_1)
    assert status == 0, out
    assert "0 violations; 2 known divergences (RW-1: 1, RW-2: 1)" in out


def test_HOOK_4_a_violation_no_list_names_still_fails_the_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """HOOK-4 is no known divergence of Claude Code: with its list named, still exit 1."""
    assert "HOOK-4" not in KNOWN[Harness.CLAUDE_CODE]
    status, out, _ = check(capsys, "--known", "claude-code", CC_HOOK_4, CC_RW_1)
    assert status == 1, out
    assert "1 violation (HOOK-4: 1); 1 known divergence (RW-1: 1)" in out
    assert ": HOOK-4: " in out


def test_RW_1_RW_2_a_rule_id_is_known_in_every_log(capsys: pytest.CaptureFixture[str]) -> None:
    """RW-1 named alone leaves the rollout's RW-2 failing; RW-1 and RW-2 named (repeated or
    comma-separated, any case) leave none."""
    status, out, _ = check(capsys, "--known", "RW-1", CODEX_RW_1, CC_RW_1)
    assert status == 1, out
    assert "1 violation (RW-2: 1); 2 known divergences (RW-1: 2)" in out
    assert ": known divergence named by --known: RW-1: " in out
    for spelt in (["--known", "RW-1,rw-2"], ["--known", "RW-2", "--known", "RW-1"]):
        status, out, _ = check(capsys, *spelt, CODEX_RW_1)
        assert status == 0, out


def test_RW_1_RW_2_json_lists_known_divergences_apart(capsys: pytest.CaptureFixture[str]) -> None:
    """RW-1, RW-2 in JSON: the known ones apart, each with whose list named it; a log with only
    known ones has its own status; without --known the output has none of these keys."""
    status, out, _ = check(capsys, "--format", "json", "--known", "codex", CODEX_RW_1)
    assert status == 0
    document = json.loads(out)
    (log,) = document["logs"]
    assert log["status"] == "known-divergences"
    assert log["violations"] == []
    assert [(k["rule"], k["known_by"]) for k in log["known_divergences"]] == [
        ("RW-1", "codex"),
        ("RW-2", "codex"),
    ]
    assert log["known_rules"] == dict.fromkeys(sorted(KNOWN[Harness.CODEX]), "codex")
    summary = document["summary"]
    assert (summary["violations"], summary["exit_code"]) == (0, 0)
    assert summary["known_divergences_by_rule"] == {"RW-1": 1, "RW-2": 1}
    assert summary["logs_by_status"] == {"known-divergences": 1}
    status, out, _ = check(capsys, "--format", "json", CODEX_RW_1)
    assert status == 1
    plain = json.loads(out)
    assert "known_divergences" not in plain["logs"][0]
    assert "known_divergences" not in plain["summary"]


def test_RW_1_RW_2_unlisted_known_and_unknown_violations_are_counted_apart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """RW-1, RW-2 past --max-violations: what is left unlisted is counted on the right side."""
    status, out, _ = check(capsys, "--max-violations", "1", "--known", "RW-2", CODEX_RW_1)
    assert status == 1
    assert f"{CODEX_RW_1}: 1 more known divergences not listed" in out
    assert "more violations not listed" not in out
    status, out, _ = check(
        capsys, "--format", "json", "--max-violations", "1", "--known", "RW-1", CODEX_RW_1
    )
    (log,) = json.loads(out)["logs"]
    assert (log["violations"], log["violations_omitted"]) == ([], 1)
    assert [k["rule"] for k in log["known_divergences"]] == ["RW-1"]
    assert log["known_divergences_omitted"] == 0


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("RW-9", "--known RW-9: 'RW-9'"),
        ("SCHED-1", "--known SCHED-1: 'SCHED-1'"),
        ("claude", "--known claude: 'claude'"),
        ("RW-1,", "--known 'RW-1,': an empty name (a comma too many?)"),
        ("", "--known '': an empty name"),
    ],
)
def test_RW_1_a_known_value_check_cannot_read_is_one_line_exit_2(
    value: str, named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Neither a loop nor a rule check reports (SCHED-1 is conform's): one line, exit 2, and no
    log is read. An empty name is called that, where it read "--known : '' names neither"."""
    status, out, err = check(capsys, "--known", value, CC_RW_1)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith(f"loopspec: error: {named} names neither a loop")
    assert "RW-1" in err
    assert ("did you mean claude-code?" in err) == (value == "claude")


def test_HOOK_7_fail_on_hook_faults_makes_a_hook_fault_fail_the_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """HOOK-7: a hook fault is a notice (exit 0); --fail-on-hook-faults makes it exit 1 and
    says why, in text and JSON."""
    status, out, _ = check(capsys, CC_HOOK_FAULTS)
    assert status == 0, out
    status, out, _ = check(capsys, "--fail-on-hook-faults", CC_HOOK_FAULTS)
    assert status == 1, out
    assert out.endswith("3 notices (hook-fault: 3; hook faults fail the run)\n")
    status, out, _ = check(capsys, "--fail-on-hook-faults", CC_RW_1, "--format", "json")
    assert status == 1  # RW-1; no hook fault: the summary says nothing of one
    assert "hook faults fail" not in out
    status, out, _ = check(
        capsys,
        "--format",
        "json",
        "--fail-on-hook-faults",
        "--known",
        "claude-code",
        CC_HOOK_FAULTS,
    )
    assert status == 1
    summary = json.loads(out)["summary"]
    assert (summary["exit_code"], summary["hook_faults_fail"]) == (1, True)


def test_RW_1_every_rule_a_loop_is_known_to_break_that_check_reports_is_one_check_accepts() -> None:
    """RW-1 and the rest: the rules --known accepts by ID cover what check can report."""
    checkable = set(checkable_rules())
    assert {"RW-1", "RW-2", "ORD-3", "LOG-8"} <= checkable
    assert "SCHED-1" not in checkable


def test_RW_1_known_names_every_loop_whose_known_divergences_are_listed() -> None:
    """RW-1: `--known` names a loop by the LOOPS tuple, kept apart from the Harness enum so
    check starts without enum or attrs; both must name the loops KNOWN lists, or a loop's list
    could never be asked for (or a name would have no list)."""
    assert set(LOOPS) == {*HARNESS_LOOPS, "dsh"}
    assert set(HARNESS_LOOPS) == {h.value for h in KNOWN}
    # --format json's schema names them so too, without importing this module's lists.
    assert check_document.KNOWN_BY["enum"] == [*LOOPS, "--known"]


@pytest.mark.parametrize("loop", HARNESS_LOOPS)
def test_RW_1_a_loops_known_rules_are_those_its_harness_profile_lists(loop: str) -> None:
    """RW-1 and the rest: KNOWN_RULES, which check reads without attrs, is KNOWN's rule list
    for each loop, in its order (an entry added to KNOWN alone was never set aside)."""
    assert KNOWN_RULES[loop] == tuple(KNOWN[Harness(loop)])


@pytest.mark.parametrize("loop", HARNESS_LOOPS)
def test_ORD_3_a_loops_racy_rules_are_those_its_harness_profile_marks_racy(loop: str) -> None:
    """ORD-3: RACY_RULES, read by check without attrs, names the entries of KNOWN marked racy
    (Claude Code's ORD-3, shown only where a later call's result is ready first)."""
    racy = [rule for rule, known in KNOWN[Harness(loop)].items() if known.racy]
    assert list(RACY_RULES[loop]) == racy
    assert ("ORD-3" in racy) == (loop == "claude-code")


CC_IN_ORDER = str(LOGS / "claude-code" / "valid" / "two-calls-in-order.jsonl")
CODEX_CONTEXT_AFTER = str(LOGS / "codex" / "valid" / "post-hook-context-after-the-output.jsonl")
CODEX_CONTEXT_BETWEEN = str(
    LOGS / "codex" / "violations" / "ADJ-1-a-marked-post-hook-context.jsonl"
)
ORD_3_UNSEEN = (
    "known divergence of claude-code did not occur (racy): ORD-3 (a reply's several calls were "
    "all answered once in 1 of 2 logs, never breaking it: it shows only where a later call's "
    "result is ready before an earlier one's, a race no log lost)"
)


def test_ORD_3_known_says_a_divergence_whose_situation_came_up_did_not_occur(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ORD-3: a transcript whose two calls were answered in call order held ORD-3's situation
    and did not show it: one line says so (nothing did), the exit code stays 0; where ORD-3
    occurred, no such line; ABORT-1, ABORT-2, EXE-1 and REC-1, whose situation a transcript
    shows only where they break, are only ever not exercised."""
    status, out, _ = check(capsys, "--known", "claude-code", CC_IN_ORDER, CC_RW_1)
    assert status == 0, out
    assert ORD_3_UNSEEN + "\n" in out
    assert (
        "known divergences of claude-code not exercised: ABORT-1, ABORT-2, EXE-1, HOOK-6, REC-1 "
        "(no situation " in out
    )
    status, out, _ = check(capsys, "--known", "claude-code", CC_IN_ORDER, CC_ORD_3)
    assert status == 0, out
    assert "did not occur" not in out


def test_ORD_3_ADJ_1_a_divergence_whose_situation_never_came_up_is_not_exercised(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ORD-3 on a transcript of one call per reply, ADJ-1 on a rollout without a hook's
    context: not exercised, never "did not occur"; a loop named with none of its logs says
    so in one line."""
    status, out, _ = check(capsys, "--known", "claude-code,codex", CC_RW_1, CODEX_RW_1)
    assert status == 0, out
    assert "did not occur" not in out
    assert (
        "known divergences of claude-code not exercised: ABORT-1, ABORT-2, EXE-1, HOOK-6, ORD-3, "
        "REC-1 (" in out
    )
    assert "known divergences of codex not exercised: ADJ-1, EXE-1, REC-1 (" in out
    status, out, _ = check(capsys, "--known", "codex", CC_RW_1)
    assert "known divergences of codex not exercised: no codex log\n" in out


def test_ADJ_1_a_codex_hook_context_written_after_the_output_did_not_occur(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ADJ-1: Codex marks a PostToolUse hook's context; written after the call's output it
    keeps ADJ-1 (did not occur), between the call and its output it breaks it (known)."""
    status, out, _ = check(capsys, "--known", "codex", CODEX_CONTEXT_AFTER)
    assert status == 0, out
    assert "known divergence of codex did not occur: ADJ-1 (a PostToolUse hook's " in out
    status, out, _ = check(capsys, "--known", "codex", CODEX_CONTEXT_BETWEEN)
    assert status == 0, out
    assert "known divergence of codex: ADJ-1: " in out
    assert "did not occur" not in out


def test_ADJ_1_strict_known_fails_the_run_on_a_divergence_that_did_not_occur(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ADJ-1 under --strict-known: exit 1 when Codex's context did not land between a call and
    its output though one was written, 0 when it did or none was written; the JSON summary
    says which, per loop."""
    status, out, _ = check(capsys, "--known", "codex", "--strict-known", CODEX_CONTEXT_AFTER)
    assert status == 1, out
    assert "an upgrade may have fixed it; --strict-known: fails the run)\n" in out
    for logs in ([CODEX_CONTEXT_AFTER, CODEX_CONTEXT_BETWEEN], [CODEX_RW_1]):
        status, out, _ = check(capsys, "--known", "codex", "--strict-known", *logs)
        assert status == 0, out
    status, out, _ = check(
        capsys, "--format", "json", "--known", "codex", "--strict-known", CODEX_CONTEXT_AFTER
    )
    assert status == 1
    summary = json.loads(out)["summary"]
    assert (summary["exit_code"], summary["strict_known"], summary["violations"]) == (1, True, 0)
    assert summary["known_lists"]["codex"]["did_not_occur"] == {
        "ADJ-1": {"situations": 1, "logs": 1}
    }
    status, out, _ = check(capsys, "--format", "json", "--known", "RW-1", CC_IN_ORDER)
    assert "known_lists" not in json.loads(out)["summary"]  # no loop named: no list to judge


def test_ORD_3_strict_known_does_not_fail_a_run_that_never_lost_the_race(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ORD-3 is racy in Claude Code: its results go back in completion order, in model order
    whenever the calls finish in it. A run whose logs never lost that race failed under
    --strict-known, though no upgrade had fixed anything; it now says "did not occur (racy)"
    and exits 0, and the JSON keeps it apart from did_not_occur."""
    status, out, _ = check(capsys, "--known", "claude-code", "--strict-known", CC_IN_ORDER, CC_RW_1)
    assert status == 0, out
    assert ORD_3_UNSEEN.removesuffix(")") + "; --strict-known does not fail the run on it)\n" in (
        out
    )
    status, out, _ = check(
        capsys, "--format", "json", "--known", "claude-code", "--strict-known", CC_IN_ORDER
    )
    assert status == 0
    summary = json.loads(out)["summary"]
    assert (summary["exit_code"], summary["strict_known"], summary["violations"]) == (0, True, 0)
    assert summary["known_lists"] == {
        "claude-code": {
            "logs": 1,
            "occurred": [],
            "did_not_occur": {},
            "race_not_lost": {"ORD-3": {"situations": 1, "logs": 1}},
            "not_exercised": ["ABORT-1", "ABORT-2", "EXE-1", "HOOK-6", "REC-1", "RW-1"],
        }
    }
    # A racy divergence and one that did not occur: strict fails on the second alone.
    status, out, _ = check(
        capsys, "--known", "claude-code,codex", "--strict-known", CC_IN_ORDER, CODEX_CONTEXT_AFTER
    )
    assert status == 1, out


@pytest.mark.parametrize("known", [[], ["--known", "RW-1"]])
def test_ORD_3_strict_known_without_a_loop_is_one_line_exit_2(
    known: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """ORD-3: --strict-known judges a loop's list; without --known naming one, one line, exit 2."""
    status, out, err = check(capsys, *known, "--strict-known", CC_IN_ORDER)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("loopspec: error: --strict-known needs --known naming a loop")


def test_ABORT_1_known_by_its_id_sets_aside_what_a_transcript_shows_of_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ABORT-1: `check` names it in a Claude Code transcript (the message Claude Code invents on
    resuming after an interrupt), so `--known ABORT-1` must be accepted as a rule `check`
    reports; it was refused (exit 2) as naming no such rule. The rules a dialect shows in part
    that no log invariant carries (ABORT-2 is one's) are the ones `--known` lists besides the
    log invariants'."""
    transcript = str(LOGS / "claude-code" / "violations" / "ABORT-1.jsonl")
    status, out, _ = check(capsys, "--known", "ABORT-1", transcript)
    assert status == 0, out
    assert "ABORT-1.jsonl:5: known divergence named by --known: ABORT-1: after the interrupt" in out
    dialects = (claude_code.dialect(), codex.dialect())
    in_part = {rule for d in dialects for rule in d.checked_in_part}
    assert set(IN_PART_RULES) == in_part - set(rule_ids())


# A loop's list forgives its known divergence, not the whole rule (`KNOWN_SHAPES`): the same rule
# broken another way, by a tool that converts or forwards the loop's logs, still fails the run.
CODEX_REC_1 = str(LOGS / "codex" / "violations" / "REC-1-resumed-without-a-repair.jsonl")
CC_REC_1_INVENTED = str(
    LOGS / "claude-code" / "violations" / "REC-1-a-repair-adds-an-assistant-message.jsonl"
)
CC_REC_1_NO_REPAIR = str(
    LOGS / "claude-code" / "violations" / "REC-1-resumed-without-a-repair.jsonl"
)
CODEX_RW_1_NOT_KNOWN = (
    "not the known divergence: codex's is a hook's rewrite run under the id of the call it rewrote"
)


def _rollout(tmp_path: Path, name: str, *records: tuple[str, dict[str, object]]) -> str:
    """A Codex rollout of `records` (type, payload), each stamped as Codex stamps them."""
    path = tmp_path / name
    stamp = "2026-12-01T12:00:00.000Z"
    path.write_text(
        "".join(
            json.dumps({"timestamp": stamp, "type": kind, "payload": payload}) + "\n"
            for kind, payload in records
        )
    )
    return str(path)


def _item(payload: dict[str, object]) -> tuple[str, dict[str, object]]:
    return ("response_item", payload)


def _user(text: str) -> tuple[str, dict[str, object]]:
    return _item(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    )


def _call(call_id: str, command: str) -> tuple[str, dict[str, object]]:
    arguments = json.dumps({"cmd": command})
    return _item(
        {
            "type": "function_call",
            "name": "exec_command",
            "arguments": arguments,
            "call_id": call_id,
        }
    )


def _ran(call_id: str, command: str) -> tuple[str, dict[str, object]]:
    item = {"type": "CommandExecution", "id": call_id, "command": ["/bin/bash", "-lc", command]}
    return ("event_msg", {"type": "item_completed", "item": item})


def _output(call_id: str, output: str) -> tuple[str, dict[str, object]]:
    return _item({"type": "function_call_output", "call_id": call_id, "output": output})


def _answer(text: str) -> tuple[str, dict[str, object]]:
    content = [{"type": "output_text", "text": text}]
    return _item({"type": "message", "role": "assistant", "content": content})


def _task(turn: str) -> tuple[str, dict[str, object]]:
    return ("event_msg", {"type": "task_started", "turn_id": turn})


def test_RW_1_a_command_run_for_no_call_is_no_codex_known_divergence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """RW-1: a forwarder that renames a CommandExecution's id leaves a command run for no call
    the rollout made. `--known codex` set it aside as Codex's RW-1, whose known divergence is a
    hook's rewrite run under its call's id: now it fails the run, saying why it was not set
    aside (text and JSON). Named by its ID, RW-1 is set aside whole."""
    renamed = _rollout(
        tmp_path,
        "renamed.jsonl",
        _task("turn1"),
        _user("print one"),
        _call("call_1", "echo one"),
        _ran("exec_1", "echo one"),
        _output("call_1", "one"),
        _answer("Printed one."),
    )
    status, out, _ = check(capsys, "--known", "codex", renamed)
    assert status == 1, out
    assert f"{renamed}:4: RW-1: a command ran as call exec_1 (echo one)," in out
    assert f"[lines 4]; {CODEX_RW_1_NOT_KNOWN}\n" in out
    assert out.endswith("checked 1 log, 6 events: 1 violation (RW-1: 1)\n")
    status, out, _ = check(capsys, "--format", "json", "--known", "codex", renamed)
    (log,) = json.loads(out)["logs"]
    assert (status, log["status"], log["known_divergences"]) == (1, "violations", [])
    assert [(v["rule"], v["not_known"]) for v in log["violations"]] == [
        ("RW-1", CODEX_RW_1_NOT_KNOWN)
    ]
    status, out, _ = check(capsys, "--known", "RW-1", "--known", "codex", renamed)
    assert status == 0, out
    assert ": known divergence named by --known: RW-1: a command ran as call exec_1" in out


def test_RW_1_the_known_and_another_shape_in_one_rollout_are_counted_apart(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """RW-1: a rollout holding Codex's known RW-1 (a rewritten command run under its call's id,
    with RW-2) and a command run for no call: the first set aside, the second failing, counted
    apart past --max-violations too; the known divergence occurred, and a rollout with only
    the other shape of RW-1 does not say Codex's occurred."""
    both = _rollout(
        tmp_path,
        "both.jsonl",
        _task("turn1"),
        _user("print two"),
        _call("call_1", "echo original"),
        _ran("call_1", "echo rewritten"),
        _output("call_1", "rewritten"),
        _call("call_2", "echo two"),
        _ran("exec_2", "echo two"),
        _output("call_2", "two"),
        _answer("Printed."),
    )
    summary = "1 violation (RW-1: 1); 2 known divergences (RW-1: 1, RW-2: 1)\n"
    for limit in ("10", "2", "1"):
        status, out, _ = check(capsys, "--max-violations", limit, "--known", "codex", both)
        assert status == 1, out
        assert out.endswith(summary), out
    status, out, _ = check(capsys, "--format", "json", "--known", "codex", both)
    document = json.loads(out)
    assert document["summary"]["known_lists"]["codex"]["occurred"] == ["RW-1", "RW-2"]
    renamed = _rollout(
        tmp_path, "renamed.jsonl", *[_task("turn1"), _user("x"), _ran("exec_9", "ls")]
    )
    status, out, _ = check(capsys, "--format", "json", "--known", "codex", renamed)
    assert status == 1
    fates = json.loads(out)["summary"]["known_lists"]["codex"]
    assert "RW-1" not in fates["occurred"]
    assert "RW-1" in fates["not_exercised"]


def test_REC_1_a_resumed_turn_that_lost_its_task_started_is_no_codex_known_divergence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """REC-1: Codex resumed after a crash starts the next turn (task_started) without writing
    the repair: its known divergence, set aside. The same rollout with that task_started
    dropped (a converter keeping response_items only) opens the turn with the user's message:
    REC-1 of another shape, which `--known codex` no longer hides."""
    status, out, _ = check(capsys, "--known", "codex", CODEX_REC_1)
    assert status == 0, out
    assert ":5: known divergence of codex: REC-1: turn turn2 (task_started) starts" in out
    lines = Path(CODEX_REC_1).read_text().splitlines(keepends=True)
    dropped = tmp_path / "dropped.jsonl"
    dropped.write_text("".join(line for line in lines if "turn2" not in line))
    status, out, _ = check(capsys, "--known", "codex", str(dropped))
    assert status == 1, out
    assert (
        f"{dropped}:5: REC-1: a turn (a user's prompt) starts, where call call_long still "
        "awaits its result"
    ) in out
    assert (
        "[lines 5, 4]; not the known divergence: codex's is a task_started over calls a crash "
        "left, their repair never written\n"
    ) in out


def test_REC_1_claude_code_resumed_without_its_repair_is_not_its_known_divergence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """REC-1: Claude Code writes the crash's repair on resuming and then a message of its own,
    its known divergence (set aside), and forked or rewound at a call not yet answered it hangs
    the next prompt from the call's record, sending the model a result no result record holds (its
    known divergence too, set aside: it was listed as not the known divergence). The same
    transcript whose prompt hangs from no record (a converter dropping parentUuid) is a crash's
    repair never written, REC-1 another way: it fails the run under `--known claude-code`."""
    status, out, _ = check(capsys, "--known", "claude-code", CC_REC_1_INVENTED)
    assert status == 0, out
    assert ":4: known divergence of claude-code: REC-1: the crash repair of call toolu_long" in out
    status, out, _ = check(capsys, "--known", "claude-code", CC_REC_1_NO_REPAIR)
    assert status == 0, out
    assert ":3: known divergence of claude-code: REC-1: a turn (a user's prompt whose " in out
    rewound = LOGS / "claude-code" / "violations" / "REC-1-rewound-at-a-call-in-the-same-file.jsonl"
    status, out, _ = check(capsys, "--known", "claude-code", str(rewound))
    assert status == 0, out
    assert ":6: known divergence of claude-code: REC-1: a turn (a user's prompt whose " in out
    unhung = tmp_path / "unhung.jsonl"
    text = Path(CC_REC_1_NO_REPAIR).read_text()
    unhung.write_text(text.replace('"parentUuid":"u2"', '"parentUuid":null'))
    status, out, _ = check(capsys, "--known", "claude-code", str(unhung))
    assert status == 1, out
    assert (
        "[lines 3, 2]; not the known divergence: claude-code's is its own 'No response "
        "requested.' written on resuming a turn a crash cut (or one whose last reply held no "
        "text, the message hung in its place), or a prompt whose record hangs "
        "from a call not yet answered, or from results of its reply, forked or rewound there "
        "(the result it sends the model for the call never written)\n"
    ) in out


def test_REC_1_an_api_error_that_lost_its_mark_is_not_claude_codes_known_divergence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """REC-1: after a prompt a crash left unanswered, Claude Code writes `No response
    requested.` as the model's on resuming (its known divergence, set aside); an `API Error`
    message that lost its `isApiErrorMessage` mark (a converter's doing: Claude Code marks
    its errors, and never sends them to the model) breaks REC-1 there too, and fails the run
    under `--known claude-code`, where it was set aside as the CLI's own."""
    own = LOGS / "claude-code" / "violations" / "REC-1-a-crash-before-the-reply.jsonl"
    status, out, _ = check(capsys, "--known", "claude-code", str(own))
    assert status == 0, out
    assert ":2: known divergence of claude-code: REC-1" in out
    unmarked = tmp_path / "unmarked-api-error.jsonl"
    unmarked.write_text(own.read_text().replace("No response requested.", "API Error: 500"))
    status, out, _ = check(capsys, "--known", "claude-code", str(unmarked))
    assert status == 1, out
    assert (
        ":2: REC-1: the model never replied to line 1, and an assistant message it never "
        "wrote (API Error: 500)"
    ) in out
    assert "; not the known divergence: claude-code's is its own 'No response requested.'" in out


@pytest.mark.parametrize("loop", LOOPS)
def test_RW_1_REC_1_a_rule_known_by_its_shape_is_one_of_its_loops_list(loop: str) -> None:
    """RW-1, REC-1: each rule a loop's known divergence is told by its shape is in that loop's
    list (else its shape would never be asked), and names at least one shape."""
    # Spelt as the violations spell them: dsh's log is judged by the model's invariants.
    facets = {f.split(":", 1)[1] for f in DSH_PROFILE.tolerated_facets} if loop == "dsh" else FACETS
    for rule, shape in KNOWN_SHAPES[loop].items():
        assert rule in KNOWN_RULES[loop]
        assert shape.facets
        assert set(shape.facets) <= set(facets), rule


def test_HOOK_5_dshs_known_divergences_check_sees_are_those_its_profile_says_its_log_breaks() -> (
    None
):
    """HOOK-5: `--known dsh` takes its list from dsh's conform profile, the one source: the facets
    its divergences say dsh's own log breaks (`tolerates`), and their rules, nothing more (dsh's
    other divergences show only beside the model's run; a rule check reports in another shape
    is no sign of them). A facet added to the profile alone would never be set aside."""
    tolerated = sorted(DSH_PROFILE.tolerated_facets)
    assert tolerated  # post-hooks-for-unrun-calls
    assert (
        sorted(
            f"{rule}:{facet}"
            for rule, shape in KNOWN_SHAPES["dsh"].items()
            for facet in shape.facets
        )
        == tolerated
    )
    assert KNOWN_RULES["dsh"] == tuple(dict.fromkeys(f.split(":")[0] for f in tolerated))
    assert RACY_RULES["dsh"] == {}


DshEvent = tuple[str, dict[str, object], list[int]]
"""An event of `_dsh_log`: its type, its data, the seqs it cites (`sourceEventSeqs`)."""


def _dsh_log(
    tmp_path: Path,
    name: str,
    *,
    post_after_result: bool = False,
    version: int = 0,
    named: bool = False,
) -> str:
    """A small log as dsh 0.1.0-rc.8 writes it (hook events name no call, the bridge's handler
    ids): a PreToolUse hook denies a write, and its PostToolUse hook still runs, before the
    error result (dsh's known divergence). `post_after_result`: that hook runs after the result
    instead, the step's last: another break of HOOK-5, no shape dsh is known to write. `named`:
    the PostToolUse hook's events name the call (`callId`), as dsh's never do."""
    model = {"kind": "model", "provider": "scripted", "model": "scripted-model"}
    call = {"type": "tool-call", "id": "c1", "name": "write", "arguments": '{"path":"/etc/hosts"}'}
    refused = {
        "role": "user",
        "id": "r1",
        "source": {"kind": "tool", "callId": "c1"},
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "c1",
                "content": [{"type": "text", "text": "Error: no system files"}],
                "isError": True,
            }
        ],
    }
    post: list[DshEvent] = [
        ("hook/invoked", {"point": "PostToolUse", "dialect": "claude-code",
                          "handlerId": "claude-code:PostToolUse:2", "matcher": "write"}, []),
        ("hook/result", {"point": "PostToolUse", "handlerId": "claude-code:PostToolUse:2",
                         "decision": "pass", "exitCode": 0, "durationMs": 0.1}, []),
    ]  # fmt: skip
    if named:
        post = [(kind, {**data, "callId": "c1"}, cites) for kind, data, cites in post]
    result: DshEvent = ("tool/result", {"step": 1, "message": refused}, [4])
    events: list[DshEvent] = [
        ("turn/start", {}, []),
        ("step/start", {"step": 1}, []),
        ("user/message", {"role": "user", "id": "u1", "source": {"kind": "user"},
                          "content": [{"type": "text", "text": "tidy /etc"}]}, []),
        ("assistant/message", {"step": 1, "message": {"role": "assistant", "id": "a1",
                                                      "source": model, "content": [call]}}, []),
        ("tool/call", {"step": 1, "callId": "c1", "name": "write",
                       "arguments": call["arguments"]}, []),
        ("hook/invoked", {"point": "PreToolUse", "dialect": "claude-code",
                          "handlerId": "claude-code:PreToolUse:1", "matcher": "*"}, []),
        ("hook/result", {"point": "PreToolUse", "handlerId": "claude-code:PreToolUse:1",
                         "decision": "deny", "exitCode": 0, "durationMs": 18.1}, []),
        *([result, *post] if post_after_result else [*post, result]),
        ("step/end", {"step": 1}, []),
        ("step/start", {"step": 2}, []),
        ("assistant/message", {"step": 2, "message": {"role": "assistant", "id": "a2",
                               "source": model,
                               "content": [{"type": "text", "text": "A hook refused it."}]}}, []),
        ("step/end", {"step": 2}, []),
        ("turn/end", {"reason": {"kind": "completed"}}, []),
    ]  # fmt: skip
    return _written_dsh_log(tmp_path / name, events, version)


def _written_dsh_log(path: Path, events: list[DshEvent], version: int = 0) -> str:
    """`events` written to `path` as dsh writes a session log (in turn 1), its path."""
    header = {"type": "session", "version": version, "id": "s1", "createdAt": 1796483576548,
              "cwd": "/work/demo"}  # fmt: skip
    lines = [json.dumps(header)]
    for seq, (kind, data, cites) in enumerate(events):
        # user/message data is the message itself; every other event names its turn.
        body = data if kind == "user/message" else {"turn": 1, **data}
        event: dict[str, object] = {"type": kind, "seq": seq, "time": 1796483576565 + seq}
        event["data"] = body
        if kind in ("user/message", "assistant/message", "tool/result"):
            event["surfaceOp"] = "append"
        if cites:
            event["sourceEventSeqs"] = cites
        lines.append(json.dumps(event))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_HOOK_5_known_dsh_sets_aside_a_post_hook_dsh_ran_for_a_denied_call(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """HOOK-5: dsh runs PostToolUse hooks for a call whose body never ran (its known
    post-hooks-for-unrun-calls): `--known dsh` sets that aside in its logs, as the dsh profile
    does for conform; a PostToolUse hook audited after the result it judges is no shape dsh is
    known to write, and still fails the run, saying why. A log in dsh's layout dsh never writes
    (version 1, loopspec's own) has nothing set aside by dsh's name."""
    denied = _dsh_log(tmp_path, "denied.jsonl")
    status, out, _ = check(capsys, denied)
    assert status == 1, out
    hint = "known divergences of dsh among these (HOOK-5: 1): "
    assert hint in out
    status, out, _ = check(capsys, "--known", "dsh", denied)
    assert f"{denied}:11: known divergence of dsh: HOOK-5 (seq 9): " in out
    assert out.endswith("0 violations; 1 known divergence (HOOK-5: 1)\n")
    why = (
        "; not the known divergence: dsh's is a PostToolUse hook naming no call run for a call "
        "whose body never ran (denied, refused, never started): post-hooks-for-unrun-calls"
    )
    late = _dsh_log(tmp_path, "late.jsonl", post_after_result=True)
    known_in_one_shape_only(capsys, "dsh", (denied, late), why)
    # The same hook naming the call it ran for breaks HOOK-5 alike, but dsh names none: a
    # converter or another harness wrote it, which dsh's name does not excuse.
    named = _dsh_log(tmp_path, "named.jsonl", named=True)
    known_in_one_shape_only(capsys, "dsh", (denied, named), why)
    status, out, _ = check(capsys, named)
    assert status == 1
    assert hint not in out
    # The document `--format json` writes of it is one the published schema accepts.
    status, out, _ = check(capsys, "--format", "json", "--known", "dsh", denied)
    (log,) = json.loads(out)["logs"]
    assert [(k["rule"], k["known_by"]) for k in log["known_divergences"]] == [("HOOK-5", "dsh")]
    errors = jsonschema.Draft202012Validator(check_schema()).iter_errors(json.loads(out))
    assert [error.message for error in errors] == []
    own = _dsh_log(tmp_path, "own.jsonl", version=1)
    status, out, _ = check(capsys, "--known", "dsh", own)
    assert status == 1, out
    assert "known divergence of dsh" not in out
    assert "known divergences of dsh not exercised: no dsh log\n" in out


def test_EXE_1_HOOK_4_known_dsh_sets_aside_a_reply_dsh_ran_repeating_a_call_id(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """EXE-1: dsh runs both calls of a reply that repeats an id (its known duplicate-call-ids,
    seen in its logs under conform's programs, 2026-12-06): `--known dsh` sets that aside in its
    logs, as it does HOOK-5's known shape; not in loopspec's own (version 1). dsh records and
    runs them one at a time, a PreToolUse hook naming no call audited for the second after the
    first's result: no HOOK-4 (check read every call of the step answered, 68 of 1,522 logs)."""
    model = {"kind": "model", "provider": "scripted", "model": "scripted-model"}
    calls = [
        {"type": "tool-call", "id": "c1", "name": "read", "arguments": f'{{"path":"{name}"}}'}
        for name in ("a.txt", "b.txt")
    ]
    results: list[DshEvent] = [
        ("tool/result", {"step": 1, "message": {
            "role": "user", "id": f"r{n}", "source": {"kind": "tool", "callId": "c1"},
            "content": [{"type": "tool-result", "toolCallId": "c1",
                         "content": [{"type": "text", "text": text}], "isError": False}]}},
         [cited])
        for n, (text, cited) in enumerate((("A", 4), ("B", 6)))
    ]  # fmt: skip
    hook = {"point": "PreToolUse", "handlerId": "claude-code:PreToolUse:1"}
    events: list[DshEvent] = [
        ("turn/start", {}, []),
        ("step/start", {"step": 1}, []),
        ("user/message", {"role": "user", "id": "u1", "source": {"kind": "user"},
                          "content": [{"type": "text", "text": "read both"}]}, []),
        ("assistant/message", {"step": 1, "message": {"role": "assistant", "id": "a1",
                                                      "source": model, "content": calls}}, []),
        ("tool/call", {"step": 1, "callId": "c1", "name": "read",
                       "arguments": calls[0]["arguments"]}, []),
        results[0],
        ("tool/call", {"step": 1, "callId": "c1", "name": "read",
                       "arguments": calls[1]["arguments"]}, []),
        ("hook/invoked", {**hook, "dialect": "claude-code", "matcher": "read"}, []),
        ("hook/result", {**hook, "decision": "pass", "exitCode": 0, "durationMs": 0.1}, []),
        results[1],
        ("step/end", {"step": 1}, []),
        ("turn/end", {"reason": {"kind": "completed"}}, []),
    ]  # fmt: skip
    repeated = _written_dsh_log(tmp_path / "repeated.jsonl", events)
    status, out, _ = check(capsys, repeated)
    assert status == 1, out
    assert f'{repeated}:5: EXE-1 (seq 3): call ids repeat in one reply: "c1" ' in out
    assert "known divergences of dsh among these (EXE-1: 1): " in out
    status, out, _ = check(capsys, "--known", "dsh", repeated)
    assert status == 0, out
    assert out.endswith("0 violations; 1 known divergence (EXE-1: 1)\n"), out
    own = _written_dsh_log(tmp_path / "own.jsonl", events, version=1)
    status, out, _ = check(capsys, "--known", "dsh", own)
    assert status == 1, out
    assert "known divergence of dsh" not in out


def test_ADJ_1_a_codex_message_between_a_call_and_its_output_not_marked_a_hooks_is_not_known(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ADJ-1: Codex writes a PostToolUse hook's additionalContext, marked so, between a call and
    its output (its known divergence, set aside); a developer message there without that mark
    is no hook's context Codex is known to write, and fails the run under `--known codex`."""
    unmarked = str(LOGS / "codex" / "violations" / "ADJ-1.jsonl")
    why = (
        ":4: ADJ-1: a developer message lands while call call_a awaits its result [lines 4, 3]; "
        "not the known divergence: codex's is a PostToolUse hook's additionalContext, marked "
        "so, between a call and its output"
    )
    out = known_in_one_shape_only(capsys, "codex", (CODEX_CONTEXT_BETWEEN, unmarked), why)
    # Its situation never came up in the known shape, yet the rule broke: said so, not left
    # to read as a log that showed nothing of it.
    assert (
        "known divergences of codex broken only in another shape than its known one (listed "
        "above as not the known divergence): ADJ-1\n"
    ) in out
    status, out, _ = check(capsys, "--known", "codex", CODEX_CONTEXT_BETWEEN)
    assert status == 0, out
    assert "another shape" not in out


def test_RW_1_a_write_that_ran_another_input_no_hook_answered_is_no_claude_code_known_divergence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """RW-1: a Write whose result records other content than its call, the call answered by a
    PermissionRequest hook (whose updatedInput Claude Code runs, recording its decision alone):
    Claude Code's known divergence, set aside. Without any hook's record for the call (a tool
    that redacts the tool_use's input and not the result, say), no hook supplied what ran: it
    fails the run under `--known claude-code`."""
    hooked = LOGS / "claude-code" / "violations" / "RW-1-a-permission-hook-rewrote-a-write.jsonl"
    status, out, _ = check(capsys, "--known", "claude-code", str(hooked))
    assert status == 0, out
    lines = hooked.read_text().splitlines(keepends=True)
    unhooked = tmp_path / "unhooked.jsonl"
    unhooked.write_text("".join(line for line in lines if "PermissionRequest" not in line))
    status, out, _ = check(capsys, "--known", "claude-code", str(unhooked))
    assert status == 1, out
    assert (
        "[lines 3, 2]; not the known divergence: claude-code's is a hook's updatedInput run for "
        "the call it names, a hook's record answering it\n"
    ) in out


# Not dsh: tests/fixtures/logs holds no log dsh wrote (those in its layout are the model's), so
# its case would pass on no log; `_dsh_log` writes dsh's shape for its own test.
@pytest.mark.parametrize("loop", HARNESS_LOOPS)
def test_EXE_1_every_rule_check_reports_in_a_loops_logs_of_its_list_has_its_known_shape(
    loop: str,
) -> None:
    """EXE-1 and the rest: a rule of a loop's list is set aside in that loop's logs only in the
    shape of its known divergence, so each one `check` reports in the hand-written logs of that
    loop has a shape (`KNOWN_SHAPES`), and its known divergence's logs show it."""
    reported: dict[str, set[str]] = {}
    for path in sorted((LOGS / loop).rglob("*.jsonl")):
        report = check_stream(str(path), io.BytesIO(path.read_bytes()))
        assert report.dialect == loop, path
        for found in report.violations:
            if found.violation.rule_id in KNOWN_RULES[loop]:
                reported.setdefault(found.violation.rule_id, set()).add(found.violation.facet)
    assert set(reported) <= set(KNOWN_SHAPES[loop])
    for rule, facets in reported.items():
        assert facets & set(KNOWN_SHAPES[loop][rule].facets), rule


def test_EXE_1_a_rule_of_a_loops_list_check_knows_no_shape_of_is_set_aside_in_none(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """EXE-1: were a rule of Codex's list reported in its rollouts with no known shape (check
    began to report it after the shapes were written), `--known codex` would not forgive it
    unseen: it fails the run, saying check knows no shape of it; named by its ID it is set
    aside."""
    repeated = str(LOGS / "codex" / "violations" / "EXE-1.jsonl")
    status, out, _ = check(capsys, "--known", "codex", repeated)
    assert status == 0, out
    shapes = {rule: shape for rule, shape in KNOWN_SHAPES["codex"].items() if rule != "EXE-1"}
    monkeypatch.setitem(KNOWN_SHAPES, "codex", shapes)
    status, out, _ = check(capsys, "--known", "codex", repeated)
    assert status == 1, out
    assert "; not the known divergence: check knows no shape of codex's EXE-1\n" in out
    status, out, _ = check(capsys, "--known", "codex,EXE-1", repeated)
    assert status == 0, out


def _modules_making_loop_violations() -> list[tuple[ModuleType, set[str]]]:
    """The modules whose code may make a violation `check` reports in a loop's log, each with
    the rules of the lists it serves: each dialect reader of a loop `--known` names, the
    logcheck modules it imports, and the one holding `check_foreign`, the only path from a
    dialect's records to a report; for dsh's logs, the model's invariants and the commit
    markers' judge (`commit_units`), which make every violation of a log in dsh's layout."""
    readers = {"claude-code": claude_code, "codex": codex}
    assert {*readers, "dsh"} == set(KNOWN_RULES)  # a new loop's reader is walked too
    listed = {rule for rules in KNOWN_RULES.values() for rule in rules}
    names = {check_foreign.__module__}
    for reader in readers.values():
        names.add(reader.__name__)
        for node in ast.walk(ast.parse(Path(str(reader.__file__)).read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "loopspec.properties.logcheck."
            ):
                names.add(str(node.module))
    walked = [(importlib.import_module(name), listed) for name in sorted(names)]
    dsh = set(KNOWN_RULES["dsh"])
    return [*walked, (invariants, dsh), (commit_units, dsh)]


def _rules_of(
    expression: ast.expr | None, scope: ast.FunctionDef | None, tree: ast.Module
) -> set[str] | None:
    """The rules a Violation's rule argument may be: a literal; a module constant set to one;
    or a parameter of its function, given a literal at every call of it in the module. None for
    anything else, which this walk cannot read."""
    if isinstance(expression, ast.Constant) and isinstance(expression.value, str):
        return {expression.value}
    if not isinstance(expression, ast.Name):
        return None
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == expression.id for t in statement.targets)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str)
        ):
            return {statement.value.value}
    parameters = [a.arg for a in scope.args.args] if scope is not None else []
    if scope is None or expression.id not in parameters:
        return None
    position = parameters.index(expression.id)
    rules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id != scope.name:
                continue
            given = _argument(node, position, expression.id)
            if not (isinstance(given, ast.Constant) and isinstance(given.value, str)):
                return None
            rules.add(given.value)
    return rules or None


def _violation_sites(tree: ast.Module) -> list[tuple[ast.Call, ast.FunctionDef | None]]:
    """Each `Violation(...)` call of a module, with the innermost function it is made in."""
    scope_of: dict[int, tuple[ast.Call, ast.FunctionDef | None]] = {}
    # ast.walk goes outside in, so a nested function's calls are claimed by it last.
    for scope in [None, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))]:
        for node in ast.walk(scope if scope is not None else tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Violation"
            ):
                scope_of[id(node)] = (node, scope)
    return list(scope_of.values())


def _sources(
    expression: ast.expr, scope: ast.FunctionDef | None, tree: ast.Module
) -> list[ast.AST]:
    """`expression` and what it may take its value from: what a local name it reads is assigned
    in `scope`, what a function of the module it calls returns."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    found: list[ast.AST] = []
    todo: list[tuple[ast.AST, ast.FunctionDef | None]] = [(expression, scope)]
    while todo:
        node, within = todo.pop()
        if any(node is seen for seen in found):
            continue
        found.append(node)
        for part in ast.walk(node):
            if isinstance(part, ast.Name) and within is not None:
                todo.extend(
                    (assign.value, within)
                    for assign in ast.walk(within)
                    if isinstance(assign, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == part.id for t in assign.targets)
                )
            if isinstance(part, ast.Call) and isinstance(part.func, ast.Name):
                function = functions.get(part.func.id)
                if function is not None:
                    todo.extend(
                        (r.value, function)
                        for r in ast.walk(function)
                        if isinstance(r, ast.Return) and r.value is not None
                    )
    return found


def _argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == name), None)


def test_RW_1_every_violation_of_a_rule_a_loops_list_names_is_made_with_its_facet() -> None:
    """RW-1, REC-1 and the rest: `--known claude-code` sets aside a rule of the loop's list only
    in its known shape, told by the violation's facet, so a violation made without one would
    fail the run under `--known` whatever its shape, and only a fixture of that very shape would
    show it. Each place that makes a violation a loop's log can show, of a rule some loop's
    list names, gives it a facet: one of `FACETS`, or `NO_KNOWN_SHAPE` on purpose (no bare
    empty string, which reads as forgotten); its rule is a literal, so this walk can read it."""
    problems = []
    rules_made: set[str] = set()
    for module, listed in _modules_making_loop_violations():
        tree = ast.parse(Path(str(module.__file__)).read_text())
        for call, scope in _violation_sites(tree):
            where = f"{Path(str(module.__file__)).name}:{call.lineno}"
            rules = _rules_of(_argument(call, 0, "rule_id"), scope, tree)
            if rules is None:
                problems.append(f"{where}: a Violation whose rule this walk cannot read")
                continue
            rules_made |= rules
            if not rules & listed:
                continue
            facet = _argument(call, 4, "facet")
            if facet is None:
                problems.append(f"{where}: a violation of {sorted(rules)} made without a facet")
            elif any(
                isinstance(node, ast.Constant) and node.value == ""
                for source in _sources(facet, scope, tree)
                for node in ast.walk(source)
            ):
                problems.append(
                    f"{where}: a violation of {sorted(rules)} whose facet may be a bare '' (name "
                    "it NO_KNOWN_SHAPE if no loop's known divergence has that shape)"
                )
    assert problems == []
    # The walk reaches the places that make each rule a known shape names.
    assert {rule for shapes in KNOWN_SHAPES.values() for rule in shapes} <= rules_made


def test_ORD_3_results_in_completion_order_a_converter_wrote_are_not_claude_codes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """ORD-3: Claude Code writes a reply's results as its calls finish, each result's record
    naming the record of its call (`sourceToolAssistantUUID`, on every result 2.1.332 writes,
    a subagent's too): its known divergence, set aside. The same order in results that name no
    record (a converter's, which plausibly drops the field) or another call's record is no
    sign the CLI wrote it: it fails the run under `--known claude-code`, saying why."""
    status, out, _ = check(capsys, "--known", "claude-code", CC_ORD_3)
    assert status == 0, out
    text = Path(CC_ORD_3).read_text()
    for name, changed in (
        ("unnamed", text.replace('"sourceToolAssistantUUID":"u3",', "")),
        (
            "misnamed",
            text.replace('"sourceToolAssistantUUID":"u3"', '"sourceToolAssistantUUID":"u2"'),
        ),
    ):
        assert changed != text
        converted = tmp_path / f"{name}.jsonl"
        converted.write_text(changed)
        status, out, _ = check(capsys, "--known", "claude-code", str(converted))
        assert status == 1, out
        assert (
            ":4: ORD-3: the result for call toolu_b is written before the results for toolu_a, "
            "which the model called first [lines 4, 2]; not the known divergence: claude-code's "
            "is a reply's results written as its calls finish, a later call's first, each naming "
            "its call's record (sourceToolAssistantUUID)\n"
        ) in out, name


def test_EXE_1_a_repeated_call_id_in_one_record_is_no_loops_known_divergence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """EXE-1: both CLIs write each of a reply's calls as a record of its own, and a reply
    repeating an id so is their known divergence, set aside; two calls of one id in one record
    (a converter writing whole messages) is no CLI's writing: it fails the run under `--known
    claude-code`, saying why."""
    logs = (
        str(LOGS / "claude-code" / "violations" / "EXE-1-both-calls-answered.jsonl"),
        str(LOGS / "claude-code" / "violations" / "EXE-1.jsonl"),
    )
    known_in_one_shape_only(
        capsys,
        "claude-code",
        logs,
        ":2: EXE-1: the reply carries call id toolu_a twice [lines 2]; not the known divergence: "
        "claude-code's is a reply's calls repeating an id, each call a record of its own",
    )
