"""Conform draws its programs through Hypothesis's internal draw when it has one (it is cheaper
than `data.draw`); the programs, and so the report, are the same as with the public draw, which
a Hypothesis without the internal one gets."""

from __future__ import annotations

from typing import Any, cast

import pytest
from hypothesis import strategies as st

from loopspec.properties.conformance import machine
from loopspec.properties.conformance.run import RunReport, run_conformance
from loopspec.properties.conformance.target import ModelTarget


def _run() -> RunReport:
    return run_conformance(ModelTarget, examples=15, seed_value=3, show_progress=False)


def _summary(report: RunReport) -> tuple[Any, ...]:
    return (
        report.examples,
        report.steps,
        sorted(report.transitions.items()),
        sorted(report.rules.items()),
        sorted(report.situations.items()),
    )


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_programs_are_the_same_with_the_public_draw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    internal = _summary(_run())
    monkeypatch.setattr(machine, "_draw", lambda data, strategy: data.draw(strategy))
    assert _summary(_run()) == internal


class _PublicOnly:
    """A DataObject as a Hypothesis without `conjecture_data` would hand it over."""

    def __init__(self) -> None:
        self.drawn: list[object] = []

    def draw(self, strategy: st.SearchStrategy[Any]) -> object:
        self.drawn.append(strategy)
        return "drawn"


def test_MODEL_1_a_hypothesis_without_the_internal_draw_gets_the_public_one() -> None:
    data = _PublicOnly()
    strategy: st.SearchStrategy[object] = st.just(1)
    assert machine._draw(cast(st.DataObject, data), strategy) == "drawn"
    assert data.drawn == [strategy]
