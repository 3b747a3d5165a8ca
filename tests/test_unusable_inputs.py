"""A file or folder a verb cannot use is one line naming it, exit 2, in the words `check` and
`replay` use: no rule when the system refused it (no such file, no permission), SAFE-4 when it is
refused unread (a device, a directory, a file over its cap), the rule its content breaks
otherwise; nothing at a path that existed is replaced (SAFE-2, SAFE-4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from inner_pytest import InnerPytest

from loopspec.impl.hookbridge import HookSettingsError, load_settings
from loopspec.properties.cli.main import main
from loopspec.properties.harnesses.cli import load_hooks
from loopspec.properties.harnesses.session import HarnessError
from loopspec.properties.spec_doc import SECTIONS

pytest_plugins = ["pytester"]  # the plugin's pytest runs in this process (InnerPytest)

SCENARIO: dict[str, list[dict[str, Any]]] = {
    "tools": [{"name": "bash", "concurrencySafe": False, "requiredKeys": ["command"]}],
    "turns": [{"user": "hi", "replies": [{"blocks": [], "finish": "completed"}]}],
}


def _scenario(tmp_path: Path) -> Path:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({**SCENARIO, "cwd": str(tmp_path)}), encoding="utf-8")
    return path


def test_SAFE_4_run_names_no_rule_for_a_missing_scenario_or_hooks_file_and_SAFE_4_for_a_device(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-4: `run` said '[PROTO-1] missing.json: cannot read the scenario' and, for a missing
    hooks file, '[HOOK-1] missing.json: $: missing.json: cannot read the hooks file' (the path
    twice, and the rule of the hook audit); no rule is broken by a typo in a path, and replay
    and check name none. A device or a directory is what SAFE-4 refuses unread. No log is
    started for a run that cannot start."""
    missing = tmp_path / "missing.json"
    log = tmp_path / "out.jsonl"
    scenario = str(_scenario(tmp_path))
    for argv, said in [
        ([str(missing)], f"{missing}: cannot read the scenario: no such file or directory"),
        ([os.devnull], f"[SAFE-4] {os.devnull}: the scenario is a character device, not a file"),
        (
            [scenario, "--hooks", str(missing)],
            f"{missing}: cannot read the hooks file: no such file or directory",
        ),
        (
            [scenario, "--hooks", str(tmp_path)],
            f"[SAFE-4] {tmp_path}: the hooks file is a directory, not a file",
        ),
    ]:
        assert main(["run", *argv, "--log", str(log)]) == 2
        captured = capsys.readouterr()
        assert (captured.out, captured.err) == ("", f"loopspec: error: {said}\n")
        assert not log.exists()


def test_SAFE_2_run_log_in_a_folder_that_is_not_there_is_one_line_naming_no_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-2: `run --log` in a folder that does not exist printed Python's
    "[Errno 2] No such file or directory: '...'", and under a file "[SAFE-2] ...: cannot use it
    as the log: Not a directory"; both are the system's refusal, in check's one-line form,
    naming no rule, and the file in the way is left as it was."""
    scenario = str(_scenario(tmp_path))
    in_the_way = tmp_path / "notes.txt"
    in_the_way.write_text("mine\n", encoding="utf-8")
    for log, reason in [
        (tmp_path / "no-such-folder" / "out.jsonl", "create the log: no such file or directory"),
        (in_the_way / "out.jsonl", "use it as the log: not a directory"),
    ]:
        assert main(["run", scenario, "--log", str(log)]) == 2
        captured = capsys.readouterr()
        assert (captured.out, captured.err) == ("", f"loopspec: error: {log}: cannot {reason}\n")
    assert in_the_way.read_text(encoding="utf-8") == "mine\n"


def test_SAFE_4_spec_check_names_SAFE_4_for_a_device_and_no_rule_for_a_file_without_sections(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAFE-4: `spec --check /dev/null` named no rule for what SAFE-4 refuses unread; a file
    without the generated sections was '[SPEC] no <!-- generated:... section', a tag that is no
    rule, and no file named; a --write the system refuses printed "[Errno 13] Permission
    denied: '...'". Now: [SAFE-4] for the device, the file's name and no tag for the others."""
    notes = tmp_path / "notes.md"
    notes.write_text("# notes\n", encoding="utf-8")
    assert main(["spec", "--check", os.devnull]) == 2
    device = f"loopspec: error: [SAFE-4] {os.devnull}: the spec file is a character device"
    assert capsys.readouterr().err.startswith(device)
    assert main(["spec", "--check", str(notes)]) == 2
    section = f"loopspec: error: {notes}: no <!-- generated:transitions --> ... <!-- end"
    assert capsys.readouterr().err.startswith(section)

    spec_copy = tmp_path / "SPEC.md"  # every generated section's markers, nothing else
    spec_copy.write_text(
        "".join(f"<!-- generated:{name} -->\n<!-- end generated:{name} -->\n" for name in SECTIONS),
        encoding="utf-8",
    )

    def refuse(*args: object, dir: str, **kwargs: object) -> int:
        raise PermissionError(13, "Permission denied", dir)

    # As root (CI containers) a read-only folder is writable: the system's refusal is simulated.
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    assert main(["spec", "--write", str(spec_copy)]) == 2
    said = f"loopspec: error: {spec_copy}: cannot write the spec file: permission denied\n"
    assert capsys.readouterr().err == said


