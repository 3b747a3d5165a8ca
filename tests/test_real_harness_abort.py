"""Abort on the real Claude Code and Codex CLIs under `loopspec conform` (ABORT-1, ABORT-2,
ABORT-3, ADJ-4).

The conform driver declares `abort`: an `Abort` is Ctrl-C, SIGINT to the CLI's process group;
the driver waits for the CLI to end and reads its log, whose interrupt record (Codex's
`turn_aborted` event, Claude Code's "[Request interrupted by user" message) ends the turn
`aborted`. Each program is played once on the binary. Aborted while the model request is pending
(by a parent: neither CLI records a cause, ABORT-3), each CLI writes a user message the user
never typed (ADJ-4) — Claude Code only when it wins a race of its own, which a test loses for it
by holding one of its threads (`frozen_thread`); Claude Code, resumed, then writes an assistant
message the model never wrote between the turns (ABORT-1, the cut). Aborted while a call runs,
the CLI answers it at once and ends the turn, where the model lets it drain (ABORT-1, the cut);
while a call's PreToolUse hooks run, the CLI keeps the call and answers it, where the model
keeps only the reply's text (ABORT-2, the cut). The profile must explain the observations with
exactly those divergences; under a profile without one of them, the same observations are a
counterexample blamed on the rule it breaks.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from frozen_thread import FrozenThread, descendants_named, threads_named
from node_requirements import Need
from real_cli_drivers import RealCliDrivers
from recorded_playback import RecordedPlayback

from loopspec.model.commands import (
    Abort,
    Command,
    HookAnswers,
    ModelReplies,
    Pass,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import Observation
from loopspec.properties.harnesses.cli_wire import ABORT_NOTICE, CLAUDE_ABORT_NOTICE
from loopspec.properties.harnesses.conform_driver import CAPABILITIES, Session
from loopspec.properties.harnesses.script import Harness
from loopspec.properties.harnesses.session import HarnessError, binary_of, default_adapter_dir
from loopspec.properties.profiles import PROFILES
from loopspec.properties.profiles.known import Profile
from loopspec.properties.stateful.strategies import CONFIGS

READ = '{"file_path":"a.txt"}'
BASH = '{"command":"ls"}'


def _call(call_id: str, name: str = "read") -> ToolCallBlock:
    return ToolCallBlock(call_id, name, BASH if name == "bash" else READ)


_PRE_HOOK: list[Command] = [
    SubmitUser("hi"),
    ModelReplies((TextBlock("go"), _call("c1"))),
    HookAnswers(Pass()),
    Abort(),
]
# (harness, program) -> (configuration, commands, the divergence that stops it, key -> the rule
# a loop breaks that shows it without the profile's tolerance). Without the stopping divergence
# the first finding is the target's own log's: its notice after the abort's results (ADJ-4),
# or Claude Code's invented reply between the turns (TURN-3).
PROGRAMS: dict[tuple[str, str], tuple[LoopConfig, list[Command], str, dict[str, str]]] = {
    ("codex", "running-call"): (
        CONFIGS[0],  # no hooks, cap 10
        [
            SubmitUser("hi"),
            Abort("parent"),
            SubmitUser("again"),
            ModelReplies((TextBlock("go"), _call("c1"), _call("c2"))),
            ToolFinishes("c2", ToolSucceeded("B")),
            Abort(),
            ToolFinishes("c1", ToolSucceeded("A")),
        ],
        "ABORT-1",
        {"ABORT-1": "ADJ-4", "ABORT-3": "ABORT-3", "ADJ-4:abort-notice": "ADJ-4"},
    ),
    ("codex", "pre-hook"): (CONFIGS[2], _PRE_HOOK, "ABORT-2", {"ABORT-2": "ADJ-4"}),
    ("claude-code", "pending-model"): (
        CONFIGS[0],
        [SubmitUser("hi"), Abort("parent"), SubmitUser("again")],
        "ABORT-1:resume",
        {"ABORT-1:resume": "TURN-3", "ABORT-3": "ABORT-3", "ADJ-4:abort-notice": "ADJ-4"},
    ),
    ("claude-code", "running-call"): (
        CONFIGS[0],  # bash is exclusive: the call runs alone, as in the model
        [SubmitUser("hi"), ModelReplies((TextBlock("go"), _call("c1", "bash"))), Abort()],
        "ABORT-1",
        {"ABORT-1": "ADJ-4"},
    ),
    ("claude-code", "pre-hook"): (CONFIGS[2], _PRE_HOOK, "ABORT-2", {"ABORT-2": "ADJ-4"}),
    # The same program, the CLI losing the race of its exit on SIGINT against its HTTP client
    # thread (held at the abort: `HELD`): it writes no notice, so shows no ADJ-4.
    ("claude-code", "pending-model-exit-first"): (
        CONFIGS[0],
        [SubmitUser("hi"), Abort("parent"), SubmitUser("again")],
        "ABORT-1:resume",
        {"ABORT-1:resume": "TURN-3", "ABORT-3": "ABORT-3"},
    ),
}
NOTICE = "ADJ-4:abort-notice"
NOTICES = (ABORT_NOTICE, CLAUDE_ABORT_NOTICE)  # Codex's, Claude Code's
# (harness, program) -> (the command sent with a thread of the CLI held until it has answered it,
# the names that thread's begins with). Claude Code interrupted while its model request is
# pending writes its notice only once its HTTP client thread has reported the cancelled request,
# and its exit on SIGINT does not wait for that: a loaded machine keeping the thread from the CPU
# for about 100 ms has it exit first (once in some 30 aborts), as holding it does every run.
HELD = {("claude-code", "pending-model-exit-first"): (1, "HTTP Client")}
# The programs whose notice is that race's outcome: their ADJ-4 shows only where the CLI won it.
RACED = {("claude-code", "pending-model")}


def _notice_written(observations: list[Observation]) -> bool:
    """Whether the CLI reported a user message of its own at an interrupt (ADJ-4's notice)."""
    return any(
        event["type"] == "user/message"
        and str(event["data"]["content"][0].get("text", "")).startswith(NOTICES)
        for observation in observations
        for event in observation.events
    )


def _played(
    drivers: RealCliDrivers,
    harness: str,
    config: LoopConfig,
    commands: list[Command],
    held: tuple[int, str] | None,
) -> list[Observation]:
    """Every command's observation on the real CLI (also past where a comparison stops), with
    `held`'s thread of the CLI held still while its command is answered."""
    kept = []
    with drivers.lent(harness) as process:
        target = process()
        assert "abort" in target.reset(config)
        for index, command in enumerate(commands):
            frozen: list[FrozenThread] = []
            if held is not None and index == held[0]:
                binary = binary_of(Harness(harness), default_adapter_dir(Harness(harness)))
                (cli,) = descendants_named(os.getpid(), binary.name[:15])  # `comm`'s length
                frozen = [FrozenThread(t) for t in threads_named(cli, held[1])]
            try:
                kept.append(target.apply(command))
            finally:
                for thread in frozen:
                    thread.thaw()
            # The CLI ended while it was held: the ordering was the one asked for.
            assert all(thread.ended for thread in frozen)
    return kept


def _without(profile: Profile, key: str) -> Profile:
    kept = tuple(d for d in profile.divergences if d.key != key)
    return Profile(f"{profile.name}-less", profile.implementation, kept, profile.capabilities)


def test_ABORT_1_both_drivers_declare_abort() -> None:
    """ABORT-1: conform sends Abort to either CLI (its driver and profile declare `abort`)."""
    assert "abort" in CAPABILITIES
    for harness in Harness:
        assert PROFILES[harness.value].capabilities == frozenset(CAPABILITIES)


@pytest.mark.parametrize(
    ("harness", "program"), list(PROGRAMS), ids=[f"{h}-{p}" for h, p in PROGRAMS]
)
@pytest.mark.needs(Need.ITS_HARNESS)
def test_ABORT_1_ABORT_2_ABORT_3_an_abort_on_the_real_cli_shows_the_known_divergences_and_no_other(
    harness: str, program: str, real_cli_drivers: RealCliDrivers
) -> None:
    """ABORT-1, ABORT-2, ABORT-3, ADJ-4: a program aborting the CLI stops at the profile's known
    divergence after showing the others; under a profile without any one of them, the same
    observations are a counterexample blamed on the rule that divergence breaks."""
    try:
        binary_of(Harness(harness), default_adapter_dir(Harness(harness)))
    except HarnessError as error:
        pytest.fail(f"{error.message} (make harnesses installs both real CLIs)")
    config, commands, stopped_by, planted = PROGRAMS[(harness, program)]
    kept = _played(real_cli_drivers, harness, config, commands, HELD.get((harness, program)))
    noticed = _notice_written(kept)
    if (harness, program) in HELD:
        assert not noticed
    elif (harness, program) in RACED and not noticed:
        planted = {key: rule for key, rule in planted.items() if key != NOTICE}
    profile = PROFILES[harness]

    def playback() -> RecordedPlayback:
        return RecordedPlayback(kept)

    found = replay_case(playback, config, commands, profile)
    assert found.divergence is None, found.divergence
    assert found.stopped_by == stopped_by
    assert set(planted) <= found.known, found.known
    assert noticed or NOTICE not in found.known
    for key, rule in planted.items():
        without = replay_case(playback, config, commands, _without(profile, key))
        assert without.divergence is not None, key
        assert without.divergence.rule_id == rule, (key, without.divergence.what)


def _abort_holding(
    monkeypatch: pytest.MonkeyPatch, threads: str, *, running: bool = False
) -> tuple[list[dict[str, Any]], str, str]:
    """The events of an `Abort` of Claude Code while its model request is pending (or, if
    `running`, while a bash call c1 runs), sent with its threads whose names begin with
    `threads` held still (`frozen_thread`) until it has ended; and what its output and its
    transcript then held."""
    try:
        binary_of(Harness.CLAUDE_CODE, default_adapter_dir(Harness.CLAUDE_CODE))
    except HarnessError as error:
        pytest.fail(f"{error.message} (make harnesses installs both real CLIs)")
    session = Session(Harness.CLAUDE_CODE, CONFIGS[0])
    interrupt = session._interrupt
    held: list[FrozenThread] = []

    def interrupt_holding_threads() -> None:
        assert session.process is not None
        held.extend(FrozenThread(t) for t in threads_named(session.process.pid, threads))
        try:
            interrupt()
        finally:
            for thread in held:
                thread.thaw()

    monkeypatch.setattr(session, "_interrupt", interrupt_holding_threads)
    try:
        session.apply(SubmitUser("hi"))
        if running:
            session.apply(ModelReplies((TextBlock("go"), _call("c1", "bash"))))
        events: list[dict[str, Any]] = session.apply(Abort())["events"]
        output = (session.root / f"turn-{session.turns_started}.out").read_text("utf-8")
        transcript = "".join(path.read_text("utf-8") for path in session._log_paths())
    finally:
        session.close()
    # The CLI ended while they were held: the ordering was the one asked for.
    assert held
    assert all(thread.ended for thread in held)
    return events, output, transcript


@pytest.mark.needs(Need.CLAUDE_CODE)
def test_ABORT_2_claude_code_ending_before_its_transcript_holds_the_interrupt_is_reported_aborted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ABORT-2: Claude Code interrupted while its model request is pending prints the interrupt
    on its output at once, while its transcript gets it from a pool thread; on a loaded machine
    it exited before that thread wrote it (1 of 25 aborts under load 18), and the adapter,
    reading only the transcript, reported the turn completed, blamed on ABORT-2. Here its pool
    threads are held until it ends, every run: the transcript lacks the interrupt, and the turn
    is still reported aborted by the user, with the CLI's notice, as its output says."""
    events, output, transcript = _abort_holding(monkeypatch, "Bun Pool")
    assert CLAUDE_ABORT_NOTICE in output
    assert CLAUDE_ABORT_NOTICE not in transcript
    assert [e["type"] for e in events] == ["user/message", "step/end", "turn/end"]
    assert events[0]["data"]["content"][0]["text"].startswith(CLAUDE_ABORT_NOTICE)
    assert events[-1]["data"]["reason"] == {"kind": "aborted", "reason": {"kind": "user"}}


@pytest.mark.needs(Need.CLAUDE_CODE)
def test_ABORT_2_claude_code_ending_before_its_http_thread_reports_the_abort_is_reported_aborted(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """ABORT-2: SIGINT makes Claude Code cancel its pending model request and start its exit
    (`shutdown(0)`) at once. The cancelled request is reported back by its HTTP client thread,
    and only then does it write its interrupt; when its exit finishes first it exits 0 having
    written the interrupt neither in its transcript nor on its output (its thread kept from the
    CPU for about 100 ms: once in some 30 aborts under load, where the turn was
    reported completed and blamed on ABORT-2). Here that thread is held until the CLI ends:
    it got no reply, so its turn cannot have completed; the interrupt ended it, reported
    aborted by the user with no notice the CLI did not write, and stderr says why."""
    events, output, transcript = _abort_holding(monkeypatch, "HTTP Client")
    assert CLAUDE_ABORT_NOTICE not in output + transcript
    assert [e["type"] for e in events] == ["step/end", "turn/end"]
    assert events[-1]["data"]["reason"] == {"kind": "aborted", "reason": {"kind": "user"}}
    assert "exited 0 recording no interrupt" in capfd.readouterr().err


@pytest.mark.needs(Need.CLAUDE_CODE)
def test_ABORT_1_claude_code_ending_before_it_answers_its_running_call_is_reported_aborted(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """ABORT-1: interrupted while a call runs, Claude Code answers the call (rejected) and
    writes its notice once its file pool threads have done their part, and its exit on SIGINT
    does not wait for them: with them held (200 ms from the interrupt was enough) it exits 0
    having written neither, the call left unanswered, and the turn was reported completed,
    blamed on ADJ-3. Here they are held until it ends: nothing released the call, so the turn
    cannot have completed; it is reported aborted by the user, with no result or notice the
    CLI did not write, and stderr says why."""
    events, output, transcript = _abort_holding(monkeypatch, "Bun Pool", running=True)
    assert CLAUDE_ABORT_NOTICE not in output + transcript
    assert '"tool_use_id":"c1"' not in output + transcript
    assert [e["type"] for e in events] == ["step/end", "turn/end"]
    assert events[-1]["data"]["reason"] == {"kind": "aborted", "reason": {"kind": "user"}}
    assert "exited 0 recording no interrupt" in capfd.readouterr().err
