"""Which dialect a log is written in, from its first record, without consuming the stream.

`sniff(stream)` looks at the stream's first bytes (`peek` on a buffered reader, read-and-seek-back
on a seekable one; a stream that allows neither is taken as a dsh log) and returns the
`harness_logs.Dialect` of a Claude Code transcript or a Codex rollout, or None for a dsh log
(which `loopspec.properties.logcheck.checker` reads itself). The first line is parsed when it is
within the first `SNIFF_BYTES`; a longer one (a Codex `session_meta` carries the model's whole
instructions) is recognised by how its first keys begin. A file of a CLI's home folder that is
no session log (a prompt history: `home_files`) is recognised from its first record too.

The first-record tests of both dialects live here, not beside their readers, so that telling a
transcript imports no Codex reader and a rollout no Claude Code reader: only the reader of the
dialect found is imported (each reader is several modules, tests/test_check_startup.py).
"""

from __future__ import annotations

from loopspec.model.json_text import loads
from loopspec.properties.logcheck.checker import (
    DSH_HEADER_TYPE,
    SNIFF_BYTES,
    ErrorKind,
    Limits,
    LogReport,
    Skipped,
    log_head,
    starts_with_dsh_header,
)

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:  # the readers of other loops' logs are imported when such a log turns up
    from typing import Any, BinaryIO

    from loopspec.properties.logcheck.harness_logs import Dialect
    from loopspec.properties.logcheck.home_files import HomeFile

# What a first line too long to read whole begins with, as patterns of `re` (which
# tests/test_lean_json_readers.py holds `_codex_start`, `_claude_start` and `_names_a_session`
# to: they read the same without importing re, which costs a third of the interpreter's start,
# and a Codex rollout's session_meta, carrying the model's whole instructions, is such a line).
CODEX_START = (
    rb'^\s*\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"(session_meta|response_item|'
    rb'event_msg|turn_context)"'
)
CLAUDE_START = rb'^\s*\{\s*"(parentUuid|type)"\s*:'
CLAUDE_SESSION = rb'"sessionId"\s*:\s*"'
_CODEX_TYPES = (b'session_meta"', b'response_item"', b'event_msg"', b'turn_context"')
_CLAUDE_FIRST_KEYS = (b'"parentUuid"', b'"type"')
_SPACE = b" \t\n\r\f\v"  # what `\s` matches in a pattern of bytes


def _past(head: bytes, index: int, token: bytes) -> int:
    """The index just past `token` where it follows `index` after space, else -1 (as it is
    for an `index` of -1)."""
    if index < 0:
        return -1
    while index < len(head) and head[index] in _SPACE:
        index += 1
    return index + len(token) if head.startswith(token, index) else -1


def _codex_start(head: bytes) -> bool:
    """`re.match(CODEX_START, head)`."""
    index = _past(head, _past(head, _past(head, 0, b"{"), b'"timestamp"'), b":")
    index = _past(head, index, b'"')
    if index < 0 or (index := head.find(b'"', index) + 1) == 0:  # the timestamp's end
        return False
    index = _past(head, _past(head, _past(head, index, b","), b'"type"'), b":")
    index = _past(head, index, b'"')
    return index >= 0 and head.startswith(_CODEX_TYPES, index)


def _claude_start(head: bytes) -> bool:
    """`re.match(CLAUDE_START, head)`."""
    start = _past(head, 0, b"{")
    return any(_past(head, _past(head, start, key), b":") >= 0 for key in _CLAUDE_FIRST_KEYS)


def _names_a_session(head: bytes) -> bool:
    """`re.search(CLAUDE_SESSION, head)`."""
    index = head.find(b'"sessionId"')
    while index >= 0:
        if _past(head, _past(head, index + len(b'"sessionId"'), b":"), b'"') >= 0:
            return True
        index = head.find(b'"sessionId"', index + 1)
    return False


# The record types a Claude Code transcript's first line may hold. Each release adds some, so a
# transcript is also known by a string `sessionId` whatever its type.
CLAUDE_CODE_RECORD_TYPES = frozenset(
    {
        "queue-operation",
        "user",
        "assistant",
        "attachment",
        "system",
        "summary",
        "last-prompt",
        "atis-latch",
        "file-history-snapshot",
        "api-request-shape",
        "api-request-blob",
        "api-request",
        "tools-used",
        "cost-state",
        "custom-title",
        "mode",
    }
)
# Keys one of which every transcript record carries (a `summary` only `leafUuid`, a
# `file-history-snapshot` only `messageId`); none of them is a dsh event field.
CLAUDE_CODE_IDENTIFYING_KEYS = ("sessionId", "uuid", "leafUuid", "messageId")
CODEX_RECORD_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "world_state", "compacted"}
)


def opens_a_transcript(record: dict[str, Any]) -> bool:
    """Whether a parsed first record is a Claude Code transcript record: a known type with one
    of the identifying keys, or any type with a string `sessionId` (each release adds record
    types, and a forked session opens with whichever it writes first)."""
    kind = record.get("type")
    if not isinstance(kind, str) or "seq" in record:
        return False
    if "session_id" in record and "sessionId" not in record:
        return False  # the stream-json a headless run prints (`home_files`), not a transcript
    if kind in CLAUDE_CODE_RECORD_TYPES:
        return any(key in record for key in CLAUDE_CODE_IDENTIFYING_KEYS)
    return kind != DSH_HEADER_TYPE and isinstance(record.get("sessionId"), str)


