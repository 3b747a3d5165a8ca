"""THE transition table: which command is legal in which phase, and what it appends.

This module owns the loop's control flow. `step` looks the (phase, command) pair up here and
nowhere else; a pair that is not in the table is refused with rule MODEL-1, so `step` is total:
every state and command give a next state or exactly one `TransitionRefused`. SPEC.md's
transition table is generated from `TRANSITIONS` (`loopspec spec`), and a test fails when the two
disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

import attrs

from loopspec.model import handlers
from loopspec.model.commands import (
    COMMAND_NAMES,
    Abort,
    ApprovalAnswers,
    Command,
    Crash,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Recover,
    SubmitUser,
    ToolFinishes,
)
from loopspec.model.errors import TransitionRefused
from loopspec.model.state import PHASE_NAMES, LoopState, state_problem

C = TypeVar(
    "C",
    SubmitUser,
    ModelReplies,
    ModelFails,
    HookAnswers,
    ApprovalAnswers,
    ToolFinishes,
    Abort,
    Crash,
    Recover,
)


@attrs.frozen
class Transition(Generic[C]):
    """One legal (phase, command) pair. The handler takes exactly the row's command type, so
    mypy rejects a row whose handler was written for another command."""

    phase: str
    command_type: type[C]
    handler: Callable[[LoopState, C], LoopState]
    appends: str
    next_phases: tuple[str, ...]
    rules: tuple[str, ...]

    @property
    def command(self) -> str:
        """The command's name, as the table and refusals write it."""
        return self.command_type.NAME

    def apply(self, state: LoopState, command: Command) -> LoopState:
        """Run the handler on a command of this row's type."""
        assert isinstance(command, self.command_type)
        return self.handler(state, command)


TRANSITIONS: tuple[Transition[Any], ...] = (
    Transition(
        "Idle",
        SubmitUser,
        handlers.submit_user_when_idle,
        "turn/start, step/start, user/message (parked first)",
        ("AwaitingModel",),
        ("TURN-1", "STEP-1", "ADJ-4"),
    ),
    Transition("Idle", Crash, handlers.crash, "nothing", ("Crashed",), ("LOG-8",)),
    Transition(
        "AwaitingModel",
        SubmitUser,
        handlers.submit_user_when_busy,
        "nothing (queued for the next step)",
        ("AwaitingModel",),
        ("ADJ-4",),
    ),
    Transition(
        "AwaitingModel",
        ModelReplies,
        handlers.model_replies,
        "assistant/message [+ tool/call per call], or nothing while hooks run; "
        "step/end, turn/end when the turn is over",
        ("Idle", "AwaitingModel", "Rewriting", "Dispatching"),
        ("ORD-1", "EXE-1", "ABORT-2", "RW-3"),
    ),
    Transition(
        "AwaitingModel",
        ModelFails,
        handlers.model_fails,
        "step/end, turn/end{error}",
        ("Idle",),
        ("TURN-2",),
    ),
    Transition(
        "AwaitingModel",
        Abort,
        handlers.abort_awaiting_model,
        "step/end, turn/end{aborted}",
        ("Idle",),
        ("ABORT-2",),
    ),
    Transition("AwaitingModel", Crash, handlers.crash, "nothing", ("Crashed",), ("LOG-8",)),
    Transition(
        "Rewriting",
        SubmitUser,
        handlers.submit_user_when_busy,
        "nothing (queued for the next step)",
        ("Rewriting",),
        ("ADJ-4",),
    ),
    Transition(
        "Rewriting",
        HookAnswers,
        handlers.hook_answers,
        "hook/invoked, hook/result; after the last hook: assistant/message, tool/call "
        "per call, then the batch's first moves",
        ("Rewriting", "Dispatching", "AwaitingModel"),
        ("HOOK-2", "HOOK-3", "HOOK-4", "RW-1", "RW-2", "RW-3"),
    ),
    Transition(
        "Rewriting",
        Abort,
        handlers.abort_rewriting,
        "assistant/message{interrupted} (its non-blank text and reasoning, no call), step/end, "
        "turn/end{aborted}",
        ("Idle",),
        ("ABORT-2",),
    ),
    Transition("Rewriting", Crash, handlers.crash, "nothing", ("Crashed",), ("LOG-8",)),
    Transition(
        "Dispatching",
        SubmitUser,
        handlers.submit_user_when_busy,
        "nothing (queued for the next step)",
        ("Dispatching",),
        ("ADJ-4",),
    ),
    Transition(
        "Dispatching",
        ApprovalAnswers,
        handlers.approval_answers,
        "approval/decided, then the batch's next moves",
        ("Dispatching", "AwaitingModel"),
        ("DEC-2", "RW-4"),
    ),
    Transition(
        "Dispatching",
        ToolFinishes,
        handlers.tool_finishes,
        "approval/asked for an asked call that can now start (SCHED-2); for each newly "
        "ready call in model order: PostToolUse hook/*, tool/result; after the last: "
        "step/end, step/start, queued user/message",
        ("Dispatching", "AwaitingModel"),
        ("ORD-3", "DEC-3", "ADJ-1", "ADJ-4"),
    ),
    Transition(
        "Dispatching",
        Abort,
        handlers.abort_dispatching,
        "approval/decided{cancelled}; the results now ready, in model order "
        "(ABORTED_BEFORE_DISPATCH for calls not started, nothing past a running call); "
        "once drained, step/end, turn/end{aborted}",
        ("Dispatching", "Idle"),
        ("ABORT-1",),
    ),
    Transition("Dispatching", Crash, handlers.crash, "nothing", ("Crashed",), ("LOG-8",)),
    Transition(
        "Crashed",
        Recover,
        handlers.recover,
        "repair closers: synthetic tool/result per pending call, step/end, turn/end{interrupted}",
        ("Idle",),
        ("REC-1", "REC-2"),
    ),
)

