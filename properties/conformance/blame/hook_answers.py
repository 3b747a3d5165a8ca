"""How a call's PreToolUse answers combine: denials, asks, rewrites refused or kept, hooks
that failed open or closed, and the probes telling an ask's merge from a kept rewrite."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal, assert_never

from loopspec.model.commands import Allow, Command, HookAnswers, ModelReplies, Pass
from loopspec.model.config import LoopConfig
from loopspec.model.state import Rewriting
from loopspec.model.wording import REWRITE_REFUSED_WORDS
from loopspec.properties.conformance.blame.history import (
    earlier_unanswered,
    is_error,
    is_refusal,
    model_steps,
    named,
    own_error_code,
    target_log_so_far,
)
from loopspec.properties.conformance.blame.situation import call_situation, pre_answers
from loopspec.properties.conformance.call_again import Probe, settling, supplied_input_fate
from loopspec.properties.conformance.compare import equal_but_time
from loopspec.properties.conformance.event_fields import (
    Event,
    approval_asked_for,
    call_id_of,
    data_of,
    error_code,
)
from loopspec.properties.conformance.target import Observation


def failed_closed(
    call_id: str | None, want: Event, history: Sequence[Event], started: frozenset[str]
) -> str | None:
    """Why a call the target started is denied, where the model's result for it is a denial
    and the only hooks that could have denied it are audited `error`: a hook that failed under
    fail-closed (HOOK-7), which a loop may take for no decision. None otherwise."""
    if call_id not in started or error_code(want) is not None or not is_refusal(want):
        return None
    answers = pre_answers(call_id, history)
    failed = [hook for hook, reading, _supplied in answers if reading == "error"]
    if not failed or any(reading == "deny" for _hook, reading, _supplied in answers):
        return None
    return (
        f"the target runs it, but {named(failed)} denied it: a hook that failed under "
        "fail-closed denies the call (HOOK-7), its audit recording error, and a denied call "
        "never runs; the loop acts on the verdict, not the audit's word"
    )


def refused_rewrite(
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
    answers = pre_answers(call_id, history)
    suppliers = [i for i, (_hook, _reading, supplied) in enumerate(answers) if supplied]
    if not refused or not suppliers:
        return None
    supplier = named([answers[suppliers[-1]][0]])
    erased = not_erased_by_later(call_id, history)
    logged = target_log_so_far(history, target_events, model_events)
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


def not_erased_by_later(call_id: str | None, history: Sequence[Event]) -> str:
    """`; hook x answered after hook y without an input: a passthrough never erases a rewrite
    (HOOK-3)` when hooks answered `call_id` after the last one that supplied an input (y)
    without one; else empty. A loop whose last answer decides the input (Claude Code #15897)
    drops the input so; one that ignores every input looks the same in such a program."""
    answers = pre_answers(call_id, history)
    suppliers = [i for i, (_hook, _reading, supplied) in enumerate(answers) if supplied]
    if not suppliers:
        return ""
    later = [hook for hook, _reading, _supplied in answers[suppliers[-1] + 1 :]]
    if not later:
        return ""
    return (
        f"; {named(later)} answered after {named([answers[suppliers[-1]][0]])} without an "
        "input: a passthrough never erases a rewrite (HOOK-3)"
    )


def dropped_by_an_ask(call_id: str | None, history: Sequence[Event]) -> str | None:
    """Why an input a hook supplied for `call_id` stays in effect though another hook asked
    without one, when one did (HOOK-3); None otherwise. A loop that lets the winning decision's
    hook decide the input (an ask, which brings none) drops the input so."""
    answers = pre_answers(call_id, history)
    suppliers = [i for i, (_hook, _reading, supplied) in enumerate(answers) if supplied]
    if not suppliers or answers[suppliers[-1]][1] == "ask":
        return None
    asked = [hook for hook, reading, supplied in answers if reading == "ask" and not supplied]
    if not asked:
        return None
    return (
        f"{named(asked)} asked about call {call_id} without an input and "
        f"{named([answers[suppliers[-1]][0]])} supplied one: an ask keeps the input another "
        "hook supplied, and the approval shows it (HOOK-3: only a deny discards a rewrite); a "
        "loop that applies no hook's input at all reads so too (RW-1)"
    )


def pass_read_as_denial(got: Event, command: Command) -> str | None:
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
    if not is_error(got) or error_code(got) is not None:
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
    taken = dict[str, list[HookAnswers]]()
    for replayed in model_steps(program, config):
        sent, phase = replayed.sent, replayed.before.phase
        if replayed.refusal is not None:
            continue
        if isinstance(sent, ModelReplies):
            taken.update({call.id: [] for call in sent.tool_calls})
        elif isinstance(sent, HookAnswers) and isinstance(phase, Rewriting) and phase.queue:
            call = phase.reply.tool_calls[phase.queue[0].call_index]
            taken.setdefault(call.id, []).append(sent)
    return taken


def failed_open_words(
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
    (`pass_read_as_denial` says it at the answer itself)."""
    word = _deny_word_of_a_pass(call_id, program, config)
    return None if word is None else _failed_open_phrase(call_id, word, coded)


def _deny_word_of_a_pass(
    call_id: str | None, program: Sequence[Command], config: LoopConfig | None
) -> str | None:
    """The first audit word a deny may record too (`error`, `stop`) among the passes the model
    took for call `call_id`, where every PreToolUse answer it took passes or allows the call;
    None otherwise."""
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
    return words[0]


def _failed_open_phrase(call_id: str | None, word: str, coded: str | None) -> str:
    """`failed_open_words`' words, the pass's audit recording `word`."""
    if coded is not None:
        # Not denied but failed with an error of the loop's own: its fault handling, not its
        # merge, read the hook's fault as a verdict.
        return (
            f"call {call_id}'s PreToolUse hooks pass or allow it, one a pass whose audit records "
            f"{word!r}: a hook that failed gets its dialect's default, no decision, unless "
            "it fails closed, which its verdict would then say (a deny), so call "
            f"{call_id} runs, where the target ends it with an error of its own{coded} before "
            "it runs"
        )
    return (
        f"call {call_id}'s PreToolUse hooks pass or allow it, one a pass whose audit records "
        f"{word!r} (a hook that failed gets its dialect's default, no decision, unless it "
        "fails closed, HOOK-7, which the verdict would then say: a deny), and a pass never "
        f"denies a call (deny > ask > allow > pass): call {call_id} runs, where the target "
        "denies it, as if the audit's word were the verdict"
    )


def failed_open_before(
    call_id: str | None,
    history: Sequence[Event],
    target_events: Sequence[Event],
    *,
    program: Sequence[Command],
    config: LoopConfig | None,
    probe: Probe | None,
) -> tuple[str, str] | None:
    """`failed_open_fate` on an earlier call of `call_id`'s step still without a result, the
    words saying `call_id` went on early. None when no earlier call has one: what the target did
    with `call_id` (its approval asked, its body started) is then the scheduling's to name."""
    for record in earlier_unanswered(call_id, history):
        fate = failed_open_fate(
            call_id_of(record),
            history,
            target_events,
            program=program,
            config=config,
            probe=probe,
        )
        if fate is not None:
            rule, words = fate
            return rule, f"{words}, so call {call_id} went on early"
    return None


def failed_open_fate(
    call_id: str | None,
    history: Sequence[Event],
    target_events: Sequence[Event],
    *,
    program: Sequence[Command],
    config: LoopConfig | None,
    probe: Probe | None,
) -> tuple[Literal["HOOK-2", "HOOK-7"], str] | None:
    """`failed_open_words`'s rule and words on call `call_id`, when the target denied it
    (HOOK-2) or ended it with an error of its own code (HOOK-7): that result is among
    `target_events`, or comes once the calls before it settle (`merge_shown_by_probe`). None
    otherwise."""
    word = _deny_word_of_a_pass(call_id, program, config)
    if word is None:
        return None
    code = own_error_code(call_id, target_events)
    if denial_for(call_id, target_events):
        return "HOOK-2", _failed_open_phrase(call_id, word, None)
    if code is not None:
        return "HOOK-7", _failed_open_phrase(call_id, word, f" ({code})")
    match merge_shown_by_probe(call_id, config, history, probe, target_events):
        case "denied":
            return "HOOK-2", _failed_open_phrase(call_id, word, None)
        case "failed":
            # Its code shows only once the calls before it settle.
            coded = " (shown once the calls before it settle, sent after it to tell)"
            return "HOOK-7", _failed_open_phrase(call_id, word, coded)
        case "asked" | "ran" | None:
            return None
        case unreachable:
            assert_never(unreachable)


def asked_yet_answered_before(
    call_id: str | None,
    history: Sequence[Event],
    target_events: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> str | None:
    """Words on an earlier call of `call_id`'s step still without a result whose PreToolUse
    hooks asked (none denied), its approval not asked yet as it waits for the gate, when the
    target denies or runs it unasked: its result is among `target_events`, or comes once the
    calls before it settle (`merge_shown_by_probe`). An ask read as a deny let a later call
    past the exclusive call it waits behind, read as SCHED-1 (round 18's Qwen Code #6321, seed
    68 of 50-69). None otherwise."""
    for record in earlier_unanswered(call_id, history):
        earlier = call_id_of(record)
        situation = call_situation(earlier, history)
        if (
            "ask" not in situation.hook_decisions
            or "deny" in situation.hook_decisions
            or situation.approval is not None
        ):
            continue
        answered = denial_for(earlier, target_events)
        shown = (
            "denied"
            if answered
            else merge_shown_by_probe(earlier, config, history, probe, target_events)
        )
        if shown not in ("denied", "ran"):
            continue
        asking = [hook for hook, reading, _ in pre_answers(earlier, history) if reading == "ask"]
        done = "denies it" if shown == "denied" else "runs it"
        when = "" if answered else " once the calls before it settle (sent after it to tell)"
        return (
            f"{named(asking)} asked about call {earlier}, which waits for the gate, and the "
            f"target {done}{when} without asking the user: an ask asks the user once the call "
            f"may start, and the call waits for the answer, so call {call_id}, behind it, went "
            "on early"
        )
    return None


def rewrite_on_a_denial(
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
    shown = "denied" if denial_for(call_id, target_events) else None
    shown = shown or merge_shown_by_probe(call_id, config, history, probe, target_events)
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


def merge_shown_by_probe(
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
    seen = target_log_so_far(history, shown)
    for record in earlier_unanswered(call_id, seen):
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
        if denial_for(call_id, probed.events):
            return "denied"
        if own_error_code(call_id, probed.events) is not None:
            return "failed"
    return None


def denial_for(call_id: str | None, events: Sequence[Event]) -> bool:
    """Whether `events` hold a denial of call `call_id`: a tool/result that is an error with no
    code, as a deny's is (a result with a code, INVALID_TOOL_INPUT or one of the loop's own, is
    no denial, as `extra` reads one)."""
    return any(
        e.get("type") == "tool/result"
        and call_id_of(e) == call_id
        and is_error(e)
        and error_code(e) is None
        for e in events
    )


def deny_outranked(
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
        answers = pre_answers(call_id, history)
        said = {
            word: [hook for hook, reading, _supplied in answers if reading == word]
            for word in ("deny", "ask", "allow")
        }
        others = [f"{named(said[word])} {word}ed" for word in ("ask", "allow") if said[word]]
        if not (said["deny"] and others):
            continue
        if call_id not in asked and any(
            e.get("type") == "tool/result" and equal_but_time(result, e) for e in actual.events
        ):
            # The target logged the model's denial, so its merge was right; it ran the body
            # anyway: a denied call ran (DEC-1), for the comparison of its runs to name.
            continue
        done = "asks the user about it" if call_id in asked else "runs it"
        return "HOOK-2", (
            f"the target {done}, but {named(said['deny'])} denied call {call_id} and "
            f"{' and '.join(others)}: a deny outranks every other answer "
            "(deny > ask > allow > pass), so the call is denied, never run, and every input a "
            "hook supplied for it is discarded (HOOK-3)"
        )
    return None
