"""Model-visible messages and their content blocks.

These are the values `derive_messages` returns and the provider projections consume. Every class
is frozen and validated on construction; `extra` keeps wire fields the rules do not read, so a
message read from a real log is written back unchanged.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from loopspec.model.errors import InvalidEventError
from loopspec.model.facts import source_names_another_call
from loopspec.model.jsonvalue import EMPTY, FrozenMap, JsonValue, parse_arguments


def _non_empty(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    if not value:
        raise InvalidEventError(f"{attribute.name} must be a non-empty string", rule_id="LOG-4")


@attrs.frozen
class TextBlock:
    """Plain text the model or the user wrote."""

    TYPE: ClassVar[str] = "text"
    text: str
    extra: FrozenMap = EMPTY


@attrs.frozen
class ReasoningBlock:
    """Model reasoning. Never reordered or edited (signed thinking must stay intact)."""

    TYPE: ClassVar[str] = "reasoning"
    text: str
    extra: FrozenMap = EMPTY


@attrs.frozen
class ToolCallBlock:
    """A tool call as the model history carries it: `arguments` is the raw JSON string."""

    TYPE: ClassVar[str] = "tool-call"
    id: str = attrs.field(validator=_non_empty)
    name: str = attrs.field(validator=_non_empty)
    arguments: str
    extra: FrozenMap = EMPTY

    @property
    def parsed_arguments(self) -> JsonValue:
        """The arguments as every reader parses them (rule EXE-2)."""
        return parse_arguments(self.arguments)


@attrs.frozen
class OpaqueBlock:
    """A content block of a type the rules do not read (images, attachments, plugin blocks)."""

    type: str
    data: FrozenMap


ResultContentBlock = TextBlock | OpaqueBlock


@attrs.frozen
class ToolResultBlock:
    """The single block a tool result message carries."""

    TYPE: ClassVar[str] = "tool-result"
    tool_call_id: str = attrs.field(validator=_non_empty)
    content: tuple[ResultContentBlock, ...]
    # None: the wire omitted isError (read as False); kept so a real log writes back unchanged.
    is_error: bool | None = False
    extra: FrozenMap = EMPTY

    @property
    def failed(self) -> bool:
        """Whether the result reports a failure."""
        return bool(self.is_error)


ContentBlock = TextBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock | OpaqueBlock


@attrs.frozen
class UserMessage:
    """A user-role message: the user's prompt, a runtime context, or a post-tool context."""

    ROLE: ClassVar[str] = "user"
    id: str | None
    content: tuple[ContentBlock, ...]
    source: FrozenMap
    extra: FrozenMap = EMPTY


@attrs.frozen
class AssistantMessage:
    """What the model said in one step; its tool-call blocks are what the tools follow."""

    ROLE: ClassVar[str] = "assistant"
    id: str | None
    content: tuple[ContentBlock, ...]
    source: FrozenMap
    extra: FrozenMap = EMPTY

    @property
    def tool_calls(self) -> tuple[ToolCallBlock, ...]:
        """The tool-call blocks, in model order."""
        return tuple(block for block in self.content if isinstance(block, ToolCallBlock))


@attrs.frozen
class ToolResultMessage:
    """A tool result: role user, source `{kind: tool, callId}`, exactly one tool-result block."""

    ROLE: ClassVar[str] = "user"
    id: str | None
    result: ToolResultBlock
    source: FrozenMap
    extra: FrozenMap = EMPTY

    def __attrs_post_init__(self) -> None:
        if self.source.get("callId") != self.result.tool_call_id:
            msg = source_names_another_call(self.result.tool_call_id, self.source.get("callId"))
            raise InvalidEventError(msg, rule_id="LOG-6")

    @property
    def call_id(self) -> str:
        """The call this result answers."""
        return self.result.tool_call_id

    @property
    def text(self) -> str:
        """The text blocks of the result joined by newlines (opaque blocks skipped)."""
        return "\n".join(b.text for b in self.result.content if isinstance(b, TextBlock))


Message = UserMessage | AssistantMessage | ToolResultMessage


def user_source() -> FrozenMap:
    """The source of a message the user typed."""
    return FrozenMap({"kind": "user"})


def plugin_source(plugin: str) -> FrozenMap:
    """The source of a context message a plugin (hook bridge, tool) produced."""
    return FrozenMap({"kind": "plugin", "plugin": plugin})


def tool_source(call_id: str) -> FrozenMap:
    """The source of a tool result message."""
    return FrozenMap({"kind": "tool", "callId": call_id})


def model_source(provider: str, model: str) -> FrozenMap:
    """The source of an assistant message."""
    return FrozenMap({"kind": "model", "provider": provider, "model": model})
