"""Wrong loops whose situation no generated program created, now caught by the random search.

Session 22's realistic wrong loops included some that `loopspec conform` passed on every seed,
because no program created the situation they mishandle: a PreToolUse hook that allows with a
reason (a real hook's permissionDecisionReason on allow, which is only logged), a body that
defers an empty context, a model request that fails with an empty message; reading SPEC.md rule
by rule found two more (session 23): a body failing with an error name other than ToolError, a
PostToolUse hook blocking without a reason. The generator now creates each
(`properties/stateful/swarm.py`, `strategies.failure_on`; counted in
`test_generation_reach.py`). Each wrong loop here is the bundled implementation with one piece
patched the way such a loop gets it wrong; conform must find it, blaming the rule it breaks,
within 200 programs on seeds 1 and 2. Neither sweep around the search (section 12's examples,
the targeted situations) has any of these situations: the random search finds them.

One more of session 22's passed for another reason: a crash repair that stamps its closers with
the loop's clock (REC-1: the last event's time). The bundled implementation ran under conform
on a clock stopped at one instant, where every time is the last event's; its clock now moves on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest

from loopspec.impl import agent_loop, policy, recorder, repair, results
from loopspec.impl.clock import Clock
from loopspec.model.commands import (
    Allow,
    Ask,
    Command,
    Deny,
    HookAnswers,
    ModelFails,
    PostBlock,
    PostVerdict,
    PreVerdict,
    ToolFailed,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec
from loopspec.model.events import Event
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import TextBlock
from loopspec.properties.conformance.impl_target import bundled_target
from loopspec.properties.conformance.run import run_conformance

PROGRAMS = 200
SEEDS = (1, 2)


def _allow_reasons_joined(
    verdicts: Sequence[PreVerdict], kind: type[Ask] | type[Deny]
) -> str | None:
    """The winning rank's reasons joined, an allowing hook's among them (a loop that reads a
    reason as a reason, whatever the hook decided)."""
    said = (policy.stated_reason(v) for v in verdicts if isinstance(v, kind | Allow))
    return "; ".join(reason for reason in said if reason) or None


def _empty_body_contexts_kept(
    original: Callable[..., results.PreparedResult],
) -> Callable[..., results.PreparedResult]:
    """`judged_result`, except that a body's empty contexts are queued like any other."""

    def judged(
        outcome: ToolOutcome,
        audit: tuple[tuple[HookSpec, PostVerdict, float], ...],
        *,
        after_abort: bool,
    ) -> results.PreparedResult:
        result = original(outcome, audit, after_abort=after_abort)
        if not isinstance(outcome, ToolSucceeded) or after_abort or result.is_error:
            return result
        own = tuple(text for text in outcome.contexts if text)
        from_hooks = result.contexts[len(own) :]
        return attrs.evolve(result, contexts=(*outcome.contexts, *from_hooks))

    return judged


def _empty_message_worded(
    original: Callable[[recorder.Recorder, int, FrozenMap], None],
) -> Callable[[recorder.Recorder, int, FrozenMap], None]:
    """`Recorder.turn_ended`, except that a failure without a message is recorded with a
    message of the loop's own."""

    def ended(self: recorder.Recorder, turn: int, reason: FrozenMap) -> None:
        error = reason.get("error")
        if isinstance(error, FrozenMap) and error.get("message") == "":
            worded = FrozenMap({**error, "message": "model request failed"})
            reason = FrozenMap({**reason, "error": worded})
        original(self, turn, reason)

    return ended


def _every_failure_a_tool_error(
    original: Callable[..., results.PreparedResult],
) -> Callable[..., results.PreparedResult]:
    """`judged_result`, except that a body's failure is named ToolError whatever its name."""

    def judged(
        outcome: ToolOutcome,
        audit: tuple[tuple[HookSpec, PostVerdict, float], ...],
        *,
        after_abort: bool,
    ) -> results.PreparedResult:
        if isinstance(outcome, ToolFailed):
            outcome = attrs.evolve(outcome, error_name="ToolError")
        return original(outcome, audit, after_abort=after_abort)

    return judged


def _empty_block_reasons_written(
    original: Callable[..., results.PreparedResult],
) -> Callable[..., results.PreparedResult]:
    """`judged_result`, except that a blocked result has a text block per blocking hook, an
    empty one for a hook that gave no reason."""

    def judged(
        outcome: ToolOutcome,
        audit: tuple[tuple[HookSpec, PostVerdict, float], ...],
        *,
        after_abort: bool,
    ) -> results.PreparedResult:
        result = original(outcome, audit, after_abort=after_abort)
        reasons = [verdict.reason for _, verdict, _ in audit if isinstance(verdict, PostBlock)]
        if "" not in reasons:
            return result
        return attrs.evolve(result, content=tuple(TextBlock(reason) for reason in reasons))

    return judged


def _allows_with_a_reason(program: Sequence[Command]) -> bool:
    return any(
        isinstance(c, HookAnswers) and isinstance(c.verdict, Allow) and c.verdict.reason
        for c in program
    )


def _empty_body_context(program: Sequence[Command]) -> bool:
    return any(
        isinstance(c, ToolFinishes)
        and isinstance(c.outcome, ToolSucceeded)
        and "" in c.outcome.contexts
        for c in program
    )


