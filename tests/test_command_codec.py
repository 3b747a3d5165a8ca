"""The driver protocol's JSON forms of commands and configurations (rule PROTO-1)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from jsonschema import Draft202012Validator

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.command_codec import (
    ProtocolError,
    command_from_json,
    command_to_json,
    config_from_json,
    config_to_json,
)
from loopspec.properties.conformance.driver_protocol import protocol_schema
from loopspec.properties.stateful import strategies as gen


@given(gen.any_commands)
def test_PROTO_1_commands_round_trip_through_json(command: Command) -> None:
    """PROTO-1: every command survives JSON text unchanged."""
    text = json.dumps(command_to_json(command))
    assert command_from_json(json.loads(text)) == command


@pytest.mark.parametrize("config", gen.CONFIGS)
def test_PROTO_1_configs_round_trip_through_json(config: LoopConfig) -> None:
    """PROTO-1: configurations survive JSON text unchanged."""
    assert config_from_json(json.loads(json.dumps(config_to_json(config)))) == config


@pytest.mark.parametrize(
    ("wire", "where"),
    [
        ([], "$ must be an object"),
        ({"kind": "Dance"}, "unknown command"),
        ({"kind": "SubmitUser"}, "$.text"),
        (
            {"kind": "ModelReplies", "finish": "completed", "blocks": [{"type": "image"}]},
            "$.blocks[0].type",
        ),
        ({"kind": "ModelReplies", "finish": "bored", "blocks": []}, "finish"),
        ({"kind": "HookAnswers", "verdict": {"decision": "maybe"}}, "$.verdict.decision"),
        ({"kind": "ToolFinishes", "callId": "c", "outcome": {"ok": "yes"}}, "$.outcome.ok"),
        (
            {
                "kind": "ToolFinishes",
                "callId": "c",
                "outcome": {"ok": True, "text": "t"},
                "post": [{"decision": "context"}],
            },
            "$.post[0].text",
        ),
        (
            {"kind": "HookAnswers", "verdict": {"decision": "pass"}, "audit": {"durationMs": "x"}},
            "durationMs",
        ),
    ],
)
def test_PROTO_1_bad_commands_name_the_path(wire: object, where: str) -> None:
    """PROTO-1: a malformed command is refused with the JSON path of the problem."""
    with pytest.raises(ProtocolError) as error:
        command_from_json(wire)
    assert where in str(error.value)
    assert error.value.rule_id == "PROTO-1"


@given(gen.any_commands)
def test_PROTO_1_encoded_commands_satisfy_the_published_schema(command: Command) -> None:
    """PROTO-1: what loopspec sends validates against the schema `loopspec schema` prints."""
    validator = Draft202012Validator({**protocol_schema(), "$ref": "#/$defs/toImplementation"})
    message = {"type": "command", "seq": 1, "command": command_to_json(command)}
    assert list(validator.iter_errors(message)) == []


def test_PROTO_1_schema_rejects_a_malformed_answer() -> None:
    """PROTO-1: an implementation's answer missing `commits` is rejected by the schema."""
    validator = Draft202012Validator({**protocol_schema(), "$ref": "#/$defs/fromImplementation"})
    good = {
        "type": "observed",
        "seq": 1,
        "accepted": True,
        "events": [],
        "commits": [],
        "executed": [],
    }
    assert list(validator.iter_errors(good)) == []
    bad = {"type": "observed", "seq": 1, "accepted": True, "events": []}
    assert list(validator.iter_errors(bad)) != []
