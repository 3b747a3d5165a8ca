"""What the checker's clean path saves in `Prefix`, held to the plain way: a reset skipped where
the event right before forgot as much (a turn's start after the last turn's end, a step's start
after its turn's start), and a call's record and a hook's answer built field by field.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopspec.model.facts import CallFact
from loopspec.model.prefix import HookAnswer, Prefix, RecordedCall
from loopspec.properties.logcheck.clean_events import clean_judges

PROFILE = settings()
SKIP_MARKS = ("reset_at", "reset_scope")


class ForgettingInFull(Prefix):
    """A prefix whose every event forgets in full: no reset is ever the event before's."""

    __slots__ = ()

    def _reset(self, scope: Any) -> None:
        super()._reset(scope)
        self.reset_at = -2  # no index follows it


def _plain(value: object) -> object:
    """`value` with the prefix's records as tuples of their fields (they compare by identity)."""
    if isinstance(value, (CallFact, HookAnswer, RecordedCall)):
        return tuple(_plain(getattr(value, name)) for name in type(value).__slots__)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _held(prefix: Prefix) -> dict[str, object]:
    return {
        name: _plain(getattr(prefix, name)) for name in Prefix.__slots__ if name not in SKIP_MARKS
    }


CALL_IDS = ("a", "b")
numbers = st.integers(1, 3)
folds = st.one_of(
    st.tuples(st.just("turn/start"), numbers),
    st.tuples(st.just("turn/end"), numbers),
    st.tuples(st.just("step/start"), numbers),
    st.tuples(st.just("step/end")),
    st.tuples(st.just("reply"), st.lists(st.sampled_from(CALL_IDS), unique=True, max_size=2)),
    st.tuples(st.just("tool/call"), st.sampled_from(CALL_IDS)),
    st.tuples(st.just("tool/result"), st.sampled_from(CALL_IDS)),
    st.tuples(
        st.just("hook"),
        st.sampled_from(["PreToolUse", "PostToolUse"]),
        st.sampled_from([*CALL_IDS, None]),
        st.sampled_from(["allow", "deny", "ask"]),
    ),
    st.tuples(
        st.just("approval"), st.sampled_from(CALL_IDS), st.sampled_from(["allowed-once", "no"])
    ),
)
# How far each fold moves the event index (`expected_seq - seq_drift`): by one, as every event's
# fold does (`Prefix.fold`, `LogMonitor.feed`, the clean judges), or by a compact row's run. (A
# turn's or step's start or end called alone, not moving it, forgets in full.)
steps_of_index = st.sampled_from([1, 1, 1, 2])


def _fold(prefix: Prefix, fold: tuple[Any, ...], seq: int) -> None:
    match fold:
        case ("turn/start", number):
            prefix.start_turn(number)
        case ("turn/end", number):
            prefix.end_turn(number)
        case ("step/start", number):
            prefix.start_step(number)
        case ("step/end",):
            prefix.end_step(seq)
        case ("reply", ids):
            calls = {
                call_id: (at, CallFact(call_id, "read", "{}")) for at, call_id in enumerate(ids)
            }
            prefix.take_distinct_reply(seq, calls)
        case ("tool/call", call_id):
            prefix.keep_call(seq, call_id, "{}", False)
        case ("tool/result", call_id):
            prefix.take_result(call_id, seq)
        case ("hook", point, call_id, decision):
            turn = prefix.open_turn or 1
            prefix.hook_invoked(turn, point, "policy", call_id, seq)
            answer = HookAnswer(seq, point, "policy", decision, None)
            prefix.take_hook_answer(turn, call_id, answer)
        case ("approval", call_id, outcome):
            prefix.ask_approval(seq, f"asked-{call_id}", call_id)
            prefix.decide_approval(seq, f"asked-{call_id}", outcome)
        case _:
            raise AssertionError(fold)


@pytest.mark.no_cover  # (the skips are reached by every checked log's turns and steps)
@settings(PROFILE, max_examples=PROFILE.max_examples * 3)
@given(st.lists(st.tuples(folds, steps_of_index), max_size=40))
def test_a_reset_skipped_after_the_event_before_s_leaves_what_a_full_one_leaves(
    sequence: list[tuple[tuple[Any, ...], int]],
) -> None:
    prefix, reference = Prefix(), ForgettingInFull()
    for seq, (fold, moves) in enumerate(sequence):
        for state in (prefix, reference):
            state.expected_seq += moves
            _fold(state, fold, seq)
        assert _held(prefix) == _held(reference), (seq, fold)


def _fields(record: HookAnswer | RecordedCall) -> dict[str, object]:
    return {name: getattr(record, name) for name in type(record).__slots__}


def test_a_record_and_an_answer_built_field_by_field_hold_what_their_constructors_fill() -> None:
    """`Prefix.keep_call` and the judge of hook/result build a call's record and a hook's answer
    without calling their class (a Python `__init__` costs each some 600 instructions): each
    holds every field, as the constructor fills it (red when a field is left out or swapped)."""
    prefix = Prefix()
    prefix.start_turn(1)
    prefix.hook_invoked(1, "PreToolUse", "policy", "call_a", 0)
    data = {
        "turn": 1,
        "point": "PreToolUse",
        "handlerId": "policy",
        "decision": "allow",
        "durationMs": 0.5,
        "callId": "call_a",
        "updatedInput": {"path": "b.txt"},
    }
    hook_result = {"type": "hook/result", "seq": 1, "time": 1, "data": data}
    prefix.expected_seq = 1
    assert clean_judges()["hook/result"](prefix, hook_result, 1)
    (answer,) = prefix.hook_results["call_a"]
    expected = HookAnswer(1, "PreToolUse", "policy", "allow", {"path": "b.txt"})
    assert _fields(answer) == _fields(expected)
    prefix.keep_call(2, "call_a", '{"path": "b.txt"}', True)
    record = prefix.call_records["call_a"]
    assert _fields(record) == _fields(RecordedCall(2, '{"path": "b.txt"}', True))
