"""Reading a session log: `.jsonl`, or `.jsonl.zst` (zstandard), with crash-tail detection.

A process that dies while appending can leave two kinds of damage, both at the very end: a last
line without its newline (torn mid-write), and the first lines of a multi-event unit whose last
line never came. `parse_log` keeps everything before the damage and reports what it dropped, so
an opener can truncate the file to `valid_bytes`. Damage anywhere else cannot come from a crash
of the single appending process and is refused as `CorruptLog` instead of being guessed at.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import attrs
import zstandard

from loopspec.impl.errors import CorruptLog
from loopspec.impl.framing import UNIT_KEY, unit_marker, without_marker
from loopspec.model.errors import InvalidEventError
from loopspec.model.events import Event, SessionHeader
from loopspec.model.json_text import json_refusal, loads
from loopspec.model.repeated_keys import repeated_key
from loopspec.model.wire import event_from_wire, header_from_wire

COMPRESSED_SUFFIX = ".zst"


@attrs.frozen
class TailDamage:
    """What a crash left at the end of the file, and what reading it dropped."""

    torn_bytes: int = 0
    """Bytes of a final line that has no newline (a write the crash cut)."""
    unfinished_unit_events: int = 0
    """Complete lines of a trailing multi-event unit whose remaining lines never arrived."""
    truncated_stream: bool = False
    """A compressed log whose stream ends mid-frame (read as far as it decodes)."""

    @property
    def clean(self) -> bool:
        """Whether the file ended exactly at a commit boundary."""
        return not self.torn_bytes and not self.unfinished_unit_events and not self.truncated_stream

    def describe(self) -> str:
        """One line for a person."""
        if self.clean:
            return "the log ends at a commit boundary"
        parts = []
        if self.torn_bytes:
            parts.append(f"dropped a torn last line ({self.torn_bytes} bytes)")
        if self.unfinished_unit_events:
            parts.append(f"dropped {self.unfinished_unit_events} event(s) of an unfinished commit")
        if self.truncated_stream:
            parts.append("the compressed stream ends mid-frame")
        return "; ".join(parts)


@attrs.frozen
class ParsedLog:
    """A log's header, its committed events, where each commit ended, and the tail report."""

    header: SessionHeader | None
    events: tuple[Event, ...]
    unit_ends: tuple[int, ...]
    valid_bytes: int
    damage: TailDamage


def _decode(line: bytes, number: int) -> dict[str, object]:
    text = _object_text(line)
    try:
        obj = json.loads(line) if text is None else loads(text)
    except ValueError as error:
        if not line.strip():
            message = f"line {number} is blank, with lines after it: blank lines may only end a log"
            raise CorruptLog(message) from error
        raise CorruptLog(f"line {number} is not JSON: {json_refusal(error)}") from error
    if not isinstance(obj, dict):
        raise CorruptLog(f"line {number} is not a JSON object")
    if text is None:
        text = line.decode(json.detect_encoding(line), "surrogatepass")  # as `json.loads` does
    repeat = repeated_key(text, obj)
    if repeat is not None:  # json kept the last of two values silently (LOG-3)
        raise CorruptLog(f"line {number}: {repeat}")
    return obj


def json_line(line: bytes) -> object:
    """`json.loads(line)`. A line that opens an object and decodes as strict UTF-8 (the
    encoding json detects for it) is read as text by json's scanner (`json_text.loads`), without
    what `json.loads` adds around it for bytes (encoding detection, a lenient decode, two
    whitespace matches): half the cost of reading a log line, which conform pays for every event
    it observes. Anything else, and every refusal, is `json.loads`'s own."""
    text = _object_text(line)
    return json.loads(line) if text is None else loads(text)


def _object_text(line: bytes) -> str | None:
    """The text of a line that opens an object and decodes as strict UTF-8, the encoding
    `json.detect_encoding` finds for it (no BOM, a second byte not NUL); None for another."""
    if line[:1] == b"{" and line[1:2] != b"\x00":
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def _header(line: bytes) -> SessionHeader:
    try:
        return header_from_wire(_decode(line, 1))
    except InvalidEventError as error:
        raise CorruptLog(f"line 1: {error}") from error


def _event(line: bytes, number: int, expected_seq: int) -> tuple[Event, tuple[int, int] | None]:
    obj = _decode(line, number)
    try:
        marker = unit_marker(obj)
        # (a line without the marker's key needs no copy without it)
        event = event_from_wire(without_marker(obj) if UNIT_KEY in obj else obj)
    except (ValueError, InvalidEventError) as error:
        raise CorruptLog(f"line {number}: {error}") from error
    if event.seq != expected_seq:
        raise CorruptLog(f"line {number}: seq {event.seq} where {expected_seq} was due")
    return event, marker


