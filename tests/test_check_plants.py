"""One planted bug, one violation: `loopspec check` on a valid dsh log with one bug of a real loop.

Each plant below takes the valid log tests/fixtures/logs/valid/model-demo.jsonl (three turns:
two reads and a rewritten, approved bash call; a denied call; a crash repair), plants one bug
real loops make, and says what `check` must report, in order: the rule SPEC.md says the bug
breaks, first, and nothing that only follows from it. Moved events keep the seqs of their new
places and their citations follow them (a loop writes seqs in write order), so LOG-1 and LOG-2
stay out of what is judged. Where a plant yields two violations, the comment says why both
belong in the report.
"""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from check_fixtures import FIXTURES

from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.cli.main import main
from loopspec.properties.logcheck.checker import LogReport, check_paths, check_stream
from loopspec.properties.logcheck.synth import marked_model_rows

Event = dict[str, Any]
Plant = Callable[[list[Event]], list[Event]]

BASE = FIXTURES / "valid" / "model-demo.jsonl"


def _renumbered(events: list[Event]) -> list[Event]:
    """Seqs in write order again; each citation follows the event it cites."""
    new_seq = {event["seq"]: index for index, event in enumerate(events)}
    for index, event in enumerate(events):
        event["seq"] = index
        if "sourceEventSeqs" in event:
            event["sourceEventSeqs"] = [new_seq.get(s, s) for s in event["sourceEventSeqs"]]
    return events


def _at(events: list[Event], wanted: Callable[[Event], bool]) -> int:
    return next(index for index, event in enumerate(events) if wanted(event))


def _result(call_id: str) -> Callable[[Event], bool]:
    def wanted(event: Event) -> bool:
        if event["type"] != "tool/result":
            return False
        return bool(event["data"]["message"]["content"][0]["toolCallId"] == call_id)

    return wanted


def _of(kind: str, **data: object) -> Callable[[Event], bool]:
    return lambda e: e["type"] == kind and all(e["data"].get(k) == v for k, v in data.items())


def _moved(events: list[Event], index: int, before: int) -> list[Event]:
    """`events` with the one at `index` moved to stand right before the one at `before`."""
    rest = events[:index] + events[index + 1 :]
    rest.insert(before if before < index else before - 1, events[index])
    return _renumbered(rest)


def _result_after(call_id: str, anchor: Callable[[Event], bool]) -> Plant:
    return lambda ev: _moved(ev, _at(ev, _result(call_id)), _at(ev, anchor) + 1)


def _inserted(at: Callable[[list[Event]], int], event: Callable[[list[Event]], Event]) -> Plant:
    def plant(events: list[Event]) -> list[Event]:
        made = event(events)
        events.insert(at(events), made)
        return _renumbered(events)

    return plant


def _dropped(wanted: Callable[[Event], bool]) -> Plant:
    def plant(events: list[Event]) -> list[Event]:
        del events[_at(events, wanted)]
        return _renumbered(events)

    return plant


def _edited(wanted: Callable[[Event], bool], edit: Callable[[Event, list[Event]], None]) -> Plant:
    def plant(events: list[Event]) -> list[Event]:
        edit(events[_at(events, wanted)], events)
        return events

    return plant


def _another_user_message(events: list[Event]) -> Event:
    message = copy.deepcopy(events[_at(events, _of("user/message"))])
    message["data"]["id"] = "m-planted"
    return message


def _original_arguments(events: list[Event]) -> str:
    record = events[_at(events, _of("tool/call", callId="call_c"))]
    return str(record["data"]["rewrite"]["originalArguments"])


def _show_original(reply: Event, events: list[Event]) -> None:
    for block in reply["data"]["message"]["content"]:
        if block.get("id") == "call_c":
            block["arguments"] = _original_arguments(events)


def _repeat_call_a(events: list[Event]) -> list[Event]:
    """The reply names call_b `call_a` too; the loop records and answers both under it."""
    for event in events:
        data = event["data"]
        for block in data.get("message", {}).get("content", []) if "message" in data else []:
            if block.get("id") == "call_b":
                block["id"] = "call_a"
            if block.get("toolCallId") == "call_b":
                block["toolCallId"] = "call_a"
                data["message"]["source"]["callId"] = "call_a"
        if data.get("callId") == "call_b":
            data["callId"] = "call_a"
    return events


def _seqs_shifted(by: int) -> Plant:
    def plant(events: list[Event]) -> list[Event]:
        for event in events[20:]:
            event["seq"] += by
            if "sourceEventSeqs" in event:
                event["sourceEventSeqs"] = [
                    s + by if s >= 20 else s for s in event["sourceEventSeqs"]
                ]
        return events

    return plant


def _approval_after_the_result(events: list[Event]) -> list[Event]:
    asked = events.pop(_at(events, _of("approval/asked")))
    decided = events.pop(_at(events, _of("approval/decided")))
    after = _at(events, _result("call_c")) + 1
    events[after:after] = [asked, decided]
    return _renumbered(events)


