"""Fresh bugs of session 38, found by the programs and blamed on the rule their author must fix.

Session 38 wrote a loop in Go 1.19 on the standard library alone (encoding/json with
`Decoder.UseNumber`, about 800 lines) outside the project, from README.md, docs/ and SPEC.md,
the way the tutorial grows one: declaring nothing first, then parallel, pre-hooks and rewrite,
approval, post-hooks and abort, max-tokens, queued-input, crash-repair, result-meta and history,
`loopspec conform --cmd` on seeds 1 and 2 after each step. Every step was CONFORMANT at its first
run (and seed 3 with 1000 programs at the end); where the docs left it to guess, they say it
now (HOOK-6's refusal writes no sidecar, an abort while hooks run keeps reasoning too, EXE-4 is
judged before HOOK-5). Then 44 one-line changes were planted in copies of the finished loop, the
rule each should be named by written before the run: Go's traps (a nil slice, `omitempty`,
float64 numbers, a map's order, `strings.TrimSpace`, a `code != ""` test, `bufio.Scanner`'s
default cap, a `bufio.Writer` not flushed, `%q` quoting, `fmt.Sprint` of a map), and the
loop's rules. Planted here in the
model and played (the Go loop is not kept; no Go runs in the suite):

- `omitempty` on a result's `isError` (and a hook's `durationMs`): told the member is required,
  not why it was missing; now that `omitempty` leaves out a false, 0 or "" and to drop it there;
- `bufio.Scanner` without `Scanner.Buffer`: no program of the random ones sends a line over
  64 KiB, so the loop passed; a case with a 70 KB prompt was told only that the output ended
  (the pipe broke as the loop stopped reading): now the line's length and the Scanner's cap,
  and a targeted program played for every loop sends such a line (a reply of 72,000 characters);
- a hook's input written with fmt.Sprint (`map[command:pwd]`): HOOK-4, the own log's reply read
  as showing a call hooks must not see, then RW-1 though every reader agreed; now RW-2;
- a body failing after an abort given the abort's ABORTED: ABORT-1, in words saying a body that
  finished *before* the abort keeps its result; now that a late failure keeps its own;
- a hook's reason "" dropped from stderrSummary (Go's `reason != ""`), a cancelled reply's
  U+001C kept (strings.TrimSpace), a repair's results ranged over a map (found once, on seed 2):
  named right, in words that now name what Go did.

Of 43 bugs (and a control, json.Marshal's HTML escaping of <>&, valid JSON, which passed as it
should), 41 were found on both seeds (hooks queued over a map and diverging once on each, said
so); 36 by the rule written before the run on both, and 4 by another rule SPEC.md gives the
situation the shrunk program shows: PROTO-1 for omitempty's missing isError (LOG-4 expected;
it is the answer's shape), ADJ-4 for an ABORTED success's context delivered (as the tutorial's
Go note says), DEC-2 on seed 1 for reasons joined with ", " (an ask's met first), TEXT-1 for
%q-quoted keys (the words' rule). Named wrong: the fmt.Sprint rewrite (HOOK-4), now RW-2.
Missed: the Scanner's cap on both seeds, now found by the targeted program, and the repair
ranged over a map on seed 1 (answered otherwise when rerun on seed 2, now told of Go's maps).
Words that did not say what Go did are fixed for omitempty, the Scanner, a bufio.Writer never
flushed, a map's order (the rerun note, HOOK-4's order), "" as a reason, a late failure after
an abort, and TrimSpace's blank.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from fresh_bugs import (
    GUARDED_BASH,
    FreshBug,
    assert_found,
    bash_answered,
    calls,
    copied,
    names,
    own_log_checked,
    planted,
)
from test_case_travel import _failed_report

from loopspec.model import config, dispatch, handlers, jsonvalue, repair, rewrite
from loopspec.model.commands import (
    Abort,
    Allow,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.events import Event, ToolResultRecorded
from loopspec.model.jsonvalue import FrozenMap, JsonValue, freeze, thaw
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.model.state import Execution
from loopspec.properties.cli import conform_run
from loopspec.properties.conformance import process_target
from loopspec.properties.conformance.command_codec import command_to_json
from loopspec.properties.conformance.process_target import (
    ProcessTarget,
    ProcessTargetError,
    long_line_note,
)
from loopspec.properties.conformance.situation_sweep import situations_for
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.conformance.value_notes import encoding_note
from loopspec.properties.stateful.strategies import TOOLS

PLAIN = LoopConfig(tools=TOOLS)
READ = calls("c1", "read", '{"file_path":"a.txt"}')
BIG = 98765432109876543210


def _doubles(value: JsonValue) -> JsonValue:
    """`value` as Go's encoding/json reads it into an interface{}: every number a float64."""
    read = json.loads(json.dumps(thaw(value)), parse_int=float)
    return freeze(read)


