"""Events written again: the one fault of a writer that, resuming, wrote its last events again
(LOG-1), told from events of another kind reusing taken seqs.

Check keeps no line's contents but the one before the line it reads (`earlier` in the
checker's loop), and what the rules keep of the open step: the seq of its reply, of each
call's record (with its arguments) and of each call's result. A line whose seq is taken is a
repetition when it is the previous line's event again (its `time` aside: a writer may stamp
it anew), or the step's reply, a call's record or a call's result at the seq the rules keep
for it (the same calls, the same arguments). Fed to the rules, each such line drew what its
copy breaks (a second reply in a step, ORD-1 and ADJ-1; a call recorded twice, ORD-2; a
second result, ADJ-2; a turn or step started or ended twice): one fault shown as several. The
first is reported once, under LOG-1, and none is fed to the rules, so the events after them
are judged as the events they are. In a version-1 log, the last commit written again, whole or
in part, is such a run too (`Repeats.seen`): lines at that commit's seqs marked as its events
there (`[k, n]` at the seq of its k-th), from its first (the same as where that commit began,
which the checker keeps of each commit begun, by its own loop or by `CommitUnits`,
`commit_first`) or from a later one (a reply, record or result among them the one the rules
keep), each next line at the next seq with the next marker. So are the last two commits
written again, whole or in part, from the first line of the one before the last (the same as
where it began, `commit_before`) or a later one, on to the last's lines (`_then`). The run is
one LOG-1, its words naming the lines read so far as they grow; none of its lines is fed to the
rules or read as a commit (`copied`, for LOG-8). A copy begun at an earlier commit is found
only where the log can be read again (below): read from a pipe, check keeps no commit's first
line but the last three begun (the copy's own among them), so its lines are judged, the log's
first LOG-1 saying that check could not tell, when it is at a commit's first line whose seqs
are all taken (`say_unplaced`).

Where the log can be read again (a file, not a pipe), a line at a taken seq is first looked
for where that seq was first written (`_first_written`, a second reading of the file, at most
`LOOKUPS` times a log): when that line is the same event (its time aside), it and each next
line the same as the next line there are one run, a copy (`_Original`, read in step with it),
one LOG-1 naming both stretches of lines, whatever their events (several commits, a turn, a
hook's pair); none of its lines is fed to the rules. Elsewhere, a repeated event of another
kind, not the line before, is judged as an event reusing a taken seq.
"""

from __future__ import annotations

from loopspec.model import PlainRecord
from loopspec.model.prefix import Prefix, Violation
from loopspec.properties.logcheck import UNIT_KEY
from loopspec.properties.logcheck.checker import (
    MAX_MESSAGE_CHARS,
    FoundViolation,
    Limits,
    LogReport,
    shorten,
)
from loopspec.properties.logcheck.event_lines import carrying_lines, line_object, log_opener

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Literal

    CopyReading = Literal["not a copy", "copy begins", "copy goes on"]
    """`Repeats.copy_reading`'s answers: a closed set of words (an enum would import enum and
    functools on check's path for every log reusing a seq)."""

    from loopspec.properties.logcheck.event_lines import Opener
    from loopspec.properties.logcheck.files import LogSource

LOOKUPS = 8
"""How many times a log is read again to find where a seq was first written: each reading goes
from the log's first line up to the copy, so a log reusing seqs at every line does not read
itself again at each."""


def _without_time(event: dict[str, Any]) -> dict[str, Any]:
    """`event` with its times left out: an event's `time`; a compact row's `time0` and the
    chunks' `data.dt` (a writer resuming writes its copy at other times)."""
    kept = {key: value for key, value in event.items() if key not in ("time", "time0")}
    data = kept.get("data")
    if "seq0" in event and type(data) is dict and "dt" in data:
        kept["data"] = {key: value for key, value in data.items() if key != "dt"}
    return kept


