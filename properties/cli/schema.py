"""`loopspec schema`: print the driver protocol's JSON Schema."""

from __future__ import annotations

import argparse
import json

from loopspec.properties.conformance.driver_protocol import protocol_schema


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `schema` subcommand."""
    parser = subparsers.add_parser(
        "schema", help="print the JSON Schema of the driver protocol (JSON lines over stdio)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema."""
    print(json.dumps(protocol_schema(), indent=2))
    return 0
