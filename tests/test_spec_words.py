"""SPEC.md's prose, read as a stranger implementing a harness reads it, held to what loopspec
does: each claim here is one a reader acts on, checked in-process on the model's demo log with
one edit (`loopspec spec RULE --example`'s log before its edit)."""

from __future__ import annotations

import copy
import io
import json
import re
from collections.abc import Callable

import pytest

from loopspec import spec_text
from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    PreVerdict,
    SubmitUser,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec, matcher_problem
from loopspec.model.derive import derive_messages, surface_nodes
from loopspec.model.messages import ToolCallBlock
from loopspec.model.prefix import REPAIR_CODES
from loopspec.model.wire import event_from_wire
from loopspec.model.wording import ERROR_PREFIX, NOT_STARTED
from loopspec.properties.cli.spec_example import no_example_line
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.logcheck import DEFAULT_MAX_LINE_BYTES
from loopspec.properties.logcheck.acp_stream import CHECKED_IN_PART
from loopspec.properties.logcheck.checker import check_stream
from loopspec.properties.logcheck.rule_examples import Rows, demo_rows, example_rules, row_data
from loopspec.properties.logcheck.synth import (
    HEADER,
    MARKED_HEADER,
    Row,
    jsonl,
    model_rows,
    renumber,
)
from loopspec.properties.spec_rules import log_checked_rules, rule_ids_in_spec

Edit = Callable[[Rows], object]  # edits the rows in place (what it returns is not read)


def _section(number: int) -> str:
    spec = spec_text()
    start = spec.index(f"\n## {number}. ")
    return spec[start : spec.index("\n## ", start + 1)]


def _first(rows: Rows, kind: str) -> Row:
    return next(row for row in rows if row["type"] == kind)


def _set(kind: str, key: str, value: object) -> Edit:
    """The first `kind` event's `data.key` becomes `value`."""
    return lambda rows: row_data(_first(rows, kind)).__setitem__(key, value)


def _checked(log: str) -> list[tuple[int | None, str | None]]:
    """The line and rule of each input error check reports in `log`, which breaks no rule."""
    report = check_stream("log", io.BytesIO(log.encode()))
    assert report.violations == []
    return [(error.line, error.rule_id) for error in report.errors]


def _torn_in_the_middle(rows: Rows) -> str:
    """The log with its fifth event's line cut off mid-write and the later lines after it."""
    lines = jsonl(HEADER, rows).split("\n")
    lines[5] = lines[5][:30]
    return "\n".join(lines)


# One line per rule that an input error of `loopspec check` names, each written so that check
# cannot read it as that rule says: the log's text, or an edit of the demo's events.
_UNREADABLE_TEXT: dict[str, Callable[[Rows], str]] = {
    "LOG-5": lambda rows: jsonl({**HEADER, "createdAt": -1}, rows),
    "LOG-8": _torn_in_the_middle,
}
_UNREADABLE: dict[str, Edit] = {
    "LOG-4": lambda rows: _first(rows, "hook/invoked").pop("time"),
    "LOG-2": lambda rows: _first(rows, "user/message").__setitem__("surfaceOp", "bogus"),
    "LOG-3": _set("hook/result", "durationMs", -0.0),
    "LOG-6": lambda rows: row_data(_first(rows, "tool/result"))["message"].update(role="agent"),
    "TURN-1": _set("turn/start", "turn", 0),
    "STEP-1": _set("step/start", "step", 0),
    "TURN-5": _set("turn/end", "reason", {"kind": ""}),
    "HOOK-1": _set("hook/invoked", "dialect", "gemini"),
    "RW-2": _set("tool/call", "rewrite", "safe-flags"),
    "SAFE-4": _set("hook/result", "nested", json.loads("[" * 600 + "]" * 600)),
}


def _listed_for_unreadable_lines() -> set[str]:
    """The rules section 2 says an input error of check names: '(LOG-4, unless another does:
    ...)', up to the notices it names next."""
    section = _section(2)
    start = section.index("(LOG-4, unless another does:")
    return set(re.findall(r"\b[A-Z]+-\d+\b", section[start : section.index("a last turn", start)]))


