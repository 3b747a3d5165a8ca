"""Fresh bugs of session 22, blamed on the rule their author must fix, in words that say what.

Session 22 wrote thirty more wrong loops outside the project (copies of `impl/` and of
`examples/js-loop/`, each with one bug) and ran `loopspec conform` on each. Where the report
named another rule than the one the bug breaks, or said it in words that did not tell the
author what was wrong, the difference is planted here in the model and a fixed program that
shows it is replayed:

- crash repair whose results cite no tool/call, or that answers a call already answered: read
  from the target's own log as ORD-2 (a result that does not cite its call) or ADJ-2 (a second
  result) where the repair is what is wrong (REC-1);
- a loop that reopens after a crash without remembering the calls its log shows: the result
  of a bash call shown before the crash is presented as raw content, read as a loop unaware of
  terminals (ACP-2) where the reopened presenter forgot the call's card (VIEW-2);
- hook inputs merged wrongly: an ask that drops the input another hook supplied with an allow
  (read as readers that disagree, RW-1, or a missing sidecar, RW-2), where the last input in
  configured order wins whatever the decisions (HOOK-3); an input the model refuses recorded
  as the call's arguments (read from the target's log as hooks run for a call whose arguments
  are not an object, HOOK-4, or as RW-1) where a refused input is never applied (HOOK-6); an
  earlier input judged though a later one replaces it (RW-1), which is also what an earlier
  input winning looks like: HOOK-3, naming HOOK-6;
- a whitespace-only context dropped as empty: ADJ-4 now says it is not empty;
- a PostToolUse hook's context for a body that settled after an abort, dropped: ADJ-4 now says
  it is parked for the next turn with the rest;
- a max-tokens reply whose message keeps its calls: check's ADJ-3 now names STEP-4 too;
- a read title that counts offset 0 as line 0: VIEW-2 said only "the card is the presenter's
  view of the call's arguments"; it now says how a read's title writes its range;
- messages queued while a turn ran that ended before another step/start (a failed request):
  dropped, or delivered after the next turn's own message. ADJ-4 said "queued messages are
  delivered after the next step/start", which says nothing of a turn that ended first; the
  report now says such messages are parked for the next turn's first step, before the user's;
- a failed request's turn/end that leaves out an empty message: read as a turn ended with the
  wrong reason (TURN-5, which asks for the reason's kind alone) where the error it carries is
  TEXT-2's;
- a completed reply without calls that ends the turn while a message is queued: STEP-4 said
  "how a reply ends decides whether the turn goes on"; it now says a message was queued, so the
  next step starts with it;
- a deny's result that joins an allowing hook's reason, a cancelled approval worded as a
  rejection, and a batch whose results wait until every call settled: named right (DEC-1,
  DEC-2, ORD-3), in words ("a denied call's result is one text block Error: <reason>", "has
  its own reason", "ready results commit in order") that now say which hooks' reasons, which
  words, and when a result commits;
- titles made relative by cutting the session cwd's text off the front: never caught, as no
  row of SPEC.md section 12 and no random program gave a path with `.`, `..` or an empty
  segment; section 12 now has such a row, which conform plays before its random search.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from bridge_doubles import card_of, damaged
from fresh_bugs import (
    FreshBug,
    assert_blamed_on,
    assert_passes_on_model,
    assert_report_says,
    copied,
    names,
    renumbered,
    report,
    row_named,
)
from test_blame_hook_merge_bugs import IgnoresSuppliedInputs

from loopspec.model import rewrite
from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import StepStarted, ToolCallRecorded, ToolResultRecorded
from loopspec.model.jsonvalue import dumps
from loopspec.model.messages import ToolCallBlock
from loopspec.model.pure.presentation import workspace_relative
from loopspec.model.rewrite import Resolution
from loopspec.model.state import DENY, HookVote
from loopspec.model.wording import REWRITE_REFUSED
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.presentation_sweep import sweep_presentation
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.logcheck.checker import check_paths

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
BASH = ToolSpec("bash", required_keys=("command",))
READS = LoopConfig(tools=(READ,), max_parallel=2)
SHELL = LoopConfig(tools=(BASH,))
NOTHING = LoopConfig()


def read_call(call_id: str, path: str = "a") -> ToolCallBlock:
    return ToolCallBlock(call_id, "read", json.dumps({"file_path": path}))


BASH_CALL = ToolCallBlock("c1", "bash", '{"command":"ls"}')


class RepairCitesNoCall(ModelTarget):
    """The model, except that crash repair's results carry no `sourceEventSeqs`."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, Recover):
            return observed
        events = copied(observed)
        for event in events:
            event.pop("sourceEventSeqs", None)
        return attrs.evolve(observed, events=tuple(events))


