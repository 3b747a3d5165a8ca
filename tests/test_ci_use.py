"""loopspec as a step of a user's CI: exit statuses a script can tell apart, and output a CI log
can follow (docs/conform.md, "loopspec in CI")."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jsonschema
import pytest
from inner_pytest import untraced

from loopspec.properties.cli.main import INTERNAL_ERROR_STATUS, VERBS, main
from loopspec.properties.conformance import driver_protocol
from loopspec.properties.conformance import run as conformance_run
from loopspec.properties.conformance.impl_target import bundled_target


def test_a_bug_in_loopspec_exits_3_with_its_traceback_not_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception no verb expected is loopspec's bug: Python's own status for it, 1, is what a
    CI step reads as "the checked loop broke a rule". It ends with 3, its traceback and a line
    saying whose bug it is."""

    def broken_schema() -> dict[str, object]:
        raise ZeroDivisionError("a bug planted by the test")

    monkeypatch.setattr(driver_protocol, "protocol_schema", broken_schema)
    status = main(["schema"])
    err = capsys.readouterr().err
    assert status == INTERNAL_ERROR_STATUS == 3
    assert "Traceback" in err
    assert "ZeroDivisionError: a bug planted by the test" in err
    assert (
        err.rstrip()
        .splitlines()[-1]
        .startswith("loopspec: internal error: the traceback above is a bug in loopspec")
    )


