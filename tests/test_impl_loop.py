"""`impl.AgentLoop` with real asynchronous seams: what the scripted machine cannot show.

The conformance machine drives `impl` with scripted futures, one outside event at a time. Here
tool bodies, the provider, hooks and approvals are real coroutines that take time, so several
things happen at once: parallel bodies, bodies finishing out of order, an abort while bodies
run, failing seams.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from impl_harness import Session

from loopspec.impl import demo
from loopspec.impl.agent_loop import LoopSettings
from loopspec.impl.errors import AlreadyAborting, NothingToAbort, NotPending, SessionLocked
from loopspec.impl.presentation import Audience, replay
from loopspec.impl.seams import ApprovalRequest, ModelRequest, PostToolUseRequest, PreToolUseRequest
from loopspec.impl.tools import RegisteredTool, ToolExecution
from loopspec.model.commands import (
    Allow,
    Ask,
    HookAnswers,
    ModelReplies,
    PostVerdict,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec
from loopspec.model.events import Event, ToolResultRecorded, TurnEnded
from loopspec.model.invariants import check_log
from loopspec.model.messages import AssistantMessage, TextBlock, ToolCallBlock
from loopspec.model.wire import event_to_wire

DONE = ModelReplies((TextBlock("done"),))


class ListProvider:
    """A coroutine provider answering from a list; it remembers every request."""

    def __init__(self, replies: Sequence[object]) -> None:
        self.replies = list(replies)
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelReplies:
        self.requests.append(request)
        await asyncio.sleep(0.001)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply  # type: ignore[return-value]


class TimedTools:
    """Bodies that sleep `arguments.delay` seconds and record when they run."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.running = 0
        self.peak = 0
        self.started: list[str] = []
        self.finished: list[str] = []
        self.recorded_before_start: list[bool] = []

    def tool(self, name: str, *, safe: bool) -> RegisteredTool:
        return RegisteredTool(name, self.body, concurrency_safe=safe)

    async def body(self, execution: ToolExecution) -> ToolOutcome:
        if self.path is not None:
            on_disk = self.path.read_bytes()
            self.recorded_before_start.append(f'"callId":"{execution.call_id}"'.encode() in on_disk)
        self.running += 1
        self.peak = max(self.peak, self.running)
        self.started.append(execution.call_id)
        arguments = execution.arguments
        delay = arguments.get("delay", 0) if isinstance(arguments, Mapping) else 0
        await asyncio.sleep(delay if isinstance(delay, int | float) else 0)
        self.running -= 1
        self.finished.append(execution.call_id)
        return ToolSucceeded(f"ran {execution.call_id}")


def calls(*specs: tuple[str, str, float]) -> ModelReplies:
    """A reply calling `(id, tool, delay)` in order."""
    blocks = [
        ToolCallBlock(call_id, tool, json.dumps({"file_path": "f", "command": "c", "delay": delay}))
        for call_id, tool, delay in specs
    ]
    return ModelReplies((TextBlock("working"), *blocks))


def run_turn(session: Session, text: str, *, timeout: float = 10.0) -> None:
    """Submit `text` and run the event loop until that turn ends."""
    ended = sum(isinstance(event, TurnEnded) for event in session.events())
    session.loop.submit(text)

    async def until_ended() -> None:
        while sum(isinstance(event, TurnEnded) for event in session.loop.events) <= ended:
            await asyncio.sleep(0.001)

    session.event_loop.run_until_complete(asyncio.wait_for(until_ended(), timeout))


def results(events: Sequence[Event]) -> list[tuple[str, str]]:
    """(call id, text) of every tool result, in log order."""
    return [
        (event.call_id, event.message.text)
        for event in events
        if isinstance(event, ToolResultRecorded)
    ]


def test_SCHED_1_safe_calls_overlap_up_to_the_cap_and_commit_in_model_order(
    tmp_path: Path,
) -> None:
    """SCHED-1, ORD-3: safe bodies run in parallel (capped); results land in model order."""
    probe = TimedTools()
    reply = calls(("c1", "read", 0.04), ("c2", "read", 0.03), ("c3", "read", 0.02))
    provider = ListProvider([reply, DONE])
    session = Session(
        tmp_path / "log.jsonl",
        [probe.tool("read", safe=True)],
        settings=LoopSettings(max_parallel=2),
        provider=provider,
    )
    run_turn(session, "read three files")
    assert probe.peak == 2
    assert probe.finished[0] == "c2"  # c2 started with c1 and finished first
    assert [call_id for call_id, _text in results(session.events())] == ["c1", "c2", "c3"]
    assert not check_log(session.events())
    session.close()


def test_SCHED_1_an_exclusive_call_runs_alone(tmp_path: Path) -> None:
    """SCHED-1: an exclusive body waits for every earlier body and blocks later ones."""
    probe = TimedTools()
    reply = calls(("c1", "read", 0.02), ("c2", "bash", 0.01), ("c3", "read", 0.0))
    session = Session(
        tmp_path / "log.jsonl",
        [probe.tool("read", safe=True), probe.tool("bash", safe=False)],
        provider=ListProvider([reply, DONE]),
    )
    run_turn(session, "go")
    assert probe.peak == 1
    assert probe.started == ["c1", "c2", "c3"]
    session.close()


