"""Fresh bugs of session 23, blamed on the rule their author must fix, in words that say what.

Session 23 wrote thirty-four more wrong loops outside the project (copies of `impl/` and of
`examples/js-loop/`, each with one bug) and ran `loopspec conform` on each. Where the report
named another rule than the one the bug breaks, the difference is planted here in the model and
a fixed program that shows it is replayed:

- an approval answered allowed-once remembered for the tool, so a later call of it that a hook
  asks about runs (or fails as an unknown tool) without asking: read as a result committed
  early (ORD-3) or, where another hook allowed the call, as an allow outranking the ask
  (HOOK-2), where allowed-once approves one call and every ask asks again (DEC-2);
- an unknown tool's result worded right but written without its `{name, code}`: read as a
  call judged wrong (EXE-5: "ends as an UNKNOWN_TOOL error", which it does) where only the
  error info the wording table gives is missing (TEXT-1);
- an ask ranked above a deny: the call a hook denied is asked about, with the asking hook's
  input applied, read from the arguments (RW-1) or from the target's own log (RW-2, a sidecar
  on a denied call) where the merge is what is wrong (HOOK-2: deny > ask > allow > pass);
- a denied call that waits for a free slot before failing, so an abort finds it unstarted:
  named right (DEC-1), but in words ("a denied call's result is one text block Error:
  <reason>") that sent the reader to the reason; they now say it passes the gate without
  waiting for a slot;
- a success that lands after the abort kept as a success, a blank message sent while idle
  ignored, and an empty assistant message kept in the history: named right (ABORT-1, TURN-1,
  HIST-1), in words that did not say what ("after an abort it is an ABORTED error", "does not
  append the model's turn/start", "sends a assistant message ... []"); they now say the body
  settled after the abort, that a blank message opens a turn too, and, in HIST-1's words,
  that an assistant message with no content block is left out of the history;
- PostToolUse hooks run for successes only: named right (HOOK-5), in words ("hook after-all
  must run") that now say the failed body is judged too;
- PreToolUse answers audited after the reply and its tool/call records: read as a hook that
  must run (HOOK-4), though it ran once, where an answer is audited before the reply that
  carries its call (RW-3); where another hook answers after it, the missing audit is HOOK-4's
  (a hook is audited when it answers), in words that now say the hook answered.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs
import pytest
from fresh_bugs import (
    GUARDED_BASH,
    AskOutranksDeny,
    FreshBug,
    assert_blamed_on,
    assert_passes_on_model,
    assert_report_says,
    calls,
    copied,
    names,
    renumbered,
)

from loopspec import spec_text
from loopspec.model.commands import (
    FINISH_MAX_TOKENS,
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    PostPass,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.model.state import Rewriting
from loopspec.properties.conformance.target import ModelTarget, Observation, atomic_units

GREP = ToolSpec("grep", concurrency_safe=True, required_keys=("pattern",))
ASKED_ABOUT_EVERYTHING = LoopConfig(hooks=(HookSpec("late", "PreToolUse", ".*"),))
TWO_HOOKS_ON_GREP = LoopConfig(
    tools=(GREP,),
    hooks=(HookSpec("everything", "PreToolUse", "*"), HookSpec("late", "PreToolUse", ".*")),
)


class RemembersApprovals(ModelTarget):
    """The model, except that once a call of a tool is approved allowed-once, a later ask about
    that tool is taken as an allow (the audit still records the hook's ask)."""

    def __init__(self) -> None:
        super().__init__()
        self.approved: set[str] = set()
        self.asked_for: dict[str, str] = {}  # approval id -> tool name

    def apply(self, command: Command) -> Observation:
        phase = self.state.phase if self.state is not None else None
        waived = None
        if (
            isinstance(phase, Rewriting)
            and isinstance(command, HookAnswers)
            and isinstance(command.verdict, Ask)
        ):
            pending = phase.queue[0]
            call = phase.reply.tool_calls[pending.call_index]
            if call.name in self.approved:
                waived = (pending.hook.handler_id, call.id)
                ask = command.verdict
                command = attrs.evolve(command, verdict=Allow(ask.updated_input, ask.reason))
        observed = super().apply(command)
        events = copied(observed)
        for event in events:
            data = event["data"]
            if event["type"] == "approval/asked":
                self.asked_for[data["id"]] = data["toolName"]
            if event["type"] == "approval/decided" and data["outcome"] == "allowed-once":
                self.approved.add(self.asked_for[data["id"]])
            if (
                waived is not None
                and event["type"] == "hook/result"
                and (data["handlerId"], data.get("callId")) == waived
            ):
                data["decision"] = "ask"
        return attrs.evolve(observed, events=tuple(events))


class UnknownToolsWithoutCode(ModelTarget):
    """The model, except that an UNKNOWN_TOOL result carries no error info."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        for event in events:
            if (event["data"].get("error") or {}).get("code") == "UNKNOWN_TOOL":
                del event["data"]["error"]
        return attrs.evolve(observed, events=tuple(events))


class DeniedCallsWaitForASlot(ModelTarget):
    """The model, except that a denied call waits at the gate for a free slot: an abort that
    lands meanwhile finds it unstarted (shown at its result, in a program where it waits)."""

    def __init__(self) -> None:
        super().__init__()
        self.aborted = False

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        self.aborted = self.aborted or isinstance(command, Abort)
        if not self.aborted:
            return observed
        unstarted = "Error: tool call aborted before dispatch"
        events = json.loads(
            json.dumps(list(observed.events)).replace('"Error: denied"', json.dumps(unstarted))
        )
        for event in events:
            if event["type"] == "tool/result" and unstarted in json.dumps(event):
                event["data"]["error"] = {"name": "AbortError", "code": "ABORTED_BEFORE_DISPATCH"}
        return attrs.evolve(observed, events=tuple(events))


READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
ONE_AT_A_TIME = LoopConfig(
    tools=(READ,), hooks=(HookSpec("late", "PreToolUse", ".*"),), max_parallel=1
)


class KeepsLateSuccesses(ModelTarget):
    """The model, except that a success that lands after an abort is reported as one."""

    def __init__(self) -> None:
        super().__init__()
        self.aborted = False

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        self.aborted = self.aborted or isinstance(command, Abort)
        if not (self.aborted and isinstance(command, ToolFinishes)):
            return observed
        assert isinstance(command.outcome, ToolSucceeded)
        events = copied(observed)
        for event in events:
            if (event["data"].get("error") or {}).get("code") == "ABORTED":
                del event["data"]["error"]
                block = event["data"]["message"]["content"][0]
                block["content"] = [{"type": "text", "text": command.outcome.text}]
                block["isError"] = False
        return attrs.evolve(observed, events=tuple(events))


class IgnoresBlankMessages(ModelTarget):
    """The model, except that a blank message sent while no turn is open does nothing."""

    def apply(self, command: Command) -> Observation:
        idle = self.state is not None and self.state.phase.NAME == "Idle"
        if isinstance(command, SubmitUser) and idle and not command.text.strip():
            return Observation(True, history=self._history.unchanged())
        return super().apply(command)


class KeepsEmptyAssistantMessages(ModelTarget):
    """The model, except that its history keeps an assistant message without content."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        change = observed.history
        empty = tuple(
            event["data"]["message"]
            for event in observed.events
            if event["type"] == "assistant/message" and not event["data"]["message"]["content"]
        )
        if change is None or not empty:
            return observed
        kept = attrs.evolve(change, appended=change.appended + empty, whole=change.whole + empty)
        return attrs.evolve(observed, history=kept)


class JudgesSuccessesOnly(ModelTarget):
    """The model, except that no PostToolUse hook judges a failed body."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not (isinstance(command, ToolFinishes) and isinstance(command.outcome, ToolFailed)):
            return observed
        events = [
            event
            for event in copied(observed)
            if not (event["type"].startswith("hook/") and event["data"]["point"] == "PostToolUse")
        ]
        return renumbered(observed, events)


class AuditsAfterTheReply(ModelTarget):
    """The model, except that a reply's PreToolUse audits are held back and appended after the
    reply and its calls' tool/call records."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list[dict[str, Any]] = []

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        audits = [
            e
            for e in events
            if e["type"].startswith("hook/") and e["data"]["point"] == "PreToolUse"
        ]
        if not audits and not self.held:
            return observed
        rest = [e for e in events if e not in audits]
        first = observed.events[0]["seq"] - len(self.held) if observed.events else 0
        self.held += audits
        if not any(e["type"] == "assistant/message" for e in events):
            return renumbered(observed, rest, first)
        last_record = max(
            i for i, e in enumerate(rest) if e["type"] in ("assistant/message", "tool/call")
        )
        moved = rest[: last_record + 1] + self.held + rest[last_record + 1 :]
        self.held = []
        audited = renumbered(observed, moved, first)
        return attrs.evolve(audited, atomic=atomic_units(audited.events))


PROGRAMS: list[FreshBug] = [
    (
        "an approval remembered for an unregistered tool, which then fails at once",
        RemembersApprovals,
        ASKED_ABOUT_EVERYTHING,
        (
            SubmitUser(""),
            calls("c1", "missing_tool", "{}"),
            HookAnswers(Ask()),
            ApprovalAnswers("allowed-once"),
            calls("c2", "missing_tool", "{}"),
            HookAnswers(Ask()),
        ),
        "DEC-2",
    ),
    (
        "an approval remembered, a later call asked by one hook and allowed by another",
        RemembersApprovals,
        TWO_HOOKS_ON_GREP,
        (
            SubmitUser(""),
            calls("c1", "grep", '{"pattern":""}'),
            HookAnswers(Pass()),
            HookAnswers(Ask()),
            ApprovalAnswers("allowed-once"),
            ToolFinishes("c1", ToolSucceeded("")),
            calls("c2", "grep", '{"pattern":""}'),
            HookAnswers(Ask()),
            HookAnswers(Allow()),
        ),
        "DEC-2",
    ),
    (
        "an unknown tool's result without error info",
        UnknownToolsWithoutCode,
        LoopConfig(),
        (SubmitUser(""), calls("c1", "grep", "{}")),
        "TEXT-1",
    ),
    (
        "an ask over a deny, the asking hook's input applied (the arguments differ)",
        AskOutranksDeny,
        GUARDED_BASH,
        (
            SubmitUser(""),
            calls("c1", "bash", '{"command":""}'),
            HookAnswers(Deny("")),
            HookAnswers(Ask(updated_input={"command": "e"})),
        ),
        "HOOK-2",
    ),
    (
        "an ask over a deny, the asking hook's input the model's own (a sidecar on a denial)",
        AskOutranksDeny,
        TWO_HOOKS_ON_GREP,
        (
            SubmitUser(""),
            calls("c1", "grep", '{"pattern":"a"}'),
            HookAnswers(Ask(updated_input={"pattern": "a"})),
            HookAnswers(Deny("")),
        ),
        "HOOK-2",
    ),
    (
        "a denied call waits for a free slot, and the abort finds it unstarted",
        DeniedCallsWaitForASlot,
        ONE_AT_A_TIME,
        (
            SubmitUser(""),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", '{"file_path":""}'),
                    ToolCallBlock("c2", "read", '{"file_path":""}'),
                )
            ),
            HookAnswers(Pass()),
            HookAnswers(Deny("")),
            Abort("user"),
            ToolFinishes("c1", ToolSucceeded("")),
        ),
        "DEC-1",
    ),
    (
        "a success that lands after the abort kept",
        KeepsLateSuccesses,
        ONE_AT_A_TIME,
        (
            SubmitUser(""),
            calls("c1", "read", '{"file_path":""}'),
            HookAnswers(Pass()),
            Abort("user"),
            ToolFinishes("c1", ToolSucceeded("a")),
        ),
        "ABORT-1",
    ),
    (
        "a blank message sent while idle ignored",
        IgnoresBlankMessages,
        LoopConfig(),
        (SubmitUser(" "),),
        "TURN-1",
    ),
    (
        "an empty assistant message kept in the history",
        KeepsEmptyAssistantMessages,
        LoopConfig(),
        (SubmitUser("hi"), ModelReplies((), FINISH_MAX_TOKENS)),
        "HIST-1",
    ),
    (
        "PostToolUse hooks judge successes only",
        JudgesSuccessesOnly,
        LoopConfig(tools=(GREP,), hooks=(HookSpec("after-all", "PostToolUse", "*"),)),
        (
            SubmitUser(""),
            calls("c1", "grep", '{"pattern":""}'),
            ToolFinishes("c1", ToolFailed("", error_name="ToolError"), (PostPass(),)),
        ),
        "HOOK-5",
    ),
    (
        "PreToolUse answers audited after the reply",
        AuditsAfterTheReply,
        LoopConfig(tools=(GREP,), hooks=(HookSpec("everything", "PreToolUse", "*"),)),
        (SubmitUser(""), calls("c1", "grep", '{"pattern":""}'), HookAnswers(Pass())),
        "RW-3",
    ),
    (
        "PreToolUse answers held back until the reply, another hook still to answer",
        AuditsAfterTheReply,
        LoopConfig(
            tools=(GREP,),
            hooks=(HookSpec("everything", "PreToolUse", "*"), HookSpec("late", "PreToolUse", ".*")),
        ),
        (SubmitUser(""), calls("c1", "grep", '{"pattern":""}'), HookAnswers(Pass())),
        "HOOK-4",
    ),
]


