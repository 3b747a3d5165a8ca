"""The checker's clean-event path: the events that break no rule, told apart without their facts.

Nearly every event of a real log breaks no rule. For those, building the fact
(`loopspec.model.facts.fact_from_wire`) and running each invariant of its type one by one
(`LogMonitor.feed`) costs more than reading the line. A judge here does the same work for one
event type in one function over the parsed JSON: it tests, together, sufficient conditions for
every check `LogMonitor` runs on that type to pass (and for the fact to be readable), and folds
the event into the prefix through the same `Prefix` methods the fact's fold uses.

A judge is only ever a shortcut, never a second statement of a rule. It answers True when the
event is clean and has been folded (the expected seq advanced), exactly as feeding its fact would
have done; or False, having changed nothing, whenever anything is unusual — a broken rule, a
missing field, a rewrite sidecar of several hooks, a surface replace — and the checker then
takes the full path, where the invariants of `loopspec.model.invariants` find, word for word,
what is wrong.

Two things keep the judges from drifting from the rules:

- each judge names the checks it stands for, and tests/test_check_fuzz.py holds those names to
  the checks the registry runs on its type (an invariant added later that reads the type fails
  that test instead of being skipped; check does not import the registry to ask it, since a
  clean log is checked without it: `checker._monitor`), as it holds `QUIET_KINDS` to
  `LogMonitor.quiet_kind`;
- tests/test_check_fuzz.py checks generated logs, valid and broken, with and without the judges,
  and requires the same reports.

The caller has already found the event to be a JSON object of the judge's type whose seq is an
integer below `SEQ_BOUND` equal to `prefix.expected_seq` (so LOG-1 holds); the judges receive it.
They read the members a clean event has by subscript, catching KeyError and TypeError (a member
missing, or the value read not an object): such an event goes down the full path, as where a
`get` found nothing, and a subscript costs a third of a `get`, a method call.
"""

from __future__ import annotations

from loopspec.model import PlainRecord
from loopspec.model.facts import (
    ASKING_DECISIONS,
    BLOCKING_EXIT_CODE,
    DENYING_DECISIONS,
    FAILED_DECISION,
    HOOK_DECISIONS,
    HOOK_DIALECTS,
    NOT_IN_RESULTS,
    SUPPLYING_DECISIONS,
    TEXT_BLOCKS,
    CallFact,
    Fact,
    FactError,
    fact_from_wire,
    message_plain,
)
from loopspec.model.prefix import (
    ABORT_CODES,
    BLOCKING_EXIT_DECISIONS,
    CALL_MARK,
    QUIET_IN_STEP,
    REPAIR_NOT_STARTED,
    REPAIR_OUTCOME_UNKNOWN,
    SURFACE_CODE,
    HookAnswer,
    Prefix,
    arguments_are_an_object,
    post_answer,
    text_reads_as,
)
from loopspec.properties.logcheck import MAX_TRACKED_HOOKS

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    # (collections and functools are not imported at run time: see `checker`)
    from collections.abc import Callable
    from typing import Any

    Judge = Callable[[Prefix, "dict[str, Any]", int], bool]
    """`judge(prefix, obj, seq)`: True when the event `obj` at the expected `seq` is clean and
    has been folded into `prefix`; False, with `prefix` untouched, to send it down the full
    path."""

_USER, _REPLY, _RESULT = (
    SURFACE_CODE["user/message"],
    SURFACE_CODE["assistant/message"],
    SURFACE_CODE["tool/result"],
)
_ONLY_INTS = {int}
_REMEMBERED_CODES = (REPAIR_NOT_STARTED, REPAIR_OUTCOME_UNKNOWN, *ABORT_CODES)
_INFINITY = float("inf")
_new = object.__new__


def _cites_earlier(sources: object, seq: int, may_be_empty: bool) -> bool:
    """Whether a `sourceEventSeqs` value reads as sources and keeps LOG-2: integers,
    distinct, each of an earlier event, and none at all only where `may_be_empty`."""
    if type(sources) is not list:
        return False
    if not sources:
        return may_be_empty
    # Usually a run of seqs one after another (a reply cites every chunk of its stream): equal
    # to the list counting up from its first, each item is distinct and in range, and an int
    # unless a float equal to one (the sum is then a float) or a bool (none equals a seq past 1).
    first = sources[0]
    if (
        type(first) is int
        and first > 1
        and first + len(sources) <= seq
        and sources == list(range(first, first + len(sources)))
        and type(sum(sources)) is int
    ):
        return True
    # Otherwise in C rather than a loop.
    return (
        set(map(type, sources)) == _ONLY_INTS
        and min(sources) >= 0
        and max(sources) < seq
        and len(set(sources)) == len(sources)
    )


