"""Which situations a program created: the evidence that a rule was exercised, not just checked.

A rule is *checked* whenever the comparison ran over events it speaks about; it is *exercised*
only when a program created the situation it governs — duplicate call ids for EXE-1, a deny for
DEC-1, an applied rewrite for RW-1, two bodies overlapping or one held back for SCHED-1, and so
on. `Situations.feed` reads one command, the model's states around it and the model's
observation, and returns the rules whose situation the command created (one entry each time).
`program_exercises` asks it of a whole program, run on the model alone.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import assert_never

from loopspec.model.commands import (
    Abort,
    Allow,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PreVerdict,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import MATCH_ALL, PRE_TOOL_USE, LoopConfig, ToolSpec
from loopspec.model.jsonvalue import FrozenMap, NotJsonError, freeze, parse_arguments
from loopspec.model.messages import ReasoningBlock
from loopspec.model.rewrite import INVALID, input_problem
from loopspec.model.state import (
    ASK,
    ASKING,
    DENY,
    READY,
    RUNNING,
    WAITING,
    Dispatching,
    Idle,
    LoopState,
    Rewriting,
)
from loopspec.model.wording import REWRITE_REFUSED_WORDS
from loopspec.properties.conformance.target import ModelTarget, Observation

# Rule -> situations created, over every conformance run in this process.
SITUATION_HITS: Counter[str] = Counter()

# Which rules' situations an appended event of each type creates.
SITUATIONS_BY_EVENT: dict[str, tuple[str, ...]] = {
    "turn/start": ("LOG-1", "LOG-4", "TURN-1"),
    "turn/end": ("LOG-1", "LOG-4", "TURN-2", "TURN-5"),
    "step/start": ("LOG-1", "LOG-4", "STEP-1", "TURN-3"),
    "step/end": ("LOG-1", "LOG-4", "STEP-2"),
    # LOG-6 names every message's role, not only a result's.
    "user/message": ("LOG-1", "LOG-2", "LOG-4", "LOG-6", "HIST-1", "TEXT-2"),
    "assistant/message": (
        *("LOG-1", "LOG-2", "LOG-4", "LOG-6", "ORD-1", "STEP-3", "HIST-1", "TEXT-2"),
    ),
    "tool/call": ("LOG-1", "LOG-4", "ORD-1", "ORD-2", "EXE-3"),
    "tool/result": ("LOG-1", "LOG-2", "LOG-4", "LOG-6", "ORD-2", "ADJ-2", "STEP-3", "TEXT-2"),
    "hook/invoked": ("LOG-1", "LOG-4", "HOOK-1"),
    "hook/result": ("LOG-1", "LOG-4", "HOOK-1"),
    "approval/asked": ("LOG-1", "LOG-4", "DEC-2"),
    "approval/decided": ("LOG-1", "LOG-4", "DEC-2"),
}


def _not_an_object(arguments: str) -> bool:
    """Whether EXE-2's reading of `arguments` is put to the test: blank (read as `{}`), or not
    read as an object, JSON without a lossless value too (-0.0, 1e400, NaN), which `json.loads`
    and `JSON.parse` read as numbers."""
    return not arguments.strip() or not isinstance(parse_arguments(arguments), FrozenMap)


def _required_key_falsy(config: LoopConfig, name: object, arguments: object) -> bool:
    """Whether `arguments` give a key the tool `name` requires a value a loop testing the value
    finds missing (`null`, `false`, `0`, `""`): the key is there (EXE-2), so the input passes."""
    tool = config.tool(name) if isinstance(name, str) else None
    value = parse_arguments(arguments) if isinstance(arguments, str) else None
    if tool is None or not isinstance(value, FrozenMap):
        return False
    return any(key in value and value[key] in (None, False, 0, "") for key in tool.required_keys)


def _blank_block(block: object) -> bool:
    """A block of a reply whose text is whitespace alone, which ABORT-2 reads with EXE-2's
    blank (readers disagree on no-break spaces, U+0085, U+FEFF)."""
    text = getattr(block, "text", None)
    return isinstance(text, str) and bool(text) and not text.strip()


def _folds_to_a_tool(config: LoopConfig, name: str) -> bool:
    """Whether `name` is no registered tool's but is one in other letter case or in its NFKC
    form (fullwidth letters): its card must be the fallback, not that tool's presenter's."""
    if config.tool(name) is not None:
        return False
    folded = unicodedata.normalize("NFKC", name).casefold()
    return any(tool.name.casefold() == folded for tool in config.tools)


def _verdict_word(verdict: PreVerdict) -> str:
    """A PreToolUse verdict's decision, as an audit records one it gives no other word."""
    match verdict:
        case Deny():
            return "deny"
        case Ask():
            return "ask"
        case Allow():
            return "allow"
        case Pass():
            return "pass"
        case _:
            assert_never(verdict)


