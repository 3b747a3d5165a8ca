"""Which configured hooks fire for a tool, in configured order (rule HOOK-3).

A hook's `matcher` is a regular expression that must match the whole tool name; an empty
matcher and `*` match every tool. Matching is cached per (point, tool name).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from loopspec.model.config import HookSpec

_MATCH_ALL = ("", "*")


class HookTable:
    """The configured hooks, looked up by hook point and tool name."""

    def __init__(self, hooks: Iterable[HookSpec]) -> None:
        self._hooks = tuple(hooks)
        ids = [hook.handler_id for hook in self._hooks]
        if len(set(ids)) != len(ids):
            raise ValueError("hook handler ids must be unique")
        self._patterns = {
            hook.handler_id: None if hook.matcher in _MATCH_ALL else re.compile(hook.matcher)
            for hook in self._hooks
        }
        self._cache: dict[tuple[str, str], tuple[HookSpec, ...]] = {}

    def matching(self, point: str, tool_name: str) -> tuple[HookSpec, ...]:
        """The hooks of `point` that fire for `tool_name`, in configured order."""
        key = (point, tool_name)
        found = self._cache.get(key)
        if found is None:
            found = tuple(
                hook
                for hook in self._hooks
                if hook.point == point and self._fires(hook.handler_id, tool_name)
            )
            self._cache[key] = found
        return found

    def _fires(self, handler_id: str, tool_name: str) -> bool:
        pattern = self._patterns[handler_id]
        return pattern is None or pattern.fullmatch(tool_name) is not None
