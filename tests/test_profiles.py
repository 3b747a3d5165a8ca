"""Profiles: a real harness's known divergences, erased in a conform run and reported as known.

The profile machinery must not hide anything it does not name: a planted bug is still caught
under the dsh profile, a target whose only difference is one named divergence passes and gets
it reported, and the same target fails without the profile. None of this needs node.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import attrs
import pytest
from batches import BATCH_SEED, seeded
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from mutants import MUTANTS, MutantTarget

from loopspec.model.commands import (
    Allow,
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import PRE_TOOL_USE, HookSpec, LoopConfig
from loopspec.model.derive import derive_messages
from loopspec.model.events import Event as LogEvent
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.wire import event_from_wire
from loopspec.properties.cli.main import main
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.history_change import DerivedHistory
from loopspec.properties.conformance.impl_target import bundled_target
from loopspec.properties.conformance.machine import conformance_machine, prompt_texts
from loopspec.properties.conformance.run import (
    Replay,
    load_case,
    replay_case,
    rule_table,
    run_conformance,
)
from loopspec.properties.conformance.target import ModelTarget, Observation, atomic_units
from loopspec.properties.profiles import PROFILES
from loopspec.properties.profiles.dsh import PROFILE as DSH
from loopspec.properties.profiles.known import KnownDivergence, Profile
from loopspec.properties.profiles.runs import Event, Pair, Run, both, map_events
from loopspec.properties.stateful import strategies as gen

SPEC = Path(__file__).resolve().parent.parent / "SPEC.md"
BUDGET = settings(
    max_examples=400,
    stateful_step_count=40,
    database=None,
    deadline=None,
    # Generation only: shrinking is most of a kill's cost; it is checked once, below.
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


class ShoutingErrors(ModelTarget):
    """The model, but every error result says 'ERROR:' where the model says 'Error:'."""

    name = "shouting-errors"

    def apply(self, command: Command) -> Observation:
        observation = super().apply(command)
        events = tuple(_shout(event) for event in observation.events)
        return Observation(
            observation.accepted,
            events,
            observation.commits,
            observation.executed,
            observation.refusal_rule,
            observation.refusal_message,
            observation.atomic,
        )


def _shout(event: dict[str, Any]) -> dict[str, Any]:
    if event.get("type") != "tool/result":
        return event
    event = copy.deepcopy(event)
    block = event["data"]["message"]["content"][0]["content"][0]
    block["text"] = re.sub(r"^Error:", "ERROR:", block["text"])
    return event


def _quiet(event: Event) -> Event:
    return _shout(event) if event["type"] == "tool/result" else event


def _erase_shouting(pair: Pair) -> Pair:
    def change(run: Run) -> Run:
        return map_events(run, _quiet)

    return both(change)(pair)


SHOUTING = Profile(
    "shouting",
    "ShoutingErrors",
    (
        KnownDivergence(
            "shouted-errors", ("DEC-1",), "Error texts say ERROR:.", erase_pair=_erase_shouting
        ),
    ),
)


class MergesToolContexts(ModelTarget):
    """The model, but a tool's several deferred contexts reach the next step as one
    user/message with a text block each (no hook gave them); later seqs move up to match. Its
    history is what that log derives, as a loop that merged them would send it."""

    name = "merges-tool-contexts"

    def __init__(self) -> None:
        super().__init__()
        self._merged = 0
        self._own_log: list[LogEvent] = []
        self._own_history = DerivedHistory()

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self._merged = 0
        self._own_log = []
        self._own_history = DerivedHistory()
        return super().reset(config)

    def apply(self, command: Command) -> Observation:
        observation = super().apply(command)
        merged: list[dict[str, Any]] = []
        for event in copy.deepcopy(observation.events):
            if _tool_context(event) and merged and _tool_context(merged[-1]):
                merged[-1]["data"]["content"] += event["data"]["content"]
                continue
            merged.append(event)
        first = observation.events[0]["seq"] - self._merged if observation.events else 0
        for index, event in enumerate(merged):
            event["seq"] = first + index
        self._merged += len(observation.events) - len(merged)
        commits = (len(merged),) if merged else ()
        events = tuple(merged)
        self._own_log.extend(event_from_wire(event) for event in events)
        history = observation.history
        if history is not None:
            history = self._own_history.change(derive_messages(self._own_log))
        return attrs.evolve(
            observation,
            events=events,
            commits=commits,
            atomic=atomic_units(events),
            history=history,
        )


def _tool_context(event: dict[str, Any]) -> bool:
    source = event["data"].get("source", {}) if event["type"] == "user/message" else {}
    return bool(source.get("plugin") == "tool-context")


def test_ADJ_4_the_dsh_profile_does_not_hide_a_tool_s_contexts_merged_into_one_message() -> None:
    """ADJ-4: dsh gives one call's several PostToolUse hooks' contexts as one message
    (post-contexts-one-message), but a tool's own deferred contexts one message each, like the
    model. The profile split every multi-block tool-context message, so a loop merging a tool's
    own contexts passed under it; it splits only dsh's hook-context messages now."""
    program: list[Command] = [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", gen.ARGUMENTS["read"][0]),)),
        ToolFinishes("c1", ToolSucceeded("A", contexts=("one", "two"))),
        ModelReplies((TextBlock("ok"),)),
    ]
    for profile in (None, DSH):
        replay = replay_case(MergesToolContexts, gen.CONFIGS[0], program, profile)
        assert replay.divergence is not None, profile
        assert replay.divergence.rule_id == "ADJ-4", replay.divergence.what


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_a_named_divergence_passes_and_is_reported_as_known() -> None:
    """MODEL-1: the only difference is the profile's one divergence: conformant, reported known,
    and the rule it touches says so."""
    report = run_conformance(ShoutingErrors, examples=40, seed_value=BATCH_SEED,
                             show_progress=False, profile=SHOUTING)  # fmt: skip
    assert report.conformant, report.divergence
    assert report.known.get("shouted-errors", 0) > 0
    rows = {row["rule"]: row for row in rule_table(report)}
    assert rows["DEC-1"]["status"] == "known divergence"
    assert rows["DEC-1"]["known"] == ["shouted-errors"]


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_the_same_target_fails_without_the_profile() -> None:
    """MODEL-1: without the profile, the same difference is a counterexample."""
    report = run_conformance(
        ShoutingErrors, examples=40, seed_value=BATCH_SEED, show_progress=False
    )
    assert report.divergence is not None


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_the_bundled_impl_passes_under_the_dsh_profile() -> None:
    """MODEL-1: a conformant implementation (it refuses without naming rules) passes under a
    profile too, and shows none of dsh's divergences."""
    report = run_conformance(bundled_target, examples=60, seed_value=BATCH_SEED,
                             show_progress=False, profile=DSH)  # fmt: skip
    assert report.conformant, report.divergence
    assert report.known == {}


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_the_model_shows_no_known_divergence() -> None:
    """MODEL-1: the model under the dsh profile passes and shows none of dsh's divergences:
    erasers applied to equal runs change both alike, and no symptom fires on equal runs."""
    report = run_conformance(ModelTarget, examples=30, seed_value=BATCH_SEED, show_progress=False,
                             profile=DSH)  # fmt: skip
    assert report.conformant, report.divergence
    assert report.known == {}


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize(
    "name", ["completion-order-results", "context-between-call-and-result", "deny-still-executes"]
)
def test_MODEL_1_a_profile_does_not_hide_a_planted_bug(name: str) -> None:
    """MODEL-1, ORD-3, ADJ-1, DEC-1: a planted bug is still caught under the dsh profile."""
    mutant = next(m for m in MUTANTS if m.name == name)
    with pytest.raises(DivergenceFound) as found:
        run_state_machine_as_test(
            seeded(conformance_machine(lambda: MutantTarget(mutant), DSH)), settings=BUDGET
        )
    assert found.value.divergence.rule_id == mutant.rule_id, found.value.divergence.what


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_shrinking_under_a_profile_keeps_the_rule_a_planted_bug_broke() -> None:
    """MODEL-1, ORD-3: shrinking a counterexample found under the dsh profile (erasers and
    symptoms applied to every candidate) still blames the rule the planted bug breaks."""
    mutant = next(m for m in MUTANTS if m.name == "completion-order-results")
    with pytest.raises(DivergenceFound) as found:
        run_state_machine_as_test(
            seeded(conformance_machine(lambda: MutantTarget(mutant), DSH)),
            settings=settings(BUDGET, phases=[Phase.generate, Phase.shrink]),
        )
    assert found.value.divergence.rule_id == mutant.rule_id, found.value.divergence.what


