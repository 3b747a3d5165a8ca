"""Fresh bugs of session 30, found by the programs and blamed on the rule their author must fix.

Session 30 wrote twenty-five more wrong loops outside the project, favouring the rule families
earlier rounds planted least in (hooks' merge, audit and matching, rewrites and their sidecar,
denials, the log's shape), in three shapes: copies of `impl/`, of `examples/js-loop/`, and of
the loop docs/tutorial.md quotes, changed as someone who read only the docs would change it.
`loopspec conform` ran on each with two seeds. Where no program showed the bug, or the report
named another rule than the one the bug breaks, the difference is planted here in the model and
the programs that must show it are played:

- PostToolUse hooks looked up as the PreToolUse hooks of the tool, so an outcome with the
  right count of verdicts is refused: named EXE-4 (an outcome for a call not running); a probe
  now finds the count the target takes, HOOK-5;
- a deny without a reason ignored: named SCHED-2 where an approval waited behind the call (the
  target ran the denied call), HOOK-2 where another hook allowed; now DEC-1, in words saying a
  deny giving no reason denies too, and a program cut down to the lone deny keeps DEC-1;
- the last hook's answer taken as the merge: named right (HOOK-2), in words that said only that
  a result was missing; they now say the strictest answer wins, whatever order;
- a rewrite giving a required key null refused as missing: no program gave one (a targeted
  program now does), and the report named RW-1; now HOOK-6, saying the key is there;
- a rewrite judged by the first hook's input, not the one in effect: named HOOK-3 (an earlier
  input won); the target's refusal names the hook in effect, whose input fits: HOOK-6, also
  behind a running call, whose result a probe settles to bring the refusal in;
- the sidecar naming the hooks in reverse, the input in effect applied: named HOOK-3 (another
  rewrite in effect); now RW-2, the sidecar's order;
- an event's time written as Python's `time.time()`, seconds as a float: passed every program
  of an in-process target (`loopspec check` refuses the log); now LOG-4, saying what to write;
- a failure without a code written with `{name, code: null}`: named right (EXE-4), in words
  saying the text is `Error: <message>`, which it was; they now name the error info;
- missing keys quoted in plain quotes, not as Python's `repr`: passed both seeds (no program
  of a loop without hooks named such keys); a targeted program now does, named TEXT-1 with
  words on the quoting;
- a call's arguments written back as `json.dumps(json.loads(raw))`: named right (RW-1), with a
  diff showing the model's arguments parsed, an Infinity where it wrote 1e400; they stay raw;
- the first hook's input in effect: named right (HOOK-3), the words now naming the hook whose
  input runs and the one in effect;
- the tutorial's loop given `parallel`, holding an exclusive call's place before judging its
  input: named right (SCHED-1), in words saying the calls without a result leave room; they
  now say the invalid call between holds no place.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest
from fresh_bugs import FreshBug, assert_found, calls, copied, planted, swept

from loopspec.model import config as config_module
from loopspec.model import rewrite
from loopspec.model.commands import (
    Allow,
    Ask,
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    PostBlock,
    PostPass,
    PreVerdict,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, PRE_TOOL_USE, HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import RewriteSidecar
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import ToolCallBlock
from loopspec.model.pure.decisions import RANK_DENY, RANK_PASS, merged_rank
from loopspec.model.state import DENY
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.json_values import as_value
from loopspec.properties.conformance.run import reduce_counterexample, replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
BASH = ToolSpec("bash", required_keys=("command",))
GREP = ToolSpec("grep", concurrency_safe=True, required_keys=("pattern",))


def _two_hooks(tool: ToolSpec) -> LoopConfig:
    """`tool` alone, judged by two PreToolUse hooks, `first` then `final`."""
    hooks = tuple(HookSpec(name, "PreToolUse", tool.name) for name in ("first", "final"))
    return LoopConfig(tools=(tool,), hooks=hooks)


_HOOKS_FOR = LoopConfig.hooks_for


def _post_as_pre(config: LoopConfig, point: str, tool_name: str) -> tuple[HookSpec, ...]:
    return _HOOKS_FOR(config, PRE_TOOL_USE if point == POST_TOOL_USE else point, tool_name)


POST_HOOKS_AS_PRE: FreshBug = (
    "PostToolUse hooks looked up as PreToolUse hooks",
    planted(
        LoopConfig,
        "hooks_for",
        _post_as_pre,
        "The model, except that the PostToolUse hooks of a tool are its PreToolUse hooks (a "
        "lookup copied from the PreToolUse one), so an outcome's verdicts are counted so.",
    ),
    LoopConfig(tools=(READ,), hooks=(HookSpec("audit", "PostToolUse", "read"),)),
    (
        SubmitUser("read it"),
        calls("c1", "read", '{"file_path":"a.txt"}'),
        ToolFinishes("c1", ToolSucceeded("A"), (PostPass(),)),
    ),
    "HOOK-5",
)


def test_HOOK_5_an_outcome_refused_for_a_count_of_verdicts_the_target_takes_otherwise() -> None:
    """HOOK-5: the target refuses the outcome the model takes with one verdict per matching
    PostToolUse hook, and a probe finds it takes the outcome with none (EXE-4 was named: an
    outcome for a call not running)."""
    assert_found(
        POST_HOOKS_AS_PRE,
        "the model takes call c1's outcome with 1 PostToolUse verdict(s)",
        "(hook audit matching it), and the target takes it with 0",
    )


def _deny_ignored(ranks: tuple[int, ...]) -> int:
    return merged_rank(tuple(rank for rank in ranks if rank != RANK_DENY))


IGNORES_DENIES = planted(
    rewrite,
    "merged_rank",
    _deny_ignored,
    "The model, except that a hook's deny counts for nothing in the merge (a loop that reads "
    "a deny without a reason as no answer, given no reason here).",
)
GATED_READS = LoopConfig(tools=(READ,), hooks=(HookSpec("gate", "PreToolUse", "read"),))

DENIED_RUN_BEFORE_AN_ASK: FreshBug = (
    "a lone deny ignored, an approval waiting behind it",
    IGNORES_DENIES,
    GATED_READS,
    (
        SubmitUser("read both"),
        ModelReplies(
            (
                *calls("c1", "read", '{"file_path":"a.txt"}').blocks,
                *calls("c2", "read", '{"file_path":"b.txt"}').blocks,
            )
        ),
        HookAnswers(Deny("")),
        HookAnswers(Ask()),
    ),
    "DEC-1",
)


def test_DEC_1_a_denied_call_run_while_an_approval_waits_behind_it_is_named_DEC_1() -> None:
    """DEC-1: the target runs a call its only hook denied without a reason (SCHED-2 was
    named: results committing while call c2 waits for its approval)."""
    assert_found(
        DENIED_RUN_BEFORE_AN_ASK,
        "the target runs it, but hook gate denied it: a denied call never runs",
        "a deny giving no reason denies too: its result is then 'Error: denied'",
    )


def test_DEC_1_a_deny_run_after_another_hook_allowed_is_cut_down_to_the_lone_deny() -> None:
    """DEC-1: a program where one hook denies and another allows names HOOK-2 (the merge); cut
    down to the denying hook alone, the target still runs the call, so the case kept is the
    lone deny's, DEC-1 (the reducer kept the allowing hook to keep HOOK-2)."""
    config = LoopConfig(
        tools=(BASH,),
        hooks=(HookSpec("guard", "PreToolUse", "bash"), HookSpec("rewriter", "PreToolUse", "bash")),
    )
    program = (
        SubmitUser("go"),
        calls("c1", "bash", '{"command":"ls"}'),
        HookAnswers(Deny("")),
        HookAnswers(Allow()),
    )
    first = replay_case(IGNORES_DENIES, config, list(program)).divergence
    assert first is not None
    assert first.rule_id == "HOOK-2", first.what
    reduced = reduce_counterexample(IGNORES_DENIES, DivergenceFound(first, config, program))
    assert reduced.divergence.rule_id == "DEC-1", reduced.divergence.what
    assert [hook.handler_id for hook in reduced.config.hooks] == ["guard"]


