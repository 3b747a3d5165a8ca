"""What became of one hook's `updatedInput`, in the words a `loopspec run` hook line ends with.

A hook line showed `-> INPUT` for every rewrite a hook printed, also one the loop never used:
after a deny, under a later hook's rewrite, refused as not an input the tool takes (HOOK-6), or
not read at all (exit 2, a fault). The bundled run and `run --harness` say each of these alike;
the bundled run reads the fate from its log (`bundled_fate`), `--harness` from the hook audit
as the model reads it (`report`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

import attrs

from loopspec.model.events import Event, HookResulted, ToolCallRecorded, ToolResultRecorded
from loopspec.model.facts import SUPPLYING_DECISIONS
from loopspec.model.wording import REWRITE_REFUSED


@attrs.frozen
class InEffect:
    """The call runs (or is asked about) with this input."""


@attrs.frozen
class Overridden:
    """A hook later in configured order supplied the input in effect (HOOK-3)."""

    by: str


@attrs.frozen
class Refused:
    """The input in effect, refused as not an input the tool takes, and the call with it
    (HOOK-6)."""


@attrs.frozen
class Unused:
    """The call is denied: a deny discards every rewrite of it (HOOK-3)."""


@attrs.frozen
class Ignored:
    """The answer, as its dialect reads it, supplies no input (exit 2, a fault, a deny)."""


RewriteFate = InEffect | Overridden | Refused | Unused | Ignored


def rewrite_words(shown: str, fate: RewriteFate) -> str:
    """The end of a hook line for a hook that printed the rewrite `shown`."""
    match fate:
        case InEffect():
            return f" -> {shown}"
        case Overridden(by=by):
            return f" -> {shown}, overridden by {by}'s, later in configured order"
        case Refused():
            return f" -> {shown}, refused (HOOK-6): not an input the tool takes, so the call is"
        case Unused():
            return f" -> {shown}, unused: the call is denied"
        case Ignored():
            return f" -> {shown}, ignored: the answer as read supplies no input"
        case _:
            assert_never(fate)


def bundled_fate(hook: HookResulted, events: Sequence[Event]) -> RewriteFate | None:
    """The fate of `hook`'s rewrite, read from the call's record in `events`; None when the
    call has no record (an abort before it was sealed)."""
    if hook.decision not in SUPPLYING_DECISIONS:
        return Ignored()  # a deny too: it carries no rewrite, whatever it printed
    record = next(
        (e for e in events if isinstance(e, ToolCallRecorded) and e.call_id == hook.call_id), None
    )
    if record is None:
        return None
    if record.rewrite is not None:
        # The sidecar names every hook that supplied an input, the one in effect last.
        in_effect = record.rewrite.handler_ids[-1]
        if hook.handler_id == in_effect:
            return InEffect()
        return Overridden(in_effect) if hook.handler_id in record.rewrite.handler_ids else Ignored()
    result = next(
        (e for e in events if isinstance(e, ToolResultRecorded) and e.call_id == hook.call_id),
        None,
    )
    text = result.message.text if result is not None else ""
    refused_by = _refused_by(text, record.name)
    if refused_by is None:
        return Unused()
    return Refused() if refused_by == hook.handler_id else Overridden(refused_by)


def _refused_by(text: str, tool: str) -> str | None:
    """The hook whose rewrite the loop refused (HOOK-6), as the call's result names it."""
    before, after = REWRITE_REFUSED.split("{hook}")
    start = text.find(before)
    if start < 0:
        return None
    rest = text[start + len(before) :]
    tail = after.format(tool=tool, problem="")
    end = rest.find(tail)
    return rest[:end] if end > 0 else None
