"""PROTO-1: a JSON Schema error is said in the spelling of the JSON it judged.

jsonschema says `None`, `True` and `'x'`; a target's, a bridge's or a case's author wrote
`null`, `true` and `"x"`. Each keyword loopspec's schemas use is held to JSON's spelling here,
the keywords said anew and the others respelt at their start.
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from loopspec.properties.json_schema_words import schema_error_words


@pytest.mark.parametrize(
    ("schema", "instance", "said"),
    [
        ({"type": "boolean"}, None, 'null is not of type "boolean"'),
        ({"type": ["string", "null"]}, True, 'true is not of type "string", "null"'),
        ({"enum": [True, False]}, None, "null is not one of [true, false]"),
        ({"const": "case"}, "caes", '"case" was expected'),
        # What shows nothing is escaped, as repr escaped it; other letters are left as written.
        ({"enum": ["a-b"]}, "a\u200bb", '"a\\u200bb" is not one of ["a-b"]'),
        ({"type": "integer"}, "déjà", '"déjà" is not of type "integer"'),
        ({"pattern": "^[A-Z]+-[0-9]+$"}, "x", '"x" does not match "^[A-Z]+-[0-9]+$"'),
        ({"required": ["a", "b"]}, {"a": None}, '"b" is a required property'),
        (
            {"properties": {"a": {}}, "additionalProperties": False},
            {"a": 1, "z": None, "y": True},
            'Additional properties are not allowed ("y", "z" were unexpected)',
        ),
        ({"minLength": 1}, "", '"" should be non-empty'),
        ({"minItems": 1}, [], "[] should be non-empty"),
        ({"maxItems": 1}, [None, False], "[null, false] is too long"),
        ({"minimum": 0}, -1, "-1 is less than the minimum of 0"),
        (
            {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            {"k": None},
            '{"k": null} is not valid under any of the given schemas',
        ),
    ],
)
def test_PROTO_1_a_schema_error_names_values_as_json_writes_them(
    schema: dict[str, Any], instance: object, said: str
) -> None:
    (error,) = Draft202012Validator(schema).iter_errors(instance)
    assert schema_error_words(error) == said
