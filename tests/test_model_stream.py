"""The one encoder both mock model servers stream replies with, pinned byte for byte.

`tests/fixtures/model-stream/<api>-<shape>.sse` are written by hand: what Claude Code
(`anthropic`) and Codex (`responses`) read for each reply shape. The scripted shapes are played
through the harness run's `MockModel` over HTTP (its bytes must not move, or every recorded
harness run would be read against another stream); the reasoning shape is only the conform
driver's, so it goes through the encoder with the driver's shell-call mapping.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest

from loopspec.properties.harnesses.mock_model import MockModel
from loopspec.properties.harnesses.model_stream import (
    StreamBlock,
    StreamReasoning,
    StreamText,
    reply_events,
    shell_call,
)
from loopspec.properties.harnesses.script import (
    Harness,
    ScriptedCall,
    ScriptedReply,
    ScriptedText,
)

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "model-stream"
API = {Harness.CLAUDE_CODE: "anthropic", Harness.CODEX: "responses"}
ENDPOINT = {Harness.CLAUDE_CODE: "/v1/messages", Harness.CODEX: "/v1/responses"}
SCRIPTED = {
    "text": ScriptedReply((ScriptedText("Hello, café."),)),
    "call": ScriptedReply((ScriptedCall("c1", {"command": "echo a"}),)),
    # A key besides `command` reaches Bash as it is; exec_command takes only the command.
    "text-and-calls": ScriptedReply(
        (
            ScriptedText("Two."),
            ScriptedCall("c1", {"command": "ls", "timeout": 5}),
            ScriptedCall("c2", {"command": "pwd"}),
        )
    ),
    "empty": ScriptedReply(()),
}
DRIVER_ONLY = ("reasoning-text-call",)


def _golden(harness: Harness, shape: str) -> bytes:
    return (GOLDEN / f"{API[harness]}-{shape}.sse").read_bytes()


def _streamed(harness: Harness, reply: ScriptedReply) -> bytes:
    mock = MockModel(harness, (reply,)).start()
    connection = http.client.HTTPConnection("127.0.0.1", mock.port, timeout=10)
    try:
        body = {"model": "m", "messages": [], "input": []}
        connection.request("POST", ENDPOINT[harness], json.dumps(body))
        response = connection.getresponse()
        assert response.status == 200
        return response.read()
    finally:
        connection.close()
        mock.close()


@pytest.mark.parametrize("harness", list(Harness))
@pytest.mark.parametrize("shape", sorted(SCRIPTED))
def test_the_mock_model_streams_each_scripted_shape_as_its_golden_bytes(
    harness: Harness, shape: str
) -> None:
    assert _streamed(harness, SCRIPTED[shape]) == _golden(harness, shape)


@pytest.mark.parametrize("harness", list(Harness))
def test_the_conform_drivers_reasoning_text_and_call_stream_as_golden_bytes(
    harness: Harness,
) -> None:
    """Reply number 1 (ids carry it) with a thinking block / reasoning item, text, a call."""
    blocks: list[StreamBlock] = [
        StreamReasoning("Hmm."),
        StreamText("Ok."),
        shell_call(harness, "c3", {"command": "true"}),
    ]
    streamed = b"".join(reply_events(harness, blocks, 1, {"model": "m"}))
    assert streamed == _golden(harness, "reasoning-text-call")


def test_every_golden_stream_has_a_shape_that_plays_it() -> None:
    """No golden file is left unchecked (a renamed shape would otherwise orphan its file)."""
    shapes = [*SCRIPTED, *DRIVER_ONLY]
    expected = {f"{API[h]}-{shape}.sse" for h in Harness for shape in shapes}
    assert {path.name for path in GOLDEN.iterdir()} == expected
