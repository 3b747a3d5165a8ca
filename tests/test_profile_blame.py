"""Blame under a profile names the rule a bug breaks, whatever known divergence shows beside it.

Under a profile, a difference no known divergence explains is read with only the divergences
the target shows erased (`ProfileChecker._focused_difference`). A known divergence that shows
only at the very command of the bug adds nothing there and is left in, so that reading may
name the known divergence's own rule; blame then erases it too and reads again. These tests
plant a known divergence and an unknown bug in one in-process loop, so they run without the
real CLIs (tests/test_real_harness_conform.py replays the same situation on them).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from mutants import MUTANTS, MutantTarget

from loopspec.model import dispatch
from loopspec.model.commands import (
    ApprovalAnswers,
    Ask,
    Command,
    HookAnswers,
    ModelReplies,
    PostContext,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.events import StepStarted
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.state import Rewriting
from loopspec.model.wire import block_to_wire
from loopspec.properties.conformance.compare import Divergence
from loopspec.properties.conformance.profile_check import ProfileChecker, _overlap_difference
from loopspec.properties.conformance.run import load_case, replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles import PROFILES
from loopspec.properties.profiles.known import KnownDivergence, Profile
from loopspec.properties.profiles.runs import (
    Run,
    both,
    map_events,
    result_call,
    with_result_text,
)
from loopspec.properties.stateful.strategies import TOOLS

Event = dict[str, Any]


class RecordsItsReplyBeforeItsHooks(MutantTarget):
    """The real CLIs' way with a rewrite (their RW-1 case's observations), planted in the model.

    Known (the profiles' RW-3): a reply whose calls PreToolUse hooks match is committed with
    its calls' records when it arrives, before the hooks answer. Known with HOOK-3 (its
    `HOOK-3:parallel-hooks`): the hooks run together once all have answered, the later one
    logged first. Unknown once a profile forgets RW-1: a hook's rewrite runs while the record
    keeps the model's input (mutant execution-only-rewrite).
    """

    def __init__(self) -> None:
        super().__init__(next(m for m in MUTANTS if m.name == "execution-only-rewrite"))
        self._next_seq = 0
        self._seq_of: dict[int, int] = {}  # the model's seq -> this loop's
        self._early: dict[tuple[str, object], int] = {}  # events already written, by key
        self._held: list[Event] = []  # PreToolUse audit events of hooks still running

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self._next_seq, self._seq_of, self._early, self._held = 0, {}, {}, []
        # Its history would hold the reply before the model's does: not what is compared here.
        return super().reset(config) - {"history"}

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not observed.accepted:
            return observed
        if isinstance(command, ModelReplies) and not observed.events:
            events = self._committed_now(command)
            return attrs.evolve(observed, events=events, commits=(len(events),))
        assert self.state is not None
        if isinstance(self.state.phase, Rewriting):  # its hooks run once all have answered
            self._held.extend(observed.events)
            return attrs.evolve(observed, events=(), commits=())
        audit = [*self._held, *itertools.takewhile(_is_pre_hook, observed.events)]
        rest = observed.events[len(audit) - len(self._held) :]
        self._held = []
        pairs = [audit[i : i + 2] for i in range(0, len(audit), 2)]  # invoked, result
        audit = [event for pair in reversed(pairs) for event in pair]
        kept: list[Event] = []
        for event in [*audit, *rest]:
            model_seq = int(event["seq"])
            early = self._early.pop(_key(event), None)
            if early is not None:
                self._seq_of[model_seq] = early
                continue
            kept.append(self._numbered(json.loads(json.dumps(event)), model_seq))
        return attrs.evolve(observed, events=tuple(kept), commits=(len(kept),) if kept else ())

    def _committed_now(self, reply: ModelReplies) -> tuple[Event, ...]:
        """The reply and its calls' records, as the model will write them once hooks answer."""
        assert self.state is not None
        opened = next(e for e in reversed(self.state.log) if isinstance(e, StepStarted))
        where = {"turn": opened.turn, "step": opened.step}
        config = self.state.config
        message = {
            "role": "assistant",
            "content": [block_to_wire(block) for block in reply.blocks],
            "source": {"kind": "model", "provider": config.provider, "model": config.model},
            "id": "early",
        }
        events: list[Event] = [
            {
                "type": "assistant/message",
                "data": {**where, "message": message},
                "surfaceOp": "append",
            }
        ]
        for call in reply.tool_calls:
            data = {**where, "callId": call.id, "name": call.name, "arguments": call.arguments}
            events.append({"type": "tool/call", "data": data})
        for event in events:
            event["seq"], event["time"] = self._next_seq, 0
            self._early[_key(event)] = self._next_seq
            self._next_seq += 1
        return tuple(events)

    def _numbered(self, event: Event, model_seq: int) -> Event:
        self._seq_of[model_seq] = event["seq"] = self._next_seq
        self._next_seq += 1
        if "sourceEventSeqs" in event:
            event["sourceEventSeqs"] = [self._seq_of[s] for s in event["sourceEventSeqs"]]
        return event


