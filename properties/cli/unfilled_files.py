"""Files a run created empty, to fill at its end, removed if SIGTERM ends the run first.

SIGTERM ends a run by `os._exit` (`main._end_everything_below`), past every `except` and
`finally` that would remove such a file: `loopspec run --harness ... --log OUT` left an empty
OUT, and the rerun naming it was refused ("exists; give --log a new path"). Only a file this
run created (the same inode) and that is still empty is removed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

# Absolute path -> (device, inode) of the file this run created there.
_CREATED: dict[str, tuple[int, int]] = {}


@contextlib.contextmanager
def removed_at_sigterm_while_empty(path: Path, descriptor: int) -> Iterator[None]:
    """While inside, `path` (just created, open as `descriptor`) is removed by
    `remove_unfilled` if it is still empty and still the file this run created."""
    created = os.fstat(descriptor)
    where = os.path.abspath(path)
    _CREATED[where] = (created.st_dev, created.st_ino)
    try:
        yield
    finally:
        _CREATED.pop(where, None)


def remove_unfilled() -> None:
    """Remove each registered file that is still this run's and still empty (at SIGTERM)."""
    for where, (device, inode) in list(_CREATED.items()):
        try:
            seen = os.stat(where, follow_symlinks=False)
        except OSError:
            continue
        if (seen.st_dev, seen.st_ino) == (device, inode) and seen.st_size == 0:
            with contextlib.suppress(OSError):
                os.unlink(where)
    _CREATED.clear()