def _last_answer_wins(ranks: tuple[int, ...]) -> int:
    return ranks[-1] if ranks else RANK_PASS


LAST_ANSWER_WINS: FreshBug = (
    "the last hook's answer taken as the merge",
    planted(
        rewrite,
        "merged_rank",
        _last_answer_wins,
        "The model, except that the last hook to answer decides the call (each hook overruling "
        "the one before), not the strictest answer.",
    ),
    _two_hooks(READ),
    (
        SubmitUser("read it"),
        calls("c1", "read", '{"file_path":"a.txt"}'),
        HookAnswers(Deny("no")),
        HookAnswers(Pass()),
    ),
    "HOOK-2",
)


def test_HOOK_2_a_pass_after_a_deny_that_runs_the_call_says_the_strictest_wins() -> None:
    """HOOK-2: the words say the deny and the pass, and that the strictest answer wins whatever
    the order (they said only that the target lacked the call's result)."""
    assert_found(
        LAST_ANSWER_WINS,
        "the target runs it, but hook first denied it and hook final said pass: the strictest "
        "answer wins (deny > ask > allow > pass), whatever order the hooks answer in",
    )


def _hooks_named(tool: ToolSpec, *names: str) -> LoopConfig:
    """`tool` alone, judged by a PreToolUse hook of each of `names`, in that order."""
    return LoopConfig(
        tools=(tool,), hooks=tuple(HookSpec(n, "PreToolUse", tool.name) for n in names)
    )


