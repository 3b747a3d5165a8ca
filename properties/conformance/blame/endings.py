"""How turns and replies end: aborts and their causes, turn/end reasons, reply endings and
parked input, and the rule (`abort_rule`, `turn_end_rule`, `reply_end_rule`) each breaks."""

from __future__ import annotations

from collections.abc import Sequence

from loopspec.model.commands import (
    ABORT_CAUSES,
    FINISH_CANCELLED,
    Abort,
    Command,
    ModelReplies,
    Recover,
    SubmitUser,
)
from loopspec.model.config import LoopConfig
from loopspec.model.json_text import spelled
from loopspec.model.prefix import Violation
from loopspec.model.state import Idle
from loopspec.properties.conformance.blame.history import message_words, model_steps, source_of
from loopspec.properties.conformance.blame.readings import BLANK_AS_EXE_2, holds_blank_text
from loopspec.properties.conformance.call_again import Probe
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of
from loopspec.properties.conformance.target import Observation


def unstarted_call_words(result: Event, model_events: Sequence[Event]) -> str:
    """What an abort owes the call whose result `result` is, in words naming the call, why it
    never started (waiting at the gate, or for its approval) and the result's code."""
    call_id = call_id_of(result)
    code = (
        data_of(result).get("error", {}).get("code")
        if isinstance(data_of(result).get("error"), dict)
        else None
    )
    cancelled = any(
        event.get("type") == "approval/decided"
        and data_of(event).get("outcome") == "cancelled"
        and data_of(event).get("id") == f"approval-{call_id}"
        for event in model_events
    )
    waiting = (
        "was waiting for its approval (answered cancelled now)"
        if cancelled
        else "had not passed the gate"
    )
    return (
        f"call {call_id} {waiting}, so it never started: after an abort every call that never "
        f"started still gets its error result{f' ({code})' if code else ''}, so that every "
        "shown call is answered"
    )


def reason_kind(event: Event | None) -> object:
    """The `kind` of a turn/end's (or other event's) `reason` object, or None when it has none."""
    reason = data_of(event).get("reason")
    return reason.get("kind") if isinstance(reason, dict) else None


def _abort_cause_of(event: Event) -> object:
    reason = data_of(event).get("reason")
    inner = reason.get("reason") if isinstance(reason, dict) else None
    return inner.get("kind") if isinstance(inner, dict) else None


def cause_of_a_refused_abort(want: Event, got: Event, program: Sequence[Command]) -> str | None:
    """Words on a turn/end whose abort cause is that of an Abort sent after the one the model
    took, which the model refuses (the batch is already aborting, ABORT-1) as the target did:
    the target's refusal changed its state. None when the target's cause is no such Abort's."""
    mine, theirs = _abort_cause_of(want), _abort_cause_of(got)
    if mine is None or theirs is None or mine == theirs:
        return None
    aborts = [(n, c.cause) for n, c in enumerate(program, start=1) if isinstance(c, Abort)]
    taken = max((n for n, cause in aborts if cause == mine), default=None)
    later = [n for n, cause in aborts if taken is not None and n > taken and cause == theirs]
    if not later:
        return None
    return (
        f"the target ends the turn with cause {spelled(theirs)}, that of command #{later[0]}, an "
        f"Abort refused by the model and by the target (ABORT-1: the batch is already "
        f"aborting); the abort taken is command #{taken}'s, cause {spelled(mine)}: a refused "
        "command changes nothing, and the target's refusal replaced the cause all the same"
    )


def every_abort_recorded_as(ended: Event, probe: Probe | None) -> str | None:
    """Words when the target ends a turn aborted with the cause it ended this one with
    (`ended`, that turn/end) whatever abort ends it: a probe opens a turn and aborts it
    with another cause while its reply is awaited, and the target records the same cause. A
    loop recording every abort as the user's, say, reads so where the turn's cause is that of
    a later abort the model refused (`cause_of_a_refused_abort`). None otherwise."""
    theirs = _abort_cause_of(ended)
    if probe is None or theirs is None:
        return None
    other = next(cause for cause in sorted(ABORT_CAUSES) if cause != theirs)
    opened = probe(SubmitUser("probe"))
    aborted = probe(Abort(other)) if opened is not None and opened.accepted else None
    if aborted is None or not aborted.accepted:
        return None
    if not any(_abort_cause_of(e) == theirs for e in aborted.events if e.get("type") == "turn/end"):
        return None
    return (
        f"a turn opened after it and aborted by one Abort of cause {spelled(other)}, sent to "
        f"tell, ended with cause {spelled(theirs)} too: the target records every abort's cause "
        f"as {spelled(theirs)}, not the cause the Abort carried"
    )


def abort_rule(phase: str) -> str:
    """The rule an abort in `phase` answers to: ABORT-1 while calls are dispatched (they drain),
    ABORT-2 otherwise (a reply or hook cut short)."""
    return "ABORT-1" if phase == "Dispatching" else "ABORT-2"


