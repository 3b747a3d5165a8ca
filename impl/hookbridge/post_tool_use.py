"""Turning a finished PostToolUse hook into the model's `PostVerdict`, per dialect.

A block that also carries `additionalContext` becomes one `PostBlock` whose reason is followed
by the context: a hook gives one verdict, the block is the stricter answer, and both peers show
the model the context as well as the block, so folding it into the reason loses nothing.
"""

from __future__ import annotations

from typing import assert_never

import attrs

from loopspec.impl.hookbridge.faults import HookFault
from loopspec.impl.hookbridge.output import (
    OutputProblem,
    choice_field,
    claude_code_json_after_exit_2,
    flag_field,
    for_point,
    nonblank,
    process_fault,
    reject_unknown,
    specific_output,
    stderr_text,
    stdout_document,
    text_field,
    unsupported,
    with_context,
)
from loopspec.impl.hookbridge.process import ProcessOutcome
from loopspec.impl.hookbridge.settings import CLAUDE_CODE, CODEX
from loopspec.impl.results import BLOCKED_WITHOUT_REASON
from loopspec.model.commands import PostBlock, PostContext, PostPass, PostVerdict
from loopspec.model.config import POST_TOOL_USE
from loopspec.model.jsonvalue import FrozenMap

# A reasonless block reads as the loop words one (DEC-3), so a bridged hook and a hook the
# loop runs itself show the same text.
DEFAULT_BLOCK = BLOCKED_WITHOUT_REASON
CONTINUE_FALSE = "the hook stopped the agent (continue: false)"
CODEX_TOP_KEYS = (
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "decision",
    "reason",
    "hookSpecificOutput",
)
CODEX_SPECIFIC_KEYS = ("hookEventName", "additionalContext", "updatedMCPToolOutput")


@attrs.frozen
class PostReading:
    """One hook's judgement of a result as its dialect reads it, before the fail-closed policy."""

    verdict: PostVerdict
    decision: str
    fault: HookFault | None = None


def _no_decision(fault: HookFault) -> PostReading:
    return PostReading(PostPass(), "error", fault)


def read_post_tool_use(
    dialect: str, outcome: ProcessOutcome, timeout_s: float, cap: int
) -> PostReading:
    """The verdict a finished PostToolUse hook gives under `dialect`."""
    fault = process_fault(outcome, timeout_s, cap)
    if fault is not None:
        return _no_decision(fault)
    if outcome.exit_code == 2:
        # The tool already ran; exit 2 shows stderr to the model in place of the result.
        reason = stderr_text(outcome)
        if not reason and dialect == CODEX:
            return _no_decision(unsupported("exit code 2 without feedback on stderr").fault)
        blocked = PostBlock(reason or DEFAULT_BLOCK)
        return (
            _with_json(blocked, outcome)
            if dialect == CLAUDE_CODE
            else PostReading(blocked, "block")
        )
    found = stdout_document(dialect, outcome.stdout)
    if found is None:
        return PostReading(PostPass(), "pass")
    if isinstance(found, HookFault):
        return _no_decision(found)
    try:
        return _codex(found) if dialect == CODEX else _claude_code(found)
    except OutputProblem as problem:
        return _no_decision(problem.fault)


def json_after_exit_2(outcome: ProcessOutcome) -> PostReading | None:
    """What Claude Code reads from a hook's JSON after it exited 2, or None: 2.1.332 reads a
    JSON answer then too (observed; its documentation says stdout goes unread): a
    `decision: "block"` (its reason replaces stderr), or a context (it reaches the model beside
    stderr's block). Any other answer, or `continue: false`, leaves stderr the reason."""
    reading = claude_code_json_after_exit_2(outcome, _claude_code)
    return None if reading is None or isinstance(reading.verdict, PostPass) else reading


def _with_json(blocked: PostBlock, outcome: ProcessOutcome) -> PostReading:
    """The block of a Claude Code hook that exited 2, with what it printed (`json_after_exit_2`)."""
    reading = json_after_exit_2(outcome)
    if reading is None:
        return PostReading(blocked, "block")
    match reading.verdict:
        case PostBlock():
            return attrs.evolve(reading, decision="block")
        case PostContext(text=context):
            return PostReading(PostBlock(with_context(blocked.reason, context)), "block")
        case PostPass():
            return PostReading(blocked, "block")
        case _:
            assert_never(reading.verdict)


def _context(specific: FrozenMap | None) -> str | None:
    if specific is None:
        return None
    return nonblank(text_field(specific, "additionalContext", "$.hookSpecificOutput"))


def _claude_code(document: FrozenMap) -> PostReading:
    specific, wrong_event = for_point(specific_output(document), POST_TOOL_USE)
    keep_going = flag_field(document, "continue", "$", default=True)
    stop_reason = nonblank(text_field(document, "stopReason", "$"))
    blocked = choice_field(document, "decision", ("block",), "$") == "block"
    reason = nonblank(text_field(document, "reason", "$"))
    context = _context(specific)
    if not keep_going:
        verdict = PostBlock(with_context(stop_reason or CONTINUE_FALSE, context))
        return PostReading(verdict, "block", wrong_event)
    if blocked:
        verdict = PostBlock(with_context(reason or DEFAULT_BLOCK, context))
        return PostReading(verdict, "block", wrong_event)
    if context is not None:
        return PostReading(PostContext(context), PostContext.TAG, wrong_event)
    return PostReading(PostPass(), "pass", wrong_event)


def _codex(document: FrozenMap) -> PostReading:
    reject_unknown(document, CODEX_TOP_KEYS, "$")
    raw_specific = specific_output(document)
    reject_unknown(raw_specific, CODEX_SPECIFIC_KEYS, "$.hookSpecificOutput")
    specific, wrong_event = for_point(raw_specific, POST_TOOL_USE)
    text_field(document, "systemMessage", "$")
    if flag_field(document, "suppressOutput", "$", default=False):
        raise unsupported("suppressOutput is not supported in PostToolUse")
    if specific is not None and specific.get("updatedMCPToolOutput") is not None:
        raise unsupported("updatedMCPToolOutput is not supported")
    keep_going = flag_field(document, "continue", "$", default=True)
    stop_reason = nonblank(text_field(document, "stopReason", "$"))
    blocked = choice_field(document, "decision", ("block",), "$") == "block"
    reason = text_field(document, "reason", "$")
    context = _context(specific)
    if not keep_going:
        stopped = nonblank(reason) or stop_reason or CONTINUE_FALSE
        return PostReading(PostBlock(stopped), "block", wrong_event)
    if blocked:
        feedback = nonblank(reason)
        if feedback is None:
            raise unsupported("decision:block without a non-empty reason")
        return PostReading(PostBlock(with_context(feedback, context)), "block", wrong_event)
    if reason is not None:
        raise unsupported("reason without decision")
    if context is not None:
        return PostReading(PostContext(context), PostContext.TAG, wrong_event)
    return PostReading(PostPass(), "pass", wrong_event)
