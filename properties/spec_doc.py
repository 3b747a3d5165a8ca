"""SPEC.md's generated sections and its rule index.

SPEC.md is written by people, except for sections between `<!-- generated:NAME -->` and
`<!-- end generated:NAME -->`, which are rendered from the code that owns the facts: the
transition table from `loopspec.model.transitions`, the invariant registry from
`loopspec.model.invariants`.
`loopspec spec --check SPEC.md` (and a test) fails when they drift apart.
"""

from __future__ import annotations

import re

from loopspec.model.errors import LoopSpecError
from loopspec.model.invariants import INVARIANTS
from loopspec.model.transitions import render_table

RULE_HEADING = re.compile(r"^### ([A-Z]+-\d+) ", re.MULTILINE)


def render_invariants() -> str:
    """The invariant registry as a Markdown table."""
    lines = ["| invariant | rules | meaning |", "|---|---|---|"]
    for inv in INVARIANTS:
        lines.append(f"| `{inv.name}` | {', '.join(inv.rule_ids)} | {inv.meaning} |")
    return "\n".join(lines)


SECTIONS = {
    "transitions": render_table,
    "invariants": render_invariants,
}


def render_generated_sections() -> str:
    """Every generated section, for printing."""
    return "\n\n".join(f"## {name}\n\n{render()}" for name, render in SECTIONS.items())


def splice_generated_sections(text: str) -> str:
    """`text` with each generated section replaced by its current rendering."""
    for name, render in SECTIONS.items():
        pattern = re.compile(
            rf"(<!-- generated:{name} -->\n).*?(<!-- end generated:{name} -->)", re.DOTALL
        )
        if not pattern.search(text):
            msg = f"no <!-- generated:{name} --> ... <!-- end generated:{name} --> section"
            raise LoopSpecError(msg, rule_id="SPEC")
        match = pattern.search(text)
        assert match is not None
        fresh = match.group(1) + render() + "\n" + match.group(2)
        text = text[: match.start()] + fresh + text[match.end() :]
    return text


def rule_ids_in_spec(text: str) -> list[str]:
    """Every rule ID that has a heading in SPEC.md, in order."""
    return RULE_HEADING.findall(text)
