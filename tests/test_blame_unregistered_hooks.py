"""A loop that asks no PreToolUse hook about a call to a tool that is not registered, blamed
on EXE-5.

Session 21 wrote a loop outside the project (a copy of `impl/`) that skips the hooks of a call
whose tool it does not have ("nothing for a hook to judge") and lets it fail UNKNOWN_TOOL.
EXE-5 says the hooks whose matcher fits the name run, registered tool or not, and the call
fails where its body would start. conform blamed it on RW-3 (a reply committed before its
hooks answered), HOOK-4 (which hook runs for which call) or ORD-1 (one reply per step), by
where the skipped hook showed; each now names EXE-5 and the call, its tool and the hook.
A loop that runs no PreToolUse hook at all is still RW-3's where a registered tool's call is
hooked too.
"""

from __future__ import annotations

import pytest

from loopspec.model.commands import Command, HookAnswers, ModelReplies, Pass, SubmitUser
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
NO_TOOLS = LoopConfig(hooks=(HookSpec("late", "PreToolUse", ".*"),))
READ_HOOKED = LoopConfig(tools=(READ,), hooks=(HookSpec("everything", "PreToolUse"),))
MISSING = ToolCallBlock("c1", "missing_tool", "{}")
READ_CALL = ToolCallBlock("c2", "read", '{"file_path":"a"}')

_HOOKS_FOR = LoopConfig.hooks_for


def _registered_only(config: LoopConfig, point: str, tool_name: str) -> tuple[HookSpec, ...]:
    return _HOOKS_FOR(config, point, tool_name) if config.tool(tool_name) is not None else ()


class SkipsHooksOfUnregisteredTools(ModelTarget):
    """The model, except that no hook runs for a call whose tool is not registered."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(LoopConfig, "hooks_for", _registered_only)
            return super().apply(command)


class RunsNoPreToolUseHook(ModelTarget):
    """Control: the model, except that no PreToolUse hook ever runs."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(LoopConfig, "hooks_for", lambda _config, _point, _name: ())
            return super().apply(command)


PROGRAMS: list[tuple[str, type[ModelTarget], LoopConfig, list[Command], str]] = [
    (
        "the reply committed at once",
        SkipsHooksOfUnregisteredTools,
        NO_TOOLS,
        [SubmitUser("hi"), ModelReplies((MISSING,))],
        "EXE-5",
    ),
    (
        "the hook run for the next call instead",
        SkipsHooksOfUnregisteredTools,
        READ_HOOKED,
        [SubmitUser("hi"), ModelReplies((MISSING, READ_CALL)), HookAnswers(Pass())],
        "EXE-5",
    ),
    (
        "the reply committed after the registered call's hook",
        SkipsHooksOfUnregisteredTools,
        READ_HOOKED,
        [SubmitUser("hi"), ModelReplies((READ_CALL, MISSING)), HookAnswers(Pass())],
        "EXE-5",
    ),
    (
        "control: no hook at all, a registered call hooked",
        RunsNoPreToolUseHook,
        READ_HOOKED,
        [SubmitUser("hi"), ModelReplies((READ_CALL,))],
        "RW-3",
    ),
    (
        "control: no hook at all, a registered call hooked after the other",
        RunsNoPreToolUseHook,
        READ_HOOKED,
        [SubmitUser("hi"), ModelReplies((MISSING, READ_CALL))],
        "RW-3",
    ),
]


@pytest.mark.parametrize(
    ("name", "target", "config", "program", "rule"), PROGRAMS, ids=[p[0] for p in PROGRAMS]
)
def test_EXE_5_hooks_skipped_for_an_unregistered_tool_are_blamed_on_EXE_5(
    name: str, target: type[ModelTarget], config: LoopConfig, program: list[Command], rule: str
) -> None:
    """EXE-5 (RW-3 for the controls): the first divergence names the rule the bug breaks, and
    EXE-5's report names the call, its tool and the hook."""
    assert replay_case(ModelTarget, config, program).divergence is None
    replay = replay_case(target, config, program)
    assert replay.divergence is not None, "the bug was not found"
    assert replay.divergence.rule_id == rule, replay.divergence.what
    if rule == "EXE-5":
        assert "call c1 names tool missing_tool, which is not registered, and hook" in (
            replay.divergence.what
        )