def _writing_no_bytecode() -> dict[str, str]:
    """The environment of a process run under a file size limit: one that compiles a module
    (a source newer than its bytecode) writes the bytecode cut at the limit, unchecked, and
    every later process importing that module from the same cache fails (EOFError: marshal
    data too short; `make test`'s cache is shared by every process it starts)."""
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE (POSIX)")
def test_SAFE_4_spec_write_the_disk_stops_taking_leaves_the_file_whole(tmp_path: Path) -> None:
    """SAFE-4: `spec --write` that the system stops part way (a full disk; here a file size
    limit, which fails the write as a full disk does) leaves the file as it was, and no file
    beside it: written in place, the user's SPEC.md was cut to what fit, the rest lost. A file
    already current is not rewritten at all."""
    import resource  # noqa: PLC0415 (POSIX only)

    shipped = (Path(__file__).resolve().parent.parent / "SPEC.md").read_text(encoding="utf-8")
    stale = shipped.replace(
        "<!-- end generated:transitions -->", "stale\n<!-- end generated:transitions -->"
    )
    spec_copy = tmp_path / "SPEC.md"
    spec_copy.write_text(stale, encoding="utf-8")

    def files_of_at_most_1000_bytes() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))

    done = subprocess.run(
        [sys.executable, "-m", "loopspec", "spec", "--write", str(spec_copy)],
        capture_output=True,
        text=True,
        check=False,
        env=_writing_no_bytecode(),
        preexec_fn=files_of_at_most_1000_bytes,
    )
    assert (done.returncode, done.stderr) == (
        2,
        f"loopspec: error: {spec_copy}: cannot write the spec file: file too large\n",
    )
    assert spec_copy.read_text(encoding="utf-8") == stale
    assert list(tmp_path.iterdir()) == [spec_copy]


def test_SAFE_4_run_harness_reads_its_hooks_file_bounded_and_names_a_missing_log_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-4: `run --harness` read its --hooks file whole, unbounded (`--hooks /dev/zero` ate
    memory), printed "[PROTO-1] d: cannot read the hooks file: [Errno 21] Is a directory: 'd'"
    for a directory, and "[Errno 2] ...: '...'" for --log in a missing folder. Now the hooks
    file is read as the bundled loop's is: over 4 MiB or a directory is refused unread under
    SAFE-4, and the log's folder is named without a rule; nothing is created."""
    padded = tmp_path / "hooks.json"
    padded.write_text('{"hooks": {}}' + " " * (4 * 1024 * 1024), encoding="utf-8")
    log = tmp_path / "no-such-folder" / "out.jsonl"
    # The scenario has no `results` or `approvals`: a harness run refuses them.
    run = ["run", str(_scenario(tmp_path)), "--harness", "codex", "--log", str(log)]
    for more, said in [
        (["--hooks", str(tmp_path)], f"[SAFE-4] {tmp_path}: the hooks file is a directory, not"),
        (["--hooks", str(padded)], f"[SAFE-4] {padded}: the hooks file is larger than 4194304"),
        ([], f"{log}: cannot create the log: no such file or directory\n"),
    ]:
        assert main([*run, *more]) == 2
        assert capsys.readouterr().err.startswith(f"loopspec: error: {said}")
    assert not log.parent.exists()


