"""What `loopspec conform` and `loopspec replay` do once their arguments are parsed: the search or
the replay, the text and JSON reports (the JSON format is documented in
`loopspec.properties.cli.conform`, the verbs' parser) and the case files.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import re
import shlex
import stat
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple, assert_never

import attrs

import loopspec
from loopspec.impl.system_words import system_reason
from loopspec.impl.user_files import STDIN_NAME, file_kind, shown
from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.model.errors import NO_RULE_BROKEN, LoopSpecError, tagged
from loopspec.model.near_miss import offered
from loopspec.properties.cli.answer_words import answer_words
from loopspec.properties.cli.command_words import Answered, answers_for, command_words
from loopspec.properties.cli.conform import NO_PROFILE
from loopspec.properties.conformance.case_folder import folder_cases, passed_over_words
from loopspec.properties.conformance.case_format import BUNDLED_TARGET_NAME, TARGET_KINDS
from loopspec.properties.conformance.case_portable import (
    ELSEWHERE,
    labelled,
    portable,
    portable_target,
    put_back_words,
    shared,
)
from loopspec.properties.conformance.command_codec import command_to_json, config_to_json
from loopspec.properties.conformance.compare import (
    NO_RULE,
    Divergence,
    DivergenceFound,
    displayed_observation,
    spec_pointer,
)
from loopspec.properties.conformance.run import (
    REDUCE_REPLAYS,
    REDUCE_SECONDS,
    SUMMARY_CASE,
    Case,
    CaseFileFault,
    CaseFileUnreadable,
    GuardedTarget,
    OutsideProfile,
    PassBefore,
    Reduced,
    Replay,
    RunReport,
    TargetBreakage,
    TargetError,
    TargetFactory,
    UndeclaredCapability,
    UnrepeatedDivergence,
    case_document,
    case_fields,
    close_factory,
    counted_pass,
    known_rows,
    known_table,
    load_case,
    profile_named,
    reduce_counterexample,
    replay_case,
    reported_with,
    resolve_target,
    rule_rows,
    rule_table,
    run_conformance,
    spec_text,
    sweep_progress,
    with_pass_before,
    with_wait_hint,
)
from loopspec.properties.conformance.situations import program_exercises
from loopspec.properties.conformance.start_errors import missing_relative_paths
from loopspec.properties.conformance.target import ConformanceTarget, ModelTarget, Observation
from loopspec.properties.conformance.value_notes import value_notes
from loopspec.properties.conformance.verdicts import run_verdict
from loopspec.properties.profiles import Profile
from loopspec.properties.typographic import dashed_option_hint
from loopspec.properties.unfilled_files import removed_unless_written

if TYPE_CHECKING:  # the documents' classes are imported only when one is written
    from loopspec.properties.conformance.exhaustive import ExhaustiveReport
    from loopspec.properties.conformance.report_documents import (
        ExhaustivePass,
        ReplayDocument,
        ReplayReduction,
    )


def command_text(command: Command) -> str:
    """A command as the driver protocol writes it (one JSON object), every character a terminal
    does not show (U+0085, a no-break or zero-width space, U+FEFF) escaped: printed raw, such a
    character vanished from the line a reader copies into a case by hand, which then tested
    other arguments (the program's words escape them too)."""
    text = json.dumps(command_to_json(command), ensure_ascii=False)
    return "".join(
        character if character.isprintable() else _escaped(character) for character in text
    )


def _escaped(character: str) -> str:
    """`character` as a JSON string escape (a surrogate pair past U+FFFF)."""
    return json.dumps(character)[1:-1]


def _describe_divergence(
    divergence: Divergence, config: LoopConfig | None, program: Sequence[Command]
) -> list[str]:
    """The divergence of `program` (run under `config`, which names the hook or call the
    diverging command answers for), the diff and the rule's SPEC text."""
    answered: Answered | None = None
    if config is not None:
        answered = answers_for(config, program).get(divergence.index)
    lines = [f"rule {divergence.rule_id}: {divergence.what}"]
    # PROTO-1 beside the rule blamed: a value changed on its way through the target's JSON.
    lines += value_notes(divergence.expected, divergence.actual)
    lines.append(
        f"first divergence after command #{divergence.index + 1}: "
        + command_words(divergence.command, answered)
    )
    model_did, target_did = answer_words(divergence.expected), answer_words(divergence.actual)
    if model_did != target_did:
        # The diff shows events as sorted JSON, type last: this says which events differ, and
        # what each result says (a hand-written case's question is answered here).
        lines += [f"  the model {model_did}", f"  the target {target_did}"]
    lines += [
        "",
        # One line each: the callers indent every line, and a block of several lines would
        # get the indent on its first line only.
        *divergence.diff().splitlines(),
    ]
    text = quoted_rule(divergence.rule_id)
    if text:
        lines += ["", "SPEC.md says:", *("  " + line for line in text.splitlines())]
    elif divergence.rule_id == NO_RULE:
        lines += ["", "No rule in SPEC.md prescribes this outcome: a gap to close in SPEC."]
    return lines


def quoted_rule(rule_id: str) -> str:
    """The rule's section of SPEC.md as a report quotes it: its title, statement and reason. The
    section's **Where.** (its line and the list after it, the section's last paragraph) names the
    model's functions and invariants, which a reader with only the report and the wheel cannot
    map; `loopspec spec` prints the whole section."""
    text = spec_text(rule_id)
    if not text:
        return ""
    kept: list[str] = []
    in_where = False
    for line in text.splitlines():
        in_where = line.startswith("**Where.**") or (in_where and bool(line.strip()))
        if not in_where:
            kept.append(line)
    return "\n".join(
        [
            *kept,
            f"(the whole rule: `loopspec spec {rule_id}`, or section 5 of SPEC.md, shipped "
            "in the installed package as loopspec/SPEC.md)",
        ]
    )


def replay_command(case_path: Path, target: dict[str, str]) -> str:
    """The command line that reruns a saved case against the target it was found on, naming
    it as the case records it (SAFE-1): a report lands in CI logs, and a `--cmd` as typed may
    hold a token."""
    recorded = portable_target(target)
    rerun = f"loopspec replay {shlex.quote(str(case_path))}"
    if "cmd" in recorded:
        rerun += f" --cmd {shlex.quote(recorded['cmd'])}"
    elif "impl" in recorded:
        rerun += f" --impl {shlex.quote(recorded['impl'])}"
    return rerun


def rerun_words(case_path: Path, target: dict[str, str]) -> str:
    """`rerun: COMMAND`, `replay_command` as a text report says it, with what to put back
    before running it said ahead of the colon."""
    return labelled("rerun", replay_command(case_path, target))


def counterexample_lines(
    report: RunReport,
    case_path: Path | None,
    target: dict[str, str],
    *,
    already_saved: bool = False,
) -> list[str]:
    """What a counterexample report says, the same in the CLI and the pytest plugin: the shrunk
    program, the rule and how it is broken, the diff, the rule's SPEC text, the case file
    (`already_saved`: an earlier run's, holding the same case)."""
    divergence = report.divergence
    if divergence is None:
        return []
    lines = []
    if report.config is not None:  # it names the hooks and tools the program's words name
        config = json.dumps(config_to_json(report.config), ensure_ascii=False)
        lines.append(f"configuration: {config}")
    # Its length is said here: the counts line above totals every program's commands.
    length = "1 command" if len(report.program) == 1 else f"{len(report.program)} commands"
    found = (
        # Shrinking reruns a program: one that did not diverge again is shown as first found.
        "command program as the first run found it (not shrunk: its rerun did not diverge)"
        if report.unrepeated
        else "shrunk command program"
    )
    lines.append(f"{found}, {length} (each in words, then as driver protocol JSON):")
    lines += _listing(report.config, report.program, "  ")
    lines.append("")
    described = _describe_divergence(divergence, report.config, report.program)
    lines += ["  " + line if line else "" for line in described]
    if case_path is not None:
        lines += ["", saved_case_words(case_path, already_saved), rerun_words(case_path, target)]
    return lines


def saved_case_words(case_path: Path, already_saved: bool) -> str:
    """The line naming the case file: `saved case:` was printed for a file an earlier run had
    saved (the same bug found again), which a CI job then uploaded as a new case."""
    if already_saved:
        return f"case already saved: {case_path} (an earlier run found the same case)"
    return f"saved case: {case_path}"


def counts_line(report: RunReport) -> str:
    """Programs run, what Hypothesis ran besides them, commands and time."""
    extra = []
    if report.retries:
        extra.append(f"{report.retries} abandoned part-way by Hypothesis and replaced")
    if report.shrink_runs:
        extra.append(f"{_runs(report.shrink_runs)} shrinking the counterexample")
    if report.reduce_runs:
        replays = "replay" if report.reduce_runs == 1 else "replays"
        extra.append(f"{report.reduce_runs} {replays} cutting it down")
    besides = f" (besides: {'; '.join(extra)})" if extra else ""
    # The time includes the shrinking runs and replays, whose commands `steps` does not count:
    # a rate from the two would understate the target's speed many times over.
    measured = report.seconds > 0 and not report.shrink_runs and not report.reduce_runs
    rate = f" ({report.steps / report.seconds:.2f} commands/s)" if measured else ""
    # Section 12's examples are played first: one diverging ends the run before any program
    # (the line would read "0 programs, 7 commands in all").
    if report.presentation_diverged:
        return f"{sweep_words(report)}{besides}, {report.seconds:.1f} s"
    programs = "1 program" if report.examples == 1 else f"{report.examples} programs"
    if report.presentation_examples:
        programs = f"{sweep_words(report)}, then {programs}"
    if report.exhaustive_runs:  # its commands and time are in the counts that follow
        programs = f"{_runs(report.exhaustive_runs)} of the exhaustive pass, then {programs}"
    # "in all": next to a counterexample's short program, a bare "12 commands" read as its length.
    commands = "1 command in all" if report.steps == 1 else f"{report.steps} commands in all"
    swept = ""
    if report.situation_examples:
        found = ", the last diverging" if report.divergence is not None else ""
        swept = f", then {targeted_words(report)}{found}"
    return f"{programs}{besides}{swept}, {commands}, {report.seconds:.1f} s{rate}"


def rule_row_text(row: Mapping[str, Any]) -> str:
    """One row of the rule table: the rule, its status and counts. The known divergences that
    touched a VIOLATED rule follow "besides": the violation is none of them (it read
    "VIOLATED: ORD-3:denied-at-once", naming the one divergence it was not)."""
    need = f" (needs {row['needs']})" if row["status"] == "not applicable" else ""
    count = f" x{row['generated']}" if row["generated"] else ""
    checked = f" (checked x{row['checked']})" if row["checked"] else ""
    known = ", ".join(row.get("known", ()))
    if known and row["status"] == "VIOLATED":
        plural = "s" if len(row["known"]) > 1 else ""
        known = f", besides the known divergence{plural} {known}"
    elif known:
        known = f": {known}"
    return f"  {row['rule']:<8} {row['status']}{known}{count}{checked}{need}"


def cut_programs_lines(rows: list[dict[str, Any]]) -> list[str]:
    """Under the known divergences' table, the programs a hard one cut (`cutsPrograms`), and
    why each cuts: the runs go different ways there, so nothing after it is compared, and a
    reader of "no divergence in N programs" would take every program as compared whole."""
    cutting = [row for row in rows if row["programs"] and row["cutsPrograms"]]
    if not cutting:
        return []
    cut = sum(row["programs"] for row in cutting)
    them = "that program" if cut == 1 else "them"
    lines = [
        f"  {cut} program{'' if cut == 1 else 's'} cut where a known divergence marked cut "
        f"showed: the two runs go different ways there, so nothing after it in {them} was "
        "compared; why each cuts:"
    ]
    lines += [f"    {row['key']}: {row['what']}" for row in cutting]
    return lines


def sweep_words(report: RunReport) -> str:
    """The section 12 examples played before the search (`presentation_sweep`), in words."""
    found = ", the last diverging" if report.presentation_diverged else ""
    return f"{report.presentation_examples} of SPEC.md section 12's presentation examples{found}"


def counted_programs(report: RunReport) -> str:
    """Whose commands the rule table and the transitions count, in words: the targeted programs'
    and an --exhaustive pass's as the random programs' (after one random program the verdict
    named 46 targeted programs while the table read "not reached by the generator" for the 19
    rules only they had reached)."""
    programs = "random and targeted programs" if report.situation_examples else "random programs"
    return f"exhaustive pass's runs and the {programs}" if report.exhaustive_runs else programs


def targeted_words(report: RunReport) -> str:
    """The targeted programs of rare situations played last (`situation_sweep`), in words."""
    played = report.situation_examples
    return f"{played} targeted program{'' if played == 1 else 's'} of rare situations"


def replayed_target(named: dict[str, str]) -> str:
    """The target a replay runs (`named` as `resolve_target` gives it, {} for the bundled
    implementation), as a report names it: an --impl as given, a --cmd as a case records it
    (SAFE-1: no token a CI log would keep), else the bundled loop by name, not by its factory's
    module path, which means nothing to a reader who never saw the source (`--impl` naming that
    factory printed an empty name)."""
    if "cmd" in named:
        return shown(portable(named["cmd"]))
    return shown(named["impl"]) if "impl" in named else "loopspec's bundled implementation"


def document_target(named: dict[str, str]) -> str:
    """The target a replay runs as its JSON document's `target` names it: the --impl as given,
    the --cmd as a case records it, or `BUNDLED_TARGET_NAME`, conform's name for the bundled
    implementation (replay wrote "", and a CI step comparing the two documents saw two loops).
    A path outside the working and home folders stays as typed, as on the console: a CI step
    passes conform's `target` on to replay's --cmd, where `<path>` is refused."""
    if "cmd" in named:
        return portable(named["cmd"])
    return named.get("impl", BUNDLED_TARGET_NAME)


def same_target(recorded: dict[str, str], named: dict[str, str]) -> bool:
    """Whether the target a replay runs (`named`, as `resolve_target` gives it) is the one the
    case records: the bundled implementation both times, the same --impl, or the same --cmd as
    typed or as a case writes it (`portable`), a path's leading `./` aside."""
    if "cmd" in recorded and "cmd" in named:
        typed = named["cmd"]
        return _command_key(recorded["cmd"]) in (_command_key(typed), _command_key(portable(typed)))
    return recorded == named


def _same_but_for_folders(recorded: dict[str, str], named: dict[str, str]) -> bool:
    """Whether the --cmd replayed reads as the case's once its paths outside the working and
    home folders are cut to their last names (`shared`), or where the case has `<path>/NAME`,
    any path of that last name (a receiver's copy in their own folder, `./loop/main.mjs`): the
    same loop, or another one whose file has that name. The case cannot tell."""
    if "cmd" not in recorded or "cmd" not in named:
        return False
    ours, theirs = _command_key(recorded["cmd"]), _command_key(shared(named["cmd"]))
    return len(ours) == len(theirs) and all(map(_same_but_for_folder, ours, theirs))


def _same_but_for_folder(recorded: str, named: str) -> bool:
    """Whether a word of the case's --cmd reads as the replay's: the same, or `<path>/NAME` (a
    Windows path's `<path>\\NAME`) and a path whose last name is NAME."""
    for separator in ("/", "\\"):
        kept = recorded.removeprefix(ELSEWHERE + separator)
        if kept != recorded:
            return named.replace("\\", "/").rsplit("/", 1)[-1] == kept
    return recorded == named


def _command_key(command: str) -> tuple[str, ...]:
    """`command`'s words, each path in it written without `./` (`./loop.py` and `loop.py` name
    one file; a program's name without a `/` is looked up on PATH instead, and kept as typed)."""
    try:
        words = shlex.split(command)
    except ValueError:  # a hand-edited case's unbalanced quote: the text itself
        return (command,)
    return tuple(
        normal if "/" in word and "/" in (normal := os.path.normpath(word)) else word
        for word in words
    )


def cutting_note(*, stopped_by_ctrl_c: bool, cut_short: bool, stopped: str) -> str | None:
    """What ended the shrinking or cutting down of a divergence before its smallest program,
    or None: Ctrl-C (`stopped` names what it stopped), or the cutting's own bounds."""
    further = (
        "the smallest program found by then is shown, and `loopspec replay CASE --reduce` "
        "with this target cuts it further"
    )
    if stopped_by_ctrl_c:
        return f"Ctrl-C stopped {stopped}: {further}"
    if cut_short:
        # A slow target: cutting stopped at its own bound with no --max-seconds given, and the
        # case was saved as if it were the smallest program.
        return (
            f"cutting the program down stopped after {REDUCE_SECONDS:g} s or "
            f"{REDUCE_REPLAYS} replays: {further}"
        )
    return None


UNREPEATED_NOTE = (
    "the target did not diverge when conform ran this program again (to confirm and shrink "
    "it): it answered one program two ways (exit 2), so a replay of the case may pass; "
    "replay it a few times to see how often it diverges; what changed between the two runs "
    "is the loop's own: a clock, chance, state kept from the last program, or an order taken "
    "from a hash map (Go ranges over a map in a new order each time: order by the reply's "
    "calls or a slice)"
)


def budget_note(
    report: RunReport, max_seconds: float | None, option: str = "--max-seconds"
) -> str | None:
    """What the time budget ended, or None: a bound the reader must know to weigh the verdict
    (no divergence in fewer programs than asked for; a counterexample not shrunk to the end), or
    Ctrl-C ended the shrinking, or the divergence did not happen again when rerun. `option`
    names the budget as the user gave it (the pytest plugin's `--loopspec-max-seconds`)."""
    if report.unrepeated:
        return UNREPEATED_NOTE
    if report.divergence is not None:
        cut = cutting_note(
            stopped_by_ctrl_c=report.stopped_by_ctrl_c,
            cut_short=report.cut_short,
            stopped="the shrinking",
        )
        if cut is not None:
            return cut
    if not report.out_of_time or max_seconds is None:
        return None
    budget = f"the {option} {max_seconds:g} budget"
    if report.divergence is None:
        programs = "1 program" if report.examples == 1 else f"{report.examples} programs"
        return f"{budget} ended the search after {programs}"
    return f"{budget} ended the shrinking: the smallest program found by then is shown"


def nothing_checked(
    report: RunReport, max_seconds: float | None, option: str = "--max-seconds"
) -> str:
    """Why a run that ran no program has no verdict (conform's exit 2, the plugin's failure).
    Only a time budget ends the search before its first program; worded without one anyway.
    `option` names the budget as the user gave it, as in `budget_note`."""
    ended = (
        "the search ended" if max_seconds is None else f"the {option} {max_seconds:g} budget ended"
    )
    # SPEC.md section 12's rows, played first, make no verdict on the rules; but "nothing was
    # checked" after 41 of them passed was not true.
    played = report.presentation_examples
    checked = (
        f"only {played} of SPEC.md section 12's presentation examples were played (none "
        "diverged), no random program: give the search longer"
        if played
        else "nothing was checked"
    )
    return f"{ended} before the first program: {checked}"


def _text_report(
    report: RunReport,
    case_path: Path | None,
    target: dict[str, str],
    max_seconds: float | None = None,
    *,
    already_saved: bool = False,
) -> None:
    verdict: str = report.verdict
    ended = budget_note(report, max_seconds)
    if report.profile is not None:
        verdict += f" (up to the {report.profile.name} profile's known divergences)"
    # The rule on the first line too, as the last line and the pytest plugin's first say it:
    # a CI log's reader, or a `| head -1`, met a COUNTEREXAMPLE naming no rule.
    named = ""
    if report.divergence is not None and report.divergence.rule_id != NO_RULE:
        named = f": {report.divergence.rule_id}{spec_pointer(report.divergence.rule_id)}"
    print(f"loopspec conform: {report.target}: {verdict}{named}")
    print(
        f"  {counts_line(report)}; capabilities: {', '.join(sorted(report.capabilities)) or 'none'}"
    )
    if ended is not None:
        print(f"  {ended}")
    if report.situations_unplayed:
        assert report.profile is not None  # only a profile keeps a targeted program back
        print(f"\ntargeted programs the {report.profile.name} profile kept from being compared:")
        for situation in report.situations_unplayed:
            print(f"  {situation.name}: {situation.reason}")
    if report.divergence is not None:
        print()
        for line in counterexample_lines(report, case_path, target, already_saved=already_saved):
            print(line)
    programs = counted_programs(report)
    # Section 12's examples count their presentation situations alone, not their transitions.
    presented = (
        ", and for the ACP and VIEW rules section 12's examples,"
        if report.presentation_examples
        else ""
    )
    print(
        f"\nrules (exercised xN: the {programs}{presented} created the situation the rule "
        "governs N times; checked xM: M comparisons covered the events it speaks about):"
    )
    for row in rule_table(report):
        print(rule_row_text(row))
        if "unreachable" in row:
            print(f"  {'':<8} but not reached by any program: {row['unreachable']}")
        if "unobservable" in row:
            print(f"  {'':<8} not seen through the protocol: {row['unobservable']}")
    if report.profile is not None:
        print(f"\nknown divergences ({report.profile.implementation}):")
        rows = known_table(report)
        width = max(len(row["key"]) for row in rows) if rows else 0
        for row in rows:
            count = row["programs"]
            shown = f"{count} program{'' if count == 1 else 's'}" if count else "not shown"
            if count and row["cutsPrograms"]:
                shown += " cut"
            print(f"  {row['key']:<{width}}  {shown:>17}  {', '.join(row['rules']) or '-'}")
        for line in cut_programs_lines(rows):
            print(line)
    print(f"\ntransitions exercised by the {programs}:")
    # "-> EXE-1" read as a violation of EXE-1: it is a command both refused, as they must.
    print("  (phase + command -> accepted, or the rule by which the model refused the command)")
    for transition, hits in report.transitions.items():
        print(f"  {hits:>6}  {transition}")
    # The verdict again, last: the tables above push the first line off a screen.
    if report.divergence is None:
        statuses = Counter(row["status"] for row in rule_table(report))
        tally = "; ".join(f"{status} {count}" for status, count in statuses.items())
        programs = "1 program" if report.examples == 1 else f"{report.examples} programs"
        if report.presentation_examples:
            programs = f"{report.presentation_examples} presentation examples and {programs}"
        if report.situation_examples:
            programs += f" and {targeted_words(report)}"
        if report.exhaustive_runs:
            # Its programs are the verdict's too: "no divergence in 0 programs" followed a
            # pass the budget ended after 69.
            searched = report.examples or report.presentation_examples
            ran = f"{_runs(report.exhaustive_runs)} of the exhaustive pass"
            programs = f"{ran} and {programs}" if searched else ran
        # The guarantee is the programs run: with the time spent, say within what, too.
        within = f" within {max_seconds:g} s" if ended is not None else ""
        # Not every program was compared to its end: a hard known divergence cut some.
        cut = sum(row["programs"] for row in known_table(report) if row["cutsPrograms"])
        if cut:
            within += f" ({cut} of them compared only up to a known divergence: cut, above)"
        print(f"\n{verdict}: no divergence in {programs}{within}; rules: {tally}")
    else:  # with the next step
        rule = report.divergence.rule_id
        rerun = f"; {rerun_words(case_path, target)}" if case_path is not None else ""
        print(f"\n{verdict}: {rule}{spec_pointer(rule)}{rerun}")


def json_report(
    report: RunReport,
    case_path: Path | None,
    target: dict[str, str],
    max_seconds: float | None = None,
    *,
    already_saved: bool = False,
    exhaustive: ExhaustiveClean | None = None,
) -> dict[str, Any]:
    """The `--format json` document (versioned: `format` is `loopspec-conform/1`; its JSON
    Schema: `loopspec schema conform`); `already_saved`: `case_path` is an earlier run's;
    `exhaustive`: the --exhaustive pass run first, in which nothing diverged."""
    # The documents' classes, only when one is written (see `rule_rows`).
    from loopspec.properties.conformance.document_schema import converter  # noqa: PLC0415
    from loopspec.properties.conformance.report_documents import (  # noqa: PLC0415
        CONFORM_FORMAT,
        ConformDivergence,
        ConformDocument,
        ExhaustivePass,
        UnplayedSituation,
    )

    divergence = None
    if report.divergence is not None:
        assert report.config is not None
        divergence = ConformDivergence(
            **_divergence_fields(report.divergence, answers_for(report.config, report.program)),
            config=config_to_json(report.config),
            program=[command_to_json(c) for c in report.program],
            **observations_json(report.divergence),
            case=str(case_path) if case_path else None,
            replay=replay_command(case_path, target) if case_path else None,
            case_already_saved=already_saved and case_path is not None,
        )
    profiled = report.profile is not None
    document = ConformDocument(
        format=CONFORM_FORMAT,
        # As replay's: a CI step passes it to replay's --impl or --cmd.
        target=document_target(target),
        target_name=report.target,
        conformant=report.conformant,
        verdict=str(report.verdict),
        capabilities=sorted(report.capabilities),
        examples=report.examples,
        retries=report.retries,
        shrink_runs=report.shrink_runs,
        reduce_runs=report.reduce_runs,
        steps=report.steps,
        seconds=round(report.seconds, 3),
        max_seconds=max_seconds,
        out_of_time=report.out_of_time,
        stopped_by_ctrl_c=report.stopped_by_ctrl_c,
        cut_short=report.cut_short,
        unrepeated=report.unrepeated,
        presentation_examples=report.presentation_examples,
        situation_examples=report.situation_examples,
        rules=rule_rows(report),
        transitions=report.transitions,
        profile=report.profile.name if report.profile is not None else None,
        exhaustive=None if exhaustive is None else _exhaustive_pass(exhaustive, ExhaustivePass),
        known_divergences=known_rows(report) if profiled else None,
        situations_unplayed=[
            UnplayedSituation(situation.name, situation.reason)
            for situation in report.situations_unplayed
        ]
        if profiled
        else None,
        divergence=divergence,
    )
    written: dict[str, Any] = converter.unstructure(document)
    return written


def _exhaustive_pass(clean: ExhaustiveClean, document: type[ExhaustivePass]) -> ExhaustivePass:
    """What the JSON document says of an --exhaustive pass in which nothing diverged, as the
    text says it in its `exhaustive:` line (on stderr beside a JSON document)."""
    ran = clean.report
    return document(
        k=clean.k,
        skipped_for=list(clean.lacking),
        guarantee=None if ran is None or ran.out_of_time else ran.guarantee,
        out_of_time=ran is not None and ran.out_of_time,
        programs=0 if ran is None else ran.programs,
        runs=0 if ran is None else ran.runs,
        commands=0 if ran is None else ran.commands,
    )


def _divergence_fields(divergence: Divergence, answers: dict[int, Answered]) -> dict[str, Any]:
    """What conform's and replay's JSON documents say first of a divergence: the rule and what
    broke it, the command's place and, in words, the command (with the hook or call it answers
    for) and what each side did with it, as the text report says them."""
    return {
        "rule": divergence.rule_id,
        "what": divergence.what,
        "spec_text": spec_text(divergence.rule_id),
        "command_index": divergence.index,
        "command_words": command_words(divergence.command, answers.get(divergence.index)),
        "model_did": answer_words(divergence.expected),
        "target_did": answer_words(divergence.actual),
    }


def _observation_json(observation: Observation) -> dict[str, Any]:
    """One side's observation of a command, as the documents write it."""
    shown = displayed_observation(observation)
    assert isinstance(shown, dict)  # an observation is shown as an object
    return shown


def observations_json(divergence: Divergence) -> dict[str, Any]:
    """What the documents say last of a divergence: both observations and their diff."""
    return {
        "expected": displayed_observation(divergence.expected),
        "actual": displayed_observation(divergence.actual),
        "diff": divergence.diff(),
    }


class SavedCase(NamedTuple):
    """Where a case document is: `already_saved` when the folder held the same document, and
    nothing was written."""

    path: Path
    already_saved: bool


def write_case_file(report: RunReport, folder: Path, target: dict[str, str]) -> Path:
    """Write the failed run's case file into `folder`; its path."""
    return saved_case(report, folder, target).path


def saved_case(
    report: RunReport, folder: Path, target: dict[str, str], also_in: Sequence[Path] = ()
) -> SavedCase:
    """What `write_case_file` does, saying whether `folder`, or a folder of `also_in`, held that
    case already (`_save_case_document`)."""
    assert report.divergence is not None
    return _save_case_document(case_document(report, target), folder, also_in)


def _save_case_document(
    document: dict[str, Any], folder: Path, also_in: Sequence[Path] = ()
) -> SavedCase:
    """Write a case document into `folder` under a new name; its path. A file there, or in a
    folder of `also_in`, that holds the same case already (`_same_case`) is that path: a saved
    case the pytest plugin replays still diverging, the random suite usually finds its program
    again, and a copy of it would join the user's committed cases on every run (the committed
    folder is `also_in` where new cases go elsewhere, a read-only checkout's CI)."""
    for place in also_in:
        for saved in sorted(place.glob(f"case-{document['rule']}-*.json")):
            if _same_case(saved, document):
                return SavedCase(saved, already_saved=True)
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, indent=2) + "\n"
    for saved in sorted(folder.glob(f"case-{document['rule']}-*.json")):
        if _same_case(saved, document):
            return SavedCase(saved, already_saved=True)
    # Numbered after this rule's own cases only: a user's other files there (a colleague's
    # case saved as ana-ord3.json, notes) would make the first ORD-3 case case-ORD-3-1.
    pattern = re.compile(rf"case-{re.escape(document['rule'])}-(\d+)\.json")
    taken = [int(m.group(1)) for p in folder.iterdir() if (m := pattern.fullmatch(p.name))]
    number = max(taken, default=-1) + 1
    while True:
        case_path = folder / f"case-{document['rule']}-{number}.json"
        try:
            # Exclusive creation: a case saved earlier (perhaps already attached to a bug
            # report) is never overwritten, even after the user deleted some of its neighbours.
            _write_new_file(case_path, text.encode("utf-8"))
        except FileExistsError:
            number += 1
            continue
        return SavedCase(case_path, already_saved=False)