@pytest.mark.parametrize("verb", [None, *(verb.name for verb in VERBS)])
def test_every_help_names_the_status_of_a_bug_in_loopspec(
    verb: str | None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`loopspec --help` and each verb's say what 3 means, beside 0, 1 and 2."""
    monkeypatch.setenv("COLUMNS", "200")  # one line per paragraph
    with pytest.raises(SystemExit):
        main(["--help"] if verb is None else [verb, "--help"])
    status_paragraph = capsys.readouterr().out.split("exit status: ", 1)[1]
    assert "3 loopspec itself failed" in " ".join(status_paragraph.split())


class _TerminalStream(io.StringIO):
    """A stderr that says it is a terminal (a CI runner's pseudo-terminal)."""

    def isatty(self) -> bool:
        return True


@pytest.mark.no_cover
def test_a_run_whose_stderr_is_a_log_prints_whole_progress_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """stderr not a terminal (a CI log): the progress line was never printed there, and a long
    run stayed silent until its report, which CI systems end as a hung job. Now a whole line
    every `PROGRESS_LINE_SECONDS` (0 here: one per program), never a carriage return."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(conformance_run, "PROGRESS_LINE_SECONDS", 0.0)
    report = conformance_run.run_conformance(bundled_target, examples=3, seed_value=1, steps=4)
    assert report.conformant
    err = capsys.readouterr().err
    assert "\r" not in err
    lines = err.splitlines()
    assert any(re.fullmatch(r"  \d+/3 programs.*, \d+ s", line) for line in lines), lines
    # The others are the sweeps' (below), and those told of a program's commands while it
    # runs: whole lines too.
    assert all(
        re.fullmatch(
            r"  (\d+/3 programs.*|[^:]+: \d+), \d+ s(; the one running at its command \d+)?", line
        )
        for line in lines
    ), lines


@pytest.mark.no_cover
def test_one_long_program_still_prints_progress_lines_while_it_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program running longer than `PROGRESS_LINE_SECONDS` (a real CLI's, a slow `--cmd`
    loop's) printed no line until the next program began: a single command awaited for
    minutes left a CI log silent, and CI systems end silent jobs. Now a line comes while the
    program runs, saying where it is and how long its answer has been awaited."""
    from hanging_target import serve_model  # noqa: PLC0415

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(conformance_run, "PROGRESS_LINE_SECONDS", 0.5)
    hanging = Path(__file__).resolve().parent / "hanging_target.py"
    with tempfile.TemporaryDirectory() as folder:
        model = str(Path(folder) / "model")
        slow = [sys.executable, "-S", str(hanging), "--model", model]
        factory = conformance_run.SharedProcess([*slow, "--first-command-after", "2"], timeout=10)
        with serve_model(model):
            try:
                report = conformance_run.run_conformance(
                    factory, examples=1, seed_value=1, steps=2, deadline=time.monotonic() + 6
                )
            finally:
                factory.close()
    assert report.conformant
    lines = capsys.readouterr().err.splitlines()
    said = re.compile(r"; the one running at its command 1, waiting (\d+) s for the target's")
    waited = [int(found.group(1)) for line in lines if (found := said.search(line))]
    assert waited, lines
    assert waited == sorted(waited)


@pytest.mark.no_cover
@pytest.mark.parametrize(("name", "value"), [("CI", "true"), ("TERM", "dumb")])
def test_no_carriage_return_on_a_ci_or_dumb_terminal(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI runner's pseudo-terminal (`CI=true`) or `TERM=dumb` gets whole lines, not a line
    redrawn by carriage returns (a log of hundreds of them on one line); a real terminal keeps
    the redrawn one."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr(conformance_run, "PROGRESS_LINE_SECONDS", 0.0)
    terminal = _TerminalStream()
    monkeypatch.setattr(sys, "stderr", terminal)
    conformance_run.run_conformance(bundled_target, examples=2, seed_value=1, steps=4)
    assert "\r" in terminal.getvalue(), "the plain terminal lost its redrawn line"
    monkeypatch.setenv(name, value)
    terminal = _TerminalStream()
    monkeypatch.setattr(sys, "stderr", terminal)
    conformance_run.run_conformance(bundled_target, examples=2, seed_value=1, steps=4)
    assert "\r" not in terminal.getvalue()
    assert terminal.getvalue().splitlines()


ROOT = Path(__file__).resolve().parent.parent
WORKFLOW_STEPS = re.compile(r"```yaml\n(.*?)```", re.DOTALL)


def _workflow_commands() -> list[str]:
    """The shell of each `run:` step of docs/conform.md's GitHub Actions workflow, in order,
    but for the one installing loopspec (the test runs this checkout's)."""
    (workflow,) = WORKFLOW_STEPS.findall((ROOT / "docs" / "conform.md").read_text("utf-8"))
    commands: list[str] = []
    lines = workflow.splitlines()
    for number, line in enumerate(lines):
        found = re.match(r"\s*(?:- )?run: (.*)", line)
        if found is None:
            continue
        if found.group(1) != "|":
            commands.append(found.group(1))
            continue
        body_indent = " " * (line.index("run:") + 2)
        block: list[str] = []
        for body in lines[number + 1 :]:
            if not body.startswith(body_indent):
                break
            block.append(body.removeprefix(body_indent))
        commands.append("\n".join(block))
    return [command for command in commands if not command.startswith("pip install")]


def _run_job(project: Path) -> list[int]:
    """Run the workflow's steps in `project` as GitHub Actions' bash does (`-eo pipefail`),
    each its own shell, up to the first that fails; their statuses."""
    shims = project.parent / "bin"
    shims.mkdir(exist_ok=True)
    shim = shims / "loopspec"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m loopspec "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    environment = {
        **os.environ,
        "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "GITHUB_RUN_NUMBER": "7",
        "CI": "true",
    }
    statuses: list[int] = []
    for command in _workflow_commands():
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command],
            cwd=project,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )
        statuses.append(done.returncode)
        if done.returncode != 0:
            break
    return statuses


def _project(folder: Path, *, bug: bool) -> Path:
    """A user's project: the tutorial's loop as `my_loop:make_target` (with `bug`, one that
    delivers queued contexts last first, ADJ-4) and a session log in `logs/`."""
    project = folder / "project"
    (project / "logs").mkdir(parents=True)
    loop = (ROOT / "examples" / "tutorial-loop" / "tutorial_loop.py").read_text("utf-8")
    if bug:
        fifo = "        for text in self.inbox:"
        assert fifo in loop
        loop = loop.replace(fifo, "        for text in reversed(self.inbox):")
    (project / "my_loop.py").write_text(loop + "\nmake_target = TutorialLoop\n", "utf-8")
    shutil.copy(
        ROOT / "tests" / "fixtures" / "logs" / "valid" / "model-demo.jsonl", project / "logs"
    )
    return project


