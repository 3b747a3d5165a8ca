"""SAFE-5: the program a target broke in is cut down before it is saved as a case.

A target that raises or dies inside a program exits 2 with the program saved as a case
(`with_saved_program`); that program was the random one Hypothesis was running, 13 to 24
commands for the loops below where 3 or 4 show the bug. `run.reduce_breakage` cuts it down
while the target still breaks the same way.
"""

from __future__ import annotations

import importlib
import json
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from batches import BATCH_SEED
from hanging_target import serve_model
from node_requirements import Need

from loopspec.model.commands import Command, Deny, HookAnswers, ModelReplies, SubmitUser
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.cli.conform_run import (
    at_case_command,
    case_replay_error,
    with_saved_program,
)
from loopspec.properties.cli.main import main
from loopspec.properties.conformance import process_target, run
from loopspec.properties.conformance.command_codec import command_from_json, config_from_json
from loopspec.properties.conformance.process_target import QUICK_FLOOR, ProcessTarget
from loopspec.properties.conformance.run import (
    SharedProcess,
    TargetError,
    load_case,
    reduce_breakage,
    replay_case,
    run_conformance,
)
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.stateful.strategies import CONFIGS

ROOT = Path(__file__).resolve().parent.parent
READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
HANGING = Path(__file__).resolve().parent / "hanging_target.py"

# Raises on a failed outcome once a PreToolUse hook has rewritten a call this program (the one
# bug), and, a different bug, on a failed outcome with an empty message: conform never draws
# one, while cutting a program down tries one; that breakage is another, and must not be kept.
BROKEN_LOOP = """\
from loopspec.model.commands import Allow, Ask, HookAnswers, ToolFailed, ToolFinishes
from loopspec.properties.conformance.target import ModelTarget


class BreaksOnARewrittenCallsFailure(ModelTarget):
    def reset(self, config):
        self.rewrote = False
        return super().reset(config)

    def apply(self, command):
        if isinstance(command, ToolFinishes) and isinstance(command.outcome, ToolFailed):
            if not command.outcome.message:
                raise ValueError("an empty error message")
        observed = super().apply(command)
        verdict = getattr(command, "verdict", None)
        if observed.accepted and isinstance(verdict, Allow | Ask) and verdict.updated_input:
            self.rewrote = True
        failed = isinstance(command, ToolFinishes) and isinstance(command.outcome, ToolFailed)
        if observed.accepted and failed and self.rewrote:
            raise RuntimeError("cannot report the failure of a rewritten call")
        return observed


def factory():
    return BreaksOnARewrittenCallsFailure()
"""


def _case_commands(case: Path) -> list[dict[str, object]]:
    commands = json.loads(case.read_text(encoding="utf-8"))["commands"]
    assert isinstance(commands, list)
    return commands