@pytest.mark.parametrize(
    ("config", "answers", "says"),
    [
        (
            _two_hooks(READ),
            (Ask(), Pass()),
            "hook first asked and hook final passed call c1 after it, and an ask outranks a pass",
        ),
        (
            _hooks_named(READ, "first", "second", "third", "final"),
            (Ask(), Pass(), Ask(), Pass()),
            "hooks first, third asked and hook final passed call c1 after it, and an ask "
            "outranks a pass",
        ),
    ],
    ids=["one ask, then a pass", "a pass between two asks, and one after the last"],
)
def test_HOOK_2_DEC_2_a_pass_after_an_ask_that_runs_the_call_unasked_names_the_merge(
    config: LoopConfig, answers: tuple[PreVerdict, ...], says: str
) -> None:
    """HOOK-2 (DEC-2): the same loop running a call one hook asked about and a later one
    passed, unasked, was named DEC-2 (an ask decision asks) on batches 17, 18 and 24 of 10-29,
    where it asks when the ask comes last, which a call sent after it shows (a loop never
    asking stays DEC-2: test_blame_hook_merge_bugs's control). The passes named are those after
    the last ask, whose last one the loop let win (they counted from the first ask)."""
    assert_found(
        (
            "the last hook's answer taken as the merge, a pass after an ask",
            LAST_ANSWER_WINS[1],
            config,
            (
                SubmitUser("read it"),
                calls("c1", "read", '{"file_path":"a.txt"}'),
                *(HookAnswers(answer) for answer in answers),
            ),
            "HOOK-2",
        ),
        says,
        "its hooks answering pass, then ask last, was asked about",
    )


def test_HOOK_2_a_pass_after_an_ask_on_an_unregistered_tool_names_the_merge() -> None:
    """HOOK-2: the same loop, the call's tool not registered: the target answers it
    UNKNOWN_TOOL at once, where the model asks, and the probe telling the merge from a loop
    never asking was not sent from there (DEC-2 on seed 35 of 30-49)."""
    assert_found(
        (
            "the last hook's answer taken as the merge, an unregistered tool's call",
            LAST_ANSWER_WINS[1],
            LoopConfig(
                hooks=(HookSpec("first", "PreToolUse", "*"), HookSpec("final", "PreToolUse", ".*"))
            ),
            (
                SubmitUser(""),
                calls("c1", "missing_tool", "{}"),
                HookAnswers(Ask()),
                HookAnswers(Pass()),
            ),
            "HOOK-2",
        ),
        "hook first asked and hook final passed call c1 after it",
        "its hooks answering pass, then ask last, was asked about",
    )


@pytest.mark.parametrize(
    ("max_parallel", "first_call", "second_call", "says"),
    [
        (
            1,
            (Ask(), Allow({"file_path": "b.txt"})),
            (Deny(""), Ask(updated_input={"file_path": "b.txt"})),
            "once the calls before call c2 finished, the target asked the user about it",
        ),
        (
            2,
            (Ask(), Allow({"file_path": "b.txt"}), Pass()),
            (Deny(""), Ask(updated_input={"file_path": "b.txt"}), Pass()),
            "the target runs it, so it did not merge its hooks' answers to a deny",
        ),
    ],
    ids=["an ask behind the call it runs unasked", "a pass last, the call run at once"],
)
def test_HOOK_2_a_deny_overruled_after_a_call_asked_then_allowed_names_the_merge(
    max_parallel: int,
    first_call: tuple[PreVerdict, ...],
    second_call: tuple[PreVerdict, ...],
    says: str,
) -> None:
    """HOOK-2: the same loop, its first call asked about then allowed with an input (which it
    runs unasked) and its second denied then asked about with an input (which it applies), was
    named HOOK-3, its log not showing yet whether it denies the second call, on 19 of batches
    0-19 (the draws of 86f1e8d3): the probe settled the first call as the model's log has it,
    rejecting an approval the target never asked for, where it now settles it as the target's
    log has it (a success); and a second call the target ran in the same command was not
    read as run."""
    names = ("first", "second", "final")[: len(second_call) - 1]
    hooks = tuple(HookSpec(name, "PreToolUse", "read") for name in (*names, "final"))
    assert_found(
        (
            "the last hook's answer taken as the merge, a deny overruled after an allowed ask",
            LAST_ANSWER_WINS[1],
            LoopConfig(tools=(READ,), hooks=hooks, max_parallel=max_parallel),
            (
                SubmitUser(""),
                ModelReplies(
                    (
                        *calls("c1", "read", '{"file_path":"a.txt"}').blocks,
                        *calls("c2", "read", '{"file_path":"c.txt"}').blocks,
                    )
                ),
                *(HookAnswers(answer) for answer in first_call),
                *(HookAnswers(answer) for answer in second_call),
            ),
            "HOOK-2",
        ),
        says,
    )


