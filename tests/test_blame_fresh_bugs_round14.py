"""Fresh bugs of session 33, found by the programs and blamed on the rule their author must fix.

Session 33 wrote a loop in Perl (5.36, core modules alone, its JSON reader and writer its own
so that numbers keep their text) outside the project, from README.md, docs/ and SPEC.md,
declaring every capability (presentation and history too); it passed 200 programs on seeds 1
and 2 after two fixes the docs had not asked for (a success an abort makes ABORTED keeps none of
the body's contexts or meta: ABORT-1 now says so). Forty-five one-line bugs were then planted in
copies of it and `loopspec conform` ran on each with both seeds: every one was found on both, 41
named by the rule expected before the run and four by another that SPEC.md gives the situation
(a body running the model's input after an approval, RW-4; a lost result after an abort, and an
abort leaving an approval unanswered, ABORT-1; repair results out of order, REC-1). Planted here
in the model and played (the Perl loop is not kept: the suite runs no perl):

- five bugs no targeted program showed, found only after 7 to 73 random programs on a seed: an
  abort answering a call with invalid input behind a pending approval INVALID_TOOL_INPUT (52
  and 73), an ask outranking a deny (31 and 12), a denied call's record keeping a hook's rewrite
  (31 and 7), a context queued before a crash delivered after repair (25 and 7), a reply without
  calls ending the turn while a message was queued (10 and 26); four targeted programs now show
  each at once;
- the context queued before a crash was named right (ADJ-4), in words saying that what the last
  turn left queued opens the next one, which the loop did; they now say that a crash loses it;
- a body running the model's input in place of every rewrite was found on both seeds by a
  rewrite a hook asked about: named RW-4, as SPEC.md names running the original after approval,
  in words saying only that approval runs the approved input, which leads to the approval's
  path; they now say the body ran the model's original input, and that with no approval too
  such a loop breaks RW-1.

A second batch of eleven bugs, planted once the first was in, was found on both seeds too (two
of them, on a seed, by a targeted program alone), nine named as expected, a result title made
relative from the arguments' path whatever the diffs name VIEW-2 (in words naming VIEW-4's part:
which path the title replaces is the presenter's), and one by what the target's own log broke:

- an abort's cancelled approval written after the step it was asked in ended: named DEC-2 (an
  answer outside its request's step), which a log alone reads; it is now ABORT-3, which says
  where the abort's cancelled answer goes, as round 10's written with its call's result is.
"""

from __future__ import annotations

import attrs
import pytest
from fresh_bugs import (
    GUARDED_BASH,
    AskOutranksDeny,
    FreshBug,
    assert_found,
    bash_answered,
    calls,
    copied,
    planted,
    renumbered,
    swept,
)