class RepairAnswersAnsweredCalls(ModelTarget):
    """The model, except that crash repair also answers the open step's calls that already
    have a result (it reads a result's call id where none is, so it forgets none)."""

    def apply(self, command: Command) -> Observation:
        answered = self._answered_in_open_step() if isinstance(command, Recover) else []
        observed = super().apply(command)
        if not answered:
            return observed
        events = copied(observed)
        repaired = next(e for e in events if e["type"] == "tool/result")
        extra = []
        for call_id, call_seq in answered:
            again = json.loads(json.dumps(repaired).replace(_call_id_of(repaired), call_id))
            again["sourceEventSeqs"] = [call_seq]
            extra.append(again)
        return renumbered(observed, [*extra, *events])

    def _answered_in_open_step(self) -> list[tuple[str, int]]:
        assert self.state is not None
        calls: dict[str, int] = {}
        answered: list[tuple[str, int]] = []
        for event in self.state.log:
            if isinstance(event, StepStarted):
                calls, answered = {}, []
            elif isinstance(event, ToolCallRecorded):
                calls[event.call_id] = event.seq
            elif isinstance(event, ToolResultRecorded) and event.call_id in calls:
                answered.append((event.call_id, calls[event.call_id]))
        return answered


def _call_id_of(result: dict[str, Any]) -> str:
    call_id: str = result["data"]["message"]["source"]["callId"]
    return call_id


