"""What `loopspec conform` reports means what it says.

Coverage: a rule is "exercised" only when a program created the situation it governs, counted
apart from the comparisons that merely checked it. Numbers: `--examples N` runs N programs, and
shrinking and Hypothesis's abandoned programs are reported apart. The JSON report is versioned
and carries the shrunk program; diffs show JSON as JSON and nothing that compares equal.
"""

from __future__ import annotations

import functools
import importlib
import io
import json
import os
import re
import shlex
import sys
import unittest.mock
from collections import Counter
from pathlib import Path
from typing import Any

import attrs
import pytest
from batches import BATCH_SEED
from hypothesis import settings
from hypothesis.internal.conjecture.data import Status
from hypothesis.stateful import run_state_machine_as_test
from test_blame_matrix import (
    FAMILIES,
    FIRST_USER,
    TURN_END_REASON_AS_TEXT,
    ChangedModel,
    UnpresentedModel,
    _events,
)

import loopspec
from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.jsonvalue import freeze
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.cli import conform as conform_cli
from loopspec.properties.cli import conform_run
from loopspec.properties.cli.conform_run import counts_line, write_case_file
from loopspec.properties.cli.main import main
from loopspec.properties.conformance import machine
from loopspec.properties.conformance.capability_needs import (
    hook_capabilities,
    needed_capabilities,
)
from loopspec.properties.conformance.case_format import BUNDLED_IMPL
from loopspec.properties.conformance.command_codec import config_to_json
from loopspec.properties.conformance.compare import DivergenceFound, displayed_observation
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.machine import RULES_BY_EVENT, conformance_machine
from loopspec.properties.conformance.run import (
    NOT_OBSERVABLE,
    OBSERVABLE_WITH,
    UNOBSERVED_PARTS,
    UNREACHABLE_PARTS,
    RunReport,
    TargetError,
    TargetFactory,
    replay_case,
    rule_table,
    run_conformance,
    spec_text,
)
from loopspec.properties.conformance.situation_sweep import SITUATIONS, settled_program
from loopspec.properties.conformance.situations import (
    SITUATIONS_BY_EVENT,
    Situations,
    program_exercises,
)
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles import PROFILES
from loopspec.properties.spec_presentation import CALL_EXAMPLES, RESULT_EXAMPLES
from loopspec.properties.stateful.strategies import CONFIGS


class OnlyConfig(ModelTarget):
    """The model, declaring only what one configuration needs: no hooks means no pre-hooks."""

    def __init__(self, capabilities: frozenset[str]) -> None:
        super().__init__()
        self._capabilities = capabilities

    def reset(self, config: LoopConfig) -> frozenset[str]:
        super().reset(config)
        return self._capabilities


def _statuses(report: Any) -> dict[str, dict[str, Any]]:
    return {row["rule"]: row for row in rule_table(report)}


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_DEC_1_a_deny_is_exercised_only_when_a_program_denied_a_call() -> None:
    """DEC-1, EXE-1, SCHED-1: without hooks no program can deny, so DEC-1 is not applicable
    however many results were checked, needing pre-hooks; with hooks it is exercised, with the
    count of denied results. A call held back while another runs is SCHED-1's with one slot."""
    plain = run_conformance(lambda: OnlyConfig(frozenset({"max-tokens"})), examples=30,
                            seed_value=BATCH_SEED, show_progress=False)  # fmt: skip
    rows = _statuses(plain)
    assert rows["DEC-1"]["generated"] == 0
    assert (rows["DEC-1"]["status"], rows["DEC-1"]["needs"]) == ("not applicable", "pre-hooks")
    assert rows["TURN-1"]["checked"] > 0
    assert rows["SCHED-1"]["status"] == "exercised", "max_parallel 1: a call waits its turn"
    # Without hooks nor approvals their rules are not applicable, each naming what brings it
    # (the hook audit and the approval gate read "not reached by the generator"); a cancelled
    # reply (max-tokens) can end a turn aborted, so ABORT-3 applies without `abort`.
    # A matcher (HOOK-8) selects the tools a hook runs for: no hook, no matcher to judge.
    for rule in ("HOOK-1", "HOOK-8"):
        assert (rows[rule]["status"], rows[rule]["needs"]) == (
            "not applicable", "pre-hooks or post-hooks"), rule  # fmt: skip
    assert (rows["SCHED-2"]["status"], rows["SCHED-2"]["needs"]) == ("not applicable", "approval")
    assert rows["ABORT-3"]["status"] != "not applicable"
    full = run_conformance(ModelTarget, examples=60, seed_value=BATCH_SEED, show_progress=False)
    rows = _statuses(full)
    assert rows["DEC-1"]["status"] == "exercised"
    assert rows["DEC-1"]["generated"] == full.situations["DEC-1"] > 0
    assert rows["SCHED-1"]["status"] == "exercised"
    # With every capability, every rule conform can observe is at least checked: an approval
    # holding the gate (SCHED-2), an abort's cause (ABORT-3), a matcher (HOOK-8), a PostToolUse
    # audit (HOOK-5) all read "not reached by the generator" while their comparisons ran.
    unreached = [
        rule for rule, row in rows.items() if row["status"] == "not reached by the generator"
    ]
    assert unreached == []
    for rule in ("SCHED-2", "ABORT-3", "HOOK-8", "HOOK-5"):
        assert rows[rule]["checked"] > 0, rule


def test_HIST_1_the_rule_table_never_reads_exercised_for_what_the_protocol_does_not_carry(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """HIST-1, RW-1: what a target sends its model is carried by no protocol message, so a
    loop whose history dropped a blank reply passed conform at every seed while the table read
    "HIST-1 exercised x2202". Its row says it is not observable and what conform does not see,
    in the text and the JSON report, however many of its events were compared; a rule observed
    only in part (RW-1's history reader) keeps its status and names the part it does not see."""
    report = attrs.evolve(
        _failed_report(),
        capabilities=frozenset({"pre-hooks", "rewrite"}),
        situations={"HIST-1": 2202, "RW-1": 3},
        rules={"HIST-1": 2202, "RW-1": 5},
    )
    rows = _statuses(report)
    assert rows["HIST-1"]["status"] != "exercised"
    assert rows["HIST-1"]["status"].startswith("not observable")
    assert (rows["HIST-1"]["generated"], rows["HIST-1"]["checked"]) == (0, 0)
    assert "sends its model" in rows["HIST-1"]["unobservable"]
    assert rows["RW-1"]["status"] == "exercised"
    assert "sends its model" in rows["RW-1"]["unobservable"]
    document = conform_run.json_report(report, None, {"impl": "mine:make"})
    assert [row for row in document["rules"] if row["rule"] == "HIST-1"] == [rows["HIST-1"]]
    conform_run._text_report(report, None, {"impl": "mine:make"})
    shown = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(shown) if line.startswith("  HIST-1 "))
    assert "exercised" not in shown[at]
    assert shown[at + 1].split() == [
        "not", "seen", "through", "the", "protocol:", *rows["HIST-1"]["unobservable"].split()
    ]  # fmt: skip


def test_EXE_1_duplicate_ids_count_only_when_a_reply_repeats_an_id() -> None:
    """EXE-1: the situation is a reply whose calls repeat an id, however many replies ran."""
    target = ModelTarget()
    target.reset(CONFIGS[0])
    situations = Situations()
    calls = (ToolCallBlock("c1", "read", "{}"), ToolCallBlock("c2", "read", "{}"))
    for command in (SubmitUser("hi"), ModelReplies(calls)):
        before = target.state
        assert before is not None
        seen = situations.feed(command, before, target.state, target.apply(command))
        assert "EXE-1" not in seen
    target.reset(CONFIGS[0])
    target.apply(SubmitUser("hi"))
    twice = ModelReplies((calls[0], calls[0]))
    before = target.state
    assert before is not None
    seen = situations.feed(twice, before, target.state, target.apply(twice))
    assert seen.count("EXE-1") == 2  # the reply repeats an id, and the model refuses it


