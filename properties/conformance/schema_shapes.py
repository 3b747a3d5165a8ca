"""Shapes shared by the JSON Schemas loopspec generates (the session log's, `log_schema`, and
the driver protocol's, `driver_protocol`), so both spell a tagged union and a class's
description the same way."""

from __future__ import annotations

from typing import Any


def tagged(
    key: str, variants: list[tuple[object, dict[str, Any]]], *, closed: bool = True
) -> dict[str, Any]:
    """Variants told apart by the value of `key`, so a validation error names the field that
    is wrong in the variant the tag selects (not "valid under none of the given schemas")."""
    tag: dict[str, Any] = {"enum": [value for value, _ in variants]} if closed else {}
    return {
        "type": "object",
        "required": [key],
        "properties": {key: tag},
        "allOf": [
            {"if": {"properties": {key: {"const": value}}, "required": [key]}, "then": schema}
            for value, schema in variants
        ],
    }


def described(schema: dict[str, Any], cls: type) -> dict[str, Any]:
    """`schema` with the first line of `cls`'s docstring as its description."""
    doc = (cls.__doc__ or "").strip().split("\n")[0]
    return {**schema, "description": doc} if doc else schema
