"""`loopspec demo`: run the reference model on the built-in scripted session and show it.

This module holds the verb's options only; the demo itself is `cli.demo_run`'s, imported when the
verb runs: the model and the conformance machinery it loads cost `demo --help` twenty times the
interpreter's start.
"""

from __future__ import annotations

import argparse

from loopspec.properties.cli.counts import at_least_one
from loopspec.properties.cli.main import VERB_BY_NAME


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `demo` subcommand."""
    parser = subparsers.add_parser(
        "demo",
        help=VERB_BY_NAME["demo"].summary,
    )
    # 150, not 100: the demo's fixed batch of 100 programs ran no PostToolUse hook, so its
    # report read HOOK-5 "not reached by the generator" and DEC-3 "never generated".
    parser.add_argument(
        "--examples",
        type=at_least_one,
        default=150,
        metavar="N",
        help="command programs for the conformance run (default 150)",
    )
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from loopspec.properties.cli.demo_run import run  # noqa: PLC0415 -- see the module's help

    return run(args)
