"""Tests that run `loopspec replay --cmd ...` in process, lent a process the module started.

`--cmd` makes the CLI start the adapter (Node and dsh, or the real CLI's driver) for each
replay, and close it after: most of a short replay's cost. A module that replays many cases
starts the process once (`SharedProcess`, reset before each case as conform resets it between
programs) and lends it to each CLI run instead. The command line is still parsed and must name
the same command; the CLI's close leaves the process to the module.
"""

from __future__ import annotations

import contextlib

import pytest

from loopspec.properties.conformance import run as conformance_run
from loopspec.properties.conformance.run import SharedProcess
from loopspec.properties.conformance.target import ConformanceTarget


def lend_to_cli(
    monkeypatch: pytest.MonkeyPatch, process: conformance_run.TargetFactory, argv: list[str]
) -> None:
    """Make `--cmd` (split into `argv`) hand the CLI `process` (a `SharedProcess`, or what
    wraps its leases) rather than start one."""

    class Lent(SharedProcess):
        def __init__(self, given: list[str], *, timeout: float = 0.0, name: str = "") -> None:
            # No new process: the module's answers within its own timeout.
            assert given == argv, f"--cmd named {given}, the module's process runs {argv}"

        def __call__(self) -> ConformanceTarget:
            return process()

        def quick_answers(self) -> contextlib.AbstractContextManager[None]:
            """The module's process's, when it is one (a divergence being cut down)."""
            if isinstance(process, SharedProcess):
                return process.quick_answers()
            return contextlib.nullcontext()

        def start_refusal(self) -> str | None:
            """The module's process's, when it is one."""
            return process.start_refusal() if isinstance(process, SharedProcess) else None

        def close(self) -> None:
            """The module ends the process."""

    monkeypatch.setattr(conformance_run, "SharedProcess", Lent)