def _raw(update: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    shown: dict[str, Any] = json.loads(json.dumps(update))
    shown["params"]["update"]["content"] = [
        {"type": "content", "content": {"type": "text", "text": text}} for text in texts
    ]
    return shown


def _results_shown_raw(observed: Observation) -> Observation:
    """`observed` with each result update showing its result's text blocks as they are (an
    update paired with its result by call id: zipped in order, a result of two blocks raised)."""
    texts = {
        event["data"]["message"]["content"][0]["toolCallId"]: [
            block["text"]
            for block in event["data"]["message"]["content"][0]["content"]
            if block.get("type") == "text"
        ]
        for event in observed.events
        if event["type"] == "tool/result"
    }
    presented = tuple(
        _raw(item, texts[update["toolCallId"]])
        if (update := item["params"].get("update", {})).get("sessionUpdate") == "tool_call_update"
        and update.get("toolCallId") in texts
        else item
        for item in observed.presented or ()
    )
    return attrs.evolve(observed, presented=presented)


class ForgetsShownCallsOnReopen(ModelTarget):
    """The model, except that after a crash its presenter starts empty: the result of a call
    shown before the crash is presented as a call it does not know, its raw content."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        return _results_shown_raw(observed) if isinstance(command, Recover) else observed


class NeverFences(ModelTarget):
    """The model, except that every result update shows the raw content (no console fence)."""

    def apply(self, command: Command) -> Observation:
        return _results_shown_raw(super().apply(command))


def _opening_messages(observed: Observation) -> list[int]:
    return [i for i, e in enumerate(observed.events) if e["type"] == "user/message"]


class DropsParkedMessages(ModelTarget):
    """The model, except that a turn opens with the user's own message only: what the turn
    before left queued is dropped (a failed request clears the inbox)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        at = _opening_messages(observed)
        if not isinstance(command, SubmitUser) or len(at) < 2:
            return observed
        events = [e for i, e in enumerate(copied(observed)) if i not in at[:-1]]
        return renumbered(observed, events)


class ParksAfterTheUser(ModelTarget):
    """The model, except that a turn opens with the user's own message first, then what the
    turn before left queued."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        at = _opening_messages(observed)
        if not isinstance(command, SubmitUser) or len(at) < 2:
            return observed
        events = copied(observed)
        contents = [events[i]["data"] for i in at]
        for i, data in zip(at, [contents[-1], *contents[:-1]], strict=True):
            events[i]["data"] = data
        return attrs.evolve(observed, events=tuple(events))


class EndsTurnDespiteQueue(ModelTarget):
    """The model, except that a completed reply without calls always ends the turn, leaving
    what was queued to the next turn."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        starts = [i for i, e in enumerate(events) if e["type"] == "step/start"]
        if not isinstance(command, ModelReplies) or command.tool_calls or not starts:
            return observed
        turn = events[starts[0]]["data"]["turn"]
        ended = {"type": "turn/end", "seq": 0, "time": events[0]["time"]}
        ended["data"] = {"turn": turn, "reason": {"kind": "completed"}}
        return renumbered(observed, [*events[: starts[0]], ended])


_RESOLVE = rewrite.resolve_call


def _asks_keep_their_own_inputs(
    call: ToolCallBlock, votes: tuple[HookVote, ...], config: LoopConfig
) -> Resolution:
    # Only the winning decision's hooks may supply the input: where a hook asks and none
    # denies, an allow's input is dropped, an ask's own kept.
    verdicts = [vote.verdict for vote in votes]
    if any(isinstance(v, Ask) for v in verdicts) and not any(isinstance(v, Deny) for v in verdicts):
        votes = tuple(
            attrs.evolve(vote, verdict=attrs.evolve(vote.verdict, updated_input=None))
            if isinstance(vote.verdict, Allow)
            else vote
            for vote in votes
        )
    return _RESOLVE(call, votes, config)


class AskDropsAllowInputs(ModelTarget):
    """The model, except that when a hook asks, an input another hook supplied with an allow
    is dropped (the input is taken from the hooks of the winning decision)."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "resolve_call", _asks_keep_their_own_inputs)
            return super().apply(command)


def _supplied(votes: tuple[HookVote, ...]) -> list[tuple[str, Any]]:
    inputs = [(vote.handler_id, rewrite.supplied_input(vote.verdict)) for vote in votes]
    return [(hook, value) for hook, value in inputs if value is not None]


def _records_refused_input(
    call: ToolCallBlock, votes: tuple[HookVote, ...], config: LoopConfig
) -> Resolution:
    resolved = _RESOLVE(call, votes, config)
    supplied = _supplied(votes)
    if resolved.decision == DENY and supplied and "rewrote the input" in str(resolved.reason):
        return attrs.evolve(resolved, arguments=dumps(supplied[-1][1]))
    return resolved


def _judges_every_input(
    call: ToolCallBlock, votes: tuple[HookVote, ...], config: LoopConfig
) -> Resolution:
    tool = config.tool(call.name)
    for hook, value in _supplied(votes):
        problem = None if tool is None else tool.input_problem(value)
        if problem is not None:
            refused = REWRITE_REFUSED.format(hook=hook, tool=call.name, problem=problem)
            return Resolution(call.arguments, None, DENY, refused)
    return _RESOLVE(call, votes, config)


class RecordsRefusedInput(ModelTarget):
    """The model, except that a call refused for a hook's input records that input as its
    arguments (reply and tool/call) instead of the model's."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "resolve_call", _records_refused_input)
            return super().apply(command)


class JudgesReplacedInputs(ModelTarget):
    """The model, except that every input a hook supplied is judged, also one a later hook's
    input replaces: the first unacceptable one refuses the call."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "resolve_call", _judges_every_input)
            return super().apply(command)


class TrimsContexts(ModelTarget):
    """The model, except that a context of only whitespace is dropped as if empty."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = [
            e
            for e in copied(observed)
            if not (
                e["type"] == "user/message"
                and e["data"]["source"].get("kind") == "plugin"
                and not e["data"]["content"][0]["text"].strip()
            )
        ]
        return renumbered(observed, events)


class LeavesOutEmptyErrorMessages(ModelTarget):
    """The model, except that a failed request's turn/end leaves out an empty message."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        for event in events:
            error = (
                event["data"].get("reason", {}).get("error")
                if event["type"] == "turn/end"
                else None
            )
            if isinstance(error, dict) and error.get("message") == "":
                del error["message"]
        return attrs.evolve(observed, events=tuple(events))


class DeniesWithEveryReason(ModelTarget):
    """The model, except that a denied call's result joins every hook's reason, the allowing
    and asking hooks' too."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        for event in events:
            if event["type"] == "tool/result":
                block = event["data"]["message"]["content"][0]["content"][0]
                block["text"] = block["text"].replace("Error: denied", "Error: fine")
        return attrs.evolve(observed, events=tuple(events))


