"""The `loopspec` command line: the verb table, lazy loading, exit codes and pipe etiquette.

Each verb lives in its own module exposing `register(subparsers)`, which adds the verb's parser
and sets `handler` to a function `(args) -> int` returning the exit code. Only the module of the
verb being run is imported: `loopspec --help` and `loopspec --version` import none of them, so
they answer at interpreter speed (`benchmarks/bench_cli.py` measures it).

Exit codes: 0 success, 1 the checked thing breaks a rule, 2 usage errors and input that cannot
be used — never a traceback. A closed output pipe (`loopspec check logs/ | head`) ends the
program quietly with status 141 (128 + SIGPIPE), as a program killed by SIGPIPE would. Output
the system will not take (a full disk, `/dev/full`), help and `--version` included, ends it with
one line on stderr in the system's words and status 2: a report that was not written must not
pass for one that was.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

PROGRAM = "loopspec"
HELP_WIDTH = 78
"""Columns of the text `--help` wraps itself (argparse's own default on an 80-column terminal)."""
BROKEN_PIPE_STATUS = 141


class Verb(NamedTuple):
    """One subcommand: the module that registers it, what it does, what its exits mean."""

    name: str
    module: str
    summary: str
    exit_codes: str
    # Verbs that start hooks or targets reap every descendant before the program exits.
    starts_processes: bool = False


VERBS = (
    Verb(
        "demo",
        "loopspec.properties.cli.demo",
        "show the model on a scripted session, then check the bundled implementation",
        "0 the bundled implementation conforms; 1 a counterexample was found; 2 usage error",
        starts_processes=True,
    ),
    Verb(
        "conform",
        "loopspec.properties.cli.conform",
        "check an implementation against the model with random command programs",
        "0 conformant (or only known divergences under --profile); 1 a counterexample "
        "(shrunk, saved as a case file, blamed on the rule it breaks); 2 the target cannot "
        "be started or speaks the driver protocol wrongly (PROTO-1), or a usage error",
        starts_processes=True,
    ),
    Verb(
        "replay",
        "loopspec.properties.cli.conform",
        "rerun saved case files (one, several or a folder's) against a target named on the "
        "command line",
        "0 no case diverges any more (or only by a known divergence); 1 a case still diverges; "
        "2 a case file or the target cannot be used",
        starts_processes=True,
    ),
    Verb(
        "check",
        "loopspec.properties.cli.check",
        "check recorded session logs against the log invariants, offline",
        "0 every log keeps the rules; 1 a rule is broken; 2 usage error or input that "
        "cannot be read",
    ),
    Verb(
        "run",
        "loopspec.properties.cli.run",
        "run a scripted session with real hooks on the bundled loop (or, with --harness, "
        "on the real Claude Code or Codex CLI), show every reader",
        "0 the session ran; 1 (--harness) the real loop diverged from the model; 2 the "
        "scenario, hooks file, harness or log path cannot be used",
        starts_processes=True,
    ),
    Verb(
        "schema",
        "loopspec.properties.cli.schema",
        "print the JSON Schema of the driver protocol (JSON lines over stdio), or of a case "
        "file (loopspec schema case)",
        "0 printed",
    ),
    Verb(
        "spec",
        "loopspec.properties.cli.spec",
        "print the rules named (loopspec spec RW-1), or the generated SPEC.md tables, or "
        "check/update them in a file",
        "0 printed, or the file is current / was rewritten; 1 --check found stale sections; "
        "2 SPEC.md states no such rule, or the file cannot be read",
    ),
)
VERB_BY_NAME = {verb.name: verb for verb in VERBS}


class CommandModule(Protocol):
    """What a verb module provides."""

    register: Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]


def version() -> str:
    """The installed distribution's version (read only when asked for)."""
    from loopspec import __version__  # noqa: PLC0415 (lazy: --help must not pay for it)

    return __version__


