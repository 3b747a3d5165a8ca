"""The command lines README.md and the pages of docs/ show stay true to the tool.

Every `loopspec` line of their `sh` blocks parses with the verb's own options, every `make`
target exists, every `--loopspec-*` option is the pytest plugin's, every path into this
repository names a file that is there, and the lines that run offline in a moment (a rule, the
schema, a shipped case replayed on the bundled loop) run, here, in-process, and exit 0. The
docs' longer runs (conform, demo, the real CLIs) are other tests' (test_tutorial.py,
test_demo.py, test_real_harnesses.py).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import node_requirements
import pytest
from node_requirements import (
    HARNESS_NEEDS,
    Need,
    harness_need,
    need_skipped,
    skipped_summary,
    unavailable,
)

from loopspec.properties.cli.main import build_parser, main
from loopspec.properties.harnesses.session import BINARIES

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
TUTORIAL = ROOT / "docs" / "tutorial.md"
# README's reference material lives in docs/: every page's commands are held to the tool.
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
REPO_FOLDERS = {"examples", "tests", "benchmarks", "properties", "docs", "model", "impl"}
LOOPSPEC = {"loopspec", ".venv/bin/loopspec"}
# Verbs quick and offline enough to run for real; the others are only parsed.
RUN_VERBS = {"spec", "schema", "replay"}


def _command_lines(doc: Path) -> list[tuple[int, list[str]]]:
    """Each command line of the doc's `sh` blocks, with its line number, as argv: continued
    lines joined, comments, `[` `]` of optional parts, `...`, leading VAR=value settings and
    a `>` redirection left out."""
    lines: list[tuple[int, list[str]]] = []
    inside = False
    pending = ""
    start = 0
    for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            inside = line == "```sh"
            continue
        if not inside:
            continue
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        words = shlex.split(pending + line, comments=True)
        pending = ""
        words = [w for w in (w.strip("[]") for w in words) if w not in ("...", "")]
        while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
            words = words[1:]
        if ">" in words:
            words = words[: words.index(">")]
        if words:
            lines.append((start, words))
    return lines


def _repo_paths(words: list[str]) -> list[str]:
    """The words (and the words of a quoted `--cmd`) that are paths into this repository."""
    found = []
    for word in words:
        for part in shlex.split(word.split("=", 1)[-1]):
            if part.split("/", 1)[0] in REPO_FOLDERS and "/" in part and "<" not in part:
                found.append(part)
    return found


def _cases() -> list[tuple[str, list[str]]]:
    return [
        (f"{doc.relative_to(ROOT)}:{number}", words)
        for doc in DOCS
        for number, words in _command_lines(doc)
    ]


def test_MODEL_1_the_docs_show_command_lines_of_every_kind_this_test_reads() -> None:
    """MODEL-1: the extraction finds the docs' lines (a change of fence or layout that hid
    them would leave the tests below checking nothing)."""
    kinds = {words[0] for _, words in _cases()}
    assert {"make", "pytest", ".venv/bin/loopspec", "loopspec", "cd"} <= kinds
    assert sum(words[0] in LOOPSPEC for _, words in _cases()) >= 15


@pytest.mark.parametrize(("where", "words"), _cases(), ids=[where for where, _ in _cases()])
def test_MODEL_1_a_command_line_the_docs_show_is_one_the_tool_takes(
    where: str, words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """MODEL-1: a `loopspec` line parses with its verb's options, a `make` target exists, a
    pytest `--loopspec-*` option is the plugin's, and a path into the repository is there."""
    for path in _repo_paths(words):
        assert (ROOT / path).exists(), f"{where}: {path} is not in the repository"
    program, arguments = words[0], words[1:]
    if program in LOOPSPEC:
        verb = next((a for a in arguments if not a.startswith("-")), None)
        parsed: object = 0
        try:
            build_parser("*").parse_args(arguments)
        except SystemExit as stopped:  # --help exits 0; a usage error 2
            parsed = stopped.code
        assert parsed == 0, f"{where}: {shlex.join(words)}\n{capsys.readouterr().err}"
        # The tutorial's replays name cases its reader's runs write: those are parsed only.
        if (
            verb in RUN_VERBS
            and not where.startswith(str(TUTORIAL.relative_to(ROOT)))
            and not any("<" in a for a in arguments)
        ):
            with pytest.MonkeyPatch.context() as patched:
                patched.chdir(ROOT)
                status = main(arguments)
            assert status == 0, f"{where}: {shlex.join(words)}\n{capsys.readouterr()}"
    elif program == "make":
        makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
        for target in arguments:
            assert re.search(rf"^{re.escape(target)}:", makefile, re.M), f"{where}: make {target}"
    elif program == "pytest":
        plugin = (ROOT / "properties" / "pytest_plugin.py").read_text(encoding="utf-8")
        for option in (a.split("=", 1)[0] for a in arguments if a.startswith("--loopspec")):
            assert f'"{option}"' in plugin, f"{where}: pytest {option} is not the plugin's"


