"""A profile describes one implementation, for what conform sends that one (PROTO-1).

A profile erases its implementation's known divergences; it knows nothing of a command that
implementation never receives, because its adapter does not declare the capability. Applied to
a case or a target that uses such a command, its erasers blame right answers (the codex profile
on a dsh abort case, on the bundled implementation: EXE-4, where the model's result had an
error the profile erased). So replay refuses such a case with one line, and conform sends a
target only what the profile's implementation declares.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from batches import BATCH_SEED

from loopspec.properties.cli.main import main
from loopspec.properties.conformance.run import (
    TargetError,
    load_case,
    replay_case,
    run_conformance,
)
from loopspec.properties.conformance.target import ModelTarget
from loopspec.properties.harnesses.conform_driver import CAPABILITIES as DRIVEN
from loopspec.properties.profiles.dsh import PROFILE as DSH
from loopspec.properties.profiles.real_harnesses import PROFILES

REPO = Path(__file__).resolve().parent.parent
CRASH_CASE = REPO / "tests" / "regressions" / "dsh-crash-during-pre-hook-keeps-reply.json"


def test_PROTO_1_replay_refuses_a_profile_whose_implementation_lacks_a_capability() -> None:
    """PROTO-1: a dsh crash case, replayed with the claude-code profile (its adapter sends no
    crash), is refused naming the command, the capability and the profile (a dsh abort case
    with the codex profile, before Codex's adapter sent aborts, was blamed EXE-4 on a right
    answer)."""
    case = load_case(CRASH_CASE)
    with pytest.raises(TargetError) as refused:
        replay_case(ModelTarget, case.config, case.commands, PROFILES["claude-code"])
    message = refused.value.message
    assert "command #3 of the case (Crash) needs the capability crash-repair" in message
    assert "the claude-code profile's implementation" in message
    # With the profile of the implementation it was recorded on, it replays as before.
    replay = replay_case(ModelTarget, case.config, case.commands, DSH)
    assert replay.divergence is None


def test_PROTO_1_replay_with_a_foreign_profile_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: on the command line the refusal is one error line, exit 2, no verdict. It names
    no rule: the case and the profile do not fit, whatever the target does (it said [PROTO-1],
    as if the target had broken the protocol)."""
    assert main(["replay", str(CRASH_CASE), "--bundled", "--profile", "claude-code"]) == 2
    captured = capsys.readouterr()
    errors = captured.err.strip().splitlines()
    assert len(errors) == 1, captured.err
    # At the line of the command, as a case's own faults are named.
    line = load_case(CRASH_CASE).line_of_command(2)
    assert errors[0].startswith(f"loopspec: error: {CRASH_CASE}:{line}: command #3 of the case")
    assert "needs the capability crash-repair" in errors[0]
    assert "claude-code profile's implementation" in errors[0]
    assert "divergence" not in captured.out


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_PROTO_1_conform_sends_only_what_the_profiles_implementation_declares() -> None:
    """PROTO-1: a target declaring every capability, run with a real harness's profile, is
    run with the capabilities that harness's adapter declares only (abort, but no crash)."""
    report = run_conformance(
        ModelTarget,
        examples=2,
        seed_value=BATCH_SEED,
        show_progress=False,
        profile=PROFILES["codex"],
        shrink=False,
    )
    assert report.capabilities == frozenset(DRIVEN)


def test_PROTO_1_each_profile_states_its_adapters_capabilities() -> None:
    """PROTO-1: the capabilities a profile states are the ones its adapter declares: the real
    harnesses' conform driver's, and those examples/dsh-adapter lists."""
    for profile in PROFILES.values():
        assert profile.capabilities == frozenset(DRIVEN)
    adapter = (REPO / "examples" / "dsh-adapter" / "adapter.mjs").read_text(encoding="utf-8")
    listed = re.search(r"CAPABILITIES = Object\.freeze\(\[(.*?)\]\)", adapter, re.S)
    assert listed is not None
    assert DSH.capabilities == frozenset(re.findall(r"'([a-z-]+)'", listed.group(1)))
