"""A turn that must close with nothing else between: after an interrupted reply (ABORT-2), and
between crash repair's closers (REC-1), whose times are the last event's.

`loopspec check` on hand-written logs under tests/fixtures/logs/blame/ (each with a near miss
that keeps every rule), then `conform`'s blame on fixed programs run against the model with one
of these bugs planted: the invariants are the same registry for both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from blame_logs import BLAME, blamed, check

from loopspec.model.commands import (
    Abort,
    Command,
    Crash,
    ModelReplies,
    Recover,
    SubmitUser,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.logcheck.checker import check_stream
from loopspec.properties.stateful.strategies import TOOLS

Event = dict[str, Any]

ABORTED_VALID = BLAME / "valid" / "ABORT-2-interrupted-reply-then-the-turn-ends-aborted.jsonl"
REPAIRED_VALID = BLAME / "valid" / "REC-1-repair-closers-timed-as-the-last-event.jsonl"


def _edited(tmp_path: Path, source: Path, old: str, new: str) -> Path:
    """A copy of `source` with `old` (found exactly once) replaced by `new`."""
    text = source.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    copy = tmp_path / source.name
    copy.write_text(text.replace(old, new), encoding="utf-8")
    return copy


@pytest.mark.parametrize("quick", [True, False], ids=["judged", "every-fact"])
def test_ABORT_2_REC_1_the_near_misses_keep_every_rule_on_both_paths(quick: bool) -> None:
    """ABORT-2, REC-1: an interrupted reply whose step and turn then end aborted, and a repair
    whose closers follow each other timed as the last event before them (a second turn ending
    interrupted with no call to answer, timed as its step/end), keep every rule, whether check
    judges events without their facts or feeds every fact to the invariants."""
    for path in (ABORTED_VALID, REPAIRED_VALID):
        with path.open("rb") as stream:
            report = check_stream(str(path), stream, quick=quick)
        assert (blamed(report), report.status) == ([], "ok"), path.name


def test_ABORT_2_a_message_after_an_interrupted_reply_is_ABORT_2_alone() -> None:
    """ABORT-2: after an interrupted reply the loop writes step/end and turn/end {aborted},
    nothing else. A message appended there (input queued while the reply streamed) was blamed
    on ADJ-4 ("waits for the next step/start"): no step comes, the turn goes on where it must
    end. It is ABORT-2, once, citing the reply."""
    report = check(BLAME / "violations" / "ABORT-2-message-after-an-interrupted-reply.jsonl")
    assert blamed(report) == [("ABORT-2", 6)]
    (found,) = report.violations
    assert found.violation.related == (3,)
    assert "after the interrupted reply at seq 3" in found.violation.message


def test_ABORT_2_a_turn_that_ends_completed_after_an_interrupted_reply_is_blamed(
    tmp_path: Path,
) -> None:
    """ABORT-2: the turn of an interrupted reply ends aborted; the near miss ending `completed`
    is blamed at its turn/end. Ending `interrupted` is a crash's before the abort's end was
    written, which repair closes (REC-1): no violation."""
    aborted = '"reason": {"kind": "aborted", "reason": {"kind": "user"}}'
    completed = _edited(tmp_path, ABORTED_VALID, aborted, '"reason": {"kind": "completed"}')
    report = check(completed)
    assert blamed(report) == [("ABORT-2", 7)]
    assert 'ends "completed" after the interrupted reply' in report.violations[0].violation.message
    interrupted = _edited(tmp_path, ABORTED_VALID, aborted, '"reason": {"kind": "interrupted"}')
    assert (blamed(check(interrupted)), check(interrupted).status) == ([], "ok")


def test_ABORT_2_an_uninterrupted_reply_lets_the_turn_go_on(tmp_path: Path) -> None:
    """ABORT-2: the same log whose reply is not marked interrupted is a step that ended and a
    turn that went on to a second one: no rule is broken (the near miss of the log blamed
    above)."""
    path = BLAME / "violations" / "ABORT-2-turn-goes-on-after-an-interrupted-reply.jsonl"
    whole = _edited(tmp_path, path, ', "interrupted": true', "")
    assert (blamed(check(whole)), check(whole).status) == ([], "ok")


def test_REC_1_a_context_between_repair_closers_is_REC_1_alone() -> None:
    """REC-1: on reopen, repair appends the open step's missing results, then step/end, then
    turn/end {interrupted}, with nothing between. A context message between the result and the
    step/end was blamed on ADJ-4 ("waits for the next step/start"), the rule of a live loop:
    it is the repair's, REC-1, once, citing the repair's first result."""
    report = check(BLAME / "violations" / "REC-1-a-context-between-the-repair-closers.jsonl")
    assert blamed(report) == [("REC-1", 8)]
    (found,) = report.violations
    assert found.violation.related == (5,)
    assert "between crash repair's closers" in found.violation.message


def test_REC_1_a_repair_timed_by_the_clock_is_blamed_once() -> None:
    """REC-1: repair's closers carry the time of the last event before them (so that repairing
    the same log twice writes the same events). A repair timed by the clock at reopen is blamed
    at its first result, once: its step/end and turn/end share that time and are not blamed
    again."""
    report = check(BLAME / "violations" / "REC-1-closers-timed-by-the-clock.jsonl")
    assert blamed(report) == [("REC-1", 7)]
    (found,) = report.violations
    assert found.violation.related == (4,)  # the last event before the repair
    assert "is timed 9000, the last event before it (seq 4) 1200" in found.violation.message


def test_REC_1_closers_that_disagree_on_their_time_are_blamed(tmp_path: Path) -> None:
    """REC-1: every closer carries the first one's time: a step/end a millisecond later is
    blamed; and a turn/end {interrupted} that closes a turn with no call to answer (no repair
    result before it) is timed as the event before it."""
    step_end = '{"type": "step/end", "seq": 8, "time": 1200'
    later = _edited(tmp_path, REPAIRED_VALID, step_end, step_end.replace("1200", "1201"))
    report = check(later)
    assert blamed(report) == [("REC-1", 10)]
    assert report.violations[0].violation.related == (6,)  # the repair's first result
    turn_end = '{"type": "turn/end", "seq": 14, "time": 5000'
    later = _edited(tmp_path, REPAIRED_VALID, turn_end, turn_end.replace("5000", "5007"))
    report = check(later)
    assert blamed(report) == [("REC-1", 16)]
    assert "turn/end {interrupted} is timed 5007" in report.violations[0].violation.message


# ---------------------------------------------------------------------------------------------
# conform: the model with one of these bugs planted, on a fixed program that shows it.

HOOKED = LoopConfig(tools=TOOLS, hooks=(HookSpec("gate", "PreToolUse", "*"),), max_parallel=1)
UNHOOKED = LoopConfig(tools=TOOLS, max_parallel=1)
CALL = ToolCallBlock("c1", "read", '{"file_path":"a.txt"}')
# An abort while the reply's PreToolUse hook runs: the reply is kept as its text alone,
# interrupted, then the step and the turn end aborted.
ABORT_WHILE_HOOKS_RUN: tuple[Command, ...] = (
    SubmitUser("hi"),
    ModelReplies((TextBlock("let me look"), CALL)),
    Abort("user"),
)
# A crash while a recorded call runs: repair answers it, then ends the step and the turn.
CRASH_WHILE_A_CALL_RUNS: tuple[Command, ...] = (
    SubmitUser("hi"),
    ModelReplies((CALL,)),
    Crash(),
    Recover(),
)

Change = Callable[[Command, tuple[Event, ...]], tuple[Event, ...]]


class ChangedEvents(ModelTarget):
    """The model, with `change` applied to the events it reports for each command (seqs
    renumbered after it, as the target's own log numbers them)."""

    def __init__(self, change: Change) -> None:
        super().__init__()
        self.name = "changed model"
        self._change = change

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not observed.events:
            return observed
        events = self._change(command, tuple(json.loads(json.dumps(observed.events))))
        first = int(observed.events[0]["seq"])
        for offset, event in enumerate(events):
            event["seq"] = first + offset
        added = len(events) - len(observed.events)
        commits = (*observed.commits[:-1], observed.commits[-1] + added)
        return attrs.evolve(observed, events=events, commits=commits)


def _goes_on_after_the_abort(command: Command, events: tuple[Event, ...]) -> tuple[Event, ...]:
    """The interrupted reply's turn does not end: a new step starts (a loop that retries the
    request after a cancelled stream)."""
    if not isinstance(command, Abort):
        return events
    kept = [e for e in events if e["type"] != "turn/end"]
    turn = kept[-1]["data"]["turn"]
    step = kept[-1]["data"]["step"] + 1
    started = {
        "type": "step/start",
        "seq": 0,
        "time": kept[-1]["time"],
        "data": {"turn": turn, "step": step},
    }
    return (*kept, started)


def _context_between_closers(command: Command, events: tuple[Event, ...]) -> tuple[Event, ...]:
    """Repair appends a context message (a note that the session resumed) after its results."""
    if not isinstance(command, Recover):
        return events
    at = next(i for i, e in enumerate(events) if e["type"] == "step/end")
    note = {
        "type": "user/message",
        "seq": 0,
        "time": events[0]["time"],
        "data": {
            "id": "resumed",
            "role": "user",
            "content": [{"type": "text", "text": "the session was resumed"}],
            "source": {"kind": "plugin", "plugin": "tool-context"},
        },
        "surfaceOp": "append",
    }
    return (*events[:at], note, *events[at:])


def _repair_timed_by_the_clock(command: Command, events: tuple[Event, ...]) -> tuple[Event, ...]:
    """Repair stamps its closers with the clock at reopen, later than the last event."""
    if not isinstance(command, Recover):
        return events
    return tuple({**event, "time": int(event["time"]) + 60_000} for event in events)


@pytest.mark.parametrize(
    ("change", "config", "program", "rule"),
    [
        (_goes_on_after_the_abort, HOOKED, ABORT_WHILE_HOOKS_RUN, "ABORT-2"),
        (_context_between_closers, UNHOOKED, CRASH_WHILE_A_CALL_RUNS, "REC-1"),
        (_repair_timed_by_the_clock, UNHOOKED, CRASH_WHILE_A_CALL_RUNS, "REC-1"),
    ],
    ids=["turn-goes-on-after-an-interrupted-reply", "context-between-closers", "repair-timed-late"],
)
def test_ABORT_2_REC_1_conform_blames_a_turn_that_does_not_close_as_it_must(
    change: Change, config: LoopConfig, program: tuple[Command, ...], rule: str
) -> None:
    """ABORT-2, REC-1: conform holds a target's own log to the same invariants as check. A loop
    that goes on after an interrupted reply is blamed ABORT-2; a repair that writes a context
    between its closers, or times them by the clock, REC-1 (conform leaves other events' times
    to the target's clock: the repair's are the log's). The unchanged model passes each
    program."""
    replay = replay_case(lambda: ChangedEvents(change), config, list(program))
    assert replay.divergence is not None
    assert replay.divergence.rule_id == rule, replay.divergence.what
    unchanged = replay_case(lambda: ChangedEvents(lambda _c, events: events), config, list(program))
    assert unchanged.divergence is None
