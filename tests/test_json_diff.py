"""A divergence's diff names, in each hunk's header, the events (and ACP messages) it changes
(PROTO-1): the lines of a hunk are a few members of an event's data, its type out of sight."""

from __future__ import annotations

import re

from loopspec.model.commands import Ask, Command, HookAnswers, ModelReplies, SubmitUser
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.json_diff import labelled_json_diff
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.stateful.strategies import TOOLS


def _headers(diff: str) -> list[str]:
    return [line for line in diff.splitlines() if line.startswith("@@")]


def test_PROTO_1_a_hunk_names_the_event_it_changes_with_the_target_s_seq() -> None:
    """PROTO-1: the report of a target whose approval prompt shows the original input had one
    hunk, `"arguments": {"command": "ls"}` against the rewritten input, and nothing saying it
    was the approval/asked event the violation named by its seq."""
    from mutants import MUTANTS, MutantTarget  # noqa: PLC0415 -- the tests' own zoo

    shows_original = next(m for m in MUTANTS if m.name == "ask-shows-original")
    config = LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "bash"),))
    reply = ModelReplies((ToolCallBlock("c1", "bash", '{"command": "ls"}'),))
    ask = HookAnswers(Ask("check", {"command": "ls -l"}))
    program: list[Command] = [SubmitUser("hi"), reply, ask]
    replay = replay_case(lambda: MutantTarget(shows_original), config, program)
    assert replay.divergence is not None
    seq = re.search(r"at its seq (\d+)", replay.divergence.what)
    assert seq is not None, replay.divergence.what
    (header,) = _headers(replay.divergence.diff())
    assert re.fullmatch(
        rf"@@ \S+ \S+ @@ events\[\d+\] approval/asked \(the target's seq {seq[1]}\)", header
    ), header


def _update(status: str) -> dict[str, object]:
    update = {"sessionUpdate": "tool_call", "status": status}
    return {"method": "session/update", "params": {"update": update}}


def test_PROTO_1_hunk_labels_name_both_sides_elements_and_what_one_side_alone_has() -> None:
    """PROTO-1: an element both sides change is named once; one only the target has (an event
    it added) or only the model has is named as its; an ACP message by method and update
    kind; a list of plain values (commits) by index."""
    model = {
        "commits": [1, 2],
        "events": [{"data": {"turn": 1}, "type": "turn/start"}],
        "presented": [_update("in_progress")],
    }
    events: list[object] = [
        {"data": {"turn": 2}, "type": "turn/start"},
        {"data": {"turn": 2, "step": 1}, "type": "step/start"},
    ]
    target = {"commits": [1, 3], "events": events, "presented": [_update("failed")]}
    headers = _headers(labelled_json_diff(model, target, target_seqs=[5, 6]))
    assert [header.partition(" @@ ")[2] for header in headers] == [
        "commits[1], events[0] turn/start (the target's seq 5), "
        "the target's events[1] step/start (seq 6)",
        "presented[0] session/update tool_call",
    ], headers
    dropped = {**target, "events": events[:1]}
    (header,) = _headers(labelled_json_diff(target, dropped))
    assert header.endswith(" @@ the model's events[1] step/start"), header
    assert labelled_json_diff(model, model) == ""


def test_HIST_1_a_hunk_in_the_history_names_the_message_it_changes() -> None:
    """HIST-1: a hunk inside `history.appended` (the messages a command added to the next model
    request) was named nothing, its header a bare `@@ -66,4 +83,17 @@`, while the event hunk
    above it named its event: a reader could not tell which part of the observation it was."""

    def message(text: str) -> dict[str, object]:
        return {"content": [{"text": text, "type": "text"}], "role": "user"}

    event = {"data": {"turn": 1}, "type": "turn/start"}
    model = {"events": [event], "history": {"appended": [message("a")], "kept": 0}}
    target = {
        "events": [event],
        "history": {"appended": [message("a"), message("")], "kept": 0},
    }
    (header,) = _headers(labelled_json_diff(model, target))
    assert header.endswith(" @@ the target's history.appended[1] role user"), header
    changed = {**target, "history": {"appended": [message("b")], "kept": 0}}
    (header,) = _headers(labelled_json_diff(model, changed))
    assert header.endswith(" @@ history.appended[0] role user"), header
