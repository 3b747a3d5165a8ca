"""The rule a call's arguments that differ from the model's break (`arguments_rule`): which
hook's supplied input is applied, merged, refused or kept, and how readers parse it."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from loopspec.model.config import LoopConfig
from loopspec.model.json_text import same_json, spelled
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import ToolCallBlock
from loopspec.model.rewrite import input_problem
from loopspec.model.wording import ERROR_PREFIX, REWRITE_REFUSED
from loopspec.properties.conformance.blame.history import (
    call_arguments,
    named,
    reply_call_ids,
    reply_or_record_ids,
    result_text,
    target_log_so_far,
)
from loopspec.properties.conformance.blame.hook_answers import (
    dropped_by_an_ask,
    not_erased_by_later,
    rewrite_on_a_denial,
)
from loopspec.properties.conformance.blame.situation import Situation, call_situation, pre_answers
from loopspec.properties.conformance.call_again import (
    Probe,
    inputs_sent_again,
    settling,
    winner_shown,
)
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of, result_for
from loopspec.properties.conformance.json_values import ParsedJson, as_run_value, as_value


def arguments_rule(
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
    call_ids = [call_id_of(want)] if want.get("type") == "tool/call" else reply_call_ids(want)
    # SPEC's names, with the event a reader looks for in their own loop's code.
    where = (
        "audit record (tool/call)"
        if want.get("type") == "tool/call"
        else "model history (assistant/message)"
    )
    wanted, applied = call_arguments(want), call_arguments(got)
    # Each call's arguments as the target applied them, where its calls are the model's.
    theirs = dict(zip(call_ids, applied, strict=True)) if len(applied) == len(call_ids) else {}
    if len(wanted) == len(applied) == len(call_ids):  # judge the calls whose arguments differ
        differ = [c for c, w, a in zip(call_ids, wanted, applied, strict=True) if w != a]
        call_ids = differ or call_ids
    for call_id in call_ids:
        situation = call_situation(call_id, history)
        rewrote = any(
            e.get("type") == "tool/call"
            and data_of(e).get("callId") == call_id
            and bool(data_of(e).get("rewrite"))
            for e in (got, *target_events)
        )
        denying = [hook for hook, reading, _ in pre_answers(call_id, history) if reading == "deny"]
        if denying and call_id in theirs and theirs[call_id] != situation.original:
            # Any input applied to a denied call is the bug, whichever hook's it is: one asking
            # or allowing won the merge (HOOK-2), or the denial kept it (HOOK-3). Read as an
            # earlier rewrite winning, an ask outranking the deny was sent to HOOK-3's order.
            said = (
                f"the call's arguments in the {where} are a hook's input, but "
                f"{named(denying)} denied call {call_id}: a deny discards every rewrite, so a "
                "denied call keeps the model's own arguments"
            )
            return rewrite_on_a_denial(
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
        if len(situation.supplied) >= 2 and applied_earlier_rewrite(want, got, situation, rewrote):
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
                f"the call for an input {named(situation.suppliers[-1:])}'s replaces; only the "
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
            shown_once_settled(call_id, target_events, config, probe, probed_runs)
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
            dropped = dropped_by_an_ask(call_id, history) if kept else None
            if dropped is not None:
                return "HOOK-3", f"the call's arguments in the {where} are the model's: {dropped}"
            erased = not_erased_by_later(call_id, history) if kept else ""
            rounded = (
                None
                if kept
                else _number_rounded(
                    dict(zip(reply_or_record_ids(want), wanted, strict=False)).get(call_id),
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
                shown = shown_once_settled(call_id, target_events, config, probe, probed_runs)
            if printed is not None and _every_reader_holds(
                call_id, printed, shown, (*executed, *probed_runs)
            ):
                return "RW-2", (
                    f"the call's arguments in the {where}, its tool/call and the arguments it "
                    f"runs with are {spelled(printed)}, no JSON, where "
                    f"{named(situation.suppliers[-1:])} supplied {spelled(situation.supplied[-1])}"
                    ": an input a hook supplied is recorded as the JSON value it gave, written "
                    "by a JSON encoder, not as the language prints the value (Go's fmt.Sprint "
                    "of a map writes map[key:value])"
                )
            merged_in = None if kept else _merged_into_original(situation, theirs.get(call_id))
            if merged_in is not None:
                return "RW-2", (
                    f"the call's arguments in the {where} are {named(situation.suppliers[-1:])}'s "
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
                    f"runs with are the model's, where {named(situation.suppliers[-1:])} "
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


def _merged_not_earlier(
    call_id: str | None,
    situation: Situation,
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
    if kept is None or not isinstance(situation.original, ParsedJson):
        return None
    original = situation.original.value
    if not isinstance(original, dict) or not isinstance(last, dict):
        return None
    inputs: dict[str, object] = {hook: {**original, "probe": hook} for hook in situation.suppliers}
    inputs[situation.suppliers[-1]] = last
    shown = inputs_sent_again(
        call_id,
        pre_answers(call_id, history),
        inputs,
        history,
        target_log_so_far(history, target_events),
        config=config,
        probe=probe,
    )
    if shown is None or shown[0] != {**original, **last}:
        return None
    return (
        f"{named(situation.suppliers[-1:])}'s input merged into the model's arguments ({kept}"
        f"; the call made again, sent to tell, each earlier hook's input changed, records that "
        "merge again): a hook's input replaces the call's whole input, recorded as the JSON "
        "value it gave"
    )


def _merged_into_original(situation: Situation, applied: object) -> str | None:
    """The keys of the model's own arguments a target kept beside the last input a hook
    supplied, when its arguments are that input merged into them (a patch, not a replacement:
    Claude Code #30770 asked for one); None otherwise."""
    if not situation.supplied or not isinstance(applied, ParsedJson):
        return None
    given, original = situation.supplied[-1], situation.original
    if not isinstance(given, dict) or not isinstance(original, ParsedJson):
        return None
    if not isinstance(original.value, dict) or ParsedJson({**original.value, **given}) != applied:
        return None
    kept = [key for key in original.value if key not in given]
    if not kept:
        return None
    return "the keys " + ", ".join(json.dumps(key) for key in kept) + " kept from the model's"


def _printed_not_encoded(
    call_id: str | None, situation: Situation, theirs: dict[str | None, object]
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
    situation: Situation,
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
        as_value(data_of(event).get("arguments"))
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


def _number_rounded(wanted: object, applied: object) -> str | None:
    """`N written as M` for the first number that differs where the two arguments are
    otherwise the same JSON value (the same keys, items and strings), the applied one another
    number: a writer that rounds numbers (C's `%g`, six digits; a double for an integer); None
    otherwise."""
    if not (isinstance(wanted, ParsedJson) and isinstance(applied, ParsedJson)):
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


def _refusal_applied(
    call_id: str | None, situation: Situation, theirs: dict[str | None, Any], where: str
) -> str | None:
    """How the target applied an input the model refuses (HOOK-6): the call keeps the model's
    arguments (no sidecar, no deny) where the target's are the last input a hook supplied."""
    if situation.rewritten or not situation.supplied or "deny" in situation.hook_decisions:
        return None
    if call_id not in theirs or ParsedJson(situation.supplied[-1]) != theirs[call_id]:
        return None
    return (
        f"the call's arguments in the {where} are the input {named(situation.suppliers[-1:])} "
        "supplied, which its tool cannot take: such an input is refused, never applied; the "
        "call keeps the model's arguments in every reader and is denied with a reason naming "
        "the hook"
    )


def _kept_the_models_arguments(
    call_id: str | None, situation: Situation, theirs: dict[str | None, Any]
) -> bool:
    """Whether hooks supplied an input for `call_id` and the target kept the model's arguments
    (as a refusal of the call does)."""
    return bool(situation.supplied) and call_id in theirs and theirs[call_id] == situation.original


def shown_once_settled(
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
    situation: Situation,
    theirs: dict[str | None, Any],
    where: str,
    shown: Sequence[Event],
) -> str | None:
    """How the target refused an input the model applies (HOOK-6 the other way round): the
    call keeps the model's arguments and is denied as an unacceptable rewrite in the name of
    the hook whose input is in effect, which its tool takes (the model applies it). `shown`
    holds the call's result where the target gave one (`shown_once_settled`)."""
    if "deny" in situation.hook_decisions or not _kept_the_models_arguments(
        call_id, situation, theirs
    ):
        return None
    refusal = ERROR_PREFIX + REWRITE_REFUSED.partition(" {tool}")[0]
    said = next(
        (
            result_text(e)
            for e in shown
            if e.get("type") == "tool/result"
            and call_id_of(e) == call_id
            and result_text(e).startswith(refusal.format(hook=situation.suppliers[-1]))
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
        f"{named(situation.suppliers[-1:])} supplied, {json.dumps(supplied, ensure_ascii=False)}, "
        f"saying {said!r}, but its tool takes it{why}: only an input the tool cannot take is "
        "refused; this one is applied and runs"
    )


def refused_in_place(
    want: Event,
    got: Event,
    situation: Situation,
    history: Sequence[Event],
    *,
    target_events: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> str | None:
    """`_acceptable_input_refused` for a tool/call whose input in effect equals the model's own
    arguments (so only the sidecar differs), with the input the target judged in its place."""
    call_id = call_id_of(want)
    theirs = dict(zip([call_id], call_arguments(got), strict=False))
    where = "audit record (tool/call)"
    if "deny" in situation.hook_decisions or not _kept_the_models_arguments(
        call_id, situation, theirs
    ):
        return None  # no refusal to fetch: keep the probe's target as it is
    shown = shown_once_settled(call_id, target_events, config, probe)
    refused = _acceptable_input_refused(call_id, situation, theirs, where, shown)
    judged = _replaced_input_judged(call_id, situation, theirs, history, config)
    return refused if refused is None or judged is None else f"{refused} ({judged})"


def _replaced_input_judged(
    call_id: str | None,
    situation: Situation,
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
        f"{named(unacceptable)} supplied an input its tool cannot take, and "
        f"{named(situation.suppliers[-1:])} a later one, which replaces it whatever either "
        "hook decided (the last input in configured order wins); only the input in effect is "
        "judged (HOOK-6), so the call runs the later input: an earlier input that wins, or "
        "one judged though replaced, refuses the call so"
    )


def _refused_earlier_rewrite(
    call_id: str | None, situation: Situation, target_events: Sequence[Event]
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
    call_id: str | None, situation: Situation, theirs: dict[str | None, Any]
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
    if merged == supplied[-1] or ParsedJson(merged) != theirs[call_id]:
        return None
    return (
        f"are the inputs {named(situation.suppliers)} supplied merged key by key: the last "
        f"input in configured order, {named(situation.suppliers[-1:])}'s, replaces the "
        "arguments whole, and no key of an earlier input survives it"
    )


def sidecar_reordered(
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
    if call_arguments(want) != call_arguments(got):
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
            f"{names}; the target's is the sidecar of {named([str(winner)])}'s input in "
            f"effect, where the last input supplied in configured order, "
            f"{named(wanted[-1:])}'s, is (the two inputs are equal here, so the call's "
            "arguments agree)"
        )
    shown = winner_shown(want, [str(hook) for hook in wanted], history, config, probe)
    if shown is not None and shown != str(wanted[-1]):
        return "HOOK-3", (
            f"{names}; the target's is the sidecar of {named([str(winner)])}'s input in "
            f"effect, where the last input supplied in configured order, "
            f"{named(wanted[-1:])}'s, is (the two inputs are equal here, so the call's "
            f"arguments agree; a call sent after it to tell, given unequal inputs by the same "
            f"hooks, ran {named([shown])}'s)"
        )
    if shown is not None:
        return "RW-2", (
            f"{names}; the call's arguments are the input in effect, {named(wanted[-1:])}'s, "
            "and the target applies it (a call sent after it to tell, given unequal inputs by "
            f"the same hooks, ran {named(wanted[-1:])}'s): only the record is in another order"
        )
    return "RW-2", (
        f"{names}; the call's arguments are the input in effect, {named(wanted[-1:])}'s (had "
        f"an equal input of {named(recorded[-1:])} won instead, the winner would be HOOK-3's)"
    )


def _earlier_winner(
    call_id: str | None, situation: Situation, theirs: dict[str | None, Any]
) -> str:
    """Which earlier hook's input the target applied to `call_id`, in words (or nothing when
    its arguments are no earlier input): the last input supplied is in effect."""
    applied = theirs.get(call_id)
    earlier = [
        hook
        for hook, value in zip(situation.suppliers[:-1], situation.supplied[:-1], strict=True)
        if applied is not None and ParsedJson(value) == applied
    ]
    if not earlier or not situation.suppliers:
        return ""
    return (
        f": call {call_id} runs the input {named(earlier[:1])} supplied, where "
        f"{named(situation.suppliers[-1:])}'s, the last supplied in configured order, is in "
        "effect, whatever order the hooks answered in"
    )


def applied_earlier_rewrite(
    want: Event, got: Event, situation: Situation, target_rewrote: bool
) -> bool:
    """Whether the target's tool/call or reply `got` applied a rewrite other than the last
    hook's where the model's `want` applied that one: its arguments are an earlier hook's
    supplied input, or the sidecars differ in the hook named last."""
    wanted, applied = call_arguments(want), call_arguments(got)
    earlier = situation.supplied[:-1]
    # Arguments equal to the model's own, when an earlier hook's identity rewrite supplied the
    # same value, are that rewrite winning only if the target says it applied a rewrite (its
    # tool/call has a sidecar); without one, no rewrite was applied at all (RW-1).
    if any(
        a != w
        and (a != situation.original or target_rewrote)
        and any(ParsedJson(e) == a for e in earlier)
        for w, a in zip(wanted, applied, strict=False)
    ):
        return True
    # The hook in effect is a sidecar's last: one naming the same hook last, with other
    # suppliers before it, records the rewrites wrongly (RW-2) but applied the right one.
    sidecars = [data_of(e).get("rewrite") for e in (want, got) if e.get("type") == "tool/call"]
    handlers = [s.get("handlerIds") for s in sidecars if isinstance(s, dict)]
    lasts = [h[-1:] if isinstance(h, list) else h for h in handlers]
    return len(lasts) == 2 and lasts[0] != lasts[1]


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