def _is_pre_hook(event: Event) -> bool:
    return str(event["type"]).startswith("hook/") and event["data"]["point"] == "PreToolUse"


def _key(event: Event) -> tuple[str, object]:
    data = event.get("data") or {}
    return (
        str(event["type"]),
        data.get("callId") if event["type"] == "tool/call" else data.get("step"),
    )


def _without(profile: Profile, rules: set[str]) -> Profile:
    kept = tuple(d for d in profile.divergences if not set(d.rules) & rules)
    return Profile(f"{profile.name}-less", profile.implementation, kept)


# One hook rewrites a bash call's input, a later one passes; the call runs, the model answers.
RW_1_CASE = Path(__file__).parent / "regressions" / "claude-code-RW-1.json"


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_RW_1_a_known_divergence_at_the_bug_s_command_is_erased_for_the_blame(
    harness: str,
) -> None:
    """RW-1: the loop records its reply before its hooks answer (the profile's RW-3) and runs
    a rewrite its record does not hold (RW-1, which the profile here does not know). With the
    hooks' order left in too (the profile forgets HOOK-3), RW-3 left in makes no more of the
    runs differ, so the first reading names RW-3, a known divergence; blame erases it and
    names RW-1. Only the real CLIs guarded this (tests/test_real_harness_conform.py's
    test_RW_1_an_unknown_divergence_is_not_excused, same case and profile)."""
    case = load_case(RW_1_CASE)
    known = replay_case(
        RecordsItsReplyBeforeItsHooks, case.config, case.commands, PROFILES[harness]
    )
    assert known.stopped_by == "RW-1", known.divergence  # what the CLI shows, known
    profile = _without(PROFILES[harness], {"RW-1", "HOOK-3"})
    assert any(d.key == "RW-3" for d in profile.divergences)
    alone = replay_case(RecordsItsReplyBeforeItsHooks, case.config, case.commands)
    assert alone.divergence is not None
    # Without a profile, the reply committed early is the first difference.
    assert alone.divergence.rule_id == "RW-3", alone.divergence.what
    found = replay_case(RecordsItsReplyBeforeItsHooks, case.config, case.commands, profile)
    assert found.stopped_by is None
    assert found.divergence is not None
    assert found.divergence.rule_id == "RW-1", found.divergence.what


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_RW_1_the_report_names_the_known_divergences_its_blame_erased(harness: str) -> None:
    """RW-1: a report under a profile said the profile's known divergences were "erased,
    those the target does not show left in", naming none: a user could not tell that the
    blame looked past this loop's early reply record (RW-3) and its hooks' audit shape, nor
    that the rest stayed in. It names them now."""
    case = load_case(RW_1_CASE)
    profile = _without(PROFILES[harness], {"RW-1", "HOOK-3"})
    found = replay_case(RecordsItsReplyBeforeItsHooks, case.config, case.commands, profile)
    assert found.divergence is not None
    assert found.divergence.what.endswith(
        f"(with the {harness}-less profile's known divergences hook-audit-shape, RW-3 erased, "
        "the others left in as leaving them in adds no difference; commands #2..#5)"
    ), found.divergence.what


