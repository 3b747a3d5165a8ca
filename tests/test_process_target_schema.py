"""ProcessTarget's quick schema check of an answer gives the full schema's verdict.

`process_target._surely_valid` checks an answer's events by their own type's branch of the event
schema, and remembers events found valid by their JSON without seq and time. It may say "maybe
not" (the full schema then decides and explains), but it must never pass an answer the full
schema fails.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from json_breaks import DROP, broken, places

from loopspec.properties.conformance import process_target
from loopspec.properties.conformance.command_codec import command_from_json, config_from_json
from loopspec.properties.conformance.driver_protocol import FROM_IMPLEMENTATION
from loopspec.properties.conformance.schema_shape import UNKNOWN, shaper
from loopspec.properties.conformance.target import ModelTarget

CONFIG = {
    "tools": [
        {"name": "read", "concurrencySafe": True, "requiredKeys": ["key"]},
        {"name": "write", "concurrencySafe": False, "requiredKeys": []},
    ],
    "hooks": [],
    "maxParallel": 4,
    "provider": "scripted",
    "model": "scripted-model",
    "epochMs": 1_700_000_000_000,
}
CALLS = [
    {"type": "text", "text": "let me look"},
    {"type": "tool-call", "id": "c1", "name": "read", "arguments": '{"key":"a"}'},
    {"type": "tool-call", "id": "c2", "name": "write", "arguments": "{}"},
]
PROGRAM = [
    {"kind": "SubmitUser", "text": "hi"},
    {"kind": "ModelReplies", "finish": "completed", "blocks": CALLS},
    {
        "kind": "ToolFinishes",
        "callId": "c1",
        "outcome": {"ok": True, "text": "A", "contexts": ["from c1"]},
        "post": [],
    },
    {
        "kind": "ToolFinishes",
        "callId": "c2",
        "outcome": {"ok": False, "message": "boom", "errorName": "ToolError", "code": "E"},
        "post": [],
    },
    {"kind": "ModelReplies", "finish": "completed", "blocks": [{"type": "text", "text": "ok"}]},
]
WRONG_VALUES: tuple[object, ...] = (None, -1, "", 1.5, [], {}, True, "x")


def _answers() -> list[dict[str, Any]]:
    """The model's answers to PROGRAM, as a process would send them."""
    model = ModelTarget()
    model.reset(config_from_json(CONFIG))
    answers = []
    kept = 0
    for seq, command in enumerate(PROGRAM):
        observation = model.apply(command_from_json(command))
        assert observation.accepted
        appended = [message for event in observation.events if (message := _message(event))]
        answers.append(
            {
                "type": "observed",
                "seq": seq,
                "accepted": True,
                "events": [dict(event) for event in observation.events],
                "commits": list(observation.commits),
                "executed": [{"callId": c, "arguments": a} for c, a in observation.executed],
                "history": {"kept": kept, "appended": appended},
            }
        )
        kept += len(appended)
    parsed: list[dict[str, Any]] = json.loads(json.dumps(answers))  # as read from a line
    return parsed


def _message(event: dict[str, Any]) -> dict[str, Any] | None:
    """The message a message event carries (what a history appends), else None."""
    if event["type"] == "user/message":
        return dict(event["data"])
    if event["type"] in ("assistant/message", "tool/result"):
        return dict(event["data"]["message"])
    return None


def _fully_valid(answer: object) -> bool:
    return bool(process_target._validators().answer.is_valid(answer))


