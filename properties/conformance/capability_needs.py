"""The optional capabilities a target must declare to be sent a command or configured with a
configuration's hooks: the conformance machine asks before it sends, and `replay` checks a case
against them. Apart from the machine so that `replay` imports no Hypothesis (the machine is a
Hypothesis state machine; replay generates nothing).
"""

from __future__ import annotations

from loopspec.model.commands import (
    Allow,
    Ask,
    Command,
    HookAnswers,
    ModelReplies,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, PRE_TOOL_USE, LoopConfig


def needed_capabilities(command: Command, *, idle: bool) -> tuple[str, ...]:
    """The optional capabilities a target must declare to be sent `command`, sent while the
    model is `idle` or not (SubmitUser during a turn needs queued-input): what the machine
    checks before sending a command, and what `replay` checks a case against."""
    needs: tuple[str, ...] = {
        "Abort": ("abort",),
        "Crash": ("crash-repair",),
        "Recover": ("crash-repair",),
        "ApprovalAnswers": ("approval",),
        "HookAnswers": ("pre-hooks",),
    }.get(command.NAME, ())
    if isinstance(command, ModelReplies) and command.finish != "completed":
        needs += ("max-tokens",)
    if isinstance(command, SubmitUser) and not idle:
        needs += ("queued-input",)
    if isinstance(command, HookAnswers) and isinstance(command.verdict, Allow | Ask):
        needs += () if command.verdict.updated_input is None else ("rewrite",)
        # An ask is answered by the user: a loop that cannot ask would be blamed on DEC-2.
        needs += ("approval",) if isinstance(command.verdict, Ask) else ()
    if isinstance(command, ToolFinishes):
        outcome = command.outcome
        if isinstance(outcome, ToolSucceeded) and outcome.meta is not None:
            needs += ("result-meta",)
        needs += ("post-hooks",) if command.post else ()
    return needs


def hook_capabilities(config: LoopConfig) -> tuple[str, ...]:
    """The capabilities a target must declare to run `config`'s hooks: conform configures no
    other target with them, and `replay` refuses a case whose hooks need more."""
    points = {hook.point for hook in config.hooks}
    return tuple(
        capability
        for point, capability in ((PRE_TOOL_USE, "pre-hooks"), (POST_TOOL_USE, "post-hooks"))
        if point in points
    )
