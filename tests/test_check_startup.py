"""`loopspec check` starts at interpreter speed: what it imports, and the shortcut that allows it.

These are correctness tests, not timed tests: each asks a fresh interpreter which modules a
command left in `sys.modules` (`benchmarks/bench_cli.py` measures the time). `--help` imports no
checker and no model; checking a dsh log imports the invariants it runs, but neither attrs (its
import alone takes longer than the interpreter's start), Hypothesis, cattrs, the event model nor
the wire codec (a usual header is read without them, see `logcheck.header_version`), and no reader
of other loops' logs, whatever the verdict. The header shortcut is held to the
model's codec on generated headers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import loopspec
from loopspec.model.errors import InvalidEventError
from loopspec.model.fact_readers import CORE_READERS
from loopspec.model.facts import READ_TYPES
from loopspec.model.invariants import rule_ids
from loopspec.model.wire import header_from_wire
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.logcheck import INVARIANT_RULES, foreign, header_version
from loopspec.properties.logcheck.checker import (
    DSH_HEADER_TYPE,
    SNIFF_BYTES,
    ErrorKind,
    check_paths,
)
from loopspec.properties.logcheck.synth import MARKED_HEADER, marked_model_rows, model_rows

# Modules no `loopspec check` run may import for a dsh log: each costs milliseconds to import
# (attrs about as much as the interpreter's whole start; `inspect` is what attrs and dataclasses
# spend most of theirs on), and the check needs none of them. argparse (with the gettext and
# locale its messages look up) reads only what `cli.check.usual_check_arguments` does not: help,
# usage errors. It imports shutil (3 ms, with the compression modules it imports) to learn the
# terminal's width unless told it, and textwrap to wrap help: `cli.parser` tells it the width,
# and wraps the verbs' help only when it is shown. subprocess: check runs nothing (the hook
# audit's wrapper imports it only to run a hook). The reading of a key given twice
# (`model.repeated_keys`): check reads the last of two, as dsh does (LOG-3). The version
# lookup (`loopspec.version_lookup`): a check never asks its version.
NEVER_FOR_CHECK = (
    "argparse",
    "attr",
    "attrs",
    "cattrs",
    "dataclasses",
    "gettext",
    "hypothesis",
    "importlib.metadata",
    "inspect",
    "jsonschema",
    "locale",
    "loopspec.model.events",
    "loopspec.model.repeated_keys",
    "loopspec.model.wire",
    "loopspec.version_lookup",
    "shutil",
    "subprocess",
    "textwrap",
    "zstandard",
)
# Modules a dsh log file without compact rows or replacements is checked without: compact chunk
# rows' reader, the streams of standard input, pipes and zstd data, and the C bisect a
# replacement's span is found with.
NOT_FOR_A_PLAIN_LOG = (
    "loopspec.properties.logcheck.compact_rows",
    "loopspec.properties.logcheck.streams",
    "_bisect",
)
HEADER = {"type": "session", "version": 0, "id": "s", "createdAt": 1700000000000, "cwd": "/w"}
_CLEAN_TURN = [
    {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
    {"type": "step/start", "seq": 1, "time": 0, "data": {"turn": 1, "step": 1}},
    {"type": "assistant/chunk", "seq": 2, "time": 0, "data": {"turn": 1, "step": 1}},
    {"type": "assistant/chunk", "seq": 3, "time": 0, "data": {"turn": 1, "step": 1}},
]
_STEP_SKIPPED = [  # STEP-1: step 2 where step 1 was due
    {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
    {"type": "step/start", "seq": 1, "time": 0, "data": {"turn": 1, "step": 2}},
]
# The demo's first two turns: parallel calls, PreToolUse hooks (whose calls' arguments EXE-2
# parses), a rewrite, an approval, a denial.
_HOOKED_TURNS = model_rows(DEMO_CONFIG, DEMO_COMMANDS[:14])


def modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    )
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return set(loaded)


# What CPython 3.12 and later import the moment json's C scanner refuses a text: it raises
# json.decoder's JSONDecodeError, importing json.decoder (3.11's scanner raised SystemError, and
# imported nothing). A torn last line is such a refusal, so these load there on 3.12 and 3.13.
JSON_ERROR_IMPORTS = (
    ("collections", "enum", "functools", "itertools", "json", "re")
    if sys.version_info >= (3, 12)
    else ()
)


def refused_line_roots(roots: tuple[str, ...]) -> tuple[str, ...]:
    """`roots` but those json's C scanner imports, on this Python, to say it refused a line."""
    return tuple(root for root in roots if root not in JSON_ERROR_IMPORTS)


def loaded_of(modules: set[str], roots: tuple[str, ...]) -> set[str]:
    """Those of `modules` that are one of `roots` or inside one."""
    return {m for m in modules if any(m == r or m.startswith(r + ".") for r in roots)}


def main_without_site(arguments: list[str]) -> subprocess.CompletedProcess[str]:
    """`main(arguments)` in a fresh interpreter without `site` (whose editable install hook
    imports re itself), told where loopspec is; what `main` left in `sys.modules` that was not
    there before is printed on stderr, a name a word."""
    script = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from loopspec.properties.cli.main import main\n"
        f"status = main({arguments!r})\n"
        "print(*sorted(set(sys.modules) - before), file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    where = str(Path(loopspec.__file__).parent.parent)  # the folder loopspec is installed in
    return subprocess.run(
        [sys.executable, "-S", "-c", script],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": where},
    )


