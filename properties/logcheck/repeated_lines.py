"""Events written again: the one fault of a writer that, resuming, wrote its last events again
(LOG-1), told from events of another kind reusing taken seqs.

Check keeps no line's contents but the one before the line it reads (`earlier` in the
checker's loop), and what the rules keep of the open step: the seq of its reply, of each
call's record (with its arguments) and of each call's result. A line whose seq is taken is a
repetition when it is the previous line's event again (its `time` aside: a writer may stamp
it anew), or the step's reply, a call's record or a call's result at the seq the rules keep
for it (the same calls, the same arguments). Fed to the rules, each such line drew what its
copy breaks (a second reply in a step, ORD-1 and ADJ-1; a call recorded twice, ORD-2; a
second result, ADJ-2; a turn or step started or ended twice): one fault shown as several. The
first is reported once, under LOG-1, and none is fed to the rules, so the events after them
are judged as the events they are. In a version-1 log, the last commit written again whole
is such a run too (`Repeats.seen`): its first line the same as where that commit began (which
the checker keeps of each commit it reads, `commit_first`) and its other lines at the next seqs,
marked as that commit's. A repeated event of another kind, not the line before, is judged as an
event reusing a taken seq.
"""

from __future__ import annotations

from loopspec.model import PlainRecord
from loopspec.model.prefix import Prefix, Violation
from loopspec.properties.logcheck import UNIT_KEY

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from typing import Any

NAMED = Violation("LOG-1", -1, "")
"""`Repeats.seen`'s answer for a repetition a LOG-1 already named: not judged again."""


def _without_time(event: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in event.items() if key != "time"}


def _kept_at(prefix: Prefix, event: dict[str, Any], seq: int) -> bool:
    """Whether `event` is the step's reply, a call's record or a call's result that the rules
    keep at `seq` (the reply with the same calls, the record with the same arguments)."""
    try:
        data = event["data"]
        match event["type"]:
            case "assistant/message":
                calls = {
                    block["id"]: block["arguments"]
                    for block in data["message"]["content"]
                    if block["type"] == "tool-call"
                }
                kept = {
                    call_id: call.arguments for call_id, (_at, call) in prefix.reply_calls.items()
                }
                return seq == prefix.reply_seq and calls == kept
            case "tool/call":
                record = prefix.call_records.get(data["callId"])
                return (
                    record is not None
                    and record.seq == seq
                    and record.arguments == data["arguments"]
                )
            case "tool/result":
                call_id = data["message"]["content"][0]["toolCallId"]
                return type(call_id) is str and prefix.results.get(call_id) == seq
            case _:
                return False
    except (KeyError, TypeError, IndexError, AttributeError):
        return False


def written_again(event: object, earlier: object, seq: int, prefix: Prefix) -> bool:
    """Whether `event`, at `seq`, a seq already taken, is an event written again: the line
    before it (`earlier`) again, or what the rules keep at `seq` (`_kept_at`)."""
    if type(event) is not dict:
        return False
    if (
        type(earlier) is dict
        and earlier.get("seq") == seq
        and (event == earlier or _without_time(event) == _without_time(earlier))
    ):
        return True
    return _kept_at(prefix, event, seq)


class Repeats(PlainRecord):
    """Per log: where the last repetition LOG-1 named began, and the seq then due (a run of
    lines written again is named once); and the rest of a commit found written again, as the
    seq and marker its next line has (`_rest`, None when there is none)."""

    __slots__ = ("_rest", "due")

    def __init__(self) -> None:
        self.due = -1
        self._rest: tuple[int, list[int]] | None = None

    def seen(
        self,
        event: object,
        earlier: object,
        seq: int,
        prefix: Prefix,
        commit_first: object = None,
    ) -> Violation | None:
        """For a line at `seq`, a seq already taken: LOG-1 naming a repetition (the first of a
        run), `NAMED` for a later line of a named run, None for another event. `commit_first`
        is the first line of the last commit begun before this line's own (version-1 logs)."""
        if type(event) is not dict:
            return None
        if self._is_rest(event, seq):
            return NAMED
        size = _commit_written_again(event, seq, prefix, commit_first)
        if size:
            self._rest = (seq + 1, [2, size])
            self.due = prefix.expected_seq
            message = (
                f"seqs {seq} to {seq + size - 1} are written again, the same commit of {size} "
                f"events as where it was first written, begun with the same {event.get('type')} "
                f"(a writer that, resuming, wrote its last commit again): each event is written "
                f"once, and a resumed writer goes on from the log's last seq "
                f"({prefix.expected_seq - 1}); the lines written again are not judged again"
            )
            return Violation("LOG-1", seq, message)
        if not written_again(event, earlier, seq, prefix):
            return None
        if self.due == prefix.expected_seq:
            return NAMED
        self.due = prefix.expected_seq
        last = prefix.expected_seq - 1
        message = (
            f"seq {seq} is written again, the same {event.get('type')} as where it was first "
            f"written (a writer that, resuming, wrote its last events again, from seq {seq}): "
            f"each event is written once, and a resumed writer goes on from the log's last seq "
            f"({last}); the lines written again are not judged again"
        )
        return Violation("LOG-1", seq, message)

    def _is_rest(self, event: dict[str, Any], seq: int) -> bool:
        """Whether `event` is the next line of a commit found written again (and, if so, take
        it: the line after is due next, or the commit is over)."""
        rest = self._rest
        if rest is None:
            return False
        due_seq, marker = rest
        if seq != due_seq or event.get(UNIT_KEY) != marker:
            self._rest = None
            return False
        position, size = marker
        self._rest = (seq + 1, [position + 1, size]) if position < size else None
        return True


def _commit_written_again(
    event: dict[str, Any], seq: int, prefix: Prefix, commit_first: object
) -> int:
    """The size of the commit `event` begins, when it begins the last commit again: marked its
    first of n, n the events from `seq` to the log's last, and the same as `commit_first` at
    `seq` (its time aside); 0 otherwise."""
    marker = event.get(UNIT_KEY)
    if type(marker) is not list or len(marker) != 2 or marker[0] != 1:
        return 0
    size = marker[1]
    if type(size) is not int or size < 2 or seq + size != prefix.expected_seq:
        return 0
    if type(commit_first) is not dict or commit_first.get("seq") != seq:
        return 0
    return size if _without_time(event) == _without_time(commit_first) else 0
