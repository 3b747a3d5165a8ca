"""What `loopspec check --format json` writes, and the one definition of it: every object the
output holds is a `Shape` here, its keys in the order written, each with the JSON Schema of its
value, what it means, and how the writer finds its value. `run_to_json` writes a key only from
its `Key`, and `loopspec schema check` (`logcheck.report_schema`) prints the JSON Schema made
from the same shapes: a key cannot be written that the schema does not describe.

Plain classes, tuples and functions rather than attrs classes (which conform's and replay's
documents are): check imports no attrs (tests/test_check_startup.py). Imported only for
`--format json` and by `schema check`: the text output does without it
(`benchmarks/bench_cli.py`). What each key means at length: `python -m pydoc
loopspec.properties.logcheck.report`.
"""

from __future__ import annotations

from loopspec.properties.logcheck.checker import (
    ACP_DIALECT,
    DSH_DIALECT,
    ErrorKind,
    LogReport,
    NoticeKind,
)
from loopspec.properties.logcheck.report import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_VIOLATIONS,
    FORMAT,
    Tally,
    event_lines,
    rules_checked,
)

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Final

    from loopspec.properties.logcheck.known_divergences import LoopFates


class _Absent:
    """A key's value when the key is left out of its object (`Key.value`)."""

    __slots__ = ()


ABSENT = _Absent()


class Key:
    """One key of a `Shape`: its `name`, the JSON Schema of its value (`schema`, where a `Shape`
    stands for its object and a class of string constants, such as `ErrorKind`, for one of
    them), what it means, and its value in the object written of a subject: the subject's
    attribute `value` names, or `value(subject)`, `ABSENT` where the key is left out (then
    `optional`). An attribute's name costs check's start-up less than a function."""

    __slots__ = ("meaning", "name", "optional", "schema", "value")

    def __init__(
        self,
        name: str,
        schema: object,
        meaning: str,
        value: str | Callable[[Any], object],
        *,
        optional: bool = False,
    ) -> None:
        self.name = name
        self.schema = schema
        self.meaning = meaning
        self.value = value
        self.optional = optional


class Shape:
    """An object of the JSON output: its name in the schema's `$defs`, what it is, its keys."""

    __slots__ = ("keys", "meaning", "name")

    def __init__(self, name: str, meaning: str, keys: tuple[Key, ...]) -> None:
        self.name = name
        self.meaning = meaning
        self.keys = keys

    def written(self, subject: object) -> dict[str, Any]:
        """The object written of `subject`: each key's value, but those left out."""
        written = {}
        for key in self.keys:
            getter = key.value
            value = getattr(subject, getter) if isinstance(getter, str) else getter(subject)
            if value is not ABSENT:
                written[key.name] = value
        return written


_STRING: Final = {"type": "string"}
_INTEGER: Final = {"type": "integer"}
_COUNT: Final = {"type": "integer", "minimum": 0}
_LINE: Final = {"type": "integer", "minimum": 1}
_LINE_OR_NULL: Final = {"type": ["integer", "null"], "minimum": 1}
_RULE: Final = {"type": "string", "pattern": "^[A-Z]+-[0-9]+$"}
_RULE_OR_NULL: Final = {"type": ["string", "null"], "pattern": "^[A-Z]+-[0-9]+$"}
_RULES: Final = {"type": "array", "items": _RULE}
_COUNTS: Final = {"type": "object", "additionalProperties": _COUNT}
_REASONS: Final = {"type": "object", "additionalProperties": _STRING}
_DIALECTS: Final = (DSH_DIALECT, "claude-code", "codex", ACP_DIALECT)
# `known_divergences.LOOPS` spelt out (a test holds them equal): importing that module for its
# names was a third of what `--format json` adds to a clean check (1.0M instructions of 2.7M).
KNOWN_BY: Final = {"enum": ["claude-code", "codex", DSH_DIALECT, "--known"]}
_STATUSES: Final = ("ok", "violations", "error", "unsupported", "known-divergences")


