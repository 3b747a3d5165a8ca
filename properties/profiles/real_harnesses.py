"""Profiles `claude-code` and `codex`: the real CLIs' known divergences, as `conform` reads them.

The single source of what each real loop is known to break, and whether loopspec reads it as a
design difference or a bug, is `loopspec.properties.harnesses.profiles.KNOWN` (SPEC section
11). This module only says how `conform` recognises each of those rules in a pair of runs
driven through `examples/<harness>-adapter/run.sh` (`conform_driver`): a *symptom* for a rule
that sends the runs different ways (what ran is not what the log's call record holds, RW-1;
another hook's rewrite ran, HOOK-3), an *eraser* for one that only moves or reshapes events.
Every entry of KNOWN either has a detector here or is named in `NOT_DRIVEN` with the capability
`conform` would need; a divergence that is neither is a counterexample.

Two more kinds of entries are not divergences of the loop and break no rule, so they are not
in KNOWN: `SHAPES` erase how the adapter can only observe something (a measured hook duration,
the words a CLI's shell tool uses for a failure, the error text of a failed model request), and
`ADAPTER_LIMITS` cut a program where the adapter's mapping stops being faithful (every tool of
the configuration reaches the CLI as its shell tool, so a call the model settles without running
— an unknown tool, arguments that are not a valid input — runs in the CLI).

Runs reach these functions normalized by `loopspec.properties.profiles.runs`.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_UP, Decimal

import attrs

from loopspec.model.commands import Command, ModelReplies, SubmitUser
from loopspec.model.config import LoopConfig
from loopspec.model.invariants import (
    DENIED_NOT_AN_ERROR,
    POST_BLOCK_NOT_AN_ERROR,
    SUPPLIED_WITHOUT_SIDECAR,
)
from loopspec.model.prefix import NON_OBJECT_INPUT_RAN
from loopspec.model.rewrite import input_problem
from loopspec.model.wording import (
    BLOCKED_WITHOUT_REASON,
    DENIED_WITHOUT_REASON,
    REWRITE_REFUSED_WORDS,
)
from loopspec.properties.harnesses.cli_wire import CLAUDE_EMPTIED_REPLY, CLAUDE_EMPTIED_TURN
from loopspec.properties.harnesses.profiles import KNOWN
from loopspec.properties.harnesses.profiles import KnownDivergence as KnownEntry
from loopspec.properties.harnesses.request_history import wire_form
from loopspec.properties.harnesses.script import DRIVEN_CAPABILITIES, Harness, runs_as_read_only
from loopspec.properties.logcheck.claude_code import SYNTHETIC_MODEL
from loopspec.properties.profiles.known import (
    Avoid,
    Eraser,
    KnownDivergence,
    Profile,
    ProgramEraser,
    Symptom,
)
from loopspec.properties.profiles.runs import (
    Earlier,
    Event,
    Json,
    Obs,
    Pair,
    Run,
    accepts_duplicate_ids,
    both,
    drop_commits,
    events_of,
    flatten_reply_first,
    is_hook_at,
    map_events,
    result_call,
    result_code,
    result_text,
    with_result_text,
)

# ---------------------------------------------------------------------------------------------
# Symptoms: where a rule breaks, on one command (with both runs before it).


def _calls_of(events: list[Event]) -> dict[str, object]:
    """Each call's arguments (parsed) as the run's tool/call records them."""
    return {
        str(e["data"]["callId"]): _parsed(e["data"]["arguments"])
        for e in events
        if e["type"] == "tool/call"
    }


def _parsed(arguments: object) -> object:
    if not isinstance(arguments, str):
        return arguments
    try:
        value: object = json.loads(arguments)
    except (ValueError, RecursionError):  # nested deeper than the stack: kept as text
        return arguments
    return value


def _ran(run: Run, current: Obs) -> dict[str, object]:
    """Each call's arguments as its body ran (parsed), up to and with `current`."""
    ran: dict[str, object] = {}
    for obs in [*run, current]:
        if obs["accepted"]:
            for call_id, arguments in obs["executed"]:
                ran[str(call_id)] = arguments
    return ran


def _all_events(run: Run, current: Obs) -> list[Event]:
    return [*events_of(run), *(current["events"] if current["accepted"] else [])]


def _supplied(events: list[Event]) -> dict[str, list[object]]:
    """Each call's inputs its PreToolUse hooks supplied (`updatedInput`), as the audit gives
    them."""
    supplied: dict[str, list[object]] = {}
    for event in events:
        if event["type"] == "hook/result" and "updatedInput" in event["data"]:
            supplied.setdefault(str(event["data"]["callId"]), []).append(
                event["data"]["updatedInput"]
            )
    return supplied


