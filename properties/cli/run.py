"""`loopspec run SCENARIO --hooks SETTINGS.json --log OUT.jsonl`: see what real hooks do.

This module holds the verb's options only; the run itself is `cli.run_session`'s, imported when
the verb runs: the model, the bundled loop and the hook bridge it loads cost `run --help` twenty
times the interpreter's start.
"""

from __future__ import annotations

import argparse

from loopspec.properties.cli.main import VERB_BY_NAME

# `loopspec.model.events.HOOK_DIALECTS`, sorted, named here so that `--help` does not import the
# model; test_cli_conventions holds the two equal.
DIALECT_NAMES = ("claude-code", "codex")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `run` subcommand."""
    parser = subparsers.add_parser("run", help=VERB_BY_NAME["run"].summary)
    parser.add_argument(
        "scenario",
        metavar="SCENARIO",
        help="the scenario JSON file (its format: python -m pydoc "
        "loopspec.properties.cli.scenario)",
    )
    parser.add_argument(
        "--hooks",
        metavar="SETTINGS.json",
        help="Claude Code settings.json (or Codex hooks.json, with --dialect codex) with the hooks",
    )
    parser.add_argument(
        "--dialect",
        choices=DIALECT_NAMES,
        help='the hook protocol of the --hooks file when it has no "dialect" key (default '
        "claude-code); give Codex's own hooks.json as it is: Codex 0.171.0 runs no hook from a "
        "file holding that key",
    )
    parser.add_argument(
        "--log",
        metavar="OUT.jsonl",
        default="loopspec-run.jsonl",
        help="where to write the session log (default loopspec-run.jsonl): a new file, or "
        "one of loopspec's own logs to append to; anything else is refused, never replaced",
    )
    parser.add_argument(
        "--fail-closed",
        action="store_true",
        help="a hook that fails (hangs, crashes, bad output) denies the call",
    )
    parser.add_argument(
        "--harness",
        choices=("claude-code", "codex"),
        help="run the real Claude Code or Codex CLI (installed by `npm ci` in "
        "examples/<harness>-adapter) offline against a mock model instead of the bundled loop; "
        "--log then gets a copy of its transcript or rollout (see loopspec.properties.harnesses)",
    )
    parser.add_argument(
        "--hook-env",
        metavar="NAME",
        action="append",
        default=None,
        help="pass hooks only the environment variables named (repeatable, e.g. --hook-env "
        "PATH --hook-env HOME); by default hooks inherit the whole environment, secrets "
        "included, as Claude Code and Codex do",
    )
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from loopspec.properties.cli.run_session import run  # noqa: PLC0415 -- see the module's help

    return run(args)
