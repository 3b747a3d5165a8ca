"""PROTO-1: a `--cmd` whose program cannot start, or that exits saying the machine lacks what it
needs, is the user's setup, not a loop breaking the driver protocol.

`loopspec conform --cmd /nonexistent/run.sh` was tagged `[PROTO-1]` ("cannot start ...: no such
file or directory"), as were a script without the execute bit, one whose `#!` line names a
missing interpreter (the system says "no such file or directory" of a file that is there), a
script without a `#!` line and a directory: a person reading the tag looks for the rule their
loop broke. Each is now a setup error naming no rule (exit 2), saying which program could not
be started and what the system's words mean for it, in conform, replay and the pytest plugin.
So is a target that exits 69, or 127/126 (a shell's or env's "not found" and "cannot execute"),
before its first answer, however the wire saw it end: a timeout striking as it exited was
reported as PROTO-1. So is a Python or Node loop dying before its first answer on a package it
imports that is not installed for the interpreter running it, or installed in another version.
"""

from __future__ import annotations

import ast
import json
import os
import platform
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import settings
from node_requirements import Need

from loopspec.properties.cli.main import main
from loopspec.properties.conformance import start_errors

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
SETUP_WORDS = "a setup problem, not a protocol break"


def _script(folder: Path, name: str, text: str, *, executable: bool = True) -> str:
    """A file `name` in `folder` (the current directory) holding `text`; its name as typed."""
    path = folder / name
    path.write_bytes(text.encode("utf-8"))
    path.chmod(0o755 if executable else 0o644)
    return f"./{name}"


MISSING = "/nonexistent/loopspec-loop/run.sh"
"""A program that is nowhere, by a path outside the home folder (which errors write as ~)."""


def _missing_absolute(folder: Path) -> str:
    return MISSING


def _missing_on_path(folder: Path) -> str:
    return "loopspec-no-such-program-anywhere --flag"


def _script_here_named_bare(folder: Path) -> str:
    return _script(folder, "run.sh", "#!/bin/sh\nexit 0\n").removeprefix("./")


def _not_executable(folder: Path) -> str:
    return _script(folder, "loop.sh", "#!/bin/sh\nexit 0\n", executable=False)


def _missing_interpreter(folder: Path) -> str:
    return _script(folder, "loop.sh", "#!/opt/no-such-interpreter/bin/python3 -u\nprint()\n")


def _windows_line_ends(folder: Path) -> str:
    return _script(folder, "loop.sh", "#!/bin/sh\r\nexit 0\r\n")


def _no_interpreter_line(folder: Path) -> str:
    return _script(folder, "loop", "exit 0\n")


def _script_without_interpreter_line(folder: Path) -> str:
    return _script(folder, "loop.py", "import sys\n")


def _binary_not_executable(folder: Path) -> str:
    (folder / "loop").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(64))  # an ELF header's start
    return "./loop"


def _windows_program(folder: Path) -> str:
    (folder / "loop.exe").write_bytes(b"MZ\x90\x00" + bytes(60))
    (folder / "loop.exe").chmod(0o755)
    return "./loop.exe"


def _directory(folder: Path) -> str:
    (folder / "loop").mkdir()
    return "loop"


CANNOT_START: dict[str, tuple[Callable[[Path], str], str]] = {
    "missing file": (_missing_absolute, ": no such file or directory"),
    "missing program": (
        _missing_on_path,
        "cannot start loopspec-no-such-program-anywhere: no such file or directory (no program "
        "of that name in the folders of PATH)",
    ),
    "script named without ./": (
        _script_here_named_bare,
        "(no program of that name in the folders of PATH; the file run.sh in the current "
        "directory is started as ./run.sh)",
    ),
    "no execute bit": (
        _not_executable,
        "cannot start: permission denied (the file is not executable: chmod +x "
        "./loop.sh, or begin the command with sh ./loop.sh)",
    ),
    # A compiled loop: no program runs it, and "begin the command with sh" misled.
    "binary without execute bit": (
        _binary_not_executable,
        "cannot start: permission denied (the file is not executable: chmod +x ./loop)",
    ),
    # Built elsewhere: "add a #! line" misled.
    "windows program": (
        _windows_program,
        "cannot start: exec format error (it is a Windows program, which this "
        f"machine, {platform.machine()}, does not run: build the loop on this machine, or for it)",
    ),
    "script without #! line": (
        _script_without_interpreter_line,
        "cannot start: exec format error (it has no #! first line naming the program "
        "that runs it: begin the command with that program, python3 ./loop.py, or make its "
        "first line #!/usr/bin/env python3)",
    ),
    "missing interpreter": (
        _missing_interpreter,
        "cannot start: no such file or directory (its #! line names the interpreter "
        "/opt/no-such-interpreter/bin/python3, which does not exist: install it, or make the "
        "line name one that does)",
    ),
    "windows line ends": (
        _windows_line_ends,
        "(its #! line ends with a carriage return, the file having Windows line ends, so the "
        "interpreter looked for is a name ending in one: give the file Unix line ends)",
    ),
    "no #! line": (
        _no_interpreter_line,
        "cannot start: exec format error (it is no program this machine runs, and has "
        "no #! first line naming the one that runs it",
    ),
    "directory": (_directory, "cannot start: it is a directory, "),
}


