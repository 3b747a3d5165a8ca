"""A harness author's own log, written from the docs alone: docs/check.md's example passes, and
the mistakes such a writer makes are reported at their line, naming the rule broken and what to
change (each was found writing one: a torn write the resumed writer appended to, a byte order
mark, a path in another encoding, a forgotten newline, a rewrite recorded only in the audit, an
abort that left its calls without results)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from loopspec.model import invariants, wording
from loopspec.model.errors import InvalidEventError
from loopspec.model.events import HookInvoked
from loopspec.model.facts import fact_from_wire
from loopspec.properties.cli.main import main

DOCS = Path(__file__).resolve().parent.parent / "docs" / "check.md"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "logs"


def example_log() -> str:
    """The log of docs/check.md's "Writing your own harness's log", as a reader copies it."""
    section = DOCS.read_text(encoding="utf-8").split("## Writing your own harness's log", 1)[1]
    found = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert found is not None, "the section shows no log"
    return found.group(1)


def lines() -> list[str]:
    return example_log().splitlines(keepends=True)


def run(capsys: pytest.CaptureFixture[str], log: Path) -> tuple[int, str]:
    code = main(["check", str(log)])
    return code, capsys.readouterr().out


def first_said(capsys: pytest.CaptureFixture[str], log: Path, exit_code: int) -> str:
    """The first line check prints on `log`, without the file's name, having exited
    `exit_code`."""
    code, out = run(capsys, log)
    assert code == exit_code
    first = out.splitlines()[0]
    assert first.startswith(f"{log}:")
    return first[len(str(log)) :]


def refused(capsys: pytest.CaptureFixture[str], log: Path, data: bytes) -> str:
    """What check says first of `data` written to `log`, an input error (exit 2)."""
    log.write_bytes(data)
    return first_said(capsys, log, 2)


def edited(events: list[dict[str, object]], seq: int) -> dict[str, object]:
    (event,) = [each for each in events if each.get("seq") == seq]
    return event


def as_log(path: Path, events: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(each) + "\n" for each in events), encoding="utf-8")
    return path


def test_the_docs_example_log_passes_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/check.md shows a log to start a writer from; a reader who copies it gets no fault."""
    log = tmp_path / "mine.jsonl"
    log.write_text(example_log(), encoding="utf-8")
    code, out = run(capsys, log)
    assert (code, out) == (0, "checked 1 log, 13 events: 0 violations\n")


def test_crlf_line_ends_are_read_as_docs_check_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "windows.jsonl"
    log.write_bytes(example_log().replace("\n", "\r\n").encode())
    assert run(capsys, log) == (0, "checked 1 log, 13 events: 0 violations\n")


def test_a_torn_write_the_resumed_writer_appended_to_on_its_line_is_named_LOG_8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A crash cut a write short; the harness, reopening, appended the next event right after
    the cut bytes. It read 'invalid JSON at column 41: Expecting ',' delimiter' under LOG-4."""
    whole = lines()
    data = "".join(whole[:9]) + whole[9][:40] + "".join(whole[10:])
    assert refused(capsys, tmp_path / "resumed.jsonl", data.encode()) == (
        ":10: error invalid-json LOG-8: the line is a write cut off after 40 characters "
        "with the next event appended right after it, from column 41: the harness, reopening "
        "the log, appended without dropping the torn write first; cut the file back to the end "
        "of its last whole line before appending"
    )


def test_two_events_on_one_line_say_the_newline_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It read 'invalid JSON at column 79: Extra data'."""
    whole = lines()
    data = "".join(whole[:3]) + whole[3].rstrip("\n") + "".join(whole[4:])
    column = len(whole[3].rstrip("\n")) + 1
    assert refused(capsys, tmp_path / "joined.jsonl", data.encode()) == (
        f":4: error invalid-json LOG-4: two JSON values on one line, the second from column "
        f"{column}: the writer left out the newline after an event; end every event's line with "
        "\\n"
    )


def test_a_byte_order_mark_names_the_rule_and_after_the_header_the_writer_that_wrote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A BOM before the header is LOG-5's; one before a later line is a writer that encoded a
    write with `utf-8-sig` (`str.encode` writes the mark each time). Both named no rule, and the
    second said to save the log without it, which its writer would undo at its next write."""
    whole = lines()
    data = "".join(whole[:5]).encode() + b"\xef\xbb\xbf" + "".join(whole[5:]).encode()
    assert refused(capsys, tmp_path / "sig.jsonl", data) == (
        ":6: error invalid-json LOG-4: the line starts with a UTF-8 byte order mark "
        "(BOM): text encoded with one and appended (Python's .encode('utf-8-sig') puts one "
        "before each write), or a file saved with one joined on; write the log as plain UTF-8"
    )


