"""The driver protocol's JSON Schema is the codec's contract, generated from the same types.

Every command loopspec encodes, every configuration, and every event and observation the model
produces validates against `loopspec schema`; the schema's command and configuration parts are
generated from the attrs classes the codec builds, its events from the event classes the wire
codec writes; and a message that does not validate is explained by the field that is wrong and
what was expected there.
"""

from __future__ import annotations

import contextlib
import importlib
import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopspec.model.commands import (
    Abort,
    ApprovalAnswers,
    Ask,
    Command,
    HookAnswers,
    ModelReplies,
    Pass,
    SubmitUser,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.errors import TransitionRefused
from loopspec.model.events import CORE_TYPES, event_type
from loopspec.model.messages import ToolCallBlock
from loopspec.model.state import LoopState
from loopspec.model.transitions import step
from loopspec.model.wire import event_to_wire
from loopspec.properties import pytest_plugin
from loopspec.properties.cli.main import main
from loopspec.properties.conformance import driver_protocol, process_target
from loopspec.properties.conformance.command_codec import (
    command_from_json,
    command_to_json,
    config_to_json,
)
from loopspec.properties.conformance.driver_protocol import (
    COMMAND_SCHEMA,
    EVENT_SCHEMA,
    REFUSAL_RULES,
    explain,
    protocol_schema,
)
from loopspec.properties.conformance.history_change import history_wire
from loopspec.properties.conformance.process_target import DEFAULT_TIMEOUT
from loopspec.properties.conformance.target import ModelTarget
from loopspec.properties.stateful import strategies as gen

ROOT = Path(__file__).resolve().parent.parent
TO = {"$ref": "#/$defs/toImplementation"}
BASH_X = ToolCallBlock("c1", "bash", '{"command":"ls"}')
FROM = {"$ref": "#/$defs/fromImplementation"}


def _observed(seq: int, observation: Any) -> dict[str, Any]:
    if not observation.accepted:
        refusal = {"rule": observation.refusal_rule, "message": observation.refusal_message}
        return {"type": "observed", "seq": seq, "accepted": False, "refusal": refusal}
    return {
        "type": "observed",
        "seq": seq,
        "accepted": True,
        "events": list(observation.events),
        "commits": list(observation.commits),
        "executed": [{"callId": c, "arguments": a} for c, a in observation.executed],
        "presented": list(observation.presented or ()),
        "history": history_wire(observation.history),
    }


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(max_examples=60, deadline=None)
@given(config=st.sampled_from(gen.CONFIGS), data=st.data())
def test_PROTO_1_the_models_answers_satisfy_the_schema(config: Any, data: st.DataObject) -> None:
    """PROTO-1: for random programs, every command sent, and every observation the model gives
    (events with their exact data shapes, refusals with their rule), validates."""
    assert explain(TO, {"type": "reset", "protocol": 1, "config": config_to_json(config)}) is None
    model = ModelTarget()
    model.reset(config)
    for seq in range(data.draw(st.integers(1, 25), label="length")):
        assert model.state is not None
        command = data.draw(_fitting(model), label="command")
        wire = command_to_json(command)
        assert explain(TO, {"type": "command", "seq": seq, "command": wire}) is None
        assert command_from_json(wire) == command
        answer = _observed(seq, model.apply(command))
        assert explain(FROM, answer) is None, answer


def _fitting(model: ModelTarget) -> st.SearchStrategy[Command]:
    """Mostly commands the phase accepts, so programs reach deep; sometimes anything."""
    assert model.state is not None
    phase = type(model.state.phase).__name__
    fitting: dict[str, st.SearchStrategy[Command]] = {
        "Idle": gen.texts.map(SubmitUser),
        "AwaitingModel": gen.model_replies(1),
    }
    return st.one_of(fitting.get(phase, gen.any_commands), gen.any_commands)


def test_PROTO_1_command_schemas_come_from_the_command_classes() -> None:
    """PROTO-1: each command's schema lists exactly its class's fields, in wire names."""
    variants = {rule["if"]["properties"]["kind"]["const"]: rule["then"]
                for rule in COMMAND_SCHEMA["allOf"]}  # fmt: skip
    from loopspec.model import commands  # noqa: PLC0415  # the classes, by their names

    for kind, schema in variants.items():
        cls = getattr(commands, kind)
        wire = {_camel(f.name) for f in attrs.fields(cls)}
        assert set(schema["properties"]) == {"kind", *wire}, kind
        assert schema["description"]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def test_PROTO_1_every_core_event_type_has_its_data_shape() -> None:
    """PROTO-1: the schema types every core event's `data`, not `{}`."""
    typed = {rule["if"]["properties"]["type"]["const"] for rule in EVENT_SCHEMA["allOf"]}
    assert typed == set(CORE_TYPES)
    for rule in EVENT_SCHEMA["allOf"]:
        assert rule["then"]["properties"]["data"], rule["if"]


_RESULT = {
    "type": "tool/result", "seq": 4, "time": 0, "surfaceOp": "append", "sourceEventSeqs": [3],
    "data": {"turn": 1, "step": 1, "meta": {"any": "member"}, "message": {
        "role": "user", "id": "t1", "source": {"kind": "tool", "callId": "c1"},
        "content": [{"type": "tool-result", "toolCallId": "c1", "isError": False,
                     "content": [{"type": "text", "text": "a"}]}]}},
}  # fmt: skip
_CALL = {
    "type": "tool/call", "seq": 3, "time": 0,
    "data": {"turn": 1, "step": 1, "callId": "c1", "name": "bash", "arguments": "{}",
             "rewrite": {"originalArguments": "[]", "handlerIds": ["h"]}},
}  # fmt: skip


@pytest.mark.parametrize(
    ("event", "place"),
    [(_CALL, ()), (_CALL, ("data",)), (_CALL, ("data", "rewrite")), (_RESULT, ("data",))],
)
def test_LOG_4_PROTO_1_a_reported_event_holds_the_members_its_type_defines_alone(
    event: dict[str, Any], place: tuple[str | int, ...]
) -> None:
    """LOG-4, PROTO-1: the schema describes the events a target reports, which conform
    compares member for member with the model's (which writes none of a type's undefined
    members): it allowed any member more, where conform then named LOG-4 for it; it now
    refuses one in an event's envelope, data and a sidecar (`additionalProperties: false`).
    A `--cmd` target's answer holding one is still read, not refused (the comparison names
    LOG-4, where a profile may know the member as its harness's: the real CLIs' driver writes
    a hook's `reason` on its hook/result), unless it breaks the schema otherwise too. An
    opaque event, a member holding any JSON (`meta`), and a message, its source and blocks
    (the shapes of a reported history's messages too, where dsh writes members of its own)
    stay open."""
    reported = json.loads(json.dumps(event))
    answer: dict[str, Any] = {"type": "observed", "seq": 1, "accepted": True, "commits": [1],
                              "executed": [], "events": [reported]}  # fmt: skip
    assert explain(FROM, answer) is None
    held: Any = reported
    for key in place:
        held = held[key]
    held["traceId"] = "x"
    said = explain(FROM, answer)
    assert said is not None
    assert "traceId" in said, said
    assert process_target.undefined_members_only(answer)
    assert not process_target.undefined_members_only({**answer, "commits": "one"})
    opaque = {"type": "session/title", "seq": 0, "time": 0, "data": {"title": "t"}, "x": 1}
    kept_open = [opaque]
    for inside in ("meta", "message", ("message", "source"), ("message", "content", 0)):
        result = json.loads(json.dumps(_RESULT))
        held = result["data"]
        for key in (inside,) if isinstance(inside, str) else inside:
            held = held[key]
        held["traceId"] = "x"
        kept_open.append(result)
    for valid in kept_open:
        assert explain(FROM, {**answer, "events": [valid]}) is None, valid


@pytest.mark.parametrize(
    ("message", "where", "expected"),
    [
        (
            {"type": "observed", "seq": 1, "accepted": True, "commits": [1], "executed": [],
             "events": [{"type": "turn/end", "seq": 5, "time": 0,
                         "data": {"turn": 1, "reason": "completed"}}]},
            "$.events[0].data.reason", 'is not of type "object"',
        ),
        (
            {"type": "observed", "seq": 1, "accepted": True, "commits": [1], "executed": [],
             "events": [{"type": "tool/call", "seq": 0, "time": 0,
                         "data": {"turn": 1, "step": 1, "callId": "c1", "name": "bash"}}]},
            "$.events[0].data", '"arguments" is a required property',
        ),
        (
            {"type": "observed", "seq": 1, "accepted": False, "refusal": {"rule": "no"}},
            "$.refusal", '"message" is a required property',
        ),
        (
            {"type": "ready", "implementation": "x", "capabilities": ["teleport"]},
            "$.capabilities[0]", "is not one of",
        ),
    ],
)  # fmt: skip
def test_PROTO_1_a_wrong_message_is_explained_by_its_field(
    message: dict[str, Any], where: str, expected: str
) -> None:
    """PROTO-1: validation names the JSON path of the wrong field and what was expected
    there, never only "is not valid under any of the given schemas"."""
    explained = explain(FROM, message)
    assert explained is not None
    assert explained.startswith(where + ":"), explained
    assert expected in explained
    assert "any of the given schemas" not in explained


def test_PROTO_1_refusal_rules_are_listed_with_their_meaning() -> None:
    """PROTO-1: the schema says which rule IDs a refusal names, and why each refuses."""
    schema = protocol_schema()
    assert schema["refusalRules"] == REFUSAL_RULES
    assert {"MODEL-1", "EXE-1", "EXE-4", "HOOK-5"} <= set(REFUSAL_RULES)


def test_PROTO_1_refusals_in_an_aborting_batch_name_the_rules_the_schema_lists() -> None:
    """PROTO-1: once an abort has landed and a body still drains, a second `Abort` is refused
    with ABORT-1 and an approval answer with DEC-2 (the abort cancelled the pending request):
    the schema's meaning of each rule names that case, so a loop in another language can refuse
    with the same rule the model does (conform compares refusal rules)."""
    tools = (ToolSpec("read", concurrency_safe=True, required_keys=("file_path",)),)
    config = LoopConfig(tools=tools, hooks=(HookSpec("asks", "PreToolUse", "read"),))
    program: list[Command] = [
        SubmitUser("a"),
        ModelReplies(
            (
                ToolCallBlock("c1", "read", '{"file_path":"a"}'),
                ToolCallBlock("c2", "read", '{"file_path":"b"}'),
            )
        ),
        HookAnswers(Pass()),
        HookAnswers(Ask()),  # c2's approval is asked at once while c1 runs
        Abort("user"),  # cancels it; c1 still drains
    ]
    state = LoopState(config)
    for command in program:
        state = step(state, command)
    assert "approval/decided" in [event_type(e) for e in state.log]  # the abort cancelled it
    refused = {}
    for late in (Abort("user"), ApprovalAnswers("allowed-once")):
        with pytest.raises(TransitionRefused) as refusal:
            step(state, late)
        refused[refusal.value.rule_id] = late.NAME
    assert refused == {"ABORT-1": "Abort", "DEC-2": "ApprovalAnswers"}
    assert "Abort" in REFUSAL_RULES["ABORT-1"]
    assert "abort" in REFUSAL_RULES["DEC-2"]


def test_PROTO_1_integers_beyond_doubles_reach_every_reader_whole() -> None:
    """PROTO-1: an integer a double cannot hold, in a hook's `updatedInput` as the protocol line
    carries it, reaches the audit and the call record digit for digit; the protocol's page warns
    a peer whose JSON parser reads numbers as doubles (a JavaScript loop written from the docs
    lost the digits and was blamed RW-2 with no word in the docs about why)."""
    big = 2**64 + 1
    verdict = f'{{"decision": "allow", "updatedInput": {{"command": "x", "n": {big}}}}}'
    line = f'{{"kind": "HookAnswers", "verdict": {verdict}}}'
    config = LoopConfig(
        tools=(ToolSpec("bash", required_keys=("command",)),),
        hooks=(HookSpec("rewrites", "PreToolUse", "bash"),),
    )
    state = LoopState(config)
    program: list[Command] = [SubmitUser("a"), ModelReplies((BASH_X,))]
    for command in [*program, command_from_json(json.loads(line))]:
        state = step(state, command)
    wired: list[Any] = json.loads(json.dumps([event_to_wire(e) for e in state.log]))
    (audit,) = [e["data"] for e in wired if e["type"] == "hook/result"]
    (record,) = [e["data"] for e in wired if e["type"] == "tool/call"]
    assert audit["updatedInput"]["n"] == big
    assert json.loads(record["arguments"])["n"] == big
    assert "2^53" in (driver_protocol.__doc__ or "")


def test_PROTO_1_the_schema_is_the_same_once_annotations_are_resolved() -> None:
    """PROTO-1: the schema reads the classes' field types whether attrs still holds them as
    text or something (cattrs, a type checker at runtime) resolved them to objects."""
    from loopspec.model import commands, config  # noqa: PLC0415  # the classes, resolved below

    before = json.dumps(protocol_schema(), sort_keys=True)
    for module in (commands, config):
        for value in vars(module).values():
            if isinstance(value, type) and attrs.has(value):
                with contextlib.suppress(NameError):  # names only a type checker imports
                    attrs.resolve_types(value)
    assert not isinstance(attrs.fields(commands.ToolFinishes).outcome.type, str)
    assert json.dumps(fresh_schema(), sort_keys=True) == before


def fresh_schema() -> dict[str, Any]:
    """The schema generated anew from the (now resolved) classes."""
    module = importlib.reload(driver_protocol)
    schema: dict[str, Any] = module.protocol_schema()
    return schema


def test_PROTO_1_conform_help_and_the_schema_say_where_the_protocol_is_explained(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: what a user of an installed loopspec reads about `--cmd` names the module whose
    documentation explains the protocol (what reset, Crash, `executed` mean, one answer line per
    message): the help said only 'see loopspec schema', whose JSON Schema gives the shapes
    alone, and the README named a file of loopspec's repository."""
    where = "python -m pydoc loopspec.properties.conformance.driver_protocol"
    for verb in ("conform", "replay"):
        with pytest.raises(SystemExit):
            main([verb, "--help"])
        assert where in " ".join(capsys.readouterr().out.split()), verb
    assert where in protocol_schema()["description"]
    assert '{"type": "reset", "protocol": 1, "config": CONFIG}' in (driver_protocol.__doc__ or "")


def test_PROTO_1_the_protocol_says_how_long_an_answer_is_awaited(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: a process has DEFAULT_TIMEOUT to answer each message, start-up included; the
    protocol's pages said nothing of it, so an implementer whose loop starts slowly learned it
    from a failed run (h3's Frank)."""
    documented = " ".join((driver_protocol.__doc__ or "").split())
    assert f"within {DEFAULT_TIMEOUT:g} seconds (the first `reset`'s answer" in documented
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"has {DEFAULT_TIMEOUT:g} s to answer each message" in readme
    # The options that change it say the same default (their help does not import the code).
    for where in (documented, readme):
        assert "--answer-timeout S" in where
        assert "--loopspec-answer-timeout S" in where
    default = f"(default {DEFAULT_TIMEOUT:g})"
    with pytest.raises(SystemExit):
        main(["conform", "--help"])
    conform = " ".join(capsys.readouterr().out.split())
    assert f"(the first reset) included; a later answer is a hang (PROTO-1) {default}" in conform
    helps: dict[str, str] = {}

    class Options:  # collects the help of each option the pytest plugin adds
        def getgroup(self, *_: object) -> Options:
            return self

        def addoption(self, name: str, **given: Any) -> None:
            helps[name] = given["help"]

    pytest_plugin.pytest_addoption(Options())  # type: ignore[arg-type]
    assert helps["--loopspec-answer-timeout"].endswith(f"included {default}")


def test_PROTO_1_the_protocol_says_a_refusal_names_the_models_rule() -> None:
    """PROTO-1: conform compares a refusal's rule with the model's (blame.refusals.refusal_rule), so
    the protocol's documentation says so and names where each refusal rule is listed; an
    implementer reading only the pydoc otherwise cannot tell that `rule` is checked."""
    documented = " ".join((driver_protocol.__doc__ or "").split())
    assert "`rule` is compared with the model's" in documented
    assert "`refusalRules`" in documented