def opens_a_rollout(record: dict[str, Any]) -> bool:
    """Whether a parsed first record is a Codex rollout record: a rollout's type and a
    timestamp, as a first line too long to parse is known (`_codex_start`). Its payload is not
    looked at, so one that is no object is named by the reader (`codex._Reader.observe`), where
    the dsh reader's message about a session header would send its author the wrong way."""
    kind = record.get("type")
    return isinstance(kind, str) and kind in CODEX_RECORD_TYPES and "timestamp" in record


def dialect_of_first_line(head: bytes) -> Dialect | None:
    """The foreign dialect whose first record `head` begins with, or None (a dsh log)."""
    stripped = head.lstrip()
    newline = stripped.find(b"\n")
    if newline < 0 and len(head) < SNIFF_BYTES:
        newline = len(stripped)  # the whole log is one line without its newline
    if newline >= 0:
        if starts_with_dsh_header(stripped[:newline]):
            return None
        try:
            record: Any = _first_record(stripped[:newline])
        except (ValueError, RecursionError):  # not JSON, or nested too deeply: the dsh reader says
            return None
        if not isinstance(record, dict) or record.get("type") == DSH_HEADER_TYPE:
            return None
        if opens_a_rollout(record):
            from loopspec.properties.logcheck import codex  # noqa: PLC0415

            return codex.dialect()
        if opens_a_transcript(record):
            from loopspec.properties.logcheck import claude_code  # noqa: PLC0415

            return claude_code.dialect()
        return None
    if _codex_start(head):
        from loopspec.properties.logcheck import codex  # noqa: PLC0415

        return codex.dialect()
    if _claude_start(head) and _names_a_session(head) and b'"seq"' not in head:
        from loopspec.properties.logcheck import claude_code  # noqa: PLC0415

        return claude_code.dialect()
    return None


def _first_record(first: bytes) -> object:
    """`json.loads(first)`, without json for a line of UTF-8 opening an object, as every log's
    first line does (`json_text.loads`: json's decoder imports re, enum and collections, several
    times the interpreter's start). json reads bytes in the encoding their first bytes show:
    for an object's `{` followed by no NUL byte, UTF-8, decoded with `surrogatepass`; a line
    that is not strict UTF-8, or in another encoding, is left to it."""
    if first.startswith(b"{") and b"\x00" not in first:
        try:
            text = first.decode()
        except UnicodeDecodeError:
            pass
        else:
            return loads(text)
    import json  # noqa: PLC0415 (see above)

    return json.loads(first)


def sniff(stream: BinaryIO) -> Dialect | None:
    """The dialect of the log `stream` holds, or None for a dsh log; consumes nothing. May raise
    `OSError` (reading, or decompressing, the first bytes failed)."""
    return dialect_of_first_line(log_head(stream))


def home_file_of_first_line(head: bytes) -> HomeFile | None:
    """What the file beginning with `head` is when its first record shows a file of a CLI's
    home folder that is no session log (see `home_files`), else None."""
    stripped = head.lstrip()
    newline = stripped.find(b"\n")
    if newline < 0 and len(head) < SNIFF_BYTES:
        newline = len(stripped)
    if newline < 0:
        return None  # such files have short records: a longer first line is none of them
    if starts_with_dsh_header(stripped[:newline]):
        return None
    try:
        record: Any = _first_record(stripped[:newline])
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or record.get("type") == DSH_HEADER_TYPE:
        return None
    from loopspec.properties.logcheck.home_files import home_file_of  # noqa: PLC0415

    return home_file_of(record)


def _not_a_session_log(path: str, home_file: HomeFile, *, walked: bool) -> LogReport:
    """Found in a directory walk: skipped, with what it is. Named by the user: an input error
    saying what it is, since that file was asked for."""
    report = LogReport(path)
    if walked:
        message = f"{home_file.what}: not a session log, no loop to check in it"
        report.skipped = Skipped(home_file.kind, message)
    else:
        message = (
            f"{home_file.what}: not a session log, no loop to check in it; name a transcript "
            "or rollout, or a folder (files like this one are skipped there)"
        )
        report.fail(None, ErrorKind.NOT_A_SESSION_LOG, message)
    return report


def _records_acp(head: bytes) -> bool:
    """Whether the log beginning with `head` is an ACP recording: its first line a JSON-RPC 2.0
    message (`acp_stream`), or, too long to read whole, an object whose first key is jsonrpc."""
    stripped = head.lstrip()
    newline = stripped.find(b"\n")
    if newline < 0 and len(head) < SNIFF_BYTES:
        newline = len(stripped)
    if newline < 0:
        return _past(head, _past(head, 0, b"{"), b'"jsonrpc"') >= 0
    try:
        record: Any = _first_record(stripped[:newline])
    except (ValueError, RecursionError):
        return False
    return isinstance(record, dict) and record.get("jsonrpc") == "2.0"


def check_if_foreign(
    path: str, stream: BinaryIO, head: bytes, limits: Limits, *, walked: bool = False
) -> LogReport | None:
    """The report of a Claude Code transcript, Codex rollout or ACP recording (`acp_stream`),
    or of a file of a CLI's home folder that is no session log (`walked`: found under a
    directory argument); None for a dsh log. `head`: the stream's first bytes, peeked at
    (`checker.log_head`)."""
    if _records_acp(head):
        from loopspec.properties.logcheck.acp_stream import check_recording  # noqa: PLC0415

        return check_recording(path, stream, limits)
    dialect = dialect_of_first_line(head)
    if dialect is None:
        home_file = home_file_of_first_line(head)
        return None if home_file is None else _not_a_session_log(path, home_file, walked=walked)
    from loopspec.properties.logcheck.harness_logs import check_foreign  # noqa: PLC0415

    return check_foreign(path, stream, limits, dialect)
