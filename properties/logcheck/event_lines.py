"""The line of each event a violation rests on, found after the check by one more read of the log.

A violation names the seqs of the events its verdict rests on (`FoundViolation.events`), but a
person opens the log by line. The checker's per-event loop keeps no seq's line: that would cost
every event of every clean log (benchmarks/bench_check.py). So only a log with violations is
read again, from its first line up to the last line the check read, and only the lines that
may carry a wanted seq (`may_carry`) are parsed.

Which line a seq names: the offending event's is the violation's own line. Any other seq is
looked for on the event lines (a compact chunk row covers `seq0 ..`): a broken log may carry
it on several, and the one named is the last before the violation's line, the event the check
had read when it judged, else the first after it. A seq on no line read has no line. The seqs
a LOG-1 gap skipped (`seq 13 where 12 was due`) are looked for too: its words then say whether
any line carries them (a line deleted) or the first comes later (lines out of order).

Standard input redirected from a file (`check - < log.jsonl`) is read again from where its log
started, and put back where the check left it. A pipe (`zstdcat log.zst | check -`, a FIFO)
cannot be read again: only the offending event's line is known there. Keeping every seq's line
while reading instead would cost every event of a clean log, and copying the input aside every
clean run; save the log to a file to see the others.
"""

from __future__ import annotations

import io

from loopspec.properties.logcheck.checker import SCAN_ERRORS, FoundViolation, LogReport, scan_json
from loopspec.properties.logcheck.files import STDIN, LogSource

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, BinaryIO, TypeVar

    Opener = Callable[[], BinaryIO]
    """The log read again from its start, a stream of its own (`log_opener`)."""
    _Read = TypeVar("_Read")


def place_events(
    report: LogReport,
    stream: BinaryIO,
    max_line_bytes: int,
    source: LogSource | None = None,
) -> None:
    """Set `event_lines` of every violation in `report` (a dsh log's), reading the log again:
    `stream` from its start when it can seek, else `source` opened again when it is a file (a
    compressed one's stream cannot seek back), or standard input from where its log started
    when it is a file (`log_opener`, as a copy is found); when none can be read again (a
    pipe, or a file gone or changed since), only each offending event's line is set."""
    if _reordered_lines_likely(report):
        # (Imported here: a log with no such break is checked without its module.)
        from loopspec.properties.logcheck import line_order  # noqa: PLC0415

        def order_of(again: BinaryIO) -> tuple[str | None]:
            seqs = line_order.line_seqs(again, report.lines, max_line_bytes + 1)
            return (line_order.out_of_order(seqs, report.events),)

        read = _read_again(stream, source, order_of)
        if read is None:  # not read again: its breaks alone may show the lines reversed
            if line_order.reversed_by_its_breaks(report):
                line_order.fold_out_of_order(report, line_order.REVERSED_AS_BROKEN)
            else:
                line_order.say_order_unread(report, piped=_piped(stream, source))
        elif read[0] is not None:
            line_order.fold_out_of_order(report, read[0])
    found_all = report.violations
    wanted = {seq for found in found_all for seq in found.events[1:]}
    gaps = {id(found): gap for found in found_all if (gap := _skipped(found)) is not None}
    for gap in gaps.values():
        wanted.update(gap)
    occurrences: dict[int, list[int]] | None = None
    if wanted:
        occurrences = _read_again(
            stream,
            source,
            lambda again: _seq_lines(again, wanted, report.lines, max_line_bytes),
        )
    for found in found_all:
        found.event_lines = (
            found.line,
            *(_nearest((occurrences or {}).get(seq, ()), found.line) for seq in found.events[1:]),
        )
        if occurrences is not None and id(found) in gaps:
            _say_where_the_gap_is(found, gaps[id(found)], occurrences)


ORDER_LOOKED_AT = 3
"""The LOG-1 violations a log has, at least, before the order of its lines' seqs is looked at
(`line_order`)."""


def _reordered_lines_likely(report: LogReport) -> bool:
    """Whether `report`'s LOG-1 violations may be a whole log's lines in another order: at
    least `ORDER_LOOKED_AT` of them, on more than half its lines (a compact row, one line
    of many events, breaks it once), those a broken commit's hole left out counted too (a
    version-1 log reordered breaks its commits first: `LogReport.unlisted_breaks`). A log
    sorted or reversed breaks LOG-1 on 65 to 100 % of its lines; a few lines swapped or moved
    later, on a few, and keep their own words (`_say_where_the_gap_is`), the log not read once
    more for them."""
    breaks = report.rule_counts.get("LOG-1", 0) + report.unlisted_breaks
    return breaks >= ORDER_LOOKED_AT and breaks * 2 > report.lines


