"""A command of a program in plain words, for the reports a person reads without the source.

Conform's and replay's reports list a program; its driver protocol JSON (the case file holds it,
and the JSON reports) says `{"kind": "HookAnswers", "verdict": {"decision": "allow", ...}}`
where a reader wants "the next PreToolUse hook answers: allow, input becomes {...}". Texts a
user or a target supplied are shortened and their control characters escaped (SAFE-1).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import assert_never

import attrs

from loopspec.impl.user_files import shown
from loopspec.model.commands import (
    FINISH_CANCELLED,
    FINISH_COMPLETED,
    FINISH_MAX_TOKENS,
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    HookAudit,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    Recover,
    ReplyBlock,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig
from loopspec.model.errors import TransitionRefused
from loopspec.model.jsonvalue import JsonValue, thaw
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.model.state import ASKING, Dispatching, LoopState, Rewriting
from loopspec.model.transitions import step

# Characters of a text or a JSON value kept in a listing line: enough to recognise it; the
# case file and the JSON report hold it whole.
TEXT_KEPT = 60
JSON_KEPT = 80


def _text(text: str) -> str:
    return f'"{shown(text, TEXT_KEPT)}"'


def _json(value: JsonValue) -> str:
    return shown(json.dumps(thaw(value), ensure_ascii=False), JSON_KEPT)


def _block(block: ReplyBlock) -> str:
    match block:
        case TextBlock():
            return f"text {_text(block.text)}"
        case ReasoningBlock():
            return f"reasoning {_text(block.text)}"
        case ToolCallBlock():
            return f"calls {shown(block.id, 40)} {shown(block.name, 40)} {_arguments(block)}"
        case _:
            assert_never(block)


def _arguments(call: ToolCallBlock) -> str:
    # The arguments are JSON text as the model wrote it, malformed ones too (HOOK-6).
    return shown(call.arguments, JSON_KEPT) if call.arguments else "(no arguments)"


# A reply's finish reason, as a listing line ends (ModelReplies validates it is one of these).
_ENDINGS = {
    FINISH_COMPLETED: "",
    FINISH_MAX_TOKENS: " (cut off: max tokens)",
    FINISH_CANCELLED: " (cancelled part-way)",
}


def _reply(command: ModelReplies) -> str:
    said = "; ".join(_block(block) for block in command.blocks) or "nothing"
    return f"the model replies: {said}{_ENDINGS[command.finish]}"


def _audit(audit: HookAudit | None) -> str:
    if audit is None:
        return ""
    parts = []
    if audit.decision is not None:
        parts.append(f"decision {_text(audit.decision)}")
    if audit.exit_code is not None:
        parts.append(f"exit code {audit.exit_code}")
    if audit.stderr_summary is not None:
        parts.append(f"stderr {_text(audit.stderr_summary)}")
    return f" (audited: {', '.join(parts) or 'as answered'})"


def _reason(reason: str | None) -> str:
    return f", reason {_text(reason)}" if reason is not None else ""


def _new_input(updated_input: JsonValue) -> str:
    return f", input becomes {_json(updated_input)}" if updated_input is not None else ""


def _pre_verdict(verdict: PreVerdict) -> str:
    match verdict:
        case Pass():
            return "pass (no opinion)"
        case Allow():
            return f"allow{_new_input(verdict.updated_input)}{_reason(verdict.reason)}"
        case Ask():
            return f"ask the user{_new_input(verdict.updated_input)}{_reason(verdict.reason)}"
        case Deny():
            return f"deny, reason {_text(verdict.reason)}"
        case _:
            assert_never(verdict)


def _outcome(outcome: ToolOutcome) -> str:
    match outcome:
        case ToolSucceeded():
            said = f"succeeds: {_text(outcome.text)}"
            if outcome.contexts:
                # The word SPEC (ADJ-4) and the driver protocol use: "deferring" read as jargon.
                word = "context" if len(outcome.contexts) == 1 else "contexts"
                said += f", {word} {', '.join(_text(c) for c in outcome.contexts)}"
            if outcome.meta is not None:
                said += f", meta {_json(outcome.meta)}"
            return said
        case ToolFailed():
            code = f", code {_text(outcome.code)}" if outcome.code is not None else ""
            return f"fails: {shown(outcome.error_name, 40)} {_text(outcome.message)}{code}"
        case _:
            assert_never(outcome)


def _post_verdict(verdict: PostVerdict) -> str:
    match verdict:
        case PostPass():
            said = "pass"
        case PostContext():
            said = f"context {_text(verdict.text)}"
        case PostBlock():
            said = f"block, reason {_text(verdict.reason)}"
        case _:
            assert_never(verdict)
    return said + _audit(verdict.audit)


@attrs.frozen
class HookTurn:
    """Which PreToolUse hook a HookAnswers command answers for, and for which call."""

    handler_id: str
    call_id: str


@attrs.frozen
class ApprovalTurn:
    """Which call's approval request an ApprovalAnswers command answers."""

    call_id: str
    tool_name: str


