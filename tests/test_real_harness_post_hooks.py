"""PostToolUse hooks on the real Claude Code and Codex CLIs under `loopspec conform` (HOOK-5,
ADJ-1, ADJ-4, DEC-3).

The conform driver declares `post-hooks`: each PostToolUse hook of the configuration is a real
command hook of the CLI (Claude Code runs it as PostToolUseFailure after a failed command) that
answers what the program's `ToolFinishes` says: nothing, an `additionalContext`, or a block.
Each harness plays one program on its binary that draws every post-hook situation it handles
differently from the model: Claude Code appends a context to the result it judges (ADJ-4) and
keeps a blocked result's output (DEC-3); Codex audits a later call's hooks before an earlier
call's result (the adapter's observation, a shape), writes a block's reasons as plain output
(TEXT-1) and a context between a call and its output (ADJ-1), and ignores a block whose reason
is empty or blank (DEC-3, a test of its own). The profile must explain the
observations with exactly those divergences, which fails when the driver stops driving the
hooks; and under a profile without one of them the same observations must be a counterexample
blamed on the rule it breaks: a loop breaking it there is caught, not erased.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import attrs
import pytest
from node_requirements import Need
from real_cli_drivers import RealCliDrivers
from recorded_playback import RecordedPlayback

from loopspec.model.commands import (
    Command,
    ModelReplies,
    PostBlock,
    PostContext,
    PostPass,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, LoopConfig
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.conformance.machine import _fits
from loopspec.properties.conformance.run import SharedProcess, load_case, replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.harnesses.conform_driver import (
    CAPABILITIES,
    LogItem,
    Session,
    claude_log_items,
)
from loopspec.properties.harnesses.script import Harness
from loopspec.properties.harnesses.session import HarnessError, binary_of, default_adapter_dir
from loopspec.properties.profiles import PROFILES
from loopspec.properties.profiles.known import Profile
from loopspec.properties.stateful import swarm
from loopspec.properties.stateful.strategies import CONFIGS

ROOT = Path(__file__).resolve().parent.parent

READ = '{"file_path":"a.txt"}'
# CONFIGS[1]: PostToolUse hook `audit` on read (a safe tool, cap 2); its PreToolUse hooks match
# bash and write only.
CONFIG = CONFIGS[1]


def _call(call_id: str) -> ToolCallBlock:
    return ToolCallBlock(call_id, "read", READ)


PROGRAMS: dict[str, list[Command]] = {
    # A context on the first result, then a block on the next step's (the cut).
    "claude-code": [
        SubmitUser("hi"),
        ModelReplies((_call("c1"),)),
        ToolFinishes("c1", ToolSucceeded("A"), (PostContext("note from hook"),)),
        ModelReplies((_call("c2"),)),
        ToolFinishes("c2", ToolSucceeded("B"), (PostBlock("output withheld"),)),
    ],
    # Two calls, the later finishing first, the earlier blocked; then a context (the cut).
    "codex": [
        SubmitUser("hi"),
        ModelReplies((_call("c1"), _call("c2"))),
        ToolFinishes("c2", ToolSucceeded("B"), (PostPass(),)),
        ToolFinishes("c1", ToolSucceeded("A"), (PostBlock("output withheld"),)),
        ModelReplies((_call("c3"),)),
        ToolFinishes("c3", ToolSucceeded("C"), (PostContext("note from hook"),)),
    ],
}
# Per harness: the known divergence that stops the program, those shown before it, and the
# rule a loop breaks that shows each without the profile's tolerance. Without DEC-3, Claude
# Code's own log breaks HOOK-1 first: its audit says `block`, its result is no error (the facet
# DEC-3 tolerates); Codex's TEXT-1:post-block leaves DEC-3:blank-reason, which tolerates it too.
STOPPED_BY = {"claude-code": "DEC-3", "codex": "ADJ-1"}
PLANTED = {
    "claude-code": {"ADJ-4": "ADJ-4", "DEC-3": "HOOK-1"},
    "codex": {"post-hook-audit-place": "HOOK-5", "TEXT-1:post-block": "DEC-3", "ADJ-1": "ADJ-1"},
}


def test_HOOK_5_conform_draws_post_hook_configurations_for_the_real_clis() -> None:
    """HOOK-5: the driver declares `post-hooks` (as do the profiles), so conform draws a
    configuration with PostToolUse hooks on either CLI; without it, none fits."""
    assert "post-hooks" in CAPABILITIES
    for name in PLANTED:
        assert PROFILES[name].capabilities == frozenset(CAPABILITIES)

    def post_hooked(config: LoopConfig) -> bool:
        return any(hook.point == POST_TOOL_USE for hook in config.hooks)

    fitting = [c for c in swarm.CONFIGS if _fits(c, frozenset(CAPABILITIES))]
    assert any(post_hooked(c) for c in fitting)
    without = frozenset(CAPABILITIES) - {"post-hooks"}
    assert not any(post_hooked(c) for c in swarm.CONFIGS if _fits(c, without))


def _without(profile: Profile, key: str) -> Profile:
    kept = tuple(d for d in profile.divergences if d.key != key)
    return Profile(f"{profile.name}-less", profile.implementation, kept, profile.capabilities)


@pytest.mark.parametrize("harness", list(PROGRAMS))
@pytest.mark.needs(Need.ITS_HARNESS)
def test_ADJ_1_ADJ_4_DEC_3_post_hooks_on_the_real_cli_show_the_known_divergences_and_no_other(
    harness: str, real_cli_drivers: RealCliDrivers
) -> None:
    """ADJ-4, DEC-3 (Claude Code), ADJ-1 and TEXT-1's blocked output (Codex): a program whose
    results PostToolUse hooks judge stops at the profile's known divergence after showing the
    others; under a profile without any one of them, the same observations are a
    counterexample blamed on the rule that divergence breaks."""
    try:
        binary_of(Harness(harness), default_adapter_dir(Harness(harness)))
    except HarnessError as error:
        pytest.fail(f"{error.message} (make harnesses installs both real CLIs)")
    commands = PROGRAMS[harness]
    with real_cli_drivers.lent(harness) as process:  # every command, also past a stop
        target = process()
        assert "post-hooks" in target.reset(CONFIG)
        kept = [target.apply(command) for command in commands]
    found = replay_case(lambda: RecordedPlayback(kept), CONFIG, commands, PROFILES[harness])
    assert found.divergence is None, found.divergence
    assert found.stopped_by == STOPPED_BY[harness]
    assert set(PLANTED[harness]) <= found.known, found.known
    for key, rule in PLANTED[harness].items():
        planted = replay_case(
            lambda: RecordedPlayback(kept), CONFIG, commands, _without(PROFILES[harness], key)
        )
        assert planted.divergence is not None, key
        assert planted.divergence.rule_id == rule, (key, planted.divergence.what)


# Codex's blocks beside the case's single "" as (reasons, whether that is DEC-3:blank-reason):
# blank reasons only (the output is kept), a whitespace-only one beside a given one (left out
# of the join), and the blocks Codex words as the model does but for TEXT-1 (no blank reason,
# or an empty one beside a given one, which the model leaves out too).
BLOCKS = {("", "  "): True, (" ", "x"): True, ("x",): False, ("", "x"): False}
BLANK_REASON = "DEC-3:blank-reason"


def _post_hooked(count: int) -> LoopConfig:
    """CONFIG with `count` PostToolUse hooks on read, in configured order."""
    (audit,) = [hook for hook in CONFIG.hooks if hook.point == POST_TOOL_USE]
    extra = tuple(attrs.evolve(audit, handler_id=f"audit{n}") for n in range(2, count + 1))
    return attrs.evolve(CONFIG, hooks=(*CONFIG.hooks, *extra))


@pytest.mark.needs(Need.CODEX)
def test_DEC_3_codex_ignores_a_post_block_with_a_blank_reason(
    real_cli_drivers: RealCliDrivers,
) -> None:
    """DEC-3: Codex 0.171.0 reads a PostToolUse block whose reason is empty or blank as no
    block. The case tests/regressions/codex-DEC-3-blank-reason.json (one hook, reason "") and a
    whitespace-only reason beside a given one show the profile's DEC-3:blank-reason, and under
    a profile without it are a counterexample blamed on DEC-3; blocks Codex handles as the
    model does (but for TEXT-1's wording) do not show it."""
    try:
        binary_of(Harness.CODEX, default_adapter_dir(Harness.CODEX))
    except HarnessError as error:
        pytest.fail(f"{error.message} (make harnesses installs both real CLIs)")
    case = load_case(ROOT / "tests" / "regressions" / "codex-DEC-3-blank-reason.json")
    profile = PROFILES["codex"]
    assert case.profile is profile
    played = [(case.config, case.commands, True)]
    for reasons, shows in BLOCKS.items():
        commands = [
            *PROGRAMS["claude-code"][:2],
            ToolFinishes("c1", ToolSucceeded("A"), tuple(PostBlock(r) for r in reasons)),
            ModelReplies((TextBlock("done"),)),
        ]
        played.append((_post_hooked(len(reasons)), commands, shows))
    with real_cli_drivers.lent("codex") as process:
        recorded = [
            (_observed(process, config, commands), config, commands, shows)
            for config, commands, shows in played
        ]
    for kept, config, commands, shows in recorded:
        found = replay_case(partial(RecordedPlayback, kept), config, commands, profile)
        assert found.divergence is None, found.divergence
        assert (BLANK_REASON in found.known) == shows, (commands[2], found.known)
        if shows:
            assert found.stopped_by == BLANK_REASON
            without = _without(profile, BLANK_REASON)
            planted = replay_case(partial(RecordedPlayback, kept), config, commands, without)
            assert planted.divergence is not None, commands[2]
            assert planted.divergence.rule_id == "DEC-3", planted.divergence.what


@pytest.mark.parametrize("blank", swarm.BLANK_REASONS)
def test_DEC_3_a_loop_keeping_a_blank_reason_beside_a_given_one_is_no_codex_divergence(
    blank: str,
) -> None:
    """DEC-3: a loop that gives a text block per reason, a blank one after a given one (as the
    model does), shows nothing of Codex's DEC-3:blank-reason, whose symptom read the result's
    first text block as Codex's join of the given reasons: conform's random programs now draw
    such blocks, and under the codex profile the model itself was stopped at that known
    divergence."""
    commands = [
        *PROGRAMS["claude-code"][:2],
        ToolFinishes("c1", ToolSucceeded("A"), (PostBlock("x"), PostBlock(blank))),
        ModelReplies((TextBlock("done"),)),
    ]
    found = replay_case(ModelTarget, _post_hooked(2), commands, PROFILES["codex"])
    assert found.divergence is None, found.divergence
    assert BLANK_REASON not in found.known, found.known


def _observed(
    process: SharedProcess, config: LoopConfig, commands: list[Command]
) -> list[Observation]:
    """What the real loop did for each command (every one, also past where it diverges)."""
    target = process()
    try:
        target.reset(config)
        return [target.apply(command) for command in commands]
    finally:
        target.close()


ATTACHMENT_HELD = 1.0  # seconds the driver is kept from the context's attachment once written
CONTEXT_ATTACHMENT = '"hook_additional_context"'


@pytest.mark.needs(Need.CLAUDE_CODE)
def test_ADJ_4_claude_code_writing_a_context_after_its_result_is_awaited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ADJ-4: Claude Code sends a PostToolUse hook's context inside the result it judges (in the
    model request, sent before its transcript is written) and writes the transcript's
    `hook_additional_context` attachment after the result record. Its transcript writer appends
    what was queued every 100 ms, so a result and its attachment may land in two appends, a
    starved CLI pausing between them (not seen in 10 starved runs); the driver, settling once
    the log held the result the request carries, would report it without the context and
    lose the context for good (folded into a result already reported). Here the driver is kept
    from the attachment for a second after the CLI wrote it: the command is settled only once
    the log holds the context the request carries, and the result is reported with it."""
    try:
        binary_of(Harness.CLAUDE_CODE, default_adapter_dir(Harness.CLAUDE_CODE))
    except HarnessError as error:
        pytest.fail(f"{error.message} (make harnesses installs both real CLIs)")
    session = Session(Harness.CLAUDE_CODE, CONFIG)
    written: list[float] = []
    withheld: list[bool] = []

    def context_read_late(path: Path) -> list[LogItem]:
        text = path.read_text(encoding="utf-8", errors="replace")
        if CONTEXT_ATTACHMENT in text:
            written[:] = written or [time.monotonic()]
            if time.monotonic() - written[0] < ATTACHMENT_HELD:
                withheld.append(True)
                lines = text.splitlines(keepends=True)
                text = "".join(line for line in lines if CONTEXT_ATTACHMENT not in line)
        return claude_log_items(text)

    monkeypatch.setattr(session, "_log_items", context_read_late)
    try:
        for command in PROGRAMS["claude-code"][:2]:
            session.apply(command)
        finished = session.apply(PROGRAMS["claude-code"][2])
    finally:
        session.close()
    assert withheld  # the driver read the log while the attachment was kept from it
    (result,) = [e for e in finished["events"] if e["type"] == "tool/result"]
    texts = [part["text"] for part in result["data"]["message"]["content"][0]["content"]]
    assert texts[0] == "A"
    assert texts[1:] == [
        "<system-reminder>\nPostToolUse:Bash hook additional context: note from hook\n"
        "</system-reminder>"
    ]


@pytest.mark.needs(Need.CLAUDE_CODE)
def test_HOOK_5_a_finish_with_verdicts_not_one_per_post_hook_is_refused_as_the_model_does() -> None:
    """HOOK-5: a `ToolFinishes` carries one PostToolUse verdict per hook matching its call; with
    more or fewer the model refuses it (HOOK-5), and so does the adapter, naming HOOK-5, leaving
    the tool running, where it released the tool and dropped the extra verdict (a random program
    sending two verdicts for one hook was blamed on HOOK-5, accepted by the target)."""
    try:
        binary_of(Harness.CLAUDE_CODE, default_adapter_dir(Harness.CLAUDE_CODE))
    except HarnessError as error:
        pytest.fail(f"{error.message} (make harnesses installs both real CLIs)")
    session = Session(Harness.CLAUDE_CODE, CONFIG)  # one PostToolUse hook on read
    try:
        for command in PROGRAMS["claude-code"][:2]:
            session.apply(command)
        answers = [
            session.apply(ToolFinishes("c1", ToolSucceeded("A"), post))
            for post in [(PostPass(), PostContext("extra")), (), (PostPass(),)]
        ]
    finally:
        session.close()
    for refused in answers[:2]:
        assert refused["accepted"] is False
        assert refused["refusal"]["rule"] == "HOOK-5"
    assert answers[2]["accepted"] is True
    assert "tool/result" in [event["type"] for event in answers[2]["events"]]