def _set(path: tuple[str, ...], value: object) -> Callable[[Event, list[Event]], None]:
    def edit(event: Event, _events: list[Event]) -> None:
        target = event
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _drop_key(path: tuple[str, ...]) -> Callable[[Event, list[Event]], None]:
    def edit(event: Event, _events: list[Event]) -> None:
        target = event
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return edit


def _orphan_result(events: list[Event]) -> Event:
    orphan = copy.deepcopy(events[_at(events, _result("call_a"))])
    orphan["data"]["message"]["content"][0]["toolCallId"] = "call_zz"
    orphan["data"]["message"]["source"]["callId"] = "call_zz"
    return orphan


def _not_started(result: Event, _events: list[Event]) -> None:
    result["data"]["error"] = {"name": "ToolNotStartedError", "code": "TOOL_NOT_STARTED"}


def _hooks_name_call_a(events: list[Event]) -> list[Event]:
    for event in events[:8]:
        if event["type"].startswith("hook/") and event["data"].get("handlerId") == "safe-flags":
            event["data"]["callId"] = "call_a"
    return events


def _copy_of(wanted: Callable[[Event], bool]) -> Callable[[list[Event]], Event]:
    return lambda events: copy.deepcopy(events[_at(events, wanted)])


def _after(wanted: Callable[[Event], bool]) -> Callable[[list[Event]], int]:
    return lambda events: _at(events, wanted) + 1


def _step_two_reply_in_step_one(events: list[Event]) -> Event:
    reply = copy.deepcopy(events[_at(events, _of("assistant/message", step=2))])
    reply["data"]["step"] = 1
    return reply


def _show_original_in_approval(asked: Event, events: list[Event]) -> None:
    asked["data"]["arguments"] = _original_arguments(events)


def _reply_after_its_first_record(events: list[Event]) -> list[Event]:
    reply = _at(events, _of("assistant/message"))
    return _moved(events, reply, reply + 2)


def _cut_after_the_first_reply(events: list[Event]) -> list[Event]:
    return events[: _at(events, _of("assistant/message")) + 1]


def _result_into_turn_3(events: list[Event]) -> list[Event]:
    """call_d's result written late, into the next turn, under that turn's numbers."""
    result = events.pop(_at(events, _result("call_d")))
    result["data"] |= {"turn": 3, "step": 1}
    events.insert(_at(events, _of("step/start", turn=3, step=1)) + 1, result)
    return _renumbered(events)


def _pre_hooks_after_the_result(events: list[Event]) -> list[Event]:
    """Turn 2's PreToolUse pairs (a deny, a pass) written after the denied call's result."""
    first = _at(events, _of("hook/invoked", turn=2, handlerId="policy"))
    pairs = events[first : first + 4]
    del events[first : first + 4]
    after = _at(events, _result("call_d")) + 1
    events[after:after] = pairs
    return _renumbered(events)


TURN_2_END_STEP = _of("step/end", turn=2, step=1)
STEP_2 = _of("step/start", turn=2, step=2)
TURN_3 = _of("step/start", turn=3, step=1)
TURN_2_END = _of("turn/end", turn=2)
DECIDED = _of("approval/decided")
SECOND_REPLY = _of("assistant/message", step=2)