class CancelledReadsRejected(ModelTarget):
    """The model, except that an approval answered cancelled is worded as a rejection."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        text = json.dumps(list(observed.events))
        cancelled = "the approval request for tool read was cancelled"
        events = json.loads(text.replace(cancelled, "the user rejected tool read"))
        return attrs.evolve(observed, events=tuple(events))


class CommitsTheBatchWhole(ModelTarget):
    """The model, except that no result commits before every call of the batch has settled
    (shown here at the first result the model commits before its step ends)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        types = [event["type"] for event in observed.events]
        if isinstance(command, ToolFinishes) and "tool/result" in types and "step/end" not in types:
            return attrs.evolve(observed, events=(), commits=(), atomic=(), presented=())
        return observed


class DropsContextsAfterAnAbort(ModelTarget):
    """The model, except that the contexts an aborted turn leaves queued (a PostToolUse
    hook's, for a body that settled after the abort) are dropped with the turn."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, SubmitUser):
            return observed
        events = [
            e
            for e in copied(observed)
            if not (e["type"] == "user/message" and e["data"]["source"].get("kind") == "plugin")
        ]
        return renumbered(observed, events)


GREP = ToolSpec("grep", concurrency_safe=True, required_keys=("pattern",))
TWO_PRE_HOOKS = LoopConfig(
    tools=(READ, GREP),
    hooks=(HookSpec("everything", "PreToolUse"), HookSpec("late", "PreToolUse", ".*")),
)
ONE_PRE_HOOK = LoopConfig(
    tools=(READ, GREP),
    hooks=(HookSpec("late", "PreToolUse", ".*"),),
)
ASKED = LoopConfig(tools=(READ,), hooks=(HookSpec("late", "PreToolUse", ".*"),))
POST_HOOKED = LoopConfig(tools=(READ,), hooks=(HookSpec("after", "PostToolUse"),))
POST_HOOKED_TWICE = LoopConfig(
    tools=(READ,), hooks=(HookSpec("after", "PostToolUse"), HookSpec("review", "PostToolUse"))
)
GREP_CALL = ToolCallBlock("c1", "grep", '{"pattern":"x"}')


def _hooked(call: ToolCallBlock, *answers: HookAnswers) -> tuple[Command, ...]:
    return (SubmitUser("hi"), ModelReplies((call,)), *answers)


QUEUED_THEN_FAILED = (SubmitUser("a"), SubmitUser("b"), ModelFails("down"), SubmitUser("c"))

PROGRAMS: list[FreshBug] = [
    (
        "crash repair's results cite no tool/call",
        RepairCitesNoCall,
        READS,
        (SubmitUser("hi"), ModelReplies((read_call("c1"),)), Crash(), Recover()),
        "REC-1",
    ),
    (
        "crash repair answers a call already answered",
        RepairAnswersAnsweredCalls,
        READS,
        (
            SubmitUser("hi"),
            ModelReplies((read_call("c1"), read_call("c2", "b"))),
            ToolFinishes("c1", ToolSucceeded("a")),
            Crash(),
            Recover(),
        ),
        "REC-1",
    ),
    (
        "a reopened loop shows a result of a call shown before the crash raw",
        ForgetsShownCallsOnReopen,
        SHELL,
        (SubmitUser("hi"), ModelReplies((BASH_CALL,)), Crash(), Recover()),
        "VIEW-2",
    ),
    (
        "a loop that never fences a bash result, with no crash",
        NeverFences,
        SHELL,
        (SubmitUser("hi"), ModelReplies((BASH_CALL,)), ToolFinishes("c1", ToolSucceeded("a"))),
        "ACP-2",
    ),
    (
        "messages a failed turn left queued are dropped",
        DropsParkedMessages,
        NOTHING,
        QUEUED_THEN_FAILED,
        "ADJ-4",
    ),
    (
        "messages a failed turn left queued follow the user's own",
        ParksAfterTheUser,
        NOTHING,
        QUEUED_THEN_FAILED,
        "ADJ-4",
    ),
    (
        "an ask drops the input an earlier allow supplied",
        AskDropsAllowInputs,
        TWO_PRE_HOOKS,
        _hooked(
            read_call("c1"),
            HookAnswers(Allow(updated_input={"file_path": "b"})),
            HookAnswers(Ask()),
        ),
        "HOOK-3",
    ),
    (
        "an ask drops the input a later allow supplied",
        AskDropsAllowInputs,
        TWO_PRE_HOOKS,
        _hooked(
            read_call("c1"),
            HookAnswers(Ask()),
            HookAnswers(Allow(updated_input={"file_path": "b"})),
        ),
        "HOOK-3",
    ),
    (
        "an ask drops an allow's input equal to the model's own",
        AskDropsAllowInputs,
        TWO_PRE_HOOKS,
        _hooked(
            read_call("c1"),
            HookAnswers(Allow(updated_input={"file_path": "a"})),
            HookAnswers(Ask()),
        ),
        "HOOK-3",
    ),
    (
        "a loop that applies no hook's input, one hook",
        IgnoresSuppliedInputs,
        ONE_PRE_HOOK,
        _hooked(read_call("c1"), HookAnswers(Allow(updated_input={"file_path": "b"}))),
        "RW-2",
    ),
    (
        "a refused input that is no object recorded as the call's arguments",
        RecordsRefusedInput,
        ONE_PRE_HOOK,
        _hooked(GREP_CALL, HookAnswers(Allow(updated_input="not an object"))),
        "HOOK-6",
    ),
    (
        "a refused input missing a key recorded as the call's arguments",
        RecordsRefusedInput,
        ONE_PRE_HOOK,
        _hooked(GREP_CALL, HookAnswers(Allow(updated_input={}))),
        "HOOK-6",
    ),
    (
        "an input a later hook replaces is judged",
        JudgesReplacedInputs,
        TWO_PRE_HOOKS,
        (
            SubmitUser("hi"),
            ModelReplies((read_call("c1"), ToolCallBlock("c2", "grep", '{"pattern":"x"}'))),
            HookAnswers(Pass()),
            HookAnswers(Pass()),
            HookAnswers(Allow(updated_input="not an object")),
            HookAnswers(Allow(updated_input={"pattern": "y"})),
        ),
        "HOOK-3",
    ),
    (
        "an input a later hook replaces is judged, its refusal in the same command",
        JudgesReplacedInputs,
        TWO_PRE_HOOKS,
        _hooked(
            GREP_CALL,
            HookAnswers(Allow(updated_input="not an object")),
            HookAnswers(Allow(updated_input={"pattern": "y"})),
        ),
        "HOOK-3",
    ),
    # Both inputs unacceptable (seeds 34 and 35 of 30-49): refused either way, the hook named
    # tells which was judged.
    (
        "both hooks' inputs unacceptable, the earlier judged",
        JudgesReplacedInputs,
        TWO_PRE_HOOKS,
        _hooked(
            GREP_CALL,
            HookAnswers(Allow(updated_input={})),
            HookAnswers(Allow(updated_input={})),
        ),
        "HOOK-6",
    ),
    (
        "a whitespace-only PostToolUse context dropped",
        TrimsContexts,
        POST_HOOKED,
        (
            SubmitUser("hi"),
            ModelReplies((read_call("c1"),)),
            ToolFinishes("c1", ToolSucceeded("a"), (PostContext(" "),)),
        ),
        "ADJ-4",
    ),
    # The same loop beside a block (seed 32 of 30-49): a block keeps its hooks' contexts, so
    # a probe tells the loop trimming it from one dropping them (DEC-3, which it read as).
    (
        "a blocked result's whitespace-only hook context dropped",
        TrimsContexts,
        POST_HOOKED_TWICE,
        (
            SubmitUser("hi"),
            ModelReplies((read_call("c1"),)),
            ToolFinishes("c1", ToolSucceeded("a"), (PostBlock("no"), PostContext(" "))),
        ),
        "ADJ-4",
    ),
    (
        "a deny's result with an allowing hook's reason",
        DeniesWithEveryReason,
        TWO_PRE_HOOKS,
        _hooked(read_call("c1"), HookAnswers(Allow(reason="fine")), HookAnswers(Deny(""))),
        "DEC-1",
    ),
    (
        "a cancelled approval worded as a rejection",
        CancelledReadsRejected,
        ASKED,
        (*_hooked(read_call("c1"), HookAnswers(Ask())), ApprovalAnswers("cancelled")),
        "DEC-2",
    ),
    (
        "a batch's results held back until every call settled",
        CommitsTheBatchWhole,
        READS,
        (
            SubmitUser("hi"),
            ModelReplies((read_call("c1"), read_call("c2", "b"))),
            ToolFinishes("c1", ToolSucceeded("a")),
        ),
        "ORD-3",
    ),
    (
        "a failed request's empty message left out of its turn/end",
        LeavesOutEmptyErrorMessages,
        NOTHING,
        (SubmitUser("hi"), ModelFails("", "OVERLOADED")),
        "TEXT-2",
    ),
    (
        "a completed reply without calls ends the turn while a message is queued",
        EndsTurnDespiteQueue,
        NOTHING,
        (SubmitUser("a"), SubmitUser("b"), ModelReplies(())),
        "STEP-4",
    ),
    # Its first result a failure (19 of seeds 30-49): VIEW-2 for a view dropping the terminal
    # of an error alone, where a probe shows a success raw too.
    (
        "a loop never fencing output shows a failed result",
        NeverFences,
        SHELL,
        (SubmitUser("hi"), ModelReplies((BASH_CALL,)), ToolFinishes("c1", ToolFailed("no"))),
        "ACP-2",
    ),
    # ... a later call of the reply refused at the gate, its result last (the probe re-sent
    # that call, answered at once; seeds 35-39).
    (
        "a loop never fencing output shows a denial beside an invalid call",
        NeverFences,
        LoopConfig(tools=(BASH,), hooks=(HookSpec("guard", "PreToolUse", "bash"),)),
        (
            SubmitUser("hi"),
            ModelReplies((BASH_CALL, ToolCallBlock("c2", "bash", "not json"))),
            HookAnswers(Deny("")),
        ),
        "ACP-2",
    ),
    # ... a read of the reply still running when the denial's result shows (the probe sent its
    # reply to a target still waiting on that read, refused, and kept VIEW-2; seed 35).
    (
        "a loop never fencing output shows a denial while a read runs",
        NeverFences,
        LoopConfig(
            tools=(READ, BASH),
            hooks=(HookSpec("guard", "PreToolUse", "bash|write"),),
            max_parallel=2,
        ),
        (
            SubmitUser(""),
            ModelReplies((BASH_CALL, read_call("c2"))),
            HookAnswers(Deny("")),
        ),
        "ACP-2",
    ),
    # ... its one result crash repair's, the call shown before the crash (seed 66 of 50-69): a
    # reopened loop forgetting its log's calls (VIEW-2) shows a live success fenced, this raw.
    (
        "a loop never fencing output shows a result repaired after a crash",
        NeverFences,
        SHELL,
        (SubmitUser("hi"), ModelReplies((BASH_CALL,)), Crash(), Recover()),
        "ACP-2",
    ),
]


@pytest.mark.parametrize("row", PROGRAMS, ids=names(PROGRAMS))
def test_MODEL_1_a_fresh_bug_of_round_3_is_blamed_on_the_rule_its_author_must_fix(
    row: FreshBug,
) -> None:
    """MODEL-1 (REC-1, VIEW-2, ADJ-4, STEP-4): the first divergence names the rule broken."""
    assert_blamed_on(row)


@pytest.mark.parametrize("row", PROGRAMS, ids=names(PROGRAMS))
def test_MODEL_1_the_round_3_programs_pass_on_the_model(row: FreshBug) -> None:
    """MODEL-1: control: without the bug, no program diverges."""
    assert_passes_on_model(row)


def test_REC_1_a_repair_result_that_cites_no_call_says_what_repair_writes() -> None:
    """REC-1: the report names the broken citation and what crash repair appends."""
    what = report(*PROGRAMS[0][1:4])
    assert "does not cite its tool/call" in what, what
    assert "citing its tool/call when one was recorded" in what, what


def test_VIEW_2_a_forgotten_card_after_a_reopen_is_named() -> None:
    """VIEW-2: the report says the call was shown before the crash and its card was a
    terminal."""
    what = report(*PROGRAMS[2][1:4])
    assert "shown before the crash" in what, what
    assert "raw content" in what, what


def test_ACP_2_a_loop_never_fencing_a_result_after_a_reopen_is_told_by_a_live_success() -> None:
    """ACP-2: the report says which result showed raw and that a live success shows raw too."""
    row = row_named(PROGRAMS, "a loop never fencing output shows a result repaired after a crash")
    what = report(*row[1:4])
    assert "raw content of call c1's result, its card shown before the crash, and" in what, what
    assert "shows a successful result of that tool raw too" in what, what


@pytest.mark.parametrize("program", [PROGRAMS[4], PROGRAMS[5]], ids=["dropped", "after"])
def test_ADJ_4_messages_a_failed_turn_left_queued_are_parked(program: Any) -> None:
    """ADJ-4: the report says how the last turn ended and where its queued messages go."""
    _name, target, config, commands, _rule = program
    what = report(target, config, commands)
    assert 'ended "error" before another step/start' in what, what
    assert "before the user's own message" in what, what


def test_STEP_4_a_reply_that_ends_the_turn_with_a_message_queued_says_so() -> None:
    """STEP-4: the report says a message was queued, so the next step starts with it."""
    assert_report_says(
        PROGRAMS, "a completed reply without calls", "a message was queued during the step"
    )


@pytest.mark.parametrize("name", ["an ask drops the input an earlier", "an ask drops the input a"])
def test_HOOK_3_an_ask_keeps_another_hook_s_input(name: str) -> None:
    """HOOK-3: the report names the hook that asked, the one that supplied the input, and the
    other reading (a loop that applies no input at all)."""
    said = ("asked about call c1 without an input", "only a deny discards", "(RW-1)")
    assert_report_says(PROGRAMS, name, *said)


def test_HOOK_6_a_refused_input_recorded_says_it_is_never_applied() -> None:
    """HOOK-6: the report says the input is refused, never applied, naming the hook."""
    assert_report_says(
        PROGRAMS,
        "a refused input that is no object",
        "the input hook late supplied",
        "refused, never applied",
    )


def test_HOOK_6_a_replaced_input_is_not_judged() -> None:
    """HOOK-6 (HOOK-3): the report names the hook whose input was judged though a later one
    replaced it, and the other reading: the earlier input won."""
    assert_report_says(
        PROGRAMS,
        "an input a later hook replaces",
        "hook everything supplied an input its tool cannot take",
        "only the input in effect is judged (HOOK-6)",
        "the last input in configured order wins",
    )
    assert_report_says(
        PROGRAMS,
        "an input a later hook replaces is judged, its",
        "only the input in effect, the last one supplied, is judged (HOOK-6)",
    )
    assert_report_says(
        PROGRAMS,
        "both hooks' inputs unacceptable",
        "whose input is in effect, hook late's, the last supplied in configured order (HOOK-3): "
        "the target refuses hook everything's",
    )


def test_ADJ_4_a_whitespace_context_is_delivered_untrimmed() -> None:
    """ADJ-4: the report says a whitespace-only context is not empty."""
    assert_report_says(
        PROGRAMS,
        "a whitespace-only PostToolUse context",
        "a context of only whitespace is not empty",
    )
    assert_report_says(
        PROGRAMS,
        "a blocked result's whitespace-only hook context",
        "a context of only whitespace is not empty",
        "also loses this context given with no block",
    )


def test_DEC_1_a_deny_s_reason_is_the_denying_hooks_alone() -> None:
    """DEC-1: the report names the denying hook and says no other hook's reason is joined."""
    assert_report_says(
        PROGRAMS, "a deny's result with an allowing", "the denying hook late", "(no other hook's)"
    )