# A violation's subject: the log and what was found in it. The keys a known divergence shares.
VIOLATION_KEYS: Final = (
    Key("line", _LINE, "line of the event (or compact row)", lambda of: of[1].line),
    Key(
        "seq",
        _INTEGER,
        "seq of the offending event (a transcript's or rollout's: its line)",
        lambda of: of[1].violation.seq,
    ),
    Key("rule", _RULE, "the rule broken (SPEC.md)", lambda of: of[1].violation.rule_id),
    Key(
        "message",
        {"type": "string", "maxLength": 400},
        "one sentence",
        lambda of: of[1].violation.message,
    ),
    Key(
        "events",
        {"type": "array", "items": _INTEGER, "minItems": 1},
        "seqs involved, the offending one first",
        lambda of: list(of[1].events),
    ),
    Key(
        "event_lines",
        {"type": "array", "items": _LINE_OR_NULL, "minItems": 1},
        "the line of each of events: null where not known (read from stdin or a pipe, only "
        "the first is)",
        lambda of: event_lines(*of),
    ),
)
VIOLATION: Final = Shape(
    "violation",
    "a rule a log breaks, where",
    (
        *VIOLATION_KEYS,
        Key(
            "not_known",
            _STRING,
            "only where --known named a loop whose list holds the rule but this violation is "
            'not its known divergence of it: why it was not set aside ("not the known '
            'divergence: ...")',
            lambda of: of[0].not_known.get(of[1].violation.rule_id, ABSENT),
            optional=True,
        ),
    ),
)
KNOWN_DIVERGENCE: Final = Shape(
    "known_divergence",
    "a violation --known set aside",
    (
        *VIOLATION_KEYS,
        Key(
            "known_by",
            KNOWN_BY,
            "whose known divergence: the loop's, or a rule --known named",
            lambda of: of[0].known_rules[of[1].violation.rule_id],
        ),
    ),
)
INPUT_ERROR: Final = Shape(
    "error",
    "input that cannot be read as a log: it stopped the log's check at its line, unless read "
    "past (a header's) or on the last line",
    (
        Key("line", _LINE_OR_NULL, "null: no line to blame", "line"),
        Key("kind", ErrorKind, "the kind of error (python -m pydoc ...report)", "kind"),
        Key("rule", _RULE_OR_NULL, "the rule the log breaks, or null", "rule_id"),
        Key("message", _STRING, "what is wrong", "message"),
    ),
)
NOTICE: Final = Shape(
    "notice",
    "something worth knowing that breaks no rule",
    (
        Key("line", _LINE_OR_NULL, "null: no line to name", "line"),
        Key(
            "seq",
            {"type": ["integer", "null"]},
            "the event it is about, or null",
            "seq",
        ),
        Key("kind", NoticeKind, "the kind of notice", "kind"),
        Key("rule", _RULE_OR_NULL, "the rule it concerns, or null", "rule_id"),
        Key("message", _STRING, "what happened", "message"),
    ),
)


def _known_only(value: Callable[[LogReport], object]) -> Callable[[LogReport], object]:
    """`value`, for a log of a run that named --known; else the key is left out."""
    return lambda report: ABSENT if report.known_rules is None else value(report)


