"""The `loopspec` command line: the verb table, lazy loading, exit codes and pipe etiquette.

Each verb lives in its own module exposing `register(subparsers)`, which adds the verb's parser
and sets `handler` to a function `(args) -> int` returning the exit code. Only the module of the
verb being run is imported: `loopspec --help` and `loopspec --version` import none of them, so
they answer at interpreter speed (`benchmarks/bench_cli.py` measures it). The parsers are
`cli.parser`'s; the usual `loopspec check PATH...` and `loopspec spec RULE...` (the command
check names under its violations) are read without them (`_usual_check`), and `loopspec
--version` answered. The program (`program`, what the console script and `python -m loopspec`
run) ends those two, and help, `--version` and usage errors, without the interpreter's
finalization.

Exit codes: 0 success, 1 the checked thing breaks a rule, 2 usage errors and input that cannot
be used — never a traceback, 3 loopspec itself failed: an exception no verb expected, a bug in
loopspec, printed with its traceback to report it (Python's own status for it, 1, would pass
in a CI step for "a rule is broken"). A closed output pipe (`loopspec check logs/ | head`) ends the
program quietly with status 141 (128 + SIGPIPE), as a program killed by SIGPIPE would. Output
the system will not take (a full disk, `/dev/full`; a closed stdout), help and `--version`
included, ends it with one line on stderr in the system's words and status 2: a report that
was not written must not pass for one that was.
"""

from __future__ import annotations

import gc
import io
import os
import sys

from loopspec.properties.cli import Stopped, raise_if_stopped, stop_on_ending_signals, stop_said

# typing's flag, read by type checkers by name: typing (with the re, enum and contextlib it
# imports) would double `loopspec check`'s start-up (tests/test_check_startup.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse  # imported by `cli.parser` only: the usual check runs without argparse
    from collections.abc import Callable, Sequence
    from typing import NoReturn, TypeVar

    Arguments = TypeVar("Arguments")
    """What a verb's handler reads its options from: argparse's namespace, or check's own."""

PROGRAM = "loopspec"
INTERNAL_ERROR_STATUS = 3
"""A bug in loopspec itself, told apart from a broken rule (1) and unusable input (2)."""
INTERNAL_ERROR_WORDS = "3 loopspec itself failed (a bug in loopspec: its traceback, to report)"
"""How every `--help` names that status."""
SIGNAL_STATUS_WORDS = (
    "130 Ctrl-C, 143 SIGTERM (a CI job's timeout), 129 SIGHUP, 131 SIGQUIT, 141 a closed "
    "output pipe"
)
"""How every `--help` names the statuses of a run a signal or a closed pipe ended."""
BROKEN_PIPE_STATUS = 141


