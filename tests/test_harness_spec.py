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


HARNESS_TABLE_COLUMNS = {Harness.CLAUDE_CODE: 2, Harness.CODEX: 3}


@pytest.mark.parametrize("harness", list(HARNESS_TABLE_COLUMNS))
def test_docs_harnesses_table_says_no_rule_holds_that_a_known_divergence_breaks(
    harness: Harness,
) -> None:
    """DEC-1 and every rule docs/harnesses.md's rule-by-rule table lists: where the profile
    knows a divergence of the rule, the table does not say it holds. It said Codex holds DEC-1,
    though Codex runs a call a PreToolUse hook denied without a reason (its profile's DEC-1)."""
    page = (ROOT / "docs" / "harnesses.md").read_text(encoding="utf-8")
    table = page.split("## dsh, Claude Code and Codex, rule by rule", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in table.splitlines() if re.match(r"\| [A-Z]+-\d+", line)]
    assert len(rows) > 10
    wrong = []
    for row in rows:
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        rules = re.match(r"[A-Z]+-\d+(?:, [A-Z]+-\d+)*", cells[0])
        assert rules is not None, row
        known = [rule for rule in rules.group().split(", ") if rule in KNOWN[harness]]
        if known and cells[HARNESS_TABLE_COLUMNS[harness]].startswith("holds"):
            wrong.append(f"{cells[0]}: {known}")
    assert not wrong
