"""Comparing one observation of a target with the model's, and naming the rule a difference breaks.

What may differ freely is normalized away first: `time` and message ids (implementations use
clocks and UUIDs; approval ids are part of the contract, SPEC §2), how arguments are serialized
(compared as the JSON values they denote), events outside the spec's vocabulary, seqs and seq
citations (they count those events too).

`classify` names the rule the target broke. First the target's own log is held to the invariant
registry: a rule its output breaks by itself is the blame, with the invariant's own message.
Otherwise the first remaining difference is sorted by its kind — the wording of a result, the
shape of a reason, the order of results, which bodies started, how arguments parse, which queued
input was delivered — and blamed on the rule that prescribes the model's outcome there. A
difference no rule prescribes is reported as a gap in SPEC (`NO_RULE`), never guessed.
"""

from __future__ import annotations

import fnmatch
import json
import math
import re
import unicodedata
from collections.abc import Sequence
from typing import Any, Literal, Protocol, assert_never, runtime_checkable

import attrs

from loopspec.model.commands import (
    ABORT_CAUSES,
    FINISH_CANCELLED,
    FINISH_COMPLETED,
    Abort,
    Allow,
    ApprovalAnswers,
    Command,
    Crash,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, PRE_TOOL_USE, HookSpec, LoopConfig
from loopspec.model.errors import InvalidEventError, TransitionRefused, tagged
from loopspec.model.events import CORE_TYPES
from loopspec.model.facts import (
    ASKING_DECISIONS,
    DENYING_DECISIONS,
    SECONDS_SINCE_EPOCH,
    Fact,
    FactError,
    fact_from_wire,
    member_problem,
)
from loopspec.model.invariants import (
    DENY_DISCARDS_REWRITES,
    POST_BLOCK_NOT_AN_ERROR,
    REPAIR_SHAPES,
    REPAIR_TAIL,
    LogMonitor,
)
from loopspec.model.json_text import same_json, spelled
from loopspec.model.jsonvalue import EMPTY, JAVASCRIPT_TRIMMED, FrozenMap, parse_arguments, thaw
from loopspec.model.messages import ToolCallBlock
from loopspec.model.prefix import UNREPAIRED_TURN, Violation
from loopspec.model.rewrite import input_problem
from loopspec.model.state import Dispatching, Idle, LoopState, Rewriting
from loopspec.model.transitions import step
from loopspec.model.wording import (
    APPROVAL_DENIALS,
    APPROVAL_ID,
    DENIED_WITHOUT_REASON,
    ERROR_PREFIX,
    REASON_SEPARATOR,
    REWRITE_REFUSED,
    REWRITE_REFUSED_WORDS,
)
from loopspec.properties.conformance.call_again import (
    Probe,
    blank_context_trimmed,
    inputs_sent_again,
    last_ask_asked,
    merge_without_the_askers_input,
    never_fenced,
    no_object_call_judged,
    settling,
    supplied_input_fate,
    winner_shown,
)
from loopspec.properties.conformance.event_fields import (
    Event,
    approval_asked_for,
    call_id_of,
    call_record,
    data_of,
    error_code,
    message_text,
    result_for,
    whitespace_only,
)
from loopspec.properties.conformance.history_change import comparable_change
from loopspec.properties.conformance.history_rule import history_rule
from loopspec.properties.conformance.json_diff import labelled_json_diff
from loopspec.properties.conformance.json_values import ParsedJson as _Parsed
from loopspec.properties.conformance.json_values import as_run_value, blank_but_not_empty
from loopspec.properties.conformance.json_values import as_value as _as_value
from loopspec.properties.conformance.presented import normalized_item, presented_divergence
from loopspec.properties.conformance.process_target import normalized
from loopspec.properties.conformance.target import ConformanceTarget, Observation
from loopspec.properties.conformance.text_changes import message_text_change
from loopspec.properties.conformance.unknown_members import without_unknown_members

# The blame of a difference no rule in SPEC.md prescribes: a gap to close in SPEC, not a guess.
NO_RULE = "NO-RULE"


def spec_pointer(rule: str) -> str:
    """` (loopspec spec RULE)`, where a report names `rule`, so its reader can look it up;
    "" for NO_RULE, which SPEC.md does not state."""
    return f" (loopspec spec {rule})" if rule != NO_RULE else ""


@attrs.frozen
class Divergence:
    """The first observation where the target and the model disagree."""

    index: int
    command: Command
    rule_id: str
    what: str
    expected: Observation
    actual: Observation
    # What differs that no observation holds (the model's, the target's), as JSON: under a
    # profile, which calls ran at the same time in runs it compares whole.
    apart: tuple[object, object] | None = None

    def diff(self) -> str:
        """A readable unified diff of the two observations, JSON shown as JSON.

        When they compare equal, the target broke a rule in what the comparison sets aside or
        holds apart (LOG-1's seqs, ORD-2's citations, LOG-8's commits, `apart`): the diff then
        shows that, the events with their seqs and the commits, so a report never shows an
        empty diff.
        """
        # The target's seq of each event shown: a violation names the event by it.
        seqs = [event.get("seq") for event in self.actual.events if in_scope(event)]
        shown = (displayed_observation(self.expected), displayed_observation(self.actual))
        diff = labelled_json_diff(*shown, target_seqs=seqs)
        if diff:
            return diff
        if self.apart is not None and (diff := labelled_json_diff(*self.apart)):
            return diff
        shown = (_displayed_with_seqs(self.expected), _displayed_with_seqs(self.actual))
        diff = labelled_json_diff(*shown)
        if diff:
            return diff
        return "(the observations are the same, seqs and commits too: see the line above)"


class DivergenceFound(AssertionError):
    """Raised inside the machine; carries the program and the divergence."""

    def __init__(
        self, divergence: Divergence, config: LoopConfig, program: tuple[Command, ...]
    ) -> None:
        self.divergence = divergence
        self.config = config
        self.program = program
        super().__init__(
            tagged(
                divergence.rule_id,
                f"after command #{divergence.index + 1} ({divergence.command.NAME}): "
                f"{divergence.what}",
            )
        )


# ---------------------------------------------------------------------------------------------
# Normalization: what implementations may choose freely.


def normalized_event(event: Event) -> Event:
    """An event without what implementations may choose freely.

    Free: `time` and message ids (`process_target.normalized` drops those), and how effective
    arguments are serialized (key order, spacing, number spelling) — arguments are compared as
    the JSON values they denote.
    """
    # `normalized` copies the envelope, `data` and `data.message`; what is changed below is
    # copied too (the content list and its call blocks), and the rest is shared, not copied:
    # nothing writes to a normalized event below its envelope.
    event = normalized(event)
    data = event.get("data")
    if not isinstance(data, dict):
        return event
    if event.get("type") in ("tool/call", "approval/asked") and "arguments" in data:
        data["arguments"] = _as_value(data["arguments"])
    message = data.get("message")
    if isinstance(message, dict):
        content = message.get("content")
        if isinstance(content, list | tuple) and any(map(_is_call_block, content)):
            message["content"] = type(content)(
                {**block, "arguments": _as_value(block.get("arguments"))}
                if _is_call_block(block)
                else block
                for block in content
            )
    return event


def _is_call_block(block: object) -> bool:
    return isinstance(block, dict) and block.get("type") == "tool-call"


def in_scope(event: Event) -> bool:
    """Whether the spec speaks about this event type (SPEC §4: other types are opaque)."""
    return event.get("type") in CORE_TYPES


def normalized_observation(observation: Observation) -> dict[str, Any]:
    """The comparable part of an observation.

    Events outside the spec's vocabulary (plugin events, streaming chunks) are left out, and
    so are seqs and seq citations: they count those events too. The target's own log is still
    held to LOG-1 and ORD-2 by the invariants, event by event.
    """
    if not observation.accepted:
        return {"accepted": False}
    return {
        "accepted": True,
        "events": [_positional(normalized_event(e)) for e in observation.events if in_scope(e)],
        "executed": [
            [call_id, as_run_value(arguments)] for call_id, arguments in observation.executed
        ],
        # Compared only where the target reports it (the model presents for such targets only).
        **(
            {"presented": [normalized_item(item) for item in observation.presented]}
            if observation.presented is not None
            else {}
        ),
        # Likewise the history (capability "history"), as its canonical change.
        **(
            {"history": comparable_change(observation.history)}
            if observation.history is not None
            else {}
        ),
    }


# Observation fields `normalized_observation` reads but for the events: the commits are held to
# LOG-8 by `split_units`, a refusal's rule and words by `refused_alike`; `atomic` is the model's.
_NORMALIZED_BESIDE_EVENTS = tuple(
    field.name
    for field in attrs.fields(Observation)
    if field.name not in ("events", "atomic", "commits", "refusal_rule", "refusal_message")
)


def same_normalized(expected: Observation, actual: Observation) -> bool:
    """Whether the two observations are equal once normalized (`normalized_observation`).

    Equal in every field it reads, events but for their `time`, they are: it drops `time` and
    normalizes every other value by what that value is alone. That is the common case (a
    conforming target), and it compares at a fraction of the cost of normalizing both; only
    observations that differ there are normalized."""
    if (
        len(expected.events) == len(actual.events)
        and all(
            getattr(expected, name) == getattr(actual, name) for name in _NORMALIZED_BESIDE_EVENTS
        )
        and all(map(_equal_but_time, expected.events, actual.events))
    ):
        return True
    return normalized_observation(expected) == normalized_observation(actual)


def _equal_but_time(expected: Event, actual: Event) -> bool:
    if expected == actual:
        return True
    if expected.keys() != actual.keys():
        return False
    return all(expected[key] == actual[key] for key in expected if key != "time")


def _shown(value: object) -> object:
    """A comparable value as plain JSON: parsed arguments as their value, 0.0 as 0 (a whole
    double from 2^53 on stays a double: `1e+300`, not the 301 digits of its exact value)."""
    if isinstance(value, _Parsed):
        return _shown(value.value)
    if isinstance(value, dict):
        return {key: _shown(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_shown(item) for item in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < _EXACT_DOUBLES:
        return int(value)
    return value


# Every integer below 2^53 is a double; from there a whole double's digits are mostly noise.
_EXACT_DOUBLES = 2.0**53


def displayed_observation(observation: Observation) -> object:
    """The normalized observation as plain JSON, for people: what compares equal shows equal."""
    if not observation.accepted:
        return {
            "accepted": False,
            "refusal": {"rule": observation.refusal_rule, "message": observation.refusal_message},
        }
    shown = _shown(normalized_observation(observation))
    assert isinstance(shown, dict)
    # Each body as the driver protocol reports it, not as the pair the comparison holds.
    shown["executed"] = [
        {"callId": call_id, "arguments": arguments} for call_id, arguments in shown["executed"]
    ]
    return shown


def _displayed_with_seqs(observation: Observation) -> object:
    """An observation for people, with every event's seq and seq citations kept, and the
    commits the events form."""
    if not observation.accepted:
        return displayed_observation(observation)
    events = [_shown(normalized_event(e)) for e in observation.events]
    return {"commits": list(observation.commits), "events": events}


def _positional(event: Event) -> Event:
    event.pop("seq", None)
    event.pop("sourceEventSeqs", None)
    return event


def split_units(expected: Observation, actual: Observation) -> list[tuple[int, int]]:
    """The model's atomic units that the target's commit boundaries cut through (LOG-8).

    A target may commit more finely than the model, one event at a time even, except inside
    the units the spec names.
    """
    total = sum(actual.commits)
    if actual.events and total != len(actual.events):
        return [(0, len(actual.events))]
    # Commit boundaries, counted in in-scope events (the model's units index those).
    boundaries, kept = set(), 0
    sizes = iter(actual.commits)
    next_end = next(sizes, None)
    for raw_end, event in enumerate(actual.events, start=1):
        kept += in_scope(event)
        if raw_end == next_end:
            boundaries.add(kept)
            next_end = raw_end + next(sizes, 0)
    return [(s, e) for s, e in expected.atomic if any(s < b < e for b in boundaries)]


# ---------------------------------------------------------------------------------------------
# The target's own log, held to the invariant registry.


def log_violations(
    monitor: LogMonitor, events: Sequence[Event], model_events: Sequence[Event] = ()
) -> list[Violation]:
    """What the target's events break by themselves, fed in order through `monitor`;
    `model_events`, what the model appended for the same command, give its clock.

    An event the rules cannot even read is a violation too, of the rule its `FactError` names:
    TURN-5 for a reason without a string kind, LOG-4 for an event that is not valid, ...
    """
    found: list[Violation] = []
    model_clock = max((e["time"] for e in model_events if type(e.get("time")) is int), default=None)
    for event in events:
        at = _violation_seq(event)
        clock = _unwhole_time(event)
        if clock is not None:
            found.append(Violation("LOG-4", at, clock))
        elif "time" not in event:
            # As check says of such a line (section 10 makes `time` required): the facts the
            # rules read take none, and the comparison ignores times, so it read as TURN-1's
            # "turn/start differs in its envelope".
            kind = event.get("type")
            missing = f"{kind}.time" if type(kind) is str and kind else "the event's time"
            found.append(Violation("LOG-4", at, f"{missing} is missing"))
        try:
            fact = fact_from_wire(event)
        except FactError as error:
            found.append(Violation(error.rule_id, at, str(error)))
            continue
        broken = monitor.feed(fact)
        # Seconds where a rule of the event's own times it (REC-1's closers) are that rule's.
        seconds = None if broken else _time_in_seconds(event, model_clock)
        if seconds is not None:
            found.append(Violation("LOG-4", at, seconds))
        found += broken
    return found


def _violation_seq(event: Event) -> int:
    """The seq a violation of `event` is placed at: its own, or -1 where it has none (an int)."""
    seq = event.get("seq")
    return seq if type(seq) is int else -1


def _unwhole_time(event: Event) -> str | None:
    """What is wrong with an event's `time` that is there but no whole number of milliseconds
    (section 10; the log's reader refuses it, LOG-4), or None. The facts the rules read take
    no time but a whole one, so only this tells an in-process target's clock is wrong."""
    time = event.get("time")
    if "time" not in event or type(time) is int:
        return None
    if type(time) is float and time.is_integer():
        return None
    seconds = (
        " (seconds, as Python's time.time() gives them: int(time.time() * 1000) is milliseconds)"
        if type(time) is float and 1e9 <= time < 1e10
        else ""
    )
    return (
        f"{event.get('type')}.time is {json.dumps(time)}, where an event's time is a whole "
        f"number of milliseconds since the Unix epoch{seconds}"
    )


def _time_in_seconds(event: Event, model_clock: int | None) -> str | None:
    """What is wrong with an event's whole `time` that counts seconds, where the model's clock
    (its time for the same command) counts milliseconds (LOG-4), or None. Times are compared
    nowhere else, so a loop writing `int(time.time())` passed every program."""
    time = event.get("time")
    if model_clock is None or model_clock < 10**12 or type(time) is not int:
        return None
    if time not in SECONDS_SINCE_EPOCH:  # a clock no loop keeps once the model's reads ms
        return None
    return (
        f"{event.get('type')}.time is {time}, where an event's time is a whole number of "
        f"milliseconds since the Unix epoch: {time} counts seconds (int(time.time()), a Unix "
        f"timestamp; {time * 1000} would be milliseconds), and the model's clock reads "
        f"{model_clock}"
    )


# ---------------------------------------------------------------------------------------------
# Classification.


Relation = Literal["changed", "missing", "extra"]


@attrs.frozen
class _Difference:
    """The first differing in-scope event: changed in place, missing from or extra in the target."""

    relation: Relation
    want: Event | None
    got: Event | None
    at: int  # where in the target's events (all of them) the difference shows


def _first_event_difference(
    expected: tuple[Event, ...], actual: tuple[Event, ...]
) -> _Difference | None:
    want_all = [e for e in expected if in_scope(e)]
    got_all = [(i, e) for i, e in enumerate(actual) if in_scope(e)]
    wants = [_positional(normalized_event(e)) for e in want_all]
    gots = [_positional(normalized_event(e)) for _, e in got_all]
    for index, (want, got) in enumerate(zip(wants, gots, strict=False)):
        if want == got:
            continue
        at, event = got_all[index]
        if want.get("type") != got.get("type"):
            # One side has an event the other lacks here, if the rest lines up after it.
            if index + 1 < len(wants) and wants[index + 1] == got:
                return _Difference("missing", want_all[index], None, at)
            if index + 1 < len(gots) and gots[index + 1] == want:
                return _Difference("extra", None, event, at)
            # A block of several events: the side whose event comes again later on the other
            # (a hook run twice, as a run flattened by a profile shows it, is extra audit).
            if got not in wants[index + 1 :] and want in gots[index + 1 :]:
                return _Difference("extra", None, event, at)
            if got.get("type") in {w.get("type") for w in wants[index + 1 :]}:
                return _Difference("missing", want_all[index], None, at)
            return _Difference("extra", None, event, at)
        return _Difference("changed", want_all[index], event, at)
    if len(wants) > len(gots):
        return _Difference("missing", want_all[len(gots)], None, len(actual))
    if len(gots) > len(wants):
        at, event = got_all[len(wants)]
        return _Difference("extra", None, event, at)
    return None


def _reordered(difference: _Difference, expected: Observation, actual: Observation) -> bool:
    """Whether the differing event is there on the other side too, only elsewhere."""
    match difference.relation:
        case "missing":
            wanted, others = difference.want, actual.events
        case "extra":
            wanted, others = difference.got, expected.events
        case "changed":
            return False
        case _:
            assert_never(difference.relation)
    assert wanted is not None
    same = _positional(normalized_event(wanted))
    return sum(_positional(normalized_event(e)) == same for e in others) > 0


def hook_named(event: Event) -> str:
    """A hook audit event's hook, as a report names it: its handler id, or (where a profile
    erased the id, which the implementation spells its own way) its point and matcher."""
    data = data_of(event)
    handler = data.get("handlerId")
    if isinstance(handler, str):
        return f"hook {handler}"
    return f"the {data.get('point', 'unnamed')} hook matching {spelled(data.get('matcher', '?'))}"


def _unstarted_call_words(result: Event, model_events: Sequence[Event]) -> str:
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


@attrs.frozen
class _Situation:
    """What the model's log says happened to one call before its result."""

    hook_decisions: tuple[str, ...] = ()
    rewritten: bool = False
    supplied: tuple[Any, ...] = ()
    suppliers: tuple[str, ...] = ()  # the hooks that supplied `supplied`, in order
    approval: str | None = None  # the approval outcome, "asked" while unanswered
    post_blocked: bool = False
    original: object = None  # the model's raw arguments, parsed (None before the call exists)


# PreToolUse audit words that read as one decision only, and that decision (HOOK-1).
_PRE_READINGS = {"block": "deny", "defer": "ask", "approve": "allow"}


def _calls_step(call_id: str | None, history: Sequence[Event]) -> Sequence[Event]:
    """The events of `history` from the step/start of the step that holds call `call_id` (the
    latest reply making it, else the latest step): call ids repeat across steps, and an earlier
    call's hook answers and approval are not this one's."""
    end = len(history)
    for at in range(len(history) - 1, -1, -1):
        event = history[at]
        if event.get("type") == "assistant/message" and call_id in _reply_call_ids(event):
            end = at
            break
    for at in range(min(end, len(history) - 1), -1, -1):
        if history[at].get("type") == "step/start":
            return history[at:]
    return history


def _situation(call_id: str | None, history: Sequence[Event]) -> _Situation:
    if call_id is None:
        return _Situation()
    history = _calls_step(call_id, history)
    decisions: list[str] = []
    supplied: list[Any] = []
    suppliers: list[str] = []
    rewritten = post_blocked = False
    approval_ids: dict[str, str] = {}
    approval: str | None = None
    original: object = None
    for event in history:
        data = data_of(event)
        kind = event.get("type")
        if kind == "hook/result" and data.get("callId") == call_id:
            if data.get("point") == "PreToolUse":
                # Read as the loop acted on it (HOOK-1, HOOK-2): an exit-2 deny is audited
                # `block`, a Claude Code `defer` asks.
                word = str(data.get("decision"))
                decisions.append(_PRE_READINGS.get(word, word))
                if "updatedInput" in data:
                    supplied.append(data["updatedInput"])
                    suppliers.append(str(data.get("handlerId")))
            elif data.get("decision") == "block":
                post_blocked = True
        elif kind == "tool/call" and data.get("callId") == call_id:
            sidecar = data.get("rewrite")
            rewritten = rewritten or bool(sidecar)
            raw = sidecar.get("originalArguments") if isinstance(sidecar, dict) else None
            original = _as_value(raw if isinstance(raw, str) else data.get("arguments"))
        elif kind == "approval/asked" and data.get("callId") == call_id:
            approval_ids[str(data.get("id"))] = call_id
            approval = "asked"
        elif kind == "approval/decided" and str(data.get("id")) in approval_ids:
            approval = str(data.get("outcome"))
    return _Situation(
        tuple(decisions),
        rewritten,
        tuple(supplied),
        tuple(suppliers),
        approval,
        post_blocked,
        original,
    )


def _pre_answers(call_id: str | None, history: Sequence[Event]) -> list[tuple[str, str, bool]]:
    """Each PreToolUse answer the model audits for `call_id`, in order: the hook's handler id,
    the decision it reads as (HOOK-1, HOOK-2), and whether it supplied an input."""
    answers: list[tuple[str, str, bool]] = []
    for event in _calls_step(call_id, history):
        data = data_of(event)
        if (
            event.get("type") == "hook/result"
            and data.get("callId") == call_id
            and data.get("point") == "PreToolUse"
        ):
            word = str(data.get("decision"))
            reading = _PRE_READINGS.get(word, word)
            answers.append((str(data.get("handlerId")), reading, "updatedInput" in data))
    return answers


def _failed_closed(
    call_id: str | None, want: Event, history: Sequence[Event], started: frozenset[str]
) -> str | None:
    """Why a call the target started is denied, where the model's result for it is a denial
    and the only hooks that could have denied it are audited `error`: a hook that failed under
    fail-closed (HOOK-7), which a loop may take for no decision. None otherwise."""
    if call_id not in started or error_code(want) is not None or not _is_refusal(want):
        return None
    answers = _pre_answers(call_id, history)
    failed = [hook for hook, reading, _supplied in answers if reading == "error"]
    if not failed or any(reading == "deny" for _hook, reading, _supplied in answers):
        return None
    return (
        f"the target runs it, but {_named(failed)} denied it: a hook that failed under "
        "fail-closed denies the call (HOOK-7), its audit recording error, and a denied call "
        "never runs; the loop acts on the verdict, not the audit's word"
    )


def _denied_yet_run(
    call_id: str | None,
    want: Event,
    history: Sequence[Event],
    started: frozenset[str],
    *,
    refused_at_gate: str | None = None,
) -> tuple[str, str] | None:
    """Why a call the target started is denied, where the model's result for it is a denial
    and a hook denied it: DEC-1 when every hook that answered denied it (no merge to get
    wrong), HOOK-2 when others answered otherwise (the strictest answer wins); None when no
    hook denied it, or the target did not start it. `refused_at_gate`: the error code
    (UNKNOWN_TOOL, INVALID_TOOL_INPUT) the target's result gives a call it let through the gate
    where its body would start, a call it treats as started."""
    if call_id not in started and refused_at_gate is None:
        return None
    if error_code(want) is not None or not _is_refusal(want):
        return None
    answers = _pre_answers(call_id, history)
    denied = [hook for hook, reading, _supplied in answers if reading == "deny"]
    if not denied:
        return None
    others = [
        f"{_named([hook])} said {reading}"
        for hook, reading, _supplied in answers
        if reading != "deny"
    ]
    runs = (
        "runs it"
        if refused_at_gate is None
        else f"answers it {refused_at_gate}, as a call no hook denied is answered where its body "
        "would start"
    )
    if others:
        return "HOOK-2", (
            f"the target {runs}, but {_named(denied)} denied it and {' and '.join(others)}: "
            "the strictest answer wins (deny > ask > allow > pass), whatever order the hooks "
            "answer in, so the call is denied and never runs"
        )
    text = _result_text(want)
    unreasoned = (
        f" (a deny giving no reason denies too: its result is then {text!r})"
        if text == ERROR_PREFIX + "denied"
        else ""
    )
    return "DEC-1", (
        f"the target {runs}, but {_named(denied)} denied it: a denied call never runs{unreasoned}"
    )


def _named(handlers: Sequence[str]) -> str:
    """`hook a`, `hooks a, b`."""
    return ("hook " if len(handlers) == 1 else "hooks ") + ", ".join(handlers)


def _refused_rewrite(
    call_id: str | None,
    model_events: Sequence[Event],
    target_events: Sequence[Event],
    history: Sequence[Event],
    *,
    config: LoopConfig | None = None,
    probe: Probe | None = None,
) -> tuple[str, str] | None:
    """Why the model refuses `call_id` (HOOK-6), when its result this command is the refusal of
    an input a hook supplied that the tool cannot take and the target applied no input (its
    tool/call has no sidecar); None otherwise. A later hook that answered without an input is
    named: it must not have erased the supplied one (HOOK-3). A target that applied another
    hook's input instead is HOOK-3's alone, and is judged where its arguments differ. A target
    that drops an input its tool takes too, the call made again to tell (`supplied_input_fate`),
    never judged the input: it drops every input so (RW-2, or HOOK-3 where a later hook passed)."""
    refused = any(
        e.get("type") == "tool/result"
        and call_id_of(e) == call_id
        and REWRITE_REFUSED_WORDS in json.dumps(data_of(e).get("message"))
        for e in model_events
    )
    applied = any(
        e.get("type") == "tool/call" and call_id_of(e) == call_id and data_of(e).get("rewrite")
        for e in target_events
    )
    if applied:
        return None
    answers = _pre_answers(call_id, history)
    suppliers = [i for i, (_hook, _reading, supplied) in enumerate(answers) if supplied]
    if not refused or not suppliers:
        return None
    supplier = _named([answers[suppliers[-1]][0]])
    erased = _not_erased_by_later(call_id, history)
    logged = _target_log(history, target_events, model_events)
    fate = supplied_input_fate(call_id, answers, history, logged, config=config, probe=probe)
    if fate == "dropped":
        told = (
            f"{supplier} supplied an input for call {call_id} that its tool cannot take, and the "
            "target neither refuses the call nor applies the input; an input its tool takes is "
            "dropped too (the call made again, sent to tell, runs or is asked about with the "
            "model's arguments)"
        )
        if erased:
            return "HOOK-3", (
                f"{told}{erased}; a loop applying no hook's input at all reads so too (RW-2)"
            )
        return "RW-2", (
            f"{told}: an input a hook supplied is either applied and recorded (a rewrite "
            "sidecar naming the hook) or the call is refused, never dropped"
        )
    return "HOOK-6", (
        f"{supplier} supplied an input for call {call_id} that its tool cannot take, which "
        "denies the call with a reason naming the hook: such a call is never asked about or "
        "run" + erased
    )


def _not_erased_by_later(call_id: str | None, history: Sequence[Event]) -> str:
    """`; hook x answered after hook y without an input: a passthrough never erases a rewrite
    (HOOK-3)` when hooks answered `call_id` after the last one that supplied an input (y)
    without one; else empty. A loop whose last answer decides the input (Claude Code #15897)
    drops the input so; one that ignores every input looks the same in such a program."""
    answers = _pre_answers(call_id, history)
    suppliers = [i for i, (_hook, _reading, supplied) in enumerate(answers) if supplied]
    if not suppliers:
        return ""
    later = [hook for hook, _reading, _supplied in answers[suppliers[-1] + 1 :]]
    if not later:
        return ""
    return (
        f"; {_named(later)} answered after {_named([answers[suppliers[-1]][0]])} without an "
        "input: a passthrough never erases a rewrite (HOOK-3)"
    )


def _dropped_by_an_ask(call_id: str | None, history: Sequence[Event]) -> str | None:
    """Why an input a hook supplied for `call_id` stays in effect though another hook asked
    without one, when one did (HOOK-3); None otherwise. A loop that lets the winning decision's
    hook decide the input (an ask, which brings none) drops the input so."""
    answers = _pre_answers(call_id, history)
    suppliers = [i for i, (_hook, _reading, supplied) in enumerate(answers) if supplied]
    if not suppliers or answers[suppliers[-1]][1] == "ask":
        return None
    asked = [hook for hook, reading, supplied in answers if reading == "ask" and not supplied]
    if not asked:
        return None
    return (
        f"{_named(asked)} asked about call {call_id} without an input and "
        f"{_named([answers[suppliers[-1]][0]])} supplied one: an ask keeps the input another "
        "hook supplied, and the approval shows it (HOOK-3: only a deny discards a rewrite); a "
        "loop that applies no hook's input at all reads so too (RW-1)"
    )


def _reason_kind(event: Event | None) -> object:
    reason = data_of(event).get("reason")
    return reason.get("kind") if isinstance(reason, dict) else None


def _abort_cause_of(event: Event) -> object:
    reason = data_of(event).get("reason")
    inner = reason.get("reason") if isinstance(reason, dict) else None
    return inner.get("kind") if isinstance(inner, dict) else None


def _cause_of_a_refused_abort(want: Event, got: Event, program: Sequence[Command]) -> str | None:
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


def _every_abort_recorded_as(ended: Event, probe: Probe | None) -> str | None:
    """Words when the target ends a turn aborted with the cause it ended this one with
    (`ended`, that turn/end) whatever abort ends it: a probe opens a turn and aborts it
    with another cause while its reply is awaited, and the target records the same cause. A
    loop recording every abort as the user's, say, reads so where the turn's cause is that of
    a later abort the model refused (`_cause_of_a_refused_abort`). None otherwise."""
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


def _abort_rule(phase: str) -> str:
    return "ABORT-1" if phase == "Dispatching" else "ABORT-2"


def _turn_end_rule(want: Event, got: Event | None, command: Command, phase: str) -> tuple[str, str]:
    """Which rule prescribes the model's turn/end reason."""
    reason = data_of(got).get("reason") if got is not None else None
    if got is not None and not (isinstance(reason, dict) and isinstance(reason.get("kind"), str)):
        return (
            "TURN-5",
            f"the turn/end reason must be an object with a string kind, not {spelled(reason)}",
        )
    kind = _reason_kind(want)
    theirs = _reason_kind(got) if got is not None else None
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
            return _abort_rule(phase), said + " (an abort ends the turn aborted, with its cause)"
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
        return _abort_rule(phase), said
    return "TURN-5", said


def _input_problem(event: Event) -> str:
    """Which input problem an INVALID_TOOL_INPUT result names (not an object, or missing keys)."""
    text = json.dumps(data_of(event).get("message", {}).get("content"))
    return "not an object" if "JSON object" in text else "missing keys"


def _parsed_otherwise(
    code: object,
    their_code: object,
    got: Event | None,
    original: object,
    required: tuple[str, ...] = (),
    *,
    unregistered: bool = False,
) -> bool:
    """Whether a call's result differs because the target parsed its arguments otherwise (EXE-2)
    rather than judged or timed it otherwise (EXE-5, ABORT-1): it found them not an object where
    the model took the input, or the model found them not an object where JavaScript's `trim`
    reads them as blank ({}): U+FEFF, which Python's `str.strip` keeps. `required`: the keys
    the call's tool requires; `unregistered`: the configuration lacks the tool."""
    if their_code == "INVALID_TOOL_INPUT" and code != "INVALID_TOOL_INPUT":
        # Arguments the model too finds not an object were settled at another time (ABORT-1).
        return (
            got is not None
            and _input_problem(got) == "not an object"
            and isinstance(original, str)
            and isinstance(parse_arguments(original), FrozenMap)
        )
    # An unregistered tool's call answered UNKNOWN_TOOL is left to the probe of a reply calling
    # it with [] (`_unregistered_input_probed`): a loop that reads U+FEFF as blank answers so,
    # and so does one that checks only a registered tool's input (EXE-5).
    # Read as blank, the arguments are {}, which misses a key the tool requires: invalid input
    # all the same, so an abort's ABORTED_BEFORE_DISPATCH there is no reading of them; nor
    # where the tool is not registered, whose call {} ends UNKNOWN_TOOL at the gate (seed 67 of
    # 50-69: an abort answering judged calls read as EXE-2).
    still_invalid = their_code == "ABORTED_BEFORE_DISPATCH" and (bool(required) or unregistered)
    return (
        code == "INVALID_TOOL_INPUT"
        and their_code not in ("INVALID_TOOL_INPUT", "UNKNOWN_TOOL")
        and not still_invalid
        and _blank_to_javascript_only(original)
    )


def _recorded(call_id: str | None, field: str, events: Sequence[Event]) -> object:
    """`field` of the latest tool/call record of call `call_id` in `events`; None when none."""
    return data_of(call_record(call_id, events)).get(field)


def _misread_input(result: Event, events: Sequence[Event]) -> tuple[str, str] | None:
    """The rule and why the target's INVALID_TOOL_INPUT `result` misreads its call's arguments,
    when the model reads them (EXE-2) as an object that holds every key the result says is
    missing (`events`: the model's log, with the call's tool/call), or when the result is
    another failure, in the loop's own words, of a call whose arguments are blank but not
    empty; None when the model finds the input invalid too."""
    call_id = call_id_of(result)
    raw = _recorded(call_id, "arguments", events)
    if error_code(result) != "INVALID_TOOL_INPUT":
        if (
            _is_error(result)
            and blank_but_not_empty(raw)
            and error_code(result) not in _LOOP_ERROR_CODES
        ):
            # Failed at once in the loop's own words (real dsh: INVALID_ARGS): how it read
            # the blank arguments is what is wrong, not when the result commits (ORD-3).
            return "EXE-2", (
                f"call {call_id}'s arguments are blank (only whitespace), which EXE-2 reads as "
                "{}, a JSON object, so the call is not invalid input and its body starts; a "
                "loop that reads only the empty string as {} and parses other text as JSON "
                "finds no object in them"
            )
        return None
    value = parse_arguments(raw) if isinstance(raw, str) else None
    if not isinstance(value, FrozenMap):
        return None
    if _input_problem(result) == "not an object" and not str(raw).strip():
        # Blank text is no JSON: json.loads of it raised here, a traceback where a loop reading
        # "" as no object was to be told (round 18's Brave #56601).
        return "EXE-2", (
            f"call {call_id}'s arguments are blank ({json.dumps(raw)}), which EXE-2 reads as {{}}, "
            "a JSON object, so the call is not invalid input and its body starts (a call of a "
            "tool taking no arguments is often sent so)"
        )
    if _input_problem(result) == "not an object":
        surrogate = (
            _LONE_SURROGATE_WORDS
            if _LONE_SURROGATE.search(json.dumps(json.loads(str(raw)), ensure_ascii=False))
            else ""
        )
        return "EXE-2", (
            f"call {call_id}'s arguments are a JSON object as EXE-2 reads them{surrogate}, so "
            "the call is not invalid input and its body starts"
        )
    named = _result_text(result).partition("missing required ")[2]
    present = [key for key in value if repr(key) in named]
    if not present:
        return None
    return "EXE-5", (
        f"call {call_id}'s arguments hold the key {present[0]!r} the result calls missing: a "
        'key whose value is null, false, 0 or "" is there all the same (only a key the object '
        "lacks is missing), so the call is valid input and its body starts"
    )


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
_LONE_SURROGATE_WORDS = (
    " (a \\u escape of a lone surrogate, such as \\ud800, is valid JSON: a string "
    "holding it, as Python's json and JavaScript's JSON.parse read it, though a strict "
    "parser refuses it)"
)


# Arguments the model keeps as their raw string where `json.loads` and JSON.parse read an object,
# said the same way wherever a result or its absence shows it.
_LOSSY_JSON = (
    "JSON without a lossless value (NaN, an infinity such as 1e400, a negative zero such as "
    "-0.0), which stay the raw string, no JSON object (EXE-2, LOG-3)"
)


def _arguments_sent(call_id: str | None, command: Command) -> str | None:
    """The arguments of call `call_id` when `command` is the reply that makes it (an invalid
    input's result commits with its reply, whose tool/call no earlier event holds)."""
    if not isinstance(command, ModelReplies):
        return None
    return next((call.arguments for call in command.tool_calls if call.id == call_id), None)


def _object_only_when_lossy(original: object) -> bool:
    """Whether arguments the model keeps as their raw string (EXE-2: no lossless value) are a
    JSON object to a reader that takes NaN, infinities and -0.0 as numbers (Python's
    `json.loads`, JavaScript's `JSON.parse` but for NaN)."""
    if not isinstance(original, str) or isinstance(parse_arguments(original), FrozenMap):
        return False
    try:
        return isinstance(json.loads(original), dict)
    except (ValueError, RecursionError):
        return False


def _falsy_json(original: object) -> bool:
    """Whether arguments are JSON whose value some reader defaulting them to {} replaces (null,
    false, 0, "", []: `_readers_replacing`): no object, which such a loop runs."""
    if not isinstance(original, str) or not original.strip():
        return False
    value = parse_arguments(original)
    # A raw string that is no JSON is truthy unless empty, and blank text is {} already.
    return not isinstance(value, FrozenMap) and not value


def _falsy_read_as_empty(raw: object, instead: str) -> str:
    """EXE-2's words on arguments `raw` some reader replaces with {} (null, false, 0, "", []:
    `_falsy_json`), which a loop reading them as no arguments took for valid input; `instead`:
    what that loop does with the call where the model does not."""
    return (
        f"its arguments {spelled(raw)} are JSON whose value is not an object, which EXE-2 does "
        "not read as {} (only blank arguments are): the call ends as an INVALID_TOOL_INPUT error, "
        "no hook sees it and its body never starts, where a loop reading such a value as no "
        f"arguments ({_readers_replacing(raw)}) {instead}"
    )


def _readers_replacing(raw: object) -> str:
    """The readers, as code, that replace arguments `raw` (`_falsy_json`) with {}: JavaScript's
    `??` replaces null alone, its `||` null, false, 0 and "" (an array is true to it), Python's
    `or` all five."""
    value = parse_arguments(raw) if isinstance(raw, str) else None
    readers = [
        *(["JSON.parse(raw) ?? {}"] if value is None else []),
        *(["JSON.parse(raw) || {}"] if not isinstance(value, tuple) else []),
        "json.loads(raw) or {}",
    ]
    return readers[0] if len(readers) == 1 else f"{', '.join(readers[:-1])} or {readers[-1]}"


def _blank_to_javascript_only(original: object) -> bool:
    """Whether arguments are blank to JavaScript's `trim` but not to Python's `str.strip`."""
    return (
        isinstance(original, str)
        and bool(original.strip())
        and not original.strip(JAVASCRIPT_TRIMMED)
    )


# EXE-2's reading of arguments that Python's strip and JavaScript's trim judge apart, said the
# same way wherever a hook's run or wait, or a reply's commit, follows the other reading.
# Said where a denied call that a hook also asked about was found unstarted by an abort: a
# merge letting ask win holds it at the gate too, for its approval, and no log tells which.
_ASK_OUTRANKING_DENY = (
    "; a hook asked about it too: a loop whose merge lets the ask win (HOOK-2 says deny > ask "
    "> allow > pass) holds it so as well, waiting for a free slot to ask for its approval, "
    "which no log before the abort tells apart from a denied call held at the gate"
)

_BLANK_TO_ONE_READER = (
    "arguments are blank to one of Python's strip and JavaScript's trim alone (Go's "
    "strings.TrimSpace keeps U+001C..U+001F as trim does); as the model reads them (blank "
    "means {}, as Python's str.strip reads it)"
)

# Said to a loop in any language: one that strips nothing finds no object in them either.
_BLANK_TO_PYTHON_ONLY = (
    "; these arguments are blank as Python's str.strip reads them (U+001C..U+001F and U+0085 "
    "are), so {} (EXE-2): a loop that finds no JSON object in them strips less than that "
    "(JavaScript's trim keeps these characters; Rust's str::trim and char::is_whitespace keep "
    "U+001C..U+001F, and so do Go's strings.TrimSpace and unicode.IsSpace and Tcl's string "
    "trim and string is space; Java's isBlank and strip keep U+0085; a loop that tests only for "
    "the empty string keeps any whitespace)"
)

# Blank text as EXE-2 reads it, said where a cancelled reply's text is blank (ABORT-2).
_BLANK_AS_EXE_2 = (
    "blank as EXE-2 reads it, Python's str.strip: U+0085 and the no-break spaces U+00A0, "
    "U+2007 and U+202F are, which Java's isBlank keeps; U+001C..U+001F too, which "
    "JavaScript's trim keeps, and so do Go's strings.TrimSpace and Rust's str::trim"
)

# Said where the model's stderrSummary is "" and the target's is absent or another.
_EMPTY_REASON_GIVEN = (
    '; the reason "" is a reason the hook gave, written as given (a loop testing reason != "", '
    "as Go's zero value invites, reads it as none: keep whether it was given)"
)

_OR_UNCHECKED = (
    "or it checks no input of a tool that is not registered, which shows the same here (EXE-5 "
    "(1): arguments that are not a JSON object are invalid input whatever the tool)"
)


def _holds_blank_text(reply: ModelReplies) -> bool:
    """Whether a text or reasoning block of `reply` is blank but not empty."""
    texts = [block.text for block in reply.blocks if not isinstance(block, ToolCallBlock)]
    return any(text and not text.strip() for text in texts)


def _interrupted_reply_kept(adds: str, command: Abort | ModelReplies) -> str:
    """ABORT-2's words for an interrupted reply the target logs where the model omits it."""
    if isinstance(command, ModelReplies) and _holds_blank_text(command):
        return (
            f"{adds}: an interrupted reply whose text is all blank is omitted ({_BLANK_AS_EXE_2})"
        )
    return (
        f"{adds}: an interrupted reply keeps only its text and reasoning blocks that are not "
        "blank (empty, or only whitespace as EXE-2 reads it), and is omitted when none is left"
    )


def _result_text(event: Event | None) -> str:
    """The text blocks of a tool/result's message, run together."""
    content = data_of(event).get("message", {}).get("content") if event is not None else None
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return ""
    parts = content[0].get("content")
    return "".join(
        str(part.get("text", ""))
        for part in (parts if isinstance(parts, list) else [])
        if isinstance(part, dict)
    )


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
    if _result_text(result) != text:
        return None
    return (
        f"call {other}'s result carries the outcome the command gives call {command.call_id}, "
        f"whose own result the target does not append: an outcome settles the call its callId "
        f"names, and only while that call runs (ids compare as strings: {spelled(other)} is not "
        f"{spelled(command.call_id)})"
    )


def _every_reason_given(want: Event, got: Event | None) -> bool:
    """Whether the target's denial, though worded otherwise, gives every reason the model's
    joins: the merge kept every denying hook's reason (HOOK-2) and only how they are joined
    (the separator, the order) differs, which DEC-1 states."""
    mine, theirs = _result_text(want), _result_text(got)
    reasons = mine.removeprefix(ERROR_PREFIX).split(REASON_SEPARATOR)
    return theirs != mine and all(theirs.count(r) >= reasons.count(r) for r in reasons)


def _result_parts(event: Event | None) -> int:
    """How many blocks a tool/result's message holds."""
    return len(_result_blocks(event))


def _result_blocks(event: Event | None) -> list[Any]:
    """The blocks a tool/result's message holds (its one tool-result block's content)."""
    if event is None:
        return []
    content = data_of(event).get("message", {}).get("content")
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return []
    parts = content[0].get("content")
    return parts if isinstance(parts, list) else []


def _context_in_result(command: ToolFinishes, want: Event, got: Event | None) -> bool:
    """Whether the target's result holds more than the model's where a PostToolUse hook of the
    call gave a context: the context delivered inside the result (ADJ-4)."""
    gave_context = any(isinstance(verdict, PostContext) for verdict in command.post)
    return gave_context and _result_parts(got) > _result_parts(want)


_MISSING_KEYS = "missing required "


def _keys_quoted_otherwise(want: Event, got: Event | None) -> str:
    """Words on the missing keys of an INVALID_TOOL_INPUT result quoted otherwise than the
    model quotes them, as Python's `repr` does (EXE-5), when the texts differ there alone."""
    wanted, written = _result_text(want), _result_text(got)
    if _MISSING_KEYS not in wanted or _MISSING_KEYS not in written:
        return ""
    (before, _, ours), (their_before, _, theirs) = (
        wanted.partition(_MISSING_KEYS),
        written.partition(_MISSING_KEYS),
    )
    if before != their_before:
        return ""
    listed, their_listed = ours.split(", "), theirs.split(", ")
    if listed != their_listed and sorted(listed) == sorted(their_listed):
        # The same keys, quoted alike, in another order (a set difference, or sorted).
        return (
            f"; the missing keys are the same, in another order: {ours}, as the tool's "
            f"requiredKeys list them, where the target's are {theirs} (a set's order, or "
            "sorted, is not the tool's)"
        )
    return (
        "; the missing keys differ in how they are quoted: each as Python's repr writes a "
        "string (a control character escaped, \\x00 or \\t, a key holding ' in double quotes, "
        f"other characters as they are), here {json.dumps(ours, ensure_ascii=False)} as a "
        f"JSON string, where the target's are {json.dumps(theirs, ensure_ascii=False)}"
    )


def _refused_rewrite_worded_otherwise(want: Event, got: Event | None) -> str | None:
    """`_keys_quoted_otherwise`'s words when both results refuse the same hook's input to the
    same tool for the same missing keys, listed or quoted otherwise; None otherwise (another
    hook, another input or another problem is HOOK-6's or HOOK-3's)."""
    wanted, written = _result_text(want), _result_text(got)
    if REWRITE_REFUSED_WORDS not in wanted or _MISSING_KEYS not in wanted:
        return None
    ours, theirs = wanted.partition(_MISSING_KEYS)[2], written.partition(_MISSING_KEYS)[2]
    if ours == theirs:
        return None
    keys, their_keys = (
        sorted(key.strip("'\"") for key in listing.split(", ")) for listing in (ours, theirs)
    )
    if keys != their_keys:
        return None
    return _keys_quoted_otherwise(want, got) or None


def _body_error_words(want: Event, got: Event | None) -> str | None:
    """What the target wrote as a failed body's `{name, code}` against what the body gave,
    when the result's content agrees and only its error info differs (EXE-4); None otherwise.
    A loop naming every failure ToolError read as a wrong text ("Error: <message>")."""
    wanted = data_of(want).get("error")
    if got is None or _content(got) != _content(want):
        return None
    written = data_of(got).get("error")
    if wanted is None and written is not None:
        content = data_of(want).get("message", {}).get("content")
        block = content[0] if isinstance(content, list) and content else None
        if isinstance(block, dict) and block.get("isError") is True:
            return (
                f"the target writes {json.dumps(written)} as tool/result.error where the body "
                "failed without a code: a failed body's result carries {name, code} only when "
                "the body reported a code (SPEC.md section 9)"
            )
    if not isinstance(wanted, dict) or wanted.get("code") in _LOOP_ERROR_CODES:
        return None
    if written == wanted:
        return None
    rule = (
        "a failed body's result keeps the body's own errorName and code as tool/result.error "
        "(SPEC.md section 9)"
    )
    differences = [
        f"{field} {json.dumps(written.get(field))} where the body's is "
        + json.dumps(wanted.get(field))
        for field in ("name", "code")
        if isinstance(written, dict) and written.get(field) != wanted.get(field)
    ]
    if differences:
        return f"the target gives the error {' and '.join(differences)}: {rule}"
    # No error info, another JSON type, or the same name and code with members of its own.
    what = "writes no error info" if written is None else f"writes {json.dumps(written)}"
    return f"the target {what} where the body failed with {json.dumps(wanted)}: {rule}"


def _failure_info_kept_by_a_block(
    want: Event,
    got: Event | None,
    command: Command,
    program: Sequence[Command] = (),
    config: LoopConfig | None = None,
) -> str | None:
    """The words for a blocked result that keeps the error info of a body that failed with a
    code, or of a success an abort made ABORTED, its content the model's (the block reasons),
    where a block's result has none (DEC-3: it replaces the body's result); None otherwise, as
    for a body that gave no code, whose error info is wrong blocked or not (EXE-4). A result
    held behind an earlier call's (ORD-3) commits on another command than its outcome, which
    `program` replayed finds."""
    written = None if got is None else data_of(got).get("error")
    if written is None or data_of(want).get("error") is not None or _content(got) != _content(want):
        return None
    call_id = call_id_of(want)
    outcome = (
        command.outcome
        if isinstance(command, ToolFinishes) and command.call_id == call_id
        else _outcome_taken(call_id, program, config)
    )
    if isinstance(outcome, ToolSucceeded) and isinstance(written, dict):
        if written.get("code") != "ABORTED":
            return None
        # A success after the abort is an ABORTED error (ABORT-1) until its block replaces it.
        return (
            f"the target keeps the error info {json.dumps(written)} of a success that landed "
            "after the abort (ABORT-1), on a result a PostToolUse hook blocked: a block "
            "replaces the result whole, and the blocked result carries no error info"
        )
    if not isinstance(outcome, ToolFailed) or outcome.code is None:
        return None
    body = {"name": outcome.error_name, "code": outcome.code}
    # Error info of its own (a null code) is written where none belongs, not the body's kept.
    kept = (
        f"keeps the failed body's error info, {json.dumps(written)},"
        if written == body
        else f"writes the error info {json.dumps(written)} (the failed body's is "
        f"{json.dumps(body)})"
    )
    return (
        f"the target {kept} on a result a PostToolUse hook blocked: a block replaces the "
        "body's result whole, its {name, code} as its content and meta, and the blocked result "
        "carries no error info"
    )


def _outcome_taken(
    call_id: str | None, program: Sequence[Command], config: LoopConfig | None
) -> object:
    """The outcome of the last ToolFinishes for `call_id` that the model took, `program`
    replayed on it (None without `config`, or when it took none)."""
    if config is None:
        return None
    state, taken = LoopState(config), None
    for sent in program:
        try:
            state = step(state, sent)
        except TransitionRefused:
            continue
        if isinstance(sent, ToolFinishes) and sent.call_id == call_id:
            taken = sent.outcome
    return taken


def _error_name(event: Event | None) -> object:
    """A tool/result's error name, None when it carries none."""
    error = data_of(event).get("error")
    return error.get("name") if isinstance(error, dict) else None


def _judged_after_the_abort(want: Event, command: Command, history: Sequence[Event]) -> str:
    """Words on a body that settled after an abort (`command` settles it, and the model's turn
    ends aborted after `want`, its result or an audit of it), for a PostToolUse hook's audit or
    block the target left out; "" otherwise."""
    if not isinstance(command, ToolFinishes) or command.call_id != call_id_of(want):
        return ""
    seq = want.get("seq")
    ends = [
        event
        for event in history
        if event.get("type") == "turn/end" and type(seq) is int and event.get("seq", -1) > seq
    ]
    if not ends or _reason_kind(ends[0]) != "aborted":
        return ""
    return (
        " (the body settled after the abort that ends the turn: its PostToolUse hooks judge "
        "it all the same, audited before its result, and a block still replaces that result, "
        "SPEC.md section 3, PostToolUse after an abort)"
    )


def _held_by_approval(call_id: str | None, history: Sequence[Event]) -> str | None:
    """The call of `call_id`'s reply, before it, whose pending approval an abort cancelled."""
    asked: dict[str, str] = {}  # approval id -> call id
    order: list[str | None] = []
    for event in history:
        kind, data = event.get("type"), data_of(event)
        if kind == "assistant/message":
            asked.clear()
            order = _reply_call_ids(event)
        elif kind == "approval/asked" and isinstance(data.get("callId"), str):
            asked[str(data.get("id"))] = data["callId"]
        elif kind == "approval/decided" and data.get("outcome") == "cancelled":
            held = asked.get(str(data.get("id")))
            if held in order and call_id in order and order.index(held) < order.index(call_id):
                return held
    return None


def _is_error(event: Event | None) -> bool:
    """Whether a tool/result's block says the call failed."""
    message = data_of(event).get("message")
    content = message.get("content") if isinstance(message, dict) else None
    block = content[0] if isinstance(content, list) and content else None
    return isinstance(block, dict) and block.get("isError") is True


def _is_refusal(event: Event | None) -> bool:
    """A result that is a denial (an error without error info) or an INVALID_TOOL_INPUT one."""
    if event is None or event.get("type") != "tool/result":
        return False
    message = data_of(event).get("message")
    content = message.get("content") if isinstance(message, dict) else None
    block = content[0] if isinstance(content, list) and content else None
    failed = isinstance(block, dict) and block.get("isError") is True
    return failed and error_code(event) in (None, "INVALID_TOOL_INPUT")


def _content(result: Event | None) -> object:
    message = data_of(result).get("message")
    return message.get("content") if isinstance(message, dict) else None


# The error codes of results the loop writes itself (TEXT-1's table, SPEC.md section 9).
_LOOP_ERROR_CODES = frozenset(
    {
        "INVALID_TOOL_INPUT",
        "UNKNOWN_TOOL",
        "ABORTED_BEFORE_DISPATCH",
        "ABORTED",
        "TOOL_OUTCOME_UNKNOWN",
        "TOOL_NOT_STARTED",
    }
)


def _earlier_input_refused(want: Event, got: Event | None, situation: _Situation) -> str:
    """Words for a refusal naming another hook than the model's: one whose input a later
    hook's replaced, judged though only the input in effect is ("" when it is not so)."""
    ours, theirs = _result_text(want), _result_text(got)
    if REWRITE_REFUSED_WORDS not in theirs:
        return ""
    named = [h for h in situation.suppliers if theirs.startswith(f"{ERROR_PREFIX}hook {h} ")]
    effect = [h for h in situation.suppliers if ours.startswith(f"{ERROR_PREFIX}hook {h} ")]
    if not named or not effect or named == effect:
        return ""
    return (
        f" whose input is in effect, hook {effect[-1]}'s, the last supplied in configured order "
        f"(HOOK-3): the target refuses hook {named[-1]}'s, which that later input replaces, "
        "and only the input in effect is judged"
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
    name, original = (_recorded(call_id, field, history) for field in ("name", "arguments"))
    if not isinstance(name, str):
        return None
    # A loop reading a false-ish value as no arguments reads [] so too: 1 tells it (round 10's
    # null read as {}, seeds 52, 54 and 57 of 50-69, read as EXE-5).
    falsy = _falsy_json(original)
    sent = "1" if falsy else "[]"
    judged = no_object_call_judged(
        call_id,
        name,
        _target_log(history, target_events),
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
            f"({_unregistered_probe_shows(judged, name, sent)})"
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
        return "EXE-2", f"{about}: {_falsy_read_as_empty(original, instead)}"
    if _blank_to_javascript_only(original):
        read = (
            "blank to JavaScript's trim alone: U+FEFF is not blank to Python's str.strip, so "
            "they are not {} but the raw string, no JSON object, where the target reads them as "
            "{}"
        )
    elif _object_only_when_lossy(original):
        read = f"{_LOSSY_JSON}, where the target reads them as an object"
    else:
        return None
    return "EXE-2", (
        f"{about}: the call's arguments are {read} and so judges the call's tool, which is not "
        f"registered (EXE-5): {json.dumps(_result_text(want))}; the target does check such a "
        f"tool's input ({told} INVALID_TOOL_INPUT)"
    )


def _result_rule(
    want: Event,
    got: Event | None,
    command: Command,
    phase: str,
    history: Sequence[Event],
    *,
    config: LoopConfig | None = None,
    program: Sequence[Command] = (),
    target_events: Sequence[Event] = (),
    probe: Probe | None = None,
) -> tuple[str, str]:
    """Which rule prescribes the result the model commits here (its text, error, meta);
    `config`, when given, says which keys the call's tool requires; `program` the commands up
    to this one; `target_events` what the target appended for it, and `probe` sends it more
    where only that tells two bugs apart."""
    call_id = call_id_of(want)
    code = (data_of(want).get("error") or {}).get("code")
    text = json.dumps(data_of(want).get("message", {}).get("content"))
    situation = _situation(call_id, history)
    about = f"the result of call {call_id}"
    their_code = error_code(got)  # a target may write `error` as another JSON type
    got_error = data_of(got).get("error")
    spec = None if config is None else config.tool(str(_recorded(call_id, "name", history)))
    required = () if spec is None else spec.required_keys
    unregistered = config is not None and spec is None
    if _parsed_otherwise(
        code, their_code, got, situation.original, required, unregistered=unregistered
    ):
        return "EXE-2", (
            f"{about} differs: the call's arguments parse to another value here (blank means "
            "{}, blank as Python's str.strip reads it, which JavaScript's trim does not)"
        )
    if code == "INVALID_TOOL_INPUT" and their_code == "ABORTED_BEFORE_DISPATCH":
        # Judged at the gate, yet found unstarted by the abort: the target held the call at the
        # gate for a slot, or its abort answered a call already judged (it read as EXE-2).
        return "EXE-5", (
            f"{about} differs: a call with invalid input passes the gate without waiting for a "
            f"free slot, its INVALID_TOOL_INPUT result ready at once, so an abort that lands "
            f"later finds call {call_id} judged, not unstarted, and keeps that result, "
            f"{json.dumps(_result_text(want))}, where the target answers it "
            "ABORTED_BEFORE_DISPATCH"
        )
    if (
        code in _LOOP_ERROR_CODES
        and got is not None
        and got_error is None
        and _content(got) == _content(want)
    ):
        # Worded as the error it is, but without its {name, code}: the verdict is right and
        # only TEXT-1's error info is missing (it read as a wrong verdict, EXE-5 or ABORT-1).
        # Another code is another verdict, and stays that verdict's rule's.
        error = data_of(want).get("error") or {}
        return "TEXT-1", (
            f"{about} differs: the target words it as the {code} error it is, but writes no "
            "error info: an error result the loop writes itself carries its SPEC.md section 9 "
            f'row\'s {{name, code}}, here {{"name": "{error.get("name")}", "code": "{code}"}}, as '
            "tool/result.error"
        )
    held = _held_by_approval(call_id, history)
    refused = _is_refusal(got)
    if (
        code == "ABORTED_BEFORE_DISPATCH"
        and held is not None
        and (refused or their_code == "UNKNOWN_TOOL")
    ):
        # Refused calls pass the gate without a slot, but never past a pending approval: one
        # the target answered as refused, or as an unknown tool, had passed it early (or its
        # abort drain skips them). No earlier call runs: the approval, not the cap, held it.
        return "ABORT-1", (
            f"{about} differs: after an abort it is an {code} error: call {held}'s pending "
            "approval held the gate, which no later call passes, not even a denied or invalid "
            f"one (SCHED-2), so the abort found call {call_id} not started, where the target "
            + ("answers it as refused" if refused else "answers it UNKNOWN_TOOL")
            + f". Two bugs give this result, and no log tells them apart: call {call_id} passed "
            f"the gate while call {held}'s approval was pending (SCHED-2), or the abort answers "
            f"a call still behind the gate with its verdict, not {code} (ABORT-1); either way "
            f"its result commits only after call {held}'s (ORD-3), so nothing shows before the "
            "abort. Look at the gate first (SCHED-2): a loop that answers a denied, invalid or "
            "unknown tool's call as soon as its hooks decide, not waiting for an approval "
            "ahead of it, gives this; if yours holds the call there, fix the abort's drain "
            f"(ABORT-1, named here as the rule of the result that differs), which answers a "
            "call still waiting with its verdict"
        )
    if code == "ABORTED_BEFORE_DISPATCH" and error_code(got) == "UNKNOWN_TOOL":
        # The target started the call before its turn: SCHED-1 counts a tool the
        # configuration lacks as exclusive, whether the target let exclusive calls pass
        # running safe ones or answered unknown tools at the gate.
        return "SCHED-1", (
            f"{about} differs: a call whose tool is not registered is an exclusive call, which "
            "starts only when no earlier call runs, and ends UNKNOWN_TOOL only then, where its "
            "body would start (EXE-5), so the abort found it not started: an "
            "ABORTED_BEFORE_DISPATCH error (ABORT-1)"
        )
    if (
        code == "ABORTED"
        and isinstance(command, ToolFinishes)
        and isinstance(command.outcome, ToolSucceeded)
        and not _is_error(got)
    ):
        # The target reports the success: "after an abort it is an ABORTED error" did not
        # say that the body settling after the abort is what makes it one.
        return "ABORT-1", (
            f"{about} differs: its body settled after the abort, and a success that lands "
            "after an abort is not reported as one: it becomes an ABORTED error, "
            f"{json.dumps(_result_text(want))}, where the target keeps the success"
        )
    if code in ("ABORTED_BEFORE_DISPATCH", "ABORTED") and their_code == code:
        # The abort's verdict, in other words: "after an abort it is an ABORTED error" told a
        # loop whose result is one to reread the drain (round 18, Claude Code #86001: a call
        # interrupted while it ran, told the user rejected it). The texts are TEXT-1's.
        if _result_text(got) == _result_text(want):
            # The text is section 9's: only the error info's name differs, which the words
            # on the text sent its author to reread the text.
            return "TEXT-1", (
                f"{about} differs: the target ends it as the {code} error it is (ABORT-1), in "
                "SPEC.md section 9's words, but its error info's name is "
                f"{json.dumps(_error_name(got))} where section 9's row names it "
                f"{json.dumps(_error_name(want))}"
            )
        return "TEXT-1", (
            f"{about} differs: the target ends it as the {code} error it is (ABORT-1), but not "
            f"as SPEC.md section 9 words it: the text {json.dumps(_result_text(want))}"
            + _approval_words_for_an_abort(got)
        )
    if code in ("ABORTED_BEFORE_DISPATCH", "ABORTED"):
        return "ABORT-1", f"{about} differs: after an abort it is an {code} error"
    if code in ("TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED") and their_code == code:
        # The right repair in other words: "answers it with a TOOL_OUTCOME_UNKNOWN error" sent
        # its author to the choice of code, which was right.
        return "REC-1", (
            f"{about} differs: the target's crash repair answers it with the {code} error it "
            f"is, but not as SPEC.md section 9 words it: the text "
            f"{json.dumps(_result_text(want))}, the error name "
            f"{(data_of(want).get('error') or {}).get('name')}"
        )
    if code in ("TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED"):
        return "REC-1", f"{about} differs: crash repair answers it with a {code} error"
    lossy = _object_only_when_lossy(situation.original) or _object_only_when_lossy(
        _arguments_sent(call_id, command)
    )
    if code == "INVALID_TOOL_INPUT" and their_code == "UNKNOWN_TOOL" and lossy:
        # A call of a tool that is not registered, whose arguments only a lossy reader takes
        # for an object: the target judged them an object (EXE-2), then the tool unknown as
        # it must (EXE-5). Blamed on EXE-5, a loop reading 1e400 as a number was sent to
        # reread the order calls are judged in.
        return "EXE-2", (
            f"{about} differs: the call's arguments are {_LOSSY_JSON}, where the target "
            "reads them as an object and so judges the call's tool, which is not registered "
            f"(EXE-5): {json.dumps(_result_text(want))}; {_OR_UNCHECKED}"
        )
    if (
        code == "INVALID_TOOL_INPUT"
        and their_code == "UNKNOWN_TOOL"
        and _blank_to_javascript_only(situation.original)
    ):
        # No probe could tell the readings apart (calls still run): said as the lossy ones
        # are, EXE-2 first; a program cut down until a probe can tell keeps EXE-5 where it does.
        return "EXE-2", (
            f"{about} differs: the call's arguments are blank to JavaScript's trim alone: U+FEFF "
            "is not blank to Python's str.strip, so they are not {} but the raw string, no JSON "
            "object, where the target reads them as {} and so judges the call's tool, which is "
            f"not registered (EXE-5): {json.dumps(_result_text(want))}; {_OR_UNCHECKED}"
        )
    if code == "INVALID_TOOL_INPUT" and their_code == "UNKNOWN_TOOL":
        return "EXE-5", (
            f"{about} differs: invalid input is reported before an unknown tool (arguments "
            "that are not a JSON object, also those a tool that is not registered gets)"
        )
    if (
        code == "INVALID_TOOL_INPUT"
        and got is not None
        and _input_problem(want) != _input_problem(got)
    ):
        if lossy:
            return "EXE-2", (
                f"{about} differs: the call's arguments are {_LOSSY_JSON}, where the target "
                f"reads them as an object: {json.dumps(_result_text(want))}"
            )
        return "EXE-2", (
            f"{about} differs: the call's arguments parse to another value here "
            "(blank means {}, invalid JSON stays the raw string)"
            + (_BLANK_TO_PYTHON_ONLY if _blank_to_python_only(situation.original) else "")
        )
    if code in ("INVALID_TOOL_INPUT", "UNKNOWN_TOOL") and their_code == code:
        # The target judged the call as the model did (EXE-5 kept); only the words or the
        # error's name differ, which are TEXT-1's ("The texts are TEXT-1's", EXE-5 says).
        # Blamed on EXE-5, a loop with the right verdict in its own words was sent to reread
        # the order calls are judged in.
        return "TEXT-1", (
            f"{about} differs: the target ends it as the {code} error it is (EXE-5), but not as "
            f"SPEC.md section 9 words it: the text {json.dumps(_result_text(want))}, the "
            f"error name {(data_of(want).get('error') or {}).get('name')}"
            + _keys_quoted_otherwise(want, got)
        )
    if code in ("INVALID_TOOL_INPUT", "UNKNOWN_TOOL"):
        return "EXE-5", f"{about} differs: a call the tool cannot take ends as an {code} error"
    body_error = _body_error_words(want, got)
    kept = (
        _failure_info_kept_by_a_block(want, got, command, program, config)
        if situation.post_blocked
        else None
    )
    if kept is not None:
        return "DEC-3", f"{about} differs in its error info: {kept}"
    if situation.post_blocked and body_error is not None:
        # The block reasons are the content, as the model's: only the body's error info
        # differs (it read as the block not applied).
        return "EXE-4", f"{about} differs in its error info: {body_error}"
    if situation.post_blocked:
        return "DEC-3", (
            f"{about} differs: a PostToolUse block replaces it with the block reasons"
            f"{_block_reasons_counted(want, got)}{_meta_kept_by_a_block(want, got)}"
            f"{_judged_after_the_abort(want, command, history)}"
        )
    worded_otherwise = _refused_rewrite_worded_otherwise(want, got)
    if worded_otherwise is not None:
        # The target refused the same hook's input for the same missing keys: only their
        # listing differs, TEXT-1's (it read as HOOK-6, which the target kept).
        return "TEXT-1", (
            f"{about} differs: the target refuses the hook's input as the model does (HOOK-6), "
            f"but not as SPEC.md section 9 words it: the text {json.dumps(_result_text(want))}"
            f"{worded_otherwise}"
        )
    if REWRITE_REFUSED_WORDS in text:
        return "HOOK-6", (
            f"{about} differs: an unacceptable rewrite denies the call naming the hook"
            + _earlier_input_refused(want, got, situation)
        )
    if "deny" in situation.hook_decisions and REWRITE_REFUSED_WORDS in _result_text(got):
        # The target judged an input a deny discards: its reason named it, read as a wrong
        # denial reason (DEC-1) where the deny did not win or did not discard the input.
        answers = _pre_answers(call_id, history)
        denying = [hook for hook, reading, _ in answers if reading == "deny"]
        refusal = _result_text(got)
        asked = [
            hook
            for hook, reading, supplied in answers
            if reading == "ask" and supplied and f"hook {hook} " in refusal
        ]
        said = (
            f"{about} differs: the target refuses an input a hook supplied "
            f"({json.dumps(refusal)}), but {_named(denying)} denied call {call_id}: a "
            "deny discards every rewrite, so no input is judged and the result is the denial, "
            f"{json.dumps(_result_text(want))}"
        )
        # The probe sends the target a call: only when an ask's input is the one refused.
        merged = (
            merge_without_the_askers_input(
                call_id,
                {hook: reading for hook, reading, _supplied in answers},
                _target_log(history, target_events),
                config,
                probe,
            )
            if asked
            else None
        )
        if asked and merged == "asked":
            return "HOOK-2", (
                f"{said}. Hook {asked[0]}, whose input the target refuses, asked: the target's "
                "merge lets the ask outrank the deny, as the same call sent after it to tell "
                "shows (its hooks answering alike, the asking one with no input: the target "
                "asked the user about it), where a deny outranks every other answer (deny > "
                "ask > allow > pass) and discards every input a hook supplied"
            )
        if asked and merged == "denied":
            return "HOOK-3", (
                f"{said}: the target keeps a denied call's rewrite and judges it (the same call "
                "sent after it to tell, the same hooks answering alike but the asking one "
                f"supplying no input, was denied, so the merge is right: the input hook "
                f"{asked[0]} supplied is what the deny must discard)"
            )
        if asked:
            # The refused input is an ask's: a merge letting the ask win goes on with it just
            # as a loop keeping a denied call's rewrite does; a valid input would tell.
            return "HOOK-3", (
                f"{said}. Hook {asked[0]}, whose input the target refuses, asked: a loop whose "
                "merge lets an ask outrank a deny (HOOK-2: deny > ask > allow > pass) goes on "
                "with its input and judges it, and so does one keeping a denied call's rewrite "
                "(HOOK-3); this program cannot tell them apart, but one where the asking hook's "
                "input is valid does: the first loop asks the user about the call, the second "
                "denies it and records the input"
            )
        return "HOOK-3", (
            f"{said}; a loop judges it when its merge does not make the call denied (HOOK-2: "
            "deny > ask > allow > pass) or it keeps a denied call's rewrite"
        )
    if (
        "deny" in situation.hook_decisions
        and got_error is not None
        and data_of(want).get("error") is None
        and _content(got) == _content(want)
    ):
        # Worded as the denial it is, with error info added (a loop writing {name, code} on
        # every error result): the words below spoke of the text, which is right.
        denying = [hook for hook, reading, _ in _pre_answers(call_id, history) if reading == "deny"]
        return "DEC-1", (
            f"{about} differs in its error info: the target writes {json.dumps(got_error)} as "
            f"tool/result.error, but the denying {_named(denying)} denied call {call_id}, which "
            "never ran: a denied call's result is one text block Error: <reason> and carries "
            "no error info"
        )
    if "deny" in situation.hook_decisions and their_code == "ABORTED_BEFORE_DISPATCH":
        # Denied, yet found unstarted by the abort: the target held the denied call at the
        # gate until a slot was free (its words read as a wrong reason).
        found = (
            f"{about} differs: a denied call passes the gate without waiting for a free slot, "
            f"its denial ready at once, so an abort that lands later finds call {call_id} "
            f"denied, not unstarted, and keeps that result, {json.dumps(_result_text(want))}, "
            "where the target answers it ABORTED_BEFORE_DISPATCH"
        )
        overwritten = (
            "its abort answers a call already judged (its result ready, waiting for an "
            "earlier call's to commit) as unstarted"
        )
        slots = _slot_free_for(call_id, history, config)
        if slots is not None:
            return "DEC-1", (
                f"{found}: call {call_id} had a free slot when it was denied ({slots} slots, "
                f"concurrency-safe calls), so the target's {overwritten.removeprefix('its ')}"
            )
        return "DEC-1", (
            f"{found}: the target held call {call_id} at the gate for a free slot, or "
            f"{overwritten}" + (_ASK_OUTRANKING_DENY if "ask" in situation.hook_decisions else "")
        )
    gate_error = their_code if their_code in ("UNKNOWN_TOOL", "INVALID_TOOL_INPUT") else None
    passed = _denied_yet_run(call_id, want, history, frozenset(), refused_at_gate=gate_error)
    if passed is not None:
        # Ended as a call no hook denied is where its body would start: the merge or the
        # deny's reading is wrong, not the reason's words (round 18's last-one-wins merge).
        return passed[0], f"{about} differs: {passed[1]}"
    if "deny" in situation.hook_decisions:
        # Several denying hooks: their reasons are joined (HOOK-2), unless only the
        # `Error: ` prefix every denial carries is wrong, or none gave a reason, so there was
        # nothing to join and the result says `denied`, or every reason is there joined
        # another way (DEC-1 states the separator and the order).
        theirs = json.dumps(data_of(got).get("message", {}).get("content")) if got else ""
        prefix_only = theirs == text.replace('"Error: ', '"', 1)
        unreasoned = json.dumps(ERROR_PREFIX + DENIED_WITHOUT_REASON) in text
        if not unreasoned and _result_text(got) == ERROR_PREFIX + DENIED_WITHOUT_REASON:
            # A reason dropped: a loop trimming reasons says `denied` for one of whitespace.
            given = _result_text(want).removeprefix(ERROR_PREFIX)
            which = "a denying hook's reason of whitespace is a reason (not empty)"
            if given.strip():
                which = "the result carries the denying hooks' reasons"
            return "DEC-1", (
                f"{about} differs: it is {json.dumps(_result_text(want))}: {which}, and the "
                f"result says {spelled(DENIED_WITHOUT_REASON)} only when no denying hook gave one"
            )
        if situation.hook_decisions.count("deny") > 1 and not (prefix_only or unreasoned):
            if _every_reason_given(want, got):
                return "DEC-1", (
                    f"{about} differs: the denying hooks' reasons are joined with "
                    f"{spelled(REASON_SEPARATOR)}, in configured order"
                )
            return "HOOK-2", f"{about} differs: the reasons of every denying hook are joined"
        denying = [hook for hook, reading, _ in _pre_answers(call_id, history) if reading == "deny"]
        given = _result_text(want).removeprefix(ERROR_PREFIX)
        trimmed = (
            f"; the target's is the reason trimmed ({json.dumps(_result_text(got))}): a "
            "reason is kept as the hook gave it, whitespace at its ends too"
            if given != given.strip() and _result_text(got) == ERROR_PREFIX + given.strip()
            else ""
        )
        return "DEC-1", (
            f"{about} differs: a denied call's result is one text block Error: <reason>, the "
            f"reason the non-empty reasons of the denying {_named(denying)} joined by "
            f"{spelled(REASON_SEPARATOR)} in configured order (no other hook's), or "
            f"{spelled(DENIED_WITHOUT_REASON)} when none gave one{trimmed}"
        )
    if situation.approval in APPROVAL_DENIALS:
        tool = _tool_named(call_id, history)
        words = APPROVAL_DENIALS[situation.approval].format(tool=tool)
        return "DEC-2", (
            f"{about} differs: an approval answered {situation.approval} ends the call with its "
            f"own words, {json.dumps(ERROR_PREFIX + words)}"
        )
    if their_code in ("ABORTED", "ABORTED_BEFORE_DISPATCH"):
        # The model's result is the body's own (or a refusal's): the target aborted a call the
        # abort leaves alone, such as one whose body finished before it, awaiting its turn, or
        # failed after it.
        failed_now = (
            isinstance(command, ToolFinishes)
            and command.call_id == call_id
            and isinstance(command.outcome, ToolFailed)
        )
        kept = (
            "a body that fails after the abort keeps its failure, its message and "
            "{name, code} as without one"
            if failed_now
            else "a body that finished before the abort keeps its result"
        )
        return "ABORT-1", (
            f"{about} differs: the target gives it an {their_code} error, but a call that "
            f"started is never aborted before dispatch, and {kept} (only a success that lands "
            "after it is ABORTED)"
        )
    if body_error is not None:
        return "EXE-4", f"{about} differs in its error info: {body_error}"
    if isinstance(command, ToolFinishes) and command.call_id == call_id:
        if _context_in_result(command, want, got):
            return "ADJ-4", (
                f"{about} differs: it carries a PostToolUse hook's context, which waits for "
                "the next step's start as a message of its own"
            )
        blocked = _blocked_by(command)
        if blocked is not None:
            return "DEC-3", f"{about} differs: {blocked}"
        how = (
            None
            if got is None
            else message_text_change(
                _positional(normalized_event(want)), _positional(normalized_event(got))
            )
        )
        changed = "" if how is None else f", code point for code point, where the target's is {how}"
        if isinstance(command.outcome, ToolFailed):
            return "EXE-4", f"{about} differs: a failed body's result is Error: <message>{changed}"
        return "EXE-4", f"{about} differs from what the body returned{changed}"
    return "EXE-4", f"{about} differs from its settled outcome"


def _approval_words_for_an_abort(got: Event | None) -> str:
    """Words saying the target's text is an approval's answer, when it is one ("" otherwise):
    an abort stops a call, which no one rejected, and the model reading it so apologizes for
    a refusal that never came."""
    text = _result_text(got) if got is not None else ""
    for outcome, words in APPROVAL_DENIALS.items():
        before, _, after = words.partition("{tool}")
        if text.startswith(ERROR_PREFIX + before) and text.endswith(after):
            return (
                f", where the target's is the words of an approval answered {outcome}: the "
                "abort stopped the call, nobody refused it"
            )
    return ""


_MESSAGE_KINDS = frozenset({"user/message", "assistant/message", "tool/result"})


def _message_of(event: Event) -> dict[str, Any]:
    """The message an event of `_MESSAGE_KINDS` carries: a user/message's data is the message
    itself, the others hold it as `data.message`."""
    data = data_of(event)
    if event.get("type") == "user/message":
        return data
    message = data.get("message")
    return message if isinstance(message, dict) else {}


def _member_left_out(want: Event, got: Event) -> str | None:
    """Words on a member the model's message holds and the message `got` carries lacks (`role`
    or `id`: a reader gives a message its role, and an id is free, so neither is missed at
    reading), and on the keys it holds in its place, which no message has (a key misspelt).
    None when it lacks none."""
    mine, theirs = _message_of(want), _message_of(got)
    missing = sorted(set(mine) - set(theirs))
    unknown = sorted(set(theirs) - set(mine))
    if not missing:
        return None
    where = "message" if want.get("type") == "user/message" else "message (data.message)"
    held = (
        f" and holds {_listed(unknown)}, which no message has (a key misspelt?)" if unknown else ""
    )
    return (
        f"the target's {where} lacks {_listed(missing)}{held}: a message's members are "
        f"{_listed(sorted(mine))}, each required of a conformance target (`loopspec schema`; "
        "LOG-4: an event missing a field is refused)"
    )


def _unknown_members(want: Event, got: Event) -> str | None:
    """Words on the members the target's event `got` holds that its type does not define
    (`without_unknown_members`), when they alone make it differ from the model's `want`; None
    otherwise."""
    stripped, found = without_unknown_members(want, got)
    if not found or _positional(normalized_event(stripped)) != _positional(normalized_event(want)):
        return None
    kind = want.get("type")
    held = found[0] if len(found) == 1 else f"{', '.join(found[:-1])} and {found[-1]}"
    which = "a member" if len(found) == 1 else "members"
    return (
        f"the target's {kind} holds {held}, {which} no {kind} defines (a loop's own, or a key "
        "misspelt?): conform compares events member for member, so an event carries its "
        "type's members alone (LOG-4: an event's fields are its type's; a reader keeps a "
        "member it does not know, unread)"
    )


def _listed(keys: Sequence[str]) -> str:
    """`keys` quoted, joined with commas and a last `and`."""
    quoted = [json.dumps(key) for key in keys]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def _meta_kept_by_a_block(want: Event, got: Event | None) -> str:
    """Words saying a blocked result carries none of the body's meta, when the target's keeps
    it ("" otherwise): the block replaces the result whole (DEC-3)."""
    if "meta" in data_of(want) or got is None or "meta" not in data_of(got):
        return ""
    return (
        f", and carries none of the body's meta, where the target's result keeps "
        f"{json.dumps(data_of(got).get('meta'))}"
    )


def _block_reasons_counted(want: Event, got: Event | None) -> str:
    """Words on how many blocks a blocked result holds on each side, when that differs ("" when
    it does not): one per blocking hook that gave a reason (DEC-3)."""
    mine, theirs = _result_parts(want), _result_parts(got)
    if mine == theirs or mine < 2:
        return ""
    shown = ", ".join(
        json.dumps(block.get("text")) for block in _result_blocks(want) if isinstance(block, dict)
    )
    return (
        f", one text block for each blocking hook that gave one, in configured order: {mine} "
        f"here ({shown}), where the target's result holds {theirs}"
    )


def _blocked_by(command: ToolFinishes) -> str | None:
    """Why the result is the block reasons where a PostToolUse verdict of `command` blocks it;
    None when none does. The audit's word need not say block: a hook that failed under
    fail-closed blocks with the word error (HOOK-7), which a loop may take for no decision."""
    blocks = [verdict for verdict in command.post if isinstance(verdict, PostBlock)]
    if not blocks:
        return None
    failed = [v for v in blocks if v.audit is not None and v.audit.decision == "error"]
    return "a PostToolUse hook blocked it, so the block reasons replace it" + (
        ", a hook whose audit records error among them: a hook that failed under fail-closed "
        "blocks the result (HOOK-7), and its verdict, not its audit's word, is what the loop "
        "acts on"
        if failed
        else ""
    )


def _arguments_rule(
    want: Event,
    got: Event,
    history: Sequence[Event],
    target_events: Sequence[Event],
    config: LoopConfig | None = None,
    *,
    probe: Probe | None = None,
    executed: Sequence[tuple[str, str]] = (),
) -> tuple[str, str]:
    """Arguments differ in the audit record or the history: a rewrite, or how they parse.

    `target_events` is what the target appended for this command (its tool/call sidecars) and
    `executed` the bodies it ran in it;
    `config` the program's (None: not known), whose tools judge the inputs hooks supplied;
    `probe` tells a denied call's merge from its rewrite where an earlier call holds the gate.
    """
    call_ids = [call_id_of(want)] if want.get("type") == "tool/call" else _reply_call_ids(want)
    # SPEC's names, with the event a reader looks for in their own loop's code.
    where = (
        "audit record (tool/call)"
        if want.get("type") == "tool/call"
        else "model history (assistant/message)"
    )
    wanted, applied = _call_arguments(want), _call_arguments(got)
    # Each call's arguments as the target applied them, where its calls are the model's.
    theirs = dict(zip(call_ids, applied, strict=True)) if len(applied) == len(call_ids) else {}
    if len(wanted) == len(applied) == len(call_ids):  # judge the calls whose arguments differ
        differ = [c for c, w, a in zip(call_ids, wanted, applied, strict=True) if w != a]
        call_ids = differ or call_ids
    for call_id in call_ids:
        situation = _situation(call_id, history)
        rewrote = any(
            e.get("type") == "tool/call"
            and data_of(e).get("callId") == call_id
            and bool(data_of(e).get("rewrite"))
            for e in (got, *target_events)
        )
        denying = [hook for hook, reading, _ in _pre_answers(call_id, history) if reading == "deny"]
        if denying and call_id in theirs and theirs[call_id] != situation.original:
            # Any input applied to a denied call is the bug, whichever hook's it is: one asking
            # or allowing won the merge (HOOK-2), or the denial kept it (HOOK-3). Read as an
            # earlier rewrite winning, an ask outranking the deny was sent to HOOK-3's order.
            said = (
                f"the call's arguments in the {where} are a hook's input, but "
                f"{_named(denying)} denied call {call_id}: a deny discards every rewrite, so a "
                "denied call keeps the model's own arguments"
            )
            return _rewrite_on_a_denial(
                call_id,
                said,
                target_events,
                history,
                config=config,
                probe=probe,
                executed=executed,
            )
        patched = (
            _merged_not_earlier(
                call_id,
                situation,
                theirs,
                history=history,
                target_events=target_events,
                config=config,
                probe=probe,
            )
            if len(situation.supplied) >= 2
            else None
        )
        if patched is not None:
            return "RW-2", f"the call's arguments in the {where} are {patched}"
        if len(situation.supplied) >= 2 and _applied_earlier_rewrite(want, got, situation, rewrote):
            return "HOOK-3", "a rewrite other than the last one in configured order won" + (
                _earlier_winner(call_id, situation, theirs)
            )
        merged = _merged_rewrites(call_id, situation, theirs)
        if merged is not None:
            return "HOOK-3", f"the call's arguments in the {where} {merged}"
        if len(situation.supplied) >= 2 and _refused_earlier_rewrite(
            call_id, situation, target_events
        ):
            # The earlier input won and was refused, or every input was judged: one program.
            return "HOOK-3", (
                "a rewrite other than the last one in configured order won: the target refuses "
                f"the call for an input {_named(situation.suppliers[-1:])}'s replaces; only the "
                "input in effect, the last one supplied, is judged (HOOK-6), and it never loses "
                "to an earlier one"
            )
        refused = _refusal_applied(call_id, situation, theirs, where)
        judged = _replaced_input_judged(call_id, situation, theirs, history, config)
        # Both read the target's result for the call: fetched once, where either reads it (a
        # deny keeps `_acceptable_input_refused` from it, and `judged` is the other's); the
        # bodies it starts meanwhile tell whether a hook's input reached the run (RW-1).
        reads_the_result = (
            refused is None
            and _kept_the_models_arguments(call_id, situation, theirs)
            and ("deny" not in situation.hook_decisions or judged is not None)
        )
        probed_runs: list[tuple[str, str]] = []
        shown = (
            _shown_once_settled(call_id, target_events, config, probe, probed_runs)
            if reads_the_result
            else target_events
        )
        if refused is None:
            refused = _acceptable_input_refused(call_id, situation, theirs, where, shown)
            if refused is not None and judged is not None:
                refused += f" ({judged})"
        if refused is not None:
            return "HOOK-6", refused
        # Either reading of `judged` refuses the call naming the earlier hook; a target that
        # runs it unrefused applied the last input to execution alone (RW-1).
        if judged is not None and _refused_earlier_rewrite(call_id, situation, shown):
            return "HOOK-3", f"the call's arguments in the {where} are the model's: {judged}"
        if situation.supplied or situation.rewritten:
            # The model's own arguments kept: a later answer may have erased the input.
            kept = call_id in theirs and theirs[call_id] == situation.original
            dropped = _dropped_by_an_ask(call_id, history) if kept else None
            if dropped is not None:
                return "HOOK-3", f"the call's arguments in the {where} are the model's: {dropped}"
            erased = _not_erased_by_later(call_id, history) if kept else ""
            rounded = (
                None
                if kept
                else _number_rounded(
                    dict(zip(_reply_or_record_ids(want), wanted, strict=False)).get(call_id),
                    theirs.get(call_id),
                )
            )
            if rounded is not None:
                return "RW-2", (
                    f"the call's arguments in the {where} are the hook's input with {rounded}: "
                    "an input a hook supplied is recorded as the JSON value it gave, an integer "
                    "with every digit and a number with a fraction or an exponent as the same "
                    "double (write the number's own text back)"
                )
            printed = None if kept else _printed_not_encoded(call_id, situation, theirs)
            if printed is not None and not reads_the_result:
                # A call waiting behind an earlier one has not run yet: the run that agrees
                # comes once the calls before it settle (round 19's fmt.Sprint rewrite of a
                # bash call behind a read, seeds 66 to 68 of 50-69, read as RW-1).
                shown = _shown_once_settled(call_id, target_events, config, probe, probed_runs)
            if printed is not None and _every_reader_holds(
                call_id, printed, shown, (*executed, *probed_runs)
            ):
                return "RW-2", (
                    f"the call's arguments in the {where}, its tool/call and the arguments it "
                    f"runs with are {spelled(printed)}, no JSON, where "
                    f"{_named(situation.suppliers[-1:])} supplied {spelled(situation.supplied[-1])}"
                    ": an input a hook supplied is recorded as the JSON value it gave, written "
                    "by a JSON encoder, not as the language prints the value (Go's fmt.Sprint "
                    "of a map writes map[key:value])"
                )
            merged_in = None if kept else _merged_into_original(situation, theirs.get(call_id))
            if merged_in is not None:
                return "RW-2", (
                    f"the call's arguments in the {where} are {_named(situation.suppliers[-1:])}'s "
                    f"input merged into the model's arguments ({merged_in}): a hook's input "
                    "replaces the call's whole input, recorded as the JSON value it gave"
                )
            if kept and _every_reader_kept(call_id, situation, shown, (*executed, *probed_runs)):
                # Nothing disagrees (RW-1 holds): the input a hook supplied went nowhere.
                if erased:
                    return "HOOK-3", (
                        f"the call's arguments in the {where} are the model's, and the target "
                        f"runs them, or asks about them{erased}; a loop applying no hook's input "
                        "at all reads so too (RW-2)"
                    )
                return "RW-2", (
                    f"the call's arguments in the {where}, its tool/call and the arguments it "
                    f"runs with are the model's, where {_named(situation.suppliers[-1:])} "
                    "supplied an input: an input a hook supplied is either applied and recorded "
                    "(a rewrite sidecar naming the hook) or the call is refused, never dropped"
                )
            return (
                "RW-1",
                f"the call's arguments in the {where} are not the effective (rewritten) ones"
                + erased,
            )
    return "EXE-2", (
        f"the call's arguments in the {where} differ from the model's raw arguments "
        "(every reader takes them as the model wrote them)"
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
    answers = _pre_answers(call_id, history)
    logged = _target_log(history, target_events)
    fate = supplied_input_fate(call_id, answers, history, logged, config=config, probe=probe)
    supplier = _named([hook for hook, _reading, supplied in answers if supplied][-1:])
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
            erased = _not_erased_by_later(call_id, history)
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


def _merged_not_earlier(
    call_id: str | None,
    situation: _Situation,
    theirs: dict[str | None, Any],
    *,
    history: Sequence[Event],
    target_events: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> str | None:
    """Words for a target whose arguments for `call_id` are the last input a hook supplied
    merged into the model's arguments, where they also equal an earlier hook's input or the
    inputs merged key by key (HOOK-3's readings): the call made again, each earlier hook's
    input changed (`inputs_sent_again`), runs the last input merged into the model's arguments
    again (a patch, RW-2). None where it does not, or cannot be told."""
    applied = theirs.get(call_id)
    kept = _merged_into_original(situation, applied)
    last = situation.supplied[-1]
    if kept is None or not isinstance(situation.original, _Parsed):
        return None
    original = situation.original.value
    if not isinstance(original, dict) or not isinstance(last, dict):
        return None
    inputs: dict[str, object] = {hook: {**original, "probe": hook} for hook in situation.suppliers}
    inputs[situation.suppliers[-1]] = last
    shown = inputs_sent_again(
        call_id,
        _pre_answers(call_id, history),
        inputs,
        history,
        _target_log(history, target_events),
        config=config,
        probe=probe,
    )
    if shown is None or shown[0] != {**original, **last}:
        return None
    return (
        f"{_named(situation.suppliers[-1:])}'s input merged into the model's arguments ({kept}"
        f"; the call made again, sent to tell, each earlier hook's input changed, records that "
        "merge again): a hook's input replaces the call's whole input, recorded as the JSON "
        "value it gave"
    )


def _merged_into_original(situation: _Situation, applied: object) -> str | None:
    """The keys of the model's own arguments a target kept beside the last input a hook
    supplied, when its arguments are that input merged into them (a patch, not a replacement:
    Claude Code #30770 asked for one); None otherwise."""
    if not situation.supplied or not isinstance(applied, _Parsed):
        return None
    given, original = situation.supplied[-1], situation.original
    if not isinstance(given, dict) or not isinstance(original, _Parsed):
        return None
    if not isinstance(original.value, dict) or _Parsed({**original.value, **given}) != applied:
        return None
    kept = [key for key in original.value if key not in given]
    if not kept:
        return None
    return "the keys " + ", ".join(json.dumps(key) for key in kept) + " kept from the model's"


def _printed_not_encoded(
    call_id: str | None, situation: _Situation, theirs: dict[str | None, object]
) -> str | None:
    """The target's arguments for `call_id` where a hook supplied a JSON object and they are
    text no JSON reader takes (a language's own printing of the value), else None."""
    given = situation.supplied[-1] if situation.supplied else None
    shown = theirs.get(call_id)
    if not isinstance(given, dict | FrozenMap) or not isinstance(shown, str):
        return None
    try:
        json.loads(shown)
    except ValueError:
        return shown
    return None


def _every_reader_kept(
    call_id: str | None,
    situation: _Situation,
    target_events: Sequence[Event],
    executed: Sequence[tuple[str, str]],
) -> bool:
    """Whether the target's tool/call for `call_id` (when it wrote one in this command), its
    approval request (when it asked) and the body it ran in this command all hold the model's
    own arguments: every reader agrees (RW-1), the hook's input applied nowhere. False when
    the call neither ran nor was asked about in this command: an input applied to execution
    alone cannot be told apart."""
    return _every_reader_holds(call_id, situation.original, target_events, executed)


def _every_reader_holds(
    call_id: str | None,
    value: object,
    target_events: Sequence[Event],
    executed: Sequence[tuple[str, str]],
) -> bool:
    """Whether the target's tool/call for `call_id` (when it wrote one in this command), its
    approval request (when it asked) and the body it ran in this command all hold `value`
    (a parsed arguments value): every reader agrees (RW-1). False when the call neither ran
    nor was asked about in this command."""
    ran = [as_run_value(arguments) for ran_id, arguments in executed if ran_id == call_id]
    readers = [
        _as_value(data_of(event).get("arguments"))
        for event in target_events
        if event.get("type") in ("tool/call", "approval/asked")
        and data_of(event).get("callId") == call_id
    ]
    asked = any(
        event.get("type") == "approval/asked" and data_of(event).get("callId") == call_id
        for event in target_events
    )
    if len(ran) > 1 or not (ran or asked):
        return False
    return all(read == value for read in (*ran, *readers))


def _slot_free_for(
    call_id: str | None, history: Sequence[Event], config: LoopConfig | None
) -> int | None:
    """The parallel cap, when call `call_id` and every call before it in its reply are
    concurrency-safe and fewer than the cap: a slot was free for it whatever ran. None when
    that cannot be told or is not so."""
    if config is None:
        return None
    reply = next(
        (
            _reply_call_ids(event)
            for event in reversed(history)
            if event.get("type") == "assistant/message" and call_id in _reply_call_ids(event)
        ),
        [],
    )
    if call_id not in reply:
        return None
    up_to_it = reply[: reply.index(call_id) + 1]
    specs = [config.tool(str(_recorded(each, "name", history))) for each in up_to_it]
    if len(up_to_it) > config.max_parallel or not all(s and s.concurrency_safe for s in specs):
        return None
    return config.max_parallel


def _reply_call_ids(event: Event) -> list[str | None]:
    content = data_of(event).get("message", {}).get("content") or []
    return [b.get("id") for b in content if isinstance(b, dict) and b.get("type") == "tool-call"]


def _calls_named(event: Event) -> str:
    """A reply's calls, each as its id and tool name ("c1 read, c2 read"), or "none"."""
    content = data_of(event).get("message", {}).get("content") or []
    calls = [
        f"{b.get('id')} {b.get('name')}"
        for b in content
        if isinstance(b, dict) and b.get("type") == "tool-call"
    ]
    return ", ".join(calls) or "none"


def _reply_or_record_ids(event: Event) -> list[str | None]:
    """The call ids of a tool/call record, or of a reply's calls, in order."""
    if event.get("type") == "tool/call":
        return [call_id_of(event)]
    return list(_reply_call_ids(event))


def _number_rounded(wanted: object, applied: object) -> str | None:
    """`N written as M` for the first number that differs where the two arguments are
    otherwise the same JSON value (the same keys, items and strings), the applied one another
    number: a writer that rounds numbers (C's `%g`, six digits; a double for an integer); None
    otherwise."""
    if not (isinstance(wanted, _Parsed) and isinstance(applied, _Parsed)):
        return None
    found: list[str] = []

    def same_but_numbers(mine: object, theirs: object) -> bool:
        if isinstance(mine, dict) and isinstance(theirs, dict):
            return mine.keys() == theirs.keys() and all(
                same_but_numbers(mine[key], theirs[key]) for key in mine
            )
        if isinstance(mine, list) and isinstance(theirs, list):
            return len(mine) == len(theirs) and all(
                same_but_numbers(a, b) for a, b in zip(mine, theirs, strict=True)
            )
        numbers = (int, float)
        if (
            isinstance(mine, numbers)
            and isinstance(theirs, numbers)
            and not isinstance(mine, bool)
            and not isinstance(theirs, bool)
        ):
            if same_json(mine, theirs):
                return True
            try:
                close = math.isclose(mine, theirs, rel_tol=1e-5)
            except OverflowError:  # an integer past a double's range
                close = False
            if not close:  # another number, not a rounding
                return False
            if not found:
                found.append(f"{json.dumps(mine)} written as {json.dumps(theirs)}")
            return True
        return same_json(mine, theirs)

    if not same_but_numbers(wanted.value, applied.value) or not found:
        return None
    return found[0]


def _call_arguments(event: Event) -> list[Any]:
    data = data_of(event)
    if event.get("type") == "tool/call":
        raw = [data.get("arguments")]
    else:
        content = data.get("message", {}).get("content", [])
        raw = [b.get("arguments") for b in content if b.get("type") == "tool-call"]
    parsed: list[Any] = []
    for text in raw:
        parsed.append(_as_value(text))
    return parsed


def _refusal_applied(
    call_id: str | None, situation: _Situation, theirs: dict[str | None, Any], where: str
) -> str | None:
    """How the target applied an input the model refuses (HOOK-6): the call keeps the model's
    arguments (no sidecar, no deny) where the target's are the last input a hook supplied."""
    if situation.rewritten or not situation.supplied or "deny" in situation.hook_decisions:
        return None
    if call_id not in theirs or _Parsed(situation.supplied[-1]) != theirs[call_id]:
        return None
    return (
        f"the call's arguments in the {where} are the input {_named(situation.suppliers[-1:])} "
        "supplied, which its tool cannot take: such an input is refused, never applied; the "
        "call keeps the model's arguments in every reader and is denied with a reason naming "
        "the hook"
    )


def _kept_the_models_arguments(
    call_id: str | None, situation: _Situation, theirs: dict[str | None, Any]
) -> bool:
    """Whether hooks supplied an input for `call_id` and the target kept the model's arguments
    (as a refusal of the call does)."""
    return bool(situation.supplied) and call_id in theirs and theirs[call_id] == situation.original


def _shown_once_settled(
    call_id: str | None,
    target_events: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
    ran: list[tuple[str, str]] | None = None,
) -> list[Event]:
    """`target_events`, and where they hold no result for `call_id`, what the target appends
    once the calls before it settle (`_once_earlier_calls_settle`): a refusal held behind an
    earlier call still running (ORD-3) is fetched so, once (a second probe finds them settled).
    `ran` gathers the bodies the target starts meanwhile."""
    shown = list(target_events)
    if not result_for(call_id, shown):
        shown += _once_earlier_calls_settle(call_id, target_events, config, probe, ran)
    return shown


def _acceptable_input_refused(
    call_id: str | None,
    situation: _Situation,
    theirs: dict[str | None, Any],
    where: str,
    shown: Sequence[Event],
) -> str | None:
    """How the target refused an input the model applies (HOOK-6 the other way round): the
    call keeps the model's arguments and is denied as an unacceptable rewrite in the name of
    the hook whose input is in effect, which its tool takes (the model applies it). `shown`
    holds the call's result where the target gave one (`_shown_once_settled`)."""
    if "deny" in situation.hook_decisions or not _kept_the_models_arguments(
        call_id, situation, theirs
    ):
        return None
    refusal = ERROR_PREFIX + REWRITE_REFUSED.partition(" {tool}")[0]
    said = next(
        (
            _result_text(e)
            for e in shown
            if e.get("type") == "tool/result"
            and call_id_of(e) == call_id
            and _result_text(e).startswith(refusal.format(hook=situation.suppliers[-1]))
        ),
        None,
    )
    if said is None:
        return None
    supplied = situation.supplied[-1]
    nulls = (
        [key for key, value in supplied.items() if value is None]
        if isinstance(supplied, dict)
        else []
    )
    why = f" (a key given null is there: {', '.join(map(repr, nulls))})" if nulls else ""
    return (
        f"the call's arguments in the {where} are the model's: the target refuses the input "
        f"{_named(situation.suppliers[-1:])} supplied, {json.dumps(supplied, ensure_ascii=False)}, "
        f"saying {said!r}, but its tool takes it{why}: only an input the tool cannot take is "
        "refused; this one is applied and runs"
    )


def _refused_in_place(
    want: Event,
    got: Event,
    situation: _Situation,
    history: Sequence[Event],
    *,
    target_events: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> str | None:
    """`_acceptable_input_refused` for a tool/call whose input in effect equals the model's own
    arguments (so only the sidecar differs), with the input the target judged in its place."""
    call_id = call_id_of(want)
    theirs = dict(zip([call_id], _call_arguments(got), strict=False))
    where = "audit record (tool/call)"
    if "deny" in situation.hook_decisions or not _kept_the_models_arguments(
        call_id, situation, theirs
    ):
        return None  # no refusal to fetch: keep the probe's target as it is
    shown = _shown_once_settled(call_id, target_events, config, probe)
    refused = _acceptable_input_refused(call_id, situation, theirs, where, shown)
    judged = _replaced_input_judged(call_id, situation, theirs, history, config)
    return refused if refused is None or judged is None else f"{refused} ({judged})"


def _replaced_input_judged(
    call_id: str | None,
    situation: _Situation,
    theirs: dict[str | None, Any],
    history: Sequence[Event],
    config: LoopConfig | None,
) -> str | None:
    """Why the last input a hook supplied is in effect where the target kept the model's
    arguments, when an earlier hook supplied one its tool cannot take; None otherwise. The
    earlier input won (HOOK-3) or was judged though replaced (HOOK-6): one program shows both."""
    if config is None or not situation.rewritten or len(situation.supplied) < 2:
        return None
    if call_id not in theirs or theirs[call_id] != situation.original:
        return None
    name = next(
        (
            str(data_of(e).get("name"))
            for e in history
            if e.get("type") == "tool/call" and call_id_of(e) == call_id
        ),
        None,
    )
    if name is None:
        return None
    unacceptable = [
        hook
        for hook, value in zip(situation.suppliers[:-1], situation.supplied[:-1], strict=True)
        if input_problem(ToolCallBlock(str(call_id), name, json.dumps(value)), config)
    ]
    if not unacceptable:
        return None
    return (
        f"{_named(unacceptable)} supplied an input its tool cannot take, and "
        f"{_named(situation.suppliers[-1:])} a later one, which replaces it whatever either "
        "hook decided (the last input in configured order wins); only the input in effect is "
        "judged (HOOK-6), so the call runs the later input: an earlier input that wins, or "
        "one judged though replaced, refuses the call so"
    )


def _refused_earlier_rewrite(
    call_id: str | None, situation: _Situation, target_events: Sequence[Event]
) -> bool:
    """The target refused the call as an unacceptable rewrite (HOOK-6) naming a hook that
    supplied an input before the last one did: that earlier rewrite won, so the call kept its
    original arguments where the model applies the last hook's input."""
    refusal = ERROR_PREFIX + REWRITE_REFUSED.partition(" {tool}")[0]
    earlier = {refusal.format(hook=hook) for hook in situation.suppliers[:-1]}
    return any(
        e.get("type") == "tool/result"
        and call_id_of(e) == call_id
        and any(prefix in json.dumps(data_of(e).get("message")) for prefix in earlier)
        for e in target_events
    )


def _merged_rewrites(
    call_id: str | None, situation: _Situation, theirs: dict[str | None, Any]
) -> str | None:
    """How the target combined the inputs hooks supplied where its arguments are those inputs
    merged key by key (later keys winning), which the last input alone is not; None otherwise.
    A loop that lets each hook patch the input before it reads as arguments that are not the
    effective ones (RW-1), where the merge is what is wrong (HOOK-3)."""
    supplied = situation.supplied
    if len(supplied) < 2 or call_id not in theirs:
        return None
    if not all(isinstance(value, dict) for value in supplied):
        return None
    merged: dict[str, Any] = {}
    for value in supplied:
        merged.update(value)
    if merged == supplied[-1] or _Parsed(merged) != theirs[call_id]:
        return None
    return (
        f"are the inputs {_named(situation.suppliers)} supplied merged key by key: the last "
        f"input in configured order, {_named(situation.suppliers[-1:])}'s, replaces the "
        "arguments whole, and no key of an earlier input survives it"
    )


def _sidecar_reordered(
    want: Event,
    got: Event,
    *,
    history: Sequence[Event] = (),
    config: LoopConfig | None = None,
    probe: Probe | None = None,
) -> tuple[str, str] | None:
    """What the target's sidecar says wrongly, when it names the same hooks as the model's in
    another order and the call's arguments are the model's: the input in effect was applied,
    and only its record is wrong (RW-2); or, of three hooks or more, the record is the one an
    earlier hook's input in effect makes (equal to the last one's, so the arguments agree):
    that hook won (HOOK-3). Of two hooks, whose sidecars read alike either way, the call a
    probe makes with unequal inputs tells (`winner_shown`). None otherwise."""
    if _call_arguments(want) != _call_arguments(got):
        return None
    ours, theirs = (data_of(e).get("rewrite") for e in (want, got))
    if not (isinstance(ours, dict) and isinstance(theirs, dict)):
        return None
    wanted, recorded = ours.get("handlerIds"), theirs.get("handlerIds")
    if not (isinstance(wanted, list) and isinstance(recorded, list)):
        return None
    if wanted == recorded or sorted(map(str, wanted)) != sorted(map(str, recorded)):
        return None
    names = (
        f"the sidecar names the hooks that supplied an input as {json.dumps(recorded)}, where "
        f"they are {json.dumps(wanted)}: in configured order, the one in effect last"
    )
    winner = recorded[-1]
    if len(wanted) >= 3 and recorded == [*(h for h in wanted if h != winner), winner]:
        # The record of another winner, not a reordering (two hooks cannot tell: a sidecar
        # in reverse reads the same, RW-2).
        return "HOOK-3", (
            f"{names}; the target's is the sidecar of {_named([str(winner)])}'s input in "
            f"effect, where the last input supplied in configured order, "
            f"{_named(wanted[-1:])}'s, is (the two inputs are equal here, so the call's "
            "arguments agree)"
        )
    shown = winner_shown(want, [str(hook) for hook in wanted], history, config, probe)
    if shown is not None and shown != str(wanted[-1]):
        return "HOOK-3", (
            f"{names}; the target's is the sidecar of {_named([str(winner)])}'s input in "
            f"effect, where the last input supplied in configured order, "
            f"{_named(wanted[-1:])}'s, is (the two inputs are equal here, so the call's "
            f"arguments agree; a call sent after it to tell, given unequal inputs by the same "
            f"hooks, ran {_named([shown])}'s)"
        )
    if shown is not None:
        return "RW-2", (
            f"{names}; the call's arguments are the input in effect, {_named(wanted[-1:])}'s, "
            "and the target applies it (a call sent after it to tell, given unequal inputs by "
            f"the same hooks, ran {_named(wanted[-1:])}'s): only the record is in another order"
        )
    return "RW-2", (
        f"{names}; the call's arguments are the input in effect, {_named(wanted[-1:])}'s (had "
        f"an equal input of {_named(recorded[-1:])} won instead, the winner would be HOOK-3's)"
    )


def _earlier_winner(
    call_id: str | None, situation: _Situation, theirs: dict[str | None, Any]
) -> str:
    """Which earlier hook's input the target applied to `call_id`, in words (or nothing when
    its arguments are no earlier input): the last input supplied is in effect."""
    applied = theirs.get(call_id)
    earlier = [
        hook
        for hook, value in zip(situation.suppliers[:-1], situation.supplied[:-1], strict=True)
        if applied is not None and _Parsed(value) == applied
    ]
    if not earlier or not situation.suppliers:
        return ""
    return (
        f": call {call_id} runs the input {_named(earlier[:1])} supplied, where "
        f"{_named(situation.suppliers[-1:])}'s, the last supplied in configured order, is in "
        "effect, whatever order the hooks answered in"
    )


def _applied_earlier_rewrite(
    want: Event, got: Event, situation: _Situation, target_rewrote: bool
) -> bool:
    wanted, applied = _call_arguments(want), _call_arguments(got)
    earlier = situation.supplied[:-1]
    # Arguments equal to the model's own, when an earlier hook's identity rewrite supplied the
    # same value, are that rewrite winning only if the target says it applied a rewrite (its
    # tool/call has a sidecar); without one, no rewrite was applied at all (RW-1).
    if any(
        a != w
        and (a != situation.original or target_rewrote)
        and any(_Parsed(e) == a for e in earlier)
        for w, a in zip(wanted, applied, strict=False)
    ):
        return True
    # The hook in effect is a sidecar's last: one naming the same hook last, with other
    # suppliers before it, records the rewrites wrongly (RW-2) but applied the right one.
    sidecars = [data_of(e).get("rewrite") for e in (want, got) if e.get("type") == "tool/call"]
    handlers = [s.get("handlerIds") for s in sidecars if isinstance(s, dict)]
    lasts = [h[-1:] if isinstance(h, list) else h for h in handlers]
    return len(lasts) == 2 and lasts[0] != lasts[1]


def _delivered_elsewhere(
    want: Event, got: Event, history: Sequence[Event], target_events: Sequence[Event]
) -> bool:
    """Whether two user/messages changed places: the model delivers `got`'s, of that very
    content and source, elsewhere since the open turn's turn/start, and the target `want`'s
    elsewhere in this command (queued messages delivered in another order are ADJ-4's, not a
    text changed, TEXT-2's)."""
    if got.get("type") != "user/message":
        return False
    starts = [i for i, event in enumerate(history) if event.get("type") == "turn/start"]

    def holds(events: Sequence[Event], message: Event) -> bool:
        wanted = data_of(_positional(normalized_event(message)))
        return any(
            event.get("type") == "user/message"
            and data_of(_positional(normalized_event(event))) == wanted
            for event in events
        )

    return holds(history[starts[-1] if starts else 0 :], got) and holds(target_events, want)


def _message_words(message: Event) -> str:
    """A user/message in words: its one text, spelled, or its blocks' count."""
    text = message_text(message)
    if text is not None:
        return spelled(text)
    return f"{len(data_of(message).get('content') or [])} blocks"


def _source_of(event: Event) -> object:
    """The `source` of the message an event carries (`data` itself for a user/message)."""
    data = data_of(event)
    message = data if event.get("type") == "user/message" else data.get("message")
    return message.get("source") if isinstance(message, dict) else None


def _without_source(event: Event) -> Event:
    data = dict(data_of(event))
    if event.get("type") == "user/message":
        data.pop("source", None)
    elif isinstance(data.get("message"), dict):
        data["message"] = {k: v for k, v in data["message"].items() if k != "source"}
    return {**event, "data": data}


def _source_rule(want: Event, got: Event) -> tuple[str, str] | None:
    """TEXT-2 when two message events differ in the message's `source` and in nothing else: who
    a message is from is part of the contract (a reply names the configured provider and model,
    a tool result its call, a queued context the `tool-context` plugin). An event that also
    differs elsewhere is left to the rule that prescribes the rest."""
    mine, theirs = _source_of(want), _source_of(got)
    if mine == theirs or _without_source(want) != _without_source(got):
        return None
    return "TEXT-2", (
        f"{want.get('type')}'s source is {json.dumps(theirs)} where the model's is "
        f"{json.dumps(mine)}"
    )


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


def _reading(point: object, word: object) -> str | None:
    """The verdict a hook/result's decision word reads as (HOOK-1), or None for a word that may
    go with more than one (`error` and `stop`: a hook that failed or stopped, its answer passing
    or blocking) or for no word at all."""
    if word in DENYING_DECISIONS:
        return "a block" if point == "PostToolUse" else "a deny"
    if word in ASKING_DECISIONS:
        return "an ask"
    if word in ("allow", "approve"):
        return "no block" if point == "PostToolUse" else "an allow"
    if word == "pass":
        return "no block" if point == "PostToolUse" else "a pass"
    return None


def hook_audit_rule(event: Event) -> str:
    """The rule of a hook audit event: HOOK-4 for a PreToolUse hook's, HOOK-5 for a
    PostToolUse hook's (what `loopspec conform` counts as checked by comparing it)."""
    return "HOOK-4" if data_of(event).get("point") == "PreToolUse" else "HOOK-5"


def _changed(
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
    kind = str(want.get("type"))
    mine, theirs = data_of(normalized_event(want)), data_of(normalized_event(got))
    fields = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    named = f"{kind} differs in {', '.join(fields) or 'its envelope'}"
    unknown = _unknown_members(want, got)
    if unknown is not None:
        # Only members its type does not define: how the event is written, not what it says
        # (a user/message's read as ADJ-4's queue order, a tool/call's as RW-2's sidecar).
        return "LOG-4", f"{named}: {unknown}"
    refused = (
        _context_of_a_refused_outcome(got, config, program)
        if kind == "user/message" and not _empty_context(got)
        else None
    )
    if refused is not None:
        # Delivered where the model delivers another message (the user's, opening the next
        # turn): the context is the refused outcome's, not the queue's order (it read as ADJ-4).
        return "MODEL-3", f"{named}: the target delivers a message the model does not: {refused}"
    if kind in ("user/message", "assistant/message", "tool/result"):
        wrong_source = _source_rule(
            _positional(normalized_event(want)), _positional(normalized_event(got))
        )
        if wrong_source is not None:
            return wrong_source
    left_out = _member_left_out(want, got) if kind in _MESSAGE_KINDS else None
    if left_out is not None:
        # A member left out (or written under a misspelt key): the message's members, not the
        # queue's order (ADJ-4) nor the reply's blocks (STEP-4), which these were read as.
        return "LOG-4", f"{named}: {left_out}"
    moved = _delivered_elsewhere(want, got, history, target_events)
    if kind in ("user/message", "assistant/message") and not moved:
        how = message_text_change(
            _positional(normalized_event(want)), _positional(normalized_event(got))
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
            taken = _cause_of_a_refused_abort(want, got, program)
            alike = None if taken is None else _every_abort_recorded_as(got, probe)
            if taken is not None and alike is None:
                return "MODEL-3", f"{named}: {taken}"
            rule, words = _turn_end_rule(want, got, command, phase)
            return rule, words if alike is None else f"{words}; {alike}"
        case "user/message" if _context_of_a_block(got, command, hooks=False):
            return "DEC-3", f"{named}: a PostToolUse block drops the body's own contexts"
        case "user/message" if (
            _left_out(want, target_events, history)
            and (
                _context_of_a_block(want, command, hooks=True)
                or _lost_after_a_block_with_context(want, history)
            )
            and blank_context_trimmed(want, command, history, config, probe)
        ):
            return "ADJ-4", _WHITESPACE_CONTEXT.format(lacks=named) + _TRIMMED_TOO
        case "user/message" if _left_out(want, target_events, history) and (
            _context_of_a_block(want, command, hooks=True)
            or _lost_after_a_block_with_context(want, history)
        ):
            return "DEC-3", (
                f"{named}: the target leaves out a context a PostToolUse hook of a blocked result "
                "gave; a block drops the body's own contexts, never its hooks'"
            )
        case "user/message" if _block_types(want) is not None and _block_types(got) is None:
            # No list at all (an in-process loop's content written as its text): the member's
            # type, as the target's own log is read (it said "the target's blocks are null").
            return "LOG-4", (
                f"{named}: {member_problem(data_of(got), 'content', 'data', 'an array')} of "
                f"blocks, where the target's is {_excerpt_json(data_of(got).get('content'))}"
            )
        case "user/message" if (
            not moved and _block_types(want) == ["text"] and _holds_no_text_alone(got)
        ):
            # The message in its place, its content no text block (the tutorial's loop writing
            # {"type": "tex"}): TEXT-2's, where the fallback below read a queue's order (ADJ-4).
            # (Text blocks merged into one message stay ADJ-4's: contexts given as one.)
            return "TEXT-2", (
                f"{named}: a message of the user's or a queued context is one text block, where "
                f"the target's blocks are {json.dumps(_block_types(got))}"
            )
        case "user/message" if _empty_context(got) and not _empty_context(want):
            return "ADJ-4", f"{named}: the target's is {_NO_CONTEXT}"
        case "user/message" if (
            aborted := _context_of_an_aborted_success(got, program, history)
        ) is not None:
            return "ADJ-4", (
                f"{named}: the target delivers {_message_words(got)}, a context that call "
                f"{aborted}'s body gave when it settled after the abort, where its result is the "
                "abort's (ABORTED) and queues nothing of the body's: a call's contexts join the "
                "queue when its result commits, not when its body finishes"
            )
        case "user/message":
            contexts = all(
                _source_of(event) == {"kind": "plugin", "plugin": "tool-context"}
                for event in (want, got)
            )
            ended = _parking_turn_end(target_events, history)
            order = (
                f" (the target's message here, {_message_words(got)}, is one the model "
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
                + _parked_words(want, got, ended)
            )
        case "assistant/message":
            if _call_arguments(want) != _call_arguments(got) or _reply_call_ids(
                want
            ) != _reply_call_ids(got):
                if _reply_call_ids(want) != _reply_call_ids(got):
                    if isinstance(command, ModelReplies) and command.finish != "completed":
                        # A cancelled reply's calls are ABORT-2's; a cut one's STEP-4's.
                        return _reply_end_rule(command), (
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
                return _arguments_rule(
                    want, got, history, target_events, config, probe=probe, executed=executed
                )
            if "interrupted" in fields or isinstance(command, Abort):
                return "ABORT-2", f"{named}: an interrupted reply keeps only its delivered text"
            if isinstance(command, ModelReplies) and command.finish == "cancelled":
                blank = f" ({_BLANK_AS_EXE_2})" if _holds_blank_text(command) else ""
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
                return _arguments_rule(
                    want, got, history, target_events, config, probe=probe, executed=executed
                )
            situation = _situation(call_id_of(want), history)
            rewrote = bool(data_of(got).get("rewrite"))
            if len(situation.supplied) >= 2 and _applied_earlier_rewrite(
                want, got, situation, rewrote
            ):
                reordered = _sidecar_reordered(
                    want, got, history=history, config=config, probe=probe
                )
                if reordered is not None:
                    return reordered[0], f"{named}: {reordered[1]}"
                return "HOOK-3", "the sidecar names another hook as the rewrite in effect"
            sidecar = data_of(want).get("rewrite")
            if not rewrote and isinstance(sidecar, dict):
                # Left out where the input was applied but changed nothing: still a hook's input.
                same = _as_value(sidecar.get("originalArguments")) == _as_value(
                    data_of(want).get("arguments")
                )
                dropped = _dropped_by_an_ask(call_id_of(want), history) if same else None
                refused = (
                    _refused_in_place(
                        want,
                        got,
                        situation,
                        history,
                        target_events=target_events,
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
                unequal = (
                    _unequal_input_fate(want, history, target_events, config, probe)
                    if same
                    else None
                )
                if unequal is not None:
                    return unequal[0], f"{named}: {unequal[1]}"
                return "RW-2", (
                    f"{named}: the target records no rewrite sidecar, but a hook-supplied input "
                    "was applied"
                    + (" (equal to the model's own, which still gets one)" if same else "")
                    + _not_erased_by_later(call_id_of(want), history)
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
            return _result_rule(
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
            matcher = _outside_matcher(got, command, history, program)
            if matcher is not None:
                return "HOOK-8", (
                    f"{named}: the target runs {hook_named(got)}, whose matcher "
                    f"{spelled(matcher)} does not match the whole name of the tool call "
                    f"{data_of(got).get('callId')} makes"
                )
            unmatched = _skipped_matching_hook(
                want, got, command, history, config=config, program=program, probe=probe
            )
            unregistered = (
                None
                if unmatched is None
                else _hook_skipped_for_an_unregistered_tool(
                    want, got, command, history, config=config, program=program
                )
            )
            if unregistered is not None:
                # Read as a glob's skip, where the hook ran for a later call a glob would not
                # have run it for: the call's tool, not the matcher, made the loop skip it.
                return "EXE-5", f"{named}: {unregistered}"
            if unmatched is not None:
                return "HOOK-8", f"{named}: {unmatched}"
            partly = _fits_only_part(config, got)
            if partly is not None:
                # The call's reply is not logged yet (later hooks are due): its tool is not
                # known here, but the hook fits no configured tool's whole name.
                return "HOOK-8", (
                    f"{named}: the target runs {hook_named(got)}, whose matcher {partly} does not "
                    "match the whole name of any configured tool, only part of one"
                )
            in_hand = _reply_in_hand(command, program)
            logged = _target_log(history, target_events)
            invalid = _invalid_call_hooked(config, got, in_hand)
            lossy = _lossy_call_hooked(got, in_hand)
            unjudged = _unregistered_input_unjudged(
                invalid,
                got,
                in_hand,
                logged,
                config=config,
                probe=probe,
            )
            if unjudged is not None:
                return "EXE-5", f"{named}: {unjudged}"
            if _hooks_follow_javascript(want, got, program, config):
                return "EXE-2", (
                    f"{named}: the call's {_BLANK_TO_ONE_READER} they decide whether its hooks run"
                )
            falsy = _falsy_call_hooked(
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
                whatever = _hooks_whatever_the_input(
                    lossy,
                    _tool_in_hand(lossy, in_hand),
                    logged,
                    config,
                    probe,
                )
                if whatever is not None:
                    # It runs hooks whatever the input, no reader's at fault: HOOK-4's.
                    return "HOOK-4", (
                        f"{named}: the target runs {hook_named(got)} for call {lossy}, whose "
                        f"arguments are {_LOSSY_JSON}; {whatever}"
                    )
                # Its reader took -0.0, 1e400 or NaN as a number (jq, json.loads): EXE-2's.
                return "EXE-2", (
                    f"{named}: the target runs {hook_named(got)} for call {lossy}, whose "
                    f"arguments are {_LOSSY_JSON}, so no PreToolUse hook runs for it"
                )
            if invalid is not None:
                # It read as the model's call skipped (EXE-5, when that call's tool is not
                # registered; EXE-2, when its arguments hold a lone surrogate escape), where
                # the target ran a hook no call with invalid input gets; EXE-5's clause when
                # the hooked call's tool is not registered (a loop judging a registered tool's
                # input alone), as `_hooked_invalid_call` says where the reply waits.
                words, unregistered = invalid
                hooked = data_of(got).get("callId")
                whatever = (
                    _hooks_whatever_the_input(
                        hooked,
                        _tool_in_hand(hooked, in_hand),
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
            skipped_call = _skipped_as_strict_parser(want, program)
            # A target running another hook for that very call did not skip it.
            if skipped_call is not None and data_of(got).get("callId") != skipped_call:
                return "EXE-2", (
                    f"{named}: call {skipped_call}'s arguments are a JSON object as EXE-2 reads "
                    f"them{_LONE_SURROGATE_WORDS}, so its PreToolUse hooks run"
                )
            mine_pair = (data_of(want).get("callId"), data_of(want).get("handlerId"))
            skipped = _skipped_hook_rule(
                config, _reply_in_hand(command, program), history, mine_pair
            )
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
            reading, their_reading = _reading(point, ours), _reading(point, their_word)
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


def _appended_later(
    want: Event, model_events: Sequence[Event], target_events: Sequence[Event]
) -> bool:
    """Whether the target appends `want` after all, further on (the first difference is where
    the model appends it): it has more copies of it than the model appends before `want`."""
    same = _positional(normalized_event(want))
    position = next((i for i, e in enumerate(model_events) if e is want), 0)
    earlier = sum(_positional(normalized_event(e)) == same for e in model_events[:position])
    return sum(_positional(normalized_event(e)) == same for e in target_events) > earlier


def _audited_after_reply(audit: Event, target_events: Sequence[Event]) -> bool:
    """Whether the target appends the PreToolUse `audit` of a call after an assistant/message
    that carries the call."""
    data = data_of(audit)
    if data.get("point") != "PreToolUse":
        return False
    reply_at: int | None = None
    for at, event in enumerate(target_events):
        if event.get("type") == "assistant/message" and data.get("callId") in _reply_call_ids(
            event
        ):
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


def _missing(
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
                return _missing(withheld, command, phase, history)
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
                + _judged_after_the_abort(want, command, [*history, *model_events])
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
            answers = _pre_answers(call_id, history)
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
                        f"; or the merge let {_named(allowed)}'s allow outrank "
                        f"{_named(asked)}'s ask (HOOK-2: deny > ask > allow > pass), which "
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
                    f"{lacks}: {_named(asked)} asked and {_named(allowed)} allowed call "
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
                    f"{lacks}: {_named(asked)} asked and {_named(passed)} passed call "
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
            _context_of_a_block(want, command, hooks=True)
            or _lost_after_a_block_with_context(want, history)
        ) and blank_context_trimmed(want, command, history, config, probe):
            # Lost beside a block, but a blank context lost without one too: the loop trims.
            return "ADJ-4", _WHITESPACE_CONTEXT.format(lacks=lacks) + _TRIMMED_TOO
        case "user/message" if _context_of_a_block(
            want, command, hooks=True
        ) or _lost_after_a_block_with_context(want, history):
            return "DEC-3", (
                f"{lacks}: a PostToolUse block drops the body's own contexts, never its hooks' "
                "contexts, which wait for the next step/start"
            )
        case "user/message" if (
            ended := _parking_turn_end(model_events, history)
        ) is not None and _prompts_own(want, command, model_events):
            # The prompt's own message, after those the last turn parked: it read as a parked
            # message ("a message queued while the last turn ran"), which the target delivered.
            return "ADJ-4", (
                f"{lacks}: the prompt's own message, {_message_words(want)}: the messages the "
                f"last turn left queued (it ended {ended} before another step/start) open this "
                "turn's first step, and the prompt's own message follows them, never left out"
            )
        case "user/message" if (ended := _parking_turn_end(model_events, history)) is not None:
            return "ADJ-4", (
                f"{lacks}: a message queued while the last turn ran, which ended {ended} before "
                "another step/start, is parked for the next turn's first step, before the "
                "user's own message" + _after_abort_note(want, ended)
            )
        case "user/message" if whitespace_only(want):
            return "ADJ-4", _WHITESPACE_CONTEXT.format(lacks=lacks)
        case "user/message" if message_text(want) in _FALSE_TO_SOME:
            return "ADJ-4", (
                f"{lacks}: a context {spelled(message_text(want))}, false to some languages "
                '(Perl, PHP), is not empty: only "" is no context, and it is delivered after the '
                "next step/start"
            )
        case "user/message" if _delivered_twice(want, model_events, target_events):
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
            and _source_of(want) == {"kind": "user"}
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
                f"{_queued_by(want, command)}"
            )
        case "tool/result":
            if isinstance(command, Abort):
                return "ABORT-1", f"{lacks}: {_unstarted_call_words(want, model_events)}"
            # A denied call the target ran: its result is missing for that, wherever it is.
            failed = _failed_closed(call_id_of(want), want, history, started)
            if failed is not None:
                return "DEC-1", f"{lacks} for call {call_id_of(want)}: {failed}"
            ran = _denied_yet_run(call_id_of(want), want, history, started)
            if ran is not None:
                return ran[0], f"{lacks} for call {call_id_of(want)}: {ran[1]}"
            waiting = _awaiting_approval(history)
            if waiting is not None and waiting != call_id_of(want):
                return "SCHED-2", (
                    f"{lacks} for call {call_id_of(want)}: while call {waiting} waits for its "
                    "approval, the calls that started before it commit their results"
                )
            refusal = _refused_rewrite(
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
            if error_code(want) == "INVALID_TOOL_INPUT" and _object_only_when_lossy(raw):
                return "EXE-2", (
                    f"{lacks} for call {call_id_of(want)}: its arguments are {_LOSSY_JSON}: "
                    "the call ends as an INVALID_TOOL_INPUT error and its body never starts"
                )
            if error_code(want) == "INVALID_TOOL_INPUT" and _falsy_json(raw):
                # A JSON null (false, 0, "", []) read as no arguments, {}: how the arguments
                # were read is what is wrong (it read as EXE-5, the order calls are judged in).
                return "EXE-2", (
                    f"{lacks} for call {call_id_of(want)}: "
                    + _falsy_read_as_empty(raw, "starts it")
                )
            if (
                error_code(want) == "INVALID_TOOL_INPUT"
                and call_id_of(want) in started
                and isinstance(raw, str)
                and raw.strip()
                and not isinstance(_as_value(raw), _Parsed)
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
            rule, _ = _result_rule(want, None, command, phase, history)
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
                return rule, f"{lacks}: {_unstarted_call_words(want, model_events)}"
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
            return _turn_end_rule(want, None, command, phase)
        case "step/end" | "step/start":
            if isinstance(command, Abort):
                return _abort_rule(phase), lacks
            if isinstance(command, ModelReplies):
                return _reply_end_rule(command), (
                    f"{lacks} ({_how_the_reply_ends(command, model_events)})"
                )
            if isinstance(command, ModelFails):
                return "TURN-5", f"{lacks} (a failed model request ends the step and the turn)"
            return ("STEP-1" if kind == "step/start" else "STEP-2"), lacks
        case "assistant/message":
            if isinstance(command, Abort) or (
                isinstance(command, ModelReplies) and command.finish == "cancelled"
            ):
                return "ABORT-2", f"{lacks}: an interrupted reply keeps its delivered text"
            partial = _partly_matching_hook(config, want, command, probe)
            if partial is not None:
                # The target waits for a hook the model does not run: its reply is held back.
                return "HOOK-8", (
                    f"{lacks}: the target waits for {partial}, which does not match the whole "
                    "tool name, so no such hook runs and the reply is committed now"
                )
            if isinstance(command, HookAnswers | ModelReplies) and _waits_as_javascript(
                config, want
            ):
                # The target waits for hooks of a call whose arguments it parsed otherwise.
                return "EXE-2", (
                    f"{lacks}: a call's {_BLANK_TO_ONE_READER} no more hooks run, and the reply "
                    "is committed" + _unregistered_hint(config, want)
                )
            target_log = _target_log(history, target_events, model_events)
            invalid = _hooked_invalid_call(config, want, command, probe, target_log)
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


def _unanswered_before(call_id: str | None, history: Sequence[Event]) -> str:
    """The calls of `call_id`'s reply before it still without a result, named with their tools
    (what holds it back at the gate, SCHED-1), or a phrase saying there are none."""
    recorded = _earlier_unanswered(call_id, history)
    if not recorded:
        return "no call still without a result"
    named = ", ".join(f"{call_id_of(e)} ({data_of(e).get('name')})" for e in recorded)
    return f"{'call' if len(recorded) == 1 else 'calls'} {named}, still without a result"


def _cap_full(config: LoopConfig | None, call_id: str | None, history: Sequence[Event]) -> str:
    """`; with N safe calls ...` when `call_id` is a concurrency-safe call that only the cap
    holds back (every earlier call still without a result is safe, and there are maxParallel
    of them): a loop whose cap counts one off asks or starts it here (SCHED-1); else empty."""
    if config is None:
        return ""
    earlier = _earlier_unanswered(call_id, history)
    name = next(
        (
            data_of(e).get("name")
            for e in _calls_step(call_id, history)
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


def _starts_over_the_cap(
    call_id: str | None, config: LoopConfig | None, history: Sequence[Event], probe: Probe | None
) -> str | None:
    """Where only the cap holds `call_id` back (`_cap_full`) and the target, its approval
    answered allowed-once (`probe`), starts it at once: its cap counts one off, which asking
    early follows from (SCHED-1). None otherwise, asking early being SCHED-2's."""
    if probe is None or not _cap_full(config, call_id, history):
        return None
    probed = probe(ApprovalAnswers("allowed-once"))
    if probed is None or call_id not in {started for started, _ in probed.executed}:
        return None
    assert config is not None  # `_cap_full` says nothing without one
    running = len(_earlier_unanswered(call_id, history))
    return (
        f"the target asks about call {call_id} and, approved, starts it while {running} safe "
        f"call(s) run, where maxParallel {config.max_parallel} lets no more start: its cap "
        "counts one off, and a call is asked about only once it could start"
    )


def _cancelled_later(
    want: Event, history: Sequence[Event], config: LoopConfig | None, probe: Probe | None
) -> str | None:
    """The earlier call whose settling (probed: its body succeeds) makes the target write the
    cancelled approval `want` it did not write when the abort landed; None when there is none,
    or the target writes it then neither."""
    call_id = str(data_of(want).get("id", "")).removeprefix(APPROVAL_ID.format(call_id=""))
    earlier = _earlier_unanswered(call_id, history)
    if probe is None or config is None or not earlier:
        return None
    first = str(call_id_of(earlier[0]))
    hooks = config.hooks_for(POST_TOOL_USE, str(data_of(earlier[0]).get("name")))
    after = probe(ToolFinishes(first, ToolSucceeded(""), tuple(PostPass() for _ in hooks)))
    written = after is not None and any(
        e.get("type") == "approval/decided" and data_of(e) == data_of(want) for e in after.events
    )
    return first if written else None


def _earlier_unanswered(call_id: str | None, history: Sequence[Event]) -> list[Event]:
    """The tool/call records of `call_id`'s step before its own still without a result."""
    recorded: list[Event] = []
    answered: set[str | None] = set()
    own = False
    for event in _calls_step(call_id, history):
        kind = event.get("type")
        if kind == "step/start":
            recorded, answered, own = [], set(), False
        elif kind == "tool/call" and not own:
            # The records come together, before any result: results later in the step still
            # count (a loop stopping at the call's own record counted answered calls running).
            own = call_id_of(event) == call_id
            if not own:
                recorded.append(event)
        elif kind == "tool/result":
            answered.add(call_id_of(event))
    return [e for e in recorded if call_id_of(e) not in answered]


def _what_still_runs(
    call_id: str, events: Sequence[Event], config: LoopConfig | None = None
) -> str:
    """Words on the earlier calls of `call_id`'s step still without a result once `events`
    are in, which are all the schedule weighs against it; with `config`, those among them whose
    input is invalid, which ended at the gate and hold no place, are said apart."""
    answered = {
        call_id_of(e) for e in _calls_step(call_id, events) if e.get("type") == "tool/result"
    }
    records = [e for e in _earlier_unanswered(call_id, events) if call_id_of(e) not in answered]
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
    for record in _earlier_unanswered(call_id, events):
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
                f"a tool ({_unregistered_probe_shows(shown, earlier.name)}), so it "
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


def _awaiting_approval(history: Sequence[Event]) -> str | None:
    """The call of the current reply whose approval is asked and not yet answered, if any."""
    asked: dict[str, str] = {}  # approval id -> call id
    for event in history:
        kind, data = event.get("type"), data_of(event)
        if kind == "assistant/message":
            asked.clear()  # a new reply: earlier batches are over
        elif kind == "approval/asked" and isinstance(data.get("callId"), str):
            asked[str(data.get("id"))] = data["callId"]
        elif kind == "approval/decided":
            asked.pop(str(data.get("id")), None)
    return next(iter(asked.values()), None)


def _tool_name(call_id: object, command: Command, history: Sequence[Event]) -> str | None:
    """The tool the model called under `call_id` (its hooks run before the reply is logged,
    so the reply being handled is read from the command)."""
    if isinstance(command, ModelReplies):
        for call in command.tool_calls:
            if call.id == call_id:
                return call.name
    for event in reversed(history):
        if event.get("type") == "tool/call" and data_of(event).get("callId") == call_id:
            return str(data_of(event).get("name"))
    return None


def _called_tool_name(
    call_id: object, command: Command, history: Sequence[Event], program: Sequence[Command]
) -> str | None:
    """The tool the model called under `call_id`, also when no tool/call records it yet (a
    call still at its hooks, one the target never recorded): read from the program's replies."""
    recorded = _tool_name(call_id, command, history)
    if recorded is not None:
        return recorded
    return next(
        (
            call.name
            for sent in reversed(program)
            if isinstance(sent, ModelReplies)
            for call in sent.tool_calls
            if call.id == call_id
        ),
        None,
    )


def _invalid_call_hooked(
    config: LoopConfig | None, invoked: Event | None, reply: ModelReplies | None
) -> tuple[str, str] | None:
    """`call ID, whose input is invalid (...)` when the target's hook/invoked `invoked` names a
    call of `reply` whose input the model finds invalid (not an object, or missing a key its
    registered tool requires: EXE-5 (1)), with the call's tool name when that tool is not
    registered ("" when it is); None otherwise."""
    if config is None or reply is None:
        return None
    call_id = data_of(invoked).get("callId")
    call = next((c for c in reply.tool_calls if c.id == call_id), None)
    problem = None if call is None else input_problem(call, config)
    if call is None or problem is None:
        return None
    unregistered = call.name if config.tool(call.name) is None else ""
    return f"call {call_id}, whose input is invalid ({problem})", unregistered


def _unregistered_input_unjudged(
    invalid: tuple[str, str] | None,
    invoked: Event,
    reply: ModelReplies | None,
    events: Sequence[Event],
    *,
    config: LoopConfig | None,
    probe: Probe | None,
) -> str | None:
    """Why the target's hook/invoked `invoked` breaks EXE-5 (1), when it names a call of
    `reply` whose input the model finds invalid (`invalid`: `_invalid_call_hooked`) of a tool
    that is not registered, whose arguments a reader may take for an object (lossy JSON, or
    blank to JavaScript's trim alone: EXE-2's readings), and a probe shows the target judges
    no input of such a tool, [] neither (`no_object_call_judged`; `events` what it logged).
    None otherwise."""
    call_id = data_of(invoked).get("callId")
    call = next((c for c in reply.tool_calls if c.id == call_id), None) if reply else None
    if invalid is None or not invalid[1] or call is None:
        return None
    if not (_object_only_when_lossy(call.arguments) or _blank_to_javascript_only(call.arguments)):
        return None
    words, name = invalid
    shown = no_object_call_judged(call.id, name, events, config=config, probe=probe)
    if shown not in ("unknown", "hooked"):
        return None
    return (
        f"the target runs {hook_named(invoked)} for {words}, though its tool {name} is not "
        "registered: EXE-5 (1) judges the input of every call, registered tool or not, and "
        "no PreToolUse hook runs for a call with invalid input; the target judges no input of "
        f"such a tool ({_unregistered_probe_shows(shown, name)})"
    )


def _falsy_call_hooked(
    invalid: tuple[str, str] | None,
    invoked: Event,
    reply: ModelReplies | None,
    events: Sequence[Event],
    *,
    config: LoopConfig | None,
    probe: Probe | None,
) -> str | None:
    """Why the target's hook/invoked `invoked` breaks EXE-2, when it names a call of `reply`
    whose input the model finds invalid (`invalid`: `_invalid_call_hooked`) and whose arguments
    some reader replaces with {} (null, 0, []: `_falsy_json`), and a probe shows the target
    judges a call of that tool with `1`, no object either, invalid without a hook: it read the
    value as no arguments, {}, where a loop running hooks for any input (HOOK-4) runs
    them for that call too. None otherwise (`events`: what the target logged)."""
    call_id = data_of(invoked).get("callId")
    call = next((c for c in reply.tool_calls if c.id == call_id), None) if reply else None
    if invalid is None or call is None or not _falsy_json(call.arguments):
        return None
    judged = no_object_call_judged(
        call.id, call.name, _logged(events, probe), config=config, probe=probe, arguments="1"
    )
    if judged != "invalid":
        return None
    return (
        f"the target runs {hook_named(invoked)} for call {call.id}: "
        + _falsy_read_as_empty(call.arguments, "runs its hooks")
        + f"; a reply calling {call.name} with 1 after it, sent to tell, was answered "
        "INVALID_TOOL_INPUT without a hook"
    )


def _lossy_call_hooked(invoked: Event | None, reply: ModelReplies | None) -> str | None:
    """The id of the call of `reply` the target's hook/invoked `invoked` names when its
    arguments are an object only to a reader taking NaN, 1e400 or -0.0 as numbers; else None."""
    call_id = data_of(invoked).get("callId")
    calls = () if reply is None else reply.tool_calls
    call = next((c for c in calls if c.id == call_id), None)
    return call.id if call is not None and _object_only_when_lossy(call.arguments) else None


def _reply_in_hand(command: Command, program: Sequence[Command]) -> ModelReplies | None:
    """The reply whose PreToolUse hooks are running: this command's, or the program's last."""
    if isinstance(command, ModelReplies):
        return command
    return next((c for c in reversed(program) if isinstance(c, ModelReplies)), None)


def _answered_this_step(history: Sequence[Event]) -> set[tuple[object, object]]:
    """(call id, handler id) of every hook/result since the last step/start (call ids repeat
    across steps)."""
    starts = [i for i, e in enumerate(history) if e.get("type") == "step/start"]
    this_step = history[starts[-1] :] if starts else history
    return {
        (data_of(e).get("callId"), data_of(e).get("handlerId"))
        for e in this_step
        if e.get("type") == "hook/result"
    }


def _due_hooks(
    config: LoopConfig, reply: ModelReplies, answered: set[tuple[object, object]]
) -> list[tuple[ToolCallBlock, HookSpec]]:
    """Each (call, PreToolUse hook) of `reply` the model runs, in order, but those `answered`."""
    return [
        (call, hook)
        for call in reply.tool_calls
        # Invalid input (not an object, or missing a key its registered tool requires) ends
        # the call at the gate: no hook sees it (EXE-5 (1)), by the model's own test.
        if input_problem(call, config) is None
        for hook in config.hooks_for("PreToolUse", call.name)
        if (call.id, hook.handler_id) not in answered
    ]


def _skipped_hook_rule(
    config: LoopConfig | None,
    reply: ModelReplies | None,
    history: Sequence[Event],
    only: tuple[object, object] | None = None,
) -> tuple[str, str] | None:
    """(rule, words) when every hook the model still runs for `reply` (or the one `only`
    names: a call id and a handler id) is one a loop skips for a reason of its own: a call to a
    tool that is not registered (EXE-5), an empty matcher, or a matcher that fits the name only
    by its leading `(?i)` (HOOK-8). None otherwise: a loop that runs no PreToolUse hook at all
    is RW-3's."""
    if config is None or reply is None:
        return None
    answered = _answered_this_step(history) - {only}
    pairs = _due_hooks(config, reply, answered)
    if only is not None:
        pairs = [(call, hook) for call, hook in pairs if (call.id, hook.handler_id) == only]
    if not pairs:
        return None
    call, hook = pairs[0]
    if all(_blank_to_python_only(c.arguments) for c, _hook in pairs):
        # Arguments a loop trimming otherwise finds no JSON in: no hook of its runs for them,
        # whatever the tool (it read as EXE-5 when the tool is not registered).
        return "EXE-2", (
            f"call {call.id}'s {_BLANK_TO_ONE_READER} hook {hook.handler_id} runs for it"
        )
    # A loop that ran another hook for the call does run hooks for its tool (HOOK-4's order).
    ran_for = {call_id for call_id, _handler in answered}
    if all(config.tool(c.name) is None and c.id not in ran_for for c, _hook in pairs):
        return "EXE-5", (
            f"call {call.id} names tool {call.name}, which is not registered, and hook "
            f"{hook.handler_id} matches it: PreToolUse hooks run for a call whose tool is not "
            "registered too, and it fails UNKNOWN_TOOL only where its body would start"
        )
    if all(h.matcher == "" for _c, h in pairs):
        return "HOOK-8", (
            f'hook {hook.handler_id}\'s matcher is empty, which matches every tool, as "*" '
            f"does (not a pattern matching only an empty name), so it runs for call {call.id}"
        )
    if all(_fits_only_by_case(h, c.name) for c, h in pairs):
        return "HOOK-8", (
            f"hook {hook.handler_id}'s matcher {spelled(hook.matcher)} matches tool {call.name} of "
            f"call {call.id}: a leading (?i) makes the rest match in any case (ECMAScript's flag i)"
        )
    return None


def _first_hook_due(config: LoopConfig | None, reply: ModelReplies) -> str:
    """Words naming the first PreToolUse hook the model runs for `reply`, its matcher and the
    call it matches: a loop committing the reply at once matched it with no hook (a bash and jq
    loop's matcher test never matched), and the rule alone does not say which hook was due."""
    due = [] if config is None else _due_hooks(config, reply, set())
    if not due:
        return ""
    call, hook = due[0]
    return (
        f" (here hook {hook.handler_id}, matcher {spelled(hook.matcher)}, matches call "
        f"{call.id}'s tool {call.name}: HOOK-8 says how a matcher matches)"
    )


def _hook_still_due(
    config: LoopConfig | None,
    command: Command,
    program: Sequence[Command],
    events: Sequence[Event],
) -> str | None:
    """After a hook's answer (`command`), the words on the next PreToolUse hook the model still
    asks about the reply in hand when a target commits the reply instead; None when no hook is
    due. `events`: the model's, up to and with this command's."""
    if config is None or not isinstance(command, HookAnswers):
        return None
    reply = _reply_in_hand(command, program)
    if reply is None:
        return None
    answered = _answered_this_step(events)
    due = _due_hooks(config, reply, answered)
    if not due:
        return None
    call, hook = due[0]
    same_tool = [c.id for c in reply.tool_calls if c.name == call.name and c.id != call.id]
    answered_for = [c for c in same_tool if (c, hook.handler_id) in answered]
    shared = (
        f" (its answer for call {', '.join(answered_for)}, of the same tool, is not one for "
        "this call)"
        if answered_for
        else ""
    )
    return (
        f"PreToolUse hook {hook.handler_id} has yet to answer for call {call.id} "
        f"({call.name}){shared}: every hook that matches a call answers once for that call, "
        "and the reply is committed only after the last answer"
    )


def _matcher_read_as_a_glob(
    config: LoopConfig | None,
    command: Command,
    program: Sequence[Command],
    events: Sequence[Event],
) -> tuple[str, str] | None:
    """The call and words on the PreToolUse hook the model still asks about the reply in hand
    (`_hook_still_due`) where the target commits the reply, when that hook's matcher matches
    its call's tool as a regular expression but not as a glob (Tcl's `string match`, fnmatch:
    `.*` matches only names starting with a dot, `|` only itself) and the target ran it for no
    call of that tool before: it skipped the hook (HOOK-8), where a loop counting answers
    wrong runs it for other calls (HOOK-4). None otherwise."""
    if config is None or not isinstance(command, HookAnswers | ModelReplies):
        return None
    reply = _reply_in_hand(command, program)
    if reply is None:
        return None
    due = _due_hooks(config, reply, _answered_this_step(events))
    if not due:
        return None
    call, hook = due[0]
    if fnmatch.fnmatchcase(call.name, hook.matcher):
        return None
    called = {call_id_of(e): data_of(e).get("name") for e in events if e.get("type") == "tool/call"}
    # The reply in hand is not recorded until its last hook answers: its calls' tools count too
    # (a hook run for an earlier call of the reply read as never run, HOOK-8, seeds 37-49 of
    # 30-49 of round 8's loop whose hook answers a tool once per reply).
    called.update((c.id, c.name) for c in reply.tool_calls)
    if any(
        e.get("type") == "hook/invoked"
        and data_of(e).get("handlerId") == hook.handler_id
        and called.get(data_of(e).get("callId")) == call.name
        for e in events
    ):
        return None
    return call.id, (
        f"the target commits the reply without running PreToolUse hook {hook.handler_id} for "
        f"call {call.id}, whose matcher {spelled(hook.matcher)} matches the whole name of tool "
        f"{call.name}: a matcher is a regular expression over the whole tool name (a glob, such "
        'as Tcl\'s string match or fnmatch, reads `.*` and `|` otherwise), and "" and "*" '
        "match every tool"
    )


def _fits_only_by_case(hook: HookSpec, name: str) -> bool:
    """The hook's matcher has a leading `(?i)` and the rest does not match `name` as written."""
    if not hook.matcher.startswith("(?i)"):
        return False
    try:
        return re.fullmatch(hook.matcher.removeprefix("(?i)"), name) is None
    except re.error:
        return False


# ADJ-4's word on a delivered context whose text is empty, wherever a comparison meets one.
_NO_CONTEXT = (
    "an empty context (\"\"), which is no context, a tool body's or a PostToolUse hook's: "
    "nothing is queued or delivered for it"
)


def _context_of_a_refused_outcome(
    message: Event, config: LoopConfig | None, program: Sequence[Command]
) -> str | None:
    """Why a queued context the model does not deliver came from a refused command, in words:
    only a ToolFinishes the model refused (as the target did: the run went on past it) carried
    its text, as the body's context or a PostToolUse hook's; None otherwise. (A loop that
    queues an outcome's contexts before judging the outcome was told they wait for the next
    step, which they did.)"""
    data = data_of(message)
    source = data.get("source")
    content = data.get("content")
    if config is None or not (isinstance(source, dict) and source.get("kind") == "plugin"):
        return None
    if not (isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict)):
        return None
    text = content[0].get("text")
    # Which outcomes the model refused: the program replayed (only here, where a context the
    # model does not deliver may be one).
    state = LoopState(config)
    refused: list[tuple[int, TransitionRefused]] = []
    for number, sent in enumerate(program[:-1], start=1):
        try:
            state = step(state, sent)
        except TransitionRefused as refused_here:
            if isinstance(sent, ToolFinishes) and text in _contexts_of(sent):
                refused.append((number, refused_here))
    # The model holds it too (an accepted outcome's, queued or waiting for its result to
    # commit), or this command brings it: which one the target delivered is moot. One an
    # accepted outcome carried that the model delivered already, or a crash lost, is not:
    # conform's programs give an outcome for a settled call a context of its own
    # (`swarm.refused_context`), but a case written by hand may repeat the accepted one's.
    if not refused or _holds_context(state, text) or _carries(program[-1:], text):
        return None
    number, refusal = refused[-1]
    return (
        f"its text {spelled(text)} is a context of command #{number}, an outcome the model "
        f"refused ({refusal.rule_id}: {refusal.message}), as the target did; a refused command "
        "changes nothing, and the target queued its context all the same (judge an outcome "
        "before queueing anything it carries)"
    )


def _holds_context(state: LoopState, text: object) -> bool:
    """Whether `text` is queued in `state`, or among a finished call's contexts whose result
    has yet to commit."""
    if any(queued.text == text for queued in state.inbox):
        return True
    phase = state.phase
    slots = phase.slots if isinstance(phase, Dispatching) else ()
    return any(slot.result is not None and text in slot.result.contexts for slot in slots)


def _carries(commands: Sequence[Command], text: object) -> bool:
    """Whether an outcome among `commands` carries `text` as a context."""
    return any(isinstance(sent, ToolFinishes) and text in _contexts_of(sent) for sent in commands)


def _contexts_of(finished: ToolFinishes) -> tuple[str, ...]:
    """The contexts an outcome carries: its body's own, then its PostToolUse hooks'."""
    own = finished.outcome.contexts if isinstance(finished.outcome, ToolSucceeded) else ()
    hooks = tuple(verdict.text for verdict in finished.post if isinstance(verdict, PostContext))
    return (*own, *hooks)


def _excerpt_json(value: object, limit: int = 80) -> str:
    """`value` as JSON, cut after `limit` characters."""
    text = json.dumps(value)
    return text if len(text) <= limit else f"{text[:limit]}..."


def _block_types(message: Event) -> list[object] | None:
    """The `type` of each block of a user/message's content, or None where it has no list."""
    content = data_of(message).get("content")  # a user/message's data is the message itself
    if not isinstance(content, list):
        return None
    return [block.get("type") if isinstance(block, dict) else None for block in content]


def _holds_no_text_alone(message: Event) -> bool:
    """Whether a user/message's content is no list of text blocks: no list, an empty one, or a
    block of another type (several text blocks are contexts merged, ADJ-4's)."""
    types = _block_types(message)
    return not types or any(kind != "text" for kind in types)


def _empty_context(message: Event) -> bool:
    """Whether `message` is a queued context whose text is empty, which ADJ-4 says is none."""
    data = data_of(message)  # a user/message's data is the message itself
    source = data.get("source") or {}
    content = data.get("content")
    return (
        isinstance(source, dict)
        and source.get("kind") == "plugin"
        and isinstance(content, list)
        and bool(content)
        and all(isinstance(block, dict) and block.get("text") == "" for block in content)
    )


def _context_of_an_aborted_success(
    message: Event | None, program: Sequence[Command], history: Sequence[Event]
) -> str | None:
    """The id of a call whose body succeeded after an abort (its result ABORTED in the model's
    log, `history`) with a context `message` delivers as a tool context; None otherwise. A loop
    queueing contexts as bodies finish delivers it, where the result the model commits is the
    abort's."""
    data = data_of(message)
    if data.get("source") != {"kind": "plugin", "plugin": "tool-context"}:
        return None
    content = data.get("content") or []
    texts = {block.get("text") for block in content if isinstance(block, dict)}
    aborted = {
        call_id_of(event)
        for event in history
        if event.get("type") == "tool/result" and error_code(event) == "ABORTED"
    }
    for sent in program:
        if (
            isinstance(sent, ToolFinishes)
            and sent.call_id in aborted
            and isinstance(sent.outcome, ToolSucceeded)
            and texts & set(sent.outcome.contexts)
        ):
            return sent.call_id
    return None


def _context_of_a_block(message: Event, command: Command, *, hooks: bool) -> bool:
    """Whether `message` is a context of the call `command` settles with a PostToolUse block:
    one of its hooks' contexts (`hooks`), which survive the block, else one of its body's own,
    which the block drops (DEC-3)."""
    if not isinstance(command, ToolFinishes):
        return False
    if not any(isinstance(verdict, PostBlock) for verdict in command.post):
        return False
    data = data_of(message)  # a user/message's data is the message itself
    source = data.get("source") or {}
    if source.get("kind") != "plugin":
        return False
    if hooks:
        given = [verdict.text for verdict in command.post if isinstance(verdict, PostContext)]
    else:
        outcome = command.outcome
        given = list(outcome.contexts) if isinstance(outcome, ToolSucceeded) else []
    content = data.get("content") or []
    texts = [block.get("text") for block in content if isinstance(block, dict)]
    return any(text in given for text in texts)


def _left_out(message: Event, events: Sequence[Event], history: Sequence[Event]) -> bool:
    """Whether `events` (the target's for this command) carry fewer user/messages with
    `message`'s content than the model delivers at its last step/start (`history`): one is
    lost, not moved. Two hooks may give the same words."""
    content = json.dumps(data_of(message).get("content"))

    def count(among: Sequence[Event]) -> int:
        return sum(
            e.get("type") == "user/message" and json.dumps(data_of(e).get("content")) == content
            for e in among
        )

    starts = [i for i, event in enumerate(history) if event.get("type") == "step/start"]
    return count(events) < count(history[starts[-1] :] if starts else history)


def _lost_after_a_block_with_context(message: Event, history: Sequence[Event]) -> bool:
    """Whether `message`, a context the step that just ended queued, follows a step where one
    call's PostToolUse hooks both blocked its result and gave a context (audited `block` and
    `allow`): a loop that drops the blocked call's hook contexts with its body's loses it at
    the step's end, which may be a later call's command (DEC-3)."""
    if (data_of(message).get("source") or {}).get("kind") != "plugin":
        return False
    starts = [i for i, event in enumerate(history) if event.get("type") == "step/start"]
    if len(starts) < 2:
        return False
    said: dict[object, set[object]] = {}
    for event in history[starts[-2] : starts[-1]]:
        data = data_of(event)
        if event.get("type") == "hook/result" and data.get("point") == "PostToolUse":
            said.setdefault(data.get("callId"), set()).add(data.get("decision"))
    return any({"block", "allow"} <= decisions for decisions in said.values())


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


def _blank_to_python_only(arguments: object) -> bool:
    """Whether arguments are blank to Python's `str.strip` ({} to EXE-2, so valid input whose
    hooks run) but not to JavaScript's `trim` (invalid JSON to it, so no hook runs)."""
    return (
        isinstance(arguments, str)
        and not arguments.strip()
        and bool(arguments.strip(JAVASCRIPT_TRIMMED))
    )


def _hooks_follow_javascript(
    want: Event, got: Event, program: Sequence[Command], config: LoopConfig | None
) -> bool:
    """Whether the target ran a hook for another call than the model as a loop reading the
    latest reply's arguments with JavaScript's `trim` would (EXE-2): it skipped the model's
    call, whose arguments only Python calls blank, or ran one for a call whose arguments only
    JavaScript calls blank and whose tool takes {}. Not when the calls' arguments say nothing
    of it (hook order, HOOK-4, with such a call elsewhere in the reply)."""
    reply = next((sent for sent in reversed(program) if isinstance(sent, ModelReplies)), None)
    if reply is None:
        return False
    calls: dict[object, ToolCallBlock] = {call.id: call for call in reply.tool_calls}
    skipped, hooked = calls.get(data_of(want).get("callId")), calls.get(data_of(got).get("callId"))
    return (skipped is not None and _blank_to_python_only(skipped.arguments)) or (
        hooked is not None
        and _blank_to_javascript_only(hooked.arguments)
        and _takes_no_arguments(config, hooked.name)
    )


def _takes_no_arguments(config: LoopConfig | None, name: object) -> bool:
    """Whether a call of tool `name` with arguments {} is valid input (EXE-2, EXE-5), so a loop
    reading its arguments as {} runs its hooks (not known without `config`: taken as valid). A
    tool requiring a key gets no hook either way: running one is HOOK-4's, not a reading's."""
    tool = None if config is None else config.tool(str(name))
    return tool is None or tool.input_problem(EMPTY) is None


def _skipped_as_strict_parser(want: Event, program: Sequence[Command]) -> str | None:
    """The id of the call the model runs hook `want` for, when the latest reply's arguments for
    it hold a lone surrogate escape (a loop whose parser refuses one runs no hook for it)."""
    reply = next((sent for sent in reversed(program) if isinstance(sent, ModelReplies)), None)
    call_id = data_of(want).get("callId")
    call = next((c for c in reply.tool_calls if c.id == call_id), None) if reply else None
    return call.id if call and _object_holding_lone_surrogate(call.arguments) else None


def _hooked_names(config: LoopConfig | None, names: Sequence[object]) -> list[bool]:
    """For each tool name, whether a PreToolUse hook of `config` matches it."""
    hooks = [] if config is None else [h for h in config.hooks if h.point == "PreToolUse"]
    return [isinstance(name, str) and any(h.matches(name) for h in hooks) for name in names]


def _hooked_invalid_call(
    config: LoopConfig | None,
    reply: Event,
    command: Command,
    probe: Probe | None = None,
    events: Sequence[Event] = (),
) -> tuple[str, str] | None:
    """The rule and `call ID's input is invalid (...)` for the first call of `reply` whose
    arguments the model finds invalid (not an object, or missing a key its tool requires:
    EXE-2) and that a PreToolUse hook matches by name: EXE-2 when they are an object to a
    reader taking NaN, 1e400 or -0.0 as numbers, EXE-5 when its tool is not registered (EXE-5
    (1): no hook sees it, also then), else HOOK-4; None when there is none. Where the reply
    holds several kinds, the call whose hook the target runs once its pending hook is answered
    (a `probe`) is the one: a loop judging a registered tool's input alone skips the EXE-5
    kind. A loop that runs hooks whatever a call's input is HOOK-4's, not EXE-2's or EXE-5's,
    where a probe shows it (`_hooks_whatever_the_input`; `events`, what the target logged); a
    HOOK-4 call whose arguments some reader replaces with {} (null, 0, []) is EXE-2's where a
    call of its tool with `1`, sent once the hooks pass, is answered invalid without a hook: the
    loop read the value as {}."""
    if config is None:
        return None
    content = data_of(reply).get("message", {}).get("content") or ()
    calls = [b for b in content if isinstance(b, dict) and _is_call_block(b)]
    hooked = _hooked_names(config, [b.get("name") for b in calls])
    found: list[tuple[object, str, str]] = []
    for block, matched in zip(calls, hooked, strict=True):
        if not matched:
            continue
        try:
            call = ToolCallBlock(str(block["id"]), str(block["name"]), str(block["arguments"]))
        except (KeyError, InvalidEventError):
            continue
        problem = input_problem(call, config)
        if problem is not None and _object_only_when_lossy(call.arguments):
            # A reader taking -0.0 or 1e400 as numbers (jq, json.loads) finds an object.
            found.append((call.id, "EXE-2", f"call {call.id}'s arguments are {_LOSSY_JSON}"))
        elif problem is not None and config.tool(call.name) is None:
            # A loop judging only a registered tool's input lets hooks see this call.
            why = (
                f"call {call.id}'s input is invalid ({problem}), though its tool {call.name} "
                "is not registered: EXE-5 (1) judges the input of every call, registered tool "
                "or not"
            )
            found.append((call.id, "EXE-5", why))
        elif problem is not None:
            found.append((call.id, "HOOK-4", f"call {call.id}'s input is invalid ({problem})"))
    if len({rule for _, rule, _ in found}) > 1 and probe is not None:
        probed = (
            probe(HookAnswers(Pass())) if isinstance(command, ModelReplies | HookAnswers) else None
        )
        ran = {
            data_of(event).get("callId")
            for event in (probed.events if probed is not None else ())
            if event.get("type") == "hook/invoked"
        }
        found = [each for each in found if each[0] in ran] or found
    if not found:
        return None
    call_id, rule, why = found[0]
    if rule in ("EXE-2", "EXE-5"):
        own = next((b.get("name") for b in calls if b.get("id") == call_id), None)
        whatever = _hooks_whatever_the_input(call_id, own, events, config, probe)
        if whatever is not None:
            return "HOOK-4", f"{whatever}, and {why}"
    block = next(b for b in calls if b.get("id") == call_id)
    if rule == "HOOK-4" and _falsy_json(block.get("arguments")):
        name = str(block.get("name"))
        judged = no_object_call_judged(
            str(call_id), name, _logged(events, probe), config=config, probe=probe, arguments="1"
        )
        if judged == "invalid":
            return "EXE-2", (
                f"call {call_id}'s arguments {spelled(block.get('arguments'))} are JSON whose "
                f"value is not an object (a call of {name} with 1, sent after it to tell, "
                "the target judged invalid without a hook: it reads such a value as no "
                f"arguments, {{}}, as {_readers_replacing(block.get('arguments'))} does, where "
                "EXE-2 reads only blank arguments so)"
            )
    return rule, why


def _tool_in_hand(call_id: object, reply: ModelReplies | None) -> str | None:
    """The tool of call `call_id` of the reply in hand, None when it makes no such call."""
    calls = reply.tool_calls if reply is not None else ()
    return next((call.name for call in calls if call.id == call_id), None)


def _hooks_whatever_the_input(
    call_id: object,
    own: object,
    events: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> str | None:
    """Words saying the target runs PreToolUse hooks for a call whatever its input, when a
    probe shows it: a call of a registered tool a hook matches (`own`, the tool of call
    `call_id`, where it is one) made with `[]`, no object to any reader, has its hooks run
    (`no_object_call_judged`). A loop reading lossy JSON (EXE-2) or judging a registered tool's
    input alone (EXE-5) runs none for it. None otherwise."""
    if config is None:
        return None
    names = [own, *(tool.name for tool in config.tools)]
    tool = next(
        (
            name
            for name in names
            if isinstance(name, str)
            and config.tool(name) is not None
            and config.hooks_for(PRE_TOOL_USE, name)
        ),
        None,
    )
    if tool is None:
        return None
    judged = no_object_call_judged(
        str(call_id), tool, _logged(events, probe), config=config, probe=probe
    )
    if judged != "hooked":
        return None
    return (
        "the target runs PreToolUse hooks for a call whatever its input, where a call with "
        f"invalid input gets none (a reply calling {tool} with [] after it, no JSON object to "
        "any reader, sent to tell, had its hooks run)"
    )


def _waits_as_javascript(config: LoopConfig | None, reply: Event) -> bool:
    """Whether a loop reading arguments with JavaScript's `trim` waits for hooks where the model
    commits `reply` now: one of its calls, whose arguments only JavaScript calls blank (invalid
    JSON to EXE-2, so the model runs no hook for it), has a PreToolUse hook matching it."""
    content = data_of(reply).get("message", {}).get("content") or ()
    calls = [b for b in content if isinstance(b, dict) and _is_call_block(b)]
    hooked = _hooked_names(config, [b.get("name") for b in calls])
    return any(
        matched
        and _blank_to_javascript_only(b.get("arguments"))
        and _takes_no_arguments(config, b.get("name"))
        for b, matched in zip(calls, hooked, strict=True)
    )


def _unregistered_hint(config: LoopConfig | None, reply: Event) -> str:
    """`; or ...` when a call of `reply` whose arguments only JavaScript calls blank names a
    tool that is not registered: a loop that lets hooks see such a call's non-object arguments
    (EXE-5 (1)) waits for its hooks too; else empty."""
    content = data_of(reply).get("message", {}).get("content") or ()
    unregistered = [
        b
        for b in content
        if isinstance(b, dict)
        and _is_call_block(b)
        and _blank_to_javascript_only(b.get("arguments"))
        and config is not None
        and config.tool(str(b.get("name"))) is None
    ]
    if not unregistered:
        return ""
    call = unregistered[0]
    return (
        f"; or the loop lets hooks see call {call.get('id')}, whose tool {call.get('name')} is "
        "not registered and whose arguments are not a JSON object (EXE-5: no hook sees such a "
        "call, registered tool or not)"
    )


def _commits_as_javascript(config: LoopConfig | None, command: ModelReplies) -> bool:
    """Whether a loop reading arguments with JavaScript's `trim` commits the reply at once where
    the model waits for hooks: every call a PreToolUse hook matches has arguments only Python
    calls blank (invalid JSON to JavaScript, so no hook runs for it). A call with other
    arguments that a hook matches keeps any loop waiting: the reply's early commit is then not
    the reading's (RW-3, ORD-1)."""
    waited_on = _waited_on(config, command)
    return bool(waited_on) and all(_blank_to_python_only(call.arguments) for call in waited_on)


def _unregistered_left_unhooked(
    command: ModelReplies, events: Sequence[Event], config: LoopConfig | None, probe: Probe | None
) -> str | None:
    """Words saying the target runs no PreToolUse hook for a call of a tool that is not
    registered, when a call of that tool made again with `{}`, which every reader takes for an
    object, gets no hook either (`no_object_call_judged`: UNKNOWN_TOOL): its arguments, blank to
    one reader alone, are not why (round 18's WebMCP #283 loop, read as EXE-2 on seeds 59, 61,
    63 and 64 of 50-69). None otherwise."""
    if config is None:
        return None
    for call in _waited_on(config, command):
        if config.tool(call.name) is not None:
            continue
        shown = no_object_call_judged(
            call.id, call.name, events, config=config, probe=probe, arguments="{}"
        )
        if shown != "unknown":
            return None
        return (
            f"the target runs no PreToolUse hook for call {call.id}, whose tool {call.name} is "
            f"not registered, and commits the reply at once; a reply calling {call.name} with "
            "{} after it, sent to tell, was answered UNKNOWN_TOOL with no hook run, so how its "
            "arguments were read is not why: the hooks whose matcher fits the name run for a "
            "call, registered tool or not, and an unknown tool's error comes where its body "
            "would start, after them (EXE-5 (2), (3))"
        )
    return None


def _waited_on(config: LoopConfig | None, command: ModelReplies) -> list[ToolCallBlock]:
    """The calls of `command` a PreToolUse hook matches, but those whose input the model finds
    invalid whatever reading a loop gives their arguments (EXE-5 (1): no hook sees them). A
    reply that did not complete runs none of its calls: no hook waits on them (STEP-4)."""
    if command.finish != FINISH_COMPLETED:
        return []
    calls = command.tool_calls
    hooked = _hooked_names(config, [call.name for call in calls])
    return [
        call
        for call, matched in zip(calls, hooked, strict=True)
        if matched and (config is None or not _invalid_to_every_reader(call, config))
    ]


def _invalid_to_every_reader(call: ToolCallBlock, config: LoopConfig) -> bool:
    """Whether the model finds `call`'s input invalid with its arguments neither blank nor held
    apart by a reader of another language (a registered tool's required key missing from an
    object, or text that is no JSON to any reader)."""
    return (
        input_problem(call, config) is not None
        and bool(call.arguments.strip())
        and not (
            _blank_to_javascript_only(call.arguments) or _object_only_when_lossy(call.arguments)
        )
    )


def _commits_as_strict_parser(config: LoopConfig | None, command: ModelReplies) -> str | None:
    """The id of a call a loop whose JSON parser refuses a lone surrogate escape finds not an
    object, where the model reads it as one and waits for the PreToolUse hooks matching it: the
    first such hooked call when every hooked call of the reply is one (so no hook runs in such a
    loop, which commits the reply at once); else None."""
    waited_on = _waited_on(config, command)
    if waited_on and all(_object_holding_lone_surrogate(call.arguments) for call in waited_on):
        return waited_on[0].id
    return None


def _refused_at_the_gate(call_id: str, target_events: Sequence[Event]) -> bool:
    """Whether the target answers call `call_id` INVALID_TOOL_INPUT among `target_events`."""
    return any(
        e.get("type") == "tool/result"
        and call_id_of(e) == call_id
        and error_code(e) == "INVALID_TOOL_INPUT"
        for e in target_events
    )


def _object_holding_lone_surrogate(arguments: str) -> bool:
    """Whether EXE-2 reads `arguments` as an object holding a lone surrogate."""
    value = parse_arguments(arguments)
    return isinstance(value, FrozenMap) and bool(
        _LONE_SURROGATE.search(json.dumps(thaw(value), ensure_ascii=False))
    )


def _outside_matcher(
    got: Event, command: Command, history: Sequence[Event], program: Sequence[Command] = ()
) -> str | None:
    """The matcher of a hook the target ran although it does not match the whole tool name
    (the name found in the log, or in the program's replies while the reply waits for hooks)."""
    data = data_of(got)
    call_id = data.get("callId")
    matcher = data.get("matcher")
    if not isinstance(matcher, str):
        return None
    try:
        spec = HookSpec("h", str(data.get("point")), matcher)
    except InvalidEventError:
        return None
    if call_id is None:
        # A loop whose hook events name no call (dsh): the hook ran for one of the calls the
        # program's replies make, and surely outside its matcher only when the matcher matches
        # none of their whole names (which call it ran for is not guessed).
        names = {
            call.name
            for sent in (*program, command)
            if isinstance(sent, ModelReplies)
            for call in sent.tool_calls
        }
        if not program or any(spec.matches(name) for name in names):
            return None
        return matcher
    name = _called_tool_name(call_id, command, history, program)
    if name is None:
        return None
    return None if spec.matches(name) else matcher


def _partly_matching_hook(
    config: LoopConfig | None, reply: Event, command: Command, probe: Probe | None = None
) -> str | None:
    """A PreToolUse hook of `config` whose matcher matches part of a tool name the reply calls
    but not the whole name (as an unanchored or half-anchored matcher would fire), said as
    "hook H's matcher M for tool T"; None when there is none (or no configuration). With a
    `probe`, only a hook the target runs for that call once its pending hook is answered: a
    target holding the reply back for another reason (not committed after the last hook
    answered, RW-3) runs none, and the configuration alone does not tell the two apart."""
    if config is None or not isinstance(command, ModelReplies | HookAnswers):
        return None
    content = data_of(reply).get("message", {}).get("content") or ()
    calls = [(b.get("id"), b.get("name")) for b in content if _is_call_block(b)]
    fits = [
        (hook, call_id, name)
        for hook in config.hooks
        if hook.point == "PreToolUse"
        for call_id, name in calls
        if isinstance(name, str)
        and not hook.matches(name)
        and (_fits_part(hook, name) or _fits_compatibility_form(hook, name))
    ]
    if fits and probe is not None:
        probed = probe(HookAnswers(Pass()))
        ran = {
            (data_of(event).get("handlerId"), data_of(event).get("callId"))
            for event in (probed.events if probed is not None else ())
            if event.get("type") == "hook/invoked"
        }
        fits = [fit for fit in fits if (fit[0].handler_id, fit[1]) in ran]
    if not fits:
        return None
    hook, _, name = fits[0]
    said = f"hook {hook.handler_id}'s matcher {spelled(hook.matcher)} for tool {name}"
    if _fits_part(hook, name):
        return said
    form = unicodedata.normalize("NFKC", name)
    return f"{said} (it matches {spelled(form)}, the name's Unicode compatibility form, NFKC)"


def _fits_compatibility_form(hook: HookSpec, name: str) -> bool:
    """The matcher matches `name`'s NFKC form (fullwidth letters made ASCII) but not `name`:
    a loop that normalises tool names before matching runs such a hook."""
    form = unicodedata.normalize("NFKC", name)
    return form != name and hook.matches(form)


def _pass_read_as_denial(got: Event, command: Command) -> str | None:
    """Words saying the target denied a call whose hook answered pass, its audit recording a
    word a deny may record too (`error`: a hook that failed, which by its dialect's default
    gives no decision, HOOK-7; `stop`), when `got` is the error result the target appends at
    that answer; None otherwise. A loop reading the audit's word, not the verdict, fails such a
    hook closed (it read as ORD-3, a result committed early)."""
    if not isinstance(command, HookAnswers) or not isinstance(command.verdict, Pass):
        return None
    audit = command.audit
    if audit is None or audit.decision not in ("error", "stop"):
        return None
    if not _is_error(got) or error_code(got) is not None:
        return None
    return (
        f"the hook's answer is a pass, whose audit records {audit.decision!r} (a hook that failed "
        "gets its dialect's default, no decision, unless it fails closed, HOOK-7, which the "
        "verdict would then say: a deny), and a pass never denies a call (deny > ask > allow > "
        f"pass): call {call_id_of(got)} runs, where the target denies it, as if the audit's "
        "word were the verdict"
    )


def _pre_answers_taken(
    program: Sequence[Command], config: LoopConfig | None
) -> dict[str, list[HookAnswers]]:
    """The PreToolUse answers the model took for each call of `program`, in order, the program
    replayed on `config` (a call id's latest reply's alone: ids repeat across steps)."""
    if config is None:
        return {}
    state, taken = LoopState(config), dict[str, list[HookAnswers]]()
    for sent in program:
        phase = state.phase
        try:
            state = step(state, sent)
        except TransitionRefused:
            continue
        if isinstance(sent, ModelReplies):
            taken.update({call.id: [] for call in sent.tool_calls})
        elif isinstance(sent, HookAnswers) and isinstance(phase, Rewriting) and phase.queue:
            call = phase.reply.tool_calls[phase.queue[0].call_index]
            taken.setdefault(call.id, []).append(sent)
    return taken


def _failed_open(
    call_id: str | None,
    program: Sequence[Command],
    config: LoopConfig | None,
    *,
    coded: str | None = None,
) -> str | None:
    """Words when every PreToolUse answer the model took for call `call_id` passes or allows
    it, one a pass whose audit records a word a deny may record too (`error`: a hook that
    failed, which by its dialect's default gives no decision, HOOK-7; `stop`): a loop reading
    the audit's word, not the verdict, denies the call, and whatever its denial lets go on
    early (a later call's approval, start or result) read as SCHED-1, SCHED-2 or ORD-3.
    With `coded` (` (CODE)`, or empty where the code is not known), the words say the target
    ends the call with an error of its own instead (HOOK-7). None otherwise
    (`_pass_read_as_denial` says it at the answer itself)."""
    answers = _pre_answers_taken(program, config).get(str(call_id), [])
    words = [
        answer.audit.decision
        for answer in answers
        if isinstance(answer.verdict, Pass)
        and answer.audit is not None
        and answer.audit.decision in ("error", "stop")
    ]
    if not words or not all(isinstance(answer.verdict, Pass | Allow) for answer in answers):
        return None
    if coded is not None:
        # Not denied but failed with an error of the loop's own: its fault handling, not its
        # merge, read the hook's fault as a verdict.
        return (
            f"call {call_id}'s PreToolUse hooks pass or allow it, one a pass whose audit records "
            f"{words[0]!r}: a hook that failed gets its dialect's default, no decision, unless "
            "it fails closed, which its verdict would then say (a deny), so call "
            f"{call_id} runs, where the target ends it with an error of its own{coded} before "
            "it runs"
        )
    return (
        f"call {call_id}'s PreToolUse hooks pass or allow it, one a pass whose audit records "
        f"{words[0]!r} (a hook that failed gets its dialect's default, no decision, unless it "
        "fails closed, HOOK-7, which the verdict would then say: a deny), and a pass never "
        f"denies a call (deny > ask > allow > pass): call {call_id} runs, where the target "
        "denies it, as if the audit's word were the verdict"
    )


def _own_error_code(call_id: str | None, events: Sequence[Event]) -> str | None:
    """The code of an error result `events` hold for call `call_id` that is the loop's own
    (none of the codes SPEC gives the loop's own results, `_LOOP_ERROR_CODES`), else None."""
    for event in events:
        if event.get("type") == "tool/result" and call_id_of(event) == call_id:
            code = error_code(event)
            if _is_error(event) and code is not None and code not in _LOOP_ERROR_CODES:
                return str(code)
    return None


def _failed_open_before(
    call_id: str | None,
    history: Sequence[Event],
    target_events: Sequence[Event],
    *,
    program: Sequence[Command],
    config: LoopConfig | None,
    probe: Probe | None,
) -> tuple[str, str] | None:
    """`_failed_open`'s rule and words on an earlier call of `call_id`'s step still without a
    result, when the target denied it (HOOK-2) or ended it with an error of its own code
    (HOOK-7): that result is among `target_events`, or comes once the calls before it settle
    (`_merge_shown_by_probe`). None otherwise: what the target did with `call_id` (its
    approval asked, its body started) is then the scheduling's to name."""
    for record in _earlier_unanswered(call_id, history):
        earlier = call_id_of(record)
        if _failed_open(earlier, program, config) is None:
            continue
        code = _own_error_code(earlier, target_events)
        shown = (
            "denied"
            if _denial_for(earlier, target_events)
            else "failed"
            if code is not None
            else _merge_shown_by_probe(earlier, config, history, probe, target_events)
        )
        went_on = f", so call {call_id} went on early"
        if shown == "denied":
            return "HOOK-2", f"{_failed_open(earlier, program, config)}{went_on}"
        if shown == "failed":
            # Known from this command's events, or (no code) once the calls before it settle.
            coded = (
                f" ({code})"
                if code is not None
                else " (shown once the calls before it settle, sent after it to tell)"
            )
            return "HOOK-7", f"{_failed_open(earlier, program, config, coded=coded)}{went_on}"
    return None


def _failed_open_unstarted(
    call_id: str,
    history: Sequence[Event],
    target_events: Sequence[Event],
    *,
    program: Sequence[Command],
    config: LoopConfig | None,
    probe: Probe | None,
) -> tuple[str, str] | None:
    """`_failed_open`'s rule and words on call `call_id`, whose body the model starts and the
    target does not, when the target denied it (HOOK-2) or ended it with an error of its own
    code (HOOK-7): that result is among `target_events`, or comes once the calls before it
    settle (`_merge_shown_by_probe`; a result held behind an earlier call's read as SCHED-1,
    seeds 50, 52, 57, 60, 67 and 69 of 50-69). None otherwise."""
    if _failed_open(call_id, program, config) is None:
        return None
    code = _own_error_code(call_id, target_events)
    shown = (
        "denied"
        if _denial_for(call_id, target_events)
        else "failed"
        if code is not None
        else _merge_shown_by_probe(call_id, config, history, probe, target_events)
    )
    later = "" if result_for(call_id, target_events) else ", once the calls before it settle"
    if shown == "denied":
        return "HOOK-2", f"{_failed_open(call_id, program, config)}{later}"
    if shown == "failed":
        coded = (
            f" ({code})"
            if code is not None
            else " (shown once the calls before it settle, sent after it to tell)"
        )
        return "HOOK-7", str(_failed_open(call_id, program, config, coded=coded))
    return None


def _asked_yet_answered_before(
    call_id: str | None,
    history: Sequence[Event],
    target_events: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> str | None:
    """Words on an earlier call of `call_id`'s step still without a result whose PreToolUse
    hooks asked (none denied), its approval not asked yet as it waits for the gate, when the
    target denies or runs it unasked: its result is among `target_events`, or comes once the
    calls before it settle (`_merge_shown_by_probe`). An ask read as a deny let a later call
    past the exclusive call it waits behind, read as SCHED-1 (round 18's Qwen Code #6321, seed
    68 of 50-69). None otherwise."""
    for record in _earlier_unanswered(call_id, history):
        earlier = call_id_of(record)
        situation = _situation(earlier, history)
        if (
            "ask" not in situation.hook_decisions
            or "deny" in situation.hook_decisions
            or situation.approval is not None
        ):
            continue
        answered = _denial_for(earlier, target_events)
        shown = (
            "denied"
            if answered
            else _merge_shown_by_probe(earlier, config, history, probe, target_events)
        )
        if shown not in ("denied", "ran"):
            continue
        asking = [hook for hook, reading, _ in _pre_answers(earlier, history) if reading == "ask"]
        done = "denies it" if shown == "denied" else "runs it"
        when = "" if answered else " once the calls before it settle (sent after it to tell)"
        return (
            f"{_named(asking)} asked about call {earlier}, which waits for the gate, and the "
            f"target {done}{when} without asking the user: an ask asks the user once the call "
            f"may start, and the call waits for the answer, so call {call_id}, behind it, went "
            "on early"
        )
    return None


def _hook_skipped_for_an_unregistered_tool(
    want: Event,
    got: Event,
    command: Command,
    history: Sequence[Event],
    *,
    config: LoopConfig | None,
    program: Sequence[Command],
) -> str | None:
    """Words saying the target skipped the PreToolUse hook `want` audits for a call whose tool
    is not registered and runs that same hook for a later call (`got`), when its matcher, read
    as a glob, would not give that choice: the loop reads the matcher right and skips the
    call for its tool (round 18's WebMCP #283 loop, named HOOK-8 for a glob reading `.*`).
    None otherwise."""
    mine, theirs = data_of(want), data_of(got)
    skipped, later = mine.get("callId"), theirs.get("callId")
    if (
        config is None
        or mine.get("point") != "PreToolUse"
        or theirs.get("point") != "PreToolUse"
        or mine.get("handlerId") != theirs.get("handlerId")
        or skipped == later
    ):
        return None
    hook = next((h for h in config.hooks if h.handler_id == mine.get("handlerId")), None)
    name = _called_tool_name(skipped, command, history, program)
    later_name = _called_tool_name(later, command, history, program)
    if hook is None or name is None or later_name is None or config.tool(name) is not None:
        return None
    if fnmatch.fnmatchcase(later_name, hook.matcher) and not fnmatch.fnmatchcase(
        name, hook.matcher
    ):
        return None  # a glob reading would skip the one and run the other: HOOK-8's
    return (
        f"the target skips hook {hook.handler_id} for call {skipped}, whose tool {name} is not "
        f"registered, and runs it for call {later}: PreToolUse hooks run for a call whose "
        "tool is not registered too (what the model asked for is judged and audited), and it "
        "fails UNKNOWN_TOOL only where its body would start"
    )


def _skipped_matching_hook(
    want: Event,
    got: Event,
    command: Command,
    history: Sequence[Event],
    *,
    config: LoopConfig | None,
    program: Sequence[Command],
    probe: Probe | None,
) -> str | None:
    """Words saying the target skipped the hook `want` audits, whose matcher matches the whole
    name of its call's tool, when the target audits a hook configured after it for that call
    (`got`) and, the pending hooks answered pass one by one (`probe`), never runs it: a loop that
    reads matchers otherwise (a glob, `string match`, where `.*` matches only names starting
    with a dot) skips it, where one running hooks out of order (HOOK-4) runs it later. None
    otherwise, and without a probe (the two look alike until the target's next answers)."""
    mine, theirs = data_of(want), data_of(got)
    call_id = mine.get("callId")
    if (
        config is None
        or probe is None
        or mine.get("point") != "PreToolUse"
        or theirs.get("point") != "PreToolUse"
    ):
        return None
    order = [hook.handler_id for hook in config.hooks]
    skipped, ran = mine.get("handlerId"), theirs.get("handlerId")
    if skipped not in order or ran not in order:
        return None
    # For the same call, a hook configured after the skipped one; or any hook for a later call
    # of the reply (the skipped one was the call's last to match), where a glob reads the
    # skipped one's matcher otherwise.
    later = _later_call_of_the_reply(call_id, theirs.get("callId"), command, program)
    if theirs.get("callId") == call_id and order.index(ran) <= order.index(skipped):
        return None
    if theirs.get("callId") != call_id and not later:
        return None
    hook = config.hooks[order.index(str(skipped))]
    name = _called_tool_name(call_id, command, history, program)
    if name is None or not hook.matches(name):
        return None
    if theirs.get("callId") != call_id and fnmatch.fnmatchcase(name, hook.matcher):
        # Skipped for a later call's hook for a reason of its own (the call's tool or its
        # arguments), not its matcher: a glob matches it as well.
        return None
    for _answer in range(len(config.hooks) * 8):  # a bound: every pending hook of a reply
        probed = probe(HookAnswers(Pass()))
        if probed is None or not probed.accepted:
            break
        audited = [e for e in probed.events if e.get("type") == "hook/invoked"]
        if any(
            data_of(e).get("handlerId") == skipped and data_of(e).get("callId") == call_id
            for e in audited
        ):
            return None
        if not audited:
            break
    return (
        f"the target skips hook {skipped}, whose matcher {spelled(hook.matcher)} matches the "
        f"whole name of tool {name} (call {call_id}), and runs {hook_named(got)} next"
        + ("" if theirs.get("callId") == call_id else f" for call {theirs.get('callId')}")
        + ": a "
        "matcher is a regular expression over the whole tool name (a glob reads `.*` and `|` "
        'otherwise), and "" and "*" match every tool'
    )


def _later_call_of_the_reply(
    call_id: object, other: object, command: Command, program: Sequence[Command]
) -> bool:
    """Whether call `other` comes after call `call_id` in the reply in hand."""
    reply = _reply_in_hand(command, program)
    ids = [call.id for call in reply.tool_calls] if reply is not None else []
    return call_id in ids and other in ids and ids.index(other) > ids.index(call_id)


def _fits_only_part(config: LoopConfig | None, got: Event) -> str | None:
    """The matcher of `got`'s hook, said with a tool it fits in part, when it matches the whole
    name of no configured tool and part of one's; None otherwise (or with no configuration)."""
    if config is None:
        return None
    handler = data_of(got).get("handlerId")
    hook = next((h for h in config.hooks if h.handler_id == handler), None)
    if hook is None or hook.matcher in ("", "*"):
        return None
    names = [tool.name for tool in config.tools]
    if any(hook.matches(name) for name in names):
        return None
    part = next((name for name in names if _fits_part(hook, name)), None)
    return None if part is None else f"{spelled(hook.matcher)} (part of {part})"


def _fits_part(hook: HookSpec, name: str) -> bool:
    try:
        return re.search(hook.matcher, name) is not None
    except re.error:  # a matcher the model accepted is a portable pattern (HOOK-8)
        return False


def _queued_as_a_turn(target_events: Sequence[Event], model_events: Sequence[Event]) -> bool:
    """Whether the target ends the turn and opens another with a message the user typed,
    where the model delivers that message after its next step/start in the same turn (round
    20's Gemini CLI #17282: a queued message sent as a prompt once the tools finished)."""
    opened = next((i for i, e in enumerate(model_events) if e.get("type") == "step/start"), None)
    if opened is None or not any(e.get("type") == "turn/start" for e in target_events):
        return False
    return any(
        e.get("type") == "user/message" and _source_of(e) == {"kind": "user"}
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


def _extra(
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
                return _extra(judged, command, phase, history)
            hook = hook_named(got)
            matcher = _outside_matcher(got, command, history, program)
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
            refusal = _refused_rewrite(
                call_id, model_events, target_events, history, config=config, probe=probe
            )
            if refusal is not None:
                # Asked with the model's own input: the refused rewrite went unnoticed, and
                # whether the call could start yet (SCHED-2) is not what is wrong.
                return refusal[0], f"{adds}: {refusal[1]}"
            situation = _situation(call_id, history)
            if "ask" in situation.hook_decisions and situation.approval is None:
                before = _unanswered_before(call_id, history)
                over_the_cap = _starts_over_the_cap(call_id, config, history, probe)
                if over_the_cap is not None:
                    return "SCHED-1", f"{adds}: {over_the_cap}"
                failed_early = _failed_open_before(
                    call_id, history, target_events, program=program, config=config, probe=probe
                )
                if failed_early is not None:
                    return failed_early[0], f"{adds}: {failed_early[1]}"
                return "SCHED-2", (
                    f"{adds}: call {call_id}'s approval is asked only when the call could "
                    f"start under SCHED-1, and it comes after {before}"
                    + _cap_full(config, call_id, history)
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
        case "user/message" if _context_of_a_block(got, command, hooks=False):
            return "DEC-3", f"{adds}: a PostToolUse block drops the body's own contexts"
        case "user/message" if _empty_context(got):
            return "ADJ-4", f"{adds}: it is {_NO_CONTEXT}"
        case "user/message":
            refused = _context_of_a_refused_outcome(got, config, program)
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
                return _missing(
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
            misread = _misread_input(got, [*history, *model_events])
            if misread is not None:
                # Answered at once as invalid input where the model starts the body: how the
                # arguments were read is wrong, not when the result commits (it read as ORD-3,
                # even for a reply's only call).
                rule, why = misread
                return rule, f"{adds}: {why}"
            failed_open = _pass_read_as_denial(got, command)
            if failed_open is None and _is_error(got) and error_code(got) is None:
                failed_open = _failed_open(call_id_of(got), program, config)
            if failed_open is not None:
                return "HOOK-2", f"{adds}: {failed_open}"
            code = _own_error_code(call_id_of(got), [got])
            coded = (
                _failed_open(call_id_of(got), program, config, coded=f" ({code})")
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
            return "ABORT-2", _interrupted_reply_kept(adds, command)
        case "assistant/message":
            if isinstance(command, ModelReplies) and _commits_as_javascript(config, command):
                unhooked = _unregistered_left_unhooked(
                    command, _target_log(history, target_events, model_events), config, probe
                )
                if unhooked is not None:
                    return "EXE-5", f"{adds}: {unhooked}"
                return "EXE-2", (
                    f"{adds}: a call's {_BLANK_TO_ONE_READER} a PreToolUse hook runs for it first"
                )
            strict = (
                _commits_as_strict_parser(config, command)
                if isinstance(command, ModelReplies)
                else None
            )
            glob_read = _matcher_read_as_a_glob(config, command, program, [*history, *model_events])
            if (
                strict is not None
                and glob_read is not None
                and not _refused_at_the_gate(strict, target_events)
            ):
                # The target takes the arguments (no INVALID_TOOL_INPUT result at the gate):
                # what it skipped is the hook, whose matcher it reads as a glob.
                return "HOOK-8", f"{adds}: {glob_read[1]}"
            if strict is not None:
                return "EXE-2", (
                    f"{adds}: call {strict}'s arguments are a JSON object as EXE-2 reads them"
                    f"{_LONE_SURROGATE_WORDS}, so a PreToolUse hook runs for it first"
                )
            skipped = _skipped_hook_rule(config, _reply_in_hand(command, program), history)
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
                    f"{_first_hook_due(config, command)}"
                )
            if isinstance(command, Abort | ModelReplies):
                return "ABORT-2", _interrupted_reply_kept(adds, command)
            unasked = _hook_still_due(config, command, program, [*history, *model_events])
            if unasked is not None and glob_read is not None:
                return "HOOK-8", f"{adds}: {glob_read}"
            if unasked is not None:
                return "HOOK-4", f"{adds}: {unasked}"
            return "ORD-1", f"{adds}: one reply per step"
        case "turn/end" | "step/end" | "step/start":
            if isinstance(command, Abort):
                return _abort_rule(phase), adds
            if kind == "turn/end" and _queued_as_a_turn(target_events, model_events):
                return "ADJ-4", (
                    f"{adds}: a message the user typed during the turn waits for its next "
                    "step and is appended right after that step/start, in this turn, not "
                    "delivered as a turn of its own"
                )
            if isinstance(command, ModelReplies):
                return _reply_end_rule(command), (
                    f"{adds} ({_how_the_reply_ends(command, model_events)})"
                )
            cause = _abort_cause_ending(model_events)
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
    for event in _calls_step(call_id_of(asked), history):
        data = data_of(event)
        if event.get("type") == "approval/asked" and data.get("toolName") == tool:
            requests[data.get("id")] = str(data.get("callId"))
        elif event.get("type") == "approval/decided" and data.get("id") in requests:
            outcome = str(data.get("outcome"))
            if outcome != "allowed-once" and requests[data.get("id")] != call_id_of(asked):
                return requests[data.get("id")], outcome
    return None


_UNREGISTERED_PROBE_SHOWS = {
    "unknown": "a reply calling {name} with {arguments} after it, sent to tell, was answered "
    "UNKNOWN_TOOL",
    "hooked": "a reply calling {name} with {arguments} after it, sent to tell, had its hooks run",
}


def _unregistered_probe_shows(shown: str, name: str, arguments: str = "[]") -> str:
    """What the call of tool `name` with `arguments` made again to tell showed (`shown`,
    `no_object_call_judged`'s "unknown" or "hooked"), in words."""
    return _UNREGISTERED_PROBE_SHOWS[shown].format(name=name, arguments=arguments)


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


def _rewrite_on_a_denial(
    call_id: str | None,
    said: str,
    target_events: Sequence[Event],
    history: Sequence[Event],
    *,
    config: LoopConfig | None,
    probe: Probe | None,
    executed: Sequence[tuple[str, str]] = (),
) -> tuple[str, str]:
    """The rule of a call recorded with a hook's input though a hook denied it (`said` says
    so): HOOK-3 when the target denies the call, keeping the input all the same; HOOK-2 when
    it asks the user about the call or runs it (`executed`: the bodies it ran in this
    command), its merge not a deny (the input it applied is the asking or allowing hook's). An
    earlier call holding the gate hides which: the target is sent those calls' finishes
    (`probe`), and when it still does not show, the report says so."""
    if approval_asked_for(call_id, target_events):
        return "HOOK-2", (
            f"{said}: the target asks the user about it, so it did not merge its hooks' "
            "answers to a deny (deny > ask > allow > pass), and applied the input of a hook "
            "that did not deny"
        )
    if call_id in {started for started, _arguments in executed}:
        return "HOOK-2", (
            f"{said}: the target runs it, so it did not merge its hooks' answers to a deny "
            "(deny > ask > allow > pass), and applied the input of a hook that did not deny"
        )
    shown = "denied" if _denial_for(call_id, target_events) else None
    shown = shown or _merge_shown_by_probe(call_id, config, history, probe, target_events)
    if shown in ("asked", "ran"):
        done = "asked the user about it" if shown == "asked" else "ran it"
        return "HOOK-2", (
            f"{said}: once the calls before call {call_id} finished, the target {done}, so "
            "it did not merge its hooks' answers to a deny (deny > ask > allow > pass), and "
            "applied the input of a hook that did not deny"
        )
    if shown == "denied":
        return "HOOK-3", said  # it denied the call, as it must: the rewrite it kept is the bug
    return "HOOK-3", (
        f"{said}; whether the target denies call {call_id} its log does not show yet: if it "
        "asks the user about it or runs it, its merge is wrong too (HOOK-2: a deny outranks "
        "every other answer)"
    )


def _once_earlier_calls_settle(
    call_id: str | None,
    target_events: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
    ran: list[tuple[str, str]] | None = None,
) -> list[Event]:
    """What the target appends once each call it recorded before `call_id` in `target_events`,
    still without a result there, succeeds (its PostToolUse hooks passing), or is rejected when
    it waits for its approval, until `call_id`'s result is in: where a call refused at the gate
    commits its result (ORD-3). `ran`, when given, gathers the bodies it starts meanwhile."""
    if probe is None or config is None:
        return []
    records = [e for e in target_events if e.get("type") == "tool/call"]
    ids = [call_id_of(e) for e in records]
    if call_id not in ids:
        return []
    seen: list[Event] = []
    for record in records[: ids.index(call_id)]:
        earlier = call_id_of(record)
        if earlier is None or result_for(earlier, [*target_events, *seen]):
            continue
        probed = probe(settling(record, config, [*target_events, *seen]))
        if probed is None or not probed.accepted:
            continue
        seen += probed.events
        if ran is not None:
            ran.extend(probed.executed)
        if result_for(call_id, seen):
            break
    return seen


def _merge_shown_by_probe(
    call_id: str | None,
    config: LoopConfig | None,
    history: Sequence[Event],
    probe: Probe | None,
    shown: Sequence[Event] = (),
) -> Literal["asked", "ran", "denied", "failed"] | None:
    """What the target does with `call_id` once each earlier call of its step still without a
    result settles (`settling`: a success, its PostToolUse hooks passing, or its approval
    rejected where it waits for one): it asks the user about it, runs it, denies it or ends it
    with an error of its own code ("failed"); None when it shows none of these (or cannot be
    probed). `history` is the model's, this
    command's events included, and `shown` what the target appended in this command (an
    approval it asked for there): the calls settled are those the target's log leaves
    unanswered, settled as it shows them (a call the model asks about may run there)."""
    if probe is None or config is None or call_id is None:
        return None
    seen = _target_log(history, shown)
    for record in _earlier_unanswered(call_id, seen):
        probed = probe(settling(record, config, seen))
        if probed is None or not probed.accepted:
            continue
        seen += probed.events
        if call_id in {started for started, _arguments in probed.executed}:
            return "ran"
        if any(
            e.get("type") == "approval/asked" and call_id_of(e) == call_id for e in probed.events
        ):
            return "asked"
        if _denial_for(call_id, probed.events):
            return "denied"
        if _own_error_code(call_id, probed.events) is not None:
            return "failed"
    return None


def _denial_for(call_id: str | None, events: Sequence[Event]) -> bool:
    """Whether `events` hold a denial of call `call_id`: a tool/result that is an error with no
    code, as a deny's is (a result with a code, INVALID_TOOL_INPUT or one of the loop's own, is
    no denial, as `_extra` reads one)."""
    return any(
        e.get("type") == "tool/result"
        and call_id_of(e) == call_id
        and _is_error(e)
        and error_code(e) is None
        for e in events
    )


def _deny_outranked(
    expected: Observation, actual: Observation, history: Sequence[Event]
) -> tuple[str, str] | None:
    """HOOK-2, when the model denies a call in this command that the target asks the user
    about or runs: a deny outranks every other answer. Not for a call the target runs after
    logging the model's denial of it: its merge was right, and the run breaks DEC-1."""
    executed = {call_id for call_id, _arguments in actual.executed}
    asked = {call_id_of(e) for e in actual.events if e.get("type") == "approval/asked"}
    for result in expected.events:
        call_id = call_id_of(result)
        if result.get("type") != "tool/result" or call_id not in executed | asked:
            continue
        answers = _pre_answers(call_id, history)
        said = {
            word: [hook for hook, reading, _supplied in answers if reading == word]
            for word in ("deny", "ask", "allow")
        }
        others = [f"{_named(said[word])} {word}ed" for word in ("ask", "allow") if said[word]]
        if not (said["deny"] and others):
            continue
        if call_id not in asked and any(
            e.get("type") == "tool/result" and _equal_but_time(result, e) for e in actual.events
        ):
            # The target logged the model's denial, so its merge was right; it ran the body
            # anyway: a denied call ran (DEC-1), for the comparison of its runs to name.
            continue
        done = "asks the user about it" if call_id in asked else "runs it"
        return "HOOK-2", (
            f"the target {done}, but {_named(said['deny'])} denied call {call_id} and "
            f"{' and '.join(others)}: a deny outranks every other answer "
            "(deny > ask > allow > pass), so the call is denied, never run, and every input a "
            "hook supplied for it is discarded (HOOK-3)"
        )
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
    state = LoopState(config)
    started: dict[str, int] = {}
    for number, command in enumerate(program[:-1], start=1):
        try:
            after = step(state, command)
        except TransitionRefused:
            continue
        for run in after.executions[len(state.executions) :]:
            started[run.call_id] = number
        state = after
    phase = state.phase
    if not isinstance(phase, Dispatching):
        return None
    runs = {
        run.call_id for run in state.executions if (run.turn, run.step) == (phase.turn, phase.step)
    }
    return started.get(call_id) if call_id in runs else None


def _execution_rule(
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
        situation = _situation(call_id, history)
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
        raw = _recorded(call_id, "arguments", history)
        if _falsy_json(raw):
            # Started as no arguments, {}: how they were read is what is wrong (it read as
            # SCHED-1 while an earlier call ran, EXE-5 where the model's error committed).
            return "EXE-2", f"{ran}: " + _falsy_read_as_empty(raw, "starts it")
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
            for e in _calls_step(call_id, history)
        ):
            return "ORD-2", f"{ran}: it has no tool/call record"
        waiting = _awaiting_approval(history)
        if waiting is not None and waiting != call_id:
            return "SCHED-2", (
                f"{ran}: call {waiting} waits for its approval answer, and no later call passes "
                "the gate meanwhile"
            )
        failed_early = _failed_open_before(
            call_id, history, actual.events, program=program, config=config, probe=probe
        )
        if failed_early is not None:
            return failed_early[0], f"{ran}: {failed_early[1]}"
        unasked = _asked_yet_answered_before(call_id, history, actual.events, config, probe)
        if unasked is not None:
            return "DEC-2", f"{ran}: {unasked}"
        return "SCHED-1", (
            f"{ran}: calls pass the gate in model order, and it comes after "
            f"{_unanswered_before(call_id, history)}; an exclusive call (a tool the "
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
    call_id = next(c for c in wanted if _as_value(wanted[c]) != _as_value(started[c]))
    situation = _situation(call_id, history)
    ran = f"the body of call {call_id} runs with other arguments than its tool/call records"
    ran_with = _as_value(started[call_id])
    if not (situation.supplied or situation.rewritten) or not (
        ran_with == situation.original
        or any(ran_with == _Parsed(supplied) for supplied in situation.supplied)
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
            for e in _calls_step(call_id, events)
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


def _settled_unrun_before(call_id: str, history: Sequence[Event]) -> tuple[str, str] | None:
    """An earlier call of `call_id`'s reply that the model settled without running its body
    (denied by a hook, its approval not granted, its input invalid or its tool unknown), and
    how it was settled; None when there is none."""
    step = _calls_step(call_id, history)
    reply = next(
        (
            e
            for e in reversed(step)
            if e.get("type") == "assistant/message" and call_id in _reply_call_ids(e)
        ),
        None,
    )
    if reply is None:
        return None
    ids = _reply_call_ids(reply)
    results = {call_id_of(e): e for e in step if e.get("type") == "tool/result"}
    for earlier in ids[: ids.index(call_id)]:
        if earlier is None or earlier not in results:
            continue
        situation = _situation(earlier, history)
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
        hooks = f"{_named(matching)} matching" if matching else "no hook matches"
        return (
            f"the model takes call {command.call_id}'s outcome with {len(command.post)} "
            f"PostToolUse verdict(s), one per PostToolUse hook matching tool {name!r} ({hooks} "
            f"it), and the target takes it with {count}: it runs another set of PostToolUse "
            f"hooks on the result than those whose matcher matches the tool's whole name (each "
            "judges it once, HOOK-5; matchers, HOOK-8)"
        )
    return None


def _target_log(
    history: Sequence[Event],
    target_events: Sequence[Event],
    model_events: Sequence[Event] | None = None,
) -> list[Event]:
    """What the target logged so far, as the probes blaming a divergence continue it: the
    model's `history` (this command's events included, as `classify` has it) without this
    command's events, the two logs having agreed up to this command, then the target's of this
    command, `target_events`. This command's model events are `model_events` where the caller
    has them (the last of `history`), else those from the seq the target's events start at;
    `history` is kept whole where none carries an integer seq."""
    if model_events is not None:
        return [*history[: len(history) - len(model_events)], *target_events]
    seqs = [e.get("seq") for e in target_events]
    first = next((seq for seq in seqs if isinstance(seq, int)), None)
    kept = [e for e in history if first is None or _seq_before(e, first)]
    return [*kept, *target_events]


def _seq_before(event: Event, seq: int) -> bool:
    own = event.get("seq")
    return isinstance(own, int) and own < seq


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
    state, taken = LoopState(config), None
    for number, sent in enumerate(program, start=1):
        try:
            state = step(state, sent)
        except TransitionRefused:
            continue
        taken = number
    return taken


def _refusal_rule(
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
                rule = _abort_rule(phase)
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


# What the target is sent when its repair appends nothing where the model's closes a turn
# (`_repair_or_loss`): the seq its next turn opens at tells which of two bugs it has.
LOSS_PROBE = SubmitUser("probe")


def _logged(events: Sequence[Event], probe: Probe | None) -> list[Event]:
    """`events`, what the target logged, then what the probes blaming this divergence made it
    log so far (`_LoggedProbe`): a hook an earlier probe passed commits a reply whose calls a
    probe must settle before it makes a call of its own."""
    return [*events, *(probe.seen if isinstance(probe, _LoggedProbe) else ())]


@attrs.define
class _LoggedProbe:
    """A probe that keeps what the target logged for each command it took (`seen`): the
    probes blaming one divergence share the target, each after the ones before, and one
    settling the calls the target logged must know the calls an earlier probe made it log."""

    probe: Probe
    seen: list[Event] = attrs.field(factory=list)

    def __call__(self, command: Command) -> Observation | None:
        observed = self.probe(command)
        if observed is not None and observed.accepted:
            self.seen += observed.events
        return observed


@runtime_checkable
class _Probing(Protocol):
    """A target that takes a probe without counting its failure as the run's (`GuardedTarget`)."""

    def probe(self, command: Command) -> Observation | None: ...


def probe_for(target: ConformanceTarget) -> Probe:
    """How to send `target` one command after a divergence: a failure then is None, not an
    error, since the divergence is already found and the probe only sharpens its blame."""
    if isinstance(target, _Probing):
        return target.probe

    def probe(command: Command) -> Observation | None:
        try:
            return target.apply(command)
        except Exception:  # whatever a target raises, the probe tells nothing then
            return None

    return probe


def _repair_or_loss(
    command: Command,
    expected: Observation,
    actual: Observation,
    history: Sequence[Event],
    probe: Probe,
) -> tuple[str, str] | None:
    """LOG-8, when the target's repair appends nothing where the model closes the tail turn
    because the crash lost the commits that opened it: the log it reopened was balanced, so
    there was nothing to repair. A target that does not repair (REC-1) and one whose log lost
    those commits append the same nothing; the turn the target opens next tells them apart
    (seqs continue from the log it reopened). None when it does not show a loss: REC-1 then."""
    if not (
        isinstance(command, Recover)
        and expected.accepted
        and actual.accepted
        and any(map(in_scope, expected.events))
        and not any(map(in_scope, actual.events))
    ):
        return None
    probed = probe(LOSS_PROBE)
    first = next((e for e in probed.events if in_scope(e)), None) if probed else None
    seq = first.get("seq") if first is not None else None
    due = len(history) - len(expected.events)
    if type(seq) is not int or seq >= due:
        return None
    return "LOG-8", (
        f"the target's crash repair appends nothing, and the turn it opens next starts at seq "
        f"{seq}, where {due} was due: the crash lost {due - seq} committed event(s), which a "
        "crash must keep; the log it reopened ended balanced, so there was nothing to repair"
    )


def _tool_named(call_id: str | None, history: Sequence[Event]) -> str:
    """The tool of `call_id` as the model's tool/call records it ("?" when none does)."""
    for event in history:
        if event.get("type") == "tool/call" and call_id_of(event) == call_id:
            return str(data_of(event).get("name"))
    return "?"


# Texts a language's truth test reads as false beside "": Perl's "0", PHP's "0".
_FALSE_TO_SOME = frozenset({"0"})


def _queued_by(message: Event, command: Command) -> str:
    """Words on who queued `message` when this command's result did (a context its body
    deferred or a PostToolUse hook added), "" otherwise: it opens this very step/start."""
    source = data_of(message).get("source")
    text = message_text(message)
    if not isinstance(command, ToolFinishes) or text is None or not isinstance(source, dict):
        return ""
    if source.get("kind") != "plugin":
        return ""
    return (
        f": the context {spelled(text)}, queued with a result of this batch, opens the "
        f"step/start that follows the batch's last result (call {command.call_id}'s, here), in "
        "the same commit, not a later step's"
    )


def _delivered_twice(
    message: Event, model_events: Sequence[Event], target_events: Sequence[Event]
) -> bool:
    """Whether the model delivers `message`'s text in more user/messages of these events than
    the target does, which delivers it at least once."""

    def count(events: Sequence[Event]) -> int:
        return sum(
            1
            for e in events
            if e.get("type") == "user/message"
            and message_text(e) == message_text(message)
            and data_of(e).get("source") == data_of(message).get("source")
        )

    theirs = count(target_events)
    return 0 < theirs < count(model_events)


def _prompts_own(message: Event, command: Command, model_events: Sequence[Event]) -> bool:
    """Whether the user/message `message` is the prompt `command` sends, opening a turn: the
    last user/message the model appends for it, of the prompt's text and the user's source
    (messages parked before it come first)."""
    messages = [e for e in model_events if e.get("type") == "user/message"]
    return (
        isinstance(command, SubmitUser)
        and bool(messages)
        and messages[-1] == message
        and _source_of(message) == {"kind": "user"}
        and message_text(message) == command.text
    )


_WHITESPACE_CONTEXT = (
    "{lacks}: a context of only whitespace is not empty, so it is queued and delivered as "
    'given, untrimmed, after the next step/start (only "" is no context)'
)
_TRIMMED_TOO = (
    "; a PostToolUse block drops the body's own contexts, never its hooks', and the target "
    "also loses this context given with no block (a call sent to tell, a hook giving it)"
)


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


def _parked_words(want: Event, got: Event, ended: str | None) -> str:
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
            f"message here is {_message_words(got)}"
        )
    return (
        f"; those the last turn left queued (it ended {ended} before another step/start) open "
        "the next turn's first step, before the user's own message" + _after_abort_note(want, ended)
    )


def _after_abort_note(want: Event, ended: str) -> str:
    """What is parked after an abort, when the message due is a queued context."""
    if ended != spelled("aborted") or _source_of(want) != {
        "kind": "plugin",
        "plugin": "tool-context",
    }:
        return ""
    return (
        ", a PostToolUse hook's context for a body that settled after the abort among them "
        "(SPEC.md section 3: hooks judge every body that ran)"
    )


def _reply_end_rule(reply: ModelReplies) -> str:
    """The rule saying how the turn goes on after `reply`: ABORT-2's for a cancelled one (its
    step and turn end aborted, messages queued or not), STEP-4's for any other."""
    return "ABORT-2" if reply.finish == "cancelled" else "STEP-4"


def _how_the_reply_ends(reply: ModelReplies, model_events: Sequence[Event]) -> str:
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


def _ended_by_an_idle_abort(
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
        (e for e in actual.events if e.get("type") == "turn/end" and _reason_kind(e) == "aborted"),
        None,
    )
    mine = [e for e in expected.events if e.get("type") == "turn/end"]
    if theirs is None or any(_reason_kind(e) == "aborted" for e in mine):
        return None
    # Which Aborts came while no turn ran is the model's phase then: the program replayed
    # (only here, where a target's turn ends aborted with no abort in sight).
    state = LoopState(config)
    idle_aborts: list[tuple[int, str]] = []
    for number, sent in enumerate(program[:-1], start=1):
        if isinstance(sent, Abort) and isinstance(state.phase, Idle):
            idle_aborts.append((number, sent.cause))
        try:
            state = step(state, sent)
        except TransitionRefused:
            continue
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
    ours = f"ends it {spelled(_reason_kind(mine[0]))}" if mine else "goes on"
    return "MODEL-3", (
        f"the target ends the turn aborted, cause {spelled(cause)}, where the model {ours}: no "
        f"abort landed in this turn, and command #{kept}, "
        f"an Abort sent while no turn ran{kept_cause}, was refused by the model and by the "
        "target (MODEL-1: there is nothing to abort), yet the target kept it for the next "
        "turn; a refused command changes nothing"
    )


def _repair_mistimed(
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


def _abort_cause_ending(model_events: Sequence[Event]) -> str | None:
    """The cause of the abort whose turn/end is among `model_events`, spelled; None when they
    end no turn aborted."""
    for event in model_events:
        reason = data_of(event).get("reason") if event.get("type") == "turn/end" else None
        if isinstance(reason, dict) and reason.get("kind") == "aborted":
            cause = reason.get("reason")
            return spelled(cause.get("kind") if isinstance(cause, dict) else cause)
    return None


def _parking_turn_end(model_events: Sequence[Event], history: Sequence[Event]) -> str | None:
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
    only what the target does next tells two bugs apart (`_repair_or_loss`).
    `config` is the program's configuration (None: not known), which names the hooks a target
    may wait on that the model does not run; `program` the commands sent so far, this one
    included, whose replies name the tool of a call the model has not logged yet.
    """
    probe = None if probe is None else _LoggedProbe(probe)
    difference = None
    if expected.accepted and actual.accepted:
        difference = _first_event_difference(expected.events, actual.events)
        outranked = _deny_outranked(expected, actual, history)
        if outranked is not None:
            # Asked about or run though a hook denied it: the merge is what is wrong, whatever
            # the input the target then applied (read as RW-1, or as RW-2 from its own log).
            return outranked
    if target_violations:
        first = target_violations[0]
        where = next(
            (i for i, e in enumerate(actual.events) if _violation_seq(e) == first.seq),
            len(actual.events),
        )
        # A violation caused by an earlier wrong event is blamed on that event's rule; one that
        # only reorders events is the ordering rule the invariant names. A call record missing
        # (not moved) right before the violating event is such an earlier wrong event: the
        # result after it answers a call never recorded (ADJ-2) only because the record is gone.
        reordered = difference is not None and _reordered(difference, expected, actual)
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
            arguments = _arguments_rule(
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
            mistimed = _repair_mistimed(command, first, expected, actual)
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
                return _rewrite_on_a_denial(
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
        return _refusal_rule(
            command, phase, expected, actual, history, program=program, config=config, probe=probe
        )
    lost = _repair_or_loss(command, expected, actual, history, probe) if probe else None
    if lost is not None:
        return lost
    latched = _ended_by_an_idle_abort(command, expected, actual, config, program)
    if latched is not None:
        return latched
    if difference is not None:
        want, got = difference.want, difference.got
        match difference.relation:
            case "changed":
                assert want is not None
                assert got is not None
                return _changed(
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
                return _missing(
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
                return _extra(
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
        return _execution_rule(
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