def test_MODEL_1_every_option_of_every_verb_is_named_in_the_docs() -> None:
    """MODEL-1: each verb's long options (`loopspec VERB --help`) are named in README.md or a
    page of docs/, its short form counting for it: check's `--max-violations`, which lists a
    log's first 1,000 violations and counts the rest, was in no page, and a reader of a long
    report met `raise --max-violations to see them` unexplained."""
    import argparse  # noqa: PLC0415 (only this test walks the parser's actions)

    text = " ".join(doc.read_text(encoding="utf-8") for doc in DOCS)
    parser = build_parser("*")
    (verbs,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    unnamed = [
        f"{verb} {option}"
        for verb, verb_parser in verbs.choices.items()
        for action in verb_parser._actions
        if "--help" not in action.option_strings
        and not any(
            re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)
            for name in action.option_strings
        )
        for option in action.option_strings[-1:]
    ]
    assert len(verbs.choices) >= 7
    assert unnamed == []


def test_MODEL_1_every_benchmark_is_named_in_the_development_docs() -> None:
    """MODEL-1: docs/development.md names every script under benchmarks/ (the README named five
    of nine: bench_impl, bench_suite_cpu, callgrind and crosshair_mutants were found only by
    listing the folder)."""
    page = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    scripts = sorted(path.name for path in (ROOT / "benchmarks").glob("*.py"))
    assert scripts, "no benchmark script found"
    assert [name for name in scripts if f"`{name}`" not in page] == []


def _pinned_node_floors() -> dict[str, int]:
    """The major Node version each harness CLI `make harnesses` pins declares it needs (its
    lockfile's `engines.node`, ">=N..."), by package name."""
    floors = {}
    for manifest in sorted((ROOT / "examples").glob("*-adapter/package.json")):
        lock = json.loads((manifest.parent / "package-lock.json").read_text(encoding="utf-8"))
        for name in json.loads(manifest.read_text(encoding="utf-8")).get("dependencies", {}):
            engines = lock["packages"][f"node_modules/{name}"].get("engines", {})
            found = re.match(r">=\s*(\d+)", engines.get("node", ""))
            if found is not None:
                floors[name] = int(found.group(1))
    return floors


def test_MODEL_1_the_readme_says_which_node_the_pinned_clis_declare() -> None:
    """MODEL-1: README's setup paragraph names the Node version the suite is tested on, and
    every higher one a pinned CLI declares with the EBADENGINE warning npm ci gives for it: the
    README said `make test` needs Node 20 while the pinned Claude Code declares Node 22, and
    a newcomer on Node 20 met npm's warning unexplained."""
    readme = README.read_text(encoding="utf-8")
    setup = " ".join(
        readme[readme.index("Each creates or updates `.venv`") :].split("\n\n")[0].split()
    )
    tested = re.search(r"the suite is tested on Node (\d+)\)", setup)
    assert tested is not None, setup
    floors = _pinned_node_floors()
    assert "@anthropic-ai/claude-code" in floors, floors
    above = {name: floor for name, floor in floors.items() if floor > int(tested.group(1))}
    unsaid = [
        name for name, floor in above.items() if f"declares Node {floor} or later" not in setup
    ]
    assert unsaid == [], setup
    assert not above or "`EBADENGINE`" in setup


