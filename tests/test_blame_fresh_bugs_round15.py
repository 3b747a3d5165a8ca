"""Fresh bugs of session 34, found by the programs and blamed on the rule their author must fix.

Session 34 wrote a loop in Tcl (tclsh 8.6.13, core commands alone, its JSON reader and writer its
own) outside the project, from README.md, docs/ and SPEC.md, declaring every capability
(presentation and history too); it passed 200 programs on seeds 1 and 2 once it wrote a
character past U+FFFF as its two UTF-16 halves (Tcl reads the two escapes into one character,
whose `\\u%04x` has five digits: conform's note said so, and docs/tutorial.md now has a Tcl
entry). Thirty-seven one-line bugs were then planted in copies of it and `loopspec conform` ran
on each with both seeds. Planted here in the model and played (the Tcl loop is not kept: the
suite runs no tclsh):

- a matcher read as a glob (Tcl's `string match`), so `.*` matched no tool and the hook was
  skipped: named HOOK-4 (which hook runs for which call, in order); now HOOK-8, once the pending
  hooks, answered, show that the target never runs it (a loop running hooks out of order runs
  it later, and stays HOOK-4's);
- a PreToolUse pass whose audit records `error` (a hook killed at its timeout, failing open by
  its dialect's default, HOOK-7) read as a deny: passed both seeds, as the programs' audits
  record only an exit-2 deny; a targeted program plays one, and the target's denial is named
  HOOK-2 (a pass never denies), not ORD-3 (a result committed early);
- an abort that answers ABORTED_BEFORE_DISPATCH a call already judged at the gate (its result
  ready, waiting for an earlier call's): for invalid input U+FEFF, named EXE-2 in words about
  JavaScript's `trim`, a reading that still finds the input invalid (the tool requires a key);
  now EXE-5, saying invalid input passes the gate at once and an abort keeps its result;
  on seed 2 the call was denied, named DEC-1 in words saying a denied call passes the gate
  without waiting for a slot, as if the loop had held it there: they now give both readings, and
  the abort's alone when a slot was free for the call;
- arguments blank to Python alone read as Tcl's `string trim` reads them: named right (EXE-2),
  in words that now list Tcl's `string trim` and `string is space` beside Go's and Rust's;
- hooks kept in a Tcl array and run in `array names` order: named HOOK-5 on both seeds, at a
  result's PostToolUse hooks, in words that now say they are audited in configured order;
- a blocked result that kept the body's meta: named right (DEC-3), in words that said only that
  the block reasons replace it; DEC-3 and the words now say a block drops the meta too;
- a rewrite's numbers written back with `format %g` (six significant digits), so the hook's
  integer 98765432109876543210 was recorded as 9.87654e+19: named RW-1 (arguments not the
  effective ones); now RW-2, which says a supplied input is recorded as the value the hook gave,
  every digit kept, naming the number and how it was written;
- a read's offset and limit tested with `string is integer`, which stops at 32 bits, so a limit
  of 4294967296 left the call to the generic card: named right (VIEW-2), in words that said only
  "the card is the presenter's view of the call's arguments"; they now name the number, its
  width and both cards' titles (a loop wrapping it at 32 bits too).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import attrs
import pytest
from fresh_bugs import (
    FreshBug,
    assert_found,
    blamed,
    calls,
    copied,
    names,
    planted,
    renumbered,
    swept,
)

from loopspec.model import dispatch, messages, presenters, rewrite
from loopspec.model.commands import (
    Abort,
    Allow,
    Ask,
    Command,
    Deny,
    HookAnswers,
    HookAudit,
    ModelReplies,
    Pass,
    PostBlock,
    PostPass,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import MATCH_ALL, HookSpec, LoopConfig, ToolSpec
from loopspec.model.draft import Draft
from loopspec.model.events import ApprovalDecided
from loopspec.model.jsonvalue import EMPTY, FrozenMap, JsonValue, parse_arguments
from loopspec.model.messages import ToolCallBlock
from loopspec.model.presenters import CALL_PRESENTERS
from loopspec.model.state import ASKING, READY, WAITING, Dispatching
from loopspec.model.toolargs import ArgumentShapeError
from loopspec.model.views import GenericCallView, ToolCallView
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.stateful.strategies import TOOLS


def _glob_matches(hook: HookSpec, tool_name: str) -> bool:
    """A matcher read as a glob pattern (Tcl's `string match`, Python's fnmatch)."""
    return hook.matcher in MATCH_ALL or fnmatch.fnmatchcase(tool_name, hook.matcher)


GLOB_MATCHER: FreshBug = (
    "a matcher read as a glob",
    planted(HookSpec, "matches", _glob_matches, _glob_matches.__doc__ or ""),
    LoopConfig(
        tools=TOOLS,
        hooks=(HookSpec("late", "PreToolUse", ".*"), HookSpec("final", "PreToolUse", "*")),
        max_parallel=1,
    ),
    (SubmitUser(""), calls("c1", "read", '{"file_path":""}'), HookAnswers(Pass())),
    "HOOK-8",
)


class RunsHooksLastFirst(ModelTarget):
    """The model, except that it runs (and merges) the configured hooks last first."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        return super().reset(attrs.evolve(config, hooks=tuple(reversed(config.hooks))))


