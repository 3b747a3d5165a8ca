"""`loopspec run`'s work (its options are `cli.run`'s): see what real hooks do.

Runs the bundled implementation on a scripted session (see `properties/cli/scenario.py` for the
scenario format) with the hooks of a Claude Code `settings.json` or Codex `hooks.json` running
as real processes; writes the session log and prints, side by side, what each reader holds for
every call: the model history, the audit record (with the original input when a hook rewrote
it), the hook audit, and what the UI showed.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
from pathlib import Path

from loopspec.impl.errors import CorruptLog, ImplError
from loopspec.impl.hookbridge import load_settings
from loopspec.impl.log_reader import COMPRESSED_SUFFIX
from loopspec.impl.opening import HEADER_START
from loopspec.impl.presentation import ApprovalPrompt, CallCard, ResultCard
from loopspec.impl.user_files import file_kind, refused_by_system
from loopspec.model.errors import NO_RULE_BROKEN, LoopSpecError
from loopspec.model.events import (
    Event,
    HookResulted,
    ToolCallRecorded,
    ToolResultRecorded,
)
from loopspec.model.invariants import check_log
from loopspec.model.jsonvalue import dumps, thaw
from loopspec.model.messages import AssistantMessage, TextBlock, ToolResultMessage, UserMessage
from loopspec.properties.cli.scenario import load_scenario, run_scenario
from loopspec.properties.harnesses.rewrite_fate import bundled_fate, rewrite_words
from loopspec.properties.logcheck.hook_faults import HookRuns


class LogPathError(LoopSpecError):
    """A `--log` path `run` will not write to; nothing at it was changed. SAFE-2 refuses what
    is not a log of loopspec's; a path the system will not let `run` use names no rule."""

    def __init__(self, message: str, *, rule_id: str = "SAFE-2") -> None:
        super().__init__(message, rule_id=rule_id)


LOG_HEAD_BYTES = len(HEADER_START)
LOG_APPEND_CAP = 256 * 1024 * 1024
"""The largest existing log `run` appends to (it is read whole first)."""


def checked_log_path(path: Path) -> Path:
    """`path` when `run` may create it or append to it; `LogPathError` otherwise (rule SAFE-2).

    Nothing is ever unlinked or truncated here: a new path gets a new log, an existing loopspec
    log is appended to (under its lock, taken when the loop opens it), anything else is refused.
    """
    if path.name.endswith(COMPRESSED_SUFFIX):
        raise LogPathError(
            f"{path}: a compressed log can be read (`loopspec check`), not appended to; "
            "give --log a .jsonl path"
        )
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return path
    except OSError as error:
        message = refused_by_system(path, "use it as the log", error)
        raise LogPathError(message, rule_id=NO_RULE_BROKEN) from error
    if not stat.S_ISREG(status.st_mode):
        kind = file_kind(status.st_mode)
        raise LogPathError(f"{path}: is {kind}, not a log; refusing to write there")
    if status.st_size > LOG_APPEND_CAP:
        # Appending reads the whole log first (to repair a crash tail): bounded, rule SAFE-4.
        raise LogPathError(
            f"{path}: larger than {LOG_APPEND_CAP} bytes; give --log a new path to start anew",
            rule_id="SAFE-4",
        )
    try:
        with open(path, "rb") as stream:
            head = stream.read(LOG_HEAD_BYTES)
    except OSError as error:
        message = refused_by_system(path, "read the log", error)
        raise LogPathError(message, rule_id=NO_RULE_BROKEN) from error
    if head and not (head.startswith(HEADER_START) or HEADER_START.startswith(head)):
        raise LogPathError(
            f"{path}: exists and is not a loopspec log (a user's file, or a dsh log); "
            "refusing to overwrite it: give --log a new path or one of loopspec's own logs"
        )
    return path