def test_RW_3_a_body_starts_only_after_its_identity_is_durable(tmp_path: Path) -> None:
    """RW-3, REC-1: every body found its tool/call in the file when it started."""
    path = tmp_path / "log.jsonl"
    probe = TimedTools(path)
    reply = calls(("c1", "read", 0.0), ("c2", "read", 0.0))
    session = Session(path, [probe.tool("read", safe=True)], provider=ListProvider([reply, DONE]))
    run_turn(session, "go")
    assert probe.recorded_before_start == [True, True]
    session.close()


def test_ABORT_1_running_bodies_drain_and_unstarted_calls_never_run(tmp_path: Path) -> None:
    """ABORT-1: on abort, nothing new starts; a body that finishes later reports ABORTED."""
    probe = TimedTools()
    reply = calls(("c1", "bash", 0.05), ("c2", "bash", 0.0))
    session = Session(
        tmp_path / "log.jsonl",
        [probe.tool("bash", safe=False)],
        provider=ListProvider([reply]),
    )
    session.loop.submit("go")

    async def abort_when_running() -> None:
        while probe.running == 0:
            await asyncio.sleep(0.001)
        session.loop.abort()
        with pytest.raises(AlreadyAborting):
            session.loop.abort()
        while session.loop.settled is False or probe.running:
            await asyncio.sleep(0.001)

    session.run_until(asyncio.ensure_future(abort_when_running(), loop=session.event_loop))
    session.settle()
    errors = [
        event_to_wire(event)["data"]["error"]["code"]
        for event in session.events()
        if isinstance(event, ToolResultRecorded)
    ]
    assert errors == ["ABORTED", "ABORTED_BEFORE_DISPATCH"]
    assert probe.started == ["c1"]
    assert session.types()[-1] == "turn/end"
    with pytest.raises(NothingToAbort):
        session.loop.abort()
    session.close()


def test_TURN_2_a_provider_that_raises_ends_the_turn_in_error(tmp_path: Path) -> None:
    """TURN-2: an unexpected provider exception is a failed request, not a crashed loop."""
    provider = ListProvider([RuntimeError("connection reset")])
    session = Session(tmp_path / "log.jsonl", provider=provider)
    run_turn(session, "hi")
    end = event_to_wire(session.events()[-1])
    assert end["data"]["reason"] == {
        "kind": "error",
        "error": {"message": "connection reset", "code": "UNKNOWN"},
    }
    session.close()


def test_EXE_1_malformed_replies_are_asked_again_then_fail_the_turn(tmp_path: Path) -> None:
    """EXE-1: a reply repeating call ids is never acted on; the loop asks again, then gives up."""
    twice = calls(("c1", "read", 0.0), ("c1", "read", 0.0))
    fine = ModelReplies((TextBlock("ok"),))
    provider = ListProvider([twice, fine])
    session = Session(tmp_path / "log.jsonl", provider=provider)
    run_turn(session, "hi")
    assert session.types()[-3:] == ["assistant/message", "step/end", "turn/end"]
    assert len(provider.requests) == 2
    stubborn = ListProvider([twice, twice, twice])
    other = Session(tmp_path / "other.jsonl", provider=stubborn)
    run_turn(other, "hi")
    assert event_to_wire(other.events()[-1])["data"]["reason"]["error"]["code"] == "MALFORMED_REPLY"
    session.close()
    other.close()


class FailingHooks:
    """A hook runner whose PreToolUse hooks crash and whose PostToolUse hooks pass."""

    async def pre_tool_use(self, request: PreToolUseRequest) -> HookAnswers:
        raise OSError("hook binary missing")

    async def post_tool_use(self, request: PostToolUseRequest) -> PostVerdict:
        raise AssertionError("no PostToolUse hook is configured")


def test_HOOK_1_a_failing_hook_runner_denies_the_call(tmp_path: Path) -> None:
    """HOOK-1: a hook that cannot answer fails closed: the call is denied and says why."""
    probe = TimedTools()
    settings = LoopSettings(hooks=(HookSpec("guard", "PreToolUse", "*"),))
    session = Session(
        tmp_path / "log.jsonl",
        [probe.tool("bash", safe=False)],
        settings=settings,
        provider=ListProvider([calls(("c1", "bash", 0.0)), DONE]),
        hook_runner=FailingHooks(),
    )
    run_turn(session, "go")
    assert probe.started == []
    assert results(session.events()) == [("c1", "Error: PreToolUse hook guard failed")]
    session.close()


class RewritingHooks:
    """Every PreToolUse hook rewrites the command; there are no PostToolUse hooks."""

    async def pre_tool_use(self, request: PreToolUseRequest) -> HookAnswers:
        await asyncio.sleep(0.001)
        return HookAnswers(Allow({"command": "ls --safe", "delay": 0}))

    async def post_tool_use(self, request: PostToolUseRequest) -> PostVerdict:
        raise AssertionError("no PostToolUse hook is configured")