_BY_PAIR: dict[tuple[str, str], Transition[Any]] = {(t.phase, t.command): t for t in TRANSITIONS}


def transition_for(phase: str, command: str) -> Transition[Any] | None:
    """The table row for a pair, or None when the pair is refused."""
    return _BY_PAIR.get((phase, command))


def step(state: LoopState, command: Command) -> LoopState:
    """Apply one command: the next state, or `TransitionRefused` with the state unchanged."""
    row = transition_for(state.phase.NAME, command.NAME)
    if row is None:
        msg = f"{command.NAME} is not accepted in phase {state.phase.NAME}"
        raise TransitionRefused(
            msg, rule_id="MODEL-1", phase=state.phase.NAME, command=command.NAME
        )
    problem = state_problem(state)
    if problem is not None:
        msg = f"the state is inconsistent: {problem}"
        raise TransitionRefused(
            msg, rule_id="MODEL-1", phase=state.phase.NAME, command=command.NAME
        )
    return row.apply(state, command)


def render_table() -> str:
    """The Markdown transition table SPEC.md embeds (generated, never edited by hand)."""
    lines = [
        "| phase | command | appends | next phase | rules |",
        "|---|---|---|---|---|",
    ]
    for phase in PHASE_NAMES:
        for command in COMMAND_NAMES:
            row = _BY_PAIR.get((phase, command))
            if row is None:
                continue
            appends = row.appends.replace("|", "\\|")
            lines.append(
                f"| {phase} | {command} | {appends} | {', '.join(row.next_phases)} | "
                f"{', '.join(row.rules)} |"
            )
    refused = [
        f"{phase} + {command}"
        for phase in PHASE_NAMES
        for command in COMMAND_NAMES
        if (phase, command) not in _BY_PAIR
    ]
    lines.append("")
    lines.append(
        f"Every other pair ({len(refused)} of them) is refused with MODEL-1: "
        + ", ".join(refused)
        + "."
    )
    return "\n".join(lines)
