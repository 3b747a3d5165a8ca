"""Fresh bugs of session 24, blamed on the rule their author must fix, in words that say what.

Session 24 wrote twenty-eight more wrong loops outside the project (copies of `impl/` and of
`examples/js-loop/`, each with one bug) and ran `loopspec conform` on each. Where the report
named another rule than the one the bug breaks, the difference is planted here in the model and
a fixed program that shows it is replayed:

- crash repair that names the open step by counting every step/start of the log, so after a
  first turn its result names a step that is not open: read as a result in the wrong step
  (STEP-3) where the repair is what is wrong (REC-1), as its step/end naming the wrong step
  already was (STEP-2 read as REC-1);
- a result that cites the seq after its tool/call's, its own: read as a citation of no
  earlier event (LOG-2), which is true, where the fix is to cite the tool/call (ORD-2, at the
  same seq), whose words name the seq to cite;
- a reopened loop whose client is sent nothing of what crash repair appends: named right
  (PROTO-1, a message left out), in words that now say the result is crash repair's, which a
  reopened loop's client is sent as any later event;
- a denied call that keeps the input another hook supplied (the loop applies rewrites before
  it reads the decisions): read as arguments that are not the effective ones (RW-1, though they
  are a hook's) or, where the input equals the model's, as a sidecar on a denial (RW-2), where
  a deny discards every rewrite (HOOK-3);
- a settled call that holds its slot until its result commits, so a call of an unregistered
  tool behind it (exclusive) is held at the gate: read as an unknown tool not reported (EXE-5)
  where the schedule is what is wrong (SCHED-1), as it already was for a registered tool;
- a bash result's exit marker looked for on the last line as written, so a marker followed by
  a newline stays in the output: never caught, as no row of SPEC.md section 12 and no random
  program gave such a result; section 12 now has that row, played before any random program;
- a PostToolUse block's reason of only whitespace taken for no reason: never caught, as no
  random program drew one; the targeted programs of rare situations now hold one;
- a reply refused because an earlier reply used one of its call ids (the loop keeps every id
  of the session): never caught, as every program numbers its calls anew; the report now names
  EXE-1 (unique within one reply only) where it named ORD-1 (a step takes one reply), and the
  targeted programs reuse one, as local models' call_0 does (real Claude Code leaves such a
  call out of its requests: its profile's HIST-1:reused-call-id);
- an empty matcher read as a pattern (JavaScript's `^(?:)$`, which matches only an empty
  name), so its hook never runs: never caught, as no configuration had an empty matcher; the
  targeted programs now hold one, and the report names HOOK-8 ("" matches every tool, as "*"
  does), where it named RW-3 (the reply committed before the hooks answered);
- a concurrency-safe call started while max_parallel calls run (`<=` for `<`), asked about
  there by a hook: read as an approval asked too early (SCHED-2, its words naming the cap as
  the other reading); conform now answers the approval allowed-once and, where the target
  starts the call at once, names the cap (SCHED-1);
- crash repair that answers a still pending approval cancelled before its closers: named
  right (REC-1), but found at the 199th program on one seed and not at all on the other (a
  crash while an approval waits is rare); the targeted programs now hold one;
- a tool result message written with OpenAI's role "tool": stopped as PROTO-1, a broken
  protocol schema in the history the answer reports, where the event breaks LOG-6 (a result
  message has role user), which conform names as it names HOOK-1 and TURN-5 for such values.
"""

from __future__ import annotations

import io
import json
import sys
from typing import Any

import attrs
import pytest
from fresh_bugs import (
    GUARDED_BASH,
    FreshBug,
    assert_blamed_on,
    assert_passes_on_model,
    assert_report_says,
    bash_answered,
    calls,
    copied,
    names,
    renumbered,
    report,
    row_named,
)