@pytest.mark.parametrize("rule", sorted({*_UNREADABLE_TEXT, *_UNREADABLE}))
def test_LOG_4_an_unreadable_line_names_the_rule_section_2_lists(rule: str) -> None:
    """Each edit leaves one line check cannot read, an input error naming `rule`, which
    section 2 lists among the rules such an error names (it left out TURN-1 and STEP-1, which
    a turn or step numbered 0 is refused under)."""
    rows = copy.deepcopy(demo_rows())
    if rule in _UNREADABLE_TEXT:
        log = _UNREADABLE_TEXT[rule](rows)
    else:
        _UNREADABLE[rule](rows)
        log = jsonl(HEADER, rows)
    ((_line, named),) = _checked(log)
    assert named == rule
    assert rule in _listed_for_unreadable_lines()


def test_LOG_4_section_2_lists_no_rule_an_unreadable_line_does_not_name() -> None:
    """Every rule section 2 lists is one a line above makes check name."""
    assert _listed_for_unreadable_lines() == {*_UNREADABLE_TEXT, *_UNREADABLE}


@pytest.mark.parametrize(
    ("kind", "key", "refused_under"),
    [
        ("tool/call", "rewrite", "RW-2"),
        ("assistant/message", "usage", None),
        ("hook/invoked", "callId", "LOG-4"),
        ("hook/result", "exitCode", "LOG-4"),
    ],
)
def test_LOG_4_an_optional_object_written_null_is_read_as_section_2_says(
    kind: str, key: str, refused_under: str | None
) -> None:
    """Section 2: `null` reads as left out only for an optional object whose members section
    10 leaves open (`usage`); the `rewrite` sidecar, whose members it gives, is refused under
    RW-2 (section 2 said every optional object may be null), and a hook's typed member under
    LOG-4, not HOOK-1, the hook's rule, which a reader of section 2's list predicted."""
    rows = copy.deepcopy(demo_rows())
    _set(kind, key, None)(rows)
    errors = _checked(jsonl(HEADER, rows))
    assert [rule for _line, rule in errors] == ([refused_under] if refused_under else [])
    said = " ".join(_section(2).split())
    assert "`rewrite` sidecar, under RW-2): only an optional object whose members" in said
    assert "`exitCode`: LOG-4's, as HOOK-1 gives no type of theirs" in said


def _between_turns(row: Row) -> Edit:
    """`row` is inserted between the demo's first two turns, the seqs after it moved on."""

    def insert(rows: Rows) -> None:
        at = rows.index(_first(rows, "turn/end")) + 1
        rows.insert(at, {**row, "seq": at, "time": rows[at - 1]["time"]})
        for seq, later in enumerate(rows[at + 1 :], start=at + 1):
            later["seq"] = seq
            if "sourceEventSeqs" in later:
                later["sourceEventSeqs"] = [s + (s >= at) for s in later["sourceEventSeqs"]]

    return insert


@pytest.mark.parametrize(
    ("row", "blamed"),
    [
        ({"type": "approval/asked", "data": {"id": "a", "toolName": "bash"}}, []),
        (
            {"type": "approval/asked", "data": {"id": "a", "toolName": "bash", "callId": "x"}},
            ["DEC-2"],
        ),
        ({"type": "approval/decided", "data": {"id": "a", "outcome": "rejected"}}, ["DEC-2"]),
        ({"type": "session/title", "data": {"title": "t"}}, []),
        ({"type": "todo/write", "data": {}}, ["TURN-3"]),
    ],
)
def test_TURN_3_between_turns_is_where_turn_3_says(row: Row, blamed: list[str]) -> None:
    """TURN-3's list: an approval event, which names no turn, may stand between turns, held
    there only to DEC-2 (the rule listed neither it nor a plugin event's leave for it)."""
    rows = copy.deepcopy(demo_rows())
    _between_turns(row)(rows)
    report = check_stream("log", io.BytesIO(jsonl(HEADER, rows).encode()))
    assert report.errors == []
    assert [found.violation.rule_id for found in report.violations] == blamed
    rule = spec_text().split("### TURN-3 ")[1].split("**Why.**")[0]
    assert (f"`{row['type']}`" in rule) == (row["type"] != "session/title")


