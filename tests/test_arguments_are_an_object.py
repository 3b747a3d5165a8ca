"""EXE-2: `arguments_are_an_object` (HOOK-4's question, asked by the checker of every hooked call
of a reply) answers as `parse_arguments`, which it shortcuts, reads the arguments."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopspec.model.invariants import arguments_are_an_object
from loopspec.model.jsonvalue import FrozenMap, parse_arguments

# Objects whose values `freeze` refuses (NaN, infinities, -0), nested or not, next to ones it
# keeps, blank text (read as {}), and text that is no JSON.
EDGES = [
    "",
    "  ",
    "{",
    "{}",
    " {} ",
    "[]",
    '"{}"',
    "NaN",
    '{"a": NaN}',
    '{"a": Infinity}',
    '{"a": -Infinity}',
    '{"a": 1e400}',
    '{"a": -0.0}',
    '{"a": {"b": -0.0}}',
    '{"a": [NaN]}',
    '{"a": 1, "b": true, "c": null, "d": "x"}',
    '{"a": "x", "a": NaN}',
]

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)


def _as_parsed(raw: str) -> bool:
    return isinstance(parse_arguments(raw), FrozenMap)


@pytest.mark.parametrize("raw", EDGES)
def test_EXE_2_arguments_are_an_object_on_edge_cases(raw: str) -> None:
    assert arguments_are_an_object(raw) == _as_parsed(raw)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(max_examples=500, deadline=None)
@given(st.one_of(_VALUES.map(json.dumps), st.text(max_size=8)))
def test_EXE_2_arguments_are_an_object_as_parse_arguments_reads_them(raw: str) -> None:
    assert arguments_are_an_object(raw) == _as_parsed(raw)
