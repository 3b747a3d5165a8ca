"""The conformance oracle answers a program prefix it has seen from memory (`oracle_memo`),
with exactly what the model, stepped afresh, answers."""

from __future__ import annotations

from loopspec.model.commands import (
    Command,
    ModelReplies,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig, ToolSpec
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.exhaustive import EXHAUSTIVE_CONFIG, programs
from loopspec.properties.conformance.oracle_memo import OracleMemo
from loopspec.properties.conformance.target import ModelTarget, Observation


def _played(
    oracle: ModelTarget,
    config: LoopConfig,
    program: tuple[Command, ...],
    *,
    presenting: bool = True,
    reporting_history: bool = True,
) -> list[Observation]:
    oracle.reset(config)
    oracle.presenting, oracle.reporting_history = presenting, reporting_history
    return [oracle.apply(command) for command in program]


def test_MODEL_1_a_remembered_prefix_is_answered_as_the_model_answers_it() -> None:
    """Every exhaustive program of 5 commands (hooks, approvals, aborts, crashes, recovery;
    each a prefix of others or sharing one), on one remembering oracle: each command's
    observation (events, commits, runs, presentation, history) and the state after it are the
    fresh model's; most of them came from memory."""
    memo = OracleMemo()
    remembering, fresh = ModelTarget(memo), ModelTarget()
    answered = 0
    for program in programs(5, EXHAUSTIVE_CONFIG):
        remembered = memo.size
        expected = _played(fresh, EXHAUSTIVE_CONFIG, program)
        assert _played(remembering, EXHAUSTIVE_CONFIG, program) == expected, program
        assert remembering.state == fresh.state
        answered += len(program) - (memo.size - remembered)
    assert answered > memo.size  # more commands answered from memory than stepped


def test_MODEL_1_the_memo_tells_apart_what_python_finds_equal() -> None:
    """A result whose meta holds 1, then the same with True, then with 1.0 (equal in Python,
    not in the log), and the same program with and without presentation and history: each is
    answered as the fresh model answers it, not with another's remembered observation."""
    config = LoopConfig(tools=(ToolSpec("read"),))
    memo = OracleMemo()
    remembering = ModelTarget(memo)
    for value in (1, True, 1.0):
        program = (
            SubmitUser("hi"),
            ModelReplies((ToolCallBlock("c1", "read", "{}"),)),
            ToolFinishes("c1", ToolSucceeded("ok", meta=FrozenMap({"n": value}))),
        )
        for flags in ((True, True), (False, True), (True, False), (False, False)):
            presenting, reporting_history = flags
            got = _played(
                remembering,
                config,
                program,
                presenting=presenting,
                reporting_history=reporting_history,
            )
            want = _played(
                ModelTarget(),
                config,
                program,
                presenting=presenting,
                reporting_history=reporting_history,
            )
            assert got == want, (value, flags)
            assert repr(got) == repr(want), (value, flags)


def test_MODEL_1_the_memo_starts_again_when_full() -> None:
    """Past the prefixes it keeps, the memo forgets them all and goes on remembering; what it
    answers stays the model's."""
    memo = OracleMemo(kept=10)
    remembering, fresh = ModelTarget(memo), ModelTarget()
    for program in list(programs(3, EXHAUSTIVE_CONFIG)) * 2:
        expected = _played(fresh, EXHAUSTIVE_CONFIG, program)
        assert _played(remembering, EXHAUSTIVE_CONFIG, program) == expected
        assert memo.size <= 10


def test_MODEL_1_the_memo_tells_apart_configurations_python_finds_equal() -> None:
    """Two configurations equal in Python whose clocks the log writes apart (an epoch of 1.7e12
    as an integer, then as a float): the second program is answered as the fresh model answers
    it, with its own times."""
    memo = OracleMemo()
    remembering = ModelTarget(memo)
    program = (SubmitUser("hi"), ModelReplies((ToolCallBlock("c1", "read", "{}"),)))
    for epoch in (1_700_000_000_000, 1_700_000_000_000.0):
        config = LoopConfig(tools=(ToolSpec("read"),), epoch_ms=epoch)  # type: ignore[arg-type]
        got = _played(remembering, config, program)
        want = _played(ModelTarget(), config, program)
        assert repr(got) == repr(want), epoch
