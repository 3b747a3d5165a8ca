"""The model's two-sided error taxonomy.

`InvalidEventError` is raised while constructing an event, message or command: the value never
exists, so nothing changes. `TransitionRefused` is raised by `step`: the command is not legal in
the current phase, and the state the caller holds is unchanged (states are immutable, so a
refusal cannot leave a half-applied step behind). Both carry the rule ID they enforce.
"""

from __future__ import annotations

NO_RULE_BROKEN = ""
"""The `rule_id` of an error no rule covers: a file that is not there, or that the system will
not let loopspec read or write. Its text carries no `[RULE]` tag, as `check` reports a missing
log ("error unreadable", no rule): a tag would send the reader to a rule for a typo in a path."""


def tagged(rule_id: str, text: str) -> str:
    """`[RULE] text`, or the text alone when no rule is broken (never a bare `[]`)."""
    return f"[{rule_id}] {text}" if rule_id else text


class LoopSpecError(Exception):
    """Root of every error the model raises on purpose; its text is `[RULE] message`, or the
    message alone under `NO_RULE_BROKEN`."""

    def __init__(self, message: str, *, rule_id: str) -> None:
        self.rule_id = rule_id
        self.message = message
        super().__init__(tagged(rule_id, message))


class InvalidEventError(LoopSpecError):
    """A value failed validation on construction; it was never created."""


class TransitionRefused(LoopSpecError):
    """`step` refused a command; the state passed in is still the current state."""

    def __init__(self, message: str, *, rule_id: str, phase: str, command: str) -> None:
        self.phase = phase
        self.command = command
        super().__init__(f"{command} in phase {phase}: {message}", rule_id=rule_id)
