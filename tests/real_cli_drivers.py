"""One conform driver process per real CLI for the whole run, lent to every test playing on it.

A real CLI's driver (`examples/<harness>-adapter/run.sh`, a Python process importing the conform
driver) costs about 0.5 s of CPU to start, and the modules playing programs on the real CLIs
started one per test: 15 in all. Its `reset` closes the last session (the CLI's process group
killed and waited for, its folders removed) and opens a fresh one in the same process, as
`loopspec conform` resets it between programs, so two processes serve every test.

A lent process is reset to an empty session (no tools, no CLI started) when the test gives it
back: the last session's CLI, idle but ticking (Claude Code about 0.03 s of CPU a second), would
otherwise live on until the next test of that CLI, however far off in the run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.run import SharedProcess

ROOT = Path(__file__).resolve().parent.parent


def driver_command(harness: str) -> str:
    """The command that starts `harness`'s conform driver."""
    return str(ROOT / "examples" / f"{harness}-adapter" / "run.sh")


class RealCliDrivers:
    """The run's driver processes, one per harness, started at first use."""

    def __init__(self) -> None:
        self._started: dict[str, SharedProcess] = {}

    @contextlib.contextmanager
    def lent(self, harness: str) -> Iterator[SharedProcess]:
        """`harness`'s driver for one test (or module), its session emptied when given back."""
        process = self._started.get(harness)
        if process is None:
            process = self._started[harness] = SharedProcess([driver_command(harness)])
        try:
            yield process
        finally:
            with contextlib.suppress(Exception):  # a broken driver is replaced at next reset
                process().reset(LoopConfig())

    def close(self) -> None:
        """End every driver started."""
        for process in self._started.values():
            process.close()
