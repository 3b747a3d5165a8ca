"""The prefix of a session log: what the log invariants remember of the events before this one.

`Prefix` summarises a log's events so far in what the open turn and step need (plus the surface's
seqs), and folds each new event in (`Prefix.fold`); `Violation` is what an invariant finds. The
invariants themselves, their registry and `LogMonitor` are in `loopspec.model.invariants`.

A module of its own so that `loopspec check` can judge a clean log's events without importing the
rule registry (its clean-event judges fold into a `Prefix` directly, `logcheck.clean_events`): the
registry is imported at the first event they send down the full path.
"""

from __future__ import annotations

from loopspec.model import PlainRecord
from loopspec.model.facts import (
    ASKING_DECISIONS,
    DENYING_DECISIONS,
    SUPPLYING_DECISIONS,
    CallFact,
    Fact,
)
from loopspec.model.json_text import NOT_JSON, SCANNERS, same_json, value_of

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    # array and collections.abc import collections, which costs check a fifth of the
    # interpreter's start (see `Prefix.surface_seqs`)
    from array import array
    from collections.abc import Callable, Iterable, Sequence
    from typing import Literal

    # What `Prefix._reset` forgets, each scope what the one before it does and more: the open
    # step's reply, calls and results (at its end); those and its hooks' and approvals' answers
    # (at a step's start); those and what the turn keeps, its calls left unanswered, its repair
    # and its closing (at a turn's start and end). And "hooks": the hooks' and approvals' answers
    # alone, at a step's start right after a step's end, which forgot the step's.
    ResetScope = Literal["step", "hooks", "step and hooks", "turn"]

SURFACE_TYPES = frozenset({"user/message", "assistant/message", "tool/result"})
IN_TURN_TYPES = frozenset(
    {
        "step/start",
        "step/end",
        "assistant/message",
        "assistant/chunk",
        "tool/call",
        "tool/result",
        "hook/invoked",
        "hook/result",
        "todo/write",
        "request/header",
        "request/context",
    }
)
STEP_TYPES = frozenset({"assistant/message", "assistant/chunk", "tool/call"})
# The hook points that run only after the model replied: a hook event at one of them shows the
# step's request under way (other points, such as UserPromptSubmit, are not modelled).
TOOL_HOOK_POINTS = frozenset({"PreToolUse", "PostToolUse"})
# A reply whose calls are written as another API's blocks (`tool_use`, `function_call`) makes
# none here: the record's blame then says what a call is.
NO_CALLS_IN_REPLY = (
    ", which makes no tool calls (a call is a block of the reply's message.content "
    '{"type": "tool-call", "id", "name", "arguments"})'
)
# DEC-2's answers but allowed-once (`model.commands.APPROVAL_OUTCOMES`, which check does not
# import): a log's approval/decided may hold any string, and one of none of these is named so.
REFUSING_OUTCOMES = ("rejected", "cancelled", "unavailable")
HOOK_CALL_RULES = ("RW-3",)
"""The rules whose invariants judge only a tool hook tied to its call by `callId`: a log whose
tool hooks name no call (dsh writes none) cannot show them (`Prefix.tool_hooks_unnamed`)."""
HOOK_CALL_RULES_IN_PART = ("DEC-1", "DEC-2", "HOOK-1", "HOOK-4", "HOOK-5", "HOOK-6", "RW-2")
"""The rules whose invariants judge such a tie in part: DEC-1 a call a hook denied, DEC-2 a call
a hook asked about, HOOK-1 a result a PostToolUse hook blocked, HOOK-4 which call a PreToolUse
hook ran for, HOOK-5 the result a PostToolUse hook judged, HOOK-6 a call that ran with a hook's
input that is no JSON object, RW-2 the hooks that supplied a call's input. Their other parts
need no hook to name its call: a sidecar naming a hook that gave no answer before it, a hook
audited once every call of its step has its result, and a hook naming no call taken for the
one call of its step then awaiting a result (`Prefix.sole_unanswered`)."""
# How many nodes taken off the surface (and refused replacements) the prefix remembers for
# LOG-7's words on a stale replace: far more than a compaction names, while the prefix stays
# bounded by the open turn and the surface, not by the log's length.
REMEMBERED_GONE = 4096
PACKED_SURFACE = 4096
"""The surface nodes from which `Prefix` keeps their seqs packed in arrays."""
_BELOW_EVERY_SEQ = float("-inf")
"""`Prefix.last_surface_seq` before the first surface event: any seq comes after it."""
SKIPS_KEPT = 16
"""The LOG-1 breaks whose skipped seqs a prefix remembers (`Prefix.skips`), the last ones: a
log breaking the numbering at every line is judged at no more cost per line."""
REPAIR_NOT_STARTED = "TOOL_NOT_STARTED"
REPAIR_OUTCOME_UNKNOWN = "TOOL_OUTCOME_UNKNOWN"
REPAIR_CODES = (REPAIR_NOT_STARTED, REPAIR_OUTCOME_UNKNOWN)
ABORT_CODES = ("ABORTED", "ABORTED_BEFORE_DISPATCH")
"""The error codes of a result an abort writes (SPEC.md section 9, ABORT-1)."""
# The loop's own event types, which nothing may write while a turn closes: after an interrupted
# reply (ABORT-2) and between crash repair's closers (REC-1). A stream chunk and a harness's own
# events (a title, a request header) are not judged there.
CLOSING_READS = (
    "turn/end",
    "step/start",
    "step/end",
    "user/message",
    "assistant/message",
    "tool/call",
    "tool/result",
    "hook/invoked",
    "hook/result",
    "approval/asked",
    "approval/decided",
)


def calls_awaiting(call_ids: Sequence[str], still: str = "") -> str:
    """'call c1 awaits its result' or 'calls c1, c2 await their results' (`still` goes before
    the verb): the sentence every checker uses for unanswered calls."""
    adverb = f"{still} " if still else ""
    if len(call_ids) == 1:
        return f"call {call_ids[0]} {adverb}awaits its result"
    return f"calls {', '.join(call_ids)} {adverb}await their results"


# TURN-1's words for a turn started while a crash left one open (the transcripts' readers say so
# too, `logcheck.harness_logs`).
UNREPAIRED_TURN = (
    ": a turn a crash left open is closed by crash repair, which answers its calls, before the "
    "next starts"
)


NO_KNOWN_SHAPE = ""
"""The facet of a violation, of a rule some loop's list names (`check --known LOOP`), in a shape
that is no loop's known divergence: never set aside by the loop's name. Every violation of such a
rule names its facet, this one included, so that a new one is given its shape or this on purpose
(tests/test_check_known_divergences.py walks them)."""
REPEATED_CALL_ID = "repeated-call-id"
"""EXE-1: a reply carries a call id twice (dsh 0.1.0-rc.8 runs both calls under it, its known
divergence duplicate-call-ids; the real CLIs' transcripts show it so too)."""
NON_OBJECT_INPUT_RAN = "non-object-input-ran"
"""HOOK-6: a call succeeded whose every PreToolUse hook that supplied an input supplied one that
is no JSON object, none denying it: the input in effect, whatever the hooks' order, which denies
the call (Claude Code reads such an answer as one its schema refuses, and runs the model's
input; a dsh-format log, such as a conform adapter writes for Codex, which refuses the input in
words of its own and no error flag, shows it so too)."""