def test_a_header_with_a_path_in_another_encoding_is_not_called_binary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cwd written in Latin-1 in the header read 'binary data, not a JSON Lines session log',
    with no rule and no place: the line is JSON text with one byte that is not UTF-8."""
    text = example_log().replace("/home/me/project", "/home/j\x00rg", 1).encode()
    at = text.split(b"\n")[0].index(b"\x00") + 1
    latin1 = text.replace(b"\x00", b"\xf6")
    assert refused(capsys, tmp_path / "latin1.jsonl", latin1) == (
        f":1: error invalid-utf8 LOG-5: not UTF-8 at byte {at} of the line (0xf6): a "
        "session log is UTF-8 text; write every string (paths and tool output too) as UTF-8"
    )


def test_binary_data_is_still_called_binary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = b"\x89PNG\r\n\x1a\n\xff\xfe" + bytes(range(128, 255))
    said = refused(capsys, tmp_path / "picture.jsonl", picture)
    assert said == ":1: error binary: binary data, not a JSON Lines session log"


def test_RW_2_a_rewrite_kept_only_in_the_audit_says_what_to_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The writer ran the hook's input but kept the model's in the reply and the tool/call,
    without a sidecar: RW-2 said only that no sidecar was there, as it did for a record of the
    hook's input that lacks one, whose fix differs."""
    events = [json.loads(each) for each in lines()]
    record = edited(events, 6)["data"]
    assert isinstance(record, dict)
    model_input = record.pop("rewrite")["originalArguments"]
    record["arguments"] = model_input
    reply = edited(events, 5)["data"]
    assert isinstance(reply, dict)
    reply["message"]["content"][0]["arguments"] = model_input
    code, out = run(capsys, as_log(tmp_path / "audit-only.jsonl", events))
    assert code == 1
    assert (
        "its tool/call (seq 6) carries no rewrite sidecar, and its result reports success; its "
        "arguments are not the input policy supplied: record that input as the call's "
        "arguments, in the reply and the tool/call, and the model's in "
        "rewrite.originalArguments [events 7 (line 9), 4 (line 6), 6 (line 8)]"
    ) in out


