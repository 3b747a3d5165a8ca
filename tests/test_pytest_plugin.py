"""`pytest --loopspec-impl=MODULE:FACTORY` runs the conformance suite (rule PROTO-1)."""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import plugin_targets
import pytest
from inner_pytest import USER_CONFTEST, InnerPytest
from node_requirements import Need

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.properties import pytest_plugin
from loopspec.properties.cli.conform_run import counts_line, nothing_checked
from loopspec.properties.conformance import suite
from loopspec.properties.conformance.process_target import ProcessTargetError
from loopspec.properties.conformance.run import RunReport, SharedProcess, run_conformance
from loopspec.properties.conformance.target import ConformanceTarget, Observation

# The plugin's pytest runs are in this process (InnerPytest), but for the one needing a
# virtualenv of its own.
pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent


def _environment(*pythonpath: Path) -> dict[str, str]:
    """This run's environment for a pytest these tests start, which read its text: uncoloured
    where a CI job asks for colour (PY_COLORS=1 or FORCE_COLOR, which pytest honours even on a
    pipe, put escape codes amid the words). The checkout these tests are in comes after
    `pythonpath`: the pytest started imports its loopspec (a worktree's), not the one installed
    in the environment."""
    imports = os.pathsep.join(map(str, (*pythonpath, TESTS.parent)))
    return {**os.environ, "PYTHONPATH": imports, "PY_COLORS": "0"}


