"""`loopspec conform` and `loopspec replay`: check an implementation against the model.

Exit codes: 0 conformant (or the replayed case no longer diverges), 1 a counterexample, 2 the
target speaks the protocol wrongly (PROTO-1), or cannot be started or run here (a setup error).

`conform --format json` writes exactly one object on stdout when the run finished: exit 0 or 1,
or 2 when a `--cmd` target then failed to shut down (one PROTO-1 line on stderr says so, "after
the run reported above") or its divergence did not happen again when rerun ("unrepeated": one
PROTO-1 line on stderr says the target answered a program two ways). A run that could not
finish (exit 2) writes nothing there: one line on stderr says what went wrong. Keys are stable
within a `format`; new keys may be added, none are renamed or removed without changing
`format`. `loopspec schema conform` prints the JSON Schema
of the documents conform writes, this one and the exhaustive pass's below (`loopspec schema
replay`, replay's), generated from the classes that write them,
`loopspec.properties.conformance.report_documents`.

    {
      "format": "loopspec-conform/1",
      "target": "impl (bundled)",               // what ran, as replay's "target" names it
                                                //   and its --impl or --cmd takes it: the
                                                //   --impl MODULE:FACTORY, the --cmd as
                                                //   given, or this: the bundled one
      "targetName": "impl (bundled)",           // as the text report's first line names it:
                                                //   an --impl target's own name, else target
      "conformant": false,                      // true: exit 0
      "verdict": "COUNTEREXAMPLE",              // as the text's first line says it:
                                                //   CONFORMANT (exit 0), COUNTEREXAMPLE
                                                //   (exit 1) or DIVERGED ONCE, NOT WHEN
                                                //   RERUN (exit 2, "unrepeated")
      "capabilities": ["abort", "approval"],    // what the target declared, sorted
      "examples": 14,                           // programs run to their end
      "retries": 9,                             // programs Hypothesis abandoned and replaced
      "shrinkRuns": 1163,                       // runs spent shrinking the counterexample
      "reduceRuns": 41,                         // smaller programs replayed to cut it down
      "steps": 95,                              // commands sent in all (the sweeps' and the
                                                //   --exhaustive pass's too)
      "seconds": 104.6,                         // the --exhaustive pass's too
      "maxSeconds": null,                       // --max-seconds as given, or null
      "outOfTime": false,                       // true: that budget ended the search (then
                                                //   "examples" may be fewer than asked for) or,
                                                //   with a divergence, its shrinking
      "stoppedByCtrlC": false,                  // true: Ctrl-C ended the divergence's
                                                //   shrinking or cutting down: the smallest
                                                //   program found by then is shown
      "cutShort": false,                        // true: cutting it down stopped at its own
                                                //   bounds (60 s or 2000 replays); in both,
                                                //   `loopspec replay CASE --reduce` cuts it
                                                //   further
      "unrepeated": false,                      // true: the divergence did not happen again
                                                //   when its program was rerun: the target
                                                //   answered it two ways (exit 2); the program
                                                //   is the first run's, not shrunk
      "presentationExamples": 0,                // SPEC.md section 12's examples played
                                                //   before the search (capability
                                                //   presentation; the last diverged when
                                                //   "conformant" is false and "examples" is 0)
      "situationExamples": 0,                   // targeted programs of situations the search
                                                //   creates rarely, played after it (the last
                                                //   diverged when "conformant" is false); their
                                                //   commands are counted in "rules" and
                                                //   "transitions" as the random programs' are
      "rules": [                                // one row per rule of SPEC.md, in SPEC order
        {
          "rule": "EXE-4",
          "status": "VIOLATED",                 // see below
          "count": 7,                           // the same as "generated"
          "generated": 7,                       // situations the rule governs, created
          "checked": 11,                        // comparisons that covered its events
          "needs": "approval",                  // only when a capability gates it
          "known": ["repair-wording"],          // only under --profile: what touched it
          "unreachable": "...",                 // only when part of the rule no program
                                                //   reaches (SPEC.md section 12 says why)
          "unobservable": "..."                 // only when the protocol does not carry what
                                                //   the rule, or part of it, is about: what
                                                //   conform cannot see the target do
        }
      ],
      "transitions": {"Idle + SubmitUser -> accepted": 565},  // phase + command -> outcome
      "profile": "dsh",                         // only with --profile
      "exhaustive": {                           // only with --exhaustive K, when no program
                                                //   of its pass diverged
        "k": 3,
        "skippedFor": [],                       // capabilities it needs the target lacks:
                                                //   listed, the pass was skipped (the rest
                                                //   0 or null)
        "guarantee": "every program of at most 3 commands ... agrees with the model",
        "outOfTime": false,                     // true: --max-seconds ended the pass (then
                                                //   "guarantee" is null, "runs" those run)
        "programs": 35, "runs": 27, "commands": 128   // covered; run (a run compares
                                                //   every prefix of its program); sent
      },                                        // its runs are counted in "rules",
                                                //   "transitions", "steps" and "seconds"
      "knownDivergences": [                     // only with --profile, one per divergence
        {"key": "repair-wording", "rules": ["REC-1", "TEXT-1"], "programs": 3, "what": "...",
         "cutsPrograms": false}                 // true: the runs go different ways where it
                                                //   shows, so each of its programs was
                                                //   compared only up to it (cut there)
      ],
      "situationsUnplayed": [                   // only with --profile: targeted programs not
                                                //   played (a command the profile's target is
                                                //   cut at) or stopped at a known divergence
        {"situation": "...", "reason": "..."}
      ],
      "divergence": {                           // only when not conformant
        "rule": "EXE-4",                        // or "NO-RULE": a gap in SPEC.md
        "what": "...",                          // one sentence
        "specText": "### EXE-4 ...",            // the rule as SPEC.md states it
        "commandIndex": 2,                      // 0-based, in "program"
        "commandWords": "the turn is aborted (cause: user)",  // the command in words, as
                                                //   the text report says it
        "modelDid": "refused it (EXE-4)",       // what the model did with it, in words:
                                                //   "appended <event types>[; started running
                                                //   call <id>]" or "refused it (<rule>)"
        "targetDid": "appended tool/result",    // what the target did, in the same words
        "config": {},                           // the loop configuration, driver-protocol JSON
        "program": [{"kind": "SubmitUser", "text": ""}],   // the shrunk commands, cut down
        "expected": {},                         // the model's observation of that command:
                                                //   {"accepted", "events", "executed":
                                                //   [{"callId", "arguments"}], "presented"
                                                //   when the target presents, "history":
                                                //   {"kept", "appended"} when it reports its
                                                //   history (the first changed message on,
                                                //   ids left out)}, arguments as
                                                //   JSON values; a refused command is
                                                //   {"accepted": false, "refusal": {...}}
        "actual": {},                           // the target's
        "diff": "--- model\n+++ target\n...",
        "case": "loopspec-cases/case-EXE-4-0.json",        // null when none was saved
        "replay": "loopspec replay loopspec-cases/case-EXE-4-0.json --impl ...",
        "caseAlreadySaved": false               // true: an earlier run saved this case there
      }
    }

The program is Hypothesis's shrunk counterexample, then cut down by replaying smaller ones:
taking out any one command, reply block (a tool call with the commands that answer for it), hook
or tool of the configuration, or making a value simpler, loses the divergence or changes its
rule (`loopspec.properties.conformance.reduce`). "reduceRuns" counts those replays; "seconds"
includes them. The case file holds the same configuration and program.

Rule statuses:

    "exercised"                                 a program created the situation it governs
    "checked, situation never generated"        its events were compared, its situation never arose
    "not reached by the generator"              neither
    "not applicable"                            it needs a capability the target does not declare
    "not observable by conform (model tests)"   no protocol message carries what it is about
                                                ("unobservable" says what): the model's own
                                                tests prove the model's side, nothing in the
                                                run checks the target's (HIST-1: the messages
                                                a loop sends its model)
    "known divergence"                          under --profile: a known divergence touched it
    "VIOLATED"                                  the rule of "divergence"

With `--exhaustive K`, a program of the bounded-exhaustive pass that diverges ends the run there
(exit 1, no random search), cut down and saved as a case like a random counterexample (its
settling commands up to the diverging one included); with `--format json` the one document is
then a `loopspec-conform-exhaustive/1`:

    {
      "format": "loopspec-conform-exhaustive/1",
      "exhaustive": 4,                          // the K given
      "conformant": false,
      "verdict": "COUNTEREXAMPLE",              // as the text's first and last lines say it
      "rule": "TURN-2", "what": "...", "specText": "### TURN-2 ...",
      "commandIndex": 3,                        // 0-based, in "program"
      "config": {},                             // the alphabet's, less what it does not need
      "program": [{"kind": "SubmitUser", "text": "go"}],   // sent up to the diverging command
      "reduceRuns": 12,                         // smaller programs replayed to cut it down
      "stoppedByCtrlC": false,                  // true: Ctrl-C ended the cutting down
      "cutShort": false,                        // true: it stopped at its own bounds (60 s
                                                //   or 2000 replays); `replay --reduce` goes on
      "diff": "--- model\n+++ target\n...",
      "case": "loopspec-cases/case-TURN-2-0.json",       // null when none was saved
      "replay": "loopspec replay loopspec-cases/case-TURN-2-0.json --impl ...",
      "caseAlreadySaved": false                 // true: an earlier run saved this case there
    }

`replay` given several cases or a directory replays each and ends with one line that tallies
them (with `--format json`, one `loopspec-replay-cases/1` object, below). `replay CASE --format
json` writes one object on stdout when the case was replayed (exit 0 or 1, or 2 after it when a
`--cmd` target failed to shut down), nothing when it could not be (exit 2, one line on stderr):

    {
      "format": "loopspec-replay/1",
      "case": "bug.json",                       // the case file, as given
      "target": "alice_loop:make_target",       // what ran: the --impl or the --cmd as given
                                                //   (paths and secrets written as a saved
                                                //   case writes them, SAFE-1), or "impl
                                                //   (bundled)", as conform names that one
      "recordedTarget": {"impl": "alice_loop:make_target"},  // what the case names ({}: the
                                                //   bundled implementation)
      "sameTarget": true,                       // what ran is the one the case names (the
                                                //   same --impl or --cmd, or both bundled)
      "recordedRule": "ADJ-1",                  // what the run that saved it found, or null
      "recordedRuleUnseen": "history",          // only when the case passes on a target not
                                                //   declaring what shows that rule: nothing
                                                //   it speaks about was compared
      "recordedRuleUnreached": true,            // only when the case passes and no command
                                                //   the model takes creates the situation
                                                //   the recorded rule governs: the pass says
                                                //   nothing of it (a hand cut may have
                                                //   taken it away)
      "recordedUnrepeated": true,               // only when the case passes and was saved
                                                //   from a divergence its loop did not repeat
                                                //   when conform reran it: the pass may be
                                                //   chance, not a fix
      "caseLoopspecVersion": "0.1.0",           // the loopspec that wrote the case, or null
      "loopspecVersion": "0.2.0",               // this loopspec, which replayed it
      "profile": "dsh",                         // the profile applied, or null
      "caseProfile": "dsh",                     // the profile the case names, or null
      "capabilities": ["abort"],                // what the replayed target declared, sorted
      "caseCapabilities": ["abort"],            // what the case's target declared, or null
      "commands": 3,                            // commands in the case
      "config": {},                             // the case's configuration, driver-protocol JSON
      "program": [{"kind": "SubmitUser", "text": ""}],  // the case's commands, all of them
      "diverges": true,                         // true: exit 1
      "knownShown": ["repair-wording"],         // under a profile: known divergences shown
      "stoppedBy": null,                        // under a profile: the known divergence that
      "stoppedAt": null,                        //   ended the comparison, at this command (0-based)
      "modelRefused": [{"commandIndex": 2, "rule": "EXE-4", "line": 9}],  // commands the
                                                //   model refused, at the case file's line
      "divergence": {                           // null when it does not diverge
        "rule": "ADJ-1", "what": "...", "specText": "### ADJ-1 ...",
        "commandIndex": 2,                      // 0-based, in the case's commands
        "commandWords": "...", "modelDid": "...", "targetDid": "...",  // as in conform's
        "command": {"kind": "ToolFinishes"},    // that command, driver-protocol JSON
        "expected": {},                         // the model's observation of it (as in
        "actual": {},                           //   conform's), and the target's
        "diff": "--- model\n+++ target\n..."
      },
      "reduced": {                              // only with --reduce: what it made of the case
        "outcome": "saved",                     // | "already saved" | "not saved" (see
                                                //   "error") | "nothing can be cut" |
                                                //   "nothing cut" | "case passes"
        "rule": "ADJ-1",                        // the rule the cut-down program breaks, or null
        "commands": 2,                          // commands in the cut-down program
        "replays": 31,                          // smaller programs replayed to cut it down
        "stoppedByCtrlC": false,                // true: Ctrl-C stopped the cutting
        "cutShort": false,                      // true: it stopped at its own bounds (60 s
                                                //   or 2000 replays); --reduce cuts further
        "case": "case-ADJ-1-1.json",            // the cut-down case file, or null
        "config": {}, "program": [],            // the cut-down case, whenever one was cut
        "error": "..."                          // only "not saved": why (as on stderr)
      },
      "answers": [                              // only of a case written by hand (no target,
                                                //   no rule) that passes: its question's
                                                //   answer, the text's "the model answered"
        {"commandIndex": 1, "commandWords": "...",
         "answerWords": "appended tool/result c2 ...",   // as the text says it
         "answer": {}}                          // the model's observation, as "expected"
      ]
    }

Of several cases (`replay DIR --format json`), one object, written when every case was tried
(exit 1 when one still diverges, 2 when one could not be used; each such error is on stderr
too):

    {
      "format": "loopspec-replay-cases/1",
      "target": "alice_loop:make_target",       // as in loopspec-replay/1
      "cases": [                                // one per case file, in the order replayed
        {"case": "cases/a.json", "outcome": "diverging",   // "without divergence" |
         "replay": {"format": "loopspec-replay/1", ...}},  // "diverging": what replay
                                                           // CASE --format json writes of it
        {"case": "cases/b.json", "outcome": "skipped",     // | "skipped" | "unusable":
         "reason": "cases/b.json:4: ..."}                  // why, and no "replay"
      ],
      "totals": {"cases": 2, "withoutDivergence": 0, "diverging": 1, "skipped": 1,
                 "unusable": 0},
      "closingError": "..."                     // only when the target failed at shutdown
    }
"""