def test_DEC_2_a_cancelled_approval_s_words_are_shown() -> None:
    """DEC-2: the report quotes the words a cancelled approval's result has."""
    assert_report_says(
        PROGRAMS,
        "a cancelled approval worded",
        '"Error: the approval request for tool read was cancelled"',
    )


def test_ORD_3_a_result_commits_once_it_and_the_earlier_ones_are_ready() -> None:
    """ORD-3: the report says a result does not wait for the whole batch."""
    assert_report_says(
        PROGRAMS, "a batch's results held back", "not when the whole batch has settled"
    )


class PrefixRelativeTitles(ModelTarget):
    """The model, except that a read card's title names its path relative to the session cwd
    by cutting the cwd's text off the front (`/workspace/` + rest), with no lexical resolution
    of `.`, `..` and empty segments."""

    def apply(self, command: Command) -> Observation:
        return damaged(super().apply(command), self._prefix_cut)

    @staticmethod
    def _prefix_cut(message: dict[str, Any]) -> None:
        card = card_of(message)
        path = (card.get("rawInput") or {}).get("file_path") if card.get("kind") == "read" else None
        relative = workspace_relative(path, "/workspace") if isinstance(path, str) else ""
        if isinstance(path, str) and relative and path.startswith("/workspace/"):
            card["title"] = card["title"].replace(relative, path.removeprefix("/workspace/"))


