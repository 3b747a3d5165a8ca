"""Hook settings in the Claude Code `settings.json` shape, for either dialect.

    {"dialect": "codex",                      # optional: "claude-code" (default) or "codex"
     "hooks": {"PreToolUse": [{"matcher": "Bash|Write",
                               "hooks": [{"type": "command", "command": "...",
                                          "timeout": 60, "failClosed": true}]}],
               "PostToolUse": [...]}}

The dialect is declared by the file's top-level `"dialect"` key or by the loader's `dialect`
argument (for files that must stay byte-compatible with the peer); when both are given they must
agree. Events other than PreToolUse and PostToolUse are not modelled: they are skipped and listed
in `HookSettings.skipped_events`, as members real settings hold that loopspec does not read are
left alone; an event or member near one it reads and none real settings hold (`PreToolUs`,
`matchers`, `timout`), or near one real settings hold that loopspec leaves alone
(`PostToolUseFailur`, `statusMesage`), is refused as a misspelling. `failClosed` is loopspec's
own, optional, per-hook override of the bridge's policy. Handler ids are
`<dialect>:<point>:<n>`, n counting from 1 in configured order across every matcher group of
that point, so a handler keeps its id while the file does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import attrs

from loopspec.impl.user_files import NotJsonText, UserFileError, read_user_json_text
from loopspec.model.config import HOOK_POINTS, HookSpec, handler_id, matcher_problem
from loopspec.model.errors import NO_RULE_BROKEN, LoopSpecError
from loopspec.model.events import HOOK_DIALECTS
from loopspec.model.json_location import leading_path, line_of
from loopspec.model.json_text import spelled
from loopspec.model.near_miss import CLOSE, MISSPELT, nearest, offered

CLAUDE_CODE = "claude-code"
CODEX = "codex"
DEFAULT_TIMEOUT_S = 60.0
MAX_TIMEOUT_S = 24 * 60 * 60.0
"""A day: longer is a typo, and asyncio cannot wait for an arbitrarily large float anyway."""
SETTINGS_FILE_CAP = 4 * 1024 * 1024
"""Bytes a settings file may hold (rule SAFE-4)."""
MATCH_ALL = "*"

# The members loopspec reads, in each object of a hooks file.
_TOP_MEMBERS = ("hooks", "dialect")
_GROUP_MEMBERS = ("matcher", "hooks")
_HANDLER_MEMBERS = ("type", "command", "timeout", "failClosed")
# What real settings hold beside them, which loopspec leaves as the peers' own however near a
# member it reads: Claude Code 2.1.332's hook events and its command, prompt, agent, http and
# MCP tool hooks' members (read from its settings schema), and the Codex CLI's (`timeoutSec`,
# `commandWindows`: its hook listing's names). A member or event near one loopspec reads
# (`matchers`, `timout`, `PreToolUs`) and none of these is refused, as a misspelling: ignored,
# it left a matcher group matching every tool, a handler its default timeout, or an event's
# hooks not run at all.
_REAL_EVENTS = frozenset(
    {
        "PostToolUseFailure", "PostToolBatch", "Notification", "UserPromptSubmit",
        "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure",
        "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "PreModelSwitch",
        "PostModelSwitch", "PermissionRequest", "PermissionDenied", "Setup", "TeammateIdle",
        "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange",
        "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged",
        "DirectoryAdded", "MessageDisplay", "PreSkillShellCommand",
    }
)  # fmt: skip
_REAL_HANDLER_MEMBERS = frozenset(
    {
        "args", "async", "asyncRewake", "rewakeMessage", "rewakeSummary", "holdsTools", "if",
        "shell", "onFailure", "statusMessage", "once", "prompt", "model", "url", "headers",
        "allowedEnvVars", "server", "tool", "input", "timeoutSec", "commandWindows",
    }
)  # fmt: skip


class HookSettingsError(LoopSpecError):
    """A settings document loopspec will not run hooks from; names the file and the JSON path
    (none when the file could not be read, SAFE-4 or the system refused it, or is no JSON text:
    its line is named instead). The file is the user's input, in the peers' format, which no
    rule of SPEC.md states: a fault in it names no rule, except a matcher outside the portable
    subset (HOOK-8, the one rule about what a configured hook may say) and SAFE-4's bounds."""

    def __init__(
        self,
        source: str,
        json_path: str,
        problem: str,
        rule_id: str = NO_RULE_BROKEN,
        *,
        line: int | None = None,
    ) -> None:
        self.source = source
        self.json_path = json_path
        self.problem = problem
        # No JSON path for a file not read: its refusal names the file itself. The line, where
        # the file's text is known: a settings file is edited by hand, in an editor.
        at = source if line is None else f"{source}:{line}"
        located = f"{at}: {json_path}: {problem}" if json_path else problem
        super().__init__(located, rule_id=rule_id)