def test_DEC_1_a_call_reusing_a_denied_call_s_id_creates_no_denial() -> None:
    """DEC-1: a reply may reuse the id of an earlier reply's call (EXE-1: unique within one
    reply), as random programs now do; the earlier call's denial is not the later call's, whose
    result counted as a denied call's (DEC-1 exercised) though it ran."""
    target, situations = ModelTarget(), Situations()
    target.reset(CONFIGS[1])  # two PreToolUse hooks on bash
    bash = ModelReplies((ToolCallBlock("c1", "bash", '{"command":"ls"}'),))
    program = (
        SubmitUser("hi"),
        bash,
        HookAnswers(Deny("no")),
        HookAnswers(Pass()),
        bash,
        HookAnswers(Pass()),
        HookAnswers(Pass()),
        ToolFinishes("c1", ToolSucceeded("A")),
    )
    seen: list[list[str]] = []
    for command in program:
        before = target.state
        assert before is not None
        observed = target.apply(command)
        assert observed.accepted, command
        seen.append(situations.feed(command, before, target.state, observed))
    assert "DEC-1" in seen[3]  # the denied call's result commits with its reply
    assert "DEC-1" not in seen[-1]


def test_ABORT_3_only_an_abort_whose_cause_is_not_the_users_exercises_it() -> None:
    """ABORT-3: a loop that records every abort as the user's keeps a user abort right, so only
    another cause creates the rule's situation. Every aborted turn counted, and ABORT-3 read
    'exercised' while conform sent nothing but user aborts."""

    def seen_at(abort: Abort) -> list[str]:
        target, situations = ModelTarget(), Situations()
        target.reset(CONFIGS[0])
        seen: list[str] = []
        for command in (SubmitUser("hi"), abort):
            before = target.state
            assert before is not None
            seen += situations.feed(command, before, target.state, target.apply(command))
        return seen

    assert "ABORT-3" not in seen_at(Abort("user"))
    for cause in ("parent", "hook", "disposed"):
        assert "ABORT-3" in seen_at(Abort(cause)), cause


def test_ADJ_4_an_empty_context_exercises_ADJ_4_and_not_ADJ_1() -> None:
    """ADJ-1, ADJ-4: an empty context ("", a body's or a hook's) queues nothing, so a result
    that carries only empty ones creates no ADJ-1 situation; it is ADJ-4's, which says an empty
    context is no context (a loop delivering it breaks ADJ-4). A blank one is both rules'."""
    config = LoopConfig(
        tools=(ToolSpec("read", concurrency_safe=True),),
        hooks=(HookSpec("quiet", "PostToolUse", "read"),),
    )
    read = ModelReplies((ToolCallBlock("c1", "read", "{}"),))

    def seen_at_finish(finish: ToolFinishes) -> list[str]:
        target, situations = ModelTarget(), Situations()
        target.reset(config)
        seen: list[str] = []
        for command in (SubmitUser("hi"), read, finish):
            before = target.state
            assert before is not None
            seen = situations.feed(command, before, target.state, target.apply(command))
        return seen

    empty = seen_at_finish(
        ToolFinishes("c1", ToolSucceeded("A", contexts=("",)), (PostContext(""),))
    )
    assert "ADJ-1" not in empty
    assert empty.count("ADJ-4") == 1
    blank = seen_at_finish(ToolFinishes("c1", ToolSucceeded("A", contexts=(" ",)), (PostPass(),)))
    assert "ADJ-1" in blank
    assert "ADJ-4" in blank


def test_MODEL_1_ABORT_3_HOOK_4_each_blame_matrix_and_mutant_program_creates_its_situation() -> (
    None
):
    """MODEL-1: each program of the blame matrix shows a wrong loop breaking its rule, so it
    creates that rule's situation, which `replay` asks (`program_exercises`) before refusing a
    case holding a refused command as no valid program, and before saying a pass shows the
    recorded rule kept. Ten did not (session 33): a reply waiting for its hooks (RW-3), a whole
    batch denied (DEC-1), two denials merged (HOOK-2), an abort of a call awaiting approval
    (ABORT-3), an ask held at the gate (SCHED-2), a matcher not matching a call (HOOK-8), a
    reply repeating a call id (EXE-1, refused for it), a call refused for its rewrite (DEC-1),
    and a reply whose hook has not answered (HOOK-4, a mutant's); such a case, its loop fixed,
    was refused as cut by hand. Nor did a user's abort, where a loop forgetting the cause breaks
    ABORT-3 (conform's coverage still does not count it: test_ABORT_3_only_an_abort_whose_...),
    nor a call with invalid input that a matching hook must not answer (HOOK-4, the
    hooks-run-twice mutant's case as conform cut it down)."""
    missed = [
        case.name
        for case in FIRST_USER + FAMILIES
        if not program_exercises(case.broken, case.config, case.program, presenting=True)
    ]
    assert missed == []
    # Conform's case of a loop running each PreToolUse hook twice (tests/mutants.py,
    # hooks-run-twice, cut down): the reply alone, its hook not yet answered.
    guarded = LoopConfig(tools=(ToolSpec("read"),), hooks=(HookSpec("guard"),))
    waiting = (SubmitUser("hi"), ModelReplies((ToolCallBlock("c1", "read", "{}"),)))
    assert program_exercises("HOOK-4", guarded, waiting, presenting=True)
    # ... and as the draws of session 34 cut it down: a write missing its content, which the
    # hook matching it must not answer.
    writes = LoopConfig(
        tools=(ToolSpec("write", required_keys=("file_path", "content")),),
        hooks=(HookSpec("guard", matcher="bash|write"),),
    )
    invalid = (SubmitUser(""), ModelReplies((ToolCallBlock("c1", "write", '{"file_path":""}'),)))
    assert program_exercises("HOOK-4", writes, invalid, presenting=True)


def test_SCHED_1_ORD_3_STEP_4_a_case_of_a_tutorial_loop_missing_a_line_sets_up_its_rule() -> None:
    """SCHED-1, ORD-3, STEP-4: the tutorial's loop with one line deleted (its calls never
    started, never marked ready, or never recorded, so it ends the step at once) saved these
    cases; the loop fixed, replay said each program no longer set up its rule, as if cut by
    hand, where the tutorial promises "passes now". Conform's coverage still counts only the
    rules' narrower situations (two bodies overlapping, a result held back)."""
    config = LoopConfig(
        tools=(ToolSpec("read", concurrency_safe=True, required_keys=("file_path",)),)
    )
    reply = (SubmitUser(""), ModelReplies((ToolCallBlock("c1", "read", '{"file_path":""}'),)))
    finished = (*reply, ToolFinishes("c1", ToolSucceeded("")))
    for rule, program in (("SCHED-1", reply), ("STEP-4", reply), ("ORD-3", finished)):
        assert program_exercises(rule, config, program, presenting=False), rule
    model, situations = ModelTarget(), Situations()
    model.reset(config)
    created = []
    for command in finished:
        before = model.state
        assert before is not None
        observed = model.apply(command)
        created += situations.feed(command, before, model.state, observed)
    assert {"SCHED-1", "ORD-3"}.isdisjoint(created)


def _fresh_bug_rows() -> dict[str, tuple[LoopConfig, tuple[Command, ...], str]]:
    """Every fresh bug of the blame rounds (tests/test_blame_fresh_bugs*.py): its name, and the
    configuration, program and rule a wrong loop broke with it."""
    rows = {}
    for path in sorted(Path(__file__).parent.glob("test_blame_fresh_bugs*.py")):
        for value in vars(importlib.import_module(path.stem)).values():
            for row in value if isinstance(value, list) else [value]:
                if isinstance(row, tuple) and len(row) == 5 and isinstance(row[2], LoopConfig):
                    rows[f"{path.stem}: {row[0]}"] = (row[2], row[3], row[4])
    return rows


def test_DEC_1_HOOK_3_HOOK_6_ORD_3_each_fresh_bug_program_creates_its_rules_situation() -> None:
    """DEC-1, HOOK-3, HOOK-6, HOOK-8, ORD-3, ACP-2, STEP-4: each program a wrong loop of the
    blame rounds broke a rule with creates that rule's situation (122 of them). Ten did not: a
    deny audited "block" or "error" (DEC-1, its audit's word taken for the decision), an
    unacceptable input a later hook replaced (HOOK-6), an ask or a pass beside an allow's input
    (HOOK-3), a result committed while later calls run (ORD-3), an empty matcher (HOOK-8), a
    shell call's card (ACP-2), a completed reply's reasoning (STEP-4)."""
    rows = _fresh_bug_rows()
    assert len(rows) >= 120
    missed = [
        (name, rule)
        for name, (config, program, rule) in rows.items()
        if not program_exercises(rule, config, program, presenting=True)
    ]
    assert missed == []


