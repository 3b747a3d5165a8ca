"""What `loopspec check` prints: text for people, one JSON object for CI, and the exit code.

Exit code: 2 when any log had an input error (unreadable, not JSON, torn, not covered, ...),
else 1 when any log breaks a rule (but for the known divergences `check --known` sets aside,
`logcheck.known_divergences`) or, under `--fail-on-hook-faults`, has a hook-fault notice, else
0. Notices (a crash tail, a torn last line, a hook fault)
never change it, nor do skipped files: a file found under a directory argument that is a known
file of a CLI's home folder holding no loop (Claude Code's or Codex's prompt history, Codex's
session index: `logcheck.home_files`) is skipped with a line saying what it is, and counted.
A directory whose every file was skipped is an input error (unreadable: no session log under
it), as one holding no log file at all is.

Text output: one line per finding, `PATH:LINE: ...`, log by log, then a summary line (a
cascade of violations one missing event explains is one finding, its first violation's line
naming the others' seqs: `fold_cascades`; `-v` lists each). A log's
lines come in this order: the input error that stopped its check, if one did (and the line
saying the rest was not checked); then its violations and the errors that stopped nothing (a
header's, read past, or one on the last line), by line; then what was set aside (known
divergences) and its notices, each by line:

    a.jsonl:1: error bad-header LOG-5: session.createdAt must be a number
    a.jsonl:57: ADJ-1 (seq 56): user/message lands while call c1 awaits its result; hold it ...
    b.jsonl:40: error torn-tail LOG-8: the last line stops short (97 bytes, no newline): ...
    b.jsonl:31: notice crash-tail REC-2: turn 3 is still open at the end of the log: ...
    c.jsonl:12: error bad-event LOG-6: tool/result: tool result block cites 'zz' but ...
    c.jsonl: not checked past line 12: fix that line and check again to judge the rest
    c.jsonl:9: ORD-2 (seq 8): result for c2 does not cite its tool/call seq 6 in ...
    d.jsonl:8: notice hook-fault HOOK-7: hook claude-code:PreToolUse:2 failed in all 3 of ...
    home/.codex/history.jsonl: skipped codex-prompt-history: Codex's prompt history (...): ...
    checked 4 logs, 1,214 events: 2 violations (ADJ-1: 1, ORD-2: 1); 3 errors (bad-event: 1,
    bad-header: 1, torn-tail: 1); 2 notices (...); skipped 1 file, no session log
    (codex-prompt-history: 1)

An input error stops the check of its log at that line (every rule judged the lines before it
only); unless it is a torn tail (the last line) or an unsupported layout (not checked at all),
the text says so in a line of its own, since the summary counts no violation past it. A header
with a wrong value, or none, is an error the check reads past (the events are judged): no such
line.

JSON output (`--format json`): exactly one object per run. Keys are stable within a `format`;
new keys may be added (a consumer ignores a key it does not know), none are renamed, removed or
given another meaning without changing `format`; every key the output can hold is below, in the
order written, with what it means. The example and the JSON Schema, `loopspec schema check`, are
made from the definition the document is written from (`logcheck.check_document`: each key's
meaning is written there once; `logcheck.check_example` prints the example), and the schema
lists each object's keys in the same order, every object closed to keys it does not name.

    {
      "format": "loopspec-check/1",               // this document's format
      "logs": [                                   // one per log, in the order checked
        {
          "path": "logs/a.jsonl",                 // as named on the command line; "-" is stdin
          "status": "violations",                 // how the check went ("known-divergences": only
                                                  // known ones): "ok" | "violations" | "error" |
                                                  // "unsupported" | "known-divergences"
          "header_version": 0,                    // the session header's version; null when there
                                                  // is no readable header
          "lines": 76,                            // lines read, header included
          "events": 137,                          // events checked (compact rows expanded)
          "violations": [                         // at most --max-violations of them, by line
            {
              "line": 57,                         // line of the event (or compact row)
              "seq": 56,                          // seq of the offending event (a transcript's or
                                                  // rollout's: its line)
              "rule": "ADJ-1",                    // the rule broken (SPEC.md)
              "message": "...",                   // one sentence, at most 400 characters
              "events": [56, 52],                 // seqs involved, the offending one first
              "event_lines": [57, 53],            // the line of each of events: null where not
                                                  // known (read from stdin or a pipe, only the
                                                  // first is)
              "not_known": "not the known divergence: codex's is ..."
                                                  // only where --known named a loop whose list
                                                  // holds the rule but this violation is not its
                                                  // known divergence of it: why it was not set
                                                  // aside ("not the known divergence: ...")
            }
          ],
          "violations_omitted": 0,                // found beyond --max-violations, not listed
          "errors": [                             // input errors
            {
              "line": 40,                         // null: no line to blame
              "kind": "torn-tail",                // the kind of error (python -m pydoc ...report)
              "rule": "LOG-8",                    // the rule the log breaks, or null
              "message": "..."                    // what is wrong
            }
          ],
          "notices": [                            // notices
            {
              "line": 31,                         // null: no line to name
              "seq": 30,                          // the event it is about, or null
              "kind": "crash-tail",               // the kind of notice
              "rule": "REC-2",                    // the rule it concerns, or null
              "message": "..."                    // what happened
            }
          ],
          "unread_event_types": {"agent/inbox/spliced": 2},
                                                  // event types no rule reads the data of: how many
          "dialect": "dsh",                       // whose log: "dsh" | "claude-code" | "codex" |
                                                  // "acp"
          "rules_checked": ["ABORT-2", "ADJ-1"],  // every rule a violation could name here
          "rules_not_checkable": {},              // rule -> why this dialect (or this log: hooks
                                                  // that name no call) cannot show it
          "rules_checked_in_part": {},            // rule -> why this log shows only part of it
          "known_divergences": [                  // only when the run named --known: the violations
                                                  // set aside
            {
              ...                                 // a violation's keys but not_known, then
              "known_by": "claude-code"           // whose known divergence: the loop's, or a rule
                                                  // --known named: "claude-code" | "codex" | "dsh"
                                                  // | "--known"
            }
          ],
          "known_divergences_omitted": 0,         // only when the run named --known: known
                                                  // divergences beyond --max-violations
          "known_rules": {"RW-1": "claude-code"}  // only when the run named --known: every rule
                                                  // known in this log, and whose
        }
      ],
      "skipped": [                                // only when a file found in a directory was
                                                  // skipped, not checked
        {
          "path": "home/.claude/history.jsonl",   // the file
          "kind": "claude-code-prompt-history",   // what it is (logcheck.home_files)
          "message": "Claude Code's prompt history (...): not a session log, ..."
                                                  // what it is, in words
        }
      ],
      "summary": {                                // the run's totals
        "logs": 2,                                // logs checked (a folder named with no log under
                                                  // it is not, nor a path where nothing is: each is
                                                  // in the document's logs for its error only)
        "events": 1204,                           // events checked
        "violations": 1,                          // all found, listed or omitted
        "violations_by_rule": {"ADJ-1": 1},       // sorted by rule ID
        "errors": 1,                              // input errors
        "errors_by_kind": {"torn-tail": 1},       // sorted by kind
        "notices": 1,                             // notices
        "notices_by_kind": {"crash-tail": 1},     // sorted by kind
        "logs_by_status": {"error": 1, "violations": 1},
                                                  // logs checked by status
        "exit_code": 2,                           // the run's exit code: 0 | 1 | 2
        "strict_known": true,                     // only under --strict-known: a rule in
                                                  // did_not_occur makes exit_code at least 1 (one
                                                  // in race_not_lost does not)
        "hook_faults_fail": true,                 // only under --fail-on-hook-faults: a hook-fault
                                                  // notice makes exit_code at least 1
        "known_divergences": 0,                   // only when the run named --known: violations set
                                                  // aside
        "known_divergences_by_rule": {},          // only when the run named --known: by rule
        "known_divergence_hints": {"claude-code": {"RW-1": 1}},
                                                  // only without --known, when a loop's own logs
                                                  // break rules in the shape of its known
                                                  // divergences: per loop, per rule, the violations
                                                  // --known LOOP would set aside (the text's 'known
                                                  // divergences of LOOP among these' line)
        "known_lists": {                          // only when --known named a loop: per loop, the
                                                  // rules check judges in its logs
          "claude-code": {
            "logs": 2,                            // its logs checked
            "occurred": ["RW-1"],                 // broken in one of them at least
            "did_not_occur": {                    // never broken, its situation seen so often
                                                  // (harness_logs.SITUATIONS)
              "HOOK-7": {
                "situations": 3,                  // times it came up
                "logs": 2                         // in so many logs
              }
            },
            "race_not_lost": {                    // the same for a racy one, which shows only where
                                                  // the loop loses a race
              "ORD-3": {
                "situations": 3,                  // times it came up
                "logs": 2                         // in so many logs
              }
            },
            "not_exercised": ["EXE-1", "REC-1"]   // situation never seen (or never visible)
          }
        },
        "skipped": 1,                             // only when a file was skipped: files skipped
        "skipped_by_kind": {"claude-code-prompt-history": 1}
                                                  // only when a file was skipped: by kind
      }
    }

A Claude Code transcript or a Codex rollout (see `loopspec.properties.logcheck.harness_logs`)
is read as its own dialect: `header_version` is null, `seq` and `events` are line numbers (those
logs have no seq; `event_lines` is `events` again), and `rules_not_checkable` lists, of the rules
a dsh log is checked by, every one such a log cannot show; the text output gives the related
lines (no seq) and says what is not checkable once per format, after every log's findings (one
line naming the log when a single log has that format, else how many logs). A rule not
checkable is never counted as kept. An ACP recording (`logcheck.acp_stream`, dialect "acp") is
read so too.

One bug, one violation: an event whose only fault follows from a violation already reported
is not blamed again on another rule (the events of a turn numbered otherwise than due, a result
in the wrong step, the records and results of a reply that repeats a call id, a hook's answer
naming another call than its invocation). A violation true of every prefix up to a later event
that explains it stays, and the later violation's `events` name its event: a result appended in
a later turn than its call's lists the turn/end where its absence was blamed on ADJ-3.

What a log was judged by: `rules_checked` lists the rules a violation could name in it — on a
dsh log every rule a log invariant carries (SPEC.md section 7), and LOG-8 when the log marks
its commits (header version 1, the logs `loopspec run` writes: `logcheck.commit_units`; a
version 0 log may commit event by event and is not held to it), on a transcript or rollout those
its dialect can show; none on an "unsupported" log. A log with status "ok" kept exactly these;
on one with an "error", these judged the lines before it. Input errors and notices name the
rules below besides. A rule in neither list — what ran, in which order bodies started, the
exact wording of results, how a reply ends, what the UI showed (SCHED-1, TEXT-1, STEP-4,
VIEW-2, ...) — is not judged by `check` at all, never counted as kept: `loopspec
conform` judges it (SPEC.md section 2).

Error kinds, with the rule a session log breaks where one applies: unreadable (no rule; SAFE-4
for a device named, refused unread), empty (LOG-5),
binary (LOG-8 for a line that ends in zero bytes, the gap a crash leaves when a file's length
reached the disk before its data, with more lines after it; as a log's last line it is a
torn-commit notice), invalid-utf8 (LOG-4, LOG-5 on the first line), invalid-json (LOG-4;
SAFE-4 past the nesting bound; LOG-8 for a line that stops before its JSON value ends, a write
cut off with more appended after it, on the next line or right after it on the same one; a
byte order mark LOG-5 on the first line, LOG-4 after it; none for a JSON document, a wrong
file),
blank-line (LOG-4, LOG-5 on the first line: a blank line with other lines after it, which no
reader skips; blank lines that end a log are skipped, no error; invalid-json before
loopspec-check/1 gained this kind),
torn-tail (LOG-8; only of a log without a session header: a headed log's torn last line is its
torn-commit notice, as is a torn line anywhere in a Claude Code transcript or Codex rollout),
line-too-long (SAFE-4),
bad-event (LOG-4, or the rule that says what the value must be: a second header LOG-5, a tool
result's block LOG-6, a turn/end reason TURN-5, a hook's dialect or duration HOOK-1, a rewrite
sidecar naming no hook RW-2),
bad-header (LOG-5; LOG-3 for a value JSON cannot carry), unsupported-layout (the June-2026 dsh
layout, no rule; a header version check does not read, LOG-5), not-a-session-log
(a file named on the command line that is a known file of a CLI's home folder holding no loop,
such as Claude Code's or Codex's prompt history; no rule). A Claude Code
transcript or Codex rollout names SAFE-4 for a line too long and no rule for the others.
Notice kinds: crash-tail (REC-2), torn-commit (LOG-8: the last commit of a version-1 log stops
before its last event, or a log's last line is cut off mid-write or is zero bytes, a crash's
cut the harness drops whole on reopening; checked up to the line before it; in a Claude Code
transcript or Codex rollout, such a line anywhere, which the CLI skips, and so does check),
hook-fault (HOOK-7: one per hook whose own output or process went wrong,
with how many of its runs failed and the first fault, worded as `loopspec run` words it: the
loop handled the fault as its dialect says, so no rule is broken, but the
hook's answer was not read; `logcheck.hook_faults`), repeated-record (no rule: a Claude Code
transcript's record written again whole, `uuid` and every byte, which Claude Code reads once on
resuming, and so does check; one per log, naming each such line), rewritten-record (LOG-3: a
record given an earlier record's `uuid` with other content, judged as it stands, which Claude
Code sends on resuming in place of what the model was sent; one per log), time-in-seconds
(LOG-4: a log's first event timed in seconds since the Unix epoch, `int(time.time())`, where its
time counts milliseconds, or its last event where the first counts milliseconds, or LOG-5: its
header's createdAt so, the first event's named with it; no rule check judges compares a time
with a clock; one per log), misspelt-type (LOG-4: the first event of a type no rule reads that
is one edit from a type they read, `tool/cal`: read as a plugin's event, it leaves the log
without the event its writer meant).
"""

