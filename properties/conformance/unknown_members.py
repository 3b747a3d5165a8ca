"""Members a target's event holds that its type does not define, told apart from what it says.

A reader keeps a member it does not know, unread (an object's `extra`, an event's envelope
rest: `loopspec.model.log_layout`), so a loop writing one of its own (a trace id, a key
misspelt beside the right one) breaks no rule a reader checks; conform compares events member
for member, and such a member read as whatever rule the event's kind falls to (a user/message's
as ADJ-4's queue order, a reply's as STEP-4's blocks, a result's as EXE-4's outcome). Here the
event is stripped of them, level by level as its layout nests (envelope, data, message, its
source and content blocks, a tool result's blocks), for blame/ to name them where nothing
else differs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from loopspec.model.log_layout import (
    BLOCK_CLASSES,
    ENVELOPE_KEYS,
    EVENT_LAYOUTS,
    MESSAGE_SOURCES,
    EventLayout,
    log_object,
)
from loopspec.properties.conformance.event_fields import Event

_LAYOUTS_BY_TYPE: dict[str, EventLayout] = {
    layout.type: layout for layout in EVENT_LAYOUTS.values()
}
_BLOCK_MEMBERS: dict[object, tuple[str, ...]] = {
    tag[1]: log_object(cls).known
    for cls in BLOCK_CLASSES
    if (tag := log_object(cls).tag) is not None
}


def without_unknown_members(want: Event, got: Event) -> tuple[Event, list[str]]:
    """`got` without the members its type does not define and the model's `want` lacks, and
    where each was (`data.message.x`); `got` whole and no place when its type is not one of
    the core vocabulary's."""
    layout = _LAYOUTS_BY_TYPE.get(str(want.get("type")))
    if layout is None:
        return dict(got), []
    found: list[str] = []
    stripped = _kept(got, want, ENVELOPE_KEYS, "", found)
    data, model = got.get("data"), want.get("data")
    if not isinstance(data, dict) or not isinstance(model, dict):
        return stripped, found
    if layout.data_field is not None and layout.data_field.target is not None:
        # A user/message: its data is the message itself.
        stripped["data"] = _message(data, model, layout.data_field.target, "data.", found)
        return stripped, found
    kept = _kept(data, model, layout.data.known, "data.", found)
    field = next((f for f in layout.data.fields if f.wire == "message" and f.target), None)
    message = kept.get("message")
    if field is not None and field.target is not None and isinstance(message, dict):
        kept["message"] = _message(
            message, model.get("message"), field.target, "data.message.", found
        )
    stripped["data"] = kept
    return stripped, found


def _kept(
    held: dict[str, Any], model: object, known: Sequence[str], where: str, found: list[str]
) -> dict[str, Any]:
    """`held` without the keys neither `known` nor the model's object `model` holds, each added
    to `found` under its place `where`."""
    mine = model if isinstance(model, dict) else {}
    extra = sorted(key for key in held if key not in known and key not in mine)
    found.extend(where + (key if key.isidentifier() else json.dumps(key)) for key in extra)
    return {key: value for key, value in held.items() if key not in extra}


def _message(
    held: dict[str, Any], model: object, cls: type, where: str, found: list[str]
) -> dict[str, Any]:
    """A message of class `cls` without its unknown members, its source's and its blocks'."""
    kept = _kept(held, model, log_object(cls).known, where, found)
    mine = model if isinstance(model, dict) else {}
    source = kept.get("source")
    shapes = MESSAGE_SOURCES.get(cls, {})
    kind = source.get("kind") if isinstance(source, dict) else None
    if isinstance(source, dict) and isinstance(kind, str) and kind in shapes:
        known = ("kind", *shapes[kind])
        kept["source"] = _kept(source, mine.get("source"), known, f"{where}source.", found)
    if "content" in kept:
        kept["content"] = _blocks(kept["content"], mine.get("content"), f"{where}content", found)
    return kept


def _blocks(held: object, model: object, where: str, found: list[str]) -> object:
    """Content blocks without their unknown members (a tool result's own blocks too), each
    held to the model's block at its place; `held` as it is where the two lists differ in
    length (what differs then is not a member)."""
    if not isinstance(held, list) or not isinstance(model, list) or len(held) != len(model):
        return held
    kept: list[object] = []
    for index, (block, mine) in enumerate(zip(held, model, strict=True)):
        kind = block.get("type") if isinstance(block, dict) else None
        # A "type" that is no string (a list, an object) is unhashable: no block's, kept as is.
        if not isinstance(block, dict) or not isinstance(kind, str) or kind not in _BLOCK_MEMBERS:
            kept.append(block)
            continue
        at = f"{where}[{index}]."
        stripped = _kept(block, mine, _BLOCK_MEMBERS[kind], at, found)
        if kind == "tool-result" and isinstance(mine, dict) and "content" in stripped:
            inner = mine.get("content")
            stripped["content"] = _blocks(stripped["content"], inner, f"{at}content", found)
        kept.append(stripped)
    return kept