def _kept_at(prefix: Prefix, event: dict[str, Any], seq: int) -> bool:
    """Whether `event` is the step's reply, a call's record or a call's result that the rules
    keep at `seq` (the reply with the same calls, the record with the same arguments)."""
    try:
        data = event["data"]
        match event["type"]:
            case "assistant/message":
                calls = {
                    block["id"]: block["arguments"]
                    for block in data["message"]["content"]
                    if block["type"] == "tool-call"
                }
                kept = {
                    call_id: call.arguments for call_id, (_at, call) in prefix.reply_calls.items()
                }
                return seq == prefix.reply_seq and calls == kept
            case "tool/call":
                record = prefix.call_records.get(data["callId"])
                return (
                    record is not None
                    and record.seq == seq
                    and record.arguments == data["arguments"]
                )
            case "tool/result":
                call_id = data["message"]["content"][0]["toolCallId"]
                return type(call_id) is str and prefix.results.get(call_id) == seq
            case _:
                return False
    except (KeyError, TypeError, IndexError, AttributeError):
        return False


def written_again(event: object, earlier: object, seq: int, prefix: Prefix) -> bool:
    """Whether `event`, at `seq`, a seq already taken, is an event written again: the line
    before it (`earlier`) again, or what the rules keep at `seq` (`_kept_at`)."""
    if type(event) is not dict:
        return False
    if (
        type(earlier) is dict
        and earlier.get("seq") == seq
        and (event == earlier or _without_time(event) == _without_time(earlier))
    ):
        return True
    return _kept_at(prefix, event, seq)


class _Original(PlainRecord):
    """The lines a copy repeats, read again from the log's file in step with it: the one its
    copy's next line repeats (`event`, parsed; None when none is left before the copy's first
    line, `stop`, or it is no event), on `line`, and the line that copy is due on
    (`copy_line`)."""

    __slots__ = ("copy_line", "event", "line", "size", "stop", "stream")

    def __init__(
        self, stream: BinaryIO, size: int, line: int, event: dict[str, Any], stop: int
    ) -> None:
        self.stream, self.size = stream, size
        self.line, self.stop, self.copy_line = line, stop, stop
        self.event: dict[str, Any] | None = event

    def repeats(self, event: dict[str, Any], line: int, seq: int) -> bool:
        """Whether `event`, at `line` and `seq`, is the next line of the copy."""
        original = self.event
        return (
            original is not None
            and line == self.copy_line
            and _first_seq(original) == seq
            and _without_time(event) == _without_time(original)
        )

    def advance(self) -> None:
        """Read the next original line (the copy's next line is due on the next line)."""
        self.line += 1
        self.copy_line += 1
        self.event = None
        if self.line >= self.stop:
            return
        # (the copy ends where its original is no event)
        self.event = line_object(self.stream.readline(self.size))

    def close(self) -> None:
        self.stream.close()


def _first_written(
    source: Opener, event: dict[str, Any], seq: int, *, before: int, size: int, due: int
) -> _Original | None:
    """The log read again from its first line: where `seq` is first written, before line
    `before`, when that line is `event` again (its time aside) and the lines from `before` on
    are no numbering begun again (`_begun_again`, `due` the seq due), the lines from there
    (lines read at most `size` bytes at a time, as the check reads them); None otherwise."""
    stream: BinaryIO | None
    try:
        stream = source()
    except OSError:  # gone or changed since: judged as when it cannot be read again
        return None
    try:
        for line, value in carrying_lines(stream, {seq}, before - 1, size):
            if type(value.get("seq")) is int and value["seq"] == seq:
                if _without_time(value) != _without_time(event) or _begun_again(
                    source, line, before, seq=seq, due=due, size=size
                ):
                    break
                original = _Original(stream, size, line, value, before)
                stream = None
                return original
        return None
    except OSError:
        return None
    finally:
        if stream is not None:
            stream.close()


def _begun_again(source: Opener, first: int, stop: int, *, seq: int, due: int, size: int) -> bool:
    """Whether the lines from `stop` on, read in step with those from `first` on (the same
    events at the same seqs, from `seq`, their times aside), stop being the same at a line
    that carries the next seq, one already taken (below `due`): a numbering begun again whose
    first events are the same as where the log began (turn 1's start and its step's: another
    session's events appended without their header, say), not a copy. Judged as before (a
    LOG-1 at the first, what the rest break), they are not left out of the rules in part."""
    with source() as originals, source() as copies:
        for _ in range(first - 1):
            originals.readline(size)
        for _ in range(stop - 1):
            copies.readline(size)
        expected = seq
        for _ in range(first, stop):
            copy = line_object(copies.readline(size))
            original = line_object(originals.readline(size))
            if copy is None:  # the log ends, or its next line is no event: a copy ends there
                return False
            if (
                original is not None
                and _first_seq(copy) == expected
                and _without_time(copy) == _without_time(original)
            ):
                expected += _span(copy)
                continue
            at = _first_seq(copy)
            return type(at) is int and at == expected and at < due
    return False


