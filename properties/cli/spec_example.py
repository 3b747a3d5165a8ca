"""`loopspec spec RULE --example`: a rule learnt by example, from a log that keeps it and one that
breaks it.

The two logs are made at run time by the reference model (`logcheck.rule_examples`): its demo
session, and the same with the one edit that breaks RULE. Printed are the few lines around the
edit as each log has them (the edited lines marked), and what `loopspec check` says of the
breaking log, found by running the checker on it. `--log` writes the whole breaking log instead,
for `loopspec check` or an editor. Imported only for `--example`: it runs the model, which
`loopspec spec RULE` has no use for.
"""

from __future__ import annotations

import difflib
import io
import json

from loopspec.properties.logcheck.checker import check_stream
from loopspec.properties.logcheck.report import log_text_lines
from loopspec.properties.logcheck.rule_examples import (
    MARKED_RULE_BREAKERS,
    RULE_BREAKERS,
    edited_rows,
    example_header,
    keeping_rows,
    number,
)
from loopspec.properties.logcheck.synth import Row, jsonl

CONTEXT = 1
"""Unchanged lines shown on each side of what the edit changed and of the events check's
finding names."""
SHOWN_AT_MOST = 12
"""Lines of one excerpt past which its middle is left out (an edit that renumbers every later
turn changes dozens of lines the same way)."""
_FIRST_EVENT_LINE = 2  # line 1 is the header


def example_file_name(rule: str) -> str:
    """The file name the example suggests for the breaking log: `rw-1.jsonl`."""
    return f"{rule.lower()}.jsonl"


def example_text(rule: str) -> str:
    """RULE explained by its example: the edit, both logs' lines around it, check's finding."""
    keeping = keeping_rows(rule)
    header = example_header(rule)
    edited = edited_rows(rule)
    breaking = number(rule, edited)
    pairs, keep_changed, break_changed, removed = _alignment(keeping, edited, breaking)
    name = example_file_name(rule)
    report = check_stream(name, io.BytesIO(jsonl(header, breaking).encode()))
    findings = log_text_lines(report)
    # The rows the finding rests on, which the excerpt shows with the edit: the line blamed and
    # the events its verdict cites (the reply a call record contradicts, say).
    index_of_seq = {row["seq"]: index for index, row in enumerate(breaking)}
    cited = {index_of_seq[seq] for found in report.violations for seq in found.events}
    blamed = {found.line - _FIRST_EVENT_LINE for found in report.violations if found.line}
    near_removed = {i for at in removed for i in (at - 1, at) if 0 <= i < len(breaking)}
    shown = break_changed | near_removed | cited | blamed
    shown |= {pairs[index] for index in keep_changed if index in pairs}
    break_window = _window(shown, len(breaking))
    keep_shown = {index for index, paired in pairs.items() if paired in break_window}
    keep_window = _window(keep_shown | keep_changed, len(keeping), context=0)
    keep_lines = jsonl(header, keeping).split("\n")
    break_lines = jsonl(header, breaking).split("\n")
    breaker = RULE_BREAKERS.get(rule) or MARKED_RULE_BREAKERS[rule]
    what = " ".join((breaker.__doc__ or "").split())
    written = (
        ", logged as `loopspec run` writes it (version 1: a commit's events marked `unit`),"
        if rule in MARKED_RULE_BREAKERS
        else ""
    )
    return "\n".join(
        [
            f"{rule} by example: the reference model's demo session (`loopspec demo` runs it)"
            f"{written} is a log of {len(keep_lines) - 1} lines that keeps every rule; one edit "
            f"breaks {rule}: {what[0].lower()}{what[1:]}",
            "",
            f"the log keeping {rule} ('>' marks what the edit changes"
            + (", '-' where it removed a line" if removed else "")
            + "):",
            *_excerpt(keep_lines, keep_window, keep_changed),
            "",
            f"the log breaking {rule}:",
            *_excerpt(break_lines, break_window, break_changed, removed),
            "",
            f"`loopspec check {name}` finds:",
            *(f"  {line}" for line in findings),
            "",
            f"the whole breaking log: loopspec spec {rule} --example --log > {name}",
        ]
    )


def _alignment(
    keeping: list[Row], edited: list[Row], breaking: list[Row]
) -> tuple[dict[int, int], set[int], set[int], dict[int, list[int]]]:
    """Which rows the edit left alone, keeping index -> breaking index; the rows it changed, in
    the keeping log and in the breaking one; and where it removed rows, breaking index (of the
    row after them) -> the keeping rows removed (a row it moved is changed, not removed). Rows
    are matched before the breaking log is numbered, so the seqs an inserted or removed row
    shifts do not count as changes."""

    def key(row: Row) -> str:
        return json.dumps(row, sort_keys=True)

    keep_keys, edited_keys = [key(row) for row in keeping], [key(row) for row in edited]
    matcher = difflib.SequenceMatcher(None, keep_keys, edited_keys, autojunk=False)
    pairs: dict[int, int] = {}
    keep_changed: set[int] = set()
    break_changed: set[int] = set()
    removed: dict[int, list[int]] = {}
    moved_in: list[str] = []  # the rows the edit put somewhere: one it took away may be one
    for tag, k1, k2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            pairs.update(zip(range(k1, k2), range(b1, b2), strict=True))
        else:
            keep_changed.update(range(k1, k2))
            break_changed.update(range(b1, b2))
            moved_in += edited_keys[b1:b2]
            if b1 == b2:
                removed[b1] = list(range(k1, k2))
    for at, rows in list(removed.items()):
        gone: list[int] = []
        for k in rows:
            if keep_keys[k] in moved_in:
                moved_in.remove(keep_keys[k])
            else:
                gone.append(k)
        if gone:
            removed[at] = gone
        else:
            del removed[at]
    # An edit of a seq itself (LOG-1) is made after numbering: a row numbered off its place.
    for k, b in pairs.items():
        if breaking[b]["seq"] != b:
            keep_changed.add(k)
            break_changed.add(b)
    return pairs, keep_changed, break_changed, removed