def test_EXE_2_HOOK_7_VIEW_2_SCHED_2_each_targeted_program_creates_its_rules_situations() -> None:
    """EXE-1, EXE-2, EXE-5, HOOK-2, HOOK-3, HOOK-4, HOOK-6, HOOK-7, HOOK-8, VIEW-2, SCHED-2,
    ABORT-3, MODEL-3: each targeted program conform plays after the random search, driven to
    its quiet end as conform plays it, creates the situation of every rule it names. Fifteen
    did not (sessions 33 and 34): a call id reused by a later reply (EXE-1), arguments without
    a lossless value or a required key given null or "" (EXE-2, EXE-5), a cancelled reply of
    no-break spaces (EXE-2), an empty matcher (HOOK-8), a hook failing open or closed (HOOK-7,
    HOOK-2), a tool spelt in capitals or fullwidth letters (VIEW-2, HOOK-4), the user typing
    while an approval waits (SCHED-2), a verdict too many refused (MODEL-3), a rewrite giving a
    key null (HOOK-3, HOOK-6) and a second abort of another cause (ABORT-3): a case of one,
    its loop fixed, was refused by replay as no valid program, or said to no longer set up its
    rule."""
    missed = [
        (situation.name, rule)
        for situation in SITUATIONS
        for rule in situation.rules
        if not program_exercises(
            rule, situation.config, settled_program(situation), presenting=True
        )
    ]
    assert missed == []


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_examples_counts_programs_and_shrinking_apart() -> None:
    """MODEL-1: `examples=N` on a conformant target is N complete programs; a failing run
    reports the programs before the divergence, and shrinking apart."""
    report = run_conformance(ModelTarget, examples=25, seed_value=BATCH_SEED, show_progress=False)
    assert report.conformant
    assert (report.examples, report.shrink_runs) == (25, 0)
    failing, _ = _turn_5_search()
    assert failing.divergence is not None
    assert 1 <= failing.examples <= TURN_5_SEARCH["examples"]
    assert failing.shrink_runs > 0


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_conform_json_is_versioned_and_carries_the_shrunk_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """MODEL-1: `conform --format json` names its format and version, and a counterexample
    carries the configuration, the shrunk program in the driver protocol's JSON, and the
    replay command."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    _search_as_turn_5_search(monkeypatch)
    argv = ["conform", "--impl", "test_conform_report:turn_end_reason_as_text", "--examples",
            "20", "--format", "json", "--case-dir", str(tmp_path)]  # fmt: skip
    assert main(argv) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "loopspec-conform/1"
    divergence = document["divergence"]
    assert divergence["rule"] == "TURN-5"
    assert divergence["program"][0]["kind"] == "SubmitUser"
    assert "TURN-5" in divergence["specText"]
    assert divergence["replay"].startswith("loopspec replay ")
    assert Path(divergence["case"]).is_file()
    assert "$json" not in json.dumps(document)


def test_PROTO_1_conform_json_stays_json_when_a_python_loop_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: what a Python loop prints, loading or in its calls (its debugging output), goes
    to stderr: on stdout it broke `conform --format json`'s document, which a CI job parses."""
    (tmp_path / "printing_loop.py").write_text(
        "from loopspec.properties.conformance.target import ModelTarget\n"
        "print('loading my loop')\n"
        "class PrintingLoop(ModelTarget):\n"
        "    def reset(self, config):\n"
        "        super().reset(config)\n"
        "        return frozenset()  # no presentation: section 12's rows are not played\n"
        "    def apply(self, command):\n"
        "        print('applying', type(command).__name__)\n"
        "        return super().apply(command)\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["conform", "--impl", "printing_loop:PrintingLoop", "--examples", "2"]
    assert main([*argv, "--format", "json", "--case-dir", str(tmp_path)]) == 0
    printed = capsys.readouterr()
    assert json.loads(printed.out)["verdict"] == "CONFORMANT"
    assert printed.err.startswith("loading my loop\napplying "), printed.err


def _text_search(case_dir: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The arguments of the JSON test's search above, for a text report saving in `case_dir`."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    _search_as_turn_5_search(monkeypatch)
    return ["conform", "--impl", "test_conform_report:turn_end_reason_as_text", "--examples",
            "20", "--case-dir", str(case_dir)]  # fmt: skip


# Coverage off: the same search as the JSON test above (same target, examples and seed), so the
# same model arcs; only the report's format differs, and the CLI is outside the measured source.
@pytest.mark.no_cover
def test_MODEL_1_the_text_report_starts_with_the_rule_and_ends_with_it_and_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """MODEL-1: the text report's last line repeats the verdict, the rule and the replay: the
    rule and transition tables after the counterexample push them off a screen (the report
    ended with '12  Idle + SubmitUser -> accepted'). Its first line names the rule too, as the
    pytest plugin's does: it said `...: COUNTEREXAMPLE` alone, the rule some 30 lines below."""
    argv = _text_search(tmp_path, monkeypatch)
    assert main(argv) == 1
    (case,) = tmp_path.iterdir()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "loopspec conform: changed model: COUNTEREXAMPLE: TURN-5 (loopspec spec TURN-5)"
    )
    assert lines[-1] == (
        f"COUNTEREXAMPLE: TURN-5 (loopspec spec TURN-5); rerun: loopspec replay "
        f"{shlex.quote(str(case))} "
        "--impl test_conform_report:turn_end_reason_as_text"
    )


# Coverage off: the same search as the two tests above.
@pytest.mark.no_cover
def test_PROTO_1_a_counterexample_found_again_says_its_case_was_already_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: the same bug found again (a CI job's next run, or the run after `replay` of the
    committed case) keeps the one file, and says so: it printed `saved case:` for the file an
    earlier run had written, read as a new case to upload."""
    argv = _text_search(tmp_path, monkeypatch)
    assert main(argv) == 1
    (case,) = tmp_path.iterdir()
    assert f"\nsaved case: {case}\n" in capsys.readouterr().out
    assert main(argv) == 1
    assert list(tmp_path.iterdir()) == [case]
    again = capsys.readouterr().out
    assert f"\ncase already saved: {case} (an earlier run found the same case)\n" in again
    assert "saved case:" not in again


# Coverage off: the same search as the tests above.
@pytest.mark.no_cover
def test_PROTO_1_a_case_an_earlier_release_saved_is_the_same_case_when_program_and_rule_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: the folder's case as an earlier release wrote it (another release named, no
    summary, other words for `what`, other spacing) holds the same program, rule and target:
    it is `case already saved`, where a copy was saved on every run. Another program breaking
    the same rule is a case of its own."""
    argv = _text_search(tmp_path, monkeypatch)
    assert main(argv) == 1
    (case,) = tmp_path.iterdir()
    capsys.readouterr()
    document = json.loads(case.read_text(encoding="utf-8"))
    del document["summary"]
    earlier = {
        **document,
        "loopspecVersion": "0.0.1",
        "what": "the turn ended with a reason in words",
    }
    case.write_text(json.dumps(earlier, indent=1), encoding="utf-8")
    assert main(argv) == 1
    assert list(tmp_path.iterdir()) == [case]
    said = f"\ncase already saved: {case} (an earlier run found the same case)\n"
    assert said in capsys.readouterr().out
    # --format json says so too (it said only the path, the same whether written or found).
    assert main([*argv, "--format", "json"]) == 1
    divergence = json.loads(capsys.readouterr().out)["divergence"]
    assert (divergence["case"], divergence["caseAlreadySaved"]) == (str(case), True)
    # One command more: another program, so the run's own case is saved beside it.
    longer = {**earlier, "commands": [*earlier["commands"], earlier["commands"][0]]}
    case.write_text(json.dumps(longer, indent=1), encoding="utf-8")
    assert main(argv) == 1
    assert len(list(tmp_path.iterdir())) == 2
    assert "\nsaved case: " in capsys.readouterr().out
    (tmp_path / "case-TURN-5-1.json").unlink()
    assert main([*argv, "--format", "json"]) == 1
    divergence = json.loads(capsys.readouterr().out)["divergence"]
    assert (divergence["case"], divergence["caseAlreadySaved"]) == (
        str(tmp_path / "case-TURN-5-1.json"),
        False,
    )


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_a_conformant_text_report_ends_with_the_verdict_and_the_rule_tally(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """MODEL-1: a passing report's last line repeats the verdict, the programs run and how many
    rules hold each status (it ended with the transition table, the verdict a screen above)."""
    assert main(["conform", "--examples", "5", "--seed", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # The bundled loop presents: section 12's examples are played before the programs, the
    # targeted programs of rare situations after them.
    examples = len(CALL_EXAMPLES) + len(RESULT_EXAMPLES)
    prefix = (
        f"CONFORMANT: no divergence in {examples} presentation examples and 5 programs and "
        f"{len(SITUATIONS)} targeted programs of rare situations; rules: "
    )
    assert lines[-1].startswith(prefix)
    # The header says what both counts count ("checked xM" was explained nowhere in the text),
    # and whose commands: the targeted programs' too (they were counted in no table).
    start = lines.index(
        "rules (exercised xN: the random and targeted programs, and for the ACP and VIEW rules "
        "section 12's examples, created the situation the rule governs N times; checked xM: M "
        "comparisons covered the events it speaks about):"
    )
    below = lines.index("transitions exercised by the random and targeted programs:")
    lines_below = lines[start + 1 : below - 1]
    # A row's further lines, indented under its status, name what no program reaches and what
    # the protocol does not carry.
    table = [row for row in lines_below if not row.startswith(" " * 11)]
    notes = [row.split(":")[0].strip() for row in lines_below if row.startswith(" " * 11)]
    # The bundled loop reports its history: HIST-1, and RW-1's history reader
    # (`UNOBSERVED_PARTS`), are seen through the protocol.
    assert set(UNOBSERVED_PARTS) == {"RW-1"}
    assert Counter(notes) == {
        "but not reached by any program": len(UNREACHABLE_PARTS),
        "not seen through the protocol": len(set(NOT_OBSERVABLE) - set(OBSERVABLE_WITH)),
    }
    row_status = re.compile(r"  \S+ +(.+?)(?: x\d+)?(?: \(checked x\d+\))?$")
    statuses = Counter(match.group(1) for row in table if (match := row_status.match(row)))
    assert sum(statuses.values()) == len(table) > 0
    tally = lines[-1].removeprefix(prefix).split("; ")
    assert tally == [f"{status} {count}" for status, count in statuses.items()]


def turn_end_reason_as_text() -> ModelTarget:
    """An `--impl` factory: the model, writing turn/end reasons as bare strings (the first
    user's TURN-5 case), not presenting: section 12's examples, played before the search on a
    target that presents, catch it before any program, and these tests read a search's run."""
    return UnpresentedModel(TURN_END_REASON_AS_TEXT)


# The search that finds and shrinks this target's TURN-5 counterexample: about 10 s of CPU, most
# of it shrinking. Four tests read a failing run's report (its counts, its progress line, the
# JSON and the text `conform` prints of it); Hypothesis derandomized gives each the same run, so
# it runs once and they all read it.
TURN_5_SEARCH: dict[str, Any] = {
    "examples": 20,
    "seed_value": None,
    "steps": 40,
    "profile": None,
    "deadline": None,
}


@functools.cache
def _turn_5_search() -> tuple[RunReport, str]:
    """The TURN-5 target's failing run, with the progress it drew on a person's terminal: not a
    CI's (`CI` set, as `CI=true .ci/run` sets it, prints whole lines instead) nor a dumb one."""
    terminal = _Terminal()
    drawn_on, sys.stderr = sys.stderr, terminal
    try:
        with unittest.mock.patch.dict(os.environ, {"CI": "", "TERM": "xterm"}):
            report = run_conformance(turn_end_reason_as_text, show_progress=True, **TURN_5_SEARCH)
    finally:
        sys.stderr = drawn_on
    return report, terminal.getvalue()


def _search_as_turn_5_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """`conform` gets the shared run's report, after checking it asked for that search."""
    report, _ = _turn_5_search()

    def search(factory: TargetFactory, *, show_progress: bool, **options: Any) -> RunReport:
        assert options == TURN_5_SEARCH
        assert type(factory()) is type(turn_end_reason_as_text())
        return report

    monkeypatch.setattr(conform_run, "run_conformance", search)


def test_MODEL_1_integral_numbers_show_no_diff() -> None:
    """MODEL-1: `durationMs: 0` and `0.0` compare equal and show equal: the only hunk of the
    diff is the real difference, and arguments show as JSON, never wrapped."""

    def integral_durations(command: Command, observed: Observation) -> Observation:
        def change(event: dict[str, Any]) -> dict[str, Any]:
            if event["type"] == "hook/result":
                event["data"]["durationMs"] = int(event["data"]["durationMs"])
            return event

        return _events(change)(command, observed)

    def and_another_model(command: Command, observed: Observation) -> Observation:
        def change(event: dict[str, Any]) -> dict[str, Any]:
            if event["type"] == "assistant/message":
                event["data"]["message"]["source"]["model"] = "other"
            return event

        return _events(change)(command, integral_durations(command, observed))

    call = ToolCallBlock("c1", "bash", '{"command":"ls"}')
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((call,)),
        HookAnswers(Pass()),
        HookAnswers(Pass()),
    ]
    clean = replay_case(lambda: ChangedModel(integral_durations), CONFIGS[1], program)
    assert clean.divergence is None
    replay = replay_case(lambda: ChangedModel(and_another_model), CONFIGS[1], program)
    assert replay.divergence is not None
    diff = replay.divergence.diff()
    assert diff.count("@@") == 2, diff  # one hunk
    assert "durationMs" not in diff
    assert '+      "model": "other",' in diff
    assert "$json" not in json.dumps(displayed_observation(replay.divergence.actual))


class _Terminal(io.StringIO):
    """A captured stderr that says it is a terminal, so progress is drawn."""

    def isatty(self) -> bool:
        return True


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_progress_never_counts_past_the_budget() -> None:
    """MODEL-1: the progress line counts complete programs out of `examples`, never more;
    abandoned programs, shrinking runs and the replays cutting the program down are shown
    apart."""
    _, drawn = _turn_5_search()
    budget = TURN_5_SEARCH["examples"]
    shown = [(int(done), int(of)) for done, of in
             re.findall(r"\r  (\d+)/(\d+) programs", drawn)]  # fmt: skip
    assert shown
    assert all(of == budget and done <= budget for done, of in shown)
    assert "shrinking the counterexample" in drawn
    assert re.search(r"cutting it down: \d+ replays", drawn)


def _failed_report() -> RunReport:
    """A counterexample report without a search: the first user's TURN-5 case, replayed."""
    case = FIRST_USER[0]
    replay = replay_case(case.target, case.config, list(case.program))
    assert replay.divergence is not None
    return RunReport("turn-end reason as text", frozenset(), 1, len(case.program), 0.0,
                     replay.divergence, case.program, case.config, {}, {})  # fmt: skip


def test_PROTO_1_a_bundled_case_in_its_earlier_target_form_is_already_saved(
    tmp_path: Path,
) -> None:
    """PROTO-1: a case an earlier conform saved on the bundled loop recorded its target as
    `{"impl": BUNDLED_IMPL}`, read as today's `{}`: the same case, not a second copy."""
    report = _failed_report()
    first = write_case_file(report, tmp_path, {})
    document = json.loads(first.read_text(encoding="utf-8"))
    document["target"] = {"impl": BUNDLED_IMPL}
    first.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    assert write_case_file(report, tmp_path, {}) == first
    assert list(tmp_path.iterdir()) == [first]


def test_PROTO_1_a_new_case_never_overwrites_a_saved_one(tmp_path: Path) -> None:
    """PROTO-1: a saved case may already be attached to a bug report: after the user deletes
    one of its neighbours, the next case of the same rule gets a new name, not the old one's."""
    report = _failed_report()
    first = write_case_file(report, tmp_path, {"impl": "mine:make"})
    # Another document: the same one again names the file that holds it (test_case_sharing).
    second = write_case_file(report, tmp_path, {"impl": "mine:make_again"})
    kept = second.read_bytes()
    first.unlink()  # one file left, named ...-1: a count-based name would be ...-1 again
    third = write_case_file(report, tmp_path, {"impl": "other:make"})
    assert len({first.name, second.name, third.name}) == 3
    assert second.read_bytes() == kept
    assert json.loads(third.read_text(encoding="utf-8"))["target"] == {"impl": "other:make"}


@pytest.mark.parametrize("stop", ["full disk", "Ctrl-C", "SIGTERM"])
def test_PROTO_1_a_case_file_cut_off_while_written_is_not_left_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop: str
) -> None:
    """PROTO-1: a case file whose writing a full disk, Ctrl-C or SIGTERM (which ends the run by
    `os._exit`, removing what `remove_unfilled` names first) cuts off is removed: an empty or cut
    file was left behind, which replay read as broken JSON, or a CI step kept as a case."""
    from loopspec.properties.unfilled_files import remove_unfilled  # noqa: PLC0415

    report = _failed_report()
    write = os.write
    written: list[int] = []
    left_at_sigterm: list[Path] = []

    def cut_after_the_first_write(descriptor: int, data: Any) -> int:
        if written:
            if stop == "SIGTERM":  # what main's SIGTERM handler does before os._exit
                remove_unfilled()
                left_at_sigterm.extend(tmp_path.iterdir())
                raise SystemExit(143)
            raise KeyboardInterrupt if stop == "Ctrl-C" else OSError(28, "No space left on device")
        written.append(write(descriptor, bytes(data[:100])))
        return written[-1]

    monkeypatch.setattr(os, "write", cut_after_the_first_write)
    with pytest.raises((OSError, KeyboardInterrupt, SystemExit)):
        write_case_file(report, tmp_path, {"impl": "mine:make"})
    monkeypatch.undo()
    assert written == [100]
    assert list(tmp_path.iterdir()) == left_at_sigterm == []
    # Written whole, the same case is kept.
    saved = write_case_file(report, tmp_path, {"impl": "mine:make"})
    assert json.loads(saved.read_text(encoding="utf-8"))["target"] == {"impl": "mine:make"}


def test_PROTO_1_conform_refuses_a_case_dir_that_is_a_file_before_searching(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: `--case-dir` naming a file is a usage error found before the search (a
    counterexample found in minutes is never lost to it), and the file is left as it was."""
    mistaken = tmp_path / "notes.txt"
    mistaken.write_text("mine\n", encoding="utf-8")
    assert main(["conform", "--case-dir", str(mistaken), "--examples", "1"]) == 2
    shown = capsys.readouterr()
    assert shown.out == ""
    assert f"--case-dir {mistaken}: exists and is not a directory" in shown.err
    assert mistaken.read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize(
    ("link_to", "said"),
    [("loop", "too many levels of symbolic links"), ("gone/folder", "a symbolic link to nothing")],
)
def test_PROTO_1_conform_refuses_a_case_dir_that_is_a_broken_link_before_searching(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], link_to: str, said: str
) -> None:
    """PROTO-1: a `--case-dir` that is a link loop or a link to nothing cannot be made into a
    folder; it was found only after the search, which ended 'the case was not saved in DIR:
    file exists'."""
    link = tmp_path / "loop"
    link.symlink_to(tmp_path / link_to)
    assert main(["conform", "--case-dir", str(link), "--examples", "1"]) == 2
    shown = capsys.readouterr()
    assert shown.out == ""
    assert f"--case-dir {link}: {said}" in shown.err


def test_PROTO_1_conform_refuses_a_case_dir_it_cannot_write_before_searching(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: a `--case-dir` that cannot be written (a read-only checkout, a folder of another
    user), or created below a file, is a usage error found before the search. It was found
    after it: the run ended 'the case was not saved in DIR: [Errno 13] Permission denied: ...'
    (h3's Frank, as an unprivileged CI user)."""
    locked = tmp_path / "locked"
    locked.mkdir()
    access = os.access

    def refusing(path: Any, mode: int, **kwargs: Any) -> bool:
        return Path(path) != locked and access(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", refusing)  # chmod cannot lock root out
    for case_dir, why in [
        (locked, f"--case-dir {locked}: cannot write in {locked}"),
        (locked / "cases", f"--case-dir {locked / 'cases'}: cannot write in {locked}"),
        (
            tmp_path / "notes.txt" / "cases",
            f"--case-dir {tmp_path / 'notes.txt' / 'cases'}: {tmp_path / 'notes.txt'} is not a "
            "directory",
        ),
    ]:
        (tmp_path / "notes.txt").write_text("mine\n", encoding="utf-8")
        assert main(["conform", "--case-dir", str(case_dir), "--examples", "1"]) == 2
        shown = capsys.readouterr()
        assert shown.out == ""
        assert shown.err == f"loopspec: error: {why}\n", case_dir


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"version": 2}, "$.version is 2; this loopspec reads case files of version 1"),
        ({"version": None}, "$.version is missing; this loopspec reads"),
        ({"commands": None}, "$.commands must be a non-empty list"),
        ({"commands": []}, "$.commands must be a non-empty list"),
        ({"rule": "XYZ-1"}, '$.rule is "XYZ-1", which is no rule of this loopspec\'s SPEC.md'),
        (
            {"profile": "dsh", "divergence": "no-such-thing"},
            '$.divergence is "no-such-thing", which the dsh profile does not list',
        ),
    ],
    ids=[
        "another version",
        "no version",
        "no commands",
        "zero commands",
        "unknown rule",
        "unknown known divergence",
    ],
)
def test_PROTO_1_replay_refuses_a_case_it_cannot_read_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any], complaint: str
) -> None:
    """PROTO-1: a case file of another version, without commands, or recording a rule or known
    divergence this loopspec does not have (replay repeats it beside its verdict) is refused
    with exit 2 naming the file and the field, never replayed as "no divergence"."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    for key, value in change.items():
        if value is None:
            del document[key]
        else:
            document[key] = value
    saved.write_text(json.dumps(document), encoding="utf-8")
    assert main(["replay", str(saved)]) == 2
    shown = capsys.readouterr()
    assert shown.out == ""
    # The case format's own members: no rule of SPEC.md states them, so none is named.
    assert shown.err.startswith(f"loopspec: error: {saved}:1: {complaint}"), shown.err


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_PROTO_1_every_key_of_the_json_report_is_documented_where_help_points(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: `conform --help` says where an installed loopspec documents the
    `loopspec-conform/1` document, and that documentation names every key it carries — a
    counterexample's, a rule row's and a profile's known divergences included. It was
    documented nowhere a CI job could read: the help said only "one versioned document"."""
    with pytest.raises(SystemExit):
        main(["conform", "--help"])
    # argparse wraps lines at spaces and after hyphens: undo both.
    shown = " ".join(re.sub(r"-\n\s+", "-", capsys.readouterr().out).split())
    assert "python -m pydoc loopspec.properties.cli.conform" in shown
    failed = attrs.evolve(_failed_report(), profile=PROFILES["dsh"])
    document = conform_run.json_report(failed, Path("case.json"), {"impl": "mine:make"})
    documented = conform_cli.__doc__ or ""
    keys = {*document, *document["divergence"]}
    keys |= {key for row in document["rules"] for key in row}
    keys |= {key for row in document["knownDivergences"] for key in row}
    # An observation's keys too, a started body's among them (its shape was not said).
    keys |= set(document["divergence"]["actual"])
    ran = displayed_observation(Observation(True, executed=(("c1", "{}"),)))
    assert isinstance(ran, dict)
    keys |= set(ran["executed"][0])
    assert {"profile", "knownDivergences", "divergence", "needs", "callId"} <= keys
    for key in keys:
        assert f'"{key}"' in documented, key
    for row in document["rules"]:
        assert f'"{row["status"]}"' in documented, row["status"]


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize(
    ("version", "written_by", "advice"),
    [
        (2, "9.1", "it was written by a newer loopspec: replay it with loopspec 9.1"),
        # Bob, sent Alice's case, cannot run conform on her loop: the release named can.
        (
            0,
            "0.0.1",
            "it was written by an older loopspec: replay it with loopspec 0.0.1, or run conform "
            "again with this one on the loop it was found on to record the program anew",
        ),
        # The case names the loopspec these tests run: only a hand edit gives it another
        # version, and "replay it with loopspec 0.1.0" named the release already running.
        (
            2,
            "{this}",
            "the case says this release, loopspec {this}, wrote it, and this release writes "
            "version 1: the version was edited; set it back to 1",
        ),
    ],
    ids=["newer", "older", "edited"],
)
def test_PROTO_1_replay_of_a_case_of_another_version_says_what_to_do(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    version: int,
    written_by: str,
    advice: str,
) -> None:
    """PROTO-1: a case file of another format version is refused saying which side is older
    and what to do about it (it named both versions and left the rest to the colleague)."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    document.update(version=version, loopspecVersion=written_by.format(this=loopspec.__version__))
    saved.write_text(json.dumps(document), encoding="utf-8")
    assert main(["replay", str(saved)]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: {saved}:1: $.version is {version}; this loopspec reads case "
        f"files of version 1: {advice.format(this=loopspec.__version__)}\n"
    )


def test_PROTO_1_replay_refuses_a_case_with_a_misspelt_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a case file edited by hand with a field name misspelt (`"txet"` beside the
    `"text"` it meant to change) is refused with exit 2 naming the file, the JSON path and the
    field meant; it was replayed as the unedited program, reading "no divergence"."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    first = document["commands"][0]
    assert first["kind"] == "SubmitUser"
    first["txet"] = "another prompt"
    saved.write_text(json.dumps(document), encoding="utf-8")
    assert main(["replay", str(saved)]) == 2
    shown = capsys.readouterr()
    assert shown.out == ""
    assert shown.err == (
        f"loopspec: error: [PROTO-1] {saved}:1: $.commands[0].txet is not a field here (did you "
        "mean text?); the fields here are kind, text\n"
    )


def test_ORD_3_an_early_result_names_its_call_in_a_whole_sentence() -> None:
    """ORD-3: a result committed before an earlier call's is reported naming that result's call
    (it read "a result commits only once every earlier call's result has", cut short). The
    target's own log breaks ORD-3 at that very result, so that is what is reported, naming the
    call it overtook."""
    (case,) = [c for c in FAMILIES if c.name == "results in completion order"]
    replay = replay_case(case.target, case.config, list(case.program))
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "ORD-3"
    assert replay.divergence.what == (
        "the target's own log breaks ORD-3 at its seq 6: result for c2 (call #2) before any for "
        "c1 (call #1): results commit in the order of the reply's calls"
    )


def test_EXE_4_the_rule_a_wrong_failure_result_quotes_states_the_wording() -> None:
    """EXE-4: a failed body's result without its `Error: ` prefix is blamed on EXE-4, and the
    SPEC.md text the report quotes for EXE-4 says what that result must be (it once only said
    when an outcome is accepted, leaving the reader to guess why EXE-4 was named)."""
    (case,) = [c for c in FAMILIES if c.name == "no Error: prefix on a failed body's result"]
    replay = replay_case(case.target, case.config, list(case.program))
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-4"
    quoted = spec_text("EXE-4")
    assert "a failure is one text block `Error: <message>`" in quoted
    assert "TEXT-1" in quoted


class RefusesBlankPrompts(ModelTarget):
    """The model, except that a blank prompt is refused (as Claude Code does)."""

    def apply(self, command: Command) -> Observation:
        if isinstance(command, SubmitUser) and not command.text.strip():
            return Observation(False, refusal_message="a blank prompt is refused")
        return super().apply(command)


def test_TURN_1_the_rule_a_refused_blank_prompt_quotes_says_it_opens_a_turn() -> None:
    """TURN-1: a loop refusing a blank prompt is blamed on TURN-1, and the SPEC.md text the
    report quotes says a prompt of any text opens a turn (it said only how turns are numbered,
    leaving the reader to guess why TURN-1 was named)."""
    replay = replay_case(RefusesBlankPrompts, CONFIGS[0], [SubmitUser(" ")])
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "TURN-1"
    assert "whatever its text, a blank one too) always opens one" in spec_text("TURN-1")


@pytest.mark.parametrize(
    ("name", "shown"),
    [("seqs start at 1", '+   "seq": 1,'), ("a reply and its tool/call committed apart", "+  1,")],
)
def test_LOG_1_a_divergence_in_seqs_or_commits_alone_shows_them_in_the_diff(
    name: str, shown: str
) -> None:
    """LOG-1: a target whose events differ from the model's only in their seqs (a repair that
    dropped a committed event and reused its seq) or in how they are committed (LOG-8) is shown
    with a diff of those seqs or commits; the diff was empty, since the comparison sets seqs
    aside, and the report read 'seq 2 where 3 was due' above nothing."""
    case = next(case for case in FAMILIES if case.name == name)
    replay = replay_case(case.target, case.config, list(case.program))
    assert replay.divergence is not None
    assert shown in replay.divergence.diff().splitlines()


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_PROTO_1_replay_refuses_a_command_the_target_does_not_declare() -> None:
    """PROTO-1: a case found on a loop with more capabilities (shared by a colleague) is refused
    at the first command this target never declared, naming it and the capability (the command
    was sent anyway, and the divergence it caused blamed a rule for a feature the loop lacks)."""
    rewrite = HookAnswers(Allow(updated_input=freeze({"file_path": "b"})))
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path": "a"}'),)),
        rewrite,
        HookAnswers(Pass()),
    ]
    assert replay_case(ModelTarget, CONFIGS[2], program).divergence is None
    with pytest.raises(TargetError) as refused:
        replay_case(lambda: OnlyConfig(frozenset({"pre-hooks"})), CONFIGS[2], program)
    assert refused.value.message == (
        "command #3 of the case (HookAnswers) needs the capability rewrite, which model does "
        "not declare, so the case cannot be replayed on it (conform sends a loop only commands "
        "it declares)"
    )


def test_PROTO_1_replay_refuses_a_configuration_the_target_does_not_declare() -> None:
    """PROTO-1: a case whose configuration has hooks is refused on a loop that declares no
    hooks, before any command, naming the capabilities (it was replayed, and the first call
    diverged on a hook rule for a feature the loop lacks: outside-user review); conform
    configures such a loop only without them (`hook_capabilities`)."""
    program: list[Command] = [SubmitUser("hi"), ModelReplies((TextBlock("ok"),))]
    plain = OnlyConfig(frozenset())
    assert replay_case(lambda: plain, CONFIGS[0], program).divergence is None
    with pytest.raises(TargetError) as refused:
        replay_case(lambda: OnlyConfig(frozenset()), CONFIGS[1], program)
    assert refused.value.message == (
        "the case's configuration (its hooks) needs the capability pre-hooks, post-hooks, "
        "which model does not declare, so the case cannot be replayed on it (conform "
        "configures a loop only with hooks it declares)"
    )
    assert hook_capabilities(CONFIGS[2]) == ("pre-hooks",)
    assert hook_capabilities(CONFIGS[1]) == ("pre-hooks", "post-hooks")
    assert hook_capabilities(CONFIGS[0]) == ()


# Every kind of command, with the optional capabilities a target must declare to be sent it
# (while a turn is open: a SubmitUser then also needs queued-input).
NEEDS_BY_COMMAND: tuple[tuple[Command, tuple[str, ...]], ...] = (
    (SubmitUser("hi"), ()),
    (ModelReplies((TextBlock("ok"),)), ()),
    (ModelReplies((TextBlock("cut"),), "max-tokens"), ("max-tokens",)),
    (ModelReplies((TextBlock("stop"),), "cancelled"), ("max-tokens",)),
    (ModelFails("overloaded", "OVERLOADED"), ()),
    (HookAnswers(Pass()), ("pre-hooks",)),
    (HookAnswers(Deny("no")), ("pre-hooks",)),
    (HookAnswers(Allow()), ("pre-hooks",)),
    (HookAnswers(Allow(updated_input=freeze({"file_path": "b"}))), ("pre-hooks", "rewrite")),
    (HookAnswers(Ask()), ("pre-hooks", "approval")),
    (
        HookAnswers(Ask(updated_input=freeze({"file_path": "b"}))),
        ("pre-hooks", "rewrite", "approval"),
    ),
    (ApprovalAnswers("allowed-once"), ("approval",)),
    (ToolFinishes("c1", ToolSucceeded("ok")), ()),
    (ToolFinishes("c1", ToolSucceeded("ok", meta=freeze({"k": 1}))), ("result-meta",)),
    (ToolFinishes("c1", ToolFailed("no"), (PostPass(),)), ("post-hooks",)),
    (
        ToolFinishes("c1", ToolSucceeded("ok", meta=freeze({"k": 1})), (PostBlock("no"),)),
        ("result-meta", "post-hooks"),
    ),
    (Abort(), ("abort",)),
    (Crash(), ("crash-repair",)),
    (Recover(), ("crash-repair",)),
)


@pytest.mark.parametrize("idle", [True, False])
def test_PROTO_1_conform_sends_a_command_only_to_a_target_that_declared_what_it_needs(
    idle: bool,
) -> None:
    """PROTO-1: the capabilities the conformance machine requires before sending a command
    (what `replay` checks a case against too), for every kind of command, with each capability
    missing in turn. An ask needs `approval`: a loop that cannot ask would be blamed on DEC-2."""
    machine: Any = conformance_machine(ModelTarget)()  # its members are the class's own
    machine.oracle.reset(CONFIGS[0])
    if not idle:
        machine.oracle.apply(SubmitUser("open a turn"))
    everything = frozenset(CAPABILITIES)
    for command, needs in NEEDS_BY_COMMAND:
        expected = set(needs) | ({"queued-input"} if isinstance(command, SubmitUser) and not idle
                                 else set())  # fmt: skip
        assert set(needed_capabilities(command, idle=idle)) == expected, command
        for capabilities in (everything, frozenset(), *(everything - {c} for c in everything)):
            machine.capabilities = capabilities
            assert machine.supports(command) == (expected <= capabilities), (command, expected)


class AsksHooksLastFirst(ModelTarget):
    """The model, except that it asks a call's PreToolUse hooks in reverse configured order."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        return super().reset(attrs.evolve(config, hooks=config.hooks[::-1]))