def test_HOOK_2_a_deny_overruled_behind_a_call_awaiting_approval_is_told_by_rejecting_it() -> None:
    """HOOK-2: the same loop applying an allowing hook's input to a call another hook denied,
    held behind a call awaiting approval, was named HOOK-3 with words saying its log did not
    show yet whether it denies the call (batch 26 of 10-29): the probe sent the earlier call a
    success, which a call awaiting approval refuses; it now rejects that approval, and the
    target runs the denied call."""
    assert_found(
        (
            "the last hook's answer taken as the merge, behind a call awaiting approval",
            LAST_ANSWER_WINS[1],
            LoopConfig(
                tools=(BASH, ToolSpec("write", required_keys=("file_path", "content"))),
                hooks=(
                    HookSpec("rewriter", "PreToolUse", "bash"),
                    HookSpec("guard", "PreToolUse", "bash|write"),
                ),
            ),
            (
                SubmitUser(""),
                ModelReplies(
                    (
                        *calls("c1", "write", '{"file_path":"","content":""}').blocks,
                        *calls("c2", "bash", '{"command":""}').blocks,
                    )
                ),
                HookAnswers(Ask()),
                HookAnswers(Deny("")),
                HookAnswers(Allow({"command": ""})),
            ),
            "HOOK-2",
        ),
        "once the calls before call c2 finished, the target ran it",
    )


_RESOLVE_CALL = rewrite.resolve_call


def _null_key_missing(call: Any, votes: Any, config: LoopConfig) -> Any:
    resolution = _RESOLVE_CALL(call, votes, config)
    tool = config.tool(call.name)
    if resolution.sidecar is None or tool is None:
        return resolution
    applied = json.loads(resolution.arguments)
    missing = [key for key in tool.required_keys if applied.get(key) is None]
    if not missing:
        return resolution
    hook = resolution.sidecar.handler_ids[-1]
    refused = f"hook {hook} rewrote the input of {call.name}: missing required {missing[0]!r}"
    return rewrite.Resolution(call.arguments, None, DENY, refused)


NULL_KEY_REFUSED = planted(
    rewrite,
    "resolve_call",
    _null_key_missing,
    "The model, except that a hook's input whose required key is null is refused as missing "
    "that key (JavaScript's `input.get(key) == null`); the model's own arguments are read "
    "right.",
)
REWRITTEN_BASH = LoopConfig(tools=(BASH,), hooks=(HookSpec("rewriter", "PreToolUse", "bash"),))

NULL_REQUIRED_KEY_REFUSED: FreshBug = (
    "a rewrite giving a required key null refused",
    NULL_KEY_REFUSED,
    REWRITTEN_BASH,
    (
        SubmitUser("list the files"),
        calls("c1", "bash", '{"command":"ls"}'),
        HookAnswers(Allow(FrozenMap({"command": None}))),
    ),
    "HOOK-6",
)


def test_HOOK_6_a_rewrite_giving_a_required_key_null_refused_is_named_HOOK_6() -> None:
    """HOOK-6: the tool takes an input whose required key is null; the target refusing it is
    named so, with the key (RW-1 was named: the reply's arguments are not the rewritten ones)."""
    assert_found(
        NULL_REQUIRED_KEY_REFUSED,
        'the target refuses the input hook rewriter supplied, {"command": null}',
        "but its tool takes it (a key given null is there: 'command')",
    )


