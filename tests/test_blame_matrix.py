"""Every divergence is blamed on the rule the target breaks (the blame matrix).

Each target below is the reference model with exactly one thing done wrong — the wording of a
result, the shape of a reason, a body started too early or not at all, how empty arguments
parse, the order queued messages arrive in, ... — and each names the rule that prescribes what
it gets wrong. A fixed program that reaches the situation must be blamed on that rule, never on
"the first rule that touches the event". The six differences a first user met are also run
through the random conformance machine, shrinking included, which must blame the same rule.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import attrs
import pytest
from batches import BATCH_SEED
from mutants import MUTANTS, MutantTarget

from loopspec.model import dispatch, wording
from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    HookAudit,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.jsonvalue import freeze
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.state import Idle
from loopspec.model.wire import event_to_wire
from loopspec.properties.conformance.blame import changed_events, extra_events
from loopspec.properties.conformance.run import replay_case, run_conformance
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.stateful.strategies import (
    CONFIGS,
    JAVASCRIPT_ONLY_BLANK,
    PYTHON_ONLY_BLANK,
    TOOLS,
)
from loopspec.properties.stateful.swarm import PARTIAL_NAMES_CONFIG

Event = dict[str, Any]
Change = Callable[[Command, Observation], Observation]


class ChangedModel(ModelTarget):
    """The model, with one change applied to what it reports for each command."""

    def __init__(self, change: Change, patches: Callable[[], list[Any]] | None = None) -> None:
        super().__init__()
        self.name = "changed model"
        self._change = change
        self._patches = patches

    def apply(self, command: Command) -> Observation:
        """Step the model; change what it observed."""
        if self._patches is None:
            return self._change(command, super().apply(command))
        saved = [(owner, name, getattr(owner, name)) for owner, name, _ in self._patches()]
        try:
            for owner, name, value in self._patches():
                setattr(owner, name, value)
            observed = super().apply(command)
        finally:
            for owner, name, value in saved:
                setattr(owner, name, value)
        return self._change(command, observed)


class UnpresentedModel(ChangedModel):
    """A changed model without the capability `presentation`. conform plays SPEC.md section
    12's examples before its search on a target that presents, and they end turns and settle
    calls too, so they catch many of these differences before any program is drawn: a test of
    the search itself (its shrinking, its progress) runs this one."""

    def __init__(self, change: Change) -> None:
        super().__init__(change)
        self.presenting = False

    def reset(self, config: LoopConfig) -> frozenset[str]:
        """The model's capabilities but `presentation`."""
        return super().reset(config) - {"presentation"}


def _events(change: Callable[[Event], Event]) -> Change:
    """A change to every event the model appends."""

    def apply(command: Command, observed: Observation) -> Observation:
        return attrs.evolve(observed, events=tuple(change(json_copy(e)) for e in observed.events))

    return apply


def json_copy(event: Event) -> Event:
    copied: Event = json.loads(json.dumps(event))
    return copied


def _same(command: Command, observed: Observation) -> Observation:
    return observed


class LosesACommitInRepair(ModelTarget):
    """The model, except that its crash repair loses the last commit it had reported: the
    seqs it writes from the repair on are one lower than the model's."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "changed model"
        self._crashed = False

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        self._crashed = self._crashed or isinstance(command, Crash)
        if not self._crashed:
            return observed
        events = tuple({**json_copy(e), "seq": int(str(e["seq"])) - 1} for e in observed.events)
        return attrs.evolve(observed, events=events)


class CrashLosesItsLastCommit(ModelTarget):
    """The model, except that a crash loses the last commit it had reported (a loop that
    buffers its writes and reports them committed before they are durable): the log it
    reopens ends one commit earlier, and its repair and later seqs go on from there. `torn`:
    the crash keeps the first half of that commit's events instead, a commit torn in the
    middle (of a commit of one event, it keeps nothing)."""

    def __init__(self, *, torn: bool = False) -> None:
        super().__init__()
        self.name = "changed model"
        self._torn = torn

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        state = self.state
        if isinstance(command, Crash) and state is not None and state.commit_ends:
            *kept, last = state.commit_ends
            start = kept[-1] if kept else 0
            end = start + (last - start) // 2 if self._torn else start
            ends = (*kept, end) if end > start else tuple(kept)
            self.state = attrs.evolve(state, log=state.log[:end], commit_ends=ends)
        return observed


class RestartsSeqsAfterACrash(ModelTarget):
    """The model, except that after a crash its seq counter starts again from 1 while the log it
    reopened keeps every event (a loop that counts seqs in the process, not from its log)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "changed model"
        self._next: int | None = None

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if isinstance(command, Crash):
            self._next = 1
        if self._next is None:
            return observed
        events = []
        for event in observed.events:
            events.append({**json_copy(event), "seq": self._next})
            self._next += 1
        return attrs.evolve(observed, events=tuple(events))


class RepairsNothing(ModelTarget):
    """The model, except that reopening after a crash closes nothing: the tail turn stays open
    (its log keeps every commit: the other reading of a repair that appends nothing)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "changed model"

    def apply(self, command: Command) -> Observation:
        if not isinstance(command, Recover) or self.state is None:
            return super().apply(command)
        if self.state.phase.NAME != "Crashed":
            return super().apply(command)
        self.state = attrs.evolve(self.state, phase=Idle())
        return Observation(True)


def _reason(kinds: dict[str, object]) -> Change:
    def change(event: Event) -> Event:
        if event["type"] == "turn/end" and event["data"]["reason"]["kind"] in kinds:
            event["data"]["reason"] = kinds[event["data"]["reason"]["kind"]]
        return event

    return _events(change)


def _result_text(edit: Callable[[str, Event], str]) -> Change:
    def change(event: Event) -> Event:
        if event["type"] == "tool/result":
            for block in event["data"]["message"]["content"][0]["content"]:
                block["text"] = edit(block["text"], event)
        return event

    return _events(change)


def _block_ignored(*, keep_reasons: bool) -> Change:
    """A PostToolUse-blocked result (text `nope`) written without the error flag: the body's own
    text, the block ignored, or (`keep_reasons`) the reasons alone."""

    def change(event: Event) -> Event:
        if event["type"] == "tool/result":
            block = event["data"]["message"]["content"][0]
            if [item.get("text") for item in block["content"]] == ["nope"]:
                block.pop("isError", None)
                if not keep_reasons:
                    block["content"] = [{"type": "text", "text": "body text"}]
        return event

    return _events(change)


def _strip_prefix_when(wanted: Callable[[Event], bool]) -> Change:
    def edit(text: str, event: Event) -> str:
        return text.removeprefix("Error: ") if wanted(event) else text

    return _result_text(edit)


class _DenialsWithoutPrefix(ModelTarget):
    """The model, writing a denied call's result without the `Error: ` prefix (and nothing else
    differently): it remembers which calls its hooks denied."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "denials without prefix"
        self._denied: set[str] = set()

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = []
        for event in map(json_copy, observed.events):
            data = event["data"]
            if event["type"] == "hook/result" and data["decision"] == "deny":
                self._denied.add(data["callId"])
            if (
                event["type"] == "tool/result"
                and data["message"]["source"]["callId"] in self._denied
            ):
                for block in data["message"]["content"][0]["content"]:
                    block["text"] = block["text"].removeprefix("Error: ")
            events.append(event)
        return attrs.evolve(observed, events=tuple(events))


