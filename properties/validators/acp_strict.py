"""Strict validation of the ACP wire JSON the bridge emits (rule ACP-1).

The ACP Python models validate leniently: an invalid kind, status or line is silently replaced by
None and an invalid content or location item is silently dropped, so `model_validate` alone
accepts broken payloads. Two independent checks close that gap, and both must pass:

- the JSON Schema (Draft 2020-12) the pinned models export, which rejects bad enum values,
  missing required fields, unknown content types and negative lines;
- round-trip equality: validating and dumping (by alias, without nulls) must give back the exact
  payload, which fails whenever the models salvaged, dropped or coerced anything, and also on
  explicit nulls and keys the schema does not know.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from loopspec.model.json_text import spelled
from loopspec.model.near_miss import MISSPELT, nearest
from loopspec.properties.json_schema_words import schema_error_words

if TYPE_CHECKING:
    from pydantic import BaseModel

# The ACP models (pydantic) and jsonschema are imported by the first validator built, not with
# this module: they take over a second to import, and most runs (every --help, replay of a
# target that shows no presentation) never validate a payload.


class StrictValidator:
    """Both checks for one ACP model, built once."""

    def __init__(self, model: type[BaseModel]) -> None:
        self._model = model
        import jsonschema  # noqa: PLC0415 (lazy: see the imports above)

        schema = model.model_json_schema(by_alias=True)
        jsonschema.Draft202012Validator.check_schema(schema)
        self._schema = jsonschema.Draft202012Validator(schema)

    def problems(self, wire: Mapping[str, object]) -> list[str]:
        """Every reason `wire` is not a strictly valid payload; empty means valid."""
        # Each once: a value of the wrong type fails every arm of its union alike (an update
        # that is no object was told so 13 times, a content item that is a string 3 times).
        found = self.schema_problems(wire)
        from pydantic import ValidationError  # noqa: PLC0415 (lazy: see the imports above)

        try:
            parsed = self._model.model_validate(wire)
        except ValidationError as error:
            found.append(f"model: {error.error_count()} validation error(s): {error}")
            return found
        try:
            dumped = parsed.model_dump(by_alias=True, exclude_none=True, mode="json")
        except ValueError as error:  # pydantic's serializer stops at its depth limit
            found.append(f"round trip: the ACP SDK could not write the payload back: {error}")
            return found
        difference = _first_difference(dict(wire), dumped, "$")
        if difference is not None:
            found.append(f"round trip: {difference}")
        return found

    def schema_definitions(self) -> dict[str, Any]:
        """The pinned JSON Schema's definitions (`$defs`), by name."""
        definitions = self._schema.schema.get("$defs", {})
        return definitions if isinstance(definitions, dict) else {}

    def schema_problems(self, wire: object) -> list[str]:
        """Why `wire` fails the pinned JSON Schema alone, each once (empty: it passes)."""
        return list(
            dict.fromkeys(
                f"schema: {leaf}"
                for error in self._schema.iter_errors(wire)
                for leaf in _leaf_messages(error)
            )
        )

    def lenient_reading(self, wire: Mapping[str, object]) -> dict[str, Any] | None:
        """What the ACP SDK's own parser makes of `wire` (what it drops or coerces gone, by
        ACP's keys), as an editor reading leniently is given it; None when it reads nothing."""
        try:
            parsed = self._model.model_validate(wire)
            return parsed.model_dump(by_alias=True, exclude_none=True, mode="json")
        except ValueError:  # pydantic's ValidationError (unreadable), or past its depth limit
            return None


def _json_path(parts: Iterable[object]) -> str:
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)


def _leaf_messages(error: Any) -> list[str]:
    """The specific failures under a `oneOf`/`anyOf` error, instead of "not valid under any".

    The schema ignores pydantic's `discriminator`, so a union failure lists every arm. Arms that
    failed only because they are a different variant (a `const` tag mismatch) or the null arm of
    an optional field say nothing about the payload and are skipped.
    """
    arms: dict[object, list[Any]] = {}
    for sub in error.context or ():
        arms.setdefault(sub.relative_schema_path[0], []).append(sub)
    missing_tag = _missing_tag(arms.values())
    if missing_tag is not None:
        return [f"at {_json_path(error.absolute_path)}: {missing_tag}"]
    relevant = [
        sub
        for subs in arms.values()
        if not any(_is_other_variant(sub) for sub in subs)
        for sub in subs
    ]
    if not relevant:
        return [f"at {_json_path(error.absolute_path)}: {_no_variant(error)}"]
    return [leaf for sub in relevant for leaf in _leaf_messages(sub)]