def test_HOOK_6_a_targeted_program_gives_a_required_key_null_in_a_rewrite() -> None:
    """HOOK-6: the targeted programs give a rewrite a required key null (the random ones give
    none, and neither seed found a loop refusing it)."""
    divergence = swept(NULL_KEY_REFUSED)
    assert divergence.rule_id == "HOOK-6", divergence.what


def _judges_the_first_input(call: Any, votes: Any, config: LoopConfig) -> Any:
    resolution = _RESOLVE_CALL(call, votes, config)
    supplied = [
        vote
        for vote in rewrite.in_configured_order(votes, config)
        if rewrite.supplied_input(vote.verdict) is not None
    ]
    tool = config.tool(call.name)
    if len(supplied) < 2 or tool is None or resolution.sidecar is None:
        return resolution
    problem = tool.input_problem(rewrite.supplied_input(supplied[0].verdict))
    if problem is None:
        return resolution
    refused = f"hook {supplied[-1].handler_id} rewrote the input of {call.name}: {problem}"
    return rewrite.Resolution(call.arguments, None, DENY, refused)


FIRST_INPUT_JUDGED: FreshBug = (
    "the first hook's input judged, the last one's in effect",
    planted(
        rewrite,
        "resolve_call",
        _judges_the_first_input,
        "The model, except that the input judged is the first one a hook supplied, though the "
        "last one replaces it (the refusal naming the hook in effect).",
    ),
    _two_hooks(GREP),
    (
        SubmitUser("find it"),
        calls("c1", "grep", '{"pattern":"x"}'),
        HookAnswers(Allow("not an object")),
        HookAnswers(Allow(FrozenMap({"pattern": "F"}))),
    ),
    "HOOK-6",
)


def test_HOOK_6_an_input_judged_though_replaced_is_named_HOOK_6() -> None:
    """HOOK-6: the target refuses the call in the name of the hook whose input is in effect,
    which its tool takes (HOOK-3 was named: an earlier input winning, which would be refused in
    the earlier hook's name)."""
    assert_found(
        FIRST_INPUT_JUDGED,
        "the target refuses the input hook final supplied",
        "only the input in effect is judged",
    )


def test_HOOK_6_an_input_judged_though_replaced_by_one_equal_to_the_models_is_named_HOOK_6() -> (
    None
):
    """HOOK-6: where the input in effect equals the model's own arguments, only the sidecar
    tells the refused call from the model's, and its absence follows from the refusal (RW-2
    was named on 2 seeds of 10: no sidecar recorded)."""
    assert_found(
        (
            "the first hook's input judged, the last one's equal to the model's",
            FIRST_INPUT_JUDGED[1],
            _two_hooks(GREP),
            (
                SubmitUser("find it"),
                calls("c1", "grep", '{"pattern":"x"}'),
                HookAnswers(Allow(FrozenMap({}))),
                HookAnswers(Allow(FrozenMap({"pattern": "x"}))),
            ),
            "HOOK-6",
        ),
        "the target records no rewrite sidecar: the call's arguments in the audit record "
        "(tool/call) are the model's: the target refuses the input hook final supplied",
    )


def _reversed_sidecar(call: Any, votes: Any, config: LoopConfig) -> Any:
    resolution = _RESOLVE_CALL(call, votes, config)
    sidecar = resolution.sidecar
    if sidecar is None:
        return resolution
    turned = RewriteSidecar(sidecar.original_arguments, sidecar.handler_ids[::-1])
    return rewrite.Resolution(resolution.arguments, turned, resolution.decision, resolution.reason)


SIDECAR_REVERSED: FreshBug = (
    "the sidecar naming its hooks in reverse",
    planted(
        rewrite,
        "resolve_call",
        _reversed_sidecar,
        "The model, except that the sidecar names the hooks that supplied an input the one in "
        "effect first, the input in effect applied all the same.",
    ),
    _two_hooks(READ),
    (
        SubmitUser("read it"),
        calls("c1", "read", '{"file_path":"a.txt"}'),
        HookAnswers(Allow(FrozenMap({"file_path": "safe.txt"}))),
        HookAnswers(Allow(FrozenMap({"file_path": "safe.txt"}))),
    ),
    "RW-2",
)


def test_RW_2_a_sidecar_in_reverse_with_the_input_in_effect_applied_is_named_RW_2() -> None:
    """RW-2: the call's arguments are the input in effect, both hooks' inputs being equal, and
    only the sidecar's order is wrong (HOOK-3 was named: another rewrite in effect)."""
    assert_found(
        SIDECAR_REVERSED,
        'the sidecar names the hooks that supplied an input as ["final", "first"], where they '
        'are ["first", "final"]',
    )