def test_HOOK_4_the_rule_hooks_asked_out_of_order_quotes_states_the_order() -> None:
    """HOOK-4: a loop asking each hook once but in the wrong order is blamed on HOOK-4 ('which
    hook runs for which call, in order'), and the SPEC.md text the report quotes states that
    order (it said only 'exactly once per call', which the loop kept); the configuration's
    description in `loopspec schema` names HOOK-4 for the order, not only HOOK-3 (rewrites)."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path": "a"}'),)),
        HookAnswers(Pass()),
    ]
    replay = replay_case(AsksHooksLastFirst, CONFIGS[2], program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "HOOK-4"
    assert "each call's hooks in configured order" in spec_text("HOOK-4")
    assert "HOOK-4" in (LoopConfig.__doc__ or "").split("\n")[0]


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_PROTO_1_replay_says_which_rule_the_case_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: a shared case replayed on a fixed loop, or on the broken one, says which rule the
    run that saved it blamed, so "no divergence" can be read against what the case was about;
    replayed with no target named, it says the bundled implementation ran, not the recorded
    target (a bare "no divergence" read as "fixed")."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "test_conform_report:x"})
    assert main(["replay", str(saved), "--bundled"]) == 0
    assert (
        f"{saved}: 2 commands replayed, no divergence on loopspec's bundled implementation (not "
        "the recorded target); the case recorded TURN-5\n"
    ) in capsys.readouterr().out
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    assert (
        main(["replay", str(saved), "--impl", "test_conform_report:turn_end_reason_as_text"]) == 1
    )
    shown = capsys.readouterr().out
    assert f"{saved}: diverges; the case recorded TURN-5\n" in shown
    assert "  rule TURN-5: " in shown


def test_PROTO_1_replay_names_the_known_divergence_a_profile_case_recorded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: a profile's case (tests/regressions/) records a known divergence and the rules
    it touches rather than one rule; replay shows those next to its verdict."""
    case = Path(__file__).parent / "regressions" / "dsh-duplicate-call-ids.json"
    assert main(["replay", str(case), "--bundled"]) == 0
    out = capsys.readouterr().out
    assert (
        "no divergence on loopspec's bundled implementation (not the recorded target); the case "
        "recorded the known divergence duplicate-call-ids (EXE-1"
    ) in out
    # A divergence named by its one rule's ID is named once (it read "RW-1 (RW-1)").
    case = Path(__file__).parent / "regressions" / "claude-code-RW-1.json"
    assert main(["replay", str(case), "--bundled"]) == 0
    out = capsys.readouterr().out
    assert "; the case recorded the known divergence RW-1\n" in out


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_PROTO_1_a_case_that_cannot_be_saved_still_prints_its_counterexample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: when the case cannot be written after the search (the folder was fine when the
    run began: a full disk, a folder made read-only meanwhile), the counterexample a long search
    found is still printed in full, the exit stays 1, and stderr says why no case file was
    written."""
    report = _failed_report()  # the search is replaced by its result
    monkeypatch.setattr(conform_run, "run_conformance", lambda *args, **kwargs: report)
    cases = tmp_path / "cases"

    def disk_full(*args: Any) -> Path:
        raise OSError(28, "No space left on device", str(cases))

    monkeypatch.setattr(conform_run, "_save_case_document", disk_full)
    assert main(["conform", "--case-dir", str(cases)]) == 1
    shown = capsys.readouterr()
    # The configuration first: it names the hooks and tools the program's words name.
    assert report.config is not None
    configuration = f"configuration: {json.dumps(config_to_json(report.config))}\n"
    # The program's own length: the counts line above totals every program's commands.
    length = f"{len(report.program)} commands"
    listing = f"shrunk command program, {length} (each in words, then as driver protocol JSON):\n"
    assert configuration + listing in shown.out
    assert '  #1 the user sends "hi"\n     {"kind": "SubmitUser", "text": "hi"}\n' in shown.out
    assert "rule TURN-5: " in shown.out
    assert "saved case:" not in shown.out
    # The system's reason alone, not Python's "[Errno 28] ...: 'path'" (h3's Frank).
    unsaved = f"loopspec: error: the case was not saved in {cases}: no space left on device"
    assert shown.err == unsaved + "\n"


def test_MODEL_1_the_rate_is_shown_only_when_the_time_is_the_programs_own() -> None:
    """MODEL-1: commands/s divides the commands of the programs by the time; once shrinking ran
    (its commands are not counted, its time is) no rate is shown rather than a wrong one."""
    report = _failed_report()
    assert "commands/s" not in counts_line(attrs.evolve(report, seconds=2.0, shrink_runs=5))
    plain = counts_line(attrs.evolve(report, seconds=2.0, shrink_runs=0))
    assert plain == "1 program, 2 commands in all, 2.0 s (1.00 commands/s)"
    one = counts_line(attrs.evolve(report, steps=1, seconds=1.0, shrink_runs=0))
    assert one == "1 program, 1 command in all, 1.0 s (1.00 commands/s)"  # it read "1 commands"


def test_MODEL_1_a_counterexamples_counts_and_its_program_length_are_told_apart() -> None:
    """MODEL-1: the counts line totals the commands of every program run; next to a 2-command
    counterexample it read "2 programs (...), 12 commands", which a reader took for the
    counterexample's length. It says "in all", and the program's header says its own length."""
    report = _failed_report()
    many = attrs.evolve(report, examples=2, steps=12, seconds=3.9, shrink_runs=14)
    line = counts_line(many)
    besides = "(besides: 14 runs shrinking the counterexample)"
    assert line == f"2 programs {besides}, 12 commands in all, 3.9 s"
    listing = conform_run.counterexample_lines(many, None, {"impl": "mine:make"})
    header = next(text for text in listing if text.startswith("shrunk command program"))
    assert header.startswith(f"shrunk command program, {len(report.program)} commands (")


def test_MODEL_1_a_diff_shows_each_started_body_as_the_driver_protocol_reports_it() -> None:
    """MODEL-1, EXE-3: a diff of `executed` shows `{callId, arguments}` objects, the driver
    protocol's and the docs' shape, not the `[id, args]` pairs the comparison holds (a reader
    of a report looked for `callId` and found a bare list)."""
    report = _failed_report()
    assert report.divergence is not None
    ran = Observation(True, events=(), executed=(("c1", '{"file_path":"a"}'),))
    divergence = attrs.evolve(
        report.divergence, expected=attrs.evolve(ran, executed=()), actual=ran
    )
    diff = divergence.diff()
    body = '+  {\n+   "arguments": {\n+    "file_path": "a"\n+   },\n+   "callId": "c1"\n+  }'
    assert body in diff, diff
    shown = conform_run.observations_json(divergence)["actual"]  # the JSON documents' too
    assert isinstance(shown, dict)
    assert shown["executed"] == [{"callId": "c1", "arguments": {"file_path": "a"}}]


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_a_rule_exercised_is_a_rule_checked_at_least_as_often() -> None:
    """MODEL-1: a situation a program creates is in the observation compared next, so no rule
    reads "exercised xN (checked xM)" with M < N (LOG-4 read x1633 against x491: two tables of
    the rules an event speaks to had drifted apart)."""
    report = run_conformance(ModelTarget, examples=20, seed_value=BATCH_SEED, show_progress=False)
    rows = _statuses(report)
    assert rows["LOG-4"]["status"] == "exercised"
    # Every message has a source, and conform blames a wrong one on TEXT-2: it is exercised
    # (it read "not reached by the generator" while no event's comparison counted it).
    assert rows["TEXT-2"]["status"] == "exercised"
    fewer = {rule: row for rule, row in rows.items() if row["checked"] < row["generated"]}
    assert fewer == {}


def test_MODEL_1_an_event_checks_every_rule_whose_situation_it_creates() -> None:
    """MODEL-1: the table of the rules an event's comparison checks covers the table of the
    rules whose situation the event creates, for every event type."""
    for kind, created in SITUATIONS_BY_EVENT.items():
        assert set(created) <= set(RULES_BY_EVENT[kind]), kind


def test_MODEL_1_a_command_counts_the_rules_its_own_observation_checks() -> None:
    """MODEL-1: what a command checked is worked out once per kind of observation and counted
    for every command so observed; two observations alike but for the point of a hook audit,
    or for a body having run, still count their own rules (HOOK-4 for a PreToolUse audit,
    HOOK-5 for a PostToolUse one; the execution rules only where a body ran)."""

    def counted(point: str, executed: tuple[tuple[str, str], ...]) -> Counter[str]:
        machine.RULE_HITS.clear()
        audit = {"type": "hook/invoked", "data": {"point": point}}
        expected = Observation(True, events=(audit,), executed=executed)
        finished = ToolFinishes("c1", ToolSucceeded("ok"))
        machine._count_coverage("Dispatching", finished, expected, [])
        machine.count_observed()
        return Counter(machine.RULE_HITS)

    ran = (("c1", "{}"),)
    for _ in range(2):  # worked out, then reused
        pre, post, pre_ran = (
            counted("PreToolUse", ()),
            counted("PostToolUse", ()),
            counted("PreToolUse", ran),
        )
        assert (pre["HOOK-4"], pre["HOOK-5"]) == (1, 0)
        assert (post["HOOK-4"], post["HOOK-5"]) == (0, 1)
        assert pre["EXE-3"] == 0
        assert pre_ran - pre == Counter(("EXE-3", "SCHED-1", "EXE-4"))
    machine.RULE_HITS.clear()


class _RefusesEveryPrompt(ModelTarget):
    """The model, except that it refuses every prompt: the first command diverges."""

    def apply(self, command: Command) -> Observation:
        if isinstance(command, SubmitUser):
            return Observation(False, refusal_rule="TURN-1", refusal_message="refused")
        return super().apply(command)


def test_MODEL_1_the_counterexample_hypothesis_shows_notes_what_was_sent() -> None:
    """MODEL-1: run as a Hypothesis test, the failing program's last run notes the target's
    capabilities and every command it sent (the notes are made in that run only)."""
    budget = settings(max_examples=5, database=None, deadline=None, derandomize=True)
    with pytest.raises(DivergenceFound) as failed:
        run_state_machine_as_test(conformance_machine(_RefusesEveryPrompt), settings=budget)
    notes = getattr(failed.value, "__notes__", [])
    assert any(line.startswith("target model declares [") for line in notes), notes
    assert any(line.startswith("#1 SubmitUser(") for line in notes), notes


class ShoutsResults(ModelTarget):
    """The model, except that a tool's output reaches the history in capitals: a divergence that
    only the settling at a program's end meets when the program stopped while the call ran."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if isinstance(command, ToolFinishes):
            shouted = json.loads(json.dumps(observed.events).replace('"ok"', '"OK"'))
            return attrs.evolve(observed, events=tuple(shouted))
        return observed


