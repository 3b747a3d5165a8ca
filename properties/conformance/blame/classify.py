"""`classify`: the rule a target broke, from the first difference between its observation and
the model's.

First the target's own log is held to the invariant registry: a rule its output breaks by itself
is the blame, with the invariant's own message. Otherwise the first remaining difference is
sorted by its kind — the wording of a result, the shape of a reason, the order of results, which
bodies started, how arguments parse, which queued input was delivered — and blamed on the rule
that prescribes the model's outcome there. A difference no rule prescribes is reported as a gap
in SPEC (`NO_RULE`), never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from loopspec.model.commands import Abort, Command, Crash, Recover
from loopspec.model.config import LoopConfig
from loopspec.model.facts import Fact, FactError, fact_from_wire
from loopspec.model.invariants import (
    DENY_DISCARDS_REWRITES,
    POST_BLOCK_NOT_AN_ERROR,
    REPAIR_SHAPES,
    REPAIR_TAIL,
)
from loopspec.model.json_text import spelled
from loopspec.model.prefix import UNREPAIRED_TURN, Violation
from loopspec.properties.conformance.blame.arguments import arguments_rule
from loopspec.properties.conformance.blame.changed_events import changed
from loopspec.properties.conformance.blame.difference import (
    first_event_difference,
    reordered_elsewhere,
)
from loopspec.properties.conformance.blame.endings import ended_by_an_idle_abort, repair_mistimed
from loopspec.properties.conformance.blame.execution import execution_rule
from loopspec.properties.conformance.blame.extra_events import extra
from loopspec.properties.conformance.blame.hook_answers import deny_outranked, rewrite_on_a_denial
from loopspec.properties.conformance.blame.missing_events import missing
from loopspec.properties.conformance.blame.own_log import violation_seq
from loopspec.properties.conformance.blame.probes import LoggedProbe, repair_or_loss
from loopspec.properties.conformance.blame.refusals import refusal_rule
from loopspec.properties.conformance.call_again import Probe, never_fenced
from loopspec.properties.conformance.compare import (
    NO_RULE,
    in_scope,
    normalized_observation,
    split_units,
)
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of
from loopspec.properties.conformance.history_rule import history_rule
from loopspec.properties.conformance.presented import presented_divergence
from loopspec.properties.conformance.target import Observation


def _seqs_went_back(expected: Observation, actual: Observation, history: Sequence[Event]) -> bool:
    """Whether the target's first event of this command has a lower seq than the model's next
    one. The model's log is the target's in-scope events, which compared equal so far, so a
    lower seq means the target's log holds fewer events than it reported; the model's next seq
    is read from its history, so a command the model appends nothing for counts too."""
    if not actual.events:
        return False
    got = actual.events[0].get("seq")
    return type(got) is int and got < len(history) - len(expected.events)


def _names_what_a_loss_drops(actual: Observation, history: Sequence[Event]) -> bool:
    """Whether the target's events of this command, whose seqs went back to `got`, name a turn
    or a call the model's log before `got` does not hold (no open turn of that number, no call
    of that id in a reply or a record): only the events a loss from `got` on would drop hold
    it, so the log the target reopened still has them, and its seqs went back without a loss.
    (The model's log is the target's in-scope events so far, which compared equal.)"""
    got = next((e.get("seq") for e in actual.events if in_scope(e)), None)
    if type(got) is not int or got < 0:
        return False
    open_turn: int | None = None
    calls: set[str] = set()
    try:
        for event in history[:got]:
            open_turn = _known_after(fact_from_wire(event), open_turn, calls)
        for event in filter(in_scope, actual.events):
            fact = fact_from_wire(event)
            if fact.type != "turn/start" and fact.turn is not None and fact.turn != open_turn:
                return True
            if fact.type == "tool/result" and fact.call_id not in calls:
                return True
            open_turn = _known_after(fact, open_turn, calls)
    except FactError:  # an event the fact reader refuses says nothing either way
        return False
    return False


def _known_after(fact: Fact, open_turn: int | None, calls: set[str]) -> int | None:
    """The turn open after `fact`, given `open_turn` before it; the calls it names are added to
    `calls`."""
    if fact.type == "tool/call" and fact.call_id is not None:
        calls.add(fact.call_id)
    calls.update(call.id for call in fact.calls or ())
    if fact.type == "turn/start":
        return fact.turn
    return None if fact.type == "turn/end" else open_turn


def _cancelled_approval_written_late(
    command: Command,
    first: Violation,
    reordered: bool,
    expected: Observation,
    actual: Observation,
) -> tuple[str, str] | None:
    """ABORT-3 for an abort whose cancelled approval the target writes after the step it asked
    in ended, where a log alone reads an answer outside its request's step (DEC-2): the same
    events, the answer moved, which ABORT-3 places. (Reached where the step ended before the
    abort's result too: with that result in the step, the log's own check names ABORT-3.)
    None for any other violation."""
    if not (isinstance(command, Abort) and reordered and first.rule_id == "DEC-2"):
        return None
    record = next((e for e in actual.events if e.get("seq") == first.seq), None)
    if record is None or record.get("type") != "approval/decided":
        return None
    answer = data_of(record)
    if answer.get("outcome") != "cancelled" or not any(
        e.get("type") == "approval/decided" and data_of(e).get("id") == answer.get("id")
        for e in expected.events
    ):
        return None
    return "ABORT-3", (
        f"the target's own log breaks DEC-2 at its seq {first.seq}: {first.message}; it writes "
        f"the abort's cancelled answer to {spelled(answer.get('id'))} after its step ended, "
        "where an abort's cancelled approval is written when the abort lands, before the "
        "call's ABORTED_BEFORE_DISPATCH result"
    )


def classify(
    command: Command,
    phase: str,
    expected: Observation,
    actual: Observation,
    *,
    target_violations: Sequence[Violation],
    history: tuple[Event, ...] = (),
    crashed: bool = False,
    probe: Probe | None = None,
    config: LoopConfig | None = None,
    program: Sequence[Command] = (),
) -> tuple[str, str]:
    """The rule a divergence breaks, and one sentence saying how.

    `history` is every event the model appended so far, this command's included.
    `target_violations` are what the target's own events break (`log_violations`).
    `crashed`: a Crash came earlier in the program (or is this command).
    `probe` sends the target one more command after the divergence (None if it fails), where
    only what the target does next tells two bugs apart (`repair_or_loss`).
    `config` is the program's configuration (None: not known), which names the hooks a target
    may wait on that the model does not run; `program` the commands sent so far, this one
    included, whose replies name the tool of a call the model has not logged yet.
    """
    probe = None if probe is None else LoggedProbe(probe)
    difference = None
    if expected.accepted and actual.accepted:
        difference = first_event_difference(expected.events, actual.events)
        outranked = deny_outranked(expected, actual, history)
        if outranked is not None:
            # Asked about or run though a hook denied it: the merge is what is wrong, whatever
            # the input the target then applied (read as RW-1, or as RW-2 from its own log).
            return outranked
    if target_violations:
        first = target_violations[0]
        where = next(
            (i for i, e in enumerate(actual.events) if violation_seq(e) == first.seq),
            len(actual.events),
        )
        # A violation caused by an earlier wrong event is blamed on that event's rule; one that
        # only reorders events is the ordering rule the invariant names. A call record missing
        # (not moved) right before the violating event is such an earlier wrong event: the
        # result after it answers a call never recorded (ADJ-2) only because the record is gone.
        reordered = difference is not None and reordered_elsewhere(difference, expected, actual)
        record_missing_before = (
            difference is not None
            and difference.relation == "missing"
            and difference.at == where
            and difference.want is not None
            and difference.want.get("type") == "tool/call"
            and not reordered
        )
        # A PostToolUse block whose result is no error: a log alone says only that its audit
        # and its result disagree (HOOK-1), but the model's result at that very event shows
        # what the block must make of it (DEC-3), so the comparison names the rule.
        block_not_applied = (
            first.facet == POST_BLOCK_NOT_AN_ERROR
            and difference is not None
            and difference.at == where
            and difference.relation == "changed"
        )
        # A hook's input that is no JSON object, recorded as the call's arguments: a log alone
        # reads hooks run for a call they never see (HOOK-4), but the model's call at that very
        # event keeps its own arguments, refusing the input (HOOK-6) or discarding it under
        # another hook's deny (HOOK-3).
        if (
            first.rule_id == "HOOK-4"
            and difference is not None
            and difference.at == where
            and difference.relation == "changed"
            and difference.want is not None
            and difference.got is not None
            and difference.want.get("type") in ("assistant/message", "tool/call")
        ):
            arguments = arguments_rule(
                difference.want,
                difference.got,
                history,
                actual.events,
                config,
                executed=actual.executed,
            )
            if arguments[0] in ("HOOK-3", "HOOK-6"):
                return arguments
        if not (record_missing_before or block_not_applied) and (
            difference is None or difference.at >= where or reordered
        ):
            if first.rule_id == "LOG-1" and crashed and _seqs_went_back(expected, actual, history):
                if _names_what_a_loss_drops(actual, history):
                    # The log kept what the lower seqs would have lost: they repeat seqs it
                    # holds, its counter gone wrong.
                    return "LOG-1", (
                        f"after the crash the target's seqs go back ({first.message}), yet its "
                        "events name a turn or a call only the events at those seqs hold: its "
                        "log kept them, and the seqs repeat theirs"
                    )
                # Seqs lower than due after a crash: the log the target reopened lacks events
                # it had reported committed, which a crash must keep.
                return "LOG-8", (
                    f"after the crash the target's log goes on at a lower seq ({first.message}): "
                    "events it had reported committed were lost"
                )
            mistimed = repair_mistimed(command, first, expected, actual)
            if mistimed is not None:
                return "REC-1", mistimed
            if isinstance(command, Recover) and first.rule_id in REPAIR_SHAPES:
                # The events reopening appends are the crash repair's, even those a log alone
                # does not know for its closers (`repair_shapes_read_as_repair` names the rest).
                return "REC-1", (
                    f"the target's crash repair breaks {first.rule_id} at its seq {first.seq}: "
                    f"{first.message}; {REPAIR_TAIL}"
                )
            if first.rule_id == "RW-2" and first.message.endswith(DENY_DISCARDS_REWRITES):
                said = (
                    f"the target's own log breaks RW-2 at its seq {first.seq}: {first.message}, "
                    "yet the target applied one"
                )
                record = next((e for e in actual.events if e.get("seq") == first.seq), None)
                return rewrite_on_a_denial(
                    call_id_of(record), said, actual.events, history, config=config, probe=probe
                )
            late = _cancelled_approval_written_late(command, first, reordered, expected, actual)
            if late is not None:
                return late
            if first.message.endswith(UNREPAIRED_TURN) and not crashed:
                # A log alone reads a turn opened over unanswered calls as a crash left
                # unrepaired (REC-1); here no crash came: the turn was opened inside the open one.
                said = first.message.removesuffix(UNREPAIRED_TURN)
                return (
                    "TURN-1",
                    f"the target's own log breaks TURN-1 at its seq {first.seq}: {said}",
                )
            at = f"its seq {first.seq}" if first.seq >= 0 else "an event with no integer seq"
            return first.rule_id, (
                f"the target's own log breaks {first.rule_id} at {at}: {first.message}"
            )
    if not expected.accepted or not actual.accepted:
        return refusal_rule(
            command, phase, expected, actual, history, program=program, config=config, probe=probe
        )
    lost = repair_or_loss(command, expected, actual, history, probe) if probe else None
    if lost is not None:
        return lost
    latched = ended_by_an_idle_abort(command, expected, actual, config, program)
    if latched is not None:
        return latched
    if difference is not None:
        want, got = difference.want, difference.got
        match difference.relation:
            case "changed":
                assert want is not None
                assert got is not None
                return changed(
                    want,
                    got,
                    command,
                    phase,
                    history,
                    target_events=actual.events,
                    config=config,
                    program=program,
                    probe=probe,
                    executed=actual.executed,
                )
            case "missing":
                assert want is not None
                return missing(
                    want,
                    command,
                    phase,
                    history,
                    target_events=actual.events,
                    model_events=expected.events,
                    config=config,
                    probe=probe,
                    started=frozenset(call_id for call_id, _arguments in actual.executed),
                )
            case "extra":
                assert got is not None
                return extra(
                    got,
                    command,
                    phase,
                    history,
                    target_events=actual.events,
                    model_events=expected.events,
                    config=config,
                    program=program,
                    probe=probe,
                    started=frozenset(call_id for call_id, _arguments in actual.executed),
                )
            case _:
                assert_never(difference.relation)
    if normalized_observation(expected)["executed"] != normalized_observation(actual)["executed"]:
        return execution_rule(
            command, expected, actual, history, config=config, program=program, probe=probe
        )
    presented = presented_divergence(expected.presented or (), actual.presented or (), history)
    if presented is not None:
        fenced = never_fenced(presented, history, config, probe)
        return fenced or (presented.rule, presented.words)
    if expected.history is not None and actual.history is not None:
        sent = history_rule(expected.history, actual.history)
        if sent is not None:
            return sent
    if split_units(expected, actual):
        return "LOG-8", "a reply and its calls' tool/call records were split across commits"
    if isinstance(command, Crash):
        return "LOG-8", "the commits kept across the crash differ"
    return NO_RULE, "the observations differ in a way no rule covers"
