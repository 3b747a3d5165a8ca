"""The core of `loopspec check`: hold recorded session logs to the log invariants, streaming.

Each log is read one line at a time and never held whole. A line is decoded (strict UTF-8, strict
JSON), turned into facts by `loopspec.model.facts.fact_from_wire` (a compact chunk row into a run
of chunk facts, judged as a whole when it is clean), and fed to a
`loopspec.model.invariants.LogMonitor` — the same invariants the model's stateful tests run, so
there is one definition of every rule. Most events take a shortcut that reaches the same
verdict: a quiet one (a stream chunk, a plugin event; `LogMonitor.quiet_kind`) commits nothing
at the expected seq, and a clean one is told so from its JSON by the judge of its type
(`loopspec.properties.logcheck.clean_events`), which sends anything else down the full path.
Memory is bounded by the monitor's open state and by `Limits`, not by the log's length.

What a `LogReport` holds:

- violations: a rule the log breaks, with its line, seq, rule ID, message and the events involved.
  At most `Limits.max_violations` are kept per log; all are counted.
- errors: input that cannot be read as a log (see `ErrorKind`). An error in an event line ends the
  checking of that log — what follows would be judged against a prefix with a hole in it — and
  checking goes on with the next log. A header error does not stop checking: the events are still
  whole.
- notices: what is worth knowing but breaks no rule: a turn left open at the end of the log (a
  crash tail: the harness must repair it before resuming, rule REC-2), on a log that marks its
  commits a last commit left unfinished (torn by a crash, dropped whole on reopening, LOG-8;
  `loopspec.properties.logcheck.commit_units`), a header version this checker does not know.

Nothing here raises on bad input: every failure of the input becomes an error in the report.
Which layouts are read, and which are recognised and refused, is
the job of `loopspec.properties.logcheck`'s layout readers (`header_version`).
"""

from __future__ import annotations

import codecs
import io

from loopspec.model import PlainRecord
from loopspec.model.facts import (
    READ_TYPES,
    SECONDS_SINCE_EPOCH,
    SEQ_BOUND,
    Fact,
    FactError,
    fact_from_wire,
    time_below_zero,
    written_otherwise,
)
from loopspec.model.json_text import json_scanner
from loopspec.model.prefix import (
    HOOK_CALL_RULES,
    HOOK_CALL_RULES_IN_PART,
    QUIET_ANYWHERE,
    QUIET_IN_STEP,
    QUIET_NEVER,
    Prefix,
    Violation,
)
from loopspec.properties.logcheck import (
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MAX_VIOLATIONS,
    LAYOUT_NAME,
    LEGACY_TYPES,
    MARKED_VERSION,
    SUPPORTED_VERSIONS,
    UNIT_KEY,
    header_version,
    is_header,
    legacy_marker,
    usual_version,
)
from loopspec.properties.logcheck.files import LogSource, SourceProblem, log_sources

# typing's flag, read by type checkers by name: typing, and json's decoder, import re and enum,
# which would double check's start-up; a log is read without them (tests/test_check_startup.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    # collections and functools are not imported at run time either: together they cost check
    # about a third of the interpreter's start (tests/test_check_startup.py).
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from json import JSONDecoder
    from typing import Any, BinaryIO, NoReturn, TextIO

    # imported at the first event the full path reads (`_monitor`)
    from loopspec.model.invariants import LogMonitor

    # imported where a dsh log is checked with its clean-event judges (`_check_lines`)
    from loopspec.properties.logcheck.clean_events import Judge

    # imported where a log marks its commits: a dsh log never needs it
    from loopspec.properties.logcheck.commit_units import CommitUnits

    # imported at the first hook/result the full path reads (`_hook_runs`)
    from loopspec.properties.logcheck.hook_faults import HookRuns

    # imported at the first line reusing a taken seq (`_repeats`)
    from loopspec.properties.logcheck.repeated_lines import Repeats

# Distinct unread event types listed per log; beyond this they are counted under OTHER_TYPES.
MAX_LISTED_TYPES = 100
OTHER_TYPES = "(other types)"
MAX_MESSAGE_CHARS = 400


def shorten(message: str) -> str:
    """`message`, cut to `MAX_MESSAGE_CHARS` with the words saying so (the bound the JSON
    output's schema gives a message): messages quote log values, which can be huge."""
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    # The note's length with the most digits the count of characters cut can have.
    kept = MAX_MESSAGE_CHARS - len(f"... ({len(message)} more characters)")
    return f"{message[:kept]}... ({len(message) - kept} more characters)"


# Plain records and classes, not attrs classes nor NamedTuples: attrs (or typing) alone takes
# longer to import than the interpreter takes to start, and `loopspec check` imports neither
# (tests/test_check_startup.py).
class Limits(PlainRecord):
    """Bounds that keep memory finite whatever the input."""

    __slots__ = ("max_line_bytes", "max_violations")

    def __init__(
        self,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_violations: int = DEFAULT_MAX_VIOLATIONS,
    ) -> None:
        self.max_line_bytes = max_line_bytes
        self.max_violations = max_violations


class ErrorKind:
    """The kinds of input error, as they appear in reports."""

    UNREADABLE = "unreadable"  # the path or stream cannot be read (or decompressed)
    EMPTY = "empty"  # no lines at all, not even a header (LOG-5)
    # NUL bytes, or undecodable bytes on a first line that is not a JSON object's text
    BINARY = "binary"
    INVALID_UTF8 = "invalid-utf8"  # (LOG-4; LOG-5 on the first line)
    # (LOG-4; SAFE-4 when nested too deeply; LOG-8 for a torn write with more after it; a BOM:
    # LOG-5 on the first line, LOG-4 after; none for a JSON document: a wrong file)
    INVALID_JSON = "invalid-json"
    # A blank line with other lines after it: no event, and no reader skips it (LOG-4; LOG-5
    # on the first line). Blank lines that end a log are skipped, no error.
    BLANK_LINE = "blank-line"
    # The last line stops short: a write cut off by a crash, a commit not whole (LOG-8).
    TORN_TAIL = "torn-tail"
    LINE_TOO_LONG = "line-too-long"  # past the checker's bound (SAFE-4)
    BAD_EVENT = "bad-event"  # JSON, but not an event the rules can read (LOG-4)
    BAD_HEADER = "bad-header"  # missing or malformed session header (LOG-5, LOG-4)
    UNSUPPORTED_LAYOUT = "unsupported-layout"  # a layout `log_dialect` does not cover
    # A file named on the command line that is a known non-log (a CLI's prompt history).
    NOT_A_SESSION_LOG = "not-a-session-log"


class NoticeKind:
    """The kinds of notice, as they appear in reports."""

    CRASH_TAIL = "crash-tail"
    TORN_COMMIT = "torn-commit"
    HOOK_FAULT = "hook-fault"  # a hook's own output or process went wrong (HOOK-7)
    REPEATED_RECORD = "repeated-record"  # a transcript's record written twice, whole: read once
    REWRITTEN_RECORD = "rewritten-record"  # a transcript's record given again, other content
    TIME_IN_SECONDS = "time-in-seconds"  # a header, first or last event in seconds (LOG-5, 4)
    MISSPELT_TYPE = "misspelt-type"  # a type no rule reads, one edit from one they read (LOG-4)


class FoundViolation(PlainRecord):
    """A violation at the line of the event (or compact row) that commits it."""

    __slots__ = ("event_lines", "line", "skipped", "violation")

    def __init__(self, line: int, violation: Violation) -> None:
        self.line = line
        self.violation = violation
        # The line of each of `events` (None: not known), set after the check by one more read
        # of a log that has violations (`logcheck.event_lines`); None until then.
        self.event_lines: tuple[int | None, ...] | None = None
        # Of a LOG-1 whose seq came past the one due, the seqs it skipped (`seq 13 where 12
        # was due`: 12), set where the checker found it (`_record_judged`); else None.
        self.skipped: range | None = None

    @property
    def events(self) -> tuple[int, ...]:
        """The seqs of the events involved, each once: the offending one first."""
        return tuple(dict.fromkeys((self.violation.seq, *self.violation.related)))


class InputError(PlainRecord):
    """Input that cannot be read as a log; `line` is None when no line is to blame."""

    __slots__ = ("line", "kind", "message", "rule_id")  # noqa: RUF023 (the fields' order)

    def __init__(
        self, line: int | None, kind: str, message: str, rule_id: str | None = None
    ) -> None:
        self.line = line
        self.kind = kind
        self.message = message
        self.rule_id = rule_id


class Notice(PlainRecord):
    """Something worth knowing that breaks no rule; `seq` is the event it is about, if any."""

    __slots__ = ("line", "kind", "message", "rule_id", "seq")  # noqa: RUF023 (as above)

    def __init__(
        self,
        line: int | None,
        kind: str,
        message: str,
        rule_id: str | None = None,
        seq: int | None = None,
    ) -> None:
        self.line = line
        self.kind = kind
        self.message = message
        self.rule_id = rule_id
        self.seq = seq


class Skipped(PlainRecord):
    """Why a file found in a directory was not checked: a known kind of file that is no
    session log (`logcheck.home_files`)."""

    __slots__ = ("kind", "message")

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        self.message = message


DSH_DIALECT = "dsh"
"""The dialect of a dsh session log (and of every log in its layout: loopspec's own, a bridge's),
which `checker` reads itself; a log of any other dialect has no seq (`logcheck.foreign`)."""

ACP_DIALECT = "acp"
"""The dialect of an ACP recording (`acp_stream`): its lines are JSON-RPC messages, which a
report counts as messages, not events."""