@pytest.mark.no_cover
def test_SAFE_5_a_python_targets_breakage_is_saved_cut_down_and_replays_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: the case holds a program from which no command can be deleted without losing
    the breakage (the random one had 13 to 24), it breaks the same way (not on the other bug
    the reduction runs into), and `loopspec replay` prints the same error at its last command."""
    (tmp_path / "breaks_on_a_rewrite.py").write_text(BROKEN_LOOP, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "breaks_on_a_rewrite", raising=False)
    cases = tmp_path / "cases"
    impl = "breaks_on_a_rewrite:factory"
    argv = ["conform", "--impl", impl, "--examples", "200", "--seed", str(BATCH_SEED)]
    assert main([*argv, "--case-dir", str(cases)]) == 2
    said = capsys.readouterr().err.splitlines()[0]  # the loop's own frames below it
    error, _, where = said.partition("; at command #")
    raised_at = f"(at {tmp_path / 'breaks_on_a_rewrite.py'}:20, in apply)"
    assert error.endswith(
        f"RuntimeError: cannot report the failure of a rewritten call {raised_at}"
    )
    (case,) = cases.iterdir()
    commands = _case_commands(case)
    rerun = f"rerun it: loopspec replay {shlex.quote(str(case))} "
    assert len(commands) <= 7, commands  # a rewrite asked about, aborted, then a failure: 7
    assert commands[-1]["kind"] == "ToolFinishes"
    # The command it broke at in words, as a counterexample's is: which call, how it ended.
    broke_at = f"call {commands[-1]['callId']}'s tool fails: "
    assert where.startswith(f"{len(commands)} of a program ({broke_at}"), where
    assert f"); {rerun}" in where, where
    # 1-minimal for deleting a command: without any one, the target does not break alike.
    document = json.loads(case.read_text(encoding="utf-8"))
    config = config_from_json(document["config"])
    program = [command_from_json(c) for c in commands]
    factory = importlib.import_module("breaks_on_a_rewrite").factory
    breaking = []
    for index in range(len(program)):
        try:
            replay_case(factory, config, program[:index] + program[index + 1 :])
        except TargetError as broke:
            breaking.append((index, broke.message))
    assert not [(i, m) for i, m in breaking if "rewritten call" in m], commands
    assert main(["replay", str(case), "--impl", impl]) == 2
    replayed = capsys.readouterr().err.splitlines()[0]
    assert "RuntimeError: cannot report the failure of a rewritten call" in replayed
    assert f"; at command #{len(commands)} of the case ({broke_at}" in replayed, replayed
    assert replayed.endswith(")"), replayed


@pytest.mark.no_cover
@pytest.mark.needs(Need.NODE)
def test_SAFE_5_a_process_that_dies_on_a_throw_is_saved_cut_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: a JavaScript loop with a `throw` planted where a failed call meets a PostToolUse
    hook dies; its case is the three commands that reach the throw, and replays to it."""
    loop = tmp_path / "js-loop"
    shutil.copytree(ROOT / "examples" / "js-loop", loop, ignore=shutil.ignore_patterns("*.md"))
    source = (loop / "loop.mjs").read_text(encoding="utf-8")
    finish = "    batch.finish(slot, outcome, hooks.map"
    assert finish in source
    planted = 'if (!outcome.ok && hooks.length > 0) throw new Error("planted");\n'
    (loop / "loop.mjs").write_text(source.replace(finish, planted + finish), encoding="utf-8")
    cmd = f"node {shlex.quote(str(loop / 'main.mjs'))}"
    argv = ["conform", "--cmd", cmd, "--examples", "60", "--seed", str(BATCH_SEED)]
    assert main([*argv, "--case-dir", str(tmp_path / "cases")]) == 2
    said = capsys.readouterr().err
    assert "Error: planted" in said
    (case,) = (tmp_path / "cases").iterdir()
    commands = _case_commands(case)
    assert [c["kind"] for c in commands] == ["SubmitUser", "ModelReplies", "ToolFinishes"]
    broke_at = f"call {commands[-1]['callId']}'s tool fails: "
    # The command it died at, by its number in the program (not also the seq it was sent with).
    assert f"instead of answering command #3 of a program ({broke_at}" in said.splitlines()[0]
    assert "); rerun it:" in said.splitlines()[0]
    assert main(["replay", str(case), "--cmd", cmd]) == 2
    replayed = capsys.readouterr().err
    assert f"instead of answering command #3 of the case ({broke_at}" in replayed
    assert "Error: planted" in replayed


class _RaisesAtTheSecondCommand(ModelTarget):
    """The model, raising at a program's second command; from the `interrupt_from`th target
    made on, interrupted (Ctrl-C) at its first."""

    made = 0
    interrupt_from = 0

    def __init__(self) -> None:
        super().__init__()
        _RaisesAtTheSecondCommand.made += 1
        self.interrupted = self.made >= self.interrupt_from
        self.applied = 0

    def apply(self, command: Command) -> Observation:
        if self.interrupted:
            raise KeyboardInterrupt
        self.applied += 1
        if self.applied == 2:
            raise RuntimeError("the second command")
        return super().apply(command)


