"""The readers of Claude Code and Codex logs parse JSON without importing json where they can
(`jsonvalue.loads_refusing`, `foreign._first_record`): each gives what `json.loads` gives, value
or error, for any text, so a transcript reads the same whichever way it went."""

from __future__ import annotations

import json
from collections.abc import Callable

from hypothesis import example, given, settings
from hypothesis import strategies as st

from loopspec.model.jsonvalue import loads_refusing
from loopspec.properties.logcheck.foreign import _first_record


def _refuse(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _outcome(read: Callable[..., object], *args: object) -> tuple[str, str]:
    """What `read(*args)` gives: its value, shown (NaN is unequal to itself), or its error."""
    try:
        return "value", repr(read(*args))
    except (ValueError, RecursionError) as error:
        return type(error).__name__, str(error)


_JSON_TEXTS = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=4)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
).map(json.dumps)  # NaN and the infinities written as json writes them
# Texts near JSON: cut short, with something after them, spaced, or a token json reads alone.
_TEXTS = st.one_of(
    _JSON_TEXTS,
    _JSON_TEXTS.map(lambda text: text[: len(text) // 2]),
    st.tuples(_JSON_TEXTS, st.sampled_from(["", " ", "\n", " x", "}", "\ufeff", "\t\r"])).map(
        "".join
    ),
    st.sampled_from(["NaN", "-Infinity", '{"a": NaN}', '"NaN"', "\ufeff{}", "[1,]", ""]),
    st.text(max_size=8),
)


@example(text='{"a": Infinity}')
@settings(max_examples=500, deadline=None)
@given(text=_TEXTS)
def test_loads_refusing_reads_as_json_does(text: str) -> None:
    ours = _outcome(loads_refusing, text, _refuse)
    assert ours == _outcome(lambda t: json.loads(t, parse_constant=_refuse), text)


@example(line='{"a": 1}'.encode("utf-16-le"))  # json reads it as UTF-16, by its NUL bytes
@example(line='{"a": "\udc80"}'.encode("utf-8", "surrogatepass"))  # not strict UTF-8
@example(line=b"\xef\xbb\xbf{}")  # a byte order mark
@settings(max_examples=500, deadline=None)
@given(
    line=st.one_of(
        _TEXTS.map(str.encode),
        _TEXTS.map(lambda text: text.encode("utf-16")),
        st.binary(max_size=8).map(lambda tail: b"{" + tail),
    )
)
def test_a_first_line_reads_as_json_reads_it(line: bytes) -> None:
    assert _outcome(_first_record, line) == _outcome(json.loads, line)
