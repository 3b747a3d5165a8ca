"""A whole log whose lines are in another order than their seqs: one LOG-1, not a cascade.

A log sorted (`sort`, by each line's text) or reversed (`tac`) after its header holds every
event once, each with its own seq, but read in line order its first event breaks LOG-1 and
every later one something else: a turn outside any turn, a second reply, a result before its
call. The first line's words were right and the rest buried them. When more than half of a
log's lines break LOG-1 (`event_lines.place_events`; a log that can be read again: a file, not
a pipe), its seqs are read again in line order (`line_seqs`); when they are 0 to n - 1, each
once (`out_of_order`), the first LOG-1 says so in one sentence and the other violations and
the open turn at the end, which that order made, are left out of the report, as a copy's lines
are fed to no rule (`repeated_lines`). Where the log is not read again (a pipe, or a file gone
or changed since it was read), the LOG-1s themselves, when each is listed and their seqs go
down from the last to 0, show the lines reversed (`reversed_by_its_breaks`). A line or two
swapped or moved later breaks LOG-1 on a few lines only and keeps its own words
(`event_lines`: where the seq a break skipped comes).
"""

from __future__ import annotations

from itertools import pairwise

from loopspec.properties.logcheck.checker import MAX_MESSAGE_CHARS, NoticeKind, shorten
from loopspec.properties.logcheck.event_lines import line_object, row_seqs

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Iterator
    from re import Pattern
    from typing import BinaryIO

    from loopspec.properties.logcheck.checker import FoundViolation, LogReport, Notice


def line_seqs(stream: BinaryIO, last_line: int, size: int) -> Iterator[tuple[int, int]]:
    """The seqs of each event line of the first `last_line` lines of `stream`, in line order,
    as (first, past the last): its seq's, or a compact chunk row's, one per item; lines that
    are no event (the header, no JSON) give none. A line's seq is read off its bytes where
    that is sure (`_ENVELOPE_SEQ`), else the line is parsed: parsing every line cost about as
    much as a json.loads pass (a reversed log of 20,000 model events, with `out_of_order`:
    622M instructions, 242M so and with ints for ranges)."""
    match = _envelope_seq().match
    readline = stream.readline
    for _line in range(last_line):
        raw = readline(size)
        if not raw:
            return
        found = match(raw)
        # (no second member `seq`, which json would read instead, at any depth)
        if found is not None and raw.find(b'"seq"', found.end()) < 0:
            written = int(found[1])
            yield written, written + 1
            continue
        obj = line_object(raw)
        if obj is None:
            continue
        seq = obj.get("seq")
        if type(seq) is int:
            yield seq, seq + 1
        elif seq is None and (covered := row_seqs(obj)) is not None and covered:
            yield covered.start, covered.stop


_ENVELOPE_SEQ = (
    rb'\{[ \t\r\n]*"type"[ \t\r\n]*:[ \t\r\n]*"[^"\\]*"[ \t\r\n]*,'
    rb'[ \t\r\n]*"seq"[ \t\r\n]*:[ \t\r\n]*(0|[1-9][0-9]*)[ \t\r\n]*[,}]'
)
"""The start of an event line as dsh and json.dumps write one: an object whose first member
is its type (a string without escapes) and second its seq, a whole number 0 or more."""


def _envelope_seq() -> Pattern[bytes]:
    """`_ENVELOPE_SEQ` compiled (re imported here: a log in order is checked without it)."""
    import re  # noqa: PLC0415

    return re.compile(_ENVELOPE_SEQ)


def out_of_order(lines: Iterator[tuple[int, int]], events: int) -> str | None:
    """How the seqs of `lines` (each event line's, in line order, `line_seqs`) are ordered,
    when they are 0 to events - 1, each once, not ascending: `REVERSED` when each line's seqs
    end where the line before it starts (`tac`, compact rows too), else `REORDERED`; None
    when they are not each seq once, or are ascending."""
    seen = bytearray(events)
    ascending = descending = True
    # The seqs of the line before (the first line: its own, which neither test then fails).
    before_start = before_stop = -1
    count = 0
    for start, stop in lines:
        if start < 0 or stop > events:
            return None
        if stop - start == 1:  # (nearly every line: one event)
            if seen[start]:
                return None
            seen[start] = 1
        else:
            if seen.find(1, start, stop) >= 0:
                return None
            seen[start:stop] = b"\x01" * (stop - start)
        if count:
            ascending = ascending and start == before_stop
            descending = descending and stop == before_start
        count += stop - start
        before_start, before_stop = start, stop
    if count != events or ascending:
        return None
    return REVERSED if descending else REORDERED


REVERSED = "in reverse order"
REORDERED = "in another order"
"""`out_of_order`'s answers."""
REVERSED_AS_BROKEN = "in reverse order by its breaks"
"""`reversed_by_its_breaks`' answer, for a log not read again (a pipe, or a file gone or
changed since it was read)."""
# What each answer's words guess was done to the lines.
_DONE_BY = {
    REVERSED: "reversed, by tac?",
    REORDERED: "sorted or shuffled?",
    REVERSED_AS_BROKEN: "reversed, by tac?",
}


