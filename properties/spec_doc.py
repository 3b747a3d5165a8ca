"""SPEC.md's generated sections (its rule index is `loopspec.properties.spec_rules`).

SPEC.md is written by people, except for sections between `<!-- generated:NAME -->` and
`<!-- end generated:NAME -->`, which are rendered from the code that owns the facts: the
transition table from `loopspec.model.transitions`, the invariant registry from
`loopspec.model.invariants`, the wording table from `loopspec.model.wording`, and the event
catalogue from the wire types (`loopspec.model.events`, written by `loopspec.model.wire`) and
the model modules that append each event, the compact chunk rows' table from the reader's
declarations (`loopspec.properties.logcheck.compact_rows`), and the presentation tables from
the model's presenters and ACP bridge (`loopspec.properties.spec_presentation`).
`loopspec spec --check SPEC.md` (and a test) fails when they drift apart.
"""

from __future__ import annotations

import ast
import importlib
import re
import typing
from collections.abc import Callable
from pathlib import Path

import attrs

from loopspec.model import events as ev
from loopspec.model.errors import LoopSpecError
from loopspec.model.invariants import INVARIANTS
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.log_layout import ENUMS, WRITTEN_KINDS, WRITTEN_WORDS
from loopspec.model.messages import (
    AssistantMessage,
    TextBlock,
    ToolResultBlock,
    ToolResultMessage,
    UserMessage,
    model_source,
    tool_source,
    user_source,
)
from loopspec.model.transitions import render_table
from loopspec.model.wire import SURFACE_TYPES, event_data_to_wire
from loopspec.model.wording import render_wording
from loopspec.properties.logcheck.compact_rows import (
    CHUNK_TYPE,
    COUNT_FIELDS,
    GAPS,
    RUN_INTEGERS,
)


def render_invariants() -> str:
    """The invariant registry as a Markdown table."""
    lines = ["| invariant | rules | meaning |", "|---|---|---|"]
    for inv in INVARIANTS:
        lines.append(f"| `{inv.name}` | {', '.join(inv.rule_ids)} | {inv.meaning} |")
    return "\n".join(lines)


# Fields every event has (the envelope, and what is kept verbatim) are described once, above
# the table; the catalogue lists what each type carries in `data`.
_ENVELOPE_FIELDS = frozenset({"seq", "time", "extra", "envelope_extra", "surface", "sources"})
_JSON_TYPES = {
    "int": "integer",
    "str": "string",
    "float": "number",
    "bool": "boolean",
    "FrozenMap": "object",
    "JsonValue": "any JSON",
    "UserMessage": "message",
    "AssistantMessage": "message",
    "ToolResultMessage": "message",
    "RewriteSidecar": "`{originalArguments: string, handlerIds: [string, ...]}`",
}
# The modules whose functions append events: the loop's writers in the model.
_WRITER_MODULES = ("handlers", "dispatch", "rewrite", "records", "repair")