from __future__ import annotations

from loopspec.model.json_text import json_dumps
from loopspec.properties.logcheck import INVARIANT_RULES
from loopspec.properties.logcheck.checker import (
    ACP_DIALECT,
    DSH_DIALECT,
    ErrorKind,
    FoundViolation,
    InputError,
    LogReport,
    NoticeKind,
)

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence  # (at run time, see `checker`)
    from typing import TextIO

    from loopspec.properties.logcheck.known_divergences import LoopFates

FORMAT = "loopspec-check/1"
EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_BAD_INPUT = 2


def exit_code(reports: Iterable[LogReport], *, hook_faults_fail: bool = False) -> int:
    """2 if any input error, else 1 if any violation (known divergences set aside, not counted)
    or, with `hook_faults_fail` (`check --fail-on-hook-faults`), any hook-fault notice, else 0."""
    code = EXIT_OK
    for report in reports:
        if report.errors:
            return EXIT_BAD_INPUT
        if report.rule_counts or (hook_faults_fail and _hook_faults(report)):
            code = EXIT_VIOLATIONS
    return code


def _hook_faults(report: LogReport) -> int:
    return sum(1 for notice in report.notices if notice.kind == NoticeKind.HOOK_FAULT)


# ---------------------------------------------------------------------------------------------
# JSON (written by `logcheck.check_document`) and the summary both outputs give.


