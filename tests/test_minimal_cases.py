"""The counterexample conform reports is minimal: nothing can be taken from it.

Hypothesis shrinks the choices a program was drawn from; what it leaves had a call, a hook
answer or a command the divergence did not need (two outside users cut a two-call program down
to one call by hand). conform then cuts the shrunk program down by replaying smaller ones
(`loopspec.properties.conformance.reduce`); the case file holds the result and replays to the
same divergence. Every mutant's counterexample is held to the same in tests/test_mutants.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from batches import BATCH_SEED
from minimality import removable_parts
from mutants import MUTANTS, MutantTarget

from loopspec.model.commands import (
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostContext,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.cli.conform_run import counts_line, json_report
from loopspec.properties.conformance.command_codec import command_to_json
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.reduce import reduce_program, smaller_candidates, weight
from loopspec.properties.conformance.run import (
    case_document,
    load_case,
    reduce_counterexample,
    replay_case,
    run_conformance,
)
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.stateful.strategies import CONFIGS, TOOLS

READ = ToolCallBlock("c1", "read", '{"file_path":"a.txt"}')


def _mutant(name: str) -> MutantTarget:
    return MutantTarget(next(m for m in MUTANTS if m.name == name))


def _found(name: str, config: LoopConfig, program: tuple[Command, ...]) -> DivergenceFound:
    """The divergence `program` shows on the mutant `name`, as the machine would raise it."""
    replay = replay_case(lambda: _mutant(name), config, list(program))
    assert replay.divergence is not None
    return DivergenceFound(replay.divergence, config, program)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_conform_reports_the_one_call_a_divergence_needs(tmp_path: Path) -> None:
    """MODEL-1: a bug one call shows is reported with one call. Hypothesis left this mutant's
    counterexample (arguments changed after the call was sealed) a reply with two calls; the
    case file holds the one-call program and replays to the same divergence, at the same
    command, and the JSON document carries the same program."""
    report = run_conformance(
        lambda: _mutant("mutable-arguments"),
        examples=400,
        seed_value=BATCH_SEED,
        show_progress=False,
    )
    assert report.divergence is not None
    assert report.config is not None
    rule = report.divergence.rule_id
    replies = [c for c in report.program if isinstance(c, ModelReplies)]
    assert [len(reply.tool_calls) for reply in replies] == [1], report.program
    assert report.reduce_runs > 0
    assert (
        removable_parts(lambda: _mutant("mutable-arguments"), report.config, report.program, rule)
        == []
    )
    saved = tmp_path / "case.json"
    saved.write_text(json.dumps(case_document(report, {"impl": "mine:make"})), encoding="utf-8")
    case = load_case(saved)
    replayed = replay_case(lambda: _mutant("mutable-arguments"), case.config, case.commands)
    assert replayed.divergence is not None
    assert (replayed.divergence.rule_id, replayed.divergence.index) == (
        rule,
        report.divergence.index,
    )
    document = json_report(report, saved, {"impl": "mine:make"})
    assert document["divergence"]["program"] == [command_to_json(c) for c in report.program]
    assert document["reduceRuns"] == report.reduce_runs


def test_MODEL_1_a_hook_the_divergence_does_not_need_goes_with_its_answers() -> None:
    """MODEL-1: of two PreToolUse hooks on a denied call that still runs, the one that only
    passes goes, with its answer, and the tools no call names go: one hook, one answer."""
    config = LoopConfig(
        tools=TOOLS,
        hooks=(HookSpec("first", "PreToolUse", "read"), HookSpec("second", "PreToolUse", "read")),
    )
    program = (SubmitUser("look"), ModelReplies((READ,)), HookAnswers(Pass()), HookAnswers(Deny()))
    reduced = reduce_counterexample(
        lambda: _mutant("deny-still-executes"), _found("deny-still-executes", config, program)
    )
    assert reduced.divergence.rule_id == "DEC-1"
    assert [hook.handler_id for hook in reduced.config.hooks] == ["second"]
    assert [tool.name for tool in reduced.config.tools] == ["read"]
    assert [type(c) for c in reduced.program] == [SubmitUser, ModelReplies, HookAnswers]
    assert isinstance(reduced.program[2], HookAnswers)
    assert isinstance(reduced.program[2].verdict, Deny)


def test_MODEL_1_arguments_a_new_input_and_an_approval_are_cut_to_what_the_divergence_needs() -> (
    None
):
    """MODEL-1: a call's arguments and a hook's new input lose the keys their tool does not
    require and their strings are emptied or cut to a character, and an approval answer becomes
    the simplest that keeps the divergence (the call's result must still come in the next
    step, so a refusal, not allowed-once, which would leave the call running). They were kept
    as drawn: 'rm -rf build', a description, an 'unavailable' the divergence did not need."""
    config = LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "bash"),))
    call = ToolCallBlock("c1", "bash", '{"command":"rm -rf build","description":"clean up"}')
    rewrite = {"command": "rm -rf build/tmp", "description": "only tmp"}
    program = (
        SubmitUser("please clean up"),
        ModelReplies((call,)),
        HookAnswers(Ask(reason="needs a look", updated_input=rewrite)),
        ApprovalAnswers("unavailable"),
    )
    reduced = reduce_counterexample(
        lambda: _mutant("result-in-next-step"), _found("result-in-next-step", config, program)
    )
    assert reduced.divergence.rule_id == "STEP-3"
    assert reduced.program == (
        SubmitUser(""),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command":""}'),)),
        HookAnswers(Ask()),
        ApprovalAnswers("rejected"),
    )
    # A rewrite the divergence needs keeps its tool's keys, its strings as short as it can:
    # emptied, equal to the model's arguments, where the call made again with another input
    # still tells RW-1 (its tool/call records no sidecar, and the body runs the hook's input).
    rewritten = (*program[:2], HookAnswers(Allow(updated_input=rewrite)))
    reduced = reduce_counterexample(
        lambda: _mutant("execution-only-rewrite"),
        _found("execution-only-rewrite", config, rewritten),
    )
    assert reduced.divergence.rule_id == "RW-1"
    assert reduced.program[2] == HookAnswers(Allow(updated_input={"command": ""}))


def test_HOOK_6_an_input_that_fits_no_tool_is_left_as_it_is_when_cutting_down() -> None:
    """HOOK-6: a hook's new input that is not an object, and arguments that are not JSON, are
    the situation itself: cutting down never changes them (only an object's keys a tool does
    not require, and its strings)."""
    config = LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "bash"),))
    program = (
        SubmitUser("please"),
        ModelReplies((ToolCallBlock("c1", "bash", "not json"),)),
        HookAnswers(Allow(updated_input="not an object")),
    )
    arguments, inputs = set(), set()
    for _config, candidate in smaller_candidates(config, program):
        for command in candidate:
            if isinstance(command, ModelReplies):
                arguments |= {call.arguments for call in command.tool_calls}
            if isinstance(command, HookAnswers) and isinstance(command.verdict, Allow):
                inputs.add(command.verdict.updated_input)
    assert arguments == {"not json"}
    assert inputs == {"not an object", None}  # kept, or the rewrite taken away


def test_MODEL_1_a_post_hook_goes_with_its_verdict_in_each_outcome() -> None:
    """MODEL-1: a PostToolUse hook the divergence does not need goes, and so does its verdict in
    the outcome of the call it judged (one verdict per matching hook, or the outcome would be
    refused)."""
    config = CONFIGS[1]  # PreToolUse hooks on bash and write, a PostToolUse hook on read
    program = (
        SubmitUser("look"),
        ModelReplies((READ,)),
        ToolFinishes("c1", ToolSucceeded("a"), (PostContext("note from hook"),)),
    )
    reduced = reduce_counterexample(
        lambda: _mutant("result-in-next-step"), _found("result-in-next-step", config, program)
    )
    assert reduced.divergence.rule_id == "STEP-3"
    assert reduced.config.hooks == ()
    finishes = [c for c in reduced.program if isinstance(c, ToolFinishes)]
    assert [finish.post for finish in finishes] == [()]


class _BreaksOnOneCall:
    """The mutant that changes arguments after sealing them, raising on a reply with one call:
    a target that breaks on a smaller program than the counterexample."""

    name = "breaks on one call"

    def __init__(self) -> None:
        self._mutant = _mutant("mutable-arguments")

    def reset(self, config: LoopConfig) -> frozenset[str]:
        return self._mutant.reset(config)

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ModelReplies) and len(command.tool_calls) == 1:
            raise RuntimeError("one call is more than this loop can take")
        return self._mutant.apply(command)

    def close(self) -> None:
        """Nothing to release."""


def test_SAFE_5_a_target_that_breaks_while_cutting_down_keeps_the_counterexample() -> None:
    """SAFE-5: a target that raises on a smaller program does not turn the counterexample into
    an error: that program is not kept, and the report keeps the one that diverged."""
    calls = (READ, ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'))
    program = (SubmitUser("look"), ModelReplies(calls))
    found = _found("mutable-arguments", CONFIGS[0], program)
    reduced = reduce_counterexample(_BreaksOnOneCall, found)
    assert reduced.divergence.rule_id == "EXE-3"
    assert [len(c.tool_calls) for c in reduced.program if isinstance(c, ModelReplies)] == [2]
    assert reduced.replays > 1  # it tried one-call programs


def test_MODEL_1_cutting_down_stops_at_its_budget_with_a_program_that_diverges() -> None:
    """MODEL-1: out of replays, the reduction returns the smallest program found so far, which
    still diverges, and says it stopped short; the more replays, the smaller."""
    config, program = (
        CONFIGS[1],
        (
            SubmitUser("look"),
            ModelReplies((READ, ToolCallBlock("c2", "read", "{}"))),
            ToolFinishes("c1", ToolSucceeded("a"), (PostContext("note from hook"),)),
        ),
    )
    rule = _found("result-in-next-step", config, program).divergence.rule_id

    def still_diverges(config: LoopConfig, program: tuple[Command, ...]) -> bool:
        replay = replay_case(lambda: _mutant("result-in-next-step"), config, list(program))
        return replay.divergence is not None and replay.divergence.rule_id == rule

    full = reduce_program(config, program, still_diverges, max_replays=10_000, max_seconds=60.0)
    assert full.complete
    heavier = weight(config, program)
    for budget in (0, 3, full.replays // 2, full.replays - 1):
        cut = reduce_program(config, program, still_diverges, max_replays=budget, max_seconds=60.0)
        assert (cut.replays, cut.complete) == (budget, False)
        assert still_diverges(cut.config, cut.program)
        assert weight(full.config, full.program) <= weight(cut.config, cut.program) <= heavier
        heavier = weight(cut.config, cut.program)
        if budget == 0:
            assert (cut.config, cut.program) == (config, program)


def test_MODEL_1_the_counts_line_says_what_cutting_down_cost() -> None:
    """MODEL-1: the replays cutting a counterexample down are counted apart from the programs,
    like Hypothesis's shrinking runs, and no commands-per-second rate is made of them; a run
    without shrinking cuts nothing down either (a bounded run on a slow target)."""
    as_found = run_conformance(
        lambda: _mutant("mutable-arguments"), examples=400, seed_value=BATCH_SEED,
        show_progress=False, shrink=False,
    )  # fmt: skip
    assert as_found.divergence is not None
    assert as_found.reduce_runs == 0
    line = counts_line(attrs.evolve(as_found, seconds=2.0, shrink_runs=0, reduce_runs=41))
    assert "(besides: 41 replays cutting it down)" in line
    assert "commands/s" not in line
    # Section 12's first example shows this mutant before any program is drawn; a search's
    # report, its commands counted, shows a rate when nothing was shrunk or replayed.
    assert as_found.presentation_diverged
    searched = attrs.evolve(
        as_found, presentation_diverged=False, examples=3, steps=30, seconds=2.0, shrink_runs=0
    )
    assert "commands/s" in counts_line(searched)


class _RefusesWithAnotherRule(ModelTarget):
    """The model, naming LOG-1 for every command it refuses (whatever the model's rule)."""

    name = "refuses with another rule"

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        return observed if observed.accepted else attrs.evolve(observed, refusal_rule="LOG-1")


def test_MODEL_1_a_refusal_for_another_rule_replays_from_its_case() -> None:
    """MODEL-1: conform compares the rule a refusal names, and so does replay: a program whose
    command the target refuses with the wrong rule replays to that divergence, and is cut down
    to that command. Replay compared only that both refused, so such a case replayed as "no
    divergence" and conform could not cut it down (it reported 8 commands for one)."""
    program = (SubmitUser("hi"), ModelReplies(()), ModelFails("overloaded", "OVERLOADED"))
    replayed = replay_case(_RefusesWithAnotherRule, CONFIGS[0], list(program))
    assert replayed.divergence is not None
    assert (replayed.divergence.rule_id, replayed.divergence.index) == ("MODEL-1", 2)
    assert "the target with LOG-1" in replayed.divergence.what
    found = DivergenceFound(replayed.divergence, CONFIGS[0], program)
    reduced = reduce_counterexample(_RefusesWithAnotherRule, found)
    assert reduced.program == (ModelFails("", "OVERLOADED"),)
    assert reduced.divergence.rule_id == "MODEL-1"


def test_SAFE_5_an_interrupted_cutting_down_keeps_the_smallest_program_so_far() -> None:
    """SAFE-5: Ctrl-C while the counterexample is cut down (an in-process target that hangs can
    be stopped no other way) ends the cutting, not the run: the smallest program found so far,
    which diverges, is reported."""
    config, program = (
        CONFIGS[1],
        (
            SubmitUser("look"),
            ModelReplies((READ, ToolCallBlock("c2", "read", "{}"))),
            ToolFinishes("c1", ToolSucceeded("a"), (PostContext("note from hook"),)),
        ),
    )
    rule = _found("result-in-next-step", config, program).divergence.rule_id
    kept: list[tuple[LoopConfig, tuple[Command, ...]]] = []

    def interrupted_after_a_success(config: LoopConfig, program: tuple[Command, ...]) -> bool:
        if kept:
            raise KeyboardInterrupt
        replay = replay_case(lambda: _mutant("result-in-next-step"), config, list(program))
        if replay.divergence is None or replay.divergence.rule_id != rule:
            return False
        kept.append((config, program))
        return True

    cut = reduce_program(
        config, program, interrupted_after_a_success, max_replays=10_000, max_seconds=60.0
    )
    assert not cut.complete
    assert cut.interrupted  # not the budget (the report says which)
    assert [(cut.config, cut.program)] == kept


class _Interrupted(ModelTarget):
    """A target whose every command is interrupted (Ctrl-C while it works)."""

    def apply(self, command: Command) -> Observation:
        raise KeyboardInterrupt


def test_SAFE_5_ctrl_c_while_a_counterexample_is_confirmed_keeps_it() -> None:
    """SAFE-5: Ctrl-C during the first replay (the whole program, before anything is cut, a slow
    process target's longest) keeps the counterexample the run found; it escaped the run, which
    lost its report, as Ctrl-C there did for a breakage (one cutting-down for both now)."""
    config = CONFIGS[1]
    program = (
        SubmitUser("look"),
        ModelReplies((READ, ToolCallBlock("c2", "read", "{}"))),
        ToolFinishes("c1", ToolSucceeded("a"), (PostContext("note from hook"),)),
    )
    found = _found("result-in-next-step", config, program)
    reduced = reduce_counterexample(_Interrupted, found)
    assert (reduced.config, reduced.program, reduced.divergence) == (
        found.config,
        found.program,
        found.divergence,
    )
    assert reduced.replays == 1


class _InterruptedAtItsThirdCommand(ModelTarget):
    """A target the user stops (Ctrl-C) while its third command of the run works; it counts the
    commands it is sent after that."""

    def __init__(self) -> None:
        super().__init__()
        self.applied = 0
        self.after_the_interrupt = 0

    def apply(self, command: Command) -> Observation:
        self.applied += 1
        if self.applied == 3:
            raise KeyboardInterrupt
        if self.applied > 3:
            self.after_the_interrupt += 1
        return super().apply(command)


def test_SAFE_5_ctrl_c_while_a_command_works_ends_the_run_and_sends_nothing_more() -> None:
    """SAFE-5: Ctrl-C while the target works on a command ends the run with KeyboardInterrupt
    (the CLI's exit 130), and the target is sent nothing more. The program's teardown settled
    it, sending the commands that drive it to a quiet end: a process target then read the
    interrupted command's answer as the next one's, and the run reported a divergence the target
    'answered differently when it ran again' (PROTO-1, exit 2), or saved a PROTO-1 case for it
    (h3's Frank, Ctrl-C in about half of 14 tries)."""
    made: list[_InterruptedAtItsThirdCommand] = []

    def factory() -> _InterruptedAtItsThirdCommand:
        made.append(_InterruptedAtItsThirdCommand())
        return made[-1]

    with pytest.raises(KeyboardInterrupt):
        run_conformance(factory, examples=5, seed_value=BATCH_SEED, show_progress=False)
    assert [target.after_the_interrupt for target in made if target.applied >= 3] == [0]