def _sample_events() -> tuple[ev.Event, ...]:
    """One event of each core type with every optional field set, to read its wire keys."""
    user = UserMessage("m1", (TextBlock("hi"),), user_source())
    reply = AssistantMessage("m2", (TextBlock("ok"),), model_source("p", "m"))
    result = ToolResultMessage("m3", ToolResultBlock("c1", (TextBlock("r"),)), tool_source("c1"))
    sidecar = ev.RewriteSidecar("{}", ("h",))
    info = FrozenMap({"name": "E", "code": "C"})
    return (
        ev.TurnStarted(0, 0, 1),
        ev.TurnEnded(0, 0, 1, FrozenMap({"kind": "completed"})),
        ev.StepStarted(0, 0, 1, 1),
        ev.StepEnded(0, 0, 1, 1),
        ev.UserMessageRecorded(0, 0, user),
        ev.AssistantMessageRecorded(0, 0, 1, 1, reply, usage=info, interrupted=True),
        ev.ToolCallRecorded(0, 0, 1, 1, "c1", "bash", "{}", sidecar),
        ev.ToolResultRecorded(0, 0, 1, 1, result, error=info, meta=info),
        ev.HookInvoked(0, 0, 1, "PreToolUse", "claude-code", "h", "bash", "c1"),
        ev.HookResulted(0, 0, 1, "PreToolUse", "h", "allow", 1.0, 0, "s", "c1", info),
        ev.ApprovalAsked(0, 0, "a", "bash", "c1", "why", "{}"),
        ev.ApprovalDecided(0, 0, "a", "allowed-once"),
    )


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _annotation(field: attrs.Attribute[object]) -> str:
    """A field's annotation as source text, whether or not attrs resolved it to objects."""
    if isinstance(field.type, str):
        return field.type
    args = typing.get_args(field.type)
    if {bool, int, float, str} <= set(args):
        return "JsonValue"
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return f"{getattr(rest[0], '__name__', str(rest[0]))} | None"
    return str(getattr(field.type, "__name__", field.type))


def _json_type(annotation: str) -> str:
    optional = annotation.endswith(" | None")
    base = annotation.removesuffix(" | None")
    word = _JSON_TYPES.get(base, base)
    return f"{word}, optional" if optional else word


def _words(values: frozenset[str]) -> str:
    """`values` as a sorted list in words: `a`, `b` or `c`."""
    *head, last = (f"`{value}`" for value in sorted(values))
    return f"{', '.join(head)} or {last}" if head else last


def closed_values(cls: type, name: str) -> str:
    """What a catalogue row says of a string field whose values are a closed set in the model:
    the set the reader holds it to (`ENUMS`), or the one the loop writes (`WRITTEN_WORDS`, and
    `WRITTEN_KINDS` for an object's `kind`); empty for any other field."""
    if (cls, name) in ENUMS:
        return f", one of {_words(ENUMS[(cls, name)])}"
    if (cls, name) in WRITTEN_WORDS:
        return (
            f": the loop writes {_words(WRITTEN_WORDS[(cls, name)])}, a harness may write its own"
        )
    if (cls, name) in WRITTEN_KINDS:
        kinds = _words(WRITTEN_KINDS[(cls, name)])
        return f" `{{kind, ...}}`: the loop writes kind {kinds}, a plugin may write its own"
    return ""


def _writers() -> dict[str, list[str]]:
    """Event class name -> the model functions that append it (`draft.add(Class, ...)` or a
    direct construction)."""
    names = {cls.__name__ for cls in typing.get_args(ev.Event)}
    found: dict[str, list[str]] = {}
    model_dir = Path(ev.__file__).resolve().parent
    for module in _WRITER_MODULES:
        tree = ast.parse((model_dir / f"{module}.py").read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.Call):
                    continue
                target: ast.expr | None = None
                if isinstance(node.func, ast.Attribute) and node.func.attr == "add" and node.args:
                    target = node.args[0]
                elif isinstance(node.func, ast.Name):
                    target = node.func
                if isinstance(target, ast.Name) and target.id in names:
                    writer = f"`{module}.{function.name}`"
                    if writer not in found.setdefault(target.id, []):
                        found[target.id].append(writer)
    return found


