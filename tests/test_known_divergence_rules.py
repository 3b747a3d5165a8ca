"""A known divergence names the rule conform blames for its behaviour without the profile.

`--profile dsh` tolerates a known divergence; without it, conform names the rule the target
breaks. The two must agree, or a user who reads SPEC section 8 (and the case's `rules`) looks
under one rule while conform's report, once the profile is left off, says another.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

from loopspec.model.commands import Command
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.properties.conformance.run import load_case, replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles.dsh import PROFILE

REGRESSIONS = Path(__file__).resolve().parent / "regressions"


def _matches_anywhere(hook: HookSpec, tool_name: str) -> bool:
    """dsh's Claude Code bridge: a matcher is a regular expression searched, not full-matched."""
    return hook.matcher in ("", "*") or re.search(hook.matcher, tool_name) is not None


class UnanchoredMatchers(ModelTarget):
    """The model, its PreToolUse matchers unanchored as dsh's bridge reads them."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        with _unanchored():
            return super().reset(config)

    def apply(self, command: Command) -> Observation:
        with _unanchored():
            return super().apply(command)


@contextlib.contextmanager
def _unanchored() -> Iterator[None]:
    saved = HookSpec.matches
    HookSpec.matches = _matches_anywhere  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        HookSpec.matches = saved  # type: ignore[method-assign]


def test_HOOK_8_dsh_unanchored_matcher_is_known_under_the_rule_conform_blames() -> None:
    """HOOK-8: matcher `read` firing for `read_more` breaks HOOK-8 (a matcher matches the
    whole tool name), which conform names; the dsh profile, its case and SPEC section 8 said
    HOOK-4 (each matching hook answers once), which a hook that does not match cannot break."""
    key = "pre-hook-matcher-unanchored"
    case = load_case(REGRESSIONS / f"dsh-{key}.json")
    replay = replay_case(UnanchoredMatchers, case.config, case.commands)
    assert replay.divergence is not None
    assert replay.divergence.rule_id in PROFILE.divergence(key).rules, replay.divergence.what
    assert case.rule is not None
    assert replay.divergence.rule_id in case.rule
    spec = (Path(__file__).resolve().parents[1] / "SPEC.md").read_text(encoding="utf-8")
    (line,) = [line for line in spec.splitlines() if f"`{key}`" in line]
    assert f"({replay.divergence.rule_id};" in line
