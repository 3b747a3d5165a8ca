"""`loopspec check` on logs broken in ways a crash does not break them, settled against dsh.

What dsh (0.1.0-rc.8) does was observed with its own `load()` on the fixture
`valid/harness-written.jsonl` edited as each test says.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from check_fixtures import FIXTURES

from loopspec.properties.cli.main import main
from loopspec.properties.logcheck.checker import MAX_LOG_DEPTH, check_paths

VALID = FIXTURES / "valid" / "harness-written.jsonl"


@pytest.mark.parametrize("blank", [b"\n", b"  \n", b"\n\n"], ids=["empty", "spaces", "two"])
@pytest.mark.parametrize("newline", [b"", b"\n"], ids=["torn", "torn-then-newline"])
def test_LOG_4_a_blank_line_followed_only_by_a_torn_last_line_is_an_error_not_a_crash_tail(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, blank: bytes, newline: bytes
) -> None:
    """LOG-4: dsh, reopening such a log, drops the blank and the torn line and resumes, as it
    does a torn last line alone; but its writer writes no blank line (it appends no empty
    batch; a crash keeps a prefix of one batch's lines), so no crash leaves this file, and
    check does not excuse it as the torn-commit notice of a crash: the blank line is the error
    (exit 2), as any blank line with a line after it is."""
    *whole, last = VALID.read_bytes().splitlines(keepends=True)
    path = tmp_path / "edited.jsonl"
    path.write_bytes(b"".join(whole) + blank + last[: len(last) // 2] + newline)
    code = main(["check", str(path)])
    out = capsys.readouterr().out
    assert code == 2, out
    assert out.splitlines()[0].startswith(
        f"{path}:{len(whole) + 1}: error blank-line LOG-4: a blank line with lines after it"
    )
    assert "torn-commit" not in out


def test_LOG_3_a_repeated_key_is_read_as_its_last_value_as_help_and_dsh_say(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-3: check does not refuse a key given twice (finding one costs the hot path half
    again); it reads the last value, as dsh's JSON.parse does (a header giving version 7 then
    0 opens in dsh as version 0), and its --help says so, where it said nothing of repeats."""
    header, *rest = VALID.read_bytes().splitlines(keepends=True)
    path = tmp_path / "repeated.jsonl"
    path.write_bytes(
        header.replace(b'"version": 0', b'"version": 7, "version": 0') + b"".join(rest)
    )
    assert main(["check", str(path)]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "A key given twice in one object is not refused" in said
    assert "check reads the last value, as dsh does" in said


CLAUDE = FIXTURES / "claude-code" / "valid" / "two-calls-in-order.jsonl"
CODEX = FIXTURES / "codex" / "valid" / "parallel-calls-in-issue-order.jsonl"


def _edited(source: Path, line: int, old: str, new: str, tmp_path: Path) -> Path:
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    path = tmp_path / source.name
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "edit",
    [
        (
            CLAUDE,
            5,
            '"id":"toolu_a",',
            "",
            "a tool_use block's id must be a non-empty string, not null",
        ),
        (
            CLAUDE,
            5,
            '"id":"toolu_a"',
            '"id":7',
            "a tool_use block's id must be a non-empty string, not 7",
        ),
        (
            CLAUDE,
            8,
            '"tool_use_id":"toolu_a"',
            '"tool_use_id":1',
            "a tool_result's tool_use_id must be a non-empty string, not 1",
        ),
        (
            CODEX,
            4,
            ',"call_id":"call_a"',
            "",
            "a function_call's call_id must be a non-empty string, not null",
        ),
        (
            CODEX,
            8,
            '"call_id":"call_a",',
            "",
            "a function_call_output's call_id must be a non-empty string, not null",
        ),
        (
            CODEX,
            6,
            '"command":["/bin/bash","-lc","cat b.txt"]',
            '"command":[1,2]',
            "a CommandExecution's command must be a string or an array of strings, not [1, 2]",
        ),
        (
            CODEX,
            6,
            ',"command":["/bin/bash","-lc","cat b.txt"]',
            "",
            "a CommandExecution's command must be a string or an array of strings, not null",
        ),
    ],
    ids=[
        "tool_use-without-id",
        "tool_use-id-a-number",
        "tool_result-id-a-number",
        "function_call-without-call_id",
        "output-without-call_id",
        "command-of-numbers",
        "command-missing",
    ],
)
def test_a_transcript_or_rollout_record_without_what_pairs_it_is_an_input_error_at_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, edit: tuple[Path, int, str, str, str]
) -> None:
    """A call or result without a string id, or a CommandExecution's command of another shape,
    which neither CLI writes, was read as text: ADJ-2, ORD-3 and ADJ-3 named a call "None" or
    "7", RW-1 said the call "ran null". It is a bad-event error naming the line and the member
    (exit 2), as a record that is no object is."""
    source, line, old, new, said = edit
    path = _edited(source, line, old, new, tmp_path)
    code = main(["check", str(path)])
    out = capsys.readouterr().out
    assert code == 2, out
    dialect = "claude-code" if source == CLAUDE else "codex"
    assert out.splitlines()[0] == f"{path}:{line}: error bad-event: a {dialect} record: {said}"
    assert "None" not in out


