"""`conform --max-seconds`: a wall-clock budget that ends the search with a report, not a kill.

CI wrapped conform in `timeout`, whose SIGTERM ends it with exit 143 and no report (h3's Frank).
The clock is injected (`run_conformance(deadline=, clock=)`), or the budget is 0: no test waits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
from batches import BATCH_SEED

from loopspec.model.commands import Command, ModelReplies
from loopspec.model.config import LoopConfig
from loopspec.properties.cli.conform_run import budget_note
from loopspec.properties.cli.main import main
from loopspec.properties.conformance import machine as conformance
from loopspec.properties.conformance import run as conformance_run
from loopspec.properties.conformance import suite
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.reduce import weight
from loopspec.properties.conformance.run import RunReport, run_conformance
from loopspec.properties.conformance.target import ModelTarget, Observation


class _Ticking:
    """A clock that moves one second each time it is read (each program the run starts)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_the_budget_ends_the_search_with_the_programs_run_so_far() -> None:
    """Past the deadline, no program starts: the run reports the programs it ran (not the 200
    asked for) as conformant and says the time ended it."""
    clock = _Ticking()
    report = run_conformance(
        ModelTarget,
        examples=200,
        seed_value=BATCH_SEED,
        show_progress=False,
        deadline=4.5,
        clock=clock,
    )
    assert report.conformant
    assert report.out_of_time
    # Read at 1 before section 12's examples (the model presents), then at 2, 3, 4: three
    # programs started; read at 5: none more.
    assert report.presentation_examples > 0
    assert report.examples + report.retries == 3
    unbounded = run_conformance(
        ModelTarget, examples=10, seed_value=BATCH_SEED, show_progress=False
    )
    assert not unbounded.out_of_time
    assert unbounded.examples == 10


class _Late:
    """Time that stands still until the target's bug has shown `after` times, then is long
    past the deadline."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.shown = 0

    def __call__(self) -> float:
        return 100.0 if self.shown >= self.after else 0.0


def _drops_a_third_replys_events(clock: _Late) -> type[ModelTarget]:
    class DropsAThirdReplysEvents(ModelTarget):
        """The model, but the third model reply of a program that appends events appends
        none: a counterexample needs three replies, so the first one found is longer."""

        def __init__(self) -> None:
            super().__init__()
            self.replies = 0

        def reset(self, config: LoopConfig) -> frozenset[str]:
            # Section 12's examples, played first, are programs of one session each.
            self.replies = 0
            return super().reset(config)

        def apply(self, command: Command) -> Observation:
            observed = super().apply(command)
            if isinstance(command, ModelReplies) and observed.events:
                self.replies += 1
                if self.replies == 3:
                    clock.shown += 1
                    return attrs.evolve(observed, events=(), commits=(), atomic=())
            return observed

    return DropsAThirdReplysEvents


def _budgeted(after: int | None) -> RunReport:
    clock = _Late(after if after is not None else 1 << 30)
    target = _drops_a_third_replys_events(clock)
    return run_conformance(
        target,
        examples=200,
        seed_value=BATCH_SEED,
        show_progress=False,
        deadline=None if after is None else 50.0,
        clock=clock,
    )


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_a_counterexample_being_shrunk_when_the_time_ends_keeps_the_smallest_found() -> None:
    """The deadline passes while Hypothesis shrinks a counterexample: the run still reports it,
    with the smallest program found by then, not cut down (no time is left for that), and
    says the time ended the shrinking. Ended at once, that is the first program found; ended
    part-way, one simpler than it (`reduce.weight`, the order cutting down descends) and not
    yet the program a run without a budget reports. (Simpler, not always shorter: in the fixed
    batch the first program found has 21 commands, which a run without a budget shrinks (554
    runs) and cuts down to 4; the shrinks of the first 4 clock readings make it simpler.)"""
    unbounded = _budgeted(None)
    assert unbounded.divergence is not None
    assert not unbounded.out_of_time
    assert not unbounded.cut_short  # cutting down went to its end
    assert budget_note(unbounded, None) is None
    at_once = _budgeted(1)
    part_way = _budgeted(4)
    for report in (at_once, part_way):
        assert report.divergence is not None
        assert report.divergence.rule_id == unbounded.divergence.rule_id
        assert report.out_of_time
        assert report.reduce_runs == 0
    assert at_once.shrink_runs == 0
    assert part_way.shrink_runs > 0
    weights = []
    for report in (at_once, part_way, unbounded):
        assert report.config is not None
        weights.append(weight(report.config, report.program))
    found, shrunk, reported = weights
    assert found > shrunk > reported
    assert len(at_once.program) >= len(part_way.program) >= len(unbounded.program)


class _DropsTheFirstReplysEvents(ModelTarget):
    """The model, but a program's first model reply that appends events appends none: found
    in the first program, and shrunk in a few runs."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self.replied = False
        return super().reset(config)

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if isinstance(command, ModelReplies) and observed.events and not self.replied:
            self.replied = True
            return attrs.evolve(observed, events=(), commits=(), atomic=())
        return observed