def rules_checked(report: LogReport) -> list[str]:
    """The rules a violation in this log could name, sorted: every rule a log invariant carries,
    less those the log's dialect cannot show, plus those it shows in part, and LOG-8 when its
    commit markers were read; none for a layout the rules do not cover, nor for a folder named
    with no log under it."""
    if report.status == "unsupported" or report.no_log:
        return []
    rules = (set(INVARIANT_RULES) - set(report.not_checkable)) | set(report.checked_in_part)
    if report.commits_checked:
        rules.add("LOG-8")
    return sorted(rules)


def event_lines(report: LogReport, found: FoundViolation) -> list[int | None]:
    """The line of each of `found.events` (None: not known). A Claude Code transcript's or
    Codex rollout's events are lines already; a dsh log's were found after the check
    (`logcheck.event_lines`), but for a log read from standard input, where only the offending
    event's is known."""
    if report.dialect != DSH_DIALECT:
        return list(found.events)
    if found.event_lines is not None:
        return list(found.event_lines)
    return [found.line, *(None for _seq in found.events[1:])]


def _checked(reports: Sequence[LogReport]) -> list[LogReport]:
    return [report for report in reports if report.skipped is None]


def _sums(counts: Iterable[tuple[str, int]]) -> dict[str, int]:
    """The sums of `counts` (kind, how many) by kind, sorted by kind: a `Counter` without
    collections, which the text report would import for it (see `checker`)."""
    sums: dict[str, int] = {}
    for kind, count in counts:
        sums[kind] = sums.get(kind, 0) + count
    return dict(sorted(sums.items()))


