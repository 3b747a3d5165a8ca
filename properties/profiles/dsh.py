"""The deepseek-harness loop, `@deepseek-ai/dsh-agent-loop` 0.1.0-rc.8: its known divergences.

Every way dsh rc.8 differs from the model, found by holding it to the model through
`examples/dsh-adapter` and stated in SPEC.md section 8 as a design difference or a dsh bug. Each
has a replayable case under `tests/regressions/dsh-<key>.json`. `loopspec conform --profile dsh`
reports these as *known* divergences; anything else is a counterexample.

Runs reach the erasers normalized by `loopspec.properties.profiles.runs`.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence

from loopspec.model.commands import Command, ModelReplies
from loopspec.model.config import POST_TOOL_USE, LoopConfig
from loopspec.model.invariants import UNRUN_CALL_POST_HOOK
from loopspec.model.jsonvalue import JAVASCRIPT_TRIMMED, as_javascript_round_trips
from loopspec.model.messages import ToolCallBlock
from loopspec.model.prefix import REPEATED_CALL_ID
from loopspec.model.rewrite import input_problem
from loopspec.properties.conformance.json_values import blank_but_not_empty
from loopspec.properties.profiles.known import KnownDivergence, Profile
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
    results_with_code,
    split_events,
    user_texts,
    with_result_text,
)

# Event types dsh writes that the model does not (compact chunk rows end in `-chunks`).
OPAQUE_TYPES = frozenset(
    {
        "agent/inbox/spliced",
        "request/header",
        "request/context",
        "session/title",
        "assistant/chunk",
        "session/end-seed",
    }
)


def opaque(event_type: str) -> bool:
    """Whether dsh writes this event type for itself (the model has no such event)."""
    return event_type in OPAQUE_TYPES or event_type.endswith("-chunks")


# ---------------------------------------------------------------------------------------------
# Erasers: each removes exactly one documented difference from a (model, dsh) pair of runs.


def _move_calls(run: Run) -> Run:
    """Take every tool/call out of its command and list them, in log order, at the end."""
    calls = [e for e in events_of(run) if e["type"] == "tool/call"]
    out = map_events(run, lambda e: None if e["type"] == "tool/call" else e)
    return [*out, {"accepted": True, "moved": "tool/call", "events": calls, "executed": []}]


def _hook_core(event: Event) -> Event | None:
    """What the two hook audits share: the turn, the point, the dialect and matcher, the word."""
    data = event["data"]
    if event["type"] == "hook/invoked":
        keep = ("turn", "point", "dialect", "matcher")
        return {**event, "data": {k: data[k] for k in keep if k in data}}
    if event["type"] == "hook/result":
        decision = data["decision"]
        # A PostToolUse answer that only adds context: the model records "allow", the Claude
        # Code bridge "pass" (its parsed output has no decision).
        if data["point"] == "PostToolUse" and decision == "allow":
            decision = "pass"
        return {
            **event,
            "data": {"turn": data["turn"], "point": data["point"], "decision": decision},
        }
    return event


def _drop_unrun_post_hooks(run: Run) -> Run:
    """Drop the PostToolUse audit pairs judging a call whose body never ran."""
    ran = {call_id for obs in run if obs["accepted"] for call_id, _ in obs["executed"]}
    out: Run = []
    for obs in run:
        if not obs["accepted"]:
            out.append(obs)
            continue
        kept: list[Event] = []
        held: list[Event] = []
        for event in obs["events"]:
            if is_hook_at(event, "PostToolUse"):
                held.append(event)
                continue
            if not (event["type"] == "tool/result" and result_call(event) not in ran):
                kept += held
            held = []
            kept.append(event)
        out.append({**obs, "events": kept + held})
    return out


def _without_runtime_context(run: Run) -> Run:
    def change(event: Event) -> Event | None:
        source = event["data"].get("source", {}) if event["type"] == "user/message" else {}
        return None if source.get("plugin") == "@deepseek-ai/dsh-system-prompt" else event

    return map_events(run, change)


def _without_empty_tool_contexts(pair: Pair) -> Pair:
    """dsh's run without the empty user/messages a tool's "" deferred contexts became; the
    model queues nothing for them (ADJ-4)."""

    def change(event: Event) -> Event | None:
        data = event["data"]
        if event["type"] != "user/message" or data.get("source", {}).get("kind") != "plugin":
            return event
        return None if data.get("content") == [{"type": "text", "text": ""}] else event

    return pair[0], map_events(pair[1], change)


def _blank_to_one_reader(block: Json) -> bool:
    """A text or reasoning block blank to only one of Python's `str.strip` (SPEC's blank) and
    JavaScript's `trim` (dsh's). One blank to both stays: keeping it is a bug to either."""
    if block.get("type") not in ("text", "reasoning"):
        return False
    text = str(block.get("text", ""))
    return (not text.strip()) != (not text.strip(JAVASCRIPT_TRIMMED))


def _without_blank_interrupted_blocks(run: Run) -> Run:
    """Each interrupted assistant/message without the blocks blank to one reader only, and
    without the message when none is left, as both readers would then omit it."""

    def change(event: Event) -> Event | None:
        data = event["data"]
        if event["type"] != "assistant/message" or data.get("interrupted") is not True:
            return event
        content = data["message"]["content"]
        kept = [block for block in content if not _blank_to_one_reader(block)]
        if len(kept) == len(content):
            return event
        if not kept:
            return None
        event = copy.deepcopy(event)
        event["data"]["message"]["content"] = copy.deepcopy(kept)
        return event

    return map_events(run, change)


# What dsh-llm (rc.8) records for an adapter failure without a message, whatever its code.
_DSH_EMPTY_FAILURE = {"message": "LLM adapter failed", "code": "UNKNOWN"}
# dsh-llm's code for a failure that names none: its LlmError takes no empty code.
_DSH_NO_CODE = "UNKNOWN"


def _empty_failure_as_dsh_words_it(run: Run) -> Run:
    """A failed request's turn/end whose error has an empty message or code, as dsh records it."""

    def change(event: Event) -> Event:
        reason = event["data"].get("reason") if event["type"] == "turn/end" else None
        if not isinstance(reason, dict):
            return event
        error = reason.get("error")
        if not isinstance(error, dict):
            return event
        if error.get("message") == "":
            error = _DSH_EMPTY_FAILURE
        elif error.get("code") == "":
            error = {**error, "code": _DSH_NO_CODE}
        else:
            return event
        return {**event, "data": {**event["data"], "reason": {**reason, "error": error}}}

    return map_events(run, change)


def _hook_context_as_tool_context(run: Run) -> Run:
    def change(event: Event) -> Event:
        source = event["data"].get("source", {}) if event["type"] == "user/message" else {}
        if source.get("plugin") != "hooks-claude-code":
            return event
        event = copy.deepcopy(event)
        event["data"]["source"]["plugin"] = "tool-context"
        return event

    return map_events(run, change)


