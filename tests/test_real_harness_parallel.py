"""Parallel calls on the real Claude Code and Codex CLIs under `loopspec conform` (ORD-3, SCHED-1).

The conform driver declares `parallel`: a concurrency-safe tool's call reaches Claude Code as a
command it reads as read-only (so it runs beside others, up to the configuration's cap), and
Codex runs every shell call of a reply at once. Each harness plays one case on its binary: the
profile must stop it at the harness's known divergence (Claude Code logs results as they finish,
ORD-3; Codex runs two exclusive calls together, SCHED-1), which fails when the driver stops
running calls together; and the same observations, under a profile that does not know that
divergence, must be a counterexample: a loop breaking the rule there is caught, not erased.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import attrs
import pytest
from node_requirements import Need
from real_cli_drivers import RealCliDrivers
from recorded_playback import RecordedPlayback

from loopspec.model.commands import Deny, HookAnswers, Pass, ToolFinishes
from loopspec.model.config import HookSpec
from loopspec.properties.conformance.machine import _fits
from loopspec.properties.conformance.run import load_case, replay_case
from loopspec.properties.harnesses import conform_driver
from loopspec.properties.harnesses.cli_wire import SAFE_TOOL_PROGRAM, TOOL_PROGRAM
from loopspec.properties.harnesses.conform_driver import (
    CAPABILITIES,
    Session,
    Waiting,
    call_program,
)
from loopspec.properties.harnesses.script import Harness
from loopspec.properties.harnesses.session import HarnessError, binary_of, default_adapter_dir
from loopspec.properties.profiles import PROFILES
from loopspec.properties.profiles.known import Profile
from loopspec.properties.stateful import swarm

ROOT = Path(__file__).resolve().parent.parent
# Per harness: the case that runs calls together, and the known divergence it shows.
CASES = {"claude-code": "ORD-3", "codex": "SCHED-1"}
# Every case played on its binary: also Claude Code running three read-only calls past a cap of 2.
PLAYED = [*CASES.items(), ("claude-code", "SCHED-1")]


def test_SCHED_1_conform_draws_parallel_configurations_for_the_real_clis() -> None:
    """SCHED-1: the driver declares `parallel` (as do the profiles), so conform draws a
    configuration whose calls may run together on either CLI; without it, none fits."""
    assert "parallel" in CAPABILITIES
    for name in CASES:
        assert PROFILES[name].capabilities == frozenset(CAPABILITIES)
    fitting = [c for c in swarm.CONFIGS if _fits(c, frozenset(CAPABILITIES))]
    assert any(c.max_parallel > 1 for c in fitting)
    without = frozenset(CAPABILITIES) - {"parallel"}
    assert not any(c.max_parallel > 1 for c in swarm.CONFIGS if _fits(c, without))


def _require_binary(harness: Harness) -> None:
    """Fail (never skip) with the reason when the pinned binary is not installed."""
    try:
        binary_of(harness, default_adapter_dir(harness))
    except HarnessError as error:
        pytest.fail(f"{error.message} (make harnesses installs both real CLIs)")


def _without(profile: Profile, rule: str) -> Profile:
    kept = tuple(d for d in profile.divergences if rule not in d.rules)
    return Profile(f"{profile.name}-less", profile.implementation, kept, profile.capabilities)


@pytest.mark.parametrize(("harness", "rule"), PLAYED)
@pytest.mark.needs(Need.ITS_HARNESS)
def test_ORD_3_SCHED_1_parallel_calls_on_the_real_cli_show_the_known_divergence_and_no_other(
    harness: str, rule: str, real_cli_drivers: RealCliDrivers
) -> None:
    """ORD-3 (Claude Code), SCHED-1 (Codex; Claude Code past a cap of 2): calls that run
    together on the binary stop the program at the profile's known divergence; under a profile
    without it the same observations are a counterexample blamed on that rule."""
    _require_binary(Harness(harness))
    case = load_case(ROOT / "tests" / "regressions" / f"{harness}-{rule}.json")
    with real_cli_drivers.lent(harness) as process:  # every command, also past a stop
        target = process()
        assert "parallel" in target.reset(case.config)
        kept = [target.apply(command) for command in case.commands]
    found = replay_case(
        lambda: RecordedPlayback(kept), case.config, case.commands, PROFILES[harness]
    )
    # The whole report and what the binary appended, so that a failure seen once (a race on
    # the binary, in a fresh clone's run) can be read without rerunning it.
    assert found.divergence is None, (
        f"{found.divergence.rule_id}: {found.divergence.what}\n"
        + "\n".join(f"command #{n + 1}: {o.events}" for n, o in enumerate(kept))
    )
    assert found.stopped_by == rule
    planted = replay_case(
        lambda: RecordedPlayback(kept),
        case.config,
        case.commands,
        _without(PROFILES[harness], rule),
    )
    assert planted.divergence is not None
    assert planted.divergence.rule_id == rule, planted.divergence.what


def test_SCHED_1_under_a_cap_of_one_claude_code_gets_no_read_only_command() -> None:
    """SCHED-1: Claude Code 2.1.332 runs read-only commands together even with
    CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY=1 (two `tac` calls overlapped), so under a cap of 1 a
    safe call runs the absolute path, which it runs alone; under a larger cap it runs `tac`."""
    bin_dir = Path("/bin-dir")
    one = next(c for c in swarm.CONFIGS if c.max_parallel == 1)
    two = next(c for c in swarm.CONFIGS if c.max_parallel == 2)
    assert any(tool.name == "read" and tool.concurrency_safe for tool in one.tools)
    assert call_program(Harness.CLAUDE_CODE, one, "read", bin_dir) == str(bin_dir / TOOL_PROGRAM)
    assert call_program(Harness.CLAUDE_CODE, two, "read", bin_dir) == SAFE_TOOL_PROGRAM


def _results(observed: dict[str, Any]) -> list[str]:
    """The calls whose tool/result one command's answer reports, in order."""
    events = observed["events"]
    return [e["data"]["message"]["source"]["callId"] for e in events if e["type"] == "tool/result"]


