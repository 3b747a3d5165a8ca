"""What a loop written in another language from the docs alone (a Perl loop, JSON::PP) got
wrong first, and how loopspec tells it: each test pins a report or a documented claim."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path
from typing import ClassVar

import attrs
import pytest

from loopspec.model import handlers, rewrite
from loopspec.model.commands import (
    Allow,
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.jsonvalue import FrozenMap, parse_arguments
from loopspec.model.messages import ContentBlock, ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.model.state import HookVote
from loopspec.model.wording import INVALID_INPUT, NOT_AN_OBJECT
from loopspec.properties.cli.main import main
from loopspec.properties.conformance import process_target
from loopspec.properties.conformance.command_codec import (
    command_from_json,
    command_to_json,
    config_to_json,
)
from loopspec.properties.conformance.compare import Divergence
from loopspec.properties.conformance.driver_protocol import protocol_schema
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.situation_sweep import SITUATIONS
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.conformance.value_notes import number_note

ORIGINAL_READING = rewrite.input_problem
READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))


def _python(code: str) -> list[str]:
    """A fake implementation: this Python running `code`."""
    return [sys.executable, "-c", code]


def test_PROTO_1_an_answer_in_latin_1_is_named_an_encoding_fault_not_a_stray_print() -> None:
    """PROTO-1: JSON::PP without ->utf8 writes "é" as the byte 0xE9. The report said "not a
    JSON line ... write debugging output to stderr", which sent the author looking for a print;
    it names the byte, the encoding it reads as, and UTF-8."""
    code = (
        "import sys; sys.stdin.readline();"
        "sys.stdout.buffer.write("
        '\'{"type": "ready", "implementation": "caf\\u00e9", "capabilities": []}\\n\''
        ".encode('latin-1')); sys.stdout.flush(); sys.stdin.read()"
    )
    target = ProcessTarget(_python(code), name="latin-1")
    with pytest.raises(ProcessTargetError) as caught:
        target.reset(LoopConfig())
    target.close()
    message = str(caught.value)
    assert caught.value.rule_id == "PROTO-1"
    assert "is not UTF-8 (byte 0xe9 at offset 40), though it reads as JSON in Latin-1" in message
    assert "debugging output" not in message


_READY = {"type": "ready", "implementation": "x", "capabilities": []}


@pytest.mark.parametrize(
    ("written", "said"),
    [
        pytest.param(
            f"print({_READY!r})",
            "it is written as Python writes a value (print(answer): quotes ', True, None), not "
            "as JSON: write json.dumps(answer)",
            id="a dict's repr",
        ),
        pytest.param(
            f"print(json.dumps({_READY!r}, indent=2))",
            "the line ends before its JSON does: each answer is one line, so write it without "
            "line breaks (Python: json.dumps(answer) without indent; JavaScript: "
            "JSON.stringify(answer) without its third argument)",
            id="indented JSON",
        ),
        pytest.param(
            "print('my loop 0.1 ready')",
            "stdout carries only the protocol's messages: write anything else (debugging "
            "output) to stderr",
            id="a banner",
        ),
    ],
)
def test_PROTO_1_an_answer_that_is_no_json_line_is_told_what_it_is(written: str, said: str) -> None:
    """PROTO-1: a Python loop that printed its answer as a dict (print(answer)) or as indented
    JSON was told to write its debugging output to stderr, as a loop printing a banner is: it
    had none. Each is told what its line is and how to write the answer."""
    code = (
        f"import json, sys; sys.stdin.readline(); {written}; sys.stdout.flush(); sys.stdin.read()"
    )
    target = ProcessTarget(_python(code))
    with pytest.raises(ProcessTargetError) as caught:
        target.reset(LoopConfig())
    target.close()
    first = str(caught.value).splitlines()[0]
    assert caught.value.rule_id == "PROTO-1"
    assert first.endswith(f"; {said}"), first


def _strict_reading(call: ToolCallBlock, config: LoopConfig) -> str | None:
    """EXE-2 as Perl's JSON::PP reads arguments: a lone surrogate escape is no JSON at all."""
    if re.search(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}", call.arguments):
        return INVALID_INPUT.format(tool=call.name, problem=NOT_AN_OBJECT)
    return ORIGINAL_READING(call, config)