@pytest.mark.parametrize("row", PROGRAMS, ids=names(PROGRAMS))
def test_MODEL_1_a_fresh_bug_of_round_4_is_blamed_on_the_rule_its_author_must_fix(
    row: FreshBug,
) -> None:
    """MODEL-1 (DEC-2, TEXT-1, HOOK-2, DEC-1, ABORT-1, TURN-1, HIST-1,
    HOOK-5, RW-3): the first divergence
    names the rule broken."""
    assert_blamed_on(row)


@pytest.mark.parametrize("row", PROGRAMS, ids=names(PROGRAMS))
def test_MODEL_1_the_round_4_programs_pass_on_the_model(row: FreshBug) -> None:
    """MODEL-1: control: without the bug, no program diverges."""
    assert_passes_on_model(row)


def test_DEC_2_a_remembered_approval_names_the_call_approved_before() -> None:
    """DEC-2: the report names the earlier call whose approval was kept, and says that
    allowed-once approves that call alone; where a hook allowed the call, it names the wrong
    merge beside it, which shows the same (HOOK-2)."""
    assert_report_says(
        PROGRAMS,
        "an approval remembered, a later",
        "call c1 of tool grep was approved allowed-once earlier",
        "approves that call alone",
        "hook late's allow outrank hook everything's ask (HOOK-2",
    )
    assert_report_says(PROGRAMS, "an approval remembered for an unregistered", lacks=("HOOK-2",))


