"""The rule a command the target refused, or accepted, unlike the model breaks
(`refusal_rule`): what the model's state accepts at that point, and why."""

from __future__ import annotations

from collections.abc import Sequence

from loopspec.model.commands import (
    Abort,
    Command,
    Crash,
    ModelReplies,
    PostPass,
    Recover,
    SubmitUser,
    ToolFinishes,
)
from loopspec.model.config import POST_TOOL_USE, LoopConfig
from loopspec.model.json_text import spelled
from loopspec.properties.conformance.blame.endings import abort_rule
from loopspec.properties.conformance.blame.history import (
    calls_step,
    model_steps,
    named,
    reply_call_ids,
)
from loopspec.properties.conformance.blame.situation import call_situation
from loopspec.properties.conformance.call_again import Probe
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of, error_code
from loopspec.properties.conformance.target import Observation


def _settled_unrun_before(call_id: str, history: Sequence[Event]) -> tuple[str, str] | None:
    """An earlier call of `call_id`'s reply that the model settled without running its body
    (denied by a hook, its approval not granted, its input invalid or its tool unknown), and
    how it was settled; None when there is none."""
    step = calls_step(call_id, history)
    reply = next(
        (
            e
            for e in reversed(step)
            if e.get("type") == "assistant/message" and call_id in reply_call_ids(e)
        ),
        None,
    )
    if reply is None:
        return None
    ids = reply_call_ids(reply)
    results = {call_id_of(e): e for e in step if e.get("type") == "tool/result"}
    for earlier in ids[: ids.index(call_id)]:
        if earlier is None or earlier not in results:
            continue
        situation = call_situation(earlier, history)
        code = error_code(results[earlier])
        if "deny" in situation.hook_decisions:
            return earlier, "denied by a hook"
        if situation.approval not in (None, "asked", "allowed-once"):
            return earlier, f"its approval answered {spelled(situation.approval)}"
        if code in ("INVALID_TOOL_INPUT", "UNKNOWN_TOOL"):
            return earlier, f"ended {code}"
    return None


def _refused_outcome_before(
    command: ToolFinishes,
    program: Sequence[Command],
    config: LoopConfig | None,
    history: Sequence[Event],
) -> int | None:
    """The number of an earlier command of `program` (this one last) giving an outcome for
    `command`'s call since the last reply calling it with another count of PostToolUse verdicts
    than the call's hooks take, or None. The model takes the outcome now, so the call still
    runs there: that earlier outcome was refused for its count (HOOK-5), by the target too (the
    comparison found no divergence then)."""
    record = next(
        (
            e
            for e in reversed(history)
            if e.get("type") == "tool/call" and call_id_of(e) == command.call_id
        ),
        None,
    )
    if config is None or record is None:
        return None
    hooks = config.hooks_for(POST_TOOL_USE, str(data_of(record).get("name")))
    for number in range(len(program) - 1, 0, -1):
        earlier = program[number - 1]
        if isinstance(earlier, ModelReplies) and any(
            call.id == command.call_id for call in earlier.tool_calls
        ):
            return None
        if (
            isinstance(earlier, ToolFinishes)
            and earlier.call_id == command.call_id
            and len(earlier.post) != len(hooks)
        ):
            return number
    return None


def _post_hooks_counted_otherwise(
    command: ToolFinishes,
    config: LoopConfig | None,
    history: Sequence[Event],
    probe: Probe | None,
) -> str | None:
    """Why the target refuses an outcome the model takes, when it takes the same outcome with
    another count of PostToolUse verdicts (each passing): it runs another set of hooks on the
    call's result than the hooks matching its tool (HOOK-5), where a refusal for a call it
    thinks not running would be EXE-4's. A refused probe changes nothing (MODEL-3), so each
    count is tried in turn, up to every configured hook; None when none is taken."""
    record = next(
        (
            e
            for e in reversed(history)
            if e.get("type") == "tool/call" and call_id_of(e) == command.call_id
        ),
        None,
    )
    if probe is None or config is None or record is None:
        return None
    name = str(data_of(record).get("name"))
    matching = [hook.handler_id for hook in config.hooks_for(POST_TOOL_USE, name)]
    for count in range(len(config.hooks) + 1):
        if count == len(command.post):
            continue
        post = tuple(PostPass() for _verdict in range(count))
        taken = probe(ToolFinishes(command.call_id, command.outcome, post))
        if taken is None or not taken.accepted:
            continue
        hooks = f"{named(matching)} matching" if matching else "no hook matches"
        return (
            f"the model takes call {command.call_id}'s outcome with {len(command.post)} "
            f"PostToolUse verdict(s), one per PostToolUse hook matching tool {name!r} ({hooks} "
            f"it), and the target takes it with {count}: it runs another set of PostToolUse "
            f"hooks on the result than those whose matcher matches the tool's whole name (each "
            "judges it once, HOOK-5; matchers, HOOK-8)"
        )
    return None