def _first_seq(event: dict[str, Any]) -> object:
    """The seq of an event, or the first a compact chunk row stands for (`seq0`)."""
    return event["seq"] if "seq" in event else event.get("seq0")


def _span(event: dict[str, Any]) -> int:
    """How many seqs the line `event` takes: one, or a compact row's chunks (its count when
    it is no row check reads: a copy ends there)."""
    if "seq" in event:
        return 1
    # Imported at a row: a log without them is checked without their module (`checker`).
    from loopspec.properties.logcheck.compact_rows import COUNT_FIELDS  # noqa: PLC0415

    kind, data = event.get("type"), event.get("data")
    field = COUNT_FIELDS.get(kind) if type(kind) is str else None
    items = data.get(field) if field is not None and type(data) is dict else None
    return len(items) if type(items) is list else 0


class Repeats(PlainRecord):
    """Per log (its `report`, kept to `limits`): where the last repetition LOG-1 named began,
    and the seq then due (a run of lines written again is named once); of a commit found
    written again, the seq and marker its next line has (`_rest`, None when there is none), and
    what its LOG-1 says (`_run`, `_found`). Where the log is a file (`source`), a copy of lines
    found where their seqs were first written (`_original`, `_copy`: the copy's first line and
    seq, the first line it repeats, and the log's last seq then), `LOOKUPS` times at most
    (`_lookups`); each line's reading kept (`_decided`) for the next question on it."""

    __slots__ = (
        "_copy",
        "_decided",
        "_found",
        "_limits",
        "_lookups",
        "_original",
        "_report",
        "_rest",
        "_run",
        "_source",
        "_then",
        "_unplaced",
        "due",
    )

    def __init__(self, report: LogReport, limits: Limits, source: LogSource | None) -> None:
        self.due = -1
        self._report = report
        self._limits = limits
        self._source = log_opener(source)
        self._lookups = LOOKUPS
        self._original: _Original | None = None
        self._copy: tuple[int, int, int, int] | None = None
        self._decided: tuple[int, CopyReading] = (0, "not a copy")
        self._rest: tuple[int, list[int]] | None = None
        # The events of the last commit when the copy begun in the one before it goes on to
        # it (0 when none is left to come).
        self._then = 0
        # The line of the log's first LOG-1, when it is a commit's first line whose seqs are all
        # taken, read once (`say_unplaced`); else 0.
        self._unplaced = 0
        # The commit written again: its copy's first seq and type, the k of that line, the
        # commit's n and first seq, the log's last seq then, and the n of the last commit when
        # the copy began in the one before it (else 0).
        self._run: tuple[int, object, int, int, int, int, int] | None = None
        self._found: FoundViolation | None = None

    def seen(
        self,
        event: object,
        earlier: object,
        line: int,
        seq: int,
        prefix: Prefix,
        *,
        last_commit: object,
        commit_before_last: object = None,
    ) -> bool:
        """Whether `line`, at `seq`, a seq already taken, is an event written again, named by
        a LOG-1 (the first of a run: recorded; a later line of a run: its words grown to name
        it, or nothing said); False for another event, for the rules to judge. `last_commit`
        is the first line of the last commit begun before this line, `commit_before_last` of
        the one before it (version-1 logs)."""
        if type(event) is not dict:
            return False
        if self._is_rest(event, seq):
            self._grow(seq)
            return True
        match self.copy_reading(event, line, seq, prefix):
            case "copy begins":
                self._advance_original()
                self._rest, self._run, self._then = None, None, 0
                self.due = prefix.expected_seq
                self._record(line, Violation("LOG-1", seq, self._copy_words(seq)))
                return True
            case "copy goes on":
                self._advance_original()
                self._grow(seq)
                return True
            case "not a copy":
                pass
            case never:
                from typing import assert_never  # noqa: PLC0415 (never run: a closed set)

                assert_never(never)
        place = _place_in_last_commits(event, seq, prefix, last_commit, commit_before_last)
        if place is not None:
            position, size, self._then = place
            self._rest = None
            self._take_rest(seq, position, size)
            self.due = prefix.expected_seq
            first = seq - position + 1
            last = prefix.expected_seq - 1
            self._run = (seq, event.get("type"), position, size, first, last, self._then)
            self._copy = None
            self._record(line, Violation("LOG-1", seq, self._commit_words(seq)))
            return True
        if not written_again(event, earlier, seq, prefix):
            if self._source is None and _begins_taken_commit(event, seq, prefix):
                report = self._report
                if not report.rule_counts.get("LOG-1") and not report.unlisted_breaks:
                    self._unplaced = line
            return False
        if self.due == prefix.expected_seq:
            return True
        self.due = prefix.expected_seq
        self._run = self._copy = None
        last = prefix.expected_seq - 1
        message = (
            f"seq {seq} is written again, the same {event.get('type')} as where it was first "
            f"written (a writer that, resuming, wrote its last events again, from seq {seq}): "
            f"each event is written once, and a resumed writer goes on from the log's last seq "
            f"({last}); the lines written again are not judged again"
        )
        self._record(line, Violation("LOG-1", seq, message))
        return True

    def say_unplaced(self) -> None:
        """Add to the log's first LOG-1, at a commit's first line whose seqs are all taken, read
        once (a pipe), that check could not tell whether it begins a copy of earlier commits:
        it keeps the first lines of the last two commits alone."""
        line = self._unplaced
        found = next(
            (
                found
                for found in self._report.violations
                if found.line == line and found.violation.rule_id == "LOG-1"
            ),
            None,
        )
        if found is None:
            return
        violation = found.violation
        said = (
            "; it is marked the first event of a commit whose seqs are all taken: read once (a "
            "pipe), check keeps only the last two commits' first lines and cannot tell whether "
            "this line and those after it copy earlier ones (what they break is then the "
            "copy's); check the log saved to a file"
        )
        message = violation.message
        if len(message + said) > MAX_MESSAGE_CHARS:  # (its first words kept: `seq 9 where ...`)
            message = message.split("; ", 1)[0]
        found.violation = violation._replace(message=shorten(message + said))

    def copy_reading(
        self, event: dict[str, Any], line: int, seq: int, prefix: Prefix
    ) -> CopyReading:
        """Whether `event`, at `line` and `seq`, a seq already taken, is the next line of the
        copy found ("copy goes on") or the first of a copy ("copy begins": its original found,
        `_first_written`), or neither ("not a copy", the copy before it over). Asked of a line
        twice (a version-1 log's reader of commits asks first), it reads once."""
        decided_line, reading = self._decided
        if decided_line == line:
            return reading
        original = self._original
        if original is not None and original.repeats(event, line, seq):
            reading = "copy goes on"
        else:
            self.close()
            reading = "not a copy"
            if self._source is not None and self._lookups:
                self._lookups -= 1
                size = self._limits.max_line_bytes + 1
                due = prefix.expected_seq
                found = _first_written(self._source, event, seq, before=line, size=size, due=due)
                if found is not None:
                    self._original, reading = found, "copy begins"
                    self._copy = (line, seq, found.line, prefix.expected_seq - 1)
        self._decided = (line, reading)
        return reading

    def _advance_original(self) -> None:
        """Read the copy's next original line (the copy found goes on past this line)."""
        assert self._original is not None
        self._original.advance()

    def row_copied(self, row: object, line: int) -> int:
        """How many chunks the compact row `row`, at `line`, stands for when it is the next
        line of the copy found (then taken, none of them the rules'; a copy begins at an event
        with a seq), else 0."""
        original = self._original
        if original is None or type(row) is not dict:
            return 0
        seq0 = row.get("seq0")
        if type(seq0) is not int or not original.repeats(row, line, seq0):
            return 0
        span = _span(row)
        if span:
            original.advance()
            self._decided = (line, "copy goes on")
            self._grow(seq0 + span - 1)
        return span

    def close(self) -> None:
        """Stop reading the log again (the copy is over, or the check)."""
        if self._original is not None:
            self._original.close()
            self._original = None

    def continues(self, event: dict[str, Any], seq: int) -> bool:
        """Whether `event` at `seq` is the next line of a commit found written again."""
        rest = self._rest
        return rest is not None and seq == rest[0] and event.get(UNIT_KEY) == rest[1]

    def _is_rest(self, event: dict[str, Any], seq: int) -> bool:
        """Whether `event` is the next line of a commit found written again (and, if so, take
        it: the line after is due next, or the commit is over)."""
        if not self.continues(event, seq):
            self._rest, self._then = None, 0
            return False
        assert self._rest is not None
        position, size = self._rest[1]
        self._take_rest(seq, position, size)
        return True

    def _take_rest(self, seq: int, position: int, size: int) -> None:
        """The line after event `position` of a commit of `size` at `seq`, copied: the next
        event of that commit, or the last commit's first when the copy began in the one before
        it (`_then`), or none."""
        if position < size:
            self._rest = (seq + 1, [position + 1, size])
        elif self._then:
            self._rest, self._then = (seq + 1, [1, self._then]), 0
        else:
            self._rest = None

    def _record(self, line: int, violation: Violation) -> None:
        """Record the LOG-1 naming a run at `line`, kept to grow (`_grow`) when the report kept
        it (not past `Limits.max_violations`)."""
        report = self._report
        kept = len(report.violations)
        report.record(line, (violation,), self._limits)
        self._found = report.violations[-1] if len(report.violations) > kept else None

    def _grow(self, seq: int) -> None:
        """The LOG-1 of the commit or lines written again names its lines up to `seq`."""
        found = self._found
        if found is None:
            return
        if self._run is not None:
            words = shorten(self._commit_words(seq))
        elif self._copy is not None:
            words = shorten(self._copy_words(seq))
        else:
            return
        found.violation = found.violation._replace(message=words)

    def _copy_words(self, last: int) -> str:
        """What the LOG-1 of a copy says, read up to seq `last` (its original read past it)."""
        assert self._copy is not None
        assert self._original is not None
        line, first, original, log_last = self._copy
        count = self._original.copy_line - line  # (a compact row is one line of many seqs)
        if last == first:
            what = f"line {line} repeats line {original}, the event of seq {first} again"
        else:
            what = (
                f"lines {line} to {line + count - 1} repeat lines {original} to "
                f"{original + count - 1}, the events of seqs {first} to {last} again"
            )
        return (
            f"{what} (times aside: copied, or written again by a writer resuming): each event "
            f"is written once, and a resumed writer goes on from the log's last seq "
            f"({log_last}); the lines repeated are not judged again"
        )

    def _commit_words(self, last: int) -> str:
        """What the LOG-1 of the commit written again says, its copy read up to seq `last`."""
        assert self._run is not None
        start, kind, position, size, first, log_last, then = self._run
        count = last - start + 1
        if then and count > size - position + 1:
            return self._two_commits_words(last)
        if position == 1 and count == size and not then:
            what = (
                f"seqs {start} to {last} are written again, the same commit of {size} events as "
                f"where it was first written, begun with the same {kind}"
            )
            how = "wrote its last commit again"
        else:
            seqs = f"seq {start} is" if count == 1 else f"seqs {start} to {last} are"
            events = (
                f"event {position}"
                if count == 1
                else f"events {position} to {position + count - 1}"
            )
            which = " (the last but one)" if then else ""
            what = (
                f"{seqs} written again, {events} of the commit of {size} begun at seq {first}"
                f"{which}, at the seqs and with the markers they were first written with"
            )
            if position == 1:
                what += f", the first the same {kind} as there"
            how = f"wrote part of its last {'two commits' if then else 'commit'} again"
        return (
            f"{what} (a writer that, resuming, {how}): each event is written once, and a "
            f"resumed writer goes on from the log's last seq ({log_last}); the lines written "
            "again are not judged again"
        )

    def _two_commits_words(self, last: int) -> str:
        """What the LOG-1 of the last two commits written again says, its copy begun in the
        one before the last and read up to seq `last`, in the last."""
        assert self._run is not None
        start, kind, position, size, first, log_last, then = self._run
        if position == 1 and last == log_last:
            what = (
                f"seqs {start} to {last} are written again, the same last two commits, of {size} "
                f"and {then} events, as where they were first written, begun with the same {kind}"
            )
            how = "wrote its last two commits again"
        else:
            read = last - first - size + 1  # (the last commit's events read)
            events = f"events {position} to {size} of " if position > 1 else ""
            of_last = "event 1" if read == 1 else f"events 1 to {read}"
            what = (
                f"seqs {start} to {last} are written again, {events}the commit of {size} begun "
                f"at seq {first} and {of_last} of the last, of {then}, at the seqs and with the "
                "markers they were first written with"
            )
            if position == 1:
                what += f", the first the same {kind} as there"
            how = "wrote part of its last two commits again"
        return (
            f"{what} (a writer that, resuming, {how}): each event is written once, and a "
            f"resumed writer goes on from the log's last seq ({log_last}); the lines written "
            "again are not judged again"
        )