# (bug, plant, the rules `check` reports, in order)
PLANTS: list[tuple[str, Plant, list[str]]] = [
    ("a result after the next step/start", _result_after("call_d", STEP_2), ["STEP-3"]),
    # The turn ended without the result (ADJ-3, true of that prefix); the STEP-3 or TURN-3 at
    # the result names that turn/end, as one misplaced result.
    ("a result in the next turn", _result_after("call_d", TURN_3), ["ADJ-3", "STEP-3"]),
    ("a result between turns", _result_after("call_d", TURN_2_END), ["ADJ-3", "TURN-3"]),
    ("a user/message between a call and its result",
     _inserted(_after(_of("tool/call", callId="call_c")), _another_user_message), ["ADJ-1"]),
    # A second reply in the step (ORD-1) and a message between calls and results (ADJ-1): one
    # event breaks both rules.
    ("an assistant/message between a call and its result",
     _inserted(lambda ev: _at(ev, _result("call_a")), _step_two_reply_in_step_one),
     ["ORD-1", "ADJ-1"]),
    ("results out of model order", _result_after("call_a", _result("call_b")), ["ORD-3"]),
    ("a rewrite in tool/call only",
     _edited(_of("assistant/message", turn=1, step=1), _show_original), ["RW-1"]),
    ("a rewrite without its sidecar",
     _edited(_of("tool/call", callId="call_c"), _drop_key(("data", "rewrite"))), ["RW-2"]),
    ("a crash repair without a call's result", _dropped(_result("call_e")), ["REC-1"]),
    ("a repair says not started for a recorded call",
     _edited(_result("call_e"), _not_started), ["REC-1"]),
    ("a repaired turn ends completed",
     _edited(_of("turn/end", turn=3), _set(("data", "reason"), {"kind": "completed"})),
     ["REC-1"]),
    ("a reply repeating a call id, both calls run", _repeat_call_a, ["EXE-1"]),
    ("a step/end missing between steps", _dropped(_of("step/end", turn=1, step=1)), ["STEP-1"]),
    ("a step/end missing before turn/end", _dropped(_of("step/end", turn=1, step=2)), ["TURN-2"]),
    ("a turn/end missing", _dropped(_of("turn/end", turn=1)), ["TURN-1"]),
    ("a seq skipped", _seqs_shifted(1), ["LOG-1"]),
    ("a seq repeated", _seqs_shifted(-1), ["LOG-1"]),
    # A dsh log commits event by event (LOG-8 names no unit there): a reply without its
    # records at the end is a crash tail (a notice, REC-2), not a violation.
    ("a reply's records cut off by a crash", _cut_after_the_first_reply, []),
    # The result comes before any record of its call (ADJ-2); a record may still follow.
    ("a tool/call record missing", _dropped(_of("tool/call", callId="call_b")), ["ADJ-2"]),
    ("a hook/result naming another call than its invocation",
     _edited(_of("hook/result", handlerId="safe-flags"), _set(("data", "callId"), "call_a")),
     ["HOOK-1"]),
    # The audit says the hook supplied call_a's input, and call_c's sidecar names it: RW-2 at
    # the sidecar and at call_a's record, two records the audit contradicts.
    ("a hook's audit for the wrong call", _hooks_name_call_a, ["RW-2", "RW-2"]),
    ("a hook/result without its hook/invoked",
     _dropped(_of("hook/invoked", handlerId="policy")), ["HOOK-1"]),
    ("an approval after the call ran", _approval_after_the_result, ["DEC-2"]),
    ("an approval answered twice", _inserted(_after(DECIDED), _copy_of(DECIDED)), ["DEC-2"]),
    ("an approval showing the original input",
     _edited(_of("approval/asked"), _show_original_in_approval), ["RW-4"]),
    ("a result citing no record",
     _edited(_result("call_a"), _drop_key(("sourceEventSeqs",))), ["ORD-2"]),
    ("a result for no call",
     _inserted(lambda ev: _at(ev, _result("call_a")), _orphan_result), ["ADJ-2"]),
    ("a result written twice",
     _inserted(_after(_result("call_a")), _copy_of(_result("call_a"))), ["ADJ-2"]),
    ("a second reply in a step",
     _inserted(lambda ev: _at(ev, SECOND_REPLY), _copy_of(SECOND_REPLY)), ["ORD-1"]),
    ("a tool/call before its reply", _reply_after_its_first_record, ["ORD-1"]),
    ("a call left unanswered", _dropped(_result("call_d")), ["ADJ-3"]),
    # The later calls' results come while call_a has none (ORD-3, once: not again for call_c's),
    # and the turn ends without it (ADJ-3).
    ("the first of three results missing", _dropped(_result("call_a")), ["ORD-3", "ADJ-3"]),
    # The repair closed the turn without call_e's result (REC-1), which comes after the turn
    # (TURN-3), not blamed again for a repair code that would fit no call outside the turn.
    ("a repair result after the repaired turn", _result_after("call_e", _of("turn/end", turn=3)),
     ["REC-1", "TURN-3"]),
    ("a context after the last result",
     _inserted(_after(_result("call_d")), _another_user_message), ["ADJ-4"]),
    ("an interrupted reply with a call",
     _edited(_of("assistant/message", turn=3), _set(("data", "interrupted"), True)),
     ["ABORT-2"]),
    ("a turn numbered past the due one",
     _edited(_of("turn/start", turn=3), _set(("data", "turn"), 4)), ["TURN-1"]),
    # Round two, from a harness writer's bugs (session 28). The turn ends without the result
    # (ADJ-3); the result, under the next turn's numbers, answers no call of its step (ADJ-2,
    # naming that turn/end), and the prompt after it is not blamed for following it (ADJ-4).
    ("a result written into the next turn under its numbers", _result_into_turn_3,
     ["ADJ-3", "ADJ-2"]),
    # An empty citation cites no earlier event in place of the call's record: ORD-2's alone,
    # whose words give the seq to cite (it read LOG-2 too).
    ("a result citing nothing",
     _edited(_result("call_a"), _set(("sourceEventSeqs",), [])), ["ORD-2"]),
    # The reply committed last, after its calls' records and results: each record before it is
    # ORD-1's, and the results answering those records are not blamed again (ADJ-2 said each
    # answered no call of the step).
    ("a reply committed after its calls' results",
     lambda ev: _moved(ev, _at(ev, _of("assistant/message", turn=2)), _at(ev, TURN_2_END_STEP)),
     ["ORD-1"]),
    # Each hook audited after the call it decided was answered (it passed): one per hook.
    ("PreToolUse hooks audited after their call's result", _pre_hooks_after_the_result,
     ["HOOK-4", "HOOK-4"]),
]  # fmt: skip


