"""`loopspec check`: hold recorded dsh session logs to the log invariants, offline.

The work is `loopspec.properties.logcheck.checker`'s; the output and exit codes are
`loopspec.properties.logcheck.report`'s. Both are imported only when logs are checked, so
`loopspec check --help` answers at interpreter speed (`benchmarks/bench_cli.py`).

The usual command line, `loopspec check PATH...` with `--format`, `--max-line-bytes`,
`--max-violations`, `--known`, `--strict-known`, `--fail-on-hook-faults` and `-v` spelt out in
full and given valid values (`--known` a plain word: `run` reads it), a value after its option
or joined to it by `=` (`--format=json`), is read here without argparse
(`usual_check_arguments`); any other command line (help, a usage error, an abbreviated option,
paths on both sides of an option) is left to argparse (`register`'s parser,
built by `cli.parser`), so that help and every error message stay argparse's. What is read here
is what argparse reads from the same arguments (tests/test_check_arguments.py holds the two
together): argparse's import, with the gettext and locale lookups its messages make, cost each
check about 3 ms of start-up, more than reading a small log. They are read in this module, the
one check runs from, rather than a module of their own: each module imported costs a small
check about a hundredth of the interpreter's start.
"""

from __future__ import annotations

import sys

from loopspec.properties.cli.main import VERB_BY_NAME, start_up_done
from loopspec.properties.logcheck import DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_VIOLATIONS

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    import argparse  # imported by `register` alone: the usual check runs without it

    # collections (which collections.abc imports) costs check a fifth of the interpreter's start
    from collections.abc import Sequence

DESCRIPTION = """\
Check recorded dsh session logs against the rules a log invariant carries: turn and step
enclosure and numbering, call/result adjacency, model-order results, rewrite consistency,
approvals, a denied call's result, repair (the same invariants the model's own tests run;
SPEC.md section 7 lists them, and --format json lists the rules each log was checked by as
rules_checked). The other rules (what ran, when bodies started, the exact wording of results,
how a reply ends, the UI: SCHED-1, TEXT-1, STEP-4, VIEW-2, ...) are not judged here: `loopspec
conform` judges them.

Reads .jsonl and .jsonl.zst files, directories (recursively: every *.jsonl and *.jsonl.zst) and
- (standard input; zstd data is recognised by its magic number). A file reached twice (named,
and under a folder named) is checked once, where it is first reached.

Supported: header version 0 with the dsh 0.1.0-rc event layout (and version 1, the logs
`loopspec run` writes: the same layout with commit-unit markers), compact chunk rows
(text-chunks, reasoning-chunks, tool-call-chunks), plugin events (their data is not judged),
and normalised placeholders such as {{cwd}}. Not covered: the June-2026 layout
(context/message, steering/message, flat tool/result); such logs are reported as
unsupported-layout and not checked, as is a log of another header version (dsh opens only
version 0). A turn left open at the end of a log is a crash tail: a
notice (REC-2, needs repair), not a violation. A key given twice in one object is not refused
(LOG-3 refuses it; loopspec's own reader does): check reads the last value, as dsh does.

Claude Code transcripts (~/.claude/projects/*/*.jsonl) and Codex rollouts
(~/.codex/sessions/**/rollout-*.jsonl) are recognised from their first record and judged by the
rules such a log shows: RW-1 (a hook's rewrite that ran, or a command that ran, against the
call the history keeps), ORD-3, ADJ-1..3, EXE-1, REC-1, and HOOK-4 (Claude Code) or RW-2
(Codex), and in a transcript ABORT-1 and ABORT-2 in part (a reply Claude Code adds after an
interrupt of the calls, or of the model's reply, which the model is sent as its own) and HOOK-6
in part (a call that succeeded though its hooks' input was no JSON object). A Claude
Code hook that crashed, printed broken JSON or timed out breaks no rule and gets a notice
(hook-fault, HOOK-7), as in a dsh log; a Codex rollout records no hook run.
The other rules a dsh log is checked by are reported as not checkable for that log, with the
reason (--format json). In a directory (~/.claude, ~/.codex), the JSONL files that hold no loop
(the CLIs' prompt histories, Codex's session index, a saved `claude -p --output-format
stream-json` or `codex exec --json` output) are skipped with a line saying what each is; named
on the command line, such a file is an error (not-a-session-log).

An ACP recording (the JSON-RPC 2.0 messages between an editor and an ACP agent, one per line, both
directions; its first line has "jsonrpc": "2.0") is judged by what the editor saw of tool calls:
ACP-1 (tool_call, tool_call_update and permission requests strictly valid, other session updates by
ACP's schema, a call's id not reused), RW-1 in part (a card still showing another input than its
permission request approved, another command than its terminal ran, or another change than the
editor wrote), DEC-2 (a call run after its permission was refused, or before it was granted), ADJ-2
(an update for a call never shown, or changing a card after its end) and ADJ-3 (a turn ended with a
card unfinished).

Known divergences (for CI): both CLIs break RW-1 on every rewrite, so their logs fail the check
whatever else happened. --known claude-code (or codex) sets aside, in that loop's logs, every rule
the loop is known to break (the list `loopspec run --harness` and loopspec's own real-CLI tests hold
it to); --known RULE-ID sets one rule aside in every log. Values may be repeated or comma-separated.
A known violation is listed as "known divergence of ..." and counted apart; the run fails only on
the others. For each loop named, the run then says in a line each which of its known divergences
check judges did not occur although their situation came up in its logs (a reply's calls were all
answered, a hook's context was written), and in one line those not exercised; --strict-known makes
one that did not occur fail the run (exit 1), but for a racy one, which shows only where the loop
loses a race (Claude Code's ORD-3: a later call's result ready first): "did not occur (racy)"
says only that no log lost it, and fails nothing. A hook-fault notice (HOOK-7) breaks no rule;
--fail-on-hook-faults makes one fail the run (exit 1) all the same.
"""