# ACP's content blocks, which a tool call's content holds wrapped, never bare.
_CONTENT_BLOCK_TYPES = frozenset({"text", "image", "audio", "resource_link", "resource"})


def _no_variant(error: Any) -> str:
    """Why a union matched no arm: the tag it carries and the tags the arms take (a union
    failure says only "not valid under any of the given schemas"), or that message when the
    arms are not told apart by one tag."""
    if error.validator == "required" and isinstance(error.instance, dict):
        snake_cased = [
            f"{_snake_case(name)} is ACP's {name}"
            for name in error.validator_value
            if name not in error.instance and _snake_case(name) in error.instance
        ]
        if snake_cased:
            said = "; ".join(snake_cased)
            return f"{schema_error_words(error)} ({said}: its keys are camelCase)"
    tags = [sub for sub in error.context or () if sub.validator == "const" and len(sub.path) == 1]
    fields = {sub.path[0] for sub in tags}
    if len(fields) != 1 or not isinstance(error.instance, dict):
        return schema_error_words(error)
    field = fields.pop()
    allowed = list(dict.fromkeys(sub.validator_value for sub in tags))
    sent = error.instance.get(field, "nothing")
    said = f"{field} {spelled(sent)} is none of {', '.join(map(spelled, allowed))}"
    if isinstance(sent, str) and sent in _CONTENT_BLOCK_TYPES and "content" in allowed:
        said += ' (a content block goes inside {"type": "content", "content": {...}})'
    return said


def _snake_case(name: str) -> str:
    """`toolCallId` as a Python or Rust bridge may spell it: `tool_call_id`."""
    return "".join(f"_{char.lower()}" if char.isupper() else char for char in name)


def _camel_case(name: str) -> str:
    """`tool_call_id` as ACP's JSON spells it: `toolCallId`."""
    first, *rest = name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def _missing_tag(arms: Iterable[list[Any]]) -> str | None:
    """That the tag itself is missing, when every arm of a tagged union requires the same
    absent property, each with its own constant: the arms' own messages (24 lines for a
    session update without `sessionUpdate`) began with another field, "'content' is a required
    property"."""
    field: str | None = None
    allowed: list[object] = []
    for subs in arms:
        # jsonschema reports a `required` once per absent property, each with the whole list.
        tags = {
            (name, schema["const"])
            for sub in subs
            if sub.validator == "required" and isinstance(sub.instance, dict)
            for name in sub.validator_value
            if name not in sub.instance
            and isinstance(schema := sub.schema.get("properties", {}).get(name), dict)
            and "const" in schema
        }
        if len(tags) != 1:
            return None
        ((name, const),) = tags
        if field not in (None, name):
            return None
        field = name
        allowed.append(const)
    if field is None:
        return None
    return f"no {field}: it names the variant, one of {', '.join(map(spelled, allowed))}"


def _is_other_variant(error: Any) -> bool:
    wrong_tag = error.validator == "const"
    null_arm = error.validator == "type" and error.validator_value == "null"
    return bool(wrong_tag or null_arm)


def _null_acp_writes(item: Mapping[str, object], key: str) -> bool:
    """Whether `key`'s null in `item` is one ACP's own Rust crate writes: a diff's `oldText`,
    an `Option` it does not leave out, null for a new file (its schema allows the null too).
    The SDK's round trip leaves it out, yet it means what no key means."""
    return key == "oldText" and item.get("type") == "diff"