def _same_case(saved: Path, document: dict[str, Any]) -> bool:
    """Whether the case file `saved` holds the case `document` is: the same program (the
    configuration and the commands, as this release writes them) found breaking the same rule
    on the same target (as read: the bundled loop's earlier record is its `{}`; a build of it
    declaring other capabilities is another) under the same profile. The rest is compared on
    no byte: a case an earlier release saved differs in the release it names, its summary
    (none before) and the words of `what`, and was saved again on every run."""
    if not saved.is_file():
        return False
    try:
        case = load_case(saved)
    except LoopSpecError:  # not a case this release reads: not this one
        return False
    profile = case.profile.name if case.profile is not None else None
    declared = document.get("capabilities")
    # Both recorded and unequal: another build (a case recording none is an older one's).
    other_build = (
        case.capabilities is not None
        and declared is not None
        and case.capabilities != frozenset(declared)
    )
    return (
        not other_build
        and case.rule == document["rule"]
        and case.target == document["target"]
        and profile == document.get("profile")
        and config_to_json(case.config) == document["config"]
        and [command_to_json(command) for command in case.commands] == document["commands"]
    )


def _write_new_file(path: Path, data: bytes) -> None:
    """Create `path` holding `data` (FileExistsError if it exists), or leave nothing there: a
    full disk, Ctrl-C or SIGTERM part way through left an empty or cut case file behind."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with removed_unless_written(path, descriptor):
            unwritten = memoryview(data)
            while unwritten:
                unwritten = unwritten[os.write(descriptor, unwritten) :]
    finally:
        os.close(descriptor)


def keep_hypothesis_out_of_the_working_folder() -> None:
    """Send Hypothesis's cache to a temporary directory unless HYPOTHESIS_STORAGE_DIRECTORY
    names one: by default it writes ./.hypothesis, and a run must leave the user's folder as it
    was (`conform` and `demo` both search with Hypothesis)."""
    os.environ.setdefault(
        "HYPOTHESIS_STORAGE_DIRECTORY", str(Path(tempfile.gettempdir()) / "loopspec-hypothesis")
    )


def unwritable_folder(folder: Path) -> str | None:
    """Why a case could not be saved in `folder` (made when missing), or None: judged at the
    folder or, when it does not exist yet, the nearest one above it that does."""
    try:
        folder.stat()
    except FileNotFoundError:
        if folder.is_symlink():  # making the folder would fail "file exists" after the search
            return "a symbolic link to nothing"
    except OSError as error:
        if error.errno == errno.ELOOP:  # mkdir would fail "file exists" too
            return system_reason(error)
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a directory"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"cannot write in {existing}"
    return None


def _timeout_without_cmd(args: argparse.Namespace) -> bool:
    """`--answer-timeout` given without `--cmd`: said, as a usage error. An in-process target
    has no answers to await, and a timeout taken without a word would seem to hold."""
    if args.answer_timeout is None or args.cmd is not None:
        return False
    print(
        "loopspec: error: --answer-timeout applies to a --cmd process only",
        file=sys.stderr,
    )
    return True


def _named_target(args: argparse.Namespace) -> tuple[TargetFactory, dict[str, str]]:
    """The target `--impl` or `--cmd` names (a process awaited `--answer-timeout` seconds)."""
    return resolve_target(args.impl, args.cmd, answer_timeout=args.answer_timeout)


def run_conform(args: argparse.Namespace) -> int:
    """Run the machine; report; save the case on failure."""
    if _timeout_without_cmd(args):
        return 2
    # From the start: a CI job's budget is conform's whole run, the exhaustive pass included.
    deadline = None if args.max_seconds is None else time.monotonic() + args.max_seconds
    # `--case-dir=~/cases` reaches conform unexpanded (a shell expands `~` only at a word's
    # start), and made a folder named `~` in the current one. os.path's, as a shell does, leaves
    # `~name` of a user this machine lacks as typed (pathlib's raised RuntimeError).
    case_folder = Path(os.path.expanduser(args.case_dir))
    # Checked before the search: a counterexample found in minutes must not be lost to a typo.
    if case_folder.exists() and not case_folder.is_dir():
        print(
            f"loopspec: error: --case-dir {case_folder}: exists and is not a directory",
            file=sys.stderr,
        )
        return 2
    unwritable = unwritable_folder(case_folder)
    if unwritable is not None:
        print(f"loopspec: error: --case-dir {case_folder}: {unwritable}", file=sys.stderr)
        return 2
    keep_hypothesis_out_of_the_working_folder()
    factory, target = _named_target(args)
    unclosed: LoopSpecError | None = None
    exhaustive: int | ExhaustiveClean | None = None
    unrepeated: UnrepeatedDivergence | None = None
    try:
        if args.exhaustive is not None:
            exhaustive = _run_exhaustive(
                factory, args.exhaustive, args.format, case_folder, target, deadline=deadline
            )
            if isinstance(exhaustive, int):
                return exhaustive
        report = run_conformance(
            factory,
            examples=args.examples,
            seed_value=args.seed,
            steps=args.steps,
            show_progress=True,
            profile=profile_named(args.profile),
            deadline=deadline,
        )
    except UnrepeatedDivergence as not_again:  # reported and saved, then said: exit 2
        unrepeated, report = not_again, not_again.report
    except TargetError as broke:
        raise with_saved_program(broke, case_folder, target, args.profile) from None
    finally:
        # A target that fails only at shutdown (exits without `bye`) still gets the report of
        # the run it finished, then the error and exit 2; it lost the whole report before.
        unclosed = _closing_error(factory)
    if isinstance(exhaustive, ExhaustiveClean) and exhaustive.counted is not None:
        report = with_pass_before(report, exhaustive.counted)
    exhaustive_ran = isinstance(exhaustive, ExhaustiveClean) and exhaustive.ran > 0
    if report.examples == 0 and report.divergence is None and not exhaustive_ran:
        # No program ran, so no verdict: a pass here would be a CI job green on nothing (the
        # exhaustive pass's programs count: it was skipped, or the budget ended it first).
        print(f"loopspec: error: {nothing_checked(report, args.max_seconds)}", file=sys.stderr)
        if unclosed is not None:  # the target was started (its probe) and failed to end
            _print_unclosed(unclosed, after="after the budget ended")
        return 2
    saved = None
    unsaved = None
    if report.divergence is not None:
        try:
            saved = saved_case(report, case_folder, target)
        except OSError as error:  # the report (with the shrunk program) is still printed
            said = system_reason(error)
            unsaved = f"loopspec: error: the case was not saved in {case_folder}: {said}"
    case_path = saved.path if saved is not None else None
    already = saved is not None and saved.already_saved
    if args.format == "json":
        document = json_report(
            report,
            case_path,
            target,
            args.max_seconds,
            already_saved=already,
            exhaustive=exhaustive if isinstance(exhaustive, ExhaustiveClean) else None,
        )
        print(json.dumps(document, indent=2))
    else:
        _text_report(report, case_path, target, args.max_seconds, already_saved=already)
    if unsaved is not None:  # still exit 1: the verdict is the counterexample printed above
        print(unsaved, file=sys.stderr)
    if unrepeated is not None:
        # After the report, as a target failing at shutdown is said: the program is above.
        rerun = "" if case_path is None else rerun_words(case_path, target)
        kept = f"; its program is saved: {rerun}" if rerun else ""
        print(f"loopspec: error: {unrepeated}{kept}", file=sys.stderr)
    if unclosed is not None:
        _print_unclosed(unclosed)
        return 2
    if unrepeated is not None:
        return 2
    return 0 if report.conformant else 1


def _closing_error(factory: TargetFactory) -> LoopSpecError | None:
    """End the target; the error of a shared process that failed at shutdown (no `bye`)."""
    try:
        close_factory(factory)
    except LoopSpecError as error:
        return error
    return None


def _print_unclosed(error: LoopSpecError, after: str = "after the run reported above") -> None:
    said = tagged(error.rule_id, f"{after}: {error.message}")
    print(f"loopspec: error: {with_wait_hint(said, '--answer-timeout')}", file=sys.stderr)


# A process target names the command it awaited by the seq its message carried, counted over the
# process's life ("the command of seq 41"): a number found in no case.
_COMMAND_BY_SEQ = re.compile(r"\bthe command of seq \d+\b")


def _naming_the_command(first: str, place: str) -> str:
    """`first`, an error's first line, naming the command the target broke at by `place` (its
    number in the program or case): where a process target named it by its seq, instead of that
    (one command, one number), else after the line."""
    # A function, not a template: `place` quotes the command, whose `\u00e4` a template reads.
    named, found = _COMMAND_BY_SEQ.subn(lambda _: place, first, count=1)
    return named if found else f"{first}; at {place}"


def at_case_command(broke: TargetError) -> TargetError:
    """The target broke while a case was replayed (SAFE-5): the same error, its first line
    saying at which command of the case, as conform says at which of a program."""
    if not broke.program:
        return broke
    first, newline, rest = broke.message.partition("\n")
    place = f"command #{len(broke.program)} of the case ({_last_command_words(broke)})"
    return TargetError(
        f"{_naming_the_command(first, place)}{newline}{rest}",
        config=broke.config,
        program=broke.program,
        rule_id=broke.rule_id,
    )


def _last_command_words(broke: TargetError) -> str:
    """The command the target broke at (the last of `broke.program`, which is not empty) in
    plain words, as a counterexample names its command: its kind alone did not tell a harness
    author which hook answer or which call broke the loop. One line: `command_words` escapes
    the texts it shows."""
    last = len(broke.program) - 1
    answered = None if broke.config is None else answers_for(broke.config, broke.program)
    return command_words(broke.program[last], None if answered is None else answered.get(last))


_RAISED_AT = re.compile(r"\(at (?P<file>/[^()]*?):(?P<line>\d+), in ")


def _portable_paths(what: str) -> str:
    """`what` with the file the target raised in shown as its module's path (`pkg/loop.py`)
    rather than where it lies on this machine: a case is read on another, and the absolute
    path named the user's home and folders and helped no one there."""

    def portable(found: re.Match[str]) -> str:
        file = Path(found["file"]).resolve()
        roots = [Path(entry).resolve() for entry in sys.path if entry]
        inside = [root for root in roots if file.is_relative_to(root)]
        # The deepest import root: the path the module is imported by.
        shown = file.relative_to(max(inside, key=lambda root: len(root.parts))) if inside else None
        name = shown.as_posix() if shown is not None else file.name
        return f"(at {name}:{found['line']}, in "

    return _RAISED_AT.sub(portable, what)


