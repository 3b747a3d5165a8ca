"""`loopspec check --known`: the divergences a run is known to have, set aside from its verdict.

Both real CLIs break RW-1 on every rewrite (and Claude Code ORD-3 on every parallel batch), so
`check` on their logs exits 1 whatever else happened, and a CI step cannot tell a new problem
from a known one. `--known` names what is known, each value one of:

- `claude-code` or `codex`: that loop's known divergences, the list `run --harness` and the
  real-CLI tests hold it to (`properties.harnesses.profiles.KNOWN`, one source of truth), set
  aside in the logs of that loop only (a Claude Code transcript, a Codex rollout);
- `dsh`: those of dsh's known divergences (its conform profile, `properties.profiles.dsh`) that
  its own log shows, set aside in dsh's logs only (version 0: not loopspec's own);
- a rule ID `check` reports (`loopspec spec` says what each requires): set aside in every log.

A violation of a known rule is listed as known, counted apart, and leaves the exit code alone;
any other violation still fails the run. A loop's list forgives its known divergences, not
whole rules: of each rule of the list, only a violation in the shape of the loop's known
divergence is set aside (`KNOWN_SHAPES`, told by `Violation.facet`, which `harness_logs` sets),
and of a rule with no shape there, none. A rollout that ran a command for no call it made breaks
RW-1, but Codex's known RW-1 is a hook's rewrite run under its call's id, so that violation
still fails the run, saying why it was not set aside. A rule named by its ID is set aside
whole, in every shape.

Once per run, for each loop named, `stale_known` says which of its known divergences `check` can
judge in its logs did not occur: each one whose situation came up (a reply's calls were all
answered, a PostToolUse hook's context was written: `harness_logs.SITUATIONS`) and never broke its
rule there (a CLI upgrade may have fixed it), apart from those never exercised (no log held their
situation, or a log shows it only where the rule breaks). Per run, not per log: the list belongs to
the CLI's version, which the run's logs share, and one log without it says little (ORD-3 is a race
the next log may lose). `--strict-known` makes one that did not occur fail the run (exit 1), as
pytest's strict xfail does, unless it is racy (`RACY_RULES`): one that shows only where the loop
loses a race, as Claude Code's ORD-3 shows only where a later call's result is ready first. Its
not occurring says only that the race was not lost, so it is reported as such and fails nothing.
"""

from __future__ import annotations

from loopspec.properties.logcheck import INVARIANT_RULES
from loopspec.properties.logcheck.checker import FoundViolation, LogReport

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Iterable

KNOWN_RULES = {
    "claude-code": (
        "RW-1", "RW-2", "RW-3", "LOG-8", "TEXT-1", "TEXT-2", "TURN-1", "EXE-1", "STEP-4",
        "HIST-1", "HOOK-2", "HOOK-3", "HOOK-6", "ORD-3", "SCHED-1", "ADJ-4", "DEC-3", "REC-1",
        "ABORT-1", "ABORT-2", "ABORT-3",
    ),
    "codex": (
        "DEC-1", "DEC-3", "RW-1", "RW-2", "RW-3", "LOG-8", "TEXT-1", "TEXT-2", "EXE-1", "ADJ-1",
        "ORD-1", "HOOK-2", "HOOK-3", "SCHED-1", "REC-1", "ABORT-1", "ABORT-2", "ADJ-4",
        "ABORT-3",
    ),
    "dsh": ("EXE-1", "HOOK-5"),
}  # fmt: skip
"""Per loop, the rules it is known to break: for Claude Code and Codex, the keys of
`properties.harnesses.profiles.KNOWN` (the one list, with what each does and how loopspec reads
it); for dsh, the rules of the facets its conform profile says its own log breaks
(`properties.profiles.dsh.PROFILE.tolerated_facets`: its other known divergences show only
beside the model's run, never in a log alone). Spelt here as plain strings so `check --known
claude-code` starts without importing attrs and enum, which those modules' entries need: they
cost a small check run about a third more (tests hold them equal)."""


