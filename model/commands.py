"""Commands: everything the environment can do to a loop.

The loop itself is deterministic; every nondeterministic input — what the user types, what the
model replies, what each hook says, what the user answers, how and in which order tools finish,
when an abort or a crash happens — arrives as one of these commands. Each is frozen and validated
on construction. `step(state, command)` in `model.step` is the only consumer.
"""

from __future__ import annotations

import math
from typing import ClassVar, Literal, assert_never, get_args

import attrs

from loopspec.model.errors import InvalidEventError
from loopspec.model.facts import (
    ASKING_DECISIONS,
    BLOCKING_EXIT_CODE,
    DENYING_DECISIONS,
    HOOK_DECISIONS,
    POST_PASSING_DECISIONS,
    SUPPLYING_DECISIONS,
    unknown_decision,
)
from loopspec.model.json_text import spelled
from loopspec.model.jsonvalue import JsonValue, NotJsonError, freeze
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock

FINISH_COMPLETED = "completed"
FINISH_MAX_TOKENS = "max-tokens"
FINISH_CANCELLED = "cancelled"
FINISH_REASONS = frozenset({FINISH_COMPLETED, FINISH_MAX_TOKENS, FINISH_CANCELLED})

# A Literal, so a consumer that ranks or words outcomes can switch over them exhaustively;
# commands keep `outcome: str` (validated below), as CrossHair cannot check Literal signatures.
ApprovalOutcome = Literal["allowed-once", "rejected", "cancelled", "unavailable"]
APPROVAL_OUTCOMES: frozenset[ApprovalOutcome] = frozenset(get_args(ApprovalOutcome))
ABORT_CAUSES = frozenset({"user", "parent", "hook", "disposed"})

ReplyBlock = TextBlock | ReasoningBlock | ToolCallBlock


def _json(value: object) -> JsonValue:
    """Commands carry deep-frozen JSON only, so nothing the caller keeps can change them."""
    try:
        return freeze(value)
    except NotJsonError as error:
        raise InvalidEventError(str(error), rule_id="LOG-3") from error


@attrs.frozen
class SubmitUser:
    """The user sends a message: it opens a turn, or waits for the next step boundary."""

    NAME: ClassVar[str] = "SubmitUser"
    text: str


@attrs.frozen
class ModelReplies:
    """The model's reply to the open step ends (`finish`: completed, max-tokens, cancelled).

    For `cancelled`, `blocks` are what was delivered before the cancellation.
    """

    NAME: ClassVar[str] = "ModelReplies"
    blocks: tuple[ReplyBlock, ...]
    finish: str = FINISH_COMPLETED

    def __attrs_post_init__(self) -> None:
        if self.finish not in FINISH_REASONS:
            raise InvalidEventError(
                f"unknown finish reason {spelled(self.finish)}", rule_id="STEP-4"
            )

    @property
    def tool_calls(self) -> tuple[ToolCallBlock, ...]:
        """The reply's tool calls in model order."""
        return tuple(block for block in self.blocks if isinstance(block, ToolCallBlock))


@attrs.frozen
class ModelFails:
    """The model request failed (not a tool failure): the turn ends with `error`."""

    NAME: ClassVar[str] = "ModelFails"
    message: str
    code: str = "UNKNOWN"


@attrs.frozen
class Pass:
    """A hook that has no opinion (Claude Code `{}` / exit 0 without JSON)."""

    TAG: ClassVar[str] = "pass"


@attrs.frozen
class Allow:
    """A hook allows the call, optionally replacing the whole input."""

    TAG: ClassVar[str] = "allow"
    updated_input: JsonValue = attrs.field(default=None, converter=_json)
    reason: str | None = None


@attrs.frozen
class Ask:
    """A hook wants the user to approve the call, optionally replacing the whole input."""

    TAG: ClassVar[str] = "ask"
    reason: str | None = None
    updated_input: JsonValue = attrs.field(default=None, converter=_json)


@attrs.frozen
class Deny:
    """A hook refuses the call; any rewrite is discarded."""

    TAG: ClassVar[str] = "deny"
    reason: str = "blocked by PreToolUse hook"


PreVerdict = Pass | Allow | Ask | Deny