def _acp_recording_rules() -> set[str]:
    """The rules check judges an ACP recording by, each in part (`rules_checked` of one lists
    them; read from the table, as checking a recording imports the ACP schema's validator)."""
    return set(CHECKED_IN_PART)


def test_a_rule_without_an_example_says_where_check_names_it() -> None:
    """`spec RULE --example` for a rule check judges in no log of the model's layout says
    where check still names it: ACP-1 in an ACP recording (it said check finds no violation of
    it), SAFE-4 in an input error for a line past its bound (it said only that it holds
    loopspec itself), as every rule an unreadable line names, above, is said to be."""
    lines = {rule: no_example_line(rule) for rule in rule_ids_in_spec(spec_text())}
    for rule in _acp_recording_rules() - set(example_rules()):
        assert "`loopspec check` finds it only in an ACP recording" in lines[rule]
    for rule in {*_UNREADABLE_TEXT, *_UNREADABLE} - set(example_rules()):
        assert "input error" in lines[rule], rule


def _asked_row(rows: Rows) -> dict[str, object]:
    return row_data(_first(rows, "approval/asked"))


def _denial_block(rows: Rows) -> dict[str, object]:
    """The tool-result block of the demo's one error result, the policy hook's denial."""
    results = (
        row_data(row)["message"]["content"][0] for row in rows if row["type"] == "tool/result"
    )
    denial: dict[str, object] = next(block for block in results if block["isError"])
    return denial


# Edits that break a rule check judges, each in a part of it no log shows to check.
_UNSEEN_PART: dict[str, Edit] = {
    "DEC-2": lambda rows: _asked_row(rows).update(reason="another reason"),
    "RW-4": lambda rows: _asked_row(rows).pop("arguments"),
    "DEC-1": lambda rows: _denial_block(rows).update(
        content=[{"type": "text", "text": "Error: another reason"}]
    ),
}


@pytest.mark.parametrize("rule", sorted(_UNSEEN_PART))
def test_MODEL_1_a_rule_check_holds_in_part_is_listed_so(rule: str) -> None:
    """A rule check judges, broken where a log does not show it (an approval's reason, a
    request without arguments, a denial's words) passes check, so section 2 lists it among the
    rules an invariant holds only in part, whose Where. says which part (DEC-2 and RW-4 were
    missing)."""
    rows = copy.deepcopy(demo_rows())
    _UNSEEN_PART[rule](rows)
    assert _checked(jsonl(HEADER, rows)) == []
    assert rule in log_checked_rules(spec_text())
    found = re.search(r"only part of its rule \(([^)]*)\)", " ".join(_section(2).split()))
    assert found is not None
    assert rule in found[1].split(", ")


def _compacted(rows: Rows, start: int, end: int) -> Rows:
    """The demo's turn 1 with two compactions after its last reply (seq 18): the first, seq 19,
    replaces node 2, the prompt; the second replaces `start`..`end`."""
    reply = next(row for row in rows if row["type"] == "assistant/message" and row["seq"] == 18)
    at = rows.index(reply) + 1
    for span in ((2, 2), (start, end)):
        compaction = copy.deepcopy(reply)
        compaction["seq"] = None
        compaction["surfaceOp"] = {"op": "replace", "start": span[0], "end": span[1]}
        rows.insert(at, compaction)
        rows = renumber(rows)
        at += 1
    return rows