@pytest.mark.parametrize(("bug", "plant", "rules"), PLANTS, ids=[p[0] for p in PLANTS])
def test_MODEL_1_one_planted_bug_is_blamed_on_its_rule_once(
    tmp_path: Path, bug: str, plant: Plant, rules: list[str]
) -> None:
    """MODEL-1: `check` blames a planted bug on the rule SPEC.md says it breaks, first, and
    reports nothing that only follows from it (the plants' comments say where two rules are)."""
    header, *events = [json.loads(line) for line in BASE.read_text(encoding="utf-8").splitlines()]
    planted = plant(events)
    assert planted != [json.loads(line) for line in BASE.read_text().splitlines()[1:]], bug
    path = tmp_path / "planted.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in (header, *planted)), encoding="utf-8")
    (report,) = check_paths([str(path)])
    assert [found.violation.rule_id for found in report.violations] == rules, [
        found.violation.message for found in report.violations
    ]
    assert report.errors == []


# ---------------------------------------------------------------------------------------------
# The same demo as `loopspec run` writes it: header version 1, each event of a commit of n >= 2
# events marked `unit: [k, n]` (impl/framing.py). LOG-8 is checked there: every commit whole,
# and a reply with calls committed with a tool/call for each. A plant keeps the other events'
# markers as the loop wrote them.


def marked_demo() -> tuple[Event, list[Event]]:
    """The model's demo log (model-demo.jsonl's events) framed in the model's commits."""
    events: list[Event] = marked_model_rows(DEMO_CONFIG, DEMO_COMMANDS)
    header = json.loads(BASE.read_text(encoding="utf-8").splitlines()[0])
    return {**header, "version": 1}, events


def _unit(marker: object) -> Callable[[Event, list[Event]], None]:
    def edit(event: Event, _events: list[Event]) -> None:
        if marker is None:
            del event["unit"]
        else:
            event["unit"] = marker

    return edit


def _reply_committed_alone(events: list[Event]) -> list[Event]:
    """Turn 1's reply ends its commit; its three records are a commit after it."""
    reply = _at(events, _of("assistant/message"))
    for k, event in enumerate(events[reply - 2 : reply + 1], start=1):
        event["unit"] = [k, 3]
    for k, event in enumerate(events[reply + 1 : reply + 4], start=1):
        event["unit"] = [k, 3]
    return events


def _last_record_committed_apart(events: list[Event]) -> list[Event]:
    """Turn 1's reply and two of its records are one commit; call_c's record, a commit by
    itself, comes after it (in the order of the log)."""
    reply = _at(events, _of("assistant/message"))
    for k, event in enumerate(events[reply - 2 : reply + 3], start=1):
        event["unit"] = [k, 5]
    del events[reply + 3]["unit"]
    return events


def _decision_between_two_results(events: list[Event]) -> list[Event]:
    """The approval's answer, a commit by itself, lands between the two results of the commit
    before it (each event where it stood in the order, so only the framing is wrong)."""
    return _moved(events, _at(events, DECIDED), _at(events, _result("call_b")))


def _records_swapped(events: list[Event]) -> list[Event]:
    """call_c's record, the last of its commit, is written before call_b's (markers kept)."""
    return _moved(
        events,
        _at(events, _of("tool/call", callId="call_c")),
        _at(events, _of("tool/call", callId="call_b")),
    )


def _unmarked_user_message(events: list[Event]) -> Event:
    """A user/message written as a commit by itself."""
    message = _another_user_message(events)
    message.pop("unit", None)
    return message


def _both(first: Plant, then: Plant) -> Plant:
    return lambda events: then(first(events))