@attrs.frozen
class HookAudit:
    """What the audit records about how a hook ran (a real hook's exit code, stderr, time).

    `decision` overrides the recorded decision word (e.g. "block" for an exit-2 deny), one of
    `HOOK_DECISIONS`; without it the verdict's own tag is recorded.
    """

    decision: str | None = None
    exit_code: int | None = None
    stderr_summary: str | None = None
    duration_ms: float = 0.0

    def __attrs_post_init__(self) -> None:
        if self.decision is not None and self.decision not in HOOK_DECISIONS:
            raise InvalidEventError(unknown_decision(self.decision), rule_id="HOOK-1")
        # `< inf`, not `math.isfinite`, which raises OverflowError on an integer too large for
        # a float (a finite number).
        if not 0 <= self.duration_ms < math.inf:
            msg = "a hook's duration must be a finite number >= 0"
            raise InvalidEventError(msg, rule_id="HOOK-1")


@attrs.frozen
class HookAnswers:
    """The next pending PreToolUse hook (in model order, then configured order) answers."""

    NAME: ClassVar[str] = "HookAnswers"
    verdict: PreVerdict
    audit: HookAudit | None = None

    def __attrs_post_init__(self) -> None:
        if self.audit is None:
            return
        refuse_impossible_exit(self.verdict, self.audit)
        # The audit's word is what the log shows the hook said: one that contradicts the
        # verdict the loop acted on (a "block" on a pass, a "defer" on an allow) would make the
        # model write a log its own invariants reject.
        refuse_contradicting_word(self.verdict, self.audit.decision, audit_words(self.verdict))


def refuse_contradicting_word(verdict: object, decision: str | None, words: frozenset[str]) -> None:
    """Refuse an audit whose decision word is not one of `words`, those that agree with
    `verdict` (HOOK-1); None records the verdict's own tag."""
    if decision is not None and decision not in words:
        msg = (
            f"an audit recording {spelled(decision)} contradicts the hook's "
            f"{type(verdict).__name__} verdict; it may record {', '.join(sorted(words))}"
        )
        raise InvalidEventError(msg, rule_id="HOOK-1")


def audit_words(verdict: PreVerdict) -> frozenset[str]:
    """The decision words an audit may record for `verdict`: its own, its dialects' aliases
    (approve, block, defer), and error or stop where the hook failed or stopped without one."""
    match verdict:
        case Pass():
            return frozenset({"pass", "stop", "error"})
        case Allow(updated_input=updated):
            allowing = frozenset({"allow", "approve"})
            return allowing & SUPPLYING_DECISIONS if updated is not None else allowing
        case Ask(updated_input=updated):
            asking = ASKING_DECISIONS
            return asking & SUPPLYING_DECISIONS if updated is not None else asking
        case Deny():
            return DENYING_DECISIONS | {"error", "stop"}
        case _:
            assert_never(verdict)


@attrs.frozen
class ApprovalAnswers:
    """The user (or the approval channel) answers the pending approval request."""

    NAME: ClassVar[str] = "ApprovalAnswers"
    outcome: str

    def __attrs_post_init__(self) -> None:
        if self.outcome not in APPROVAL_OUTCOMES:
            msg = f"unknown approval outcome {spelled(self.outcome)}"
            raise InvalidEventError(msg, rule_id="DEC-2")


@attrs.frozen
class ToolSucceeded:
    """A tool body returned: its text, contexts it deferred, and presentation meta."""

    text: str
    contexts: tuple[str, ...] = ()
    meta: JsonValue = attrs.field(default=None, converter=_json)


@attrs.frozen
class ToolFailed:
    """A tool body failed; `code` becomes the result's error info when given."""

    message: str
    code: str | None = None
    error_name: str = "ToolError"


ToolOutcome = ToolSucceeded | ToolFailed


@attrs.frozen
class PostPass:
    """A PostToolUse hook with no opinion."""

    TAG: ClassVar[str] = "pass"
    audit: HookAudit | None = None


@attrs.frozen
class PostContext:
    """A PostToolUse hook adds context for the model (delivered after the batch)."""

    TAG: ClassVar[str] = "allow"
    text: str
    audit: HookAudit | None = None


