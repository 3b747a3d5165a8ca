"""The loop's seams to the outside world: the model provider, hook runner and approval channel.

Each seam method returns an awaitable (a coroutine, or a future the seam resolves later). The
loop never assumes how long an answer takes, and it can always cancel one (an abort does). What
travels through the seams is the shared command vocabulary (`ModelReplies`, hook verdicts,
approval outcomes), so a scripted world and a real one are interchangeable.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Protocol

import attrs

from loopspec.impl.tools import ToolExecution
from loopspec.model.commands import HookAnswers, ModelReplies, PostVerdict, ToolOutcome
from loopspec.model.config import HookSpec
from loopspec.model.messages import Message, ToolCallBlock


@attrs.frozen
class ModelRequest:
    """One model call: the derived history and the tools the model may call."""

    turn: int
    step: int
    messages: tuple[Message, ...]
    tool_names: tuple[str, ...]


class ProviderFailed(Exception):
    """The model request failed (not a tool failure); the turn ends with `error`."""

    def __init__(self, message: str, code: str = "UNKNOWN") -> None:
        self.message = message
        self.code = code
        super().__init__(f"{code}: {message}")


class Provider(Protocol):
    """The model: answers a request with a whole reply, or raises `ProviderFailed`."""

    def complete(self, request: ModelRequest) -> Awaitable[ModelReplies]:
        """The reply to `request`; its `finish` says how the model stopped."""


@attrs.frozen
class PreToolUseRequest:
    """A PreToolUse hook asked about a call before its identity is sealed."""

    turn: int
    hook: HookSpec
    call: ToolCallBlock


@attrs.frozen
class PostToolUseRequest:
    """A PostToolUse hook asked about a finished body's outcome."""

    turn: int
    hook: HookSpec
    execution: ToolExecution
    outcome: ToolOutcome


class HookRunner(Protocol):
    """Runs configured hooks and returns their verdicts, each with how the hook ran (its audit).

    A PreToolUse answer is a `HookAnswers`: the verdict and, for a real hook, a `HookAudit`
    (decision word, exit code, stderr summary, duration). A PostToolUse verdict carries its
    audit itself. Without an audit the loop records the verdict's own words and times the hook.
    """

    def pre_tool_use(self, request: PreToolUseRequest) -> Awaitable[HookAnswers]:
        """Allow, ask, deny or pass, optionally with a replacement input."""

    def post_tool_use(self, request: PostToolUseRequest) -> Awaitable[PostVerdict]:
        """Accept (pass or add context) or block the result."""


@attrs.frozen
class ApprovalRequest:
    """The user is asked whether this exact execution may run."""

    approval_id: str
    execution: ToolExecution
    reason: str | None


class Approver(Protocol):
    """The approval channel: answers with an outcome from `APPROVAL_OUTCOMES`."""

    def request_approval(self, request: ApprovalRequest) -> Awaitable[str]:
        """`allowed-once`, `rejected`, `cancelled` or `unavailable`."""