class Tally:
    """A run's logs and findings, summed once: what its summary says (`summary_text`, and
    `check_document.SUMMARY`)."""

    __slots__ = (
        "errors",
        "exit_code",
        "fates",
        "hook_faults_fail",
        "known",
        "logs",
        "notices",
        "reports",
        "rules",
        "skipped",
        "statuses",
        "strict_known",
    )

    def __init__(
        self,
        reports: Sequence[LogReport],
        hook_faults_fail: bool = False,
        fates: Sequence[LoopFates] = (),
        status: int | None = None,
        *,
        strict_known: bool = False,
    ) -> None:
        self.skipped = _sums((r.skipped.kind, 1) for r in reports if r.skipped is not None)
        checked = _checked(reports)
        self.reports = checked
        self.logs = sum(not report.no_log for report in checked)  # a folder with no log is none
        self.rules = _sums(pair for r in checked for pair in r.rule_counts.items())
        self.errors = _sums((e.kind, 1) for r in checked for e in r.errors)
        self.notices = _sums((n.kind, 1) for r in checked for n in r.notices)
        self.statuses = _sums((report.status, 1) for report in checked)
        self.known = (
            None
            if all(report.known_rules is None for report in checked)
            else _sums(pair for report in checked for pair in report.known_counts.items())
        )
        self.hook_faults_fail = hook_faults_fail
        self.fates = fates
        self.strict_known = strict_known
        self.exit_code = (
            exit_code(checked, hook_faults_fail=hook_faults_fail) if status is None else status
        )