def _unacceptable(tool: ToolSpec | None, supplied: object) -> bool:
    """Whether a hook's input is one HOOK-6 refuses in effect: not an object, or (for a
    registered tool) missing a key it requires."""
    try:
        value = freeze(supplied)
    except NotJsonError:
        return True
    if tool is None:
        return not isinstance(value, FrozenMap)
    return tool.input_problem(value) is not None


def _abort_cause(reason: object) -> object:
    """The cause an aborted `turn/end` records (`reason.reason.kind`), or None."""
    inner = reason.get("reason") if isinstance(reason, dict) else None
    return inner.get("kind") if isinstance(inner, dict) else None


class Situations:
    """Follows one program; says which rules' situations each command created.

    `replaying`: what a replay asks of a program (`program_exercises`) and conform's coverage
    does not count, since a loop can break the rule there but the rule's own situation is
    narrower: an aborted turn of the user's cause (ABORT-3: a loop forgetting the cause shows
    there, one recording every abort as the user's keeps it right), a body started (SCHED-1: a
    loop starting none, the schedule letting it), a result committed (ORD-3: one committing
    none) and a completed reply with calls (STEP-4: one ending the step at once). A case conform
    saved from such a loop, replayed once the loop was fixed, read as cut by hand."""

    def __init__(self, *, replaying: bool = False) -> None:
        self._replaying = replaying
        self._abort_causes: set[str] = set()  # the causes of the turn's aborts, refused too
        self._decisions: dict[str, list[str]] = {}  # call id -> PreToolUse decisions
        self._supplied: dict[str, int] = {}  # call id -> inputs hooks supplied
        self._rewritten: set[str] = set()
        self._denied: set[str] = set()  # calls a PreToolUse hook denied
        # (rule, call id): a refused call whose DEC-1 or EXE-5 was counted, once sealed or
        # once its result was appended, whichever came first.
        self._refusals_counted: set[tuple[str, str]] = set()
        self._call_ids: set[str] = set()  # the ids of every call the model accepted
        # The ids of the calls of replies the model refused: a refused reply takes none, so a
        # later reply reusing one holds a new id, which a loop counting refused ids refuses
        # (the refusal then names EXE-1 where the model's names another rule).
        self._refused_ids: set[str] = set()
        # Whether the reply just refused reused such an id (EXE-1's situation, though refused
        # for another rule: `program_exercises`).
        self.refused_reusing_ids = False
        self._call_names: dict[str, str] = {}  # call id -> the tool it calls
        self._verdict: str | None = None  # the decision of the hook answer being fed
        self._calls_in_turn = False

    def feed(
        self,
        command: Command,
        before: LoopState,
        after: LoopState | None,
        observation: Observation,
    ) -> list[str]:
        """The rules whose situation `command` created (repeated once per situation)."""
        found: list[str] = ["PROTO-1"]
        if isinstance(command, ModelReplies):
            ids = [call.id for call in command.tool_calls]
            if len(ids) != len(set(ids)):
                found.append("EXE-1")
            if any(_not_an_object(call.arguments) for call in command.tool_calls):
                found.append("EXE-2")
        if isinstance(command, Abort):
            # A second abort, refused while the first one's calls drain, must leave the cause.
            self._abort_causes.add(command.cause)
        # The verdict decides, not the audit's word (a deny audited "block" or "error").
        self._verdict = _verdict_word(command.verdict) if isinstance(command, HookAnswers) else None
        self.refused_reusing_ids = False
        if not observation.accepted:
            found += ["MODEL-3", observation.refusal_rule or "MODEL-1"]
            if isinstance(command, ModelReplies):
                self.refused_reusing_ids = any(
                    call.id in self._refused_ids for call in command.tool_calls
                )
                if self.refused_reusing_ids:
                    found.append("EXE-1")
                self._refused_ids.update(call.id for call in command.tool_calls)
            return found
        found += self._from_command(command, before, after)
        for event in observation.events:
            found += self._from_event(event, before)
        if observation.executed:
            found += ["EXE-3"] * len(observation.executed)
        if observation.atomic:
            found.append("LOG-8")
        if isinstance(command, ModelReplies):
            found += _reply_situations(command, before, after)
            if observation.presented and any(
                _folds_to_a_tool(before.config, call.name) for call in command.tool_calls
            ):
                found.append("VIEW-2")  # no presenter looked up case-blind or by NFKC form
            # A later reply reusing an earlier call's id: its call is one of its own (EXE-1).
            # (Or an earlier refused reply's: its ids are free, and a loop counting them refuses
            # this reply.)
            found += [
                "EXE-1"
                for call in command.tool_calls
                if call.id in self._call_ids or call.id in self._refused_ids
            ]
            self._call_ids.update(call.id for call in command.tool_calls)
            self._call_names.update((call.id, call.name) for call in command.tool_calls)
        if after is not None and isinstance(after.phase, Dispatching):
            # A result committed while the batch stays open: in model order, not once all settle.
            found += ["ORD-3" for event in observation.events if event.get("type") == "tool/result"]
        found += _scheduling(after)
        found += _results_held_back(before, after)
        found += self._refusals_sealed(after)
        found += presentation_situations(observation.presented or ())
        if self._replaying:
            found += ["SCHED-1"] if observation.executed else []
            if any(event.get("type") == "tool/result" for event in observation.events):
                found.append("ORD-3")
            if isinstance(command, ModelReplies) and command.finish == "completed":
                found.append("STEP-4")
        return found

    def _from_command(
        self, command: Command, before: LoopState, after: LoopState | None
    ) -> list[str]:
        phase = before.phase
        found: list[str] = []
        match command:
            case ModelReplies() if command.finish != "completed":
                found.append("STEP-4" if command.finish == "max-tokens" else "ABORT-2")
                if command.finish != "max-tokens" and any(map(_blank_block, command.blocks)):
                    found.append("EXE-2")  # ABORT-2 keeps a block EXE-2 does not read blank
            case ModelReplies() if not command.tool_calls:
                # It ends the turn completed, or queued messages keep the turn going: a loop
                # ending it with another kind (a typo, "complete") breaks STEP-4 here.
                found.append("STEP-4")
            case ModelReplies() if any(
                isinstance(block, ReasoningBlock) or _blank_block(block) for block in command.blocks
            ):
                found.append("STEP-4")  # every block as delivered: reasoning, blank ones too
            case ToolFinishes():
                found.append("EXE-4")
                if command.post:
                    found.append("HOOK-5")
                if any(isinstance(v, PostBlock) for v in command.post):
                    found.append("DEC-3")
                body = (
                    command.outcome.contexts if isinstance(command.outcome, ToolSucceeded) else ()
                )
                hooks = [v.text for v in command.post if isinstance(v, PostContext)]
                if any(body) or any(hooks):
                    found += ["ADJ-1", "ADJ-4"]
                elif "" in body or "" in hooks:
                    # An empty context is no context (ADJ-4): nothing is queued, so ADJ-1 is not
                    # put to the test, but a loop that delivers it breaks ADJ-4.
                    found.append("ADJ-4")
            case SubmitUser() if not isinstance(phase, Idle):
                found += ["ADJ-1", "ADJ-4"]
                if isinstance(phase, Dispatching) and any(s.status == ASKING for s in phase.slots):
                    found.append("SCHED-2")  # the pending approval holds what was typed too
            case Abort():
                found.append("ABORT-1" if isinstance(phase, Dispatching) else "ABORT-2")
                if isinstance(phase, Dispatching) and any(s.status == ASKING for s in phase.slots):
                    found.append("ABORT-3")  # its cancelled approval precedes the call's result
                # swarm is generation's (Hypothesis): imported when a program counts, never
                # by `replay`, which imports this module and generates nothing.
                from loopspec.properties.stateful.swarm import (  # noqa: PLC0415
                    denied_call_passed_busy_slots,
                )

                if denied_call_passed_busy_slots(phase, before.config.max_parallel):
                    found.append("DEC-1")  # found denied, where a call waiting for a slot is not
            case Crash():
                found.append("LOG-8")
            case Recover():
                found.append("REC-2")
            case _:
                pass  # the other commands create their situations through their events
        return found

    def _from_event(self, event: dict[str, object], before: LoopState) -> list[str]:
        kind = str(event.get("type"))
        data = event.get("data")
        data = data if isinstance(data, dict) else {}
        found = list(SITUATIONS_BY_EVENT.get(kind, ("LOG-1",)))
        call_id = data.get("callId")
        if kind == "hook/result" and data.get("decision") == "error":
            found.append("HOOK-7")  # a fault, recorded: the verdict is its dialect's or closed
        match kind:
            case "turn/start":
                self._calls_in_turn = False
                self._abort_causes.clear()
            case "step/start":
                # Answers of a step's hooks name its calls alone (a reply cancelled while they
                # ran leaves its answers, and a later reply may reuse its ids).
                self._decisions.clear()
                self._supplied.clear()
            case "user/message" if not isinstance(before.phase, Idle):
                found.append("ADJ-4")  # delivered at a step boundary
            case "assistant/message" if data.get("interrupted"):
                found.append("ABORT-2")
            case "hook/invoked" if data.get("matcher") not in (None, "*"):
                # A matcher that must match the whole tool name, or "", which matches every
                # one (as a regular expression it matches none).
                found.append("HOOK-8")
            case "hook/result" if data.get("point") == "PreToolUse" and isinstance(call_id, str):
                found.append("HOOK-4")
                word = str(data.get("decision"))
                self._decisions.setdefault(call_id, []).append(self._verdict or word)
                if self._verdict is not None and word != self._verdict:
                    found.append("HOOK-2")  # merged by its verdict, whatever its audit's word
                if "updatedInput" in data:
                    self._supplied[call_id] = self._supplied.get(call_id, 0) + 1
                    tool = before.config.tool(self._call_names.get(call_id, ""))
                    if _unacceptable(tool, data["updatedInput"]):
                        found.append("HOOK-6")  # refused in effect, not judged once replaced
            case "tool/call" if isinstance(call_id, str):
                self._calls_in_turn = True
                # A later reply may reuse an earlier call's id: that call's denial or rewrite
                # is not this one's.
                self._denied.discard(call_id)
                self._refusals_counted -= {("DEC-1", call_id), ("EXE-5", call_id)}
                self._rewritten.discard(call_id)
                decisions = self._decisions.get(call_id, [])
                if (len(decisions) > 1 and set(decisions) != {"pass"}) or "error" in decisions:
                    # Answers merged: by rank, reasons of one rank joined; a fault's by its
                    # verdict, where its audit's word ranks nowhere.
                    found.append("HOOK-2")
                supplied = self._supplied.get(call_id, 0)
                if supplied > 1 or (supplied and len(decisions) > supplied):
                    # Inputs combined, or one beside an answer without one (a pass or an ask
                    # never erases it, a deny discards it).
                    found.append("HOOK-3")
                if "deny" in decisions:
                    self._denied.add(call_id)
                rewrite = data.get("rewrite")
                if isinstance(rewrite, dict):
                    self._rewritten.add(call_id)
                    found += ["RW-1", "RW-2"]
                    found += _rewrite_situations(
                        before.config, data, rewrite.get("originalArguments")
                    )
                elif _required_key_falsy(before.config, data.get("name"), data.get("arguments")):
                    found += ["EXE-2", "EXE-5"]
            case "approval/asked":
                if call_id in self._rewritten:
                    found.append("RW-4")
            case "tool/result":
                found += self._from_result(data)
            case "turn/end":
                if self._calls_in_turn:
                    found.append("ADJ-3")
                reason = data.get("reason")
                kind_of = reason.get("kind") if isinstance(reason, dict) else None
                if kind_of == "interrupted":
                    found.append("REC-1")
                elif kind_of == "aborted" and self._cause_shows(_abort_cause(reason)):
                    found.append("ABORT-3")
            case _:
                pass  # the event's own rules (above) are all it exercises
        return found

    def _cause_shows(self, cause: object) -> bool:
        """Whether an aborted turn recording `cause` shows ABORT-3 broken by a loop taking
        another. One recording every abort as the user's keeps a user abort right: only another
        cause shows it, or another cause an abort refused while the turn drained carried."""
        return self._replaying or cause != "user" or bool(self._abort_causes - {cause})

    def _from_result(self, data: dict[str, object]) -> list[str]:
        message = data.get("message")
        source = message.get("source") if isinstance(message, dict) else None
        call_id = source.get("callId") if isinstance(source, dict) else None
        error = data.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        block = content[0] if isinstance(content, list) and content else None
        found: list[str] = ["TEXT-1"] if isinstance(block, dict) and block.get("isError") else []
        if code == "UNKNOWN_TOOL" or (
            code == "INVALID_TOOL_INPUT" and self._first("EXE-5", call_id)
        ):
            found.append("EXE-5")
        elif code in ("ABORTED_BEFORE_DISPATCH", "ABORTED"):
            found.append("ABORT-1")
        elif code in ("TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED"):
            found.append("REC-1")
        refused = REWRITE_REFUSED_WORDS in json.dumps(message)
        if refused:
            found.append("HOOK-6")
        if (refused or call_id in self._denied) and self._first("DEC-1", call_id):
            found.append("DEC-1")  # its batch settled in the command that sealed it
        return found

    def _first(self, rule_id: str, call_id: object) -> bool:
        """Whether `rule_id` is counted for the refused call `call_id` for the first time."""
        key = (rule_id, str(call_id))
        if key in self._refusals_counted:
            return False
        self._refusals_counted.add(key)
        return True

    def _refusals_sealed(self, after: LoopState | None) -> list[str]:
        """DEC-1's situation, once for each call the model sealed as denied (by a hook, or
        refused for a rewrite its tool cannot take, HOOK-6), and EXE-5's for one sealed with
        invalid input, in a batch still open: it must never run, and its error result may wait
        behind an earlier call (ORD-3, SCHED-2), after the program's end. A batch settled in the
        command that sealed it is counted at its results."""
        if after is None or not isinstance(after.phase, Dispatching):
            return []
        rules = {DENY: "DEC-1", INVALID: "EXE-5"}
        return [
            rules[slot.decision]
            for slot in after.phase.slots
            if slot.decision in rules and self._first(rules[slot.decision], slot.call_id)
        ]


