"""The seed of every fixed batch of generated programs the suite asserts on.

A test that requires a bounded run to find something (a mutant killed, a difference blamed on its
rule, a situation reached) needs the same programs on every run. `derandomize=True` does not give
that: Hypothesis then seeds the run with a digest of the test's source, and for a state machine
that is the machine class's source, so an edit of the conformance machine's code or docstrings
that draws nothing differently still hands every such test other programs (a docstring edit in
`ConformanceMachine` changed the 20-program batch; a fixed seed kept it). With a fixed seed
(Hypothesis's `seed`, `run_conformance(seed_value=...)`), a batch changes when the draws do.

What else would move a batch: Hypothesis now and then draws a literal found in any loaded module
outside site-packages and tests/, where one fits the draw (for the state machines, an integer
from 100 to 254, the range of Hypothesis's own draw that switches rules off per program), so a
literal added anywhere, or the modules a test run had imported, changed the batch. `conftest.py`
keeps that pool out of every test's draws, as conform keeps it out of its own
(`loopspec.properties.conformance.source_literals`).
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, TypeVar, cast

from hypothesis import seed, settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

if TYPE_CHECKING:
    from loopspec.model.commands import Command
    from loopspec.model.config import LoopConfig

# Any fixed number: what matters is that it does not follow the source.
BATCH_SEED = 20261202

Machine = TypeVar("Machine", bound=RuleBasedStateMachine)


def seeded(machine: type[Machine], batch: int = 0) -> type[Machine]:
    """`machine`, drawing fixed batch `batch` (a subclass, so a shared class stays unseeded)."""
    fixed = cast(type[Machine], types.new_class(machine.__name__, (machine,)))
    return seed(BATCH_SEED + batch)(fixed)


def drawn_programs(budget: settings, batch: int = 0) -> list[tuple[LoopConfig, list[Command]]]:
    """The configuration and commands (settling tail included) of each program conform's
    machine draws on the model from fixed batch `batch` under `budget`, Hypothesis's pool of
    source literals kept out as conform keeps it (the kill benchmark and the draw tests read
    the same programs)."""
    # Imported here: most users of the seed alone draw no program of conform's machine.
    from loopspec.properties.conformance.machine import conformance_machine  # noqa: PLC0415
    from loopspec.properties.conformance.source_literals import (  # noqa: PLC0415
        without_source_literals,
    )
    from loopspec.properties.conformance.target import ModelTarget  # noqa: PLC0415

    programs: list[tuple[LoopConfig, list[Command]]] = []
    base = conformance_machine(ModelTarget)

    class Recording(base):  # type: ignore[misc,valid-type]  # a class the factory made
        def teardown(self) -> None:
            super().teardown()
            programs.append((self.config, list(self.program)))

    with without_source_literals():
        run_state_machine_as_test(seeded(Recording, batch), settings=budget)
    return programs
