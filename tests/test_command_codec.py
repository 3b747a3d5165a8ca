"""The driver protocol's JSON forms of commands and configurations (rule PROTO-1)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from json_breaks import DROP, broken, places
from jsonschema import Draft202012Validator
from spec_helpers import PLAIN, results, run

from loopspec.model.commands import Command, ModelReplies, SubmitUser
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.errors import InvalidEventError
from loopspec.model.messages import ToolCallBlock
from loopspec.model.wire import event_to_wire
from loopspec.properties.conformance.command_codec import (
    ProtocolError,
    command_from_json,
    command_to_json,
    config_from_json,
    config_to_json,
)
from loopspec.properties.conformance.driver_protocol import protocol_schema
from loopspec.properties.stateful import strategies as gen


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
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
        ({"kind": "Dance"}, "$.kind must be SubmitUser, ModelReplies"),
        # A tag left out is missing, as a field is; it read "must be ..., not nothing".
        ({}, "$.kind is missing; it must be SubmitUser, ModelReplies"),
        ({"kind": None}, ", Crash or Recover, not null"),
        ({"kind": "ToolFinishes", "callId": "c", "outcome": {}}, "$.outcome.ok is missing; it"),
        # A misspelt kind is named with the nearest, as a misspelt field is (it was not).
        ({"kind": "SubmitUsr", "text": "hi"}, 'not "SubmitUsr" (did you mean SubmitUser?)'),
        (
            {"kind": "ModelReplies", "finish": "completed", "blocks": [{"type": "tool_call"}]},
            'not "tool_call" (did you mean tool-call?)',
        ),
        ({"kind": "SubmitUser"}, "$.text is missing; it must be a string"),
        ({"kind": "SubmitUser", "text": None}, "$.text must be a string"),
        (
            {"kind": "ModelReplies", "finish": "completed"},
            "$.blocks is missing; it must be an array",
        ),
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


def test_PROTO_1_a_configuration_declaring_a_tool_twice_is_refused_naming_both() -> None:
    """PROTO-1: a configuration (a case file's `config`, edited by hand) that declares one tool
    name twice is refused naming both places. It decoded, and replay then reported "the target
    failed in apply" — the bundled loop refusing the duplicate — blaming the target for the
    case file's mistake."""
    wire = config_to_json(gen.CONFIGS[0])
    tools = wire["tools"]
    wire["tools"] = [*tools, {**tools[0]}]
    with pytest.raises(ProtocolError) as error:
        config_from_json(wire)
    assert str(error.value).endswith(
        f"$.config.tools[{len(tools)}].name: tool {json.dumps(tools[0]['name'])} is declared twice "
        "(first at $.config.tools[0])"
    )


@pytest.mark.parametrize(
    ("wire", "decode", "complaint"),
    [
        (
            {
                "kind": "ToolFinishes",
                "callId": "c1",
                "outcome": {"ok": False, "message": "boom", "errorName": "E", "cdoe": "E_BOOM"},
                "post": [],
            },
            command_from_json,
            "$.outcome.cdoe is not a field here (did you mean code?); the fields here are ok, "
            "message, code, errorName",
        ),
        (
            {"kind": "HookAnswers", "verdict": {"decision": "allow", "updatedInptu": {"a": 1}}},
            command_from_json,
            "$.verdict.updatedInptu is not a field here (did you mean updatedInput?)",
        ),
        (
            {"kind": "ToolFinishes", "callid": "c1", "outcome": {"ok": True, "text": ""}},
            command_from_json,
            "$.callid is not a field here (did you mean callId?)",
        ),
        (
            {**config_to_json(gen.CONFIGS[0]), "maxParalel": 1},
            config_from_json,
            "$.config.maxParalel is not a field here (did you mean maxParallel?)",
        ),
    ],
    ids=["optional outcome field", "optional verdict field", "required field", "config"],
)
def test_PROTO_1_a_misspelt_field_is_refused_not_ignored(
    wire: object, decode: Any, complaint: str
) -> None:
    """PROTO-1: a member a command or configuration does not have — a misspelt optional field
    above all — is refused naming it and the nearest field. It was ignored: a case file edited
    by hand (`"cdoe"` for `"code"`) replayed another program than the one it shows."""
    with pytest.raises(ProtocolError) as error:
        decode(wire)
    assert complaint in str(error.value)
    _agree(wire, decode, "#/$defs/command" if decode is command_from_json else "#/$defs/config")


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
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


# ---------------------------------------------------------------------------------------------
# The decoder and the published schema are generated from one layout (`wire_layout`): on any
# command or configuration, well-formed or broken in one place, they agree.

_OTHER_VALUES: tuple[object, ...] = ("x", "", 7, 1.5, True, None, [], {}, [1], {"a": 1}, -1)


def _at(value: Any, place: tuple[str | int, ...]) -> Any:
    for step in place:
        value = value[step]
    return value


def _agree(wire: object, decode: Any, schema_ref: str) -> None:
    validator = Draft202012Validator({**protocol_schema(), "$ref": schema_ref})
    valid = not list(validator.iter_errors(wire))
    try:
        decode(wire)
        decoded = True
    except ProtocolError:
        decoded = False
    assert decoded == valid, f"decoder {'accepts' if decoded else 'refuses'} {wire!r}"


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(max_examples=300, deadline=None)
@given(command=gen.any_commands, data=st.data())
def test_PROTO_1_the_decoder_accepts_exactly_what_the_schema_accepts(
    command: Command, data: st.DataObject
) -> None:
    """PROTO-1: a command broken in one place (a value of another type, a key removed, a tag
    changed) is refused by `command_from_json` exactly when `loopspec schema` rejects it."""
    wire = command_to_json(command)
    _agree(wire, command_from_json, "#/$defs/command")
    inside = places(wire)
    place = data.draw(st.sampled_from(inside)) if inside else None
    if place is None:
        return
    how = data.draw(st.sampled_from([DROP, *_OTHER_VALUES]))
    _agree(broken(wire, place, how), command_from_json, "#/$defs/command")
    # A member added to an object inside: refused by both, unless it lies inside a JSON value
    # the protocol carries as it is (an `updatedInput`, a `meta`), where both take it.
    objects = [p for p in ((), *inside) if isinstance(_at(wire, p), dict)]
    added = (*data.draw(st.sampled_from(objects)), "unexpected")
    _agree(broken(wire, added, 1), command_from_json, "#/$defs/command")


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(max_examples=150, deadline=None)
@given(config=st.sampled_from(gen.CONFIGS), data=st.data())
def test_PROTO_1_the_config_decoder_accepts_exactly_what_the_schema_accepts(
    config: LoopConfig, data: st.DataObject
) -> None:
    """PROTO-1: the same for configurations (a bound such as maxParallel >= 1 included)."""
    wire = config_to_json(config)
    place = data.draw(st.sampled_from(places(wire)))
    how = data.draw(st.sampled_from([DROP, 0, *_OTHER_VALUES]))
    _agree(broken(wire, place, how), config_from_json, "#/$defs/config")
    objects = [p for p in ((), *places(wire)) if isinstance(_at(wire, p), dict)]
    added = (*data.draw(st.sampled_from(objects)), "unexpected")
    _agree(broken(wire, added, 1), config_from_json, "#/$defs/config")


_HOOK = config_to_json(LoopConfig(hooks=(HookSpec("h"),)))["hooks"][0]
_BLOCK = {"decision": "block"}


@pytest.mark.parametrize(
    ("wire", "decode", "rule", "complaint"),
    [
        (
            {"kind": "HookAnswers", "verdict": {"decision": "allow"}, "audit": _BLOCK},
            command_from_json,
            "HOOK-1",
            '$: an audit recording "block" contradicts the hook\'s Allow verdict',
        ),
        (
            {**config_to_json(LoopConfig()), "hooks": [{**_HOOK, "matcher": "\\d+"}]},
            config_from_json,
            "HOOK-8",
            "$.config.hooks[0]: hook h has a matcher outside the portable subset",
        ),
        (
            {**config_to_json(LoopConfig()), "hooks": [_HOOK, _HOOK]},
            config_from_json,
            "HOOK-1",
            # Where, and which: it said only "$.config: hook handler ids must be unique".
            '$.config.hooks[1].handlerId: hook "h" is declared twice (first at $.config.hooks[0])',
        ),
    ],
    ids=["audit word", "matcher", "handler ids"],
)
def test_HOOK_1_HOOK_8_a_value_the_model_refuses_names_the_models_rule_not_PROTO_1(
    wire: object, decode: Any, rule: str, complaint: str
) -> None:
    """HOOK-1, HOOK-8: JSON of the right shape whose value the model refuses is refused under
    the rule the model names, not PROTO-1 (a case file's audit word contradicting its verdict
    read "[PROTO-1] ...", sending its reader to the driver protocol for a HOOK-1 fault)."""
    with pytest.raises(ProtocolError) as error:
        decode(wire)
    assert error.value.rule_id == rule
    assert error.value.message.startswith(complaint), error.value.message


def test_PROTO_1_a_duration_too_large_for_a_float_decodes_as_the_finite_number_it_is() -> None:
    """PROTO-1, HOOK-1: the schema takes any JSON number as a hook audit's duration, and the
    model an integer too large for a float as the finite number it is. The decoder converted
    it with float() and a case holding one was refused as malformed, 'int too large to convert
    to float', naming no path."""
    huge = 10**400
    wire = {"kind": "HookAnswers", "verdict": {"decision": "pass"}, "audit": {"durationMs": huge}}
    command = command_from_json(wire)
    assert command_to_json(command) == wire


@pytest.mark.parametrize(
    ("epoch", "said"),
    [
        (-1, "$.config.epochMs must be at least 0, not -1"),
        (2**53, f"$.config.epochMs must be at most {2**53 - 1}, not {2**53}"),
    ],
)
def test_LOG_5_a_clock_start_no_session_header_can_record_is_refused_where_it_is_read(
    epoch: int, said: str
) -> None:
    """LOG-5: the clock's start is the session header's createdAt, a whole number from 0 to
    2^53 - 1. A case holding another was read, and the bundled loop failed at Recover on the
    header it had written, blamed as the target's fault; the schema, which a hand-edited case
    is checked with, allowed it too."""
    wire = {**config_to_json(LoopConfig()), "epochMs": epoch}
    with pytest.raises(ProtocolError) as refused:
        config_from_json(wire)
    assert refused.value.message == said
    schema = protocol_schema()["$defs"]["config"]["properties"]["epochMs"]
    assert (schema["minimum"], schema["maximum"]) == (0, 2**53 - 1)
    with pytest.raises(InvalidEventError) as refused_by_the_model:
        LoopConfig(epoch_ms=epoch)
    assert refused_by_the_model.value.rule_id == "LOG-5"


def test_PROTO_1_a_null_meta_in_an_outcome_is_no_meta() -> None:
    """PROTO-1: `"meta": null` in a success is the outcome without `meta`, whose tool/result
    has no `meta` member (the schema's words say so)."""
    outcome = {"ok": True, "text": "a", "contexts": []}
    finish = {"kind": "ToolFinishes", "callId": "c1", "post": []}
    with_null = command_from_json({**finish, "outcome": {**outcome, "meta": None}})
    assert with_null == command_from_json({**finish, "outcome": outcome})
    state = run(
        PLAIN,
        [
            SubmitUser("a"),
            ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a"}'),)),
            with_null,
        ],
    )
    (result,) = [event_to_wire(e) for e in results(state.log)]
    assert "meta" not in result["data"]
    assert "null, like no meta, is none" in json.dumps(protocol_schema())
