"""Naming how the history a target's next model request would carry differs from the model's
(capability "history"): rule HIST-1, with the first differing message's index and role, and
which messages a target joined into one.

The log is compared event by event first, so a history that differs while the events agree is
a loop that derives its history wrongly from a right log: a message left out (a blank reply
dropped), one added, or one changed on its way into the request.
"""

from __future__ import annotations

import json
import re
from typing import Any

from loopspec.properties.conformance.history_change import (
    HistoryChange,
    WireMessage,
    comparable_message,
)
from loopspec.properties.conformance.json_values import ParsedJson

EXCERPT = 120
EMPTY_REPLY_LEFT_OUT = (
    "an assistant message with no content block stays a surface node but is left out of the history"
)
"""HIST-1's words on the one message the history leaves out (a max-tokens reply with nothing
left), which the report says when a target sends it."""
# Where a tool call's arguments sit in a message: the history's reader of them (RW-1).
_CALL_ARGUMENTS = re.compile(r"\$\.content\[\d+\]\.arguments")


def _role(message: WireMessage) -> str:
    """The message's role in words: a tool result is a user message naming its call, a queued
    context one naming its plugin (it reads as what the user typed otherwise)."""
    source = message.get("source")
    if isinstance(source, dict) and source.get("kind") == "tool":
        return f"{message.get('role')} (the result of call {source.get('callId')})"
    if isinstance(source, dict) and source.get("kind") == "plugin":
        return f"{message.get('role')} (a context queued by plugin {source.get('plugin')})"
    return str(message.get("role"))


def _plain(value: object) -> object:
    return value.value if isinstance(value, ParsedJson) else str(value)


def _excerpt(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=_plain)
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"


