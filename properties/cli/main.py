"""The `loopspec` command line.

Each subcommand lives in its own module exposing `register(subparsers)`, which adds the parser
and sets `handler` to a function `(args) -> int` returning the exit code. Exit codes: 0 success,
1 the checked thing breaks a rule, 2 usage errors and unreadable input — never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Protocol

from loopspec.model.errors import LoopSpecError

COMMAND_MODULES = (
    "loopspec.properties.cli.demo",
    "loopspec.properties.cli.spec",
    "loopspec.properties.cli.schema",
    "loopspec.properties.cli.conform",
    "loopspec.properties.cli.run",
    "loopspec.properties.cli.check",
)


class CommandModule(Protocol):
    """What a subcommand module provides."""

    register: Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]


def build_parser() -> argparse.ArgumentParser:
    """The parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="loopspec",
        description="An executable reference model of an agent's tool-call loop, and checks "
        "that hold implementations to it.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        module: CommandModule = importlib.import_module(name)
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; return its exit code."""
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except LoopSpecError as error:
        print(f"loopspec: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"loopspec: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
