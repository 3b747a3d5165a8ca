"""What a harness run plays: the prompts and the model's scripted replies, from a scenario file.

A harness run reads the same scenario format as `loopspec run` (see
`loopspec.properties.cli.scenario`), with what a real CLI allows: turns played as headless
prompts (the first starts the session, each later one resumes it), and tool calls to `bash`
whose arguments are an object with a string `command`, or, on Claude Code, to its file tools
`read`, `write` and `edit` (its Read, Write and Edit: the arguments an object the CLI takes as
it stands, `file_path`, `content`, `old_string`, `new_string`; Codex 0.171.0 offers a mock
model no file tool, its shell writes files). The command really runs in the harness's
shell, so the scenario controls a tool's output and its finishing order through the command
itself (`sleep 0.5; echo late`); `results` and `approvals` do not apply (the hooks and the shell
decide) and are refused rather than silently ignored. One key is the harness's own: a turn's
`"crashAfterSeconds": N` kills the CLI (SIGKILL) N seconds into the turn, and the next turn
resumes the crashed session, which shows how the real loop repairs it (REC-1);
`"abortAfterSeconds": N` interrupts it instead (SIGINT, Ctrl-C: ABORT-1); with
`"cutAfterFile": NAME` the N seconds count from when a command creates NAME in the working
directory, so the cut lands while that command runs.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from loopspec.model.json_text import spelled
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock

if TYPE_CHECKING:
    from loopspec.model.config import LoopConfig
    from loopspec.properties.cli.scenario import Scenario


class Harness(enum.Enum):
    """The real loops that can be driven."""

    CLAUDE_CODE = "claude-code"
    CODEX = "codex"


# What `conform_driver` declares for either CLI (its docstring says why no more): the profiles
# of the real harnesses describe these only.
DRIVEN_CAPABILITIES = ("abort", "history", "parallel", "post-hooks", "pre-hooks", "rewrite")


def runs_as_read_only(harness: Harness, config: LoopConfig, name: str) -> bool:
    """Whether a call of tool `name` reaches `harness` as a command it reads as read-only, so
    runs beside others and decides its PreToolUse hooks as it starts (`conform_driver` gives
    such a call a read-only-looking program): Claude Code's calls of a concurrency-safe tool.
    Claude Code 2.1.332 runs read-only commands together even when its cap is 1 (measured:
    CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY=1 still overlapped two); under a cap of 1 a call runs
    alone in the model, so then none is."""
    safe = any(tool.name == name and tool.concurrency_safe for tool in config.tools)
    return harness == Harness.CLAUDE_CODE and safe and config.max_parallel > 1


@attrs.frozen
class ScriptedText:
    """Text the model writes."""

    text: str


# The scenario's name of each tool a harness run drives on Claude Code but its shell, and the
# name Claude Code gives it (the shell, `bash`, is each CLI's own: `model_stream.shell_call`).
CLAUDE_FILE_TOOLS = {"read": "Read", "write": "Write", "edit": "Edit"}
SHELL = "bash"


@attrs.frozen
class ScriptedCall:
    """A call of `tool` (`SHELL`, or a key of `CLAUDE_FILE_TOOLS`); a shell call's `arguments`
    hold at least a string `command`."""

    call_id: str
    arguments: dict[str, Any]
    tool: str = SHELL

    @property
    def command(self) -> str:
        """The shell command the model asks for."""
        return str(self.arguments["command"])


ScriptedBlock = ScriptedText | ScriptedCall


@attrs.frozen
class ScriptedReply:
    """One model reply."""

    blocks: tuple[ScriptedBlock, ...]


@attrs.frozen
class HarnessScript:
    """The prompt and the replies of a harness run; `later_prompts` open further turns, each by
    resuming the session (`claude -p --continue`, `codex exec resume --last`). The replies of
    all turns form one list: the mock answers by how many replies the history already holds."""

    prompt: str
    replies: tuple[ScriptedReply, ...]
    later_prompts: tuple[str, ...] = ()
    # Per turn: kill the harness (SIGKILL, a crash) this many seconds after the turn started;
    # None lets the turn finish. The next turn then resumes the crashed session.
    crash_after: tuple[float | None, ...] = ()

    def crash_after_turn(self, number: int) -> float | None:
        """When turn `number` (from 0) is cut off by a crash, or None."""
        return self.crash_after[number] if number < len(self.crash_after) else None

    # Per turn: interrupt the harness (SIGINT to its process group, the user pressing Ctrl-C)
    # this many seconds after the turn started; the next turn resumes the session.
    abort_after: tuple[float | None, ...] = ()

    def abort_after_turn(self, number: int) -> float | None:
        """When turn `number` (from 0) is interrupted, or None."""
        return self.abort_after[number] if number < len(self.abort_after) else None

    # Per turn: a file in the working directory whose appearance starts the crash or abort
    # countdown (a command creates it when it runs), so the cut lands while the call runs
    # however slowly the CLI started.
    cut_start_files: tuple[str | None, ...] = ()

    def cut_start_file(self, number: int) -> str | None:
        """The file that starts turn `number`'s countdown, or None (from the turn's start)."""
        return self.cut_start_files[number] if number < len(self.cut_start_files) else None

    @property
    def prompts(self) -> tuple[str, ...]:
        """Every turn's prompt, in order."""
        return (self.prompt, *self.later_prompts)

    def calls(self) -> list[ScriptedCall]:
        """Every scripted call, in order."""
        return [b for r in self.replies for b in r.blocks if isinstance(b, ScriptedCall)]