_REAL_PREPARE = dispatch.prepare_result


def _meta_as_doubles(slot: Any, outcome: Any, post: Any, aborting: str | None) -> Any:
    """`prepare_result`, its body's meta read as float64s."""
    if isinstance(outcome, ToolSucceeded) and outcome.meta is not None:
        outcome = attrs.evolve(outcome, meta=_doubles(outcome.meta))
    return _REAL_PREPARE(slot, outcome, post, aborting)


def _empty_code_is_none(slot: Any, outcome: Any, post: Any, aborting: str | None) -> Any:
    """`prepare_result`, a failure's code "" read as none (Go's `code != ""`)."""
    if isinstance(outcome, ToolFailed) and outcome.code == "":
        outcome = attrs.evolve(outcome, code=None)
    return _REAL_PREPARE(slot, outcome, post, aborting)


def _failure_after_abort_aborted(slot: Any, outcome: Any, post: Any, aborting: str | None) -> Any:
    """`prepare_result`, a body failing after an abort given the abort's result too."""
    if isinstance(outcome, ToolFailed) and aborting is not None:
        outcome = ToolSucceeded("")
    return _REAL_PREPARE(slot, outcome, post, aborting)


class ReadsHookInputsAsDoubles(ModelTarget):
    """The model, except that a hook's updatedInput is read as float64s (no UseNumber)."""

    def apply(self, command: Command) -> Observation:
        if isinstance(command, HookAnswers) and isinstance(command.verdict, Allow):
            given = command.verdict.updated_input
            if given is not None:
                verdict = attrs.evolve(command.verdict, updated_input=_doubles(given))
                command = attrs.evolve(command, verdict=verdict)
        return super().apply(command)


_GO_SPACE = frozenset(" \t\n\v\f\r\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    map(chr, range(0x2000, 0x200B))
)


def _go_blank(text: str) -> bool:
    """Whether `strings.TrimSpace(text) == ""` (unicode.IsSpace: not U+001C..U+001F)."""
    return all(char in _GO_SPACE for char in text)


_REAL_PARSE = jsonvalue.parse_arguments


def _parsed_as_go_trims(arguments: str) -> JsonValue:
    """`parse_arguments`, blank judged by Go's strings.TrimSpace."""
    if arguments and not _go_blank(arguments) and not arguments.strip():
        return arguments  # not blank to Go, and no JSON either: the raw string
    return _REAL_PARSE(arguments)


def _kept_as_go_trims(blocks: tuple[Any, ...]) -> tuple[Any, ...]:
    """`_delivered_prefix`, blank judged by Go's strings.TrimSpace."""
    return tuple(
        b for b in blocks if isinstance(b, TextBlock | ReasoningBlock) and not _go_blank(b.text)
    )


_REAL_REASON = rewrite.verdict_reason


_REAL_CLOSERS = repair.interrupted_turn_closers


def _go_quoted(keys: Any) -> str:
    """The missing keys quoted as Go's %q quotes a string: in double quotes."""
    return ", ".join(json.dumps(key) for key in keys)


_REAL_RESOLVE = rewrite.resolve_call