class _RepliesBeforeItsHooks(ModelTarget):
    """The model, except that a reply whose calls PreToolUse hooks match is logged when it
    arrives, before the hooks answer (as dsh, Claude Code and Codex do): the model appends
    nothing then, this target the reply."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "replies before its hooks"

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not (isinstance(command, ModelReplies) and observed.accepted and not observed.events):
            return observed
        assert self.state is not None
        log = [json_copy(event_to_wire(e)) for e in self.state.log]
        opened = next(e for e in reversed(log) if e["type"] == "step/start")
        config = self.state.config
        message = {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "id": c.id, "name": c.name, "arguments": c.arguments}
                for c in command.tool_calls
            ],
            "source": {"kind": "model", "provider": config.provider, "model": config.model},
            "id": f"m{len(log)}",
        }
        reply = {
            "type": "assistant/message",
            "seq": len(log),
            "time": 0,
            "data": {**opened["data"], "message": message},
            "surfaceOp": "append",
        }
        return attrs.evolve(observed, events=(reply,), commits=(1,))


class _AbortsFinishedBodies(ModelTarget):
    """The model, except that after an abort every result of the batch is ABORTED, also that
    of a body which finished before the abort and only waited for an earlier call's result."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "aborts finished bodies"
        self._aborted = False

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        self._aborted = self._aborted or isinstance(command, Abort)
        events = []
        for event in map(json_copy, observed.events):
            if event["type"] == "turn/end":
                self._aborted = False
            if event["type"] != "tool/result":
                events.append(event)
                continue
            result = event["data"]["message"]["content"][0]
            if self._aborted and not result["isError"]:
                result["content"] = [{"type": "text", "text": "Error: tool call aborted"}]
                result["isError"] = True
                event["data"]["error"] = {"name": "AbortError", "code": "ABORTED"}
            events.append(event)
        return attrs.evolve(observed, events=tuple(events))


def _blocked_contexts(*, keep_body: bool) -> Change:
    """A PostToolUse block's contexts handled wrongly: its hooks' contexts dropped with the
    body's (`keep_body` False), or the body's own kept, delivered first (True)."""

    def apply(command: Command, observed: Observation) -> Observation:
        if not (
            isinstance(command, ToolFinishes)
            and isinstance(command.outcome, ToolSucceeded)
            and any(isinstance(verdict, PostBlock) for verdict in command.post)
        ):
            return observed
        hooks = {verdict.text for verdict in command.post if isinstance(verdict, PostContext)}
        units = [unit for unit, size in enumerate(observed.commits) for _ in range(size)]
        events: list[Event] = []
        placed: list[int] = []
        bodies = list(command.outcome.contexts)
        for event, unit in zip(map(json_copy, observed.events), units, strict=True):
            if event["type"] == "user/message" and event["data"]["content"][0]["text"] in hooks:
                if not keep_body:
                    continue
                while bodies:  # the body's own come first, before its hooks' (ADJ-4)
                    body = json_copy(event)
                    body["data"]["content"][0]["text"] = bodies.pop(0)
                    events.append(body)
                    placed.append(unit)
            events.append(event)
            placed.append(unit)
        first = observed.events[0]["seq"]
        renumbered = tuple({**e, "seq": first + i} for i, e in enumerate(events))
        commits = tuple(placed.count(unit) for unit in sorted(set(placed)))
        return attrs.evolve(observed, events=renumbered, commits=commits)

    return apply


class _BlockDropsHookContextsLater(ModelTarget):
    """The model, except that the contexts a blocked result's hooks gave are dropped with the
    body's: also when they would open the next step at a later call's command."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "a block drops its hooks' contexts"
        self._dropped: list[str] = []  # one entry per context to drop

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if isinstance(command, ToolFinishes) and any(
            isinstance(verdict, PostBlock) for verdict in command.post
        ):
            self._dropped += [v.text for v in command.post if isinstance(v, PostContext)]
        units = [unit for unit, size in enumerate(observed.commits) for _ in range(size)]
        kept = []
        for event, unit in zip(map(json_copy, observed.events), units, strict=True):
            text = event["data"]["content"][0]["text"] if event["type"] == "user/message" else None
            if text in self._dropped:
                self._dropped.remove(text)
                continue
            kept.append((event, unit))
        if len(kept) == len(observed.events):
            return observed
        first = observed.events[0]["seq"]
        events = tuple({**event, "seq": first + i} for i, (event, _unit) in enumerate(kept))
        placed = [unit for _event, unit in kept]
        commits = tuple(placed.count(unit) for unit in sorted(set(placed)))
        return attrs.evolve(observed, events=events, commits=commits)


def _denials_without_prefix() -> ModelTarget:
    return _DenialsWithoutPrefix()


def _no_starts_on(kind: type[Command]) -> Change:
    """Bodies the model starts while handling `kind` are not started."""

    def apply(command: Command, observed: Observation) -> Observation:
        return attrs.evolve(observed, executed=()) if isinstance(command, kind) else observed

    return apply


def _no_reply_when_cut_off(command: Command, observed: Observation) -> Observation:
    """A reply cut off at max-tokens leaves no assistant/message (the seqs stay contiguous)."""
    if not (isinstance(command, ModelReplies) and command.finish == "max-tokens"):
        return observed
    kept = [json_copy(e) for e in observed.events if e["type"] != "assistant/message"]
    first = observed.events[0]["seq"]
    kept = [{**e, "seq": first + i} for i, e in enumerate(kept)]
    return attrs.evolve(observed, events=tuple(kept), commits=(len(kept),))


def _prompt_not_logged(command: Command, observed: Observation) -> Observation:
    """The user's prompt opens the turn but its user/message is left out (seqs contiguous)."""
    if not isinstance(command, SubmitUser) or not observed.events:
        return observed
    kept = [json_copy(e) for e in observed.events if e["type"] != "user/message"]
    first = observed.events[0]["seq"]
    kept = [{**e, "seq": first + i} for i, e in enumerate(kept)]
    return attrs.evolve(observed, events=tuple(kept), commits=(len(kept),))


def _reply_held_after_its_hooks(command: Command, observed: Observation) -> Observation:
    """The reply is not committed when its last PreToolUse hook answers (the hook's audit is)."""
    if not isinstance(command, HookAnswers):
        return observed
    kept = [e for e in observed.events if e["type"] not in ("assistant/message", "tool/call")]
    return attrs.evolve(observed, events=tuple(kept), commits=(len(kept),) if kept else ())


def _unknown_tool_checked_first(event: Event) -> Event:
    """An unknown tool's call is reported unknown even when its arguments are not an object."""
    error = event["data"].get("error") if event["type"] == "tool/result" else None
    if error != {"name": "InvalidToolInputError", "code": "INVALID_TOOL_INPUT"}:
        return event
    block = event["data"]["message"]["content"][0]
    block["content"] = [{"type": "text", "text": "Error: unknown tool missing_tool"}]
    event["data"]["error"] = {"name": "UnknownToolError", "code": "UNKNOWN_TOOL"}
    return event


def _repair_cancels_approvals(command: Command, observed: Observation) -> Observation:
    """Crash repair also answers the pending approval `cancelled`, before its closers."""
    if not isinstance(command, Recover) or not observed.events:
        return observed
    first = observed.events[0]["seq"]
    decided = {"type": "approval/decided", "seq": first, "time": 0,
               "data": {"id": "approval-c1", "outcome": "cancelled"}}  # fmt: skip
    later = [{**json_copy(e), "seq": e["seq"] + 1} for e in observed.events]
    return attrs.evolve(observed, events=(decided, *later), commits=(len(later) + 1,))


def _abort_moves_cancellation(*, drop: bool) -> Change:
    """An abort's cancelled approval is left out (`drop`), or written after the call's result."""

    def apply(command: Command, observed: Observation) -> Observation:
        events = [json_copy(e) for e in observed.events]
        decided = [e for e in events if e["type"] == "approval/decided"]
        if not isinstance(command, Abort) or not decided:
            return observed
        events.remove(decided[0])
        if not drop:
            after = next(i for i, e in enumerate(events) if e["type"] == "tool/result") + 1
            events.insert(after, decided[0])
        first = observed.events[0]["seq"]
        events = [{**e, "seq": first + i} for i, e in enumerate(events)]
        return attrs.evolve(observed, events=tuple(events), commits=(len(events),))

    return apply


def _always_start(*_args: object) -> bool:
    return True


def _ignore_the_cap(safe: tuple[bool, ...], running: tuple[bool, ...], gate: int, cap: int) -> bool:
    earlier_exclusive = any(r and not s for s, r in zip(safe, running, strict=False))
    return (safe[gate] and not earlier_exclusive) or not any(running)