def with_saved_program(
    broke: TargetError,
    folder: Path,
    target: dict[str, str],
    profile: str | None,
    rerun_case: Callable[[Path], str] | None = None,
    *,
    also_in: Sequence[Path] = (),
) -> TargetError:
    """The target broke in a program (SAFE-5: exit 2, not a counterexample): the same error,
    its first line saying at which command and how to rerun the program, saved as a case (the
    program is random; without it a crash found once could not be reproduced) unless `folder`
    or one of `also_in` holds it already. `rerun_case` gives the command that reruns the saved
    case (default: `loopspec replay` on `target`)."""
    if broke.config is None or not broke.program:
        return broke
    first, newline, rest = broke.message.partition("\n")
    number = len(broke.program)
    document = case_fields(
        target,
        rule=broke.rule_id,
        # The first line only: the rest is the target's stderr, which may hold anything (paths,
        # secrets) and is no part of a case meant to be shared. The case is the program: its
        # command is named by its number in it, not by the seq the process counted to.
        what=_portable_paths(_COMMAND_BY_SEQ.sub(f"command #{number} of the case", first)),
        config=broke.config,
        commands=broke.program,
        profile=profile,
    )
    try:
        case_path = _save_case_document(document, folder, also_in).path
    except OSError as error:
        rerun = f"its program was not saved in {folder}: {system_reason(error)}"
    else:
        command = rerun_case(case_path) if rerun_case else replay_command(case_path, target)
        rerun = labelled("rerun it", command)
    place = f"command #{number} of a program ({_last_command_words(broke)})"
    return TargetError(
        f"{_naming_the_command(first, place)}; {rerun}{newline}{rest}",
        config=broke.config,
        program=broke.program,
        rule_id=broke.rule_id,
        trace=broke.trace,
    )


