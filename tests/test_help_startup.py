"""`loopspec --help`, a verb's `--help` and `loopspec spec RULE` (the command check names under a
violation) start near interpreter speed: what they import. Correctness tests, not timed ones:
each asks a fresh interpreter which modules a command left in `sys.modules`
(`benchmarks/bench_cli.py` measures the time). typing costs about as much to import as argparse,
and importlib.resources (with the zip and compression modules it brings) more than the rest of
`spec RULE`; none of them is needed to print help or a rule."""

from __future__ import annotations

import pytest
from test_check_startup import loaded_of, modules_after

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