def _left_idle(command: Command, observed: Observation) -> Observation:
    """A loop that opens the turn but stays idle, so it refuses the reply to its request."""
    if isinstance(command, ModelReplies):
        return Observation(False, refusal_message="ModelReplies is not accepted while idle")
    return observed


def _one_commit_per_event(command: Command, observed: Observation) -> Observation:
    return attrs.evolve(observed, commits=tuple(1 for _ in observed.events))


def _accept_refused(rule: str) -> Change:
    def apply(command: Command, observed: Observation) -> Observation:
        return Observation(True) if observed.refusal_rule == rule else observed

    return apply


def _lifo_queue(command: Command, observed: Observation) -> Observation:
    events = list(observed.events)
    starts = [i for i, e in enumerate(events) if e["type"] == "step/start"]
    for start in starts:
        end = start + 1
        while end < len(events) and events[end]["type"] == "user/message":
            end += 1
        queued = events[start + 1 : end]
        seqs = [e["seq"] for e in queued]
        events[start + 1 : end] = [
            {**e, "seq": s} for e, s in zip(reversed(queued), seqs, strict=True)
        ]
    return attrs.evolve(observed, events=tuple(events))


def _queued_before_step_end(command: Command, observed: Observation) -> Observation:
    """The messages that open a step moved before the step/end of the step before it."""
    events = list(observed.events)
    kinds = [e["type"] for e in events]
    for end in range(len(kinds) - 2):
        if kinds[end : end + 3] == ["step/end", "step/start", "user/message"]:
            last = end + 2
            while last < len(kinds) and kinds[last] == "user/message":
                last += 1
            moved = events[end + 2 : last] + events[end : end + 2]
            seqs = [e["seq"] for e in events[end:last]]
            events[end:last] = [{**e, "seq": s} for e, s in zip(moved, seqs, strict=True)]
            break
    return attrs.evolve(observed, events=tuple(events))


def _field(kind: str, path: tuple[str, ...], value: object) -> Change:
    def change(event: Event) -> Event:
        if event["type"] == kind:
            holder = event
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = value
        return event

    return _events(change)


def _post_word(old: str, new: str) -> Change:
    """A PostToolUse hook's audit records `new` where the model records `old`."""

    def change(event: Event) -> Event:
        data = event["data"]
        if event["type"] == "hook/result" and data["point"] == "PostToolUse":
            data["decision"] = new if data["decision"] == old else data["decision"]
        return event

    return _events(change)


def _relabel_contexts(event: Event) -> Event:
    source = event["data"].get("source") if event["type"] == "user/message" else None
    if source is not None and source["kind"] == "plugin":
        source["plugin"] = "context"
    return event


def _error_code(old: str, new: str) -> Change:
    def change(event: Event) -> Event:
        error = event["data"].get("error") if event["type"] == "tool/result" else None
        if error is not None and error["code"] == old:
            error["code"] = new
        return event

    return _events(change)


def _invalid_input_settled_early(call_id: str) -> Change:
    """A loop that settles a call whose arguments are not an object as soon as the model replies,
    not at its turn at the gate: an abort before that turn finds it settled already."""

    def change(event: Event) -> Event:
        data = event["data"]
        block = data["message"]["content"][0] if event["type"] == "tool/result" else {}
        if (
            block.get("toolCallId") == call_id
            and data["error"]["code"] == "ABORTED_BEFORE_DISPATCH"
        ):
            text = f"Error: invalid input for tool bash: {wording.NOT_AN_OBJECT}"
            block["content"] = [{"type": "text", "text": text}]
            data["error"] = {"name": "InvalidToolInputError", "code": "INVALID_TOOL_INPUT"}
        return event

    return _events(change)


def _call_records(move: bool) -> Change:
    """The model without its `tool/call` records (`move`: with them after the results
    instead), seqs renumbered so that nothing else breaks; a result then cites its reply."""

    def apply(command: Command, observed: Observation) -> Observation:
        events = [json_copy(e) for e in observed.events]
        records = [e for e in events if e["type"] == "tool/call"]
        kept = [e for e in events if e["type"] != "tool/call"]
        if records and move:
            last_result = max(i for i, e in enumerate(kept) if e["type"] == "tool/result")
            kept[last_result + 1 : last_result + 1] = records
        for seq, event in enumerate(kept, start=events[0]["seq"] if events else 0):
            event["seq"] = seq
        reply = next((e["seq"] for e in kept if e["type"] == "assistant/message"), None)
        for event in kept:
            if event["type"] == "tool/result" and reply is not None:
                event["sourceEventSeqs"] = [reply]
        return attrs.evolve(observed, events=tuple(kept), commits=(len(kept),) if kept else ())

    return apply


def _start_while_asking(command: Command, observed: Observation) -> Observation:
    """When the model asks about c1, c2 (which waits behind it) is started anyway."""
    asks = any(e["type"] == "approval/asked" for e in observed.events)
    if not asks or any(call_id == "c2" for call_id, _ in observed.executed):
        return observed
    return attrs.evolve(observed, executed=(*observed.executed, ("c2", READ)))


def _ask_early(command: Command, observed: Observation) -> Observation:
    """c2's approval is asked as soon as its hook says ask, while c1 (exclusive) still runs."""
    if not isinstance(command, HookAnswers) or not isinstance(command.verdict, Ask):
        return observed
    events = [json_copy(e) for e in observed.events]
    seq = events[-1]["seq"] + 1 if events else 0
    data = {"id": "approval-c2", "toolName": "bash", "callId": "c2", "arguments": BASH}
    asked = {"type": "approval/asked", "seq": seq, "time": 0, "data": data}
    return attrs.evolve(observed, events=(*events, asked), commits=(*observed.commits, 1))


def _hook_outside_matcher(command: Command, observed: Observation) -> Observation:
    """The guard (matcher "bash|write") also runs for a read: "read" is not a whole match."""
    if not isinstance(command, ModelReplies):
        return observed
    events = [json_copy(e) for e in observed.events]
    seq = events[-1]["seq"] + 1 if events else 0
    data = {"turn": 1, "point": "PreToolUse", "dialect": "claude-code", "handlerId": "guard",
            "matcher": "bash|write", "callId": "c1"}  # fmt: skip
    invoked = {"type": "hook/invoked", "seq": seq, "time": 0, "data": data}
    return attrs.evolve(observed, events=(*events, invoked), commits=(*observed.commits, 1))


def _mutant(name: str) -> Callable[[], ModelTarget]:
    mutant = next(m for m in MUTANTS if m.name == name)
    return lambda: MutantTarget(mutant)


def _allow(updated: dict[str, object]) -> Allow:
    return Allow(freeze(updated))


def call(call_id: str, tool: str, arguments: str) -> ToolCallBlock:
    return ToolCallBlock(call_id, tool, arguments)


BASH = '{"command":"ls"}'
READ = '{"file_path":"a.txt"}'
GREP = '{"pattern":"TODO"}'
NO_HOOKS = CONFIGS[0]
GUARDED = CONFIGS[1]  # guard, rewriter (PreToolUse on bash), audit (PostToolUse on read)
ASKING = LoopConfig(tools=TOOLS, hooks=(HookSpec("gate", "PreToolUse", "*"),), max_parallel=1)
PARALLEL = LoopConfig(tools=TOOLS, max_parallel=2)
PARALLEL_ASKING = attrs.evolve(ASKING, max_parallel=2)
TWO_POST_HOOKS = LoopConfig(
    tools=TOOLS,
    hooks=(HookSpec("review", "PostToolUse", "read"), HookSpec("notes", "PostToolUse", "read")),
)


@attrs.frozen
class Case:
    """A single-difference target, the rule it breaks, and a program that shows it.

    `also_breaks`: rules a random program may show the difference breaking first, where that
    program shows nothing of `broken` (as `mutants.Mutant.also_breaks`; the comment at each
    case says which programs)."""

    name: str
    broken: str
    target: Callable[[], ModelTarget]
    config: LoopConfig
    program: tuple[Command, ...]
    also_breaks: frozenset[str] = frozenset()

    @property
    def blamed(self) -> frozenset[str]:
        """Every rule a random counterexample of this difference may rightly be blamed on."""
        return self.also_breaks | {self.broken}


