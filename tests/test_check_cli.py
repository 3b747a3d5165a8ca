"""`loopspec check` from the command line: inputs, exit codes, text and JSON output."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import pytest
import zstandard
from check_fixtures import FIXTURES
from spec_helpers import run as run_model
from spec_helpers import wire

from loopspec.model.invariants import rule_ids
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.cli.main import main
from loopspec.properties.logcheck import claude_code, codex, report
from loopspec.properties.logcheck.checker import FIRST_LINE_NO_HEADER, ErrorKind, check_stream
from loopspec.properties.logcheck.files import LogSource

VALID = FIXTURES / "valid" / "model-demo.jsonl"
HARNESS = FIXTURES / "valid" / "harness-written.jsonl"
BROKEN = FIXTURES / "violations" / "ADJ-1.jsonl"
TORN = FIXTURES / "crashed" / "torn-last-line.jsonl"
INVALID = FIXTURES / "bad" / "invalid-json.jsonl"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Exit code and standard output of `loopspec check ARGV`."""
    code = main(["check", *argv])
    return code, capsys.readouterr().out


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    """Exit code and parsed output of `loopspec check --format json ARGV`."""
    code, out = run(capsys, "--format", "json", *argv)
    parsed = json.loads(out)
    assert isinstance(parsed, dict)
    return code, parsed


def feed_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


# ---------------------------------------------------------------------------------------------
# Exit codes.


def test_exit_0_when_every_log_keeps_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 0, and a summary line counting logs and events."""
    code, out = run(capsys, str(VALID), str(HARNESS))
    assert code == 0
    assert out.splitlines()[-1] == "checked 2 logs, 202 events: 0 violations"


def test_ORD_3_the_result_that_came_too_early_is_blamed_naming_the_call_it_overtook(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ORD-3: the violation is the later call's result, committed while an earlier call had
    none: its line is the one to move, and it names that earlier call and cites the reply (it
    was blamed on the earlier call's result, in its right place, and a crash right after the
    early result passed as a clean crash tail: tests/test_check_blame.py)."""
    log = FIXTURES / "violations" / "ORD-3.jsonl"
    code, out = run(capsys, str(log))
    assert code == 1
    assert out.splitlines()[0] == (
        f"{log}:14: ORD-3 (seq 12): result for call_b (call #2) before any for call_a (call #1): "
        "results commit in the order of the reply's calls [events 12 (line 14), 7 (line 9)]"
    )


def test_RW_1_a_call_record_that_differs_from_the_reply_says_what_to_write(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """RW-1: a tool/call whose arguments are not the reply's is blamed with what the harness
    must write instead (it said only that the two differ, leaving a harness that rewrote the
    call record alone to guess whether the record, the reply or both were wrong). It names the
    two events, where it said "the audit record" and "the model history" alone, SPEC's words a
    harness author reading the report first must look up to find the code that writes them."""
    log = FIXTURES / "violations" / "RW-1.jsonl"
    code, out = run(capsys, str(log))
    assert code == 1
    assert out.splitlines()[0] == (
        f"{log}:10: RW-1 (seq 8): call call_a: its tool/call (the audit record) runs"
        ' "{\\"file_path\\":\\"z.txt\\"}" but the reply\'s assistant/message (the model history)'
        ' shows "{\\"file_path\\":\\"a.txt\\"}"; both carry the input that runs (a hook\'s'
        " rewrite in the reply too, the model's input in tool/call.rewrite, RW-2)"
        " [events 8 (line 10), 7 (line 9)]"
    )


@pytest.mark.parametrize(
    ("rule", "says"),
    [
        ("STEP-1", "step/start of turn 1 step 3 where turn 1 step 2 was due"),
        ("STEP-2", "step/end of turn 1 step 1, but the open step is turn 1 step 2"),
        ("STEP-3", "assistant/message names turn 1 step 1, the open step is turn 1 step 2"),
    ],
)
def test_STEP_1_steps_are_named_by_turn_and_step_in_words(
    rule: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """STEP-1, STEP-2, STEP-3: a step is named 'turn 1 step 3', not '1.3' (a notation the
    messages used and nothing explained)."""
    code, out = run(capsys, str(FIXTURES / "violations" / f"{rule}.jsonl"))
    assert code == 1
    assert f" {rule} (seq " in out.splitlines()[0]
    assert out.splitlines()[0].split("): ", 1)[1].startswith(says)


def test_a_case_file_given_to_check_is_named_for_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A case file (indented JSON) given to check: the error says the file is one JSON document,
    not JSON Lines, and where a case goes (it read 'invalid JSON at column 1: Expecting
    property name enclosed in double quotes'), a header nested in it or not; so does a case on one
    line."""
    case = tmp_path / "case-ORD-3-0.json"
    case.write_text(json.dumps({"loopspec": "case", "version": 1}, indent=2), encoding="utf-8")
    code, out = run(capsys, str(case))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{case}:1: error invalid-json: the first line is a lone '{{': one JSON document over "
        "many lines, not JSON Lines (one event per line); a case file is rerun with "
        "`loopspec replay`"
    )
    # A session header nested in it is none of its own members: no log printed over many lines.
    nested = {"loopspec": "case", "version": 1, "log": [{"type": "session", "version": 0}]}
    case.write_text(json.dumps(nested, indent=2), encoding="utf-8")
    assert run(capsys, str(case))[1].splitlines()[0].endswith("rerun with `loopspec replay`")
    # Written on one line (`jq -c`), it was told only what a log's header is.
    case.write_text(json.dumps({"loopspec": "case", "version": 1}) + "\n", encoding="utf-8")
    code, out = run(capsys, str(case))
    assert code == 2
    assert out.splitlines()[0].endswith(
        "so the rest of the file is not read; it is a loopspec case file: a case is rerun with "
        "`loopspec replay`"
    )


_PRINTED_LOG_WORDS = (
    "error invalid-json LOG-5: the first line is a lone {lone}: a session log printed over "
    "many lines ({printer} prints it so), not JSON Lines (one event per line); `jq -c {events} "
    "FILE` writes each event on one line"
)


@pytest.mark.parametrize(
    ("printed", "said"),
    [
        (
            lambda events: "".join(json.dumps(event, indent=2) + "\n" for event in events),
            _PRINTED_LOG_WORDS.format(lone="'{'", printer="jq .", events="."),
        ),
        (
            lambda events: json.dumps(events, indent=2) + "\n",
            _PRINTED_LOG_WORDS.format(lone="'['", printer="jq -s .", events="'.[]'"),
        ),
        (
            lambda events: "".join(json.dumps(e, indent=2, sort_keys=True) + "\n" for e in events),
            _PRINTED_LOG_WORDS.format(lone="'{'", printer="jq .", events="."),
        ),
        (
            lambda events: json.dumps(events, indent=2, sort_keys=True) + "\n",
            _PRINTED_LOG_WORDS.format(lone="'['", printer="jq -s .", events="'.[]'"),
        ),
        (
            lambda events: json.dumps(events) + "\n",
            "error bad-header LOG-5: the first line is a JSON array of 45 values, the session "
            "header first: a log read into one array (jq -s, or a program that collected its "
            "lines), not JSON Lines (one event per line); `jq -c '.[]' FILE` writes each on a "
            "line of its own",
        ),
    ],
    ids=["jq .", "jq -s .", "jq -S .", "jq -S -s .", "jq -cs ."],
)
def test_LOG_5_a_log_printed_over_many_lines_or_in_one_array_says_how_to_undo_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    printed: Callable[[list[Any]], str],
    said: str,
) -> None:
    """LOG-5: a log pretty-printed (jq .) was named 'one JSON document over many lines' with a
    case file's remedy (`loopspec replay`), and so was one printed with its keys sorted (jq -S
    .: the header's type after its createdAt, cwd and id); one read into an array on one line
    (jq -cs .) as a first line that is no header, 'nor is it an event (not a JSON object)'.
    Each says what it is and the jq command that writes it back as JSON Lines."""
    events = [json.loads(line) for line in VALID.read_text(encoding="utf-8").splitlines()]
    log = tmp_path / "printed.jsonl"
    log.write_text(printed(events), encoding="utf-8")
    code, out = run(capsys, str(log))
    assert code == 2
    assert out.splitlines()[0] == f"{log}:1: {said}"


def test_a_settings_file_given_to_check_is_no_torn_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Claude Code settings.json (indented JSON whose first line opens the hooks) given to
    check read 'error invalid-json LOG-8: the line stops after 56 characters, before its JSON
    value ends: a write cut off, which the harness must drop whole', blaming a harness for a file
    no harness wrote. A first line that stops short is one JSON document over many lines; later
    lines that do are still LOG-8 (test_LOG_8_a_line_cut_short_inside_the_log_...)."""
    settings = tmp_path / "settings.json"
    settings.write_text(
        '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [\n'
        '  {"type": "command", "command": "rewrite.py"}]}]}}\n',
        encoding="utf-8",
    )
    code, out = run(capsys, str(settings))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{settings}:1: error invalid-json: the first line stops after 56 characters, before "
        "its JSON value ends: one JSON document over many lines (a settings or case file?), "
        "not JSON Lines (one event per line)"
    )


def test_a_log_saved_with_a_byte_order_mark_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log an editor saved with a UTF-8 BOM: exit 2, and the line says so (it read 'invalid
    JSON at column 1: Expecting value', on a line that looks right in any editor)."""
    log = tmp_path / "edited.jsonl"
    log.write_bytes(b"\xef\xbb\xbf" + VALID.read_bytes())
    code, out = run(capsys, str(log))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{log}:1: error invalid-json LOG-5: the line starts with a UTF-8 byte order mark "
        "(BOM): save the log without it (the header must be the first thing in the file)"
    )


@pytest.mark.parametrize(
    ("encoding", "order"), [("utf-16", "0xff 0xfe"), ("utf-16-be", "0xfe 0xff")]
)
def test_LOG_5_a_log_saved_as_utf_16_is_refused_naming_its_encoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], encoding: str, order: str
) -> None:
    """LOG-5: a log copied through Windows PowerShell's `>` (UTF-16 with a byte order mark)
    read 'binary data, not a JSON Lines session log', as an image would; it is named UTF-16
    text, with what to do."""
    log = tmp_path / "copied.jsonl"
    text = VALID.read_text(encoding="utf-8")
    log.write_bytes((b"\xfe\xff" if encoding == "utf-16-be" else b"") + text.encode(encoding))
    code, out = run(capsys, str(log))
    assert code == 2
    assert out.splitlines() == [
        f"{log}:1: error binary LOG-5: UTF-16 text (it starts with UTF-16's byte order mark, "
        f"{order}), not UTF-8: a session log is UTF-8 text; save it as UTF-8 (PowerShell's > "
        "writes UTF-16: Set-Content -Encoding utf8, or copy the file instead)",
        "checked 1 log, 0 events: 0 violations; 1 error (binary: 1)",
    ]


