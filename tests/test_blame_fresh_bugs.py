"""Bugs written outside the project, as a loop's author would make them, blamed on the rule broken.

Session 19 wrote wrong loops the project had never seen (copies of `impl/` and of
`examples/js-loop/`, each with one bug) and ran `loopspec conform` on each. Where the report
named a rule other than the one the bug breaks, the difference is planted here in the model and
a fixed program that shows it is replayed; the blame must be the rule the author has to fix:

- a hook matcher anchored at the start only (JavaScript's `new RegExp("^(?:" + m + ")")`): the
  loop runs, or waits for, a hook whose matcher names only part of the tool (`bash` for
  `bash_session`) — read as a reply left out (ORD-1, RW-3) or a hook run for the wrong call
  (HOOK-4) where the matcher must match the whole name (HOOK-8);
- a denied call's result saying `denied` where the deny, audited `block` (an exit-2 hook), gave a
  reason: read as a result that differs from its body's outcome (EXE-4) where a denied call's
  result is the denying hooks' reasons (DEC-1);
- an abort drain that answers a call whose body settled after the abort ABORTED_BEFORE_DISPATCH,
  its PostToolUse audit lost with it: read as a hook that did not run (HOOK-5) where the drained
  call's result is what is wrong (ABORT-1);
- crash repair answering the open step's calls in reverse order, or closing the turn without
  the open step's step/end: read as the batch's results out of model order (ORD-3) or a turn
  ended inside a step (TURN-2) where the repair is what is wrong (REC-1).
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs
import pytest

from loopspec.model.commands import (
    Abort,
    Command,
    Crash,
    Deny,
    HookAnswers,
    HookAudit,
    ModelReplies,
    Pass,
    PostPass,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

BASH_SESSION = ToolSpec("bash_session", required_keys=("command",))
READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
PARTLY_MATCHED = LoopConfig(
    tools=(READ, BASH_SESSION),
    hooks=(
        HookSpec("bash-guard", "PreToolUse", "bash"),
        HookSpec("read-audit", "PreToolUse", "read"),
    ),
    max_parallel=2,
)


def call(call_id: str, tool: str, arguments: str) -> ToolCallBlock:
    return ToolCallBlock(call_id, tool, arguments)


BASH_CALL = call("c1", "bash_session", '{"command":"ls"}')
READ_CALL = call("c2", "read", '{"file_path":"a.txt"}')


class PrefixAnchoredMatchers(ModelTarget):
    """The model, except that a hook fires when its matcher matches the start of the tool name
    (a pattern anchored with `^` alone), while the model itself steps."""

    def apply(self, command: Command) -> Observation:
        def prefix(hook: HookSpec, tool_name: str) -> bool:
            return hook.matcher in ("", "*") or re.match(hook.matcher, tool_name) is not None

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(HookSpec, "matches", prefix)
            return super().apply(command)


class RepairsInReverse(ModelTarget):
    """The model, except that crash repair writes the synthetic results of the open step's
    calls in reverse order (seqs still counting up)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, Recover):
            return observed
        events: list[dict[str, Any]] = json.loads(json.dumps(list(observed.events)))
        at = [i for i, event in enumerate(events) if event["type"] == "tool/result"]
        results = [events[i] for i in at]
        for i, result in zip(at, reversed(results), strict=True):
            events[i] = {**result, "seq": events[i]["seq"]}
        return attrs.evolve(observed, events=tuple(events))


class DenialsSayDenied(ModelTarget):
    """The model, except that a denied call's result says `denied` (the last hook's reason,
    and the last hook passed) instead of the denying hook's reason."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events: list[dict[str, Any]] = json.loads(json.dumps(list(observed.events)))
        for event in events:
            if event["type"] == "tool/result":
                for block in event["data"]["message"]["content"][0]["content"]:
                    block["text"] = block["text"].replace("Error: no", "Error: denied")
        return attrs.evolve(observed, events=tuple(events))


class AbortsDrainedCallsBeforeDispatch(ModelTarget):
    """The model, except that a call whose body settles after an abort is answered
    `ABORTED_BEFORE_DISPATCH`, without its PostToolUse audit (the abort drain treats every
    uncommitted call as never started)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events: list[dict[str, Any]] = []
        for event in json.loads(json.dumps(list(observed.events))):
            data = event["data"]
            if event["type"].startswith("hook/") and data.get("point") == "PostToolUse":
                continue
            if event["type"] == "tool/result" and (data.get("error") or {}).get("code") == (
                "ABORTED"
            ):
                data["error"]["code"] = "ABORTED_BEFORE_DISPATCH"
                block = data["message"]["content"][0]["content"][0]
                block["text"] = "Error: tool call aborted before dispatch"
            events.append(event)
        first = observed.events[0]["seq"] if observed.events else 0
        for seq, event in enumerate(events, start=first):
            event["seq"] = seq
        return attrs.evolve(observed, events=tuple(events))