class KnownShape:
    """The shape a loop's known divergence of a rule takes in that loop's log: the facets of
    the rule's violations that are it, and what it is, in a few words."""

    __slots__ = ("facets", "what")

    def __init__(self, facets: tuple[str, ...], what: str) -> None:
        self.facets = facets
        self.what = what

    def not_it(self, loop: str, rule: str) -> str:
        """Why a violation of `rule` in a log of `loop` without one of `facets` is not set
        aside."""
        if not self.facets:
            return f"not the known divergence: check knows no shape of {loop}'s {rule}"
        return f"not the known divergence: {loop}'s is {self.what}"


_NO_SHAPE = KnownShape((), "")
"""A rule of a loop's list with no shape in `KNOWN_SHAPES`: none of its violations is set
aside by the loop's name (a rule the loop's logs never showed when its list was written; a
violation `harness_logs` began to report later is judged before it is forgiven)."""


KNOWN_SHAPES = {
    "claude-code": {
        "EXE-1": KnownShape(
            ("repeated-call-id",), "a reply's calls repeating an id, each call a record of its own"
        ),
        "ORD-3": KnownShape(
            ("result-before-earlier-calls",),
            "a reply's results written as its calls finish, a later call's first, each naming "
            "its call's record (sourceToolAssistantUUID)",
        ),
        "ABORT-1": KnownShape(
            ("invented-after-abort",),
            "an assistant message of its own after the notice of an interrupt of the calls",
        ),
        "ABORT-2": KnownShape(
            ("invented-after-abort",),
            "an assistant message of its own after the notice of an interrupt of the reply",
        ),
        "RW-1": KnownShape(
            ("ran-hook-input", "ran-other-input"),
            "a hook's updatedInput run for the call it names, a hook's record answering it",
        ),
        "HOOK-6": KnownShape(
            ("non-object-input-ran",),
            "a call run, and succeeding, although the input its hooks supplied is no JSON "
            "object (a string, a number, a list), which the model refuses",
        ),
        "REC-1": KnownShape(
            ("invented-on-resume", "unrecorded-repair-on-fork"),
            "its own 'No response requested.' written on resuming a turn a crash cut (or one "
            "whose last reply held no text, the message hung in its place), or a "
            "prompt whose record hangs from a call not yet answered, or from results of its "
            "reply, forked or rewound there (the result it sends the model for the call never "
            "written)",
        ),
    },
    "codex": {
        "EXE-1": KnownShape(
            ("repeated-call-id",), "a reply's calls repeating an id, each call a record of its own"
        ),
        "RW-1": KnownShape(
            ("ran-other-input",), "a hook's rewrite run under the id of the call it rewrote"
        ),
        "RW-2": KnownShape(
            ("ran-unrecorded-rewrite",), "a hook's rewrite run with no record naming the hook"
        ),
        "ADJ-1": KnownShape(
            ("hook-context-landed",),
            "a PostToolUse hook's additionalContext, marked so, between a call and its output",
        ),
        "REC-1": KnownShape(
            ("turn-started-over-calls",),
            "a task_started over calls a crash left, their repair never written",
        ),
    },
    "dsh": {
        "EXE-1": KnownShape(
            ("repeated-call-id",),
            "a reply repeating a call id, whose calls dsh runs both: duplicate-call-ids",
        ),
        "HOOK-5": KnownShape(
            ("post-hook-of-an-unrun-call",),
            "a PostToolUse hook naming no call run for a call whose body never ran (denied, "
            "refused, never started): post-hooks-for-unrun-calls",
        ),
    },
}
"""Per loop, the rules of its list (`KNOWN_RULES`) that `check` reports in its logs, each with
the shape of its known divergence: only a violation of that shape is set aside, never another
break of the rule (a converter's, a forwarder's). A rule of the list not here is set aside in
no shape (`_NO_SHAPE`): `check` never reported it in these logs when the shapes were written.
The facets are `harness_logs.FACETS` (dsh's, `tolerates` of its profile's divergences, which
`model.invariants` sets), spelt here as strings so that `--known` imports no reader of other
loops' logs (tests hold them there)."""

