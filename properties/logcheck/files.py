"""Where session logs come from: files, zstd-compressed files, directories and standard input.

`log_sources(arguments)` turns command-line paths into `LogSource`s, in a stable order: each
argument in turn; a directory contributes every `*.jsonl` and `*.jsonl.zst` regular file below it
(recursively, sorted, symlinked directories not followed; FIFOs and devices skipped); `-` is
standard input. A path that cannot be used becomes a `SourceProblem` instead, so one bad argument
never stops the others; so does each folder below a directory that cannot be listed. A file a
directory contributed is marked `walked`: one that is no session log is skipped there, while a
file the user named is checked or reported as the wrong file.

`LogSource.open()` gives a binary stream of the log's *decompressed* bytes. Compression is
recognised by the zstd magic number, not by the file name, so a `.jsonl` that is really
compressed (or compressed data on stdin) still reads. Decompression goes through `zstandard`
(imported only when needed) one frame after another; a stream that ends inside a frame raises
`TruncatedStreamError`, so a cut-off `.zst` is reported, not silently read as a shorter log.
Those streams, and the reading of standard input or a pipe, are `logcheck.streams`, imported
for them alone: a log file read as it is needs none of them.
"""

from __future__ import annotations

import os
import stat
import sys

from loopspec.model import PlainRecord

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence  # (at run time, see `checker`)
    from typing import BinaryIO

STDIN = "-"
STDIN_PATHS = ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
"""Standard input by name: read as `-` is when it is a socket, which cannot be opened by name
(`impl.user_files.STDIN_PATHS`, which check does not import: it imports typing)."""
LOG_SUFFIXES = (".jsonl", ".jsonl.zst")
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
CHUNK = 1 << 16
"""The bytes a log is read in."""


class LogSource(PlainRecord):
    """One log to check: a file path, or standard input; `walked` when a directory argument
    contributed it (not named by the user). `stdin_start`, set by `open`: where standard input's
    log starts when it can be read again from there (a file, `check - < log.jsonl`), else None
    (a pipe)."""

    __slots__ = ("name", "stdin_start", "walked")

    def __init__(self, name: str, walked: bool = False) -> None:
        self.name = name
        self.walked = walked
        self.stdin_start: int | None = None

    def open(self) -> BinaryIO:
        """The log's bytes, decompressed when they are zstd data. May raise `OSError`."""
        if self.name == STDIN or (self.name in STDIN_PATHS and _is_socket(self.name)):
            if sys.stdin is None:  # started with stdin closed (`loopspec check - <&-`)
                raise OSError("standard input is closed")
            from loopspec.properties.logcheck.streams import sniffed  # noqa: PLC0415 (below)

            stdin = sys.stdin.buffer
            # Noted now, not when a violation wants its events' lines (`event_lines`): the
            # check has read on by then, and a log that starts mid-file (`(read head; check -)
            # < log`) starts here, not at the file's first byte.
            self.stdin_start = stdin.tell() if stdin.seekable() else None
            return sniffed(stdin, owned=False)
        stream = open(self.name, "rb", buffering=CHUNK)  # noqa: SIM115 -- the caller closes it
        try:
            if not stream.seekable():  # a FIFO (`check <(zstdcat x.zst)`): read as stdin is
                # Imported here, as below: a log file read as it is needs no stream classes.
                from loopspec.properties.logcheck.streams import sniffed  # noqa: PLC0415

                return sniffed(stream, owned=True)
            compressed = stream.read(len(ZSTD_MAGIC)) == ZSTD_MAGIC
            stream.seek(0)
            if compressed:
                from loopspec.properties.logcheck.streams import decompressed  # noqa: PLC0415

                return decompressed(stream)
        except BaseException:
            stream.close()
            raise
        return stream


class SourceProblem(PlainRecord):
    """A command-line path that names no readable log; `rule_id` SAFE-4 for a path refused
    unread (a device), none for one the system refused or that is not there; `no_log` for a
    folder holding no log file, where no log was there to check; `not_reached` too for a path
    where the system found nothing (missing, a link loop): no log, and no folder either."""

    __slots__ = ("name", "message", "rule_id", "no_log", "not_reached")  # noqa: RUF023

    def __init__(
        self,
        name: str,
        message: str,
        rule_id: str | None = None,
        *,
        no_log: bool = False,
        not_reached: bool = False,
    ) -> None:
        self.name = name
        self.message = message
        self.rule_id = rule_id
        self.no_log = no_log or not_reached
        self.not_reached = not_reached