def test_PROTO_1_the_quick_answer_check_passes_what_the_schema_passes() -> None:
    """Valid answers take the quick path (twice: the second time from remembered events)."""
    answers = _answers()
    assert sum(len(answer["events"]) for answer in answers) >= 10
    for answer in answers:
        assert _fully_valid(answer)
        assert process_target._surely_valid(answer)
        assert process_target._surely_valid(answer)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_PROTO_1_the_quick_answer_check_never_passes_what_the_schema_fails() -> None:
    """Answers broken at random places (a wrong value, a missing field), each checked after its
    valid original was remembered: the quick check passes none the full schema fails."""
    rng = random.Random(15)
    failed_by_schema = 0
    for answer in _answers():
        assert process_target._surely_valid(answer)
        paths = places(answer)
        for _ in range(30):
            place = rng.choice(paths)
            # A member (a key, not an index) is sometimes removed rather than changed.
            drop = isinstance(place[-1], str) and rng.random() < 0.25
            damaged = broken(answer, place, DROP if drop else rng.choice(WRONG_VALUES))
            if not _fully_valid(damaged):
                failed_by_schema += 1
                assert not process_target._surely_valid(damaged), place
    assert failed_by_schema >= 50  # the mutations do break answers


def _with_fresh_ids(answer: dict[str, Any], shift: int) -> dict[str, Any]:
    """`answer` as a loop with its own message ids (a UUID each) and a longer log would send
    it: every message id new, every seq and cited seq `shift` later, another clock."""
    fresh = copy.deepcopy(answer)
    fresh["seq"] += shift
    fresh["history"]["kept"] += shift
    for event in fresh["events"]:
        event["seq"] += shift
        event["time"] += 7
        if "sourceEventSeqs" in event:
            event["sourceEventSeqs"] = [seq + shift for seq in event["sourceEventSeqs"]]
        data = event["data"]
        message = data if event["type"] == "user/message" else data.get("message")
        if isinstance(message, dict) and "id" in message:
            message["id"] = f"msg_{shift}_{event['seq']}"
    for index, message in enumerate(fresh["history"]["appended"]):
        message["id"] = f"msg_{shift}_history_{index}"
    return fresh


def test_PROTO_1_an_event_that_differs_only_in_free_values_is_checked_from_memory() -> None:
    """An event the quick check found valid is remembered without what the schema leaves free
    (seq, time, cited seqs, a message's id): the same events with a fresh id per message, as
    a loop that makes UUIDs sends them, are not checked by the schema again (half the js-loop's
    events were, each a fifth of a millisecond or more); nor are the messages a history
    appends (HIST-1), checked apart from the answer since a third of conform's CPU went to
    checking them with it; nor is the rest of an answer that differs in its seq and its
    history's `kept` alone."""
    answers = _answers()
    for answer in answers:
        assert process_target._surely_valid(answer)
    remembered = [len(process_target._VALID_EVENTS), len(process_target._VALID_MESSAGES)]
    remembered.append(len(process_target._VALID_SHELLS))
    for answer in answers:
        fresh = _with_fresh_ids(answer, 100)
        assert _fully_valid(fresh)
        assert process_target._surely_valid(fresh)
    now = [len(process_target._VALID_EVENTS), len(process_target._VALID_MESSAGES)]
    now.append(len(process_target._VALID_SHELLS))
    assert now == remembered
    cited = [e for a in answers for e in a["events"] if e.get("sourceEventSeqs")]
    assert cited, "PROGRAM cites seqs (a tool/result)"


def _free_places(answer: dict[str, Any]) -> list[tuple[str | int, ...]]:
    """Every place whose value the quick check remembers an answer without: the answer's seq,
    its history's kept, each event's seq, time and cited seqs, each message's id."""
    found: list[tuple[str | int, ...]] = [("seq",), ("history", "kept")]
    for index, event in enumerate(answer["events"]):
        found += [("events", index, "seq"), ("events", index, "time")]
        for at, _ in enumerate(event.get("sourceEventSeqs", [])):
            found.append(("events", index, "sourceEventSeqs", at))
        data = event["data"]
        inside = () if event["type"] == "user/message" else ("message",)
        message = data if not inside else data.get("message")
        if isinstance(message, dict) and "id" in message:
            found.append(("events", index, "data", *inside, "id"))
    found += [
        ("history", "appended", at, "id") for at, _ in enumerate(answer["history"]["appended"])
    ]
    return found


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_PROTO_1_a_wrong_value_where_the_quick_check_remembers_none_is_not_passed() -> None:
    """Each value an answer is remembered without (seq, kept, an event's seq, time or cited seq,
    a message's id), set to each wrong value after its valid original was remembered: the quick
    check passes none the full schema fails. The random breaks reach these places too seldom
    (a kept of -1 passed unnoticed when the check of its sign was taken out)."""
    failed_by_schema = 0
    for answer in _answers():
        assert process_target._surely_valid(answer)
        for place in _free_places(answer):
            for wrong in (*WRONG_VALUES, DROP):
                damaged = broken(answer, place, wrong)
                if not _fully_valid(damaged):
                    failed_by_schema += 1
                    assert not process_target._surely_valid(damaged), (place, wrong)
    assert failed_by_schema >= 200


