"""Deterministic tests of model branches that only random programs used to reach.

Found with benchmarks/coverage_owners.py: before these, an empty reply, a crash with no turn open
and a result whose meta carries no diff list were reached only by Hypothesis programs, so the
tests drawing them could not run with the coverage tracer off without the report depending on
what a random run happened to draw. The later ones (a matcher's groups, a path climbing above
the root, a whole double where an integer goes, repair past a record or a result that answers
nothing) were found the same way on d574d9e's model.
"""

from __future__ import annotations

import copy

import attrs
import pytest
from spec_helpers import PLAIN, run, types, wire, with_hooks

from loopspec.model import commands as cmd
from loopspec.model.commands import Crash, ModelReplies, Recover, SubmitUser
from loopspec.model.config import HookSpec, matcher_problem
from loopspec.model.derive import derive_messages
from loopspec.model.events import Event, SurfaceReplace, ToolCallRecorded, ToolResultRecorded
from loopspec.model.facts import FactError, fact_from_wire, message_plain
from loopspec.model.invariants import check_facts
from loopspec.model.json_text import integer_written_as_double
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import TextBlock, ToolCallBlock, UserMessage
from loopspec.model.presenters import diffs_from_meta
from loopspec.model.pure.presentation import normalize_absolute
from loopspec.model.repair import interrupted_turn_closers
from loopspec.model.state import Idle
from loopspec.properties.logcheck.synth import renumber


def test_HIST_1_an_empty_reply_is_logged_but_not_sent_back() -> None:
    """HIST-1: a reply with no blocks is recorded (assistant/message) and closes the turn, but
    the next request's history carries only the user's message: an empty assistant message
    is not part of the surface the model sees again."""
    state = run(PLAIN, [SubmitUser("a"), ModelReplies(())])
    assert types(state.log) == [
        "turn/start",
        "step/start",
        "user/message",
        "assistant/message",
        "step/end",
        "turn/end",
    ]
    (only,) = derive_messages(state.log)
    assert isinstance(only, UserMessage)
    assert only.content == (TextBlock("a"),)


def test_REC_1_recovering_with_no_turn_open_appends_nothing() -> None:
    """REC-1: repair closes the tail turn only if one is open; a crash between turns recovers
    to Idle with the committed log unchanged."""
    finished = run(PLAIN, [SubmitUser("a"), ModelReplies(())])
    recovered = run(PLAIN, [SubmitUser("a"), ModelReplies(()), Crash(), Recover()])
    assert isinstance(recovered.phase, Idle)
    assert recovered.log == finished.log
    assert run(PLAIN, [Crash(), Recover()]).log == run(PLAIN, []).log


def test_VIEW_3_a_result_meta_without_a_diff_list_shows_no_diff() -> None:
    """VIEW-3: meta that is not an object, lacks `diffs` or holds something else there yields
    no diff rather than failing."""
    assert diffs_from_meta(None) == ()
    assert diffs_from_meta(FrozenMap({})) == ()
    assert diffs_from_meta(FrozenMap({"diffs": "not a list"})) == ()
    assert diffs_from_meta(FrozenMap({"diffs": FrozenMap({"path": "a"})})) == ()


@pytest.mark.parametrize(
    ("matcher", "problem"),
    [
        ("(?:Read|Write)", None),
        ("(Read)+", None),
        ("Bash)", "unbalanced ) at 4"),
        ("(a))", "unbalanced ) at 3"),
    ],
)
def test_HOOK_8_a_group_is_portable_and_a_close_without_its_open_is_not(
    matcher: str, problem: str | None
) -> None:
    """HOOK-8: a plain or (?: group opens and closes inside the portable subset (and may be
    quantified after its close); a ) with no group open is named with its place."""
    assert matcher_problem(matcher) == problem


@pytest.mark.parametrize(
    ("path", "normalized"),
    [("/../a", "/a"), ("/..", "/"), ("/w/../../etc", "/etc"), ("/w/./x/..", "/w")],
)
def test_VIEW_4_a_path_climbing_above_the_root_stays_at_the_root(
    path: str, normalized: str
) -> None:
    """VIEW-4: ".." at the root is dropped, as POSIX resolves it, not an error or a segment."""
    assert normalize_absolute(path) == normalized


def test_LOG_4_only_a_double_of_whole_value_is_told_it_was_written_back_as_one() -> None:
    """LOG-4: 1.0 where an integer goes is told why (a reader of every number as a double wrote
    it back); 1.5 and the integer 1 get no such words."""
    said = integer_written_as_double(1.0)
    assert said.startswith(", got 1.0: ")
    assert "as Gson does" in said
    assert integer_written_as_double(1.5) == ""
    assert integer_written_as_double(1) == ""