REAL_PROFILES = [name for name in PROFILES if name != DSH.name]
REGRESSIONS_DIR = Path(__file__).resolve().parent / "regressions"
REGRESSIONS = sorted(REGRESSIONS_DIR.glob("*.json"))


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize("name", REAL_PROFILES)
@pytest.mark.parametrize("batch", [0, 1, 2])
def test_MODEL_1_a_correct_loop_passes_under_a_real_cli_profile(name: str, batch: int) -> None:
    """MODEL-1: a profile is a tolerance: its implementation may differ from the model in the
    ways it names, and a loop that does what the model does instead passes too, showing none of
    them. The profiles of the real CLIs erased a difference from the model's run only (its tool
    contexts, a rewrite's sidecar, an empty reply, a result's error code), so the bundled
    implementation was blamed on ADJ-4 under both at its first program with a tool context; and
    an unknown tool's settled call cut every program that drew one as a known divergence.
    20 programs a batch suffice: before the fix every batch failed at its first program, and
    with any one of the fixed erasers undone alone every batch fails within 5 programs (the
    settled calls: 12 to 18 programs known)."""
    report = run_conformance(bundled_target, examples=20, seed_value=BATCH_SEED + batch,
                             show_progress=False, profile=PROFILES[name])  # fmt: skip
    assert report.conformant, report.divergence
    assert report.known == {}


