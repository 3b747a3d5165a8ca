"""The audit record of one hook run (rules HOOK-1 and HOOK-7)."""

from __future__ import annotations

import attrs

from loopspec.impl.hookbridge.faults import HookFault
from loopspec.impl.hookbridge.notes import answer_note
from loopspec.impl.hookbridge.output import stderr_summary
from loopspec.impl.hookbridge.process import ProcessOutcome
from loopspec.impl.recorded_faults import NOTE_MARK, STDERR_MARK, fault_prefix
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
    note: str | None = None
    """What the answer lost without a fault (`notes.answer_note`): an ignored key, say."""

    def as_hook_audit(self) -> HookAudit:
        """The model's audit command input; a fault, or else a note, is named in the stderr
        summary it carries."""
        summary = self.stderr_summary
        named = self.fault.describe() if self.fault is not None else None
        if named is None and self.note is not None:
            named = NOTE_MARK + self.note
        if named is not None:
            summary = named + (f" ({STDERR_MARK}{summary})" if summary else "")
        elif summary is not None and _reads_as_named(summary):
            # A sound hook's stderr ("crash: recovered") must not read as a fault in the log.
            summary = STDERR_MARK + summary
        if summary is not None and len(summary) > AUDIT_SUMMARY_CHARS:
            summary = summary[: AUDIT_SUMMARY_CHARS - 1] + "…"
        return HookAudit(self.decision, self.exit_code, summary, self.duration_ms)


def _reads_as_named(summary: str) -> bool:
    return fault_prefix(summary) is not None or summary.startswith((NOTE_MARK, STDERR_MARK))


def run_audit(
    outcome: ProcessOutcome,
    *,
    handler_id: str,
    point: str,
    dialect: str,
    call_id: str,
    decision: str,
    fault: HookFault | None,
    updated_input: JsonValue = None,
    fail_closed: bool = False,
) -> HookRunAudit:
    """The audit of a run that produced `outcome`: stderr's gist, and a note on what the answer
    lost when it has no fault. `run --harness` reads a real CLI's hooks through it too, so both
    reports say the same of the same output."""
    return HookRunAudit(
        handler_id=handler_id,
        point=point,
        dialect=dialect,
        call_id=call_id,
        decision=decision,
        exit_code=outcome.exit_code,
        stderr_summary=stderr_summary(outcome),
        duration_ms=outcome.duration_ms,
        fault=fault,
        updated_input=updated_input,
        fail_closed=fail_closed,
        note=None if fault is not None else answer_note(dialect, point, outcome),
    )
