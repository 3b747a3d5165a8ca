"""`loopspec run SCENARIO --hooks SETTINGS.json --log OUT.jsonl`: see what real hooks do.

Runs the bundled implementation on a scripted session (see `properties/cli/scenario.py` for the
scenario format) with the hooks of a Claude Code `settings.json` or Codex `hooks.json` running
as real processes; writes the session log and prints, side by side, what each reader holds for
every call: the model history, the audit record (with the original input when a hook rewrote
it), the hook audit, and what the UI showed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from loopspec.impl.presentation import ApprovalPrompt, CallCard, ResultCard
from loopspec.model.events import HookResulted, ToolCallRecorded, ToolResultRecorded
from loopspec.model.invariants import check_log
from loopspec.model.jsonvalue import dumps, thaw
from loopspec.model.messages import AssistantMessage, ToolResultMessage, UserMessage
from loopspec.properties.cli.scenario import load_scenario, run_scenario


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `run` subcommand."""
    parser = subparsers.add_parser(
        "run", help="run the bundled loop on a scripted session with real hooks"
    )
    parser.add_argument("scenario", metavar="SCENARIO", help="the scenario JSON file")
    parser.add_argument(
        "--hooks",
        metavar="SETTINGS.json",
        help="Claude Code settings.json (or Codex hooks.json) with the hooks",
    )
    parser.add_argument(
        "--log",
        metavar="OUT.jsonl",
        default="loopspec-run.jsonl",
        help="where to write the session log (default loopspec-run.jsonl)",
    )
    parser.add_argument(
        "--fail-closed",
        action="store_true",
        help="a hook that fails (hangs, crashes, bad output) denies the call",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the scenario and print what every reader holds."""
    scenario = load_scenario(Path(args.scenario))
    log_path = Path(args.log)
    if log_path.exists():
        log_path.unlink()
    result = run_scenario(
        scenario,
        hooks=Path(args.hooks) if args.hooks else None,
        log_path=log_path,
        fail_closed=args.fail_closed,
    )
    print(f"session log: {log_path} ({len(result.events)} events)")
    print("\n== hooks (audit) ==")
    for event in result.events:
        if isinstance(event, HookResulted):
            extra = f" -> {dumps(event.updated_input)}" if event.updated_input else ""
            why = f" ({event.stderr_summary})" if event.stderr_summary else ""
            print(
                f"  {event.point:<11} {event.handler_id:<26} call {event.call_id}: "
                f"{event.decision}{why}{extra}"
            )
    print("\n== calls (audit record: what runs) ==")
    for event in result.events:
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
            print(f"  user: {len(message.content)} block(s)")
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