def _renamed(members: dict[str, Any], key: str, spelt: str) -> dict[str, Any]:
    """`members` with `key` written as `spelt`, in its place."""
    return {(spelt if name == key else name): value for name, value in members.items()}


def changed(
    change: Change, patches: Callable[[], list[Any]] | None = None
) -> Callable[[], ModelTarget]:
    return lambda: ChangedModel(change, patches)


TEXT_REPLY = (SubmitUser("hi"), ModelReplies((TextBlock("ok"),)))
TWO_BASH = (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH), call("c2", "bash", BASH))))

# The six differences of issue 14's table, then one or more per rule family.
TURN_END_REASON_AS_TEXT = _reason({"completed": "completed"})
FIRST_USER = (
    Case("turn/end reason shape", "TURN-5", changed(TURN_END_REASON_AS_TEXT), NO_HOOKS, TEXT_REPLY),
    # A call a hook denied that an abort then finds while later calls' hooks run is answered
    # ABORTED_BEFORE_DISPATCH, whose words this target writes without the prefix too (TEXT-1);
    # a random program aborting there may show that first (batch 0 since session 39's draws).
    Case("no Error: prefix on a denied call's result", "DEC-1",
         _denials_without_prefix, GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(Deny("no")), HookAnswers(Pass())),
         also_breaks=frozenset({"TEXT-1"})),
    Case("empty arguments parse as a raw string", "EXE-2",
         changed(_result_text(lambda text, _: text.replace(
             "missing required 'file_path'", "the input must be a JSON object"))),
         NO_HOOKS, (SubmitUser("hi"), ModelReplies((call("c1", "read", ""),)))),
    # A gate that starts every call also asks a later call's approval while an earlier
    # exclusive call runs, which SCHED-2 states ("asked only when the waiting call could start
    # under SCHED-1"); a random program with an approval may show that first.
    Case("unsafe tools run in parallel, no hooks", "SCHED-1",
         changed(_same, lambda: [(dispatch, "may_start", _always_start)]), NO_HOOKS, TWO_BASH,
         also_breaks=frozenset({"SCHED-2"})),
    Case("a queued call is not started", "SCHED-1",
         changed(_no_starts_on(ToolFinishes)), NO_HOOKS,
         (*TWO_BASH, ToolFinishes("c1", ToolSucceeded("done")))),
    Case("the max-tokens reason", "STEP-4",
         changed(_reason({"max-tokens": {"kind": "length"}})), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((TextBlock("cut"),), "max-tokens"))),
)  # fmt: skip