LOG: Final = Shape(
    "log",
    "one log checked, in the order checked",
    (
        Key("path", _STRING, 'as named on the command line; "-" is stdin', "path"),
        Key(
            "status",
            {"enum": list(_STATUSES)},
            'how the check went ("known-divergences": only known ones)',
            "status",
        ),
        Key(
            "header_version",
            {"type": ["integer", "null"]},
            "the session header's version; null when there is no readable header",
            "version",
        ),
        Key("lines", _COUNT, "lines read, header included", "lines"),
        Key("events", _COUNT, "events checked (compact rows expanded)", "events"),
        Key(
            "violations",
            {"type": "array", "items": VIOLATION},
            "at most --max-violations of them, by line",
            lambda report: [VIOLATION.written((report, f)) for f in report.violations],
        ),
        Key(
            "violations_omitted",
            _COUNT,
            "found beyond --max-violations, not listed",
            "omitted_violations",
        ),
        Key(
            "errors",
            {"type": "array", "items": INPUT_ERROR},
            "input errors",
            lambda report: [INPUT_ERROR.written(error) for error in report.errors],
        ),
        Key(
            "notices",
            {"type": "array", "items": NOTICE},
            "notices",
            lambda report: [NOTICE.written(notice) for notice in report.notices],
        ),
        Key(
            "unread_event_types",
            _COUNTS,
            "event types no rule reads the data of: how many",
            lambda report: dict(report.unread_types),
        ),
        Key("dialect", {"enum": list(_DIALECTS)}, "whose log", "dialect"),
        Key("rules_checked", _RULES, "every rule a violation could name here", rules_checked),
        Key(
            "rules_not_checkable",
            _REASONS,
            "rule -> why this dialect (or this log: hooks that name no call) cannot show it",
            lambda report: dict(sorted(report.not_checkable.items())),
        ),
        Key(
            "rules_checked_in_part",
            _REASONS,
            "rule -> why this log shows only part of it",
            lambda report: dict(sorted(report.checked_in_part.items())),
        ),
        Key(
            "known_divergences",
            {"type": "array", "items": KNOWN_DIVERGENCE},
            "only when the run named --known: the violations set aside",
            _known_only(
                lambda report: [
                    KNOWN_DIVERGENCE.written((report, found)) for found in report.known_violations
                ]
            ),
            optional=True,
        ),
        Key(
            "known_divergences_omitted",
            _COUNT,
            "only when the run named --known: known divergences beyond --max-violations",
            _known_only(lambda report: report.omitted_known),
            optional=True,
        ),
        Key(
            "known_rules",
            {"type": "object", "additionalProperties": KNOWN_BY},
            "only when the run named --known: every rule known in this log, and whose",
            _known_only(lambda report: dict(sorted((report.known_rules or {}).items()))),
            optional=True,
        ),
    ),
)
SKIPPED: Final = Shape(
    "skipped",
    "a file found in a directory that was skipped, not checked: no session log",
    (
        Key("path", _STRING, "the file", "path"),
        Key("kind", _STRING, "what it is (logcheck.home_files)", lambda r: r.skipped.kind),
        Key("message", _STRING, "what it is, in words", lambda r: r.skipped.message),
    ),
)
SITUATIONS: Final = Shape(
    "situations",
    "how often a known divergence's situation came up",
    (
        Key("situations", _COUNT, "times it came up", lambda pair: pair[0]),
        Key("logs", _COUNT, "in so many logs", lambda pair: pair[1]),
    ),
)
_SITUATIONS: Final = {"type": "object", "additionalProperties": SITUATIONS}
KNOWN_LIST: Final = Shape(
    "known_list",
    "the rules check judges of one loop --known named, in its logs",
    (
        Key("logs", _COUNT, "its logs checked", "logs"),
        Key("occurred", _RULES, "broken in one of them at least", "occurred"),
        Key(
            "did_not_occur",
            _SITUATIONS,
            "never broken, its situation seen so often (harness_logs.SITUATIONS)",
            lambda fates: _situations_written(fates.did_not_occur),
        ),
        Key(
            "race_not_lost",
            _SITUATIONS,
            "the same for a racy one, which shows only where the loop loses a race",
            lambda fates: _situations_written(fates.race_not_lost),
        ),
        Key(
            "not_exercised",
            _RULES,
            "situation never seen (or never visible)",
            "not_exercised",
        ),
    ),
)


def _situations_written(rules: dict[str, tuple[int, int]]) -> dict[str, dict[str, Any]]:
    return {rule: SITUATIONS.written(seen_in) for rule, seen_in in rules.items()}


def _present(flag: bool, value: object) -> object:
    return value if flag else ABSENT


def _hints(reports: Sequence[LogReport]) -> object:
    # The loops' known shapes are read only where a violation names a facet, as in the text
    # report (a clean check's JSON imports no `known_divergences`).
    if not any(report.facet_counts for report in reports):
        return ABSENT
    from loopspec.properties.logcheck.known_divergences import (  # noqa: PLC0415
        known_hint_counts,
    )

    hints = known_hint_counts(reports)
    return hints if hints else ABSENT