def _one_message_per_hook_context(run: Run) -> Run:
    """Each user/message of several hooks' contexts (dsh: one call's PostToolUse hooks') as one
    message per block, as the model delivers them, in the same order. Runs before
    `hook-context-label`, while dsh's hook contexts are labelled apart: a message of a tool's own
    contexts (`tool-context`) with several blocks is no message dsh sends, and stays."""

    def change(event: Event) -> list[Event]:
        data = event["data"]
        source = data.get("source", {}) if event["type"] == "user/message" else {}
        blocks = data.get("content", []) if source.get("plugin") == "hooks-claude-code" else []
        if len(blocks) < 2:
            return [event]
        singles = [copy.deepcopy(event) for _ in blocks]
        for single, block in zip(singles, blocks, strict=True):
            single["data"]["content"] = [copy.deepcopy(block)]
        return singles

    return split_events(run, change)


def _approval_core(run: Run) -> Run:
    """Approval events without `arguments`; ids named after the call they ask about."""
    ids: dict[str, str] = {}

    def change(event: Event) -> Event:
        if event["type"] not in ("approval/asked", "approval/decided"):
            return event
        data = dict(event["data"])
        if event["type"] == "approval/asked":
            ids[data["id"]] = f"approval-{data.get('callId')}"
            data.pop("arguments", None)
        data["id"] = ids.get(data["id"], data["id"])
        return {**event, "data": data}

    return map_events(run, change)


def _reworded(rules: Sequence[tuple[str, str]], names: dict[str, str]) -> Callable[[Run], Run]:
    """Rewrite tool/result texts matching `rules` (regex, replacement) and error names."""

    def change(event: Event) -> Event:
        if event["type"] != "tool/result":
            return event
        text = result_text(event)
        for pattern, replacement in rules:
            text = re.sub(pattern, replacement, text)
        error = event["data"].get("error")
        renamed = error is not None and error.get("name") in names
        if text == result_text(event) and not renamed:
            return event  # most results: nothing to reword, nothing to copy
        event = with_result_text(event, text)
        if renamed:
            event["data"]["error"]["name"] = names[error["name"]]
        return event

    return lambda run: map_events(run, change)


def _neutral_invalid_input(run: Run) -> Run:
    def change(event: Event) -> Event:
        if event["type"] != "tool/result":
            return event
        unlossless = result_code(event) is None and result_text(event) == UNLOSSLESS_ARGUMENTS
        if result_code(event) not in INVALID_CODES and not unlossless:
            return event
        event = with_result_text(event, "Error: <invalid input>")
        event["data"]["error"] = {"name": "<invalid input>", "code": "<invalid input>"}
        return event

    return map_events(run, change)


def _as_javascript_reads(value: object) -> object:
    """`value` with each integer as JSON.parse reads it and JSON.stringify writes it back."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return as_javascript_round_trips(value)
    if isinstance(value, list):
        return [_as_javascript_reads(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_javascript_reads(item) for key, item in value.items()}
    return value


def _integers_as_doubles(run: Run) -> Run:
    """Each call's executed arguments with their integers past 2^53 as dsh's body gets them."""
    return [
        {**obs, "executed": [[call, _as_javascript_reads(args)] for call, args in obs["executed"]]}
        if obs["accepted"]
        else obs
        for obs in run
    ]


INVALID_CODES = frozenset({"INVALID_ARGS", "INVALID_TOOL_INPUT"})
# dsh's result, without a code, for arguments JSON.parse reads but that hold no lossless JSON
# value (-0.0, 1e400), which pass its argument validation and fail when the call would run.
UNLOSSLESS_ARGUMENTS = "Error: tool execution arguments must be losslessly JSON-serializable"
REPAIR_CODES = frozenset({"TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED"})


def _neutral_repair_text(run: Run) -> Run:
    def change(event: Event) -> Event:
        code = result_code(event) if event["type"] == "tool/result" else None
        return event if code not in REPAIR_CODES else with_result_text(event, f"<{code}>")

    return map_events(run, change)


def _gate_refusal_rule(pair: Pair) -> Pair:
    """Where the model refuses with MODEL-1 and dsh with EXE-4 or DEC-2, let dsh's say MODEL-1."""
    model, dsh = pair
    out: Run = []
    for index, obs in enumerate(dsh):
        want = model[index] if index < len(model) else None
        if (
            want is not None
            and not want["accepted"]
            and not obs["accepted"]
            and want["rule"] == "MODEL-1"
            and obs["rule"] in ("EXE-4", "DEC-2")
        ):
            out.append({**obs, "rule": "MODEL-1"})
            continue
        out.append(obs)
    return model, out


def _hook_reasons_joined(run: Run) -> Run:
    """dsh joins several hooks' deny or ask reasons with a blank line; the model with '; '."""

    def change(event: Event) -> Event:
        if event["type"] == "approval/asked":
            reason = event["data"].get("reason")
            if isinstance(reason, str) and "\n\n" in reason:
                return {**event, "data": {**event["data"], "reason": reason.replace("\n\n", "; ")}}
            return event
        if event["type"] != "tool/result" or result_code(event) is not None:
            return event
        text = result_text(event)
        if not text.startswith("Error: ") or "\n\n" not in text:
            return event
        return with_result_text(event, text.replace("\n\n", "; "))

    return map_events(run, change)


def _post_block_reasons_joined(run: Run) -> Run:
    """A result several PostToolUse hooks blocked, one text block per reason in the model,
    as dsh writes it: one text block, the reasons joined with a blank line. Only such
    a result is an error of several text blocks (every other error is one, TEXT-1); the hook
    events that would name the call have lost their callId to `hook-audit-shape`."""

    def change(event: Event) -> Event:
        if event["type"] != "tool/result":
            return event
        block = event["data"]["message"]["content"][0]
        texts = [str(part.get("text", "")) for part in block["content"]]
        if not block.get("isError") or len(texts) < 2:
            return event
        event = copy.deepcopy(event)
        joined = [{"type": "text", "text": "\n\n".join(texts)}]
        event["data"]["message"]["content"][0]["content"] = joined
        return event

    return map_events(run, change)


def _call_key(event: Event) -> tuple[object, object, str]:
    """A tool/call's or tool/result's call, told apart from a later step's call of that id."""
    data = event["data"]
    call_id = data["callId"] if event["type"] == "tool/call" else result_call(event)
    return data.get("turn"), data.get("step"), call_id


def _finished_result_aborted(pair: Pair) -> Pair:
    """Where dsh says ABORTED for a call whose body the model saw succeed, take dsh's record."""
    model, dsh = pair
    aborted = {
        _call_key(e): e
        for e in events_of(dsh)
        if e["type"] == "tool/result" and result_code(e) == "ABORTED"
    }

    def change(event: Event) -> Event:
        if event["type"] != "tool/result" or result_code(event) is not None:
            return event
        return copy.deepcopy(aborted.get(_call_key(event), event))

    return map_events(model, change), dsh


def _invalid_call_aborted(pair: Pair) -> Pair:
    """Where dsh aborted before dispatch a call the model ended as invalid input: one word."""
    model, dsh = pair
    aborted = {
        _call_key(e)
        for e in events_of(dsh)
        if e["type"] == "tool/result" and result_code(e) == "ABORTED_BEFORE_DISPATCH"
    }
    invalid = {
        _call_key(e)
        for e in events_of(model)
        if e["type"] == "tool/result" and result_code(e) == "INVALID_TOOL_INPUT"
    }

    def change(event: Event) -> Event:
        if event["type"] != "tool/result" or _call_key(event) not in aborted & invalid:
            return event
        event = with_result_text(event, "Error: <not run>")
        event["data"]["error"] = {"name": "<not run>", "code": "<not run>"}
        return event

    return map_events(model, change), map_events(dsh, change)