Answered = HookTurn | ApprovalTurn
"""What an answering command answers: the command itself says only "the next one pending"."""


def answers_for(config: LoopConfig, commands: Sequence[Command]) -> dict[int, Answered]:
    """For each HookAnswers and ApprovalAnswers of a program (by 0-based index), the hook and
    call, or the call, it answers for, as the model runs the program. A command the model
    refuses changes nothing, as in a replay, and answers nothing."""
    state = LoopState(config)
    answering: dict[int, Answered] = {}
    for index, command in enumerate(commands):
        phase = state.phase
        if isinstance(command, HookAnswers) and isinstance(phase, Rewriting) and phase.queue:
            pending = phase.queue[0]
            call = phase.reply.tool_calls[pending.call_index]
            answering[index] = HookTurn(pending.hook.handler_id, call.id)
        if (
            isinstance(command, ApprovalAnswers)
            and isinstance(phase, Dispatching)
            and phase.gate < len(phase.slots)
            and phase.slots[phase.gate].status == ASKING
        ):
            asking = phase.slots[phase.gate]
            answering[index] = ApprovalTurn(asking.call_id, asking.name)
        with contextlib.suppress(TransitionRefused):
            state = step(state, command)
    return answering


def command_words(command: Command, answered: Answered | None = None) -> str:
    """What `command` does, in one line of plain words; `answered` names the hook and call a
    HookAnswers, or the call an ApprovalAnswers, answers for (`answers_for`), where known."""
    match command:
        case SubmitUser():
            return f"the user sends {_text(command.text)}"
        case ModelReplies():
            return _reply(command)
        case ModelFails():
            return f"the model request fails: {shown(command.code, 40)} {_text(command.message)}"
        case HookAnswers():
            verdict = _pre_verdict(command.verdict)
            who = (
                f"PreToolUse hook {shown(answered.handler_id, 40)} on call "
                f"{shown(answered.call_id, 40)}"
                if isinstance(answered, HookTurn)
                else "the next PreToolUse hook"
            )
            return f"{who} answers: {verdict}{_audit(command.audit)}"
        case ApprovalAnswers():
            which = (
                f" for call {shown(answered.call_id, 40)} ({shown(answered.tool_name, 40)})"
                if isinstance(answered, ApprovalTurn)
                else ""
            )
            return f"the user answers the approval{which}: {shown(command.outcome, 40)}"
        case ToolFinishes():
            said = f"call {shown(command.call_id, 40)}'s tool {_outcome(command.outcome)}"
            if command.post:
                hooks = "; ".join(_post_verdict(verdict) for verdict in command.post)
                said += f"; its PostToolUse hooks answer: {hooks}"
            return said
        case Abort():
            return f"the turn is aborted (cause: {shown(command.cause, 40)})"
        case Crash():
            return "the loop's process crashes"
        case Recover():
            return "the session is reopened after the crash"
        case _:
            assert_never(command)