class _VersionAction(argparse.Action):
    """`--version`, resolved only when given, so `--help` stays import-free."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(f"{PROGRAM} {version()}")
        parser.exit()


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The parser; only `verb`'s module is imported (every verb's with `verb="*"`)."""
    parser = _Parser(
        prog=PROGRAM,
        formatter_class=_HelpFormatter,
        description="An executable reference model of an agent's tool-call loop, and checks "
        "that hold implementations to it. Run `loopspec VERB --help` for a verb's options.",
        epilog="exit status: 0 success; 1 the checked thing breaks a rule; "
        "2 usage error or unusable input (never a traceback)",
    )
    parser.add_argument(
        "--version", nargs=0, action=_VersionAction, help="print the version and exit"
    )
    # Typed as the verbs' modules see it: every parser they add is an ArgumentParser.
    subparsers = cast(
        "argparse._SubParsersAction[argparse.ArgumentParser]",
        parser.add_subparsers(
            dest="command", required=True, metavar="VERB", parser_class=_VerbParser
        ),
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
    parser.epilog = f"exit status: {verb.exit_codes}"


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


class _VerbParser(_Parser):
    """A verb's parser: its help is formatted by `_VerbHelpFormatter`, whatever formatter the
    verb's module asks for (one it names would ask shutil for the width while arguments are
    added)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["formatter_class"] = _VerbHelpFormatter
        super().__init__(*args, **kwargs)


def _chosen_verb(argv: Sequence[str]) -> str | None:
    """The first argument that names a verb (options before it take no values)."""
    for argument in argv:
        if not argument.startswith("-"):
            return argument if argument in VERB_BY_NAME else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one verb; return its exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            parser = build_parser(_chosen_verb(arguments))
            args, extra = parser.parse_known_args(arguments)
            if extra:  # the verb's usage, not the top level's `loopspec VERB ...`, says what fits
                verb_parser = _subparsers(parser).choices[args.command]
                verb_parser.error(f"unrecognized arguments: {' '.join(extra)}")
            handler: Callable[[argparse.Namespace], int] = args.handler
            # Only the real program (not a test calling main) may end every descendant at exit.
            reap = argv is None and VERB_BY_NAME[args.command].starts_processes
            status = _run(handler, args, reap)
        except SystemExit:  # help, --version, a usage error: argparse's way out
            if not _output_written():
                return 2
            raise
        except BrokenPipeError:
            raise
        except OSError as error:  # --version, or help argparse now lets fail, not written
            _say_unwritten(error)
            return 2
        if not _output_written():
            return 2
    except BrokenPipeError:
        return _quiet_after_broken_pipe()
    return status


def _output_written() -> bool:
    """Whether what was printed reached stdout: a buffered stdout is written only here, and a
    failure at the interpreter's exit printed two lines of Python's and exit status 120 (or,
    unbuffered, an OSError argparse dropped, status 0). When not, it is said on stderr."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        _say_unwritten(error)
        return False
    return True


def _say_unwritten(error: OSError) -> None:
    """One line on stderr in the system's words; what stdout still holds is dropped, so the
    interpreter's own flush at exit does not fail again and add its two lines."""
    from loopspec.impl.system_words import system_reason  # noqa: PLC0415 (only on failure)

    with contextlib.suppress(OSError):  # stderr may be full too: the status still says it
        print(f"{PROGRAM}: error: {system_reason(error)}", file=sys.stderr, flush=True)
    _drop_stdout()


def _run(handler: Callable[[argparse.Namespace], int], args: argparse.Namespace, reap: bool) -> int:
    from loopspec.model.errors import LoopSpecError  # noqa: PLC0415 (lazy, as above)

    if not reap:
        return _handled(handler, args, LoopSpecError)
    from loopspec.impl.hookbridge import reaping  # noqa: PLC0415 (only verbs that need it)

    # A descendant that left its process group and cleared its environment still reparents
    # to us as a subreaper, and is ended here (SAFE-3).
    reaping.become_subreaper()
    import signal  # noqa: PLC0415 (only verbs that start processes)

    # SIGTERM's default action would end us on the spot, leaving every target and hook, each in
    # a session of its own, running (SAFE-3). Ended here instead, not by an exception raised
    # through the run: one raised while a gc callback runs is dropped, and the run goes on.
    signal.signal(signal.SIGTERM, _end_everything_below)
    try:
        return _handled(handler, args, LoopSpecError)
    finally:
        reaping.kill_descendants()


def _end_everything_below(signum: int, frame: object) -> None:
    """SIGTERM (a CI job's timeout, `kill`): end every descendant, then exit 143 (128 +
    SIGTERM, what a shell reports for a program SIGTERM ended) without unwinding."""
    from loopspec.impl.hookbridge import reaping  # noqa: PLC0415 (loaded by _run already)
    from loopspec.properties.cli.unfilled_files import remove_unfilled  # noqa: PLC0415

    reaping.kill_descendants()
    # An empty `--log` the run made: os._exit skips the code that removes it, and it blocked
    # the rerun naming it.
    remove_unfilled()
    # os._exit skips the flush at exit: what the run printed to a pipe or a file (a CI log) is
    # still in Python's buffer. A flush the signal interrupted mid-write refuses to reenter; one
    # into a full pipe nobody reads would block for ever, so an alarm ends the wait.
    import contextlib  # noqa: PLC0415 (only on SIGTERM)
    import signal  # noqa: PLC0415 (loaded by _run already)

    signal.signal(signal.SIGALRM, lambda _signum, _frame: os._exit(128 + signum))
    signal.alarm(FLUSH_SECONDS_AT_SIGTERM)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            stream.flush()
    os._exit(128 + signum)


FLUSH_SECONDS_AT_SIGTERM = 2
"""How long a SIGTERM'd run may wait to hand what it printed to its stdout and stderr."""


def _handled(
    handler: Callable[[argparse.Namespace], int],
    args: argparse.Namespace,
    failure: type[Exception],
) -> int:
    try:
        return handler(args)
    except failure as error:
        said = str(error)
        if hasattr(args, "answer_timeout"):  # conform, replay: a --cmd process's hang
            from loopspec.properties.conformance.run import with_wait_hint  # noqa: PLC0415

            said = with_wait_hint(said, "--answer-timeout")
        print(f"{PROGRAM}: error: {said}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise
    except OSError as error:
        # In the system's words, as every verb quotes them (no "[Errno 28]"): most often the
        # output could not be written (a full disk, /dev/full).
        from loopspec.impl.system_words import system_reason  # noqa: PLC0415

        where = "" if error.filename is None else f"{error.filename}: "
        print(f"{PROGRAM}: error: {where}{system_reason(error)}", file=sys.stderr)
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError:  # it was stdout that failed: said once, not again at the last flush
            _drop_stdout()
        return 2
    except KeyboardInterrupt:
        return 130


def _quiet_after_broken_pipe() -> int:
    """The reader went away: drop what is still buffered and end like `head`'s writers do."""
    _drop_stdout()
    return BROKEN_PIPE_STATUS


def _drop_stdout() -> None:
    """Point stdout at the null device, so what it still buffers goes nowhere, quietly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
