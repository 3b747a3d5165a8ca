"""What the rounds of wrong loops written outside the project share (test_blame_fresh_bugs_round*).

Each round plants, in the model, the difference a wrong loop showed, and replays a fixed program
on it: a `FreshBug` row of its table says what the program is, the target with the bug, the
configuration, the commands and the rule the report must name. `blamed` and `passes_on_model`
are the two checks every row gets; `what` is the report's words, for the tests that read them.
The observation helpers edit a copy of what the model observed, as a wrong loop would write it.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import pytest
from test_history_capability import _fake

from loopspec.model import dispatch, rewrite
from loopspec.model.commands import (
    ApprovalAnswers,
    Command,
    HookAnswers,
    ModelReplies,
    PreVerdict,
    SubmitUser,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.model.pure.decisions import RANK_ASK, RANK_DENY, may_start, merged_rank
from loopspec.model.replay import LogPresenter
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError
from loopspec.properties.conformance.run import replay_case
from loopspec.properties.conformance.situation_sweep import sweep_situations
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.logcheck.checker import check_stream

FreshBug = tuple[str, type[ModelTarget], LoopConfig, tuple[Command, ...], str]
"""(what the bug is, the model with it planted, configuration, program, the rule to name)."""

GUARDED_BASH = LoopConfig(
    tools=(ToolSpec("bash", required_keys=("command",)),),
    hooks=(
        HookSpec("guard", "PreToolUse", "bash|write"),
        HookSpec("rewriter", "PreToolUse", "bash"),
    ),
)
"""A shell tool and two PreToolUse hooks on it, in that order: guard, then rewriter."""


def _ask_over_deny(ranks: tuple[int, ...]) -> int:
    strictest = merged_rank(ranks)
    return RANK_ASK if strictest == RANK_DENY and RANK_ASK in ranks else strictest


class AskOutranksDeny(ModelTarget):
    """The model, except that a hook's ask wins over another hook's deny (HOOK-2 broken)."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "merged_rank", _ask_over_deny)
            return super().apply(command)


class CapOneOff(ModelTarget):
    """The model, except that its parallel cap lets one call more run (SCHED-1 broken)."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(
                dispatch,
                "may_start",
                lambda safe, running, gate, cap: may_start(safe, running, gate, cap + 1),
            )
            return super().apply(command)


def planted(owner: object, attribute: str, wrong: object, what: str) -> type[ModelTarget]:
    """The model with `owner.attribute` replaced by `wrong` while it applies each command: a
    bug planted where the model keeps the code a wrong loop got wrong; `what` says the bug."""

    class Planted(ModelTarget):
        def apply(self, command: Command) -> Observation:
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(owner, attribute, wrong)
                return super().apply(command)

    Planted.__doc__ = what
    return Planted


def swept(target: type[ModelTarget]) -> Any:
    """The first divergence the targeted programs of rare situations find on `target`, played
    with every capability; the test fails when there is none."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(target, frozenset(CAPABILITIES))
    return found.value.divergence


def names(table: Sequence[FreshBug]) -> list[str]:
    """The test ids of a table: each row's name."""
    return [row[0] for row in table]


def blamed(target: type[ModelTarget], config: LoopConfig, program: Sequence[Command]) -> Any:
    """The first divergence the bug shows on `program`; the test fails when there is none."""
    replay = replay_case(target, config, list(program))
    assert replay.divergence is not None, "the bug was not found"
    return replay.divergence


def assert_blamed_on(row: FreshBug) -> None:
    """The row's bug is found, and the report names the row's rule."""
    _name, target, config, program, rule = row
    divergence = blamed(target, config, program)
    assert divergence.rule_id == rule, divergence.what


def assert_passes_on_model(row: FreshBug) -> None:
    """Control: without the bug, the row's program does not diverge."""
    _name, _target, config, program, _rule = row
    assert replay_case(ModelTarget, config, list(program)).divergence is None


def report(target: type[ModelTarget], config: LoopConfig, program: Sequence[Command]) -> str:
    """The words of the report on the bug's first divergence."""
    text: str = blamed(target, config, program).what
    return text


def row_named(table: Sequence[FreshBug], name: str) -> FreshBug:
    """The first row of `table` whose name starts with `name`."""
    return next(row for row in table if row[0].startswith(name))


def assert_report_says(
    table: Sequence[FreshBug], name: str, *phrases: str, lacks: Sequence[str] = ()
) -> str:
    """The report on the bug of the row of `table` named `name` (`row_named`) holds each of
    `phrases` and none of `lacks` (each failure shows the whole report); its words."""
    what = report(*row_named(table, name)[1:4])
    for phrase in phrases:
        assert phrase in what, what
    for phrase in lacks:
        assert phrase not in what, what
    return what


def assert_found(row: FreshBug, *phrases: str, lacks: Sequence[str] = ()) -> None:
    """The row's bug is found and named as the row says, its program passes on the model, and
    the report holds each of `phrases` and none of `lacks`."""
    assert_blamed_on(row)
    assert_passes_on_model(row)
    assert_report_says([row], row[0], *phrases, lacks=lacks)


def own_log_checked(row: FreshBug) -> list[tuple[str, str]]:
    """What `loopspec check` finds in the log the row's target writes for its program, up to
    the command conform's report names: each violation's rule and words, in order (read
    in-process, as a dsh-format log)."""
    _name, target_type, config, program, _rule = row
    divergence = blamed(target_type, config, program)
    target = target_type()
    target.reset(config)
    events = [
        e for command in program[: divergence.index + 1] for e in target.apply(command).events
    ]
    header = {"type": "session", "version": 0, "id": "s", "createdAt": 0, "cwd": "/"}
    text = "".join(json.dumps(line) + "\n" for line in (header, *events))
    checked = check_stream("log", io.BytesIO(text.encode()))
    return [(found.violation.rule_id, found.violation.message) for found in checked.violations]