TWO_READS = ModelReplies(
    (
        ToolCallBlock("c1", "read", '{"file_path":"a"}'),
        ToolCallBlock("c2", "read", '{"file_path":"b"}'),
    )
)


def _two_calls_one_answered() -> tuple[Event, ...]:
    """An open step: c1 and c2 both started (tool/call seqs 4 and 5), only c1 answered."""
    c1_answered = cmd.ToolFinishes("c1", cmd.ToolSucceeded("ok"))
    state = run(PLAIN, [SubmitUser("a"), TWO_READS, c1_answered])
    assert types(state.log)[-3:] == ["tool/call", "tool/call", "tool/result"]
    return state.log


def _replaced(event: Event) -> Event:
    """c1's result, written as a replacement of earlier surface instead of an append."""
    assert isinstance(event, ToolResultRecorded)
    return attrs.evolve(event, surface=SurfaceReplace(0, 1))


def _renamed(event: Event) -> Event:
    """c2's tool/call record, naming a call the reply does not have."""
    assert isinstance(event, ToolCallRecorded)
    return attrs.evolve(event, call_id="c9")


@pytest.mark.parametrize(
    ("edit", "closed"),
    [
        (None, [("c2", (5,))]),
        ((6, _replaced), [("c1", (4,)), ("c2", (5,))]),
        ((5, _renamed), [("c2", None)]),
    ],
    ids=["as-logged", "result-replacing-surface", "record-of-a-call-not-in-the-reply"],
)
def test_REC_1_repair_answers_each_call_of_the_reply_no_appended_result_answered(
    edit: tuple[int, object] | None, closed: list[tuple[str, tuple[int, ...] | None]]
) -> None:
    """REC-1: repair closes every call of the open step's reply without an appended result; a
    result that replaces earlier surface answers none, and a tool/call record of a call the
    reply does not have starts none (c2 stays unstarted, its closer cites no record)."""
    log = _two_calls_one_answered()
    if edit is not None:
        index, change = edit
        assert callable(change)
        log = (*log[:index], change(log[index]), *log[index + 1 :])
    closers = interrupted_turn_closers(log)
    answered = [
        (event.message.result.tool_call_id, event.sources)
        for event in closers
        if isinstance(event, ToolResultRecorded)
    ]
    assert answered == closed
    assert types(closers)[-2:] == ["step/end", "turn/end"]


def _hooks_naming_no_call() -> list[dict[str, object]]:
    """Two calls, a pre and a post hook for each, in the model's order, every hook event naming
    no call as dsh writes them: pre audits at seqs 3-6, c1's post audit at 10-11 and its result
    at 12, c2's post audit at 13-14 and its result at 15."""
    hooks = with_hooks(HookSpec("pre", "PreToolUse"), HookSpec("post", "PostToolUse"))
    program: list[cmd.Command] = [
        SubmitUser("a"),
        TWO_READS,
        cmd.HookAnswers(cmd.Pass()),
        cmd.HookAnswers(cmd.Pass()),
        cmd.ToolFinishes("c1", cmd.ToolSucceeded("ok"), (cmd.PostPass(),)),
        cmd.ToolFinishes("c2", cmd.ToolSucceeded("ok"), (cmd.PostPass(),)),
    ]
    rows = wire(run(hooks, program).log)
    for row in rows:
        if str(row["type"]).startswith("hook/"):
            data = row["data"]
            assert isinstance(data, dict)
            del data["callId"]
    return rows


def test_HOOK_4_HOOK_5_hooks_naming_no_call_are_in_place_until_every_call_has_its_result() -> None:
    """HOOK-4, HOOK-5: a hook event naming no call is late only once every call of its step's
    reply has its result. Pre audits before the reply, c1's post audit before any result and
    c2's after c1's result but before its own are all in place; c2's post audit moved after
    c2's result is HOOK-5's, at its hook/invoked."""
    rows = _hooks_naming_no_call()
    assert [(v.rule_id, v.seq) for v in check_facts(fact_from_wire(row) for row in rows)] == []
    c2_audit = [row for row in rows if row["seq"] in (13, 14)]
    moved = [row for row in rows if row["seq"] not in (13, 14)]
    after_c2_result = next(i for i, row in enumerate(moved) if row["seq"] == 15) + 1
    moved[after_c2_result:after_c2_result] = c2_audit
    late = check_facts(fact_from_wire(row) for row in renumber(moved))
    assert [(v.rule_id, v.seq) for v in late] == [("HOOK-5", 14)]
    said = "after every call of the step has its tool/result (the last at seq 13)"
    assert said in late[0].message