FAMILIES = (
    Case("seqs start at 1", "LOG-1",
         changed(_events(lambda e: {**e, "seq": e["seq"] + 1})), NO_HOOKS, TEXT_REPLY),
    Case("a reply and its tool/call committed apart", "LOG-8",
         changed(_one_commit_per_event), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)))),
    Case("the reply logged before its PreToolUse hooks answered", "RW-3",
         _RepliesBeforeItsHooks, GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)))),
    # A key of the envelope misspelt (the tutorial's loop writing "se" or "tim"): check names
    # LOG-4 at such a line, and conform blamed TURN-1, "turn/start differs in its envelope".
    Case("events written without a seq", "LOG-4",
         changed(_events(lambda e: {("se" if k == "seq" else k): v for k, v in e.items()})),
         NO_HOOKS, TEXT_REPLY),
    Case("events written without a time", "LOG-4",
         changed(_events(lambda e: {k: v for k, v in e.items() if k != "time"})),
         NO_HOOKS, TEXT_REPLY),
    Case("turns numbered from 0", "TURN-1",
         changed(_events(lambda e: e if e["type"] not in ("turn/start", "turn/end") else
                         {**e, "data": {**e["data"], "turn": e["data"]["turn"] - 1}})),
         NO_HOOKS, TEXT_REPLY),
    Case("turn/end before step/end", "TURN-2", _mutant("turn-end-with-step-open"),
         NO_HOOKS, TEXT_REPLY),
    Case("a max-tokens reply leaves no assistant/message", "STEP-4",
         changed(_no_reply_when_cut_off), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((), "max-tokens"))),
    # A newcomer's typo of the tutorial's loop: conform's case, the loop fixed, read as cut by
    # hand ("no longer sets up STEP-4") where a reply without calls is STEP-4's situation.
    Case("a completed turn's kind misspelt", "STEP-4",
         changed(_reason({"completed": {"kind": "complete"}})), NO_HOOKS, TEXT_REPLY),
    # The tutorial's loop with a role misspelt: LOG-6 names the role of every message, so its
    # case, the loop fixed, passes "now", not as a program no longer setting LOG-6 up.
    Case("the user's message role misspelt", "LOG-6",
         changed(_events(lambda e: e if e["type"] != "user/message" else
                         {**e, "data": {**e["data"], "role": "use"}})), NO_HOOKS, TEXT_REPLY),
    # A member's key misspelt, a member a reader does without (a role, an id): blamed ADJ-4,
    # "queued messages are delivered FIFO", of a turn's opening message, and STEP-4 of a reply.
    Case("the user's message role key misspelt", "LOG-4",
         changed(_events(lambda e: e if e["type"] != "user/message" else
                         {**e, "data": _renamed(e["data"], "role", "rol")})), NO_HOOKS, TEXT_REPLY),
    Case("a reply's id key misspelt", "LOG-4",
         changed(_events(lambda e: e if e["type"] != "assistant/message" else
                         {**e, "data": {**e["data"], "message": _renamed(e["data"]["message"],
                                                                        "id", "Id")}})),
         NO_HOOKS, TEXT_REPLY),
    # A member of the loop's own beside the right ones: the user's message read as ADJ-4,
    # "queued messages are delivered FIFO", a call record as RW-2, a result as EXE-4.
    Case("the user's message with a member of its own", "LOG-4",
         changed(_events(lambda e: e if e["type"] != "user/message" else
                         {**e, "data": {**e["data"], "x": 1}})), NO_HOOKS, TEXT_REPLY),
    Case("a call record with a member of its own", "LOG-4",
         changed(_events(lambda e: e if e["type"] != "tool/call" else
                         {**e, "data": {**e["data"], "x": 1}})), NO_HOOKS, TWO_BASH),
    # ... and a reply's block as STEP-4, a message's source as TEXT-2.
    Case("a reply's text block with a member of its own", "LOG-4",
         changed(_events(lambda e: e if e["type"] != "assistant/message" else
                         {**e, "data": {**e["data"], "message": {**e["data"]["message"],
                          "content": [{**b, "x": 1} for b in e["data"]["message"]["content"]]}}})),
         NO_HOOKS, TEXT_REPLY),
    Case("the user's message source with a member of its own", "LOG-4",
         changed(_events(lambda e: e if e["type"] != "user/message" else
                         {**e, "data": {**e["data"], "source": {**e["data"]["source"], "x": 1}}})),
         NO_HOOKS, TEXT_REPLY),
    Case("a result message with a member of its own", "LOG-4",
         changed(_events(lambda e: e if e["type"] != "tool/result" else
                         {**e, "data": {**e["data"], "message": {**e["data"]["message"],
                                                                 "x": 1}}})),
         NO_HOOKS, (*TWO_BASH, ToolFinishes("c1", ToolSucceeded("done")))),
    # Blamed ADJ-4, "queued messages are delivered FIFO", with nothing queued.
    Case("the user's message in a block of another type", "TEXT-2",
         changed(_events(lambda e: e if e["type"] != "user/message" else
                         {**e, "data": {**e["data"], "content": [
                             {**e["data"]["content"][0], "type": "tex"}]}})),
         NO_HOOKS, TEXT_REPLY),
    # The reply's own call record read as an earlier reply's: "EXE-1: ... an earlier reply's
    # call c1 does not make them repeats", of a program holding one reply.
    Case("the reply refused by a loop left idle after the prompt", "ORD-1",
         changed(_left_idle), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)))),
    # Blamed ADJ-4, "queued messages are delivered after the next step/start", nothing queued.
    Case("the prompt opening a turn not logged", "TURN-1", changed(_prompt_not_logged),
         NO_HOOKS, TEXT_REPLY),
    Case("a reply's role misspelt", "LOG-6",
         changed(_events(lambda e: e if e["type"] != "assistant/message" else
                         {**e, "data": {**e["data"], "message": {**e["data"]["message"],
                                                                "role": "assistan"}}})),
         NO_HOOKS, TEXT_REPLY),
    Case("a failed request ends the turn completed", "TEXT-2",
         changed(_reason({"error": {"kind": "completed"}})), NO_HOOKS,
         (SubmitUser("hi"), ModelFails("overloaded", "OVERLOADED"))),
    Case("the last result after the next step/start", "STEP-3", _mutant("result-in-next-step"),
         NO_HOOKS, (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
                    ToolFinishes("c1", ToolSucceeded("a")))),
    Case("results in completion order", "ORD-3", _mutant("completion-order-results"),
         PARALLEL, (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),
                                                    call("c2", "read", READ))),
                    ToolFinishes("c2", ToolSucceeded("2")))),
    Case("queued messages delivered last-in first-out", "ADJ-4", changed(_lifo_queue),
         NO_HOOKS, (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
                    SubmitUser("first"), SubmitUser("second"),
                    ToolFinishes("c1", ToolSucceeded("ok")))),
    # Blamed by the target's own log (`messages_wait_for_step_start`), at the first message.
    Case("queued messages appended before the step ends", "ADJ-4",
         changed(_queued_before_step_end), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)), SubmitUser("meanwhile"),
          ToolFinishes("c1", ToolSucceeded("ok")))),
    Case("a context between call and result", "ADJ-1",
         _mutant("context-between-call-and-result"), PARALLEL,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ), call("c2", "read", READ))),
          ToolFinishes("c1", ToolSucceeded("1", ("ctx",))))),
    Case("duplicate call ids accepted", "EXE-1", changed(_accept_refused("EXE-1")), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ), call("c1", "read", READ))))),
    Case("no Error: prefix on a failed body's result", "EXE-4",
         changed(_strip_prefix_when(lambda e: True)), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
          ToolFinishes("c1", ToolFailed("disk full")))),
    Case("arguments change after sealing", "EXE-3", _mutant("mutable-arguments"), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)))),
    Case("a denied call runs", "DEC-1", _mutant("deny-still-executes"), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(Deny("no")), HookAnswers(Pass()))),
    # Refused for an input that is not an object (HOOK-6), its result held back behind the
    # read's: nothing in this command's events says why the model does not start it (SCHED-1).
    Case("a call refused for its rewrite runs", "DEC-1", _mutant("deny-still-executes"),
         GUARDED, (SubmitUser("hi"),
                   ModelReplies((call("c1", "read", READ), call("c2", "bash", BASH))),
                   HookAnswers(Pass()), HookAnswers(Allow(updated_input="not an object")))),
    Case("a rejected approval's own wording", "DEC-2",
         changed(_result_text(lambda text, _: text.replace("rejected", "declined"))), ASKING,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)), HookAnswers(Ask()),
          ApprovalAnswers("rejected"))),
    # A blocked call's contexts: the body's are dropped, its hooks' survive (both were blamed
    # ADJ-4, where queued messages are delivered).
    Case("a block drops its hooks' contexts too", "DEC-3",
         changed(_blocked_contexts(keep_body=False)), TWO_POST_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
          ToolFinishes("c1", ToolSucceeded("a"), (PostBlock("no"), PostContext("note"))))),
    # The step ends at the other call's result: the lost context is missed there.
    Case("a block drops its hooks' contexts, the step ending at a later call", "DEC-3",
         _BlockDropsHookContextsLater, TWO_POST_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ), call("c2", "grep", GREP))),
          ToolFinishes("c1", ToolSucceeded("a"), (PostBlock("no"), PostContext("note"))),
          ToolFinishes("c2", ToolSucceeded("b")))),
    # ... and the later call's own context takes the lost one's place.
    Case("a block drops its hooks' contexts, a later context in their place", "DEC-3",
         _BlockDropsHookContextsLater, TWO_POST_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ), call("c2", "grep", GREP))),
          ToolFinishes("c1", ToolSucceeded("a"), (PostBlock("no"), PostContext("note"))),
          ToolFinishes("c2", ToolSucceeded("b", ("later",))))),
    # ... also where another call's hook gave the same words, which the target keeps.
    Case("a block drops its hooks' contexts, another call's like context kept", "DEC-3",
         _BlockDropsHookContextsLater, TWO_POST_HOOKS,
         (SubmitUser("hi"),
          ModelReplies((call("c1", "read", READ), call("c2", "read", READ),
                        call("c3", "grep", GREP))),
          ToolFinishes("c1", ToolSucceeded("a"), (PostPass(), PostContext("note"))),
          ToolFinishes("c2", ToolSucceeded("b"), (PostBlock("no"), PostContext("note"))),
          ToolFinishes("c3", ToolSucceeded("c", ("later",))))),
    # ... also one of only whitespace, which a probe shows the target keeps without a block.
    Case("a block drops its hooks' contexts, one of only whitespace", "DEC-3",
         _BlockDropsHookContextsLater, TWO_POST_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
          ToolFinishes("c1", ToolSucceeded("a"), (PostBlock("no"), PostContext(" "))))),
    Case("a block keeps the body's contexts", "DEC-3",
         changed(_blocked_contexts(keep_body=True)), TWO_POST_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
          ToolFinishes("c1", ToolSucceeded("a", ("mine",)),
                       (PostBlock("no"), PostContext("note"))))),
    Case("a blocked result keeps the body's text", "DEC-3",
         changed(_result_text(lambda text, _: "body text" if text == "nope" else text)),
         GUARDED, (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
                   ToolFinishes("c1", ToolSucceeded("body text"), (PostBlock("nope"),)))),
    # The log's audit says block and its result is no error, which `check` blames on HOOK-1
    # (all a log shows); conform sees the model's result too, and DEC-3 says what it must be.
    Case("a PostToolUse block ignored", "DEC-3", changed(_block_ignored(keep_reasons=False)),
         GUARDED, (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
                   ToolFinishes("c1", ToolSucceeded("body text"), (PostBlock("nope"),)))),
    Case("a PostToolUse block's reasons without the error flag", "DEC-3",
         changed(_block_ignored(keep_reasons=True)),
         GUARDED, (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
                   ToolFinishes("c1", ToolSucceeded("body text"), (PostBlock("nope"),)))),
    Case("a rewrite only reaches the tool", "RW-1", _mutant("execution-only-rewrite"), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)), HookAnswers(Pass()),
          HookAnswers(_allow({"command": "pwd"})))),
    Case("the sidecar is dropped", "RW-2", _mutant("missing-sidecar"), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)), HookAnswers(Pass()),
          HookAnswers(_allow({"command": "pwd"})))),
    Case("approval shows the original input", "RW-4", _mutant("ask-shows-original"), GUARDED,
         (*TWO_BASH, HookAnswers(Pass()), HookAnswers(Pass()), HookAnswers(Ask()),
          HookAnswers(_allow({"command": "pwd"})), ToolFinishes("c1", ToolSucceeded("ok")))),
    Case("the first rewrite wins", "HOOK-3", _mutant("last-finisher-wins"), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(_allow({"command": "a"})), HookAnswers(_allow({"command": "b"})))),
    # An earlier hook's identity rewrite equals the model's own arguments: a loop that applies
    # no rewrite at all breaks RW-1, one that lets the identity rewrite win (with a sidecar
    # naming it) breaks HOOK-3, although both record the model's arguments.
    Case("a rewrite only reaches the tool, after an identity rewrite", "RW-1",
         _mutant("execution-only-rewrite"), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(_allow({"command": "ls"})), HookAnswers(_allow({"command": "pwd"})))),
    # An earlier input bash cannot take, then a later one: a loop letting the earlier win, or
    # judging it though replaced, refuses the call naming its hook; one that runs the call
    # unrefused applied the later input to execution alone (blamed HOOK-3 before, batch 8).
    Case("a rewrite only reaches the tool, after an input its tool cannot take", "RW-1",
         _mutant("execution-only-rewrite"), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(Allow("not an object")), HookAnswers(_allow({"command": "pwd"})))),
    Case("an earlier identity rewrite wins", "HOOK-3", _mutant("last-finisher-wins"), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(_allow({"command": "ls"})), HookAnswers(_allow({"command": "pwd"})))),
    # The earlier rewrite that wins does not fit bash, so the call is refused naming its hook
    # (HOOK-6's wording) and keeps the model's arguments: blamed RW-1 before (random batches).
    Case("an earlier unacceptable rewrite wins", "HOOK-3", _mutant("last-finisher-wins"),
         GUARDED, (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
                   HookAnswers(_allow({"file_path": "a.txt"})),
                   HookAnswers(_allow({"command": "pwd"})))),
    # The body starts when the approval is answered, with arguments nobody gave: blamed RW-4
    # ('approval runs exactly the approved input') before, whatever the body ran with.
    Case("arguments change after sealing, on an approved rewrite", "EXE-3",
         _mutant("mutable-arguments"), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(Ask(updated_input=freeze({"command": "pwd"}))), HookAnswers(Pass()),
          ApprovalAnswers("allowed-once"))),
    # Two denials without a reason: nothing to join (HOOK-2), the wording is DEC-1's.
    Case("denials without a reason worded blocked", "DEC-1",
         _mutant("deny-without-reason-worded-blocked"), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(Deny("")), HookAnswers(Deny("")))),
    # Every reason is there, joined another way: DEC-1 states the separator (it was blamed
    # HOOK-2, the merge, which kept every reason).
    Case("denying hooks' reasons joined with a comma", "DEC-1",
         changed(_result_text(lambda text, _: text.replace("; ", ", "))), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(Deny("no")), HookAnswers(Deny("stop")))),
    Case("only the first denying hook's reason", "HOOK-2",
         changed(_result_text(lambda text, _: text.split("; ")[0])), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(Deny("no")), HookAnswers(Deny("stop")))),
    Case("hooks run again at the gate", "HOOK-4", _mutant("hooks-run-twice"), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(Pass()), HookAnswers(Pass()))),
    Case("the parallel cap is ignored", "SCHED-1",
         changed(_same, lambda: [(dispatch, "may_start", _ignore_the_cap)]), PARALLEL,
         (SubmitUser("hi"), ModelReplies(tuple(call(f"c{i}", "read", READ) for i in (1, 2, 3))))),
    Case("aborted-before-dispatch results say ABORTED", "ABORT-1",
         changed(_error_code("ABORTED_BEFORE_DISPATCH", "ABORTED")), NO_HOOKS,
         (*TWO_BASH, Abort(), ToolFinishes("c1", ToolSucceeded("ok")))),
    # c2 finished before the abort, waiting for c1's result: it keeps its own (it was blamed
    # EXE-4, "differs from its settled outcome").
    Case("a body that finished before the abort is aborted", "ABORT-1",
         _AbortsFinishedBodies, PARALLEL,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ), call("c2", "read", READ))),
          ToolFinishes("c2", ToolSucceeded("b")), Abort("user"),
          ToolFinishes("c1", ToolSucceeded("a")))),
    Case("an abort before the reply ends the turn completed", "ABORT-2",
         changed(_reason({"aborted": {"kind": "completed"}})), NO_HOOKS,
         (SubmitUser("hi"), Abort())),
    # The turn does end aborted; what is missing is why: ABORT-3's, not the abort rules'.
    Case("an abort forgets its cause", "ABORT-3",
         changed(_reason({"aborted": {"kind": "aborted"}})), NO_HOOKS,
         (SubmitUser("hi"), Abort())),
    Case("a parent's abort recorded as the user's", "ABORT-3",
         changed(_reason({"aborted": {"kind": "aborted", "reason": {"kind": "user"}}})),
         NO_HOOKS, (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
                    Abort("parent"), ToolFinishes("c1", ToolSucceeded("ok")))),
    # A fresh outside bug left the cancelled approval out: ABORT-1 answers it. Written after
    # the call's result, it is where ABORT-3 places it that is wrong (it was blamed ABORT-1).
    Case("an abort leaves a pending approval unanswered", "ABORT-1",
         changed(_abort_moves_cancellation(drop=True)), ASKING,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)), HookAnswers(Ask()),
          Abort("user"))),
    Case("an abort's cancelled approval written after the call's result", "ABORT-3",
         changed(_abort_moves_cancellation(drop=False)), ASKING,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)), HookAnswers(Ask()),
          Abort("user"))),
    Case("a later call passes the gate while an approval is pending", "SCHED-2",
         changed(_start_while_asking), PARALLEL_ASKING,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ), call("c2", "read", READ))),
          HookAnswers(Ask()), HookAnswers(Pass()))),
    Case("an approval asked before the gate reaches its call", "SCHED-2",
         changed(_ask_early), ASKING,
         (*TWO_BASH, HookAnswers(Pass()), HookAnswers(Ask()))),
    Case("a hook runs for a tool its matcher only partly matches", "HOOK-8",
         changed(_hook_outside_matcher), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)))),
    Case("a crash repair loses the last reported commit", "LOG-8", LosesACommitInRepair,
         NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)), Crash(), Recover())),
    # A crash that loses the last commit the target reported breaks LOG-8 (everything
    # committed survives a crash), not REC-1: the repair that follows is right for the log the
    # target reopened. A loss is read from the seqs it goes on at, even when the model appends
    # nothing (the lost commit closed a turn: it was blamed LOG-1) ...
    Case("a crash loses a commit that closed the turn", "LOG-8", CrashLosesItsLastCommit,
         NO_HOOKS, (*TEXT_REPLY, Crash(), Recover())),
    Case("a crash loses the reply with its call", "LOG-8", CrashLosesItsLastCommit, NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)), Crash(), Recover())),
    # ... and, where the target's repair appends nothing (the lost commit opened the tail
    # turn), from the seq of the turn it opens next (it was blamed REC-1) ...
    Case("a crash loses the commit that opened the turn", "LOG-8", CrashLosesItsLastCommit,
         NO_HOOKS, (*TEXT_REPLY, SubmitUser("again"), Crash(), Recover())),
    # ... while a repair that appends nothing on a log that lost nothing is REC-1's.
    # A seq that goes back where the log kept what it names (the repair answers a call whose
    # record the seq says was lost) is a counter gone wrong: the log's seqs repeat (LOG-1).
    Case("a seq counter restarts after a crash", "LOG-1", RestartsSeqsAfterACrash, NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)), Crash(), Recover())),
    Case("a crash repair closes nothing", "REC-1", RepairsNothing, NO_HOOKS,
         (*TEXT_REPLY, SubmitUser("again"), Crash(), Recover())),
    # A commit torn in the middle: a reply kept without its call's tool/call record.
    Case("a crash tears the reply's commit", "LOG-8", lambda: CrashLosesItsLastCommit(torn=True),
         NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)), Crash(), Recover())),
    Case("a crash tears the commit that opened the turn", "LOG-8",
         lambda: CrashLosesItsLastCommit(torn=True), NO_HOOKS,
         (*TEXT_REPLY, SubmitUser("again"), Crash(), Recover())),
    Case("repair cancels a pending approval", "REC-1", changed(_repair_cancels_approvals), ASKING,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)), HookAnswers(Ask()),
          Crash(), Recover())),
    Case("repair says not started for a recorded call", "REC-1",
         changed(_error_code("TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED")), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)), Crash(), Recover())),
    Case("a tool outcome accepted while idle", "MODEL-1",
         changed(_accept_refused("MODEL-1")), NO_HOOKS,
         (*TEXT_REPLY, ToolFinishes("c9", ToolSucceeded("late")))),
    # Invalid input is judged before whether the tool exists; the arguments parse alike.
    Case("an unknown tool reported before its invalid input", "EXE-5",
         changed(_events(_unknown_tool_checked_first)), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "missing_tool", "not json"),)))),
    Case("an unknown tool's own wording", "TEXT-1",
         changed(_result_text(lambda text, _: text.replace("unknown tool", "no such tool"))),
         NO_HOOKS, (SubmitUser("hi"), ModelReplies((call("c1", "missing_tool", '{"x":1}'),)))),
    # The sidecar names the hook in effect, but not the earlier hook that also supplied an
    # input: the record of the rewrites is wrong (RW-2), not the rewrite applied (HOOK-3).
    Case("the sidecar names only the hook in effect", "RW-2",
         changed(_field("tool/call", ("data", "rewrite", "handlerIds"), ["rewriter"])), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)),
          HookAnswers(_allow({"command": "pwd"})), HookAnswers(_allow({"command": "ls -a"})))),
    Case("approval ids of its own", "DEC-2",
         changed(_field("approval/asked", ("data", "id"), "4b1e0c5a-uuid")), ASKING,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)), HookAnswers(Ask()))),
    # A call settled in the reply's own command (invalid input): the missing record is the
    # wrong event, not the result that follows it (ADJ-2 only because the record is gone) ...
    Case("a call's tool/call record is missing", "ORD-2", changed(_call_records(move=False)),
         NO_HOOKS, (SubmitUser("hi"), ModelReplies((call("c1", "read", ""),)))),
    # ... while a record that is only late is the adjacency rule the result then breaks.
    Case("a call's tool/call record comes after its result", "ADJ-2",
         changed(_call_records(move=True)), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", ""),)))),
    # Who a message is from is TEXT-2's (it was a SPEC gap, NO-RULE, before TEXT-2 stated it).
    Case("the reply's source names another model", "TEXT-2",
         changed(_field("assistant/message", ("data", "message", "source", "model"), "other")),
         NO_HOOKS, TEXT_REPLY),
    Case("a deferred context carries another label", "TEXT-2",
         changed(_events(_relabel_contexts)), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
          ToolFinishes("c1", ToolSucceeded("a", ("ctx",))))),
    # A source without its callId leaves the result block's toolCallId citing nothing its
    # source names: LOG-6, as the model's reader and check refuse it (since 7f9d244).
    Case("a tool result's source lacks its call id", "LOG-6",
         changed(_field("tool/result", ("data", "message", "source"), {"kind": "tool"})),
         NO_HOOKS, (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
                    ToolFinishes("c1", ToolSucceeded("a")))),
    # The right hook ran for the right call; only the matcher its audit names is not the
    # configured one, which TEXT-2 states (it was blamed HOOK-4, "which hook runs").
    Case("a hook's audit names another matcher", "TEXT-2",
         changed(_field("hook/invoked", ("data", "matcher"), "*")), GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),)), HookAnswers(Pass()))),
    # The audit's word reads as another verdict than the loop acted on (both were TEXT-2, "a
    # field of the audit misrecorded"); a word that reads alike stays TEXT-2's.
    Case("a PostToolUse block audited allow", "HOOK-1", changed(_post_word("block", "allow")),
         GUARDED, (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
                   ToolFinishes("c1", ToolSucceeded("a"), (PostBlock("no"),)))),
    Case("a PostToolUse pass audited block", "HOOK-1", changed(_post_word("pass", "block")),
         GUARDED, (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
                   ToolFinishes("c1", ToolSucceeded("a"), (PostPass(),)))),
    # A PostToolUse hook replacing a success's output (Claude Code's updatedMCPToolOutput,
    # Gemini CLI's tool_output): no verdict of the model's does, so a result that is no block
    # is the body's own (SPEC section 4, out of scope).
    Case("a PostToolUse hook replacing the body's output", "EXE-4",
         changed(_result_text(lambda text, _: "replaced" if text == "a" else text)),
         GUARDED, (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
                   ToolFinishes("c1", ToolSucceeded("a"), (PostContext("note"),)))),
    # Blank as JavaScript's `trim` reads it: U+FEFF blank (Python: not JSON), U+001C..U+001F
    # and U+0085 not (Python: blank, so {}): an error that names another input problem.
    Case("U+FEFF arguments read as blank", "EXE-2", _mutant("javascript-trim"), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "read", JAVASCRIPT_ONLY_BLANK),)))),
    # An unknown tool's call: INVALID_TOOL_INPUT against UNKNOWN_TOOL, which a loop checking
    # only a registered tool's input shows too (EXE-5); a reply calling the tool with [] after
    # it tells them apart: this loop answers it INVALID_TOOL_INPUT, so blank is what it misreads.
    Case("U+FEFF arguments of an unknown tool read as blank", "EXE-2",
         _mutant("javascript-trim"), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "missing_tool", JAVASCRIPT_ONLY_BLANK),)))),
    Case("U+001C..U+001F, U+0085 arguments read as not blank", "EXE-2",
         _mutant("javascript-trim"), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "missing_tool", PYTHON_ONLY_BLANK),)))),
    # The same, where a PreToolUse hook matches the call: which reader the loop uses decides
    # whether the call's hooks run, so the hook audits or the reply's commit differ first
    # (they were blamed on hook order, HOOK-4, or the reply's commit, RW-3 and ORD-1).
    Case("U+001C..U+001F, U+0085 arguments read as not blank: their hook is skipped", "EXE-2",
         _mutant("javascript-trim"), ASKING,
         (SubmitUser("hi"), ModelReplies((call("c1", "missing_tool", PYTHON_ONLY_BLANK),
                                          call("c2", "missing_tool", '{"x":1}'))),
          HookAnswers(Pass()))),
    Case("U+001C..U+001F, U+0085 arguments read as not blank: the reply is committed at once",
         "EXE-2", _mutant("javascript-trim"), ASKING,
         (SubmitUser("hi"), ModelReplies((call("c1", "missing_tool", PYTHON_ONLY_BLANK),)))),
    Case("U+FEFF arguments read as blank: the reply waits for their hook", "EXE-2",
         _mutant("javascript-trim"), ASKING,
         (SubmitUser("hi"), ModelReplies((call("c1", "missing_tool", JAVASCRIPT_ONLY_BLANK),)))),
    Case("U+FEFF arguments read as blank: the reply waits for their hook after another's",
         "EXE-2", _mutant("javascript-trim"), ASKING,
         (SubmitUser("hi"), ModelReplies((call("c1", "grep", '{"pattern":"x"}'),
                                          call("c2", "missing_tool", JAVASCRIPT_ONLY_BLANK))),
          HookAnswers(Pass()))),
    # A loop that reads arguments as the model does, with another bug, where the reply also
    # holds a call blank to one reader alone (half the generated programs have one): a hook
    # matches another call, so any reader waits, and the bug is the early commit's (RW-3; it
    # was blamed EXE-2, and shrinking keeps the first blame).
    Case("the reply logged before its hooks answered, beside a call only Python calls blank",
         "RW-3", _RepliesBeforeItsHooks, GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),
                                          call("c2", "grep", PYTHON_ONLY_BLANK))))),
    Case("the reply logged before its hooks answered, beside a call only JavaScript calls blank",
         "RW-3", _RepliesBeforeItsHooks, GUARDED,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),
                                          call("c2", "grep", JAVASCRIPT_ONLY_BLANK))))),
    # A reply held back after its last hook answered, where a PreToolUse matcher names another
    # of its tools in part (the generator's bash-guard `bash` beside bash_session): the target
    # runs no hook for bash_session when asked again, so the hold is RW-3's, not a partial
    # matcher's (HOOK-8, as it was blamed; shrinking keeps the first blame).
    Case("the reply not committed after its last hook, beside a tool its matcher names in part",
         "RW-3", changed(_reply_held_after_its_hooks), PARTIAL_NAMES_CONFIG,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH),
                                          call("c2", "bash_session", BASH))),
          HookAnswers(Pass()))),
    # Not an object to both readers, settled before its turn came: an abort's timing (it was
    # read as parsed otherwise, EXE-2, when the U+FEFF cases came).
    Case("invalid input settled before an abort reached its turn", "ABORT-1",
         changed(_invalid_input_settled_early("c3")), NO_HOOKS,
         (SubmitUser("hi"), ModelReplies((call("c1", "bash", BASH), call("c2", "bash", BASH),
                                          call("c3", "bash", "not json"))),
          Abort(), ToolFinishes("c1", ToolSucceeded("ok")))),
    Case("a PostToolUse block audited deny", "TEXT-2", changed(_post_word("block", "deny")),
         GUARDED, (SubmitUser("hi"), ModelReplies((call("c1", "read", READ),)),
                   ToolFinishes("c1", ToolSucceeded("a"), (PostBlock("no"),)))),
)  # fmt: skip


