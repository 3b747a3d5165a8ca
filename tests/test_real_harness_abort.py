"""Abort on the real Claude Code and Codex CLIs under `loopspec conform` (ABORT-1, ABORT-2,
ABORT-3, ADJ-4).

The conform driver declares `abort`: an `Abort` is Ctrl-C, SIGINT to the CLI's process group;
the driver waits for the CLI to end and reads its log, whose interrupt record (Codex's
`turn_aborted` event, Claude Code's "[Request interrupted by user" message) ends the turn
`aborted`. Each program is played once on the binary. Aborted while the model request is
pending (by a parent: neither CLI records a cause, ABORT-3), each CLI writes a user message the
user never typed (ADJ-4); Claude Code, resumed, then writes an assistant message the model never
wrote between the turns (ABORT-1, the cut). Aborted while a call runs, the CLI answers it at
once and ends the turn, where the model lets it drain (ABORT-1, the cut); while a call's
PreToolUse hooks run, the CLI keeps the call and answers it, where the model keeps only the
reply's text (ABORT-2, the cut). The profile must explain the observations with exactly those
divergences; under a profile without one of them, the same observations are a counterexample
blamed on the rule it breaks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
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
from loopspec.properties.conformance.run import SharedProcess, replay_case
from loopspec.properties.harnesses.cli_wire import CLAUDE_ABORT_NOTICE
from loopspec.properties.harnesses.conform_driver import CAPABILITIES, Session
from loopspec.properties.harnesses.script import Harness
from loopspec.properties.harnesses.session import HarnessError, binary_of, default_adapter_dir
from loopspec.properties.profiles import PROFILES
from loopspec.properties.profiles.known import Profile
from loopspec.properties.stateful.strategies import CONFIGS

ROOT = Path(__file__).resolve().parent.parent
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
}


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
def test_ABORT_1_ABORT_2_ABORT_3_an_abort_on_the_real_cli_shows_the_known_divergences_and_no_other(
    harness: str, program: str
) -> None:
    """ABORT-1, ABORT-2, ABORT-3, ADJ-4: a program aborting the CLI stops at the profile's known
    divergence after showing the others; under a profile without any one of them, the same
    observations are a counterexample blamed on the rule that divergence breaks."""
    try:
        binary_of(Harness(harness), default_adapter_dir(Harness(harness)))
    except HarnessError as error:
        pytest.fail(f"{error.message} (make harnesses installs both real CLIs)")
    config, commands, stopped_by, planted = PROGRAMS[(harness, program)]
    process = SharedProcess([str(ROOT / "examples" / f"{harness}-adapter" / "run.sh")])
    target = process()
    try:  # every command, also past where a comparison stops
        assert "abort" in target.reset(config)
        kept = [target.apply(command) for command in commands]
    finally:
        target.close()
        process.close()
    profile = PROFILES[harness]

    def playback() -> RecordedPlayback:
        return RecordedPlayback(kept)

    found = replay_case(playback, config, commands, profile)
    assert found.divergence is None, found.divergence
    assert found.stopped_by == stopped_by
    assert set(planted) <= found.known, found.known
    for key, rule in planted.items():
        without = replay_case(playback, config, commands, _without(profile, key))
        assert without.divergence is not None, key
        assert without.divergence.rule_id == rule, (key, without.divergence.what)


def _abort_asking_the_model_losing_its_record(
    monkeypatch: pytest.MonkeyPatch, from_output: bool
) -> list[dict[str, Any]]:
    """The events of an `Abort` of Claude Code while its model request is pending, its
    interrupt record taken out of its transcript, and of its output too if `from_output`."""
    try:
        binary_of(Harness.CLAUDE_CODE, default_adapter_dir(Harness.CLAUDE_CODE))
    except HarnessError as error:
        pytest.fail(f"{error.message} (make harnesses installs both real CLIs)")
    session = Session(Harness.CLAUDE_CODE, CONFIGS[0])
    interrupt = session._interrupt

    def interrupt_then_lose_the_record() -> None:
        interrupt()
        output = session.root / f"turn-{session.turns_started}.out"
        for path in [*session._log_paths(), *([output] if from_output else [])]:
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            path.write_text("".join(x for x in lines if CLAUDE_ABORT_NOTICE not in x), "utf-8")

    monkeypatch.setattr(session, "_interrupt", interrupt_then_lose_the_record)
    try:
        session.apply(SubmitUser("hi"))
        events: list[dict[str, Any]] = session.apply(Abort())["events"]
    finally:
        session.close()
    return events


def test_ABORT_2_claude_code_interrupted_before_its_transcript_held_it_is_reported_aborted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ABORT-2: Claude Code interrupted while the model request is pending prints the interrupt
    on its output; on a loaded machine it exited before its transcript held it (1 of 25 aborts
    under load 18), and the adapter, reading only the transcript, reported the turn completed,
    blamed on ABORT-2. Here the transcript loses that record: the turn is still reported
    aborted by the user, with the CLI's notice, as its output says."""
    events = _abort_asking_the_model_losing_its_record(monkeypatch, from_output=False)
    assert [e["type"] for e in events] == ["user/message", "step/end", "turn/end"]
    assert events[0]["data"]["content"][0]["text"].startswith(CLAUDE_ABORT_NOTICE)
    assert events[-1]["data"]["reason"] == {"kind": "aborted", "reason": {"kind": "user"}}


def test_ABORT_2_claude_code_interrupted_asking_the_model_and_recording_nothing_is_reported_aborted(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """ABORT-2: Claude Code's exit on SIGINT races its own writes (its output's closing record
    comes or not; 1 of 26 transcripts lacked the interrupt on an idle machine), and under load
    the turn was once reported completed, blamed on ABORT-2, with the interrupt in neither its
    transcript nor its output. Interrupted with its model request unanswered it got no reply, so
    its turn cannot have completed: here both lose the record, and the turn is reported aborted
    by the user, with no notice the CLI did not write, and stderr says why."""
    events = _abort_asking_the_model_losing_its_record(monkeypatch, from_output=True)
    assert [e["type"] for e in events] == ["step/end", "turn/end"]
    assert events[-1]["data"]["reason"] == {"kind": "aborted", "reason": {"kind": "user"}}
    assert "exited 0 recording no interrupt" in capfd.readouterr().err
