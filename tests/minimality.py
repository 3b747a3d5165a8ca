"""Whether a counterexample is 1-minimal for deleting a command or a tool call.

Written apart from `loopspec.properties.conformance.reduce`, which cuts counterexamples down, so
that a test can hold its result to what a reader means by minimal: no single command, and no
single call of a reply (with the hook answers, approval answer and outcomes that answer for it),
can be taken out while the program still diverges with the same rule.
"""

from __future__ import annotations

import contextlib

import attrs

from loopspec.model.commands import (
    ApprovalAnswers,
    Command,
    HookAnswers,
    ModelReplies,
    ToolFinishes,
)
from loopspec.model.config import LoopConfig
from loopspec.model.errors import LoopSpecError
from loopspec.model.messages import ToolCallBlock
from loopspec.model.state import Dispatching, LoopState, Rewriting
from loopspec.model.transitions import step
from loopspec.properties.conformance.run import TargetError, TargetFactory, replay_case


def removable_parts(
    factory: TargetFactory, config: LoopConfig, program: tuple[Command, ...], rule: str
) -> list[str]:
    """The parts of `program` whose removal keeps a divergence blamed on `rule` ([]: minimal)."""
    found = []
    for index, command in enumerate(program):
        if _diverges(factory, config, program[:index] + program[index + 1 :], rule):
            found.append(f"command #{index + 1} ({command.NAME})")
    answering = _call_answered(config, program)
    for index, command in enumerate(program):
        if not isinstance(command, ModelReplies):
            continue
        for at, call in enumerate(command.blocks):
            if not isinstance(call, ToolCallBlock):
                continue
            reply = attrs.evolve(command, blocks=command.blocks[:at] + command.blocks[at + 1 :])
            rest = [
                later
                for later, answered in zip(
                    program[index + 1 :], answering[index + 1 :], strict=True
                )
                if answered != call.id
            ]
            if _diverges(factory, config, (*program[:index], reply, *rest), rule):
                found.append(f"call {call.id} of command #{index + 1}")
    return found


def _diverges(
    factory: TargetFactory, config: LoopConfig, program: tuple[Command, ...], rule: str
) -> bool:
    if not program:
        return False
    try:
        replay = replay_case(factory, config, list(program))
    except TargetError:  # the target cannot be sent it, or broke on it: not this divergence
        return False
    return replay.divergence is not None and replay.divergence.rule_id == rule


def _call_answered(config: LoopConfig, program: tuple[Command, ...]) -> list[str | None]:
    """Per command, the call it answers for in the model: a hook answer's, an approval
    answer's, an outcome's; None for the others."""
    state, answered = LoopState(config), []
    for command in program:
        phase, call = state.phase, None
        if isinstance(command, HookAnswers) and isinstance(phase, Rewriting) and phase.queue:
            call = phase.reply.tool_calls[phase.queue[0].call_index].id
        elif isinstance(command, ApprovalAnswers) and isinstance(phase, Dispatching):
            call = phase.slots[phase.gate].call_id if phase.gate < len(phase.slots) else None
        elif isinstance(command, ToolFinishes):
            call = command.call_id
        answered.append(call)
        with contextlib.suppress(LoopSpecError):
            state = step(state, command)
    return answered
