"""Blame words a Java loop written from the docs alone met while adding capabilities.

Each test replays, on the model, the one difference that loop had, and checks that the report
names the rule and says what the rule wants, so the author can fix it from the words alone.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import attrs
import pytest
from test_blame_post_audit import _model_events

from loopspec.model.commands import (
    Command,
    ModelReplies,
    PostContext,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.errors import InvalidEventError
from loopspec.model.facts import FactError, fact_from_wire
from loopspec.model.messages import ToolCallBlock
from loopspec.model.wire import event_from_wire
from loopspec.properties.cli.main import main
from loopspec.properties.conformance.blame.classify import classify
from loopspec.properties.conformance.target import Observation
from loopspec.properties.conformance.value_notes import value_notes
from loopspec.properties.stateful.strategies import CONFIGS

# A read judged by the `audit` PostToolUse hook.
HOOKED = CONFIGS[1]
CONTEXT_ADDED: list[Command] = [
    SubmitUser("read it"),
    ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),)),
    ToolFinishes("c1", ToolSucceeded("A"), (PostContext("note"),)),
]


def _with_post_word(word: str) -> tuple[str, str]:
    """The rule and words for the model's last observation with its hook/result's word changed."""
    history, expected = _model_events(CONTEXT_ADDED, HOOKED)
    events = list(expected.events)
    index = next(i for i, e in enumerate(events) if e["type"] == "hook/result")
    assert events[index]["data"]["decision"] == "allow"
    events[index] = {**events[index], "data": {**events[index]["data"], "decision": word}}
    actual = attrs.evolve(expected, events=tuple(events))
    return classify(
        CONTEXT_ADDED[-1], "Dispatching", expected, actual, target_violations=(),
        history=tuple(history),
    )  # fmt: skip


def test_TEXT_2_a_post_context_audited_pass_is_told_which_word_the_answer_records() -> None:
    """TEXT-2: a PostToolUse context recorded `pass` (the word the Java loop guessed) where the
    answer's own word is `allow` is TEXT-2's, and the report says which word each answer
    records; it spoke only of durationMs, exitCode and stderrSummary, which did not differ."""
    rule, what = _with_post_word("pass")
    assert rule == "TEXT-2", what
    assert "'allow' for a context" in what, what
    assert "durationMs" not in what, what


def test_PROTO_1_a_lone_surrogate_written_as_question_mark_gets_a_note_to_escape_it() -> None:
    """PROTO-1: a card whose rawInput holds a lone surrogate (EXE-2 reads `"x\\ud800"` in a call's
    arguments as a string holding one) came back from the Java loop as `"x?"`: Java's UTF-8
    encoder writes `?` for a character that has no UTF-8 form. RW-1 was blamed with no note
    (presented messages were not looked at); the note now says to write it as a `\\u` escape."""
    card = {"method": "session/update", "params": {"update": {"rawInput": {"pattern": "x\ud800"}}}}
    changed = {"method": "session/update", "params": {"update": {"rawInput": {"pattern": "x?"}}}}
    notes = value_notes(
        Observation(True, presented=(card,)), Observation(True, presented=(changed,))
    )
    assert len(notes) == 1, notes
    assert "U+D800" in notes[0], notes[0]
    assert "presented[0].params.update.rawInput.pattern" in notes[0], notes[0]
    assert "lone surrogate" in notes[0], notes[0]
    assert "\\ud800" in notes[0], notes[0]


def test_LOG_4_a_turn_written_back_as_a_double_is_told_why() -> None:
    """LOG-4: the Java loop's crash repair read its log back with every number a double (as Gson
    does) and wrote the turn/end's turn as 1.0; the refusal said only that the field must be an
    integer, and conform's diff showed nothing (1 and 1.0 compare equal). It now gives the value
    and says that a number with a fraction is no integer, and where such a 1.0 comes from."""
    line = {"type": "turn/end", "seq": 3, "time": 3, "data": {"turn": 1.0, "reason": {"kind": "x"}}}
    with pytest.raises(InvalidEventError) as refused:
        event_from_wire(line)
    with pytest.raises(FactError) as unread:  # the reader check and conform's log check use
        fact_from_wire(line)
    for error in (refused.value, unread.value):
        said = str(error)
        assert error.rule_id == "LOG-4"
        assert "data.turn must be an integer, got 1.0" in said, said
        assert "Gson" in said, said


# Answers reset, then, as a JVM whose worker thread threw while main waits on it: writes that
# thread's uncaught exception to stderr and never answers, not reading its input either.
THREAD_DIED = (
    "import sys, time; sys.stdin.readline();"
    'print(\'{"type": "ready", "implementation": "x", "capabilities": []}\', flush=True);'
    "sys.stdin.readline();"
    'sys.stderr.write(\'Exception in thread "Thread-0" java.lang.IllegalStateException: log'
    " unreadable\\n\\tat Loop.lambda$main$3(Loop.java:1106)\\n'); sys.stderr.flush();"
    "time.sleep(30)"
)


def test_PROTO_1_a_thread_dead_of_an_uncaught_exception_is_not_told_to_wait_longer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: the Java loop ran each command in a worker thread, which threw; the JVM printed
    the exception and lived on, its main thread waiting for the worker's answer. The report said
    "no answer ... within 10 s (to wait longer: --answer-timeout S)", which never helps: it now
    says a thread died of an uncaught exception, and to catch it and answer."""
    command = shlex.join([sys.executable, "-c", THREAD_DIED])
    cases = str(tmp_path / "cases")
    assert main(["conform", "--cmd", command, "--answer-timeout", "2", "--case-dir", cases]) == 2
    said = capsys.readouterr().err
    assert 'its thread "Thread-0" died of an uncaught exception' in said, said
    assert "to wait longer" not in said, said