class LogReport:
    """Everything found in one log (made empty, filled in as the log is read)."""

    __slots__ = (
        "checked_in_part",
        "commits_checked",
        "dialect",
        "errors",
        "events",
        "facet_counts",
        "first_unlisted_break",
        "known_counts",
        "known_rules",
        "known_violations",
        "lines",
        "lines_unread",
        "no_log",
        "not_checkable",
        "not_known",
        "not_reached",
        "notices",
        "omitted_known",
        "omitted_violations",
        "path",
        "rule_counts",
        "session_id",
        "situations",
        "skipped",
        "unlisted_breaks",
        "unread_types",
        "version",
        "violations",
    )

    def __init__(self, path: str) -> None:
        self.path = path
        self.version: int | None = None
        # The header's `id` (a second header of another id is another log joined on).
        self.session_id: object = None
        self.lines = 0
        # Whether an input error stopped the check with lines that are not blank left unread
        # after the one it names ("not checked past line N" says so only then).
        self.lines_unread = False
        self.events = 0
        self.violations: list[FoundViolation] = []
        self.omitted_violations = 0
        self.rule_counts: dict[str, int] = {}
        # The LOG-1 breaks left out in the holes broken commits leave (`_beyond_the_hole`), and
        # the first of them: a version-1 log whose lines were reordered is told by every break
        # (`event_lines`), where its broken commits hide most.
        self.unlisted_breaks = 0
        self.first_unlisted_break: FoundViolation | None = None
        # Per `RULE:facet` (`Violation.facet_name`), the violations found that name a facet,
        # listed or not: `check --known` sets aside a loop's known divergence by its facet.
        self.facet_counts: dict[str, int] = {}
        self.errors: list[InputError] = []
        self.notices: list[Notice] = []
        self.unread_types: dict[str, int] = {}
        # Which layout the log is in ("dsh", or a foreign dialect, see `logcheck.foreign`), and
        # the rules such a log cannot show, each with why (reported, never counted as passed).
        self.dialect = DSH_DIALECT
        self.not_checkable: dict[str, str] = {}
        # The rules the log shows only part of, each with why (`hooks_naming_no_call`).
        self.checked_in_part: dict[str, str] = {}
        # Whether its commit markers were held to LOG-8 (a version-1 log: `commit_units`).
        self.commits_checked = False
        # Set when the file was skipped, not checked (it is no session log).
        self.skipped: Skipped | None = None
        # Set for a folder named with no log under it: its error is listed, no log counted.
        self.no_log = False
        # Set with it for a path named where the system found nothing (no folder, no file).
        self.not_reached = False
        # Set by `check --known` (`logcheck.known_divergences`): the rules known for this log,
        # each with whose list names it, and the violations of them, set aside.
        self.known_rules: dict[str, str] | None = None
        self.known_counts: dict[str, int] = {}
        self.known_violations: list[FoundViolation] = []
        self.omitted_known = 0
        # Per rule a loop's list knows by its shape, why its violations left listed were not
        # set aside: "not the known divergence: ..." (`known_divergences.KNOWN_SHAPES`).
        self.not_known: dict[str, str] = {}
        # Per rule, how often the log held the situation in which a known divergence of it
        # shows (a Claude Code transcript or Codex rollout: `harness_logs.SITUATIONS`).
        self.situations: dict[str, int] = {}

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LogReport) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # equal by value and mutable: no hash

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"LogReport({fields})"

    @property
    def status(self) -> str:
        """`skipped`, `unsupported`, `error`, `violations`, `known-divergences` (only known ones,
        `check --known`) or `ok`, the first that applies."""
        if self.skipped is not None:
            return "skipped"
        if any(e.kind == ErrorKind.UNSUPPORTED_LAYOUT for e in self.errors):
            return "unsupported"
        if self.errors:
            return "error"
        if self.rule_counts:
            return "violations"
        return "known-divergences" if self.known_counts else "ok"

    def record(self, line: int, found: Iterable[Violation], limits: Limits) -> None:
        """Add violations found at `line`, keeping at most `limits.max_violations`."""
        counts = self.rule_counts
        for violation in found:
            counts[violation.rule_id] = counts.get(violation.rule_id, 0) + 1
            if violation.facet:
                facet = violation.facet_name
                self.facet_counts[facet] = self.facet_counts.get(facet, 0) + 1
            if len(self.violations) < limits.max_violations:
                kept = violation._replace(message=shorten(violation.message))
                self.violations.append(FoundViolation(line, kept))
            else:
                self.omitted_violations += 1

    def fail(self, line: int | None, kind: str, message: str, rule_id: str | None = None) -> None:
        """Add an input error."""
        self.errors.append(InputError(line, kind, shorten(message), rule_id))

    def count_unread(self, kind: str) -> None:
        """Count an event of a type whose data no rule reads."""
        if kind not in self.unread_types and len(self.unread_types) >= MAX_LISTED_TYPES:
            kind = OTHER_TYPES
        self.unread_types[kind] = self.unread_types.get(kind, 0) + 1


# ---------------------------------------------------------------------------------------------
# Lines.


def _reject_constant(name: str) -> object:
    # Said with its usual writer: Python's json.dumps writes a float that is not finite so.
    raise ValueError(
        f"{name} is not JSON, which has no NaN or Infinity (Python's json.dumps writes them "
        "unless given allow_nan=False): write such a value as a string or null"
    )


class NotLossless(ValueError):
    """A JSON number the model's reader refuses (LOG-3): one it would not write back the same."""


_INFINITY = float("inf")
_INFINITIES = (_INFINITY, -_INFINITY)


def _repeats(report: LogReport, limits: Limits, source: LogSource | None) -> Repeats:
    """A `repeated_lines.Repeats`, imported at the first line whose seq is taken: a log
    written once is checked without it."""
    from loopspec.properties.logcheck.repeated_lines import Repeats  # noqa: PLC0415

    return Repeats(report, limits, source)


def _envelope(obj: Any, judges: dict[str, Judge | None]) -> tuple[Any, Any, Any, Judge | None]:
    """A line's seq, type and time, and the judge of its type, where one of the three is
    missing (a compact row has no seq) or the line is no object: those it lacks are None, and
    all four without a type (or with a type no judge could be keyed by)."""
    try:
        kind = obj["type"]
        return obj.get("seq"), kind, obj.get("time"), judges.get(kind)
    except (KeyError, TypeError):  # no object, no type, not a string
        return None, None, None, None


def _lossless_float(text: str) -> float:
    """A JSON number with a fraction or exponent, as json reads it, unless it reads as -0.0 or
    an infinity (`1e400`): event data is lossless JSON, and the model refuses both (LOG-3).
    (The integer -0 reads as 0, for the model too.)"""
    value = float(text)
    if text[0] != "-" and value < _INFINITY:  # (most numbers: neither -0.0 nor an infinity)
        return value
    if value in _INFINITIES:
        raise NotLossless(f"the number {text} is too large: it reads as an infinity")
    if value == 0.0 and text[0] == "-":
        raise NotLossless(f"the number {text} is minus zero, which a JSON round trip loses")
    return value


def strict_decoder() -> JSONDecoder:
    """The decoder of the slow path (`unreadable_lines`), with `scan_json`'s settings: it names
    what is wrong.
    Made once, when first needed (kept in `_DECODERS`)."""
    if not _DECODERS:
        import json  # noqa: PLC0415 (it imports re: a log that reads cleanly is read without it)

        decoder = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_lossless_float)
        _DECODERS.append(decoder)
    return _DECODERS[0]


_DECODERS: list[JSONDecoder] = []


scan_json = json_scanner(_lossless_float, _reject_constant)
"""`scan_json(text, index)`: the strict JSON value at `index` in `text`, and the index past it:
strict strings, NaN and Infinity refused (Python's json reads them by default; a session log
must not contain them), a number that would not round-trip refused (`_lossless_float`). Where a
line is no such value, the slow path's decoder says why (`unreadable_lines.parse_slowly`)."""
# What `scan_json` raises for a line it cannot read. SystemError too: Python 3.11's C scanner
# raises most malformed values' JSONDecodeError through json.decoder, which it only looks up
# among the modules imported, and check reads a log without importing it (the line then takes
# the slow path, whose decoder names what is wrong).
SCAN_ERRORS = (ValueError, RecursionError, StopIteration, SystemError)
MAX_LOG_DEPTH = 512
"""Arrays and objects a log line may nest (rule SAFE-4); a deeper line is an input error. One
bound on every Python: json's C scanner reads about 990 levels on 3.11 (its recursion limit of
1,000, less the frames calling it), 1,500 on 3.12 and 10,000 on 3.13, so where it stopped, a log
got one verdict on one Python and another on the next. Half of 3.11's leaves room for a caller's
frames (check run from pytest) and for recursive reads of the parsed event."""
TOO_DEEP_WORDS = f"JSON nested deeper than {MAX_LOG_DEPTH} levels, the most check reads"
"""The error of a line nested past `MAX_LOG_DEPTH`, in every dialect check reads."""
DEPTH_FREE_CHARS = 2 * MAX_LOG_DEPTH + 1
"""A JSON value this long or shorter cannot nest past `MAX_LOG_DEPTH`: each level takes two
characters, its brackets."""
# `nested_deeper`'s tables: an opening bracket byte steps +1 (0x01 as a signed byte), a closing
# one -1 (0xFF), every other byte is dropped (every byte but the brackets, made at C speed: a
# generator over the 256 took a clean check 0.1M instructions).
_BRACKET_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_JSON_SPACE = " \t\n\r"
GZIP_MAGIC = b"\x1f\x8b"
SNIFF_BYTES = 64 * 1024
"""How much of a log's start is looked at to tell its dialect (`log_head`)."""
# The type of a dsh session header: the first record of nearly every log checked. Neither
# `foreign.CLAUDE_CODE_RECORD_TYPES` nor `foreign.CODEX_RECORD_TYPES` holds it (a test says so),
# so such a log is known to be dsh without importing `foreign`, which tells the other dialects.
DSH_HEADER_TYPE = "session"


def nested_deeper(raw: bytes, limit: int = MAX_LOG_DEPTH) -> bool:
    """Whether the JSON text `raw` nests arrays and objects deeper than `limit`, brackets inside
    strings not counted; read at C speed, without parsing (a value json's scanner cannot read
    is measured as far as its brackets go)."""
    if raw.count(b"[") + raw.count(b"{") <= limit:  # (brackets in strings only add to it)
        return False
    # Outside strings: escaped backslashes, then escaped quotes, dropped (left to right, as an
    # escape is read), every other piece between the quotes left is a string's text. UTF-8
    # encodes no character but these ASCII ones with their bytes.
    from itertools import accumulate  # noqa: PLC0415 (rarely this far: check starts without)

    unescaped = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    steps = b"".join(unescaped.split(b'"')[::2]).translate(_BRACKET_STEPS, _NOT_BRACKETS)
    return max(accumulate(memoryview(steps).cast("b")), default=0) > limit