def json_text(document: object) -> str:
    """`json.dumps(document, indent=2)`, ASCII with escapes, written without importing json
    (`json_text.json_dumps`): its encoder and decoder import re, enum, collections and more,
    which made `check --format json` start at twice the interpreter's start
    (benchmarks/bench_cli.py)."""
    return json_dumps(document, indent=2)


# ---------------------------------------------------------------------------------------------
# Text.


def _where(path: str, line: int | None) -> str:
    return path if line is None else f"{path}:{line}"


def printable(text: str) -> str:
    """`text` with what no encoding can write (lone surrogates from JSON escapes or undecodable
    file names) shown as backslash escapes, so printing a report never fails."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def log_text_lines(report: LogReport, *, verbose: bool = False) -> list[str]:
    """The finding lines of one log (and, verbose, a line saying how it went)."""
    if report.skipped is not None:
        skipped = report.skipped
        return [printable(f"{report.path}: skipped {skipped.kind}: {skipped.message}")]
    # What stopped the check first: it says the rest was judged only up to it. Then what the
    # log breaks, by line, a header error read past among the violations it came before
    # (grouped by kind, a line 1 error printed after a line 8 violation).
    stopping = [error for error in report.errors if _stops(report, error)]
    lines = [_error_line(report, error) for error in stopping]
    stopped_at = _stopped_at(report)
    if stopped_at is not None:  # the summary's `0 violations` covers only the lines before it
        # A line past the bound is no broken line: its own error says how to read it.
        remedy = (
            "check again with a larger --max-line-bytes"
            if any(error.kind is ErrorKind.LINE_TOO_LONG for error in stopping)
            else "fix that line and check again"
        )
        lines.append(
            f"{report.path}: not checked past line {stopped_at}: {remedy} to judge the rest"
        )
    by_line = [
        (
            found.line,
            _violation_line(report, found)
            + _not_known_words(report, found)
            + _folded_words(report, found, followers),
        )
        for found, followers in (
            [(found, []) for found in report.violations]
            if verbose
            else fold_cascades(report.violations)
        )
    ]
    by_line += [
        (error.line or 0, _error_line(report, error))
        for error in report.errors
        if error not in stopping
    ]
    by_line.sort(key=lambda finding: finding[0])  # stable: a line's violations keep their order
    lines += [said for _line, said in by_line]
    if report.omitted_violations:
        lines.append(
            f"{report.path}: {report.omitted_violations} more violations not listed "
            "(raise --max-violations to see them)"
        )
    known_rules = report.known_rules or {}
    for found in report.known_violations:
        known_by = known_rules[found.violation.rule_id]
        whose = "named by --known" if known_by == "--known" else f"of {known_by}"
        lines.append(_violation_line(report, found, f"known divergence {whose}: "))
    if report.omitted_known:
        lines.append(
            f"{report.path}: {report.omitted_known} more known divergences not listed "
            "(raise --max-violations to see them)"
        )
    for notice in report.notices:
        rule = f" {notice.rule_id}" if notice.rule_id else ""
        where = _where(report.path, notice.line)
        lines.append(f"{where}: notice {notice.kind}{rule}: {notice.message}")
    if verbose:
        unread = ", ".join(f"{kind} x{count}" for kind, count in report.unread_types.items())
        detail = f"; event types whose data no rule reads: {unread}" if unread else ""
        what = "messages" if report.dialect == ACP_DIALECT else "events"
        lines.append(
            f"{report.path}: {report.status}, {report.events} {what} in {report.lines} lines"
            f"{detail}"
        )
    return [printable(line) for line in lines]


def not_checkable_lines(reports: Sequence[LogReport]) -> list[str]:
    """What the logs of another loop's format cannot show, said once per format after every
    log's findings: a folder of transcripts said the same long line for each of them. And per
    dsh log whose hooks name no call, what it does not show, or shows only in part."""
    groups: dict[tuple[str, tuple[str, ...]], list[LogReport]] = {}
    lines = []
    for report in reports:
        if report.skipped is not None or report.dialect != DSH_DIALECT:
            continue
        said = []
        if report.not_checkable:
            said.append(f"not checkable: {', '.join(sorted(report.not_checkable))}")
        if report.checked_in_part:
            said.append(f"checked in part: {', '.join(sorted(report.checked_in_part))}")
        if said:
            lines.append(
                f"{report.path}: hook events without callId, whose answers check cannot tie "
                f"to a call; {'; '.join(said)} (see --format json for why)"
            )
    for report in reports:
        if report.not_checkable and report.skipped is None and report.dialect != DSH_DIALECT:
            key = (report.dialect, tuple(sorted(report.not_checkable)))
            groups.setdefault(key, []).append(report)
    for (dialect, rules), group in groups.items():
        # An ACP recording is no loop's log (`acp_stream`): named so, not "acp log".
        one, many = _FORMAT_WORDS.get(dialect, (f"{dialect} log", f"{dialect} logs"))
        if len(group) == 1:
            whose = f"{group[0].path}: {one}; not checkable from such a {one.split()[-1]}"
        else:
            whose = f"{len(group)} {many}: not checkable from such {many.split()[-1]}"
        lines.append(f"{whose} (see --format json for why): {', '.join(rules)}")
    return [printable(line) for line in lines]


_FORMAT_WORDS = {ACP_DIALECT: ("ACP recording", "ACP recordings")}


def _violation_line(report: LogReport, found: FoundViolation, known: str = "") -> str:
    v = found.violation
    where = _where(report.path, found.line)
    if report.dialect != DSH_DIALECT:  # these logs have no seq: the related records are lines
        lines = ", ".join(str(line) for line in found.events)
        return f"{where}: {known}{v.rule_id}: {v.message} [lines {lines}]"
    # Each seq with its line, which a person opens the log at (unknown: read from stdin).
    events = ", ".join(
        str(seq) if line is None else f"{seq} (line {line})"
        for seq, line in zip(found.events, event_lines(report, found), strict=True)
    )
    return f"{where}: {known}{v.rule_id} (seq {v.seq}): {v.message} [events {events}]"


def _not_known_words(report: LogReport, found: FoundViolation) -> str:
    """Why a violation of a rule `--known` names was not set aside, if so: not its loop's known
    divergence of the rule (`LogReport.not_known`)."""
    why = report.not_known.get(found.violation.rule_id)
    return "" if why is None else f"; {why}"


def _cascade_key(found: FoundViolation) -> tuple[str, str] | None:
    """What a follow-on of one cause says, but the event it names: its rule and its sentence
    past the event type it opens with ("outside any turn"); None for a violation that cites
    events besides its own (its own cause) or opens with no event type."""
    violation = found.violation
    if violation.related and set(violation.related) != {violation.seq}:
        return None
    event_type, _space, rest = violation.message.partition(" ")
    if "/" not in event_type or not rest:
        return None
    return violation.rule_id, rest


def fold_cascades(
    violations: Sequence[FoundViolation],
) -> list[tuple[FoundViolation, list[FoundViolation]]]:
    """`violations` (by line), each with the follow-ons folded into it: the text report's one
    line for one missing event (`check -v` lists every one; the JSON keeps them all).

    A violation folds into the one that leads a cascade when both say the same sentence of the
    same rule but for the event type they open with, and cite no event but their own: one
    invariant found one state wrong at each event ("outside any turn" while no turn is open).
    The cascade ends at the first violation of another sentence on an event it does not hold:
    the TURN-2 of a turn/end with no open turn, say, marks where that state changed, and what
    comes after it may have another cause. Another violation on an event the cascade holds (an
    ORD-3 of a result outside any turn, the LOG-1 of a seq skipped there), listed before or after
    the cascade's own on that event, is a finding of its own, listed, and ends nothing.

    A violation also folds into the one before it when both are of the same rule on the same
    event, cite the same events, and say the same sentence but for one word, the call each
    names: one event found wrong about several calls (a turn/end leaving three calls
    unanswered, ADJ-3), whose first line names the others.
    """
    # The events each sentence was said of: what a cascade of that sentence holds.
    said_of: dict[tuple[str, str], set[int]] = {}
    for found in violations:
        key = _cascade_key(found)
        if key is not None:
            said_of.setdefault(key, set()).add(found.violation.seq)
    folded: list[tuple[FoundViolation, list[FoundViolation]]] = []
    lead_key: tuple[str, str] | None = None
    followers: list[FoundViolation] = []
    for found in violations:
        if folded and _another_call_of(folded[-1], found):
            folded[-1][1].append(found)
            continue
        key = _cascade_key(found)
        if lead_key is not None and key == lead_key:
            followers.append(found)
            continue
        if lead_key is not None and found.violation.seq in said_of[lead_key]:
            folded.append((found, []))  # another finding on an event the cascade holds
            continue
        followers = []
        folded.append((found, followers))
        lead_key = key
    return folded


def _another_call_of(
    entry: tuple[FoundViolation, list[FoundViolation]], found: FoundViolation
) -> bool:
    """Whether `found` says what the violation leading `entry` says, of the same event and the
    same cited events, but for one word (the call it names), and `entry` folds no cascade."""
    lead, followers = entry
    if any(follower.violation.seq != lead.violation.seq for follower in followers):
        return False
    first, then = lead.violation, found.violation
    if (first.rule_id, first.seq, first.related) != (then.rule_id, then.seq, then.related):
        return False
    return _one_word_apart(first.message, then.message) is not None


def _one_word_apart(first: str, then: str) -> str | None:
    """The word of `then` where it differs from `first` in that word alone, else None."""
    words, others = first.split(" "), then.split(" ")
    if len(words) != len(others):
        return None
    differing = [other for word, other in zip(words, others, strict=True) if word != other]
    return differing[0] if len(differing) == 1 else None


def _folded_words(
    report: LogReport, lead: FoundViolation, followers: Sequence[FoundViolation]
) -> str:
    """What the line of a cascade's first violation adds for those folded into it; of one
    event's violations about several calls, the others' words."""
    if not followers:
        return ""
    if all(found.violation.seq == lead.violation.seq for found in followers):
        named = [_one_word_apart(lead.violation.message, f.violation.message) for f in followers]
        which = ", ".join(word for word in named if word is not None)
        return f"; and {len(followers)} more likewise ({which}; -v lists each)"
    if report.dialect == DSH_DIALECT:
        which = "seqs " + _spans([found.violation.seq for found in followers])
    else:  # no seqs: their lines
        which = "lines " + _spans([found.line for found in followers])
    return f"; and {len(followers)} more events likewise ({which}; -v lists each)"


def _spans(numbers: Sequence[int]) -> str:
    """Increasing `numbers` written as runs: `2-9, 11, 14-18`."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def _error_line(report: LogReport, error: InputError) -> str:
    rule = f" {error.rule_id}" if error.rule_id else ""
    return f"{_where(report.path, error.line)}: error {error.kind}{rule}: {error.message}"


