"""The CrossHair gate's per-function budgets check every condition of the pure core once.

`make crosshair` runs CrossHair itself (minutes of CPU); these tests hold only the bookkeeping
that decides which function runs at which budget, so a renamed function or a condition written
where the gate does not look cannot drop out of the check unseen.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from loopspec.properties.crosshair_gate import (
    BUDGETS,
    DEFAULT_BUDGET,
    PLANTED_BUGS,
    PURE_MODULES,
    budget_groups,
    conditions_in,
    contracted_functions,
)


def test_every_budget_names_a_contracted_function_of_the_pure_core() -> None:
    """A budget for a function that no longer states conditions (renamed, moved) would leave
    the new name at the default and the table misleading."""
    contracted = {name for module in PURE_MODULES for name in contracted_functions(module)}
    assert set(BUDGETS) <= contracted, set(BUDGETS) - contracted
    assert all(0 < budget <= DEFAULT_BUDGET for budget in BUDGETS.values()), BUDGETS


@pytest.mark.parametrize("module", PURE_MODULES)
def test_the_budget_groups_check_each_contracted_function_once(module: str) -> None:
    """Every function stating conditions is in exactly one CrossHair run of its module, and
    those functions state all the module's conditions."""
    groups = budget_groups(module, None)
    grouped = [name for functions in groups.values() for name in functions]
    assert sorted(grouped) == sorted(contracted_functions(module))
    assert sum(contracted_functions(module).values()) == conditions_in(module)
    for budget, functions in groups.items():
        assert all(BUDGETS.get(name, DEFAULT_BUDGET) == budget for name in functions)


@pytest.mark.parametrize("module", PURE_MODULES)
def test_crosshair_timeout_runs_every_function_at_its_budget(module: str) -> None:
    """CROSSHAIR_TIMEOUT (a deeper search) is one budget for the whole module: one run."""
    assert budget_groups(module, 30.0) == {30.0: tuple(contracted_functions(module))}


def test_planted_bugs_sit_in_contracted_functions() -> None:
    """Each planted bug is checked at its function's budget: the function must be one the
    gate knows."""
    for bug in PLANTED_BUGS:
        assert bug.function in contracted_functions(bug.module), bug.name


def test_a_condition_outside_a_top_level_function_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A method's contract would be counted by `conditions_in` but run by no budget group:
    the gate refuses the module rather than skip the condition."""
    (tmp_path / "contracted_method.py").write_text(
        'def f(x: int) -> int:\n    """post: __return__ == x"""\n    return x\n\n\n'
        "class C:\n"
        '    def g(self, x: int) -> int:\n        """post: __return__ > x"""\n'
        "        return x + 1\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="outside a top-level function"):
        contracted_functions("contracted_method")
