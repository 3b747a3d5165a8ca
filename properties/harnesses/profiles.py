"""The divergences from the model each real loop is known to show, rule by rule.

Observed on the pinned versions (Claude Code 2.1.332, Codex 0.171.0) with `loopspec run
--harness`, held in place by `tests/test_real_harnesses.py` (scripted scenarios) and
`tests/test_real_harness_programs.py` (random programs: any divergence not listed here fails),
or with `loopspec conform` (SPEC section 11 marks those), held by a case under
`tests/regressions/` and `tests/test_real_harness_*.py`. Each entry says whether loopspec reads
it as a design difference or a bug.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

import attrs

from loopspec.properties.harnesses.script import Harness


class Kind(enum.Enum):
    """How loopspec reads a known divergence."""

    DESIGN = "design difference"
    BUG = "bug"


@attrs.frozen
class KnownDivergence:
    """A rule the real loop breaks, how loopspec reads it, and what happens."""

    rule_id: str
    kind: Kind
    what: str
    # It shows only where the loop loses a race (a later call finishing first): a run that did
    # not lose it says nothing of whether an upgrade fixed it (`check --strict-known`).
    racy: bool = False
    # The own summary of each keyed form conform detects apart (`RULE:aspect` in
    # `real_harnesses.DETECTORS`), by aspect: the part of `what` that form shows.
    aspects: Mapping[str, str] = attrs.field(factory=dict, hash=False)


_RW_1 = KnownDivergence(
    "RW-1",
    Kind.BUG,
    "a PreToolUse hook's updatedInput runs, while the model history and the log keep the "
    "model's input: the UI and the transcript show a command that did not run",
)
_HOOK_3 = KnownDivergence(
    "HOOK-3",
    Kind.BUG,
    "several rewriting hooks run in parallel and the one that finishes last wins: a race, "
    "not the configured order",
    aspects={
        "parallel-hooks": "a call's PreToolUse hooks run in parallel: their audit records come "
        "in the order the hooks finish, not the configured order",
    },
)

_RW_3 = KnownDivergence(
    "RW-3",
    Kind.DESIGN,
    "the reply and its call records are written to the log before the PreToolUse hooks run "
    "(hooks decide at each call's start), so the log's call record is never the input the "
    "hooks settled on",
)
_LOG_8 = KnownDivergence(
    "LOG-8",
    Kind.DESIGN,
    "the log is appended one record at a time (a reply's blocks, each result): a crash can cut "
    "between any two, there is no atomic commit of a reply with its calls",
)

_TEXT_1 = KnownDivergence(
    "TEXT-1",
    Kind.DESIGN,
    "results are worded by the CLI's shell tool and the CLI itself: a failure is an exit code "
    "and the error output (no error name or code), a hook's denial, a hook's input the CLI "
    "refuses (HOOK-6) and a failed model request are worded the CLI's way",
)
# The parts of TEXT-1 conform erases apart from the results' words (keyed TEXT-1:aspect).
_MODEL_ERRORS = (
    "a turn a failed model request ends records the CLI's own error, not the request's "
    "message and code"
)
_CLAUDE_OUTPUT_SHAPE = (
    "a command's output loses its leading blank lines and trailing "
    "whitespace (a final newline among it), and one of more than 30,000 UTF-8 bytes is "
    "saved to a file, the model reading a <persisted-output> notice with a preview of "
    "its first 2,000 characters (cut back to a line's end); a command that succeeds "
    "printing nothing is '(Bash completed with no output)'; a failed command's error "
    "output keeps its first 30,000 characters, and the failure's text past 10,000 "
    "characters its first and last 5,000 around '... [N characters truncated] ...'"
)
_CODEX_POST_BLOCK = (
    "a PostToolUse block's output is its reasons joined by blank "
    "lines, with no error flag (the rollout's output has none)"
)
_CODEX_OUTPUT_SHAPE = (
    "a command's output of "
    "more than 10,000 UTF-8 bytes is cut to its first and last 5,000 bytes around "
    "'…N chars truncated…', after a 'Warning: truncated output' line and its line count "
    "(a shorter one is kept whole, a final newline too)"
)
_CLAUDE_REUSED_CALL_ID = (
    "a call whose id an earlier reply's call used (local models' call_0) is left out of "
    "every request with its result, a reply or user turn it leaves empty sent as "
    "'[Tool use interrupted]' or '(no content)': the model never reads that result"
)
_CLAUDE_ABORT_NOTICE = (
    "an interrupt writes a user message the user never typed ('[Request interrupted by "
    "user]') at once, last in the aborted turn, and the next turn's model reads it"
)
_CODEX_ABORT_NOTICE = (
    "an interrupt writes a user message the user never typed ('<turn_aborted>...') at "
    "once, last in the aborted turn (after its results), and the next turn's model reads "
    "it; the model writes none"
)
_CODEX_BLANK_BLOCK = (
    "a PostToolUse hook that blocks with an empty or blank reason is ignored: when no "
    "other blocking hook gave a reason the model reads the tool's output, where the "
    "model replaces it ('blocked by PostToolUse hook', or the blank reason as given), "
    "and beside one a blank reason is left out of the joined reasons"
)

_TEXT_2 = KnownDivergence(
    "TEXT-2",
    Kind.DESIGN,
    "an assistant message's source names the CLI and the model its log records",
)
_TURN_1 = KnownDivergence(
    "TURN-1",
    Kind.DESIGN,
    "a headless run refuses an empty or blank prompt: no turn starts",
)

_EXE_1 = KnownDivergence(
    "EXE-1",
    Kind.BUG,
    "a reply whose calls repeat an id is accepted and each call runs under that id; the model "
    "refuses the reply",
)
_HOOK_2 = KnownDivergence(
    "HOOK-2",
    Kind.DESIGN,
    "when several PreToolUse hooks deny a call, the model is told one denying hook's reason, "
    "not all of them joined",
)

KNOWN: Mapping[Harness, Mapping[str, KnownDivergence]] = {
    Harness.CLAUDE_CODE: {
        "RW-1": _RW_1,
        "RW-2": KnownDivergence(
            "RW-2",
            Kind.BUG,
            "the transcript keeps each hook's output but the call record carries no trace of "
            "the rewrite: nothing says which hook supplied the input that ran",
        ),
        "RW-3": _RW_3,
        "LOG-8": _LOG_8,
        "TEXT-1": KnownDivergence(
            "TEXT-1",
            Kind.DESIGN,
            f"{_TEXT_1.what}; {_CLAUDE_OUTPUT_SHAPE}",
            aspects={"output-shape": _CLAUDE_OUTPUT_SHAPE, "model-errors": _MODEL_ERRORS},
        ),
        "TEXT-2": _TEXT_2,
        "TURN-1": _TURN_1,
        "EXE-1": _EXE_1,
        "STEP-4": KnownDivergence(
            "STEP-4",
            Kind.DESIGN,
            "a completed reply holding only reasoning, or nothing at all, does not end the "
            "turn: the CLI asks the model again in the same step",
        ),
        "HIST-1": KnownDivergence(
            "HIST-1",
            Kind.BUG,
            "a failed model request is written to the transcript as an assistant message the "
            "model never wrote ('API Error: ...', model <synthetic>), which the requests that "
            "follow leave out: the transcript holds a reply no model request carries; and "
            f"{_CLAUDE_REUSED_CALL_ID}",
            aspects={"reused-call-id": _CLAUDE_REUSED_CALL_ID},
        ),
        "HOOK-2": _HOOK_2,
        "HOOK-3": _HOOK_3,
        "HOOK-6": KnownDivergence(
            "HOOK-6",
            Kind.BUG,
            "a PreToolUse hook's updatedInput that is no JSON object at all (a string, a number, "
            "a list) is ignored: the call runs the model's own input; the model refuses the call",
        ),
        "ORD-3": KnownDivergence(
            "ORD-3",
            Kind.DESIGN,
            "results of parallel read-only calls go back in completion order, a denied one's "
            "as its PreToolUse hook denies it, ahead of earlier calls still running",
            racy=True,
            aspects={
                "denied-at-once": "a read-only call's denial is logged as its PreToolUse hook "
                "denies it, ahead of the results of earlier read-only calls of its reply still "
                "running",
            },
        ),
        "SCHED-1": KnownDivergence(
            "SCHED-1",
            Kind.DESIGN,
            "a reply's read-only commands run together past the configuration's cap: the "
            "CLI's own cap (CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY) is not honoured in a headless "
            "run (three ran at once with it set to 2)",
        ),
        "ADJ-4": KnownDivergence(
            "ADJ-4",
            Kind.DESIGN,
            "a PostToolUse hook's additionalContext reaches the model inside the result it "
            "judges (a system reminder after the output; the transcript's attachment follows "
            f"the result), not as a message at the next step's start; {_CLAUDE_ABORT_NOTICE}",
            aspects={"abort-notice": _CLAUDE_ABORT_NOTICE},
        ),
        "DEC-3": KnownDivergence(
            "DEC-3",
            Kind.BUG,
            "a PostToolUse block does not replace the result: the model still reads the output, "
            "with the block's reason appended as a system reminder",
        ),
        "REC-1": KnownDivergence(
            "REC-1",
            Kind.BUG,
            "resuming after a crash adds an assistant message the model never wrote; forking "
            "or rewinding a session at a call not yet answered, or at a result of its reply "
            "written before its own (--fork-session, --resume-session-at), sends the model a "
            "result for it ('[Tool result missing due to internal error]') that no result "
            "record holds",
        ),
        "ABORT-1": KnownDivergence(
            "ABORT-1",
            Kind.BUG,
            "an interrupted running call is reported to the model as rejected by the user (or, "
            "the CLI exiting before the threads that write that answer, left unanswered until "
            "the next turn), and an assistant message the model never wrote is added",
            aspects={
                "unanswered-at-exit": "an interrupt can end the CLI before the threads that "
                "write a running call's answer: that call is left unanswered until the next turn",
                "resume": "resuming after an interrupt, the CLI adds an assistant message the "
                "model never wrote ('No response requested.') before the new turn opens",
                "completion-order": "an interrupt rejects each read-only call of the reply as "
                "it ends it, a later call's answer ahead of an earlier one's (the CLI runs them "
                "together past the cap, where the model queues some)",
            },
        ),
        "ABORT-2": KnownDivergence(
            "ABORT-2",
            Kind.BUG,
            "an interrupt while a call's PreToolUse hooks run keeps the reply's call and reports "
            "it to the model as rejected by the user, a reply's read-only calls in the order the "
            "interrupt ends them; the model keeps only the reply's text",
            aspects={
                "completion-order": "an interrupt while a reply's read-only calls' PreToolUse "
                "hooks run rejects each of those calls as the interrupt ends it, a later call's "
                "answer ahead of an earlier one's",
            },
        ),
        "ABORT-3": KnownDivergence(
            "ABORT-3",
            Kind.DESIGN,
            "an interrupt carries no cause: the transcript records every one as the user's "
            "('[Request interrupted by user]'), whoever aborted",
        ),
    },
    Harness.CODEX: {
        "DEC-1": KnownDivergence(
            "DEC-1",
            Kind.BUG,
            "a PreToolUse hook that denies a call without giving a reason, or with an "
            "updatedInput too, is ignored: the call runs (or is refused for another hook's "
            "input, as any is that holds no string command); the model denies it",
        ),
        "DEC-3": KnownDivergence(
            "DEC-3",
            Kind.BUG,
            _CODEX_BLANK_BLOCK,
            aspects={"blank-reason": _CODEX_BLANK_BLOCK},
        ),
        "RW-1": _RW_1,
        "RW-2": KnownDivergence(
            "RW-2",
            Kind.BUG,
            "the rollout records no hook, so nothing says which hook supplied the input that ran",
        ),
        "RW-3": _RW_3,
        "LOG-8": _LOG_8,
        "TEXT-1": KnownDivergence(
            "TEXT-1",
            Kind.DESIGN,
            f"{_TEXT_1.what}; {_CODEX_POST_BLOCK}; {_CODEX_OUTPUT_SHAPE}",
            aspects={
                "post-block": _CODEX_POST_BLOCK,
                "output-shape": _CODEX_OUTPUT_SHAPE,
                "model-errors": _MODEL_ERRORS,
            },
        ),
        "TEXT-2": _TEXT_2,
        "EXE-1": _EXE_1,
        "ADJ-1": KnownDivergence(
            "ADJ-1",
            Kind.BUG,
            "a PostToolUse hook's additionalContext is written as a developer message between "
            "the call and its output, in the rollout and in the next request's history "
            "(Claude Code puts it inside the result); an empty one is written too, as an empty "
            "developer message (Claude Code and the model add nothing for it, ADJ-4)",
        ),
        "ORD-1": KnownDivergence(
            "ORD-1",
            Kind.BUG,
            "an empty reply (no text, no call) leaves no trace in the rollout: the step it ended "
            "has no assistant message",
        ),
        "HOOK-2": _HOOK_2,
        "HOOK-3": _HOOK_3,
        "SCHED-1": KnownDivergence(
            "SCHED-1",
            Kind.DESIGN,
            "every shell call of a reply runs at once, whatever its tool's concurrency safety "
            "and the configuration's cap: Codex runs its shell tool in parallel and has no cap",
        ),
        "REC-1": KnownDivergence(
            "REC-1",
            Kind.BUG,
            "after a crash the synthetic result reaches the model but is never written to the "
            "rollout, which keeps the call unanswered",
        ),
        "ABORT-1": KnownDivergence(
            "ABORT-1",
            Kind.BUG,
            "an interrupt (SIGINT) kills the running calls at once, each answered 'aborted by "
            "user' without an error flag, and ends the turn there; the model lets a running "
            "call drain and answers it ABORTED when it settles",
        ),
        "ABORT-2": KnownDivergence(
            "ABORT-2",
            Kind.BUG,
            "an interrupt while a call's PreToolUse hooks run keeps the reply's call and answers "
            "it 'aborted by user'; the model keeps only the reply's text",
        ),
        "ADJ-4": KnownDivergence(
            "ADJ-4",
            Kind.DESIGN,
            _CODEX_ABORT_NOTICE,
            aspects={"abort-notice": _CODEX_ABORT_NOTICE},
        ),
        "ABORT-3": KnownDivergence(
            "ABORT-3",
            Kind.DESIGN,
            "an interrupt carries no cause: the rollout records every aborted turn as "
            "'interrupted' (read as the user's), whoever aborted it",
        ),
    },
}


def unknown_rules(harness: Harness, rule_ids: list[str]) -> list[str]:
    """The rules among `rule_ids` that are not known divergences of `harness`, in order."""
    return [rule for rule in rule_ids if rule not in KNOWN[harness]]