@attrs.frozen
class DeclaredHook:
    """One command handler as the settings declare it, before it has an id."""

    dialect: str
    point: str
    matcher: str
    command: str
    timeout_s: float
    fail_closed: bool | None
    where: str
    """`<file>: <json path>` of the handler, for messages."""


@attrs.frozen
class HookCommand:
    """A configured command hook with its deterministic handler id."""

    handler_id: str
    declared: DeclaredHook

    @property
    def command(self) -> str:
        """The shell command, run with `/bin/sh -c`."""
        return self.declared.command

    @property
    def timeout_s(self) -> float:
        """Seconds until the hook is killed (a fault)."""
        return self.declared.timeout_s

    @property
    def dialect(self) -> str:
        """`claude-code` or `codex`: how the payload is built and the answer read."""
        return self.declared.dialect

    @property
    def point(self) -> str:
        """`PreToolUse` or `PostToolUse`."""
        return self.declared.point

    def spec(self) -> HookSpec:
        """The model's view of this hook, for `LoopConfig.hooks`."""
        return HookSpec(self.handler_id, self.point, self.declared.matcher, self.dialect)


def _numbered(declared: Iterable[DeclaredHook]) -> tuple[HookCommand, ...]:
    counters: dict[tuple[str, str], int] = {}
    commands = []
    for hook in declared:
        key = (hook.dialect, hook.point)
        counters[key] = counters.get(key, 0) + 1
        commands.append(HookCommand(handler_id(hook.dialect, hook.point, counters[key]), hook))
    return tuple(commands)


@attrs.frozen
class HookSettings:
    """Every configured command hook, in configured order, with ids assigned."""

    declared: tuple[DeclaredHook, ...] = ()
    skipped_events: tuple[str, ...] = ()
    hooks: tuple[HookCommand, ...] = attrs.field(init=False)

    @hooks.default
    def _assign_ids(self) -> tuple[HookCommand, ...]:
        return _numbered(self.declared)

    def combine(self, *others: HookSettings) -> HookSettings:
        """These hooks, then the others' (for example a Claude Code and a Codex file).

        Ids are renumbered over the combined order, so they stay unique per dialect and point.
        """
        declared = self.declared + tuple(h for other in others for h in other.declared)
        skipped = self.skipped_events + tuple(e for other in others for e in other.skipped_events)
        return HookSettings(declared, skipped)


def load_settings(path: str | Path, *, dialect: str | None = None) -> HookSettings:
    """Read a `settings.json` / `hooks.json` file; `HookSettingsError` when it is unusable."""
    source = str(path)
    try:
        document, text = read_user_json_text(Path(path), cap=SETTINGS_FILE_CAP, what="hooks file")
    except NotJsonText as error:  # at no JSON path: the line says where
        raise HookSettingsError(source, "", str(error)) from error
    except UserFileError as error:  # SAFE-4's refusal, or the system's (no rule)
        raise HookSettingsError(source, "", str(error), error.rule_id) from error
    try:
        return parse_settings(document, source=source, dialect=dialect)
    except HookSettingsError as error:
        where = leading_path(error.json_path)
        if where is None:  # (the --dialect argument's own fault: no line of the file)
            raise
        line = line_of(text, where)
        raise HookSettingsError(
            source, error.json_path, error.problem, error.rule_id, line=line
        ) from error


def parse_settings(
    document: object, *, source: str = "<settings>", dialect: str | None = None
) -> HookSettings:
    """Validate an already-parsed settings document; `source` names it in errors."""
    if not isinstance(document, Mapping):
        raise HookSettingsError(source, "$", "settings must be a JSON object")
    refuse_misspellings(document, source=source)
    chosen = _dialect(document, source, dialect)
    events = document.get("hooks", {})
    if not isinstance(events, Mapping):
        raise HookSettingsError(source, "$.hooks", "must be an object of hook events")
    declared: list[DeclaredHook] = []
    skipped: list[str] = []
    for event, groups in events.items():
        if event not in HOOK_POINTS:
            skipped.append(event)
            continue
        declared.extend(_groups(groups, chosen, event, source, f"$.hooks.{event}"))
    return HookSettings(tuple(declared), tuple(skipped))