def value_cut_short(raw: bytes) -> bool:
    """Whether the JSON text `raw` stops before its value ends, by its brackets and quotes
    alone: a string left open, or a bracket outside strings left unclosed. Asked of a line too
    deep for json's reader, whose error then depends on the Python (a RecursionError where the
    stack ends first, else the value running out of line): cut short, it is a torn write at
    any depth, as a shallower one is."""
    unescaped = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    pieces = unescaped.split(b'"')
    if len(pieces) % 2 == 0:  # an odd number of quotes: a string left open
        return True
    steps = b"".join(pieces[::2]).translate(_BRACKET_STEPS, _NOT_BRACKETS)
    return sum(memoryview(steps).cast("b")) > 0


def log_head(stream: BinaryIO) -> bytes:
    """The first `SNIFF_BYTES` of `stream`, consuming nothing (b"" from a stream that can
    neither peek nor seek); may raise `OSError`."""
    peek = getattr(stream, "peek", None)
    if callable(peek):
        head = peek(SNIFF_BYTES)
        return bytes(head[:SNIFF_BYTES])
    if stream.seekable():
        position = stream.tell()
        head = stream.read(SNIFF_BYTES)
        stream.seek(position)
        return head
    return b""


def starts_with_dsh_header(line: bytes) -> bool:
    """Whether `line` starts with a JSON object of the dsh header's type, strictly read: then
    it is a dsh log whatever follows (json.loads reads that object too, or refuses the line,
    and either way the log is dsh). Asked first, so that the usual log is told without json's
    decoder, which imports re."""
    try:
        record, _ = scan_json(line.decode(), 0)
    except SCAN_ERRORS:
        return False
    return type(record) is dict and record.get("type") == DSH_HEADER_TYPE


def opens_with_dsh_header(head: bytes) -> bool:
    """Whether the log beginning with `head` (`log_head`) has a dsh header for its first line,
    so that `foreign.check_if_foreign` would find it no log of another loop and no file of a
    CLI's home folder."""
    stripped = head.lstrip()
    newline = stripped.find(b"\n")
    if newline < 0 and len(head) < SNIFF_BYTES:
        newline = len(stripped)  # the whole log is one line without its newline
    return newline >= 0 and starts_with_dsh_header(stripped[:newline])


class LossyHeader:
    """A header holding a number the model's reader refuses (-0.0, an infinity: LOG-3), whose
    error is reported: as a header value of a wrong type, it is read on past (`_is_checked_header`
    takes its version, when that is an integer)."""

    __slots__ = ("value",)

    def __init__(self, value: dict[str, Any]) -> None:
        self.value = value


SKIPPED_AT_MOST = 1 << 26
"""Bytes of an over-long line's remainder read to find where it ends (64 MiB)."""


class RestOfLog:
    """The lines after the one being read, looked at only to tell whether anything but blank
    lines follows it (the check does not read past a line it stops at, nor past blank lines it
    finds last)."""

    __slots__ = ("found", "more", "readline")

    def __init__(self, readline: Callable[[int], bytes]) -> None:
        self.readline = readline
        # Whether a line that is not blank was found after it (and consumed), and what of it
        # was read (`found`, until `next_line` hands it over).
        self.more = False
        self.found = b""

    def only_blank(self) -> bool:
        """Whether nothing but blank lines is left to read; stops at the first that is not."""
        if self.more:
            return False
        while chunk := self.readline(1 << 16):
            if chunk.strip():
                self.more, self.found = True, chunk
                return False
        return True

    def next_line(self) -> bytes:
        """The next line after the one being read (its first 64 KiB), blank or not, read to
        word an error about that one: the one `only_blank` found, if it found one."""
        found, self.found = self.found, b""
        line = found or self.readline(1 << 16)
        if line.strip():
            self.more = True
        return line

    def skip_line(self) -> None:
        """Read past the rest of a line cut at the length bound, whose remainder is no line of
        its own (a last line past the bound leaves nothing unchecked after it). A remainder past
        `SKIPPED_AT_MOST` bytes (a binary file without newlines) counts as more lines unread."""
        skipped = 0
        while chunk := self.readline(1 << 16):
            if chunk.endswith(b"\n"):
                return
            skipped += len(chunk)
            if skipped > SKIPPED_AT_MOST:
                self.more = True
                return


TEXT_CHUNK = 1 << 16
"""Bytes `LineReader` reads at a time as text: a line a chunk holds whole is shorter, so a bound
on lines of at least this much is kept by measuring only the lines that span chunks."""


class _Unreadable(Exception):
    """Raised through the text reader (`LineReader`) at a line it cannot hand over: one past the
    line bound (`_Chunks`), or bytes that are not UTF-8 (the decoder's error handler below)."""


def _unreadable(error: UnicodeError) -> tuple[str, int]:
    raise _Unreadable from error


_TO_BYTES = "loopspec.check.lines-as-bytes"
codecs.register_error(_TO_BYTES, _unreadable)


class _Chunks:
    """The bytes a text reader (`io.TextIOWrapper`) reads a log's lines from, `TEXT_CHUNK` at a
    time, stopping it (`_Unreadable`) before it holds more than `limit` bytes of a line. `unread`
    is what the text reader has not made lines of when it stops: it asks for a chunk only once
    it holds no whole line, so the bytes after the last newline, and the last chunk."""

    __slots__ = ("left", "left_bytes", "limit", "read", "unread")
    # The text reader asks it before each line (a class attribute: the cheapest to look up).
    closed = False

    def __init__(self, stream: BinaryIO, limit: int) -> None:
        self.read: Callable[[int], bytes] = getattr(stream, "read1", stream.read)
        self.limit = limit
        # The bytes after the last newline (in pieces: a long line is read in many), how many.
        self.left: list[bytes] = []
        self.left_bytes = 0
        self.unread: list[bytes] = []

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass  # (the stream is the caller's to close)

    def read1(self, _size: int = -1) -> bytes:
        chunk = self.read(TEXT_CHUNK)
        left = self.left
        self.unread = [*left, chunk]
        last = chunk.rfind(b"\n")
        if last < 0:
            self.left_bytes += len(chunk)
            if self.left_bytes > self.limit:
                raise _Unreadable
            left.append(chunk)
        elif self.left_bytes + chunk.find(b"\n") > self.limit:
            raise _Unreadable
        else:
            tail = chunk[last + 1 :]
            self.left, self.left_bytes = [tail], len(tail)
        return chunk


class LineReader:
    """A log's lines: `lines`, and when they stop at a line they cannot hand over
    (`_Unreadable`), `to_bytes()`'s.

    Read as text, in chunks (`_Chunks`), where each line's bytes read and decoded one at a time
    cost twice as much; from a line the text reader cannot hand over on, read as bytes (a line
    cut at the bound, or not UTF-8, as an `unreadable_lines.RawLine`, with what reads on as
    bytes: imported at the first such line). A bound below `TEXT_CHUNK` reads bytes
    from the start. `readline` reads the bytes after the last line handed over (`RestOfLog`)."""

    __slots__ = ("bytes_readline", "chunks", "lines", "size", "stream", "text")

    def __init__(self, stream: BinaryIO, size: int) -> None:
        self.stream, self.size = stream, size
        self.chunks = _Chunks(stream, size - 1)
        self.bytes_readline: Callable[[int], bytes] = stream.readline
        self.text: TextIO | None = None
        self.lines: Iterator[str]
        if size > TEXT_CHUNK:
            # (`chunks` is a buffer enough for reading text, not typeshed's whole protocol.)
            text = io.TextIOWrapper(
                self.chunks,  # type: ignore[type-var]
                encoding="utf-8",
                errors=_TO_BYTES,
                newline="\n",
            )
            self.text = self.lines = text
        else:
            self.lines = self._bytes_lines()

    def to_bytes(self) -> Iterator[str]:
        """The lines from the one the text reader stopped at, read as bytes."""
        if self.text is not None:
            self.text = None
            head = b"".join(self.chunks.unread)
            from loopspec.properties.logcheck.unreadable_lines import Replay  # noqa: PLC0415

            self.bytes_readline = Replay(head, self.stream).readline
        self.lines = self._bytes_lines()
        return self.lines

    def _bytes_lines(self) -> Iterator[str]:
        readline, size = self.bytes_readline, self.size
        while raw := readline(size):
            if len(raw) < size or raw.endswith(b"\n"):
                try:
                    yield raw.decode()
                    continue
                except UnicodeDecodeError:
                    pass
            from loopspec.properties.logcheck.unreadable_lines import RawLine  # noqa: PLC0415

            line = RawLine()
            line.raw = raw
            yield line

    def readline(self, size: int) -> bytes:
        """The bytes after the last line handed over, up to the next newline, at most `size` of
        them (of characters, read as text)."""
        if self.text is not None:
            try:
                return self.text.readline(size).encode()
            except _Unreadable:
                self.to_bytes()
        return self.bytes_readline(size)


def _nested_deeper_text(text: str) -> bool:
    """`nested_deeper` of a line read as text."""
    return text.count("[") + text.count("{") > MAX_LOG_DEPTH and nested_deeper(text.encode())


class CannotCheckFurther(Exception):
    """The current log cannot be checked further; the report says why."""


def lines_follow(rest: RestOfLog) -> bool:
    """Whether lines that are not blank follow the one the check stopped at (a stream that fails
    to read on counts as holding more: it was not read to its end)."""
    try:
        return not rest.only_blank()
    except OSError:
        return True


def too_long_words(limits: Limits) -> str:
    """A line past the bound: valid logs hold one (base64 of pasted images, a document read
    whole), which no one can "fix", so the words name the option that reads it."""
    return (
        f"the line is longer than {limits.max_line_bytes} bytes: check again with a larger "
        "--max-line-bytes to read it"
    )


def _too_long(report: LogReport, raw: bytes, line: int, limits: Limits, rest: RestOfLog) -> None:
    if not raw.endswith(b"\n"):
        message = too_long_words(limits)
        report.fail(line, ErrorKind.LINE_TOO_LONG, message, "SAFE-4")
        rest.skip_line()
        raise CannotCheckFurther


def _refuse_layout(report: LogReport, line: int, marker: str) -> NoReturn:
    """Stop: the log is in a layout these rules do not cover; drop what was found so far."""
    report.violations.clear()
    report.rule_counts.clear()
    report.facet_counts.clear()
    report.omitted_violations = 0
    message = f"{marker}: this is {LAYOUT_NAME}, which these rules do not cover; not checked"
    report.fail(line, ErrorKind.UNSUPPORTED_LAYOUT, message)
    raise CannotCheckFurther


def _time_of(event: Any) -> int | None:
    """The time of a parsed event line, in whole milliseconds (None: it has none, or is a
    compact row, whose chunks' times the rules do not read)."""
    time = event.get("time") if type(event) is dict else None
    if type(time) is int:
        return time
    return int(time) if type(time) is float and time.is_integer() else None


