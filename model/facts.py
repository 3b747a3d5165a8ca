"""Facts: the few fields of an event that the log invariants read.

The invariants (`loopspec.model.invariants`) run over facts, not over full events, so the same
predicate
serves three callers: the stateful tests (facts from the model's or an implementation's events),
and the offline checker, which builds facts straight from parsed JSON without constructing and
deep-freezing every event — that is what keeps checking a log close to the cost of reading it.
`facts_of(event)` and `fact_from_wire(obj)` must agree; a property test holds them to it.
"""

from __future__ import annotations

from _collections_abc import Mapping  # collections.abc's, without collections (see `jsonvalue`)

from loopspec.model.json_text import integer_written_as_double, spelled

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, TypeGuard

    from loopspec.model.events import Event, SurfaceAppend, SurfaceReplace


class CallFact:
    """One tool-call block of an assistant message."""

    __slots__ = ("arguments", "id", "name")

    def __init__(self, call_id: str, name: str, arguments: str) -> None:
        self.id = call_id
        self.name = name
        self.arguments = arguments


class Fact:
    """What the invariants know about one event. Absent fields are None."""

    __slots__ = (
        "approval_id",
        "arguments",
        "call_id",
        "calls",
        "decision",
        "duration_ms",
        "error_code",
        "error_text",
        "exit_code",
        "handler_id",
        "interrupted",
        "is_error",
        "name",
        "original_arguments",
        "outcome",
        "point",
        "reason_kind",
        "rewrite_handlers",
        "seq",
        "sources",
        "step",
        "surface",
        "surface_end",
        "surface_start",
        "time",
        "turn",
        "type",
        "updated_input",
    )

    def __init__(self, event_type: str, seq: int) -> None:
        self.type = event_type
        self.seq = seq
        # Whole milliseconds; None when the event has none that reads as such (a compact row's
        # chunks, a float with a fraction): crash repair's closers are timed by it (REC-1).
        self.time: int | None = None
        self.turn: int | None = None
        self.step: int | None = None
        self.surface: str | None = None  # "append" | "replace" | None
        self.surface_start: int | None = None
        self.surface_end: int | None = None
        self.sources: tuple[int, ...] | None = None
        self.calls: tuple[CallFact, ...] | None = None
        self.interrupted = False
        self.call_id: str | None = None
        self.name: str | None = None
        self.arguments: str | None = None
        self.original_arguments: str | None = None
        self.rewrite_handlers: tuple[str, ...] | None = None
        self.is_error = False
        self.error_code: str | None = None
        # A failed result's words when it carries no error code and its first block is text:
        # what tells a refused rewrite (HOOK-6) from a failed body, for HOOK-5.
        self.error_text: str | None = None
        self.point: str | None = None
        self.handler_id: str | None = None
        self.decision: str | None = None
        self.exit_code: int | None = None
        self.duration_ms: float | None = None
        self.updated_input: object = None
        self.approval_id: str | None = None
        self.outcome: str | None = None
        self.reason_kind: str | None = None