@pytest.mark.parametrize("path", REGRESSIONS, ids=[path.stem for path in REGRESSIONS])
def test_MODEL_1_every_profile_case_replays_on_a_correct_loop(path: Path) -> None:
    """MODEL-1: each profile's case of a known divergence, replayed on the bundled
    implementation under that profile, finds no divergence and shows none of the profile's: a
    loop without the divergence is not blamed for lacking it. (claude-code-TURN-1.json sent 'hi'
    after its blank prompt, a prompt while busy on a loop that opens a turn for the blank one:
    queued input, which the claude-code profile does not describe, so its replay was refused.)"""
    case = load_case(path)
    assert case.profile is not None
    replay = replay_case(bundled_target, case.config, case.commands, case.profile)
    assert replay.divergence is None, replay.divergence
    assert replay.known == frozenset()
    assert replay.stopped_by is None


# Bugs no profile knows, each reachable with the capabilities of every profile's implementation.
UNFORGIVEN = ["result-in-next-step", "turn-end-with-step-open", "hooks-run-twice"]


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize("name", REAL_PROFILES)
@pytest.mark.parametrize("mutant_name", UNFORGIVEN)
def test_MODEL_1_STEP_3_TURN_2_HOOK_4_a_real_cli_profile_does_not_hide_a_planted_bug(
    name: str, mutant_name: str
) -> None:
    """MODEL-1, STEP-3, TURN-2, HOOK-4: a bug the profile does not name is caught under it,
    blamed on the rule the bug breaks, as without a profile: tolerating the model's behaviour
    next to a known difference forgives nothing else."""
    profile = PROFILES[name]
    mutant = next(m for m in MUTANTS if m.name == mutant_name)
    assert not set(mutant.blamed) & {rule for d in profile.divergences for rule in d.rules}
    with pytest.raises(DivergenceFound) as found:
        run_state_machine_as_test(
            seeded(conformance_machine(lambda: MutantTarget(mutant), profile)), settings=BUDGET
        )
    assert found.value.divergence.rule_id in mutant.blamed, found.value.divergence.what


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_DEC_1_claude_code_s_profile_does_not_hide_a_denied_call_that_runs() -> None:
    """DEC-1: Codex is known to run a call a hook denied; Claude Code is not, so under its
    profile the planted bug is blamed on DEC-1."""
    profile = PROFILES["claude-code"]
    assert "DEC-1" not in {rule for d in profile.divergences for rule in d.rules}
    mutant = next(m for m in MUTANTS if m.name == "deny-still-executes")
    with pytest.raises(DivergenceFound) as found:
        run_state_machine_as_test(
            seeded(conformance_machine(lambda: MutantTarget(mutant), profile)), settings=BUDGET
        )
    assert found.value.divergence.rule_id == mutant.rule_id, found.value.divergence.what


