"""Fresh bugs of session 26, found by the programs and blamed on the rule their author must fix.

Session 26 wrote forty-two more wrong loops outside the project (copies of `impl/` and of
`examples/js-loop/`, each with one bug) and ran `loopspec conform` on each. Where no program
showed the bug, or the report named another rule than the one the bug breaks, the difference is
planted here in the model and the programs that must show it are played:

- a UI that keeps the first card it rendered for a call id, so a later step's call reusing the
  id (local models' call_0) gets its result shown with the earlier call's view: never caught,
  as the targeted program that reuses an id called the same tool twice, whose result card
  (a read's raw content) does not depend on the arguments; that program's second call is now
  a shell command, whose result card is a terminal's, and conform names VIEW-2;
- crash repair that answers every call of the open step, those already answered too: named
  right (REC-1), but met at the 25th program on one seed and the 120th on the other (a crash
  after some results of a batch and before the others is rare); the targeted programs now
  hold one;
- an abort that cancels a pending approval and leaves its call without a result, and an
  interrupted reply that keeps a blank block: named right (ABORT-1, ABORT-2), in words that
  said only that every call that never started gets a result, or that the reply had no text;
  they now name the call and why it never started, or say the kept text is blank;
- an outcome for a call that is not running, refused as a phase error (MODEL-1): named right
  (EXE-4), in words that said only that both refuse it, with EXE-4 and MODEL-1; they now give
  the model's refusal and which outcomes each rule refuses;
- a hook/result whose audit gives no stderrSummary filled in with the hook's reason: named
  right (TEXT-2), in words that said the record "takes these from the answer's audit"; they
  now name the three fields and give both values;
- a reply cut off at max-tokens while input is queued, taken as a reason to go on with a new
  step: named right (STEP-4), in words that said the turn ends 'max-tokens'; they now say so
  with input queued too, and where the input goes (the next turn, ADJ-4).
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from fresh_bugs import (
    FreshBug,
    assert_blamed_on,
    assert_found,
    assert_passes_on_model,
    assert_report_says,
    calls,
    copied,
    planted,
    renumbered,
    swept,
)

from loopspec.model import handlers, repair
from loopspec.model.commands import (
    FINISH_CANCELLED,
    FINISH_MAX_TOKENS,
    Abort,
    Ask,
    Command,
    Deny,
    HookAnswers,
    HookAudit,
    ModelReplies,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import Event, SurfaceReplace, ToolResultRecorded
from loopspec.model.messages import ContentBlock, ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
BASH_TOOL = ToolSpec("bash", required_keys=("command",))


class _FirstCardKept(dict[str, Any]):
    """A presenter's table of calls that keeps the first entry given for each call id."""

    def __setitem__(self, call_id: str, card: Any) -> None:
        if call_id not in self:
            super().__setitem__(call_id, card)