HOOKS_OUT_OF_ORDER: FreshBug = (
    "hooks run out of configured order",
    RunsHooksLastFirst,
    GLOB_MATCHER[2],
    GLOB_MATCHER[3],
    "HOOK-4",
)


def test_HOOK_8_a_matcher_read_as_a_glob_skips_the_hook_it_matches() -> None:
    """HOOK-8: the Tcl loop matched with `string match`, where `.*` matches only a name starting
    with a dot, so it skipped hook late for call c1 and ran hook final next. The report named
    HOOK-4 (which hook runs for which call, in order); answered on, the target never runs late,
    which a loop running hooks out of order does."""
    assert_found(
        GLOB_MATCHER,
        'the target skips hook late, whose matcher ".*" matches the whole name of tool read',
        "a matcher is a regular expression over the whole tool name",
    )


BASH = ToolSpec("bash", required_keys=("command",))
WRITE = ToolSpec("write", required_keys=("file_path", "content"))
GUARD = HookSpec("guard", "PreToolUse", "bash|write")


@pytest.mark.parametrize(
    ("config", "program", "says"),
    [
        (
            LoopConfig(
                tools=TOOLS,
                hooks=(HookSpec("everything", "PreToolUse", "*"), GLOB_MATCHER[2].hooks[0]),
                max_parallel=1,
            ),
            (
                SubmitUser(""),
                ModelReplies(
                    (
                        ToolCallBlock("c1", "read", '{"file_path":""}'),
                        ToolCallBlock("c2", "read", '{"file_path":""}'),
                    )
                ),
                HookAnswers(Pass()),
                HookAnswers(Pass()),
            ),
            'the target skips hook late, whose matcher ".*" matches the whole name of tool read '
            "(call c1), and runs hook everything next for call c2",
        ),
        (
            LoopConfig(tools=(BASH,), hooks=(HookSpec("rewriter", "PreToolUse", "bash"), GUARD)),
            (SubmitUser(""), calls("c1", "bash", '{"command":""}'), HookAnswers(Pass())),
            "the target commits the reply without running PreToolUse hook guard for call c1, "
            'whose matcher "bash|write" matches the whole name of tool bash',
        ),
        (
            LoopConfig(tools=(WRITE,), hooks=(GUARD,)),
            (SubmitUser(""), calls("c1", "write", '{"file_path":"\\ud800","content":""}')),
            "the target commits the reply without running PreToolUse hook guard for call c1",
        ),
        (
            LoopConfig(tools=(WRITE,), hooks=(GUARD,)),
            (SubmitUser(""), calls("c1", "write", '{"file_path":"","content":""}')),
            "the target commits the reply without running PreToolUse hook guard for call c1",
        ),
    ],
    ids=[
        "the next call's hook first",
        "the reply committed",
        "a lone surrogate taken",
        "the first hook skipped, its call run",
    ],
)
def test_HOOK_8_a_glob_matcher_skipping_a_hook_for_any_call_is_named_HOOK_8(
    config: LoopConfig, program: tuple[Command, ...], says: str
) -> None:
    """HOOK-8: the Tcl loop's glob matcher showed first as the next call's hook run (HOOK-4 on
    seeds 3, 8 and 9 of 10), as the reply committed with a hook to go (HOOK-4 on seed 4), and
    as a write call whose arguments hold a lone surrogate committed unhooked (EXE-2 on seed 1,
    though the target took the arguments: no INVALID_TOOL_INPUT at the gate), and as the
    session's first hook skipped (RW-3 on batches 10 and 14 of 10-29, a reply committed before
    its hooks answer, though the target started the call's body, which no hook was left for)."""
    assert_found(("a glob matcher", GLOB_MATCHER[1], config, program, "HOOK-8"), says)