def _go_printed(value: JsonValue) -> str:
    """`value` as Go's fmt.Sprint prints the map encoding/json read it into."""
    if isinstance(value, FrozenMap):
        inner = " ".join(f"{key}:{_go_printed(value[key])}" for key in sorted(value))
        return f"map[{inner}]"
    return str(thaw(value))


def _rewrite_printed(call: ToolCallBlock, votes: Any, config: LoopConfig) -> rewrite.Resolution:
    """`resolve_call`, the applied input written with fmt.Sprint, not a JSON encoder."""
    resolution = _REAL_RESOLVE(call, votes, config)
    if resolution.sidecar is None:
        return resolution
    printed = _go_printed(jsonvalue.parse_arguments(resolution.arguments))
    return attrs.evolve(resolution, arguments=printed)


class DropsAnEmptyFailureCode(ModelTarget):
    """The model, except that a failed request's code "" is left out of the turn's end (Go's
    `if code != ""`)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, ModelFails) or command.code:
            return observed
        events = copied(observed)
        for event in events:
            if event["type"] == "turn/end":
                del event["data"]["reason"]["error"]["code"]
        return attrs.evolve(observed, events=tuple(events))


_REAL_HOOKS_FOR = LoopConfig.hooks_for


def _go_string(value: object) -> object:
    """`value` with each lone surrogate as U+FFFD, as Go's encoding/json decodes it."""
    if isinstance(value, str):
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    if isinstance(value, dict):
        return {_go_string(k): _go_string(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_string(item) for item in value]
    return value


def _run_reencoded(turn: int, step: int, call_id: str, arguments: str) -> Execution:
    """The body's run, given its arguments decoded and encoded again by encoding/json."""
    reencoded = json.dumps(_go_string(json.loads(arguments)), ensure_ascii=False)
    return Execution(turn, step, call_id, reencoded)


def _closers_in_map_order(log: tuple[Event, ...]) -> tuple[Event, ...]:
    """The repair's closers, its results in another order than the calls' (a Go map's)."""
    closers = _REAL_CLOSERS(log)
    results = [e for e in closers if isinstance(e, ToolResultRecorded)]
    reordered = (*reversed(results), *closers[len(results) :])
    return tuple(attrs.evolve(e, seq=closers[0].seq + n) for n, e in enumerate(reordered))


def _result_without(member: str) -> dict[str, object]:
    """An answer whose one tool/result (or hook/result) leaves `member` out, as Go's
    encoding/json does with a field tagged `omitempty` holding its zero value."""
    block: dict[str, object] = {"type": "tool-result", "toolCallId": "c1", "content": [],
                                "isError": False}  # fmt: skip
    message = {"role": "user", "content": [block], "source": {"kind": "tool", "callId": "c1"},
               "id": "m0"}  # fmt: skip
    result = {"type": "tool/result", "seq": 0, "time": 0,
              "data": {"turn": 1, "step": 1, "message": message},
              "surfaceOp": "append", "sourceEventSeqs": [0]}  # fmt: skip
    audit: dict[str, object] = {"turn": 1, "point": "PreToolUse", "handlerId": "h",
                                "decision": "pass", "durationMs": 0}  # fmt: skip
    hook = {"type": "hook/result", "seq": 0, "time": 0, "data": audit}
    block.pop(member, None)
    audit.pop(member, None)
    event = hook if member == "durationMs" else result
    return {"type": "observed", "seq": 0, "accepted": True, "events": [event], "commits": [1],
            "executed": []}  # fmt: skip


@pytest.mark.parametrize(
    ("member", "says"),
    [
        ("isError", "; isError is written even when it is false (if the loop writes it with Go's"),
        ("durationMs", "; durationMs is written even when it is 0 (if the loop writes it with"),
        ("content", ""),
    ],
)
def test_PROTO_1_a_required_member_left_out_as_omitempty_does_is_told_to_write_it(
    member: str, says: str
) -> None:
    """PROTO-1: the Go loop's result struct tagged `isError` `omitempty`, so every success went
    without it. The report said "isError" is a required property, not why a Go struct left it
    out; it now says a false, 0 or "" is written, naming omitempty. A required list left out
    (no zero value to blame) gets no such note."""
    wrong = process_target._most_specific_error(_result_without(member))
    assert wrong.message == f"'{member}' is a required property"
    hint = process_target._left_out_hint(wrong)
    assert hint.startswith(says) if says else hint == ""


def test_PROTO_1_a_line_past_go_scanners_cap_is_named_with_the_cap() -> None:
    """PROTO-1: the Go loop read its input with a `bufio.Scanner` at its default cap (64 KiB), so
    a 70 KB prompt ended its loop; the random programs' lines stay under 31 KB, so conform found
    no fault. A case with such a line was told only that the output ended (the pipe broke as the
    loop stopped reading mid-line): it now gives the line's length and the Scanner's cap, which a
    line under 64 KiB does not name."""
    ready = json.dumps({"type": "ready", "implementation": "scanner", "capabilities": []})
    # Answers the reset, then reads 10 bytes of the next line and exits, as Scan returning false.
    script = f"read -r line; printf '%s\\n' '{ready}'; head -c 10 >/dev/null"
    target = ProcessTarget(["sh", "-c", script], name="scanner")
    try:
        target.reset(LoopConfig())
        with pytest.raises(ProcessTargetError) as failed:
            target.apply(SubmitUser("x" * 70_000))
    finally:
        target.close()
    said = str(failed.value)
    assert "the process ended its output instead of answering" in said, said
    assert "Go's bufio.Scanner stops at a line over 64 KiB" in said, said
    short = {"type": "command", "seq": 7, "command": {"kind": "SubmitUser", "text": "x" * 20_000}}
    assert "Scanner" not in long_line_note(short)


FOUND: tuple[FreshBug, ...] = (
    ("a result's meta read as float64s",
     planted(handlers, "prepare_result", _meta_as_doubles, _meta_as_doubles.__doc__ or ""),
     PLAIN, (SubmitUser(""), READ,
             ToolFinishes("c1", ToolSucceeded("", meta=FrozenMap({"bytes": BIG})))), "EXE-4"),
    ("a hook's input read as float64s", ReadsHookInputsAsDoubles, GUARDED_BASH,
     bash_answered('{"command":"ls"}', Allow(), Allow(updated_input=FrozenMap(
         {"command": "ls", "timeout": BIG}))), "RW-2"),
    ("arguments judged blank by strings.TrimSpace",
     planted(rewrite, "parse_arguments", _parsed_as_go_trims, "Go's TrimSpace"), PLAIN,
     (SubmitUser(""), calls("c1", "read", "\x1c")), "EXE-2"),
    ("a failure's code \"\" read as none",
     planted(handlers, "prepare_result", _empty_code_is_none, _empty_code_is_none.__doc__ or ""),
     PLAIN, (SubmitUser(""), READ, ToolFinishes("c1", ToolFailed("no", code=""))), "EXE-4"),
    ("repair results in a map's order",
     planted(handlers, "interrupted_turn_closers", _closers_in_map_order, "a map's order"),
     PLAIN, (SubmitUser(""), ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a"}'),
                                          ToolCallBlock("c2", "read", '{"file_path":"b"}'))),
             Crash(), Recover()), "REC-1"),
    ("missing keys quoted as Go's %q quotes",
     planted(config, "quoted_keys", _go_quoted, "%q"), PLAIN,
     (SubmitUser(""), calls("c1", "read", "{}")), "TEXT-1"),
    ("a failed request's code \"\" left out",
     DropsAnEmptyFailureCode, PLAIN, (SubmitUser(""), ModelFails("", "")), "TEXT-2"),
    ("a body given its arguments re-encoded by encoding/json",
     planted(dispatch, "Execution", _run_reencoded, _run_reencoded.__doc__ or ""), PLAIN,
     (SubmitUser(""), calls("c1", "read", '{"file_path":"a\\udc00.txt"}')), "EXE-3"),
    ("deny reasons joined with a comma",
     planted(rewrite, "REASON_SEPARATOR", ", ", "reasons joined by ', '"), GUARDED_BASH,
     bash_answered('{"command":"ls"}', Deny("no"), Deny("never")), "DEC-1"),
)  # fmt: skip