@pytest.mark.parametrize("interrupt_from", [2, 3])
def test_SAFE_5_ctrl_c_while_a_breakage_is_cut_down_keeps_its_program(
    monkeypatch: pytest.MonkeyPatch, interrupt_from: int
) -> None:
    """SAFE-5: interrupted while confirming the breakage (the second target) or cutting it
    down (the third), the run still ends with the program it broke in, not a traceback."""
    monkeypatch.setattr(_RaisesAtTheSecondCommand, "made", 0)
    monkeypatch.setattr(_RaisesAtTheSecondCommand, "interrupt_from", interrupt_from)
    program: list[Command] = [
        SubmitUser("hello"),
        ModelReplies((TextBlock("hi"),)),
        SubmitUser("again"),
    ]
    with pytest.raises(TargetError) as raised:
        replay_case(_RaisesAtTheSecondCommand, CONFIGS[0], program)
    broke = raised.value
    assert len(broke.program) == 2
    reduced = reduce_breakage(_RaisesAtTheSecondCommand, broke)
    assert reduced.message == broke.message
    assert reduced.program == broke.program


class _Hang(NamedTuple):
    """A "no answer" failure of a run, and the slowest command answer of the run before it, as
    this test timed it (from the message sent to the answer read: no shorter than conform's
    own timing of it, which sets the short wait)."""

    problem: str
    slowest_before: float

    @property
    def waited(self) -> float:
        """The seconds its message says the target was given ('... within 0.5 s')."""
        return _waited(self.problem)

    def short(self) -> bool:
        """Whether the wait was a short one, as SPEC SAFE-5 bounds it: ten times the slowest
        answer of its kind so far, at least QUICK_FLOOR (a loaded machine lengthens it, up to
        the full timeout; 0.001 s: the message's rounding)."""
        return QUICK_FLOOR <= self.waited <= max(QUICK_FLOOR, 10 * self.slowest_before) + 0.001


