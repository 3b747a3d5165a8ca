"""Scenarios: a scripted session (model replies, tool outcomes, approvals) run with real hooks.

`loopspec run SCENARIO --hooks SETTINGS.json --log OUT.jsonl` runs the bundled implementation on
a scenario file, with the hooks of a Claude Code `settings.json` (or a Codex `hooks.json`)
running as real processes, writes the session log, and shows what the hooks did to history,
audit and presentation. The scenario format (JSON):

    {
      "tools": [{"name": "bash", "concurrencySafe": false, "requiredKeys": ["command"]}, ...],
      "maxParallel": 10,                       # optional
      "cwd": "/path/the/hooks/run/in",          # optional, default: the current directory
      "turns": [
        {"user": "clean the build",
         "replies": [                           # the model's replies, one per step, in order
           {"blocks": [{"type": "text", "text": "..."},
                       {"type": "tool-call", "id": "c1", "name": "bash",
                        "arguments": "{\\"command\\": \\"rm -rf build\\"}"}],
            "finish": "completed"},
           {"blocks": [{"type": "text", "text": "done"}], "finish": "completed"}]}
      ],
      "results": {"c1": {"ok": true, "text": "removed"}},   # tool outcomes by call id
      "approvals": {"c1": "allowed-once"},                   # answers by call id
      "defaultApproval": "rejected"                          # optional, default "rejected"
    }

A call with no entry in `results` succeeds with empty output. A model request after a turn's
replies are used up fails the turn with `SCENARIO_EXHAUSTED` (the log says so).
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from loopspec.impl.agent_loop import AgentLoop, LoopSettings
from loopspec.impl.hookbridge import HookBridge, load_settings, parse_settings
from loopspec.impl.hookbridge.runner import BridgeHookRunner
from loopspec.impl.log_writer import SYNCED
from loopspec.impl.opening import SessionInfo
from loopspec.impl.presentation import Shown
from loopspec.impl.seams import ApprovalRequest, ModelRequest, ProviderFailed
from loopspec.impl.tools import RegisteredTool, ToolExecution
from loopspec.model.commands import (
    APPROVAL_OUTCOMES,
    ModelReplies,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.errors import LoopSpecError
from loopspec.model.events import Event
from loopspec.properties.conformance.command_codec import ProtocolError, command_from_json


class ScenarioError(LoopSpecError):
    """A scenario file that cannot be run; the message names the file and the JSON path."""

    def __init__(self, message: str) -> None:
        super().__init__(message, rule_id="PROTO-1")


@attrs.frozen
class ScenarioTool:
    """A tool the scenario registers."""

    name: str
    concurrency_safe: bool
    required_keys: tuple[str, ...]


@attrs.frozen
class Scenario:
    """A parsed scenario."""

    tools: tuple[ScenarioTool, ...]
    turns: tuple[tuple[str, tuple[ModelReplies, ...]], ...]
    results: Mapping[str, ToolOutcome]
    approvals: Mapping[str, str]
    default_approval: str
    max_parallel: int
    cwd: str


def _outcome(value: object, where: str) -> ToolOutcome:
    command = command_from_json({"kind": "ToolFinishes", "callId": "x", "outcome": value}, where)
    assert isinstance(command, ToolFinishes)
    return command.outcome


def load_scenario(path: Path) -> Scenario:
    """Read and validate a scenario file."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ScenarioError(f"{path}: cannot read the scenario: {error}") from error
    try:
        return _parse(document, str(path))
    except ProtocolError as error:
        raise ScenarioError(f"{path}: {error.message}") from error
    except (KeyError, TypeError, ValueError) as error:
        raise ScenarioError(f"{path}: malformed scenario: {error}") from error


