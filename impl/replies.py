"""What the loop requires of a model reply before acting on it, and what survives a cut reply."""

from __future__ import annotations

from collections.abc import Sequence

from loopspec.model.commands import ModelReplies
from loopspec.model.messages import ContentBlock, ReasoningBlock, TextBlock


def reply_problem(reply: object) -> str | None:
    """Why the loop cannot act on `reply`, or None (rule EXE-1: call ids are distinct)."""
    if not isinstance(reply, ModelReplies):
        return f"a provider must answer with ModelReplies, not {type(reply).__name__}"
    ids = [call.id for call in reply.tool_calls]
    repeated = sorted({call_id for call_id in ids if ids.count(call_id) > 1})
    if repeated:
        return f"tool call ids repeat within one reply: {repeated}"
    return None


def delivered_text(blocks: Sequence[ContentBlock]) -> tuple[ContentBlock, ...]:
    """What an interrupted reply keeps: text and reasoning that say something; never a call."""
    return tuple(
        block
        for block in blocks
        if isinstance(block, TextBlock | ReasoningBlock) and block.text.strip()
    )


def text_only(blocks: Sequence[ContentBlock]) -> tuple[ContentBlock, ...]:
    """A truncated reply's text and reasoning, as delivered; its calls are incomplete."""
    return tuple(block for block in blocks if isinstance(block, TextBlock | ReasoningBlock))