def test_importing_the_check_verb_imports_no_checker_and_no_model() -> None:
    """The verb's module and its parser: no Hypothesis, cattrs, attrs, checker or model."""
    modules = modules_after(
        "from loopspec.properties.cli.main import build_parser\n"
        "import loopspec.properties.cli.check\n"
        "build_parser('check')"
    )
    assert "loopspec.properties.cli.check" in modules
    heavy = ("hypothesis", "cattrs", "attrs", "attr", "loopspec.model")
    assert loaded_of(modules, (*heavy, "loopspec.properties.logcheck.checker")) == set()


def test_check_help_imports_no_checker_and_no_model() -> None:
    """`loopspec check --help` prints its help having imported nothing it does not show."""
    modules = modules_after(
        "import contextlib, io\n"
        "from loopspec.properties.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['check', '--help'])"
    )
    assert loaded_of(modules, ("hypothesis", "cattrs", "attrs", "loopspec.model")) == set()


# (events after the header, the arguments after the log's path, exit status, last line's start)
CHECK_RUNS = {
    "clean": (_CLEAN_TURN, [], 0, "checked 1 log, 4 events: 0 violations"),
    "hooked": (_HOOKED_TURNS, [], 0, f"checked 1 log, {len(_HOOKED_TURNS)} events: 0 violations"),
    "broken": (_STEP_SKIPPED, [], 1, "checked 1 log, 2 events: 1 violation (STEP-1: 1)"),
    "json": (_CLEAN_TURN, ["--format", "json"], 0, "}"),
    "options": (
        _STEP_SKIPPED,
        ["-v", "--max-violations", "5", "--max-line-bytes", "4096"],
        1,
        "checked 1 log, 2 events: 1 violation (STEP-1: 1)",
    ),
    "missing": (None, [], 2, "checked 0 logs, 0 events, found nothing at 1 path: 0 violations"),
    "joined": (_STEP_SKIPPED, ["--format=json", "--max-violations=5"], 1, "}"),
}


@pytest.mark.parametrize("run", list(CHECK_RUNS))
def test_checking_a_dsh_log_imports_neither_attrs_hypothesis_cattrs_nor_the_event_model(
    tmp_path: Path, run: str
) -> None:
    """A dsh log is checked with the invariants alone, and its verdict given, whatever it is:
    a clean log, a broken one (in text and in JSON), a path that names no file."""
    events, options, status, last_line = CHECK_RUNS[run]
    log = tmp_path / "small.jsonl"
    if events is not None:
        log.write_text("".join(json.dumps(row) + "\n" for row in [HEADER, *events]))
    modules = modules_after(
        "import contextlib, io\n"
        "from loopspec.properties.cli.main import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    status = main(['check', {str(log)!r}, *{options!r}])\n"
        "last = out.getvalue().splitlines()[-1]\n"
        f"assert status == {status} and last.startswith({last_line!r}), out.getvalue()"
    )
    assert "loopspec.model.prefix" in modules  # it did check
    readers = ("loopspec.properties.logcheck.claude_code", "loopspec.properties.logcheck.codex")
    # The commit-marker reader is a version-1 log's alone (LOG-8); the loops' known divergences
    # are read for a violation in their shape or under --known, which a dsh log's JSON report
    # names without them (`check_document.KNOWN_BY`).
    markers = ("loopspec.properties.logcheck.commit_units",)
    known = ("loopspec.properties.logcheck.known_divergences",)
    # The model's frozen values: built for a call's arguments spelt two ways (RW-1, EXE-2) alone.
    frozen = ("loopspec.model.jsonvalue",)
    never = (*NEVER_FOR_CHECK, *readers, *markers, *known, *frozen, *NOT_FOR_A_PLAIN_LOG)
    assert loaded_of(modules, never) == set()


FIXTURES = Path(__file__).parent / "fixtures" / "logs"
ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("log", "status"),
    [
        ("claude-code/valid/rewrite-to-the-same-input.jsonl", 0),
        ("codex/violations/RW-1.jsonl", 1),
    ],
)
@pytest.mark.parametrize("known", [(), ("--known", "claude-code,codex")])
def test_checking_another_loops_log_imports_its_reader_but_no_attrs(
    log: str, status: int, known: tuple[str, ...]
) -> None:
    """A Claude Code transcript or a Codex rollout is read by its reader (`harness_logs`), which
    needs none of what a dsh log's check does without; setting its loop's known divergences
    aside (RW-1) needs no attrs either: it did, a third of a small check run."""
    modules = modules_after(
        "import contextlib, io\n"
        "from loopspec.properties.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    status = main(['check', *{known!r}, {str(FIXTURES / log)!r}])\n"
        f"assert status == {0 if known else status}, out.getvalue()"
    )
    assert "loopspec.properties.logcheck.harness_logs" in modules  # it did read the log
    assert loaded_of(modules, NEVER_FOR_CHECK) == set()
    # Without --known the shapes of the loops' known divergences are not read (1.2M
    # instructions of a 67M check run: the reader names the shapes, the list spells them),
    # but where a violation names a facet: the report says which are its loop's known ones.
    known_divergences = "loopspec.properties.logcheck.known_divergences"
    assert (known_divergences in modules) == (bool(known) or status == 1)


