"""What a loop is configured with: its tools, its hooks, its parallelism.

The configuration is part of the model state, so the same commands mean the same thing to the
model and to any implementation configured alike.
"""

from __future__ import annotations

import re

import attrs

from loopspec.model.errors import InvalidEventError
from loopspec.model.jsonvalue import FrozenMap, JsonValue

PRE_TOOL_USE = "PreToolUse"
POST_TOOL_USE = "PostToolUse"
HOOK_POINTS = frozenset({PRE_TOOL_USE, POST_TOOL_USE})


@attrs.frozen
class ToolSpec:
    """A registered tool: its name, whether parallel runs are safe, and its input contract.

    The input contract is deliberately small (a JSON object with these keys present): enough to
    decide whether a hook's rewrite is acceptable (rule HOOK-6) without a schema language.
    """

    name: str
    concurrency_safe: bool = False
    required_keys: tuple[str, ...] = ()

    def input_problem(self, value: JsonValue) -> str | None:
        """Why `value` is not an acceptable input for this tool, or None when it is."""
        if not isinstance(value, FrozenMap):
            return "the input must be a JSON object"
        missing = [key for key in self.required_keys if key not in value]
        if missing:
            return "missing required " + ", ".join(repr(key) for key in missing)
        return None


@attrs.frozen
class HookSpec:
    """A configured hook handler. `matcher` is a regex over the tool name; "" or "*" match all."""

    handler_id: str
    point: str = PRE_TOOL_USE
    matcher: str = "*"
    dialect: str = "claude-code"

    def __attrs_post_init__(self) -> None:
        if self.point not in HOOK_POINTS:
            raise InvalidEventError(f"unknown hook point {self.point!r}", rule_id="HOOK-1")
        if not self.handler_id:
            raise InvalidEventError("a hook needs a handler id", rule_id="HOOK-1")
        if self.matcher not in ("", "*"):
            try:
                re.compile(self.matcher)
            except re.error as error:
                msg = f"hook {self.handler_id} has an invalid matcher: {error}"
                raise InvalidEventError(msg, rule_id="HOOK-1") from error

    def matches(self, tool_name: str) -> bool:
        """Whether this hook fires for `tool_name`."""
        if self.matcher in ("", "*"):
            return True
        return re.fullmatch(self.matcher, tool_name) is not None


@attrs.frozen
class LoopConfig:
    """The loop's configuration. Hooks of one point run in the order given here (rule HOOK-3)."""

    tools: tuple[ToolSpec, ...] = ()
    hooks: tuple[HookSpec, ...] = ()
    max_parallel: int = 10
    provider: str = "scripted"
    model: str = "scripted-model"
    epoch_ms: int = 1_700_000_000_000

    def __attrs_post_init__(self) -> None:
        if self.max_parallel < 1:
            raise InvalidEventError("max_parallel must be at least 1", rule_id="SCHED-1")
        handler_ids = [hook.handler_id for hook in self.hooks]
        if len(set(handler_ids)) != len(handler_ids):
            raise InvalidEventError("hook handler ids must be unique", rule_id="HOOK-1")

    def tool(self, name: str) -> ToolSpec | None:
        """The registered tool called `name`, if any."""
        return next((tool for tool in self.tools if tool.name == name), None)

    def hooks_for(self, point: str, tool_name: str) -> tuple[HookSpec, ...]:
        """The hooks that fire at `point` for `tool_name`, in configured order."""
        return tuple(h for h in self.hooks if h.point == point and h.matches(tool_name))