def _before(history: Sequence[Event], observed: Observation) -> Sequence[Event]:
    """`history` without the events `observed`, its last command's, appended."""
    return history[: len(history) - len(observed.events)] if observed.accepted else history


def _ids_used_before(
    reply: ModelReplies, history: Sequence[Event], program: Sequence[Command] = ()
) -> list[str]:
    """The ids of `reply`'s calls that an earlier reply's calls used too, in reply order: the
    calls the log records, and those of a reply the model sent that never committed (cancelled
    while its hooks ran, refused), which a loop may have noted all the same."""
    before = {data_of(e).get("callId") for e in history if e.get("type") == "tool/call"}
    earlier = program[:-1] if program and program[-1] is reply else program
    before |= {
        call.id for sent in earlier if isinstance(sent, ModelReplies) for call in sent.tool_calls
    }
    return [call.id for call in reply.tool_calls if call.id in before]


def _ids_refused_as_repeats(
    command: Command, actual: Observation, history: Sequence[Event], program: Sequence[Command]
) -> str:
    """The ids, joined, an earlier reply used that the reply `command`, its own ids unique, was
    refused for as repeats (EXE-1) by the target; empty when it was not so refused."""
    if not isinstance(command, ModelReplies) or actual.refusal_rule != "EXE-1":
        return ""
    ids = [call.id for call in command.tool_calls]
    return (
        ", ".join(_ids_used_before(command, history, program)) if len(set(ids)) == len(ids) else ""
    )


def _second_abort_words(command: Command, program: Sequence[Command]) -> str:
    """What an abort taken while an earlier one drains changes in the model, nothing, said
    with both causes when `command` is such an abort of another cause than the first (a loop
    that refuses only a repeat of the first abort's cause takes it); else empty."""
    if not isinstance(command, Abort):
        return ""
    earlier = program[:-1] if program and program[-1] is command else program
    first: Abort | None = None
    for sent in reversed(earlier):  # back to the reply whose batch the first abort landed on
        if isinstance(sent, ModelReplies):
            break
        if isinstance(sent, Abort):
            first = sent
    if first is None or first.cause == command.cause:
        return ""
    return (
        f": a second abort while the first drains changes nothing, whatever its cause, and the "
        f"turn ends aborted with the first one's ({first.cause}), not this one's "
        f"({command.cause})"
    )


# A command the target refused though the model accepts it: the rule saying it is legal there.
_ACCEPTED_BY: dict[str, str] = {
    "ModelReplies": "ORD-1",
    "ModelFails": "TURN-5",
    "HookAnswers": "HOOK-4",
    "ApprovalAnswers": "DEC-2",
    "Crash": "LOG-8",
    "Recover": "REC-2",
}


def _settled_another_call(command: Command, actual: Observation) -> str:
    """Words on the call whose result the target appended for an outcome naming a call that
    is not running (a loop settling whichever body runs), or nothing."""
    if not isinstance(command, ToolFinishes):
        return ""
    answered = [
        e for e in actual.events if e.get("type") == "tool/result" and call_id_of(e) is not None
    ]
    others = [call_id_of(e) for e in answered if call_id_of(e) != command.call_id]
    if not others or len(answered) != len(others):
        return ""
    return (
        f", and appended the result of call {others[0]} with this outcome: an outcome settles "
        f"the running call it names, {command.call_id}, which is not running (its result is in "
        "or it never started), never another that runs"
    )


def _not_idle_after_a_reopen(
    refused: str, phase: str, program: Sequence[Command], config: LoopConfig | None
) -> tuple[str, str] | None:
    """REC-2, with words, when the target refuses what the model takes in Idle after a Recover
    the model took, which is the last command it took (those between it refused, as the
    target did); None otherwise. Not idle after a reopen (one that repaired nothing, say), the
    recovery is what is wrong, not how the user's message opens a turn (it read as TURN-1)."""
    if phase != "Idle" or len(program) < 3:
        return None
    reopened = _last_taken(program[:-1], config)
    if reopened is None or not isinstance(program[reopened - 1], Recover):
        return None
    since = "just before" if reopened == len(program) - 1 else "the last command the model took"
    return "REC-2", (
        f"{refused}: command #{reopened}, the Recover {since}, leaves no turn open and the "
        "loop idle, whether its repair appended anything or not (a balanced log gets nothing)"
    )


def _last_taken(program: Sequence[Command], config: LoopConfig | None) -> int | None:
    """The number of the last command of `program` the model takes, replayed on `config`
    (without it, the last command, when a Recover right after a Crash: the model takes both)."""
    if config is None:
        recovered = len(program) >= 2 and isinstance(program[-2], Crash)
        return len(program) if recovered and isinstance(program[-1], Recover) else None
    taken = [
        replayed.number for replayed in model_steps(program, config) if replayed.refusal is None
    ]
    return taken[-1] if taken else None


