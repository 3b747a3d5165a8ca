"""What the model's log says happened to one call before its result: its hooks' verdicts and
supplied inputs, its approval, a PostToolUse block (`call_situation`, `pre_answers`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from loopspec.properties.conformance.blame.history import calls_step
from loopspec.properties.conformance.event_fields import Event, data_of
from loopspec.properties.conformance.json_values import as_value


@attrs.frozen
class Situation:
    """What the model's log says happened to one call before its result."""

    hook_decisions: tuple[str, ...] = ()
    rewritten: bool = False
    supplied: tuple[Any, ...] = ()
    suppliers: tuple[str, ...] = ()  # the hooks that supplied `supplied`, in order
    approval: str | None = None  # the approval outcome, "asked" while unanswered
    post_blocked: bool = False
    original: object = None  # the model's raw arguments, parsed (None before the call exists)


# PreToolUse audit words that read as one decision only, and that decision (HOOK-1).
_PRE_READINGS = {"block": "deny", "defer": "ask", "approve": "allow"}


def call_situation(call_id: str | None, history: Sequence[Event]) -> Situation:
    """What happened to call `call_id` in its step of `history` before its result: its hooks'
    decisions, rewrites, approval asked and answered, its original arguments; an empty
    `Situation` for no call."""
    if call_id is None:
        return Situation()
    history = calls_step(call_id, history)
    decisions: list[str] = []
    supplied: list[Any] = []
    suppliers: list[str] = []
    rewritten = post_blocked = False
    approval_ids: dict[str, str] = {}
    approval: str | None = None
    original: object = None
    for event in history:
        data = data_of(event)
        kind = event.get("type")
        if kind == "hook/result" and data.get("callId") == call_id:
            if data.get("point") == "PreToolUse":
                # Read as the loop acted on it (HOOK-1, HOOK-2): an exit-2 deny is audited
                # `block`, a Claude Code `defer` asks.
                word = str(data.get("decision"))
                decisions.append(_PRE_READINGS.get(word, word))
                if "updatedInput" in data:
                    supplied.append(data["updatedInput"])
                    suppliers.append(str(data.get("handlerId")))
            elif data.get("decision") == "block":
                post_blocked = True
        elif kind == "tool/call" and data.get("callId") == call_id:
            sidecar = data.get("rewrite")
            rewritten = rewritten or bool(sidecar)
            raw = sidecar.get("originalArguments") if isinstance(sidecar, dict) else None
            original = as_value(raw if isinstance(raw, str) else data.get("arguments"))
        elif kind == "approval/asked" and data.get("callId") == call_id:
            approval_ids[str(data.get("id"))] = call_id
            approval = "asked"
        elif kind == "approval/decided" and str(data.get("id")) in approval_ids:
            approval = str(data.get("outcome"))
    return Situation(
        tuple(decisions),
        rewritten,
        tuple(supplied),
        tuple(suppliers),
        approval,
        post_blocked,
        original,
    )


def pre_answers(call_id: str | None, history: Sequence[Event]) -> list[tuple[str, str, bool]]:
    """Each PreToolUse answer the model audits for `call_id`, in order: the hook's handler id,
    the decision it reads as (HOOK-1, HOOK-2), and whether it supplied an input."""
    answers: list[tuple[str, str, bool]] = []
    for event in calls_step(call_id, history):
        data = data_of(event)
        if (
            event.get("type") == "hook/result"
            and data.get("callId") == call_id
            and data.get("point") == "PreToolUse"
        ):
            word = str(data.get("decision"))
            reading = _PRE_READINGS.get(word, word)
            answers.append((str(data.get("handlerId")), reading, "updatedInput" in data))
    return answers