class RefusesLoneSurrogates(ModelTarget):
    """The model, except that it reads arguments holding a lone surrogate escape as no JSON."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(handlers, "input_problem", _strict_reading)
            patch.setattr(rewrite, "input_problem", _strict_reading)
            return super().apply(command)


def test_EXE_2_arguments_a_strict_parser_refuses_are_blamed_on_their_reading() -> None:
    """EXE-2: `{"file_path":"\\ud800"}` is a JSON object to the model (Python's json, as
    JavaScript's JSON.parse, keeps the lone surrogate in the string); JSON::PP refuses it, and
    the loop answered the reply's only call as invalid input. That was blamed on ORD-3 ("commits
    only after the results of every earlier call of the reply"), naming calls there were none
    of; the report names EXE-2 and the escape."""
    config = LoopConfig(tools=(READ,))
    program: list[Command] = [
        SubmitUser("read it"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a\\ud800.txt"}'),)),
    ]
    assert isinstance(parse_arguments('{"file_path":"a\\ud800.txt"}'), FrozenMap)
    assert replay_case(ModelTarget, config, program).divergence is None
    replay = replay_case(RefusesLoneSurrogates, config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-2", replay.divergence.what
    assert "call c1's arguments are a JSON object as EXE-2 reads them (a \\u escape of a lone " in (
        replay.divergence.what
    )


@pytest.mark.parametrize(
    ("calls", "words"),
    [
        (
            (ToolCallBlock("c1", "read", '{"file_path":"a\\ud800.txt"}'),),
            "the target appends an assistant/message the model does not: call c1's arguments are "
            "a JSON object as EXE-2 reads them (a \\u escape of a lone surrogate",
        ),
        (
            (
                ToolCallBlock("c1", "read", '{"file_path":"a\\ud800.txt"}'),
                ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),
            ),
            "call c1's arguments are a JSON object as EXE-2 reads them (a \\u escape of a lone "
            "surrogate, such as \\ud800, is valid JSON",
        ),
    ],
    ids=["the only hooked call", "before another hooked call"],
)
def test_EXE_2_a_hooked_call_a_strict_parser_refuses_is_blamed_on_its_reading(
    calls: tuple[ToolCallBlock, ...], words: str
) -> None:
    """EXE-2: a loop whose parser refuses a lone surrogate escape runs no PreToolUse hook for
    such a call. When it was a reply's only hooked call, the loop committed the reply at once,
    blamed on RW-3 (committed only after the hooks answered); when a hooked call came after it,
    the loop ran that call's hook first, blamed on HOOK-4 (which hook runs for which call). The
    random programs send such arguments now; the report names EXE-2 and the escape."""
    config = LoopConfig(tools=(READ,), hooks=(HookSpec("audit", "PreToolUse", "read"),))
    # The first hook answer: the model's for c1, the strict loop's for the call after it.
    program: list[Command] = [SubmitUser("read it"), ModelReplies(calls), HookAnswers(Allow())]
    assert replay_case(ModelTarget, config, program).divergence is None
    replay = replay_case(RefusesLoneSurrogates, config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-2", replay.divergence.what
    assert words in replay.divergence.what


class WritesTheHookInputNumber(ModelTarget):
    """The model, except that its audit writes the hook input's `n`, `hooked` as Python writes
    it, as `written` (both JSON text)."""

    hooked: ClassVar[str] = ""
    written: ClassVar[str] = ""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        python_writes = f'"n": {json.dumps(json.loads(self.hooked))}'
        events = [
            json.loads(json.dumps(event).replace(python_writes, f'"n": {self.written}'))
            if event.get("type") == "hook/result" and "updatedInput" in event["data"]
            else event
            for event in observed.events
        ]
        return attrs.evolve(observed, events=tuple(events))


@pytest.mark.parametrize(
    ("hooked", "written", "diverges"),
    [
        ("1e300", "1e+300", False),
        ("1e300", "1" + "0" * 300, True),
        ("0.30000000000000004", "30000000000000004e-17", False),
        ("0.30000000000000004", "0.3", True),
        ("2.0", "2", False),
    ],
    ids=["exponent kept", "digits of 1e300", "exponent form", "15 digits", "2.0 as 2"],
)
def test_PROTO_1_a_number_with_a_fraction_or_exponent_is_compared_as_a_double(
    hooked: str, written: str, diverges: bool
) -> None:
    """PROTO-1, RW-2: the driver protocol's pydoc says a number written with a fraction or an
    exponent is a double, written back in any form that reads as the same double, never as the
    integer its digits spell. JSON::PP with allow_bignum wrote the hook's `1e300` as 301 digits
    (an integer, compared exactly); printed with 15 digits, `0.30000000000000004` was `0.3`."""
    config = LoopConfig(
        tools=(ToolSpec("bash", concurrency_safe=False, required_keys=("command",)),),
        hooks=(HookSpec("h1", "PreToolUse", "bash"),),
    )
    program: list[Command] = [
        SubmitUser("x"),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command":"pwd"}'),)),
        HookAnswers(Allow(updated_input=json.loads(f'{{"command": "ls", "n": {hooked}}}'))),
    ]
    target = type("Target", (WritesTheHookInputNumber,), {"hooked": hooked, "written": written})
    replay = replay_case(target, config, program)
    if diverges:
        assert replay.divergence is not None
        assert replay.divergence.rule_id == "RW-2", replay.divergence.what
        # The diff shows the hook's number as it was written: the double 1e300 showed as the
        # 301 digits of its exact value (1000...0525047...), which no one wrote.
        assert f'-     "n": {json.dumps(json.loads(hooked))}' in replay.divergence.diff()
    else:
        assert replay.divergence is None, replay.divergence


def test_PROTO_1_the_schema_says_what_a_left_out_error_name_is() -> None:
    """PROTO-1: the schema requires no `errorName` beside a failure's `code`, and said nothing
    of a failure without one; a loop written from it guessed null (`{"name": null}`). The
    model names it ToolError, conform sends it always, and the schema says both."""
    outcome = {"ok": False, "message": "boom", "code": "EIO"}
    decoded = command_from_json({"kind": "ToolFinishes", "callId": "c1", "outcome": outcome})
    assert isinstance(decoded, ToolFinishes)
    assert isinstance(decoded.outcome, ToolFailed)
    assert decoded.outcome.error_name == "ToolError"
    sent = command_to_json(ToolFinishes("c1", ToolFailed("boom", code="EIO")))
    assert sent["outcome"]["errorName"] == "ToolError"
    schema = protocol_schema()["$defs"]["command"]
    failed = next(
        branch["then"]
        for member in schema["allOf"]
        if member["if"]["properties"]["kind"]["const"] == "ToolFinishes"
        for branch in member["then"]["properties"]["outcome"]["allOf"]
        if branch["if"]["properties"]["ok"]["const"] is False
    )
    assert "errorName" not in failed["required"]
    said = failed["properties"]["errorName"]["description"]
    assert "ToolError when left out" in said
    assert "always send it" in said


def test_TEXT_2_the_schema_says_what_a_hook_result_records_without_an_audit() -> None:
    """TEXT-2: a hook's answer without `audit` is recorded as `durationMs` 0 and, as
    `stderrSummary`, the verdict's reason; the schema said only "absent: recorded from the
    verdict", which leaves an author reading it (writing a Java loop from the docs) to guess
    both. The schema says what the model writes."""
    hooked = LoopConfig(tools=(READ,), hooks=(HookSpec("guard", "PreToolUse", "read"),))
    model = ModelTarget()
    model.reset(hooked)
    model.apply(SubmitUser("read it"))
    model.apply(ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a"}'),)))
    answered = model.apply(HookAnswers(Deny("not today")))
    (result,) = [event["data"] for event in answered.events if event["type"] == "hook/result"]
    assert (result["durationMs"], result["stderrSummary"]) == (0, "not today")
    command = protocol_schema()["$defs"]["command"]
    (answers,) = [
        member["then"]
        for member in command["allOf"]
        if member["if"]["properties"]["kind"]["const"] == "HookAnswers"
    ]
    said = answers["properties"]["audit"]["description"]
    assert "absent: the verdict's word, durationMs 0 and, as stderrSummary, the verdict's " in said
    duration = answers["properties"]["audit"]["properties"]["durationMs"]["description"]
    assert "the hook/result records 0 when it is left out" in duration


class SettlesTheFirstCall(ModelTarget):
    """The model, except that an outcome settles the reply's first call whatever its callId
    names: Perl's `$slot->{id} == $callId`, where "c1" and "c2" both read as the number 0."""

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ToolFinishes):
            command = attrs.evolve(command, call_id="c1")
        return super().apply(command)


