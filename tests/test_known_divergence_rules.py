"""A known divergence names the rule conform blames for its behaviour without the profile.

`--profile dsh` tolerates a known divergence; without it, conform names the rule the target
breaks. The two must agree, or a user who reads SPEC section 8 (and the case's `rules`) looks
under one rule while conform's report, once the profile is left off, says another.
"""

from __future__ import annotations

import abc
import contextlib
import copy
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

from loopspec.model import wording
from loopspec.model.commands import (
    Abort,
    Command,
    HookAnswers,
    ModelReplies,
    Pass,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.messages import ToolCallBlock
from loopspec.model.state import LoopState, Rewriting
from loopspec.properties.conformance.run import load_case, replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles.dsh import PROFILE
from loopspec.properties.profiles.known import Profile

REGRESSIONS = Path(__file__).resolve().parent / "regressions"
SPEC = Path(__file__).resolve().parents[1] / "SPEC.md"


def _assert_known_under_the_rule_conform_blames(
    key: str, target: Callable[[], ModelTarget]
) -> None:
    """The rule conform names for the divergence's case, with no profile but the loop planting
    only this divergence, is the one the profile's entry, its case and SPEC section 8 name."""
    case = load_case(REGRESSIONS / f"dsh-{key}.json")
    replay = replay_case(target, case.config, case.commands)
    assert replay.divergence is not None
    rule = replay.divergence.rule_id
    assert PROFILE.divergence(key).rules == (rule,), replay.divergence.what
    recorded = json.loads((REGRESSIONS / f"dsh-{key}.json").read_text(encoding="utf-8"))
    assert recorded["rules"] == [rule]
    (line,) = [line for line in SPEC.read_text(encoding="utf-8").splitlines() if f"`{key}`" in line]
    assert f"`{key}`, {rule})" in line, line


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


class UnanchoredMatchersNamingNoCall(UnanchoredMatchers):
    """dsh's hooks: matchers unanchored, and hook events that name no call (its
    `hook-audit-shape`)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        while isinstance(self.state, LoopState) and isinstance(self.state.phase, Rewriting):
            # dsh's adapter answers a hook the program gives no answer for: it passes.
            answered = super().apply(HookAnswers(Pass()))
            observed = attrs.evolve(
                observed,
                events=(*observed.events, *answered.events),
                commits=(*observed.commits, *answered.commits),
                executed=(*observed.executed, *answered.executed),
            )
        events = tuple(
            {**e, "data": {k: v for k, v in e["data"].items() if k != "callId"}}
            if str(e["type"]).startswith("hook/")
            else e
            for e in observed.events
        )
        return attrs.evolve(observed, events=events)


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


def test_HOOK_8_an_unanchored_matcher_is_blamed_where_hook_events_name_no_call() -> None:
    """HOOK-8: without its entry, dsh's unanchored matcher was blamed on HOOK-4 under the dsh
    profile: its hook events name no call, so conform could not tell which tool the matcher
    was tried on. Where the matcher matches the whole name of none of the program's calls,
    it ran outside its matcher whichever call it ran for. Where it matches one, which call a
    hook event is about is not guessed, and HOOK-8 is not named."""
    key = "pre-hook-matcher-unanchored"
    case = load_case(REGRESSIONS / f"dsh-{key}.json")
    kept = tuple(d for d in PROFILE.divergences if d.key != key)
    without = Profile(f"{PROFILE.name}-less", PROFILE.implementation, kept)
    replay = replay_case(UnanchoredMatchersNamingNoCall, case.config, case.commands, without)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "HOOK-8", replay.divergence.what
    assert '"read" does not match the whole name of any tool' in replay.divergence.what
    # A reply calling read too: the extra hook event may be read's, run twice.
    reply = case.commands[1]
    assert isinstance(reply, ModelReplies)
    both = ModelReplies((*reply.blocks, ToolCallBlock("c2", "read", '{"file_path":"a"}')))
    commands = [
        case.commands[0],
        both,
        *case.commands[2:3],
        ToolFinishes("c2", ToolSucceeded("ok")),
    ]
    commands += case.commands[3:]
    replay = replay_case(UnanchoredMatchersNamingNoCall, case.config, commands, without)
    assert replay.divergence is not None
    assert replay.divergence.rule_id != "HOOK-8", replay.divergence.what


class _ResultsRewritten(ModelTarget, abc.ABC):
    """The model, with some of its results written as dsh writes them (`_rewritten`)."""

    def __init__(self) -> None:
        super().__init__()
        self._tools: dict[str, str] = {}  # call id -> tool name
        self._aborted = False

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        self._aborted = self._aborted or isinstance(command, Abort)
        events = []
        for event in observed.events:
            if event["type"] == "tool/call":
                self._tools[str(event["data"]["callId"])] = str(event["data"]["name"])
            elif event["type"] == "turn/end":
                self._aborted = False
            is_result = event["type"] == "tool/result"
            events.append(self._rewritten(copy.deepcopy(event)) if is_result else event)
        return attrs.evolve(observed, events=tuple(events))

    @abc.abstractmethod
    def _rewritten(self, result: dict[str, Any]) -> dict[str, Any]:
        """`result` as dsh writes it."""


def _failed_as(result: dict[str, Any], text: str, name: str, code: str) -> dict[str, Any]:
    block = result["data"]["message"]["content"][0]
    block["content"] = [{"type": "text", "text": wording.ERROR_PREFIX + text}]
    result["data"]["error"] = {"name": name, "code": code}
    return result


def _code(result: dict[str, Any]) -> object:
    return (result["data"].get("error") or {}).get("code")


class ChecksTheToolFirst(_ResultsRewritten):
    """dsh: a call to an unknown tool fails as unknown, whatever its input (it looks the tool
    up before it reads the input)."""

    def _rewritten(self, result: dict[str, Any]) -> dict[str, Any]:
        assert self.state is not None
        tool = self._tools[str(result["data"]["message"]["content"][0]["toolCallId"])]
        if _code(result) != "INVALID_TOOL_INPUT" or self.state.config.tool(tool) is not None:
            return result
        unknown = wording.UNKNOWN_TOOL.format(tool=tool)
        return _failed_as(result, unknown, "UnknownToolError", "UNKNOWN_TOOL")


class AbortsAnInvalidCallAtItsTurn(_ResultsRewritten):
    """dsh: a call with invalid input waits for its turn in the schedule, where an abort finds
    it not started, instead of ending at the gate as invalid input."""

    def _rewritten(self, result: dict[str, Any]) -> dict[str, Any]:
        if not self._aborted or _code(result) != "INVALID_TOOL_INPUT":
            return result
        aborted = wording.ABORTED_BEFORE_DISPATCH
        return _failed_as(result, aborted, "AbortError", "ABORTED_BEFORE_DISPATCH")


def test_EXE_5_dsh_unknown_tool_checked_first_is_known_under_the_rule_conform_blames() -> None:
    """EXE-5: an unknown tool whose input is no JSON object fails as an unknown tool in dsh,
    which breaks EXE-5's order (invalid input is reported before an unknown tool), and conform
    names EXE-5; the profile, the case and SPEC section 8 said EXE-2, which is how arguments
    parse (dsh parses them alike)."""
    _assert_known_under_the_rule_conform_blames("unknown-tool-checked-first", ChecksTheToolFirst)


def test_EXE_5_dsh_invalid_call_aborted_is_known_under_the_rule_conform_blames() -> None:
    """EXE-5: a call with invalid input passes its gate without waiting for a slot and ends as
    INVALID_TOOL_INPUT there, which conform names when dsh, holding it back, lets an abort end
    it ABORTED_BEFORE_DISPATCH; the profile, the case and SPEC section 8 said EXE-2 and ABORT-1
    (an abort gives a call that never started ABORTED_BEFORE_DISPATCH, which dsh does)."""
    _assert_known_under_the_rule_conform_blames(
        "invalid-call-aborted-before-dispatch", AbortsAnInvalidCallAtItsTurn
    )
