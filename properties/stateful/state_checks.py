"""Checks over a model state (not only its log): what only the state can show.

The log invariants (`loopspec.model.invariants`) see the log. A few rules need more: what actually
ran
(`LoopState.executions`), where each commit ended (`LoopState.commit_ends`), and what the
presentation renders. These are named the same way and carry rule IDs.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from loopspec.model.derive import derive_messages
from loopspec.model.events import AssistantMessageRecorded, Event, ToolCallRecorded
from loopspec.model.invariants import check_log
from loopspec.model.jsonvalue import parse_arguments, thaw
from loopspec.model.messages import AssistantMessage, ToolCallBlock
from loopspec.model.prefix import Violation
from loopspec.model.presenters import present_call
from loopspec.model.replay import ApprovalShown, CallShown, present_log
from loopspec.model.state import ASKING, RUNNING, Dispatching, LoopState


def executed_arguments_match_audit(state: LoopState) -> Iterator[Violation]:
    """RW-1: every body ran with exactly the arguments its tool/call records."""
    recorded = {
        (e.turn, e.step, e.call_id): e for e in state.log if isinstance(e, ToolCallRecorded)
    }
    for run in state.executions:
        record = recorded.get((run.turn, run.step, run.call_id))
        if record is None:
            yield Violation("RW-1", -1, f"call {run.call_id} ran without a tool/call record")
        elif record.arguments != run.arguments:
            yield Violation(
                "RW-1",
                record.seq,
                f"call {run.call_id} ran {run.arguments!r} but "
                f"the audit records {record.arguments!r}",
            )


def reply_and_identities_commit_together(state: LoopState) -> Iterator[Violation]:
    """LOG-8 / RW-3: a reply with calls and every call's tool/call land in one commit."""

    def commit_of(index: int) -> int:
        return next(i for i, end in enumerate(state.commit_ends) if index < end)

    for index, event in enumerate(state.log):
        if not isinstance(event, AssistantMessageRecorded) or not event.message.tool_calls:
            continue
        ids = {call.id for call in event.message.tool_calls}
        for later in range(index + 1, len(state.log)):
            other = state.log[later]
            if isinstance(other, ToolCallRecorded) and other.call_id in ids:
                ids.discard(other.call_id)
                if commit_of(later) != commit_of(index):
                    yield Violation(
                        "LOG-8",
                        other.seq,
                        f"tool/call {other.call_id} committed apart from the reply that carries it",
                        (event.seq,),
                    )
            if not ids:
                break


def presentation_matches_history(state: LoopState) -> Iterator[Violation]:
    """RW-1: what the presentation reader shows for each call is what history carries.

    Both sides are the real readers: history is `derive_messages` (what the next request
    sends), presentation is `present_log` (the cards and approval prompts, rendered from the
    audit record). A call is matched by its id and occurrence; its card must render the view
    of the history's arguments, and its approval prompt must carry them as `rawInput`.
    """
    history: dict[tuple[str, int], ToolCallBlock] = {}
    occurrences: Counter[str] = Counter()
    for message in derive_messages(state.log):
        if isinstance(message, AssistantMessage):
            for block in message.tool_calls:
                history[(block.id, occurrences[block.id])] = block
                occurrences[block.id] += 1
    cards: Counter[str] = Counter()
    for shown in present_log(state.log):
        if isinstance(shown, CallShown):
            shown_in_history = history.get((shown.call_id, cards[shown.call_id]))
            cards[shown.call_id] += 1
            if shown_in_history is None:
                continue
            expected = parse_arguments(shown_in_history.arguments)
            view = present_call(shown_in_history.name, expected)
            if shown.arguments != expected or shown.view != view:
                yield Violation(
                    "RW-1",
                    shown.seq,
                    f"call {shown.call_id} is shown with other arguments than history carries",
                )
        elif isinstance(shown, ApprovalShown):
            asked_in_history = history.get((shown.call_id, cards[shown.call_id] - 1))
            if asked_in_history is None:
                continue
            expected = parse_arguments(asked_in_history.arguments)
            tool_call = shown.request.get("toolCall")
            raw = tool_call.get("rawInput") if isinstance(tool_call, dict) else None
            if shown.arguments != expected or raw != thaw(expected):
                yield Violation(
                    "RW-4",
                    shown.seq,
                    f"the approval prompt for {shown.call_id} shows other arguments than history",
                )