def _parse(document: Any, source: str) -> Scenario:
    if not isinstance(document, dict):
        raise ScenarioError(f"{source}: $ must be an object")
    tools = tuple(
        ScenarioTool(
            str(t["name"]),
            bool(t.get("concurrencySafe", False)),
            tuple(str(k) for k in t.get("requiredKeys", [])),
        )
        for t in document.get("tools", [])
    )
    turns = []
    for i, turn in enumerate(document.get("turns", [])):
        replies = []
        for j, reply in enumerate(turn.get("replies", [])):
            command = command_from_json(
                {"kind": "ModelReplies", **reply}, f"$.turns[{i}].replies[{j}]"
            )
            assert isinstance(command, ModelReplies)
            replies.append(command)
        turns.append((str(turn["user"]), tuple(replies)))
    results = {
        str(k): _outcome(v, f"$.results.{k}") for k, v in document.get("results", {}).items()
    }
    approvals = {str(k): str(v) for k, v in document.get("approvals", {}).items()}
    default = str(document.get("defaultApproval", "rejected"))
    for outcome in [*approvals.values(), default]:
        if outcome not in APPROVAL_OUTCOMES:
            raise ScenarioError(f"{source}: unknown approval outcome {outcome!r}")
    return Scenario(
        tools,
        tuple(turns),
        results,
        approvals,
        default,
        int(document.get("maxParallel", 10)),
        str(document.get("cwd", Path.cwd())),
    )


class ScenarioWorld:
    """Provider, approver and tool bodies that answer straight from the scenario."""

    def __init__(self, scenario: Scenario) -> None:
        self._scenario = scenario
        self._replies: deque[ModelReplies] = deque()

    def start_turn(self, replies: tuple[ModelReplies, ...]) -> None:
        """The replies the model gives in the next turn."""
        self._replies = deque(replies)

    async def complete(self, request: ModelRequest) -> ModelReplies:
        """The next scripted reply."""
        if not self._replies:
            raise ProviderFailed(
                "the scenario has no more replies for this turn", "SCENARIO_EXHAUSTED"
            )
        return self._replies.popleft()

    async def request_approval(self, request: ApprovalRequest) -> str:
        """The scripted answer for this call."""
        return self._scenario.approvals.get(
            request.execution.call_id, self._scenario.default_approval
        )

    async def body(self, execution: ToolExecution) -> ToolOutcome:
        """The scripted outcome of this call."""
        return self._scenario.results.get(execution.call_id, ToolSucceeded(""))

    def tools(self) -> list[RegisteredTool]:
        """The scenario's tools, bodies answering from the scenario."""
        return [
            RegisteredTool(t.name, self.body, t.concurrency_safe, t.required_keys)
            for t in self._scenario.tools
        ]


@attrs.frozen
class RunResult:
    """What a scenario run produced."""

    events: tuple[Event, ...]
    shown: tuple[Shown, ...]
    history: tuple[Any, ...]


def run_scenario(
    scenario: Scenario, *, hooks: Path | None, log_path: Path, fail_closed: bool = False
) -> RunResult:
    """Run every turn of the scenario with real hooks; return the log, views and history."""
    return asyncio.run(_run(scenario, hooks, log_path, fail_closed))


async def _run(
    scenario: Scenario, hooks: Path | None, log_path: Path, fail_closed: bool
) -> RunResult:
    world = ScenarioWorld(scenario)
    session = SessionInfo(log_path.stem, scenario.cwd)
    settings = (
        load_settings(hooks)
        if hooks is not None
        else parse_settings({"hooks": {}}, source="<no hooks>")
    )
    bridge = HookBridge(
        settings,
        session_id=session.id,
        cwd=scenario.cwd,
        transcript_path=str(log_path),
        fail_closed=fail_closed,
    )
    specs, runner = bridge.specs(), BridgeHookRunner(bridge)
    shown: list[Shown] = []
    agent = AgentLoop.open(
        log_path,
        settings=LoopSettings(specs, scenario.max_parallel),
        tools=world.tools(),
        provider=world,
        hook_runner=runner,
        approver=world,
        durability=SYNCED,
        session=session,
        on_shown=shown.append,
    )
    try:
        for user, replies in scenario.turns:
            world.start_turn(replies)
            agent.submit(user)
            while agent.turn_running:
                await asyncio.sleep(0.005)
        return RunResult(agent.events, tuple(shown), agent.history.messages())
    finally:
        agent.close()