@pytest.mark.parametrize("case", FIRST_USER + FAMILIES, ids=[c.name for c in FIRST_USER + FAMILIES])
def test_MODEL_1_a_single_difference_is_blamed_on_the_rule_it_breaks(case: Case) -> None:
    """MODEL-1: replaying a program that shows the one wrong thing blames the rule broken."""
    replay = replay_case(case.target, case.config, list(case.program))
    assert replay.divergence is not None, "the difference was not found"
    assert (replay.divergence.rule_id, case.name) == (case.broken, case.name), (
        replay.divergence.what
    )


def test_MODEL_1_an_extra_event_is_named_with_its_article() -> None:
    """MODEL-1: the sentence naming an event the target appends reads as English ("appends an
    assistant/message", not "a assistant/message", as a first user's report said)."""
    (case,) = [c for c in FAMILIES if c.broken == "RW-3" and "before its PreToolUse" in c.name]
    replay = replay_case(case.target, case.config, list(case.program))
    assert replay.divergence is not None
    assert replay.divergence.what.startswith("the target appends an assistant/message ")


def test_ADJ_4_an_extra_user_message_is_named_with_its_article() -> None:
    """ADJ-4: "user" begins with a vowel letter but not a vowel sound: the sentence naming a
    message the target appends reads "appends a user/message", not "an user/message"."""
    extra: Event = {"type": "user/message", "seq": 9, "data": {"message": {"role": "user"}}}
    rule, what = extra_events.extra(extra, SubmitUser("hi"), "idle", [])
    assert (rule, what.split(":")[0]) == (
        "ADJ-4",
        "the target appends a user/message the model does not",
    )


