"""The `loopspec` command line: one module per verb, each exposing `register(subparsers)`.

`main` builds the parser and maps errors to exit codes. Verbs import their machinery only when
they run, so `loopspec --help` answers at interpreter speed. `scenario` and `demo_scenario` are
the scripted sessions `run` and `demo` play.

This package's own code is the program's first step, as its console script and `python -m
loopspec` start it (`program`): the signals that end it are taken over before the command
line's modules load, then `main.program` runs. Taken over in `main` alone, a SIGTERM in the
milliseconds its modules took to load ended the program with a bare 143 and Ctrl-C with a
traceback. It imports nothing but what the interpreter's start loaded already; what Python runs
before it (its own start, `site`, the `loopspec` and `loopspec.properties` packages) is the only
window left. It is no module of its own: every module `loopspec check` imports costs it a
hundredth of the interpreter's start (benchmarks/bench_cli.py).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing's flag, read by type checkers by name (see `cli.main`)
if TYPE_CHECKING:
    from typing import NoReturn

ENDING_SIGNALS = ("SIGTERM", "SIGHUP", "SIGQUIT")
"""The signals that end the program, where the system has them, as Ctrl-C does."""


class Stopped(BaseException):
    """A signal that ends the program (SIGTERM, SIGHUP, SIGQUIT) arrived while no verb that
    starts processes had taken it over (`cli.main._run`): check, spec and schema unwind from it
    as from Ctrl-C's KeyboardInterrupt, so that what they print and write is flushed or removed
    whole (`spec --write`'s new file), and end with one line naming it, status 128 + its number.
    Its default action ended them silently, status 143 with no word of why."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_RECEIVED: list[int] = []
"""The ending signals `_stop` was run for: C code that runs a handler may drop what it raises
(`compile`, as an import compiles a module with no bytecode cached, returns its code as if no
signal had come), and the run went on to exit 0 with its report (`raise_if_stopped`)."""


def _stop(signum: int, _frame: object) -> NoReturn:
    # A second one while unwinding takes the default action: a run that cannot unwind (its
    # output blocked on a pipe nobody reads) still ends at the next `kill`.
    handlers = sys.modules["_signal"]
    handlers.signal(signum, handlers.SIG_DFL)
    _RECEIVED.append(signum)
    raise Stopped(signum)


def raise_if_stopped() -> None:
    """Raise `Stopped` again for an ending signal that came and whose exception was dropped on
    its way (`_RECEIVED`); nothing if none came. Called where start-up's imports are done and
    where a verb has returned, so a dropped one still ends the run as one not dropped does."""
    if _RECEIVED:
        raise Stopped(_RECEIVED[0])


def stop_said() -> None:
    """The run's stop (a signal's, or Ctrl-C's) is caught and said: not raised again."""
    _RECEIVED.clear()


def stop_on_ending_signals() -> None:
    """Raise `Stopped` on SIGTERM, SIGHUP and SIGQUIT, where the system has them; one ignored
    when loopspec started stays ignored (`nohup loopspec check ...` outlives its terminal)."""
    # Through `_signal`, the C module the interpreter's start loaded: `signal` imports enum,
    # collections and functools, more than check's whole start-up costs over the interpreter's.
    handlers = sys.modules.get("_signal")
    if handlers is None:
        return
    for name in ENDING_SIGNALS:
        number = getattr(handlers, name, None)
        if number is not None and handlers.getsignal(number) not in (handlers.SIG_IGN, _stop):
            handlers.signal(number, _stop)


def program() -> int:
    """Take the ending signals over, then run `cli.main.program`; stopped while its modules
    load, the one line a stopped run ends with, and 128 + the signal's number (130: Ctrl-C)."""
    stop_on_ending_signals()
    try:
        from loopspec.properties.cli import main  # noqa: PLC0415 (the signals taken over first)

        raise_if_stopped()
    except KeyboardInterrupt:
        return _stopped("Ctrl-C", 130)
    except Stopped as stop:
        handlers = sys.modules["_signal"]
        named = {getattr(handlers, name, None): name for name in ENDING_SIGNALS}
        return _stopped(named.get(stop.signum, f"signal {stop.signum}"), 128 + stop.signum)
    return main.program()


def _stopped(cause: str, status: int) -> int:
    """Say on stderr what `cli.main.stopped_by` says of a run that started nothing yet (written
    whole, or not at all); `status`."""
    import contextlib  # noqa: PLC0415 (only when stopped: the program starts without it)

    with contextlib.suppress(OSError):
        os.write(2, f"loopspec: stopped by {cause}: its report not written\n".encode())
    return status
