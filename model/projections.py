"""Provider projections of the derived model history (rules HIST-2, HIST-3).

Each function maps the ordered output of `derive_messages` to one provider's request message
list, as plain JSON-able dicts and lists. The projections repair nothing: a history that breaks
a provider's pairing rules projects to a request that breaks them too, which the independent
validators in `loopspec.properties.validators.provider_rules` then report (HIST-2).

Replay facts the projections rely on:

- Providers pair a tool result with its call by id only and do not check a replayed call's
  arguments against what the model first emitted. Editing a tool call's input on replay is
  therefore allowed, and the history block carries the *effective* input: whatever arguments
  the history holds are exactly what the provider receives (HIST-3).
- Reasoning/thinking blocks are never reordered or edited (Anthropic refuses modified thinking
  in the latest assistant turn and invalid signatures). A projection may only drop them whole,
  which the providers accept.
- A block a role cannot carry (a tool call in a user message, a tool result block anywhere but
  a tool result message, reasoning from the user) has no wire form; projecting it raises
  `UnprojectableMessageError` instead of guessing.

Anthropic (Messages API), merge rules, applied in this order:

1. Each message becomes one turn: a user message -> role user with its text and opaque blocks;
   an assistant message -> role assistant with its blocks in model order (text, `thinking`,
   `tool_use`, opaque); a tool result message -> role user with one `tool_result` block.
2. Text blocks that are empty or whitespace are dropped (the API rejects them), and so are
   reasoning blocks without a `signature` in `extra` (the API rejects a thinking block with no
   valid signature but accepts a history with thinking removed). A turn left with no blocks
   is dropped.
3. Consecutive user-role turns merge into one message by concatenating their blocks in
   history order. So the results of one step become one user message, their `tool_result`
   blocks in model order; a user message right after them joins that message *after* the
   results (the API wants results first); consecutive user messages join. Nothing is sorted:
   a context message sitting between a call and its result stays in front of the result and
   the validator reports it. Consecutive assistant turns are *not* merged: the loop never
   writes two in a row, so they mean a broken history, and joining them could hide a call
   whose result is missing.
4. `tool_use.input` must be a JSON object. Arguments are parsed as every reader parses them
   (EXE-2: empty means `{}`); anything that is not an object (invalid JSON, an array, a
   number) is sent as `{"_raw_arguments": <the raw string>}` so the model sees exactly what it
   produced and nothing is lost.
5. A `tool_result` carries its text as a string (text blocks joined by newlines) and
   `is_error`; if the result holds opaque blocks, the content is the block list instead.

OpenAI Chat Completions: each message maps to at most one message, in order. A user message
with one text block sends it as the content string, otherwise a list of parts (opaque blocks
passed through as parts); one with no blocks is dropped. An assistant
message keeps its text (a string, a list of text parts when there are several blocks, or None)
and its `tool_calls` with the raw argument string; reasoning and opaque blocks have no Chat form
and are dropped; an assistant message left with neither text nor calls is dropped. Each tool
result becomes its own `role: "tool"` message; `is_error` has no Chat field, so the error shows
only in the text.

OpenAI Responses: user text -> a `message` item of `input_text` parts; an assistant message ->
one `message` item of `output_text` parts (if it has text), then one `function_call` item per
call in model order; each tool result -> a `function_call_output`. Like Chat, Responses carries
text and calls as separate items, so the text goes first (the order the API itself emits) and
a step's calls stay directly in front of their outputs. Reasoning and opaque assistant blocks
are dropped (replaying Responses reasoning needs server-issued ids the history does not keep).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import assert_never

from loopspec.model.errors import LoopSpecError
from loopspec.model.jsonvalue import FrozenMap, thaw
from loopspec.model.messages import (
    AssistantMessage,
    ContentBlock,
    Message,
    OpaqueBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultMessage,
    UserMessage,
)

JsonObject = dict[str, object]

RAW_ARGUMENTS_KEY = "_raw_arguments"


class UnprojectableMessageError(LoopSpecError):
    """A message holds a block its role cannot carry on any provider's wire."""