# Other loops' logs that break no rule (a hook's rewrite the model's input already held; a
# PostToolUse hook's context after the output), or RW-1, as both CLIs do on every rewrite: read
# without json, typing, re, collections nor shlex, each, with what it imports, as long to import
# as the interpreter takes to start (benchmarks/bench_cli.py). Their JSON lines are parsed by
# json's scanner alone (`json_text.loads`), the inputs RW-1 names written without json
# (`json_text.json_dumps`), the readers' records are plain records, and a hook command is split
# (`hook_audit.hook_of`, imported with the harness driver's package) only where `loopspec run
# --harness` wrapped it. Neither dsh's clean-event judges (`logcheck.clean_events`, imported
# where a dsh log is checked), the rule registry (`model.invariants`: a report names its
# rules from `logcheck.INVARIANT_RULES`), the readers of a dsh event's data (`fact_readers`),
# nor the tally of hooks' faults (`hook_faults`, made at the first fault a log records).
NEVER_FOR_A_CLEAN_TRANSCRIPT = (
    "collections",
    "json",
    "loopspec.model.fact_readers",
    "loopspec.model.invariants",
    "loopspec.properties.harnesses",
    "loopspec.properties.logcheck.clean_events",
    "loopspec.properties.logcheck.hook_faults",
    "re",
    "shlex",
    "typing",
)
# The other loop's reader, by the folder of the log's loop: `foreign` tells a dialect from its
# first record itself, so a transcript is checked without the Codex reader and a rollout without
# Claude Code's (and the reader of its hooks' faults).
OTHER_READER = {
    "claude-code": ("loopspec.properties.logcheck.codex",),
    "codex": (
        "loopspec.properties.logcheck.claude_code",
        "loopspec.properties.logcheck.claude_code_hooks",
    ),
}


@pytest.mark.parametrize(
    "log",
    [
        "claude-code/valid/rewrite-to-the-same-input.jsonl",
        "claude-code/valid/two-hooks-whose-commands-begin-alike.jsonl",
        "codex/valid/parallel-calls-in-issue-order.jsonl",
        "codex/valid/post-hook-context-after-the-output.jsonl",
        "claude-code/violations/RW-1.jsonl",
        "codex/violations/RW-1.jsonl",
    ],
)
@pytest.mark.parametrize("known", [(), ("--known", "claude-code,codex")])
def test_checking_another_loops_log_imports_neither_json_re_nor_typing(
    log: str, known: tuple[str, ...]
) -> None:
    """As a user runs it (`main_without_site`): the log is read by its loop's reader, and its
    check passes, or fails on RW-1 alone (passes, with the loops' known divergences). The
    other loop's reader is not imported (`OTHER_READER`)."""
    done = main_without_site(["check", *known, str(FIXTURES / log)])
    breaks_rw_1 = "/violations/" in log
    assert done.returncode == (1 if breaks_rw_1 and not known else 0), done.stdout
    assert done.stdout.splitlines()[-1].startswith("checked 1 log"), done.stdout
    imported = set(done.stderr.split())
    loop = log.split("/", maxsplit=1)[0]
    assert f"loopspec.properties.logcheck.{loop.replace('-', '_')}" in imported  # it read the log
    never = (*NEVER_FOR_CHECK, *NEVER_FOR_A_CLEAN_TRANSCRIPT, *OTHER_READER[loop])
    assert loaded_of(imported, never) == set()


@pytest.mark.parametrize(
    "log",
    [
        "claude-code/valid/rewrite-to-the-same-input.jsonl",
        "codex/valid/parallel-calls-in-issue-order.jsonl",
    ],
)
def test_a_transcript_whose_last_line_a_crash_cut_off_is_read_without_json(
    tmp_path: Path, log: str
) -> None:
    """LOG-8: as in a dsh log, a CLI's torn last line (no newline) is a notice whose words need
    nothing of json's error, so json is not imported to learn why the line is none (but for what
    the C scanner of Python 3.12 and later imports to refuse it, `JSON_ERROR_IMPORTS`)."""
    torn = tmp_path / "crashed.jsonl"
    torn.write_bytes((FIXTURES / log).read_bytes() + b'{"type": "resp')
    done = main_without_site(["check", str(torn)])
    assert done.returncode == 0, done.stdout
    assert "stops short (14 bytes, no newline)" in done.stdout, done.stdout
    assert "torn-commit: 1" in done.stdout.splitlines()[-1], done.stdout
    imported = set(done.stderr.split())
    assert "loopspec.properties.logcheck.harness_logs" in imported  # it did read the log
    never = (*NEVER_FOR_CHECK, *NEVER_FOR_A_CLEAN_TRANSCRIPT)
    assert loaded_of(imported, refused_line_roots(never)) == set()


