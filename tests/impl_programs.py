"""Long, valid command programs from a seed, for the crash test and the benchmark.

A program is a random walk the model keeps honest: each command is drawn to fit the model's
current phase and kept only if the model accepts it, so the implementation can run it end to
end. The configuration has a rewriting PreToolUse hook, a PostToolUse hook and parallel calls,
so programs are full of multi-event commits, rewrite transactions above all.
"""

from __future__ import annotations

import random

from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, HookSpec, LoopConfig, ToolSpec
from loopspec.model.errors import TransitionRefused
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.state import (
    ASKING,
    RUNNING,
    AwaitingModel,
    Dispatching,
    Idle,
    LoopState,
    Rewriting,
)
from loopspec.model.transitions import step

PROGRAM_CONFIG = LoopConfig(
    tools=(
        ToolSpec("read", concurrency_safe=True, required_keys=("file_path",)),
        ToolSpec("bash", required_keys=("command",)),
    ),
    hooks=(
        HookSpec("guard", "PreToolUse", "bash"),
        HookSpec("rewriter", "PreToolUse", "*"),
        HookSpec("audit", "PostToolUse", "read"),
    ),
    max_parallel=2,
)

_CALLS = (
    ("read", '{"file_path":"notes/a.txt"}'),
    ("read", '{"file_path":"notes/b.txt","offset":3}'),
    ("bash", '{"command":"ls -la"}'),
    ("bash", '{"command":"make test"}'),
)
_VERDICTS: tuple[PreVerdict, ...] = (
    Pass(),
    Allow(FrozenMap({"file_path": "notes/rewritten.txt"})),
    Allow(FrozenMap({"command": "ls"})),
    Ask("check this first"),
    Deny("not today"),
)


def random_program(seed: int, length: int, config: LoopConfig = PROGRAM_CONFIG) -> list[Command]:
    """`length` commands the model accepts one after another, drawn from `seed`."""
    rng = random.Random(seed)
    state = LoopState(config)
    program: list[Command] = []
    next_call = 1
    while len(program) < length:
        command = _draw(rng, state, next_call)
        try:
            state = step(state, command)
        except TransitionRefused:
            continue
        if isinstance(command, ModelReplies):
            next_call += len(command.tool_calls)
        program.append(command)
    return program


def _draw(rng: random.Random, state: LoopState, next_call: int) -> Command:
    phase = state.phase
    match phase:
        case Idle():
            return SubmitUser(rng.choice(["read the notes", "run the tests", "again"]))
        case AwaitingModel():
            return _reply(rng, next_call)
        case Rewriting():
            return HookAnswers(rng.choice(_VERDICTS))
        case Dispatching():
            if rng.random() < 0.03:
                return Abort()
            asking = [slot for slot in phase.slots if slot.status == ASKING]
            if asking:
                return ApprovalAnswers(rng.choice(["allowed-once", "allowed-once", "rejected"]))
            running = [slot for slot in phase.slots if slot.status == RUNNING]
            slot = rng.choice(running)
            hooks = state.config.hooks_for(POST_TOOL_USE, slot.name)
            judged: list[PostVerdict] = [PostPass(), PostContext("checked")]
            post = tuple(rng.choice(judged) for _ in hooks)
            return ToolFinishes(slot.call_id, _outcome(rng), post)
        case _:
            return SubmitUser("unreachable in a program without crashes")


def _reply(rng: random.Random, next_call: int) -> Command:
    roll = rng.random()
    if roll < 0.05:
        return ModelFails("overloaded", "OVERLOADED")
    if roll < 0.25:
        return ModelReplies((TextBlock("All done."),))
    count = rng.randint(1, 3)
    calls = tuple(
        ToolCallBlock(f"c{next_call + offset}", *rng.choice(_CALLS)) for offset in range(count)
    )
    return ModelReplies((TextBlock("Working on it."), *calls))


def _outcome(rng: random.Random) -> ToolSucceeded | ToolFailed:
    if rng.random() < 0.15:
        return ToolFailed("permission denied", "EACCES")
    return ToolSucceeded("output line\n" * rng.randint(1, 4), meta=FrozenMap({"lines": 3}))