def test_DEC_2_blame_reads_the_history_up_to_the_command_it_classifies() -> None:
    """DEC-2: a loop starts a call's body as soon as its hook asks, before the approval answer.
    The first quiet point comes after the answer and the result, and the first difference is
    at the hook's command: classified with the history up to that command the call still waits
    for approval (DEC-2); with the later answer in it, it read as a scheduling fault (SCHED-1)."""
    config = LoopConfig(tools=TOOLS, hooks=(HookSpec("gate", "PreToolUse", "*"),))
    call = ToolCallBlock("c1", "bash", '{"command":"ls"}')
    program: list[Command] = [
        SubmitUser("list the files"),
        ModelReplies((call,)),
        HookAnswers(Ask("check")),
        ApprovalAnswers("allowed-once"),
        ToolFinishes("c1", ToolSucceeded("a.txt")),
    ]
    model = ModelTarget()
    model.reset(config)
    checker = ProfileChecker(Profile("bare", "a loop with no known divergence", ()), config)
    found = None
    for command in program:
        before = model.state.phase.NAME if model.state else "Idle"
        expected = model.apply(command)
        after = model.state.phase.NAME if model.state else "Idle"
        actual = expected
        if isinstance(command, HookAnswers):  # started at the ask, not at the answer
            actual = attrs.evolve(expected, executed=(("c1", call.arguments),))
        elif isinstance(command, ApprovalAnswers):
            actual = attrs.evolve(expected, executed=())
        found = checker.feed(
            command, phase_before=before, phase_after=after, expected=expected, actual=actual
        )
        if found is not None:
            break
    assert found is not None
    assert found.command == program[-1]  # found at the quiet point, after the answer
    assert found.rule_id == "DEC-2", found.what


# ---------------------------------------------------------------------------------------------
# Claude Code's SCHED-1 and ORD-3 are what the CLI does, not every break of those rules.

_READ_ARGS = '{"file_path":"a.txt"}'
_BASH_ARGS = '{"command":"ls"}'


def _always_start(*_args: object) -> bool:
    return True


class StartsEveryCall(ModelTarget):
    """Starts every call of a reply at once, whatever its tool's concurrency safety and the
    cap (the model's gate let every call through)."""

    def apply(self, command: Command) -> Observation:
        saved = getattr(dispatch, "may_start")  # noqa: B009  # patched below, restored after
        setattr(dispatch, "may_start", _always_start)  # noqa: B010  # the planted bug
        try:
            return super().apply(command)
        finally:
            setattr(dispatch, "may_start", saved)  # noqa: B010


