"""The kinds of hook fault (rule HOOK-7).

A module of its own, importing only `enum`, so that reading a log's audit (`impl.recorded_faults`)
needs no hook bridge (attrs). The bridge names a fault in the audit summary as `KIND: DETAIL`
(`hookbridge.faults.HookFault.describe`).
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
