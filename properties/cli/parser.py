"""The `loopspec` command line's argparse parser: the verbs' parsers, help and usage errors.

Imported for every command line but the usual `loopspec check PATH...`, which
`cli.check.usual_check_arguments` reads without it: argparse, with the gettext and locale
lookups its messages make, costs a check ~3 ms of start-up, where reading the log takes less.
Whatever that reader does not take (help, a usage error, an abbreviated option) is parsed
here, so help and error messages are argparse's, word for word.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from loopspec.properties.cli.main import (
    INTERNAL_ERROR_WORDS,
    PROGRAM,
    SIGNAL_STATUS_WORDS,
    VERBS,
    Verb,
    version_line,
)
from loopspec.properties.typographic import curled_quotes_hint, dashed_option_hint

# typing's flag, read by type checkers by name: typing costs every command line but the usual
# check (which never imports this module) about as much as argparse does, so it is not imported.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Final, NoReturn, Protocol

    from _typeshed import SupportsWrite

    class CommandModule(Protocol):
        """What a verb module provides."""

        register: Callable[[argparse._SubParsersAction[_VerbParser]], None]


HELP_WIDTH = 78
"""Columns of the text `--help` wraps itself (argparse's own default on an 80-column terminal)."""


class _VersionAction(argparse.Action):
    """`--version`, resolved only when given, so `--help` stays import-free."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(version_line())
        parser.exit()


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The parser; only `verb`'s module is imported (every verb's with `verb="*"`)."""
    parser = _Parser(
        prog=PROGRAM,
        formatter_class=_HelpFormatter,
        description="An executable reference model of an agent's tool-call loop, and checks "
        "that hold implementations to it. Run `loopspec VERB --help` for a verb's options.",
        epilog="exit status: 0 success; 1 the checked thing breaks a rule; "
        f"2 usage error or unusable input (never a traceback); {INTERNAL_ERROR_WORDS}; "
        f"{SIGNAL_STATUS_WORDS}",
    )
    parser.add_argument(
        "--version", nargs=0, action=_VersionAction, help="print the version and exit"
    )
    subparsers = parser.add_subparsers(
        dest="command", required=True, metavar="VERB", parser_class=_VerbParser
    )
    chosen = [entry for entry in VERBS if verb in (entry.name, "*")]
    for module_name in dict.fromkeys(entry.module for entry in chosen):
        module: CommandModule = importlib.import_module(module_name)
        module.register(subparsers)  # may add sibling verbs too (conform adds replay)
    for entry in VERBS:
        # The other verbs are listed only where the top level's help or choices can show:
        # with one verb named, neither can (each parser costs a few gettext lookups).
        if entry.name not in subparsers.choices and verb in (None, "*"):
            subparsers.add_parser(entry.name, help=entry.summary)
        if entry in chosen:
            _describe(subparsers.choices[entry.name], entry)
    return parser


def _subparsers(
    parser: argparse.ArgumentParser,
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    (found,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return found


def _describe(parser: argparse.ArgumentParser, verb: Verb) -> None:
    """Give a verb's own `--help` its summary (when it has no description) and exit codes."""
    parser.description = parser.description or verb.summary[0].upper() + verb.summary[1:] + "."
    parser.epilog = f"exit status: {verb.exit_codes}; {INTERNAL_ERROR_WORDS}; {SIGNAL_STATUS_WORDS}"


def _help_width() -> int:
    """The width argparse wraps help to: the terminal's columns less 2, found as
    `shutil.get_terminal_size` finds them ($COLUMNS, else standard output's terminal, else 80).

    argparse imports shutil for this each time it builds a parser, and shutil (with the
    compression modules it imports) costs every verb about 3 ms, help shown or not.
    """
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    stdout = sys.__stdout__  # None when the program was started without one
    if columns <= 0 and stdout is not None:
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns
        except (ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, told the help width (`_help_width`) rather than asking shutil."""

    def __init__(self, prog: str, **options: Any) -> None:
        if options.get("width") is None:
            options["width"] = _help_width()
        super().__init__(prog, **options)

    def _split_lines(self, text: str, width: int) -> list[str]:
        # argparse's, except that a word longer than the line overflows it: split, a module
        # path the help names (`python -m pydoc loopspec....`) cannot be copied from a narrow
        # terminal.
        import textwrap  # noqa: PLC0415 (only help needs it)

        return textwrap.wrap(" ".join(text.split()), width, break_long_words=False)

    if sys.version_info >= (3, 13):

        def _get_actions_usage_parts(
            self,
            actions: list[argparse.Action],
            groups: list[argparse._MutuallyExclusiveGroup],
        ) -> list[str]:
            # Python 3.13 gives each option of a group of exclusive ones as a part of its own, so
            # a wrapped usage line broke inside the group (`[--bundled |` above `--cmd COMMAND]`);
            # 3.11 and 3.12 keep a group whole, and usage reads the same on each with the parts
            # of one group joined again: a part is added to the last while brackets are open.
            whole: list[str] = []
            open_brackets = 0
            for part in super()._get_actions_usage_parts(actions, groups):
                if open_brackets > 0:
                    whole[-1] = f"{whole[-1]} {part}"
                else:
                    whole.append(part)
                open_brackets += sum(map(part.count, "[(")) - sum(map(part.count, "])"))
            return whole


class _VerbHelpFormatter(_HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """A verb's description and epilog: paragraphs a verb wrapped itself keep their lines; a
    paragraph written as one long string is wrapped like argparse's own text. (Wrapped here,
    when help is shown, not when the parser is built: a verb that runs never shows it.)"""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap  # noqa: PLC0415 (only help needs it)

        wrapped = "\n\n".join(
            paragraph
            if all(len(line) <= HELP_WIDTH for line in paragraph.splitlines())
            else textwrap.fill(paragraph, width=HELP_WIDTH)
            for paragraph in text.split("\n\n")
        )
        return super()._fill_text(wrapped, width, indent)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, except that help and usage it cannot write raise: argparse drops the
    OSError, and `loopspec --help > /dev/full` exited 0 having written nothing."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        stream = file or sys.stderr
        if message and stream is not None:  # None: started without the stream, as argparse
            stream.write(message)

    def error(self, message: str) -> NoReturn:
        """Usage, then `loopspec: error: ...` as every other error of every verb says it: a
        verb's parser said `loopspec replay: error:`, and the same verb's other errors did not
        name it (the usage line above names the verb)."""
        self.print_usage(sys.stderr)
        self.exit(2, f"{PROGRAM}: error: {message}{_choice_offer(message)}\n")


def _choice_offer(message: str) -> str:
    """` (did you mean claude-code?)` after argparse's "invalid choice: 'claude' (choose from
    ...)", through near_miss as every offer: argparse listed the choices and left the nearest
    to be found. Its words, quoted choices or not (Python 3.12.8 dropped the quotes)."""
    given, found, choices = message.partition("invalid choice: ")[2].partition(" (choose from ")
    if not found or not choices.endswith(")"):
        return ""
    from loopspec.model.near_miss import did_you_mean  # noqa: PLC0415 (only for this error)

    known = [choice.strip("'") for choice in choices[:-1].split(", ")]
    return did_you_mean(given.strip("'"), known)


class _VerbParser(_Parser):
    """A verb's parser: its help is formatted by `_VerbHelpFormatter`, whatever formatter the
    verb's module asks for (one it names would ask shutil for the width while arguments are
    added)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["formatter_class"] = _VerbHelpFormatter
        super().__init__(*args, **kwargs)


# A script's suffixes: a word with one, read as a case file, was meant for --cmd.
_SCRIPTS: Final = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".sh")


