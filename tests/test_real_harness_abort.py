"""Abort on the real Codex CLI under `loopspec conform` (ABORT-1, ABORT-2, ABORT-3).

The conform driver declares `abort` for Codex: an `Abort` is Ctrl-C, SIGINT to the CLI's
process group; the driver waits for the CLI to end and reads the rollout, whose `turn_aborted`
event ends the turn `aborted`. Two programs are played once on the binary: one aborts while the
model request is pending (by a parent: Codex records no cause, ABORT-3; it writes a
`<turn_aborted>` user message the user never typed, ABORT-2), then, in the next turn, while one
call still runs and the other has finished (Codex kills the running call and ends the turn,
where the model lets it drain: ABORT-1, the cut); the other aborts while a call's PreToolUse
hooks run (Codex keeps the call and answers it, where the model keeps only the reply's text:
ABORT-2, the cut). The profile must explain the observations with exactly those divergences;
under a profile without one of them, the same observations are a counterexample blamed on the
rule it breaks. Claude Code's driver does not declare `abort` (SPEC section 11 says why).
"""

from __future__ import annotations

from pathlib import Path

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
from loopspec.properties.harnesses.script import Harness, capabilities_of
from loopspec.properties.harnesses.session import HarnessError, binary_of, default_adapter_dir
from loopspec.properties.profiles import PROFILES
from loopspec.properties.profiles.known import Profile
from loopspec.properties.stateful.strategies import CONFIGS

ROOT = Path(__file__).resolve().parent.parent
READ = '{"file_path":"a.txt"}'
CODEX = capabilities_of(Harness.CODEX)


def _call(call_id: str) -> ToolCallBlock:
    return ToolCallBlock(call_id, "read", READ)


# Program -> (configuration, commands, the divergence that stops it, key -> the rule a loop
# breaks that shows it without the profile's tolerance). Without the stopping divergence the
# first finding is the target's own log's: its notice after the abort's results (ADJ-4).
PROGRAMS: dict[str, tuple[LoopConfig, list[Command], str, dict[str, str]]] = {
    "running-call": (
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
        {"ABORT-3": "ABORT-3", "ADJ-4:abort-notice": "ADJ-4"},
    ),
    "pre-hook": (
        CONFIGS[2],  # two PreToolUse hooks on every tool, cap 1
        [
            SubmitUser("hi"),
            ModelReplies((TextBlock("go"), _call("c1"))),
            HookAnswers(Pass()),
            Abort(),
        ],
        "ABORT-2",
        {},
    ),
}


def _without(profile: Profile, key: str) -> Profile:
    kept = tuple(d for d in profile.divergences if d.key != key)
    return Profile(f"{profile.name}-less", profile.implementation, kept, profile.capabilities)


def test_ABORT_1_only_the_codex_driver_declares_abort() -> None:
    """ABORT-1: conform sends Abort to Codex (its driver and profile declare `abort`), never
    to Claude Code."""
    assert "abort" in capabilities_of(Harness.CODEX)
    assert "abort" not in capabilities_of(Harness.CLAUDE_CODE)
    for harness in Harness:
        assert PROFILES[harness.value].capabilities == frozenset(capabilities_of(harness))


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_ABORT_1_ABORT_2_ABORT_3_an_abort_on_codex_shows_the_known_divergences_and_no_other(
    program: str,
) -> None:
    """ABORT-1, ABORT-2, ABORT-3: a program aborting Codex stops at the profile's known
    divergence after showing the others; under a profile without any one of them, the same
    observations are a counterexample blamed on the rule that divergence breaks."""
    try:
        binary_of(Harness.CODEX, default_adapter_dir(Harness.CODEX))
    except HarnessError as error:
        pytest.fail(f"{error.message} (make harnesses installs both real CLIs)")
    config, commands, stopped_by, planted = PROGRAMS[program]
    process = SharedProcess([str(ROOT / "examples" / "codex-adapter" / "run.sh")])
    target = process()
    try:  # every command, also past where a comparison stops
        assert "abort" in target.reset(config)
        kept = [target.apply(command) for command in commands]
    finally:
        target.close()
        process.close()
    profile = PROFILES["codex"]
    found = replay_case(lambda: RecordedPlayback(kept, CODEX), config, commands, profile)
    assert found.divergence is None, found.divergence
    assert found.stopped_by == stopped_by
    assert set(planted) <= found.known, found.known
    for key, rule in {stopped_by: "ADJ-4", **planted}.items():
        planted_run = replay_case(
            lambda: RecordedPlayback(kept, CODEX), config, commands, _without(profile, key)
        )
        assert planted_run.divergence is not None, key
        assert planted_run.divergence.rule_id == rule, (key, planted_run.divergence.what)
