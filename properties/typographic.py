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
