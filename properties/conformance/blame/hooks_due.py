"""Which hooks are due for a call and whether a target skipped one: matchers read as globs,
by case or in part, hooks due once per step (`skipped_hook_rule`, `outside_matcher`)."""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from collections.abc import Sequence

from loopspec.model.commands import Command, HookAnswers, ModelReplies, Pass
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.errors import InvalidEventError
from loopspec.model.json_text import spelled
from loopspec.model.messages import ToolCallBlock
from loopspec.model.rewrite import input_problem
from loopspec.properties.conformance.blame.history import (
    called_tool_name,
    hook_named,
    reply_in_hand,
)
from loopspec.properties.conformance.blame.readings import BLANK_TO_ONE_READER, blank_to_python_only
from loopspec.properties.conformance.call_again import Probe
from loopspec.properties.conformance.compare import is_call_block
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of


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


def skipped_hook_rule(
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
    if all(blank_to_python_only(c.arguments) for c, _hook in pairs):
        # Arguments a loop trimming otherwise finds no JSON in: no hook of its runs for them,
        # whatever the tool (it read as EXE-5 when the tool is not registered).
        return "EXE-2", (
            f"call {call.id}'s {BLANK_TO_ONE_READER} hook {hook.handler_id} runs for it"
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


def first_hook_due(config: LoopConfig | None, reply: ModelReplies) -> str:
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


def hook_still_due(
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
    reply = reply_in_hand(command, program)
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


def matcher_read_as_a_glob(
    config: LoopConfig | None,
    command: Command,
    program: Sequence[Command],
    events: Sequence[Event],
) -> tuple[str, str] | None:
    """The call and words on the PreToolUse hook the model still asks about the reply in hand
    (`hook_still_due`) where the target commits the reply, when that hook's matcher matches
    its call's tool as a regular expression but not as a glob (Tcl's `string match`, fnmatch:
    `.*` matches only names starting with a dot, `|` only itself) and the target ran it for no
    call of that tool before: it skipped the hook (HOOK-8), where a loop counting answers
    wrong runs it for other calls (HOOK-4). None otherwise."""
    if config is None or not isinstance(command, HookAnswers | ModelReplies):
        return None
    reply = reply_in_hand(command, program)
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


def outside_matcher(
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
    name = called_tool_name(call_id, command, history, program)
    if name is None:
        return None
    return None if spec.matches(name) else matcher


def partly_matching_hook(
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
    calls = [(b.get("id"), b.get("name")) for b in content if is_call_block(b)]
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


def hook_skipped_for_an_unregistered_tool(
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
    name = called_tool_name(skipped, command, history, program)
    later_name = called_tool_name(later, command, history, program)
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


def skipped_matching_hook(
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
    name = called_tool_name(call_id, command, history, program)
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
    reply = reply_in_hand(command, program)
    ids = [call.id for call in reply.tool_calls] if reply is not None else []
    return call_id in ids and other in ids and ids.index(other) > ids.index(call_id)


def fits_only_part(config: LoopConfig | None, got: Event) -> str | None:
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
