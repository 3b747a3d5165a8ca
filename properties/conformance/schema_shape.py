"""A JSON value's shape under a JSON Schema: the value with each part the schema cannot tell
from another made one canonical value, so values of one shape get one verdict.

`ProcessTarget` remembers events found valid (a check costs 0.2-1 ms). Remembered by their
JSON, an event of a new turn, step or call, or with another text, was checked again: half of
the js-loop's events were. Most of an event's data is leaves the schema asks only a type and a
bound of (a turn is an integer of at least 1, a call id a non-empty string, a text any string):
every value that keeps the bound is valid there alike, and the shape holds the least such value
instead. What the schema says in any other way (`const`, `enum`, `not`, an untagged `oneOf`, a
`pattern`, ...) is kept as it is.

`shaper(schema, defs)` compiles a schema into a function from a value to its shape, or to
`UNKNOWN` when a leaf breaks its bound or a value is not the object or list its schema asks for
(the caller then asks the schema). For every value `v` with a shape, `v` is valid exactly when
its shape is, by induction over the forms handled:

- a leaf `{"type": "integer" | "number" | "string"}` with at most `minimum` / `minLength`: the
  shape is that bound's least value (valid), given only for a value that keeps the bound;
- `{"type": "object"}` with at most `required`, `properties` and `additionalProperties: false`:
  the same keys (so `required` and `additionalProperties: false` hold alike), each listed member
  shaped by its schema, any other member as it is;
- `{"type": "array"}` with at most `items`, `minItems`, `maxItems`: the same length, each item
  shaped;
- a lone `$ref` into `defs`: the schema it names;
- `oneOf` / `anyOf` of object schemas each requiring a `type` member of its own `const`: a value
  whose `type` is one of them fails every other branch, before and after shaping, so it is
  shaped by that branch alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

UNKNOWN: Final = object()
"""What a value without a shape is shaped to: the schema must decide."""

Shaper = Callable[[object], object]

_LEAF_TYPES: Final = {"integer": int, "number": (int, float), "string": str}
_OBJECT_WORDS: Final = frozenset({"type", "required", "properties", "description"})
_ARRAY_WORDS: Final = frozenset({"type", "items", "minItems", "maxItems", "description"})
_LEAF_WORDS: Final = frozenset({"type", "minimum", "minLength", "description"})


def _object_words(schema: dict[str, Any]) -> bool:
    """Whether an object schema says no more than `_object` keeps: the shape has the value's
    keys, so a closed object (`additionalProperties: false`) holds a shape exactly when it
    holds the value."""
    closed = schema.get("additionalProperties", False) is False
    return closed and set(schema) <= _OBJECT_WORDS | {"additionalProperties"}


def shaper(schema: object, defs: Mapping[str, Any]) -> Shaper:
    """The function from a value to its shape under `schema` (`$ref`s resolved in `defs`, the
    schema's `$defs`)."""
    return _compiled(schema, defs, frozenset())


def _as_is(value: object) -> object:
    return value


def _compiled(schema: object, defs: Mapping[str, Any], resolving: frozenset[str]) -> Shaper:
    if not isinstance(schema, dict):
        return _as_is
    words = set(schema) - {"description"}
    if words == {"$ref"}:
        return _reference(schema["$ref"], defs, resolving)
    if len(words) == 1 and words <= {"oneOf", "anyOf"}:
        return _tagged(schema[words.pop()], defs, resolving)
    kind = schema.get("type")
    if not isinstance(kind, str):  # a list of types (`["string", "null"]`), or none
        return _as_is
    if kind == "object" and _object_words(schema):
        return _object(schema.get("properties", {}), defs, resolving)
    if kind == "array" and set(schema) <= _ARRAY_WORDS and isinstance(schema.get("items"), dict):
        return _array(_compiled(schema["items"], defs, resolving))
    if kind in _LEAF_TYPES and set(schema) <= _LEAF_WORDS:
        return _leaf(str(kind), schema.get("minimum"), schema.get("minLength"))
    return _as_is


def _reference(ref: object, defs: Mapping[str, Any], resolving: frozenset[str]) -> Shaper:
    """The schema `ref` names, when it is `#/$defs/...` and names one (a reference met again
    inside itself is kept as it is: no schema here is recursive)."""
    if not isinstance(ref, str) or not ref.startswith("#/$defs/") or ref in resolving:
        return _as_is
    target: object = defs
    for part in ref.removeprefix("#/$defs/").split("/"):
        if not isinstance(target, dict) or part not in target:
            return _as_is
        target = target[part]
    return _compiled(target, defs, resolving | {ref})


def _object(properties: object, defs: Mapping[str, Any], resolving: frozenset[str]) -> Shaper:
    if not isinstance(properties, dict):
        return _as_is
    members = {name: _compiled(sub, defs, resolving) for name, sub in properties.items()}

    def shape(value: object) -> object:
        if not isinstance(value, dict):
            return UNKNOWN
        shaped = {}
        for name, item in value.items():
            member = members.get(name)
            shaped[name] = item if member is None else member(item)
            if shaped[name] is UNKNOWN:
                return UNKNOWN
        return shaped

    return shape


def _array(item_shape: Shaper) -> Shaper:
    def shape(value: object) -> object:
        if not isinstance(value, list):
            return UNKNOWN
        shaped = [item_shape(item) for item in value]
        return UNKNOWN if any(item is UNKNOWN for item in shaped) else shaped

    return shape


def _leaf(kind: str, minimum: object, min_length: object) -> Shaper:
    """A leaf's shape: the least value its bound allows, for a value that keeps it."""
    if kind == "string":
        if min_length is not None and (type(min_length) is not int or min_length < 0):
            return _as_is
        least_length = min_length or 0
        least_text = "x" * least_length

        def text(value: object) -> object:
            return least_text if type(value) is str and len(value) >= least_length else UNKNOWN

        return text
    if minimum is not None and type(minimum) is not int:
        return _as_is
    least = minimum or 0
    # JSON Schema's integer takes 1.0 too, and its number takes no bool; such a value, or a
    # float where an integer is asked, is left to the schema.
    allowed = (int,) if kind == "integer" else (int, float)

    def number(value: object) -> object:
        if type(value) not in allowed:
            return UNKNOWN
        assert isinstance(value, int | float)
        return least if least <= value else UNKNOWN

    return number


def _tagged(branches: object, defs: Mapping[str, Any], resolving: frozenset[str]) -> Shaper:
    """`oneOf`/`anyOf` whose branches are told apart by their `type` member's `const`."""
    if not isinstance(branches, list):
        return _as_is
    by_tag: dict[str, Shaper] = {}
    for branch in branches:
        tag = _tag(branch)
        if tag is None or tag in by_tag:
            return _as_is
        by_tag[tag] = _compiled(branch, defs, resolving)

    def shape(value: object) -> object:
        tag = value.get("type") if isinstance(value, dict) else None
        chosen = by_tag.get(tag) if isinstance(tag, str) else None
        return UNKNOWN if chosen is None else chosen(value)

    return shape


def _tag(branch: object) -> str | None:
    """The `const` a branch asks of a `type` member it requires, when it is an object schema
    shaped member by member (any other branch cannot be chosen by its tag alone)."""
    if not isinstance(branch, dict) or branch.get("type") != "object":
        return None
    if not _object_words(branch) or "type" not in branch.get("required", ()):
        return None
    asked = branch.get("properties", {}).get("type")
    if not isinstance(asked, dict) or set(asked) - {"description"} != {"const"}:
        return None
    tag = asked["const"]
    return tag if isinstance(tag, str) else None