@pytest.mark.parametrize("made", CANNOT_START.values(), ids=CANNOT_START.keys())
def test_PROTO_1_a_program_that_cannot_start_is_a_setup_error_saying_why(
    made: tuple[Callable[[Path], str], str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1 applies to a program that started: one that never did names no rule, and the
    line says which program and why, in the system's words and what they mean here."""
    make, says = made
    monkeypatch.chdir(tmp_path)
    command = make(tmp_path)
    listed = sorted(os.listdir(tmp_path))
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("loopspec: error: "), err
    assert "[PROTO-1]" not in err
    assert "failed in reset" not in err
    assert says in err
    assert len(err.splitlines()) == 1, err
    assert sorted(os.listdir(tmp_path)) == listed  # no case saved, nothing left behind


def _exits_at_once(folder: Path, status: int, stderr: str) -> str:
    """A wrapper script that says `stderr` and exits `status` before reading anything."""
    script = folder / "wrapper.sh"
    script.write_text(f"#!/bin/sh\necho {shlex.quote(stderr)} >&2\nexit {status}\n", "utf-8")
    script.chmod(0o755)
    return str(script)


def test_PROTO_1_a_compiled_loop_whose_dynamic_loader_is_missing_is_told_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a loop built against another C library (on Alpine, musl) names a dynamic loader
    this machine lacks, and the system says "no such file or directory" of a file that is
    there, which the line repeated without a word more. It names the loader."""
    program = Path(shutil.which("true") or "/bin/true").resolve()
    loader = start_errors._elf_loader(str(program))
    if loader is None:
        pytest.skip(f"{program} is no dynamically linked ELF program")
    elsewhere = "/nonexistent/ld.so"[: len(loader)].ljust(len(loader), "x")
    built = program.read_bytes().replace(loader.encode(), elsewhere.encode(), 1)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop").write_bytes(built)
    (tmp_path / "loop").chmod(0o755)
    assert main(["conform", "--cmd", "./loop", "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith(
        f"cannot start: no such file or directory (it is a compiled program whose "
        f"dynamic loader, {elsewhere}, is not on this machine: it was built for another C "
        "library (musl, glibc) or another system; build it here, or link it statically)"
    ), first


def test_PROTO_1_python_where_only_python3_is_installed_is_told_to_name_python3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: `--cmd "python loop.py"`, or a script whose `#!/usr/bin/env frob` names a program
    env does not find, on a machine that has only the name ending in 3 (Debian's and Ubuntu's
    python3): the line said the program is not on PATH, or to install what stderr names, never
    that the other name is there."""
    monkeypatch.chdir(tmp_path)
    programs = tmp_path / "bin"
    programs.mkdir()
    for name in ("python3", "frob3"):
        _script(programs, name, "#!/bin/sh\nexit 0\n")
    monkeypatch.setenv("PATH", os.pathsep.join([str(programs), "/usr/bin", "/bin"]))
    assert main(["conform", "--cmd", "python loop.py", "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith(
        "cannot start python: no such file or directory (no program of that name in the "
        "folders of PATH; python3 is: begin the command with python3)"
    ), first
    # A misspelt program is offered the one on PATH it likely means, through near_miss.
    _script(programs, "looprunner", "#!/bin/sh\nexit 0\n")
    assert main(["conform", "--cmd", "loopruner loop.py", "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith("folders of PATH) (did you mean looprunner?)"), first
    command = _script(tmp_path, "loop.sh", "#!/usr/bin/env frob\n")
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith(
        "; env found no frob, and frob3 is there: name frob3 (in a #! line, #!/usr/bin/env frob3)"
    ), first
    assert "[PROTO-1]" not in first


@pytest.mark.parametrize(
    ("status", "says"),
    [
        (127, "a program it starts was not found (exit status 127 before its first answer"),
        (126, "a program it starts could not be run (exit status 126 before its first answer"),
    ],
)
def test_PROTO_1_a_wrapper_whose_program_is_missing_is_a_setup_error(
    status: int, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a run.sh doing `exec node main.mjs` where no node is installed (a shell's 127),
    a `#!/usr/bin/env python` where only python3 is (env's 127), or a file found but not
    executable (126), before the first answer: the program that would speak never started."""
    command = _exits_at_once(tmp_path, status, "./run.sh: 2: exec: node: not found")
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    err = capsys.readouterr().err
    first, *rest = err.splitlines()
    assert "[PROTO-1]" not in err
    assert says in first
    assert SETUP_WORDS in first
    assert "stderr (tail): ./run.sh: 2: exec: node: not found" in rest


def test_PROTO_1_a_loop_exiting_127_after_its_first_answer_stays_PROTO_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: once a loop has answered, it started: its death at a later message is its own,
    whatever its status."""
    ready = json.dumps({"type": "ready", "implementation": "dies", "capabilities": []})
    script = tmp_path / "loop.sh"
    script.write_text(f"#!/bin/sh\nread line\necho {shlex.quote(ready)}\nexit 127\n", "utf-8")
    script.chmod(0o755)
    assert main(["conform", "--cmd", str(script), "--examples", "1"]) == 2
    err = capsys.readouterr().err
    assert "[PROTO-1]" in err.splitlines()[0]
    assert SETUP_WORDS not in err


def _python_given_a_script_not_here(folder: Path) -> tuple[str, str]:
    """`python3 loop.py` run from another folder than the loop's."""
    return f"{shlex.quote(sys.executable)} loop.py", "loop.py"


def _node_given_a_script_up_a_folder_not_there(folder: Path) -> tuple[str, str]:
    """A colleague's pasted `rerun:` line, `node ../jsloop/main.mjs`, in a folder with no
    `../jsloop`: Node names the script it could not find by its resolved path, never as typed
    (a stand-in for node, which these tests do not need)."""
    resolved = folder.parent / "jsloop" / "main.mjs"
    node = folder.parent / "node"
    node.write_text(
        f"#!/bin/sh\necho \"Error: Cannot find module '{resolved}'\" >&2\nexit 1\n", "utf-8"
    )
    node.chmod(0o755)
    return f"{node} ../jsloop/main.mjs", "../jsloop/main.mjs"


def _python_given_an_absolute_script_not_there(folder: Path) -> tuple[str, str]:
    """A colleague's `rerun:` line naming the loop where it lay on their machine (a dev
    container's `/workspace/loop.py`): it was "[PROTO-1]" with no word of the missing file."""
    return f"{shlex.quote(sys.executable)} {MISSING_SCRIPT}", MISSING_SCRIPT


MISSING_SCRIPT = "/nonexistent/loopspec-loop/loop.py"


def _python_given_a_script_with_a_space_not_here(folder: Path) -> tuple[str, str]:
    """`python3 'x y.py'`: a quoted name holding a space, which was read as code ("[PROTO-1]"
    with no word of the missing file)."""
    return f"{shlex.quote(sys.executable)} 'x y.py'", "x y.py"


def _node_given_a_script_in_a_folder_with_a_space_not_here(folder: Path) -> tuple[str, str]:
    """`node "dir with space/main.mjs"`: Node names the script resolved (a stand-in for node)."""
    resolved = folder / "dir with space" / "main.mjs"
    node = folder.parent / "node"
    node.write_text(
        f"#!/bin/sh\necho \"Error: Cannot find module '{resolved}'\" >&2\nexit 1\n", "utf-8"
    )
    node.chmod(0o755)
    return f'{node} "dir with space/main.mjs"', "dir with space/main.mjs"


@pytest.mark.parametrize(
    "interpreter_and_script",
    [
        _python_given_a_script_not_here,
        _node_given_a_script_up_a_folder_not_there,
        _python_given_an_absolute_script_not_there,
        _python_given_a_script_with_a_space_not_here,
        _node_given_a_script_in_a_folder_with_a_space_not_here,
    ],
    ids=[
        "python3 loop.py",
        "node ../jsloop/main.mjs",
        "python3 /nonexistent/loop.py",
        "python3 'x y.py'",
        'node "dir with space/main.mjs"',
    ],
)
def test_PROTO_1_an_interpreter_given_a_script_that_is_not_here_is_a_setup_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    interpreter_and_script: Callable[[Path], tuple[str, str]],
) -> None:
    """PROTO-1: an interpreter started from another folder than the loop's cannot open the
    script: the loop never started (it was "[PROTO-1] ... the process ended its output instead
    of answering reset", and still was for Node's error naming `../` resolved)."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    command, script = interpreter_and_script(here)
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    where = "" if os.path.isabs(script) else f" relative to the current directory, {here}"
    # The command as conform shows it, quoted as a shell reads it.
    shown = shlex.join(shlex.split(command))
    assert first == (
        f"loopspec: error: {shown}: the process exited at start-up, "
        f"before answering its first message (reset) ({script}: no such file{where})"
    )


@pytest.mark.skipif(shutil.which("bash") is None, reason="runs bash")
@pytest.mark.parametrize("script", ["loop.sh", "my loop.sh", "./my loop.sh"])
def test_PROTO_1_bash_given_a_script_that_is_not_here_names_it(
    script: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: `--cmd "bash loop.sh"` run from another folder than the script's: bash exits 127
    on a script it cannot open, and the line said only that "a program it starts was not found"
    (the status's words), where python3's and sh's missing script is named. It still did for
    `bash 'my loop.sh'`, its space read as code's."""
    monkeypatch.chdir(tmp_path)
    command = shlex.join(["bash", script])
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    first, *rest = capsys.readouterr().err.splitlines()
    assert first == (
        f"loopspec: error: {command}: the process exited at start-up, "
        f"before answering its first message (reset) ({script}: no such file relative to the "
        "current directory, "
        f"{tmp_path})"
    )
    assert rest[0] == "exit code: 127"


def test_PROTO_1_a_script_misspelt_is_offered_the_file_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: `--cmd "python3 lop.py"` beside loop.py said only that lop.py is not there."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.py").write_text("", encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} lop.py"
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith(
        f"lop.py: no such file relative to the current directory, {tmp_path})"
        " (did you mean loop.py?)"
    ), first


def test_PROTO_1_a_code_options_value_holding_a_space_is_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: `python3 -c 'x = 1 / 1'` is code, not a file of that name: the loop that
    exits 0 without answering keeps the rule, and the line does not say "x = 1 / 1: no such
    file"."""
    monkeypatch.chdir(tmp_path)
    command = f"{shlex.quote(sys.executable)} -c 'x = 1 / 1'"
    first = _setup_error(command, capsys)
    assert first == (
        f"loopspec: error: [PROTO-1] {command}: the process exited at "
        "start-up, before answering its first message (reset)"
    )


# A shell's command, the program it needs, and what the line says is missing ({cwd}: the test's
# folder): one simple command is read as the command itself; in code, the line of node or python.
SHELL_COMMANDS = [
    (
        "sh",
        "sh -c 'exec {python} loop.py'",
        "loop.py: no such file relative to the current directory, {cwd}",
    ),
    (
        "bash",
        "bash -c 'exec {python} loop.py'",
        "loop.py: no such file relative to the current directory, {cwd}",
    ),
    # The script's words are the plain command's (`node main.mjs`), whatever the code around
    # it: they were "./loops/main.mjs: no such file", with no word of where it was looked for.
    pytest.param(
        (
            "node",
            "sh -c 'cd loops && node main.mjs; true'",
            "loops/main.mjs: no such file relative to the current directory, {cwd}",
        ),
        marks=pytest.mark.needs(Need.NODE),
    ),
    (
        "python3",
        "sh -c 'cd loops && python3 main.py'",
        "loops/main.py: no such file relative to the current directory, {cwd}",
    ),
]


@pytest.mark.parametrize("case", SHELL_COMMANDS)
def test_PROTO_1_a_shell_given_a_command_whose_script_is_not_here_names_it(
    case: tuple[str, str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: `sh -c 'python3 loop.py'` run from another folder than the script's: the
    shell's one simple command is read as the command itself, and the line names the script
    as it does for `python3 loop.py`, where it was "[PROTO-1]", the whole command read as
    code. `sh -c 'cd loops && node main.mjs'` with no loops/main.mjs is code: node's own line
    names the file, which was only in the stderr tail beside "[PROTO-1]", and the line names it
    as it names the plain command's script, from the current directory."""
    needs, command, missing = case
    if shutil.which(needs) is None:
        pytest.skip(f"runs {needs}")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loops").mkdir()
    command = command.format(python=shlex.quote(sys.executable))
    assert _setup_error(command, capsys) == (
        f"loopspec: error: {command}: the process exited at start-up, "
        f"before answering its first message (reset) ({missing.format(cwd=tmp_path)})"
    )


CODE_STDERR = {
    "sh: 1: cd: can't cd to loops": ["loops: no such folder relative to the current directory"],
    "bash: line 1: cd: loops: No such file or directory": [
        "loops: no such folder relative to the current directory"
    ],
    "Error: Cannot find module '/nowhere/main.mjs'": ["/nowhere/main.mjs: no such file"],
    "/usr/bin/python3: can't open file '/nowhere/main.py': [Errno 2] No such file or directory": [
        "/nowhere/main.py: no such file"
    ],
    # An import of the loop's own (its words are the loop's to mend), a require's relative name,
    # a folder that is there (an earlier cd moved away from it): nothing is said.
    "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/nowhere/x.mjs' imported from /a.mjs": [],
    "Error: Cannot find module './x'": [],
    "sh: 1: cd: can't cd to here": [],
}


@pytest.mark.parametrize("stderr", CODE_STDERR)
def test_PROTO_1_a_shell_given_code_is_named_only_what_its_own_lines_say_is_missing(
    stderr: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: in a shell given code, only a shell's failed cd, node's script and python's
    script, in their own words, are named; and only a shell given code is read so (one simple
    command is read as the command itself, `_run_words`)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "here").mkdir()
    said = start_errors.missing_in_shell_code(["sh", "-c", "cd loops && node main.mjs"], stderr)
    assert [words.replace(f", {tmp_path}", "") for words in said] == CODE_STDERR[stderr]
    assert start_errors.missing_in_shell_code(["sh", "-c", "node main.mjs"], stderr) == []


def test_PROTO_1_npx_that_would_install_its_package_is_a_setup_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: `npx tsx main.ts` where tsx is not installed: npx asks before installing it,
    cannot without a terminal and exits 1 (npm's words, from a stand-in for npx). That was
    "[PROTO-1]"; it is a setup error naming the package, and the script missing too."""
    monkeypatch.chdir(tmp_path)
    said = 'npm error npx canceled due to missing packages and no YES option: ["tsx@4.23.15"]'
    npx = _exits_at_once(tmp_path, 1, said)
    first = _setup_error(f"{npx} tsx main.ts", capsys)
    assert first == (
        "loopspec: error: ./wrapper.sh tsx main.ts: npx would "
        "install the "
        "npm package tsx@4.23.15 to run the command, and asks first, which it cannot with no "
        "terminal (npx canceled due to missing packages before its first answer: a setup "
        "problem, not a protocol break); install it in the loop's folder (npm install tsx), or "
        "begin the command with npx --yes, then run this again (main.ts: no such file relative "
        f"to the current directory, {tmp_path})"
    )


def _setup_error(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The first line `conform --cmd command` writes, which exits 2."""
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    return capsys.readouterr().err.splitlines()[0]


def test_PROTO_1_a_loop_module_for_impl_given_as_cmd_is_told_its_impl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: the tutorial's loop, a module defining a class with `reset` and `apply`, run
    as `--cmd "python3 my_loop.py"` (the README's line for "your loop"): it defines the class
    and exits 0 at once, which read "[PROTO-1] ... the process ended its output instead of
    answering reset", with an empty stderr. The line names the --impl to give instead."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_loop.py").write_text(
        "class MyLoop:\n    def reset(self, config): ...\n    def apply(self, command): ...\n",
        encoding="utf-8",
    )
    command = f"{shlex.quote(sys.executable)} my_loop.py"
    assert _setup_error(command, capsys) == (
        f"loopspec: error: {command}: the process exited at start-up, "
        "before answering its first message (reset) (exit status 0: my_loop.py defines MyLoop, "
        "a target for --impl, not a program that answers the driver protocol on its stdin; "
        "give it as --impl my_loop:MyLoop (--loopspec-impl under pytest): a wrong option, not a "
        "protocol break)"
    )


def test_PROTO_1_a_script_too_deep_to_read_for_the_impl_hint_gets_no_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: a script that exits 0 without answering is read for the --impl hint; one whose
    code nests past what Python's AST builder takes (RecursionError, where the compiler that
    ran it took it) gets no hint, where the error ended conform with a traceback."""
    script = tmp_path / "deep.py"
    script.write_text("x = " + "(" * 40 + "1" + ")" * 40 + "\n", encoding="utf-8")

    def too_deep(source: bytes) -> object:
        raise RecursionError("maximum recursion depth exceeded during ast construction")

    # In start_errors' namespace alone: pytest reads its own tracebacks with ast.parse.
    reader = SimpleNamespace(parse=too_deep, ClassDef=ast.ClassDef, FunctionDef=ast.FunctionDef)
    monkeypatch.setattr(start_errors, "ast", reader)
    assert start_errors.impl_module_given_as_command(["python3", str(script)]) is None


def _loop_package(folder: Path, *modules: str) -> None:
    """The package `myloop` in `folder`: its `main.py` imports `tools` from its own package,
    and `modules` are the other files it holds."""
    package = folder / "myloop"
    package.mkdir()
    for name in ("__init__.py", *modules):
        (package / name).write_text("", encoding="utf-8")
    (package / "main.py").write_text("from . import tools\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("script", "told"),
    [
        # Run from the folder above the package, or from the package's own (`cd myloop`).
        pytest.param("myloop/main.py", "{python} -m myloop.main", id="above the package"),
        pytest.param("main.py", "env PYTHONPATH={top} {python} -m myloop.main", id="inside it"),
    ],
)
def test_PROTO_1_a_module_of_a_loop_package_run_as_a_script_is_told_the_command_that_runs_it(
    script: str,
    told: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: `python3 myloop/main.py`, whose `from . import tools` needs the package it is a
    module of, dies on "attempted relative import with no known parent package" before it says
    anything: it was "[PROTO-1] ... the process ended its output", which sent its author to the
    protocol. The line says it is a module of its package and the -m command that runs it."""
    _loop_package(tmp_path, "tools.py")
    monkeypatch.chdir(tmp_path if "/" in script else tmp_path / "myloop")
    python = shlex.quote(sys.executable)
    command = f"{python} {script}"
    assert _setup_error(command, capsys) == (
        f"loopspec: error: {command}: the loop's ./{script} is a "
        "module of the package myloop, run as a script, so its relative import found no package "
        "(attempted relative import with no known parent package before its first answer: a "
        "setup problem, not a protocol break); run it as a module of its package, "
        f"{told.format(python=python, top=tmp_path)}, then run this again"
    )


def test_PROTO_1_a_loop_package_missing_a_module_it_imports_says_which_and_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: `python3 -m myloop.main` whose `from . import tools` finds no tools.py in the
    package (a file not copied along) died before its first answer as "[PROTO-1] ... the process
    ended its output"; the line names the package, what it lacks, the file importing it and
    the folder."""
    _loop_package(tmp_path)
    monkeypatch.chdir(tmp_path)
    command = f"{shlex.quote(sys.executable)} -m myloop.main"
    assert _setup_error(command, capsys) == (
        f"loopspec: error: {command}: the loop's package myloop has "
        "no tools, which its ./myloop/main.py imports: no tools.py nor tools/ in ./myloop, and "
        "no tools in its __init__.py (cannot import name 'tools' from 'myloop' before its first "
        "answer: a file of the loop missing where it ran, a setup problem, not a protocol "
        "break); put the loop's tools.py there (a file not copied or not committed), or correct "
        "the import, then run this again"
    )


def test_PROTO_1_a_loop_that_started_and_misses_its_own_file_stays_PROTO_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: the script is there and dies opening a file it names: the loop started, and
    its death before an answer is its own."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.py").write_text("open('conf/a.json')\n", encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} loop.py --config conf/a.json"
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith(f"loopspec: error: [PROTO-1] {command}: the process exited at ")
    assert first.endswith(
        f"(conf/a.json: no such file relative to the current directory, {tmp_path})"
    )


def test_PROTO_1_a_program_that_quotes_its_missing_argument_otherwise_stays_PROTO_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: `make run` quotes its first word, which names no file, in words of its own ("No
    rule to make target 'run'"): that is no interpreter failing to open its script, and the
    line keeps the rule, without "run: no such file"."""
    monkeypatch.chdir(tmp_path)
    make = _script(
        tmp_path,
        "make",
        "#!/bin/sh\necho \"make: *** No rule to make target '$1'.  Stop.\" >&2\nexit 2\n",
    )
    assert main(["conform", "--cmd", f"{make} run", "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first == (
        "loopspec: error: [PROTO-1] ./make run: the process exited at "
        "start-up, before answering its first message (reset)"
    )


def _python_loop(folder: Path, text: str) -> str:
    """`loop.py` in `folder` (the current directory) holding `text`, and the command running it
    with the python running these tests."""
    (folder / "loop.py").write_text(text, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} loop.py"


NO_MODULE_SETUP = (
    "the Python module frobnicate_sdk is not installed for {python}, the command's python (No "
    "module named 'frobnicate_sdk' before its first answer: a setup problem, not a protocol "
    "break); install it for that python, or give the command the python of a virtual "
    "environment that has it (.venv/bin/python, say), then run this again"
)


@pytest.mark.parametrize(
    "imports",
    [
        pytest.param("import frobnicate_sdk\n", id="ModuleNotFoundError"),
        pytest.param("raise ImportError('No module named frobnicate_sdk')\n", id="ImportError"),
    ],
)
def test_PROTO_1_a_python_loop_missing_a_package_before_its_first_answer_is_a_setup_error(
    imports: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: a Python loop whose dependency is not installed for the python that runs it (a
    virtual environment not activated) dies on its import before it says anything: it never
    started, and "[PROTO-1] ... the process ended its output" sent its author to the protocol.
    The line names the module and the python, as the command gives it."""
    monkeypatch.chdir(tmp_path)
    command = _python_loop(tmp_path, imports)
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    first, *rest = capsys.readouterr().err.splitlines()
    python = shlex.quote(sys.executable)
    assert first == (f"loopspec: error: {command}: " + NO_MODULE_SETUP.format(python=python))
    assert rest[0] == "exit code: 1"
    assert rest[-1].endswith("No module named frobnicate_sdk" if "raise" in imports else "'")


@pytest.mark.parametrize(
    ("folder", "setup"),
    [
        pytest.param("venv/lib/python3/site-packages", True, id="installed package"),
        # The loop's own module lacking a name is the loop's bug.
        pytest.param("src", False, id="own module"),
    ],
)
def test_PROTO_1_a_python_loop_importing_a_name_its_installed_package_lacks_is_a_setup_error(
    folder: str,
    setup: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: `from pydantic import field_validator` where pydantic 1 is installed: the
    package is there in another version than the loop needs, and the loop never started."""
    monkeypatch.chdir(tmp_path)
    package = tmp_path / folder / "frobnicate_sdk"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    command = _python_loop(
        tmp_path, f"import sys\nsys.path.insert(0, {folder!r})\nfrom frobnicate_sdk import tool\n"
    )
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert ("[PROTO-1]" not in first) is setup
    said = (
        f"{command}: the Python package frobnicate_sdk has no tool in the version installed for "
        f"{shlex.quote(sys.executable)}, the command's python (cannot import name 'tool' from "
        "'frobnicate_sdk' before its first answer: another version than the loop needs, a setup "
        "problem, not a protocol break); install the version it needs for that python, or give "
        "the command the python of a virtual environment that has it (.venv/bin/python, say), "
        "then run this again"
    )
    assert first.endswith(said) is setup


@pytest.mark.parametrize(
    ("command", "found"),
    [
        # A package's module run as a script: its folder, not the package's, is on the path.
        pytest.param("{python} src/mypkg/main.py", "./src/mypkg", id="package's script"),
        pytest.param("{python} -m mypkg.main", "./src/mypkg", id="src layout"),
        # Run as a module from above, `import helpers` beside it is not on the path.
        pytest.param("{python} -m src.loop", "./src/helpers.py", id="beside the script"),
    ],
)
def test_PROTO_1_a_python_loop_missing_its_own_module_is_told_where_it_is_not_to_install_it(
    command: str,
    found: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: a Python loop whose own module is not on its import path (a package's module
    run as a script, a `src/` layout, `import helpers` in a loop run with -m) dies on the import
    before it says anything, and was told the module "is not installed" and to install it with
    the python of a virtual environment: no package of that name exists to install. The line
    says where the module is and how to put that folder on the path."""
    monkeypatch.chdir(tmp_path)
    package = tmp_path / "src" / "mypkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "main.py").write_text("import mypkg.tools\n", encoding="utf-8")
    (tmp_path / "src" / "loop.py").write_text("import helpers\n", encoding="utf-8")
    (tmp_path / "src" / "helpers.py").write_text("", encoding="utf-8")
    command = command.format(python=shlex.quote(sys.executable))
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    module, folder = Path(found).stem, found.rpartition("/")[0]
    assert first == (
        f"loopspec: error: {command}: the Python module {module} "
        f"was not found from where the loop ran, though the loop's own {found} is there (No "
        f"module named {module!r} before its first answer: a setup problem, not a protocol "
        "break): python looks in the script's folder (the current directory for python3 -m), "
        f"then PYTHONPATH and the installed packages, not in {folder}; begin the command with "
        f"env PYTHONPATH={folder}, or run a module of a package as python3 -m PACKAGE.MODULE "
        f"from {folder}, then run this again"
    )


def test_PROTO_1_python_given_a_module_that_is_not_installed_is_a_setup_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: `python3 -m frobnicate_sdk.loop` with no such package: the interpreter says so
    on one line, without a traceback."""
    command = f"{shlex.quote(sys.executable)} -m frobnicate_sdk.loop"
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert "[PROTO-1]" not in first
    assert "the Python module frobnicate_sdk is not installed for " in first


def test_PROTO_1_a_python_loop_missing_a_package_after_its_first_answer_stays_PROTO_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a loop that answered reset started; an import failing later (a tool's module
    loaded on first use) is its own death."""
    monkeypatch.chdir(tmp_path)
    ready = json.dumps({"type": "ready", "implementation": "imports late", "capabilities": []})
    command = _python_loop(
        tmp_path,
        f"import sys\nsys.stdin.readline()\nprint({ready!r}, flush=True)\nsys.stdin.readline()\n"
        "import frobnicate_sdk\n",
    )
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    err = capsys.readouterr().err
    assert "[PROTO-1]" in err.splitlines()[0]
    assert SETUP_WORDS not in err


# Node's own words for an import or a require it cannot resolve (v20), written by a stand-in.
NODE_ESM = (
    "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'frobnicate-sdk' imported from "
    "/srv/loop/main.mjs"
)
NODE_CJS = "Error: Cannot find module 'frobnicate-sdk'"
NODE_OWN_FILE = (
    "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/srv/loop/tools.mjs' imported from "
    "/srv/loop/main.mjs"
)
NODE_SETUP = (
    "the Node package frobnicate-sdk is not installed where the loop looks for it (Cannot find "
    "'frobnicate-sdk' before its first answer: a setup problem, not a protocol break); install "
    "the loop's dependencies (npm install in its folder), then run this again"
)


@pytest.mark.parametrize(
    ("said", "setup"),
    [
        pytest.param(NODE_ESM, True, id="import"),
        pytest.param(NODE_CJS, True, id="require"),
        # A file of the loop's own it does not find is the loop's to resolve.
        pytest.param(NODE_OWN_FILE, False, id="own file"),
    ],
)
def test_PROTO_1_a_node_loop_missing_a_package_before_its_first_answer_is_a_setup_error(
    said: str, setup: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a Node loop whose node_modules lack a package (npm install not run) dies on
    its import before its first answer: a setup error naming the package."""
    stderr = f"node:internal/modules/esm/resolve:873\n\n{said}\n    at resolve\n\nNode.js v20"
    command = _exits_at_once(tmp_path, 1, stderr)
    assert main(["conform", "--cmd", command, "--examples", "1"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert ("[PROTO-1]" not in first) is setup
    assert first.endswith(NODE_SETUP) is setup


EXIT_69_SAID = (
    "it cannot run on this machine (exit status 69 before its first answer: a setup problem, "
    "not a protocol break); install what its stderr names, then run this again"
)


@pytest.mark.parametrize(
    ("reads_first", "timeout"),
    [
        # It exits before loopspec writes reset: the write fails ("stopped reading its input").
        pytest.param(False, "10", id="input closed"),
        # It reads reset and exits, a child it started holding its output open: its end is seen
        # only a moment after its exit, and the answer timeout, shorter, struck first ("the
        # process exited instead of answering reset").
        pytest.param(True, "0.25", id="timeout striking"),
    ],
)
def test_PROTO_1_exit_69_wins_however_the_wire_saw_the_target_end(
    reads_first: bool, timeout: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a target that exited 69 before its first answer cannot run here, whatever
    loopspec was doing as it exited; both ways were reported as "[PROTO-1]"."""
    read = "read line; " if reads_first else ""
    # The child holds stdout only: stderr ends with the exit, and its tail is read at once.
    script = f"{read}sleep 30 2>/dev/null & echo frobnicator is not installed >&2; exit 69"
    command = f"sh -c {shlex.quote(script)}"
    assert main(["conform", "--cmd", command, "--answer-timeout", timeout, "--examples", "1"]) == 2
    err = capsys.readouterr().err
    first, *rest = err.splitlines()
    assert "[PROTO-1]" not in err
    assert first.endswith(EXIT_69_SAID)
    assert "stderr (tail): frobnicator is not installed" in rest


def _case(folder: Path) -> Path:
    """A case found on some loop, written where the replayer works."""
    found = json.loads((ROOT / "tests/regressions/claude-code-ABORT-1.json").read_text("utf-8"))
    del found["profile"]
    found["target"] = {"cmd": "node loop.mjs"}
    case = folder / "case.json"
    case.write_text(json.dumps(found), encoding="utf-8")
    return case


def test_PROTO_1_replay_with_a_program_that_cannot_start_is_a_setup_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: `replay --cmd` says what conform says of a program that cannot start."""
    assert main(["replay", str(_case(tmp_path)), "--cmd", MISSING]) == 2
    err = capsys.readouterr().err
    assert "[PROTO-1]" not in err
    assert f"case.json: {MISSING}: cannot start: " in err
    assert err.rstrip().endswith(": no such file or directory")


def _plugin_run(pytester: pytest.Pytester, command: str) -> pytest.RunResult:
    """pytest with the plugin aimed at `--loopspec-cmd=command`, in this process (a program that
    cannot start costs no process), one example drawn."""
    (pytester.path / "conftest.py").write_text(
        "from hypothesis import settings\n"
        "settings.register_profile('users-ci', max_examples=1, database=None)\n"
        "settings.load_profile('users-ci')\n",
        encoding="utf-8",
    )
    profile = settings.get_current_profile_name()
    try:
        return pytester.runpytest_inprocess(
            "-p", "no:cacheprovider", "-q", f"--loopspec-cmd={command}"
        )
    finally:
        settings.load_profile(profile)


@pytest.mark.parametrize(
    ("made", "says"),
    [
        (lambda folder: MISSING, f"{MISSING}: cannot start: no such file or directory"),
        (
            _not_executable,
            "./loop.sh: cannot start: permission denied (the file is not executable: ",
        ),
        (_directory, "loop: cannot start: it is a directory, "),
        (
            _missing_on_path,
            "cannot start loopspec-no-such-program-anywhere: no such file or directory (no "
            "program of that name in the folders of PATH)",
        ),
    ],
    ids=["missing file", "no execute bit", "directory", "missing program"],
)
def test_PROTO_1_the_pytest_plugin_stops_at_once_on_a_program_that_cannot_start(
    made: Callable[[Path], str], says: str, pytester: pytest.Pytester
) -> None:
    """PROTO-1: `pytest --loopspec-cmd=...` naming a program that is not there failed the
    random suite's test and each saved case's with the same line, and with [PROTO-1]: pytest
    stops before it collects anything (a usage error), with one line naming no rule."""
    command = made(pytester.path)
    done = _plugin_run(pytester, command)
    err = done.stderr.str()
    assert done.ret == pytest.ExitCode.USAGE_ERROR, done.stdout.str() + err
    assert err.startswith(f"ERROR: loopspec: {command}: cannot start"), err
    assert says in err
    assert "[PROTO-1]" not in err


def test_PROTO_1_the_pytest_plugin_names_no_rule_for_an_interpreter_found_missing_at_start(
    pytester: pytest.Pytester,
) -> None:
    """PROTO-1: a script whose `#!` interpreter is missing is found only by starting it, which
    the plugin does when pytest starts: pytest stops there (it failed the first test), saying
    why, without a rule tag."""
    command = _missing_interpreter(pytester.path)
    done = _plugin_run(pytester, command)
    out, err = done.stdout.str(), done.stderr.str()
    assert done.ret == pytest.ExitCode.USAGE_ERROR, out + err
    assert err.startswith("ERROR: loopspec: ./loop.sh: cannot start: "), err
    assert "[PROTO-1]" not in err
    assert "Traceback" not in out + err


def test_PROTO_1_npx_words_name_a_scoped_package_to_install_without_its_version() -> None:
    """PROTO-1: npm's spec of a scoped package, `@scope/name@1.2.3`, is installed by its
    name, `@scope/name`, not `@scope/name@1.2.3`'s cut at its first `@`."""
    said = 'npm error npx canceled due to missing packages and no YES option: ["@acme/run@1.2.3"]'
    words = start_errors.module_missing(["npx", "@acme/run"], said)
    assert words is not None
    assert "(npm install @acme/run)" in words


def _npm_404(package: str, line: str) -> tuple[str, str, str]:
    said = f"npm error code E404\nnpm error 404 Not Found - GET https://x/y\n{line}"
    words = (
        f"found no npm package {package} in the registry (404 before its first answer: a setup "
        "problem, not a protocol break); correct the package's name (a private one needs npm "
        "login), or install the loop's dependencies (npm install in its folder), then run this "
        "again"
    )
    return package, said, words


def _npm_offline(package: str, url: str, code: str, host: str) -> tuple[str, str, str]:
    network = "network " if code == "ENOTFOUND" else ""
    said = (
        f"npm error code {code}\nnpm error syscall getaddrinfo\nnpm error errno {code}\n"
        f"npm error {network}request to {url} failed, reason: getaddrinfo {code} {host}\n"
        "npm error network This is a problem related to network connectivity."
    )
    words = (
        f"could not reach the npm registry, {host}, to fetch the npm package {package} "
        f"(getaddrinfo {code} before its first answer: no network, or no name server knows the "
        "host; a setup problem, not a protocol break); install it in the loop's folder where "
        f"the registry can be reached (npm install {package}), or mend the network or npm's "
        "registry setting, then run this again"
    )
    return package, said, words


# npm's words (npm 11.19.1, seen 2026-12-05) for a package the registry lacks, and for one it
# could not fetch with no network (`unshare -n`) or from a host no name server knows.
NPM_FAILS = [
    _npm_404("tsxx", "npm error 404  'tsxx@*' is not in this registry."),
    _npm_404(
        "@acme/run",
        "npm error 404  The requested resource '@acme/run@*' could not be found or you do not "
        "have permission to access it.",
    ),
    _npm_offline("tsx", "https://registry.npmjs.org/tsx", "EAI_AGAIN", "registry.npmjs.org"),
    _npm_offline("@acme/run", "http://nowhere.invalid/@acme%2frun", "ENOTFOUND", "nowhere.invalid"),
]


@pytest.mark.parametrize("case", NPM_FAILS)
def test_PROTO_1_npx_given_a_package_the_registry_lacks_is_a_setup_error_naming_it(
    case: tuple[str, str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: `npx tsxx main.ts`, the package's name misspelt (or a private one without npm
    login): npm's 404 (from a stand-in for npx) was "[PROTO-1]", and a scoped name,
    `@acme/run`, was named a missing file; so was `npx tsx main.ts` with no network, npm's
    getaddrinfo failure. Each is a setup error naming the package (and the registry's host it
    could not reach), and the script missing too."""
    package, said, words = case
    monkeypatch.chdir(tmp_path)
    npx = _exits_at_once(tmp_path, 1, said)
    first = _setup_error(f"{npx} {package} main.ts", capsys)
    assert first == (
        f"loopspec: error: ./wrapper.sh {package} main.ts: npx "
        f"{words} (main.ts: no such file relative to the current directory, {tmp_path})"
    )


def test_PROTO_1_npx_silent_past_the_answer_timeout_is_told_why_it_may_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: offline, npx writes nothing for about 70 s while npm retries the registry, so
    conform's 10 s wait for reset ended with an empty stderr and no word of npx (a silent
    stand-in for npx here). The line says what npx does then; not for another program, nor for
    an npx that wrote something."""
    (tmp_path / "npx").write_text("#!/bin/sh\nexec sleep 5\n", encoding="utf-8")
    (tmp_path / "npx").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    code = main(["conform", "--cmd", "npx tsx main.ts", "--answer-timeout", "0.3"])
    first = capsys.readouterr().err.splitlines()[0]
    assert code == 2
    assert first.endswith(start_errors.npx_silent_hint(["npx"], "")), first
    assert "--answer-timeout 90" in first
    assert start_errors.npx_silent_hint(["sh", "-c", "exec npx tsx main.ts"], "\n") != ""
    assert start_errors.npx_silent_hint(["node", "main.mjs"], "") == ""
    assert start_errors.npx_silent_hint(["npx", "tsx", "main.ts"], "listening\n") == ""
