"""A whole log whose lines are in another order than their seqs: one LOG-1, not a cascade.

A log sorted (`sort`, by each line's text) or reversed (`tac`) after its header holds every
event once, each with its own seq, but read in line order its first event breaks LOG-1 and
every later one something else: a turn outside any turn, a second reply, a result before its
call. The first line's words were right and the rest buried them. When more than half of a
log's lines break LOG-1 (`event_lines.place_events`; a file, not a pipe), its seqs are read
again in line order (`line_seqs`); when they are 0 to n - 1, each once (`out_of_order`), the
first LOG-1 says so in one sentence and the other violations and the open turn at the end,
which that order made, are left out of the report, as a copy's lines are fed to no rule
(`repeated_lines`). A line or two swapped or moved later breaks LOG-1 on a few lines only and
keeps its own words (`event_lines`: where the seq a break skipped comes).
"""

from __future__ import annotations

from loopspec.properties.logcheck.checker import NoticeKind
from loopspec.properties.logcheck.event_lines import line_object, row_seqs

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import BinaryIO

    from loopspec.properties.logcheck.checker import LogReport


def line_seqs(stream: BinaryIO, last_line: int, size: int) -> Iterator[range]:
    """The seqs of each event line of the first `last_line` lines of `stream`, in line order:
    its seq's, or a compact chunk row's, one per item; lines that are no event (the header, no
    JSON) give none."""
    readline = stream.readline
    for _line in range(last_line):
        raw = readline(size)
        if not raw:
            return
        obj = line_object(raw)
        if obj is None:
            continue
        seq = obj.get("seq")
        if type(seq) is int:
            yield range(seq, seq + 1)
        elif seq is None and (covered := row_seqs(obj)) is not None and covered:
            yield covered


def out_of_order(lines: Iterator[range], events: int) -> str | None:
    """How the seqs of `lines` (each event line's, in line order, `line_seqs`) are ordered,
    when they are 0 to events - 1, each once, not ascending: 'in reverse order' when each
    line's seqs end where the line before it starts (`tac`, compact rows too), else 'in
    another order'; None when they are not each seq once, or are ascending."""
    seen = bytearray(events)
    ascending = descending = True
    first: range | None = None
    previous: range | None = None
    count = 0
    for seqs in lines:
        if seqs.start < 0 or seqs.stop > events or any(seen[seqs.start : seqs.stop]):
            return None
        seen[seqs.start : seqs.stop] = b"\x01" * len(seqs)
        count += len(seqs)
        if previous is None:
            first = seqs
        else:
            ascending = ascending and seqs.start == previous.stop
            descending = descending and seqs.stop == previous.start
        previous = seqs
    if count != events or ascending or first is None:
        return None
    how = "in reverse order" if descending else "in another order"
    return f"{how}, the first event line carrying seq {first.start}"


def fold_out_of_order(report: LogReport, how: str) -> None:
    """Leave the first LOG-1 of `report` alone, counted alone, saying that its lines hold every
    seq once `how` ordered, and how many other violations that order made; a turn left open at
    the end, which that order makes too, is left out, any other notice kept."""
    first = next(found for found in report.violations if found.violation.rule_id == "LOG-1")
    others = sum(report.rule_counts.values()) - 1  # (those past max_violations too)
    kept = [notice for notice in report.notices if notice.kind != NoticeKind.CRASH_TAIL]
    also = " and the turn left open at the end" if len(kept) < len(report.notices) else ""
    said = (
        f": the log's lines hold seqs 0 to {report.events - 1}, each once, {how} (sorted or "
        "reversed after they were written?): each line's seq is the one before it + 1, lines "
        f"in the order they were written; sort them by seq and check again ({others} other "
        f"violation{'' if others == 1 else 's'}{also} this order makes, not listed)"
    )
    first.violation = first.violation._replace(message=first.violation.message + said)
    report.violations[:] = [first]
    report.rule_counts = {"LOG-1": 1}
    report.facet_counts.clear()
    report.omitted_violations = 0
    report.notices[:] = kept