@pytest.mark.parametrize("row", FOUND, ids=names(FOUND))
def test_MODEL_1_a_go_loops_bug_is_blamed_on_the_rule_it_breaks(row: FreshBug) -> None:
    """MODEL-1 (EXE-2, EXE-3, EXE-4, RW-2, REC-1, TEXT-1, TEXT-2, DEC-1): each bug of the Go
    loop conform named right on both seeds is found on its short program, named by its rule;
    the program passes on the model."""
    assert_found(row)


def test_PROTO_1_a_lone_surrogate_go_read_as_u_fffd_is_told_so() -> None:
    """PROTO-1: the Go loop gave a body its arguments decoded and encoded again, a lone
    surrogate in them turned to U+FFFD (EXE-3). The note named Java's writer and Rust's String
    alone; it names Go's string, and to give the body the arguments' own text."""
    note = encoding_note([("executed[0][1].file_path", "a\udc00.txt", "a\ufffd.txt")])
    assert note is not None
    assert "nor a Go string (encoding/json reads it as U+FFFD" in note


FIXED: tuple[FreshBug, ...] = (
    ("a failure after an abort made ABORTED",
     planted(handlers, "prepare_result", _failure_after_abort_aborted,
             _failure_after_abort_aborted.__doc__ or ""),
     PLAIN, (SubmitUser(""), READ, Abort(), ToolFinishes("c1", ToolFailed("no"))), "ABORT-1"),
    ("a hook's reason \"\" read as none",
     planted(handlers, "verdict_reason", lambda verdict: _REAL_REASON(verdict) or None,
             "a reason \"\" is none"), GUARDED_BASH,
     bash_answered('{"command":"ls"}', Deny(""), Allow()), "TEXT-2"),
    ("a rewrite's input written with fmt.Sprint",
     planted(rewrite, "resolve_call", _rewrite_printed, _rewrite_printed.__doc__ or ""),
     GUARDED_BASH, bash_answered('{"command":"ls"}', Allow(),
                                 Allow(updated_input=FrozenMap({"command": "pwd"}))), "RW-2"),
    ("PreToolUse hooks queued ranging over a map of them",
     planted(LoopConfig, "hooks_for",
             lambda self, point, name: tuple(reversed(_REAL_HOOKS_FOR(self, point, name))),
             "hooks in another order than configured"),
     GUARDED_BASH, bash_answered('{"command":"ls"}', Pass(), Pass()), "HOOK-4"),
    ("a cancelled reply's blank judged by strings.TrimSpace",
     planted(handlers, "_delivered_prefix", _kept_as_go_trims, "Go's TrimSpace"), PLAIN,
     (SubmitUser(""), ModelReplies((TextBlock("\x1c"),), finish="cancelled")), "ABORT-2"),
)  # fmt: skip


