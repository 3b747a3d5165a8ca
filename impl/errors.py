"""The errors the implementation raises on purpose.

`Refused` is the family of inputs the loop does not accept in its current state: the caller is
told at once, and nothing changed (no event, no state). The other errors report data the loop
will not store (`NotJsonData`), a log it cannot read (`CorruptLog`), or a programming error in
how a tool execution was driven (`StageOrderError`).
"""

from __future__ import annotations


class ImplError(Exception):
    """Root of every error `impl` raises on purpose."""


class Refused(ImplError):
    """An input that is not accepted now; the loop is exactly as it was before."""


class NotPending(Refused):
    """An answer arrived for a request nobody is waiting on (no model call, hook, approval...)."""


class MalformedReply(Refused):
    """A model reply the loop cannot act on (for example, tool call ids that repeat)."""


class WrongVerdictCount(Refused):
    """A finished call came with a different number of PostToolUse verdicts than hooks match."""


class NothingToAbort(Refused):
    """Abort while no turn is running."""


class AlreadyAborting(Refused):
    """Abort while the running turn is already aborting."""


class SessionLocked(Refused):
    """The log file is held by another live loop; a log has one writer at a time."""


class LoopDiscarded(Refused):
    """The loop was discarded (its process is considered dead); it accepts nothing more."""


class NotJsonData(ImplError, ValueError):
    """A value that is not lossless JSON was offered where the log needs JSON."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"not lossless JSON at {path}: {reason}")


class CorruptLog(ImplError):
    """A log file whose damage a crash cannot explain (only a torn tail can be repaired)."""


class StageOrderError(ImplError):
    """A tool execution was driven out of order or through a stage twice."""