def facts_of(event: Event) -> Fact:
    """The fact of a constructed event."""
    # The event model is imported on first use, not with this module: the offline checker
    # builds its facts from JSON (`fact_from_wire`), and `loopspec check` should not pay for
    # the model's event classes at start-up.
    from loopspec.model.events import (  # noqa: PLC0415
        ApprovalAsked,
        ApprovalDecided,
        AssistantMessageRecorded,
        HookInvoked,
        HookResulted,
        OpaqueEvent,
        StepEnded,
        StepStarted,
        ToolCallRecorded,
        ToolResultRecorded,
        TurnEnded,
        TurnStarted,
        UserMessageRecorded,
    )
    from loopspec.model.messages import TextBlock  # noqa: PLC0415

    fact = Fact(event.type if isinstance(event, OpaqueEvent) else event.TYPE, event.seq)
    fact.time = event.time
    match event:
        case TurnStarted():
            fact.turn = event.turn
        case TurnEnded():
            fact.turn = event.turn
            fact.reason_kind = event.reason_kind
        case StepStarted() | StepEnded():
            fact.turn, fact.step = event.turn, event.step
        case UserMessageRecorded():
            _surface(fact, event.surface, event.sources)
        case AssistantMessageRecorded():
            _surface(fact, event.surface, event.sources)
            fact.turn, fact.step = event.turn, event.step
            fact.interrupted = event.interrupted
            fact.calls = tuple(
                CallFact(c.id, c.name, c.arguments) for c in event.message.tool_calls
            )
        case ToolCallRecorded():
            fact.turn, fact.step = event.turn, event.step
            fact.call_id, fact.name, fact.arguments = event.call_id, event.name, event.arguments
            if event.rewrite is not None:
                fact.original_arguments = event.rewrite.original_arguments
                fact.rewrite_handlers = event.rewrite.handler_ids
        case ToolResultRecorded():
            _surface(fact, event.surface, event.sources)
            fact.turn, fact.step = event.turn, event.step
            fact.call_id = event.call_id
            fact.is_error = event.message.result.failed
            fact.error_code = event.error_code
            if fact.is_error and fact.error_code is None:
                first = event.message.result.content[:1]
                if first and isinstance(first[0], TextBlock):
                    fact.error_text = first[0].text
        case HookInvoked():
            fact.turn, fact.point, fact.handler_id = event.turn, event.point, event.handler_id
            fact.call_id = event.call_id
        case HookResulted():
            fact.turn, fact.point, fact.handler_id = event.turn, event.point, event.handler_id
            fact.call_id, fact.decision = event.call_id, event.decision
            fact.exit_code = event.exit_code
            fact.duration_ms = event.duration_ms
            from loopspec.model.jsonvalue import thaw  # noqa: PLC0415 (the event model's values)

            fact.updated_input = thaw(event.updated_input)
        case ApprovalAsked():
            fact.approval_id, fact.call_id = event.id, event.call_id
            fact.name, fact.arguments = event.tool_name, event.arguments
        case ApprovalDecided():
            fact.approval_id, fact.outcome = event.id, event.outcome
        case OpaqueEvent():
            pass
    return fact


def _surface(
    fact: Fact, surface: SurfaceAppend | SurfaceReplace, sources: tuple[int, ...] | None
) -> None:
    from loopspec.model.events import SurfaceReplace  # noqa: PLC0415 -- as in `facts_of`

    if isinstance(surface, SurfaceReplace):
        fact.surface, fact.surface_start, fact.surface_end = "replace", surface.start, surface.end
    else:
        fact.surface = "append"
    fact.sources = sources


_SURFACE_TYPES = frozenset({"user/message", "assistant/message", "tool/result"})
_INFINITY = float("inf")


SECONDS_SINCE_EPOCH = range(10**9, 10**10)
"""Event times that read as seconds since the Unix epoch from 2001 to 2286, and as the
milliseconds LOG-4 asks from January to April 1970: a clock read in seconds
(`int(time.time())`), which conform blames and check notes (`logcheck.checker`)."""

# The invariants keep surface seqs as signed 64-bit integers; no real log comes near the bound.
SEQ_BOUND = 1 << 63


def time_below_zero(time: float) -> str:
    """The words, after the event's name, for a whole `time` below 0 (LOG-4): dsh writes the
    time its clock reads, never before the Unix epoch (the header's createdAt neither, LOG-5)."""
    return (
        f"time {time!r} is below 0: an event's time is milliseconds since the Unix epoch, "
        "0 or more, as the header's createdAt"
    )


_SEQ_LOW = -SEQ_BOUND  # once, not negated again for every event


HOOK_DIALECTS = frozenset({"claude-code", "codex"})
"""The hook dialects a hook/invoked may name (HOOK-1)."""

# Every word a hook/result records for what the hook said: the verdicts (pass, allow, ask,
# deny), dsh's parsed answers (approve and block, the legacy top-level words; stop for
# `continue: false`), Claude Code's defer, and error for a hook that failed without a decision.
FAILED_DECISION = "error"
"""The word a hook/result records for a hook that failed without a decision (HOOK-1): the same
word as `impl.recorded_faults.FAILED_WORD`, here so that `check` need not import `impl` for it."""
HOOK_DECISION_WORDS = (
    "pass",
    "allow",
    "ask",
    "deny",
    "approve",
    "block",
    "defer",
    "stop",
    FAILED_DECISION,
)
HOOK_DECISIONS = frozenset(HOOK_DECISION_WORDS)
"""The decision words a hook/result may record (HOOK-1): a typo ("dney") is refused."""