class FlushesHeldResultsInReverse(ModelTarget):
    """Logs the results one command gives in reverse call order (each event keeps its place's
    seq): a result held for an earlier call's is logged before it when that call finishes."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        # Its history would carry the results in call order: not what is compared here.
        return super().reset(config) - {"history"}

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        places = [i for i, e in enumerate(observed.events) if e["type"] == "tool/result"]
        events = list(observed.events)
        for place, moved in zip(places, reversed(places), strict=True):
            events[place] = {**observed.events[moved], "seq": observed.events[place]["seq"]}
        return attrs.evolve(observed, events=tuple(events))


def _program(tools: tuple[str, ...], finish_order: tuple[int, ...]) -> list[Command]:
    """A reply calling `tools` (c1, c2, ...), then each call finishing in `finish_order`."""
    blocks = tuple(
        ToolCallBlock(f"c{n}", tool, _READ_ARGS if tool == "read" else _BASH_ARGS)
        for n, tool in enumerate(tools, start=1)
    )
    finishes = [ToolFinishes(f"c{n}", ToolSucceeded(f"out {n}")) for n in finish_order]
    return [SubmitUser("go"), ModelReplies(blocks), *finishes]


def test_SCHED_1_an_exclusive_call_run_beside_another_is_blamed_under_claude_code() -> None:
    """SCHED-1: Claude Code runs a reply's read-only calls together past the cap (its known
    SCHED-1) and a call that writes alone; a loop running a write beside a read is blamed on
    SCHED-1 under its profile, where the codex profile (every call at once) knows it."""
    config = LoopConfig(tools=TOOLS)
    program = _program(("read", "bash"), (1, 2))
    found = replay_case(StartsEveryCall, config, program, PROFILES["claude-code"])
    assert found.stopped_by is None
    assert found.divergence is not None
    assert found.divergence.rule_id == "SCHED-1", found.divergence.what
    assert replay_case(StartsEveryCall, config, program, PROFILES["codex"]).stopped_by == "SCHED-1"


def test_SCHED_1_calls_run_together_under_a_profile_show_which_in_the_diff() -> None:
    """SCHED-1: under a profile whose RW-3 merges every command's executions into one record,
    the runs differ only in which calls ran at the same time, which no observation holds: the
    report's diff shows those, where it said 'the observations are the same, seqs and commits
    too'."""
    config = LoopConfig(tools=TOOLS)
    found = replay_case(
        StartsEveryCall, config, _program(("read", "bash"), (1, 2)), PROFILES["claude-code"]
    )
    assert found.divergence is not None
    diff = found.divergence.diff()
    assert "observations are the same" not in diff
    assert '- "ranTogether": []' in diff
    assert '"c2"' in diff
    assert "calls c1 and c2 ran at the same time in the target, not in the model" in (
        found.divergence.what
    )


def test_SCHED_1_calls_the_model_alone_ran_together_are_said_to_be_the_model_s() -> None:
    """SCHED-1: where the model ran two calls together and the target one after the other (a
    Claude Code call of a concurrency-safe tool it read as not read-only), the report said
    'calls ran at the same time in the target, not in the model' all the same."""
    model = [{"accepted": True, "overlapping": [["c4#2", "c5"]]}]
    target = [{"accepted": True, "overlapping": []}]
    said = _overlap_difference(model, target, 0)
    assert said is not None
    assert said.startswith("calls c4#2 and c5 ran at the same time in the model, not in the "), said


class EmptiesResults(ModelTarget):
    """The model, but every result holds no content part at all (a valid event: LOG-4 holds)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = json.loads(json.dumps(observed.events))
        for event in events:
            if event["type"] == "tool/result":
                event["data"]["message"]["content"][0]["content"] = []
        return attrs.evolve(observed, events=tuple(events))


@pytest.mark.parametrize("name", ["claude-code", "codex", "dsh"])
def test_EXE_4_a_result_no_eraser_can_read_is_blamed_as_the_others_erased_read_it(
    name: str,
) -> None:
    """EXE-4: a result with no content part, which the profile's wording erasers cannot read,
    is blamed on what it breaks, with every other divergence erased, and the diff shows it
    (it was LOG-4, which such an event does not break, and an empty diff)."""
    program = _program(("read",), (1,))
    found = replay_case(EmptiesResults, LoopConfig(tools=TOOLS), program, PROFILES[name])
    assert found.divergence is not None
    assert found.divergence.rule_id == "EXE-4", found.divergence.what
    assert "which cannot read the target's events" in found.divergence.what
    assert '+       "content": [],' in found.divergence.diff()


class RunsTrueForOne(ModelTarget):
    """The model, but a body whose arguments hold the number 1 runs with `true` there."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        executed = tuple(
            (c, a.replace('"offset":1', '"offset":true')) for c, a in observed.executed
        )
        return attrs.evolve(observed, executed=executed)


@pytest.mark.parametrize("name", ["claude-code", "codex", "dsh"])
def test_EXE_3_a_body_run_with_true_for_1_is_blamed_under_every_profile(name: str) -> None:
    """EXE-3: a loop running {"offset": true} where the call records {"offset": 1} is blamed as
    without a profile: the runs compared bodies' arguments with Python's ==, which holds
    `True == 1`, and passed it under every profile."""
    reply = ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a.txt","offset":1}'),))
    program: list[Command] = [SubmitUser("go"), reply, ToolFinishes("c1", ToolSucceeded("A"))]
    found = replay_case(RunsTrueForOne, LoopConfig(tools=TOOLS), program, PROFILES[name])
    assert found.divergence is not None
    assert found.divergence.rule_id == "EXE-3", found.divergence.what
    assert '"offset": true' in found.divergence.diff()


