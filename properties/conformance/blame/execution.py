"""The rule a difference in which tool bodies started breaks (`execution_rule`): the gate,
the parallel cap, approvals and hooks holding a call back, and calls left unstarted."""

from __future__ import annotations

from collections.abc import Sequence

from loopspec.model.commands import Abort, ApprovalAnswers, Command, Recover
from loopspec.model.config import LoopConfig
from loopspec.model.json_text import spelled
from loopspec.model.messages import ToolCallBlock
from loopspec.model.rewrite import input_problem
from loopspec.model.state import Dispatching
from loopspec.model.wording import APPROVAL_ID
from loopspec.properties.conformance.blame.arguments import shown_once_settled
from loopspec.properties.conformance.blame.history import (
    awaiting_approval,
    calls_step,
    earlier_unanswered,
    model_steps,
    recorded,
    state_after,
)
from loopspec.properties.conformance.blame.hook_answers import (
    asked_yet_answered_before,
    failed_open_before,
    failed_open_fate,
)
from loopspec.properties.conformance.blame.probes import unregistered_probe_shows
from loopspec.properties.conformance.blame.readings import (
    falsy_json,
    falsy_read_as_empty,
    misread_input,
)
from loopspec.properties.conformance.blame.situation import call_situation
from loopspec.properties.conformance.call_again import Probe, no_object_call_judged
from loopspec.properties.conformance.event_fields import (
    Event,
    call_id_of,
    data_of,
    error_code,
    result_for,
)
from loopspec.properties.conformance.json_values import ParsedJson, as_value, blank_but_not_empty
from loopspec.properties.conformance.target import Observation


def unanswered_before(call_id: str | None, history: Sequence[Event]) -> str:
    """The calls of `call_id`'s reply before it still without a result, named with their tools
    (what holds it back at the gate, SCHED-1), or a phrase saying there are none."""
    recorded = earlier_unanswered(call_id, history)
    if not recorded:
        return "no call still without a result"
    named = ", ".join(f"{call_id_of(e)} ({data_of(e).get('name')})" for e in recorded)
    return f"{'call' if len(recorded) == 1 else 'calls'} {named}, still without a result"


def cap_full(config: LoopConfig | None, call_id: str | None, history: Sequence[Event]) -> str:
    """`; with N safe calls ...` when `call_id` is a concurrency-safe call that only the cap
    holds back (every earlier call still without a result is safe, and there are maxParallel
    of them): a loop whose cap counts one off asks or starts it here (SCHED-1); else empty."""
    if config is None:
        return ""
    earlier = earlier_unanswered(call_id, history)
    name = next(
        (
            data_of(e).get("name")
            for e in calls_step(call_id, history)
            if e.get("type") == "tool/call" and call_id_of(e) == call_id
        ),
        None,
    )
    tools = [config.tool(str(n)) for n in (name, *(data_of(e).get("name") for e in earlier))]
    if not earlier or len(earlier) < config.max_parallel:
        return ""
    if not all(tool is not None and tool.concurrency_safe for tool in tools):
        return ""
    return (
        f"; with {len(earlier)} safe call(s) running and maxParallel {config.max_parallel}, it "
        "cannot start yet: a loop whose cap counts one off (SCHED-1) asks here too"
    )


def starts_over_the_cap(
    call_id: str | None, config: LoopConfig | None, history: Sequence[Event], probe: Probe | None
) -> str | None:
    """Where only the cap holds `call_id` back (`cap_full`) and the target, its approval
    answered allowed-once (`probe`), starts it at once: its cap counts one off, which asking
    early follows from (SCHED-1). None otherwise, asking early being SCHED-2's."""
    if probe is None or not cap_full(config, call_id, history):
        return None
    probed = probe(ApprovalAnswers("allowed-once"))
    if probed is None or call_id not in {started for started, _ in probed.executed}:
        return None
    assert config is not None  # `cap_full` says nothing without one
    running = len(earlier_unanswered(call_id, history))
    return (
        f"the target asks about call {call_id} and, approved, starts it while {running} safe "
        f"call(s) run, where maxParallel {config.max_parallel} lets no more start: its cap "
        "counts one off, and a call is asked about only once it could start"
    )