def _stops(report: LogReport, error: InputError) -> bool:
    """Whether the check of the log stopped at `error` (or never started: no line to blame):
    lines follow the one it names. One read past (a header's) is before the last line read, and
    one on the last line, with nothing after it, left nothing unchecked: both print by line."""
    return error.line is None or (error.line >= report.lines and report.lines_unread)


def _stopped_at(report: LogReport) -> int | None:
    """The line an input error stopped the check of this log at, when lines follow it.

    A torn tail is the last line, and an unsupported layout says it is not checked at all, as
    binary data on the first line does (a gzip file, no log: no line of it to fix). An
    error before the last line read stopped nothing: the check went on past it (a header with a
    wrong value, or none: the events after it are judged). An error on the last line that is not
    blank left nothing unchecked.
    """
    if not report.lines_unread:
        return None
    for error in report.errors:
        if (
            error.line is not None
            and error.line >= report.lines
            and error.kind not in (ErrorKind.TORN_TAIL, ErrorKind.UNSUPPORTED_LAYOUT)
            and not (error.kind == ErrorKind.BINARY and error.line == 1)
        ):
            return error.line
    return None


def write_log_text(report: LogReport, out: TextIO, *, verbose: bool = False) -> None:
    """Write `log_text_lines` to `out`."""
    for line in log_text_lines(report, verbose=verbose):
        out.write(line + "\n")