class ClockInSeconds(ModelTarget):
    """The model, except that each event's time is seconds since the epoch as a float (a loop
    written from the tutorial with Python's `time.time()`), which the log's reader refuses."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        for event in events:
            event["time"] = 1733400000.25 + event["seq"]
        return attrs.evolve(observed, events=tuple(events))


CLOCK_IN_SECONDS: FreshBug = (
    "time written in seconds, a float",
    ClockInSeconds,
    LoopConfig(tools=(READ,)),
    (SubmitUser("hi"),),
    "LOG-4",
)


def test_LOG_4_an_event_time_that_is_no_whole_millisecond_is_named_LOG_4() -> None:
    """LOG-4: an in-process target writing time.time() passed every program (the facts the
    rules read skip such a time), though `loopspec check` refuses its log."""
    assert_found(
        CLOCK_IN_SECONDS,
        "turn/start.time is 1733400000.25, where an event's time is a whole number of "
        "milliseconds since the Unix epoch",
        "int(time.time() * 1000)",
    )


class NullErrorCode(ModelTarget):
    """The model, except that a failed body without a code still gets `{name, code: null}` as
    its result's error info (the tutorial's loop writing the pair whatever the code)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, ToolFinishes) or not isinstance(command.outcome, ToolFailed):
            return observed
        events = copied(observed)
        for event in events:
            if event["type"] == "tool/result" and "error" not in event["data"]:
                event["data"]["error"] = {"name": command.outcome.error_name, "code": None}
        return attrs.evolve(observed, events=tuple(events))


NULL_ERROR_CODE: FreshBug = (
    "a failure without a code written with a null code",
    NullErrorCode,
    LoopConfig(tools=(READ,)),
    (
        SubmitUser("read it"),
        calls("c1", "read", '{"file_path":"a.txt"}'),
        ToolFinishes("c1", ToolFailed("gone")),
    ),
    "EXE-4",
)


def test_EXE_4_error_info_with_a_null_code_is_named_as_the_error_info() -> None:
    """EXE-4: the words say the error info is what differs, written where the body gave no
    code (they said the result's text is Error: <message>, which it was)."""
    assert_found(
        NULL_ERROR_CODE,
        'the target writes {"name": "ToolError", "code": null} as tool/result.error where the '
        "body failed without a code",
        lacks=["a failed body's result is Error: <message>"],
    )


def test_DEC_1_error_info_written_on_a_denial_committed_with_a_failure_is_named_so() -> None:
    """DEC-1: the loop writing {name, code} on every error result writes it on a denied call's
    result committed with the failed call's before it; the words say the error info differs,
    where they spoke of the text Error: <reason> (seeds 36 and 40 of 30-49)."""
    assert_found(
        (
            "error info written on a denial committed with a failure",
            NullErrorCode,
            LoopConfig(
                tools=(READ, BASH),
                hooks=(HookSpec("guard", "PreToolUse", "bash"),),
                max_parallel=2,
            ),
            (
                SubmitUser(""),
                ModelReplies(
                    (
                        ToolCallBlock("c1", "read", '{"file_path":""}'),
                        ToolCallBlock("c2", "bash", '{"command":""}'),
                    )
                ),
                HookAnswers(Deny("")),
                ToolFinishes("c1", ToolFailed("", code="EACCES", error_name="PermissionError")),
            ),
            "DEC-1",
        ),
        'differs in its error info: the target writes {"name": "PermissionError", "code": null}',
        "carries no error info",
        lacks=["the reason the non-empty reasons"],
    )


def test_EXE_4_error_info_with_a_null_code_under_a_post_block_is_named_as_the_error_info() -> None:
    """EXE-4: under a PostToolUse block the content is the block reasons, as the model's, and
    only the error info differs (DEC-3 was named on 3 seeds of 10: the block not applied)."""
    assert_found(
        (
            "a blocked failure without a code written with a null code",
            NullErrorCode,
            LoopConfig(tools=(READ,), hooks=(HookSpec("audit", "PostToolUse", "read"),)),
            (
                SubmitUser(""),
                calls("c1", "read", '{"file_path":""}'),
                ToolFinishes("c1", ToolFailed(""), (PostBlock(""),)),
            ),
            "EXE-4",
        ),
        'the target writes {"name": "ToolError", "code": null} as tool/result.error where the '
        "body failed without a code",
    )