def _hang_cut_down(
    monkeypatch: pytest.MonkeyPatch, *options: str, timeout: float = 3.0
) -> tuple[TargetError, list[_Hang]]:
    """conform on tests/hanging_target.py (answer timeout `timeout`): its breakage, and the "no
    answer" failures of the whole run in order (the run's own, the cutting's, the confirming).
    The process, started again after every hang, imports no loopspec: it asks a model served
    from this one. Cutting down is given all the time it needs: its 60 s bound, which a loaded
    machine's short waits came near, is not what these tests are about."""
    hangs: list[_Hang] = []
    slowest = 0.0
    fail, exchange = ProcessTarget._fail, ProcessTarget._exchange

    def noting(target: ProcessTarget, problem: str, **how: float | str | bytes | None) -> None:
        if problem.startswith("no answer to"):
            hangs.append(_Hang(problem, slowest))
        fail(target, problem, **how)  # type: ignore[arg-type]

    def timed(target: ProcessTarget, message: dict[str, Any], expected: str, **how: Any) -> Any:
        nonlocal slowest
        sent = time.monotonic()
        answer = exchange(target, message, expected, **how)
        if expected == "observed":
            slowest = max(slowest, time.monotonic() - sent)
        return answer

    monkeypatch.setattr(ProcessTarget, "_fail", noting)
    monkeypatch.setattr(ProcessTarget, "_exchange", timed)
    monkeypatch.setattr(run, "REDUCE_SECONDS", 600.0)
    with tempfile.TemporaryDirectory() as folder:
        model = str(Path(folder) / "model")
        command = [sys.executable, "-S", str(HANGING), "--model", model, *options]
        with serve_model(model):
            factory = SharedProcess(command, timeout=timeout)
            try:
                with pytest.raises(TargetError) as raised:
                    run_conformance(
                        factory, examples=200, seed_value=BATCH_SEED, show_progress=False
                    )
            finally:
                factory.close()
    return raised.value, hangs


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_SAFE_5_a_process_that_hangs_is_cut_down_with_short_waits_then_confirmed_in_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SAFE-5: a candidate a process target hangs on costs a short wait (a multiple of the
    run's slowest answer, at least QUICK_FLOOR), not the answer timeout: each cost the full
    timeout, and the reduction ran out of seconds before it was done (a 13-command program cut
    to 4 with texts and verdicts as drawn, 90 s). The program kept is replayed once more with
    the full timeout, whose error is the one reported."""
    broke, hangs = _hang_cut_down(monkeypatch)
    assert broke.message.startswith("the target failed in apply: ")
    assert broke.message.partition("\n")[0].endswith(" within 3 s")
    assert [c.NAME for c in broke.program] == [
        "SubmitUser",
        "ModelReplies",
        "HookAnswers",
        "ToolFinishes",
    ]
    assert hangs[0].waited == 3  # the run's own
    assert hangs[-1].waited == 3  # the confirmation
    assert len(hangs) > 4
    # Short as the run's answers allow: a tenth of a second idle, QUICK_FLOOR; on a loaded
    # machine whose slowest answer took a quarter of a second, 2.5 s (not a timed test: the
    # bound is what this run's own answers took).
    assert all(hang.short() for hang in hangs[1:-1]), hangs


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_SAFE_5_a_program_kept_on_a_slow_answer_is_not_reported_as_a_hang(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SAFE-5: a candidate answered slower than the short wait while cutting down (here: a
    failed outcome with an empty message, without the hook answer the hang needs, answered
    after 2.5 s) times out there at a command of the same kind and is kept; replayed with the
    full timeout (4 s) it answers, so the program kept before it is confirmed and reported: the
    target hangs only once a hook has answered, and the case says so. The short wait is four
    times the slowest answer here, not ten: on a loaded machine an answer of the run took
    0.16 s, then 0.26 s, and ten times that was no shorter than the slow answer, which then
    came in time (it came after 1 s under a 3 s timeout before; now 2.5 s is slow up to a
    slowest answer of 0.6 s)."""
    monkeypatch.setattr(process_target, "QUICK_MULTIPLE", 4)
    broke, hangs = _hang_cut_down(monkeypatch, "--slow", "2.5", timeout=4.0)
    assert broke.message.partition("\n")[0].endswith(" within 4 s")
    assert "HookAnswers" in [c.NAME for c in broke.program], broke.program
    assert broke.program[-1].NAME == "ToolFinishes"
    assert hangs[-1].waited == 4
    assert any(QUICK_FLOOR <= hang.waited < 2.5 for hang in hangs), hangs


def _waited(wait: str) -> float:
    """The seconds a hang's message says the target was given ('... within 0.5 s')."""
    return float(wait.rpartition(" within ")[2].removesuffix(" s"))


def test_SAFE_5_a_process_target_s_command_is_named_by_one_number(tmp_path: Path) -> None:
    """SAFE-5: a process target names the command it awaited by the seq its message carried,
    counted over the process's life, and a replay said "no answer to the command of seq 1
    within 5 s; at command #2 of the case": two numbers for one command, the first in no case
    file. The command is named once, by its number in the case (on the case's line of it) or in
    the program, and the saved case's `what` names it by its number in that case. Its words
    quote the model's arguments, `\\u` escapes too, which naming it as a template read
    ("bad escape \\u": a traceback)."""
    program: tuple[Command, ...] = (
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"\\u00e4"}'),)),
    )
    broke = TargetError(
        "the target failed in apply: ./loop: no answer to the command of seq 41 within 5 s"
        "\nstderr: (empty)",
        config=LoopConfig(tools=(READ,)),
        program=program,
    )
    words = '(the model replies: calls c1 read {"file_path":"\\u00e4"})'
    hang = "the target failed in apply: ./loop: no answer to command #2 of {} within 5 s"
    shown = with_saved_program(broke, tmp_path / "cases", {"cmd": "./loop"}, None)
    assert shown.message.startswith(hang.format(f"a program {words}") + "; rerun it: "), shown
    (saved,) = (tmp_path / "cases").iterdir()
    assert json.loads(saved.read_text(encoding="utf-8"))["what"] == hang.format("the case")
    assert at_case_command(broke).message.partition("\n")[0] == hang.format(f"the case {words}")
    lines = saved.read_text(encoding="utf-8").splitlines()
    line = lines.index('      "kind": "ModelReplies",')  # the line before it, counted from 1
    said = case_replay_error("case.json", load_case(saved), broke).message
    assert said.partition("\n")[0] == f"case.json:{line}: {hang.format(f'the case {words}')}"


