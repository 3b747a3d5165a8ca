"""The streams `LogSource.open` reads other than a log file as it is (`logcheck.files`): standard
input and pipes, whose first bytes are read ahead to tell zstd data and put back, and zstd data,
decompressed frame after frame as it is read. A log file read as it is, the usual case, imports
none of this.
"""

from __future__ import annotations

import io

from loopspec.properties.logcheck.files import CHUNK, ZSTD_MAGIC

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from typing import Any, BinaryIO


class TruncatedStreamError(OSError):
    """Compressed input that ends in the middle of a zstd frame."""


class MissingDecompressorError(OSError):
    """Compressed input, but the `zstandard` package is not installed."""


def decompressed(stream: BinaryIO | _Rejoined) -> BinaryIO:
    """The decompressed bytes of the zstd data `stream` holds."""
    return io.BufferedReader(_Decompressed(stream), buffer_size=CHUNK)


def sniffed(source: BinaryIO, *, owned: bool) -> BinaryIO:
    """A stream that cannot seek back, its first bytes read to tell zstd data and put back;
    closing it closes `source` when `owned` (a pipe check opened, not standard input)."""
    rejoined = _Rejoined(source, owned=owned)
    if rejoined.head == ZSTD_MAGIC:
        return decompressed(rejoined)
    # The dialect is told from the first line, peeked at (`foreign.sniff`): read ahead, that
    # peek saw only the four bytes above, and a transcript or rollout piped in was read as dsh.
    rejoined.read_ahead(CHUNK)
    return io.BufferedReader(rejoined, buffer_size=CHUNK)


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
            compressed = self._source.read(CHUNK)
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
