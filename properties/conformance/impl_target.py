"""Any `LoopAdapter` (see `loopspec.properties.conformance.impl_adapter`) as a `ConformanceTarget`;
the bundled impl.

An adapter that can say what each command added (`ImplAdapter.observe_added`, which reads only
the bytes appended since) reports that; any other reports whole-state observations, which this
wrapper turns into the same per-command deltas: the events appended since the last command, the
commit units they form, and the bodies started.

One temporary directory serves the whole process (`scratch_root`), in memory (`/dev/shm`) where
the machine has one and `TMPDIR` does not say otherwise: a conformance log is scratch, and on a
disk file system creating and removing a program's files costs more CPU than the program's
commands. Each program works in an empty subdirectory of it: emptied when the program ends, it
serves the next program (making and removing a directory per program cost more system calls than
the program's own reads and writes). The adapter is opened at the program's first command, so a
`reset` that only asks for the capabilities (the machine's probe) opens nothing.
"""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.model.messages import Message
from loopspec.properties.conformance.case_format import BUNDLED_TARGET_NAME
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.history_change import DerivedHistory, HistoryChange
from loopspec.properties.conformance.impl_adapter import (
    AdapterFactory,
    AdapterRefused,
    ImplAdapter,
    LoopAdapter,
    ShownItem,
    impl_adapter,
    presented_message,
)
from loopspec.properties.conformance.target import Observation

_SCRATCH: list[tempfile.TemporaryDirectory[str]] = []
_DIRECTORIES = itertools.count()
_EMPTY_DIRECTORIES: list[Path] = []  # emptied by programs that ended, for the next ones
RAM_SCRATCH = Path("/dev/shm")


def scratch_root() -> Path:
    """The process's directory for program working directories, made at first use and removed
    when the process exits."""
    if not _SCRATCH:
        in_memory = (
            not any(name in os.environ for name in ("TMPDIR", "TEMP", "TMP"))
            and RAM_SCRATCH.is_dir()
            and os.access(RAM_SCRATCH, os.W_OK | os.X_OK)
        )
        where = str(RAM_SCRATCH) if in_memory else None
        _SCRATCH.append(tempfile.TemporaryDirectory(prefix="loopspec-", dir=where))
        # Removed before the folder's own finalizer runs at exit (atexit calls the last one
        # registered first), which would warn "Implicitly cleaning up" (a ResourceWarning).
        atexit.register(remove_scratch)
    return Path(_SCRATCH[0].name)


def remove_scratch() -> None:
    """Remove the scratch root now, what programs left in it too: SIGTERM ends the process by
    `os._exit` (`cli.main`), past the finalizer that removes it at exit, and every conform run
    SIGTERM ended left a loopspec-* folder in /dev/shm (or TMPDIR)."""
    while _SCRATCH:
        _SCRATCH.pop().cleanup()
    _EMPTY_DIRECTORIES.clear()


def empty_directory() -> Path:
    """An empty working directory for a program: one an ended program left empty, else a new
    one (several targets may be open at once, each needs its own)."""
    if _EMPTY_DIRECTORIES:
        return _EMPTY_DIRECTORIES.pop()
    directory = scratch_root() / f"{os.getpid()}-{next(_DIRECTORIES)}"
    directory.mkdir()
    return directory


def give_back(directory: Path) -> None:
    """Empty a program's working directory for the next program; one that will not empty (or
    is gone) is removed as far as it can be, and not used again."""
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
    except OSError:
        shutil.rmtree(directory, ignore_errors=True)
        return
    _EMPTY_DIRECTORIES.append(directory)


class AdapterTarget:
    """Drives a Python loop through its adapter; each program gets an empty working directory."""

    def __init__(
        self,
        factory: AdapterFactory,
        name: str,
        capabilities: frozenset[str] = frozenset(CAPABILITIES),
    ) -> None:
        self.name = name
        self._factory = factory
        self._capabilities = capabilities
        self._config: LoopConfig | None = None
        self._adapter: LoopAdapter | None = None
        self._program_dir: Path | None = None
        self._seen_events = 0
        self._seen_units = 0
        self._seen_runs = 0
        self._seen_shown = 0
        self._history = DerivedHistory()

    def reset(self, config: LoopConfig) -> frozenset[str]:
        """Close the previous session; the next command opens a fresh one, in a fresh directory."""
        self._close_program()
        self._config = config
        self._seen_events = self._seen_units = self._seen_runs = self._seen_shown = 0
        self._history = DerivedHistory()
        return self._capabilities

    def _opened(self) -> LoopAdapter:
        if self._adapter is None:
            assert self._config is not None, "reset first"
            self._program_dir = empty_directory()
            self._adapter = self._factory(self._config, self._program_dir)
        return self._adapter

    def apply(self, command: Command) -> Observation:
        """Apply the command; report only what it added."""
        adapter = self._opened()
        try:
            adapter.apply(command)
        except AdapterRefused as refusal:
            return Observation(False, refusal_message=str(refusal))
        if isinstance(adapter, ImplAdapter):
            added = adapter.observe_added()
            added_starts = [self._seen_events, *added.unit_ends[:-1]] if added.unit_ends else []
            self._seen_events += len(added.events)
            sizes = zip(added_starts, added.unit_ends, strict=True)
            return Observation(
                True,
                events=added.events,
                commits=tuple(end - start for start, end in sizes),
                executed=tuple((run.call_id, run.raw_arguments) for run in added.executions),
                presented=self._presented(added.shown),
                history=self._history_change(added.history),
            )
        seen = adapter.observe()
        events = seen.log[self._seen_events :]
        ends = [end for end in seen.unit_ends[self._seen_units :] if end > self._seen_events]
        starts = [self._seen_events, *ends[:-1]] if ends else []
        runs = seen.executions[self._seen_runs :]
        self._seen_events, self._seen_units = len(seen.log), len(seen.unit_ends)
        self._seen_runs = len(seen.executions)
        shown = seen.shown_live[self._seen_shown :]
        self._seen_shown = len(seen.shown_live)
        return Observation(
            True,
            events=tuple(events),
            commits=tuple(end - start for start, end in zip(starts, ends, strict=True)),
            executed=tuple((run.call_id, run.raw_arguments) for run in runs),
            presented=self._presented(shown),
            history=self._history_change(seen.history),
        )

    def _presented(self, shown: tuple[ShownItem, ...]) -> tuple[dict[str, Any], ...] | None:
        """What the UI was sent, when the adapter declares it can say."""
        if "presentation" not in self._capabilities:
            return None
        return tuple(presented_message(item) for item in shown)

    def _history_change(self, messages: tuple[Message, ...] | None) -> HistoryChange | None:
        """How the history changed, when the adapter declares it can say (None: the loop is
        down, and its durable log keeps the history it had)."""
        if "history" not in self._capabilities:
            return None
        if messages is None:
            return self._history.unchanged()
        return self._history.change(messages)

    def _close_program(self) -> None:
        if self._adapter is not None:
            self._adapter.close()
            self._adapter = None
        if self._program_dir is not None:
            give_back(self._program_dir)
            self._program_dir = None

    def close(self) -> None:
        """Release the adapter and the program's directory."""
        self._close_program()
        self._config = None


def bundled_target() -> AdapterTarget:
    """The bundled implementation (`impl/`), the default target of `loopspec conform`."""
    return AdapterTarget(impl_adapter, BUNDLED_TARGET_NAME)
