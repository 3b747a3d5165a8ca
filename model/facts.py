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

from loopspec.model.jsonvalue import integer_written_as_double, spelled, thaw

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, NoReturn, TypeGuard

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


# The invariants keep surface seqs as signed 64-bit integers; no real log comes near the bound.
SEQ_BOUND = 1 << 63
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
    import difflib  # noqa: PLC0415 -- only for a wrong word: check starts without it

    near = difflib.get_close_matches(word, sorted(HOOK_DECISIONS), n=1)
    hint = f" (did you mean {spelled(near[0])}?)" if near else ""
    return (
        f"hook decision must be one of {', '.join(HOOK_DECISION_WORDS)}, got {spelled(word)}{hint}"
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
        return f"{where}.{key} is missing; it must be {kind}"
    why = integer_written_as_double(holder[key]) if kind == "an integer" else ""
    return f"{where}.{key} must be {kind}{why}"


def _int(data: Mapping[str, Any], key: str, where: str = "data") -> int:
    value = data.get(key)
    if type(value) is not int:
        raise FactError(member_problem(data, key, where, "an integer"))
    return value


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    # Absent, or a string: the model's reader refuses null there (only an optional object may
    # be null), as check must, or `callId: null` reads as no call (DEC-2 blamed for LOG-4).
    value = data.get(key)
    if type(value) is not str and (value is not None or key in data):
        raise FactError(f"data.{key} must be a string")
    return value


def _str(data: Mapping[str, Any], key: str, where: str = "data") -> str:
    value = data.get(key)
    if type(value) is not str:
        raise FactError(member_problem(data, key, where, "a string"))
    return value


def _empty(where: str, key: str) -> NoReturn:
    """LOG-4: a call's id and tool name, a result's call id and an approval's id and outcome
    are non-empty strings, as the model's reader asks (providers pair a result by the id; an
    empty one pairs nothing)."""
    raise FactError(f"{where}.{key} must be a non-empty string")


def _no_strs(data: Mapping[str, Any], keys: tuple[str, ...], where: str) -> NoReturn:
    """Raise for the first of `keys` that is not a string (one is not)."""
    for key in keys:
        _str(data, key, where)
    raise AssertionError("one of the fields is not a string")


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
    if type(message.get("id", "")) is not str or not _is_map(message.get("source")):
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


def read_message(event_type: str, message: object, where: str) -> None:
    """Read a message that is not plain (`message_plain`, `result_content_plain`) with the
    model's own reader, the one statement of its shape: raise `FactError` with its words and
    rule when it refuses it. (Imported here, on a line that needs it: check reads a clean log
    without the event model.)"""
    from loopspec.model.errors import LoopSpecError  # noqa: PLC0415 -- see above
    from loopspec.model.wire import (  # noqa: PLC0415
        assistant_message_from_wire,
        tool_result_message_from_wire,
        user_message_from_wire,
    )

    readers = {
        "user/message": user_message_from_wire,
        "assistant/message": assistant_message_from_wire,
        "tool/result": tool_result_message_from_wire,
    }
    try:
        readers[event_type](message, where)
    except LoopSpecError as error:
        raise FactError(error.message, error.rule_id) from None


def fact_from_wire(obj: Mapping[str, Any]) -> Fact:
    """The fact of a parsed JSON event object, without building the event.

    Raises `FactError` for shapes the rules cannot read (wrong types, missing fields).
    """
    kind = obj.get("type")
    seq = obj.get("seq")
    if type(kind) is not str or type(seq) is not int or not kind:
        raise FactError("an event needs a non-empty string type and an integer seq")
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
    reader = _CORE_READERS.get(kind)
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


def _absent_or_of_type(value: object, json_type: type) -> bool:
    if value is _ABSENT or type(value) is json_type:
        return True
    return json_type is dict and (value is None or _is_map(value))


def _optional_members_read(kind: str, data: Mapping[str, Any]) -> None:
    if not optional_members_typed(kind, data):
        _refuse_optional_member(kind, data)


def _refuse_optional_member(kind: str, data: Mapping[str, Any]) -> NoReturn:
    """Raise naming the first of `OPTIONAL_MEMBERS[kind]` not of its type (one is not)."""
    for key, json_type, kind_words in OPTIONAL_MEMBERS[kind]:
        if not _absent_or_of_type(data.get(key, _ABSENT), json_type):
            raise FactError(member_problem(data, key, "data", kind_words))
    raise AssertionError("every optional member is of its type")


def _wire_surface(fact: Fact, obj: Mapping[str, Any]) -> None:
    op = obj.get("surfaceOp")
    if op == "append":
        fact.surface = "append"
    elif _is_map(op) and op.get("op") == "replace":
        fact.surface = "replace"
        start, end = _int(op, "start", "surfaceOp"), _int(op, "end", "surfaceOp")
        fact.surface_start, fact.surface_end = start, end
    elif op is not None:
        shapes = '"append" or {"op": "replace", "start": <seq>, "end": <seq>}'
        raise FactError(f"unknown surfaceOp {spelled(op)}: it is {shapes}", "LOG-2")
    sources = obj.get("sourceEventSeqs")
    if sources is not None:
        if not isinstance(sources, list):
            raise FactError("sourceEventSeqs must be an array of integers", "LOG-2")
        for source in sources:
            if type(source) is not int:
                raise FactError("sourceEventSeqs must be an array of integers", "LOG-2")
        fact.sources = tuple(sources)


def _numbered_from_one(data: Mapping[str, Any], key: str) -> NoReturn:
    """Refuse a turn or step numbered below 1, as the model's reader does (`events._counter`):
    TURN-1 numbers turns from 1, STEP-1 a turn's steps."""
    rule = "STEP-1" if key == "step" else "TURN-1"
    raise FactError(f"data.{key} must be an integer >= 1, got {data[key]}", rule)


def _read_turn(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    fact.turn = _int(data, "turn")
    if fact.turn < 1:
        _numbered_from_one(data, "turn")
    reason = data.get("reason")
    if fact.type == "turn/end":
        # A kind names why the turn ended: the empty string names nothing (`TurnEnded`).
        if not _is_map(reason) or type(reason.get("kind")) is not str or not reason["kind"]:
            raise FactError("turn/end needs a reason with a non-empty string kind", "TURN-5")
        fact.reason_kind = reason["kind"]


def _read_step(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    # `_int` inlined for the common case: chunks make up most of a real log.
    turn: Any = data.get("turn")  # compared only once known to be an int
    step: Any = data.get("step")
    if type(turn) is not int or type(step) is not int or turn < 1 or step < 1:
        _int(data, "turn")  # raises, naming the field that is wrong
        _int(data, "step")
        _numbered_from_one(data, "turn" if turn < 1 else "step")
    fact.turn, fact.step = turn, step


def _read_user(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    _wire_surface(fact, obj)
    _role_read(data, "user", "data")
    # The message's members section 10 requires, though no rule reads them (LOG-4).
    if not isinstance(data.get("content"), list):
        raise FactError(member_problem(data, "content", "data", "an array"))
    if not _is_map(data.get("source")):
        raise FactError(member_problem(data, "source", "data", "an object"))
    if not message_plain(data, data["content"], False):
        read_message(fact.type, data, "user/message.data")


def _read_assistant(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    _wire_surface(fact, obj)
    _read_step(fact, obj, data)
    fact.interrupted = data.get("interrupted") is True
    if not fact.interrupted and "interrupted" in data:
        # A flag, as the model's reader takes it: a reply not interrupted leaves it out.
        raise FactError("data.interrupted may only be true")
    message = data.get("message")
    content = message.get("content") if _is_map(message) else None
    if not isinstance(content, list):
        raise FactError(_no_content(message, '[{"type": "text", "text": ...}]'))
    _role_read(message, "assistant", "data.message")
    calls = []
    for block in content:
        # `_is_map` and `_str` inlined for the common case: a reply has a block per text and
        # per call, and replies are among the most frequent events that carry data.
        if (type(block) is dict or _is_map(block)) and block.get("type") == "tool-call":
            call_id, name, arguments = block.get("id"), block.get("name"), block.get("arguments")
            if type(call_id) is not str or type(name) is not str or type(arguments) is not str:
                _no_strs(block, ("id", "name", "arguments"), "data.message.content[]")
            if not call_id or not name:
                _empty("data.message.content[]", "id" if not call_id else "name")
            calls.append(CallFact(call_id, name, arguments))
    fact.calls = tuple(calls)
    if not message_plain(message, content, True):
        read_message(fact.type, message, "assistant/message.data.message")
    _optional_members_read(fact.type, data)


_ONE_RESULT_BLOCK = (
    '[{"type": "tool-result", "toolCallId": ..., "content": [{"type": "text", "text": ...}], '
    '"isError": ...}]'
)


def _no_content(message: object, shape: str) -> str:
    """Why a message's content cannot be read, and, for a string (the Anthropic API's
    shorthand), the `shape` to write instead: it said "needs message.content" of both."""
    if not _is_map(message):
        return "data.message must be an object {role, content, ...}"
    if isinstance(message.get("content"), str):
        return (
            "data.message.content must be an array of content blocks, not a string: write it "
            f"as {shape}"
        )
    return member_problem(message, "content", "data.message", "an array of content blocks")


def _read_call(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    _read_step(fact, obj, data)
    # `_str` inlined for the common case, as in `_read_step`.
    call_id, name, arguments = data.get("callId"), data.get("name"), data.get("arguments")
    if type(call_id) is not str or type(name) is not str or type(arguments) is not str:
        _no_strs(data, ("callId", "name", "arguments"), "data")
    if not call_id or not name:
        _empty("data", "callId" if not call_id else "name")
    fact.call_id, fact.name, fact.arguments = call_id, name, arguments
    # RW-2 says what a sidecar is, as the model's reader says (`log_layout.FIELD_RULE`): one
    # it cannot read, null too, is refused under that rule.
    rewrite = data.get("rewrite", _ABSENT)
    if rewrite is not _ABSENT:
        if not _is_map(rewrite):
            raise FactError("data.rewrite must be an object", "RW-2")
        # The model's reader's order: the original arguments, then the hooks.
        original = _str(rewrite, "originalArguments", "data.rewrite")
        handlers = rewrite.get("handlerIds")
        if not isinstance(handlers, list) or any(type(h) is not str for h in handlers):
            kind = "an array of strings"
            raise FactError(member_problem(rewrite, "handlerIds", "data.rewrite", kind), "RW-2")
        # A sidecar that names no hook, or the empty name, is read: it breaks RW-2, which
        # `invariants.rewrite_traced_to_hooks` says, and the log is read on.
        fact.original_arguments = original
        fact.rewrite_handlers = tuple(handlers)


def _read_result(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    _wire_surface(fact, obj)
    _read_step(fact, obj, data)
    message = data.get("message")
    # `_is_map` inlined for the common case (and `_str` below), as in `_read_assistant`.
    content = message.get("content") if type(message) is dict or _is_map(message) else None
    if not isinstance(content, list):
        raise FactError(_no_content(message, _ONE_RESULT_BLOCK))
    block = content[0] if len(content) == 1 else None
    if not _is_map(block) or block.get("type") != "tool-result":
        try:
            read_message(fact.type, message, "tool/result.data.message")
        except FactError as refused:
            # A block its reader refuses as malformed (LOG-4: no block at all, or a text block
            # without its text), which the model's reader says before what the content holds.
            if refused.rule_id != "LOG-6":
                raise
        raise FactError(_not_one_result_block(content), "LOG-6")
    _role_read(message, "user", "data.message")
    call_id = block.get("toolCallId")
    fact.call_id = (
        call_id if type(call_id) is str else _str(block, "toolCallId", "data.message.content[0]")
    )
    if not call_id:  # before its source, as the model's reader builds the block first
        _empty("data.message.content[0]", "toolCallId")
    source = message.get("source") if _is_map(message) else None
    if not _is_map(source):
        what = "is missing; it must be" if source is None else "must be"
        raise FactError(f"data.message.source {what} an object")
    if source.get("callId") != call_id:  # a source naming no call names another (LOG-6)
        raise FactError(source_names_another_call(call_id, source.get("callId")), "LOG-6")
    flag = block.get("isError")
    if flag is not None and type(flag) is not bool:
        # Read as not an error, `"true"` would blame a denial on DEC-1 (the model refuses it).
        raise FactError(member_problem(block, "isError", "data.message.content[0]", "a boolean"))
    fact.is_error = flag is True
    if not (message_plain(message, (), False) and result_content_plain(block)):
        read_message(fact.type, message, "tool/result.data.message")
    error = data.get("error")
    if error is not None:
        if not _is_map(error):
            _refuse_optional_member(fact.type, data)
        if type(error.get("code")) is str:
            fact.error_code = error["code"]
    if fact.is_error and fact.error_code is None:
        first = block["content"][:1]
        if first and first[0].get("type") == "text":
            fact.error_text = first[0]["text"]


def source_names_another_call(cited: object, named: object) -> str:
    """LOG-6's words for a tool result whose source names another call than its block cites,
    or none (the model's reader and check say the same)."""
    said = "no call" if named is None else spelled(named)
    return f"tool result block cites {spelled(cited)} but its source names {said}"


def _role_read(message: object, role: str, where: str) -> None:
    """LOG-6: a message's `role`, when written, is the one its event type says (the model's
    reader refuses another; a message without one gains it). `message` is one its reader has
    already found to be an object."""
    written = message.get("role", role) if _is_map(message) else role
    if written != role:
        raise FactError(f"{where}.role must be {spelled(role)}, not {spelled(written)}", "LOG-6")


def _not_one_result_block(content: list[Any]) -> str:
    """Why a tool/result message's `content` is not exactly one tool-result block."""
    kinds = ", ".join(repr(block.get("type") if _is_map(block) else block) for block in content)
    return (
        "tool/result message content must be exactly one tool-result block; "
        f"it holds {kinds or 'none'}"
    )


def _read_hook(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    # The checks of `_int`, `_str` and `_opt_str` inlined for the common case, as in `_read_step`.
    turn: Any = data.get("turn")  # compared only once known to be an int
    point, handler = data.get("point"), data.get("handlerId")
    call_id = data.get("callId")
    if (
        type(turn) is not int
        or type(point) is not str
        or type(handler) is not str
        or (type(call_id) is not str and (call_id is not None or "callId" in data))
    ):
        _int(data, "turn")  # raises, naming the first field that is wrong
        _str(data, "point")
        _str(data, "handlerId")
        _opt_str(data, "callId")
    if turn < 1:
        _numbered_from_one(data, "turn")
    if not point or not handler:
        # Pairs are keyed by (turn, point, handlerId): an empty one names no hook (HOOK-1).
        raise FactError("a hook's point and handlerId must not be empty", "HOOK-1")
    fact.turn, fact.point, fact.handler_id, fact.call_id = turn, point, handler, call_id
    if fact.type == "hook/result":
        fact.decision = _str(data, "decision")
        if fact.decision not in HOOK_DECISIONS:
            raise FactError(unknown_decision(fact.decision), "HOOK-1")
        fact.updated_input = data.get("updatedInput")
        duration = data.get("durationMs")
        if type(duration) is not int and type(duration) is not float:  # not a bool
            raise FactError(member_problem(data, "durationMs", "data", "a number"))
        # A number out of HOOK-1's range is read: `hook_audit_paired_in_turn` blames it, and
        # the log is read on (nothing else reads how long a hook took).
        fact.duration_ms = duration
    else:
        dialect = data.get("dialect")
        # A string first: a list or an object is not hashable, so no set can be asked of it.
        if type(dialect) is not str or dialect not in HOOK_DIALECTS:
            if type(dialect) is not str:
                raise FactError(member_problem(data, "dialect", "data", "a string"))
            raise FactError(dialect_problem(dialect), "HOOK-1")
    _optional_members_read(fact.type, data)
    if fact.type == "hook/result":
        fact.exit_code = data.get("exitCode")  # an integer or absent: read just above


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


def _read_approval(fact: Fact, obj: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    fact.approval_id = _str(data, "id")
    if not fact.approval_id:  # the model's reader refuses it: a request named "" pairs nothing
        _empty("data", "id")
    if fact.type == "approval/asked":
        fact.call_id = _opt_str(data, "callId")
        fact.name = _str(data, "toolName")
        fact.arguments = _opt_str(data, "arguments")
        _optional_members_read(fact.type, data)
    else:
        fact.outcome = _str(data, "outcome")
        if not fact.outcome:
            _empty("data", "outcome")


_CORE_READERS = {
    "turn/start": _read_turn,
    "turn/end": _read_turn,
    "step/start": _read_step,
    "step/end": _read_step,
    "assistant/chunk": _read_step,
    "user/message": _read_user,
    "assistant/message": _read_assistant,
    "tool/call": _read_call,
    "tool/result": _read_result,
    "hook/invoked": _read_hook,
    "hook/result": _read_hook,
    "approval/asked": _read_approval,
    "approval/decided": _read_approval,
}

READ_TYPES = frozenset(_CORE_READERS)
"""The event types whose data the rules read; of any other type they read only seq and place."""