# The records here are plain records, not attrs classes nor NamedTuples: `loopspec check` runs
# these invariants, and attrs (or typing) alone takes longer to import than the interpreter takes
# to start (tests/test_check_startup.py).
class Violation(PlainRecord):
    """One broken rule: at which event, which rule, why, and the other events involved.

    `facet`, when not empty, names the part of the rule broken where a real loop is known to
    break that part alone: a known divergence names it `RULE:facet` (`facet_name`)."""

    __slots__ = ("rule_id", "seq", "message", "related", "facet")  # noqa: RUF023 (fields' order)

    def __init__(
        self,
        rule_id: str,
        seq: int,
        message: str,
        related: tuple[int, ...] = (),
        facet: str = "",
    ) -> None:
        self.rule_id = rule_id
        self.seq = seq
        self.message = message
        self.related = related
        self.facet = facet

    @property
    def facet_name(self) -> str:
        """`RULE:facet`, or the rule alone when the violation names no facet."""
        return f"{self.rule_id}:{self.facet}" if self.facet else self.rule_id


class RecordedCall:
    """What the prefix keeps of a tool/call (`Prefix.call_records`): its seq, and the
    arguments it runs with. (Not the whole fact: the checker's clean-event path builds one per
    call, and a fact has two dozen fields to fill.)"""

    __slots__ = ("arguments", "rewritten", "seq")

    def __init__(self, seq: int, arguments: str | None, rewritten: bool) -> None:
        self.seq = seq
        self.arguments = arguments
        # Whether it carries a rewrite sidecar: a hook that supplies an input after the record
        # (dsh audits a call's hooks after its tool/call) is held to it then (RW-2).
        self.rewritten = rewritten


class HookAnswer:
    """What the prefix keeps of a hook/result about a call (`Prefix.hook_results`), for the
    rewrite rules: when it came, which hook at which point answered, how, and any input it
    supplied."""

    __slots__ = ("decision", "handler_id", "point", "seq", "updated_input")

    def __init__(
        self,
        seq: int,
        point: str | None,
        handler_id: str | None,
        decision: str | None,
        updated_input: object,
    ) -> None:
        self.seq = seq
        self.point = point
        self.handler_id = handler_id
        self.decision = decision
        self.updated_input = updated_input


def is_reply(fact: Fact) -> bool:
    """Whether an assistant/message is its step's reply (ORD-1): one appended, or one making
    calls. One that replaces nodes (LOG-7) without calls is a compaction, no reply: `Prefix`
    folds it as none, and ORD-1 does not count it."""
    return fact.surface == "append" or bool(fact.calls)


class ClosingTurn:
    """A turn that must now close with nothing else between (`Prefix.closing`): after an
    interrupted reply (`INTERRUPTED_REPLY`: step/end, then turn/end aborted, ABORT-2) or from a
    crash repair's first result (`REPAIR`: more results, step/end, turn/end, REC-1)."""

    __slots__ = ("kind", "mistimed", "seq", "step_ended", "time")

    def __init__(self, kind: str, seq: int, time: int | None, *, mistimed: bool = False) -> None:
        self.kind = kind
        self.seq = seq  # the reply's, or the repair's first result's
        self.step_ended = False
        # The time every later closer of a repair carries (None: not known, or a closer's time
        # was already blamed).
        self.time = time
        # A repair's first result was not timed as the event before it: REC-1 blamed it as a
        # result the loop wrote as the call's own and mislabelled with a repair code (or a repair
        # timed by the clock). A turn that goes on, or ends otherwise than interrupted, shows
        # the former: nothing after it is blamed as breaking repair's closers.
        self.mistimed = mistimed


INTERRUPTED_REPLY = "interrupted reply"
REPAIR = "repair"


_new = object.__new__


