"""Contracts at the core, checked by Hypothesis where CrossHair cannot reach (attrs values and
closed unions): the rewrite merge (`resolve_call`), the commit of a reply with its calls, and
the gate's liveness. Each contract is also run against the bug an audit planted for it and must
reject it: a contract that passes a wrong implementation proves nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mutants import _rewrite_only_in

from loopspec.model import rewrite
from loopspec.model.commands import Deny, ModelReplies, SubmitUser
from loopspec.model.config import LoopConfig
from loopspec.model.draft import Draft
from loopspec.model.events import AssistantMessageRecorded, ToolCallRecorded
from loopspec.model.jsonvalue import parse_arguments
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.pure import decisions
from loopspec.model.rewrite import INVALID, input_problem, resolve_call, supplied_input
from loopspec.model.state import ASK, DENY, HookVote, LoopState
from loopspec.model.transitions import step
from loopspec.properties.stateful.strategies import (
    CONFIGS,
    MALFORMED_ARGUMENTS,
    TOOL_NAMES,
    WIDE_ARGUMENTS,
    WIDE_REWRITES,
    pre_verdicts_for,
)

CONFIG: LoopConfig = CONFIGS[0]
PLANTED = settings(
    max_examples=300, derandomize=True, database=None, deadline=None, report_multiple_bugs=False
)


@st.composite
def calls_with_votes(
    draw: st.DrawFn, call_id: str = "c1"
) -> tuple[ToolCallBlock, tuple[HookVote, ...]]:
    """A call (sometimes malformed) and its hooks' answers in configured order."""
    name = draw(st.sampled_from(TOOL_NAMES))
    arguments = draw(st.sampled_from(WIDE_ARGUMENTS[name] + MALFORMED_ARGUMENTS))
    verdicts = draw(st.lists(pre_verdicts_for(name, WIDE_REWRITES), max_size=4))
    votes = tuple(HookVote(0, f"h{i}", verdict) for i, verdict in enumerate(verdicts))
    return ToolCallBlock(call_id, name, arguments), votes


def _suppliers(votes: tuple[HookVote, ...]) -> list[HookVote]:
    return [vote for vote in votes if supplied_input(vote.verdict) is not None]


def check_resolution(call: ToolCallBlock, votes: tuple[HookVote, ...]) -> None:
    """HOOK-2, HOOK-3, HOOK-6, RW-2, EXE-5: what the merge of one call's answers must give."""
    resolution = resolve_call(call, votes, CONFIG)
    if input_problem(call, CONFIG) is not None:
        assert resolution.decision == INVALID
        assert (resolution.arguments, resolution.sidecar) == (call.arguments, None)
        return
    assert resolution.decision != INVALID
    denied = any(isinstance(vote.verdict, Deny) for vote in votes)
    suppliers = _suppliers(votes)
    if denied or not suppliers:
        # A deny discards every rewrite; without one, the model's own words stand.
        assert (resolution.arguments, resolution.sidecar) == (call.arguments, None)
        assert (resolution.decision == DENY) == denied
        return
    last = suppliers[-1]  # configured order: the last supplier wins, never the first
    if resolution.sidecar is None:
        assert resolution.decision == DENY, "an unapplied rewrite must refuse the call"
        assert resolution.arguments == call.arguments
        assert resolution.reason is not None
        assert resolution.reason.startswith(f"hook {last.handler_id} rewrote")
        return
    assert parse_arguments(resolution.arguments) == supplied_input(last.verdict)
    assert resolution.sidecar.handler_ids[-1] == last.handler_id
    assert sorted(resolution.sidecar.handler_ids) == sorted(v.handler_id for v in suppliers)
    assert resolution.sidecar.original_arguments == call.arguments
    asked = any(type(vote.verdict).__name__ == "Ask" for vote in votes)
    assert (resolution.decision == ASK) == asked


@given(calls_with_votes())
def test_HOOK_3_the_rewrite_merge_keeps_its_contract(
    case: tuple[ToolCallBlock, tuple[HookVote, ...]],
) -> None:
    """HOOK-3, HOOK-2, HOOK-6, RW-2: resolve_call: the last supplier in configured order wins,
    a deny discards rewrites, an unacceptable winner refuses the call, the sidecar names them."""
    check_resolution(*case)


@st.composite
def replies_with_votes(draw: st.DrawFn) -> tuple[ModelReplies, tuple[HookVote, ...]]:
    """A completed reply with text around 1..4 calls, and every call's votes."""
    blocks: list[Any] = []
    votes: list[HookVote] = []
    for index in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            blocks.append(TextBlock(f"t{index}"))
        call, call_votes = draw(calls_with_votes(f"c{index}"))
        blocks.append(call)
        votes.extend(HookVote(index, v.handler_id, v.verdict) for v in call_votes)
    return ModelReplies(tuple(blocks)), tuple(votes)