def _programs(folder: Path, *names: str) -> str:
    """A PATH of one folder holding stand-ins for `names` (never run: only looked up)."""
    folder.mkdir()
    for name in names:
        (folder / name).write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
        (folder / name).chmod(0o755)
    return str(folder)


@pytest.mark.parametrize(
    "need", [n for n in Need if n is not Need.ITS_HARNESS], ids=lambda n: n.name.lower()
)
def test_MODEL_1_make_test_without_node_skips_what_needs_it_saying_why(
    need: Need, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MODEL-1: README's `make test` on a machine with python3 alone: a test needing node or
    npm is skipped with a reason naming what is missing and how to get it; with both on PATH it
    runs (a failed install then fails it); a real CLI already installed runs without them. The
    run's last lines say how many were skipped and what they would have checked."""
    monkeypatch.setattr(node_requirements, "_node_version", lambda node: "v20.19.0")
    without = _programs(tmp_path / "without", "python3", "make", "git")
    reason = unavailable(need, path=without, adapter_dir=tmp_path)
    assert reason is not None
    assert need_skipped(reason) is need  # the run's summary counts it under its need
    missing = "`node` is" if need is Need.NODE else "`node` and `npm` are"
    assert reason.startswith(f"{missing} not on PATH, so {need.value} "), reason
    assert "install Node.js 20 or later with npm (https://nodejs.org)" in reason
    assert ("make harnesses" in reason) is (need in (Need.CLAUDE_CODE, Need.CODEX))
    both = _programs(tmp_path / "with", "node", "npm")
    assert unavailable(need, path=both, adapter_dir=tmp_path) is None
    if need in (Need.CLAUDE_CODE, Need.CODEX):
        harness = next(h for h, n in HARNESS_NEEDS.items() if n is need)
        assert harness_need(harness.value) is harness_need(harness) is need
        (tmp_path / BINARIES[harness]).parent.mkdir(parents=True)
        (tmp_path / BINARIES[harness]).touch()
        assert unavailable(need, path=without, adapter_dir=tmp_path) is None
    if need is Need.DSH:
        monkeypatch.setattr(node_requirements, "_node_version", lambda node: "v18.20.0")
        old = unavailable(need, path=both)
        assert old is not None
        assert "needs Node.js 20 or later" in old
        assert "v18.20.0" in old
        assert need_skipped(old) is need
    summary = skipped_summary({Need.CODEX: 7, Need.NODE: 3}, path=without)
    assert summary == [
        "10 tests were SKIPPED for want of Node.js/npm (`node` and `npm` are not on PATH): "
        "this run is NOT full coverage. Not checked here:",
        f"     3  {Need.NODE.value}",
        f"     7  {Need.CODEX.value}",
        f"To run them: {node_requirements.GET_NODE}, then make test.",
    ]
    assert skipped_summary({}, path=without) == []


def _prose_paths(text: str) -> list[str]:
    """The paths into this repository the prose names: each word of a `code span` whose first
    folder is one of the repository's (quotes and punctuation around it left out)."""
    found = []
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # the blocks are the above's
    for span in re.findall(r"`([^`]+)`", prose):
        for word in span.split():
            part = word.strip("\"'(),;:")
            if (
                "/" in part
                and part.split("/", 1)[0] in REPO_FOLDERS
                and not any(mark in part for mark in "<*{")
            ):
                found.append(part)
    return found


@pytest.mark.parametrize("doc", DOCS, ids=[str(doc.relative_to(ROOT)) for doc in DOCS])
def test_MODEL_1_every_file_module_and_link_the_docs_prose_names_is_there(doc: Path) -> None:
    """MODEL-1: outside the `sh` blocks the test above reads, the pages send a reader to files
    (`properties/logcheck/checker.py`), to modules (`python -m pydoc loopspec....`) and to other
    pages by link: each must still be there, or a moved module leaves a page pointing nowhere."""
    import importlib  # noqa: PLC0415 (only this test imports the modules the pages name)

    text = doc.read_text(encoding="utf-8")
    missing = [path for path in _prose_paths(text) if not (ROOT / path).exists()]
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not target.startswith(("http://", "https://")) and not (doc.parent / target).exists():
            missing.append(target)
    for module in re.findall(r"python\s+-m\s+pydoc\s+(loopspec[\w.]*\w)", text):
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module)
    assert missing == [], f"{doc.relative_to(ROOT)} names what is not there: {missing}"
    if doc == README:
        assert len(_prose_paths(text)) >= 10  # the extraction still finds the README's paths


