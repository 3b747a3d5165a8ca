"""The log file itself: exclusively locked, appended to, truncated only to repair a crash tail.

One live loop owns a log file at a time: `LockedLogFile.open` takes a non-blocking exclusive
`flock` before reading anything, so a second opener (another process, or a second loop in the
same one) is refused with `SessionLocked` and cannot truncate what the first is writing. Bytes go
straight to the file descriptor (no user-space buffer), so whatever `append` returned from is in
the kernel and survives the process being killed.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path

from loopspec.impl.errors import CorruptLog, LoopDiscarded, SessionLocked
from loopspec.impl.system_words import system_reason

_READ_CHUNK = 1 << 20


class NotALogFile(CorruptLog):
    """Something at the log path that is not a log loopspec may append to (rule SAFE-2)."""


class LockedLogFile:
    """An open, locked log file positioned at its end."""

    def __init__(self, path: Path, descriptor: int, *, created: bool = False) -> None:
        self.path = path
        self._descriptor: int | None = descriptor
        self.created = created
        """Whether this open made the file: only such a file may be removed again."""

    @classmethod
    def open(cls, path: Path) -> LockedLogFile:
        """Open (creating if needed) and lock `path`; `SessionLocked` if another holder has it.

        Only a regular file is a log (rule SAFE-2): a symbolic link is not followed, and a FIFO,
        device, directory or socket is refused with `NotALogFile` before anything is written.
        """
        # O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused right after.
        flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
        try:
            descriptor, created = _open_or_create(path, flags)
        except OSError as error:
            if error.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
                raise NotALogFile(f"{path}: not a regular file ({system_reason(error)})") from error
            raise
        try:
            mode = os.fstat(descriptor).st_mode
            if not stat.S_ISREG(mode):
                raise NotALogFile(f"{path}: not a regular file, so not a log")
            os.set_blocking(descriptor, True)
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(descriptor)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise SessionLocked(f"{path} is held by another live session") from error
            raise
        except NotALogFile:
            os.close(descriptor)
            raise
        return cls(path, descriptor, created=created)

    @property
    def descriptor(self) -> int:
        """The open descriptor; `LoopDiscarded` once closed or abandoned."""
        if self._descriptor is None:
            raise self._closed()
        return self._descriptor

    def _closed(self) -> LoopDiscarded:
        return LoopDiscarded(f"{self.path} is no longer open")

    def read_all(self) -> bytes:
        """The file's whole content."""
        chunks = []
        offset = 0
        while chunk := os.pread(self.descriptor, _READ_CHUNK, offset):
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks)

    def truncate(self, size: int) -> None:
        """Cut the file to `size` bytes and make the cut durable (crash-tail repair only)."""
        os.ftruncate(self.descriptor, size)
        os.fsync(self.descriptor)

    def append(self, data: bytes) -> None:
        """Append `data` completely (retrying short writes)."""
        descriptor = self._descriptor  # read inline: this runs once per commit
        if descriptor is None:
            raise self._closed()
        try:
            written = os.write(descriptor, data)
            if written < len(data):  # rare (a signal, a full disk): write the rest
                view = memoryview(data)[written:]
                while view:
                    written = os.write(descriptor, view)
                    view = view[written:]
        except OSError as error:
            raise self._naming_the_log(error) from None

    def sync(self) -> None:
        """Force everything appended so far to stable storage."""
        try:
            os.fdatasync(self.descriptor)
        except OSError as error:
            raise self._naming_the_log(error) from None

    def _naming_the_log(self, error: OSError) -> OSError:
        """`error` with the log's path as its file name: a write's error names none, and `run`
        on a full disk said only "no space left on device", not which file it could not write."""
        return OSError(error.errno, error.strerror, str(self.path))

    def close(self) -> None:
        """Release the lock and the descriptor (idempotent)."""
        if self._descriptor is not None:
            descriptor, self._descriptor = self._descriptor, None
            os.close(descriptor)

    def close_and_remove_if_created(self) -> None:
        """Close; and when this open created the file, remove it (a log whose header never
        landed whole: left behind, `check` read it as LOG-5 and it looked like a session).

        A file that existed before is never removed. It is unlinked while still locked, and
        only if the path still names this very file, so a file put there since is kept.
        """
        descriptor = self._descriptor
        if descriptor is not None and self.created:
            try:
                ours = os.fstat(descriptor)
                there = os.lstat(self.path)
                if (ours.st_dev, ours.st_ino) == (there.st_dev, there.st_ino):
                    os.unlink(self.path)
            except OSError:
                pass  # best effort: the error that ended the open is the one to report
        self.close()


def _open_or_create(path: Path, flags: int) -> tuple[int, bool]:
    """A descriptor for `path` opened with `flags`, creating the file when there is none, and
    whether this call created it (`O_EXCL` tells; a plain `O_CREAT` cannot)."""
    while True:
        try:
            return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
        except FileExistsError:
            pass
        try:
            return os.open(path, flags), False
        except FileNotFoundError:
            continue  # removed between the two opens: try to create it again
