"""Every text and error code the loop writes into a result, word for word (rule TEXT-1).

`loopspec conform` compares result content, error info and reasons exactly, so the wording is
part of the contract, not a detail of the model: SPEC.md's wording table is generated from
`WORDING` below, and the model's handlers format their texts from these templates only.
Placeholders are `{tool}` (the call's tool name), `{hook}` (a handler id), `{problem}` (one of
the input problems), `{keys}` (the missing required keys, each quoted as Python's `repr`
quotes a string, joined by ", ": SPEC.md section 9 spells out that quoting for a loop in another
language) and `{reasons}` (hook reasons, joined by `REASON_SEPARATOR`).
"""

from __future__ import annotations

import attrs

ERROR_PREFIX = "Error: "
REASON_SEPARATOR = "; "

NOT_AN_OBJECT = "the input must be a JSON object"
MISSING_KEYS = "missing required {keys}"
INVALID_INPUT = "invalid input for tool {tool}: {problem}"
# The words of REWRITE_REFUSED no hook or tool name changes: what conformance looks for to tell
# a result that refused a rewrite (HOOK-6).
REWRITE_REFUSED_WORDS = "rewrote the input of"
REWRITE_REFUSED = "hook {hook} " + REWRITE_REFUSED_WORDS + " {tool}: {problem}"
DENIED_WITHOUT_REASON = "denied"
BLOCKED_WITHOUT_REASON = "blocked by PostToolUse hook"
UNKNOWN_TOOL = "unknown tool {tool}"
APPROVAL_REJECTED = "the user rejected tool {tool}"
APPROVAL_CANCELLED = "the approval request for tool {tool} was cancelled"
APPROVAL_UNAVAILABLE = "tool {tool} needs approval but no approval channel is available"
ABORTED_BEFORE_DISPATCH = "tool call aborted before dispatch"
ABORTED_WHILE_RUNNING = "tool call aborted"
OUTCOME_UNKNOWN = (
    "the session stopped after this tool call was recorded and before its result was. "
    "It may or may not have taken effect; check before repeating anything with side effects."
)
NOT_STARTED = (
    "the session stopped before this tool call started. It had no effect and may be issued again."
)
APPROVAL_ID = "approval-{call_id}"

APPROVAL_DENIALS = {
    "rejected": APPROVAL_REJECTED,
    "cancelled": APPROVAL_CANCELLED,
    "unavailable": APPROVAL_UNAVAILABLE,
}


def quoted_keys(keys: list[str] | tuple[str, ...]) -> str:
    """Required keys as the wording writes them: each as Python's `repr` of a string, joined
    by ", " (`'file_path', 'content'`)."""
    return ", ".join(repr(key) for key in keys)


@attrs.frozen
class Wording:
    """One situation, the text of its error result, its `{name, code}` and its rule."""

    situation: str
    text: str
    error_name: str | None
    error_code: str | None
    rule_id: str


WORDING: tuple[Wording, ...] = (
    Wording(
        "arguments are not a JSON object (any tool, known or not)",
        ERROR_PREFIX + INVALID_INPUT.format(tool="{tool}", problem=NOT_AN_OBJECT),
        "InvalidToolInputError",
        "INVALID_TOOL_INPUT",
        "EXE-5",
    ),
    Wording(
        "a known tool's required keys are missing",
        ERROR_PREFIX + INVALID_INPUT.format(tool="{tool}", problem=MISSING_KEYS),
        "InvalidToolInputError",
        "INVALID_TOOL_INPUT",
        "EXE-5",
    ),
    Wording(
        "a PreToolUse hook denied the call",
        ERROR_PREFIX + "{reasons}",
        None,
        None,
        "DEC-1",
    ),
    Wording(
        "a deny whose hooks gave no reason",
        ERROR_PREFIX + DENIED_WITHOUT_REASON,
        None,
        None,
        "DEC-1",
    ),
    Wording(
        "a PostToolUse block whose hooks gave no reason",
        BLOCKED_WITHOUT_REASON,
        None,
        None,
        "DEC-3",
    ),
    Wording(
        "the winning rewrite fails the tool's input contract",
        ERROR_PREFIX + REWRITE_REFUSED,
        None,
        None,
        "HOOK-6",
    ),
    Wording(
        "the tool is not registered (when the call would start)",
        ERROR_PREFIX + UNKNOWN_TOOL,
        "UnknownToolError",
        "UNKNOWN_TOOL",
        "EXE-5",
    ),
    Wording("approval answered `rejected`", ERROR_PREFIX + APPROVAL_REJECTED, None, None, "DEC-2"),
    Wording(
        "approval answered `cancelled`",
        ERROR_PREFIX + APPROVAL_CANCELLED,
        None,
        None,
        "DEC-2",
    ),
    Wording(
        "approval answered `unavailable`", ERROR_PREFIX + APPROVAL_UNAVAILABLE, None, None, "DEC-2"
    ),
    Wording(
        "an abort found the call not started",
        ERROR_PREFIX + ABORTED_BEFORE_DISPATCH,
        "AbortError",
        "ABORTED_BEFORE_DISPATCH",
        "ABORT-1",
    ),
    Wording(
        "a body succeeded after the abort",
        ERROR_PREFIX + ABORTED_WHILE_RUNNING,
        "AbortError",
        "ABORTED",
        "ABORT-1",
    ),
    Wording(
        "a tool body failed",
        ERROR_PREFIX + "{message}",
        "{errorName}",
        "{code}",
        "EXE-4",
    ),
    Wording(
        "repair: the call's tool/call was recorded",
        ERROR_PREFIX + OUTCOME_UNKNOWN,
        "ToolOutcomeUnknownError",
        "TOOL_OUTCOME_UNKNOWN",
        "REC-1",
    ),
    Wording(
        "repair: the call was never recorded",
        ERROR_PREFIX + NOT_STARTED,
        "ToolNotStartedError",
        "TOOL_NOT_STARTED",
        "REC-1",
    ),
)


def render_wording() -> str:
    """The Markdown wording table SPEC.md embeds (generated, never edited by hand)."""
    lines = [
        "| situation | result content (one text block) | error `{name, code}` | rule |",
        "|---|---|---|---|",
    ]
    for row in WORDING:
        info = "none" if row.error_name is None else f"`{row.error_name}`, `{row.error_code}`"
        text = row.text.replace("|", "\\|")
        lines.append(f"| {row.situation} | `{text}` | {info} | {row.rule_id} |")
    return "\n".join(lines)
