"""EXE-2: `arguments_are_an_object` (HOOK-4's question, asked by the checker of every hooked call
of a reply) answers as `parse_arguments`, which it shortcuts, reads the arguments."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopspec.model import json_text, jsonvalue
from loopspec.model.json_text import loads
from loopspec.model.jsonvalue import FrozenMap, parse_arguments
from loopspec.model.prefix import arguments_are_an_object

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


# What json.loads reads around, or refuses in, a value: whitespace json skips and whitespace it
# does not, a byte-order mark, two values, constants, an integer past Python's digit limit, and
# nesting past the recursion limit.
LOADS_EDGES = [
    *EDGES,
    " \t\n\r1 \t\n\r",
    "\u00a01",
    "1\u00a0",
    "\ufeff{}",
    "1 2",
    "{} x",
    "-Infinity",
    '"\\ud800"',
    '"a\tb"',
    "1" * 5000,
    "[" * 100_000 + "]" * 100_000,
]


def _outcome(raw: str, parse: Callable[[str], object]) -> tuple[str, str]:
    """What `parse` makes of `raw`: its value, written by json (NaN as NaN), or its error's type
    and message."""
    try:
        return "value", json.dumps(parse(raw))
    except (ValueError, RecursionError) as error:
        return type(error).__name__, str(error)


@pytest.mark.parametrize("raw", LOADS_EDGES)
def test_EXE_2_loads_reads_as_json_loads_on_edge_cases(raw: str) -> None:
    """`loads`, which reads hooked calls' arguments without importing json, gives json.loads's
    value or its very error."""
    assert _outcome(raw, loads) == _outcome(raw, json.loads)


# Coverage off: the edge cases above cover every model arc this does.
@pytest.mark.no_cover
@settings(max_examples=300, deadline=None)
@given(st.one_of(_VALUES.map(json.dumps), st.text(alphabet=' \t\n{}[]":,0-9.eE\\tnul', max_size=8)))
def test_EXE_2_loads_reads_as_json_loads(raw: str) -> None:
    assert _outcome(raw, loads) == _outcome(raw, json.loads)


def _parsed_afresh(raw: str) -> object:
    """What `parse_arguments` gives `raw`, parsed anew (its kept parses set aside)."""
    kept = dict(jsonvalue._PARSED_ARGUMENTS)
    jsonvalue._PARSED_ARGUMENTS.clear()
    try:
        return parse_arguments(raw)
    finally:
        jsonvalue._PARSED_ARGUMENTS.clear()
        jsonvalue._PARSED_ARGUMENTS.update(kept)


@pytest.mark.parametrize("raw", EDGES)
def test_EXE_2_arguments_read_again_are_read_alike(raw: str) -> None:
    """A text's arguments, parsed once for every reader of it, are what each would parse."""
    first = parse_arguments(raw)
    assert parse_arguments(raw) == first == _parsed_afresh(raw)


def test_EXE_2_a_call_s_arguments_are_parsed_once_for_every_reader() -> None:
    """conform's model, its rewrite check, the loop's presenter and the generator each parsed
    the same call's arguments: the second reader gets the first one's value."""
    raw = '{"file_path": "read once.txt", "offset": 3}'
    assert parse_arguments(raw) is parse_arguments(raw)


def test_EXE_2_arguments_kept_are_few_and_short() -> None:
    """The parses kept stay a few hundred, of short texts: a long run's every call is not."""
    texts = [f'{{"n": {n}}}' for n in range(3 * jsonvalue._PARSED_ARGUMENTS_KEPT)]
    for text in texts:
        assert parse_arguments(text) == FrozenMap({"n": int(text[6:-1])})
    assert len(jsonvalue._PARSED_ARGUMENTS) <= jsonvalue._PARSED_ARGUMENTS_KEPT
    long = json.dumps({"content": "x" * jsonvalue._PARSED_ARGUMENTS_LONGEST})
    assert parse_arguments(long) == FrozenMap(
        {"content": "x" * jsonvalue._PARSED_ARGUMENTS_LONGEST}
    )
    assert long not in jsonvalue._PARSED_ARGUMENTS


# `arguments_are_an_object` reads a text opening with "{" with `value_of`'s scanner itself, and
# leaves the rest to `value_of`: generated arguments around that path, each judged as
# `parse_arguments` reads it.
_SPACE = st.text(alphabet=" \t\n\r\u00a0\ufeff", max_size=2)
_MEMBERS = st.dictionaries(st.text(max_size=3), _VALUES, max_size=3)


@st.composite
def _argument_texts(draw: st.DrawFn) -> str:
    members = draw(_MEMBERS)
    indent = draw(st.none() | st.integers(0, 2))
    text = json.dumps(members, ensure_ascii=draw(st.booleans()), indent=indent)
    match draw(st.sampled_from(["alone", "key twice", "torn", "spaced", "followed", "other"])):
        case "alone":
            return text
        case "key twice":  # the last value counts, as json reads it
            key = json.dumps(draw(st.text(max_size=2)))
            first, second = (json.dumps(draw(_VALUES)) for _ in range(2))
            return f"{{{key}: {first}, {key}:{second}}}"
        case "torn":
            return text[: draw(st.integers(0, len(text)))]
        case "spaced":
            return draw(_SPACE) + text + draw(_SPACE)
        case "followed":
            return text + draw(st.text(max_size=2))
        case _:
            return json.dumps(draw(_VALUES))


# Past the scanner's reach (nested deeper than the stack allows), the text is not an object.
FAST_PATH_EDGES = [
    '{"a":' * 50_000 + "1" + "}" * 50_000,
    '{"a": "\\ud800"}',
    '{"a": "x"}x',
    '{"a": "x"} ',
    '{"a": "x"}\n',
    '{"a": "x"}{}',
    '{"a": 1}',
    '{"a": -0.0, "a": "x"}',
    '{"a": "x", "a": -0.0}',
    "{null}",
]


@pytest.mark.parametrize("raw", FAST_PATH_EDGES)
def test_EXE_2_arguments_read_on_the_scanner_s_path_on_edge_cases(raw: str) -> None:
    json_text.value_of("{}")  # the scanner made, as any check has by a hooked call's reply
    assert json_text.SCANNERS
    assert arguments_are_an_object(raw) == _as_parsed(raw)


@pytest.mark.no_cover
@settings(max_examples=500, deadline=None)
@given(_argument_texts())
def test_EXE_2_arguments_read_on_the_scanner_s_path_as_parse_arguments_reads_them(raw: str) -> None:
    json_text.value_of("{}")
    assert arguments_are_an_object(raw) == _as_parsed(raw)