class RepairsWithoutStepEnd(ModelTarget):
    """The model, except that crash repair leaves out the step/end when the open step has no
    call to answer (it closes only the turn)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, Recover):
            return observed
        events = [e for e in observed.events if e["type"] != "step/end"]
        first = observed.events[0]["seq"] if observed.events else 0
        renumbered = tuple({**e, "seq": seq} for seq, e in enumerate(events, start=first))
        return attrs.evolve(observed, events=renumbered)


POST_HOOKED = LoopConfig(tools=(READ,), hooks=(HookSpec("after-all", "PostToolUse"),))
TWO_PRE_HOOKS = LoopConfig(
    tools=(READ,),
    hooks=(HookSpec("everything", "PreToolUse"), HookSpec("late", "PreToolUse", ".*")),
)


PROGRAMS: list[tuple[str, type[ModelTarget], LoopConfig, tuple[Command, ...], str]] = [
    (
        "a reply held back for a hook whose matcher names part of the tool",
        PrefixAnchoredMatchers,
        PARTLY_MATCHED,
        (SubmitUser("hi"), ModelReplies((BASH_CALL,))),
        "HOOK-8",
    ),
    (
        "a reply held back after the last matching hook answered",
        PrefixAnchoredMatchers,
        PARTLY_MATCHED,
        (SubmitUser("hi"), ModelReplies((READ_CALL, BASH_CALL)), HookAnswers(Pass())),
        "HOOK-8",
    ),
    (
        "a hook run for a call its matcher names only in part",
        PrefixAnchoredMatchers,
        PARTLY_MATCHED,
        (SubmitUser("hi"), ModelReplies((BASH_CALL, READ_CALL)), HookAnswers(Pass())),
        "HOOK-8",
    ),
    (
        "a hook run for a call its matcher names only in part, the reply not yet logged",
        PrefixAnchoredMatchers,
        PARTLY_MATCHED,
        (
            SubmitUser("hi"),
            ModelReplies((BASH_CALL, READ_CALL, call("c3", "read", '{"file_path":"b"}'))),
            HookAnswers(Pass()),
        ),
        "HOOK-8",
    ),
    (
        "a hook run for a call its matcher names in part, another tool matched whole",
        PrefixAnchoredMatchers,
        attrs.evolve(PARTLY_MATCHED, tools=(*PARTLY_MATCHED.tools, ToolSpec("bash"))),
        (
            SubmitUser("hi"),
            ModelReplies((BASH_CALL, READ_CALL, call("c3", "read", '{"file_path":"b"}'))),
            HookAnswers(Pass()),
        ),
        "HOOK-8",
    ),
    (
        "crash repair answers the open step's calls in reverse order",
        RepairsInReverse,
        LoopConfig(tools=(READ,), max_parallel=2),
        (
            SubmitUser("hi"),
            ModelReplies((call("c1", "read", '{"file_path":"a"}'), READ_CALL)),
            Crash(),
            Recover(),
        ),
        "REC-1",
    ),
    (
        "crash repair closes the turn without the open step's step/end",
        RepairsWithoutStepEnd,
        LoopConfig(tools=(READ,)),
        (SubmitUser("hi"), Crash(), Recover()),
        "REC-1",
    ),
    (
        "a deny audited block (exit 2) whose reason the result drops",
        DenialsSayDenied,
        TWO_PRE_HOOKS,
        (
            SubmitUser("hi"),
            ModelReplies((READ_CALL,)),
            HookAnswers(Deny("no"), HookAudit(decision="block", exit_code=2)),
            HookAnswers(Pass()),
        ),
        "DEC-1",
    ),
    (
        "a call that drained after an abort answered as never started",
        AbortsDrainedCallsBeforeDispatch,
        POST_HOOKED,
        (
            SubmitUser("hi"),
            ModelReplies((READ_CALL,)),
            Abort(),
            ToolFinishes("c2", ToolSucceeded("a"), (PostPass(),)),
        ),
        "ABORT-1",
    ),
]


@pytest.mark.parametrize(
    ("name", "target", "config", "program", "rule"), PROGRAMS, ids=[p[0] for p in PROGRAMS]
)
def test_MODEL_1_a_fresh_bug_is_blamed_on_the_rule_its_author_must_fix(
    name: str,
    target: type[ModelTarget],
    config: LoopConfig,
    program: tuple[Command, ...],
    rule: str,
) -> None:
    """MODEL-1 (HOOK-8, REC-1): the first divergence names the rule the bug breaks."""
    replay = replay_case(target, config, list(program))
    assert replay.divergence is not None, "the bug was not found"
    assert replay.divergence.rule_id == rule, replay.divergence.what


def test_HOOK_8_the_report_names_the_hook_and_the_tool() -> None:
    """HOOK-8: the report says which hook's matcher fits only part of which tool name."""
    replay = replay_case(PrefixAnchoredMatchers, PARTLY_MATCHED, list(PROGRAMS[0][3]))
    assert replay.divergence is not None
    what = replay.divergence.what
    for named in ("bash-guard", '"bash"', "bash_session"):
        assert named in what, what


@pytest.mark.parametrize("program", PROGRAMS)
def test_MODEL_1_the_programs_pass_on_the_model(program: Any) -> None:
    """MODEL-1: control: without the bug, no program diverges."""
    _name, _target, config, commands, _rule = program
    assert replay_case(ModelTarget, config, list(commands)).divergence is None