def test_SCHED_1_read_only_calls_past_the_cap_are_claude_code_s_known_divergence() -> None:
    """SCHED-1: three reads at once under a cap of 2 is Claude Code's known SCHED-1."""
    config = LoopConfig(tools=TOOLS, max_parallel=2)
    program = _program(("read", "read", "read"), (1, 2, 3))  # c3 starts as c1 finishes
    found = replay_case(StartsEveryCall, config, program, PROFILES["claude-code"])
    assert found.divergence is None, found.divergence
    assert found.stopped_by == "SCHED-1"


def test_ORD_3_results_flushed_out_of_order_are_blamed_under_claude_code() -> None:
    """ORD-3: Claude Code logs parallel reads' results as each body finishes (its known ORD-3);
    a loop that holds a later read's result as the model does, then logs it before the earlier
    read's when that one finishes, is blamed on ORD-3 under its profile, while the loop logging
    results in completion order shows the known ORD-3."""
    config = LoopConfig(tools=TOOLS)
    program = _program(("read", "read"), (2, 1))
    found = replay_case(FlushesHeldResultsInReverse, config, program, PROFILES["claude-code"])
    assert found.stopped_by is None
    assert found.divergence is not None
    assert found.divergence.rule_id == "ORD-3", found.divergence.what
    completion = next(m for m in MUTANTS if m.name == "completion-order-results")
    known = replay_case(lambda: MutantTarget(completion), config, program, PROFILES["claude-code"])
    assert known.divergence is None, known.divergence
    assert known.stopped_by == "ORD-3"


class RecordsArgumentsRespelt(ModelTarget):
    """Writes each call's arguments in its reply and tool/call as `JSON.stringify` would, `\\u`
    escapes decoded (Claude Code's transcript: `"\\u00e4"` recorded as `"ä"`), and, with
    `other`, its tool/call of `file_path` b.txt: another value, the reply's left as sent."""

    other = False

    def reset(self, config: LoopConfig) -> frozenset[str]:
        # Its history would hold the model's text: not what is compared here.
        return super().reset(config) - {"history"}

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = [json.loads(json.dumps(event)) for event in observed.events]
        for event in events:
            data = event["data"]
            if event["type"] == "tool/call":
                data["arguments"] = self._respelt(data["arguments"], other=self.other)
            elif event["type"] == "assistant/message":
                for block in data["message"]["content"]:
                    if block["type"] == "tool-call":
                        block["arguments"] = self._respelt(block["arguments"], other=False)
        return attrs.evolve(observed, events=tuple(events))

    @staticmethod
    def _respelt(text: str, *, other: bool) -> str:
        value = json.loads(text) | ({"file_path": "b.txt"} if other else {})
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class RecordsAnotherValue(RecordsArgumentsRespelt):
    other = True


_ESCAPED_PROGRAM: list[Command] = [
    SubmitUser("go"),
    ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"\\u0061.txt","n\\u00e4me":1}'),)),
    ToolFinishes("c1", ToolSucceeded("A")),
]


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_RW_1_arguments_spelt_otherwise_are_one_value_under_every_profile(profile: str) -> None:
    """RW-1 (section 2: arguments compare as JSON values): a loop recording the model's
    `\\u` escapes decoded conforms under every profile, where its runs, compared as plain
    data, differed and the difference (in no observation) was blamed on LOG-8; recording
    another value is still blamed on RW-1."""
    config = LoopConfig(tools=TOOLS)
    found = replay_case(RecordsArgumentsRespelt, config, _ESCAPED_PROGRAM, PROFILES[profile])
    assert found.divergence is None, found.divergence
    other = replay_case(RecordsAnotherValue, config, _ESCAPED_PROGRAM, PROFILES[profile])
    assert other.divergence is not None
    assert other.divergence.rule_id == "RW-1", other.divergence.what