def _unknown_tool_checked_first(pair: Pair) -> Pair:
    """Where dsh says UNKNOWN_TOOL and the model INVALID_TOOL_INPUT, word the model's as unknown."""
    model, dsh = pair
    unknown = {
        _call_key(e)
        for e in events_of(dsh)
        if e["type"] == "tool/result" and result_code(e) == "UNKNOWN_TOOL"
    }

    def change(event: Event) -> Event:
        if event["type"] != "tool/result" or _call_key(event) not in unknown:
            return event
        found = re.match(r"^Error: invalid input for tool (\S+):", result_text(event))
        if result_code(event) != "INVALID_TOOL_INPUT" or found is None:
            return event
        event = with_result_text(event, f"Error: unknown tool {found.group(1)}")
        event["data"]["error"] = {"name": "UnknownToolError", "code": "UNKNOWN_TOOL"}
        return event

    return map_events(model, change), dsh


def _repair_as_not_started(pair: Pair) -> Pair:
    """Where dsh repairs a call as never started, make the model's record say the same."""
    model, dsh = pair
    unstarted = {
        _call_key(e)
        for e in events_of(dsh)
        if e["type"] == "tool/result" and result_code(e) == "TOOL_NOT_STARTED"
    }

    def change(event: Event) -> Event | None:
        if event["type"] == "tool/call" and _call_key(event) in unstarted:
            return None
        if event["type"] == "tool/result" and _call_key(event) in unstarted:
            event = copy.deepcopy(event)
            event.pop("cites", None)
            event["data"]["error"] = {"name": "ToolNotStartedError", "code": "TOOL_NOT_STARTED"}
        return event

    return map_events(model, change), dsh


# Hard divergences send the two runs different ways. A symptom sees one command, the model's and
# dsh's observations of it, and both runs and the commands before it; where it shows, both runs
# are cut there (or at the reply that started the batch, when the model logs nothing of it
# before the symptom).


def _pre_hooks(obs: Obs) -> list[Event]:
    return [e for e in obs["events"] if is_hook_at(e, "PreToolUse")] if obs["accepted"] else []


def _model_hooks(events: list[Event]) -> Counter[str]:
    """PreToolUse hooks the model invoked, per call (its audit names the call)."""
    return Counter(
        str(e["data"].get("callId"))
        for e in events
        if e["type"] == "hook/invoked" and is_hook_at(e, "PreToolUse")
    )


def _gate_hooks(events: list[Event]) -> Counter[str]:
    """PreToolUse hooks dsh invoked, per call: those right after the call's tool/call."""
    counts: Counter[str] = Counter()
    current: str | None = None
    for event in events:
        if event["type"] == "tool/call":
            current = str(event["data"]["callId"])
        elif event["type"] in ("tool/result", "step/start", "step/end", "assistant/message"):
            current = None
        elif current is not None and event["type"] == "hook/invoked":
            counts[current] += is_hook_at(event, "PreToolUse")
    return counts


def _extra_hooked(want: Obs, got: Obs, earlier: Earlier) -> dict[str, bool]:
    """Calls of a committed reply dsh ran more PreToolUse hooks for than the model did, each
    with whether the model ended it as invalid input."""
    model = [*events_of(earlier.model), *(want["events"] if want["accepted"] else [])]
    target = [*events_of(earlier.target), *(got["events"] if got["accepted"] else [])]
    committed = {
        str(block["id"]): block.get("arguments")
        for e in model
        if e["type"] == "assistant/message"
        for block in e["data"]["message"]["content"]
        if block.get("type") == "tool-call"
    }
    invalid = {
        result_call(e)
        for e in model
        if e["type"] == "tool/result" and result_code(e) == "INVALID_TOOL_INPUT"
    }
    modelled = _model_hooks(model)
    return {
        call_id: call_id in invalid or not _is_object_text(committed[call_id])
        for call_id, count in _gate_hooks(target).items()
        if call_id in committed and count > modelled[call_id]
    }


