"""A signal that ends the run ends it now, not when the main thread's blocking call returns.

CPython runs a Python signal handler in the main thread, when that thread next checks for
signals. A signal that lands after that check and before a blocking system call (the main thread
between its last check and `clock_nanosleep`, `poll` or `read`), or that another thread takes,
interrupts nothing: the handler waits until the call returns. SIGTERM then ended a run only
once its harness CLI, target or sleep did (a loaded CI machine made the window wide enough to
hit: the run outlived the test's 30 s wait), and Ctrl-C's KeyboardInterrupt likewise. Python's
wakeup fd hears every signal as it arrives; a thread reading it wakes the main thread with a
signal whose handler does nothing (`WAKE`): the interrupted call checks for signals, and runs
the handler that was waiting, whichever it is.

A Ctrl-C whose KeyboardInterrupt is raised in Python code the interpreter runs for itself (a
garbage collector's callback, as Hypothesis registers one; a `__del__`) is dropped there, "Exception
ignored in ...", and the run went on to its verdict, exit 0 (`raise_dropped_ctrl_c_again`).
"""

from __future__ import annotations

import _thread
import atexit
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Collection
from typing import NoReturn

WAKE = signal.SIGURG
"""Sent to the main thread to interrupt its blocking call; its default action is to ignore it,
and nothing in loopspec uses it."""
WAKE_EVERY_SECONDS = 0.05
"""How long the main thread may take to run a waiting handler before it is woken (again)."""
WAKE_AFTER_CTRL_C_SECONDS = 1.0
"""How long the main thread is woken after a Ctrl-C: its KeyboardInterrupt leaves no sign that
it was raised, and a wake too many only interrupts a call Python then resumes."""


def end_promptly(ending: Collection[signal.Signals], end: Callable[[int], NoReturn]) -> None:
    """Install `end(signum)` (which must not return) as the main thread's handler of `ending`,
    and have it, and Ctrl-C's handler, run promptly whatever the main thread is blocked in.
    Call it from the main thread."""
    begun = threading.Event()

    def handler(signum: int, _frame: object) -> None:
        if begun.is_set():  # sent again while ending: the first call carries on
            return
        begun.set()
        end(signum)

    # One ignored when loopspec started stays ignored: `nohup loopspec conform ...` ignores
    # SIGHUP so a closed terminal does not end the run, and a handler of its own ended it.
    ending = [each for each in ending if signal.getsignal(each) is not signal.SIG_IGN]
    for each in ending:
        signal.signal(each, handler)
    signal.signal(WAKE, lambda _signum, _frame: None)
    raise_dropped_ctrl_c_again()
    # Registered before what the run registers, so run after it: the run is over.
    atexit.register(_ignored_while_exiting, [*ending, signal.SIGINT])
    heard, told = os.pipe()
    os.set_blocking(told, False)  # a full pipe must not block a signal handler
    signal.set_wakeup_fd(told, warn_on_full_buffer=False)
    waker = _Waker(heard, {int(each) for each in ending}, threading.get_ident())
    threading.Thread(target=waker.run, name="loopspec-prompt-ending", daemon=True).start()


def _ignored_while_exiting(signals: Collection[signal.Signals]) -> None:
    """Ignore `signals` from here to the process's end: the verb has returned, its report is
    written and its processes are ended. Python gives each signal it handles its default action
    back as it tears itself down, and a Ctrl-C or SIGTERM then ended a finished run killed by it
    (status -2, -15), with no line and without its verdict's status."""
    for each in signals:
        if signal.getsignal(each) is not signal.SIG_IGN:
            signal.signal(each, signal.SIG_IGN)


def raise_dropped_ctrl_c_again() -> None:
    """Have a KeyboardInterrupt the interpreter drops (raised in a gc callback or a `__del__`,
    which cannot pass it on) raised again in the main thread where it next checks for signals,
    as the Ctrl-C it was: 2 of 16 Ctrl-Cs to conform printed the collector's traceback and went
    on to CONFORMANT, exit 0. Other exceptions dropped are said as before."""
    previous = sys.unraisablehook

    def raise_again(unraisable: sys.UnraisableHookArgs) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            # From another thread, once this one lets it run (`threading`'s start would wait
            # for it): raised here, in the hook, it was dropped again.
            _thread.start_new_thread(_thread.interrupt_main, (signal.SIGINT,))
            return
        previous(unraisable)

    sys.unraisablehook = raise_again


class _Waker:
    """Reads the wakeup fd; wakes the main thread from the ending's arrival until the process
    ends (the ending's own deadline, an alarm, may land before a blocking write too), and for a
    while after each Ctrl-C."""

    def __init__(self, heard: int, ending: set[int], main: int) -> None:
        self.heard, self.ending, self.main = heard, ending, main
        self.ending_arrived = False
        self.ctrl_c_until = 0.0
        self.due: float | None = None  # when the main thread is woken next

    def run(self) -> None:
        # The kernel may hand a signal sent to the process to any thread that does not block
        # it; this one blocks them, so the main thread takes them when it can.
        signal.pthread_sigmask(signal.SIG_BLOCK, {*self.ending, signal.SIGINT, WAKE})
        while True:
            wait = None if self.due is None else max(0.0, self.due - time.monotonic())
            if select.select([self.heard], [], [], wait)[0]:
                self._heard(os.read(self.heard, 64))
            elif self._still_waking():
                signal.pthread_kill(self.main, WAKE)
                self.due = time.monotonic() + WAKE_EVERY_SECONDS
            else:
                self.due = None

    def _heard(self, numbers: bytes) -> None:
        now = time.monotonic()
        if any(number in self.ending for number in numbers):
            self.ending_arrived = True
        if signal.SIGINT in numbers:
            self.ctrl_c_until = now + WAKE_AFTER_CTRL_C_SECONDS
        if self.due is None and self._still_waking():
            self.due = now + WAKE_EVERY_SECONDS

    def _still_waking(self) -> bool:
        return self.ending_arrived or time.monotonic() < self.ctrl_c_until
