"""What a Rust loop written from the docs alone (std only, its own JSON reader) met.

Each test stands in for that loop with a small Python process doing what it did, since a Rust
toolchain is not something the tests may assume.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import attrs
import pytest
from test_blame_java_outsider import HOOKED
from test_blame_post_audit import _model_events

from loopspec.model.commands import (
    Command,
    ModelReplies,
    PostBlock,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.cli.main import main
from loopspec.properties.conformance.blame.classify import classify
from loopspec.properties.conformance.process_target import _thread_died
from loopspec.properties.conformance.target import Observation
from loopspec.properties.conformance.value_notes import number_note, value_notes

# As a Rust loop whose main thread reads stdin and hands each line to a worker thread, which
# writes the answers: the worker panicked on reset, and main went back to reading its input.
WORKER_PANICKED = (
    "import sys; sys.stdin.readline();"
    "sys.stderr.write(\"thread '<unnamed>' (1345) panicked at src/main.rs:10:41:\\n"
    'index out of bounds: the len is 0 but the index is 0\\n"'
    '"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\\n");'
    "sys.stderr.flush(); sys.stdin.readline()"
)


def _conform_error(program: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """What conform prints when it drives `program` (Python) as a --cmd target, which breaks."""
    command = shlex.join([sys.executable, "-c", program])
    cases = str(tmp_path / "cases")
    assert main(["conform", "--cmd", command, "--answer-timeout", "1", "--case-dir", cases]) == 2
    return capsys.readouterr().err


def test_PROTO_1_a_worker_thread_that_panicked_is_not_called_an_unflushed_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: the Rust loop's worker thread panicked while its main thread, alive, waited to
    read the next line; the report said its answer "sits unwritten in its stdout buffer", so
    flush, and the loop flushed every line already. No answer was ever written: the panic
    shown below is why, and the report now says a thread panicked, naming it."""
    said = _conform_error(WORKER_PANICKED, tmp_path, capsys)
    assert 'its thread "<unnamed>" panicked (stderr below) while the process lives on' in said
    assert "stdout buffer" not in said, said
    assert "to wait longer" not in said, said


def test_PROTO_1_a_panic_of_the_main_thread_is_no_thread_death() -> None:
    """A panic of `main` ends a Rust process (exit 101), which conform reports as an exit:
    it is not a thread that died while the process lives on."""
    assert _thread_died("thread 'main' (7) panicked at src/main.rs:3:5:\nboom\n") == ""
    assert '"worker" panicked' in _thread_died("thread 'worker' panicked at src/lib.rs:1:1:\n")


def test_RW_1_a_double_written_as_its_integer_digits_is_noted_so() -> None:
    """RW-1: the Rust loop read `"limit":1e+300` into an f64 and wrote the card's rawInput with
    `{}`, Rust's Display, which writes no exponent: 1 and 300 zeros, an integer, compared exactly
    with the double (10^300 + 5.25e283). The report showed the 301 digits and no note; it now
    says the double was written as plain digits, and how Rust writes one with an exponent."""
    note = number_note([("presented[0].params.update.rawInput.limit", 1e300, 10**300)])
    assert note is not None
    assert "it wrote the double as plain digits" in note, note
    assert "Rust: {:?} or {:e}" in note, note
    # Not said of an integer the model has, nor of a double that equals the integer written.
    assert "plain digits" not in (number_note([("x", 10**300, 10**300 + 1)]) or "")
    assert number_note([("x", 3.0, 3)]) is None


def test_RW_1_a_lone_surrogate_a_rust_string_replaced_is_noted_so() -> None:
    """RW-1: the Rust loop kept a call's parsed arguments in `String`s, which cannot hold a lone
    surrogate, so its card's rawInput had U+FFFD for `\\ud800`. The note spoke of an encoder
    writing '?' (Java's case); the replacement here came from the reader, and the note now says
    so and how to keep such a string."""
    card = {"method": "session/update", "params": {"update": {"rawInput": {"pattern": "x\ud800"}}}}
    lossy = {"method": "session/update", "params": {"update": {"rawInput": {"pattern": "x\ufffd"}}}}
    notes = value_notes(Observation(True, presented=(card,)), Observation(True, presented=(lossy,)))
    assert len(notes) == 1, notes
    assert "a Rust String cannot hold it" in notes[0], notes[0]
    assert "UTF-16 units" in notes[0], notes[0]


@pytest.mark.parametrize(
    ("given", "written", "halves"),
    [
        (
            "output withheld \U0001f512 donn\u00e9es",
            "output withheld \u1f512 donn\u00e9es",
            "ud83d\\udd12",
        ),
        ("opened \U0001f4c2", "opened \u1f4c2", "ud83d\\udcc2"),
    ],
)
def test_TEXT_2_a_character_past_u_ffff_escaped_whole_is_noted_so(
    given: str, written: str, halves: str
) -> None:
    """TEXT-2: the Rust loop wrote every character past U+007F as `\\u{:04x}` of its code
    point, so a hook's reason holding U+1F512 went out as `\\u1f512`, which JSON reads as U+1F51
    and "2". The report showed the two texts and explained where a hook/result's fields come
    from, which did not differ; it now notes the escape and how to write such a character, with
    that character's own UTF-16 halves (the note gave U+1F512's whatever the loop wrote, which a
    reader copying the advice would have put in its output)."""
    event = {"type": "hook/result", "data": {"stderrSummary": given}}
    mangled = {"type": "hook/result", "data": {"stderrSummary": written}}
    notes = value_notes(Observation(True, events=(event,)), Observation(True, events=(mangled,)))
    assert len(notes) == 1, notes
    code_point = next(ord(char) for char in given if ord(char) > 0xFFFF)
    assert f"U+{code_point:04X} written as \\u{code_point:x}" in notes[0], notes[0]
    assert f"two UTF-16 halves (\\{halves})" in notes[0], notes[0]
    assert "events[0].data.stderrSummary" in notes[0], notes[0]