from loopspec.model import dispatch, rewrite
from loopspec.model.commands import (
    Abort,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    HookAnswers,
    ModelReplies,
    Pass,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.draft import Draft
from loopspec.model.events import ApprovalDecided
from loopspec.model.messages import ToolCallBlock
from loopspec.model.pure.decisions import RANK_DENY
from loopspec.model.records import INVALID_TOOL_INPUT, error_info
from loopspec.model.rewrite import INVALID, rank_of
from loopspec.model.state import ASKING, DENY, READY, WAITING, Dispatching, HookVote
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.stateful.strategies import TOOLS


def _aborts_invalid_input_as_invalid(draft: Draft, phase: Dispatching) -> Dispatching:
    """An abort that answers a call with invalid input it finds behind the gate as invalid
    input, where it never reached the gate (a loop judging each call's input as it aborts it)."""
    slots = list(phase.slots)
    for index in range(phase.gate, len(slots)):
        slot = slots[index]
        if slot.status == ASKING:
            draft.add(ApprovalDecided, slot.approval_id or "", "cancelled")
        if slot.status in (WAITING, ASKING):
            result = dispatch._aborted_before_dispatch()
            if slot.decision == INVALID:
                info = error_info("InvalidToolInputError", INVALID_TOOL_INPUT)
                result = dispatch._error_result(slot.reason or "", info)
            slots[index] = attrs.evolve(slot, status=READY, result=result)
    return attrs.evolve(phase, slots=tuple(slots), gate=len(slots))


_real_resolve_call = rewrite.resolve_call


def _resolved_keeping_the_rewrite(
    call: ToolCallBlock, votes: tuple[HookVote, ...], config: LoopConfig
) -> rewrite.Resolution:
    """A denied call recorded with the input its other hooks supplied, and its sidecar."""
    resolved = _real_resolve_call(call, votes, config)
    if resolved.decision != DENY:
        return resolved
    allowed = tuple(vote for vote in votes if rank_of(vote.verdict) != RANK_DENY)
    kept = _real_resolve_call(call, allowed, config)
    if kept.sidecar is None:
        return resolved
    return attrs.evolve(resolved, arguments=kept.arguments, sidecar=kept.sidecar)


class CrashKeepsTheQueue(ModelTarget):
    """The model, except that what is queued survives a crash (an inbox kept beside the log)."""

    def apply(self, command: Command) -> Observation:
        queued = self.state.inbox if self.state is not None else ()
        observed = super().apply(command)
        if isinstance(command, Crash | Recover) and self.state is not None:
            self.state = attrs.evolve(self.state, inbox=queued)
        return observed


class EndsTheTurnOnAReplyWithoutCalls(ModelTarget):
    """The model, except that a completed reply without calls ends the turn whatever is queued
    (the messages then parked for the next turn)."""

    def apply(self, command: Command) -> Observation:
        queued = self.state.inbox if self.state is not None else ()
        ends = (
            isinstance(command, ModelReplies)
            and not command.tool_calls
            and command.finish == "completed"
        )
        if ends and self.state is not None:
            self.state = attrs.evolve(self.state, inbox=())
            observed = super().apply(command)
            self.state = attrs.evolve(self.state, inbox=queued)
            return observed
        return super().apply(command)


@pytest.mark.parametrize(
    ("target", "rule", "says"),
    [
        (
            planted(
                dispatch,
                "_abort_unstarted",
                _aborts_invalid_input_as_invalid,
                _aborts_invalid_input_as_invalid.__doc__ or "",
            ),
            "ABORT-1",
            "pending approval held the gate",
        ),
        (AskOutranksDeny, "HOOK-2", "a deny outranks every other answer"),
        (
            planted(
                rewrite,
                "resolve_call",
                _resolved_keeping_the_rewrite,
                _resolved_keeping_the_rewrite.__doc__ or "",
            ),
            "HOOK-3",
            "a deny discards every rewrite",
        ),
        (CrashKeepsTheQueue, "ADJ-4", "which loses every message and context still queued"),
        (EndsTheTurnOnAReplyWithoutCalls, "STEP-4", "unless messages are queued"),
    ],
    ids=[
        "an abort answering invalid input behind an approval as invalid",
        "an ask outranking a deny",
        "a denied call keeping a hook's rewrite",
        "a context queued before a crash delivered after repair",
        "a reply without calls ending the turn while a message is queued",
    ],
)
def test_ABORT_1_HOOK_2_HOOK_3_ADJ_4_STEP_4_round_14s_late_bugs_are_found_by_targeted_programs(
    target: type[ModelTarget], rule: str, says: str
) -> None:
    """ABORT-1, HOOK-2, HOOK-3, ADJ-4, STEP-4: five of the Perl loop's bugs were found only after
    7 to 73 random programs on a seed, and by no targeted program; four targeted programs now
    make their situations: an invalid call behind a pending approval when an abort lands, a call
    one hook asks about and another denies beside one a hook rewrites and another denies, a
    context queued when the loop crashes, and a message queued before a reply without calls."""
    divergence = swept(target)
    assert divergence.rule_id == rule, divergence.what
    assert says in divergence.what, divergence.what


CONTEXT_QUEUED_ACROSS_A_CRASH: FreshBug = (
    "a context queued before a crash delivered after repair",
    CrashKeepsTheQueue,
    LoopConfig(tools=TOOLS, max_parallel=1),
    (
        SubmitUser(""),
        ModelReplies(
            (
                ToolCallBlock("c1", "read", '{"file_path":""}'),
                ToolCallBlock("c2", "read", '{"file_path":""}'),
            )
        ),
        ToolFinishes("c1", ToolSucceeded("", ("r",))),
        Crash(),
        Recover(),
        SubmitUser(""),
    ),
    "ADJ-4",
)


def test_ADJ_4_a_context_queued_before_a_crash_is_said_to_be_lost() -> None:
    """ADJ-4: the Perl loop kept its queue across a crash and delivered call c1's context when
    the next turn opened. The words said that what the last turn left queued opens the next
    turn's first step, which the loop did; they now say that the crash, whose repair ended that
    turn interrupted, lost it."""
    assert_found(
        CONTEXT_QUEUED_ACROSS_A_CRASH,
        'the last turn was cut by a crash (repair ended it "interrupted"), which loses every '
        "message and context still queued",
        'the target\'s message here is "r"',
        lacks=("open the next turn's first step",),
    )


def test_ADJ_4_an_empty_message_queued_before_a_crash_is_not_a_text_cut_at_0_units() -> None:
    """ADJ-4: the same loop delivering an empty message queued before the crash, where the
    next turn opens with a text holding a character past U+FFFF, was blamed TEXT-2 as that
    text "cut at 0 UTF-16 units" (batches 12 and 17 of 10-29)."""
    assert_found(
        (
            "an empty message queued before a crash delivered after repair",
            CrashKeepsTheQueue,
            LoopConfig(tools=(), max_parallel=1),
            (SubmitUser(""), SubmitUser(""), Crash(), Recover(), SubmitUser("done \U0001f642")),
            "ADJ-4",
        ),
        "which loses every message and context still queued",
        lacks=("UTF-16",),
    )


class RunsTheModelsInput(ModelTarget):
    """The model, except that a body runs the model's own input, whatever a hook rewrote (the
    record, the history and the approval request hold the rewrite)."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self.original: dict[str, str] = {}
        return super().reset(config)

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        for event in observed.events:
            rewrite_sidecar = event["data"].get("rewrite") if event["type"] == "tool/call" else None
            if rewrite_sidecar is not None:
                self.original[event["data"]["callId"]] = rewrite_sidecar["originalArguments"]
        executed = tuple((c, self.original.get(c, args)) for c, args in observed.executed)
        return attrs.evolve(observed, executed=executed)


ORIGINAL_RUN_AFTER_APPROVAL: FreshBug = (
    "the model's input run after an approved rewrite",
    RunsTheModelsInput,
    GUARDED_BASH,
    (
        *bash_answered('{"command":"ls"}', Pass(), Ask(updated_input={"command": "ls -a"})),
        ApprovalAnswers("allowed-once"),
    ),
    "RW-4",
)


def test_RW_4_a_body_running_the_models_input_after_an_approved_rewrite_is_named_so() -> None:
    """RW-4: the Perl loop ran every call with the model's input, a hook's rewrite recorded but
    not run; both seeds showed it first on a rewrite a hook asked about, after allowed-once. The
    words said only that approval runs the approved input, and now say what ran: the model's
    original input, not the rewrite, which breaks RW-1 with no approval too."""
    assert_found(
        ORIGINAL_RUN_AFTER_APPROVAL,
        "it runs the model's original input, not hook rewriter's rewrite",
        "breaks RW-1 with no approval too",
    )


class CancelsOnceTheStepEnded(ModelTarget):
    """The model, except that an abort's cancelled approval is written after the events the
    abort appends (after the step and turn it ends, when no call still runs)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not (observed.accepted and isinstance(command, Abort)):
            return observed
        events = copied(observed)
        answers = [e for e in events if e["type"] == "approval/decided"]
        rest = [e for e in events if e["type"] != "approval/decided"]
        return renumbered(observed, rest + answers)


APPROVAL_CANCELLED_AFTER_THE_STEP: FreshBug = (
    "an abort's cancelled approval written after its step ended",
    CancelsOnceTheStepEnded,
    LoopConfig(tools=TOOLS, hooks=(HookSpec("late", "PreToolUse", ".*"),)),
    (SubmitUser(""), calls("c1", "read", '{"file_path":""}'), HookAnswers(Ask()), Abort("user")),
    "ABORT-3",
)


class EndsTheStepBeforeTheAbortsAnswers(ModelTarget):
    """The model, except that an abort's step/end is written first, before its cancelled
    approval and the call's result."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not (observed.accepted and isinstance(command, Abort)):
            return observed
        events = copied(observed)
        ends = [e for e in events if e["type"] == "step/end"]
        rest = [e for e in events if e["type"] != "step/end"]
        return renumbered(observed, ends + rest)


def test_ABORT_3_a_cancelled_approval_after_a_step_ended_early_is_named_ABORT_3() -> None:
    """ABORT-3: with its step ended before the abort's result too, the target's own log reads
    the late cancelled answer as one outside its request's step (DEC-2: no aborted result came
    in the step), and conform names it ABORT-3 in words of its own
    (`blame.classify._cancelled_approval_written_late`, which no test reached: check's invariant
    names the shape above ABORT-3 itself since db69e10)."""
    row: FreshBug = (
        "an abort's step/end written before its cancelled approval and result",
        EndsTheStepBeforeTheAbortsAnswers,
        *APPROVAL_CANCELLED_AFTER_THE_STEP[2:],
    )
    assert_found(
        row,
        "the target's own log breaks DEC-2 at its seq 9: approval/decided approval-c1 answers a "
        "request of call c1 whose step ended at seq 8",
        'it writes the abort\'s cancelled answer to "approval-c1" after its step ended',
    )


def test_ABORT_3_a_cancelled_approval_written_after_its_step_ended_is_named_ABORT_3() -> None:
    """ABORT-3: the Perl loop wrote an abort's cancelled approval once the abort's other events
    were written, after the step and turn ended. The target's own log then answers a request
    outside its step, which the report named (DEC-2); ABORT-3 says where the answer goes, in
    conform's report as in check's, which names it first where the turn ends with the request
    unanswered (`model.invariants.lapsed_request_ends_turn_interrupted`; the late answer is
    blamed too, `approval_shows_effective_input`)."""
    assert_found(
        APPROVAL_CANCELLED_AFTER_THE_STEP,
        "about call c1 left unanswered when its step ended (seq 9)",
        "an abort's cancelled approval is written when the abort lands, before the call's "
        "ABORTED_BEFORE_DISPATCH result",
    )
