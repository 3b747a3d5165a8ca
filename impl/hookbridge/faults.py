"""What can go wrong when a hook runs (rule HOOK-7).

A fault is recorded in the run's audit whatever policy applies. By default each fault has the
dialect's documented outcome (mostly: the hook's answer is discarded, no decision); under
fail-closed every fault turns into a deny (PreToolUse) or a block (PostToolUse).
"""

from __future__ import annotations

import enum

import attrs


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


@attrs.frozen
class HookFault:
    """One fault of one hook run: its kind and a human-readable detail."""

    kind: FaultKind
    detail: str

    def describe(self) -> str:
        """`kind: detail`, the form used in reasons and audit summaries."""
        return f"{self.kind}: {self.detail}"
