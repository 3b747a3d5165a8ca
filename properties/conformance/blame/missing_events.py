"""The rule an event the target lacks breaks (`missing`): the model has an event where the
target's log has none."""

from __future__ import annotations

from collections.abc import Sequence

from loopspec.model.commands import (
    Abort,
    ApprovalAnswers,
    Command,
    HookAnswers,
    ModelFails,
    ModelReplies,
    PostPass,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, LoopConfig
from loopspec.model.json_text import spelled
from loopspec.model.wording import APPROVAL_ID
from loopspec.properties.conformance.blame.contexts import (
    context_of_a_block,
    lost_after_a_block_with_context,
)
from loopspec.properties.conformance.blame.endings import (
    abort_rule,
    after_abort_note,
    how_the_reply_ends,
    parking_turn_end,
    reply_end_rule,
    turn_end_rule,
    unstarted_call_words,
)
from loopspec.properties.conformance.blame.history import (
    awaiting_approval,
    calls_step,
    earlier_unanswered,
    hook_audit_rule,
    hook_named,
    message_words,
    named,
    reply_call_ids,
    source_of,
    target_log_so_far,
)
from loopspec.properties.conformance.blame.hook_answers import failed_closed, refused_rewrite
from loopspec.properties.conformance.blame.hooks_due import partly_matching_hook
from loopspec.properties.conformance.blame.hooks_input import (
    hooked_invalid_call,
    unregistered_hint,
    waits_as_javascript,
)
from loopspec.properties.conformance.blame.messages import (
    TRIMMED_TOO,
    WHITESPACE_CONTEXT,
    delivered_twice,
    prompts_own,
    queued_by,
)
from loopspec.properties.conformance.blame.readings import (
    BLANK_TO_ONE_READER,
    LOSSY_JSON,
    falsy_json,
    falsy_read_as_empty,
    object_only_when_lossy,
)
from loopspec.properties.conformance.blame.results import (
    denied_yet_run,
    judged_after_the_abort,
    result_rule,
)
from loopspec.properties.conformance.blame.situation import pre_answers
from loopspec.properties.conformance.call_again import Probe, blank_context_trimmed, last_ask_asked
from loopspec.properties.conformance.compare import NO_RULE, normalized_event, positional
from loopspec.properties.conformance.event_fields import (
    Event,
    call_id_of,
    data_of,
    error_code,
    message_text,
    whitespace_only,
)
from loopspec.properties.conformance.json_values import ParsedJson, as_value


def _appended_later(
    want: Event, model_events: Sequence[Event], target_events: Sequence[Event]
) -> bool:
    """Whether the target appends `want` after all, further on (the first difference is where
    the model appends it): it has more copies of it than the model appends before `want`."""
    same = positional(normalized_event(want))
    position = next((i for i, e in enumerate(model_events) if e is want), 0)
    earlier = sum(positional(normalized_event(e)) == same for e in model_events[:position])
    return sum(positional(normalized_event(e)) == same for e in target_events) > earlier


def _audited_after_reply(audit: Event, target_events: Sequence[Event]) -> bool:
    """Whether the target appends the PreToolUse `audit` of a call after an assistant/message
    that carries the call."""
    data = data_of(audit)
    if data.get("point") != "PreToolUse":
        return False
    reply_at: int | None = None
    for at, event in enumerate(target_events):
        if event.get("type") == "assistant/message" and data.get("callId") in reply_call_ids(event):
            reply_at = at if reply_at is None else reply_at
        elif (
            reply_at is not None
            and event.get("type") == audit.get("type")
            and data_of(event).get("callId") == data.get("callId")
            and data_of(event).get("handlerId") == data.get("handlerId")
        ):
            return True
    return False


def _held_unknown_tool(want: Event, command: Command, started: frozenset[str]) -> str | None:
    """Where the model's missing result ends a call of a tool the configuration lacks that an
    earlier call's settling lets pass the gate, and the target neither answers nor starts it:
    it held the call at the gate (a loop that counts a settled call not yet committed as
    running). None otherwise, a call the target started being EXE-5's."""
    call_id = call_id_of(want)
    if (
        error_code(want) != "UNKNOWN_TOOL"
        or not isinstance(command, ToolFinishes)
        or command.call_id == call_id
        or call_id in started
    ):
        return None
    return (
        f"a tool the configuration lacks counts as exclusive, and an exclusive call starts "
        f"once no earlier call runs: call {command.call_id}'s body settled in this command, so "
        f"call {call_id} passes the gate now and ends as an UNKNOWN_TOOL error where its body "
        "would start (EXE-5); a settled call counts as running no longer, though its result "
        "may still wait for earlier ones"
    )


def missing(
    want: Event,
    command: Command,
    phase: str,
    history: Sequence[Event],
    *,
    target_events: Sequence[Event] = (),
    model_events: Sequence[Event] = (),
    config: LoopConfig | None = None,
    probe: Probe | None = None,
    started: frozenset[str] = frozenset(),
) -> tuple[str, str]:
    """`want`, which the model appends and the target does not; `target_events` and
    `model_events` are all each appended for this command; `config` and `probe` as
    `classify`'s; `started` the calls whose bodies the target started in this command."""
    kind = str(want.get("type"))
    later = _appended_later(want, model_events, target_events)
    lacks = f"the target {'appends' if later else 'does not append'} the model's {kind}"
    if later:
        lacks += " later"
    if isinstance(command, Recover):
        return "REC-1", f"{lacks} (crash repair closes the tail turn)"
    match kind:
        case "hook/invoked" | "hook/result" if later and _audited_after_reply(want, target_events):
            # Audited, but after the reply that carries the call: the hook ran once, as HOOK-4
            # asks ("must run" sent the reader looking for a hook that never ran).
            return "RW-3", (
                f"{lacks}, after the assistant/message carrying call {call_id_of(want)}: "
                f"every PreToolUse answer for a call, {hook_named(want)}'s too, is audited "
                "before the reply that carries the call, which is committed with its calls' "
                "tool/call records after the last answer"
            )
        case "hook/invoked" | "hook/result":
            call_id = call_id_of(want)
            theirs = next(
                (
                    e
                    for e in target_events
                    if e.get("type") == "tool/result" and call_id_of(e) == call_id
                ),
                None,
            )
            if error_code(theirs) == "ABORTED_BEFORE_DISPATCH" and (
                data_of(want).get("point") == "PostToolUse"
            ):
                # A call that ran, aborted as if it never had: its PostToolUse hooks are lost
                # with its body's outcome, and the result is what is wrong.
                return "ABORT-1", (
                    f"{lacks}: the target answers call {call_id} ABORTED_BEFORE_DISPATCH, but its "
                    "body had started: after an abort a started call drains and its PostToolUse "
                    "hooks judge it (a success that lands after the abort becomes ABORTED); only "
                    "a call that never started is aborted before dispatch"
                )
            withheld = _withheld_result(want, model_events, target_events)
            if withheld is not None:
                # The audit comes in its result's commit (HOOK-5): a result the target holds
                # back holds its audit back too, and the result is what is late.
                return missing(withheld, command, phase, history)
            failed = (
                isinstance(command, ToolFinishes)
                and isinstance(command.outcome, ToolFailed)
                and command.call_id == call_id
                and data_of(want).get("point") == "PostToolUse"
            )
            if (
                isinstance(command, HookAnswers)
                and data_of(want).get("point") == "PreToolUse"
                and not any(e.get("type") == "assistant/message" for e in model_events)
            ):
                # The hook answered in this command: it ran, and its audit is what is missing
                # ("must run" sent the reader looking for a hook never asked).
                return hook_audit_rule(want), (
                    f"{lacks}: {hook_named(want)} answered in this command, and a hook is "
                    "audited when it answers, its hook/invoked and hook/result appended "
                    "together, not held back until the reply (which comes after every "
                    "answer's audit, RW-3)"
                )
            return hook_audit_rule(want), (
                f"{lacks}: {hook_named(want)} must run"
                + judged_after_the_abort(want, command, [*history, *model_events])
                # A loop that judges successes alone (as Claude Code's PostToolUse does) is
                # told which result it skipped.
                + (
                    f": every matching PostToolUse hook judges each settled body, call "
                    f"{call_id}'s failed one too"
                    if failed
                    else ""
                )
            )
        case "approval/asked" if later:
            return "SCHED-2", (
                f"{lacks}: the approval is asked in the command that frees the call's slot, "
                "before that command's results commit"
            )
        case "approval/asked":
            call_id = call_id_of(want)
            answers = pre_answers(call_id, history)
            asked = [hook for hook, reading, _supplied in answers if reading == "ask"]
            allowed = [hook for hook, reading, _supplied in answers if reading == "allow"]
            refused = _refused_before(want, history)
            if refused is not None:
                # The same tool's call was refused in this reply: a loop that remembers that
                # answer for the tool answers this call unasked ("an ask decision asks" sent
                # the reader to the merge of hook decisions).
                earlier, outcome = refused
                return "DEC-2", (
                    f"{lacks}: call {earlier} of tool {data_of(want).get('toolName')} was "
                    f"answered {outcome}, which answers that call alone: every ask decision "
                    "asks for approval again before its call runs or ends"
                )
            approved = _approved_before(want, history[: len(history) - len(model_events)])
            if approved is not None:
                # The same tool was approved before: a loop that remembers that answer skips
                # this ask (it read as HOOK-2, or as ORD-3 when the call then failed at once).
                # A shrunk program keeps that approval only when the bug needs it; a wrong
                # merge shows the same here, and is named beside it.
                return "DEC-2", (
                    f"{lacks}: call {approved} of tool {data_of(want).get('toolName')} was "
                    "approved allowed-once earlier, which approves that call alone: every ask "
                    "decision asks for approval again before the call runs"
                    + (
                        f"; or the merge let {named(allowed)}'s allow outrank "
                        f"{named(asked)}'s ask (HOOK-2: deny > ask > allow > pass), which "
                        "shows the same here"
                        if asked and allowed
                        else ""
                    )
                )
            if asked and allowed:
                # The merge let an allow win over an ask: the strictness order is what is
                # wrong. A loop that never asks at all reads so too, unless it asked before
                # this command (`history` ends with the model's events of this one).
                before = history[: len(history) - len(model_events)]
                never_asked = not any(e.get("type") == "approval/asked" for e in before)
                return "HOOK-2", (
                    f"{lacks}: {named(asked)} asked and {named(allowed)} allowed call "
                    f"{call_id}, and an ask outranks an allow (deny > ask > allow > pass), so "
                    "the call waits for approval"
                    + (
                        "; or the loop never asks at all (DEC-2: an ask decision asks for "
                        "approval before the call runs), which shows the same here"
                        if never_asked
                        else ""
                    )
                )
            readings = [reading for _hook, reading, _supplied in answers]
            before = history[: len(history) - len(model_events)]
            # The passes after the last ask: a merge letting the last answer win took one of
            # them (one between two asks lost to the later ask).
            last_ask = len(readings) - readings[::-1].index("ask") if asked else len(readings)
            passed = [hook for hook, reading, _supplied in answers[last_ask:] if reading == "pass"]
            if passed and last_ask_asked(want, config, before, target_events, probe):
                # A pass after the ask: a merge letting the last answer win runs the call
                # unasked, and asks when the ask comes last (a probe); a loop never asking
                # does neither.
                return "HOOK-2", (
                    f"{lacks}: {named(asked)} asked and {named(passed)} passed call "
                    f"{call_id} after it, and an ask outranks a pass whatever their order "
                    "(deny > ask > allow > pass), so the call waits for approval (a call sent "
                    "after it to tell, its hooks answering pass, then ask last, was asked "
                    "about: the loop asks, and its merge lets the last answer win)"
                )
            return "DEC-2", f"{lacks}: an ask decision asks for approval before the call runs"
        case "approval/decided" if isinstance(command, Abort) and later:
            # Answered, but after the call's result: where ABORT-3 writes it.
            return "ABORT-3", (
                f"{lacks}: an abort's cancelled approval is written before the call's "
                "ABORTED_BEFORE_DISPATCH result"
            )
        case "approval/decided":
            if isinstance(command, Abort):
                deferred = _cancelled_later(want, history, config, probe)
                if deferred is not None:
                    # Written, but with the call's result, once the earlier calls' results
                    # committed: where ABORT-3 writes it ("never answered" misled).
                    return "ABORT-3", (
                        f"{lacks} in this command: the target writes it once call {deferred}'s "
                        "result commits, with the result of the call asked about, but an "
                        "abort's cancelled approval is written when the abort lands, before "
                        "that call's ABORTED_BEFORE_DISPATCH result, whatever earlier calls "
                        "still run"
                    )
                return "ABORT-1", f"{lacks}: an abort answers pending approvals cancelled"
            return "DEC-2", lacks
        case "user/message" if (
            context_of_a_block(want, command, hooks=True)
            or lost_after_a_block_with_context(want, history)
        ) and blank_context_trimmed(want, command, history, config, probe):
            # Lost beside a block, but a blank context lost without one too: the loop trims.
            return "ADJ-4", WHITESPACE_CONTEXT.format(lacks=lacks) + TRIMMED_TOO
        case "user/message" if context_of_a_block(
            want, command, hooks=True
        ) or lost_after_a_block_with_context(want, history):
            return "DEC-3", (
                f"{lacks}: a PostToolUse block drops the body's own contexts, never its hooks' "
                "contexts, which wait for the next step/start"
            )
        case "user/message" if (
            ended := parking_turn_end(model_events, history)
        ) is not None and prompts_own(want, command, model_events):
            # The prompt's own message, after those the last turn parked: it read as a parked
            # message ("a message queued while the last turn ran"), which the target delivered.
            return "ADJ-4", (
                f"{lacks}: the prompt's own message, {message_words(want)}: the messages the "
                f"last turn left queued (it ended {ended} before another step/start) open this "
                "turn's first step, and the prompt's own message follows them, never left out"
            )
        case "user/message" if (ended := parking_turn_end(model_events, history)) is not None:
            return "ADJ-4", (
                f"{lacks}: a message queued while the last turn ran, which ended {ended} before "
                "another step/start, is parked for the next turn's first step, before the "
                "user's own message" + after_abort_note(want, ended)
            )
        case "user/message" if whitespace_only(want):
            return "ADJ-4", WHITESPACE_CONTEXT.format(lacks=lacks)
        case "user/message" if message_text(want) in _FALSE_TO_SOME:
            return "ADJ-4", (
                f"{lacks}: a context {spelled(message_text(want))}, false to some languages "
                '(Perl, PHP), is not empty: only "" is no context, and it is delivered after the '
                "next step/start"
            )
        case "user/message" if delivered_twice(want, model_events, target_events):
            # A repeat dropped: "queued messages are delivered" sent the reader looking for a
            # message never delivered at all, while the one of the same text was.
            return "ADJ-4", (
                f"{lacks}: {spelled(message_text(want))} was sent twice, and each message is "
                "queued and delivered after the next step/start, a repeat of the same text "
                "too; the target delivers it once"
            )
        case "user/message" if (
            isinstance(command, SubmitUser)
            and phase == "Idle"
            and source_of(want) == {"kind": "user"}
        ):
            # The prompt itself, opening the turn (no queue holds it): it read as ADJ-4,
            # "queued messages are delivered after the next step/start".
            return "TURN-1", (
                f"{lacks}: what the user sends while no turn is open opens one, its turn/start "
                "and step/start followed by the user's message"
            )
        case "user/message":
            return "ADJ-4", (
                f"{lacks}: queued messages are delivered after the next step/start"
                f"{queued_by(want, command)}"
            )
        case "tool/result":
            if isinstance(command, Abort):
                return "ABORT-1", f"{lacks}: {unstarted_call_words(want, model_events)}"
            # A denied call the target ran: its result is missing for that, wherever it is.
            failed = failed_closed(call_id_of(want), want, history, started)
            if failed is not None:
                return "DEC-1", f"{lacks} for call {call_id_of(want)}: {failed}"
            ran = denied_yet_run(call_id_of(want), want, history, started)
            if ran is not None:
                return ran[0], f"{lacks} for call {call_id_of(want)}: {ran[1]}"
            waiting = awaiting_approval(history)
            if waiting is not None and waiting != call_id_of(want):
                return "SCHED-2", (
                    f"{lacks} for call {call_id_of(want)}: while call {waiting} waits for its "
                    "approval, the calls that started before it commit their results"
                )
            refusal = refused_rewrite(
                call_id_of(want), model_events, target_events, history, config=config, probe=probe
            )
            if refusal is not None:
                return refusal[0], f"{lacks}: {refusal[1]}"
            held = _held_unknown_tool(want, command, started)
            if held is not None:
                return "SCHED-1", f"{lacks} for call {call_id_of(want)}: {held}"
            raw = next(
                (
                    data_of(event).get("arguments")
                    for event in history
                    if event.get("type") == "tool/call" and call_id_of(event) == call_id_of(want)
                ),
                None,
            )
            if error_code(want) == "INVALID_TOOL_INPUT" and object_only_when_lossy(raw):
                return "EXE-2", (
                    f"{lacks} for call {call_id_of(want)}: its arguments are {LOSSY_JSON}: "
                    "the call ends as an INVALID_TOOL_INPUT error and its body never starts"
                )
            if error_code(want) == "INVALID_TOOL_INPUT" and falsy_json(raw):
                # A JSON null (false, 0, "", []) read as no arguments, {}: how the arguments
                # were read is what is wrong (it read as EXE-5, the order calls are judged in).
                return "EXE-2", (
                    f"{lacks} for call {call_id_of(want)}: " + falsy_read_as_empty(raw, "starts it")
                )
            if (
                error_code(want) == "INVALID_TOOL_INPUT"
                and call_id_of(want) in started
                and isinstance(raw, str)
                and raw.strip()
                and not isinstance(as_value(raw), ParsedJson)
            ):
                # Text no JSON reader parses, run as {} (round 18's HolmesGPT #906 review: a
                # parse error caught and replaced with an empty object): how the arguments were
                # read is what is wrong, not the order calls are judged in (it read as EXE-5).
                return "EXE-2", (
                    f"{lacks} for call {call_id_of(want)}: its arguments {spelled(raw)} are no "
                    "JSON, which EXE-2 keeps as the raw string, no JSON object: the call ends as "
                    "an INVALID_TOOL_INPUT error and its body never starts, where a loop reading "
                    "text it cannot parse as {} (a parse error caught, an empty object put in "
                    "its place) starts it"
                )
            rule, _ = result_rule(want, None, command, phase, history)
            if rule == "EXE-4" and any(
                e.get("type") in ("step/end", "turn/end") for e in target_events
            ):
                # The target ended the step without the result, not held it back (round 20's
                # Zed #40391: a failure dropped): it read as ORD-3, a result merely late.
                return "ADJ-3", (
                    f"{lacks} for call {call_id_of(want)}: the target ends the step with the "
                    "call unanswered, where every call a reply makes gets its result before the "
                    "step ends (the next request would carry it without one)"
                )
            if rule == "EXE-4":
                return "ORD-3", (
                    f"{lacks} for call {call_id_of(want)}: a result commits as soon as it and "
                    "every earlier call's result are ready, in model order, not when the whole "
                    "batch has settled"
                )
            if isinstance(command, ApprovalAnswers) and command.outcome != "allowed-once":
                return "DEC-2", (
                    f"{lacks} for call {call_id_of(want)}: only an approval answered "
                    f"allowed-once runs the call; {command.outcome} ends it with its own error "
                    "result"
                )
            if rule == "ABORT-1" and error_code(want) == "ABORTED_BEFORE_DISPATCH":
                # Owed since the abort and due once the calls before it commit (ORD-3): a
                # drain that skips the call waiting at the gate read as a result merely missing.
                return rule, f"{lacks}: {unstarted_call_words(want, model_events)}"
            if rule == "ABORT-1" and any(e.get("type") == "step/end" for e in target_events):
                # Ended with the call unanswered (round 20's ADK #187, a result dropped, cut
                # down to a program with an abort): the bare words said nothing of why.
                return rule, (
                    f"{lacks} for call {call_id_of(want)}: the target ends the step with the "
                    "call unanswered, where after an abort running calls drain: a success that "
                    "lands after it becomes ABORTED, a failure stays the body's, and only once "
                    "every call has its result do the step and the turn end"
                )
            return rule, f"{lacks} for call {call_id_of(want)}"
        case "turn/end":
            return turn_end_rule(want, None, command, phase)
        case "step/end" | "step/start":
            if isinstance(command, Abort):
                return abort_rule(phase), lacks
            if isinstance(command, ModelReplies):
                return reply_end_rule(command), (
                    f"{lacks} ({how_the_reply_ends(command, model_events)})"
                )
            if isinstance(command, ModelFails):
                return "TURN-5", f"{lacks} (a failed model request ends the step and the turn)"
            return ("STEP-1" if kind == "step/start" else "STEP-2"), lacks
        case "assistant/message":
            if isinstance(command, Abort) or (
                isinstance(command, ModelReplies) and command.finish == "cancelled"
            ):
                return "ABORT-2", f"{lacks}: an interrupted reply keeps its delivered text"
            partial = partly_matching_hook(config, want, command, probe)
            if partial is not None:
                # The target waits for a hook the model does not run: its reply is held back.
                return "HOOK-8", (
                    f"{lacks}: the target waits for {partial}, which does not match the whole "
                    "tool name, so no such hook runs and the reply is committed now"
                )
            if isinstance(command, HookAnswers | ModelReplies) and waits_as_javascript(
                config, want
            ):
                # The target waits for hooks of a call whose arguments it parsed otherwise.
                return "EXE-2", (
                    f"{lacks}: a call's {BLANK_TO_ONE_READER} no more hooks run, and the reply "
                    "is committed" + unregistered_hint(config, want)
                )
            target_log = target_log_so_far(history, target_events, model_events)
            invalid = hooked_invalid_call(config, want, command, probe, target_log)
            if isinstance(command, HookAnswers | ModelReplies) and invalid is not None:
                # The target waits for hooks of a call no hook may see (it read as ORD-1); a
                # loop judging a registered tool's input alone breaks EXE-5 (1), which its
                # unjudged calls break where no hook matches them too.
                rule, why = invalid
                return rule, (
                    f"{lacks}: {why}, so no PreToolUse hook runs for it (its error comes "
                    "at the gate, EXE-5) and the reply is committed now"
                )
            if isinstance(command, HookAnswers):
                return "RW-3", f"{lacks}: after the last hook answers, the reply is committed"
            if isinstance(command, ModelReplies) and command.finish == "max-tokens":
                return "STEP-4", (
                    f"{lacks}: a reply cut off at max-tokens keeps its text and reasoning, an "
                    "empty message when none is left"
                )
            return "ORD-1", lacks
        case "tool/call":
            return "ORD-2", f"{lacks}: each call of the reply is recorded"
        case "turn/start" if isinstance(command, SubmitUser) and not command.text.strip():
            return "TURN-1", (
                f"{lacks}: what the user sends while no turn is open opens one, whatever its "
                "text: a blank message too"
            )
        case "turn/start":
            return "TURN-1", lacks
        case _:
            pass  # an event type no rule prescribes here
    return NO_RULE, lacks


def _cancelled_later(
    want: Event, history: Sequence[Event], config: LoopConfig | None, probe: Probe | None
) -> str | None:
    """The earlier call whose settling (probed: its body succeeds) makes the target write the
    cancelled approval `want` it did not write when the abort landed; None when there is none,
    or the target writes it then neither."""
    call_id = str(data_of(want).get("id", "")).removeprefix(APPROVAL_ID.format(call_id=""))
    earlier = earlier_unanswered(call_id, history)
    if probe is None or config is None or not earlier:
        return None
    first = str(call_id_of(earlier[0]))
    hooks = config.hooks_for(POST_TOOL_USE, str(data_of(earlier[0]).get("name")))
    after = probe(ToolFinishes(first, ToolSucceeded(""), tuple(PostPass() for _ in hooks)))
    written = after is not None and any(
        e.get("type") == "approval/decided" and data_of(e) == data_of(want) for e in after.events
    )
    return first if written else None


def _approved_before(asked: Event, before: Sequence[Event]) -> str | None:
    """The call of `asked`'s tool an earlier approval request of the program was answered
    `allowed-once` for, if any (`before`: the model's events before this command)."""
    allowed = {
        data_of(e).get("id")
        for e in before
        if e.get("type") == "approval/decided" and data_of(e).get("outcome") == "allowed-once"
    }
    tool = data_of(asked).get("toolName")
    return next(
        (
            str(data_of(e).get("callId"))
            for e in before
            if e.get("type") == "approval/asked"
            and data_of(e).get("toolName") == tool
            and data_of(e).get("id") in allowed
        ),
        None,
    )


def _refused_before(asked: Event, history: Sequence[Event]) -> tuple[str, str] | None:
    """The call of `asked`'s tool, in its step, whose approval request was answered otherwise
    than allowed-once, and that answer, if any (`history`: the model's events so far)."""
    tool = data_of(asked).get("toolName")
    requests: dict[object, str] = {}
    for event in calls_step(call_id_of(asked), history):
        data = data_of(event)
        if event.get("type") == "approval/asked" and data.get("toolName") == tool:
            requests[data.get("id")] = str(data.get("callId"))
        elif event.get("type") == "approval/decided" and data.get("id") in requests:
            outcome = str(data.get("outcome"))
            if outcome != "allowed-once" and requests[data.get("id")] != call_id_of(asked):
                return requests[data.get("id")], outcome
    return None


def _withheld_result(
    audit: Event, model_events: Sequence[Event], target_events: Sequence[Event]
) -> Event | None:
    """The result a PostToolUse audit the target lacks precedes in the model's commit, when the
    target lacks that result too: the first tool/result after the audit (HOOK-5 puts a
    result's audit pairs right before it; a profile may have erased the audit's callId)."""
    if data_of(audit).get("point") != "PostToolUse":
        return None
    at = next((i for i, event in enumerate(model_events) if event is audit), None)
    if at is None:
        at = next((i for i, event in enumerate(model_events) if event == audit), None)
    if at is None:
        return None
    result = next((e for e in model_events[at + 1 :] if e.get("type") == "tool/result"), None)
    if result is None:
        return None
    committed = {call_id_of(e) for e in target_events if e.get("type") == "tool/result"}
    return None if call_id_of(result) in committed else result


# Texts a language's truth test reads as false beside "": Perl's "0", PHP's "0".
_FALSE_TO_SOME = frozenset({"0"})