class Verb:
    """One subcommand: the module that registers it, what it does, what its exits mean. (A
    plain class: a NamedTuple's typing, or the model's records, would cost `--help` and `check`
    their start-up.)"""

    __slots__ = ("exit_codes", "module", "name", "starts_processes", "summary")

    def __init__(
        self,
        name: str,
        module: str,
        summary: str,
        exit_codes: str,
        *,
        starts_processes: bool = False,
    ) -> None:
        self.name = name
        self.module = module
        self.summary = summary
        self.exit_codes = exit_codes
        # Verbs that start hooks or targets reap every descendant before the program exits.
        self.starts_processes = starts_processes


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
        "(shrunk, saved as a case file, blamed on the rule it breaks; Ctrl-C while it is "
        "shrunk keeps the smallest found by then); 2 the target speaks "
        "the driver protocol wrongly (PROTO-1) or answered a program two ways (a divergence "
        "gone when rerun: its program is saved as a case all the same), cannot be started or "
        "cannot run here (a setup error, naming no rule), or a usage error",
        starts_processes=True,
    ),
    Verb(
        "replay",
        "loopspec.properties.cli.conform",
        "rerun saved case files (one, several or a folder's) against a target named on the "
        "command line",
        "0 no case diverges any more (or only by a known divergence); 1 a case still diverges; "
        "2 a case file or the target cannot be used, or a usage error",
        starts_processes=True,
    ),
    Verb(
        "check",
        "loopspec.properties.cli.check",
        "check recorded session logs against the log invariants, offline",
        "0 every log keeps the rules (but for known divergences; notices, such as a crash's "
        "torn last line or a hook's fault, pass); 1 a rule is broken (or, with "
        "--fail-on-hook-faults, a hook faulted); 2 usage error or input that cannot be read "
        "(invalid JSON or UTF-8, a dsh log's line cut off with another after it, an "
        "unsupported layout, ...), also when another log breaks a rule: the summary line, and "
        "the JSON's summary, count both",
    ),
    Verb(
        "run",
        "loopspec.properties.cli.run",
        "run a scripted session with real hooks on the bundled loop (or, with --harness, "
        "on the real Claude Code or Codex CLI), show every reader",
        "0 the session ran; 1 (--harness) the real loop diverged from the model; 2 the "
        "scenario, hooks file, harness or log path cannot be used, or a usage error",
        starts_processes=True,
    ),
    Verb(
        "schema",
        "loopspec.properties.cli.schema",
        "print the JSON Schema of the driver protocol (JSON lines over stdio), of a case "
        "file (loopspec schema case), or of the document check, conform or replay writes "
        "with --format json (loopspec schema check)",
        "0 printed; 2 a usage error",
    ),
    Verb(
        "spec",
        "loopspec.properties.cli.spec",
        "list the rules (loopspec spec --list), print the rules named (loopspec spec RW-1), show "
        "one broken in a log (loopspec spec RW-1 --example), or the generated SPEC.md tables, or "
        "check/update them in a file",
        "0 printed, or the file is current / was rewritten; 1 --check found stale sections; "
        "2 SPEC.md states no such rule, the rule has no example log (--example --log), the "
        "file cannot be read, or a usage error",
    ),
)
VERB_BY_NAME = {verb.name: verb for verb in VERBS}


def version_line() -> str:
    """What `--version` prints, the installed distribution's version read only when asked for:
    `main`'s shortcut and the parser's `--version` both print this line."""
    from loopspec import __version__  # noqa: PLC0415 (lazy: --help must not pay for it)

    return f"{PROGRAM} {__version__}"


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The parser; only `verb`'s module is imported (every verb's with `verb="*"`)."""
    from loopspec.properties.cli.parser import build_parser  # noqa: PLC0415 (see `_usual_check`)

    return build_parser(verb)


def _chosen_verb(argv: Sequence[str]) -> str | None:
    """The first argument that names a verb (options before it take no values)."""
    for argument in argv:
        if not argument.startswith("-"):
            return argument if argument in VERB_BY_NAME else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one verb; return its exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if argv is None:  # the real program, not a test calling main
        _hold_the_collector()
        stop_on_ending_signals()  # taken over already where the `cli` package started it
    if sys.stderr is None:  # started with stderr closed (`2>&-`): Python made no stream of it
        _stderr_to_the_null_device()
    if sys.stdout is None:  # started with stdout closed (`>&-`): Python made no stream of it
        _say(f"{PROGRAM}: error: standard output is closed")
        return 2
    _escape_what_the_output_cannot_encode()
    try:
        try:
            if arguments == ["--version"]:  # as argparse's `--version` does, without it
                print(version_line())
                raise SystemExit(0)
            status = _usual_check(arguments)
            if status is None:
                from loopspec.properties.cli.parser import parse  # noqa: PLC0415 (see above)

                args = parse(arguments, _chosen_verb(arguments))
                start_up_done()
                handler: Callable[[argparse.Namespace], int] = args.handler
                # Only the real program (not a test calling main) may end every descendant.
                reap = argv is None and VERB_BY_NAME[args.command].starts_processes
                status = _run(handler, args, reap)
            raise_if_stopped()  # one whose exception something on the way dropped
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
    except Exception:  # the one place every exception no verb expected ends: a bug
        return _internal_error()
    except (KeyboardInterrupt, Stopped) as stop:
        # Ctrl-C or SIGTERM before the verb ran or after it returned (its modules loading, its
        # options read, its processes reaped): as one during it (`_handled`), not a traceback.
        verb = VERB_BY_NAME.get(_chosen_verb(arguments) or "")
        started = verb is not None and verb.starts_processes
        _say(f"{PROGRAM}: {stopped_by(_cause(stop), started_processes=started)}")
        return _stopped_status(stop)
    return status


def _cause(stop: KeyboardInterrupt | Stopped) -> str:
    """What a stopped run's line names: Ctrl-C, or the signal (SIGTERM)."""
    if isinstance(stop, KeyboardInterrupt):
        return "Ctrl-C"
    import signal  # noqa: PLC0415 (only once stopped: it imports enum)

    return signal.Signals(stop.signum).name