Value = TypeVar("Value")


def _calls_by_occurrence(pairs: Iterable[tuple[str, Value]]) -> dict[tuple[str, int], Value]:
    found: dict[tuple[str, int], Value] = {}
    seen: Counter[str] = Counter()
    for call_id, value in pairs:
        found[(call_id, seen[call_id])] = value
        seen[call_id] += 1
    return found


def readers_disagree(log: Sequence[Event]) -> list[Violation]:
    """RW-1 at one prefix: history, the audit record and presentation show the same calls.

    `log` is what a reader of a (possibly crashed) log sees, unfinished commit unit dropped
    (`complete_prefix`). Every call the history shows has one `tool/call` with the same name
    and arguments and one card with those arguments, and every record and card has its call in
    history: no reader may see a call, or an input, the others do not.
    """
    history = _calls_by_occurrence(
        (block.id, (block.name, parse_arguments(block.arguments)))
        for message in derive_messages(log)
        if isinstance(message, AssistantMessage)
        for block in message.tool_calls
    )
    audit = _calls_by_occurrence(
        (e.call_id, (e.name, parse_arguments(e.arguments)))
        for e in log
        if isinstance(e, ToolCallRecorded)
    )
    # A card carries no tool name of its own: it is compared by the arguments it renders.
    cards = _calls_by_occurrence(
        (s.call_id, s.arguments) for s in present_log(log) if isinstance(s, CallShown)
    )
    found: list[Violation] = []
    for key in sorted(set(history) | set(audit) | set(cards)):
        readers = {"history": history.get(key), "audit": audit.get(key)}
        missing = [name for name, value in readers.items() if value is None]
        if key not in cards:
            missing.append("presentation")
        if missing:
            found.append(Violation("RW-1", -1, f"call {key[0]}: missing in {', '.join(missing)}"))
        elif readers["history"] != readers["audit"] or cards[key] != audit[key][1]:
            found.append(Violation("RW-1", -1, f"call {key[0]}: readers show other arguments"))
    return found


def complete_prefix(log: Sequence[Event], commit_ends: Sequence[int], cut: int) -> Sequence[Event]:
    """What a reader of the first `cut` events sees: every commit that ended by then (LOG-8)."""
    whole = max((end for end in commit_ends if end <= cut), default=0)
    return log[:whole]


def batch_can_progress(state: LoopState) -> Iterator[Violation]:
    """SCHED-2: a batch that is still open waits for something: a running body or an answer.

    Otherwise no command could ever move it (the gate never opened), and the loop hangs.
    """
    phase = state.phase
    if isinstance(phase, Dispatching) and not any(
        slot.status in (RUNNING, ASKING) for slot in phase.slots
    ):
        yield Violation("SCHED-2", -1, "the batch is open but nothing runs and nothing is asked")


def commits_are_prefix_closed(state: LoopState) -> Iterator[Violation]:
    """LOG-8: commit boundaries increase and end at the log's end."""
    ends = state.commit_ends
    if any(b <= a for a, b in itertools.pairwise(ends)):
        yield Violation("LOG-8", -1, "commit boundaries do not increase")
    if ends and ends[-1] != len(state.log):
        yield Violation("LOG-8", -1, "the last commit does not end at the end of the log")
    if not ends and state.log:
        yield Violation("LOG-8", -1, "events exist outside any commit")


STATE_CHECKS = (
    executed_arguments_match_audit,
    reply_and_identities_commit_together,
    presentation_matches_history,
    commits_are_prefix_closed,
    batch_can_progress,
)


def all_violations(state: LoopState) -> list[Violation]:
    """Every log invariant and every state check, over one state."""
    found = check_log(state.log)
    for check in STATE_CHECKS:
        found.extend(check(state))
    return found