def test_SAFE_4_plugin_refuses_a_device_for_cases_and_a_file_for_the_case_folder(
    tmp_path: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAFE-4: `pytest --loopspec-cases=/dev/null` said "no such file or directory", which is
    not so (replay names SAFE-4 for a device), and `--loopspec-case-dir=notes.json`, a file,
    was collected and replayed as a saved case, where `conform --case-dir` refuses it. Each now
    stops pytest with one line naming the option and the path, worded as the CLI's errors are
    (`loopspec: error: `, which both lacked; SAFE-4 is named for the device alone)."""
    notes = tmp_path / "notes.json"
    notes.write_text("{}", encoding="utf-8")
    for option, said in [
        (f"--loopspec-cases={os.devnull}", f"[SAFE-4] --loopspec-cases {os.devnull}: is a char"),
        ("--loopspec-case-dir=notes.json", "--loopspec-case-dir notes.json: exists and is not a"),
    ]:
        # pytest listing what the plugin would run on the model with `option`.
        target = "--loopspec-impl=loopspec.properties.conformance.target:ModelTarget"
        done = InnerPytest(pytester, monkeypatch).run(tmp_path, tmp_path, "--co", target, option)
        assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
        assert f"ERROR: loopspec: {said}" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_SAFE_4_check_refuses_a_device_named_unread_and_reads_a_named_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-4: `check /dev/null` was read and called an empty log (LOG-5), `check /dev/zero`
    read 16 MiB of zeros, `check /dev/tty` waited for a keyboard: a device is refused unread,
    as run and replay refuse one, naming SAFE-4. A FIFO is still read (`check <(zstdcat
    x.zst)`), as standard input is."""
    assert main(["check", os.devnull]) == 2
    out = capsys.readouterr().out
    assert out.startswith(f"{os.devnull}: error unreadable SAFE-4: a character device, not a log")
    valid = Path(__file__).resolve().parent / "fixtures" / "logs" / "valid" / "crash-tail.jsonl"
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    writer = subprocess.Popen(["cp", str(valid), str(pipe)])
    try:
        assert main(["check", str(pipe)]) == 0, capsys.readouterr().out
    finally:
        writer.wait(timeout=30)
    assert "checked 1 log" in capsys.readouterr().out


def test_SAFE_4_a_scenario_hooks_spec_or_case_file_that_is_no_JSON_text_is_named_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-4: a scenario that was not UTF-8 read "the scenario is not JSON: 'utf-8'
    codec can't decode byte 0xff in position 0: invalid start byte", a hooks file that was not
    JSON "$: not JSON (line 2, column 1: ...)", a spec file "not UTF-8 text: 'utf-8' codec...";
    a case file names the line: 'case.json:2: the case file is not UTF-8 text: byte 0xff at
    column 3; save it as UTF-8'. Each now says it so, in the same words, and names no rule: no
    rule of SPEC.md states a user's file's JSON text (a scenario and a case file said
    [PROTO-1], the driver protocol's rule, as if a target had written them; a hooks file
    [HOOK-1], the hook audit's)."""
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(b'{\n  "\xff": 1}\n')
    broken = tmp_path / "hooks.json"
    broken.write_text('{"hooks":\n', encoding="utf-8")
    bad_byte = "is not UTF-8 text: byte 0xff at column 4; save it as UTF-8"
    log = tmp_path / "out.jsonl"
    for argv, said in [
        (["run", str(latin1)], f"{latin1}:2: the scenario {bad_byte}"),
        (
            ["run", str(_scenario(tmp_path)), "--hooks", str(broken), "--log", str(log)],
            f"{broken}:2: the hooks file is not JSON: the text ends before the hooks file does: "
            "was it cut short?: column 1",
        ),
        (["spec", "--check", str(latin1)], f"{latin1}:2: the spec file {bad_byte}"),
        (["replay", str(latin1)], f"{latin1}:2: the case file {bad_byte}"),
    ]:
        assert main(argv) == 2
        assert capsys.readouterr().err == f"loopspec: error: {said}\n"
    assert not log.exists()


def test_SAFE_4_an_empty_scenario_or_hooks_file_is_said_to_be_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-4: an empty scenario or hooks file (a redirect that failed, a save that wrote
    nothing) read "empty.json:1: the scenario is not JSON: Expecting value: column 1", the
    parser's words, where `replay` says of an empty case file that it is empty. Each now says
    so, and names no rule."""
    empty = tmp_path / "empty.json"
    empty.write_text(" \n", encoding="utf-8")
    log = tmp_path / "out.jsonl"
    for argv, said in [
        (["run", str(empty)], f"{empty}: the scenario is empty"),
        (
            ["run", str(_scenario(tmp_path)), "--hooks", str(empty), "--log", str(log)],
            f"{empty}: the hooks file is empty",
        ),
    ]:
        assert main(argv) == 2
        assert capsys.readouterr().err == f"loopspec: error: {said}\n"
    assert not log.exists()


def test_LOG_3_a_key_given_twice_in_a_scenario_or_hooks_file_is_named_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LOG-3's reading of a key given twice, in a user's file: a scenario or hooks file whose
    object held a key twice was read keeping the last silently (a second "hooks" pasted below
    the first dropped every hook above it); like a case file and a log line, it is refused at
    the line of the repeat, naming its JSON path, and naming no rule (the file's JSON text)."""
    scenario = _scenario(tmp_path)
    twice = tmp_path / "twice.json"
    text = scenario.read_text(encoding="utf-8")
    twice.write_text(text.replace('{"', '{"turns": [],\n"', 1), encoding="utf-8")
    hooks = tmp_path / "hooks.json"
    hooks.write_text('{"hooks": {},\n "hooks": {}}\n', encoding="utf-8")
    log = tmp_path / "out.jsonl"
    ignored = "is given twice in its object; a JSON reader keeps only the last, so the first"
    for argv, said in [
        (["run", str(twice)], f"{twice}:2: $.turns {ignored}"),
        (
            ["run", str(scenario), "--hooks", str(hooks), "--log", str(log)],
            f"{hooks}:2: $.hooks {ignored}",
        ),
    ]:
        assert main(argv) == 2
        assert capsys.readouterr().err.startswith(f"loopspec: error: {said}")
    assert not log.exists()
    with pytest.raises(HookSettingsError, match=r":2: \$\.hooks is given twice"):
        load_settings(hooks)


def test_a_transcript_given_as_a_scenario_or_hooks_file_is_named_for_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Claude Code transcript (JSON Lines) named as `run`'s scenario or hooks file read
    "t.jsonl:2: the scenario is not JSON: Extra data: column 1", which sends its reader to line
    2 of a file with nothing wrong at line 2; the error now says what the file is, and which
    verb checks it, as `replay` does for a case file."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        '{"type":"user","sessionId":"s1","message":{"role":"user","content":"hi"}}\n'
        '{"type":"assistant","sessionId":"s1","message":{"id":"m","content":[]}}\n',
        encoding="utf-8",
    )
    log = tmp_path / "out.jsonl"
    jsonl = "one JSON value per line (JSON Lines, a session log or transcript?)"
    checked = "a session log is checked with `loopspec check`"
    for argv, said in [
        (["run", str(transcript)], f"{transcript}: {jsonl}, not a scenario; {checked}"),
        (
            ["run", str(_scenario(tmp_path)), "--hooks", str(transcript), "--log", str(log)],
            f"{transcript}: {jsonl}, not a hooks file; {checked}",
        ),
    ]:
        assert main(argv) == 2
        assert capsys.readouterr().err == f"loopspec: error: {said}\n"
    assert not log.exists()
    # A JSON document with a stray brace after it is still named at its line.
    stray = tmp_path / "stray.json"
    stray.write_text('{"turns": []}\n}\n', encoding="utf-8")
    assert main(["run", str(stray)]) == 2
    said = capsys.readouterr().err
    assert said.startswith(
        f"loopspec: error: {stray}:2: the scenario is not JSON: more follows the end of the "
        "scenario's JSON: delete it"
    )


def test_SAFE_4_json_past_its_bounds_names_SAFE_4_in_a_scenario_hooks_or_case_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-4: JSON nested deeper than 200 levels, or holding a lone surrogate, is refused by
    SAFE-4 (as `check` names it for a log line), but a scenario said "[PROTO-1] ...: the
    scenario is not JSON: JSON nested deeper than 200 levels", a hooks file "[HOOK-1] ...: $:
    not usable JSON: ...", a case file "[PROTO-1] ...". It is JSON, refused past a bound."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 300 + "]" * 300, encoding="utf-8")
    surrogate = tmp_path / "surrogate.json"
    # On line 2, after a character written as two escapes, and a backslash before "ud800".
    surrogate.write_text('{"b": "\\ud83d\\ude00\\\\ud800",\n "a": "\\ud800"}', encoding="utf-8")
    log = tmp_path / "out.jsonl"
    scenario = str(_scenario(tmp_path))
    nested = "JSON nested deeper than 200 levels"
    for argv, said in [
        # At the bracket that goes too deep, as every other fault in a hand-edited file.
        (["run", str(deep)], f"{deep}:1: the scenario is refused: {nested}: column 201"),
        (["run", scenario, "--hooks", str(deep)], f"{deep}:1: the hooks file is refused: {nested}"),
        (["replay", str(deep)], f"{deep}:1: the case file is refused: {nested}: column 201"),
        # At its escape, as the bracket (it named no line).
        (["run", str(surrogate)], f"{surrogate}:2: the scenario is refused: JSON holds a lone"),
        (["replay", str(surrogate)], f"{surrogate}:2: the case file is refused: JSON holds a"),
    ]:
        assert main([*argv, *(["--log", str(log)] if argv[0] == "run" else [])]) == 2
        assert capsys.readouterr().err.startswith(f"loopspec: error: [SAFE-4] {said}")
    assert not log.exists()


