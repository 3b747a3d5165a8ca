"""The model's state: the committed log plus the loop's volatile phase.

`LoopState.log` is the durable session log; `commit_ends` marks where each atomic commit ended,
so a crash can only ever cut the log at one of those points (rule LOG-8). Everything else — the
phase, the inbox, the per-call slots — is volatile: a `Crash` drops it.

Phases form a closed union; `loopspec.model.transitions` says which command each phase accepts.
"""

from __future__ import annotations

from typing import ClassVar, assert_never

import attrs

from loopspec.model.commands import ModelReplies, PostVerdict, PreVerdict
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.events import Event
from loopspec.model.jsonvalue import FrozenMap, JsonValue
from loopspec.model.messages import ResultContentBlock


@attrs.frozen
class Idle:
    """No turn is open; the loop waits for the user."""

    NAME: ClassVar[str] = "Idle"


@attrs.frozen
class AwaitingModel:
    """A step is open and its model request is in flight."""

    NAME: ClassVar[str] = "AwaitingModel"
    turn: int
    step: int


@attrs.frozen
class PendingHook:
    """A PreToolUse hook still to answer for the call at `call_index` (model order)."""

    call_index: int
    hook: HookSpec


@attrs.frozen
class HookVote:
    """What one PreToolUse hook answered for one call."""

    call_index: int
    handler_id: str
    verdict: PreVerdict


@attrs.frozen
class Rewriting:
    """The reply arrived; PreToolUse hooks decide (and may rewrite) before any identity exists.

    Nothing of the reply is in the log yet: it is committed, with the effective arguments, only
    when the last hook has answered (rule RW-3).
    """

    NAME: ClassVar[str] = "Rewriting"
    turn: int
    step: int
    reply: ModelReplies
    queue: tuple[PendingHook, ...]
    votes: tuple[HookVote, ...] = ()


# Slot lifecycle, in order; a slot only moves forward.
WAITING = "waiting"  # sealed, pre-execute gate not reached yet
ASKING = "asking"  # approval requested, answer pending
RUNNING = "running"  # body dispatched, outcome pending
READY = "ready"  # result prepared, waiting for the commit cursor
COMMITTED = "committed"  # tool/result appended

ALLOW = "allow"
DENY = "deny"
ASK = "ask"


@attrs.frozen
class PreparedResult:
    """A result ready to commit; `post` pairs each PostToolUse hook with its verdict."""

    content: tuple[ResultContentBlock, ...]
    is_error: bool
    error_info: FrozenMap | None = None
    meta: JsonValue = None
    contexts: tuple[str, ...] = ()
    post: tuple[tuple[HookSpec, PostVerdict], ...] = ()


@attrs.frozen
class CallSlot:
    """One sealed tool execution of the open step's batch, in model order."""

    call_id: str
    name: str
    arguments: str
    call_seq: int
    decision: str
    reason: str | None
    concurrency_safe: bool
    status: str = WAITING
    approval_id: str | None = None
    result: PreparedResult | None = None


@attrs.frozen
class Dispatching:
    """The batch runs: `gate` is the next call to pass pre-execute, `cursor` the next to commit.

    `aborting` holds the abort cause once an abort arrived: no new starts, running calls drain.
    """

    NAME: ClassVar[str] = "Dispatching"
    turn: int
    step: int
    slots: tuple[CallSlot, ...]
    gate: int = 0
    cursor: int = 0
    aborting: str | None = None


@attrs.frozen
class Crashed:
    """The process died; only `Recover` is accepted."""

    NAME: ClassVar[str] = "Crashed"


Phase = Idle | AwaitingModel | Rewriting | Dispatching | Crashed

PHASE_NAMES: tuple[str, ...] = (
    Idle.NAME,
    AwaitingModel.NAME,
    Rewriting.NAME,
    Dispatching.NAME,
    Crashed.NAME,
)


@attrs.frozen
class QueuedMessage:
    """A model-visible message waiting for the next step boundary (rule ADJ-4)."""

    text: str
    plugin: str | None = None


@attrs.frozen
class Execution:
    """A body that ran: the call and the exact arguments it ran with (rule RW-1)."""

    turn: int
    step: int
    call_id: str
    arguments: str


@attrs.frozen
class LoopState:
    """The whole model state. Immutable: every step returns a new one."""

    config: LoopConfig
    log: tuple[Event, ...] = ()
    commit_ends: tuple[int, ...] = ()
    phase: Phase = Idle()
    next_turn: int = 1
    inbox: tuple[QueuedMessage, ...] = ()
    executions: tuple[Execution, ...] = ()


SLOT_STATUSES = (WAITING, ASKING, RUNNING, READY, COMMITTED)
SLOT_DECISIONS = (ALLOW, DENY, ASK, "invalid")


def _slots_problem(phase: Dispatching) -> str | None:
    """What in a batch would make a handler fail; nothing stricter.

    A batch a buggy loop produced (a result committed out of order, a call started twice)
    is still stepped: the refusal is for states no handler can work on, not for wrong ones.
    """
    count = len(phase.slots)
    if not (0 <= phase.cursor <= count and 0 <= phase.gate <= count):
        return f"cursor {phase.cursor} or gate {phase.gate} is outside 0..{count}"
    for index, slot in enumerate(phase.slots):
        if not slot.call_id or not slot.name:
            return f"slot {index} has an empty call id or tool name"
        if slot.call_seq < 0:
            return f"slot {index} cites seq {slot.call_seq}"
        if slot.status == ASKING and index >= phase.gate and not slot.approval_id:
            return f"slot {index} asks without an approval id"
        if slot.status == READY and slot.result is None:
            return f"slot {index} is ready without a result"
    return None


def state_problem(state: LoopState) -> str | None:
    """Why no handler could step a well-typed state, or None when every handler can.

    Reachable states never have a problem. A constructed state might (a rewrite phase with
    nothing left to ask, an approval request without an id); `step` refuses every command on
    such a state with MODEL-1 instead of failing inside a handler. Only what would make a
    handler fail is refused: a state a buggy loop reached is still stepped (rule MODEL-1).
    """
    if state.next_turn < 1:
        return f"next turn {state.next_turn} is below 1"
    phase = state.phase
    match phase:
        case Idle() | Crashed():
            return None
        case AwaitingModel():
            if phase.turn < 1 or phase.step < 1:
                return f"turn {phase.turn}, step {phase.step} are not both >= 1"
            return None
        case Rewriting():
            if phase.turn < 1 or phase.step < 1:
                return f"turn {phase.turn}, step {phase.step} are not both >= 1"
            calls = phase.reply.tool_calls
            if not phase.queue:
                return "the rewrite phase has no hook left to answer"
            if any(not 0 <= hook.call_index < len(calls) for hook in phase.queue):
                return "a pending hook names a call the reply does not have"
            return None
        case Dispatching():
            if phase.turn < 1 or phase.step < 1:
                return f"turn {phase.turn}, step {phase.step} are not both >= 1"
            return _slots_problem(phase)
        case _:
            assert_never(phase)