@pytest.mark.parametrize(("start", "end", "blamed"), [(19, 15, []), (15, 19, ["LOG-7"])])
def test_LOG_7_start_not_after_end_is_in_surface_order(
    start: int, end: int, blamed: list[str]
) -> None:
    """After seq 19 replaced node 2 it stands first, so `{start: 19, end: 15}` names nodes in
    order and `{start: 15, end: 19}` does not, whatever their seqs: LOG-7 says surface order,
    and section 2 says what it is (LOG-7 said only 'start not after end'). (Both keep the
    reply's calls with their results: 19..15 ends at the batch's last result.)"""
    rows = _compacted(copy.deepcopy(demo_rows()), start, end)
    report = check_stream("log", io.BytesIO(jsonl(HEADER, rows).encode()))
    assert [found.violation.rule_id for found in report.violations] == blamed
    rule = spec_text().split("### LOG-7 ")[1].split("**Why.**")[0]
    assert "`start` not after `end` in surface order" in rule
    assert "so surface order is not seq order" in " ".join(_section(2).split())


def _not_started_repair(rows: Rows) -> Rows:
    """The demo's crashed turn 3 with its call never recorded: the repair's result says
    TOOL_NOT_STARTED, in its words and code, and cites no event."""
    record = next(row for row in rows if row["type"] == "tool/call" and row_data(row)["turn"] == 3)
    at = rows.index(record)
    del rows[at]
    result = rows[at]
    block = row_data(result)["message"]["content"][0]
    block["content"] = [{"type": "text", "text": ERROR_PREFIX + NOT_STARTED}]
    row_data(result)["error"] = {"name": "ToolNotStartedError", "code": "TOOL_NOT_STARTED"}
    del result["sourceEventSeqs"]
    for seq, row in enumerate(rows):
        row["seq"] = seq
    for closer in rows[at:]:
        closer["time"] = rows[at - 1]["time"]
    return rows


def test_ORD_2_a_repair_of_a_call_never_recorded_cites_nothing() -> None:
    """ORD-2 asks a citation of each appended result of a recorded call: a TOOL_NOT_STARTED
    repair's result has no tool/call to cite, and check passes it (ORD-2 said each result
    cites its tool/call)."""
    rows = _not_started_repair(copy.deepcopy(demo_rows()))
    report = check_stream("log", io.BytesIO(jsonl(HEADER, rows).encode()))
    assert (report.errors, report.violations) == ([], [])
    rule = spec_text().split("### ORD-2 ")[1].split("**Why.**")[0]
    assert "save a `TOOL_NOT_STARTED` repair's, whose call was never recorded" in rule


@pytest.mark.parametrize(
    ("matcher", "portable"),
    [
        (r"[.]", True),
        (r"[a-z.]", True),
        (r"[a-]", True),
        (r"[-a]", False),
        (r"[^-a]", False),
        (r"[]", False),
        (r"\.+", True),
    ],
)
def test_HOOK_8_a_class_is_portable_as_hook_8_says(matcher: str, portable: bool) -> None:
    """HOOK-8's class: literals, escapes, ranges and a dot, at least one, not opening with `-`
    (it said only literals, escapes and ranges, so a reader refused `[.]` and took `[-a]`); a
    quantifier may follow an escaped literal."""
    assert (matcher_problem(matcher) is None) == portable
    rule = " ".join(spec_text().split("### HOOK-8 ")[1].split("**Why.**")[0].split())
    assert "of one or more literals, escaped characters, ranges and `.` (a dot there)" in rule
    assert "not opening with `-`" in rule
    assert "after a literal (an escaped one too)" in rule


def test_REC_1_model_times_are_epoch_plus_seq_but_repair_closers() -> None:
    """Section 2's determinism: the model times an event `epoch_ms + seq`, save crash repair's
    closers, which carry the time of the last event before them (REC-1; the demo's crashed
    third turn has three); it said every event was timed so."""
    rows = demo_rows()
    epoch = rows[0]["time"] - rows[0]["seq"]
    off = [row for row in rows if row["time"] != epoch + row["seq"]]
    assert [row["type"] for row in off] == ["tool/result", "step/end", "turn/end"]
    before = rows[rows.index(off[0]) - 1]
    assert {row["time"] for row in off} == {before["time"]}
    said = " ".join(_section(2).split())
    assert "`epoch_ms + seq` (but crash repair's closers, which carry the time" in said


