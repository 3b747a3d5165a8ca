"""User messages and queued input: where each came from, which kinds a target leaves out,
delivered twice or elsewhere, and the members of a message it drops (`source_rule`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from loopspec.model.commands import Command, SubmitUser, ToolFinishes
from loopspec.model.json_text import spelled
from loopspec.properties.conformance.blame.history import source_of
from loopspec.properties.conformance.compare import normalized_event, positional
from loopspec.properties.conformance.event_fields import Event, data_of, message_text
from loopspec.properties.conformance.unknown_members import without_unknown_members

MESSAGE_KINDS = frozenset({"user/message", "assistant/message", "tool/result"})


def _message_of(event: Event) -> dict[str, Any]:
    """The message an event of `MESSAGE_KINDS` carries: a user/message's data is the message
    itself, the others hold it as `data.message`."""
    data = data_of(event)
    if event.get("type") == "user/message":
        return data
    message = data.get("message")
    return message if isinstance(message, dict) else {}


def member_left_out(want: Event, got: Event) -> str | None:
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


def unknown_members(want: Event, got: Event) -> str | None:
    """Words on the members the target's event `got` holds that its type does not define
    (`without_unknown_members`), when they alone make it differ from the model's `want`; None
    otherwise."""
    stripped, found = without_unknown_members(want, got)
    if not found or positional(normalized_event(stripped)) != positional(normalized_event(want)):
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


def delivered_elsewhere(
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
        wanted = data_of(positional(normalized_event(message)))
        return any(
            event.get("type") == "user/message"
            and data_of(positional(normalized_event(event))) == wanted
            for event in events
        )

    return holds(history[starts[-1] if starts else 0 :], got) and holds(target_events, want)


def _without_source(event: Event) -> Event:
    data = dict(data_of(event))
    if event.get("type") == "user/message":
        data.pop("source", None)
    elif isinstance(data.get("message"), dict):
        data["message"] = {k: v for k, v in data["message"].items() if k != "source"}
    return {**event, "data": data}


def source_rule(want: Event, got: Event) -> tuple[str, str] | None:
    """TEXT-2 when two message events differ in the message's `source` and in nothing else: who
    a message is from is part of the contract (a reply names the configured provider and model,
    a tool result its call, a queued context the `tool-context` plugin). An event that also
    differs elsewhere is left to the rule that prescribes the rest."""
    mine, theirs = source_of(want), source_of(got)
    if mine == theirs or _without_source(want) != _without_source(got):
        return None
    return "TEXT-2", (
        f"{want.get('type')}'s source is {json.dumps(theirs)} where the model's is "
        f"{json.dumps(mine)}"
    )


def queued_by(message: Event, command: Command) -> str:
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


def delivered_twice(
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


def prompts_own(message: Event, command: Command, model_events: Sequence[Event]) -> bool:
    """Whether the user/message `message` is the prompt `command` sends, opening a turn: the
    last user/message the model appends for it, of the prompt's text and the user's source
    (messages parked before it come first)."""
    messages = [e for e in model_events if e.get("type") == "user/message"]
    return (
        isinstance(command, SubmitUser)
        and bool(messages)
        and messages[-1] == message
        and source_of(message) == {"kind": "user"}
        and message_text(message) == command.text
    )


WHITESPACE_CONTEXT = (
    "{lacks}: a context of only whitespace is not empty, so it is queued and delivered as "
    'given, untrimmed, after the next step/start (only "" is no context)'
)


TRIMMED_TOO = (
    "; a PostToolUse block drops the body's own contexts, never its hooks', and the target "
    "also loses this context given with no block (a call sent to tell, a hook giving it)"
)