@pytest.mark.parametrize(
    "row",
    [
        HOOKS_OUT_OF_ORDER,
        (
            "hooks run out of configured order for a call holding a lone surrogate",
            RunsHooksLastFirst,
            LoopConfig(tools=(BASH,), hooks=(HookSpec("rewriter", "PreToolUse", "bash"), GUARD)),
            (
                SubmitUser(""),
                calls("c1", "bash", '{"command":"rm -rf \\ud800build"}'),
                HookAnswers(Pass()),
            ),
            "HOOK-4",
        ),
    ],
    ids=["one call each", "a lone surrogate"],
)
def test_HOOK_4_hooks_run_out_of_order_are_not_a_matcher_skipping_one(row: FreshBug) -> None:
    """HOOK-4: a loop running hook final before hook late, which it runs next, shows the same
    first difference as one that skips late; the pending hooks answered tell them apart, and
    this one stays HOOK-4's. Nor is it a strict parser skipping a call whose arguments hold a
    lone surrogate escape, which runs none of its hooks (EXE-2 on batch 24 of 10-29), where
    this one runs another of that call's hooks first."""
    assert_found(row, lacks=("the target skips hook", "lone surrogate"))


_FAILED_OPEN = HookAudit(decision="error", duration_ms=60000.0)


class FailsClosedByDefault(ModelTarget):
    """The model, except that a PreToolUse pass whose audit records error (a hook that failed,
    by its dialect's default no decision) denies the call: the audit's word read as the verdict."""

    def apply(self, command: Command) -> Observation:
        if (
            isinstance(command, HookAnswers)
            and isinstance(command.verdict, Pass)
            and command.audit is not None
            and command.audit.decision == "error"
        ):
            command = HookAnswers(Deny(""), command.audit)
        return super().apply(command)


TIMED_OUT_HOOK_DENIES: FreshBug = (
    "a hook failing open read as a deny",
    FailsClosedByDefault,
    LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "bash"),)),
    (SubmitUser(""), calls("c1", "bash", '{"command":"ls"}'), HookAnswers(Pass(), _FAILED_OPEN)),
    "HOOK-2",
)


def test_HOOK_2_a_pass_audited_error_read_as_a_deny_is_found_and_named() -> None:
    """HOOK-2: the Tcl loop denied a call whose hook answered pass with an audit recording error
    (a hook killed at its timeout, which by default gives no decision, HOOK-7). No program drew
    such an audit, and the bug passed both seeds; a targeted program now plays one. The report
    named ORD-3 (the result committed early); it now says a pass never denies."""
    divergence = swept(FailsClosedByDefault)
    assert divergence.rule_id == "HOOK-2", divergence.what
    assert_found(
        TIMED_OUT_HOOK_DENIES,
        "the hook's answer is a pass, whose audit records 'error'",
        "a pass never denies a call (deny > ask > allow > pass): call c1 runs",
    )