def refuse_misspellings(document: object, *, source: str) -> None:
    """Refuse a misspelt member or event anywhere in a hooks document, every other fault left
    to its reader: `parse_settings` reads the file first so, and `run --harness`, which hands
    the file to a real CLI that ignores a misspelt key as silently as an unknown one."""
    if not isinstance(document, Mapping):
        return
    _refuse_a_misspelling(
        document, _TOP_MEMBERS, frozenset(), source=source, path="$", what="settings"
    )
    events = document.get("hooks")
    if not isinstance(events, Mapping):
        return
    points = tuple(sorted(HOOK_POINTS, reverse=True))
    _refuse_a_misspelling(events, points, _REAL_EVENTS, source=source, path="$.hooks")
    for event, groups in events.items():
        for index, group in enumerate(groups if isinstance(groups, list) else []):
            if not isinstance(group, Mapping):
                continue
            where = f"$.hooks.{event}[{index}]"
            _refuse_a_misspelling(
                group,
                _GROUP_MEMBERS,
                frozenset(),
                source=source,
                path=where,
                what="a matcher group",
            )
            handlers = group.get("hooks")
            for position, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if isinstance(handler, Mapping):
                    _refuse_a_misspelling(
                        handler,
                        _HANDLER_MEMBERS,
                        _REAL_HANDLER_MEMBERS,
                        source=source,
                        path=f"{where}.hooks[{position}]",
                        what="a hook handler",
                        required=("type", "command"),
                    )


def _refuse_a_misspelling(
    found: Mapping[str, object],
    reads: tuple[str, ...],
    real: frozenset[str],
    *,
    source: str,
    path: str,
    what: str = "",
    required: tuple[str, ...] = (),
) -> None:
    """Refuse a key of `found` near one loopspec `reads` there (near_miss.MISSPELT) that real
    settings do not hold (`real`): a misspelling, where any other key is left as the peers'
    own. Near a `required` member the object lacks, less alike will do (near_miss.CLOSE:
    `tyep` is 0.75 to `type`), as the lack says a member was meant. A key as near one of the
    `real` ones loopspec leaves alone (`PostToolUseFailur`, `statusMesage`) misspells that:
    Claude Code 2.1.332 drops an event it does not know (a warning) and a handler's member it
    does not know (silently), so its hooks or setting never took effect, here or there. `what`
    names the object; none: the keys are hook events."""
    lacking = tuple(member for member in required if member not in found)
    for key in found:
        if key in reads or key in real:
            continue
        # Letter case alone sets a real one apart first (`timeoutsec`, Codex's `timeoutSec`,
        # is 0.82 to `timeout`, which it does not mean).
        theirs = nearest(key, real, cutoff=1.0)
        if theirs is None:
            meant = nearest(key, reads, cutoff=MISSPELT) or nearest(key, lacking, cutoff=CLOSE)
            if meant is not None:
                raise HookSettingsError(source, f"{path}.{key}", _misspelt(meant, reads, what))
            theirs = nearest(key, real, cutoff=MISSPELT)
        if theirs is not None:
            problem = _misspelt_real(theirs, reads, what=what)
            raise HookSettingsError(source, f"{path}.{key}", problem)


def _misspelt(meant: str, reads: tuple[str, ...], what: str) -> str:
    """The refusal of a misspelling of `meant`, an event or member loopspec reads (`what`: the
    object it is a member of; none, an event)."""
    if what:
        return (
            f"not a member of {what} loopspec reads{offered(meant)}; it reads "
            f"{', '.join(reads)}, and leaves alone the others real settings hold"
        )
    return (
        f"no hook event{offered(meant)}; loopspec runs {' and '.join(reads)}, and "
        "leaves the others Claude Code and Codex have (Stop, SessionStart...)"
    )


def _misspelt_real(meant: str, reads: tuple[str, ...], *, what: str) -> str:
    """The refusal of a misspelling of `meant`, an event or member loopspec leaves to the
    harness: what the harness does with it, then what loopspec reads (`what`: as above)."""
    if what:
        return (
            f"not a member of {what} real settings hold{offered(meant)}: Claude Code ignores "
            f"one it does not know; loopspec reads {', '.join(reads)}, and leaves alone the "
            "others real settings hold"
        )
    return (
        f"no hook event{offered(meant)}: Claude Code ignores an event it does not know, and its "
        f"hooks never run; loopspec runs {' and '.join(reads)}, and leaves the others Claude "
        "Code and Codex have"
    )