from loopspec.impl import batch, results
from loopspec.impl.results import BLOCKED_WITHOUT_REASON, PreparedResult
from loopspec.model import dispatch, presenters, rewrite
from loopspec.model.commands import (
    Abort,
    Allow,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostVerdict,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import ApprovalAsked, ApprovalDecided, RewriteSidecar, StepStarted
from loopspec.model.jsonvalue import dumps
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.pure.decisions import may_start
from loopspec.model.pure.presentation import exit_code_of, signal_of
from loopspec.model.rewrite import Resolution
from loopspec.model.state import DENY, HookVote
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.impl_target import bundled_target
from loopspec.properties.conformance.presentation_sweep import sweep_presentation
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError
from loopspec.properties.conformance.run import TargetBreakage, TargetError
from loopspec.properties.conformance.situation_sweep import sweep_situations
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.logcheck.checker import check_stream

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
READS = LoopConfig(tools=(READ,))


class RepairCountsEveryStep(ModelTarget):
    """The model, except that crash repair names the open step by the number of step/start
    events in the whole log, not in the open turn."""

    def apply(self, command: Command) -> Observation:
        if not isinstance(command, Recover):
            return super().apply(command)
        assert self.state is not None
        steps_seen = sum(1 for event in self.state.log if isinstance(event, StepStarted))
        observed = super().apply(command)
        events: list[dict[str, Any]] = copied(observed)
        for event in events:
            if "step" in event["data"]:
                event["data"]["step"] = steps_seen
        return attrs.evolve(observed, events=tuple(events))


class CitesTheSeqAfterItsCall(ModelTarget):
    """The model, except that a result cites the seq after its tool/call's (a writer that reads
    the next seq after adding the record, not the seq it added)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        for event in events:
            if event["type"] == "tool/result" and "sourceEventSeqs" in event:
                event["sourceEventSeqs"] = [seq + 1 for seq in event["sourceEventSeqs"]]
        return attrs.evolve(observed, events=tuple(events))


class ShowsNothingOfTheRepair(ModelTarget):
    """The model, except that its client is sent nothing for what crash repair appends (the
    reopened loop subscribes its presenter after the repair)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        return attrs.evolve(observed, presented=()) if isinstance(command, Recover) else observed


class CountsSettledCallsAsRunning(ModelTarget):
    """The model, except that a call whose body settled still holds its slot until its result
    is committed: when it settles, a call of a tool the configuration lacks (exclusive) behind
    it is held at the gate, so the command appends nothing from its UNKNOWN_TOOL result on."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        unknown = [
            i
            for i, e in enumerate(events)
            if (e["data"].get("error") or {}).get("code") == "UNKNOWN_TOOL"
        ]
        if not isinstance(command, ToolFinishes) or not unknown:
            return observed
        return attrs.evolve(observed, events=tuple(events[: unknown[0]]))


class RefusesIdsUsedBefore(ModelTarget):
    """The model, except that a reply is refused (EXE-1) when one of its call ids was used by
    an earlier reply: the loop keeps the ids of the whole session in one set."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def reset(self, config: LoopConfig) -> frozenset[str]:
        # A new session: ids of an earlier program are no earlier reply's (one target plays
        # every targeted program, and keeping them made unrelated programs show the bug).
        self.seen = set()
        return super().reset(config)

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ModelReplies):
            ids = {call.id for call in command.tool_calls}
            if ids & self.seen:
                return Observation(False, refusal_rule="EXE-1", refusal_message="ids repeat")
            self.seen |= ids
        return super().apply(command)


_MATCHES = HookSpec.matches


def _empty_matches_nothing(hook: HookSpec, name: str) -> bool:
    return hook.matcher != "" and _MATCHES(hook, name)


class EmptyMatcherMatchesNothing(ModelTarget):
    """The model, except that an empty matcher is read as a pattern, `^(?:)$`, which matches
    only an empty tool name: its hook never runs."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(HookSpec, "matches", _empty_matches_nothing)
            return super().apply(command)


def _one_over_the_cap(
    safe: tuple[bool, ...], running: tuple[bool, ...], index: int, cap: int
) -> bool:
    return may_start(safe, running, index, cap + 1)


class CapCountsOneOff(ModelTarget):
    """The model, except that a concurrency-safe call starts while `max_parallel` calls run
    (`<=` for `<`): with an asking hook, it is asked about there too."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(dispatch, "may_start", _one_over_the_cap)
            return super().apply(command)


_RESOLVE = rewrite.resolve_call


def _keeps_the_rewrite_of_a_denial(
    call: ToolCallBlock, votes: tuple[HookVote, ...], config: LoopConfig
) -> Resolution:
    resolved = _RESOLVE(call, votes, config)
    if resolved.decision != DENY:
        return resolved
    votes = rewrite.in_configured_order(votes, config)
    suppliers = [v for v in votes if rewrite.supplied_input(v.verdict) is not None]
    if not suppliers:
        return resolved
    applied = dumps(rewrite.supplied_input(suppliers[-1].verdict))
    sidecar = RewriteSidecar(call.arguments, tuple(v.handler_id for v in suppliers))
    return attrs.evolve(resolved, arguments=applied, sidecar=sidecar)