def test_DEC_3_error_info_of_its_own_on_a_blocked_failure_with_a_code_is_not_the_bodys() -> None:
    """DEC-3: where the body failed with a code, the blocked result the loop gives error info
    of its own (a null code) is DEC-3's, as a block's result carries none; the words said the
    target kept the body's error info (batches 12, 13, 24 and 26 of 10-29), which differs."""
    assert_found(
        (
            "a blocked failure with a code written with a null code",
            NullErrorCode,
            LoopConfig(tools=(READ,), hooks=(HookSpec("audit", "PostToolUse", "read"),)),
            (
                SubmitUser(""),
                calls("c1", "read", '{"file_path":""}'),
                ToolFinishes("c1", ToolFailed("", "EACCES", "PermissionError"), (PostBlock(""),)),
            ),
            "DEC-3",
        ),
        'the target writes the error info {"name": "PermissionError", "code": null} (the failed '
        'body\'s is {"name": "PermissionError", "code": "EACCES"}) on a result a PostToolUse hook '
        "blocked",
        lacks=("keeps the failed body's error info",),
    )


PLAIN_QUOTES = planted(
    config_module,
    "quoted_keys",
    lambda keys: ", ".join(f"'{key}'" for key in keys),
    "The model, except that each missing key is quoted in plain single quotes, not as "
    "Python's `repr` writes it (a loop from the tutorial formatting `f\"'{key}'\"`).",
)


def test_TEXT_1_a_targeted_program_names_keys_a_plain_quoting_gets_wrong() -> None:
    """TEXT-1: a targeted program a loop without hooks gets calls a tool whose required keys
    Python's `repr` quotes otherwise (the random programs name them only with hooks, and the
    tutorial's loop quoting plainly passed both seeds); the words say how keys are quoted."""
    divergence = swept(PLAIN_QUOTES)
    assert divergence.rule_id == "TEXT-1", divergence.what
    assert "the missing keys differ in how they are quoted" in divergence.what, divergence.what


def test_EXE_2_arguments_without_a_lossless_value_are_compared_and_shown_raw() -> None:
    """EXE-2: arguments holding 1e400 or -0.0 stay their raw text where conform compares and
    shows them (a loop writing its calls' arguments back as json.dumps(json.loads(raw)) read,
    in the diff, as the model's tool/call holding an Infinity the model never wrote)."""
    for raw in ('{"command":"ls","timeout":1e400}', '{"x":-0.0}', '{"x":-1e400}'):
        assert as_value(raw) == raw
    assert as_value('{"x":1e300}') == as_value('{"x":1E300}')
    assert as_value('{"x":0.0}') != as_value('{"x":-0.0}')


FIRST_INPUT_WINS: FreshBug = (
    "the first hook's input in effect",
    planted(
        rewrite,
        "winning_rewrite",
        lambda supplied, merged: supplied.index(True) if True in supplied else -1,
        "The model, except that the first hook to supply an input wins (later ones seeing the "
        "input fixed), not the last in configured order.",
    ),
    _two_hooks(READ),
    (
        SubmitUser("read it"),
        calls("c1", "read", '{"file_path":"a.txt"}'),
        HookAnswers(Allow(FrozenMap({"file_path": "first.txt"}))),
        HookAnswers(Allow(FrozenMap({"file_path": "final.txt"}))),
    ),
    "HOOK-3",
)


def test_HOOK_3_an_earlier_input_in_effect_names_the_hook_whose_input_runs() -> None:
    """HOOK-3: the words name the hook whose input the target runs and the one in effect (they
    said only that a rewrite other than the last won)."""
    assert_found(
        FIRST_INPUT_WINS,
        "call c1 runs the input hook first supplied, where hook final's, the last supplied in "
        "configured order, is in effect",
    )


def test_HOOK_3_a_sidecar_recording_an_earlier_equal_input_in_effect_is_named_HOOK_3() -> None:
    """HOOK-3: of three hooks supplying equal inputs, a sidecar naming the first last, the
    others in configured order, is the record of the first input in effect, not a sidecar
    reordered (RW-2 was named on 4 seeds of 10; of two hooks, a reversed sidecar reads alike
    and RW-2 stays, its words naming HOOK-3 too)."""
    hooks = tuple(HookSpec(name, "PreToolUse", "read") for name in ("first", "second", "final"))
    same = HookAnswers(Allow(FrozenMap({"file_path": "same.txt"})))
    assert_found(
        (
            "the first hook's input in effect, three equal inputs",
            FIRST_INPUT_WINS[1],
            LoopConfig(tools=(READ,), hooks=hooks),
            (SubmitUser("read it"), calls("c1", "read", '{"file_path":"a.txt"}'), *[same] * 3),
            "HOOK-3",
        ),
        "the target's is the sidecar of hook first's input in effect, where the last input "
        "supplied in configured order, hook final's, is",
    )