def _cmd_split(arguments: Sequence[str], args: argparse.Namespace, extra: list[str]) -> str | None:
    """What to say when `--cmd node loop.mjs` was typed unquoted: argparse gave --cmd `node`
    alone and took `loop.mjs` for another argument (an error naming only it) or, for replay,
    for a case file (refused as a case that is not JSON). None when the command was whole."""
    cmd = getattr(args, "cmd", None)
    if not isinstance(cmd, str) or not cmd.strip() or " " in cmd.strip():
        return None
    for index, word in enumerate(arguments):
        after = index + 2 if word == "--cmd" else index + 1 if word.startswith("--cmd=") else None
        if after is None or after >= len(arguments) or arguments[after].startswith("-"):
            continue
        stray = arguments[after]
        if stray in extra:
            read_as = f"an argument {args.command} does not take"
        elif stray.endswith(_SCRIPTS):
            read_as = "a case file"
        else:
            continue
        import shlex  # noqa: PLC0415 -- only for this message: every verb's start-up parses

        whole = shlex.quote(f"{cmd} {stray}")
        return (
            f"--cmd got {shlex.quote(cmd)} alone, and {shlex.quote(stray)} was read as "
            f"{read_as}: --cmd takes the whole command as one argument, quoted (--cmd {whole})"
        )
    return None