def _in_seconds(what: str, value: object) -> str | None:
    """`what` (`time 1765000000`) read as seconds since the Unix epoch and as the milliseconds
    it should count, when `value` is such a time (`int(time.time())`), else None."""
    if type(value) is not int or value not in SECONDS_SINCE_EPOCH:
        return None
    from datetime import UTC, datetime  # noqa: PLC0415 (such a log only)

    def day(seconds: float) -> str:
        date = datetime.fromtimestamp(seconds, UTC)
        return f"{date.day} {date:%B %Y}"

    return (
        f"{what} is {day(value)} in seconds since the Unix epoch, but {day(value / 1000)} in "
        "milliseconds"
    )


_CLOCK_IN_SECONDS = (
    "a clock read in seconds (int(time.time())) where int(time.time() * 1000) is due; no rule "
    "check judges compares a time with a clock, so no verdict rests on it"
)


def _note_header_seconds(report: LogReport, header: Any, line: int) -> tuple[int, str] | None:
    """Note a header whose `createdAt` counts seconds where LOG-5 asks milliseconds; the
    notice's index in the report's and what it says of createdAt, for the first event's time
    to join (`_note_seconds`)."""
    created = header.get("createdAt") if type(header) is dict else None
    words = _in_seconds(f"the header's createdAt {created}", created)
    if words is None:
        return None
    said = f"{words}, which createdAt counts"
    report.notices.append(
        Notice(line, NoticeKind.TIME_IN_SECONDS, f"{said}: {_CLOCK_IN_SECONDS}", "LOG-5")
    )
    return len(report.notices) - 1, said


def _note_seconds(
    report: LogReport, event: Any, line: int, header_noted: tuple[int, str] | None
) -> None:
    """Note a first event timed in seconds since the Unix epoch (`int(time.time())`) where LOG-4
    asks milliseconds. No rule check judges reads a time but REC-1, which compares the log's
    times with each other only: a notice, once a log (a writer keeps one clock), at its first
    event, or the header's of its createdAt (`header_noted`) naming both."""
    time = event.get("time") if type(event) is dict else None
    words = _in_seconds(f"time {time}", time)
    if words is None:
        return
    if header_noted is not None:
        index, said = header_noted
        header = report.notices[index]
        message = (
            f"{said}; the first event's time {time}, at line {line}, counts seconds too (LOG-4, "
            f"which conform blames): {_CLOCK_IN_SECONDS}"
        )
        report.notices[index] = Notice(header.line, header.kind, message, header.rule_id)
        return
    message = f"{words}, which an event's time counts: {_CLOCK_IN_SECONDS} (conform blames it)"
    seq = event.get("seq")
    at = seq if type(seq) is int else None
    report.notices.append(Notice(line, NoticeKind.TIME_IN_SECONDS, message, "LOG-4", at))


def _note_clock_change(report: LogReport, first: tuple[int, Any], last: Any, line: int) -> None:
    """Note a log whose first event is timed in milliseconds and whose last event, at `line`,
    in seconds since the Unix epoch: a writer whose clock changed mid-log (a resumed writer
    reading `int(time.time())`). Looked at once, at the end, so that no line pays for it: which
    line the clock changed at is not looked for."""
    first_line, first_event = first
    first_time = first_event.get("time") if type(first_event) is dict else None
    if (
        line == first_line
        or type(first_time) is not int
        or first_time < SECONDS_SINCE_EPOCH.stop  # (in seconds, noted; or a test's small clock)
        or type(last) is not dict
        or "seq" not in last
        or any(notice.kind == NoticeKind.TIME_IN_SECONDS for notice in report.notices)
    ):
        return
    time = last.get("time")
    words = _in_seconds(f"the last event's time {time}", time)
    if words is None:
        return
    message = (
        f"{words}, where the first event's, at line {first_line}, counts milliseconds: the "
        f"writer's clock changed after line {first_line} (a resumed writer, say) to "
        f"{_CLOCK_IN_SECONDS} (conform blames it)"
    )
    seq = last.get("seq")
    at = seq if type(seq) is int else None
    report.notices.append(Notice(line, NoticeKind.TIME_IN_SECONDS, message, "LOG-4", at))


def _read_time(time: object, written: bool) -> None:
    """LOG-4: an event's `time` is a number of whole milliseconds, 0 or more, as the model's
    reader asks (REC-1 alone reads its value; a float is read when whole, as the model
    reads it)."""
    if type(time) is int or (type(time) is float and time.is_integer()):
        if time < 0:
            raise FactError(time_below_zero(time))
        return
    if not written:
        raise FactError(
            "time is missing; it must be a number of whole milliseconds (since the Unix epoch)"
        )
    from loopspec.model.json_text import spelled  # noqa: PLC0415 (a broken line only)

    # What was written instead, and the usual cause: a clock read in seconds.
    seconds = type(time) is float and 1e9 <= time < 1e11
    hint = ", seconds: write milliseconds, as int(time.time() * 1000)" if seconds else ""
    raise FactError(
        "time must be a number of whole milliseconds (since the Unix epoch), got "
        f"{spelled(time)}{hint}"
    )


def _bad_event(report: LogReport, obj: Any, line: int, error: Exception) -> NoReturn:
    marker = legacy_marker(obj) if isinstance(obj, dict) else None
    if marker is not None:
        _refuse_layout(report, line, marker)
    if isinstance(obj, dict) and is_header(obj):
        # A harness that reopens its log on resume and writes the header again: say the fix,
        # and why the rest of the log went unjudged. One whose first line was an event wrote
        # its header late (or the lines above it came from elsewhere): it is the only one.
        first = report.errors[0] if report.errors else None
        if first is not None and first.line == 1 and first.message == FIRST_LINE_AN_EVENT:
            message = (
                "the session header, after events: a log opens with its header, on line 1, "
                "before every event (line 1 is an event); nothing after this line is checked"
            )
        elif report.session_id is not None and obj.get("id") != report.session_id:
            from loopspec.model.json_text import spelled  # noqa: PLC0415 (a broken log only)

            message = (
                f"a second session header, of another session (id {spelled(obj.get('id'))}, "
                f"where line 1's is {spelled(report.session_id)}): two logs joined into one "
                "file (cat a b > c?); check each log on its own; nothing after this line is "
                "checked"
            )
        else:
            message = (
                "a second session header: a log has one, on line 1, and a resumed session "
                "appends its events without writing another; nothing after this line is checked"
            )
        report.fail(line, ErrorKind.BAD_EVENT, message, "LOG-5")
    else:
        kind = obj.get("type") if isinstance(obj, dict) else None
        where = f"{kind}: " if isinstance(kind, str) and kind else ""  # "" names no type
        if where and str(error).startswith(f"{kind}."):  # the model's reader's path names it
            where = ""
        rule = error.rule_id if isinstance(error, FactError) else "LOG-4"
        report.fail(line, ErrorKind.BAD_EVENT, f"{where}{error}", rule)
    raise CannotCheckFurther


# ---------------------------------------------------------------------------------------------
# One log.


def check_stream(
    path: str,
    stream: BinaryIO,
    limits: Limits | None = None,
    *,
    quick: bool = True,
    walked: bool = False,
    source: LogSource | None = None,
) -> LogReport:
    """Check one log read from `stream` (decompressed bytes); never raises on bad input.

    `quick=False` builds the fact of every event and feeds it to the invariants, even of those
    `LogMonitor.quiet_kind` says commit nothing and of those a judge of
    `loopspec.properties.logcheck.clean_events` finds clean (the tests compare both ways).
    `walked`: the file was found under a directory argument, so one that is no session log
    (`logcheck.home_files`) is skipped rather than reported as an error. `source`, where the log
    came from, opens it again when `stream` cannot seek back (`event_lines.place_events`);
    without one, a `stream` that can seek is read again itself (`event_lines.StreamSource`),
    as a file is, where it was judged as a pipe (no copy looked for: `repeated_lines`).
    """
    limits = limits or Limits()
    try:
        head = log_head(stream)
    except OSError as error:  # the first bytes cannot be read (or decompressed)
        report = LogReport(path)
        report.fail(1, ErrorKind.UNREADABLE, str(error))
        return report
    if not opens_with_dsh_header(head):
        # A Claude Code transcript or Codex rollout goes to its own reader. Imported here:
        # those modules build on this one's report types, and the usual log (a dsh header
        # first) needs none of them.
        from loopspec.properties.logcheck.foreign import check_if_foreign  # noqa: PLC0415

        foreign = check_if_foreign(path, stream, head, limits, walked=walked)
        if foreign is not None:
            return foreign
    if source is None and stream.seekable():  # (a program's bytes in memory, a test's)
        # (Imported here: `event_lines` imports this module, a cycle at the top.)
        from loopspec.properties.logcheck.event_lines import StreamSource  # noqa: PLC0415

        source = StreamSource(path, stream)
    report = LogReport(path)
    # Each hook's runs, counted by the judge of hook/result; and the reader of the hooks' faults
    # (`hook_faults.HookRuns`), made when the full path first reads a hook/result: the judge
    # leaves every run that records a fault to it, so a log it never reads one of has none.
    run_counts: dict[str, int] = {}
    hook_runs: list[HookRuns] = []
    try:
        _check_lines(report, stream, limits, run_counts, hook_runs, quick=quick, source=source)
    except CannotCheckFurther:
        pass
    except OSError as error:  # reading (or decompressing) failed after `report.lines` lines
        # Imported only when the system refused: `impl`, its package, is no check's otherwise.
        from loopspec.impl.system_words import system_reason  # noqa: PLC0415

        report.fail(report.lines + 1, ErrorKind.UNREADABLE, system_reason(error))
    # The hooks that failed in the lines read: a fault breaks no rule, but "0 violations" alone
    # would tell a hook's author that all went well (HOOK-7).
    for runs in hook_runs:
        for first, message in runs.notes():
            notice = Notice(first.line, NoticeKind.HOOK_FAULT, message, "HOOK-7", first.seq)
            report.notices.append(notice)
    if report.violations:
        # Only now, and only here: a clean log pays nothing for the lines of the events a
        # verdict rests on (bench_check.py). Imported here for the same reason.
        from loopspec.properties.logcheck.event_lines import place_events  # noqa: PLC0415

        place_events(report, stream, limits.max_line_bytes, source)
    return report


