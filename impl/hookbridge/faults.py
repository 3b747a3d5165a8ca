"""What can go wrong when a hook runs (rule HOOK-7); the kinds are `impl.hook_fault_kinds`'s.

A fault is recorded in the run's audit whatever policy applies. By default each fault has the
dialect's documented outcome (mostly: the hook's answer is discarded, no decision); under
fail-closed every fault turns into a deny (PreToolUse) or a block (PostToolUse).
"""

from __future__ import annotations

import attrs

from loopspec.impl.hook_fault_kinds import FaultKind


@attrs.frozen
class HookFault:
    """One fault of one hook run: its kind and a human-readable detail."""

    kind: FaultKind
    detail: str

    def describe(self) -> str:
        """`kind: detail`, the form used in reasons and audit summaries."""
        return f"{self.kind}: {self.detail}"
