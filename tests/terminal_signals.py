"""A child started as a terminal's foreground job has its signals, whatever started the suite.

A suite started in the background by a shell without job control (`make test &` in a script, a
CI step that runs jobs so) hands every child SIGINT and SIGQUIT ignored, and `nohup` hands it
SIGHUP ignored. loopspec rightly keeps a signal ignored at its start ignored, so a test that
sends one of them to a child waited out its timeout and failed, on any machine, loaded or not:
a failure that said nothing of loopspec.
"""

from __future__ import annotations

import signal

# Those a shell or `nohup` may hand a child ignored; SIGTERM no shell ignores.
TERMINAL_SIGNALS = (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP)


def as_a_terminals_foreground_job() -> None:
    """For `preexec_fn` (in the child, before exec): each of `TERMINAL_SIGNALS` back to its
    default action, as an interactive shell starts a foreground job."""
    for signum in TERMINAL_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)
