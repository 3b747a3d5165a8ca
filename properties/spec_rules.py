"""SPEC.md's rule index: every rule it states, by ID.

Apart from `loopspec.properties.spec_doc`, which renders SPEC.md's generated sections and so
imports the whole model: `loopspec spec RULE`, the command `loopspec check` names under the
violations it prints, reads SPEC.md's text with this module alone.
"""

from __future__ import annotations

import re

RULE_HEADING = re.compile(r"^### ([A-Z]+-\d+) ", re.MULTILINE)
_RULE_SECTION = re.compile(r"^### ([A-Z]+-\d+) .*?(?=^#{2,3} |\Z)", re.S | re.M)


def rule_sections(spec: str) -> dict[str, str]:
    """Every rule SPEC.md states, by ID: its `### ID title` section, in SPEC order."""
    return {match.group(1): match.group(0).strip() for match in _RULE_SECTION.finditer(spec)}


def rule_ids_in_spec(text: str) -> list[str]:
    """Every rule ID that has a heading in SPEC.md, in order."""
    return RULE_HEADING.findall(text)