@pytest.mark.parametrize("node", [True, False], ids=["node-here", "no-node"])
def test_PROTO_1_the_dsh_adapter_without_its_packages_says_to_run_npm_ci(
    tmp_path: Path, node: bool
) -> None:
    """README's `conform --cmd examples/dsh-adapter/run.sh` in a fresh clone, before `npm ci`
    there: the adapter says in one line what to run (conform shows it as the stderr tail) where
    node printed a 30-line ERR_MODULE_NOT_FOUND stack, and README says to install first; on a
    machine without node, it says to install Node.js first. It exits 69 (EX_UNAVAILABLE),
    which conform reports as a setup error naming no rule. PATH holds a stand-in `node`, or
    none, whatever this machine has (the script only asks whether one is there)."""
    adapter = tmp_path / "dsh-adapter"
    shutil.copytree(
        ROOT / "examples" / "dsh-adapter", adapter, ignore=shutil.ignore_patterns("node_modules")
    )
    programs = tmp_path / "bin"
    programs.mkdir()
    dirname = shutil.which("dirname")
    assert dirname is not None
    (programs / "dirname").symlink_to(dirname)
    if node:
        (programs / "node").write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
        (programs / "node").chmod(0o755)
    done = subprocess.run(
        ["/bin/sh", str(adapter / "run.sh")],
        input="",
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={"PATH": str(programs)},
    )
    assert done.returncode == 69
    assert done.stdout == ""
    install = f"run npm ci in {adapter.resolve()}"
    assert done.stderr == (
        f"dsh-adapter: the pinned dsh packages are not installed: {install}\n"
        if node
        else f"dsh-adapter: node is not installed: install Node.js 20 or later, then {install}\n"
    )
    readme = README.read_text(encoding="utf-8")
    assert "(after npm ci in examples/dsh-adapter)" in readme


def test_MODEL_1_harnesses_md_says_what_each_label_of_run_harness_divergences_means() -> None:
    """MODEL-1: `run --harness` ends each divergence line with whether the CLI is known to
    break that rule; docs/harnesses.md names every such label (a newcomer met `(known bug)`
    and an exit 1 on a run of known divergences only, which no page explained)."""
    from loopspec.properties.harnesses.profiles import Kind  # noqa: PLC0415

    page = " ".join((ROOT / "docs" / "harnesses.md").read_text(encoding="utf-8").split())
    report = (ROOT / "properties" / "harnesses" / "report.py").read_text(encoding="utf-8")
    labels = [f"(known {kind.value})" for kind in Kind]
    assert 'f" (known {entry.kind.value})"' in report
    assert '" (NOT a known divergence)"' in report
    assert [label for label in [*labels, "(NOT a known divergence)"] if label not in page] == []
    assert "Exit 1 when the real loop diverged, known divergences included" in page


