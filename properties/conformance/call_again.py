"""Probes that send a target a call again after a divergence, to tell two bugs apart.

Where one divergence fits two bugs, what the target does with a call of the probe's own tells
them apart: every call it left without a result settles first, then a reply makes the call
again and its hooks answer as the probe says (`call_sent_again`); `call_made_again` also lets
its body finish. The call to make again is read from the log by its id (the divergence's
command or observation names it), never from a report's words.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from typing import Literal

import attrs

from loopspec.model.commands import (
    ApprovalAnswers,
    Command,
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
    for earlier, record in {call_id_of(e): e for e in seen if e.get("type") == "tool/call"}.items():
        if earlier is None or result_for(earlier, seen):
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


def _events(observed: Sequence[Observation]) -> list[Event]:
    return [event for observation in observed for event in observation.events]


def no_object_call_judged(
    call_id: str | None,
    name: str,
    events: Sequence[Event],
    *,
    config: LoopConfig | None,
    probe: Probe | None,
) -> Literal["invalid", "unknown", "hooked"] | None:
    """How the target answers a call of tool `name` whose input no reader takes for an object:
    its pending PreToolUse hooks answer pass, then a reply calls `name` with `[]`
    (`call_sent_again`, `events` what the target logged). "invalid": its result is
    INVALID_TOOL_INPUT, as EXE-5 (1) says, registered tool or not; "unknown": UNKNOWN_TOOL (of
    a tool that is not registered: the target judges no input of such a tool); "hooked": a
    hook runs for it, which no call with invalid input gets. Without `config`, the reply alone
    is sent. None when none of these shows."""
    if probe is None:
        return None
    again = ToolCallBlock(f"{call_id}-probe", name, "[]")
    if config is None:  # nothing to settle calls with: the reply alone
        replied = probe(ModelReplies((again,)))
        seen = list(replied.events) if replied is not None else []
    else:
        passed = pending_hooks_passed(probe)
        seen = call_sent_again(again, (), [*events, *passed], config, probe) or []
        if seen and not result_for(again.id, seen):  # it may wait on the call's hooks
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
    """ACP-2, where a terminal call's failed result shown as its raw content (VIEW-2: a result
    view dropping the terminal for an error) is told by a probe from a loop fencing no output
    at all: the call made again, its hooks passing, its body succeeding. A successful result
    shown unfenced too is ACP-2's, as a success alone shows it. None when not so."""
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
        f"{unfenced.named}: the update shows the failed result's raw content, and the target "
        "shows a successful result of that tool raw too (the call made again, sent to tell, its "
        "body succeeding): a client without terminals gets a terminal call's output, whether "
        "its body succeeded or failed, as fenced console text (SPEC.md section 12)"
    )
