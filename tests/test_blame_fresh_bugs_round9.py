"""Fresh bugs of session 28, found by the programs and blamed on the rule their author must fix.

Session 28 wrote twenty-seven more wrong loops outside the project (copies of `impl/` and of
`examples/js-loop/`, each with one bug), favouring crash repair, presentation, history, approval
scope, queued input and aborts over partly finished batches, and ran `loopspec conform` on each.
Where no program showed the bug, or the report named another rule than the one the bug breaks,
the difference is planted here in the model and the programs that must show it are played:

- a cancelled reply going on to a next step because the user had typed meanwhile: named STEP-4
  (how a completed reply ends); now ABORT-2, whose words say the step and the turn end aborted;
- queued messages delivered newest first: named TEXT-2 on one seed, its words saying the text
  was cut (an empty message is the start of any other); now ADJ-4, saying the message is one
  the model delivers elsewhere in the turn;
- a second abort, refused while the first one's call drains, whose cause the loop took all the
  same: never caught (the programs' second abort carried the first one's cause); a targeted
  program sends another, and the turn/end is named MODEL-3, not ABORT-3;
- a result card rendered with the call's input before its rewrite: named VIEW-4, in words that
  gave a title "as the arguments give it" the target did not show; now RW-1;
- a body settling after an abort written ABORTED where a PostToolUse hook blocked it, or left
  without its hooks' audit: named right (DEC-3, HOOK-5), in words that sent the author to blocks
  and hooks; they now say the body settled after the abort, which its hooks judge all the same;
- a history leaving out replies' reasoning blocks: named right (HIST-1), in words giving the
  first differing JSON path; they now name the block left out;
- terminal _meta sent to a client that is not terminal-capable: named right (ACP-2), in words
  saying only that no terminal goes there; they now name the _meta keys;
- a history whose tool-result block lacks `isError`: stopped as PROTO-1, rightly, in words that
  said a "text" type was expected (the user message variant's); now they name `isError`;
- a reply cut off at max-tokens keeping its text and not its reasoning: NO-RULE; now STEP-4;
- an approval allowing the tool for the rest of the reply, a permission request titled with
  the raw path its card makes relative, a history dropping a result of empty
  text, a max-tokens reply dropping what the user typed meanwhile, and crash repair saying a
  call whose approval was refused (or cancelled by an abort) never started, or ending a turn
  being aborted `aborted`: never caught, or on one seed only; targeted programs show each.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest
from fresh_bugs import (
    FreshBug,
    answering_the_tool_for_the_reply,
    assert_found,
    calls,
    copied,
    history_refusal,
    planted,
    presenting_with,
    renumbered,
    swept,
)

from loopspec.model import handlers, records, repair
from loopspec.model.commands import (
    FINISH_CANCELLED,
    FINISH_MAX_TOKENS,
    Abort,
    Allow,
    Command,
    HookAnswers,
    ModelReplies,
    PostBlock,
    PostPass,
    PostVerdict,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.derive import derive_messages
from loopspec.model.events import (
    ApprovalDecided,
    Event,
    ToolCallRecorded,
    ToolResultRecorded,
    TurnEnded,
)
from loopspec.model.jsonvalue import FrozenMap, parse_arguments
from loopspec.model.messages import (
    AssistantMessage,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolResultMessage,
)
from loopspec.model.replay import ApprovalShown, LogPresenter
from loopspec.model.state import AwaitingModel, Dispatching
from loopspec.properties.conformance import target as target_module
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))


def _goes_on_when_typed(draft: Any, turn: int, why: FrozenMap) -> None:
    phase = draft.state.phase
    if why == records.aborted("user") and draft.state.inbox and isinstance(phase, AwaitingModel):
        records.open_step(draft, turn, phase.step + 1, draft.state.inbox)
        return
    records.end_turn(draft, turn, why)


CANCELLED_GOES_ON = planted(
    handlers,
    "end_turn",
    _goes_on_when_typed,
    "The model, except that a cancelled reply opens the next step, with what the user typed "
    "meanwhile, instead of ending the turn.",
)

CANCELLED_REPLY_GOES_ON: FreshBug = (
    "a cancelled reply goes on with queued input",
    CANCELLED_GOES_ON,
    LoopConfig(tools=(READ,)),
    (SubmitUser("read it"), SubmitUser("and b.txt"), ModelReplies((), FINISH_CANCELLED)),
    "ABORT-2",
)


def test_ABORT_2_a_cancelled_reply_going_on_with_queued_input_is_named_ABORT_2() -> None:
    """ABORT-2: a cancelled reply ends its step and the turn, messages queued or not (where
    STEP-4, how a completed reply without calls ends, was named)."""
    assert_found(
        CANCELLED_REPLY_GOES_ON,
        "a cancelled reply ends its step and the turn 'aborted', its cause the user's, also "
        "when messages are queued",
    )


NEWEST_FIRST = planted(
    handlers,
    "open_step",
    lambda draft, turn, step, messages: records.open_step(
        draft, turn, step, tuple(reversed(messages))
    ),
    "The model, except that queued messages are delivered newest first.",
)

QUEUED_NEWEST_FIRST: FreshBug = (
    "queued messages delivered newest first",
    NEWEST_FIRST,
    LoopConfig(tools=(READ,)),
    (
        SubmitUser("read it"),
        # A character past U+FFFF: an empty text in its place read as the text cut short.
        SubmitUser("and the \U0001f4c2 folder"),
        SubmitUser(""),
        ModelReplies((TextBlock("reading"),)),
    ),
    "ADJ-4",
)


def test_ADJ_4_queued_messages_delivered_in_another_order_are_not_a_changed_text() -> None:
    """ADJ-4: the empty message delivered first is the one typed last, not the one before cut
    to nothing (where TEXT-2 was named, saying the text was cut at 0 UTF-16 units)."""
    assert_found(
        QUEUED_NEWEST_FIRST,
        'the target\'s message here, "", is one the model delivers elsewhere in the turn: the '
        "order differs",
        lacks=("cut at",),
    )


class TakesTheCauseOfARefusedAbort(ModelTarget):
    """The model, except that an abort refused because the batch is already aborting still
    replaces the cause the turn ends with."""

    def apply(self, command: Command) -> Observation:
        before = self.state
        observed = super().apply(command)
        phase = before.phase if before is not None else None
        if isinstance(command, Abort) and isinstance(phase, Dispatching) and phase.aborting:
            assert before is not None
            self.state = attrs.evolve(before, phase=attrs.evolve(phase, aborting=command.cause))
        return observed


SECOND_ABORT: FreshBug = (
    "a refused second abort's cause taken",
    TakesTheCauseOfARefusedAbort,
    LoopConfig(tools=(READ,)),
    (
        SubmitUser("read it"),
        calls("c1", "read", '{"file_path":"a.txt"}'),
        Abort("user"),
        Abort("parent"),
        ToolFinishes("c1", ToolSucceeded("A")),
    ),
    "MODEL-3",
)


def test_MODEL_3_a_turn_ending_with_a_refused_aborts_cause_is_named_MODEL_3() -> None:
    """MODEL-3: the words name the refused abort whose cause the turn ends with, and the one
    taken (where ABORT-3 was named: the target did record a cause, of an abort it refused)."""
    assert_found(
        SECOND_ABORT,
        'the target ends the turn with cause "parent", that of command #4, an Abort refused by '
        "the model and by the target",
        'the abort taken is command #3\'s, cause "user"',
    )


def test_MODEL_3_a_refused_second_abort_is_a_targeted_program() -> None:
    """The random programs' second abort carries the first one's cause (derived from the log's
    length, which a refusal leaves alone): a targeted program sends another."""
    divergence = swept(TakesTheCauseOfARefusedAbort)
    assert divergence.rule_id == "MODEL-3", divergence.what


class RendersResultsFromTheOriginalInput(LogPresenter):
    """The model's UI, except that a rewritten call's result is rendered with the input the
    model asked for, its card with the input in effect."""

    def __init__(self) -> None:
        super().__init__()
        self._originals: dict[str, Any] = {}

    def feed(self, event: Event) -> Any:
        if isinstance(event, ToolCallRecorded) and event.rewrite is not None:
            self._originals[event.call_id] = parse_arguments(event.rewrite.original_arguments)
        if not isinstance(event, ToolResultRecorded) or event.call_id not in self._originals:
            return super().feed(event)
        # The result alone: the card and a permission request keep the input in effect, as
        # the docstring says (it kept the original for every later view of the call).
        kept = name, _arguments, view = self._calls[event.call_id]
        self._calls[event.call_id] = (name, self._originals[event.call_id], view)
        try:
            return super().feed(event)
        finally:
            self._calls[event.call_id] = kept


ShowsResultsOfTheOriginalInput = presenting_with(
    RendersResultsFromTheOriginalInput,
    "The model, its UI rendering results from the input before the rewrite.",
)


WRITE = ToolSpec("write", required_keys=("file_path", "content"))

RESULT_OF_THE_ORIGINAL: FreshBug = (
    "a result card of the input before the rewrite",
    ShowsResultsOfTheOriginalInput,
    LoopConfig(tools=(WRITE,), hooks=(HookSpec("sandbox", "PreToolUse", "write"),)),
    (
        SubmitUser(""),
        calls("c1", "write", '{"file_path":"a.txt","content":"x"}'),
        HookAnswers(Allow(FrozenMap({"file_path": "tmp/a.txt", "content": "x"}))),
        ToolFinishes("c1", ToolSucceeded("written")),
    ),
    "RW-1",
)


def test_RW_1_a_result_card_rendered_from_the_input_before_the_rewrite_is_named_RW_1() -> None:
    """RW-1: the words give both inputs (where VIEW-4 was named, its words giving a title the
    target did not show)."""
    assert_found(
        RESULT_OF_THE_ORIGINAL,
        "the update is the result rendered with the call's input before the rewrite, "
        '{"file_path":"a.txt","content":"x"}, where the call ran '
        '{"file_path":"tmp/a.txt","content":"x"}',
    )


def test_PROTO_1_a_history_result_without_isError_names_the_member_it_lacks() -> None:
    """PROTO-1: the words name the tool-result block's missing isError (where they said the
    block's type should be "text", the user message variant's)."""
    model = ModelTarget()
    model.reset(LoopConfig(tools=(READ,)))
    model.apply(SubmitUser(""))
    model.apply(calls("c1", "read", '{"file_path":"a.txt"}'))
    observed = model.apply(ToolFinishes("c1", ToolSucceeded("A")))
    assert observed.history is not None
    (result,) = (json.loads(json.dumps(m)) for m in observed.history.appended)
    del result["content"][0]["isError"]
    failed = history_refusal([result])
    assert failed.rule_id == "PROTO-1", str(failed)
    assert 'at history/appended/0/content/0: "isError" is a required property' in str(failed)


class AbortWinsOverABlock(ModelTarget):
    """The model, except that a body settling after an abort gets an ABORTED result, whatever
    its PostToolUse hooks said."""

    def apply(self, command: Command) -> Observation:
        phase = self.state.phase if self.state is not None else None
        draining = isinstance(phase, Dispatching) and phase.aborting is not None
        observed = super().apply(command)
        if not draining or not isinstance(command, ToolFinishes):
            return observed
        events = copied(observed)
        for event in events:
            if event["type"] != "tool/result":
                continue
            block = event["data"]["message"]["content"][0]
            # The settling body's result only: the results committed beside it (a denied call's,
            # one never started) keep theirs, as the docstring says.
            if block["toolCallId"] == command.call_id:
                event["data"]["error"] = {"name": "AbortError", "code": "ABORTED"}
                block["content"] = [{"type": "text", "text": "Error: tool call aborted"}]
        return renumbered(observed, self.kept(events))

    def kept(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The events written of a body settling after the abort: all."""
        return events