def hooks_naming_no_call(report: LogReport, unnamed: int, named: int) -> None:
    """Say which rules `report`'s log could not judge: `unnamed` of its PreToolUse and
    PostToolUse hooks named no call (no `callId`, as dsh writes them), `named` did. A hook's
    answer is tied to its call by that member alone, and check does not guess it between a
    step's calls: the rules that judge only such ties are not checkable when no hook named
    its call, and checked in part otherwise, as are those that judge them in part."""
    # Counted by hook/invoked: a hook's run, whose hook/result answers it.
    runs = "run" if unnamed + named == 1 else "runs"
    name = "names" if unnamed == 1 else "name"
    lead = (
        f"{unnamed} of the log's {unnamed + named} PreToolUse and PostToolUse hook {runs} "
        f"(hook/invoked) {name} no call (no callId), so check cannot see "
    )
    for rule in (*HOOK_CALL_RULES, *HOOK_CALL_RULES_IN_PART):
        why = lead + _UNSEEN_WITHOUT_CALL_IDS[rule]
        if named or rule in HOOK_CALL_RULES_IN_PART:
            report.checked_in_part[rule] = why
        else:
            report.not_checkable[rule] = why


# What each of those rules judges that a hook naming no call hides.
_UNSEEN_WITHOUT_CALL_IDS = {
    "DEC-1": (
        "a call that ran although a PreToolUse hook denied it while another call of its step "
        "awaited a result (a deny while the call alone awaited one is taken for it, and checked)"
    ),
    "HOOK-4": (
        "which call a PreToolUse hook ran for: once per call, none for a call whose input is "
        "not an object, every call's hooks answered (one audited after every call of its step "
        "has its result is checked)"
    ),
    "RW-2": (
        "an input a hook supplied, nor whether the call's rewrite sidecar records it (a "
        "sidecar that names no hook, or one that had not answered by the call's record, is "
        "checked)"
    ),
    "RW-3": "whether a hook a rewrite sidecar names answered before the reply",
    "HOOK-6": (
        "a call that ran although a PreToolUse hook supplied an input that is no JSON object "
        "while another call of its step awaited a result (one supplied while the call alone "
        "awaited one is taken for it, and checked)"
    ),
    "DEC-2": (
        "a call that ran although its hook asked (an approval request that names its call is "
        "checked)"
    ),
    "HOOK-1": (
        "a result that reports success although a PostToolUse hook blocked it while another "
        "call of its step awaited a result (each hook/result's pairing with its hook/invoked, "
        "and a block while the call alone awaited one, are checked)"
    ),
    "HOOK-5": (
        "a PostToolUse hook audited after the result it judges, or for a call that never ran, "
        "while another call of its step awaits a result (one audited outside a step, after every "
        "call of its step has its result, or while one call alone awaits it, for that call, is "
        "checked)"
    ),
}


def _hook_runs(run_counts: dict[str, int]) -> HookRuns:
    """The reader of a log's hooks' faults, with the runs the judge counted so far."""
    from loopspec.properties.logcheck.hook_faults import HookRuns  # noqa: PLC0415 (see above)

    return HookRuns(run_counts=run_counts)


def _monitor(prefix: Prefix) -> LogMonitor:
    """The invariants' monitor, over `prefix` (`model.invariants`, imported here: importing the
    rule registry is 4 % of a small clean log's check, which never needs it; bench_cli.py)."""
    from loopspec.model.invariants import LogMonitor  # noqa: PLC0415

    return LogMonitor(prefix)


# Distinct event types whose `quiet_kind` is remembered per log; the rest are asked each time.
_QUIET_CACHE_LIMIT = 512


