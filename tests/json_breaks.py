"""A JSON value broken in one place: every place inside it, and the value changed at one.

The codec tests hold a decoder to its published schema this way (`test_command_codec`,
`test_log_schema`): whatever one break does, the two must agree.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

Place = tuple[str | int, ...]
DROP = object()  # as the new value: remove the member instead of replacing it
_Value = TypeVar("_Value")


def places(value: object, path: Place = ()) -> list[Place]:
    """Every key and index inside a JSON value, as paths."""
    found: list[Place] = []
    if isinstance(value, dict):
        for key, item in value.items():
            found += [(*path, key), *places(item, (*path, key))]
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += [(*path, index), *places(item, (*path, index))]
    return found


def broken(value: _Value, place: Place, how: object) -> _Value:
    """A copy of `value` with the member at `place` set to `how` (added, if it was absent), or
    removed when `how` is `DROP`."""
    copy: _Value = json.loads(json.dumps(value))
    parent: Any = copy
    for step in place[:-1]:
        parent = parent[step]
    if how is DROP:
        del parent[place[-1]]
    else:
        parent[place[-1]] = how
    return copy