def test_a_counterexample_whose_cutting_down_stopped_at_its_bounds_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cutting a counterexample down stops at its own bounds (60 s, or 2000 replays) on a slow
    target with no --max-seconds: the case was saved, and the report shown, as if the program
    were the smallest, with nothing said. The report says cutting stopped and how to go on
    (the bound here: no replay at all); a run whose cutting went to its end says nothing
    (`test_a_counterexample_being_shrunk_when_the_time_ends_keeps_the_smallest_found`)."""
    monkeypatch.setattr(conformance_run, "REDUCE_REPLAYS", 0)
    stopped = run_conformance(
        _DropsTheFirstReplysEvents, examples=20, seed_value=BATCH_SEED, show_progress=False
    )
    assert stopped.divergence is not None
    assert stopped.cut_short
    assert not stopped.out_of_time
    note = budget_note(stopped, None)
    assert note is not None
    assert note.startswith("cutting the program down stopped after 60 s or 2000 replays")
    assert suite.counterexample_failure(stopped, {}, []).splitlines()[2] == f"  {note}"
    assert note.endswith("`loopspec replay CASE --reduce` with this target cuts it further")


class _InterruptedOnceArmed:
    """`inner`, whose reset is interrupted (Ctrl-C) once `armed` ends with True; a reset while
    it ends with False arms it for the next."""

    name = "model"

    def __init__(self, inner: ModelTarget, armed: list[bool]) -> None:
        self.inner, self.armed = inner, armed

    def reset(self, config: LoopConfig) -> frozenset[str]:
        if self.armed and self.armed[-1]:
            raise KeyboardInterrupt
        if self.armed:
            self.armed.append(True)
        return self.inner.reset(config)

    def apply(self, command: Command) -> Observation:
        return self.inner.apply(command)

    def close(self) -> None:
        self.inner.close()


@pytest.mark.parametrize("stopped", ["shrinking", "cutting down"])
def test_SAFE_5_ctrl_c_while_a_counterexample_is_shrunk_keeps_the_smallest_found(
    stopped: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAFE-5: Ctrl-C while Hypothesis shrinks a counterexample ended the run "its report not
    written", the counterexample found lost; Ctrl-C while it is cut down kept it but said
    "cutting the program down stopped after 60 s or 2000 replays", a bound never reached. Both
    keep the smallest program found by then, and say Ctrl-C stopped the shrinking."""
    armed: list[bool] = []
    # A divergence the search finds, or one section 12's examples find (cut down at once).
    buggy: type[ModelTarget] = _drops_a_third_replys_events(_Late(1 << 30))
    if stopped == "shrinking":  # armed once the search has found the divergence
        keep = conformance.ConformanceRun.keep_if_smallest

        def kept(run: conformance.ConformanceRun, found: DivergenceFound) -> None:
            armed.append(True)
            keep(run, found)

        monkeypatch.setattr(conformance.ConformanceRun, "keep_if_smallest", kept)
    else:  # armed once cutting down begins: its first replay is let through
        buggy = _DropsTheFirstReplysEvents
        reduce = conformance_run.reduce_counterexample

        def reducing(*args: Any, **kwargs: Any) -> conformance_run.Reduced:
            armed.append(False)
            return reduce(*args, **kwargs)

        monkeypatch.setattr(conformance_run, "reduce_counterexample", reducing)

    report = run_conformance(
        lambda: _InterruptedOnceArmed(buggy(), armed),
        examples=20,
        seed_value=BATCH_SEED,
        show_progress=False,
    )
    assert report.divergence is not None
    assert report.stopped_by_ctrl_c
    assert not report.cut_short
    assert not report.out_of_time
    assert (report.reduce_runs == 0) == (stopped == "shrinking")
    note = budget_note(report, None)
    assert note is not None
    assert note.startswith("Ctrl-C stopped the shrinking: the smallest program found by then")
    # The pytest plugin's failure says it too, under the counts (it said neither this nor the
    # bounds' note).
    failure = suite.counterexample_failure(report, {}, []).splitlines()
    assert failure[2] == f"  {note}"


def test_conform_max_seconds_0_checks_nothing_and_is_no_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--max-seconds 0`: the search ends before its first program. No program ran, so there
    is no verdict: not CONFORMANT with exit 0 (a CI job green on nothing), but one line on
    stderr saying nothing was checked, exit 2, in either format, and no case folder made."""
    cases = str(tmp_path / "cases")
    for extra in ([], ["--format", "json"]):
        assert main(["conform", "--max-seconds", "0", "--case-dir", cases, *extra]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err == (
            "loopspec: error: the --max-seconds 0 budget ended before the first "
            "program: nothing was checked\n"
        )
    assert not (tmp_path / "cases").exists()


@pytest.mark.no_cover
def test_conform_budget_ended_after_section_12s_examples_says_what_was_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A budget that ends after SPEC.md section 12's presentation examples (played first, on a
    target that presents) and before the first program is still no verdict, exit 2; but the
    line says those examples were played, where it said "nothing was checked" after 41 of them
    had passed (a loaded CI machine, `--max-seconds 1`)."""
    from loopspec.properties.cli import conform_run  # noqa: PLC0415 (the CLI's own binding)

    reads = iter([0.0])

    def passes_after_the_examples() -> float:
        return next(reads, 10.0)  # before section 12's examples, then past the deadline

    def run_with_that_clock(*given: Any, **options: Any) -> RunReport:
        options.update(deadline=1.0, clock=passes_after_the_examples)
        return run_conformance(*given, **options)

    monkeypatch.setattr(conform_run, "run_conformance", run_with_that_clock)
    assert main(["conform", "--max-seconds", "1", "--case-dir", str(tmp_path / "cases")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith(
        "loopspec: error: the --max-seconds 1 budget ended before the first program: only "
    )
    assert line.endswith(
        " of SPEC.md section 12's presentation examples were played (none diverged), no random "
        "program: give the search longer"
    )
    assert "nothing was checked" not in line


@pytest.mark.parametrize("given", ["-1", "nan", "inf", "soon"])
def test_conform_max_seconds_must_be_a_finite_number_at_least_0(
    given: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A budget that bounds nothing (or cannot be read) is argparse's usage error."""
    with pytest.raises(SystemExit) as stopped:
        main(["conform", "--max-seconds", given])
    assert stopped.value.code == 2
    assert "--max-seconds" in capsys.readouterr().err