def check_commit(reply: ModelReplies, votes: tuple[HookVote, ...]) -> None:
    """RW-1, RW-3, ORD-1, EXE-3: the reply and every identity land together and agree."""
    state = step(LoopState(CONFIG), SubmitUser("go"))
    draft = Draft(state)
    slots = rewrite.commit_reply_with_calls(draft, 1, 1, reply, votes)
    events = draft.events
    calls = reply.tool_calls
    assert len(events) == 1 + len(calls)
    message = events[0]
    assert isinstance(message, AssistantMessageRecorded)
    records = events[1:]
    assert all(isinstance(record, ToolCallRecorded) for record in records)
    shown = message.message.tool_calls
    assert [b.id for b in shown] == [c.id for c in calls] == [s.call_id for s in slots]
    others = [b for b in message.message.content if not isinstance(b, ToolCallBlock)]
    assert others == [b for b in reply.blocks if not isinstance(b, ToolCallBlock)]
    for index, (call, block, record, slot) in enumerate(
        zip(calls, shown, records, slots, strict=True)
    ):
        assert isinstance(record, ToolCallRecorded)
        expected = resolve_call(call, tuple(v for v in votes if v.call_index == index), CONFIG)
        assert block.arguments == record.arguments == slot.arguments == expected.arguments
        assert record.rewrite == expected.sidecar
        assert (record.call_id, record.name) == (call.id, call.name)
        assert slot.call_seq == record.seq
        assert slot.decision == expected.decision
    after = draft.commit()
    assert after.commit_ends[-1] == len(after.log)
    assert len(after.commit_ends) == len(state.commit_ends) + 1


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(replies_with_votes())
def test_RW_1_the_reply_and_its_identities_commit_as_one_agreeing_unit(
    case: tuple[ModelReplies, tuple[HookVote, ...]],
) -> None:
    """RW-1, RW-3, ORD-1, EXE-3: commit_reply_with_calls writes one unit in which history,
    audit record and the slot that will execute carry the same effective arguments."""
    check_commit(*case)


@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=6),
    st.integers(0, 5),
    st.integers(1, 4),
)
def test_SCHED_2_the_gate_starts_a_call_whenever_the_cap_allows(
    calls: list[tuple[bool, bool]], index_seed: int, cap: int
) -> None:
    """SCHED-2, SCHED-1: may_start is true exactly when nothing exclusive blocks and the cap
    allows (liveness as well as safety)."""
    check_may_start(calls, index_seed, cap)


def check_may_start(calls: list[tuple[bool, bool]], index_seed: int, cap: int) -> None:
    """The gate's whole truth table, stated directly."""
    safe = tuple(s for s, _ in calls)
    running = tuple(r for _, r in calls)
    index = index_seed % len(calls)
    earlier = [(s, r) for s, r in calls[:index]]
    exclusive_running = any(r and not s for s, r in earlier)
    count = sum(r for _, r in earlier)
    allowed = (not exclusive_running and count < cap) if safe[index] else count == 0
    assert decisions.may_start(safe, running, index, cap) == allowed


# -- the contracts reject the planted bugs --------------------------------------------------------


def _first_rewrite_wins(supplied: tuple[bool, ...], merged: int) -> int:
    winner = decisions.winning_rewrite(supplied, merged)
    return supplied.index(True) if winner >= 0 else winner


def _cap_inclusive(safe: tuple[bool, ...], running: tuple[bool, ...], index: int, cap: int) -> bool:
    earlier = running[:index]
    if not safe[index]:
        return not any(earlier)
    if any(r and not s for r, s in zip(earlier, safe[:index], strict=True)):
        return False
    return sum(earlier) <= cap


def _never_start(safe: tuple[bool, ...], running: tuple[bool, ...], index: int, cap: int) -> bool:
    return False


@contextmanager
def _planted(owner: object, name: str, value: object) -> Iterator[None]:
    saved = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


def _fails(check: Callable[..., None], strategy: st.SearchStrategy[Any]) -> bool:
    @PLANTED
    @given(strategy)
    def run(case: Any) -> None:
        check(*case)

    try:
        run()
    except AssertionError:
        return True
    return False


_GATE_CASES = st.tuples(
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=6),
    st.integers(0, 5),
    st.integers(1, 4),
)
_COMMIT_BUGS = {
    "history keeps the original": _rewrite_only_in({"audit", "execution"}),
    "audit keeps the original": _rewrite_only_in({"history", "execution"}),
    "execution runs the original": _rewrite_only_in({"history", "audit"}),
}


@pytest.mark.no_cover
def test_HOOK_3_the_merge_contract_rejects_first_rewrite_wins() -> None:
    """HOOK-3: with the first supplier winning, the resolve_call contract fails."""
    with _planted(rewrite, "winning_rewrite", _first_rewrite_wins):
        assert _fails(check_resolution, calls_with_votes())


@pytest.mark.no_cover
@pytest.mark.parametrize("bug", [_cap_inclusive, _never_start], ids=["cap-inclusive", "never"])
def test_SCHED_2_the_gate_contract_rejects_the_planted_bugs(bug: Callable[..., bool]) -> None:
    """SCHED-2, SCHED-1: counting the cap inclusively, or never starting, fails the contract."""
    with _planted(decisions, "may_start", bug):
        assert _fails(check_may_start, _GATE_CASES)


@pytest.mark.no_cover
@pytest.mark.parametrize("bug", sorted(_COMMIT_BUGS))
def test_RW_1_the_commit_contract_rejects_a_rewrite_that_misses_a_reader(bug: str) -> None:
    """RW-1: a commit where the rewrite misses history, audit or execution fails the contract."""
    with _planted(rewrite, "commit_reply_with_calls", _COMMIT_BUGS[bug]):
        assert _fails(check_commit, replies_with_votes())