def _hooks_for_invalid_input(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """dsh runs PreToolUse hooks for a call the model ends as invalid input (no hook)."""
    return any(_extra_hooked(want, got, earlier).values())


def _unanchored_matcher(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """dsh runs more PreToolUse hooks than the model for a call with valid input, as many as
    ran at its gate with a matcher that fits part of the tool's name but not all of it (the
    model full-matches). A hook whose matcher fits no part of the name is no such one. Its
    PostToolUse hooks match so too (`_post_matcher_unanchored`)."""
    if _post_matcher_unanchored(command, want, got, earlier):
        return True
    valid = [call for call, invalid in _extra_hooked(want, got, earlier).items() if not invalid]
    if not valid:
        return False
    model = [*events_of(earlier.model), *(want["events"] if want["accepted"] else [])]
    target = [*events_of(earlier.target), *(got["events"] if got["accepted"] else [])]
    names = {
        str(e["data"]["callId"]): str(e["data"]["name"]) for e in target if e["type"] == "tool/call"
    }
    modelled, matchers = _model_hooks(model), _gate_matchers(target)
    return all(
        sum(_fits_only_in_part(matcher, names.get(call, "")) for matcher in matchers[call])
        >= len(matchers[call]) - modelled[call]
        for call in valid
    )


def _post_matcher_unanchored(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """The adapter refuses a call's outcome whose PostToolUse verdicts are as many as the model
    runs hooks for it (HOOK-5: the bridge's count of the hooks it will run differs) where a
    PostToolUse matcher fits part of the call's tool name but not all of it."""
    refused = not got["accepted"] and got["rule"] == "HOOK-5"
    if not (command["kind"] == "ToolFinishes" and want["accepted"] and refused):
        return False
    names = {
        str(e["data"]["callId"]): str(e["data"]["name"])
        for e in events_of(earlier.model)
        if e["type"] == "tool/call"
    }
    name = names.get(str(command["callId"]), "")
    return any(
        hook.point == POST_TOOL_USE and _fits_only_in_part(hook.matcher, name)
        for hook in earlier.config.hooks
    )


def _gate_matchers(events: list[Event]) -> dict[str, list[str]]:
    """The matchers of the PreToolUse hooks dsh invoked at each call's gate (as `_gate_hooks`
    counts them)."""
    matchers: dict[str, list[str]] = {}
    current: str | None = None
    for event in events:
        invoked = event["type"] == "hook/invoked" and is_hook_at(event, "PreToolUse")
        if event["type"] == "tool/call":
            current = str(event["data"]["callId"])
        elif event["type"] in ("tool/result", "step/start", "step/end", "assistant/message"):
            current = None
        elif current is not None and invoked:
            matchers.setdefault(current, []).append(str(event["data"].get("matcher")))
    return matchers


def _fits_only_in_part(matcher: str, name: str) -> bool:
    """Whether a matcher, read as a regex, fits part of `name` and not all of it."""
    try:
        return re.search(matcher, name) is not None and re.fullmatch(matcher, name) is None
    except re.error:
        return False


def _reply_uncommitted(model: Run) -> bool:
    """The model's latest step has no assistant/message yet (its hooks have not all answered)."""
    kinds = [e["type"] for e in events_of(model)]
    steps = [i for i, kind in enumerate(kinds) if kind == "step/start"]
    return bool(steps) and "assistant/message" not in kinds[steps[-1] :]


def _hook_waits_at_gate(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """dsh refuses an answer for a later call's hook while an earlier call holds the gate."""
    refused = not got["accepted"] and got["rule"] == "MODEL-1"
    if not (command["kind"] == "HookAnswers" and want["accepted"] and refused):
        return False
    return _body_running(earlier.target) or _approval_pending(earlier.target)


def _body_running(run: Run) -> bool:
    """Whether a body started in `run` has no result yet."""
    started = {str(call_id) for obs in run if obs["accepted"] for call_id, _ in obs["executed"]}
    answered = {result_call(e) for e in events_of(run) if e["type"] == "tool/result"}
    return bool(started - answered)


def _approval_before_later_hooks(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """dsh takes an earlier call's approval while the model waits for a later call's hooks."""
    return (
        command["kind"] == "ApprovalAnswers"
        and not want["accepted"]
        and want["rule"] == "MODEL-1"
        and bool(got["accepted"])
        and _reply_uncommitted(earlier.model)
        and _approval_pending(earlier.target)
    )


def _approval_pending(run: Run) -> bool:
    """The current batch of `run` has an approval asked and not yet answered."""
    pending: set[str] = set()
    for event in events_of(run):
        if event["type"] == "assistant/message":
            pending.clear()
        elif event["type"] == "approval/asked":
            pending.add(str(event["data"].get("id")))
        elif event["type"] == "approval/decided":
            pending.discard(str(event["data"].get("id")))
    return bool(pending)


def _result_waits_for_later_approval(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """A body finished while a later call waits for its approval: the model commits the result,
    dsh appends nothing until the approval is answered."""
    if command["kind"] != "ToolFinishes" or not (want["accepted"] and got["accepted"]):
        return False
    commits = any(e["type"] == "tool/result" for e in want["events"])
    holds = not any(e["type"] == "tool/result" for e in got["events"])
    return commits and holds and _approval_pending(earlier.model)


def _hooks_answering(earlier: Earlier) -> bool:
    """Whether the model holds a reply back for its PreToolUse hooks: it took a ModelReplies
    and has logged no assistant/message, and ended no step, since."""
    holding = False
    for command, obs in zip(earlier.commands, earlier.model, strict=True):
        if not obs["accepted"]:
            continue
        types = {e["type"] for e in obs["events"]}
        if command["kind"] == "ModelReplies":
            holding = not types & {"assistant/message", "step/end"}
        elif types & {"assistant/message", "step/end"}:
            holding = False
    return holding


def _abort_keeps_reply(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """The model aborts a reply whose hooks had not all answered; dsh had logged it already."""
    if command["kind"] != "Abort" or not (want["accepted"] and got["accepted"]):
        return False
    if not _hooks_answering(earlier):
        return False
    types = [e["type"] for e in want["events"]]
    ends_uncalled = "turn/end" in types and "tool/result" not in types
    got_types = [e["type"] for e in got["events"]]
    return ends_uncalled and ("tool/result" in got_types or "turn/end" not in got_types)


def _repair_keeps_reply(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """The model repairs a reply it never committed (hooks pending); dsh had logged it."""
    if command["kind"] != "Recover" or not (want["accepted"] and got["accepted"]):
        return False
    if not _hooks_answering(earlier):
        return False
    types = [e["type"] for e in want["events"]]
    return "tool/result" not in types and bool(
        [e for e in got["events"] if e["type"] == "tool/result"]
    )


def _opens_turn(obs: Obs) -> bool:
    return bool(obs["accepted"]) and any(e["type"] == "turn/start" for e in obs["events"])


def _queued_input_dropped(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """After an aborted turn, dsh opens the next one without messages the model kept."""
    if command["kind"] != "SubmitUser" or not (_opens_turn(want) and _opens_turn(got)):
        return False
    if _last_turn_end(earlier.model) != "aborted":
        return False
    # PostToolUse contexts are compared as the model labels them (hook-context-label).
    wanted, seen = user_texts(want), _labelled_as_model(user_texts(got))
    if not wanted or not seen or wanted[-1] != seen[-1]:
        return False
    missing = Counter(wanted) - Counter(seen)
    extra = Counter(seen) - Counter(wanted)
    # A context the aborted turn deferred may come along (aborted-body-context-kept), in the
    # same first step as the input Agent.cancel dropped.
    return bool(missing) and all(plugin == "tool-context" for _, plugin in extra)


def _last_turn_end(run: Run) -> str | None:
    ends = [e["data"]["reason"]["kind"] for e in events_of(run) if e["type"] == "turn/end"]
    return ends[-1] if ends else None


def _labelled_as_model(messages: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """dsh's PostToolUse contexts relabelled as the model labels them (hook-context-label)."""
    return [
        (text, "tool-context" if plugin == "hooks-claude-code" else plugin)
        for text, plugin in messages
    ]


def _aborted_context_kept(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """After an aborted turn, the next turn opens with other tool contexts in dsh than in the
    model (the contexts of calls settled around the abort); every other message agrees."""
    if command["kind"] != "SubmitUser" or not (_opens_turn(want) and _opens_turn(got)):
        return False
    if _last_turn_end(earlier.model) != "aborted":
        return False
    wanted, seen = user_texts(want), _labelled_as_model(user_texts(got))
    if wanted == seen:
        return False

    def others(messages: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return [m for m in messages if m[1] != "tool-context"]

    return others(wanted) == others(seen) and _only_aborted_turn_contexts_differ(
        wanted, seen, earlier
    )


def _only_aborted_turn_contexts_differ(
    wanted: list[tuple[str, str]], seen: list[tuple[str, str]], earlier: Earlier
) -> bool:
    """Whether the tool contexts that differ are ones the aborted turn's calls deferred, none
    older (aborted-body-context-kept)."""
    opened = _last_taken(earlier, lambda sent, obs: _opens_turn(obs))
    settled = {
        text
        for sent in earlier.commands[opened + 1 :]
        if sent["kind"] == "ToolFinishes"
        for text in _deferred_texts(sent)
    }
    contexts = [m for m in wanted if m[1] == "tool-context"]
    delivered = [m for m in seen if m[1] == "tool-context"]
    differ = (Counter(contexts) - Counter(delivered)) + (Counter(delivered) - Counter(contexts))
    return all(text in settled for text, _ in differ)


def _queued_input_kept(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """Input the model lost at a crash (`_lost_at_a_crash`; the crash may have cut a turn, or
    come after a failed request parked the input, cutting none) reaches a later turn in dsh:
    a turn opens with other messages than the model's, or dsh opens one by itself with a
    message still in its inbox. dsh delivers only messages it was sent, in the order sent."""
    woke = _opens_turn(got) and not _opens_turn(want)
    reopened = command["kind"] == "SubmitUser" and _opens_turn(want) and _opens_turn(got)
    if not (woke or reopened) or not _lost_at_a_crash(earlier):
        return False
    if not _delivered_as_sent(command, got, earlier):
        return False
    return user_texts(want) != user_texts(got) if reopened else bool(user_texts(got))


def _deferred_texts(command: Json) -> list[str]:
    """The contexts a ToolFinishes defers for the next step: its body's and its PostToolUse
    hooks'."""
    outcome, post = command.get("outcome") or {}, command.get("post") or []
    hooks = [verdict.get("text") for verdict in post if verdict.get("decision") == "context"]
    return [str(text) for text in [*(outcome.get("contexts") or []), *hooks]]


def _lost_at_a_crash(earlier: Earlier) -> bool:
    """Whether the model lost input at a crash: a message sent while a turn was open, or a
    context a body or hook deferred, that it had not delivered when a Crash came."""
    pending: Counter[str] = Counter()
    for command, obs in zip(earlier.commands, earlier.model, strict=True):
        if not obs["accepted"]:
            continue
        if command["kind"] == "Crash" and +pending:
            return True
        delivered = [text for text, _ in user_texts(obs)]
        if command["kind"] == "SubmitUser":
            if not _opens_turn(obs):
                pending[str(command["text"])] += 1
            elif str(command["text"]) in delivered:
                delivered.remove(str(command["text"]))  # its own message, not a queued one
        elif command["kind"] == "ToolFinishes":
            pending.update(_deferred_texts(command))
        pending -= Counter(delivered)
    return False


def _delivered_as_sent(command: Json, got: Obs, earlier: Earlier) -> bool:
    """Whether every user message the target delivered, to this command, is one it was sent,
    in the order sent, none twice (dsh's inbox keeps what a crash interrupted, in order)."""
    commands, target = [*earlier.commands, command], [*earlier.target, got]
    sent = iter(
        str(c["text"])
        for c, obs in zip(commands, target, strict=True)
        if c["kind"] == "SubmitUser" and obs["accepted"]
    )
    delivered = (
        text
        for obs in target
        if obs["accepted"]
        for text, plugin in user_texts(obs)
        if plugin == "user"
    )
    return all(any(text == one for one in sent) for text in delivered)


def _continues_after_max_tokens(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """A reply cut off at max-tokens: the model ends the turn, dsh opens the next step with a
    message the user sent during the turn."""
    if command["kind"] != "ModelReplies" or command.get("finish") != "max-tokens":
        return False
    if not (want["accepted"] and got["accepted"]):
        return False
    ends = [e["data"]["reason"]["kind"] for e in want["events"] if e["type"] == "turn/end"]
    got_types = [e["type"] for e in got["events"]]
    if ends != ["max-tokens"] or "step/start" not in got_types or "turn/end" in got_types:
        return False
    opened = _last_taken(earlier, lambda command, obs: _opens_turn(obs))
    queued = _queued_after(earlier, opened)
    return any(plugin == "user" and text in queued for text, plugin in user_texts(got))


def _last_taken(earlier: Earlier, which: Callable[[Json, Obs], bool]) -> int:
    """The index of the last command the model took that `which` picks, or -1."""
    taken = [
        index
        for index, (command, obs) in enumerate(zip(earlier.commands, earlier.model, strict=True))
        if obs["accepted"] and which(command, obs)
    ]
    return taken[-1] if taken else -1


def _queued_after(earlier: Earlier, index: int) -> list[str]:
    """The texts of the messages the model queued (took without opening a turn) after the
    command at `index`."""
    return [
        str(command["text"])
        for command, obs in zip(
            earlier.commands[index + 1 :], earlier.model[index + 1 :], strict=True
        )
        if command["kind"] == "SubmitUser" and obs["accepted"] and not _opens_turn(obs)
    ]


def _last_reply_calls(run: Run) -> list[Json]:
    """The tool-call blocks of the latest reply in `run`."""
    replies = [e for e in events_of(run) if e["type"] == "assistant/message"]
    if not replies:
        return []
    content = replies[-1]["data"]["message"]["content"]
    return [block for block in content if block.get("type") == "tool-call"]


def _is_object_text(arguments: object) -> bool:
    try:
        return isinstance(arguments, str) and isinstance(json.loads(arguments), dict)
    except (ValueError, RecursionError):  # nested deeper than the stack: no object read
        return False


def _settled_call_holds_its_place(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """dsh holds a later call back behind a call the model settled without running it: the
    model finishes the later call while dsh refuses to, a crash finds it unstarted in dsh, or
    an abort ends it unstarted in dsh while its body runs in the model."""
    # With this command's own: the model settles an invalid call when it reaches the gate,
    # which may be this command (a finished body lets the next call through).
    model = [*earlier.model, want]
    ran = {call_id for obs in model if obs["accepted"] for call_id, _ in obs["executed"]}
    if command["kind"] == "ToolFinishes" and want["accepted"] and not got["accepted"]:
        held = {str(command["callId"])}
    elif command["kind"] == "Recover" and got["accepted"]:
        held = set(results_with_code(got, "TOOL_NOT_STARTED")) & ran
    elif got["accepted"]:
        # After an abort dsh never starts a held call (ABORTED_BEFORE_DISPATCH) where the
        # model's body runs and drains: a crash then repairs it in the model alone.
        held = set(results_with_code(got, "ABORTED_BEFORE_DISPATCH")) & ran
    else:
        return False
    calls = _last_reply_calls(model)
    ids = [block["id"] for block in calls]
    # Settled without running as dsh would still schedule it: its input, or its tool, is no
    # valid one (a call a hook denied, or an approval rejected, holds no place in dsh). Its
    # input is read from the reply and the configuration: the model logs its result only in
    # model order (SCHED-2), after the running calls before it, so not yet when a later call
    # is held.
    settled = {
        result_call(e)
        for e in events_of(model)
        if e["type"] == "tool/result" and result_code(e) in _SETTLED_UNRUN
    }
    return any(
        _invalid_input(block, earlier.config) or block["id"] in settled
        for call_id in held
        if call_id in ids
        for block in calls[: ids.index(call_id)]
    )


def _invalid_input(block: Json, config: LoopConfig) -> bool:
    """Whether a reply's tool-call block (as logged) is one the model ends for its input:
    arguments no JSON object to dsh either, or missing a required key (EXE-2)."""
    arguments = block.get("arguments")
    if not _is_object_text(arguments):
        return True
    call = ToolCallBlock(str(block["id"]), str(block["name"]), str(arguments))
    return input_problem(call, config) is not None


_SETTLED_UNRUN = frozenset({"INVALID_TOOL_INPUT", "UNKNOWN_TOOL"})


def _blank_arguments_invalid(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """dsh ends as invalid input a call whose arguments are blank but not empty, whose body the
    model starts with `{}` by the same command."""
    if not got["accepted"]:
        return False
    replies = [c for c in (*earlier.commands, command) if c["kind"] == "ModelReplies"]
    blocks = replies[-1]["blocks"] if replies else []
    blank = {
        block["id"]
        for block in blocks
        if block.get("type") == "tool-call" and blank_but_not_empty(block.get("arguments"))
    }
    ran = {
        call_id
        for obs in (*earlier.model, want)
        if obs["accepted"]
        for call_id, _ in obs["executed"]
    }
    return any(
        e["type"] == "tool/result"
        and result_code(e) in INVALID_CODES
        and result_call(e) in blank & ran
        for e in got["events"]
    )


def _sends_blank_arguments_to_run(command: Command, config: LoopConfig) -> bool:
    """A reply with a call whose blank but not empty arguments the model runs its tool with
    (a registered tool without required keys): `_blank_arguments_invalid` cuts the program there."""
    return isinstance(command, ModelReplies) and any(
        blank_but_not_empty(call.arguments)
        and config.tool(call.name) is not None
        and input_problem(call, config) is None
        for call in command.tool_calls
    )


def _turn_after_abort(obs: Obs) -> bool:
    types = [e["type"] for e in obs["events"]] if obs["accepted"] else []
    ends = [
        i
        for i, e in enumerate(obs["events"] if obs["accepted"] else [])
        if e["type"] == "turn/end" and e["data"]["reason"]["kind"] == "aborted"
    ]
    return bool(ends) and "turn/start" in types[ends[0] :]


def _starts_turn_after_abort(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """An aborted turn ends, and dsh opens a new one by itself with a message the user sent
    while the turn drained; the model parks that message."""
    if not (_turn_after_abort(got) and not _turn_after_abort(want) and want["accepted"]):
        return False
    aborted = _last_taken(earlier, lambda command, obs: command["kind"] == "Abort")
    sent = _queued_after(earlier, aborted) if aborted >= 0 else []
    return any(plugin == "user" and text in sent for text, plugin in user_texts(got))


def _disposed_abort_input_waits(command: Json, want: Obs, got: Obs, earlier: Earlier) -> bool:
    """After a turn aborted as `disposed`, the SubmitUser that opens the next turn opens it in
    dsh with only the messages sent while the aborted turn drained, its own left waiting; the
    model delivers both. Tool contexts may differ as aborted-body-context-kept says."""
    if command["kind"] != "SubmitUser" or not (_opens_turn(want) and _opens_turn(got)):
        return False
    aborted = _last_taken(earlier, lambda sent, obs: sent["kind"] == "Abort")
    if aborted < 0 or earlier.commands[aborted].get("cause") != "disposed":
        return False
    if _last_turn_end(earlier.model) != "aborted":
        return False
    sent = _queued_after(earlier, aborted)
    wanted, seen = user_texts(want), _labelled_as_model(user_texts(got))

    def typed(messages: list[tuple[str, str]]) -> list[str]:
        return [text for text, plugin in messages if plugin == "user"]

    return (
        bool(sent)
        and typed(wanted) == [*sent, str(command["text"])]
        and typed(seen) == sent
        and _only_aborted_turn_contexts_differ(wanted, seen, earlier)
    )


# Applied in this order: the cuts first, then the per-event erasers, the flattening last.
DIVERGENCES: tuple[KnownDivergence, ...] = (
    KnownDivergence(
        "duplicate-call-ids",
        ("EXE-1", "ORD-2"),
        "dsh accepts a reply whose tool calls repeat an id and runs both calls under that id "
        "(two tool/call events for one callId); the model refuses the reply (EXE-1).",
        symptom=accepts_duplicate_ids,
        # Its own log breaks EXE-1 at that reply (check names it, and holds each call under the
        # shared id to the other rules without blaming the id again).
        tolerates=(f"EXE-1:{REPEATED_CALL_ID}",),
    ),
    KnownDivergence(
        "hooks-for-invalid-input",
        ("EXE-2", "HOOK-4"),
        "A call whose arguments miss a required key still goes through tools/pre-execute: "
        "PreToolUse hooks run for it, and the body wrapper rejects it only afterwards; the "
        "model ends it INVALID_TOOL_INPUT at once, with no hook.",
        symptom=_hooks_for_invalid_input,
        cut_at_reply=True,
    ),
    KnownDivergence(
        "pre-hook-matcher-unanchored",
        ("HOOK-8",),
        "The Claude Code bridge matches a hook's matcher as an unanchored regex (it passes "
        "mode 'claude-code' to dsh-hook-protocol's matchesMatcher, so the literal form is "
        "never used): matcher 'read' also fires for tool 'read_more'. The model full-matches.",
        symptom=_unanchored_matcher,
        cut_at_reply=True,
    ),
    KnownDivergence(
        "later-pre-hooks-wait-at-gate",
        ("RW-3",),
        "PreToolUse hooks run at each call's gate, one call at a time: a call's hooks run only "
        "once the previous call has passed the gate, that is after an exclusive body finished "
        "or a pending approval was answered. HookAnswers for a later call, which the model "
        "takes before any body runs or any approval is asked, is refused meanwhile.",
        symptom=_hook_waits_at_gate,
        cut_at_reply=True,
    ),
    KnownDivergence(
        "approval-asked-before-later-hooks",
        ("RW-3", "MODEL-1"),
        "The same gate-by-gate schedule seen from the approval side: a call whose PreToolUse "
        "hook asks waits at its gate for the answer while a later call's hooks have not run. "
        "The model asks nothing until every hook of the reply has answered and refuses "
        "ApprovalAnswers meanwhile (MODEL-1); dsh takes it.",
        symptom=_approval_before_later_hooks,
        cut_at_reply=True,
    ),
    KnownDivergence(
        "result-waits-for-later-approval",
        ("SCHED-2",),
        "The same gate-by-gate schedule seen from a running call: while a later call waits at "
        "its gate for an approval answer, a call that started before it and has finished is not "
        "committed (its PostToolUse hooks and result come only after the answer). The model "
        "commits it when its body finishes, in model order (SCHED-2).",
        symptom=_result_waits_for_later_approval,
    ),
    KnownDivergence(
        "settled-call-holds-its-place",
        ("SCHED-1",),
        "A call the model settles without running it (input not a JSON object or missing a "
        "required key) still takes its turn in dsh's schedule, whatever its tool: the calls "
        "after it wait until the calls before it have finished. The model ends it at once and "
        "runs the later concurrency-safe calls meanwhile; finishing one of those is refused by "
        "dsh (after an abort dsh never runs it; after a crash dsh repairs it as not started).",
        symptom=_settled_call_holds_its_place,
        cut_at_reply=True,
    ),
    KnownDivergence(
        "whitespace-arguments-invalid",
        ("EXE-2",),
        "dsh reads only empty arguments as {} and parses any other text with JSON.parse, so "
        "arguments of only whitespace (' ', '\\n') are no JSON to it and stay the raw string: "
        "the call ends INVALID_ARGS ('\"arguments\" must be an object') without running. The "
        "model reads blank text as {} (EXE-2) and runs the body of a tool without required keys.",
        symptom=_blank_arguments_invalid,
        cut_at_reply=True,
        avoid=_sends_blank_arguments_to_run,
    ),
    KnownDivergence(
        "abort-during-pre-hook-keeps-reply",
        ("ABORT-2", "RW-3"),
        "An abort before every PreToolUse hook of a reply has answered: dsh has already "
        "committed the whole reply and the tool/call of each call that started (calls without "
        "hooks may be running); a killed hook is audited 'pass' and its call gets "
        "ABORTED_BEFORE_DISPATCH. The model (Rewriting phase) keeps only the reply's text as "
        "assistant/message {interrupted}, and no call ever exists.",
        symptom=_abort_keeps_reply,
        cut_at_reply=True,
    ),
    KnownDivergence(
        "crash-during-pre-hook-keeps-reply",
        ("REC-1", "RW-3"),
        "A crash before every PreToolUse hook of a reply has answered: dsh has already "
        "committed the reply and the tool/call of each call that started, so its repair closes "
        "them (TOOL_OUTCOME_UNKNOWN). The model never committed the reply; its repair closes "
        "only the step and the turn.",
        symptom=_repair_keeps_reply,
        cut_at_reply=True,
    ),
    KnownDivergence(
        "abort-drops-queued-input",
        ("ADJ-4",),
        "Agent.cancel clears the inbox: a message the user sent, or a context a finished body "
        "deferred, during the aborted turn is lost. The model parks it for the next turn's "
        "first step.",
        symptom=_queued_input_dropped,
    ),
    KnownDivergence(
        "aborted-body-context-kept",
        ("ABORT-1", "ADJ-4"),
        "A body that succeeds after an abort is reported ABORTED in both, but dsh keeps the "
        "context it deferred and delivers it at the start of the next turn; the model drops it "
        "with the success. The contexts of calls settled around the abort (deferred and "
        "PostToolUse) reach the next turn differently in dsh and in the model.",
        symptom=_aborted_context_kept,
    ),
    KnownDivergence(
        "max-tokens-continues-with-queued-input",
        ("STEP-4", "ADJ-4"),
        "A reply cut off at max-tokens while a user message is queued does not end dsh's turn: "
        "dsh opens the next step with the queued message. The model ends the turn max-tokens "
        "and parks the message for the next turn.",
        symptom=_continues_after_max_tokens,
    ),
    KnownDivergence(
        "queued-input-survives-crash",
        ("ADJ-4", "REC-1"),
        "A message the user sent, or a context a body deferred, during a turn that then "
        "crashed, or one a failed request parked for the next turn before a crash, is not "
        "lost: dsh logs it (agent/inbox/spliced) and, after repair, delivers it "
        "when the next turn opens. A queued message may open that turn itself, the new one "
        "then waiting for the turn after, and so on: every later turn can open one message "
        "behind, and a message left in the inbox opens a turn by itself when one ends. The "
        "model holds queued messages in memory, so a crash loses them.",
        symptom=_queued_input_kept,
    ),
    KnownDivergence(
        "submit-while-aborting-starts-turn",
        ("ADJ-4",),
        "A message sent while an aborted turn drains is queued for a new turn with a wake-up: "
        "dsh opens that turn by itself the moment the aborted one ends. The model parks the "
        "message until the next SubmitUser opens a turn.",
        symptom=_starts_turn_after_abort,
    ),
    KnownDivergence(
        "disposed-abort-input-waits",
        ("ADJ-4",),
        "After an abort whose cause is 'disposed', a message sent while the aborted turn "
        "drained gets no wake-up (dsh-agent-loop requests one for every other cause): it waits "
        "in the inbox, and the next SubmitUser opens a turn with it while that SubmitUser's own "
        "message waits for the turn to end and then opens one by itself. The model opens the "
        "next turn with both, the parked message first.",
        symptom=_disposed_abort_input_waits,
    ),
    KnownDivergence(
        "repair-unstarted-call",
        ("REC-1",),
        "A call that had not started at the crash (an exclusive call queued behind a running "
        "one) has no tool/call in dsh's log, so dsh's repair says TOOL_NOT_STARTED; the model "
        "recorded every call with the reply and says TOOL_OUTCOME_UNKNOWN.",
        erase_pair=_repair_as_not_started,
    ),
    KnownDivergence(
        "per-event-commits",
        ("LOG-8",),
        "dsh appends, publishes and persists (write-behind JSONL) one event at a time: a crash "
        "can cut between any two events, so every event is its own commit. The model commits "
        "each command's events together (a reply and its tool/calls in one commit). dsh also "
        "gives its readers each event before the event is on disk, writing in batches up to "
        "writeBatchMaxDelayMs later (default 200 ms; the adapter sets 5 and flushes before a "
        "Crash, so conform never sees it): a process killed in that window loses events its "
        "readers saw (killed 40 ms after its last event, with 5: 20 events given, 7 on disk), "
        "which LOG-8 forbids. check cannot see it: the lost events are gone.",
        erase_pair=both(drop_commits),
    ),
    KnownDivergence(
        "call-recorded-at-start",
        ("LOG-8", "RW-3"),
        "dsh appends a call's tool/call when the call starts (SPEC 8, first bullet), not with "
        "the reply: an exclusive call's after the previous result, an unstarted call's (after "
        "an abort) right before its ABORTED_BEFORE_DISPATCH result. Order and content agree.",
        erase_pair=both(_move_calls),
    ),
    KnownDivergence(
        "empty-tool-context-delivered",
        ("ADJ-4",),
        "A tool body's empty deferred context ('') reaches the next step as an empty "
        "user/message in dsh (a provider refuses an empty text block); the model queues "
        "nothing for it, as dsh itself does for a PostToolUse hook's empty additionalContext.",
        erase_pair=_without_empty_tool_contexts,
    ),
    KnownDivergence(
        "interrupted-blank-is-javascript-trim",
        ("ABORT-2",),
        "A cancelled reply's text and reasoning blocks are blank to dsh as JavaScript's trim "
        "reads them (dsh-llm's interruptedBlocks): dsh drops a block of U+FEFF, which the "
        "model keeps (blank is Python's str.strip, EXE-2), and keeps a block of U+0085 or "
        "U+001C..U+001F, which the model drops, writing assistant/message {interrupted} where "
        "the model writes none.",
        erase_pair=both(_without_blank_interrupted_blocks),
    ),
    KnownDivergence(
        "runtime-context-snapshot",
        ("ADJ-4",),
        "With the approval service loaded (needed for ask), dsh appends its runtime-context "
        "snapshot ('Approval policy: ask ...') as a user/message from "
        "@deepseek-ai/dsh-system-prompt after the first step's messages.",
        erase_pair=both(_without_runtime_context),
    ),
    KnownDivergence(
        "post-contexts-one-message",
        ("ADJ-4",),
        "The contexts of one call's several PostToolUse hooks reach the next step as one "
        "user/message with a text block each; the model queues one message per context. "
        "Same place, same texts, same order.",
        erase_pair=both(_one_message_per_hook_context),
    ),
    KnownDivergence(
        "hook-context-label",
        (),
        "A PostToolUse context reaches the next step as a user/message labelled "
        "plugin 'hooks-claude-code'; the model labels every tool context 'tool-context'. "
        "Same place, same text: only the label differs.",
        erase_pair=both(_hook_context_as_tool_context),
    ),
    KnownDivergence(
        "post-hooks-for-unrun-calls",
        ("HOOK-5",),
        "dsh runs tools/post-execute, hence PostToolUse hooks, for calls whose body never ran "
        "(denied, rejected, aborted before dispatch) (SPEC 8, third bullet).",
        erase_pair=both(_drop_unrun_post_hooks),
        # Its own log breaks HOOK-5 there (check ties such a hook, which names no call, to the
        # one call then awaiting a result): the eraser judges the hooks instead.
        tolerates=(f"HOOK-5:{UNRUN_CALL_POST_HOOK}",),
    ),
    KnownDivergence(
        "hook-audit-shape",
        ("HOOK-1", "HOOK-4", "RW-2"),
        "The bridge's hook events carry no callId (SPEC 8, fourth bullet); handlerId is "
        "'claude-code:<point>:<n>', a new one per invocation, not the configured id; "
        "hook/result always has exitCode, has stderrSummary only from real stderr, durationMs "
        "is measured; a context-only PostToolUse answer is recorded 'pass'.",
        erase_pair=both(lambda run: map_events(run, _hook_core)),
    ),
    KnownDivergence(
        "approval-request-shape",
        ("RW-4",),
        "approval/asked carries no arguments (the model's carries the effective arguments "
        "the user approves, RW-4) and approval ids are UUIDs.",
        erase_pair=both(_approval_core),
    ),
    KnownDivergence(
        "approval-denial-wording",
        ("DEC-2",),
        "The error results of non-granted approvals are worded differently (quoted tool "
        "name; 'approval for tool ... was cancelled'; 'requires approval, but').",
        erase_pair=both(
            _reworded(
                (
                    (
                        r'^Error: the user rejected tool "(.+)"$',
                        r"Error: the user rejected tool \1",
                    ),
                    (
                        r'^Error: approval for tool "(.+)" was cancelled$',
                        r"Error: the approval request for tool \1 was cancelled",
                    ),
                    (
                        r'^Error: tool "(.+)" requires approval, but no approval channel is '
                        r"available$",
                        r"Error: tool \1 needs approval but no approval channel is available",
                    ),
                ),
                {},
            )
        ),
    ),
    KnownDivergence(
        "refusal-at-gate",
        ("MODEL-1", "EXE-4", "DEC-2"),
        "ToolFinishes or ApprovalAnswers while a reply's PreToolUse hooks have not all "
        "answered: the model is in its rewrite phase and refuses them with MODEL-1; in dsh the "
        "calls are recorded and wait at their gates, and the adapter refuses with EXE-4 (no "
        "such running call) or DEC-2 (no pending approval).",
        erase_pair=_gate_refusal_rule,
    ),
    KnownDivergence(
        "hook-reasons-joined",
        ("DEC-1", "DEC-2"),
        "When several PreToolUse hooks deny a call, or ask about it, dsh joins their reasons "
        "with a blank line (in the error result, in approval/asked); the model joins them "
        "with '; '.",
        erase_pair=lambda pair: (pair[0], _hook_reasons_joined(pair[1])),
    ),
    KnownDivergence(
        "post-block-reasons-joined",
        ("TEXT-1",),
        "When several PostToolUse hooks block a result, dsh's result is one text block, their "
        "reasons joined with a blank line; the model's is one text block per reason. The "
        "block replaces the result in both (DEC-3).",
        erase_pair=both(_post_block_reasons_joined),
    ),
    KnownDivergence(
        "denied-without-reason-wording",
        ("DEC-1",),
        "A call denied by PreToolUse hooks none of which gave a reason gets the result "
        "'Error: blocked by PreToolUse hook' in dsh (its documented default); the model's "
        "says 'Error: denied'.",
        erase_pair=both(
            _reworded(((r"^Error: blocked by PreToolUse hook$", "Error: denied"),), {})
        ),
    ),
    KnownDivergence(
        "empty-failure-message-wording",
        ("TEXT-2",),
        "A failed model request whose error has an empty message ends its turn with the error "
        "{message: 'LLM adapter failed', code: 'UNKNOWN'} in dsh (dsh-llm's default for an "
        "adapter failure without a message), and one whose error has a message but an empty code "
        "with the code 'UNKNOWN' (dsh-llm's LlmError takes no empty code); the model's carries the "
        "message and code as given.",
        erase_pair=both(_empty_failure_as_dsh_words_it),
    ),
    KnownDivergence(
        "finished-result-aborted",
        ("ABORT-1",),
        "A body that succeeded before the abort, while its result still waited for an earlier "
        "call's, is reported ABORTED by dsh: the finished result is dropped. The model commits "
        "the result the body returned.",
        erase_pair=_finished_result_aborted,
    ),
    KnownDivergence(
        "invalid-call-aborted-before-dispatch",
        ("EXE-5",),
        "An abort while a call with invalid input waits for its turn in dsh's schedule "
        "(settled-call-holds-its-place) ends it ABORTED_BEFORE_DISPATCH; the model had "
        "already ended it INVALID_TOOL_INPUT.",
        erase_pair=_invalid_call_aborted,
    ),
    KnownDivergence(
        "unknown-tool-checked-first",
        ("EXE-5",),
        "A call to an unknown tool whose arguments are not a JSON object fails as an unknown "
        "tool in dsh (it looks the tool up first); the model fails it as invalid input.",
        erase_pair=_unknown_tool_checked_first,
    ),
    KnownDivergence(
        "unknown-tool-wording",
        (),
        "An unknown tool's error result says 'unknown tool \"x\"' with error name "
        "ToolNotFoundError; the model says 'unknown tool x', UnknownToolError. Same code.",
        erase_pair=both(
            _reworded(
                ((r'^Error: unknown tool "(.+)"$', r"Error: unknown tool \1"),),
                {"ToolNotFoundError": "UnknownToolError"},
            )
        ),
    ),
    KnownDivergence(
        "integers-read-as-doubles",
        ("EXE-3",),
        "A call's arguments reach its body as JSON.parse reads them: an integer past 2^53 "
        "becomes the nearest double (98765432109876543210 runs as 98765432109876540000), while "
        "the tool/call records every digit. The model runs the body with the recorded value.",
        erase_pair=both(_integers_as_doubles),
    ),
    KnownDivergence(
        "invalid-input-error",
        ("EXE-2",),
        "Arguments that are not an object or miss a required key fail dsh's argument "
        "validation: ToolArgsError / INVALID_ARGS 'invalid arguments: ...' instead of the "
        "model's InvalidToolInputError / INVALID_TOOL_INPUT; arguments without a lossless JSON "
        "value (-0.0, 1e400), which the model keeps as their raw string, pass it and fail "
        "unrun with 'tool execution arguments must be losslessly JSON-serializable', no code.",
        erase_pair=both(_neutral_invalid_input),
    ),
    KnownDivergence(
        "repair-wording",
        ("REC-1",),
        "dsh's repair results say 'The tool call was interrupted ...' (no 'Error: ' prefix, "
        "other words); codes, error names, citations and order agree with the model's.",
        erase_pair=both(_neutral_repair_text),
    ),
    KnownDivergence(
        "pre-hooks-after-call",
        ("RW-3", "LOG-8"),
        "PreToolUse hooks run after the reply and the call's tool/call are committed, when "
        "the call reaches its gate (SPEC 8, first bullet), and an ask is raised there too; the "
        "model audits every hook before it commits the reply and asks when it dispatches. "
        "Each command's share of the events differs; the whole log agrees once each step's "
        "PreToolUse audit follows its reply and each approval/asked sits right before its "
        "approval/decided (or its call's result).",
        erase_pair=both(flatten_reply_first),
    ),
)


# What examples/dsh-adapter declares (its CAPABILITIES; tests/test_profile_scope.py holds the
# two lists equal): not `rewrite`, `result-meta` or `presentation`.
CAPABILITIES = frozenset(
    (
        "abort",
        "approval",
        "crash-repair",
        "history",
        "max-tokens",
        "parallel",
        "post-hooks",
        "pre-hooks",
        "queued-input",
    )
)

PROFILE = Profile(
    "dsh",
    "@deepseek-ai/dsh-agent-loop@0.1.0-rc.8 through examples/dsh-adapter",
    DIVERGENCES,
    CAPABILITIES,
)
