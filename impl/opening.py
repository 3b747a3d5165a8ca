"""Opening a log file for a live loop: lock, read, cut the crash tail, or start a new session.

The lock is taken before anything is read, so nothing is truncated under a live writer. A torn
last line and the lines of an unfinished unit are cut off (they were never acknowledged, rule
LOG-8) and reported; a file without a complete header line is a session that never started and
begins again. The caller then appends the repair closers (`loopspec.impl.repair`).
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs

from loopspec.impl.clock import Clock
from loopspec.impl.errors import CorruptLog, ImplError
from loopspec.impl.log_file import LockedLogFile, NotALogFile
from loopspec.impl.log_reader import COMPRESSED_SUFFIX, TailDamage, parse_log
from loopspec.impl.log_writer import Durability, UnitWriter
from loopspec.impl.session_log import SessionLog
from loopspec.model.events import SessionHeader
from loopspec.model.wire import header_to_wire

LOG_FORMAT_VERSION = 1


@attrs.frozen
class SessionInfo:
    """What a new session's header says: its id and working directory."""

    id: str
    cwd: str


@attrs.frozen
class OpenedLog:
    """A live log ready for appending, with what opening found at its end."""

    log: SessionLog
    writer: UnitWriter
    header: SessionHeader
    damage: TailDamage


HEADER_START = b'{"type":"session",'
"""How every header line this writer produces begins."""


def _refuse_unless_torn_header(path: Path, data: bytes) -> None:
    """A file without a complete line is cut only when it is a header the crash tore (SAFE-2).

    Anything else (a user's file without a newline) is not a log, and is left as it is.
    """
    if not (data.startswith(HEADER_START) or HEADER_START.startswith(data)):
        raise NotALogFile(f"{path}: not a loopspec log; refusing to overwrite it")


def _first_line_version(data: bytes) -> object:
    """The `version` of a header on the first line of `data`, or None where there is none."""
    try:
        first = json.loads(data.split(b"\n", 1)[0])
    except ValueError:
        return None
    is_header = isinstance(first, dict) and first.get("type") == "session"
    return first.get("version") if is_header else None


def _refuse_another_version(version: object) -> None:
    """Refuse a log whose header has a version this writer does not write (SAFE-2): version 0
    is dsh's, whose event layout loopspec shares, so its log reads as one loopspec could
    append to."""
    if version is not None and version != LOG_FORMAT_VERSION:
        raise NotALogFile(
            f"line 1: header version {version}, where loopspec writes and appends to version "
            f"{LOG_FORMAT_VERSION} only"
        )


def open_log(path: Path, durability: Durability, session: SessionInfo, clock: Clock) -> OpenedLog:
    """Lock and open `path` for appending (creating it with a header when it is new)."""
    if path.suffix == COMPRESSED_SUFFIX:
        raise ImplError(f"{path}: compressed logs can be read, not appended to")
    file = LockedLogFile.open(path)
    try:
        data = file.read_all()
        try:
            parsed = parse_log(data)
        except CorruptLog:
            # A dsh log's rows may not read as loopspec's (compact chunks): its version says
            # why it is refused better than the first row the reader cannot take.
            _refuse_another_version(_first_line_version(data))
            raise
        if parsed.header is None:
            if data:
                _refuse_unless_torn_header(path, data)
                file.truncate(0)
            header = SessionHeader(LOG_FORMAT_VERSION, session.id, clock.wall_ms(), session.cwd)
            writer = UnitWriter.start(file, header_to_wire(header), durability)
        else:
            _refuse_another_version(parsed.header.version)
            if parsed.valid_bytes < len(data):
                file.truncate(parsed.valid_bytes)
            header = parsed.header
            writer = UnitWriter(file, durability)
    except BaseException:
        # A file this open created holds no commit, at most part of a header: left, it would
        # be an empty or torn log that `check` calls LOG-5 (SAFE-4).
        file.close_and_remove_if_created()
        raise
    log = SessionLog(writer, parsed.events, parsed.unit_ends)
    return OpenedLog(log, writer, header, parsed.damage)
