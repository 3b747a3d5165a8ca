"""The kinds of hook fault (rule HOOK-7), and how a log's `hook/result` records one.

A module of its own, importing only `enum`, so `loopspec check` reads the audit without loading
the hook bridge (attrs). The bridge names a fault in the audit summary as `KIND: DETAIL`
(`hookbridge.faults.HookFault.describe`) and a note as `note: ...`; a sound hook's own stderr that
reads like either is written `stderr: ...` (`hookbridge.audit`), so `recorded_fault` tells a
fault from a hook's log line exactly.
"""

from __future__ import annotations

import enum


class FaultKind(enum.StrEnum):
    """The kinds of hook fault, as recorded in the audit."""

    TIMEOUT = "timeout"
    """No exit within the timeout; the process group was killed."""
    CRASH = "crash"
    """Exit code other than 0 and 2, or death by a signal."""
    SPAWN_FAILED = "spawn-failed"
    """`/bin/sh` could not be started (for example, the working directory is gone)."""
    OUTPUT_TOO_LARGE = "output-too-large"
    """stdout or stderr went over the byte cap; the process group was killed."""
    INVALID_JSON = "invalid-json"
    """stdout looked like JSON (the dialect decides what that means) but was not a JSON object."""
    INVALID_OUTPUT = "invalid-output"
    """A JSON object that breaks the dialect's output schema (wrong types, unknown values)."""
    UNSUPPORTED = "unsupported"
    """Codex only: a well-formed answer Codex marks Failed (for example `ask`)."""
    WRONG_EVENT = "wrong-event"
    """`hookSpecificOutput.hookEventName` names another hook point; its fields were ignored."""
    NON_OBJECT_INPUT = "non-object-updated-input"
    """`updatedInput` is not a JSON object (rule HOOK-6 refuses it)."""


NOTE_MARK = "note: "
"""How an audit summary naming a note (no fault) begins."""
STDERR_MARK = "stderr: "
"""How an audit summary begins whose hook's own stderr would otherwise read as a fault or note."""
FAILED_WORD = "error"
"""The decision word of a hook that failed without a decision (HOOK-1)."""
_KINDS = frozenset(FaultKind)


def fault_prefix(summary: str) -> str | None:
    """The fault kind `summary` starts with (`crash: ...`), or None."""
    kind, colon, _ = summary.partition(": ")
    return kind if colon and kind in _KINDS else None


def recorded_fault(decision: str, summary: str | None) -> tuple[str, str] | None:
    """(kind, detail) of the fault a `hook/result` records, or None for a hook that answered.

    A summary that starts with a fault kind names it; a hook audited `error` without one failed
    all the same (HOOK-1: a hook that failed without a decision), and its kind is `error`.
    """
    if summary is not None:
        kind = fault_prefix(summary)
        if kind is not None:
            return kind, summary[len(kind) + 2 :]
    if decision == FAILED_WORD:
        return FAILED_WORD, summary or "no detail recorded"
    return None
