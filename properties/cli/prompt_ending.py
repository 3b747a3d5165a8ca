"""A signal that ends the run ends it now, not when the main thread's blocking call returns.

CPython runs a Python signal handler in the main thread, when that thread next checks for
signals. A signal that lands after that check and before a blocking system call (the main thread
between its last check and `clock_nanosleep`, `poll` or `read`), or that another thread takes,
interrupts nothing: the handler waits until the call returns. SIGTERM then ended a run only
once its harness CLI, target or sleep did (a loaded CI machine made the window wide enough to
hit: the run outlived the test's 30 s wait). Python's wakeup fd hears every signal as it
arrives; a thread reading it sends the signal again to the main thread, which interrupts the
blocking call, until the handler has begun (SAFE-3).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Collection
from typing import NoReturn

NUDGE_SECONDS = 0.05
"""How long the main thread may take to start the handler before the signal is sent again."""


def end_promptly(signals: Collection[signal.Signals], end: Callable[[int], NoReturn]) -> None:
    """Install `end(signum)` (which must not return) as the main thread's handler of `signals`,
    run promptly whatever the main thread is blocked in. Call it from the main thread."""
    begun = threading.Event()

    def handler(signum: int, _frame: object) -> None:
        if begun.is_set():  # sent again while ending: the first call carries on
            return
        begun.set()
        end(signum)

    for each in signals:
        signal.signal(each, handler)
    heard, told = os.pipe()
    os.set_blocking(told, False)  # a full pipe must not block a signal handler
    signal.set_wakeup_fd(told, warn_on_full_buffer=False)
    main = threading.get_ident()
    threading.Thread(
        target=_resend_until_begun,
        args=(heard, {int(each) for each in signals}, main, begun),
        name="loopspec-prompt-ending",
        daemon=True,
    ).start()


def _resend_until_begun(heard: int, signals: set[int], main: int, begun: threading.Event) -> None:
    # The kernel may hand a signal sent to the process to any thread that does not block it;
    # this one blocks them, so the main thread takes them when it can.
    signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    arrived: list[int] = []
    while not arrived:  # the wakeup fd also hears other handled signals (SIGINT): not ours
        arrived = [number for number in os.read(heard, 64) if number in signals]
    while not begun.wait(NUDGE_SECONDS):
        signal.pthread_kill(main, arrived[0])
