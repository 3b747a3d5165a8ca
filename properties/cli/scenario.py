"""Scenarios: a scripted session (model replies, tool outcomes, approvals) run with real hooks.

`loopspec run SCENARIO --hooks SETTINGS.json --log OUT.jsonl` runs the bundled implementation on
a scenario file, with the hooks of a Claude Code `settings.json` (or a Codex `hooks.json`)
running as real processes, writes the session log, and shows what the hooks did to history,
audit and presentation. The scenario format (JSON):

    {
      "tools": [{"name": "bash", "concurrencySafe": false, "requiredKeys": ["command"],
                 "inputSchema": {"properties": {"command": {"type": "string"}},   # optional
                                 "required": ["command"]}}, ...],
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

A tool's `inputSchema` is read for `required` and each property's single `type` (other JSON
Schema keywords are ignored): a hook's rewrite (`updatedInput`) that lacks a required key or
gives a property a value of another type is refused, and the call denied (rule HOOK-6).
A call with no entry in `results` succeeds with empty output. A model request after a turn's
replies are used up fails the turn with `SCENARIO_EXHAUSTED` (the log says so). A member the
format does not have is refused (a turn may also hold `run --harness`'s `crashAfterSeconds`,
`abortAfterSeconds` and `cutAfterFile`), and so is an entry of `results` or `approvals` for a
call id no reply makes; each refusal names the file, the line and the JSON path.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import attrs

from loopspec.impl.agent_loop import AgentLoop, LoopSettings
from loopspec.impl.hookbridge import HookBridge, load_settings, parse_settings
from loopspec.impl.hookbridge.runner import BridgeHookRunner
from loopspec.impl.log_writer import SYNCED
from loopspec.impl.opening import SessionInfo
from loopspec.impl.presentation import Shown
from loopspec.impl.seams import ApprovalRequest, ModelRequest, ProviderFailed
from loopspec.impl.tools import JSON_TYPES, RegisteredTool, ToolExecution
from loopspec.impl.user_files import NotJsonText, UserFileError, read_user_json_text
from loopspec.model.commands import (
    APPROVAL_OUTCOMES,
    ModelReplies,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.errors import NO_RULE_BROKEN, LoopSpecError
from loopspec.model.events import Event
from loopspec.model.json_location import leading_path, line_of
from loopspec.model.json_text import spelled
from loopspec.model.messages import ToolCallBlock
from loopspec.model.near_miss import did_you_mean
from loopspec.properties.conformance.command_codec import (
    ProtocolError,
    command_from_json,
    given_instead,
)


class ScenarioError(LoopSpecError):
    """A scenario file that cannot be run; the message names the file and the JSON path. Its
    replies and outcomes are the driver protocol's JSON: a fault there names PROTO-1, or the
    model's rule for a value the model refuses; the scenario's own members and its JSON text
    are no rule's (the file, line and path say where); a file that cannot be read names SAFE-4
    or no rule, as `UserFileError.rule_id` says."""

    def __init__(self, message: str, *, rule_id: str = NO_RULE_BROKEN) -> None:
        super().__init__(message, rule_id=rule_id)


@attrs.frozen
class ScenarioTool:
    """A tool the scenario registers."""

    name: str
    concurrency_safe: bool
    required_keys: tuple[str, ...]
    key_types: tuple[tuple[str, str], ...] = ()


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
    finishes = {"kind": "ToolFinishes", "callId": "x", "outcome": value}
    try:
        command = command_from_json(finishes, where)
    except ProtocolError as error:
        # The outcome is the value at `where`: no `outcome` member is in the file.
        said = error.message.replace(f"{where}.outcome", where, 1)
        raise ProtocolError(said, rule_id=error.rule_id) from error
    assert isinstance(command, ToolFinishes)
    return command.outcome


SCENARIO_FILE_CAP = 16 * 1024 * 1024
"""Bytes a scenario file may hold (rule SAFE-4)."""
MAX_PARALLEL_CAP = 1024
"""The largest `maxParallel` a scenario may ask for."""


def load_scenario(path: Path) -> Scenario:
    """Read and validate a scenario file; `ScenarioError` (one line, exit 2) when unusable."""
    return read_scenario(path)[0]


def read_scenario(path: Path) -> tuple[Scenario, dict[str, Any], str]:
    """`load_scenario`'s scenario, with the document and the text it was read from: `run
    --harness` reads its own members from the one and locates its refusals in the other."""
    try:
        document, text = read_user_json_text(path, cap=SCENARIO_FILE_CAP, what="scenario")
    except NotJsonText as error:
        raise ScenarioError(str(error)) from error
    except UserFileError as error:  # not read, or past SAFE-4's bounds
        raise ScenarioError(str(error), rule_id=error.rule_id) from error
    try:
        scenario = _parse_document(document)
    except (ScenarioError, ProtocolError) as error:
        raise refused_at(path, text, error) from error
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        raise ScenarioError(f"{path}: malformed scenario: {error}") from error
    assert isinstance(document, dict)  # (_parse_document refuses any other)
    return scenario, document, text


def refused_at(path: Path, text: str, error: LoopSpecError) -> ScenarioError:
    """The refusal of a scenario whose `error` starts with a JSON path, at the path's line: a
    scenario is written by hand, and a case's faults name their line too."""
    where = leading_path(error.message)
    line = "" if where is None else f":{line_of(text, where)}"
    return ScenarioError(f"{path}{line}: {error.message}", rule_id=error.rule_id)


# The members each object of a scenario may hold; a turn's last three are `run --harness`'s
# (properties/harnesses/script.py), the bundled loop's run ignores them.
_SCENARIO_MEMBERS: Final = (
    "tools", "maxParallel", "cwd", "turns", "results", "approvals", "defaultApproval"
)  # fmt: skip
_TOOL_MEMBERS: Final = ("name", "concurrencySafe", "requiredKeys", "inputSchema")
_TURN_MEMBERS: Final = (
    "user", "replies", "crashAfterSeconds", "abortAfterSeconds", "cutAfterFile"
)  # fmt: skip


def _refuse_unknown_members(found: dict[str, Any], known: tuple[str, ...], where: str) -> None:
    """Refuse a member the scenario format does not have: a misspelt `tool` ran the turns with
    no tool declared, and a misspelt `results` ran every call with empty output, exit 0."""
    for key in found:
        if key not in known:
            hint = did_you_mean(key, known)
            raise ScenarioError(
                f"{where}.{key} is not a member here{hint}; the members here are {', '.join(known)}"
            )


def _field(document: dict[str, Any], key: str, kind: type, default: object) -> Any:
    value = document.get(key, default)
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ScenarioError(f"$.{key} must be {_KIND_NAMES[kind]}{given_instead(value)}")
    return value


_KIND_NAMES: dict[type, str] = {
    list: "a list",
    dict: "an object",
    str: "a string",
    int: "an integer",
    bool: "true or false",
}


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(f"{where} must be an object")
    return value


def _tools(raw: list[Any]) -> tuple[ScenarioTool, ...]:
    tools: list[ScenarioTool] = []
    for index, entry in enumerate(raw):
        where = f"$.tools[{index}]"
        tool = _object(entry, where)
        _refuse_unknown_members(tool, _TOOL_MEMBERS, where)
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise ScenarioError(f"{where}.name must be a non-empty string")
        if any(known.name == name for known in tools):
            raise ScenarioError(f"{where}.name: tool {spelled(name)} is declared twice")
        safe = tool.get("concurrencySafe", False)
        if not isinstance(safe, bool):
            raise ScenarioError(
                f"{where}.concurrencySafe must be true or false{given_instead(safe)}"
            )
        keys = tool.get("requiredKeys", [])
        if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
            raise ScenarioError(f"{where}.requiredKeys must be a list of strings")
        required, types = _input_schema(tool.get("inputSchema", {}), f"{where}.inputSchema")
        merged = tuple(dict.fromkeys([*keys, *required]))
        tools.append(ScenarioTool(name, safe, merged, types))
    return tuple(tools)


def _input_schema(raw: object, where: str) -> tuple[list[str], tuple[tuple[str, str], ...]]:
    """The required keys and the (key, type) pairs of a tool's `inputSchema`."""
    schema = _object(raw, where)
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(key, str) for key in required):
        raise ScenarioError(f"{where}.required must be a list of strings")
    types = []
    for key, declared in _object(schema.get("properties", {}), f"{where}.properties").items():
        kind = _object(declared, f"{where}.properties.{key}").get("type")
        if kind is None:
            continue
        if kind not in JSON_TYPES:
            allowed = ", ".join(JSON_TYPES)
            raise ScenarioError(f"{where}.properties.{key}.type must be one of {allowed}")
        types.append((key, kind))
    return required, tuple(types)


def _turns(raw: list[Any]) -> tuple[tuple[str, tuple[ModelReplies, ...]], ...]:
    turns = []
    for i, entry in enumerate(raw):
        turn = _object(entry, f"$.turns[{i}]")
        _refuse_unknown_members(turn, _TURN_MEMBERS, f"$.turns[{i}]")
        user = turn.get("user")
        if not isinstance(user, str):
            raise ScenarioError(f"$.turns[{i}].user must be a string")
        raw_replies = turn.get("replies", [])
        if not isinstance(raw_replies, list):
            raise ScenarioError(f"$.turns[{i}].replies must be a list")
        replies = []
        for j, reply in enumerate(raw_replies):
            where = f"$.turns[{i}].replies[{j}]"
            command = command_from_json({"kind": "ModelReplies", **_object(reply, where)}, where)
            assert isinstance(command, ModelReplies)
            replies.append(command)
        turns.append((user, tuple(replies)))
    return tuple(turns)


def _refuse_another_kind_of_file(document: dict[str, Any]) -> None:
    """A hooks file or a conform case given as SCENARIO: say which file it is and where it goes
    (it read "$.turns must list at least one turn", as if the scenario were merely empty)."""
    if "turns" in document:
        return
    if document.get("loopspec") == "case":
        raise ScenarioError(
            "this is a conform case file, not a scenario: rerun it with `loopspec replay FILE`"
        )
    if "hooks" in document:
        raise ScenarioError(
            "$ holds `hooks` and no `turns`: a hooks settings file, not a scenario; give it with "
            "--hooks, and a scenario ({tools, turns}) as SCENARIO"
        )


def _refuse_answers_to_no_call(
    turns: tuple[tuple[str, tuple[ModelReplies, ...]], ...], document: dict[str, Any]
) -> None:
    """Refuse a result or an approval for a call id no reply makes: a call id renamed in its
    reply alone left its result unused, and the call ran with empty output, exit 0."""
    calls = [
        block.id
        for _, replies in turns
        for reply in replies
        for block in reply.blocks
        if isinstance(block, ToolCallBlock)
    ]
    for member in ("results", "approvals"):
        for call_id in document.get(member, {}):
            if call_id not in calls:
                hint = did_you_mean(call_id, calls)
                made = ", ".join(dict.fromkeys(calls)) or "none"
                raise ScenarioError(
                    f"$.{member}.{call_id} names no call the replies make{hint}; the calls "
                    f"are {made}"
                )


def _working_directory(document: dict[str, Any]) -> str:
    cwd = _field(document, "cwd", str, str(Path.cwd()))
    if not Path(cwd).is_dir():
        # Every hook would fail to start there and every call would run unhooked.
        raise ScenarioError(f"$.cwd: {spelled(cwd)} is not a directory the hooks can run in")
    return str(cwd)


def _parse_document(document: Any) -> Scenario:
    document = _object(document, "$")
    _refuse_another_kind_of_file(document)
    _refuse_unknown_members(document, _SCENARIO_MEMBERS, "$")
    tools = _tools(_field(document, "tools", list, []))
    turns = _turns(_field(document, "turns", list, []))
    if not turns:  # `{}` or a mistyped key would otherwise "run" and report nothing, exit 0
        raise ScenarioError("$.turns must list at least one turn ({user, replies}): nothing to run")
    results = {
        key: _outcome(value, f"$.results.{key}")
        for key, value in _field(document, "results", dict, {}).items()
    }
    approvals = _field(document, "approvals", dict, {})
    default = _field(document, "defaultApproval", str, "rejected")
    named = [(f"$.approvals.{key}", outcome) for key, outcome in approvals.items()]
    for where, outcome in [*named, ("$.defaultApproval", default)]:
        if not isinstance(outcome, str) or outcome not in APPROVAL_OUTCOMES:
            # It said only "unknown approval outcome 'x'": neither where, nor what is known.
            raise ScenarioError(
                f"{where} is {spelled(outcome)}, no approval outcome; the outcomes are "
                f"{', '.join(sorted(APPROVAL_OUTCOMES))}"
            )
    _refuse_answers_to_no_call(turns, document)
    max_parallel = _field(document, "maxParallel", int, 10)
    if not 1 <= max_parallel <= MAX_PARALLEL_CAP:
        raise ScenarioError(f"$.maxParallel must be between 1 and {MAX_PARALLEL_CAP}")
    return Scenario(
        tools, turns, results, dict(approvals), default, max_parallel, _working_directory(document)
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
            RegisteredTool(t.name, self.body, t.concurrency_safe, t.required_keys, t.key_types)
            for t in self._scenario.tools
        ]


@attrs.frozen
class RunResult:
    """What a scenario run produced."""

    events: tuple[Event, ...]
    shown: tuple[Shown, ...]
    history: tuple[Any, ...]
    earlier: int = 0
    """How many of `events` the log already held (`run --log` appends to its own logs)."""


def run_scenario(
    scenario: Scenario,
    *,
    hooks: Path | None,
    log_path: Path,
    fail_closed: bool = False,
    hook_env: Mapping[str, str] | None = None,
    dialect: str | None = None,
) -> RunResult:
    """Run every turn of the scenario with real hooks; return the log, views and history.

    Hooks get `hook_env` as their environment (default: this process's whole environment).
    `dialect` names the hooks file's protocol when the file does not (`load_settings`).
    """
    return asyncio.run(
        _run(
            scenario,
            hooks=hooks,
            log_path=log_path,
            fail_closed=fail_closed,
            hook_env=hook_env,
            dialect=dialect,
        )
    )


async def _run(
    scenario: Scenario,
    *,
    hooks: Path | None,
    log_path: Path,
    fail_closed: bool,
    hook_env: Mapping[str, str] | None,
    dialect: str | None,
) -> RunResult:
    world = ScenarioWorld(scenario)
    session = SessionInfo(log_path.stem, scenario.cwd)
    settings = (
        load_settings(hooks, dialect=dialect)
        if hooks is not None
        else parse_settings({"hooks": {}}, source="<no hooks>")
    )
    bridge = HookBridge(
        settings,
        session_id=session.id,
        cwd=scenario.cwd,
        transcript_path=str(log_path),
        fail_closed=fail_closed,
        env=hook_env,
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
    earlier = len(agent.events)
    try:
        for user, replies in scenario.turns:
            world.start_turn(replies)
            agent.submit(user)
            while agent.turn_running:
                await asyncio.sleep(0.005)
        return RunResult(agent.events, tuple(shown), agent.history.messages(), earlier)
    finally:
        agent.close()
