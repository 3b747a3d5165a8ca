"""Checks over a model state (not only its log): what only the state can show.

The log invariants (`loopspec.model.invariants`) see the log. A few rules need more: what actually
ran
(`LoopState.executions`), where each commit ended (`LoopState.commit_ends`), and what the
presentation renders. These are named the same way and carry rule IDs.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from loopspec.model.events import AssistantMessageRecorded, ToolCallRecorded
from loopspec.model.invariants import Violation, check_log
from loopspec.model.jsonvalue import parse_arguments
from loopspec.model.presenters import present_call
from loopspec.model.state import LoopState


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
    """RW-1: each call renders the same from its audit record as from the history's block."""
    shown_in_history = {
        (message.turn, message.step, block.id): block
        for message in state.log
        if isinstance(message, AssistantMessageRecorded)
        for block in message.message.tool_calls
    }
    for event in state.log:
        if not isinstance(event, ToolCallRecorded):
            continue
        block = shown_in_history.get((event.turn, event.step, event.call_id))
        if block is None:
            continue
        shown = present_call(event.name, parse_arguments(event.arguments))
        if shown != present_call(block.name, parse_arguments(block.arguments)):
            yield Violation(
                "RW-1",
                event.seq,
                f"call {event.call_id} renders differently from the audit record and from history",
            )


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
)


def all_violations(state: LoopState) -> list[Violation]:
    """Every log invariant and every state check, over one state."""
    found = check_log(state.log)
    for check in STATE_CHECKS:
        found.extend(check(state))
    return found
