"""Hook contexts (additionalContext) a target delivers otherwise than the model: with a refused
outcome, an aborted success or a block, empty, left out or lost."""

from __future__ import annotations

import json
from collections.abc import Sequence

from loopspec.model.commands import Command, PostBlock, PostContext, ToolFinishes, ToolSucceeded
from loopspec.model.config import LoopConfig
from loopspec.model.json_text import spelled
from loopspec.model.state import Dispatching, LoopState
from loopspec.properties.conformance.blame.history import model_steps, state_after
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of, error_code

# ADJ-4's word on a delivered context whose text is empty, wherever a comparison meets one.
NO_CONTEXT = (
    "an empty context (\"\"), which is no context, a tool body's or a PostToolUse hook's: "
    "nothing is queued or delivered for it"
)


def context_of_a_refused_outcome(
    message: Event, config: LoopConfig | None, program: Sequence[Command]
) -> str | None:
    """Why a queued context the model does not deliver came from a refused command, in words:
    only a ToolFinishes the model refused (as the target did: the run went on past it) carried
    its text, as the body's context or a PostToolUse hook's; None otherwise. (A loop that
    queues an outcome's contexts before judging the outcome was told they wait for the next
    step, which they did.)"""
    data = data_of(message)
    source = data.get("source")
    content = data.get("content")
    if config is None or not (isinstance(source, dict) and source.get("kind") == "plugin"):
        return None
    if not (isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict)):
        return None
    text = content[0].get("text")
    # Which outcomes the model refused: the program replayed (only here, where a context the
    # model does not deliver may be one).
    steps = model_steps(program[:-1], config)
    state = state_after(steps, config)
    refused = [
        (replayed.number, replayed.refusal)
        for replayed in steps
        if replayed.refusal is not None
        and isinstance(replayed.sent, ToolFinishes)
        and text in _contexts_of(replayed.sent)
    ]
    # The model holds it too (an accepted outcome's, queued or waiting for its result to
    # commit), or this command brings it: which one the target delivered is moot. One an
    # accepted outcome carried that the model delivered already, or a crash lost, is not:
    # conform's programs give an outcome for a settled call a context of its own
    # (`swarm.refused_context`), but a case written by hand may repeat the accepted one's.
    if not refused or _holds_context(state, text) or _carries(program[-1:], text):
        return None
    number, refusal = refused[-1]
    return (
        f"its text {spelled(text)} is a context of command #{number}, an outcome the model "
        f"refused ({refusal.rule_id}: {refusal.message}), as the target did; a refused command "
        "changes nothing, and the target queued its context all the same (judge an outcome "
        "before queueing anything it carries)"
    )


def _holds_context(state: LoopState, text: object) -> bool:
    """Whether `text` is queued in `state`, or among a finished call's contexts whose result
    has yet to commit."""
    if any(queued.text == text for queued in state.inbox):
        return True
    phase = state.phase
    slots = phase.slots if isinstance(phase, Dispatching) else ()
    return any(slot.result is not None and text in slot.result.contexts for slot in slots)


def _carries(commands: Sequence[Command], text: object) -> bool:
    """Whether an outcome among `commands` carries `text` as a context."""
    return any(isinstance(sent, ToolFinishes) and text in _contexts_of(sent) for sent in commands)


def _contexts_of(finished: ToolFinishes) -> tuple[str, ...]:
    """The contexts an outcome carries: its body's own, then its PostToolUse hooks'."""
    own = finished.outcome.contexts if isinstance(finished.outcome, ToolSucceeded) else ()
    hooks = tuple(verdict.text for verdict in finished.post if isinstance(verdict, PostContext))
    return (*own, *hooks)


def excerpt_json(value: object, limit: int = 80) -> str:
    """`value` as JSON, cut after `limit` characters."""
    text = json.dumps(value)
    return text if len(text) <= limit else f"{text[:limit]}..."


def block_types(message: Event) -> list[object] | None:
    """The `type` of each block of a user/message's content, or None where it has no list."""
    content = data_of(message).get("content")  # a user/message's data is the message itself
    if not isinstance(content, list):
        return None
    return [block.get("type") if isinstance(block, dict) else None for block in content]


