"""Hooks run concurrently but come back in configured order, so the merge is deterministic.

The peers resolve competing rewrites by which hook finishes last (Claude Code #83353, Codex
#35713). Here the same two real hooks race both ways round; the bridge's ordered runs, merged by
the SPEC's rule (HOOK-2 strictness, HOOK-3 configured order), give one answer either way.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from spec_helpers import TOOLS, calls, clean, run
from test_hookbridge_support import BASH_CALL, RESPONSE, bash, make_bridge, python, run_pre

from loopspec.impl.hookbridge import HookBridge, PreHookRun
from loopspec.model.commands import (
    Command,
    ModelReplies,
    PostContext,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, LoopConfig
from loopspec.model.messages import ToolCallBlock
from loopspec.model.rewrite import resolve_call
from loopspec.model.state import ALLOW, DENY, HookVote

CALL = ToolCallBlock("call-1", "bash", json.dumps(BASH_CALL))
SLOW = "0.4"
FAST = "0"
FIRST_IDS = ("claude-code:PreToolUse:1", "claude-code:PreToolUse:2")


def _racing_rewriters(first_delay: str, second_delay: str) -> HookBridge:
    return make_bridge(
        python("rewrite.py", "echo first", first_delay),
        python("rewrite.py", "echo second", second_delay),
    )


def _merged(bridge: HookBridge, runs: tuple[PreHookRun, ...]) -> tuple[str, str, object]:
    config = LoopConfig(tools=TOOLS, hooks=bridge.specs())
    votes = tuple(HookVote(0, r.handler_id, r.verdict) for r in runs)
    resolution = resolve_call(CALL, votes, config)
    return resolution.decision, resolution.arguments, resolution.sidecar


@pytest.mark.parametrize(
    ("first_delay", "second_delay"),
    [(SLOW, FAST), (FAST, SLOW)],
    ids=["first-ends-last", "second-ends-last"],
)
def test_HOOK_3_runs_return_in_configured_order_whichever_finishes_first(
    first_delay: str, second_delay: str
) -> None:
    """HOOK-3: the list is in configured order although the hooks finished in the other order."""
    runs = run_pre(_racing_rewriters(first_delay, second_delay))
    assert tuple(r.handler_id for r in runs) == FIRST_IDS
    first, second = (r.audit.duration_ms for r in runs)
    assert (first > second) is (first_delay == SLOW)
    assert [r.audit.updated_input for r in runs] == [
        dict(BASH_CALL, command="echo first"),
        dict(BASH_CALL, command="echo second"),
    ]


def test_HOOK_3_the_merge_gives_one_answer_for_both_finishing_orders() -> None:
    """HOOK-2, HOOK-3: same per-hook answers, opposite race outcomes, identical merged result."""
    outcomes = []
    for first_delay, second_delay in [(SLOW, FAST), (FAST, SLOW)]:
        bridge = _racing_rewriters(first_delay, second_delay)
        outcomes.append(_merged(bridge, run_pre(bridge)))
    assert outcomes[0] == outcomes[1]
    decision, arguments, sidecar = outcomes[0]
    assert decision == ALLOW
    assert json.loads(arguments) == dict(BASH_CALL, command="echo second")
    assert sidecar is not None


@pytest.mark.parametrize(("first_delay", "second_delay"), [(SLOW, FAST), (FAST, SLOW)])
def test_RW_1_the_model_records_the_configured_winner_whoever_finishes_last(
    first_delay: str, second_delay: str
) -> None:
    """RW-1, HOOK-3: fed to the model, the race leaves the same tool/call and a clean log."""
    bridge = _racing_rewriters(first_delay, second_delay)
    runs = run_pre(bridge)
    config = LoopConfig(tools=TOOLS, hooks=bridge.specs())
    state = run(config, [SubmitUser("clean"), ModelReplies((CALL,)), *(r.answer() for r in runs)])
    (record,) = calls(state.log)
    assert json.loads(record.arguments) == dict(BASH_CALL, command="echo second")
    assert record.rewrite is not None
    assert record.rewrite.handler_ids == FIRST_IDS
    assert clean(state.log) == []


def test_HOOK_3_a_passthrough_never_erases_a_rewrite() -> None:
    """HOOK-3: a later `{}` hook keeps the earlier rewrite (Claude Code #15897)."""
    bridge = make_bridge(python("rewrite.py", "echo kept"), bash("passthrough_empty.sh"))
    decision, arguments, _ = _merged(bridge, run_pre(bridge))
    assert decision == ALLOW
    assert json.loads(arguments)["command"] == "echo kept"


def test_HOOK_2_a_deny_discards_every_rewrite() -> None:
    """HOOK-2, HOOK-3: one exit-2 block wins over a slower rewrite, and the original stays."""
    bridge = make_bridge(bash("deny_exit2.sh"), python("rewrite.py", "echo sneaky", SLOW))
    decision, arguments, sidecar = _merged(bridge, run_pre(bridge))
    assert decision == DENY
    assert arguments == CALL.arguments
    assert sidecar is None


def test_HOOK_5_post_verdicts_come_back_in_configured_order() -> None:
    """HOOK-5: PostToolUse runs are ordered too, ready to be the model's `ToolFinishes.post`."""
    bridge = make_bridge(
        python("post_context.py", SLOW), python("post_context.py", FAST), point=POST_TOOL_USE
    )
    runs = asyncio.run(bridge.post_tool_use("call-1", "bash", BASH_CALL, RESPONSE))
    assert [r.handler_id for r in runs] == [
        "claude-code:PostToolUse:1",
        "claude-code:PostToolUse:2",
    ]
    assert runs[0].audit.duration_ms > runs[1].audit.duration_ms
    assert all(isinstance(r.verdict, PostContext) for r in runs)
    config = LoopConfig(tools=TOOLS, hooks=bridge.specs())
    finished = ToolFinishes("call-1", ToolSucceeded("removed"), tuple(r.verdict for r in runs))
    program: list[Command] = [SubmitUser("clean"), ModelReplies((CALL,)), finished]
    assert clean(run(config, program).log) == []