def _stopped_status(stop: KeyboardInterrupt | Stopped) -> int:
    """128 + the signal's number, as a shell reports a program the signal ended; the stop is
    said by now, and is not raised again (`raise_if_stopped`)."""
    stop_said()
    _nothing_said_after_the_stop()
    return 130 if isinstance(stop, KeyboardInterrupt) else 128 + stop.signum


def _nothing_said_after_the_stop() -> None:
    """Keep the stop's line the run's last: what the cut run left is collected as the program
    ends, and the bundled loop's event loop, stopped by Ctrl-C mid-command, had Python add five
    lines of its own (a coroutine "never awaited", asyncio's "Task was destroyed but it is
    pending!" with the task), 1 Ctrl-C in 3 of `conform --exhaustive 3`."""
    import warnings  # noqa: PLC0415 (only once stopped)

    warnings.simplefilter("ignore")
    logging = sys.modules.get("logging")
    if logging is not None:  # loaded with asyncio, which logs the pending task through it
        logging.getLogger("asyncio").disabled = True


def _internal_error() -> int:
    """Print the exception being handled, a bug in loopspec, with what to do about it, and give
    `INTERNAL_ERROR_STATUS`: the traceback is what a bug report needs, and the status keeps a CI
    step from reading the crash as a rule the checked loop broke."""
    import contextlib  # noqa: PLC0415 (likewise)
    import traceback  # noqa: PLC0415 (only on a bug)

    with contextlib.suppress(OSError):
        traceback.print_exc(file=sys.stderr)
    _say(
        f"{PROGRAM}: internal error: the traceback above is a bug in loopspec, not in what it "
        f"checked; please report it (exit status {INTERNAL_ERROR_STATUS})"
    )
    return INTERNAL_ERROR_STATUS


def _stderr_to_the_null_device() -> None:
    """Give a program started without stderr one that takes what it is told and keeps none of
    it: conform's progress line asked it whether it was a terminal, an AttributeError no one
    saw, exit 1 and no case saved. Descriptor 2 is the null device's too: left free, the first
    file the verb opened (a log) would take it, and a process started with the stderr it
    inherits would write into that file."""
    descriptor = os.open(os.devnull, os.O_WRONLY)
    if descriptor != 2:
        os.dup2(descriptor, 2)
        os.close(descriptor)
    # The program's stderr from now on, never closed.
    stream = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr = stream


def program() -> int:
    """The `loopspec` program as its console script and `python -m loopspec` run it: `main` on
    `sys.argv`; a check, or `spec RULE...`, then ends the process at once (`_end_at_once`), as
    does help, `--version` or a usage error, which end before any verb ran."""
    try:
        status = main()
    except SystemExit as ending:
        # argparse's way out, and `--version`'s: they wrote stdout or stderr alone. Tearing down
        # argparse, re and gettext was a tenth of `loopspec check --help`'s instructions.
        if _COLLECTOR_HELD and isinstance(ending.code, int):  # held: no verb started yet
            _end_at_once(ending.code)
        raise
    arguments = sys.argv[1:]
    verb = _chosen_verb(arguments)
    if verb == "check" or (verb == "spec" and _spec_rules_only(arguments)):
        _end_at_once(status)
    return status