# What the exhaustive alphabet uses; a target without one of these is not run exhaustively.
EXHAUSTIVE_NEEDS = frozenset(
    {"pre-hooks", "rewrite", "approval", "parallel", "abort", "crash-repair"}
)


class ExhaustiveClean(NamedTuple):
    """An --exhaustive pass in which no program diverged: its K, the capabilities it needs
    that the target lacks (it was skipped for them), else its report and what it covered."""

    k: int
    lacking: tuple[str, ...]
    report: ExhaustiveReport | None
    counted: PassBefore | None = None

    @property
    def ran(self) -> int:
        """The programs the pass ran (0: skipped)."""
        return 0 if self.report is None else self.report.runs


def _runs(count: int) -> str:
    return "1 run" if count == 1 else f"{count} runs"


def _run_exhaustive(
    factory: Callable[[], ConformanceTarget],
    k: int,
    style: str,
    case_folder: Path,
    target_named: dict[str, str],
    *,
    deadline: float | None = None,
) -> int | ExhaustiveClean:
    """Run every program of at most `k` commands; the exit code when it diverged, else what
    it ran (or the capabilities it lacked, skipped), for the JSON document.

    The bounded-exhaustive pass comes first; the random search continues after it. A diverging
    program is saved as a case, as a random counterexample is: the alphabet's configuration is
    in no report, so without the case it could not be replayed."""
    from loopspec.properties.conformance.exhaustive import (  # noqa: PLC0415 -- only this flag
        EXHAUSTIVE_CONFIG,
        run_exhaustive,
    )
    from loopspec.properties.conformance.machine import (  # noqa: PLC0415 -- likewise
        program_counter,
        reset_coverage,
    )

    started = time.monotonic()

    # Guarded as the random search's targets are: a target that raises is PROTO-1, exit 2,
    # with the program it broke on (SAFE-5), never a traceback.
    target = GuardedTarget(factory, TargetBreakage())
    try:
        declared = target.reset(EXHAUSTIVE_CONFIG)
        lacking = sorted(EXHAUSTIVE_NEEDS - declared)
        if lacking:
            note = f"exhaustive: skipped, the target does not declare {', '.join(lacking)}"
            print(note, file=sys.stderr if style == "json" else sys.stdout)
            return ExhaustiveClean(k, tuple(lacking), None)
        reset_coverage()
        with sweep_progress("programs of the exhaustive pass run") as shown:
            report = run_exhaustive(
                target, k, progress=shown, deadline=deadline, counter=program_counter
            )
    finally:
        target.close()
    divergence = report.divergence
    if divergence is None:
        # Fewer runs than programs: a run checks each prefix of its program on the way.
        line = (
            f"exhaustive: {report.guarantee}; {report.runs} runs (a run compares every prefix "
            f"of its program), {report.commands} commands"
        )
        if report.out_of_time:
            # No guarantee: "every program ... agrees" would claim the programs never run.
            ended = "exhaustive: the --max-seconds budget ended the pass"
            line = (
                f"{ended} after {_runs(report.runs)} ({report.commands} commands), none "
                f"diverging: no guarantee for the programs of at most {k} commands"
                if report.runs
                else f"{ended} before its first program"
            )
        print(line, file=sys.stderr if style == "json" else sys.stdout)
        counted = counted_pass(report.runs, report.commands, time.monotonic() - started)
        return ExhaustiveClean(k, (), report, counted)
    # Cut down as a random counterexample is: the first diverging program of the enumeration
    # had commands, calls and hooks the divergence did not need (9 of the 12 mutants it finds
    # at K = 4).
    reduced = reduce_counterexample(
        factory, DivergenceFound(divergence, EXHAUSTIVE_CONFIG, report.program)
    )
    divergence = reduced.divergence
    # Said as the random search's is: the case was saved as if it were the smallest program.
    cut_short = not reduced.complete and not reduced.interrupted
    cut = cutting_note(
        stopped_by_ctrl_c=reduced.interrupted,
        cut_short=cut_short,
        stopped="cutting the program down",
    )
    case = case_fields(
        target_named,
        rule=divergence.rule_id,
        what=divergence.what,
        config=reduced.config,
        commands=reduced.program,
        capabilities=declared,
    )
    program = case["commands"]
    saved: SavedCase | None = None
    unsaved = None
    try:
        saved = _save_case_document(case, case_folder)
    except OSError as error:  # the program is still printed below
        said = system_reason(error)
        unsaved = f"loopspec: error: the case was not saved in {case_folder}: {said}"
    case_path = saved.path if saved is not None else None
    rerun = replay_command(case_path, target_named) if case_path is not None else None
    # Kept however the replays went, as the exit status is: the pass confirms no rerun.
    verdict = run_verdict(conformant=False, unrepeated=False)
    if style == "json":
        # Its class, only when the document is written (see `json_report`).
        from loopspec.properties.conformance.document_schema import converter  # noqa: PLC0415
        from loopspec.properties.conformance.report_documents import (  # noqa: PLC0415
            EXHAUSTIVE_FORMAT,
            ExhaustiveDocument,
        )

        document = ExhaustiveDocument(
            format=EXHAUSTIVE_FORMAT,
            exhaustive=k,
            conformant=False,
            verdict=str(verdict),
            rule=divergence.rule_id,
            what=divergence.what,
            spec_text=spec_text(divergence.rule_id),
            command_index=divergence.index,
            config=case["config"],
            program=program,
            reduce_runs=reduced.replays,
            stopped_by_ctrl_c=reduced.interrupted,
            cut_short=cut_short,
            diff=divergence.diff(),
            case=str(case_path) if case_path is not None else None,
            replay=rerun,
            case_already_saved=saved is not None and saved.already_saved,
        )
        print(json.dumps(converter.unstructure(document), indent=2))
    else:
        rule = divergence.rule_id
        # The rule on the first line too, as the random search's report names it there.
        print(
            f"loopspec conform --exhaustive {k}: {verdict}: a program of {len(program)} "
            f"commands diverges: {rule}{spec_pointer(rule)}"
        )
        if cut is not None:
            print(f"  {cut}")
        print(*_listing(reduced.config, reduced.program, "  "), sep="\n")
        print(*_describe_divergence(divergence, reduced.config, reduced.program), sep="\n")
        if saved is not None:
            print(f"\n{saved_case_words(*saved)}\n{rerun_words(saved.path, target_named)}")
        # The verdict again, last, as a random counterexample's report ends.
        print(f"\n{verdict}: {rule}{spec_pointer(rule)}")
    if unsaved is not None:
        print(unsaved, file=sys.stderr)
    return 1


