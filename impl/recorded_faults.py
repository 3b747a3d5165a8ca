"""How a log's `hook/result` records a hook fault (rule HOOK-7), and how it is read back.

The bridge names a fault in the audit summary as `KIND: DETAIL`
(`hookbridge.faults.HookFault.describe`) and a note as `note: ...`; a sound hook's own stderr that
reads like either is written `stderr: ...` (`hookbridge.audit`), so `recorded_fault` tells a
fault from a hook's log line exactly. Apart from the kinds (`impl.hook_fault_kinds`, an enum),
which are imported when a summary is first read: `loopspec check` reads a log whose hooks
recorded no summary without `enum` (tests/test_check_startup.py).
"""

from __future__ import annotations

NOTE_MARK = "note: "
"""How an audit summary naming a note (no fault) begins."""
STDERR_MARK = "stderr: "
"""How an audit summary begins whose hook's own stderr would otherwise read as a fault or note."""
FAILED_WORD = "error"
"""The decision word of a hook that failed without a decision (HOOK-1)."""


def _kinds() -> frozenset[str]:
    """The fault kinds' words, read once (kept in `_KINDS`; `functools.cache` would cost check
    the import of functools, and of collections with it)."""
    if not _KINDS:
        from loopspec.impl.hook_fault_kinds import FaultKind  # noqa: PLC0415 (see above)

        _KINDS.append(frozenset(FaultKind))
    return _KINDS[0]


_KINDS: list[frozenset[str]] = []


def fault_prefix(summary: str) -> str | None:
    """The fault kind `summary` starts with (`crash: ...`), or None."""
    kind, colon, _ = summary.partition(": ")
    return kind if colon and kind in _kinds() else None


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
