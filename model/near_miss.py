"""The known name a person likely meant by one they misspelt, and the words that offer it.

Every refusal of a name a person wrote that loopspec does not know (a file's member, a field, a
command's kind, a capability, a call id, a hook event or decision) offers the nearest known name
in the same words, ` (did you mean NAME?)`, with the same measure of nearness: this module is the
one place both are decided (tests/test_near_miss.py walks every place that offers one).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

CLOSE = 0.6
"""How alike (difflib's ratio, letter case aside) a name must be to a known one to be offered it
where the name is refused anyway: any likely guess helps the person who fixes it."""
MISSPELT = 0.8
"""How alike a name must be to a known one to be taken for its misspelling where names loopspec
does not know are often real (a newer ACP's method, an event of a harness's own, a member real
settings carry): `PreToolUs`, `session/prompts`, `matchers` are; `PostToolUseFailure` is not."""

_OPENING = " (did you mean "
_CLOSING = "?)"


def offered(name: str) -> str:
    """The words offering `name` for what a person wrote, to follow the refusal's subject."""
    return f"{_OPENING}{name}{_CLOSING}"


def nearest(word: str, known: Iterable[str], *, cutoff: float = CLOSE) -> str | None:
    """The known name `word` most likely misspells, or None: one differing in letter case alone
    first (`pretooluse`, whose ratio letter case lowers to 0.7), else the most alike at or above
    `cutoff`, letter case aside."""
    by_folded: dict[str, str] = {}
    for name in known:
        by_folded.setdefault(name.casefold(), name)
    folded = word.casefold()
    if folded in by_folded:
        return by_folded[folded]
    # Imported here: only a misspelt name needs it, and `check` starts without difflib.
    import difflib  # noqa: PLC0415

    close = difflib.get_close_matches(folded, by_folded, n=1, cutoff=cutoff)
    return by_folded[close[0]] if close else None


def did_you_mean(
    word: str,
    known: Iterable[str],
    *,
    cutoff: float = CLOSE,
    spell: Callable[[str], str] = str,
) -> str:
    """` (did you mean NAME?)` for the known name nearest `word`, or "" when none is near;
    `spell` writes the name as the message writes values (JSON's quotes, say)."""
    found = nearest(word, known, cutoff=cutoff)
    return "" if found is None else offered(spell(found))


def without_offer(message: str) -> str:
    """`message` with its offers of a nearest name taken out (where a guess would mislead: a
    name another release of loopspec wrote is likely that release's own, no misspelling)."""
    kept = []
    rest = message
    while (start := rest.find(_OPENING)) >= 0:
        after = start + len(_OPENING)
        end = rest.find(_CLOSING, after)
        if end < 0 or any(bracket in rest[after:end] for bracket in "()"):
            kept.append(rest[:after])  # no offer: words in brackets that only start alike
            rest = rest[after:]
            continue
        kept.append(rest[:start])
        rest = rest[end + len(_CLOSING) :]
    return "".join(kept) + rest