def _wire(
    line: bytes, number: int, expected_seq: int
) -> tuple[dict[str, object], tuple[int, int] | None]:
    obj = _decode(line, number)
    try:
        marker = unit_marker(obj)
    except ValueError as error:
        raise CorruptLog(f"line {number}: {error}") from error
    seq = obj.get("seq")
    if type(seq) is not int or seq != expected_seq:
        raise CorruptLog(f"line {number}: seq {seq!r} where {expected_seq} was due")
    # (a marker written null is no marker, as `_event` and check read it: the key goes too)
    return (without_marker(obj) if UNIT_KEY in obj else obj), marker


def parse_log(data: bytes) -> ParsedLog:
    """Parse a whole log file's bytes (uncompressed)."""
    lines = data.split(b"\n")
    fragment = lines.pop()  # bytes after the last newline: empty unless the last write was torn
    if not fragment.strip():
        # Blank lines that end the file hold no event (dsh drops them on reopening too); they
        # are left out of `valid_bytes`, so an opener cuts them before appending after them.
        # A blank line with any other line after it is refused (`_decode`): SPEC LOG-4.
        while lines and not lines[-1].strip():
            lines.pop()
    if not lines:
        return ParsedLog(None, (), (), 0, TailDamage(torn_bytes=len(fragment)))
    header = _header(lines[0])
    events, unit_ends, valid, dropped = _units(lines[1:], 0, 2, _event)
    damage = TailDamage(torn_bytes=len(fragment), unfinished_unit_events=dropped)
    return ParsedLog(header, tuple(events), tuple(unit_ends), len(lines[0]) + 1 + valid, damage)


def parse_unit_wires(
    data: bytes, first_seq: int, first_line: int
) -> tuple[list[dict[str, object]], list[int], int]:
    """The whole commit units at the start of `data`, bytes that continue a log whose last
    whole unit ended before event `first_seq`, on line `first_line`: their events as the wire
    objects the lines hold (without the unit marker), where each unit ends (counted from
    `first_seq`), and how many bytes they take. A torn or unfinished unit at the end is left
    for a later read. The lines are held to the framing and the seq order; their fields are
    not validated (a reader that compares them with the wire objects it expects needs no
    `Event`)."""
    lines = data.split(b"\n")
    lines.pop()  # bytes after the last newline: a line still being written
    wires, unit_ends, valid, _dropped = _units(lines, first_seq, first_line, _wire)
    return wires, unit_ends, valid


_Read = TypeVar("_Read")


def _units(
    lines: list[bytes],
    first_seq: int,
    first_line: int,
    read: Callable[[bytes, int, int], tuple[_Read, tuple[int, int] | None]],
) -> tuple[list[_Read], list[int], int, int]:
    """Events of complete lines, unit ends, the bytes of whole units, events of a cut unit."""
    offset = 0
    events: list[_Read] = []
    unit_ends: list[int] = []
    unit_start = 0  # byte offset where the unit being read starts
    unit_size = 1  # events in the unit being read (1: a single-event commit)
    for number, line in enumerate(lines, start=first_line):
        event, marker = read(line, number, first_seq + len(events))
        position = len(events) - (unit_ends[-1] if unit_ends else 0) + 1  # k of the next event
        if marker is None:
            marker = (1, 1)
        if marker != (position, unit_size if position > 1 else marker[1]):
            raise CorruptLog(f"line {number}: commit marker {list(marker)} is out of sequence")
        if position == 1:
            unit_start, unit_size = offset, marker[1]
        events.append(event)
        offset += len(line) + 1
        if position == unit_size:
            unit_ends.append(len(events))
    dropped = len(events) - (unit_ends[-1] if unit_ends else 0)
    if dropped:
        del events[len(events) - dropped :]
        offset = unit_start
    return events, unit_ends, offset, dropped


def read_log(path: Path) -> ParsedLog:
    """Read a `.jsonl` or `.jsonl.zst` log without changing it."""
    data = path.read_bytes()
    if path.suffix != COMPRESSED_SUFFIX:
        return parse_log(data)
    plain, complete = decompress(data)
    parsed = parse_log(plain)
    if complete:
        return parsed
    return attrs.evolve(parsed, damage=attrs.evolve(parsed.damage, truncated_stream=True))


def decompress(data: bytes) -> tuple[bytes, bool]:
    """Every frame's output, and whether the stream ended cleanly (a cut stream yields a prefix)."""
    output = bytearray()
    remaining = data
    while remaining:
        frame = zstandard.ZstdDecompressor().decompressobj()
        try:
            output += frame.decompress(remaining)
        except zstandard.ZstdError as error:
            raise CorruptLog(f"not a zstandard stream: {error}") from error
        if not frame.eof:
            return bytes(output), False
        remaining = frame.unused_data
    return bytes(output), True
