"""A zoo of deliberately wrong loop implementations, each breaking exactly one rule.

Each mutant is the reference model with one piece of its logic swapped for the bug real loops
have (execution-only rewrites, completion-order results, a context between call and result, ...).
The swap is applied only while the mutant itself steps, so the oracle it is compared with stays
correct. `tests/test_mutants.py` asserts that the conformance machine rejects every mutant with
the rule it breaks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from loopspec.model import dispatch, handlers, jsonvalue, messages, repair, rewrite
from loopspec.model.commands import Command
from loopspec.model.draft import Draft
from loopspec.model.events import (
    ApprovalAsked,
    AssistantMessageRecorded,
    Event,
    HookInvoked,
    HookResulted,
    StepEnded,
    ToolCallRecorded,
    ToolResultRecorded,
    TurnEnded,
    UserMessageRecorded,
)
from loopspec.model.jsonvalue import EMPTY, JAVASCRIPT_TRIMMED, FrozenMap, JsonValue
from loopspec.model.messages import TextBlock, ToolCallBlock, UserMessage, plugin_source
from loopspec.model.pure import decisions
from loopspec.model.records import aborted as _real_aborted
from loopspec.model.records import append_result, reason
from loopspec.model.state import (
    COMMITTED,
    DENY,
    READY,
    AwaitingModel,
    CallSlot,
    Dispatching,
    Execution,
    Phase,
    QueuedMessage,
)
from loopspec.properties.conformance.target import ModelTarget, Observation

Patch = tuple[Any, str, Any]


@attrs.frozen
class Mutant:
    """A named bug, the rule it breaks, and the patches that plant it.

    `also_breaks`: rules a random program may show the bug breaking first, where that program
    shows nothing of `rule_id` (the comment at each mutant says which programs)."""

    name: str
    rule_id: str
    describe: str
    patches: Callable[[], list[Patch]]
    also_breaks: frozenset[str] = frozenset()
    # Whether a program of the exhaustive alphabet can show the bug: its calls' arguments are
    # fixed (symmetry reduction), so a bug in how arguments parse is random programs' to find.
    exhaustive: bool = True

    @property
    def blamed(self) -> frozenset[str]:
        """Every rule a counterexample of this bug may rightly be blamed on."""
        return self.also_breaks | {self.rule_id}


class MutantTarget(ModelTarget):
    """The model with a mutant's patches applied during its own steps only."""

    def __init__(self, mutant: Mutant) -> None:
        super().__init__()
        self.mutant = mutant
        self.name = f"mutant:{mutant.name}"

    def apply(self, command: Command) -> Observation:
        """Step with the bug planted."""
        with _patched(self.mutant.patches()):
            return super().apply(command)


@contextlib.contextmanager
def _patched(patches: list[Patch]) -> Iterator[None]:
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)


# ---------------------------------------------------------------------------------------------
# The rewrite reaches only some readers.

_real_commit_reply = rewrite.commit_reply_with_calls


def _rewrite_only_in(readers: set[str]) -> Callable[..., tuple[CallSlot, ...]]:
    """A reply commit where the rewrite reaches only `readers` (history, audit, execution)."""

    def commit(draft: Draft, turn: int, step: int, reply: Any, votes: Any) -> tuple[CallSlot, ...]:
        start = len(draft.events)
        slots = _real_commit_reply(draft, turn, step, reply, votes)
        originals = {call.id: call.arguments for call in reply.tool_calls}
        for index in range(start, len(draft.events)):
            event = draft.events[index]
            if isinstance(event, AssistantMessageRecorded) and "history" not in readers:
                content = tuple(
                    attrs.evolve(b, arguments=originals[b.id])
                    if isinstance(b, ToolCallBlock)
                    else b
                    for b in event.message.content
                )
                draft.events[index] = attrs.evolve(
                    event, message=attrs.evolve(event.message, content=content)
                )
            if isinstance(event, ToolCallRecorded) and event.rewrite and "audit" not in readers:
                draft.events[index] = attrs.evolve(
                    event, arguments=originals[event.call_id], rewrite=None
                )
        if "execution" in readers:
            return slots
        return tuple(attrs.evolve(s, arguments=originals[s.call_id]) for s in slots)

    return commit