def test_ORD_3_claude_code_s_profile_knows_a_denial_logged_ahead_of_a_running_call() -> None:
    """ORD-3: Claude Code logs a read-only call's denial as its PreToolUse hook denies it, ahead
    of an earlier call of the reply still running (claude-code-ORD-3-denied-at-once.json; first
    seen with a whitespace-only reason, any reason does it). A loop that commits results as they
    are ready does that on the case: its profile reads it as that known divergence, and the
    profile without it blames ORD-3."""
    case = load_case(REGRESSIONS_DIR / "claude-code-ORD-3-denied-at-once.json")
    mutant = next(m for m in MUTANTS if m.name == "completion-order-results")
    profile = PROFILES["claude-code"]
    replay = replay_case(lambda: MutantTarget(mutant), case.config, case.commands, profile)
    assert replay.divergence is None, replay.divergence
    assert replay.known == frozenset({"ORD-3:denied-at-once"})
    without = Profile(
        "without-denied-at-once",
        profile.implementation,
        tuple(d for d in profile.divergences if d.key != "ORD-3:denied-at-once"),
    )
    blamed = replay_case(lambda: MutantTarget(mutant), case.config, case.commands, without)
    assert blamed.divergence is not None
    assert blamed.divergence.rule_id == "ORD-3", blamed.divergence.what


def _denial_ahead_of_a_running_call(first: str, second: str, max_parallel: int) -> Replay:
    """A loop that commits results as they are ready (the mutant completion-order-results) on a
    reply of a `first` then a `second` call, each gated by a PreToolUse hook, the second denied
    while the first runs: replayed under Claude Code's profile."""
    case = load_case(REGRESSIONS_DIR / "claude-code-ORD-3-denied-at-once.json")
    config = attrs.evolve(
        case.config, hooks=(HookSpec("audit", PRE_TOOL_USE, "*"),), max_parallel=max_parallel
    )
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies(
            (
                ToolCallBlock("c1", first, _ARGUMENTS[first]),
                ToolCallBlock("c2", second, _ARGUMENTS[second]),
            )
        ),
        HookAnswers(Allow()),
        HookAnswers(Deny("not that one")),
        ToolFinishes("c1", ToolSucceeded("done")),
        ModelReplies((TextBlock("ok"),)),
    ]
    mutant = next(m for m in MUTANTS if m.name == "completion-order-results")
    return replay_case(lambda: MutantTarget(mutant), config, program, PROFILES["claude-code"])


_ARGUMENTS = {
    "read": '{"file_path":"a.txt"}',
    "write": '{"file_path":"a.txt","content":"new"}',
}


