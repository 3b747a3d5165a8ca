"""Compact chunk rows: one line of a dsh log that stands for a run of `assistant/chunk` events.

Recent dsh writers fold the stream deltas of one content block into a single row that has no
`seq` of its own, for example

    {"type": "text-chunks", "seq0": 10, "time0": 1700000000000,
     "data": {"turn": 1, "step": 1, "index": 0, "dt": [...], "texts": ["The", " user", ...]}}

which stands for `len(texts)` consecutive `assistant/chunk` events with seqs `seq0, seq0 + 1, ...`.
`reasoning-chunks` carries `texts` as well; `tool-call-chunks` carries `args` (and the call's `id`
and `name`). `time0` is the first chunk's time and `dt` the gaps to the next ones' (dsh's
writer): the rules read only a chunk's seq, turn and step, so a row is fully described by
`CompactRun`, but its first and last chunks' times, time0 and time0 plus every gap, are
held to LOG-4 as an event's time is (integers, 0 or more), so that a row stands only for
chunks that could be written alone. Row types outside
`COUNT_FIELDS` are not guessed at: they raise `CompactRowError`.
`COUNT_FIELDS` and `RUN_INTEGERS` are the format: `compact_run` reads a row by them, and SPEC.md's
table of compact rows is rendered from them (`loopspec.properties.spec_doc`).
"""

from __future__ import annotations

from _collections_abc import Mapping  # collections.abc's, without collections (see `logcheck`)

from loopspec.model.facts import member_problem

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from typing import Any, TypeGuard

    from loopspec.model.prefix import Prefix

COUNT_FIELDS = {
    "reasoning-chunks": "texts",
    "text-chunks": "texts",
    "tool-call-chunks": "args",
}
# The integer members every compact row carries, as wire paths: the first seq, the first chunk's
# time (whole milliseconds since the Unix epoch, 0 or more: LOG-4), then the turn and step each
# of its chunks names.
RUN_INTEGERS = ("seq0", "time0", "data.turn", "data.step")
# The gaps from each chunk's time to the next's (dsh writes one per chunk after the first), so
# that a chunk's time is time0 plus the gaps before it: held to LOG-4 as an event's time is
# (integers, the last chunk's time, time0 plus every gap, 0 or more; the times between, which
# only a row going back below the epoch and forth again would put below 0, are not read: a walk
# of every row's gaps cost a 20,000-event log of dsh's 0.7% more instructions). How many there
# are is not read either: hand-written rows give one per chunk, the first 0.
GAPS = "dt"
CHUNK_TYPE = "assistant/chunk"


class CompactRowError(ValueError):
    """A row with `seq0` that cannot be read as a run of chunks, and the rule it breaks."""

    def __init__(self, message: str, rule_id: str = "LOG-4") -> None:
        super().__init__(message)
        self.rule_id = rule_id


class CompactRun:
    """The chunk events one compact row stands for: seqs `seq0 .. seq0 + count - 1`.

    (A plain class: `loopspec check` imports no attrs, and a NamedTuple's `count` is taken.)"""

    __slots__ = ("count", "seq0", "step", "turn")

    def __init__(self, seq0: int, count: int, turn: int, step: int) -> None:
        self.seq0 = seq0
        self.count = count
        self.turn = turn
        self.step = step


def is_compact(obj: Mapping[str, Any]) -> bool:
    """Whether a parsed line is a compact row (it has `seq0` and no `seq`)."""
    return "seq0" in obj and "seq" not in obj


def _whole(row: Mapping[str, Any], path: str, kind: str) -> int:
    """The integer at `path` (`seq0`, `data.turn`) of a row whose data is an object."""
    holder, _, key = path.rpartition(".")
    members = row[holder] if holder else row
    value = members.get(key)
    if type(value) is not int:
        where = f"{kind}.{holder}" if holder else kind
        raise CompactRowError(member_problem(members, key, where, "an integer"))
    return value