GUARDED_WRITES = LoopConfig(
    tools=TOOLS,
    hooks=(HookSpec("guard", "PreToolUse", "write"), HookSpec("asker", "PreToolUse", "grep")),
)
"""A write a hook guards, and a grep another hook may ask about."""
_READ_THEN_WRITE = (
    SubmitUser(""),
    ModelReplies(
        (
            ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),
            ToolCallBlock("c2", "write", '{"file_path":"b.txt","content":"new"}'),
        )
    ),
    HookAnswers(Pass(), _FAILED_OPEN),
)
FAILED_OPEN_LATER: list[FreshBug] = [
    (
        "a hook failing open read as a deny, a later call's approval asked early",
        FailsClosedByDefault,
        GUARDED_WRITES,
        (
            SubmitUser(""),
            ModelReplies(
                (
                    ToolCallBlock("c1", "write", '{"file_path":"b.txt","content":"new"}'),
                    ToolCallBlock("c2", "grep", '{"pattern":"x"}'),
                )
            ),
            HookAnswers(Pass(), _FAILED_OPEN),
            HookAnswers(Ask()),
        ),
        "HOOK-2",
    ),
    (
        "a hook failing open read as a deny, a later call started early",
        FailsClosedByDefault,
        GUARDED_WRITES,
        (
            SubmitUser(""),
            ModelReplies(
                (
                    *_READ_THEN_WRITE[1].blocks,
                    ToolCallBlock("c3", "read", '{"file_path":"c.txt"}'),
                )
            ),
            HookAnswers(Pass(), _FAILED_OPEN),
        ),
        "HOOK-2",
    ),
    (
        "a hook failing open read as a deny, its denial committed later",
        FailsClosedByDefault,
        GUARDED_WRITES,
        (*_READ_THEN_WRITE, ToolFinishes("c1", ToolSucceeded("A"))),
        "HOOK-2",
    ),
    # Seeds 50, 52, 57, 60, 67 and 69 of 50-69: the call the model starts beside an earlier
    # one is denied, its result held behind that one's (it read as SCHED-1, "does not start").
    (
        "a hook failing open read as a deny, its body not started beside an earlier call",
        FailsClosedByDefault,
        LoopConfig(tools=TOOLS, hooks=(HookSpec("read-audit", "PreToolUse", "read"),)),
        (
            SubmitUser(""),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", '{"file_path":""}'),
                    ToolCallBlock("c2", "read", '{"file_path":""}'),
                )
            ),
            HookAnswers(Pass()),
            HookAnswers(Pass(), _FAILED_OPEN),
        ),
        "HOOK-2",
    ),
]


@pytest.mark.parametrize("row", FAILED_OPEN_LATER, ids=names(FAILED_OPEN_LATER))
def test_HOOK_2_a_pass_audited_error_read_as_a_deny_is_named_where_its_denial_shows(
    row: FreshBug,
) -> None:
    """HOOK-2: the denial of a call whose hook passed, its audit recording error, shows after
    that answer: a later call's approval asked or its body started while the call would still
    run (named SCHED-2 and SCHED-1 on 5 of batches 0-19), or the denial committed once the
    calls before it settle (ORD-3 on 5), or its own body not started where the model starts it
    (SCHED-1 on 6 of seeds 50-69). The model's replay of the program gives the call's
    answers; where the target has not committed the denial yet, a probe settling the calls
    before it shows it."""
    assert_found(
        row,
        "PreToolUse hooks pass or allow it, one a pass whose audit records 'error'",
        "where the target denies it, as if the audit's word were the verdict",
    )


class FailsWithACodeOfItsOwn(FailsClosedByDefault):
    """`FailsClosedByDefault`, except that its result for the call carries an error code of its
    own (HOOK_FAILED): an error, but no denial (a deny's result has no code)."""

    def apply(self, command: Command) -> Observation:
        seen = super().apply(command)
        coded = {"code": "HOOK_FAILED", "message": "failed"}
        events = tuple(
            {**e, "data": {**e["data"], "error": coded}} if _a_denial(e) else e for e in seen.events
        )
        return attrs.evolve(seen, events=events)


def _a_denial(event: dict[str, Any]) -> bool:
    """Whether `event` is a tool/result that is an error with no code (a deny's)."""
    if event.get("type") != "tool/result" or isinstance(event["data"].get("error"), dict):
        return False
    return event["data"]["message"]["content"][0].get("isError") is True


@pytest.mark.parametrize("row", FAILED_OPEN_LATER, ids=names(FAILED_OPEN_LATER))
def test_HOOK_7_a_coded_error_for_a_hook_failing_open_is_no_denial(row: FreshBug) -> None:
    """HOOK-7: a loop answering a call whose hook failed open with an error of its own code
    (HOOK_FAILED), then letting a later call on early, was told "where the target denies it":
    any result of the call was read as its denial. Only an error with no code is one; then it
    read as SCHED-2, SCHED-1 or ORD-3, "still without a result" in words where the loop had
    answered the call (session 38's survey). A hook's fault gives no decision by default: the
    call runs, and the loop's error of its own is what the words name, in this command or once
    the calls before it settle."""
    _name, _bug, config, program, _rule = row
    divergence = blamed(FailsWithACodeOfItsOwn, config, program)
    assert divergence.rule_id == "HOOK-7", divergence.what
    assert "denies it" not in divergence.what
    assert "still without a result" not in divergence.what
    assert "where the target ends it with an error of its own" in divergence.what