def test_EXE_4_an_outcome_settling_another_call_is_blamed_on_which_call_it_settles() -> None:
    """EXE-4: two reads run; c2 fails first, and the loop wrote c2's failure as c1's result.
    That was blamed on ORD-3, "commits only after the results of every earlier call of the
    reply", for c1, the reply's first call; the report names the outcome's own call."""
    config = LoopConfig(tools=(READ,), max_parallel=2)
    program: list[Command] = [
        SubmitUser("read both"),
        ModelReplies(
            (
                ToolCallBlock("c1", "read", '{"file_path":"a"}'),
                ToolCallBlock("c2", "read", '{"file_path":"b"}'),
            )
        ),
        ToolFinishes("c2", ToolFailed("no such file")),
    ]
    assert replay_case(ModelTarget, config, program).divergence is None
    replay = replay_case(SettlesTheFirstCall, config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-4", replay.divergence.what
    assert "call c1's result carries the outcome the command gives call c2" in (
        replay.divergence.what
    )


def _by_hook_id(votes: tuple[HookVote, ...], config: LoopConfig) -> tuple[HookVote, ...]:
    """Votes merged in the order of their hooks' ids (Perl's `sort { $a cmp $b }`)."""
    del config
    return tuple(sorted(votes, key=lambda vote: vote.handler_id))


class MergesByHookId(ModelTarget):
    """The model, except that its rewrites combine in the order of the hooks' ids."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "in_configured_order", _by_hook_id)
            return super().apply(command)


def test_HOOK_3_a_loop_merging_rewrites_by_hook_id_meets_a_targeted_program() -> None:
    """HOOK-3: every configuration conform drew listed its hooks in their ids' order (guard,
    rewriter; everything, late), so a loop sorting the answers by id merged them rightly by
    chance and passed 200 programs. The targeted program of a call rewritten by two hooks
    configures them against that order."""
    (situation,) = [s for s in SITUATIONS if "one of them by two hooks" in s.name]
    ids = [hook.handler_id for hook in situation.config.hooks]
    assert ids != sorted(ids)
    assert replay_case(ModelTarget, situation.config, list(situation.program)).divergence is None
    replay = replay_case(MergesByHookId, situation.config, list(situation.program))
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "HOOK-3", replay.divergence.what


def _null_is_missing(call: ToolCallBlock, config: LoopConfig) -> str | None:
    """The input contract as Perl's `defined $input->{$key}` reads it: null is missing."""
    value = parse_arguments(call.arguments)
    tool = config.tool(call.name)
    if isinstance(value, FrozenMap) and tool is not None:
        missing = [key for key in tool.required_keys if value.get(key) is None]
        if missing:
            problem = "missing required " + ", ".join(repr(key) for key in missing)
            return INVALID_INPUT.format(tool=call.name, problem=problem)
    return ORIGINAL_READING(call, config)


