"""The case file: what `loopspec conform` saves and `loopspec replay` reads.

One JSON object. `config` and `commands` are the driver protocol's CONFIG and COMMAND (one
source: `driver_protocol`, generated from the model's types); the other members are listed in
`CASE_MEMBERS`, each with what it means. `loopspec schema case` prints the JSON Schema built
here from both; `load_case` (`loopspec.properties.conformance.run`) refuses exactly what it
refuses, a misspelt member included.
"""

from __future__ import annotations

from typing import Any, Final

from loopspec import spec_text
from loopspec.properties.conformance.compare import NO_RULE
from loopspec.properties.conformance.driver_protocol import CAPABILITIES, protocol_schema
from loopspec.properties.spec_rules import rule_sections

CASE_VERSION: Final = 1
"""The case file format `conform` writes and `replay` reads."""

BUNDLED_IMPL: Final = "loopspec.properties.conformance.impl_target:bundled_target"
"""The bundled implementation's factory as `--impl` names it. A case records that target as
`{}`, and reads `{"impl": BUNDLED_IMPL}` (what conform recorded before) as `{}` too: either way
a colleague replays it where it was found, with no option to name."""

BUNDLED_TARGET_NAME: Final = "impl (bundled)"
"""The bundled implementation as the reports name the target that ran: conform's first line and
the `target` of conform's and replay's JSON documents (one spelling, for a CI step comparing
them)."""

_TEXT: Final = {"type": "string"}
_TEXTS: Final = {"type": "array", "items": {"type": "string"}}

# Every member a case file may hold, in the order conform writes them: its JSON Schema (without
# the description) and what it means. `config` and `commands` refer to the driver protocol's.
CASE_MEMBERS: Final[dict[str, tuple[dict[str, Any], str]]] = {
    "loopspec": ({"const": "case"}, 'always "case": what the file is'),
    "version": ({"const": CASE_VERSION}, "the case format's version"),
    "loopspecVersion": (_TEXT, "the version of the loopspec that wrote the case"),
    "target": (
        {
            "type": "object",
            "properties": {"impl": _TEXT, "cmd": _TEXT},
            "additionalProperties": False,
            "maxProperties": 1,
        },
        'the target conform ran, {"impl": MODULE:FACTORY} or {"cmd": COMMAND} ({} or absent: '
        f'the bundled implementation, as is {{"impl": "{BUNDLED_IMPL}"}}), a command\'s paths '
        "written from the folder conform ran in (./) or the home folder (~), one elsewhere by "
        "its last name (<path>/main.mjs), and its secrets' values as <hidden>; replay shows it "
        "and never runs it (SAFE-1)",
    ),
    "capabilities": (
        _TEXTS,
        "the optional capabilities that target declared (they decide which commands conform "
        "sent); replay says when the target it runs declares others",
    ),
    "rule": (
        _TEXT,
        f"the rule the run blamed, one SPEC.md states ({NO_RULE}: no rule covers the "
        "difference); replay shows it beside its verdict",
    ),
    "what": (_TEXT, "how the target broke the rule, in one sentence"),
    "summary": (
        _TEXT,
        "free text for people: what the case shows; conform writes which rule it found broken "
        "and the command that replays the case on a copy of the recorded loop",
    ),
    "config": (
        {"$ref": "#/$defs/config"},
        "the loop's configuration (driver protocol CONFIG); each tool's name and each hook's "
        "handlerId is given once, which replay checks and a JSON Schema cannot state",
    ),
    "commands": (
        {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/command"}},
        "the program, in order (driver protocol COMMAND); replay numbers them from #1",
    ),
    "profile": (
        _TEXT,
        "the profile the case was found under; replay applies it unless --profile says another, "
        "and refuses a case with a command needing a capability that profile's implementation "
        "does not declare (a SubmitUser during a turn needs queued-input), which depends on "
        "where the program stands and a JSON Schema cannot state",
    ),
    "unrepeated": (
        {"type": "boolean"},
        "true: the divergence did not happen again when conform ran the program a second time "
        "(the loop answered one program two ways, a race or a state kept between programs), so "
        "a replay may pass by chance; replay says so beside a pass",
    ),
    "divergence": (
        _TEXT,
        "a profile's case: the known divergence it shows, one its profile lists (SPEC.md "
        "sections 8 and 11)",
    ),
    "rules": (_TEXTS, "a profile's case: the rules that known divergence touches"),
    "implementation": (_TEXT, "free text: the implementation and version the case was found on"),
    "expect": ({}, "any JSON: what loopspec's own tests require a replay of the case to show"),
}

# What `target` may name: a Python factory (`--impl`) or a driver-protocol process (`--cmd`).
TARGET_KINDS: Final = ("impl", "cmd")

REQUIRED_MEMBERS: Final = ("loopspec", "version", "config", "commands")
# The members that are one string, and those that are a list of strings.
TEXT_MEMBERS: Final = tuple(name for name, (schema, _) in CASE_MEMBERS.items() if schema is _TEXT)
TEXT_LIST_MEMBERS: Final = tuple(
    name for name, (schema, _) in CASE_MEMBERS.items() if schema.get("items") == {"type": "string"}
)


def case_schema() -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of a case file."""
    from loopspec.properties.profiles import PROFILES  # noqa: PLC0415 -- they load conformance

    protocol = protocol_schema()
    properties = {
        name: {**schema, "description": meaning} for name, (schema, meaning) in CASE_MEMBERS.items()
    }
    # The names this loopspec knows: a case naming another is refused, not replayed.
    properties["rule"]["enum"] = [*rule_sections(spec_text()), NO_RULE]
    properties["profile"]["enum"] = sorted(PROFILES)
    properties["capabilities"]["items"] = {"enum": sorted(CAPABILITIES)}
    # A profile's case names a known divergence of its profile: replay refuses another.
    divergence_of_its_profile = [
        {
            "if": {"required": ["profile"], "properties": {"profile": {"const": name}}},
            "then": {"properties": {"divergence": {"enum": sorted(PROFILES[name].keys)}}},
        }
        for name in sorted(PROFILES)
    ]
    return {
        "$schema": protocol["$schema"],
        "title": "loopspec case file",
        "description": (
            "A program `loopspec conform` found diverging, saved to be replayed and shared: "
            "`loopspec replay CASE --impl MODULE:FACTORY` (or --cmd COMMAND) reruns it on the "
            "target named there; each member's description below says what it means"
        ),
        "version": CASE_VERSION,
        "type": "object",
        "required": list(REQUIRED_MEMBERS),
        "properties": properties,
        "additionalProperties": False,
        "allOf": divergence_of_its_profile,
        "$defs": protocol["$defs"],
    }
