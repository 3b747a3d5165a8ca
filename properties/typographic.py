"""Typographic quotes: what a chat client or a word processor makes of `'` and `"`.

One list for every reader that tells a user their quotes were curled: a command line copied
from a chat (`loopspec replay ... --cmd \u2018node main.mjs\u2019`, split at its spaces by the
shell), a target command that `shlex` splits the same way (`--cmd "\u2018node\u2019 main.mjs"`),
and a case file pasted back out of a chat (`properties/conformance/case_json_fault.py`).
"""

from __future__ import annotations

# typing's flag, read by type checkers by name: the command line's parser imports this module,
# and typing costs every command line about as much as argparse does (cli/parser.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Final

# Single and double quotes, low and reversed ones, guillemets, and the primes some keyboards'
# autocorrection puts in their place.
CURLED_QUOTES: Final = "\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2032\u2033\u00ab\u00bb"


def curled_quotes_hint(words: Iterable[str]) -> str:
    """What to add to an error about a command line when its words hold typographic quotes,
    which neither the shell nor `shlex` takes for quotes; "" when they hold none."""
    found = "".join(dict.fromkeys(c for word in words for c in word if c in CURLED_QUOTES))
    if not found:
        return ""
    return (
        f" (the quotes {found} are typographic, letters to the shell, not quotes: the line "
        "was copied from a chat or a document; type them as ' or \")"
    )


# Dashes autocorrection makes of `--` (or of `-`): en and em dash, minus sign, hyphens.
OPTION_DASHES: Final = "\u2014\u2013\u2212\u2010\u2011"


def dashed_option_hint(word: str) -> str:
    """What to say of a command-line word that begins with a typographic dash (`\u2014impl`, an
    option copied from a chat, a mail or a document), which no parser reads as an option; ""
    for any other word."""
    if not word or word[0] not in OPTION_DASHES:
        return ""
    name = word.lstrip(OPTION_DASHES + "-")
    if not name[:1].isalpha():
        return ""
    import unicodedata  # noqa: PLC0415 -- only for this error; the parser imports this module

    dash = f"{word[0]} (U+{ord(word[0]):04X} {unicodedata.name(word[0])})"
    return (
        f": it begins with {dash}, which a chat or a word processor makes of two hyphens; "
        f"type the option as --{name}"
    )