# ---------------------------------------------------------------------------------------------
# Shared pieces


def _thaw_object(data: FrozenMap) -> JsonObject:
    return {key: thaw(value) for key, value in data.items()}


def _opaque(block: OpaqueBlock) -> JsonObject:
    # The block's own type is authoritative even if its data repeats a `type` key.
    return {"type": block.type} | {k: v for k, v in _thaw_object(block.data).items() if k != "type"}


def _misplaced(
    block: ContentBlock, where: str, message_id: str | None
) -> UnprojectableMessageError:
    return UnprojectableMessageError(
        f"{type(block).__name__} cannot be sent in {where} message {message_id!r}",
        rule_id="HIST-2",
    )


def _user_parts(
    message: UserMessage, text_part: Callable[[str], JsonObject | None]
) -> list[JsonObject]:
    """The wire parts of a user message: text via `text_part`, opaque blocks passed through."""
    parts: list[JsonObject] = []
    for block in message.content:
        part: JsonObject | None
        match block:
            case TextBlock():
                part = text_part(block.text)
            case OpaqueBlock():
                part = _opaque(block)
            case ReasoningBlock() | ToolCallBlock() | ToolResultBlock():
                raise _misplaced(block, "a user", message.id)
            case _:
                assert_never(block)
        if part is not None:
            parts.append(part)
    return parts


def _result_text_only(message: ToolResultMessage) -> bool:
    return all(isinstance(block, TextBlock) for block in message.result.content)


# ---------------------------------------------------------------------------------------------
# Anthropic Messages API


def anthropic_tool_input(call: ToolCallBlock) -> JsonObject:
    """The `tool_use.input` object for a call's raw arguments (merge rule 4 above)."""
    parsed = call.parsed_arguments
    if isinstance(parsed, FrozenMap):
        return _thaw_object(parsed)
    return {RAW_ARGUMENTS_KEY: call.arguments}


def _anthropic_text(text: str) -> JsonObject | None:
    return {"type": "text", "text": text} if text.strip() else None


def _anthropic_assistant_block(block: ContentBlock, message_id: str | None) -> JsonObject | None:
    match block:
        case TextBlock():
            return _anthropic_text(block.text)
        case ReasoningBlock():
            signature = block.extra.get("signature")
            if not isinstance(signature, str) or not signature:
                return None
            return {"type": "thinking", "thinking": block.text, "signature": signature}
        case ToolCallBlock():
            return {
                "type": "tool_use",
                "id": block.id,
                "name": block.name,
                "input": anthropic_tool_input(block),
            }
        case OpaqueBlock():
            return _opaque(block)
        case ToolResultBlock():
            raise _misplaced(block, "an assistant", message_id)
        case _:
            assert_never(block)


def _anthropic_result_part(block: TextBlock | OpaqueBlock) -> JsonObject | None:
    match block:
        case TextBlock():
            return _anthropic_text(block.text)
        case OpaqueBlock():
            return _opaque(block)
        case _:
            assert_never(block)


def _anthropic_tool_result(message: ToolResultMessage) -> JsonObject:
    content: object
    if _result_text_only(message):
        content = message.text
    else:
        parts = (_anthropic_result_part(block) for block in message.result.content)
        content = [part for part in parts if part is not None]
    return {
        "type": "tool_result",
        "tool_use_id": message.call_id,
        "content": content,
        "is_error": message.result.failed,
    }


def _anthropic_turn(message: Message) -> tuple[str, list[JsonObject]]:
    match message:
        case UserMessage():
            return "user", _user_parts(message, _anthropic_text)
        case AssistantMessage():
            blocks = (_anthropic_assistant_block(b, message.id) for b in message.content)
            return "assistant", [block for block in blocks if block is not None]
        case ToolResultMessage():
            return "user", [_anthropic_tool_result(message)]
        case _:
            assert_never(message)