class DeniesButKeepsTheRewrite(ModelTarget):
    """The model, except that a denied call still records the input a hook supplied, with its
    sidecar (the loop applies rewrites before it looks at the decisions)."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "resolve_call", _keeps_the_rewrite_of_a_denial)
            return super().apply(command)


PROGRAMS: list[FreshBug] = [
    (
        "crash repair names the open step by counting every step of the log",
        RepairCountsEveryStep,
        READS,
        (
            SubmitUser(""),
            ModelFails(""),
            SubmitUser(""),
            calls("c1", "read", '{"file_path":""}'),
            Crash(),
            Recover(),
        ),
        "REC-1",
    ),
    (
        "a result cites the seq after its tool/call's, its own",
        CitesTheSeqAfterItsCall,
        READS,
        (
            SubmitUser(""),
            calls("c1", "read", '{"file_path":""}'),
            ToolFinishes("c1", ToolSucceeded("")),
        ),
        "ORD-2",
    ),
    (
        "a reopened loop's client is sent nothing of the crash repair",
        ShowsNothingOfTheRepair,
        READS,
        (SubmitUser(""), calls("c1", "read", '{"file_path":""}'), Crash(), Recover()),
        "PROTO-1",
    ),
    (
        "a reopened loop's client is sent nothing of the crash repair, a call of no presenter",
        ShowsNothingOfTheRepair,
        LoopConfig(tools=(ToolSpec("grep", concurrency_safe=True),)),
        (SubmitUser(""), calls("c1", "grep", "{}"), Crash(), Recover()),
        "PROTO-1",
    ),
    (
        "a denied call keeps the input another hook supplied (the arguments differ)",
        DeniesButKeepsTheRewrite,
        GUARDED_BASH,
        bash_answered('{"command":""}', Deny(""), Allow(updated_input={"command": "e"})),
        "HOOK-3",
    ),
    (
        "a denied call keeps the input another hook supplied (a sidecar on a denial)",
        DeniesButKeepsTheRewrite,
        GUARDED_BASH,
        bash_answered('{"command":"ls"}', Allow(updated_input={"command": "ls"}), Deny("")),
        "HOOK-3",
    ),
    (
        # ... an input that is no object, which the log alone reads as hooks run for a call of
        # no object (HOOK-4: seed 51 of 50-69); the model's call kept its own arguments.
        "a denied call keeps another hook's input that is no object",
        DeniesButKeepsTheRewrite,
        GUARDED_BASH,
        bash_answered('{"command":""}', Allow(updated_input="not an object"), Deny("")),
        "HOOK-3",
    ),
    (
        "a reply reusing an earlier reply's call id refused",
        RefusesIdsUsedBefore,
        READS,
        (
            SubmitUser(""),
            calls("c1", "read", '{"file_path":""}'),
            ToolFinishes("c1", ToolSucceeded("")),
            calls("c1", "read", '{"file_path":""}'),
        ),
        "EXE-1",
    ),
    (
        # The earlier reply was cancelled while its hook ran: no tool/call records its id,
        # which the loop noted all the same (session 27: random programs reuse the id of the
        # call before the batch, which such a reply had; the report named ORD-1).
        "a reply reusing the call id of a reply cancelled while its hooks ran refused",
        RefusesIdsUsedBefore,
        LoopConfig(tools=(READ,), hooks=(HookSpec("late", "PreToolUse", ".*"),)),
        (
            SubmitUser(""),
            calls("c1", "read", '{"file_path":""}'),
            Abort(),
            SubmitUser(""),
            calls("c1", "read", '{"file_path":""}'),
        ),
        "EXE-1",
    ),
    (
        # Both replies sent while idle, each refused: the model for the phase (MODEL-1), the
        # target for the id its refused first reply used (seed 60 of 50-69 named MODEL-1).
        "a reply sent while idle refused for the id of a reply refused before it",
        RefusesIdsUsedBefore,
        LoopConfig(tools=(READ,)),
        (calls("c1", "read", '{"file_path":""}'), calls("c1", "read", '{"file_path":""}')),
        "EXE-1",
    ),
    (
        # The reply refused while idle, then taken in a turn: its id is free (review r1: replay
        # of this case called it cut by hand, the situation counted for refused replies only).
        "a reply refused for the id of a reply refused while idle",
        RefusesIdsUsedBefore,
        LoopConfig(tools=(READ,)),
        (
            calls("c1", "read", '{"file_path":""}'),
            SubmitUser(""),
            calls("c1", "read", '{"file_path":""}'),
        ),
        "EXE-1",
    ),
    (
        "an empty matcher read as a pattern matching only the empty name",
        EmptyMatcherMatchesNothing,
        LoopConfig(tools=(READ,), hooks=(HookSpec("everything", "PreToolUse", ""),)),
        (SubmitUser(""), calls("c1", "read", '{"file_path":""}')),
        "HOOK-8",
    ),
    (
        "a cap counting one off, the call over it asked about",
        CapCountsOneOff,
        LoopConfig(tools=(READ,), hooks=(HookSpec("late", "PreToolUse", ".*"),), max_parallel=1),
        (
            SubmitUser(""),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", '{"file_path":""}'),
                    ToolCallBlock("c2", "read", '{"file_path":""}'),
                )
            ),
            HookAnswers(Pass()),
            HookAnswers(Ask()),
        ),
        "SCHED-1",
    ),
    (
        "a settled call counted as running until its result commits, an unknown tool behind it",
        CountsSettledCallsAsRunning,
        READS,
        (
            SubmitUser(""),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", '{"file_path":""}'),
                    ToolCallBlock("c2", "missing_tool", "{}"),
                )
            ),
            ToolFinishes("c1", ToolSucceeded("")),
        ),
        "SCHED-1",
    ),
]


@pytest.mark.parametrize("row", PROGRAMS, ids=names(PROGRAMS))
def test_MODEL_1_a_fresh_bug_of_round_5_is_blamed_on_the_rule_its_author_must_fix(
    row: FreshBug,
) -> None:
    """MODEL-1 (REC-1, ORD-2, PROTO-1, HOOK-3, SCHED-1, EXE-1, HOOK-8): the first divergence
    names the rule broken."""
    assert_blamed_on(row)


@pytest.mark.parametrize("row", PROGRAMS, ids=names(PROGRAMS))
def test_MODEL_1_the_round_5_programs_pass_on_the_model(row: FreshBug) -> None:
    """MODEL-1: control: without the bug, no program diverges."""
    assert_passes_on_model(row)


def test_REC_1_a_repair_result_in_the_wrong_step_names_the_repair() -> None:
    """REC-1: the report says the repair's result breaks STEP-3, and what repair appends."""
    assert_report_says(
        PROGRAMS,
        "crash repair names the open step",
        "crash repair breaks STEP-3 at its result",
        "then appends step/end if a step is open",
    )


