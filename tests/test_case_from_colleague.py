"""Ana replays a case Bo sent her: his `rerun:` line, pasted into the chat with the file, names
the case from his folder and hides his token as `<hidden>`.

(tests/test_case_from_chat.py covers what the chat did to the file itself.)
"""

from __future__ import annotations

import io
import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from test_case_from_chat import BO_S_CASE

from loopspec.properties.cli.main import main
from loopspec.properties.conformance.case_portable import portable
from loopspec.properties.conformance.run import PYTEST_OPTIONS, TargetError, resolve_target
from loopspec.properties.pytest_plugin import _saved_cases, case_folder

NAMED_ELSEWHERE = (
    " (a `rerun:` line names the case from the folder conform ran in: run it there, or name "
    "the file where you saved it)"
)
PUT_IT_BACK = (
    "holds <hidden>, which a case and a rerun line write in place of a secret's value: put the "
    "secret back (or leave out the word, if the loop runs without it)"
)


@pytest.fixture
def ana(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Ana's folder, the working directory, with Bo's case saved in her downloads."""
    downloads = tmp_path / "ana" / "Downloads"
    downloads.mkdir(parents=True)
    (downloads / "case-EXE-5-0.json").write_text(BO_S_CASE, encoding="utf-8")
    work = tmp_path / "ana" / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def test_SAFE_1_bo_s_rerun_line_pasted_in_another_folder_says_where_the_case_is_named_from(
    ana: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: Bo's `rerun:` line, `loopspec replay loopspec-cases/case-EXE-5-0.json ...`,
    names the case from the folder he ran conform in; pasted by Ana, replay said only "no such
    file or directory", and she looked for a typo. It says what the path is from."""
    pasted = "loopspec-cases/case-EXE-5-0.json"
    assert main(["replay", pasted]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: {pasted}: cannot read the case file: no such file or directory"
        f"{NAMED_ELSEWHERE}\n"
    )
    # With another case named too (replay's folder form), the same.
    saved = str(ana.parent / "Downloads" / "case-EXE-5-0.json")
    assert main(["replay", saved, pasted]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: {pasted}: no such case file or directory{NAMED_ELSEWHERE}\n"
    )
    # A path from the root is no rerun line's: a typo there is only a typo.
    missing = str(ana / "nowhere.json")
    assert main(["replay", missing]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: {missing}: cannot read the case file: no such file or directory\n"
    )
    # Named where she saved it, it replays.
    assert main(["replay", saved]) == 0


@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        ("../Downloads/case-EXE-5-0", "did you mean ../Downloads/case-EXE-5-0.json?"),
        # Copied from Markdown, or with the sentence's comma.
        ("`../Downloads/case-EXE-5-0.json`", "did you mean ../Downloads/case-EXE-5-0.json?"),
        ("../Downloads/case-EXE-5-0.json,", "did you mean ../Downloads/case-EXE-5-0.json?"),
        # The summary's command pasted whole, its placeholder with it.
        ("CASE", "CASE, in a case's summary, stands for the case file: name the file"),
    ],
    ids=["no-ending", "backquoted", "with-comma", "summary-placeholder"],
)
def test_PROTO_1_a_case_named_without_its_json_ending_is_named_with_it(
    ana: Path, capsys: pytest.CaptureFixture[str], typed: str, hint: str
) -> None:
    """PROTO-1: Ana names Bo's case without its `.json` (as a file manager shows the name):
    replay said a `rerun:` line names the case from another folder, which sent her elsewhere;
    it names the file she meant. So with the path copied from prose (in backquotes, or with
    a comma), and the summary's `loopspec replay CASE ...` pasted with CASE in it."""
    assert main(["replay", typed]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: {typed}: cannot read the case file: no such file or directory ({hint})\n"
    )