class SkipsHooksAfterAnAbort(AbortWinsOverABlock):
    """The same, and its PostToolUse hooks' audit is not written either."""

    def kept(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [event for event in events if not event["type"].startswith("hook/")]


REVIEWED_READS = LoopConfig(tools=(READ,), hooks=(HookSpec("review", "PostToolUse", "read"),))


@pytest.mark.parametrize(
    ("target", "verdict", "rule"),
    [
        (AbortWinsOverABlock, PostBlock("withheld"), "DEC-3"),
        (SkipsHooksAfterAnAbort, PostPass(), "HOOK-5"),
    ],
)
def test_a_block_or_audit_left_out_after_an_abort_points_at_section_3(
    target: type[ModelTarget], verdict: PostVerdict, rule: str
) -> None:
    """DEC-3, HOOK-5: the words say the body settled after the abort, whose PostToolUse hooks
    judge it all the same (where they said only that a block replaces the result, or that the
    hook must run, and the author looked at blocks and hooks, not at the abort)."""
    program = (
        SubmitUser("read it"),
        calls("c1", "read", '{"file_path":"a.txt"}'),
        Abort("user"),
        ToolFinishes("c1", ToolSucceeded("A"), (verdict,)),
    )
    row: FreshBug = ("hooks after an abort", target, REVIEWED_READS, program, rule)
    assert_found(
        row,
        "the body settled after the abort that ends the turn: its PostToolUse hooks judge it "
        "all the same",
    )


def _reasoning_left_out(log: tuple[Event, ...]) -> tuple[Message, ...]:
    return tuple(
        attrs.evolve(m, content=tuple(b for b in m.content if not isinstance(b, ReasoningBlock)))
        if isinstance(m, AssistantMessage)
        else m
        for m in derive_messages(log)
    )


REASONING_LEFT_OUT: FreshBug = (
    "a history leaving reasoning out",
    planted(
        target_module,
        "derive_messages",
        _reasoning_left_out,
        "The model, except that its history leaves out the reasoning blocks of replies.",
    ),
    LoopConfig(tools=(READ,)),
    (SubmitUser("hi"), ModelReplies((ReasoningBlock("think"), TextBlock("hello")))),
    "HIST-1",
)


def test_HIST_1_a_history_message_missing_a_block_names_the_block() -> None:
    """HIST-1: the words name the block the target's message leaves out (where they gave the
    first differing path, $.content[0].type, "reasoning" against "text")."""
    assert_found(
        REASONING_LEFT_OUT,
        'the target\'s message leaves out the model\'s block(s) #1 {"type": "reasoning", "text": '
        '"think"}',
    )


ShowsTerminalsToEveryClient = presenting_with(
    lambda: LogPresenter(terminal_capable=True),
    "The model, except that its UI writes terminals, and their _meta, for a client that is not "
    "terminal-capable too.",
)


TERMINALS_TO_EVERYONE: FreshBug = (
    "terminals shown to every client",
    ShowsTerminalsToEveryClient,
    LoopConfig(tools=(ToolSpec("bash", required_keys=("command",)),)),
    (SubmitUser(""), calls("c1", "bash", '{"command":"ls"}')),
    "ACP-2",
)


def test_ACP_2_terminal_meta_sent_to_a_plain_client_is_named_with_the_meta_keys() -> None:
    """ACP-2: the words say that neither a terminal item nor its _meta goes to such a client
    (where they said "no terminal goes", and a loop sending only the _meta looked for a
    terminal item it did not send)."""
    assert_found(
        TERMINALS_TO_EVERYONE,
        "neither a terminal content item nor the terminal _meta (terminal_info, "
        "terminal_output, terminal_exit)",
    )


class MaxTokensKeepsTextAlone(ModelTarget):
    """The model, except that a reply cut off at max-tokens keeps its text blocks alone."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, ModelReplies) or command.finish != FINISH_MAX_TOKENS:
            return observed
        events = copied(observed)
        for event in events:
            if event["type"] == "assistant/message":
                message = event["data"]["message"]
                message["content"] = [b for b in message["content"] if b["type"] == "text"]
        return renumbered(observed, events)


REASONING_CUT_AT_MAX_TOKENS: FreshBug = (
    "max-tokens keeps text alone",
    MaxTokensKeepsTextAlone,
    LoopConfig(tools=(READ,)),
    (SubmitUser(""), ModelReplies((ReasoningBlock("think"), TextBlock("part")), FINISH_MAX_TOKENS)),
    "STEP-4",
)


def test_STEP_4_a_max_tokens_reply_losing_its_reasoning_is_named_STEP_4() -> None:
    """STEP-4: its text and reasoning are the step's assistant/message (where the difference
    was NO-RULE, a gap in SPEC.md, though STEP-4 says so)."""
    assert_found(
        REASONING_CUT_AT_MAX_TOKENS,
        "a reply cut off at max-tokens drops its calls alone; its text and reasoning blocks",
    )


class CompletedReplyKeepsTextAlone(ModelTarget):
    """The model, except that a completed reply's assistant/message keeps its text and
    tool-call blocks and drops its reasoning, as a loop storing only what it sends back would."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, ModelReplies) or command.finish != "completed":
            return observed
        events = copied(observed)
        for event in events:
            if event["type"] == "assistant/message":
                message = event["data"]["message"]
                message["content"] = [b for b in message["content"] if b["type"] != "reasoning"]
        return renumbered(observed, events)


