"""Text a target changed on its way: a message holding the text given, code point for code point.

What the user types and what the model replies is kept as given (TEXT-2), as a result is the
body's text (EXE-4): a loop that normalizes it (NFC joins `e` and U+0301 into `é`), writes it in
another encoding (`?` for what Latin-1 or ASCII lacks, UTF-8 bytes read as Latin-1), escapes
a character past U+FFFF as one `\\u` escape of all its hex digits (`\\u1f4c2`), stores it
as UCS-2 (characters past U+FFFF dropped) or cuts it counting UTF-16 units (a character past
U+FFFF is two of them) goes wrong only on text holding characters ASCII lacks; one holding text
as a NUL-ended C string, or in a fixed array, cuts it at U+0000 or at the array's size. These
find that change in two message events and say what it is, so a report names TEXT-2 and the
change, not the queue (ADJ-4) or no rule at all (and EXE-4, for a result, with the change).
"""

from __future__ import annotations

import json
import unicodedata
from copy import deepcopy
from typing import Any, Final

from loopspec.properties.conformance.value_notes import encoding_change, escaped_whole

NORMALIZATION_FORMS: Final = ("NFC", "NFD", "NFKC", "NFKD")
# The sizes a fixed buffer is given, its last byte the NUL: a text cut to one less is cut there.
_BUFFER_SIZES: Final = frozenset(2**n for n in range(4, 17))


def how_text_changed(want: str, got: str) -> str | None:
    """How `got` is `want`, a text holding characters ASCII lacks, changed on its way, in words;
    None when it is not so (another text, or `want` all ASCII, whose changes are other rules')."""
    if want == got:
        return None
    if "\x00" in want and got == want.partition("\x00")[0]:
        return (
            f"{json.dumps(got)}, the text cut at its first U+0000, as a NUL-ended string ends "
            "(C's strlen, strcpy, printf's %s)"
        )
    if want.isascii():
        return _cut_by_a_buffer(want, got)
    for form in NORMALIZATION_FORMS:
        if unicodedata.normalize(form, want) == got:
            return f"{json.dumps(got)}, the text {form}-normalized"
    escaped = escaped_whole(want, got)
    if escaped is not None:
        return f"{json.dumps(got)}, the text with {escaped[0]}"
    if got == "".join(char for char in want if ord(char) <= 0xFFFF):
        return f"{json.dumps(got)}, the text with its characters past U+FFFF dropped"
    encoded = encoding_change(want, got)
    if encoded is not None:
        return f"{encoded}, the text read or written in another encoding than UTF-8"
    # As many UTF-16 units as `got` has (a pair cut in two leaves one unit, read as U+FFFD).
    count = len(got.encode("utf-16-le", "surrogatepass")) // 2
    cut = want.encode("utf-16-le")[: 2 * count].decode("utf-16-le", "replace")
    # Cut at 0 units is no text at all, which says nothing of UTF-16 (another message, the
    # empty one a crash should have lost, read so).
    if count and got == cut and any(ord(char) > 0xFFFF for char in want):
        return (
            f"{json.dumps(got)}, the text cut at {count} UTF-16 units (a character past U+FFFF "
            "is two)"
        )
    return _cut_by_a_buffer(want, got)


def _cut_by_a_buffer(want: str, got: str) -> str | None:
    """How `got` is `want` cut to one character less than a fixed buffer's size, or None."""
    if got and len(got) < len(want) and want.startswith(got) and len(got) + 1 in _BUFFER_SIZES:
        return (
            f"{json.dumps(got)}, the text cut after {len(got)} of its {len(want)} characters, "
            f"as a buffer of {len(got) + 1} bytes holds it (C's snprintf into an array)"
        )
    return None


def message_text_change(want: Any, got: Any) -> str | None:
    """How the texts of message event `got` are those of `want` changed on their way, when the
    two differ in those texts alone, each changed as `how_text_changed` says; else None."""
    mine, theirs = _texts(want), _texts(got)
    if mine is None or theirs is None or len(mine) != len(theirs):
        return None
    if _with_texts(got, mine) != _with_texts(want, mine):
        return None
    changes = [how_text_changed(w, g) for w, g in zip(mine, theirs, strict=True) if w != g]
    if not changes or None in changes:
        return None
    return changes[0]


def _content(event: Any) -> list[Any] | None:
    data = event.get("data") if isinstance(event, dict) else None
    message = data.get("message") if isinstance(data, dict) else None
    content = (message if isinstance(message, dict) else data or {}).get("content")
    return content if isinstance(content, list) else None


def _text_blocks(content: list[Any]) -> list[dict[str, Any]]:
    """The blocks holding text in `content`, those inside a tool result's block too."""
    found: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            found.append(block)
        elif isinstance(block, dict) and isinstance(block.get("content"), list):
            found += _text_blocks(block["content"])
    return found


def _texts(event: Any) -> list[str] | None:
    content = _content(event)
    return None if content is None else [block["text"] for block in _text_blocks(content)]


def _with_texts(event: Any, texts: list[str]) -> Any:
    """A copy of `event` with its blocks' texts replaced, in order, by `texts`."""
    copy = deepcopy(event)
    for block, text in zip(_text_blocks(_content(copy) or []), texts, strict=False):
        block["text"] = text
    return copy