class Prefix:
    """What the invariants remember of the events before the current one."""

    # Slots: the checker's judges read and write these on every event, and an instance with
    # this many attributes keeps them in a dict of its own (CPython shares a class's attribute
    # layout only up to a few dozen): with slots, `check` runs 2 % fewer instructions.
    __slots__ = (
        "aborted_result",
        "after_break",
        "answered_approvals",
        "answered_before",
        "answered_records",
        "answered_turn",
        "approval_due",
        "approvals",
        "call_records",
        "closing",
        "dangling",
        "dangling_before_last_step",
        "expected_seq",
        "failed_results",
        "first_unanswered",
        "forgotten_upto",
        "gone",
        "hook_results",
        "interrupted_replies",
        "lapsed_approvals",
        "lapsed_blamed",
        "lapsed_in_turn",
        "last_surface_seq",
        "last_time",
        "left_open_step",
        "left_unanswered",
        "messages_wait_after",
        "messages_wait_kind",
        "next_step",
        "next_step_due",
        "next_turn",
        "next_turn_due",
        "open_step",
        "open_step_due",
        "open_turn",
        "open_turn_due",
        "pending_hook_calls",
        "pending_hooks",
        "post_blocked",
        "post_hook_runs",
        "pre_denied",
        "pre_hook_runs",
        "refused_calls",
        "repaired",
        "repeat_records",
        "repeat_results",
        "repeated",
        "replacement_keys",
        "reply_calls",
        "reply_ids",
        "reply_seq",
        "reset_at",
        "reset_scope",
        "results",
        "seq_drift",
        "skips",
        "skips_forgotten",
        "surface_in_order",
        "surface_keys",
        "surface_kinds",
        "surface_seqs",
        "tool_hooks_named",
        "tool_hooks_unnamed",
        "unapplied_rewrites",
        "unnamed_answers",
        "unnamed_post_runs",
        "unnamed_pre_answerers",
        "unnamed_suppliers",
        "unrecorded_blamed",
    )

    def __init__(self) -> None:
        self.expected_seq = 0
        # How far the numbering has drifted from the events' positions: every event that
        # breaks LOG-1 moves it, so `expected_seq - seq_drift` is the current event's index.
        self.seq_drift = 0
        # After an event that broke LOG-1: the next event's index and the seq due before the
        # break. A line inserted with a taken seq (an event written again, not right after
        # itself) breaks it, and the event after it keeps the numbering it broke out of.
        self.after_break = (-1, -1)
        # The seqs a break jumped over and no line has carried since, the last SKIPS_KEPT
        # spans: (start, stop, due, came), seqs start to stop - 1 of those skipped when seq
        # `came` came where `due` was due. A seq below the one due is taken already unless
        # one of them skipped it (a line moved later): LOG-1's words say which.
        self.skips: list[tuple[int, int, int, int]] = []
        self.skips_forgotten = False
        self.open_turn: int | None = None
        self.next_turn = 1
        self.open_step: int | None = None
        self.next_step = 1
        # A turn or step numbered otherwise than due breaks TURN-1 or STEP-1 once: the events
        # after it may name it by the number it was given or by the one that was due (as the
        # seqs after a LOG-1 break), so that one wrong number is not blamed again on every
        # event of the turn (STEP-1, STEP-2, STEP-3, TURN-2). None while the numbers agree.
        self.open_turn_due: int | None = None
        self.next_turn_due: int | None = None
        self.open_step_due: int | None = None
        self.next_step_due: int | None = None
        self.reply_seq: int | None = None
        self.reply_calls: dict[str, tuple[int, CallFact]] = {}
        self.call_records: dict[str, RecordedCall] = {}
        self.results: dict[str, int] = {}
        # The results of the last step that had any, once that step is over: call id -> seq. A
        # hook naming such a call in a later step (or between steps) came after its result
        # (HOOK-4, HOOK-5), unless a reply of its own step makes a call with that id again.
        self.answered_before: dict[str, int] = {}
        # Those calls' records, and the turn of that step while it was open (None once the
        # turn ended: `failed_results`, which tells whether a result succeeded, is the turn's).
        self.answered_records: dict[str, RecordedCall] = {}
        self.answered_turn: int | None = None
        # The open turn's results that are errors: call id -> that result's seq (a later step
        # may reuse the id, so a result is this one when the seqs agree). A PreToolUse input
        # supplied after its call's result is held to RW-2 only where that result succeeded.
        self.failed_results: dict[str, int] = {}
        # The reply's call ids in model order, and the position of the first without a result.
        self.reply_ids: tuple[str, ...] = ()
        self.first_unanswered = 0
        self.dangling: list[tuple[str, int]] = []
        # How many of `dangling` were left by steps before the last one that ended: the rest
        # were left by it (a crash repair's step, when the turn then ends interrupted).
        self.dangling_before_last_step = 0
        # The calls the last turn to end left without a result, with the seq of its turn/end
        # (ADJ-3 there): a result that comes for one later is that result, misplaced.
        self.left_unanswered: dict[str, int] = {}
        # The step the last turn to end left open (TURN-2 there): turn, step, the turn/end's
        # seq. A step/end of it after the turn/end is that step/end, written late.
        self.left_open_step: tuple[int | None, int, int] | None = None
        self.pending_hooks: dict[tuple[int, str, str], int] = {}
        # The call a pending hook/invoked names, when it names one: its hook/result answers
        # for that call (HOOK-1), and is folded as that call's answer.
        self.pending_hook_calls: dict[tuple[int, str, str], str] = {}
        # How many PreToolUse or PostToolUse hooks of the log named their call, and how many
        # named none (dsh writes no callId): the rules that tie a hook's answer to its call
        # cannot judge the latter (`HOOK_CALL_RULES`).
        self.tool_hooks_named = 0
        self.tool_hooks_unnamed = 0
        self.hook_results: dict[str, list[HookAnswer]] = {}
        # call id -> the first PostToolUse answer audited as a block: its result is an error.
        self.post_blocked: dict[str, HookAnswer] = {}
        self.pre_hook_runs: dict[tuple[str, str], int] = {}
        # (call id, handler) -> the seq of that PostToolUse hook's first hook/invoked for the
        # call: it judges the call's result once (HOOK-5).
        self.post_hook_runs: dict[tuple[str, str], int] = {}
        # The hooks whose PreToolUse answer in the open step named no call: a sidecar naming
        # one of them may name the hook that supplied its input (`rewrite_traced_to_hooks`).
        self.unnamed_pre_answerers: set[str] = set()
        # The open turn's first result an abort wrote (ABORTED, ABORTED_BEFORE_DISPATCH): its
        # call, seq and code; the turn then ends aborted (ABORT-1). None when none.
        self.aborted_result: tuple[str, int, str] | None = None
        # Hooks that name no call (dsh writes none), taken for the one call of the step's reply
        # then without a result, the only call they can be for: the seqs of such a deny or
        # block (kept in `pre_denied` or `post_blocked` as one naming the call is), and call id
        # -> the first PostToolUse hook/invoked so taken (its seq, its handler; HOOK-5).
        self.unnamed_answers: set[int] = set()
        self.unnamed_post_runs: dict[str, tuple[int, str]] = {}
        # Call id -> the last PreToolUse answer so taken that supplied an input (RW-2), when it
        # came after the call's tool/call (as dsh audits): its input is due in that record.
        self.unnamed_suppliers: dict[str, HookAnswer] = {}
        # Per pending approval request, the call it asks about (if it names one).
        self.approvals: dict[str, str | None] = {}
        # The step's approval requests already answered, with the seq of the answer.
        self.answered_approvals: dict[str, int] = {}
        # Requests about a call left unanswered when its step ended: the call, the step/end's
        # seq, and whether an abort's result came in the step (its cancelled answer was due
        # then, ABORT-3). The model has none to answer then (a crash repair writes none, REC-1).
        self.lapsed_approvals: dict[str, tuple[str, int, bool]] = {}
        # Of those, the open turn's whose call's result is an error, not answered since:
        # request -> its call, the step/end's seq, and whether an abort's result came in the
        # step. Only a crash leaves one so (its repair ends the turn interrupted, REC-1): a turn
        # ending otherwise breaks DEC-2, or ABORT-3 where the abort's cancelled answer was due.
        self.lapsed_in_turn: dict[str, tuple[str, int, bool]] = {}
        # The request a turn's end named so, while no answer came: a late one is that fault's
        # (not blamed again).
        self.lapsed_blamed: set[str] = set()
        # Calls whose approval was answered otherwise than allowed-once: that answer, its seq.
        self.refused_calls: dict[str, tuple[str, int]] = {}
        # The ids the step's reply repeats (EXE-1), with every block of each; and for those, the
        # seqs of their records and how many results they have had. Each of the calls may be
        # recorded and answered once: EXE-1 names the reply, and the records and results of its
        # calls are not blamed again (ORD-2, ADJ-2, RW-1) for sharing an id.
        self.repeated: dict[str, tuple[CallFact, ...]] = {}
        self.repeat_records: dict[str, list[int]] = {}
        self.repeat_results: dict[str, int] = {}
        # Calls a PreToolUse hook asked about whose approval is not (yet) allowed-once: only
        # that answer runs them (DEC-2), so a success before it shows a call run unapproved.
        self.approval_due: set[str] = set()
        # call id -> the first PreToolUse answer audited as a deny (deny or block): the call
        # never runs (DEC-1), and the deny outranks any ask (HOOK-2), so no approval is due.
        self.pre_denied: dict[str, HookAnswer] = {}
        self.unapplied_rewrites: dict[str, str] = {}
        # After which event of the open turn a message that arises must wait for the next
        # step/start (ADJ-4), and its type: the latest of the open step's reply, calls,
        # results, tool hooks and approvals, or the step/end of the last step; None right after
        # a step/start (its queued messages are appended now) and before the turn's first step.
        self.messages_wait_after: int | None = None
        self.messages_wait_kind = ""
        # A crash repair's result was appended in the open turn: the turn must end interrupted.
        self.repaired = False
        # The open turn closing after an interrupted reply or from a repair's first result: what
        # of the loop may still come (`ClosingTurn`), or None.
        self.closing: ClosingTurn | None = None
        # The time of the event before the current one, None when unknown (a compact row's
        # chunks, or an event `loopspec check` judged without its fact: the checker sets it).
        self.last_time: int | None = None
        # The open turn's interrupted replies that carry calls (ABORT-2 blames each): their
        # calls, which no one was to answer, are not blamed again when the turn ends (ADJ-3).
        self.interrupted_replies: set[int] = set()
        # The reply (by seq) whose calls' missing tool/call records the reader of a log's commit
        # markers blamed on LOG-8 (`loopspec.properties.logcheck.commit_units`), and those
        # calls: their results are not blamed again on ADJ-2 for lacking a record.
        self.unrecorded_blamed: tuple[int | None, frozenset[str]] = (None, frozenset())
        # The surface: its nodes' seqs and kinds in order. While every surface event comes
        # after the last one (always, in a log that keeps LOG-1), a node is found by bisecting
        # `surface_keys`, which rise along the surface: an appended node's key is its seq, a
        # replacement inherits the key of the first node it replaces (`replacement_keys`).
        # None until the first replacement: the keys are then the seqs, and one list is kept
        # (an append to each was about 100 instructions a surface event). After an
        # out-of-order surface event, nodes are found by linear search instead.
        # A node's kind is its `SURFACE_CODE`, a tool/result's marked with its call
        # (`result_kind`), so that LOG-7 tells which call a result it shadows answers.
        # Lists, packed into arrays once `PACKED_SURFACE` nodes long (`append_surface`; seqs
        # and keys of 8 bytes, kinds of 4): importing `array` imports collections, which would
        # cost a short log's check a fifth of the interpreter's start; a long one's ints take a
        # quarter of the memory packed.
        self.surface_seqs: list[int] | array[int] = []
        self.surface_kinds: list[int] | array[int] = []
        self.surface_keys: list[int] | array[int] | None = None
        self.replacement_keys: dict[int, int] = {}
        # The last surface event's seq, below every int before the first (one comparison an
        # append, where a test of None was one more).
        self.last_surface_seq: float = _BELOW_EVERY_SEQ
        self.surface_in_order = True
        # What became of surface events no longer on the surface, for LOG-7's words: a node
        # taken off by a replacement, with that replacement's seq, and the replacements LOG-7
        # refused (None), which never landed. Only the latest are kept (`_remember_gone`), so
        # that a log's compactions do not grow the prefix with its length; `forgotten_upto`
        # is the highest seq no longer remembered.
        self.gone: dict[int, int | None] = {}
        self.forgotten_upto = -1
        # The event whose fold last ran `_reset` (its index, `expected_seq - seq_drift`, which
        # every event's fold moves on: `fold`, `LogMonitor.feed`, the checker's clean judges),
        # and the scope it forgot: the event right after it need not forget that again, as no
        # event came between to hold anything (`start_turn`, `start_step`).
        self.reset_at = -1
        self.reset_scope: ResetScope = "step"

    # -- folding ---------------------------------------------------------------------------

    def _reset(self, scope: ResetScope) -> None:
        """Forget what `scope` holds (`ResetScope`): one call whatever it forgets, as every
        step's start and end run it (a string constant: a global's load costs more)."""
        self.reset_at, self.reset_scope = self.expected_seq - self.seq_drift, scope
        # An empty container is kept rather than replaced: most steps leave some empty.
        if scope != "hooks":  # (the step's were forgotten by the reset right before)
            self.reply_seq = None
            self.first_unanswered = 0
            if self.reply_ids:
                self.reply_ids = ()
            if self.reply_calls:
                self.reply_calls = {}
            if self.results:  # (kept, with the step's records, for a hook audited later)
                self.answered_before, self.results = self.results, {}
                self.answered_records, self.call_records = self.call_records, {}
                self.answered_turn = self.open_turn
            elif self.call_records:
                self.call_records = {}
            if self.refused_calls:
                self.refused_calls = {}
            if self.repeated:
                self.repeated, self.repeat_records, self.repeat_results = {}, {}, {}
            if self.unapplied_rewrites:
                self.unapplied_rewrites = {}
            if scope == "turn":
                if self.dangling:
                    self.dangling = []
                if self.failed_results:
                    self.failed_results = {}
                if self.aborted_result is not None:
                    self.aborted_result = None
                self.dangling_before_last_step = 0
                self.repaired = False
                self.closing = None
                if self.interrupted_replies:
                    self.interrupted_replies = set()
                if self.lapsed_in_turn:
                    self.lapsed_in_turn = {}
            elif scope == "step":
                return
        if self.hook_results:
            self.hook_results = {}
        if self.post_blocked:
            self.post_blocked = {}
        if self.approval_due:
            self.approval_due = set()
        if self.pre_denied:
            self.pre_denied = {}
        if self.pre_hook_runs:
            self.pre_hook_runs = {}
        if self.post_hook_runs:
            self.post_hook_runs = {}
        if self.unnamed_pre_answerers:
            self.unnamed_pre_answerers = set()
        if self.tool_hooks_unnamed:  # (one test where hooks name their calls, as most do)
            self.unnamed_answers, self.unnamed_post_runs = set(), {}
            self.unnamed_suppliers = {}
        if self.answered_approvals:
            self.answered_approvals = {}

    def supplied_rewrite(self, call_id: str) -> str | None:
        """The last hook whose audited PreToolUse answer supplied an input that should apply.

        None when no hook supplied one, or when a hook denied the call (a deny discards them).
        """
        supplier = None
        for answer in self.hook_results.get(call_id, ()):
            if answer.point != "PreToolUse":
                continue
            if answer.decision in DENYING_DECISIONS:
                return None
            if answer.updated_input is not None and answer.decision in SUPPLYING_DECISIONS:
                supplier = answer.handler_id
        return supplier

    def unanswered(self) -> list[tuple[str, int]]:
        """Calls of the open step's reply without a result, with the reply's seq."""
        assert self.reply_seq is not None or not self.reply_calls
        return [
            (call_id, self.reply_seq or 0)
            for call_id in self.reply_calls
            if call_id not in self.results
        ]

    def note_break(self, seq: int) -> None:
        """Remember an event whose `seq` breaks LOG-1, before it is folded: the index and seq
        the next event may keep (`after_break`), and the seqs it skipped (`skips`)."""
        self.after_break = (self.expected_seq - self.seq_drift + 1, self.expected_seq)
        skips = self.skips
        if seq > self.expected_seq:
            skips.append((self.expected_seq, seq, self.expected_seq, seq))
        else:  # a seq a break skipped, come now, is skipped no more: a copy of it is taken
            for at in range(len(skips) - 1, -1, -1):
                start, stop, due, came = skips[at]
                if start <= seq < stop:
                    spans = ((start, seq), (seq + 1, stop))
                    skips[at : at + 1] = [(a, b, due, came) for a, b in spans if a < b]
                    break
        if len(skips) > SKIPS_KEPT:
            del skips[0]
            self.skips_forgotten = True

    def skipped_by(self, seq: int) -> tuple[int, int] | None:
        """The last break remembered that skipped `seq`, which no line has carried since:
        (due, came), seq `came` where `due` was due; None when none did."""
        for start, stop, due, came in reversed(self.skips):
            if start <= seq < stop:
                return due, came
        return None

    def fold(self, fact: Fact) -> None:
        """Absorb `fact` into the prefix."""
        if fact.seq != self.expected_seq:
            self.note_break(fact.seq)
        self.seq_drift += fact.seq - self.expected_seq
        self.expected_seq = fact.seq + 1
        if self.closing is not None:
            self.follow_closing(fact)
        # One lookup instead of a chain of type tests: most events only advance the seq.
        folder = FOLDERS.get(fact.type)
        if folder is not None:
            folder(self, fact)
        self.last_time = fact.time

    def follow_closing(self, fact: Fact) -> None:
        """Fold `fact` into the closing turn (`closing`, not None): a closer moves it on; any
        other event of the loop ends it, blamed once (`interrupted_reply_ends_its_turn`,
        `repair_closers_follow_each_other`). turn/end and turn/start end it in their folds."""
        closing = self.closing
        assert closing is not None
        match closer_role(closing, fact):
            case "step/end":
                closing.step_ended = True
            case "result" | "turn/end" | "not read":
                pass
            case _:
                if closing.mistimed:
                    self.repaired = False  # the loop's own result, mislabelled: no repair
                self.closing = None
                return
        if closing.time is not None and fact.time is not None and fact.time != closing.time:
            closing.time = None  # blamed once (REC-1)

    # Each fold below reads its fact's fields and hands them to a method that takes the fields
    # themselves: the checker's clean-event path (`loopspec.properties.logcheck.clean_events`)
    # folds an event it judged straight from its JSON through those, without building a fact.

    def _fold_turn_start(self, fact: Fact) -> None:
        # A turn/start naming the open turn (TURN-1 blames it) is that turn's, written again:
        # what follows goes on in it, its step open still.
        if fact.turn is None or fact.turn != self.open_turn:
            self.start_turn(fact.turn)

    def names_open_turn(self, turn: int | None) -> bool:
        """Whether `turn` is the open turn's number, as it was given or as it was due."""
        return turn == self.open_turn or (turn is not None and turn == self.open_turn_due)

    def names_open_step(self, turn: int | None, step: int | None) -> bool:
        """Whether (`turn`, `step`) is the open step, by the numbers given or due."""
        return self.names_open_turn(turn) and (
            step == self.open_step or (step is not None and step == self.open_step_due)
        )

    def start_turn(self, turn: int | None) -> None:
        """Fold a turn/start of `turn`."""
        if turn == self.next_turn:
            # Numbered as due, as nearly every turn is (this runs per turn): the number due is
            # this one, and no step number is due once a turn starts (`open_step_due` is set
            # only with `next_step_due`).
            if self.open_turn_due is not None or self.next_step_due is not None:
                self.open_turn_due = self.open_step_due = self.next_step_due = None
        else:
            due = turn if turn == self.next_turn_due else self.next_turn
            self.open_turn_due = due if turn != due and self.open_turn is None else None
            self.open_step_due = self.next_step_due = None
        self.open_turn, self.open_step, self.next_step = turn, None, 1
        self.messages_wait_after = None
        # (Right after the last turn's end, nothing is left to forget.)
        at = self.expected_seq - self.seq_drift
        if at != self.reset_at + 1 or self.reset_scope != "turn":
            self._reset("turn")
        else:
            self.reset_at = at

    def _fold_turn_end(self, fact: Fact) -> None:
        if self.lapsed_in_turn and fact.reason_kind not in ("interrupted", None):
            # (`lapsed_request_ends_turn_interrupted` names them all.)
            self.lapsed_blamed.update(self.lapsed_in_turn)
        self.end_turn(fact.turn)

    def end_turn(self, turn: int | None) -> None:
        """Fold a turn/end of `turn`."""
        # (Checked first: nearly every turn ends with every call answered.)
        if self.dangling or (
            self.open_step is not None
            and self.reply_calls
            and not self.reply_calls.keys() <= self.results.keys()
        ):
            left = [call_id for call_id, _reply in self.dangling]
            if self.open_step is not None and self.reply_calls:
                left += [call_id for call_id, _reply in self.unanswered()]
            self.left_unanswered = dict.fromkeys(left, self.expected_seq - 1)
        elif self.left_unanswered:
            self.left_unanswered = {}
        given = self.open_turn
        if self.open_step is not None or self.left_open_step is not None:
            step = self.open_step
            self.left_open_step = None if step is None else (given, step, self.expected_seq - 1)
        self.open_turn, self.open_step = None, None
        self.next_turn = (turn or self.next_turn) + 1
        if turn == given and self.open_turn_due is None and self.next_step_due is None:
            # Numbered as due throughout, as nearly every turn is (`open_step_due` is set only
            # with `next_step_due`): the other numbering is this one.
            self.next_turn_due = None
        else:
            # The other numbering goes on too: the turn's given number, or the due one.
            other = self.open_turn_due if turn == given else given
            self.next_turn_due = other + 1 if other is not None and turn is not None else None
            self.open_turn_due = self.open_step_due = self.next_step_due = None
        self.messages_wait_after = None
        self._reset("turn")

    def _fold_step_start(self, fact: Fact) -> None:
        # A step/start naming the open step (STEP-1 blames it) is that step's, written again:
        # what follows goes on in it (its calls await their results there).
        if fact.step is None or fact.step != self.open_step:
            self.start_step(fact.step)

    def start_step(self, step: int | None) -> None:
        """Fold a step/start of `step`."""
        # Numbered as due, as nearly every step is (this runs per step), nothing else is due
        # (`open_step_due` is set only with `next_step_due`).
        if step != self.next_step or self.next_step_due is not None:
            # The step that was due: by the numbers given, or by those due since a wrong one.
            due = step if step is not None and step == self.next_step_due else self.next_step
            wrong = step is not None and step != due and self.open_step is None
            self.open_step_due = due if wrong else None
            self.next_step_due = due + 1 if wrong else None
        self.open_step = step
        self.next_step = (step or self.next_step) + 1
        self.messages_wait_after = None
        # Call ids are unique only within a reply: a later step may reuse one for a new
        # call, whose PreToolUse hooks run afresh (they run inside the call's own step).
        # (Right after its turn's start, nothing is left to forget.)
        if self.expected_seq - self.seq_drift != self.reset_at + 1:
            self._reset("step and hooks")
        elif self.reset_scope == "step":  # right after its step's end: the hooks' alone
            self._reset("hooks")

    def _fold_step_end(self, fact: Fact) -> None:
        self.end_step(fact.seq)

    def end_step(self, seq: int) -> None:
        """Fold a step/end at `seq`."""
        self.messages_wait_after, self.messages_wait_kind = seq, "step/end"
        self.open_step_due = None
        # (A set comparison in C first: nearly every step ends with all its calls answered.)
        self.dangling_before_last_step = len(self.dangling)
        if self.reply_calls and not self.reply_calls.keys() <= self.results.keys():
            self.dangling.extend(self.unanswered())
        if self.approvals:
            self._lapse_approvals(seq)
        self.open_step = None
        self._reset("step")

    def _lapse_approvals(self, step_end: int) -> None:
        """End the pending requests that ask about a call at its step's end (at `step_end`):
        such a request is pending no longer than its call's step (DEC-2). One naming no call is
        tied to no step, and stays pending."""
        aborted = self.aborted_result is not None
        for approval_id, call_id in list(self.approvals.items()):
            if call_id is not None:
                del self.approvals[approval_id]
                self.lapsed_approvals[approval_id] = (call_id, step_end, aborted)
                # (A call with no result is ADJ-3's at the turn's end, one that succeeded
                # unanswered was blamed at its result: only a refused one is noted.)
                result = self.results.get(call_id)
                if result is not None and self.failed_results.get(call_id) == result:
                    self.lapsed_in_turn[approval_id] = (call_id, step_end, aborted)

    def _fold_user(self, fact: Fact) -> None:
        if fact.surface is not None:
            self._fold_surface(fact)

    def _fold_reply(self, fact: Fact) -> None:
        if is_reply(fact):
            self.take_reply(fact.seq, fact.calls or ())
            if fact.interrupted and fact.calls:
                self.interrupted_replies.add(fact.seq)
            elif fact.interrupted and self.open_step is not None and self.closing is None:
                # (A reply with calls breaks ABORT-2 itself, and is blamed for that alone.)
                self.closing = ClosingTurn(INTERRUPTED_REPLY, fact.seq, None)
        if fact.surface is not None:
            self._fold_surface(fact)

    def take_reply(self, seq: int, calls: Sequence[CallFact]) -> None:
        """Fold an assistant/message at `seq` and its calls (if any): a reply without calls is
        still the step's one reply (ORD-1)."""
        # A repeated id (EXE-1) is one entry, at its first place, with its last block.
        last = {c.id: c for c in calls}
        self.take_distinct_reply(
            seq, {call_id: (i, c) for i, (call_id, c) in enumerate(last.items())}
        )
        if len(last) < len(calls):
            self.repeated = {
                call_id: blocks
                for call_id in last
                if len(blocks := tuple(c for c in calls if c.id == call_id)) > 1
            }

    def take_distinct_reply(self, seq: int, calls: dict[str, tuple[int, CallFact]]) -> None:
        """Fold an assistant/message at `seq` whose calls are `calls`: per call id, the call's
        place in the reply and the call (as `reply_calls` holds them)."""
        self.reply_seq = seq
        if calls:
            self.reply_calls = calls
            self.reply_ids = tuple(calls)
        if self.open_step is not None:  # the step's request is under way (ADJ-4)
            self.messages_wait_after, self.messages_wait_kind = seq, "assistant/message"

    def record_call(self, fact: Fact) -> None:
        """Fold a tool/call `fact` (but not its seq)."""
        self.keep_call(fact.seq, fact.call_id, fact.arguments, fact.rewrite_handlers is not None)

    def keep_call(
        self, seq: int, call_id: str | None, arguments: str | None, rewritten: bool
    ) -> None:
        """Fold a tool/call at `seq` (but not its seq) that records `call_id` running with
        `arguments`; `rewritten` when it carries a rewrite sidecar."""
        if self.open_step is not None:  # the step's request is under way (ADJ-4)
            self.messages_wait_after, self.messages_wait_kind = seq, "tool/call"
        if self.repeated and call_id in self.repeated:  # (a reply rarely repeats an id)
            self.repeat_records.setdefault(call_id, []).append(seq)
        # A second record of a call (ORD-2) does not replace the first: its result cites that.
        if call_id is not None and call_id not in self.call_records:
            record = self.call_records[call_id] = _new(RecordedCall)
            record.seq, record.arguments, record.rewritten = seq, arguments, rewritten
            # (Only a hooked call's record without a sidecar can leave a rewrite unapplied.)
            if not rewritten and call_id in self.hook_results:
                supplier = self.supplied_rewrite(call_id)
                if supplier is not None:
                    self.unapplied_rewrites[call_id] = supplier

    def _fold_result(self, fact: Fact) -> None:
        # A result without its surfaceOp (LOG-2 blames it: no reader writes one so) answers its
        # call as the append its writer meant: counted unanswered too, the call drew an ADJ-3
        # (or ORD-3 at the next result) though its result is in the log; the invariants judge it
        # as that append. A replacement (LOG-7) answers nothing.
        if (
            fact.surface != "replace"
            and fact.call_id is not None
            and not self.names_open_step(fact.turn, fact.step)
        ):
            # A result in the wrong step or turn (STEP-3, TURN-3) still answers its call if that
            # call awaits it, an earlier step's of this turn or, the step it names a slip of
            # the writer's, the open step's (so ADJ-3 is not blamed at the turn's end, nor ORD-3
            # at the next result, for the same misplaced result).
            self.answer_dangling(fact.call_id)
            if fact.call_id in self.reply_calls and fact.call_id not in self.results:
                self.take_result(fact.call_id, fact.seq)
        elif fact.surface != "replace" and fact.call_id is not None:
            waited = self.messages_wait_after, self.messages_wait_kind
            if fact.call_id not in self.reply_calls and self.dangling:
                # A call of an earlier step answered late (ADJ-2 blames the result): answered,
                # it is not blamed again as unanswered when the turn ends (ADJ-3).
                self.answer_dangling(fact.call_id)
            self.take_result(fact.call_id, fact.seq)
            if fact.is_error:
                self.failed_results[fact.call_id] = fact.seq
            if fact.call_id not in self.reply_calls:
                # A result for no call of the step's reply is ADJ-2's alone: a message after it
                # is not blamed again for following it (ADJ-4).
                self.messages_wait_after, self.messages_wait_kind = waited
            if fact.error_code in ABORT_CODES and self.aborted_result is None:
                self.aborted_result = (fact.call_id, fact.seq, fact.error_code)
            if fact.error_code in REPAIR_CODES:
                self.repaired = True
                if self.closing is None:
                    # The repair's first closer: the rest carry its time, when it is the last
                    # event's (else REC-1 blamed it, once).
                    last = self.last_time
                    timed = last is None or fact.time == last
                    self.closing = ClosingTurn(
                        REPAIR, fact.seq, fact.time if timed else None, mistimed=not timed
                    )
        if fact.surface is not None:
            self._fold_surface(fact)

    def answer_dangling(self, call_id: str) -> None:
        """Take `call_id` off the calls an ended step of the open turn left unanswered."""
        kept = [entry for entry in self.dangling if entry[0] != call_id]
        if len(kept) != len(self.dangling):
            before = self.dangling[: self.dangling_before_last_step]
            self.dangling_before_last_step -= sum(1 for entry in before if entry[0] == call_id)
            self.dangling = kept

    def take_result(self, call_id: str, seq: int) -> None:
        """Fold an appended tool/result at `seq` that answers `call_id` (but not its surface)."""
        if self.open_step is not None:  # the step's request is under way (ADJ-4)
            self.messages_wait_after, self.messages_wait_kind = seq, "tool/result"
        if self.repeated and call_id in self.repeated:  # (a reply rarely repeats an id)
            self.repeat_results[call_id] = self.repeat_results.get(call_id, 0) + 1
        self.results[call_id] = seq
        ids, at = self.reply_ids, self.first_unanswered
        while at < len(ids) and ids[at] in self.results:
            at += 1
        self.first_unanswered = at

    def _fold_hook_invoked(self, fact: Fact) -> None:
        if fact.turn is not None:
            self.hook_invoked(fact.turn, fact.point, fact.handler_id, fact.call_id, fact.seq)

    def hook_invoked(
        self, turn: int, point: str | None, handler_id: str | None, call_id: str | None, seq: int
    ) -> None:
        """Fold a hook/invoked at `seq`."""
        pending = (turn, point or "", handler_id or "")
        self.pending_hooks[pending] = seq
        if call_id is not None:
            self.pending_hook_calls[pending] = call_id
        elif self.pending_hook_calls:
            self.pending_hook_calls.pop(pending, None)
        if point in TOOL_HOOK_POINTS:
            if call_id is None:
                self.tool_hooks_unnamed += 1
                if point == "PostToolUse" and self.reply_calls:
                    sole = self.sole_unanswered()
                    if sole is not None:
                        self.unnamed_post_runs.setdefault(sole, (seq, handler_id or ""))
            else:
                self.tool_hooks_named += 1
            if self.open_step is not None:  # the step's request is under way (ADJ-4)
                self.messages_wait_after, self.messages_wait_kind = seq, "hook/invoked"
        if call_id is not None and point == "PreToolUse":
            key = (call_id, handler_id or "")
            self.pre_hook_runs[key] = self.pre_hook_runs.get(key, 0) + 1
        elif call_id is not None and point == "PostToolUse":
            self.post_hook_runs.setdefault((call_id, handler_id or ""), seq)

    def take_hook_result(self, fact: Fact) -> None:
        """Fold a hook/result `fact` (but not its seq)."""
        answer = HookAnswer(
            fact.seq, fact.point, fact.handler_id, fact.decision, fact.updated_input
        )
        self.take_hook_answer(fact.turn, fact.call_id, answer)

    def take_hook_answer(self, turn: int | None, call_id: str | None, answer: HookAnswer) -> None:
        """Fold a hook/result (but not its seq): `answer`, given in `turn`, about `call_id` if
        any."""
        if answer.point in TOOL_HOOK_POINTS and self.open_step is not None:  # under way (ADJ-4)
            self.messages_wait_after, self.messages_wait_kind = answer.seq, "hook/result"
        if turn is not None:
            key = (turn, answer.point or "", answer.handler_id or "")
            self.pending_hooks.pop(key, None)
            if call_id is not None or self.pending_hook_calls:
                # It answers for the call its hook/invoked names, named again or not (HOOK-1):
                # one naming another call is HOOK-1's, blamed once.
                call_id = self.pending_hook_calls.pop(key, call_id)
            if call_id is not None:
                self.hook_results.setdefault(call_id, []).append(answer)
                if answer.decision in ASKING_DECISIONS and answer.point == "PreToolUse":
                    self.approval_due.add(call_id)
                elif answer.decision in DENYING_DECISIONS and answer.point == "PreToolUse":
                    self.pre_denied.setdefault(call_id, answer)
                elif answer.decision in DENYING_DECISIONS and answer.point == "PostToolUse":
                    self.post_blocked.setdefault(call_id, answer)
                if answer.point == "PreToolUse" and call_id in self.call_records:
                    self.audit_after_record(call_id)
        if call_id is None and answer.point in TOOL_HOOK_POINTS:
            if answer.point == "PreToolUse":
                self.unnamed_pre_answerers.add(answer.handler_id or "")
            if answer.decision in DENYING_DECISIONS and self.reply_calls:
                sole = self.sole_unanswered()
                if sole is not None:
                    self.unnamed_answers.add(answer.seq)
                    if answer.point == "PreToolUse":
                        self.pre_denied.setdefault(sole, answer)
                        self.unapplied_rewrites.pop(sole, None)  # a deny discards the inputs
                    else:
                        self.post_blocked.setdefault(sole, answer)
            elif (
                answer.point == "PreToolUse"
                and answer.updated_input is not None
                and answer.decision in SUPPLYING_DECISIONS
                and self.reply_calls
            ):
                self.supplied_unnamed(answer)

    def supplied_unnamed(self, answer: HookAnswer) -> None:
        """Note a PreToolUse answer naming no call that supplied an input: the one call of the
        step's reply then without a result, already recorded without a sidecar, runs it or fails
        (RW-2), as when the hook named it. A call not yet recorded may get its sidecar later,
        and which one it is, with several awaiting, the log does not say."""
        sole = self.sole_unanswered()
        if sole is None or sole in self.pre_denied:
            return
        record = self.call_records.get(sole)
        if record is None or record.rewritten:
            return
        self.unnamed_answers.add(answer.seq)
        self.unnamed_suppliers[sole] = answer
        self.unapplied_rewrites[sole] = answer.handler_id or ""

    def sole_unanswered(self) -> str | None:
        """The one call of the open step's reply without a result, or of several the one
        recorded (dsh records a call as it starts, then audits its hooks), or None: the call a
        hook naming none is about."""
        missing = [call_id for call_id in self.reply_calls if call_id not in self.results]
        if len(missing) > 1:
            missing = [call_id for call_id in missing if call_id in self.call_records]
        return missing[0] if len(missing) == 1 else None

    def audit_after_record(self, call_id: str) -> None:
        """Note a PreToolUse answer about `call_id` audited after its tool/call: an input it
        supplies is due in the record's sidecar as one supplied before (RW-2), and a deny
        discards the inputs supplied so far."""
        if self.call_records[call_id].rewritten:
            return
        supplier = self.supplied_rewrite(call_id)
        if supplier is not None:
            self.unapplied_rewrites[call_id] = supplier
        elif call_id in self.unapplied_rewrites:
            del self.unapplied_rewrites[call_id]

    def _fold_asked(self, fact: Fact) -> None:
        self.ask_approval(fact.seq, fact.approval_id, fact.call_id)

    def ask_approval(self, seq: int, approval_id: str | None, call_id: str | None) -> None:
        """Fold an approval/asked at `seq` (but not its seq): request `approval_id`, about
        `call_id` if it names one."""
        if self.open_step is not None:  # the step's request is under way (ADJ-4)
            self.messages_wait_after, self.messages_wait_kind = seq, "approval/asked"
        if approval_id is not None:
            self.approvals[approval_id] = call_id
        if call_id is not None and call_id not in self.pre_denied:
            self.approval_due.add(call_id)  # asked, whoever asked: only allowed-once runs it

    def _fold_decided(self, fact: Fact) -> None:
        self.decide_approval(fact.seq, fact.approval_id, fact.outcome)

    def decide_approval(self, seq: int, approval_id: str | None, outcome: str | None) -> None:
        """Fold an approval/decided at `seq` (but not its seq): request `approval_id` answered
        with `outcome`."""
        if self.open_step is not None:  # the step's request is under way (ADJ-4)
            self.messages_wait_after, self.messages_wait_kind = seq, "approval/decided"
        if approval_id is not None and approval_id in self.approvals:
            call_id = self.approvals.pop(approval_id)
            self.answered_approvals[approval_id] = seq
            if call_id and outcome != "allowed-once":
                self.refused_calls[call_id] = (str(outcome), seq)
            elif call_id:
                self.approval_due.discard(call_id)
        else:
            if outcome == "allowed-once":
                # An answer to no pending request (DEC-2 blames it) may be the one a call
                # awaits, misnamed: that call's success is not blamed again as run unapproved.
                self.approval_due.clear()
            if self.lapsed_in_turn and approval_id in self.lapsed_in_turn:
                # A request answered after its step (blamed at that answer) does not end its
                # turn unanswered too.
                del self.lapsed_in_turn[approval_id]
            elif self.lapsed_blamed and approval_id in self.lapsed_blamed:
                self.lapsed_blamed.discard(approval_id)

    def _fold_surface(self, fact: Fact) -> None:
        code = SURFACE_CODE[fact.type]
        if code == RESULT_KIND:
            code = result_kind(fact.call_id)
        if fact.surface == "append":
            self.append_surface(fact.seq, code)
            return
        seq = fact.seq
        self._surface_order(seq)
        span = self.surface_span(fact.surface_start, fact.surface_end)
        if span is None:
            self._remember_gone((seq,), None)
            return
        first, last = span
        self._remember_gone(self.surface_seqs[first : last + 1], seq)
        if self.replacement_keys:
            for gone in self.surface_seqs[first : last + 1]:
                self.replacement_keys.pop(gone, None)
        # The span becomes one node, at `first`, keeping the first node's key.
        keys = self.surface_keys
        if keys is None:  # the first replacement: the keys part from the seqs
            keys = self.surface_keys = self.surface_seqs[:]
        key = keys[first]
        self.surface_seqs[first] = seq
        del self.surface_seqs[first + 1 : last + 1]
        self.surface_kinds[first] = code
        del self.surface_kinds[first + 1 : last + 1]
        del keys[first + 1 : last + 1]
        if key != seq:
            self.replacement_keys[seq] = key

    def _remember_gone(self, seqs: Iterable[int], replacer: int | None) -> None:
        """Note `seqs` as taken off the surface by `replacer` (None: a refused replacement),
        forgetting the oldest beyond `REMEMBERED_GONE`: kept in one dict, in the order they went,
        trimmed by half its size at a time (amortised, as `list.append` grows)."""
        gone = self.gone
        for seq in seqs:
            gone[seq] = replacer
        if len(gone) > 2 * REMEMBERED_GONE:
            kept = list(gone.items())
            self.forgotten_upto = max(
                self.forgotten_upto, *(seq for seq, _ in kept[:-REMEMBERED_GONE])
            )
            self.gone = dict(kept[-REMEMBERED_GONE:])

    def append_surface(self, seq: int, code: int) -> None:
        """Fold the surface node a surface event at `seq` appends (`code`: its `SURFACE_CODE`,
        a tool/result's `result_kind`)."""
        # `_surface_order`, inlined: most surface events are appended.
        if seq > self.last_surface_seq:
            self.last_surface_seq = seq
        else:
            self.surface_in_order, self.last_surface_seq = False, seq
        seqs = self.surface_seqs
        seqs.append(seq)
        self.surface_kinds.append(code)
        keys = self.surface_keys
        if keys is not None:
            keys.append(seq)
        if len(seqs) == PACKED_SURFACE and type(seqs) is list:
            self._pack_surface()

    def _pack_surface(self) -> None:
        from array import array  # noqa: PLC0415 (see `surface_seqs`)

        self.surface_seqs = array("q", self.surface_seqs)
        self.surface_kinds = array("I", self.surface_kinds)
        if self.surface_keys is not None:
            self.surface_keys = array("q", self.surface_keys)

    def _surface_order(self, seq: int) -> None:
        if seq <= self.last_surface_seq:
            self.surface_in_order = False
        self.last_surface_seq = seq

    def surface_span(self, start: int | None, end: int | None) -> tuple[int, int] | None:
        """Positions of surface nodes `start` and `end` when both are current and ordered."""
        if start is None or end is None:
            return None
        first, last = self.surface_position(start), self.surface_position(end)
        if first is None or last is None:
            return None
        return (first, last) if first <= last else None

    def surface_position(self, seq: int) -> int | None:
        """Where on the surface the current node `seq` is (its first place), or None."""
        seqs = self.surface_seqs
        if not self.surface_in_order:
            try:
                return seqs.index(seq)
            except (ValueError, OverflowError):
                return None
        # Imported here: only a replacement (compaction) asks where a node is, and loading the
        # accelerator costs every `loopspec check` start-up (tests/test_check_startup.py). The C
        # one `bisect` re-exports: its Python fallbacks would be a module more.
        from _bisect import bisect_left  # noqa: PLC0415

        keys = seqs if self.surface_keys is None else self.surface_keys
        at = bisect_left(keys, self.replacement_keys.get(seq, seq))
        return at if at < len(seqs) and seqs[at] == seq else None


