"""`loopspec --help`, a verb's `--help` and `loopspec spec RULE` (the command check names under a
violation) start near interpreter speed: what they import. Correctness tests, not timed ones:
each asks a fresh interpreter which modules a command left in `sys.modules`
(`benchmarks/bench_cli.py` measures the time). typing costs about as much to import as argparse,
and importlib.resources (with the zip and compression modules it brings) more than the rest of
`spec RULE`; none of them is needed to print help or a rule."""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_check_startup import loaded_of, main_without_site, modules_after

from loopspec import spec_text
from loopspec.properties.cli import spec
from loopspec.properties.cli.main import main
from loopspec.properties.cli.parser import parse
from loopspec.properties.cli.spec import print_titles, usual_spec_list, usual_spec_rules
from loopspec.properties.spec_rules import named_rule_sections, rule_ids_in_spec, rule_sections

# Each is imported by nothing these command lines need (`cli.parser`, `loopspec.spec_text`).
NEVER_FOR_HELP = ("typing", "importlib.resources", "zipfile", "json")

_RUN = (
    "import contextlib, io\n"
    "from loopspec.properties.cli.main import main\n"
    "out = io.StringIO()\n"
    "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
    "    main({arguments!r})\n"
    "assert out.getvalue().startswith({start!r}), out.getvalue()"
)


@pytest.mark.parametrize(
    ("arguments", "start"),
    [
        (["--help"], "usage: loopspec"),
        (["conform", "--help"], "usage: loopspec conform"),
        (["spec", "STEP-1"], "### STEP-1 "),
    ],
    ids=["help", "conform-help", "spec-rule"],
)
def test_help_and_a_rule_print_without_typing_json_or_importlib_resources(
    arguments: list[str], start: str
) -> None:
    """Nothing of `NEVER_FOR_HELP` the interpreter had not loaded at its start."""
    started_with = modules_after("pass")
    modules = modules_after(_RUN.format(arguments=arguments, start=start))
    assert loaded_of(modules - started_with, NEVER_FOR_HELP) == set()


# What `loopspec spec RULE` ran without once it stopped reading its arguments with argparse and
# SPEC.md's headings with a regular expression: two thirds of its start-up.
NEVER_FOR_SPEC_RULE = (
    "argparse",
    "collections",
    "enum",
    "functools",
    "gettext",
    "locale",
    "re",
    "typing",
)


@pytest.mark.parametrize("arguments", [["spec", "STEP-1"], ["spec", "rw", "HOOK-3"]])
def test_spec_RULE_prints_without_argparse_or_re(arguments: list[str]) -> None:
    """A fresh interpreter without `site` (whose editable install hook imports re itself), told
    where loopspec is, prints the rules having imported none of `NEVER_FOR_SPEC_RULE`."""
    done = main_without_site(arguments)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"### {arguments[1].upper()}"), done.stdout
    assert loaded_of(set(done.stderr.split()), NEVER_FOR_SPEC_RULE) == set()


@pytest.mark.parametrize(
    "arguments",
    [
        ["STEP-1"],
        ["rw", "HOOK-3", "RW-2"],
        ["NOPE-1"],
        ["RW-99"],
        [""],
        ["step-1", "STEP-1"],
    ],
)
def test_spec_RULE_read_without_argparse_prints_what_argparse_reads(
    arguments: list[str],
) -> None:
    """`spec RULE...` through `main`'s shortcut prints and exits as the parser's handler does
    on the same arguments, an unknown rule's error included."""
    assert usual_spec_rules(arguments) == arguments
    shortcut = _printed(lambda: main(["spec", *arguments]))
    args = parse(["spec", *arguments], "spec")
    assert _printed(lambda: args.handler(args)) == shortcut


