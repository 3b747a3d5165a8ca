"""`loopspec demo`'s work (its options are `cli.demo`'s): run the reference model on the built-in
scripted session and show it."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys

from loopspec.model.derive import derive_messages
from loopspec.model.invariants import check_log
from loopspec.model.messages import (
    AssistantMessage,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from loopspec.model.replay import ApprovalShown, CallShown, ResultShown, present_log
from loopspec.model.state import LoopState
from loopspec.model.transitions import step
from loopspec.model.wire import event_to_wire
from loopspec.properties.cli.conform_run import keep_hypothesis_out_of_the_working_folder
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.conformance.run import resolve_target, rule_table, run_conformance


def _heading(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 76 - len(title)))


def _describe(message: UserMessage | AssistantMessage | ToolResultMessage) -> str:
    if isinstance(message, ToolResultMessage):
        flag = " (error)" if message.result.failed else ""
        return f"tool result {message.call_id}{flag}: {message.text!r}"
    parts = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append(repr(block.text))
        elif isinstance(block, ToolCallBlock):
            parts.append(f"call {block.id} {block.name}{block.arguments}")
    return f"{message.ROLE if isinstance(message, UserMessage) else 'assistant'}: " + "; ".join(
        parts
    )


def typed_name() -> str:
    """What to type to start loopspec again: `loopspec` where PATH finds this very program (or
    it was not started as a `loopspec` script: `python -m loopspec`, a test), else the path it
    was started by. `make demo` starts .venv/bin/loopspec, which no PATH names until the venv is
    activated, and the "more: loopspec conform --help" it printed was "command not found"."""
    started = sys.argv[0]
    if os.path.basename(started) != "loopspec":
        return "loopspec"
    found = shutil.which("loopspec")
    if found is not None and os.path.realpath(found) == os.path.realpath(started):
        return "loopspec"
    return shlex.quote(started)


def run(args: argparse.Namespace) -> int:
    """Simulate, then print the three readers side by side."""
    state = LoopState(DEMO_CONFIG)
    _heading("commands")
    for command in DEMO_COMMANDS:
        before = len(state.log)
        state = step(state, command)
        print(f"{command.NAME:<16} +{len(state.log) - before} events -> {state.phase.NAME}")
    _heading("session log (dsh wire format)")
    print(
        json.dumps(
            {"type": "session", "version": 0, "id": "demo", "createdAt": 0, "cwd": "/workspace"}
        )
    )
    for event in state.log:
        print(json.dumps(event_to_wire(event), ensure_ascii=False))
    _heading("derived history (what the model sees next request)")
    for message in derive_messages(state.log):
        print("  " + _describe(message))
    _heading("presentation (what the UI shows)")
    for shown in present_log(state.log):
        match shown:
            case CallShown():
                print(
                    f"  call   {shown.call_id}: {type(shown.view).__name__} "
                    f"title={shown.view.title!r}"
                )
            case ApprovalShown():
                print(f"  ask    {shown.call_id}: approve {json.dumps(shown.request['toolCall'])}")
            case ResultShown():
                print(f"  result {shown.call_id}: {type(shown.view).__name__}")
    _heading("invariants")
    violations = check_log(state.log)
    print(f"  {len(violations)} violation(s) over {len(state.log)} events")
    for violation in violations:
        print(f"  [{violation.rule_id}] seq {violation.seq}: {violation.message}")
    _heading("conformance: the bundled implementation (impl/) against the model")
    keep_hypothesis_out_of_the_working_folder()
    factory, _ = resolve_target(None, None)
    report = run_conformance(factory, examples=args.examples, seed_value=None)
    print(
        f"  {report.target}: {report.verdict} after {report.examples} programs, "
        f"{report.steps} commands, {report.seconds:.1f} s"
    )
    if report.divergence is not None:
        print(f"  [{report.divergence.rule_id}] {report.divergence.what}")
        print(report.divergence.diff())
    statuses: dict[str, list[str]] = {}
    for row in rule_table(report):
        statuses.setdefault(row["status"], []).append(row["rule"])
    for status, rules in statuses.items():
        print(f"  {status}: {len(rules)}  ({', '.join(rules)})")
    print(f"  transitions exercised: {len(report.transitions)} (phase, command, outcome) kinds")
    name = typed_name()
    print(f"\n  more: {name} conform --help, {name} check --help, {name} schema")
    return 1 if violations or not report.conformant else 0
