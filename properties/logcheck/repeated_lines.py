"""An event written twice in a row: the one fault of a writer that, resuming, wrote its last
event again (LOG-1), told from an event of another kind reusing a taken seq.

Check keeps no line's contents but the one before the line it reads (`earlier` in the
checker's loop), and that is all this needs: a line whose seq is the one before the due seq
and whose event is the previous line's (its `time` aside: a writer may stamp it again) is a
repetition. Fed to the rules, it drew LOG-1 and then what the second copy breaks (a second
reply in a step, ORD-1 and ADJ-1; a call recorded twice, ORD-2; a second result, ADJ-2; a
turn or step started or ended twice): one fault shown as several. It is reported once, under
LOG-1, and not fed to the rules, so the events after it are judged as the events they are.
"""

from __future__ import annotations

from loopspec.model.prefix import Violation

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from typing import Any


def _without_time(event: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in event.items() if key != "time"}


def written_again(event: object, earlier: object, seq: int) -> Violation | None:
    """LOG-1 for `event`, at `seq`, when it is the event `earlier` (the line before it) holds,
    written again, its time aside; None when it is another event."""
    if type(event) is not dict or type(earlier) is not dict or earlier.get("seq") != seq:
        return None
    if event != earlier and _without_time(event) != _without_time(earlier):
        return None
    message = (
        f"seq {seq} is written twice, the same {event.get('type')} on this line as on the line "
        "before (a writer that, resuming, wrote its last event again): each event is written "
        f"once, and a resumed writer goes on from the log's last seq ({seq}); the repeated "
        "line is not judged again"
    )
    return Violation("LOG-1", seq, message)
