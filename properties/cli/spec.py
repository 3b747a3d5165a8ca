"""`loopspec spec`: print the rules named, or print, check or rewrite SPEC.md's generated
sections.

The usual command line, `loopspec spec RULE...` (what `loopspec check` names under the
violations it prints), is read without argparse (`usual_spec_rules`): every argument a rule or a
family, none an option, is what argparse reads as the rules and nothing else. argparse, with the
re, gettext and locale it imports, cost that command half its start-up. So is `loopspec spec
--list [RULE...]` (`usual_spec_list`), the rules' index.
"""

from __future__ import annotations

import sys

from loopspec.properties.cli.main import VERB_BY_NAME
from loopspec.properties.spec_rules import log_checked_rules, named_rule_sections, rule_sections

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: spec RULE imports no typing
if TYPE_CHECKING:
    import argparse  # the usual `spec RULE...` runs without it (`usual_spec_rules`)
    from collections.abc import Sequence
    from pathlib import Path

SPEC_FILE_CAP = 16 * 1024 * 1024
"""Bytes a spec file may hold (rule SAFE-4)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `spec` subcommand."""
    parser = subparsers.add_parser(
        "spec",
        help=VERB_BY_NAME["spec"].summary,
        description="Print the rules named (loopspec spec RW-1 HOOK-3; a family: loopspec spec "
        "RW) as the SPEC.md shipped with this loopspec states them — failure reports name "
        "rules by ID. --list prints one line per rule, its ID and title (every rule, or those "
        "named; a rule `loopspec check` judges logs by is marked [example]). --example shows "
        "a rule by example: a few lines of a log that keeps it and of one with one edit that "
        "breaks it, and what loopspec check says of that log (--log: the whole breaking log, "
        "for `loopspec spec RW-1 --example --log > rw-1.jsonl; loopspec check rw-1.jsonl`). "
        "Without a rule: print the generated SPEC.md tables, or check/update them in a file.",
    )
    parser.add_argument(
        "rules",
        nargs="*",
        metavar="RULE",
        help="a rule ID (RW-1) or a family (RW); case does not matter",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--list",
        action="store_true",
        help="one line per rule: its ID and title (every rule, or the rules and families named)",
    )
    group.add_argument("--write", metavar="FILE", help="rewrite the generated sections of FILE")
    group.add_argument("--check", metavar="FILE", help="exit 1 when FILE's sections are stale")
    group.add_argument(
        "--example",
        action="store_true",
        help="each rule named by example: the lines around one edit that breaks it in the "
        "reference model's demo log, before and after, and the violation loopspec check finds "
        "there (a rule only conform can see: which verb judges it)",
    )
    parser.add_argument(
        "--log",
        action="store_true",
        help="with --example and one rule: write the whole log that breaks it to standard output",
    )
    parser.set_defaults(handler=run)


def usual_spec_rules(arguments: Sequence[str]) -> list[str] | None:
    """The rules named by the arguments after `spec` when they are all argparse would read
    (rules and families, no option: none starts with `-`), else None, for argparse to read."""
    if not arguments or any(argument.startswith("-") for argument in arguments):
        return None
    return list(arguments)


def usual_spec_list(arguments: Sequence[str]) -> list[str] | None:
    """The rules named by the arguments after `spec` when they are `--list` and rules before or
    after it, as argparse reads them (`loopspec spec --list`, the rules' index), else None."""
    if not arguments or arguments.count(LIST) != 1 or LIST not in (arguments[0], arguments[-1]):
        return None
    rules = [argument for argument in arguments if argument != LIST]
    if any(rule.startswith("-") for rule in rules):
        return None
    return rules


LIST = "--list"


def print_titles(names: list[str]) -> int:
    """`spec --list`: one `ID  title` line for each rule named (every rule where none is)."""
    return print_rules(names, titles_only=True)


def print_rules(names: list[str], *, titles_only: bool = False) -> int:
    """Print the named rules (or families), whole or as `ID  title` lines; exit 2 naming what
    SPEC.md does not state."""
    from loopspec import spec_text  # noqa: PLC0415 (read only when a rule is asked for)

    text = spec_text()
    sections = _named_sections(names, text)
    if sections is None:
        sections = rule_sections(text)
    # Every rule, where none is named: each rule's ID stands for itself alone (looking each up
    # among all, as `_chosen_rules` does, took longer than the rest of `spec --list`).
    every = titles_only and not names
    chosen = list(sections) if every else _chosen_rules(names, sections)
    if chosen is None:
        return 2
    if titles_only:
        # The heading is `### ID title`: the title is what a newcomer scans the index for.
        width = max(len(rule) for rule in chosen) + 2
        with_example = log_checked_rules(text)
        for rule in chosen:
            title = sections[rule].splitlines()[0].removeprefix(f"### {rule} ")
            print(f"{rule:<{width}}{title}" + ("  [example]" if rule in with_example else ""))
        return 0
    print("\n\n".join(sections[rule] for rule in chosen))
    return 0


def _named_sections(names: list[str], text: str) -> dict[str, str] | None:
    """The sections of the rules each of `names` stands for, found by their headings alone
    (`named_rule_sections`: reading every section was more than half of `spec RULE`'s work past
    its imports); None where no name is given or one stands for no rule, whose error
    `_chosen_rules` words from every section."""
    if not names:
        return None
    sections: dict[str, str] = {}
    for name in names:
        found = named_rule_sections(text, name.strip().upper())
        if not found:
            return None
        sections |= found
    return sections