def test_LOG_6_a_result_message_of_role_tool_names_LOG_6_though_the_history_carries_it() -> None:
    """LOG-6: a loop that writes a tool result message with OpenAI's role "tool" was stopped as
    PROTO-1 ("breaks the protocol schema at history/appended/0/..."): the history it reports
    carries the same message, and the schema's most specific error lay there. The event is what
    the model refuses, under LOG-6, so conform names LOG-6, still stopping (exit 2) as for
    any value it cannot compare."""
    message = {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "c1",
                "content": [{"type": "text", "text": ""}],
                "isError": False,
            }
        ],
        "source": {"kind": "tool", "callId": "c1"},
        "id": "m1",
    }
    event = {
        "type": "tool/result",
        "seq": 0,
        "time": 0,
        "data": {"turn": 1, "step": 1, "message": message},
        "surfaceOp": "append",
    }
    ready = {"type": "ready", "implementation": "fake", "capabilities": ["history"]}
    answer = {"type": "observed", "seq": 0, "accepted": True, "events": [event]}
    answer |= {"commits": [1], "executed": [], "history": {"kept": 0, "appended": [message]}}
    code = (
        f"import sys; sys.stdin.readline(); print({json.dumps(ready)!r}, flush=True);"
        f"sys.stdin.readline(); print({json.dumps(answer)!r}, flush=True); sys.stdin.read()"
    )
    target = ProcessTarget([sys.executable, "-c", code], name="fake")
    target.reset(LoopConfig())
    with pytest.raises(ProcessTargetError, match=r'message\.role must be "user"') as caught:
        target.apply(SubmitUser("hi"))
    assert caught.value.rule_id == "LOG-6"
    # The run stops on it naming LOG-6 too, and saves its case under that rule (it said PROTO-1).
    target.reset(LoopConfig())
    with pytest.raises(TargetError) as stopped:
        TargetBreakage().call("apply", lambda: target.apply(SubmitUser("hi")))
    assert stopped.value.rule_id == "LOG-6", stopped.value