def test_a_rollout_opening_with_a_line_too_long_to_sniff_imports_no_re(tmp_path: Path) -> None:
    """A Codex rollout whose session_meta carries the model's whole instructions, past what
    `foreign` reads of a log's first line: recognised by its first keys without re."""
    rollout = FIXTURES / "codex/valid/parallel-calls-in-issue-order.jsonl"
    first, *rest = rollout.read_text().splitlines(keepends=True)
    meta = json.loads(first)
    meta["payload"]["base_instructions"] = {"text": "x" * SNIFF_BYTES}
    (tmp_path / "rollout.jsonl").write_text(json.dumps(meta) + "\n" + "".join(rest))
    done = main_without_site(["check", str(tmp_path / "rollout.jsonl")])
    assert done.returncode == 0, done.stdout
    imported = set(done.stderr.split())
    assert "loopspec.properties.logcheck.codex" in imported  # it was read as a rollout
    never = (*NEVER_FOR_CHECK, *NEVER_FOR_A_CLEAN_TRANSCRIPT, *OTHER_READER["codex"])
    assert loaded_of(imported, never) == set()


def test_json_is_read_as_the_c_scanner_reads_it_where_an_interpreter_lacks_that_scanner(
    tmp_path: Path,
) -> None:
    """`_json` is CPython's; where it is missing, the readers fall back to json's own scanner,
    which reads a decoder's parsers besides its settings: a hooked log's call arguments
    (`json_text.value_of`) and its lines (`checker.scan_json`) are read as with it, NaN refused
    in a line and read in arguments as json.loads reads it."""
    log = tmp_path / "hooked.jsonl"
    log.write_text("".join(json.dumps(row) + "\n" for row in [HEADER, *_HOOKED_TURNS]))
    script = (
        "import sys\n"
        "sys.modules['_json'] = None  # as an interpreter without it: importing it fails\n"
        "from loopspec.model.json_text import NOT_JSON, value_of\n"
        "from loopspec.properties.logcheck.checker import SCAN_ERRORS, scan_json\n"
        "assert value_of(' {\"a\": [1, 2.5, true]} ') == {'a': [1, 2.5, True]}\n"
        "assert value_of('{\"a\": 1') is NOT_JSON\n"
        "assert value_of('NaN') != value_of('NaN')  # a float NaN, as json.loads reads it\n"
        "assert scan_json('{\"a\": 1.5}', 0) == ({'a': 1.5}, 10)\n"
        "try:\n"
        "    scan_json('[NaN]', 0)\n"
        "except SCAN_ERRORS:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError('NaN read in a line')\n"
        "from loopspec.properties.cli.main import main\n"
        f"sys.exit(main(['check', {str(log)!r}]))\n"
    )
    where = str(Path(loopspec.__file__).parent.parent)  # the folder loopspec is installed in
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": where},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].endswith(": 0 violations"), done.stdout


def test_a_call_whose_arguments_are_no_json_is_read_without_json() -> None:
    """EXE-2: arguments json refuses (a model's cut-off JSON) are kept as they are; why they are
    no JSON is not asked, so json (with re, enum, collections) is not imported for it."""
    log = FIXTURES / "blame/violations/HOOK-4-hook-for-invalid-arguments.jsonl"
    done = main_without_site(["check", str(log)])
    assert done.returncode == 1, done.stdout
    assert "(HOOK-4: 1)" in done.stdout.splitlines()[-1], done.stdout
    imported = set(done.stderr.split())
    assert loaded_of(imported, (*NEVER_FOR_CHECK, *NEVER_FOR_A_CLEAN_CHECK)) == set()


@pytest.mark.parametrize("torn", [b'{"type": "step/st', b'{"type": "step/start", "seq": 1', b"{"])
def test_a_log_whose_last_line_a_crash_cut_off_is_read_without_json(
    tmp_path: Path, torn: bytes
) -> None:
    """LOG-8: a crash's torn last line (no newline) is a notice, whose words need nothing of
    json's error (where it stopped, or why): json, with the re, enum and collections it imports,
    is not imported to learn it is none (save by the C scanner of Python 3.12 and later, to
    refuse it: `JSON_ERROR_IMPORTS`)."""
    log = tmp_path / "crashed.jsonl"
    log.write_bytes(b"".join(json.dumps(row).encode() + b"\n" for row in [HEADER, *_CLEAN_TURN]))
    with log.open("ab") as appended:
        appended.write(torn)
    done = main_without_site(["check", str(log)])
    assert done.returncode == 0, done.stdout
    assert f"line 6 stops short ({len(torn)} bytes, no newline)" in done.stdout, done.stdout
    assert "torn-commit: 1" in done.stdout.splitlines()[-1], done.stdout
    imported = set(done.stderr.split())
    never = (*NEVER_FOR_CHECK, *NEVER_FOR_A_CLEAN_CHECK)
    assert loaded_of(imported, refused_line_roots(never)) == set()


