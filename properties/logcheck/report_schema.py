"""The JSON Schema of what `loopspec check --format json` writes, made from the shapes its
writer writes from (`logcheck.check_document`): `loopspec schema check` prints it.

A module of its own, not imported by `check`: the schema is made only when asked for.
"""

from __future__ import annotations

from typing import Any

from loopspec.properties.logcheck.check_document import DOCUMENT, Shape


def check_schema() -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of the document `loopspec check --format json` writes:
    every object closed (`additionalProperties: false`), each key described."""
    defs: dict[str, Any] = {}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "loopspec check --format json",
        **_object_schema(DOCUMENT, defs),
        "$defs": defs,
    }


def _object_schema(shape: Shape, defs: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "description": shape.meaning,
        "required": [key.name for key in shape.keys if not key.optional],
        "properties": {
            key.name: {**_resolved(key.schema, defs), "description": key.meaning}
            for key in shape.keys
        },
        "additionalProperties": False,
    }


def _resolved(fragment: object, defs: dict[str, Any]) -> Any:
    """`fragment` with each `Shape` in it a reference to its definition (made into `defs`) and
    each class of string constants (`checker.ErrorKind`) the enum of its values."""
    if isinstance(fragment, Shape):
        if fragment.name not in defs:
            defs[fragment.name] = _object_schema(fragment, defs)
        return {"$ref": f"#/$defs/{fragment.name}"}
    if isinstance(fragment, type):
        return {
            "enum": [
                value
                for name, value in vars(fragment).items()
                if not name.startswith("_") and isinstance(value, str)
            ]
        }
    if isinstance(fragment, dict):
        return {name: _resolved(value, defs) for name, value in fragment.items()}
    if isinstance(fragment, list | tuple):
        return [_resolved(value, defs) for value in fragment]
    return fragment