@pytest.mark.parametrize(
    ("first", "second", "max_parallel"),
    [("write", "read", 10), ("read", "write", 10), ("read", "read", 1)],
    ids=["running-write", "denied-write", "reads-under-a-cap-of-1"],
)
def test_ORD_3_claude_code_s_profile_blames_a_denial_logged_ahead_of_a_call_run_alone(
    first: str, second: str, max_parallel: int
) -> None:
    """ORD-3: Claude Code logs a denial at once only where both calls reach it as read-only
    commands (concurrency-safe tools under a cap above 1): it runs a call that writes alone,
    its hooks as it starts, so a denial logged ahead of a running write, or a write's denial
    ahead of a running read, is no known divergence (its profile excused both while its
    symptom did not see the configuration). The same loop on two reads is known."""
    blamed = _denial_ahead_of_a_running_call(first, second, max_parallel).divergence
    assert blamed is not None
    assert blamed.rule_id == "ORD-3", blamed.what
    known = _denial_ahead_of_a_running_call("read", "read", 10)
    assert known.divergence is None, known.divergence
    assert known.known == frozenset({"ORD-3:denied-at-once"})


# Two steps of parallel reads, the second reusing the id of a call of the first (EXE-1: ids are
# unique within one reply only), its later call finishing first.
_REUSED_ID_PROGRAM: tuple[Command, ...] = (
    SubmitUser("read them"),
    ModelReplies(
        (
            ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),
            ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),
        )
    ),
    ToolFinishes("c1", ToolSucceeded("a")),
    ToolFinishes("c2", ToolSucceeded("b")),
    ModelReplies(
        (
            ToolCallBlock("c3", "read", '{"file_path":"c.txt"}'),
            ToolCallBlock("c2", "read", '{"file_path":"d.txt"}'),
        )
    ),
    ToolFinishes("c2", ToolSucceeded("d")),
    ToolFinishes("c3", ToolSucceeded("c")),
    ModelReplies((TextBlock("done"),)),
)


def test_ORD_3_a_profile_follows_a_reused_call_id_as_the_call_of_its_own_reply() -> None:
    """ORD-3, EXE-1: a later reply's call reusing an earlier reply's id is a call of its own to a
    profile's symptoms. Claude Code logs the reused call's result as its read finishes, ahead of
    the reply's first read still running (a loop committing results as they are ready does
    too): its profile's ORD-3. When the symptom followed a call by its id through the whole
    run, the reused call started in the first step and ended there, ran beside nothing of the
    second, and the result was blamed on ORD-3 (seen on Claude Code 2.1.332, 2026-12-05)."""
    case = load_case(REGRESSIONS_DIR / "claude-code-ORD-3-denied-at-once.json")
    config = attrs.evolve(case.config, hooks=())
    mutant = next(m for m in MUTANTS if m.name == "completion-order-results")
    replay = replay_case(
        lambda: MutantTarget(mutant), config, list(_REUSED_ID_PROGRAM), PROFILES["claude-code"]
    )
    assert replay.divergence is None, replay.divergence
    assert "ORD-3" in replay.known, replay.known


def test_every_dsh_divergence_is_stated_in_spec_section_8() -> None:
    """SPEC.md section 8 names every known divergence of the dsh profile by its key."""
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("## 8. Divergences from dsh") :]
    named = set(re.findall(r"`([a-z][a-z-]+)`", section))
    assert {d.key for d in DSH.divergences} - named == set()
    assert PROFILES["dsh"] is DSH