# Dies as a Rust loop built in debug mode does of an index out of bounds deep in a recursion,
# with RUST_BACKTRACE=1: the panic's line and message, then a frame and its source line each.
DEEP_PANIC = (
    "import sys; sys.stdin.readline();"
    "sys.stderr.write(\"thread 'main' (10522) panicked at src/main.rs:2:47:\\n"
    'index out of bounds: the len is 1 but the index is 1\\nstack backtrace:\\n"'
    " + ''.join(f'  {n}: loop::dive\\n             at ./src/main.rs:2:67\\n' for n in range(60))"
    " + 'note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose"
    " backtrace.\\n'); sys.exit(101)"
)


def test_PROTO_1_a_rust_panic_longer_than_the_tail_keeps_its_panic_line_and_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: the Rust loop, run with RUST_BACKTRACE=1, panicked sixty frames deep; the tail
    shown began inside a frame's source line and ended on Rust's `note: Some details are
    omitted`, which was taken for the headline: neither the panic's place nor its message was
    shown. The panic's line and message now head the tail."""
    said = _conform_error(DEEP_PANIC, tmp_path, capsys)
    assert said[said.index("stderr (tail): ") :].splitlines()[:3] == [
        "stderr (tail): thread 'main' (10522) panicked at src/main.rs:2:47:",
        "index out of bounds: the len is 1 but the index is 1",
        "[...]",
    ], said


def _answering(observed: str) -> str:
    """A target (Python) answering each reset, and each command with `observed`'s members after
    its seq, written compactly as a hand-made JSON writer does."""
    return (
        "import sys\n"
        "for line in sys.stdin:\n"
        "    if '\"reset\"' in line:\n"
        '        print(\'{"type":"ready","implementation":"x","capabilities":[]}\', flush=True)\n'
        "    else:\n"
        '        seq = line.split(\'"seq": \')[1].split(",")[0]\n'
        f'        print(\'{{"type":"observed","seq":\' + seq + \'{observed}}}\', flush=True)\n'
    )


# Commits that do not add up.
COMMITS_DO_NOT_ADD_UP = _answering(',"accepted":true,"events":[],"commits":[2],"executed":[]')


def test_PROTO_1_an_offending_answer_is_quoted_as_the_target_wrote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: the Rust loop's answer whose history or commits did not add up was quoted as
    loopspec writes JSON (`{"type": "observed", "seq": 2, ...`), not as the loop wrote it
    (`{"type":"observed","seq":2,...`), so grepping the loop's own debug log for the quoted
    line found nothing. The line quoted is now the one the process wrote."""
    said = _conform_error(COMMITS_DO_NOT_ADD_UP, tmp_path, capsys)
    assert "commits [2] do not add up to the 0 event(s) appended" in said, said
    assert """offending line: {"type":"observed","seq":""" in said, said
    assert ""","accepted":true,"events":[],"commits":[2],""" in said, said


# One struct for every answer, its optional fields written null when empty.
NULL_WHEN_EMPTY = _answering(
    ',"accepted":true,"events":[],"commits":[],"executed":[],"presented":null'
)


def test_PROTO_1_a_member_written_null_is_told_to_be_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: the Rust loop answered with one struct whose optional fields serde wrote as
    null (`"presented": null` from a loop that does not declare presentation); the report said
    `null is not of type "array"`, which reads as "send an array". It now says to leave out a
    member with no value, and how serde does."""
    said = _conform_error(NULL_WHEN_EMPTY, tmp_path, capsys)
    assert 'presented: null is not of type "array"; a member with no value is left out' in said
    assert "skip_serializing_if" in said, said


def test_TEXT_2_a_reason_changed_on_its_way_is_not_explained_as_an_audit_source() -> None:
    """TEXT-2: the Rust loop wrote a PostToolUse block's reason, "withheld \\U0001f512", with a
    five-digit escape, so its hook/result's stderrSummary read "withheld \\u1f512". The report
    explained where a hook/result takes durationMs, exitCode and stderrSummary from, which the
    loop had right; with the text alone differing, it now says the text is kept as given."""
    blocked: list[Command] = [
        SubmitUser("read it"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),)),
        ToolFinishes("c1", ToolSucceeded("A"), (PostBlock("withheld \U0001f512"),)),
    ]
    history, expected = _model_events(blocked, HOOKED)
    events = list(expected.events)
    index = next(i for i, e in enumerate(events) if e["type"] == "hook/result")
    assert events[index]["data"]["stderrSummary"] == "withheld \U0001f512"
    data = {**events[index]["data"], "stderrSummary": "withheld \u1f512"}
    events[index] = {**events[index], "data": data}
    rule, what = classify(
        blocked[-1], "Dispatching", expected, attrs.evolve(expected, events=tuple(events)),
        target_violations=(), history=tuple(history),
    )  # fmt: skip
    assert rule == "TEXT-2", what
    assert "stderrSummary is the text the answer gave" in what, what
    assert "from the answer's audit when it has one" not in what, what
