"""The rule an event changed in place breaks (`changed`): the target has an event of the same
type where the model has one, with other contents."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, assert_never

from loopspec.model.commands import Abort, Command, HookAnswers, ModelReplies
from loopspec.model.config import LoopConfig
from loopspec.model.facts import member_problem
from loopspec.model.json_text import spelled
from loopspec.model.wording import REASON_SEPARATOR
from loopspec.properties.conformance.blame.arguments import (
    applied_earlier_rewrite,
    arguments_rule,
    refused_in_place,
    shown_once_settled,
    sidecar_reordered,
)
from loopspec.properties.conformance.blame.contexts import (
    NO_CONTEXT,
    block_types,
    context_of_a_block,
    context_of_a_refused_outcome,
    context_of_an_aborted_success,
    empty_context,
    excerpt_json,
    holds_no_text_alone,
    lost_after_a_block_with_context,
    message_left_out,
)
from loopspec.properties.conformance.blame.endings import (
    cause_of_a_refused_abort,
    every_abort_recorded_as,
    parked_words,
    parking_turn_end,
    reply_end_rule,
    turn_end_rule,
)
from loopspec.properties.conformance.blame.history import (
    call_arguments,
    decision_reading,
    hook_audit_rule,
    hook_named,
    message_words,
    named,
    recorded,
    reply_call_ids,
    reply_in_hand,
    result_text,
    source_of,
    target_log_so_far,
)
from loopspec.properties.conformance.blame.hook_answers import (
    dropped_by_an_ask,
    not_erased_by_later,
)
from loopspec.properties.conformance.blame.hooks_due import (
    fits_only_part,
    hook_skipped_for_an_unregistered_tool,
    outside_matcher,
    skipped_hook_rule,
    skipped_matching_hook,
)
from loopspec.properties.conformance.blame.hooks_input import (
    falsy_call_hooked,
    hooks_follow_javascript,
    hooks_whatever_the_input,
    invalid_call_hooked,
    lossy_call_hooked,
    skipped_as_strict_parser,
    tool_in_hand,
    unregistered_input_unjudged,
)
from loopspec.properties.conformance.blame.messages import (
    MESSAGE_KINDS,
    TRIMMED_TOO,
    WHITESPACE_CONTEXT,
    delivered_elsewhere,
    member_left_out,
    source_rule,
    unknown_members,
)
from loopspec.properties.conformance.blame.probes import unregistered_probe_shows
from loopspec.properties.conformance.blame.readings import (
    BLANK_AS_EXE_2,
    BLANK_TO_ONE_READER,
    LONE_SURROGATE_WORDS,
    LOSSY_JSON,
    blank_to_javascript_only,
    falsy_json,
    falsy_read_as_empty,
    holds_blank_text,
    object_only_when_lossy,
)
from loopspec.properties.conformance.blame.results import result_rule
from loopspec.properties.conformance.blame.situation import call_situation, pre_answers
from loopspec.properties.conformance.call_again import (
    Probe,
    blank_context_trimmed,
    no_object_call_judged,
    supplied_input_fate,
)
from loopspec.properties.conformance.compare import NO_RULE, normalized_event, positional
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of, error_code
from loopspec.properties.conformance.json_values import as_value
from loopspec.properties.conformance.text_changes import message_text_change

# Said where the model's stderrSummary is "" and the target's is absent or another.
_EMPTY_REASON_GIVEN = (
    '; the reason "" is a reason the hook gave, written as given (a loop testing reason != "", '
    "as Go's zero value invites, reads it as none: keep whether it was given)"
)


def _unregistered_input_probed(
    want: Event,
    got: Event,
    history: Sequence[Event],
    probe: Probe | None,
    *,
    target_events: Sequence[Event] = (),
    config: LoopConfig | None = None,
) -> tuple[str, str] | None:
    """The rule and words for a call of a tool that is not registered answered UNKNOWN_TOOL
    where the model finds its input invalid, told by a probe (`no_object_call_judged`): a
    reply calling that tool with `[]` (JSON, and no object to any reader). Answered
    UNKNOWN_TOOL again, the target checks no input of such a tool, whatever the arguments
    (EXE-5; read as a reader's parse of these, EXE-2); answered INVALID_TOOL_INPUT, it checks
    them, and read these arguments as an object: blank as JavaScript's trim reads them, or lossy
    JSON (EXE-2; read as EXE-5 where blank). None when it is not so or cannot be told."""
    if probe is None or error_code(want) != "INVALID_TOOL_INPUT":
        return None
    if error_code(got) != "UNKNOWN_TOOL":
        return None
    call_id = call_id_of(want)
    name, original = (recorded(call_id, field, history) for field in ("name", "arguments"))
    if not isinstance(name, str):
        return None
    # A loop reading a false-ish value as no arguments reads [] so too: 1 tells it (round 10's
    # null read as {}, seeds 52, 54 and 57 of 50-69, read as EXE-5).
    falsy = falsy_json(original)
    sent = "1" if falsy else "[]"
    judged = no_object_call_judged(
        call_id,
        name,
        target_log_so_far(history, target_events),
        config=config,
        probe=probe,
        arguments=sent,
    )
    about = f"the result of call {call_id} differs"
    if judged in ("unknown", "hooked"):
        return "EXE-5", (
            f"{about}: invalid input is reported before an unknown tool: arguments that are not "
            "a JSON object are invalid input whatever the tool, one that is not registered too "
            f"(EXE-5 (1)), and the target checks no input of such a tool "
            f"({unregistered_probe_shows(judged, name, sent)})"
        )
    told = f"a reply calling {name} with {sent} after it, sent to tell, was answered"
    if judged != "invalid":
        return None
    if falsy:
        instead = (
            "judges the call's tool, which is not registered (EXE-5), and answers it "
            f"UNKNOWN_TOOL; the target does check such a tool's input ({told} "
            "INVALID_TOOL_INPUT)"
        )
        return "EXE-2", f"{about}: {falsy_read_as_empty(original, instead)}"
    if blank_to_javascript_only(original):
        read = (
            "blank to JavaScript's trim alone: U+FEFF is not blank to Python's str.strip, so "
            "they are not {} but the raw string, no JSON object, where the target reads them as "
            "{}"
        )
    elif object_only_when_lossy(original):
        read = f"{LOSSY_JSON}, where the target reads them as an object"
    else:
        return None
    return "EXE-2", (
        f"{about}: the call's arguments are {read} and so judges the call's tool, which is not "
        f"registered (EXE-5): {json.dumps(result_text(want))}; the target does check such a "
        f"tool's input ({told} INVALID_TOOL_INPUT)"
    )


def _unequal_input_fate(
    want: Event,
    history: Sequence[Event],
    target_events: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> tuple[str, str] | None:
    """The rule a target breaks that records no sidecar for `want`'s call, whose hook supplied
    an input equal to the model's arguments, told by the call made again with an input unlike
    them (`supplied_input_fate`): a target running it without recording it applies inputs to
    execution alone (RW-1), one running and recording the model's arguments drops inputs (RW-2,
    or HOOK-3 where a later hook passed). None where it records the unequal input (it leaves
    out the sidecar of an input that changes nothing, RW-2's as said) or cannot be told."""
    call_id = call_id_of(want)
    answers = pre_answers(call_id, history)
    logged = target_log_so_far(history, target_events)
    fate = supplied_input_fate(call_id, answers, history, logged, config=config, probe=probe)
    supplier = named([hook for hook, _reading, supplied in answers if supplied][-1:])
    unequal = (
        f"the target records no rewrite sidecar for the input {supplier} supplied, equal to "
        "the model's arguments; the call made again, sent to tell, its input unlike them,"
    )
    match fate:
        case "run alone":
            return "RW-1", (
                f"{unequal} records the model's arguments and runs the hook's input: every "
                "reader (tool/call, the next request's history, the ACP card, the body) takes "
                "the effective input, the rewritten one"
            )
        case "dropped":
            erased = not_erased_by_later(call_id, history)
            if erased:
                return "HOOK-3", (
                    f"{unequal} records the model's arguments, and no body runs the hook's "
                    f"input{erased}; a loop applying no hook's input at all reads so too (RW-2)"
                )
            return "RW-2", (
                f"{unequal} records the model's arguments, and no body runs the hook's input: an "
                "input a hook supplied is either applied and recorded (a rewrite sidecar naming "
                "the hook) or the call is refused, never dropped"
            )
        case "recorded" | None:
            return None
        case _:
            assert_never(fate)


def _calls_named(event: Event) -> str:
    """A reply's calls, each as its id and tool name ("c1 read, c2 read"), or "none"."""
    content = data_of(event).get("message", {}).get("content") or []
    calls = [
        f"{b.get('id')} {b.get('name')}"
        for b in content
        if isinstance(b, dict) and b.get("type") == "tool-call"
    ]
    return ", ".join(calls) or "none"


# The fields of a hook/result that TEXT-2 takes from the answer's audit.
_AUDIT_FIELDS = frozenset({"decision", "durationMs", "exitCode", "stderrSummary"})


# TEXT-2's words for the decision a hook/result records, when the audit names none.
_DECISION_WORDS = (
    "a hook/result's decision is the answer's own word unless its audit names another: "
    "'pass', 'allow', 'ask' or 'deny' at PreToolUse; 'pass', 'allow' for a context, or "
    "'block' at PostToolUse"
)


def _audit_value(value: object) -> str:
    """An audit field's value as JSON writes it, or "absent"."""
    return "absent" if value is None else json.dumps(value, ensure_ascii=False)


def _text_differs_alone(
    fields: list[str], mine: dict[str, Any], theirs: dict[str, Any], field: str
) -> bool:
    """Whether `field` is the one field besides the decision that differs, a text in both: the
    text changed on its way (how a target wrote it), not where it was taken from."""
    return set(fields) - {"decision"} == {field} and all(
        isinstance(side.get(field), str) for side in (mine, theirs)
    )


def changed(
    want: Event,
    got: Event,
    command: Command,
    phase: str,
    history: Sequence[Event],
    *,
    target_events: Sequence[Event],
    config: LoopConfig | None = None,
    program: Sequence[Command] = (),
    probe: Probe | None = None,
    executed: Sequence[tuple[str, str]] = (),
) -> tuple[str, str]:
    """The rule and words for `want`, the model's event, which the target appends as `got` with
    other members (same type, same place); the rest as `classify`'s (`executed`: the calls whose
    bodies the target started, with their arguments)."""
    kind = str(want.get("type"))
    mine, theirs = data_of(normalized_event(want)), data_of(normalized_event(got))
    fields = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    named = f"{kind} differs in {', '.join(fields) or 'its envelope'}"
    unknown = unknown_members(want, got)
    if unknown is not None:
        # Only members its type does not define: how the event is written, not what it says
        # (a user/message's read as ADJ-4's queue order, a tool/call's as RW-2's sidecar).
        return "LOG-4", f"{named}: {unknown}"
    refused = (
        context_of_a_refused_outcome(got, config, program)
        if kind == "user/message" and not empty_context(got)
        else None
    )
    if refused is not None:
        # Delivered where the model delivers another message (the user's, opening the next
        # turn): the context is the refused outcome's, not the queue's order (it read as ADJ-4).
        return "MODEL-3", f"{named}: the target delivers a message the model does not: {refused}"
    if kind in ("user/message", "assistant/message", "tool/result"):
        wrong_source = source_rule(
            positional(normalized_event(want)), positional(normalized_event(got))
        )
        if wrong_source is not None:
            return wrong_source
    left_out = member_left_out(want, got) if kind in MESSAGE_KINDS else None
    if left_out is not None:
        # A member left out (or written under a misspelt key): the message's members, not the
        # queue's order (ADJ-4) nor the reply's blocks (STEP-4), which these were read as.
        return "LOG-4", f"{named}: {left_out}"
    moved = delivered_elsewhere(want, got, history, target_events)
    if kind in ("user/message", "assistant/message") and not moved:
        how = message_text_change(
            positional(normalized_event(want)), positional(normalized_event(got))
        )
        if how is not None:
            return "TEXT-2", (
                f"{named}: a message holds the text given (typed, replied or deferred), code "
                f"point for code point, where the target's is {how}"
            )
    match kind:
        case "turn/start":
            return "TURN-1", named
        case "step/start":
            return "STEP-1", named
        case "step/end":
            return "STEP-2", named
        case "turn/end":
            if fields == ["turn"]:
                return "TURN-2", named
            taken = cause_of_a_refused_abort(want, got, program)
            alike = None if taken is None else every_abort_recorded_as(got, probe)
            if taken is not None and alike is None:
                return "MODEL-3", f"{named}: {taken}"
            rule, words = turn_end_rule(want, got, command, phase)
            return rule, words if alike is None else f"{words}; {alike}"
        case "user/message" if context_of_a_block(got, command, hooks=False):
            return "DEC-3", f"{named}: a PostToolUse block drops the body's own contexts"
        case "user/message" if (
            message_left_out(want, target_events, history)
            and (
                context_of_a_block(want, command, hooks=True)
                or lost_after_a_block_with_context(want, history)
            )
            and blank_context_trimmed(want, command, history, config, probe)
        ):
            return "ADJ-4", WHITESPACE_CONTEXT.format(lacks=named) + TRIMMED_TOO
        case "user/message" if message_left_out(want, target_events, history) and (
            context_of_a_block(want, command, hooks=True)
            or lost_after_a_block_with_context(want, history)
        ):
            return "DEC-3", (
                f"{named}: the target leaves out a context a PostToolUse hook of a blocked result "
                "gave; a block drops the body's own contexts, never its hooks'"
            )
        case "user/message" if block_types(want) is not None and block_types(got) is None:
            # No list at all (an in-process loop's content written as its text): the member's
            # type, as the target's own log is read (it said "the target's blocks are null").
            return "LOG-4", (
                f"{named}: {member_problem(data_of(got), 'content', 'data', 'an array')} of "
                f"blocks, where the target's is {excerpt_json(data_of(got).get('content'))}"
            )
        case "user/message" if (
            not moved and block_types(want) == ["text"] and holds_no_text_alone(got)
        ):
            # The message in its place, its content no text block (the tutorial's loop writing
            # {"type": "tex"}): TEXT-2's, where the fallback below read a queue's order (ADJ-4).
            # (Text blocks merged into one message stay ADJ-4's: contexts given as one.)
            return "TEXT-2", (
                f"{named}: a message of the user's or a queued context is one text block, where "
                f"the target's blocks are {json.dumps(block_types(got))}"
            )
        case "user/message" if empty_context(got) and not empty_context(want):
            return "ADJ-4", f"{named}: the target's is {NO_CONTEXT}"
        case "user/message" if (
            aborted := context_of_an_aborted_success(got, program, history)
        ) is not None:
            return "ADJ-4", (
                f"{named}: the target delivers {message_words(got)}, a context that call "
                f"{aborted}'s body gave when it settled after the abort, where its result is the "
                "abort's (ABORTED) and queues nothing of the body's: a call's contexts join the "
                "queue when its result commits, not when its body finishes"
            )
        case "user/message":
            contexts = all(
                source_of(event) == {"kind": "plugin", "plugin": "tool-context"}
                for event in (want, got)
            )
            ended = parking_turn_end(target_events, history)
            order = (
                f" (the target's message here, {message_words(got)}, is one the model "
                "delivers elsewhere in the turn: the order differs)"
                if moved
                else ""
            )
            return "ADJ-4", (
                f"{named}: queued messages are delivered FIFO after the next step/start{order}"
                + (
                    "; a call's contexts join the queue when its result commits, the body's "
                    "own first, then its PostToolUse hooks' in configured order"
                    if contexts
                    else ""
                )
                + parked_words(want, got, ended)
            )
        case "assistant/message":
            if call_arguments(want) != call_arguments(got) or reply_call_ids(
                want
            ) != reply_call_ids(got):
                if reply_call_ids(want) != reply_call_ids(got):
                    if isinstance(command, ModelReplies) and command.finish != "completed":
                        # A cancelled reply's calls are ABORT-2's; a cut one's STEP-4's.
                        return reply_end_rule(command), (
                            f"{named}: a reply that did not complete keeps no calls"
                        )
                    # The reply recorded is not the one the model sent (round 20: Continue
                    # #6506's calls merged, dynamiq #902's dropped): it read as ORD-2, whose
                    # records match the reply the target wrote.
                    return "STEP-4", (
                        f"{named}: a completed reply is the step's assistant/message with every "
                        f"block as delivered, in order: the model's reply makes the calls "
                        f"{_calls_named(want)}, the target's {_calls_named(got)}"
                    )
                return arguments_rule(
                    want, got, history, target_events, config, probe=probe, executed=executed
                )
            if "interrupted" in fields or isinstance(command, Abort):
                return "ABORT-2", f"{named}: an interrupted reply keeps only its delivered text"
            if isinstance(command, ModelReplies) and command.finish == "cancelled":
                blank = f" ({BLANK_AS_EXE_2})" if holds_blank_text(command) else ""
                return "ABORT-2", f"{named}: a cancelled reply keeps only its non-blank text{blank}"
            if isinstance(command, ModelReplies) and command.finish == "max-tokens":
                return "STEP-4", (
                    f"{named}: a reply cut off at max-tokens drops its calls alone; its text and "
                    "reasoning blocks, blank ones too, are the step's assistant/message as "
                    "delivered"
                )
            return "STEP-4", (
                f"{named}: a completed reply is the step's assistant/message with every block as "
                "delivered, in order: text and reasoning, blank ones too, and its calls"
            )
        case "tool/call":
            if "callId" in fields or "name" in fields:
                return "ORD-2", f"{named}: each call of the reply is recorded once, in order"
            if "arguments" in fields:
                return arguments_rule(
                    want, got, history, target_events, config, probe=probe, executed=executed
                )
            situation = call_situation(call_id_of(want), history)
            rewrote = bool(data_of(got).get("rewrite"))
            if len(situation.supplied) >= 2 and applied_earlier_rewrite(
                want, got, situation, rewrote
            ):
                reordered = sidecar_reordered(
                    want, got, history=history, config=config, probe=probe
                )
                if reordered is not None:
                    return reordered[0], f"{named}: {reordered[1]}"
                return "HOOK-3", "the sidecar names another hook as the rewrite in effect"
            sidecar = data_of(want).get("rewrite")
            if not rewrote and isinstance(sidecar, dict):
                # Left out where the input was applied but changed nothing: still a hook's input.
                same = as_value(sidecar.get("originalArguments")) == as_value(
                    data_of(want).get("arguments")
                )
                dropped = dropped_by_an_ask(call_id_of(want), history) if same else None
                # The call's result once the calls before it settle, fetched once: both probes
                # below go on from what the target showed then (a second settling of those
                # calls is refused, and told nothing: seed 66 of 50-69 read as RW-2 so).
                shown = (
                    shown_once_settled(call_id_of(want), target_events, config, probe)
                    if same
                    else list(target_events)
                )
                refused = (
                    refused_in_place(
                        want,
                        got,
                        situation,
                        history,
                        target_events=shown,
                        config=config,
                        probe=probe,
                    )
                    if same
                    else None
                )
                if refused is not None:
                    # Refused, the call keeps its arguments and no sidecar: the missing record
                    # follows from the refusal (it read as RW-2).
                    return "HOOK-6", f"{named}: the target records no rewrite sidecar: {refused}"
                if dropped is not None:
                    return "HOOK-3", (
                        f"{named}: the target records no rewrite sidecar, but a hook-supplied "
                        f"input (equal to the model's own) was applied: {dropped}"
                    )
                unequal = _unequal_input_fate(want, history, shown, config, probe) if same else None
                if unequal is not None:
                    return unequal[0], f"{named}: {unequal[1]}"
                return "RW-2", (
                    f"{named}: the target records no rewrite sidecar, but a hook-supplied input "
                    "was applied"
                    + (" (equal to the model's own, which still gets one)" if same else "")
                    + not_erased_by_later(call_id_of(want), history)
                )
            return "RW-2", f"{named}: {_sidecar_difference(want, got)}"
        case "tool/result":
            if call_id_of(want) != call_id_of(got):
                return "ORD-3", (
                    f"the target commits the result of call {call_id_of(got)} where the model "
                    f"commits call {call_id_of(want)}'s (results commit in the reply's order)"
                )
            probed = _unregistered_input_probed(
                want, got, history, probe, target_events=target_events, config=config
            )
            if probed is not None:
                return probed
            return result_rule(
                want,
                got,
                command,
                phase,
                history,
                config=config,
                program=program,
                target_events=target_events,
                probe=probe,
            )
        case "hook/invoked":
            if fields == ["matcher"]:  # the right hook for the right call, mislabelled
                return "TEXT-2", f"{named}: a hook's audit names its configured matcher"
            matcher = outside_matcher(got, command, history, program)
            if matcher is not None:
                return "HOOK-8", (
                    f"{named}: the target runs {hook_named(got)}, whose matcher "
                    f"{spelled(matcher)} does not match the whole name of the tool call "
                    f"{data_of(got).get('callId')} makes"
                )
            unmatched = skipped_matching_hook(
                want, got, command, history, config=config, program=program, probe=probe
            )
            unregistered = (
                None
                if unmatched is None
                else hook_skipped_for_an_unregistered_tool(
                    want, got, command, history, config=config, program=program
                )
            )
            if unregistered is not None:
                # Read as a glob's skip, where the hook ran for a later call a glob would not
                # have run it for: the call's tool, not the matcher, made the loop skip it.
                return "EXE-5", f"{named}: {unregistered}"
            if unmatched is not None:
                return "HOOK-8", f"{named}: {unmatched}"
            partly = fits_only_part(config, got)
            if partly is not None:
                # The call's reply is not logged yet (later hooks are due): its tool is not
                # known here, but the hook fits no configured tool's whole name.
                return "HOOK-8", (
                    f"{named}: the target runs {hook_named(got)}, whose matcher {partly} does not "
                    "match the whole name of any configured tool, only part of one"
                )
            in_hand = reply_in_hand(command, program)
            logged = target_log_so_far(history, target_events)
            invalid = invalid_call_hooked(config, got, in_hand)
            lossy = lossy_call_hooked(got, in_hand)
            unjudged = unregistered_input_unjudged(
                invalid,
                got,
                in_hand,
                logged,
                config=config,
                probe=probe,
            )
            if unjudged is not None:
                return "EXE-5", f"{named}: {unjudged}"
            if hooks_follow_javascript(want, got, program, config):
                return "EXE-2", (
                    f"{named}: the call's {BLANK_TO_ONE_READER} they decide whether its hooks run"
                )
            falsy = falsy_call_hooked(
                invalid,
                got,
                in_hand,
                logged,
                config=config,
                probe=probe,
            )
            if falsy is not None:
                return "EXE-2", f"{named}: {falsy}"
            if invalid is not None and lossy is not None:
                whatever = hooks_whatever_the_input(
                    lossy,
                    tool_in_hand(lossy, in_hand),
                    logged,
                    config,
                    probe,
                )
                if whatever is not None:
                    # It runs hooks whatever the input, no reader's at fault: HOOK-4's.
                    return "HOOK-4", (
                        f"{named}: the target runs {hook_named(got)} for call {lossy}, whose "
                        f"arguments are {LOSSY_JSON}; {whatever}"
                    )
                # Its reader took -0.0, 1e400 or NaN as a number (jq, json.loads): EXE-2's.
                return "EXE-2", (
                    f"{named}: the target runs {hook_named(got)} for call {lossy}, whose "
                    f"arguments are {LOSSY_JSON}, so no PreToolUse hook runs for it"
                )
            if invalid is not None:
                # It read as the model's call skipped (EXE-5, when that call's tool is not
                # registered; EXE-2, when its arguments hold a lone surrogate escape), where
                # the target ran a hook no call with invalid input gets; EXE-5's clause when
                # the hooked call's tool is not registered (a loop judging a registered tool's
                # input alone), as `hooked_invalid_call` says where the reply waits.
                words, unregistered = invalid
                hooked = data_of(got).get("callId")
                whatever = (
                    hooks_whatever_the_input(
                        hooked,
                        tool_in_hand(hooked, in_hand),
                        logged,
                        config,
                        probe,
                    )
                    if unregistered
                    else None
                )
                return ("EXE-5" if unregistered and whatever is None else "HOOK-4"), (
                    f"{named}: the target runs {hook_named(got)} for {words}, and no "
                    "PreToolUse hook runs for a call with invalid input (its error comes at the "
                    "gate, EXE-5)"
                    + (
                        f", though its tool {unregistered} is not registered: EXE-5 (1) judges "
                        "the input of every call, registered tool or not"
                        if unregistered and whatever is None
                        else ""
                    )
                    + (f"; {whatever}" if whatever is not None else "")
                )
            skipped_call = skipped_as_strict_parser(want, program)
            # A target running another hook for that very call did not skip it.
            if skipped_call is not None and data_of(got).get("callId") != skipped_call:
                return "EXE-2", (
                    f"{named}: call {skipped_call}'s arguments are a JSON object as EXE-2 reads "
                    f"them{LONE_SURROGATE_WORDS}, so its PreToolUse hooks run"
                )
            mine_pair = (data_of(want).get("callId"), data_of(want).get("handlerId"))
            skipped = skipped_hook_rule(config, reply_in_hand(command, program), history, mine_pair)
            if skipped is not None:
                rule, words = skipped
                return rule, f"{named}: the target skips a hook the model runs: {words}"
            if data_of(want).get("point") == "PostToolUse":
                return "HOOK-5", (
                    f"{named}: which hook runs for which call, in order: a result's PostToolUse "
                    "hooks are audited in configured order, each with its own verdict (a "
                    "ToolFinishes gives them in that order), the model's "
                    f"{hook_named(want)} here, where the target audits {hook_named(got)}"
                )
            return hook_audit_rule(want), (
                f"{named}: which hook runs for which call, in order: the reply's calls in model "
                "order, each call's hooks in configured order"
            )
        case "hook/result":
            if "updatedInput" in fields:
                return "RW-2", (
                    f"{named}: the supplied input is audited as the JSON value the hook gave"
                    f"{_nulls_dropped(mine.get('updatedInput'), theirs.get('updatedInput'))}"
                )
            point, ours = mine.get("point"), mine.get("decision")
            their_word = theirs.get("decision")
            reading, their_reading = (
                decision_reading(point, ours),
                decision_reading(point, their_word),
            )
            if reading and their_reading and reading != their_reading:
                return "HOOK-1", (
                    f"{named}: the audit records {spelled(their_word)}, which reads as "
                    f"{their_reading}, where the loop acted on {reading} (recorded {spelled(ours)})"
                )
            if set(fields) <= _AUDIT_FIELDS:  # the right hook's answer, its audit misrecorded
                values = "; ".join(
                    f"{field} {_audit_value(data_of(want).get(field))} in the model, "
                    f"{_audit_value(data_of(got).get(field))} in the target"
                    for field in fields
                )
                wants: list[str] = []
                if "decision" in fields:
                    named_by = (
                        command.audit.decision
                        if isinstance(command, HookAnswers) and command.audit is not None
                        else None
                    )
                    # Which of the two the answer came with, said: an audit's word was kept
                    # out by a loop that records the answer's word alone.
                    wants.append(
                        _DECISION_WORDS
                        + (
                            f", and this answer's audit names {spelled(named_by)}"
                            if named_by is not None and named_by == ours
                            else ""
                        )
                    )
                if _text_differs_alone(fields, mine, theirs, "stderrSummary"):
                    wants.append(
                        "stderrSummary is the text the answer gave (its audit's, or else the "
                        "hook's reason), code point for code point"
                    )
                elif set(fields) - {"decision"}:
                    empty = _EMPTY_REASON_GIVEN if mine.get("stderrSummary") == "" else ""
                    wants.append(
                        "a hook/result takes its durationMs, exitCode and "
                        "stderrSummary from the answer's audit when it has one, a field the audit "
                        "lacks staying absent (the hook's reason does not stand in for it); "
                        "without an audit, durationMs 0, no exitCode and stderrSummary the "
                        f"hook's reason (none when it gave none): not what the loop measured{empty}"
                    )
                return "TEXT-2", f"{named} ({values}): " + "; and ".join(wants)
            if data_of(want).get("point") == "PostToolUse":
                return "HOOK-5", named
            return "HOOK-1", f"{named}: the audit records what the hook answered"
        case "approval/asked":
            if "arguments" in fields:
                return "RW-4", "the approval request does not show the call's recorded arguments"
            if fields == ["reason"]:
                return "DEC-2", (
                    f"{named}: its reason is the asking hooks' non-empty reasons joined by "
                    f"{spelled(REASON_SEPARATOR)} in configured order, absent when none gave one: "
                    f"the model's {spelled(mine.get('reason'))}, the target's "
                    f"{spelled(theirs.get('reason'))}"
                )
            return "DEC-2", named
        case "approval/decided":
            if isinstance(command, Abort):
                return "ABORT-1", f"{named}: an abort answers pending approvals cancelled"
            return "DEC-2", named
        case _:
            pass  # an event type no rule prescribes here
    return NO_RULE, named


def _nulls_dropped(given: object, audited: object) -> str:
    """Words for an audited input that is the given one without its keys whose value is null
    ("" when it is not)."""
    if not isinstance(given, dict) or not isinstance(audited, dict):
        return ""
    dropped = [key for key, value in given.items() if value is None]
    if not dropped or audited != {k: v for k, v in given.items() if v is not None}:
        return ""
    return (
        f", every key kept: the target's leaves out {', '.join(map(spelled, dropped))}, whose "
        "value is null (a null is a value; a loop dropping such keys from the object its audit "
        "holds changes the audit too)"
    )


def _sidecar_difference(want: Event, got: Event) -> str:
    """What a target's rewrite sidecar gets wrong, both values shown (RW-2)."""
    mine, theirs = data_of(want).get("rewrite"), data_of(got).get("rewrite")
    if not isinstance(mine, dict) or not isinstance(theirs, dict):
        return "the rewrite sidecar records every applied rewrite"
    if mine.get("originalArguments") != theirs.get("originalArguments"):
        return (
            "the sidecar's originalArguments is the model's argument string exactly as it sent "
            f"it: the model's {spelled(mine.get('originalArguments'))}, the target's "
            f"{spelled(theirs.get('originalArguments'))}"
        )
    if mine.get("handlerIds") != theirs.get("handlerIds"):
        return (
            "the sidecar names every hook that supplied an input, in configured order, the one "
            f"in effect last: the model's {spelled(mine.get('handlerIds'))}, the target's "
            f"{spelled(theirs.get('handlerIds'))}"
        )
    # Both members agree: the difference is a member the target adds (or one it leaves out).
    return (
        "the sidecar holds originalArguments and handlerIds, nothing else: the model's "
        f"{spelled(mine)}, the target's {spelled(theirs)}"
    )