def test_ORD_3_a_body_failing_with_its_own_code_early_is_no_HOOK_7() -> None:
    """ORD-3: a result committed before an earlier call's, for a call whose PreToolUse pass was
    audited `error` and whose body ran and failed with its own code (EACCES), was named HOOK-7
    "ends it with an error of its own (EACCES) before it runs" (review r1): the body ran, so its
    code is no error of the loop's. Called directly: a whole replay meets the target's own log
    breaking ORD-3 first."""
    config = LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "read"),))
    reads = (
        ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),
        ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),
    )
    failed_open = HookAnswers(Pass(), HookAudit(decision="error", duration_ms=60000.0))
    program: list[Command] = [SubmitUser(""), ModelReplies(reads), HookAnswers(Pass()), failed_open]
    fails = ToolFinishes("c2", ToolFailed("no", code="EACCES"))
    model = ModelTarget()
    model.reset(config)
    history = [event for command in program for event in model.apply(command).events]
    # The model's result for c2, as it commits it once c1 has settled.
    model.apply(ToolFinishes("c1", ToolSucceeded("x")))
    (result,) = [e for e in model.apply(fails).events if e["type"] == "tool/result"][-1:]
    rule, what = extra_events.extra(
        result, fails, "Dispatching", history, target_events=[result], config=config,
        program=program,
    )  # fmt: skip
    assert rule == "ORD-3", what