def _check_lines(
    report: LogReport,
    stream: BinaryIO,
    limits: Limits,
    run_counts: dict[str, int],
    hook_runs: list[HookRuns],
    *,
    quick: bool,
    source: LogSource | None,
) -> None:
    # The checker's hot path: one loop over locals; counts reach the report when it ends.
    size = limits.max_line_bytes + 1
    reader = LineReader(stream, size)
    rest = RestOfLog(reader.readline)
    prefix = Prefix()
    # The invariants' monitor over `prefix`, made at the first event the full path reads: a log
    # whose every event the judges and the quiet path settle is checked without the rule
    # registry (`_monitor`).
    monitor: LogMonitor | None = None
    # Per event type seen, `monitor.quiet_kind` (left empty when not `quick`). The first event
    # of a type always takes the full path, which learns its kind, but for the types whose
    # kind `clean_events` knows.
    quiet_of: dict[str, int] = {}
    # Per event type, its judge, or None: read by subscript, where a `get` is a method call (a
    # type not in it is read again in `_envelope`, and kept once the full path learns its
    # kind). The judge of hook/result counts each hook's runs; one that records a fault takes
    # the full path (`see_wire` below), where its line is known.
    judges: dict[str, Judge | None] = {}
    if quick:
        # (Imported here: a Claude Code transcript or a Codex rollout is read without them.)
        from loopspec.properties.logcheck.clean_events import (  # noqa: PLC0415
            QUIET_KINDS,
            clean_judges,
        )

        quiet_of.update(QUIET_KINDS)
        judges.update(clean_judges(run_counts))
    # turn/start is judged apart: the checker keeps the line of the turn it opens.
    start_turn = judges.pop("turn/start", None)
    # A stream chunk's type (quiet in a step) is known by its judge's lookup, a marker no line
    # calls: its quiet kind looked up too would cost each chunk a method call (`_in_step_judge`).
    in_step = _in_step_judge
    for known, quiet in quiet_of.items():
        if quiet == QUIET_IN_STEP:
            judges[known] = in_step
    for known in (*READ_TYPES, *quiet_of):  # (every one None when not `quick`)
        judges.setdefault(known, None)
    scan, depth_free = scan_json, DEPTH_FREE_CHARS
    # Read on every line, as locals: a global or builtin costs several times a local's load.
    is_type, integer, seq_bound = type, int, SEQ_BOUND
    unread = report.unread_types
    # Whether the first line (the header) is read, and whether the first event's, whose clock
    # is looked at (`_note_seconds`), is yet to come: bools, which a line tests for less than
    # an int (a test of an int calls its type's truth).
    header_read, opening = False, True
    # The header's notice of a createdAt in seconds, which the first event's time joins.
    header_seconds: tuple[int, str] | None = None
    # The first event's line and value, whose clock the last event's is held to at the end.
    first_event: tuple[int, Any] | None = None
    # The reader of commit markers, on a log that writes them (LOG-8); None on a dsh log.
    units: CommitUnits | None = None
    # The commit the loop opened and reads (LOG-8): its size n (0: none open, or the reader's
    # `is_open`, `units_open`), the k of its last line read, where it began, and whether a line
    # of it went to `CommitUnits.note`.
    unit_size = unit_at = unit_first_line = unit_first_seq = 0
    unit_noted = units_open = False
    # A reply the loop holds (LOG-8): the first noted line of the commit it reads, folded clean
    # by the judge of replies (`reply_judge`) with these calls (None: none held), at `held_line`
    # and `held_seq`; the commit's records since are in `recorded`. The reader is handed it
    # (`CommitUnits.take_held_reply`) only where its own state is read: `note`, the judge's
    # wrapper and `end` would be three calls for every reply.
    held_calls: tuple[str, ...] | None = None
    held_seq = held_line = 0
    reply_judge: Judge | None = None
    unit_key, first_unit, string = UNIT_KEY, 1, str
    # The line where LOG-8 last found a commit broken off (0: none): up to the next turn/start
    # (`turn_line` past it) the log has a hole, whose consequences are not blamed again. A
    # turn/start that is itself that line is in it, but opens a turn the loss before it cannot
    # reach (the monitor starts the turn afresh): the hole ends with that line (`_in_hole`).
    hole_line = 0
    # A last line cut off mid-write, on a log with a header (empty: none).
    torn_raw = b""
    # The reader of compact chunk rows' quiet runs, imported at the first line without a seq: a
    # log without them is checked without their module (`_quiet_run_reader`).
    quiet_run: Callable[[Any, Prefix], int] | None = None
    compact_row = _compact_row_judge
    turn_line = turn_seq = line = 0
    # The events read less the lines read (a line is one event, but for the header, a blank or
    # torn line and a compact row, which holds a run): a count per line would cost each line an
    # addition, about 200 instructions.
    events_past_lines = 0
    # The event line before this one: the invariants time crash repair's closers by its time
    # (REC-1), and the events judged without their facts do not tell the prefix theirs. It is
    # the last line's `obj`: the header's is None, and a line the slow path skips (a blank or
    # torn one) is followed by none but blank ones.
    earlier: Any = None
    # What says that lines reusing taken seqs are events written again (`repeated_lines`).
    repeats: Repeats | None = None
    # The first lines of the last commit the loop began and of the two before it (version-1
    # logs): the last commit or the last two written again are told by their first line
    # (`Repeats.seen`; a pipe cannot be read again to find an earlier one), and the copy's
    # first line has begun a commit of its own when it is judged.
    commit_earlier: Any = None
    commit_before: Any = None
    commit_first: Any = None
    obj: Any = None
    lines: Iterator[str] = reader.lines
    try:
        while True:
            try:
                for text in lines:
                    line += 1
                    earlier = obj
                    try:
                        obj, end = scan(text, 0)
                        # Past the value, nothing but whitespace: usually just the newline (the only
                        # one, which ends the line). A line cut at the length limit, or not UTF-8,
                        # is a `RawLine`, which json refuses. A value of `depth_free` characters or
                        # more is looked at too: only such a value may nest too deeply for every
                        # Python to read. (The character after the value read by index, not a
                        # slice: a slice's object and its bounds' reading cost some 60 ns a line.)
                        try:
                            after = text[end]
                        except IndexError:  # a last line without its newline
                            after = ""
                        if after != "\n" or end >= depth_free:
                            if end > depth_free and _nested_deeper_text(text):
                                raise RecursionError  # refused in `parse_slowly`, as json's own
                            if text[end:] != "\n" and text[end:].strip(_JSON_SPACE):
                                raise ValueError("extra data after the JSON value")
                    except SCAN_ERRORS as error:
                        # (imported at the first such line: a log that reads cleanly needs none of
                        # it)
                        from loopspec.properties.logcheck import unreadable_lines  # noqa: PLC0415

                        if type(text) is unreadable_lines.RawLine:
                            raw = text.raw
                            if len(raw) == size:
                                _too_long(report, raw, line, limits, rest)
                            obj = unreadable_lines.parse_slowly(
                                report, raw, line, unreadable_lines.decode_error(raw), rest
                            )
                        else:
                            raw = text.encode()
                            obj = unreadable_lines.parse_slowly(report, raw, line, error, rest)
                        if obj is unreadable_lines.SKIP:
                            events_past_lines -= 1
                            continue
                        if obj is unreadable_lines.TORN:
                            torn_raw = raw
                            events_past_lines -= 1
                            continue
                    if opening:
                        header_read, opening = True, not header_read
                        if not opening:  # the first event's line
                            _note_seconds(report, obj, line, header_seconds)
                            first_event = line, obj
                        elif _is_checked_header(report, obj, line):
                            header_seconds = _note_header_seconds(report, obj, line)
                            if report.version == MARKED_VERSION:
                                from loopspec.properties.logcheck.commit_units import (  # noqa: PLC0415
                                    CommitUnits,
                                )

                                units = CommitUnits(prefix)
                                recorded = units.records()
                                record_call = recorded.add
                                # Its judge of replies hands their calls to the commit reader.
                                reply_judge = judges.get("assistant/message")
                                if reply_judge is not None:
                                    judges["assistant/message"] = units.judging_replies(reply_judge)
                                report.commits_checked = True
                            events_past_lines -= 1
                            obj = None
                            continue
                    try:
                        # (Subscripts: a `get` is a method call. An event without a seq or a time
                        # reads them in `_envelope`.)
                        kind = obj["type"]
                        judge = judges[kind]
                        # A compact row has no seq: one after the first (whose reading put this
                        # judge under its type, below) is counted here when quiet, where the
                        # path below costs it three times as much, and its seq's KeyError alone
                        # (about 460 ns) more than this test costs every line. (`quiet_run` is
                        # set where the first row put the judge there: the test is mypy's.)
                        if judge is compact_row and quiet_run is not None:
                            run = quiet_run(obj, prefix)
                            if run:
                                events_past_lines += run - 1
                                continue
                            raise KeyError  # not quiet: to `_envelope`, as a row without a seq
                        seq, stamp = obj["seq"], obj["time"]
                    except (KeyError, TypeError):  # one missing, no object, not a string
                        seq, kind, stamp, judge = _envelope(obj, judges)
                    seq_int = is_type(seq) is integer
                    # (A type read means an object: only a dict takes a string subscript.)
                    if units is not None and (kind is not None or is_type(obj) is dict):
                        # LOG-8: the usual lines judged here as `CommitUnits.take` judges them, the
                        # commit the loop opened in locals; the reader takes the rest (see `adopt`).
                        marker = obj.get(unit_key)
                        # `position`: the k of a line of the commit the loop reads (the next of the
                        # open one, or the first of a new one), None for any other line.
                        if unit_size:
                            try:
                                position, of = marker
                            except (TypeError, ValueError):  # not a pair: the reader's to judge
                                position = None
                            # `is`: of ints equal to them, only an int is the same object (a large
                            # int may be another: the reader judges it)
                            if position is unit_at + 1 and of is unit_size and seq_int:
                                unit_at = position
                            else:
                                if held_calls is not None:
                                    units.take_held_reply(held_seq, held_line, held_calls)
                                    held_calls = None
                                units.adopt(
                                    unit_size, unit_at, unit_first_line, unit_first_seq, unit_noted
                                )
                                unit_size = 0
                                position = None
                                taken, repeats = _take_unit(
                                    units,
                                    report,
                                    obj,
                                    line,
                                    seq,
                                    kind=kind,
                                    limits=limits,
                                    earlier=earlier,
                                    prefix=prefix,
                                    repeats=repeats,
                                    last_commit=commit_first,
                                    source=source,
                                )
                                if taken & HOLE_BEGINS:
                                    hole_line = line
                                if taken & COMMIT_BROKEN:  # not whole: nothing copies it
                                    commit_first = None
                                if taken & COMMIT_BEGINS:
                                    commit_earlier, commit_before, commit_first = (
                                        commit_before,
                                        commit_first,
                                        obj,
                                    )
                                units_open = units.is_open()
                        elif units_open:
                            position = None
                            taken, repeats = _take_unit(
                                units,
                                report,
                                obj,
                                line,
                                seq,
                                kind=kind,
                                limits=limits,
                                earlier=earlier,
                                prefix=prefix,
                                repeats=repeats,
                                last_commit=commit_first,
                                source=source,
                            )
                            if taken & HOLE_BEGINS:
                                hole_line = line
                            if taken & COMMIT_BROKEN:  # not whole: nothing copies it
                                commit_first = None
                            if taken & COMMIT_BEGINS:
                                commit_earlier, commit_before, commit_first = (
                                    commit_before,
                                    commit_first,
                                    obj,
                                )
                            units_open = units.is_open()
                        elif marker is None and seq_int and kind != "assistant/message":
                            position = None  # a commit by itself
                        else:
                            try:
                                position, of = marker
                            except (TypeError, ValueError):
                                position = None
                            if (
                                position is first_unit
                                and is_type(of) is integer
                                and of >= 2
                                and seq_int
                            ):
                                unit_size, unit_at, unit_first_line, unit_first_seq = (
                                    of,
                                    1,
                                    line,
                                    seq,
                                )
                                commit_earlier, commit_before, commit_first = (
                                    commit_before,
                                    commit_first,
                                    obj,
                                )
                                unit_noted = False
                            else:
                                position = None
                                taken, repeats = _take_unit(
                                    units,
                                    report,
                                    obj,
                                    line,
                                    seq,
                                    kind=kind,
                                    limits=limits,
                                    earlier=earlier,
                                    prefix=prefix,
                                    repeats=repeats,
                                    last_commit=commit_first,
                                    source=source,
                                )
                                if taken & HOLE_BEGINS:
                                    hole_line = line
                                if taken & COMMIT_BROKEN:  # not whole: nothing copies it
                                    commit_first = None
                                if taken & COMMIT_BEGINS:
                                    commit_earlier, commit_before, commit_first = (
                                        commit_before,
                                        commit_first,
                                        obj,
                                    )
                                units_open = units.is_open()
                        if position is not None:
                            if kind in {"tool/call", "assistant/message"}:
                                if kind == "tool/call" and unit_noted:  # `note`'s, inlined
                                    try:
                                        call_id = obj["data"]["callId"]
                                    except (KeyError, TypeError):  # no data, or not an object
                                        call_id = None
                                    if is_type(call_id) is string:
                                        record_call(call_id)
                                elif (
                                    not unit_noted
                                    and position is not unit_size
                                    and reply_judge is not None
                                    and seq == prefix.expected_seq
                                    and seq < seq_bound
                                    and is_type(stamp) is integer
                                    and stamp >= 0
                                    and kind == "assistant/message"
                                ):
                                    # The commit's first noted line, a reply the quick path below
                                    # would judge: judged here, and held if clean (the commit goes
                                    # on, its end checks the calls).
                                    recorded.clear()  # `note`'s, inlined: the commit's records
                                    unit_noted = True
                                    if reply_judge(prefix, obj, seq):
                                        held_calls, held_seq, held_line = (
                                            prefix.reply_ids,
                                            seq,
                                            line,
                                        )
                                        continue
                                    units.note(obj, line, seq, kind, False)  # as when not held
                                    judge = None  # (judged: it takes the full path)
                                else:
                                    if held_calls is not None:
                                        units.take_held_reply(held_seq, held_line, held_calls)
                                        held_calls = None
                                    units.note(obj, line, seq, kind, unit_noted)
                                    unit_noted = True
                            if position is unit_size:
                                unit_size = 0
                                # (`end` never finds events missing: no hole follows)
                                if held_calls is not None:
                                    if held_calls and not recorded.issuperset(held_calls):
                                        units.take_held_reply(held_seq, held_line, held_calls)
                                        report.record(line, units.end(line, seq), limits)
                                    held_calls = None
                                elif (
                                    unit_noted
                                    and units.awaits_end
                                    and (broken := units.end(line, seq))
                                ):
                                    report.record(line, broken, limits)
                    # Nearly every event is at the expected seq, and then most need no fact: a judge
                    # of its type tells a clean one from its JSON and folds it (see `clean_events`);
                    # of a quiet type (stream chunks, plugin events; see `LogMonitor.quiet_kind`) it
                    # commits nothing when it carries no surface metadata and, for a chunk, names
                    # the open turn and step. The rest, and anything unusual, go down the full path
                    # below. (A time in whole milliseconds written as a float, or none, is read with
                    # the fact.)
                    if (
                        seq == prefix.expected_seq
                        and seq_int
                        and seq < seq_bound
                        and is_type(stamp) is integer
                        and stamp >= 0  # (LOG-4: else refused with the fact)
                    ):
                        if judge is None:
                            # (turn/start before the quiet kinds: one line a turn)
                            if (
                                kind == "turn/start"
                                and start_turn is not None
                                and start_turn(prefix, obj, seq)
                            ):
                                turn_line, turn_seq = line, seq  # where a crash tail's turn began
                                continue
                            quiet = quiet_of.get(kind, QUIET_NEVER)
                        elif judge is in_step:
                            quiet = QUIET_IN_STEP
                        elif judge(prefix, obj, seq):
                            continue
                        else:
                            quiet = QUIET_NEVER
                        if (
                            quiet != QUIET_NEVER
                            and "surfaceOp" not in obj
                            and "sourceEventSeqs" not in obj
                        ):
                            if quiet == QUIET_IN_STEP:
                                try:
                                    data = obj["data"]
                                    turn, step = data["turn"], data["step"]
                                except (KeyError, TypeError):  # no data, or not an object
                                    turn = step = None
                                if (
                                    is_type(turn) is integer
                                    and is_type(step) is integer
                                    and turn == prefix.open_turn
                                    and step == prefix.open_step
                                ):
                                    prefix.expected_seq = seq + 1
                                    continue
                            elif quiet == QUIET_ANYWHERE or prefix.open_turn is not None:
                                seen = unread.get(kind)
                                if seen is not None:  # the first of a type is counted below
                                    unread[kind] = seen + 1
                                    prefix.expected_seq = seq + 1
                                    continue
                    if type(obj) is dict and "seq" in obj:
                        if seq_int and seq < prefix.expected_seq:
                            # Events written again: one LOG-1, not what each copy breaks.
                            if repeats is None:
                                repeats = _repeats(report, limits, source)
                            # (a copy's first line began a commit in the loop's locals)
                            began = commit_first is obj
                            last, before_last = (
                                (commit_before, commit_earlier)
                                if began
                                else (commit_first, commit_before)
                            )
                            if repeats.seen(
                                obj,
                                earlier,
                                line,
                                seq,
                                prefix,
                                last_commit=last,
                                commit_before_last=before_last,
                            ):
                                if began:  # no commit: the copy's lines are LOG-1's alone
                                    commit_first, commit_before = commit_before, commit_earlier
                                    unit_size = 0
                                continue
                        try:
                            fact = fact_from_wire(obj)
                            time = obj.get("time")
                            if type(time) is not int or time < 0:
                                _read_time(time, "time" in obj)
                        except FactError as error:
                            _bad_event(report, obj, line, error)
                        kind = fact.type
                        if monitor is None:
                            monitor = _monitor(prefix)
                        if quick and kind not in quiet_of and len(quiet_of) < _QUIET_CACHE_LIMIT:
                            quiet_of[kind] = quiet = monitor.quiet_kind(kind)
                            judges.setdefault(kind, in_step if quiet == QUIET_IN_STEP else None)
                        if kind not in READ_TYPES:
                            seen = unread.get(kind)
                            if seen is None:
                                _first_unread(report, kind, line)
                            else:
                                unread[kind] = seen + 1
                        elif kind == "turn/start":
                            _refuse_trigger(report, obj, line)
                            turn_line, turn_seq = line, fact.seq
                        elif kind == "hook/result":
                            if not hook_runs:
                                hook_runs.append(_hook_runs(run_counts))
                            hook_runs[0].see_wire(obj.get("data"), line, fact.seq)
                        prefix.last_time = _time_of(earlier)
                        due = prefix.expected_seq
                        found = monitor.feed(fact)
                        if found:
                            in_hole = _in_hole(hole_line, turn_line, line)
                            _record_judged(report, line, found, limits, fact.seq, due, in_hole)
                    else:
                        # (a copy's row: its seqs are taken, `repeated_lines`)
                        if repeats is not None and (copied := repeats.row_copied(obj, line)):
                            events_past_lines += copied - 1
                            continue
                        if quiet_run is None:
                            quiet_run, row_types = _quiet_run_reader()
                            if quick and units is None:  # (a version-1 log reads LOG-8 first)
                                judges.update(dict.fromkeys(row_types, compact_row))
                        # (`quick` stands for the quiet kind of chunks: theirs from the start.)
                        if quick and (run := quiet_run(obj, prefix)):
                            events_past_lines += run - 1
                            continue
                        in_hole = _in_hole(hole_line, turn_line, line)
                        if monitor is None:
                            monitor = _monitor(prefix)
                        run = _compact_row(report, monitor, obj, line, limits, in_hole=in_hole)
                        events_past_lines += run - 1
            except _Unreadable:  # a line the text reader cannot hand over: read on as bytes
                lines = reader.to_bytes()
                continue
            break
    except CannotCheckFurther:
        events_past_lines -= 1  # the line it stopped at is no event read
        report.lines_unread = lines_follow(rest)
        raise
    finally:
        report.lines, report.events = line, line + events_past_lines
        if repeats is not None:
            repeats.close()
            repeats.say_unplaced()
    if not header_read and not report.errors:
        message = "the log is empty: no session header, no events"
        report.fail(None, ErrorKind.EMPTY, message, "LOG-5")
    elif prefix.open_turn is not None:
        message = (
            f"turn {prefix.open_turn} is still open at the end of the log: a crash tail, "
            "which the harness must repair before the session resumes"
        )
        notice = Notice(turn_line, NoticeKind.CRASH_TAIL, message, "REC-2", turn_seq)
        report.notices.append(notice)
    if first_event is not None:
        _note_clock_change(report, first_event, obj, line)
    if prefix.tool_hooks_unnamed:
        hooks_naming_no_call(report, prefix.tool_hooks_unnamed, prefix.tool_hooks_named)
    if units is not None and unit_size:
        if held_calls is not None:
            units.take_held_reply(held_seq, held_line, held_calls)
        units.adopt(unit_size, unit_at, unit_first_line, unit_first_seq, unit_noted)
    torn = None if units is None else units.torn()
    if torn is not None:
        torn_line, torn_seq, message = torn
        if torn_raw:
            from loopspec.properties.logcheck.unreadable_lines import (  # noqa: PLC0415 (read)
                torn_line_words,
            )

            message += f"; {torn_line_words(torn_raw, line)}, the write the crash cut off"
        notice = Notice(torn_line, NoticeKind.TORN_COMMIT, message, "LOG-8", torn_seq)
        report.notices.append(notice)
    elif torn_raw:
        # (`unreadable_lines` read the torn line: it is imported)
        from loopspec.properties.logcheck.unreadable_lines import torn_line_words  # noqa: PLC0415

        whole = "with the commit it belongs to " if units is not None else ""
        message = (
            f"{torn_line_words(torn_raw, line)}: the last line, a write a crash cut off, which "
            f"the harness drops {whole}when the session reopens; checked up to line {line - 1}"
        )
        report.notices.append(Notice(line, NoticeKind.TORN_COMMIT, message, "LOG-8"))