def test_checking_a_clis_home_folder_imports_neither_json_re_nor_typing(tmp_path: Path) -> None:
    """`loopspec check ~/.claude`: a transcript under projects/, and the prompt history beside
    it, recognised and skipped (`home_files`) without typing either."""
    transcript = FIXTURES / "claude-code/valid/rewrite-to-the-same-input.jsonl"
    (tmp_path / "projects" / "p").mkdir(parents=True)
    (tmp_path / "projects" / "p" / "t.jsonl").write_bytes(transcript.read_bytes())
    prompt = {
        "display": "fix it",
        "pastedContents": {},
        "timestamp": 1767225600000,
        "project": "/r",
    }
    (tmp_path / "history.jsonl").write_text(json.dumps(prompt) + "\n")
    done = main_without_site(["check", str(tmp_path)])
    assert done.returncode == 0, done.stdout
    assert "skipped 1 file" in done.stdout.splitlines()[-1], done.stdout
    imported = set(done.stderr.split())
    assert "loopspec.properties.logcheck.home_files" in imported  # it did tell the history
    never = (*NEVER_FOR_CHECK, *NEVER_FOR_A_CLEAN_TRANSCRIPT, *OTHER_READER["claude-code"])
    assert loaded_of(imported, never) == set()


def test_spec_RULE_the_command_check_names_imports_no_model() -> None:
    """`loopspec spec STEP-1` (check prints it under a log's violations) reads SPEC.md's rule
    without the model, which only rendering SPEC.md's generated sections needs."""
    modules = modules_after(
        "import contextlib, io\n"
        "from loopspec.properties.cli.main import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    status = main(['spec', 'STEP-1'])\n"
        "assert status == 0 and out.getvalue().startswith('### STEP-1 '), out.getvalue()"
    )
    heavy = (
        "attr",
        "attrs",
        "cattrs",
        "hypothesis",
        "loopspec.model",
        "loopspec.properties.spec_doc",
    )
    # Every verb's failures are reported through the model's one error type (`cli.main._run`).
    shared = {"loopspec.model", "loopspec.model.errors"}
    assert loaded_of(modules, heavy) - shared == set()


def test_the_dsh_header_type_is_no_record_type_of_another_loop() -> None:
    """`checker` takes a first record of the header's type as dsh without asking `foreign`;
    that stays right only while neither of the other dialects' first-record tests claims it."""
    assert DSH_HEADER_TYPE not in foreign.CLAUDE_CODE_RECORD_TYPES
    assert DSH_HEADER_TYPE not in foreign.CODEX_RECORD_TYPES
    assert not foreign.opens_a_transcript({**HEADER, "sessionId": "s"})
    assert not foreign.opens_a_rollout({**HEADER, "timestamp": "t", "payload": {}})


def _codec_answer(obj: dict[str, Any]) -> tuple[str, object]:
    try:
        return "version", header_from_wire(obj).version
    except InvalidEventError as error:
        return "error", (error.rule_id, error.message)
    except OverflowError:
        return "error", ("LOG-5", "session.createdAt must be a finite number")


def _answer(obj: dict[str, Any]) -> tuple[str, object]:
    try:
        return "version", header_version(obj)
    except InvalidEventError as error:
        return "error", (error.rule_id, error.message)


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([1 << 64, -(10**300), 10**4400]),  # large, and too large for the codec
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


@pytest.mark.no_cover
# An infinite createdAt: the codec overflows where the shortcut reads a float.
@example(fields={"createdAt": float("inf")}, usual=True, extras={})
@settings(max_examples=300, deadline=None)
@given(
    fields=st.fixed_dictionaries(
        {},
        optional={
            "version": _VALUES,
            "id": _VALUES,
            "createdAt": _VALUES,
            "cwd": _VALUES,
        },
    ),
    usual=st.booleans(),
    extras=st.dictionaries(
        st.sampled_from(["model", "title", "delegationDepth"]), _VALUES, max_size=2
    ),
)
def test_header_shortcut_answers_as_the_model_codec(
    fields: dict[str, Any], usual: bool, extras: dict[str, Any]
) -> None:
    """`header_version` gives the codec's version, or its error, for any header-like object
    (half of them start from a well-formed header, so the shortcut is taken often)."""
    obj: dict[str, Any] = {**(HEADER if usual else {"type": "session"}), **fields, **extras}
    assert _answer(obj) == _codec_answer(obj)


@pytest.mark.parametrize("created_at", [10**5000, -(10**5000)], ids=["huge", "huge-negative"])
def test_a_header_time_too_long_to_print_is_refused_in_words(created_at: int) -> None:
    """LOG-5: Python will not write an integer of over 4,300 digits, which a decoded object may
    hold; the refusal names its size instead of raising while it is worded."""
    header = {"type": "session", "version": 0, "id": "s", "createdAt": created_at, "cwd": "/"}
    with pytest.raises(InvalidEventError, match="integer of 16610 bits") as refused:
        header_from_wire(header)
    assert refused.value.rule_id == "LOG-5"


@pytest.mark.parametrize("created_at", ["1e999", "-1e999"])
def test_an_infinite_header_time_is_a_bad_header_not_a_crash(
    tmp_path: Path, created_at: str
) -> None:
    """LOG-3: `createdAt` 1e999 reads as an infinite float, a value JSON cannot carry; it is
    reported, never raised."""
    log = tmp_path / "inf.jsonl"
    header = '{"type": "session", "version": 0, "id": "s", "createdAt": %s, "cwd": "/"}\n'
    log.write_text(header % created_at)
    [report] = check_paths([str(log)])
    assert [(e.kind, e.rule_id) for e in report.errors] == [(ErrorKind.BAD_HEADER, "LOG-3")]