def test_a_gzip_compressed_log_is_refused_saying_how_to_check_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log rotated and gzip-compressed (a .jsonl.gz, or gzip data on stdin): exit 2, and the
    line says what it is and how to check it (it read 'binary data, not a JSON Lines session
    log', as for any other binary file); the file is left as it was."""
    log = tmp_path / "session.jsonl.gz"
    log.write_bytes(gzip.compress(VALID.read_bytes()))
    before = log.read_bytes()
    code, out = run(capsys, str(log))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{log}:1: error binary: gzip-compressed data, not a JSON Lines session log: check "
        "reads plain and zstd (.jsonl.zst) logs; give it decompressed: gunzip -c LOG | "
        "loopspec check -"
    )
    assert log.read_bytes() == before


def test_ADJ_1_exit_1_names_file_line_seq_rule_and_events(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ADJ-1: a violation prints file, line, seq, rule, its sentence and the events involved."""
    code, out = run(capsys, str(BROKEN))
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith(
        f"{BROKEN}:13: ADJ-1 (seq 11): user/message lands while calls call_a, call_b, call_c "
        "await their results"
    )
    assert first.endswith("[events 11 (line 13), 7 (line 9)]")
    assert out.splitlines()[-2:] == [
        "what each rule says: loopspec spec ADJ-1",
        "checked 1 log, 45 events: 1 violation (ADJ-1: 1)",
    ]


def test_exit_2_beats_1_when_input_is_unreadable(capsys: pytest.CaptureFixture[str]) -> None:
    """An input error anywhere makes the run exit 2, and checking goes on with the next log."""
    code, out = run(capsys, str(INVALID), str(BROKEN), str(VALID))
    assert code == 2
    assert f"{INVALID}:11: error invalid-json LOG-4: invalid JSON at column" in out
    assert "ADJ-1" in out
    assert out.splitlines()[-1].startswith("checked 3 logs")


def test_exit_2_for_a_missing_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A path that does not exist is an error, not a traceback, and no log checked: beside an
    empty folder the summary read "checked 2 logs" (`summary.logs` 1) for one that is nowhere."""
    (tmp_path / "empty").mkdir()
    missing, empty = str(tmp_path / "nope.jsonl"), str(tmp_path / "empty")
    code, out = run(capsys, missing, empty)
    assert code == 2
    assert out.splitlines() == [
        f"{missing}: error unreadable: no such file or directory",
        f"{empty}: error unreadable: no .jsonl or .jsonl.zst files under it",
        "checked 0 logs, 0 events, found no log under 1 folder, nothing at 1 path: "
        "0 violations; 2 errors (unreadable: 2)",
    ]
    code, parsed = run_json(capsys, missing, str(VALID))
    assert (code, parsed["summary"]["logs"]) == (2, 1)
    assert [log["rules_checked"] == [] for log in parsed["logs"]] == [True, False]


def test_a_symbolic_link_loop_is_said_to_be_one_not_a_missing_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A path the system cannot resolve for another reason than its absence is said in the
    system's words: a link loop read "no such file or directory", sending the user to look for
    a file that is there."""
    (tmp_path / "a.jsonl").symlink_to("b.jsonl")
    (tmp_path / "b.jsonl").symlink_to("a.jsonl")
    code, out = run(capsys, str(tmp_path / "a.jsonl"))
    assert code == 2
    assert f"{tmp_path / 'a.jsonl'}: error unreadable: too many levels of symbolic links" in out


@pytest.mark.parametrize(
    "argv",
    [[], ["--format", "xml", "x"], ["--max-line-bytes", "0", "x"], ["--max-violations", "x", "y"]],
)
def test_exit_2_for_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Usage errors exit 2 with argparse's message."""
    with pytest.raises(SystemExit) as stop:
        main(["check", *argv])
    assert stop.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_help_says_which_layouts_are_covered(capsys: pytest.CaptureFixture[str]) -> None:
    """The help names the supported layout and the one it does not cover."""
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = capsys.readouterr().out
    assert "header version 0" in text
    assert "June-2026" in text
    assert "REC-2" in text


def test_help_names_every_rule_a_transcript_or_rollout_is_judged_by(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The help's paragraph on Claude Code transcripts and Codex rollouts names each rule
    `check` can report in one, those it shows in part (Claude Code's ABORT-1) too: a reader
    who meets ABORT-1 in a transcript's report finds it there."""
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    paragraph = text[text.index("Claude Code transcripts") : text.index("Known divergences")]
    named = set(re.findall(r"[A-Z]+-\d+", paragraph))
    for family, first, last in re.findall(r"([A-Z]+)-(\d+)\.\.(\d+)", paragraph):
        named |= {f"{family}-{n}" for n in range(int(first), int(last) + 1)}
    for reader in (claude_code.dialect(), codex.dialect()):
        judged = (set(rule_ids()) - set(reader.not_checkable)) | set(reader.checked_in_part)
        assert judged <= named, (reader.name, judged - named)


# ---------------------------------------------------------------------------------------------
# Inputs.


def test_stdin_is_read_for_dash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-` reads the log from standard input and names it `-`."""
    feed_stdin(monkeypatch, BROKEN.read_bytes())
    code, out = run(capsys, "-")
    assert code == 1
    assert out.startswith("-:13: ADJ-1")


@pytest.mark.parametrize("name", ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"])
def test_SAFE_4_stdin_named_dev_stdin_reads_a_socket_as_dash_does(name: str) -> None:
    """A tool written for Node runs check with a socket pair for its standard input (Node's
    pipes are sockets), which /dev/stdin names but cannot open: `check /dev/stdin` refused it
    as 'a socket, not a log file' (SAFE-4) while `check -` read it; it reads it as `-` does,
    by each of the names Linux gives standard input (/dev/fd/0 was still refused)."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        check = subprocess.Popen(
            [sys.executable, "-m", "loopspec", "check", name],
            stdin=theirs.fileno(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        ours.sendall(BROKEN.read_bytes())
        ours.shutdown(socket.SHUT_WR)
        out, err = check.communicate(timeout=60)
    assert (check.returncode, err.decode()) == (1, "")
    assert out.decode().startswith(f"{name}:13: ADJ-1")


def test_zstd_stdin_is_recognised_by_magic(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compressed data on standard input is decompressed."""
    feed_stdin(monkeypatch, zstandard.ZstdCompressor().compress(HARNESS.read_bytes()))
    code, out = run(capsys, "-")
    assert (code, out) == (0, "checked 1 log, 158 events: 0 violations\n")


@pytest.mark.parametrize(
    ("log", "first_line"),
    [
        (
            FIXTURES / "claude-code" / "violations" / "ADJ-1.jsonl",
            "-:3: ADJ-1: a user message lands while call toolu_a awaits its result",
        ),
        (
            FIXTURES / "codex" / "violations" / "ORD-3.jsonl",
            "-:6: ORD-3: the result for call call_b is written before the results for call_a",
        ),
    ],
    ids=["claude-code", "codex"],
)
def test_ADJ_1_ORD_3_a_transcript_or_rollout_on_stdin_is_read_in_its_dialect(
    log: Path,
    first_line: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ADJ-1, ORD-3: `check -` tells a Claude Code transcript or a Codex rollout from its first
    line, as it does a file's; it peeked at the four bytes read to tell zstd data alone, and
    judged the log as dsh's (LOG-5, no header: exit 2)."""
    feed_stdin(monkeypatch, log.read_bytes())
    code, out = run(capsys, "-")
    assert code == 1
    assert out.startswith(first_line)


def test_jsonl_zst_files_and_multiple_frames(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A .jsonl.zst file reads like the plain log, also when written as several frames."""
    compressor = zstandard.ZstdCompressor()
    data = BROKEN.read_bytes()
    half = data.index(b"\n", len(data) // 2) + 1
    path = tmp_path / "log.jsonl.zst"
    path.write_bytes(compressor.compress(data[:half]) + compressor.compress(data[half:]))
    _, plain = run_json(capsys, str(BROKEN))
    _, packed = run_json(capsys, str(path))
    assert packed["logs"][0]["violations"] == plain["logs"][0]["violations"]


def test_truncated_zst_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A compressed log cut short is reported, not read as a shorter log."""
    packed = zstandard.ZstdCompressor().compress(HARNESS.read_bytes())
    path = tmp_path / "cut.jsonl.zst"
    path.write_bytes(packed[: len(packed) - 7])
    code, out = run(capsys, str(path))
    assert code == 2
    assert "error unreadable: the zstd stream ends in the middle of a frame" in out


def test_corrupt_zst_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Compressed data that does not decompress is an error, not a traceback."""
    packed = bytearray(zstandard.ZstdCompressor().compress(HARNESS.read_bytes()))
    packed[20:40] = b"\xff" * 20
    path = tmp_path / "corrupt.jsonl.zst"
    path.write_bytes(bytes(packed))
    code, out = run(capsys, str(path))
    assert code == 2
    assert "error unreadable: corrupt zstd data" in out


def test_directories_are_searched_recursively_in_sorted_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A directory contributes every .jsonl and .jsonl.zst below it, sorted; other files are
    ignored."""
    (tmp_path / "b" / "deeper").mkdir(parents=True)
    (tmp_path / "a").mkdir()
    shutil.copy(VALID, tmp_path / "b" / "deeper" / "z.jsonl")
    shutil.copy(BROKEN, tmp_path / "a" / "y.jsonl")
    (tmp_path / "b" / "x.jsonl.zst").write_bytes(
        zstandard.ZstdCompressor().compress(VALID.read_bytes())
    )
    (tmp_path / "notes.txt").write_text("not a log")
    code, parsed = run_json(capsys, str(tmp_path))
    paths = [Path(log["path"]).relative_to(tmp_path).as_posix() for log in parsed["logs"]]
    assert paths == ["a/y.jsonl", "b/x.jsonl.zst", "b/deeper/z.jsonl"]
    assert code == 1


def test_a_log_named_twice_or_named_and_under_a_folder_named_is_checked_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check logs/ logs/y.jsonl` (a glob beside its folder, the README's `check logs/
    old.jsonl.zst -` with the file in the folder) checked y.jsonl twice: "checked 3 logs", its
    one ADJ-1 counted twice. A file is checked where it is first reached, once; a folder whose
    logs were all checked already is no error."""
    (tmp_path / "logs").mkdir()
    shutil.copy(BROKEN, tmp_path / "logs" / "y.jsonl")
    shutil.copy(VALID, tmp_path / "logs" / "z.jsonl")
    monkeypatch.chdir(tmp_path)
    code, parsed = run_json(capsys, "logs/", "logs/y.jsonl", "./logs/y.jsonl", "logs")
    assert code == 1
    assert [log["path"] for log in parsed["logs"]] == ["logs/y.jsonl", "logs/z.jsonl"]
    assert parsed["summary"]["violations_by_rule"] == {"ADJ-1": 1}
    code, parsed = run_json(capsys, "logs/y.jsonl", "logs")
    assert [log["path"] for log in parsed["logs"]] == ["logs/y.jsonl", "logs/z.jsonl"]


def test_a_directory_without_logs_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Naming a directory that holds no log is reported (a CI run that checks nothing fails),
    and the summary says no log was checked, nor any rule, where it said "checked 1 log"."""
    code, out = run(capsys, str(tmp_path))
    assert code == 2
    assert out.splitlines() == [
        f"{tmp_path}: error unreadable: no .jsonl or .jsonl.zst files under it",
        "checked 0 logs, 0 events, found no log under 1 folder: 0 violations; "
        "1 error (unreadable: 1)",
    ]
    code, parsed = run_json(capsys, str(tmp_path))
    assert code == 2
    (entry,) = parsed["logs"]
    assert (entry["path"], entry["status"], entry["rules_checked"]) == (str(tmp_path), "error", [])
    summary = parsed["summary"]
    assert (summary["logs"], summary["errors"], summary["exit_code"]) == (0, 1, 2)


def _refuse_listing(monkeypatch: pytest.MonkeyPatch, refused: Path) -> None:
    """Make `refused` a directory that cannot be listed (chmod cannot do it for root)."""
    scandir = os.scandir

    def listing(path: Any = ".") -> Any:
        if Path(path) == refused:
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", listing)


def test_a_folder_that_cannot_be_listed_under_a_directory_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A subfolder the walk cannot list holds logs nobody checked: an input error naming it
    (exit 2), not a pass over the logs beside it (it was skipped without a word, exit 0)."""
    shutil.copy(VALID, tmp_path / "a.jsonl")
    (tmp_path / "locked").mkdir()
    shutil.copy(BROKEN, tmp_path / "locked" / "b.jsonl")
    _refuse_listing(monkeypatch, tmp_path / "locked")
    code, out = run(capsys, str(tmp_path))
    assert code == 2
    locked = tmp_path / "locked"
    assert f"{locked}: error unreadable: cannot list the folder: permission denied" in out
    assert out.splitlines()[-1].startswith("checked 1 log, 44 events, found no log under 1 folder")
    code, parsed = run_json(capsys, str(tmp_path))
    assert code == 2
    assert [log["status"] for log in parsed["logs"]] == ["ok", "error"]
    assert parsed["summary"]["logs"] == 1  # the folder it could not list is no log checked


def test_a_directory_named_that_cannot_be_listed_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A directory argument that cannot be listed is named for that, not for holding no log."""
    _refuse_listing(monkeypatch, tmp_path)
    code, out = run(capsys, str(tmp_path))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{tmp_path}: error unreadable: cannot list the folder: permission denied"
    )


def test_an_unreadable_file_is_an_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log that cannot be opened is an error naming it once, in the words of the system
    (it read "[Errno 13] Permission denied: 'path'" after the path), and the next log is still
    checked."""

    def refuse(source: LogSource) -> BinaryIO:
        raise PermissionError(13, "Permission denied", source.name)

    monkeypatch.setattr(LogSource, "open", refuse)
    code, out = run(capsys, str(VALID))
    assert code == 2
    assert f"{VALID}: error unreadable: permission denied\n" in out


# ---------------------------------------------------------------------------------------------
# Hostile input.


def test_enormous_line_is_an_error_with_bounded_reading(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A line longer than --max-line-bytes is reported at its line."""
    lines = VALID.read_bytes().splitlines(keepends=True)
    huge = b'{"type": "x", "seq": 3, "data": "' + b"a" * 5000 + b'"}\n'
    path = tmp_path / "huge.jsonl"
    path.write_bytes(b"".join([*lines[:4], huge, *lines[4:]]))
    code, out = run(capsys, "--max-line-bytes", "4096", str(path))
    assert code == 2
    assert f"{path}:5: error line-too-long SAFE-4: the line is longer than 4096 bytes" in out


@pytest.mark.parametrize("layout", ["dsh", "claude-code"])
@pytest.mark.parametrize("after", [b"", b"\n", b"{}\n"], ids=["last", "blank", "more"])
def test_SAFE_4_a_last_line_past_the_bound_does_not_say_lines_after_it_went_unchecked(
    layout: str, after: bytes, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """SAFE-4: a line past --max-line-bytes is an error at its line; 'not checked past line N'
    follows it only when a line that is not blank comes after it, as for any input error (the
    rest of the over-long line is no line of its own)."""
    if layout == "dsh":
        lines = VALID.read_bytes().splitlines(keepends=True)[:4]
    else:
        lines = [
            b'{"type": "user", "sessionId": "s1", "message": {"role": "user", "content": "hi"}}\n'
        ]
    huge = b'{"type": "x", "data": "' + b"a" * 200_000 + b'"}\n'
    path = tmp_path / "huge.jsonl"
    path.write_bytes(b"".join([*lines, huge, after]))
    code, out = run(capsys, "--max-line-bytes", "4096", str(path))
    assert code == 2, out
    assert f"{path}:{len(lines) + 1}: error line-too-long SAFE-4: " in out
    said = f"{path}: not checked past line {len(lines) + 1}: " in out
    assert said == (after == b"{}\n"), out


def test_binary_file_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A binary file is named as such."""
    path = tmp_path / "image.jsonl"
    path.write_bytes(bytes(range(256)) * 8)
    code, out = run(capsys, str(path))
    assert code == 2
    assert f"{path}:1: error binary" in out
    assert "not checked past" not in out  # no line of it to fix: it is no log


def test_a_gzip_file_is_not_told_to_fix_its_first_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gzip-compressed log is no log until unpacked: the report said `not checked past line
    1: fix that line and check again`, as if one line of it were broken."""
    log = tmp_path / "session.jsonl.gz"
    log.write_bytes(gzip.compress(VALID.read_bytes() * 50))
    code, out = run(capsys, str(log))
    assert code == 2
    assert "gunzip -c LOG | loopspec check -" in out
    assert "not checked past" not in out, out


def test_REC_1_a_turn_opened_over_calls_a_crash_left_names_the_repair_it_skipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """REC-1: a harness that crashed while calls awaited their results and, reopened, started
    the next turn without crash repair: the turn/start is blamed on the repair it skipped, as in
    a Codex rollout, naming the calls still open. It said only that turn 2 starts inside open
    turn 1, where the turn looked closed to a user who knew of no crash, and then named TURN-1
    where the same turn/start in a rollout was REC-1's."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "resumed.jsonl"
    resumed = {"type": "turn/start", "seq": 11, "time": 1700000000011, "data": {"turn": 2}}
    path.write_text("".join(lines[:12]) + json.dumps(resumed) + "\n", encoding="utf-8")
    code, out = run(capsys, str(path))
    assert code == 1
    assert out.splitlines()[0] == (
        f"{path}:13: REC-1 (seq 11): turn 2 starts inside open turn 1, where calls call_a, "
        "call_b, call_c still await their results: a turn a crash left open is closed by crash "
        "repair, which answers its calls, before the next starts [events 11 (line 13)]"
    )


@pytest.mark.parametrize(("was", "flag"), [(True, "true"), (True, 1), (False, "false"), (False, 0)])
def test_LOG_4_a_result_flagged_an_error_by_a_string_or_number_is_refused_not_blamed_on_DEC_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, was: bool, flag: object
) -> None:
    """LOG-4: a harness that writes a result's `isError` as `"true"` (or 1, `"false"`, 0) wrote
    the flag's type wrong, which the model's reader refuses. check read any flag but `true` as
    success: it blamed a denial so flagged on DEC-1, 'its result reports success', and passed
    a successful result so flagged (the clean-event path, tests/test_check_fuzz.py's)."""
    rows = [json.loads(line) for line in VALID.read_text(encoding="utf-8").splitlines()]
    flagged = next(
        number
        for number, row in enumerate(rows, 1)
        if row["type"] == "tool/result"
        and row["data"]["message"]["content"][0].get("isError", False) is was
    )
    rows[flagged - 1]["data"]["message"]["content"][0]["isError"] = flag
    path = tmp_path / "flagged.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    code, out = run(capsys, str(path))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{path}:{flagged}: error bad-event LOG-4: tool/result: "
        "data.message.content[0].isError must be a boolean"
    )


@pytest.mark.parametrize(("cut", "said"), [(0, ""), (25, "25 bytes of a write, then ")])
def test_LOG_8_a_tail_of_zero_bytes_a_crash_left_is_a_torn_last_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, cut: int, said: str
) -> None:
    """LOG-8: a crash that saved the file's new length before its data leaves the log ending in
    zero bytes (the filesystem's reading of the gap), after a write cut short or none. It is a
    torn last line, which the harness drops on reopening (dsh was seen to, and to close the
    turn it cut): the torn-commit notice, exit 0. It was an error, exit 2 (and before that
    'binary data, not a JSON Lines session log')."""
    lines = VALID.read_bytes().splitlines(keepends=True)
    path = tmp_path / "crashed.jsonl"
    path.write_bytes(b"".join(lines[:6]) + lines[6][:cut] + bytes(4096))
    code, out = run(capsys, str(path))
    assert code == 0
    assert out.splitlines()[1] == (
        f"{path}:7: notice torn-commit LOG-8: line 7 is {said}4096 zero bytes (the file's new "
        "length reached the disk, its data did not): the last line, a write a crash cut off, "
        "which the harness drops when the session reopens; checked up to line 6"
    )


def test_LOG_8_zero_bytes_with_lines_after_them_are_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-8: zero bytes a crash left, and then lines appended after them, are no torn tail:
    the harness appended without dropping them first (an error, exit 2)."""
    lines = VALID.read_bytes().splitlines(keepends=True)
    path = tmp_path / "appended.jsonl"
    path.write_bytes(b"".join(lines[:6]) + bytes(100) + b"\n" + b"".join(lines[6:]))
    code, out = run(capsys, str(path))
    assert code == 2
    assert out.splitlines()[0].startswith(f"{path}:7: error binary LOG-8: the line is 100 zero")


@pytest.mark.parametrize(
    ("tail", "said"),
    [
        (b'{"type": "tool/result", "seq": 6, "da\n', "stops short (37 bytes, then a newline)"),
        (
            b'{"type": "tool/result", "seq": 6, "da\n\n  \n',
            "stops short (37 bytes, then a newline)",
        ),
        (
            bytes(40) + b"\n",
            "is 40 zero bytes (the file's new length reached the disk, its data did not)",
        ),
    ],
    ids=["cut", "cut-then-blank-lines", "zero-bytes"],
)
def test_LOG_8_a_torn_last_line_ended_by_a_newline_is_a_torn_tail_of_a_dsh_log(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tail: bytes, said: str
) -> None:
    """LOG-8: on a version 0 log, a last line cut off mid-write or left as zero bytes is a torn
    tail (the torn-commit notice, exit 0) even when a newline, or only blank lines, follow it:
    dsh 0.1.0-rc.8, reopening such a log, drops the line and closes the turn it cut, as it does
    one without its newline. Both were errors (exit 2)."""
    lines = VALID.read_bytes().splitlines(keepends=True)
    path = tmp_path / "crashed.jsonl"
    path.write_bytes(b"".join(lines[:6]) + tail)
    code, out = run(capsys, str(path))
    assert code == 0, out
    assert out.splitlines()[1] == (
        f"{path}:7: notice torn-commit LOG-8: line 7 {said}: the last line, a write a crash cut "
        "off, which the harness drops when the session reopens; checked up to line 6"
    )


@pytest.mark.parametrize(
    ("tail", "said"),
    [
        (
            b'{"type": "tool/result", "seq": 6, "da\n',
            "invalid-json LOG-8: the last line stops after 37 characters, before its JSON value "
            "ends, ",
        ),
        (bytes(40) + b"\n", "binary LOG-8: the last line is 40 zero bytes, "),
    ],
    ids=["cut", "zeros"],
)
def test_LOG_8_a_torn_last_line_ended_by_a_newline_stays_an_error_on_a_version_1_log(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tail: bytes, said: str
) -> None:
    """LOG-8: loopspec's own reader (version 1 logs) drops only a last line without its
    newline; one with it stops the reader, so check reports it (exit 2), saying why a version 1
    log differs from a version 0 one, where such a line is a crash's. It said the harness 'must
    drop whole before it appends again', though nothing was appended and a version 0 log's
    same line is only a notice."""
    lines = VALID.read_bytes().splitlines(keepends=True)
    header = json.loads(lines[0])
    path = tmp_path / "marked.jsonl"
    path.write_bytes(
        json.dumps({**header, "version": 1}).encode() + b"\n" + b"".join(lines[1:6]) + tail
    )
    code, out = run(capsys, str(path))
    assert code == 2, out
    assert out.splitlines()[0] == (
        f"{path}:7: error {said}yet a newline ends it: a version 1 log's writer (loopspec run) "
        "writes each line with its newline, so a crash leaves a cut last line without one, the "
        "only one its reader drops; this one it refuses (a version 0 log's, which dsh drops on "
        "reopening, is a torn-commit notice)"
    )


def test_LOG_8_a_torn_line_followed_by_an_event_stays_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-8: a torn write with an event after it is not what a crash leaves: the harness
    appended without dropping it (dsh, reopening, would drop the events after it too, or refuse
    the log when one is a turn/end). An error, exit 2."""
    lines = VALID.read_bytes().splitlines(keepends=True)
    path = tmp_path / "appended.jsonl"
    path.write_bytes(b"".join(lines[:6]) + lines[6][:40] + b"\n\n" + lines[6])
    code, out = run(capsys, str(path))
    assert code == 2
    assert out.splitlines()[0].startswith(f"{path}:7: error invalid-json LOG-8: the line stops")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ('"createdAt": -0.0', "the number -0.0 is minus zero, which a JSON round trip loses"),
        ('"createdAt": 1e999', "the number 1e999 is too large: it reads as an infinity"),
        (
            '"createdAt": 1, "host": [1e999]',
            "the number 1e999 is too large: it reads as an infinity",
        ),
    ],
    ids=["minus-zero", "infinite", "infinite-extra"],
)
def test_LOG_3_a_header_number_json_cannot_carry_is_an_error_check_reads_past(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, value: str, said: str
) -> None:
    """LOG-3: a header holding -0.0 or a number too large for a double is an error naming
    LOG-3, as the same number in an event is, and check reads on past it, as it does past a
    header value of a wrong type: the violation after it is found. It stopped the check at
    line 1, naming LOG-5."""
    lines = BROKEN.read_text(encoding="utf-8").splitlines(keepends=True)
    header = '{"type": "session", "version": 0, "id": "s", ' + value + ', "cwd": "/w"}\n'
    log = tmp_path / "eve.jsonl"
    log.write_text(header + "".join(lines[1:]), encoding="utf-8")
    code, out = run(capsys, str(log))
    assert code == 2
    said_lines = out.splitlines()
    assert f"{log}:1: error bad-header LOG-3: not lossless JSON: {said}" in said_lines
    assert any(line.startswith(f"{log}:13: ADJ-1 ") for line in said_lines)
    assert "not checked past" not in out


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_empty_log_is_an_error(
    content: bytes, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A file with no header and no events is not a session log."""
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    code, out = run(capsys, str(path))
    assert code == 2
    assert f"{path}: error empty LOG-5: the log is empty" in out


def test_header_only_is_a_valid_empty_session(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A session that logged nothing yet keeps every rule."""
    path = tmp_path / "new.jsonl"
    path.write_bytes(VALID.read_bytes().splitlines(keepends=True)[0])
    assert run(capsys, str(path)) == (0, "checked 1 log, 0 events: 0 violations\n")


def test_nan_and_trailing_data_are_invalid_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """NaN is not JSON, and a line holds one value only."""
    header = VALID.read_bytes().splitlines(keepends=True)[0]
    for bad in (b'{"type": "x", "seq": 0, "data": NaN}\n', b'{"type": "x", "seq": 0} {}\n'):
        path = tmp_path / "nan.jsonl"
        path.write_bytes(header + bad)
        code, out = run(capsys, str(path))
        assert code == 2
        assert ":2: error invalid-json LOG-4: invalid JSON" in out


def test_leading_whitespace_and_blank_lines_that_end_the_log_are_accepted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """JSON may start after spaces; blank lines that end a log hold nothing and are skipped
    (dsh and loopspec's reader drop them on reopening)."""
    lines = VALID.read_bytes().splitlines(keepends=True)
    path = tmp_path / "spaced.jsonl"
    path.write_bytes(b"".join(b"  " + line for line in lines) + b"\n  \n\n")
    code, out = run(capsys, str(path))
    assert code == 0, out
    assert out == run(capsys, str(VALID))[1].replace(str(VALID), str(path))


@pytest.mark.parametrize("blank", [b"\n", b" \t\n"], ids=["empty", "whitespace"])
@pytest.mark.parametrize("where", [1, 2, -1], ids=["before-header", "after-header", "before-last"])
def test_LOG_4_a_blank_line_with_lines_after_it_is_an_error(
    blank: bytes, where: int, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-4: a blank line before another line is no event, and no reader skips it: dsh
    (0.1.0-rc.8), reopening the log, refuses it when a turn/end follows and otherwise drops
    every line after it; loopspec's reader refuses it. check skipped it and passed the log
    (exit 0); it is an input error naming the line, exit 2 (LOG-5 before the header), of kind
    blank-line (it was invalid-json, which says the line holds broken JSON)."""
    lines = VALID.read_bytes().splitlines(keepends=True)
    at = where - 1 if where > 0 else len(lines) - 1
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"".join([*lines[:at], blank, *lines[at:]]))
    code, out = run(capsys, str(path))
    assert code == 2, out
    rule = "LOG-5" if at == 0 else "LOG-4"
    found = out.splitlines()
    assert found[0].startswith(
        f"{path}:{at + 1}: error blank-line {rule}: a blank line with lines after it"
    )
    assert found[1].startswith(f"{path}: not checked past line {at + 1}: ")
    code, report = run_json(capsys, str(path))
    assert code == 2
    errors = report["logs"][0]["errors"]
    assert [(e["line"], e["kind"], e["rule"]) for e in errors] == [(at + 1, "blank-line", rule)]
    assert report["summary"]["errors_by_kind"] == {"blank-line": 1}


def test_LOG_4_every_error_kind_is_documented_with_its_rule() -> None:
    """LOG-4: the JSON format's documentation says, of every error kind a log's entry can
    hold, what it means and which rule it names (blank-line was added without a word there)."""
    documented = " ".join((report.__doc__ or "").split())
    kinds = [value for name, value in vars(ErrorKind).items() if name.isupper()]
    assert "blank-line" in kinds
    for kind in kinds:
        assert f" {kind} (" in documented, kind


@pytest.mark.parametrize("after", [b"", b"\n", b"\n  \n"], ids=["last", "blank", "blanks"])
def test_LOG_4_an_error_on_the_last_line_does_not_say_lines_after_it_went_unchecked(
    after: bytes, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-4: an input error on the last line that is not blank stopped nothing: the text said
    'not checked past line N' there, though no line follows it (blank lines after it neither
    hold an event). The error itself still stands, exit 2."""
    lines = VALID.read_bytes().splitlines(keepends=True)
    path = tmp_path / "last.jsonl"
    path.write_bytes(b"".join([*lines, b'{"type": "turn/start", "seq": "x"}\n', after]))
    code, out = run(capsys, str(path))
    assert code == 2, out
    assert f"{path}:{len(lines) + 1}: error " in out
    assert "not checked past" not in out, out


# ---------------------------------------------------------------------------------------------
# Limits and output.


def test_max_violations_lists_some_and_counts_all(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Violations past --max-violations are counted, not listed (memory stays bounded)."""
    lines = VALID.read_bytes().splitlines(keepends=True)
    shifted = [lines[0]] + [
        line.replace(b'"seq": ', b'"seq": 1000', 1) if index % 2 else line
        for index, line in enumerate(lines[1:])
    ]
    path = tmp_path / "gaps.jsonl"
    path.write_bytes(b"".join(shifted))
    _, parsed = run_json(capsys, "--max-violations", "3", str(path))
    log = parsed["logs"][0]
    assert len(log["violations"]) == 3
    assert log["violations_omitted"] == parsed["summary"]["violations"] - 3 > 0


def test_json_format_is_documented_where_check_help_points(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check --help` names the JSON format and where an installed loopspec documents it (the
    help said only "output format (text)", and README gave a path of the source tree), and that
    documentation names every key a log's entry and the summary carry."""
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps to the terminal it finds
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    # argparse wraps lines at spaces and after hyphens: undo both.
    shown = " ".join(re.sub(r"-\n\s+", "-", capsys.readouterr().out).split())
    assert "loopspec-check/1" in shown
    assert "python -m pydoc loopspec.properties.logcheck.report" in shown
    code, parsed = run_json(capsys, str(BROKEN), str(INVALID), str(TORN), str(HARNESS))
    assert code == 2
    documented = report.__doc__ or ""
    for key in {*parsed, *parsed["summary"], *(k for log in parsed["logs"] for k in log)}:
        assert f'"{key}"' in documented, key


def test_LOG_5_the_text_report_puts_what_stopped_the_check_first_then_the_rest_by_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-5, LOG-4: the text lists a log's findings grouped by kind, errors after violations:
    a wrong header value on line 1, read past, printed after a violation on line 14, and the
    error that stopped the check after the violations before it, though it is what says they
    are not all. The error that stopped the check comes first, then the rest by line, then
    notices; the JSON output is unchanged."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[0] = lines[0].replace('"createdAt": 1700000000000', '"createdAt": "yesterday"')
    lines[13] = lines[13].replace('"sourceEventSeqs": [8]', '"sourceEventSeqs": [12]')
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    code, out = run(capsys, str(path))
    assert code == 2, out
    said = [line.split(": ")[0:2] for line in out.splitlines()[:2]]
    assert said == [[f"{path}:1", "error bad-header LOG-5"], [f"{path}:14", "ORD-2 (seq 12)"]]
    # A line cut off with lines after it stops the check at line 20, after that violation.
    lines[19] = lines[19][:30] + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    code, out = run(capsys, str(path))
    assert code == 2, out
    found = out.splitlines()
    assert found[0].startswith(f"{path}:20: error invalid-json LOG-8: the line stops"), out
    assert found[1].startswith(f"{path}: not checked past line 20: "), out
    assert [line.split(": ")[0] for line in found[2:4]] == [f"{path}:1", f"{path}:14"], out
    code, report = run_json(capsys, str(path))
    entry = report["logs"][0]
    assert [(e["line"], e["kind"]) for e in entry["errors"]] == [
        (1, "bad-header"),
        (20, "invalid-json"),
    ]
    assert [v["line"] for v in entry["violations"]] == [14]


def test_LOG_4_an_error_on_the_last_line_prints_by_line_as_it_stopped_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-4, LOG-5: an event line that is no object, the log's last, is an error that left
    nothing unchecked: it prints after a line 1 header error, by line, not first as the error
    that stopped the check (and no 'not checked past' line follows it)."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[0] = lines[0].replace('"createdAt": 1700000000000', '"createdAt": "yesterday"')
    path = tmp_path / "edited.jsonl"
    path.write_text("".join([lines[0], "[1, 2]\n"]), encoding="utf-8")
    code, out = run(capsys, str(path))
    assert code == 2, out
    said = [line.split(": ")[0:2] for line in out.splitlines()[:2]]
    assert said == [[f"{path}:1", "error bad-header LOG-5"], [f"{path}:2", "error bad-event LOG-4"]]
    assert "not checked past" not in out, out


def test_LOG_5_two_logs_joined_into_one_file_are_named_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LOG-5: two session logs joined into one file (`cat a b > c`) were told, at the second's
    header, that a resumed session writes no header again: the header of another session (its
    own id) names the two logs joined, and that each is checked on its own."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    other = lines[0].replace('"id": "', '"id": "other-', 1)
    joined = tmp_path / "joined.jsonl"
    joined.write_text("".join([*lines, other, *lines[1:]]), encoding="utf-8")
    code, out = run(capsys, str(joined))
    assert code == 2
    first_id = json.loads(lines[0])["id"]
    assert out.splitlines()[0] == (
        f"{joined}:{len(lines) + 1}: error bad-event LOG-5: a second session header, of another "
        f'session (id "other-{first_id}", where line 1\'s is "{first_id}"): two logs joined '
        "into one file (cat a b > c?); check each log on its own; nothing after this line is "
        "checked"
    )


def test_LOG_5_a_header_written_again_on_resume_says_what_to_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LOG-5: a harness that writes the session header again when it resumes a session is told
    where, that a log has one header, and that checking stopped there (it read only "a second
    session header", which left the maintainer to guess the fix and why nothing after it was
    judged)."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    resumed = tmp_path / "resumed.jsonl"
    resumed.write_text("".join([*lines, lines[0]]), encoding="utf-8")
    code, out = run(capsys, str(resumed))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{resumed}:{len(lines) + 1}: error bad-event LOG-5: a second session header: a log has "
        "one, on line 1, and a resumed session appends its events without writing another; "
        "nothing after this line is checked"
    )
    # A header after events, line 1 an event: no second header, and line 1 holds no first one.
    late = tmp_path / "late.jsonl"
    late.write_text("".join([*lines[1:3], lines[0], *lines[3:]]), encoding="utf-8")
    code, out = run(capsys, str(late))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{late}:3: error bad-event LOG-5: the session header, after events: a log opens with its "
        "header, on line 1, before every event (line 1 is an event); nothing after this line is "
        "checked"
    )
    assert f"{late}:1: error bad-header LOG-5: the first line must be the session header" in out


@pytest.mark.parametrize(
    ("first", "said"),
    [
        (None, "line 1 is an event: write the header above it"),
        (0, "line 1 is the header, carrying a seq: leave it out"),
    ],
    ids=["no header", "a header with a seq"],
)
def test_LOG_5_a_first_line_that_is_no_header_says_what_to_write(
    first: int | None, said: str
) -> None:
    """LOG-5: a log without its header, or whose header carries a seq, read 'the first line
    must be the session header ... with no seq', not which of the two it is, nor that the
    events were checked. A header with a seq, then a second header, was told 'the session
    header, after events (line 1 is an event)': line 1 was a header."""
    header, *events = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    if first is None:
        lines = events
    else:
        lines = [json.dumps({**json.loads(header), "seq": first}) + "\n", *events]
    report = check_stream("log", io.BytesIO("".join(lines).encode()))
    (error,) = report.errors
    assert (error.line, error.message) == (
        1,
        f"{FIRST_LINE_NO_HEADER}; {said} (the events were checked as they are)",
    )
    assert report.events == len(events)
    if first is not None:
        again = check_stream("log", io.BytesIO("".join([*lines[:4], header, *lines[4:]]).encode()))
        assert again.errors[1].message.startswith("a second session header: a log has one")


@pytest.mark.parametrize("quick", [True, False], ids=["quick", "every fact"])
def test_REC_1_a_repaired_turn_must_end_interrupted(quick: bool) -> None:
    """REC-1: a crash repair closes the turn with `turn/end {interrupted}`. A harness whose
    repair writes the synthetic results and then ends the turn `completed` is blamed at that
    turn/end; it passed, with REC-1 among the rules the log was checked by."""
    log = wire(run_model(DEMO_CONFIG, DEMO_COMMANDS).log)
    assert log[-1]["type"] == "turn/end"
    header = {"type": "session", "version": 0, "id": "s", "createdAt": 0, "cwd": "/w"}

    def rec_1(events: list[dict[str, Any]]) -> list[tuple[int, str]]:
        text = "".join(json.dumps(line) + "\n" for line in [header, *events])
        report = check_stream("log", io.BytesIO(text.encode()), quick=quick)
        assert report.errors == []
        found = report.violations
        return [(f.line, f.violation.message) for f in found if f.violation.rule_id == "REC-1"]

    assert rec_1(log) == []
    data = log[-1]["data"]
    assert isinstance(data, dict)
    completed = [*log[:-1], {**log[-1], "data": {**data, "reason": {"kind": "completed"}}}]
    assert rec_1(completed) == [
        (
            len(log) + 1,
            f'turn {data["turn"]} ends "completed" after crash repair results: a repaired turn '
            "ends interrupted",
        )
    ]


def _keys(value: object) -> set[str]:
    """Every key of the objects in `value`, at any depth, but those of maps keyed by data (a
    rule, a kind, an event type, a loop, a path)."""
    keyed_by_data = {
        "violations_by_rule",
        "errors_by_kind",
        "notices_by_kind",
        "logs_by_status",
        "unread_event_types",
        "rules_not_checkable",
        "rules_checked_in_part",
        "known_rules",
        "known_divergences_by_rule",
        "skipped_by_kind",
        "known_lists",
        "did_not_occur",
        "race_not_lost",
    }
    counts_by_data_twice = {"known_divergence_hints"}  # per loop, per rule: numbers only
    found: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            found.add(key)
            if key in counts_by_data_twice:
                continue
            if key in keyed_by_data and isinstance(inner, dict):
                for entry in inner.values():
                    found |= _keys(entry)
            else:
                found |= _keys(inner)
    elif isinstance(value, list):
        for item in value:
            found |= _keys(item)
    return found


def test_every_json_key_is_documented_and_the_format_stays_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """loopspec-check/1 only gains keys (docs/check.md: a consumer ignores a key it does not
    know): every key the output can hold is in the format's documentation, `python -m pydoc
    loopspec.properties.logcheck.report`, which `--format`'s help points to, so one added
    without it (as `rules_checked_in_part` could have been) fails here."""
    home = tmp_path / "home" / ".claude"
    home.mkdir(parents=True)
    (home / "history.jsonl").write_text('{"display": "hi", "timestamp": 1, "project": "/w"}\n')
    claude = FIXTURES / "claude-code" / "violations" / "RW-1.jsonl"
    rewrite = (
        FIXTURES
        / "blame"
        / "unchecked"
        / "DEC-1-a-hook-naming-no-call-denied-a-call-that-ran.jsonl"
    )
    logs = [str(BROKEN), str(INVALID), str(TORN), str(HARNESS), str(claude), str(rewrite)]
    outputs = [
        run_json(capsys, *logs, str(home))[1],
        run_json(capsys, "--known", "claude-code", "--strict-known", *logs)[1],
        run_json(capsys, "--known", "ADJ-1", "--fail-on-hook-faults", *logs)[1],
    ]
    assert {output["format"] for output in outputs} == {"loopspec-check/1"}
    documented = set(re.findall(r'"([a-z_]+)":', report.__doc__ or ""))
    found = set().union(*(_keys(output) for output in outputs))
    assert {"rules_checked_in_part", "known_lists", "skipped", "known_divergence_hints"} <= found
    assert found - documented == set()


def test_json_output_is_one_stable_object(capsys: pytest.CaptureFixture[str]) -> None:
    """--format json: one object, `format` and `logs` and `summary`, with the documented keys."""
    code, parsed = run_json(capsys, str(BROKEN), str(INVALID), str(TORN), str(HARNESS))
    assert code == 2
    assert set(parsed) == {"format", "logs", "summary"}
    assert parsed["format"] == "loopspec-check/1"
    log_keys = {
        "path",
        "status",
        "header_version",
        "lines",
        "events",
        "violations",
        "violations_omitted",
        "errors",
        "notices",
        "unread_event_types",
        "dialect",
        "rules_checked",
        "rules_not_checkable",
        "rules_checked_in_part",
    }
    assert all(set(log) == log_keys for log in parsed["logs"])
    broken, invalid, torn, harness = parsed["logs"]
    assert [log["status"] for log in parsed["logs"]] == ["violations", "error", "ok", "ok"]
    (violation,) = broken["violations"]
    assert violation == {
        "line": 13,
        "seq": 11,
        "rule": "ADJ-1",
        "message": violation["message"],
        "events": [11, 7],
        "event_lines": [13, 9],
    }
    (error,) = invalid["errors"]
    assert set(error) == {"line", "kind", "rule", "message"}
    assert error["rule"] == "LOG-4"
    crash, cut = torn["notices"]
    assert set(crash) == set(cut) == {"line", "seq", "kind", "rule", "message"}
    assert (crash["rule"], cut["rule"], cut["seq"]) == ("REC-2", "LOG-8", None)
    assert harness["unread_event_types"]["agent/inbox/spliced"] == 3
    assert parsed["summary"] == {
        "logs": 4,
        "events": 45 + 9 + 40 + 158,
        "violations": 1,
        "violations_by_rule": {"ADJ-1": 1},
        "errors": 1,
        "errors_by_kind": {"invalid-json": 1},
        "notices": 2,
        "notices_by_kind": {"crash-tail": 1, "torn-commit": 1},
        "logs_by_status": {"error": 1, "ok": 2, "violations": 1},
        "exit_code": 2,
    }


def test_verbose_text_says_how_each_log_went(capsys: pytest.CaptureFixture[str]) -> None:
    """-v adds a line per log with its status, counts and the event types nobody reads."""
    _, out = run(capsys, "-v", str(HARNESS))
    assert f"{HARNESS}: ok, 158 events in 93 lines; event types whose data no rule reads: " in out


def test_unencodable_text_in_a_log_still_prints(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A lone surrogate (a legal JSON escape) quoted in a message prints escaped, in text and
    JSON, to a strict UTF-8 stdout."""
    lines = VALID.read_text().splitlines(keepends=True)
    bad_id = lines[9].replace('"callId": "call_a"', '"callId": "call_\\ud800"')
    path = tmp_path / "surrogate.jsonl"
    path.write_text("".join([*lines[:9], bad_id, *lines[10:]]))
    for argv in (["check", str(path)], ["check", "--format", "json", str(path)]):
        raw = io.BytesIO()
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8"))
        assert main(argv) == 1
        sys.stdout.flush()
        assert b"call_\\ud800" in raw.getvalue()


def test_LOG_5_a_log_loopspec_run_wrote_is_a_known_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LOG-5: `check` knows the header version of the logs loopspec itself writes (version 1:
    dsh's layout with commit-unit markers), so checking `loopspec run`'s log gives no
    unknown-version notice and judges its multi-event commits like any other events."""
    scenario = tmp_path / "scenario.json"
    call = {"type": "tool-call", "id": "c1", "name": "bash", "arguments": '{"command": "ls"}'}
    replies = [{"blocks": [call], "finish": "completed"},
               {"blocks": [{"type": "text", "text": "done"}], "finish": "completed"}]  # fmt: skip
    document = {
        "tools": [{"name": "bash", "requiredKeys": ["command"]}],
        "turns": [{"user": "list", "replies": replies}],
        "results": {"c1": {"ok": True, "text": "a.txt"}},
        "cwd": str(tmp_path),
    }
    scenario.write_text(json.dumps(document), encoding="utf-8")
    log = tmp_path / "out.jsonl"
    assert main(["run", str(scenario), "--log", str(log)]) == 0
    capsys.readouterr()
    assert json.loads(log.read_text(encoding="utf-8").splitlines()[0])["version"] == 1
    assert '"unit":' in log.read_text(encoding="utf-8"), "no multi-event commit was written"
    code, document_out = run_json(capsys, str(log))
    assert code == 0
    (checked,) = document_out["logs"]
    assert checked["notices"] == []
    assert checked["events"] > 5


def test_LOG_4_an_error_mid_log_says_the_lines_after_it_went_unchecked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-4: an event the rules cannot read stops the check of its log at that line. The
    summary still reads `0 violations`, so a harness author who fixed that line took the rest of
    her log for clean; the text now says how far the log was judged. A torn last line stops
    nothing that follows it and gets no such line."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    result_at = next(i for i, line in enumerate(lines) if '"tool/result"' in line)
    event = json.loads(lines[result_at])
    block = event["data"]["message"]["content"][0]
    block["toolCallId"] = "not-the-call"  # a tool-result block naming another call (LOG-6)
    broken = tmp_path / "eve.jsonl"
    broken.write_text(
        "".join([*lines[:result_at], json.dumps(event) + "\n", *lines[result_at + 1 :]]),
        encoding="utf-8",
    )
    code, out = run(capsys, str(broken))
    assert code == 2
    found = out.splitlines()
    assert found[0].startswith(f"{broken}:{result_at + 1}: error bad-event LOG-6: tool/result:")
    assert found[1] == (
        f"{broken}: not checked past line {result_at + 1}: fix that line and check again to "
        "judge the rest"
    )
    code, out = run(capsys, str(TORN))
    assert code == 0
    assert "not checked past" not in out


def test_LOG_8_a_line_cut_short_inside_the_log_is_named_a_torn_write(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-8: a write cut off mid-line, after which the harness went on appending (it reopened
    without dropping the torn write), read 'invalid JSON at column 1: Expecting property name'
    (LOG-4): the column of the line after it, as the parser counts past the newline. It now
    says the line stops before its JSON value ends, where, and that the harness must drop such a
    write whole (LOG-8)."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = lines[3][:40]  # the write stops inside an object, then the next write starts anew
    torn = tmp_path / "eve.jsonl"
    torn.write_text("".join([*lines[:3], cut + "\n", *lines[4:]]), encoding="utf-8")
    code, out = run(capsys, str(torn))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{torn}:4: error invalid-json LOG-8: the line stops after {len(cut)} characters, before "
        "its JSON value ends: a write cut off, which the harness must drop whole before it "
        "appends again"
    )


@pytest.mark.parametrize(
    ("width", "holding"),
    [(120, "line 5 holds"), (80, "lines 5 to 6 hold"), (66, "lines 5 to 7 hold")],
    ids=["120 wide", "80 wide", "just before a nested {"],
)
def test_LOG_4_an_event_wrapped_over_several_lines_is_no_torn_write(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, width: int, holding: str
) -> None:
    """LOG-4: a log copied from a terminal (or an editor) that wrapped a long line read as a
    write a crash cut off at the wrap (LOG-8, 'the harness must drop it whole'): the lines
    after it, which begin no event, hold the rest of it, and joined they are one event. A line
    the wrap began with a nested object's '{' was taken for an event of its own: only a whole
    object on its line is one."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    event = lines[3].rstrip()
    assert len(event) == 232  # over 2 lines 120 wide, 3 lines 80 wide, 4 lines 66 wide
    assert event[66] == "{"  # 66 wide, the second line opens with the content's first block
    wrapped = "".join(event[at : at + width] + "\n" for at in range(0, len(event), width))
    log = tmp_path / "eve.jsonl"
    log.write_text("".join([*lines[:3], wrapped, *lines[4:]]), encoding="utf-8")
    code, out = run(capsys, str(log))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{log}:4: error invalid-json LOG-4: the line breaks off after {width} characters and "
        f"{holding} the rest of its event: one event broken over several lines (wrapped by a "
        "terminal or an editor, copied so?); join them, a session log holds each event on one "
        "line"
    )


@pytest.mark.parametrize("indent", [2, "\t"], ids=["spaces", "a tab"])
def test_LOG_4_an_event_re_indented_over_several_lines_is_no_torn_write(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, indent: int | str
) -> None:
    """LOG-4: an event pasted through an editor that re-indented it, its members on lines of
    their own, read as a write a crash cut after 1 character (LOG-8, 'the harness must drop
    it'), and a person looked for a crash. Its lone '{' is named as an event over several
    lines."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    spread = json.dumps(json.loads(lines[3]), indent=indent) + "\n"
    log = tmp_path / "eve.jsonl"
    log.write_text("".join([*lines[:3], spread, *lines[4:]]), encoding="utf-8")
    code, out = run(capsys, str(log))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{log}:4: error invalid-json LOG-4: the line is a lone '{{', an event's first line "
        "with the rest on the lines after it (re-indented by an editor, or pretty-printed JSON "
        "appended?): a session log holds each event on one line; join its lines"
    )


@pytest.mark.parametrize(
    "cut_inside",
    [
        ', "isError": fals',  # a literal
        ', "interrupted": tr',
        ', "text": "one\\',  # an escape, as a text's newline is written
        ', "text": "\\u00',
        ', "time": -',  # a number
        ', "time": 1.',
        ', "time": 17e+',
    ],
)
def test_LOG_8_a_line_cut_inside_a_literal_an_escape_or_a_number_is_a_torn_write(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, cut_inside: str
) -> None:
    """LOG-8: a write cut off inside a token, not between two, is a torn write too. The parser
    stops at the token's start (or its backslash, its \\u, its exponent), before the line's
    end, and the line read 'invalid JSON at column N' (LOG-4) although it only stops short."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = lines[3].rstrip()[:-1] + cut_inside  # the event, its object still open, cut there
    torn = tmp_path / "eve.jsonl"
    torn.write_text("".join([*lines[:3], cut + "\n", *lines[4:]]), encoding="utf-8")
    code, out = run(capsys, str(torn))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{torn}:4: error invalid-json LOG-8: the line stops after {len(cut)} characters, before "
        "its JSON value ends: a write cut off, which the harness must drop whole before it "
        "appends again"
    )


_PASTED: dict[str, tuple[Callable[[str], str], str]] = {
    # (each read 'invalid JSON at column N: ...', the comments as a write a crash cut off and
    # another event appended after it, the line number as two events on one line)
    "colour codes": (
        lambda line: f"\x1b[1;39m{line}\x1b[0m",
        "the line holds a terminal's colour codes (ESC [ ... m) around its JSON: copied from a "
        "coloured terminal (jq -C, a pager)? copy the file itself, or print it with jq -M",
    ),
    "a comment": (
        lambda line: f"// {line}",
        "the line is commented out (//): JSON has no comments, and a session log holds events "
        "alone; delete the line, or its // to keep the event",
    ),
    "a shell comment": (
        lambda line: f"#{line}",
        "the line is commented out (#): JSON has no comments, and a session log holds events "
        "alone; delete the line, or its # to keep the event",
    ),
    "a line number": (
        lambda line: f"     4\t{line}",
        "the line starts with 4 before its event: a line number (copied from cat -n, grep -n "
        "or an editor's view?); delete it",
    ),
    "grep's line number": (
        lambda line: f"4:{line}",
        "the line starts with 4 before its event: a line number (copied from cat -n, grep -n "
        "or an editor's view?); delete it",
    ),
    "typographic quotes": (
        lambda line: line.replace('"', "\u201c", 2),
        'a typographic quote \u201c at column 2 where JSON has a straight one ("): the line '
        'went through a word processor or a chat; write it as "',
    ),
    "a Python dict": (
        lambda line: repr(json.loads(line)),
        "a single quote at column 2: the line is written as Python prints a dict ({'type': "
        "...}), not JSON; write each event with json.dumps",
    ),
    "a no-break space": (
        lambda line: line.replace(", ", ",\u00a0", 1),
        "a no-break space (U+00A0) at column 25: JSON allows only spaces, tabs and line ends "
        "between its tokens (the line went through a word processor or a web page?)",
    ),
    "a comma after it": (
        lambda line: f"{line},",
        "a comma after the event, at column {column} (left from a JSON array, or lines "
        "joined?): a session log holds one event per line, and nothing after it; delete it",
    ),
}


@pytest.mark.parametrize("pasted", _PASTED)
def test_LOG_4_a_line_a_person_pasted_or_edited_says_what_to_undo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pasted: str
) -> None:
    """LOG-4: a line copied from a coloured terminal, commented out, numbered, curled by a
    word processor, printed by Python or left with a comma read as JSON's parser words it
    ('invalid JSON at column 2: Expecting property name enclosed in double quotes'), a
    commented line as a torn write with an event appended (LOG-8), a numbered one as two
    events on one line; each says what was done to it, and what to undo."""
    edit, said = _PASTED[pasted]
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    log = tmp_path / "pasted.jsonl"
    log.write_text("".join([*lines[:3], edit(lines[3].rstrip()) + "\n", *lines[4:]]), "utf-8")
    code, out = run(capsys, str(log))
    assert code == 2
    said = said.replace("{column}", str(len(lines[3].rstrip()) + 1))
    assert out.splitlines()[0] == f"{log}:4: error invalid-json LOG-4: {said}"


def _named_as_go_names_fields(line: str) -> str:
    """`line` with its top-level members' names capitalised, as Go's encoding/json writes a
    struct's fields without json tags."""
    return json.dumps({key[0].upper() + key[1:]: value for key, value in json.loads(line).items()})


@pytest.mark.parametrize(
    ("at", "edit", "said"),
    [
        (
            1,
            _named_as_go_names_fields,
            "error bad-header LOG-5: the first line must be the session header, "
            '{"type": "session", "version": 0, "id": "...", "createdAt": <ms>, "cwd": "..."}, '
            "with no seq; nor is it an event (no type, no seq), nor a record of a Claude Code "
            "transcript or a Codex rollout, so the rest of the file is not read; its members are "
            "written Type, Version, Id, CreatedAt, Cwd: member names are exact, write type, "
            "version, id, createdAt, cwd",
        ),
        (
            1,
            lambda _header: _named_as_go_names_fields(
                '{"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}}'
            ),
            "error bad-header LOG-5: the first line must be the session header, "
            '{"type": "session", "version": 0, "id": "...", "createdAt": <ms>, "cwd": "..."}, '
            "with no seq; nor is it an event (no type, no seq), nor a record of a Claude Code "
            "transcript or a Codex rollout, so the rest of the file is not read; its members are "
            "written Type, Seq, Time, Data: member names are exact, write type, seq, time, data",
        ),
        (
            4,
            _named_as_go_names_fields,
            "error bad-event LOG-4: an event needs an integer seq (written Type, Seq, Time, Data: "
            "member names are exact, write type, seq, time, data)",
        ),
        (
            10,
            lambda line: line.replace('"callId"', '"call_id"'),
            "error bad-event LOG-4: tool/call: data.callId is missing; it must be a string "
            "(written call_id: member names are exact, write callId)",
        ),
    ],
    ids=["a header's", "an event's in the header's place", "an event's", "a member in snake_case"],
)
def test_LOG_4_a_member_named_otherwise_says_the_name_to_write(
    at: int, edit: Callable[[str], str], said: str
) -> None:
    """LOG-4, LOG-5: a header or event whose members a writer named as Go's encoding/json names
    a struct's fields (Type, Seq), or in snake_case (call_id), read 'no type, no seq' or 'an
    event needs an integer seq', which it has by another name: the words say which member is
    written so, and the name to write."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[at - 1] = edit(lines[at - 1].rstrip("\n")) + "\n"
    report = check_stream("log", io.BytesIO("".join(lines).encode()))
    (error,) = report.errors
    assert f"error {error.kind} {error.rule_id}: {error.message}" == said
    assert error.line == at


def test_LOG_4_a_raw_escape_a_writer_left_inside_a_string_is_no_pasted_colour(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """LOG-4: a writer passing a command's coloured output on unescaped leaves a raw ESC inside
    a string: the line was told it held a terminal's colour codes around its JSON, copied from a
    coloured terminal, and to print it with jq -M, false of a line no one pasted."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    wrong = lines[3].rstrip()[:-1] + ', "output": "\x1b[31mred\x1b[0m"}'
    log = tmp_path / "escape.jsonl"
    log.write_text("".join([*lines[:3], wrong + "\n", *lines[4:]]), "utf-8")
    code, out = run(capsys, str(log))
    assert code == 2
    first = out.splitlines()[0]
    assert first.startswith(f"{log}:4: error invalid-json LOG-4: "), first
    assert "colour codes" not in first, first
    assert "control character" in first, first


@pytest.mark.parametrize("bad", [', "isError": flase', ', "text": "a\\q"', ', "time": 1.x'])
def test_LOG_4_a_wrong_token_inside_a_line_is_no_torn_write(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bad: str
) -> None:
    """LOG-4: a token that no more characters could make right is invalid JSON, not a cut."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    wrong = lines[3].rstrip()[:-1] + bad + "}"
    log = tmp_path / "eve.jsonl"
    log.write_text("".join([*lines[:3], wrong + "\n", *lines[4:]]), encoding="utf-8")
    code, out = run(capsys, str(log))
    assert code == 2
    assert "error invalid-json LOG-4: invalid JSON at column" in out.splitlines()[0]


@pytest.mark.parametrize("header", ['{"type": "session", "version": "zero"}', "no header"])
def test_LOG_5_a_header_error_the_check_reads_past_does_not_say_the_rest_went_unchecked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, header: str
) -> None:
    """LOG-5: a header with a wrong value, or a log whose first line is an event, is an error the
    check goes on past: every event after it is judged, and a violation there is reported. The
    text said 'not checked past line 1' below that violation; only an error that stopped the
    check (it is the last line read) says so."""
    lines = VALID.read_text(encoding="utf-8").splitlines(keepends=True)
    result_at = next(i for i, line in enumerate(lines) if '"tool/result"' in line)
    moved = [
        *lines[1 : result_at - 1],
        lines[result_at],
        lines[result_at - 1],
        *lines[result_at + 1 :],
    ]
    first = [] if header == "no header" else [header + "\n"]
    log = tmp_path / "eve.jsonl"
    log.write_text("".join([*first, *moved]), encoding="utf-8")
    code, out = run(capsys, str(log))
    assert code == 2
    assert f"{log}:1: error bad-header LOG-5: " in out
    assert re.search(r": [A-Z]+-\d+ \(seq \d+\): ", out), out  # the events were judged
    assert "not checked past" not in out, out


@pytest.mark.parametrize(
    "names",
    [["-", "-"], ["-", "/dev/stdin"], ["/dev/stdin", "/dev/stdin"], ["/dev/fd/0", "-"]],
)
def test_stdin_named_twice_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, names: list[str]
) -> None:
    """`check - -` read standard input twice and reported the second read as an empty log
    (LOG-5) under the first's name: refused instead, in one line, before anything is read. The
    same for /dev/stdin, which check reads as `-` (4dee014): `check - /dev/stdin` is refused.
    The refusal names the arguments as given: it said '(- or /dev/stdin)' to `check /dev/fd/0
    -`, naming neither of them."""
    feed_stdin(monkeypatch, HARNESS.read_bytes())
    assert main(["check", *names]) == 2
    shown = capsys.readouterr()
    assert shown.out == ""
    assert shown.err == (
        f"loopspec: error: standard input is named more than once ({', '.join(names)}): "
        "it can be read once\n"
    )


def test_SAFE_4_check_and_replay_know_the_same_names_of_standard_input() -> None:
    """check keeps its own list of standard input's names (it does not import impl.user_files,
    which imports typing): the two say the same."""
    from loopspec.impl.user_files import STDIN_PATHS as READERS  # noqa: PLC0415
    from loopspec.properties.logcheck.files import STDIN_PATHS  # noqa: PLC0415

    assert STDIN_PATHS == READERS


@pytest.mark.parametrize(
    ("source", "rule"),
    [(VALID, " LOG-4"), (FIXTURES / "claude-code" / "valid" / "two-calls-in-order.jsonl", "")],
    ids=["loopspec", "claude-code"],
)
def test_LOG_4_an_integer_too_long_to_read_is_named_in_loopspec_s_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: Path, rule: str
) -> None:
    """LOG-4: a number of 5,000 digits on line 3 was reported with Python's advice to "use
    sys.set_int_max_str_digits()", which a user of check cannot follow; it is named as a number
    loopspec does not read, by its line (and, in loopspec's own log, the rule)."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = '{"n": ' + "7" * 5000 + "}\n"
    path = tmp_path / "long-number.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    code, out = run(capsys, str(path))
    assert code == 2
    assert out.splitlines()[0] == (
        f"{path}:3: error invalid-json{rule}: "
        + ("" if rule else "invalid JSON: ")
        + "an integer of 5000 digits, more than the 4300 digits loopspec reads in a number"
    )
    assert "set_int_max_str_digits" not in out