def render_event_catalogue() -> str:
    """Every core event type: its `data` fields with JSON types, and who appends it."""
    writers = _writers()
    lines = [
        "| type | `data` fields (wire name: JSON type) | surface metadata | appended by (model) |",
        "|---|---|---|---|",
    ]
    for sample in _sample_events():
        cls = type(sample)
        wire = event_data_to_wire(sample)
        assert isinstance(wire, dict)
        fields: list[str] = []
        listed: set[str] = set()
        for field in attrs.fields(cls):
            if field.name in _ENVELOPE_FIELDS:
                continue
            key = _camel(field.name)
            optional = field.default is not attrs.NOTHING
            annotation = _annotation(field)
            if field.name == "message" and "message" not in wire:
                fields.append("the message itself: `{id, role, content, source}`")
                continue
            if key not in wire:
                msg = f"{cls.__name__}.{field.name} is not written as data.{key}"
                raise LoopSpecError(msg, rule_id="LOG-4")
            listed.add(key)
            json_type = _json_type(annotation) + closed_values(cls, field.name)
            if optional and not json_type.endswith("optional") and annotation != "bool":
                json_type += ", optional"
            if annotation == "bool":
                json_type += ", written only when true"
            fields.append(f"`{key}`: {json_type}")
        kind = ev.event_type(sample)
        unlisted = set(wire) - listed if "message" in wire or kind != "user/message" else set()
        if unlisted:
            msg = f"{kind} writes data keys no field declares: {sorted(unlisted)}"
            raise LoopSpecError(msg, rule_id="LOG-4")
        surface = "`surfaceOp`, `sourceEventSeqs`" if kind in SURFACE_TYPES else "none"
        who = ", ".join(writers.get(cls.__name__, [])) or "not written by the loop"
        lines.append(f"| `{kind}` | {'; '.join(fields)} | {surface} | {who} |")
    return "\n".join(lines)


def render_compact_rows() -> str:
    """Each compact chunk row type: the events it stands for and the members check reads, from
    the declarations `compact_rows.compact_run` reads a row by."""
    lines = [
        "| row type | stands for | members read (wire path: JSON type) |",
        "|---|---|---|",
    ]
    for kind, count_field in COUNT_FIELDS.items():
        members = [f"`{path}`: integer" for path in RUN_INTEGERS]
        members.append(f"`data.{GAPS}`: array of integers")
        members.append(f"`data.{count_field}`: array")
        stands_for = f"one `{CHUNK_TYPE}` per item of `data.{count_field}`"
        lines.append(f"| `{kind}` | {stands_for} | {'; '.join(members)} |")
    return "\n".join(lines)


def _presentation(renderer: str) -> Callable[[], str]:
    """The presentation table `renderer` of `spec_presentation`, imported on use:
    `conformance.run` imports this module, and the examples' literals would join the constants
    Hypothesis mixes into every conform run, moving its fixed-seed batches."""

    def render() -> str:
        module = importlib.import_module("loopspec.properties.spec_presentation")
        rendered: str = getattr(module, renderer)()
        return rendered

    return render


SECTIONS = {
    "transitions": render_table,
    "invariants": render_invariants,
    "wording": render_wording,
    "events": render_event_catalogue,
    "compact-rows": render_compact_rows,
    "presentation-statuses": _presentation("render_statuses"),
    "presentation-calls": _presentation("render_call_cards"),
    "presentation-results": _presentation("render_result_updates"),
    "presentation-terminal": _presentation("render_terminal_example"),
    "presentation-example": _presentation("render_worked_example"),
}


def render_generated_sections() -> str:
    """Every generated section, for printing."""
    return "\n\n".join(f"## {name}\n\n{render()}" for name, render in SECTIONS.items())


class MissingSection(ValueError):
    """A spec file without one of the generated sections' markers (a wrong file, or a marker
    edited away): no rule of SPEC.md is broken, so the error names none."""


def splice_generated_sections(text: str) -> str:
    """`text` with each generated section replaced by its current rendering; `MissingSection`
    when a section's markers are not there."""
    for name, render in SECTIONS.items():
        pattern = re.compile(
            rf"(<!-- generated:{name} -->\n).*?(<!-- end generated:{name} -->)", re.DOTALL
        )
        if not pattern.search(text):
            raise MissingSection(
                f"no <!-- generated:{name} --> ... <!-- end generated:{name} --> section"
            )
        match = pattern.search(text)
        assert match is not None
        fresh = match.group(1) + render() + "\n" + match.group(2)
        text = text[: match.start()] + fresh + text[match.end() :]
    return text