def refusal_rule(
    command: Command,
    phase: str,
    expected: Observation,
    actual: Observation,
    history: Sequence[Event] = (),
    *,
    program: Sequence[Command] = (),
    config: LoopConfig | None = None,
    probe: Probe | None = None,
) -> tuple[str, str]:
    """The rule and words where the target and the model disagree on accepting `command` in
    `phase`: one refused it (a `TransitionRefused`), the other did not, or both did under
    different rules."""
    if expected.accepted:
        refused = (
            f"the target refused {command.NAME} ({actual.refusal_rule or 'no rule named'}: "
            f"{actual.refusal_message}); the model accepts it in {phase}"
        )
        after_reopen = _not_idle_after_a_reopen(refused, phase, program, config)
        if after_reopen is not None:
            return after_reopen
        match command:
            case SubmitUser():
                rule = "TURN-1" if phase == "Idle" else "ADJ-4"
            case Abort():
                rule = abort_rule(phase)
            case ToolFinishes():
                held = _settled_unrun_before(command.call_id, history)
                if held is not None:
                    # The call the target will not finish never started there: the earlier
                    # call it waits for was settled at the gate, so no body of its runs.
                    earlier, why = held
                    return "SCHED-1", (
                        f"{refused}: call {command.call_id} runs in the model, and the target "
                        f"holds it back behind call {earlier}, {why} without running, which "
                        "holds no place in the schedule (an exclusive call waits only for "
                        "earlier calls that run)"
                    )
                counted = _post_hooks_counted_otherwise(command, config, history, probe)
                if counted is not None:
                    return "HOOK-5", f"{refused}: {counted}"
                earlier_try = _refused_outcome_before(command, program, config, history)
                if earlier_try is not None:
                    return "MODEL-3", (
                        f"{refused}: call {command.call_id} is still running in the model, as "
                        f"both refused command #{earlier_try}, an outcome for it with another "
                        "count of PostToolUse verdicts than its hooks (HOOK-5); the "
                        "target's refusal settled the call all the same: a refused command "
                        "changes nothing, so an outcome sent again after it is taken"
                    )
                rule = "EXE-4"
            case ModelReplies() if _ids_used_before(
                command, before := _before(history, expected), program
            ):
                # The history holds this reply's own records (the model accepted it): they
                # are no earlier reply's, which read as EXE-1 for a loop left idle.
                used = ", ".join(_ids_used_before(command, before, program))
                return "EXE-1", (
                    f"{refused}: call ids are unique within one reply only, and this reply's "
                    f"are; an earlier reply's call {used} does not make them repeats (local "
                    "models number their calls call_0, call_1, ... in every reply)"
                )
            case _:
                rule = _ACCEPTED_BY.get(command.NAME, "MODEL-1")
        return rule, refused
    rule = expected.refusal_rule or "MODEL-1"
    if actual.accepted:
        return rule, (
            f"the model refuses {command.NAME} here ({expected.refusal_message}); "
            "the target accepted it"
            + _second_abort_words(command, program)
            + _settled_another_call(command, actual)
        )
    # The phase is judged before the command's own rules: a loop that checks those first names
    # one of them (DEC-2 for an approval answer while idle) where the phase refuses.
    why = (
        f" ({phase} does not take {command.NAME}, and the phase is judged before any other "
        "rule: SPEC.md section 6 lists every pair refused so)"
        if rule == "MODEL-1"
        else f" ({expected.refusal_message})"
        if expected.refusal_message
        else ""
    )
    used = _ids_refused_as_repeats(command, actual, history, program)
    if used:
        # The target's own reason is wrong in any phase: its refusal, not the order in which it
        # judges the phase, is what its author must fix.
        return "EXE-1", (
            f"both refuse {command.NAME}; the model with {rule}{why}, the target with EXE-1, "
            "which no phase makes right: call ids are unique within one reply only, and this "
            f"reply's are; an earlier reply's call {used} does not make them repeats, committed "
            "or refused (local models number their calls call_0, call_1, ... in every reply)"
        )
    # A loop that refuses a stray outcome as a phase error reads EXE-4's cut as MODEL-1's.
    batch_open = (
        "; while a batch is open, an outcome for a call that is not running (not started, "
        "finished, denied or unknown) is EXE-4's; MODEL-1 is for a phase that takes no tool "
        "outcome at all"
        if rule == "EXE-4" and actual.refusal_rule == "MODEL-1"
        else ""
    )
    return rule, (
        f"both refuse {command.NAME}; the model with {rule}{why}, the target with "
        f"{actual.refusal_rule}{batch_open}"
    )