@pytest.mark.parametrize("status", ["VALID", "OVERRUN"])
def test_MODEL_1_an_abandoned_program_is_not_settled(
    status: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MODEL-1: a program Hypothesis abandoned (its choices overran) is not driven to a quiet
    end. Hypothesis drops what such a program raises, yet the divergence would pin its rule: the
    later programs then counted as shrinking, one diverging on another rule passed, and conform
    reported CONFORMANT over a real counterexample (outside-user review). A program that ended
    normally is settled, and its tail's divergence raised."""
    monkeypatch.setattr(machine, "_noted", lambda: False)
    pin: dict[str, str] = {}
    program: Any = conformance_machine(ShoutsResults, pin=pin)()
    program.configured = True
    program.config = CONFIGS[0]
    program.capabilities = program.target.reset(CONFIGS[0])
    program.oracle.reset(CONFIGS[0])
    program.apply(SubmitUser("read a"))
    program.apply(ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),)))
    data = type("Data", (), {"status": Status[status]})()
    build = type("Build", (), {"data": data})()
    monkeypatch.setattr(machine, "current_build_context", lambda: build)
    if status == "OVERRUN":
        program.teardown()
        assert pin == {}
    else:
        with pytest.raises(DivergenceFound):
            program.teardown()
        assert pin == {"rule": "EXE-4"}