@pytest.mark.parametrize(
    ("row", "phrases"),
    [
        (FIXED[0], ("a body that fails after the abort keeps its failure, its message and",)),
        (FIXED[1], ('the reason "" is a reason the hook gave, written as given',)),
        (FIXED[2], ('are "map[command:pwd]", no JSON, where hook rewriter supplied',)),
        (FIXED[3], ("the reply's calls in model order, each call's hooks in configured order",)),
        (FIXED[4], ("and so do Go's strings.TrimSpace and Rust's str::trim",)),
    ],
    ids=names(FIXED),
)
def test_ABORT_1_TEXT_2_RW_2_HOOK_4_ABORT_2_a_go_loops_bug_is_told_what_go_did(
    row: FreshBug, phrases: tuple[str, ...]
) -> None:
    """ABORT-1, TEXT-2, RW-2, HOOK-4, ABORT-2: named right (RW-2 once HOOK-4 and RW-1), in
    words that missed what the Go loop did. A body failing after an abort made ABORTED was told
    a body that finished *before* the abort keeps its result; a hook's reason "" left out of
    stderrSummary (Go's `reason != ""`) was told the audit's rules, not that "" is a reason; a
    hook's input printed with fmt.Sprint was HOOK-4 (the own log's reply read as showing a call
    hooks should not see) and then RW-1, the readers agreeing; hooks queued ranging over a map
    were told "which hook runs for which call, in order", not which order; a cancelled reply's
    U+001C kept as text (Go's strings.TrimSpace) was told JavaScript's and Java's trims alone."""
    assert_found(row, *phrases)