def test_TEXT_1_a_result_without_its_error_info_says_which_is_missing() -> None:
    """TEXT-1: the report says the words are right and names the missing name and code."""
    assert_report_says(
        PROGRAMS,
        "an unknown tool's result without",
        "words it as the UNKNOWN_TOOL error it is, but writes no error info",
        '{"name": "UnknownToolError", "code": "UNKNOWN_TOOL"}',
    )


def test_HOOK_2_a_denied_call_asked_about_names_the_deny_and_the_ask() -> None:
    """HOOK-2: the report says what the target did and names the denying and asking hooks."""
    assert_report_says(
        PROGRAMS,
        "an ask over a deny, the asking hook's input applied",
        "the target asks the user about it, but hook guard denied call c1",
        "hook rewriter asked: a deny outranks every other answer",
    )


def test_DEC_1_a_denied_call_found_unstarted_says_it_needs_no_slot() -> None:
    """DEC-1: the report says a denied call passes the gate without waiting for a slot."""
    assert_report_says(
        PROGRAMS,
        "a denied call waits for a free slot",
        "passes the gate without waiting for a free slot",
        "finds call c2 denied, not unstarted",
        "the target held call c2 at the gate for a free slot, or its abort answers",
        'and keeps that result, "Error: denied"',
    )