from __future__ import annotations

import argparse

from loopspec.properties.cli.counts import (
    at_least_one,
    seconds_above_zero,
    seconds_at_least_zero,
)
from loopspec.properties.cli.main import VERB_BY_NAME

# The keys of `loopspec.properties.profiles.PROFILES`, named here so that `--help` does not import
# the profiles (they load the conformance machinery); test_cli_conventions holds the two equal.
PROFILE_NAMES = ("claude-code", "codex", "dsh")
NO_PROFILE = "none"
"""`replay --profile none`: compare whole, even a case that names a profile."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `conform` and `replay`."""
    conform = subparsers.add_parser("conform", help=VERB_BY_NAME["conform"].summary)
    _target_arguments(conform)
    conform.add_argument(
        "--examples",
        type=at_least_one,
        default=200,
        metavar="N",
        help="command programs to try (default 200)",
    )
    conform.add_argument(
        "--steps",
        type=at_least_one,
        default=40,
        metavar="N",
        help="commands per program at most (default 40)",
    )
    conform.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="random seed: the same programs wherever this version of loopspec runs (default: "
        "a fixed, derandomized sequence)",
    )
    conform.add_argument(
        "--max-seconds",
        type=seconds_at_least_zero,
        default=None,
        metavar="S",
        help="end the search when S seconds have passed since conform started, with the "
        "programs run by then (the one running is finished first): exit 0 then says no "
        "divergence in that many programs, which the report counts (none: exit 2, nothing was "
        "checked); a counterexample being shrunk or cut down keeps the smallest program found "
        "by then (default: no limit)",
    )
    conform.add_argument(
        "--exhaustive",
        type=at_least_one,
        default=None,
        metavar="K",
        help="first run every program of at most K commands over the exhaustive alphabet "
        "(SPEC section 4), then the random search; the alphabet needs a target declaring "
        "abort, approval, crash-repair, parallel, pre-hooks and rewrite, and for any other "
        "the run says it skipped this",
    )
    _profile_argument(conform)
    conform.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default), or json: one versioned loopspec-conform/1 document on stdout, "
        "every key documented by: python -m pydoc loopspec.properties.cli.conform",
    )
    conform.add_argument(
        "--case-dir",
        default="loopspec-cases",
        metavar="DIR",
        help="where a failing program is saved (default loopspec-cases/)",
    )
    conform.set_defaults(handler=_run_conform)

    replay = subparsers.add_parser(
        "replay",
        help=VERB_BY_NAME["replay"].summary,
    )
    replay.add_argument(
        "case",
        metavar="CASE",
        nargs="+",
        help="a case file written by `loopspec conform`, or by hand (its JSON Schema: loopspec "
        "schema case); several, or a directory (its *.json), replay one after another as a "
        "regression suite: exit 1 if one diverges, 2 if one cannot be used; - "
        "reads a case from standard input (pbpaste | loopspec replay - --cmd ...)",
    )
    _target_arguments(replay, bundled=True)
    replay.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default), or json: one versioned loopspec-replay/1 document on stdout (for "
        "a bug tracker; of several cases, one loopspec-replay-cases/1 holding each case's), "
        "every key documented by: python -m pydoc loopspec.properties.cli.conform (JSON "
        "Schema: loopspec schema replay)",
    )
    replay.add_argument(
        "--profile",
        choices=(*PROFILE_NAMES, NO_PROFILE),
        default=None,
        help="erase this implementation's known divergences and report them as known "
        "(SPEC.md section 8 states dsh's, section 11 Claude Code's and Codex's); default: the "
        "profile the case names, if any; none: compare whole even when the case names one",
    )
    replay.add_argument(
        "--reduce",
        action="store_true",
        help="when the case diverges, cut it down as conform cuts its counterexamples (no "
        "command, call, hook or detail can go without losing the divergence or changing its "
        "rule) and save the result beside it under a new name (one case file; with --format "
        "json, its reduced member says what was cut and where it went)",
    )
    replay.set_defaults(handler=_run_replay)


