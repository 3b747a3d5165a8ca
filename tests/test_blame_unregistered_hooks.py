"""A loop that asks no PreToolUse hook about a call to a tool that is not registered, blamed
on EXE-5; one that drops a matcher's (?i), on HOOK-8.

Session 21 wrote a loop outside the project (a copy of `impl/`) that skips the hooks of a call
whose tool it does not have ("nothing for a hook to judge") and lets it fail UNKNOWN_TOOL.
EXE-5 says the hooks whose matcher fits the name run, registered tool or not, and the call
fails where its body would start. conform blamed it on RW-3 (a reply committed before its
hooks answered), HOOK-4 (which hook runs for which call) or ORD-1 (one reply per step), by
where the skipped hook showed; each now names EXE-5 and the call, its tool and the hook.
A loop that strips a matcher's leading `(?i)` as Python-only (the JavaScript loop's own
spelling differs) runs no hook for `read` under `(?i)READ`: blamed on RW-3 too, now HOOK-8. A
loop that runs no PreToolUse hook at all is still RW-3's where a registered tool's call is
hooked too, and one that asks hook by hook is HOOK-4's even when the first call's tool is not
registered.
"""

from __future__ import annotations

import attrs
import pytest

from loopspec.model.commands import Command, HookAnswers, ModelReplies, Pass, SubmitUser
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.model.state import Rewriting
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
NO_TOOLS = LoopConfig(hooks=(HookSpec("late", "PreToolUse", ".*"),))
READ_HOOKED = LoopConfig(tools=(READ,), hooks=(HookSpec("everything", "PreToolUse"),))
MISSING = ToolCallBlock("c1", "missing_tool", "{}")
READ_CALL = ToolCallBlock("c2", "read", '{"file_path":"a"}')
# Misses the key `read` requires: it ends INVALID_TOOL_INPUT at the gate, and no hook sees it.
INVALID_READ_CALL = ToolCallBlock("c2", "read", '{"path":"a"}')

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


class AsksHookByHook(ModelTarget):
    """Control: the model, except that each hook answers about every call before the next
    hook is asked (hook by hook, not call by call: HOOK-4's order)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        assert self.state is not None
        phase = self.state.phase
        if isinstance(command, ModelReplies) and isinstance(phase, Rewriting):
            order = [hook.handler_id for hook in self.state.config.hooks]
            queue = sorted(
                phase.queue, key=lambda p: (order.index(p.hook.handler_id), p.call_index)
            )
            self.state = attrs.evolve(self.state, phase=attrs.evolve(phase, queue=tuple(queue)))
        return observed


TWO_HOOKS = LoopConfig(
    tools=(READ,),
    hooks=(HookSpec("everything", "PreToolUse"), HookSpec("late", "PreToolUse", ".*")),
)
ANY_CASE = LoopConfig(tools=(READ,), hooks=(HookSpec("any-case", "PreToolUse", "(?i)READ"),))
_MATCHES = HookSpec.matches


def _case_sensitive(hook: HookSpec, tool_name: str) -> bool:
    # The leading (?i) stripped as Python-only, its meaning lost.
    return _MATCHES(attrs.evolve(hook, matcher=hook.matcher.removeprefix("(?i)")), tool_name)


class DropsTheCaseFlag(ModelTarget):
    """The model, except that a matcher's leading (?i) is dropped, not applied."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(HookSpec, "matches", _case_sensitive)
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
        "the reply committed at once, beside a registered call no hook sees (invalid input)",
        SkipsHooksOfUnregisteredTools,
        READ_HOOKED,
        [SubmitUser("hi"), ModelReplies((MISSING, INVALID_READ_CALL))],
        "EXE-5",
    ),
    (
        "a (?i) matcher run case-sensitively: the reply committed at once",
        DropsTheCaseFlag,
        ANY_CASE,
        [SubmitUser("hi"), ModelReplies((READ_CALL,))],
        "HOOK-8",
    ),
    (
        "control: hooks asked hook by hook, the first call's tool not registered",
        AsksHookByHook,
        TWO_HOOKS,
        [
            SubmitUser("hi"),
            ModelReplies((MISSING, READ_CALL)),
            HookAnswers(Pass()),
            HookAnswers(Pass()),
        ],
        "HOOK-4",
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
def test_EXE_5_a_hook_skipped_for_its_own_reason_is_blamed_on_the_rule_it_breaks(
    name: str, target: type[ModelTarget], config: LoopConfig, program: list[Command], rule: str
) -> None:
    """EXE-5, HOOK-8 (HOOK-4, RW-3 for the controls): the first divergence names the rule the
    bug breaks, and EXE-5's report names the call, its tool and the hook, HOOK-8's the hook,
    its matcher and the tool."""
    assert replay_case(ModelTarget, config, program).divergence is None
    replay = replay_case(target, config, program)
    assert replay.divergence is not None, "the bug was not found"
    assert replay.divergence.rule_id == rule, replay.divergence.what
    what = replay.divergence.what
    if rule == "EXE-5":
        assert "call c1 names tool missing_tool, which is not registered, and hook" in what
    if rule == "HOOK-8":
        assert 'hook any-case\'s matcher "(?i)READ" matches tool read of call c2' in what
