"""The audit record of one hook run (rules HOOK-1 and HOOK-7)."""

from __future__ import annotations

import attrs

from loopspec.impl.hookbridge.faults import HookFault
from loopspec.model.commands import HookAudit
from loopspec.model.jsonvalue import JsonValue

AUDIT_SUMMARY_CHARS = 300


@attrs.frozen
class HookRunAudit:
    """Everything the audit keeps about one run of one hook for one call.

    `decision` is the word for `hook/result.decision`: what the hook said (allow, deny, ask,
    defer, approve, block, pass), `error` when a fault left it without a decision, or the
    fail-closed `deny` / `block`. `updated_input` is what the hook supplied, honoured or not;
    the verdict says whether it was.
    """

    handler_id: str
    point: str
    dialect: str
    call_id: str
    decision: str
    exit_code: int | None
    """None when the hook was killed (timeout, overflow, cancellation) or died by a signal."""
    stderr_summary: str | None
    duration_ms: float
    fault: HookFault | None = None
    updated_input: JsonValue = None
    fail_closed: bool = False
    """Whether the fail-closed policy applied to this hook (it changes the verdict on faults)."""

    def as_hook_audit(self) -> HookAudit:
        """The model's audit command input; a fault is named in the stderr summary it carries."""
        summary = self.stderr_summary
        if self.fault is not None:
            summary = self.fault.describe() + (f" (stderr: {summary})" if summary else "")
            if len(summary) > AUDIT_SUMMARY_CHARS:
                summary = summary[: AUDIT_SUMMARY_CHARS - 1] + "…"
        return HookAudit(self.decision, self.exit_code, summary, self.duration_ms)
