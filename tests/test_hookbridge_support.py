"""Shared helpers for the hook bridge tests (no tests here): real hook scripts, small settings."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

from loopspec.impl.hookbridge import HookBridge, PostHookRun, PreHookRun, parse_settings
from loopspec.model.config import POST_TOOL_USE, PRE_TOOL_USE
from loopspec.model.jsonvalue import FrozenMap, freeze

HOOKS = Path(__file__).resolve().parent / "hooks"
BASH_CALL = {"command": "rm -rf build", "description": "clean the build"}
RESPONSE = {"stdout": "removed 3 files", "exit_code": 0}


def bash(script: str, *args: str) -> str:
    """The command line that runs a bash hook script from tests/hooks."""
    return shlex.join(["bash", str(HOOKS / script), *args])


def python(script: str, *args: str) -> str:
    """The command line that runs a Python hook script from tests/hooks."""
    return shlex.join([sys.executable, str(HOOKS / script), *args])


def case_id(value: object) -> str:
    """A short, machine-independent test id: a hook command's script and arguments."""
    if isinstance(value, str):
        words = shlex.split(value)
        scripts = [i for i, word in enumerate(words) if str(HOOKS) in word]
        if scripts:
            return " ".join([Path(words[scripts[0]]).name, *words[scripts[0] + 1 :]])
        return value
    return type(value).__name__


def settings_document(
    *commands: str, point: str = PRE_TOOL_USE, matcher: str = "bash", timeout: float = 10.0
) -> dict[str, object]:
    """A settings document with one matcher group holding these commands in order."""
    handlers = [{"type": "command", "command": c, "timeout": timeout} for c in commands]
    return {"hooks": {point: [{"matcher": matcher, "hooks": handlers}]}}


def make_bridge(
    *commands: str,
    dialect: str = "claude-code",
    point: str = PRE_TOOL_USE,
    fail_closed: bool = False,
    timeout: float = 10.0,
    cwd: str | Path | None = None,
) -> HookBridge:
    """A bridge over these hook commands, all matching the `bash` tool."""
    document = settings_document(*commands, point=point, timeout=timeout)
    settings = parse_settings(document, source="test-settings.json", dialect=dialect)
    return HookBridge(
        settings,
        session_id="session-1",
        cwd=HOOKS if cwd is None else cwd,
        transcript_path="/tmp/transcript.jsonl",
        fail_closed=fail_closed,
        model="test-model",
    )


def run_pre(bridge: HookBridge, tool_input: object = None) -> tuple[PreHookRun, ...]:
    """Run the PreToolUse hooks for one `bash` call."""
    arguments = BASH_CALL if tool_input is None else tool_input
    return asyncio.run(bridge.pre_tool_use("call-1", "bash", arguments, turn_id="turn-1"))


def run_one_pre(bridge: HookBridge) -> PreHookRun:
    """The single PreToolUse run of a one-hook bridge."""
    (run,) = run_pre(bridge)
    return run


def run_post(bridge: HookBridge) -> tuple[PostHookRun, ...]:
    """Run the PostToolUse hooks for one finished `bash` call."""
    return asyncio.run(
        bridge.post_tool_use("call-1", "bash", BASH_CALL, RESPONSE, turn_id="turn-1")
    )


def run_one_post(script_command: str, *, dialect: str = "claude-code") -> PostHookRun:
    """The single PostToolUse run of one hook command."""
    (run,) = run_post(make_bridge(script_command, dialect=dialect, point=POST_TOOL_USE))
    return run


def frozen_object(value: object) -> FrozenMap:
    """`value` as the model's frozen JSON object."""
    result = freeze(value)
    assert isinstance(result, FrozenMap)
    return result