MARKED_PLANTS: list[tuple[str, Plant, list[str]]] = [
    # The ADJ-2 at call_b's result, which has no record before it, follows from the lost line.
    ("a tool/call lost from its reply's commit", _dropped(_of("tool/call", callId="call_b")),
     ["LOG-8"]),
    ("a reply committed apart from its records", _reply_committed_alone, ["LOG-8"]),
    ("a reply's last record committed after it", _last_record_committed_apart, ["LOG-8"]),
    ("another commit between a commit's events", _decision_between_two_results, ["LOG-8"]),
    ("two events of a commit written in each other's place", _records_swapped, ["LOG-8"]),
    # The lost event breaks its commit (LOG-8), and what it leaves out breaks what the same loss
    # breaks in a dsh log, the same bug, not blamed again up to the next turn/start: the call
    # stays unanswered (ADJ-3 at the turn's end), a step starts inside the open one (STEP-1),
    # later results come while one has none (ORD-3), events come outside a turn (TURN-3 at each
    # of them), a turn starts inside the open one (TURN-1), a reply comes outside a step
    # (STEP-3), records name no reply (ORD-1, ADJ-2), a hook answers no invocation (HOOK-1).
    ("a commit's first event lost", _dropped(_result("call_c")), ["LOG-8"]),
    ("a step/end lost from its commit", _dropped(_of("step/end", turn=1, step=1)), ["LOG-8"]),
    ("a result lost from the middle of its commit", _dropped(_result("call_a")), ["LOG-8"]),
    ("a turn/start lost from its commit", _dropped(_of("turn/start", turn=2)), ["LOG-8"]),
    ("a turn/end lost from its commit", _dropped(_of("turn/end", turn=1)), ["LOG-8"]),
    ("a step/start lost from its commit", _dropped(_of("step/start", turn=1, step=2)),
     ["LOG-8"]),
    ("a reply lost from its commit", _dropped(_of("assistant/message", turn=2, step=1)),
     ["LOG-8"]),
    ("a hook/invoked lost from its commit", _dropped(_of("hook/invoked", handlerId="policy")),
     ["LOG-8"]),
    # A second bug is still reported: in a later turn whatever its rule, and in the turn of the
    # loss when it is about what one event says (a record showing other arguments than the
    # reply, RW-1), which no loss explains.
    ("a step/end lost, and a later turn numbered past the due one",
     _both(_dropped(_of("step/end", turn=1, step=1)),
           _edited(_of("turn/start", turn=3), _set(("data", "turn"), 4))),
     ["LOG-8", "TURN-1"]),
    ("a result lost, and a later interrupted reply with a call",
     _both(_dropped(_result("call_a")),
           _edited(_of("assistant/message", turn=3), _set(("data", "interrupted"), True))),
     ["LOG-8", "ABORT-2"]),
    ("a turn/start lost, and the next turn numbered past the due one",
     _both(_dropped(_of("turn/start", turn=2)),
           _edited(_of("turn/start", turn=3), _set(("data", "turn"), 4))),
     ["LOG-8", "TURN-1"]),
    # A turn/end lost is found missing at the next turn/start, which starts its turn afresh: a
    # bug later in that turn is reported whatever its rule (the whole turn was taken for the hole).
    ("a turn/end lost, and a step of the next turn numbered past the due one",
     _both(_dropped(_of("turn/end", turn=1)),
           _edited(_of("step/start", turn=2, step=2), _set(("data", "step"), 3))),
     ["LOG-8", "STEP-1"]),
    # A commit broken by a line that may be its due event (it carries no marker) has lost
    # nothing there: a bug later in the same turn is reported whatever its rule.
    ("an event of a commit without its marker, and a context between a call and its result",
     _both(_edited(_of("tool/call", callId="call_b"), _unit(None)),
           _inserted(_after(_of("tool/call", callId="call_c")), _unmarked_user_message)),
     ["LOG-8", "ADJ-1"]),
    ("a hook/invoked lost, and a rewrite in tool/call only after it",
     _both(_dropped(_of("hook/invoked", handlerId="policy")),
           _edited(_of("assistant/message", turn=1, step=1), _show_original)),
     ["LOG-8", "RW-1"]),
    ("an event of a commit written without its marker",
     _edited(_of("tool/call", callId="call_b"), _unit(None)), ["LOG-8"]),
    ("a marker naming another size",
     _edited(_of("tool/call", callId="call_b"), _unit([5, 7])), ["LOG-8"]),
    ("a malformed marker", _edited(_of("tool/call", callId="call_b"), _unit([5, 6, 1])),
     ["LOG-8"]),
    # A crash cut the last commit: the harness drops it whole on reopening (a notice).
    ("the last commit torn by a crash",
     lambda ev: ev[: _at(ev, _of("tool/call", callId="call_e"))], []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("bug", "plant", "rules"), MARKED_PLANTS, ids=[p[0] for p in MARKED_PLANTS]
)
def test_LOG_8_one_planted_commit_bug_is_blamed_on_LOG_8_once(
    tmp_path: Path, bug: str, plant: Plant, rules: list[str]
) -> None:
    """LOG-8: on a log that marks its commits, a commit broken in the middle of the log, or a
    reply committed without a call's record, is LOG-8, once, and nothing that only follows from
    it; a commit a crash cut at the end is not a violation."""
    header, events = marked_demo()
    assert any("unit" in event for event in events)
    whole = check_lines(tmp_path / "whole.jsonl", header, events)
    assert (whole.violations, whole.notices, whole.commits_checked) == ([], [], True)
    planted = plant(copy.deepcopy(events))
    assert planted != events, bug
    report = check_lines(tmp_path / "planted.jsonl", header, planted)
    assert [found.violation.rule_id for found in report.violations] == rules, [
        found.violation.message for found in report.violations
    ]
    assert report.errors == []
    # The same report without the clean-event judges, which hand a reply's calls to LOG-8's
    # reader (`CommitUnits.judge_reply`) where it reads them itself otherwise.
    path = tmp_path / "planted.jsonl"
    assert report == check_stream(str(path), io.BytesIO(path.read_bytes()), quick=False)


def check_lines(
    path: Path, header: Event, events: list[Event], *, read_again: bool = True
) -> LogReport:
    """The report of the log of `header` and `events`, written to `path`: checked as a file,
    or (`read_again` False) as a stream check has no file of, as a pipe, which it cannot read
    again to find the lines a copy repeats."""
    path.write_text("".join(json.dumps(e) + "\n" for e in (header, *events)), encoding="utf-8")
    if not read_again:
        return check_stream(str(path), _Pipe(path.read_bytes()))
    (report,) = check_paths([str(path)])
    return report


class _Pipe(io.BytesIO):
    """A log read once, as from a pipe: it cannot seek back (a stream that can is read again,
    as a file is)."""

    def seekable(self) -> bool:
        return False


def _written_again(wanted: Callable[[Event], bool], after: int = 0) -> Plant:
    """The event `wanted` picks written again, marker and all, `after` lines after itself."""

    def plant(events: list[Event]) -> list[Event]:
        at = _at(events, wanted)
        events.insert(at + 1 + after, copy.deepcopy(events[at]))
        return events

    return plant


def _commit_written_again(
    wanted: Callable[[Event], bool], part: tuple[int, int] | None = None
) -> Plant:
    """The commit whose first event `wanted` picks written again right after itself: whole,
    or its events `part` (from, to: 0 its first, as a slice counts)."""

    def plant(events: list[Event]) -> list[Event]:
        at = _at(events, wanted)
        size = events[at]["unit"][1]
        start, stop = part or (0, size)
        events[at + size : at + size] = copy.deepcopy(events[at + start : at + stop])
        return events

    return plant


_REPLY_COMMIT = lambda e: e["type"] == "hook/invoked" and e["unit"] == [1, 6]  # noqa: E731


@pytest.mark.parametrize(
    ("written_again", "seq"),
    [
        (_written_again(_of("tool/call", callId="call_b")), 9),  # event 5 of 6, 6 due
        (_written_again(_of("assistant/message", turn=1, step=1)), 7),
        (_written_again(_of("tool/call", callId="call_c")), 10),  # a commit's last, none open
        (_written_again(_of("user/message")), 2),  # between commits
        (_written_again(_of("assistant/message", turn=1, step=1), after=2), 7),  # its seq kept
        # Whole commits begun with an event the rules keep no seq of: each line of the copy
        # was fed to the rules (ADJ-2 twice; TURN-1 and STEP-1; ORD-1, ADJ-1 and ORD-2 thrice).
        (_commit_written_again(_of("approval/asked")), 11),
        (_commit_written_again(_of("turn/start", turn=1)), 0),
        (_commit_written_again(_REPLY_COMMIT), 5),
        # Part of it: its first 3 events (they were named as the whole 6, and the copy's
        # marker, cut short by the next commit, LOG-8 too); its last 5 (that was LOG-8 alone,
        # a commit begun nowhere, and the copy judged no further).
        (_commit_written_again(_REPLY_COMMIT, (0, 3)), 5),
        (_commit_written_again(_REPLY_COMMIT, (1, 6)), 6),
    ],
    ids=[
        "inside",
        "a reply inside",
        "a commit's last",
        "between commits",
        "the reply later",
        "a commit begun with an approval",
        "the first commit",
        "a commit holding a reply and its records",
        "its first events",
        "its last events",
    ],
)
@pytest.mark.parametrize("read_again", [True, False], ids=["a file", "a pipe"])
def test_LOG_1_LOG_8_an_event_of_a_commit_written_again_is_LOG_1_alone(
    tmp_path: Path, written_again: Plant, seq: int, read_again: bool
) -> None:
    """LOG-1, LOG-8: an event of a version-1 log's commit written again with its marker (as a
    writer resuming may write its last events again) is one LOG-1 naming the repetition, the
    copy judged by no other rule (SPEC LOG-1), inside a commit as between commits; the copy's
    marker, out of place, was LOG-8 too. So is the last commit written again, whole or in
    part, told by its first event or by where its markers place its lines: named as the lines
    the copy holds. From a file, which check reads again to find where the copy's first seq
    was first written, the LOG-1 names the lines repeated and the lines they repeat."""
    header, events = marked_demo()
    planted = written_again(copy.deepcopy(events))
    report = check_lines(tmp_path / "again.jsonl", header, planted, read_again=read_again)
    assert [(found.violation.rule_id, found.violation.seq) for found in report.violations] == [
        ("LOG-1", seq)
    ], [found.violation.message for found in report.violations]
    copies = len(planted) - len(events)
    message = report.violations[0].violation.message
    if read_again:
        line = report.violations[0].line
        first = 2 + next(at for at, event in enumerate(planted) if event["seq"] == seq)
        assert message.startswith(
            f"line {line} repeats line {first}, the event of seq {seq} again (times aside"
            if copies == 1
            else f"lines {line} to {line + copies - 1} repeat lines {first} to "
            f"{first + copies - 1}, the events of seqs {seq} to {seq + copies - 1} again"
        ), message
    elif copies == 1:
        assert "is written again, the same" in message
    elif copies == planted[report.violations[0].line - 2]["unit"][1]:
        assert f"seqs {seq} to {seq + copies - 1} are written again, the same commit" in message
    else:
        k = planted[report.violations[0].line - 2]["unit"][0]
        assert message.startswith(
            f"seqs {seq} to {seq + copies - 1} are written again, events {k} to "
            f"{k + copies - 1} of the commit of 6 begun at seq 5, at the seqs and with the "
            "markers they were first written with"
        )
    assert (report.errors, report.notices) == ([], [])


def test_LOG_1_LOG_8_a_copy_of_a_commit_begun_where_another_broke_off_is_LOG_1_alone(
    tmp_path: Path,
) -> None:
    """LOG-1, LOG-8: turn 1's last commit marked as of 4 events, 3 written, is broken off by
    turn 2's first (LOG-8), which the checker's reader of commits then reads (not its own
    loop); the log ends with that commit written again whole. It was told by its first event
    only where the loop began the commit, so each line of this copy was judged (TURN-1, STEP-1
    beside a LOG-1 'seq 21 where 24 was due'): now one LOG-1 naming its lines."""
    header, events = marked_demo()
    events = copy.deepcopy(events[: _at(events, _of("turn/start", turn=2)) + 3])
    for event in events[-6:-3]:
        event["unit"][1] = 4
    planted = [*events, *copy.deepcopy(events[-3:])]
    for read_again, words in (
        (
            False,
            "seqs 21 to 23 are written again, the same commit of 3 events as where it was "
            "first written, begun with the same turn/start",
        ),
        (True, "lines 26 to 28 repeat lines 23 to 25, the events of seqs 21 to 23 again"),
    ):
        report = check_lines(tmp_path / "again.jsonl", header, planted, read_again=read_again)
        found = [(f.violation.rule_id, f.violation.seq, f.line) for f in report.violations]
        assert found == [("LOG-8", 21, 23), ("LOG-1", 21, 26)], report.violations
        assert report.violations[1].violation.message.startswith(words)


_TAKEN = "where 44 was due: that seq is taken already; "


@pytest.mark.parametrize(
    ("start", "stop", "said", "piped"),
    [
        (
            21,
            44,
            "lines 46 to 68 repeat lines 23 to 45, the events of seqs 21 to 43 again",
            (["LOG-1", "TURN-1"], f"seq 21 {_TAKEN}"),
        ),
        (
            0,
            3,
            "lines 46 to 48 repeat lines 2 to 4, the events of seqs 0 to 2 again",
            (["LOG-1", "TURN-1"], f"seq 0 {_TAKEN}"),
        ),
        (
            28,
            44,
            "lines 46 to 61 repeat lines 30 to 45, the events of seqs 28 to 43 again",
            (["LOG-1"], f"seq 28 {_TAKEN}"),
        ),
        (
            39,
            44,
            "lines 46 to 50 repeat lines 41 to 45, the events of seqs 39 to 43 again",
            (
                ["LOG-1"],
                "seqs 39 to 43 are written again, the same last two commits, of 2 and 3 events, "
                "as where they were first written, begun with the same assistant/message (a "
                "writer that, resuming, wrote its last two commits again)",
            ),
        ),
        (
            39,
            42,
            "lines 46 to 48 repeat lines 41 to 43, the events of seqs 39 to 41 again",
            (
                ["LOG-1"],
                "seqs 39 to 41 are written again, the commit of 2 begun at seq 39 and event 1 of "
                "the last, of 3, at the seqs and with the markers they were first written with",
            ),
        ),
    ],
    ids=[
        "several commits",
        "a commit not the last",
        "from inside a commit",
        "the last two commits",
        "the last two commits in part",
    ],
)
def test_LOG_1_LOG_8_commits_copied_from_earlier_are_one_LOG_1(
    tmp_path: Path, start: int, stop: int, said: str, piped: tuple[list[str], str]
) -> None:
    """LOG-1, LOG-8: the events of seqs `start` to `stop - 1` appended to the marked demo again,
    markers and all: several commits (turns 2 and 3), one not the last (turn 1's first), from
    a commit's third event on, or the last two commits (turn 3's reply and its record, then
    its result, step/end and turn/end), whole or in part. Check read them line by line: a
    LOG-1 and the TURN-1 of a turn begun again (the first commit: and a crash tail), or a
    LOG-8 for the copy's marker out of place, and nothing more. Read again from the file, they
    are one LOG-1 naming the lines repeated and the lines they repeat, the copy judged by no
    other rule. From a pipe, a copy begun inside a commit is the LOG-1 of its taken seq,
    saying where its marker places it, where it was that LOG-8 alone ('its first 2 event(s)
    are missing'); the last two commits, told by the first lines check keeps of them, are one
    LOG-1 naming them, where their lines were judged again (TURN-3 four times and a REC-1).
    A copy begun at an earlier commit's first line is judged line by line from a pipe, its
    LOG-1 saying that check cannot tell whether it copies earlier commits, and why."""
    header, events = marked_demo()
    planted = [*events, *copy.deepcopy(events[start:stop])]
    report = check_lines(tmp_path / "copied.jsonl", header, planted)
    assert [(found.violation.rule_id, found.line) for found in report.violations] == [("LOG-1", 46)]
    assert report.violations[0].violation.message.startswith(f"{said} (times aside")
    assert (report.errors, report.notices) == ([], [])
    report = check_lines(tmp_path / "copied.jsonl", header, planted, read_again=False)
    rules, words = piped
    assert [found.violation.rule_id for found in report.violations] == rules
    message = report.violations[0].violation.message
    assert message.startswith(words), message
    marked = "; the line is marked event 3 of a commit of 7 though none is open: lines written "
    assert (marked in message) == (start == 28), message
    unknown = (
        "; it is marked the first event of a commit whose seqs are all taken: read once (a "
        "pipe), check keeps only the last two commits' first lines and cannot tell whether this "
        "line and those after it copy earlier ones (what they break is then the copy's); check "
        "the log saved to a file"
    )
    assert (unknown in message) == (start in {0, 21}), message


def test_LOG_8_no_line_cut_of_a_marked_log_is_flagged_and_a_flag_stays(tmp_path: Path) -> None:
    """LOG-8, RW-1: the verdict on commit markers is prefix-closed. Cut after any line (inside
    a commit too: a crash's cut), the marked demo has no violation, and a torn last commit is a
    notice; a commit bug, once flagged, is flagged at the same seq by every longer prefix."""
    header, events = marked_demo()
    torn_cuts = 0
    for cut in range(len(events) + 1):
        report = check_lines(tmp_path / "cut.jsonl", header, events[:cut])
        assert report.violations == [], (cut, report.violations[0].violation.message)
        torn = [notice for notice in report.notices if notice.kind == "torn-commit"]
        inside = (
            "unit" in events[cut - 1] and events[cut - 1]["unit"][0] < events[cut - 1]["unit"][1]
        )
        assert len(torn) == (1 if cut and inside else 0), cut
        torn_cuts += len(torn)
    assert torn_cuts > 10
    planted = _reply_committed_alone(copy.deepcopy(events))
    flagged: list[int] = []
    for cut in range(len(planted) + 1):
        report = check_lines(tmp_path / "cut.jsonl", header, planted[:cut])
        seqs = [found.violation.seq for found in report.violations]
        assert seqs in ([], flagged or seqs), cut
        flagged = flagged or seqs
    assert flagged == [_at(planted, _of("assistant/message"))]


@pytest.mark.parametrize(
    ("cut_before", "open_commit"),
    [(_of("tool/call", callId="call_c"), True), (DECIDED, False)],
    ids=["inside a commit", "a commit by itself"],
)
def test_LOG_8_a_torn_last_line_of_a_marked_log_is_the_torn_commit_notice(
    tmp_path: Path, cut_before: Callable[[Event], bool], open_commit: bool
) -> None:
    """LOG-8: on a log that marks its commits, a last line cut off mid-write is part of the
    last commit, which a crash cut and the harness drops whole on reopening (impl/log_reader.py
    drops a torn line as it drops an unfinished commit): one torn-commit notice, no input error
    (it was a torn-tail error, exit 2, where the same crash cutting between lines gave the
    notice, exit 0). The torn line inside a commit is named in that commit's notice; on a version 0
    log, which marks no commits, the notice stands at the torn line."""
    header, events = marked_demo()
    kept = events[: _at(events, cut_before) + 1]
    text = "".join(json.dumps(e) + "\n" for e in (header, *kept))
    path = tmp_path / "torn.jsonl"
    path.write_text(text[: len(text) - 1 - len(json.dumps(kept[-1])) // 2], encoding="utf-8")
    (report,) = check_paths([str(path)])
    assert report.errors == []
    assert report.violations == []
    (torn,) = [notice for notice in report.notices if notice.kind == "torn-commit"]
    assert torn.rule_id == "LOG-8"
    torn_line = len(kept) + 1
    assert f"line {torn_line} stops short" in torn.message
    # The notice stands at the open commit's first line, or at the torn line itself.
    assert torn.line == (
        _at(kept, lambda event: event.get("unit") == [1, 6]) + 2  # lines count the header
        if open_commit
        else torn_line
    ), torn
    assert main(["check", str(path)]) == 0
    # The same cut on a log that does not mark its commits (version 0, as dsh writes) is the
    # notice at the torn line: dsh drops such a line when it reopens the log.
    version_0 = tmp_path / "torn-v0.jsonl"
    version_0.write_text(
        json.dumps({**header, "version": 0}) + "\n" + path.read_text().split("\n", 1)[1]
    )
    (report,) = check_paths([str(version_0)])
    assert report.errors == []
    (torn,) = [notice for notice in report.notices if notice.kind == "torn-commit"]
    assert (torn.line, torn.rule_id) == (torn_line, "LOG-8")
    assert torn.message.endswith(f"checked up to line {torn_line - 1}")