def log_sources(
    arguments: Sequence[str], seen: set[tuple[int, int]] | None = None
) -> Iterator[LogSource | SourceProblem]:
    """Every log the arguments name, in order; problems in place of unusable arguments. A
    regular file reached again (named twice, or named and under a folder named, `check logs/
    logs/*.jsonl`) is its first source alone: it was checked twice, its violations counted
    twice. `seen` (device, inode) carries that over calls, one argument at a time."""
    seen = set() if seen is None else seen
    for source in _all_sources(arguments):
        if isinstance(source, LogSource) and source.name != STDIN:
            identity = _file_identity(source.name)
            if identity in seen:
                continue
            if identity is not None:
                seen.add(identity)
        yield source


def _all_sources(arguments: Sequence[str]) -> Iterator[LogSource | SourceProblem]:
    for argument in arguments:
        if argument == STDIN:
            yield LogSource(STDIN)
        elif sys.stdin is None and argument in STDIN_PATHS:
            # Closed when check started (`<&-`): descriptor 0 may since be a log check opened.
            yield SourceProblem(argument, "standard input is closed")
        elif os.path.isdir(argument):
            found = list(_logs_under(argument))
            if not found:
                message = f"no {' or '.join(LOG_SUFFIXES)} files under it"
                yield SourceProblem(argument, message, no_log=True)
            yield from found
        elif os.path.exists(argument):
            yield _named_file(argument)
        else:
            yield _not_reached(argument)


def _not_reached(path: str) -> SourceProblem:
    """A path `os.path.exists` denies, in the system's words: it denies a symbolic link loop
    and a folder the user may not enter too, which are no missing file."""
    try:
        os.stat(path)
    except OSError as error:
        # Imported only when the system refused, as in `_unlisted`.
        from loopspec.impl.system_words import system_reason  # noqa: PLC0415

        return SourceProblem(path, system_reason(error), not_reached=True)
    # Gone, then back, since: not checked all the same.
    return SourceProblem(path, "no such file or directory", not_reached=True)


def _file_identity(path: str) -> tuple[int, int] | None:
    """A regular file's device and inode (one file under two names is one), else None: a FIFO
    or standard input by name is read each time it is named, as before."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino) if stat.S_ISREG(found.st_mode) else None


def _named_file(path: str) -> LogSource | SourceProblem:
    """A path named on the command line: a log to read unless it is a device or a socket,
    which SAFE-4 refuses unread (`check /dev/tty` waited for a keyboard; `/dev/zero` was read
    to the line bound). A FIFO reads (`check <(zstdcat log.zst)`), and so does standard input
    named /dev/stdin when it is a socket: it reads as `-` does."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return LogSource(path)  # opening it says why, in the system's words
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return LogSource(path)
    if stat.S_ISSOCK(mode) and path in STDIN_PATHS:
        # A Node parent's pipe is a socket pair: `check /dev/stdin` reads it as `check -` does.
        return LogSource(path)
    from loopspec.impl.user_files import file_kind  # noqa: PLC0415 (only for a refusal)

    return SourceProblem(path, f"{file_kind(mode)}, not a log file", "SAFE-4")


def _is_socket(path: str) -> bool:
    """Whether `path` names a socket now (not when `log_sources` looked: stdin may be closed)."""
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False  # opening it says why


def _logs_under(directory: str) -> Iterator[LogSource | SourceProblem]:
    """The logs below `directory`, in walk order, and a problem for each folder the walk could
    not list in its place: the logs in it went unchecked, which must not pass as a clean run."""
    unlisted: list[OSError] = []
    for root, dirs, files in os.walk(directory, onerror=unlisted.append):
        yield from _unlisted(unlisted)
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            # Only regular files: a FIFO named x.jsonl would block the walk forever (SAFE-4).
            if name.endswith(LOG_SUFFIXES) and _regular(path):
                yield LogSource(path, walked=True)
    yield from _unlisted(unlisted)


def _unlisted(errors: list[OSError]) -> Iterator[SourceProblem]:
    if not errors:  # (asked after every folder: imported below only when one was refused)
        return
    # Imported only when the system refused: `impl`, its package, is no check's otherwise.
    from loopspec.impl.system_words import system_reason  # noqa: PLC0415

    while errors:
        error = errors.pop(0)
        reason = f"cannot list the folder: {system_reason(error)}"
        yield SourceProblem(str(error.filename), reason, no_log=True)  # no log checked there


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False
