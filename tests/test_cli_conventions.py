"""The command line behaves like a conventional Unix tool.

`--version`; every verb's `--help` says what it does and what its exit codes mean; `--help`
imports no verb's machinery; a closed output pipe ends the program quietly with 141.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import gc
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import loopspec
from loopspec import _console
from loopspec.model.events import HOOK_DIALECTS
from loopspec.properties import cli
from loopspec.properties.cli import check as cli_check
from loopspec.properties.cli import conform as conform_cli
from loopspec.properties.cli import parser as cli_parser
from loopspec.properties.cli import run as run_cli
from loopspec.properties.cli.main import VERBS, build_parser, main, stopped_by
from loopspec.properties.cli.prompt_ending import raise_dropped_ctrl_c_again
from loopspec.properties.profiles import PROFILES

ROOT = Path(__file__).resolve().parent.parent
LOOPSPEC = [sys.executable, "-m", "loopspec"]


@pytest.mark.parametrize("arguments", [["--version"], ["--version", "check"]])
def test_version_prints_the_distribution_version(
    arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`loopspec --version` prints `loopspec X.Y.Z` and exits 0, whether `main` answers it alone
    or argparse reads it among other arguments."""
    with pytest.raises(SystemExit) as done:
        main(arguments)
    assert done.value.code == 0
    assert capsys.readouterr().out == f"loopspec {loopspec.__version__}\n"


def test_a_console_script_written_before_the_program_s_start_moved_still_starts_it() -> None:
    """An editable install keeps the `loopspec` script it wrote until it is reinstalled: one
    written before the program's first step moved into the `cli` package (pyproject's entry
    point) imports `loopspec._console.program`, which must still be the program."""
    assert _console.program is cli.program


