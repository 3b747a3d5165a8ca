"""Comparing what a target's UI presented with what the model presents (capability
"presentation"), and naming the rule a difference breaks.

A target with the capability reports, per command, the ACP messages its UI was sent for the
events the command appended (`Observation.presented`): a `tool_call` card at each `tool/call`,
a `tool_call_update` at each appended `tool/result`, a `session/request_permission` at each
`approval/asked`. The model's are `loopspec.model.replay.LogPresenter`'s, for a client that is
not terminal-capable, at session cwd `/workspace`. `sessionId` is free, and so is every `_meta`
key but the model's own terminal keys: ACP reserves `_meta` for extensions (a bridge's own
keys, as Zed's adds; one may carry a rewritten call's original input for provenance, which
clients must not interpret: what RW-1 and RW-4 hold to is what a message shows, its
`rawInput`, title and content).

Blame, most specific first: a payload that is not strictly valid ACP is ACP-1; the model's
messages sent in another order (an update before its card) PROTO-1, which says they come in log
order, and so is a message that is none of the three (a bridge's agent_message_chunk), which
PROTO-1 leaves out of `presented`, and a message left out of the command whose event it
presents (or held back for a later one), unless the model shows the generic fallback for the
call (VIEW-3: a bridge with no presenter for it still shows that); a card or a permission
request that shows a rewritten call's original input is RW-1 or RW-4 (the reader disagrees with
the audit record); a card or permission input that is the record's arguments parsed another way
(a JavaScript reader's `trim` and `JSON.parse`) EXE-2; another permission input is ACP-3,
another card input RW-1 (one left out VIEW-2); a terminal sent or left out, and the fenced
console text, ACP-2 (but the raw content of a result whose call was shown before a crash is
VIEW-2: the reopened loop forgot the call's card); titles that differ only in how they write
the card's path VIEW-4; a fallback the model takes (a generic card, the raw result content)
VIEW-3; any other difference in a card VIEW-2 (a view is a function of the call's arguments and
its durable result), its explanation naming what section 12 requires of what differs: a status,
the permission options, a field section 12 never writes, a diff, a fence, a result's title,
a read's offset or limit wider than 32 bits shown as another number.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import attrs

from loopspec.model.acp import (
    STATUS_COMPLETED,
    STATUS_FAILED,
    STATUS_IN_PROGRESS,
    TERMINAL_META_KEYS,
    tool_call_notification,
    tool_result_notification,
)
from loopspec.model.events import ToolResultRecorded
from loopspec.model.jsonvalue import JsonValue, parse_arguments, thaw
from loopspec.model.prefix import REPAIR_NOT_STARTED, REPAIR_OUTCOME_UNKNOWN
from loopspec.model.presenters import (
    CALL_PRESENTERS,
    generic_call_fallback,
    present_call,
    present_result,
)
from loopspec.model.pure.presentation import workspace_relative
from loopspec.model.toolargs import ArgumentShapeError
from loopspec.model.wire import event_from_wire
from loopspec.properties.conformance.argument_readings import EXE_2_READING, misread
from loopspec.properties.validators.acp_strict import (
    validate_permission_request,
    validate_session_update,
)

Item = dict[str, Any]
Event = dict[str, Any]

UPDATE = "session/update"
PERMISSION = "session/request_permission"
SESSION_CWD = "/workspace"


# A tool's own JSON inside a message: a `_meta` key there is the tool's data, not ACP's.
_TOOL_VALUES = frozenset({"rawInput", "rawOutput"})


def _without_extensions(value: object) -> object:
    """`value` with each `_meta` object kept to the model's terminal keys (one left empty is
    left out), outside rawInput and rawOutput."""
    if isinstance(value, list):
        return [_without_extensions(item) for item in value]
    if not isinstance(value, dict):
        return value
    kept: dict[str, object] = {}
    for key, item in value.items():
        if key == "_meta" and isinstance(item, dict):
            terminal = {k: v for k, v in item.items() if k in TERMINAL_META_KEYS}
            if terminal:
                kept[key] = terminal
        elif key in _TOOL_VALUES:
            kept[key] = item
        else:
            kept[key] = _without_extensions(item)
    return kept


def normalized_item(item: object) -> object:
    """A presented message without what a target chooses freely: its session id and the
    extension keys of every `_meta` (all but the model's terminal keys)."""
    if not isinstance(item, dict):
        return item
    shown = _without_extensions(item)
    assert isinstance(shown, dict)
    params = shown.get("params")
    if isinstance(params, dict) and "sessionId" in params:
        shown["params"] = {k: v for k, v in params.items() if k != "sessionId"}
    return shown


def _params(item: Item | None) -> dict[str, Any]:
    params = item.get("params") if item is not None else None
    return params if isinstance(params, dict) else {}


def _card(item: Item | None) -> dict[str, Any]:
    """The ToolCall fields of a message: the update of a card, the toolCall of a request."""
    params = _params(item)
    card = params.get("toolCall") if _method(item) == PERMISSION else params.get("update")
    return card if isinstance(card, dict) else {}


def _method(item: Item | None) -> object:
    return item.get("method") if item is not None else None


def _call_record(call_id: object, history: Sequence[Event]) -> dict[str, Any]:
    """The data of the model's (latest) `tool/call` for `call_id`."""
    for event in reversed(history):
        data = event.get("data")
        if (
            event.get("type") == "tool/call"
            and isinstance(data, dict)
            and data.get("callId") == call_id
        ):
            return data
    return {}


def _earlier_call_with_the_id(call_id: object, history: Sequence[Event]) -> str:
    """The tool name of a `tool/call` for `call_id` before its latest one, "" when none is (a
    later step's reply may reuse an earlier step's call id, EXE-1)."""
    names = [
        data.get("name")
        for event in history
        if event.get("type") == "tool/call"
        for data in [event.get("data")]
        if isinstance(data, dict) and data.get("callId") == call_id
    ]
    return f"tool {names[-2]}" if len(names) > 1 else ""


def _earlier_call_record(call_id: object, history: Sequence[Event]) -> dict[str, Any] | None:
    """The data of the `tool/call` for `call_id` before its latest one, None when none is."""
    records = [
        data
        for event in history
        if event.get("type") == "tool/call"
        for data in [event.get("data")]
        if isinstance(data, dict) and data.get("callId") == call_id
    ]
    return records[-2] if len(records) > 1 else None


def _shown_with_an_earlier_card(
    record: dict[str, Any], theirs: dict[str, Any], named: str, history: Sequence[Event]
) -> tuple[str, str] | None:
    """VIEW-2, with words, when the update `theirs` is the result of the call `record` records
    rendered with the card of an earlier call that had its id (a UI keeping a call id's first
    card), not with its own; None otherwise."""
    call_id = record.get("callId")
    earlier = _earlier_call_record(call_id, history)
    if earlier is None or (earlier.get("name"), earlier.get("arguments")) == (
        record.get("name"),
        record.get("arguments"),
    ):
        return None
    card = _result_card_for(earlier, parse_arguments(str(earlier.get("arguments", ""))), history)
    if card is None or _without_status(card) != _without_status(theirs):
        return None
    return "VIEW-2", (
        f"{named}: the update shows the result as the earlier call {call_id} (tool "
        f"{earlier.get('name')}, {earlier.get('arguments')}) would show it; this result answers "
        f"the latest call {call_id} (tool {record.get('name')}, {record.get('arguments')}): a "
        "result is shown with the card of the call it answers, the latest tool/call with its id "
        "(ids are unique within a reply only, EXE-1)"
    )


def _result_of(call_id: object, history: Sequence[Event]) -> Event | None:
    """The (latest) `tool/result` answering `call_id`: its data names the call only inside its
    message, in the one `tool-result` block (LOG-6)."""
    for event in reversed(history):
        message = (
            event.get("data", {}).get("message") if event.get("type") == "tool/result" else None
        )
        blocks = message.get("content") if isinstance(message, dict) else None
        if isinstance(blocks, list) and any(
            isinstance(block, dict) and block.get("toolCallId") == call_id for block in blocks
        ):
            return event
    return None


def _events_of(kind: str, call_id: object, history: Sequence[Event]) -> list[Event]:
    """The events of type `kind` in `history` that name `call_id` in their data."""
    return [
        event
        for event in history
        if event.get("type") == kind
        and isinstance(event.get("data"), dict)
        and event["data"].get("callId") == call_id
    ]


def invalid_acp(item: object) -> str | None:
    """Why a presented message is not strictly valid ACP for its method (ACP-1); None if it is."""
    if not isinstance(item, dict) or not isinstance(item.get("params"), dict):
        return "a presented message must be an object {method, params}"
    params = item["params"]
    match item.get("method"):
        case "session/update":
            problems = validate_session_update(params)
        case "session/request_permission":
            problems = validate_permission_request(params)
        case other:
            return (
                f"unknown method {other!r}: presented holds session/update and "
                "session/request_permission messages only"
            )
    return problems[0] if problems else None


def _original_card(record: dict[str, Any]) -> tuple[object, dict[str, Any]] | None:
    """The input a rewritten call had before the rewrite, and the card it would render as."""
    sidecar = record.get("rewrite")
    if not isinstance(sidecar, dict) or not isinstance(sidecar.get("originalArguments"), str):
        return None
    original = parse_arguments(sidecar["originalArguments"])
    return thaw(original), _card_for(record, original)


def _card_for(record: dict[str, Any], arguments: JsonValue) -> dict[str, Any]:
    """The card the model's UI shows for the call `record` records, given `arguments`."""
    name = str(record.get("name"))
    view = present_call(name, arguments)
    note = tool_call_notification(
        "session",
        str(record.get("callId")),
        view,
        arguments=arguments,
        session_cwd=SESSION_CWD,
        terminal_capable=False,
    )
    update = note["update"]
    assert isinstance(update, dict)
    return update


def _view_fields(card: dict[str, Any]) -> dict[str, Any]:
    """What a card shows of its call's view: not whose it is, its status or its raw input."""
    hidden = ("toolCallId", "status", "sessionUpdate", "rawInput")
    return {k: v for k, v in card.items() if k not in hidden}


def _another_calls_card(record: dict[str, Any], got: Item, history: Sequence[Event]) -> str | None:
    """The earlier call whose card `got` shows, in words, where that differs from the card of
    the call it is sent for (`record`): a UI keeping one card per tool (or per id) shows so."""
    shown = _view_fields(_card(got))
    if not record or shown == _view_fields(_card_for(record, _arguments_of(record))):
        return None
    for event in reversed(history):
        other = event.get("data")
        if event.get("type") != "tool/call" or not isinstance(other, dict) or other is record:
            continue
        if other.get("arguments") == record.get("arguments") and other.get("name") == record.get(
            "name"
        ):
            continue
        if _view_fields(_card_for(other, _arguments_of(other))) == shown:
            name, arguments = other.get("name"), other.get("arguments")
            # A later reply may reuse the id (EXE-1): say which of the two calls is which.
            earlier = "the earlier " if other.get("callId") == record.get("callId") else ""
            return f"{earlier}call {other.get('callId')} (tool {name}, {arguments})"
    return None


def _arguments_of(record: dict[str, Any]) -> JsonValue:
    return parse_arguments(str(record.get("arguments", "")))


def _without_status(card: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in card.items() if k not in ("status", "sessionUpdate")}


def _shows_original(record: dict[str, Any], got: Item) -> bool:
    """Whether `got` shows the call as it was before its rewrite (input or whole card). Never
    for an identity rewrite, whose input in effect is the model's own: there a card showing the
    input before the rewrite is the right one, and what differs is another rule's (a title a
    loop relativized wrongly, VIEW-4, was blamed on RW-1)."""
    original = _original_card(record)
    if original is None:
        return False
    raw, card = original
    if raw == thaw(parse_arguments(str(record.get("arguments")))):
        return False
    shown = _card(got)
    return shown.get("rawInput") == raw or _without_status(shown) == _without_status(card)


def _replaced_rewrite(record: dict[str, Any], got: Item, history: Sequence[Event]) -> str | None:
    """The hook whose input `got` shows although a later hook's rewrite replaced it (the one in
    effect is the sidecar's last, HOOK-3), or None: a card kept from the first rewrite reads,
    after cutting down, like one showing the model's input, when that is what the first hook
    supplied."""
    sidecar = record.get("rewrite")
    handlers = sidecar.get("handlerIds") if isinstance(sidecar, dict) else None
    if not isinstance(handlers, list) or len(handlers) < 2:
        return None
    supplied = {
        str(event["data"].get("handlerId")): event["data"].get("updatedInput")
        for event in _events_of("hook/result", record.get("callId"), history)
        if event["data"].get("point") == "PreToolUse" and "updatedInput" in event["data"]
    }
    shown, in_effect = _card(got).get("rawInput"), supplied.get(str(handlers[-1]))
    for handler in map(str, handlers[:-1]):
        if handler in supplied and supplied[handler] == shown != in_effect:
            return handler
    return None


def _is_tool_message(item: Item) -> bool:
    """Whether `item` is one of the messages presentation compares: a permission request, or a
    session/update whose update is a tool_call or a tool_call_update."""
    if _method(item) == PERMISSION:
        return True
    return _method(item) == UPDATE and _card(item).get("sessionUpdate") in (
        "tool_call",
        "tool_call_update",
    )


def _kind_of(item: Item) -> str:
    """A message that is not a tool message, in words: its method and its update's kind."""
    kind = _card(item).get("sessionUpdate")
    return f"a {_method(item)}" + (f" {kind}" if isinstance(kind, str) else "")


def _presented_at(item: Item) -> str:
    """The event a tool message presents (section 12: which message, when)."""
    if _method(item) == PERMISSION:
        return "approval/asked"
    return "tool/call" if _card(item).get("sessionUpdate") == "tool_call" else "tool/result"


def _described(item: Item) -> str:
    """A presented message in words: which message, for which call."""
    call_id = _card(item).get("toolCallId")
    if _method(item) == PERMISSION:
        return f"the permission request for call {call_id}"
    kind = _card(item).get("sessionUpdate")
    return f"the {kind} {'card ' if kind == 'tool_call' else ''}of call {call_id}"


REPAIR_CODES = frozenset({REPAIR_NOT_STARTED, REPAIR_OUTCOME_UNKNOWN})
"""The error codes of the results crash repair appends (REC-1)."""


def _repaired(want: Item, history: Sequence[Event]) -> str:
    """Where the update left out is of a result crash repair appended, words that say so."""
    if _card(want).get("sessionUpdate") != "tool_call_update":
        return ""
    result = _result_of(_card(want).get("toolCallId"), history)
    error = result.get("data", {}).get("error") if result is not None else None
    if not isinstance(error, dict) or error.get("code") not in REPAIR_CODES:
        return ""
    return (
        f" (this result is crash repair's {error['code']}: a reopened loop's client is sent "
        "what repair appends, as it is sent every later event)"
    )


def _text(content: object) -> str:
    return json.dumps(content)


@attrs.frozen
class UnfencedFailure:
    """A terminal call's result whose update shows its raw content where only a failed body or
    a call shown before a crash makes it so: a result view dropping the terminal for an error,
    or a reopened loop forgetting the calls its log shows (VIEW-2), or a loop fencing no output
    at all (ACP-2), which only a live success of the same tool tells apart
    (`call_again.never_fenced`)."""

    call_id: str
    named: str  # the update in words: which presented message, its call, what differs
    shown: str  # what the update shows, in words ("the failed result's raw content")


@attrs.frozen
class PresentedDivergence:
    """The rule the first differing presented message breaks, how, and the facts a probe
    needs where the messages alone leave two rules open."""

    rule: str
    words: str
    unfenced_failure: UnfencedFailure | None = None


def presentation_rule(
    expected: Sequence[object], actual: Sequence[object], history: Sequence[Event]
) -> tuple[str, str] | None:
    """The rule the first differing presented message breaks, and how; None if they agree."""
    found = presented_divergence(expected, actual, history)
    return None if found is None else (found.rule, found.words)


def presented_divergence(
    expected: Sequence[object], actual: Sequence[object], history: Sequence[Event]
) -> PresentedDivergence | None:
    """`presentation_rule`'s reading, with what a probe needs to read it further."""
    found = _first_divergence(expected, actual, history)
    if found is None or isinstance(found, PresentedDivergence):
        return found
    return PresentedDivergence(*found)


def _first_divergence(
    expected: Sequence[object], actual: Sequence[object], history: Sequence[Event]
) -> tuple[str, str] | PresentedDivergence | None:
    wants = [normalized_item(i) for i in expected]
    gots = [normalized_item(i) for i in actual]
    for index in range(max(len(wants), len(gots))):
        want = wants[index] if index < len(wants) else None
        got = gots[index] if index < len(gots) else None
        if want == got:
            continue
        where = f"presented message #{index + 1} of this command"
        if got is not None:
            problem = invalid_acp(actual[index])
            if problem is not None:
                return "ACP-1", f"{where} is not valid ACP: {problem}"
        assert want is None or isinstance(want, dict)
        assert got is None or isinstance(got, dict)
        moved = got in wants[index + 1 :] and want in gots[index + 1 :]
        if want is not None and got is not None and moved:  # both sent, in another order
            return "PROTO-1", (
                f"{where}: the target sends {_described(got)} before {_described(want)}; "
                "the model sends them in the order of the events they present (a card at "
                "each tool/call, a permission request at each approval/asked, an update at "
                "each tool/result)"
            )
        # One message left out (or added) shifts the rest: name it, not the next call's.
        if got is not None and index + 1 < len(wants) and wants[index + 1] == got:
            got = None
        elif want is not None and index + 1 < len(gots) and gots[index + 1] == want:
            want = None
        if got is None:
            assert want is not None
            return _left_out(want, where, history)
        if want is None:
            if got in gots[:index]:
                return "VIEW-2", f"{where}: the target sends {_described(got)} a second time"
            if not _is_tool_message(got):
                return "PROTO-1", (
                    f"{where}: the target sends {_kind_of(got)}; presented carries only the "
                    "messages for the command's tool events (a tool_call card at each tool/call, "
                    "a session/request_permission at each approval/asked, a tool_call_update at "
                    "each tool/result: SPEC.md section 12), so leave the bridge's other messages "
                    "(message chunks, plans, ...) out of it"
                )
            call_id = _card(got).get("toolCallId")
            if _method(got) == PERMISSION and not _events_of("approval/asked", call_id, history):
                denied = any(
                    event["data"].get("point") == "PreToolUse"
                    and event["data"].get("decision") in ("deny", "block")
                    for event in _events_of("hook/result", call_id, history)
                )
                why = " (its PreToolUse hooks merged to deny: deny > ask, HOOK-2)" if denied else ""
                return "VIEW-2", (
                    f"{where}: the target sends {_described(got)}, a call no approval/asked asks "
                    f"about{why}; a permission request is sent at each approval/asked"
                )
            unrecorded = not _call_record(call_id, history)
            if _card(got).get("sessionUpdate") == "tool_call" and unrecorded:
                return "VIEW-2", (
                    f"{where}: the target sends {_described(got)}, a call no tool/call records "
                    "(a card is sent at each tool/call: a call a max-tokens or cancelled reply "
                    "dropped never gets one)"
                )
            status = _card(got).get("status")
            if _card(got).get("sessionUpdate") == "tool_call_update":
                return "VIEW-2", (
                    f"{where}: the target sends {_described(got)} (status {json.dumps(status)}) "
                    + _extra_update_why(call_id, wants[index:], history)
                )
            return (
                "VIEW-2",
                f"{where}: the target sends a {_method(got)} for call {call_id} unasked",
            )
        return _changed(want, got, where, history)
    return None


def _left_out(want: Item, where: str, history: Sequence[Event]) -> tuple[str, str]:
    """A message the model sends in this command and the target does not: VIEW-3 when the
    model shows the generic fallback for the call (a bridge with no presenter for it must still
    show that), else PROTO-1, which gives each tool event its message in the command that
    appends it (a bridge that holds a card back until the call's result breaks that)."""
    call_id = _card(want).get("toolCallId")
    repaired = _repaired(want, history)
    due = (
        f"{where}: the target shows nothing for call {call_id}: {_described(want)} is due "
        f"at its {_presented_at(want)}, among the messages of the command that "
        "appends it, neither left out nor held back for a later one" + repaired
    )
    record = _call_record(call_id, history)
    # Without the call's record, the model's card tells: only the generic card is "other".
    # A repair's result left out is the reopened client's, whatever card its call had. The
    # update at a result ends a card the target sent (else the card differed first): left
    # out, it is ADJ-3's below whatever the card (round 18's card never ended read as VIEW-3
    # for a grep call).
    ends_a_card = _presented_at(want) == "tool/result"
    if record and _rule_of_card(record) == "VIEW-3" and not repaired and not ends_a_card:
        return "VIEW-3", (
            f"{due}; a call no presenter renders still gets the generic card, and its result "
            f"the raw content ({_why_generic(record)})"
        )
    if not record and _card(want).get("kind") == "other" and not repaired and not ends_a_card:
        return "VIEW-3", f"{due}; a call no presenter renders still gets the generic card"
    if _presented_at(want) == "tool/result" and not repaired:
        # The card's end left out: the editor shows the call running though its result is in
        # the history, as check names an ACP recording's card no update ended (round 18:
        # Hermes #114395, a denied or blocked call's card left in_progress). PROTO-1 told the
        # author the wire was wrong.
        return "ADJ-3", (
            f"{due}: no update gives the card completed or failed, so the editor shows call "
            f"{call_id} running though its result is in the history (a call that never ran, "
            "denied, refused or failed, gets its update too, carrying the result's text)"
        )
    return "PROTO-1", (
        f"{due} (presented carries, command by command, a message for each tool event the "
        "command appended, in log order)"
    )


def _extra_update_why(
    call_id: object, still_due: Sequence[object], history: Sequence[Event]
) -> str:
    """Why an update the model does not send here is one too many: the call's own update is
    still due later in this command, it was sent already, or no result exists yet."""
    due_later = any(
        isinstance(item, dict)
        and _card(item).get("toolCallId") == call_id
        and _card(item).get("sessionUpdate") == "tool_call_update"
        for item in still_due
    )
    if due_later:
        return (
            "before the one its tool/result calls for, later in this command: a call gets one "
            "update, at its tool/result (a denied, refused or aborted call's too, carrying the "
            "result's text), and none at its other events (an approval/decided, a hook's answer)"
        )
    if _result_of(call_id, history) is not None:
        return (
            "after the one its tool/result called for: a call gets one update, at "
            f'its tool/result, and its status stays "{STATUS_COMPLETED}" or "{STATUS_FAILED}"'
        )
    return (
        "before any tool/result of the call: an update is sent at each "
        f'tool/result only, and a card is "{STATUS_IN_PROGRESS}" from its tool/call on'
    )


def _changed(
    want: Item, got: Item, where: str, history: Sequence[Event]
) -> tuple[str, str] | PresentedDivergence:
    mine, theirs = _card(want), _card(got)
    call_id = mine.get("toolCallId")
    asks_first = _method(got) == PERMISSION and mine.get("sessionUpdate") == "tool_call"
    if asks_first and theirs.get("toolCallId") == call_id:
        return "PROTO-1", (
            f"{where}: the target sends {_described(got)} where its tool_call card is due, and "
            "no card before it: the card goes at the tool/call, the permission request after it "
            "at the approval/asked, so the UI asks about a call it already shows"
        )
    if _method(want) != _method(got) or theirs.get("toolCallId") != call_id:
        unrecorded = theirs.get("toolCallId") is not None and not _call_record(
            theirs.get("toolCallId"), history
        )
        return "VIEW-2", (
            f"{where}: the target sends {_method(got)} for call {theirs.get('toolCallId')} "
            f"where the model sends {_method(want)} for call {call_id}"
            + (
                f"; no tool/call records a call {theirs.get('toolCallId')}: a message's "
                "toolCallId is the callId its tool/call records, as the loop wrote it"
                if unrecorded
                else ""
            )
        )
    fields = _differing(mine, theirs)
    named = (
        f"{where} ({_method(want)}, call {call_id}) differs in {', '.join(fields) or 'its options'}"
    )
    record = _call_record(call_id, history)
    replaced = _replaced_rewrite(record, got, history)
    if replaced is not None:
        last = record["rewrite"]["handlerIds"][-1]
        original = _original_card(record)
        also = (
            " (the model's own input too)"
            if original and original[0] == _card(got).get("rawInput")
            else ""
        )
        return "RW-4" if _method(want) == PERMISSION else "RW-1", (
            f"{named}: it shows the input hook {replaced} supplied{also}, which hook {last}'s "
            f"later rewrite replaced; the input in effect is hook {last}'s (HOOK-3)"
        )
    # A rewritten call's own input before the rewrite is RW-1's or RW-4's, below, whatever
    # other call it matches.
    other = None if _shows_original(record, got) else _another_calls_card(record, got, history)
    if other is not None:
        if _method(want) == PERMISSION:
            latest = "the latest " if other.startswith("the earlier ") else ""
            return "ACP-3", (
                f"{named}: the permission request shows the card of {other}, not of {latest}call "
                f"{call_id} ({record.get('arguments')}), which it asks about: its toolCall is "
                "that call's card, rawInput its effective arguments"
            )
        return "VIEW-2", (
            f"{named}: the card is the one {other} renders as, not call {call_id}'s "
            f"({record.get('arguments')}): a card is the presenter's view of its own call's "
            "arguments, rendered at each tool/call (a UI keeping one card per tool or per call "
            "id shows another call's)"
        )
    if _method(want) == PERMISSION:
        if _shows_original(record, got):
            return "RW-4", f"{named}: the permission request shows the input before the rewrite"
        if "rawInput" in fields and _misread(record, theirs):
            return "EXE-2", _misread_why(named, record, theirs)
        if "rawInput" in fields:
            return "ACP-3", f"{named}: rawInput must be the call's effective arguments"
    elif mine.get("sessionUpdate") == "tool_call":
        if _shows_original(record, got):
            return "RW-1", f"{named}: the card shows the input before the rewrite"
        if "rawInput" in fields and _misread(record, theirs):
            return "EXE-2", _misread_why(named, record, theirs)
        if "rawInput" in mine and "rawInput" not in theirs:
            return "VIEW-2", _raw_input_left_out_why(named, theirs)
        if "rawInput" in fields:
            return "RW-1", f"{named}: the card shows other arguments than tool/call records"
    if _has_terminal(theirs) and not _has_terminal(mine):
        return "ACP-2", (
            f"{named}: no terminal goes to a client that is not terminal-capable, neither a "
            f"terminal content item nor the terminal _meta ({', '.join(TERMINAL_META_KEYS)}): "
            "it gets a terminal's output as fenced console text"
        )
    if _has_terminal(mine) and not _has_terminal(theirs):
        return "ACP-2", f"{named}: a terminal-capable client gets the terminal, not its output"
    if "_meta" in fields:
        return "VIEW-2", (
            f"{named}: of _meta, the model writes {', '.join(TERMINAL_META_KEYS)} (for a "
            "terminal, to a terminal-capable client) and compares them like every other field; "
            "any other key is a bridge's own extension and passes (SPEC.md section 12)"
        )
    if fields == ["kind"] and "kind" not in theirs:
        return _rule_of_card(record), (
            f"{named}: the card leaves out kind; section 12 writes it on every card, "
            f'{json.dumps(mine.get("kind"))} here (ACP reads a missing kind as "other", '
            "but conform compares what is sent)"
        )
    if fields == ["status"]:
        # A permission request's toolCall has no sessionUpdate: its status is keyed by method.
        shown = PERMISSION if _method(want) == PERMISSION else str(mine.get("sessionUpdate"))
        return "VIEW-2", f"{named}: {_STATUS[shown]}"
    unknown = [k for k in fields if k in theirs and k not in _FIELDS[_shape(want)]]
    if unknown:
        return "VIEW-2", (
            f"{named}: the target's {_shape(want)} carries {', '.join(unknown)}, which ACP allows "
            "but section 12 never writes there: a message carries only the fields the tables "
            "give (a bridge's own data may go under _meta, which conform lets pass)"
        )
    if _method(want) == PERMISSION and not fields:
        return "VIEW-2", (
            f'{named}: the options are allow_once ("Allow once") and reject_once '
            '("Reject"), each option\'s kind being its id (SPEC.md section 12)'
        )
    if mine.get("sessionUpdate") == "tool_call_update":
        return _result_rule(mine, theirs, named, history)
    if _title_differs_in_its_path(mine, theirs):
        return "VIEW-4", f"{named}: {_title_path_why(mine, theirs)}"
    if _paths_made_relative(mine, theirs):
        return "VIEW-4", (
            f"{named}: locations and diff paths stay as the arguments give them; only a "
            "title's path is made relative to the session cwd"
        )
    wide = _wide_integer_misshown(record, mine, theirs)
    if wide is not None:
        return "VIEW-2", f"{named}: {wide}"
    if fields == ["locations"] and mine.get("kind") == "read":
        return "VIEW-2", (
            f"{named}: a read's location is {{path, line}}, line the first line shown: the "
            "offset, where 0 or no offset is line 1 (SPEC.md section 12)"
        )
    if fields == ["title"] and mine.get("kind") == "read":
        return "VIEW-2", (
            f"{named}: a read's title is Read <path>, then (first - last) when a limit is "
            "given, first the offset with 0 or no offset counting as line 1, or (from line N) "
            "for an offset alone (SPEC.md section 12)"
        )
    # Before a bash title's words: a title that lost only a lone surrogate kept its command.
    if fields == ["title"] and _lone_surrogates_lost(mine.get("title"), theirs.get("title")):
        return "VIEW-2", f"{named}: {_lost_surrogate_why(mine, theirs)}"
    if fields == ["title"] and mine.get("kind") == "execute":
        return "VIEW-2", (
            f"{named}: a bash card's title is its command as given, the description shown as "
            "the card's content, never as its title (SPEC.md section 12)"
        )
    if "content" in fields and _diffs(mine):
        return "VIEW-2", (
            f"{named}: an edit card's diff is {{path, oldText: old_string, newText: new_string}}, "
            "oldText left out when old_string is empty; a write card's is {path, newText: "
            "content} (SPEC.md section 12)"
        )
    if _rule_of_card(record) == "VIEW-3":
        return "VIEW-3", (
            f"{named}: a call no presenter renders shows as a generic card ({_why_generic(record)})"
        )
    if fields == ["kind"]:
        return "VIEW-2", f"{named}: {_KIND_WHY} ({json.dumps(mine.get('kind'))} here)"
    return "VIEW-2", f"{named}: the card is the presenter's view of the call's arguments"


def _wide_integer_misshown(
    record: dict[str, Any], mine: dict[str, Any], theirs: dict[str, Any]
) -> str | None:
    """Why a read card differs in what it shows when the call's offset or limit is an integer
    wider than a signed 32-bit one (a reader stopping at 32 or 64 bits, or wrapping, shows
    another number or the generic card): the number, its width and both titles; else None."""
    try:
        arguments = json.loads(str(record.get("arguments")))
    except ValueError:
        return None
    if not isinstance(arguments, dict) or mine.get("kind") != "read":
        return None
    if not any(mine.get(field) != theirs.get(field) for field in ("kind", "title", "locations")):
        return None
    numbers = [(key, arguments.get(key)) for key in ("offset", "limit")]
    wide = [(key, n) for key, n in numbers if type(n) is int and abs(n) >= 2**31]
    if not wide:
        return None
    key, value = wide[0]
    shown = (
        'is the generic one ("other"), as for arguments no presenter reads,'
        if theirs.get("kind") == "other" and mine.get("kind") != "other"
        else f"is titled {json.dumps(theirs.get('title'))},"
    )
    return (
        f"call {mine.get('toolCallId')}'s {key} {value} is an integer of {value.bit_length()} "
        f"bits; the target's card {shown} where the model's is titled "
        f"{json.dumps(mine.get('title'))}: a card shows the call's numbers, every digit kept "
        "(SPEC.md section 12's read rows: an offset past 2^64 and a limit past 2^32 are "
        "integers all the same)"
    )


_KIND_WHY = (
    'a card\'s kind is "execute" for bash, "read" for read, "edit" for write and edit, "think" '
    'for todo, and "other" for the generic card (SPEC.md section 12)'
)


def _raw_input_left_out_why(named: str, theirs: dict[str, Any]) -> str:
    swapped = (
        ", and carries rawOutput, which section 12 never writes on a card (rawInput is what the "
        "call runs with)"
        if "rawOutput" in theirs
        else ""
    )
    return (
        f"{named}: the card leaves out rawInput, the call's effective arguments as EXE-2 "
        f"parses them, which section 12 writes on every card whose arguments have a value{swapped}"
    )


def _misread(record: dict[str, Any], theirs: dict[str, Any]) -> bool:
    """Whether a card's rawInput is the record's arguments parsed another way (EXE-2)."""
    raw = record.get("arguments")
    return isinstance(raw, str) and misread(raw, theirs.get("rawInput"))


def _misread_why(named: str, record: dict[str, Any], theirs: dict[str, Any]) -> str:
    raw = str(record.get("arguments"))
    return (
        f"{named}: tool/call records the arguments {json.dumps(raw)}, which EXE-2 reads as "
        f"{json.dumps(thaw(parse_arguments(raw)))}, not {json.dumps(theirs.get('rawInput'))}: "
        f"{EXE_2_READING}"
    )


def _why_generic(record: dict[str, Any]) -> str:
    """Why the model's presenters leave the recorded call to the generic card: no presenter
    for its tool, or what its presenter refuses in the arguments."""
    name, raw = str(record.get("name")), str(record.get("arguments", ""))
    presenter = CALL_PRESENTERS.get(name)
    if presenter is None:
        return f"no presenter renders {name}: section 12's are {', '.join(CALL_PRESENTERS)}"
    try:
        presenter(parse_arguments(raw))
    except ArgumentShapeError as refused:
        integers = (
            ", an integer as the JSON text writes it: 1.0 is a number of another type, which "
            "JavaScript's JSON.parse cannot tell from 1"
            if "integer" in str(refused)
            else ""
        )
        return f"{name}'s presenter refuses the arguments {raw}: {refused}{integers}"
    return f"{name}'s presenter refuses the arguments {raw}"


def _differing(mine: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """The fields of two cards (or updates) that differ, sorted: a field only one of them
    carries differs, whatever its value."""
    keys = set(mine) | set(theirs)
    return sorted(k for k in keys if k not in mine or k not in theirs or mine[k] != theirs[k])


def _rule_of_card(record: dict[str, Any]) -> str:
    """VIEW-3 for a call the model shows as the generic fallback card, else VIEW-2."""
    arguments = parse_arguments(str(record.get("arguments", "")))
    name = str(record.get("name"))
    fallback = present_call(name, arguments) == generic_call_fallback(name, arguments)
    return "VIEW-3" if fallback else "VIEW-2"


# What each presented message may carry (section 12), by `_shape`: every field the model's
# presenters and ACP bridge write there, for any tool or client.
_CARD_FIELDS = frozenset(
    {"toolCallId", "title", "kind", "content", "locations", "rawInput", "_meta"}
)
_FIELDS = {
    "tool_call": _CARD_FIELDS | {"sessionUpdate", "status"},
    "tool_call_update": frozenset(
        {"sessionUpdate", "toolCallId", "status", "title", "content", "_meta"}
    ),
    "permission request's toolCall": _CARD_FIELDS,
}


def _shape(item: Item) -> str:
    """The kind of a tool message, as `_FIELDS` keys it."""
    if _method(item) == PERMISSION:
        return "permission request's toolCall"
    return str(_card(item).get("sessionUpdate"))


_STATUS = {
    "tool_call": f'a card\'s status is "{STATUS_IN_PROGRESS}" (SPEC.md section 12)',
    "tool_call_update": (
        f'a result update\'s status is "{STATUS_COMPLETED}", or "{STATUS_FAILED}" when the '
        "result has isError (SPEC.md section 12)"
    ),
    PERMISSION: (
        "a permission request's toolCall carries no status: it has the card's fields but "
        "sessionUpdate and status (SPEC.md section 12)"
    ),
}


def _paths_made_relative(mine: dict[str, Any], theirs: dict[str, Any]) -> bool:
    """Whether `theirs` differs from `mine` only in writing location or diff paths relative to
    the session cwd (VIEW-4 keeps them raw)."""
    if "locations" not in theirs and "content" not in theirs:
        return False
    raw: dict[str, Any] = json.loads(json.dumps(theirs))
    for key, want_items in (("locations", mine.get("locations")), ("content", mine.get("content"))):
        got_items = raw.get(key)
        if not (isinstance(want_items, list) and isinstance(got_items, list)):
            continue
        for want_item, got_item in zip(want_items, got_items, strict=False):
            path = want_item.get("path") if isinstance(want_item, dict) else None
            relative = workspace_relative(path, SESSION_CWD) if isinstance(path, str) else ""
            if relative and isinstance(got_item, dict) and got_item.get("path") == relative:
                got_item["path"] = path
    return raw != theirs and raw == mine


def _diffs(card: dict[str, Any]) -> list[dict[str, Any]]:
    """The diff items of a card's or an update's content."""
    return [
        item
        for item in card.get("content") or []
        if isinstance(item, dict) and item.get("type") == "diff"
    ]


def _has_terminal(card: dict[str, Any]) -> bool:
    """Whether a card or update shows a terminal: a terminal content item, or one of the
    model's terminal `_meta` keys (ACP-2)."""
    meta = card.get("_meta")
    return (isinstance(meta, dict) and any(key in TERMINAL_META_KEYS for key in meta)) or any(
        isinstance(item, dict) and item.get("type") == "terminal"
        for item in card.get("content") or []
    )


def _title_path(card: dict[str, Any]) -> object:
    """The path a title names: the card's first location, else its first diff path."""
    anchors = [*(card.get("locations") or []), *_diffs(card)]
    return anchors[0].get("path") if anchors and isinstance(anchors[0], dict) else None


def _title_path_why(mine: dict[str, Any], theirs: dict[str, Any]) -> str:
    """How the model's title writes its path, and why (VIEW-4)."""
    path = str(_title_path(mine))
    if _lone_surrogates_replaced(mine.get("title"), theirs.get("title")):
        # Not a path made relative otherwise: the same path, a character of it lost.
        return (
            f"the title names {path} as the arguments give it ({json.dumps(mine.get('title'))}), "
            "its lone surrogate too (EXE-2 reads a \\u escape of one as a string holding it), "
            "where the target's title has another character in its place"
        )
    relative = workspace_relative(path, SESSION_CWD)
    if relative:
        return (
            f"{path} is inside the session cwd {SESSION_CWD}, so the title names it {relative} "
            f"({json.dumps(mine.get('title'))}); locations and diff paths keep it whole"
        )
    return (
        f"the title names {path} as the arguments give it ({json.dumps(mine.get('title'))}): a "
        f"path is made relative only when it is absolute and strictly inside the session cwd "
        f"{SESSION_CWD}, its ., .. and empty segments resolved lexically"
    )


def _lone_surrogates_lost(want: object, got: object) -> bool:
    """Whether text `got` is `want` with some of its lone surrogates replaced or left out."""
    if _lone_surrogates_replaced(want, got):
        return True
    if not isinstance(want, str) or not isinstance(got, str) or want == got:
        return False
    return "".join(c for c in want if not "\ud800" <= c <= "\udfff") == got


def _lost_surrogate_why(mine: dict[str, Any], theirs: dict[str, Any]) -> str:
    """What a title that lost the lone surrogates of the model's did wrong, and how to keep
    them (VIEW-2: the title is the presenter's view of the arguments, which hold them)."""
    want, got = str(mine.get("title")), str(theirs.get("title"))
    # The first place they differ holds the first surrogate lost, replaced or left out.
    at = next(i for i, old in enumerate(want) if i >= len(got) or got[i] != old)
    lost = want[at]
    if len(got) != len(want):
        instead = "nothing in its place"
    elif " " < got[at] <= "~":
        instead = f"'{got[at]}' in its place"
    else:
        instead = f"U+{ord(got[at]):04X} in its place"
    return (
        f"the title is the presenter's view of the arguments, which hold the lone surrogate "
        f"U+{ord(lost):04X} (EXE-2 reads a \\u escape of one as a string holding it): the "
        f"model's title keeps it ({json.dumps(want)}), the target's has {instead}. A lone "
        "surrogate has no UTF-8 form, so an encoder replaces it (Java's with '?', others with "
        f"U+FFFD) or drops it: write it in the JSON as the escape \\u{ord(lost):04x}"
    )


def _lone_surrogates_replaced(want: object, got: object) -> bool:
    """Whether text `got` is `want` with some of its lone surrogates replaced."""
    if not isinstance(want, str) or not isinstance(got, str) or len(want) != len(got):
        return False
    changed = [old for old, new in zip(want, got, strict=True) if old != new]
    return bool(changed) and all("\ud800" <= old <= "\udfff" for old in changed)


def _title_differs_in_its_path(mine: dict[str, Any], theirs: dict[str, Any]) -> bool:
    """Whether the titles differ only where the model's writes the card's path (its first
    location, else its first diff path): the words around it are the same in both (VIEW-4).
    Other words of a title (a read's range, a missing title) are the presenter's (VIEW-2)."""
    want, got = mine.get("title"), theirs.get("title")
    path = _title_path(mine)
    if want == got or not (isinstance(want, str) and isinstance(got, str) and path):
        return False
    shown = workspace_relative(str(path), SESSION_CWD) or str(path)
    start = want.find(shown)
    if start < 0:
        return False
    before, after = want[:start], want[start + len(shown) :]
    return len(got) >= len(before) + len(after) and got.startswith(before) and got.endswith(after)


def _raw_items(call_id: object, history: Sequence[Event]) -> list[Item]:
    """The content items of the raw result of `call_id`: its text blocks as they are."""
    result = _result_of(call_id, history)
    blocks = (((result or {}).get("data") or {}).get("message") or {}).get("content") or []
    return [
        {"type": "content", "content": {"type": "text", "text": b.get("text")}}
        for block in blocks
        for b in block.get("content") or []
        if isinstance(b, dict) and b.get("type") == "text"
    ]


def _shown_before_a_crash(call_id: object, history: Sequence[Event]) -> bool:
    """Whether the call's tool/call precedes a turn/end that crash repair wrote (interrupted)."""
    recorded = False
    for event in history:
        data = event.get("data") or {}
        if event.get("type") == "tool/call" and data.get("callId") == call_id:
            recorded = True
        elif recorded and event.get("type") == "turn/end":
            reason = data.get("reason")
            if isinstance(reason, dict) and reason.get("kind") == "interrupted":
                return True
    return False


def _runs_in_background(record: dict[str, Any]) -> bool:
    """Whether the recorded call is a background bash command (its result text kept whole)."""
    arguments = thaw(parse_arguments(str(record.get("arguments", ""))))
    background = isinstance(arguments, dict) and arguments.get("run_in_background") is True
    return record.get("name") == "bash" and background


def _result_card_for(record: dict[str, Any], arguments: JsonValue, history: Sequence[Event]) -> Any:
    """The update the model's UI sends for the result of the call `record` records, its card
    shown as the model shows it, had the result been rendered with `arguments` (None: no
    result answers the call)."""
    answered = _result_of(record.get("callId"), history)
    if answered is None:
        return None
    result = event_from_wire(answered)
    assert isinstance(result, ToolResultRecorded)
    name = str(record.get("name"))
    shown_as = present_call(name, _arguments_of(record))
    block = result.message.result
    view = present_result(name, arguments, shown_as, block.content, block.failed, result.meta)
    note = tool_result_notification(
        "session",
        str(record.get("callId")),
        view,
        is_error=block.failed,
        terminal_capable=False,
        session_cwd=SESSION_CWD,
    )
    return note["update"]


def _result_from_original(
    record: dict[str, Any], theirs: dict[str, Any], history: Sequence[Event]
) -> str | None:
    """The input before the rewrite, when the update `theirs` is the result rendered with it
    where the call ran another (a UI rendering a result against what the model asked for);
    else None."""
    original = _original_card(record)
    if original is None or original[0] == thaw(_arguments_of(record)):
        return None
    sidecar = record["rewrite"]["originalArguments"]
    card = _result_card_for(record, parse_arguments(sidecar), history)
    return (
        sidecar if card is not None and _without_status(card) == _without_status(theirs) else None
    )


def _result_rule(
    mine: dict[str, Any], theirs: dict[str, Any], named: str, history: Sequence[Event]
) -> tuple[str, str] | PresentedDivergence:
    record = _call_record(mine.get("toolCallId"), history)
    asked = _result_from_original(record, theirs, history)
    if asked is not None:
        return "RW-1", (
            f"{named}: the update is the result rendered with the call's input before the "
            f"rewrite, {asked}, where the call ran {record.get('arguments')}: a result shows "
            "with the effective arguments, as its call's card does"
        )
    content = mine.get("content")
    text = _text(content)
    if "```console" in text:
        if "```console" in _text(theirs.get("content")):  # fenced alike: what is inside differs
            record = _call_record(mine.get("toolCallId"), history)
            marker = (
                "kept whole, its exit or signal marker line too (run_in_background: only a "
                "foreground command's is removed)"
                if _runs_in_background(record)
                else "a foreground command's exit or signal marker line removed (the last "
                "line once trailing newlines are set aside)"
            )
            return "VIEW-2", (
                f"{named}: the fenced output is the result's text blocks joined by newlines, "
                f"{marker}, its trailing newlines dropped; the fence is one backtick longer than "
                "the output's longest run of backticks (at least three)"
            )
        call_id = mine.get("toolCallId")
        if theirs.get("content") == _raw_items(call_id, history) and _shown_before_a_crash(
            call_id, history
        ):
            # Raw content is the update for a call the presenter does not know: a loop that
            # reopens after a crash and forgets the calls its log shows renders so (VIEW-2:
            # replay gives the same view as live rendering), not one unaware of terminals.
            return PresentedDivergence(
                "VIEW-2",
                f"{named}: the update shows the result's raw content, as for a call the "
                f"presenter does not know; call {call_id}'s card, shown before the crash, was a "
                "terminal, so its result is the fenced console output: a reopened loop renders "
                "the result of a call its log recorded with that call's card, as it would live",
                UnfencedFailure(
                    str(call_id),
                    named,
                    f"the raw content of call {call_id}'s result, its card shown before the crash",
                ),
            )
        earlier = _earlier_call_with_the_id(call_id, history)
        if theirs.get("content") == _raw_items(call_id, history) and earlier:
            # Raw content is how the earlier call with this id would show its result: a UI that
            # remembers a call id's first card renders so (VIEW-2), not one unaware of terminals.
            return "VIEW-2", (
                f"{named}: the update shows the result's raw content, as a result of the earlier "
                f"call {call_id} ({earlier}) would show; this result answers the latest call "
                f"{call_id} (tool {_call_record(call_id, history).get('name')}), so it is the "
                "fenced console output: a result is shown with the card of the call it answers, "
                "the latest tool/call with its id (ids are unique within a reply only, EXE-1)"
            )
        if theirs.get("content") == _raw_items(call_id, history) and mine.get("status") == "failed":
            # Raw content for a failed body alone: the result view is what drops the terminal
            # (a loop rendering no terminal for an error), not a client's capabilities.
            return PresentedDivergence(
                "VIEW-2",
                f"{named}: the update shows the failed result's raw content, where a terminal "
                "call's result is its terminal output whether its body succeeded or failed (the "
                "error's text is that output), fenced console text for a client without "
                "terminals (SPEC.md section 12)",
                UnfencedFailure(str(call_id), named, "the failed result's raw content"),
            )
        return "ACP-2", f"{named}: a client without terminals gets the output as fenced console"
    earlier_card = _shown_with_an_earlier_card(record, theirs, named, history)
    if earlier_card is not None:
        return earlier_card
    if _title_differs_in_its_path(mine, theirs):
        return "VIEW-4", f"{named}: {_title_path_why(mine, theirs)}"
    if _differing(mine, theirs) == ["title"] and "title" in mine:
        return "VIEW-2", (
            f"{named}: a diff result's title is its card's, the path as the arguments give it, "
            "made relative (VIEW-4) only where the update's first diff names that path (SPEC.md "
            "section 12)"
        )
    if _paths_made_relative(mine, theirs):
        return (
            "VIEW-4",
            f"{named}: diff paths stay as the result's meta.diffs or arguments give them",
        )
    if "content" in _differing(mine, theirs) and _diffs(mine):
        return "VIEW-2", (
            f"{named}: a successful write or edit shows its result's meta.diffs as recorded "
            "(path, oldText when given, newText), or, a write without them, its arguments' diff "
            "(SPEC.md section 12)"
        )
    if content == _raw_items(mine.get("toolCallId"), history):
        record = _call_record(mine.get("toolCallId"), history)
        if record.get("name") in ("write", "edit") and _rule_of_card(record) == "VIEW-2":
            return "VIEW-3", (
                f"{named}: a failed write or edit, and an edit whose result has no usable "
                "meta.diffs (none, empty, or one entry malformed: the applied change is "
                "unknown), shows its raw content; only a successful write falls back to its "
                "arguments' diff (SPEC.md section 12)"
            )
        return "VIEW-3", f"{named}: a result no presenter renders shows its raw content"
    return "VIEW-2", f"{named}: the update is the presenter's view of the durable result"