def test_spec_list_prints_without_argparse_or_re() -> None:
    """`spec --list`, the rules' index, likewise."""
    done = main_without_site(["spec", "--list"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("LOG-1 "), done.stdout
    assert loaded_of(set(done.stderr.split()), NEVER_FOR_SPEC_RULE) == set()


@pytest.mark.parametrize(
    "arguments",
    [["--list"], ["--list", "rw", "HOOK-3"], ["STEP", "--list"], ["--list", "NOPE-1"]],
)
def test_spec_list_read_without_argparse_prints_what_argparse_reads(
    arguments: list[str],
) -> None:
    """`spec --list [RULE...]` through `main`'s shortcut prints and exits as the parser's
    handler does on the same arguments, an unknown rule's error included."""
    assert usual_spec_list(arguments) is not None
    shortcut = _printed(lambda: main(["spec", *arguments]))
    args = parse(["spec", *arguments], "spec")
    assert _printed(lambda: args.handler(args)) == shortcut


def test_spec_list_of_every_rule_is_the_list_of_each_named() -> None:
    """`spec --list` takes every rule as it is, where naming each looks it up among all."""
    every = _printed(lambda: print_titles([]))
    assert every == _printed(lambda: print_titles(rule_ids_in_spec(spec_text())))
    assert every[1].startswith("LOG-1 ")


_SPEC_WORDS = ("--list", "--lis", "--log", "--example", "--write", "-h", "-", "RW", "hook-3", "")


@pytest.mark.no_cover
@settings(max_examples=100, deadline=None)
@example(arguments=["RW", "--list", "RW"])
@given(arguments=st.lists(st.sampled_from(_SPEC_WORDS), max_size=5))
def test_what_the_list_reader_takes_argparse_reads_as_a_list_of_those_rules(
    arguments: list[str],
) -> None:
    """Whatever `usual_spec_list` reads, argparse reads as `--list` and those rules alone."""
    rules = usual_spec_list(arguments)
    if rules is None:
        return
    with contextlib.redirect_stderr(io.StringIO()):
        args = parse(["spec", *arguments], "spec")
    assert (args.list, args.rules) == (True, rules)
    assert (args.write, args.check, args.example, args.log) == (None, None, False, False)


def test_spec_with_an_option_is_left_to_argparse() -> None:
    """Any option (--list, --check FILE, -h, a misspelt one) is argparse's to read."""
    for arguments in (["--list"], ["RW", "--list"], ["-h"], ["--lsit"], []):
        assert usual_spec_rules(arguments) is None


def _printed(run: Callable[[], int]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = run()
    return status, out.getvalue(), err.getvalue()


_HEADING_LINES = st.sampled_from(
    [
        "### RW-1 a rule",
        "### RW-1 ",
        "### RW-1",
        "### RW-1\ttabbed",
        "### rw-1 lower",
        "### RW-1x no",
        "### RW-1-2 no",
        "### -1 no",
        "### RW- no",
        "### ÉT-1 accented",
        "### RW-\u0661\u0662 arabic digits",
        "### RW-\u00b2 superscript",
        "### Not a rule",
        "## Section",
        "##  two spaces",
        "#### Deeper",
        "##",
        "text",
        "",
        "  ### indented",
        " \u2003 ",
        "\r",
        "### RW-2 windows\r",
    ]
)


@pytest.mark.no_cover
@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.one_of(_HEADING_LINES, st.text(max_size=6)), max_size=12))
def test_spec_headings_read_line_by_line_as_the_regular_expressions_read_them(
    lines: list[str],
) -> None:
    """`spec_rules` reads headings without `re`; what it finds is what the regular expressions
    it replaced found, on texts of headings and near-headings."""
    text = "\n".join(lines)
    heading = re.compile(r"^### ([A-Z]+-\d+) ", re.MULTILINE)
    section = re.compile(r"^### ([A-Z]+-\d+) .*?(?=^#{2,3} |\Z)", re.S | re.M)
    assert rule_ids_in_spec(text) == heading.findall(text)
    assert rule_sections(text) == {m.group(1): m.group(0).strip() for m in section.finditer(text)}
    assert list(rule_sections(text)) == list({m.group(1): None for m in section.finditer(text)})


@pytest.mark.no_cover
@settings(max_examples=100, deadline=None)
@example(lines=["### RW-1 a", "text", "### RW-2 b", "## Section", "more"], wanted="RW-1")
@example(lines=["### RW-1 a", "x", "### RW-10 b", "### RW-1 again", "y"], wanted="RW")
@given(
    lines=st.lists(st.one_of(_HEADING_LINES, st.text(max_size=6)), max_size=12),
    wanted=st.sampled_from(["RW-1", "RW-2", "RW", "RW-\u0661\u0662", "R", "RW-", "ÉT", ""])
    | st.text(max_size=4),
)
def test_the_sections_of_the_rules_named_are_those_of_every_section(
    lines: list[str], wanted: str
) -> None:
    """`spec RULE` finds the sections of the rules named by their headings alone: the sections,
    and their order, that reading every section gives of those rules (the last of a heading
    given twice, where it is first)."""
    text = "\n".join(lines)
    every = rule_sections(text)
    named = {rule: part for rule, part in every.items() if wanted in (rule, rule.split("-")[0])}
    assert list(named_rule_sections(text, wanted).items()) == list(named.items())


def test_spec_RULE_reads_only_the_sections_of_the_rules_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Splitting all of SPEC.md into its rules' sections was more than half of `spec RULE`'s
    work past its imports (benchmarks/bench_cli.py): the rules named, and a family, are found by
    their headings; every section is read only to word a name that stands for no rule."""

    def every_section(text: str) -> dict[str, str]:
        raise AssertionError("every section read")

    monkeypatch.setattr(spec, "rule_sections", every_section)
    status, out, _ = _printed(lambda: main(["spec", "STEP-1", "rw"]))
    assert status == 0
    assert out.startswith("### STEP-1 ")
    assert "\n### RW-1 " in out