def turn_end_rule(want: Event, got: Event | None, command: Command, phase: str) -> tuple[str, str]:
    """Which rule prescribes the model's turn/end reason."""
    reason = data_of(got).get("reason") if got is not None else None
    if got is not None and not (isinstance(reason, dict) and isinstance(reason.get("kind"), str)):
        return (
            "TURN-5",
            f"the turn/end reason must be an object with a string kind, not {spelled(reason)}",
        )
    kind = reason_kind(want)
    theirs = reason_kind(got) if got is not None else None
    said = f"the model ends the turn {spelled(kind)}" + (
        f", the target {spelled(theirs)}" if got is not None else ", the target does not end it"
    )
    if got is not None and kind == theirs:
        said = (
            f"the turn/end reason is {spelled(data_of(want).get('reason'))} in the model, "
            f"{spelled(reason)} in the target"
        )
    match kind:
        case "max-tokens":
            return "STEP-4", said + " (a reply that finished max-tokens ends the turn max-tokens)"
        case "aborted" if theirs == "aborted":
            return "ABORT-3", said + " (an abort records its cause: reason.reason.kind)"
        case "aborted":
            return abort_rule(phase), said + " (an abort ends the turn aborted, with its cause)"
        case "interrupted":
            return "REC-1", said + " (crash repair ends the tail turn interrupted)"
        case "error" if theirs == "error":
            # The kind is right: what the reason carries beside it is TEXT-2's (TURN-5 asks
            # for the kind alone).
            return "TEXT-2", said + (
                ' (a failed model request ends the turn with {kind: "error", error: {message, '
                "code}}, the message and code as the request reported them, an empty message "
                "too)"
            )
        case "error" if theirs is not None:
            # Another kind is still a kind (TURN-5 asks for one alone); the one a failed request
            # ends its turn with is TEXT-2's.
            return "TEXT-2", said + (
                ' (a failed model request ends the turn with {kind: "error", error: {message, '
                "code}})"
            )
        case "error":
            return "TURN-5", said + " (a failed model request ends the turn with error)"
        case "completed":
            return "STEP-4", said + " (a completed reply without calls ends the turn completed)"
        case _:
            pass  # a plugin's kind: TURN-5 lets a turn end with it
    if isinstance(command, Abort):
        return abort_rule(phase), said
    return "TURN-5", said


def interrupted_reply_kept(adds: str, command: Abort | ModelReplies) -> str:
    """ABORT-2's words for an interrupted reply the target logs where the model omits it."""
    if isinstance(command, ModelReplies) and holds_blank_text(command):
        return f"{adds}: an interrupted reply whose text is all blank is omitted ({BLANK_AS_EXE_2})"
    return (
        f"{adds}: an interrupted reply keeps only its text and reasoning blocks that are not "
        "blank (empty, or only whitespace as EXE-2 reads it), and is omitted when none is left"
    )


def parked_words(want: Event, got: Event, ended: str | None) -> str:
    """What the turn before the one a message opens left for it, when that turn ended
    otherwise than completed (`ended`, its reason's kind spelt): its queued messages, or
    nothing after a crash, whose repair ended it interrupted ("" when it ended completed)."""
    if ended is None:
        return ""
    if ended == spelled("interrupted"):
        # A crash cut that turn: what was queued is gone (SPEC.md section 3), so the words on
        # parked messages would say the target's delivery was right.
        return (
            f"; the last turn was cut by a crash (repair ended it {ended}), which loses every "
            "message and context still queued (SPEC.md section 3, queued input across a "
            "crash): the next turn opens with the user's own message, where the target's "
            f"message here is {message_words(got)}"
        )
    return (
        f"; those the last turn left queued (it ended {ended} before another step/start) open "
        "the next turn's first step, before the user's own message" + after_abort_note(want, ended)
    )


def after_abort_note(want: Event, ended: str) -> str:
    """What is parked after an abort, when the message due is a queued context."""
    if ended != spelled("aborted") or source_of(want) != {
        "kind": "plugin",
        "plugin": "tool-context",
    }:
        return ""
    return (
        ", a PostToolUse hook's context for a body that settled after the abort among them "
        "(SPEC.md section 3: hooks judge every body that ran)"
    )


def reply_end_rule(reply: ModelReplies) -> str:
    """The rule saying how the turn goes on after `reply`: ABORT-2's for a cancelled one (its
    step and turn end aborted, messages queued or not), STEP-4's for any other."""
    return "ABORT-2" if reply.finish == "cancelled" else "STEP-4"


def how_the_reply_ends(reply: ModelReplies, model_events: Sequence[Event]) -> str:
    """Why the model's turn goes on after `reply`, or ends (STEP-4), in words."""
    if reply.finish == "max-tokens":
        return (
            "a reply cut off at max-tokens runs nothing and ends the turn 'max-tokens', also "
            "when messages are queued: they are parked for the next turn's first step (ADJ-4)"
        )
    if reply.finish == "cancelled":
        return (
            "a cancelled reply ends its step and the turn 'aborted', its cause the user's, also "
            "when messages are queued: they are parked for the next turn's first step (ADJ-4)"
        )
    if reply.tool_calls:
        return "how a reply ends decides whether the turn goes on"
    if any(event.get("type") == "step/start" for event in model_events):
        return (
            "a completed reply without calls ends the turn unless messages are queued; a "
            "message was queued during the step, so the next step starts with it"
        )
    return "a completed reply without calls ends the turn when no message is queued, and none is"