def test_MODEL_1_the_readmes_check_of_both_clis_folders_says_a_missing_one_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """MODEL-1: README's `check ~/.claude/projects/ ~/.codex/sessions/`, typed by a user of one
    CLI alone, exits 2 on the other's folder; the README says so, in check's words."""
    assert main(["check", str(tmp_path / "sessions")]) == 2
    said = capsys.readouterr().out.splitlines()[0]
    assert said == f"{tmp_path / 'sessions'}: error unreadable: no such file or directory"
    readme = " ".join(README.read_text(encoding="utf-8").split())
    assert "is an error: `unreadable: no such file or directory`, exit 2" in readme


def test_HOOK_7_the_docs_name_the_variable_a_harness_runs_hooks_with_for_their_folder() -> None:
    """HOOK-7: under `run --harness` the CLI and its hooks run in a temporary folder, where a
    hook named `python3 hooks/deny.py` finds no file and Python's exit 2 for it reads as a
    block (a newcomer's settings ran so, reported with no divergence); README and
    docs/harnesses.md say to name the file from the variable the hook wrapper sets."""
    from loopspec.properties.harnesses.hook_audit import wrapped  # noqa: PLC0415

    words = shlex.split(wrapped("python3 x.py", "claude-code:PreToolUse:1", "/a", "/s"))
    variable = next(w for w in words if w.endswith("=/s")).removesuffix("=/s")
    for doc in (README, ROOT / "docs" / "harnesses.md"):
        text = " ".join(doc.read_text(encoding="utf-8").split())
        assert f"`${variable}/" in text, doc.name
        assert "reads as a block" in text, doc.name


def test_MODEL_1_the_readmes_family_table_names_every_family_spec_md_has() -> None:
    """MODEL-1: README's "What it checks" table names each rule family SPEC.md states, once (a
    family added to SPEC.md and left out of it would be one a newcomer first meets as an ID in
    a report)."""
    from loopspec import spec_text  # noqa: PLC0415
    from loopspec.properties.spec_rules import rule_sections  # noqa: PLC0415

    families = list(dict.fromkeys(rule.split("-")[0] for rule in rule_sections(spec_text())))
    readme = README.read_text(encoding="utf-8")
    table = readme[readme.index("| family | what it holds the loop to |") :].split("\n\n")[0]
    rows = [re.findall(r"`([A-Z]+)`", line.split("|")[1]) for line in table.splitlines()[2:]]
    assert sorted(f for row in rows for f in row) == sorted(families)


class _MarkedTest:
    """What conftest's setup hook reads of a test: its `needs` markers."""

    def __init__(self, *needs: Need) -> None:
        self.marks = [pytest.mark.needs(*needs).mark]

    def iter_markers(self, name: str) -> list[pytest.Mark]:
        return [mark for mark in self.marks if mark.name == name]


def test_MODEL_1_a_test_needing_a_real_cli_not_installed_fails_saying_why_where_npm_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """MODEL-1: with node and npm here but a real CLI never installed (a bare `pytest`, no `make
    harnesses`), a test needing the CLI is failed at set-up with why `npm ci` did not install it,
    where the conform driver's tests waited on a CLI that never answered, one with no deadline;
    a test needing node alone is not held to any install."""
    import conftest  # noqa: PLC0415 (the hooks under test)

    asked: list[object] = []

    def problem(harness: object) -> str:
        asked.append(harness)
        return "claude-code: npm ci in examples/claude-code-adapter failed (1): E404"

    monkeypatch.setattr(conftest, "install_problem", problem)
    monkeypatch.setattr(conftest, "unavailable", lambda need: None)
    with pytest.raises(pytest.fail.Exception, match="npm ci in examples/claude-code-adapter"):
        conftest.pytest_runtest_setup(_MarkedTest(Need.CLAUDE_CODE))  # type: ignore[arg-type]  # a stand-in
    assert len(asked) == 1
    conftest.pytest_runtest_setup(_MarkedTest(Need.NODE))  # type: ignore[arg-type]  # a stand-in
    assert len(asked) == 1
