"""Small readers of a log's history every blame module shares: a call's step, record, result
text and tool, a reply's calls, the events a target logged so far, a hook audit's name and rule."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from loopspec.model.commands import Command, ModelReplies
from loopspec.model.config import LoopConfig
from loopspec.model.errors import TransitionRefused
from loopspec.model.facts import ASKING_DECISIONS, DENYING_DECISIONS
from loopspec.model.json_text import spelled
from loopspec.model.state import LoopState
from loopspec.model.transitions import step
from loopspec.properties.conformance.event_fields import (
    Event,
    call_id_of,
    call_record,
    data_of,
    error_code,
    message_text,
)
from loopspec.properties.conformance.json_values import as_value


def hook_named(event: Event) -> str:
    """A hook audit event's hook, as a report names it: its handler id, or (where a profile
    erased the id, which the implementation spells its own way) its point and matcher."""
    data = data_of(event)
    handler = data.get("handlerId")
    if isinstance(handler, str):
        return f"hook {handler}"
    return f"the {data.get('point', 'unnamed')} hook matching {spelled(data.get('matcher', '?'))}"


def calls_step(call_id: str | None, history: Sequence[Event]) -> Sequence[Event]:
    """The events of `history` from the step/start of the step that holds call `call_id` (the
    latest reply making it, else the latest step): call ids repeat across steps, and an earlier
    call's hook answers and approval are not this one's."""
    end = len(history)
    for at in range(len(history) - 1, -1, -1):
        event = history[at]
        if event.get("type") == "assistant/message" and call_id in reply_call_ids(event):
            end = at
            break
    for at in range(min(end, len(history) - 1), -1, -1):
        if history[at].get("type") == "step/start":
            return history[at:]
    return history


def named(handlers: Sequence[str]) -> str:
    """`hook a`, `hooks a, b`."""
    return ("hook " if len(handlers) == 1 else "hooks ") + ", ".join(handlers)


def recorded(call_id: str | None, field: str, events: Sequence[Event]) -> object:
    """`field` of the latest tool/call record of call `call_id` in `events`; None when none."""
    return data_of(call_record(call_id, events)).get(field)


def result_text(event: Event | None) -> str:
    """The text blocks of a tool/result's message, run together."""
    content = data_of(event).get("message", {}).get("content") if event is not None else None
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return ""
    parts = content[0].get("content")
    return "".join(
        str(part.get("text", ""))
        for part in (parts if isinstance(parts, list) else [])
        if isinstance(part, dict)
    )


def is_error(event: Event | None) -> bool:
    """Whether a tool/result's block says the call failed."""
    message = data_of(event).get("message")
    content = message.get("content") if isinstance(message, dict) else None
    block = content[0] if isinstance(content, list) and content else None
    return isinstance(block, dict) and block.get("isError") is True


def is_refusal(event: Event | None) -> bool:
    """A result that is a denial (an error without error info) or an INVALID_TOOL_INPUT one."""
    if event is None or event.get("type") != "tool/result":
        return False
    message = data_of(event).get("message")
    content = message.get("content") if isinstance(message, dict) else None
    block = content[0] if isinstance(content, list) and content else None
    failed = isinstance(block, dict) and block.get("isError") is True
    return failed and error_code(event) in (None, "INVALID_TOOL_INPUT")


def result_content(result: Event | None) -> object:
    """The content blocks of a result's message (as written, unchecked), or None without one."""
    message = data_of(result).get("message")
    return message.get("content") if isinstance(message, dict) else None


# The error codes of results the loop writes itself (TEXT-1's table, SPEC.md section 9).
LOOP_ERROR_CODES = frozenset(
    {
        "INVALID_TOOL_INPUT",
        "UNKNOWN_TOOL",
        "ABORTED_BEFORE_DISPATCH",
        "ABORTED",
        "TOOL_OUTCOME_UNKNOWN",
        "TOOL_NOT_STARTED",
    }
)


