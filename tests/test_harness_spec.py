"""SPEC section 11 states every known divergence of the real Claude Code and Codex loops."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from loopspec.properties.harnesses.profiles import KNOWN
from loopspec.properties.harnesses.script import Harness

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "SPEC.md").read_text(encoding="utf-8")
SECTION = SPEC[SPEC.index("## 11. Divergences of Claude Code") :]
# The section ends at the next top-level heading (section 12 follows it), not at the file's end.
SECTION = SECTION.split("\n## ", 1)[0]
HEADINGS = {Harness.CLAUDE_CODE: "Claude Code 2.1.332:", Harness.CODEX: "Codex 0.171.0:"}


def _stated(harness: Harness) -> dict[str, str]:
    """Rule -> kind, as the section's list for `harness` states them."""
    start = SECTION.index(HEADINGS[harness])
    following = [SECTION.find(h, start + 1) for h in HEADINGS.values()]
    end = min([i for i in following if i > start] or [len(SECTION)])
    return dict(re.findall(r"^- ([A-Z]+-\d+) \(([a-z ]+)\):", SECTION[start:end], re.M))


@pytest.mark.parametrize("harness", list(HEADINGS))
def test_spec_section_11_states_each_harness_divergence_with_its_kind(harness: Harness) -> None:
    """Section 11 lists exactly the profile's known divergences, each as design or bug."""
    expected = {rule: known.kind.value for rule, known in KNOWN[harness].items()}
    assert _stated(harness) == expected
