"""A whole log whose lines are in another order than their seqs: one LOG-1, not a cascade.

A log sorted (`sort`, by each line's text) or reversed (`tac`) after its header holds every
event once, each with its own seq, but read in line order its first event breaks LOG-1 and
every later one something else: a turn outside any turn, a second reply, a result before its
call. The first line's words were right and the rest buried them. When a log with several
LOG-1 violations is read again (`event_lines.place_events`, a file, not a pipe), its seqs are
read in line order (`line_seqs`); when they are 0 to n - 1, each once (`out_of_order`), the
first LOG-1 says so in one sentence and the other violations and notices, which that order
made, are left out of the report, as a copy's lines are fed to no rule (`repeated_lines`).
"""

from __future__ import annotations

from loopspec.properties.logcheck.compact_rows import COUNT_FIELDS
from loopspec.properties.logcheck.event_lines import line_object

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import BinaryIO

    from loopspec.properties.logcheck.checker import LogReport

ORDER_LOOKED_AT = 3
"""The LOG-1 violations a log has before its lines' order is looked at (a line or two moved
keeps its own words: `event_lines` says where the seq it skipped comes)."""


def line_seqs(stream: BinaryIO, last_line: int, size: int) -> Iterator[int]:
    """The seq of each event of the first `last_line` lines of `stream`, in line order (a
    compact chunk row's, one per item); lines that are no event (the header, no JSON) give none."""
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
            yield seq
        elif seq is None and type(seq0 := obj.get("seq0")) is int:
            data, kind = obj.get("data"), obj.get("type")
            field = COUNT_FIELDS.get(kind) if type(kind) is str else None
            items = data.get(field) if field is not None and type(data) is dict else None
            if type(items) is list:
                yield from range(seq0, seq0 + len(items))


def out_of_order(seqs: Iterator[int], events: int) -> str | None:
    """How the `events` seqs read in line order are ordered, when they are 0 to events - 1,
    each once, not ascending: 'in reverse order' or 'in another order'; else None."""
    seen = bytearray(events)
    ascending = descending = True
    first = previous = None
    count = 0
    for seq in seqs:
        if not 0 <= seq < events or seen[seq]:
            return None
        seen[seq] = 1
        count += 1
        if previous is None:
            first = seq
        else:
            ascending = ascending and seq == previous + 1
            descending = descending and seq == previous - 1
        previous = seq
    if count != events or ascending or first is None:
        return None
    how = "in reverse order" if descending else "in another order"
    return f"{how}, the first event line carrying seq {first}"


def fold_out_of_order(report: LogReport, how: str) -> None:
    """Leave the first LOG-1 of `report` alone, counted alone, saying that its lines hold every
    seq once `how` ordered, and how many other violations that order made."""
    first = next(found for found in report.violations if found.violation.rule_id == "LOG-1")
    others = sum(report.rule_counts.values()) - 1  # (those past max_violations too)
    notices = len(report.notices)  # (a turn left open at the end, the order's too)
    also = f" and {notices} notice{'' if notices == 1 else 's'}" if notices else ""
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
    report.notices.clear()
