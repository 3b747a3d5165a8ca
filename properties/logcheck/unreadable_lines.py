"""Why a line of a log that check's fast path could not read is no event, in the report's words.

`checker._check_lines` reads a line with json's C scanner; a line it refuses (blank, cut off by
a crash, binary data, not UTF-8, invalid or too deep JSON, two events glued together; one its
`LineReader` could not hand over as text comes as a `RawLine`, its bytes) comes here
(`parse_slowly`), where json's own decoder says why, and the line is skipped, kept as the log's
torn last line, or reported as an input error that stops the log. The readers of the other
loops' logs and of ACP recordings word such lines with the same words (`torn_write`,
`torn_line_words`, `not_utf8_words`). A module of its own so that a log whose every line reads
is checked without it, nor its words (benchmarks/bench_cli.py).
"""

from __future__ import annotations

import codecs
import io
import sys

from loopspec.model.json_text import JSON_SPACE, too_long_integer
from loopspec.properties.logcheck import MARKED_VERSION, is_header
from loopspec.properties.logcheck.checker import (
    DEPTH_FREE_CHARS,
    GZIP_MAGIC,
    SCAN_ERRORS,
    TOO_DEEP_WORDS,
    CannotCheckFurther,
    ErrorKind,
    LossyHeader,
    NotLossless,
    lines_follow,
    nested_deeper,
    scan_json,
    strict_decoder,
    value_cut_short,
)

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from json import JSONDecodeError
    from typing import Any, BinaryIO, TypeGuard

    from loopspec.properties.logcheck.checker import LogReport, RestOfLog


SKIP = object()
"""A line that holds nothing to check: blank, or a torn tail already reported."""


class CutShortDeep(Exception):
    """A line json's reader could not read for its depth (`RecursionError`), whose value stops
    before it ends (`value_cut_short`): judged as a write cut off, whatever the depth."""


class RawLine(str):
    """A line `LineReader` does not hand over as text, and its bytes (`raw`): one cut at the
    line bound, or not UTF-8. Empty, so json's scanner refuses it at once."""

    raw: bytes


class Replay:
    """`readline(size)` over the bytes `head`, then on in `stream`: how `checker.LineReader`
    reads on as bytes from a line its text reader could not hand over."""

    __slots__ = ("head", "stream")

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self.head: io.BytesIO | None = io.BytesIO(head) if head else None
        self.stream = stream

    def readline(self, size: int) -> bytes:
        if self.head is not None:
            raw = self.head.readline(size)
            if raw.endswith(b"\n") or len(raw) == size:
                return raw
            self.head = None  # it ran out in a line, which goes on in the stream
            if raw:
                return raw + self.stream.readline(size - len(raw))
        return self.stream.readline(size)


def decode_error(raw: bytes) -> Exception:
    """Why the line `raw` is no text: its UTF-8 error."""
    try:
        raw.decode()
    except UnicodeDecodeError as error:
        return error
    return ValueError("not UTF-8")  # (not reached: a `RawLine` within the bound does not decode)


TORN = object()
"""The last line, cut off mid-write, of a log with a header."""


def parse_slowly(
    report: LogReport, raw: bytes, line: int, error: Exception, rest: RestOfLog
) -> Any:
    """The object on a line the fast path could not read, `SKIP` or `TORN`; raises
    `CannotCheckFurther` when none.

    The fast path reads only lines that start with their JSON value; a full decode also takes
    leading whitespace and gives the exact error otherwise. `rest` reads the lines after
    it, which only a torn write followed by a newline needs (`RestOfLog`).
    """
    if isinstance(error, UnicodeDecodeError):
        pass  # (judged by its bytes below)
    elif len(raw) > DEPTH_FREE_CHARS and nested_deeper(raw):
        # Whether json's reader goes that deep depends on the Python (`MAX_LOG_DEPTH`): read
        # as the shallowest refuses it, save a value cut short, a torn write at any depth.
        error = CutShortDeep() if value_cut_short(raw) else RecursionError()
    elif not _refused_for_its_bytes(raw, line):
        try:
            return strict_decoder().decode(raw.decode())
        except NotLossless as lossy:
            header = _lossy_header(raw) if line == 1 else None
            if header is not None:
                report.fail(line, ErrorKind.BAD_HEADER, f"not lossless JSON: {lossy}", "LOG-3")
                return header
            error = lossy
        except (ValueError, RecursionError) as again:
            error = again
    if isinstance(error, RecursionError) and value_cut_short(raw):
        error = CutShortDeep()  # (json's stack ran out on one Python, its line on another)
    return TORN if _unparsable(report, raw, line, error, rest) else SKIP