def test_RW_2_a_rewrite_printed_not_encoded_is_no_hook_run_for_invalid_arguments() -> None:
    """RW-2: the Go loop wrote a hook's input as fmt.Sprint printed it (map[command:pwd]), in
    the reply, the record and the run. The target's own log was read as a reply showing a call
    whose arguments are no object after hooks ran for it (HOOK-4), though the hooks judged the
    model's arguments and the reply shows the hook's input in their place (RW-3): check names
    the record whose arguments are not the input the hook supplied."""
    found = own_log_checked(FIXED[2])
    assert [rule for rule, _ in found][:1] == ["RW-2"], found
    assert "HOOK-4" not in [rule for rule, _ in found], found


def test_PROTO_1_a_loop_reading_lines_up_to_64_kib_meets_a_longer_one_declaring_nothing() -> None:
    """PROTO-1: the Go loop at bufio.Scanner's default cap passed every program on both seeds,
    their lines under 31 KB. A targeted program, played for a loop declaring no capability,
    now sends a line over 64 KiB (a reply's text), where that loop dies and is told the cap."""
    longest = max(
        len(json.dumps({"type": "command", "seq": 0, "command": command_to_json(command)})) + 1
        for situation in situations_for(frozenset())
        for command in situation.program
    )
    assert longest > process_target.SCANNER_LINE_BYTES


def test_PROTO_1_a_program_answered_two_ways_names_a_go_maps_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: the Go loop wrote its repair's results ranging over a map of its calls, so a
    rerun answered otherwise; conform's report said only to replay a few times. It now names
    what changes between runs, a Go map's order among them. (The Go loop's unflushed
    bufio.Writer: test_PROTO_1_an_answer_left_in_a_stdout_buffer_is_named_so.)"""
    report = attrs.evolve(_failed_report(), unrepeated=True)
    conform_run._text_report(report, Path("case.json"), {"impl": "mine:make"})
    said = capsys.readouterr().out
    assert "Go ranges over a map in a new order each time: order by the reply's calls" in said


def test_RW_2_a_printed_rewrite_of_a_call_waiting_behind_another_is_named_RW_2() -> None:
    """RW-2: the fmt.Sprint rewrite of a bash call waiting behind a read (as seeds 66 to 68 of
    50-69 cut it down) has not run when the hook answers, so not every reader was seen to hold
    the printed input and it read as RW-1; the run that agrees comes once the read settles."""
    _name, printing, *_ = next(row for row in FIXED if row[0].startswith("a rewrite's input"))
    reply = ModelReplies(
        (
            ToolCallBlock("c1", "read", '{"file_path":""}'),
            ToolCallBlock("c2", "bash", '{"command":""}'),
        )
    )
    answer = HookAnswers(Allow(updated_input=FrozenMap({"command": ""})))
    rewriting = LoopConfig(tools=TOOLS, hooks=(HookSpec("rewriter", "PreToolUse", "bash"),))
    row = (
        "a printed rewrite behind a read",
        printing,
        rewriting,
        (SubmitUser(""), reply, answer),
        "RW-2",
    )
    assert_found(row, 'the arguments it runs with are "map[command:]", no JSON')