def copied(
    event: object,
    earlier: object,
    line: int,
    seq: int,
    prefix: Prefix,
    *,
    repeats: Repeats,
    last_commit: object,
) -> bool:
    """Whether the line at `line` and `seq`, a seq already taken, is one `Repeats.seen` takes
    for an event written again (its marker, a copy's, is not read as a commit: LOG-8)."""
    if type(event) is not dict:
        return False
    if repeats.continues(event, seq):
        return True
    if repeats.copy_reading(event, line, seq, prefix) != "not a copy":
        return True
    return _place_in_commit(
        event, seq, prefix, last_commit, end=prefix.expected_seq
    ) is not None or written_again(event, earlier, seq, prefix)


def _begins_taken_commit(event: dict[str, Any], seq: int, prefix: Prefix) -> bool:
    """Whether `event`, at `seq`, is marked the first of a commit whose seqs are all taken."""
    marker = event.get(UNIT_KEY)
    if type(marker) is not list or len(marker) != 2 or marker[0] != 1:
        return False
    size = marker[1]
    return type(size) is int and size >= 2 and seq + size <= prefix.expected_seq


def _place_in_last_commits(
    event: dict[str, Any], seq: int, prefix: Prefix, last: object, before_last: object
) -> tuple[int, int, int] | None:
    """(k, n, 0) when `event` at `seq` is event k of n of the last commit, begun with `last`
    (`_place_in_commit`); (k, n, m) when it is event k of n of the commit before it, begun with
    `before_last` and followed by the last, begun with `last` (marked its first of m) and
    ending with the log's last seq; None otherwise."""
    place = _place_in_commit(event, seq, prefix, last, end=prefix.expected_seq)
    if place is not None:
        return (*place, 0)
    if type(last) is not dict:
        return None
    begins, marker = last.get("seq"), last.get(UNIT_KEY)
    if type(begins) is not int or type(marker) is not list or len(marker) != 2:
        return None
    then = marker[1]
    if type(then) is not int or begins + then != prefix.expected_seq:
        return None
    place = _place_in_commit(event, seq, prefix, before_last, end=begins)
    return None if place is None else (*place, then)