def _recorded_target_note(
    recorded: dict[str, str], named: dict[str, str], *, given: bool = True
) -> str:
    """What the case says it was found on, beside the target replayed (`named`, {} for the
    bundled implementation): whether the two are the same, and how to replay on the recorded
    one when not (rule SAFE-1: it is shown, never run). "recorded target: X (the one
    replayed)" read as if replay had run the recorded loop. A case without a `target`
    (`given` False) was written by hand and found on no loop."""
    if not given:
        # "found on loopspec's bundled implementation, not this replay's target" told the
        # reader who had just written the case to replay it elsewhere.
        return "the case names no loop it was found on (a case written by hand)"
    found = "the case was found on"
    kind = next((kind for kind in TARGET_KINDS if kind in recorded), None)
    if kind is None:
        # A case records {} (or nothing) when conform ran without --impl or --cmd: "none" read
        # as "the target was lost" to the colleague the case was sent to.
        bundled = f"{found} loopspec's bundled implementation"
        if not named:
            return f"{bundled}, the same target as this replay's"
        return f"{bundled}, not this replay's target: replay with no --impl or --cmd to run it"
    option, value = f"--{kind}", recorded[kind]
    recorded_as = f"{option} {shown(shlex.quote(value))}"
    # "not this replay's command: not run" above "2 commands replayed" left the reader asking
    # which ran: the program runs on the target named, and the recorded one never does.
    runs = replayed_target(named)
    on_this_one = f"the program runs on {runs}, not on the recorded one"
    if same_target(recorded, named):
        # Bob's own copy at Alice's relative path is the same command, not the same loop:
        # "the same target" vouched for a loop replay cannot tell apart.
        what = "command" if option == "--cmd" else "factory"
        return f"{found} {recorded_as}, the same {what} as this replay's"
    if _same_but_for_folders(recorded, named):
        # "The same target" told Bob his /opt/bob/main.mjs was Alice's /srv/alice/main.mjs.
        return (
            f"{found} {recorded_as}, which may be this replay's command: the case keeps no "
            f"folder of a path outside the one conform ran in and the home folder ({ELSEWHERE}"
            f"), so the program runs on {runs} as given"
        )
    if "cmd" in named and option == "--cmd":
        # Another spelling of the same loop, often: the case was shared, and a path in it is
        # relative to the folder conform ran in. Naming it again would not help.
        return (
            f"{found} {recorded_as} (as conform was given it, in the folder it ran in), not "
            f"this replay's command: {on_this_one}"
        )
    if named:
        return f"{found} {recorded_as}, not this replay's target: {on_this_one}"
    words = put_back_words(value)
    if words:
        # The case never holds the secret nor the folder: copied as it stands, the command
        # would run with the word `<hidden>` for a token.
        return (
            f"{found} {recorded_as}, not this replay's target: to replay on it, pass that "
            f"{option} with {words} (the case does not keep it)"
        )
    return f"{found} {recorded_as}, not this replay's target: pass {recorded_as} to replay on it"


def replay_profile(
    given: str | None, recorded: Profile | None
) -> tuple[Profile | None, str | None]:
    """The profile a replay applies (`--profile`, else the case's) and the line that says which
    and why; a profile erases divergences, so a verdict must never hide which one ran."""
    if given is None:
        if recorded is None:
            return None, None
        return (
            recorded,
            f"profile: {recorded.name}, as the case names (--profile none compares whole)",
        )
    profile = None if given == NO_PROFILE else profile_named(given)
    if recorded is None:
        if profile is None:
            return None, None
        return profile, f"profile: {given} (--profile; the case names none)"
    if profile is not None and profile.name == recorded.name:
        return profile, f"profile: {given} (--profile, as the case names)"
    return profile, f"profile: {given} (--profile; the case was recorded with {recorded.name})"


def run_replay(args: argparse.Namespace) -> int:
    """Rerun one case against the target this command line names (never the recorded one); or
    several, a directory's, as a regression suite (`replay_all`)."""
    if _timeout_without_cmd(args):
        return 2
    if args.reduce and STDIN_CASE in args.case:  # a usage error: no rule is broken
        print(
            "loopspec: error: --reduce saves the cut-down case beside the case file: "
            "name a file, not standard input",
            file=sys.stderr,
        )
        return 2
    named: list[str] = [_read_from(given) for given in args.case]
    if args.reduce and (len(named) > 1 or _is_folder(named[0])):
        # A usage error: no rule is broken. With --format json, its document's `reduced` says
        # what the cutting made.
        print("loopspec: error: --reduce takes one case file", file=sys.stderr)
        return 2
    if args.reduce and (kind := _no_file_beside(named[0])):
        # Checked before replaying: `replay <(gunzip -c case.json.gz) --reduce` replayed and cut
        # the case, then said it "was not saved in /dev/fd: no such file or directory".
        piped = " (a <(...) pipe?)" if kind == "a FIFO" else ""
        print(
            "loopspec: error: --reduce saves the cut-down case beside the case file: "
            f"{named[0]} is {kind}{piped}, not a file in a folder: save the case in a file and "
            "name that",
            file=sys.stderr,
        )
        return 2
    if len(named) > 1 or _is_folder(named[0]):
        return replay_all(args, case_files(named))
    return _replay_one(args, named[0])


def _no_file_beside(path: str) -> str:
    """What `path` is when it is neither a regular file nor a folder (a FIFO, a device), which
    nothing can be saved beside: "" otherwise, or when it names nothing (the read says so)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return ""
    return "" if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else file_kind(mode)


STDIN_CASE = STDIN_NAME
"""The case name that reads the case from standard input, as `check -` reads a log."""


def _read_from(given: str) -> str:
    """Where the case named `given` is read: `-` is standard input, so a case copied from a
    chat needs no file (`pbpaste | loopspec replay - --cmd ...`); its report and errors name it
    `-`, as check's name a log it reads there."""
    if given != STDIN_CASE:
        # `~/Downloads/x.json` quoted, or taken from a replay document's `case`, which writes a
        # path in the home folder so: the shell expands a `~` only at a bare word's start.
        if given.startswith("~") and not os.path.lexists(given):
            return os.path.expanduser(given)
        return given
    if sys.stdin is None:  # closed when loopspec started (`<&-`)
        raise CaseFileUnreadable("-: standard input is closed: pipe the case in, or name its file")
    if sys.stdin.isatty():
        # Read from a terminal, the case would wait for an end of file few know to type.
        raise CaseFileUnreadable(
            "-: standard input is a terminal: pipe the case in "
            "(pbpaste | loopspec replay - ...), or name its file"
        )
    return STDIN_CASE


def _is_folder(named: str) -> bool:
    """Whether the case argument `named` is a folder of cases (`-` is standard input)."""
    return named != STDIN_CASE and Path(named).is_dir()


def case_files(named: list[str]) -> list[str]:
    """The case files `named` holds: each file as given, each directory's `*.json` by name."""
    found: list[str] = []
    for given in named:
        place = Path(given)
        if given == STDIN_CASE:
            found.append(given)
        elif place.is_dir():
            listed, passed_over = folder_cases(place)
            said = passed_over_words(given, passed_over) if passed_over else ""
            if not listed:  # a wrong folder must not pass as a suite without a failure
                also = f"; {said}" if said else ""
                raise CaseFileUnreadable(f"{given}: a directory without case files (*.json){also}")
            if said:  # one line per folder, before the replays: stdout may be a JSON document
                print(f"loopspec replay: note: {said}", file=sys.stderr)
            found += [str(path) for path in listed]
        elif place.exists():
            found.append(given)
        else:  # a typo must not pass as "nothing to replay"
            # `\u2014impl` is an option whose hyphens a chat turned into a dash, taken for a case.
            hint = dashed_option_hint(given) or _named_from_elsewhere(given)
            said = f"{given}: no such case file or directory{hint}"
            raise CaseFileUnreadable(said)
    return list(dict.fromkeys(found))


def _named_from_elsewhere(given: str) -> str:
    """What to add when the case path `given` names nothing: a `rerun:` line, pasted into a
    chat, names the case from the folder conform ran in, and the colleague who pastes it has
    the file elsewhere (the bare "no such file" sent them looking for a typo)."""
    if given == STDIN_CASE or os.path.lexists(given):
        return ""
    if os.path.lexists(f"{given}.json"):  # a name as a file manager shows it, its ending hidden
        return offered(f"{given}.json")
    if given == SUMMARY_CASE:  # a case's summary pasted whole: "loopspec replay CASE ..."
        return " (CASE, in a case's summary, stands for the case file: name the file)"
    # Copied from prose around it: Markdown's backquotes, the sentence's comma or full stop.
    unwrapped = given.strip("`'\"").rstrip(".,;:").strip("`'\"")
    if unwrapped and unwrapped != given and os.path.lexists(unwrapped):
        return offered(unwrapped)
    if Path(given).is_absolute():
        return ""
    return (
        " (a `rerun:` line names the case from the folder conform ran in: run it there, or "
        "name the file where you saved it)"
    )


def _load_named_case(case_arg: str) -> Case:
    """The case file named on the command line, as `load_case` reads it."""
    try:
        return load_case(Path(case_arg))
    except CaseFileUnreadable as error:
        raise CaseFileUnreadable(f"{error}{_named_from_elsewhere(case_arg)}") from error


def replay_all(args: argparse.Namespace, paths: list[str]) -> int:
    """Replay each case on one target, the way `run_replay` replays one, and say how each went
    (with `--format json`, in one `loopspec-replay-cases/1` document): 1 when one still
    diverges, 2 when one could not be used (or the target broke), else 0. A case needing a
    capability the target does not declare is skipped (conform never sends that target such a
    program), as the pytest plugin skips it."""
    text = args.format == "text"
    factory, target = _named_target(args)
    outcomes: Counter[str] = Counter()
    listed: list[Listed] = []
    try:
        for at, path in enumerate(paths):
            outcome = _replay_listed(args, path, (factory, target), text=text)
            outcomes[outcome.outcome] += 1
            listed.append(outcome)
            started_by = outcome.not_started_by
            if (
                started_by is not None
                and at + 1 < len(paths)
                and _never_starts(factory, started_by)
            ):
                # A `--cmd` that exited or hung before its first answer, whatever the case:
                # every later case would start it again and fail alike, each waiting out the
                # answer timeout.
                why = f"not replayed: {path}'s target never answered its first message"
                listed += [Listed(rest, "unusable", why) for rest in paths[at + 1 :]]
                if text:
                    after = len(paths) - at - 1
                    print(
                        f"the target never answered its first message: the {_cases(after)} "
                        f"after this one {'is' if after == 1 else 'are'} not replayed (each "
                        "would start it again and fail alike)"
                    )
                break
            if text:
                print()
    finally:
        unclosed = _closing_error(factory)
    if text:
        tally = ", ".join(f"{count} {outcome}" for outcome, count in outcomes.items())
        left = len(listed) - sum(outcomes.values())  # after a target that never got going
        cases = _cases(len(paths) - left)
        tally += f"; {left} not replayed" if left else ""
        against = replayed_target(target)
        unnamed = sum(case.target_unnamed for case in listed)
        # "4 unusable" alone read as four broken files when this command named no loop and
        # each case was found on one (a colleague's folder replayed without --impl or --cmd).
        why = (
            f" ({unnamed} found on a loop this command does not name: pass --impl or --cmd "
            "naming your copy of it, or --bundled)"
            if unnamed
            else ""
        )
        if unnamed == len(paths):
            # "replayed 95 cases against loopspec's bundled implementation: 95 unusable" when
            # none was replayed, nor ran there.
            each = "it was" if unnamed == 1 else "each was"
            print(
                f"replayed none of {cases}: {each} found on a loop this command does not name: "
                "pass --impl or --cmd naming your copy of it, or --bundled"
            )
        else:
            found = _diverging_named(listed)
            print(
                f"replayed {cases} against {against}" + (f": {tally}{why}{found}" if tally else "")
            )
    else:
        print(json.dumps(replay_cases_json(target, listed, unclosed), indent=2))
    if unclosed is not None:
        _print_unclosed(unclosed)
        return 2
    if outcomes["unusable"]:
        return 2
    return 1 if outcomes["diverging"] else 0


def _never_starts(factory: TargetFactory, failed_on: LoopConfig) -> bool:
    """Whether a `--cmd` process that exited or hung before answering a case's reset (with
    `failed_on`, that case's configuration) fails alike before answering one no case chose:
    loopspec's first configuration, as the pytest plugin's start-up sends it. A loop failing on
    one case's configuration (a `maxParallel` of 3) stopped the folder there, and the cases
    after it, each replaying alone without divergence, were counted as not replayed. A process
    that answers stays up for the next case."""
    from loopspec.properties.stateful.strategies import CONFIGS  # noqa: PLC0415 (replay only)

    if failed_on == CONFIGS[0]:
        return True
    probe = GuardedTarget(factory, TargetBreakage())
    try:
        probe.reset(CONFIGS[0])
    except TargetError as broke:
        return broke.never_got_going  # one that answered wrongly got going: each case says so
    finally:
        probe.close()
    return False


def _cases(count: int) -> str:
    return "1 case" if count == 1 else f"{count} cases"