REASONING_DROPPED_FROM_A_COMPLETED_REPLY: FreshBug = (
    "a completed reply loses its reasoning",
    CompletedReplyKeepsTextAlone,
    LoopConfig(tools=(READ,)),
    (SubmitUser(""), ModelReplies((ReasoningBlock("think"), TextBlock("done")))),
    "STEP-4",
)


def test_STEP_4_a_completed_reply_losing_its_reasoning_is_named_STEP_4() -> None:
    """STEP-4: a completed reply is the step's assistant/message with every block as delivered
    (a newcomer's loop that kept only text was told NO-RULE, a gap in SPEC.md, though the
    tutorial says the reply carries the blocks as the model wrote them)."""
    assert_found(
        REASONING_DROPPED_FROM_A_COMPLETED_REPLY,
        "a completed reply is the step's assistant/message with every block as delivered",
    )


class AsksWithTheRawTitle(LogPresenter):
    """The model's UI, except that a permission request's title is the view's, its path not
    made relative as the card's is."""

    def feed(self, event: Event) -> Any:
        shown = super().feed(event)
        if isinstance(shown, ApprovalShown):
            _name, _arguments, view = self._calls[shown.call_id]
            tool_call = shown.request["toolCall"]
            assert isinstance(tool_call, dict)
            tool_call["title"] = view.title
        return shown