def _spec_rules_only(arguments: Sequence[str]) -> bool:
    """Whether `arguments` is `spec RULE...` or `spec --list [RULE...]`, which only print rules
    (`_usual_spec`)."""
    from loopspec.properties.cli.spec import (  # noqa: PLC0415 (loaded already)
        usual_spec_list,
        usual_spec_rules,
    )

    rules = arguments[1:]
    return arguments[:1] == ["spec"] and (
        usual_spec_rules(rules) is not None or usual_spec_list(rules) is not None
    )


def _end_at_once(status: int) -> None:
    """End the process with `status` without the interpreter's finalization: it only tore down
    the modules and objects start-up built, a thirteenth of a small check's instructions
    (benchmarks/bench_cli.py). check, `spec RULE...`, help and usage errors write nothing but
    stdout and stderr, flushed here first.
    Nothing else can be waiting for the exit where neither `atexit` (coverage, logging and
    `weakref.finalize` register there) nor `threading` (whose threads the exit joins) was
    imported; otherwise, or when a stream will not flush, the usual exit is left to report it."""
    if "atexit" in sys.modules or "threading" in sys.modules:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(status)


_COLLECTOR_HELD: list[bool] = []
"""[True] while the program holds the cyclic collector off (`_hold_the_collector`)."""


def _hold_the_collector() -> None:
    """Stop the cyclic garbage collector until the verb's modules are imported: what the
    interpreter's start and those imports build (modules, classes, functions, tables) lives
    until the program exits, and the collections its allocations set off only walked it again
    and again, a tenth of `loopspec check`'s instructions (benchmarks/bench_cli.py)."""
    gc.disable()
    _COLLECTOR_HELD.append(True)


def start_up_done() -> None:
    """The verb's modules are imported: set what start-up built aside from the collector for
    good (`gc.freeze`), and let it run again, now on what the verb makes. Nothing where the
    collector was not held: a test calling `main` keeps its own collector as it was (frozen, an
    object unreachable now would never be freed)."""
    raise_if_stopped()  # a signal whose exception an import's compile dropped
    if _COLLECTOR_HELD:
        _COLLECTOR_HELD.clear()
        gc.freeze()
        gc.enable()


def _escape_what_the_output_cannot_encode() -> None:
    """Write a character the output's encoding lacks as Python writes it in its own errors,
    `\\u2014`: where stdout or stderr is not UTF-8 (`PYTHONIOENCODING=ascii`, a Latin-1 locale,
    the C locale with `PYTHONUTF8=0`), a report holding SPEC text's dash or a user's `é` ended in
    a UnicodeEncodeError traceback, exit 1; and UTF-8 has no lone surrogate, which a report
    quoting a target's title or arguments (EXE-2 reads `\\udc00` as one) held, exit 3."""
    for stream in (sys.stdout, sys.stderr):
        # Only the real streams: a test's capture (io.StringIO) encodes nothing.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def _usual_check(arguments: Sequence[str]) -> int | None:
    """Run `loopspec check PATH...` with the usual options, read without argparse
    (`cli.check.usual_check_arguments`), or `loopspec spec RULE...` (`cli.spec.usual_spec_rules`),
    and give its exit status; None for any other command line, which argparse reads
    (`cli.parser`)."""
    if arguments[:1] == ["spec"]:
        return _usual_spec(arguments[1:])
    if arguments[:1] != ["check"]:
        return None
    from loopspec.properties.cli.check import run, usual_check_arguments  # noqa: PLC0415

    args = usual_check_arguments(arguments[1:])
    if args is None:
        return None
    return _run(run, args, reap=False)


