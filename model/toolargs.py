"""Typed readers for tool arguments.

Presenters read the parsed arguments through these functions; any value of the wrong shape raises
`ArgumentShapeError`, which the presenter fallback turns into the generic view (rule VIEW-3).
A JSON `null` for an optional field counts as absent.
"""

from __future__ import annotations

from loopspec.model.jsonvalue import FrozenMap, JsonValue


class ArgumentShapeError(ValueError):
    """The arguments do not have the shape a presenter expects."""


def object_fields(arguments: JsonValue) -> FrozenMap:
    """The arguments as a JSON object (a raw string from invalid JSON is not one)."""
    if isinstance(arguments, FrozenMap):
        return arguments
    raise ArgumentShapeError(f"expected a JSON object, got {type(arguments).__name__}")


def required_str(fields: FrozenMap, key: str) -> str:
    """A string field that must be present."""
    value = fields.get(key)
    if isinstance(value, str):
        return value
    raise ArgumentShapeError(f"{key!r} must be a string")


def optional_str(fields: FrozenMap, key: str) -> str | None:
    """A string field that may be absent."""
    value = fields.get(key)
    if value is None or isinstance(value, str):
        return value
    raise ArgumentShapeError(f"{key!r} must be a string when present")


def optional_bool(fields: FrozenMap, key: str) -> bool | None:
    """A boolean field that may be absent."""
    value = fields.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise ArgumentShapeError(f"{key!r} must be a boolean when present")


def optional_int(fields: FrozenMap, key: str, *, minimum: int) -> int | None:
    """An integer field (not a bool, not a float) at least `minimum`, or absent."""
    value = fields.get(key)
    if value is None:
        return None
    # bool is an int subclass in Python but not a JSON integer.
    if type(value) is int and value >= minimum:
        return value
    raise ArgumentShapeError(f"{key!r} must be an integer >= {minimum} when present")


def required_array(fields: FrozenMap, key: str) -> tuple[JsonValue, ...]:
    """An array field that must be present."""
    value = fields.get(key)
    if isinstance(value, tuple):
        return value
    raise ArgumentShapeError(f"{key!r} must be an array")