FIRST_LINE_NO_HEADER = (
    'the first line must be the session header, {"type": "session", "version": 0, "id": '
    '"...", "createdAt": <ms>, "cwd": "..."}, with no seq'
)
"""LOG-5's words for a log whose first line is no header (an event, say)."""
FIRST_LINE_AN_EVENT = (
    f"{FIRST_LINE_NO_HEADER}; line 1 is an event: write the header above it (the events were "
    "checked as they are)"
)
"""LOG-5's words for a log whose first line is an event."""
FIRST_LINE_WITH_SEQ = (
    f"{FIRST_LINE_NO_HEADER}; line 1 is the header, carrying a seq: leave it out (the events "
    "were checked as they are)"
)
"""LOG-5's words for a header carrying a seq."""


def _is_checked_header(report: LogReport, obj: Any, line: int) -> bool:
    """Check the first line as the header; False when it is not one (it is then an event)."""
    if type(obj) is LossyHeader:  # its error is said: only its version is read on
        version = obj.value.get("version")
        if type(version) is int:
            _take_version(report, version, line)
        return True
    if isinstance(obj, dict) and is_header(obj):
        report.session_id = obj.get("id")
        version = usual_version(obj)
        if version is None:  # a header of another shape: the model's codec judges it
            from loopspec.model.errors import InvalidEventError  # noqa: PLC0415 (with the codec)

            try:
                version = header_version(obj)
            except InvalidEventError as error:
                report.fail(line, ErrorKind.BAD_HEADER, error.message, error.rule_id)
                return True
        _take_version(report, version, line)
        return True
    message = FIRST_LINE_NO_HEADER
    if not isinstance(obj, dict) or ("seq" not in obj and "seq0" not in obj):
        # Neither a header nor an event (nor a compact row), nor a transcript's or a rollout's
        # record (`foreign`): not a log check reads. Read as an event, the same line would be
        # blamed again (LOG-4) for what this error already says.
        if isinstance(obj, list) and obj and isinstance(obj[0], dict) and is_header(obj[0]):
            message = (
                f"the first line is a JSON array of {len(obj)} values, the session header "
                "first: a log read into one array (jq -s, or a program that collected its "
                "lines), not JSON Lines (one event per line); `jq -c '.[]' FILE` writes each "
                "on a line of its own"
            )
            report.fail(line, ErrorKind.BAD_HEADER, message, "LOG-5")
            raise CannotCheckFurther
        if not isinstance(obj, dict):
            what = "not a JSON object"
        else:
            what = "no seq" if "type" in obj else "no type, no seq"
        message += (
            f"; nor is it an event ({what}), nor a record of a Claude Code transcript or a Codex"
            " rollout, so the rest of the file is not read"
        )
        if isinstance(obj, dict) and (
            # (An event's members too: a log whose header is missing, its events Go-named.)
            misnamed := written_otherwise(
                obj, "type", "version", "id", "createdAt", "cwd", "seq", "time", "data"
            )
        ):
            message += f"; its members are {misnamed}"
        if isinstance(obj, dict) and obj.get("loopspec") == "case":
            # A case written on one line (`jq -c`), which the lone-'{' words never met.
            message += "; it is a loopspec case file: a case is rerun with `loopspec replay`"
        report.fail(line, ErrorKind.BAD_HEADER, message, "LOG-5")
        raise CannotCheckFurther
    # A header that carries a seq is still the header, not event 0: read as an event, it would
    # put every real event one seq late (a LOG-1 the log does not break).
    header = obj.get("type") == "session"
    said = FIRST_LINE_WITH_SEQ if header else FIRST_LINE_AN_EVENT
    report.fail(line, ErrorKind.BAD_HEADER, said, "LOG-5")
    return header


def _take_version(report: LogReport, version: int, line: int) -> None:
    """Read the header's `version`; stop at one this checker does not know."""
    report.version = version
    if version not in SUPPORTED_VERSIONS:
        # dsh (0.1.0-rc.8) refuses to open a log of any version but its own 0 ("uses log
        # format v7, but this harness reads only v0"): what such a log's lines mean is not known,
        # so judging them by version 0's rules would blame rules the loop may not have broken.
        message = (
            f"the header's version is {version}, which check cannot read: it reads version 0"
            " (dsh's logs) and 1 (the logs `loopspec run` writes), and dsh itself opens only 0;"
            " not checked"
        )
        report.fail(line, ErrorKind.UNSUPPORTED_LAYOUT, message, "LOG-5")
        raise CannotCheckFurther


def _first_unread(report: LogReport, kind: str, line: int) -> None:
    """The first event of a type no rule reads: count it, unless it marks an old layout; and
    note it where its type is one edit from a type the rules read (`tool/cal`): read as a
    plugin's event, judged by its seq and place alone, it leaves the log without the event
    its writer meant, and what follows is blamed for that."""
    if kind in LEGACY_TYPES:
        _refuse_layout(report, line, f"a {kind} event")
    report.count_unread(kind)
    meant = next((known for known in sorted(READ_TYPES) if _one_edit_apart(kind, known)), None)
    if meant is not None:
        message = (
            f"type {kind} is no type the rules read, one letter from {meant}: check reads it as "
            f"a plugin's event (its seq and place alone), so the log holds no {meant} here, and "
            f"what follows is judged without it; if {meant} was meant, write that type"
        )
        report.notices.append(Notice(line, NoticeKind.MISSPELT_TYPE, message, "LOG-4"))