def _drop_sidecar(draft: Draft, turn: int, step: int, reply: Any, votes: Any) -> Any:
    start = len(draft.events)
    slots = _real_commit_reply(draft, turn, step, reply, votes)
    for index in range(start, len(draft.events)):
        event = draft.events[index]
        if isinstance(event, ToolCallRecorded):
            draft.events[index] = attrs.evolve(event, rewrite=None)
    return slots


_real_winning_rewrite = decisions.winning_rewrite


def _first_rewrite_wins(supplied: tuple[bool, ...], merged: int) -> int:
    """The race: the hook that happened to finish last was the first configured one."""
    winner = _real_winning_rewrite(supplied, merged)
    return supplied.index(True) if winner >= 0 else winner


# ---------------------------------------------------------------------------------------------
# Results and contexts in the wrong place.


def _commit_in_completion_order(draft: Draft, phase: Dispatching) -> Dispatching:
    """Commit every ready result at once, whatever the model order."""
    slots = list(phase.slots)
    for index, slot in enumerate(slots):
        if slot.status != READY or slot.result is None:
            continue
        dispatch._append_post_audit(draft, phase.turn, slot, slot.result)
        append_result(
            draft,
            phase.turn,
            phase.step,
            slot.call_id,
            slot.result.content,
            is_error=slot.result.is_error,
            error=slot.result.error_info,
            meta=slot.result.meta,
            call_seq=slot.call_seq,
        )
        draft.set(
            inbox=(*draft.inbox, *(QueuedMessage(t, "tool-context") for t in slot.result.contexts))
        )
        slots[index] = attrs.evolve(slot, status=COMMITTED)
    cursor = next((i for i, s in enumerate(slots) if s.status != COMMITTED), len(slots))
    return attrs.evolve(phase, slots=tuple(slots), cursor=cursor)


_real_commit_ready = dispatch._commit_ready


def _context_right_after_result(draft: Draft, phase: Dispatching) -> Dispatching:
    """Append a result's contexts at once, while later results of the batch are still due."""
    before = len(draft.events)
    queued = draft.inbox
    moved = _real_commit_ready(draft, phase)
    fresh = draft.inbox[len(queued) :]
    more_to_come = moved.cursor < len(moved.slots)
    if fresh and len(draft.events) > before and more_to_come:
        for queued_message in fresh:
            message = UserMessage(
                draft.message_id(), (TextBlock(queued_message.text),), plugin_source("tool-context")
            )
            draft.add(UserMessageRecorded, message)
        draft.set(inbox=queued)
    return moved


_real_advance = dispatch.advance


def _results_after_the_step(draft: Draft, phase: Dispatching) -> Phase:
    """Close the step before the last result lands: the result falls into the next step."""
    nxt = _real_advance(draft, phase)
    if not isinstance(nxt, AwaitingModel):
        return nxt
    starts = [i for i, e in enumerate(draft.events) if isinstance(e, StepEnded)]
    results = [i for i, e in enumerate(draft.events) if isinstance(e, ToolResultRecorded)]
    if starts and results and results[-1] < starts[-1]:
        last = draft.events.pop(results[-1])
        draft.events.insert(starts[-1] + 1, last)
        for seq, event in enumerate(draft.events, start=len(draft.state.log)):
            draft.events[seq - len(draft.state.log)] = attrs.evolve(event, seq=seq)
    return nxt


def _end_turn_without_closing_step(draft: Draft, turn: int, why: FrozenMap) -> None:
    if draft.events and isinstance(draft.events[-1], StepEnded):
        draft.events.pop()
    draft.add(TurnEnded, turn, why)


# ---------------------------------------------------------------------------------------------
# Policy bugs.

_real_gate = dispatch._gate


def _gate_runs_hooks_again(draft: Draft, phase: Dispatching) -> Dispatching:
    """The pre-execute gate asks the PreToolUse hooks a second time."""
    for slot in phase.slots[phase.gate :]:
        for hook in draft.state.config.hooks_for("PreToolUse", slot.name):
            draft.add(
                HookInvoked,
                phase.turn,
                "PreToolUse",
                hook.dialect,
                hook.handler_id,
                hook.matcher,
                slot.call_id,
            )
            draft.add(
                HookResulted,
                phase.turn,
                "PreToolUse",
                hook.handler_id,
                "allow",
                0.0,
                call_id=slot.call_id,
            )
    return _real_gate(draft, phase)