def _read_again(
    stream: BinaryIO, source: LogSource | None, read: Callable[[BinaryIO], _Read]
) -> _Read | None:
    """What `read` makes of the log read again from its start (`place_events`), or None when
    it cannot be read again (a pipe) or is gone or changed since."""
    try:
        if stream.seekable():
            stream.seek(0)
            return read(stream)
        if (opener := log_opener(source)) is not None:
            with opener() as again:
                return read(again)
    except OSError:
        return None
    return None


def _piped(stream: BinaryIO, source: LogSource | None) -> bool:
    """Whether a log `_read_again` could not read came from a pipe, which cannot be read twice
    (standard input not redirected from a file, a FIFO), not from a file gone or changed since
    the check read it, or a compressed one that cannot be opened again."""
    if stream.seekable() or type(source) is StreamSource:
        return False
    if source is None or source.name == STDIN:
        return source is None or source.stdin_start is None
    import os.path  # noqa: PLC0415 (loaded by the interpreter at start: no cost)

    return os.path.exists(source.name) and not os.path.isfile(source.name)


GAP_SEQS_LOOKED_FOR = 16
"""The seqs a LOG-1 gap skipped that are looked for on the log's lines, at most."""


def _skipped(found: FoundViolation) -> range | None:
    """The seqs a LOG-1 violation's event skipped (`seq 13 where 12 was due`: 12, carried by
    the checker, `FoundViolation.skipped`), when they are few enough to look for and not the
    one a writer counting its header as seq 0 skipped (LOG-1's words say so); else None."""
    skipped = found.skipped
    if skipped is None or len(skipped) > GAP_SEQS_LOOKED_FOR or skipped == range(1):
        return None
    return skipped


def _say_where_the_gap_is(
    found: FoundViolation, gap: range, occurrences: dict[int, list[int]]
) -> None:
    """Add to a LOG-1 gap's words whether its skipped seqs are on any line read: none is (a
    line deleted, or events never written), or the first comes later (lines out of order)."""
    later = [line for line in occurrences.get(gap[0], ()) if line > found.line]
    if later:
        said = f": seq {gap[0]} comes later, at line {later[0]} (lines out of order)"
    elif not any(occurrences.get(seq) for seq in gap):
        seqs = f"seq {gap[0]}" if len(gap) == 1 else f"seqs {gap[0]} to {gap[-1]}"
        said = f": no line carries {seqs} (a line deleted, or a seq its writer skipped)"
    else:
        return
    violation = found.violation
    found.violation = violation._replace(message=violation.message + said)


def reopenable(name: str) -> bool:
    """Whether `name` is a file's, which can be read again (not standard input; a FIFO opened
    again would wait for a writer)."""
    import os.path  # noqa: PLC0415 (loaded by the interpreter at start: no cost)

    return name != STDIN and os.path.isfile(name)


def log_opener(source: LogSource | None) -> Opener | None:
    """How to read the log `source` names again from its start, a stream of its own: a file
    opened again, or standard input redirected from a file (`check - < log.jsonl`) read from
    where its log started without moving the check's own reading (`_ReadAt`); None for a pipe,
    which cannot be read twice."""
    if source is None:
        return None
    if type(source) is StreamSource or reopenable(source.name):
        return source.open
    start = source.stdin_start
    if source.name != STDIN or start is None:
        return None
    import sys  # noqa: PLC0415 (loaded by the interpreter at start: no cost)

    from loopspec.properties.logcheck.streams import sniffed  # noqa: PLC0415 (as `files`)

    try:
        descriptor = sys.stdin.buffer.fileno()
    except (OSError, ValueError):  # no descriptor (a test's bytes in memory): not read again
        return None
    return lambda: sniffed(io.BufferedReader(_ReadAt(descriptor, start)), owned=True)


class StreamSource(LogSource):
    """A log handed to `check_stream` as a stream that can seek, with no source (a program's
    bytes in memory): read again from its start by a reading of its own (`_StreamAt`), as a
    file is opened again, never by its name, which may be any file's."""

    __slots__ = ("stream",)

    def __init__(self, name: str, stream: BinaryIO) -> None:
        super().__init__(name)
        self.stream = stream

    def open(self) -> BinaryIO:
        return io.BufferedReader(_StreamAt(self.stream))


class _StreamAt(io.RawIOBase):
    """A stream's bytes from its start, read by seeking it there and back: a reading of its
    own, which leaves the stream where the check's reading of it is."""

    def __init__(self, stream: BinaryIO) -> None:
        super().__init__()
        self._stream, self._offset = stream, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        stream = self._stream
        position = stream.tell()
        try:
            stream.seek(self._offset)
            data = stream.read(len(buffer))
        finally:
            stream.seek(position)
        buffer[: len(data)] = data
        self._offset += len(data)
        return len(data)