SURFACE_CODE = {"user/message": 0, "assistant/message": 1, "tool/result": 2}
RESULT_KIND = SURFACE_CODE["tool/result"]
"""The least kind of a tool/result node: a kind at or above it is a result's (`result_kind`)."""
CALL_MARK = 0x7FFFFFFF
"""The bits of a call id's hash a result's surface node keeps (`result_kind`)."""


def result_kind(call_id: str | None) -> int:
    """The kind of a tool/result node answering `call_id` on the surface: `RESULT_KIND` plus 31
    bits of the id's hash, so that a replacement shadowing the result is seen to answer another
    call (LOG-7) in 4 bytes a node, where the id itself would take some 50. Two ids share the
    bits once in 2**31 (the hash is the interpreter's, seeded per process): a replacement naming
    such another call passes; the same id never differs."""
    return RESULT_KIND if call_id is None else RESULT_KIND + (hash(call_id) & CALL_MARK)


# The types `Prefix.fold` remembers more of than the seq; every other type only advances it.
if TYPE_CHECKING:
    _Folder = Callable[[Prefix, Fact], None]
FOLDERS: dict[str, _Folder] = {
    "turn/start": Prefix._fold_turn_start,
    "turn/end": Prefix._fold_turn_end,
    "step/start": Prefix._fold_step_start,
    "step/end": Prefix._fold_step_end,
    "user/message": Prefix._fold_user,
    "assistant/message": Prefix._fold_reply,
    "tool/call": Prefix.record_call,
    "tool/result": Prefix._fold_result,
    "hook/invoked": Prefix._fold_hook_invoked,
    "hook/result": Prefix.take_hook_result,
    "approval/asked": Prefix._fold_asked,
    "approval/decided": Prefix._fold_decided,
}