def reply_call_ids(event: Event) -> list[str | None]:
    """The ids of the tool-call blocks of a reply's message, in order."""
    content = data_of(event).get("message", {}).get("content") or []
    return [b.get("id") for b in content if isinstance(b, dict) and b.get("type") == "tool-call"]


def reply_or_record_ids(event: Event) -> list[str | None]:
    """The call ids of a tool/call record, or of a reply's calls, in order."""
    if event.get("type") == "tool/call":
        return [call_id_of(event)]
    return list(reply_call_ids(event))


def call_arguments(event: Event) -> list[Any]:
    """The arguments of a tool/call record, or of each call of a reply, parsed where JSON
    (`as_value`), in order."""
    data = data_of(event)
    if event.get("type") == "tool/call":
        raw = [data.get("arguments")]
    else:
        content = data.get("message", {}).get("content", [])
        raw = [b.get("arguments") for b in content if b.get("type") == "tool-call"]
    parsed: list[Any] = []
    for text in raw:
        parsed.append(as_value(text))
    return parsed


def message_words(message: Event) -> str:
    """A user/message in words: its one text, spelled, or its blocks' count."""
    text = message_text(message)
    if text is not None:
        return spelled(text)
    return f"{len(data_of(message).get('content') or [])} blocks"


def source_of(event: Event) -> object:
    """The `source` of the message an event carries (`data` itself for a user/message)."""
    data = data_of(event)
    message = data if event.get("type") == "user/message" else data.get("message")
    return message.get("source") if isinstance(message, dict) else None


def decision_reading(point: object, word: object) -> str | None:
    """The verdict a hook/result's decision word reads as (HOOK-1), or None for a word that may
    go with more than one (`error` and `stop`: a hook that failed or stopped, its answer passing
    or blocking) or for no word at all."""
    if word in DENYING_DECISIONS:
        return "a block" if point == "PostToolUse" else "a deny"
    if word in ASKING_DECISIONS:
        return "an ask"
    if word in ("allow", "approve"):
        return "no block" if point == "PostToolUse" else "an allow"
    if word == "pass":
        return "no block" if point == "PostToolUse" else "a pass"
    return None


def hook_audit_rule(event: Event) -> str:
    """The rule of a hook audit event: HOOK-4 for a PreToolUse hook's, HOOK-5 for a
    PostToolUse hook's (what `loopspec conform` counts as checked by comparing it)."""
    return "HOOK-4" if data_of(event).get("point") == "PreToolUse" else "HOOK-5"


def earlier_unanswered(call_id: str | None, history: Sequence[Event]) -> list[Event]:
    """The tool/call records of `call_id`'s step before its own still without a result."""
    recorded: list[Event] = []
    answered: set[str | None] = set()
    own = False
    for event in calls_step(call_id, history):
        kind = event.get("type")
        if kind == "step/start":
            recorded, answered, own = [], set(), False
        elif kind == "tool/call" and not own:
            # The records come together, before any result: results later in the step still
            # count (a loop stopping at the call's own record counted answered calls running).
            own = call_id_of(event) == call_id
            if not own:
                recorded.append(event)
        elif kind == "tool/result":
            answered.add(call_id_of(event))
    return [e for e in recorded if call_id_of(e) not in answered]


def awaiting_approval(history: Sequence[Event]) -> str | None:
    """The call of the current reply whose approval is asked and not yet answered, if any."""
    asked: dict[str, str] = {}  # approval id -> call id
    for event in history:
        kind, data = event.get("type"), data_of(event)
        if kind == "assistant/message":
            asked.clear()  # a new reply: earlier batches are over
        elif kind == "approval/asked" and isinstance(data.get("callId"), str):
            asked[str(data.get("id"))] = data["callId"]
        elif kind == "approval/decided":
            asked.pop(str(data.get("id")), None)
    return next(iter(asked.values()), None)