def _record_is_not_what_ran(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """RW-1: a call ran with a hook's input while the log's call record holds other arguments
    (the CLIs keep the model's). Arguments no hook supplied are no rewrite: running those is
    another fault (EXE-3), not this one. Nor is running a call the model refuses for the input
    a hook supplied (HOOK-6): the model runs nothing there, so whichever input ran, the record
    is not what matters (another hook's input is HOOK-3's race, the refused one HOOK-6)."""
    recorded = _calls_of(_all_events(earlier.target, got))
    ran = _ran(earlier.target, got)
    supplied = _supplied(_all_events(earlier.target, got))
    refused = _refused_rewrites(_all_events(earlier.model, want))
    return any(
        call_id in recorded
        and call_id not in refused
        and recorded[call_id] != arguments
        and arguments in supplied.get(call_id, [])
        for call_id, arguments in ran.items()
    )


def _refused_rewrites(events: list[Event]) -> set[str]:
    """The calls whose result refuses the input a hook supplied (HOOK-6)."""
    return {
        result_call(event)
        for event in events
        if event["type"] == "tool/result"
        and REWRITE_REFUSED_WORDS in json.dumps(event["data"]["message"])
    }


def _another_hooks_rewrite_ran(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """HOOK-3: a call ran another hook's rewrite than the one the model applies. Where the
    model's is an input the tool cannot take, the model refuses the call (HOOK-6) and runs
    nothing: a CLI that ran an earlier hook's input (it finished last) shows the same race."""
    model_events = _all_events(earlier.model, want)
    model_ran, target_ran = _ran(earlier.model, want), _ran(earlier.target, got)
    refused, model_supplied = _refused_rewrites(model_events), _supplied(model_events)
    supplied = _supplied(_all_events(earlier.target, got))

    def applies_another(call_id: str, arguments: object) -> bool:
        if call_id in model_ran:
            return model_ran[call_id] != arguments
        # Refused: the model's input in effect is the last its audit shows supplied.
        in_effect = model_supplied.get(call_id, [])
        return call_id in refused and bool(in_effect) and in_effect[-1] != arguments

    if any(
        applies_another(call_id, arguments) and arguments in supplied.get(call_id, [])
        for call_id, arguments in target_ran.items()
    ):
        return True
    # Or the CLI refused the call, in its own words, for another hook's input than the one in
    # effect in the model, one it refuses (the adapter hands it as it is): that hook's finished
    # last (Codex, seed 6 of README's run: the first configured hook's "not an object").
    in_effect = {call: inputs[-1] for call, inputs in model_supplied.items() if inputs}
    return any(
        any(
            other != in_effect.get(call_id) and refuses(other)
            for other in model_supplied.get(call_id, [])
        )
        for call_id, refuses in _refused_in_cli_words(got).items()
    )


def _refused_in_cli_words(got: Obs) -> dict[str, Callable[[object], bool]]:
    """The calls `got` answers with a CLI's refusal of a hook's input, each with which inputs
    that CLI refuses so: Codex any that is no object with a string `command`, Claude Code an
    object without one (it ignores one that is no object: the profile's HOOK-6)."""
    refused: dict[str, Callable[[object], bool]] = {}
    for event in got["events"] if got["accepted"] else []:
        if event["type"] != "tool/result":
            continue
        text = result_text(event)
        if text == _CODEX_REWRITE_REFUSED:
            refused[result_call(event)] = lambda value: not _shell_input(value)
        elif _CLAUDE_REWRITE_REFUSED.match(text):
            refused[result_call(event)] = lambda value: (
                isinstance(value, dict) and not _shell_input(value)
            )
    return refused


def _shell_input(value: object) -> bool:
    """Whether a hook's input is one the CLI's shell tool takes: an object with a string
    `command`."""
    return isinstance(value, dict) and isinstance(value.get("command"), str)


def _pre_tool_use_denial(event: Event) -> bool:
    """Whether `event` is the model's record of a PreToolUse hook denying a call: `deny`, or
    `block` where its audit is an exit-2 deny's (`_hook_audit_core`)."""
    decision = event["data"].get("decision") if event["type"] == "hook/result" else None
    return decision in ("deny", "block") and is_hook_at(event, "PreToolUse")


def _denied_call_ran(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """DEC-1 (Codex): a call the model's PreToolUse hooks denied, none of them with a reason
    (an empty or blank one), ran in the CLI's run, or was refused there for an input a hook
    supplied in its own words (`_CODEX_REWRITE_REFUSED`: it ignored the deny and took the
    rewrite, HOOK-3's last to finish, which no shell runs). A call a hook denied saying why
    still never runs there, nor is refused so. An exit-2 deny's record holds its stderr, not
    the reason the adapter hands the CLI: the model's result, `Error: denied` for a call no
    hook gave a reason, says that too."""
    reasons: dict[str, list[str]] = {}
    results: dict[str, str] = {}
    for event in _all_events(earlier.model, want):
        if _pre_tool_use_denial(event):
            reason = str(event["data"].get("stderrSummary") or "")
            reasons.setdefault(str(event["data"].get("callId")), []).append(reason)
        elif event["type"] == "tool/result":
            results[result_call(event)] = result_text(event).removeprefix("Error: ").strip()
    unreasoned = {
        call
        for call, given in reasons.items()
        if not any(r.strip() for r in given)
        and results.get(call, "") in ("", DENIED_WITHOUT_REASON)
    }
    refused = {
        result_call(event)
        for event in (got["events"] if got["accepted"] else [])
        if event["type"] == "tool/result" and result_text(event) == _CODEX_REWRITE_REFUSED
    }
    supplied = _supplied(_all_events(earlier.target, got))
    return any(call_id in unreasoned for call_id in _ran(earlier.target, got)) or any(
        call_id in unreasoned and supplied.get(call_id) for call_id in refused
    )


def _empty_prompt_refused(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """TURN-1: the CLI refuses a blank prompt, which opens a turn in the model."""
    return (
        command["kind"] == "SubmitUser"
        and not str(command["text"]).strip()
        and bool(want["accepted"])
        and not got["accepted"]
    )


def _blank_prompt(command: Command, config: LoopConfig) -> bool:
    """A prompt TURN-1's CLI refuses: random programs leave it out (see AVOID)."""
    return isinstance(command, SubmitUser) and not command.text.strip()


def _reasoning_only_reply_asks_again(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """STEP-4: a reply holding only reasoning, or nothing, ends the model's turn; the CLI asks
    again. An empty or blank text block is nothing to it either: Claude Code 2.1.332 asks again
    after a reply of reasoning and an empty text, and after a reply of the text " "."""
    if command["kind"] != "ModelReplies" or not (want["accepted"] and got["accepted"]):
        return False
    blocks = command["blocks"]
    ends = [e for e in want["events"] if e["type"] == "turn/end"]
    reasoning_only = all(
        b["type"] == "reasoning" or (b["type"] == "text" and not b["text"].strip()) for b in blocks
    )
    return reasoning_only and bool(ends) and not any(e["type"] == "turn/end" for e in got["events"])


_SETTLED_UNRUN = frozenset({"UNKNOWN_TOOL", "INVALID_TOOL_INPUT"})


def _settles_a_call_unrun(command: Command, config: LoopConfig) -> bool:
    """A reply with a call the model settles without running (a tool `config` lacks, input
    that fails its contract), which a CLI runs: `_settled_without_running` cuts the program at
    it. Left to chance, such a call ended half the random programs on a real CLI at their
    first reply, before any call ran, so an abort over a running call was all but never drawn."""
    return isinstance(command, ModelReplies) and any(
        config.tool(call.name) is None or input_problem(call, config) is not None
        for call in command.tool_calls
    )


def _settled_without_running(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """The model settles a call without running it (unknown tool, invalid input) and the
    target runs it, or gives it no result with a code in the same command (a CLI runs it: its
    result, when it comes, has none). A loop that settles it, as the model does or with
    another code, is compared as usual, not cut."""
    events = want["events"] if want["accepted"] else []
    settled = {
        result_call(e)
        for e in events
        if e["type"] == "tool/result" and result_code(e) in _SETTLED_UNRUN
    }
    if not settled:
        return False
    coded = {
        result_call(e)
        for e in (got["events"] if got["accepted"] else [])
        if e["type"] == "tool/result" and result_code(e) is not None
    }
    ran = {str(call_id) for call_id, _ in (got["executed"] if got["accepted"] else [])}
    return any(call in ran or call not in coded for call in settled)


def _refused_shell_input_ran(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """A hook's input the model refuses, its call's tool unable to take it (HOOK-6), runs in the
    CLI as the input in effect (the last the model's audit shows supplied), and is one the
    CLI's shell tool takes (a string `command`): the CLI knows no tool of the configuration,
    so no contract of theirs. An input the shell cannot take either, or another hook's (HOOK-3's
    race), is no adapter limit."""
    if command["kind"] != "HookAnswers" or not got["accepted"]:
        return False
    events = _all_events(earlier.model, want)
    refused, supplied = _refused_rewrites(events), _supplied(events)
    return any(
        call_id in refused
        and supplied.get(call_id, [None])[-1] == arguments
        and isinstance(arguments, dict)
        and isinstance(arguments.get("command"), str)
        for call_id, arguments in ((str(c), a) for c, a in got["executed"])
    )


def _non_object_rewrite_ignored(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """HOOK-6 (Claude Code): the model refuses a call for the input its hooks supplied, that
    input in effect (the last its audit shows supplied) being no JSON object at all, and the
    CLI runs the call's own arguments (the model's, as the model's call record holds them): it
    ignores such an input. Running the input itself, another hook's (HOOK-3's race) or
    anything else, or the model's input where an object was refused, is not excused. The CLI
    may have run it commands before: the model refuses it only once every hook of its reply
    answered (RW-3), a read-only call running as its own hooks end."""
    if command["kind"] != "HookAnswers" or not got["accepted"]:
        return False
    events = _all_events(earlier.model, want)
    refused, supplied, recorded = _refused_rewrites(events), _supplied(events), _calls_of(events)
    executed = [
        pair for obs in (*earlier.target, got) if obs["accepted"] for pair in obs["executed"]
    ]
    return any(
        call_id in refused
        and call_id in recorded
        and not isinstance(supplied.get(call_id, [{}])[-1], dict)
        and arguments == recorded[call_id]
        for call_id, arguments in ((str(c), a) for c, a in executed)
    )


def _shell_mapping_cuts(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """Where the shell mapping stops being faithful (`ADAPTER_LIMITS`' shell-mapped-tools)."""
    return _settled_without_running(command, want, got, earlier) or _refused_shell_input_ran(
        command, want, got, earlier
    )


def _started(run: Run) -> dict[str, int]:
    """The command each call's body started in."""
    started: dict[str, int] = {}
    for index, obs in enumerate(run):
        if obs["accepted"]:
            for call_id, _ in obs["executed"]:
                started.setdefault(str(call_id), index)
    return started


def _overlaps(run: Run) -> set[tuple[str, str]]:
    """The pairs of calls whose bodies ran at the same time: each started before the other's
    result was logged (a call released by another's finishing starts in that command, so
    does not overlap it)."""
    started = _started(run)
    ended: dict[str, int] = {}
    for index, obs in enumerate(run):
        if obs["accepted"]:
            for event in obs["events"]:
                if event["type"] == "tool/result":
                    ended.setdefault(result_call(event), index)
    return {
        (x, y)
        for x, x_at in started.items()
        for y, y_at in started.items()
        if x < y and y_at < ended.get(x, math.inf) and x_at < ended.get(y, math.inf)
    }


def _overlaps_decided(run: Run, decided: dict[str, int]) -> set[tuple[str, str]]:
    """`run`'s overlapping pairs of calls whose bodies both started in the model's run (whether
    the model overlaps those is settled; a CLI may start a call before the model does)."""
    return {(x, y) for x, y in _overlaps(run) if x in decided and y in decided}


def _overlap_the_model_never_has(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """SCHED-1 (Codex): two calls ran at the same time in the CLI that the model, which has
    started both, runs one after the other (an exclusive call beside another, or past the
    cap): Codex runs every shell call of a reply at once."""
    model, target = [*earlier.model, want], [*earlier.target, got]
    decided = _started(model)
    return bool(_overlaps_decided(target, decided) - _overlaps(model))


def _stretches(run: Run) -> dict[str, str]:
    """Each call whose body ran at the same time as another's in `run`, with the first call (in
    id order) of its stretch: the calls linked by overlapping bodies. The model runs a reply's
    concurrency-safe calls so, a later one starting as an earlier one finishes past its cap; an
    exclusive call overlaps none, and parts the stretches before and after it."""
    first: dict[str, str] = {}

    def root(call: str) -> str:
        while first.setdefault(call, call) != call:
            call = first[call]
        return call

    for x, y in sorted(_overlaps(run)):
        a, b = root(x), root(y)
        first[max(a, b)] = min(a, b)
    return {call: root(call) for call in first}


def _ran_together(stretches: dict[str, str], x: str, y: str) -> bool:
    return x in stretches and stretches[x] == stretches.get(y)


def _read_only_calls_overlap_past_the_cap(
    command: Json, want: Obs, got: Obs, earlier: Earlier
) -> bool:
    """SCHED-1 (Claude Code): calls ran at the same time in the CLI that the model, which has
    started both, runs one after the other, each two such calls of one stretch the model runs
    overlapping (`_stretches`): a reply's read-only calls, all at once where the model's cap
    holds some back. Claude Code runs a call that writes (an exclusive one) alone, so an
    exclusive call beside another, or calls of two stretches, is no known divergence."""
    model, target = [*earlier.model, want], [*earlier.target, got]
    new = _overlaps_decided(target, _started(model)) - _overlaps(model)
    stretches = _stretches(model)
    return bool(new) and all(_ran_together(stretches, x, y) for x, y in new)


def _bodies_ended_by(command: Json, got: Obs, earlier: Earlier) -> set[str]:
    """The calls whose bodies the command ended in the target's run: the call a ToolFinishes
    finishes; at an Abort, every call running there (the CLI kills them)."""
    if command["kind"] == "ToolFinishes":
        return {str(command["callId"])}
    if command["kind"] != "Abort":
        return set()
    return set(_started(earlier.target)) - _answered(list(events_of(earlier.target)))


def _overtaking_result(got: Obs, earlier: Earlier) -> tuple[str, list[str]] | None:
    """The first result `got` logs while earlier calls of its reply have none yet, with those
    calls (in call order)."""
    waiting: list[str] = []  # the current step's calls without a result, in call order
    for event in events_of([*earlier.target, got]):
        if event["type"] == "step/start":
            waiting = []
        elif event["type"] == "tool/call":
            waiting.append(str(event["data"]["callId"]))
        elif event["type"] == "tool/result" and result_call(event) in waiting:
            call = result_call(event)
            overtaken = waiting[: waiting.index(call)]
            if overtaken and event in got["events"]:
                return call, overtaken
            waiting.remove(call)
    return None


def _result_as_its_body_ended(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """ORD-3: the CLI logs a call's result as its body ends (finished, or killed at an abort),
    while an earlier call of its reply has none yet, each such earlier call running beside it
    in the model's run (`_stretches`): Claude Code logs parallel read-only calls' results in
    the order they end. A result logged out of order for a call whose body did not end then,
    or ahead of a call the model did not run beside it, is no known divergence."""
    overtaking = _overtaking_result(got, earlier) if got["accepted"] else None
    if overtaking is None:
        return False
    call, overtaken = overtaking
    stretches = _stretches([*earlier.model, want])
    return call in _bodies_ended_by(command, got, earlier) and all(
        _ran_together(stretches, call, other) for other in overtaken
    )


def _reply_calls(earlier: Earlier) -> list[tuple[str, str]]:
    """(id, tool name) of each call of the last reply the model took, in reply order."""
    for command, obs in zip(reversed(earlier.commands), reversed(earlier.model), strict=False):
        if command["kind"] == "ModelReplies" and obs["accepted"]:
            blocks = command["blocks"]
            return [(str(b["id"]), str(b["name"])) for b in blocks if b["type"] == "tool-call"]
    return []


def _read_only_stretch(earlier: Earlier, first: str, last: str) -> bool:
    """Whether the calls of the current reply from `first` to `last` all reach Claude Code as
    read-only commands (`runs_as_read_only`), so it runs them together."""
    calls = _reply_calls(earlier)
    ids = [call_id for call_id, _ in calls]
    if first not in ids or last not in ids:
        return False
    stretch = calls[ids.index(first) : ids.index(last) + 1]
    return bool(stretch) and all(
        runs_as_read_only(Harness.CLAUDE_CODE, earlier.config, name) for _, name in stretch
    )


def _denial_logged_at_once(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """ORD-3 (Claude Code): the CLI logs a read-only call's denial as its PreToolUse hook
    denies it, while earlier read-only calls of its reply, whose bodies it started beside that
    call's hooks, have no result yet (Claude Code runs a read-only call's hooks as the call
    starts, and ends a denied call there). The model logs the denial after those calls'
    results. A result that overtakes a call the target has not started, one this command did
    not deny, or a denial with a call that writes from the first overtaken call to it (Claude
    Code runs such a call alone, its hooks as it starts) is no known divergence."""
    overtaking = _overtaking_result(got, earlier) if got["accepted"] else None
    if command["kind"] != "HookAnswers" or overtaking is None:
        return False
    call, overtaken = overtaking
    if not _read_only_stretch(earlier, overtaken[0], call):
        return False
    denied = any(
        is_hook_at(e, "PreToolUse")
        and e["type"] == "hook/result"
        and e["data"].get("decision") == "deny"
        and str(e["data"].get("callId")) == call
        for e in got["events"]
    )
    running = set(_started([*earlier.target, got]))
    return denied and all(other in running for other in overtaken)


def _post_blocks(events: list[Event]) -> dict[str, list[str]]:
    """Each call's PostToolUse block reasons, as the run's audit gives them (the adapter puts a
    hook's own reason on its hook/result, the model puts it in stderrSummary)."""
    blocks: dict[str, list[str]] = {}
    for event in events:
        data = event["data"]
        blocked = event["type"] == "hook/result" and data.get("decision") == "block"
        if blocked and is_hook_at(event, "PostToolUse"):
            reason = data.get("reason", data.get("stderrSummary"))
            blocks.setdefault(str(data.get("callId")), []).append(str(reason))
    return blocks


def _blocked_result_kept(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """DEC-3: a result its PostToolUse hooks blocked reaches the model with the body's output,
    not the block's reasons (Claude Code appends the reasons as a system reminder)."""
    if not got["accepted"]:
        return False
    blocks = _post_blocks(_all_events(earlier.target, got))
    outcomes = {
        str(sent["callId"]): sent["outcome"]
        for sent in [*earlier.commands, command]
        if sent["kind"] == "ToolFinishes"
    }
    return any(
        e["type"] == "tool/result"
        and result_call(e) in blocks
        and result_text(e) not in ("\n\n".join(blocks[result_call(e)]), *blocks[result_call(e)])
        and _is_output_of(result_text(e), outcomes.get(result_call(e)))
        for e in got["events"]
    )


def _is_output_of(text: str, outcome: Json | None) -> bool:
    """Whether a result's text is what the body gave (its output, or its failure's message in
    the CLI's words), not another text in its place."""
    if outcome is None:
        return False
    if outcome.get("ok"):
        return text == str(outcome.get("text"))
    return str(outcome.get("message")) in text


def _blank_block_ignored(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """DEC-3 (Codex): a PostToolUse block whose reason is empty or blank is no block to the CLI.
    Its result is then what ignoring those blocks gives where the model's differs: the body's
    output when every blocking hook's reason was blank, else the other reasons joined without
    a whitespace-only one (the model keeps that one as a text block of its own). An empty
    reason beside a given one is left out by the model too, so that alone shows nothing."""
    if not got["accepted"]:
        return False
    blocks = _post_blocks(_all_events(earlier.target, got))
    for event in got["events"]:
        reasons = blocks.get(result_call(event), []) if event["type"] == "tool/result" else []
        given = [reason for reason in reasons if reason.strip()]
        if not reasons or (given and given == [reason for reason in reasons if reason]):
            continue
        if len(event["data"]["message"]["content"][0]["content"]) > 1:
            continue  # a text block per reason, as the model gives them: no joined text
        text = result_text(event)
        if given and text == "\n\n".join(given):
            return True
        if not given and text not in (BLOCKED_WITHOUT_REASON, "\n\n".join(reasons), *reasons):
            return True
    return False


def _answered(events: list[Event]) -> set[str]:
    return {result_call(e) for e in events if e["type"] == "tool/result"}


def _running_call_killed(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """ABORT-1: at an abort the CLI answers a call whose body still runs in the model's run
    (the model lets it drain; Codex kills it and ends the turn)."""
    if command["kind"] != "Abort" or not (want["accepted"] and got["accepted"]):
        return False
    model = [*earlier.model, want]
    running = set(_started(model)) - _answered(list(events_of(model)))
    return bool(running & _answered(got["events"]))


def _running_call_left_unanswered(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """ABORT-1 (Claude Code): at an abort the CLI ends the turn having written nothing else, a
    call whose body still runs in the model's run (the model lets it drain) left unanswered:
    its exit on SIGINT does not wait for the file pool threads that write the call's answer
    and the interrupt's notice, and now and then ends first. A turn ended so with a call the
    target never started unanswered, or with anything written beside its end, is no known
    divergence."""
    if command["kind"] != "Abort" or not (want["accepted"] and got["accepted"]):
        return False
    if {e["type"] for e in got["events"]} != {"step/end", "turn/end"}:
        return False
    model, target = [*earlier.model, want], [*earlier.target, got]
    running = set(_started(model)) - _answered(list(events_of(model)))
    unanswered = set(_started(target)) - _answered(list(events_of(target)))
    return bool(running) and running <= unanswered


def _interrupted_call_kept(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """ABORT-2: at an abort the CLI answers a call the model's run never recorded (the model
    drops the calls of a reply whose PreToolUse hooks were running, keeping its text)."""
    if command["kind"] != "Abort" or not (want["accepted"] and got["accepted"]):
        return False
    recorded = _calls_of(list(events_of([*earlier.model, want])))
    return any(call_id not in recorded for call_id in _answered(got["events"]))


def _kept_calls_rejected_as_they_end(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """ABORT-2 (Claude Code): at an abort the CLI answers calls the model's run never recorded
    (`_interrupted_call_kept`), a later one ahead of an earlier one: it rejects each read-only
    call of the reply as the interrupt ends it (its PreToolUse hooks, or its body, which it
    starts as that call's own hooks end, beside the other calls' hooks), in the order they end,
    as it logs parallel read-only calls' results (ORD-3). A result overtaking a call the model
    recorded, or with a call that writes from the first overtaken call to it (Claude Code runs
    such a call alone), is no known divergence."""
    if not _interrupted_call_kept(command, want, got, earlier):
        return False
    overtaking = _read_only_overtaking(got, earlier)
    if overtaking is None:
        return False
    call, overtaken = overtaking
    recorded = _calls_of(list(events_of([*earlier.model, want])))
    return not ({call, *overtaken} & recorded.keys())


def _killed_calls_rejected_as_they_end(
    command: Json, want: Obs, got: Obs, earlier: Earlier
) -> bool:
    """ABORT-1 (Claude Code): at an abort the CLI answers the calls the model lets drain
    (`_running_call_killed`), and with them the reply's calls the model still queues, a later
    one ahead of an earlier one: Claude Code runs a reply's read-only calls together past its
    cap and rejects each as the interrupt ends it, in the order they end (ORD-3), as
    `_kept_calls_rejected_as_they_end` reads it of calls whose hooks ran. A result overtaking a
    call across one that writes (Claude Code runs such a call alone) is no known divergence."""
    return _running_call_killed(command, want, got, earlier) and (
        _read_only_overtaking(got, earlier) is not None
    )


def _read_only_overtaking(got: Obs, earlier: Earlier) -> tuple[str, list[str]] | None:
    """The first result `got` logs ahead of earlier calls of its reply, with those calls
    (`_overtaking_result`), where every call from the first overtaken to it reaches Claude
    Code as read-only (`_read_only_stretch`), so it ran them together; None otherwise."""
    overtaking = _overtaking_result(got, earlier)
    if overtaking is None or not _read_only_stretch(earlier, overtaking[1][0], overtaking[0]):
        return None
    return overtaking


def _reply_invented_at_resume(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """ABORT-1: resuming after an interrupt, the CLI writes an assistant message the model never
    wrote before the new turn opens (Claude Code's "No response requested.")."""
    if command["kind"] != "SubmitUser" or not got["accepted"]:
        return False
    ends = [e for e in events_of(earlier.target) if e["type"] == "turn/end"]
    if not ends or ends[-1]["data"]["reason"].get("kind") != "aborted":
        return False
    for event in got["events"]:
        if event["type"] == "turn/start":
            return False
        if event["type"] == "assistant/message":
            # The CLI's own record (model <synthetic>), not a reply of the model's again.
            return bool(event["data"]["message"]["source"].get("model") == SYNTHETIC_MODEL)
    return False


# ---------------------------------------------------------------------------------------------
# Erasers: each removes one difference from a (model, CLI) pair of runs.


# How Codex 0.171.0 and Claude Code 2.1.332 begin the user message each writes at an interrupt.
_ABORT_NOTICES = ("<turn_aborted>", "[Request interrupted by user")


def _without_abort_notices(run: Run) -> Run:
    def change(event: Event) -> Event | None:
        if event["type"] != "user/message":
            return event
        texts = [str(b.get("text", "")) for b in event["data"].get("content", [])]
        return None if texts and texts[0].startswith(_ABORT_NOTICES) else event

    return map_events(run, change)


def _abort_without_cause(event: Event) -> Event:
    if event["type"] != "turn/end" or event["data"]["reason"].get("kind") != "aborted":
        return event
    return {**event, "data": {**event["data"], "reason": {"kind": "aborted"}}}


def _is_tool_context(event: Event) -> bool:
    source = event["data"].get("source", {}) if event["type"] == "user/message" else {}
    return source.get("plugin") == "tool-context"


# Claude Code's system reminder for a PostToolUse hook's context, inside the result it judges.
_REMINDER = re.compile(
    r"<system-reminder>\nPostToolUse(?:Failure)?:\w+ hook additional context: "
    r"(.*)\n</system-reminder>",
    re.S,
)


def _context_message(text: str, commit: object) -> Event:
    message = {
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "source": {"kind": "plugin", "plugin": "tool-context"},
    }
    event: Event = {"type": "user/message", "data": message, "surfaceOp": "append"}
    return event if commit is None else {**event, "commit": commit}


def _without_reminders(result: Event, held: list[str]) -> Event:
    """A result without the reminders after its output, whose contexts go to `held`."""
    result = copy.deepcopy(result)
    block = result["data"]["message"]["content"][0]
    kept = block["content"][:1]
    for part in block["content"][1:]:
        found = _REMINDER.fullmatch(str(part.get("text", "")))
        if found:
            held.append(found.group(1))
        else:
            kept.append(part)
    block["content"] = kept
    return result


def _reminders_at_next_step(run: Run) -> Run:
    """Each PostToolUse context a result carries as Claude Code's system reminder (its text
    blocks after the output) taken out of it, as a tool context right after the next
    step/start, where the model appends it (ADJ-4), in the order of the results."""
    out: Run = []
    held: list[str] = []
    for obs in run:
        if not obs["accepted"]:
            out.append(obs)
            continue
        events: list[Event] = []
        for event in obs["events"]:
            if event["type"] == "step/start":
                commit = event.get("commit")
                events += [event, *(_context_message(text, commit) for text in held)]
                held = []
                continue
            events.append(
                _without_reminders(event, held) if event["type"] == "tool/result" else event
            )
        out.append({**obs, "events": events})
    return out


def _context_before_a_result(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """ADJ-1: a PostToolUse hook's context is appended while a call of the step still awaits
    its result (Codex writes it as a developer message between the call and its output). A
    context no PostToolUse hook of the program gave (a body's) is not this one."""
    if not got["accepted"]:
        return False
    hooks = {
        str(verdict.get("text"))
        for sent in [*earlier.commands, command]
        if sent["kind"] == "ToolFinishes"
        for verdict in sent.get("post") or ()
        if verdict.get("decision") == "context"
    }
    waiting: set[str] = set()
    for event in events_of([*earlier.target, got]):
        if event["type"] == "step/start":
            waiting = set()
        elif event["type"] == "tool/call":
            waiting.add(str(event["data"]["callId"]))
        elif event["type"] == "tool/result":
            waiting.discard(result_call(event))
        elif _is_tool_context(event) and waiting and event in got["events"]:
            texts = [str(block.get("text")) for block in event["data"].get("content", [])]
            if texts and all(text in hooks for text in texts):
                return True
    return False


def _post_block_as_output(run: Run) -> Run:
    """A result its PostToolUse hooks blocked, as Codex writes it: its texts (the model's one
    block per reason) joined by blank lines as one text, without an error flag."""
    blocked = set(_post_blocks(list(events_of(run))))

    def change(event: Event) -> Event:
        if event["type"] != "tool/result" or result_call(event) not in blocked:
            return event
        event = copy.deepcopy(event)
        block = event["data"]["message"]["content"][0]
        texts = [str(part.get("text", "")) for part in block["content"]]
        block["content"] = [{"type": "text", "text": "\n\n".join(texts)}]
        block["isError"] = False
        return event

    return map_events(run, change)


def _flattened_keeping_overlaps(pair: Pair) -> Pair:
    """RW-3's flattening (`flatten_reply_first`), which merges every command's executions into
    one list, and so would lose when each body started: which calls the model has started ran
    at the same time in each run stays compared (SCHED-1), as a list on the flat record."""
    model, target = pair
    decided = _started(model)

    def flat(run: Run) -> Run:
        flattened = flatten_reply_first(run)
        overlapping = sorted(list(x) for x in _overlaps_decided(run, decided))
        return [*flattened[:-1], {**flattened[-1], "overlapping": overlapping}]

    return flat(model), flat(target)


def _without_sidecar(run: Run) -> Run:
    def change(event: Event) -> Event:
        if event["type"] != "tool/call" or "rewrite" not in event["data"]:
            return event
        return {**event, "data": {k: v for k, v in event["data"].items() if k != "rewrite"}}

    return map_events(run, change)


def _hook_audit_order(run: Run) -> Run:
    """Each run of consecutive PreToolUse audit events in one canonical order: by call, then
    handler, each invocation before its result (the CLIs run a call's hooks in parallel)."""
    out: Run = []
    for obs in run:
        if not obs["accepted"]:
            out.append(obs)
            continue
        events: list[Event] = []
        block: list[Event] = []
        for event in [*obs["events"], None]:
            if event is not None and is_hook_at(event, "PreToolUse"):
                block.append(event)
                continue
            block.sort(
                key=lambda e: (
                    str(e["data"].get("callId")),
                    str(e["data"].get("handlerId")),
                    e["type"] != "hook/invoked",
                )
            )
            events += block
            block = []
            if event is not None:
                events.append(event)
        out.append({**obs, "events": events})
    return out


_AUDIT_KEPT = ("turn", "point", "dialect", "handlerId", "callId", "decision", "updatedInput")


def _hook_audit_core(event: Event) -> Event:
    if event["type"] not in ("hook/invoked", "hook/result"):
        return event
    data = {k: v for k, v in event["data"].items() if k in _AUDIT_KEPT}
    if data.get("point") == "PreToolUse" and data.get("decision") == "block":
        # An exit-2 deny's own word (its audit), not another decision: the adapter answers
        # every deny in JSON, which the CLI records as a deny. (The description stays as the
        # saved cases quote it.)
        data["decision"] = "deny"
    return {**event, "data": data}


def _model_identity(event: Event) -> Event:
    if event["type"] != "assistant/message":
        return event
    event = copy.deepcopy(event)
    event["data"]["message"]["source"] = {"kind": "model"}
    return event


def _reworded_results(rewrite: Callable[[str, bool], tuple[str, bool]]) -> Eraser:
    """An eraser rewriting result texts (text, isError) -> (text, isError) in the model's words
    and dropping the error name and code a shell command cannot carry, in both runs: a loop
    that words its results as the model does, and keeps their codes, is as welcome as the CLI."""

    def change(event: Event) -> Event:
        if event["type"] != "tool/result":
            return event
        block = event["data"]["message"]["content"][0]
        text, is_error = rewrite(result_text(event), bool(block["isError"]))
        event = with_result_text(event, text)
        event["data"]["message"]["content"][0]["isError"] = is_error
        event["data"].pop("error", None)
        return event

    return both(lambda run: map_events(run, change))


def _claude_result(text: str, is_error: bool) -> tuple[str, bool]:
    """Claude Code's Bash result: `Exit code N\\n<output>` for a failure; a denial names the
    hook: `PreToolUse:Bash hook error: <reason>`; a hook's input its tool cannot take is refused
    naming neither the hook nor the problem (`_REWRITE_REFUSED`), so the model's refusal
    (HOOK-6's words) reads as it does too."""
    if is_error and (_CLAUDE_REWRITE_REFUSED.match(text) or _MODEL_REWRITE_REFUSED.match(text)):
        return _REWRITE_REFUSED, True
    failed = re.match(r"^Exit code \d+\n?(.*)$", text, re.S)
    if is_error and failed:
        return f"Error: {failed.group(1)}", True
    denied = re.match(r"^PreToolUse:\w+ hook error: (.*)$", text, re.S)
    if is_error and denied:
        # Without a reason from any denying hook the CLI says `Blocked by hook`.
        reason = denied.group(1)
        return f"Error: {DENIED_WITHOUT_REASON if reason == 'Blocked by hook' else reason}", True
    return text, is_error


# Claude Code's refusal of a PreToolUse hook's `updatedInput` its tool cannot take (observed
# 2026-12-05: "... returned updatedInput that failed schema validation: Bash failed due to the
# following issue:\n<problem>\nThe tool input from the model was valid; ..."), the model's
# (section 9's REWRITE_REFUSED), and the words both read as.
_CLAUDE_REWRITE_REFUSED = re.compile(
    r"^PreToolUse hook for \w+ returned updatedInput that failed schema validation: ", re.S
)
_MODEL_REWRITE_REFUSED = re.compile(rf"^Error: hook .* {REWRITE_REFUSED_WORDS} ", re.S)
_REWRITE_REFUSED = f"Error: a hook {REWRITE_REFUSED_WORDS} its call's tool"


def _codex_result(text: str, is_error: bool) -> tuple[str, bool]:
    """Codex's exec_command output: a header (chunk id, wall time, exit code) before
    `Output:`; no error flag (a failure is its exit code). A denial names the hook; a hook's
    input that is no object with a string `command` is refused naming neither the hook nor the
    problem, with no error flag (`_CODEX_REWRITE_REFUSED`), so the model's refusal (HOOK-6's
    words) reads as it does too."""
    if text == _CODEX_REWRITE_REFUSED or (is_error and _MODEL_REWRITE_REFUSED.match(text)):
        return _REWRITE_REFUSED, True
    envelope = re.match(r"^.*?Process exited with code (\d+)\n.*?Output:\n(.*)$", text, re.S)
    if envelope:
        # The output as the shell printed it: a final newline is the command's own.
        code, output = int(envelope.group(1)), envelope.group(2)
        return (output, False) if code == 0 else (f"Error: {output}", True)
    denied = re.match(r"^Command blocked by PreToolUse hook: (.*)\. Command: .*$", text, re.S)
    if denied:
        return f"Error: {denied.group(1)}", True
    return text, is_error


# Codex 0.171.0's refusal of a PreToolUse hook's `updatedInput` that is no object with a string
# `command` (observed 2026-12-05 for a string, a number, a list and an object without one),
# the whole of the result's text.
_CODEX_REWRITE_REFUSED = "hook returned updatedInput without string field `command`"

# Each CLI's results in the model's words (their words for a refused rewrite differ: each
# profile reads only its own CLI's).
_REWORDED_RESULTS = {
    Harness.CLAUDE_CODE: _reworded_results(_claude_result),
    Harness.CODEX: _reworded_results(_codex_result),
}


# What each CLI's shell tool makes of a long or padded output (TEXT-1:output-shape): sizes
# are in UTF-8 bytes, as both CLIs count them.
CLAUDE_PERSISTED_PAST = 30_000
"""Claude Code saves an output of more than this many bytes to a file and sends a preview."""
CLAUDE_PREVIEW_CHARS = 2_000
"""The most characters of such an output its preview holds."""
_CLAUDE_PERSISTED = re.compile(
    r"<persisted-output>\nOutput too large \((?P<size>\d+\.\d)KB\)\. Full output saved to: "
    r"\S+\n\nPreview \(first 2KB\):\n(?P<preview>.*)\n\.\.\.\n</persisted-output>",
    re.S,
)
CODEX_KEPT_WHOLE = 10_000
"""Codex keeps an output of up to this many bytes whole, and of a longer one its first and last
half of it."""
_CODEX_CUT = re.compile(
    r"Warning: truncated output \(original token count: (?P<tokens>\d+)\)\n"
    r"Total output lines: (?P<lines>\d+)\n\n(?P<head>.*)…(?P<cut>\d+) chars truncated…(?P<tail>.*)",
    re.S,
)


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _claude_trimmed(text: str) -> str:
    """An output as Claude Code sends it: without its leading blank lines and trailing
    whitespace."""
    return re.sub(r"\A(?:[ \t\r\f\v]*\n)+", "", text).rstrip()


def _kilobytes(size: int) -> str:
    """A size in KB as Claude Code words it: one decimal, a half rounded up (JavaScript's
    toFixed on 31.25 gives 31.3, where Python's format gives 31.2)."""
    tenths = Decimal(size) / 1024
    return str(tenths.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


CLAUDE_ERROR_KEPT = 30_000
"""The most characters of a failed command's error output Claude Code keeps (the rest is lost)."""
CLAUDE_ERROR_SHOWN = 10_000
"""A failure's text (`Exit code N` and its output) past this many characters is cut to its first
and last half of them."""
_CLAUDE_CUT_ERROR = re.compile(
    r"(?P<head>.*)\n\n\.\.\. \[(?P<cut>\d+) characters truncated\] \.\.\.\n\n(?P<tail>.*)", re.S
)
CLAUDE_NO_OUTPUT = "(Bash completed with no output)"
"""What Claude Code sends for a command that succeeded with no output (or only whitespace)."""


def _claude_error_cut(output: str, shown: str) -> bool:
    """Whether `shown` (after `Exit code N` and its newline, which TEXT-1 words `Error: `) is
    Claude Code's cut of a failure's error output: its first 30,000 characters, trimmed, with
    that line before them, cut past 10,000 characters to the first and last 5,000 around
    `... [N characters truncated] ...` (N: the characters left out of the whole text)."""
    cut = _CLAUDE_CUT_ERROR.fullmatch(shown)
    if cut is None:
        return False
    kept = _claude_trimmed(output[:CLAUDE_ERROR_KEPT])
    head, tail, half = cut.group("head"), cut.group("tail"), CLAUDE_ERROR_SHOWN // 2
    exit_line = half - len(head)  # the head held `Exit code N\n` before the output
    return (
        exit_line >= len("Exit code 0\n")
        and kept.startswith(head)
        and len(tail) == half
        and kept.endswith(tail)
        and int(cut.group("cut")) == exit_line + len(kept) - CLAUDE_ERROR_SHOWN
    )


def _claude_shaped(output: str, shown: str, failed: bool) -> bool:
    """Whether Claude Code shows `output` as `shown`: trimmed, or past its limit (the output's
    own size, before trimming) a preview of it; a success with nothing left said so, a failure's
    long error output cut."""
    if shown == _claude_trimmed(output):
        return True
    if not failed and not _claude_trimmed(output):
        return shown == CLAUDE_NO_OUTPUT
    if failed:
        return _claude_error_cut(output, shown)
    persisted = _CLAUDE_PERSISTED.fullmatch(shown)
    if persisted is None or _size(output) <= CLAUDE_PERSISTED_PAST:
        return False
    preview = persisted.group("preview")
    previewed = next(
        (text for text in (output, _claude_trimmed(output)) if text.startswith(preview)), None
    )
    if previewed is None or len(preview) > CLAUDE_PREVIEW_CHARS:
        return False
    # A preview shorter than its limit ends where a line of the output does.
    whole_or_at_a_line = (
        len(preview) == CLAUDE_PREVIEW_CHARS or previewed[len(preview) : len(preview) + 1] == "\n"
    )
    return whole_or_at_a_line and persisted.group("size") == _kilobytes(_size(output))


def _codex_shaped(output: str, shown: str, _failed: bool) -> bool:
    """Whether Codex shows `output` as `shown`: whole, or past its limit cut to a head and a
    tail of at most half of it each, saying how much it cut (a failure's output alike)."""
    if shown == output:
        return True
    cut = _CODEX_CUT.fullmatch(shown)
    if cut is None or _size(output) <= CODEX_KEPT_WHOLE:
        return False
    head, tail = cut.group("head"), cut.group("tail")
    return (
        output.startswith(head)
        and output.endswith(tail)
        and max(_size(head), _size(tail)) <= CODEX_KEPT_WHOLE // 2
        and int(cut.group("cut")) == len(output) - len(head) - len(tail)
        and int(cut.group("tokens")) == (_size(output) + 3) // 4  # a token: 4 bytes, rounded up
        and int(cut.group("lines")) == len(output.splitlines())
    )


def _shaped_outputs(shaped: Callable[[str, str, bool], bool]) -> Eraser:
    """An eraser taking the model's result text for the CLI's where the CLI's is the model's
    output as its shell tool shapes it (after TEXT-1's wording: a failure's `Error: ` and its
    error output); any other difference stays."""

    def erase(pair: Pair) -> Pair:
        model, target = pair
        given = {
            result_call(e): (result_text(e), bool(e["data"]["message"]["content"][0]["isError"]))
            for e in events_of(model)
            if e["type"] == "tool/result"
        }

        def change(event: Event) -> Event:
            if event["type"] != "tool/result" or result_call(event) not in given:
                return event
            (want, failed), got = given[result_call(event)], result_text(event)
            failure = "Error: "
            if failed and want.startswith(failure) and got.startswith(failure):
                matches = shaped(want.removeprefix(failure), got.removeprefix(failure), True)
            else:
                matches = shaped(want, got, failed)
            return with_result_text(event, want) if matches and want != got else event

        return model, map_events(target, change)

    return erase


OUTPUT_SHAPES = {
    Harness.CLAUDE_CODE: _shaped_outputs(_claude_shaped),
    Harness.CODEX: _shaped_outputs(_codex_shaped),
}
"""Each CLI's TEXT-1:output-shape eraser: each shapes a shell's output its own way."""


def _model_errors_reworded(pair: Pair) -> Pair:
    return both(lambda run: map_events(run, _model_error_reason))(pair)


def _one_denial_reason(pair: Pair, commands: Sequence[Json]) -> Pair:
    """Where the model joins several denying hooks' reasons ('Error: a; b') and the CLI's
    result gives one of them, take the CLI's text for the model's; one of them may be none (a
    hook that denied without a reason: the CLI's result then says `denied`, as the model's
    would for it alone)."""
    model, target = pair
    given = {
        result_call(e): result_text(e) for e in events_of(target) if e["type"] == "tool/result"
    }
    unreasoned = _denied_without_a_reason(model, commands)

    def change(event: Event) -> Event:
        if event["type"] != "tool/result":
            return event
        text, call_id = result_text(event), result_call(event)
        if not text.startswith("Error: ") or call_id not in given:
            return event
        reasons = text.removeprefix("Error: ").split("; ")
        theirs = given[call_id].removeprefix("Error: ")
        one_of_several = len(reasons) > 1 and theirs in reasons
        if not one_of_several and not (theirs == DENIED_WITHOUT_REASON and call_id in unreasoned):
            return event
        return with_result_text(event, given[call_id])

    return map_events(model, change), target


def _denied_without_a_reason(model: Run, commands: Sequence[Json]) -> set[str]:
    """The calls a PreToolUse hook denied giving no reason (none, or a blank one) in the model's
    run, read from the answers the program gave: the hook audits' shape (`SHAPES`, erased
    first) leaves no reason in a record, and an exit-2 deny's record holds its stderr, not its
    reason. Read from the records, every denied call was one, and a lone deny's reason dropped
    (`Error: denied`) passed as this divergence."""
    found: set[str] = set()
    for command, seen in zip(commands, model, strict=False):
        verdict = command.get("verdict") if command.get("kind") == "HookAnswers" else None
        if not isinstance(verdict, dict) or verdict.get("decision") != "deny":
            continue
        if str(verdict.get("reason") or "").strip():
            continue
        events = seen["events"] if seen["accepted"] else []  # a refusal carries none
        found.update(str(e["data"].get("callId")) for e in events if _pre_tool_use_denial(e))
    return found


def _without_empty_replies(run: Run) -> Run:
    def change(event: Event) -> Event | None:
        empty = event["type"] == "assistant/message" and not event["data"]["message"]["content"]
        return None if empty else event

    return map_events(run, change)


def _without_synthetic_replies(run: Run) -> Run:
    def change(event: Event) -> Event | None:
        source = event["data"]["message"]["source"] if event["type"] == "assistant/message" else {}
        return None if source.get("model") == SYNTHETIC_MODEL else event

    return map_events(run, change)


def _without_api_error_replies(history: Sequence[Json]) -> list[Json]:
    """A history without Claude Code's assistant messages for a failed request ('API Error:
    ...', model <synthetic>): its transcript keeps them, its requests leave them out."""

    def api_error(message: Json) -> bool:
        source, content = message.get("source") or {}, message.get("content") or []
        return (
            message.get("role") == "assistant"
            and source.get("model") == SYNTHETIC_MODEL
            and len(content) == 1
            and str(content[0].get("text", "")).startswith("API Error")
        )

    return [message for message in history if not api_error(message)]


def _api_error_replies_left_out(
    log: Sequence[Json], reported: Sequence[Json]
) -> tuple[list[Json], list[Json]]:
    return _without_api_error_replies(log), _without_api_error_replies(reported)


CLAUDE = Harness.CLAUDE_CODE


def _blocks(message: Json) -> list[Json]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _only_text(message: Json, role: str, text: str) -> bool:
    blocks = _blocks(message)
    return (
        message.get("role") == role
        and len(blocks) == 1
        and blocks[0].get("type") == "text"
        and blocks[0].get("text") == text
    )


def _result_id(message: Json) -> str | None:
    results = [b for b in _blocks(message) if b.get("type") == "tool-result"]
    return str(results[0].get("toolCallId")) if results else None


def _call_ids(message: Json) -> list[str]:
    if message.get("role") != "assistant":
        return []
    return [str(b.get("id")) for b in _blocks(message) if b.get("type") == "tool-call"]


def _said_nothing(blocks: Sequence[Json]) -> bool:
    return all(b.get("type") == "text" and not str(b.get("text", "")).strip() for b in blocks)


def _reused_ids(history: Sequence[Json]) -> frozenset[str]:
    """The call ids a message's call uses after an earlier message's call used them."""
    seen: set[str] = set()
    reused: set[str] = set()
    for message in history:
        ids = _call_ids(message)
        reused.update(i for i in ids if i in seen)
        seen.update(ids)
    return frozenset(reused)


@attrs.frozen
class _Stripped:
    history: list[Json]
    # Each reply left with nothing to say: what the history holds right before it (wire form).
    emptied_after: list[object]
    stripped: int  # replies a call was taken from


@attrs.frozen
class _Placeholders:
    """What of Claude Code's placeholders the log accounts for (see `_reused_calls_stripped`)."""

    replies_after: list[object]
    turns: int


def _reused_calls_stripped(
    history: Sequence[Json], reused: frozenset[str], placeholders: _Placeholders | None
) -> _Stripped:
    """`history` without each call whose id an earlier message's call used, nor a result of a
    reused id after its first (the reused call's). With `placeholders` (for the reported
    history), a `[Tool use interrupted]` reply is left out too where the log's emptied reply
    stood (after the same message), a `(no content)` turn right after a reply once a reused
    id's first call was made, each no more often than the log accounts for; and so is a
    stripped reply right after the request's own form of it (`as_sent` reports the log's
    messages after the request's end after what the request sent, so a reply the request
    changed stands twice)."""
    used: set[str] = set()
    answered: set[str] = set()
    out: list[Json] = []
    emptied_after: list[object] = []
    stripped = 0
    replies_after = list(placeholders.replies_after) if placeholders else []
    turns_left = placeholders.turns if placeholders else 0
    reused_seen = False
    previous: Json = {}
    for message in history:
        follows_reply, previous = previous.get("role") == "assistant", message
        result = _result_id(message)
        if result is not None:
            if result not in answered or result not in reused:
                answered.add(result)
                out.append(message)
            continue
        before = wire_form(CLAUDE, out[-1]) if out else None
        if _only_text(message, "assistant", CLAUDE_EMPTIED_REPLY) and before in replies_after:
            replies_after.remove(before)
            continue
        if (
            reused_seen
            and follows_reply
            and turns_left
            and _only_text(message, "user", CLAUDE_EMPTIED_TURN)
        ):
            turns_left -= 1
            continue
        ids = _call_ids(message)
        blocks = _blocks(message)
        kept = [b for b in blocks if b.get("type") != "tool-call" or str(b.get("id")) not in used]
        reused_seen = reused_seen or not reused.isdisjoint(ids)
        used.update(ids)
        if len(kept) == len(blocks):
            out.append(message)
            continue
        stripped += 1
        if _said_nothing(kept):
            emptied_after.append(before)
            continue
        changed = {**message, "content": kept}
        if placeholders is not None and before == wire_form(CLAUDE, changed):
            continue
        out.append(changed)
    return _Stripped(out, emptied_after, stripped)


def _reused_call_ids_left_out(
    log: Sequence[Json], reported: Sequence[Json]
) -> tuple[list[Json], list[Json]]:
    """HIST-1 (Claude Code): a call whose id an earlier reply's call used (local models number
    calls `call_0` anew in each reply) is left out of every request, its result too; a reply
    left with nothing is sent as the text `[Tool use interrupted]`, a user turn left with
    nothing as `(no content)`. Both histories lose such calls and their results, and the
    reported one those placeholders where the log accounts for them
    (`_reused_calls_stripped`). Nothing is erased where the log reuses no id."""
    reused = _reused_ids(log)
    if not reused:
        return list(log), list(reported)
    log_side = _reused_calls_stripped(log, reused, None)
    placeholders = _Placeholders(log_side.emptied_after, log_side.stripped)
    return log_side.history, _reused_calls_stripped(reported, reused, placeholders).history


def _model_error_reason(event: Event) -> Event:
    if event["type"] != "turn/end" or event["data"]["reason"].get("kind") != "error":
        return event
    return {**event, "data": {**event["data"], "reason": {"kind": "error"}}}


# ---------------------------------------------------------------------------------------------
# How conform recognises each rule KNOWN lists (extra erasers of one rule are keyed RULE:aspect).

# Rule -> (key, symptom or eraser, cut at the reply) in the order they are applied.
Detector = tuple[str, Symptom | None, Eraser | None, bool]
DETECTORS: dict[str, tuple[Detector, ...]] = {
    "HOOK-3": (
        ("HOOK-3", _another_hooks_rewrite_ran, None, True),
        ("HOOK-3:parallel-hooks", None, both(_hook_audit_order), False),
    ),
    "RW-1": (("RW-1", _record_is_not_what_ran, None, True),),
    "HOOK-6": (("HOOK-6", _non_object_rewrite_ignored, None, False),),
    "DEC-1": (("DEC-1", _denied_call_ran, None, True),),
    "EXE-1": (("EXE-1", accepts_duplicate_ids, None, False),),
    "STEP-4": (("STEP-4", _reasoning_only_reply_asks_again, None, False),),
    "TURN-1": (("TURN-1", _empty_prompt_refused, None, False),),
    "TEXT-1": (
        # These two erasers are the harness's own (OWN_ERASERS).
        ("TEXT-1", None, None, False),
        ("TEXT-1:output-shape", None, None, False),
        ("TEXT-1:post-block", None, both(_post_block_as_output), False),
        (
            "TEXT-1:model-errors",
            None,
            both(lambda run: map_events(run, _model_error_reason)),
            False,
        ),
    ),
    # Its eraser reads the program too (PROGRAM_ERASERS).
    "HOOK-2": (("HOOK-2", None, None, False),),
    "HIST-1": (
        ("HIST-1", None, both(_without_synthetic_replies), False),
        ("HIST-1:reused-call-id", None, None, False),
    ),
    "ORD-1": (("ORD-1", None, both(_without_empty_replies), False),),
    "TEXT-2": (("TEXT-2", None, both(lambda run: map_events(run, _model_identity)), False),),
    "RW-2": (("RW-2", None, both(_without_sidecar), False),),
    "LOG-8": (("LOG-8", None, both(drop_commits), False),),
    "RW-3": (("RW-3", None, _flattened_keeping_overlaps, False),),
    "ORD-3": (
        ("ORD-3", _result_as_its_body_ended, None, True),
        ("ORD-3:denied-at-once", _denial_logged_at_once, None, True),
    ),
    "DEC-3": (
        ("DEC-3", _blocked_result_kept, None, False),
        ("DEC-3:blank-reason", _blank_block_ignored, None, False),
    ),
    "ADJ-1": (("ADJ-1", _context_before_a_result, None, False),),
    "ADJ-4": (
        ("ADJ-4", None, both(_reminders_at_next_step), False),
        ("ADJ-4:abort-notice", None, both(_without_abort_notices), False),
    ),
    "SCHED-1": (("SCHED-1", _overlap_the_model_never_has, None, True),),
    "ABORT-1": (
        ("ABORT-1", _running_call_killed, None, False),
        ("ABORT-1:unanswered-at-exit", _running_call_left_unanswered, None, False),
        ("ABORT-1:resume", _reply_invented_at_resume, None, False),
        ("ABORT-1:completion-order", _killed_calls_rejected_as_they_end, None, False),
    ),
    "ABORT-2": (
        ("ABORT-2", _interrupted_call_kept, None, True),
        ("ABORT-2:completion-order", _kept_calls_rejected_as_they_end, None, True),
    ),
    "ABORT-3": (("ABORT-3", None, both(lambda run: map_events(run, _abort_without_cause)), False),),
}
# What a rule's known divergence puts in the CLI's own log and not in its model requests, erased
# from both histories when conform holds the requests to the log (`history_own_log`).
HISTORY_ERASERS = {
    "HIST-1": _api_error_replies_left_out,
    "HIST-1:reused-call-id": _reused_call_ids_left_out,
}
# Detectors of a rule that only one harness's entry describes.
HARNESS_ONLY = {
    "DEC-3": Harness.CLAUDE_CODE,
    "DEC-3:blank-reason": Harness.CODEX,
    "TEXT-1:post-block": Harness.CODEX,
    "post-hook-audit-place": Harness.CODEX,
    "ADJ-4": Harness.CLAUDE_CODE,
    "ABORT-1:resume": Harness.CLAUDE_CODE,
    "ABORT-1:unanswered-at-exit": Harness.CLAUDE_CODE,
    "ORD-3:denied-at-once": Harness.CLAUDE_CODE,
    "ABORT-2:completion-order": Harness.CLAUDE_CODE,
    "ABORT-1:completion-order": Harness.CLAUDE_CODE,
}
# A detector's symptom where one harness breaks the rule more narrowly than the other: Claude
# Code overlaps only read-only calls, where Codex overlaps every call of a reply.
NARROWER: dict[tuple[str, Harness], Symptom] = {
    ("SCHED-1", Harness.CLAUDE_CODE): _read_only_calls_overlap_past_the_cap,
}
# A detector's eraser that reads the program besides the runs (the DETECTORS entry has none).
PROGRAM_ERASERS: dict[str, ProgramEraser] = {"HOOK-2": _one_denial_reason}
# A detector's eraser where each harness has its own (the DETECTORS entry has none).
OWN_ERASERS: dict[tuple[str, Harness], Eraser] = {
    **{("TEXT-1", harness): reworded for harness, reworded in _REWORDED_RESULTS.items()},
    **{("TEXT-1:output-shape", harness): shape for harness, shape in OUTPUT_SHAPES.items()},
}
# The rules the target's own log check reads a hard divergence's command as breaking first:
# each CLI writes its interrupt notice (ADJ-4) after the results an abort gives, in the same
# command as ABORT-1's killed call or ABORT-2's kept one; Claude Code's reply invented at the
# resume sits between two turns (TURN-3), its turn ended at its exit leaves the running call
# unanswered (ADJ-3), and it rejects the read-only calls ABORT-2 keeps, or ABORT-1 kills with
# those queued behind them, in the order the interrupt ends them (ORD-3).
ALSO_BREAKS = {
    "ABORT-1": ("ADJ-4",),
    "ABORT-2": ("ADJ-4",),
    "ABORT-2:completion-order": ("ORD-3", "ADJ-4"),
    "ABORT-1:completion-order": ("ORD-3", "ADJ-4"),
    "ABORT-1:resume": ("TURN-3",),
    "ABORT-1:unanswered-at-exit": ("ADJ-3",),
}
# The log facets (`Violation.facet_name`) the target's own log breaks wherever a divergence shows:
# each CLI writes a PostToolUse block's result without the error flag (Claude Code keeps the
# output, DEC-3; Codex writes the reasons as plain output, TEXT-1, or ignores a blank one), so
# its audit's `block` goes with a result that is no error (HOOK-1). Codex writes a PreToolUse
# denial without the error flag too (TEXT-1; HOOK-2 where several hooks deny) and runs a call
# denied without a reason (DEC-1), so its audit's `deny` goes with a result that is no error
# (DEC-1). A dsh-format log is held to both (`loopspec check`); under these profiles the
# comparison judges the block and the deny instead.
TOLERATES: dict[Harness, dict[str, tuple[str, ...]]] = {
    harness: dict.fromkeys(
        ("DEC-3", "TEXT-1:post-block", "DEC-3:blank-reason"),
        (f"HOOK-1:{POST_BLOCK_NOT_AN_ERROR}",),
    )
    for harness in Harness
}
# Neither CLI writes a rewrite sidecar (their RW-2): the log's supplied input without one is that
# divergence, and the comparison tells whether the record keeps what ran (RW-1).
for _entries in TOLERATES.values():
    _entries["RW-2"] = (f"RW-2:{SUPPLIED_WITHOUT_SIDECAR}",)
# Claude Code writes a denial as an error: only Codex's entries tolerate the deny facet.
TOLERATES[Harness.CODEX] |= dict.fromkeys(
    ("TEXT-1", "HOOK-2", "DEC-1"), (f"DEC-1:{DENIED_NOT_AN_ERROR}",)
)
# Codex refuses a hook's input its shell cannot take in words of its own, no error flag (TEXT-1's
# eraser reads them as the model's refusal): its log shows a success for the call (HOOK-6).
TOLERATES[Harness.CODEX]["TEXT-1"] += (f"HOOK-6:{NON_OBJECT_INPUT_RAN}",)
# Hard rules whose refused command random programs leave out: Claude Code refuses a blank
# prompt, and the generator's texts include "" (the one it tends to first) and " ", so many
# programs would end at their first command. The rule's regression case still sends one.
AVOID: dict[str, Avoid] = {"TURN-1": _blank_prompt}
# Rules of KNOWN conform cannot show on a harness, with the capability it would need.
_CRASH_REPAIR = "crash-repair (a headless CLI repairs only when resumed with a new prompt)"
NOT_DRIVEN: dict[Harness, dict[str, str]] = {
    Harness.CLAUDE_CODE: {"REC-1": _CRASH_REPAIR},
    Harness.CODEX: {"REC-1": _CRASH_REPAIR},
}
# The order detectors apply in: symptoms (cuts) first, then (after the shapes) the erasers,
# the flattening of whole runs and the audit order last.
HARD_ORDER = (
    "TURN-1",
    "EXE-1",
    "STEP-4",
    "HOOK-3",
    "RW-1",
    "HOOK-6",
    "DEC-1",
    "SCHED-1",
    "ORD-3",
    "DEC-3",
    "ADJ-1",
    "ABORT-2",
    "ABORT-1",
)
SOFT_ORDER = (
    "HIST-1",
    "TEXT-1",
    "HOOK-2",
    "ORD-1",
    "TEXT-2",
    "RW-2",
    "LOG-8",
    "RW-3",
    "ADJ-4",
    "ABORT-3",
    "HOOK-3",
)


def _without_body_contexts(pair: Pair, commands: Sequence[Json]) -> Pair:
    """Both runs without the tool contexts a body deferred (a ToolSucceeded's `contexts`): each
    tool context whose text is one the program's bodies deferred. A PostToolUse hook's context
    stays, unless its text is one a body of the program deferred too."""
    deferred = {
        str(text)
        for command in commands
        if command.get("kind") == "ToolFinishes"
        for text in command["outcome"].get("contexts") or ()
    }

    def change(event: Event) -> Event | None:
        if event["type"] == "tool/result":
            return _without_deferred_reminders(event, deferred)
        if not _is_tool_context(event):
            return event
        texts = [str(b.get("text")) for b in event["data"].get("content", [])]
        return None if texts and all(text in deferred for text in texts) else event

    return both(lambda run: map_events(run, change))(pair)


def _without_deferred_reminders(result: Event, deferred: set[str]) -> Event:
    """A result without Claude Code's reminders (a PostToolUse hook's context, which ADJ-4's
    eraser makes a tool context, after this one ran) of a text a body deferred too: the model's
    such context was erased, and the CLI's came back after the step/start (ADJ-4)."""
    parts = result["data"]["message"]["content"][0]["content"]
    kept = [
        part
        for part in parts[1:]
        if not (
            (found := _REMINDER.fullmatch(str(part.get("text", "")))) and found.group(1) in deferred
        )
    ]
    if len(kept) == len(parts) - 1:
        return result
    result = copy.deepcopy(result)
    result["data"]["message"]["content"][0]["content"] = [parts[0], *kept]
    return result


def _post_audit_with_result(run: Run) -> Run:
    """Each PostToolUse audit event moved to right before its call's result, in that result's
    commit (the model audits a call's PostToolUse hooks as it commits the result they judge)."""
    results = {result_call(e) for e in events_of(run) if e["type"] == "tool/result"}

    def moved(event: Event) -> bool:
        return is_hook_at(event, "PostToolUse") and str(event["data"].get("callId")) in results

    held: dict[str, list[Event]] = {}
    for event in events_of(run):
        if moved(event):
            held.setdefault(str(event["data"].get("callId")), []).append(event)
    out: Run = []
    for obs in run:
        if not obs["accepted"]:
            out.append(obs)
            continue
        events: list[Event] = []
        for event in obs["events"]:
            if moved(event):
                continue
            if event["type"] == "tool/result":
                commit = event.get("commit")
                for audit in held.pop(result_call(event), []):
                    events.append(audit if commit is None else {**audit, "commit": commit})
            events.append(event)
        out.append({**obs, "events": events})
    return out


SHAPES = (
    KnownDivergence(
        "hook-audit-shape",
        (),
        "What the adapter observes of a hook: its measured duration, the CLI's matcher "
        "(Bash: every call is a shell call), a denial's reason in the hook's own output "
        "(the model: stderrSummary). Decisions and supplied inputs are compared.",
        erase_pair=both(lambda run: map_events(run, _hook_audit_core)),
    ),
    KnownDivergence(
        "post-hook-audit-place",
        (),
        "The adapter records a PostToolUse hook when it answers it, which Codex asks as soon "
        "as the body finishes, while it writes the results in call order; the model audits it "
        "when the result it judges commits. Each PostToolUse audit is compared right before "
        "its call's result (Claude Code logs each result right after its hooks).",
        erase_pair=both(_post_audit_with_result),
    ),
)


ADAPTER_LIMITS = (
    KnownDivergence(
        "shell-mapped-tools",
        ("EXE-2", "HOOK-6"),
        "Every tool of the configuration reaches the CLI as its shell tool, so a call the "
        "model settles without running (unknown tool, input that is not a valid object) is run "
        "by the CLI after its hooks, and so is a hook's input its tool cannot take that the "
        "shell can (a string command); the program is cut at its reply (an adapter limit, not "
        "a divergence of the loop).",
        symptom=_shell_mapping_cuts,
        cut_at_reply=True,
        avoid=_settles_a_call_unrun,
    ),
    KnownDivergence(
        "tool-contexts",
        (),
        "A tool is a shell command: it has output and an exit code, and no way to defer a "
        "context for the next step, so the contexts a ToolSucceeded carries reach no CLI; "
        "those are left out of both runs (an adapter limit). PostToolUse hooks' contexts are "
        "compared.",
        erase_program=_without_body_contexts,
    ),
)


def _summary(entry: KnownEntry, key: str) -> str:
    """What a detector's key shows: its rule's whole entry, or a keyed form's own part of it
    (`ABORT-1:completion-order` read as ABORT-1's generic text)."""
    _, colon, aspect = key.partition(":")
    if not colon:
        return entry.what
    try:
        return entry.aspects[aspect]
    except KeyError:
        msg = f"{key}: KNOWN's {entry.rule_id} entry has no summary of its aspect {aspect!r}"
        raise ValueError(msg) from None


def _detected(harness: Harness, rules: tuple[str, ...], *, hard: bool) -> list[KnownDivergence]:
    found = []
    for rule in rules:
        entry = KNOWN[harness].get(rule)
        if entry is None or rule in NOT_DRIVEN[harness]:
            continue
        for key, wide, common_eraser, cut in DETECTORS[rule]:
            if HARNESS_ONLY.get(key, harness) != harness:
                continue
            symptom = NARROWER.get((key, harness), wide)
            eraser = OWN_ERASERS.get((key, harness), common_eraser)
            if (symptom is not None) == hard:
                found.append(
                    KnownDivergence(
                        key,
                        (rule, *(ALSO_BREAKS.get(key, ()) if symptom is not None else ())),
                        f"{_summary(entry, key)} ({entry.kind.value})",
                        erase_pair=eraser,
                        erase_program=PROGRAM_ERASERS.get(key),
                        symptom=symptom,
                        cut_at_reply=cut,
                        avoid=AVOID.get(key),
                        erase_history=HISTORY_ERASERS.get(key),
                        tolerates=TOLERATES[harness].get(key, ()),
                    )
                )
    return found


IMPLEMENTATIONS = {
    Harness.CLAUDE_CODE: "@anthropic-ai/claude-code@2.1.332 through examples/claude-code-adapter",
    Harness.CODEX: "@openai/codex@0.171.0 through examples/codex-adapter",
}


def profile_of(harness: Harness) -> Profile:
    """The conform profile of `harness`, built from KNOWN."""
    missing = [r for r in KNOWN[harness] if r not in DETECTORS and r not in NOT_DRIVEN[harness]]
    if missing:
        msg = f"{harness.value}: no conform detector for the known divergence(s) {missing}"
        raise ValueError(msg)
    return Profile(
        harness.value,
        IMPLEMENTATIONS[harness],
        (
            *(limit for limit in ADAPTER_LIMITS if limit.hard),
            *_detected(harness, HARD_ORDER, hard=True),
            *(limit for limit in ADAPTER_LIMITS if not limit.hard),
            *(shape for shape in SHAPES if HARNESS_ONLY.get(shape.key, harness) == harness),
            *_detected(harness, SOFT_ORDER, hard=False),
        ),
        frozenset(DRIVEN_CAPABILITIES),
    )


PROFILES = {harness.value: profile_of(harness) for harness in Harness}
