"""check, spec and schema end on SIGTERM, SIGHUP and SIGQUIT as run, conform and replay do: one
line naming the signal, status 128 + its number, no traceback. The default action ended them
silently (a bare 143 in a CI log, read as a crash).

A signal is sent only once the program has installed its handler, as /proc shows (Linux): one
sent before would take the default action, a failure that says nothing of the program.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from terminal_signals import as_a_terminals_foreground_job

from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.logcheck.synth import jsonl, model_rows

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads a process's caught signals in /proc"
)

HEADER = {"type": "session", "version": 0, "id": "s", "createdAt": 1700000000000, "cwd": "/w"}


def _catches(pid: int, signum: int) -> bool:
    """Whether process `pid` has a handler of its own for `signum`."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    (caught,) = (line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught, 16) >> (signum - 1) & 1)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT])
def test_check_ended_by_a_signal_part_way_says_so_and_exits_128_plus_it(
    signum: signal.Signals,
) -> None:
    """`check -` part way through a log (its events read, the rest not come yet) ends
    on the signal with its one line and 128 + its number."""
    log = jsonl(HEADER, model_rows(DEMO_CONFIG, DEMO_COMMANDS))
    check = subprocess.Popen(
        [sys.executable, "-m", "loopspec", "check", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_a_terminals_foreground_job,  # noqa: PLW1509 (no thread of this test runs)
    )
    try:
        assert check.stdin is not None
        check.stdin.write(log)
        check.stdin.flush()
        deadline = time.monotonic() + 60  # a loaded machine starts Python slowly
        while not _catches(check.pid, signum):
            assert check.poll() is None, check.communicate()
            assert time.monotonic() < deadline, f"check never took {signum.name}"
            time.sleep(0.02)
        check.send_signal(signum)
        out, err = check.communicate(timeout=30)
    finally:
        check.kill()
    assert (check.returncode, err, out) == (
        128 + signum,
        f"loopspec: stopped by {signum.name}: its report not written\n",
        "",
    )


def _schema_case_signalled(signum: signal.Signals, *, ignored: bool) -> tuple[int, str, str]:
    """`loopspec schema case` as its console script runs it, sent `signum` by itself while it
    builds the case schema (after the verb's modules are imported), `signum` ignored from the
    start when `ignored` (as `nohup` ignores SIGHUP): its status, stderr and stdout."""
    code = (
        "import os, signal, sys\n"
        "from loopspec.properties.cli import main\n"
        "import loopspec.properties.conformance.case_format as case_format\n"
        "def signalled_while_building():\n"
        f"    os.kill(os.getpid(), {int(signum)})\n"
        "    return {'built': True}\n"
        "case_format.case_schema = signalled_while_building\n"
        + (f"signal.signal({int(signum)}, signal.SIG_IGN)\n" if ignored else "")
        + "sys.argv = ['loopspec', 'schema', 'case']\n"
        "sys.exit(main.program())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60
    )
    return done.returncode, done.stderr, done.stdout


def test_a_signal_during_a_verb_that_reads_no_log_is_said_too() -> None:
    """The handler is installed before a verb's modules are imported: `schema case`, stopped
    while it builds the case schema, says so, with no traceback."""
    assert _schema_case_signalled(signal.SIGTERM, ignored=False) == (
        143,
        "loopspec: stopped by SIGTERM: its report not written\n",
        "",
    )


def test_a_signal_ignored_at_the_start_stays_ignored() -> None:
    """Under `nohup`, SIGHUP is ignored when loopspec starts: a closed terminal must not end
    it, so loopspec installs no handler of its own for it."""
    assert _schema_case_signalled(signal.SIGHUP, ignored=True) == (
        0,
        "",
        '{\n  "built": true\n}\n',
    )


# A script that runs the console script's entry point (pyproject's `[project.scripts]`) as the
# installed `loopspec` runs it, and sends itself `signum` as the command line's modules start
# to load: a deterministic signal in the start-up window.
_SIGNALLED_AT_START = """
import importlib, os, sys

class Signalling:
    def find_spec(self, name, path=None, target=None):
        if name == "loopspec.properties.cli.main":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), {signum})
        return None

sys.meta_path.insert(0, Signalling())
sys.argv = ["loopspec", "schema", "check"]
module, function = {entry!r}.split(":")
sys.exit(getattr(importlib.import_module(module), function)())
"""


@pytest.mark.parametrize(
    ("signum", "said", "status"),
    [(signal.SIGTERM, "SIGTERM", 143), (signal.SIGINT, "Ctrl-C", 130)],
)
def test_a_signal_while_the_command_line_loads_is_said_too(
    signum: signal.Signals, said: str, status: int
) -> None:
    """SIGTERM or Ctrl-C while the console script was importing the command line's modules
    (before `main` took the signals over) ended it with a bare 143, or a traceback of the
    import: the entry point takes them over first, and says so in its one line."""
    with (Path(__file__).resolve().parent.parent / "pyproject.toml").open("rb") as pyproject:
        entry = tomllib.load(pyproject)["project"]["scripts"]["loopspec"]
    script = _SIGNALLED_AT_START.format(signum=int(signum), entry=entry)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=as_a_terminals_foreground_job,
    )
    assert (done.returncode, done.stderr, done.stdout) == (
        status,
        f"loopspec: stopped by {said}: its report not written\n",
        "",
    )


@pytest.mark.parametrize("command", [["check", "-"], ["schema", "driver"]])
def test_a_signal_whose_exception_was_dropped_on_its_way_still_ends_the_run(
    command: list[str],
) -> None:
    """C code that runs a signal's handler may drop the exception it raises: `compile`, as an
    import compiles a module with no bytecode cached, returned its code as if no SIGTERM had
    come, and check went on to exit 0 with its report (1 run in 14 of the test above, in a fresh
    clone). The signal is raised here inside a `try` that drops `Stopped` as that C code did."""
    script = (
        "import signal, sys\n"
        "from loopspec.properties import cli\n"
        "cli.stop_on_ending_signals()\n"
        "try:\n"
        "    signal.raise_signal(signal.SIGTERM)\n"
        "except cli.Stopped:\n"
        "    pass\n"
        f"sys.argv = ['loopspec', *{command!r}]\n"
        "sys.exit(cli.program())\n"
    )
    log = jsonl(HEADER, model_rows(DEMO_CONFIG, DEMO_COMMANDS))
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=log,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr, done.stdout) == (
        128 + signal.SIGTERM,
        "loopspec: stopped by SIGTERM: its report not written\n",
        "",
    )