class _ReadAt(io.RawIOBase):
    """A file descriptor's bytes from `offset` on, read with `os.pread`: a reading of its own,
    which leaves the descriptor's offset (the check's reading of standard input) where it is."""

    def __init__(self, descriptor: int, offset: int) -> None:
        super().__init__()
        self._descriptor, self._offset = descriptor, offset

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        import os  # noqa: PLC0415 (loaded by the interpreter at start: no cost)

        data = os.pread(self._descriptor, len(buffer), self._offset)
        buffer[: len(data)] = data
        self._offset += len(data)
        return len(data)


def _seq_lines(
    stream: BinaryIO, wanted: set[int], last_line: int, max_line_bytes: int
) -> dict[int, list[int]]:
    """Each wanted seq's lines, in order, among the first `last_line` lines of `stream`
    (counted as the checker counts them: a read of at most `max_line_bytes + 1` bytes each)."""
    lines: dict[int, list[int]] = {}
    for line, obj in carrying_lines(stream, wanted, last_line, max_line_bytes + 1):
        seq = obj.get("seq")
        if type(seq) is int:
            if seq in wanted:
                lines.setdefault(seq, []).append(line)
        elif seq is None and "seq0" in obj:
            for covered in _row_seqs(obj, wanted):
                lines.setdefault(covered, []).append(line)
    return lines


def carrying_lines(
    stream: BinaryIO, wanted: set[int], last_line: int, size: int
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, object) of each of the first `last_line` lines of `stream` that may carry a
    wanted seq (`may_carry`) and is a JSON object, lines read at most `size` bytes at a time
    (as the checker reads them); a line that is no JSON is passed over."""
    readline = stream.readline
    for line in range(1, last_line + 1):
        raw = readline(size)
        if not raw:
            return
        if may_carry(raw, wanted) and (obj := line_object(raw)) is not None:
            yield line, obj


def line_object(raw: bytes) -> dict[str, Any] | None:
    """The JSON object the line `raw` holds, as the check reads one; None when it holds none
    (no JSON, not UTF-8, another value, or no line: the log ended). The one reader of lines
    read again (`carrying_lines`, and `repeated_lines` reading an original in step with its
    copy)."""
    try:
        value, _end = scan_json(raw.decode(), 0)
    except SCAN_ERRORS:  # (a UnicodeDecodeError is a ValueError)
        return None
    return value if type(value) is dict else None


def may_carry(raw: bytes, wanted: set[int]) -> bool:
    """Whether the line `raw` may carry a wanted seq, told without parsing it: a member `seq`
    whose number is wanted, or a compact row's `seq0`. Parsing every line instead cost as
    much as the check's own reading; looking for each wanted seq's digits, a line's time for
    each of up to `max_violations` seqs."""
    at = raw.find(b'"seq')
    while at >= 0:
        after = raw[at + 4 : at + 48]
        if after.startswith(b'0"'):
            return True
        if after.startswith(b'"'):
            value = after[1:].lstrip()
            if value.startswith(b":"):
                number = value[1:].lstrip().split(b",", 1)[0].split(b"}", 1)[0].rstrip()
                if number.lstrip(b"-").isdigit() and int(number) in wanted:
                    return True
        at = raw.find(b'"seq', at + 4)
    return False


def row_seqs(row: dict[str, Any]) -> range | None:
    """The seqs a compact chunk row covers, one per item; None when `row` is not one."""
    # Imported at a row: a log without them is checked without their module (`checker`).
    from loopspec.properties.logcheck.compact_rows import COUNT_FIELDS  # noqa: PLC0415

    seq0, data, kind = row.get("seq0"), row.get("data"), row.get("type")
    field = COUNT_FIELDS.get(kind) if type(kind) is str else None
    items = data.get(field) if field is not None and type(data) is dict else None
    if type(seq0) is not int or type(items) is not list:
        return None
    return range(seq0, seq0 + len(items))


def _row_seqs(row: dict[str, Any], wanted: set[int]) -> list[int]:
    """The wanted seqs a compact chunk row covers (none when it is not one)."""
    covered = row_seqs(row)
    if covered is None:
        return []
    if len(covered) < len(wanted):  # a row's few chunks, among up to max_violations seqs
        return [seq for seq in covered if seq in wanted]
    return [seq for seq in wanted if seq in covered]


def _nearest(lines: list[int] | tuple[()], line: int) -> int | None:
    """The last of `lines` before `line`, else the first after it; None when there is none."""
    before = [each for each in lines if each <= line]
    if before:
        return before[-1]
    return lines[0] if lines else None