def _one_edit_apart(written: str, known: str) -> bool:
    """Whether `written` is `known` with one character added, left out, changed, or two
    neighbours swapped."""
    if written == known or abs(len(written) - len(known)) > 1:
        return False
    start = 0
    while start < min(len(written), len(known)) and written[start] == known[start]:
        start += 1
    a, b = written[start:], known[start:]
    return (
        a[1:] == b[1:]  # changed
        or a == b[1:]  # left out
        or a[1:] == b  # added
        or (len(a) >= 2 and a[:2] == b[1::-1] and a[2:] == b[2:])  # swapped
    )


def _refuse_trigger(report: LogReport, obj: Mapping[str, Any], line: int) -> None:
    marker = legacy_marker(obj)
    if marker is not None:
        _refuse_layout(report, line, marker)


def _take_unit(
    units: CommitUnits,
    report: LogReport,
    obj: Mapping[str, Any],
    line: int,
    seq: object,
    *,
    kind: object,
    limits: Limits,
    earlier: object,
    prefix: Prefix,
    repeats: Repeats | None,
    last_commit: object,
    source: LogSource | None,
) -> tuple[int, Repeats | None]:
    """`units.take` of the line (LOG-8), its findings recorded: `HOLE_BEGINS` when it found a
    commit broken off there with events of it missing (`CommitUnits.broken_line`), and
    `COMMIT_BEGINS` when the line begins a commit (the checker keeps its first line, as of a
    commit its own loop begins: `repeated_lines`); and `repeats`, made at the first line whose
    seq is taken. An event written again at its seq (after `earlier`, in the last commit, begun
    with `last_commit`, or where it was first written: `repeated_lines.copied`) is LOG-1's
    alone, its copied marker out of place too: not read here, it leaves the open commit as it
    was."""
    if type(seq) is int and seq < prefix.expected_seq:
        from loopspec.properties.logcheck.repeated_lines import copied  # noqa: PLC0415

        if repeats is None:
            repeats = _repeats(report, limits, source)
        if copied(obj, earlier, line, seq, prefix, repeats=repeats, last_commit=last_commit):
            return 0, repeats
    found = units.take(obj, line, seq, kind)
    taken = COMMIT_BEGINS if units.begins_at(line) else 0
    if not found:
        return taken, repeats
    begun_nowhere = units.begun_nowhere  # (this line's, one of `found`)
    if (
        begun_nowhere is not None
        and type(seq) is int
        and seq < prefix.expected_seq
        and prefix.skipped_by(seq) is None  # (taken: a line moved later is no copy)
    ):
        found = _begun_inside_a_commit(found, begun_nowhere, obj, prefix)
    if units.broke_off_at == line:
        taken |= COMMIT_BROKEN
    report.record(line, found, limits)
    return (taken | HOLE_BEGINS if units.broken_line == line else taken), repeats


def _begun_inside_a_commit(
    found: Sequence[Violation], begun_nowhere: Violation, obj: Any, prefix: Prefix
) -> list[Violation]:
    """`found` with the LOG-8 of a line at a taken seq marked event k > 1 of a commit none
    opened (`begun_nowhere`) said, in its place, as the LOG-1 it breaks in any case: the rest
    of a log copied from inside a commit, told line by line (a pipe: `repeated_lines` finds a
    file's copy), reads so, where its marker was blamed alone (the model's LOG-1 left out in
    the hole)."""
    from loopspec.model.invariants import seq_below_due  # noqa: PLC0415 (as `_monitor`)

    below = seq_below_due(prefix, obj["seq"])
    position, size = obj[UNIT_KEY]
    said = (
        f"{below.message}; the line is marked event {position} of a commit of {size} though "
        "none is open: lines written again from inside a commit (copied, or by a writer "
        "resuming), or a commit begun without its first events"
    )
    copied = below._replace(message=said)
    return [copied if violation is begun_nowhere else violation for violation in found]


HOLE_BEGINS = 1
COMMIT_BEGINS = 2
COMMIT_BROKEN = 4
"""What `_take_unit` found at a line, as bits."""


def _in_hole(hole_line: int, turn_line: int, line: int) -> bool:
    """Whether `line`, in the turn begun at `turn_line`, is in the hole a commit broken off at
    `hole_line` (0: none) left: from that line to the next turn/start after it."""
    return bool(hole_line) and (turn_line < hole_line or line == hole_line)


def _record_judged(  # noqa: PLR0917 (the loop's locals, passed as they are: no tuple)
    report: LogReport,
    line: int,
    found: Sequence[Violation],
    limits: Limits,
    seq: int,
    due: int,
    in_hole: bool,
) -> None:
    """Record what the rules found at `line`, the event (or a compact row's first) at `seq`
    where `due` was due: in the hole a broken commit left (`in_hole`), only what the loss
    cannot explain (`_beyond_the_hole`); a LOG-1 of a seq past the one due carries the seqs
    it skipped (`FoundViolation.skipped`, which `event_lines` looks for)."""
    if in_hole:
        found = _beyond_the_hole(report, line, found)
    kept = len(report.violations)
    report.record(line, found, limits)
    if seq > due:
        for each in report.violations[kept:]:
            if each.violation.rule_id == "LOG-1":
                each.skipped = range(due, seq)


def _beyond_the_hole(report: LogReport, line: int, found: Sequence[Violation]) -> list[Violation]:
    """Of violations found at `line`, in the hole a broken commit left, those the loss cannot
    explain. Its LOG-1 breaks are counted (`LogReport.unlisted_breaks`, the first kept): a
    log whose lines were reordered breaks its commits first (`event_lines`)."""
    # Only a log that marks its commits has a hole: `commit_units` is loaded then.
    from loopspec.properties.logcheck.commit_units import HOLE_KEEPS  # noqa: PLC0415

    for violation in found:
        if violation.rule_id == "LOG-1":
            if report.first_unlisted_break is None:
                report.first_unlisted_break = FoundViolation(line, violation)
            report.unlisted_breaks += 1
    return [violation for violation in found if violation.rule_id in HOLE_KEEPS]


def _quiet_run_reader() -> tuple[Callable[[Any, Prefix], int], Iterable[str]]:
    """`compact_rows.quiet_run`, the reader of a compact row's quiet run, and the types of
    compact rows (imported here: most logs have no compact rows)."""
    from loopspec.properties.logcheck.compact_rows import COUNT_FIELDS, quiet_run  # noqa: PLC0415

    return quiet_run, COUNT_FIELDS.keys()


def _in_step_judge(_prefix: Prefix, _obj: Any, _seq: int) -> bool:
    """The judge of the types quiet in a step (`QUIET_IN_STEP`: stream chunks): a marker, never
    called: the loop knows it by identity and reads the chunk's turn and step itself."""
    return False


def _compact_row_judge(_prefix: Prefix, _obj: Any, _seq: int) -> bool:
    """The judge of compact rows' types once one is read: the loop knows it by identity and
    reads the row's quiet run (`compact_rows.quiet_run`); a row with a seq, read as an event
    (`_envelope`), is judged by it as by no judge, down the full path."""
    return False


def _compact_row(
    report: LogReport,
    monitor: LogMonitor,
    obj: Any,
    line: int,
    limits: Limits,
    *,
    in_hole: bool = False,
) -> int:
    """Check a compact chunk row (a run of chunk facts); how many events it held.

    A line without a seq that is no compact row stops the log. `in_hole`: the row is in the
    hole a commit broken off left (its consequences are not blamed again).
    """
    if not isinstance(obj, dict):
        report.fail(line, ErrorKind.BAD_EVENT, "an event line must be a JSON object", "LOG-4")
        raise CannotCheckFurther
    if "seq0" not in obj:
        misnamed = written_otherwise(obj, "type", "seq", "time", "data")
        missing = f"an event needs an integer seq{f' ({misnamed})' if misnamed else ''}"
        _bad_event(report, obj, line, FactError(missing))
    from loopspec.properties.logcheck.compact_rows import (  # noqa: PLC0415 (`_quiet_run_reader`)
        CHUNK_TYPE,
        CompactRowError,
        compact_run,
    )

    try:
        run = compact_run(obj)
    except CompactRowError as error:
        report.fail(line, ErrorKind.BAD_EVENT, str(error), error.rule_id)
        raise CannotCheckFurther from None
    fact = Fact(CHUNK_TYPE, run.seq0)
    fact.turn, fact.step = run.turn, run.step
    due = monitor.prefix.expected_seq
    found = monitor.feed_run(fact, run.count)  # a clean row costs one fact, not one per chunk
    if found:
        _record_judged(report, line, found, limits, run.seq0, due, in_hole)
    return run.count


# ---------------------------------------------------------------------------------------------
# Many logs.


def check_source(source: LogSource, limits: Limits | None = None) -> LogReport:
    """Open and check one log; an unreadable one gives a report with the error."""
    try:
        stream = source.open()
    except OSError as error:
        from loopspec.impl.system_words import system_reason  # noqa: PLC0415 (as above)

        report = LogReport(source.name)
        report.fail(None, ErrorKind.UNREADABLE, system_reason(error))
        return report
    with stream:
        return check_stream(source.name, stream, limits, walked=source.walked, source=source)


def check_paths(arguments: Sequence[str], limits: Limits | None = None) -> Iterator[LogReport]:
    """A report per log the arguments name (files, directories, `-`), in order. A directory
    whose every file was skipped (none is a session log) is an error after them, as one
    holding no log file at all is: checking it checked nothing."""
    seen: set[tuple[int, int]] = set()  # a file named twice is checked once (log_sources)
    for argument in arguments:
        skipped = walked = 0
        for source in log_sources([argument], seen):
            if isinstance(source, SourceProblem):
                report = LogReport(source.name)
                report.fail(None, ErrorKind.UNREADABLE, source.message, source.rule_id)
                report.no_log = source.no_log
                report.not_reached = source.not_reached
                yield report
                continue
            report = check_source(source, limits)
            walked += source.walked
            skipped += report.skipped is not None
            yield report
        if walked and skipped == walked:
            report = LogReport(argument)
            files = "its one file is not" if skipped == 1 else f"none of its {skipped} files is"
            message = f"no session log under it: {files} one (skipped, see above)"
            report.fail(None, ErrorKind.UNREADABLE, message)
            report.no_log = True
            yield report