def _what_still_runs(
    call_id: str, events: Sequence[Event], config: LoopConfig | None = None
) -> str:
    """Words on the earlier calls of `call_id`'s step still without a result once `events`
    are in, which are all the schedule weighs against it; with `config`, those among them whose
    input is invalid, which ended at the gate and hold no place, are said apart."""
    answered = {
        call_id_of(e) for e in calls_step(call_id, events) if e.get("type") == "tool/result"
    }
    records = [e for e in earlier_unanswered(call_id, events) if call_id_of(e) not in answered]
    running = [call_id_of(e) for e in records]
    if running:
        waiting = ", ".join(map(str, running))
        invalid = [
            f"call {call_id_of(e)}'s input is invalid ({problem})"
            for e in records
            if config is not None
            and (problem := input_problem(_recorded_call(e), config)) is not None
        ]
        ended = (
            f"; {'; '.join(invalid)}: such a call ends at the gate without running and holds "
            "no place in the schedule (an exclusive call among them too), its result waiting "
            "only for model order (ORD-3)"
            if invalid
            else ""
        )
        return f": the earlier calls without a result yet ({waiting}) leave it room{ended}"
    return (
        ": every earlier call of the reply has its result, so none holds it back (the schedule "
        "counts the calls running now, not those that ran)"
    )


def _held_behind_an_unjudged_call(
    call_id: str, events: Sequence[Event], config: LoopConfig | None, probe: Probe | None
) -> str | None:
    """Why the target holds call `call_id` back, when an earlier call of its step still
    without a result in `events` (the model's and the target's) names a tool that is not
    registered, with input the model finds invalid, and a probe shows the target judges no
    input of such a tool (`no_object_call_judged`): it waits at the gate as a call of an
    unknown tool does (an exclusive one), where invalid input ends it there at once (EXE-5
    (1)); it read as the schedule's (SCHED-1). None otherwise."""
    if config is None or probe is None:
        return None
    for record in earlier_unanswered(call_id, events):
        earlier = _recorded_call(record)
        problem = input_problem(earlier, config)
        if problem is None or config.tool(earlier.name) is not None:
            continue
        shown = no_object_call_judged(earlier.id, earlier.name, events, config=config, probe=probe)
        if shown in ("unknown", "hooked"):
            return (
                f"it waits behind call {earlier.id}, whose tool {earlier.name} is not registered "
                f"and whose input is invalid ({problem}): EXE-5 (1) judges the input of every "
                "call, registered tool or not, and a call with invalid input ends at the gate "
                "at once, holding no place in the schedule; the target judges no input of such "
                f"a tool ({unregistered_probe_shows(shown, earlier.name)}), so it "
                "holds the call as one of an unknown tool, exclusive"
            )
        return None
    return None


def _recorded_call(record: Event) -> ToolCallBlock:
    """The call a tool/call record seals, as the model judges its input."""
    data = data_of(record)
    return ToolCallBlock(
        str(data.get("callId")), str(data.get("name")), str(data.get("arguments", ""))
    )