RACY_RULES = {
    "claude-code": {
        "ORD-3": "it shows only where a later call's result is ready before an earlier one's",
    },
    "codex": {},
    "dsh": {},
}
"""Per loop, its known divergences that show only where the loop loses a race, with the race:
those whose `properties.harnesses.profiles.KNOWN` entry is `racy` (a test holds them equal).
`--strict-known` does not fail a run on one that did not occur."""

LOOPS = tuple(KNOWN_RULES)
"""The loops whose known divergences `--known` can name, as their logs' dialects are named: the
`Harness` values and dsh (a test holds them together)."""

DSH_VERSION = 0
"""The only header version dsh (0.1.0-rc.8) writes: a log of its layout with another (loopspec's
own, version 1) is no dsh log, and `--known dsh` sets nothing aside in it."""


def loop_of(report: LogReport) -> str:
    """The loop whose known divergences may be set aside in `report`'s log: its dialect, but
    none ("") for a log in dsh's layout that dsh does not write (`DSH_VERSION`)."""
    if report.dialect == "dsh" and report.version != DSH_VERSION:
        return ""
    return report.dialect


class KnownDivergences:
    """The rules set aside in every log, and per loop (by its logs' dialect)."""

    __slots__ = ("everywhere", "loops")

    def __init__(self, everywhere: frozenset[str], loops: frozenset[str]) -> None:
        self.everywhere = everywhere
        self.loops = loops

    def rules_for(self, dialect: str) -> dict[str, str]:
        """The rules known in a log of `dialect`, each with whose list names it."""
        known = dict.fromkeys(self.everywhere, "--known")
        if dialect in self.loops:
            for rule in KNOWN_RULES[dialect]:
                known.setdefault(rule, dialect)
        return known

    def shapes_for(self, dialect: str) -> dict[str, KnownShape]:
        """The rules known in a log of `dialect` by their known divergence's shape alone: those
        of its loop's list (`KNOWN_SHAPES`; one with none, in no shape), but a rule also named
        by its ID."""
        if dialect not in self.loops:
            return {}
        shapes = KNOWN_SHAPES[dialect]
        return {
            rule: shapes.get(rule, _NO_SHAPE)
            for rule in KNOWN_RULES[dialect]
            if rule not in self.everywhere
        }


IN_PART_RULES: tuple[str, ...] = ()
"""The rules no log invariant carries that a dialect shows a part of (`Dialect.checked_in_part`;
Claude Code's ABORT-1 was one until a dsh log's was judged too), spelt here so reading `--known`
imports no dialect (a test holds them equal)."""


def checkable_rules() -> list[str]:
    """Every rule a `check` violation can name: the log invariants' rules, LOG-8 (a version-1
    log's commits), and those a dialect shows in part."""
    return sorted({*INVARIANT_RULES, "LOG-8", *IN_PART_RULES})


def parse_known(values: Iterable[str]) -> KnownDivergences:
    """The `--known` values (each may list several, comma-separated) read; ValueError, with
    one line saying why, for a value that is neither a loop nor a rule `check` reports."""
    rules: set[str] = set()
    loops: set[str] = set()
    checkable = checkable_rules()
    for value in values:
        for spelt in value.split(","):
            name = spelt.strip()
            if name in LOOPS:
                loops.add(name)
            elif name.upper() in checkable:
                rules.add(name.upper())
            else:
                # Imported here: only a misspelt value needs it, and check starts without it.
                from loopspec.model.near_miss import did_you_mean  # noqa: PLC0415

                # The value is refused whatever it is nearest: any likely guess helps.
                hint = did_you_mean(name, [*LOOPS, *checkable])
                if name:
                    given = f"--known {value}: {name!r}"
                else:  # ('' given, or a comma too many)
                    extra = " (a comma too many?)" if value.strip() else ""
                    given = f"--known {value!r}: an empty name{extra}"
                raise ValueError(
                    f"{given} names neither a loop nor a rule check reports"
                    f"{hint}; the loops are {', '.join(LOOPS)}, the rules "
                    f"{', '.join(checkable)}"
                )
    return KnownDivergences(frozenset(rules), frozenset(loops))