# What the PreToolUse words mean to the invariants (and so which words an audit may record for
# a verdict, `commands.HookAnswers`). Asking: Claude Code's `defer` counts as `ask` (HOOK-2), so
# a deferred call also runs only after an allowed-once answer (DEC-2). Supplying: an answer with
# one of these words that carries `updatedInput` supplies an input (RW-2); other words apply
# none. Denying: a deny discards every rewrite of the call (HOOK-3).
# A hook's stdout is read only when it exits 0; exit code 2 is the blocking exit, its stderr
# the reason (Claude Code and Codex alike; dsh runs hooks as Claude Code does): the model
# refuses an answer given so that does not block (`commands.exits_2`), and the invariants a
# log whose audit records it with a word that does not.
BLOCKING_EXIT_CODE = 2
ASKING_DECISIONS = frozenset({"ask", "defer"})
SUPPLYING_DECISIONS = frozenset({"allow", "ask"})
DENYING_DECISIONS = frozenset({"deny", "block"})
# A PostToolUse hook's words: a blocking one (DENYING_DECISIONS) goes with a block, and a block
# makes the result an error (DEC-3); an asking one never fits, as nothing is left to approve
# once the body ran (dsh records the word a hook printed; its bridge reads deny and block as a
# block, any other word as none).
POST_PASSING_DECISIONS = frozenset({"pass", "allow", "approve", "stop"})


def unknown_decision(word: str) -> str:
    """Why `word` is no hook decision, with the nearest word when one is close."""
    # Imported here: only a wrong word needs it, and a clean log's check starts without it.
    from loopspec.model.near_miss import did_you_mean  # noqa: PLC0415

    hint = did_you_mean(word, sorted(HOOK_DECISIONS), spell=spelled)
    return (
        f"hook decision must be one of {', '.join(HOOK_DECISION_WORDS)}, got {spelled(word)}{hint}"
    )


def surface_op_missing(kind: str) -> str:
    """Why a surface event without `surfaceOp` is refused, and what to write (LOG-2)."""
    return (
        f'{kind} must carry surfaceOp: "append" when its message joins the end of the model\'s '
        'history, {"op": "replace", "start": S, "end": E} when it replaces nodes S..E (LOG-7)'
    )


class FactError(ValueError):
    """A JSON object that cannot even yield a fact. `rule_id` is the rule the checker reports
    it under: LOG-4 (a malformed event), unless a rule of its own says what the value must be
    (a surface event's surfaceOp and sourceEventSeqs, LOG-2; a turn/end reason, TURN-5; a
    tool result's one block and the call it names, and a message's role, LOG-6; a hook's
    point, handler, dialect, decision and duration, HOOK-1; a rewrite sidecar's hooks, RW-2)."""

    def __init__(self, message: str, rule_id: str = "LOG-4") -> None:
        super().__init__(message)
        self.rule_id = rule_id


def member_problem(holder: Mapping[str, Any], key: str, where: str, kind: str) -> str:
    """Why member `key` of `holder` (at `where`, e.g. `data`) cannot be read as `kind`.

    Every reader of a required member words it here, so an absent one says it is missing
    rather than being taken for one of the wrong type."""
    if key not in holder:
        # An object emptied whole (`"data": {}`, a hand's edit) is named as such: its first
        # member missing says less.
        emptied = f"{where} is an empty object, so " if not holder else ""
        misnamed = written_otherwise(holder, key)
        hint = f" ({misnamed})" if misnamed else ""
        return f"{emptied}{where}.{key} is missing; it must be {kind}{hint}"
    why = integer_written_as_double(holder[key]) if kind == "an integer" else ""
    return f"{where}.{key} must be {kind}{why}"