# What the usual check's start-up no longer imports: typing (which imports re, enum,
# contextlib, collections and functools), json's decoder (re), contextlib, and enum (the hook
# fault kinds', read when a hook's audit summary is); collections (a fifth of the interpreter's
# start), with functools and array, which import it. Each was most of what separated
# `loopspec check` from the bare interpreter (benchmarks/bench_cli.py). A hooked call's
# arguments are parsed without json too (`json_text.loads`). bisect: its C accelerator is
# imported alone. `foreign`, which tells the logs of other loops: a log opening with a dsh header
# is none. The model's errors: only for a header of an unusual shape, or a verb that raised one.
# The reader of hooks' faults (`hook_faults`): only for a hook/result the judge leaves to the
# full path (every one that records a fault).
# `impl`, the bundled loop: its words for a refused file (`impl.system_words`) only when one is
# refused, how a hook's fault is recorded (`impl.recorded_faults`) only when a hook's audit may
# name one, and the writer's reading of a commit marker (`impl.framing`) only for a marker the
# commit reader's usual path cannot judge.
# itertools: only `checker.nested_deeper`'s count of a line with more brackets than a log may
# nest (0.4M instructions, a hundredth of the interpreter's start, to import).
NEVER_FOR_A_CLEAN_CHECK = (
    "array",
    "bisect",
    "collections",
    "contextlib",
    "enum",
    "functools",
    "itertools",
    "json",
    "loopspec.impl",
    "loopspec.model.errors",
    "loopspec.properties.logcheck.foreign",
    "loopspec.properties.logcheck.hook_faults",
    "re",
    "typing",
)


# The same turns as `loopspec run` writes them (version 1): their commit markers are read too.
_MARKED_TURNS = marked_model_rows(DEMO_CONFIG, DEMO_COMMANDS[:14])
LEAN_RUNS = {
    **CHECK_RUNS,
    "marked": (_MARKED_TURNS, [], 0, f"checked 1 log, {len(_MARKED_TURNS)} events: 0 violations"),
    # A CI job setting a loop's known divergences aside over a folder of dsh logs: no log of
    # that loop, so no need of its reader (which imports json and typing).
    "known": (_CLEAN_TURN, ["--known", "claude-code"], 0, "checked 1 log, 4 events: 0 violations"),
    # The header dsh writes: with its `delegationDepth`, an integer the codec keeps as it is.
    "delegated": (_CLEAN_TURN, [], 0, "checked 1 log, 4 events: 0 violations"),
}
_HEADERS = {"marked": MARKED_HEADER, "delegated": {**HEADER, "delegationDepth": 0}}


@pytest.mark.parametrize(
    "run", ["clean", "hooked", "marked", "broken", "known", "json", "delegated"]
)
def test_checking_a_dsh_log_imports_neither_typing_re_nor_json(tmp_path: Path, run: str) -> None:
    """The command line as a user runs it: a fresh interpreter without `site` (whose editable
    install hook imports re itself), told where loopspec is, runs `main`; what `main` left in
    `sys.modules` that was not there before is printed on stderr. A broken log's report says its
    violation in the same words, without them too, in text or in JSON (`report.json_text`)."""
    events, options, status, last_line = LEAN_RUNS[run]
    assert events is not None
    header = _HEADERS.get(run, HEADER)
    log = tmp_path / "small.jsonl"
    log.write_text("".join(json.dumps(row) + "\n" for row in [header, *events]))
    done = main_without_site(["check", str(log), *options])
    assert done.returncode == status, done.stderr
    assert done.stdout.splitlines()[-1].startswith(last_line), done.stdout
    imported = set(done.stderr.split())
    assert "loopspec.model.prefix" in imported  # it did check
    assert loaded_of(imported, (*NEVER_FOR_CHECK, *NEVER_FOR_A_CLEAN_CHECK)) == set()
    # The rule registry (4 % of a small check) only for a log with an event the
    # judges and the quiet path do not settle (`checker._monitor`): here, a broken one; so
    # too the readers of an event's data (`fact_readers`), for the facts the registry reads.
    assert ("loopspec.model.invariants" in imported) == (status == 1), run
    assert ("loopspec.model.fact_readers" in imported) == (status == 1), run
    if run == "clean":
        assert loaded_of(imported, ("loopspec",)) == LOOPSPEC_FOR_A_CLEAN_CHECK


def test_checking_a_folder_of_clean_logs_imports_what_checking_one_does(tmp_path: Path) -> None:
    """A folder's logs are checked with the modules one log is: the system's words for a
    folder that cannot be listed (`impl.system_words`, with the `impl` package) only where
    one could not (the walk asks after every folder)."""
    events, _, _, _ = LEAN_RUNS["clean"]
    assert events is not None
    (tmp_path / "below").mkdir()
    for log in (tmp_path / "a.jsonl", tmp_path / "below" / "b.jsonl"):
        log.write_text("".join(json.dumps(row) + "\n" for row in [HEADER, *events]))
    done = main_without_site(["check", str(tmp_path)])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("checked 2 logs"), done.stdout
    assert loaded_of(set(done.stderr.split()), ("loopspec",)) == LOOPSPEC_FOR_A_CLEAN_CHECK


