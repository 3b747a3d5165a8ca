"""Whole runs in comparable form, for comparing an implementation with known divergences.

A *run* is one program's observations, normalized: `time` and message ids dropped (as
`loopspec.properties.conformance.event_fields.normalized` does), events outside the kept types
dropped, seqs
turned into positions and `sourceEventSeqs` into labels of the cited events
(`tool/call:<callId>`), each event tagged with the commit it belongs to (`commit: [command,
k]`), executed arguments parsed (blank text as `{}`, EXE-2), and a call id a later reply
reuses (EXE-1 keeps ids unique within one reply only) renamed from that reply on, in both runs
alike (`reused_call_id`), so each call is one id through the run. Runs are plain JSON-like
data, so an *eraser* (a function from a pair of runs to a pair of runs) can remove one known
difference before the two are compared, and a symptom can follow a call by its id.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.event_fields import normalized
from loopspec.properties.conformance.json_values import as_value
from loopspec.properties.conformance.target import Observation

Json = dict[str, Any]
Event = dict[str, Any]
Obs = dict[str, Any]  # {"accepted": False, "rule": str} | {"accepted": True, "events", "executed"}
Run = list[Obs]
Pair = tuple[Run, Run]


@attrs.frozen
class Earlier:
    """What came before the command a symptom judges: both runs, the commands (as JSON) that
    made them, and the configuration both loops run. A symptom that names a situation ("a
    crash came first", "the call is a read") reads it from the commands and the configuration:
    an observation shows what a loop logged, not what it was told."""

    model: Run
    target: Run
    commands: Sequence[Json]
    config: LoopConfig


def _parsed(arguments: str) -> object:
    """A body's arguments as the value it runs with: blank text is {} (EXE-2), as
    `json_values.as_run_value` reads them."""
    if not arguments.strip():
        return {}
    try:
        value: object = json.loads(arguments)
    except (ValueError, RecursionError):
        return arguments
    return value


def reused_call_id(call_id: str, use: int) -> str:
    """How a run names the call of the `use`-th reply (from 2) to use `call_id`."""
    return f"{call_id}#{use}"


def with_call_ids(value: Any, names: Mapping[str, str]) -> Any:
    """`value` (JSON-like) with each call id named in `names` replaced: a `callId` or
    `toolCallId` member's, and a tool-call block's `id`. `value` itself is left as it was."""
    if isinstance(value, list):
        return [with_call_ids(item, names) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: with_call_ids(item, names) for key, item in value.items()}
    keys = ("callId", "toolCallId", *(("id",) if value.get("type") == "tool-call" else ()))
    for key in keys:
        if isinstance(out.get(key), str) and out[key] in names:
            out[key] = names[out[key]]
    return out


class RunNormalizer:
    """Normalizes a run one observation at a time (labels carry over between commands)."""

    def __init__(self, keep: Callable[[str], bool]) -> None:
        self._keep = keep
        self._labels: dict[int, str] = {}
        self._index = 0
        self._uses: dict[str, int] = {}  # call id -> how many replies introduced it
        self._names: dict[str, str] = {}  # a reused call id -> its current call's name
        self.originals: dict[str, str] = {}  # each name given a reused id -> that id

    @property
    def names(self) -> Mapping[str, str]:
        """Each reused call id, with the name its latest call has in the run."""
        return self._names

    def add(self, observation: Observation, introduced: Sequence[str] = ()) -> Obs:
        """The next observation in comparable form; `introduced`: the call ids of the reply
        its command gave the loop (when the model took it), from which a reused id names the
        new call (`reused_call_id`)."""
        index = self._index
        self._index += 1
        for call_id in introduced:
            use = self._uses[call_id] = self._uses.get(call_id, 0) + 1
            if use > 1:
                self._names[call_id] = reused_call_id(call_id, use)
                self.originals[self._names[call_id]] = call_id
        if not observation.accepted:
            return {"accepted": False, "rule": observation.refusal_rule}
        commit_of = [k for k, size in enumerate(observation.commits) for _ in range(size)]
        if len(commit_of) != len(observation.events):
            commit_of = [0] * len(observation.events)
        events: list[Event] = []
        for raw, commit in zip(observation.events, commit_of, strict=True):
            if not self._keep(str(raw.get("type"))):
                continue
            event = normalized(raw)
            if self._names:
                event = with_call_ids(event, self._names)
            seq = event.pop("seq", None)
            data = event.get("data")
            named = data.get("callId") if isinstance(data, dict) else None
            label = (
                f"tool/call:{named}"
                if raw.get("type") == "tool/call"
                else f"{raw.get('type')}@{len(self._labels)}"
            )
            if isinstance(seq, int):
                self._labels[seq] = label
            cites = [self._labels[s] for s in event.pop("sourceEventSeqs", []) if s in self._labels]
            if cites:
                event["cites"] = cites
            event["commit"] = [index, commit]
            events.append(event)
        executed = [
            [self._names.get(call_id, call_id), _parsed(arguments)]
            for call_id, arguments in observation.executed
        ]
        return {"accepted": True, "events": events, "executed": executed}


def sent_arguments(wire_command: Json) -> dict[str, str]:
    """Each call of a reply (a command as JSON, its call ids named as the runs name them) with
    the arguments text the model sent it: what `with_arguments_as_sent` holds records to."""
    if wire_command.get("kind") != "ModelReplies":
        return {}
    return {
        str(block["id"]): block["arguments"]
        for block in wire_command.get("blocks", ())
        if block.get("type") == "tool-call" and isinstance(block.get("arguments"), str)
    }


def with_arguments_as_sent(obs: Obs, sent: Mapping[str, str]) -> Obs:
    """`obs` with each call's arguments that denote the JSON value the model sent (`sent`: call
    id -> text) written as the model wrote them. SPEC section 2 compares arguments as values,
    but runs compare as plain data: a loop recording `"\\u00e4"` as `"ä"` (Claude Code decodes
    escapes) differed from the model, and the difference, found in no observation, was blamed
    on LOG-8. Arguments of another value are left as they are, a difference still."""
    if not obs["accepted"] or not sent:
        return obs
    changed = False

    def spelt(call_id: object, arguments: object) -> object:
        nonlocal changed
        wrote = sent.get(str(call_id))
        if wrote is None or arguments == wrote or not isinstance(arguments, str):
            return arguments
        if as_value(arguments) != as_value(wrote):  # ParsedJson: `json_text.same_json`
            return arguments
        changed = True
        return wrote

    events = [_with_arguments(event, spelt) for event in obs["events"]]
    return {**obs, "events": events} if changed else obs


def _with_arguments(event: Event, spelt: Callable[[object, object], object]) -> Event:
    """`event` with the arguments of its call (a tool/call's, an approval's, a reply's call
    blocks') as `spelt(call id, arguments)` gives them; copied only where one changed."""
    data = event.get("data")
    if not isinstance(data, dict):
        return event
    if event.get("type") in ("tool/call", "approval/asked") and "arguments" in data:
        arguments = spelt(data.get("callId"), data["arguments"])
        if arguments is data["arguments"]:
            return event
        return {**event, "data": {**data, "arguments": arguments}}
    message = data.get("message")
    if event.get("type") != "assistant/message" or not isinstance(message, dict):
        return event
    content = message.get("content")
    if not isinstance(content, list):
        return event
    blocks = [
        {**block, "arguments": spelt(block.get("id"), block.get("arguments"))}
        if isinstance(block, dict) and block.get("type") == "tool-call" and "arguments" in block
        else block
        for block in content
    ]
    if all(new is old or new == old for new, old in zip(blocks, content, strict=True)):
        return event
    return {**event, "data": {**data, "message": {**message, "content": blocks}}}


def normalize_run(observations: Sequence[Observation], keep: Callable[[str], bool]) -> Run:
    """A whole run in comparable form."""
    normalizer = RunNormalizer(keep)
    return [normalizer.add(observation) for observation in observations]


def events_of(run: Run) -> Iterator[Event]:
    """Every event of an accepted command, in order."""
    for obs in run:
        if obs["accepted"]:
            yield from obs["events"]


def map_events(run: Run, change: Callable[[Event], Event | None]) -> Run:
    """`run` with every event replaced by `change(event)` (None drops it)."""
    out: Run = []
    for obs in run:
        if not obs["accepted"]:
            out.append(obs)
            continue
        events = [new for event in obs["events"] if (new := change(event)) is not None]
        out.append({**obs, "events": events})
    return out


def split_events(run: Run, change: Callable[[Event], list[Event]]) -> Run:
    """`run` with every event replaced by the events `change(event)` gives, in their order."""
    out: Run = []
    for obs in run:
        if not obs["accepted"]:
            out.append(obs)
            continue
        out.append({**obs, "events": [new for event in obs["events"] for new in change(event)]})
    return out


def both(change: Callable[[Run], Run]) -> Callable[[Pair], Pair]:
    """An eraser applying the same change to both runs."""
    return lambda pair: (change(pair[0]), change(pair[1]))


def result_call(event: Event) -> str:
    """The call id a tool/result answers."""
    return str(event["data"]["message"]["content"][0]["toolCallId"])


def result_code(event: Event) -> str | None:
    """A tool/result's error code, or None for a success."""
    error = event["data"].get("error")
    return None if error is None else str(error.get("code"))


def result_text(event: Event) -> str:
    """A tool/result's text."""
    return str(event["data"]["message"]["content"][0]["content"][0]["text"])


def with_result_text(event: Event, text: str) -> Event:
    """A copy of a tool/result with another text. Only the path to the text and the error
    (which callers rename or replace) is copied; the rest is shared, as every eraser copies an
    event before it changes one (deep copies were a fifth of a dsh-profile conform run's CPU)."""
    data = dict(event["data"])
    message = data["message"] = dict(data["message"])
    block = dict(message["content"][0])
    block["content"] = [{**block["content"][0], "text": text}, *block["content"][1:]]
    message["content"] = [block, *message["content"][1:]]
    if isinstance(data.get("error"), dict):
        data["error"] = dict(data["error"])
    return {**event, "data": data}


def is_hook_at(event: Event, point: str) -> bool:
    """Whether `event` is a hook audit event at `point`."""
    hook = event["type"] in ("hook/invoked", "hook/result")
    return hook and event["data"].get("point") == point


def user_texts(obs: Obs) -> list[tuple[str, str]]:
    """(text, plugin or 'user') of each user/message an observation appended."""
    return [
        (str(e["data"]["content"][0]["text"]), str(e["data"]["source"].get("plugin", "user")))
        for e in obs["events"]
        if e["type"] == "user/message"
    ]


def results_with_code(obs: Obs, code: str) -> list[str]:
    """Call ids of the tool/results with error `code` an observation appended."""
    events = obs["events"] if obs["accepted"] else []
    return [result_call(e) for e in events if e["type"] == "tool/result" and result_code(e) == code]


# ---------------------------------------------------------------------------------------------
# Erasers and symptoms more than one profile needs: each names the divergence it erases and why
# erasing it hides nothing else.


def drop_commits(run: Run) -> Run:
    """`run` without the commit each event belongs to (LOG-8's commit granularity).

    The model commits each command's events together (a reply with its tool/calls). A loop that
    appends its log one record at a time (dsh's write-behind JSONL, a CLI's transcript or
    rollout) has no such batches: a crash can cut between any two records. Which events were
    logged, and in which order, is still compared; only their grouping is dropped.
    """
    return map_events(run, lambda e: {k: v for k, v in e.items() if k != "commit"})


def flatten_reply_first(run: Run) -> Run:
    """All events and executions in one list; each step's PreToolUse audit right after its reply.

    Erases when a loop runs its PreToolUse hooks (RW-3, LOG-8). The model audits a reply's hooks
    before it commits the reply and asks for approval when it dispatches; a loop that commits
    the reply and its call records first and runs each call's hooks at the call's gate (dsh, the
    real CLIs) logs the audit after the reply, one call at a time, with an earlier call's result
    possibly in between, so each command's share of the events differs. The whole log agrees
    once every command's events are in one list, each step's PreToolUse audit follows its reply
    and each approval/asked sits right before its approval/decided (or its call's result).
    """
    events = list(events_of(run))
    executed = [x for obs in run if obs["accepted"] for x in obs["executed"]]
    for index, event in enumerate(events):
        if event["type"] != "assistant/message":
            continue
        to = index
        while to > 0 and is_hook_at(events[to - 1], "PreToolUse"):
            to -= 1
        events.insert(to, events.pop(index))
    hollow = [{"accepted": True, "events": [], "executed": []} if o["accepted"] else o for o in run]
    flat = {
        "accepted": True,
        "flattened": True,
        "events": _asked_when_decided(_audit_after_reply(events)),
    }
    return [*hollow, {**flat, "executed": executed}]


def _asked_when_decided(events: list[Event]) -> list[Event]:
    """Each approval/asked moved to right before its approval/decided, or, with none (a crash
    came first), before its call's result."""
    held: dict[object, Event] = {}
    out: list[Event] = []
    for event in events:
        data = event["data"]
        if event["type"] == "approval/asked":
            held[data.get("id")] = event
            continue
        if event["type"] == "approval/decided" and data.get("id") in held:
            out.append(held.pop(data.get("id")))
        elif event["type"] == "tool/result":
            call_id = result_call(event)
            for key, asked in list(held.items()):
                if asked["data"].get("callId") == call_id:
                    out.append(held.pop(key))
        out.append(event)
    return out + list(held.values())


def _audit_after_reply(events: list[Event]) -> list[Event]:
    """Each step's PreToolUse audit events moved up to right after the step's reply."""
    out: list[Event] = []
    insert_at: int | None = None
    for event in events:
        if event["type"] == "assistant/message":
            out.append(event)
            insert_at = len(out)
            continue
        if event["type"] in ("step/start", "step/end"):
            insert_at = None
        if insert_at is not None and is_hook_at(event, "PreToolUse"):
            out.insert(insert_at, event)
            insert_at += 1
            continue
        out.append(event)
    return out


def accepts_duplicate_ids(command: Json, want: Obs, got: Obs, _earlier: Earlier) -> bool:
    """The symptom of EXE-1 broken: the model refused a reply whose tool calls repeat an id and
    the target accepted it (dsh and both CLIs run each call under the shared id). From there the
    runs take different paths, so a profile cuts both runs at this command."""
    return not want["accepted"] and want["rule"] == "EXE-1" and bool(got["accepted"])
