"""What one side answered a command, in plain words: the events it appended, each result with
the words the model reads in it.

A hand-written case asks a question (docs/tutorial.md section 4: what does a call with invalid
input say when it follows one still running?), and a replay that passes said only "no
divergence": the answer, the results' words, was printed nowhere. Event types alone
("appended tool/result, tool/result") do not answer it either.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from loopspec.properties.conformance.target import Observation

# A result's words are cut after so many characters: the line says what it is, `--format json`
# or the diff of a divergence holds the whole.
_SHOWN = 160


def answer_words(observation: Observation) -> str:
    """`refused it (RULE)`, or `appended EVENT, ...` with each result's call, error code and
    words, and the bodies it started."""
    if not observation.accepted:
        return f"refused it ({observation.refusal_rule or 'no rule'})"
    events = [event_words(event) for event in observation.events]
    did = f"appended {', '.join(events)}" if events else "appended nothing"
    if observation.executed:
        started = [call_id for call_id, _ in observation.executed]
        calls = "call" if len(started) == 1 else "calls"
        did += f"; started running {calls} {', '.join(started)}"
    return did


def event_words(event: Mapping[str, Any]) -> str:
    """An event's type; a call's id with it; a result's call, error code and text."""
    kind = str(event.get("type"))
    data = event.get("data")
    if not isinstance(data, Mapping):
        return kind
    if kind == "tool/call":
        return f"{kind} {data.get('callId')}"
    if kind != "tool/result":
        return kind
    message = data.get("message")
    source = message.get("source") if isinstance(message, Mapping) else None
    call_id = source.get("callId") if isinstance(source, Mapping) else None
    if call_id is None:  # no result message the words could come from
        return kind
    error = data.get("error")
    code = f" {error.get('code')}" if isinstance(error, Mapping) else ""
    text = " ".join(_texts(message))
    if len(text) > _SHOWN:
        text = text[: _SHOWN - 3] + "..."
    return f"{kind} {call_id}{code}: {json.dumps(text, ensure_ascii=False)}"


def _texts(message: object) -> list[str]:
    """The text parts of a result message's tool-result blocks."""
    content = message.get("content") if isinstance(message, Mapping) else None
    texts = []
    for block in content if isinstance(content, list) else ():
        parts = block.get("content") if isinstance(block, Mapping) else None
        for part in parts if isinstance(parts, list) else ():
            if isinstance(part, Mapping) and part.get("type") == "text":
                texts.append(str(part.get("text")))
    return texts