def test_ORD_2_a_result_citing_itself_names_the_seq_of_its_call() -> None:
    """ORD-2: the report names the tool/call seq the result must cite."""
    assert_report_says(
        PROGRAMS,
        "a result cites the seq after",
        "does not cite its tool/call seq 4 in sourceEventSeqs",
    )


def test_ORD_2_check_names_a_result_citing_itself_as_conform_does() -> None:
    """ORD-2: `loopspec check`, given the log the buggy target writes, names the rule and
    sentence conform names (it named LOG-2's "sourceEventSeqs must cite earlier events" first,
    then ORD-2, where conform named ORD-2 alone), and says what the result cites instead."""
    _name, buggy, config, program, _rule = row_named(PROGRAMS, "a result cites the seq after")
    target = buggy()
    target.reset(config)
    events = [event for command in program for event in target.apply(command).events]
    header = {"type": "session", "version": 0, "id": "s", "createdAt": 0, "cwd": "/"}
    text = "".join(json.dumps(line) + "\n" for line in (header, *events))
    checked = check_stream("log", io.BytesIO(text.encode()))
    found = [(v.line, v.violation.rule_id, v.violation.message) for v in checked.violations]
    said = report(buggy, config, program)
    assert [rule for _line, rule, _message in found] == ["ORD-2"], found
    message = found[0][2]
    assert message in said, (message, said)
    assert message.endswith("in sourceEventSeqs, which cites seq 5, the result itself"), message


def test_PROTO_1_an_update_left_out_at_a_repair_result_says_it_is_the_repair_s() -> None:
    """PROTO-1: the report says the result left unshown is crash repair's, and that a reopened
    loop's client is sent it."""
    unshown = "a reopened loop's client is sent nothing of the crash repair"
    for name in (unshown, f"{unshown}, a call of no presenter"):
        assert_report_says(
            PROGRAMS,
            name,
            "this result is crash repair's TOOL_OUTCOME_UNKNOWN",
            "a reopened loop's client is sent what repair appends",
            lacks=("still gets the generic card",),
        )


def test_HOOK_3_a_denied_call_that_keeps_a_rewrite_says_a_deny_discards_it() -> None:
    """HOOK-3: both readings name the denying hook and say a deny discards every rewrite."""
    said = report(
        *row_named(PROGRAMS, "a denied call keeps the input another hook supplied (the")[1:4]
    )
    assert "but hook guard denied call c1: a deny discards every rewrite" in said, said
    said = report(
        *row_named(PROGRAMS, "a denied call keeps the input another hook supplied (a")[1:4]
    )
    # It denied the call in the same command: the report says nothing of its merge.
    assert "so no input was applied, yet the target applied one" in said, said
    assert "does not show yet" not in said, said


def test_SCHED_1_an_unknown_tool_held_at_the_gate_says_a_settled_call_runs_no_longer() -> None:
    """SCHED-1: the report says the call passes the gate now and a settled call runs no
    longer."""
    assert_report_says(
        PROGRAMS,
        "a settled call counted as running",
        "call c1's body settled in this command, so call c2 passes the gate now",
        "a settled call counts as running no longer",
    )


def _marker_on_the_last_raw_line(text: str) -> tuple[str, int | None, str | None]:
    head, _, last = text.rpartition("\n")
    code = exit_code_of(last)
    signal = None if code is not None else signal_of(last)
    return (text, None, None) if code is None and signal is None else (head, code, signal)