def set_aside(report: LogReport, known: KnownDivergences) -> None:
    """Move the violations of `report` that are known for its dialect to its known ones: of a
    rule known by its shape (`KnownDivergences.shapes_for`), those of that shape alone; each
    such rule whose other violations stay listed is given the reason (`LogReport.not_known`)."""
    if report.skipped is not None:
        return
    loop = loop_of(report)
    rules = known.rules_for(loop)
    shapes = known.shapes_for(loop)
    report.known_rules = rules
    counts = report.rule_counts
    for rule in sorted(counts):
        if rule not in rules:
            continue
        shape = shapes.get(rule)
        if shape is None:
            report.known_counts[rule] = counts.pop(rule)
            continue
        facet_counts = report.facet_counts
        of_shape = sum(facet_counts.get(f"{rule}:{facet}", 0) for facet in shape.facets)
        if of_shape:
            report.known_counts[rule] = of_shape
        if of_shape == counts[rule]:
            del counts[rule]
        else:
            counts[rule] -= of_shape
    kept: list[FoundViolation] = []
    for found in report.violations:
        violation = found.violation
        rule = violation.rule_id
        shape = shapes.get(rule)
        if rule in rules and (shape is None or violation.facet in shape.facets):
            report.known_violations.append(found)
            continue
        kept.append(found)
        if shape is not None:
            report.not_known[rule] = shape.not_it(rules[rule], rule)
    report.violations = kept
    # Counts are whole, listings stop at --max-violations: what is left unlisted of each.
    report.omitted_violations = sum(counts.values()) - len(kept)
    report.omitted_known = sum(report.known_counts.values()) - len(report.known_violations)


class LoopFates:
    """What became of one named loop's known divergences in a run, among the rules `check`
    judges in its logs: those that occurred; those that did not although their situation came
    up, each with how often and in how many logs; and those not exercised."""

    __slots__ = (
        "broken_otherwise",
        "did_not_occur",
        "logs",
        "loop",
        "not_exercised",
        "occurred",
        "race_not_lost",
    )

    def __init__(self, loop: str, logs: int) -> None:
        self.loop = loop
        self.logs = logs
        self.occurred: list[str] = []
        self.did_not_occur: dict[str, tuple[int, int]] = {}
        # Racy ones (`RACY_RULES`) that did not occur: the race was not lost, which fails nothing.
        self.race_not_lost: dict[str, tuple[int, int]] = {}
        self.not_exercised: list[str] = []
        # Those of the last two whose rule broke in these logs, but never in its known shape
        # (each such violation is listed, "not the known divergence").
        self.broken_otherwise: list[str] = []


def stale_known(reports: Iterable[LogReport], known: KnownDivergences) -> list[LoopFates]:
    """Per loop `--known` names (in name order), the fates of its known divergences in the
    logs of its dialect among `reports` (after `set_aside`)."""
    checked = [report for report in reports if report.skipped is None]
    fates = []
    for loop in sorted(known.loops):
        logs = [report for report in checked if loop_of(report) == loop]
        fate = LoopFates(loop, len(logs))
        judged = {
            rule for report in logs for rule in INVARIANT_RULES if rule not in report.not_checkable
        } | {rule for report in logs for rule in report.checked_in_part}
        for rule in sorted(KNOWN_RULES[loop]):
            if rule not in judged:
                continue  # check cannot show it in this loop's logs: conform judges it
            # Only its known divergence's shape: another break of the rule is no sign of it.
            if any(report.known_counts.get(rule) for report in logs):
                fate.occurred.append(rule)
                continue
            if any(rule in report.not_known for report in logs):
                fate.broken_otherwise.append(rule)
            seen = [report.situations.get(rule, 0) for report in logs]
            if any(seen):
                stale = fate.race_not_lost if rule in RACY_RULES[loop] else fate.did_not_occur
                stale[rule] = (sum(seen), sum(1 for count in seen if count))
            else:
                fate.not_exercised.append(rule)
        fates.append(fate)
    return fates


