"""The real deepseek-harness loop, held to the model (issue 7).

`examples/dsh-adapter` runs the published dsh agent loop (`@deepseek-ai/dsh-agent-loop`
0.1.0-rc.8 and its peers, installed with `npm ci`) behind the driver protocol. These tests drive
it and the reference model with the same command programs and compare what each appended.

Comparison. Both runs are normalized the same way: `time` and message ids are dropped (as
`properties.process_target.normalized` does), event types the model does not write are dropped
(`IGNORED_TYPES`: chunks, inbox splices, request headers, the resume seed, ...), seqs become
positions and `sourceEventSeqs` become labels of the cited events (`tool/call:<callId>`), and each
event carries the commit it belongs to. Executed arguments are compared as parsed JSON.

Known divergences. dsh is not the model, and the test must not fail because of that: every
difference found between the two is recorded in `DIVERGENCES` with the SPEC rule it touches and
the dsh behaviour behind it, and comes with an *eraser* that removes exactly that difference (or,
for one that sends the two runs down different paths, cuts both runs where it shows, after
checking that it shows the way it is described). A scenario declares the divergences it
exhibits; the test asserts that erasing those, and only those, makes the runs equal, and that
each one is needed. So "only these known divergences occur", and the list cannot go stale.

Each divergence has a replayable case in `tests/regressions/dsh-<key>.json` (config and
commands in the `properties.command_codec` JSON shapes), replayed here too.

The whole module is skipped, with the reason, when node or npm is missing or `npm ci` cannot
install the pinned packages (for instance offline with an empty npm cache).
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest

from model.facts import fact_from_wire
from model.invariants import LogMonitor
from properties.cli import main as check_main
from properties.command_codec import command_from_json, config_from_json
from properties.process_target import ProcessTarget, normalized
from properties.target import ConformanceTarget, ModelTarget, Observation

ADAPTER = Path(__file__).resolve().parent.parent / "examples" / "dsh-adapter"
REGRESSIONS = Path(__file__).resolve().parent / "regressions"
NPM_CI_TIMEOUT = 300.0
COMMAND_TIMEOUT = 30.0

Json = dict[str, Any]
Event = dict[str, Any]
Obs = dict[str, Any]  # {"accepted": False, "rule": str} | {"accepted": True, "events", "executed"}
Run = list[Obs]

# ---------------------------------------------------------------------------------------------
# The adapter: installed on demand, skipped with the reason when it cannot be.


def _tail(text: str, lines: int = 8) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])


def _adapter_unavailable() -> str | None:
    """Why the dsh adapter cannot run here, or None when it can (installing it if needed)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return "the dsh adapter needs node and npm on PATH"
    version = subprocess.run(
        [node, "--version"], capture_output=True, text=True, check=False, timeout=30
    ).stdout.strip()
    match = re.match(r"v(\d+)\.", version)
    if match is None or int(match.group(1)) < 20:
        return f"the dsh adapter needs Node 20 or later, found {version or 'nothing'}"
    if (ADAPTER / "node_modules" / "@deepseek-ai" / "dsh-agent-loop").is_dir():
        return None
    env = {
        **os.environ,
        "npm_config_audit": "false",
        "npm_config_fund": "false",
        "npm_config_update_notifier": "false",
        "npm_config_fetch_retries": "1",
    }
    try:
        done = subprocess.run(
            [npm, "ci", "--prefer-offline", "--no-audit", "--no-fund"],
            cwd=ADAPTER,
            capture_output=True,
            text=True,
            check=False,
            timeout=NPM_CI_TIMEOUT,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"npm ci for the dsh adapter could not run: {error}"
    if done.returncode != 0:
        return f"npm ci for the dsh adapter failed ({done.returncode}): {_tail(done.stderr)}"
    return None


@pytest.fixture(scope="module")
def dsh() -> Iterator[ProcessTarget]:
    """One adapter process for the module; each scenario resets it."""
    reason = _adapter_unavailable()
    if reason is not None:
        pytest.skip(reason)
    target = ProcessTarget([str(ADAPTER / "run.sh")], timeout=COMMAND_TIMEOUT, name="dsh")
    try:
        yield target
    finally:
        target.close()


def _run(target: ConformanceTarget, config: Json, commands: Sequence[Json]) -> list[Observation]:
    target.reset(config_from_json(config))
    return [target.apply(command_from_json(command)) for command in commands]


# ---------------------------------------------------------------------------------------------
# Normalization.

IGNORED_TYPES = frozenset(
    {
        "agent/inbox/spliced",
        "request/header",
        "request/context",
        "session/title",
        "assistant/chunk",
        "session/end-seed",
    }
)


def _ignored(event_type: str) -> bool:
    """Event types the model does not write (compact chunk rows end in `-chunks`)."""
    return event_type in IGNORED_TYPES or event_type.endswith("-chunks")


def _parsed(arguments: str) -> object:
    try:
        value: object = json.loads(arguments)
    except ValueError:
        return arguments
    return value


def normalize_run(observations: Sequence[Observation]) -> Run:
    """One run in comparable form (see the module docstring)."""
    labels: dict[int, str] = {}
    run: Run = []
    for index, observation in enumerate(observations):
        if not observation.accepted:
            run.append({"accepted": False, "rule": observation.refusal_rule})
            continue
        commit_of = [k for k, size in enumerate(observation.commits) for _ in range(size)]
        events: list[Event] = []
        for raw, commit in zip(observation.events, commit_of, strict=True):
            if _ignored(str(raw["type"])):
                continue
            event = normalized(raw)
            seq = event.pop("seq")
            labels[seq] = (
                f"tool/call:{raw['data']['callId']}"
                if raw["type"] == "tool/call"
                else f"{raw['type']}@{len(labels)}"
            )
            cites = [labels[s] for s in event.pop("sourceEventSeqs", []) if s in labels]
            if cites:
                event["cites"] = cites
            event["commit"] = [index, commit]
            events.append(event)
        executed = [[call_id, _parsed(arguments)] for call_id, arguments in observation.executed]
        run.append({"accepted": True, "events": events, "executed": executed})
    return run


def _events(run: Run) -> Iterator[Event]:
    for obs in run:
        if obs["accepted"]:
            yield from obs["events"]


def _map_events(run: Run, change: Callable[[Event], Event | None]) -> Run:
    """`run` with every event replaced by `change(event)` (None drops it)."""
    out: Run = []
    for obs in run:
        if not obs["accepted"]:
            out.append(obs)
            continue
        events = [new for new in (change(e) for e in obs["events"]) if new is not None]
        out.append({**obs, "events": events})
    return out


def _result_call(event: Event) -> str:
    return str(event["data"]["message"]["content"][0]["toolCallId"])


def _result_code(event: Event) -> str | None:
    error = event["data"].get("error")
    return None if error is None else str(error.get("code"))


def _result_text(event: Event) -> str:
    return str(event["data"]["message"]["content"][0]["content"][0]["text"])


def _with_result_text(event: Event, text: str) -> Event:
    event = copy.deepcopy(event)
    event["data"]["message"]["content"][0]["content"][0]["text"] = text
    return event


def _is_pre_hook(event: Event) -> bool:
    hook = event["type"] in ("hook/invoked", "hook/result")
    return hook and event["data"].get("point") == "PreToolUse"


def _is_post_hook(event: Event) -> bool:
    hook = event["type"] in ("hook/invoked", "hook/result")
    return hook and event["data"].get("point") == "PostToolUse"


def _user_texts(obs: Obs) -> list[tuple[str, str]]:
    return [
        (str(e["data"]["content"][0]["text"]), str(e["data"]["source"].get("plugin", "user")))
        for e in obs["events"]
        if e["type"] == "user/message"
    ]


# ---------------------------------------------------------------------------------------------
# Erasers: each removes exactly one documented difference from a (model, dsh) pair of runs.

Pair = tuple[Run, Run]


def _both(change: Callable[[Run], Run]) -> Callable[[Pair], Pair]:
    return lambda pair: (change(pair[0]), change(pair[1]))


def _drop_commits(run: Run) -> Run:
    return _map_events(run, lambda e: {k: v for k, v in e.items() if k != "commit"})


def _move_calls(run: Run) -> Run:
    """Take every tool/call out of its command and list them, in log order, at the end."""
    calls = [e for e in _events(run) if e["type"] == "tool/call"]
    out = _map_events(run, lambda e: None if e["type"] == "tool/call" else e)
    return [*out, {"accepted": True, "moved": "tool/call", "events": calls, "executed": []}]


def _flatten_reply_first(run: Run) -> Run:
    """All events and executions in one list, each reply moved before its PreToolUse audit."""
    events = list(_events(run))
    executed = [x for obs in run if obs["accepted"] for x in obs["executed"]]
    for index, event in enumerate(events):
        if event["type"] != "assistant/message":
            continue
        to = index
        while to > 0 and _is_pre_hook(events[to - 1]):
            to -= 1
        events.insert(to, events.pop(index))
    hollow = [{"accepted": True, "events": [], "executed": []} if o["accepted"] else o for o in run]
    return [*hollow, {"accepted": True, "flattened": True, "events": events, "executed": executed}]


def _hook_core(event: Event) -> Event | None:
    """What the two hook audits share: the turn, the point, the dialect and matcher, the word."""
    data = event["data"]
    if event["type"] == "hook/invoked":
        keep = ("turn", "point", "dialect", "matcher")
        return {**event, "data": {k: data[k] for k in keep if k in data}}
    if event["type"] == "hook/result":
        decision = data["decision"]
        # A PostToolUse answer that only adds context: the model records "allow", the Claude
        # Code bridge "pass" (its parsed output has no decision).
        if data["point"] == "PostToolUse" and decision == "allow":
            decision = "pass"
        return {
            **event,
            "data": {"turn": data["turn"], "point": data["point"], "decision": decision},
        }
    return event


def _drop_unrun_post_hooks(run: Run) -> Run:
    """Drop the PostToolUse audit pairs judging a call whose body never ran."""
    ran = {call_id for obs in run if obs["accepted"] for call_id, _ in obs["executed"]}
    out: Run = []
    for obs in run:
        if not obs["accepted"]:
            out.append(obs)
            continue
        kept: list[Event] = []
        held: list[Event] = []
        for event in obs["events"]:
            if _is_post_hook(event):
                held.append(event)
                continue
            if not (event["type"] == "tool/result" and _result_call(event) not in ran):
                kept += held
            held = []
            kept.append(event)
        out.append({**obs, "events": kept + held})
    return out


def _without_runtime_context(run: Run) -> Run:
    def change(event: Event) -> Event | None:
        source = event["data"].get("source", {}) if event["type"] == "user/message" else {}
        return None if source.get("plugin") == "@deepseek-ai/dsh-system-prompt" else event

    return _map_events(run, change)


def _hook_context_as_tool_context(run: Run) -> Run:
    def change(event: Event) -> Event:
        source = event["data"].get("source", {}) if event["type"] == "user/message" else {}
        if source.get("plugin") != "hooks-claude-code":
            return event
        event = copy.deepcopy(event)
        event["data"]["source"]["plugin"] = "tool-context"
        return event

    return _map_events(run, change)


def _approval_core(run: Run) -> Run:
    """Approval events without `arguments`; ids named after the call they ask about."""
    ids: dict[str, str] = {}

    def change(event: Event) -> Event:
        if event["type"] not in ("approval/asked", "approval/decided"):
            return event
        data = dict(event["data"])
        if event["type"] == "approval/asked":
            ids[data["id"]] = f"approval-{data.get('callId')}"
            data.pop("arguments", None)
        data["id"] = ids.get(data["id"], data["id"])
        return {**event, "data": data}

    return _map_events(run, change)


def _reworded(rules: Sequence[tuple[str, str]], names: dict[str, str]) -> Callable[[Run], Run]:
    """Rewrite tool/result texts matching `rules` (regex, replacement) and error names."""

    def change(event: Event) -> Event:
        if event["type"] != "tool/result":
            return event
        text = _result_text(event)
        for pattern, replacement in rules:
            text = re.sub(pattern, replacement, text)
        event = _with_result_text(event, text)
        error = event["data"].get("error")
        if error is not None and error.get("name") in names:
            error["name"] = names[error["name"]]
        return event

    return lambda run: _map_events(run, change)


def _neutral_invalid_input(run: Run) -> Run:
    def change(event: Event) -> Event:
        if event["type"] != "tool/result" or _result_code(event) not in INVALID_CODES:
            return event
        event = _with_result_text(event, "Error: <invalid input>")
        event["data"]["error"] = {"name": "<invalid input>", "code": "<invalid input>"}
        return event

    return _map_events(run, change)


INVALID_CODES = frozenset({"INVALID_ARGS", "INVALID_TOOL_INPUT"})
REPAIR_CODES = frozenset({"TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED"})


def _neutral_repair_text(run: Run) -> Run:
    def change(event: Event) -> Event:
        code = _result_code(event) if event["type"] == "tool/result" else None
        return event if code not in REPAIR_CODES else _with_result_text(event, f"<{code}>")

    return _map_events(run, change)


def _repair_as_not_started(pair: Pair) -> Pair:
    """Where dsh repairs a call as never started, make the model's record say the same."""
    model, dsh = pair
    unstarted = {
        _result_call(e)
        for e in _events(dsh)
        if e["type"] == "tool/result" and _result_code(e) == "TOOL_NOT_STARTED"
    }

    def change(event: Event) -> Event | None:
        if event["type"] == "tool/call" and event["data"]["callId"] in unstarted:
            return None
        if event["type"] == "tool/result" and _result_call(event) in unstarted:
            event = copy.deepcopy(event)
            event.pop("cites", None)
            event["data"]["error"] = {"name": "ToolNotStartedError", "code": "TOOL_NOT_STARTED"}
        return event

    return _map_events(model, change), dsh


# Hard divergences send the two runs different ways. Their eraser checks the symptom on one
# command (model observation, dsh observation, the command itself) and cuts both runs there (or
# at the reply that started the batch, when the model logs nothing of it before the symptom).

Symptom = Callable[[Json, Obs, Obs], bool]


def _cut(symptom: Symptom, *, at_reply: bool = False) -> Callable[[Pair, Sequence[Json]], Pair]:
    def erase(pair: Pair, commands: Sequence[Json]) -> Pair:
        model, dsh = pair
        for index, (command, want, got) in enumerate(zip(commands, model, dsh, strict=False)):
            if symptom(command, want, got):
                replies = [i for i in range(index + 1) if commands[i]["kind"] == "ModelReplies"]
                cut = replies[-1] if at_reply else index
                return model[:cut], dsh[:cut]
        return pair

    return erase


def _results(obs: Obs, code: str) -> list[str]:
    events = obs["events"] if obs["accepted"] else []
    return [
        _result_call(e) for e in events if e["type"] == "tool/result" and _result_code(e) == code
    ]


def _pre_hooks(obs: Obs) -> list[Event]:
    return [e for e in obs["events"] if _is_pre_hook(e)] if obs["accepted"] else []


def _duplicate_ids(command: Json, want: Obs, got: Obs) -> bool:
    return not want["accepted"] and want["rule"] == "EXE-1" and bool(got["accepted"])


def _hooks_for_invalid_input(command: Json, want: Obs, got: Obs) -> bool:
    return bool(_results(want, "INVALID_TOOL_INPUT")) and bool(_pre_hooks(got))


def _unanchored_matcher(command: Json, want: Obs, got: Obs) -> bool:
    ran_unhooked = want["accepted"] and bool(want["executed"]) and not _pre_hooks(want)
    return ran_unhooked and bool(_pre_hooks(got))


def _hook_waits_at_gate(command: Json, want: Obs, got: Obs) -> bool:
    refused = not got["accepted"] and got["rule"] == "MODEL-1"
    return command["kind"] == "HookAnswers" and bool(want["accepted"]) and refused


def _abort_keeps_reply(command: Json, want: Obs, got: Obs) -> bool:
    if command["kind"] != "Abort" or not (want["accepted"] and got["accepted"]):
        return False
    interrupted = any(
        e["type"] == "assistant/message" and e["data"].get("interrupted") for e in want["events"]
    )
    return interrupted and bool(_results(got, "ABORTED_BEFORE_DISPATCH"))


def _opens_turn(obs: Obs) -> bool:
    return bool(obs["accepted"]) and any(e["type"] == "turn/start" for e in obs["events"])


def _queued_input_dropped(command: Json, want: Obs, got: Obs) -> bool:
    if command["kind"] != "SubmitUser" or not (_opens_turn(want) and _opens_turn(got)):
        return False
    wanted, seen = _user_texts(want), _user_texts(got)
    return len(wanted) > len(seen) and wanted[len(wanted) - len(seen) :] == seen


def _aborted_context_kept(command: Json, want: Obs, got: Obs) -> bool:
    if command["kind"] != "SubmitUser" or not (_opens_turn(want) and _opens_turn(got)):
        return False
    wanted, seen = _user_texts(want), _user_texts(got)
    extra = seen[: len(seen) - len(wanted)]
    return (
        bool(extra) and seen[len(extra) :] == wanted and {p for _, p in extra} == {"tool-context"}
    )


def _turn_after_abort(obs: Obs) -> bool:
    types = [e["type"] for e in obs["events"]] if obs["accepted"] else []
    ends = [
        i
        for i, e in enumerate(obs["events"] if obs["accepted"] else [])
        if e["type"] == "turn/end" and e["data"]["reason"]["kind"] == "aborted"
    ]
    return bool(ends) and "turn/start" in types[ends[0] :]


def _starts_turn_after_abort(command: Json, want: Obs, got: Obs) -> bool:
    return _turn_after_abort(got) and not _turn_after_abort(want) and bool(want["accepted"])


# ---------------------------------------------------------------------------------------------
# The registry.


@attrs.frozen
class Divergence:
    """One way dsh rc.8 differs from the model, with the evidence and how to erase it."""

    key: str
    rules: tuple[str, ...]
    what: str
    erase_pair: Callable[[Pair], Pair] | None = None
    erase_cut: Callable[[Pair, Sequence[Json]], Pair] | None = None

    def erase(self, pair: Pair, commands: Sequence[Json]) -> Pair:
        """The pair without this difference."""
        if self.erase_cut is not None:
            return self.erase_cut(pair, commands)
        assert self.erase_pair is not None
        return self.erase_pair(pair)


# Applied in this order: the cuts first, then the per-event erasers, the flattening last.
DIVERGENCES: tuple[Divergence, ...] = (
    Divergence(
        "duplicate-call-ids",
        ("EXE-1", "ORD-2"),
        "dsh accepts a reply whose tool calls repeat an id and runs both calls under that id "
        "(two tool/call events for one callId); the model refuses the reply (EXE-1).",
        erase_cut=_cut(_duplicate_ids),
    ),
    Divergence(
        "hooks-for-invalid-input",
        ("EXE-2", "HOOK-4"),
        "A call whose arguments miss a required key still goes through tools/pre-execute: "
        "PreToolUse hooks run for it, and the body wrapper rejects it only afterwards; the "
        "model ends it INVALID_TOOL_INPUT at once, with no hook.",
        erase_cut=_cut(_hooks_for_invalid_input, at_reply=True),
    ),
    Divergence(
        "pre-hook-matcher-unanchored",
        ("HOOK-4",),
        "The Claude Code bridge matches a hook's matcher as an unanchored regex (it passes "
        "mode 'claude-code' to dsh-hook-protocol's matchesMatcher, so the literal form is "
        "never used): matcher 'read' also fires for tool 'read_more'. The model full-matches.",
        erase_cut=_cut(_unanchored_matcher, at_reply=True),
    ),
    Divergence(
        "later-pre-hooks-wait-at-gate",
        ("RW-3",),
        "PreToolUse hooks run at each call's gate, one call at a time: a call's hooks run only "
        "once the previous call has passed the gate, that is after an exclusive body finished "
        "or a pending approval was answered. HookAnswers for a later call, which the model "
        "takes before any body runs or any approval is asked, is refused meanwhile.",
        erase_cut=_cut(_hook_waits_at_gate, at_reply=True),
    ),
    Divergence(
        "abort-during-pre-hook-keeps-reply",
        ("ABORT-2", "RW-3"),
        "An abort while a PreToolUse hook runs: dsh has already committed the whole reply and "
        "the call's tool/call; the killed hook is audited 'pass' and the call gets "
        "ABORTED_BEFORE_DISPATCH. The model (Rewriting phase) keeps only the reply's text as "
        "assistant/message {interrupted} and no call ever exists.",
        erase_cut=_cut(_abort_keeps_reply, at_reply=True),
    ),
    Divergence(
        "abort-drops-queued-input",
        ("ADJ-4",),
        "Agent.cancel clears the inbox: a message the user sent during the aborted turn is "
        "lost. The model parks it for the next turn's first step.",
        erase_cut=_cut(_queued_input_dropped),
    ),
    Divergence(
        "aborted-body-context-kept",
        ("ABORT-1", "ADJ-4"),
        "A body that succeeds after an abort is reported ABORTED in both, but dsh keeps the "
        "context it deferred and delivers it at the start of the next turn; the model drops it "
        "with the success.",
        erase_cut=_cut(_aborted_context_kept),
    ),
    Divergence(
        "submit-while-aborting-starts-turn",
        ("ADJ-4",),
        "A message sent while an aborted turn drains is queued for a new turn with a wake-up: "
        "dsh opens that turn by itself the moment the aborted one ends. The model parks the "
        "message until the next SubmitUser opens a turn.",
        erase_cut=_cut(_starts_turn_after_abort),
    ),
    Divergence(
        "repair-unstarted-call",
        ("REC-1",),
        "A call that had not started at the crash (an exclusive call queued behind a running "
        "one) has no tool/call in dsh's log, so dsh's repair says TOOL_NOT_STARTED; the model "
        "recorded every call with the reply and says TOOL_OUTCOME_UNKNOWN.",
        erase_pair=_repair_as_not_started,
    ),
    Divergence(
        "per-event-commits",
        ("LOG-8",),
        "dsh appends, publishes and persists (write-behind JSONL) one event at a time: a crash "
        "can cut between any two events, so every event is its own commit. The model commits "
        "each command's events together (a reply and its tool/calls in one commit).",
        erase_pair=_both(_drop_commits),
    ),
    Divergence(
        "call-recorded-at-start",
        ("LOG-8", "RW-3"),
        "dsh appends a call's tool/call when the call starts (SPEC 8, first bullet), not with "
        "the reply: an exclusive call's after the previous result, an unstarted call's (after "
        "an abort) right before its ABORTED_BEFORE_DISPATCH result. Order and content agree.",
        erase_pair=_both(_move_calls),
    ),
    Divergence(
        "runtime-context-snapshot",
        ("ADJ-4",),
        "With the approval service loaded (needed for ask), dsh appends its runtime-context "
        "snapshot ('Approval policy: ask ...') as a user/message from "
        "@deepseek-ai/dsh-system-prompt after the first step's messages.",
        erase_pair=_both(_without_runtime_context),
    ),
    Divergence(
        "hook-context-label",
        (),
        "A PostToolUse context reaches the next step as a user/message labelled "
        "plugin 'hooks-claude-code'; the model labels every tool context 'tool-context'. "
        "Same place, same text: only the label differs.",
        erase_pair=_both(_hook_context_as_tool_context),
    ),
    Divergence(
        "post-hooks-for-unrun-calls",
        ("HOOK-5",),
        "dsh runs tools/post-execute, hence PostToolUse hooks, for calls whose body never ran "
        "(denied, rejected, aborted before dispatch) (SPEC 8, third bullet).",
        erase_pair=_both(_drop_unrun_post_hooks),
    ),
    Divergence(
        "hook-audit-shape",
        ("HOOK-1", "HOOK-4", "RW-2"),
        "The bridge's hook events carry no callId (SPEC 8, fourth bullet); handlerId is "
        "'claude-code:<point>:<n>', a new one per invocation, not the configured id; "
        "hook/result always has exitCode, has stderrSummary only from real stderr, durationMs "
        "is measured; a context-only PostToolUse answer is recorded 'pass'.",
        erase_pair=_both(lambda run: _map_events(run, _hook_core)),
    ),
    Divergence(
        "approval-request-shape",
        ("RW-4",),
        "approval/asked carries no arguments (the model's carries the effective arguments "
        "the user approves, RW-4) and approval ids are UUIDs.",
        erase_pair=_both(_approval_core),
    ),
    Divergence(
        "approval-denial-wording",
        ("DEC-2",),
        "The error results of non-granted approvals are worded differently (quoted tool "
        "name; 'approval for tool ... was cancelled'; 'requires approval, but').",
        erase_pair=_both(
            _reworded(
                (
                    (
                        r'^Error: the user rejected tool "(.+)"$',
                        r"Error: the user rejected tool \1",
                    ),
                    (
                        r'^Error: approval for tool "(.+)" was cancelled$',
                        r"Error: the approval request for tool \1 was cancelled",
                    ),
                    (
                        r'^Error: tool "(.+)" requires approval, but no approval channel is '
                        r"available$",
                        r"Error: tool \1 needs approval but no approval channel is available",
                    ),
                ),
                {},
            )
        ),
    ),
    Divergence(
        "unknown-tool-wording",
        (),
        "An unknown tool's error result says 'unknown tool \"x\"' with error name "
        "ToolNotFoundError; the model says 'unknown tool x', UnknownToolError. Same code.",
        erase_pair=_both(
            _reworded(
                ((r'^Error: unknown tool "(.+)"$', r"Error: unknown tool \1"),),
                {"ToolNotFoundError": "UnknownToolError"},
            )
        ),
    ),
    Divergence(
        "invalid-input-error",
        ("EXE-2",),
        "Arguments that are not an object or miss a required key fail dsh's argument "
        "validation: ToolArgsError / INVALID_ARGS 'invalid arguments: ...' instead of the "
        "model's InvalidToolInputError / INVALID_TOOL_INPUT.",
        erase_pair=_both(_neutral_invalid_input),
    ),
    Divergence(
        "repair-wording",
        ("REC-1",),
        "dsh's repair results say 'The tool call was interrupted ...' (no 'Error: ' prefix, "
        "other words); codes, error names, citations and order agree with the model's.",
        erase_pair=_both(_neutral_repair_text),
    ),
    Divergence(
        "pre-hooks-after-call",
        ("RW-3", "LOG-8"),
        "PreToolUse hooks run after the reply and the call's tool/call are committed, when "
        "the call reaches its gate (SPEC 8, first bullet); the model audits them before it "
        "commits the reply. Each command's share of the events differs; the whole log, with "
        "each reply moved before its PreToolUse audit, agrees.",
        erase_pair=_both(_flatten_reply_first),
    ),
)

BY_KEY = {d.key: d for d in DIVERGENCES}


def _erased(pair: Pair, commands: Sequence[Json], keys: frozenset[str]) -> Pair:
    for divergence in DIVERGENCES:
        if divergence.key in keys:
            pair = divergence.erase(pair, commands)
    return pair


def _diff(pair: Pair) -> str:
    def lines(run: Run) -> list[str]:
        return json.dumps(run, indent=1, sort_keys=True).splitlines()

    return "\n".join(
        difflib.unified_diff(lines(pair[0]), lines(pair[1]), "model", "dsh", lineterm="", n=3)
    )


def _invariant_violations(observations: Sequence[Observation]) -> list[str]:
    """The log rules dsh's own log breaks, in order (the model's invariant registry)."""
    monitor = LogMonitor()
    found: list[str] = []
    for observation in observations:
        for event in observation.events:
            found += [v.rule_id for v in monitor.feed(fact_from_wire(event))]
    return found


def _seqs_contiguous(observations: Sequence[Observation]) -> bool:
    seqs = [event["seq"] for o in observations for event in o.events]
    return seqs == list(range(len(seqs)))


def check_known_divergences(
    dsh: ProcessTarget,
    config: Json,
    commands: Sequence[Json],
    divergences: Sequence[str],
    violations: Sequence[str] = (),
) -> None:
    """Only `divergences` separate dsh from the model on this program, and each of them does."""
    unknown = set(divergences) - set(BY_KEY)
    assert not unknown, f"unknown divergences {sorted(unknown)}"
    actual = _run(dsh, config, commands)
    assert _seqs_contiguous(actual), "dsh's seqs are not contiguous (LOG-1)"
    assert _invariant_violations(actual) == list(violations)
    pair = (normalize_run(_run(ModelTarget(), config, commands)), normalize_run(actual))
    keys = frozenset(divergences)
    erased = _erased(pair, commands, keys)
    assert erased[0] == erased[1], "an unlisted difference:\n" + _diff(erased)
    for key in sorted(keys):
        without = _erased(pair, commands, keys - {key})
        assert without[0] != without[1], f"listed divergence {key!r} does not occur here"


# ---------------------------------------------------------------------------------------------
# Scenarios.


def _tool(name: str, *, safe: bool = True, keys: Sequence[str] = ("key",)) -> Json:
    return {"name": name, "concurrencySafe": safe, "requiredKeys": list(keys)}


def _config(*, hooks: Sequence[Json] = (), max_parallel: int = 4) -> Json:
    return {
        "tools": [_tool("read"), _tool("write", safe=False, keys=())],
        "hooks": list(hooks),
        "maxParallel": max_parallel,
        "provider": "scripted",
        "model": "scripted-model",
        "epochMs": 1_700_000_000_000,
    }


def _hook(handler: str, point: str, matcher: str) -> Json:
    return {"handlerId": handler, "point": point, "matcher": matcher, "dialect": "claude-code"}


def user(text: str = "hi") -> Json:
    return {"kind": "SubmitUser", "text": text}


def reply(*blocks: Json, finish: str = "completed") -> Json:
    return {"kind": "ModelReplies", "finish": finish, "blocks": list(blocks)}


def text(value: str) -> Json:
    return {"type": "text", "text": value}


def call(call_id: str, name: str = "read", arguments: str = '{"key":"a"}') -> Json:
    return {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}


def finishes(
    call_id: str, out: str = "ok", contexts: Sequence[str] = (), post: Sequence[Json] = ()
) -> Json:
    outcome = {"ok": True, "text": out, "contexts": list(contexts)}
    return {"kind": "ToolFinishes", "callId": call_id, "outcome": outcome, "post": list(post)}


def fails(call_id: str, message: str, code: str | None = None) -> Json:
    outcome: Json = {"ok": False, "message": message, "errorName": "ToolError"}
    if code is not None:
        outcome["code"] = code
    return {"kind": "ToolFinishes", "callId": call_id, "outcome": outcome, "post": []}


def answers(decision: str, reason: str | None = None) -> Json:
    verdict: Json = {"decision": decision}
    if reason is not None:
        verdict["reason"] = reason
    return {"kind": "HookAnswers", "verdict": verdict}


ABORT: Json = {"kind": "Abort", "cause": "user"}
CRASH: Json = {"kind": "Crash"}
RECOVER: Json = {"kind": "Recover"}
COMMITS = ("per-event-commits",)
HOOKED = (*COMMITS, "runtime-context-snapshot")


@attrs.frozen
class Scenario:
    """A command program and the known divergences it shows."""

    name: str
    config: Json
    commands: tuple[Json, ...]
    divergences: tuple[str, ...]


SCENARIOS = (
    Scenario("text-reply", _config(), (user(), reply(text("hello"))), COMMITS),
    Scenario(
        "one-tool-call",
        _config(),
        (user(), reply(text("let me look"), call("c1")), finishes("c1", "A"), reply(text("a"))),
        COMMITS,
    ),
    Scenario(
        "two-parallel-calls-finish-in-reverse",
        _config(),
        (
            user(),
            reply(call("c1"), call("c2", arguments='{"key":"b"}')),
            finishes("c2", "B", contexts=["from c2"]),
            finishes("c1", "A", contexts=["from c1"]),
            reply(text("done")),
        ),
        COMMITS,
    ),
    Scenario(
        "tool-error",
        _config(),
        (
            user(),
            reply(call("c1")),
            fails("c1", "boom", code="E_BOOM"),
            reply(call("c2")),
            fails("c2", "plain failure"),
            reply(text("sorry")),
        ),
        COMMITS,
    ),
    Scenario(
        "abort-during-tool",
        _config(),
        (
            user(),
            reply(call("c1", "write", "{}"), call("c2", "write", "{}")),
            ABORT,
            finishes("c1", "late"),
            user("next"),
            reply(text("ok")),
        ),
        (*COMMITS, "call-recorded-at-start"),
    ),
    Scenario(
        "crash-and-recover",
        _config(),
        (
            user(),
            reply(call("c1"), call("c2", arguments='{"key":"b"}')),
            finishes("c2"),
            CRASH,
            user("refused while crashed"),
            RECOVER,
            user("again"),
            reply(text("fine")),
        ),
        (*COMMITS, "repair-wording"),
    ),
    Scenario(
        "refusals-change-nothing",
        _config(),
        (
            reply(text("no request is pending")),
            finishes("zz"),
            ABORT,
            RECOVER,
            user(),
            answers("pass"),
            {"kind": "ApprovalAnswers", "outcome": "rejected"},
            reply(call("c1")),
            finishes("c9"),
            {"kind": "ApprovalAnswers", "outcome": "rejected"},
            finishes("c1"),
            finishes("c1"),
            ABORT,
            ABORT,
            reply(text("late")),
        ),
        COMMITS,
    ),
    Scenario(
        "queued-input-opens-the-next-step",
        _config(),
        (user(), reply(call("c1")), user("also this"), finishes("c1"), reply(text("done"))),
        COMMITS,
    ),
    Scenario(
        "max-tokens-cancelled-and-model-failure",
        _config(),
        (
            user(),
            reply(text("truncated"), call("c1"), finish="max-tokens"),
            user("more"),
            reply({"type": "reasoning", "text": "hmm"}, text("partial"), finish="cancelled"),
            user("again"),
            {"kind": "ModelFails", "message": "provider exploded", "code": "RATE_LIMIT"},
            user("last"),
            ABORT,
        ),
        COMMITS,
    ),
    Scenario(
        "hooks-allow-and-post-context",
        _config(hooks=(_hook("pre", "PreToolUse", "read"), _hook("post", "PostToolUse", "*"))),
        (
            user(),
            reply(call("c1")),
            answers("allow"),
            finishes("c1", post=[{"decision": "context", "text": "note this"}]),
            reply(text("ok")),
        ),
        (
            *HOOKED,
            "call-recorded-at-start",
            "hook-audit-shape",
            "hook-context-label",
            "pre-hooks-after-call",
        ),
    ),
)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_dsh_keeps_to_the_model_but_for_known_divergences(
    dsh: ProcessTarget, scenario: Scenario
) -> None:
    """Scripted sessions: dsh and the model differ only by the scenario's known divergences."""
    check_known_divergences(dsh, scenario.config, scenario.commands, scenario.divergences)


def _regression_cases() -> list[Path]:
    return sorted(REGRESSIONS.glob("dsh-*.json"))


@pytest.mark.parametrize("path", _regression_cases(), ids=lambda p: p.stem)
def test_regression_case_replays(dsh: ProcessTarget, path: Path) -> None:
    """Each recorded divergence case still shows exactly its recorded divergences."""
    case = json.loads(path.read_text(encoding="utf-8"))
    assert case["divergence"] in case["expect"]["divergences"]
    check_known_divergences(
        dsh,
        case["config"],
        case["commands"],
        case["expect"]["divergences"],
        case["expect"].get("dshInvariantViolations", []),
    )


def test_every_divergence_has_a_replayable_case() -> None:
    """One case file per divergence, naming the rules the registry names."""
    cases = {
        path.stem: json.loads(path.read_text(encoding="utf-8")) for path in _regression_cases()
    }
    assert set(cases) == {f"dsh-{d.key}" for d in DIVERGENCES}
    for divergence in DIVERGENCES:
        case = cases[f"dsh-{divergence.key}"]
        assert case["divergence"] == divergence.key
        assert tuple(case["rules"]) == divergence.rules
        assert case["summary"] == divergence.what
        config_from_json(case["config"])
        for command in case["commands"]:
            command_from_json(command)


def test_capabilities_are_what_dsh_supports(dsh: ProcessTarget) -> None:
    """Everything but `rewrite`: dsh logs a warning for updatedInput and runs the original."""
    declared = dsh.reset(config_from_json(_config()))
    assert declared == {
        "pre-hooks",
        "post-hooks",
        "approval",
        "parallel",
        "abort",
        "crash-repair",
        "max-tokens",
        "queued-input",
    }
    assert dsh.implementation is not None
    assert "dsh-agent-loop@0.1.0-rc.8" in dsh.implementation


def test_throughput(dsh: ProcessTarget, capsys: pytest.CaptureFixture[str]) -> None:
    """Commands per second on a long scripted program (reported, not asserted)."""
    turns = 150
    commands = [
        command_from_json(command)
        for turn in range(turns)
        for command in (
            user(f"question {turn}"),
            reply(call(f"c{turn}")),
            finishes(f"c{turn}", "A"),
            reply(text("done")),
        )
    ]
    dsh.reset(config_from_json(_config()))
    events = 0
    started = time.perf_counter()
    for command in commands:
        observation = dsh.apply(command)
        assert observation.accepted
        events += len(observation.events)
    elapsed = time.perf_counter() - started
    with capsys.disabled():
        print(
            f"\ndsh adapter throughput: {len(commands)} commands ({turns} tool turns, "
            f"{events} events) in {elapsed:.2f} s = {len(commands) / elapsed:.0f} commands/s, "
            f"{events / elapsed:.0f} events/s"
        )


def test_REC_2_loopspec_check_passes_on_the_logs_dsh_writes(
    dsh: ProcessTarget, tmp_path: Path
) -> None:
    """REC-2, LOG-1, ADJ-1: every scenario's real dsh log, written to disk with its header,
    passes `loopspec check` (the duplicate-id scenario breaks EXE-1 there on purpose)."""
    for scenario in SCENARIOS:
        if "duplicate-call-ids" in scenario.divergences:
            continue
        observations = _run(dsh, scenario.config, scenario.commands)
        header = {
            "type": "session",
            "version": 0,
            "id": scenario.name,
            "createdAt": 0,
            "cwd": str(tmp_path),
        }
        lines = [json.dumps(header)] + [json.dumps(e) for o in observations for e in o.events]
        path = tmp_path / f"{scenario.name}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert check_main(["check", str(tmp_path)]) == 0