def _why_no_hook_ran(hooks: Path, dialect: str | None, appended: tuple[Event, ...]) -> str:
    """Why the audit is empty although a hooks file was given: a Claude Code settings.json
    names its tools `Bash`, `Read`..., so its matchers often match no tool of a scenario
    (`bash`), and an empty section alone says nothing of that."""
    settings = load_settings(hooks, dialect=dialect)
    declared = settings.declared
    if not declared:
        # (A misspelt event, `PreToolUs`, was refused as the file was read.)
        return f"(no hook ran: {hooks} configures no PreToolUse or PostToolUse command hook)"
    called = sorted({event.name for event in appended if isinstance(event, ToolCallRecorded)})
    if not called:
        return "(no hook ran: no tool was called)"
    matchers = ", ".join(dict.fromkeys(f"{d.point} {d.matcher!r}" for d in declared))
    return (
        f"(no hook ran: the matchers of {hooks} ({matchers}) match none of the tools called "
        f"({', '.join(called)}); a matcher is a regular expression over the whole tool name, "
        "case-sensitive unless it starts with (?i): HOOK-8)"
    )


def allowed_environment(names: list[str]) -> dict[str, str]:
    """The variables of this process's environment that `names` lists (rule SAFE-6)."""
    return {name: os.environ[name] for name in names if name in os.environ}


def _user_line(message: UserMessage) -> str:
    """A user-role message by its text: a PostToolUse hook's context is one, and its author
    wants to see it, not a count of blocks."""
    texts = [block.text for block in message.content if isinstance(block, TextBlock)]
    kind = message.source.get("kind")
    origin = f" ({kind} {message.source.get('plugin')})" if kind == "plugin" else ""
    if not texts:
        return f"user{origin}: {len(message.content)} block(s)"
    others = len(message.content) - 1
    more = f" (+{others} block(s))" if others else ""
    return f"user{origin}: {texts[0][:80]!r}{more}"


def _which_hook_is_which(
    hooks: Path, dialect: str | None, appended: tuple[Event, ...]
) -> list[str]:
    """The command and settings entry of each hook the audit names: an id alone does not
    say which of several scripts answered."""
    ran = {event.handler_id for event in appended if isinstance(event, HookResulted)}
    settings = load_settings(hooks, dialect=dialect)
    commands = [hook for hook in settings.hooks if hook.handler_id in ran]
    if not commands:
        return []
    return ["  where:"] + [
        f"    {hook.handler_id} = {hook.command} ({hook.declared.where})" for hook in commands
    ]