@pytest.fixture
def inner_pytest(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> InnerPytest:
    """pytest with the plugin, run in this process (tests/inner_pytest.py)."""
    return InnerPytest(pytester, monkeypatch)


def _usage_error(
    inner_pytest: InnerPytest, target: str, option: str = "--loopspec-impl", *more: str
) -> tuple[str, str]:
    """The stdout and stderr of a pytest the plugin stops before it collects anything (exit 4),
    in `inner_pytest.pytester.path` (the rootdir and current folder), with one example."""
    done = inner_pytest(inner_pytest.pytester.path, target, option, 1, *more)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    return done.stdout, done.stderr


def test_PROTO_1_plugin_passes_a_conformant_target_saying_what_the_pass_is_worth(
    tmp_path: Path,
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: the model as a target passes the suite the plugin adds, and the pass prints
    conform's verdict, counts and rule tally, which `pytest -rP` shows (before, a pass said
    nothing of the programs run or of the rules no program reached)."""
    target = "loopspec.properties.conformance.target:ModelTarget"
    done = inner_pytest(tmp_path, target, "--loopspec-impl", 25, "-rP")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    # The model presents: section 12's examples are played first, then the programs.
    said = re.search(r"loopspec conform: model: CONFORMANT\n  (\d+) of SPEC\.md section 12's "
                     r"presentation examples, then 25 programs", done.stdout)  # fmt: skip
    assert said is not None, done.stdout
    assert int(said[1]) > 0
    assert "\n  rules: exercised " in done.stdout, done.stdout


def test_PROTO_1_plugin_shows_the_suites_progress_past_pytests_capture(
    tmp_path: Path, inner_pytest: InnerPytest
) -> None:
    """PROTO-1: pytest captured the progress line conform prints on stderr, so a long random
    suite printed nothing until its verdict (unless run with `-s`), and CI systems end a silent
    job. Its whole lines now go to pytest's terminal, as `loopspec conform`'s go to a CI log
    (here every program's: the conftest sets the 30 s between two lines to 0)."""
    every_time = (
        "\nfrom loopspec.properties.conformance import run\nrun.PROGRESS_LINE_SECONDS = 0.0\n"
    )
    target = "loopspec.properties.conformance.target:ModelTarget"
    done = inner_pytest(
        tmp_path, target, "--loopspec-impl", 3, "-q", ci=True, conftest_end=every_time
    )
    assert done.returncode == 0, done.stdout + done.stderr
    programs = re.findall(r"^  (\d)/3 programs, \d+ s", done.stdout, re.MULTILINE)
    assert set(programs) == {"0", "1", "2", "3"}, done.stdout
    assert "\r" not in done.stdout


@pytest.mark.parametrize(
    ("budget", "status", "says"),
    [
        pytest.param(
            "3.5",
            0,
            # Each look at the clock a second later: programs start at 1, 2 and 3 s.
            r"  the --loopspec-max-seconds 3\.5 budget ended the search after 3 programs\n",
            id="ended the search",
        ),
        pytest.param(
            "0",
            1,
            r"loopspec: error: the --loopspec-max-seconds 0 budget ended before the first "
            r"program: nothing was checked\n",
            id="before the first program",
        ),
    ],
)
def test_PROTO_1_plugin_s_time_budget_ends_the_search_saying_what_it_checked(
    inner_pytest: InnerPytest, monkeypatch: pytest.MonkeyPatch, budget: str, status: int, says: str
) -> None:
    """PROTO-1: `--loopspec-max-seconds S` ends the random suite's search after S seconds, as
    `conform --max-seconds` does: a pass says the budget ended it after how many programs, and
    a budget ended before the first program fails, nothing checked (conform's exit 2). The
    plugin's budget was a count alone, and a CI job's timeout ended pytest with no report."""
    ticks = itertools.count()
    monkeypatch.setattr(suite, "clock", lambda: float(next(ticks)))
    target = "plugin_targets:declares_nothing"
    more = ["-rP", "-k", "not saved_case", f"--loopspec-max-seconds={budget}"]
    done = inner_pytest(inner_pytest.pytester.path, target, "--loopspec-impl", 1000, *more)
    assert done.returncode == status, done.stdout + done.stderr
    assert re.search(says, done.stdout), done.stdout


@pytest.mark.parametrize(
    ("max_seconds", "played", "says"),
    [
        (None, 0, "the search ended before the first program: nothing was checked"),
        (
            0.5,
            3,
            "the --loopspec-max-seconds 0.5 budget ended before the first program: only 3 of "
            "SPEC.md section 12's presentation examples were played (none diverged), no random "
            "program: give the search longer",
        ),
    ],
    ids=["no budget", "a budget"],
)
def test_PROTO_1_plugin_says_why_a_suite_running_no_program_has_no_verdict(
    max_seconds: float | None, played: int, says: str
) -> None:
    """PROTO-1: the suite's words for a search that ran no program are conform's, from one
    helper naming the option as given; without a budget they formatted None (a TypeError)."""
    report = RunReport("t", frozenset(), 0, 0, 0.0, None, (), None, {}, {},
                       presentation_examples=played)  # fmt: skip
    assert nothing_checked(report, max_seconds, suite.MAX_SECONDS) == says


def test_PROTO_1_plugin_fails_a_mutant_and_names_the_rule(
    tmp_path: Path, inner_pytest: InnerPytest
) -> None:
    """PROTO-1, TURN-2: a mutant target fails the suite with what `loopspec conform` prints —
    the rule, its SPEC text, the diff, the saved case and the replay command — and none of
    Hypothesis's draw lines."""
    done = inner_pytest(tmp_path, "plugin_targets:turn_end_with_step_open", ci=False)
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "rule TURN-2: the target's own log breaks TURN-2" in out
    assert "### TURN-2 " in out  # the SPEC text
    assert "--- model" in out
    assert "+++ target" in out
    assert '{"kind": "SubmitUser"' in out
    cases = list((tmp_path / "loopspec-cases").glob("case-TURN-2-*.json"))
    assert len(cases) == 1
    rerun = "pytest loopspec-cases/case-TURN-2-0.json --loopspec-impl=plugin_targets:"
    assert f"replay it alone: {rerun}turn_end_with_step_open\n" in out
    assert "saved case: loopspec-cases/case-TURN-2-0.json (every run replays it first from " in out
    # Run again, the suite finds the same program: it is the saved case, not a new one (it
    # said "saved case: ... from now on", of a case its own test had just replayed), even
    # where new cases go to another folder (a CI job's): the case committed is the one named,
    # where a copy of it was saved in the other folder on every run.
    again = inner_pytest(
        tmp_path,
        "plugin_targets:turn_end_with_step_open",
        "--loopspec-impl",
        25,
        "-q",
        "--loopspec-case-dir=elsewhere",
    )
    assert len(list((tmp_path / "loopspec-cases").glob("case-TURN-2-*.json"))) == 1
    assert not (tmp_path / "elsewhere").exists()
    assert "saved case:" not in again.stdout, again.stdout
    assert (
        "the case an earlier run saved: loopspec-cases/case-TURN-2-0.json (every run replays "
        "it first)\n"
    ) in again.stdout
    # The rule on the failure's first line: what pytest's short summary and JUnit show.
    verdict = "COUNTEREXAMPLE (loopspec spec TURN-2)"
    assert f"_\nTURN-2: loopspec conform: mutant:turn-end-with-step-open: {verdict}\n" in out, out
    assert "Draw 1" not in out
    assert "state.configure" not in out


# -vvv after _pytest's -q: verbosity 2, where pytest prints whole messages in its summary too.
@pytest.mark.parametrize(
    ("ci", "verbosity"), [(True, "-q"), (False, "-vvv")], ids=["CI-set", "CI-unset-vv"]
)
def test_PROTO_1_plugin_shows_a_reports_first_line_alone_in_the_summary_and_junit(
    tmp_path: Path, inner_pytest: InnerPytest, ci: bool, verbosity: str
) -> None:
    """PROTO-1: a failing saved case and a counterexample each show their report's first line,
    the rule's, alone in pytest's short summary and in a JUnit report's `message`, and the whole
    report in the failure section and JUnit's element text. Where `CI` was set (GitHub Actions),
    or with -vv, pytest printed each whole report a second time in the summary, and JUnit's
    message held the whole report everywhere. An error's first line is shown without its
    `loopspec: error: `, which at 80 columns left the summary no room for the rule (a target
    that broke: `... - loopspec: error...`)."""
    _write_case(tmp_path / "loopspec-cases" / "case-TURN-2-0.json", "TURN-2", _ASKS, _ANSWERS)
    _write_case(tmp_path / "loopspec-cases" / "cut.json", "TURN-2", _ANSWERS)  # no turn first
    junit = tmp_path / "junit.xml"
    target = "plugin_targets:turn_end_with_step_open"
    more = [verbosity, "-rf", f"--junitxml={junit}", "-o", "junit_family=xunit1"]
    done = inner_pytest(tmp_path, target, "--loopspec-impl", 25, *more, ci=ci)
    assert done.returncode == 1, done.stdout + done.stderr
    firsts = {
        "loopspec-cases/case-TURN-2-0.json::replay": (
            "TURN-2: loopspec replay: loopspec-cases/case-TURN-2-0.json: DIVERGES "
            "(loopspec spec TURN-2)"
        ),
        "loopspec-cases/cut.json::replay": (
            "[MODEL-1] loopspec-cases/cut.json:25: not a valid program at command #1 "
            "(ModelReplies): the model refuses it there (ModelReplies in phase Idle: "
            "ModelReplies is not accepted in phase Idle), so the replay's pass says nothing of "
            "TURN-2, the rule the case recorded: a command both sides refuse tests nothing, as "
            "one a cut left answering nothing (the reply that made its call, or its turn, "
            "deleted); put back what it answers, or take it out too"
        ),
        "loopspec/suite.py::test_target_conforms_to_the_model": (
            "TURN-2: loopspec conform: mutant:turn-end-with-step-open: COUNTEREXAMPLE "
            "(loopspec spec TURN-2)"
        ),
    }
    summary = done.stdout.split(" short test summary info ")[1].splitlines()[1:]
    assert summary[:3] == [f"FAILED {node} - {first}" for node, first in firsts.items()]
    assert [line for line in summary[3:] if "3 failed in " not in line] == [], done.stdout
    assert done.stdout.count("replay it alone: ") == 2, done.stdout  # each report's
    failures = {
        f"{case.get('classname')}.{case.get('name')}": case.find("failure")
        for case in ElementTree.parse(junit).iter("testcase")
    }
    for node, first in firsts.items():
        failure = failures[node.replace(".py::", "::").replace("/", ".").replace("::", ".")]
        assert failure is not None, failures
        assert failure.get("message") == first, failure.get("message")
        if "cut.json" in node:  # the error's whole line, as the CLI prints it
            assert failure.text == f"loopspec: error: {first}", failure.text
        else:
            assert "replay it alone: pytest loopspec-cases/case-TURN-2-" in (failure.text or "")


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.needs(Need.NODE)
def test_PROTO_1_plugin_s_short_summary_shows_the_rule_of_a_long_cmd_s_counterexample(
    tmp_path: Path, inner_pytest: InnerPytest, columns: int
) -> None:
    """PROTO-1: pytest's short summary cuts a failure's first line at the terminal's width,
    after the test's id (61 columns). That line named the rule after pytest's `Failed: ` and
    the `--loopspec-cmd` target, so at 80 to 120 columns any real command left no room for it
    (`... - Failed: loopspec conform: env LOOP_SET...`): the rule comes first now."""
    setting = "LOOP_SETTING=" + "x" * 60
    loop = shlex.join([sys.executable, str(TESTS / "misbehaving_target.py"), "noturnend", "1"])
    done = inner_pytest(
        tmp_path, f"env {setting} {loop}", "--loopspec-cmd", 2, ci=False, columns=columns
    )
    assert done.returncode == 1, done.stdout + done.stderr
    (case,) = (tmp_path / "loopspec-cases").glob("case-*.json")
    rule = json.loads(case.read_text(encoding="utf-8"))["rule"]
    (summary,) = [line for line in done.stdout.splitlines() if line.startswith("FAILED ")]
    node = "loopspec/suite.py::test_target_conforms_to_the_model"
    assert summary.startswith(f"FAILED {node} - {rule}: loop"), summary
    assert len(summary) <= columns


def test_PROTO_1_plugin_s_short_summary_at_80_columns_shows_a_saved_case_s_rule(
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: a saved case's test id is its file's path and `replay`, so pytest's short
    summary at 80 columns has room for the rule its failure names. The id repeated the file's
    name (`case-TURN-2-0.json::test_saved_case_replays[case-TURN-2-0.json]`): with `FAILED `
    it filled 84 columns, and the summary showed no message at all. Replays one case."""
    folder = inner_pytest.pytester.path
    _write_case(folder / "loopspec-cases" / "case-TURN-2-0.json", "TURN-2", _ASKS, _ANSWERS)
    target = "plugin_targets:turn_end_with_step_open"
    done = inner_pytest(
        folder, target, "--loopspec-impl", 1, "-k", "saved_case", ci=False, columns=80
    )
    assert done.returncode == 1, done.stdout + done.stderr
    (summary,) = [line for line in done.stdout.splitlines() if line.startswith("FAILED ")]
    assert summary.startswith("FAILED loopspec-cases/case-TURN-2-0.json::replay - TURN-2: "), (
        summary
    )
    assert len(summary) <= 80, summary


def test_PROTO_1_plugin_offers_a_rerun_that_sees_pytests_own_pythonpath(
    tmp_path: Path, inner_pytest: InnerPytest
) -> None:
    """PROTO-1: a counterexample's report offers the pytest command that replays its saved case
    alone, and that command runs it where the loop is importable only through pytest's
    `pythonpath` setting (a src layout, not installed). The report offered `loopspec replay
    CASE --impl ...`, which could not import such a loop (exit 2, "No module named ...")."""
    settings = '[tool.pytest.ini_options]\npythonpath = ["src"]\n'
    (tmp_path / "pyproject.toml").write_text(settings, encoding="utf-8")
    (tmp_path / "src" / "users_loop").mkdir(parents=True)
    wrapper = "from plugin_targets import turn_end_with_step_open as make_loop\n"
    (tmp_path / "src" / "users_loop" / "__init__.py").write_text(wrapper, encoding="utf-8")
    done = inner_pytest(tmp_path, "users_loop:make_loop")
    assert done.returncode == 1, done.stdout + done.stderr
    (offered,) = [
        line.removeprefix("replay it alone: ")
        for line in done.stdout.splitlines()
        if line.startswith("replay it alone: ")
    ]
    command, *arguments = shlex.split(offered)
    assert command == "pytest", offered
    rerun = inner_pytest.run(tmp_path, tmp_path, *arguments)
    assert rerun.returncode == 1, rerun.stdout + rerun.stderr
    assert "TURN-2: loopspec replay: " in rerun.stdout, rerun.stdout
    assert "1 failed in" in rerun.stdout, rerun.stdout  # the case alone, no random suite


@pytest.mark.parametrize(
    ("given", "says"),
    [
        pytest.param(
            ["--loopspec-case-dir", "notes.txt/cases"],
            "--loopspec-case-dir notes.txt/cases: {root}/notes.txt is not a directory: give it "
            "a folder pytest can write, where the random suite saves a counterexample",
            id="given",
        ),
        pytest.param(
            [],
            "the case folder, {root}/loopspec-cases (loopspec-cases/ in pytest's rootdir, where "
            "the random suite saves a counterexample): a symbolic link to nothing: "
            "--loopspec-case-dir=DIR names one pytest can write (in GitHub Actions, "
            '--loopspec-case-dir="$RUNNER_TEMP/loopspec-cases")',
            id="default",
        ),
    ],
)
def test_PROTO_1_plugin_refuses_a_case_folder_it_cannot_write_before_the_search(
    inner_pytest: InnerPytest, given: list[str], says: str
) -> None:
    """PROTO-1: a case folder that cannot be written (`--loopspec-case-dir` below a file; the
    default one a link to nothing, as a read-only checkout's is unwritable) stops pytest before
    it collects anything, naming the folder and the option that moves it, as `conform
    --case-dir` refuses one before its search. It was found only when the search saved its
    counterexample, minutes later, and no case was kept to replay."""
    root = inner_pytest.pytester.path
    (root / "notes.txt").write_text("mine\n", encoding="utf-8")
    (root / "loopspec-cases").symlink_to(root / "gone")
    target = "plugin_targets:turn_end_with_step_open"
    _, err = _usage_error(inner_pytest, target, "--loopspec-impl", *given)
    assert f"ERROR: loopspec: {says.format(root=root)}\n" in err, err


def test_TURN_2_plugin_reports_a_counterexample_whose_case_folder_went_during_the_run(
    inner_pytest: InnerPytest,
) -> None:
    """TURN-2: a case folder that could be written when pytest started but not when the search
    saved its counterexample (a test before the suite put a file in its place; a disk filled)
    still fails with conform's report, one line saying why no case was saved and that
    --loopspec-case-dir=DIR moves it. The suite failed with a traceback through loopspec's
    frames ending in NotADirectoryError, and the counterexample was lost (h3's Frank)."""
    root = inner_pytest.pytester.path
    (root / "test_first.py").write_text(
        "from pathlib import Path\n\n"
        "def test_first():\n"
        "    Path('loopspec-cases').write_text('mine\\n', encoding='utf-8')\n",
        encoding="utf-8",
    )
    done = inner_pytest(root, "plugin_targets:turn_end_with_step_open", "--loopspec-impl", 25, "-q")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "rule TURN-2: the target's own log breaks TURN-2" in done.stdout, done.stdout
    saved = f"loopspec: error: the case was not saved in {root / 'loopspec-cases'}: "
    moved = "(--loopspec-case-dir=DIR saves it in a folder pytest can write)"
    assert f"{saved}file exists {moved}\n" in done.stdout, done.stdout
    assert "NotADirectoryError" not in done.stdout


def test_SAFE_5_plugin_fails_a_raising_target_with_conforms_line_and_its_case(
    tmp_path: Path,
    inner_pytest: InnerPytest,
) -> None:
    """SAFE-5: a target raising in `apply` fails the suite with the one line `loopspec conform`
    prints — where it raised, the command, the replay of the saved case — not with a traceback
    through loopspec's own frames; below it, once, the target's own frames and the exception
    that caused its own (a loop wrapping a KeyError showed its wrapper alone, at one line)."""
    done = inner_pytest(tmp_path, "plugin_targets:raises_at_the_second_reply")
    assert done.returncode == 1, done.stdout + done.stderr
    (case,) = (tmp_path / "loopspec-cases").glob("case-PROTO-1-*.json")
    line = (
        "loopspec: error: [PROTO-1] the target failed in apply: RuntimeError: the second reply "
        f"(at {TESTS / 'plugin_targets.py'}:"
    )
    assert line in done.stdout, done.stdout
    assert case.name == "case-PROTO-1-0.json"
    rerun = "rerun it: pytest loopspec-cases/case-PROTO-1-0.json --loopspec-impl=plugin_targets:"
    assert f"{rerun}raises_at_the_second_reply\n" in done.stdout, done.stdout
    assert "conformance/run.py" not in done.stdout
    assert "During handling of the above exception" not in done.stdout
    own = f'  File "{TESTS / "plugin_targets.py"}", line '
    frames = re.findall(rf"^{re.escape(own)}\d+, in (\w+)\n    (.+)$", done.stdout, re.MULTILINE)
    assert frames == [
        ("apply", "_fail_at_the_second_reply()"),
        ("_fail_at_the_second_reply", 'raise RuntimeError("the second reply") from missing'),
        ("_fail_at_the_second_reply", "_read_the_reply({})"),
        ("_read_the_reply", 'return reply["second"]'),
    ], done.stdout
    heading = "\nthe target's traceback (its own frames, innermost last):\n"
    assert done.stdout.count(heading) == 1, done.stdout
    assert done.stdout.count("\ncaused by KeyError: 'second'\n") == 1, done.stdout


def test_SAFE_5_plugin_fails_a_program_answered_two_ways_with_it_saved_and_named(
    tmp_path: Path,
    inner_pytest: InnerPytest,
) -> None:
    """SAFE-5: a divergence the loop does not repeat when its program is rerun fails the random
    suite with conform's exit-2 error first (PROTO-1, naming the first run's rule: pytest's
    summary shows it), then conform's report: the program as found, the case saved (saying its
    replay may pass) and the pytest command replaying it. It failed with that error line alone,
    the program lost. On a CI (`CI` set) the saved case's line says where it is and how it
    reaches the next run: it said every run replays it first from now on, of a checkout the
    job throws away."""
    done = inner_pytest(
        tmp_path, "plugin_targets:DivergesOnOddRuns", "--loopspec-impl", 5, "-x", ci=True
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    (case,) = (tmp_path / "loopspec-cases").iterdir()
    saved = json.loads(case.read_text(encoding="utf-8"))
    assert saved["summary"].endswith("so a replay may pass (replay it a few times)")
    failed = out.split("_ test_target_conforms_to_the_model _")[1]
    error = "loopspec: error: [PROTO-1] the target answered a program differently when it ran"
    assert failed.splitlines()[1].startswith(error), failed
    assert f"; the first run found [{saved['rule']}] after command #" in failed.splitlines()[1]
    headline = f"\n\n{saved['rule']}: loopspec conform: model: DIVERGED ONCE, NOT WHEN RERUN ("
    assert headline in failed, failed
    assert "command program as the first run found it (not shrunk" in failed
    said = (
        f"saved case: loopspec-cases/{case.name} (on this CI job's machine: keep "
        "loopspec-cases/ as the job's artifact and commit the case, and every run replays it "
        "first; it may pass there, as its rerun here did, until the loop answers alike)\n"
        f"replay it alone: pytest loopspec-cases/{case.name} "
        "--loopspec-impl=plugin_targets:DivergesOnOddRuns\n"
    )
    assert said in failed, failed
    assert "- [PROTO-1] the t" in out  # the short summary names the rule, at 80 columns


def test_PROTO_1_plugin_draws_the_programs_of_the_hypothesis_seed_given(
    tmp_path: Path, inner_pytest: InnerPytest
) -> None:
    """PROTO-1: `--hypothesis-seed=N` (Hypothesis's own pytest option) makes the random suite
    draw what `loopspec conform --seed N` draws with the same budget; the suite ran the same
    derandomized programs whatever seed was given (h3's Frank, pinning a CI run's seed)."""
    seeded = run_conformance(
        plugin_targets.completion_order_results,
        examples=25,
        steps=50,  # Hypothesis's default stateful_step_count, as the users-ci profile keeps it
        seed_value=3,
        show_progress=False,
    )
    unseeded = run_conformance(
        plugin_targets.completion_order_results,
        examples=25,
        steps=50,
        seed_value=None,
        show_progress=False,
    )
    counts = counts_line(seeded).rsplit(", ", 1)[0]  # without the seconds
    assert counts != counts_line(unseeded).rsplit(", ", 1)[0]  # the seed tells something
    done = inner_pytest(
        tmp_path,
        "plugin_targets:completion_order_results",
        "--loopspec-impl",
        25,
        "--hypothesis-seed=3",
        "-k",
        "not saved_case",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"  {counts}, " in done.stdout


@pytest.mark.parametrize(
    ("target", "says"),
    [
        (
            "plugin_targets",
            "--loopspec-impl must be MODULE:FACTORY, got 'plugin_targets'; plugin_targets "
            "defines: turn_end_with_step_open, RaisesAtTheSecondReply, raises_at_the_second_reply"
            ", declares_nothing, and 2 more (--loopspec-impl "
            "plugin_targets:turn_end_with_step_open, say)",
        ),
        (
            "../proj/my_loop.py:Loop",
            "--loopspec-impl takes a module name, not a file path (../proj/my_loop.py): run "
            "pytest in ../proj with --loopspec-impl my_loop:Loop, or name ../proj in pytest's "
            "`pythonpath` setting (its paths are from the rootdir)",
        ),
    ],
)
def test_PROTO_1_plugin_names_its_own_option_when_the_target_is_misnamed(
    inner_pytest: InnerPytest, target: str, says: str
) -> None:
    """PROTO-1: a misnamed target stops pytest naming the option the user gave, pytest's
    --loopspec-impl (it said '--impl must be MODULE:FACTORY', an option pytest does not have);
    a file path's hint names pytest's `pythonpath` setting, where a pytest user sets the import
    path (it said 'put ../proj on PYTHONPATH', the CLI's hint)."""
    _, stderr = _usage_error(inner_pytest, target)
    # A usage error: no rule is broken, so none is named (it said [PROTO-1]).
    assert f"ERROR: loopspec: {says}\n" in stderr, stderr


def test_PROTO_1_plugin_stops_once_when_the_target_cannot_be_loaded(
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: a target whose module cannot be loaded stops pytest before it collects anything,
    with one line naming the module and where it was looked for. Before, every saved case and
    the random suite failed with that same line (with two cases: three failures, exit 1), and
    the user's own tests ran as if nothing were wrong. A module not there is a name written
    wrongly, or pytest run from another folder, not a loop that broke: the line names no rule
    (it said [PROTO-1], as it does of a module that is there and fails to load)."""
    folder = inner_pytest.pytester.path
    _write_case(folder / "loopspec-cases" / "case-TURN-2-0.json", "TURN-2", _ASKS, _ANSWERS)
    _write_case(folder / "loopspec-cases" / "case-TURN-2-1.json", "TURN-2", _ASKS)
    (folder / "test_mine.py").write_text("def test_mine():\n    pass\n", encoding="utf-8")
    # (A name near none of the modules on the import path: `plugin_target` is offered
    # plugin_targets, this suite's own, which pytest's rootdir puts there.)
    target = "absent_loop:turn_end_with_step_open"
    out, err = _usage_error(inner_pytest, target, "--loopspec-impl", "-q")
    says = (
        "ERROR: loopspec: cannot load absent_loop:turn_end_with_step_open: "
        f"No module named 'absent_loop' (looked in the current directory, {folder}, "
        "then sys.path: run pytest in the folder that holds absent_loop, or name that folder "
        "in pytest's `pythonpath` setting (its paths are from the rootdir))\n"
    )
    assert (out + err).count("cannot load") == 1, out + err
    assert says in err, err
    assert "passed" not in out, out


@pytest.mark.parametrize(
    ("loop", "timeout", "says"),
    [
        (
            "sh -c 'echo usage: loop --port N >&2; exit 1'",
            "10",
            "[PROTO-1] sh -c 'echo usage: loop --port N >&2; exit 1': the process exited at "
            "start-up, "
            "before answering its first message (reset)\nexit code: 1\nstderr (tail): usage: "
            "loop --port N\n",
        ),
        # Alive and silent: each later test waited out the whole answer timeout again.
        (
            "sh -c 'echo listening on 8080 >&2; exec sleep 60'",
            "0.3",
            "[PROTO-1] sh -c 'echo listening on 8080 >&2; exec sleep 60': the process hung at "
            "start-up, before answering its first message: no answer to reset within 0.3 s (to "
            "wait longer: --loopspec-answer-timeout S)",
        ),
    ],
    ids=["exits", "hangs"],
)
def test_PROTO_1_plugin_stops_before_any_case_replays_when_the_cmd_exits_or_hangs_at_start_up(
    inner_pytest: InnerPytest, loop: str, timeout: str, says: str
) -> None:
    """PROTO-1: a --loopspec-cmd process that exits before its first answer (a mistyped
    script, a usage line), or is still silent at that answer's deadline, stops pytest before
    it collects anything, as a program that is not there does: one error says why, and no
    saved case replays or is named (before, every saved case and the random suite failed
    alike, each starting it again)."""
    folder = inner_pytest.pytester.path
    _write_case(folder / "loopspec-cases" / "case-TURN-2-0.json", "TURN-2", _ASKS, _ANSWERS)
    _write_case(folder / "loopspec-cases" / "case-TURN-2-1.json", "TURN-2", _ASKS)
    (folder / "test_mine.py").write_text("def test_mine():\n    pass\n", encoding="utf-8")
    more = ("-p", "no:randomly", f"--loopspec-answer-timeout={timeout}")  # no -x
    out, err = _usage_error(inner_pytest, loop, "--loopspec-cmd", *more)
    assert f"ERROR: loopspec: {says}" in err, err
    assert "case-TURN-2" not in out + err, out + err
    assert err.count("ERROR: ") == 1, err


def test_PROTO_1_plugin_names_the_rootdir_that_holds_a_cmd_script_missing_here(
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: a --loopspec-cmd starts in the folder pytest runs in, not the rootdir: run from
    tests/, `python3 loop.py` (from the rootdir's addopts) failed every loopspec test, each
    saying only that loop.py is not in tests/. It stops pytest, naming the rootdir that holds
    it (a setup error, no rule)."""
    folder = inner_pytest.pytester.path
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (folder / "loop.py").write_text("", encoding="utf-8")
    (folder / "tests").mkdir()
    done = inner_pytest(folder, "python3 loop.py", "--loopspec-cmd", 1, cwd=folder / "tests")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert done.stderr.strip() == (
        "ERROR: loopspec: --loopspec-cmd 'python3 loop.py': loop.py: no such file "
        f"relative to the current directory, {folder / 'tests'}, where the process starts; "
        f"the rootdir, {folder}, holds it: run pytest there"
    ), done.stderr


def test_PROTO_1_a_factory_that_makes_no_target_fails_each_test_in_one_line_as_documented(
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: a factory that loads but returns no ConformanceTarget is found when a test
    calls it: the loopspec test fails with one line naming what it returned (exit 1), not a
    usage error. The README said "a target written wrongly ... stops pytest before it collects
    anything", which a reader took for this case; it now says which stop at start-up and that
    this one fails each test."""
    (inner_pytest.pytester.path / "conftest.py").write_text(
        USER_CONFTEST.format(examples=1), "utf-8"
    )
    (inner_pytest.pytester.path / "made_wrong.py").write_text(
        "def factory():\n    return 42\n", "utf-8"
    )
    folder = inner_pytest.pytester.path
    done = inner_pytest.run(folder, folder, "--loopspec-impl=made_wrong:factory")
    out = done.stdout
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, out
    said = "the factory returned an int, not a ConformanceTarget"
    error = f"loopspec: error: [PROTO-1] the target failed in its factory: TypeError: {said}"
    # The failure is that one line, once; pytest's summary line may quote it again after its
    # "FAILED ... - " (whole where the CI variable is set, cut to the terminal's width elsewhere).
    assert [line for line in out.splitlines() if line.startswith(error)] == [
        f"{error} (it has no name, reset, apply, close)"
    ], out
    assert "Traceback" not in out, out
    readme = " ".join((TESTS.parent / "README.md").read_text(encoding="utf-8").split())
    assert "A factory that loads but makes no `ConformanceTarget`" in readme
    assert "each loopspec test fails with that one line (exit 1)" in readme


@pytest.mark.parametrize("option", ["--loopspec-cmd", "--loopspec-impl"])
def test_PROTO_1_plugin_refuses_an_empty_target_as_conform_does(
    inner_pytest: InnerPytest, option: str
) -> None:
    """PROTO-1: an empty target (`--loopspec-cmd="$LOOP"`, LOOP unset in CI) collected no
    loopspec test, and pytest ended "no tests ran" (exit 5), naming nothing; conform refuses an
    empty --cmd. Now pytest stops before collecting, saying which option is empty (exit 4)."""
    _, stderr = _usage_error(inner_pytest, "", option, "-q")
    assert f"ERROR: loopspec: {option} is empty: give it the loop to test" in stderr, stderr
    assert f'unset gives an empty one ({option} "$LOOP")\n' in stderr, stderr


def test_PROTO_1_plugin_given_a_case_without_a_target_says_to_name_one(
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: `pytest alice-case.json` with no --loopspec-cmd or --loopspec-impl collected
    nothing and ended in pytest's "ERROR: not found" (exit 4): nothing said the file is a case
    and what replays it. The plugin names both, from the file's content, not its name."""
    folder = inner_pytest.pytester.path
    _write_case(folder / "alice-case.txt", "TURN-2", _ASKS)
    (folder / "notes.txt").write_text("not a case", encoding="utf-8")
    done = inner_pytest.run(folder, folder, "notes.txt", "alice-case.txt")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert done.stderr.strip() == (
        "ERROR: loopspec: alice-case.txt is a loopspec case: name the loop to replay it "
        "on, --loopspec-cmd=COMMAND (a driver-protocol process) or --loopspec-impl=MODULE:FACTORY"
    ), done.stderr


def test_PROTO_1_plugin_refuses_two_targets_as_conform_does(inner_pytest: InnerPytest) -> None:
    """PROTO-1: `--loopspec-impl` and `--loopspec-cmd` together name two targets; conform
    refuses `--impl` with `--cmd`, and the plugin silently ran the command, the module never
    loaded (a typo in it unseen). Now pytest stops before collecting, saying so (exit 4)
    in the words of the CLI's errors (`loopspec: error: `, no rule; it lacked that prefix)."""
    target = "plugin_targets:turn_end_with_step_open"
    _, stderr = _usage_error(inner_pytest, target, "--loopspec-impl", "-q", "--loopspec-cmd=true")
    says = "--loopspec-impl and --loopspec-cmd each name the target: give one"
    assert f"ERROR: loopspec: {says}\n" in stderr, stderr


@pytest.mark.needs(Need.NODE)
def test_SAFE_5_plugin_fails_a_target_leaving_without_bye_in_one_line(
    tmp_path: Path, inner_pytest: InnerPytest
) -> None:
    """SAFE-5: a --loopspec-cmd process that conforms and then exits at shutdown without `bye`
    fails the suite with one line saying so (it failed with a traceback through loopspec's
    process target). The process started with pytest replays the saved case and is handed on
    to the suite (the adapter writes a line per start); the suite started a second one, whose
    start-up fell inside --loopspec-max-seconds."""
    _write_case(tmp_path / "loopspec-cases" / "a.json", "TURN-2", _ASKS, _ANSWERS)
    starts = tmp_path / "starts"
    adapter = tmp_path / "counting.sh"
    target = shlex.join([sys.executable, str(TESTS / "misbehaving_target.py"), "nobye", "1000000"])
    adapter.write_text(f"echo started >> {shlex.quote(str(starts))}\nexec {target}\n")
    # Two programs: what fails is the shutdown after them, whatever the run's length. No -x.
    loop = shlex.join(["sh", str(adapter)])
    done = inner_pytest(tmp_path, loop, "--loopspec-cmd", 2, "-p", "no:randomly")
    assert starts.read_text().splitlines() == ["started"]
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 passed" in done.stdout, done.stdout
    said = "loopspec: error: [PROTO-1] after a conforming run: "
    assert said in done.stdout, done.stdout
    assert "instead of answering shutdown" in done.stdout
    assert "process_target.py" not in done.stdout


class _Options:
    """Collects the option names a plugin's `pytest_addoption` adds."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def getgroup(self, *_: object) -> _Options:
        return self

    def addoption(self, *names: str, **_: object) -> None:
        self.names += names


def test_PROTO_1_readme_names_every_plugin_option_and_what_sizes_the_run() -> None:
    """PROTO-1: the README's section for users names every option the plugin adds and how to
    size its run in a project of one's own (it named only --loopspec-impl; the plugin's
    docstring said HYPOTHESIS_PROFILE=thorough runs it long, a profile that exists only in
    loopspec's own tests: outside them the variable was silently ignored)."""
    options = _Options()
    pytest_plugin.pytest_addoption(options)  # type: ignore[arg-type]
    readme = (TESTS.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Using loopspec in your own project")[1].split("\n## ")[0]
    assert options.names, "the plugin adds no option"
    assert [name for name in options.names if name not in section] == []
    assert "--hypothesis-profile" in section
    assert "--hypothesis-profile" in (pytest_plugin.__doc__ or "")


# Hand-written case files (a saved case has this shape: `loopspec schema case`).
_CONFIG = {
    "tools": [{"name": "read", "concurrencySafe": True, "requiredKeys": ["file_path"]}],
    "hooks": [],
    "maxParallel": 1,
    "provider": "scripted",
    "model": "scripted-model",
    "epochMs": 1700000000000,
}
_ASKS = {"kind": "SubmitUser", "text": "hi"}
_ANSWERS = {
    "kind": "ModelReplies",
    "blocks": [{"type": "text", "text": "done"}],
    "finish": "completed",
}


def _write_case(path: Path, rule: str, *commands: dict[str, Any], **members: Any) -> Path:
    document = {
        "loopspec": "case",
        "version": 1,
        "target": {"impl": "somebody_elses_loop:make"},  # never run: SAFE-1
        "rule": rule,
        "config": _CONFIG,
        "commands": list(commands),
        **members,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def test_PROTO_1_SAFE_1_TURN_2_plugin_replays_each_saved_case_first_as_a_test_of_its_own(
    tmp_path: Path,
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1, SAFE-1: before the random suite, the plugin replays every case file of the case
    directory and of each --loopspec-cases folder as one test named after the file, on the
    target the command line names (the case's recorded module does not exist: running it would
    fail to import). A case that still diverges fails with replay's report and none of
    loopspec's frames; one that does not passes; one that cannot be read, or is no valid program
    (a command left answering nothing), fails with replay's one-line error. Before, a saved
    case was replayed only by `loopspec replay`. TURN-2: a case passing whose program no longer
    sets up its rule (a prompt alone ends no turn) passes, but pytest's terminal summary and
    its JUnit properties say so, and its output (`-rP`) is replay's verdict: it passed in
    silence, as if the bug were fixed."""
    _write_case(tmp_path / "loopspec-cases" / "case-TURN-2-0.json", "TURN-2", _ASKS, _ANSWERS)
    _write_case(tmp_path / "loopspec-cases" / "case-TURN-2-1.json", "TURN-2", _ASKS)
    _write_case(tmp_path / "shared" / "newer.json", "TURN-2", _ASKS, version=2)
    _write_case(tmp_path / "shared" / "cut.json", "TURN-2", _ANSWERS)  # its turn cut by hand
    done = inner_pytest(
        tmp_path,
        "plugin_targets:turn_end_with_step_open",
        "--loopspec-impl",
        1,
        "-vv",
        "--loopspec-cases=shared",
        "-rP",
        f"--junitxml={tmp_path / 'junit.xml'}",  # pytest's default family, xunit2, keeps it
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    unreached = (
        "loopspec-cases/case-TURN-2-1.json: 1 command replayed, no divergence: passes, but this "
        "program no longer sets up TURN-2, the rule the case recorded: no command the model "
        "takes creates the situation TURN-2 governs"
    )
    summary = out.split(" loopspec: saved cases passing without their rule ")[1].split("\n", 1)[1]
    assert " ".join(summary.split()).startswith(unreached), summary
    passed = out.split(" replay loopspec-cases/case-TURN-2-1.json _")[1].split("\n===")[0]
    assert "loopspec-cases/case-TURN-2-1.json: replaying against plugin_targets:" in passed
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert f'<property name="loopspec" value="{unreached}' in " ".join(junit.split()), junit
    ran = [
        line.split(" ")[0] for line in out.splitlines() if " PASSED" in line or " FAILED" in line
    ]
    assert ran[:5] == [
        "loopspec-cases/case-TURN-2-0.json::replay",
        "loopspec-cases/case-TURN-2-1.json::replay",
        "shared/cut.json::replay",
        "shared/newer.json::replay",
        "loopspec/suite.py::test_target_conforms_to_the_model",
    ], out
    assert "loopspec-cases/case-TURN-2-1.json::replay PASSED" in out
    failed = out.split(" replay loopspec-cases/case-TURN-2-0.json _")[1].split("\n_____")[0]
    headline = "TURN-2: loopspec replay: loopspec-cases/case-TURN-2-0.json: DIVERGES ("
    assert failed.splitlines()[1].startswith(headline), failed  # pytest's summary shows it
    assert "loopspec-cases/case-TURN-2-0.json: replaying against plugin_targets:" in failed
    assert "found on --impl somebody_elses_loop:make, not this replay's target" in failed
    assert "loopspec-cases/case-TURN-2-0.json: diverges; the case recorded TURN-2" in failed
    assert "rule TURN-2: the target's own log breaks TURN-2" in failed
    assert "### TURN-2 " in failed  # the SPEC text
    assert "--- model" in failed
    assert "+++ target" in failed
    rerun = "pytest loopspec-cases/case-TURN-2-0.json --loopspec-impl=plugin_targets:"
    assert f"replay it alone: {rerun}turn_end_with_step_open --loopspec-cases=shared" not in out
    assert f"replay it alone: {rerun}turn_end_with_step_open\n" in failed + "\n"
    assert "saved_cases.py" not in failed
    assert "Traceback" not in failed
    newer = out.split(" replay shared/newer.json _")[1].split("\n_____")[0]
    says = f"loopspec: error: {tmp_path / 'shared' / 'newer.json'}:3: $.version is 2"
    assert says in newer, newer
    # A reply with no turn before it: refused by both, it passed as if TURN-2 were fixed.
    cut = out.split(" replay shared/cut.json _")[1].split("\n_____")[0]
    says = "loopspec: error: [MODEL-1] shared/cut.json:25: not a valid program at command #1 "
    assert f"{says}(ModelReplies): the model refuses it there " in cut, cut


class _SummaryWriter:
    """What of pytest's terminal reporter the plugin's terminal summary uses: the reports it
    holds by outcome, and the lines it writes (and the configuration: an xdist controller's,
    whose tests ran elsewhere)."""

    def __init__(self, config: pytest.Config, passed: list[pytest.TestReport]) -> None:
        self.config = config
        self.stats = {"passed": passed}
        self.lines: list[str] = []

    def section(self, title: str, **_markup: bool) -> None:
        self.lines.append(f"== {title}")

    def write_line(self, line: str) -> None:
        self.lines.append(line)


def test_PROTO_1_plugin_lists_a_pass_saying_nothing_from_its_report_as_xdist_hands_it_over(
    request: pytest.FixtureRequest,
) -> None:
    """PROTO-1: the summary of saved cases passing without their rule is read from the tests'
    reports, which pytest-xdist's workers send the controller as pytest serializes them (the
    hooks used here), so `pytest -n 2` lists them too. It was a list the process running the
    cases kept: a worker's, and the controller's summary said nothing. (pytest-xdist is not in
    the dev extra: this is its hand-over, in process.)"""
    said = "loopspec-cases/case-TURN-2-1.json: 1 command replayed, no divergence: passes, but"
    hook = request.config.hook

    def handed_over(nodeid: str, properties: list[tuple[str, object]]) -> pytest.TestReport:
        location = (nodeid, None, "replay")
        report = pytest.TestReport(
            nodeid, location, {}, "passed", None, "call", user_properties=properties
        )
        sent = hook.pytest_report_to_serializable(config=request.config, report=report)
        received: pytest.TestReport = hook.pytest_report_from_serializable(
            config=request.config, data=sent
        )
        return received

    writer = _SummaryWriter(
        request.config,
        [
            handed_over("loopspec-cases/case-TURN-2-1.json::replay", [("loopspec", said)]),
            handed_over("tests/test_mine.py::test_it", [("loopspec", "a user's own property")]),
        ],
    )
    pytest_plugin.pytest_terminal_summary(writer)  # type: ignore[arg-type]  # its two methods
    assert writer.lines == ["== loopspec: saved cases passing without their rule", said]


class _StartedAtPytestsStart(SharedProcess):
    """A `--loopspec-cmd` process as `_start_the_process` sees it, without one: its first
    `reset` answers, or raises what a process silent at the answer timeout does (`hangs`);
    `resets` and `closed` count what was done to it."""

    def __init__(self, *, hangs: bool = False) -> None:  # no ProcessTarget: nothing started
        self.hangs, self.resets, self.closed = hangs, 0, 0

    name = "sleep 60"

    def __call__(self) -> ConformanceTarget:
        return self

    def apply(self, command: Command) -> Observation:
        raise AssertionError(f"a start-up sends one reset, no command ({command})")

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self.resets += 1
        if self.hangs:
            silent = "sleep 60: the process hung at start-up: no answer to reset within 0.2 s"
            raise ProcessTargetError(silent, hung_at_start_up=True)
        return frozenset()

    def close(self) -> None:
        self.closed += 1


@pytest.mark.parametrize(
    ("worker", "hangs", "resets"),
    [
        # A worker (xdist sets `workerinput`) starts none: its controller checked one already.
        (True, False, 0),
        # The controller of `-n 2` checks the process answers, then ends it: no test runs there.
        (False, False, 1),
        # And one silent at its deadline stops pytest there, as without xdist.
        (False, True, 1),
    ],
    ids=["worker", "controller", "controller-hangs"],
)
def test_PROTO_1_plugin_starts_the_cmd_process_under_xdist_on_the_controller_alone(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    worker: bool,
    hangs: bool,
    resets: int,
) -> None:
    """PROTO-1: under pytest-xdist (`-n 2`) the `--loopspec-cmd` process is started on the
    controller, which stops pytest when it never answers and ends it when it does (its
    workers run the tests, each starting its own), and never on a worker; none is kept for a
    test to take. pytest-xdist is not in the dev extra: its configuration is set as it sets it
    (`workerinput` on a worker, `option.dist` on the controller), in process."""
    config = request.config
    if worker:
        monkeypatch.setattr(config, "workerinput", {"workerid": "gw0"}, raising=False)
    else:
        monkeypatch.setattr(config.option, "dist", "load", raising=False)
    process = _StartedAtPytestsStart(hangs=hangs)
    if hangs:
        with pytest.raises(pytest.UsageError) as refused:
            pytest_plugin._start_the_process(config, process, {"cmd": "sleep 60"})
        hint = " (to wait longer: --loopspec-answer-timeout S)"
        assert str(refused.value).endswith(f"within 0.2 s{hint}"), refused.value
    else:
        pytest_plugin._start_the_process(config, process, {"cmd": "sleep 60"})
    assert (process.resets, process.closed) == (resets, 1)
    assert pytest_plugin.take_started_target(config) is None


def test_PROTO_1_plugin_runs_one_saved_case_by_its_file_or_node_id(
    tmp_path: Path, inner_pytest: InnerPytest
) -> None:
    """PROTO-1: a saved case's test id starts with the case file's path, and naming the file,
    or the id pytest printed, runs that case alone (no other case, no random suite). Before,
    the ids began `loopspec/saved_cases.py::`, a file in site-packages, so a user could select
    a case with -k but not run it by the id pytest printed ("found no collectors"). The case
    named by its id and the one named by its file run in one pytest (each run costs a second
    or two of CPU); the third case, named by neither, must not run. A colleague's case saved
    outside the case folder, named `alice-case` with no `.json`, is read by its content: pytest
    said "not found" of it unless `--loopspec-cases` named it too. A folder named so has its
    cases replayed as `replay DIR` reads them (its other JSON left alone): pytest ran the
    random suite alone and passed, as if they had."""
    _write_case(tmp_path / "loopspec-cases" / "case-TURN-2-0.json", "TURN-2", _ASKS, _ANSWERS)
    _write_case(tmp_path / "loopspec-cases" / "case-TURN-2-1.json", "TURN-2", _ASKS)
    _write_case(tmp_path / "loopspec-cases" / "case-TURN-2-2.json", "TURN-2", _ASKS, _ANSWERS)
    _write_case(tmp_path / "Downloads" / "alice-case", "TURN-2", _ASKS)
    _write_case(tmp_path / "Downloads" / "bob.json", "TURN-2", _ASKS)
    (tmp_path / "Downloads" / "data.json").write_text('{"loopspec": "data"}', encoding="utf-8")
    target = "plugin_targets:turn_end_with_step_open"
    done = inner_pytest(
        tmp_path, target, "--loopspec-impl", 1, "-vv", "-k", "saved_case", "Downloads"
    )
    failing = "loopspec-cases/case-TURN-2-0.json::replay"
    assert f"{failing} FAILED" in done.stdout, done.stdout
    assert "Downloads/bob.json::replay PASSED" in done.stdout
    assert "data.json" not in done.stdout, done.stdout
    assert f"FAILED {failing}" in done.stdout, done.stdout  # the summary line, to copy
    passing = "loopspec-cases/case-TURN-2-1.json"
    sent = "Downloads/alice-case"
    done = inner_pytest(tmp_path, target, "--loopspec-impl", 1, "-vv", failing, passing, sent)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{failing} FAILED" in done.stdout, done.stdout
    assert f"{passing}::replay PASSED" in done.stdout
    assert "Downloads/alice-case::replay PASSED" in done.stdout
    assert "case-TURN-2-2.json" not in done.stdout, done.stdout
    assert "1 failed, 2 passed in" in done.stdout, done.stdout


def test_PROTO_1_plugin_replay_alone_line_of_a_case_sent_from_outside_reads_the_projects_settings(
    tmp_path: Path,
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: a colleague's case kept outside the project (`--loopspec-cases` naming it in
    ~/Downloads) fails with a `replay it alone:` line that, run as printed in the same folder,
    replays it with the project's settings: pytest finds its configuration from the paths it is
    given, so the line without `-c pytest.ini` lost the `pythonpath` the loop is found by and
    stopped at a usage error, "cannot load bobs_loop:make". Its report names the case file."""
    project = tmp_path / "project"
    (project / "lib").mkdir(parents=True)
    (project / "pytest.ini").write_text("[pytest]\npythonpath = lib\n", encoding="utf-8")
    loop = "from plugin_targets import turn_end_with_step_open as make\n"
    (project / "lib" / "bobs_loop.py").write_text(loop, encoding="utf-8")
    _write_case(tmp_path / "Downloads" / "alice-case.json", "TURN-2", _ASKS, _ANSWERS)
    sent = "--loopspec-cases=../Downloads/alice-case.json"
    done = inner_pytest(project, "bobs_loop:make", "--loopspec-impl", 1, "-k", "saved_case", sent)
    assert done.returncode == 1, done.stdout + done.stderr
    said = "replay it alone: "
    line = next(line for line in done.stdout.splitlines() if line.startswith(said))
    pytest_words, *rerun = shlex.split(line.removeprefix(said))
    assert pytest_words == "pytest"
    again = inner_pytest.run(project, project, *rerun)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "1 failed in" in again.stdout, again.stdout
    assert "TURN-2: loopspec replay: " in again.stdout, again.stdout
    # The case named outside the rootdir: pytest's id from that path argument was "", and the
    # summary's line began `FAILED ::`.
    case_id = "../Downloads/alice-case.json::replay"
    assert f"\nFAILED {case_id}" in again.stdout, again.stdout
    # Named as a plain path, without `-c`: pytest reads no pytest.ini, and the error's advice,
    # to name the loop's folder in `pythonpath`, sent Bob to the setting his file holds.
    case = "../Downloads/alice-case.json"
    plain = inner_pytest.run(project, project, case, "--loopspec-impl=bobs_loop:make")
    assert plain.returncode == pytest.ExitCode.USAGE_ERROR, plain.stdout + plain.stderr
    assert plain.stderr.rstrip().endswith(
        "; pytest read no pytest.ini (it looks for its settings from the paths given, not from "
        "the current folder): add -c pytest.ini"
    ), plain.stderr


def test_PROTO_1_plugin_skips_a_saved_case_needing_what_the_target_does_not_declare(
    tmp_path: Path,
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: a saved case with a command the target does not declare (an abort, for a loop
    without `abort`) is skipped saying so: conform never sends that loop such a program, so the
    case says nothing about it. The case directory is the rootdir's wherever pytest runs from,
    and --loopspec-cases names a single file too."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    _write_case(tmp_path / "loopspec-cases" / "case-EXE-4-0.json", "EXE-4", _ASKS)
    abort = {"kind": "Abort", "cause": "user"}
    _write_case(tmp_path / "elsewhere" / "aborts.json", "EXE-4", _ASKS, abort)
    done = inner_pytest(
        tmp_path,
        "plugin_targets:declares_nothing",
        "--loopspec-impl",
        1,
        "-rs",
        "-k",
        "saved_case",
        "--loopspec-cases=../elsewhere/aborts.json",
        cwd=tmp_path / "tests",
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "1 passed, 1 skipped, 1 deselected" in out
    aborts = tmp_path / "elsewhere" / "aborts.json"  # not below the current folder: in full
    # The line the Abort command's object opens on, as a fault in a hand-edited case is named.
    lines = aborts.read_text(encoding="utf-8").splitlines()
    line = next(number for number, text in enumerate(lines, start=1) if '"Abort"' in text) - 1
    says = f"loopspec: {aborts}:{line}: command #2 of the case (Abort) needs the capability abort"
    assert says in out, out
    # Placed at the case, not at the line of loopspec's source that skipped it.
    assert f"SKIPPED [1] ../elsewhere/aborts.json: {says}" in out, out


def test_PROTO_1_TURN_2_plugin_names_no_rule_for_a_case_its_own_profile_cannot_describe(
    tmp_path: Path,
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: a case recorded with the claude-code profile that holds a crash (which that
    profile's implementation never receives) fails as `replay` refuses it: one line naming the
    command and the profile, and no rule, since the case and its profile do not fit whatever
    the target does. Before, the plugin printed the rule tag by hand: `[] <path>: ...`. A case
    of that profile the loop now passes, the profile erasing nothing, says it passes now, as
    one without a profile does (TURN-2): it said only "no divergence; the case recorded"."""
    crash = {"kind": "Crash"}
    _write_case(
        tmp_path / "loopspec-cases" / "c.json", "REC-1", _ASKS, crash, profile="claude-code"
    )
    _write_case(
        tmp_path / "loopspec-cases" / "d.json", "TURN-2", _ASKS, _ANSWERS, profile="claude-code"
    )
    target = "loopspec.properties.conformance.target:ModelTarget"
    done = inner_pytest(tmp_path, target, "--loopspec-impl", 1, "-k", "saved_case", "-rP")
    assert done.returncode == 1, done.stdout + done.stderr
    passes = "2 commands replayed, no divergence: passes now (the case recorded TURN-2)\n"
    assert f"loopspec-cases/d.json: {passes}" in done.stdout, done.stdout
    failed = next(line for line in done.stdout.splitlines() if "loopspec: error:" in line)
    assert "needs the capability crash-repair" in failed, done.stdout
    assert "the claude-code profile's implementation" in failed, done.stdout
    assert "[]" not in failed, failed
    assert "[PROTO-1]" not in failed, failed


@pytest.mark.needs(Need.NODE)
def test_SAFE_5_plugin_replays_saved_cases_on_one_process_and_names_its_failed_shutdown(
    tmp_path: Path,
    inner_pytest: InnerPytest,
) -> None:
    """SAFE-5: the saved cases share one --loopspec-cmd process, reset between them as conform's
    programs are (the adapter writes a line per start), and a process that leaves without `bye`
    fails the last case's teardown with one line saying so, not a traceback. A test run after
    it (here a user's, moved last by their conftest) still runs: it failed at its setup,
    "previous item was not torn down properly", the case's teardown cut short by the error."""
    _write_case(tmp_path / "loopspec-cases" / "a.json", "TURN-2", _ASKS, _ANSWERS)
    _write_case(tmp_path / "loopspec-cases" / "b.json", "TURN-2", _ASKS)
    (tmp_path / "test_mine.py").write_text("def test_mine():\n    pass\n", encoding="utf-8")
    starts = tmp_path / "starts"
    adapter = tmp_path / "counting.sh"
    target = shlex.join([sys.executable, str(TESTS / "misbehaving_target.py"), "nobye", "1000000"])
    adapter.write_text(f"echo started >> {shlex.quote(str(starts))}\nexec {target}\n")
    mine_last = (
        "\ndef pytest_collection_modifyitems(items):\n"
        "    items.sort(key=lambda item: item.name == 'test_mine')\n"
    )
    done = inner_pytest(
        tmp_path, shlex.join(["sh", str(adapter)]), "--loopspec-cmd", 1,
        "-k", "saved_case or mine", conftest_end=mine_last,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "3 passed, 1 deselected, 1 error" in out, out
    assert starts.read_text().splitlines() == ["started"]
    said = "loopspec: error: [PROTO-1] after the saved cases replayed: "
    assert said in out, out
    assert "instead of answering shutdown" in out
    assert "process_target.py" not in out


@pytest.mark.parametrize(
    ("named", "says"),
    [("missing", "no such file or directory"), ("empty", "a directory without case files")],
)
def test_PROTO_1_plugin_refuses_a_cases_folder_that_holds_no_case(
    inner_pytest: InnerPytest, named: str, says: str
) -> None:
    """PROTO-1: --loopspec-cases naming a folder that does not exist or holds no *.json stops
    pytest with one line (as `loopspec replay DIR` exits 2): a mistyped folder would otherwise
    pass for a regression suite without a failure. The default case folder may be missing.
    The line reads as the CLI's errors do (it lacked `loopspec: error: `); no rule is named."""
    (inner_pytest.pytester.path / "empty").mkdir()
    _, stderr = _usage_error(
        inner_pytest, "plugin_targets:turn_end_with_step_open", "--loopspec-impl",
        f"--loopspec-cases={named}",
    )  # fmt: skip
    assert f"ERROR: loopspec: --loopspec-cases {named}: {says}" in stderr, stderr
    assert "Traceback" not in stderr


def test_PROTO_1_plugin_names_the_renamed_case_of_a_folder_it_refuses(
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: a folder holding only `x.json.txt` (an attachment as a mail client saves it) is
    refused naming that file, as `loopspec replay DIR` names it; `X.JSON` would be read."""
    (inner_pytest.pytester.path / "sent").mkdir()
    (inner_pytest.pytester.path / "sent" / "x.json.txt").write_text("{}", encoding="utf-8")
    _, stderr = _usage_error(
        inner_pytest, "plugin_targets:turn_end_with_step_open", "--loopspec-impl",
        "--loopspec-cases=sent",
    )  # fmt: skip
    assert stderr.count("x.json.txt") == 1, stderr
    assert (
        "--loopspec-cases sent: a directory without case files (*.json); sent: 1 file named like "
        "a case but not ending in .json, not replayed: x.json.txt"
    ) in stderr, stderr


def test_PROTO_1_plugin_reports_a_renamed_case_beside_real_ones_as_skipped(
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: a case folder holding cases and `x.json.txt` (an attachment as a mail client
    saves it) replayed the cases and passed over the renamed one in silence, where `loopspec
    replay DIR` names it: the run looked like every case sent had passed. Each such file, in
    the case folder or a --loopspec-cases one, is a skipped test now, its reason the line replay
    writes; `-k "not saved_case"` leaves it out with the cases. Run in this process: it replays
    two one-command cases and draws nothing."""
    folder, sent = (
        inner_pytest.pytester.path / "loopspec-cases",
        inner_pytest.pytester.path / "sent",
    )
    for case in (folder / "a.json", folder / "x.json.txt", sent / "b.json", sent / "y.json.bak"):
        _write_case(case, "TURN-2", _ASKS)
    (inner_pytest.pytester.path / "conftest.py").write_text(
        USER_CONFTEST.format(examples=1), "utf-8"
    )
    done = inner_pytest.run(
        folder.parent, folder.parent, "-rs", "-k", "saved_case", "--loopspec-cases=sent",
        "--loopspec-impl=plugin_targets:turn_end_with_step_open",
    )  # fmt: skip
    out = done.stdout
    assert "\n2 passed, 2 skipped, 1 deselected in " in out, out
    for folder_name, name in (("loopspec-cases", "x.json.txt"), ("sent", "y.json.bak")):
        assert (
            f"SKIPPED [1] {folder_name}/{name}: loopspec: {folder_name}: 1 file named like a case "
            f"but not ending in .json, not replayed: {name} (rename it to end in .json to "
            "replay it)\n"
        ) in out, out


@pytest.mark.parametrize("mode", ["--fixtures", "--markers", "--setup-plan"])
def test_PROTO_1_plugin_starts_no_cmd_process_where_pytest_runs_no_test(
    inner_pytest: InnerPytest, mode: str
) -> None:
    """PROTO-1: where pytest runs no test (`--fixtures`, `--markers`, `--setup-plan`, as
    `--collect-only` and `--help`), the --loopspec-cmd process is not started: it was, only to
    be ended, and one that exits before its first answer (here at once) stopped `pytest
    --markers` with the plugin's usage error, exit 4."""
    done = inner_pytest(inner_pytest.pytester.path, "sh -c 'exit 3'", "--loopspec-cmd", 1, mode)
    assert done.returncode == pytest.ExitCode.OK, done.stdout + done.stderr
    assert "loopspec:" not in done.stderr, done.stderr


def test_PROTO_1_plugin_replays_the_committed_cases_where_new_ones_are_saved_elsewhere(
    inner_pytest: InnerPytest,
) -> None:
    """PROTO-1: `--loopspec-case-dir` naming another folder (a read-only checkout's
    `"$RUNNER_TEMP/loopspec-cases"`, as the plugin's refusal advises) still replays the cases
    committed in `loopspec-cases/` in the rootdir: that folder alone was read, and a CI job
    following the advice ran none of its regression cases. (`--collect-only`: nothing runs.)"""
    root = inner_pytest.pytester.path
    _write_case(root / "loopspec-cases" / "case-TURN-2-0.json", "TURN-2", _ASKS)
    _write_case(root / "elsewhere" / "case-TURN-2-1.json", "TURN-2", _ASKS)
    done = inner_pytest(
        root, "sh -c 'exit 3'", "--loopspec-cmd", 1, "--co", "--loopspec-case-dir=elsewhere"
    )
    assert done.returncode == pytest.ExitCode.OK, done.stdout + done.stderr
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    assert collected == [
        "elsewhere/case-TURN-2-1.json::replay",
        "loopspec-cases/case-TURN-2-0.json::replay",
        "loopspec/suite.py::test_target_conforms_to_the_model",
    ], done.stdout


def test_PROTO_1_plugin_runs_its_tests_when_loopspec_is_installed_in_the_project_s_own_venv(
    tmp_path: Path,
) -> None:
    """PROTO-1: with loopspec installed in a virtualenv inside the project (`python -m venv
    .venv`, the usual layout) and pytest run bare from the project, the saved cases and the
    random suite still run beside the project's own tests. Before, the plugin named its test
    modules as extra command-line paths; pytest drops a path lying under another one it
    collects (the project folder) and never enters a virtualenv, so neither ran and pytest
    passed on the project's tests alone (or said "no tests ran")."""
    site = tmp_path / ".venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (site / "loopspec").symlink_to(TESTS.parent / "loopspec", target_is_directory=True)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_mine.py").write_text("def test_mine():\n    pass\n")
    _write_case(tmp_path / "loopspec-cases" / "case-TURN-2-0.json", "TURN-2", _ASKS, _ANSWERS)
    (tmp_path / "conftest.py").write_text(USER_CONFTEST.format(examples=1), encoding="utf-8")
    # Where the import would come from, without importing it (a fifth of a second of CPU).
    probe = (
        "import importlib.util as u; print(u.find_spec('loopspec.properties.pytest_plugin').origin)"
    )
    env = _environment(site, TESTS)
    where = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(site)), where.stdout  # the plugin is the venv's copy
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v",
         "--loopspec-impl=plugin_targets:turn_end_with_step_open"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "test_mine PASSED" in out, out
    assert "loopspec-cases/case-TURN-2-0.json::replay FAILED" in out, out
    assert "test_target_conforms_to_the_model FAILED" in out, out
    assert "1 passed" in out, out
