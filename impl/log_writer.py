"""The durable JSONL writer: each commit unit is appended whole, then made as durable as asked.

`Durability` is the policy: whether every commit is handed to the kernel at once (one `write`
per commit) or collected in memory up to `buffer_bytes`, and whether every commit is also
`fdatasync`ed. A commit is *acknowledged* when `write_unit` returns: with `sync_every_commit`
it then survives power loss; with writes per commit it survives the process being killed; with
buffering, only what `flush` (or a full buffer) wrote survives either.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import attrs

from loopspec.impl.framing import encode_event
from loopspec.impl.log_file import LockedLogFile


@attrs.frozen
class Durability:
    """When a commit counts as written: per commit or buffered, with or without fdatasync."""

    sync_every_commit: bool = True
    write_every_commit: bool = True
    buffer_bytes: int = 1 << 16
    split_write_pause_s: float = 0.0
    """Crash testing only: write a unit line by line, each line in two halves, sleeping this
    long between the writes, so a kill can land inside a unit and inside a line."""
    sync_on_open: bool = True
    """Whether a new file's header (and its directory entry) is made durable before the first
    commit. Only tests whose crashes are simulated in-process, never by the machine, skip it."""

    def __attrs_post_init__(self) -> None:
        if self.sync_every_commit and not self.write_every_commit:
            raise ValueError("a commit cannot be synced before it is written")
        if self.buffer_bytes < 0 or self.split_write_pause_s < 0:
            raise ValueError("sizes and pauses cannot be negative")


SYNCED = Durability()
"""Every commit fdatasync'ed before it is acknowledged (survives power loss)."""
WRITTEN = Durability(sync_every_commit=False)
"""Every commit handed to the kernel before it is acknowledged (survives a killed process)."""
BUFFERED = Durability(sync_every_commit=False, write_every_commit=False)
"""Commits collected in memory; only `flush`, `close` or a full buffer writes them."""
UNSYNCED = Durability(sync_every_commit=False, sync_on_open=False)
"""Every commit written, nothing ever synced: for tests that simulate crashes in-process (the
page cache keeps what was written), such as conformance runs."""


class UnitWriter:
    """Appends commit units to a locked log file under a `Durability` policy."""

    def __init__(self, file: LockedLogFile, durability: Durability) -> None:
        self._file = file
        self._durability = durability
        self._buffer = bytearray()
        # The policy read once: most writers hand every unit to the kernel in one write.
        self._whole_writes = durability.write_every_commit and not durability.split_write_pause_s
        self._sync_every_commit = durability.sync_every_commit
        # A unit handed whole to the kernel and not synced is just an append: the log calls the
        # file's own `append` (one Python call fewer per commit) instead of the policy's.
        self.write_unit: Callable[[bytes], None] = (
            file.append
            if self._whole_writes and not self._sync_every_commit
            else self._write_by_policy
        )

    @classmethod
    def start(
        cls, file: LockedLogFile, header: Mapping[str, object], durability: Durability
    ) -> UnitWriter:
        """Write the session header to an empty file, durably unless `sync_on_open` is off."""
        file.append(encode_event(header) + b"\n")
        if durability.sync_on_open:
            file.sync()
            _sync_directory(file.path)
        return cls(file, durability)

    def _write_by_policy(self, unit: bytes) -> None:
        """Append one commit unit: its events' lines, framed (`framing.close_lines`), in order
        (as `write_unit`, which is this or the file's `append`)."""
        if self._whole_writes:
            self._file.append(unit)
        else:
            policy = self._durability
            if policy.split_write_pause_s:
                # JSON text escapes every line break, so the unit's only ones end its lines.
                self._write_slowly(unit.splitlines(keepends=True))
            else:
                self._buffer += unit
                if len(self._buffer) >= policy.buffer_bytes:
                    self.flush()
        if self._sync_every_commit:
            self._file.sync()

    def flush(self) -> None:
        """Hand buffered commits to the kernel."""
        if self._buffer:
            data, self._buffer = bytes(self._buffer), bytearray()
            self._file.append(data)

    def close(self) -> None:
        """Flush, sync and release the file."""
        self.flush()
        self._file.sync()
        self._file.close()

    def abandon(self) -> None:
        """Drop the file as a dying process would: buffered commits are lost, the lock is freed."""
        self._buffer = bytearray()
        self._file.close()

    def _write_slowly(self, lines: list[bytes]) -> None:
        pause = self._durability.split_write_pause_s
        for line in lines:
            middle = len(line) // 2
            for part in (line[:middle], line[middle:]):
                self._file.append(part)
                time.sleep(pause)


def _sync_directory(path: Path) -> None:
    """Make a newly created file's directory entry durable too."""
    descriptor = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
