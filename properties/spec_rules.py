"""SPEC.md's rule index: every rule it states, by ID.

Apart from `loopspec.properties.spec_doc`, which renders SPEC.md's generated sections and so
imports the whole model: `loopspec spec RULE`, the command `loopspec check` names under the
violations it prints, reads SPEC.md's text with this module alone. It reads the headings line
by line, without `re`: re (with the enum, collections and functools it imports) cost that
command a third of its start-up (tests/test_check_startup.py holds it to that).

A rule's heading is a line `### ID title`, its ID `FAMILY-N` (capitals A-Z, a dash, decimal
digits) and a space after it; its section runs to the next line that opens with `## ` or
`### `, or to the end of the text.
"""

from __future__ import annotations

_SECTION_ENDS = ("## ", "### ")
_RULE_HEADING = "### "


def heading_rule(line: str) -> str | None:
    """The ID of the rule whose heading `line` is, or None when it heads no rule."""
    if not line.startswith(_RULE_HEADING):
        return None
    rule, space, _title = line[len(_RULE_HEADING) :].partition(" ")
    family, dash, number = rule.partition("-")
    if not (space and dash and family and number):
        return None
    if not all("A" <= letter <= "Z" for letter in family) or not number.isdecimal():
        return None
    return rule


def rule_sections(spec: str) -> dict[str, str]:
    """Every rule SPEC.md states, by ID: its `### ID title` section, in SPEC order."""
    sections: dict[str, str] = {}
    lines = spec.split("\n")
    rule: str | None = None
    start = 0
    for index, line in enumerate(lines):
        if not line.startswith(_SECTION_ENDS):
            continue
        if rule is not None:
            sections[rule] = "\n".join(lines[start:index]).strip()
        rule, start = heading_rule(line), index
    if rule is not None:
        sections[rule] = "\n".join(lines[start:]).strip()
    return sections


def named_rule_sections(spec: str, wanted: str) -> dict[str, str]:
    """The sections `rule_sections(spec)` holds of the rules `wanted` stands for (an ID, `RW-1`,
    or a family, `RW`, in capitals), in the same order: found by searching for their headings,
    where `rule_sections` splits the whole text and reads every line, most of `loopspec spec
    RULE`'s work past its imports."""
    text = "\n" + spec  # every line opens after a newline, the first one too
    heading = "\n" + _RULE_HEADING + wanted
    sections: dict[str, str] = {}
    at = text.find(heading)
    while at != -1:
        line_end = text.find("\n", at + 1)
        if line_end == -1:
            line_end = len(text)
        rule = heading_rule(text[at + 1 : line_end])
        if rule is not None and wanted in (rule, rule.split("-")[0]):
            ends = [text.find("\n" + opening, line_end) for opening in _SECTION_ENDS]
            end = min((found for found in ends if found != -1), default=len(text))
            sections[rule] = text[at + 1 : end].strip()
        at = text.find(heading, at + 1)
    return sections


def rule_ids_in_spec(text: str) -> list[str]:
    """Every rule ID that has a heading in SPEC.md, in order."""
    return [rule for line in text.split("\n") if (rule := heading_rule(line)) is not None]


_INVARIANT_TABLE = ("<!-- generated:invariants -->", "<!-- end generated:invariants -->")


MARKED_LOG_RULES = frozenset({"LOG-8"})
"""The rules `loopspec check` judges only in a log that marks its commits (header version 1),
as SPEC.md section 2 says."""


def log_checked_rules(spec: str) -> set[str]:
    """The rules `loopspec check` judges a log by: those SPEC.md's invariant registry (section
    7, a table whose second column lists an invariant's rules) names, and those of a log that
    marks its commits. Each has an example log, `loopspec spec RULE --example`."""
    start, end = _INVARIANT_TABLE
    table = spec.partition(start)[2].partition(end)[0]
    rules: set[str] = set()
    for row in table.split("\n"):
        cells = row.split("|")
        if len(cells) > 2 and cells[1].strip().startswith("`"):  # not the head or its rule
            rules.update(rule.strip() for rule in cells[2].split(","))
    return rules | MARKED_LOG_RULES
