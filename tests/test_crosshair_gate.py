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
    Job,
    budget_groups,
    conditions_in,
    contracted_functions,
    module_jobs,
    run_worker,
    share_out,
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


@pytest.mark.parametrize("module", PURE_MODULES)
def test_a_modules_jobs_are_its_budget_groups(module: str) -> None:
    """Each budget group is one job, naming its functions in the module at that budget."""
    expected = {
        budget: tuple(f"{module}.{name}" for name in names)
        for budget, names in budget_groups(module, None).items()
    }
    assert {job.budget: job.targets for job in module_jobs(module, None)} == expected


@pytest.mark.parametrize("workers", [1, 2, 3, 40])
def test_the_jobs_are_shared_out_each_once_over_at_most_one_worker_a_core(workers: int) -> None:
    """Every job runs in exactly one worker; no worker is idle; no more workers than cores (or
    jobs); and the costliest worker is within one job of an even share."""
    jobs = [job for module in PURE_MODULES for job in module_jobs(module, None)]
    jobs += [Job(f"planted:{bug.name}", (bug.name,), 2.0, 2.0) for bug in PLANTED_BUGS]
    shares = share_out(jobs, workers)
    assert len(shares) == min(workers, len(jobs))
    assert all(shares)
    assert sorted(map(repr, (job for share in shares for job in share))) == sorted(map(repr, jobs))
    costs = [sum(job.cost for job in share) for share in shares]
    even = sum(costs) / len(shares)
    assert max(costs) <= even + max(job.cost for job in jobs)


def test_one_worker_runs_jobs_of_different_budgets_each_with_its_own_outcome(
    tmp_path: Path,
) -> None:
    """A worker process runs its jobs in order, each `crosshair check` at its own budget: a
    function its contract holds for gives exit 0, one it does not gives exit 1 with the
    counterexample, and a target that cannot be loaded gives exit 2, all in one process."""
    (tmp_path / "contracted.py").write_text(
        "def right(x: int) -> int:\n"
        '    """post: __return__ > x"""\n'
        "    return x + 1\n\n\n"
        "def wrong(x: int) -> int:\n"
        '    """post: __return__ > x"""\n'
        "    return x if x == 7 else x + 1\n",
        encoding="utf-8",
    )
    jobs = [
        Job("right", ("contracted.right",), 0.1, 0.1),
        Job("wrong", ("contracted.wrong",), 0.5, 0.5),
        Job("missing", ("contracted_missing.f",), 0.1, 0.1),
    ]
    right, wrong, missing = run_worker(jobs, tmp_path)
    assert (right.code, right.output) == (0, ""), right.output
    assert wrong.code == 1, wrong.output
    assert "wrong(7)" in wrong.output, wrong.output
    assert missing.code == 2, missing.output
