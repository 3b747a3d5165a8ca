"""Any `LoopAdapter` (see `loopspec.properties.conformance.impl_adapter`) as a `ConformanceTarget`;
the bundled impl.

The adapter reports whole-state observations; this wrapper turns them into per-command deltas:
the events appended since the last command, the commit units they form, and the bodies started.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.impl_adapter import (
    AdapterFactory,
    AdapterRefused,
    LoopAdapter,
    impl_adapter,
)
from loopspec.properties.conformance.target import Observation


class AdapterTarget:
    """Drives a Python loop through its adapter; each reset gets a fresh working directory."""

    def __init__(
        self,
        factory: AdapterFactory,
        name: str,
        capabilities: frozenset[str] = frozenset(CAPABILITIES),
    ) -> None:
        self.name = name
        self._factory = factory
        self._capabilities = capabilities
        self._adapter: LoopAdapter | None = None
        self._workdir: tempfile.TemporaryDirectory[str] | None = None
        self._seen_events = 0
        self._seen_units = 0
        self._seen_runs = 0

    def reset(self, config: LoopConfig) -> frozenset[str]:
        """Close the previous session and open a fresh one."""
        self.close()
        self._workdir = tempfile.TemporaryDirectory(prefix="loopspec-")
        self._adapter = self._factory(config, Path(self._workdir.name))
        self._seen_events = self._seen_units = self._seen_runs = 0
        return self._capabilities

    def apply(self, command: Command) -> Observation:
        """Apply the command; report only what it added."""
        adapter = self._adapter
        assert adapter is not None, "reset first"
        try:
            adapter.apply(command)
        except AdapterRefused as refusal:
            return Observation(False, refusal_message=str(refusal))
        seen = adapter.observe()
        events = seen.log[self._seen_events :]
        ends = [end for end in seen.unit_ends[self._seen_units :] if end > self._seen_events]
        starts = [self._seen_events, *ends[:-1]] if ends else []
        runs = seen.executions[self._seen_runs :]
        self._seen_events, self._seen_units = len(seen.log), len(seen.unit_ends)
        self._seen_runs = len(seen.executions)
        return Observation(
            True,
            events=tuple(events),
            commits=tuple(end - start for start, end in zip(starts, ends, strict=True)),
            executed=tuple((run.call_id, run.raw_arguments) for run in runs),
        )

    def close(self) -> None:
        """Release the adapter and its directory."""
        if self._adapter is not None:
            self._adapter.close()
            self._adapter = None
        if self._workdir is not None:
            self._workdir.cleanup()
            self._workdir = None


def bundled_target() -> AdapterTarget:
    """The bundled implementation (`impl/`), the default target of `loopspec conform`."""
    return AdapterTarget(impl_adapter, "impl (bundled)")