def _blank_judged_invalid(
    call_id: str,
    model_log: Sequence[Event],
    target_events: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> tuple[str, str] | None:
    """`misread_input`'s rule and words on call `call_id`, whose arguments are blank but not
    empty (`model_log` holds its tool/call), which the model starts and the target does not,
    where the target answers it INVALID_TOOL_INPUT once the calls before it settle (its result
    held behind theirs: round 18's blank arguments read as no object read as SCHED-1 so on seed
    57 of 50-69). None otherwise."""
    if not blank_but_not_empty(recorded(call_id, "arguments", model_log)):
        return None
    shown = shown_once_settled(call_id, target_events, config, probe)
    result = next(
        (e for e in shown if e.get("type") == "tool/result" and call_id_of(e) == call_id), None
    )
    misread = None if result is None else misread_input(result, model_log)
    if misread is None:
        return None
    rule, why = misread
    later = (
        ""
        if result_for(call_id, target_events)
        else "; the target answers it INVALID_TOOL_INPUT once the calls before it settle (sent "
        "after it to tell)"
    )
    return rule, f"{why}{later}"


def _failed_open_unstarted(
    call_id: str,
    history: Sequence[Event],
    target_events: Sequence[Event],
    *,
    program: Sequence[Command],
    config: LoopConfig | None,
    probe: Probe | None,
) -> tuple[str, str] | None:
    """`failed_open_fate` on call `call_id`, whose body the model starts and the target does
    not, saying when its denial shows (a result held behind an earlier call's read as SCHED-1,
    seeds 50, 52, 57, 60, 67 and 69 of 50-69). None otherwise."""
    fate = failed_open_fate(
        call_id, history, target_events, program=program, config=config, probe=probe
    )
    if fate is None:
        return None
    rule, words = fate
    if rule == "HOOK-2" and not result_for(call_id, target_events):
        return rule, f"{words}, once the calls before it settle"
    return rule, words


def _cap(config: LoopConfig | None) -> str:
    """The parallel cap as a scheduling report says it beside the word maxParallel: the reader
    had to find it in the configuration line above."""
    return "" if config is None else f" ({config.max_parallel} here)"


def _started_before(
    call_id: str, config: LoopConfig | None, program: Sequence[Command]
) -> int | None:
    """The number (from 1) of the command of `program` before its last that started the body
    of call `call_id` of the open step, on the model; None when none did (or unknown)."""
    if config is None or not program:
        return None
    steps = model_steps(program[:-1], config)
    started = {
        run.call_id: replayed.number
        for replayed in steps
        for run in replayed.after.executions[len(replayed.before.executions) :]
    }
    state = state_after(steps, config)
    phase = state.phase
    if not isinstance(phase, Dispatching):
        return None
    runs = {
        run.call_id for run in state.executions if (run.turn, run.step) == (phase.turn, phase.step)
    }
    return started.get(call_id) if call_id in runs else None


def execution_rule(
    command: Command,
    expected: Observation,
    actual: Observation,
    history: Sequence[Event],
    *,
    config: LoopConfig | None = None,
    program: Sequence[Command] = (),
    probe: Probe | None = None,
) -> tuple[str, str]:
    """Which bodies started differ: policy, scheduling, or the arguments they got (`config`:
    the program's, whose maxParallel a scheduling report says; None: not known; `probe`
    tells what holds a call back, `_held_behind_an_unjudged_call`; `program` and `probe` as
    `classify`'s)."""
    wanted = dict(expected.executed)
    started = dict(actual.executed)
    for call_id in started:
        if call_id in wanted:
            continue
        situation = call_situation(call_id, history)
        ran = f"the target starts the body of call {call_id}, which the model does not start now"
        if isinstance(command, Recover):
            return "REC-1", (
                f"{ran}: crash repair starts no body; it answers a recorded call left without "
                "a result TOOL_OUTCOME_UNKNOWN (it may or may not have run) and leaves repeating "
                "it to the model"
            )
        if "deny" in situation.hook_decisions:
            return "DEC-1", f"{ran}: it was denied"
        again = _started_before(call_id, config, program)
        if again is not None:
            # Run again as another call's approval is answered (round 20's LangGraph #3126: a
            # tool node replayed whole on resuming): it read as SCHED-1, a call started early.
            return "EXE-4", (
                f"the target starts the body of call {call_id} again: it started at command "
                f"#{again} of the program, and a call's body runs once, its one outcome the "
                "call's result"
            )
        if situation.supplied and not situation.rewritten:
            # A supplied input its record does not apply was refused (RW-2, HOOK-6): the
            # call is denied, its result perhaps held back behind an earlier call's.
            return "DEC-1", f"{ran}: it was denied (a hook supplied an input it cannot take)"
        raw = recorded(call_id, "arguments", history)
        if falsy_json(raw):
            # Started as no arguments, {}: how they were read is what is wrong (it read as
            # SCHED-1 while an earlier call ran, EXE-5 where the model's error committed).
            return "EXE-2", f"{ran}: " + falsy_read_as_empty(raw, "starts it")
        answered = next(
            (
                e
                for e in expected.events
                if e.get("type") == "tool/result" and call_id_of(e) == call_id
            ),
            None,
        )
        if answered is not None:  # ended at the gate without starting: say why (TEXT-1's row)
            return _ended_unstarted(call_id, answered, [*history, *expected.events], ran)
        if situation.approval is not None and situation.approval != "allowed-once":
            return "DEC-2", f"{ran}: it waits for approval ({situation.approval})"
        if isinstance(command, Abort):
            return "ABORT-1", f"{ran}: after an abort no call starts"
        if not any(
            call_id_of(e) == call_id and e.get("type") == "tool/call"
            for e in calls_step(call_id, history)
        ):
            return "ORD-2", f"{ran}: it has no tool/call record"
        waiting = awaiting_approval(history)
        if waiting is not None and waiting != call_id:
            return "SCHED-2", (
                f"{ran}: call {waiting} waits for its approval answer, and no later call passes "
                "the gate meanwhile"
            )
        failed_early = failed_open_before(
            call_id, history, actual.events, program=program, config=config, probe=probe
        )
        if failed_early is not None:
            return failed_early[0], f"{ran}: {failed_early[1]}"
        unasked = asked_yet_answered_before(call_id, history, actual.events, config, probe)
        if unasked is not None:
            return "DEC-2", f"{ran}: {unasked}"
        return "SCHED-1", (
            f"{ran}: calls pass the gate in model order, and it comes after "
            f"{unanswered_before(call_id, history)}; an exclusive call (a tool the "
            "configuration lacks counts as one) waits for every earlier call, a safe call for "
            f"earlier exclusive calls and for fewer than maxParallel{_cap(config)} to run"
        )
    for call_id in wanted:
        if call_id not in started:
            if isinstance(command, ApprovalAnswers):
                return "DEC-2", f"the target does not start call {call_id} after allowed-once"
            unstarted = (
                f"the target does not start call {call_id}, which the schedule lets start now"
            )
            failed_open = _failed_open_unstarted(
                call_id, history, actual.events, program=program, config=config, probe=probe
            )
            if failed_open is not None:
                return failed_open[0], f"{unstarted}: {failed_open[1]}"
            misread = _blank_judged_invalid(
                call_id, [*history, *expected.events], actual.events, config, probe
            )
            if misread is not None:
                return misread[0], f"{unstarted}: {misread[1]}"
            unjudged = _held_behind_an_unjudged_call(
                call_id, [*history, *actual.events], config, probe
            )
            if unjudged is not None:
                return "EXE-5", f"{unstarted}: {unjudged}"
            return "SCHED-1", (
                f"{unstarted}{_what_still_runs(call_id, [*history, *expected.events], config)}"
            )
    if list(wanted) != list(started):
        return "SCHED-1", "the target starts the calls out of model order"
    call_id = next(c for c in wanted if as_value(wanted[c]) != as_value(started[c]))
    situation = call_situation(call_id, history)
    ran = f"the body of call {call_id} runs with other arguments than its tool/call records"
    ran_with = as_value(started[call_id])
    if not (situation.supplied or situation.rewritten) or not (
        ran_with == situation.original
        or any(ran_with == ParsedJson(supplied) for supplied in situation.supplied)
    ):
        # Neither what the model asked for nor what a hook supplied: changed after it was
        # sealed, whether an approval came between or not.
        return "EXE-3", ran
    # The model's own input, or one a hook supplied, where the record says another.
    if situation.approval == "allowed-once" and isinstance(command, ApprovalAnswers):
        if situation.rewritten and ran_with == situation.original:
            # A loop that runs the model's input for every rewritten call shows it here first
            # when the program's rewrite came with an ask: say so, lest only the approval's
            # path be looked at.
            rewrite = (
                f"hook {situation.suppliers[-1]}'s rewrite"
                if situation.suppliers
                else "the rewrite"
            )
            return "RW-4", (
                f"{ran}: it runs the model's original input, not {rewrite}, which the approval "
                "request showed (approval runs exactly the approved input; a loop "
                "running the model's input in place of every rewrite breaks RW-1 with no "
                "approval too)"
            )
        return "RW-4", f"{ran} (approval runs exactly the approved input)"
    return "RW-1", f"{ran} (the rewrite reaches the tool too)"


def _result_texts(result: Event) -> list[str]:
    """The texts of a tool/result's block, in order."""
    message = data_of(result).get("message")
    content = message.get("content") if isinstance(message, dict) else None
    block = content[0] if isinstance(content, list) and content else None
    inner = block.get("content") if isinstance(block, dict) else None
    parts = inner if isinstance(inner, list) else []
    return [str(part["text"]) for part in parts if isinstance(part, dict) and "text" in part]


def _ended_unstarted(
    call_id: str, result: Event, events: Sequence[Event], ran: str
) -> tuple[str, str]:
    """The rule of the error result the model gives call `call_id` where the target starts its
    body instead, as the wording table's row for it names (invalid input or an unknown tool,
    EXE-5; an approval answered otherwise than allowed-once, DEC-2); else a deny's (DEC-1:
    denied by a hook, or by the refusal of a rewrite that does not fit)."""
    words = _result_texts(result)
    said = f" ({spelled(words[0])})" if words else ""
    code = error_code(result)
    if code == "INVALID_TOOL_INPUT":
        return "EXE-5", (
            f"{ran}: its input is invalid{said}, so it ends as that error without running, and "
            "no hook sees it"
        )
    if code == "UNKNOWN_TOOL":
        return "EXE-5", (
            f"{ran}: its tool is not registered{said}: it ends as that error where its body "
            "would start"
        )
    approval = APPROVAL_ID.format(call_id=call_id)
    outcome = next(
        (
            data_of(e).get("outcome")
            for e in calls_step(call_id, events)
            if e.get("type") == "approval/decided" and data_of(e).get("id") == approval
        ),
        None,
    )
    if outcome is not None and outcome != "allowed-once":
        return "DEC-2", (
            f"{ran}: its approval was answered {spelled(outcome)}, and only allowed-once runs a "
            f"call{said}"
        )
    return "DEC-1", f"{ran}: it is answered with an error instead{said}"