def presenting_with(make: Callable[[], LogPresenter], what: str) -> type[ModelTarget]:
    """The model, its UI the presenter `make` gives (one with a bug planted); `what` says the
    bug."""

    class Presenting(ModelTarget):
        def reset(self, config: LoopConfig) -> frozenset[str]:
            capabilities = super().reset(config)
            self._presenter = make()
            return capabilities

    Presenting.__doc__ = what
    return Presenting


def calls(call_id: str, name: str, arguments: str) -> ModelReplies:
    """A completed reply making one call."""
    return ModelReplies((ToolCallBlock(call_id, name, arguments),))


def bash_answered(arguments: str, *verdicts: PreVerdict) -> tuple[Command, ...]:
    """The user's message, a reply calling bash (call c1) with `arguments`, and the hooks'
    answers about it, in configured order."""
    answers = tuple(HookAnswers(verdict) for verdict in verdicts)
    return (SubmitUser(""), calls("c1", "bash", arguments), *answers)


def copied(observed: Observation) -> list[dict[str, Any]]:
    """The observed events as plain JSON, free to edit."""
    events: list[dict[str, Any]] = json.loads(json.dumps(list(observed.events)))
    return events


def renumbered(
    observed: Observation, events: list[dict[str, Any]], first: int | None = None
) -> Observation:
    """`observed` with `events` in place of its own, their seqs counted on from `first` (the
    observation's first seq when not given)."""
    if first is None:
        first = observed.events[0]["seq"] if observed.events else 0
    for seq, event in enumerate(events, start=first):
        event["seq"] = seq
    return attrs.evolve(observed, events=tuple(events))


def with_queued_delivered(
    observed: Observation, events: list[dict[str, Any]], queued: Sequence[str]
) -> Observation:
    """`observed` (its events copied as `events`, one a step/start) with the tool contexts
    `queued` delivered as user messages just after that step/start, as a loop queueing
    contexts wrongly delivers them."""
    opened = next(i for i, e in enumerate(events) if e["type"] == "step/start")
    source = {"kind": "plugin", "plugin": "tool-context"}
    delivered = [
        {"type": "user/message", "seq": 0, "time": events[opened]["time"],
         "data": {"role": "user", "content": [{"type": "text", "text": text}],
                  "source": source, "id": f"queued-{n}"},
         "surfaceOp": "append"}
        for n, text in enumerate(queued)
    ]  # fmt: skip
    events[opened + 1 : opened + 1] = delivered
    commits = (*observed.commits[:-1], observed.commits[-1] + len(delivered))
    return attrs.evolve(renumbered(observed, events), commits=commits)


class QueuesContexts(ModelTarget):
    """The model, as a loop queueing tool contexts of its own: a subclass queues them
    (`queued`), and `delivered` hands them over after the next step/start."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self.queued: list[str] = []
        return super().reset(config)

    def delivered(self, observed: Observation, events: list[dict[str, Any]]) -> Observation:
        """`observed` with what is queued delivered after its step/start (`events`, its
        events copied), the queue emptied; as it is, the queue kept, when it opens no step."""
        if not self.queued or not any(e["type"] == "step/start" for e in events):
            return observed
        delivered = with_queued_delivered(observed, events, self.queued)
        self.queued = []
        return delivered


def history_refusal(appended: list[dict[str, Any]]) -> ProcessTargetError:
    """How a target declaring the capability history is stopped when it answers the user's
    message reporting `appended` as the messages it added to its history."""
    answer = {"type": "observed", "seq": 0, "accepted": True, "events": [], "commits": [],
              "executed": [], "history": {"kept": 0, "appended": appended}}  # fmt: skip
    target = ProcessTarget(_fake([answer], ["history"]), name="fake")
    try:
        target.reset(LoopConfig())
        with pytest.raises(ProcessTargetError) as failed:
            target.apply(SubmitUser("hi"))
    finally:
        target.close()
    return failed.value


def answering_the_tool_for_the_reply(outcome: str) -> type[ModelTarget]:
    """The model, except that once the user answered a call's approval `outcome`, later calls
    of that tool in the same reply are answered so without being asked about (an answer
    remembered for the tool, as a loop keeping "allow for this reply" or "no to all" does)."""

    class AnswersTheToolForTheReply(ModelTarget):
        def reset(self, config: LoopConfig) -> frozenset[str]:
            self.answered: set[str] = set()
            self.asked: dict[str, str] = {}
            return super().reset(config)

        def apply(self, command: Command) -> Observation:
            observed = super().apply(command)
            if not observed.accepted:
                return observed
            if isinstance(command, ApprovalAnswers) and command.outcome == outcome:
                self.answered.update(self.asked.values())
            events, executed = copied(observed), observed.executed
            asking = [i for i, event in enumerate(events) if event["type"] == "approval/asked"]
            while asking:
                asked = events[asking[0]]["data"]
                if asked["toolName"] not in self.answered:
                    self.asked = {asked["callId"]: asked["toolName"]}
                    break
                again = super().apply(ApprovalAnswers(outcome))
                del events[asking[0]]
                events += [e for e in copied(again) if e["type"] != "approval/decided"]
                executed = (*executed, *again.executed)
                asking = [i for i, event in enumerate(events) if event["type"] == "approval/asked"]
            if any(e["type"] == "step/start" for e in events):
                self.answered.clear()
            return attrs.evolve(renumbered(observed, events), executed=executed)

    AnswersTheToolForTheReply.__doc__ = answering_the_tool_for_the_reply.__doc__
    return AnswersTheToolForTheReply