def test_LOG_4_a_log_whose_lines_end_in_a_lone_carriage_return_is_no_crash_tail(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-4: a log saved with old Mac line ends (a lone \\r) is one line of many events; it was
    reported as a torn-tail error (LOG-8), 'a write a crash cut off', sending its reader to
    look for a crash. It is invalid JSON at line 1 saying what the line ends are."""
    path = tmp_path / "mac.jsonl"
    path.write_bytes(VALID.read_bytes().replace(b"\n", b"\r"))
    code = main(["check", str(path)])
    out = capsys.readouterr().out
    assert code == 2, out
    assert out.splitlines()[0].startswith(
        f"{path}:1: error invalid-json LOG-4: lines end in a carriage return alone"
    )
    assert "crash" not in out


def test_LOG_4_an_event_with_an_empty_type_is_named_without_an_empty_prefix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-4: the error for an event whose type is "" began ": : an event needs ...", the
    empty type written as the event's name."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = lines[2].replace('"type": "turn/start"', '"type": ""', 1)
    path = tmp_path / "untyped.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    assert main(["check", str(path)]) == 2
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        f"{path}:3: error bad-event LOG-4: an event needs a non-empty string type and an "
        "integer seq"
    )


def test_SAFE_4_check_reads_nesting_and_a_lone_surrogate_as_dsh_does(tmp_path: Path) -> None:
    """SAFE-4: loopspec's own files refuse JSON nested over 200 deep and a lone surrogate; a
    log check reads keeps both, as dsh's JSON.parse does (SPEC SAFE-4 said "refused" of every
    file a user hands loopspec, check's logs among them), up to MAX_LOG_DEPTH levels on every
    Python: a line nested deeper is an error naming SAFE-4, never a traceback (check read what
    json's scanner read, some 1,000 levels on Python 3.11, 10,000 on 3.13: two verdicts of one
    log). Brackets inside a string nest nothing."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)

    def checked(depth: int, text: str) -> list[tuple[str, str | None]]:
        nested = "[" * depth + "]" * depth
        edited = lines[2].replace('"data": {"turn": 1}', f'"data": {{"turn": 1, "x": {nested}}}')
        edited = edited.replace('"turn/start"', f'"turn/start", "note": "{text}"')
        path = tmp_path / f"{depth}.jsonl"
        path.write_text("".join([*lines[:2], edited, *lines[3:]]), encoding="utf-8")
        [report] = check_paths([str(path)])
        return [(error.kind, error.rule_id) for error in report.errors]

    # (the line's object and its `data` nest two levels around `x`)
    assert checked(MAX_LOG_DEPTH - 2, "\\ud800") == []
    deeper = [("invalid-json", "SAFE-4")]
    assert checked(MAX_LOG_DEPTH - 1, "") == deeper
    assert checked(MAX_LOG_DEPTH - 2, '\\\\\\"' + "[" * 5000 + "{" * 5000) == []
    assert checked(20000, "") == deeper  # past what json reads on Python 3.11


@pytest.mark.parametrize("source", [CLAUDE, CODEX], ids=["claude-code", "codex"])
def test_SAFE_4_a_transcript_or_rollout_is_read_as_deep_as_a_dsh_log(
    tmp_path: Path, source: Path
) -> None:
    """A Claude Code transcript and a Codex rollout are read MAX_LOG_DEPTH levels deep on every
    Python, as a dsh log is (they were read as deep as json's scanner went, 1,000 levels on
    Python 3.11, 10,000 on 3.13); brackets inside a string nest nothing."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)

    def checked(extra: str) -> list[tuple[str, str | None]]:
        edited = lines[1].rstrip().removesuffix("}") + f', "extra": {extra}}}\n'
        path = tmp_path / source.name
        path.write_text("".join([lines[0], edited, *lines[2:]]), encoding="utf-8")
        [report] = check_paths([str(path)])
        return [(error.kind, error.rule_id) for error in report.errors]

    depth = MAX_LOG_DEPTH - 1  # inside the line's own object
    assert checked("[" * depth + "]" * depth) == []
    assert checked('"' + "[" * 5000 + '"') == []
    assert checked("[" * (depth + 1) + "]" * (depth + 1)) == [("invalid-json", "SAFE-4")]


ACP = FIXTURES.parent / "acp" / "rewritten-call-approved.jsonl"


@pytest.mark.parametrize(
    "source", [VALID, CLAUDE, CODEX, ACP], ids=["dsh", "claude-code", "codex", "acp"]
)
def test_SAFE_4_a_deep_last_line_is_torn_when_cut_short_and_too_deep_when_whole(
    tmp_path: Path, source: Path
) -> None:
    """A last line nested past MAX_LOG_DEPTH: cut short (its brackets left open), with or
    without its newline, it is a write a crash cut off, the torn-commit notice, in every
    dialect, as a shallower one is; whole, it is too deep for check to read (SAFE-4), as any
    whole line nested so deep is. A dsh log called a whole one without its newline torn, a
    transcript, a rollout and a recording called a cut one too deep, and a dsh log one with
    its newline too: one line, two verdicts (and on Python 3.11, whose json stops first, a
    deep cut line with its newline in a transcript was an error, on 3.13 a notice)."""
    text = source.read_text(encoding="utf-8")
    start = '{"jsonrpc": "2.0", "params": ' if source == ACP else '{"type": "user", "data": '
    depth = 2 * MAX_LOG_DEPTH

    def verdict(last: str) -> tuple[list[str], list[tuple[str, str | None]]]:
        path = tmp_path / source.name
        path.write_text(text + last, encoding="utf-8")
        [report] = check_paths([str(path)])
        notices = [notice.kind for notice in report.notices]
        return notices, [(error.kind, error.rule_id) for error in report.errors]

    torn: tuple[list[str], list[tuple[str, str | None]]] = (["torn-commit"], [])
    assert verdict(start + "[" * depth) == torn
    # (A recording is no log a loop resumes from: a cut line a newline ends is refused.)
    cut_then_newline = ([], [("invalid-json", "ACP-1")]) if source == ACP else torn
    assert verdict(start + "[" * depth + "\n") == cut_then_newline
    assert verdict(start + "[" * depth + '"a') == torn  # a string left open
    assert verdict(start + "[" * depth + "]" * depth + "}") == ([], [("invalid-json", "SAFE-4")])


@pytest.mark.parametrize("source", [CLAUDE, CODEX], ids=["claude-code", "codex"])
@pytest.mark.parametrize("constant", ["NaN", "-Infinity"])
def test_a_transcript_or_rollout_line_holding_NaN_is_not_JSON(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: Path, constant: str
) -> None:
    """NaN and Infinity are no JSON: Claude Code's JSON.parse and Codex's serde_json refuse
    such a line, and check, which refuses it in a dsh log, read it in theirs as a record."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1].rstrip().removesuffix("}") + f', "n": {constant}}}\n'
    path = tmp_path / source.name
    path.write_text("".join(lines), encoding="utf-8")
    code = main(["check", str(path)])
    out = capsys.readouterr().out
    assert code == 2, out
    assert (
        out.splitlines()[0] == f"{path}:2: error invalid-json: invalid JSON: {constant} is not JSON"
    )


@pytest.mark.parametrize("source", [CLAUDE, CODEX], ids=["claude-code", "codex"])
@pytest.mark.parametrize("at", [0, 1], ids=["first line", "later line"])
def test_a_transcript_or_rollout_line_with_a_byte_order_mark_says_what_it_is(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: Path, at: int
) -> None:
    """A byte order mark before a transcript's or rollout's record (an editor's save, a join
    of files one of which had it) read "invalid JSON at column 1: Unexpected UTF-8 BOM (decode
    using utf-8-sig)", Python's words: it says what the mark is, that the CLI writes none, and
    what to do, as a dsh log's error does."""
    lines = source.read_bytes().splitlines(keepends=True)
    lines[at] = b"\xef\xbb\xbf" + lines[at]
    path = tmp_path / source.name
    path.write_bytes(b"".join(lines))
    code = main(["check", str(path)])
    out = capsys.readouterr().out
    assert code == 2, out
    loop = "Claude Code" if source == CLAUDE else "Codex"
    assert out.splitlines()[0] == (
        f"{path}:{at + 1}: error invalid-json: the line starts with a UTF-8 byte order mark "
        f"(BOM), which {loop} never writes: a tool that saved or joined the file added it; "
        "write it back as plain UTF-8"
    )