def _dialect(document: Mapping[str, object], source: str, argument: str | None) -> str:
    declared = document.get("dialect")
    if declared is not None and (not isinstance(declared, str) or declared not in HOOK_DIALECTS):
        known = ", ".join(sorted(HOOK_DIALECTS))
        raise HookSettingsError(source, "$.dialect", f"must be one of {known}, not {declared!r}")
    if argument is not None and argument not in HOOK_DIALECTS:
        msg = f"unknown dialect {argument!r}"
        raise HookSettingsError(source, "$", msg)
    if declared is not None and argument is not None and declared != argument:
        problem = f"the file says {declared!r} but the loader was asked for {argument!r}"
        raise HookSettingsError(source, "$.dialect", problem)
    chosen = declared if isinstance(declared, str) else argument
    return chosen or CLAUDE_CODE


def _groups(groups: object, dialect: str, point: str, source: str, path: str) -> list[DeclaredHook]:
    if not isinstance(groups, list):
        raise HookSettingsError(source, path, "must be a list of matcher groups")
    declared = []
    for index, group in enumerate(groups):
        where = f"{path}[{index}]"
        if not isinstance(group, Mapping):
            raise HookSettingsError(source, where, "a matcher group must be an object")
        matcher = _matcher(group.get("matcher"), source, f"{where}.matcher")
        handlers = group.get("hooks")
        if not isinstance(handlers, list):
            raise HookSettingsError(source, f"{where}.hooks", "must be a list of hook handlers")
        for position, handler in enumerate(handlers):
            declared.append(
                _handler(
                    handler,
                    dialect=dialect,
                    point=point,
                    matcher=matcher,
                    source=source,
                    path=f"{where}.hooks[{position}]",
                )
            )
    return declared


def _matcher(value: object, source: str, path: str) -> str:
    if value is None:
        return MATCH_ALL
    # A matcher's errors name HOOK-8, the rule `loopspec spec` explains matchers under.
    if not isinstance(value, str):
        problem = "must be a string (a regex over the tool name)"
        raise HookSettingsError(source, path, problem, "HOOK-8")
    if value in ("", MATCH_ALL):
        return value
    try:
        re.compile(value)
    except re.error as error:
        raise HookSettingsError(source, path, f"not a valid regex: {error}", "HOOK-8") from error
    portable = matcher_problem(value)
    if portable is not None:
        # Rule HOOK-8: only matchers Python and ECMAScript read alike.
        problem = f"outside the portable matcher subset: {portable}"
        raise HookSettingsError(source, path, problem, "HOOK-8")
    return value


def _handler(
    handler: object, *, dialect: str, point: str, matcher: str, source: str, path: str
) -> DeclaredHook:
    if not isinstance(handler, Mapping):
        raise HookSettingsError(source, path, "a hook handler must be an object")
    kind = handler.get("type")
    if kind != "command":
        # Silently skipping a policy hook would run calls it was meant to stop.
        # Said as JSON says it: "not type None" was Python's word for a type left out.
        given = "is missing" if "type" not in handler else f"is {spelled(kind)}"
        problem = f'{given}: only command hooks are supported ("type": "command")'
        raise HookSettingsError(source, f"{path}.type", problem)
    command = handler.get("command")
    if not isinstance(command, str) or not command.strip():
        raise HookSettingsError(source, f"{path}.command", "must be a non-empty string")
    fail_closed = handler.get("failClosed")
    if fail_closed is not None and not isinstance(fail_closed, bool):
        raise HookSettingsError(source, f"{path}.failClosed", "must be true or false")
    timeout = _timeout(handler.get("timeout"), source, f"{path}.timeout")
    return DeclaredHook(dialect, point, matcher, command, timeout, fail_closed, f"{source}: {path}")


def _timeout(value: object, source: str, path: str) -> float:
    if value is None:
        return DEFAULT_TIMEOUT_S
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise HookSettingsError(source, path, "must be a number of seconds")
    if isinstance(value, int) and value > MAX_TIMEOUT_S:
        value = math.inf  # a 400-digit integer cannot even become a float
    if not math.isfinite(value) or not 0 < value <= MAX_TIMEOUT_S:
        problem = f"must be a positive number of seconds, at most {MAX_TIMEOUT_S:g}"
        raise HookSettingsError(source, path, problem)
    return float(value)
