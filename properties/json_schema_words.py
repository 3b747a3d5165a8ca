"""A JSON Schema error in the words of the JSON it judged.

jsonschema writes its messages with Python's `repr`: `True`, `None`, `'x'`, `[True, False]`.
The people who read them wrote JSON (a driver-protocol target, an ACP bridge, a case file),
where those are `true`, `null`, `"x"` and `[true, false]`. `schema_error_words` says the same
thing in JSON's spelling, built from the error's parts rather than its message.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

from loopspec.model.json_text import spelled


def _listed(values: Iterable[object]) -> str:
    return ", ".join(map(spelled, values))


def schema_error_words(error: Any) -> str:
    """The message of `error`, a `jsonschema.ValidationError`, with every value spelt as JSON.

    The keywords loopspec's schemas use are said anew from the error's instance and schema
    value; any other keyword keeps jsonschema's words, the judged value at their start
    respelt (they all begin with it)."""
    instance, expected = error.instance, error.validator_value
    match error.validator:
        case "type":
            types = [expected] if isinstance(expected, str) else list(expected)
            return f"{spelled(instance)} is not of type {_listed(types)}"
        case "enum":
            return f"{spelled(instance)} is not one of {spelled(expected)}"
        case "const":
            return f"{spelled(expected)} was expected"
        case "pattern":
            return f"{spelled(instance)} does not match {spelled(expected)}"
        case "required":
            return f"{spelled(_required_name(error))} is a required property"
        case "additionalProperties" if expected is False and isinstance(instance, dict):
            extras = _additional_properties(instance, error.schema)
            if extras:
                verb = "was" if len(extras) == 1 else "were"
                return (
                    f"Additional properties are not allowed ({_listed(extras)} {verb} unexpected)"
                )
    said = str(error.message)
    spelt_by_python = repr(instance)
    if said.startswith(spelt_by_python):
        return spelled(instance) + said[len(spelt_by_python) :]
    return said


def _required_name(error: Any) -> object:
    """The absent property `error` (one per property) is about: its message begins with the
    name's repr, the only place jsonschema keeps which one it is."""
    spelt = str(error.message).removesuffix(" is a required property")
    try:
        return ast.literal_eval(spelt)
    except (ValueError, SyntaxError):
        return spelt


def _additional_properties(instance: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """The keys of `instance` that neither `properties` nor `patternProperties` of `schema`
    admits, in jsonschema's order."""
    named = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return sorted(
        key
        for key in instance
        if key not in named and not any(re.search(pattern, key) for pattern in patterns)
    )
