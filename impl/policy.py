"""The pre-identity rewrite phase: one ruling per call from its PreToolUse votes (RW-1 .. RW-4).

Before any identity is sealed, every PreToolUse hook that matches a call answers once (rule
HOOK-4). `rule_on` then merges those answers into the call's ruling:

- arguments that fail the tool's input contract (not a JSON object, a required key missing)
  make the call INVALID: it fails without any policy (rule EXE-2);
- the strictest answer wins: deny, then ask, then allow, then pass (rule HOOK-2); a deny
  discards every proposed input;
- otherwise the input in effect is the one proposed by the *last* hook in configured order that
  proposed one (rule HOOK-3). If it breaks the input contract, the call is denied and says why;
  if it holds, it becomes the effective arguments (compact JSON) and the sidecar records the
  original arguments and every proposer, the one in effect last (rule RW-2).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import assert_never

import attrs

from loopspec.impl.event_lines import plain_json_text
from loopspec.impl.framing import compact_json
from loopspec.impl.snapshot import Snapshot, plain, snapshot
from loopspec.impl.tools import RegisteredTool, read_arguments
from loopspec.model.commands import Allow, Ask, Deny, Pass, PreVerdict
from loopspec.model.events import RewriteSidecar
from loopspec.model.jsonvalue import JsonValue
from loopspec.model.messages import ToolCallBlock


class Decision(enum.Enum):
    """What the pre-execute gate will do with a sealed call."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"
    INVALID = "invalid"


@attrs.frozen
class Vote:
    """One PreToolUse hook's answer about the call at `call_index` (model order)."""

    call_index: int
    handler_id: str
    verdict: PreVerdict


@attrs.frozen
class Ruling:
    """The rewrite phase's outcome for one call."""

    arguments: str
    rewrite: RewriteSidecar | None
    decision: Decision
    reason: str | None
    parsed: Snapshot | None = attrs.field(default=None, eq=False)
    """A rewrite's input in effect, already snapshot: `arguments` parsed, so sealing the call
    does not parse the text just written from it (None: the model's own text, parsed then)."""


def proposed_input(verdict: PreVerdict) -> JsonValue:
    """The replacement input a verdict carries (None when it proposes nothing)."""
    match verdict:
        case Allow() | Ask():
            return verdict.updated_input
        case Pass() | Deny():
            return None
        case _:
            assert_never(verdict)


def stated_reason(verdict: PreVerdict) -> str | None:
    """The reason a verdict gives, if any."""
    match verdict:
        case Pass():
            return None
        case Allow() | Ask() | Deny():
            return verdict.reason
        case _:
            assert_never(verdict)


def argument_problem(call: ToolCallBlock, tool: RegisteredTool | None) -> str | None:
    """Why the model's own arguments cannot be sealed, or None (rule EXE-2)."""
    problem = _contract_problem(read_arguments(call.arguments), tool)
    return None if problem is None else f"invalid input for tool {call.name}: {problem}"


def rule_on(call: ToolCallBlock, votes: Sequence[Vote], tool: RegisteredTool | None) -> Ruling:
    """Merge one call's votes (configured order) into its effective arguments and decision."""
    problem = argument_problem(call, tool)
    if problem is not None:
        return Ruling(call.arguments, None, Decision.INVALID, problem)
    verdicts = [vote.verdict for vote in votes]
    if any(isinstance(verdict, Deny) for verdict in verdicts):
        return Ruling(call.arguments, None, Decision.DENY, _joined(verdicts, Deny) or "denied")
    asked = any(isinstance(verdict, Ask) for verdict in verdicts)
    decision = Decision.ASK if asked else Decision.ALLOW
    why = _joined(verdicts, Ask) if asked else None
    proposers = [vote for vote in votes if proposed_input(vote.verdict) is not None]
    if not proposers:
        return Ruling(call.arguments, None, decision, why)
    in_effect = proposers[-1]
    proposal = proposed_input(in_effect.verdict)
    problem = _contract_problem(proposal, tool)
    if problem is not None:
        refused = f"hook {in_effect.handler_id} rewrote the input of {call.name}: {problem}"
        return Ruling(call.arguments, None, Decision.DENY, refused)
    sidecar = RewriteSidecar(call.arguments, tuple(vote.handler_id for vote in proposers))
    # The snapshot refuses whatever JSON cannot carry, so the strict encoder cannot fail.
    parsed = snapshot(proposal)
    return Ruling(_compact(proposal, parsed), sidecar, decision, why, parsed)


def _contract_problem(value: object, tool: RegisteredTool | None) -> str | None:
    # An unknown tool has no contract beyond "an object"; it fails later, at start.
    if tool is not None:
        return tool.input_problem(value)
    return None if isinstance(value, Mapping) else "the input must be a JSON object"


def _joined(verdicts: Sequence[PreVerdict], kind: type[Ask] | type[Deny]) -> str | None:
    reasons = [stated_reason(v) for v in verdicts if isinstance(v, kind)]
    text = "; ".join(reason for reason in reasons if reason)
    return text or None


def _compact(value: JsonValue, parsed: Snapshot) -> str:
    # A hook's input is usually frozen already, of exact JSON types: written as it is. Anything
    # else is written from its snapshot `parsed`.
    text = plain_json_text(value)
    return text if text is not None else compact_json(plain(parsed))
