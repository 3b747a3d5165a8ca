"""The wrapping of `--help`'s text: textwrap's, its chunks found word by word.

textwrap splits a text into the chunks it wraps (words, the spaces between them, a word's parts
at its hyphens: `goof-` `ball`) with one regular expression over the whole text, whose lookarounds
it tries at every character; on the verbs' long descriptions that was most of `loopspec check
--help`'s instructions (benchmarks/bench_cli.py). Every chunk that expression finds lies inside
one run of non-space characters or is one run of spaces, and its lookarounds look at no character
past the run they start in. So the text is split at its spaces first, and only a word holding a
hyphen is split by textwrap's own expression: the same chunks, hence the same lines.
Imported only when help is shown (`cli.parser`): textwrap compiles its expressions as it loads.
"""

from __future__ import annotations

import textwrap


class HelpWrapper(textwrap.TextWrapper):
    """textwrap's wrapper, its chunks found word by word (the same with `break_on_hyphens`
    False: a word is then one chunk either way)."""

    def _split(self, text: str) -> list[str]:
        chunks: list[str] = []
        for piece in self.wordsep_simple_re.split(text):
            if "-" in piece:
                chunks += super()._split(piece)
            elif piece:
                chunks.append(piece)
        return chunks
