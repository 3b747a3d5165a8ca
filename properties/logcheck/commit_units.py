"""LOG-8 on the logs loopspec writes: every commit whole, and a reply's calls recorded with it.

A log whose header says version 1 (`loopspec run`, `impl/`) marks every event of a commit of
n >= 2 events with the envelope field `unit: [k, n]` (`loopspec.impl.framing`); an event
without it is a commit by itself. A crash keeps every commit whole or drops it whole, so in
such a log (SPEC LOG-8):

- the events of a commit come together and in order, `[1, n]` to `[n, n]`, each marker well
  formed. A commit broken in the middle of the log (events of it missing, another commit
  between its events, a marker out of order or naming another n) is one violation, at the
  line that breaks it; where the rest of that commit comes later, it continues the broken one
  and is not blamed again;
- a reply with tool calls and a `tool/call` for every one of its calls are in one commit: when
  the commit holding the reply ends without a call's record, that is the violation, and the
  call's result is not blamed again on ADJ-2 for lacking a record before it
  (`Prefix.unrecorded_blamed`);
- what a commit broken off leaves out (a lost step/end, result or turn/start) also breaks
  rules about which events come where, as the same loss does in a dsh log: a step starting
  inside an open one, results after a missing one, a turn ending with a call unanswered,
  events outside a turn. From the line that breaks the commit where events of it are missing
  (a later event of it, or another commit's first, where its next was due) to the next
  turn/start, those are the same bug and are not reported again (`HOLE_KEEPS` lists the rules
  about what one event says, which a loss cannot break and which still are; `broken_line`,
  read by the checker). A second bug from the next turn on is reported as ever;
- a commit still open at the end of the log is the one a crash may leave torn, which the
  harness drops whole when the session reopens (`impl/log_reader.py`): a notice, as a turn left
  open is (REC-2), not a violation. The events before it are the committed log; its own events
  are judged like any others (a prefix of a valid log breaks no rule).

The lines are judged as they are read, before their events are fed to the invariants, so a
verdict on a line never waits for a later one: no prefix of a valid log is flagged, and a
violation once found is found in every longer prefix. Memory: the open commit's place, and the
call ids its reply makes and its records name.

Version 0 logs (dsh's) carry no markers and may commit event by event (SPEC section 8): their
commits are not checked, and their reports do not list LOG-8 among the rules checked.
"""

from __future__ import annotations

from loopspec.model.prefix import NO_VIOLATIONS, Prefix, Violation
from loopspec.properties.logcheck import UNIT_KEY

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    # typing imports re, enum and collections, as collections.abc imports collections
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

RULE = "LOG-8"
# In the hole a broken commit leaves (from its break to the next turn/start), the rules still
# reported: each is about what one event says (repeated call ids, a record or an approval
# showing other arguments than the reply, a call in an interrupted reply), which no missing or
# displaced event changes. Every other rule there follows from the loss LOG-8 named.
HOLE_KEEPS = frozenset({"EXE-1", "RW-1", "RW-4", "ABORT-2"})


# The line types `_note_calls` reads: a reply's calls and a call's record.
_NOTED_TYPES = frozenset({"tool/call", "assistant/message"})
_FIRST = 1
"""A commit's first k (compared by identity, see `CommitUnits.take`)."""


def _where(line: int, seq: int) -> str:
    return f"line {line} (seq {seq})"


def _calls(call_ids: list[str]) -> str:
    return f"call{'s' if len(call_ids) > 1 else ''} {', '.join(call_ids)}"