def test_ABORT_1_a_late_success_kept_says_the_body_settled_after_the_abort() -> None:
    """ABORT-1: the report says the body settled after the abort and the target kept it."""
    assert_report_says(
        PROGRAMS,
        "a success that lands after the abort kept",
        "its body settled after the abort",
        '"Error: tool call aborted", where the target keeps the success',
    )


def test_TURN_1_a_blank_message_ignored_says_it_opens_a_turn_too() -> None:
    """TURN-1: the report says a blank message opens a turn too."""
    assert_report_says(
        PROGRAMS, "a blank message sent while idle", "whatever its text: a blank message too"
    )


def test_HIST_1_an_empty_assistant_message_kept_says_it_is_left_out_in_the_rules_words() -> None:
    """HIST-1: the report says "an assistant message" and, in the words of SPEC.md's HIST-1,
    that one with no content block is left out of the history (it said such a message
    "projects to nothing", a projection's word, HIST-2's, where the rule speaks of the
    history)."""
    words = "an assistant message with no content block stays a surface node but is left out"
    assert_report_says(
        PROGRAMS,
        "an empty assistant message kept",
        "the target sends an assistant message",
        f"{words} of the history",
    )
    rule = " ".join(spec_text().split("### HIST-1 ")[1].split("**Why.**")[0].split())
    assert words in re.sub(r" \([^)]*\)", "", rule)


def test_HOOK_5_a_failed_body_left_unjudged_says_failed_bodies_are_judged_too() -> None:
    """HOOK-5: the report says every matching PostToolUse hook judges a failed body too."""
    assert_report_says(
        PROGRAMS,
        "PostToolUse hooks judge successes only",
        "hook after-all must run: every matching PostToolUse hook judges",
        "call c1's failed one too",
    )


def test_RW_3_an_audit_after_the_reply_says_it_comes_before_the_reply() -> None:
    """RW-3: the report says the hook's answer is audited before the reply carrying the call."""
    assert_report_says(
        PROGRAMS,
        "PreToolUse answers audited after the reply",
        "after the assistant/message carrying call c1",
        "is audited before the reply that carries the call",
    )


def test_HOOK_4_an_audit_held_back_says_the_hook_answered() -> None:
    """HOOK-4: the report says the hook answered in this command and is audited then."""
    assert_report_says(
        PROGRAMS,
        "PreToolUse answers held back until the reply",
        "hook everything answered in this command, and a hook is audited when it",
        lacks=("must run",),
    )