def script_from_scenario(scenario: Scenario, harness: Harness) -> HarnessScript:
    """The harness script of a parsed scenario; `ScenarioError` starting with the JSON path of
    what `harness` cannot play (`load_harness_script` puts the file and line before it)."""
    # Imported here, not at the top: the scenario reader pulls in the whole bundled loop, and
    # each harness session's process (which needs only the script's data) would pay ~0.6 s of
    # CPU at start-up for it.
    from loopspec.properties.cli.scenario import ScenarioError  # noqa: PLC0415

    if not scenario.turns:
        raise ScenarioError("$.turns: a harness run needs at least one turn")
    for member, given in (("results", scenario.results), ("approvals", scenario.approvals)):
        if given:
            raise ScenarioError(
                f"$.{member} does not apply to a real harness: the command itself decides a "
                "call's output and timing, the hooks decide approval; take it out"
            )
    scripted = []
    for i, (_, replies) in enumerate(scenario.turns):
        for j, reply in enumerate(replies):
            blocks: list[ScriptedBlock] = []
            for k, block in enumerate(reply.blocks):
                where = f"$.turns[{i}].replies[{j}].blocks[{k}]"
                match block:
                    case TextBlock(text=text) | ReasoningBlock(text=text):
                        blocks.append(ScriptedText(text))
                    case ToolCallBlock(id=call_id, name=name, arguments=raw):
                        tool = _tool(harness, name, where)
                        blocks.append(ScriptedCall(call_id, _arguments(tool, raw, where), tool))
            scripted.append(ScriptedReply(tuple(blocks)))
    prompts = [prompt for prompt, _ in scenario.turns]
    return HarnessScript(prompts[0], tuple(scripted), tuple(prompts[1:]))


def _tool(harness: Harness, name: str, where: str) -> str:
    """The tool a call names, as `ScriptedCall.tool` holds it; `ScenarioError` for one `harness`
    does not offer a mock model."""
    from loopspec.properties.cli.scenario import ScenarioError  # noqa: PLC0415 (see above)

    tool = name.lower()
    if tool == SHELL or (harness == Harness.CLAUDE_CODE and tool in CLAUDE_FILE_TOOLS):
        return tool
    if tool in CLAUDE_FILE_TOOLS:
        raise ScenarioError(
            f"{where}.name is {spelled(name)}: Codex 0.171.0 offers a mock model no file tool "
            "(its shell, exec_command, reads and writes files), so a harness run on codex "
            "drives only calls of bash"
        )
    raise ScenarioError(
        f"{where}.name is {spelled(name)}: a harness run drives only calls of bash (the CLI's "
        "shell tool), and on claude-code of read, write and edit (its Read, Write and Edit)"
    )