def _refused_for_its_bytes(raw: bytes, line: int) -> bool:
    """Whether json's decoder refuses the line `raw` and `_unparsable` judges it by its bytes
    alone, whatever the decoder's error says: a line past the first (the first may be a header
    whose number only the decoder reads, `_lossy_header`), without its newline (so the log's
    last: a crash's torn write, or a line no harness wrote) and without a carriage return
    (`_ends_lines_with_cr` reads the error), that json's C scanner does not read whole. So a
    crash's torn last line is reported without importing json, with the re, enum and
    collections it imports, to word an error no one reads."""
    if line == 1 or raw.endswith(b"\n") or b"\r" in raw:
        return False
    text = raw.decode()
    start = len(text) - len(text.lstrip(JSON_SPACE))  # as the decoder skips it
    try:
        _, end = scan_json(text, start)
    except SCAN_ERRORS:
        return True
    return bool(text[end:].strip(JSON_SPACE))


def _lossy_header(raw: bytes) -> LossyHeader | None:
    """The header on the first line `raw`, read with what its numbers read as; None when the
    line is no header."""
    import json  # noqa: PLC0415 (as in `strict_decoder`)

    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return LossyHeader(value) if type(value) is dict and is_header(value) else None


def _torn_tail_with_newline(report: LogReport, raw: bytes, line: int, rest: RestOfLog) -> bool:
    """Whether the torn write `raw`, ended by a newline, is the last line of a version 0 log:
    dsh (0.1.0-rc.8) drops an unreadable line on reopening when no turn/end follows it, so
    such a last line is the same crash tail as one without its newline. loopspec's own reader
    (`impl/log_reader.py`, version 1) drops only a line without one."""
    return (
        line > 1
        and report.version is not None
        and report.version != MARKED_VERSION
        and raw.endswith(b"\n")
        and rest.only_blank()
    )


# Why a version 1 log's last line, cut off or zeroed, that a newline ends is an error where a
# version 0 log's is a crash's torn tail (`_torn_tail_with_newline`).
_NO_CRASH_OF_VERSION_1 = (
    "yet a newline ends it: a version 1 log's writer (loopspec run) writes each line with its "
    "newline, so a crash leaves a cut last line without one, the only one its reader drops; "
    "this one it refuses (a version 0 log's, which dsh drops on reopening, is a torn-commit "
    "notice)"
)


def _last_of_version_1(report: LogReport, line: int, rest: RestOfLog) -> bool:
    """Whether `line`, which a newline ends, is the last of a version 1 log (blank lines aside)."""
    return report.version == MARKED_VERSION and line > 1 and not lines_follow(rest)


# The part of a token the parser stops at when a line is cut inside it, not between two: a
# literal's start, a number's sign, point or exponent, an escape's backslash (the parser stops
# at it) or the digits of a \uXXXX escape (it stops after the backslash). Compiled when a line
# is cut (re caches them): compiled at import, they cost every check ~0.2 ms of start-up.
_CUT_TOKEN = r"t(?:ru?)?|f(?:a(?:ls?)?)?|n(?:ul?)?|-|\.|[eE][+-]?"
_CUT_ESCAPE = r"\\|u[0-9a-fA-F]{0,3}"


def _is_json_error(error: Exception) -> TypeGuard[JSONDecodeError]:
    """Whether `error` is json's decoder's, which says where and why a line is no JSON. Asked
    without importing json: none of its errors exists before json.decoder is imported."""
    decoder = sys.modules.get("json.decoder")
    return decoder is not None and isinstance(error, decoder.JSONDecodeError)