def _first_difference(want: Any, got: Any, path: str) -> str:
    """The JSON path of the first place two normalized messages differ."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in [*want, *(k for k in got if k not in want)]:
            if key not in got or key not in want or want[key] != got[key]:
                if key in got and key in want:
                    return _first_difference(want[key], got[key], f"{path}.{key}")
                return f"{path}.{key}"
    if isinstance(want, list) and isinstance(got, list):
        for index, (mine, theirs) in enumerate(zip(want, got, strict=False)):
            if mine != theirs:
                return _first_difference(mine, theirs, f"{path}[{index}]")
        if len(want) != len(got):
            return f"{path}[{min(len(want), len(got))}]"
    return path


def _at(value: Any, path: str) -> object:
    """The value at a path `_first_difference` gave ("absent" when there is none)."""
    for part in path.replace("[", ".[").split(".")[1:]:
        if part.startswith("["):
            index = int(part[1:-1])
            if not isinstance(value, list) or index >= len(value):
                return "absent"
            value = value[index]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return "absent"
    return value


def _joined(wants: list[Any], got: dict[str, Any]) -> int:
    """How many of `wants` (messages from the first that differs) `got` holds in one: the same
    role, their contents one after the other (0 when it is no such join)."""
    content: list[Any] = []
    for count, want in enumerate(wants, start=1):
        if not isinstance(want, dict) or want.get("role") != got.get("role"):
            return 0
        content += want.get("content") or []
        if count > 1 and content == got.get("content"):
            return count
    return 0


def _left_out_blocks(want: dict[str, Any], got: dict[str, Any]) -> list[int]:
    """The indexes of `want`'s blocks that `got`, the same message but for them, leaves out
    (none when `got` differs otherwise)."""
    mine, theirs = want.get("content"), got.get("content")
    rest = [{k: v for k, v in m.items() if k != "content"} for m in (want, got)]
    if not isinstance(mine, list) or not isinstance(theirs, list) or rest[0] != rest[1]:
        return []
    left_out: list[int] = []
    kept = 0
    for index, block in enumerate(mine):
        if kept < len(theirs) and theirs[kept] == block:
            kept += 1
        else:
            left_out.append(index)
    return left_out if kept == len(theirs) else []


def _started_over(expected: HistoryChange, actual: HistoryChange, reference: str) -> str | None:
    """Words on a target's history that is the reference's without its first messages, from
    a message the user typed on (a loop clearing its history as a turn starts), or None."""
    held, whole = len(actual.whole), len(expected.whole)
    if not 0 < held < whole:
        return None
    first = actual.whole[0]
    source = first.get("source") if isinstance(first, dict) else None
    if not (isinstance(source, dict) and source.get("kind") == "user"):
        return None
    tail = [comparable_message(m) for m in expected.whole[whole - held :]]
    if tail != [comparable_message(m) for m in actual.whole]:
        return None
    dropped = expected.whole[0]
    return (
        f"the target's history holds the last {held} of {reference} {whole} messages: it "
        f"starts over at a message the user typed, leaving out the {whole - held} before it "
        f"(the first, its {_role(dropped)} message {_excerpt(dropped.get('content'))}), where "
        "the next request carries every message of the session so far, earlier turns' too"
    )


def history_rule(
    expected: HistoryChange, actual: HistoryChange, reference: str = "the model's"
) -> tuple[str, str] | None:
    """HIST-1 and how the first differing message differs; None if the histories agree.

    `reference` names whose history `expected` is, as a possessive (the model's, or, under a
    profile, the target's own log's: `history_own_log`)."""
    restarted = _started_over(expected, actual, reference)
    if restarted is not None:
        return "HIST-1", restarted
    start = min(expected.kept, actual.kept)
    wants = [comparable_message(m) for m in expected.whole[start:]]
    gots = [comparable_message(m) for m in actual.whole[start:]]
    sizes = (
        f"({reference} history holds {len(expected.whole)} message(s), "
        f"the target's {len(actual.whole)})"
    )
    for offset in range(max(len(wants), len(gots))):
        want = wants[offset] if offset < len(wants) else None
        got = gots[offset] if offset < len(gots) else None
        if want == got:
            continue
        index = start + offset
        where = f"message #{index + 1} of the history the next model request would carry"
        # One message left out (or added) shifts the rest: name it, not the one after it.
        if want is not None and (got is None or gots[offset:] == wants[offset + 1 :]):
            shown = expected.whole[index]
            return "HIST-1", (
                f"{where}: the target leaves out {reference} {_role(shown)} message "
                f"{_excerpt(shown.get('content'))} {sizes}"
            )
        if got is not None and (want is None or wants[offset:] == gots[offset + 1 :]):
            shown = actual.whole[index]
            role = _role(shown)
            # An empty assistant message is the one the rule leaves out by name: say so in
            # its words.
            empty = role == "assistant" and shown.get("content") in ([], ())
            # "an assistant", but "a user" (its vowel is sounded "you")
            return "HIST-1", (
                f"{where}: the target sends {'an' if role[:1] == 'a' else 'a'} {role} "
                f"message {reference} history does not hold, {_excerpt(shown.get('content'))} "
                f"{sizes}" + (f": {EMPTY_REPLY_LEFT_OUT}" if empty else "")
            )
        assert isinstance(want, dict)
        assert isinstance(got, dict)
        joined = _joined(wants[offset:], got)
        if joined > 1:
            roles = ", ".join(_role(m) for m in expected.whole[index : index + joined])
            content = _excerpt(actual.whole[index].get("content"))
            return "HIST-1", (
                f"{where}: the target's message joins {reference} messages #{index + 1} to "
                f"#{index + joined} ({roles}) into one, {content} {sizes}: the history is the "
                "log's surface messages, one per event, never "
                "merged (as a loop joining consecutive user messages, for a provider wanting "
                "roles to alternate, sends them)"
            )
        left_out = _left_out_blocks(want, got)
        if left_out:
            blocks = ", ".join(f"#{i + 1} {_excerpt(want['content'][i])}" for i in left_out)
            return "HIST-1", (
                f"{where} ({_role(expected.whole[index])}): the target's message leaves out "
                f"{reference} block(s) {blocks}: the history carries each message as its event "
                "holds it, every block (reasoning too)"
            )
        path = _first_difference(want, got, "$")
        if _CALL_ARGUMENTS.fullmatch(path):
            call = _at(want, path.removesuffix(".arguments") + ".id")
            return "RW-1", (
                f"{where} ({_role(expected.whole[index])}) gives call {call} other arguments "
                f"than its tool/call records: {reference} {_excerpt(_at(want, path))}, the "
                f"target's {_excerpt(_at(got, path))}"
            )
        return "HIST-1", (
            f"{where} ({_role(expected.whole[index])}) differs at {path}: {reference} "
            f"{_excerpt(_at(want, path))}, the target's {_excerpt(_at(got, path))}"
        )
    return None
