"""`loopspec spec RULE --example`: each rule `check` judges a log by, shown broken in a log the
reference model writes, with the finding `check` prints on it; and a rule no log shows, said so.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path

import pytest

from loopspec import spec_text
from loopspec.model.invariants import rule_ids
from loopspec.model.records import TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN
from loopspec.model.repair import NOT_STARTED_TEXT, OUTCOME_UNKNOWN_TEXT, REPAIR_RESULT_ID
from loopspec.properties.cli.main import main
from loopspec.properties.cli.spec_example import (
    NAMED_ON_UNREADABLE_LINES,
    SHOWN_ONLY_IN_HARNESS_LOGS,
    _alignment,
)
from loopspec.properties.logcheck.checker import check_stream
from loopspec.properties.logcheck.known_divergences import IN_PART_RULES
from loopspec.properties.logcheck.report import rules_checked
from loopspec.properties.logcheck.rule_examples import (
    MARKED_RULE_BREAKERS,
    RULE_BREAKERS,
    breaking_log,
    edited_rows,
    example_header,
    example_rules,
    keeping_rows,
    message_id,
    row_data,
)
from loopspec.properties.logcheck.rule_examples import number as numbered_as_written
from loopspec.properties.logcheck.synth import MARKED_HEADER, jsonl
from loopspec.properties.spec_rules import MARKED_LOG_RULES, log_checked_rules, rule_sections

LOG_RULES = example_rules()
REPAIR_TEXTS = {TOOL_NOT_STARTED: NOT_STARTED_TEXT, TOOL_OUTCOME_UNKNOWN: OUTCOME_UNKNOWN_TEXT}
FIXTURES = Path(__file__).parent / "fixtures" / "logs"
_EXCERPT_LINE = re.compile(r"^([> ]) +(\d+)  (.*)$")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`loopspec spec ARGV...`'s exit status, stdout and stderr (argparse's usage errors leave
    `main` by SystemExit)."""
    try:
        status = main(["spec", *argv])
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else 1
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_rules_with_an_example_are_those_check_judges_a_log_by() -> None:
    """SPEC.md's invariant registry (read without the model, for `spec --list`), the
    invariants `check` runs, and the edits that break a rule name the same rules; besides
    them, the rules check judges in a log that marks its commits, as it says (`rules_checked`
    of such a log) and as the edits of that log name."""
    assert set(RULE_BREAKERS) == set(rule_ids())
    marked_log = jsonl(MARKED_HEADER, keeping_rows("LOG-8"))
    marked = rules_checked(check_stream("marked.jsonl", io.BytesIO(marked_log.encode())))
    assert set(marked) - set(rule_ids()) == MARKED_LOG_RULES == set(MARKED_RULE_BREAKERS)
    assert log_checked_rules(spec_text()) == set(LOG_RULES) == set(marked)
    assert breaking_log("LOG-8").startswith('{"type": "session", "version": 1,')


@pytest.mark.parametrize("rule", ["ADJ-1", "LOG-8"], ids=["version 0", "version 1"])
def test_the_log_an_example_edits_keeps_every_rule(rule: str) -> None:
    """The example says the log it edits keeps every rule: check finds nothing in it, written
    as dsh writes its events (version 0) or as `loopspec run` writes them (version 1, LOG-8's
    example, which tests/fixtures/logs/valid/ holds no log of)."""
    log = jsonl(example_header(rule), keeping_rows(rule))
    report = check_stream("keeping.jsonl", io.BytesIO(log.encode()))
    assert (report.violations, report.errors, report.notices) == ([], [], [])
    assert report.status == "ok"


