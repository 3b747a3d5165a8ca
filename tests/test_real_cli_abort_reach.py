"""Random programs for a real CLI reach every abort situation (ABORT-1, ABORT-2, ORD-3).

On the real Claude Code and Codex CLIs (`DRIVEN_CAPABILITIES`, their profiles) a program ends at
the first hard known divergence it shows: a reply with a call the model settles without running
(the CLI runs it), a reply repeating a call id (EXE-1), an abort while a call's hooks run
(ABORT-2) or while a call runs (ABORT-1). Half the programs ended at their first reply, and the
aborts that came before it fell while the model request was pending or hooks ran: a real-CLI
conform run all but never aborted over a running call, nor over a call that finished while an
earlier one still ran. The test runs the conformance machine on the model declaring only what
the real-CLI driver declares, under each CLI's profile, and counts per situation the programs
reaching it before one of those cuts. Not played here: Codex's SCHED-1 cut, at calls it runs
together where the model would not (there an abort while a later call waits needs a batch the
model runs whole), and Claude Code's ORD-3 cut, at a later call's result written before an
earlier call's, which comes before any abort while that later call waits: that situation is
not required of Claude Code's programs.
"""

from __future__ import annotations

from collections import Counter

import pytest
from batches import seeded
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from loopspec.model.commands import Abort, Command
from loopspec.model.config import LoopConfig
from loopspec.model.state import READY, RUNNING, Dispatching, Rewriting
from loopspec.properties.conformance.machine import conformance_machine
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.harnesses.script import DRIVEN_CAPABILITIES
from loopspec.properties.profiles.real_harnesses import PROFILES

PROGRAMS = 60
# Programs of the batch that must reach each situation before their cut (next to none did
# before the aims). Codex's programs reach an abort over a running call 9 times in the batch of
# session 35's draws (b3fbe6b: an outcome for a settled call comes first in a running batch).
LEAST = {
    "abort over a running call": 8,
    "abort while hooks run": 2,
    "abort while a later call waits": 1,
}
WAITS_CUT_FIRST = {"claude-code": "abort while a later call waits"}  # its ORD-3 cut
SETTLED_UNRUN = ("UNKNOWN_TOOL", "INVALID_TOOL_INPUT")


class DrivenModel(ModelTarget):
    """The model, declaring only the capabilities the real-CLI driver declares."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        super().reset(config)
        return frozenset(DRIVEN_CAPABILITIES)


def _settles_unrun(observation: Observation) -> bool:
    return any(
        event["type"] == "tool/result"
        and (event["data"].get("error") or {}).get("code") in SETTLED_UNRUN
        for event in observation.events
    )


def _abort_situation(phase: object) -> str | None:
    """The abort situation an Abort sent in `phase` creates, where the CLI's profile cuts."""
    if isinstance(phase, Rewriting):
        return "abort while hooks run"
    if not isinstance(phase, Dispatching):
        return None
    statuses = [slot.status for slot in phase.slots]
    if READY in statuses and RUNNING in statuses[: statuses.index(READY)]:
        return "abort while a later call waits"
    return "abort over a running call" if RUNNING in statuses else None


@pytest.mark.no_cover
@pytest.mark.parametrize("harness", ["codex", "claude-code"])
def test_ABORT_1_ABORT_2_ORD_3_real_cli_programs_abort_over_running_calls_and_hooks(
    harness: str,
) -> None:
    reached: Counter[str] = Counter()
    base = conformance_machine(DrivenModel, PROFILES[harness])

    class Counting(base):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            self.seen: set[str] = set()
            self.cut = False
            self.last: Observation | None = None
            super().__init__()
            model_apply = self.oracle.apply

            def observed(command: Command) -> Observation:
                self.last = model_apply(command)
                return self.last

            self.oracle.apply = observed

        def apply(self, command: Command) -> None:
            phase = self.oracle.state.phase if self.oracle.state is not None else None
            situation = _abort_situation(phase) if isinstance(command, Abort) else None
            sent = len(self.program)
            super().apply(command)
            if self.cut or len(self.program) == sent:
                return
            if situation is not None:  # ABORT-1 or ABORT-2 of the profile cuts here
                self.seen.add(situation)
                self.cut = True
            elif self.last is not None and (not self.last.accepted or _settles_unrun(self.last)):
                self.cut = True  # EXE-1 (a refused reply) or shell-mapped-tools cuts here

        def teardown(self) -> None:
            super().teardown()
            reached.update(self.seen)

    budget = settings(
        max_examples=PROGRAMS,
        stateful_step_count=40,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    run_state_machine_as_test(seeded(Counting), settings=budget)
    print(f"\n{harness}: programs reaching each abort situation before a cut (of {PROGRAMS}):")
    for situation in LEAST:
        print(f"  {reached[situation]:>4}  {situation}")
    required = {
        name: least for name, least in LEAST.items() if WAITS_CUT_FIRST.get(harness) != name
    }
    short = {name: reached[name] for name, least in required.items() if reached[name] < least}
    assert not short, f"{harness}: abort situations too few programs reach: {short}"