def _as_claude_code_delivers_contexts(observed: Observation) -> Observation:
    """Claude Code's way with contexts: a body's it cannot defer (the shell tool), a PostToolUse
    hook's a system reminder inside the result it judges; the history it reports left out."""
    events = [json.loads(json.dumps(e)) for e in observed.events]
    kept = [e for e in events if e["data"].get("source", {}).get("plugin") != "tool-context"]
    for event in kept:
        if event["type"] == "tool/result":
            event["data"]["message"]["content"][0]["content"].append(
                {"type": "text", "text": _CLAUDE_REMINDER}
            )
    return attrs.evolve(observed, events=tuple(kept), commits=(len(kept),), history=None)


_CLAUDE_REMINDER = (
    "<system-reminder>\nPostToolUse:Bash hook additional context: note\n</system-reminder>"
)


def test_ADJ_4_a_post_hook_s_context_a_body_deferred_too_is_erased_in_claude_code_s_result() -> (
    None
):
    """ADJ-4: a body deferring "note" and its PostToolUse hook giving "note" too: the
    tool-contexts eraser dropped both of the model's (one text), but not Claude Code's hook
    context, still a reminder in the result when it ran, which ADJ-4's eraser then made a
    message after the step/start (conform, seed 7: an unknown ADJ-4)."""
    config = LoopConfig(tools=TOOLS, hooks=(HookSpec("audit", "PostToolUse", "read"),))
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", "read", _READ_ARGS),)),
        ToolFinishes("c1", ToolSucceeded("A", ("note",)), (PostContext("note"),)),
    ]
    model = ModelTarget()
    model.reset(config)
    checker = ProfileChecker(PROFILES["claude-code"], config)
    for command in program:
        before = model.state.phase.NAME if model.state else "Idle"
        expected = model.apply(command)
        after = model.state.phase.NAME if model.state else "Idle"
        actual = _as_claude_code_delivers_contexts(expected)
        found = checker.feed(
            command, phase_before=before, phase_after=after, expected=expected, actual=actual
        )
        assert found is None, found


# ---------------------------------------------------------------------------------------------
# Which known divergences a target shows beside a bug: what one run holds and the other lacks.


def _is_notice(event: Event) -> bool:
    texts = event["data"].get("content", []) if event["type"] == "user/message" else []
    return bool(texts) and str(texts[0].get("text", "")).startswith("NOTICE")


def _without_notices(run: Run) -> Run:
    return map_events(run, lambda event: None if _is_notice(event) else event)


# A known divergence of a made-up loop: it writes a notice of its own, which the profile erases.
NOTICES = KnownDivergence(
    "notices", ("TEXT-2",), "writes a notice of its own", erase_pair=both(_without_notices)
)


def _fed_withheld_result(profile: Profile, *, notice: bool) -> Divergence | None:
    """A loop that drops a call's result (the bug), writing its notice in the result's place
    when `notice`; what the profile's checker blames."""
    model = ModelTarget()
    config = LoopConfig(tools=TOOLS)
    model.reset(config)
    checker = ProfileChecker(profile, config)
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", "read", _READ_ARGS),)),
        ToolFinishes("c1", ToolSucceeded("A")),
        ModelReplies((TextBlock("done"),)),
    ]
    for command in program:
        before = model.state.phase.NAME if model.state else "Idle"
        expected = model.apply(command)
        after = model.state.phase.NAME if model.state else "Idle"
        events: list[Event] = []
        for event in expected.events:
            if event["type"] != "tool/result":
                events.append(event)
            elif notice:
                text = {"type": "text", "text": "NOTICE: result withheld"}
                data = {"role": "user", "content": [text], "source": {"kind": "user"}}
                events.append({"type": "user/message", "seq": event["seq"], "data": data})
        actual = attrs.evolve(expected, events=tuple(events))
        found = checker.feed(
            command, phase_before=before, phase_after=after, expected=expected, actual=actual
        )
        if found is not None:
            return found
    return None