def _profile_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile",
        choices=PROFILE_NAMES,
        default=None,
        help="erase this implementation's known divergences and report them as known "
        "(SPEC.md section 8 states dsh's, section 11 Claude Code's and Codex's)",
    )


def _target_arguments(parser: argparse.ArgumentParser, *, bundled: bool = False) -> None:
    """Add --impl and --cmd, which name the target, and `replay`'s --bundled (`bundled`)."""
    group = parser.add_mutually_exclusive_group()
    if bundled:
        group.add_argument(
            "--bundled",
            action="store_true",
            help="replay on loopspec's bundled implementation, the target when none is named, "
            "also a case found on another (its --cmd or --impl recorded): without it such a "
            "case is refused (exit 2), as a pass on the bundled loop says nothing of that one",
        )
    group.add_argument(
        "--impl",
        metavar="MODULE:FACTORY",
        help="a Python factory returning a ConformanceTarget, MODULE a module name found "
        "in the current directory or on sys.path, not a file path (default: the bundled "
        "implementation); `replay` runs only this, never the target a case file records, and "
        "refuses a case recording one when no target is named (see replay --bundled)",
    )
    group.add_argument(
        "--cmd",
        metavar="COMMAND",
        help="a process that speaks the driver protocol (its messages: python -m pydoc "
        "loopspec.properties.conformance.driver_protocol; their JSON Schema: loopspec schema), "
        "started in the current folder; split into words as a shell would, but run by none "
        "(~ is expanded, $VAR and pipes are not; `env NAME=VALUE cmd` sets a variable). A "
        "case's recorded --cmd and a rerun: line name the loop from the folder and home "
        "conform ran in, and <hidden> where a secret was; the case writes a path elsewhere "
        "as <path>/NAME, its last name alone",
    )
    parser.add_argument(
        "--answer-timeout",
        type=seconds_above_zero,
        default=None,
        metavar="S",
        help="seconds a --cmd process has to answer each message, its start-up (the first "
        "reset) included; a later answer is a hang (PROTO-1) (default 10)",
    )


# The search, its reports and case files load only once a verb runs, not for `--help`.
def _run_conform(args: argparse.Namespace) -> int:
    from loopspec.properties.cli.conform_run import run_conform  # noqa: PLC0415 -- see above

    return run_conform(args)


def _run_replay(args: argparse.Namespace) -> int:
    from loopspec.properties.cli.conform_run import run_replay  # noqa: PLC0415 -- see above

    return run_replay(args)
