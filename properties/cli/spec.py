"""`loopspec spec`: print, check or rewrite SPEC.md's generated sections."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from loopspec.impl.user_files import UserFileError, read_user_file
from loopspec.properties.spec_doc import render_generated_sections, splice_generated_sections

SPEC_FILE_CAP = 16 * 1024 * 1024
"""Bytes a spec file may hold (rule SAFE-4)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `spec` subcommand."""
    parser = subparsers.add_parser(
        "spec", help="print the generated SPEC.md tables, or check/update them in a file"
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", metavar="FILE", help="rewrite the generated sections of FILE")
    group.add_argument("--check", metavar="FILE", help="exit 1 when FILE's sections are stale")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print, write or check the generated sections."""
    if args.write is None and args.check is None:
        print(render_generated_sections())
        return 0
    path = Path(args.write or args.check)
    try:
        data = read_user_file(path, cap=SPEC_FILE_CAP, what="spec file")
        text = data.decode("utf-8")
    except UserFileError as error:  # rule SAFE-4: a device, a directory, too large
        print(f"loopspec: error: {error}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as error:
        print(f"loopspec: error: {path}: not UTF-8 text: {error}", file=sys.stderr)
        return 2
    updated = splice_generated_sections(text)
    if args.check is not None:
        if updated != text:
            print(f"{path}: generated sections are stale; run `make spec`", file=sys.stderr)
            return 1
        return 0
    path.write_text(updated, encoding="utf-8")
    return 0