@pytest.mark.parametrize(
    "block",
    [
        {"type": "tool-result", "toolCallId": "c1", "content": [], "isError": False},
        {"type": "tool-call", "id": "c1", "name": "read", "arguments": "{}"},
    ],
    ids=["tool-result", "tool-call"],
)
def test_LOG_4_a_user_message_holding_a_call_s_block_is_read_by_the_model_s_reader(
    block: dict[str, object],
) -> None:
    """LOG-4: a tool-result or tool-call block in a user message is not what check's quick
    reading takes as plain; the model's own reader reads it instead, which takes a well-formed
    one and refuses one without its id, naming the member."""
    (row,) = [o for o in wire(run(PLAIN, [SubmitUser("a")]).log) if o["type"] == "user/message"]
    data = row["data"]
    assert isinstance(data, dict)
    message = {**data, "content": [block]}
    assert not message_plain(message, message["content"], False)
    assert fact_from_wire({**row, "data": message}).type == "user/message"
    unnamed = {k: v for k, v in block.items() if k not in ("toolCallId", "id")}
    with pytest.raises(FactError) as refused:
        fact_from_wire({**row, "data": {**data, "content": [unnamed]}})
    assert refused.value.rule_id == "LOG-4"
    assert "content[0]." in str(refused.value)


def test_ORD_2_a_result_citing_another_call_s_record_names_that_call() -> None:
    """ORD-2: c1's result citing seq 5, c2's tool/call, in place of its own (seq 4) is told
    whose record it cites, as a writer's seq off by one would."""
    rows = wire(_two_calls_one_answered())
    assert rows[6]["sourceEventSeqs"] == [4]
    rows[6]["sourceEventSeqs"] = [5]
    found = [(v.rule_id, v.seq, v.message) for v in check_facts(map(fact_from_wire, rows))]
    assert found == [
        (
            "ORD-2",
            6,
            "result for c1 does not cite its tool/call seq 4 in sourceEventSeqs, which cites seq 5,"
            " the tool/call of c2",
        )
    ]


def test_HOOK_5_a_post_hook_for_a_call_whose_approval_was_rejected_is_blamed() -> None:
    """HOOK-5, DEC-2: a call whose approval was answered "rejected" never ran, so a PostToolUse
    audit for it (put before its error result) is blamed, saying so."""
    hooks = with_hooks(HookSpec("pre", "PreToolUse"), HookSpec("post", "PostToolUse"))
    one_read = ModelReplies((TWO_READS.blocks[0],))
    asked: list[cmd.Command] = [SubmitUser("a"), one_read, cmd.HookAnswers(cmd.Ask())]
    rows = wire(run(hooks, [*asked, cmd.ApprovalAnswers("rejected")]).log)
    decided = ["approval/asked", "approval/decided", "tool/result"]
    assert [row["type"] for row in rows[7:10]] == decided
    post_audit = copy.deepcopy(rows[3:5])  # the pre hook's audit of c1, as the post hook's
    for row in post_audit:
        data = row["data"]
        assert isinstance(data, dict)
        data.update(point="PostToolUse", handlerId="post")
        if row["type"] == "hook/result":
            data["decision"] = "pass"
    rows[9:9] = post_audit
    (found,) = check_facts(map(fact_from_wire, renumber(rows)))
    assert (found.rule_id, found.seq) == ("HOOK-5", 11)
    assert 'its approval was answered "rejected" (seq 8)' in found.message


def test_ADJ_2_a_result_its_turn_ended_without_is_tied_to_that_turn_s_end() -> None:
    """ADJ-2, ADJ-3: a turn that ends inside its step with c2 unanswered is ADJ-3's; c2's result
    in the next turn is ADJ-2's, and its words name the turn/end that lacked it."""
    rows = wire(_two_calls_one_answered())
    late = copy.deepcopy(rows[6])  # c1's result (seq 6), as c2's in turn 2
    late.update(seq=10, sourceEventSeqs=[5])
    data = late["data"]
    assert isinstance(data, dict)
    data["turn"] = 2
    data["message"]["content"][0]["toolCallId"] = data["message"]["source"]["callId"] = "c2"
    at = rows[6]["time"]
    rows += [
        {"type": "turn/end", "seq": 7, "time": at, "data": {"turn": 1, "reason": {"kind": "x"}}},
        {"type": "turn/start", "seq": 8, "time": at, "data": {"turn": 2}},
        {"type": "step/start", "seq": 9, "time": at, "data": {"turn": 2, "step": 1}},
        late,
    ]
    found = check_facts(map(fact_from_wire, rows))
    assert [(v.rule_id, v.seq, v.related) for v in found] == [
        ("TURN-2", 7, ()),
        ("ADJ-3", 7, (3,)),
        ("ADJ-2", 10, (7,)),
    ]
    said = "(call c2's result, which its turn lacked when it ended at seq 7)"
    assert found[-1].message.endswith(said)
