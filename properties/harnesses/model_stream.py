"""How a mock model streams one reply: Anthropic Messages or OpenAI Responses server-sent events.

Two servers stand in for the model: `mock_model` plays a harness run's scripted replies, and
`conform_driver` answers each request with the reply a conform program gives. Both hand their
reply here as a list of `StreamBlock`s (text, reasoning, a call of the CLI's shell tool), and
both stream the same bytes for the same blocks: Claude Code reads `anthropic_events`, Codex
reads `responses_events`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, assert_never

import attrs

from loopspec.properties.harnesses.script import (
    CLAUDE_FILE_TOOLS,
    SHELL,
    Harness,
    ScriptedCall,
    ScriptedReply,
    ScriptedText,
)

# The shell tool each CLI offers the model, and the argument that carries the command.
CLAUDE_SHELL_TOOL = "Bash"
CODEX_SHELL_TOOL = "exec_command"


@attrs.frozen
class StreamText:
    """Text the model writes."""

    text: str


@attrs.frozen
class StreamReasoning:
    """Reasoning the model shows (a thinking block, a reasoning item's summary)."""

    text: str


@attrs.frozen
class StreamCall:
    """A tool call as the CLI's API carries it: the tool's name and its input object."""

    call_id: str
    name: str
    tool_input: dict[str, Any]


StreamBlock = StreamText | StreamReasoning | StreamCall


def shell_call(harness: Harness, call_id: str, arguments: dict[str, Any]) -> StreamCall:
    """A call of `harness`'s shell tool running `arguments["command"]`.

    Claude Code's Bash takes the arguments as they are (`command`, and any other key it knows);
    Codex's exec_command takes only the command, as `cmd`.
    """
    match harness:
        case Harness.CLAUDE_CODE:
            return StreamCall(call_id, CLAUDE_SHELL_TOOL, arguments)
        case Harness.CODEX:
            return StreamCall(call_id, CODEX_SHELL_TOOL, {"cmd": arguments["command"]})
        case _:
            assert_never(harness)


def scripted_blocks(harness: Harness, reply: ScriptedReply) -> list[StreamBlock]:
    """The blocks of a scripted reply as `harness`'s API carries them."""
    blocks: list[StreamBlock] = []
    for block in reply.blocks:
        match block:
            case ScriptedText(text):
                blocks.append(StreamText(text))
            case ScriptedCall(call_id, arguments, tool) if tool == SHELL:
                blocks.append(shell_call(harness, call_id, arguments))
            case ScriptedCall(call_id, arguments, tool):
                # A file tool: Claude Code's own, taking the input as it stands (the script
                # offers none on Codex).
                blocks.append(StreamCall(call_id, CLAUDE_FILE_TOOLS[tool], arguments))
            case _:
                assert_never(block)
    return blocks


def reply_events(
    harness: Harness, blocks: Sequence[StreamBlock], index: int, request: Any
) -> Iterator[bytes]:
    """The stream `harness` reads for reply number `index` to the request body `request`."""
    match harness:
        case Harness.CLAUDE_CODE:
            model = str(request.get("model", "mock")) if isinstance(request, dict) else "mock"
            return anthropic_events(blocks, index, model)
        case Harness.CODEX:
            return responses_events(blocks, index)
        case _:
            assert_never(harness)


def _sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def anthropic_events(blocks: Sequence[StreamBlock], index: int, model: str) -> Iterator[bytes]:
    """An Anthropic Messages stream: text, thinking and tool_use content blocks."""
    message: dict[str, Any] = {
        "id": f"msg_mock_{index}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    yield _sse("message_start", {"type": "message_start", "message": message})
    calls = False
    for position, block in enumerate(blocks):
        deltas: list[dict[str, Any]]
        match block:
            case StreamText(text):
                start: dict[str, Any] = {"type": "text", "text": ""}
                deltas = [{"type": "text_delta", "text": text}]
            case StreamReasoning(text):
                start = {"type": "thinking", "thinking": ""}
                deltas = [
                    {"type": "thinking_delta", "thinking": text},
                    {"type": "signature_delta", "signature": "mock-signature"},
                ]
            case StreamCall(call_id, name, tool_input):
                calls = True
                start = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
                deltas = [{"type": "input_json_delta", "partial_json": json.dumps(tool_input)}]
            case _:
                assert_never(block)
        yield _sse(
            "content_block_start",
            {"type": "content_block_start", "index": position, "content_block": start},
        )
        for delta in deltas:
            yield _sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": position, "delta": delta},
            )
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": position})
    yield _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 1},
        },
    )
    yield _sse("message_stop", {"type": "message_stop"})


def responses_events(blocks: Sequence[StreamBlock], index: int) -> Iterator[bytes]:
    """An OpenAI Responses stream: assistant messages (with their text delta), reasoning items
    and function calls."""
    response: dict[str, Any] = {"id": f"resp_mock_{index}", "object": "response", "output": []}
    yield _sse("response.created", {"type": "response.created", "response": response})
    output = []
    for position, block in enumerate(blocks):
        match block:
            case StreamText(text):
                item: dict[str, Any] = {
                    "type": "message",
                    "id": f"msg_mock_{index}_{position}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            case StreamReasoning(text):
                item = {
                    "type": "reasoning",
                    "id": f"rs_mock_{index}_{position}",
                    "summary": [{"type": "summary_text", "text": text}],
                }
            case StreamCall(call_id, name, tool_input):
                item = {
                    "type": "function_call",
                    "id": f"fc_mock_{index}_{position}",
                    "call_id": call_id,
                    "name": name,
                    "arguments": json.dumps(tool_input),
                    "status": "completed",
                }
            case _:
                assert_never(block)
        output.append(item)
        yield _sse(
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": position, "item": item},
        )
        if isinstance(block, StreamText):
            yield _sse(
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": position,
                    "content_index": 0,
                    "delta": block.text,
                },
            )
        yield _sse(
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": position, "item": item},
        )
    usage = {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    }
    done = {**response, "status": "completed", "output": output, "usage": usage}
    yield _sse("response.completed", {"type": "response.completed", "response": done})