def test_SAFE_5_a_wrong_seq_names_the_seq_sent_and_cut_down_programs_compare_alike(
    tmp_path: Path,
) -> None:
    """SAFE-5: named by its number in the program, the answer "to command #2 of a program (...)
    carries seq 40" no longer said which seq its command was sent with; it does, and a cut-down
    candidate, sent at other seqs over the process's life, still breaks the same way."""
    program: tuple[Command, ...] = (
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a"}'),)),
    )

    def wrong(sent: int, carried: int) -> TargetError:
        return TargetError(
            f"the target failed in apply: ./loop: the answer to the command of seq {sent} "
            f"carries seq {carried}, not its command's seq {sent}",
            config=LoopConfig(tools=(READ,)),
            program=program,
        )

    shown = with_saved_program(wrong(41, 40), tmp_path / "cases", {"cmd": "./loop"}, None)
    assert shown.message.startswith(
        "the target failed in apply: ./loop: the answer to command #2 of a program (the model "
        'replies: calls c1 read {"file_path":"a"}) carries seq 40, not its command\'s seq 41; '
    ), shown
    signature = run._breakage_signature
    assert signature(wrong(41, 40)) == signature(wrong(3, 2))
    other = TargetError("the target failed in apply: ./loop: boom", program=program)
    assert signature(wrong(41, 40)) != signature(other)


def test_SAFE_5_a_breakage_committed_in_another_case_folder_is_not_saved_again(
    tmp_path: Path,
) -> None:
    """SAFE-5: a Python loop broken in a program whose case is committed in `loopspec-cases/`,
    found again by the pytest plugin saving new cases in another folder (a CI job's
    `--loopspec-case-dir`), is named by the committed case: a copy of it was saved in the other
    folder on every run."""
    program: tuple[Command, ...] = (SubmitUser("hi"),)
    broke = TargetError("the target failed in apply: boom", config=LoopConfig(), program=program)
    target = {"impl": "pkg.loop:make"}
    committed = tmp_path / "loopspec-cases"
    first = with_saved_program(broke, committed, target, None).message
    again = with_saved_program(broke, tmp_path / "ci", target, None, also_in=[committed])
    assert again.message == first
    assert [path.name for path in committed.iterdir()] == ["case-PROTO-1-0.json"]
    assert not (tmp_path / "ci").exists()


def test_SAFE_5_the_stop_names_the_command_it_broke_at_in_words(tmp_path: Path) -> None:
    """SAFE-5: the one line of a target broken mid-program says the command it broke at in
    words, the hook and call it answered for included, both in conform ("at command #3 of a
    program") and in replay ("of the case"): the number alone, or the kind ("HookAnswers"),
    left a harness author to count commands in the case to find which answer broke the loop."""
    config = LoopConfig(tools=(READ,), hooks=(HookSpec("guard", "PreToolUse"),))
    program: tuple[Command, ...] = (
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a"}'),)),
        HookAnswers(Deny("not here")),
    )
    broke = TargetError(
        "the target failed in apply: KeyError: 'guard'\nstderr of the target",
        config=config,
        program=program,
    )
    words = '(PreToolUse hook guard on call c1 answers: deny, reason "not here")'
    shown = with_saved_program(broke, tmp_path / "cases", {"impl": "pkg.loop:make"}, None)
    first, _, rest = shown.message.partition("\n")
    assert f"KeyError: 'guard'; at command #3 of a program {words}; rerun it: " in first, first
    assert rest == "stderr of the target"
    replayed = at_case_command(broke).message
    assert replayed.partition("\n")[0].endswith(f"; at command #3 of the case {words}"), replayed
    # Without the configuration, the words still say what the command did.
    unconfigured = TargetError("the target failed in apply: boom", program=program)
    assert at_case_command(unconfigured).message.endswith(
        '; at command #3 of the case (the next PreToolUse hook answers: deny, reason "not here")'
    )