def test_SAFE_4_check_reads_log_lines_up_to_the_bound_safe_4_gives() -> None:
    """SAFE-4 gives check's line bound unless `--max-line-bytes` is given (it gave only its
    ceiling): 16 MiB, the default the checker takes."""
    rule = " ".join(spec_text().split("### SAFE-4 ")[1].split("**Why.**")[0].split())
    assert DEFAULT_MAX_LINE_BYTES == 16 * 1024 * 1024
    assert "`--max-line-bytes` (16 MiB unless given, at most 2^30)" in rule


def test_LOG_8_the_envelope_member_a_rule_reads_is_unit_in_a_version_1_log() -> None:
    """Section 10: envelope members beyond type, seq, time, data and the surface metadata are
    read by no rule, save `unit` in a version 1 log (LOG-8's commit marker, which a version 0
    log may carry unread); it said no rule read any."""
    rows = copy.deepcopy(demo_rows())
    _first(rows, "turn/start").update(unit=[3, 2], note={"by": "a harness"})
    assert _checked(jsonl(HEADER, rows)) == []
    marked = check_stream("log", io.BytesIO(jsonl(MARKED_HEADER, rows).encode()))
    assert "unit marker [3, 2]" in marked.violations[0].violation.message
    catalogue = " ".join(_section(10).split())
    assert (
        "(save `unit`, the commit marker of a version 1 log, which LOG-8 reads there" in catalogue
    )


def test_PROTO_1_lists_the_capabilities_ready_may_declare() -> None:
    """PROTO-1 names, in `ready`'s list, exactly the capabilities the driver protocol defines
    (the schema's `capabilities`): a loop declares them from SPEC.md alone."""
    rule = " ".join(spec_text().split("### PROTO-1 ")[1].split("**Why.**")[0].split())
    listed = rule.split("`ready` declares the optional capabilities (")[1].split(")")[0]
    assert re.findall(r"`([a-z-]+)`", listed) == list(CAPABILITIES)


@pytest.mark.parametrize(
    ("verdict", "summary"),
    [
        (Ask(None), None),
        (Ask(""), ""),
        (Deny(""), ""),
        (Allow(None, reason=" "), " "),
        (Pass(), None),
    ],
)
def test_TEXT_2_a_hook_reason_is_its_summary_as_given(
    verdict: PreVerdict, summary: str | None
) -> None:
    """TEXT-2: a hook's `hook/result` without an audit carries its reason as `stderrSummary`
    as given, an empty one too, and none only when the answer carries no reason (it said
    'absent when it gave none', which DEC-1 and DEC-2 use for an empty reason)."""
    config = LoopConfig(
        tools=(ToolSpec("bash", required_keys=("command",)),),
        hooks=(HookSpec("policy", "PreToolUse", "bash"),),
    )
    call = ToolCallBlock("c1", "bash", '{"command": "ls"}')
    rows = model_rows(config, (SubmitUser("hi"), ModelReplies((call,)), HookAnswers(verdict)))
    audit = row_data(_first(rows, "hook/result"))
    assert audit.get("stderrSummary") == summary
    assert ("stderrSummary" in audit) == (summary is not None)
    rule = " ".join(spec_text().split("### TEXT-2 ")[1].split("**Why.**")[0].split())
    assert "the hook's reason as given, an empty one too (absent when its answer carries no" in rule