@attrs.frozen
class PostBlock:
    """A PostToolUse hook blocks the result: the model sees `reason` as an error instead."""

    TAG: ClassVar[str] = "block"
    reason: str
    audit: HookAudit | None = None


PostVerdict = PostPass | PostContext | PostBlock


@attrs.frozen
class ToolFinishes:
    """A running call's body settles; `post` holds one verdict per matching PostToolUse hook."""

    NAME: ClassVar[str] = "ToolFinishes"
    call_id: str
    outcome: ToolOutcome
    post: tuple[PostVerdict, ...] = ()

    def __attrs_post_init__(self) -> None:
        for verdict in self.post:
            if verdict.audit is not None:
                refuse_impossible_exit(verdict, verdict.audit)
                words = post_audit_words(verdict)
                refuse_contradicting_word(verdict, verdict.audit.decision, words)


def post_audit_words(verdict: PostVerdict) -> frozenset[str]:
    """The decision words a PostToolUse audit may record for `verdict`: `block` or `deny` for a
    block and only for one (the log reads them as one, DEC-3); `pass`, `allow`, `approve` for a
    pass or a context (dsh's bridge records the word a hook printed and reads only deny and
    block); `stop` for any (`continue: false`), `error` for a failed hook's pass or, failing
    closed, its block (HOOK-7); never `ask` or `defer`: the body already ran."""
    match verdict:
        case PostPass():
            return POST_PASSING_DECISIONS | {"error"}
        case PostContext():
            return POST_PASSING_DECISIONS
        case PostBlock():
            return DENYING_DECISIONS | {"error", "stop"}
        case _:
            assert_never(verdict)


def exits_2(verdict: PreVerdict | PostVerdict, audit: HookAudit) -> bool:
    """Whether a hook could give `verdict` by exiting 2: a deny or a block, or a pass audited
    `error` (Codex reads exit 2 without a reason on stderr as a failed hook, HOOK-7)."""
    match verdict:
        case Deny() | PostBlock():
            return True
        case Pass() | PostPass():
            return audit.decision == "error"
        case Allow() | Ask() | PostContext():
            return False
        case _:
            assert_never(verdict)


def exits_as(verdict: PreVerdict | PostVerdict, audit: HookAudit) -> bool:
    """Whether the exit code `audit` records is one a hook giving `verdict` can exit with."""
    return audit.exit_code != BLOCKING_EXIT_CODE or exits_2(verdict, audit)


def refuse_impossible_exit(verdict: PreVerdict | PostVerdict, audit: HookAudit) -> None:
    """Refuse an answer whose audit says the hook exited 2 while the verdict does not block: no
    hook can say that, and the log would record one (HOOK-1)."""
    if exits_as(verdict, audit):
        return
    msg = (
        f"an audit with exit code 2 contradicts the hook's {type(verdict).__name__} verdict: "
        "exit code 2 blocks (Deny, PostBlock), or is a failed hook's (a pass audited 'error')"
    )
    raise InvalidEventError(msg, rule_id="HOOK-1")


@attrs.frozen
class Abort:
    """The user (or a parent) cancels the open turn."""

    NAME: ClassVar[str] = "Abort"
    cause: str = "user"

    def __attrs_post_init__(self) -> None:
        if self.cause not in ABORT_CAUSES:
            raise InvalidEventError(f"unknown abort cause {spelled(self.cause)}", rule_id="ABORT-1")


@attrs.frozen
class Crash:
    """The process dies: everything not committed to the log is gone."""

    NAME: ClassVar[str] = "Crash"


@attrs.frozen
class Recover:
    """The session is reopened after a crash; repair closes the open tail turn."""

    NAME: ClassVar[str] = "Recover"


Command = (
    SubmitUser
    | ModelReplies
    | ModelFails
    | HookAnswers
    | ApprovalAnswers
    | ToolFinishes
    | Abort
    | Crash
    | Recover
)

COMMAND_NAMES: tuple[str, ...] = (
    SubmitUser.NAME,
    ModelReplies.NAME,
    ModelFails.NAME,
    HookAnswers.NAME,
    ApprovalAnswers.NAME,
    ToolFinishes.NAME,
    Abort.NAME,
    Crash.NAME,
    Recover.NAME,
)
