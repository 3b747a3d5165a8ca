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
"""

from __future__ import annotations

import io
import os
import stat
import sys

from loopspec.model.plain_record import PlainRecord

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence  # (at run time, see `checker`)
    from typing import Any, BinaryIO

STDIN = "-"
LOG_SUFFIXES = (".jsonl", ".jsonl.zst")
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_CHUNK = 1 << 16


class TruncatedStreamError(OSError):
    """Compressed input that ends in the middle of a zstd frame."""


class MissingDecompressorError(OSError):
    """Compressed input, but the `zstandard` package is not installed."""


class LogSource(PlainRecord):
    """One log to check: a file path, or standard input; `walked` when a directory argument
    contributed it (not named by the user)."""

    __slots__ = ("name", "walked")

    def __init__(self, name: str, walked: bool = False) -> None:
        self.name = name
        self.walked = walked

    def open(self) -> BinaryIO:
        """The log's bytes, decompressed when they are zstd data. May raise `OSError`."""
        if self.name == STDIN:
            if sys.stdin is None:  # started with stdin closed (`loopspec check - <&-`)
                raise OSError("standard input is closed")
            return _sniffed(sys.stdin.buffer, owned=False)
        stream = open(self.name, "rb", buffering=_CHUNK)  # noqa: SIM115 -- the caller closes it
        try:
            if not stream.seekable():  # a FIFO (`check <(zstdcat x.zst)`): read as stdin is
                return _sniffed(stream, owned=True)
            compressed = stream.read(len(ZSTD_MAGIC)) == ZSTD_MAGIC
            stream.seek(0)
            if compressed:
                return io.BufferedReader(_Decompressed(stream), buffer_size=_CHUNK)
        except BaseException:
            stream.close()
            raise
        return stream


def _sniffed(source: BinaryIO, *, owned: bool) -> BinaryIO:
    """A stream that cannot seek back, its first bytes read to tell zstd data and put back;
    closing it closes `source` when `owned` (a pipe check opened, not standard input)."""
    rejoined = _Rejoined(source, owned=owned)
    if rejoined.head == ZSTD_MAGIC:
        return io.BufferedReader(_Decompressed(rejoined), buffer_size=_CHUNK)
    # The dialect is told from the first line, peeked at (`foreign.sniff`): read ahead, that
    # peek saw only the four bytes above, and a transcript or rollout piped in was read as dsh.
    rejoined.read_ahead(_CHUNK)
    return io.BufferedReader(rejoined, buffer_size=_CHUNK)


class SourceProblem(PlainRecord):
    """A command-line path that names no readable log; `rule_id` SAFE-4 for a path refused
    unread (a device), none for one the system refused or that is not there."""

    __slots__ = ("name", "message", "rule_id")  # noqa: RUF023 (the fields' order)

    def __init__(self, name: str, message: str, rule_id: str | None = None) -> None:
        self.name = name
        self.message = message
        self.rule_id = rule_id


def log_sources(arguments: Sequence[str]) -> Iterator[LogSource | SourceProblem]:
    """Every log the arguments name, in order; problems in place of unusable arguments."""
    for argument in arguments:
        if argument == STDIN:
            yield LogSource(STDIN)
        elif os.path.isdir(argument):
            found = list(_logs_under(argument))
            if not found:
                yield SourceProblem(argument, f"no {' or '.join(LOG_SUFFIXES)} files under it")
            yield from found
        elif os.path.exists(argument):
            yield _named_file(argument)
        else:
            yield SourceProblem(argument, "no such file or directory")


def _named_file(path: str) -> LogSource | SourceProblem:
    """A path named on the command line: a log to read unless it is a device or a socket,
    which SAFE-4 refuses unread (`check /dev/tty` waited for a keyboard; `/dev/zero` was read
    to the line bound). A FIFO reads (`check <(zstdcat log.zst)`)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return LogSource(path)  # opening it says why, in the system's words
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return LogSource(path)
    from loopspec.impl.user_files import file_kind  # noqa: PLC0415 (only for a refusal)

    return SourceProblem(path, f"{file_kind(mode)}, not a log file", "SAFE-4")


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
    # Imported only when the system refused: `impl`, its package, is no check's otherwise.
    from loopspec.impl.system_words import system_reason  # noqa: PLC0415

    while errors:
        error = errors.pop(0)
        yield SourceProblem(str(error.filename), f"cannot list the folder: {system_reason(error)}")


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------
# Streams.


class _Rejoined(io.RawIOBase):
    """A raw stream whose first bytes were read ahead (to sniff the format) and are put back."""

    def __init__(self, source: BinaryIO, *, owned: bool) -> None:
        super().__init__()
        self._source = source
        # Told, not asked of sys.stdin at close: with standard input closed (`<&-`) there is
        # none to compare a named pipe's stream with.
        self._owned = owned
        self.head = source.read(len(ZSTD_MAGIC))

    def read_ahead(self, limit: int) -> None:
        """Read on into the bytes put back until they hold the first line, `limit` bytes, or
        all there is (a pipe's reads return what its writer has written so far)."""
        read = getattr(self._source, "read1", self._source.read)
        while len(self.head) < limit and b"\n" not in self.head:
            more = read(limit - len(self.head))
            if not more:
                return
            self.head += more

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self.head:
            size = min(len(self.head), len(view))
            view[:size] = self.head[:size]
            self.head = self.head[size:]
            return size
        data = self._source.read(len(view))
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if self._owned:
            self._source.close()
        super().close()


class _Decompressed(io.RawIOBase):
    """The concatenated frames of a zstd stream, decompressed as they are read."""

    def __init__(self, source: BinaryIO | _Rejoined) -> None:
        super().__init__()
        try:
            import zstandard  # noqa: PLC0415 -- optional: only compressed logs need it
        except ImportError as error:
            msg = "the log is zstd-compressed and the zstandard package is not installed"
            raise MissingDecompressorError(msg) from error
        self._zstd = zstandard
        self._source = source
        self._frame = zstandard.ZstdDecompressor().decompressobj()
        self._in_frame = False
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        while not self._pending:
            compressed = self._source.read(_CHUNK)
            if not compressed:
                if self._in_frame:
                    raise TruncatedStreamError("the zstd stream ends in the middle of a frame")
                return 0
            self._pending = self._feed(compressed)
        size = min(len(self._pending), len(view))
        view[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    def _feed(self, compressed: bytes) -> bytes:
        out = []
        while compressed:
            try:
                out.append(self._frame.decompress(compressed))
            except self._zstd.ZstdError as error:
                raise OSError(f"corrupt zstd data: {error}") from error
            self._in_frame = not self._frame.eof
            if not self._frame.eof:
                break
            compressed = self._frame.unused_data
            self._frame = self._zstd.ZstdDecompressor().decompressobj()
        return b"".join(out)

    def close(self) -> None:
        self._source.close()
        super().close()