def _aborts_judged_calls_too(draft: Draft, phase: Dispatching) -> Dispatching:
    """An abort answering ABORTED_BEFORE_DISPATCH every call without a committed result, those
    already judged at the gate (invalid input, a denial) too."""
    slots = list(phase.slots)
    for index, slot in enumerate(slots):
        if slot.status == ASKING:
            draft.add(ApprovalDecided, slot.approval_id or "", "cancelled")
        if slot.status in (WAITING, ASKING, READY):
            slots[index] = attrs.evolve(
                slot, status=READY, result=dispatch._aborted_before_dispatch()
            )
    return attrs.evolve(phase, slots=tuple(slots), gate=len(slots))


class AbortsJudgedCalls(ModelTarget):
    """The model, except that its abort answers calls already judged (their results ready, not
    committed) as unstarted."""

    def apply(self, command: Command) -> Observation:
        if not isinstance(command, Abort):
            return super().apply(command)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(dispatch, "_abort_unstarted", _aborts_judged_calls_too)
            return super().apply(command)


ABORT_ANSWERS_INVALID_INPUT_UNSTARTED: FreshBug = (
    "an abort answering a judged invalid call unstarted",
    AbortsJudgedCalls,
    LoopConfig(
        tools=(
            ToolSpec("read", concurrency_safe=True, required_keys=("file_path",)),
            ToolSpec("list_dir", concurrency_safe=True),
        ),
        max_parallel=2,
    ),
    (
        SubmitUser(""),
        ModelReplies((ToolCallBlock("c1", "list_dir", " "), ToolCallBlock("c2", "read", "\ufeff"))),
        Abort("user"),
        ToolFinishes("c1", ToolSucceeded("")),
    ),
    "EXE-5",
)


def test_EXE_5_an_abort_answering_a_judged_invalid_call_unstarted_is_named_so() -> None:
    """EXE-5: call c2's arguments (U+FEFF) are no JSON, so it ends INVALID_TOOL_INPUT at the
    gate while c1 runs; the Tcl loop's abort answered it ABORTED_BEFORE_DISPATCH. The report
    named EXE-2 in words about JavaScript's trim, which reads U+FEFF as blank: {} still lacks
    the key read requires, so no reading of the arguments gives that result."""
    assert_found(
        ABORT_ANSWERS_INVALID_INPUT_UNSTARTED,
        "a call with invalid input passes the gate without waiting for a free slot",
        "finds call c2 judged, not unstarted, and keeps that result",
        lacks=("JavaScript's trim",),
    )


def _abort_over_a_denial(max_parallel: int) -> FreshBug:
    """Call c2 denied while call c1 runs, then an abort, then c1's body settles."""
    return (
        f"an abort answering a denied call unstarted, max_parallel {max_parallel}",
        AbortsJudgedCalls,
        LoopConfig(
            tools=(ToolSpec("read", concurrency_safe=True, required_keys=("file_path",)),),
            hooks=(HookSpec("late", "PreToolUse", ".*"),),
            max_parallel=max_parallel,
        ),
        (
            SubmitUser(""),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", '{"file_path":""}'),
                    ToolCallBlock("c2", "read", '{"file_path":""}'),
                )
            ),
            HookAnswers(Pass()),
            HookAnswers(Deny("")),
            Abort("user"),
            ToolFinishes("c1", ToolSucceeded("")),
        ),
        "DEC-1",
    )