# How many diverging cases the tally names: a folder of 40 made its last line 40 paths long.
_DIVERGING_NAMED_AT_MOST: Final = 3


def _diverging_named(listed: list[Listed]) -> str:
    """The tally's words naming the first cases still diverging and the rule each broke now (the
    rest counted): a CI log's last line said `1 diverging` alone, the case and its rule dozens
    of lines above."""
    named = []
    for case in listed:
        if case.outcome == "diverging" and case.replayed is not None:
            divergence = case.replayed[2].divergence
            broke = divergence.rule_id if divergence is not None else NO_RULE
            named.append(case.case if broke == NO_RULE else f"{case.case}, {broke}")
    if len(named) > _DIVERGING_NAMED_AT_MOST:
        more = len(named) - _DIVERGING_NAMED_AT_MOST
        named = [*named[:_DIVERGING_NAMED_AT_MOST], f"and {more} more"]
    return f" (diverging: {'; '.join(named)})" if named else ""


class Listed:
    """How the replay of one case of `replay_all` went: its `outcome` (`REPLAY_OUTCOMES`), why
    it was skipped or unusable, and what was replayed when it came to a verdict."""

    __slots__ = ("case", "not_started_by", "outcome", "reason", "replayed", "target_unnamed")

    def __init__(
        self,
        case: str,
        outcome: str,
        reason: str | None = None,
        replayed: tuple[Case, Profile | None, Replay] | None = None,
        *,
        target_unnamed: bool = False,
    ) -> None:
        self.case = case
        self.outcome = outcome
        self.reason = reason
        self.replayed = replayed
        # Unusable only because the case records a loop and the command named none.
        self.target_unnamed = target_unnamed
        # Unusable because its `--cmd` exited or hung before answering its reset with this
        # configuration, the process's first message.
        self.not_started_by: LoopConfig | None = None


def _error_above(line: str) -> None:
    """`line` on stderr after everything stdout holds so far: where both go to one file (a CI
    log), stdout is buffered and the error would land after the report pointing to it. (The
    pointer says "on stderr", not "above": stdout alone, in a file, has nothing above.)"""
    sys.stdout.flush()
    print(with_wait_hint(line, "--answer-timeout"), file=sys.stderr, flush=True)


def _note_a_fifo(path: str) -> None:
    """Say on stderr that a case named as a FIFO is read as `cat` reads one, waiting for its
    writer: without a word, replay sat silent until killed when no one wrote. (A pipe given
    as `<(gunzip -c bug.json.gz)` is no FIFO in a folder, and its writer is already there.)"""
    with contextlib.suppress(OSError):
        if path != STDIN_CASE and stat.S_ISFIFO(os.lstat(path).st_mode):
            print(
                f"loopspec replay: {path} is a FIFO: reading the case waits for its writer "
                "(Ctrl-C stops)",
                file=sys.stderr,
                flush=True,
            )


def _recorded_target_not_named(args: argparse.Namespace, case_name: str, case: Case) -> str | None:
    """The usage error of a replay that names no target (no --impl, --cmd or --bundled) of a
    case found on one: run on the bundled loop instead, a CI step that forgot its --cmd passed
    whatever the recorded loop does. None when the replay may go on."""
    if args.impl is not None or args.cmd is not None or args.bundled:
        return None
    for option in ("--cmd", "--impl"):
        value = case.target.get(option.removeprefix("--"))
        if value is None:
            continue
        words = put_back_words(value)
        back = f" with {words}" if words else ""
        return (
            f"{case_name}: the case was found on {option} {shown(shlex.quote(value))} and this "
            f"command names no target: pass that {option}{back} (or your copy of the loop) to "
            "replay against it, or --bundled to replay on loopspec's bundled implementation, "
            "whose verdict says nothing of the recorded loop"
        )
    return None


def _replay_listed(
    args: argparse.Namespace,
    path: str,
    named: tuple[TargetFactory, dict[str, str]],
    *,
    text: bool,
) -> Listed:
    """Replay one case of `replay_all` on the target `named` (its factory and record), print
    its report (`text`); how it went. An error is said on stderr either way."""
    factory, target = named
    _note_a_fifo(path)
    try:
        case = load_case(Path(path))
    except TargetError as error:
        return _unusable(path, f"loopspec: error: {error}", text=text)
    unnamed = _recorded_target_not_named(args, path, case)
    if unnamed is not None:
        refused = _unusable(path, f"loopspec: error: {unnamed}", text=text)
        refused.target_unnamed = True
        return refused
    profile, profile_note = replay_profile(args.profile, case.profile)
    if text:
        print(*replay_header(path, target, case, profile_note=profile_note), sep="\n")
    try:
        replay = replay_case(factory, case.config, case.commands, profile)
    except UndeclaredCapability as lacking:
        line = case.line_of_command(lacking.command_index)
        if text:
            print(f"{path}:{line}: skipped: {lacking.message}")
        return Listed(path, "skipped", f"{path}:{line}: {lacking.message}")
    except TargetError as broke:
        said = f"loopspec: error: {case_replay_error(path, case, broke, target)}"
        unusable = _unusable(path, said, text=text, trace=broke.trace)
        if broke.never_got_going:
            unusable.not_started_by = case.config
        return unusable
    invalid = not_a_valid_program(path, case, profile, replay)
    if invalid is not None:
        return _unusable(path, f"loopspec: error: {invalid}", text=text)
    if text:
        lines = replay_verdict_lines(path, case, profile, replay, bundled=not target)
        print(*lines, sep="\n")
    outcome = "without divergence" if replay.divergence is None else "diverging"
    return Listed(path, outcome, replayed=(case, profile, replay))


def _unusable(path: str, error: str, *, text: bool, trace: tuple[str, ...] = ()) -> Listed:
    """A case of `replay_all` that could not be used: the error on stderr (below it, `trace`:
    where a Python loop's own code raised), a line in the text report pointing to it. The
    JSON report's reason is the error's line alone."""
    _error_above("\n".join([error, *trace]))
    if text:
        print(f"{path}: cannot be used (the error is on stderr)")
    return Listed(path, "unusable", error)


def _replay_one(args: argparse.Namespace, case_arg: str) -> int:
    """Rerun one case file, `case_arg` as given."""
    _note_a_fifo(case_arg)
    case = _load_named_case(case_arg)
    unnamed = _recorded_target_not_named(args, case_arg, case)
    if unnamed is not None:  # a usage error: no rule is broken
        print(f"loopspec: error: {unnamed}", file=sys.stderr)
        return 2
    profile, profile_note = replay_profile(args.profile, case.profile)
    factory, target = _named_target(args)
    if args.format == "text":
        print(*replay_header(case_arg, target, case, profile_note=profile_note), sep="\n")
    unclosed: LoopSpecError | None = None
    reduction: CaseReduction | None = None
    try:
        replay = replay_case(factory, case.config, case.commands, profile)
        if args.reduce and replay.divergence is not None:
            reduction = _reduce_case(Path(case_arg), (factory, target), case, profile, replay)
        elif args.reduce:
            reduction = CaseReduction("case passes", len(case.commands))
    except TargetError as broke:
        raise case_replay_error(case_arg, case, broke, target) from broke
    finally:
        unclosed = _closing_error(factory)
    invalid = not_a_valid_program(case_arg, case, profile, replay)
    if invalid is not None:
        raise invalid
    if args.format == "json":
        document = replay_json(case_arg, target, case, profile, replay, reduction=reduction)
        print(json.dumps(document, indent=2))
        verdict = 0 if replay.divergence is None else 1
    else:
        lines = replay_verdict_lines(case_arg, case, profile, replay, bundled=not target)
        print(*lines, sep="\n")
        verdict = 0 if replay.divergence is None else 1
        if reduction is not None:
            print(*reduction_lines(reduction), sep="\n")
    if reduction is not None and reduction.unsaved is not None:
        # still the verdict's status: the case diverges, as printed
        _error_above(f"loopspec: error: {reduction.unsaved}")
    if unclosed is not None:
        _print_unclosed(unclosed)
        return 2
    return verdict


ReductionOutcome = Literal[
    "saved", "already saved", "not saved", "nothing can be cut", "nothing cut", "case passes"
]
"""`REDUCTION_OUTCOMES` (report_documents), as a type: what `replay --reduce` made of a case."""


class CaseReduction(NamedTuple):
    """What `replay --reduce` made of a case (`_reduce_case`): its outcome
    (`REDUCTION_OUTCOMES`), the cut-down case (`reduced`, None when the case passes), the file
    it is (or None) and, not saved, why."""

    outcome: ReductionOutcome
    of_commands: int
    reduced: Reduced | None = None
    case: Path | None = None
    unsaved: str | None = None


def _reduce_case(
    case_path: Path,
    named: tuple[TargetFactory, dict[str, str]],
    case: Case,
    profile: Profile | None,
    replay: Replay,
) -> CaseReduction:
    """`replay --reduce`: the diverging case cut down on the target `named` (its factory and
    record) as conform cuts a counterexample, saved beside it under a new name (never over it),
    unless nothing could be cut. The new case records that target, with what it declared: its
    program diverges there, not necessarily on the one the case names."""
    factory, target = named
    divergence = replay.divergence
    assert divergence is not None
    found = DivergenceFound(divergence, case.config, tuple(case.commands))
    reduced = reduce_counterexample(factory, found, profile)
    commands = len(case.commands)
    if (reduced.config, tuple(reduced.program)) == (case.config, tuple(case.commands)):
        # A copy of the case under a new name would read as a cut-down case; not complete, it
        # said every command was needed, of a case not cut.
        cannot: ReductionOutcome = "nothing can be cut" if reduced.complete else "nothing cut"
        return CaseReduction(cannot, commands, reduced)
    document = case_fields(
        target,
        rule=reduced.divergence.rule_id,
        what=reduced.divergence.what,
        config=reduced.config,
        commands=reduced.program,
        profile=profile.name if profile is not None else None,
        capabilities=replay.capabilities,
    )
    try:
        saved = _save_case_document(document, case_path.parent)
    except OSError as error:  # the cut-down program is still told: its verdict, not exit 2
        unsaved = f"the cut-down case was not saved in {case_path.parent}: {system_reason(error)}"
        return CaseReduction("not saved", commands, reduced, unsaved=unsaved)
    # A case cut down before (or shared cut down) is found again: not written twice.
    kept: ReductionOutcome = "already saved" if saved.already_saved else "saved"
    return CaseReduction(kept, commands, reduced, case=saved.path)


def reduction_lines(made: CaseReduction) -> list[str]:
    """The text report's `reduced:` line of `replay --reduce`, and the cut-down program when it
    could not be saved (it was printed nowhere, lost with the run)."""
    reduced = made.reduced
    if reduced is None or made.outcome == "case passes":
        # Asked for, the cutting was passed over without a word, as if nothing could be cut.
        return [
            "",
            "reduced: nothing: the case passes on this target, and only a program that "
            "diverges is cut down (--reduce on a loop that still diverges on it); no file "
            "written",
        ]
    replays = f"{reduced.replays} {'replay' if reduced.replays == 1 else 'replays'}"
    rule = reduced.divergence.rule_id
    cut = f"{len(reduced.program)} of {made.of_commands} commands still diverge on {rule}"
    # Said as conform says it: the smallest program then may be cut further.
    stopped = (
        "Ctrl-C stopped the cutting"
        if reduced.interrupted
        else f"the cutting stopped after {REDUCE_SECONDS:g} s or {REDUCE_REPLAYS} replays"
    )
    further = "" if reduced.complete else f"; {stopped}: --reduce on it cuts it further"
    match made.outcome:
        case "nothing cut":
            said = f"nothing cut: {stopped} before a smaller program diverged alike ({replays})"
            return ["", f"reduced: {said}; no file written"]
        case "nothing can be cut":
            return [
                "",
                f"reduced: nothing can be cut: each of its {made.of_commands} commands and every "
                f"call, hook and detail is needed for {rule} ({replays}); no file written",
            ]
        case "not saved":
            kept = "not saved (the error is on stderr); the cut-down case:"
            config = json.dumps(config_to_json(reduced.config), ensure_ascii=False)
            listing = _listing(reduced.config, reduced.program, "    ")
            said = f"reduced: {cut} ({replays}); {kept}"
            return ["", said, f"  configuration: {config}", "  program:", *listing]
        case "already saved" | "saved":
            return ["", f"reduced: {cut} ({replays}); {made.outcome} as {made.case}{further}"]
        case _:
            assert_never(made.outcome)