def _counted(counts: dict[str, int]) -> str:
    return ", ".join(f"{key}: {count}" for key, count in counts.items())


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def summary_text(reports: Sequence[LogReport], *, hook_faults_fail: bool = False) -> str:
    """The one-line summary: logs, events, violations by rule, known divergences (`--known`),
    errors, notices."""
    tally = Tally(reports, hook_faults_fail)
    # An ACP recording holds JSON-RPC messages, not a loop's events: counted apart.
    recordings = [r for r in tally.reports if r.dialect == ACP_DIALECT and not r.no_log]
    logs = tally.logs - len(recordings)
    events = sum(report.events for report in tally.reports if report.dialect != ACP_DIALECT)
    parts = []
    if logs or not recordings:
        parts.append(f"checked {_plural(logs, 'log')}, {_plural(events, 'event')}")
    if recordings:
        messages = sum(report.events for report in recordings)
        said = f"{_plural(len(recordings), 'ACP recording')}, {_plural(messages, 'message')}"
        parts.append(f"and {said}" if parts else f"checked {said}")
    folders = sum(report.no_log and not report.not_reached for report in reports)
    nowhere = sum(report.not_reached for report in reports)  # a missing path: no log checked
    found_none = [f"no log under {_plural(folders, 'folder')}"] if folders else []
    found_none += [f"nothing at {_plural(nowhere, 'path')}"] if nowhere else []
    if found_none:
        parts.append(f"found {', '.join(found_none)}")
    violations = sum(tally.rules.values())
    found = [
        f"{_plural(violations, 'violation')}"
        + (f" ({_counted(tally.rules)})" if violations else "")
    ]
    if tally.known:
        known = sum(tally.known.values())
        found.append(f"{_plural(known, 'known divergence')} ({_counted(tally.known)})")
    if tally.errors:
        errors = sum(tally.errors.values())
        found.append(f"{_plural(errors, 'error')} ({_counted(tally.errors)})")
    if tally.notices:
        failing = (
            "; hook faults fail the run"
            if hook_faults_fail and "hook-fault" in tally.notices
            else ""
        )
        notices = sum(tally.notices.values())
        found.append(f"{_plural(notices, 'notice')} ({_counted(tally.notices)}{failing})")
    if tally.skipped:
        skipped = sum(tally.skipped.values())
        found.append(
            f"skipped {_plural(skipped, 'file')}, no session log ({_counted(tally.skipped)})"
        )
    return ", ".join(parts) + ": " + "; ".join(found)
