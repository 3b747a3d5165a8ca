"""The readers of logs parse JSON without importing json where they can
(`json_text.loads_refusing`, `foreign._first_record`, `jsonvalue.parse_arguments`): each gives
what `json.loads` gives, value or error (a call's arguments json refuses: kept as they are), for
any text, so a log reads the same whichever way it went. A first line too long to read whole is
recognised as `re` matches `foreign`'s patterns, without re."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from loopspec.model.json_text import loads_refusing, same_json
from loopspec.model.jsonvalue import EMPTY, freeze, parse_arguments
from loopspec.properties.logcheck.foreign import (
    CLAUDE_SESSION,
    CLAUDE_START,
    CODEX_START,
    _claude_start,
    _codex_start,
    _first_record,
    _names_a_session,
)


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
# Texts near JSON: cut short, with something before or after them, spaced, or a token json
# reads alone.
_TEXTS = st.one_of(
    _JSON_TEXTS,
    _JSON_TEXTS.map(lambda text: text[: len(text) // 2]),
    st.tuples(_JSON_TEXTS, st.sampled_from(["", " ", "\n", " x", "}", "\ufeff", "\t\r"])).map(
        "".join
    ),
    st.tuples(st.sampled_from([" ", "\n\t", "\r ", "\ufeff", "x"]), _JSON_TEXTS).map("".join),
    st.sampled_from(["NaN", "-Infinity", '{"a": NaN}', '"NaN"', "\ufeff{}", "[1,]", ""]),
    st.text(max_size=8),
)


# Coverage off: test_fixed_texts_read_as_json_reads_them reaches every arc of the model this does.
@pytest.mark.no_cover
@example(text='{"a": Infinity}')
@settings(max_examples=500, deadline=None)
@given(text=_TEXTS)
def test_loads_refusing_reads_as_json_does(text: str) -> None:
    ours = _outcome(loads_refusing, text, _refuse)
    assert ours == _outcome(lambda t: json.loads(t, parse_constant=_refuse), text)


# Coverage off: test_fixed_texts_read_as_json_reads_them reaches every arc of the model this does.
@pytest.mark.no_cover
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


# The pieces a first line too long to read whole is recognised by, and what may stand between.
_PIECES = st.sampled_from(
    [
        b"{", b"}", b'"', b":", b",", b" ", b"\t", b"\n", b"\r", b"\v", b"\f", b"x", b"\\",
        b'"timestamp"', b'"type"', b'"parentUuid"', b'"sessionId"', b'"seq"', b"session_meta",
        b'response_item"', b"event_msg", b'turn_context"', b'"2026-12-01T12:00:00.000Z"',
    ]
)  # fmt: skip
_GAPS = st.lists(st.sampled_from([b" ", b"\t", b"\n", b"\r", b"\v", b"\f", b"x"]), max_size=2)


def _line(*pieces: list[bytes] | None) -> st.SearchStrategy[bytes]:
    """Lines made of `pieces`, one of each list, with space (or not) where a piece is None."""
    return st.tuples(
        *(_GAPS.map(b"".join) if piece is None else st.sampled_from(piece) for piece in pieces)
    ).map(b"".join)


_HEADS = st.one_of(
    st.lists(_PIECES, max_size=14).map(b"".join),
    _line(
        None, [b"{"], None, [b'"timestamp"', b'"type"'], None, [b":", b","], None,
        [b'"t"', b'""', b'"'], None, [b",", b":"], None, [b'"type"', b'"timestamp"'], None,
        [b":"], None, [b'"session_meta"', b'"event_msg"', b'"turn_context"', b'"response_item',
        b'"session"', b'session_meta"'],
    ),
    _line(
        None, [b"{"], None, [b'"parentUuid"', b'"type"', b'"sessionId"', b'"uuid"'], None,
        [b":", b","], None, [b"null", b'"s"'], [b",", b""], None, [b'"sessionId"', b'"session"'],
        None, [b":", b""], None, [b'"s"', b"1"], [b"", b'"sessionId":"'],
    ),
)  # fmt: skip


# Coverage off: it reads bytes in properties/ only, and coverage measures loopspec.model.
@pytest.mark.no_cover
@example(head=b'{"timestamp":"t","type":"session_meta","payload":{}}')
@example(head=b' {\n"timestamp" : "" , "type":\t"turn_context"')
@example(head=b'{"parentUuid":null,"sessionId":"s"}')
@example(head=b'{ "type" : "user", "x": 1, "sessionId" :"s"}')
@settings(max_examples=1000, deadline=None)
@given(head=_HEADS)
def test_a_long_first_line_is_recognised_as_the_patterns_say(head: bytes) -> None:
    assert _codex_start(head) == bool(re.match(CODEX_START, head))
    assert _claude_start(head) == bool(re.match(CLAUDE_START, head))
    assert _names_a_session(head) == bool(re.search(CLAUDE_SESSION, head))


def _arguments_as_json_reads_them(raw: str) -> object:
    """`parse_arguments` as it read arguments with json.loads (EXE-2)."""
    if raw.strip() == "":
        return EMPTY
    try:
        return freeze(json.loads(raw))
    except (ValueError, RecursionError):  # NotJsonError is a ValueError
        return raw


# Coverage off: test_fixed_texts_read_as_json_reads_them reaches every arc of the model this does.
@pytest.mark.no_cover
@example(raw='{"path": "a.txt"')  # cut short: no JSON, kept as the raw string
@example(raw="[" * 100_000)  # deeper than the stack
@settings(max_examples=500, deadline=None)
@given(raw=_TEXTS)
def test_arguments_are_parsed_as_json_parses_them(raw: str) -> None:
    assert repr(parse_arguments(raw)) == repr(_arguments_as_json_reads_them(raw))


# The texts the random tests above reach every line and branch of `jsonvalue` and `json_text`
# with, fixed, so that those tests may run without coverage's tracer (it tripled their CPU: they
# drive those readers thousands of times) and `make test`'s coverage report still holds what
# they reach: each text goes through the three comparisons they make.
_FIXED_TEXTS = (
    *("null", "true", "false", "0", "-12", "1.5", "-0.0", "1e400", "2e-3", '"a"', '""'),
    *('"\\u00e9\\n\\"\\\\"', '"\\ud83d\\ude00"', '"\\ud800"', '"\\x"', '"a\nb"', "[]", "{}"),
    *('[1, "a", [null, {"k": [true, 2.5]}]]', '{"a": {"b": [1, {"c": {}}]}, "d": []}'),
    *('{"a": 1, "a": 2}', '{"a": 1,}', "[1,]", "[1 2]", '{"a" 1}', "{1: 2}", "[", "]", "{"),
    *("NaN", "-Infinity", "Infinity", '{"a": NaN}', '{"a": Infinity}', '"NaN"', "[-Infinity]"),
    *("", " ", "\n\t\r ", " {}", "{} ", "\ufeff{}", "{}\ufeff", " x", "x", "}", "{} x", "tru"),
    *('{"path": "a.txt"', '{"path": "a.txt"}\n', "1" * 5000, "-" + "9" * 4301, "[" * 100_000),
    *("[" * 500 + "]" * 500, '{"a": 1e999}', "01", "-", "1.", ".5", "1e", '"\t"', "\x00"),
)


def test_fixed_texts_read_as_json_reads_them() -> None:
    """Each comparison of the random tests above on fixed texts, the tracer on (see above)."""
    for text in _FIXED_TEXTS:
        ours = _outcome(loads_refusing, text, _refuse)
        assert ours == _outcome(lambda t: json.loads(t, parse_constant=_refuse), text), text
        for line in (text.encode(errors="surrogatepass"), text.encode("utf-16")):
            assert _outcome(_first_record, line) == _outcome(json.loads, line), line
        assert repr(parse_arguments(text)) == repr(_arguments_as_json_reads_them(text)), text
    # More texts than `parse_arguments` keeps: it forgets what it kept and starts again.
    for number in range(300):
        assert parse_arguments(f"[{number}]") == (number,)
    assert parse_arguments("[299]") is parse_arguments("[299]")  # kept since


class _Text(str):
    """A string of another type: `same_json` holds values of two types apart but numbers."""

    __slots__ = ()


@pytest.mark.parametrize(
    ("left", "right", "same"),
    [
        ("a", "a", True),
        ("1", 1, False),
        ("true", True, False),
        ("a", _Text("a"), False),  # the string read first keeps the types' test
        ({"command": "ls", "n": 1}, {"n": 1.0, "command": "ls"}, True),
        ({"command": "ls", "all": True}, {"command": "ls", "all": 1}, False),  # read in a loop
        ({"command": "ls"}, {"cmd": "ls"}, False),
        ([1, "a", None], [1.0, "a", None], True),
        ([0], [False], False),
    ],
)
def test_same_json_holds_true_apart_from_1_and_strings_apart_from_other_types(
    left: object, right: object, same: bool
) -> None:
    """`json_text.same_json`, strings read first and an object's members in a loop, answers as
    section 2 compares arguments: a number by its value, true not 1, key order aside."""
    assert same_json(left, right) is same
    assert same_json(right, left) is same