def reduction_document(made: CaseReduction) -> ReplayReduction:
    """What `replay --reduce --format json` says of the cutting (`reduced`): the text's line, and
    the cut-down program whenever one was cut, saved or not."""
    from loopspec.properties.conformance.report_documents import (  # noqa: PLC0415
        ReplayReduction,
    )

    reduced = made.reduced
    if reduced is None:
        return ReplayReduction(
            outcome=made.outcome,
            rule=None,
            commands=made.of_commands,
            replays=0,
            stopped_by_ctrl_c=False,
            cut_short=False,
            case=None,
        )
    cut = made.outcome in ("saved", "already saved", "not saved")
    return ReplayReduction(
        outcome=made.outcome,
        rule=reduced.divergence.rule_id,
        commands=len(reduced.program),
        replays=reduced.replays,
        stopped_by_ctrl_c=reduced.interrupted,
        cut_short=not reduced.complete and not reduced.interrupted,
        case=None if made.case is None else portable(str(made.case)),
        config=config_to_json(reduced.config) if cut else {},
        program=[command_to_json(command) for command in reduced.program] if cut else [],
        error=made.unsaved,
    )


def replay_header(
    case_name: str, named: dict[str, str], case: Case, *, profile_note: str | None
) -> list[str]:
    """What a replay says before its verdict: the target it runs (`named` as `resolve_target`
    gives it, {} for the bundled one), the one the case records and whether they are the same,
    the profile it applies (the same in `loopspec replay` and the pytest plugin)."""
    lines = [
        f"{case_name}: replaying against {replayed_target(named)}",
        f"  {_recorded_target_note(case.target, named, given=case.target_given)}",
    ]
    if case.written_by is not None and case.written_by != loopspec.__version__:
        # A rule may blame otherwise in another version: a verdict unlike the recorded one
        # may be the versions', not the loop's.
        lines.append(
            f"  written by loopspec {shown(case.written_by, 40)}; this is loopspec "
            f"{loopspec.__version__} (its rules may differ: replay with that version to see "
            "the case as it was found)"
        )
    return lines + ([f"  {profile_note}"] if profile_note is not None else [])


def case_replay_error(
    case_name: str, case: Case, broke: TargetError, named: dict[str, str] | None = None
) -> TargetError:
    """The target broke or could not take the case: the error, named like every other error
    about the case (whoever raised it), at the case's command. Its class is kept: a capability
    the target does not declare is told apart from a break, and named with the line of the
    command (or of the hooks) that needs it, as a fault in a hand-edited case is. `named`, the
    target `loopspec replay` was given: the recorded `--cmd` run where its script is not is
    told how to name the receiver's own copy (`_own_copy_words`)."""
    if isinstance(broke, UndeclaredCapability | OutsideProfile):
        line = case.line_of_command(broke.command_index)
        kind = type(broke)
        return kind(f"{case_name}:{line}: {broke.message}", command_index=broke.command_index)
    at = at_case_command(broke)
    # The line of the command it broke at, as a fault of the case's own is named (the program is
    # the case's, unless one cut down from it broke).
    sent = len(broke.program)
    where = case_name
    if sent and tuple(broke.program) == tuple(case.commands[:sent]):
        where = f"{case_name}:{case.line_of_command(sent - 1)}"
    first, *rest = at.message.split("\n")
    said = "\n".join([first + _own_copy_words(case, named or {}, at), *rest])
    return TargetError(
        f"{where}: {said}",
        config=at.config,
        program=at.program,
        rule_id=at.rule_id,
        trace=broke.trace,
    )


# The real harnesses' adapters, as a profile's case records them (from the repository's root).
_REPOSITORY_ADAPTER: Final = re.compile(r"(?:\./)?examples/[\w.-]+-adapter/run\.sh")


def _own_copy_words(case: Case, named: dict[str, str], broke: TargetError) -> str:
    """Where a shared case's recorded `--cmd`, replayed as recorded, could not start its script
    here (a setup error, no rule broken): that the command is where the case was found, and the
    `--cmd` naming one's own copy of the loop; "" otherwise. A colleague pasting the case's
    command was told only that `./loop.mjs` is not in their folder."""
    command = named.get("cmd")
    if command is None or broke.rule_id != NO_RULE_BROKEN or not same_target(case.target, named):
        return ""
    try:
        argv = shlex.split(command)
    except ValueError:
        return ""
    # The program itself by a relative path (`./run.sh`), or the script an interpreter runs.
    program = argv[:1] if argv and "/" in argv[0] and not os.path.isabs(argv[0]) else []
    missing = [word for word in program if not os.path.lexists(word)]
    missing += missing_relative_paths(argv, "")
    if not missing:
        return ""
    script = missing[0]
    if case.profile is not None and _REPOSITORY_ADAPTER.fullmatch(script):
        # A profile's case (tests/regressions/) replayed from the installed package, which does
        # not hold the adapter: "name your copy of the loop" named none the reader has.
        return (
            f"; the case records the command it was found with, {script}, an adapter in "
            "loopspec's repository (its examples/ folder), which the installed package does "
            "not hold: replay it from a clone of loopspec, the harness installed there (`npm "
            "ci` in the adapter's folder, `make harnesses` for Claude Code and Codex), or "
            "with --bundled on loopspec's bundled loop"
        )
    copy = [f"PATH/TO/{os.path.basename(word)}" if word == script else word for word in argv]
    return (
        f"; the case records the command it was found with, in a folder holding {script}: "
        "replay it from that folder, or name your copy of the loop, --cmd "
        # As a case writes a command (SAFE-1): a secret typed in it stays out of the line.
        f"{shlex.quote(portable(shlex.join(copy)))}"
    )


def replay_json(
    case_path: str,
    named: dict[str, str],
    case: Case,
    profile: Profile | None,
    replay: Replay,
    *,
    reduction: CaseReduction | None = None,
) -> dict[str, Any]:
    """The `replay --format json` document (versioned: `format` is `loopspec-replay/1`; its
    JSON Schema: `loopspec schema replay`). It is meant for a bug tracker, so the case's path
    and the target replayed are written as the console writes a target (`case_portable`:
    folders from `.` and `~`, secrets hidden)."""
    # The documents' classes, only when one is written: a replay in text starts without them.
    from loopspec.properties.conformance.document_schema import converter  # noqa: PLC0415

    document = replay_document(case_path, named, case, profile, replay)
    if reduction is not None:
        document = attrs.evolve(document, reduced=reduction_document(reduction))
    written: dict[str, Any] = converter.unstructure(document)
    return written


def replay_document(
    case_path: str, named: dict[str, str], case: Case, profile: Profile | None, replay: Replay
) -> ReplayDocument:
    """The `loopspec-replay/1` document of one replayed case (`replay_json`), replayed on the
    target `named` ({} for the bundled implementation)."""
    from loopspec.properties.conformance.report_documents import (  # noqa: PLC0415
        REPLAY_FORMAT,
        RefusedCommand,
        ReplayAnswer,
        ReplayDivergence,
        ReplayDocument,
    )

    divergence = replay.divergence
    answered = answers_for(case.config, case.commands)
    # As the text says them (`_answer_lines`): a hand-written case's question, answered.
    answers = [
        ReplayAnswer(
            index,
            command_words(command, answered.get(index)),
            answer_words(answer),
            _observation_json(answer),
        )
        for index, (command, answer) in enumerate(zip(case.commands, replay.answers, strict=False))
    ]
    return ReplayDocument(
        format=REPLAY_FORMAT,
        case=portable(case_path),
        target=document_target(named),
        recorded_target=case.target,
        same_target=same_target(case.target, named),
        recorded_rule=case.rule,
        recorded_rule_unseen=passes_unseen(case, profile, replay, bundled=not named),
        recorded_rule_unreached=passes_unreached(case, profile, replay, bundled=not named),
        recorded_unrepeated=passes_unrepeated(case, profile, replay, bundled=not named),
        case_loopspec_version=case.written_by,
        loopspec_version=loopspec.__version__,
        profile=profile.name if profile is not None else None,
        case_profile=case.profile.name if case.profile is not None else None,
        capabilities=sorted(replay.capabilities),
        case_capabilities=sorted(case.capabilities) if case.capabilities is not None else None,
        commands=len(case.commands),
        config=config_to_json(case.config),
        program=[command_to_json(command) for command in case.commands],
        diverges=divergence is not None,
        known_shown=sorted(replay.known),
        stopped_by=replay.stopped_by,
        stopped_at=replay.stopped_at,
        model_refused=[
            RefusedCommand(index, rule, case.line_of_command(index))
            for index, rule in replay.refused
        ],
        divergence=None
        if divergence is None
        else ReplayDivergence(
            **_divergence_fields(divergence, answers_for(case.config, case.commands)),
            command=command_to_json(divergence.command),
            **observations_json(divergence),
        ),
        answers=answers if divergence is None and asked_by_hand(case) else [],
    )


def replay_cases_json(
    named: dict[str, str], listed: Sequence[Listed], unclosed: LoopSpecError | None
) -> dict[str, Any]:
    """The `replay --format json` document of several cases (versioned: `format` is
    `loopspec-replay-cases/1`; its JSON Schema: `loopspec schema replay`): each case's outcome,
    with the `loopspec-replay/1` document of each replayed to a verdict, and the totals."""
    from loopspec.properties.conformance.document_schema import converter  # noqa: PLC0415
    from loopspec.properties.conformance.report_documents import (  # noqa: PLC0415
        REPLAY_CASES_FORMAT,
        ReplayCasesDocument,
        ReplayedCase,
        ReplayTotals,
    )

    counts = Counter(each.outcome for each in listed)
    document = ReplayCasesDocument(
        format=REPLAY_CASES_FORMAT,
        target=document_target(named),
        cases=[
            ReplayedCase(
                case=portable(each.case),
                outcome=each.outcome,
                reason=each.reason,
                replay=None
                if each.replayed is None
                else replay_document(each.case, named, *each.replayed),
            )
            for each in listed
        ],
        totals=ReplayTotals(
            cases=len(listed),
            without_divergence=counts["without divergence"],
            diverging=counts["diverging"],
            skipped=counts["skipped"],
            unusable=counts["unusable"],
        ),
        closing_error=None
        if unclosed is None
        else tagged(unclosed.rule_id, f"after every case: {unclosed.message}"),
    )
    written: dict[str, Any] = converter.unstructure(document)
    return written


def _capability_list(capabilities: frozenset[str]) -> str:
    return ", ".join(shown(c) for c in sorted(capabilities)) or "none"