@pytest.mark.parametrize("rule", LOG_RULES)
def test_the_example_log_breaks_its_rule_and_no_other(
    rule: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`spec RULE --example --log` writes a log `check` finds breaking RULE, once, and nothing
    else: an example that also broke another rule would teach the wrong one."""
    status, log, err = _run(capsys, rule, "--example", "--log")
    assert (status, err) == (0, "")
    report = check_stream("example.jsonl", io.BytesIO(log.encode()))
    assert (report.errors, report.notices) == ([], [])
    assert [found.violation.rule_id for found in report.violations] == [rule]


@pytest.mark.parametrize("rule", LOG_RULES)
def test_the_example_log_is_one_a_harness_with_that_bug_writes(rule: str) -> None:
    """Besides its one bug, the breaking log is as a harness writes one: its clock never runs
    back, no two messages share an id (a row the edit adds or moves was dated and named as the
    row it was copied from: ADJ-1's late user message carried the first message's id and time,
    before the calls it follows), a repair result's words and citation are those of its code,
    and a turn holding an interrupted reply ends aborted; and a line the example leaves
    unmarked is the keeping log's, save its seq and the seqs it cites."""
    keeping, edited = keeping_rows(rule), edited_rows(rule)
    breaking = numbered_as_written(rule, edited)
    times = [row["time"] for row in breaking]
    assert times == sorted(times)
    ids = [name for row in breaking if (name := message_id(row)) is not None]
    assert len(ids) == len(set(ids))
    # A message the edit adds is named as the model names one at its seq, a repair result as
    # the repair does (ADJ-2's copied result was m14 at seq 13, whose m13 a later row kept;
    # EXE-1's second repair result m43).
    for row, written in zip(edited, breaking, strict=True):
        if row["seq"] is None and (name := message_id(written)) is not None:
            code = row_data(written).get("error", {}).get("code")
            call = row_data(written)["message"]["content"][0]["toolCallId"] if code else ""
            repaired = f"{REPAIR_RESULT_ID}{call}-{written['seq']}"
            appended = code in REPAIR_TEXTS and written["surfaceOp"] == "append"
            assert name == (repaired if appended else f"m{written['seq']}")
    pairs, _keep_changed, _break_changed, _removed = _alignment(keeping, edited, breaking)
    for kept, shown in pairs.items():
        assert breaking[shown]["time"] == keeping[kept]["time"]
        assert message_id(breaking[shown]) == message_id(keeping[kept])
    # A repair result says what its code says, and cites a tool/call only for a call recorded
    # (REC-1's example gave TOOL_NOT_STARTED the words of a recorded call, and cited it).
    for row in breaking:
        code = row_data(row).get("error", {}).get("code")
        if row["type"] == "tool/result" and code in REPAIR_TEXTS:
            block = row_data(row)["message"]["content"][0]
            assert block["content"] == [{"type": "text", "text": REPAIR_TEXTS[code]}]
            assert ("sourceEventSeqs" in row) == (code == TOOL_OUTCOME_UNKNOWN)
    # Each call a whole reply makes is recorded, and answered, once per block that makes it,
    # save where a result missing or repeated is the bug (ADJ-3, ADJ-2): EXE-1's reply carried
    # a call twice, recorded and repaired once, where a harness taking it writes two of each.
    made, recorded, answered = Counter[str](), Counter[str](), Counter[str]()
    for row in breaking:
        data = row_data(row)
        if row["type"] == "assistant/message" and not data.get("interrupted"):
            made.update(b["id"] for b in data["message"]["content"] if b["type"] == "tool-call")
        elif row["type"] == "tool/call":
            recorded[data["callId"]] += 1
        elif row["type"] == "tool/result" and not isinstance(row.get("surfaceOp"), dict):
            answered[data["message"]["content"][0]["toolCallId"]] += 1
    assert recorded == made
    assert answered == recorded or rule in {"ADJ-2", "ADJ-3"}
    # A reply is interrupted by a stop, which ends its turn aborted (ABORT-2's example kept
    # an interrupted reply in a turn a crash cut and its repair closed).
    interrupted = {row_data(row)["turn"] for row in breaking if row_data(row).get("interrupted")}
    for row in breaking:
        if row["type"] == "turn/end" and row_data(row)["turn"] in interrupted:
            assert row_data(row)["reason"]["kind"] == "aborted"


@pytest.mark.parametrize("rule", LOG_RULES)
def test_the_example_shows_the_edit_and_checks_finding(
    rule: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The printed example: both logs' lines around the edit, numbered as in their files, the
    edited ones marked; and the very line `check` prints on the whole breaking log."""
    status, shown, err = _run(capsys, rule, "--example")
    assert (status, err) == (0, "")
    breaking = _run(capsys, rule, "--example", "--log")[1].split("\n")
    name = f"{rule.lower()}.jsonl"
    report = check_stream(name, io.BytesIO("\n".join(breaking).encode()))
    (found,) = report.violations
    keeping_part, breaking_part = shown.split(f"the log breaking {rule}:")
    keeping_part = keeping_part.split(f"the log keeping {rule}")[1]
    breaking_part, finding_part = breaking_part.split(f"`loopspec check {name}` finds:")
    excerpt = [m.groups() for line in breaking_part.split("\n") if (m := _EXCERPT_LINE.match(line))]
    for _mark, number, text in excerpt:  # each line as the file has it, at its line number
        assert breaking[int(number) - 1] == text
    assert str(found.line) in [number for _mark, number, _text in excerpt]  # the line blamed
    assert re.search(r"^> +\d+  ", keeping_part + breaking_part, re.MULTILINE)  # the edit
    # A row the edit removed is marked in the keeping log and said where it was in the other.
    marked = {number for line in keeping_part.split("\n") if (m := _EXCERPT_LINE.match(line))
              for mark, number, _text in [m.groups()] if mark == ">"}  # fmt: skip
    for numbers in re.findall(r"removed the keeping log's lines? ([\d, ]+) here", shown):
        assert set(numbers.split(", ")) <= marked
    finding = finding_part.strip().split("\n")[0]
    assert finding.startswith(f"{name}:{found.line}: {rule} (seq ")
    assert found.violation.message in finding
    assert f"loopspec spec {rule} --example --log > {name}" in shown


def test_a_rule_no_log_shows_says_which_verb_judges_it(capsys: pytest.CaptureFixture[str]) -> None:
    """A rule only conform sees: one line naming the verb and SPEC.md's section; asked for its
    log, exit 2 with that line."""
    status, shown, err = _run(capsys, "SCHED-1", "--example")
    assert (status, err) == (0, "")
    assert shown.count("\n") == 1
    assert "`loopspec conform`" in shown
    assert "SPEC.md section 2" in shown
    status, shown, err = _run(capsys, "SCHED-1", "--example", "--log")
    assert (status, shown) == (2, "")
    assert err.count("\n") == 1
    assert "SCHED-1 has no example log" in err


def test_the_rules_check_names_otherwise_are_those_spec_section_2_lists() -> None:
    """The rules whose no-example line says `check` still names them (an input error, a
    notice) are rules of SPEC.md section 2's list of those, with no example of their own."""
    spec = spec_text()
    section_2 = spec[spec.index("## 2. ") : spec.index("## 3. ")]
    sections = rule_sections(spec)
    for rule in NAMED_ON_UNREADABLE_LINES:
        assert rule in sections
        assert rule not in RULE_BREAKERS
        assert rule in section_2


def test_a_rule_check_finds_in_a_transcript_and_a_dsh_log_has_its_example(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ABORT-1: check reports it in a Claude Code transcript, and in a dsh log a turn holding a
    result an abort wrote that ends otherwise than aborted, so it has an example log (its line
    said check found it only in a transcript, never in a dsh log); no rule is now shown only in
    a harness's own logs."""
    assert set(SHOWN_ONLY_IN_HARNESS_LOGS) == set(IN_PART_RULES) == set()
    transcript = (FIXTURES / "claude-code" / "violations" / "ABORT-1.jsonl").read_bytes()
    report = check_stream("abort.jsonl", io.BytesIO(transcript))
    assert [found.violation.rule_id for found in report.violations] == ["ABORT-1"]
    status, shown, err = _run(capsys, "ABORT-1", "--example")
    assert (status, err) == (0, "")
    assert 'abort-1.jsonl:22: ABORT-1 (seq 20): turn 1 ends "completed"' in shown
    assert "never in a dsh log" not in shown


@pytest.mark.parametrize(
    "argv",
    [
        ["RW-1", "--example", "--list"],
        ["--example", "--write", "SPEC.md"],
        ["--example", "--check", "SPEC.md"],
        ["--example"],
        ["RW-1", "--log"],
        ["RW", "--example", "--log"],
        ["RW-9", "--example"],
    ],
)
def test_example_misuse_is_a_usage_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """--example with --list, --write or --check, without a rule, --log without --example or for
    several rules, and an unknown rule: exit 2, nothing on stdout, an error line on stderr."""
    status, shown, err = _run(capsys, *argv)
    assert (status, shown) == (2, "")
    assert "error:" in err.splitlines()[-1]


def test_the_list_marks_each_rule_with_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    """`spec --list` marks exactly the rules `--example` shows broken in a log."""
    status, shown, _err = _run(capsys, "--list")
    assert status == 0
    marked = {line.split()[0] for line in shown.splitlines() if line.endswith("  [example]")}
    assert marked == set(LOG_RULES)


def test_help_and_docs_say_it(capsys: pytest.CaptureFixture[str]) -> None:
    """`spec --help` names --example and --log; README's rule lookup and docs/check.md show it
    (their command lines are run by test_readme_commands.py)."""
    with pytest.raises(SystemExit):
        main(["spec", "--help"])
    shown = capsys.readouterr().out
    assert "--example" in shown
    assert "--log" in shown
    from test_readme_commands import DOCS  # noqa: PLC0415

    pages = {page.name: page.read_text(encoding="utf-8") for page in DOCS}
    assert "loopspec spec ADJ-1 --example" in pages["README.md"]
    assert "--example --log" in pages["check.md"]
