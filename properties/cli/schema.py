"""`loopspec schema`: print the driver protocol's JSON Schema, a case file's, or that of the
document `check --format json`, `conform --format json` or `replay --format json` writes."""

from __future__ import annotations

import argparse
import json

from loopspec.properties.cli.main import VERB_BY_NAME


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `schema` subcommand."""
    parser = subparsers.add_parser(
        "schema",
        help=VERB_BY_NAME["schema"].summary,
    )
    parser.add_argument(
        "which",
        nargs="?",
        # Named in errors too: without it argparse said "argument which: invalid choice".
        metavar="DOCUMENT",
        choices=("driver", "case", "check", "conform", "replay"),
        default="driver",
        help="driver (default): every message of the driver protocol; case: a case file, as "
        "conform saves it and replay reads it; check, conform, replay: the document that "
        "verb's --format json writes",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema."""
    if args.which == "check":
        from loopspec.properties.logcheck.report_schema import check_schema  # noqa: PLC0415

        print(json.dumps(check_schema(), indent=2))
    elif args.which in ("conform", "replay"):
        # Their classes load the driver protocol's schema: only when asked for.
        from loopspec.properties.conformance.report_documents import (  # noqa: PLC0415
            document_schema,
        )

        print(json.dumps(document_schema(args.which), indent=2))
    elif args.which == "case":
        # The case format loads the rules and profiles: only when asked for.
        from loopspec.properties.conformance.case_format import case_schema  # noqa: PLC0415

        print(json.dumps(case_schema(), indent=2))
    else:
        # The protocol's schema is built from the conformance package's classes: not for --help.
        from loopspec.properties.conformance.driver_protocol import protocol_schema  # noqa: PLC0415

        print(json.dumps(protocol_schema(), indent=2))
    return 0