def replay_verdict_lines(
    case_name: str, case: Case, profile: Profile | None, replay: Replay, *, bundled: bool
) -> list[str]:
    """What a replay found, as `loopspec replay` prints it (and the pytest plugin fails with):
    `bundled` when loopspec's bundled implementation ran because no target was named."""
    lines = []
    recorded = f"; the case recorded {shown(case.rule)}" if case.rule else ""
    unreached: list[str] = []
    if case.capabilities is not None and case.capabilities != replay.capabilities:
        # Another build of the loop, often: what the two declare decides what conform sends,
        # so it can explain a verdict that differs from the one the case recorded.
        lines.append(
            f"  capabilities: the case was found on a target declaring "
            f"{_capability_list(case.capabilities)}; this one declares "
            f"{_capability_list(replay.capabilities)}"
        )
    if replay.divergence is None:
        # Without --impl or --cmd the bundled implementation ran: a bare "no divergence" read
        # as "the recorded loop is fixed" to a colleague who forgot to name it.
        on = (
            " on loopspec's bundled implementation (not the recorded target)"
            if bundled and case.target
            else ""
        )
        commands = "1 command" if len(case.commands) == 1 else f"{len(case.commands)} commands"
        if replay.stopped_at is not None and replay.stopped_at + 1 < len(case.commands):
            # Nothing after a known divergence is sent: "4 commands replayed" over a replay
            # that stopped at #3 counted one never sent.
            commands = f"{replay.stopped_at + 1} of {commands}"
        none_found = "no divergence"
        if profile is not None and replay.known:
            # A bare "no divergence" beside "known divergences shown: ADJ-1" read as a
            # contradiction: the profile erased those.
            none_found = f"no divergence the {profile.name} profile does not know"
        rule = case.rule
        if rule and (not bundled or not case.target) and compared_whole(case, profile, replay):
            # The loop named did what the model does: "no divergence; the case recorded ADJ-1"
            # left a colleague asking whether ADJ-1 still showed (under a profile too, where
            # the whole program was compared).
            recorded = f": passes now (the case recorded {shown(rule)})"
            unseen = unseen_rule_capability(case, replay)
            if passes_unrepeated(case, profile, replay, bundled=bundled):
                # Its loop answered the program two ways when it was saved: "passes now" read
                # as the race fixed, where this run may have gone the other way by chance.
                recorded = f": {unrepeated_pass_words(rule)}"
                unreached = [f"  {UNREPEATED_PASS_NOTE}"]
            elif passes_unreached(case, profile, replay, bundled=bundled):
                # Alice cut her ORD-3 case's last hook answer: her loop, still broken, "passed
                # now", the cut having taken away what showed the bug.
                recorded = (
                    f": passes, but this program no longer sets up {shown(rule)}, the "
                    "rule the case recorded"
                )
                unreached = [f"  {unreached_words(rule)}"]
            if unseen is not None:
                # A colleague's loop without `presentation` "passed" a VIEW-2 case whose cards
                # it never reported: the pass says nothing of the rule.
                recorded = (
                    f"; the case recorded {shown(rule)}, which this target cannot show: "
                    f"it does not declare {unseen}, so nothing {shown(rule)} speaks about "
                    "was compared"
                )
        lines.append(f"{case_name}: {commands} replayed, {none_found}{on}{recorded}")
        lines += unreached
        # Refused by both only up to a known divergence that stopped the replay: at it, the
        # target did otherwise ("refused by the model (and so by the target): #2" sat above
        # "stopped at command #2 by a known divergence: EXE-1", the target having accepted #2).
        stop = len(case.commands) if replay.stopped_at is None else replay.stopped_at
        lines += _refused_lines(case_name, case, tuple(r for r in replay.refused if r[0] < stop))
        if asked_by_hand(case):  # a question, and its answer
            lines += _answer_lines(case, replay)
        if profile is not None:
            if replay.stopped_by is not None and replay.stopped_at is not None:
                lines.append(
                    f"  stopped at command #{replay.stopped_at + 1} by a known divergence: "
                    f"{replay.stopped_by} (the runs go different ways from there)"
                )
            lines.append(f"  known divergences shown: {', '.join(sorted(replay.known)) or 'none'}")
        return lines
    found = replay.divergence.rule_id
    if case.rule and found != case.rule:
        # A partial fix, or another version of the loop: "diverges; the case recorded ADJ-4"
        # above "rule TURN-5" read as the recorded bug still there.
        found_words = "a difference no rule covers" if found == NO_RULE else shown(found)
        recorded = f" on {found_words}, not {shown(case.rule)} as the case recorded"
    lines.append(f"{case_name}: diverges{recorded}")
    lines += _case_program_lines(case, replay.divergence.index)
    # A case cut down by hand still diverging may hold a command a deletion left answering
    # nothing: it is named before the divergence, as in a replay that passes.
    before = [(index, rule) for index, rule in replay.refused if index < replay.divergence.index]
    lines += _refused_lines(case_name, case, tuple(before))
    described = _describe_divergence(replay.divergence, case.config, case.commands)
    lines += ["  " + line if line else "" for line in described]
    return lines


def unrepeated_pass_words(rule: str) -> str:
    """A passing replay's verdict, after the count, of a case saved from a divergence its loop
    did not repeat (`passes_unrepeated`)."""
    return (
        f"passes this time, but the case was saved from a divergence ({shown(rule)}) its loop "
        "did not repeat when conform ran the program again"
    )


UNREPEATED_PASS_NOTE = (
    "the loop answered this program two ways when the case was saved (a race, or a state kept "
    "from an earlier program): this pass may be chance, not a fix; replay it a few times, and "
    "look for what the loop does by timing or chance"
)
"""Why a pass of a case saved from an unrepeated divergence says little, and what to do."""


def compared_whole(case: Case, profile: Profile | None, replay: Replay) -> bool:
    """Whether a passing replay compared what one without a profile compares: always without
    one; under one, when its profile erased nothing (no known divergence showed, none stopped
    it) and the case recorded a rule, not a known divergence. Then the pass of a case
    recording a rule (which each caller asks first) is read as one without a profile is:
    "passes now", or what it says nothing of. (Under a profile, a case replaying clean never
    said "passes now", the fix of its loop unsaid.)"""
    if profile is None:
        return True
    # A profile's own case records a known divergence, which shows erased or does not show.
    recorded_known = case.known_divergence is not None
    return not recorded_known and replay.stopped_at is None and not replay.known


def passes_unrepeated(
    case: Case, profile: Profile | None, replay: Replay, *, bundled: bool
) -> bool:
    """Whether a replay passes a case saved from a divergence its loop did not repeat when
    conform reran it (the case's `unrepeated`): the pass may be chance, said in text and JSON
    (not of the bundled implementation standing in for a named target, nor where the target
    cannot show the recorded rule, `unseen_rule_capability`, which says more, nor under a
    profile that did not compare it whole, `compared_whole`)."""
    if replay.divergence is not None or not compared_whole(case, profile, replay):
        return False
    if not case.unrepeated or not case.rule:
        return False
    return not (bundled and case.target) and unseen_rule_capability(case, replay) is None


def unseen_rule_capability(case: Case, replay: Replay) -> str | None:
    """The capability the target replayed does not declare and needs to show the case's
    recorded rule (`reported_with`), or None: without it, nothing the rule speaks about was
    compared, and a pass says nothing of the rule."""
    needed = reported_with(case.rule) if case.rule else None
    return needed if needed is not None and needed not in replay.capabilities else None


def unreached_words(rule: str) -> str:
    """Why a pass of a program that no longer sets up `rule` says nothing of it, and what to do
    (replay's verdict, the pytest plugin's summary)."""
    return (
        f"no command the model takes creates the situation {shown(rule)} governs, so this pass "
        f"says nothing of {shown(rule)}: a loop that still breaks it passes too. A hand cut may "
        "have taken the situation away: replay the case as it was saved (`loopspec spec "
        f"{rule}` says what the rule governs)"
    )


def passes_unseen(
    case: Case, profile: Profile | None, replay: Replay, *, bundled: bool
) -> str | None:
    """`unseen_rule_capability` where a passing replay's verdict says it, in text and JSON."""
    if replay.divergence is not None or (bundled and case.target):
        return None
    if not compared_whole(case, profile, replay):
        return None
    return unseen_rule_capability(case, replay)


def passes_unreached(case: Case, profile: Profile | None, replay: Replay, *, bundled: bool) -> bool:
    """Whether a replay passes a case whose program no longer creates the situation of the rule
    it recorded (`program_exercises`), said in text and JSON: its pass says nothing of that
    rule, a loop that still has the bug passing too. Exit 0 all the same: the program is valid
    and the target did what the model does with it (a command both sides refuse is
    `not_a_valid_program`'s). Not said where the target cannot show the rule
    (`unseen_rule_capability`, said instead), of the bundled implementation standing in for a
    named target, or under a profile that did not compare it whole (`compared_whole`)."""
    if replay.divergence is not None or not case.rule:
        return False
    if not compared_whole(case, profile, replay):
        return False
    if (bundled and case.target) or unseen_rule_capability(case, replay) is not None:
        return False
    if passes_unrepeated(case, profile, replay, bundled=bundled):  # said instead: chance, not a cut
        return False
    presenting = "presentation" in replay.capabilities
    return not program_exercises(case.rule, case.config, case.commands, presenting=presenting)


def asked_by_hand(case: Case) -> bool:
    """Whether `case` was written by hand (it names no target and no rule): a question, whose
    answer a replay that passes says, in text and in JSON."""
    return not case.target_given and not case.rule


def _answer_lines(case: Case, replay: Replay) -> list[str]:
    """What the model answered each command of a case that passes, the target alike."""
    if not replay.answers:
        return []
    answered = answers_for(case.config, case.commands)
    lines = ["  the model answered, and the target alike:"]
    for index, (command, answer) in enumerate(zip(case.commands, replay.answers, strict=False)):
        words = command_words(command, answered.get(index))
        lines += [f"    #{index + 1} {words}", f"       {answer_words(answer)}"]
    return lines


# The rule of a refusal that changed the target: a case recording it holds the refused command
# on purpose, the command its bug is about.
_A_REFUSAL_CHANGES_NOTHING = "MODEL-3"


def not_a_valid_program(
    case_name: str, case: Case, profile: Profile | None, replay: Replay
) -> CaseFileFault | None:
    """The error of a case whose replay passed while the model refused one of its commands
    for another rule than the one the case recorded, and no command it accepts creates the
    situation of that rule, or None. A hand cut leaves a command answering nothing (the reply
    deleted, its call's finish kept), and "passes now (the case recorded TURN-5)" said the bug
    was gone when the cut had taken away what showed it. A program that still creates the
    situation (`program_exercises`) passes: conform's own case holds the commands it sent for
    both sides to refuse when its shrinking was cut short (--max-seconds, a slow target), and
    once the loop was fixed such a case was refused as cut by hand. A profile's case records
    a known divergence, often a command the harness takes and the model refuses (Codex's reply
    repeating a call id): it is no hand cut."""
    if replay.divergence is not None or not case.rule or case.rule == _A_REFUSAL_CHANGES_NOTHING:
        return None
    if profile is not None or case.profile is not None:
        return None
    stop = len(case.commands) if replay.stopped_at is None else replay.stopped_at
    cut = [(index, rule) for index, rule in replay.refused if index < stop and rule != case.rule]
    if not cut:
        return None
    presenting = "presentation" in replay.capabilities
    if program_exercises(case.rule, case.config, case.commands[:stop], presenting=presenting):
        return None
    index, rule = cut[0]
    model = ModelTarget()
    model.reset(case.config)
    for command in case.commands[:index]:
        model.apply(command)
    why = model.apply(case.commands[index]).refusal_message or "refused"
    return CaseFileFault(
        f"{case_name}:{case.line_of_command(index)}: not a valid program at command "
        f"#{index + 1} ({case.commands[index].NAME}): the model refuses it there ({why}), so "
        f"the replay's pass says nothing of {shown(case.rule)}, the rule the case recorded: a "
        "command both sides refuse tests nothing, as one a cut left answering nothing (the "
        "reply that made its call, or its turn, deleted); put back what it answers, or take it "
        "out too",
        rule_id=rule,
    )


def _refused_lines(case_name: str, case: Case, refused: tuple[tuple[int, str], ...]) -> list[str]:
    """The line naming the commands (0-based, with the rule) the model refused: refused by both
    sides, a command compares equal and tests nothing, often after a hand edit removed what it
    answered (the call a ToolFinishes settles). A case read from a file names each command's
    line there, where the person cutting it down by hand deletes or puts back."""
    if not refused:
        return []

    def where(index: int) -> str:
        return f" at {case_name}:{case.line_of_command(index)}" if case.command_lines else ""

    named = ", ".join(f"#{i + 1} {case.commands[i].NAME} ({rule}){where(i)}" for i, rule in refused)
    return [f"  refused by the model (and so by the target): {named}"]


def _case_program_lines(case: Case, diverged_at: int) -> list[str]:
    """The case's configuration and numbered program, as its file holds them: whoever reads a
    colleague's replay learns what the program does without opening the file. Replay stops at
    the first divergence, so the commands after it were not sent."""
    config = json.dumps(config_to_json(case.config), ensure_ascii=False)
    lines = [
        f"  configuration: {config}",
        f"  program, {len(case.commands)} command{'' if len(case.commands) == 1 else 's'} "
        "(each in words, then as driver protocol JSON, command #N is $.commands[N-1]):",
    ]
    listing = _listing(case.config, case.commands, "    ")
    # Two lines a command: the words, the JSON.
    lines += listing[: 2 * (diverged_at + 1)]
    if len(listing) > 2 * (diverged_at + 1):
        lines.append(f"    not sent, the runs differing after #{diverged_at + 1}:")
        lines += listing[2 * (diverged_at + 1) :]
    return lines


def _listing(config: LoopConfig | None, commands: Sequence[Command], indent: str) -> list[str]:
    """Numbered commands, each in words with its JSON beneath: the words say what the program
    does to a reader without the driver protocol at hand, the JSON is what a hand edit of the
    case file changes. The configuration names the hooks a HookAnswers answers for."""
    answered = answers_for(config, commands) if config is not None else {}
    lines = []
    for index, command in enumerate(commands):
        label = f"#{index + 1} "
        lines.append(f"{indent}{label}{command_words(command, answered.get(index))}")
        lines.append(f"{indent}{' ' * len(label)}{command_text(command)}")
    return lines