def test_VIEW_4_a_title_made_relative_without_resolving_dot_segments_is_caught() -> None:
    """VIEW-4: SPEC.md section 12 has a row whose path holds `.`, `..` and an empty segment,
    which conform plays before its random programs (none of which draws such a path): a
    title made relative by cutting the cwd's text off is found there and blamed on VIEW-4."""
    with pytest.raises(DivergenceFound) as found:
        sweep_presentation(PrefixRelativeTitles, frozenset(CAPABILITIES))
    assert found.value.divergence.rule_id == "VIEW-4", found.value
    assert "/workspace/./src/..//a.txt" in str(found.value), found.value


def test_ADJ_4_a_hook_context_after_an_abort_is_parked() -> None:
    """ADJ-4: a PostToolUse context given for a body that settled after the abort waits for
    the next turn's first step; the report says so."""
    config = LoopConfig(tools=(GREP,), hooks=(HookSpec("after", "PostToolUse"),))
    program = (
        SubmitUser("hi"),
        ModelReplies((GREP_CALL,)),
        Abort(),
        ToolFinishes("c1", ToolSucceeded("a"), (PostContext("n"),)),
        SubmitUser("again"),
    )
    replay = replay_case(DropsContextsAfterAnAbort, config, list(program))
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "ADJ-4", replay.divergence.what
    assert "a PostToolUse hook's context for a body that settled after the abort" in (
        replay.divergence.what
    ), replay.divergence.what
    assert replay_case(ModelTarget, config, list(program)).divergence is None