@pytest.mark.parametrize(
    ("harness", "first", "later"),
    [("claude-code", "c2", "c1"), ("codex", "c1", "c2")],
    ids=["claude-code", "codex"],
)
@pytest.mark.needs(Need.ITS_HARNESS)
def test_ORD_3_a_result_a_starved_cli_writes_late_is_reported_with_its_release(
    harness: str,
    first: str,
    later: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ORD-3: Claude Code writes a read's result as its command ends, while the read beside it
    still runs; Codex writes a reply's outputs in the order of its calls, the first's at once.
    Settled on a quiet moment before a CPU-starved CLI had written it, the result of the call
    released first came with the other's command (in Claude Code ahead of it: the ORD-3 case
    was blamed on ORD-3 out of order, about one run in six in a loaded suite). The CLI is
    stopped here for a second as that call's tool is released: the adapter waits for the
    result the release made due, saying on stderr what it awaits (a CLI that never writes it
    is reported by conform's answer timeout, with that line)."""
    _require_binary(Harness(harness))
    monkeypatch.setattr(conform_driver, "WAIT_NOTE", 0.5)
    case = load_case(ROOT / "tests" / "regressions" / "claude-code-ORD-3.json")
    finishes = {c.call_id: c for c in case.commands if isinstance(c, ToolFinishes)}
    commands = (*case.commands[:2], finishes[first], finishes[later], case.commands[-1])
    session = Session(Harness(harness), case.config)
    stopped = _starve_at_first(session, "tool", first)
    try:
        observed = [session.apply(command) for command in commands]
    finally:
        session.close()
    assert stopped == [first]
    assert [_results(o) for o in observed] == [[], [], [first], [later], []]
    awaited = f"waiting for its log to hold the result of call {first}, which the program's"
    assert awaited in capsys.readouterr().err


def _starve_at_first(session: Session, kind: str, call: str) -> list[str]:
    """Stop the session's CLI for a second (a CPU-starved one: longer than the quiet moment a
    command is settled on) as the program releases the first `kind` process of `call`; the
    list names each call it was stopped for."""
    release = session.control.release
    stopped: list[str] = []

    def starved(waiting: Waiting, answer: dict[str, Any]) -> None:
        seen = waiting.request.get("stdin")
        of = waiting.request.get("call") if kind == "tool" else (seen or {}).get("tool_use_id")
        if waiting.kind == kind and of == call and not stopped and session.process is not None:
            group = session.process.pid
            os.killpg(group, signal.SIGSTOP)  # before the release: nothing is done meanwhile
            threading.Timer(1.0, os.killpg, (group, signal.SIGCONT)).start()
            stopped.append(call)
        release(waiting, answer)

    session.control.release = starved  # type: ignore[method-assign]  # to stop the CLI there
    return stopped


@pytest.mark.parametrize(
    ("harness", "verdict"),
    [
        ("claude-code", Pass()),
        ("codex", Pass()),
        ("claude-code", Deny("no")),
        ("codex", Deny("no")),
    ],
    ids=["claude-code-pass", "codex-pass", "claude-code-deny", "codex-deny"],
)
@pytest.mark.needs(Need.ITS_HARNESS)
def test_ORD_3_a_call_a_starved_cli_starts_late_after_its_hooks_is_reported_with_their_answer(
    harness: str, verdict: Pass | Deny
) -> None:
    """ORD-3: two reads with a PreToolUse hook each; the first `HookAnswers` answers c1's.
    Each CLI starts c1's tool (or, denied, records its result) at once, while
    c2's hook still waits. Settled on a quiet moment before a CPU-starved CLI had done it, the
    start (the denial) came with the next command, c2's answer; the adapter waits for it."""
    _require_binary(Harness(harness))
    case = load_case(ROOT / "tests" / "regressions" / "claude-code-ORD-3.json")
    config = attrs.evolve(case.config, hooks=(HookSpec("gate"),))
    session = Session(Harness(harness), config)
    stopped = _starve_at_first(session, "hook", "c1")
    try:
        observed = [
            session.apply(command)
            for command in (*case.commands[:2], HookAnswers(verdict), HookAnswers(Pass()))
        ]
    finally:
        session.close()
    assert stopped == ["c1"]
    answered = observed[2]
    if isinstance(verdict, Deny):
        assert (_results(answered), answered["executed"]) == (["c1"], [])
    else:
        assert [run["callId"] for run in answered["executed"]] == ["c1"]