def _gate_runs_denied_calls(draft: Draft, phase: Dispatching) -> Dispatching:
    """A denied call still reaches its body."""
    moved = _real_gate(draft, phase)
    runs = list(draft.changes.get("executions", draft.state.executions))
    for old, new in zip(phase.slots, moved.slots, strict=True):
        if old.status != READY and new.status == READY and new.decision == DENY:
            runs.append(Execution(phase.turn, phase.step, new.call_id, new.arguments))
    draft.set(executions=tuple(runs))
    return moved


_real_start = dispatch._start


def _start_with_mutated_arguments(draft: Draft, phase: Dispatching, slot: CallSlot) -> CallSlot:
    """A listener mutates the arguments after the identity was sealed."""
    started = _real_start(draft, phase, slot)
    runs = list(draft.changes.get("executions", draft.state.executions))
    if runs and runs[-1].call_id == slot.call_id:
        runs[-1] = attrs.evolve(runs[-1], arguments=runs[-1].arguments.replace("a", "A", 1) + " ")
        draft.set(executions=tuple(runs))
    return started


def _ask_shows_original(draft: Draft, phase: Dispatching) -> Dispatching:
    """The approval prompt shows the model's original input, not the effective one."""
    start = len(draft.events)
    moved = _real_gate(draft, phase)
    # The call's record may be in this very commit (a reply whose first call asks at once).
    originals = {
        e.call_id: e.rewrite.original_arguments
        for e in (*draft.state.log, *draft.events[:start])
        if isinstance(e, ToolCallRecorded) and e.rewrite is not None
    }
    for index in range(start, len(draft.events)):
        event = draft.events[index]
        if isinstance(event, ApprovalAsked) and event.call_id in originals:
            draft.events[index] = attrs.evolve(event, arguments=originals[event.call_id])
    return moved


# ---------------------------------------------------------------------------------------------
# Arguments parse another way.

_real_parse_arguments = jsonvalue.parse_arguments


def _parse_trimmed_the_javascript_way(raw: str) -> JsonValue:
    """Blank as JavaScript's `trim` reads it; the rest as every reader parses it."""
    if not raw.strip(JAVASCRIPT_TRIMMED):
        return EMPTY
    if not raw.strip():
        return raw  # blank to Python alone: not JSON to a JavaScript reader either
    return _real_parse_arguments(raw)


# ---------------------------------------------------------------------------------------------
# An abort's cause is lost.


def _aborted_by_the_user(cause: str) -> FrozenMap:
    """Every aborted turn's reason says the user aborted it, whatever the Abort's cause."""
    return _real_aborted("user")


def _ends_completed(cause: str) -> FrozenMap:
    """A turn an abort cut short before or during its reply ends as if the reply had finished
    (a loop that takes a cancelled stream for a whole one)."""
    return reason("completed")


# ---------------------------------------------------------------------------------------------
# Crash repair.

# handlers binds this function by name; the mutants below patch it there.
_real_closers = repair.interrupted_turn_closers


def _closers_timed_by_the_clock(log: tuple[Event, ...]) -> tuple[Event, ...]:
    """Repair stamps its closers with the clock at reopen, a minute after the last event."""
    return tuple(attrs.evolve(e, time=e.time + 60_000) for e in _real_closers(log))


def _closers_with_a_note(log: tuple[Event, ...]) -> tuple[Event, ...]:
    """Repair tells the model that the session resumed, in a context message right after the
    results it wrote (before the step/end and turn/end that close the turn)."""
    closers = _real_closers(log)
    results = sum(isinstance(e, ToolResultRecorded) for e in closers)
    if not results:
        return closers
    first = closers[0]
    note = UserMessage(
        f"resumed-{first.seq + results}",
        (TextBlock("The session resumed after a crash."),),
        plugin_source("tool-context"),
    )
    made: list[Event] = list(closers[:results])
    made.append(UserMessageRecorded(first.seq + results, first.time, note))
    made += (attrs.evolve(e, seq=e.seq + 1) for e in closers[results:])
    return tuple(made)