def presentation_situations(presented: tuple[dict[str, object], ...]) -> list[str]:
    """The presentation rules the model's own messages for a command exercise.

    Every message ACP-1; a permission request ACP-3; a presenter's card VIEW-2; a fallback (a
    generic card for a call no presenter renders, a result's raw content) VIEW-3; a title
    naming an absolute path (relative only inside the session cwd) VIEW-4; a terminal's output
    as fenced console text ACP-2.
    """
    found: list[str] = []
    for message in presented:
        found.append("ACP-1")
        params = message.get("params")
        if not isinstance(params, dict):
            continue
        if message.get("method") == "session/request_permission":
            found.append("ACP-3")
            continue
        card = params.get("update")
        if not isinstance(card, dict):
            continue
        text = json.dumps(card.get("content"))
        if card.get("sessionUpdate") == "tool_call":
            found.append("VIEW-3" if card.get("kind") == "other" else "VIEW-2")
            if card.get("kind") == "execute":
                found.append("ACP-2")  # a terminal only for a client that has terminals
        elif "```console" in text:
            found += ["ACP-2", "VIEW-2"]
        else:
            found.append("VIEW-2" if card.get("title") or "diff" in text else "VIEW-3")
        # A title built from an absolute path: relativized only when it lies inside the session
        # cwd. A relative path is shown as given either way (random programs draw both).
        if _titled_path(card).startswith("/"):
            found.append("VIEW-4")
    return found