class CommitUnits:
    """The commit markers of one version-1 log, read line by line (`take`, then `torn`)."""

    def __init__(self, prefix: Prefix) -> None:
        self._prefix = prefix
        # The open commit: its size n (0 between commits), the k of its last line read, and
        # where it began.
        self._size = 0
        self._position = 0
        self._first_line = 0
        self._first_seq = 0
        # The open commit was already blamed (broken, or begun without its first events): its
        # end is not judged again.
        self._blamed = False
        # The k of the open commit's first line read (1 unless it begins nowhere).
        self._first_position = 0
        # The last commit broken off, as its n and the k of each of its lines read: lines
        # marked with its n and a k not read yet, wherever they come, are the rest of that one
        # commit (`_continues_cut`: the open commit is), blamed already.
        self._cut: tuple[int, set[int]] | None = None
        self._continues_cut = False
        # The open commit's first reply with calls (seq, line, call ids in the reply's order)
        # and the call ids its tool/call records name.
        self._reply: tuple[int, int, list[str]] | None = None
        # A reply of the open commit not read yet, while `_reply` is None (seq, line, the
        # decoded line): its calls are read when a verdict needs them (`_read_pending`), or
        # taken from the prefix once the clean-event judge has folded it (`judge_reply`), which
        # read them already.
        self._pending: tuple[int, int, Mapping[str, Any]] | None = None
        self._judge: Callable[[Prefix, dict[str, Any], int], bool] | None = None
        # Whether `end` may have a verdict to give on the open commit: False only once the
        # commit's one reply so far was folded clean without calls (`judge_reply`), no reply
        # held or pending (what `end` judges): the checker's loop skips `end` then, as about
        # half of a log's commits holding a reply end so. True again with the next reply read.
        self.awaits_end = True
        self._recorded: set[str] = set()  # cleared, never replaced (`recording`)
        # The line of the last commit found broken off there with events of it missing at that
        # point (a later event of the open commit, or another commit's first, where its next
        # was due; a commit begun without its first events); 0 before any. Only the general
        # path sets it.
        self.broken_line = 0
        # The line that last closed a commit broken off (0 before any): that commit is not
        # whole, so no later line is a copy of it (the checker's `repeated_lines`).
        self.broke_off_at = 0
        # The LOG-8 `take` gave the line it read last, when that line is marked event k > 1 of
        # a commit with none open (None otherwise): at a taken seq, the checker words it as the
        # copy it may be (`_take_unit`).
        self.begun_nowhere: Violation | None = None

    def take(
        self, obj: Mapping[str, Any], line: int, seq: object, kind: object
    ) -> Sequence[Violation]:
        """The LOG-8 violations of the event (or compact row) `obj` on `line`, read before it is
        fed to the invariants; `seq` and `kind` are its `seq` and `type` as the checker read
        them (`seq` None when it could not). A line without an integer seq is left to the
        reader, which stops at it."""
        # Nearly every line is a commit by itself between commits, the first line of a commit,
        # or the next line of the open one: judged here, as `_place` and `_note_calls` would,
        # without building the marker or a list. Anything else takes the general path below.
        self.begun_nowhere = None
        marker = obj.get(UNIT_KEY)
        if marker is None:
            if not self._size and type(seq) is int and kind != "assistant/message":
                return NO_VIOLATIONS
            return self.take_generally(obj, line)
        try:
            position, of = marker  # two integers, checked below
        except (TypeError, ValueError):  # not a pair
            return self.take_generally(obj, line)
        if self._size:
            # The open commit's next line. `is`, not `==` and a type test: of ints equal to
            # them, only an int is the same object (not a bool, not a float; in CPython a
            # large int may be another object too, and takes the general path).
            if position is not self._position + 1 or of is not self._size or type(seq) is not int:
                return self.take_generally(obj, line)
            if self._continues_cut:
                self._read_of_cut(position)
        elif position is _FIRST and type(of) is int and of >= 2 and type(seq) is int:
            # A new commit (a commit's lines never restart at 1).
            self._afresh()
            self._first_line, self._first_seq = line, seq
            self._size, self._first_position = of, 1
        else:
            return self.take_generally(obj, line)
        self._position = position
        if kind in _NOTED_TYPES:
            self.note(obj, line, seq, kind)
        if position is not of:
            return NO_VIOLATIONS
        ended = self.end(line, seq)
        self._size = self._position = 0
        return ended

    # -- the checker's own reading -------------------------------------------------------------
    # The checker's loop judges a version-1 log's usual lines as `take` does, the open commit's
    # size, place and beginning in its locals (this reader's `_size` stays 0 meanwhile): a line
    # of a type `_NOTED_TYPES` names goes to `note` (the first of a commit with noted=False),
    # the last line of a commit with such a line to `end`, and any other line to `take` once the
    # open commit is handed over (`adopt`).

    def _afresh(self) -> None:
        """Forget the last commit's reply, calls and blame: a new commit opens."""
        self._reply = self._pending = None
        self._blamed = self._continues_cut = False
        if self._recorded:
            self._recorded.clear()

    def adopt(self, size: int, position: int, first_line: int, first_seq: int, noted: bool) -> None:
        """Take over the commit the checker opened at `first_line` (`first_seq`), a commit of
        `size` whose lines 1 to `position` were read, `noted` when one of them was noted."""
        if not noted:
            self._afresh()
        self._size, self._position = size, position
        self._first_line, self._first_seq, self._first_position = first_line, first_seq, 1

    def take_held_reply(self, seq: int, line: int, calls: tuple[str, ...]) -> None:
        """Take over the reply at `line` (`seq`) the checker's loop held: the first line of the
        open commit it noted, which its judge folded clean with `calls` (the prefix's
        `reply_ids` then), the commit's records since in this reader's set (`recording`). The
        state `note` and `judge_reply` leave for such a reply."""
        self._reply = (seq, line, list(calls)) if calls else None
        self._pending = None
        self._blamed = self._continues_cut = False
        self.awaits_end = self._reply is not None

    def records(self) -> set[str]:
        """The call ids recorded in the open commit (`note` adds a tool/call's): the checker's
        loop adds a record after the first noted line of a commit it opened, clears them where
        it holds a reply, and tests them at the end of such a commit (`take_held_reply`)."""
        return self._recorded

    def begins_at(self, line: int) -> bool:
        """Whether `line` (the last taken) began the open commit: its first event, marked so."""
        return self._size != 0 and self._first_line == line and self._first_position == 1

    def is_open(self) -> bool:
        """Whether a commit this reader took (`take`) is open: its next line is `take`'s too."""
        return self._size != 0

    def note(
        self, obj: Mapping[str, Any], line: int, seq: int, kind: object, noted: bool = True
    ) -> None:
        """`_note_calls` for a line of a type `_NOTED_TYPES` names, read in order in a commit
        opened well (`noted`: not its first such line, so the last commit is forgotten)."""
        if not noted:  # `_afresh`, inlined: every commit of calls and replies starts so
            self._reply = self._pending = None
            self._blamed = self._continues_cut = False
            if self._recorded:
                self._recorded.clear()
        if kind == "tool/call":
            data = obj.get("data")
            call_id = data.get("callId") if type(data) is dict else None
            if type(call_id) is str:
                self._recorded.add(call_id)
        else:
            self.awaits_end = True
            if self._reply is None:
                if self._pending is not None:  # a second reply: is the first one with calls?
                    self._read_pending()
                if self._reply is None:
                    self._pending = (seq, line, obj)

    def end(self, line: int, seq: int) -> Sequence[Violation]:
        """The commit read well ends at `line` (`seq`): `_reply_recorded`'s verdict."""
        if self._pending is not None:
            self._read_pending()
        reply = self._reply
        # (`_reply_recorded` has nothing to judge: no reply with calls, or every call recorded)
        if reply is None or self._recorded.issuperset(reply[2]):
            self._reply = None
            return NO_VIOLATIONS
        return self._reply_recorded(line, seq)

    def take_generally(self, obj: Mapping[str, Any], line: int) -> Sequence[Violation]:
        """`take` without its fast path: the same verdicts and state on any line (the tests
        compare them)."""
        self.begun_nowhere = None
        seq = obj.get("seq", obj.get("seq0"))
        if type(seq) is not int:
            return []
        # The writer's own reading of a marker, imported for the first line `take` cannot judge
        # (none of a valid log's): a marked log is checked without `impl`.
        from loopspec.impl.framing import unit_marker  # noqa: PLC0415

        found: list[Violation] = []
        broke = False
        try:
            marker = unit_marker(obj)
        except ValueError:
            found.append(self._malformed(obj, line, seq))
            marker = None  # read as a commit by itself, so the lines after it are judged
        else:
            if self._size and marker != (self._position + 1, self._size):
                broke = True
                found += self._broken_by(marker, obj, line, seq)
        found += self._place(marker, obj, line, seq, quiet=broke)
        self._note_calls(obj, line, seq)
        if self._position == self._size:  # this line ends its commit
            found += self._reply_recorded(line, seq)
            self._size = self._position = 0
        return found

    def torn(self) -> tuple[int, int, str] | None:
        """(line, seq, message) of the commit left open at the end of the log; None when the
        log ends between commits, or in the rest of a commit already blamed."""
        if not self._size or self._blamed:
            return None
        return (
            self._first_line,
            self._first_seq,
            f"the last commit, begun at {_where(self._first_line, self._first_seq)}, holds "
            f"{self._position} of its {self._size} events: a commit a crash cut off, which "
            "the harness drops whole when the session reopens; the log before it is whole",
        )

    # -- the markers ---------------------------------------------------------------------------

    def _place(
        self,
        marker: tuple[int, int] | None,
        obj: Mapping[str, Any],
        line: int,
        seq: int,
        *,
        quiet: bool,
    ) -> list[Violation]:
        """Take the line's place: the next of the open commit, or the first line read of a new
        one. `quiet`: the line already broke a commit, and is not blamed again."""
        if self._size:
            self._position += 1
            if self._continues_cut:
                self._read_of_cut(self._position)
            return []
        self._reply, self._pending, self._blamed = None, None, False
        self._recorded.clear()
        self._continues_cut = False
        self._first_line, self._first_seq = line, seq
        if marker is None:
            self._size = self._position = self._first_position = 1
            return []
        position, size = marker
        self._size, self._position = size, position
        self._first_position = position
        if position == 1:
            return []
        # The rest of a commit broken off earlier (blamed then), or of one begun nowhere.
        self._blamed = True
        cut = self._cut
        if cut is not None and cut[0] == size and position not in cut[1]:
            self._continues_cut = True
            self._read_of_cut(position)
            return []
        if quiet:
            return []
        self.broken_line = line
        message = (
            f"{obj.get('type')} at {_where(line, seq)} is marked event {position} of a commit "
            f"of {size}, but no commit is open: its first {position - 1} event(s) are missing "
            "(a commit is written whole, its events together)"
        )
        self.begun_nowhere = Violation(RULE, seq, message)
        return [self.begun_nowhere]

    def _broken_by(
        self, marker: tuple[int, int] | None, obj: Mapping[str, Any], line: int, seq: int
    ) -> list[Violation]:
        """The open commit ends early at `line`: close it, and blame it unless it was already."""
        shown = (
            "carries no unit marker (a commit by itself)"
            if marker is None
            else f"is marked event {marker[0]} of {marker[1]}"
        )
        message = (
            f"the commit begun at {_where(self._first_line, self._first_seq)} breaks off after "
            f"{self._position} of its {self._size} events: {obj.get('type')} at "
            f"{_where(line, seq)} {shown} where event {self._position + 1} of {self._size} "
            "was due (a commit is written whole, its events together)"
        )
        blamed, related = self._blamed, (self._first_seq,)
        # Events of it are missing here when the line is a later one of it, or begins another
        # commit (not when it carries no marker, names another n or an earlier k: it may be the
        # due event, or one written twice).
        if marker is not None and (
            marker[0] == 1 or (marker[1] == self._size and marker[0] > self._position + 1)
        ):
            self.broken_line = line
        self._close_broken(line)
        return [] if blamed else [Violation(RULE, seq, message, related)]

    def _malformed(self, obj: Mapping[str, Any], line: int, seq: int) -> Violation:
        marker = obj.get(UNIT_KEY)
        message = (
            f"{obj.get('type')} at {_where(line, seq)} carries the unit marker {_json(marker)}, "
            "which is not [k, n] with integers 1 <= k <= n and n >= 2"
        )
        related: tuple[int, ...] = ()
        if self._size:
            message += (
                f", breaking off the commit begun at {_where(self._first_line, self._first_seq)}"
                f" after {self._position} of its {self._size} events"
            )
            related = (self._first_seq,)
            self._close_broken(line)
        return Violation(RULE, seq, message, related)

    def _close_broken(self, line: int) -> None:
        """Close the open commit, cut short (the cut one, from now on, unless it is the rest of
        that one already): its reply's calls without a record so far are blamed with it."""
        if not self._continues_cut:
            self._cut = (self._size, set(range(self._first_position, self._position + 1)))
        self.broke_off_at = line
        self._blamed = True
        self._reply_recorded(0, 0)
        self._size = self._position = 0

    def _read_of_cut(self, position: int) -> None:
        """Line `position` of the commit broken off was read; forget it once all were."""
        if self._cut is not None:
            self._cut[1].add(position)
            if len(self._cut[1]) == self._cut[0]:
                self._cut = None

    # -- the reply's commit ------------------------------------------------------------------

    def judging_replies(
        self, judge: Callable[[Prefix, dict[str, Any], int], bool]
    ) -> Callable[[Prefix, dict[str, Any], int], bool]:
        """The checker's judge of assistant/message (`clean_events`) on this log: `judge`, which
        hands the calls of a reply it folds to this reader (`judge_reply`)."""
        self._judge = judge
        return self.judge_reply

    def judge_reply(self, prefix: Prefix, obj: dict[str, Any], seq: int) -> bool:
        """`judging_replies`' judge. A reply it finds clean was folded with the calls
        `_reply_calls` reads (it holds each tool-call block's id, a string, once, and is
        appended, not interrupted where it has calls): the prefix's `reply_ids` now, which the
        judge set afresh (no reply was folded in the step before it)."""
        assert self._judge is not None
        if not self._judge(prefix, obj, seq):
            return False
        pending = self._pending
        if pending is not None and pending[2] is obj:
            self._pending = None
            if prefix.reply_ids:
                self._reply = (seq, pending[1], list(prefix.reply_ids))
            else:  # (a reply is pending only while none is held)
                self.awaits_end = self._reply is not None
        return True

    def _read_pending(self) -> None:
        """Read the calls of the open commit's reply not read yet."""
        assert self._pending is not None
        seq, line, obj = self._pending
        self._pending = None
        calls = _reply_calls(obj)
        if calls:
            self._reply = (seq, line, calls)

    def _note_calls(self, obj: Mapping[str, Any], line: int, seq: int) -> None:
        """Remember a reply's calls, or a call's record, in the open commit."""
        kind = obj.get("type")
        if kind == "tool/call":
            data = obj.get("data")
            call_id = data.get("callId") if type(data) is dict else None
            if type(call_id) is str:
                self._recorded.add(call_id)
        elif kind == "assistant/message" and self._reply is None:
            if self._pending is not None:
                self._read_pending()
                if self._reply is not None:
                    return
            calls = _reply_calls(obj)
            if calls:
                self._reply = (seq, line, calls)
                self.awaits_end = True

    def _reply_recorded(self, line: int, seq: int) -> list[Violation]:
        """At the end of a commit holding a reply with calls: a call without its record in it
        breaks LOG-8 (unless the commit was blamed already), and the call's result is not
        blamed again for lacking a record (`Prefix.unrecorded_blamed`)."""
        if self._pending is not None:
            self._read_pending()
        if self._reply is None:
            return []
        reply_seq, reply_line, calls = self._reply
        self._reply = None
        if self._recorded.issuperset(calls):  # (in C: the usual case, every call recorded)
            return []
        missing = [call_id for call_id in calls if call_id not in self._recorded]
        self._prefix.unrecorded_blamed = (reply_seq, frozenset(missing))
        if self._blamed:
            return []
        ends = "is that reply alone" if self._size == 1 else f"ends at {_where(line, seq)}"
        message = (
            f"the reply at {_where(reply_line, reply_seq)} makes {_calls(calls)}, but the "
            f"commit holding it {ends} without a tool/call for {', '.join(missing)}: a reply with "
            "tool calls and every call's tool/call land in one commit"
        )
        return [Violation(RULE, seq, message, (reply_seq,))]


def _reply_calls(obj: Mapping[str, Any]) -> list[str]:
    """The call ids of an appended reply that was not interrupted (an interrupted reply with a
    call is ABORT-2's), in order, each once; none for a replacement (a compaction re-presents
    calls whose records came with their reply). `obj` is a decoded line: its objects are dicts
    (tested by type: `isinstance` against the `Mapping` ABC costs as much as the rest)."""
    data = obj.get("data")
    if obj.get("surfaceOp") != "append" or type(data) is not dict:
        return []
    if data.get("interrupted") is True:
        return []
    message = data.get("message")
    content = message.get("content") if type(message) is dict else None
    if type(content) is not list:
        return []
    calls: dict[str, None] = {}
    for block in content:
        if type(block) is dict and block.get("type") == "tool-call":
            call_id = block.get("id")
            if type(call_id) is str:
                calls[call_id] = None
    return list(calls)


def _json(value: Any) -> str:
    """A marker as the log writes it (JSON's true, not Python's True), shortened if long."""
    import json  # noqa: PLC0415 -- only a malformed marker needs it: check's start-up skips json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _MARKER_SHOWN else text[: _MARKER_SHOWN - 3] + "..."


_MARKER_SHOWN = 80