def _tool_name(call_id: object, command: Command, history: Sequence[Event]) -> str | None:
    """The tool the model called under `call_id` (its hooks run before the reply is logged,
    so the reply being handled is read from the command)."""
    if isinstance(command, ModelReplies):
        for call in command.tool_calls:
            if call.id == call_id:
                return call.name
    for event in reversed(history):
        if event.get("type") == "tool/call" and data_of(event).get("callId") == call_id:
            return str(data_of(event).get("name"))
    return None


def called_tool_name(
    call_id: object, command: Command, history: Sequence[Event], program: Sequence[Command]
) -> str | None:
    """The tool the model called under `call_id`, also when no tool/call records it yet (a
    call still at its hooks, one the target never recorded): read from the program's replies."""
    recorded = _tool_name(call_id, command, history)
    if recorded is not None:
        return recorded
    return next(
        (
            call.name
            for sent in reversed(program)
            if isinstance(sent, ModelReplies)
            for call in sent.tool_calls
            if call.id == call_id
        ),
        None,
    )


def reply_in_hand(command: Command, program: Sequence[Command]) -> ModelReplies | None:
    """The reply whose PreToolUse hooks are running: this command's, or the program's last."""
    if isinstance(command, ModelReplies):
        return command
    return next((c for c in reversed(program) if isinstance(c, ModelReplies)), None)


def own_error_code(call_id: str | None, events: Sequence[Event]) -> str | None:
    """The code of an error result `events` hold for call `call_id` whose code is none of those
    SPEC gives the results the loop writes (`LOOP_ERROR_CODES`), else None: a code the loop made
    up itself, or a tool body's own failure code (a `ToolFailed`'s, such as EACCES), which a
    caller tells apart by whether the body ran."""
    for event in events:
        if event.get("type") == "tool/result" and call_id_of(event) == call_id:
            code = error_code(event)
            if is_error(event) and code is not None and code not in LOOP_ERROR_CODES:
                return str(code)
    return None


def target_log_so_far(
    history: Sequence[Event],
    target_events: Sequence[Event],
    model_events: Sequence[Event] | None = None,
) -> list[Event]:
    """What the target logged so far, as the probes blaming a divergence continue it: the
    model's `history` (this command's events included, as `classify` has it) without this
    command's events, the two logs having agreed up to this command, then the target's of this
    command, `target_events`. This command's model events are `model_events` where the caller
    has them (the last of `history`), else those from the seq the target's events start at;
    `history` is kept whole where none carries an integer seq."""
    if model_events is not None:
        return [*history[: len(history) - len(model_events)], *target_events]
    seqs = [e.get("seq") for e in target_events]
    first = next((seq for seq in seqs if isinstance(seq, int)), None)
    kept = [e for e in history if first is None or _seq_before(e, first)]
    return [*kept, *target_events]


def _seq_before(event: Event, seq: int) -> bool:
    own = event.get("seq")
    return isinstance(own, int) and own < seq


@attrs.frozen
class ModelStep:
    """One command of a program replayed on the model: its number (from 1), the state before
    it and after it (the same state, with the model's refusal, where the model refused it)."""

    number: int
    sent: Command
    before: LoopState
    after: LoopState
    refusal: TransitionRefused | None = None


def model_steps(program: Sequence[Command], config: LoopConfig) -> list[ModelStep]:
    """`program` replayed on the model from `config`: a step per command, in order (the readers
    that ask what the model did at an earlier command: took it, started a body, refused it)."""
    state, steps = LoopState(config), list[ModelStep]()
    for number, sent in enumerate(program, start=1):
        try:
            after = step(state, sent)
        except TransitionRefused as refusal:
            steps.append(ModelStep(number, sent, state, state, refusal))
            continue
        steps.append(ModelStep(number, sent, state, after))
        state = after
    return steps


def state_after(steps: Sequence[ModelStep], config: LoopConfig) -> LoopState:
    """The model's state once `steps` (`model_steps` from `config`) are replayed."""
    return steps[-1].after if steps else LoopState(config)