def _titled_path(card: dict[str, object]) -> str:
    """The path a card's title names (its first location, else its first diff path), or ""."""
    locations, content = card.get("locations"), card.get("content")
    anchors = [
        *(locations if isinstance(locations, list) else []),
        *(
            item
            for item in (content if isinstance(content, list) else [])
            if isinstance(item, dict) and item.get("type") == "diff"
        ),
    ]
    path = anchors[0].get("path") if anchors and isinstance(anchors[0], dict) else None
    return path if isinstance(path, str) else ""


def _rewrite_situations(config: LoopConfig, call: dict[str, object], original: object) -> list[str]:
    """HOOK-3's situation for an input in effect that a key-by-key merge into the arguments
    changes (a key it drops, or gives `null`): it replaces them whole. HOOK-6's and EXE-5's for
    one giving a required key a value a loop testing values finds missing: it is acceptable."""
    found: list[str] = []
    arguments = call.get("arguments")
    given = parse_arguments(arguments) if isinstance(arguments, str) else None
    was = parse_arguments(original) if isinstance(original, str) else None
    merged_differs = (
        isinstance(given, FrozenMap)
        and isinstance(was, FrozenMap)
        and (None in given.values() or bool(set(was) - set(given)))
    )
    if merged_differs:
        found.append("HOOK-3")
    if _required_key_falsy(config, call.get("name"), arguments):
        found += ["HOOK-6", "EXE-5"]
    return found