def _chosen_rules(names: list[str], sections: dict[str, str]) -> list[str] | None:
    """The rules `names` (rule IDs or families, any case) stand for, in the order named; None,
    having said which SPEC.md does not state, when one stands for none."""
    chosen: list[str] = []
    for name in names:
        wanted = name.strip().upper()
        matching = [rule for rule in sections if wanted in (rule, rule.split("-")[0])]
        if not matching:
            family = [rule for rule in sections if rule.split("-")[0] == wanted.split("-")[0]]
            # A number past a family's last names that family's rules, not every family.
            known = (
                f"{wanted.split('-')[0]}'s rules: {', '.join(family)}"
                if family
                else "rule families: "
                + ", ".join(dict.fromkeys(rule.split("-")[0] for rule in sections))
            )
            # Imported here: only a misspelt name needs it (`spec RULE` is timed at start-up).
            from loopspec.model.near_miss import MISSPELT, did_you_mean  # noqa: PLC0415

            hint = did_you_mean(wanted, sections, cutoff=MISSPELT)
            print(
                f"loopspec: error: SPEC.md states no rule {name!r}{hint}; {known}",
                file=sys.stderr,
            )
            return None
        chosen += [rule for rule in matching if rule not in chosen]
    return chosen


def print_examples(names: list[str], *, whole_log: bool) -> int:
    """Print each named rule by example (`cli.spec_example`), or with `whole_log` the whole log
    that breaks the one rule named; exit 2 naming what has none."""
    from loopspec import spec_text  # noqa: PLC0415 (only when a rule is asked for)
    from loopspec.properties.cli.spec_example import (  # noqa: PLC0415 (it runs the model)
        example_text,
        no_example_line,
    )

    text = spec_text()
    chosen = _chosen_rules(names, rule_sections(text))
    if chosen is None:
        return 2
    with_example = log_checked_rules(text)
    if whole_log:
        if len(chosen) != 1:
            print(
                f"loopspec: error: --log writes one rule's example log; {', '.join(names)} "
                f"names {len(chosen)} rules",
                file=sys.stderr,
            )
            return 2
        if chosen[0] not in with_example:
            print(f"loopspec: error: {no_example_line(chosen[0])}", file=sys.stderr)
            return 2
        from loopspec.properties.logcheck.rule_examples import breaking_log  # noqa: PLC0415

        sys.stdout.write(breaking_log(chosen[0]))
        return 0
    shown = [
        example_text(rule) if rule in with_example else no_example_line(rule) for rule in chosen
    ]
    print("\n\n".join(shown))
    return 0


def run(args: argparse.Namespace) -> int:
    """List or print rules, or show them by example; print, write or check the generated
    sections."""
    if args.log and not args.example:
        print(
            "loopspec: error: --log writes a rule's --example log: add --example",
            file=sys.stderr,
        )
        return 2
    if args.example:
        if not args.rules:
            print(
                "loopspec: error: --example needs a rule: loopspec spec RW-1 --example",
                file=sys.stderr,
            )
            return 2
        return print_examples(args.rules, whole_log=args.log)
    if args.list:
        return print_titles(args.rules)
    if args.rules:
        if args.write is not None or args.check is not None:
            print(
                "loopspec: error: RULE prints rules; --write and --check take no rule",
                file=sys.stderr,
            )
            return 2
        return print_rules(args.rules)
    # Imported only here: rendering the generated sections imports the whole model, and
    # reading a file typing and json, which `loopspec spec RULE` has no use for.
    from pathlib import Path  # noqa: PLC0415

    from loopspec.impl.user_files import (  # noqa: PLC0415
        UserFileError,
        not_utf8,
        read_user_file,
        refused_by_system,
    )
    from loopspec.model.errors import tagged  # noqa: PLC0415
    from loopspec.properties.spec_doc import (  # noqa: PLC0415
        MissingSection,
        render_generated_sections,
        splice_generated_sections,
    )

    if args.write is None and args.check is None:
        print(render_generated_sections())
        return 0
    path = Path(args.write or args.check)
    try:
        data = read_user_file(path, cap=SPEC_FILE_CAP, what="spec file")
        text = data.decode("utf-8")
    except UserFileError as error:  # SAFE-4's refusal (a device, a directory, too large), or none
        print(f"loopspec: error: {tagged(error.rule_id, str(error))}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as error:
        print(f"loopspec: error: {not_utf8(path, data, error, 'spec file')}", file=sys.stderr)
        return 2
    try:
        updated = splice_generated_sections(text)
    except MissingSection as error:  # a file, not a rule: name the file, as a reader looks there
        print(f"loopspec: error: {path}: {error}", file=sys.stderr)
        return 2
    if args.check is not None:
        if updated != text:
            print(f"{path}: generated sections are stale; run `make spec`", file=sys.stderr)
            return 1
        return 0
    if updated == text:  # current: left as it is, untouched (a read-only checkout passes)
        return 0
    try:
        _replace_whole(path, updated.encode("utf-8"))
    except OSError as error:
        said = refused_by_system(path, "write the spec file", error)
        print(f"loopspec: error: {said}", file=sys.stderr)
        return 2
    return 0


def _replace_whole(path: Path, data: bytes) -> None:
    """Put `data` at `path` (a link's target) in one step: written beside it first, then renamed
    over it, keeping its permissions. Written in place, a full disk or Ctrl-C part way left the
    user's SPEC.md cut short, its text past the cut lost."""
    import contextlib  # noqa: PLC0415 (only --write: `spec RULE` starts without them)
    import os  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    target = os.path.realpath(path)
    descriptor, written = tempfile.mkstemp(
        dir=os.path.dirname(target), prefix=f".{os.path.basename(target)}.", suffix=".new"
    )
    try:
        with open(descriptor, "wb") as out:
            out.write(data)
        os.chmod(written, os.stat(target).st_mode & 0o7777)
        os.replace(written, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(written)
        raise
