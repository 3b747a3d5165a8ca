"""Probes that send a target a call again after a divergence, to tell two bugs apart.

Where one divergence fits two bugs, what the target does with a call of the probe's own tells
them apart: every call it left without a result settles first, then a reply makes the call
again and its hooks answer as the probe says (`call_sent_again`); `call_made_again` also lets
its body finish. The call to make again is read from the log by its id (the divergence's
command or observation names it), never from a report's words. Each probe says what the
target did, and blame/ which rule that makes broken: which hook's input it applies
(`winner_shown`, HOOK-3), whether an ask outranks (`last_ask_asked`,
`merge_without_the_askers_input`, HOOK-2), how it judges a call of no object
(`no_object_call_judged`, EXE-5 or HOOK-4), whether it trims a blank context
(`blank_context_trimmed`, ADJ-4 or DEC-3), fences a success (`never_fenced`, ACP-2 or
VIEW-2) and records, runs or drops a hook's input its tool takes (`supplied_input_fate`: RW-1,
RW-2 or HOOK-3, where one equal to the model's arguments or one refused showed too little).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import attrs

from loopspec.model.commands import (
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    SubmitUser,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, PRE_TOOL_USE, LoopConfig
from loopspec.model.jsonvalue import parse_arguments, thaw
from loopspec.model.messages import ToolCallBlock
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
from loopspec.properties.conformance.presented import PresentedDivergence
from loopspec.properties.conformance.target import Observation

Probe = Callable[[Command], Observation | None]
"""How conform sends the target one more command after a divergence (None if that fails)."""


def settling(record: Event, config: LoopConfig, events: Sequence[Event]) -> Command:
    """The command a probe settles the call of the tool/call `record` with, still without a
    result in `events`: its approval rejected where it waits for one, else a success, its
    PostToolUse hooks passing."""
    call_id = call_id_of(record) or ""
    if approval_asked_for(call_id, events):
        return ApprovalAnswers("rejected")
    name = str(data_of(record).get("name", ""))
    post = tuple(PostPass() for _hook in config.hooks_for(POST_TOOL_USE, name))
    return ToolFinishes(call_id, ToolSucceeded(""), post)


def pending_hooks_passed(probe: Probe) -> list[Event]:
    """What the target appends as each PreToolUse hook it waits on answers pass, until it takes
    no more hook answers (at most `_PENDING_HOOKS_PASSED`): its step goes on to its calls."""
    seen: list[Event] = []
    for _pending in range(_PENDING_HOOKS_PASSED):
        passed = probe(HookAnswers(Pass()))
        if passed is None or not passed.accepted:
            break
        seen += passed.events
    return seen


_PENDING_HOOKS_PASSED = 32


def call_sent_again(
    again: ToolCallBlock,
    verdicts: Sequence[PreVerdict],
    events: Sequence[Event],
    config: LoopConfig,
    probe: Probe,
) -> list[Event] | None:
    """What the target appends when every call recorded in `events` without a result settles
    (`settling`), then a reply makes the call `again` (opening a turn first where the target
    takes no reply: its turn ended) and its PreToolUse hooks answer `verdicts` in turn, after
    `events`. None when the target takes any of that otherwise."""
    observed = _observed_sending_again(again, verdicts, events, config, probe)
    return None if observed is None else [*events, *_events(observed)]


def _observed_sending_again(
    again: ToolCallBlock,
    verdicts: Sequence[PreVerdict],
    events: Sequence[Event],
    config: LoopConfig,
    probe: Probe,
) -> list[Observation] | None:
    """`call_sent_again`'s observations, one per command the target took."""
    seen, taken = [*events], []
    # Each call's latest record, in log order, and whether a result follows it: ids repeat
    # across steps, and an earlier step's result of the id answers another call.
    latest = {call_id_of(e): at for at, e in enumerate(seen) if e.get("type") == "tool/call"}
    for earlier, at in sorted(latest.items(), key=lambda record: record[1]):
        record = seen[at]
        if earlier is None or result_for(earlier, seen[at:]):
            continue
        settled = probe(settling(record, config, seen))
        if settled is None or not settled.accepted:
            return None
        seen += settled.events
        taken.append(settled)
    replied = probe(ModelReplies((again,)))
    if replied is not None and not replied.accepted:  # no reply awaited: the turn ended
        opened = probe(SubmitUser("probe"))
        if opened is None or not opened.accepted:
            return None
        taken.append(opened)
        replied = probe(ModelReplies((again,)))
    answered = (probe(HookAnswers(verdict)) for verdict in verdicts)  # each sent in turn
    for observed in itertools.chain([replied], answered):
        if observed is None or not observed.accepted:
            return None
        taken.append(observed)
    return taken


