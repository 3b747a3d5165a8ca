"""The interrupts a target starts with: their default action, however loopspec was started.

A shell without job control starts a background job (`loopspec conform ... &` in a script, a CI
step, `nohup ... &`) with SIGINT and SIGQUIT ignored, and an ignored signal stays ignored across
`exec`: every `--cmd` target, and the CLI a harness adapter interrupts with SIGINT for an abort
command, ignored it, so an abort reached the loop from a terminal's run and not from a
background one. A signal taken by a handler is, unlike an ignored one, back at its default action
in a program `exec` starts: where loopspec was given one of them ignored, it takes it with a
handler that does nothing, which keeps loopspec's own behaviour (the signal ends nothing), and
each child started from then on gets the default action.

SIGHUP, which `nohup` ignores, is passed on as given: the user asked that the run outlive its
terminal. A target runs in a session of its own, so a terminal's Ctrl-C reaches it neither way.
"""

from __future__ import annotations

import signal
import threading
from typing import Final

INTERRUPTS: Final = (signal.SIGINT, signal.SIGQUIT)
"""The signals a shell's background start ignores, which a loop's abort may be sent as."""


def _still_ignored(_signum: int, _frame: object) -> None:
    """Nothing: the signal was ignored when loopspec started, and still is, for loopspec."""


def children_start_with_default_interrupts() -> None:
    """Have the programs started from now on begin with `INTERRUPTS` at their default action,
    where loopspec was started with one of them ignored (see the module's words). Only the main
    thread can set a handler: called from another, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in INTERRUPTS:
        if signal.getsignal(signum) is signal.SIG_IGN:
            signal.signal(signum, _still_ignored)