def test_SAFE_4_a_hooks_file_holding_NaN_is_worded_alike_by_either_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-4: a hooks file holding NaN is "not JSON" in the words `run --harness` uses and the
    scenario uses; `run --hooks` said "$: not usable JSON: NaN is not JSON" of the same file,
    each reader of a user's JSON file having its own copy of the wording. Neither names a rule:
    the same file was [HOOK-1] to one run and [PROTO-1] to the other."""
    hooks = tmp_path / "hooks.json"
    hooks.write_text('{"hooks": NaN}', encoding="utf-8")
    said = f"{hooks}: the hooks file is not JSON: NaN is not JSON"
    with pytest.raises(HookSettingsError) as bundled:
        load_settings(hooks)
    with pytest.raises(HarnessError) as harness:
        load_hooks(hooks)
    assert (str(bundled.value), str(harness.value)) == (said, said)
    scenario = tmp_path / "nan.json"
    scenario.write_text('{"turns": NaN}', encoding="utf-8")
    assert main(["run", str(scenario), "--log", str(tmp_path / "out.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err == f"loopspec: error: {scenario}: the scenario is not JSON: NaN is not JSON\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_SAFE_4_output_the_system_will_not_take_is_one_line_in_its_own_words(
    tmp_path: Path,
) -> None:
    """SAFE-4: stdout on a full disk (/dev/full) ends the run with exit 2 and one line in the
    system's words, lower case and without Python's "[Errno 28]", as every verb words what the
    system refused since e327b3d (this last way out still printed the errno)."""
    with open("/dev/full", "w", encoding="utf-8") as full:
        done = subprocess.run(
            [sys.executable, "-m", "loopspec", "schema"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            check=False,
        )
    assert (done.returncode, done.stderr) == (2, "loopspec: error: no space left on device\n")


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE (POSIX)")
def test_SAFE_4_a_log_the_disk_stops_taking_mid_run_is_named_and_keeps_what_was_committed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-4: a run whose log stops being written part way (a full disk; here a file size
    limit, which fails the write as a full disk does) ends in one line naming the log, exit 2;
    it said only "loopspec: error: no space left on device", not which file. The commits
    written before stay a log check passes, the cut one a torn-commit notice."""
    import resource  # noqa: PLC0415 (POSIX only)

    call = {"type": "tool-call", "id": "c1", "name": "bash", "arguments": '{"command": "ls"}'}
    replies = [
        {"blocks": [call], "finish": "completed"},
        {"blocks": [{"type": "text", "text": "done " * 200}], "finish": "completed"},
    ]
    scenario = tmp_path / "scenario.json"
    scenario.write_text(
        json.dumps(
            {**SCENARIO, "cwd": str(tmp_path), "turns": [{"user": "hi", "replies": replies}]}
        ),
        encoding="utf-8",
    )
    log = tmp_path / "out.jsonl"

    def files_of_at_most_1500_bytes() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1500, 1500))

    done = subprocess.run(
        [sys.executable, "-m", "loopspec", "run", str(scenario), "--log", str(log)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        env=_writing_no_bytecode(),
        preexec_fn=files_of_at_most_1500_bytes,
    )
    assert (done.returncode, done.stderr) == (
        2,
        f"loopspec: error: {log}: cannot write the log: file too large\n",
    )
    assert log.stat().st_size == 1500
    assert main(["check", str(log)]) == 0
    assert "torn-commit LOG-8" in capsys.readouterr().out


def _run_with_files_of_at_most(limit: int, scenario: Path, log: Path) -> tuple[int, str]:
    """`loopspec run SCENARIO --log LOG` under a file size limit of `limit` bytes (writes past
    it fail as on a full disk): its exit code and standard error."""
    import resource  # noqa: PLC0415 (POSIX only)

    def limit_file_sizes() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run(
        [sys.executable, "-m", "loopspec", "run", str(scenario), "--log", str(log)],
        capture_output=True,
        text=True,
        cwd=scenario.parent,
        check=False,
        env=_writing_no_bytecode(),
        preexec_fn=limit_file_sizes,
    )
    return done.returncode, done.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE (POSIX)")
@pytest.mark.parametrize("header_bytes_that_fit", [0, 40])
def test_SAFE_4_a_new_log_whose_header_the_disk_refuses_is_not_left_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], header_bytes_that_fit: int
) -> None:
    """SAFE-4: a run that creates its log and cannot write the header whole (a full disk; here
    a file size limit) removes the file it made and says the log was not created; it left an
    empty or half-header file that `check` called LOG-5 and that looked like a session."""
    log = tmp_path / "out.jsonl"
    done = _run_with_files_of_at_most(header_bytes_that_fit, _scenario(tmp_path), log)
    assert done == (2, f"loopspec: error: {log}: cannot create the log: file too large\n")
    assert not os.path.lexists(log)
    assert main(["run", str(_scenario(tmp_path)), "--log", str(log)]) == 0
    capsys.readouterr()
    assert main(["check", str(log)]) == 0


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE (POSIX)")
@pytest.mark.parametrize("existing", ["a log with commits", "an empty file"])
def test_SAFE_4_a_log_that_existed_is_kept_byte_for_byte_when_the_disk_refuses_the_append(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], existing: str
) -> None:
    """SAFE-4: removing a log whose header did not land is for a file the run itself created:
    a file that was there before (a log with commits, or an empty file whose header the run
    would write) that the disk refuses to grow is kept as it was."""
    log = tmp_path / "out.jsonl"
    if existing == "an empty file":
        log.write_bytes(b"")
    else:
        assert main(["run", str(_scenario(tmp_path)), "--log", str(log)]) == 0
        capsys.readouterr()
    before = log.read_bytes()
    done = _run_with_files_of_at_most(len(before), _scenario(tmp_path), log)
    assert done == (2, f"loopspec: error: {log}: cannot write the log: file too large\n")
    assert log.read_bytes() == before