SUMMARY: Final = Shape(
    "summary",
    "the run's totals",
    (
        Key(
            "logs",
            _COUNT,
            "logs checked (a folder named with no log under it is not, nor a path where nothing "
            "is: each is in the document's logs for its error only)",
            "logs",
        ),
        Key("events", _COUNT, "events checked", lambda t: sum(r.events for r in t.reports)),
        Key("violations", _COUNT, "all found, listed or omitted", lambda t: sum(t.rules.values())),
        Key("violations_by_rule", _COUNTS, "sorted by rule ID", "rules"),
        Key("errors", _COUNT, "input errors", lambda tally: sum(tally.errors.values())),
        Key("errors_by_kind", _COUNTS, "sorted by kind", "errors"),
        Key("notices", _COUNT, "notices", lambda tally: sum(tally.notices.values())),
        Key("notices_by_kind", _COUNTS, "sorted by kind", "notices"),
        Key(
            "logs_by_status",
            _COUNTS,
            "logs checked by status",
            "statuses",
        ),
        Key(
            "exit_code",
            {"enum": [EXIT_OK, EXIT_VIOLATIONS, EXIT_BAD_INPUT]},
            "the run's exit code",
            "exit_code",
        ),
        Key(
            "strict_known",
            {"const": True},
            "only under --strict-known: a rule in did_not_occur makes exit_code at least 1 (one in "
            "race_not_lost does not)",
            lambda tally: _present(tally.strict_known and bool(tally.fates), True),
            optional=True,
        ),
        Key(
            "hook_faults_fail",
            {"const": True},
            "only under --fail-on-hook-faults: a hook-fault notice makes exit_code at least 1",
            lambda tally: _present(tally.hook_faults_fail, True),
            optional=True,
        ),
        Key(
            "known_divergences",
            _COUNT,
            "only when the run named --known: violations set aside",
            lambda t: ABSENT if t.known is None else sum(t.known.values()),
            optional=True,
        ),
        Key(
            "known_divergences_by_rule",
            _COUNTS,
            "only when the run named --known: by rule",
            lambda tally: ABSENT if tally.known is None else tally.known,
            optional=True,
        ),
        Key(
            "known_divergence_hints",
            {"type": "object", "additionalProperties": _COUNTS},
            "only without --known, when a loop's own logs break rules in the shape of its known "
            "divergences: per loop, per rule, the violations --known LOOP would set aside (the "
            "text's 'known divergences of LOOP among these' line)",
            lambda tally: _hints(tally.reports) if tally.known is None else ABSENT,
            optional=True,
        ),
        Key(
            "known_lists",
            {"type": "object", "additionalProperties": KNOWN_LIST},
            "only when --known named a loop: per loop, the rules check judges in its logs",
            lambda tally: _present(
                bool(tally.fates), {fates.loop: KNOWN_LIST.written(fates) for fates in tally.fates}
            ),
            optional=True,
        ),
        Key(
            "skipped",
            _COUNT,
            "only when a file was skipped: files skipped",
            lambda tally: _present(bool(tally.skipped), sum(tally.skipped.values())),
            optional=True,
        ),
        Key(
            "skipped_by_kind",
            _COUNTS,
            "only when a file was skipped: by kind",
            lambda tally: _present(bool(tally.skipped), tally.skipped),
            optional=True,
        ),
    ),
)


class _Run:
    """What the whole JSON output is written of."""

    __slots__ = ("reports", "tally")

    def __init__(self, reports: Sequence[LogReport], tally: Tally) -> None:
        self.reports = reports
        self.tally = tally


DOCUMENT: Final = Shape(
    "loopspec-check/1",
    "What `loopspec check --format json` writes on stdout: exactly one object per run. Keys are "
    "stable within a format; new keys may be added, none renamed, removed or given another "
    "meaning without changing format",
    (
        Key("format", {"const": FORMAT}, "this document's format", lambda run: FORMAT),
        Key(
            "logs",
            {"type": "array", "items": LOG},
            "one per log, in the order checked",
            lambda run: [LOG.written(report) for report in run.tally.reports],
        ),
        Key(
            "skipped",
            {"type": "array", "items": SKIPPED, "minItems": 1},
            "only when a file found in a directory was skipped, not checked",
            lambda run: _present(
                bool(run.tally.skipped),
                [SKIPPED.written(r) for r in run.reports if r.skipped is not None],
            ),
            optional=True,
        ),
        Key("summary", SUMMARY, "the run's totals", lambda run: SUMMARY.written(run.tally)),
    ),
)


def log_to_json(report: LogReport) -> dict[str, Any]:
    """One log's entry in the JSON output."""
    return LOG.written(report)


def summary_to_json(
    reports: Sequence[LogReport], *, hook_faults_fail: bool = False
) -> dict[str, Any]:
    """The run's summary in the JSON output, without --known's lists."""
    return SUMMARY.written(Tally(reports, hook_faults_fail))


def run_to_json(
    reports: Sequence[LogReport],
    *,
    hook_faults_fail: bool = False,
    fates: Sequence[LoopFates] = (),
    strict_known: bool = False,
    status: int | None = None,
) -> dict[str, Any]:
    """The whole JSON output of a run: with `fates`, what became of the known divergences of
    each loop --known named (`known_divergences.stale_known`); `status`, the exit code when
    --strict-known raised it."""
    tally = Tally(reports, hook_faults_fail, fates, status, strict_known=strict_known)
    return DOCUMENT.written(_Run(reports, tally))