# Checks return sequences rather than yield: a generator costs a frame per call, and the checks
# run for every event of a log. When nothing is wrong (nearly always) they return the shared
# `NO_VIOLATIONS` rather than a fresh empty list.
NO_VIOLATIONS: tuple[Violation, ...] = ()

# `LogMonitor.quiet_kind`'s answers, and the checks of a type whose data no rule reads.
QUIET_NEVER, QUIET_ANYWHERE, QUIET_IN_TURN, QUIET_IN_STEP = range(4)

# Exit code 2 is a hook's blocking exit (Claude Code, Codex, dsh's bridge), whatever it printed:
# its audit records a deny or a block (deny, block, or stop for `continue: false`), or a failed
# hook's pass (error, HOOK-7). `commands.exits_2` says the same of an answer the model is given.
BLOCKING_EXIT_DECISIONS = DENYING_DECISIONS | {"error", "stop"}


def closer_role(closing: ClosingTurn, fact: Fact) -> str:
    """What `fact` is to a turn that is `closing`: "step/end", "result" (a repair's) and
    "turn/end" close it; "not read" is of a type no rule judges there; "intrudes" is any other
    event of the loop, which has no place there."""
    kind = fact.type
    if kind == "turn/end":
        return kind
    if kind == "step/end":
        return "intrudes" if closing.step_ended else kind
    if (
        kind == "tool/result"
        and closing.kind == REPAIR
        and not closing.step_ended
        and fact.surface != "replace"
        and fact.error_code in REPAIR_CODES
    ):
        return "result"
    return "intrudes" if kind in CLOSING_READS else "not read"