@pytest.mark.parametrize("answer", [ApprovalAnswers("cancelled"), Abort()])
def test_DEC_2_a_cancel_by_the_user_and_by_an_abort_end_a_call_as_dec_2_says(
    answer: Command,
) -> None:
    """A request the user answers `cancelled` ends its call with DEC-2's text; one an abort
    cancels, `approval/decided` `cancelled` too, ends it ABORTED_BEFORE_DISPATCH (ABORT-3), as
    DEC-2 now says (it gave every `cancelled` TEXT-1's cancel text)."""
    config = LoopConfig(
        tools=(ToolSpec("bash", required_keys=("command",)),),
        hooks=(HookSpec("policy", "PreToolUse", "bash"),),
    )
    call = ToolCallBlock("c1", "bash", '{"command": "ls"}')
    program = (SubmitUser("hi"), ModelReplies((call,)), HookAnswers(Ask("sure?")), answer)
    rows = model_rows(config, program)
    assert row_data(_first(rows, "approval/decided"))["outcome"] == "cancelled"
    result = row_data(_first(rows, "tool/result"))
    aborted = isinstance(answer, Abort)
    assert (result.get("error", {}).get("code") == "ABORTED_BEFORE_DISPATCH") == aborted
    rule = " ".join(spec_text().split("### DEC-2 ")[1].split("**Why.**")[0].split())
    assert "(a request an abort cancels ends its call `ABORTED_BEFORE_DISPATCH`, ABORT-3)" in rule


@pytest.mark.parametrize(
    ("rule", "unlogged"),
    [("RW-1", "in presentation, and those the body ran with"), ("TURN-1", "(`SubmitUser`")],
)
def test_MODEL_1_a_rule_check_judges_that_speaks_of_what_no_log_records_is_held_in_part(
    rule: str, unlogged: str
) -> None:
    """A rule check judges whose words speak of what no log records (a card, the input a body
    ran with, a command the user sent) is one check holds only in part, and section 2 lists it
    so (RW-1 and TURN-1 were missing)."""
    words = " ".join(spec_text().split(f"### {rule} ")[1].split("**Why.**")[0].split())
    assert unlogged in words
    assert rule in log_checked_rules(spec_text())
    found = re.search(r"only part of its rule \(([^)]*)\)", " ".join(_section(2).split()))
    assert found is not None
    assert rule in found[1].split(", ")


def test_HIST_1_an_empty_reply_stays_on_the_surface_and_out_of_the_history() -> None:
    """HIST-1: a max-tokens reply with nothing left is an empty assistant/message, a surface
    node the derived history leaves out (its words said it 'projects to nothing', a projection's
    word, HIST-2's)."""
    config = LoopConfig(tools=(ToolSpec("bash", required_keys=("command",)),))
    call = ToolCallBlock("c1", "bash", '{"command": "ls"}')
    rows = model_rows(config, (SubmitUser("hi"), ModelReplies((call,), finish="max-tokens")))
    events = [event_from_wire(row) for row in rows]
    assert [node.seq for node in surface_nodes(events)] == [2, 3]
    assert len(derive_messages(events)) == 1
    rule = " ".join(spec_text().split("### HIST-1 ")[1].split("**Why.**")[0].split())
    assert "stays a surface node but is left out of the history" in rule


def test_the_models_message_ids_are_as_section_2_says() -> None:
    """Section 2, determinism: the model's message ids are m<seq>, but a crash repair's result's,
    which is `interrupted-tool-result-<callId>-<seq>` (the section said m<seq> of every one;
    the demo's repair result was a message it did not name)."""
    named = {"m<seq>": 0, "repair": 0}
    for row in demo_rows():
        data = row_data(row)
        message = data if row["type"] == "user/message" else data.get("message")
        if not isinstance(message, dict):
            continue
        if row["type"] == "tool/result" and data.get("error", {}).get("code") in REPAIR_CODES:
            call = message["content"][0]["toolCallId"]
            assert message["id"] == f"interrupted-tool-result-{call}-{row['seq']}"
            named["repair"] += 1
        else:
            assert message["id"] == f"m{row['seq']}"
            named["m<seq>"] += 1
    assert named["repair"] == 1
    assert named["m<seq>"] > 1
    words = " ".join(_section(2).split())
    repair_id = "`interrupted-tool-result-<callId>-<seq>`"
    assert f"message ids are `m<seq>` (but a repair result's, {repair_id}" in words