MUTANTS: tuple[Mutant, ...] = (
    # Both rewrite mutants leave tool/call without its sidecar; on a rewrite to the input the
    # call already had (an identity rewrite) that is all that differs: RW-2.
    Mutant(
        "execution-only-rewrite",
        "RW-1",
        "the rewrite changes what runs, not what is shown",
        lambda: [
            (rewrite, "commit_reply_with_calls", _rewrite_only_in({"execution"})),
            (handlers, "commit_reply_with_calls", _rewrite_only_in({"execution"})),
        ],
        also_breaks=frozenset({"RW-2"}),
    ),
    Mutant(
        "history-but-not-audit",
        "RW-1",
        "the rewrite reaches history but not tool/call",
        lambda: [(handlers, "commit_reply_with_calls", _rewrite_only_in({"history", "execution"}))],
        also_breaks=frozenset({"RW-2"}),
    ),
    Mutant(
        "missing-sidecar",
        "RW-2",
        "tool/call loses the original arguments",
        lambda: [(handlers, "commit_reply_with_calls", _drop_sidecar)],
    ),
    # Where both hooks supply one input (every exhaustive program: its inputs are fixed), the
    # arguments are right and only the sidecar's order says which hook won, as a loop merging
    # right but naming the hooks in reverse writes it: RW-2, whose words name HOOK-3's reading.
    Mutant(
        "last-finisher-wins",
        "HOOK-3",
        "rewrites merge by completion order",
        lambda: [(rewrite, "winning_rewrite", _first_rewrite_wins)],
        also_breaks=frozenset({"RW-2"}),
    ),
    Mutant(
        "completion-order-results",
        "ORD-3",
        "results commit as bodies finish",
        lambda: [(dispatch, "_commit_ready", _commit_in_completion_order)],
    ),
    Mutant(
        "context-between-call-and-result",
        "ADJ-1",
        "a tool context lands mid-batch",
        lambda: [(dispatch, "_commit_ready", _context_right_after_result)],
    ),
    Mutant(
        "result-in-next-step",
        "STEP-3",
        "the last result lands after the next step/start",
        lambda: [
            (dispatch, "advance", _results_after_the_step),
            (handlers, "advance", _results_after_the_step),
        ],
    ),
    Mutant(
        "turn-end-with-step-open",
        "TURN-2",
        "turn/end is written before step/end",
        lambda: [
            (handlers, "end_turn", _end_turn_without_closing_step),
            (dispatch, "end_turn", _end_turn_without_closing_step),
        ],
    ),
    Mutant(
        "hooks-run-twice",
        "HOOK-4",
        "the gate runs PreToolUse hooks again",
        lambda: [(dispatch, "_gate", _gate_runs_hooks_again)],
    ),
    Mutant(
        "mutable-arguments",
        "EXE-3",
        "arguments change after the identity is sealed",
        lambda: [(dispatch, "_start", _start_with_mutated_arguments)],
    ),
    Mutant(
        "deny-still-executes",
        "DEC-1",
        "a denied call's body runs",
        lambda: [(dispatch, "_gate", _gate_runs_denied_calls)],
    ),
    Mutant(
        "deny-without-reason-worded-blocked",
        "DEC-1",
        "a denial no hook gave a reason for says 'Error: blocked', not 'Error: denied'",
        lambda: [(rewrite, "DENIED_WITHOUT_REASON", "blocked")],
    ),
    Mutant(
        "ask-shows-original",
        "RW-4",
        "the approval prompt shows the original input",
        lambda: [(dispatch, "_gate", _ask_shows_original)],
    ),
    Mutant(
        "javascript-trim",
        "EXE-2",
        "blank arguments are read as JavaScript's trim reads them, not Python's strip",
        lambda: [
            (messages, "parse_arguments", _parse_trimmed_the_javascript_way),
            (rewrite, "parse_arguments", _parse_trimmed_the_javascript_way),
        ],
        exhaustive=False,
    ),
    Mutant(
        "cancelled-reply-ends-completed",
        "ABORT-2",
        "a turn an abort cut short before or during its reply ends completed, not aborted",
        lambda: [(handlers, "aborted", _ends_completed)],
    ),
    Mutant(
        "repair-timed-by-the-clock",
        "REC-1",
        "crash repair's closers carry the clock's time, not the last event's",
        lambda: [(handlers, "interrupted_turn_closers", _closers_timed_by_the_clock)],
    ),
    Mutant(
        "repair-writes-a-note",
        "REC-1",
        "crash repair writes a context message between its results and the turn's end",
        lambda: [(handlers, "interrupted_turn_closers", _closers_with_a_note)],
    ),
    Mutant(
        "every-abort-the-users",
        "ABORT-3",
        "a parent's, a hook's or a disposal's abort is recorded as the user's",
        lambda: [
            (handlers, "aborted", _aborted_by_the_user),
            (dispatch, "aborted", _aborted_by_the_user),
        ],
    ),
)
