"""Turning a finished PreToolUse hook into the model's `PreVerdict`, per dialect.

This is the dialect's documented behaviour only; the fail-closed policy is applied afterwards
by the bridge. `defer` (Claude Code) becomes `Ask`: in headless Claude Code it hands the call
back to the caller, which in an interactive loop is the user, and it outranks `allow` there
(deny > defer > ask > allow), which `Ask` keeps and `Pass` would not.
"""

from __future__ import annotations

import attrs

from loopspec.impl.hookbridge.faults import HookFault
from loopspec.impl.hookbridge.output import (
    OutputProblem,
    choice_field,
    claude_code_json_after_exit_2,
    flag_field,
    for_point,
    non_object_fault,
    nonblank,
    process_fault,
    reject_unknown,
    specific_output,
    stderr_text,
    stdout_document,
    text_field,
    unsupported,
)
from loopspec.impl.hookbridge.process import ProcessOutcome
from loopspec.impl.hookbridge.settings import CLAUDE_CODE, CODEX
from loopspec.model.commands import Allow, Ask, Deny, Pass, PreVerdict
from loopspec.model.config import PRE_TOOL_USE
from loopspec.model.jsonvalue import FrozenMap, JsonValue

CONTINUE_FALSE = "the hook stopped the agent (continue: false)"
DEFERRED = "deferred to the permission flow"
CLAUDE_CODE_DECISIONS = ("allow", "deny", "ask", "defer")
CODEX_TOP_KEYS = (
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "decision",
    "reason",
    "hookSpecificOutput",
)
CODEX_SPECIFIC_KEYS = (
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "additionalContext",
)


@attrs.frozen
class PreReading:
    """One hook's answer as its dialect reads it, before the fail-closed policy."""

    verdict: PreVerdict
    decision: str
    """The word for `hook/result.decision` (allow, deny, ask, defer, approve, block, pass...)."""
    fault: HookFault | None = None
    updated_input: JsonValue = None
    """What the hook supplied as `updatedInput`, honoured or not."""


def _no_decision(fault: HookFault) -> PreReading:
    # Both peers fail open: a broken hook's answer is as if it had none.
    return PreReading(Pass(), "error", fault)


def read_pre_tool_use(
    dialect: str, outcome: ProcessOutcome, timeout_s: float, cap: int
) -> PreReading:
    """The verdict a finished PreToolUse hook gives under `dialect`."""
    fault = process_fault(outcome, timeout_s, cap)
    if fault is not None:
        return _no_decision(fault)
    if outcome.exit_code == 2:
        denied = json_deny_after_exit_2(outcome) if dialect == CLAUDE_CODE else None
        if denied is not None:
            return denied
        reason = stderr_text(outcome)
        if not reason and dialect == CODEX:
            return _no_decision(unsupported("exit code 2 without a reason on stderr").fault)
        return PreReading(Deny(reason) if reason else Deny(), "block")
    found = stdout_document(dialect, outcome.stdout)
    if found is None:
        return PreReading(Pass(), "pass")
    if isinstance(found, HookFault):
        return _no_decision(found)
    try:
        return _codex(found) if dialect == CODEX else _claude_code(found)
    except OutputProblem as problem:
        return _no_decision(problem.fault)


def json_deny_after_exit_2(outcome: ProcessOutcome) -> PreReading | None:
    """The deny a Claude Code hook printed before exiting 2, or None: Claude Code 2.1.332 reads
    a JSON deny (`permissionDecision: "deny"`, or the legacy `decision: "block"`) after exit 2
    too, and tells the model its reason, not stderr (observed; its documentation says stdout
    goes unread then). Any other answer, or `continue: false`, leaves stderr the reason."""
    reading = claude_code_json_after_exit_2(outcome, _claude_code)
    if reading is None or not isinstance(reading.verdict, Deny):
        return None
    # The word of an exit-2 deny; a rewrite beside a deny is discarded (HOOK-3).
    return attrs.evolve(reading, decision="block", updated_input=None)