def run(args: argparse.Namespace) -> int:
    """Run the scenario and print what every reader holds."""
    if args.harness:
        if args.dialect not in (None, args.harness):
            raise LoopSpecError(
                f"--dialect {args.dialect} with --harness {args.harness}: the real CLI reads "
                "its hooks in its own dialect",
                rule_id=NO_RULE_BROKEN,
            )
        from loopspec.properties.harnesses.cli import run_harness  # noqa: PLC0415 (lazy)

        return run_harness(args)
    scenario = load_scenario(Path(args.scenario))
    log_path = checked_log_path(Path(args.log))
    try:
        result = run_scenario(
            scenario,
            hooks=Path(args.hooks) if args.hooks else None,
            log_path=log_path,
            fail_closed=args.fail_closed,
            hook_env=None if args.hook_env is None else allowed_environment(args.hook_env),
            dialect=args.dialect,
        )
    except CorruptLog as error:
        # It begins as loopspec's logs do (so does a dsh log's header) but is none loopspec
        # can append to: say so, and why, rather than read as a log loopspec broke (LOG-4).
        raise LogPathError(
            f"{log_path}: exists and is not a log loopspec can append to ({error}): a dsh log, "
            "another program's, or one whose lines were changed; refusing to write there: give "
            "--log a new path or one of loopspec's own logs"
        ) from error
    except ImplError as error:  # the log is locked by another run, or not a log after all
        raise LogPathError(f"{log_path}: {error}") from error
    except OSError as error:
        if error.filename != os.fspath(log_path):
            raise
        # Its folder is missing or read-only, or its disk full: the system's refusal, in the one
        # line check's is.
        doing = "write the log" if os.path.lexists(log_path) else "create the log"
        message = refused_by_system(log_path, doing, error)
        raise LogPathError(message, rule_id=NO_RULE_BROKEN) from error
    appended = result.events[result.earlier :]
    before = f", {result.earlier} of them from earlier runs" if result.earlier else ""
    print(f"session log: {log_path} ({len(result.events)} events{before})")
    print("\n== hooks (audit) ==")
    hook_runs = HookRuns()
    for event in appended:
        if isinstance(event, HookResulted):
            hook_runs.see(
                event.handler_id, event.decision, event.stderr_summary, call_id=event.call_id
            )
            extra = ""
            if event.updated_input is not None:
                fate = bundled_fate(event, appended)
                shown = dumps(event.updated_input)
                extra = f" -> {shown}" if fate is None else rewrite_words(shown, fate)
            why = f" ({event.stderr_summary})" if event.stderr_summary else ""
            print(
                f"  {event.point:<11} {event.handler_id:<26} call {event.call_id}: "
                f"{event.decision}{why}{extra}"
            )
    if args.hooks and not any(isinstance(event, HookResulted) for event in appended):
        print(f"  {_why_no_hook_ran(Path(args.hooks), args.dialect, appended)}")
    elif args.hooks:
        for line in _which_hook_is_which(Path(args.hooks), args.dialect, appended):
            print(line)
    if args.hooks:
        skipped = load_settings(Path(args.hooks), dialect=args.dialect).skipped_events
        if skipped:
            # Left as the harness's own, in silence: a Stop or PostToolUseFailure hook the
            # file holds read as run without a line, as if it had answered nothing.
            print(
                f"  not run: the hooks of {', '.join(skipped)} (loopspec runs PreToolUse and "
                "PostToolUse; the others are the harness's own)"
            )
    for _, note in hook_runs.notes():  # worded as `check` words them
        print(f"  HOOK-7: {note}")
    print("\n== calls (audit record: what runs) ==")
    for event in appended:
        if isinstance(event, ToolCallRecorded):
            print(f"  {event.call_id} {event.name} {event.arguments}")
            if event.rewrite is not None:
                print(
                    f"      rewritten by {', '.join(event.rewrite.handler_ids)}; the model "
                    f"wrote {event.rewrite.original_arguments}"
                )
        elif isinstance(event, ToolResultRecorded):
            flag = "error" if event.message.result.failed else "ok"
            print(f"  {event.call_id} -> {flag}: {event.message.text[:100]!r}")
    print("\n== model history (what the next request carries) ==")
    for message in result.history:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls:
                print(f"  assistant calls {call.id} {call.name} {call.arguments}")
        elif isinstance(message, ToolResultMessage):
            print(f"  result {message.call_id}: {message.text[:80]!r}")
        elif isinstance(message, UserMessage):
            print(f"  {_user_line(message)}")
    print("\n== presentation (what the UI showed) ==")
    for item in result.shown:
        if isinstance(item, CallCard):
            print(
                f"  card {item.call_id}: {type(item.view).__name__} {item.view.title!r} "
                f"input={json.dumps(thaw(item.arguments))}"
            )
        elif isinstance(item, ApprovalPrompt):
            print(f"  approval {item.call_id}: input={json.dumps(thaw(item.arguments))}")
        elif isinstance(item, ResultCard):
            print(f"  result {item.call_id}: {type(item.view).__name__}")
    violations = check_log(result.events)
    print(f"\n== invariants: {len(violations)} violation(s) ==")
    for violation in violations:
        print(f"  [{violation.rule_id}] seq {violation.seq}: {violation.message}")
    return 1 if violations else 0