def _fails_without_a_message(program: Sequence[Command]) -> bool:
    return any(isinstance(c, ModelFails) and not c.message for c in program)


def _fails_with_an_error_name(program: Sequence[Command]) -> bool:
    return any(
        isinstance(c, ToolFinishes)
        and isinstance(c.outcome, ToolFailed)
        and c.outcome.error_name != "ToolError"
        for c in program
    )


def _blocks_without_a_reason(program: Sequence[Command]) -> bool:
    return any(
        isinstance(c, ToolFinishes)
        and any(isinstance(v, PostBlock) and not v.reason for v in c.post)
        for c in program
    )


def _plant(monkeypatch: pytest.MonkeyPatch, bug: str) -> None:
    match bug:
        case "allow's reason joined":
            monkeypatch.setattr(policy, "_joined", _allow_reasons_joined)
        case "empty body context queued":
            from loopspec.impl import batch  # noqa: PLC0415

            monkeypatch.setattr(
                batch, "judged_result", _empty_body_contexts_kept(results.judged_result)
            )
        case "empty failure message worded":
            original = recorder.Recorder.turn_ended
            monkeypatch.setattr(recorder.Recorder, "turn_ended", _empty_message_worded(original))
        case "every failure a ToolError":
            from loopspec.impl import batch  # noqa: PLC0415

            wrong = _every_failure_a_tool_error(results.judged_result)
            monkeypatch.setattr(batch, "judged_result", wrong)
        case "empty block reason written":
            from loopspec.impl import batch  # noqa: PLC0415

            wrong = _empty_block_reasons_written(results.judged_result)
            monkeypatch.setattr(batch, "judged_result", wrong)
        case _:
            raise AssertionError(bug)


# The bug, the rule conform must blame, and what the diverging program must hold.
BUGS: dict[str, tuple[frozenset[str], Callable[[Sequence[Command]], bool]]] = {
    # A denied call's result gives the denying hooks' reasons, no other hook's (DEC-1); an
    # approval request the asking hooks' (DEC-2): whichever the program shows first.
    "allow's reason joined": (frozenset({"DEC-1", "DEC-2"}), _allows_with_a_reason),
    # An empty context is no context (ADJ-4).
    "empty body context queued": (frozenset({"ADJ-4"}), _empty_body_context),
    # The turn/end error carries the failure's message as given (TEXT-2).
    "empty failure message worded": (frozenset({"TEXT-2"}), _fails_without_a_message),
    # A failed body's result carries its {name, code} (EXE-4).
    "every failure a ToolError": (frozenset({"EXE-4"}), _fails_with_an_error_name),
    # A block without a reason adds no text block (DEC-3).
    "empty block reason written": (frozenset({"DEC-3"}), _blocks_without_a_reason),
}

# Words the report must hold, where the rule alone does not say what differs: a result whose
# text is right but whose error is named ToolError read as a wrong text, "Error: <message>".
WORDS: dict[str, str] = {
    "every failure a ToolError": 'the target gives the error name "ToolError" where the body\'s is',
}


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("bug", sorted(BUGS))
def test_MODEL_1_a_wrong_loop_in_a_situation_once_never_generated_is_caught(
    monkeypatch: pytest.MonkeyPatch, bug: str, seed: int
) -> None:
    rules, shows = BUGS[bug]
    _plant(monkeypatch, bug)
    report = run_conformance(
        bundled_target, examples=PROGRAMS, seed_value=seed, show_progress=False, shrink=False
    )
    assert report.divergence is not None, f"{bug}: passed {report.examples} programs"
    assert report.divergence.rule_id in rules, (report.divergence.rule_id, report.divergence.what)
    assert shows(report.program), report.program
    assert WORDS.get(bug, "") in report.divergence.what, report.divergence.what


def _repair_stamped_with_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Crash repair's closers stamped with the loop's clock, not with the last event's time."""
    clocks: list[Clock] = []
    opening = agent_loop.AgentLoop.open.__func__  # type: ignore[attr-defined]  # mypy types no classmethod's __func__

    def open_loop(cls: type[agent_loop.AgentLoop], /, path: Path, **options: Any) -> object:
        clocks.append(options["clock"])
        return opening(cls, path, **options)

    right = repair.closers

    def closers(log: Sequence[Event]) -> list[Event]:
        return [attrs.evolve(event, time=clocks[-1].wall_ms()) for event in right(log)]

    monkeypatch.setattr(agent_loop.AgentLoop, "open", classmethod(open_loop))
    monkeypatch.setattr(agent_loop, "closers", closers)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.parametrize("seed", SEEDS)
def test_REC_1_a_repair_stamped_with_the_loop_s_clock_is_caught(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Times are not compared with the model's, but the target's own log is held to REC-1:
    repair's closers carry the last event's time. Under a clock stopped at one instant (the
    bundled implementation's under conform, before) every time was that one, and a repair that
    stamped its closers with the clock passed every program; the clock now moves on a
    millisecond per event."""
    _repair_stamped_with_the_clock(monkeypatch)
    report = run_conformance(
        bundled_target, examples=PROGRAMS, seed_value=seed, show_progress=False, shrink=False
    )
    assert report.divergence is not None, f"passed {report.examples} programs"
    assert report.divergence.rule_id == "REC-1", report.divergence.what
    assert "crash repair's closers carry the time of the last event" in report.divergence.what