def test_the_types_whose_data_facts_read_are_those_their_readers_read() -> None:
    """`facts.READ_TYPES`, written out so that a clean check needs no reader, names the types
    `fact_readers` has a reader for: a type given a reader is read, one left out is not."""
    assert set(CORE_READERS) == READ_TYPES


def test_the_rules_check_names_without_the_registry_are_the_registry_s() -> None:
    """A report names the rules checked (`--format json`, `--known`) from `INVARIANT_RULES`,
    not the registry a clean log is checked without: a rule added to an invariant is named."""
    assert rule_ids() == INVARIANT_RULES


# Every loopspec module a small clean check imports: each costs it about a hundredth of the
# interpreter's start in the import system alone (benchmarks/bench_cli.py), so one more on this
# path is a choice to make, not a side effect. The packages are the way to the modules; the
# usual command line is read in `cli.check`, PlainRecord lives in `loopspec.model`, the bounds in
# `logcheck`: none has a module of its own. A line json's scanner cannot read is judged in
# `logcheck.unreadable_lines`, imported at the first such line (0.3M instructions a clean check
# no longer spent unmarshalling its words); the model's frozen values (`jsonvalue`: FrozenMap,
# freeze, parse_arguments) where a call's arguments hold more than strings (0.4M). The `cli`
# package takes the ending signals over before the command line's modules load (a SIGTERM
# meanwhile ended check with a bare 143), in its own code: a module of its own for it cost 0.4M
# instructions.
LOOPSPEC_FOR_A_CLEAN_CHECK = {
    "loopspec",
    "loopspec.model",
    "loopspec.model.facts",
    "loopspec.model.json_text",
    "loopspec.model.prefix",
    "loopspec.properties",
    "loopspec.properties.cli",
    "loopspec.properties.cli.check",
    "loopspec.properties.cli.main",
    "loopspec.properties.logcheck",
    "loopspec.properties.logcheck.checker",
    "loopspec.properties.logcheck.clean_events",
    "loopspec.properties.logcheck.files",
    "loopspec.properties.logcheck.report",
}


# The console script's entry point (pyproject's `[project.scripts]`) run as the installed
# `loopspec` runs it, without `site`; the modules loaded are printed on stderr at exit (an exit
# function keeps `program` from ending at once, `cli.main._end_at_once`).
_CONSOLE_SCRIPT = """
import atexit, importlib, sys
atexit.register(lambda: print(*sorted(sys.modules), file=sys.stderr))
sys.argv = ["loopspec", "check", {log!r}]
module, function = {entry!r}.split(":")
sys.exit(getattr(importlib.import_module(module), function)())
"""


def test_the_console_script_checks_a_clean_log_with_these_loopspec_modules(tmp_path: Path) -> None:
    """The program's first step, taking the ending signals over, is the `cli` package's own
    code: as a module of its own (`loopspec._console`, which only scripts an older install
    wrote still name) it cost a clean check 0.3M instructions (benchmarks/bench_cli.py)."""
    log = tmp_path / "small.jsonl"
    log.write_text("".join(json.dumps(row) + "\n" for row in [HEADER, *_CLEAN_TURN]))
    with (ROOT / "pyproject.toml").open("rb") as pyproject:
        entry = tomllib.load(pyproject)["project"]["scripts"]["loopspec"]
    done = subprocess.run(
        [sys.executable, "-S", "-c", _CONSOLE_SCRIPT.format(log=str(log), entry=entry)],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(loopspec.__file__).parent.parent)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("checked 1 log, 4 events: 0 violations")
    assert loaded_of(set(done.stderr.split()), ("loopspec",)) == LOOPSPEC_FOR_A_CLEAN_CHECK


# How the real program (`main()` reading sys.argv, as the console script calls it) leaves the
# cyclic collector once a verb ran: running, with what start-up built frozen out of its sight.
# (Frozen by the program: Python 3.12 starts with objects in the frozen generation already.)
_COLLECTOR_AFTER = (
    "import contextlib, gc, io, sys\n"
    "frozen_at_start = gc.get_freeze_count()\n"
    "from loopspec.properties.cli.main import main\n"
    "sys.argv = ['loopspec', *{arguments!r}]\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    status = main({argv})\n"
    "print(status, gc.isenabled(), gc.get_freeze_count() > frozen_at_start)\n"
)


@pytest.mark.parametrize("verb", ["check", "spec"])
def test_the_program_sets_what_start_up_built_aside_from_the_collector(
    tmp_path: Path, verb: str
) -> None:
    """Start-up's modules and tables live until exit; the collections their allocations set
    off walked them again and again (a tenth of a small check's instructions, measured by
    benchmarks/bench_cli.py). The program holds the collector off while the verb's modules are
    imported and then freezes what they built; the collector runs again for the verb's work."""
    log = tmp_path / "small.jsonl"
    log.write_text("".join(json.dumps(row) + "\n" for row in [HEADER, *_CLEAN_TURN]))
    arguments = ["check", str(log)] if verb == "check" else ["spec", "STEP-1"]
    done = subprocess.run(
        [sys.executable, "-c", _COLLECTOR_AFTER.format(arguments=arguments, argv="")],
        check=True,
        capture_output=True,
        text=True,
    )
    assert done.stdout.split() == ["0", "True", "True"]


