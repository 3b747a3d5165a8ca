"""The rule a tool/result that differs from the model's breaks (`result_rule`): its outcome,
words, error code and order, read against the call's hooks, approval and arguments."""

from __future__ import annotations

import json
from collections.abc import Sequence

from loopspec.model.commands import Command, ModelReplies, ToolFailed, ToolFinishes, ToolSucceeded
from loopspec.model.config import LoopConfig
from loopspec.model.json_text import spelled
from loopspec.model.jsonvalue import FrozenMap, parse_arguments
from loopspec.model.wording import (
    APPROVAL_DENIALS,
    DENIED_WITHOUT_REASON,
    ERROR_PREFIX,
    REASON_SEPARATOR,
    REWRITE_REFUSED_WORDS,
)
from loopspec.properties.conformance.blame.endings import reason_kind
from loopspec.properties.conformance.blame.history import (
    LOOP_ERROR_CODES,
    is_error,
    is_refusal,
    named,
    recorded,
    reply_call_ids,
    result_content,
    result_text,
    target_log_so_far,
)
from loopspec.properties.conformance.blame.readings import (
    LOSSY_JSON,
    blank_to_javascript_only,
    blank_to_python_only,
    object_only_when_lossy,
    result_input_problem,
)
from loopspec.properties.conformance.blame.result_words import (
    approval_words_for_an_abort,
    block_reasons_counted,
    blocked_by,
    body_error_words,
    context_in_result,
    error_name,
    every_reason_given,
    failure_info_kept_by_a_block,
    keys_quoted_otherwise,
    meta_kept_by_a_block,
    refused_rewrite_worded_otherwise,
)
from loopspec.properties.conformance.blame.situation import Situation, call_situation, pre_answers
from loopspec.properties.conformance.call_again import Probe, merge_without_the_askers_input
from loopspec.properties.conformance.compare import normalized_event, positional
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of, error_code
from loopspec.properties.conformance.text_changes import message_text_change


def denied_yet_run(
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
    if error_code(want) is not None or not is_refusal(want):
        return None
    answers = pre_answers(call_id, history)
    denied = [hook for hook, reading, _supplied in answers if reading == "deny"]
    if not denied:
        return None
    others = [
        f"{named([hook])} said {reading}"
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
            f"the target {runs}, but {named(denied)} denied it and {' and '.join(others)}: "
            "the strictest answer wins (deny > ask > allow > pass), whatever order the hooks "
            "answer in, so the call is denied and never runs"
        )
    text = result_text(want)
    unreasoned = (
        f" (a deny giving no reason denies too: its result is then {text!r})"
        if text == ERROR_PREFIX + "denied"
        else ""
    )
    return "DEC-1", (
        f"the target {runs}, but {named(denied)} denied it: a denied call never runs{unreasoned}"
    )


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
            and result_input_problem(got) == "not an object"
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
        and blank_to_javascript_only(original)
    )


def _arguments_sent(call_id: str | None, command: Command) -> str | None:
    """The arguments of call `call_id` when `command` is the reply that makes it (an invalid
    input's result commits with its reply, whose tool/call no earlier event holds)."""
    if not isinstance(command, ModelReplies):
        return None
    return next((call.arguments for call in command.tool_calls if call.id == call_id), None)