class NullIsMissing(ModelTarget):
    """The model, except that a required key given as null is missing to it."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(handlers, "input_problem", _null_is_missing)
            patch.setattr(rewrite, "input_problem", _null_is_missing)
            return super().apply(command)


class DropsTheContextZero(ModelTarget):
    """The model, except that a body's context "0" is dropped (Perl's `grep { $_ }`)."""

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ToolFinishes) and isinstance(command.outcome, ToolSucceeded):
            kept = tuple(text for text in command.outcome.contexts if text != "0")
            command = attrs.evolve(command, outcome=attrs.evolve(command.outcome, contexts=kept))
        return super().apply(command)


@pytest.mark.parametrize(
    ("situation_name", "target", "rule", "said"),
    [
        (
            "calls give a required key the value null and the empty string",
            NullIsMissing,
            "EXE-5",
            "call c1's arguments hold the key 'file_path' the result calls missing: a key whose "
            'value is null, false, 0 or "" is there all the same',
        ),
        (
            'a body answers "0" and defers an empty context, one of whitespace and "0"',
            DropsTheContextZero,
            "ADJ-4",
            'a context "0", false to some languages (Perl, PHP), is not empty',
        ),
    ],
    ids=["null key", "context 0"],
)
def test_a_value_false_to_perl_meets_a_targeted_program_and_is_blamed_on_its_reading(
    situation_name: str, target: type[ModelTarget], rule: str, said: str
) -> None:
    """EXE-5, ADJ-4: a Perl loop testing a required key with `defined`, or a body's contexts
    with `grep { $_ }`, passed 200 programs: none gave a key null or a context "0". Targeted
    programs do, and the report names the value (a null key read as ORD-3 "after every earlier
    call" of the reply's first call)."""
    (situation,) = [s for s in SITUATIONS if s.name == situation_name]
    program = list(situation.program)
    assert replay_case(ModelTarget, situation.config, program).divergence is None
    replay = replay_case(target, situation.config, program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == rule, replay.divergence.what
    assert said in replay.divergence.what, replay.divergence.what


# Answers reset into a stdout buffer it does not flush (as Perl's and C's stdio buffer a pipe;
# PYTHONUNBUFFERED may be set where tests run, so the buffer is made here), and waits for the
# next message.
UNFLUSHED_ANSWER = (
    "import os, sys; out = os.fdopen(1, 'w', 8192); sys.stdin.readline();"
    'out.write(\'{"type": "ready", "implementation": "x", "capabilities": []}\\n\');'
    "sys.stdin.readline()"
)


def test_PROTO_1_an_answer_left_in_a_stdout_buffer_is_named_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a Perl loop without STDOUT->autoflush answered into its buffer and waited for
    the next message; the report said "no answer to reset within 10 s (to wait longer:
    --answer-timeout S)", and waiting longer never helps it. Found waiting to read its input,
    it is told to flush, and not to wait longer; a process that is busy keeps that hint. Go's
    flush is named too (round 19: a Go loop's unflushed bufio.Writer was told every other's)."""
    cases = str(tmp_path / "cases")
    command = shlex.join(_python(UNFLUSHED_ANSWER))
    assert main(["conform", "--cmd", command, "--answer-timeout", "1", "--case-dir", cases]) == 2
    said = capsys.readouterr().err
    assert "no answer to reset within 1 s, and it waits to read more input: either its " in said
    assert "Perl: STDOUT->autoflush(1)" in said
    assert "Go: w.Flush() after each line" in said
    assert "to wait longer" not in said
    busy = shlex.join(_python("import time; time.sleep(30)"))
    assert main(["conform", "--cmd", busy, "--answer-timeout", "1", "--case-dir", cases]) == 2
    said = capsys.readouterr().err
    assert "no answer to reset within 1 s (to wait longer: --answer-timeout S)" in said
    assert "next message" not in said


def test_PROTO_1_an_answer_written_without_its_newline_is_named_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a Python loop answering with sys.stdout.write(json.dumps(answer)), flushed, and
    no newline, waits for the next message while loopspec waits for the end of the line: it was
    told to flush, which it did, or to wait longer. It is told its answer has no newline, and
    shown what it wrote."""
    ready = json.dumps({"type": "ready", "implementation": "x", "capabilities": []})
    code = f"import sys; sys.stdin.readline(); sys.stdout.write({ready!r}); sys.stdout.flush(); "
    command = shlex.join(_python(code + "sys.stdin.readline()"))
    cases = str(tmp_path / "cases")
    assert main(["conform", "--cmd", command, "--answer-timeout", "1", "--case-dir", cases]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith(
        f"no answer to reset within 1 s, and it waits to read more input, its answer begun and "
        f"not ended: it wrote {ready} and no newline after it; end each answer with one (Python: "
        "print(...) ends its line, sys.stdout.write(...) does not; Node: "
        "process.stdout.write(JSON.stringify(answer) + '\\n'))"
    ), first


@pytest.mark.parametrize(
    "written",
    [
        pytest.param("'x' * 150 + '\\n'", id="ended"),
        pytest.param("'x' * 150", id="never ended"),
    ],
)
def test_SAFE_4_an_answer_longer_than_the_bound_is_refused_in_pieces_or_whole(
    written: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAFE-4: an answer line is read up to `MAX_LINE_BYTES` and a byte more, then refused,
    when the target writes it a byte at a time, with its newline or without, the process then
    ending."""
    monkeypatch.setattr(process_target, "MAX_LINE_BYTES", 100)
    code = (
        "import sys; sys.stdin.readline(); "
        f"[sys.stdout.write(c) and sys.stdout.flush() for c in {written}]"
    )
    target = ProcessTarget(_python(code))
    with pytest.raises(ProcessTargetError) as caught:
        target.reset(LoopConfig())
    target.close()
    first, offending, *_ = str(caught.value).splitlines()
    assert first.endswith("the answer to reset is longer than 100 bytes"), first
    assert offending == f"offending line: {'x' * 101}"


def test_PROTO_1_a_loop_reading_its_input_to_the_end_before_answering_is_told_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a Python loop written `for line in sys.stdin.read().splitlines()` waits for an
    end of input that comes only after shutdown; blocked reading, as an unflushed loop is, it was
    told only that its answer sat unflushed, and flushing changed nothing. The line names both."""
    command = shlex.join(_python("import sys; sys.stdin.read()"))
    cases = str(tmp_path / "cases")
    assert main(["conform", "--cmd", command, "--answer-timeout", "1", "--case-dir", cases]) == 2
    said = capsys.readouterr().err
    assert (
        "or it reads its input to the end before answering (Python's sys.stdin.read() or "
        "json.load(sys.stdin), Node's fs.readFileSync(0)), an end that comes only after "
        "shutdown: read one line, answer it, then read the next\n"
    ) in said
    assert "to wait longer" not in said


# The same, reading its input in a thread other than the process's main one, which waits to
# join it: a JVM runs `main` so, its launcher thread waiting in the kernel on something else.
UNFLUSHED_ANSWER_IN_A_THREAD = (
    "import threading; "
    "threading.Thread(target=exec, args=(" + repr(UNFLUSHED_ANSWER) + ",)).start()"
)


def test_PROTO_1_an_answer_a_reading_thread_left_in_its_buffer_is_named_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a Java loop writing through a PrintWriter it never flushed was told only "no
    answer to reset within 10 s (to wait longer: --answer-timeout S)": its main thread is not
    the one reading stdin, and only that one was looked at. Any thread found reading says
    flush, and how in Java."""
    command = shlex.join(_python(UNFLUSHED_ANSWER_IN_A_THREAD))
    cases = str(tmp_path / "cases")
    assert main(["conform", "--cmd", command, "--answer-timeout", "1", "--case-dir", cases]) == 2
    said = capsys.readouterr().err
    assert "and it waits to read more input: either its answer sits unwritten" in said
    assert "Java: out.flush() after each line" in said
    assert "to wait longer" not in said


# Dies as a JVM does of a runaway recursion: its exception's line, then a thousand frames.
STACK_OVERFLOW = (
    "import sys; sys.stdin.readline();"
    "sys.stderr.write('Exception in thread \"main\" java.lang.StackOverflowError\\n'"
    " + '\\tat Loop.recurse(Loop.java:291)\\n' * 1024)"
)


def test_PROTO_1_a_jvm_stack_trace_longer_than_the_tail_keeps_its_exception_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a Java loop that overflowed its stack was shown a stderr tail of sixty
    identical frames, `at Loop.recurse(Loop.java:291)`, and not what was thrown: a JVM prints
    the exception above its frames, which filled the 2000 bytes shown. The last line written
    flush left heads the tail, and a repeated frame is said once with its count."""
    command = shlex.join(_python(STACK_OVERFLOW))
    assert main(["conform", "--cmd", command, "--case-dir", str(tmp_path / "cases")]) == 2
    said = capsys.readouterr().err
    shown = said[said.index("stderr (tail): ") :].splitlines()
    assert shown[:2] == [
        'stderr (tail): Exception in thread "main" java.lang.StackOverflowError',
        "[...]",
    ]
    assert len(shown) == 4  # no fragment of the frame the 2000 bytes cut
    assert shown[-2] == "\tat Loop.recurse(Loop.java:291)"
    assert re.fullmatch(r"\t\[the line above [1-9][0-9] times more\]", shown[-1]), shown[-1]


def _replayed(tmp_path: Path, config: LoopConfig, program: list[Command], target: str) -> int:
    """`loopspec replay` of the case of `program` on this module's class `target`: its exit."""
    case = tmp_path / "case.json"
    commands = [command_to_json(command) for command in program]
    document = {"loopspec": "case", "version": 1, "commands": commands}
    document["config"] = config_to_json(config)
    case.write_text(json.dumps(document), encoding="utf-8")
    return main(["replay", str(case), "--impl", f"test_foreign_language_targets:{target}"])


def _diverging_on_situation(named: str, target: type[ModelTarget]) -> Divergence:
    """The divergence `target` shows on the targeted program whose name starts with `named`,
    on which the model itself shows none."""
    (situation,) = [s for s in SITUATIONS if s.name.startswith(named)]
    program = list(situation.program)
    assert replay_case(ModelTarget, situation.config, program).divergence is None
    replay = replay_case(target, situation.config, program)
    assert replay.divergence is not None
    return replay.divergence


class WritesAscii(ModelTarget):
    """The model, its events written as a JVM writes System.out under LC_ALL=C: in ASCII,
    each other character as `?`."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        written = json.dumps(list(observed.events), ensure_ascii=False).encode("ascii", "replace")
        return attrs.evolve(observed, events=tuple(json.loads(written)))


def test_PROTO_1_text_written_in_ascii_is_said_to_be_no_utf_8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a Java loop run under LC_ALL=C wrote U+0085 in a call's arguments as `?`;
    conform blamed EXE-2, the arguments "differ from the model's raw arguments", and the loop
    had taken them as they came. The rule stays, and a note says the text lost its characters
    to an encoding other than UTF-8, and how a JVM reads and writes UTF-8."""
    config = LoopConfig(tools=(READ,))
    arguments = json.dumps({"file_path": "caf\u00e9"}, ensure_ascii=False)
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", arguments),)),
    ]
    assert _replayed(tmp_path, config, program, "WritesAscii") == 1
    said = capsys.readouterr().out
    assert (
        "note: the target has '?' where the model has U+00E9 (at "
        "events[0].data.message.content[0].arguments): it read or wrote that text in another "
        "encoding than UTF-8"
    ) in said
    assert "new InputStreamReader(System.in, StandardCharsets.UTF_8)" in said


# What Java's `String.isBlank` and `strip` take for whitespace (`Character.isWhitespace`).
JAVA_WHITESPACE = "".join(chr(c) for c in range(0x110000) if chr(c).isspace()).translate(
    dict.fromkeys(map(ord, "\x85\xa0\u2007\u202f"))
)


def _java_delivered_prefix(blocks: tuple[ContentBlock, ...]) -> tuple[ContentBlock, ...]:
    """ABORT-2's non-blank text and reasoning, blank read as Java's `isBlank` reads it."""
    kept = [b for b in blocks if isinstance(b, TextBlock | ReasoningBlock)]
    return tuple(b for b in kept if b.text.strip(JAVA_WHITESPACE))


class KeepsTextBlankToPython(ModelTarget):
    """The model, except that a cancelled reply keeps text blank to Python and not to Java."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(handlers, "_delivered_prefix", _java_delivered_prefix)
            return super().apply(command)


def test_ABORT_2_a_cancelled_reply_of_text_blank_to_python_alone_meets_a_targeted_program() -> None:
    """ABORT-2: a cancelled reply keeps only its non-blank text, blank as EXE-2 reads it. A Java
    loop testing `String.isBlank` kept a text of no-break spaces and passed every seed: no
    program drew such a text in a cancelled reply. A targeted program does, and the report
    says what blank is, where it said the reply was "without text"."""
    divergence = _diverging_on_situation("a reply is cancelled after", KeepsTextBlankToPython)
    assert divergence.rule_id == "ABORT-2", divergence.what
    assert "(blank as EXE-2 reads it, Python's str.strip: U+0085 and the no-break spaces " in (
        divergence.what
    )


class ReadsNumbersAsDoubles(ModelTarget):
    """The model, its results' meta read as Gson reads JSON by default: every number a double."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = [json.loads(json.dumps(event)) for event in observed.events]
        for event in events:
            if "meta" in event["data"]:
                event["data"]["meta"] = json.loads(
                    json.dumps(event["data"]["meta"]), parse_int=float
                )
        return attrs.evolve(observed, events=tuple(events))


def test_EXE_4_meta_numbers_a_double_changes_meet_a_targeted_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """EXE-4: the programs give a result only the meta `{"lines": 3}`, which a Java loop
    reading JSON as Gson does (every number a double) gives back unchanged: it passed every
    seed. A targeted program returns an integer past 2^64, and the report notes the integer
    read as a double."""
    named = "a body's result meta holds"
    divergence = _diverging_on_situation(named, ReadsNumbersAsDoubles)
    assert divergence.rule_id == "EXE-4", divergence.what
    (situation,) = [s for s in SITUATIONS if s.name.startswith(named)]
    program = list(situation.program)
    assert _replayed(tmp_path, situation.config, program, "ReadsNumbersAsDoubles") == 1
    said = capsys.readouterr().out
    assert (
        "note: the target has 1.2345678901234568e+22 where the model has the integer "
        "12345678901234567890123 (at events[0].data.meta.bytes): it read the integer as a "
        "double"
    ) in said


class WritesTheTextZeroAsANumber(ModelTarget):
    """The model, except that a result's text "0" is written as the number 0, as JSON::PP
    writes a Perl string once compared as a number (`$text > 0`)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = [
            json.loads(json.dumps(event).replace('"text": "0"', '"text": 0'))
            if event.get("type") == "tool/result"
            else event
            for event in observed.events
        ]
        return attrs.evolve(observed, events=tuple(events))


def test_LOG_4_a_result_text_of_digits_meets_a_targeted_program() -> None:
    """LOG-4: no program conform drew gave a body a text of digits, so a Perl loop writing such
    a text as a number passed; the targeted program of contexts answers "0", and the loop's
    record of it is refused, naming the field."""
    divergence = _diverging_on_situation('a body answers "0"', WritesTheTextZeroAsANumber)
    assert divergence.rule_id == "LOG-4", divergence.what
    assert "content[0].content[0].text must be a string" in divergence.what


def test_EXE_3_an_integer_written_back_by_javascript_is_noted_as_read_as_a_double() -> None:
    """EXE-3: real dsh ran a body with 98765432109876543210 as 98765432109876540000 (JSON.parse
    reads the nearest double, JSON.stringify writes it back with zeros); the note said the
    integer did not fit a Java long, which sends a JavaScript author the wrong way."""
    note = number_note([("executed[0][1].timeout", 98765432109876543210, 98765432109876540000)])
    assert note is not None
    assert "it read the integer as a double and wrote it back with zeros" in note
    assert "JSON.parse" in note
    # A 64-bit cut is still named as one, and a value a double holds exactly gets no such note.
    cut = number_note([("x", 2**64 + 5, 5)])
    assert cut is not None
    assert "does not fit a long" in cut
    assert number_note([("x", 2**53, 2**53 + 1)]) is None