def test_PROTO_1_a_scenario_names_PROTO_1_for_a_reply_s_shape_and_no_rule_for_its_own_members(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a scenario's replies and outcomes are the driver protocol's JSON, so a reply of
    the wrong shape names PROTO-1; the scenario's own members are stated by no rule, so a fault
    there names none (every fault said [PROTO-1], as if a target had spoken the protocol
    wrongly). `run --harness` refusing an existing --log names none either (it said PROTO-1)."""
    log = tmp_path / "out.jsonl"
    cases = [
        (
            {"turns": [{"user": "x", "replies": [{"blocks": [], "finish": "sideways"}]}]},
            "[PROTO-1] {path}:1: $.turns[0].replies[0].finish must be cancelled, completed or "
            'max-tokens, not "sideways"',
        ),
        ({"turns": []}, "{path}:1: $.turns must list at least one turn"),
        # A hooks file or a case beside the scenarios, given in its place.
        (
            {"hooks": {"PreToolUse": []}},
            "{path}:1: $ holds `hooks` and no `turns`: a hooks settings file, not a scenario; "
            "give it with --hooks",
        ),
        (
            {"loopspec": "case", "version": 1},
            "{path}: this is a conform case file, not a scenario: rerun it with `loopspec replay",
        ),
        (
            {**SCENARIO, "tools": [SCENARIO["tools"][0]] * 2},
            '{path}:1: $.tools[1].name: tool "bash" is declared twice',
        ),
        # It said "unknown approval outcome 'yes'": not where, nor which outcomes there are.
        (
            {**SCENARIO, "approvals": {"c1": "yes"}},
            '{path}:1: $.approvals.c1 is "yes", no approval outcome; the outcomes are '
            "allowed-once, cancelled, rejected, unavailable",
        ),
        (
            {**SCENARIO, "defaultApproval": "no"},
            '{path}:1: $.defaultApproval is "no", no approval outcome; the outcomes are ',
        ),
    ]
    for index, (document, said) in enumerate(cases):
        path = tmp_path / f"scenario-{index}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        assert main(["run", str(path), "--log", str(log)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"loopspec: error: {said.format(path=path)}"), err
    assert not log.exists()
    log.write_text("", encoding="utf-8")
    assert main(["run", str(_scenario(tmp_path)), "--harness", "codex", "--log", str(log)]) == 2
    assert capsys.readouterr().err.startswith(f"loopspec: error: {log}: exists; a harness run")


@pytest.mark.parametrize("cmd", ["", "  "])
def test_an_empty_cmd_says_what_to_give_and_its_usual_cause(
    cmd: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`conform --cmd "$LOOP"` with LOOP unset said only "--cmd is empty": neither what the
    option takes nor why it came empty."""
    assert main(["conform", "--cmd", cmd]) == 2
    assert capsys.readouterr().err == (
        "loopspec: error: --cmd is empty: give it the loop to test (--cmd 'node loop.mjs'); a "
        'variable left unset gives an empty one (--cmd "$LOOP")\n'
    )


@pytest.mark.parametrize("verb", ["conform", "replay"])
@pytest.mark.parametrize("impl", ["", "  "])
def test_an_empty_impl_is_refused_not_read_as_the_bundled_implementation(
    verb: str, impl: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--impl "$IMPL"` with IMPL unset ran conform on the bundled implementation and passed
    (exit 0), and replayed a case found on the user's loop there: a green CI step that tested
    nothing of the loop."""
    case = tmp_path / "case.json"
    case.write_text(
        json.dumps(
            {
                "loopspec": "case",
                "version": 1,
                "target": {"impl": "my_loop:make_target"},
                "config": {
                    "tools": [{"name": "read", "concurrencySafe": True, "requiredKeys": []}],
                    "hooks": [],
                    "maxParallel": 1,
                    "provider": "scripted",
                    "model": "scripted-model",
                    "epochMs": 1700000000000,
                },
                "commands": [{"kind": "SubmitUser", "text": "hi"}],
            }
        ),
        encoding="utf-8",
    )
    arguments = [verb, "--impl", impl] + ([str(case)] if verb == "replay" else [])
    assert main(arguments) == 2
    assert capsys.readouterr().err.endswith(
        "--impl is empty: give it the loop to test (--impl MODULE:FACTORY); a variable left "
        'unset gives an empty one (--impl "$LOOP")\n'
    )
