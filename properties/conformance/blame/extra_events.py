"""The rule an event the target adds breaks (`extra`): the target's log has an event where the
model's has none."""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from loopspec.model.commands import (
    FINISH_CANCELLED,
    Abort,
    ApprovalAnswers,
    Command,
    HookAnswers,
    ModelReplies,
    Recover,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig
from loopspec.model.json_text import spelled
from loopspec.properties.conformance.blame.contexts import (
    NO_CONTEXT,
    context_of_a_block,
    context_of_a_refused_outcome,
    empty_context,
)
from loopspec.properties.conformance.blame.endings import (
    abort_cause_ending,
    abort_rule,
    how_the_reply_ends,
    interrupted_reply_kept,
    reply_end_rule,
)
from loopspec.properties.conformance.blame.execution import (
    cap_full,
    starts_over_the_cap,
    unanswered_before,
)
from loopspec.properties.conformance.blame.history import (
    hook_audit_rule,
    hook_named,
    is_error,
    own_error_code,
    reply_in_hand,
    result_text,
    source_of,
    target_log_so_far,
)
from loopspec.properties.conformance.blame.hook_answers import (
    failed_open_before,
    failed_open_words,
    pass_read_as_denial,
    refused_rewrite,
)
from loopspec.properties.conformance.blame.hooks_due import (
    first_hook_due,
    hook_still_due,
    matcher_read_as_a_glob,
    outside_matcher,
    skipped_hook_rule,
)
from loopspec.properties.conformance.blame.hooks_input import (
    commits_as_javascript,
    commits_as_strict_parser,
    refused_at_the_gate,
    unregistered_left_unhooked,
)
from loopspec.properties.conformance.blame.missing_events import missing
from loopspec.properties.conformance.blame.readings import (
    BLANK_TO_ONE_READER,
    LONE_SURROGATE_WORDS,
    misread_input,
)
from loopspec.properties.conformance.blame.situation import call_situation
from loopspec.properties.conformance.call_again import Probe
from loopspec.properties.conformance.compare import NO_RULE
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of, error_code


def _outcome_of_another_call(
    result: Event, command: ToolFinishes, target_events: Sequence[Event]
) -> str | None:
    """Why the target's `result`, for another call than the one `command` settles, carries that
    command's outcome (a loop matching call ids loosely: Perl's `==`, a prefix), if it does."""
    other = call_id_of(result)
    if other is None or other == command.call_id:
        return None
    if any(
        event.get("type") == "tool/result" and call_id_of(event) == command.call_id
        for event in target_events
    ):
        return None
    match command.outcome:
        case ToolSucceeded():
            text = command.outcome.text
        case ToolFailed():
            text = f"Error: {command.outcome.message}"
        case _:
            assert_never(command.outcome)
    if result_text(result) != text:
        return None
    return (
        f"call {other}'s result carries the outcome the command gives call {command.call_id}, "
        f"whose own result the target does not append: an outcome settles the call its callId "
        f"names, and only while that call runs (ids compare as strings: {spelled(other)} is not "
        f"{spelled(command.call_id)})"
    )


def _result_follows(audit: Event, events: Sequence[Event]) -> bool:
    """Whether `events` hold the tool/result of the call `audit` names after it."""
    later = list(events)[next((i for i, e in enumerate(events) if e is audit), 0) :]
    call_id = data_of(audit).get("callId")
    return any(e.get("type") == "tool/result" and call_id_of(e) == call_id for e in later)


def _answered_after(invoked: Event, events: Sequence[Event]) -> bool:
    """Whether `events` hold, after `invoked`, the hook/result that answers it."""
    key = {name: data_of(invoked).get(name) for name in ("point", "handlerId", "callId")}
    later = list(events)[next((i for i, e in enumerate(events) if e is invoked), 0) :]
    return any(
        e.get("type") == "hook/result" and all(data_of(e).get(n) == v for n, v in key.items())
        for e in later
    )


def _queued_as_a_turn(target_events: Sequence[Event], model_events: Sequence[Event]) -> bool:
    """Whether the target ends the turn and opens another with a message the user typed,
    where the model delivers that message after its next step/start in the same turn (round
    20's Gemini CLI #17282: a queued message sent as a prompt once the tools finished)."""
    opened = next((i for i, e in enumerate(model_events) if e.get("type") == "step/start"), None)
    if opened is None or not any(e.get("type") == "turn/start" for e in target_events):
        return False
    return any(
        e.get("type") == "user/message" and source_of(e) == {"kind": "user"}
        for e in model_events[opened:]
    )


def _batch_ended_early(
    kind: str,
    command: Command,
    target_events: Sequence[Event],
    model_events: Sequence[Event],
) -> tuple[str, str] | None:
    """The rule and words for a step/end or turn/end the target appends, where the model
    commits a result it lacks or goes on to the next step after the batch (round 20: Gemini
    CLI #2017, a refused approval ending the turn unanswered; Continue #6510, an empty result
    ending it): they read as TURN-2, whose order those ends keep. None otherwise."""
    if kind not in ("step/end", "turn/end") or not isinstance(
        command, ToolFinishes | ApprovalAnswers
    ):
        return None
    answered = {call_id_of(e) for e in target_events if e.get("type") == "tool/result"}
    unanswered = [
        call_id_of(e)
        for e in model_events
        if e.get("type") == "tool/result" and call_id_of(e) not in answered
    ]
    if isinstance(command, ApprovalAnswers) and command.outcome != "allowed-once" and unanswered:
        return "DEC-2", (
            f"only an approval answered allowed-once runs the call; {command.outcome} ends call "
            f"{unanswered[0]} with its own error result, and the batch goes on"
        )
    if unanswered:
        return "ADJ-3", (
            f"the step ends with call {unanswered[0]} unanswered, where every call a reply "
            "makes gets its result before the step ends"
        )
    if kind == "turn/end" and any(e.get("type") == "step/start" for e in model_events):
        return "STEP-4", (
            "only a completed reply that makes no call ends the turn (with no message "
            "queued): once a batch's last result commits the next step opens, its request "
            "carrying the results"
        )
    return None


def extra(
    got: Event,
    command: Command,
    phase: str,
    history: Sequence[Event],
    *,
    target_events: Sequence[Event] = (),
    model_events: Sequence[Event] = (),
    config: LoopConfig | None = None,
    program: Sequence[Command] = (),
    probe: Probe | None = None,
    started: frozenset[str] = frozenset(),
) -> tuple[str, str]:
    """`got`, which the target appends and the model does not; `target_events` and
    `model_events` are all each appended for this command; `config`, `program` and `probe`
    as `classify`'s; `started` the calls whose bodies the target started in this command."""
    kind = str(got.get("type"))
    # By sound, not letter: "an assistant/message", but "a user/message".
    article = "an" if kind[:1] in ("a", "e", "i", "o") else "a"
    adds = f"the target appends {article} {kind} the model does not"
    if isinstance(command, Recover):
        return "REC-1", (
            f"{adds}: crash repair appends one result per unanswered call, then step/end and "
            "turn/end"
        )
    match kind:
        case "hook/invoked" | "hook/result":
            judged = _judged_result(got, target_events, model_events)
            if judged is not None:
                # A PostToolUse audit precedes the result it judges (HOOK-5), in its commit: a
                # result committed too early brings its audit along, and the audit is not what
                # is wrong (a loop committing results as bodies finish read as HOOK-5).
                return extra(judged, command, phase, history)
            hook = hook_named(got)
            matcher = outside_matcher(got, command, history, program)
            if matcher is not None:
                call_id = data_of(got).get("callId")
                call = (
                    f"the tool call {call_id} makes"
                    if call_id is not None
                    else "any tool the program's replies call (the hook event names no call)"
                )
                return "HOOK-8", (
                    f"{adds}: {hook}'s matcher {spelled(matcher)} does not match the whole name "
                    f"of {call}"
                )
            if data_of(got).get("point") == "PostToolUse" and not _result_follows(
                got, target_events
            ):
                # Audited as the body settles: the audit belongs right before the result it
                # judges, which may wait for earlier calls' (it read as the hook run twice).
                return "HOOK-5", (
                    f"the target audits {hook} on call {data_of(got).get('callId')} before that "
                    "call's result commits: a PostToolUse hook's hook/invoked and hook/result "
                    "come right before the result they judge, when it commits (in model order, "
                    "ORD-3), not when the body settles"
                )
            if kind == "hook/invoked" and not _answered_after(got, target_events):
                # Written as the hook starts: a loop that logs the invocation before the answer
                # arrives reports it a command early (it was told the hook ran twice).
                return hook_audit_rule(got), (
                    f"the target appends the hook/invoked of {hook} before the hook has "
                    "answered: a hook's hook/invoked and hook/result are appended together, in "
                    "the command that brings its answer"
                )
            return hook_audit_rule(got), f"{adds}: {hook} runs once per call"
        case "approval/asked":
            call_id = call_id_of(got)
            refusal = refused_rewrite(
                call_id, model_events, target_events, history, config=config, probe=probe
            )
            if refusal is not None:
                # Asked with the model's own input: the refused rewrite went unnoticed, and
                # whether the call could start yet (SCHED-2) is not what is wrong.
                return refusal[0], f"{adds}: {refusal[1]}"
            situation = call_situation(call_id, history)
            if "ask" in situation.hook_decisions and situation.approval is None:
                before = unanswered_before(call_id, history)
                over_the_cap = starts_over_the_cap(call_id, config, history, probe)
                if over_the_cap is not None:
                    return "SCHED-1", f"{adds}: {over_the_cap}"
                failed_early = failed_open_before(
                    call_id, history, target_events, program=program, config=config, probe=probe
                )
                if failed_early is not None:
                    return failed_early[0], f"{adds}: {failed_early[1]}"
                return "SCHED-2", (
                    f"{adds}: call {call_id}'s approval is asked only when the call could "
                    f"start under SCHED-1, and it comes after {before}"
                    + cap_full(config, call_id, history)
                )
            if "deny" in situation.hook_decisions and "ask" not in situation.hook_decisions:
                # A denial shown to the user as a question (round 20's Antigravity CLI #628):
                # the deny is what went unapplied, not how an ask asks.
                return "DEC-1", (
                    f"{adds}: a PreToolUse hook denied call {call_id}, and a denied call is "
                    "neither run nor asked about: it ends with its denial's error result when "
                    "it reaches the gate"
                )
            return "DEC-2", f"{adds}: only an ask decision asks, once"
        case "approval/decided":
            return "DEC-2", f"{adds}: only an ask decision asks, once"
        case "user/message" if context_of_a_block(got, command, hooks=False):
            return "DEC-3", f"{adds}: a PostToolUse block drops the body's own contexts"
        case "user/message" if empty_context(got):
            return "ADJ-4", f"{adds}: it is {NO_CONTEXT}"
        case "user/message":
            refused = context_of_a_refused_outcome(got, config, program)
            if refused is not None:
                return "MODEL-3", f"{adds}: {refused}"
            return "ADJ-4", f"{adds}: messages arising mid-step wait for the next step/start"
        case "tool/result":
            if isinstance(command, Abort):
                if error_code(got) == "ABORTED":
                    # Answered as if killed: the model lets a running body drain.
                    return "ABORT-1", (
                        f"{adds}: after an abort a running call drains: call "
                        f"{call_id_of(got)}'s result waits for its body to settle (a success "
                        "that lands after the abort becomes ABORTED)"
                    )
                return "ABORT-1", adds
            if isinstance(command, ToolFinishes):
                misplaced = _outcome_of_another_call(got, command, target_events)
                if misplaced is not None:
                    # The outcome went to the wrong call (its id matched loosely): which call
                    # it settles is wrong, not when the result commits (it read as ORD-3).
                    return "EXE-4", f"{adds}: {misplaced}"
            asked = _asked_instead(got, model_events, target_events)
            if asked is not None:
                # The model asks for approval where the target answers the call at once: the
                # missing ask is what is wrong, not when the result commits.
                return missing(
                    asked,
                    command,
                    phase,
                    history,
                    target_events=target_events,
                    model_events=model_events,
                    config=config,
                    probe=probe,
                    started=started,
                )
            audit = _audit_after(got, target_events, model_events)
            if audit is not None:
                # The model commits this result too, after the audit: the result is not early,
                # its audit is late (it read as ORD-3, even for a reply's only call).
                return "HOOK-5", (
                    f"the target commits call {call_id_of(got)}'s result before "
                    f"{hook_named(audit)}'s audit of it: a PostToolUse hook's hook/invoked and "
                    "hook/result come right before the result they judge"
                )
            misread = misread_input(got, [*history, *model_events])
            if misread is not None:
                # Answered at once as invalid input where the model starts the body: how the
                # arguments were read is wrong, not when the result commits (it read as ORD-3,
                # even for a reply's only call).
                rule, why = misread
                return rule, f"{adds}: {why}"
            failed_open = pass_read_as_denial(got, command)
            if failed_open is None and is_error(got) and error_code(got) is None:
                failed_open = failed_open_words(call_id_of(got), program, config)
            if failed_open is not None:
                return "HOOK-2", f"{adds}: {failed_open}"
            # A body failing with a code of its own (ToolFailed's EACCES) ran: its code is not
            # the loop's error ending the call before it runs.
            ran = isinstance(command, ToolFinishes) and command.call_id == call_id_of(got)
            code = None if ran else own_error_code(call_id_of(got), [got])
            coded = (
                failed_open_words(call_id_of(got), program, config, coded=f" ({code})")
                if code is not None
                else None
            )
            if coded is not None:
                return "HOOK-7", f"{adds}: {coded}"
            return "ORD-3", (
                f"{adds}: the result of call {call_id_of(got)} commits only after the results "
                "of every earlier call of the reply"
            )
        case "tool/call":
            if isinstance(command, ModelReplies) and command.finish != "completed":
                return "STEP-4", f"{adds}: a reply that did not complete runs none of its calls"
            return "ORD-2", f"{adds}: each call is recorded once"
        case "assistant/message" if (
            isinstance(command, ModelReplies) and command.finish == FINISH_CANCELLED
        ):
            # An interrupted reply runs none of its calls: no hook is due for them, whatever
            # matches them, and what the target adds is the reply's blocks it kept.
            return "ABORT-2", interrupted_reply_kept(adds, command)
        case "assistant/message":
            if isinstance(command, ModelReplies) and commits_as_javascript(config, command):
                unhooked = unregistered_left_unhooked(
                    command, target_log_so_far(history, target_events, model_events), config, probe
                )
                if unhooked is not None:
                    return "EXE-5", f"{adds}: {unhooked}"
                return "EXE-2", (
                    f"{adds}: a call's {BLANK_TO_ONE_READER} a PreToolUse hook runs for it first"
                )
            strict = (
                commits_as_strict_parser(config, command)
                if isinstance(command, ModelReplies)
                else None
            )
            glob_read = matcher_read_as_a_glob(config, command, program, [*history, *model_events])
            if (
                strict is not None
                and glob_read is not None
                and not refused_at_the_gate(strict, target_events)
            ):
                # The target takes the arguments (no INVALID_TOOL_INPUT result at the gate):
                # what it skipped is the hook, whose matcher it reads as a glob.
                return "HOOK-8", f"{adds}: {glob_read[1]}"
            if strict is not None:
                return "EXE-2", (
                    f"{adds}: call {strict}'s arguments are a JSON object as EXE-2 reads them"
                    f"{LONE_SURROGATE_WORDS}, so a PreToolUse hook runs for it first"
                )
            skipped = skipped_hook_rule(config, reply_in_hand(command, program), history)
            if isinstance(command, ModelReplies | HookAnswers) and skipped is not None:
                rule, words = skipped
                return rule, f"{adds}: {words} (the reply waits for it)"
            if glob_read is not None and (
                glob_read[0] in started
                or any(
                    e.get("type") == "hook/invoked" and data_of(e).get("point") == "PreToolUse"
                    for e in history
                )
            ):
                # A loop that ran PreToolUse hooks before runs them, and one starting the call's
                # body has none to run for it: it skipped this one (not a reply committed
                # before its hooks answer, RW-3).
                return "HOOK-8", f"{adds}: {glob_read[1]}"
            if isinstance(command, ModelReplies) and command.finish == "completed":
                # A completed reply the model does not log at once is one whose calls
                # PreToolUse hooks match: it is committed after the last hook has answered.
                return "RW-3", (
                    f"{adds}: a reply whose calls PreToolUse hooks match is committed, with its "
                    "calls' tool/call records, only after every one of those hooks has answered"
                    f"{first_hook_due(config, command)}"
                )
            if isinstance(command, Abort | ModelReplies):
                return "ABORT-2", interrupted_reply_kept(adds, command)
            unasked = hook_still_due(config, command, program, [*history, *model_events])
            if unasked is not None and glob_read is not None:
                return "HOOK-8", f"{adds}: {glob_read}"
            if unasked is not None:
                return "HOOK-4", f"{adds}: {unasked}"
            return "ORD-1", f"{adds}: one reply per step"
        case "turn/end" | "step/end" | "step/start":
            if isinstance(command, Abort):
                return abort_rule(phase), adds
            if kind == "turn/end" and _queued_as_a_turn(target_events, model_events):
                return "ADJ-4", (
                    f"{adds}: a message the user typed during the turn waits for its next "
                    "step and is appended right after that step/start, in this turn, not "
                    "delivered as a turn of its own"
                )
            if isinstance(command, ModelReplies):
                return reply_end_rule(command), (
                    f"{adds} ({how_the_reply_ends(command, model_events)})"
                )
            cause = abort_cause_ending(model_events)
            if kind == "step/start" and cause is not None:
                # The batch drained after an abort and the target went on to another step:
                # the aborted turn's end is what is missing (it read as STEP-1's numbering).
                return "ABORT-1", (
                    f"{adds}: the batch was aborted (cause {cause}), so once its last result "
                    "commits the step ends and the turn ends aborted, even with messages "
                    "queued: they are parked for the next turn's first step (ADJ-4)"
                )
            ended_early = _batch_ended_early(kind, command, target_events, model_events)
            if ended_early is not None:
                return ended_early[0], f"{adds}: {ended_early[1]}"
            return ("STEP-1" if kind == "step/start" else "TURN-2"), adds
        case "turn/start":
            return "TURN-1", adds
        case _:
            pass  # an event type no rule prescribes here
    return NO_RULE, adds


def _asked_instead(
    result: Event, model_events: Sequence[Event], target_events: Sequence[Event]
) -> Event | None:
    """The model's approval request for `result`'s call, when the target answers the call in
    this command without asking."""
    call_id = call_id_of(result)

    def asks(event: Event) -> bool:
        return event.get("type") == "approval/asked" and call_id_of(event) == call_id

    if any(asks(e) for e in target_events):
        return None
    return next((e for e in model_events if asks(e)), None)


def _audit_after(
    result: Event, target_events: Sequence[Event], model_events: Sequence[Event]
) -> Event | None:
    """A PostToolUse audit of `result`'s call that the target appends after `result`, when
    the model appends that result in this command too, with the call's audit before it."""
    call_id = call_id_of(result)

    def audits(event: Event) -> bool:
        return (
            str(event.get("type")).startswith("hook/")
            and data_of(event).get("point") == "PostToolUse"
            and data_of(event).get("callId") == call_id
        )

    model_order = [
        "audit" if audits(e) else "result"
        for e in model_events
        if audits(e) or (e.get("type") == "tool/result" and call_id_of(e) == call_id)
    ]
    if model_order[:1] != ["audit"] or "result" not in model_order:
        return None
    later = list(target_events)[next((i for i, e in enumerate(target_events) if e is result), 0) :]
    return next((e for e in later if audits(e)), None)


def _judged_result(
    audit: Event, target_events: Sequence[Event], model_events: Sequence[Event]
) -> Event | None:
    """The result a PostToolUse audit event judges, when the target appended it for this
    command and the model did not: the tool/result for the same call after the audit."""
    if data_of(audit).get("point") != "PostToolUse":
        return None
    call_id = data_of(audit).get("callId")
    if any(
        event.get("type") == "tool/result" and call_id_of(event) == call_id
        for event in model_events
    ):
        return None  # the model commits that result too: the audit itself is what differs
    after = False
    for event in target_events:
        if event is audit:
            after = True
        elif after and event.get("type") == "tool/result" and call_id_of(event) == call_id:
            return event
    return None
