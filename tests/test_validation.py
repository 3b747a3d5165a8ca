"""Construction refuses invalid values (LOG-4 and the rules each validator names)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from spec_helpers import PLAIN, run

from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    HookAudit,
    ModelReplies,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.errors import InvalidEventError, TransitionRefused
from loopspec.model.events import (
    HookInvoked,
    HookResulted,
    OpaqueEvent,
    RewriteSidecar,
    StepStarted,
    TurnEnded,
    event_type,
)
from loopspec.model.jsonvalue import MAX_INT_DIGITS, FrozenMap, NotJsonError, freeze
from loopspec.model.messages import ToolCallBlock
from loopspec.model.wire import event_from_wire

INVALID: list[tuple[str, Callable[[], object], str]] = [
    ("LOG-3", lambda: Allow(updated_input={"x": float("nan")}), "NaN"),
    ("LOG-3", lambda: ToolSucceeded("t", meta={"f": object()}), "object"),
    ("STEP-4", lambda: ModelReplies((), "length"), "finish"),
    ("DEC-2", lambda: ApprovalAnswers("maybe"), "approval"),
    ("ABORT-1", lambda: Abort("boredom"), "cause"),
    ("HOOK-1", lambda: HookSpec("h", "OnWhatever"), "hook point"),
    ("HOOK-1", lambda: HookSpec(""), "handler id"),
    ("HOOK-8", lambda: HookSpec("h", matcher="("), "matcher"),
    ("SCHED-1", lambda: LoopConfig(max_parallel=0), "max_parallel"),
    ("HOOK-1", lambda: LoopConfig(hooks=(HookSpec("h"), HookSpec("h"))), "unique"),
    ("STEP-1", lambda: StepStarted(0, 0, 1, 0), ">= 1"),
    ("TURN-1", lambda: StepStarted(0, 0, True, 1), ">= 1"),
    ("RW-2", lambda: RewriteSidecar("{}", ()), "at least one hook"),
    ("HOOK-1", lambda: HookInvoked(0, 0, 1, "PreToolUse", "gemini", "h"), "dialect"),
    ("TURN-5", lambda: TurnEnded(0, 0, 1, FrozenMap({})), "kind"),
    ("LOG-4", lambda: ToolCallBlock("", "read", "{}"), "non-empty"),
]


@pytest.mark.parametrize(("rule", "make", "words"), INVALID)
def test_LOG_4_invalid_values_cannot_be_constructed(
    rule: str, make: Callable[[], object], words: str
) -> None:
    """LOG-4: each validator refuses its invalid value, names the rule and says why."""
    with pytest.raises(InvalidEventError) as error:
        make()
    assert error.value.rule_id == rule
    assert words in str(error.value)


def test_HOOK_1_a_duration_too_large_for_a_float_is_finite_where_no_reader_crashes() -> None:
    """HOOK-1: a hook's duration is a finite number, not negative. An integer too large for a
    float (JSON allows it; check reads it as finite) made the model's reader raise
    OverflowError in `math.isfinite`: `run --log` on such a log, a case or a target's answer
    ended in a traceback. A NaN, an infinity and a negative number are still refused."""
    huge = 10**400
    data = {"turn": 1, "point": "PreToolUse", "handlerId": "h", "decision": "pass"}
    row = {"type": "hook/result", "seq": 3, "time": 1, "data": {**data, "durationMs": huge}}
    event = event_from_wire(row)
    assert isinstance(event, HookResulted)
    assert event.duration_ms == huge
    assert HookAudit(duration_ms=huge).duration_ms == huge
    for wrong in (float("nan"), float("inf"), -1):
        with pytest.raises(InvalidEventError) as error:
            HookAudit(duration_ms=wrong)
        assert error.value.rule_id == "HOOK-1"
        with pytest.raises(InvalidEventError) as error:
            HookResulted(3, 1, 1, "PreToolUse", "h", "pass", wrong)
        assert error.value.rule_id == "HOOK-1"


def test_LOG_4_a_time_too_large_for_a_float_is_whole_milliseconds_where_no_reader_crashes() -> None:
    """LOG-4: an event's time is a number of whole milliseconds. An integer too large for a
    float (check reads it) made the model's reader raise OverflowError in `float(time)`, so
    `run --log` on such a log or a target's answer ended in a traceback. A time with a fraction
    is still refused."""
    huge = 10**400
    event = event_from_wire({"type": "turn/start", "seq": 0, "time": huge, "data": {"turn": 1}})
    assert event.time == huge
    with pytest.raises(InvalidEventError) as error:
        event_from_wire({"type": "turn/start", "seq": 0, "time": 1.5, "data": {"turn": 1}})
    assert (error.value.rule_id, "whole milliseconds" in str(error.value)) == ("LOG-4", True)


@pytest.mark.parametrize("sign", [1, -1])
def test_LOG_4_an_integer_one_digit_past_what_python_prints_is_refused_and_one_within_kept(
    sign: int,
) -> None:
    """LOG-4: an integer of more digits than Python will print could be frozen but never written
    back. Its bit length alone cannot tell 4,300 digits from 4,301 (both lie between three and
    four bits a digit), so freeze compares the value itself there; only a Hypothesis draw reached
    that comparison, so the coverage table moved between runs on whether one did."""
    largest = sign * (10**MAX_INT_DIGITS - 1)
    assert freeze(largest) == largest
    with pytest.raises(NotJsonError, match="integer too large to write as JSON"):
        freeze(sign * 10**MAX_INT_DIGITS)


def test_LOG_4_opaque_events_keep_their_own_type() -> None:
    """LOG-4: an opaque event reports its wire type."""
    assert event_type(OpaqueEvent("session/title", 0, 0, None)) == "session/title"


def test_ABORT_1_a_second_abort_is_refused_while_draining() -> None:
    """ABORT-1: once a batch is aborting, another abort is refused and changes nothing."""
    calls = (ToolCallBlock("c1", "read", '{"file_path":"a"}'),)
    state = run(PLAIN, [SubmitUser("a"), ModelReplies(calls), Abort()])
    with pytest.raises(TransitionRefused) as refusal:
        run(PLAIN, [SubmitUser("a"), ModelReplies(calls), Abort(), Abort()])
    assert refusal.value.rule_id == "ABORT-1"
    assert (
        run(
            PLAIN,
            [SubmitUser("a"), ModelReplies(calls), Abort(), ToolFinishes("c1", ToolSucceeded("A"))],
        ).log[: len(state.log)]
        == state.log
    )


def test_LOG_3_frozen_maps_compare_with_plain_mappings() -> None:
    """LOG-3: a frozen object equals the plain dict it snapshots, and nothing else."""
    frozen = FrozenMap({"a": 1})
    assert frozen == {"a": 1}
    assert frozen != [("a", 1)]
    assert hash(frozen) == hash(FrozenMap({"a": 1}))


def test_LOG_3_frozen_maps_refuse_item_assignment_through_their_storage() -> None:
    """LOG-3: even the storage behind a frozen map is a read-only view."""
    frozen = FrozenMap({"command": "ls"})
    with pytest.raises(TypeError):
        frozen._items["command"] = "rm -rf /"  # type: ignore[index]
    assert frozen["command"] == "ls"