def test_ACP_1_rule_rows_name_what_no_program_reaches(capsys: pytest.CaptureFixture[str]) -> None:
    """ACP-1, VIEW-3, ACP-2: SPEC.md section 12 states image and audio result blocks and a
    terminal-capable client's terminal, which no program can reach (a tool outcome carries text
    only; conform's client has no terminals), yet their rules read 'exercised' with nothing
    more. Their rows now name that part, in the text report and the JSON document (documented
    where `conform --help` points), and section 12 says why."""
    presenting = attrs.evolve(_failed_report(), capabilities=frozenset(CAPABILITIES))
    rows = _statuses(presenting)
    assert "non-text result blocks" in rows["ACP-1"]["unreachable"]
    assert "non-text result blocks" in rows["VIEW-3"]["unreachable"]
    assert "terminal-capable" in rows["ACP-2"]["unreachable"]
    assert "unreachable" not in rows["VIEW-2"]
    assert all("unreachable" not in row for row in rule_table(_failed_report()))  # no presenting
    assert '"unreachable"' in (conform_cli.__doc__ or "")
    conform_run._text_report(presenting, None, {"impl": "mine:make"})
    shown = capsys.readouterr().out
    assert "but not reached by any program: image, audio and other non-text" in shown, shown
    section = loopspec.spec_text().split("## 12.", 1)[1]
    assert "No program reaches non-text result blocks" in " ".join(section.split())


