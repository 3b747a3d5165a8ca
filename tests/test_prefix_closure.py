"""Prefix closure for real: at EVERY prefix of a log, not only at commit boundaries.

A crash can cut a log anywhere, and a reader may open it at any moment. For each prefix of a
generated log (every event cut) the readers — history, the audit record and presentation — are
computed on what a reader of that prefix sees: the commits that ended by then, the unfinished
unit dropped (LOG-8). They must agree (RW-1). The checker's verdict must be consistent too: no
prefix of a valid log is flagged, and a violation, once reported, is reported by every longer
prefix at the same seq (a verdict never flips back).
"""

from __future__ import annotations

import pytest
from batches import seeded
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test
from spec_helpers import run, with_hooks

from loopspec.model.commands import Allow, Command, HookAnswers, ModelReplies, SubmitUser
from loopspec.model.config import HookSpec
from loopspec.model.events import Event, ToolCallRecorded
from loopspec.model.invariants import check_log
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import ToolCallBlock
from loopspec.model.state import LoopState
from loopspec.properties.stateful.model_machine import ModelMachine
from loopspec.properties.stateful.state_checks import complete_prefix, readers_disagree

PREFIXES_CHECKED: list[int] = []


def check_every_prefix(state: LoopState) -> None:
    """Readers agree on what every prefix shows; the checker never flags a prefix of this log."""
    log, ends = state.log, state.commit_ends
    agreed: dict[int, list[str]] = {}
    for cut in range(len(log) + 1):
        seen = complete_prefix(log, ends, cut)
        if len(seen) not in agreed:
            agreed[len(seen)] = [v.message for v in readers_disagree(seen)]
        assert not agreed[len(seen)], f"cut at {cut}: {agreed[len(seen)]}"
        violations = check_log(log[:cut])
        assert not violations, f"cut at {cut}: [{violations[0].rule_id}] {violations[0].message}"
    PREFIXES_CHECKED.append(len(log) + 1)


class PrefixMachine(ModelMachine):
    """The model machine; at the end of every program, every prefix of its log is checked."""

    def teardown(self) -> None:
        check_every_prefix(self.state)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_RW_1_LOG_8_readers_agree_and_the_verdict_holds_at_every_prefix() -> None:
    """RW-1, LOG-8: for generated logs, at every event cut, history, audit and presentation of
    the complete commits agree, and check_log flags no prefix of a valid log."""
    PREFIXES_CHECKED.clear()
    run_state_machine_as_test(
        seeded(PrefixMachine),
        settings=settings(
            max_examples=60,
            stateful_step_count=30,
            database=None,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
    assert sum(PREFIXES_CHECKED) >= 1000, PREFIXES_CHECKED


BASH = ToolCallBlock("c1", "bash", '{"command":"rm -rf build"}')
READ = ToolCallBlock("c2", "read", '{"file_path":"a"}')
REWRITTEN: list[Command] = [
    SubmitUser("go"),
    ModelReplies((BASH, READ)),
    HookAnswers(Allow(FrozenMap({"command": "ls"}))),
]


def test_RW_1_a_reader_that_keeps_the_unfinished_unit_disagrees() -> None:
    """RW-1, LOG-8: the check can fail: a reader of a cut inside the reply's unit that kept the
    unfinished unit would show calls with no audit record; dropping the unit is what agrees."""
    state = run(with_hooks(HookSpec("h", "PreToolUse", "bash")), REWRITTEN)
    first_record = next(i for i, e in enumerate(state.log) if isinstance(e, ToolCallRecorded))
    raw_cut: tuple[Event, ...] = state.log[: first_record + 1]  # the reply and one tool/call
    assert {v.rule_id for v in readers_disagree(raw_cut)} == {"RW-1"}
    assert readers_disagree(complete_prefix(state.log, state.commit_ends, len(raw_cut))) == []
    check_every_prefix(state)


def test_LOG_8_a_flagged_violation_stays_flagged_in_longer_prefixes() -> None:
    """LOG-8, ORD-2: the checker's verdict is monotone: a tool/call whose arguments differ from
    its reply is flagged at its seq in that prefix and in every longer one."""
    state = run(with_hooks(HookSpec("h", "PreToolUse", "bash")), REWRITTEN)
    index = next(i for i, e in enumerate(state.log) if isinstance(e, ToolCallRecorded))
    record = state.log[index]
    assert isinstance(record, ToolCallRecorded)
    broken = list(state.log)
    broken[index] = ToolCallRecorded(
        record.seq, record.time, record.turn, record.step, record.call_id, record.name, "{}"
    )
    verdicts = [
        {(v.rule_id, v.seq) for v in check_log(broken[:cut])} for cut in range(len(broken) + 1)
    ]
    assert all(not verdict for verdict in verdicts[: index + 1])
    flagged = verdicts[index + 1]
    assert flagged
    assert all(flagged <= verdict for verdict in verdicts[index + 1 :])