def _model_events() -> list[dict[str, Any]]:
    """Every distinct event the model logs in the exhaustive programs of 4 commands (hooks,
    approvals, aborts, crashes) and in section 12's sweep (every presenter's tool, texts,
    errors, meta), with their settling tails, as a process would send them."""
    from loopspec.properties.conformance.exhaustive import (  # noqa: PLC0415
        EXHAUSTIVE_CONFIG,
        programs,
    )
    from loopspec.properties.conformance.presentation_sweep import (  # noqa: PLC0415
        SWEEP_CONFIG,
        sweep_programs,
    )
    from loopspec.properties.conformance.profile_check import settling_command  # noqa: PLC0415

    runs = [(EXHAUSTIVE_CONFIG, program) for program in programs(4)]
    runs += [(SWEEP_CONFIG, program) for program in sweep_programs({"result-meta"})]
    found: dict[str, dict[str, Any]] = {}
    for config, program in runs:
        model = ModelTarget()
        model.reset(config)
        queue = list(program)
        while queue:
            assert model.state is not None
            for event in model.apply(queue.pop(0)).events:
                line = json.dumps(event, sort_keys=True)
                found.setdefault(line, json.loads(line))
            settle = settling_command(model.state.phase, config)
            if not queue and settle is not None and len(found) < 5000:
                queue.append(settle)
    return list(found.values())


# The members `_renamed` gives other values: what a loop numbers, names or words differently
# from turn to turn. (What the schema asks nothing of, as `meta`, is remembered as it is.)
_RENAMED = frozenset(
    {"turn", "step", "callId", "id", "toolCallId", "text", "name", "arguments", "handlerId"}
)