def test_MODEL_3_the_transition_table_says_a_rule_after_the_arrow_is_a_refusal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """MODEL-3: a transition row "AwaitingModel + ModelReplies -> EXE-1" counts replies the
    model refused by EXE-1 (and the target with it), not violations; a first-time reader of a
    conformant report took them for broken rules. The table's header says what the arrow
    leads to."""
    report = attrs.evolve(
        _failed_report(),
        divergence=None,
        transitions={
            "AwaitingModel + ModelReplies -> EXE-1": 14,
            "Idle + SubmitUser -> accepted": 3,
        },
    )
    conform_run._text_report(report, None, {"impl": "mine:make"})
    shown = capsys.readouterr().out.splitlines()
    at = shown.index("transitions exercised by the random programs:")
    assert "refused" in shown[at + 1]
    assert shown[at + 2 :][:2] == ["      14  AwaitingModel + ModelReplies -> EXE-1",
                                   "       3  Idle + SubmitUser -> accepted"]  # fmt: skip


def test_EXE_2_a_profile_report_counts_the_programs_a_known_divergence_cut_and_says_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """EXE-2: under a real CLI's profile, a hard known divergence (the adapter running a call
    the model settles unrun: shell-mapped-tools, EXE-2 and HOOK-6) cuts each program it shows
    in, and nothing after it is compared. The report said "3 programs" beside it, as for an
    eraser's, and "no divergence in 10 programs": a reader took every program as compared
    whole. It now says which cut, how many programs in all, why each cuts, and the verdict
    says how many of its programs were compared only up to one."""
    profile = PROFILES["claude-code"]
    known = {"shell-mapped-tools": 3, "EXE-1": 1, "TEXT-1": 5}
    report = RunReport("claude-code", frozenset(), 10, 120, 1.0, None, (), None, {}, {},
                       profile, known)  # fmt: skip
    conform_run._text_report(report, None, {"cmd": "examples/claude-code-adapter/run.sh"})
    lines = capsys.readouterr().out.splitlines()
    row = {line.split()[0]: line for line in lines if line.startswith("  ") and line.split()}
    assert "3 programs cut  EXE-2, HOOK-6" in row["shell-mapped-tools"]
    assert "1 program cut  EXE-1" in row["EXE-1"]
    assert "5 programs  TEXT-1" in row["TEXT-1"]
    whats = {d.key: d.what for d in profile.divergences}
    at = lines.index(
        "  4 programs cut where a known divergence marked cut showed: the two runs go different "
        "ways there, so nothing after it in them was compared; why each cuts:"
    )
    assert lines[at + 1 : at + 3] == [
        f"    shell-mapped-tools: {whats['shell-mapped-tools']}",
        f"    EXE-1: {whats['EXE-1']}",
    ]
    assert lines[-1].startswith(
        "CONFORMANT (up to the claude-code profile's known divergences): no divergence in 10 "
        "programs (4 of them compared only up to a known divergence: cut, above); rules: "
    )
    document = conform_run.json_report(report, None, {"cmd": "run.sh"})
    cuts = {row["key"]: row["cutsPrograms"] for row in document["knownDivergences"]}
    assert (cuts["shell-mapped-tools"], cuts["TEXT-1"]) == (True, False)
