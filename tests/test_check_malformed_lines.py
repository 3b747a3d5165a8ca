"""`loopspec check` on a line that is not JSON, run as a user runs it: in a fresh interpreter.

The checker reads lines with json's C scanner without importing json's decoder (start-up,
tests/test_check_startup.py). Python 3.11's scanner reports most malformed values through
`json.decoder.JSONDecodeError`, which it looks up among the modules already imported: in a fresh
interpreter it found none and raised SystemError, a traceback. A test process has json's decoder
loaded already, so only a new interpreter shows it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from loopspec.model.repeated_keys import keys_may_repeat, repeated_key

HEADER = {"type": "session", "version": 0, "id": "s", "createdAt": 0, "cwd": "/w"}
TURN = {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}}
MISSING_COMMA = '{"type": "step/start" "seq": 1}'


@pytest.mark.parametrize(
    ("lines", "at"),
    [
        ([json.dumps(HEADER), json.dumps(TURN), MISSING_COMMA], 3),
        ([MISSING_COMMA], 1),
    ],
    ids=["after-a-dsh-header", "first-line"],
)
def test_LOG_4_check_names_a_malformed_line_in_one_line_not_a_traceback(
    tmp_path: Path, lines: list[str], at: int
) -> None:
    """LOG-4: a line whose JSON misses a comma is an invalid-json error naming its file and
    line, exit 2 (it ended in "SystemError: <_json.Scanner object ...> returned NULL without
    setting an exception", exit 1, on Python 3.11)."""
    log = tmp_path / "bad.jsonl"
    log.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "loopspec", "check", str(log)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{log}:{at}: error invalid-json LOG-4: " in done.stdout, done.stdout


# A key given twice in one object: each reader keeps the last, so the first is lost (LOG-3).
_keys = st.sampled_from(["a", "b", "a:", ':"', "\\", 'x" :'])
# Members as `json.dumps` writes them and as a hand writes them (space before the colon).
_colons = st.sampled_from([":", ": ", " :", "\t:"])
_json_texts = st.recursive(
    st.sampled_from(["1", '"x:y"', '"\\\\"', '"\\":"', '"\\" "', "null", "[]", "{}"]),
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda items: f"[{', '.join(items)}]")
        | st.lists(st.tuples(_keys, _colons, inner), max_size=3).map(
            lambda members: "{" + ",".join(f"{json.dumps(k)}{c}{v}" for k, c, v in members) + "}"
        )
    ),
    max_leaves=8,
)


@pytest.mark.no_cover
@given(_json_texts)
@example('{"\\\\":1,"\\\\":2}')  # a key ending in an escaped backslash: `\\":` ends it
@example('{"a" :1,"a" :2}')  # space before the colon
@example('{"a"\t:1,"a"\t:2}')
@example('{"s":"\\":","s":"x"}')  # an escaped quote and a colon in a string
def test_LOG_3_the_quick_test_for_a_repeated_key_misses_none(text: str) -> None:
    """LOG-3: `keys_may_repeat`, which spares a reader a walk of every text, never says no key
    repeats where one does (colons and quotes in keys and strings, space before a colon); and
    `repeated_key` finds a repeat exactly when json's own parse drops a member."""
    value = json.loads(text)
    dropped: list[bool] = []

    def members(pairs: list[tuple[str, object]]) -> dict[str, object]:
        dropped.append(len({key for key, _ in pairs}) < len(pairs))
        return dict(pairs)

    json.loads(text, object_pairs_hook=members)
    found = repeated_key(text, value)
    assert (found is not None) == any(dropped), (text, found)
    if any(dropped):
        assert keys_may_repeat(text, value), text
