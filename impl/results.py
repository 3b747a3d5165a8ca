"""How what happened to a call becomes its result (rules DEC-1, DEC-3, ABORT-1).

A result is prepared when a call is settled (denied, refused, failed to start, aborted, or its
body finished and its PostToolUse hooks ruled) and waits for the commit cursor. Error results
say `Error: <why>` in one text block and, for the failures the loop itself produces, carry
`{name, code}` error info. Answers from outside that make no sense are read conservatively: an
approver that fails means "unavailable", a body that raises failed, a hook that fails blocks.
"""

from __future__ import annotations

import asyncio
from typing import assert_never

import attrs

from loopspec.model.commands import (
    APPROVAL_OUTCOMES,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    ToolFailed,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec
from loopspec.model.jsonvalue import FrozenMap, JsonValue
from loopspec.model.messages import ResultContentBlock, TextBlock

ALLOWED_ONCE = "allowed-once"
APPROVAL_REFUSALS = {
    "rejected": "the user rejected tool {name}",
    "cancelled": "the approval request for tool {name} was cancelled",
    "unavailable": "tool {name} needs approval but no approval channel is available",
}

# What a block without a reason shows (DEC-3); the hook bridge's reading of one uses it too.
BLOCKED_WITHOUT_REASON = "blocked by PostToolUse hook"


# (error name, error code) of the failures the loop itself produces.
INVALID_INPUT = ("InvalidToolInputError", "INVALID_TOOL_INPUT")
UNKNOWN_TOOL = ("UnknownToolError", "UNKNOWN_TOOL")
ABORTED_BEFORE_DISPATCH = ("AbortError", "ABORTED_BEFORE_DISPATCH")
ABORTED = ("AbortError", "ABORTED")


@attrs.frozen
class PreparedResult:
    """A result waiting for the commit cursor, with the PostToolUse audit that precedes it."""

    content: tuple[ResultContentBlock, ...]
    is_error: bool
    error: FrozenMap | None = None
    meta: JsonValue = None
    contexts: tuple[str, ...] = ()
    audit: tuple[tuple[HookSpec, PostVerdict, float], ...] = ()


def error_result(message: str, name: str | None = None, code: str | None = None) -> PreparedResult:
    """A failed result: one text block `Error: <message>` (rule DEC-1), error info if named."""
    error = None if name is None or code is None else FrozenMap({"name": name, "code": code})
    return PreparedResult((TextBlock(f"Error: {message}"),), is_error=True, error=error)


def judged_result(
    outcome: ToolOutcome,
    audit: tuple[tuple[HookSpec, PostVerdict, float], ...],
    *,
    after_abort: bool,
) -> PreparedResult:
    """A finished body's result after abort and PostToolUse rulings (rules ABORT-1, DEC-3)."""
    match outcome:
        case ToolSucceeded() if after_abort:
            # A success that lands after an abort must not read as if the turn went on.
            base = error_result("tool call aborted", *ABORTED)
        case ToolSucceeded():
            # An empty context is no context (ADJ-4), the body's own as a hook's.
            contexts = tuple(text for text in outcome.contexts if text)
            base = PreparedResult(
                (TextBlock(outcome.text),), False, meta=outcome.meta, contexts=contexts
            )
        case ToolFailed():
            base = error_result(outcome.message, outcome.error_name, outcome.code)
        case _:
            assert_never(outcome)
    blocks: list[str] = []
    blocked = False
    hook_contexts: list[str] = []
    for _hook, verdict, _took in audit:
        match verdict:
            case PostPass():
                pass
            case PostContext():
                if verdict.text:  # an empty context is no context (ADJ-4)
                    hook_contexts.append(verdict.text)
            case PostBlock():
                # An empty reason is no reason: a provider refuses an empty text block (DEC-3).
                if verdict.reason:
                    blocks.append(verdict.reason)
                blocked = True
            case _:
                assert_never(verdict)
    if blocked:
        # The model sees why the result was withheld instead of it; the body's contexts go too.
        content = tuple(TextBlock(reason) for reason in blocks or [BLOCKED_WITHOUT_REASON])
        return PreparedResult(content, True, contexts=tuple(hook_contexts), audit=audit)
    return attrs.evolve(base, contexts=base.contexts + tuple(hook_contexts), audit=audit)


def approval_outcome(answer: asyncio.Future[str] | None) -> str:
    """The approver's answer; anything but a known outcome means no channel could answer."""
    if answer is None or answer.cancelled() or answer.exception() is not None:
        return "unavailable"
    outcome = answer.result()
    return outcome if outcome in APPROVAL_OUTCOMES else "unavailable"


# Unions written in a call are built again on every call (once per result): named once here.
_OUTCOMES = (ToolSucceeded, ToolFailed)
_POST_VERDICTS = (PostPass, PostContext, PostBlock)


def tool_outcome(body: asyncio.Future[ToolOutcome]) -> ToolOutcome:
    """The body's outcome; a body that raised or was cancelled failed."""
    if body.cancelled():
        return ToolFailed("the tool body was cancelled", error_name="CancelledError")
    error = body.exception()
    if error is not None:
        return ToolFailed(str(error) or type(error).__name__, error_name=type(error).__name__)
    outcome = body.result()
    if isinstance(outcome, _OUTCOMES):
        return outcome
    return ToolFailed(f"the tool body returned {type(outcome).__name__}, not an outcome")


def post_verdict(hook: HookSpec, answer: asyncio.Future[PostVerdict]) -> PostVerdict:
    """A hook's ruling; a hook that failed blocks the result (fail closed)."""
    if answer.cancelled() or answer.exception() is not None:
        return PostBlock(f"PostToolUse hook {hook.handler_id} failed")
    verdict = answer.result()
    if isinstance(verdict, _POST_VERDICTS):
        return verdict
    return PostBlock(f"PostToolUse hook {hook.handler_id} gave no verdict")