def known_hint_lines(reports: Iterable[LogReport]) -> list[str]:
    """For a run without `--known`: per loop, the violations in its own logs of the shape its
    known divergence takes (`KNOWN_SHAPES`), with the `--known` that sets them aside. A reader
    who finds Claude Code's own RW-1 in a transcript of theirs is told it is the CLI's, not
    their fault to chase; a violation of another shape is no known divergence, and not named."""
    return [
        f"known divergences of {loop} among these ("
        + ", ".join(f"{rule}: {count}" for rule, count in per_rule.items())
        + f"): its own logs break these rules in this shape; --known {loop} sets them aside"
        for loop, per_rule in known_hint_counts(reports).items()
    ]


def known_hint_counts(reports: Iterable[LogReport]) -> dict[str, dict[str, int]]:
    """`known_hint_lines`' counts, sorted by loop then rule: per loop, per rule, the violations
    in its own logs that `--known LOOP` would set aside (the JSON document's summary says them
    too, `known_divergence_hints`)."""
    counts: dict[str, dict[str, int]] = {}
    for report in reports:
        loop = loop_of(report)
        shapes = KNOWN_SHAPES.get(loop)
        if not shapes or not report.facet_counts:
            continue
        for name, count in report.facet_counts.items():
            rule, _, facet = name.partition(":")
            shape = shapes.get(rule)
            if shape is not None and facet in shape.facets:
                per_rule = counts.setdefault(loop, {})
                per_rule[rule] = per_rule.get(rule, 0) + count
    return {loop: dict(sorted(counts[loop].items())) for loop in sorted(counts)}


def stale_lines(fates: Iterable[LoopFates], *, strict: bool) -> list[str]:
    """The text report of `stale_known`: a line per known divergence that did not occur, and one
    per loop naming those not exercised."""
    lines = []
    failing = "; --strict-known: fails the run" if strict else ""
    not_failing = "; --strict-known does not fail the run on it" if strict else ""
    for fate in fates:
        if not fate.logs:
            lines.append(f"known divergences of {fate.loop} not exercised: no {fate.loop} log")
            continue
        # Imported here: a situation is counted only in that loop's logs, which its reader read,
        # and the reader imports json and typing (`--known claude-code` over dsh logs doubled a
        # small check's start-up).
        from loopspec.properties.logcheck.harness_logs import SITUATIONS  # noqa: PLC0415

        for rule, (seen, logs) in fate.did_not_occur.items():
            lines.append(
                f"known divergence of {fate.loop} did not occur: {rule} ({SITUATIONS[rule]} "
                f"{_times(seen)} in {logs} of {_plural_logs(fate.logs)}, never breaking it: "
                f"an upgrade may have fixed it{failing})"
            )
        for rule, (seen, logs) in fate.race_not_lost.items():
            lines.append(
                f"known divergence of {fate.loop} did not occur (racy): {rule} "
                f"({SITUATIONS[rule]} {_times(seen)} in {logs} of {_plural_logs(fate.logs)}, "
                f"never breaking it: {RACY_RULES[fate.loop][rule]}, a race no log lost"
                f"{not_failing})"
            )
        if fate.not_exercised:
            lines.append(
                f"known divergences of {fate.loop} not exercised: "
                f"{', '.join(fate.not_exercised)} (no situation that shows them in "
                f"{'its log' if fate.logs == 1 else f'its {fate.logs} logs'})"
            )
        if fate.broken_otherwise:
            lines.append(
                f"known divergences of {fate.loop} broken only in another shape than its known one "
                f"(listed above as not the known divergence): {', '.join(fate.broken_otherwise)}"
            )
    return lines


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _plural_logs(count: int) -> str:
    return f"{count} log" + ("" if count == 1 else "s")