def _integers(gaps: object) -> TypeGuard[list[int]]:
    """Whether `gaps` is a list of integers, by its sum's type (in C: each item's type asked
    in Python cost a 20,000-event log of dsh's 1.1% more instructions) and, `true` being 1 to
    a sum, no bool among them (`_no_bools`)."""
    if type(gaps) is not list:
        return False
    try:
        return type(sum(gaps)) is int and _no_bools(gaps)
    except TypeError:  # a string, null, an array or an object among them
        return False


def _no_bools(gaps: list[Any]) -> bool:
    """Whether no item of `gaps` is `true` or `false`, which JSON's reader makes bools, and a
    sum adds as 1 and 0: asked in C, each item's type compared with bool's."""
    return bool not in map(type, gaps)


def compact_run(obj: Mapping[str, Any]) -> CompactRun:
    """The run a compact row stands for, or `CompactRowError` naming what is wrong."""
    kind = obj.get("type")
    if type(kind) is not str or kind not in COUNT_FIELDS:
        known = ", ".join(sorted(COUNT_FIELDS))
        raise CompactRowError(f"compact row of unknown type {kind!r} (known: {known})")
    data = obj.get("data")
    if not isinstance(data, Mapping):
        raise CompactRowError(f"{kind}.data must be an object")
    items = data.get(COUNT_FIELDS[kind])
    if not isinstance(items, list):
        raise CompactRowError(f"{kind}.data.{COUNT_FIELDS[kind]} must be an array")
    seq0, time0, turn, step = (_whole(obj, path, kind) for path in RUN_INTEGERS)
    if time0 < 0:
        raise CompactRowError(
            f"{kind}: time0 {time0} is below 0: its first chunk's time is milliseconds since "
            "the Unix epoch, 0 or more, as an event's"
        )
    gaps = data.get(GAPS)
    if not _integers(gaps):
        raise CompactRowError(member_problem(data, GAPS, f"{kind}.data", "an array of integers"))
    if (time := time0 + sum(gaps)) < 0:
        raise CompactRowError(
            f"{kind}: data.{GAPS} times its last chunk at {time} (time0 {time0} and every gap), "
            "below 0: a chunk's time is milliseconds since the Unix epoch, 0 or more, as an "
            "event's"
        )
    # Refused as an `assistant/chunk` so numbered is (`fact_readers._numbered_from_one`): a
    # chunk of a step 0 was read on and blamed on STEP-3, where its event alone is refused under
    # STEP-1.
    if turn < 1:
        raise CompactRowError(f"{kind}: data.turn must be an integer >= 1, got {turn}", "TURN-1")
    if step < 1:
        raise CompactRowError(f"{kind}: data.step must be an integer >= 1, got {step}", "STEP-1")
    return CompactRun(seq0, len(items), turn, step)


def quiet_run(obj: Any, prefix: Prefix) -> int:
    """How many chunks the line `obj` stands for, folded into `prefix`, when it is a compact row
    whose run is quiet (`LogMonitor.quiet_kind`: its chunks commit nothing): its first seq is
    the expected one and it names the open turn and step. Otherwise 0, `prefix` untouched, and
    the checker reads the line as `compact_run` does."""
    try:
        seq0, time0, data = obj["seq0"], obj["time0"], obj["data"]
        items, turn, step = data[COUNT_FIELDS[obj["type"]]], data["turn"], data["step"]
        gaps = data[GAPS]
    except (KeyError, TypeError):  # a member missing, no object, no row's type
        return 0
    if (
        type(items) is list
        and items
        and type(seq0) is int
        and seq0 == prefix.expected_seq
        and type(time0) is int
        and time0 >= 0
        and type(turn) is int
        and type(step) is int
        and turn == prefix.open_turn
        and step == prefix.open_step
        and "seq" not in obj
        and type(gaps) is list
    ):
        # Gaps of integers (a sum's type, in C; no bool) timing the last chunk at 0 or more; a
        # row whose gaps hold a string, null (TypeError) or a bool goes the general way.
        try:
            total = sum(gaps)
        except TypeError:
            return 0
        if type(total) is not int or time0 + total < 0:
            return 0
        for gap in gaps:  # (`_no_bools`, inlined: a loop costs a short list less than `map`)
            if type(gap) is bool:
                return 0
        prefix.expected_seq = seq0 + len(items)
        return len(items)
    return 0