def to_anthropic_messages(messages: Sequence[Message]) -> list[JsonObject]:
    """The Anthropic `messages` array for a derived history (merge rules 1-5 above)."""
    turns: list[tuple[str, list[JsonObject]]] = []
    for message in messages:
        role, blocks = _anthropic_turn(message)
        if not blocks:
            continue
        if role == "user" and turns and turns[-1][0] == "user":
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    return [{"role": role, "content": blocks} for role, blocks in turns]


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions


def _chat_text(text: str) -> JsonObject:
    return {"type": "text", "text": text}


def _chat_content(texts: list[str]) -> object:
    """None, the single text, or text parts: several blocks stay separate instead of joined."""
    if not texts:
        return None
    if len(texts) == 1:
        return texts[0]
    return [_chat_text(text) for text in texts]


def _chat_user(message: UserMessage) -> JsonObject | None:
    parts = _user_parts(message, _chat_text)
    if not parts:
        return None
    if len(parts) == 1 and parts[0]["type"] == "text":
        return {"role": "user", "content": parts[0]["text"]}
    return {"role": "user", "content": parts}


def _chat_assistant(message: AssistantMessage) -> JsonObject | None:
    texts: list[str] = []
    calls: list[JsonObject] = []
    for block in message.content:
        match block:
            case TextBlock():
                texts.append(block.text)
            case ToolCallBlock():
                function = {"name": block.name, "arguments": block.arguments}
                calls.append({"id": block.id, "type": "function", "function": function})
            case ReasoningBlock() | OpaqueBlock():
                pass  # no Chat form
            case ToolResultBlock():
                raise _misplaced(block, "an assistant", message.id)
            case _:
                assert_never(block)
    if not texts and not calls:
        return None
    out: JsonObject = {"role": "assistant", "content": _chat_content(texts)}
    if calls:  # the API rejects an empty `tool_calls` array
        out["tool_calls"] = calls
    return out


def to_openai_chat_messages(messages: Sequence[Message]) -> list[JsonObject]:
    """The Chat Completions `messages` array for a derived history (no system message)."""
    out: list[JsonObject] = []
    for message in messages:
        item: JsonObject | None
        match message:
            case UserMessage():
                item = _chat_user(message)
            case AssistantMessage():
                item = _chat_assistant(message)
            case ToolResultMessage():
                item = {"role": "tool", "tool_call_id": message.call_id, "content": message.text}
            case _:
                assert_never(message)
        if item is not None:
            out.append(item)
    return out


# ---------------------------------------------------------------------------------------------
# OpenAI Responses API


def _responses_user(message: UserMessage) -> list[JsonObject]:
    parts = _user_parts(message, lambda text: {"type": "input_text", "text": text})
    return [{"type": "message", "role": "user", "content": parts}] if parts else []


def _responses_assistant(message: AssistantMessage) -> list[JsonObject]:
    texts: list[JsonObject] = []
    calls: list[JsonObject] = []
    for block in message.content:
        match block:
            case TextBlock():
                texts.append({"type": "output_text", "text": block.text, "annotations": []})
            case ToolCallBlock():
                calls.append(
                    {
                        "type": "function_call",
                        "call_id": block.id,
                        "name": block.name,
                        "arguments": block.arguments,
                    }
                )
            case ReasoningBlock() | OpaqueBlock():
                pass  # needs server-issued ids the history does not keep
            case ToolResultBlock():
                raise _misplaced(block, "an assistant", message.id)
            case _:
                assert_never(block)
    text_item: list[JsonObject] = (
        [{"type": "message", "role": "assistant", "content": texts}] if texts else []
    )
    return text_item + calls


def to_openai_responses_input(messages: Sequence[Message]) -> list[JsonObject]:
    """The Responses API `input` items for a derived history (no instructions)."""
    items: list[JsonObject] = []
    for message in messages:
        match message:
            case UserMessage():
                items.extend(_responses_user(message))
            case AssistantMessage():
                items.extend(_responses_assistant(message))
            case ToolResultMessage():
                items.append(
                    {
                        "type": "function_call_output",
                        "call_id": message.call_id,
                        "output": message.text,
                    }
                )
            case _:
                assert_never(message)
    return items
