"""The divergences from the model each real loop is known to show, rule by rule.

Observed with `loopspec run --harness` on the pinned versions (Claude Code 2.1.332, Codex
0.171.0) and held in place by `tests/test_real_harnesses.py` (one scripted scenario per
divergence) and `tests/test_real_harness_programs.py` (random programs: any divergence not
listed here fails). Each entry says whether loopspec reads it as a design difference or a bug.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

import attrs

from loopspec.properties.harnesses.script import Harness


class Kind(enum.Enum):
    """How loopspec reads a known divergence."""

    DESIGN = "design difference"
    BUG = "bug"


@attrs.frozen
class KnownDivergence:
    """A rule the real loop breaks, how loopspec reads it, and what happens."""

    rule_id: str
    kind: Kind
    what: str


_RW_1 = KnownDivergence(
    "RW-1",
    Kind.BUG,
    "a PreToolUse hook's updatedInput runs, while the model history and the log keep the "
    "model's input: the UI and the transcript show a command that did not run",
)
_HOOK_3 = KnownDivergence(
    "HOOK-3",
    Kind.BUG,
    "several rewriting hooks run in parallel and the one that finishes last wins: a race, "
    "not the configured order",
)

KNOWN: Mapping[Harness, Mapping[str, KnownDivergence]] = {
    Harness.CLAUDE_CODE: {
        "RW-1": _RW_1,
        "HOOK-3": _HOOK_3,
        "ORD-3": KnownDivergence(
            "ORD-3",
            Kind.DESIGN,
            "results of parallel read-only calls go back in completion order",
        ),
        "REC-1": KnownDivergence(
            "REC-1",
            Kind.BUG,
            "resuming after a crash adds an assistant message the model never wrote",
        ),
        "ABORT-1": KnownDivergence(
            "ABORT-1",
            Kind.BUG,
            "an interrupted running call is reported to the model as rejected by the user, and "
            "an assistant message the model never wrote is added",
        ),
    },
    Harness.CODEX: {
        "RW-1": _RW_1,
        "RW-2": KnownDivergence(
            "RW-2",
            Kind.BUG,
            "the rollout records no hook, so nothing says which hook supplied the input that ran",
        ),
        "HOOK-3": _HOOK_3,
        "REC-1": KnownDivergence(
            "REC-1",
            Kind.BUG,
            "after a crash the synthetic result reaches the model but is never written to the "
            "rollout, which keeps the call unanswered",
        ),
    },
}


def unknown_rules(harness: Harness, rule_ids: list[str]) -> list[str]:
    """The rules among `rule_ids` that are not known divergences of `harness`, in order."""
    return [rule for rule in rule_ids if rule not in KNOWN[harness]]