def test_RW_2_a_forgotten_sidecar_says_which_to_add(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [json.loads(each) for each in lines()]
    record = edited(events, 6)["data"]
    assert isinstance(record, dict)
    del record["rewrite"]
    code, out = run(capsys, as_log(tmp_path / "no-sidecar.jsonl", events))
    assert code == 1
    assert (
        "and its result reports success; it runs with policy's input: add the sidecar, "
        'rewrite: {originalArguments: the model\'s arguments, handlerIds: ["policy"]} [events'
    ) in out


def _audited_late(at_seq: int, *, failed: bool = False) -> list[dict[str, object]]:
    """The docs example's events with the model's input run and recorded (no sidecar), and
    the PreToolUse hook pair that supplied the other input moved to just after the event of
    seq `at_seq` (numbered again from 0); `failed`: the call's result is an error."""
    events = docs_events()
    record = edited(events, 6)["data"]
    assert isinstance(record, dict)
    model_input = record.pop("rewrite")["originalArguments"]
    record["arguments"] = model_input
    reply = edited(events, 5)["data"]
    assert isinstance(reply, dict)
    reply["message"]["content"][0]["arguments"] = model_input
    if failed:
        result = edited(events, 7)["data"]
        assert isinstance(result, dict)
        result["message"]["content"][0]["isError"] = True
    hooks = [events.pop(3), events.pop(3)]
    at = next(i for i, each in enumerate(events) if each["seq"] == at_seq) + 1
    events[at:at] = hooks
    for seq, event in enumerate(events):
        event["seq"] = seq
    (result,) = [each for each in events if each["type"] == "tool/result"]
    result["sourceEventSeqs"] = [next(e["seq"] for e in events if e["type"] == "tool/call")]
    return events


def test_HOOK_4_RW_2_a_rewrite_audited_after_its_calls_result_is_held_to_RW_2_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that audits a PreToolUse hook once its call's result is written, the model's
    input run and recorded: HOOK-4 at the hook/invoked, and nothing said of the input the hook
    supplied, which the same audit before the result makes RW-2 (neither recorded as a rewrite
    nor refused). RW-2 now at the hook/result, as a transcript's late hook is still RW-1's;
    where the result is an error (a refusal, maybe), HOOK-4 alone. Audited in the next step,
    whose reply makes no call, the hook was judged by no rule: HOOK-4 at that step's end, now
    naming the result it came after (it said only that the step's reply does not show c1), and
    RW-2 there too (HOOK-4 alone named it, the input it supplied judged by no rule)."""
    log = docs_log(tmp_path / "late.jsonl", _audited_late(7))
    code, out = run(capsys, log)
    assert (code, out.splitlines()[-1]) == (
        1,
        "checked 1 log, 13 events: 2 violations (HOOK-4: 1, RW-2: 1)",
    )
    assert ":8: HOOK-4 (seq 6): PreToolUse hook policy is invoked for call c1 after " in out
    assert (
        ":9: RW-2 (seq 7): hook policy supplied an input for c1 after that call's tool/result "
        "(seq 5), which reports success: the input was neither recorded as a rewrite nor "
        "refused, its tool/call (seq 4) carrying no rewrite sidecar; a PreToolUse hook answers "
        "before its call is decided [events 7 (line 9), 5 (line 7), 4 (line 6)]"
    ) in out
    code, out = run(capsys, docs_log(tmp_path / "failed.jsonl", _audited_late(7, failed=True)))
    assert (code, out.splitlines()[-1]) == (1, "checked 1 log, 13 events: 1 violation (HOOK-4: 1)")
    code, out = run(capsys, docs_log(tmp_path / "next-step.jsonl", _audited_late(9)))
    assert (code, out.splitlines()[-1]) == (
        1,
        "checked 1 log, 13 events: 2 violations (HOOK-4: 1, RW-2: 1)",
    )
    assert ":13: RW-2 (seq 11): hook policy supplied an input for c1 after that call's " in out
    assert (
        ":13: HOOK-4 (seq 11): PreToolUse hook policy answered for call c1 after that call's "
        "tool/result (seq 5, in an earlier step), in a step whose reply does not show it: "
    ) in out


def test_HOOK_4_HOOK_5_RW_2_a_hook_audited_in_a_later_step_names_the_result_it_came_after(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PreToolUse hook supplying an input for c1 audited between the steps, or after the next
    step's reply (which makes no call), and a PostToolUse hook for c1 in the next step: each
    came after c1's result, as in c1's own step, where HOOK-4 (HOOK-5) and RW-2 name it. They
    passed with 0 violations, but the one after the reply: HOOK-4 alone, at that step's end,
    saying the reply does not show c1. A step's results were forgotten at its end."""
    code, out = run(capsys, docs_log(tmp_path / "between.jsonl", _audited_late(8)))
    assert (code, out.splitlines()[-1]) == (
        1,
        "checked 1 log, 13 events: 2 violations (HOOK-4: 1, RW-2: 1)",
    )
    assert (
        ":9: HOOK-4 (seq 7): PreToolUse hook policy is invoked for call c1 after that call's "
        "tool/result (seq 5, in an earlier step): a PreToolUse hook answers before its call "
    ) in out
    assert ":10: RW-2 (seq 8): hook policy supplied an input for c1 after that call's " in out
    code, out = run(capsys, docs_log(tmp_path / "after-reply.jsonl", _audited_late(10)))
    assert (code, out.splitlines()[-1]) == (
        1,
        "checked 1 log, 13 events: 2 violations (HOOK-4: 1, RW-2: 1)",
    )
    assert ":12: RW-2 (seq 10): hook policy supplied an input for c1 after that call's " in out
    assert ":13: HOOK-4 (seq 11): PreToolUse hook policy answered for call c1 after " in out
    events = docs_events()
    with_post_hook(events, 10)  # after the next step's step/start
    assert first_said(capsys, docs_log(tmp_path / "post.jsonl", events), 1) == (
        ":12: HOOK-5 (seq 10): PostToolUse hook audit is invoked for call c1 after that call's "
        "tool/result (seq 7, in an earlier step): a PostToolUse hook's hook/invoked and "
        "hook/result come after the call's body ran and before that call's tool/result, in its "
        "step [events 10 (line 12), 7 (line 9)]"
    )


def test_ABORT_1_an_aborted_turn_that_left_a_call_unanswered_says_what_the_abort_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The writer ended a cancelled turn without its calls' results: ADJ-3 said only 'turn
    ends with call c1 unanswered', and a writer that thought an abort excuses results had no
    hint that it does not, nor what to write. The abort's answers are ABORT-1's, which names
    it (as conform does)."""
    events = [json.loads(each) for each in lines()[1:8]]  # up to the tool/call
    events.append(
        {"type": "step/end", "seq": 7, "time": 1765000000008, "data": {"turn": 1, "step": 1}}
    )
    reason = {"kind": "aborted", "reason": {"kind": "user"}}
    events.append(
        {"type": "turn/end", "seq": 8, "time": 1765000000009, "data": {"turn": 1, "reason": reason}}
    )
    header = json.loads(lines()[0])
    assert first_said(capsys, as_log(tmp_path / "aborted.jsonl", [header, *events]), 1) == (
        ":10: ABORT-1 (seq 8): turn ends with call c1 unanswered: an abort answers every "
        "call of the step before it ends the turn, ABORTED for a body that ran, "
        "ABORTED_BEFORE_DISPATCH for one that never started [events 8 (line 10), 5 (line 7)]"
    )


def test_a_time_in_seconds_says_what_was_written_and_how_to_write_milliseconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that stamped events with `time.time()` read only that time must be whole
    milliseconds, with nothing to say it had written seconds; an ISO timestamp the same."""
    events = [json.loads(each) for each in lines()]
    events[1]["time"] = 1765000000.25
    data = "".join(json.dumps(each) + "\n" for each in events).encode()
    assert refused(capsys, tmp_path / "seconds.jsonl", data) == (
        ":2: error bad-event LOG-4: turn/start: time must be a number of whole milliseconds "
        "(since the Unix epoch), got 1765000000.25, seconds: write milliseconds, as "
        "int(time.time() * 1000)"
    )
    events[1]["time"] = "2026-12-05T03:00:00Z"
    data = "".join(json.dumps(each) + "\n" for each in events).encode()
    assert refused(capsys, tmp_path / "iso.jsonl", data) == (
        ":2: error bad-event LOG-4: turn/start: time must be a number of whole milliseconds "
        '(since the Unix epoch), got "2026-12-05T03:00:00Z"'
    )


def test_LOG_1_says_the_header_has_no_seq_and_a_resume_goes_on_from_the_last(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that counted the header as seq 0, and one that restarted its count on
    resuming (its next turn's events numbered from 0), each read 'seq 1 where 0 was due' (or
    'seq 0 where 13 was due') with nothing to say why."""
    events = [json.loads(each) for each in lines()]
    for event in events[1:]:
        event["seq"] += 1
        event["sourceEventSeqs"] = [seq + 1 for seq in event.get("sourceEventSeqs", [])] or None
        if event["sourceEventSeqs"] is None:
            del event["sourceEventSeqs"]
    assert first_said(capsys, as_log(tmp_path / "from-1.jsonl", events), 1) == (
        ":2: LOG-1 (seq 1): seq 1 where 0 was due: the header has "
        "no seq, the first event's is 0 [events 1 (line 2)]"
    )
    resumed = tmp_path / "resumed.jsonl"
    next_turn = "".join(lines()[1:4]).replace('"turn": 1', '"turn": 2')
    resumed.write_text(example_log() + next_turn, encoding="utf-8")
    assert first_said(capsys, resumed, 1) == (
        ":15: LOG-1 (seq 0): seq 0 where 13 was due: that seq is taken already; each "
        "event's is the one before it + 1, after a compact row (one per item) or a resume too "
        "(go on from the log's last seq) [events 0 (line 15)]"
    )


def test_ORD_2_names_the_event_a_result_cites_in_place_of_its_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A result citing the event before its tool/call (a writer's seq off by one) read only
    that it does not cite its call's record, leaving the reader to find what it cites."""
    events = [json.loads(each) for each in lines()]
    edited(events, 7)["sourceEventSeqs"] = [5]
    assert first_said(capsys, as_log(tmp_path / "off-by-one.jsonl", events), 1) == (
        ":9: ORD-2 (seq 7): result for c1 does not cite its tool/call seq 6 in sourceEventSeqs, "
        "which cites seq 5, the assistant/message making the call [events 7 (line 9), 6 (line "
        "8)]"
    )


def test_the_event_schema_docs_check_names_holds_each_line_of_the_example(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/check.md sends a writer's test to `loopspec schema driver`'s `$defs.event`: each
    event line of its example keeps it, and a time written in seconds does not."""
    assert main(["schema", "driver"]) == 0
    printed = json.loads(capsys.readouterr().out)
    schema = {**printed["$defs"]["event"], "$defs": printed["$defs"]}
    validator = jsonschema.Draft202012Validator(schema)
    events = [json.loads(each) for each in lines()[1:]]
    assert [list(validator.iter_errors(each)) for each in events] == [[] for _ in events]
    events[0]["time"] = 1765000000.25
    assert not validator.is_valid(events[0])


def test_a_dialect_of_the_harness_own_says_which_to_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A harness whose hooks speak a protocol of its own named it as the dialect, and read
    that it must be "claude-code" or "codex", with nothing to say which of the two it is."""
    data = example_log().replace('"dialect": "claude-code"', '"dialect": "mine"').encode()
    assert refused(capsys, tmp_path / "own-dialect.jsonl", data) == (
        ':5: error bad-event HOOK-1: hook/invoked: hook dialect must be one of "claude-code", '
        '"codex", got "mine": the protocol the hook\'s answers follow (a harness\'s own protocol '
        "writes the closer of the two)"
    )


def test_HOOK_1_the_models_event_words_a_dialect_of_its_own_as_check_does() -> None:
    """The model's hook/invoked refused the same dialect in older words, without what to write
    instead: a writer building events with the model's classes read one thing, check another."""
    with pytest.raises(InvalidEventError) as refusal:
        HookInvoked(3, 1765000000004, 1, "PreToolUse", "mine", "policy")
    assert (refusal.value.rule_id, str(refusal.value)) == (
        "HOOK-1",
        '[HOOK-1] hook dialect must be one of "claude-code", "codex", got "mine": the protocol '
        "the hook's answers follow (a harness's own protocol writes the closer of the two)",
    )


def test_a_nan_says_json_has_none_and_how_python_wrote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hook's duration measured as NaN, written by Python's json.dumps, read only 'NaN is
    not JSON': nothing said which writer produces it or what to write instead."""
    data = example_log().replace('"durationMs": 2,', '"durationMs": NaN,').encode()
    assert refused(capsys, tmp_path / "nan.jsonl", data) == (
        ":6: error invalid-json LOG-4: invalid JSON: NaN is not JSON, which has no NaN or "
        "Infinity (Python's json.dumps writes them unless given allow_nan=False): write such a "
        "value as a string or null"
    )


def with_post_hook(events: list[dict[str, object]], at: int, call_id: str | None = "c1") -> None:
    """Insert a PostToolUse `hook/invoked` and `hook/result` of hook `audit` at index `at` of
    `events` (about `call_id`, or naming no call), and number every event from 0 again."""
    named = {} if call_id is None else {"callId": call_id}
    invoked = {"turn": 1, "point": "PostToolUse", "dialect": "claude-code", "handlerId": "audit"}
    answered = {
        "turn": 1,
        "point": "PostToolUse",
        "handlerId": "audit",
        "decision": "pass",
        "durationMs": 1,
    }
    events[at:at] = [
        {"type": "hook/invoked", "time": 1765000000008, "data": {**invoked, **named}},
        {"type": "hook/result", "time": 1765000000008, "data": {**answered, **named}},
    ]
    for seq, event in enumerate(events):
        event["seq"] = seq


def docs_events() -> list[dict[str, object]]:
    """The docs example's events, without its header."""
    return [json.loads(each) for each in lines()[1:]]


def docs_log(path: Path, events: list[dict[str, object]]) -> Path:
    """`events` written to `path` after the docs example's header."""
    return as_log(path, [json.loads(lines()[0]), *events])


def test_HOOK_5_a_post_hook_written_after_the_result_it_judges_is_named_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that audits a PostToolUse hook once the call's result is written: check passed
    it, 0 violations, though HOOK-5 puts the pair before that result (conform saw it). Written
    before the result, the same pair passes."""
    events = docs_events()
    with_post_hook(events, 7)  # before the tool/result (seq 7)
    assert run(capsys, docs_log(tmp_path / "in-place.jsonl", events)) == (
        0,
        "checked 1 log, 15 events: 0 violations\n",
    )
    events = docs_events()
    with_post_hook(events, 8)  # after it
    assert first_said(capsys, docs_log(tmp_path / "late.jsonl", events), 1) == (
        ":10: HOOK-5 (seq 8): PostToolUse hook audit is invoked for call c1 after that call's "
        "tool/result (seq 7): a PostToolUse hook's hook/invoked and hook/result come after the "
        "call's body ran and before that call's tool/result, in its step [events 8 (line 10), "
        "7 (line 9)]"
    )
    # The words docs/check.md quotes for this very edit.
    quoted = "PostToolUse hook audit is invoked for call c1 after that call's tool/result (seq 7)"
    assert quoted in " ".join(DOCS.read_text(encoding="utf-8").split())


def test_HOOK_5_a_post_hook_answer_written_after_the_result_or_outside_the_step_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its hook/invoked before the result, its hook/result after; a pair after step/end; and a
    pair naming no call (as dsh writes them) after the step's every result."""
    events = docs_events()
    with_post_hook(events, 7)
    events[8], events[9] = events[9], events[8]  # the tool/result between the pair
    for seq, event in enumerate(events):
        event["seq"] = seq
    said = first_said(capsys, docs_log(tmp_path / "split.jsonl", events), 1)
    assert said.startswith(
        ":11: HOOK-5 (seq 9): PostToolUse hook audit's hook/result for call c1 comes after that "
        "call's tool/result (seq 8), its hook/invoked (seq 7) before it"
    )
    events = docs_events()
    with_post_hook(events, 9)  # after the step/end (seq 8)
    said = first_said(capsys, docs_log(tmp_path / "after-step.jsonl", events), 1)
    assert said.startswith(
        ":11: HOOK-5 (seq 9): PostToolUse hook audit is invoked for call c1 outside a step"
    )
    events = docs_events()
    with_post_hook(events, 8, call_id=None)
    said = first_said(capsys, docs_log(tmp_path / "unnamed.jsonl", events), 1)
    assert said.startswith(
        ":10: HOOK-5 (seq 8): PostToolUse hook audit is invoked after every call of the step "
        "has its tool/result (the last at seq 7), naming none"
    )


def test_HOOK_5_a_post_hook_run_twice_for_one_call_is_named_at_its_second_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that runs a PostToolUse hook again (a retry after a slow answer) audits two
    verdicts on one result: each matching hook judges it once."""
    events = docs_events()
    with_post_hook(events, 7)
    with_post_hook(events, 9)  # both before the tool/result, now seq 11
    assert first_said(capsys, docs_log(tmp_path / "twice.jsonl", events), 1) == (
        ":11: HOOK-5 (seq 9): PostToolUse hook audit is invoked a second time for call c1 (first "
        "at seq 7): each PostToolUse hook that matches a call judges its result once [events 9 "
        "(line 11), 7 (line 9)]"
    )


@pytest.mark.parametrize("never_ran", ["denied", "aborted before dispatch", "rewrite refused"])
def test_HOOK_5_a_post_hook_for_a_call_that_never_ran_is_named_at_its_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], never_ran: str
) -> None:
    """A writer that runs PostToolUse hooks for every call, as dsh does, audits one for a call
    its PreToolUse hook denied, one an abort found not started, or one whose hook supplied an
    input the tool cannot take (HOOK-6 refuses it, in its own words and with no error code): no
    body ran to judge. The refusal passed, 0 violations."""
    events = docs_events()
    with_post_hook(events, 7)
    result = edited(events, 9)["data"]
    assert isinstance(result, dict)
    block = result["message"]["content"][0]
    block["isError"] = True
    if never_ran == "denied":
        answer = edited(events, 4)["data"]
        assert isinstance(answer, dict)
        answer.update({"decision": "deny", "reason": "not today"})
        del answer["updatedInput"]
        record, reply = edited(events, 6)["data"], edited(events, 5)["data"]
        assert isinstance(record, dict)
        assert isinstance(reply, dict)
        record["arguments"] = record.pop("rewrite")["originalArguments"]
        reply["message"]["content"][0]["arguments"] = record["arguments"]
        block["content"] = [{"type": "text", "text": "Error: not today"}]
        why = "PreToolUse hook policy denied it (seq 4) and its result is the error a denial"
    elif never_ran == "rewrite refused":
        answer = edited(events, 4)["data"]
        assert isinstance(answer, dict)
        answer["updatedInput"] = "archive/notes.txt"  # a string: no input a tool takes
        record, reply = edited(events, 6)["data"], edited(events, 5)["data"]
        assert isinstance(record, dict)
        assert isinstance(reply, dict)
        record["arguments"] = record.pop("rewrite")["originalArguments"]
        reply["message"]["content"][0]["arguments"] = record["arguments"]
        refusal = (
            "Error: hook policy rewrote the input of read_file: the input must be a JSON object"
        )
        block["content"] = [{"type": "text", "text": refusal}]
        why = (
            "its result refuses the input PreToolUse hook policy supplied (seq 4), as a rewrite "
            "the tool cannot take is refused: its body never ran (HOOK-6)"
        )
    else:
        block["content"] = [{"type": "text", "text": "Error: tool call aborted before dispatch"}]
        result["error"] = {"name": "AbortError", "code": "ABORTED_BEFORE_DISPATCH"}
        why = "its result says its body never started (ABORTED_BEFORE_DISPATCH)"
    said = first_said(capsys, docs_log(tmp_path / "unrun.jsonl", events), 1)
    assert said.startswith(
        f":11: HOOK-5 (seq 9): PostToolUse hook audit was audited for call c1 (seq 8), yet {why}"
    ), said
    assert "a call whose body never ran gets no PostToolUse hook" in said


def test_HOOK_5_check_reads_a_refused_rewrite_in_the_wording_tables_words() -> None:
    """check does not import the wording table: its copy of the refusal's words is the table's
    (a reworded refusal would pass a PostToolUse pair written for it again)."""
    assert f" {wording.REWRITE_REFUSED_WORDS} " == invariants.REWRITE_REFUSED_WORDS
    refusal = wording.ERROR_PREFIX + wording.REWRITE_REFUSED
    assert refusal.startswith(f"Error: hook {{hook}}{invariants.REWRITE_REFUSED_WORDS}{{tool}}: ")


def test_LOG_2_a_result_without_its_surfaceOp_is_blamed_once_and_still_answers_its_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that leaves surfaceOp off its results (the docs example's, edited so) was told
    LOG-2 at the result, rightly, and then ADJ-3 "turn ends with call c1 unanswered", though
    the result is in the log: a result without its surfaceOp answered nothing. LOG-2 alone
    now, in check and in conform's log check alike; a call with no result at all is still
    ADJ-3's."""
    events = docs_events()
    del edited(events, 7)["surfaceOp"]
    code, out = run(capsys, docs_log(tmp_path / "no-surface-op.jsonl", events))
    assert (code, out.splitlines()[-1]) == (1, "checked 1 log, 13 events: 1 violation (LOG-2: 1)")
    assert ":9: LOG-2 (seq 7): tool/result must carry surfaceOp: " in out
    monitor = invariants.LogMonitor()
    found = [
        (each.rule_id, each.seq) for event in events for each in monitor.feed(fact_from_wire(event))
    ]
    assert found == [("LOG-2", 7)]
    # The first of three results: the next was blamed on ORD-3 too, as coming before it.
    demo = FIXTURES / "valid" / "model-demo.jsonl"
    rows = [json.loads(each) for each in demo.read_text(encoding="utf-8").splitlines()]
    del edited(rows, 12)["surfaceOp"]  # call_a's result
    code, out = run(capsys, as_log(tmp_path / "first-of-three.jsonl", rows))
    assert (code, out.splitlines()[-1]) == (1, "checked 1 log, 44 events: 1 violation (LOG-2: 1)")
    # Left out of the log, the result leaves its call unanswered.
    unanswered = [each for each in docs_events() if each["seq"] != 7]
    code, out = run(capsys, docs_log(tmp_path / "no-result.jsonl", unanswered))
    assert code == 1
    assert ": ADJ-3 (seq 12): turn ends with call c1 unanswered" in out


def test_STEP_3_a_result_naming_another_step_is_blamed_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that gives a result, in its place, the number of a step not open (a slip):
    STEP-3 at the result, and then ADJ-3 at the turn's end, "turn ends with call c1
    unanswered", though the result is in the log. It answers its call: STEP-3 alone."""
    events = docs_events()
    data = edited(events, 7)["data"]
    assert isinstance(data, dict)
    data["step"] = 2
    code, out = run(capsys, docs_log(tmp_path / "slip.jsonl", events))
    assert (code, out.splitlines()[-1]) == (1, "checked 1 log, 13 events: 1 violation (STEP-3: 1)")
    said = ":9: STEP-3 (seq 7): tool/result names turn 1 step 2, the open step is turn 1 step 1"
    assert said in out


@pytest.mark.parametrize(
    ("copied", "said"),
    [
        (1, "STEP-1 (seq 7): step 1 starts inside open step 1"),
        (0, "REC-1 (seq 7): turn 1 starts inside open turn 1, where call c1 still awaits its"),
    ],
    ids=["step/start", "turn/start"],
)
def test_STEP_1_REC_1_a_start_written_again_mid_step_is_blamed_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], copied: int, said: str
) -> None:
    """A writer that writes its step's (or turn's) start again while a call awaits its result
    (a retried write, or a resume without repair): STEP-1 at the copy (REC-1, a turn opened
    over a call awaiting its result), and then the call's result "which no call of this step
    made" (ADJ-2), or every later event of the step outside any step (STEP-3) and the call
    unanswered at the turn's end (ADJ-3). The copy starts nothing: blamed once."""
    events = docs_events()
    events.insert(7, json.loads(json.dumps(edited(events, copied))))
    for seq, event in enumerate(events):
        event["seq"] = seq
    edited(events, 8)["sourceEventSeqs"] = [6]
    code, out = run(capsys, docs_log(tmp_path / "again.jsonl", events))
    rule = said.split(" ", maxsplit=1)[0]
    assert (code, out.splitlines()[-1]) == (1, f"checked 1 log, 14 events: 1 violation ({rule}: 1)")
    assert f":9: {said}" in out


def test_LOG_4_a_misspelt_event_type_is_noted_where_it_is_read_as_a_plugins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that misspells a type (`tool/cal`) was told ADJ-2 at the call's result, which
    "has no tool/call record before it", and nothing of the line that holds it: a type no rule
    reads is a plugin's event, judged by its seq and place. A notice now names that line."""
    events = docs_events()
    edited(events, 6)["type"] = "tool/cal"
    code, out = run(capsys, docs_log(tmp_path / "typo.jsonl", events))
    said = out.splitlines()
    assert code == 1
    assert ":9: ADJ-2 (seq 7): result for c1, which has no tool/call record before it" in said[0]
    assert said[1].endswith(
        ":8: notice misspelt-type LOG-4: type tool/cal is no type the rules read, one letter "
        "from tool/call: check reads it as a plugin's event (its seq and place alone), so the "
        "log holds no tool/call here, and what follows is judged without it; if tool/call was "
        "meant, write that type"
    )
    edited(events, 6)["type"] = "tool/invoked"  # a plugin's own: not noted
    code, out = run(capsys, docs_log(tmp_path / "plugin.jsonl", events))
    assert "misspelt-type" not in out


def test_LOG_4_a_log_timed_in_seconds_is_noted_once_at_its_first_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer that stamps its events `int(time.time())` (the docs example's times, in
    seconds) was told nothing by check, where conform blames LOG-4: no rule check judges
    compares a time with a clock. A notice now says so, once, at the first event, and the
    verdict stays the log's; a log timed in milliseconds, or at 0 as normalised logs are, is
    not noted."""
    events = docs_events()
    for event in events:
        assert isinstance(event["time"], int)
        event["time"] //= 1000
    code, out = run(capsys, docs_log(tmp_path / "seconds.jsonl", events))
    said = out.splitlines()
    assert code == 0
    assert said[0].endswith(
        ":2: notice time-in-seconds LOG-4: time 1765000000 is 6 December 2025 in seconds since "
        "the Unix epoch, but 21 January 1970 in milliseconds, which an event's time counts: a "
        "clock read in seconds (int(time.time())) where int(time.time() * 1000) is due; no rule "
        "check judges compares a time with a clock, so no verdict rests on it (conform blames it)"
    )
    assert said[1:] == ["checked 1 log, 13 events: 0 violations; 1 notice (time-in-seconds: 1)"]
    for event in events:
        event["time"] = 0
    assert run(capsys, docs_log(tmp_path / "normalised.jsonl", events)) == (
        0,
        "checked 1 log, 13 events: 0 violations\n",
    )


def test_LOG_4_a_clock_that_turned_to_seconds_mid_log_is_noted_at_the_last_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer whose first events are timed in milliseconds and its later ones in seconds (a
    resumed writer reading `int(time.time())`) got no notice: only the first event's time was
    looked at. The last event's is looked at too, once, at the end (no line pays for it)."""
    events = docs_events()
    for event in events[6:]:
        assert isinstance(event["time"], int)
        event["time"] //= 1000
    code, out = run(capsys, docs_log(tmp_path / "changed.jsonl", events))
    said = out.splitlines()
    assert code == 0
    assert said[0].endswith(
        ":14: notice time-in-seconds LOG-4: the last event's time 1765000000 is 6 December 2025 "
        "in seconds since the Unix epoch, but 21 January 1970 in milliseconds, where the first "
        "event's, at line 2, counts milliseconds: the writer's clock changed after line 2 (a "
        "resumed writer, say) to a clock read in seconds (int(time.time())) where "
        "int(time.time() * 1000) is due; no rule check judges compares a time with a clock, so "
        "no verdict rests on it (conform blames it)"
    ), said[0]
    assert said[1:] == ["checked 1 log, 13 events: 0 violations; 1 notice (time-in-seconds: 1)"]


def test_LOG_5_a_header_created_in_seconds_is_noted_in_the_log_s_one_notice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A header whose createdAt is `int(time.time())` (LOG-5 asks milliseconds) got no notice:
    only the first event's time was looked at. It is noted at the header's line, naming LOG-5;
    and where the first event is timed in seconds too, that one notice names both."""
    header = json.loads(lines()[0])
    assert isinstance(header["createdAt"], int)
    header["createdAt"] //= 1000
    events = docs_events()
    code, out = run(capsys, as_log(tmp_path / "created.jsonl", [header, *events]))
    said = out.splitlines()
    assert code == 0
    created = (
        ":1: notice time-in-seconds LOG-5: the header's createdAt 1765000000 is 6 December 2025 "
        "in seconds since the Unix epoch, but 21 January 1970 in milliseconds, which createdAt "
        "counts"
    )
    clock = (
        ": a clock read in seconds (int(time.time())) where int(time.time() * 1000) is due; no "
        "rule check judges compares a time with a clock, so no verdict rests on it"
    )
    assert said[0].endswith(created + clock), said[0]
    assert said[1:] == ["checked 1 log, 13 events: 0 violations; 1 notice (time-in-seconds: 1)"]
    for event in events:
        assert isinstance(event["time"], int)
        event["time"] //= 1000
    code, out = run(capsys, as_log(tmp_path / "both.jsonl", [header, *events]))
    said = out.splitlines()
    assert code == 0
    both = "; the first event's time 1765000000, at line 2, counts seconds too (LOG-4, which "
    assert said[0].endswith(f"{created}{both}conform blames){clock}"), said[0]
    assert said[1:] == ["checked 1 log, 13 events: 0 violations; 1 notice (time-in-seconds: 1)"]