FORMATS = ("text", "json")
LIMIT_CEILING = 1 << 30
"""The largest --max-line-bytes / --max-violations accepted (rule SAFE-4)."""
_LIMITS = {"--max-line-bytes": "max_line_bytes", "--max-violations": "max_violations"}
_VERBOSE = ("-v", "--verbose")
# typographic.OPTION_DASHES, which this path does not import: a word starting with one is an
# option a chat made a dash of, which argparse's reading names.
_TYPOGRAPHIC_DASHES = "\u2014\u2013\u2212\u2010\u2011"
_FAIL_ON_HOOK_FAULTS = "--fail-on-hook-faults"
_STRICT_KNOWN = "--strict-known"


class CheckArguments:
    """check's options, as argparse's namespace holds them (`cli.check.register`)."""

    __slots__ = (
        "fail_on_hook_faults",
        "format",
        "known",
        "max_line_bytes",
        "max_violations",
        "paths",
        "strict_known",
        "verbose",
    )

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self.format = "text"
        self.max_line_bytes = DEFAULT_MAX_LINE_BYTES
        self.max_violations = DEFAULT_MAX_VIOLATIONS
        self.verbose = False
        self.known: list[str] | None = None  # as argparse's `append` leaves it
        self.fail_on_hook_faults = False
        self.strict_known = False


def usual_check_arguments(arguments: Sequence[str]) -> CheckArguments | None:
    """check's options from the arguments after `check`, or None where argparse must read
    them."""
    read = CheckArguments([])
    paths_ended = False  # an option came after the paths: argparse refuses paths after it
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if argument[:1] in _TYPOGRAPHIC_DASHES:
            return None
        if argument == "-" or not argument.startswith("-"):
            if paths_ended:
                return None
            read.paths.append(argument)
            continue
        paths_ended = bool(read.paths)
        if argument.startswith("--") and "=" in argument:
            # `--format=json`, which argparse reads as `--format json`: its value is all after
            # the first `=`.
            option, _, value = argument.partition("=")
            if not _read_value(read, option, value):
                return None
            continue
        if argument in _VERBOSE:
            read.verbose = True
            continue
        if argument == _FAIL_ON_HOOK_FAULTS:
            read.fail_on_hook_faults = True
            continue
        if argument == _STRICT_KNOWN:
            read.strict_known = True
            continue
        if index == len(arguments):
            return None
        value = arguments[index]
        index += 1
        if not _read_value(read, argument, value):
            return None
    return read if read.paths else None