def test_a_known_divergence_has_an_eraser_or_a_symptom() -> None:
    """Exactly one of the two: a divergence is either erased or detected."""
    with pytest.raises(ValueError, match="exactly one"):
        KnownDivergence("neither", (), "nothing")
    known = KnownDivergence("x", (), "x", erase_pair=lambda pair: pair)
    with pytest.raises(ValueError, match="twice"):
        Profile("twice", "x", (known, known))
    # Or only a history eraser (HIST-1:reused-call-id): the runs agree, only histories differ;
    # then it erases nothing of the runs, and, being soft, has no commands to avoid.
    history_only = KnownDivergence(
        "h", ("HIST-1",), "h", erase_history=lambda log, reported: (list(log), [])
    )
    pair: Pair = ([{"accepted": True}], [{"accepted": False}])
    assert history_only.erase(pair, [{"kind": "Pass"}], gen.CONFIGS[0]) is pair
    assert not history_only.hard
    assert Profile("h", "x", (history_only,)).history_erasers == (
        ("h", history_only.erase_history),
    )
    with pytest.raises(ValueError, match="only a hard divergence"):
        attrs.evolve(history_only, avoid=lambda command, config: True)
    with pytest.raises(ValueError, match="exactly one"):
        attrs.evolve(history_only, erase_pair=lambda pair: pair, symptom=lambda *_: True)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_conform_cli_reports_the_profile(capsys: pytest.CaptureFixture[str]) -> None:
    """`loopspec conform --profile dsh` says the verdict is up to the profile and lists every
    known divergence with the programs that showed it."""
    argv = [
        "conform",
        "--impl",
        "loopspec.properties.conformance.target:ModelTarget",
        "--profile",
        "dsh",
    ]
    assert main([*argv, "--examples", "10"]) == 0
    out = capsys.readouterr().out
    assert "CONFORMANT (up to the dsh profile's known divergences)" in out
    for divergence in DSH.divergences:
        assert re.search(rf"^  {re.escape(divergence.key)} +not shown", out, re.M)
    with pytest.raises(SystemExit) as refused:
        main(["conform", "--profile", "nonesuch"])
    assert refused.value.code == 2


class BlankRefusing(ModelTarget):
    """The model, but a blank prompt is refused (as Claude Code refuses one, TURN-1)."""

    name = "blank-refusing"

    def apply(self, command: Command) -> Observation:
        if isinstance(command, SubmitUser) and not command.text.strip():
            return Observation(False, refusal_rule="TURN-1", refusal_message="blank prompt")
        return super().apply(command)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_TURN_1_random_programs_leave_out_a_command_the_target_refuses_at_once() -> None:
    """TURN-1: Claude Code's profile names the blank prompt it refuses as a command to avoid, so
    random programs never stop at it; without `avoid` the same profile's runs do stop there.
    The other profiles, and runs without one, draw every text of the generator unchanged."""
    refusal = PROFILES["claude-code"].divergence("TURN-1")
    assert refusal.avoid is not None
    avoiding = Profile("blank-refusing", "x", (refusal,))
    blind = Profile("blank-refusing", "x", (attrs.evolve(refusal, avoid=None),))
    assert avoiding.avoids(SubmitUser(" "), gen.CONFIGS[0])
    assert not avoiding.avoids(SubmitUser("ok"), gen.CONFIGS[0])
    steered = run_conformance(BlankRefusing, examples=15, seed_value=BATCH_SEED, steps=10,
                              show_progress=False, profile=avoiding)  # fmt: skip
    assert steered.conformant, steered.divergence
    assert steered.known.get("TURN-1", 0) == 0
    unsteered = run_conformance(BlankRefusing, examples=15, seed_value=BATCH_SEED, steps=10,
                                show_progress=False, profile=blind)  # fmt: skip
    assert unsteered.conformant, unsteered.divergence
    assert unsteered.known.get("TURN-1", 0) > 0
    assert steered.steps > unsteered.steps  # the same programs, no longer cut at a blank prompt
    assert prompt_texts(None) is gen.texts
    # dsh's profile avoids arguments (whitespace-arguments-invalid), never a prompt.
    for name in ("dsh", "codex"):
        assert prompt_texts(PROFILES[name]) is gen.texts
    with pytest.raises(ValueError, match="only a hard divergence"):
        KnownDivergence(
            "x", (), "x", erase_pair=lambda pair: pair, avoid=lambda command, config: True
        )