def written_otherwise(holder: Mapping[str, Any], *keys: str) -> str:
    """Words naming the members of `holder` that spell `keys` otherwise (`Seq`, `call_id` for
    `callId`: a serializer's default names, Go's struct fields say), for an error saying one
    of them is missing: `written Seq: member names are exact, write seq`; "" when none
    does."""
    found = [
        (written, key)
        for key in keys
        if key not in holder
        for written in holder
        if type(written) is str and _loose(written) == _loose(key)
    ]
    if not found:
        return ""
    written = ", ".join(written for written, _key in found)
    meant = ", ".join(key for _written, key in found)
    return f"written {written}: member names are exact, write {meant}"


def _loose(name: str) -> str:
    """`name` with case, `_` and `-` set aside."""
    return name.replace("_", "").replace("-", "").lower()


def _is_map(value: object) -> TypeGuard[Mapping[str, Any]]:
    # `isinstance` against the `Mapping` ABC is slow; parsed JSON objects are plain dicts.
    return type(value) is dict or isinstance(value, Mapping)


TEXT_BLOCKS = ("text", "reasoning")
"""The content blocks whose one member a rule-free reader checks is a string `text`."""
NOT_IN_RESULTS = ("reasoning", "tool-call", "tool-result")
"""The blocks a tool result's content may not nest (only text and opaque blocks, LOG-6)."""


def message_plain(message: Any, content: Iterable[Any], replied: bool) -> bool:
    """Whether the model's reader takes a message's members beside its role without a second
    look: its `id` absent or a string, its `source` an object, and each block of its `content`
    an object with a string type, a text or reasoning block's text a string. `message` is one
    its reader has found to be an object. The tool-call blocks of a reply (`replied`) are read
    with its calls; one elsewhere, and a tool-result block outside a tool result's one, are
    left to the model's reader (`read_message`)."""
    source = message.get("source")
    # (The type test first: a parsed object is a dict, and a call more per message costs more.)
    if type(message.get("id", "")) is not str or (type(source) is not dict and not _is_map(source)):
        return False
    for block in content:
        if type(block) is not dict and not _is_map(block):
            return False
        kind = block.get("type")
        if type(kind) is not str:
            return False
        if kind in TEXT_BLOCKS:
            if type(block.get("text")) is not str:
                return False
        elif kind == "tool-result" or (kind == "tool-call" and not replied):
            return False
    return True


def result_content_plain(block: Mapping[str, Any]) -> bool:
    """Whether a tool-result block's own `content` is an array of blocks the model's reader
    takes: objects with a string type, text ones with a string text, none of the kinds a
    result may not nest."""
    content = block.get("content")
    if type(content) is not list:
        return False
    for nested in content:
        if type(nested) is not dict and not _is_map(nested):
            return False
        kind = nested.get("type")
        if type(kind) is not str or kind in NOT_IN_RESULTS:
            return False
        if kind == "text" and type(nested.get("text")) is not str:
            return False
    return True


def _envelope_fault(kind: object, seq: object) -> str:
    """What is wrong with an event's type or seq: each needs its JSON type, and a seq written
    as a string of digits (a hand's edit, or a writer's template) is named with its number."""
    if type(kind) is not str or not kind:
        return "an event needs a non-empty string type and an integer seq"
    if seq is None:
        return "seq is missing; it must be an integer"
    hint = ""
    if type(seq) is str and seq.isdigit() and seq.isascii():
        from loopspec.model.near_miss import offered  # noqa: PLC0415 (a hand's edit alone)

        hint = offered(seq)
    return f"seq must be an integer, not {spelled(seq)}{hint}"


def fact_from_wire(obj: Mapping[str, Any]) -> Fact:
    """The fact of a parsed JSON event object, without building the event.

    Raises `FactError` for shapes the rules cannot read (wrong types, missing fields).
    """
    kind = obj.get("type")
    seq = obj.get("seq")
    if type(kind) is not str or type(seq) is not int or not kind:
        raise FactError(_envelope_fault(kind, seq))
    if not _SEQ_LOW <= seq < SEQ_BOUND:
        raise FactError(f"seq {seq} is out of range")
    fact = Fact(kind, seq)
    time = obj.get("time")
    if type(time) is int:
        fact.time = time
    elif type(time) is float and time.is_integer():
        fact.time = int(time)  # whole milliseconds written as a float, as the model reads them
    if kind not in _SURFACE_TYPES and ("surfaceOp" in obj or "sourceEventSeqs" in obj):
        fact.surface = "forbidden"
    reader = (_READERS or _readers()).get(kind)
    if reader is not None:
        data = obj.get("data")
        if type(data) is not dict and not isinstance(data, Mapping):
            raise FactError("data must be an object")
        reader(fact, obj, data)
    return fact


