"""The id and settings entry of each hook in a real harness's hooks file.

`loopspec run --harness` names hooks as the bundled loop does (`claude-code:PreToolUse:1`, the
first PreToolUse hook in configured order), so one user reading both reports sees one name for
one hook; the report ends by tying each id to its command and JSON path in the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from loopspec.model.config import handler_id


@attrs.frozen
class ConfiguredHook:
    """One command handler of the hooks file, as the harness runs it."""

    hook_id: str
    event: str
    command: str
    where: str
    """Its JSON path in the hooks file: `$.hooks.PreToolUse[0].hooks[1]`."""


def configured_hooks(hooks: Mapping[str, Any] | None, dialect: str) -> list[ConfiguredHook]:
    """Every handler of `hooks` (a loaded hooks file, or None), in configured order."""
    found = []
    counters: dict[str, int] = {}
    for event, groups in (hooks or {}).get("hooks", {}).items():
        for g, group in enumerate(groups):
            for h, handler in enumerate(group.get("hooks", [])):
                counters[event] = counters.get(event, 0) + 1
                found.append(
                    ConfiguredHook(
                        handler_id(dialect, event, counters[event]),
                        event,
                        str(handler["command"]),
                        f"$.hooks.{event}[{g}].hooks[{h}]",
                    )
                )
    return found