def _stops_short(error: JSONDecodeError) -> bool:
    """Whether the line `error` is about stops before its JSON value ends: the parser ran out of
    line, or stopped at a token the line's end cut short."""
    import re  # noqa: PLC0415 (only for a line that does not parse)

    line = error.doc.rstrip()
    rest = line[error.pos :]
    if not rest:
        return True
    cut = _CUT_ESCAPE if error.msg.startswith("Invalid \\") else _CUT_TOKEN
    return re.fullmatch(cut, rest) is not None


def _looks_like_json(raw: bytes) -> bool:
    """Whether the line `raw` reads as a JSON object's text, whatever bytes it holds inside: a
    header with one string in another encoding is a log to fix, not a binary file."""
    return raw.lstrip().startswith(b"{") and raw.rstrip().endswith(b"}")


def _opens_a_header(rest: RestOfLog, lone: bytes) -> bool:
    """Whether the first object printed after a first line that is a lone '{' or '[' (`lone`,
    as read) names the session header's type among its own members, up to its closing brace: a
    log printed over many lines, not a case or settings file (a nested member is not looked at).
    Its type may come late: `jq -S .` sorts it after createdAt, cwd and id (at most
    `_HEADER_LINES_AT_MOST` lines are read)."""
    import re  # noqa: PLC0415 (only for a line that does not parse)

    header = re.compile(rb'\s*\{?\s*"type"\s*:\s*"session"')
    # The indentation of the first object's braces: the first line's, or the next line's
    # after a lone '[' (None until read); its closing brace is the first '}' no deeper. Its own
    # members are as deep as its first.
    opened = _indentation(lone) if lone.strip() == b"{" else None
    members = None
    for _ in range(_HEADER_LINES_AT_MOST):
        line = rest.next_line()
        if not line:
            return False
        indentation = _indentation(line)
        if opened is None:  # the line opening the first object, its type maybe on it
            opened = indentation
        elif line.lstrip().startswith(b"}") and indentation <= opened:
            return False
        elif members is None:
            members = indentation
        if indentation in (opened, members) and header.match(line):
            return True
    return False


def _indentation(line: bytes) -> int:
    return len(line) - len(line.lstrip())


_HEADER_LINES_AT_MOST = 64
"""How many lines of a log printed over many lines `_opens_a_header` reads for the header's
type: a header's members, one a line, with room for a few nested ones."""


def _wrapped_over(raw: bytes, rest: RestOfLog) -> int:
    """How many lines after the line `raw`, cut short, hold the rest of its event, when they
    do: none of them begins an event of its own, and joined to it they make one JSON object (a
    line a terminal or an editor wrapped); 0 otherwise."""
    text = raw.rstrip(b"\r\n")
    for count in range(1, _WRAPPED_LINES_AT_MOST + 1):
        more = rest.next_line()
        if not more.strip() or _whole_object(more):  # an event of its own
            return 0
        text += more.rstrip(b"\r\n")
        try:
            value, end = scan_json(text.decode(), 0)
        except UnicodeDecodeError:
            return 0
        except SCAN_ERRORS:
            continue
        return count if type(value) is dict and not text[end:].strip() else 0
    return 0


def _whole_object(line: bytes) -> bool:
    """Whether the line `line` is a JSON object by itself (an event of its own), where a line
    that merely opens with '{' may hold the rest of a wrapped event: a nested object's, the
    wrap just before its brace."""
    try:
        text = line.strip().decode()
        value, end = scan_json(text, 0) if text.startswith("{") else (None, 0)
    except SCAN_ERRORS:  # (a UnicodeDecodeError is a ValueError)
        return False
    return type(value) is dict and end == len(text)


_WRAPPED_LINES_AT_MOST = 64
"""How many lines after a line cut short `_wrapped_over` reads to find the rest of its event:
a terminal 80 columns wide breaks a line of 5,000 characters into 63."""