def test_the_documented_workflow_passes_a_conformant_loop_and_leaves_no_files(
    tmp_path: Path,
) -> None:
    """docs/conform.md's workflow, step by step: a first run on a conformant loop (no saved
    cases yet) passes every step, and writes only its reports."""
    project = _project(tmp_path, bug=False)
    assert len(_workflow_commands()) == 3
    assert _run_job(project) == [0, 0, 0]
    assert json.loads((project / "conform.json").read_text("utf-8"))["conformant"] is True
    assert json.loads((project / "check.json").read_text("utf-8"))["summary"]["exit_code"] == 0
    assert sorted(p.name for p in project.iterdir()) == [
        "check.json",
        "conform.json",
        "logs",
        "my_loop.py",
    ]


def test_the_documented_workflow_uploads_the_case_and_a_rerun_replays_it_first(
    tmp_path: Path,
) -> None:
    """The loop with a bug: the search step fails with 1, its JSON names the rule and the case
    it saved where the artifact step picks it up; committed, the case fails the next job at the
    replay step, before any search, whose JSON names it."""
    project = _project(tmp_path, bug=True)
    assert _run_job(project) == [0, 1]
    divergence = json.loads((project / "conform.json").read_text("utf-8"))["divergence"]
    assert divergence["rule"] == "ADJ-4"
    assert divergence["case"] == "loopspec-cases/case-ADJ-4-0.json"
    assert (project / divergence["case"]).is_file()
    assert _run_job(project) == [1]
    # The replay step's one document for the folder, which the artifact step uploads.
    replayed = json.loads((project / "replay.json").read_text("utf-8"))
    assert replayed["format"] == "loopspec-replay-cases/1"
    assert [(case["case"], case["outcome"]) for case in replayed["cases"]] == [
        ("loopspec-cases/case-ADJ-4-0.json", "diverging")
    ]
    assert replayed["cases"][0]["replay"]["divergence"]["rule"] == "ADJ-4"


def _printed_schema(which: str, capsys: pytest.CaptureFixture[str]) -> jsonschema.Validator:
    """A validator of what `loopspec schema WHICH` prints, as a CI step would load it."""
    assert main(["schema", which]) == 0
    schema = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _loopspec_json(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *arguments: str,
) -> tuple[int, object]:
    """Run `loopspec ARGUMENTS` in `project` (a module there named by --impl), in this process
    (a process of its own cost half a second of CPU to start): its status and the JSON document
    it wrote. The path entry --impl adds and the project's modules are forgotten after, as they
    were with the process."""
    with monkeypatch.context() as patch:
        patch.chdir(project)
        patch.setattr(sys, "path", list(sys.path))
        loaded = set(sys.modules)
        try:
            with untraced():
                status = main(list(arguments))
        finally:
            for name in set(sys.modules) - loaded:
                if str(getattr(sys.modules[name], "__file__", "")).startswith(str(project)):
                    del sys.modules[name]
    return status, json.loads(capsys.readouterr().out)