def _claude_code(document: FrozenMap) -> PreReading:
    specific, wrong_event = for_point(specific_output(document), PRE_TOOL_USE)
    keep_going = flag_field(document, "continue", "$", default=True)
    stop_reason = nonblank(text_field(document, "stopReason", "$"))
    legacy = choice_field(document, "decision", ("approve", "block"), "$")
    reason = nonblank(text_field(document, "reason", "$"))
    permission, why, supplied = None, None, None
    if specific is not None:
        where = "$.hookSpecificOutput"
        permission = choice_field(specific, "permissionDecision", CLAUDE_CODE_DECISIONS, where)
        why = nonblank(text_field(specific, "permissionDecisionReason", where))
        supplied = specific.get("updatedInput")
    fault = wrong_event or non_object_fault(supplied)

    def reading(verdict: PreVerdict, decision: str) -> PreReading:
        return PreReading(verdict, decision, fault, supplied)

    if not keep_going:
        # Claude Code stops before the tool runs; the closest the loop has is a deny.
        return reading(Deny(stop_reason or CONTINUE_FALSE), "deny")
    if permission == "deny":
        return reading(Deny(why) if why else Deny(), "deny")
    if permission == "ask":
        return reading(Ask(why, supplied), "ask")
    if permission == "allow":
        return reading(Allow(supplied, why), "allow")
    if permission == "defer":
        return reading(Ask(f"{DEFERRED}: {why}" if why else DEFERRED), "defer")
    if legacy == "block":
        return reading(Deny(reason) if reason else Deny(), "block")
    if legacy == "approve":
        return reading(Allow(reason=reason), "approve")
    if supplied is not None:
        # A rewrite with no opinion: the loop runs a call nobody objects to, so it is an allow.
        return reading(Allow(supplied), "allow")
    return reading(Pass(), "pass")


def _codex(document: FrozenMap) -> PreReading:
    reject_unknown(document, CODEX_TOP_KEYS, "$")
    raw_specific = specific_output(document)
    reject_unknown(raw_specific, CODEX_SPECIFIC_KEYS, "$.hookSpecificOutput")
    specific, wrong_event = for_point(raw_specific, PRE_TOOL_USE)
    text_field(document, "systemMessage", "$")
    if not flag_field(document, "continue", "$", default=True):
        raise unsupported("continue:false is not supported in PreToolUse")
    if text_field(document, "stopReason", "$") is not None:
        raise unsupported("stopReason is not supported in PreToolUse")
    if flag_field(document, "suppressOutput", "$", default=False):
        raise unsupported("suppressOutput is not supported in PreToolUse")
    legacy = choice_field(document, "decision", ("approve", "block"), "$")
    reason = text_field(document, "reason", "$")
    if specific is not None:
        where = "$.hookSpecificOutput"
        permission = choice_field(specific, "permissionDecision", ("allow", "deny", "ask"), where)
        why = text_field(specific, "permissionDecisionReason", where)
        supplied = specific.get("updatedInput")
        text_field(specific, "additionalContext", where)
        if permission is not None or why is not None or supplied is not None:
            return _codex_specific(permission, why, supplied)
    if legacy == "approve":
        raise unsupported("decision:approve is not supported")
    if legacy == "block":
        blocked = nonblank(reason)
        if blocked is None:
            raise unsupported("decision:block without a non-empty reason")
        return PreReading(Deny(blocked), "block", wrong_event)
    if reason is not None:
        raise unsupported("reason without decision")
    return PreReading(Pass(), "pass", wrong_event)


def _codex_specific(permission: str | None, why: str | None, supplied: JsonValue) -> PreReading:
    if permission == "deny":
        # An explicit deny is a deny, whatever came with it or was missing from it: reading it
        # as "no decision" would run the very call the hook refused. The flaw is recorded.
        reason = nonblank(why)
        flaw = None
        if supplied is not None:
            flaw = unsupported("updatedInput with permissionDecision:deny; the input is ignored")
        elif reason is None:
            flaw = unsupported("permissionDecision:deny without a non-empty reason")
        return PreReading(
            Deny(reason) if reason else Deny(), "deny", None if flaw is None else flaw.fault
        )
    if supplied is not None and permission != "allow":
        raise unsupported("updatedInput without permissionDecision:allow")
    if permission == "allow":
        if supplied is None:
            raise unsupported("permissionDecision:allow without updatedInput")
        return PreReading(Allow(supplied), "allow", non_object_fault(supplied), supplied)
    if permission == "ask":
        raise unsupported("permissionDecision:ask is not supported")
    # Only a reason is left: the caller comes here when at least one of the three is present.
    raise unsupported("permissionDecisionReason without permissionDecision")
