"""A conformance run's memory: what a program held is let go when the next one starts, and the
collector's setting a run changes is the caller's again afterwards.

Hypothesis keeps each finished machine in reference cycles; before, everything a program held
lived on until the cyclic collector ran, programs later (`run._OneProgramAtATime`). A run makes
the youngest generation's collections rarer (`run._young_collections_rarer`) and must hand the
process back as it found it, however the run ends. Nor may a run leave anything behind for good:
a process may run conform many times, and Hypothesis keeps every machine class it has run, so
every run shares the one `machine.ConformanceMachine`.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from typing import ClassVar

import pytest
from batches import BATCH_SEED

from loopspec.model.commands import Command
from loopspec.properties.conformance import run
from loopspec.properties.conformance.run import TargetError, run_conformance
from loopspec.properties.conformance.target import ModelTarget, Observation

PROGRAMS = 30


class _CountedModel(ModelTarget):
    """The model as a target, counting its instances alive and the collector's setting seen."""

    alive: ClassVar[weakref.WeakSet[_CountedModel]] = weakref.WeakSet()
    most_alive: ClassVar[int] = 0
    thresholds_seen: ClassVar[set[tuple[int, int, int]]] = set()

    def __init__(self) -> None:
        super().__init__()
        _CountedModel.alive.add(self)

    def apply(self, command: Command) -> Observation:
        _CountedModel.most_alive = max(_CountedModel.most_alive, len(_CountedModel.alive))
        _CountedModel.thresholds_seen.add(gc.get_threshold())
        return super().apply(command)


class _DropsTheSecondTurn(_CountedModel):
    """A target that diverges: its second turn's events are lost."""

    def __init__(self) -> None:
        super().__init__()
        self._turns = 0

    def apply(self, command: Command) -> Observation:
        seen = super().apply(command)
        if type(command).__name__ == "SubmitUser":
            self._turns += 1
            if self._turns == 2:
                return Observation(True)
        return seen


class _Breaks(_CountedModel):
    """A target whose code raises at its fifth command (SAFE-5: a broken target)."""

    def __init__(self) -> None:
        super().__init__()
        self._commands = 0

    def apply(self, command: Command) -> Observation:
        self._commands += 1
        if self._commands == 5:
            raise RuntimeError("the target's own bug")
        return super().apply(command)


@pytest.fixture
def counted() -> Iterator[None]:
    """A fresh count, and the collector's setting put back whatever the test did to it."""
    before, enabled = gc.get_threshold(), gc.isenabled()
    _CountedModel.alive = weakref.WeakSet()
    _CountedModel.most_alive = 0
    _CountedModel.thresholds_seen = set()
    yield
    gc.set_threshold(*before)
    if enabled:
        gc.enable()


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_a_program_s_state_is_let_go_when_the_next_program_starts(counted: None) -> None:
    """With the cyclic collector off, targets alive at any command: the probe's and the current
    program's. Before, every finished program's machine stayed in Hypothesis's cycles with its
    target and the model's states, one more per program until a collection."""
    gc.disable()
    report = run_conformance(
        _CountedModel, examples=PROGRAMS, seed_value=BATCH_SEED, show_progress=False
    )
    assert report.conformant
    assert report.examples >= PROGRAMS // 2  # the count below covers many programs
    assert _CountedModel.most_alive <= 2, f"{_CountedModel.most_alive} targets alive at once"
    gc.enable()
    gc.collect()
    assert len(_CountedModel.alive) == 0


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_a_run_makes_young_collections_rarer_and_restores_the_setting(
    counted: None,
) -> None:
    """During a run the youngest generation is collected every `YOUNG_GENERATION_THRESHOLD`
    allocations; after it, the caller's setting is back, whether the run passed, found a
    divergence (and shrank it) or stopped at a broken target. (Replays that cut a
    counterexample down run after, at the caller's setting.)"""
    caller = (650, 9, 11)  # not Python's default, so a reset to the default would show
    gc.set_threshold(*caller)
    passing = run_conformance(_CountedModel, examples=5, seed_value=BATCH_SEED, show_progress=False)
    assert passing.conformant
    assert _CountedModel.thresholds_seen == {(run.YOUNG_GENERATION_THRESHOLD, 9, 11)}
    assert gc.get_threshold() == caller
    diverging = run_conformance(
        _DropsTheSecondTurn, examples=PROGRAMS, seed_value=BATCH_SEED, show_progress=False
    )
    assert diverging.divergence is not None
    assert gc.get_threshold() == caller
    with pytest.raises(TargetError):
        run_conformance(_Breaks, examples=PROGRAMS, seed_value=BATCH_SEED, show_progress=False)
    assert gc.get_threshold() == caller


def _machine_classes_alive() -> int:
    """The conformance machine classes alive (conform makes none per run)."""
    from hypothesis.stateful import RuleBasedStateMachine  # noqa: PLC0415

    gc.collect()
    return sum(
        1
        for alive in gc.get_objects()
        if isinstance(alive, type)
        and issubclass(alive, RuleBasedStateMachine)
        and alive.__module__.startswith("loopspec.properties.conformance")
    )


def _swarms_alive() -> int:
    from loopspec.properties.stateful.swarm import Swarm  # noqa: PLC0415

    gc.collect()
    return sum(1 for alive in gc.get_objects() if isinstance(alive, Swarm))


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_a_run_lets_go_of_its_machine_classes_and_the_target_factory(
    counted: None,
) -> None:
    """After a run, however it ended, nothing of it stays alive: no machine class of its own,
    nor the target factory, nor the swarms its programs drew. Before, each run made two machine
    classes whose methods closed over the factory, which Hypothesis's registries of machine
    classes kept for good, and a cache keyed on whole swarms kept every swarm, about 130
    objects a run, in a process that runs conform many times (a pytest session, the pytest
    plugin)."""
    # A run warms caches that keep a bounded number of objects for good: counted after one.
    run_conformance(_CountedModel, examples=10, seed_value=BATCH_SEED, show_progress=False)
    classes, swarms = _machine_classes_alive(), _swarms_alive()
    factories: list[weakref.ref[type[_CountedModel]]] = []
    for offset, target in enumerate((_CountedModel, _CountedModel, _DropsTheSecondTurn, _Breaks)):
        # A factory of the run's own, so that only the run could keep it alive.
        factory = type(f"Run{offset}", (target,), {})
        factories.append(weakref.ref(factory))
        try:
            run_conformance(
                factory, examples=10, seed_value=BATCH_SEED + offset, show_progress=False
            )
        except TargetError:
            assert target is _Breaks
        del factory
    assert _machine_classes_alive() == classes
    assert [made() for made in factories] == [None] * len(factories)
    assert _swarms_alive() == swarms