ShowsRawTitlesWhenAsking = presenting_with(
    AsksWithTheRawTitle, "The model, asking with raw titles."
)


def _empty_results_left_out(log: tuple[Event, ...]) -> tuple[Message, ...]:
    def says_nothing(message: Message) -> bool:
        blocks = message.result.content if isinstance(message, ToolResultMessage) else ()
        return bool(blocks) and all(isinstance(b, TextBlock) and not b.text for b in blocks)

    return tuple(m for m in derive_messages(log) if not says_nothing(m))


EmptyResultsLeftOut = planted(
    target_module,
    "derive_messages",
    _empty_results_left_out,
    "The model, except that its history leaves out a result of empty text (a provider refuses "
    "an empty text block).",
)


class MaxTokensDropsTheQueue(ModelTarget):
    """The model, except that a reply cut off at max-tokens drops what the user typed
    meanwhile, where it is parked for the next turn."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if isinstance(command, ModelReplies) and command.finish == FINISH_MAX_TOKENS:
            assert self.state is not None
            self.state = attrs.evolve(self.state, inbox=())
        return observed


def _refused_as_not_started(log: tuple[Event, ...]) -> tuple[Event, ...]:
    refused = {
        event.id.removeprefix("approval-")
        for event in log
        if isinstance(event, ApprovalDecided) and event.outcome != "allowed-once"
    }
    # A record the repair does not find for its call: that call reads as never started.
    hidden = tuple(
        attrs.evolve(event, call_id=f"{event.call_id} (refused)")
        if isinstance(event, ToolCallRecorded) and event.call_id in refused
        else event
        for event in log
    )
    return repair.interrupted_turn_closers(hidden)


def _aborting_ends_aborted(log: tuple[Event, ...]) -> tuple[Event, ...]:
    closers = repair.interrupted_turn_closers(log)
    if not any(isinstance(e, ApprovalDecided) and e.outcome == "cancelled" for e in log):
        return closers
    *firsts, last = closers
    assert isinstance(last, TurnEnded)
    return (*firsts, attrs.evolve(last, reason=records.aborted("user")))


@pytest.mark.parametrize(
    ("target", "rule", "says"),
    [
        (answering_the_tool_for_the_reply("allowed-once"), "DEC-2", "approval/asked"),
        (EmptyResultsLeftOut, "HIST-1", "the result of call c1"),
        (MaxTokensDropsTheQueue, "ADJ-4", 'it ended "max-tokens" before another step/start'),
        (ShowsRawTitlesWhenAsking, "VIEW-4", 'so the title names it src/a.txt ("Read src/a.txt")'),
        (
            planted(
                handlers,
                "interrupted_turn_closers",
                _refused_as_not_started,
                "The model, except that repair says a recorded call whose approval was "
                "refused never started.",
            ),
            "REC-1",
            "call c2 was recorded, so it may have run: its repair must be TOOL_OUTCOME_UNKNOWN",
        ),
        (
            planted(
                handlers,
                "interrupted_turn_closers",
                _aborting_ends_aborted,
                "The model, except that repair ends a turn an abort had begun ending aborted.",
            ),
            "REC-1",
            "interrupted",
        ),
    ],
    ids=[
        "an approval allows the tool for the reply",
        "a history leaves out a result of empty text",
        "max-tokens drops queued input",
        "a permission request's title keeps its raw path",
        "repair: a refused approval's call never started",
        "repair: an aborting turn ends aborted",
    ],
)
def test_bugs_no_random_program_showed_are_shown_by_targeted_programs(
    target: type[ModelTarget], rule: str, says: str
) -> None:
    """Each passed the 200 programs of a seed or both; a targeted program shows it, blamed on
    the rule it breaks."""
    divergence = swept(target)
    assert divergence.rule_id == rule, divergence.what
    assert says in divergence.what, divergence.what