# The optional members of `data` that section 10's catalogue types and the readers above read for
# nothing else: one of another JSON type makes the event unreadable (LOG-4), as a wrong required
# member does. Null reads as absent for an object, and is refused for a string, an integer or a
# boolean (as the model's reader does). tests/test_check_optional_members.py holds this table to
# the wire types (`log_layout.EVENT_LAYOUTS`), which check does not import.
OPTIONAL_MEMBERS: dict[str, tuple[tuple[str, type, str], ...]] = {
    "assistant/message": (("usage", dict, "an object"), ("interrupted", bool, "a boolean")),
    "tool/result": (("error", dict, "an object"),),
    "hook/invoked": (("matcher", str, "a string"),),
    "hook/result": (("exitCode", int, "an integer"), ("stderrSummary", str, "a string")),
    "approval/asked": (("reason", str, "a string"),),
}


def optional_members_typed(kind: str, data: Mapping[str, Any]) -> bool:
    """Whether each of `OPTIONAL_MEMBERS[kind]` is absent or of its JSON type in `data` (an
    object also null)."""
    for key, json_type, _kind_words in OPTIONAL_MEMBERS.get(kind, ()):
        # `_absent_or_of_type` inlined for the common case: the judges ask it of clean events.
        value = data.get(key, _ABSENT)
        if (
            value is not _ABSENT
            and type(value) is not json_type
            and not (json_type is dict and (value is None or _is_map(value)))
        ):
            return False
    return True


_ABSENT = object()  # a member left out, told apart from one written null


def source_names_another_call(cited: object, named: object) -> str:
    """LOG-6's words for a tool result whose source names another call than its block cites,
    or none (the model's reader and check say the same)."""
    said = "no call" if named is None else spelled(named)
    return f"tool result block cites {spelled(cited)} but its source names {said}"


def dialect_problem(dialect: str) -> str:
    """What is wrong with a hook/invoked's `dialect`, not one of `HOOK_DIALECTS` (HOOK-1): the
    words of check's reader and of the model's event alike."""
    dialects = ", ".join(map(spelled, sorted(HOOK_DIALECTS)))
    return (
        f"hook dialect must be one of {dialects}, got {spelled(dialect)}: the protocol the "
        "hook's answers follow (a harness's own protocol writes the closer of the two)"
    )


def hook_duration_valid(duration: object) -> bool:
    """Whether a hook/result's durationMs keeps HOOK-1: a finite number, not negative."""
    if type(duration) is int or type(duration) is float:  # not a bool
        return 0 <= duration < _INFINITY  # False for NaN too
    return False


READ_TYPES = frozenset(
    {
        *("turn/start", "turn/end", "step/start", "step/end", "assistant/chunk"),
        *("user/message", "assistant/message", "tool/call", "tool/result"),
        *("hook/invoked", "hook/result", "approval/asked", "approval/decided"),
    }
)
"""The event types whose data the rules read; of any other type they read only seq and place.
Written out, not read from `fact_readers.CORE_READERS` (a test holds them to it): check reads
a clean log without the readers."""

_READERS: dict[str, Callable[[Fact, Mapping[str, Any], Mapping[str, Any]], None]] = {}
"""`fact_readers.CORE_READERS`, once `fact_from_wire` has read a fact (`_readers`)."""


def _readers() -> dict[str, Callable[[Fact, Mapping[str, Any], Mapping[str, Any]], None]]:
    """The reader of each type's data, imported at the first fact read from its JSON: the
    clean-event judges of `loopspec check` read a clean dsh log without them, and check starts
    without their module (a hundredth of the interpreter's start, tests/test_check_startup.py)."""
    from loopspec.model.fact_readers import CORE_READERS  # noqa: PLC0415 (see above)

    _READERS.update(CORE_READERS)
    return _READERS
