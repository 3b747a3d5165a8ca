"""The log invariants: named predicates over a session log, one registry, each with rule IDs.

Each invariant is a function `check(prefix, fact)` that says what is wrong with appending the
event `fact` to a log whose prefix is summarised by `prefix` (a `Prefix`). `LogMonitor` feeds
every event through every invariant that reads its type (`Invariant.reads`; the others cannot
object to it), then folds the event into the prefix. Because the prefix keeps only what the open
turn and step need (plus the surface's seqs), checking is one pass with memory bounded by the
open turn, not by the log's length.

The same registry serves the model's stateful tests, the implementation's conformance tests and
the offline checker (`loopspec check`): there is one definition of each rule.
"""

from __future__ import annotations

from loopspec.model import PlainRecord
from loopspec.model.facts import (
    ASKING_DECISIONS,
    BLOCKING_EXIT_CODE,
    DENYING_DECISIONS,
    READ_TYPES,
    SUPPLYING_DECISIONS,
    CallFact,
    Fact,
    facts_of,
    hook_duration_valid,
    surface_op_missing,
)
from loopspec.model.json_text import NOT_JSON, spelled, value_of
from loopspec.model.prefix import (
    BLOCKING_EXIT_DECISIONS,
    CLOSING_READS,
    FOLDERS,
    IN_TURN_TYPES,
    INTERRUPTED_REPLY,
    NO_CALLS_IN_REPLY,
    NO_KNOWN_SHAPE,
    NO_VIOLATIONS,
    NON_OBJECT_INPUT_RAN,
    QUIET_ANYWHERE,
    QUIET_IN_STEP,
    QUIET_IN_TURN,
    QUIET_NEVER,
    REFUSING_OUTCOMES,
    REMEMBERED_GONE,
    REPAIR,
    REPAIR_CODES,
    REPAIR_NOT_STARTED,
    REPAIR_OUTCOME_UNKNOWN,
    REPEATED_CALL_ID,
    RESULT_KIND,
    STEP_TYPES,
    SURFACE_CODE,
    SURFACE_TYPES,
    TOOL_HOOK_POINTS,
    UNREPAIRED_TURN,
    HookAnswer,
    Prefix,
    Violation,
    arguments_are_an_object,
    calls_awaiting,
    closer_role,
    is_reply,
    post_answer,
    result_kind,
    text_reads_as,
)

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    # the event model is imported only by `facts_of`, when it runs
    from loopspec.model.events import Event
    from loopspec.model.prefix import _Folder

# Checks return sequences rather than yield: a generator costs a frame per call, and the checks
# run for every event of a log. When nothing is wrong (nearly always) they return the shared
# `NO_VIOLATIONS` rather than a fresh empty list.
if TYPE_CHECKING:
    Check = Callable[[Prefix, Fact], Sequence[Violation]]
    TypeFilter = Callable[[str], bool]

DENY_DISCARDS_REWRITES = ": a deny discards every rewrite (HOOK-3), so no input was applied"
"""How RW-2's words for a sidecar on a denied call end (conform reads the rewrite the loop kept
as HOOK-3's)."""

CITES_NO_EARLIER_EVENT = "sourceEventSeqs must cite earlier events"
"""LOG-2's words for a citation of the event itself, a later one or a negative seq."""
CITES_NOTHING = "sourceEventSeqs may be empty only on assistant/message"
"""LOG-2's words for an empty citation on a user/message or a tool/result."""


def citation_read_whole(found: list[Violation]) -> list[Violation]:
    """What one tool/result commits, save LOG-2's "cite earlier events" or "may be empty only
    on assistant/message" where ORD-2 objects to the same citation: the result cites no
    earlier event in place of its tool/call, and ORD-2's words name the seq to cite, which is
    what its author fixes. Check and conform both read the event so (they share
    `LogMonitor.feed`)."""
    if not any(v.rule_id == "ORD-2" for v in found):
        return found
    return [
        v
        for v in found
        if v.rule_id != "LOG-2" or not v.message.startswith((CITES_NO_EARLIER_EVENT, CITES_NOTHING))
    ]


REPAIR_SHAPES = frozenset({"ORD-3", "ORD-2", "ADJ-2", "TURN-2", "STEP-2", "STEP-3"})
"""Rules of the shape of what crash repair appends: the order of its results, that each
answers a call still without one, once, citing its tool/call, in the open step, and the
step/end of that step before its turn/end. Broken at one of repair's closers, they are REC-1's,
the rule a person fixes there (`repair_shapes_read_as_repair`)."""

_CLOSER_TYPES = frozenset({"tool/result", "step/end", "turn/end"})

REPAIR_TAIL = (
    "repair answers each call of the open step still without a result once, in transcript "
    "order, citing its tool/call when one was recorded, then appends step/end if a step is "
    "open, then turn/end"
)
"""What crash repair appends (REC-1), the end of the words of a repair shape broken."""


def _repair_closer(prefix: Prefix, fact: Fact) -> str | None:
    """Which of crash repair's closers `fact` is, as its words name it ("result", "step/end",
    "turn/end"); None for any other event. A result carrying a repair code, a step/end after
    one (`prefix` not yet folded with `fact`), and a turn/end {interrupted}, which only repair
    writes (TURN-5)."""
    match fact.type:
        case "tool/result" if fact.surface != "replace" and fact.error_code in REPAIR_CODES:
            return "result"
        case "step/end" if prefix.closing is not None and prefix.closing.kind == REPAIR:
            return "step/end"
        case "turn/end" if fact.reason_kind == "interrupted":
            return "turn/end {interrupted}"
    return None


def repair_shapes_read_as_repair(
    prefix: Prefix, fact: Fact, found: list[Violation]
) -> list[Violation]:
    """What one event commits, with a repair shape (`REPAIR_SHAPES`) it breaks at one of crash
    repair's closers named REC-1, its words saying which rule's shape: the repair is what its
    author fixes, whose rule says the order, citations and closers it appends. Check and
    conform both read the event so (they share `LogMonitor.feed`); conform named REC-1 alone,
    check the shape's rule, for the same repair (results in reverse order: ORD-3)."""
    if not any(v.rule_id in REPAIR_SHAPES for v in found):
        return found
    closer = _repair_closer(prefix, fact)
    if closer is None:
        return found
    # A closer outside any step follows a step/start the loop lost (STEP-3 named the first
    # event after it): no repair could have placed it in a step.
    lost_step = prefix.open_step is None
    return [
        Violation(
            "REC-1",
            v.seq,
            f"crash repair breaks {v.rule_id} at its {closer}: {v.message}; {REPAIR_TAIL}",
            v.related,
        )
        if v.rule_id in REPAIR_SHAPES and not (v.rule_id == "STEP-3" and lost_step)
        else v
        for v in found
    ]


def every_type(_kind: str) -> bool:
    """The filter of an invariant that may object to an event of any type."""
    return True


def of_types(*kinds: str) -> TypeFilter:
    """The filter of an invariant that can only object to events of `kinds`."""
    return frozenset(kinds).__contains__


def _turn_enclosed(kind: str) -> bool:
    return kind in IN_TURN_TYPES or kind.startswith("hook/")


class Invariant(PlainRecord):
    """A named predicate over a log, with the rules it enforces and one sentence of meaning.

    `reads` says for which event types `check` can find anything wrong: for every other type
    it yields nothing, so `LogMonitor` need not run it (the prefix still absorbs every event).
    """

    __slots__ = ("name", "rule_ids", "check", "reads")  # noqa: RUF023 (as above)

    def __init__(
        self, name: str, rule_ids: tuple[str, ...], check: Check, reads: TypeFilter = every_type
    ) -> None:
        self.name = name
        self.rule_ids = rule_ids
        self.check = check
        self.reads = reads

    @property
    def meaning(self) -> str:
        """The first paragraph of `check`'s docstring, on one line (a sentence may not fit on
        one line of source). Worked out when read (SPEC.md's table of invariants), not as each
        invariant is registered: that was a hundredth of the interpreter's start in every
        `loopspec check`."""
        return " ".join((self.check.__doc__ or "").strip().split("\n\n")[0].split())


INVARIANTS: list[Invariant] = []


def invariant(
    name: str, *rule_ids: str, reads: TypeFilter = every_type
) -> Callable[[Check], Check]:
    """Register `check` under `name`; its docstring is the invariant's meaning."""

    def register(check: Check) -> Check:
        INVARIANTS.append(Invariant(name, rule_ids, check, reads))
        return check

    return register


# ---------------------------------------------------------------------------------------------
# LOG: the envelope and the surface.