def test_ADJ_3_check_names_STEP_4_for_a_max_tokens_reply_that_keeps_itscalls(
    tmp_path: Path,
) -> None:
    """ADJ-3: a log whose max-tokens reply kept its tool call (a loop that dropped nothing):
    check names the unanswered call and says a reply cut off at max-tokens drops its calls."""
    model = ModelTarget()
    model.reset(READS)
    events: list[dict[str, Any]] = []
    for command in (SubmitUser("hi"), ModelReplies((read_call("c1"),), "max-tokens")):
        events += copied(model.apply(command))
    reply = next(e for e in events if e["type"] == "assistant/message")
    reply["data"]["message"]["content"] = [
        {"type": "tool-call", "id": "c1", "name": "read", "arguments": '{"file_path":"a"}'}
    ]
    header = {"type": "session", "version": 0, "id": "s", "createdAt": 0, "cwd": "/workspace"}
    log = tmp_path / "max-tokens.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in [header, *events]))
    (report,) = check_paths([str(log)])
    said = [(f.violation.rule_id, f.violation.message) for f in report.violations]
    assert [rule for rule, _ in said] == ["ADJ-3"], said
    assert "a reply cut off at max-tokens drops its calls (STEP-4)" in said[0][1], said


class OffsetZeroIsLineZero(ModelTarget):
    """The model, except that a read card's title counts an offset of 0 as line 0 (`offset ??
    1` where `offset || 1` was meant)."""

    def apply(self, command: Command) -> Observation:
        return damaged(super().apply(command), self._offset_zero_as_line_zero)

    @staticmethod
    def _offset_zero_as_line_zero(message: dict[str, Any]) -> None:
        card = card_of(message)
        offset = (card.get("rawInput") or {}).get("offset") if card.get("kind") else None
        limit = (card.get("rawInput") or {}).get("limit")
        if offset == 0 and isinstance(limit, int):
            card["title"] = card["title"].replace(f"(1 - {limit})", f"(0 - {limit - 1})")


def test_VIEW_2_a_read_title_s_range_is_told() -> None:
    """VIEW-2: a read card whose title counts offset 0 as line 0 is told how a read's title
    writes its range."""
    with pytest.raises(DivergenceFound) as found:
        sweep_presentation(OffsetZeroIsLineZero, frozenset(CAPABILITIES))
    assert found.value.divergence.rule_id == "VIEW-2", found.value
    assert "0 or no offset counting as line 1" in found.value.divergence.what, found.value