def _records_call(event: Event, call_id: str) -> bool:
    """Whether `event` is the tool/call record of call `call_id`."""
    return event.get("type") == "tool/call" and call_id_of(event) == call_id


def _events(observed: Sequence[Observation]) -> list[Event]:
    return [event for observation in observed for event in observation.events]


def no_object_call_judged(
    call_id: str | None,
    name: str,
    events: Sequence[Event],
    *,
    config: LoopConfig | None,
    probe: Probe | None,
    arguments: str = "[]",
) -> Literal["invalid", "unknown", "hooked"] | None:
    """How the target answers a call of tool `name` whose input no reader takes for an object:
    its pending PreToolUse hooks answer pass, then a reply calls `name` with `arguments`, `[]`
    unless given (`1` where a loop may read `[]` as no arguments, `json.loads(raw) or {}`;
    `call_sent_again`, `events` what the target logged). "invalid": its result is
    INVALID_TOOL_INPUT, as EXE-5 (1) says, registered tool or not; "unknown": UNKNOWN_TOOL (of
    a tool that is not registered: the target judges no input of such a tool); "hooked": a
    hook runs for it, which no call with invalid input gets. Without `config`, the reply alone
    is sent. None when none of these shows."""
    if probe is None:
        return None
    again = ToolCallBlock(f"{call_id}-probe", name, arguments)
    if config is None:  # nothing to settle calls with: the reply alone
        replied = probe(ModelReplies((again,)))
        seen = list(replied.events) if replied is not None else []
    else:
        before = [*events, *pending_hooks_passed(probe)]
        sent = call_sent_again(again, (), before, config, probe)
        # What the call made again brought alone: an earlier probe's call of the same id may
        # be among `events`.
        seen = [] if sent is None else sent[len(before) :]
        if sent is not None and not result_for(again.id, seen):  # it may wait on its hooks
            seen += pending_hooks_passed(probe)
    mine = [e for e in seen if call_id_of(e) == again.id]
    if any(str(e.get("type")).startswith("hook/") for e in mine):
        return "hooked"
    codes = {error_code(e) for e in mine}
    return (
        "unknown"
        if "UNKNOWN_TOOL" in codes
        else "invalid"
        if "INVALID_TOOL_INPUT" in codes
        else None
    )