def _place_in_commit(
    event: dict[str, Any], seq: int, prefix: Prefix, original: object, *, end: int
) -> tuple[int, int] | None:
    """(k, n) when `event` at `seq` is marked `[k, n]`, event k of the commit begun with
    `original` (marked its first of n) at the seq k - 1 before `seq` and ending before seq
    `end` (k < n when that is the log's next seq): the first of it the same as `original` (its
    time aside), a later one the reply, record or result the rules keep at `seq` when it is
    one of those; None otherwise."""
    marker = event.get(UNIT_KEY)
    if type(marker) is not list or len(marker) != 2 or type(original) is not dict:
        return None
    position, size = marker
    if type(position) is not int or type(size) is not int or not 1 <= position <= size:
        return None
    # (The last commit's last event alone is the log's last, the line before again:
    # `written_again`'s.)
    if position == size and end == prefix.expected_seq:
        return None
    first = seq - position + 1
    if first + size != end or original.get("seq") != first:
        return None
    if original.get(UNIT_KEY) != [1, size]:
        return None
    if position == 1:
        return (1, size) if _without_time(event) == _without_time(original) else None
    if event.get("type") in _KEPT_TYPES and not _kept_at(prefix, event, seq):
        return None
    return position, size


_KEPT_TYPES = frozenset({"assistant/message", "tool/call", "tool/result"})
