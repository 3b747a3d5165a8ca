"""The usual `loopspec check` command line is read without argparse
(`cli.check.usual_check_arguments`), and read as argparse reads it: whatever that reader takes,
argparse takes too, with the same options; what it does not take (help, usage errors,
abbreviations) argparse reads, so help and error messages are argparse's."""

from __future__ import annotations

import contextlib
import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopspec.properties.cli.check import LIMIT_CEILING, usual_check_arguments
from loopspec.properties.cli.main import main
from loopspec.properties.cli.parser import parse
from loopspec.properties.logcheck import DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_VIOLATIONS

OPTIONS = (
    "check",
    "-v",
    "--verbose",
    "--format",
    "--max-line-bytes",
    "--max-violations",
    "--known",
    "--fail-on-hook-faults",
    "--strict-known",
)
UNUSUAL = (
    "-h", "--help", "--", "-x", "-vv", "--form", "--verb", "--format=json", "-1", "--strict",
)  # fmt: skip
# Options joined to their value by `=`, as argparse reads them: at the first `=`.
JOINED = (
    "--format=json", "--format=xml", "--format=", "--format=json=x", "--max-violations=5",
    "--max-line-bytes=0", "--max-violations=07", "--max-violations=-5", "--known=RW-1,ORD-3",
    "--known=-x", "--known=", "--known=a=b", "--verbose=1", "--strict-known=x", "--=json",
    "--form=json", "-v=1",
)  # fmt: skip
PATHS = ("a.jsonl", "logs/", "-", "", "json", "5", "a b")
VALUES = ("text", "json", "xml", "1", "0", "07", "+3", " 7", "1_0", "\u0663", "-5", "RW-1,ORD-3")
LIMITS = (str(LIMIT_CEILING), str(LIMIT_CEILING + 1), str(1 << 64))
FIELDS = (
    "paths",
    "format",
    "max_line_bytes",
    "max_violations",
    "verbose",
    "known",
    "fail_on_hook_faults",
    "strict_known",
)


def _argparse_reads(arguments: list[str]) -> dict[str, Any] | None:
    """check's options as argparse reads `check ARGUMENTS`; None when it refuses them."""
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            args = parse(["check", *arguments], "check")
    except SystemExit:
        return None
    return {field: getattr(args, field) for field in FIELDS}


@pytest.mark.no_cover
@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from((*OPTIONS, *UNUSUAL, *JOINED, *PATHS, *VALUES, *LIMITS)), max_size=7)
)
def test_what_the_usual_reader_takes_argparse_takes_alike(arguments: list[str]) -> None:
    read = usual_check_arguments(arguments)
    if read is not None:
        assert {field: getattr(read, field) for field in FIELDS} == _argparse_reads(arguments)


@pytest.mark.parametrize(
    "arguments",
    [
        ["logs/"],
        ["a.jsonl", "b.jsonl", "-"],
        ["--format", "json", "a.jsonl"],
        ["a.jsonl", "-v", "--max-violations", "5", "--max-line-bytes", str(LIMIT_CEILING)],
        ["--verbose", "a.jsonl", "--format", "text"],
        ["--known", "claude-code", "--known", "RW-1,ORD-3", "--fail-on-hook-faults", "a.jsonl"],
        ["--known", "codex", "--strict-known", "a.jsonl"],
        ["--format=json", "a.jsonl"],
        ["a.jsonl", "--max-violations=5", "--known=RW-1,ORD-3", "--max-line-bytes=4096"],
    ],
)
def test_the_usual_command_lines_are_read_without_argparse(arguments: list[str]) -> None:
    read = usual_check_arguments(arguments)
    assert read is not None
    assert {field: getattr(read, field) for field in FIELDS} == _argparse_reads(arguments)


def test_unset_options_take_the_parsers_defaults() -> None:
    read = usual_check_arguments(["a.jsonl"])
    assert read is not None
    assert (
        read.format,
        read.max_line_bytes,
        read.max_violations,
        read.verbose,
        read.known,
        read.fail_on_hook_faults,
    ) == ("text", DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_VIOLATIONS, False, None, False)


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["check", "a.jsonl", "--max-violations", "0"], "must be at least 1: 0"),
        (["check", "a.jsonl", "--format", "xml"], "invalid choice: 'xml'"),
        (["check", "a.jsonl", "-v", "b.jsonl"], "unrecognized arguments: b.jsonl"),
        (["check"], "the following arguments are required: PATH"),
        # `--format` pasted through a chat that made `--` a dash: the usual reader took it and
        # `json` for two logs, each "unreadable: no such file or directory".
        (
            ["check", "a.jsonl", "\u2014format", "json"],
            "\u2014format: it begins with \u2014 (U+2014 EM DASH), which a chat or a word "
            "processor makes of two hyphens; type the option as --format",
        ),
    ],
)
def test_a_usage_error_is_argparses(
    arguments: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Left to argparse: its usage line and message, exit 2."""
    assert usual_check_arguments(arguments[1:]) is None
    with pytest.raises(SystemExit) as done:
        main(arguments)
    assert done.value.code == 2
    shown = capsys.readouterr().err
    assert shown.startswith("usage: loopspec check ")
    assert said in shown
