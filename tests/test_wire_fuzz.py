"""The wire codec never fails in an undocumented way (LOG-4), whatever a log line holds."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from spec_helpers import run, wire, with_hooks

from loopspec.model.commands import (
    Ask,
    HookAnswers,
    ModelReplies,
    PostPass,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec
from loopspec.model.errors import InvalidEventError
from loopspec.model.events import Event
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.model.wire import event_from_wire, event_to_wire

CONFIG = with_hooks(HookSpec("h", "PreToolUse", "bash"), HookSpec("p", "PostToolUse", "read"))
SAMPLES: list[dict[str, Any]] = wire(
    run(
        CONFIG,
        [
            SubmitUser("go"),
            ModelReplies(
                (
                    ReasoningBlock("think"),
                    TextBlock("ok"),
                    ToolCallBlock("c1", "bash", '{"command":"ls"}'),
                    ToolCallBlock("c2", "read", '{"file_path":"a"}'),
                )
            ),
            HookAnswers(Ask("sure?", {"command": "ls -a"})),
        ],
    ).log
) + wire(
    run(
        CONFIG,
        [
            SubmitUser("go"),
            ModelReplies((ToolCallBlock("c2", "read", '{"file_path":"a"}'),)),
            ToolFinishes("c2", ToolSucceeded("A", meta={"n": 1}), (PostPass(),)),
        ],
    ).log
)

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.text(max_size=3),
    st.just([]),
    st.just({}),
    st.just([{"type": "text"}]),
    st.just(1.5),
)


def _paths(value: object, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*prefix, index)))
    return found


@given(st.sampled_from(SAMPLES), st.data())
def test_LOG_4_any_damaged_event_is_read_or_refused_cleanly(
    sample: dict[str, Any], data: st.DataObject
) -> None:
    """LOG-4: replace or delete any field: the reader returns an event or InvalidEventError."""
    obj = copy.deepcopy(sample)
    path = data.draw(st.sampled_from(_paths(obj)))
    parent: Any = obj
    for key in path[:-1]:
        parent = parent[key]
    if data.draw(st.booleans()) and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(junk)
    outcome = _read(obj)
    if isinstance(outcome, InvalidEventError):
        assert outcome.rule_id
    else:
        again = json.loads(json.dumps(event_to_wire(outcome)))
        assert event_from_wire(again) == outcome


def _read(obj: object) -> Event | InvalidEventError:
    try:
        return event_from_wire(obj)
    except InvalidEventError as error:
        return error