@pytest.mark.parametrize("verb", [verb.name for verb in VERBS])
def test_every_verb_help_says_what_it_does_and_its_exit_codes(
    verb: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each verb's own help has a description and an `exit status:` paragraph, fits an
    80-column terminal, and sends no one to a page the installed package does not hold (the
    wheel ships SPEC.md, not docs/ nor README: `conform --help`'s --seed said "see
    docs/conform.md")."""
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps to the terminal it finds
    with pytest.raises(SystemExit) as done:
        main([verb, "--help"])
    assert done.value.code == 0
    shown = capsys.readouterr().out
    assert f"usage: loopspec {verb}" in shown
    assert "exit status: 0 " in shown
    # The statuses of a signal, which `loopspec --help` alone said.
    assert "; 130 Ctrl-C, 143 SIGTERM" in " ".join(shown.split())
    too_wide = [line for line in shown.splitlines() if len(line) > 80]
    assert too_wide == [], "help text wider than a terminal"
    joined = " ".join(shown.split())
    assert "docs/" not in joined
    assert "README" not in joined


@pytest.mark.parametrize("verb", [verb.name for verb in VERBS])
def test_every_verb_help_states_its_exit_status_once(
    verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A verb's help has one exit-status paragraph: check's had two, its description's (which
    still listed a torn last line under exit 2, a notice since the crash tail is dropped on
    reopening) and the verb table's shorter one, and a reader could not tell which held."""
    with pytest.raises(SystemExit):
        main([verb, "--help"])
    shown = capsys.readouterr().out
    assert len(re.findall(r"(?im)^exit status:", shown)) == 1


@pytest.mark.parametrize("verb", [verb.name for verb in VERBS])
def test_every_verb_help_says_a_usage_error_exits_2_as_it_does(
    verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """An option the verb does not take exits 2, and the verb's exit-status paragraph says so
    under 2 (schema's said only `0 printed`, and replay's, run's and spec's named only the
    files they read), as README's "exit codes everywhere" does."""
    with pytest.raises(SystemExit) as stop:
        main([verb, "--no-such-option"])
    assert stop.value.code == 2
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main([verb, "--help"])
    status = " ".join(capsys.readouterr().out.split("exit status: ", 1)[1].split())
    two = status[status.index("2 ") :]
    assert "usage error" in two, status


def test_check_help_says_a_crashs_torn_last_line_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """check's exit status names a crash's torn last line where it is, among what passes (a
    notice, LOG-8), and check exits 0 on such a log, as the help says."""
    from check_fixtures import crashed_logs  # noqa: PLC0415 (only this test needs it)

    monkeypatch.setenv("COLUMNS", "1000")
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    status = capsys.readouterr().out.split("exit status: ", 1)[1]
    passes, rest = status.split("; 1 ", 1)
    assert "torn last line" in passes
    assert "torn last line" not in rest
    ((name, text),) = crashed_logs().items()
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert main(["check", str(tmp_path / name)]) == 0


@pytest.mark.parametrize("verb", [verb.name for verb in VERBS])
def test_every_verb_help_keeps_each_module_path_whole_in_a_narrow_terminal(
    verb: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The module paths a verb's help names (`python -m pydoc loopspec....`) come out whole in
    a 40-column terminal, where argparse split them mid-word ("loopspec.prope" / "rties...")
    and they could not be copied."""

    def module_paths(columns: int) -> list[str]:
        monkeypatch.setenv("COLUMNS", str(columns))
        with pytest.raises(SystemExit):
            main([verb, "--help"])
        words = capsys.readouterr().out.split()
        return [word.strip("();,.'`") for word in words if word.startswith("loopspec.")]

    assert module_paths(40) == module_paths(1000)


def test_every_verb_module_registers_the_verbs_the_table_names() -> None:
    """The verb table and the modules agree (loading all of them)."""
    parser = build_parser("*")
    action = next(a for a in parser._actions if a.dest == "command")
    assert set(action.choices or ()) == {verb.name for verb in VERBS}


def test_a_verbs_one_line_help_is_the_verb_tables_alone() -> None:
    """Each verb's line under `loopspec --help` is its VERBS summary, and a verb module's
    parser says the same: each module passed a help of its own, which `loopspec --help` never
    shows (it imports no verb module), so c26cd03 edited spec's and the top level kept the old
    words (f3cc100), and run's and replay's said other things than the help a user reads."""
    parser = build_parser("*")
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in action._choices_actions}
    assert helps == {verb.name: verb.summary for verb in VERBS}


def heavy_modules_after(argv: list[str], heavy: tuple[str, ...]) -> list[str]:
    """The modules starting with one of `heavy` that a fresh interpreter holds after
    `loopspec ARGV` (help, so it exits), the verb table's and the parser's own modules aside."""
    probe = (
        "import sys, contextlib, io\n"
        "from loopspec.properties.cli.main import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({argv!r})\n"
        f"print([m for m in sys.modules if m.startswith({heavy!r})"
        " and m not in ('loopspec.properties.cli.main', 'loopspec.properties.cli.parser')])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    loaded: list[str] = ast.literal_eval(out.strip())
    return loaded


def test_help_imports_no_verb_module() -> None:
    """`loopspec --help` stays at interpreter speed: no verb's module (nor Hypothesis) loads."""
    heavy = ("hypothesis", "loopspec.model", "loopspec.properties.cli.", "attrs", "cattrs")
    assert heavy_modules_after(["--help"], (*heavy, "loopspec.properties.conformance")) == []


@pytest.mark.parametrize("verb", ["conform", "replay"])
def test_conform_and_replay_help_load_no_search_machinery(verb: str) -> None:
    """`loopspec conform --help` answers without loading Hypothesis, the model or the
    conformance machinery (they took a second to import before a word of help was shown)."""
    heavy = ("hypothesis", "loopspec.model", "loopspec.properties.conformance", "attrs", "cattrs")
    assert heavy_modules_after([verb, "--help"], (*heavy, "loopspec.properties.profiles")) == []


@pytest.mark.parametrize("verb", ["demo", "run", "schema"])
def test_demo_run_and_schema_help_load_neither_the_model_nor_the_loop(verb: str) -> None:
    """`loopspec run --help` imported the model, the bundled loop and the hook bridge (881M
    instructions, 22x `python -c pass`), `demo --help` the conformance machinery too, `schema
    --help` the driver protocol's classes: their help needs only their options."""
    heavy = ("hypothesis", "loopspec.model", "loopspec.impl", "loopspec.properties.conformance")
    more = ("attrs", "cattrs", "loopspec.properties.profiles", "loopspec.properties.harnesses")
    assert heavy_modules_after([verb, "--help"], (*heavy, *more)) == []


def test_the_dialect_choices_run_offers_are_the_hook_dialects() -> None:
    """`run --dialect`'s choices are named in the verb's parser (so `--help` loads no model);
    they are exactly the dialects the model reads."""
    assert tuple(sorted(HOOK_DIALECTS)) == run_cli.DIALECT_NAMES


def test_the_profile_choices_conform_offers_are_the_profiles() -> None:
    """`--profile`'s choices are named in the verb's parser (so `--help` loads no profile); they
    are exactly the profiles there are."""
    assert tuple(sorted(PROFILES)) == conform_cli.PROFILE_NAMES


def test_the_acp_models_load_with_the_first_validation_not_with_conform_or_replay() -> None:
    """The ACP models (pydantic) take over a second to import: `conform --help`, `replay`'s
    parser and everything up to the first strictly validated payload go without them."""
    script = (
        "import sys\n"
        "from loopspec.properties.cli.main import build_parser\n"
        "import loopspec.properties.cli.conform\n"
        "build_parser('conform'); build_parser('replay')\n"
        "import loopspec.properties.conformance.compare\n"
        "before = sorted(m for m in sys.modules if m.split('.')[0] in ('acp', 'pydantic'))\n"
        "from loopspec.properties.validators.acp_strict import validate_session_update\n"
        "validate_session_update({})\n"
        "print(before, 'acp.schema' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["[]", "True"]


def test_a_closed_pipe_ends_quietly() -> None:
    """`loopspec check LOGS | head -1`: no "Broken pipe", no traceback, status 141."""
    logs = ROOT / "tests" / "fixtures" / "logs"
    # Ten copies of the fixture logs print far more than a pipe buffer holds.
    command = f"{' '.join(LOOPSPEC)} check -v {' '.join([str(logs)] * 10)} | head -c 10 >/dev/null"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, check=False
    )
    assert done.stderr == ""
    assert done.returncode == 141


@pytest.mark.parametrize(
    "argv", [["conform", "--examples", "1"], ["schema"], ["spec", "--check", "SPEC.md"]]
)
def test_a_ctrl_c_while_a_verb_loads_is_one_line_and_exit_130(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the verb's modules load or its options are read (the first tenth of a
    second of `loopspec conform`, where a quick Ctrl-C lands) ends with the line a Ctrl-C during
    the verb prints, status 130: it printed a KeyboardInterrupt traceback from parser.py."""

    def interrupted(*args: object) -> argparse.Namespace:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_parser, "parse", interrupted)
    assert main(argv) == 130
    shown = capsys.readouterr()
    said = stopped_by("Ctrl-C", started_processes=argv[0] == "conform")
    assert (shown.out, shown.err) == ("", f"loopspec: {said}\n")


@pytest.mark.parametrize("argv", [["check", "x.jsonl"], ["check", "--format", "json", "x.jsonl"]])
def test_a_ctrl_c_during_check_says_nothing_of_processes(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C during a long check ends with one line and 130 that speaks of its report alone:
    it said "every process the run started is ended" of a verb that starts none."""

    def interrupted(*args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_check, "run", interrupted)
    assert main(argv) == 130
    assert capsys.readouterr().err == "loopspec: stopped by Ctrl-C: its report not written\n"


def test_a_ctrl_c_s_line_is_the_last_thing_said(
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    recwarn: pytest.WarningsRecorder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a stop's one line nothing more is said: the bundled loop's event loop, cut by
    Ctrl-C mid-command, left a task pending and a coroutine never awaited, which Python said in
    five lines more as the program ended (a RuntimeWarning, asyncio's "Task was destroyed but
    it is pending!")."""
    monkeypatch.setattr(logging.getLogger("asyncio"), "disabled", False)  # put back after

    def interrupted(*args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_check, "run", interrupted)
    assert main(["check", "x.jsonl"]) == 130

    async def waits() -> None:
        await asyncio.sleep(3600)

    # What a cut run leaves: a task pending on a closed event loop, a coroutine never awaited.
    loop = asyncio.new_event_loop()
    pending = loop.create_task(waits())
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()
    unawaited = waits()
    del pending, unawaited
    gc.collect(0)
    assert capsys.readouterr().err == "loopspec: stopped by Ctrl-C: its report not written\n"
    assert [record.getMessage() for record in caplog.records] == []
    assert [str(warning.message) for warning in recwarn] == []


def test_a_ctrl_c_a_gc_callback_dropped_is_raised_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C whose KeyboardInterrupt lands in a garbage collector's callback (Hypothesis
    registers one) is dropped there by the interpreter: conform printed "Exception ignored in
    ... gc_callback" and went on to CONFORMANT, exit 0 (2 Ctrl-Cs of 16 on the bundled loop).
    The verbs that start processes raise it again in the main thread, as the Ctrl-C it was."""
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # put back after the test
    raise_dropped_ctrl_c_again()
    interrupted: list[str] = []

    def interrupted_once(phase: str, _info: dict[str, int]) -> None:
        if not interrupted:
            interrupted.append(phase)
            raise KeyboardInterrupt

    def collected_then_running() -> None:
        gc.collect(0)  # the youngest generation: the callback runs all the same
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # Python code, where the main thread checks
            pass

    gc.callbacks.append(interrupted_once)
    try:
        with pytest.raises(KeyboardInterrupt):
            collected_then_running()
    finally:
        gc.callbacks.remove(interrupted_once)
    assert interrupted == ["start"]


_REGRESSION_CASE = sorted((ROOT / "tests" / "regressions").glob("*.json"))[0]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        ["check", "--help"],
        ["conform", "--help"],
        ["spec", "HOOK-1"],
        ["check", str(ROOT / "tests" / "fixtures" / "logs" / "valid")],
        ["replay", str(_REGRESSION_CASE), "--bundled"],
    ],
    ids=["help", "version", "verb help", "conform help", "spec", "check", "replay"],
)
def test_SAFE_4_output_that_cannot_be_written_is_one_line_and_exit_2(
    tmp_path: Path, argv: list[str], buffered: bool
) -> None:
    """SAFE-4: stdout on a full disk (/dev/full) ends every verb that prints, help and --version
    included, with one line on stderr and exit 2. `--help` exited 0 having written nothing
    (argparse drops the OSError; with a buffered stdout, 120 and Python's two lines), `--version`
    printed a traceback, and `check` and `spec` a traceback after their own error line (the
    last flush failed again)."""
    environment = dict(os.environ)
    if buffered:
        environment.pop("PYTHONUNBUFFERED", None)
    else:
        environment["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "w", encoding="utf-8") as full:
        done = subprocess.run(
            [*LOOPSPEC, *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=environment,
            check=False,
            timeout=120,
        )
    assert (done.returncode, done.stderr) == (2, "loopspec: error: no space left on device\n")


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        ["check", "--help"],
        ["spec", "HOOK-1"],
        ["check", str(ROOT / "tests" / "fixtures" / "logs" / "valid")],
    ],
    ids=["help", "version", "verb help", "spec", "check"],
)
def test_SAFE_4_a_closed_stdout_is_one_line_and_exit_2(argv: list[str]) -> None:
    """SAFE-4: started with stdout closed (`loopspec --version >&-`), Python gives the program
    no stdout at all (None), and every verb ended in a traceback ('NoneType' object has no
    attribute 'flush', or 'write'): now one line, as a closed stdin is said, and exit 2."""
    done = subprocess.run(
        ["bash", "-c", 'exec "$@" >&-', "bash", *LOOPSPEC, *argv],
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (2, "loopspec: error: standard output is closed\n")


@pytest.mark.parametrize("argv", [["conform", "--examples", "1"], ["demo", "--examples", "1"]])
def test_a_verb_whose_folder_was_deleted_says_so(tmp_path: Path, argv: list[str]) -> None:
    """Started in a folder deleted since the shell entered it (a checkout's temporary folder),
    a verb that needs it says which is missing: it said only 'loopspec: error: no such file or
    directory', naming nothing."""
    gone = tmp_path / "gone"
    gone.mkdir()
    done = subprocess.run(
        ["bash", "-c", 'cd "$0" && rmdir "$0" && exec "$@"', str(gone), *LOOPSPEC, *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        timeout=300,
    )
    said = "the current folder was deleted (no such file or directory): cd to one that exists"
    assert (done.returncode, done.stderr) == (2, f"loopspec: error: {said}\n")


@pytest.mark.parametrize("verb", ["conform", "demo"])
def test_a_closed_stderr_changes_no_verdict(verb: str) -> None:
    """Started with stderr closed (`2>&-`, a cron job), conform and demo end with the verdict
    they print: Python gives the program no stderr (None), and the progress line asking it
    whether it was a terminal ended the run in an AttributeError no one saw, exit 1 with
    nothing printed, a counterexample's case not saved."""
    done = subprocess.run(
        ["bash", "-c", 'exec "$@" 2>&-', "bash", *LOOPSPEC, verb, "--examples", "1"],
        stdout=subprocess.PIPE,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0
    assert "CONFORMANT" in done.stdout


@pytest.mark.parametrize("verb", ["conform", "demo"])
def test_searching_verbs_leave_the_folder_they_run_in_as_it_was(tmp_path: Path, verb: str) -> None:
    """`loopspec conform` and `loopspec demo` write nothing into the user's folder (Hypothesis's
    cache goes to a temporary directory unless HYPOTHESIS_STORAGE_DIRECTORY says where)."""
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    done = subprocess.run(
        [*LOOPSPEC, verb, "--examples", "2"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(tmp_path.iterdir()) == []


def _rule_section(rule: str) -> str:
    """RW-1's section as SPEC.md states it, from its heading to the next heading."""
    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    start = spec.index(f"### {rule} ")
    return spec[start : spec.index("\n#", start)].strip()


def test_spec_prints_the_rules_a_report_names(capsys: pytest.CaptureFixture[str]) -> None:
    """`loopspec spec rw-1` prints RW-1 as SPEC.md states it (failure reports name rules by
    ID); a family prints each of its rules, in SPEC order."""
    assert main(["spec", "rw-1"]) == 0
    assert capsys.readouterr().out == _rule_section("RW-1") + "\n"
    assert main(["spec", "DEC", "HOOK-3"]) == 0
    shown = capsys.readouterr().out
    expected = ["### DEC-1 ", "### DEC-2 ", "### DEC-3 ", "### HOOK-3 "]
    assert [line[: len(h)] for line in shown.splitlines() for h in expected
            if line.startswith(h)] == expected  # fmt: skip
    assert _rule_section("DEC-2") in shown


def test_spec_list_is_an_index_of_every_rule_by_id_and_title(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`loopspec spec --list` prints one line per rule SPEC.md states, its ID and title, in
    SPEC order; with rules or families, those only. A newcomer had no index: bare `spec` prints
    the generated tables, and the families showed only in the error for a mistyped rule."""
    headings = re.findall(r"^### ([A-Z]+-\d+) (.+)$", (ROOT / "SPEC.md").read_text("utf-8"), re.M)
    assert main(["spec", "--list"]) == 0
    # A rule `--example` shows broken in a log is marked (tests/test_spec_example.py).
    listed = [
        line.removesuffix("  [example]").split(None, 1)
        for line in capsys.readouterr().out.splitlines()
    ]
    assert listed == [[rule, title] for rule, title in headings]
    assert main(["spec", "--list", "rw", "HOOK-3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["RW-1", "RW-2", "RW-3", "RW-4", "HOOK-3"]
    assert lines[0].endswith(" the three readers and the tool agree  [example]")
    # The index is found where a newcomer looks first: the verbs `loopspec --help` lists.
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "loopspec spec --list" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        (["spec", "RW-99"], "SPEC.md states no rule 'RW-99'; RW's rules: RW-1, RW-2, RW-3, RW-4"),
        (["spec", "RX-1"], "SPEC.md states no rule 'RX-1'; rule families: LOG, TURN"),
        (["spec", "RW-1", "--check", "SPEC.md"], "--write and --check take no rule"),
    ],
)
def test_spec_refuses_a_rule_it_does_not_state(
    argv: list[str], complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped rule, or a rule with --check/--write: exit 2, one line, nothing printed. A
    number past its family's rules names that family's (it listed every family)."""
    assert main(argv) == 2
    shown = capsys.readouterr()
    assert shown.out == ""
    assert complaint in shown.err
    assert len(shown.err.splitlines()) == 1


@pytest.mark.parametrize("verb", [verb.name for verb in VERBS])
def test_an_unknown_option_is_refused_with_the_verbs_own_usage(
    verb: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`loopspec conform --bogus`: exit 2 with `loopspec conform`'s usage, not the top level's
    `usage: loopspec [-h] [--version] VERB ...`, which does not say what the verb takes; the
    error itself is said as every other is (`loopspec: error:`, where argparse's read
    `loopspec conform: error:`)."""
    # argparse wraps usage to $COLUMNS: a narrow one puts the options on a line of their own.
    monkeypatch.setenv("COLUMNS", "80")
    argv = [verb, "x"] if verb in ("check", "replay", "run") else [verb]
    with pytest.raises(SystemExit) as done:
        main([*argv, "--bogus"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: loopspec {verb} "), err
    assert err.endswith("loopspec: error: unrecognized arguments: --bogus\n")


def test_schema_names_its_argument_as_its_usage_does(capsys: pytest.CaptureFixture[str]) -> None:
    """`loopspec schema drver` said "argument which", the variable's name in the code."""
    with pytest.raises(SystemExit):
        main(["schema", "drver"])
    err = capsys.readouterr().err
    assert "usage: loopspec schema [-h] [DOCUMENT]\n" in err
    assert "loopspec: error: argument DOCUMENT: invalid choice: 'drver'" in err


def test_spec_log_given_a_file_says_it_writes_to_standard_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`spec RW-1 --example --log rw-1.jsonl` read the file as an argument spec does not take,
    and said no more: --log writes to standard output, and the error now shows how."""
    with pytest.raises(SystemExit) as done:
        main(["spec", "RW-1", "--example", "--log", "rw-1.jsonl"])
    assert done.value.code == 2
    assert capsys.readouterr().err.endswith(
        "loopspec: error: unrecognized arguments: rw-1.jsonl (--log takes no file: it writes "
        "the log to standard output, loopspec spec RULE --example --log > rw-1.jsonl)\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "-", "-"],
        ["spec", "NOPE"],
        ["conform", "--answer-timeout", "1"],
        ["replay", "--reduce", "a.json", "b.json"],
    ],
)
def test_a_verbs_own_errors_read_as_its_usage_errors_do(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A verb's errors found past argparse were said `loopspec replay: error:` in some places
    and `loopspec: error:` in others, for the same verb: one form, whoever finds the error."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("loopspec: error: "), err


@pytest.mark.no_cover
@pytest.mark.parametrize("activated", [False, True])
def test_demo_ends_naming_loopspec_as_the_user_can_type_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    activated: bool,
) -> None:
    """`make demo` starts .venv/bin/loopspec, on no PATH until the venv is activated: the demo's
    last line said "more: loopspec conform --help", which a newcomer typed and met "command not
    found". It names the script by its path then, and plain `loopspec` where PATH finds it."""
    bin_folder = tmp_path / ".venv" / "bin"
    bin_folder.mkdir(parents=True)
    script = bin_folder / "loopspec"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(bin_folder) if activated else str(tmp_path))
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(tmp_path / "hypothesis"))
    monkeypatch.setattr(sys, "argv", [".venv/bin/loopspec", "demo", "--examples", "1"])
    assert main(["demo", "--examples", "1"]) == 0
    name = "loopspec" if activated else ".venv/bin/loopspec"
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == f"  more: {name} conform --help, {name} check --help, {name} schema"