def winner_shown(
    want: Event,
    suppliers: list[str],
    history: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> str | None:
    """Which of `suppliers` (the hooks that supplied equal inputs for `want`'s call) the target
    applies when they supply unequal ones: every call without a result settles (a success,
    its PostToolUse hooks passing; one awaiting approval rejected), then a reply makes the same
    call again and each hook answers as before, its input marked with its name. None when the
    target takes any of that otherwise, or applies no supplier's input."""
    call_id, name = call_id_of(want), data_of(want).get("name")
    applied = thaw(parse_arguments(str(data_of(want).get("arguments"))))
    if probe is None or config is None or not isinstance(name, str):
        return None
    if not isinstance(applied, dict):
        return None
    inputs = {hook: {**applied, "probe": hook} for hook in suppliers}
    verdicts = [
        Allow(inputs[hook.handler_id]) if hook.handler_id in inputs else Pass()
        for hook in config.hooks_for(PRE_TOOL_USE, name)
    ]
    again = ToolCallBlock(f"{call_id}-probe", name, json.dumps(applied))
    seen = call_sent_again(again, verdicts, history, config, probe)
    if seen is None:
        return None
    made = next(
        (e for e in seen if e.get("type") == "tool/call" and call_id_of(e) == again.id), None
    )
    ran = thaw(parse_arguments(str(data_of(made).get("arguments")))) if made is not None else None
    return next((hook for hook, value in inputs.items() if value == ran), None)


def last_ask_asked(
    asked: Event,
    config: LoopConfig | None,
    before: Sequence[Event],
    target_events: Sequence[Event],
    probe: Probe | None,
) -> bool:
    """Whether the target asks the user about the call of approval request `asked` made again,
    its hooks answering pass but the last, which asks (a merge letting the last answer win
    asks; a loop never asking does not): every call the target recorded without a result
    settles first (`settling`). False when it does not, or takes any of that otherwise.
    `before` is the history before this command, `target_events` what the target appended."""
    name, arguments = data_of(asked).get("toolName"), data_of(asked).get("arguments")
    if probe is None or config is None or not isinstance(name, str):
        return False
    hooks = config.hooks_for(PRE_TOOL_USE, name)
    if len(hooks) < 2:
        return False
    again = ToolCallBlock(f"{call_id_of(asked)}-probe", name, str(arguments))
    verdicts: list[PreVerdict] = [*(Pass() for _hook in hooks[:-1]), Ask()]
    seen = call_sent_again(again, verdicts, [*before, *target_events], config, probe)
    return seen is not None and approval_asked_for(again.id, seen)


def merge_without_the_askers_input(
    call_id: str | None,
    readings: Mapping[str, str],
    events: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> Literal["asked", "denied"] | None:
    """What the target does with call `call_id` made again (`call_sent_again`), its hooks
    answering as before but each asking one with no input: it asks the user about it (its merge
    lets an ask outrank a deny, HOOK-2) or denies it (the merge is right: a loop judging an
    asking hook's input beside a deny keeps a denied call's rewrite, HOOK-3). None when it
    shows neither, or cannot be probed. `readings`: what each hook's answer for the call read
    as (deny, ask, ...); `events`: the model's, this command's included, then the target's."""
    name, arguments = (data_of(call_record(call_id, events)).get(f) for f in ("name", "arguments"))
    if probe is None or config is None or not isinstance(name, str):
        return None
    words: dict[str | None, PreVerdict] = {"deny": Deny("probe"), "ask": Ask()}
    verdicts = [
        words.get(readings.get(hook.handler_id), Pass())
        for hook in config.hooks_for(PRE_TOOL_USE, name)
    ]
    again = ToolCallBlock(f"{call_id}-probe", name, str(arguments))
    seen = call_sent_again(again, verdicts, events, config, probe)
    if seen is None:
        return None
    if approval_asked_for(again.id, seen):
        return "asked"
    return "denied" if result_for(again.id, seen) else None


@attrs.frozen
class MadeAgain:
    """What the target did with a call made again (`call_made_again`)."""

    call: ToolCallBlock  # the call made again, its id the probe's own
    observed: tuple[Observation, ...]  # the target's observation of each command it took

    @property
    def events(self) -> list[Event]:
        return _events(self.observed)


def call_made_again(
    call_id: str,
    history: Sequence[Event],
    config: LoopConfig,
    probe: Probe,
    *,
    outcome: ToolOutcome,
    post: Sequence[PostVerdict] = (),
) -> MadeAgain | None:
    """Call `call_id` of `history` made again with its tool and arguments as its tool/call
    records them (`call_sent_again`), its PreToolUse hooks passing, then its body finishing
    with `outcome`, its PostToolUse hooks answering `post` (pass where it gives none). None
    when `history` records no such call, or the target takes any of that otherwise."""
    data = data_of(call_record(call_id, history))
    name, arguments = data.get("name"), data.get("arguments")
    if not isinstance(name, str) or not isinstance(arguments, str):
        return None
    again = ToolCallBlock(f"{call_id}-probe", name, arguments)
    passes = [Pass() for _hook in config.hooks_for(PRE_TOOL_USE, name)]
    observed = _observed_sending_again(again, passes, history, config, probe)
    if observed is None:
        return None
    hooks = config.hooks_for(POST_TOOL_USE, name)
    answers = (*post, *(PostPass() for _hook in hooks[len(post) :]))
    finished = probe(ToolFinishes(again.id, outcome, answers))
    if finished is None or not finished.accepted:
        return None
    return MadeAgain(again, (*observed, finished))


def blank_context_trimmed(
    want: Event,
    command: Command,
    history: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> bool:
    """Whether `want`, a context of only whitespace lost at the step/start `command` opened,
    is lost for its blankness, told by a probe: the call of `command`'s tool made again with
    the same arguments, its PreToolUse hooks passing, its first PostToolUse hook giving that
    context and none blocking. A loop that trims contexts (ADJ-4) loses it again; one that
    drops a blocked result's hook contexts (DEC-3) delivers it. False when it cannot be told."""
    if probe is None or config is None or not isinstance(command, ToolFinishes):
        return False
    text = message_text(want)
    if text is None or not whitespace_only(want):
        return False
    name = data_of(call_record(command.call_id, history)).get("name")
    if not isinstance(name, str) or not config.hooks_for(POST_TOOL_USE, name):
        return False
    made = call_made_again(
        command.call_id, history, config, probe, outcome=ToolSucceeded(""), post=[PostContext(text)]
    )
    seen = made.events if made is not None else []
    opened = [i for i, e in enumerate(seen) if e.get("type") == "step/start"]
    if not opened:
        return False
    return not any(
        e.get("type") == "user/message" and message_text(e) == text for e in seen[opened[-1] + 1 :]
    )


def never_fenced(
    found: PresentedDivergence,
    history: Sequence[Event],
    config: LoopConfig | None,
    probe: Probe | None,
) -> tuple[str, str] | None:
    """ACP-2, where a terminal call's result shown as its raw content, failed or shown before a
    crash (VIEW-2: a result view dropping the terminal for an error, a reopened loop forgetting
    its log's calls), is told by a probe from a loop fencing no output at all: the call made
    again, live, its hooks passing, its body succeeding. A successful result shown unfenced too
    is ACP-2's, as a success alone shows it. None when not so."""
    unfenced = found.unfenced_failure
    if unfenced is None or probe is None or config is None:
        return None
    made = call_made_again(unfenced.call_id, history, config, probe, outcome=ToolSucceeded("out"))
    if made is None:
        return None
    updates = [
        update
        for observation in made.observed
        for item in observation.presented or ()
        if isinstance(item, dict)
        and isinstance(update := (item.get("params") or {}).get("update"), dict)
        and update.get("sessionUpdate") == "tool_call_update"
        and update.get("toolCallId") == made.call.id
        and "content" in update
    ]
    if not updates or any("```console" in json.dumps(update) for update in updates):
        return None
    return "ACP-2", (
        f"{unfenced.named}: the update shows {unfenced.shown}, and the target "
        "shows a successful result of that tool raw too (the call made again, sent to tell, its "
        "body succeeding): a client without terminals gets a terminal call's output, whether "
        "its body succeeded or failed, as fenced console text (SPEC.md section 12)"
    )


InputFate = Literal["recorded", "run alone", "dropped"]
"""What a target does with an input a hook supplies (`supplied_input_fate`)."""


def supplied_input_fate(
    call_id: str | None,
    answers: Sequence[tuple[str, str, bool]],
    model_log: Sequence[Event],
    events: Sequence[Event],
    *,
    config: LoopConfig | None,
    probe: Probe | None,
) -> InputFate | None:
    """What the target does with an input its tool takes, unlike the model's arguments, that
    a hook supplies for call `call_id` of `model_log` made again (`inputs_sent_again`), each
    supplier's input the model's arguments with a key "probe" naming it. "recorded": the call's
    tool/call records the last supplier's input; "run alone": it records the model's arguments
    and a body runs that input (RW-1); "dropped": it records the model's arguments and no body
    runs the input. None when the target takes any of that otherwise, or shows none of these."""
    original = _original_arguments(call_id, model_log)
    suppliers = [hook for hook, _reading, supplied in answers if supplied]
    if original is None or not suppliers:
        return None
    inputs = {hook: {**original, "probe": hook} for hook in suppliers}
    shown = inputs_sent_again(
        call_id, answers, inputs, model_log, events, config=config, probe=probe
    )
    if shown is None:
        return None
    recorded, ran = shown
    last = inputs[suppliers[-1]]
    if recorded == last:
        return "recorded"
    if recorded != original:
        return None
    return "run alone" if last in ran else "dropped"


def _original_arguments(call_id: str | None, model_log: Sequence[Event]) -> dict[str, Any] | None:
    """The arguments the model gave call `call_id` of `model_log` (before any hook's input), a
    JSON object; None when they are none."""
    record = data_of(call_record(call_id, model_log))
    sidecar = record.get("rewrite")
    raw = sidecar.get("originalArguments") if isinstance(sidecar, dict) else record.get("arguments")
    original = thaw(parse_arguments(str(raw)))
    return original if isinstance(original, dict) else None


def inputs_sent_again(
    call_id: str | None,
    answers: Sequence[tuple[str, str, bool]],
    inputs: Mapping[str, object],
    model_log: Sequence[Event],
    events: Sequence[Event],
    *,
    config: LoopConfig | None,
    probe: Probe | None,
) -> tuple[object, list[object]] | None:
    """The arguments the target records for call `call_id` of `model_log` made again with the
    model's arguments (`call_sent_again` after `events`, what the target logged), and those
    each body it starts runs: its hooks answer as `answers` read (handler id, reading, whether
    it supplied an input), each supplier with its input in `inputs`, any answer but an ask or
    allow a pass; an approval asked is answered allowed-once. None when the target takes any
    of that otherwise, or records no such call."""
    name = data_of(call_record(call_id, model_log)).get("name")
    original = _original_arguments(call_id, model_log)
    if probe is None or config is None or not isinstance(name, str) or original is None:
        return None
    readings = {hook: reading for hook, reading, _supplied in answers}
    verdicts: list[PreVerdict] = []
    for hook in config.hooks_for(PRE_TOOL_USE, name):
        given = inputs.get(hook.handler_id)
        reading = readings.get(hook.handler_id)
        if reading == "ask":
            verdicts.append(Ask(updated_input=given))
        elif reading == "allow" or given is not None:
            verdicts.append(Allow(updated_input=given))
        else:
            verdicts.append(Pass())
    again = ToolCallBlock(f"{call_id}-probe", name, json.dumps(original))
    observed = _observed_sending_again(again, verdicts, events, config, probe)
    if observed is None:
        return None
    seen = [*events, *_events(observed)]
    if approval_asked_for(again.id, seen) and not result_for(again.id, seen):
        approved = probe(ApprovalAnswers("allowed-once"))
        if approved is None or not approved.accepted:
            return None
        observed.append(approved)
    made = next((e for e in _events(observed) if _records_call(e, again.id)), None)
    if made is None:
        return None
    ran = [
        thaw(parse_arguments(arguments))
        for observation in observed
        for started, arguments in observation.executed
        if started == again.id
    ]
    return thaw(parse_arguments(str(data_of(made).get("arguments")))), ran
