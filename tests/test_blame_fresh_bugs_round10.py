"""Fresh bugs of session 29, found by the programs and blamed on the rule their author must fix.

Session 29 wrote twenty-six more wrong loops outside the project (copies of `impl/` and of
`examples/js-loop/`, each with one bug), favouring the rule families earlier rounds planted least
in (scheduling, wording, call ids and arguments, step and commit order, the protocol, refusals),
and ran `loopspec conform` on each. Where no program showed the bug, or the report named another
rule than the one the bug breaks, the difference is planted here in the model and the programs
that must show it are played:

- an aborted batch whose results queued contexts going on to a next step with them: named
  STEP-1 (a step/start the model does not append); now ABORT-1, saying the turn ends aborted;
- arguments `null` read as no arguments, `{}`, so the call runs: named EXE-5 (the order calls
  are judged in); now EXE-2, saying null is JSON whose value is no object;
- a second abort of another cause taken, the turn ending with it: found only by the targeted
  program (a second abort carried the first one's cause, taken from the log's length, which
  nothing had changed); the programs' second abort now carries another cause, and the words
  give both;
- an abort sent while no turn ran, refused, kept for the next turn, which ends aborted: named
  STEP-4 or ORD-1 (the reply the target did not log); now MODEL-3, naming the refused abort;
- an outcome for a call waiting for its approval taken as its body's: passed one seed; a
  targeted program sends one;
- a cancelled approval written only with its call's result, once the earlier call running when
  the abort landed settled: named ABORT-1, saying an abort answers pending approvals, which the
  loop did; now ABORT-3, where a probe shows the answer written later;
- a repeat of the same text typed mid-turn delivered once: named right (ADJ-4), in words saying
  queued messages are delivered; they now say the text was sent twice;
- a rejection remembered for the tool for the rest of the reply: named right (DEC-2), in words
  sending the reader to ask decisions; they now name the call rejected before;
- no input checked for a tool that is not registered: named EXE-5 with a note on JavaScript's
  `trim` on one seed, EXE-2 (a reader of lossy JSON) on the other; a probe now tells it where
  it can, and the EXE-2 words say it shows the same where it cannot;
- a result citing its reply's seq: named right (ORD-2), the seq cited given alone; the words
  now say it is the reply's;
- a repair result of the right code with its text cut short: named right (REC-1), in words
  saying repair answers with that code, which it did; they now give the words due;
- a failed bash result shown as its raw content: named ACP-2 (a client without terminals);
  now VIEW-2, saying a failed body's result is the terminal's output too;
- an exit-2 deny recorded `deny`: named right (TEXT-2), the words now saying the answer's audit
  names `block`;
- a denied call before a running one counted as running (its result commits after the reply's
  records, where the count stopped): found through the probe on a cancelled approval.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import attrs
import pytest
from fresh_bugs import (
    FreshBug,
    answering_the_tool_for_the_reply,
    assert_blamed_on,
    assert_found,
    assert_passes_on_model,
    assert_report_says,
    calls,
    copied,
    names,
    planted,
    renumbered,
    swept,
)
from mutants import MUTANTS, MutantTarget

from loopspec.model import dispatch, handlers, presenters, records, repair, rewrite
from loopspec.model.commands import (
    FINISH_CANCELLED,
    Abort,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    HookAudit,
    ModelReplies,
    Pass,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import Event, ToolResultRecorded
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.state import ASKING, RUNNING, Dispatching, Idle, QueuedMessage
from loopspec.properties.conformance.blame.history import earlier_unanswered
from loopspec.properties.conformance.blame.readings import falsy_read_as_empty
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.stateful.strategies import ABORT_CAUSE_CYCLE, abort_on

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
BASH = ToolSpec("bash")


_INPUT_PROBLEM = rewrite.input_problem


def reading_input(problem: Any, what: str) -> type[ModelTarget]:
    """The model with `problem` in place of its input check (`rewrite.input_problem`, which
    decides which calls hooks see and which are invalid input); `what` says the bug."""

    class ReadsInput(ModelTarget):
        def apply(self, command: Command) -> Observation:
            with pytest.MonkeyPatch.context() as patch:
                for owner in (handlers, rewrite):
                    patch.setattr(owner, "input_problem", problem)
                return super().apply(command)

    ReadsInput.__doc__ = what
    return ReadsInput


def _goes_on_with_queued(draft: Any, turn: int, why: FrozenMap) -> None:
    phase = draft.state.phase
    if why.get("kind") == "aborted" and draft.inbox and isinstance(phase, Dispatching):
        records.open_step(draft, turn, phase.step + 1, draft.inbox)
        draft.set(inbox=())
        return
    records.end_turn(draft, turn, why)


ABORTED_BATCH_GOES_ON: FreshBug = (
    "an aborted batch with queued contexts goes on",
    planted(
        dispatch,
        "end_turn",
        _goes_on_with_queued,
        "The model, except that an aborted batch whose results queued contexts opens the next "
        "step with them instead of ending the turn.",
    ),
    LoopConfig(tools=(READ,)),
    (
        SubmitUser("read both"),
        ModelReplies(
            (
                *calls("c1", "read", '{"file_path":"a.txt"}').blocks,
                *calls("c2", "read", '{"file_path":"b.txt"}').blocks,
            )
        ),
        ToolFinishes("c1", ToolSucceeded("A", ("see b.txt too",))),
        Abort("user"),
        ToolFinishes("c2", ToolSucceeded("B")),
    ),
    "ABORT-1",
)


def test_ABORT_1_an_aborted_batch_going_on_with_queued_contexts_is_named_ABORT_1() -> None:
    """ABORT-1: once an aborted batch's last result commits the turn ends aborted, contexts
    queued or not (where STEP-1, the numbering of steps, was named)."""
    assert_found(
        ABORTED_BATCH_GOES_ON,
        'the batch was aborted (cause "user"), so once its last result commits the step ends '
        "and the turn ends aborted, even with messages queued",
    )


NULL_ARGUMENTS: FreshBug = (
    "arguments null read as {}",
    reading_input(
        lambda call, config: None if call.arguments == "null" else _INPUT_PROBLEM(call, config),
        "The model, except that arguments `null` read as no arguments, {} (`JSON.parse(raw) ?? "
        "{}`), so the call is valid input.",
    ),
    LoopConfig(tools=(BASH,)),
    (SubmitUser("list the files"), calls("c1", "bash", "null")),
    "EXE-2",
)


def test_EXE_2_arguments_null_read_as_no_arguments_are_named_EXE_2() -> None:
    """EXE-2: `null` is JSON whose value is no object, an INVALID_TOOL_INPUT call (where EXE-5,
    the order calls are judged in, was named)."""
    assert_found(
        NULL_ARGUMENTS,
        'its arguments "null" are JSON whose value is not an object',
        "JSON.parse(raw) ?? {}",
    )


GUARDED_BASH = LoopConfig(tools=(BASH,), hooks=(HookSpec("guard", "PreToolUse", "bash"),))
NULL_BEFORE_A_HOOKED_CALL = (
    SubmitUser(""),
    ModelReplies(
        (ToolCallBlock("c1", "bash", "null"), ToolCallBlock("c2", "bash", '{"command":"ls"}'))
    ),
    HookAnswers(Pass()),
)
HOOKS_FOR_ANY_INPUT = planted(
    handlers,
    "input_problem",
    lambda call, config: None,
    "The model, except that PreToolUse hooks run for every call, whatever its input.",
)
NULL_READ_AS_EMPTY_ROWS: list[FreshBug] = [
    (
        "arguments null read as {}, hooked where another call's hook runs",
        NULL_ARGUMENTS[1],
        GUARDED_BASH,
        NULL_BEFORE_A_HOOKED_CALL,
        "EXE-2",
    ),
    (
        "hooks run for any input, null too",
        HOOKS_FOR_ANY_INPUT,
        GUARDED_BASH,
        NULL_BEFORE_A_HOOKED_CALL,
        "HOOK-4",
    ),
    (
        "arguments null read as {}, the reply held for its hook",
        NULL_ARGUMENTS[1],
        GUARDED_BASH,
        (SubmitUser(""), calls("c1", "bash", "null")),
        "EXE-2",
    ),
    (
        "hooks run for any input, the reply held for a null call's hook",
        HOOKS_FOR_ANY_INPUT,
        GUARDED_BASH,
        (SubmitUser(""), calls("c1", "bash", "null")),
        "HOOK-4",
    ),
    (
        "arguments null read as {}, started while an earlier call runs",
        NULL_ARGUMENTS[1],
        LoopConfig(tools=(READ,)),
        (
            SubmitUser(""),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),
                    ToolCallBlock("c2", "read", "null"),
                )
            ),
        ),
        "EXE-2",
    ),
]
NULL_READ_AS_EMPTY_WORDS = [
    (
        'runs hook guard for call c1: its arguments "null" are JSON whose value is not an object',
        "a reply calling bash with 1 after it, sent to tell, was answered INVALID_TOOL_INPUT "
        "without a hook",
    ),
    (
        "the target runs hook guard for call c1, whose input is invalid",
        "no PreToolUse hook runs for a call with invalid input",
    ),
    (
        'call c1\'s arguments "null" are JSON whose value is not an object (a call of bash '
        "with 1, sent after it to tell, the target judged invalid without a hook",
    ),
    ("call c1's input is invalid (invalid input for tool bash", "the reply is committed now"),
    (
        "starts the body of call c2, which the model does not start now: its arguments "
        '"null" are JSON whose value is not an object',
        "JSON.parse(raw) ?? {}",
    ),
]


@pytest.mark.parametrize(
    ("row", "says"),
    list(zip(NULL_READ_AS_EMPTY_ROWS, NULL_READ_AS_EMPTY_WORDS, strict=True)),
    ids=names(NULL_READ_AS_EMPTY_ROWS),
)
def test_EXE_2_HOOK_4_a_null_call_hooked_or_started_is_named_by_how_the_loop_read_it(
    row: FreshBug, says: tuple[str, ...]
) -> None:
    """EXE-2: a loop reading `null` as {} ran a PreToolUse hook for the call (where the model
    runs another call's), held the reply for that hook, or started the call's body while an
    earlier call ran; random programs' first failure named HOOK-4 (no hook for invalid input)
    on 13 of batches 0-19 and SCHED-1 (the gate's order) on 2. A probe now tells it from a loop
    running hooks for any input (HOOK-4, the control rows): a call of the same tool with
    arguments 1, no object to any reader, answered invalid without a hook."""
    assert_blamed_on(row)
    assert_passes_on_model(row)
    assert_report_says([row], row[0], *says)


@pytest.mark.parametrize(
    ("raw", "readers"),
    [
        ("null", "JSON.parse(raw) ?? {}, JSON.parse(raw) || {} or json.loads(raw) or {}"),
        ("0", "JSON.parse(raw) || {} or json.loads(raw) or {}"),
        ("[]", "json.loads(raw) or {}"),
    ],
)
def test_EXE_2_a_value_read_as_no_arguments_names_the_readers_that_replace_it(
    raw: str, readers: str
) -> None:
    """EXE-2: every such call was told `JSON.parse(raw) ?? {}` read it as {}, and SPEC said
    `??` takes 0, "" and [] for false: `??` replaces null alone, `||` null, false, 0 and "" (an
    array is true to JavaScript), Python's `or` all five. Each value names the readers that
    replace it."""
    said = falsy_read_as_empty(raw, "starts it")
    assert said.endswith(f"a loop reading such a value as no arguments ({readers}) starts it")


class TakesAnotherCause(ModelTarget):
    """The model, except that an abort of another cause than the one draining is taken: the
    turn ends with the later cause (a loop refusing only a repeat of the first abort)."""

    def apply(self, command: Command) -> Observation:
        phase = self.state.phase if self.state is not None else None
        if (
            isinstance(command, Abort)
            and isinstance(phase, Dispatching)
            and phase.aborting not in (None, command.cause)
        ):
            assert self.state is not None
            self.state = attrs.evolve(self.state, phase=attrs.evolve(phase, aborting=None))
        return super().apply(command)


SECOND_CAUSE_TAKEN: FreshBug = (
    "a second abort of another cause taken",
    TakesAnotherCause,
    LoopConfig(tools=(READ,)),
    (
        SubmitUser("read it"),
        calls("c1", "read", '{"file_path":"a.txt"}'),
        Abort("user"),
        Abort("parent"),
    ),
    "ABORT-1",
)


def test_ABORT_1_a_second_abort_of_another_cause_taken_names_both_causes() -> None:
    """ABORT-1: the words say the second abort changes nothing and give the cause the turn
    ends with, the first abort's (they said only that the target accepted it)."""
    assert_found(
        SECOND_CAUSE_TAKEN,
        "a second abort while the first drains changes nothing, whatever its cause, and the turn "
        "ends aborted with the first one's (user), not this one's (parent)",
    )


@pytest.mark.parametrize("landing", ABORT_CAUSE_CYCLE)
def test_ABORT_3_a_second_abort_carries_another_cause_than_the_first(landing: str) -> None:
    """ABORT-3: whatever the log's length, an abort sent while one with cause `landing` drains
    carries another cause (it carried the first one's whenever nothing had settled between, and
    a loop taking it passed every program), never the user's (a loop recording every abort as
    the user's read as that abort, refused, taken: MODEL-3 on batches 0 and 1 of session 37's
    draws), and a first abort still cycles through them all."""
    lengths = range(2 * len(ABORT_CAUSE_CYCLE))
    assert all(abort_on(length, landing).cause not in (landing, "user") for length in lengths)
    assert {abort_on(length).cause for length in lengths} == set(ABORT_CAUSE_CYCLE)


class RecordsEveryAbortAsTheUsers(MutantTarget):
    """tests/mutants.py's every-abort-the-users: every aborted turn's cause is the user's."""

    def __init__(self) -> None:
        super().__init__(next(m for m in MUTANTS if m.name == "every-abort-the-users"))


EVERY_ABORT_THE_USERS: FreshBug = (
    "every abort recorded as the user's, a user's abort refused after it",
    RecordsEveryAbortAsTheUsers,
    LoopConfig(tools=(READ,)),
    (
        SubmitUser("read it"),
        calls("c1", "read", '{"file_path":"a.txt"}'),
        Abort("parent"),
        Abort("user"),
        ToolFinishes("c1", ToolSucceeded("A")),
    ),
    "ABORT-3",
)


def test_ABORT_3_every_abort_recorded_as_the_users_is_not_a_refused_abort_taken() -> None:
    """ABORT-3: a turn aborted by the parent, whose second abort (the user's) was refused, ends
    with cause "user" in a loop recording every abort as the user's; the report read it as the
    refused abort's cause taken (MODEL-3, round 9's loop). A probe aborting one more turn with
    another cause tells them apart: this loop records "user" again."""
    assert_found(
        EVERY_ABORT_THE_USERS,
        "(an abort records its cause: reason.reason.kind)",
        'a turn opened after it and aborted by one Abort of cause "disposed", sent to tell, '
        'ended with cause "user" too',
        lacks=("refused by the model and by the target",),
    )


class LatchesAnIdleAbort(ModelTarget):
    """The model, except that an abort refused while no turn runs is kept, and the next turn's
    reply is taken as cut off by it."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self.latched = False
        return super().reset(config)

    def apply(self, command: Command) -> Observation:
        idle = self.state is not None and isinstance(self.state.phase, Idle)
        if isinstance(command, Abort) and idle:
            self.latched = True
        if isinstance(command, ModelReplies) and self.latched:
            self.latched = False
            command = attrs.evolve(command, finish=FINISH_CANCELLED)
        return super().apply(command)


IDLE_ABORT_LATCHED: FreshBug = (
    "an abort refused while idle kept for the next turn",
    LatchesAnIdleAbort,
    LoopConfig(tools=(READ,)),
    (Abort("user"), SubmitUser("hi"), ModelReplies((TextBlock("hello"),))),
    "MODEL-3",
)


def test_MODEL_3_an_abort_refused_while_idle_that_ends_the_next_turn_is_named_MODEL_3() -> None:
    """MODEL-3: the words name the refused abort the target kept (where STEP-4 or ORD-1 was
    named, after the reply the target did not log)."""
    assert_found(
        IDLE_ABORT_LATCHED,
        'the target ends the turn aborted, cause "user", where the model ends it "completed"',
        "command #1, an Abort sent while no turn ran, was refused by the model and by the target",
    )


@pytest.mark.parametrize(
    "reply",
    [
        calls("c1", "read", '{"file_path":""}'),
        ModelReplies((TextBlock("hel"),), finish="max-tokens"),
    ],
    ids=["completed", "cut off at max-tokens"],
)
def test_MODEL_3_an_idle_abort_of_another_cause_than_the_turns_is_named_MODEL_3(
    reply: ModelReplies,
) -> None:
    """MODEL-3: a turn the target ends aborted with another cause than the refused abort's, on
    a reply that finished completed, is the kept abort still (random programs' first failure,
    seeds 1, 3 to 6, 8: STEP-4, the step/end the target appends), and on one cut off at
    max-tokens too, which ends no turn aborted either (seed 7 of session 34's batches: ABORT-2,
    the reply marked interrupted)."""
    assert_found(
        (
            "an abort of another cause refused while idle kept for the next turn",
            LatchesAnIdleAbort,
            LoopConfig(tools=(READ,)),
            (Abort("hook"), SubmitUser(""), reply),
            "MODEL-3",
        ),
        'command #1, an Abort sent while no turn ran (its cause "hook", not the turn\'s)',
    )


class SettlesAnAskingCall(ModelTarget):
    """The model, except that an outcome for a call waiting for its approval is taken as its
    body's (a loop looking the call up among those asking too)."""

    def apply(self, command: Command) -> Observation:
        phase = self.state.phase if self.state is not None else None
        if isinstance(command, ToolFinishes) and isinstance(phase, Dispatching):
            slots = tuple(
                attrs.evolve(slot, status=RUNNING)
                if slot.call_id == command.call_id and slot.status == ASKING
                else slot
                for slot in phase.slots
            )
            assert self.state is not None
            self.state = attrs.evolve(self.state, phase=attrs.evolve(phase, slots=slots))
        return super().apply(command)


def test_EXE_4_an_outcome_for_a_call_awaiting_approval_is_found_by_a_targeted_program() -> None:
    """EXE-4: an outcome for a call whose approval is pending is refused; a loop that took it
    passed the 200 programs of one seed, and a targeted program sends one."""
    divergence = swept(SettlesAnAskingCall)
    assert divergence.rule_id == "EXE-4", divergence.what
    assert "no running call 'c1'" in divergence.what, divergence.what


GATED_READS = LoopConfig(tools=(READ,), hooks=(HookSpec("gate", "PreToolUse", "read"),))
"""Reads a PreToolUse hook judges, so that it can ask about them."""


class CancelsWithTheResult(ModelTarget):
    """The model, except that the cancelled answer to the approval an abort found pending is
    written with that call's result, when it commits, not when the abort lands."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self.held: list[dict[str, Any]] = []
        return super().reset(config)

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        if isinstance(command, Abort):
            self.held += [e for e in events if e["type"] == "approval/decided"]
            events = [e for e in events if e["type"] != "approval/decided"]
        for held in list(self.held):
            call_id = held["data"]["id"].removeprefix("approval-")
            at = next(
                (
                    i
                    for i, e in enumerate(events)
                    if e["type"] == "tool/result"
                    and e["data"]["message"]["source"]["callId"] == call_id
                ),
                None,
            )
            if at is not None:
                events.insert(at, held)
                self.held.remove(held)
        return renumbered(observed, events)


def _reads(*call_ids: str) -> ModelReplies:
    """A reply reading one file per call id."""
    return ModelReplies(
        tuple(
            block for c in call_ids for block in calls(c, "read", f'{{"file_path":"{c}"}}').blocks
        )
    )


@pytest.mark.parametrize(
    "program",
    [
        (SubmitUser("read"), _reads("c1", "c2"), HookAnswers(Pass()), HookAnswers(Ask("ok?"))),
        # A denied call before them is answered already: the call running is the one to settle.
        (
            SubmitUser("read"),
            _reads("c0", "c1", "c2"),
            HookAnswers(Deny("")),
            HookAnswers(Pass()),
            HookAnswers(Ask("ok?")),
        ),
    ],
    ids=["behind a running call", "behind a denied and a running call"],
)
def test_ABORT_3_a_cancelled_approval_written_with_its_result_is_named_ABORT_3(
    program: tuple[Command, ...],
) -> None:
    """ABORT-3: the probe shows the answer written once the earlier call settles (where
    ABORT-1 was named, in words saying an abort answers pending approvals: the loop did)."""
    assert_found(
        (
            "a cancelled approval written with its call's result",
            CancelsWithTheResult,
            GATED_READS,
            (*program, Abort("user")),
            "ABORT-3",
        ),
        "the target writes it once call c1's result commits",
        "an abort's cancelled approval is written when the abort lands",
    )


class DropsARepeat(ModelTarget):
    """The model, except that a message typed mid-turn with the text of one already queued is
    dropped (a second press of Enter taken for a bounce)."""

    def apply(self, command: Command) -> Observation:
        before = self.state
        observed = super().apply(command)
        queued = before.inbox if before is not None else ()
        if isinstance(command, SubmitUser) and QueuedMessage(command.text) in queued:
            assert self.state is not None
            self.state = attrs.evolve(self.state, inbox=queued)
        return observed


REPEAT_DROPPED: FreshBug = (
    "a repeat typed mid-turn delivered once",
    DropsARepeat,
    LoopConfig(tools=(READ,)),
    (
        SubmitUser("read it"),
        SubmitUser("again"),
        SubmitUser("again"),
        ModelReplies((TextBlock("ok"),)),
    ),
    "ADJ-4",
)


def test_ADJ_4_a_repeat_delivered_once_says_the_text_was_sent_twice() -> None:
    """ADJ-4: the words say the same text came twice (they said queued messages are delivered,
    which the loop did, once)."""
    assert_found(REPEAT_DROPPED, '"again" was sent twice', "the target delivers it once")


TWO_ASKED_READS = (
    SubmitUser("read both"),
    ModelReplies(
        (
            *calls("c1", "read", '{"file_path":"a.txt"}').blocks,
            *calls("c2", "read", '{"file_path":"b.txt"}').blocks,
        )
    ),
    HookAnswers(Ask("check")),
    HookAnswers(Ask("check")),
    ApprovalAnswers("rejected"),
)


def test_DEC_2_a_rejection_remembered_for_the_reply_names_the_call_rejected() -> None:
    """DEC-2: the words name the call whose rejection the loop applied to the next one (they
    said only that an ask decision asks)."""
    assert_found(
        (
            "a rejection remembered for the tool",
            answering_the_tool_for_the_reply("rejected"),
            GATED_READS,
            TWO_ASKED_READS,
            "DEC-2",
        ),
        "call c1 of tool read was answered rejected, which answers that call alone",
    )


UNKNOWN_UNCHECKED = reading_input(
    lambda call, config: _INPUT_PROBLEM(call, config) if config.tool(call.name) else None,
    "The model, except that no input of a tool that is not registered is checked.",
)


@pytest.mark.parametrize(
    ("program", "rule", "says", "lacks"),
    [
        (
            (SubmitUser("run it"), calls("c1", "missing_tool", "\ufeff")),
            "EXE-5",
            "the target checks no input of such a tool (a reply calling missing_tool with []",
            "JavaScript's trim",
        ),
        (
            (
                SubmitUser("run it"),
                ModelReplies(
                    (
                        *calls("c1", "missing_tool", '{"timeout":1e400}').blocks,
                        *calls("c2", "read", '{"file_path":"a.txt"}').blocks,
                    )
                ),
            ),
            "EXE-5",
            "the target checks no input of such a tool (a reply calling missing_tool with []",
            "",
        ),
        (
            (
                SubmitUser("run it"),
                ModelReplies(
                    (
                        *calls("c1", "read", '{"file_path":"a.txt"}').blocks,
                        *calls("c2", "missing_tool", "[]").blocks,
                        *calls("c3", "read", '{"file_path":"b.txt"}').blocks,
                    )
                ),
            ),
            "EXE-5",
            "it waits behind call c2, whose tool missing_tool is not registered and whose input "
            "is invalid",
            "",
        ),
    ],
    ids=[
        "told by a probe",
        "while a call runs, told once it settles",
        "a later call held behind it",
    ],
)
def test_EXE_5_an_unknown_tools_input_left_unchecked_is_told_from_a_misreading(
    program: tuple[Command, ...], rule: str, says: str, lacks: str
) -> None:
    """EXE-5: a probe calling the tool with [] tells a loop checking no input of a tool that is
    not registered from one reading these arguments otherwise (which was said of it: JavaScript's
    trim, or a lossy JSON reader); where the batch still runs, its calls settle first (the
    words said both readings, EXE-2 first, where the probe now tells). A later call it holds
    back, the call waiting at the gate as one of an unknown tool, was read as SCHED-1 (the
    schedule's; seeds 35 and 43 of 30-49 last session)."""
    bug = (
        "no input of an unknown tool checked",
        UNKNOWN_UNCHECKED,
        LoopConfig(tools=(READ,)),
        program,
        rule,
    )
    assert_found(bug, says, lacks=(lacks,) if lacks else ())


class CitesTheReply(ModelTarget):
    """The model, except that a result cites the reply that made its call, not the call's
    tool/call record."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self.reply_seq = -1
        return super().reset(config)

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        for event in events:
            if event["type"] == "assistant/message":
                self.reply_seq = event["seq"]
            elif event["type"] == "tool/result":
                event["sourceEventSeqs"] = [self.reply_seq]
        return renumbered(observed, events)


def test_ORD_2_a_result_citing_its_reply_says_what_it_cites() -> None:
    """ORD-2: the words say the seq cited is the reply's (they gave the seq alone)."""
    assert_found(
        (
            "a result citing the reply",
            CitesTheReply,
            LoopConfig(tools=(READ,)),
            (
                SubmitUser("read it"),
                calls("c1", "read", '{"file_path":"a.txt"}'),
                ToolFinishes("c1", ToolSucceeded("A")),
            ),
            "ORD-2",
        ),
        "which cites seq 3, the assistant/message making the call",
    )


def _shortened_repair(log: tuple[Event, ...]) -> tuple[Event, ...]:
    def shortened(event: Event) -> Event:
        if not isinstance(event, ToolResultRecorded):
            return event
        text = event.message.result.content[0]
        assert isinstance(text, TextBlock)
        cut = TextBlock(text.text.partition(". ")[0] + ".")
        result = attrs.evolve(event.message.result, content=(cut,))
        return attrs.evolve(event, message=attrs.evolve(event.message, result=result))

    return tuple(shortened(event) for event in repair.interrupted_turn_closers(log))


def test_REC_1_a_repair_in_other_words_says_its_code_is_right() -> None:
    """REC-1: a repair result of the right code, worded otherwise, is told so and shown the
    words due (it was told repair answers with that code, which it did)."""
    assert_found(
        (
            "a repair result's words cut short",
            planted(
                handlers,
                "interrupted_turn_closers",
                _shortened_repair,
                "The model, except that repair's result says only its first sentence.",
            ),
            LoopConfig(tools=(READ,)),
            (
                SubmitUser("read it"),
                calls("c1", "read", '{"file_path":"a.txt"}'),
                Crash(),
                Recover(),
            ),
            "REC-1",
        ),
        "the target's crash repair answers it with the TOOL_OUTCOME_UNKNOWN error it is, but not "
        "as SPEC.md section 9 words it",
    )


# The bash presenter itself: looked up while the planted mapping is in place, it was the planted
# one, which recursed until the presenter's fallback showed every result raw, a success too (a
# random program's first failure then named ACP-2, a client without terminals, rightly).
_BASH_RESULT = presenters.RESULT_PRESENTERS["bash"]


def _no_terminal_for_an_error(arguments: Any, result: Any) -> Any:
    return None if result.is_error else _BASH_RESULT(arguments, result)


def test_VIEW_2_a_failed_bash_result_shown_raw_is_named_VIEW_2() -> None:
    """VIEW-2: a failed body's result on a terminal card is its terminal output too (where
    ACP-2 was named, sending the reader to client capabilities: a success showed fenced)."""
    assert_found(
        (
            "a failed bash result shown raw",
            planted(
                presenters,
                "RESULT_PRESENTERS",
                MappingProxyType(
                    {**presenters.RESULT_PRESENTERS, "bash": _no_terminal_for_an_error}
                ),
                "The model, except that a failed bash result is shown as its raw content.",
            ),
            LoopConfig(tools=(BASH,)),
            (
                SubmitUser("list the files"),
                calls("c1", "bash", '{"command":"ls"}'),
                ToolFinishes("c1", ToolFailed("no such directory")),
            ),
            "VIEW-2",
        ),
        "the update shows the failed result's raw content",
    )


class RecordsTheAnswersWord(ModelTarget):
    """The model, except that a hook/result records the answer's word, not its audit's (an
    exit-2 deny recorded `deny`, not `block`)."""

    def apply(self, command: Command) -> Observation:
        if isinstance(command, HookAnswers) and command.audit is not None:
            command = attrs.evolve(command, audit=attrs.evolve(command.audit, decision=None))
        return super().apply(command)


def test_TEXT_2_an_audits_decision_left_out_says_the_audit_names_it() -> None:
    """TEXT-2: the words say this answer's audit names the word the model records (they gave
    the rule alone, leaving the reader to find where "block" came from)."""
    assert_found(
        (
            "an exit-2 deny recorded as deny",
            RecordsTheAnswersWord,
            LoopConfig(tools=(BASH,), hooks=(HookSpec("guard", "PreToolUse", "bash"),)),
            (
                SubmitUser("list the files"),
                calls("c1", "bash", '{"command":"ls"}'),
                HookAnswers(Deny("no"), HookAudit(decision="block", exit_code=2)),
            ),
            "TEXT-2",
        ),
        'decision "block" in the model, "deny" in the target',
        'and this answer\'s audit names "block"',
    )


def test_SCHED_1_a_call_answered_before_counts_as_running_no_longer() -> None:
    """SCHED-1: the calls the schedule weighs against a call are the earlier ones still without
    a result now (a denied call's result commits after every record of the reply: it counted
    as running all the same, in the words on the gate, the cap and the probes behind them)."""
    model = ModelTarget()
    model.reset(GATED_READS)
    program = (
        SubmitUser("read"),
        _reads("c1", "c2", "c3"),
        HookAnswers(Deny("")),
        HookAnswers(Pass()),
        HookAnswers(Ask("ok?")),
    )
    events = [event for command in program for event in model.apply(command).events]
    assert [e["data"]["callId"] for e in earlier_unanswered("c3", events)] == ["c2"]


def test_EXE_2_null_read_as_no_arguments_for_an_unregistered_tool_is_named_EXE_2() -> None:
    """EXE-2: `null` read as {} for a tool that is not registered (as seeds 52, 54 and 57 of
    50-69 cut it down) is answered UNKNOWN_TOOL and read as EXE-5, the order calls are judged
    in: the call made again with [] to tell was read as {} too; made with 1, it is judged."""
    row = (
        "arguments null read as {} for an unregistered tool",
        NULL_ARGUMENTS[1],
        LoopConfig(),
        (SubmitUser(""), calls("c1", "missing_tool", "null")),
        "EXE-2",
    )
    assert_found(row, "a reply calling missing_tool with 1 after it, sent to tell, was answered")