def _renamed(event: dict[str, Any], shift: int) -> dict[str, Any]:
    """`event` as another, valid, turn of a loop would log it: each integer of `_RENAMED`
    `shift` more, each string of it longer by a suffix (texts inside `meta`, `usage`, an
    `updatedInput` or an error are left alone)."""

    def renamed(value: object, key: object = None) -> object:
        if key in ("meta", "usage", "updatedInput", "error"):
            return value
        if isinstance(value, dict):
            return {k: renamed(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [renamed(item, key) for item in value]
        if key in _RENAMED and type(value) is int:
            return value + shift
        if key in _RENAMED and isinstance(value, str):
            return f"{value}~{shift}"
        return value

    return {**event, "data": renamed(event["data"])}


def _full_event_validator() -> Any:
    from jsonschema import Draft202012Validator  # noqa: PLC0415

    defs = FROM_IMPLEMENTATION["$defs"]
    return Draft202012Validator({**defs["event"], "$defs": defs})


def _checked_quickly(event: dict[str, Any]) -> bool:
    validators = process_target._validators().events
    validator = validators.get(event["type"], validators[None])
    return process_target._event_valid(event, validator)


@pytest.mark.no_cover
def test_PROTO_1_an_event_of_another_turn_step_call_or_text_is_checked_from_memory() -> None:
    """Events are remembered by their shape under the schema (`schema_shape`): the model's events
    again with other turns, steps, call ids, names, arguments and texts (all valid) are not
    checked by the schema again. Remembered by their JSON, about half the js-loop's events
    were, each a fifth of a millisecond or more."""
    events = _model_events()
    assert len(events) >= 100
    for event in events:
        assert _checked_quickly(event)
    remembered = len(process_target._VALID_EVENTS)
    for event in events:
        again = _renamed(event, 3)
        assert _full_event_validator().is_valid(again)
        assert _checked_quickly(again)
    assert len(process_target._VALID_EVENTS) == remembered


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_PROTO_1_events_remembered_alike_have_one_verdict_under_the_full_schema() -> None:
    """The model's events, each also renamed (valid) and broken in each place of its data (a
    wrong value of each kind, the member dropped): events with one key in the memory
    (`_remembered_as`) all get one verdict from the full event schema, so what the memory
    passes the schema passes; and the quick check of each gives the full schema's verdict."""
    full = _full_event_validator()
    verdicts: dict[str, set[bool]] = {}
    broken_events = 0
    events = _model_events()
    by_key: dict[str | None, list[dict[str, Any]]] = {}
    for event in events:  # a few of each key are broken: all of them took a minute
        by_key.setdefault(process_target._remembered_as(event), []).append(event)
    for event in (event for alike in by_key.values() for event in alike[:3]):
        variants = [event, _renamed(event, 1), _renamed(event, 40)]
        for place in places(event["data"]):
            for wrong in (*WRONG_VALUES, DROP, 0, 1, False):
                variants.append(broken(event, ("data", *place), wrong))
        for variant in variants:
            valid = full.is_valid(variant)
            broken_events += not valid
            key = process_target._remembered_as(variant)
            if key is not None:
                verdicts.setdefault(key, set()).add(valid)
            assert _checked_quickly(variant) == valid, variant
    assert broken_events >= 1000  # the breaks do break events
    shared = [key for key, seen in verdicts.items() if len(seen) > 1]
    assert not shared, shared[:3]
    assert len(verdicts) < broken_events  # many events do share a key


@pytest.mark.parametrize(
    ("schema", "value", "shape"),
    [
        # A list of types is not a leaf the module knows: the value is kept as it is.
        ({"type": ["string", "null"]}, None, None),
        ({"type": ["string", "null"]}, "text", "text"),
        (
            {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}},
            {"n": 7},
            {"n": 7},
        ),
        # JSON Schema's integer takes no bool: left to the schema.
        ({"type": "integer", "minimum": 1}, True, UNKNOWN),
        ({"type": "integer", "minimum": 1}, 9, 1),
    ],
    ids=["types-null", "types-text", "types-in-an-object", "bool-as-integer", "integer"],
)
def test_PROTO_1_a_schema_form_the_shaper_does_not_know_keeps_the_value(
    schema: dict[str, Any], value: object, shape: object
) -> None:
    """`schema_shape` keeps a value as it is under any form it does not handle, so its verdict
    stays the schema's; a `type` naming a list of types raised TypeError (unhashable list)
    where the module says such forms are kept as they are."""
    got = shaper(schema, {})(value)
    if shape is UNKNOWN:
        assert got is UNKNOWN
    else:
        assert got == shape


def test_PROTO_1_of_events_breaking_the_schema_alike_the_first_is_named() -> None:
    """PROTO-1: an answer whose every event lacks its `seq` (a loop writing `se`) is named at
    the first of them, where jsonschema's ranking of siblings named the last, events/2, and a
    reader of the loop looked at its third event."""
    answer = {
        "type": "observed",
        "seq": 0,
        "accepted": True,
        "events": [
            {"type": "turn/start", "se": 0, "time": 1, "data": {"turn": 1}},
            {"type": "step/start", "se": 1, "time": 2, "data": {"turn": 1, "step": 1}},
        ],
        "commits": [2],
        "executed": [],
    }
    wrong = process_target._most_specific_error(answer)
    assert (list(wrong.absolute_path), wrong.message) == (
        ["events", 0],
        "'seq' is a required property",
    )