# A turn's opening message, as the model logs it for SubmitUser("hi").
_OPENING_MESSAGE: Event = {
    "type": "user/message",
    "seq": 2,
    "data": {"role": "user", "content": [{"type": "text", "text": "hi"}],
             "source": {"kind": "user"}, "id": "m2"},
}  # fmt: skip


@pytest.mark.parametrize("content", ["hi", None], ids=["its text", "null"])
def test_LOG_4_a_user_message_whose_content_is_no_list_names_what_it_is(content: object) -> None:
    """LOG-4: an in-process loop writing a message's content as its text (or null), where its
    own log is not read first, was told "the target's blocks are null"; the words now say the
    member's type, as the target's own log is read, and what the target wrote."""
    want = _OPENING_MESSAGE
    got: Event = {**want, "data": {**want["data"], "content": content}}
    rule, what = changed_events.changed(
        want, got, SubmitUser("hi"), "Idle", [want], target_events=[got]
    )
    assert rule == "LOG-4", what
    assert (
        f"data.content must be an array of blocks, where the target's is {json.dumps(content)}"
        in what
    )


def test_LOG_4_a_member_of_a_loops_own_is_named_not_read_as_the_queues_order() -> None:
    """LOG-4: a turn's opening message holding one member no message defines was told "queued
    messages are delivered FIFO", with nothing queued; the words now name the member."""
    want = _OPENING_MESSAGE
    got: Event = {**want, "data": {**want["data"], "trace id": "t1"}}
    rule, what = changed_events.changed(
        want, got, SubmitUser("hi"), "Idle", [want], target_events=[got]
    )
    assert rule == "LOG-4", what
    assert 'holds data."trace id", a member no user/message defines' in what
    assert "FIFO" not in what


def test_TEXT_2_a_block_whose_type_is_a_list_is_compared_not_raised() -> None:
    """TEXT-2: a target's content block whose "type" is a list (["text"]) raised TypeError
    (unhashable) while conform looked for members of a loop's own; it is compared as it is."""
    want = _OPENING_MESSAGE
    got: Event = {**want, "data": {**want["data"], "content": [{"type": ["text"], "text": "hi"}]}}
    rule, what = changed_events.changed(
        want, got, SubmitUser("hi"), "Idle", [want], target_events=[got]
    )
    assert rule == "TEXT-2", what
    assert 'where the target\'s blocks are [["text"]]' in what


@pytest.mark.no_cover
def test_MODEL_1_the_unchanged_model_passes_every_program_of_the_matrix() -> None:
    """MODEL-1: control: without its change, no program of the matrix diverges."""
    for case in FIRST_USER + FAMILIES:
        assert replay_case(changed(_same), case.config, list(case.program)).divergence is None


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize("case", FIRST_USER, ids=[c.name for c in FIRST_USER])
def test_MODEL_1_random_programs_blame_the_rule_each_difference_breaks(case: Case) -> None:
    """MODEL-1: the conformance machine finds each of the first user's differences by itself
    and blames the rule the target breaks (generation only: shrinking is most of a kill's cost,
    and what keeps its blame is one mechanism, checked below)."""
    report = run_conformance(
        case.target, examples=300, seed_value=BATCH_SEED, show_progress=False, shrink=False
    )
    assert report.divergence is not None
    assert report.divergence.rule_id in case.blamed, report.divergence.what


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_shrinking_a_random_counterexample_keeps_its_blame() -> None:
    """MODEL-1: after shrinking, the counterexample still blames the rule the target breaks:
    shrinking is pinned to the first divergence's rule, whichever difference it is."""
    case = FIRST_USER[0]
    # Section 12's examples catch this difference before the search: a target not presenting.
    report = run_conformance(
        lambda: UnpresentedModel(TURN_END_REASON_AS_TEXT),
        examples=300,
        seed_value=BATCH_SEED,
        show_progress=False,
    )
    assert report.divergence is not None
    assert report.shrink_runs > 0, "the counterexample was not shrunk"
    assert report.divergence.rule_id == case.broken, report.divergence.what