def test_DEC_1_an_abort_answering_a_denied_call_unstarted_gives_both_readings() -> None:
    """DEC-1: the Tcl loop's abort answered call c2, denied while c1 ran (one slot), as
    ABORTED_BEFORE_DISPATCH. The words said only that a denied call passes the gate without
    waiting for a free slot, as if the loop had held c2 there; its abort overwriting the denial
    shows the same, and the words now say both."""
    assert_found(
        _abort_over_a_denial(1),
        "its denial ready at once, so an abort that lands later finds call c2 denied, not "
        "unstarted, and keeps that result",
        "the target held call c2 at the gate for a free slot, or its abort answers a call "
        "already judged",
    )


def test_DEC_1_an_abort_answering_a_denied_call_with_a_slot_free_names_the_abort() -> None:
    """DEC-1: with two slots call c2 had one free when it was denied, so a gate holding denied
    calls for a slot lets it pass all the same: only the abort answering a judged call explains
    the result, and the words say that alone."""
    assert_found(
        _abort_over_a_denial(2),
        "call c2 had a free slot when it was denied (2 slots, concurrency-safe calls), so the "
        "target's abort answers a call already judged",
        lacks=("held call c2 at the gate",),
    )


def test_EXE_5_an_abort_answering_an_unregistered_tools_feff_call_unstarted_is_EXE_5() -> None:
    """EXE-5: the abort answering calls already judged, on a call of a tool the configuration
    lacks whose arguments are U+FEFF, which Python keeps (invalid input, judged at the gate) and
    JavaScript's trim reads as blank ({}, an unknown tool's call, judged at the gate too): read
    as EXE-2, the arguments parsed otherwise (seed 67 of 50-69), though neither reading leaves
    the call unstarted."""
    config = LoopConfig(
        tools=(ToolSpec("grep", concurrency_safe=True, required_keys=("pattern",)),)
    )
    reply = ModelReplies(
        (
            ToolCallBlock("c1", "grep", '{"pattern":""}'),
            ToolCallBlock("c2", "missing_tool", "\ufeff"),
        )
    )
    program = (SubmitUser(""), reply, Abort("user"), ToolFinishes("c1", ToolSucceeded("")))
    row = (
        "an abort answering a judged call unstarted",
        AbortsJudgedCalls,
        config,
        program,
        "EXE-5",
    )
    assert_found(row, "a call with invalid input passes the gate without waiting for a free slot")


# What Tcl's `string trim` removes when given no characters: Python's str.strip but
# U+001C..U+001F, and U+FEFF, U+180E, U+200B and NUL besides.
TCL_TRIMMED = (
    "\x00\t\n\v\f\r \x85\xa0\u1680\u180e\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def _parsed_the_tcl_way(raw: str) -> JsonValue:
    """Blank as Tcl's `string trim` reads it; text blank to Python alone is no JSON."""
    if not raw.strip(TCL_TRIMMED):
        return EMPTY
    if not raw.strip():
        return raw
    return parse_arguments(raw)


def test_EXE_2_arguments_blank_to_python_alone_name_tcls_trim() -> None:
    """EXE-2: the Tcl loop read blank arguments with `string trim`, which keeps U+001C..U+001F,
    so call c1's arguments were no JSON object to it; the words list Tcl beside Go and Rust."""

    class TrimsTheTclWay(ModelTarget):
        def apply(self, command: Command) -> Observation:
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(messages, "parse_arguments", _parsed_the_tcl_way)
                patch.setattr(rewrite, "parse_arguments", _parsed_the_tcl_way)
                return super().apply(command)

    row: FreshBug = (
        "arguments blank to Python alone read as Tcl trims them",
        TrimsTheTclWay,
        LoopConfig(tools=TOOLS),
        (SubmitUser(""), calls("c1", "read", "\x1c\x1d\x1e\x1f\x85")),
        "EXE-2",
    )
    assert_found(row, "Tcl's string trim and string is space")


_BIG = 98765432109876543210


def _written_with_percent_g(arguments: str) -> str:
    """The arguments with the hook's integer as C's `%g` (Tcl's `format %g`) writes it."""
    return re.sub(str(_BIG), "9.87654e+19", arguments)


class WritesRewritesWithPercentG(ModelTarget):
    """The model, except that a rewrite's numbers are written back with six significant digits
    in the reply, the call's record and what the body runs (the audit keeps the hook's own),
    for a call a hook's input rewrote alone."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        self.rewritten: set[str] = set()
        return super().reset(config)

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        events = copied(observed)
        # A rewrite's calls alone: the model's own arguments are written back as sent.
        self.rewritten |= {
            e["data"]["callId"]
            for e in events
            if e["type"] == "tool/call" and e["data"].get("rewrite")
        }
        for event in events:
            data = event["data"]
            if event["type"] == "tool/call" and data["callId"] in self.rewritten:
                data["arguments"] = _written_with_percent_g(data["arguments"])
            if event["type"] == "assistant/message":
                for block in data["message"]["content"]:
                    if block["type"] == "tool-call" and block["id"] in self.rewritten:
                        block["arguments"] = _written_with_percent_g(block["arguments"])
        executed = tuple(
            (call, _written_with_percent_g(a) if call in self.rewritten else a)
            for call, a in observed.executed
        )
        return attrs.evolve(renumbered(observed, events), executed=executed)


REWRITE_NUMBER_ROUNDED: FreshBug = (
    "a rewrite's integer written with six significant digits",
    WritesRewritesWithPercentG,
    LoopConfig(
        tools=(ToolSpec("bash", required_keys=("command",)),),
        hooks=(HookSpec("final", "PreToolUse", "*"),),
    ),
    (
        SubmitUser(""),
        calls("c1", "bash", '{"command":""}'),
        HookAnswers(Allow(FrozenMap({"command": "", "timeout": _BIG}))),
    ),
    "RW-2",
)


def test_RW_2_a_rewrites_integer_written_with_six_digits_is_named_so() -> None:
    """RW-2: the Tcl loop wrote a rewrite's numbers with `format %g`, so the hook's integer
    98765432109876543210 went into the reply and the call's record as 9.87654e+19 (the hook's
    audit kept it whole). The report named RW-1 (the arguments are not the effective ones),
    where the arguments are the hook's input with one number rounded, which RW-2 speaks of."""
    assert_found(
        REWRITE_NUMBER_ROUNDED,
        "the hook's input with 98765432109876543210 written as 9.87654e+19",
        "an integer with every digit",
    )