class ReadsTheMarkerOnTheLastRawLine(ModelTarget):
    """The model, except that a bash result's exit marker is looked for on its last line as
    written, so a marker followed by a newline is left in the output."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(presenters, "parse_exit_marker", _marker_on_the_last_raw_line)
            return super().apply(command)


def test_VIEW_2_an_exit_marker_before_a_newline_left_in_the_output_is_caught() -> None:
    """VIEW-2: no row of SPEC.md section 12 and no random program gave a bash result whose
    marker line has a newline after it, so a loop that read the marker on the last raw line
    passed; section 12 now has such a row, which conform plays before its random programs."""
    with pytest.raises(DivergenceFound) as found:
        sweep_presentation(ReadsTheMarkerOnTheLastRawLine, frozenset(CAPABILITIES))
    assert found.value.divergence.rule_id == "VIEW-2", found.value
    assert "the last line once trailing newlines are set aside" in str(found.value), found.value


_JUDGED = results.judged_result


def _block_reasons_trimmed(
    outcome: ToolOutcome, audit: tuple[tuple[HookSpec, PostVerdict, float], ...], **kwargs: bool
) -> PreparedResult:
    """`judged_result`, but with a block's reason of only whitespace taken for no reason."""
    judged = _JUDGED(outcome, audit, **kwargs)
    blocks = [said for _hook, said, _took in audit if isinstance(said, PostBlock)]
    if not blocks:
        return judged
    reasons = [said.reason for said in blocks if said.reason.strip()]
    content = tuple(TextBlock(reason) for reason in reasons or [BLOCKED_WITHOUT_REASON])
    return attrs.evolve(judged, content=content)


def test_DEC_3_a_block_reason_of_whitespace_dropped_is_found_by_the_sweep() -> None:
    """DEC-3: a PostToolUse block's reason of only whitespace is given as is. No random program
    drew one, so the bundled loop made to take it for no reason (`blocked by PostToolUse
    hook`, as a loop testing `reason.strip()` does) passed them all on every seed tried; the
    targeted programs now hold such a block, beside one without a reason."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(batch, "judged_result", _block_reasons_trimmed)
        with pytest.raises(DivergenceFound) as found:
            sweep_situations(bundled_target, frozenset(CAPABILITIES))
    divergence = found.value.divergence
    assert divergence.rule_id == "DEC-3", divergence.what


def test_HOOK_8_an_empty_matcher_read_as_a_pattern_is_found_and_named() -> None:
    """HOOK-8: the targeted programs hold a hook with an empty matcher, and a loop that never
    runs it is told that an empty matcher matches every tool."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(EmptyMatcherMatchesNothing, frozenset(CAPABILITIES))
    divergence = found.value.divergence
    assert divergence.rule_id == "HOOK-8", divergence.what
    assert "matcher is empty, which matches every tool" in divergence.what, divergence.what


def test_EXE_1_a_reply_reusing_an_earlier_id_refused_is_found_and_named() -> None:
    """EXE-1: the targeted programs hold a reply that reuses an earlier reply's call id, and a
    loop refusing it is told that ids are unique within one reply only."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(RefusesIdsUsedBefore, frozenset(CAPABILITIES))
    divergence = found.value.divergence
    assert divergence.rule_id == "EXE-1", divergence.what
    assert "call ids are unique within one reply only" in divergence.what, divergence.what


class RepairCancelsApprovals(ModelTarget):
    """The model, except that crash repair first answers a still pending approval cancelled."""

    def apply(self, command: Command) -> Observation:
        pending: list[str] = []
        if isinstance(command, Recover) and self.state is not None:
            asked = [e.id for e in self.state.log if isinstance(e, ApprovalAsked)]
            decided = {e.id for e in self.state.log if isinstance(e, ApprovalDecided)}
            pending = [request for request in asked if request not in decided]
        observed = super().apply(command)
        if not pending:
            return observed
        cancelled = [
            {
                "type": "approval/decided",
                "seq": 0,
                "time": 0,
                "data": {"id": request, "outcome": "cancelled"},
            }
            for request in pending
        ]
        events = copied(observed)
        for event in cancelled:
            event["time"] = events[0]["time"]
        return renumbered(observed, cancelled + events)


def test_REC_1_a_repair_that_answers_a_pending_approval_is_found_by_the_sweep() -> None:
    """REC-1: a crash while a call waits for its approval came in one program of 400 on two
    seeds; the targeted programs now hold one, and a repair that answers the approval is
    blamed on REC-1."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(RepairCancelsApprovals, frozenset(CAPABILITIES))
    divergence = found.value.divergence
    assert divergence.rule_id == "REC-1", divergence.what