# EXE-2's reading of arguments that Python's strip and JavaScript's trim judge apart, said the
# same way wherever a hook's run or wait, or a reply's commit, follows the other reading.
# Said where a denied call that a hook also asked about was found unstarted by an abort: a
# merge letting ask win holds it at the gate too, for its approval, and no log tells which.
_ASK_OUTRANKING_DENY = (
    "; a hook asked about it too: a loop whose merge lets the ask win (HOOK-2 says deny > ask "
    "> allow > pass) holds it so as well, waiting for a free slot to ask for its approval, "
    "which no log before the abort tells apart from a denied call held at the gate"
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


_OR_UNCHECKED = (
    "or it checks no input of a tool that is not registered, which shows the same here (EXE-5 "
    "(1): arguments that are not a JSON object are invalid input whatever the tool)"
)


def judged_after_the_abort(want: Event, command: Command, history: Sequence[Event]) -> str:
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
    if not ends or reason_kind(ends[0]) != "aborted":
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
            order = reply_call_ids(event)
        elif kind == "approval/asked" and isinstance(data.get("callId"), str):
            asked[str(data.get("id"))] = data["callId"]
        elif kind == "approval/decided" and data.get("outcome") == "cancelled":
            held = asked.get(str(data.get("id")))
            if held in order and call_id in order and order.index(held) < order.index(call_id):
                return held
    return None


def _earlier_input_refused(want: Event, got: Event | None, situation: Situation) -> str:
    """Words for a refusal naming another hook than the model's: one whose input a later
    hook's replaced, judged though only the input in effect is ("" when it is not so)."""
    ours, theirs = result_text(want), result_text(got)
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


def result_rule(
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
    situation = call_situation(call_id, history)
    about = f"the result of call {call_id}"
    their_code = error_code(got)  # a target may write `error` as another JSON type
    got_error = data_of(got).get("error")
    spec = None if config is None else config.tool(str(recorded(call_id, "name", history)))
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
            f"{json.dumps(result_text(want))}, where the target answers it "
            "ABORTED_BEFORE_DISPATCH"
        )
    if (
        code in LOOP_ERROR_CODES
        and got is not None
        and got_error is None
        and result_content(got) == result_content(want)
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
    refused = is_refusal(got)
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
        and not is_error(got)
    ):
        # The target reports the success: "after an abort it is an ABORTED error" did not
        # say that the body settling after the abort is what makes it one.
        return "ABORT-1", (
            f"{about} differs: its body settled after the abort, and a success that lands "
            "after an abort is not reported as one: it becomes an ABORTED error, "
            f"{json.dumps(result_text(want))}, where the target keeps the success"
        )
    if code in ("ABORTED_BEFORE_DISPATCH", "ABORTED") and their_code == code:
        # The abort's verdict, in other words: "after an abort it is an ABORTED error" told a
        # loop whose result is one to reread the drain (round 18, Claude Code #86001: a call
        # interrupted while it ran, told the user rejected it). The texts are TEXT-1's.
        if result_text(got) == result_text(want):
            # The text is section 9's: only the error info's name differs, which the words
            # on the text sent its author to reread the text.
            return "TEXT-1", (
                f"{about} differs: the target ends it as the {code} error it is (ABORT-1), in "
                "SPEC.md section 9's words, but its error info's name is "
                f"{json.dumps(error_name(got))} where section 9's row names it "
                f"{json.dumps(error_name(want))}"
            )
        return "TEXT-1", (
            f"{about} differs: the target ends it as the {code} error it is (ABORT-1), but not "
            f"as SPEC.md section 9 words it: the text {json.dumps(result_text(want))}"
            + approval_words_for_an_abort(got)
        )
    if code in ("ABORTED_BEFORE_DISPATCH", "ABORTED"):
        return "ABORT-1", f"{about} differs: after an abort it is an {code} error"
    if code in ("TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED") and their_code == code:
        # The right repair in other words: "answers it with a TOOL_OUTCOME_UNKNOWN error" sent
        # its author to the choice of code, which was right.
        return "REC-1", (
            f"{about} differs: the target's crash repair answers it with the {code} error it "
            f"is, but not as SPEC.md section 9 words it: the text "
            f"{json.dumps(result_text(want))}, the error name "
            f"{(data_of(want).get('error') or {}).get('name')}"
        )
    if code in ("TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED"):
        return "REC-1", f"{about} differs: crash repair answers it with a {code} error"
    lossy = object_only_when_lossy(situation.original) or object_only_when_lossy(
        _arguments_sent(call_id, command)
    )
    if code == "INVALID_TOOL_INPUT" and their_code == "UNKNOWN_TOOL" and lossy:
        # A call of a tool that is not registered, whose arguments only a lossy reader takes
        # for an object: the target judged them an object (EXE-2), then the tool unknown as
        # it must (EXE-5). Blamed on EXE-5, a loop reading 1e400 as a number was sent to
        # reread the order calls are judged in.
        return "EXE-2", (
            f"{about} differs: the call's arguments are {LOSSY_JSON}, where the target "
            "reads them as an object and so judges the call's tool, which is not registered "
            f"(EXE-5): {json.dumps(result_text(want))}; {_OR_UNCHECKED}"
        )
    if (
        code == "INVALID_TOOL_INPUT"
        and their_code == "UNKNOWN_TOOL"
        and blank_to_javascript_only(situation.original)
    ):
        # No probe could tell the readings apart (calls still run): said as the lossy ones
        # are, EXE-2 first; a program cut down until a probe can tell keeps EXE-5 where it does.
        return "EXE-2", (
            f"{about} differs: the call's arguments are blank to JavaScript's trim alone: U+FEFF "
            "is not blank to Python's str.strip, so they are not {} but the raw string, no JSON "
            "object, where the target reads them as {} and so judges the call's tool, which is "
            f"not registered (EXE-5): {json.dumps(result_text(want))}; {_OR_UNCHECKED}"
        )
    if code == "INVALID_TOOL_INPUT" and their_code == "UNKNOWN_TOOL":
        return "EXE-5", (
            f"{about} differs: invalid input is reported before an unknown tool (arguments "
            "that are not a JSON object, also those a tool that is not registered gets)"
        )
    if (
        code == "INVALID_TOOL_INPUT"
        and got is not None
        and result_input_problem(want) != result_input_problem(got)
    ):
        if lossy:
            return "EXE-2", (
                f"{about} differs: the call's arguments are {LOSSY_JSON}, where the target "
                f"reads them as an object: {json.dumps(result_text(want))}"
            )
        return "EXE-2", (
            f"{about} differs: the call's arguments parse to another value here "
            "(blank means {}, invalid JSON stays the raw string)"
            + (_BLANK_TO_PYTHON_ONLY if blank_to_python_only(situation.original) else "")
        )
    if code in ("INVALID_TOOL_INPUT", "UNKNOWN_TOOL") and their_code == code:
        # The target judged the call as the model did (EXE-5 kept); only the words or the
        # error's name differ, which are TEXT-1's ("The texts are TEXT-1's", EXE-5 says).
        # Blamed on EXE-5, a loop with the right verdict in its own words was sent to reread
        # the order calls are judged in.
        return "TEXT-1", (
            f"{about} differs: the target ends it as the {code} error it is (EXE-5), but not as "
            f"SPEC.md section 9 words it: the text {json.dumps(result_text(want))}, the "
            f"error name {(data_of(want).get('error') or {}).get('name')}"
            + keys_quoted_otherwise(want, got)
        )
    if code in ("INVALID_TOOL_INPUT", "UNKNOWN_TOOL"):
        return "EXE-5", f"{about} differs: a call the tool cannot take ends as an {code} error"
    body_error = body_error_words(want, got)
    kept = (
        failure_info_kept_by_a_block(want, got, command, program, config)
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
            f"{block_reasons_counted(want, got)}{meta_kept_by_a_block(want, got)}"
            f"{judged_after_the_abort(want, command, history)}"
        )
    worded_otherwise = refused_rewrite_worded_otherwise(want, got)
    if worded_otherwise is not None:
        # The target refused the same hook's input for the same missing keys: only their
        # listing differs, TEXT-1's (it read as HOOK-6, which the target kept).
        return "TEXT-1", (
            f"{about} differs: the target refuses the hook's input as the model does (HOOK-6), "
            f"but not as SPEC.md section 9 words it: the text {json.dumps(result_text(want))}"
            f"{worded_otherwise}"
        )
    if REWRITE_REFUSED_WORDS in text:
        return "HOOK-6", (
            f"{about} differs: an unacceptable rewrite denies the call naming the hook"
            + _earlier_input_refused(want, got, situation)
        )
    if "deny" in situation.hook_decisions and REWRITE_REFUSED_WORDS in result_text(got):
        # The target judged an input a deny discards: its reason named it, read as a wrong
        # denial reason (DEC-1) where the deny did not win or did not discard the input.
        answers = pre_answers(call_id, history)
        denying = [hook for hook, reading, _ in answers if reading == "deny"]
        refusal = result_text(got)
        asked = [
            hook
            for hook, reading, supplied in answers
            if reading == "ask" and supplied and f"hook {hook} " in refusal
        ]
        said = (
            f"{about} differs: the target refuses an input a hook supplied "
            f"({json.dumps(refusal)}), but {named(denying)} denied call {call_id}: a "
            "deny discards every rewrite, so no input is judged and the result is the denial, "
            f"{json.dumps(result_text(want))}"
        )
        # The probe sends the target a call: only when an ask's input is the one refused.
        merged = (
            merge_without_the_askers_input(
                call_id,
                {hook: reading for hook, reading, _supplied in answers},
                target_log_so_far(history, target_events),
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
        and result_content(got) == result_content(want)
    ):
        # Worded as the denial it is, with error info added (a loop writing {name, code} on
        # every error result): the words below spoke of the text, which is right.
        denying = [hook for hook, reading, _ in pre_answers(call_id, history) if reading == "deny"]
        return "DEC-1", (
            f"{about} differs in its error info: the target writes {json.dumps(got_error)} as "
            f"tool/result.error, but the denying {named(denying)} denied call {call_id}, which "
            "never ran: a denied call's result is one text block Error: <reason> and carries "
            "no error info"
        )
    if "deny" in situation.hook_decisions and their_code == "ABORTED_BEFORE_DISPATCH":
        # Denied, yet found unstarted by the abort: the target held the denied call at the
        # gate until a slot was free (its words read as a wrong reason).
        found = (
            f"{about} differs: a denied call passes the gate without waiting for a free slot, "
            f"its denial ready at once, so an abort that lands later finds call {call_id} "
            f"denied, not unstarted, and keeps that result, {json.dumps(result_text(want))}, "
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
    passed = denied_yet_run(call_id, want, history, frozenset(), refused_at_gate=gate_error)
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
        if not unreasoned and result_text(got) == ERROR_PREFIX + DENIED_WITHOUT_REASON:
            # A reason dropped: a loop trimming reasons says `denied` for one of whitespace.
            given = result_text(want).removeprefix(ERROR_PREFIX)
            which = "a denying hook's reason of whitespace is a reason (not empty)"
            if given.strip():
                which = "the result carries the denying hooks' reasons"
            return "DEC-1", (
                f"{about} differs: it is {json.dumps(result_text(want))}: {which}, and the "
                f"result says {spelled(DENIED_WITHOUT_REASON)} only when no denying hook gave one"
            )
        if situation.hook_decisions.count("deny") > 1 and not (prefix_only or unreasoned):
            if every_reason_given(want, got):
                return "DEC-1", (
                    f"{about} differs: the denying hooks' reasons are joined with "
                    f"{spelled(REASON_SEPARATOR)}, in configured order"
                )
            return "HOOK-2", f"{about} differs: the reasons of every denying hook are joined"
        denying = [hook for hook, reading, _ in pre_answers(call_id, history) if reading == "deny"]
        given = result_text(want).removeprefix(ERROR_PREFIX)
        trimmed = (
            f"; the target's is the reason trimmed ({json.dumps(result_text(got))}): a "
            "reason is kept as the hook gave it, whitespace at its ends too"
            if given != given.strip() and result_text(got) == ERROR_PREFIX + given.strip()
            else ""
        )
        return "DEC-1", (
            f"{about} differs: a denied call's result is one text block Error: <reason>, the "
            f"reason the non-empty reasons of the denying {named(denying)} joined by "
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
        if context_in_result(command, want, got):
            return "ADJ-4", (
                f"{about} differs: it carries a PostToolUse hook's context, which waits for "
                "the next step's start as a message of its own"
            )
        blocked = blocked_by(command)
        if blocked is not None:
            return "DEC-3", f"{about} differs: {blocked}"
        how = (
            None
            if got is None
            else message_text_change(
                positional(normalized_event(want)), positional(normalized_event(got))
            )
        )
        changed = "" if how is None else f", code point for code point, where the target's is {how}"
        if isinstance(command.outcome, ToolFailed):
            return "EXE-4", f"{about} differs: a failed body's result is Error: <message>{changed}"
        return "EXE-4", f"{about} differs from what the body returned{changed}"
    return "EXE-4", f"{about} differs from its settled outcome"


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
            reply_call_ids(event)
            for event in reversed(history)
            if event.get("type") == "assistant/message" and call_id in reply_call_ids(event)
        ),
        [],
    )
    if call_id not in reply:
        return None
    up_to_it = reply[: reply.index(call_id) + 1]
    specs = [config.tool(str(recorded(each, "name", history))) for each in up_to_it]
    if len(up_to_it) > config.max_parallel or not all(s and s.concurrency_safe for s in specs):
        return None
    return config.max_parallel


def _tool_named(call_id: str | None, history: Sequence[Event]) -> str:
    """The tool of `call_id` as the model's tool/call records it ("?" when none does)."""
    for event in history:
        if event.get("type") == "tool/call" and call_id_of(event) == call_id:
            return str(data_of(event).get("name"))
    return "?"
