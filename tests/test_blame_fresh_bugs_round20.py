"""Fresh bugs of session 39, taken from what agent loops other than Claude Code and Codex were
reported to do wrong.

Round 18 read the bug reports of Claude Code, Codex and Copilot CLI. Round 20 read those of
OpenCode, Gemini CLI, Antigravity CLI, goose, Cline, Continue, Zed, Zed's Claude Code ACP bridge,
the OpenAI Agents SDK (Python and JavaScript), LangGraph, Google's ADK, dynamiq and zeph, in
the area loopspec governs; wrote down for each the behaviour and the rule it breaks before running
anything; planted each as a one-to-few-line change in a copy of examples/js-loop (kept outside
the project); and ran `loopspec conform` on seeds 1 and 2 at the default example count. Each
bug is planted here in the model (or in what it observed, as the wrong loop wrote it) and
replayed on a short program; the comment of each row cites the report (facts taken from it,
not its code or prose). Found named by another rule than the one broken, and now named right:

- a hook's deny shown to the user as a question (Antigravity CLI #628): DEC-2, "only an ask
  decision asks"; now DEC-1, the deny that went unapplied;
- a refused approval ending the turn with its call unanswered (Gemini CLI #2017), on a reply of
  two calls: TURN-2, whose order that turn/end keeps; now DEC-2;
- a cancelled reply's calls run (goose #9938), the reply holding text: STEP-4; now ABORT-2;
- a reply's two calls merged into one (Continue #6506) or its later calls dropped (dynamiq
  #902): ORD-2, whose records match the reply the target wrote; now STEP-4, naming both
  replies' calls;
- an empty result ending the turn (Continue #6510): TURN-2; now STEP-4;
- what the user typed while a call ran opening a turn of its own once the batch ends (Gemini
  CLI #17282): TURN-2 (STEP-4 once the empty result's fix landed); now ADJ-4, where that
  message belongs;
- a failed call's result dropped, the step ended (Zed #40391), and a reply's later results
  dropped (ADK #187): ORD-3, a result merely late; now ADJ-3.

Of 25 bugs, all were found on both seeds, 13 by the rule written before the run on both; after
the fixes 22 are (two of them, ACP statuses and titles, round 18 left unplanted). Three more
are named by a rule SPEC.md gives the situation the cut-down program shows: ABORT-1 for an
abort leaving an approval pending (ABORT-3 expected: both rules say it), VIEW-2 for a card's
update sent again alike (ADJ-2 expected, which an ACP recording holds to a card changed after
its end), and ABORT-1 for the dropped later results, the program cut down holding an abort
(its words now say the step ended with the call unanswered). A batch whose running calls start
again when an approval is answered (LangGraph PR #3126) was named SCHED-1, in words saying the
call had not passed the gate; it is EXE-4 now, the report telling the command that first
started it (conform replays the model over the program to know).
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest
from fresh_bugs import (
    AskOutranksDeny,
    FreshBug,
    assert_found,
    calls,
    copied,
    names,
    planted,
    renumbered,
)

from loopspec.model import dispatch, handlers, rewrite
from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    PostBlock,
    PostPass,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.events import (
    AssistantMessageRecorded,
    HookInvoked,
    HookResulted,
    ToolCallRecorded,
)
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.pure.decisions import RANK_ASK, RANK_DENY, merged_rank
from loopspec.model.state import ASKING, Dispatching, Rewriting
from loopspec.model.wire import event_to_wire
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.stateful.strategies import TOOLS

READ = '{"file_path":"a.txt"}'
PLAIN = LoopConfig(tools=TOOLS)
ONE_HOOK = LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "read"),))
TWO_HOOKS = LoopConfig(
    tools=TOOLS,
    hooks=(HookSpec("first", "PreToolUse", "read"), HookSpec("second", "PreToolUse", "read")),
)
TWO_READS = ModelReplies((ToolCallBlock("c1", "read", READ), ToolCallBlock("c2", "read", READ)))


def _asked(*verdicts: Any) -> tuple[Command, ...]:
    """The user's message, a reply calling read (c1), and its hooks' answers."""
    return (SubmitUser(""), calls("c1", "read", READ), *map(HookAnswers, verdicts))


def _closing(
    target: ModelTarget, observed: Observation, events: list[dict[str, Any]], kind: str
) -> Observation:
    """`observed` with `events` (its events copied, edited) and then a step/end and a turn/end
    whose reason is `kind` (completed, or aborted by the user), all one commit."""
    assert target.state is not None
    time = target.state.log[-1].time
    reason: dict[str, Any] = {"kind": kind}
    if kind == "aborted":
        reason["reason"] = {"kind": "user"}
    events += [
        {"type": "step/end", "seq": 0, "time": time, "data": {"turn": 1, "step": 1}},
        {"type": "turn/end", "seq": 0, "time": time, "data": {"turn": 1, "reason": reason}},
    ]
    first = len(target.state.log) - len(observed.events)
    return attrs.evolve(renumbered(observed, events, first), commits=(len(events),))


class EndsAtTheAbort(ModelTarget):
    """An abort while a call runs ends the step and the turn at once: the running call never
    gets its result (OpenCode #21326)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        assert self.state is not None
        phase = self.state.phase
        draining = isinstance(phase, Dispatching) and phase.aborting is not None
        if not (isinstance(command, Abort) and draining and not observed.events):
            return observed
        return _closing(self, observed, [], "aborted")


# -- what a hook or the user decided ---------------------------------------------------------


def _later_of_deny_and_ask(ranks: tuple[int, ...]) -> int:
    """The later of a deny and an ask wins, as the answers came in (goose PR #10612)."""
    strict = [rank for rank in ranks if rank in (RANK_ASK, RANK_DENY)]
    return strict[-1] if strict else merged_rank(ranks)


def _deny_asks(ranks: tuple[int, ...]) -> int:
    """A deny reads as an ask: the user may still run the call (Antigravity CLI #628)."""
    strictest = merged_rank(ranks)
    return RANK_ASK if strictest == RANK_DENY else strictest


class RefusalEndsTheTurn(ModelTarget):
    """An approval answered rejected or cancelled ends the turn, its call left without a
    result (Gemini CLI #2017, before PR #2088)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not (isinstance(command, ApprovalAnswers) and command.outcome != "allowed-once"):
            return observed
        decided = [e for e in copied(observed) if e["type"] == "approval/decided"]
        return _closing(self, observed, decided, "completed")


class RejectionAfterAnAllowRuns(ModelTarget):
    """Once a tool's call was allowed, a later rejection of a call of that tool is ignored:
    the call runs (OpenAI Agents SDK #4429: a sticky approval read before the rejection)."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self.allowed: set[str] = set()
        return super().reset(config)

    def apply(self, command: Command) -> Observation:
        if not isinstance(command, ApprovalAnswers) or self.state is None:
            return super().apply(command)
        phase = self.state.phase
        name = phase.slots[phase.gate].name if isinstance(phase, Dispatching) else ""
        if command.outcome == "allowed-once":
            self.allowed.add(name)
        if command.outcome != "rejected" or name not in self.allowed:
            return super().apply(command)
        observed = super().apply(ApprovalAnswers("allowed-once"))
        events = copied(observed)
        for event in events:
            if event["type"] == "approval/decided":
                event["data"]["outcome"] = "rejected"
        return attrs.evolve(observed, events=tuple(events))


class HooksAgainOnApproval(ModelTarget):
    """An approved call's PreToolUse hooks are audited again as it resumes (OpenAI Agents SDK
    JS PR #1418: needsApproval evaluated again on resuming)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not (isinstance(command, ApprovalAnswers) and command.outcome == "allowed-once"):
            return observed
        assert self.state is not None
        audits = [
            json.loads(json.dumps(event_to_wire(e)))
            for e in self.state.log
            if isinstance(e, HookInvoked | HookResulted)
        ]
        for audit in audits:
            if audit["type"] == "hook/result":
                audit["data"]["decision"] = "allow"
        events = copied(observed)
        return attrs.evolve(
            renumbered(observed, [*audits, *events]),
            commits=(observed.commits[0] + len(audits), *observed.commits[1:]),
        )


_REAL_ABORT_UNSTARTED = dispatch._abort_unstarted


def _approval_left_pending(draft: Any, phase: Dispatching) -> Dispatching:
    """The abort's drain, except that a batch with a pending approval request is left as it
    is: the request stays pending, its call waiting (goose PR #12118)."""
    if any(slot.status == ASKING for slot in phase.slots):
        return phase
    return _REAL_ABORT_UNSTARTED(draft, phase)


# -- what the model replied ------------------------------------------------------------------


def _merged(command: ModelReplies) -> ModelReplies:
    """The reply's first two calls as one: names and arguments run together (Continue #6506,
    as streamed deltas merged into one call)."""
    first, second, *_rest = command.tool_calls
    merged = ToolCallBlock(first.id, first.name + second.name, first.arguments + second.arguments)
    blocks = tuple(merged if b is first else b for b in command.blocks if b is not second)
    return attrs.evolve(command, blocks=blocks)


def _first_call_only(command: ModelReplies) -> ModelReplies:
    """The reply with its later calls erased (dynamiq PR #902: the extra calls dropped)."""
    first = command.tool_calls[0]
    kept = tuple(b for b in command.blocks if not isinstance(b, ToolCallBlock) or b is first)
    return attrs.evolve(command, blocks=kept)


def replying_as(rewritten: Any, what: str) -> type[ModelTarget]:
    """The model, except that a reply of two calls or more is taken as `rewritten` makes it."""

    class Replying(ModelTarget):
        def apply(self, command: Command) -> Observation:
            if isinstance(command, ModelReplies) and len(command.tool_calls) > 1:
                return super().apply(rewritten(command))
            return super().apply(command)

    Replying.__doc__ = what
    return Replying


class RunsACancelledReply(ModelTarget):
    """A cancelled reply's calls are run, as a completed reply's (goose #9938: a call read
    from the stream after the cancel executed)."""

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ModelReplies) and command.finish == "cancelled":
            command = attrs.evolve(command, finish="completed")
        return super().apply(command)


class AcceptsRepeatedIds(ModelTarget):
    """A reply whose calls repeat an id is taken, the repeat run as a call of its own (Cline
    PR #9768, AG2 PR #2737: Gemini's calls given one id)."""

    def apply(self, command: Command) -> Observation:
        if not isinstance(command, ModelReplies):
            return super().apply(command)
        seen: set[str] = set()
        blocks = []
        for block in command.blocks:
            kept = block
            if isinstance(block, ToolCallBlock) and block.id in seen:
                kept = attrs.evolve(block, id=block.id + "~")
            if isinstance(kept, ToolCallBlock):
                seen.add(kept.id)
            blocks.append(kept)
        observed = super().apply(attrs.evolve(command, blocks=tuple(blocks)))
        text = json.dumps(list(observed.events)).replace('~"', '"')
        return attrs.evolve(observed, events=tuple(json.loads(text)))


# -- what a result became --------------------------------------------------------------------


class EmptyResultEndsTheTurn(ModelTarget):
    """A batch one of whose results is empty ends the turn where the next step would open
    (Continue #6510: an empty tool result stopped the agent)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not (isinstance(command, ToolFinishes) and command.outcome == ToolSucceeded("")):
            return observed
        events = copied(observed)
        if not any(e["type"] == "step/start" for e in events):
            return observed
        kept = events[: next(i for i, e in enumerate(events) if e["type"] == "step/end")]
        return _closing(self, observed, kept, "completed")


def dropping_results(keep: Any, what: str) -> type[ModelTarget]:
    """The model, except that a tool/result `keep` (its event, its reply's call ids) refuses is
    never written: the call is left unanswered and the batch goes on."""

    class Dropping(ModelTarget):
        def apply(self, command: Command) -> Observation:
            observed = super().apply(command)
            assert self.state is not None
            replies = [e for e in self.state.log if isinstance(e, AssistantMessageRecorded)]
            ids = [c.id for c in replies[-1].message.tool_calls] if replies else []
            events = copied(observed)
            kept = [e for e in events if e["type"] != "tool/result" or keep(e, ids)]
            if len(kept) == len(events):
                return observed
            return attrs.evolve(renumbered(observed, kept), commits=(len(kept),))

    Dropping.__doc__ = what
    return Dropping


def _succeeded(result: dict[str, Any], _ids: list[str]) -> bool:
    return not result["data"]["message"]["content"][0].get("isError", False)


def _answers_the_first_call(result: dict[str, Any], ids: list[str]) -> bool:
    return bool(result["data"]["message"]["source"]["callId"] == ids[0])


def _valid(result: dict[str, Any], _ids: list[str]) -> bool:
    return bool(result["data"].get("error", {}).get("code") != "INVALID_TOOL_INPUT")


class SendsEveryUpdateTwice(ModelTarget):
    """Each tool_call_update is sent twice (claude-agent-acp #259)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if observed.presented is None:
            return observed
        twice = []
        for message in observed.presented:
            twice.append(message)
            update = message.get("params", {}).get("update", {})
            if update.get("sessionUpdate") == "tool_call_update":
                twice.append(message)
        return attrs.evolve(observed, presented=tuple(twice))


class RecoveryRunsTheStepAgain(ModelTarget):
    """Reopened after a crash, the loop runs the open step's recorded calls again (Cline
    #12975: resume re-ran completed commands)."""

    def apply(self, command: Command) -> Observation:
        before = self.state.log if self.state is not None else ()
        observed = super().apply(command)
        if not isinstance(command, Recover):
            return observed
        recorded = [e for e in before if isinstance(e, ToolCallRecorded)]
        again = tuple((e.call_id, e.arguments) for e in recorded)
        return attrs.evolve(observed, executed=(*observed.executed, *again))


class HistoryKeepsTheModelsInput(ModelTarget):
    """A hook's rewrite runs and is recorded and shown, but the reply the model's history
    holds keeps the model's own input (OpenCode #37963: the model is never told)."""

    def apply(self, command: Command) -> Observation:
        phase = self.state.phase if self.state is not None else None
        original = (
            {call.id: call.arguments for call in phase.reply.tool_calls}
            if isinstance(phase, Rewriting)
            else {}
        )
        observed = super().apply(command)
        events = copied(observed)
        for event in events:
            if event["type"] != "assistant/message":
                continue
            for block in event["data"]["message"]["content"]:
                if block.get("type") == "tool-call" and block["id"] in original:
                    block["arguments"] = original[block["id"]]
        return attrs.evolve(observed, events=tuple(events))


_REAL_PREPARE = dispatch.prepare_result


def _post_hooks_unheard(slot: Any, outcome: Any, post: Any, aborting: str | None) -> Any:
    """`prepare_result`, every PostToolUse verdict read as a pass: the hooks run detached,
    their output never read (Cline PR #13298)."""
    unheard = tuple((hook, PostPass()) for hook, _verdict in post)
    return attrs.evolve(_REAL_PREPARE(slot, outcome, unheard, aborting), post=post)


class TypedInputOpensATurn(ModelTarget):
    """What the user typed while a call ran opens a turn of its own once the batch ends,
    before the model's follow-up (Gemini CLI #17282: a queued message sent as a prompt)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        opened = next((i for i, e in enumerate(events) if e["type"] == "step/start"), None)
        typed = [
            e
            for e in events[opened or 0 :]
            if e["type"] == "user/message" and e["data"]["source"] == {"kind": "user"}
        ]
        if opened is None or not typed:
            return observed
        time = events[opened]["time"]
        turn = events[opened]["data"]["turn"]
        reason = {"kind": "completed"}
        reopened = [
            {"type": "turn/end", "seq": 0, "time": time, "data": {"turn": turn, "reason": reason}},
            {"type": "turn/start", "seq": 0, "time": time, "data": {"turn": turn + 1}},
            {"type": "step/start", "seq": 0, "time": time, "data": {"turn": turn + 1, "step": 1}},
        ]
        kept = [*events[:opened], *reopened, *typed]
        return attrs.evolve(renumbered(observed, kept), commits=(len(kept),))


def presenting_edited(edit: Any, what: str) -> type[ModelTarget]:
    """The model, except that each card message it presents goes through `edit` (its ACP
    `update` or `toolCall` object, edited in place)."""

    class Presenting(ModelTarget):
        def apply(self, command: Command) -> Observation:
            observed = super().apply(command)
            if observed.presented is None:
                return observed
            messages = json.loads(json.dumps(list(observed.presented)))
            for message in messages:
                params = message.get("params", {})
                edit(params.get("update") or params.get("toolCall") or {})
            return attrs.evolve(observed, presented=tuple(messages))

    Presenting.__doc__ = what
    return Presenting


def _ends_completed(card: dict[str, Any]) -> None:
    """Every card ends completed, a failed call's too (zeph #928)."""
    if card.get("status") == "failed":
        card["status"] = "completed"


def _titled_by_input(card: dict[str, Any]) -> None:
    """A card's title is the call's input as JSON (Gemini CLI #14957)."""
    if card.get("sessionUpdate") == "tool_call":
        card["title"] = json.dumps(card.get("rawInput"))


FIXED: tuple[FreshBug, ...] = (
    # github.com/google-antigravity/antigravity-cli/issues/628
    ("a hook's deny read as an ask",
     planted(rewrite, "merged_rank", _deny_asks, _deny_asks.__doc__ or ""), ONE_HOOK,
     _asked(Deny("no")), "DEC-1"),
    # github.com/google-gemini/gemini-cli/pull/2088 (issue #2017), as seed 2 cut it down
    ("a refused approval ends the turn unanswered", RefusalEndsTheTurn,
     LoopConfig(tools=TOOLS, hooks=(HookSpec("everything", "PreToolUse", "*"),), max_parallel=1),
     (SubmitUser(""), TWO_READS, HookAnswers(Ask()), HookAnswers(Pass()),
      ApprovalAnswers("rejected")), "DEC-2"),
    # github.com/aaif-goose/goose/issues/9938, as seed 1 cut it down
    ("a cancelled reply's calls run", RunsACancelledReply, PLAIN,
     (SubmitUser(""), ModelReplies((TextBlock("o"), ToolCallBlock("c1", "read", READ)),
                                   finish="cancelled")), "ABORT-2"),
    # github.com/continuedev/continue/issues/6506 (also NousResearch/hermes-agent PR #111686)
    ("a reply's two calls merged into one",
     replying_as(_merged, _merged.__doc__ or ""), PLAIN, (SubmitUser(""), TWO_READS), "STEP-4"),
    # github.com/dynamiq-ai/dynamiq/pull/902
    ("a reply's later calls dropped",
     replying_as(_first_call_only, _first_call_only.__doc__ or ""), PLAIN,
     (SubmitUser(""), TWO_READS), "STEP-4"),
    # github.com/continuedev/continue/issues/6510
    ("an empty result ends the turn", EmptyResultEndsTheTurn, PLAIN,
     (SubmitUser(""), calls("c1", "read", READ), ToolFinishes("c1", ToolSucceeded(""))),
     "STEP-4"),
    # github.com/zed-industries/zed/issues/40391
    ("a failed call's result dropped",
     dropping_results(_succeeded, "A failed call's result is never written (Zed #40391)."),
     PLAIN, (SubmitUser(""), calls("c1", "read", READ), ToolFinishes("c1", ToolFailed("boom"))),
     "ADJ-3"),
    # github.com/google-gemini/gemini-cli/issues/17282 (PR #17199)
    ("what the user typed opens a turn of its own", TypedInputOpensATurn, PLAIN,
     (SubmitUser(""), calls("c1", "read", READ), SubmitUser("also b"),
      ToolFinishes("c1", ToolSucceeded("x"))), "ADJ-4"),
    # github.com/google/adk-python/issues/187
    ("only the first call's result kept",
     dropping_results(_answers_the_first_call, "Only the reply's first result is written."),
     PLAIN, (SubmitUser(""), TWO_READS, ToolFinishes("c1", ToolSucceeded("x")),
             ToolFinishes("c2", ToolSucceeded("y"))), "ADJ-3"),
)  # fmt: skip

FOUND: tuple[FreshBug, ...] = (
    # github.com/anomalyco/opencode/issues/21326
    ("an abort ends the turn while a call runs", EndsAtTheAbort, PLAIN,
     (SubmitUser(""), calls("c1", "read", READ), Abort()), "ABORT-1"),
    # github.com/anomalyco/opencode/issues/28682
    ("a catch-all ask outranks a deny", AskOutranksDeny, TWO_HOOKS,
     _asked(Deny("no"), Ask()), "HOOK-2"),
    # github.com/aaif-goose/goose/pull/10612
    ("the later of a deny and an ask wins",
     planted(rewrite, "merged_rank", _later_of_deny_and_ask, _later_of_deny_and_ask.__doc__ or ""),
     TWO_HOOKS, _asked(Deny("no"), Ask()), "HOOK-2"),
    # github.com/aaif-goose/goose/pull/12118
    ("an abort leaves an approval pending",
     planted(dispatch, "_abort_unstarted", _approval_left_pending,
             _approval_left_pending.__doc__ or ""),
     ONE_HOOK, (*_asked(Ask()), Abort()), "ABORT-1"),
    # github.com/aaif-goose/goose/pull/11627 (review)
    ("a call whose arguments are no JSON gets no result",
     dropping_results(_valid, "An invalid call's result is never written."), PLAIN,
     (SubmitUser(""), calls("c1", "read", '{"file_path": ')), "EXE-5"),
    # github.com/cline/cline/issues/12975
    ("recovery runs the open step's calls again", RecoveryRunsTheStepAgain, PLAIN,
     (SubmitUser(""), calls("c1", "read", READ), Crash(), Recover()), "REC-1"),
    # github.com/cline/cline/pull/9768 (also ag2ai/ag2 PR #2737)
    ("a reply repeating a call id accepted", AcceptsRepeatedIds, PLAIN,
     (SubmitUser(""), ModelReplies((ToolCallBlock("c1", "read", READ),
                                    ToolCallBlock("c1", "read", READ)))), "EXE-1"),
    # github.com/agentclientprotocol/claude-agent-acp/issues/259
    ("a card's update sent twice", SendsEveryUpdateTwice, PLAIN,
     (SubmitUser(""), calls("c1", "read", READ), ToolFinishes("c1", ToolSucceeded("x"))),
     "VIEW-2"),
    # github.com/openai/openai-agents-python/issues/4429
    ("a rejection after an allow of the tool runs the call", RejectionAfterAnAllowRuns,
     ONE_HOOK, (SubmitUser(""), TWO_READS, HookAnswers(Ask()), HookAnswers(Ask()),
                ApprovalAnswers("allowed-once"), ApprovalAnswers("rejected")), "DEC-2"),
    # github.com/openai/openai-agents-js/pull/1418
    ("hooks audited again as an approved call resumes", HooksAgainOnApproval, ONE_HOOK,
     (*_asked(Ask()), ApprovalAnswers("allowed-once")), "HOOK-4"),
    # github.com/anomalyco/opencode/issues/31680 (also #26910, #42409)
    ("a hook's changed arguments never reach the body",
     planted(rewrite, "winning_rewrite", lambda _s, _m: -1, "no hook's input is applied"),
     ONE_HOOK, _asked(Allow(updated_input=FrozenMap({"file_path": "b.txt"}))), "RW-2"),
    # github.com/anomalyco/opencode/issues/37963
    ("a rewrite the model's history never shows", HistoryKeepsTheModelsInput, ONE_HOOK,
     _asked(Allow(updated_input=FrozenMap({"file_path": "b.txt"}))), "RW-1"),
    # github.com/bug-ops/zeph/issues/928 (left to the survey by round 18)
    ("a failed call's card ends completed",
     presenting_edited(_ends_completed, _ends_completed.__doc__ or ""), PLAIN,
     (SubmitUser(""), calls("c1", "read", READ), ToolFinishes("c1", ToolFailed("boom"))),
     "VIEW-2"),
    # github.com/google-gemini/gemini-cli/issues/14957 (left to the survey by round 18)
    ("a card titled with the call's input",
     presenting_edited(_titled_by_input, _titled_by_input.__doc__ or ""), PLAIN,
     (SubmitUser(""), calls("c1", "bash", '{"command":"ls"}')), "VIEW-2"),
    # github.com/cline/cline/pull/13298
    ("a PostToolUse hook's block never read",
     planted(handlers, "prepare_result", _post_hooks_unheard, _post_hooks_unheard.__doc__ or ""),
     LoopConfig(tools=TOOLS, hooks=(HookSpec("audit", "PostToolUse", "read"),)),
     (SubmitUser(""), calls("c1", "read", READ),
      ToolFinishes("c1", ToolSucceeded("x"), (PostBlock("secret"),))), "DEC-3"),
)  # fmt: skip


@pytest.mark.parametrize("row", FOUND, ids=names(FOUND))
def test_MODEL_1_a_bug_reported_of_another_harness_is_blamed_on_the_rule_it_breaks(
    row: FreshBug,
) -> None:
    """MODEL-1 (ABORT-1, HOOK-2, EXE-5, REC-1, EXE-1, VIEW-2, DEC-2, HOOK-4, RW-1, RW-2,
    DEC-3): each reported bug
    conform found right on both seeds is found on its short program and named by the rule
    SPEC.md gives it; the program passes on the model."""
    assert_found(row)


@pytest.mark.parametrize(
    ("row", "phrases"),
    [
        (FIXED[0], ("a PreToolUse hook denied call c1, and a denied call is neither run nor",)),
        (FIXED[1], ("rejected ends call c1 with its own error result, and the batch goes on",)),
        (FIXED[2], ("a reply that did not complete keeps no calls",)),
        (FIXED[3], ("the model's reply makes the calls c1 read, c2 read, the target's c1 "
                    "readread",)),
        (FIXED[4], ("the model's reply makes the calls c1 read, c2 read, the target's c1 read",)),
        (FIXED[5], ("once a batch's last result commits the next step opens",)),
        (FIXED[6], ("ends the step with the call unanswered",)),
        (FIXED[7], ("a message the user typed during the turn waits for its next step",)),
        (FIXED[8], ("ends the step with the call unanswered",)),
    ],
    ids=names(FIXED),
)  # fmt: skip
def test_DEC_1_DEC_2_ABORT_2_STEP_4_ADJ_3_ADJ_4_a_bug_named_wrong_is_named_right(
    row: FreshBug, phrases: tuple[str, ...]
) -> None:
    """DEC-1, DEC-2, ABORT-2, STEP-4, ADJ-3, ADJ-4: the bugs conform named by another rule than
    the one they break, named by it now, in words that say what to fix."""
    assert_found(row, *phrases)


def test_ABORT_1_a_result_dropped_after_an_abort_is_said_to_leave_its_call_unanswered() -> None:
    """ABORT-1: the reply's later results dropped (ADK #187), on the program seeds 1 and 2 cut
    it down to, an abort between the two results: ABORT-1, the rule of a result due after an
    abort, in words that said only that the result was missing; now that the step ended with
    the call unanswered, and what the drain owes it."""
    _name, drops, config, _program, _rule = FIXED[-1]
    program = (
        SubmitUser(""),
        TWO_READS,
        ToolFinishes("c1", ToolSucceeded("")),
        Abort(),
        ToolFinishes("c2", ToolSucceeded("")),
    )
    row = ("a later result dropped after an abort", drops, config, program, "ABORT-1")
    assert_found(row, "the target ends the step with the call unanswered, where after an abort")


class RunsTheBatchAgainOnApproval(ModelTarget):
    """Once an approval is answered, the batch's calls that already ran are run again
    (LangGraph PR #3126: the tool node replayed whole after an interrupt)."""

    def apply(self, command: Command) -> Observation:
        assert self.state is not None
        before = self.state.executions
        observed = super().apply(command)
        if not isinstance(command, ApprovalAnswers):
            return observed
        again = tuple((run.call_id, run.arguments) for run in before if run.step == 1)
        return attrs.evolve(observed, executed=(*again, *observed.executed))


def test_EXE_4_a_running_call_started_again_as_an_approval_is_answered_is_named_EXE_4() -> None:
    """EXE-4: a call whose body runs started again when a later call's approval is answered
    (LangGraph PR #3126, as seed 1 cut it down): SCHED-1, in words saying the call had not
    passed the gate, though it ran since the reply; now that it started again, and when first."""
    config = LoopConfig(tools=TOOLS, hooks=(HookSpec("read-audit", "PreToolUse", "read"),))
    reply = ModelReplies(
        (ToolCallBlock("c1", "grep", '{"pattern":""}'), ToolCallBlock("c2", "read", READ))
    )
    program = (SubmitUser(""), reply, HookAnswers(Ask()), ApprovalAnswers("allowed-once"))
    row = ("the batch run again on approval", RunsTheBatchAgainOnApproval, config, program, "EXE-4")
    assert_found(row, "starts the body of call c1 again: it started at command #3 of the program")
