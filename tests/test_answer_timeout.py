"""`--answer-timeout S` (conform, replay) and `--loopspec-answer-timeout S` (the pytest plugin):
how long a `--cmd` process has to answer each message, its start-up included (rule PROTO-1).

It was 10 s with no way to change it: a loop that starts slowly (Node and a large bundle, a JVM)
could not be driven at all (h3's Frank). A process that never answers (`sleep`) shows the
timeout in effect without any test depending on how fast something runs.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import attrs
import pytest
from inner_pytest import InnerPytest
from test_conform_report import _failed_report

from loopspec.properties.cli.conform_run import write_case_file
from loopspec.properties.cli.main import main
from loopspec.properties.conformance.process_target import HUNG_AT_START_UP
from loopspec.properties.pytest_plugin import DEFAULT_CASE_DIR

pytest_plugins = ["pytester"]  # the plugin's pytest runs in this process (InnerPytest)
TESTS = Path(__file__).resolve().parent
SILENT = "sleep 30"
CLI_HINT = " (to wait longer: --answer-timeout S)"


def test_PROTO_1_conform_answer_timeout_is_the_wait_for_each_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a process that does not answer `reset` within `--answer-timeout` seconds is a
    hang, named with the timeout given and the option that waits longer (the message did not
    say how to wait longer), and, silent from its start, said as one exiting then is (it read
    "the target failed in reset: ...: no answer to reset", a slip mid-run)."""
    cases = str(tmp_path / "cases")
    given = ["conform", "--cmd", SILENT, "--answer-timeout", "0.2", "--case-dir", cases]
    assert main(given) == 2
    said = capsys.readouterr().err
    assert said.startswith(
        f"loopspec: error: [PROTO-1] {SILENT}: {HUNG_AT_START_UP}: no answer to reset within "
        f"0.2 s{CLI_HINT}\nstderr: "
    ), said


def test_PROTO_1_replay_answer_timeout_is_the_wait_for_each_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: replay waits `--answer-timeout` seconds too, for one case and for a folder, and
    names the option when the wait runs out. In a folder, the cases after one whose process
    never answered its first message are not replayed: each started it again and waited out
    the timeout, saying the same words (50 committed cases, 500 s at the default 10 s)."""
    case = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    later = write_case_file(_failed_report(), tmp_path, {"impl": "theirs:make"})
    for named in (case, tmp_path):
        assert main(["replay", str(named), "--cmd", SILENT, "--answer-timeout", "0.2"]) == 2
        said = capsys.readouterr()
        assert said.err.count(f"no answer to reset within 0.2 s{CLI_HINT}") == 1, said.err
    assert said.out.endswith(
        "the target never answered its first message: the 1 case after this one is not "
        "replayed (each would start it again and fail alike)\n"
        f"replayed 1 case against {SILENT}: 1 unusable; 1 not replayed\n"
    ), said.out
    assert f"{later.name}: replaying" not in said.out


# A `--cmd` that exits on a reset whose configuration has a `maxParallel` of 3, answers any other
# reset and exits at the first command (a case replayed on it is unusable, but replayed).
FAILS_ON_MAX_PARALLEL_3 = shlex.join(
    [
        "sh",
        "-c",
        """while read -r line; do case $line in
  *'"maxParallel": 3,'*) exit 1;;
  *'"type": "reset"'*) echo '{"type": "ready", "implementation": "x", "capabilities": []}';;
  *) exit 1;;
esac; done""",
    ]
)


def test_PROTO_1_replay_goes_on_after_a_case_whose_configuration_stops_the_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a process exiting before answering one case's reset, on that case's own
    configuration, stops a folder's replay only when it fails alike on a reset no case chose
    (the pytest plugin's first): one failing on a `maxParallel` of 3 stopped the folder at that
    case, the next (which replayed alone) counted as not replayed."""
    report = _failed_report()
    assert report.config is not None
    config = attrs.evolve(report.config, max_parallel=3)
    write_case_file(attrs.evolve(report, config=config), tmp_path, {"cmd": "x"})
    later = write_case_file(report, tmp_path, {"cmd": "x"})
    assert main(["replay", str(tmp_path), "--cmd", FAILS_ON_MAX_PARALLEL_3]) == 2
    said = capsys.readouterr()
    assert f"{later}: replaying" in said.out, said.out
    assert said.out.endswith(": 2 unusable\n"), said.out  # was "1 unusable; 1 not replayed"


@pytest.mark.parametrize("verb", [["conform"], ["replay", "case.json"]])
def test_answer_timeout_without_cmd_is_a_usage_error(
    verb: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """An in-process target has no answers to await: the option given without `--cmd` would
    seem to hold and do nothing, so it is refused in one line, before anything runs."""
    assert main([*verb, "--answer-timeout", "60"]) == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == "loopspec: error: --answer-timeout applies to a --cmd process only\n"


def test_PROTO_1_plugin_answer_timeout_is_the_wait_for_each_answer(
    tmp_path: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: the pytest plugin's `--loopspec-answer-timeout` is conform's `--answer-timeout`;
    without `--loopspec-cmd` it stops pytest, as conform refuses it. A hang names the plugin's
    option, not the CLI's. The process is started when pytest starts, and one silent at its
    first message stops pytest there, before the saved case replays (before, that case ran and
    failed for it)."""

    def pytest_with(*options: str) -> subprocess.CompletedProcess[str]:
        return InnerPytest(pytester, monkeypatch).run(tmp_path, tmp_path, *options)

    write_case_file(_failed_report(), tmp_path / DEFAULT_CASE_DIR, {"impl": "mine:make"})
    done = pytest_with(f"--loopspec-cmd={SILENT}", "--loopspec-answer-timeout=0.2")
    assert done.returncode == 4, done.stdout + done.stderr
    hint = " (to wait longer: --loopspec-answer-timeout S)"
    hang = (
        f"ERROR: loopspec: [PROTO-1] {SILENT}: {HUNG_AT_START_UP}: no answer to reset within "
        f"0.2 s{hint}"
    )
    assert hang in done.stderr, done.stderr
    assert "case-TURN-5-0.json" not in done.stdout + done.stderr
    assert CLI_HINT not in done.stderr
    refused = pytest_with("--loopspec-answer-timeout=0.2")
    assert refused.returncode == 4, refused.stdout + refused.stderr
    only = "ERROR: loopspec: --loopspec-answer-timeout applies to --loopspec-cmd only\n"
    assert only in refused.stderr, refused.stderr