def test_SAFE_1_a_cmd_holding_a_hidden_secret_is_not_run(
    ana: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: a case and a rerun line write a secret's value as `<hidden>`. Pasted as it
    stands, `--cmd 'env API_TOKEN=<hidden> ...'` ran the loop with the word `<hidden>` for its
    token, the header called it "the one replayed", and a loop that tolerates a bad token
    replayed without a divergence: nothing said the secret was missing. Such a command is
    refused, for replay, conform and the pytest plugin, before anything starts."""
    started = ana / "started"
    body = f"open({str(started)!r}, 'w')"
    loop = f"{shlex.quote(sys.executable)} -c {shlex.quote(body)}"
    pasted = f"env API_TOKEN=<hidden> {loop}"
    saved = str(ana.parent / "Downloads" / "case-EXE-5-0.json")
    assert main(["replay", saved, "--cmd", pasted]) == 2
    assert capsys.readouterr() == ("", f"loopspec: error: --cmd {PUT_IT_BACK}\n")
    assert main(["conform", "--cmd", pasted, "--examples", "1"]) == 2
    assert capsys.readouterr().err == f"loopspec: error: --cmd {PUT_IT_BACK}\n"
    with pytest.raises(TargetError) as refused:
        resolve_target(None, pasted, PYTEST_OPTIONS)
    assert str(refused.value) == f"--loopspec-cmd {PUT_IT_BACK}"
    assert not started.exists()
    assert not (ana / "loopspec-cases").exists()


# A driver-protocol process that answers `reset` and ends at the first command: conform saves
# the program it broke on as a case.
_BREAKS_AT_ONCE = """
import json, sys
for line in sys.stdin:
    if json.loads(line)["type"] != "reset":
        sys.exit(3)
    print(json.dumps({"type": "ready", "implementation": "breaks", "capabilities": []}), flush=True)
"""


def test_PROTO_1_a_case_path_typed_with_a_tilde_after_the_equals_sign_is_from_home(
    ana: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a shell expands `~` only at a word's start, so `--loopspec-cases=~/Downloads/
    case.json` reached the pytest plugin as typed and stopped it ("no such file or
    directory"), and `conform --case-dir=~/cases` saved its case in a folder named `~` in the
    current one. Both name the home folder's."""
    monkeypatch.setenv("HOME", str(ana.parent))
    options: dict[str, object] = {
        "--loopspec-cases": ["~/Downloads/case-EXE-5-0.json"],
        "--loopspec-case-dir": None,
    }
    config = SimpleNamespace(getoption=options.get, rootpath=ana, stash=pytest.Stash())
    saved = ana.parent / "Downloads" / "case-EXE-5-0.json"
    assert _saved_cases(cast("pytest.Config", config)) == [saved]
    (ana / "loop.py").write_text(_BREAKS_AT_ONCE, encoding="utf-8")
    cmd = f"{shlex.quote(sys.executable)} loop.py"
    assert main(["conform", "--cmd", cmd, "--case-dir=~/cases", "--examples", "1"]) == 2
    assert f"rerun it: loopspec replay {ana.parent}/cases/case-PROTO-1-0.json" in (
        capsys.readouterr().err
    )
    assert (ana.parent / "cases" / "case-PROTO-1-0.json").is_file()
    assert not (ana / "~").exists()
    # The plugin saves there too.
    options["--loopspec-case-dir"] = "~/cases"
    assert case_folder(cast("pytest.Config", config)) == ana.parent / "cases"


def test_SAFE_1_a_path_typed_through_a_symbolic_link_is_written_from_home_or_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAFE-1: Bo's home is behind a symbolic link (HOME=/home/bo, /home -> /usr/home, as an
    automounted share is). A path typed the resolved way (`realpath`, a tool's output) was
    recorded whole, his user name in it, and one typed through the link into the folder
    conform ran in was written `~/proj/...`, not `./...`: the working folder was known only
    resolved, and the shell's $PWD, which keeps the link, was not read."""
    (tmp_path / "usr-home" / "bo" / "proj").mkdir(parents=True)
    (tmp_path / "home").symlink_to(tmp_path / "usr-home")
    home = tmp_path / "home" / "bo"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home / "proj")
    monkeypatch.setenv("PWD", str(home / "proj"))
    resolved = tmp_path / "usr-home" / "bo"
    assert portable(f"node {resolved}/loop/main.mjs") == "node ~/loop/main.mjs"
    assert portable(f"node {home}/proj/main.mjs --log {home}/logs") == (
        "node ./main.mjs --log ~/logs"
    )
    # A $PWD that is not the working folder (left by a parent that changed folders) is not
    # taken for it: the path is written from home.
    monkeypatch.setenv("PWD", str(home))
    assert portable(f"node {home}/proj/main.mjs") == "node ~/proj/main.mjs"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_PROTO_1_a_case_copied_from_a_chat_replays_from_standard_input(
    ana: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: `loopspec check -` reads a log from standard input, but `replay -` read a file
    named `-` ("no such file or directory"), so a case copied from a chat had to be saved
    first. `-` reads it from standard input, and the report names it `-`, as check's does (it
    said /dev/stdin); from a terminal it says to pipe it in, and `--reduce`, which saves beside
    the case file, refuses it."""
    bo_s = (ana.parent / "Downloads" / "case-EXE-5-0.json").read_text(encoding="utf-8")

    def replay(*argv: str, text: str | None = bo_s) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "loopspec", "replay", *argv],
            input=text,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
            timeout=60,
        )

    pasted = replay("-")
    assert pasted.returncode == 0, pasted.stderr
    assert pasted.stdout.splitlines()[-1] == (
        "-: 2 commands replayed, no divergence: passes now (the case recorded EXE-5)"
    )
    curled = replay("-", text=bo_s.replace('"rule":', "\u201crule\u201d:"))
    assert curled.returncode == 2
    assert curled.stderr.startswith(
        "loopspec: error: -:4: the case file is not JSON: \u201c (U+201C"
    )
    reduced = replay("-", "--reduce")
    assert (reduced.returncode, reduced.stderr) == (
        2,
        "loopspec: error: --reduce saves the cut-down case beside the case file: name a "
        "file, not standard input\n",
    )
    assert list(ana.iterdir()) == []
    # Nor beside a pipe (`<(gunzip -c case.json.gz)`) or a device: it replayed and cut the case,
    # then said it "was not saved in /dev/fd". Refused first (a FIFO here would block the test).
    assert main(["replay", os.devnull, "--reduce"]) == 2
    assert capsys.readouterr().err == (
        "loopspec: error: --reduce saves the cut-down case beside the case file: "
        f"{os.devnull} is a character device, not a file in a folder: save the case in a file "
        "and name that\n"
    )
    # Typed at a terminal, the case would wait for an end of file few know to type.
    monkeypatch.setattr(sys, "stdin", _Terminal())
    assert main(["replay", "-"]) == 2
    assert capsys.readouterr().err == (
        "loopspec: error: -: standard input is a terminal: pipe the case in "
        "(pbpaste | loopspec replay - ...), or name its file\n"
    )


@pytest.mark.parametrize("name", ["-", "/dev/fd/0"])
def test_PROTO_1_a_case_replays_from_standard_input_that_is_a_socket(ana: Path, name: str) -> None:
    """PROTO-1: a tool written for Node runs replay with a socket pair for its standard input
    (Node's pipes are sockets), which /dev/stdin names but cannot open: `replay -` refused it
    as 'a socket, not a file' (SAFE-4); it reads it as it reads a pipe, also named /dev/fd/0."""
    bo_s = (ana.parent / "Downloads" / "case-EXE-5-0.json").read_bytes()
    ours, theirs = socket.socketpair()
    with ours, theirs:
        replay = subprocess.Popen(
            [sys.executable, "-m", "loopspec", "replay", name],
            stdin=theirs.fileno(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        ours.sendall(bo_s)
        ours.shutdown(socket.SHUT_WR)
        out, err = replay.communicate(timeout=60)
    assert replay.returncode == 0, err.decode()
    assert out.decode().splitlines()[-1] == (
        f"{name}: 2 commands replayed, no divergence: passes now (the case recorded EXE-5)"
    )


def test_PROTO_1_a_rerun_line_whose_quotes_a_chat_curled_says_so(
    ana: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: Bo's rerun line came through the chat as `--cmd \u2018node ~/loop/main.mjs\u2019`:
    the shell takes a typographic quote for a letter, so --cmd got `\u2018node` and argparse
    said only "unrecognized arguments: ~/loop/main.mjs\u2019". It says the quotes are the
    fault."""
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as done:
        main(["replay", "bo.json", "--cmd", "\u2018node", "~/loop/main.mjs\u2019"])
    assert done.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "loopspec: error: unrecognized arguments: ~/loop/main.mjs\u2019 (the quotes "
        "\u2018\u2019 are typographic, letters to the shell, not quotes: the line was copied "
        "from a chat or a document; type them as ' or \")"
    )
