"""Bounded-exhaustive conformance: every program of at most K commands over the stated alphabet.

The model passes against itself and the bundled implementation agrees with it on every program
up to the bound; every mutant is found, with the rule it breaks, at K = 7. Counts are printed
(`-s`); no time is asserted.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import shlex
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from mutants import MUTANTS, Mutant, MutantTarget

from loopspec.model.commands import ABORT_CAUSES, Abort, Command, ModelReplies, ToolFinishes
from loopspec.model.errors import TransitionRefused
from loopspec.model.state import RUNNING, Dispatching, LoopState
from loopspec.model.transitions import step
from loopspec.properties.cli import conform as conform_cli
from loopspec.properties.cli import conform_run
from loopspec.properties.cli.main import main
from loopspec.properties.conformance import exhaustive
from loopspec.properties.conformance import run as conformance_run
from loopspec.properties.conformance.exhaustive import EXHAUSTIVE_CONFIG, programs, run_exhaustive
from loopspec.properties.conformance.impl_target import bundled_target
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget


def _conform_doc() -> str:
    """docs/conform.md with its lines joined, as its quotes of a report read."""
    page = Path(__file__).resolve().parent.parent / "docs" / "conform.md"
    return " ".join(page.read_text(encoding="utf-8").split())


def test_MODEL_1_programs_are_every_path_of_the_alphabet_up_to_k() -> None:
    """Every program ends at the bound, at a refusal, or where the alphabet is exhausted, and
    no program is listed twice."""
    listed = list(programs(4))
    assert len(listed) == len(set(listed))
    assert all(1 <= len(program) <= 4 for program in listed)
    assert sum(1 for _ in programs(5)) > len(listed)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_the_model_agrees_with_itself_on_every_program() -> None:
    """Control: the model as a target never diverges from the model (at K = 4: at 5 it costs
    2.4 s of CPU since the alphabet runs two calls at once and has a PostToolUse hook)."""
    report = run_exhaustive(ModelTarget(), 4)
    print(f"\nmodel: {report.runs} runs; {report.guarantee}")
    assert report.divergence is None
    # docs/conform.md quotes this guarantee and count for --exhaustive 4.
    assert f"exhaustive: {report.guarantee}" in _conform_doc()
    assert f"{report.programs} of 4 commands" in _conform_doc()


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_the_bundled_impl_agrees_on_every_program_up_to_5_commands() -> None:
    """The bundled implementation, on every program of at most 5 commands (and their tails)."""
    target = bundled_target()
    try:
        report = run_exhaustive(target, 5)
    finally:
        target.close()
    print(f"\nimpl (bundled): {report.runs} runs, {report.commands} commands; {report.guarantee}")
    assert report.divergence is None, (report.program, report.divergence)
    assert f"{report.programs} of 5" in _conform_doc(), "docs/conform.md's --exhaustive count"


EXHAUSTIVE_MUTANTS = [mutant for mutant in MUTANTS if mutant.exhaustive]
# Coverage off for the one case that costs: deterministic tests cover every model arc it does
# (benchmarks/coverage_owners.py); the others take a tenth of its time each.
UNTRACED_MUTANTS = frozenset({"last-finisher-wins"})


@pytest.mark.parametrize(
    "mutant",
    [
        pytest.param(
            m, id=m.name, marks=[pytest.mark.no_cover] if m.name in UNTRACED_MUTANTS else []
        )
        for m in EXHAUSTIVE_MUTANTS
    ],
)
def test_MODEL_1_every_mutant_is_found_exhaustively_with_its_rule(mutant: Mutant) -> None:
    """Each planted bug shows in some program of at most 7 commands, blamed on its rule. The
    program reported is the commands sent up to the diverging one, settling commands included,
    and replays to the same divergence there (8 of the 13 diverged in the settling tail, which
    the program left out: their cases replayed as "no divergence")."""
    report = run_exhaustive(MutantTarget(mutant), 7)
    assert report.divergence is not None, f"{mutant.name} survives {report.guarantee}"
    print(f"\n{mutant.name}: found after {report.runs} runs, program of {len(report.program)}")
    assert report.divergence.rule_id in mutant.blamed, report.divergence.what
    # Blamed on another rule the program also breaks, the words still point at the bug's rule.
    assert report.divergence.rule_id == mutant.rule_id or (
        mutant.rule_id in report.divergence.what
    ), report.divergence.what
    assert report.divergence.index == len(report.program) - 1
    replayed = replay_case(lambda: MutantTarget(mutant), EXHAUSTIVE_CONFIG, list(report.program))
    assert replayed.divergence is not None
    assert (replayed.divergence.rule_id, replayed.divergence.index) == (
        report.divergence.rule_id,
        report.divergence.index,
    )


@functools.cache
def programs_of_6() -> tuple[tuple[Command, ...], ...]:
    """Every program of at most 6 commands, listed once for the tests that read them all."""
    return tuple(programs(6))


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_the_alphabet_offers_every_phase_its_commands() -> None:
    """Each phase of a program offers what the alphabet states (a crashed session: recover)."""
    seen = {type(command).__name__ for program in programs_of_6() for command in program}
    assert {
        "SubmitUser",
        "ModelReplies",
        "ModelFails",
        "HookAnswers",
        "ApprovalAnswers",
        "ToolFinishes",
        "Abort",
        "Crash",
        "Recover",
    } <= seen


def test_ABORT_3_the_alphabet_sends_every_abort_cause() -> None:
    """Aborts carry every cause across the programs (the cause cycles with the log's length),
    so a loop that records every abort as the user's is found (the mutant above)."""
    causes = {
        command.cause
        for program in programs_of_6()
        for command in program
        if isinstance(command, Abort)
    }
    assert causes == ABORT_CAUSES


def test_SCHED_1_HOOK_5_the_alphabet_runs_two_calls_at_once_and_judges_reads() -> None:
    """Two calls run at once (two `read`s, settling in either order), and a PostToolUse hook
    judges a `read`'s result: passed, given a context or blocked (DEC-3, ADJ-4). The alphabet
    had neither: a `read` and a `bash` never overlap, and no hook ran after a body."""
    overlapping: set[tuple[str, ...]] = set()
    judged: set[str] = set()
    for program in programs(4):
        state = LoopState(EXHAUSTIVE_CONFIG)
        for command in program:
            try:
                state = step(state, command)
            except TransitionRefused:
                break
            phase = state.phase
            if isinstance(phase, Dispatching):
                running = tuple(s.call_id for s in phase.slots if s.status == RUNNING)
                if len(running) > 1:
                    overlapping.add(running)
            if isinstance(command, ToolFinishes):
                judged.update(type(verdict).__name__ for verdict in command.post)
    assert overlapping
    assert judged == {"PostPass", "PostContext", "PostBlock"}
    # Either call of the pair settles first.
    finished_first = {
        program[2].call_id
        for program in programs(4)
        if len(program) > 2
        and isinstance(program[1], ModelReplies)
        and [c.name for c in program[1].tool_calls] == ["read", "read"]
        and isinstance(program[2], ToolFinishes)
    }
    assert finished_first == {"c1", "c2"}


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_conform_exhaustive_runs_first_and_reports_the_guarantee(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`loopspec conform --exhaustive K` states the guarantee, then the random search runs.
    Its progress is shown as the search's is (here a line per program: a pass of K = 6 ran 35 s
    on the bundled loop without one, where a CI log wants a line every 30 s)."""
    monkeypatch.setattr(conformance_run, "PROGRESS_LINE_SECONDS", 0.0)
    assert main(["conform", "--exhaustive", "3", "--examples", "2"]) == 0
    out, err = capsys.readouterr()
    said = [line for line in err.splitlines() if "exhaustive" in line]
    assert said[0].startswith("  programs of the exhaustive pass run: 1, "), err
    assert said[-1].startswith("  programs of the exhaustive pass run: 27, "), err
    first = out.splitlines()[0]
    assert "agrees with the model" in first
    # It runs fewer programs than it covers: the line says why, so the two counts agree.
    assert re.search(
        r"\(\d+ programs\) agrees with the model; \d+ runs \(a run compares every prefix "
        r"of its program\)",
        first,
    ), first
    assert "CONFORMANT" in out


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize("programs_in_budget", [0, 3])
def test_MODEL_1_conform_exhaustive_keeps_to_the_max_seconds_budget(
    programs_in_budget: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--max-seconds bounds conform's whole run, but the exhaustive pass ignored it (K = 6 on
    the bundled loop ran 35 s of a 2 s budget), then stated its guarantee; the clock here
    moves a second per program (or per reading, for a budget over before the pass). A pass the
    budget ends claims none, and its programs make the verdict (no random program follows):
    none ran, exit 2 as for the random search."""
    clock = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    played = exhaustive.run_program

    def one_second_each(*args: Any, **kwargs: Any) -> Any:
        clock[0] += 1.0
        return played(*args, **kwargs)

    monkeypatch.setattr(exhaustive, "run_program", one_second_each)
    if not programs_in_budget:
        ticks = itertools.count()
        monkeypatch.setattr(time, "monotonic", lambda: float(next(ticks)))
    budget = str(programs_in_budget or 0.5)
    argv = ["conform", "--exhaustive", "4", "--examples", "2", "--max-seconds", budget]
    status = main(argv)
    out, err = capsys.readouterr()
    ended = "exhaustive: the --max-seconds budget ended the pass"
    if not programs_in_budget:
        assert status == 2
        assert out == f"{ended} before its first program\n"
        assert err.startswith("loopspec: error: the --max-seconds 0.5 budget ended before")
        return
    assert status == 0, err
    lines = out.splitlines()
    assert re.fullmatch(
        f"{ended} after 3 runs \\(\\d+ commands\\), none diverging: no guarantee for the "
        "programs of at most 4 commands",
        lines[0],
    ), lines[0]
    assert lines[-1].startswith(
        "CONFORMANT: no divergence in 3 runs of the exhaustive pass within 3 s; rules:"
    )
    # The pass's runs are counted in the rule table, as the random programs' are: with none
    # after it, every rule read "not reached by the generator" but the unobservable ones.
    commands = re.search(r"after 3 runs \((\d+) commands\)", lines[0])
    assert commands is not None, lines[0]
    assert f"  PROTO-1  exercised x{commands[1]} (checked x{commands[1]})" in lines, out
    assert "  HOOK-1   exercised x" in out, out
    tally = lines[-1].partition("; rules: ")[2]
    assert tally.startswith("exercised "), tally
    # The JSON document's rule rows say the same.
    clock[0] = 0.0
    assert main([*argv, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    statuses = Counter(row["status"] for row in document["rules"])
    assert "; ".join(f"{status} {count}" for status, count in statuses.items()) == tally
    assert document["steps"] == int(commands[1])


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_TURN_2_conform_exhaustive_prints_the_diverging_program(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A divergence found exhaustively exits 1 with the program and the rule it breaks, saved as
    a case that `loopspec replay` reruns (the alphabet's configuration is printed nowhere, so
    without the case the program could not be replayed; it was not saved at all before)."""
    impl = "plugin_targets:turn_end_with_step_open"
    argv = ["conform", "--impl", impl, "--exhaustive", "4", "--case-dir", str(tmp_path)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    # The verdict first and last, in conform's words (it printed none), the rule on both lines
    # as the random search's report names it (the first named none).
    first = out.splitlines()[0]
    assert first.startswith("loopspec conform --exhaustive 4: COUNTEREXAMPLE: a program of")
    assert first.endswith(" commands diverges: TURN-2 (loopspec spec TURN-2)")
    assert out.rstrip().endswith("\n\nCOUNTEREXAMPLE: TURN-2 (loopspec spec TURN-2)")
    # In words with the JSON beneath, as conform's and replay's listings (it was JSON alone).
    assert "\n  #1 the user sends " in out
    assert "rule TURN-2" in out
    (case,) = tmp_path.iterdir()
    assert f"rerun: {shlex.join(['loopspec', 'replay', str(case), '--impl', impl])}" in out
    assert main(["replay", str(case), "--impl", impl]) == 1
    assert main(["replay", str(case), "--bundled"]) == 0  # the bundled loop keeps the rule


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_TURN_2_conform_exhaustive_json_names_its_format_and_case(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`--format json` with a divergence found exhaustively writes one versioned document with
    the case saved and the command that replays it (it had no `format` and no case), and the
    program cut down as a random counterexample's is."""
    impl = "plugin_targets:turn_end_with_step_open"
    argv = ["conform", "--impl", impl, "--exhaustive", "4", "--case-dir", str(tmp_path)]
    assert main([*argv, "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "loopspec-conform-exhaustive/1"
    assert (document["verdict"], document["rule"]) == ("COUNTEREXAMPLE", "TURN-2")
    (case,) = tmp_path.iterdir()
    assert document["case"] == str(case)
    assert document["replay"] == shlex.join(["loopspec", "replay", str(case), "--impl", impl])
    assert json.loads(case.read_text())["commands"] == document["program"]
    # Cut down: the reply that closes the turn wrongly, after the prompt (the first diverging
    # program of the enumeration went on for a second turn after it).
    assert [command["kind"] for command in document["program"]] == ["SubmitUser", "ModelReplies"]
    assert document["commandIndex"] == 1
    assert document["reduceRuns"] > 0
    assert (document["cutShort"], document["stoppedByCtrlC"]) == (False, False)
    documented = conform_cli.__doc__ or ""  # where `conform --help` sends a CI job
    assert '"loopspec-conform-exhaustive/1"' in documented
    for key in document:
        assert f'"{key}"' in documented, key


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize("form", ["text", "json"])
def test_TURN_2_conform_exhaustive_says_when_cutting_down_stopped_at_its_bounds(
    form: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A diverging program of the exhaustive pass is cut down as a random counterexample is,
    within the same bounds (60 s, 2000 replays): stopped there, its case was saved and shown as
    if it were the smallest program, with nothing said, where the random search's report says
    so (`conform_run.budget_note`). It says so in the same words, and in the JSON's
    `cutShort` (the bound here: no replay at all)."""
    monkeypatch.setattr(conformance_run, "REDUCE_REPLAYS", 0)
    impl = "plugin_targets:turn_end_with_step_open"
    argv = ["conform", "--impl", impl, "--exhaustive", "4", "--case-dir", str(tmp_path)]
    assert main([*argv, "--format", form]) == 1
    out = capsys.readouterr().out
    if form == "json":
        document = json.loads(out)
        assert (document["cutShort"], document["stoppedByCtrlC"]) == (True, False)
        return
    heading, said = out.splitlines()[:2]
    assert heading.startswith("loopspec conform --exhaustive 4: COUNTEREXAMPLE: a program of")
    assert said == (
        "  cutting the program down stopped after 60 s or 2000 replays: the smallest program "
        "found by then is shown, and `loopspec replay CASE --reduce` with this target cuts it "
        "further"
    )


def test_exhaustive_help_says_which_capabilities_its_alphabet_needs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A Java loop declaring two capabilities, run with --exhaustive 3 after reading --help,
    printed "exhaustive: skipped, the target does not declare abort, approval, ...": the help
    said only "first run every program of at most K commands". It names what the alphabet
    needs."""
    with pytest.raises(SystemExit):
        main(["conform", "--help"])
    helped = " ".join(capsys.readouterr().out.split())
    assert (
        "the alphabet needs a target declaring abort, approval, crash-repair, parallel, "
        "pre-hooks and rewrite, and for any other the run says it skipped this"
    ) in helped
    needs = "abort, approval, crash-repair, parallel, pre-hooks and rewrite".replace(" and", ",")
    assert set(needs.split(", ")) == conform_run.EXHAUSTIVE_NEEDS