def _arguments(tool: str, raw: str, where: str) -> dict[str, Any]:
    from loopspec.properties.cli.scenario import ScenarioError  # noqa: PLC0415 (see above)
    from loopspec.properties.conformance.command_codec import given_instead  # noqa: PLC0415

    try:
        arguments = json.loads(raw)
    except ValueError:
        arguments = None
    if tool != SHELL:
        if not isinstance(arguments, dict):
            raise ScenarioError(
                f"{where}.arguments must be a JSON object (the input Claude Code's "
                f"{CLAUDE_FILE_TOOLS[tool]} takes){given_instead(raw)}"
            )
        return arguments
    if not isinstance(arguments, dict) or not isinstance(arguments.get("command"), str):
        raise ScenarioError(
            f"{where}.arguments must be a JSON object with a string `command` (the shell "
            f"command the harness runs){given_instead(raw)}"
        )
    return arguments


# A turn's members only a harness run reads (the scenario's reader accepts them and leaves them).
_CUTS = ("crashAfterSeconds", "abortAfterSeconds")
_CUT_START = "cutAfterFile"


def load_harness_script(path: Path, harness: Harness) -> HarnessScript:
    """The script of a scenario file, with each turn's `crashAfterSeconds`, `abortAfterSeconds`
    and `cutAfterFile`; `ScenarioError` naming the file, the line and the JSON path of what
    `harness` cannot play (a scenario is written by hand, as `loopspec run` reads it)."""
    from loopspec.properties.cli.scenario import (  # noqa: PLC0415 (see script_from_scenario)
        ScenarioError,
        read_scenario,
        refused_at,
    )

    scenario, document, text = read_scenario(path)
    try:
        script = script_from_scenario(scenario, harness)
        cuts, starts = _cuts(document["turns"])
    except ScenarioError as error:
        raise refused_at(path, text, error) from error
    return attrs.evolve(
        script,
        crash_after=tuple(cuts[_CUTS[0]]),
        abort_after=tuple(cuts[_CUTS[1]]),
        cut_start_files=tuple(starts),
    )


def _cuts(
    turns: list[dict[str, Any]],
) -> tuple[dict[str, list[float | None]], list[str | None]]:
    """Each turn's crash and abort times (None: not cut) and the file that starts its countdown."""
    from loopspec.properties.cli.scenario import ScenarioError  # noqa: PLC0415 (see above)
    from loopspec.properties.conformance.command_codec import given_instead  # noqa: PLC0415

    cuts: dict[str, list[float | None]] = {key: [] for key in _CUTS}
    starts: list[str | None] = []
    for i, turn in enumerate(turns):
        for key, found in cuts.items():
            after = turn.get(key)
            if after is not None and (
                isinstance(after, bool) or not isinstance(after, int | float) or after <= 0
            ):
                raise ScenarioError(
                    f"$.turns[{i}].{key} must be a positive number of seconds{given_instead(after)}"
                )
            found.append(None if after is None else float(after))
        if all(key in turn for key in _CUTS):
            raise ScenarioError(
                f"$.turns[{i}].{_CUTS[1]}: a turn may crash ({_CUTS[0]}) or abort, not both"
            )
        start = turn.get(_CUT_START)
        if start is not None and (
            not isinstance(start, str) or not start or "/" in start or start.startswith(".")
        ):
            raise ScenarioError(
                f"$.turns[{i}].{_CUT_START} must be a plain file name in the working "
                f"directory{given_instead(start)}"
            )
        starts.append(start)
    return cuts, starts
