"""Hooks of calls whose input the readers disagree on (invalid, falsy, lossy, unregistered):
whether a target runs them, waits on them or commits the call as another reader would."""

from __future__ import annotations

from collections.abc import Sequence

from loopspec.model.commands import FINISH_COMPLETED, Command, HookAnswers, ModelReplies, Pass
from loopspec.model.config import PRE_TOOL_USE, LoopConfig
from loopspec.model.errors import InvalidEventError
from loopspec.model.json_text import spelled
from loopspec.model.messages import ToolCallBlock
from loopspec.model.rewrite import input_problem
from loopspec.properties.conformance.blame.history import hook_named
from loopspec.properties.conformance.blame.probes import logged, unregistered_probe_shows
from loopspec.properties.conformance.blame.readings import (
    LOSSY_JSON,
    blank_to_javascript_only,
    blank_to_python_only,
    falsy_json,
    falsy_read_as_empty,
    invalid_to_every_reader,
    object_holding_lone_surrogate,
    object_only_when_lossy,
    readers_replacing,
    takes_no_arguments,
)
from loopspec.properties.conformance.call_again import Probe, no_object_call_judged
from loopspec.properties.conformance.compare import is_call_block
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of, error_code


def invalid_call_hooked(
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


def unregistered_input_unjudged(
    invalid: tuple[str, str] | None,
    invoked: Event,
    reply: ModelReplies | None,
    events: Sequence[Event],
    *,
    config: LoopConfig | None,
    probe: Probe | None,
) -> str | None:
    """Why the target's hook/invoked `invoked` breaks EXE-5 (1), when it names a call of
    `reply` whose input the model finds invalid (`invalid`: `invalid_call_hooked`) of a tool
    that is not registered, whose arguments a reader may take for an object (lossy JSON, or
    blank to JavaScript's trim alone: EXE-2's readings), and a probe shows the target judges
    no input of such a tool, [] neither (`no_object_call_judged`; `events` what it logged).
    None otherwise."""
    call_id = data_of(invoked).get("callId")
    call = next((c for c in reply.tool_calls if c.id == call_id), None) if reply else None
    if invalid is None or not invalid[1] or call is None:
        return None
    if not (object_only_when_lossy(call.arguments) or blank_to_javascript_only(call.arguments)):
        return None
    words, name = invalid
    shown = no_object_call_judged(call.id, name, events, config=config, probe=probe)
    if shown not in ("unknown", "hooked"):
        return None
    return (
        f"the target runs {hook_named(invoked)} for {words}, though its tool {name} is not "
        "registered: EXE-5 (1) judges the input of every call, registered tool or not, and "
        "no PreToolUse hook runs for a call with invalid input; the target judges no input of "
        f"such a tool ({unregistered_probe_shows(shown, name)})"
    )


def falsy_call_hooked(
    invalid: tuple[str, str] | None,
    invoked: Event,
    reply: ModelReplies | None,
    events: Sequence[Event],
    *,
    config: LoopConfig | None,
    probe: Probe | None,
) -> str | None:
    """Why the target's hook/invoked `invoked` breaks EXE-2, when it names a call of `reply`
    whose input the model finds invalid (`invalid`: `invalid_call_hooked`) and whose arguments
    some reader replaces with {} (null, 0, []: `falsy_json`), and a probe shows the target
    judges a call of that tool with `1`, no object either, invalid without a hook: it read the
    value as no arguments, {}, where a loop running hooks for any input (HOOK-4) runs
    them for that call too. None otherwise (`events`: what the target logged)."""
    call_id = data_of(invoked).get("callId")
    call = next((c for c in reply.tool_calls if c.id == call_id), None) if reply else None
    if invalid is None or call is None or not falsy_json(call.arguments):
        return None
    judged = no_object_call_judged(
        call.id, call.name, logged(events, probe), config=config, probe=probe, arguments="1"
    )
    if judged != "invalid":
        return None
    return (
        f"the target runs {hook_named(invoked)} for call {call.id}: "
        + falsy_read_as_empty(call.arguments, "runs its hooks")
        + f"; a reply calling {call.name} with 1 after it, sent to tell, was answered "
        "INVALID_TOOL_INPUT without a hook"
    )


def lossy_call_hooked(invoked: Event | None, reply: ModelReplies | None) -> str | None:
    """The id of the call of `reply` the target's hook/invoked `invoked` names when its
    arguments are an object only to a reader taking NaN, 1e400 or -0.0 as numbers; else None."""
    call_id = data_of(invoked).get("callId")
    calls = () if reply is None else reply.tool_calls
    call = next((c for c in calls if c.id == call_id), None)
    return call.id if call is not None and object_only_when_lossy(call.arguments) else None


def hooks_follow_javascript(
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
    return (skipped is not None and blank_to_python_only(skipped.arguments)) or (
        hooked is not None
        and blank_to_javascript_only(hooked.arguments)
        and takes_no_arguments(config, hooked.name)
    )


def skipped_as_strict_parser(want: Event, program: Sequence[Command]) -> str | None:
    """The id of the call the model runs hook `want` for, when the latest reply's arguments for
    it hold a lone surrogate escape (a loop whose parser refuses one runs no hook for it)."""
    reply = next((sent for sent in reversed(program) if isinstance(sent, ModelReplies)), None)
    call_id = data_of(want).get("callId")
    call = next((c for c in reply.tool_calls if c.id == call_id), None) if reply else None
    return call.id if call and object_holding_lone_surrogate(call.arguments) else None


def _hooked_names(config: LoopConfig | None, names: Sequence[object]) -> list[bool]:
    """For each tool name, whether a PreToolUse hook of `config` matches it."""
    hooks = [] if config is None else [h for h in config.hooks if h.point == "PreToolUse"]
    return [isinstance(name, str) and any(h.matches(name) for h in hooks) for name in names]


def hooked_invalid_call(
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
    where a probe shows it (`hooks_whatever_the_input`; `events`, what the target logged); a
    HOOK-4 call whose arguments some reader replaces with {} (null, 0, []) is EXE-2's where a
    call of its tool with `1`, sent once the hooks pass, is answered invalid without a hook: the
    loop read the value as {}."""
    if config is None:
        return None
    content = data_of(reply).get("message", {}).get("content") or ()
    calls = [b for b in content if isinstance(b, dict) and is_call_block(b)]
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
        if problem is not None and object_only_when_lossy(call.arguments):
            # A reader taking -0.0 or 1e400 as numbers (jq, json.loads) finds an object.
            found.append((call.id, "EXE-2", f"call {call.id}'s arguments are {LOSSY_JSON}"))
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
        whatever = hooks_whatever_the_input(call_id, own, events, config, probe)
        if whatever is not None:
            return "HOOK-4", f"{whatever}, and {why}"
    block = next(b for b in calls if b.get("id") == call_id)
    if rule == "HOOK-4" and falsy_json(block.get("arguments")):
        name = str(block.get("name"))
        judged = no_object_call_judged(
            str(call_id), name, logged(events, probe), config=config, probe=probe, arguments="1"
        )
        if judged == "invalid":
            return "EXE-2", (
                f"call {call_id}'s arguments {spelled(block.get('arguments'))} are JSON whose "
                f"value is not an object (a call of {name} with 1, sent after it to tell, "
                "the target judged invalid without a hook: it reads such a value as no "
                f"arguments, {{}}, as {readers_replacing(block.get('arguments'))} does, where "
                "EXE-2 reads only blank arguments so)"
            )
    return rule, why


def tool_in_hand(call_id: object, reply: ModelReplies | None) -> str | None:
    """The tool of call `call_id` of the reply in hand, None when it makes no such call."""
    calls = reply.tool_calls if reply is not None else ()
    return next((call.name for call in calls if call.id == call_id), None)


def hooks_whatever_the_input(
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
        str(call_id), tool, logged(events, probe), config=config, probe=probe
    )
    if judged != "hooked":
        return None
    return (
        "the target runs PreToolUse hooks for a call whatever its input, where a call with "
        f"invalid input gets none (a reply calling {tool} with [] after it, no JSON object to "
        "any reader, sent to tell, had its hooks run)"
    )


def waits_as_javascript(config: LoopConfig | None, reply: Event) -> bool:
    """Whether a loop reading arguments with JavaScript's `trim` waits for hooks where the model
    commits `reply` now: one of its calls, whose arguments only JavaScript calls blank (invalid
    JSON to EXE-2, so the model runs no hook for it), has a PreToolUse hook matching it."""
    content = data_of(reply).get("message", {}).get("content") or ()
    calls = [b for b in content if isinstance(b, dict) and is_call_block(b)]
    hooked = _hooked_names(config, [b.get("name") for b in calls])
    return any(
        matched
        and blank_to_javascript_only(b.get("arguments"))
        and takes_no_arguments(config, b.get("name"))
        for b, matched in zip(calls, hooked, strict=True)
    )


def unregistered_hint(config: LoopConfig | None, reply: Event) -> str:
    """`; or ...` when a call of `reply` whose arguments only JavaScript calls blank names a
    tool that is not registered: a loop that lets hooks see such a call's non-object arguments
    (EXE-5 (1)) waits for its hooks too; else empty."""
    content = data_of(reply).get("message", {}).get("content") or ()
    unregistered = [
        b
        for b in content
        if isinstance(b, dict)
        and is_call_block(b)
        and blank_to_javascript_only(b.get("arguments"))
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


def commits_as_javascript(config: LoopConfig | None, command: ModelReplies) -> bool:
    """Whether a loop reading arguments with JavaScript's `trim` commits the reply at once where
    the model waits for hooks: every call a PreToolUse hook matches has arguments only Python
    calls blank (invalid JSON to JavaScript, so no hook runs for it). A call with other
    arguments that a hook matches keeps any loop waiting: the reply's early commit is then not
    the reading's (RW-3, ORD-1)."""
    waited_on = _waited_on(config, command)
    return bool(waited_on) and all(blank_to_python_only(call.arguments) for call in waited_on)


def unregistered_left_unhooked(
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
        if matched and (config is None or not invalid_to_every_reader(call, config))
    ]


def commits_as_strict_parser(config: LoopConfig | None, command: ModelReplies) -> str | None:
    """The id of a call a loop whose JSON parser refuses a lone surrogate escape finds not an
    object, where the model reads it as one and waits for the PreToolUse hooks matching it: the
    first such hooked call when every hooked call of the reply is one (so no hook runs in such a
    loop, which commits the reply at once); else None."""
    waited_on = _waited_on(config, command)
    if waited_on and all(object_holding_lone_surrogate(call.arguments) for call in waited_on):
        return waited_on[0].id
    return None


def refused_at_the_gate(call_id: str, target_events: Sequence[Event]) -> bool:
    """Whether the target answers call `call_id` INVALID_TOOL_INPUT among `target_events`."""
    return any(
        e.get("type") == "tool/result"
        and call_id_of(e) == call_id
        and error_code(e) == "INVALID_TOOL_INPUT"
        for e in target_events
    )
