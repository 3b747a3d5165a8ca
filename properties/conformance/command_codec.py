"""Commands and configurations as JSON: the language-neutral form the driver protocol carries.

`command_to_json` / `command_from_json` and `config_to_json` / `config_from_json` are exact
inverses. Decoding validates everything and raises `ProtocolError` naming the JSON path, so a
peer that speaks the protocol wrongly is told where; a member an object does not have is refused
too (the published schema says `additionalProperties: false`), never ignored. Inside a JSON
value the protocol carries as it is (`updatedInput`, `meta`) any member is taken. Two rules JSON
Schema cannot state are the decoder's alone: a configuration declares each tool name once
(PROTO-1), and a PreToolUse answer's audit word agrees with its verdict (the model's
`commands.audit_words`, refused as HOOK-1: a value the model refuses names the model's rule).

Both directions are generated from the attrs classes through `wire_layout`, the same layout
the published JSON Schema (`loopspec schema`) is generated from, so the three cannot disagree.

Shapes (every object has a `kind`):

    {"kind": "SubmitUser", "text": str}
    {"kind": "ModelReplies", "finish": "completed"|"max-tokens"|"cancelled",
     "blocks": [{"type": "text"|"reasoning", "text": str}
                | {"type": "tool-call", "id": str, "name": str, "arguments": str}]}
    {"kind": "ModelFails", "message": str, "code": str}
    {"kind": "HookAnswers", "verdict": VERDICT, "audit"?: AUDIT}
    {"kind": "ApprovalAnswers", "outcome": "allowed-once"|"rejected"|"cancelled"|"unavailable"}
    {"kind": "ToolFinishes", "callId": str, "outcome": OUTCOME, "post": [POST_VERDICT, ...]}
    {"kind": "Abort", "cause": "user"|"parent"|"hook"|"disposed"}
    {"kind": "Crash"}  {"kind": "Recover"}

    VERDICT      = {"decision": "pass"} | {"decision": "allow", "updatedInput"?: JSON,
                    "reason"?: str} | {"decision": "ask", "reason"?: str, "updatedInput"?: JSON}
                  | {"decision": "deny", "reason": str}
    AUDIT        = {"decision"?: WORD, "exitCode"?: int, "stderrSummary"?: str, "durationMs"?: num}
    WORD         = "pass"|"allow"|"ask"|"deny"|"approve"|"block"|"defer"|"stop"|"error"
                   (the word hook/result records in place of the verdict's own, one that
                   agrees with the verdict: commands.audit_words, HOOK-1)
    OUTCOME      = {"ok": true, "text": str, "contexts": [str], "meta"?: JSON}
                  | {"ok": false, "message": str, "code"?: str, "errorName"?: str}
    POST_VERDICT = {"decision": "pass"} | {"decision": "context", "text": str}
                  | {"decision": "block", "reason": str}   (each may carry "audit")
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

from loopspec.model.commands import Command, PostVerdict, PreVerdict
from loopspec.model.config import LoopConfig
from loopspec.model.errors import InvalidEventError, LoopSpecError
from loopspec.model.json_text import spelled
from loopspec.model.jsonvalue import thaw
from loopspec.model.near_miss import did_you_mean
from loopspec.properties.conformance.wire_layout import (
    CLASSES,
    TAGS,
    UNIONS,
    WireField,
    union_key,
    union_members,
    wire_fields,
)

JsonObject = dict[str, Any]


class ProtocolError(LoopSpecError):
    """JSON that is not a valid protocol message: PROTO-1 for its shape (a type, a member, a
    tag), the model's own rule when the shape is right and the model refuses the value (an
    audit word that contradicts its verdict is HOOK-1's, a non-portable matcher HOOK-8's), so
    the report sends the reader to the rule the value breaks."""

    def __init__(self, message: str, *, rule_id: str = "PROTO-1") -> None:
        super().__init__(message, rule_id=rule_id)


# ---------------------------------------------------------------------------------------------
# Encoding.


def _encode_value(value: Any, annotation: str) -> object:
    annotation = annotation.removesuffix(" | None")
    if annotation.startswith("tuple[") and annotation.endswith(", ...]"):
        assert isinstance(value, tuple)
        return [_encode_value(item, annotation[6:-6]) for item in value]
    if annotation in ("JsonValue", "FrozenMap"):
        return thaw(value)
    if annotation in ("str", "int", "float", "bool"):
        return value
    return encode_object(value)


def encode_object(value: Any) -> JsonObject:
    """An attrs value of the protocol as its JSON object: its tag, then its fields in order,
    an optional field left out when it is None."""
    cls = type(value)
    wire: JsonObject = {}
    tag = TAGS.get(cls)
    if tag is not None:
        wire[tag[0]] = tag[1]
    for field in wire_fields(cls):
        item = getattr(value, field.name)
        if item is None and not field.required:
            continue
        wire[field.wire] = _encode_value(item, field.annotation)
    return wire


def command_to_json(command: Command) -> JsonObject:
    """One command as a JSON object."""
    return encode_object(command)


def verdict_to_json(verdict: PreVerdict) -> JsonObject:
    """A PreToolUse verdict as JSON."""
    return encode_object(verdict)


def post_to_json(verdict: PostVerdict) -> JsonObject:
    """A PostToolUse verdict as JSON."""
    return encode_object(verdict)


def config_to_json(config: LoopConfig) -> JsonObject:
    """A loop configuration as JSON."""
    return encode_object(config)


# ---------------------------------------------------------------------------------------------
# Decoding.

_EXPECTED = {
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
}


def _expected(annotation: str) -> str:
    annotation = annotation.removesuffix(" | None")
    if annotation.startswith("tuple["):
        return "an array"
    return _EXPECTED.get(annotation, "an object")


def given_instead(value: object) -> str:
    """`, not VALUE`: what a member of the wrong type holds, so a number written as a string
    ("2") or a boolean as one ("true") shows why it is refused (a container by its kind)."""
    match value:
        case dict():
            return ", not an object"
        case list():
            return ", not an array"
        case str() if len(value) > 40:
            return f', not {spelled(value[:40])[:-1]}..."'
        case _:
            return f", not {spelled(value)}"


def _object(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ProtocolError(f"{path} must be an object{given_instead(value)}")
    return value


def _raw(value: object, path: str) -> str:
    """What to write for a call's arguments given as JSON, not as the string the model wrote
    (a case written by hand): that string, shown whole when short."""
    if not path.endswith(".arguments") or not isinstance(value, dict | list):
        return ""
    written = json.dumps(json.dumps(value, ensure_ascii=False), ensure_ascii=False)
    shown = written if len(written) <= 80 else "a string"
    return f": a call's arguments are the model's raw text, the JSON written as a string, {shown}"


def _spelled(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _one_of(options: list[str]) -> str:
    return options[0] if len(options) == 1 else ", ".join(options[:-1]) + " or " + options[-1]


def _decode_value(value: object, annotation: str, path: str) -> object:
    annotation = annotation.removesuffix(" | None")
    if annotation.startswith("tuple[") and annotation.endswith(", ...]"):
        if not isinstance(value, list):
            raise ProtocolError(f"{path} must be an array{given_instead(value)}")
        inner = annotation[6:-6]
        return tuple(_decode_value(item, inner, f"{path}[{i}]") for i, item in enumerate(value))
    if annotation in ("JsonValue", "FrozenMap"):
        return value  # the class freezes it and refuses what JSON cannot carry
    if annotation == "str":
        if not isinstance(value, str):
            raise ProtocolError(f"{path} must be a string{given_instead(value)}{_raw(value, path)}")
        return value
    if annotation in ("int", "float"):
        exact = annotation == "int"
        if exact and isinstance(value, float) and value.is_integer():
            # An integer to JSON Schema, as `loopspec schema` states it: 1.0 and 1.7e12 are the
            # numbers 1 and 1700000000000 (a hand edit, a Gson writer), where they were refused.
            value = int(value)
        numeric = int if exact else (int, float)
        if isinstance(value, bool) or not isinstance(value, numeric):
            raise ProtocolError(f"{path} must be {_EXPECTED[annotation]}{given_instead(value)}")
        if exact or isinstance(value, float):
            return value
        try:
            return float(value)
        except OverflowError:  # an integer too large for a float: finite, kept as written
            return value
    if annotation == "bool":
        if not isinstance(value, bool):
            raise ProtocolError(f"{path} must be true or false{given_instead(value)}")
        return value
    if annotation in UNIONS:
        return decode_union(value, annotation, path)
    return decode_object(value, CLASSES[annotation], path)


def _decode_field(obj: Mapping[str, Any], field: WireField, path: str) -> object:
    where = f"{path}.{field.wire}"
    value = _decode_value(obj[field.wire], field.annotation, where)
    if field.enum is not None and value not in field.enum:
        hint = did_you_mean(str(value), sorted(field.enum))
        raise ProtocolError(
            f"{where} must be {_one_of(sorted(field.enum))}, not {spelled(value)}{hint}"
        )
    if field.minimum is not None and isinstance(value, int) and value < field.minimum:
        raise ProtocolError(f"{where} must be at least {field.minimum}, not {value}")
    if field.maximum is not None and isinstance(value, int) and value > field.maximum:
        raise ProtocolError(f"{where} must be at most {field.maximum}, not {value}")
    if field.non_empty and value == "":
        raise ProtocolError(f"{where} must not be empty")
    return value


def _refuse_unknown_members(obj: Mapping[str, Any], cls: type, path: str) -> None:
    """Refuse a member `cls` does not have: ignoring it would decode another value than the one
    written (a case file with `"cdoe"` for `"code"` would replay a program without a code)."""
    tag = TAGS.get(cls)
    known = ([tag[0]] if tag is not None else []) + [field.wire for field in wire_fields(cls)]
    for key in obj:
        if key not in known:
            hint = did_you_mean(str(key), known)
            raise ProtocolError(
                f"{path}.{key} is not a field here{hint}; the fields here are {', '.join(known)}"
            )


def decode_object(value: object, cls: type, path: str) -> Any:
    """An attrs value of the protocol from its JSON object (tag already matched); a member the
    class does not have is refused."""
    obj = _object(value, path)
    _refuse_unknown_members(obj, cls, path)
    fields: dict[str, object] = {}
    for field in wire_fields(cls):
        if field.wire not in obj:
            if field.required:
                what = _expected(field.annotation)
                raise ProtocolError(f"{path}.{field.wire} is missing; it must be {what}")
            continue  # the class's default
        fields[field.name] = _decode_field(obj, field, path)
    try:
        return cls(**fields)
    except InvalidEventError as error:
        raise ProtocolError(f"{path}: {error.message}", rule_id=error.rule_id) from error


def decode_union(value: object, union: str, path: str) -> Any:
    """A member of the closed union named `union`, chosen by its tag."""
    obj = _object(value, path)
    key = union_key(union)
    tag = obj.get(key)
    members = union_members(union)
    for member in members:
        wanted = TAGS[member][1]
        if type(tag) is type(wanted) and tag == wanted:
            assert attrs.has(member)
            return decode_object(obj, member, path)
    options = _one_of([_spelled(TAGS[member][1]) for member in members])
    if key not in obj:  # as a missing field is said: "must be ..., not nothing" read oddly
        raise ProtocolError(f"{path}.{key} is missing; it must be {options}")
    # A misspelt kind ('SubmitUsr') is named with the nearest, as a misspelt field or enum is.
    tags = [_spelled(TAGS[member][1]) for member in members]  # as JSON spells them: true
    hint = did_you_mean(tag, tags) if isinstance(tag, str) else ""
    raise ProtocolError(f"{path}.{key} must be {options}, not {spelled(tag)}{hint}")


def command_from_json(value: object, path: str = "$") -> Command:
    """One command from its JSON object; `ProtocolError` names what is wrong."""
    command: Command = decode_union(value, "Command", path)
    return command


def verdict_from_json(value: object, path: str) -> PreVerdict:
    """A PreToolUse verdict from JSON."""
    verdict: PreVerdict = decode_union(value, "PreVerdict", path)
    return verdict


def post_from_json(value: object, path: str) -> PostVerdict:
    """A PostToolUse verdict from JSON."""
    verdict: PostVerdict = decode_union(value, "PostVerdict", path)
    return verdict


def config_from_json(value: object, path: str = "$.config") -> LoopConfig:
    """A loop configuration from JSON; a tool name declared twice is refused (the one rule
    here the published schema cannot state), and so is a hook's handler id given twice (HOOK-1,
    which the model's configuration states), each naming where."""
    hooks = value.get("hooks") if isinstance(value, dict) else None
    first_hook: dict[str, int] = {}
    for index, hook in enumerate(hooks if isinstance(hooks, list) else ()):
        handler = hook.get("handlerId") if isinstance(hook, dict) else None
        if isinstance(handler, str) and handler in first_hook:
            # A hook copied to make a second one, its id left: the model's own refusal named
            # neither the id nor where.
            raise ProtocolError(
                f"{path}.hooks[{index}].handlerId: hook {spelled(handler)} is declared twice "
                f"(first at {path}.hooks[{first_hook[handler]}])",
                rule_id="HOOK-1",
            )
        if isinstance(handler, str):
            first_hook[handler] = index
    config: LoopConfig = decode_object(value, LoopConfig, path)
    first: dict[str, int] = {}
    for index, tool in enumerate(config.tools):
        if tool.name in first:
            # Which declaration a call would meet is undefined: a loop refuses such a
            # configuration, and the refusal must name the file's mistake, not the loop.
            raise ProtocolError(
                f"{path}.tools[{index}].name: tool {spelled(tool.name)} is declared twice "
                f"(first at {path}.tools[{first[tool.name]}])"
            )
        first[tool.name] = index
    return config
