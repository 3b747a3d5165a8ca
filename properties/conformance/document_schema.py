"""JSON documents written from attrs classes, and their JSON Schema, from the one definition.

A `--format json` document is an attrs class (`report_documents`): `converter` (cattrs, its
unstructure functions generated per class) writes an instance as JSON, each field under its
name in camelCase, and `schema_of` gives the JSON Schema of what it writes, from the same
fields. A field's metadata (`member`) says what the field means, and whether it is left out of
the document when it holds nothing (None, or an empty list) rather than written as null; a
field holding driver-protocol JSON names the protocol's definition it follows.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Final, Literal

import attrs
import cattrs
from cattrs.gen import make_dict_unstructure_fn, override

_MEANING: Final = "loopspec.meaning"
_OMITTED_EMPTY: Final = "loopspec.omitted_empty"
_PROTOCOL_DEF: Final = "loopspec.protocol_def"
_CHOICES: Final = "loopspec.choices"


def member(
    meaning: str,
    *,
    omitted_empty: bool = False,
    protocol_def: str | None = None,
    choices: tuple[str, ...] | None = None,
) -> dict[str, object]:
    """A field's metadata: what it means; `omitted_empty`, left out when it holds nothing
    (its default, None or an empty list); `protocol_def`, driver-protocol JSON of that
    definition (`loopspec schema`'s `$defs`); `choices`, the only strings it may hold."""
    return {
        _MEANING: meaning,
        _OMITTED_EMPTY: omitted_empty,
        _PROTOCOL_DEF: protocol_def,
        _CHOICES: choices,
    }


def wire_name(name: str) -> str:
    """A field's name in the document: `shrink_runs` is `shrinkRuns`."""
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def _unstructure_factory(cls: type, converter: cattrs.Converter) -> Any:
    overrides: dict[str, Any] = {
        field.name: override(
            rename=wire_name(field.name),
            omit_if_default=bool(field.metadata.get(_OMITTED_EMPTY)),
        )
        for field in attrs.fields(cls)
    }
    return make_dict_unstructure_fn(cls, converter, **overrides)


def _make_converter() -> cattrs.Converter:
    made = cattrs.Converter()
    made.register_unstructure_hook_factory(attrs.has, lambda cls: _unstructure_factory(cls, made))
    return made


converter: Final = _make_converter()


def _type_schema(annotation: object, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a field's type: JSON's own types, lists, string-keyed maps, unions
    with None, Literal strings and further document classes (into `defs`)."""
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if annotation is Any or annotation is object:
        return {}
    if isinstance(annotation, type) and attrs.has(annotation):
        name = annotation.__name__
        if name not in defs:
            defs[name] = {}  # a class met again while building its own schema
            defs[name] = _class_schema(annotation, defs)
        return {"$ref": f"#/$defs/{name}"}
    if origin is Literal:
        return {"enum": list(arguments)}
    if origin in (types.UnionType, typing.Union):
        return {"anyOf": [_type_schema(argument, defs) for argument in arguments]}
    if origin is list:
        return {"type": "array", "items": _type_schema(arguments[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _type_schema(arguments[1], defs)}
    simple = {str: "string", bool: "boolean", int: "integer", float: "number", type(None): "null"}
    if annotation in simple:
        return {"type": simple[annotation]}
    raise LookupError(f"no JSON Schema for {annotation!r}")


def _class_schema(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in attrs.fields(cls):
        protocol_def = field.metadata.get(_PROTOCOL_DEF)
        schema = (
            _type_schema(hints[field.name], defs)
            if protocol_def is None
            else _protocol_shaped(hints[field.name], protocol_def)
        )
        choices = field.metadata.get(_CHOICES)
        if choices is not None:
            schema = {"enum": list(choices)}
        properties[wire_name(field.name)] = {**schema, "description": field.metadata[_MEANING]}
        if not field.metadata.get(_OMITTED_EMPTY):
            required.append(wire_name(field.name))
    return {
        "type": "object",
        "description": _docstring_text(cls),
        "required": required,
        "properties": properties,
        "additionalProperties": False,
    }


def _docstring_text(cls: type) -> str:
    """`cls`'s docstring with no line indented: Python 3.13 removes the indentation when it
    compiles a docstring and 3.11 and 3.12 keep it, so the schema read differently by version."""
    return "\n".join(line.strip() for line in (cls.__doc__ or "").strip().splitlines())


def _protocol_shaped(annotation: object, definition: str) -> dict[str, Any]:
    """A field of driver-protocol JSON: one `definition`, or a list of them."""
    reference = {"$ref": f"#/$defs/{definition}"}
    if typing.get_origin(annotation) is list:
        return {"type": "array", "items": reference}
    return reference


def schema_of(
    classes: tuple[type, ...], title: str, protocol_defs: dict[str, Any]
) -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of the documents `converter` writes from `classes` (one
    of them: a verb that writes one of several documents), with the driver protocol's
    definitions their fields refer to."""
    defs: dict[str, Any] = dict(protocol_defs)
    if len(classes) == 1:
        top = _class_schema(classes[0], defs)
    else:
        top = {"oneOf": [_type_schema(cls, defs) for cls in classes]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        **top,
        "$defs": defs,
    }
