"""Files a run created and has not finished writing, removed if SIGTERM ends the run first.

SIGTERM ends a run by `os._exit` (`main._end_everything_below`), past every `except` and
`finally` that would remove such a file: `loopspec run --harness ... --log OUT` left an empty
OUT, and the rerun naming it was refused ("exists; give --log a new path"). Only a file this
run created (the same inode) is removed: one filled at the run's end only while still empty,
one being written (a case file) whatever it holds, as it was cut off. A temporary folder the run
made likewise (`removed_at_sigterm`): `run --harness` left its session's folders in TMPDIR.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

# Absolute path -> (device, inode) of the file this run created there, and whether it is
# removed only while empty.
_CREATED: dict[str, tuple[int, int, bool]] = {}


@contextlib.contextmanager
def removed_at_sigterm_while_empty(path: Path, descriptor: int) -> Iterator[None]:
    """While inside, `path` (just created, open as `descriptor`) is removed by
    `remove_unfilled` if it is still empty and still the file this run created."""
    created = os.fstat(descriptor)
    where = os.path.abspath(path)
    _CREATED[where] = (created.st_dev, created.st_ino, True)
    try:
        yield
    finally:
        _CREATED.pop(where, None)


@contextlib.contextmanager
def removed_unless_written(path: Path, descriptor: int) -> Iterator[None]:
    """While inside, `path` (just created, open as `descriptor`) is being written: it is removed
    whatever it holds if SIGTERM ends the run (`remove_unfilled`), or if the block raises (a
    full disk, Ctrl-C). A cut file left behind read as a broken one, or, cut at a line's end,
    as a shorter one."""
    created = os.fstat(descriptor)
    where = os.path.abspath(path)
    _CREATED[where] = (created.st_dev, created.st_ino, False)
    try:
        yield
    except BaseException:
        _remove_if_ours(where, created.st_dev, created.st_ino, only_while_empty=False)
        raise
    finally:
        _CREATED.pop(where, None)


# The temporary folders this run made and removes when it is done with them.
_FOLDERS: list[Path] = []


@contextlib.contextmanager
def removed_at_sigterm(folder: Path) -> Iterator[None]:
    """While inside, `folder` (a temporary one this run made, which the block's end removes) is
    removed by `remove_unfilled` too, whatever it holds."""
    _FOLDERS.append(folder)
    try:
        yield
    finally:
        _FOLDERS.remove(folder)


def remove_unfilled() -> None:
    """Remove each registered file that is still this run's (and, where asked, still empty),
    and each registered folder, at SIGTERM."""
    for where, (device, inode, only_while_empty) in list(_CREATED.items()):
        _remove_if_ours(where, device, inode, only_while_empty=only_while_empty)
    _CREATED.clear()
    for folder in _FOLDERS:
        shutil.rmtree(folder, ignore_errors=True)
    _FOLDERS.clear()


def _remove_if_ours(where: str, device: int, inode: int, *, only_while_empty: bool) -> None:
    try:
        seen = os.stat(where, follow_symlinks=False)
    except OSError:
        return
    if (seen.st_dev, seen.st_ino) == (device, inode) and not (only_while_empty and seen.st_size):
        with contextlib.suppress(OSError):
            os.unlink(where)