def test_a_test_calling_main_keeps_its_collector_as_it_was(tmp_path: Path) -> None:
    """`main(argv)` from a test: nothing frozen (an object unreachable at that moment would
    never be freed in the test's process) and the collector left running."""
    log = tmp_path / "small.jsonl"
    log.write_text("".join(json.dumps(row) + "\n" for row in [HEADER, *_CLEAN_TURN]))
    arguments = ["check", str(log)]
    done = subprocess.run(
        [sys.executable, "-c", _COLLECTOR_AFTER.format(arguments=[], argv=arguments)],
        check=True,
        capture_output=True,
        text=True,
    )
    assert done.stdout.split() == ["0", "True", "False"]


# The program as its console script runs it, with an object only the interpreter's finalization
# deletes (it empties sys.modules; the deletion says so on stderr), and maybe an exit function.
_PROGRAM = (
    "import os, sys\n"
    "class Finalized:\n"
    "    def __del__(self, write=os.write) -> None:\n"
    "        write(2, b'finalized\\n')\n"
    "sys.modules['finalized_at_exit'] = Finalized()\n"
    "{register}\n"
    "sys.argv = ['loopspec', *{arguments!r}]\n"
    "from loopspec.properties.cli.main import program\n"
    "sys.exit(program())\n"
)
_AT_EXIT = "import atexit\natexit.register(lambda: os.write(2, b'at exit\\n'))"


@pytest.mark.parametrize(
    ("verb", "register", "status", "ended_by"),
    [
        ("check", "", 0, []),
        ("check-json", "", 1, []),
        ("check", _AT_EXIT, 0, ["at exit", "finalized"]),
        ("spec", "", 0, []),
        ("spec-list", "", 0, []),
        ("spec-abbreviated", "", 0, ["finalized"]),
    ],
    ids=[
        "check",
        "check-json",
        "check-with-an-exit-function",
        "spec-rule",
        "spec-list",
        "spec-abbreviated",
    ],
)
def test_a_check_ends_without_the_interpreters_finalization(
    tmp_path: Path, verb: str, register: str, status: int, ended_by: list[str]
) -> None:
    """Tearing down what start-up built was a thirteenth of a small check's instructions
    (benchmarks/bench_cli.py): `program` ends a check, or `spec RULE` (which check names), at
    once, its report (block-buffered into a pipe here) written whole and its exit status kept.
    An exit function someone registered still runs (the usual exit is taken); other command
    lines (an abbreviated `spec --lis`, read by argparse, among them) end as Python ends."""
    log = tmp_path / "small.jsonl"
    rows = [HEADER, *(_STEP_SKIPPED if verb == "check-json" else _CLEAN_TURN)]
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))
    arguments = {
        "check": ["check", str(log)],
        "check-json": ["check", str(log), "--format", "json"],
        "spec": ["spec", "STEP-1"],
        "spec-list": ["spec", "--list"],
        "spec-abbreviated": ["spec", "--lis"],  # read by argparse
    }[verb]
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM.format(register=register, arguments=arguments)],
        check=False,
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stderr.splitlines()) == (status, ended_by)
    if verb == "check-json":
        [report] = json.loads(done.stdout)["logs"]  # the whole report, parsed
        assert [violation["rule"] for violation in report["violations"]] == ["STEP-1"]
    elif verb == "check":
        assert done.stdout.splitlines()[-1].startswith("checked 1 log, 4 events: 0 violations")


# Command lines that end before any verb ran, what each writes (on stdout, or on stderr), and
# their exit status: help, `--version` (its metadata read without importlib.metadata, which
# imports threading), a usage error.
_ENDED_WHILE_READING_ARGUMENTS = {
    "version": (["--version"], "stdout", "loopspec ", 0),
    "check-help": (["check", "--help"], "stdout", "usage: loopspec check", 0),
    "help": (["--help"], "stdout", "usage: loopspec", 0),
    "usage-error": (["check", "--no-such-option", "x.jsonl"], "stderr", "usage: loopspec check", 2),
}


@pytest.mark.parametrize("run", list(_ENDED_WHILE_READING_ARGUMENTS))
def test_help_and_a_usage_error_end_without_the_interpreters_finalization(
    run: str,
) -> None:
    """Tearing down argparse, re and gettext, which help and a usage error import, was a tenth
    of `loopspec check --help`'s instructions (benchmarks/bench_cli.py): `program` ends them at
    once, what they wrote (block-buffered into a pipe here) whole and their exit status kept."""
    arguments, stream, starts, status = _ENDED_WHILE_READING_ARGUMENTS[run]
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM.format(register="", arguments=arguments)],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == status
    assert "finalized" not in done.stderr.splitlines()
    written = done.stdout if stream == "stdout" else done.stderr
    assert written.startswith(starts)
    if run == "usage-error":
        assert written.splitlines()[-1].endswith("unrecognized arguments: --no-such-option")