# The options of one of conform and replay given to the other, with what that verb does instead:
# argparse named the word alone, and a user who had learnt conform asked replay for --examples.
_DRAWS: Final = (
    "conform's option: replay runs the case's own program as it stands, where conform draws "
    "new programs"
)
_THE_OTHER_VERBS: Final = {
    "replay": dict.fromkeys(
        ("--examples", "--steps", "--seed", "--max-seconds", "--exhaustive"), _DRAWS
    ),
    "conform": {
        "--bundled": "replay's option: conform runs the bundled implementation when given no "
        "--impl or --cmd",
        "--reduce": "replay's option: conform cuts its counterexamples down itself",
    },
}


def _log_given_a_file(verb: str, arguments: Sequence[str], extra: Sequence[str]) -> str:
    """` (--log takes no file: ...)` when `spec ... --log FILE` left FILE unrecognized."""
    if verb != "spec" or "--log" not in arguments:
        return ""
    after = arguments.index("--log") + 1
    if after >= len(arguments) or arguments[after] not in extra:
        return ""
    import shlex  # noqa: PLC0415 -- only for this message, as in `_cmd_split`

    return (
        " (--log takes no file: it writes the log to standard output, "
        f"loopspec spec RULE --example --log > {shlex.quote(arguments[after])})"
    )


def _other_verbs_option(verb: str, extra: Sequence[str]) -> str:
    """` (--examples is conform's option: ...)` when an unrecognized word is an option of the
    verb's sibling (`_THE_OTHER_VERBS`), else ""."""
    options = _THE_OTHER_VERBS.get(verb, {})
    given = next((name for word in extra if (name := word.partition("=")[0]) in options), None)
    return "" if given is None else f" ({given} is {options[given]})"


def _conform_given_a_file(verb: str, extra: Sequence[str]) -> str:
    """` (conform takes no file: ...)` when `conform case.json` left a file unrecognized: a
    shared case is rerun by replay, a session log read by check, and a loop's own script
    (`conform main.mjs`) is run through --cmd or --impl; argparse named the word alone."""
    if verb != "conform":
        return ""
    import os  # noqa: PLC0415 -- only for this message, as in `_cmd_split`
    import shlex  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    from loopspec.properties.conformance.case_text import holds_a_case  # noqa: PLC0415

    given = next((word for word in extra if not word.startswith("-") and os.path.isfile(word)), "")
    if not given:
        return ""
    if given.endswith((".jsonl", ".jsonl.zst", ".jsonl.gz")):
        reader, verb_of = "loopspec check (a session log)", "check"
    elif holds_a_case(Path(given)):
        reader, verb_of = "loopspec replay (a case file)", "replay"
    else:
        return (
            " (conform takes no file: it draws programs of its own and runs the loop named by "
            "--cmd 'COMMAND' or --impl MODULE:FACTORY)"
        )
    return (
        f" (conform takes no file: it draws programs of its own; {reader} reads it: "
        f"loopspec {verb_of} {shlex.quote(given)})"
    )


def parse(arguments: Sequence[str], verb: str | None) -> argparse.Namespace:
    """`arguments` parsed, `verb`'s module alone imported; a usage error exits (status 2)."""
    parser = build_parser(verb)
    args, extra = parser.parse_known_args(arguments)
    # `\u2014impl`, copied from a chat that made `--` a dash: argparse takes it for a file or
    # an unknown word, and the error named a file that was never meant.
    dashed = next((word for word in arguments if dashed_option_hint(word)), None)
    # Quotes a chat curled split the command too; their hint says the cause, not the split.
    curled = curled_quotes_hint(arguments)
    split = None if curled else _cmd_split(arguments, args, extra)
    if extra or dashed or split:  # the verb's usage, not the top level's, says what fits
        verb_parser = _subparsers(parser).choices[args.command]
        if dashed is not None:
            verb_parser.error(f"{dashed}{dashed_option_hint(dashed)}")
        if split is not None:
            verb_parser.error(split)
        other = (
            _other_verbs_option(args.command, extra)
            or _log_given_a_file(args.command, arguments, extra)
            or _conform_given_a_file(args.command, extra)
        )
        verb_parser.error(f"unrecognized arguments: {' '.join(extra)}{curled}{other}")
    return args