def _usual_spec(arguments: Sequence[str]) -> int | None:
    """Print the rules `loopspec spec RULE...` names (the command check prints under its
    violations), or their titles (`spec --list [RULE...]`), without argparse; None for any
    other `spec` command line."""
    from loopspec.properties.cli.spec import (  # noqa: PLC0415
        print_rules,
        print_titles,
        usual_spec_list,
        usual_spec_rules,
    )

    rules = usual_spec_rules(arguments)
    if rules is not None:
        start_up_done()
        return _run(print_rules, rules, reap=False)
    listed = usual_spec_list(arguments)
    if listed is None:
        return None
    start_up_done()
    return _run(print_titles, listed, reap=False)


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

    _say(f"{PROGRAM}: error: {system_reason(error)}")
    _drop_stdout()


def _say(line: str) -> None:
    """`line` on stderr, if stderr takes it: it may be full or closed too, and the exit status
    still says it."""
    import contextlib  # noqa: PLC0415 (only on failure: check starts without it)

    with contextlib.suppress(OSError):
        print(line, file=sys.stderr, flush=True)


def _run(handler: Callable[[Arguments], int], args: Arguments, reap: bool) -> int:
    if not reap:
        return _handled(handler, args)
    from loopspec.impl.hookbridge import reaping  # noqa: PLC0415 (only verbs that need it)

    # A descendant that left its process group and cleared its environment still reparents
    # to us as a subreaper, and is ended here (SAFE-3).
    reaping.become_subreaper()
    import signal  # noqa: PLC0415 (only verbs that start processes)

    from loopspec.properties.cli.prompt_ending import end_promptly  # noqa: PLC0415 (likewise)

    # SIGTERM's default action would end us on the spot, leaving every target and hook, each in
    # a session of its own, running (SAFE-3). Ended here instead, not by an exception raised
    # through the run: one raised while a gc callback runs is dropped, and the run goes on.
    # A closed terminal (SIGHUP, POSIX) likewise, and Ctrl-\ (SIGQUIT), whose default action
    # ended loopspec alone, every hook and target it started left running.
    posix = [signal.SIGHUP, signal.SIGQUIT] if hasattr(signal, "SIGQUIT") else []
    ending = [signal.SIGTERM, *posix]
    end_promptly(ending, _end_everything_below)
    try:
        return _handled(handler, args)
    finally:
        reaping.end_descendants()


def _end_everything_below(signum: int) -> NoReturn:
    """SIGTERM (a CI job's timeout, `kill`): end every descendant, then exit 143 (128 +
    SIGTERM, what a shell reports for a program SIGTERM ended) without unwinding."""
    import contextlib  # noqa: PLC0415 (only on SIGTERM)

    from loopspec.impl.hookbridge import reaping  # noqa: PLC0415 (loaded by _run already)
    from loopspec.properties.unfilled_files import remove_unfilled  # noqa: PLC0415

    reaping.end_descendants()
    # An empty `--log` the run made: os._exit skips the code that removes it, and it blocked
    # the rerun naming it.
    remove_unfilled()
    # The in-process target's scratch folder, where one was made: its module, looked up rather
    # than imported, is loaded only by verbs that drive one, and may be loading still (no
    # `remove_scratch` yet, nor a folder): an AttributeError raised here went on through that
    # import, and the run ended "cannot load ...impl_target", exit 2.
    scratch = sys.modules.get("loopspec.properties.conformance.impl_target")
    remove_scratch = getattr(scratch, "remove_scratch", None)
    if remove_scratch is not None:
        with contextlib.suppress(OSError):
            remove_scratch()
    # os._exit skips the flush at exit: what the run printed to a pipe or a file (a CI log) is
    # still in Python's buffer. A flush the signal interrupted mid-write refuses to reenter; one
    # into a full pipe nobody reads would block for ever, so an alarm ends the wait.
    import signal  # noqa: PLC0415 (loaded by _run already)

    signal.signal(signal.SIGALRM, lambda _signum, _frame: os._exit(128 + signum))
    signal.alarm(FLUSH_SECONDS_AT_SIGTERM)
    # sys.__stdout__ too: a Python target's call has sys.stdout sent to stderr while it runs.
    for stream in (sys.stdout, sys.__stdout__, sys.stderr):
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            if stream is not None:  # __stdout__, where Python made no stream of it
                stream.flush()
    # Said last, why the run ended (a CI log read a bare 143 as a crash); written past
    # sys.stderr, whose buffered write the signal may have interrupted.
    with contextlib.suppress(OSError):
        os.write(2, f"{PROGRAM}: {stopped_by(signal.Signals(signum).name)}\n".encode())
    os._exit(128 + signum)