def _reply_situations(reply: ModelReplies, before: LoopState, after: LoopState | None) -> list[str]:
    """RW-3's and HOOK-4's situation: a reply whose calls wait, unlogged, for their PreToolUse
    hooks (a loop logging it, or auditing a hook, before any hook answers breaks them). HOOK-8's:
    a call whose whole tool name a hook's matcher does not match (it may match a part:
    `bash|write` and `read`), so that hook must not run; a hook that does run is counted at its
    `hook/invoked`."""
    waits = after is not None and isinstance(after.phase, Rewriting)
    found = ["RW-3", "HOOK-4"] if waits else []
    hooks = [hook for hook in before.config.hooks if hook.matcher not in MATCH_ALL]
    for call in reply.tool_calls:
        missed = [hook for hook in hooks if not hook.matches(call.name)]
        found += ["HOOK-8"] * len(missed)
        # A PreToolUse hook that must not answer the call (HOOK-4: each matching hook answers).
        found += ["HOOK-4" for hook in missed if hook.point == PRE_TOOL_USE]
        if input_problem(call, before.config) and before.config.hooks_for(PRE_TOOL_USE, call.name):
            found.append("HOOK-4")  # a call with invalid input: its matching hooks get none
        # An empty matcher matches every name (as a regular expression, none).
        found += ["HOOK-8" for hook in before.config.hooks if hook.matcher == ""]
    return found