def ended_by_an_idle_abort(
    command: Command,
    expected: Observation,
    actual: Observation,
    config: LoopConfig | None,
    program: Sequence[Command],
) -> tuple[str, str] | None:
    """MODEL-3, with words, when the target ends the turn aborted in a command that is no
    abort, where the model ends it otherwise, and an Abort sent while no turn ran, which the
    model refuses as the target did, carried that cause: its refusal left a stop request
    behind (an abort controller kept for the next turn). None otherwise."""
    if isinstance(command, Abort) or config is None:
        return None
    theirs = next(
        (e for e in actual.events if e.get("type") == "turn/end" and reason_kind(e) == "aborted"),
        None,
    )
    mine = [e for e in expected.events if e.get("type") == "turn/end"]
    if theirs is None or any(reason_kind(e) == "aborted" for e in mine):
        return None
    # Which Aborts came while no turn ran is the model's phase then: the program replayed
    # (only here, where a target's turn ends aborted with no abort in sight).
    idle_aborts = [
        (taken.number, taken.sent.cause)
        for taken in model_steps(program[:-1], config)
        if isinstance(taken.sent, Abort) and isinstance(taken.before.phase, Idle)
    ]
    cause = _abort_cause_of(theirs)
    kept = next((n for n, sent_cause in reversed(idle_aborts) if sent_cause == cause), None)
    kept_cause = ""
    if kept is None and idle_aborts and _reply_not_cancelled(command):
        # Another cause, on a reply that finished completed or at max-tokens: no cancelled
        # stream explains the abort, the kept one does (a loop may end it with a cause of its
        # own: it read as STEP-4 or ORD-2, the reply cut short, or ABORT-2 after max-tokens).
        kept = idle_aborts[-1][0]
        kept_cause = f" (its cause {spelled(idle_aborts[-1][1])}, not the turn's)"
    if kept is None:
        return None
    ours = f"ends it {spelled(reason_kind(mine[0]))}" if mine else "goes on"
    return "MODEL-3", (
        f"the target ends the turn aborted, cause {spelled(cause)}, where the model {ours}: no "
        f"abort landed in this turn, and command #{kept}, "
        f"an Abort sent while no turn ran{kept_cause}, was refused by the model and by the "
        "target (MODEL-1: there is nothing to abort), yet the target kept it for the next "
        "turn; a refused command changes nothing"
    )


def repair_mistimed(
    command: Command, first: Violation, expected: Observation, actual: Observation
) -> str | None:
    """REC-1's words when crash repair's closer breaks LOG-4 with another time than the
    model's closer at its seq: the repair timed it (closers carry the last event's time), not
    the loop's clock (it read as LOG-4 where no call was open, the closers step/end and
    turn/end alone); None otherwise."""
    if not isinstance(command, Recover) or first.rule_id != "LOG-4":
        return None
    theirs = next((e for e in actual.events if e.get("seq") == first.seq), None)
    ours = next((e for e in expected.events if e.get("seq") == first.seq), None)
    if theirs is None or ours is None or theirs.get("time") == ours.get("time"):
        return None
    return (
        f"the target's crash repair breaks LOG-4 at its seq {first.seq}: {first.message}; "
        f"crash repair's closers carry the time of the last event before them, "
        f"{spelled(ours.get('time'))} here"
    )


def _reply_not_cancelled(command: Command) -> bool:
    """Whether `command` is a reply whose stream finished otherwise than `cancelled`: nothing
    in it ends the turn aborted."""
    return isinstance(command, ModelReplies) and command.finish != FINISH_CANCELLED


def abort_cause_ending(model_events: Sequence[Event]) -> str | None:
    """The cause of the abort whose turn/end is among `model_events`, spelled; None when they
    end no turn aborted."""
    for event in model_events:
        reason = data_of(event).get("reason") if event.get("type") == "turn/end" else None
        if isinstance(reason, dict) and reason.get("kind") == "aborted":
            cause = reason.get("reason")
            return spelled(cause.get("kind") if isinstance(cause, dict) else cause)
    return None


def parking_turn_end(model_events: Sequence[Event], history: Sequence[Event]) -> str | None:
    """How the turn before the one these events open ended (its reason's kind), when they
    open one and that turn ended otherwise than completed: the messages it left queued are
    parked for this turn (ADJ-4). None when they open no turn."""
    if not any(event.get("type") == "turn/start" for event in model_events):
        return None
    starts = [i for i, event in enumerate(history) if event.get("type") == "turn/start"]
    for event in reversed(history[: starts[-1]] if starts else ()):
        if event.get("type") == "turn/end":
            reason = data_of(event).get("reason")
            kind = reason.get("kind") if isinstance(reason, dict) else None
            return None if kind in (None, "completed") else spelled(kind)
    return None
