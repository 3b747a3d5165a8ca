"""How the argument readers read a call's input differently (lossy JSON, falsy and blank
values, lone surrogates), and the words saying which rule a reader's difference breaks."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from loopspec.model.commands import ModelReplies
from loopspec.model.config import LoopConfig
from loopspec.model.json_text import spelled
from loopspec.model.jsonvalue import EMPTY, JAVASCRIPT_TRIMMED, FrozenMap, parse_arguments, thaw
from loopspec.model.messages import ToolCallBlock
from loopspec.model.rewrite import input_problem
from loopspec.properties.conformance.blame.history import (
    LOOP_ERROR_CODES,
    is_error,
    recorded,
    result_text,
)
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of, error_code
from loopspec.properties.conformance.json_values import blank_but_not_empty


def result_input_problem(event: Event) -> str:
    """Which input problem an INVALID_TOOL_INPUT result names (not an object, or missing keys)."""
    text = json.dumps(data_of(event).get("message", {}).get("content"))
    return "not an object" if "JSON object" in text else "missing keys"


LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


LONE_SURROGATE_WORDS = (
    " (a \\u escape of a lone surrogate, such as \\ud800, is valid JSON: a string "
    "holding it, as Python's json and JavaScript's JSON.parse read it, though a strict "
    "parser refuses it)"
)


# Arguments the model keeps as their raw string where `json.loads` and JSON.parse read an object,
# said the same way wherever a result or its absence shows it.
LOSSY_JSON = (
    "JSON without a lossless value (NaN, an infinity such as 1e400, a negative zero such as "
    "-0.0), which stay the raw string, no JSON object (EXE-2, LOG-3)"
)


def object_only_when_lossy(original: object) -> bool:
    """Whether arguments the model keeps as their raw string (EXE-2: no lossless value) are a
    JSON object to a reader that takes NaN, infinities and -0.0 as numbers (Python's
    `json.loads`, JavaScript's `JSON.parse` but for NaN)."""
    if not isinstance(original, str) or isinstance(parse_arguments(original), FrozenMap):
        return False
    try:
        return isinstance(json.loads(original), dict)
    except (ValueError, RecursionError):
        return False


def falsy_json(original: object) -> bool:
    """Whether arguments are JSON whose value some reader defaulting them to {} replaces (null,
    false, 0, "", []: `readers_replacing`): no object, which such a loop runs."""
    if not isinstance(original, str) or not original.strip():
        return False
    value = parse_arguments(original)
    # A raw string that is no JSON is truthy unless empty, and blank text is {} already.
    return not isinstance(value, FrozenMap) and not value


def falsy_read_as_empty(raw: object, instead: str) -> str:
    """EXE-2's words on arguments `raw` some reader replaces with {} (null, false, 0, "", []:
    `falsy_json`), which a loop reading them as no arguments took for valid input; `instead`:
    what that loop does with the call where the model does not."""
    return (
        f"its arguments {spelled(raw)} are JSON whose value is not an object, which EXE-2 does "
        "not read as {} (only blank arguments are): the call ends as an INVALID_TOOL_INPUT error, "
        "no hook sees it and its body never starts, where a loop reading such a value as no "
        f"arguments ({readers_replacing(raw)}) {instead}"
    )


def readers_replacing(raw: object) -> str:
    """The readers, as code, that replace arguments `raw` (`falsy_json`) with {}: JavaScript's
    `??` replaces null alone, its `||` null, false, 0 and "" (an array is true to it), Python's
    `or` all five."""
    value = parse_arguments(raw) if isinstance(raw, str) else None
    readers = [
        *(["JSON.parse(raw) ?? {}"] if value is None else []),
        *(["JSON.parse(raw) || {}"] if not isinstance(value, tuple) else []),
        "json.loads(raw) or {}",
    ]
    return readers[0] if len(readers) == 1 else f"{', '.join(readers[:-1])} or {readers[-1]}"


def blank_to_javascript_only(original: object) -> bool:
    """Whether arguments are blank to JavaScript's `trim` but not to Python's `str.strip`."""
    return (
        isinstance(original, str)
        and bool(original.strip())
        and not original.strip(JAVASCRIPT_TRIMMED)
    )


BLANK_TO_ONE_READER = (
    "arguments are blank to one of Python's strip and JavaScript's trim alone (Go's "
    "strings.TrimSpace keeps U+001C..U+001F as trim does); as the model reads them (blank "
    "means {}, as Python's str.strip reads it)"
)


# Blank text as EXE-2 reads it, said where a cancelled reply's text is blank (ABORT-2).
BLANK_AS_EXE_2 = (
    "blank as EXE-2 reads it, Python's str.strip: U+0085 and the no-break spaces U+00A0, "
    "U+2007 and U+202F are, which Java's isBlank keeps; U+001C..U+001F too, which "
    "JavaScript's trim keeps, and so do Go's strings.TrimSpace and Rust's str::trim"
)


def holds_blank_text(reply: ModelReplies) -> bool:
    """Whether a text or reasoning block of `reply` is blank but not empty."""
    texts = [block.text for block in reply.blocks if not isinstance(block, ToolCallBlock)]
    return any(text and not text.strip() for text in texts)


def blank_to_python_only(arguments: object) -> bool:
    """Whether arguments are blank to Python's `str.strip` ({} to EXE-2, so valid input whose
    hooks run) but not to JavaScript's `trim` (invalid JSON to it, so no hook runs)."""
    return (
        isinstance(arguments, str)
        and not arguments.strip()
        and bool(arguments.strip(JAVASCRIPT_TRIMMED))
    )


def takes_no_arguments(config: LoopConfig | None, name: object) -> bool:
    """Whether a call of tool `name` with arguments {} is valid input (EXE-2, EXE-5), so a loop
    reading its arguments as {} runs its hooks (not known without `config`: taken as valid). A
    tool requiring a key gets no hook either way: running one is HOOK-4's, not a reading's."""
    tool = None if config is None else config.tool(str(name))
    return tool is None or tool.input_problem(EMPTY) is None


def invalid_to_every_reader(call: ToolCallBlock, config: LoopConfig) -> bool:
    """Whether the model finds `call`'s input invalid with its arguments neither blank nor held
    apart by a reader of another language (a registered tool's required key missing from an
    object, or text that is no JSON to any reader)."""
    return (
        input_problem(call, config) is not None
        and bool(call.arguments.strip())
        and not (blank_to_javascript_only(call.arguments) or object_only_when_lossy(call.arguments))
    )


def object_holding_lone_surrogate(arguments: str) -> bool:
    """Whether EXE-2 reads `arguments` as an object holding a lone surrogate."""
    value = parse_arguments(arguments)
    return isinstance(value, FrozenMap) and bool(
        LONE_SURROGATE.search(json.dumps(thaw(value), ensure_ascii=False))
    )


def misread_input(result: Event, events: Sequence[Event]) -> tuple[str, str] | None:
    """The rule and why the target's INVALID_TOOL_INPUT `result` misreads its call's arguments,
    when the model reads them (EXE-2) as an object that holds every key the result says is
    missing (`events`: the model's log, with the call's tool/call), or when the result is
    another failure, in the loop's own words, of a call whose arguments are blank but not
    empty; None when the model finds the input invalid too."""
    call_id = call_id_of(result)
    raw = recorded(call_id, "arguments", events)
    if error_code(result) != "INVALID_TOOL_INPUT":
        if (
            is_error(result)
            and blank_but_not_empty(raw)
            and error_code(result) not in LOOP_ERROR_CODES
        ):
            # Failed at once in the loop's own words (real dsh: INVALID_ARGS): how it read
            # the blank arguments is what is wrong, not when the result commits (ORD-3).
            return "EXE-2", (
                f"call {call_id}'s arguments are blank (only whitespace), which EXE-2 reads as "
                "{}, a JSON object, so the call is not invalid input and its body starts; a "
                "loop that reads only the empty string as {} and parses other text as JSON "
                "finds no object in them"
            )
        return None
    value = parse_arguments(raw) if isinstance(raw, str) else None
    if not isinstance(value, FrozenMap):
        return None
    if result_input_problem(result) == "not an object" and not str(raw).strip():
        # Blank text is no JSON: json.loads of it raised here, a traceback where a loop reading
        # "" as no object was to be told (round 18's Brave #56601).
        return "EXE-2", (
            f"call {call_id}'s arguments are blank ({json.dumps(raw)}), which EXE-2 reads as {{}}, "
            "a JSON object, so the call is not invalid input and its body starts (a call of a "
            "tool taking no arguments is often sent so)"
        )
    if result_input_problem(result) == "not an object":
        surrogate = (
            LONE_SURROGATE_WORDS
            if LONE_SURROGATE.search(json.dumps(json.loads(str(raw)), ensure_ascii=False))
            else ""
        )
        return "EXE-2", (
            f"call {call_id}'s arguments are a JSON object as EXE-2 reads them{surrogate}, so "
            "the call is not invalid input and its body starts"
        )
    named = result_text(result).partition("missing required ")[2]
    present = [key for key in value if repr(key) in named]
    if not present:
        return None
    return "EXE-5", (
        f"call {call_id}'s arguments hold the key {present[0]!r} the result calls missing: a "
        'key whose value is null, false, 0 or "" is there all the same (only a key the object '
        "lacks is missing), so the call is valid input and its body starts"
    )