@pytest.mark.parametrize(
    ("row", "says"),
    [
        (
            SIDECAR_REVERSED,
            "given unequal inputs by the same hooks, ran hook final's): only the record is in "
            "another order",
        ),
        (
            (
                "the first hook's input in effect, two equal inputs",
                FIRST_INPUT_WINS[1],
                *SIDECAR_REVERSED[2:4],
                "HOOK-3",
            ),
            "the target's is the sidecar of hook first's input in effect, where the last input "
            "supplied in configured order, hook final's, is (the two inputs are equal here, so "
            "the call's arguments agree; a call sent after it to tell, given unequal inputs by "
            "the same hooks, ran hook first's)",
        ),
    ],
    ids=["the sidecar reversed", "the first input in effect"],
)
def test_RW_2_HOOK_3_two_equal_inputs_are_told_apart_by_a_call_sent_after(
    row: FreshBug, says: str
) -> None:
    """RW-2, HOOK-3: of two hooks supplying equal inputs, a sidecar in reverse and the first
    input in effect read alike (RW-2 was named on seeds 4 and 8 of 10 of the first-input loop,
    whose bug is HOOK-3); a call made after it, the same hooks giving unequal inputs, tells."""
    assert_found(row, says)


class HoldsBehindAnInvalidWrite(ModelTarget):
    """The model, except that a reply's later calls wait while its first runs (the tutorial's
    loop given `parallel`, holding an exclusive call's place before judging its input)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, ModelReplies):
            return observed
        return attrs.evolve(observed, executed=observed.executed[:1])


WRITE = ToolSpec("write", required_keys=("file_path", "content"))

INVALID_WRITE_HOLDS: FreshBug = (
    "an invalid exclusive call holding the schedule",
    HoldsBehindAnInvalidWrite,
    LoopConfig(tools=(READ, WRITE), max_parallel=2),
    (
        SubmitUser("read, write, read"),
        ModelReplies(
            (
                *calls("c1", "read", '{"file_path":"a.txt"}').blocks,
                *calls("c2", "write", '{"file_path":"b.txt"}').blocks,
                *calls("c3", "read", '{"file_path":"c.txt"}').blocks,
            )
        ),
    ),
    "SCHED-1",
)


def test_SCHED_1_a_call_held_behind_an_invalid_exclusive_call_says_it_holds_no_place() -> None:
    """SCHED-1: the words say the exclusive call between is invalid input, ending at the gate
    without a place in the schedule (they said the calls without a result leave room, which
    read as the write holding its place)."""
    assert_found(
        INVALID_WRITE_HOLDS,
        "call c2's input is invalid (invalid input for tool write: missing required "
        "'content'): such a call ends at the gate without running and holds no place",
    )


@pytest.mark.parametrize("earlier", [Pass(), Ask()], ids=["running", "asking"])
def test_HOOK_6_an_input_judged_though_replaced_behind_another_call_is_named_HOOK_6(
    earlier: Pass | Ask,
) -> None:
    """HOOK-6: the refusal of a call behind one still running, or waiting for its approval,
    commits only after that call's result (ORD-3); a probe settling the earlier call (its body
    succeeding, its approval rejected) fetches it, naming the hook in effect (HOOK-3 was named,
    the refusal not yet in the log)."""
    _name, target, _config, _program, rule = FIRST_INPUT_JUDGED
    hooks = tuple(HookSpec(name, "PreToolUse", "read|grep") for name in ("first", "final"))
    behind_a_read = (
        "the first hook's input judged behind a running read",
        target,
        LoopConfig(tools=(READ, GREP), hooks=hooks),
        (
            SubmitUser("read, then find"),
            ModelReplies(
                (
                    *calls("c1", "read", '{"file_path":"a.txt"}').blocks,
                    *calls("c2", "grep", '{"pattern":"x"}').blocks,
                )
            ),
            HookAnswers(Pass()),
            HookAnswers(earlier),
            HookAnswers(Allow("not an object")),
            HookAnswers(Allow(FrozenMap({"pattern": "F"}))),
        ),
        rule,
    )
    assert_found(behind_a_read, "the target refuses the input hook final supplied")