class KeepsTheFirstCardPerId(ModelTarget):
    """The model, except that its UI remembers the first call it showed for each call id: a
    later call reusing the id has its result (and approval) shown with the earlier call's
    view."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        capabilities = super().reset(config)
        self._presenter._calls = _FirstCardKept()
        return capabilities


def _keeps_every_text(blocks: tuple[ContentBlock, ...]) -> tuple[ContentBlock, ...]:
    return tuple(block for block in blocks if isinstance(block, TextBlock | ReasoningBlock))


KeepsBlankInterruptedText = planted(
    handlers,
    "_delivered_prefix",
    _keeps_every_text,
    "The model, except that an interrupted reply keeps its blank text and reasoning blocks (a "
    "test for an empty string where a blank one was meant).",
)

BLANK_REASONING: FreshBug = (
    "an interrupted reply keeps its blank reasoning",
    KeepsBlankInterruptedText,
    LoopConfig(),
    (SubmitUser(""), ModelReplies((ReasoningBlock(" "),), FINISH_CANCELLED)),
    "ABORT-2",
)


def test_ABORT_2_a_kept_blank_block_is_reported_as_blank_not_as_no_text() -> None:
    """ABORT-2: the reply kept a reasoning block of one space; the words say that blank blocks
    are dropped (where they said the reply had no text, which it had)."""
    assert_blamed_on(BLANK_REASONING)
    assert_passes_on_model(BLANK_REASONING)
    assert_report_says(
        [BLANK_REASONING],
        "an interrupted reply keeps its blank reasoning",
        "an interrupted reply whose text is all blank is omitted",
        "blank as EXE-2 reads it",
        lacks=("without text",),
    )


@pytest.mark.parametrize(
    ("tools", "matcher", "call"),
    [
        ((BASH_TOOL,), "bash", ToolCallBlock("c1", "bash", "\u001c\u0085")),
        ((BASH_TOOL,), "bash|write", ToolCallBlock("c1", "bash", '{"command":""}')),
        ((), ".*", ToolCallBlock("c1", "missing_tool", "{}")),
    ],
    ids=["arguments blank to Python alone", "a matched call", "an unregistered tool's call"],
)
def test_ABORT_2_a_kept_empty_block_beside_a_call_is_not_read_as_a_hook_waited_on(
    tools: tuple[ToolSpec, ...], matcher: str, call: ToolCallBlock
) -> None:
    """ABORT-2: the interrupted reply also made a call a PreToolUse hook matches; no hook waits
    on a call of a reply that did not complete, where the words said a loop reading its
    arguments as JavaScript does (EXE-2), reading the matcher as a glob (HOOK-8) or skipping an
    unregistered tool's hooks (EXE-5) commits the reply before its hook (seeds 35, 40 and 48 of
    30-49)."""
    assert_found(
        (
            "an interrupted reply keeps its empty reasoning beside a call",
            KeepsBlankInterruptedText,
            LoopConfig(tools=tools, hooks=(HookSpec("guard", "PreToolUse", matcher),)),
            (
                SubmitUser(""),
                ModelReplies((ReasoningBlock(""), call), FINISH_CANCELLED),
            ),
            "ABORT-2",
        ),
        "an interrupted reply keeps only its text and reasoning blocks that are not blank",
    )


def test_VIEW_2_a_result_shown_with_an_earlier_calls_card_is_found_and_reported_so() -> None:
    """VIEW-2: the targeted programs find the bug, and the words name the earlier call with the
    same id and the one the result answers (where they said the client lacked terminals,
    ACP-2, which sent the author elsewhere)."""
    divergence = swept(KeepsTheFirstCardPerId)
    what = divergence.what
    assert divergence.rule_id == "VIEW-2", what
    assert "as a result of the earlier call call_0 (tool read) would show" in what, what
    assert "the latest tool/call with its id" in what, what
    assert "without terminals" not in what, what


@pytest.mark.parametrize(
    "again",
    [
        (calls("c1", "missing_tool", "[]"),),
        (calls("c1", "read", '{"file_path":""}'), ToolFinishes("c1", ToolFailed(""))),
    ],
    ids=["an unregistered tool's", "a failed read's"],
)
def test_VIEW_2_a_raw_result_shown_fenced_with_an_earlier_calls_card_is_named_VIEW_2(
    again: tuple[Command, ...],
) -> None:
    """VIEW-2: a result the model shows raw, shown fenced as the earlier bash call with its id
    would show it, names that call (where VIEW-3 was named, 'a result no presenter renders
    shows its raw content': seeds 50, 53, 54, 58, 61 and 65 of 50-69)."""
    assert_found(
        (
            "a raw result shown with an earlier call's terminal card",
            KeepsTheFirstCardPerId,
            LoopConfig(tools=(READ, BASH_TOOL)),
            (
                SubmitUser(""),
                calls("c1", "bash", '{"command":""}'),
                ToolFinishes("c1", ToolSucceeded("")),
                *again,
            ),
            "VIEW-2",
        ),
        'as the earlier call c1 (tool bash, {"command":""}) would show it',
        "the latest tool/call with its id",
    )


def test_ACP_3_a_request_shown_with_an_earlier_calls_card_says_which_call_c1_is_which() -> None:
    """ACP-3: a permission request for a call reusing an earlier call's id, shown with that
    call's card, names the earlier and the latest call (where it said 'the card of call c1 ...,
    not of call c1': seeds 60, 66 and 67 of 50-69)."""
    assert_found(
        (
            "a request shown with an earlier call's card",
            KeepsTheFirstCardPerId,
            LoopConfig(tools=(READ, BASH_TOOL), hooks=(HookSpec("review", "PreToolUse", "read"),)),
            (
                SubmitUser(""),
                calls("c1", "bash", '{"command":""}'),
                ToolFinishes("c1", ToolSucceeded("")),
                calls("c1", "read", '{"file_path":""}'),
                HookAnswers(Ask("check")),
            ),
            "ACP-3",
        ),
        'the card of the earlier call c1 (tool bash, {"command":""}), not of the latest call c1',
    )


class AbortLeavesTheAskedCallUnanswered(ModelTarget):
    """The model, except that an abort answers a pending approval cancelled and stops there:
    the call that waited for it gets no result (the loop fails only the calls still waiting at
    the gate), so the batch never ends."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, Abort):
            return observed
        events = copied(observed)
        kinds = [event["type"] for event in events]
        if "approval/decided" not in kinds:
            return observed
        return renumbered(observed, events[: kinds.index("approval/decided") + 1])


ASKED_THEN_ABORTED: FreshBug = (
    "an abort leaves the call awaiting approval unanswered",
    AbortLeavesTheAskedCallUnanswered,
    LoopConfig(tools=(READ,), hooks=(HookSpec("late", "PreToolUse", ".*"),)),
    (SubmitUser(""), calls("c1", "read", '{"file_path":""}'), HookAnswers(Ask()), Abort("user")),
    "ABORT-1",
)


def test_ABORT_1_a_call_left_unanswered_by_an_abort_is_named_with_why_it_never_started() -> None:
    """ABORT-1: the words name the call, that it waited for its approval (cancelled by the
    abort) and the code its result carries, where they said only that every call that never
    started gets an error result."""
    assert_blamed_on(ASKED_THEN_ABORTED)
    assert_passes_on_model(ASKED_THEN_ABORTED)
    assert_report_says(
        [ASKED_THEN_ABORTED],
        "an abort leaves",
        "call c1 was waiting for its approval (answered cancelled now), so it never started",
        "(ABORTED_BEFORE_DISPATCH)",
    )


_CLOSERS = repair.interrupted_turn_closers


def _answers_the_answered_too(log: tuple[Event, ...]) -> tuple[Event, ...]:
    # The fold that finds the unanswered calls is shown no appended result.
    unseen = tuple(
        attrs.evolve(event, surface=SurfaceReplace(event.seq, event.seq))
        if isinstance(event, ToolResultRecorded)
        else event
        for event in log
    )
    return _CLOSERS(unseen)


RepairAnswersAnsweredCalls = planted(
    handlers,
    "interrupted_turn_closers",
    _answers_the_answered_too,
    "The model, except that crash repair answers every call of the open step's reply, those "
    "whose result is already in the log too.",
)


def test_REC_1_repair_answering_an_answered_call_is_found_by_the_targeted_programs() -> None:
    """REC-1: a crash after one of two calls has its result is a targeted program (random
    programs met it at the 25th and the 120th), and the duplicate result is blamed on the
    repair, whose words say what it answers."""
    divergence = swept(RepairAnswersAnsweredCalls)
    assert divergence.rule_id == "REC-1", divergence.what
    assert "a second result for c1" in divergence.what, divergence.what
    assert "still without a result once" in divergence.what, divergence.what


class RefusesAStrayOutcomeAsAPhaseError(ModelTarget):
    """The model, except that an outcome for a call not running in the open batch is refused
    with MODEL-1 (a phase error), where the model refuses it with EXE-4."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if observed.accepted or observed.refusal_rule != "EXE-4":
            return observed
        return attrs.evolve(observed, refusal_rule="MODEL-1")


STRAY_OUTCOME: FreshBug = (
    "an outcome for a call that is not running refused as a phase error",
    RefusesAStrayOutcomeAsAPhaseError,
    LoopConfig(tools=(READ,)),
    (
        SubmitUser(""),
        calls("c1", "read", '{"file_path":""}'),
        ToolFinishes("c2", ToolSucceeded("")),
    ),
    "EXE-4",
)


def test_EXE_4_a_stray_outcome_refused_as_a_phase_error_is_told_apart_from_one() -> None:
    """EXE-4: the words give the model's refusal and say which outcomes EXE-4 refuses and which
    MODEL-1 does, where they said only that both refuse it, with EXE-4 and MODEL-1."""
    assert_blamed_on(STRAY_OUTCOME)
    assert_passes_on_model(STRAY_OUTCOME)
    assert_report_says(
        [STRAY_OUTCOME],
        "an outcome for a call that is not running",
        "no running call 'c2'",
        "an outcome for a call that is not running (not started, finished, denied or unknown) "
        "is EXE-4's; MODEL-1 is for a phase that takes no tool outcome at all",
    )


class SummaryFallsBackToTheReason(ModelTarget):
    """The model, except that a hook/result whose audit gives no stderrSummary records the
    hook's reason there (`audit.stderrSummary ?? reason`)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, HookAnswers) or not isinstance(command.verdict, Deny):
            return observed
        events = copied(observed)
        for event in events:
            data = event["data"]
            if event["type"] == "hook/result" and "stderrSummary" not in data:
                data["stderrSummary"] = command.verdict.reason
        return renumbered(observed, events)


AUDIT_WITHOUT_SUMMARY: FreshBug = (
    "an audit without stderrSummary given the hook's reason",
    SummaryFallsBackToTheReason,
    LoopConfig(tools=(READ,), hooks=(HookSpec("guard", "PreToolUse", "read"),)),
    (
        SubmitUser(""),
        calls("c1", "read", '{"file_path":""}'),
        HookAnswers(Deny("not now"), HookAudit(exit_code=2, duration_ms=5.0)),
    ),
    "TEXT-2",
)


def test_TEXT_2_an_audit_field_filled_in_is_named_with_both_values() -> None:
    """TEXT-2: the words name the fields (where they said 'these') and give the model's and
    the target's value of each."""
    assert_blamed_on(AUDIT_WITHOUT_SUMMARY)
    assert_passes_on_model(AUDIT_WITHOUT_SUMMARY)
    assert_report_says(
        [AUDIT_WITHOUT_SUMMARY],
        "an audit without stderrSummary",
        'stderrSummary absent in the model, "not now" in the target',
        "takes its durationMs, exitCode and stderrSummary from the answer's audit",
        "the hook's reason does not stand in for it",
        lacks=("takes these",),
    )


class GoesOnAfterMaxTokensWithInputQueued(ModelTarget):
    """The model, except that a reply cut off at max-tokens while the user's input is queued
    opens the next step with that input, where the turn ends 'max-tokens'."""

    def apply(self, command: Command) -> Observation:
        queued = self.state.inbox if self.state is not None else ()
        observed = super().apply(command)
        if not (isinstance(command, ModelReplies) and command.finish == "max-tokens" and queued):
            return observed
        events = copied(observed)[:-1]  # the turn/end
        closed = events[-1]["data"]  # the step/end
        opened = {"turn": closed["turn"], "step": closed["step"] + 1}
        events.append({"type": "step/start", "seq": 0, "time": 0, "data": opened})
        for message in queued:
            text = [{"type": "text", "text": message.text}]
            typed = {"role": "user", "content": text, "source": {"kind": "user"}, "id": "q"}
            events.append({"type": "user/message", "seq": 0, "time": 0, "data": typed})
            events[-1]["surfaceOp"] = "append"
        return renumbered(observed, events)


MAX_TOKENS_WITH_INPUT: FreshBug = (
    "a max-tokens reply with input queued goes on",
    GoesOnAfterMaxTokensWithInputQueued,
    LoopConfig(),
    (SubmitUser(""), SubmitUser("and more"), ModelReplies((), FINISH_MAX_TOKENS)),
    "STEP-4",
)


def test_STEP_4_a_max_tokens_reply_that_goes_on_with_queued_input_is_told_it_parks_it() -> None:
    """STEP-4: the words say the turn ends 'max-tokens' with messages queued too, and where
    they go (the next turn, ADJ-4), where they said only that it ends the turn."""
    assert_blamed_on(MAX_TOKENS_WITH_INPUT)
    assert_passes_on_model(MAX_TOKENS_WITH_INPUT)
    assert_report_says(
        [MAX_TOKENS_WITH_INPUT],
        "a max-tokens reply",
        "also when messages are queued: they are parked for the next turn's first step",
    )