def _window(indices: set[int], rows: int, context: int = CONTEXT) -> range:
    """The rows from the first of `indices` to the last, `context` more each side."""
    if not indices:
        return range(0)
    return range(max(0, min(indices) - context), min(rows, max(indices) + 1 + context))


def _excerpt(
    lines: list[str],
    window: range,
    changed: set[int],
    removed: dict[int, list[int]] | None = None,
) -> list[str]:
    """A log's rows in `window` (its middle left out when long), each with its line number,
    changed ones marked, and where the edit `removed` rows of the other log, a line saying
    which; `lines` are the log file's, its header first."""
    indices: list[int | None] = list(window)
    if len(window) > SHOWN_AT_MOST:
        half = SHOWN_AT_MOST // 2
        indices = [*window[:half], None, *window[-half:]]
    width = len(str(window.stop + 1))
    shown: list[str] = []
    for index in indices:
        if index is None:
            left_out = len(window) - 2 * (SHOWN_AT_MOST // 2)
            shown.append(f"  {'':>{width}}  ... {left_out} lines left out")
            continue
        if removed and index in removed:
            shown.append(_removal(removed[index], width))
        mark = ">" if index in changed else " "
        shown.append(f"{mark} {index + _FIRST_EVENT_LINE:>{width}}  {lines[index + 1]}")
    if removed and window and window.stop in removed:
        shown.append(_removal(removed[window.stop], width))
    return shown


def _removal(rows: list[int], width: int) -> str:
    numbers = [str(row + _FIRST_EVENT_LINE) for row in rows]
    which = f"line {numbers[0]}" if len(numbers) == 1 else f"lines {', '.join(numbers)}"
    return f"- {'':>{width}}  (the edit removed the keeping log's {which} here)"


NAMED_ON_UNREADABLE_LINES = (
    "LOG-3",
    "LOG-4",
    "LOG-5",
    "LOG-6",
    "TURN-5",
    "HOOK-7",
    "REC-2",
    "SAFE-4",
)
"""Rules with no example log that `loopspec check` still names: in an input error (a line it
cannot read as the rule says, or past its bound) or a notice (a hook's fault, a turn left open),
as SPEC.md section 2 says."""


FOUND_ONLY_IN_ACP_RECORDINGS = ("ACP-1", "ACP-2")
"""Rules with no example log that `loopspec check` reports as violations in an ACP recording
(what an editor and an ACP agent sent each other, SPEC.md section 2), which is no loop's log."""


SHOWN_ONLY_IN_HARNESS_LOGS: dict[str, str] = {}
"""Rules with no example log (the reference model writes dsh's layout) that `loopspec check`
still reports as violations, in part, in the kind of log named (`IN_PART_RULES`; a test holds
the two equal)."""


def no_example_line(rule: str) -> str:
    """Why RULE has no example log, and which verb judges it (SPEC.md section 2)."""
    family = rule.partition("-")[0]
    if family in ("SAFE", "MODEL"):
        held = "loopspec itself" if family == "SAFE" else "the reference model itself"
        named = (
            "; `loopspec check` names it in an input error, on a log line past its bound"
            if rule in NAMED_ON_UNREADABLE_LINES
            else ""
        )
        return (
            f"{rule} has no example log: it holds {held}, not a loop; its Where. "
            f"(`loopspec spec {rule}`) names the tests that carry it{named}"
        )
    if rule in FOUND_ONLY_IN_ACP_RECORDINGS:
        found = (
            "`loopspec check` finds it only in an ACP recording (the messages an editor and an "
            "ACP agent sent each other, as `loopspec check --help` says), not in a loop's log"
        )
    elif rule in SHOWN_ONLY_IN_HARNESS_LOGS:
        found = (
            f"`loopspec check` finds it, in part, only in {SHOWN_ONLY_IN_HARNESS_LOGS[rule]} "
            "(`loopspec check --help` says what it reads there), never in a dsh log"
        )
    elif rule in NAMED_ON_UNREADABLE_LINES:
        found = (
            "`loopspec check` finds no violation of it in a log, only an input error or a notice "
            "naming it"
        )
    else:
        found = "`loopspec check` finds no violation of it in a log"
    return (
        f"{rule} has no example log: {found}; "
        "`loopspec conform` judges it on a live loop (SPEC.md section 2, 'Which rules a "
        "recorded log shows')"
    )