def _pasted_words(error: JSONDecodeError) -> str | None:
    """What a person's copy or edit made of the line `error` is about, when the line shows
    it, said so (None otherwise): a terminal's colour codes, a comment, a line number, a
    typographic quote, a Python dict's repr, a space JSON does not allow, a comma after the
    event. Each read as 'invalid JSON at column N' (or, the line number and the comment, as a
    write cut off or two events on one line), which says nothing of what to undo."""
    import re  # noqa: PLC0415 (only for a line that does not parse)

    from loopspec.properties.typographic import CURLED_QUOTES  # noqa: PLC0415 (as re)

    text = error.doc.rstrip("\r\n")
    stripped = text.lstrip()
    found = text[error.pos : error.pos + 1]
    where = f"column {error.colno}"
    # Around the JSON (jq -C begins each line with one), not an ESC a writer left in a string.
    if stripped.startswith("\x1b["):
        return (
            "the line holds a terminal's colour codes (ESC [ ... m) around its JSON: copied "
            "from a coloured terminal (jq -C, a pager)? copy the file itself, or print it "
            "with jq -M"
        )
    if stripped.startswith(("//", "#")):
        marker = "//" if stripped.startswith("//") else "#"
        return (
            f"the line is commented out ({marker}): JSON has no comments, and a session log "
            f"holds events alone; delete the line, or its {marker} to keep the event"
        )
    if (number := re.match(r"\s*(\d+)(?:[\s:|]\s*)(?=\{)", text)) is not None:
        return (
            f"the line starts with {number.group(1)} before its event: a line number (copied "
            "from cat -n, grep -n or an editor's view?); delete it"
        )
    if found and found in CURLED_QUOTES:
        return (
            f'a typographic quote {found} at {where} where JSON has a straight one ("): the '
            'line went through a word processor or a chat; write it as "'
        )
    if found == "'" and stripped.startswith("{'"):
        return (
            f"a single quote at {where}: the line is written as Python prints a dict "
            "({'type': ...}), not JSON; write each event with json.dumps"
        )
    if found.isspace() and not found.isascii():
        import unicodedata  # noqa: PLC0415 (as re)

        name = unicodedata.name(found, "space").lower()
        return (
            f"a {name} (U+{ord(found):04X}) at {where}: JSON allows only spaces, tabs and line "
            "ends between its tokens (the line went through a word processor or a web page?)"
        )
    if error.msg == "Extra data" and text[error.pos :].strip() == ",":
        return (
            f"a comma after the event, at {where} (left from a JSON array, or lines joined?): "
            "a session log holds one event per line, and nothing after it; delete it"
        )
    return None


def _glued_event(error: JSONDecodeError) -> tuple[int, bool] | None:
    """Where an event written whole starts on the line `error` is about, after something else:
    (its offset, whether what precedes it is a whole JSON value), or None. The events of the
    dsh layout begin with their type, as every one written by loopspec and dsh does."""
    import json  # noqa: PLC0415 (only for a line that does not parse)
    import re  # noqa: PLC0415

    text = error.doc.rstrip()
    decoder = json.JSONDecoder()
    for found in re.finditer(r'\{\s*"type"\s*:', text):
        start = found.start()
        if start == 0:
            continue
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if end == len(text) and isinstance(value, dict):
            before = text[:start].strip()
            try:
                whole_before = decoder.raw_decode(before)[1] == len(before)
            except ValueError:
                whole_before = False
            return start, whole_before
    return None


def torn_write(raw: bytes, error: Exception) -> bool:
    """Whether the line `raw`, which did not parse (`error`), is a write a crash cut off: it
    lacks its newline (only a file's last line can), ends in zero bytes (the file's new length
    on disk, its data not), or stops before its JSON value ends."""
    if not raw.endswith(b"\n") or _zero_tail(raw):
        return True
    if isinstance(error, RecursionError):  # too deep for json's reader, on this Python
        return value_cut_short(raw)
    return _is_json_error(error) and _stops_short(error)


def _zero_tail(raw: bytes) -> int:
    """How many zero bytes end the line `raw` (before its newline), when nothing but them
    follows its first zero byte; 0 otherwise."""
    text = raw.rstrip(b"\n")
    kept = text.rstrip(b"\x00")
    return 0 if b"\x00" in kept else len(text) - len(kept)


def _ends_lines_with_cr(raw: bytes, error: JSONDecodeError) -> bool:
    """Whether a value parsed whole and what follows it, after a carriage return, is more
    data: events separated by a lone "\\r" (the decoder reads it as a space)."""
    if error.msg != "Extra data":
        return False
    between = error.doc[: error.pos].rstrip(" \t")
    return b"\r" in raw and between.endswith("\r") and not between.endswith("\r\n")