def reversed_by_its_breaks(report: LogReport) -> bool:
    """Whether the LOG-1s of `report`, a log not read again (a pipe, or a file gone or changed
    since it was read: its order is not read), each listed, show its lines reversed: their
    seqs, in line order, go down from the last seq to 0. Each line of a reversed log breaks
    LOG-1; lines swapped or moved break it on a few lines, out of this order."""
    seqs = [
        found.violation.seq for found in report.violations if found.violation.rule_id == "LOG-1"
    ]
    return (
        len(seqs) > 1
        and report.rule_counts.get("LOG-1") == len(seqs)
        and seqs[0] == report.events - 1
        and seqs[-1] == 0
        and all(later < earlier for earlier, later in pairwise(seqs))
    )


SORTED_BY_SEQ = "jq -cs 'sort_by(.seq // .seq0 // -1)[]' FILE > sorted.jsonl"
"""A command putting a log's lines back in seq order, its header (no seq) first, a compact
row at its first seq."""


def fold_out_of_order(report: LogReport, how: str) -> None:
    """Leave the first LOG-1 of `report` alone, counted alone, saying that its lines hold every
    seq once `how` ordered, and how many other violations that order made; a turn or commit
    left open at the end, which that order makes too, is left out, any other notice kept. The
    first LOG-1 is the first line's, listed or left out in a broken commit's hole (a
    version-1 log's commits break first: `LogReport.first_unlisted_break`)."""
    listed = _first_listed_break(report)
    unlisted = report.first_unlisted_break
    if listed is None or (unlisted is not None and unlisted.line < listed.line):
        if unlisted is None:  # (every break past max_violations: the report left as it is)
            return
        first = unlisted
    else:
        first = listed
    # (those past max_violations and in broken commits' holes too; the first is no other)
    others = (
        sum(report.rule_counts.values())
        - (first is listed)
        + report.unlisted_breaks
        - (first is unlisted)
    )
    kept = [notice for notice in report.notices if not _made_by_the_order(notice)]
    left_open = {notice.kind for notice in report.notices} - {notice.kind for notice in kept}
    also = {
        frozenset(): "",
        frozenset({NoticeKind.CRASH_TAIL}): " and the turn left open at the end",
        frozenset({NoticeKind.TORN_COMMIT}): " and the commit left open at the end",
    }.get(frozenset(left_open), " and the turn and commit left open at the end")
    held = (
        f"go from seq {report.events - 1} down to 0"  # (a pipe's: each seq once is not known)
        if how == REVERSED_AS_BROKEN
        else f"hold seqs 0 to {report.events - 1}, each once, {how}"
    )
    said = (
        f": the log's lines {held} ({_DONE_BY[how]}); a log's lines come in the order written, "
        f"each seq the one before it + 1: put them back with {SORTED_BY_SEQ} and check "
        f"sorted.jsonl ({others} other violation{'' if others == 1 else 's'}{also} this order "
        "makes, not listed)"
    )
    violation, skipped = first.violation, first.skipped
    # (a gap's words alone: not the header counted as seq 0, which the first line may seem)
    head = (
        violation.message if skipped is None else f"seq {violation.seq} where {skipped[0]} was due"
    )
    first.violation = violation._replace(message=shorten(head + said))
    first.skipped = None  # (its gap is the order's: not looked for)
    report.violations[:] = [first]
    report.rule_counts = {"LOG-1": 1}
    report.facet_counts.clear()
    report.omitted_violations = 0
    report.unlisted_breaks = 0
    report.first_unlisted_break = None
    report.notices[:] = kept


def _made_by_the_order(notice: Notice) -> bool:
    """Whether `notice` is one a log's lines in another order make: the turn left open at the
    end, or the commit its last line opened (a version-1 log; not a last line cut short, which
    names no seq)."""
    return notice.kind == NoticeKind.CRASH_TAIL or (
        notice.kind == NoticeKind.TORN_COMMIT and notice.seq is not None
    )


def say_order_unread(report: LogReport, *, piped: bool) -> None:
    """Add to the first LOG-1 of `report`, a log not read again more than half of whose lines
    break LOG-1, that a log sorted or reversed does so, and why its order is not looked at:
    `piped`, a pipe cannot be read twice (a file can); else the file could not be opened again."""
    first = _first_listed_break(report)
    if first is None:
        return
    why = (
        "read from a pipe, which cannot be read twice, their order is not looked at; check the "
        "log saved to a file"
        if piped
        else "the log could not be read again (gone or changed since it was read), their order "
        "is not looked at; check it again"
    )
    said = (
        "; more than half the log's lines break LOG-1, as a log's lines sorted or reversed "
        f"after they were written do: {why} to learn whether it is that"
    )
    message = first.violation.message
    if len(message + said) > MAX_MESSAGE_CHARS:  # (its first words kept: `seq 9 where 7 was due`)
        message = message.split(":", 1)[0]
    first.violation = first.violation._replace(message=shorten(message + said))


def _first_listed_break(report: LogReport) -> FoundViolation | None:
    """The first LOG-1 `report` lists (None: each left out in a broken commit's hole, or past
    max_violations)."""
    return next((found for found in report.violations if found.violation.rule_id == "LOG-1"), None)