class YesApprover:
    """Approves everything after a moment."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def request_approval(self, request: ApprovalRequest) -> str:
        self.asked.append(request)
        await asyncio.sleep(0.001)
        return "allowed-once"


def test_HIST_3_the_next_request_carries_the_effective_arguments(tmp_path: Path) -> None:
    """HIST-3, RW-1: after a rewrite, the body and the next model request see the new input."""
    probe = TimedTools()
    provider = ListProvider([calls(("c1", "bash", 0.0)), DONE])
    session = Session(
        tmp_path / "log.jsonl",
        [probe.tool("bash", safe=False)],
        settings=LoopSettings(hooks=(HookSpec("rewriter", "PreToolUse", "bash"),)),
        provider=provider,
        hook_runner=RewritingHooks(),
    )
    run_turn(session, "go")
    second = provider.requests[1].messages
    replies = [message for message in second if isinstance(message, AssistantMessage)]
    assert replies[0].tool_calls[0].arguments == '{"command":"ls --safe","delay":0}'
    assert probe.started == ["c1"]
    session.close()


def test_RW_4_a_real_approver_is_asked_with_the_sealed_execution(tmp_path: Path) -> None:
    """RW-4, DEC-2: the approver gets the execution that will run, then it runs."""

    class AskingHooks(RewritingHooks):
        async def pre_tool_use(self, request: PreToolUseRequest) -> HookAnswers:
            return HookAnswers(Ask("double-check", {"command": "rm -i x"}))

    probe = TimedTools()
    approver = YesApprover()
    session = Session(
        tmp_path / "log.jsonl",
        [probe.tool("bash", safe=False)],
        settings=LoopSettings(hooks=(HookSpec("asker", "PreToolUse", "bash"),)),
        provider=ListProvider([calls(("c1", "bash", 0.0)), DONE]),
        hook_runner=AskingHooks(),
        approver=approver,
    )
    run_turn(session, "go")
    assert [request.execution.raw_arguments for request in approver.asked] == [
        '{"command":"rm -i x"}'
    ]
    assert approver.asked[0].reason == "double-check"
    assert probe.started == ["c1"]
    session.close()


def test_ADJ_4_messages_sent_during_a_turn_wait_for_the_next_step(tmp_path: Path) -> None:
    """ADJ-4, TURN-1: a message sent mid-turn opens the next step; nothing is logged at once."""
    session = Session(tmp_path / "log.jsonl")
    session.loop.submit("first")
    session.settle()
    before = len(session.events())
    session.loop.submit("meanwhile")
    session.settle()
    assert len(session.events()) == before
    session.world.reply(ModelReplies((TextBlock("noted"),)))
    session.settle()
    assert session.types()[-4:] == ["assistant/message", "step/end", "step/start", "user/message"]
    with pytest.raises(NotPending):
        session.world.answer_approval("allowed-once")
    session.close()


def test_REC_1_a_discarded_loop_reopens_repaired(tmp_path: Path) -> None:
    """REC-1: reopening after a process death closes the open turn; a live loop holds the file."""
    path = tmp_path / "log.jsonl"
    session = Session(path)
    session.loop.submit("go")
    session.settle()
    session.world.reply(calls(("c1", "read", 0.0)))
    session.settle()
    with pytest.raises(SessionLocked):
        Session(path)
    session.loop.discard()
    reopened = Session(path)
    assert reopened.loop.recovery.repair_events == 3
    assert reopened.loop.recovery.damage.clean
    assert reopened.types()[-3:] == ["tool/result", "step/end", "turn/end"]
    reopened.loop.submit("again")
    reopened.settle()
    assert event_to_wire(reopened.events()[-3])["data"] == {"turn": 2}
    assert not check_log(reopened.events())
    reopened.close()
    session.event_loop.close()


def test_ACP_1_live_updates_are_what_the_log_replays(tmp_path: Path) -> None:
    """ACP-1: a terminal-capable client sees live exactly what replaying the log shows it."""
    session = Session(tmp_path / "log.jsonl", settings=LoopSettings(terminal_client=True))
    session.loop.submit("list files")
    session.settle()
    session.world.reply(
        ModelReplies((ToolCallBlock("c1", "bash", '{"command":"ls","cwd":"src"}'),))
    )
    session.settle()
    session.world.finish("c1", ToolSucceeded("a\nb\n[exit code: 0]"), ())
    session.settle()
    assert [type(item).__name__ for item in session.shown] == ["CallCard", "ResultCard"]
    assert session.shown == replay(session.events(), Audience("test", "/w", terminal=True))
    update = session.shown[1]
    assert update.update["update"]["_meta"]["terminal_exit"] == {  # type: ignore[union-attr, index]
        "terminal_id": "c1",
        "exit_code": 0,
    }
    session.close()


def test_REC_1_the_demo_session_runs_and_repairs(capsys: pytest.CaptureFixture[str]) -> None:
    """REC-1: `python -m loopspec.impl.demo` plays its session, dies mid-call and reopens
    repaired."""
    demo.main([])
    printed = capsys.readouterr().out
    assert "3 repair events" in printed
    assert "TOOL_OUTCOME_UNKNOWN" in printed