def _results_held_back(before: LoopState, after: LoopState | None) -> list[str]:
    """ORD-3's situation, once for each result a command made ready behind an earlier call
    still without one: a later call that finished first, or was denied, refused or aborted at
    the gate while an earlier one ran, waits for it (a loop committing it at once breaks ORD-3,
    not only one whose bodies finish out of order)."""
    if after is None or not isinstance(after.phase, Dispatching):
        return []
    phase = after.phase
    was_ready = (
        {slot.call_id for slot in before.phase.slots if slot.status == READY}
        if isinstance(before.phase, Dispatching)
        else set()
    )
    held = [
        slot
        for slot in phase.slots[phase.cursor + 1 :]
        if slot.status == READY and slot.call_id not in was_ready
    ]
    return ["ORD-3"] * len(held)


def _scheduling(after: LoopState | None) -> list[str]:
    """SCHED-1's situation: two bodies overlap, or a call waits because of what runs.
    SCHED-2's: a call waits for its approval answer while another call runs or a later one
    waits behind it."""
    if after is None or not isinstance(after.phase, Dispatching):
        return []
    slots = after.phase.slots
    running = sum(slot.status == RUNNING for slot in slots)
    gate = after.phase.gate
    held = running > 0 and gate < len(slots) and slots[gate].status == WAITING
    found = ["SCHED-1"] if running > 1 or held else []
    if held and slots[gate].decision == ASK:
        found.append("SCHED-2")  # its approval is asked only once it could start
    asking = [i for i, slot in enumerate(slots) if slot.status == ASKING]
    if asking and (running or any(s.status == WAITING for s in slots[asking[0] + 1 :])):
        found.append("SCHED-2")
    return found


def program_exercises(
    rule_id: str, config: LoopConfig, commands: Sequence[Command], *, presenting: bool
) -> bool:
    """Whether a command of `commands` the model accepts, run from `config`, creates the
    situation `rule_id` governs (`presenting`: the cards' situations count too, for a target
    declaring `presentation`): then a target that does what the model does with the program
    has shown that rule kept, whatever other commands both refused."""
    model = ModelTarget()
    model.presenting = presenting
    model.reset(config)
    situations = Situations(replaying=True)
    for command in commands:
        before = model.state
        assert before is not None  # reset above
        observed = model.apply(command)
        created = situations.feed(command, before, model.state, observed)
        # A command refused for the rule itself puts it to the test (a reply repeating a call
        # id, EXE-1): the case's bug is that its loop took it; any refused command MODEL-3
        # (a refusal changes nothing); and a reply refused for another rule reusing the ids of
        # a reply refused before it EXE-1 (ids a refused reply held are free: the case's loop
        # refused them as repeats).
        refused_for = (
            observed.refusal_rule,
            "MODEL-3",
            "EXE-1" if situations.refused_reusing_ids else None,
        )
        if rule_id in created and (observed.accepted or rule_id in refused_for):
            return True
    return False