def test_ADJ_3_a_known_divergence_in_the_place_of_a_lost_event_is_erased_for_the_blame() -> None:
    """ADJ-3: a loop loses a call's result and writes its known notice in that very place. Left
    in, the notice makes one event differ where, erased, every later event sat one place off:
    counted position by position it added no difference, was left in, and the blame named
    ADJ-4 for the notice. Aligned, it adds one event the model lacks: it is erased, and the
    blame is the lost result's, as for the loop without the notice (ADJ-3, the step ended with
    the call unanswered, since ebde4a45; it read ORD-3 before)."""
    profile = Profile("notices", "a made-up loop", (NOTICES,))
    without = _fed_withheld_result(profile, notice=False)
    assert without is not None
    found = _fed_withheld_result(profile, notice=True)
    assert found is not None
    assert found.rule_id == without.rule_id == "ADJ-3", found.what
    assert "known divergences notices erased" in found.what


def _calls_before_results(run: Run) -> Run:
    """Each command's tool/call records before its results, as the model writes a reply's."""
    out: Run = []
    for obs in run:
        if not obs["accepted"]:
            out.append(obs)
            continue
        calls = [e for e in obs["events"] if e["type"] == "tool/call"]
        rest = [e for e in obs["events"] if e["type"] != "tool/call"]
        at = next((i for i, e in enumerate(rest) if e["type"] == "tool/result"), len(rest))
        out.append({**obs, "events": [*rest[:at], *calls, *rest[at:]]})
    return out


# A known divergence of a made-up loop: each call is recorded as it is settled, after the
# results of the calls before it.
CALLS_AT_START = KnownDivergence(
    "calls-at-start", ("LOG-8",), "records each call as it settles it",
    erase_pair=both(_calls_before_results),
)  # fmt: skip


def _fed_reworded_unknown_tools(*, interleaved: bool) -> Divergence | None:
    """A loop settling two calls of an unknown tool in words of its own (the bug), recording
    each call right before its result when `interleaved`; what the profile's checker blames."""
    model = ModelTarget()
    config = LoopConfig(tools=TOOLS)
    model.reset(config)
    checker = ProfileChecker(Profile("calls-at-start", "a made-up loop", (CALLS_AT_START,)), config)
    blocks = tuple(ToolCallBlock(f"c{n}", "nope", "{}") for n in (1, 2))
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies(blocks),
        ModelReplies((TextBlock("ok"),)),
    ]
    for command in program:
        before = model.state.phase.NAME if model.state else "Idle"
        expected = model.apply(command)
        after = model.state.phase.NAME if model.state else "Idle"
        events = [
            with_result_text(e, "Error: no such tool") if e["type"] == "tool/result" else e
            for e in expected.events
        ]
        if interleaved:
            calls = {e["data"]["callId"]: e for e in events if e["type"] == "tool/call"}
            events = [e for e in events if e["type"] != "tool/call"]
            for call_id, record in calls.items():
                at = next(
                    i
                    for i, e in enumerate(events)
                    if e["type"] == "tool/result" and result_call(e) == call_id
                )
                events.insert(at, record)
        actual = attrs.evolve(expected, events=tuple(events))
        found = checker.feed(
            command, phase_before=before, phase_after=after, expected=expected, actual=actual
        )
        if found is not None:
            return found
    return None


def test_EXE_5_a_known_divergence_moving_the_events_a_bug_changed_is_erased_for_the_blame() -> None:
    """EXE-5: a loop words an unknown tool's results its own way and records each call right
    before its result (a known divergence). The records move around results that differ
    anyway, so, aligned, leaving the divergence in adds nothing one run lacks; it does change
    where the runs differ, so it is erased, and the blame is the results' wording, as for the
    loop recording its calls as the model does (left in, it read as results out of order)."""
    plain = _fed_reworded_unknown_tools(interleaved=False)
    assert plain is not None
    found = _fed_reworded_unknown_tools(interleaved=True)
    assert found is not None
    assert found.rule_id == plain.rule_id, (found.what, plain.what)
    assert "known divergences calls-at-start erased" in found.what