def _first_difference(sent: object, back: object, path: str) -> str | None:
    """Where the re-dumped payload first departs from what was sent, or None if it does not."""
    if isinstance(sent, dict) and isinstance(back, dict):
        # Sent order first, so the reported difference is the same on every run.
        for key in [*sent, *(key for key in back if key not in sent)]:
            if key not in back and sent[key] is None and _null_acp_writes(sent, key):
                continue
            # "the model" would read as loopspec's reference model in a conform report.
            if key not in back and sent[key] is None:
                return f"{path}.{key} is null: leave the key out (ACP omits a field with no value)"
            if key not in back and _camel_case(key) in back:
                return (
                    f"{path}.{key} is not a key of ACP's JSON, which spells it {_camel_case(key)}"
                )
            if key not in back:
                return (
                    f"{path}.{key} is not a key the pinned ACP schema defines, or holds a value "
                    "the ACP SDK's parser discards"
                )
            if key not in sent:
                return f"{path}.{key} was added by the ACP SDK's parser"
            found = _first_difference(sent[key], back[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(sent, list) and isinstance(back, list):
        if len(sent) != len(back):
            return f"{path} had {len(sent)} items, {len(back)} survived"
        for index, (item, item_back) in enumerate(zip(sent, back, strict=True)):
            found = _first_difference(item, item_back, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    # `type` too: the models coerce, for example, "3" to 3 and True to 1.
    if type(sent) is not type(back) or sent != back:
        return f"{path} was {spelled(sent)}, came back as {spelled(back)}"
    return None


@functools.cache
def session_update_validator() -> StrictValidator:
    """The strict validator for `session/update` notification params."""
    from acp.schema import SessionNotification  # noqa: PLC0415 (lazy)

    return StrictValidator(SessionNotification)


@functools.cache
def permission_request_validator() -> StrictValidator:
    """The strict validator for `session/request_permission` request params."""
    from acp.schema import RequestPermissionRequest  # noqa: PLC0415 (lazy)

    return StrictValidator(RequestPermissionRequest)


@functools.cache
def prompt_response_validator() -> StrictValidator:
    """The strict validator for a `session/prompt` response's result."""
    from acp.schema import PromptResponse  # noqa: PLC0415 (lazy)

    return StrictValidator(PromptResponse)


def validate_session_update(params: Mapping[str, object]) -> list[str]:
    """Problems with `session/update` params (empty = strictly valid)."""
    return session_update_validator().problems(params)


def validate_permission_request(params: Mapping[str, object]) -> list[str]:
    """Problems with `session/request_permission` params (empty = strictly valid)."""
    return permission_request_validator().problems(params)


def read_session_update(params: Mapping[str, object]) -> dict[str, Any] | None:
    """`session/update` params as the ACP SDK reads them leniently (None: it cannot)."""
    return session_update_validator().lenient_reading(params)


def read_permission_request(params: Mapping[str, object]) -> dict[str, Any] | None:
    """`session/request_permission` params as the ACP SDK reads them leniently (None: it
    cannot)."""
    return permission_request_validator().lenient_reading(params)


# The pinned SDK's model of an agent's answer to each of the editor's requests it has one for,
# and whether the SDK's client reads a null
# answer as {} (its `request_model_from_dict`: a TypeScript agent's answer with no fields is
# null) or refuses it (`request_model`).
_ANSWER_MODELS = {
    "initialize": ("InitializeResponse", False),
    "session/prompt": ("PromptResponse", False),
    "authenticate": ("AuthenticateResponse", True),
    "session/new": ("NewSessionResponse", False),
    "session/load": ("LoadSessionResponse", True),
    "session/list": ("ListSessionsResponse", True),
    "session/set_mode": ("SetSessionModeResponse", True),
    "session/set_config_option": ("SetSessionConfigOptionResponse", True),
    "session/fork": ("ForkSessionResponse", False),
    "session/resume": ("ResumeSessionResponse", False),
    "session/close": ("CloseSessionResponse", True),
    # The pinned SDK's client sends none of these: a null answer reads as {} where the answer
    # has no required field, as a TypeScript agent's void answer is written.
    "session/delete": ("DeleteSessionResponse", True),
    "logout": ("LogoutResponse", True),
    "providers/list": ("ListProvidersResponse", False),
    "providers/set": ("SetProviderResponse", True),
    "providers/disable": ("DisableProviderResponse", True),
    "nes/start": ("StartNesResponse", False),
    "nes/suggest": ("SuggestNesResponse", False),
    "nes/close": ("CloseNesResponse", True),
}
# Methods of another ACP than the pinned one whose answer is an object with no required field
# (`session/set_model`, unstable, which Zed's bridge serves): held to that shape alone, an
# object or null (a TypeScript agent's void answer).
_UNPINNED_ANSWERS = frozenset({"session/set_model"})
# The pinned SDK's models of each request an agent sends the editor past the permission
# request (its file system and terminals): the request's params, and the editor's answer.
_AGENT_REQUEST_MODELS = {
    "fs/read_text_file": ("ReadTextFileRequest", "ReadTextFileResponse"),
    "fs/write_text_file": ("WriteTextFileRequest", "WriteTextFileResponse"),
    "terminal/create": ("CreateTerminalRequest", "CreateTerminalResponse"),
    "terminal/output": ("TerminalOutputRequest", "TerminalOutputResponse"),
    "terminal/wait_for_exit": ("WaitForTerminalExitRequest", "WaitForTerminalExitResponse"),
    "terminal/kill": ("KillTerminalRequest", "KillTerminalResponse"),
    "terminal/release": ("ReleaseTerminalRequest", "ReleaseTerminalResponse"),
    "session/request_permission": ("RequestPermissionRequest", "RequestPermissionResponse"),
}


@functools.cache
def _schema_model(name: str) -> StrictValidator:
    from acp import schema  # noqa: PLC0415 (lazy: see the imports above)

    return StrictValidator(getattr(schema, name))


def answered_by_agent(method: str) -> bool:
    """Whether `method` is an editor's request whose answer the pinned ACP has a model of (or,
    for a method another ACP has, whose shape is known)."""
    return method in _ANSWER_MODELS or method in _UNPINNED_ANSWERS


def answer_schema_problems(method: str, result: object) -> list[str]:
    """Why an agent's `result` for the editor's `method` request fails the pinned schema
    (empty: it passes, or the pinned ACP has no model for that method's answer)."""
    known = _ANSWER_MODELS.get(method)
    if method in _UNPINNED_ANSWERS and not isinstance(result, dict | None):
        return [f'schema: at $: {spelled(result)} is not of type "object"']
    if known is None:
        return []
    name, null_reads_empty = known
    if result is None and null_reads_empty:
        return []
    return _schema_model(name).schema_problems(result)


def agent_request_schema_problems(method: str, params: object) -> list[str]:
    """Why an agent's file-system or terminal request's `params` fail the pinned schema
    (empty: they pass, or `method` is none of those)."""
    names = _AGENT_REQUEST_MODELS.get(method)
    return [] if names is None else _schema_model(names[0]).schema_problems(params)


def fits_editor_answer(method: str, result: object) -> bool:
    """Whether `result` passes the pinned schema of the editor's answer to the agent's
    `method` request (null, as an answer with no fields may be, too)."""
    names = _AGENT_REQUEST_MODELS.get(method)
    if names is None or result is None:
        return True
    return not _schema_model(names[1]).schema_problems(result)


def error_schema_problems(error: object) -> list[str]:
    """Why a JSON-RPC answer's `error` fails the pinned schema's Error (code and message)."""
    return _schema_model("Error").schema_problems(error)


# Methods of another ACP than the pinned one (unstable in some), which are no misspelling of
# one the pinned ACP has however close their names: `session/set_model` is Zed's model picker,
# `session/stop` the name unstable ACP gave `session/close` before renaming it (the TypeScript
# SDK's schema until its "add unstable session/close" change), close to `session/list`.
_OTHER_ACP_METHODS = frozenset({"session/set_model", "session/stop", *_UNPINNED_ANSWERS})
# An unknown name is taken for a misspelling of one the pinned ACP has at near_miss.MISSPELT:
# `session/prompts`, `fs/read_text` (0.83) are; a newer ACP's names are not.


@functools.cache
def _methods() -> dict[str, str]:
    """Every method of the pinned ACP, with the side that sends it."""
    from acp.meta import AGENT_METHODS, CLIENT_METHODS  # noqa: PLC0415 (lazy: see the imports)

    sent = dict.fromkeys(CLIENT_METHODS.values(), "agent")
    sent.update(dict.fromkeys(AGENT_METHODS.values(), "editor"))
    sent["$/cancel_request"] = "either side"
    return sent


@functools.cache
def misspelt_method(method: str) -> tuple[str, str] | None:
    """The pinned ACP's method, and the side that sends it, that `method` (a name the pinned
    ACP lacks, no extension's) is a misspelling of; None when it is none's (a newer ACP's)."""
    known = _methods()
    if method in known or method in _OTHER_ACP_METHODS or method.startswith("_"):
        return None
    meant = nearest(method, known, cutoff=MISSPELT)
    return None if meant is None else (meant, known[meant])


@functools.cache
def _update_kinds() -> frozenset[str]:
    """Every `sessionUpdate` kind of the pinned ACP (its schema's tags)."""
    schema = session_update_validator().schema_definitions()
    return frozenset(
        tag["const"]
        for each in schema.values()
        if isinstance(tag := each.get("properties", {}).get("sessionUpdate"), dict)
        and "const" in tag
    )


@functools.cache
def misspelt_update_kind(kind: str) -> str | None:
    """The pinned ACP's `sessionUpdate` kind that `kind` (one it lacks) is a misspelling of;
    None when it is none's (a newer ACP's kind)."""
    kinds = _update_kinds()
    if kind in kinds:
        return None
    return nearest(kind, kinds, cutoff=MISSPELT)