@invariant("seq_is_index", "LOG-1")
def seq_is_index(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """Every event's seq is its index in the log: contiguous from 0."""
    # A break is reported once: after it, an event is judged against the numbering it broke
    # into (a log restarted at seq 0 goes on from there), and one whose seq is its index again
    # (the event after a repeated seq) or the one due before the break (the event after a line
    # inserted with a taken seq) keeps the rule.
    index = prefix.expected_seq - prefix.seq_drift
    if fact.seq in (prefix.expected_seq, index) or prefix.after_break == (index, fact.seq):
        return NO_VIOLATIONS
    if fact.seq < prefix.expected_seq:
        return [seq_below_due(prefix, fact.seq)]
    msg = f"seq {fact.seq} where {prefix.expected_seq} was due"
    # The slip of a writer counting the header (one starting again on resuming: below).
    if prefix.expected_seq == 0 and fact.seq == 1:
        msg += ": the header has no seq, the first event's is 0"
    return [Violation("LOG-1", fact.seq, msg)]


def seq_below_due(prefix: Prefix, seq: int) -> Violation:
    """The LOG-1 of an event whose `seq` is below the one due: taken already, or skipped by an
    earlier break (a line moved later); `check` words so, too, a line at a taken seq marked
    inside a commit none opened (a copy, told from a pipe)."""
    msg = f"seq {seq} where {prefix.expected_seq} was due"
    # Every seq below the one due was taken, or skipped by a break (a line moved later).
    skip = prefix.skipped_by(seq)
    if skip is not None:
        due, came = skip
        msg += (
            f": seq {came} came where {due} was due, skipping it (lines out of order); "
            "each line's seq is the one before it + 1, lines in the order they were written"
        )
        return Violation("LOG-1", seq, msg, (came,))
    taken = "or skipped by an earlier break" if prefix.skips_forgotten else "already"
    msg += (
        f": that seq is taken {taken}; each event's is the one before it + 1, after a "
        "compact row (one per item) or a resume too (go on from the log's last seq)"
    )
    return Violation("LOG-1", seq, msg)


@invariant("surface_metadata_valid", "LOG-2")
def surface_metadata_valid(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """Only surface events carry surfaceOp; sourceEventSeqs cite distinct earlier events."""
    if fact.type not in SURFACE_TYPES:
        if fact.surface == "forbidden":
            msg = (
                f"{fact.type} must not carry surface metadata: only a user/message, an "
                "assistant/message and a tool/result, which add to the history, carry surfaceOp "
                "and sourceEventSeqs; leave them out of this line"
            )
            return [Violation("LOG-2", fact.seq, msg)]
        return NO_VIOLATIONS
    found: list[Violation] = []
    if fact.surface is None:
        found.append(Violation("LOG-2", fact.seq, surface_op_missing(fact.type)))
    sources = fact.sources
    if sources is None:
        return found
    if len(set(sources)) != len(sources):
        found.append(Violation("LOG-2", fact.seq, "sourceEventSeqs repeat a seq"))
    if sources and (max(sources) >= fact.seq or min(sources) < 0):
        cited = next(seq for seq in sources if seq >= fact.seq or seq < 0)
        what = "itself" if cited == fact.seq else "a later event" if cited > 0 else "no event"
        # Name it: a converter that dropped or moved events cites by the seqs they had.
        msg = f"{CITES_NO_EARLIER_EVENT}: it cites seq {cited}, {what}"
        found.append(Violation("LOG-2", fact.seq, msg))
    if not sources and fact.type != "assistant/message":
        found.append(Violation("LOG-2", fact.seq, CITES_NOTHING))
    return found


def _surface_kind_named(code: int) -> str:
    """The event type of a surface node's kind `code` (below `RESULT_KIND`)."""
    return next(kind for kind, known in SURFACE_CODE.items() if known == code)


@invariant("replace_targets_current_nodes", "LOG-7", reads=of_types(*SURFACE_TYPES))
def replace_targets_current_nodes(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A surface replace names current nodes in order; a result replace shadows one result."""
    if fact.surface != "replace":
        return NO_VIOLATIONS
    found: list[Violation] = []
    span = prefix.surface_span(fact.surface_start, fact.surface_end)
    # Only events before this one are cited: `[events 13, 3, 99]` sent a reader to a seq the
    # log does not hold (the message names the number).
    related = tuple(
        s for s in (fact.surface_start, fact.surface_end) if s is not None and 0 <= s < fact.seq
    )
    if span is None:
        why, replacers = _not_current(prefix, fact)
        msg = f"replace {fact.surface_start}..{fact.surface_end} does not name current nodes: {why}"
        found.append(Violation("LOG-7", fact.seq, msg, (*related, *replacers)))
        return found
    first, last = span
    kinds, seqs = prefix.surface_kinds, prefix.surface_seqs
    if fact.type == "tool/result":
        if first != last or kinds[first] < RESULT_KIND:
            # (Named only for one node: a span may start at a result, which has no surface code.)
            what = (
                f"{last - first + 1} nodes"
                if first != last
                else f"the {_surface_kind_named(kinds[first])} at seq {seqs[first]}, no tool/result"
            )
            msg = (
                f"replace {fact.surface_start}..{fact.surface_end} shadows {what}: a tool/result "
                "replacement must shadow exactly one tool/result, the result it prunes"
            )
            found.append(Violation("LOG-7", fact.seq, msg, related))
        elif fact.call_id is not None and kinds[first] != result_kind(fact.call_id):
            # (A result naming no call is LOG-4's or LOG-6's.)
            msg = (
                f"replace {fact.surface_start}..{fact.surface_end} shadows the tool/result at seq "
                f"{seqs[first]}, which answers another call than {fact.call_id}: a tool/result "
                "replacement answers the call of the result it shadows (the same toolCallId)"
            )
            found.append(Violation("LOG-7", fact.seq, msg, related))
        return found
    # A result's call is in the node before it, or in a result run that node ends (ADJ-1): a
    # span starting at a result leaves that call without it, and a result right after a span
    # lost its call to it (a compaction dsh writes takes whole batches).
    parted = f"replace {fact.surface_start}..{fact.surface_end} parts a call from its result: "
    keep = "; a replacement keeps a reply's calls and their results together"
    if kinds[first] >= RESULT_KIND:
        msg = (
            f"{parted}it takes away the tool/result at seq {seqs[first]}, whose call stays in "
            f"the history{keep}"
        )
        found.append(Violation("LOG-7", fact.seq, msg, related))
    elif last + 1 < len(kinds) and kinds[last + 1] >= RESULT_KIND:
        msg = (
            f"{parted}the tool/result at seq {seqs[last + 1]}, left in the history, answers a "
            f"call this replacement takes away{keep}"
        )
        found.append(Violation("LOG-7", fact.seq, msg, (*related, seqs[last + 1])))
    return found


def _not_current(prefix: Prefix, fact: Fact) -> tuple[str, tuple[int, ...]]:
    """Why a replace's `start` and `end` are not two current nodes in order, and the seqs of
    the replacements that took a named node off the surface."""
    ends = [("start", fact.surface_start), ("end", fact.surface_end)]
    if fact.surface_start == fact.surface_end:
        ends = [("start and end", fact.surface_start)]
    reasons: list[str] = []
    replacers: list[int] = []
    for role, seq in ends:
        if seq is None:
            reasons.append(f"it names no {role}")
        elif prefix.surface_position(seq) is not None:
            continue
        elif seq in prefix.gone:
            replacer = prefix.gone[seq]
            if replacer is None:
                reasons.append(
                    f"{role} {seq} is a replacement that was refused (LOG-7), never a node"
                )
            else:
                reasons.append(f"{role} {seq} was replaced by seq {replacer}")
                replacers.append(replacer)
        elif seq == fact.seq:
            reasons.append(f"{role} {seq} is this replacement itself")
        elif seq > fact.seq or seq < 0:
            reasons.append(f"{role} {seq} is no event before this one")
        elif seq <= prefix.forgotten_upto:
            reasons.append(
                f"{role} {seq} is no current node: it was never a message, or it went with one of "
                f"the log's earlier replacements (check names those of the last {REMEMBERED_GONE} "
                "nodes to go)"
            )
        else:
            reasons.append(
                f"{role} {seq} was never a message: no user/message, assistant/message or "
                "tool/result was appended at that seq"
            )
    if len(replacers) == 2 and replacers[0] == replacers[1]:  # one replacement took both
        reasons = [
            f"start {fact.surface_start} and end {fact.surface_end} were replaced by seq "
            f"{replacers[0]}"
        ]
        replacers.pop()
    if not reasons:  # both current: they are named in the wrong order
        reasons.append(f"start {fact.surface_start} comes after end {fact.surface_end}")
    return "; ".join(reasons), tuple(replacers)


# ---------------------------------------------------------------------------------------------
# TURN and STEP: numbering and enclosure.


# How `turns_numbered_and_unnested` ends its REC-1 sentence (cut off where no crash came).
@invariant("turns_numbered_and_unnested", "TURN-1", "REC-1", reads=of_types("turn/start"))
def turns_numbered_and_unnested(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """turn/start opens turn n+1 only when no turn is open (while its calls await results: a
    crash left it, and no repair closed it)."""
    if fact.type != "turn/start":
        return NO_VIOLATIONS
    if prefix.open_turn is not None:
        msg = f"turn {fact.turn} starts inside open turn {prefix.open_turn}"
        waiting = [call_id for call_id, _reply in prefix.unanswered()]
        if waiting:
            # What a crash leaves, and a harness resuming without its repair shows: REC-1, as
            # check names it in a Codex rollout, whose turns have no end to nest in. Conform,
            # which knows no crash came, names TURN-1 (`UNREPAIRED_TURN`).
            msg += f", where {calls_awaiting(waiting, 'still')}{UNREPAIRED_TURN}"
            return [Violation("REC-1", fact.seq, msg)]
        closing = prefix.closing
        if closing is not None and closing.kind == REPAIR and not closing.mistimed:
            # A repair that answered the calls but dropped its closers: name the repair, not
            # the new turn, which a resume starts as it should.
            msg += (
                f", which crash repair, from its first result (seq {closing.seq}), left open: "
                "after the repair's results come step/end, if a step is open, then turn/end "
                '{"kind": "interrupted"}'
            )
            return [Violation("REC-1", fact.seq, msg, (closing.seq,))]
        return [Violation("TURN-1", fact.seq, msg)]
    if fact.turn not in (prefix.next_turn, prefix.next_turn_due):
        return [
            Violation(
                "TURN-1", fact.seq, f"turn {fact.turn} starts where turn {prefix.next_turn} was due"
            )
        ]
    return NO_VIOLATIONS


@invariant("turn_end_closes_open_turn", "TURN-2", reads=of_types("turn/end"))
def turn_end_closes_open_turn(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """turn/end names the open turn and comes after its last step/end."""
    if fact.type != "turn/end":
        return NO_VIOLATIONS
    found: list[Violation] = []
    if prefix.open_turn is None:
        found.append(Violation("TURN-2", fact.seq, f"turn/end {fact.turn} with no open turn"))
        return found
    if not prefix.names_open_turn(fact.turn):
        found.append(
            Violation(
                "TURN-2", fact.seq, f"turn/end names turn {fact.turn}, open is {prefix.open_turn}"
            )
        )
    if prefix.open_step is not None:
        found.append(
            Violation("TURN-2", fact.seq, f"turn/end while step {prefix.open_step} is open")
        )
    return found


@invariant("events_enclosed_by_turn", "TURN-3", reads=_turn_enclosed)
def events_enclosed_by_turn(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """Loop events (steps, replies, calls, results, hooks) happen inside an open turn."""
    if prefix.open_turn is not None and fact.turn == prefix.open_turn:  # the common case
        return NO_VIOLATIONS
    found: list[Violation] = []
    if fact.type in IN_TURN_TYPES and prefix.open_turn is None:
        note, related = (
            _late_result(prefix, fact) if fact.type != "step/end" else _late_step_end(prefix, fact)
        )
        found.append(Violation("TURN-3", fact.seq, f"{fact.type} outside any turn{note}", related))
    elif not prefix.names_open_turn(fact.turn) and fact.type.startswith("hook/"):
        found.append(
            Violation(
                "TURN-3",
                fact.seq,
                f"{fact.type} names turn {fact.turn}, open is {prefix.open_turn}",
            )
        )
    return found


@invariant(
    "steps_numbered_inside_turn", "STEP-1", "STEP-2", reads=of_types("step/start", "step/end")
)
def steps_numbered_inside_turn(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """step/start opens step n+1 of the open turn; step/end closes exactly the open step."""
    if fact.type == "step/start":
        if prefix.open_step is not None:
            return [
                Violation(
                    "STEP-1",
                    fact.seq,
                    f"step {fact.step} starts inside open step {prefix.open_step}",
                )
            ]
        if prefix.open_turn is not None and (
            not prefix.names_open_turn(fact.turn)
            or fact.step not in (prefix.next_step, prefix.next_step_due)
        ):
            return [
                Violation(
                    "STEP-1",
                    fact.seq,
                    f"step/start of turn {fact.turn} step {fact.step} where turn "
                    f"{prefix.open_turn} step {prefix.next_step} was due",
                )
            ]
    elif fact.type == "step/end" and prefix.open_turn is not None:  # else TURN-3's alone
        if prefix.open_step is None:
            what = f"no step of turn {prefix.open_turn} is open"
        elif not prefix.names_open_step(fact.turn, fact.step):
            what = f"the open step is turn {prefix.open_turn} step {prefix.open_step}"
        else:
            return NO_VIOLATIONS
        message = f"step/end of turn {fact.turn} step {fact.step}, but {what}"
        return [Violation("STEP-2", fact.seq, message)]
    return NO_VIOLATIONS


@invariant("step_events_name_open_step", "STEP-3", reads=of_types(*STEP_TYPES, "tool/result"))
def step_events_name_open_step(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """Replies, calls and appended results belong to exactly the open (turn, step)."""
    in_step = fact.type in STEP_TYPES or (fact.type == "tool/result" and fact.surface != "replace")
    if not in_step or prefix.open_turn is None:
        return NO_VIOLATIONS
    if prefix.open_step is None:
        return [Violation("STEP-3", fact.seq, f"{fact.type} outside any step")]
    if not prefix.names_open_step(fact.turn, fact.step):
        note, related = _late_result(prefix, fact)
        return [
            Violation(
                "STEP-3",
                fact.seq,
                f"{fact.type} names turn {fact.turn} step {fact.step}, the open "
                f"step is turn {prefix.open_turn} step {prefix.open_step}{note}",
                related,
            )
        ]
    return NO_VIOLATIONS


def _late_step_end(prefix: Prefix, fact: Fact) -> tuple[str, tuple[int, ...]]:
    """For a step/end of the step a turn/end left open, what ties it to that TURN-2: a note
    for the message, and the turn/end's seq (it read as a second, unrelated fault)."""
    left = prefix.left_open_step
    if left is None or (fact.turn, fact.step) != left[:2]:
        return "", ()
    turn, step, ended = left
    note = (
        f" (it closes step {step} of turn {turn}, which the turn/end at seq {ended} ended while "
        "it was open: write step/end before turn/end, TURN-2)"
    )
    return note, (ended,)


def _late_result(prefix: Prefix, fact: Fact) -> tuple[str, tuple[int, ...]]:
    """For a result in another turn than its call's, what ties it to the ADJ-3 violation its
    absence caused when that turn ended: a note for the message, and the turn/end's seq."""
    if fact.type != "tool/result" or fact.call_id is None:
        return "", ()
    ended = prefix.left_unanswered.get(fact.call_id)
    if ended is None:
        return "", ()
    note = f" (call {fact.call_id}'s result, which its turn lacked when it ended at seq {ended})"
    return note, (ended,)


# ---------------------------------------------------------------------------------------------
# ORD, ADJ, EXE: calls and results.


@invariant(
    "one_reply_per_step_before_calls", "ORD-1", reads=of_types("assistant/message", "tool/call")
)
def one_reply_per_step_before_calls(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A step has at most one reply, and every tool/call follows it."""
    if (
        fact.type == "assistant/message"
        and prefix.reply_seq is not None
        and is_reply(fact)  # a compaction's place while calls await is ADJ-1's
    ):
        msg = "a second assistant/message in one step"
        return [Violation("ORD-1", fact.seq, msg, (prefix.reply_seq,))]
    if fact.type == "tool/call" and prefix.open_step is not None and prefix.reply_seq is None:
        msg = f"tool/call {fact.call_id} before the step's reply named it"
        return [Violation("ORD-1", fact.seq, msg)]
    return NO_VIOLATIONS


@invariant("call_ids_unique_in_reply", "EXE-1", reads=of_types("assistant/message"))
def call_ids_unique_in_reply(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """The tool calls of one reply have distinct ids (results pair by id)."""
    if fact.type == "assistant/message" and fact.calls:
        ids = [call.id for call in fact.calls]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            named = ", ".join(map(spelled, repeated))
            message = f"call ids repeat in one reply: {named}"
            return [Violation("EXE-1", fact.seq, message, facet=REPEATED_CALL_ID)]
    return NO_VIOLATIONS


@invariant("call_records_match_reply", "ORD-2", "RW-1", reads=of_types("tool/call"))
def call_records_match_reply(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """Each tool/call records a call of the step's reply, once, with the very same arguments."""
    if fact.type != "tool/call" or prefix.reply_seq is None or fact.call_id is None:
        return NO_VIOLATIONS  # before the reply: ORD-1's
    blocks = prefix.repeated.get(fact.call_id)
    if blocks is not None:
        return _record_of_a_repeated_id(prefix, fact, blocks)
    found: list[Violation] = []
    entry = prefix.reply_calls.get(fact.call_id)
    if entry is None:
        found.append(
            Violation(
                "ORD-2",
                fact.seq,
                f"tool/call {fact.call_id} is not a call of the step's reply"
                + ("" if prefix.reply_calls else NO_CALLS_IN_REPLY),
                (prefix.reply_seq,),
            )
        )
        return found
    block = entry[1]
    if fact.call_id in prefix.call_records:
        found.append(
            Violation(
                "ORD-2",
                fact.seq,
                f"call {fact.call_id} recorded twice",
                (prefix.call_records[fact.call_id].seq,),
            )
        )
    if fact.name != block.name:
        found.append(
            Violation(
                "ORD-2",
                fact.seq,
                f"tool/call names {fact.name}, the reply {block.name}",
                (prefix.reply_seq or 0,),
            )
        )
    if fact.arguments is None or not same_arguments(fact.arguments, block.arguments):
        # Say what to write too: a harness that rewrites the call record alone reads this.
        msg = (
            f"call {fact.call_id}: its tool/call (the audit record) runs "
            f"{spelled(fact.arguments)} but the reply's assistant/message (the model history) "
            f"shows {spelled(block.arguments)}; both "
            "carry the input that runs (a hook's rewrite in the reply too, the model's input in "
            "tool/call.rewrite, RW-2)"
        )
        found.append(Violation("RW-1", fact.seq, msg, (prefix.reply_seq or 0,)))
    return found


def _record_of_a_repeated_id(
    prefix: Prefix, fact: Fact, blocks: tuple[CallFact, ...]
) -> Sequence[Violation]:
    """A tool/call whose id the reply repeats (EXE-1 names the reply): it records one of the
    calls with that id, and no more records come than the reply has such calls."""
    call_id = fact.call_id
    recorded = prefix.repeat_records.get(call_id or "", [])
    found: list[Violation] = []
    if len(recorded) >= len(blocks):
        message = f"call {call_id} recorded more often than the reply makes it ({len(blocks)})"
        found.append(Violation("ORD-2", fact.seq, message, tuple(recorded)))
    if not any(fact.name == block.name for block in blocks):
        message = f"tool/call names {fact.name}, no call {call_id} of the reply does"
        found.append(Violation("ORD-2", fact.seq, message, (prefix.reply_seq or 0,)))
    elif fact.arguments is None or not any(
        same_arguments(fact.arguments, block.arguments) for block in blocks
    ):
        message = (
            f"call {call_id}: its tool/call (the audit record) runs {spelled(fact.arguments)}, "
            "which no "
            f"call {call_id} of the reply's assistant/message (the model history) shows"
        )
        found.append(Violation("RW-1", fact.seq, message, (prefix.reply_seq or 0,)))
    return found


@invariant("result_answers_pending_call", "ADJ-2", "ORD-2", reads=of_types("tool/result"))
def result_answers_pending_call(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """An appended tool/result answers a call of this step, once, citing its tool/call."""
    # A result without surfaceOp (LOG-2's) is the append its writer meant, as the prefix folds
    # it, and every rule of results judges it so: only a replacement (LOG-7) answers nothing.
    if fact.type != "tool/result" or fact.surface == "replace" or fact.call_id is None:
        return NO_VIOLATIONS
    call_id = fact.call_id
    if not prefix.names_open_step(fact.turn, fact.step):
        return NO_VIOLATIONS  # a result in another step or turn: STEP-3 or TURN-3 blames it
    if call_id not in prefix.reply_calls:
        if call_id in prefix.call_records:
            # Its tool/call, written before the reply or for a call it does not make, is
            # blamed already (ORD-1, ORD-2): the result answers that record.
            return NO_VIOLATIONS
        note, ended = _late_result(prefix, fact)
        earlier = next((reply for called, reply in prefix.dangling if called == call_id), None)
        if earlier is not None:
            note = (
                f" (call {call_id} of the reply at seq {earlier}, an earlier step's: a result is "
                "appended in its call's step, before that step ends)"
            )
            ended = (earlier,)
        msg = f"result for {call_id}, which no call of this step made{note}"
        return [Violation("ADJ-2", fact.seq, msg, ended)]
    blocks = prefix.repeated.get(call_id)
    if blocks is not None:
        return _result_of_a_repeated_id(prefix, fact, call_id, len(blocks))
    if call_id in prefix.results:
        return [
            Violation(
                "ADJ-2", fact.seq, f"a second result for {call_id}", (prefix.results[call_id],)
            )
        ]
    record = prefix.call_records.get(call_id)
    if record is None:
        # A repair result answers an unrecorded call; one with the code of a recorded call has
        # the wrong code, which REC-1 reports (`repair_results_match_call_state`). A record
        # missing from its reply's commit was blamed there (LOG-8).
        blamed_reply, blamed_calls = prefix.unrecorded_blamed
        if fact.error_code not in (REPAIR_NOT_STARTED, REPAIR_OUTCOME_UNKNOWN) and not (
            blamed_reply == prefix.reply_seq and call_id in blamed_calls
        ):
            return [
                Violation(
                    "ADJ-2",
                    fact.seq,
                    f"result for {call_id}, which has no tool/call record before it "
                    "(only a TOOL_NOT_STARTED repair may answer an unrecorded call)",
                )
            ]
    elif fact.error_code != REPAIR_NOT_STARTED and (
        fact.sources is None or record.seq not in fact.sources
    ):
        # A TOOL_NOT_STARTED repair of a recorded call cites no record because it says there is
        # none: that is its wrong code, which REC-1 reports, blamed once.
        return [
            Violation(
                "ORD-2",
                fact.seq,
                f"result for {call_id} does not cite its tool/call seq {record.seq} "
                f"in sourceEventSeqs{_cited_instead(prefix, fact)}",
                (record.seq,),
            )
        ]
    return NO_VIOLATIONS


def _cited_instead(prefix: Prefix, fact: Fact) -> str:
    """What a result's `sourceEventSeqs` cite in place of its tool/call: itself, a later seq or
    none (which LOG-2 forbids too), another call's record, or another earlier event."""
    sources = fact.sources
    if not sources:
        return ""
    if fact.seq in sources:
        return f", which cites seq {fact.seq}, the result itself"
    later = [seq for seq in sources if seq > fact.seq]
    if later:
        return f", which cites seq {later[0]}, after the result"
    negative = [seq for seq in sources if seq < 0]
    if negative:
        return f", which cites seq {negative[0]}, no event"
    # An earlier event: a writer's seq off by one (counting the header) cites a neighbour.
    cited = sources[0]
    for other, record in prefix.call_records.items():
        if record.seq == cited:
            return f", which cites seq {cited}, the tool/call of {other}"
    if cited == prefix.reply_seq:  # the reply in place of the record of its call
        return f", which cites seq {cited}, the assistant/message making the call"
    return f", which cites seq {cited}"


def _result_of_a_repeated_id(
    prefix: Prefix, fact: Fact, call_id: str, calls: int
) -> Sequence[Violation]:
    """A tool/result for an id the reply repeats (EXE-1 names the reply): one result per call
    with that id, each citing one of their records."""
    answered = prefix.repeat_results.get(call_id, 0)
    if answered >= calls:
        message = f"a result for {call_id} beyond the reply's {calls} calls with that id"
        return [Violation("ADJ-2", fact.seq, message, (prefix.results[call_id],))]
    records = prefix.repeat_records.get(call_id, [])
    if fact.error_code in (REPAIR_NOT_STARTED, REPAIR_OUTCOME_UNKNOWN):
        return NO_VIOLATIONS  # a repair's code is REC-1's to judge
    if len(records) <= answered:
        message = f"result for {call_id} before its tool/call (each call with that id has one)"
        return [Violation("ADJ-2", fact.seq, message)]
    if fact.sources is None or not set(records) & set(fact.sources):
        message = f"result for {call_id} cites none of its tool/call records {records}"
        return [Violation("ORD-2", fact.seq, message, tuple(records))]
    return NO_VIOLATIONS


@invariant("results_in_model_order", "ORD-3", reads=of_types("tool/result"))
def results_in_model_order(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A step's results are committed in the order of the reply's calls."""
    if fact.type != "tool/result" or fact.surface == "replace" or fact.call_id is None:
        return NO_VIOLATIONS
    entry = prefix.reply_calls.get(fact.call_id)
    if entry is not None and fact.call_id not in prefix.results:
        index, first = entry[0], prefix.first_unanswered
        # Once: a later call's result already came before this earlier one's, and ORD-3 named
        # it then (the earlier result missing, or late, is one bug, not one per later result).
        if index > first and not any(c in prefix.results for c in prefix.reply_ids[first + 1 :]):
            # This result came too early, not the earlier call's (which may never come, as in
            # a crash tail): it is the line to move, and the prefix up to it can never be
            # completed to a valid log.
            earlier = prefix.reply_ids[first]
            message = (
                f"result for {fact.call_id} (call #{index + 1}) before any for {earlier} "
                f"(call #{first + 1}): results commit in the order of the reply's calls"
            )
            return [Violation("ORD-3", fact.seq, message, (prefix.reply_seq or 0,))]
    return NO_VIOLATIONS


@invariant(
    "nothing_visible_between_call_and_result",
    "ADJ-1",
    reads=of_types("user/message", "assistant/message"),
)
def nothing_visible_between_call_and_result(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """No other model-visible message lands between a reply's calls and their last result."""
    if fact.calls and fact.surface == "replace":
        return _reply_replacing_before_later_nodes(prefix, fact)
    if (
        fact.type not in ("user/message", "assistant/message")
        or prefix.reply_seq is None
        # Between crash repair's closers a message is REC-1's, blamed once
        # (`repair_closers_follow_each_other`).
        or prefix.closing is not None
    ):
        return NO_VIOLATIONS
    reply_seq = prefix.reply_seq
    if fact.surface_end is not None and _stands_before(prefix, fact.surface_end, reply_seq):
        # A replacement takes the place of the nodes it replaces (LOG-7): of nodes before the
        # reply, it lands before the calls, not between them and their results.
        return NO_VIOLATIONS
    missing = prefix.unanswered()
    if missing:
        ids = [call_id for call_id, _ in missing]
        if fact.surface_end is not None:
            # Which part of ADJ-1 it breaks: a replacement is allowed there, of earlier nodes.
            where = (
                f"replaces nodes {fact.surface_start}..{fact.surface_end}, not all before the "
                f"reply (seq {reply_seq}), while {calls_awaiting(ids)}: a replacement then "
                "replaces only nodes before the reply, taking their place before the calls"
            )
        else:
            # What to do instead: a message that arises mid-batch is queued for the step
            # boundary.
            fix = "; hold it for the next step/start (ADJ-4)" if fact.type == "user/message" else ""
            where = f"lands while {calls_awaiting(ids)}{fix}"
        return [Violation("ADJ-1", fact.seq, f"{fact.type} {where}", (reply_seq,))]
    return NO_VIOLATIONS


def _reply_replacing_before_later_nodes(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A reply with calls that replaces nodes stands where the first of them stood (LOG-7): a
    current node after the last it replaces would stand between its calls and their results,
    which are appended at the surface's end."""
    span = prefix.surface_span(fact.surface_start, fact.surface_end)
    if span is None or span[1] + 1 >= len(prefix.surface_seqs):
        return NO_VIOLATIONS  # not current nodes: LOG-7's
    later = prefix.surface_seqs[span[1] + 1]
    ids = ", ".join(call.id for call in fact.calls or ())
    message = (
        f"the reply making {ids} replaces nodes {fact.surface_start}..{fact.surface_end} and "
        f"so stands before the node at seq {later}, which sits between its calls and their "
        "results: a reply with calls replaces only the surface's last nodes"
    )
    return [Violation("ADJ-1", fact.seq, message, (later,))]


def _stands_before(prefix: Prefix, seq: int, reply_seq: int) -> bool:
    """Whether surface node `seq` stands before the reply: in surface order, where a
    replacement stands in the place of the first node it replaced (LOG-7), so an earlier
    compaction's node, written after the reply, stands before it."""
    node, reply = prefix.surface_position(seq), prefix.surface_position(reply_seq)
    if node is None or reply is None:
        return seq < reply_seq  # a node not current is LOG-7's: seq order is all there is
    return node < reply


@invariant("messages_wait_for_step_start", "ADJ-4", reads=of_types("user/message"))
def messages_wait_for_step_start(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A message that arises in a turn waits for the next step/start: none is appended after a
    step's reply, calls, results, tool hooks or approvals, nor between two steps.

    What a log shows of ADJ-4. The messages right after a step/start, and those before the
    turn's first step (the turn's own message, as dsh writes it), are in their place whatever
    their order or source: the log records neither when a message arose nor in which order it
    was queued. A message appended while calls await results is ADJ-1's, the precise rule there.
    """
    after = prefix.messages_wait_after
    if (
        after is None
        or fact.type != "user/message"
        or fact.surface != "append"
        or prefix.open_turn is None
        # In a turn that closes, after an interrupted reply or between crash repair's closers,
        # no message waits for a step that never comes: ABORT-2's or REC-1's, blamed once.
        or prefix.closing is not None
    ):
        return NO_VIOLATIONS
    if prefix.reply_calls and not prefix.reply_calls.keys() <= prefix.results.keys():
        return NO_VIOLATIONS  # `nothing_visible_between_call_and_result` reports it (ADJ-1)
    kind = prefix.messages_wait_kind
    where = "between steps, after step/end" if kind == "step/end" else f"after the step's {kind}"
    message = (
        f"user/message appended {where} (seq {after}): a message that arises in a turn "
        "waits for the next step/start"
    )
    return [Violation("ADJ-4", fact.seq, message, (after,))]


@invariant("lapsed_request_ends_turn_interrupted", "DEC-2", "ABORT-3", reads=of_types("turn/end"))
def lapsed_request_ends_turn_interrupted(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A request about a call left unanswered when its step ended ends its turn interrupted:
    only a crash leaves one so, and its repair ends the turn so (REC-1); in a step an abort's
    results ended, the abort answered it cancelled before its call's result (ABORT-3)."""
    if not prefix.lapsed_in_turn or fact.type != "turn/end":
        return NO_VIOLATIONS
    kind = fact.reason_kind
    if kind == "interrupted" or kind is None:  # (no kind: TURN-5's)
        return NO_VIOLATIONS
    ends = f"turn {fact.turn} ends {_TURN_ENDS.get(kind, f'with reason kind {kind!r}')} with "
    found: list[Violation] = []
    # Every request the turn left so, in one sentence per rule: a turn ending on two named
    # only the first (an abort's step's apart, ABORT-3's words).
    for in_aborted_step in (False, True):
        lapsed = [
            (approval_id, call_id, step_end)
            for approval_id, (call_id, step_end, aborted) in prefix.lapsed_in_turn.items()
            if aborted == in_aborted_step
        ]
        if not lapsed:
            continue
        step_ends = tuple(dict.fromkeys(step_end for _, _, step_end in lapsed))
        left = _lapsed_words(lapsed, step_ends)
        if in_aborted_step:
            # (ABORT-3 as where the answer comes late, after the turn's end too, as conform
            # names it: which of the two a log shows, its end does not yet tell.)
            msg = (
                f"{ends}{left}, a step an abort ended: an abort's cancelled approval is written "
                "when the abort lands, before the call's ABORTED_BEFORE_DISPATCH result"
            )
            found.append(Violation("ABORT-3", fact.seq, msg, step_ends))
            continue
        msg = (
            f"{ends}{left}: a request is answered in its call's step, and only a crash leaves "
            "one unanswered, its repair ending the turn interrupted"
        )
        found.append(Violation("DEC-2", fact.seq, msg, step_ends))
    return found


def _lapsed_words(lapsed: list[tuple[str, str, int]], step_ends: tuple[int, ...]) -> str:
    """The requests `lapsed` (approval id, call id, its step's end) as left unanswered."""
    if len(lapsed) == 1:
        ((approval_id, call_id, step_end),) = lapsed
        return (
            f"approval/asked {approval_id} about call {call_id} left unanswered when its step "
            f"ended (seq {step_end})"
        )
    named = [f"{approval_id} about call {call_id}" for approval_id, call_id, _ in lapsed]
    listed = f"{', '.join(named[:-1])} and {named[-1]}"
    if len(step_ends) == 1:
        return f"approval/asked {listed} left unanswered when their step ended (seq {step_ends[0]})"
    seqs = ", ".join(map(str, step_ends))
    return f"approval/asked {listed} left unanswered when their steps ended (seqs {seqs})"


# How a sentence says a turn ended, by the kinds the loop writes (TURN-5).
_TURN_ENDS = {
    "completed": "completed",
    "aborted": "aborted",
    "error": "in error",
    "max-tokens": "at max-tokens",
}


@invariant("aborted_turn_ends_aborted", "ABORT-1", reads=of_types("turn/end"))
def aborted_turn_ends_aborted(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A turn one of whose results an abort wrote (ABORTED, ABORTED_BEFORE_DISPATCH) ends
    aborted: after an abort the step ends, then the turn (crash repair's `interrupted` too,
    when a crash came first, REC-1)."""
    aborted = prefix.aborted_result
    if (
        aborted is None
        or fact.type != "turn/end"
        or fact.turn != prefix.open_turn
        or fact.reason_kind in ("aborted", "interrupted")
    ):
        return NO_VIOLATIONS
    call_id, seq, code = aborted
    msg = (
        f"turn {fact.turn} ends {spelled(fact.reason_kind)} after call {call_id}'s result says an "
        f"abort stopped it ({code}, seq {seq}): after an abort the step ends, then the turn, "
        'with {"kind": "aborted", "reason": {"kind": <cause>}}, and no step follows'
    )
    return [Violation("ABORT-1", fact.seq, msg, (seq,))]


@invariant("every_shown_call_answered", "ADJ-3", "ABORT-1", reads=of_types("turn/end"))
def every_shown_call_answered(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """When a turn ends, every call its history shows has a result (unless it ended in error).

    A turn that ends interrupted was closed by a crash repair: the calls its last step left
    without a result are the repair's to answer, and `repair_results_match_call_state` blames
    them on REC-1, the precise rule there. Those of a turn that ends aborted are the abort's to
    answer, blamed on ABORT-1, the precise rule there, as conform names them. The calls of an
    interrupted reply should not be there at all: ABORT-2 blames the reply
    (`interrupted_reply_has_no_calls`), once."""
    if fact.type != "turn/end" or fact.reason_kind == "error":
        return NO_VIOLATIONS
    found: list[Violation] = []
    dangling = list(prefix.dangling)
    # Where the calls of the turn's last step begin in `dangling`.
    last_step = prefix.dangling_before_last_step if prefix.open_step is None else len(dangling)
    if fact.reason_kind != "interrupted":
        if prefix.open_step is not None:
            dangling.extend(prefix.unanswered())
    elif prefix.open_step is None:
        dangling = dangling[: prefix.dangling_before_last_step]
    for index, (call_id, reply_seq) in enumerate(dangling):
        if reply_seq in prefix.interrupted_replies:
            continue  # an interrupted reply's call: ABORT-2 blamed the reply for showing it
        said = f"turn ends with call {call_id} unanswered"
        if fact.reason_kind == "aborted" and index >= last_step:
            # The abort is no excuse: what to write for each kind of call, ABORT-1's.
            said += (
                ": an abort answers every call of the step before it ends the turn, "
                "ABORTED for a body that ran, ABORTED_BEFORE_DISPATCH for one that never started"
            )
            found.append(Violation("ABORT-1", fact.seq, said, (reply_seq,)))
            continue
        if fact.reason_kind == "max-tokens":
            # The reply was cut off: its calls should not be shown at all (STEP-4).
            said += (
                ": a reply cut off at max-tokens drops its calls (STEP-4), so its message keeps "
                "none"
            )
        found.append(Violation("ADJ-3", fact.seq, said, (reply_seq,)))
    return found


# ---------------------------------------------------------------------------------------------
# HOOK, RW, DEC, ABORT, REC.


@invariant("hook_audit_paired_in_turn", "HOOK-1", reads=of_types("hook/result"))
def hook_audit_paired_in_turn(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """Every hook/result answers a pending hook/invoked with the same (turn, point, handler),
    for the same call when both name one; its duration is finite and not negative."""
    if fact.type != "hook/result":
        return NO_VIOLATIONS
    found: list[Violation] = []
    if fact.duration_ms is not None and not hook_duration_valid(fact.duration_ms):
        msg = (
            f"hook/result of {fact.handler_id} at {fact.point} took {fact.duration_ms!r} ms: a "
            "duration is finite and not negative"
        )
        found.append(Violation("HOOK-1", fact.seq, msg))
    if fact.turn is not None:
        key = (fact.turn, fact.point or "", fact.handler_id or "")
        if key not in prefix.pending_hooks:
            msg = f"hook/result of {fact.handler_id} at {fact.point} without a pending hook/invoked"
            found.append(Violation("HOOK-1", fact.seq, msg))
            return found
        invoked_for = prefix.pending_hook_calls.get(key)
        if invoked_for is not None and fact.call_id is not None and fact.call_id != invoked_for:
            msg = (
                f"hook/result of {fact.handler_id} at {fact.point} names call {fact.call_id}, "
                f"the hook/invoked it answers call {invoked_for}"
            )
            found.append(Violation("HOOK-1", fact.seq, msg, (prefix.pending_hooks[key],)))
    return found or NO_VIOLATIONS


@invariant("post_hook_words_fit_the_result", "HOOK-1", reads=of_types("hook/result"))
def post_hook_words_fit_the_result(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A PostToolUse hook is never audited as asking: the body already ran."""
    if (
        fact.type == "hook/result"
        and fact.point == "PostToolUse"
        and fact.decision in ASKING_DECISIONS
    ):
        msg = (
            f"PostToolUse hook {fact.handler_id} is audited {spelled(fact.decision)}: after the "
            "body "
            "ran there is nothing to approve (pass, allow, approve, stop, error; block or deny "
            "for a block)"
        )
        return [Violation("HOOK-1", fact.seq, msg)]
    return NO_VIOLATIONS


@invariant("blocking_exit_is_audited_as_blocking", "HOOK-1", reads=of_types("hook/result"))
def blocking_exit_is_audited_as_blocking(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A tool hook audited with exit code 2, the blocking exit, is audited as blocking or
    failed."""
    if (
        fact.type == "hook/result"
        and fact.exit_code == BLOCKING_EXIT_CODE
        and fact.point in TOOL_HOOK_POINTS
        and fact.decision not in BLOCKING_EXIT_DECISIONS
    ):
        msg = (
            f"{fact.point} hook {fact.handler_id} is audited {spelled(fact.decision)} with exit "
            "code 2, "
            "the blocking exit: a hook that exits 2 denies or blocks (deny, block, stop), "
            "whatever it printed, or failed (error)"
        )
        return [Violation("HOOK-1", fact.seq, msg)]
    return NO_VIOLATIONS


POST_BLOCK_NOT_AN_ERROR = "post-block-not-an-error"
"""The facet of HOOK-1 `post_block_makes_the_result_an_error` breaks: the real Claude Code and
Codex CLIs break it on every PostToolUse block (their profiles name it, `HOOK-1:` + this)."""


@invariant("post_block_makes_the_result_an_error", "HOOK-1", reads=of_types("tool/result"))
def post_block_makes_the_result_an_error(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A PostToolUse hook audited as blocking blocked: its call's result is an error.

    A loop that ignores a block, or writes it without the error flag, breaks it; Claude Code
    (which keeps the output) and Codex (which writes the reasons as plain output) do so on every
    block, a known divergence named by its facet (`POST_BLOCK_NOT_AN_ERROR`)."""
    if (
        fact.type == "tool/result"
        and fact.surface != "replace"
        and fact.call_id in prefix.post_blocked
        and not fact.is_error
    ):
        answer = prefix.post_blocked[fact.call_id]
        msg = (
            f"PostToolUse hook {answer.handler_id} is audited {spelled(answer.decision)} for "
            f"{fact.call_id}, whose result is not an error: a block replaces it (DEC-3)"
            f"{_taken_for_the_call(prefix, answer, fact.call_id)}"
        )
        return [Violation("HOOK-1", fact.seq, msg, (answer.seq,), POST_BLOCK_NOT_AN_ERROR)]
    return NO_VIOLATIONS


def _taken_for_the_call(prefix: Prefix, answer: HookAnswer, call_id: str) -> str:
    """Words saying a hook's answer named no call and was taken for `call_id`, the one call
    awaiting a result then; "" for an answer naming its call."""
    if answer.seq not in prefix.unnamed_answers:
        return ""
    return f" (the hook named no call: {call_id} alone awaited a result, so it was {call_id}'s)"


@invariant("pre_hooks_once_per_call", "HOOK-4", reads=of_types("hook/invoked"))
def pre_hooks_once_per_call(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A PreToolUse hook runs at most once for a call, and before that call's result: its
    answer decides whether the call runs; and in its call's step, never between steps. Of a
    hook naming no call (dsh), one invoked once every call of its step's reply has its result
    is late."""
    if fact.type != "hook/invoked" or fact.point != "PreToolUse" or prefix.closing is not None:
        return NO_VIOLATIONS
    call_id = fact.call_id
    if call_id is not None:
        if prefix.pre_hook_runs.get((call_id, fact.handler_id or ""), 0) >= 1:
            msg = f"PreToolUse hook {fact.handler_id} runs again for call {call_id}"
            return [Violation("HOOK-4", fact.seq, msg)]
        late = _audited_after_its_result(prefix, fact, call_id, "HOOK-4", PRE_AUDIT_PLACE)
        if late or prefix.open_step is not None or prefix.open_turn is None:
            return late  # (outside a turn: TURN-3's)
        # Between steps, for a call the last step that answered any did not answer (one of a
        # step before it, or never made): the next step's start forgets it unjudged.
        msg = (
            f"PreToolUse hook {fact.handler_id} is invoked for call {call_id} between steps (no "
            "step is open): a PreToolUse hook answers a call of its step's reply, in that step"
        )
        return [Violation("HOOK-4", fact.seq, msg, (), NO_KNOWN_SHAPE)]
    if prefix.open_step is None or prefix.results == {}:
        return NO_VIOLATIONS  # (a reply of no calls: `pre_hooks_answer_calls_of_the_reply`)
    return _audited_after_every_result(prefix, fact, "HOOK-4", PRE_AUDIT_PLACE)


def _audited_after_its_result(
    prefix: Prefix, fact: Fact, call_id: str, rule: str, place: str
) -> Sequence[Violation]:
    """`rule`'s objection to a tool hook's hook/invoked `fact` naming `call_id` after that
    call's tool/result, if it is; `place` says where the audit belongs. A result of an earlier
    step counts where the hook cannot be for a call of its own step with that id: outside a
    step, or (a PostToolUse hook, which follows its call's reply) when the step's reply makes
    no such call. A PreToolUse hook in a later step may precede a reply making the id again:
    `pre_hooks_answer_calls_of_the_reply` judges it when the step ends."""
    result = prefix.results.get(call_id)
    earlier = ""
    if (
        result is None
        and prefix.open_turn is not None  # (outside a turn: TURN-3's)
        and (prefix.open_step is None or fact.point == "PostToolUse")
    ):
        result = prefix.answered_before.get(call_id)
        if call_id in prefix.reply_calls:
            result = None
        earlier = ", in an earlier step"
    if result is None or call_id in prefix.repeated:  # (EXE-1 blames a repeated id)
        return NO_VIOLATIONS
    msg = (
        f"{fact.point} hook {fact.handler_id} is invoked for call {call_id} after that call's "
        f"tool/result (seq {result}{earlier}): {place}"
    )
    return [Violation(rule, fact.seq, msg, (result,), NO_KNOWN_SHAPE)]


def _audited_after_every_result(
    prefix: Prefix, fact: Fact, rule: str, place: str
) -> Sequence[Violation]:
    """`rule`'s objection to a tool hook's hook/invoked `fact` naming no call once every call
    of its step's reply has its result, if one has (a reply of no calls is the caller's). A
    reply repeating an id (EXE-1) has a call of it awaiting its result until the id has as
    many results as calls (dsh runs each: its hooks come after the first one's result)."""
    if prefix.reply_seq is None or not prefix.reply_calls.keys() <= prefix.results.keys():
        return NO_VIOLATIONS
    if prefix.repeated and any(
        prefix.repeat_results.get(call_id, 0) < len(calls)
        for call_id, calls in prefix.repeated.items()
    ):
        return NO_VIOLATIONS
    last = max(prefix.results.values())
    msg = (
        f"{fact.point} hook {fact.handler_id} is invoked after every call of the step has its "
        f"tool/result (the last at seq {last}), naming none: {place}"
    )
    return [Violation(rule, fact.seq, msg, (last,), NO_KNOWN_SHAPE)]


PRE_AUDIT_PLACE = (
    "a PreToolUse hook answers before its call is decided, so its hook/invoked and hook/result "
    "come before that call's tool/result"
)


@invariant(
    "no_pre_hooks_for_non_object_arguments",
    "HOOK-4",
    reads=of_types("assistant/message", "hook/invoked"),
)
def no_pre_hooks_for_non_object_arguments(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """No PreToolUse hook runs for a call whose arguments are not a JSON object.

    Such a call ends INVALID_TOOL_INPUT without any policy (EXE-2, EXE-5). A log shows it when
    the hook's audit names the call: the reply that shows the call is blamed when the hook ran
    first (as the model orders them), the hook when it ran after the reply. A call that misses a
    key its tool requires is invalid too, but a log does not record what a tool requires.
    """
    if fact.type == "hook/invoked":
        if fact.point != "PreToolUse" or fact.call_id is None:
            return NO_VIOLATIONS
        entry = prefix.reply_calls.get(fact.call_id)
        if entry is None or arguments_are_an_object(entry[1].arguments):
            return NO_VIOLATIONS
        message = (
            f"PreToolUse hook {fact.handler_id} runs for call {fact.call_id}, whose arguments "
            "are not a JSON object: no hook sees such a call"
        )
        return [Violation("HOOK-4", fact.seq, message, (prefix.reply_seq or 0,))]
    if fact.type != "assistant/message" or not fact.calls or not prefix.pre_hook_runs:
        return NO_VIOLATIONS
    hooked = {call_id for call_id, _handler in prefix.pre_hook_runs}
    found: list[Violation] = []
    for call in fact.calls:
        # A hook that supplied an input put it in the reply in the call's place (RW-3): what
        # the reply shows is not what the hooks judged, and a non-object there is RW-2's.
        supplied = prefix.supplied_rewrite(call.id) is not None
        if call.id in hooked and not supplied and not arguments_are_an_object(call.arguments):
            answers = tuple(
                answer.seq
                for answer in prefix.hook_results.get(call.id, ())
                if answer.point == "PreToolUse"
            )
            message = (
                f"the reply shows call {call.id}, whose arguments are not a JSON object, after "
                "PreToolUse hooks ran for it: no hook sees such a call"
            )
            found.append(Violation("HOOK-4", fact.seq, message, answers))
    return found


@invariant("pre_hooks_answer_calls_of_the_reply", "HOOK-4", reads=of_types("step/end"))
def pre_hooks_answer_calls_of_the_reply(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A step whose reply shows calls audits PreToolUse hooks for those calls only.

    Hooks run for the calls of the step's reply, before it is committed (RW-3) or, as dsh runs
    them, after their tool/call; an audit naming a call the reply does not show is a hook run
    for a call that never was one. Judged when the step ends, when no reply can follow. A
    reply cancelled while its hooks ran keeps no call (ABORT-2), and a step that ends without
    a reply (an abort or a failed request, a crash repair) shows no calls: neither is judged.
    A reply of text alone shows none either: a hook naming a call there (an earlier step's,
    audited late) was judged by no rule.
    """
    if fact.type != "step/end" or not prefix.pre_hook_runs:
        return NO_VIOLATIONS
    if not prefix.reply_calls and (prefix.reply_seq is None or prefix.closing is not None):
        return NO_VIOLATIONS
    found: list[Violation] = []
    blamed: set[str] = set()
    for call_id, handler_id in prefix.pre_hook_runs:  # in audit order
        if call_id in prefix.reply_calls or call_id in blamed:
            continue
        blamed.add(call_id)
        handlers = [handler for call, handler in prefix.pre_hook_runs if call == call_id]
        answers = tuple(
            answer.seq
            for answer in prefix.hook_results.get(call_id, ())
            if answer.point == "PreToolUse"
        )
        who = f"hook {handler_id}" if len(handlers) == 1 else f"hooks {', '.join(handlers)}"
        result = prefix.answered_before.get(call_id)
        if result is not None:  # (a hook audited late, where the step's own reply shows none)
            message = (
                f"PreToolUse {who} answered for call {call_id} after that call's tool/result "
                f"(seq {result}, in an earlier step), in a step whose reply does not show it: "
                f"{PRE_AUDIT_PLACE}"
            )
            found.append(Violation("HOOK-4", fact.seq, message, (*answers, result)))
            continue
        message = (
            f"PreToolUse {who} answered for call {call_id}, which the step's reply does not "
            "show: hooks run for the calls of their step's reply only"
        )
        found.append(Violation("HOOK-4", fact.seq, message, (*answers, prefix.reply_seq or 0)))
    return found


NEVER_RAN_CODES = ("INVALID_TOOL_INPUT", "UNKNOWN_TOOL", "ABORTED_BEFORE_DISPATCH")
"""The error codes of a result the loop writes for a call whose body never started (SPEC.md
section 9, `model.wording`, which check does not import): such a call gets no PostToolUse hook."""
POST_AUDIT_PLACE = (
    "a PostToolUse hook's hook/invoked and hook/result come after the call's body ran and "
    "before that call's tool/result, in its step"
)


@invariant(
    "post_hooks_judge_results_that_ran",
    "HOOK-5",
    reads=of_types("hook/invoked", "hook/result", "tool/result"),
)
def post_hooks_judge_results_that_ran(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A PostToolUse hook is audited in its step, once per call, before the result it judges,
    and only for a call whose body ran.

    A log shows a hook naming its call (`callId`) invoked twice for it, or audited after that
    call's tool/result, or for a call its step's reply (once read) does not make or before
    that reply, or a
    result saying its body never started (INVALID_TOOL_INPUT, UNKNOWN_TOOL,
    ABORTED_BEFORE_DISPATCH, HOOK-6's refusal of the input a PreToolUse hook supplied, or an
    error for a call a PreToolUse hook denied or whose approval was refused) for a call a
    PostToolUse hook was audited for; of a hook naming no call (dsh),
    one audited outside a step, before its step's reply, or after every call of its step's
    reply has its result. How many
    hooks match a call, which a log does not record, conformance compares with the model's.
    """
    if fact.type == "tool/result":
        return _post_audit_of_an_unrun_call(prefix, fact)
    if fact.point != "PostToolUse" or fact.turn is None or prefix.closing is not None:
        return NO_VIOLATIONS
    if prefix.open_turn is None:
        return NO_VIOLATIONS  # TURN-3's
    if fact.type == "hook/invoked":
        return _post_audit_misplaced(prefix, fact)
    key = (fact.turn, fact.point, fact.handler_id or "")
    invoked = prefix.pending_hooks.get(key)
    if invoked is None or prefix.open_step is None:
        return NO_VIOLATIONS  # HOOK-1's, or blamed at its hook/invoked
    call_id = prefix.pending_hook_calls.get(key, fact.call_id)
    if call_id is not None:
        result = prefix.results.get(call_id)
        if result is None or result < invoked or call_id in prefix.repeated:
            return NO_VIOLATIONS
        msg = (
            f"PostToolUse hook {fact.handler_id}'s hook/result for call {call_id} comes after "
            f"that call's tool/result (seq {result}), its hook/invoked (seq {invoked}) before "
            f"it: {POST_AUDIT_PLACE}"
        )
        return [Violation("HOOK-5", fact.seq, msg, (invoked, result), NO_KNOWN_SHAPE)]
    if prefix.reply_seq is None or not prefix.reply_calls.keys() <= prefix.results.keys():
        return NO_VIOLATIONS
    last = max(prefix.results.values(), default=-1)
    if last < invoked:
        return NO_VIOLATIONS  # blamed at its hook/invoked
    msg = (
        f"PostToolUse hook {fact.handler_id}'s hook/result comes after the step's last "
        f"tool/result (seq {last}), its hook/invoked (seq {invoked}) before it: "
        f"{POST_AUDIT_PLACE}"
    )
    return [Violation("HOOK-5", fact.seq, msg, (invoked, last), NO_KNOWN_SHAPE)]


def _post_audit_misplaced(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """HOOK-5 of a PostToolUse hook/invoked `fact` in the open turn: outside a step, or after
    the result it judges."""
    hook = f"PostToolUse hook {fact.handler_id}"
    call_id = fact.call_id
    if prefix.open_step is None:
        about = f" for call {call_id}" if call_id is not None else ""
        msg = f"{hook} is invoked{about} outside a step (no step is open): {POST_AUDIT_PLACE}"
        return [Violation("HOOK-5", fact.seq, msg, (), NO_KNOWN_SHAPE)]
    if call_id is not None:
        first = prefix.post_hook_runs.get((call_id, fact.handler_id or ""))
        if first is not None and call_id not in prefix.repeated:  # (EXE-1 blames a repeated id)
            msg = (
                f"{hook} is invoked a second time for call {call_id} (first at seq {first}): "
                "each PostToolUse hook that matches a call judges its result once"
            )
            return [Violation("HOOK-5", fact.seq, msg, (first,), NO_KNOWN_SHAPE)]
        late = _audited_after_its_result(prefix, fact, call_id, "HOOK-5", POST_AUDIT_PLACE)
        if late or call_id in prefix.reply_calls:
            return late
        if prefix.reply_seq is None:
            # No body of the step has run before its reply: whichever call it names, one of a
            # step before (the prefix keeps only the last's that answered any) or of the reply
            # to come, the hook is out of place.
            msg = (
                f"{hook} is invoked for call {call_id} before its step's reply: no call of the "
                f"step is made yet, and {POST_AUDIT_PLACE}"
            )
            return [Violation("HOOK-5", fact.seq, msg, (), NO_KNOWN_SHAPE)]
        # A call its step's reply does not make: answered in a step before the last that
        # answered any (which the prefix no longer keeps), or never made.
        msg = (
            f"{hook} is invoked for call {call_id}, which its step's reply (seq "
            f"{prefix.reply_seq}) does not make: {POST_AUDIT_PLACE}"
        )
        return [Violation("HOOK-5", fact.seq, msg, (prefix.reply_seq,), NO_KNOWN_SHAPE)]
    # A hook naming no call: before its step's reply (dsh audits a call's hooks after its
    # tool/call), or once its step's calls are all answered, no body of the step awaits it.
    if prefix.reply_seq is None:
        msg = (
            f"{hook} is invoked, naming no call, before its step's reply: no call of the step "
            f"is made yet, and {POST_AUDIT_PLACE}"
        )
        return [Violation("HOOK-5", fact.seq, msg, (), NO_KNOWN_SHAPE)]
    if not prefix.reply_calls and not prefix.results:
        msg = (
            f"{hook} is invoked in a step whose reply (seq {prefix.reply_seq}) makes no tool "
            f"call: no body ran for it to judge, and {POST_AUDIT_PLACE}"
        )
        return [Violation("HOOK-5", fact.seq, msg, (prefix.reply_seq,), NO_KNOWN_SHAPE)]
    if not prefix.results:
        return NO_VIOLATIONS
    return _audited_after_every_result(prefix, fact, "HOOK-5", POST_AUDIT_PLACE)


# The facet of HOOK-5 a PostToolUse hook audited for a call whose body never ran breaks: dsh's
# known divergence post-hooks-for-unrun-calls (SPEC section 8), whose eraser conform applies.
UNRUN_CALL_POST_HOOK = "post-hook-of-an-unrun-call"


def _post_audit_of_an_unrun_call(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """HOOK-5 of a tool/result `fact` that says its body never ran, for a call a PostToolUse
    hook was audited for (facet `UNRUN_CALL_POST_HOOK` where the hook named no call, as dsh's
    do: `--known dsh` sets aside that shape alone)."""
    call_id = fact.call_id
    if fact.surface == "replace" or call_id is None or not fact.is_error:
        return NO_VIOLATIONS
    answer = post_answer(prefix, call_id) if call_id in prefix.hook_results else None
    # dsh's hooks name no call: a hook naming this one is no shape dsh writes.
    facet = NO_KNOWN_SHAPE
    if answer is not None:
        audited_seq = answer.seq
        audited = (
            f"PostToolUse hook {answer.handler_id} was audited for call {call_id} "
            f"(seq {audited_seq})"
        )
    elif call_id in prefix.unnamed_post_runs:
        audited_seq, handler = prefix.unnamed_post_runs[call_id]
        facet = UNRUN_CALL_POST_HOOK
        audited = (
            f"PostToolUse hook {handler} was invoked (seq {audited_seq}), naming no call, while "
            f"call {call_id} alone awaited a result"
        )
    else:
        return NO_VIOLATIONS
    if fact.error_code in NEVER_RAN_CODES:
        never_ran = f"its result says its body never started ({fact.error_code})"
    elif call_id in prefix.pre_denied and prefix.pre_denied[call_id].seq in prefix.unnamed_answers:
        denier = prefix.pre_denied[call_id]
        never_ran = (
            f"PreToolUse hook {denier.handler_id} denied it (seq {denier.seq}), naming none, and "
            "its result is an error: its body never ran (had it run, the deny was not obeyed, "
            "DEC-1)"
        )
    elif call_id in prefix.pre_denied:
        denier = prefix.pre_denied[call_id]
        never_ran = (
            f"PreToolUse hook {denier.handler_id} denied it (seq {denier.seq}) and its result is "
            "the error a denial writes: its body never ran (had it run, the deny was not obeyed, "
            "DEC-1)"
        )
    elif call_id in prefix.refused_calls:
        outcome, answered = prefix.refused_calls[call_id]
        never_ran = (
            f"its approval was answered {spelled(outcome)} (seq {answered}) and its result is an "
            "error: its body never ran (had it run, the answer was not obeyed, DEC-2)"
        )
    else:
        refuser = _refused_rewrite(prefix, call_id, fact.error_text)
        if refuser is None:
            return NO_VIOLATIONS
        never_ran = (
            f"its result refuses the input PreToolUse hook {refuser.handler_id} supplied (seq "
            f"{refuser.seq}), as a rewrite the tool cannot take is refused: its body never ran "
            "(HOOK-6)"
        )
    return [
        Violation(
            "HOOK-5",
            fact.seq,
            f"{audited}, yet {never_ran}: a call whose body never ran gets no PostToolUse hook, "
            "only a body that ran does",
            (audited_seq,),
            facet,
        )
    ]


REWRITE_REFUSED_WORDS = " rewrote the input of "
"""What a result refusing a hook's input says after `Error: hook {hook}` and before `{tool}: `
(SPEC.md section 9, `model.wording.REWRITE_REFUSED`, which check does not import)."""


def _refused_rewrite(prefix: Prefix, call_id: str, text: str | None) -> HookAnswer | None:
    """The PreToolUse answer that supplied the input a failed result `text` of `call_id`
    refuses (HOOK-6's words, naming that hook and the call's tool), or None."""
    entry = prefix.reply_calls.get(call_id)
    if text is None or entry is None or REWRITE_REFUSED_WORDS not in text:
        return None
    for answer in prefix.hook_results.get(call_id, ()):
        if answer.point == "PreToolUse" and answer.updated_input is not None:
            words = f"Error: hook {answer.handler_id}{REWRITE_REFUSED_WORDS}{entry[1].name}: "
            if text.startswith(words):
                return answer
    return None


def same_arguments(left: str, right: str) -> bool:
    """Whether two raw argument strings are the same value as every reader parses them (EXE-2),
    whatever their spelling: JSON equality, where 1 equals 1.0 but true is not 1."""
    if left == right:
        return True
    # The frozen values are built only for two spellings: a check of a log with a violation
    # imported them for this alone (benchmarks/bench_cli.py).
    from loopspec.model.jsonvalue import parse_arguments, same_value  # noqa: PLC0415

    return same_value(parse_arguments(left), parse_arguments(right))


@invariant("rewrite_traced_to_hooks", "RW-2", "RW-3", reads=of_types("tool/call"))
def rewrite_traced_to_hooks(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A rewrite sidecar names every hook whose audited answer, before the reply, supplied an
    input, the one in effect last, on a call no hook denied."""
    if fact.type != "tool/call" or fact.rewrite_handlers is None or fact.call_id is None:
        return NO_VIOLATIONS
    if not fact.rewrite_handlers:
        # The model cannot write one (`RewriteSidecar`): a sidecar records that an input was
        # applied, so it names the hook that supplied it.
        message = (
            f"call {fact.call_id} carries a rewrite sidecar that names no hook: a sidecar is "
            "there only when a hook's input was applied, and names the hooks that supplied one"
        )
        return [Violation("RW-2", fact.seq, message)]
    found: list[Violation] = []
    pre_answers = [r for r in prefix.hook_results.get(fact.call_id, []) if r.point == "PreToolUse"]
    denier = next((r for r in pre_answers if r.decision in DENYING_DECISIONS), None)
    if denier is not None:
        # Nothing was applied, so whatever else the sidecar says follows from this.
        message = (
            f"call {fact.call_id} carries a rewrite sidecar, but hook {denier.handler_id} "
            f"denied it{DENY_DISCARDS_REWRITES}"
        )
        return [Violation("RW-2", fact.seq, message, (denier.seq,))]
    answers = {r.handler_id: r for r in pre_answers}
    named = set(fact.rewrite_handlers)
    for supplier in pre_answers:
        if (
            supplier.updated_input is not None
            and supplier.decision in SUPPLYING_DECISIONS
            and supplier.handler_id not in named
        ):
            message = (
                f"call {fact.call_id}: hook {supplier.handler_id} supplied an input too, and "
                "the sidecar does not name it: it names every hook that supplied one"
            )
            found.append(Violation("RW-2", fact.seq, message, (supplier.seq,)))
    for handler in fact.rewrite_handlers:
        answer = answers.get(handler)
        if answer is None and handler in prefix.unnamed_pre_answerers:
            # It answered before this record, naming no call (dsh names none): which call its
            # answer is about, and so whether it supplied this one's input, the log cannot show.
            continue
        if answer is None or answer.updated_input is None:
            message = (
                f"call {fact.call_id}: the sidecar names hook {handler}, which has no audited "
                "rewrite for this call"
            )
            # An input audited under another point name (a harness's own spelling) is there
            # to see: say where, or the message reads as if the hook never answered.
            elsewhere = sorted(
                {
                    r.point or ""
                    for r in prefix.hook_results.get(fact.call_id, [])
                    if r.handler_id == handler and r.point != "PreToolUse"
                }
            )
            if answer is None and elsewhere:
                points = ", ".join(repr(point) for point in elsewhere)
                message += (
                    f" (its answer for this call is audited at point {points}; a rewrite is a "
                    "PreToolUse answer's)"
                )
            elif answer is None:
                # An answer audited later is there to see too: say why it does not count.
                message += (
                    " (none before this record: a call's PreToolUse hooks all answer before "
                    "its reply, RW-3)"
                )
            found.append(Violation("RW-2", fact.seq, message))
        elif answer.decision not in SUPPLYING_DECISIONS:
            message = (
                f"call {fact.call_id}: the sidecar names hook {handler}, whose answer "
                f"({answer.decision}) supplies no input: only an allow or an ask does"
            )
            found.append(Violation("RW-2", fact.seq, message, (answer.seq,)))
        elif prefix.reply_seq is not None and answer.seq > prefix.reply_seq:
            found.append(
                Violation(
                    "RW-3",
                    fact.seq,
                    f"call {fact.call_id}: hook {handler}, which its rewrite sidecar names, "
                    "answered after the reply was committed: every PreToolUse answer for a "
                    "call is audited before the assistant/message carrying it",
                    (answer.seq, prefix.reply_seq),
                )
            )
    in_effect = answers.get(fact.rewrite_handlers[-1]) if fact.rewrite_handlers else None
    if (
        in_effect is not None
        and in_effect.updated_input is not None
        and in_effect.decision in SUPPLYING_DECISIONS
        and fact.arguments is not None
        and not text_reads_as(fact.arguments, in_effect.updated_input)
    ):
        found.append(
            Violation(
                "RW-2",
                fact.seq,
                f"call {fact.call_id}: its tool/call records {spelled(fact.arguments)}, not "
                f"the input hook {in_effect.handler_id} supplied, "
                f"{spelled(in_effect.updated_input)}, the last its sidecar names: a rewrite "
                "is recorded as the JSON value the hook gave",
                (in_effect.seq,),
            )
        )
    return found


SUPPLIED_WITHOUT_SIDECAR = "supplied-without-sidecar"
"""The facet of RW-2 `supplied_rewrite_applied_or_refused` breaks: the real Claude Code and Codex
write no rewrite sidecar at all, a known divergence of theirs (RW-2), so their profiles name the
facet (`RW-2:` + this) and leave the call to the comparison, which tells what the record lacks
(RW-1 where it keeps the model's input while the hook's ran)."""


@invariant(
    "supplied_rewrite_applied_or_refused",
    "RW-2",
    "HOOK-6",
    reads=of_types("tool/result", "hook/result", "step/end"),
)
def supplied_rewrite_applied_or_refused(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """An input a hook supplied is either recorded in the sidecar or the call fails, refused;
    one that is no JSON object is refused (HOOK-6): a call that ran with none recorded and
    succeeded ran with an input no tool takes, or with the model's in its place."""
    if fact.type == "hook/result":
        return _supplied_after_its_result(prefix, fact)
    if fact.type == "step/end":
        return _supplied_before_a_reply_without_its_call(prefix, fact)
    if (
        fact.type == "tool/result"
        and fact.surface != "replace"
        and fact.call_id in prefix.unapplied_rewrites
        and not fact.is_error
    ):
        hook = prefix.unapplied_rewrites[fact.call_id]
        # Name where to look: the hook's answer, and the record that lacks the sidecar.
        answers = [
            answer
            for answer in prefix.hook_results.get(fact.call_id, ())
            if answer.handler_id == hook and answer.point == "PreToolUse"
        ]
        unnamed = prefix.unnamed_suppliers.get(fact.call_id)
        if not answers and unnamed is not None:  # (a hook naming no call, taken for this one)
            answers = [unnamed]
        supplied = [answer.seq for answer in answers]
        record = prefix.call_records.get(fact.call_id)
        recorded = "" if record is None else f" (seq {record.seq})"
        # And what to change: a record that keeps the model's input ran the hook's unseen.
        inputs = [answer.updated_input for answer in answers]
        tied = "" if unnamed is None else _taken_for_the_call(prefix, unnamed, fact.call_id)
        if inputs and type(inputs[-1]) is not dict:
            at = () if record is None else (record.seq,)
            return [_unrefused_non_object(fact, hook + tied, inputs[-1], supplied, at)]
        if record is None or record.arguments is None or not inputs:
            change = ""
        elif text_reads_as(record.arguments, inputs[-1]):
            change = (
                f"; it runs with {hook}'s input: add the sidecar, rewrite: {{originalArguments: "
                f"the model's arguments, handlerIds: [{spelled(hook)}]}}"
            )
        else:
            change = (
                f"; its arguments are not the input {hook} supplied: record that input as the "
                "call's arguments, in the reply and the tool/call, and the model's in "
                "rewrite.originalArguments"
            )
        return [
            Violation(
                "RW-2",
                fact.seq,
                f"hook {hook}{tied} supplied an input for {fact.call_id} that was neither "
                f"recorded as a rewrite nor refused: its tool/call{recorded} carries no rewrite "
                f"sidecar, and its result reports success{change}",
                (*supplied[-1:], *(() if record is None else (record.seq,))),
                SUPPLIED_WITHOUT_SIDECAR,
            )
        ]
    return NO_VIOLATIONS


def _unrefused_non_object(
    fact: Fact, hook: str, given: object, supplied: list[int], recorded: tuple[int, ...]
) -> Violation:
    """HOOK-6 at the successful result `fact` of a call whose hook `hook` supplied `given`,
    an input that is no JSON object, which no record could hold as the call's arguments."""
    kinds = {list: "an array", str: "a string", bool: "a boolean", int: "a number"}
    kind = "null" if given is None else kinds.get(type(given), "a number")
    message = (
        f"hook {hook} supplied an input for {fact.call_id} that is {kind}, {spelled(given)}, "
        "yet its result reports success: an input in effect that is not a JSON object denies "
        "the call, with a reason naming the hook, and the call never runs"
    )
    return Violation("HOOK-6", fact.seq, message, (*supplied[-1:], *recorded), NON_OBJECT_INPUT_RAN)


def _supplied_after_its_result(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """RW-2 of a PreToolUse hook/result `fact` that supplies an input for a call whose result,
    a success, is already in the log, its tool/call without a sidecar: that input was neither
    recorded nor refused (audited so late, the hook is HOOK-4's too, at its hook/invoked)."""
    if (
        fact.point != "PreToolUse"
        or fact.updated_input is None
        or fact.decision not in SUPPLYING_DECISIONS
        or fact.turn is None
    ):
        return NO_VIOLATIONS
    call_id = prefix.pending_hook_calls.get((fact.turn, fact.point, fact.handler_id or ""))
    call_id = fact.call_id if call_id is None else call_id
    if call_id is None:
        return NO_VIOLATIONS
    if call_id in prefix.results:
        result, record = prefix.results[call_id], prefix.call_records.get(call_id)
    else:
        # An earlier step's call of this turn, where the hook cannot be for a call of its own
        # step: between steps, or after a reply making no call of that id (HOOK-4's too).
        earlier = prefix.answered_before.get(call_id)
        if (
            earlier is None
            or prefix.answered_turn != prefix.open_turn
            or (prefix.open_step is not None and prefix.reply_seq is None)
            or call_id in prefix.reply_calls
        ):
            return NO_VIOLATIONS
        result, record = earlier, prefix.answered_records.get(call_id)
    if (
        record is None
        or record.rewritten
        or prefix.failed_results.get(call_id) == result
        or call_id in prefix.pre_denied  # (a deny discards every input, HOOK-3)
        or call_id in prefix.unapplied_rewrites  # (blamed at the result, or just before)
        or call_id in prefix.repeated  # (EXE-1 blames a repeated id)
    ):
        return NO_VIOLATIONS
    message = (
        f"hook {fact.handler_id} supplied an input for {call_id} after that call's tool/result "
        f"(seq {result}), which reports success: the input was neither recorded as a rewrite "
        f"nor refused, its tool/call (seq {record.seq}) carrying no rewrite sidecar; a "
        "PreToolUse hook answers before its call is decided"
    )
    return [Violation("RW-2", fact.seq, message, (result, record.seq), SUPPLIED_WITHOUT_SIDECAR)]


def _supplied_before_a_reply_without_its_call(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """RW-2 at a step/end `fact` of a PreToolUse input supplied in the step before its reply
    for a call of the last step that answered calls, whose success is in the log, its tool/call
    without a sidecar, where the reply does not make that call again: audited then, the hook
    may have been for a call of that reply (`_supplied_after_its_result` leaves it), and was
    not; its input was neither recorded nor refused (HOOK-4 names the hook at the same
    step/end). A step that ends without a reply, or closing its turn, is not judged, as HOOK-4
    does not judge it (a reply cancelled while its hooks ran keeps no call, ABORT-2)."""
    if prefix.reply_seq is None or prefix.closing is not None or not prefix.hook_results:
        return NO_VIOLATIONS
    if prefix.answered_turn != prefix.open_turn:
        return NO_VIOLATIONS
    found: list[Violation] = []
    for call_id, answers in prefix.hook_results.items():
        result = prefix.answered_before.get(call_id)
        record = prefix.answered_records.get(call_id)
        if (
            result is None
            or record is None
            or call_id in prefix.reply_calls
            or record.rewritten
            or prefix.failed_results.get(call_id) == result
        ):
            continue
        early = [answer for answer in answers if answer.seq < prefix.reply_seq]
        if any(
            answer.point == "PreToolUse" and answer.decision in DENYING_DECISIONS
            for answer in early
        ):
            continue  # (a deny discards every input, HOOK-3)
        supplying = [
            answer
            for answer in early
            if answer.point == "PreToolUse"
            and answer.updated_input is not None
            and answer.decision in SUPPLYING_DECISIONS
        ]
        if not supplying:
            continue
        answer = supplying[-1]
        message = (
            f"hook {answer.handler_id} supplied an input for {call_id} after that call's "
            f"tool/result (seq {result}, in an earlier step), which reports success, before a "
            f"reply (seq {prefix.reply_seq}) that does not make {call_id} again: the input was "
            f"neither recorded as a rewrite nor refused, its tool/call (seq {record.seq}) "
            "carrying no rewrite sidecar; a PreToolUse hook answers before its call is decided"
        )
        related = (answer.seq, result, record.seq)
        found.append(Violation("RW-2", fact.seq, message, related, SUPPLIED_WITHOUT_SIDECAR))
    return found


DENIED_NOT_AN_ERROR = "denied-not-an-error"
"""The facet of DEC-1 `denied_call_never_succeeds` breaks: Codex writes a denial (`Command
blocked by PreToolUse hook: ...`) without the error flag, and runs a call denied without a
reason; its profile names the facet (`DEC-1:` + this) where those divergences show."""


@invariant("denied_call_never_succeeds", "DEC-1", reads=of_types("tool/result"))
def denied_call_never_succeeds(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A call a PreToolUse hook audited as denying never runs: its result is an error."""
    if (
        fact.type == "tool/result"
        and fact.surface != "replace"
        and fact.call_id in prefix.pre_denied
        and not fact.is_error
    ):
        answer = prefix.pre_denied[fact.call_id]
        msg = (
            f"call {fact.call_id} was denied (PreToolUse hook {answer.handler_id} is audited "
            f"{spelled(answer.decision)}) but its result reports success: a denied call never "
            "runs, and its result is the error `Error: <reason>`"
            f"{_taken_for_the_call(prefix, answer, fact.call_id)}"
        )
        return [Violation("DEC-1", fact.seq, msg, (answer.seq,), DENIED_NOT_AN_ERROR)]
    return NO_VIOLATIONS


@invariant("invalid_arguments_never_succeed", "EXE-2", reads=of_types("tool/result"))
def invalid_arguments_never_succeed(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A call whose arguments are not a JSON object as every reader parses them never runs:
    its result is an error (INVALID_TOOL_INPUT). A call that misses a key its tool requires
    is invalid too, but a log does not record what a tool requires."""
    if fact.type != "tool/result" or fact.surface == "replace" or fact.is_error:
        return NO_VIOLATIONS
    entry = prefix.reply_calls.get(fact.call_id or "")
    if entry is None or arguments_are_an_object(entry[1].arguments):
        return NO_VIOLATIONS  # a result for no call of the reply: ADJ-2's
    raw = entry[1].arguments
    msg = (
        f"call {fact.call_id}'s arguments {spelled(raw)} {_why_not_an_object(raw)}, yet its "
        "result reports success: a call whose arguments are not a JSON object never runs, it "
        "ends as an INVALID_TOOL_INPUT error before any hook (EXE-5)"
    )
    return [Violation("EXE-2", fact.seq, msg, (prefix.reply_seq or 0,))]


# What a JSON value other than an object is, by its type, as a message names it.
_JSON_KINDS = {list: "an array", str: "a string", bool: "a boolean", int: "a number"}


def _why_not_an_object(raw: str) -> str:
    """What a call's raw arguments, which are no JSON object as EXE-2 reads them, are instead."""
    try:
        parsed = value_of(raw)
    except RecursionError:
        parsed = NOT_JSON
    if parsed is NOT_JSON:
        return "are not valid JSON"
    if type(parsed) is dict:
        return "have no lossless JSON value (LOG-3), so every reader keeps their raw text"
    kind = "null" if parsed is None else _JSON_KINDS.get(type(parsed), "a number")
    return f"are {kind}, not an object"


@invariant(
    "approval_shows_effective_input",
    "RW-4",
    "DEC-2",
    "ABORT-3",
    reads=of_types("approval/asked", "approval/decided", "tool/result"),
)
def approval_shows_effective_input(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """An approval request names a call its step recorded and shows its recorded (effective)
    input; each is answered once, and an answer answers a pending request; a call a hook asked
    about succeeds only after an allowed-once answer."""
    # The three cases are of three types: at most one applies.
    if fact.type == "approval/asked" and fact.call_id is not None:
        record = prefix.call_records.get(fact.call_id)
        if record is None:
            # An ask is asked when the call could start: after its tool/call (RW-1 fixes it).
            named = f"approval/asked {fact.approval_id} names call {fact.call_id}"
            if prefix.open_step is None:
                named += " while no step is open (between steps or turns)"
            else:
                named += ", which no tool/call of this step records"
            msg = f"{named}: approval is asked for a recorded call"
            return [Violation("DEC-2", fact.seq, msg)]
        answered = prefix.results.get(fact.call_id)
        if answered is not None and not (
            # (A success after a hook asked was blamed at the result: ran before its approval.)
            fact.call_id in prefix.approval_due
            and fact.call_id not in prefix.pre_denied
            and prefix.failed_results.get(fact.call_id) != answered
        ):
            msg = (
                f"approval/asked {fact.approval_id} asks about call {fact.call_id} after its "
                f"result (seq {answered}): approval is asked before the call runs"
            )
            return [Violation("DEC-2", fact.seq, msg, (answered,))]
        shown = prefix.reply_calls.get(fact.call_id)
        if shown is not None and fact.name is not None and shown[1].name != fact.name:
            msg = (
                f"approval/asked {fact.approval_id} names tool {spelled(fact.name)} for call "
                f"{fact.call_id}, a call of {spelled(shown[1].name)}: a request names its "
                "call's tool"
            )
            return [Violation("DEC-2", fact.seq, msg, (record.seq,))]
        if (
            fact.arguments is not None
            and record.arguments is not None
            and not same_arguments(record.arguments, fact.arguments)
        ):
            msg = (
                f"approval for {fact.call_id} shows {spelled(fact.arguments)} but the call runs "
                f"{spelled(record.arguments)}"
            )
            return [Violation("RW-4", fact.seq, msg, (record.seq,))]
    if fact.type == "approval/decided" and fact.outcome == "cancelled":
        # An abort's cancelled answer written after its call's error result, in the step
        # (ABORT-3's place; one after the step is below). A success before it is DEC-2's.
        call_id = prefix.approvals.get(fact.approval_id or "")
        answered = prefix.results.get(call_id or "")
        if answered is not None and prefix.failed_results.get(call_id or "") == answered:
            msg = (
                f"approval/decided {fact.approval_id} cancels the request of call {call_id} "
                f"after that call's result (seq {answered}): an abort's cancelled approval is "
                "written when the abort lands, before the call's ABORTED_BEFORE_DISPATCH result"
            )
            return [Violation("ABORT-3", fact.seq, msg, (answered,))]
    if fact.type == "approval/decided" and fact.approval_id not in prefix.approvals:
        answered = prefix.answered_approvals.get(fact.approval_id or "")
        if answered is not None:
            msg = (
                f"approval/decided {fact.approval_id} answers a request already answered at "
                f"seq {answered}: each request is answered once"
            )
            return [Violation("DEC-2", fact.seq, msg, (answered,))]
        lapsed = prefix.lapsed_approvals.get(fact.approval_id or "")
        if lapsed is not None and fact.approval_id in prefix.lapsed_blamed:
            return NO_VIOLATIONS  # its turn's end named it unanswered: the same fault
        if lapsed is not None:
            call_id, step_end, aborted = lapsed
            msg = (
                f"approval/decided {fact.approval_id} answers a request of call {call_id} whose "
                f"step ended at seq {step_end}: a request is answered in its call's step"
            )
            if aborted and fact.outcome == "cancelled":
                # The abort's cancelled answer, written late: where it goes is ABORT-3's, as
                # conform names it.
                msg += (
                    ", and an abort's cancelled approval is written when the abort lands, "
                    "before the call's ABORTED_BEFORE_DISPATCH result"
                )
                return [Violation("ABORT-3", fact.seq, msg, (step_end,))]
            return [Violation("DEC-2", fact.seq, msg, (step_end,))]
        msg = f"approval/decided {fact.approval_id} answers no pending request"
        return [Violation("DEC-2", fact.seq, msg)]
    if (
        fact.type == "tool/result"
        and fact.surface != "replace"
        and fact.call_id in prefix.refused_calls
        and not fact.is_error
    ):
        outcome, answered = prefix.refused_calls[fact.call_id]
        if outcome in REFUSING_OUTCOMES:
            msg = (
                f"call {fact.call_id} was not approved (its approval was answered "
                f"{spelled(outcome)}; "
                "only allowed-once runs a call) but its result reports success"
            )
        else:  # a word of the loop's own ('approved'): "was not approved" read as nonsense
            msg = (
                f"call {fact.call_id} ran (its result reports success) after its approval was "
                f"answered {spelled(outcome)}, none of DEC-2's outcomes (allowed-once, "
                f"{', '.join(REFUSING_OUTCOMES)}): only allowed-once runs a call"
            )
        return [Violation("DEC-2", fact.seq, msg, (answered,))]
    if (
        fact.type == "tool/result"
        and fact.surface != "replace"
        and fact.call_id in prefix.approval_due
        and not fact.is_error
        and fact.call_id not in prefix.pre_denied  # deny outranks ask (HOOK-2): DEC-1's
    ):
        asking = [
            answer
            for answer in prefix.hook_results.get(fact.call_id, ())
            if answer.decision in ASKING_DECISIONS
        ]
        if asking:
            how = "deferred (an ask)" if all(a.decision == "defer" for a in asking) else "asked"
            who = f"a PreToolUse hook {how}"
        else:  # its approval/asked named it, the asking hook naming no call (as dsh's do)
            who = "its approval was asked"
        msg = (
            f"call {fact.call_id} ran before its approval: {who}, and its result reports "
            "success with no allowed-once answer before it"
        )
        asked = tuple(answer.seq for answer in asking)
        return [Violation("DEC-2", fact.seq, msg, asked)]
    return NO_VIOLATIONS


@invariant("reply_waits_for_pending_hooks", "HOOK-4", reads=of_types("assistant/message"))
def reply_waits_for_pending_hooks(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """No reply comes between a hook's hook/invoked and its hook/result in the open turn: the
    model appends each pair together, and dsh runs a step's hooks before its model request or
    after its reply, awaiting each. (Another hook's audit between them is dsh's, as it runs the
    hooks of calls that run together at once; a crash may cut a pair, REC-1, ending the turn.)"""
    if not prefix.pending_hooks or fact.type != "assistant/message":
        return NO_VIOLATIONS
    for (turn, point, handler), invoked in prefix.pending_hooks.items():
        if turn == prefix.open_turn:
            msg = (
                f"the reply comes while {point} hook {handler}'s hook/invoked (seq {invoked}) "
                "awaits its hook/result: a hook's audit pair is appended together, before the "
                "reply or after it"
            )
            return [Violation("HOOK-4", fact.seq, msg, (invoked,))]
    return NO_VIOLATIONS


@invariant("interrupted_reply_has_no_calls", "ABORT-2", reads=of_types("assistant/message"))
def interrupted_reply_has_no_calls(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """An interrupted reply keeps only its delivered text: never a tool call."""
    if fact.type == "assistant/message" and fact.interrupted and fact.calls:
        return [
            Violation("ABORT-2", fact.seq, "an interrupted assistant/message carries tool calls")
        ]
    return NO_VIOLATIONS


@invariant("repair_results_match_call_state", "REC-1", reads=of_types("tool/result", "turn/end"))
def repair_results_match_call_state(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """A repair result says NOT_STARTED only for unrecorded calls, OUTCOME_UNKNOWN for recorded;
    the repaired turn ends interrupted, its last step's calls all answered."""
    if fact.type == "turn/end":
        closing = prefix.closing
        mislabelled = closing is not None and closing.mistimed  # blamed at its result
        if prefix.repaired and fact.reason_kind != "interrupted" and not mislabelled:
            msg = (
                f"turn {fact.turn} ends {spelled(fact.reason_kind)} after crash repair results: a "
                "repaired turn ends interrupted"
            )
            return [Violation("REC-1", fact.seq, msg)]
        if fact.reason_kind != "interrupted":
            return NO_VIOLATIONS
        unanswered = prefix.dangling[prefix.dangling_before_last_step :]
        if prefix.open_step is not None:
            unanswered = prefix.unanswered()
        return [
            Violation(
                "REC-1",
                fact.seq,
                f"turn {fact.turn} ends interrupted with call {call_id} unanswered: crash repair "
                "answers every call of the open step before it closes the turn",
                (reply_seq,),
            )
            for call_id, reply_seq in unanswered
        ]
    # Repair results are appended. A replacement (a later prune or compaction of the result)
    # may keep its error code while the call it answers lies in an earlier step.
    if fact.type != "tool/result" or fact.surface == "replace" or fact.call_id is None:
        return NO_VIOLATIONS
    if not prefix.names_open_step(fact.turn, fact.step):
        return NO_VIOLATIONS  # a result in another step or turn: STEP-3 or TURN-3 blames it
    recorded = fact.call_id in prefix.call_records
    if fact.error_code == REPAIR_NOT_STARTED and recorded:
        msg = (
            f"call {fact.call_id} was recorded, so it may have "
            "run: its repair must be TOOL_OUTCOME_UNKNOWN"
        )
        return [Violation("REC-1", fact.seq, msg)]
    if fact.error_code == REPAIR_OUTCOME_UNKNOWN and not recorded:
        msg = f"call {fact.call_id} was never recorded: its repair must be TOOL_NOT_STARTED"
        return [Violation("REC-1", fact.seq, msg)]
    return NO_VIOLATIONS


def _what_intrudes(fact: Fact) -> str:
    """The event that intrudes on a closing turn, as a harness author names it."""
    if fact.type == "tool/result" and fact.error_code in REPAIR_CODES:
        return f"a repair tool/result for {fact.call_id}"
    if fact.type == "tool/result" and fact.call_id is not None:
        return f"a tool/result for {fact.call_id}"
    if fact.type == "tool/call" and fact.call_id is not None:
        return f"a tool/call for {fact.call_id}"
    if fact.surface == "replace":
        return f"a {fact.type} replacement"
    return f"a {fact.type}"


def _intrudes_unblamed(prefix: Prefix, fact: Fact) -> bool:
    """Whether `fact` intrudes on the closing turn and no rule of its own blames it there: a
    second reply (ORD-1), a record of a call the reply does not make (ORD-2), a result for no
    call of the step (ADJ-2), an event outside the open step (STEP-3), ... is that rule's,
    blamed once. (Run only on an event that intrudes: rare.)"""
    closing = prefix.closing
    if closing is None or closer_role(closing, fact) != "intrudes":
        return False
    return not any(check(prefix, fact) for check in _OWN_RULES)


ABORTED_ENDINGS = frozenset({"aborted", "interrupted"})
"""How a turn may end after an interrupted reply: aborted, or interrupted when a crash came
before the abort's closing events were written and repair wrote them (REC-1)."""


@invariant("interrupted_reply_ends_its_turn", "ABORT-2", reads=of_types(*CLOSING_READS))
def interrupted_reply_ends_its_turn(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """After an interrupted reply its step and turn end, aborted: nothing else of the loop comes
    between (no step, call, result, hook, approval or message)."""
    closing = prefix.closing
    if closing is None or closing.kind != INTERRUPTED_REPLY:
        return NO_VIOLATIONS
    role = closer_role(closing, fact)
    if role == "turn/end":
        if fact.reason_kind in ABORTED_ENDINGS:
            return NO_VIOLATIONS
        msg = (
            f"turn {fact.turn} ends {spelled(fact.reason_kind)} after the interrupted reply at seq "
            f"{closing.seq}: an abort cut that reply short, so its turn ends aborted"
        )
        return [Violation("ABORT-2", fact.seq, msg, (closing.seq,))]
    if role != "intrudes" or not _intrudes_unblamed(prefix, fact):
        return NO_VIOLATIONS
    msg = (
        f"{_what_intrudes(fact)} after the interrupted reply at seq {closing.seq}: the turn goes "
        "on after an abort cut its reply short, where the loop writes only step/end, then "
        "turn/end {kind: aborted}"
    )
    return [Violation("ABORT-2", fact.seq, msg, (closing.seq,))]


@invariant("repair_closers_follow_each_other", "REC-1", reads=of_types(*CLOSING_READS))
def repair_closers_follow_each_other(prefix: Prefix, fact: Fact) -> Sequence[Violation]:
    """Crash repair's closers (its results, step/end, turn/end interrupted) follow each other
    with nothing between, each timed as the last event before them.

    What a log shows of the closers: they begin at the repair's first result, when the open step
    had calls to answer; without one, turn/end {interrupted} is the one closer known as such (a
    step/end before it may be the loop's own, written before the crash), timed as the event
    before it."""
    closing = prefix.closing
    if closing is None or closing.kind != REPAIR:
        if fact.time is None or prefix.last_time is None or fact.time == prefix.last_time:
            return NO_VIOLATIONS
        if fact.type == "turn/end" and fact.reason_kind == "interrupted":
            what = "turn/end {interrupted}"
            fix = ""
        elif (
            fact.type == "tool/result"
            and fact.surface != "replace"
            and fact.error_code in REPAIR_CODES
            and prefix.names_open_step(fact.turn, fact.step)
        ):
            # Either a result the loop wrote as the call's own, mislabelled with a repair code
            # (the turn then goes on, and each later event is blamed as one between repair's
            # closers), or a repair timed by the clock: the writer's fix comes first, each way.
            what = (
                f"the tool/result for {fact.call_id} carries {fact.error_code}, crash repair's "
                "code, and"
            )
            fix = (
                "a result the loop writes as the call's own answer carries the tool's error, "
                "never a repair code; "
            )
        else:
            return NO_VIOLATIONS
        clock = "not the clock's"
        if fact.time == prefix.last_time // 1000 != 0:
            # A closer timed with the last event's time in seconds: the repair's own unit slip,
            # not a result the loop wrote as the call's own.
            fix = ""
            clock = (
                f"in milliseconds since the Unix epoch, as every event's time: {fact.time} is "
                f"{prefix.last_time} in seconds (divided by 1000)"
            )
        msg = (
            f"{what} is timed {fact.time}, the last event before it (seq {fact.seq - 1}) "
            f"{prefix.last_time}: {fix}crash repair's closers carry the time of the last event "
            f"before them, {clock}"
        )
        return [Violation("REC-1", fact.seq, msg, (fact.seq - 1,))]
    role = closer_role(closing, fact)
    if role == "intrudes":
        if closing.mistimed or not _intrudes_unblamed(prefix, fact):
            return NO_VIOLATIONS  # (mistimed: the loop's own result, mislabelled, blamed once)
        msg = (
            f"{_what_intrudes(fact)} between crash repair's closers, which began with its result "
            f"at seq {closing.seq}: on reopen, repair appends the open step's missing results, "
            "then step/end, then turn/end {kind: interrupted}, with nothing between"
        )
        return [Violation("REC-1", fact.seq, msg, (closing.seq,))]
    if role == "not read" or closing.time is None or fact.time is None:
        return NO_VIOLATIONS
    if fact.time != closing.time:
        msg = (
            f"{fact.type} closes the repaired turn timed {fact.time}, crash repair's first "
            f"closer (seq {closing.seq}) {closing.time}: repair's closers all carry the time of "
            "the last event before them"
        )
        return [Violation("REC-1", fact.seq, msg, (closing.seq,))]
    return NO_VIOLATIONS


_OWN_RULES = (
    events_enclosed_by_turn,
    steps_numbered_inside_turn,
    step_events_name_open_step,
    one_reply_per_step_before_calls,
    call_records_match_reply,
    result_answers_pending_call,
    hook_audit_paired_in_turn,
    approval_shows_effective_input,
)
"""The invariants that blame an event's own fault, which a closing turn leaves to them."""


# ---------------------------------------------------------------------------------------------
# Running the registry.


# Plugin logs may use any number of event types; past this many, dispatch is not cached.
_DISPATCH_CACHE_LIMIT = 512
if TYPE_CHECKING:
    _Route = tuple[tuple[Check, ...], tuple[Check, ...] | None, _Folder | None]
# Every monitor's routes, by event type: a route depends on the registry alone, and conform
# makes a monitor per program, which worked out each type's route again (a hundredth of a run).
# Filled for the registry of `_ROUTED_INVARIANTS[0]` invariants; one registered since empties it.
_ROUTES: dict[str, _Route] = {}
_ROUTED_INVARIANTS = [0]


class LogMonitor:
    """Feeds facts through every invariant, one pass, memory bounded by the open turn.

    Each fact goes only through the invariants that read its type (`Invariant.reads`); the
    others could not object to it, so the result is that of running every invariant.
    """

    def __init__(self, prefix: Prefix | None = None) -> None:
        # `prefix`: one folded so far without the monitor (the checker's judges fold clean
        # events into it themselves, and make the monitor at the first event they do not).
        self.prefix = Prefix() if prefix is None else prefix
        # Per type: its checks; those past the envelope checks, when an event of the type
        # can pass those by its seq and lack of surface metadata alone (else None); and how the
        # prefix folds it (None: only the seq advances). Shared by every monitor.
        if _ROUTED_INVARIANTS[0] != len(INVARIANTS):
            _ROUTES.clear()
            _ROUTED_INVARIANTS[0] = len(INVARIANTS)
        self._dispatch = _ROUTES

    def checks_for(self, kind: str) -> tuple[Check, ...]:
        """The checks that can object to an event of type `kind`, in registry order."""
        return self._route(kind)[0]

    def _route(self, kind: str) -> _Route:
        route = self._dispatch.get(kind)
        if route is None:
            checks = tuple(inv.check for inv in INVARIANTS if inv.reads(kind))
            envelope = len(_ENVELOPE_CHECKS)
            inner = (
                checks[envelope:]
                if checks[:envelope] == _ENVELOPE_CHECKS and kind not in SURFACE_TYPES
                else None
            )
            route = (checks, inner, FOLDERS.get(kind))
            if len(self._dispatch) < _DISPATCH_CACHE_LIMIT:
                self._dispatch[kind] = route
        return route

    def quiet_kind(self, kind: str) -> int:
        """Whether an event of type `kind` can be judged without its fact, and when.

        It concerns an event whose seq is the expected one and that carries no surface metadata
        (neither `surfaceOp` nor `sourceEventSeqs`); the caller tests those. Such an event then
        commits nothing, and folding it only advances the seq, when

        - `QUIET_ANYWHERE`: always (a type whose data no rule reads);
        - `QUIET_IN_TURN`: a turn is open (an in-turn type whose data no rule reads);
        - `QUIET_IN_STEP`: its data names the open turn and the open step, as integers (a
          stream chunk);
        - `QUIET_NEVER`: it needs its fact.

        Derived from the checks and the fold themselves, as `_runs_uniformly` is: an invariant
        added later that reads the type turns the shortcut off instead of being skipped.
        """
        checks, _inner, folder = self._route(kind)
        if folder is not None:
            return QUIET_NEVER
        if kind in _UNIFORM_RUN_TYPES and checks == _UNIFORM_RUN_CHECKS:
            return QUIET_IN_STEP
        if kind in READ_TYPES:  # its fact would test the shape of its data
            return QUIET_NEVER
        if checks == _ENVELOPE_CHECKS:
            return QUIET_ANYWHERE
        if (
            checks == (*_ENVELOPE_CHECKS, events_enclosed_by_turn)
            and kind in IN_TURN_TYPES
            and not kind.startswith("hook/")
        ):
            return QUIET_IN_TURN
        return QUIET_NEVER

    def feed(self, fact: Fact) -> list[Violation]:
        """The violations `fact` commits against the prefix; then absorb it."""
        prefix = self.prefix
        route = self._dispatch.get(fact.type)
        checks, inner, folder = self._route(fact.type) if route is None else route
        # The envelope checks (LOG-1, LOG-2) come first for every type. An event with the
        # expected seq and no surface metadata, of a type that may carry none, passes both.
        if inner is not None and fact.seq == prefix.expected_seq and fact.surface is None:
            checks = inner
        found: list[Violation] = []
        for check in checks:
            objections = check(prefix, fact)
            if objections:
                found += objections
        if len(found) > 1 and fact.type == "tool/result":
            found = citation_read_whole(found)
        if found and fact.type in _CLOSER_TYPES:
            found = repair_shapes_read_as_repair(prefix, fact, found)
        # `prefix.fold(fact)`, with the folder looked up once per type: this runs per event.
        if fact.seq != prefix.expected_seq:
            prefix.note_break(fact.seq)
        prefix.seq_drift += fact.seq - prefix.expected_seq
        prefix.expected_seq = fact.seq + 1
        if prefix.closing is not None:
            prefix.follow_closing(fact)
        if folder is not None:
            folder(prefix, fact)
        prefix.last_time = fact.time
        return found

    def feed_run(self, fact: Fact, count: int) -> list[Violation]:
        """The violations of `count` facts like `fact` with seqs `fact.seq, fact.seq + 1, ...`.

        A compact chunk row stands for such a run. When the first fact of a run of a
        `_UNIFORM_RUN_TYPES` type commits nothing, neither do the others: its checks compare
        the seq only with the expected one (which the run keeps meeting) and read nothing else
        that changes along the run, and folding it only advances the seq. So a clean run costs
        one fact, whatever its length; a run that breaks a rule is fed fact by fact, and a
        violation a later fact repeats (the same rule and words: the run's shared turn or step
        is wrong) is blamed once, on the first, citing the others' seqs.
        """
        if count < 1:
            return []
        found = self.feed(fact)
        if not found and self._runs_uniformly(fact.type):
            self.prefix.expected_seq = fact.seq + count
            return found
        first_of: dict[tuple[str, str], int] = {}
        for index, violation in enumerate(found):
            first_of.setdefault((violation.rule_id, violation.message), index)
        for seq in range(fact.seq + 1, fact.seq + count):
            for violation in self.feed(_like(fact, seq)):
                key = (violation.rule_id, violation.message)
                earlier = first_of.get(key)
                if earlier is None:
                    first_of[key] = len(found)
                    found.append(violation)
                else:
                    blamed = found[earlier]
                    found[earlier] = blamed._replace(related=(*blamed.related, seq))
        return found

    def _runs_uniformly(self, kind: str) -> bool:
        # Guarded by the checks and the fold themselves: an invariant added later that reads
        # this type, or a fold that remembers it, turns the shortcut off instead of being skipped.
        checks, _inner, folder = self._route(kind)
        return kind in _UNIFORM_RUN_TYPES and checks == _UNIFORM_RUN_CHECKS and folder is None

    @property
    def open_turn(self) -> int | None:
        """The turn left open at this point (a crash tail, when at the end of a log)."""
        return self.prefix.open_turn


# Types whose run of facts `LogMonitor.feed_run` may judge by its first fact, and the only checks
# that may read them for it to do so (each compares seq with the expected seq, or reads just the
# type, turn and step, which a run shares, against the open turn and step, which it leaves alone).
_UNIFORM_RUN_TYPES = frozenset({"assistant/chunk"})
_UNIFORM_RUN_CHECKS = (
    seq_is_index,
    surface_metadata_valid,
    events_enclosed_by_turn,
    step_events_name_open_step,
)


_ENVELOPE_CHECKS = (seq_is_index, surface_metadata_valid)


def _like(fact: Fact, seq: int) -> Fact:
    """A copy of `fact` at `seq`."""
    other = Fact(fact.type, seq)
    for name in Fact.__slots__:
        if name != "seq":
            setattr(other, name, getattr(fact, name))
    return other


def check_facts(facts: Iterable[Fact]) -> list[Violation]:
    """Every violation in a sequence of facts."""
    monitor = LogMonitor()
    return [v for fact in facts for v in monitor.feed(fact)]


def check_log(log: Iterable[Event]) -> list[Violation]:
    """Every violation in a log of events."""
    return check_facts(facts_of(event) for event in log)


def rule_ids() -> tuple[str, ...]:
    """Every rule some invariant enforces."""
    return tuple(sorted({rule for inv in INVARIANTS for rule in inv.rule_ids}))
