"""`loopspec run SCENARIO --harness claude-code|codex [--hooks SETTINGS] [--log OUT]`.

Plays the scenario's turns (each later one resuming the session) on the real CLI installed under
`examples/<harness>-adapter/` (`npm ci` there; nothing is installed here), offline, and prints
what every reader held and the divergences from the model (see `report`). The transcript or
rollout the harness wrote is copied to `--log` — only to a path that does not exist yet: an
existing file is refused, never replaced — so `loopspec check OUT` can judge it. Exit status: 0
no divergence, 1 the real loop diverged from the model (the report's comparisons found it, or
`check` finds a rule broken in the log it wrote: one verdict, see `report`), 2 the scenario,
hooks file, log path or installation cannot be used, or the CLI failed before asking the model
anything (PROTO-1, its stderr quoted).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from loopspec.impl.hookbridge.settings import (
    SETTINGS_FILE_CAP,
    HookSettingsError,
    refuse_misspellings,
)
from loopspec.impl.user_files import (
    NotJsonText,
    UserFileError,
    read_user_json_text,
    refused_by_system,
)
from loopspec.model.errors import NO_RULE_BROKEN
from loopspec.model.json_location import leading_path, line_of
from loopspec.model.json_text import spelled
from loopspec.properties.harnesses.mock_model import asks_the_model
from loopspec.properties.harnesses.report import blank_turn_refused, report_lines, session_view
from loopspec.properties.harnesses.script import Harness, HarnessScript, load_harness_script
from loopspec.properties.harnesses.session import (
    HarnessError,
    SessionRequest,
    default_adapter_dir,
    drive,
)
from loopspec.properties.unfilled_files import removed_at_sigterm_while_empty

HARNESS_NAMES = tuple(harness.value for harness in Harness)


def load_hooks(path: Path) -> dict[str, Any]:
    """A Claude Code settings.json / Codex hooks.json: `{"hooks": {EVENT: [{matcher, hooks:
    [{type: command, command}]}]}}`; `HarnessError` naming the file, the line and the bad part
    (a hooks file is edited by hand, as the bundled loop's `--hooks` reads it)."""
    try:
        # Bounded as the bundled loop's hooks file is (SAFE-4): `--hooks /dev/zero` ate memory.
        document, text = read_user_json_text(path, cap=SETTINGS_FILE_CAP, what="hooks file")
    except NotJsonText as error:
        raise HarnessError(str(error)) from error
    except UserFileError as error:  # not read, or past SAFE-4's bounds
        raise HarnessError(str(error), rule_id=error.rule_id) from error
    problem = _hooks_problem(document)
    if problem is None:
        try:
            refuse_misspellings(document, source=str(path))
        except HookSettingsError as misspelt:  # the bundled loop's words for it
            problem = f"{misspelt.json_path}: {misspelt.problem}"
    if problem is not None:
        where = leading_path(problem)
        line = "" if where is None else f":{line_of(text, where)}"
        raise HarnessError(f"{path}{line}: {problem}")
    assert isinstance(document, dict)  # (_hooks_problem refuses any other)
    return document


def _hooks_problem(document: object) -> str | None:
    """What in a hooks document a harness cannot be given, from its JSON path; None if nothing."""
    if not isinstance(document, dict):
        return '$ must be an object with "hooks"'
    events = document.get("hooks")
    if not isinstance(events, dict):
        return '$.hooks must be an object of events ({"PreToolUse": ...})'
    for event, groups in events.items():
        if not isinstance(groups, list):
            return f"$.hooks.{event} must be a list of matcher groups"
        for g, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                return (
                    f"$.hooks.{event}[{g}].hooks must be a list of "
                    '{"type": "command", "command": "..."}'
                )
            for h, handler in enumerate(handlers):
                if isinstance(handler, dict) and handler.get("type") != "command":
                    # A prompt, agent, http or MCP tool hook has no command for the audit to
                    # run, and one written with a command anyway ran as its type, unaudited.
                    given = (
                        "is missing" if "type" not in handler else f"is {spelled(handler['type'])}"
                    )
                    return (
                        f"$.hooks.{event}[{g}].hooks[{h}].type: {given}: a harness run takes "
                        'command hooks only ("type": "command"), the hooks whose answers it shows'
                    )
                if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
                    # Named at the handler: "[0].hooks must be a list of ..." left the person
                    # to find which of several lacked its command.
                    return (
                        f"$.hooks.{event}[{g}].hooks[{h}] must be a command hook, "
                        '{"type": "command", "command": "..."}, with a string `command`'
                    )
    return None


def _claim_log_path(path: Path) -> int:
    """Create `path` (it must not exist); the open descriptor."""
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise HarnessError(
            f"{path}: exists; a harness run copies the transcript only to a new file "
            "(nothing is replaced): give --log a new path"
        ) from None
    except OSError as error:  # its folder is missing or read-only
        message = refused_by_system(path, "create the log", error)
        raise HarnessError(message, rule_id=NO_RULE_BROKEN) from error


def _write_whole(descriptor: int, data: bytes, path: Path) -> None:
    """Write all of `data` to the log `path` this run created, or say it was not created: one
    `write` a full disk cuts short returns the count it took, and the rest was dropped."""
    rest = memoryview(data)
    try:
        while rest:
            rest = rest[os.write(descriptor, rest) :]
    except OSError as error:  # the caller removes the file
        message = refused_by_system(path, "create the log", error)
        raise HarnessError(message, rule_id=NO_RULE_BROKEN) from error


def _refuse_a_stuck_run(
    scenario: Path, harness: Harness, replies: int, result: dict[str, Any]
) -> None:
    """`HarnessError` naming the scenario and the reply when the mock stopped the run because
    the CLI kept asking for one reply (`MockModel.stuck`): its history never showed it given."""
    stuck = result.get("stuck")
    if not stuck:
        return
    index, asks = stuck["index"], stuck["asks"]
    which = (
        f"reply {index + 1} of its {replies}" if index < replies else f"a reply past its {replies}"
    )
    raise HarnessError(
        f"{scenario}: {harness.value} asked for {which} {asks} times, the history its requests "
        "carry never growing past it (the scripted model answers a request by the replies its "
        "history holds), so the run was stopped; the scenario cannot be played on this CLI as "
        "written",
        rule_id=NO_RULE_BROKEN,
    )


# How much of a failed CLI's stderr the refusal quotes: its last lines, as `drive` quotes a
# failed session's.
_STDERR_LINES = 5


def _refuse_a_cli_that_never_asked(
    harness: Harness, script: HarnessScript, result: dict[str, Any]
) -> None:
    """`HarnessError` (PROTO-1) when a turn of the CLI failed (an exit code no crash or abort of
    the scenario explains) and it never asked the model anything: nothing of the scenario was
    played, and a report of it (no call judged, no divergence) would read as a pass. A turn
    failed by Claude Code's refusal of its blank prompt is reported instead (TURN-1, `report`)."""
    code = result.get("exitCode", 0)
    asked = any(asks_the_model(harness, r["method"], r["path"]) for r in result.get("requests", []))
    if code == 0 or asked or blank_turn_refused(harness, script, result) is not None:
        return
    tail = [line for line in str(result.get("stderr", "")).splitlines() if line.strip()]
    said = " | ".join(tail[-_STDERR_LINES:]) or "(nothing on stderr)"
    timed_out = ", timed out" if result.get("timedOut") else ""
    raise HarnessError(
        f"{harness.value} exited {code}{timed_out} before asking the model anything, so none "
        f"of the scenario was played; its stderr: {said}",
        rule_id="PROTO-1",
    )


def run_harness(args: argparse.Namespace) -> int:
    """Run the scenario on the real harness; print the report."""
    harness = Harness(args.harness)
    script = load_harness_script(Path(args.scenario), harness)
    hooks_path = Path(args.hooks).resolve() if args.hooks else None
    hooks = load_hooks(hooks_path) if hooks_path else None
    adapter = Path(args.adapter).resolve() if getattr(args, "adapter", None) else None
    request = SessionRequest(
        harness,
        script,
        hooks,
        adapter or default_adapter_dir(harness),
        hooks_dir=hooks_path.parent if hooks_path else None,
    )
    log_path = Path(args.log)
    descriptor = _claim_log_path(log_path)
    try:
        with removed_at_sigterm_while_empty(log_path, descriptor):
            result = drive(request)
            _refuse_a_stuck_run(Path(args.scenario), harness, len(script.replies), result)
            _refuse_a_cli_that_never_asked(harness, script, result)
            logs = result["logs"]
            _write_whole(descriptor, logs[0]["text"].encode() if logs else b"", log_path)
    except BaseException:
        os.close(descriptor)
        log_path.unlink()  # the file this run created and could not fill
        raise
    os.close(descriptor)
    view = session_view(harness, script, hooks, result, hooks_source=str(args.hooks))
    for line in report_lines(view, result):
        print(line)
    if logs:
        where = logs[0]["path"]
        print(f"\n{harness.value} log (~/{where} in the run's HOME) copied to {log_path}")
    else:
        print(f"\n{harness.value} wrote no log in the run's HOME: {log_path} is left empty")
    return 1 if view.divergences else 0