POST_HOOKS_OUT_OF_ORDER: FreshBug = (
    "PostToolUse hooks audited out of configured order",
    RunsHooksLastFirst,
    LoopConfig(
        tools=TOOLS,
        hooks=(
            HookSpec("read-after", "PostToolUse", "read"),
            HookSpec("after-all", "PostToolUse", "*"),
        ),
        max_parallel=2,
    ),
    (
        SubmitUser(""),
        calls("c1", "read", '{"file_path":""}'),
        ToolFinishes("c1", ToolSucceeded(""), (PostPass(), PostPass())),
    ),
    "HOOK-5",
)


def test_HOOK_5_post_hooks_audited_out_of_order_say_the_configured_order() -> None:
    """HOOK-5: the Tcl loop kept its hooks in an array, so a result's PostToolUse hooks were
    audited in `array names` order; the words said only "which hook runs for which call, in
    order", and now say a result's hooks are audited in configured order, naming both."""
    assert_found(
        POST_HOOKS_OUT_OF_ORDER,
        "a result's PostToolUse hooks are audited in configured order",
        "the model's hook read-after here, where the target audits hook after-all",
    )


class BlockKeepsMeta(ModelTarget):
    """The model, except that a result a PostToolUse hook blocks keeps the body's meta (its
    own call's alone: a denied call's result committing after it has no body to keep it of)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not (isinstance(command, ToolFinishes) and isinstance(command.outcome, ToolSucceeded)):
            return observed
        events = copied(observed)
        for event in events:
            data = event["data"]
            own = event["type"] == "tool/result" and (
                data["message"]["content"][0].get("toolCallId") == command.call_id
            )
            if own and data.get("error") is None:
                blocked = data["message"]["content"][0]["isError"]
                if blocked and command.outcome.meta is not None:
                    data["meta"] = {"lines": 3}
        return renumbered(observed, events)


BLOCKED_RESULT_KEEPS_META: FreshBug = (
    "a blocked result keeping the body's meta",
    BlockKeepsMeta,
    LoopConfig(tools=TOOLS, hooks=(HookSpec("review", "PostToolUse", "read"),)),
    (
        SubmitUser(""),
        calls("c1", "read", '{"file_path":""}'),
        ToolFinishes(
            "c1",
            ToolSucceeded("secret", meta=FrozenMap({"lines": 3})),
            (PostBlock("output withheld"),),
        ),
    ),
    "DEC-3",
)


def test_DEC_3_a_blocked_result_keeping_the_bodys_meta_is_told_the_block_drops_it() -> None:
    """DEC-3: the Tcl loop's blocked result kept the body's meta (result-meta). Named DEC-3, in
    words that said only that the block reasons replace the result; they now say it carries
    none of the body's meta, as DEC-3 now says."""
    assert_found(
        BLOCKED_RESULT_KEEPS_META,
        "and carries none of the body's meta, where the target's result keeps {\"lines\": 3}",
    )