@pytest.mark.no_cover
def test_conform_and_replay_json_validate_against_the_schema_loopspec_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`loopspec schema conform` and `loopspec schema replay` print the JSON Schema of what
    `--format json` writes (there was none: a CI step had only a docstring to check against),
    and every shape a run writes validates: a pass, a counterexample, a run under a profile, a
    replay that diverges and one that passes. The schema admits no key it does not define."""
    conform_schema = _printed_schema("conform", capsys)
    replay_schema = _printed_schema("replay", capsys)
    project = _project(tmp_path, bug=True)
    status, found = _loopspec_json(
        project, capsys, monkeypatch, "conform", "--impl", "my_loop:make_target", "--format", "json"
    )
    assert status == 1
    status, passed = _loopspec_json(
        project,
        capsys,
        monkeypatch,
        "conform",
        "--format",
        "json",
        "--examples",
        "5",
        "--profile",
        "dsh",
    )
    assert status == 0
    for document in (found, passed):
        assert list(conform_schema.iter_errors(document)) == []
    assert isinstance(found, dict)
    case = found["divergence"]["case"]
    for target, expected_status in (("my_loop:make_target", 1), ("tutorial_like:make_target", 0)):
        if target.startswith("tutorial_like"):
            loop = (ROOT / "examples" / "tutorial-loop" / "tutorial_loop.py").read_text("utf-8")
            (project / "tutorial_like.py").write_text(
                loop + "\nmake_target = TutorialLoop\n", "utf-8"
            )
        status, replayed = _loopspec_json(
            project, capsys, monkeypatch, "replay", case, "--impl", target, "--format", "json"
        )
        assert status == expected_status
        assert list(replay_schema.iter_errors(replayed)) == []
    assert isinstance(found, dict)
    found["divergence"]["surprise"] = 1
    assert list(conform_schema.iter_errors(found)), "a key the schema does not define passed"


@pytest.mark.no_cover
def test_conform_exhaustive_json_validates_against_the_conform_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`conform --exhaustive K --format json` writes a `loopspec-conform-exhaustive/1` when the
    exhaustive pass diverges: `loopspec schema conform` admits it too, and only as that."""
    conform_schema = _printed_schema("conform", capsys)
    impl = "plugin_targets:turn_end_with_step_open"
    argv = ["conform", "--impl", impl, "--exhaustive", "3", "--case-dir", str(tmp_path)]
    assert main([*argv, "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "loopspec-conform-exhaustive/1"
    assert list(conform_schema.iter_errors(document)) == []
    document["conformant"] = True
    assert list(conform_schema.iter_errors(document)), "an exhaustive pass is never conformant"


@pytest.mark.no_cover
def test_the_sweeps_before_and_after_the_search_show_progress_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SPEC.md section 12's examples, played before the search on a target that presents, and
    the targeted programs after it printed no progress: on a slow loop, minutes without a line
    in a CI log. Each program of both now counts as one of the search does."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(conformance_run, "PROGRESS_LINE_SECONDS", 0.0)
    report = conformance_run.run_conformance(bundled_target, examples=1, seed_value=1, steps=4)
    assert report.presentation_examples > 1
    assert report.situation_examples > 1
    lines = capsys.readouterr().err.splitlines()
    for sweep, played in (
        ("SPEC.md section 12's presentation examples played", report.presentation_examples),
        ("targeted programs of rare situations played", report.situation_examples),
    ):
        # (Each program's commands have lines of their own too, ending with where it is.)
        counts = [
            int(m[1]) for line in lines if (m := re.fullmatch(rf"  {sweep}: (\d+), \d+ s", line))
        ]
        assert counts == list(range(1, played + 1)), (sweep, lines)


def test_loopspec_help_names_every_exit_status_the_ci_table_lists(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/conform.md's table of exit statuses says `loopspec --help` says them too: the help
    left out SIGHUP's 129 and SIGQUIT's 131, which a CI log shows for a lost runner."""
    page = (ROOT / "docs" / "conform.md").read_text(encoding="utf-8")
    table = page.split("### Exit statuses", 1)[1].split("\n\n")[2]
    listed = {
        status for row in table.splitlines()[2:] for status in re.findall(r"\d+", row.split("|")[1])
    }
    assert {"0", "1", "2", "3", "129", "130", "131", "141", "143"} <= listed
    monkeypatch.setenv("COLUMNS", "200")  # one line per paragraph
    with pytest.raises(SystemExit):
        main(["--help"])
    said = capsys.readouterr().out.split("exit status: ", 1)[1]
    assert {status for status in listed if not re.search(rf"\b{status} ", said)} == set()