def _fact(obj: dict[str, Any]) -> Fact | None:
    """The fact of `obj`, or None when it has none (the full path reports why)."""
    try:
        return fact_from_wire(obj)
    except FactError:
        return None


# ---------------------------------------------------------------------------------------------
# Turns and steps.


def _turn_start(prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
    # LOG-2: no surface metadata. TURN-1: no turn is open and it opens the next one. (A trigger
    # marks a layout the checker refuses: such a turn/start goes down the full path.)
    try:
        data = obj["data"]
        turn = data["turn"]
    except (KeyError, TypeError):
        return False
    if (
        type(turn) is int
        and "surfaceOp" not in obj
        and "sourceEventSeqs" not in obj
        and prefix.open_turn is None
        and turn == prefix.next_turn
        and "trigger" not in data
    ):
        prefix.expected_seq = seq + 1
        prefix.start_turn(turn)
        return True
    return False


def _turn_end(prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
    # LOG-2: no surface metadata. TURN-2: it names the open turn, no step is open. ADJ-3: no
    # call is left unanswered (no step is open, so only those of closed steps), or it ends in
    # error. ABORT-2, REC-1: the turn is not closing after an interrupted reply or a crash
    # repair's result, and does not end interrupted (crash repair's end, timed by the event
    # before it: rare, and read with the fact). DEC-2, ABORT-3: no request lapsed in the turn.
    try:
        data = obj["data"]
        turn, kind = data["turn"], data["reason"]["kind"]
    except (KeyError, TypeError):
        return False
    if (
        type(turn) is int
        and "surfaceOp" not in obj
        and "sourceEventSeqs" not in obj
        and turn == prefix.open_turn
        and prefix.open_step is None
        and prefix.closing is None
        and type(kind) is str
        and kind
        and kind != "interrupted"
        and not prefix.repaired  # a repaired turn ends interrupted (REC-1)
        and (prefix.aborted_result is None or kind == "aborted")  # ABORT-1
        and (not prefix.dangling or kind == "error")
        and not prefix.lapsed_in_turn  # DEC-2 or ABORT-3: rare, read with the fact
    ):
        prefix.expected_seq = seq + 1
        prefix.end_turn(turn)
        return True
    return False


def _step_start(prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
    # LOG-2: no surface metadata. TURN-3: it names the open turn. STEP-1: no step is open and
    # it opens the next one. ABORT-2, REC-1: the turn is not closing.
    try:
        data = obj["data"]
        turn, step = data["turn"], data["step"]
    except (KeyError, TypeError):  # (here and below) a field missing, or not in an object
        return False
    # (Here and below: `data` is an object, as `data["turn"]` found a member in a JSON value.)
    if (
        type(turn) is int
        and type(step) is int
        and turn == prefix.open_turn
        and prefix.open_step is None
        and step == prefix.next_step
        and prefix.closing is None
        and "surfaceOp" not in obj
        and "sourceEventSeqs" not in obj
    ):
        prefix.expected_seq = seq + 1
        prefix.start_step(step)
        return True
    return False


def _step_end(prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
    # LOG-2: no surface metadata. TURN-3, STEP-2: it names the open turn and the open step.
    # HOOK-4: every PreToolUse audit of the step named a call its reply shows. RW-2: so did
    # every hook's answer (one supplying an input for an earlier step's call). ABORT-2, REC-1:
    # the turn is not closing (a closing turn's step/end moves it on, read with the fact).
    if prefix.closing is not None:
        return False
    if prefix.pre_hook_runs:
        for call_id, _handler in prefix.pre_hook_runs:
            if call_id not in prefix.reply_calls:
                return False
    if prefix.hook_results and not prefix.hook_results.keys() <= prefix.reply_calls.keys():
        return False
    try:
        data = obj["data"]
        turn, step = data["turn"], data["step"]
    except (KeyError, TypeError):
        return False
    if (
        type(turn) is int
        and type(step) is int
        and turn == prefix.open_turn
        and step == prefix.open_step
        and "surfaceOp" not in obj
        and "sourceEventSeqs" not in obj
    ):
        prefix.expected_seq = seq + 1
        prefix.end_step(seq)
        return True
    return False


# ---------------------------------------------------------------------------------------------
# Surface events, appended.


def _user_message(prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
    # LOG-2: appended, citing earlier events if any. LOG-7: no replace. ADJ-1. ADJ-4: nothing
    # since the last step/start (or turn/start) makes messages wait for the next step/start.
    try:
        data, surface = obj["data"], obj["surfaceOp"]
        content = data["content"]
    except (KeyError, TypeError):
        return False
    if (
        # The members section 10 requires (LOG-4), though no rule reads them, and its blocks
        # as the model's reader takes them (read with the fact).
        type(content) is list
        and message_plain(data, content, False)
        and data.get("role", "user") == "user"  # LOG-6 (read with the fact)
        and surface == "append"
        # (Tested before it is read, here and below, for a member most events leave out: a
        # test costs less than a `get`.)
        and ("sourceEventSeqs" not in obj or _cites_earlier(obj["sourceEventSeqs"], seq, False))
        # ADJ-1: no call of the step's reply awaits a result.
        and (prefix.reply_seq is None or prefix.reply_calls.keys() <= prefix.results.keys())
        and prefix.messages_wait_after is None
        and prefix.closing is None  # ABORT-2, REC-1
    ):
        prefix.expected_seq = seq + 1
        prefix.append_surface(seq, _USER)
        return True
    return False


def _hook_pending_in(prefix: Prefix, turn: int) -> bool:
    """Whether a hook/invoked of `turn` awaits its hook/result (HOOK-4: a reply then is read
    with the fact). A pair a crash cut in an earlier turn, which repair closed, stays pending
    for good, and is no reply's concern: every later reply went down the full path."""
    return any(pending[0] == turn for pending in prefix.pending_hooks)


def _reply(prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
    # LOG-2, LOG-7 as for a user message. TURN-3, STEP-3: it names the open turn and step.
    # ORD-1 (and so ADJ-1): the step has no reply yet. EXE-1: its call ids are distinct.
    # ABORT-2: not interrupted (an interrupted reply has no calls, and its turn then closes:
    # rare, read with the fact). REC-1: the turn is not closing.
    try:
        data = obj["data"]
        turn, step, message = data["turn"], data["step"], data["message"]
        content, source, surface = message["content"], message["source"], obj["surfaceOp"]
    except (KeyError, TypeError):
        return False
    if (
        type(turn) is not int
        or type(step) is not int
        or turn != prefix.open_turn
        or step != prefix.open_step
        or prefix.reply_seq is not None
        or prefix.closing is not None
        or (prefix.pending_hooks and _hook_pending_in(prefix, turn))  # HOOK-4 (with the fact)
        or type(content) is not list
        or surface != "append"
        or message.get("role", "assistant") != "assistant"  # LOG-6 (read with the fact)
        # LOG-4 (read with the fact): `facts.message_plain`, inlined with the loop below.
        or type(message.get("id", "")) is not str
        or type(source) is not dict
    ):
        return False
    if "sourceEventSeqs" in obj and not _cites_earlier(obj["sourceEventSeqs"], seq, True):
        return False
    calls: dict[str, tuple[int, CallFact]] = {}
    try:
        for block in content:
            kind = block["type"]
            if kind != "tool-call":
                if (
                    type(block["text"]) is not str if kind in TEXT_BLOCKS else type(kind) is not str
                ) or kind == "tool-result":
                    return False
            else:
                call_id, name, arguments = block["id"], block["name"], block["arguments"]
                if (
                    type(call_id) is not str
                    or type(name) is not str
                    or type(arguments) is not str
                    or not call_id  # LOG-4, read with the fact, as an empty name
                    or not name
                    or call_id in calls
                ):
                    return False
                call = _new(CallFact)  # (calling the class would run a Python `__init__`)
                call.id, call.name, call.arguments = call_id, name, arguments
                calls[call_id] = (len(calls), call)
    except (KeyError, TypeError):
        return False
    # LOG-4 (read with the fact): `facts.optional_members_typed` inlined, as for each judge below.
    # An interrupted reply (or a flag written otherwise than true) is read with the fact.
    if (
        "usage" in data and (usage := data["usage"]) is not None and type(usage) is not dict
    ) or "interrupted" in data:
        return False
    if prefix.pre_hook_runs:  # HOOK-4: no PreToolUse hook ran for a call without object input
        # Over the runs themselves, not a set of their call ids (a comprehension is a call of its
        # own in Python 3.11): a call's runs, usually together, ask it once; asked again, the
        # test answers alike.
        asked = None
        for call_id, _handler in prefix.pre_hook_runs:
            if call_id != asked:
                asked = call_id
                entry = calls.get(call_id)
                if entry is not None and not arguments_are_an_object(entry[1].arguments):
                    return False
    prefix.take_distinct_reply(seq, calls)
    prefix.expected_seq = seq + 1
    prefix.append_surface(seq, _REPLY)
    return True


def _result(prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
    # LOG-2, LOG-7 as for a user message (a result always cites). TURN-3, STEP-3: it names the
    # open turn and step. ADJ-2, ORD-2: it answers, first, a call of the step's reply that has
    # been recorded, citing the record. ORD-3: every earlier call has its result. RW-2, DEC-1,
    # DEC-2, HOOK-1, EXE-2: a success only for a call neither refused, nor awaiting its
    # approval, nor holding an unapplied rewrite, nor denied, nor blocked, whose arguments are
    # a JSON object. HOOK-5: a failure only for a call
    # no PostToolUse hook was audited for. REC-1: no crash repair's result,
    # and the turn is not closing (ABORT-2 too).
    try:
        data = obj["data"]
        turn, step, message = data["turn"], data["step"], data["message"]
        content, source = message["content"], message["source"]
        sources, surface = obj["sourceEventSeqs"], obj["surfaceOp"]
        block = content[0]
        block_type, call_id, nested = block["type"], block["toolCallId"], block["content"]
        source_call = source["callId"]
    except (KeyError, TypeError, IndexError):
        return False  # LOG-4 or LOG-6 (the source's call id), read with the fact
    if (
        type(turn) is not int
        or type(step) is not int
        or turn != prefix.open_turn
        or step != prefix.open_step
        or type(content) is not list
        or len(content) != 1
        or surface != "append"
        or message.get("role", "user") != "user"  # LOG-6 (read with the fact)
        or block_type != "tool-result"  # LOG-6, read with the fact
        or type(call_id) is not str
        or call_id in prefix.results
        or prefix.closing is not None
        or source_call != call_id  # LOG-4 or LOG-6, read with the fact
        or type(message.get("id", "")) is not str  # LOG-4, read with the fact (`message_plain`)
        or type(nested) is not list
    ):
        return False
    try:
        for item in nested:  # `facts.result_content_plain`, inlined
            kind = item["type"]
            if (kind == "text" and type(item["text"]) is not str) or (
                type(kind) is not str or kind in NOT_IN_RESULTS
            ):
                return False  # LOG-4 or LOG-6, read with the fact
        entry, record = prefix.reply_calls[call_id], prefix.call_records[call_id]
    except (KeyError, TypeError):
        return False
    if entry[0] != prefix.first_unanswered:
        return False
    # LOG-2 and the citation of the record: most results cite the record alone.
    if not (
        type(sources) is list
        and len(sources) == 1
        and type(sources[0]) is int
        and sources[0] == record.seq
        and 0 <= record.seq < seq
    ) and (not _cites_earlier(sources, seq, False) or record.seq not in sources):
        return False
    flag = block.get("isError")
    if flag is True:
        # HOOK-5: a failed call a PostToolUse hook was audited for may be one that never ran.
        if (call_id in prefix.hook_results and post_answer(prefix, call_id)) or (
            call_id in prefix.unnamed_post_runs
        ):
            return False
        prefix.failed_results[call_id] = seq  # (RW-2 of an input supplied after it)
    # (Each of what bars a success asked first whether it holds anything: most hold nothing, and
    # an empty one's truth costs less than a lookup.)
    elif (
        (flag is not False and flag is not None)  # LOG-4, read with the fact
        or (prefix.unapplied_rewrites and call_id in prefix.unapplied_rewrites)
        or (prefix.refused_calls and call_id in prefix.refused_calls)
        or (prefix.approval_due and call_id in prefix.approval_due)
        or (prefix.post_blocked and call_id in prefix.post_blocked)
        or (prefix.pre_denied and call_id in prefix.pre_denied)
        # EXE-2: a call whose arguments are no JSON object never runs (its text parsed here,
        # for a success alone: the one parse of arguments a clean call's events cost)
        or not arguments_are_an_object(entry[1].arguments)
    ):
        return False
    # `optional_members_typed` inlined for the common case: a result's one typed optional member.
    if (
        "error" in data
        and (error := data["error"]) is not None
        and (type(error) is not dict or error.get("code") in _REMEMBERED_CODES)
    ):
        return False  # LOG-4 (read with the fact), or a crash repair's or an abort's result:
        # rare, and its fold remembers the repair or the abort (REC-1, ABORT-1)
    prefix.expected_seq = seq + 1
    prefix.take_result(call_id, seq)
    prefix.append_surface(seq, _RESULT + (hash(call_id) & CALL_MARK))  # `result_kind`, inlined
    return True


# ---------------------------------------------------------------------------------------------
# Calls, hooks, approvals.


def _call(prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
    # LOG-2: no surface metadata. TURN-3, STEP-3: it names the open turn and step. ORD-1,
    # ORD-2, RW-1: it records, once, a call of the step's reply, with the reply's name and
    # arguments. RW-2, RW-3: a rewrite sidecar naming the one hook that supplied the input is
    # judged here, any other by `rewrite_traced_to_hooks` itself. ABORT-2, REC-1: the turn is
    # not closing.
    try:
        data = obj["data"]
        turn, step = data["turn"], data["step"]
        call_id, name, arguments = data["callId"], data["name"], data["arguments"]
    except (KeyError, TypeError):
        return False
    if (
        type(turn) is not int
        or type(step) is not int
        or turn != prefix.open_turn
        or step != prefix.open_step
        or type(call_id) is not str
        or type(name) is not str
        or type(arguments) is not str
        or call_id in prefix.call_records
        or prefix.closing is not None
        or "surfaceOp" in obj
        or "sourceEventSeqs" in obj
    ):
        return False
    entry = prefix.reply_calls.get(call_id)
    if entry is None or entry[1].name != name or entry[1].arguments != arguments:
        return False
    if "rewrite" not in data:
        prefix.expected_seq = seq + 1
        prefix.keep_call(seq, call_id, arguments, False)
        return True
    # A call with a sidecar: one hook's input, applied, is judged here (the fact's reading and
    # `rewrite_traced_to_hooks` cost a log that rewrites often as much as all its other events);
    # any other sidecar by `rewrite_traced_to_hooks` itself.
    if _sidecar_names_its_one_supplier(prefix, call_id, arguments, data["rewrite"]):
        prefix.expected_seq = seq + 1
        prefix.keep_call(seq, call_id, arguments, True)
        return True
    from loopspec.model.invariants import rewrite_traced_to_hooks  # noqa: PLC0415 (rare: see above)

    rewritten = _fact(obj)
    if rewritten is None or rewrite_traced_to_hooks(prefix, rewritten):
        return False
    prefix.expected_seq = seq + 1
    prefix.record_call(rewritten)
    return True


def _sidecar_names_its_one_supplier(
    prefix: Prefix, call_id: str, arguments: str, rewrite: object
) -> bool:
    """Whether the rewrite sidecar `rewrite` of a call recording `call_id` with `arguments`
    reads as the fact's reader reads one (RW-2) and keeps RW-2 and RW-3 as a one-hook rewrite
    does: it names one hook, whose last PreToolUse answer for the call, audited before the
    reply, supplied an input (an allow or an ask with one) that the arguments are; no hook
    denied the call, and no other supplied an input. Any other sidecar is not judged here."""
    if type(rewrite) is not dict or type(rewrite.get("originalArguments")) is not str:
        return False
    handlers = rewrite.get("handlerIds")
    if type(handlers) is not list or len(handlers) != 1 or type(named := handlers[0]) is not str:
        return False
    supplier = None
    for answer in prefix.hook_results.get(call_id, ()):
        if answer.point != "PreToolUse":
            continue
        if answer.decision in DENYING_DECISIONS:
            return False  # a deny discards every input
        if answer.handler_id == named:
            supplier = answer  # its last answer is the one in effect
        elif answer.updated_input is not None and answer.decision in SUPPLYING_DECISIONS:
            return False  # an input the sidecar does not name
    return (
        supplier is not None
        and supplier.updated_input is not None
        and supplier.decision in SUPPLYING_DECISIONS
        and (prefix.reply_seq is None or supplier.seq <= prefix.reply_seq)  # RW-3
        and text_reads_as(arguments, supplier.updated_input)
    )


def _hook_invoked(prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
    # LOG-2: no surface metadata. TURN-3: it names the open turn. HOOK-4: a PreToolUse hook
    # runs for the first time for its call, before its result (naming none, before the step's
    # last), not for a call of the reply whose arguments are not an object. HOOK-1 (read
    # with the fact): a known dialect, a point and a handler.
    # HOOK-5: a PostToolUse hook in a step, for the first time for its call, before the call's
    # result. ABORT-2, REC-1: the turn is not closing.
    try:
        data = obj["data"]
        turn, point, handler = data["turn"], data["point"], data["handlerId"]
        dialect = data["dialect"]
    except (KeyError, TypeError):
        return False
    call_id = data.get("callId")
    # (An optional string may be left out, not written null: the model's reader refuses null.)
    if (
        type(turn) is not int
        or type(point) is not str
        or type(handler) is not str
        or not point
        or not handler
        or turn != prefix.open_turn
        or prefix.closing is not None
        or "surfaceOp" in obj
        or "sourceEventSeqs" in obj
        or type(dialect) is not str
        or dialect not in HOOK_DIALECTS
        or type(data.get("matcher", "")) is not str
    ):
        return False
    if call_id is not None or "callId" in data:
        if type(call_id) is not str:
            return False
        if point == "PreToolUse":
            # (A count, once there, is >= 1. Between steps: maybe for a call an earlier step
            # answered, `_audited_after_its_result`.)
            if (
                (call_id, handler) in prefix.pre_hook_runs
                or call_id in prefix.results
                or prefix.open_step is None
            ):
                return False
            entry = prefix.reply_calls.get(call_id)
            if entry is not None and not arguments_are_an_object(entry[1].arguments):
                return False
    if point == "PostToolUse" and (
        _post_audit_late(prefix, call_id)
        or (call_id is not None and (call_id, handler) in prefix.post_hook_runs)
    ):
        return False
    if (
        call_id is None
        and point == "PreToolUse"
        and prefix.results  # (none until a result: the common case decided at once)
        and prefix.reply_calls.keys() <= prefix.results.keys()
    ):
        return False  # HOOK-4: after every call of the step has its result
    prefix.expected_seq = seq + 1
    prefix.hook_invoked(turn, point, handler, call_id, seq)
    return True


def _post_audit_late(prefix: Prefix, call_id: str | None) -> bool:
    """Whether a PostToolUse audit about `call_id` (None: naming no call) may come too late
    (HOOK-5, `post_hooks_judge_results_that_ran`): outside a step, after its call's result, for
    a call the step's reply does not make (or before that reply), or naming none before that
    reply or once every call of the step's reply has its result."""
    if prefix.open_step is None:
        return True
    if call_id is not None:
        # (or any call the step's reply, or the step before its reply, makes no such call of)
        return call_id in prefix.results or call_id not in prefix.reply_calls
    return prefix.reply_seq is None or prefix.reply_calls.keys() <= prefix.results.keys()


def _fault_prefix(summary: str) -> str | None:
    """`impl.recorded_faults.fault_prefix`, imported when a summary first holds ": ": a log whose
    hooks record none is checked without `impl` (tests/test_check_startup.py)."""
    from loopspec.impl.recorded_faults import fault_prefix  # noqa: PLC0415 (see above)

    return fault_prefix(summary)


class _HookResultJudge:
    """The judge of hook/result, counting each hook's runs in `runs` when given: a bound
    method, where a `functools.partial` would cost check the import of functools."""

    __slots__ = ("runs",)

    def __init__(self, runs: dict[str, int] | None) -> None:
        self.runs = runs

    def judge(self, prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
        # (The judge's body itself, not a call to a function of `runs`: a call more per
        # hook/result.)
        runs = self.runs
        # LOG-2: no surface metadata. TURN-3: it names the open turn. HOOK-1: it answers a pending
        # hook/invoked, for the call it names (when both name one), its decision is a known word,
        # and (read with the fact) its duration is finite and not negative. RW-2: a PreToolUse
        # input it supplies is for a call yet to be answered. With `runs`, it counts
        # the hook's run there (`hook_faults.HookRuns`), and leaves a run that records a fault of
        # the hook's own to the full path, where its line is known for the notice (HOOK-7). A
        # PostToolUse hook never asks (HOOK-1, `post_hook_words_fit_the_result`), and answers in a
        # step before its call's result (HOOK-5). ABORT-2, REC-1: the turn is not closing.
        try:
            data = obj["data"]
            turn, point, handler = data["turn"], data["point"], data["handlerId"]
            decision, duration = data["decision"], data["durationMs"]
        except (KeyError, TypeError):
            return False
        call_id = data.get("callId")
        # (Tested before it is read, as the input below: most answers give none, and the test
        # costs less than a `get`; ruff's SIM401 would have the `get`. None only where written
        # null, which the fact's reader refuses.)
        summary = data["stderrSummary"] if "stderrSummary" in data else ""  # noqa: SIM401
        if (
            type(turn) is not int
            or type(point) is not str
            or type(handler) is not str
            or type(decision) is not str
            or decision not in HOOK_DECISIONS
            or (decision in ASKING_DECISIONS and point == "PostToolUse")
            or (type(call_id) is not str and (call_id is not None or "callId" in data))
            # HOOK-1: `facts.hook_duration_valid`, inlined (a call more per hook/result)
            or (type(duration) is not float and type(duration) is not int)
            or not 0 <= duration < _INFINITY
            or turn != prefix.open_turn
            or prefix.closing is not None
            or (pending := (turn, point, handler)) not in prefix.pending_hooks
            or (call_id is not None and prefix.pending_hook_calls.get(pending, call_id) != call_id)
            or "surfaceOp" in obj
            or "sourceEventSeqs" in obj
            or (
                "exitCode" in data
                and (
                    type(exit_code := data["exitCode"]) is not int
                    or (exit_code == BLOCKING_EXIT_CODE and decision not in BLOCKING_EXIT_DECISIONS)
                )
            )
            or type(summary) is not str
            or (
                point == "PostToolUse"
                and _post_audit_late(prefix, prefix.pending_hook_calls.get(pending, call_id))
            )
        ):
            return False
        if runs is not None and (
            decision == FAILED_DECISION
            # A fault's summary starts `KIND: `: most summaries hold no ": " at all, and are not
            # read further (nor are `impl.recorded_faults` and its enum of fault kinds imported
            # for them).
            or (": " in summary and _fault_prefix(summary) is not None)
        ):
            return False
        # (Tested before it is read, as the summary above.)
        if "updatedInput" in data:
            supplied = data["updatedInput"]
            # RW-2: an input supplied for a call whose result is already in the log.
            # (Or an earlier step's, where this hook cannot be for a call of its own step's
            # reply: between steps, or after that reply. Most answer before the reply, RW-3.)
            if point == "PreToolUse" and (
                prefix.results or prefix.reply_seq is not None or prefix.open_step is None
            ):
                named = prefix.pending_hook_calls.get(pending, call_id)
                if named in prefix.results or named in prefix.answered_before:
                    return False
        else:
            supplied = None
        prefix.expected_seq = seq + 1
        answer = _new(HookAnswer)
        answer.seq, answer.point, answer.handler_id, answer.decision = seq, point, handler, decision
        answer.updated_input = supplied
        prefix.take_hook_answer(turn, call_id, answer)
        if runs is not None:
            count = runs.get(handler)
            if count is not None:
                runs[handler] = count + 1
            elif len(runs) < MAX_TRACKED_HOOKS:
                runs[handler] = 1
        return True


def _approval_asked(prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
    # LOG-2: no surface metadata. DEC-2: it names a recorded call. RW-4: it shows the arguments
    # the call was recorded with. ABORT-2, REC-1: the turn is not closing.
    # (Read with the fact: string id and tool name; call id and arguments strings if present.)
    try:
        data = obj["data"]
        approval_id, tool_name = data["id"], data["toolName"]
    except (KeyError, TypeError):
        return False
    call_id, arguments = data.get("callId"), data.get("arguments")
    if (
        "surfaceOp" in obj
        or "sourceEventSeqs" in obj
        or prefix.closing is not None
        or type(approval_id) is not str
        or not approval_id  # LOG-4, read with the fact
        or (type(call_id) is not str and "callId" in data)
        or type(tool_name) is not str
        or (type(arguments) is not str and "arguments" in data)
        or type(data.get("reason", "")) is not str
    ):
        return False
    if call_id is not None:
        record = prefix.call_records.get(call_id)
        if (
            record is None
            or (arguments is not None and record.arguments != arguments)
            or call_id in prefix.results
        ):
            # DEC-2: a call the step never recorded, or one already answered; RW-4: other
            # arguments
            return False
        shown = prefix.reply_calls.get(call_id)
        if shown is not None and shown[1].name != tool_name:
            return False  # DEC-2: another tool than the call's
    prefix.expected_seq = seq + 1
    prefix.ask_approval(seq, approval_id, call_id)
    return True


def _approval_decided(prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
    # LOG-2: no surface metadata. DEC-2: it answers a pending request. ABORT-2, REC-1: the turn
    # is not closing. ABORT-3: a cancelled answer comes before its call's result. (Read with
    # the fact: a string id and outcome.)
    try:
        data = obj["data"]
        approval_id, outcome = data["id"], data["outcome"]
    except (KeyError, TypeError):
        return False
    if (
        "surfaceOp" in obj
        or "sourceEventSeqs" in obj
        or prefix.closing is not None
        or type(approval_id) is not str  # (here and below) LOG-4, read with the fact
        or type(outcome) is not str
        or not outcome
        or approval_id not in prefix.approvals
        or (outcome == "cancelled" and prefix.approvals[approval_id] in prefix.results)
    ):
        return False
    prefix.expected_seq = seq + 1
    prefix.decide_approval(seq, approval_id, outcome)
    return True


# ---------------------------------------------------------------------------------------------


class CleanJudge(PlainRecord):
    """A judge for one event type, and the names of the checks it stands for, in registry
    order (`Invariant.name`)."""

    __slots__ = ("judge", "stands_for")

    def __init__(self, judge: Judge, stands_for: tuple[str, ...]) -> None:
        self.judge = judge
        self.stands_for = stands_for


_ENVELOPE = ("seq_is_index", "surface_metadata_valid")
_SURFACE = (*_ENVELOPE, "replace_targets_current_nodes")
_IN_STEP = ("events_enclosed_by_turn", "step_events_name_open_step")
_CLOSING = ("interrupted_reply_ends_its_turn", "repair_closers_follow_each_other")

JUDGES: dict[str, CleanJudge] = {
    "turn/start": CleanJudge(_turn_start, (*_ENVELOPE, "turns_numbered_and_unnested")),
    "turn/end": CleanJudge(
        _turn_end,
        (
            *_ENVELOPE,
            "turn_end_closes_open_turn",
            "lapsed_request_ends_turn_interrupted",
            "aborted_turn_ends_aborted",
            "every_shown_call_answered",
            "repair_results_match_call_state",
            *_CLOSING,
        ),
    ),
    "step/start": CleanJudge(
        _step_start,
        (*_ENVELOPE, "events_enclosed_by_turn", "steps_numbered_inside_turn", *_CLOSING),
    ),
    "step/end": CleanJudge(
        _step_end,
        (
            *_ENVELOPE,
            "events_enclosed_by_turn",
            "steps_numbered_inside_turn",
            "pre_hooks_answer_calls_of_the_reply",
            "supplied_rewrite_applied_or_refused",
            *_CLOSING,
        ),
    ),
    "user/message": CleanJudge(
        _user_message,
        (
            *_SURFACE,
            "nothing_visible_between_call_and_result",
            "messages_wait_for_step_start",
            *_CLOSING,
        ),
    ),
    "assistant/message": CleanJudge(
        _reply,
        (
            *_SURFACE,
            *_IN_STEP,
            "one_reply_per_step_before_calls",
            "call_ids_unique_in_reply",
            "nothing_visible_between_call_and_result",
            "no_pre_hooks_for_non_object_arguments",
            "reply_waits_for_pending_hooks",
            "interrupted_reply_has_no_calls",
            *_CLOSING,
        ),
    ),
    "tool/call": CleanJudge(
        _call,
        (
            *_ENVELOPE,
            *_IN_STEP,
            "one_reply_per_step_before_calls",
            "call_records_match_reply",
            "rewrite_traced_to_hooks",
            *_CLOSING,
        ),
    ),
    "tool/result": CleanJudge(
        _result,
        (
            *_SURFACE,
            *_IN_STEP,
            "result_answers_pending_call",
            "results_in_model_order",
            "post_block_makes_the_result_an_error",
            "post_hooks_judge_results_that_ran",
            "supplied_rewrite_applied_or_refused",
            "denied_call_never_succeeds",
            "invalid_arguments_never_succeed",
            "approval_shows_effective_input",
            "repair_results_match_call_state",
            *_CLOSING,
        ),
    ),
    "hook/invoked": CleanJudge(
        _hook_invoked,
        (
            *_ENVELOPE,
            "events_enclosed_by_turn",
            "pre_hooks_once_per_call",
            "no_pre_hooks_for_non_object_arguments",
            "post_hooks_judge_results_that_ran",
            *_CLOSING,
        ),
    ),
    "hook/result": CleanJudge(
        _HookResultJudge(None).judge,
        (
            *_ENVELOPE,
            "events_enclosed_by_turn",
            "hook_audit_paired_in_turn",
            "post_hook_words_fit_the_result",
            "blocking_exit_is_audited_as_blocking",
            "post_hooks_judge_results_that_ran",
            "supplied_rewrite_applied_or_refused",
            *_CLOSING,
        ),
    ),
    "approval/asked": CleanJudge(
        _approval_asked, (*_ENVELOPE, "approval_shows_effective_input", *_CLOSING)
    ),
    "approval/decided": CleanJudge(
        _approval_decided, (*_ENVELOPE, "approval_shows_effective_input", *_CLOSING)
    ),
}
"""Per event type, its judge."""


QUIET_KINDS = {"assistant/chunk": QUIET_IN_STEP}
"""`LogMonitor.quiet_kind` of the types the checker judges quietly from their first event (a
stream chunk), where another type's first event takes the full path to learn its kind."""


def clean_judges(hook_runs: dict[str, int] | None = None) -> dict[str, Judge]:
    """Per event type, its judge; the one of `hook/result` counts each hook's runs in
    `hook_runs` when given (`hook_faults.HookRuns`)."""
    judges = {kind: entry.judge for kind, entry in JUDGES.items()}
    if hook_runs is not None:
        judges["hook/result"] = _HookResultJudge(hook_runs).judge
    return judges