def _read_value(read: CheckArguments, option: str, value: str) -> bool:
    """Set on `read` what `option` given `value` sets, where argparse reads them so; False
    where it must read them itself (another option, a value it refuses or reads otherwise)."""
    if option == "--format" and value in FORMATS:
        read.format = value
    elif option in _LIMITS and _is_limit(value):
        setattr(read, _LIMITS[option], int(value))
    elif option == "--known" and _is_word(value):
        read.known = [*(read.known or []), value]
    else:
        return False
    return True


def _is_limit(text: str) -> bool:
    """Whether `text` is a limit argparse takes, written plainly (`int` reads more: signs,
    spaces, underscores, other scripts' digits; those are left to argparse)."""
    return text.isascii() and text.isdigit() and 1 <= int(text) <= LIMIT_CEILING


def _is_word(text: str) -> bool:
    """Whether `text` is a `--known` value argparse reads as a value, not as an option: letters,
    digits, `-` and `,`, starting with a letter (the rule IDs and loop names it takes)."""
    return (
        text[:1].isascii()
        and text[:1].isalpha()
        and all(c.isascii() and (c.isalnum() or c in "-,") for c in text)
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `check` subcommand (the usual command line is read by `usual_check_arguments`,
    as this parser reads it)."""
    import argparse  # noqa: PLC0415 (see above)

    parser = subparsers.add_parser(
        "check",
        help=VERB_BY_NAME["check"].summary,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="log file, directory, or -")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help=(
            "output format (text); json: one versioned loopspec-check/1 object (its JSON "
            "Schema: loopspec schema check; every key explained by: python -m pydoc "
            "loopspec.properties.logcheck.report)"
        ),
    )
    parser.add_argument(
        "--max-line-bytes",
        type=_positive,
        default=DEFAULT_MAX_LINE_BYTES,
        metavar="N",
        help=f"longest line accepted, in bytes ({DEFAULT_MAX_LINE_BYTES})",
    )
    parser.add_argument(
        "--max-violations",
        type=_positive,
        default=DEFAULT_MAX_VIOLATIONS,
        metavar="N",
        help=f"violations listed per log; the rest are only counted ({DEFAULT_MAX_VIOLATIONS})",
    )
    parser.add_argument(
        "--known",
        action="append",
        metavar="LOOP|RULE",
        help=(
            "divergences known not to fail the run: claude-code, codex or dsh (that loop's "
            "known divergences, in its logs), or a rule ID (in every log); repeat or "
            "comma-separate"
        ),
    )
    parser.add_argument(
        "--strict-known",
        action="store_true",
        help=(
            "with --known LOOP: exit 1 when a known divergence of that loop did not occur in "
            "its logs although its situation came up (a CLI upgrade may have fixed it: the "
            "run lists each such one in a line, with or without this option); a racy one "
            "(Claude Code's ORD-3, shown only where a later call's result is ready first) is "
            "listed as 'did not occur (racy)' and never fails the run"
        ),
    )
    parser.add_argument(
        "--fail-on-hook-faults",
        action="store_true",
        help="exit 1 when a hook's own output or process went wrong (a HOOK-7 notice)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="text: also say how each log went"
    )
    parser.set_defaults(handler=run)


def _positive(text: str) -> int:
    import argparse  # noqa: PLC0415 (as `register`)

    from loopspec.properties.cli.counts import at_least_one  # noqa: PLC0415 (it imports argparse)

    value = at_least_one(text)
    if value > LIMIT_CEILING:
        # A bound that large bounds nothing (and past 2**63 cannot even index a buffer).
        raise argparse.ArgumentTypeError(f"must be at most {LIMIT_CEILING}: {text}")
    return value


def run(args: argparse.Namespace | CheckArguments) -> int:
    """Check every log named; print text as it goes, or one JSON object at the end."""
    # Imported here, not above: `loopspec check --help` and a usage error need none of it.
    from loopspec.properties.logcheck.checker import Limits, check_paths  # noqa: PLC0415
    from loopspec.properties.logcheck.files import STDIN, STDIN_PATHS  # noqa: PLC0415
    from loopspec.properties.logcheck.report import (  # noqa: PLC0415
        Tally,
        exit_code,
        json_text,
        not_checkable_lines,
        summary_text,
        write_log_text,
    )

    start_up_done()
    stdin_names = [path for path in args.paths if path == STDIN or path in STDIN_PATHS]
    if len(stdin_names) > 1:
        # Standard input can be read once: a second `-` (or /dev/stdin, /dev/fd/0, which check
        # reads as `-` where it must) read as an empty log (LOG-5). The names as given: one
        # the user did not know for standard input (/proc/self/fd/0) is why the run fails.
        given = ", ".join(stdin_names)
        print(
            f"loopspec: error: standard input is named more than once ({given}): it can "
            "be read once",
            file=sys.stderr,
        )
        return 2
    known = None
    if args.known is not None:
        from loopspec.properties.logcheck.known_divergences import (  # noqa: PLC0415
            parse_known,
            set_aside,
        )

        try:
            known = parse_known(args.known)
        except ValueError as error:
            print(f"loopspec: error: {error}", file=sys.stderr)
            return 2
    if args.strict_known and (known is None or not known.loops):
        print(
            "loopspec: error: --strict-known needs --known naming a loop (claude-code, "
            "codex, dsh): it fails the run when one of that loop's known divergences did not "
            "occur",
            file=sys.stderr,
        )
        return 2
    limits = Limits(max_line_bytes=args.max_line_bytes, max_violations=args.max_violations)
    hook_faults_fail = args.fail_on_hook_faults
    reports = []
    for report in check_paths(args.paths, limits):
        if known is not None:
            set_aside(report, known)
        reports.append(report)
        if args.format == "text":
            write_log_text(report, sys.stdout, verbose=args.verbose)
            sys.stdout.flush()
    status = exit_code(reports, hook_faults_fail=hook_faults_fail)
    fates = []
    if known is not None and known.loops:
        from loopspec.properties.logcheck.known_divergences import (  # noqa: PLC0415
            stale_known,
            stale_lines,
        )

        fates = stale_known(reports, known)
        if args.strict_known and status == 0 and any(fate.did_not_occur for fate in fates):
            status = 1
    if args.format == "json":
        # The document's definition, only when one is written: text starts without it.
        from loopspec.properties.logcheck.check_document import run_to_json  # noqa: PLC0415

        document = run_to_json(
            reports,
            hook_faults_fail=hook_faults_fail,
            fates=fates,
            strict_known=args.strict_known,
            status=status,
        )
        # ASCII with escapes: valid JSON that any stdout encoding can carry.
        sys.stdout.write(json_text(document))
        sys.stdout.write("\n")
    else:
        for line in not_checkable_lines(reports):
            print(line)
        for line in stale_lines(fates, strict=args.strict_known) if fates else ():
            print(line)
        if known is None and any(report.facet_counts for report in reports):
            from loopspec.properties.logcheck.known_divergences import (  # noqa: PLC0415
                known_hint_lines,
            )

            for line in known_hint_lines(reports):
                print(line)
        tally = Tally(reports)
        named = sorted({*tally.rules, *(tally.known or ())})
        if named:  # the lines above name rules by ID; say where their text is
            print(f"what each rule says: loopspec spec {' '.join(named)}")
        print(summary_text(reports, hook_faults_fail=hook_faults_fail))
    return status