_READ_CARD = CALL_PRESENTERS["read"]


def _read_with_32_bit_integers(arguments: JsonValue) -> ToolCallView:
    """A read card whose offset and limit must pass Tcl 8.6's `string is integer` (32 bits):
    a wider one leaves the call to the generic card."""
    fields = arguments if isinstance(arguments, FrozenMap) else FrozenMap({})
    numbers = [fields.get(key) for key in ("offset", "limit")]
    if any(isinstance(n, int) and not isinstance(n, bool) and n >= 2**32 for n in numbers):
        raise ArgumentShapeError("not an integer to `string is integer`")
    return _READ_CARD(arguments)


def _read_with_wrapped_integers(arguments: JsonValue) -> ToolCallView:
    """A read card whose offset and limit are held in 32 bits (a C `uint32_t`), wrapping a wider
    one; rawInput keeps the call's own."""
    if not isinstance(arguments, FrozenMap):
        return _READ_CARD(arguments)
    wrapped = FrozenMap(
        {
            key: value % 2**32 if key in {"offset", "limit"} and type(value) is int else value
            for key, value in arguments.items()
        }
    )
    view = _READ_CARD(wrapped)
    assert isinstance(view, GenericCallView)
    return attrs.evolve(view, raw_input=arguments)


def _wide_read_bug(what: str, read: Callable[[JsonValue], ToolCallView], limit: int) -> FreshBug:
    return (
        what,
        planted(
            presenters,
            "CALL_PRESENTERS",
            MappingProxyType({**CALL_PRESENTERS, "read": read}),
            read.__doc__ or "",
        ),
        LoopConfig(tools=(ToolSpec("read"),)),
        (SubmitUser(""), calls("c1", "read", f'{{"file_path":"","limit":{limit}}}')),
        "VIEW-2",
    )


READ_LIMIT_NOT_AN_INTEGER = _wide_read_bug(
    "a read limit past 32 bits read as no integer", _read_with_32_bit_integers, 2**32
)
READ_LIMIT_WRAPPED = _wide_read_bug(
    "a read limit past 32 bits wrapped", _read_with_wrapped_integers, 2**32 + 1
)


def test_VIEW_2_a_read_limit_past_32_bits_is_named_as_the_number_the_card_shows() -> None:
    """VIEW-2: the Tcl loop tested a read's offset and limit with `string is integer`, which
    stops at 32 bits, so call c1's limit 4294967296 left it to the generic card. The words said
    only "the card is the presenter's view of the call's arguments"; they now name the number,
    what the card shows for it, and section 12's row saying such integers count."""
    assert_found(
        READ_LIMIT_NOT_AN_INTEGER,
        "call c1's limit 4294967296 is an integer of 33 bits",
        'the target\'s card is the generic one ("other")',
        'where the model\'s is titled "Read (1 - 4294967296)"',
        "an offset past 2^64 and a limit past 2^32 are integers all the same",
        lacks=("the card is the presenter's view",),
    )


def test_VIEW_2_a_read_limit_past_32_bits_wrapped_names_the_title_it_shows() -> None:
    """VIEW-2: a loop holding the limit in 32 bits wraps 4294967297 to 1 and titles the card
    "Read (1 - 1)": the words name the number and the title shown, not only the title's form."""
    assert_found(
        READ_LIMIT_WRAPPED,
        "call c1's limit 4294967297 is an integer of 33 bits",
        "the target's card is titled \"Read (1 - 1)\", where the model's is titled "
        '"Read (1 - 4294967297)"',
    )