def _unparsable(
    report: LogReport, raw: bytes, line: int, error: Exception, rest: RestOfLog
) -> bool:
    """Classify a line that did not parse. Blank lines that end the log and a torn tail return
    (True for the torn tail of a log with a header, which the caller reports); the rest stop."""
    if not raw.strip():
        if rest.only_blank():  # they end the log: every reader drops them, no event with them
            return False
        # Not what a crash leaves, and a reader does not skip it: dsh (0.1.0-rc.8) refuses the
        # log when a turn/end follows the blank line and otherwise drops every line after it;
        # loopspec's own reader (`impl/log_reader.py`) refuses it. What the log holds after it
        # depends on who reads it, so check cannot judge those lines.
        message = (
            "a blank line with lines after it: a session log holds one event per line and blank "
            "lines only at its end; dsh, reopening the log, refuses it (a turn/end follows) or "
            "drops every line after the blank one, and loopspec's reader refuses it"
        )
        report.fail(line, ErrorKind.BLANK_LINE, message, "LOG-5" if line == 1 else "LOG-4")
        raise CannotCheckFurther
    if line == 1 and raw.startswith(GZIP_MAGIC):  # a rotated log (logrotate compresses so)
        message = (
            "gzip-compressed data, not a JSON Lines session log: check reads plain and zstd "
            "(.jsonl.zst) logs; give it decompressed: gunzip -c LOG | loopspec check -"
        )
        report.fail(line, ErrorKind.BINARY, message)
    elif line > 1 and (zeros := _zero_tail(raw)):
        # A crash after the file's new length reached the disk and before its data did: the
        # filesystem reads the gap as zero bytes. Not another file: the log up to it is whole.
        # At the end of a log with a header it is a torn last line (below); followed by a
        # newline, something wrote after it.
        if report.version is not None and not raw.endswith(b"\n"):
            return True
        if _torn_tail_with_newline(report, raw, line, rest):
            return True
        written = len(raw.rstrip(b"\n")) - zeros
        part = f"{written} bytes of a write, then " if written else ""
        message = (
            f"the line is {part}{zeros} zero bytes, not JSON: what a crash leaves when a "
            "file's new length reached the disk before its data did; the lines before it are "
            "whole, and the harness must drop it before it appends again"
        )
        if _last_of_version_1(report, line, rest):
            message = f"the last line is {part}{zeros} zero bytes, {_NO_CRASH_OF_VERSION_1}"
        report.fail(line, ErrorKind.BINARY, message, "LOG-8")
    elif line == 1 and raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        # Windows PowerShell's `>` and `Out-File`, and editors asked to, save text so: every
        # other byte of it is zero, which read as "binary data", a file of another kind.
        order = "0xff 0xfe" if raw.startswith(codecs.BOM_UTF16_LE) else "0xfe 0xff"
        message = (
            f"UTF-16 text (it starts with UTF-16's byte order mark, {order}), not UTF-8: a "
            "session log is UTF-8 text; save it as UTF-8 (PowerShell's > writes UTF-16: "
            "Set-Content -Encoding utf8, or copy the file instead)"
        )
        report.fail(line, ErrorKind.BINARY, message, "LOG-5")  # (no line of it to fix alone)
    elif b"\x00" in raw or (
        line == 1 and isinstance(error, UnicodeDecodeError) and not _looks_like_json(raw)
    ):
        report.fail(line, ErrorKind.BINARY, "binary data, not a JSON Lines session log")
    elif _is_json_error(error) and _ends_lines_with_cr(raw, error):
        # Not a write a crash cut off (it would read so, having no newline): a file saved with
        # old Mac line ends, one "line" of many events that no JSON Lines reader splits.
        message = (
            "lines end in a carriage return alone (\\r): a JSON Lines log ends each line with a "
            "newline (\\n, or \\r\\n); save the log with those"
        )
        report.fail(line, ErrorKind.INVALID_JSON, message, "LOG-4")
    elif isinstance(error, RecursionError) and nested_deeper(raw):
        # A whole value, too deep: no write cut it off, with or without its newline.
        report.fail(line, ErrorKind.INVALID_JSON, TOO_DEEP_WORDS, "SAFE-4")
    elif not raw.endswith(b"\n"):
        # Only the last line can lack its newline: this one was cut off mid-write, and the
        # harness drops it on reopening (`impl/log_reader.py`; dsh, whose logs are version 0,
        # was seen to as well): the torn-commit notice says so. Without a header no harness
        # is known to have written the log.
        if report.version is not None:
            return True
        message = (
            f"the last line stops short ({len(raw)} bytes, no newline): a write a crash cut "
            "off, which the harness must drop whole before the session resumes"
        )
        report.fail(line, ErrorKind.TORN_TAIL, message, "LOG-8")
        return False
    elif isinstance(error, UnicodeDecodeError):
        # Say which byte, and what to change: a writer that encodes some text (a path, a
        # tool's output) in another encoding than UTF-8.
        message = (
            f"{not_utf8_words(raw, error)}: a session log is UTF-8 text; write every string "
            "(paths and tool output too) as UTF-8"
        )
        report.fail(line, ErrorKind.INVALID_UTF8, message, "LOG-5" if line == 1 else "LOG-4")
    elif isinstance(error, RecursionError):
        # (Not past the bound: json's reader called with the stack nearly full already.)
        message = TOO_DEEP_WORDS if nested_deeper(raw) else "JSON nested too deeply to read"
        report.fail(line, ErrorKind.INVALID_JSON, message, "SAFE-4")
    elif line == 1 and raw.strip() in (b"{", b"["):
        # An indented JSON document (a case file `conform` saved, a pretty-printed log).
        lone = raw.strip().decode()
        if _opens_a_header(rest, raw):  # a log pretty-printed, as `jq .` (or `jq -s .`) prints one
            events, printed = (".", "jq .") if lone == "{" else ("'.[]'", "jq -s .")
            message = (
                f"the first line is a lone {lone!r}: a session log printed over many lines "
                f"({printed} prints it so), not JSON Lines (one event per line); `jq -c "
                f"{events} FILE` writes each event on one line"
            )
            report.fail(line, ErrorKind.INVALID_JSON, message, "LOG-5")
        else:
            message = (
                f"the first line is a lone {lone!r}: one JSON document over many lines, not "
                "JSON Lines (one event per line); a case file is rerun with `loopspec replay`"
            )
            report.fail(line, ErrorKind.INVALID_JSON, message)
    elif line == 1 and _is_json_error(error) and _stops_short(error):
        # A JSON document over many lines (a settings.json, a case file), far likelier than a
        # log whose first write was cut off and appended to after (LOG-8 below).
        message = (
            f"the first line stops after {len(error.doc.rstrip())} characters, before its JSON "
            "value ends: one JSON document over many lines (a settings or case file?), not JSON "
            "Lines (one event per line)"
        )
        report.fail(line, ErrorKind.INVALID_JSON, message)
    elif raw.startswith(codecs.BOM_UTF8):  # an editor's or a writer's mark, before the JSON
        # dsh's reader (JSON.parse) refuses the mark too: before the header it opens no log
        # (LOG-5); later a writer encoded a write with one (a file opened with 'utf-8-sig'
        # writes it only at the file's start, but str.encode writes it every time).
        if line == 1:
            message = (
                "the line starts with a UTF-8 byte order mark (BOM): save the log without it "
                "(the header must be the first thing in the file)"
            )
        else:
            message = (
                "the line starts with a UTF-8 byte order mark (BOM): text encoded with one "
                "and appended (Python's .encode('utf-8-sig') puts one before each write), or a "
                "file saved with one joined on; write the log as plain UTF-8"
            )
        report.fail(line, ErrorKind.INVALID_JSON, message, "LOG-5" if line == 1 else "LOG-4")
    elif isinstance(error, CutShortDeep) or (_is_json_error(error) and _stops_short(error)):
        if _torn_tail_with_newline(report, raw, line, rest):
            return True
        if raw.strip() in (b"{", b"[") and lines_follow(rest):
            # An event's first line alone, its members on the lines after it: an event pasted
            # through an editor that re-indented it, or pretty-printed JSON appended. A write a
            # crash cut after its first byte, with lines appended after it, is far rarer.
            message = (
                f"the line is a lone {raw.strip().decode()!r}, an event's first line with the "
                "rest on the lines after it (re-indented by an editor, or pretty-printed JSON "
                "appended?): a session log holds each event on one line; join its lines"
            )
            report.fail(line, ErrorKind.INVALID_JSON, message, "LOG-4")
            raise CannotCheckFurther
        # The value runs on past the line's end: a write cut off mid-line, and the harness went
        # on appending after it (the parser's column would be that of the newline's next line).
        length = len(raw.decode(errors="replace").rstrip())
        if wrapped := _wrapped_over(raw, rest):
            holding = (
                f"line {line + 1} holds"
                if wrapped == 1
                else f"lines {line + 1} to {line + wrapped} hold"
            )
            broken = len(raw.rstrip(b"\r\n").decode(errors="replace"))  # (a space kept)
            message = (
                f"the line breaks off after {broken} characters and {holding} the rest of its "
                "event: one event broken over several lines (wrapped by a terminal or an "
                "editor, copied so?); join them, a session log holds each event on one line"
            )
            report.fail(line, ErrorKind.INVALID_JSON, message, "LOG-4")
            raise CannotCheckFurther
        message = (
            f"the line stops after {length} characters, before its JSON value ends: a write "
            "cut off, which the harness must drop whole before it appends again"
        )
        if _last_of_version_1(report, line, rest):
            message = (
                f"the last line stops after {length} characters, before its JSON value ends, "
                f"{_NO_CRASH_OF_VERSION_1}"
            )
        report.fail(line, ErrorKind.INVALID_JSON, message, "LOG-8")
    elif _is_json_error(error) and (pasted := _pasted_words(error)) is not None:
        report.fail(line, ErrorKind.INVALID_JSON, pasted, "LOG-5" if line == 1 else "LOG-4")
    elif _is_json_error(error) and (glued := _glued_event(error)) is not None:
        start, whole_before = glued
        if whole_before:
            message = (
                f"two JSON values on one line, the second from column {start + 1}: the writer "
                "left out the newline after an event; end every event's line with \\n"
            )
            report.fail(line, ErrorKind.INVALID_JSON, message, "LOG-4")
        else:
            # A crash cut a write short, and the harness, reopening the log, appended right
            # after the cut bytes: the next event sits on the torn line.
            message = (
                f"the line is a write cut off after {start} characters with the next event "
                f"appended right after it, from column {start + 1}: the harness, reopening the "
                "log, appended without dropping the torn write first; cut the file back to the "
                "end of its last whole line before appending"
            )
            report.fail(line, ErrorKind.INVALID_JSON, message, "LOG-8")
    elif _is_json_error(error):
        message = f"invalid JSON at column {error.colno}: {error.msg}"
        report.fail(line, ErrorKind.INVALID_JSON, message, "LOG-4")
    elif isinstance(error, NotLossless):  # on line 1, not a header (`_lossy_header`)
        kind = ErrorKind.BAD_HEADER if line == 1 else ErrorKind.BAD_EVENT
        report.fail(line, kind, f"not lossless JSON: {error}", "LOG-3")
    elif (too_long := too_long_integer(error)) is not None:  # a number out of range
        report.fail(line, ErrorKind.INVALID_JSON, too_long, "LOG-4")
    else:
        report.fail(line, ErrorKind.INVALID_JSON, f"invalid JSON: {error}", "LOG-4")
    raise CannotCheckFurther


def not_utf8_words(raw: bytes, error: UnicodeDecodeError) -> str:
    """Where the line `raw` stops being UTF-8, and the offending byte's value: what every reader
    of a log, a transcript or a recording says of such a line."""
    return f"not UTF-8 at byte {error.start + 1} of the line (0x{raw[error.start]:02x})"


def torn_line_words(raw: bytes, line: int) -> str:
    """What the line `raw` (line `line`), cut off by a crash, holds."""
    zeros = _zero_tail(raw)
    if not zeros:
        if raw.endswith(b"\n"):
            return f"line {line} stops short ({len(raw) - 1} bytes, then a newline)"
        return f"line {line} stops short ({len(raw)} bytes, no newline)"
    written = len(raw.rstrip(b"\n")) - zeros
    part = f"{written} bytes of a write, then " if written else ""
    return (
        f"line {line} is {part}{zeros} zero bytes (the file's new length reached the disk, "
        "its data did not)"
    )
