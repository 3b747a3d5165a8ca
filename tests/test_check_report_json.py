"""`loopspec check --format json` writes its document as `json.dump(document, out, indent=2)`
would, without importing json (`report.json_text`, by `json_text.json_dumps`, which also shows
the values a Claude Code or Codex log's violation names as `json.dumps(value, sort_keys=True)`
would): the same text for any JSON value, and json's own answer, error included, for a value it
leaves to json."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopspec.model.json_text import json_dumps
from loopspec.properties.logcheck.report import json_text

_KEYS = st.text(alphabet=st.characters(exclude_categories=()), max_size=4)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([1 << 64, -(10**300), 0.0, -0.0, 1e300, 5e-324, float("inf"), -float("inf")]),
    st.floats(),  # NaN among them
    _KEYS,
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(_KEYS, inner, max_size=3),
    ),
    max_leaves=12,
)


# Coverage off: test_a_fixed_document_is_written_as_json_writes_it reaches every model arc it does.
@pytest.mark.no_cover
@settings(max_examples=400, deadline=None)
@given(document=_VALUES)
def test_a_json_value_is_written_as_json_writes_it(document: object) -> None:
    assert json_text(document) == json.dumps(document, indent=2)


# Coverage off: test_a_fixed_document_is_written_as_json_writes_it reaches every model arc it does.
@pytest.mark.no_cover
@settings(max_examples=300, deadline=None)
@given(document=_VALUES, indent=st.sampled_from([None, 0, 2, 4]), sort_keys=st.booleans())
def test_a_json_value_is_laid_out_as_json_lays_it_out(
    document: object, indent: int | None, sort_keys: bool
) -> None:
    said = json.dumps(document, indent=indent, sort_keys=sort_keys)
    assert json_dumps(document, indent=indent, sort_keys=sort_keys) == said


# A document of every kind of value the random tests above draw (each scalar, empty and nested
# lists, tuples and objects, keys to sort), written each way they write it, with coverage's
# tracer on: they run without it (it doubled their CPU), and this reaches every arc of
# loopspec.model they reach, so make test's coverage report holds it.
_EVERY_KIND = {
    "z": ['é\n"\\\u2028', "", None, True, False, 0, -7, 1 << 64, -(10**300)],
    "b": [1.5, 0.0, -0.0, 1e300, 5e-324, float("nan"), float("inf"), -float("inf")],
    "a": [[], (), {}, [[1, (2, 3)], {"y": {"x": []}}]],
    "": {"k": ("v",)},
}


@pytest.mark.parametrize("indent", [None, 0, 2])
@pytest.mark.parametrize("sort_keys", [False, True])
def test_a_fixed_document_is_written_as_json_writes_it(indent: int | None, sort_keys: bool) -> None:
    for document in (_EVERY_KIND, *_EVERY_KIND.values(), "text", None, 1.5, []):
        said = json.dumps(document, indent=indent, sort_keys=sort_keys)
        assert json_dumps(document, indent=indent, sort_keys=sort_keys) == said
        assert json_text(document) == json.dumps(document, indent=2)


# Keys json writes as strings (numbers, booleans, null) and values it refuses: left to json.
@pytest.mark.parametrize(
    "document",
    [
        {"counts": {1: 2, 2.5: 1, False: 0, None: 3}},
        [{"a": 1}, {7: "seven"}],
    ],
    ids=["other-keys", "a-later-other-key"],
)
def test_a_key_json_converts_is_left_to_json(document: object) -> None:
    assert json_text(document) == json.dumps(document, indent=2)
    assert json_dumps(document) == json.dumps(document)


@pytest.mark.parametrize("document", [{"a": {1, 2}}, [b"bytes"], {("a",): 1}])
def test_a_value_json_refuses_is_refused_as_json_refuses_it(document: object) -> None:
    with pytest.raises(TypeError) as ours:
        json_text(document)
    with pytest.raises(TypeError) as theirs:
        json.dumps(document, indent=2)
    assert str(ours.value) == str(theirs.value)
