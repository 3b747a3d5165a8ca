"""`derive_messages`: the model-visible history, replayed from the log (rules HIST-1, LOG-7).

History is read from the *surface*: the ordered seqs of surface events. An `append` pushes its seq;
a `replace {start, end}` swaps the nodes from `start` to `end` (inclusive, in surface order) for its
own seq. Each node's message is in the history, except an assistant message with no content block
(it only carries usage), which stays a surface node but is left out of the history. Every
non-surface event is invisible. Derivation never repairs or invents anything: a log that breaks
adjacency derives a history that breaks it too, which is exactly what the invariants then report.
"""

from __future__ import annotations

from collections.abc import Iterable

from loopspec.model.errors import InvalidEventError
from loopspec.model.events import (
    AssistantMessageRecorded,
    Event,
    SurfaceAppend,
    SurfaceReplace,
    ToolResultRecorded,
    UserMessageRecorded,
)
from loopspec.model.messages import Message


def surface_nodes(
    log: Iterable[Event],
) -> list[UserMessageRecorded | AssistantMessageRecorded | ToolResultRecorded]:
    """The surface events currently in history, in surface order."""
    nodes: list[UserMessageRecorded | AssistantMessageRecorded | ToolResultRecorded] = []
    for event in log:
        if not isinstance(
            event, UserMessageRecorded | AssistantMessageRecorded | ToolResultRecorded
        ):
            continue
        match event.surface:
            case SurfaceAppend():
                nodes.append(event)
            case SurfaceReplace(start=start, end=end):
                positions = {node.seq: index for index, node in enumerate(nodes)}
                if (
                    start not in positions
                    or end not in positions
                    or positions[start] > positions[end]
                ):
                    msg = f"seq {event.seq} replaces {start}..{end}, which are not current nodes"
                    raise InvalidEventError(msg, rule_id="LOG-7")
                nodes[positions[start] : positions[end] + 1] = [event]
    return nodes


def derive_messages(log: Iterable[Event]) -> tuple[Message, ...]:
    """The history the next model request must carry."""
    messages: list[Message] = []
    for node in surface_nodes(log):
        if isinstance(node, AssistantMessageRecorded) and not node.message.content:
            continue
        messages.append(node.message)
    return tuple(messages)