FLUSH_SECONDS_AT_SIGTERM = 2
"""How long a SIGTERM'd run may wait to hand what it printed to its stdout and stderr."""


def stopped_by(cause: str, *, started_processes: bool = True) -> str:
    """The one line a run a signal ended ends with, instead of its report; a verb that starts
    no process (check, spec, schema) says nothing of processes."""
    if not started_processes:
        return f"stopped by {cause}: its report not written"
    return f"stopped by {cause}: every process the run started is ended, its report not written"


def _handled(handler: Callable[[Arguments], int], args: Arguments) -> int:
    try:
        return handler(args)
    except BrokenPipeError:
        raise
    except OSError as error:
        # In the system's words, as every verb quotes them (no "[Errno 28]"): most often the
        # output could not be written (a full disk, /dev/full).
        from loopspec.impl.system_words import system_reason  # noqa: PLC0415

        where = "" if error.filename is None else f"{error.filename}: "
        said = f"{where}{system_reason(error)}"
        if error.filename is None and _current_folder_gone():
            # Python's "no such file or directory" named no file: the one missing is the folder
            # the verb was started in, deleted since (a checkout's temporary folder).
            said = f"the current folder was deleted ({said}): cd to one that exists"
        print(f"{PROGRAM}: error: {said}", file=sys.stderr)
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError:  # it was stdout that failed: said once, not again at the last flush
            _drop_stdout()
        return 2
    except (KeyboardInterrupt, Stopped) as stop:
        # `check`'s own reading of its options makes no namespace: it starts no process either.
        verb = VERB_BY_NAME.get(getattr(args, "command", ""))
        started = verb is not None and verb.starts_processes
        said = stopped_by(_cause(stop), started_processes=started)
        # Looked up, not imported: loaded only by the verbs that drive a target.
        driving = sys.modules.get("loopspec.properties.conformance.run")
        hung = driving.interrupted_in_target(stop) if driving is not None else None
        _say(f"{PROGRAM}: {said}" + (f"; {hung}" if hung else ""))
        return _stopped_status(stop)
    except Exception as error:
        # The model's errors, imported only now: a verb that raised one imported them, and
        # `check` starts without them (tests/test_check_startup.py).
        from loopspec.model.errors import LoopSpecError  # noqa: PLC0415

        if not isinstance(error, LoopSpecError):
            raise
        said = str(error)
        trace: tuple[str, ...] = ()
        if hasattr(args, "answer_timeout"):  # conform, replay: a --cmd process's hang
            from loopspec.properties.conformance.run import (  # noqa: PLC0415
                TargetError,
                with_wait_hint,
            )

            said = with_wait_hint(said, "--answer-timeout")
            # A Python loop that raised: its own frames below the line, as the pytest plugin
            # shows them, where the line named the innermost alone.
            trace = error.trace if isinstance(error, TargetError) else ()
        print(f"{PROGRAM}: error: {said}", *trace, sep="\n", file=sys.stderr)
        return 2


def _current_folder_gone() -> bool:
    """Whether the folder the program runs in has been deleted."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


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