def holds_no_text_alone(message: Event) -> bool:
    """Whether a user/message's content is no list of text blocks: no list, an empty one, or a
    block of another type (several text blocks are contexts merged, ADJ-4's)."""
    types = block_types(message)
    return not types or any(kind != "text" for kind in types)


def empty_context(message: Event) -> bool:
    """Whether `message` is a queued context whose text is empty, which ADJ-4 says is none."""
    data = data_of(message)  # a user/message's data is the message itself
    source = data.get("source") or {}
    content = data.get("content")
    return (
        isinstance(source, dict)
        and source.get("kind") == "plugin"
        and isinstance(content, list)
        and bool(content)
        and all(isinstance(block, dict) and block.get("text") == "" for block in content)
    )


def context_of_an_aborted_success(
    message: Event | None, program: Sequence[Command], history: Sequence[Event]
) -> str | None:
    """The id of a call whose body succeeded after an abort (its result ABORTED in the model's
    log, `history`) with a context `message` delivers as a tool context; None otherwise. A loop
    queueing contexts as bodies finish delivers it, where the result the model commits is the
    abort's."""
    data = data_of(message)
    if data.get("source") != {"kind": "plugin", "plugin": "tool-context"}:
        return None
    content = data.get("content") or []
    texts = {block.get("text") for block in content if isinstance(block, dict)}
    aborted = {
        call_id_of(event)
        for event in history
        if event.get("type") == "tool/result" and error_code(event) == "ABORTED"
    }
    for sent in program:
        if (
            isinstance(sent, ToolFinishes)
            and sent.call_id in aborted
            and isinstance(sent.outcome, ToolSucceeded)
            and texts & set(sent.outcome.contexts)
        ):
            return sent.call_id
    return None


def context_of_a_block(message: Event, command: Command, *, hooks: bool) -> bool:
    """Whether `message` is a context of the call `command` settles with a PostToolUse block:
    one of its hooks' contexts (`hooks`), which survive the block, else one of its body's own,
    which the block drops (DEC-3)."""
    if not isinstance(command, ToolFinishes):
        return False
    if not any(isinstance(verdict, PostBlock) for verdict in command.post):
        return False
    data = data_of(message)  # a user/message's data is the message itself
    source = data.get("source") or {}
    if source.get("kind") != "plugin":
        return False
    if hooks:
        given = [verdict.text for verdict in command.post if isinstance(verdict, PostContext)]
    else:
        outcome = command.outcome
        given = list(outcome.contexts) if isinstance(outcome, ToolSucceeded) else []
    content = data.get("content") or []
    texts = [block.get("text") for block in content if isinstance(block, dict)]
    return any(text in given for text in texts)


def message_left_out(message: Event, events: Sequence[Event], history: Sequence[Event]) -> bool:
    """Whether `events` (the target's for this command) carry fewer user/messages with
    `message`'s content than the model delivers at its last step/start (`history`): one is
    lost, not moved. Two hooks may give the same words."""
    content = json.dumps(data_of(message).get("content"))

    def count(among: Sequence[Event]) -> int:
        return sum(
            e.get("type") == "user/message" and json.dumps(data_of(e).get("content")) == content
            for e in among
        )

    starts = [i for i, event in enumerate(history) if event.get("type") == "step/start"]
    return count(events) < count(history[starts[-1] :] if starts else history)


def lost_after_a_block_with_context(message: Event, history: Sequence[Event]) -> bool:
    """Whether `message`, a context the step that just ended queued, follows a step where one
    call's PostToolUse hooks both blocked its result and gave a context (audited `block` and
    `allow`): a loop that drops the blocked call's hook contexts with its body's loses it at
    the step's end, which may be a later call's command (DEC-3)."""
    if (data_of(message).get("source") or {}).get("kind") != "plugin":
        return False
    starts = [i for i, event in enumerate(history) if event.get("type") == "step/start"]
    if len(starts) < 2:
        return False
    said: dict[object, set[object]] = {}
    for event in history[starts[-2] : starts[-1]]:
        data = data_of(event)
        if event.get("type") == "hook/result" and data.get("point") == "PostToolUse":
            said.setdefault(data.get("callId"), set()).add(data.get("decision"))
    return any({"block", "allow"} <= decisions for decisions in said.values())