def post_answer(prefix: Prefix, call_id: str) -> HookAnswer | None:
    """The first PostToolUse answer audited for `call_id` since the step started, or None."""
    for answer in prefix.hook_results.get(call_id, ()):
        if answer.point == "PostToolUse":
            return answer
    return None


# JSON values `freeze` keeps as they are, never refusing one (it refuses some numbers).
_FROZEN_AS_THEY_ARE = frozenset({str, bool, type(None)})


def arguments_are_an_object(raw: str) -> bool:
    """Whether a call's raw arguments are a JSON object as every reader parses them (EXE-2)."""
    # `parse_arguments`, without building the frozen copy where it cannot fail: the checker
    # asks this of every hooked call of a reply. Most arguments are an object alone, its "{"
    # first: `value_of`'s scanner reads it here as `value_of` would from 0 (no space to skip),
    # and anything but the object ending the text (an error, text or space after it) is left
    # to `value_of` (a third of the call's instructions spared, the scanner's being the rest).
    parsed: object = None
    if raw[:1] == "{" and SCANNERS:
        try:
            parsed, end = SCANNERS[0](raw, 0)
        except (ValueError, StopIteration, SystemError, RecursionError):
            parsed = None
        else:
            if end != len(raw):
                parsed = None
    if parsed is None:  # (no JSON text reads as None but "null", which is no object either)
        try:
            parsed = value_of(raw)
        except RecursionError:
            parsed = NOT_JSON
        if parsed is NOT_JSON:
            return not raw.strip()  # blank means {}; other text that is not JSON stays a string
    if type(parsed) is not dict:
        return False
    # (A loop, not a generator over the values, nor `map` in C: a reply's hooked calls each ask
    # this, and most hold a value or two.)
    for value in parsed.values():
        if type(value) not in _FROZEN_AS_THEY_ARE:
            # (the frozen values' module, which a check of most logs never needs: bench_cli.py)
            from loopspec.model.jsonvalue import FrozenMap, parse_arguments  # noqa: PLC0415

            return isinstance(parse_arguments(raw), FrozenMap)
    return True


def text_reads_as(text: str, value: object) -> bool:
    """Whether `text` holds one JSON value equal to `value` (a parsed one): the arguments a call
    runs with against the input a hook supplied (RW-2)."""
    try:
        parsed = value_of(text)
        return parsed is not NOT_JSON and same_json(parsed, value)
    except RecursionError:  # nested past what can be read or compared
        return False
