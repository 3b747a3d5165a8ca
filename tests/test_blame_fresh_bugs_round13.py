"""Fresh bugs of session 32, found by the programs and blamed on the rule their author must fix.

Session 32 wrote a loop in Go (1.19, the standard library's encoding/json alone) outside the
project, from docs/tutorial.md, docs/conform.md, SPEC.md and `loopspec schema`, declaring
parallel, pre-hooks, approval, abort, crash-repair, max-tokens, queued-input and result-meta;
once it passed 200 programs on seeds 1 and 2, thirty-three one-line bugs were planted in copies of
it and `loopspec conform` ran on each with both seeds. Where a bug passed, or the report named
another rule than the one the bug breaks, or its words led away from the bug, the difference
is planted here in the model and the program that showed it is played (the Go loop is not
kept: the suite runs no Go toolchain):

- the loop's first answer to a `Crash` sent before any event was `"events": null` (a Go nil
  slice): the words said to leave out a member with no value, serde's way, where `events` is
  required; they now say an empty list is written `[]`, and how Go writes a nil slice;
- a body's failure with the code `""` recorded without error info (`if r.errCode != ""`, a Go
  string's zero value taken for none): passed every program of both seeds, where no failure
  reported an empty code; the programs now draw one (tests/test_generation_reach.py);
- arguments blank to Python's `str.strip` alone (U+001C..U+001F, which Go's
  `strings.TrimSpace` keeps) of a call to a tool that is not registered, beside a call whose
  input is invalid or after another call's hook: named EXE-5 (hooks run for a call of an
  unregistered tool), which the loop did; now EXE-2, the reading of the blank arguments;
- a hook run for a call missing a required key, where the model runs it for a later call of an
  unregistered tool: named EXE-5 (the target skips the later call's hook); now HOOK-4, naming
  the call with invalid input the target ran it for;
- a hook run for a call of an unregistered tool whose arguments are no object (a loop judging
  only a registered tool's input): named HOOK-4, in words now saying that EXE-5 (1) judges every
  call's input, registered tool or not; now EXE-5, the clause the loop breaks, which its random
  programs named where no hook matched such a call (6 seeds of 10; EXE-2's reading, which no
  probe told apart, on the other 4);
- a merge letting an ask outrank a deny, shown by an abort finding the call unstarted: named
  DEC-1 (a denied call held at the gate), which no log before the abort tells apart; the words
  now say a hook asked too, and what a merge letting the ask win does; where the asking hook's
  input is invalid, HOOK-3 (a denied call's rewrite judged), whose words now name the asking
  hook and say a valid input tells the merge's bug from a kept rewrite;
- a body's contexts queued as it finished, so that one succeeding after an abort (its result
  ABORTED) still had its context delivered next turn: named right (ADJ-4), in words saying that
  messages a turn left queued open the next one, which the loop did; they now name the context,
  its call and that contexts join the queue when the result commits;
- a Go loop decoding commands without `json.Decoder.UseNumber` (a meta's integer past 2^53 read
  as a float64): named right (EXE-4), its note naming JavaScript alone; it names Go's cure too;
- results committed by iterating a Go map (an order that changes each time): the program that
  showed ORD-3 answered otherwise when rerun, which conform reports as a target that must answer
  alike every time; those words now name a Go map's order;
- a denial joining an allowing hook's reason, an audit's missing stderrSummary filled with the
  hook's reason, a cap letting one call more run, and an abort ending only the first of the
  calls not started: named right, but only after 57 to 123 random programs on one seed or both,
  and by no targeted program the loop could take; one targeted program now shows all four.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs
import pytest
from fresh_bugs import (
    GUARDED_BASH,
    AskOutranksDeny,
    CapOneOff,
    FreshBug,
    QueuesContexts,
    assert_found,
    calls,
    copied,
    planted,
)
from mutants import MUTANTS, MutantTarget

from loopspec.model import dispatch, handlers, messages, rewrite
from loopspec.model.commands import (
    Abort,
    Allow,
    Ask,
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    PreVerdict,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.draft import Draft
from loopspec.model.events import ApprovalDecided
from loopspec.model.jsonvalue import EMPTY, JsonValue, parse_arguments
from loopspec.model.messages import ToolCallBlock
from loopspec.model.state import ASKING, DENY, READY, WAITING, Dispatching, HookVote
from loopspec.properties.conformance import process_target
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.run import (
    TargetFactory,
    replay_case,
)
from loopspec.properties.conformance.situation_sweep import sweep_situations
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.conformance.value_notes import number_note

GO_LOOP_CAPABILITIES = frozenset(
    {"parallel", "pre-hooks", "approval", "abort", "crash-repair", "max-tokens"}
    | {"queued-input", "result-meta"}
)
"""What the Go loop declared: no post-hooks, rewrite, presentation or history."""
READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
WRITE = ToolSpec("write", concurrency_safe=False, required_keys=("file_path", "content"))
EVERY_TOOL = HookSpec("late", "PreToolUse", ".*")

# What Go's strings.TrimSpace removes (unicode.IsSpace): Python's str.strip but U+001C..U+001F.
GO_TRIMMED = (
    "\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _reply(*made: tuple[str, str, str]) -> ModelReplies:
    """A completed reply making the calls `made`, each (id, tool, arguments), in order."""
    return ModelReplies(tuple(block for call in made for block in calls(*call).blocks))


def _parsed_the_go_way(raw: str) -> JsonValue:
    """Blank as Go's strings.TrimSpace reads it; text blank to Python alone is no JSON."""
    if not raw.strip(GO_TRIMMED):
        return EMPTY
    if not raw.strip():
        return raw
    return parse_arguments(raw)


def _patched(*patches: tuple[object, str, Any], what: str) -> type[ModelTarget]:
    """The model with each (owner, attribute, wrong) of `patches` in place while it applies a
    command; `what` says the bug."""

    class Patched(ModelTarget):
        def apply(self, command: Command) -> Observation:
            with pytest.MonkeyPatch.context() as patch:
                for owner, attribute, wrong in patches:
                    patch.setattr(owner, attribute, wrong)
                return super().apply(command)

    Patched.__doc__ = what
    return Patched


_real_input_problem = rewrite.input_problem


def _registered_input_only(call: ToolCallBlock, config: LoopConfig) -> str | None:
    """Input judged only for a registered tool (an unregistered one's is never invalid)."""
    return None if config.tool(call.name) is None else _real_input_problem(call, config)


def _no_input_problem(call: ToolCallBlock, config: LoopConfig) -> str | None:
    return None


BLANK_TO_PYTHON_ALONE_UNREGISTERED: FreshBug = (
    "arguments blank to Python alone, of an unregistered tool, beside invalid input",
    _patched(
        (messages, "parse_arguments", _parsed_the_go_way),
        (rewrite, "parse_arguments", _parsed_the_go_way),
        what="The model, except that blank arguments are those Go's strings.TrimSpace "
        "empties: U+001C..U+001F alone are no JSON, so not an object.",
    ),
    LoopConfig(tools=(READ,), hooks=(EVERY_TOOL,), max_parallel=1),
    (SubmitUser(""), _reply(("c1", "read", "{}"), ("c2", "missing_tool", "\x1c\x1d\x1e\x1f\x85"))),
    "EXE-2",
)

BLANK_TO_PYTHON_ALONE_AFTER_A_HOOK: FreshBug = (
    "arguments blank to Python alone, of an unregistered tool, after another call's hook",
    BLANK_TO_PYTHON_ALONE_UNREGISTERED[1],
    BLANK_TO_PYTHON_ALONE_UNREGISTERED[2],
    (
        SubmitUser(""),
        _reply(("c1", "read", '{"file_path":""}'), ("c2", "missing_tool", "\x1c\x1d\x1e\x1f")),
        HookAnswers(Pass()),
    ),
    "EXE-2",
)

HOOKED_INVALID_BEFORE_UNREGISTERED: FreshBug = (
    "a hook run for a call missing a required key, before an unregistered tool's call",
    _patched(
        (handlers, "input_problem", _no_input_problem),
        what="The model, except that PreToolUse hooks run for every call, whatever its input.",
    ),
    LoopConfig(tools=(WRITE,), hooks=(HookSpec("everything", "PreToolUse", "*"),)),
    (
        SubmitUser(""),
        _reply(("c1", "write", '{"file_path":""}'), ("c2", "missing_tool", "{}")),
        HookAnswers(Pass()),
    ),
    "HOOK-4",
)

UNREGISTERED_INPUT_UNJUDGED: FreshBug = (
    "hooks run for an unregistered tool's call whose arguments are no object",
    _patched(
        (handlers, "input_problem", _registered_input_only),
        (rewrite, "input_problem", _registered_input_only),
        what="The model, except that only a registered tool's input is judged (EXE-5 (1)).",
    ),
    LoopConfig(hooks=(EVERY_TOOL,)),
    (SubmitUser(""), calls("c1", "missing_tool", "[]")),
    "EXE-5",
)


def _answers(*verdicts: PreVerdict) -> tuple[HookAnswers, ...]:
    return tuple(HookAnswers(verdict) for verdict in verdicts)


ASK_OVER_DENY_FOUND_BY_AN_ABORT: FreshBug = (
    "an ask outranking a deny, found unstarted by an abort",
    AskOutranksDeny,
    LoopConfig(
        tools=(READ, ToolSpec("grep", concurrency_safe=True, required_keys=("pattern",))),
        hooks=(HookSpec("everything", "PreToolUse", "*"), EVERY_TOOL),
        max_parallel=1,
    ),
    (
        SubmitUser(""),
        _reply(("c1", "read", '{"file_path":""}'), ("c2", "grep", '{"pattern":""}')),
        *_answers(Pass(), Pass(), Deny(""), Ask()),
        Abort("user"),
        ToolFinishes("c1", ToolFailed("")),
    ),
    "DEC-1",
)


@pytest.mark.parametrize(
    "row",
    [BLANK_TO_PYTHON_ALONE_UNREGISTERED, BLANK_TO_PYTHON_ALONE_AFTER_A_HOOK],
    ids=["with the reply", "after c1's hook"],
)
def test_EXE_2_blank_arguments_of_an_unregistered_tool_read_as_go_trims_them(
    row: FreshBug,
) -> None:
    """EXE-2: a Go loop trimming with strings.TrimSpace found call c2's arguments (U+001C..U+001F
    and U+0085) no JSON, so ran no hook for it and committed the reply (with the reply, or once
    c1's hook answered); the model waits for c2's hook. Because c2's tool is not registered,
    the report said PreToolUse hooks run for such a call too (EXE-5), which the loop did; that
    the blank arguments were the difference was hidden by call c1, whose missing key keeps every
    hook from it, or whose hook the loop ran."""
    assert_found(
        row,
        "blank to one of Python's strip and JavaScript's trim alone",
        "Go's strings.TrimSpace keeps U+001C..U+001F",
        lacks=("whose tool is not registered too",),
    )


def test_HOOK_4_a_hook_run_for_invalid_input_before_an_unregistered_tools_call() -> None:
    """HOOK-4: the loop ran the hook for call c1, missing the key content, where the model runs
    it for call c2 of a tool that is not registered; the report read the model's hook as one the
    target skipped for c2's tool (EXE-5). It now names the call with invalid input the target
    ran the hook for."""
    assert_found(
        HOOKED_INVALID_BEFORE_UNREGISTERED,
        "the target runs hook everything for call c1, whose input is invalid",
        "missing required 'content'",
        lacks=("is not registered",),
    )


# Random programs' first failure (seeds 5, 7, 9): a grep call whose arguments only JavaScript's
# trim calls blank, hooked, read as EXE-2's blank; as {} it lacks grep's key all the same.
HOOKED_GREP = LoopConfig(
    tools=(ToolSpec("grep", concurrency_safe=True, required_keys=("pattern",)), READ),
    hooks=(HookSpec("final", "PreToolUse", "*"),),
)


@pytest.mark.parametrize(
    ("program", "says"),
    [
        ((SubmitUser(""), calls("c1", "grep", "\ufeff")), "call c1's input is invalid"),
        (
            (
                SubmitUser(""),
                _reply(("c1", "grep", "\ufeff"), ("c2", "read", '{"file_path":""}')),
                HookAnswers(Pass()),
            ),
            "the target runs hook final for call c1, whose input is invalid",
        ),
    ],
    ids=["its only call", "before a valid call"],
)
def test_HOOK_4_a_hook_run_for_arguments_blank_to_javascript_alone_that_no_reading_makes_valid(
    program: tuple[Command, ...], says: str
) -> None:
    """HOOK-4: arguments only JavaScript's trim calls blank are {} to such a loop, which a tool
    requiring a key refuses too: the target's hook for the call is one no call with invalid
    input gets, not a reading of blank (EXE-2 was named)."""
    assert_found(
        (
            "a hook run for a grep call whose arguments are blank to JavaScript alone",
            HOOKED_INVALID_BEFORE_UNREGISTERED[1],
            HOOKED_GREP,
            program,
            "HOOK-4",
        ),
        says,
    )


@pytest.mark.parametrize(
    "row",
    [
        UNREGISTERED_INPUT_UNJUDGED,
        (
            "hooks run for an unregistered tool's invalid call before a valid call's",
            UNREGISTERED_INPUT_UNJUDGED[1],
            LoopConfig(tools=(READ,), hooks=(EVERY_TOOL,)),
            (
                SubmitUser(""),
                _reply(("c1", "missing_tool", "[]"), ("c2", "read", '{"file_path":""}')),
                HookAnswers(Pass()),
            ),
            "EXE-5",
        ),
        (
            "hooks run for an unregistered tool's invalid call after a registered tool's",
            UNREGISTERED_INPUT_UNJUDGED[1],
            LoopConfig(tools=(READ,), hooks=(EVERY_TOOL,)),
            (
                SubmitUser(""),
                _reply(("c1", "read", '{"limit":-Infinity}'), ("c2", "missing_tool", "[]")),
            ),
            "EXE-5",
        ),
    ],
    ids=["its only call", "before a valid call", "after a registered tool's invalid call"],
)
def test_EXE_5_hooks_for_an_unregistered_tools_invalid_input_name_EXE_5(row: FreshBug) -> None:
    """EXE-5: a loop judging only a registered tool's input ran the hook for a call of an
    unregistered tool whose arguments, [], are no object; the words now say that EXE-5 (1)
    judges every call's input, where they named only the invalid input. The rule is EXE-5, the
    clause the loop breaks ("no hook sees the call, also when the tool is not registered"),
    which its random programs name where no hook matches the call; it was HOOK-4, and was
    still where a valid call's hook came next (seed 8 of 10, the hook run for the wrong call),
    or where a registered tool's invalid call came first (batch 16: its hook, which the loop
    does not run, was the one named)."""
    assert_found(
        row,
        "though its tool missing_tool is not registered: EXE-5 (1) judges the input of every "
        "call, registered tool or not",
    )


def _negative_zero_read_as_zero(raw: str) -> JsonValue:
    """A reader keeping no -0.0 apart from 0 (as json.loads and JSON.parse do)."""
    return parse_arguments(raw.replace("-0.0", "0"))


NEGATIVE_ZERO_READ = _patched(
    (messages, "parse_arguments", _negative_zero_read_as_zero),
    (rewrite, "parse_arguments", _negative_zero_read_as_zero),
    what="The model, except that arguments holding -0.0 are read as an object (as 0).",
)


JAVASCRIPT_TRIM = functools.partial(
    MutantTarget, next(mutant for mutant in MUTANTS if mutant.name == "javascript-trim")
)


READINGS_OF_AN_UNREGISTERED_CALL = [
    (UNREGISTERED_INPUT_UNJUDGED[1], '{"timeout":-0.0}', "EXE-5"),
    (NEGATIVE_ZERO_READ, '{"timeout":-0.0}', "EXE-2"),
    (UNREGISTERED_INPUT_UNJUDGED[1], "\ufeff", "EXE-5"),
    (JAVASCRIPT_TRIM, "\ufeff", "EXE-2"),
]
READING_IDS = ["input left unjudged", "a lossy reader", "U+FEFF unjudged", "U+FEFF trimmed"]


@pytest.mark.parametrize(
    ("bug", "arguments", "rule"), READINGS_OF_AN_UNREGISTERED_CALL, ids=READING_IDS
)
def test_EXE_5_EXE_2_a_call_running_beside_does_not_keep_a_probe_from_telling_the_readings(
    bug: TargetFactory, arguments: str, rule: str
) -> None:
    """EXE-5: an unregistered tool's call whose arguments only a lossy reader takes for an
    object (or JavaScript's trim for blank), answered UNKNOWN_TOOL while another call runs,
    read as EXE-2 (seeds 0, 2 and 3 of the round's batches saved such a case EXE-2, and batch 8
    of 0-19 was so blamed first), since a reply calling the tool with [] could not be sent then
    to tell. The probe now settles the running call first: it names the loop's bug, EXE-5,
    where a loop reading -0.0 as an object, or U+FEFF as blank, stays EXE-2."""
    config = LoopConfig(tools=(ToolSpec("grep", required_keys=("pattern",)),), max_parallel=2)
    program = (
        SubmitUser(""),
        _reply(("c1", "missing_tool", arguments), ("c2", "grep", '{"pattern":""}')),
    )
    first = replay_case(bug, config, list(program)).divergence
    assert first is not None
    assert first.rule_id == rule, first.what


@pytest.mark.parametrize(
    ("bug", "arguments", "rule"), READINGS_OF_AN_UNREGISTERED_CALL, ids=READING_IDS
)
def test_EXE_5_EXE_2_a_hook_run_for_an_unregistered_tools_call_is_told_by_a_probe(
    bug: TargetFactory, arguments: str, rule: str
) -> None:
    """EXE-5: a loop judging no unregistered tool's input ran hook late for call c1, whose
    arguments hold -0.0 (or are U+FEFF), where the model runs it for call c2: the report named
    EXE-2, a reader taking -0.0 for a number, whose loop does the same (batch 18 of 0-19). Its
    pending hooks answered, a reply calling the tool with [] after it has its hooks run: the
    loop judges no such input (EXE-5); a lossy or trimming reader answers [] INVALID_TOOL_INPUT
    and stays EXE-2."""
    program = (
        SubmitUser(""),
        _reply(("c1", "missing_tool", arguments), ("c2", "missing_tool", "{}")),
        HookAnswers(Pass()),
    )
    first = replay_case(bug, LoopConfig(hooks=(EVERY_TOOL,)), list(program)).divergence
    assert first is not None
    assert first.rule_id == rule, first.what
    if rule == "EXE-5":
        assert "a reply calling missing_tool with [] after it, sent to tell, had its hooks run" in (
            first.what
        )


def test_DEC_1_an_abort_finding_a_call_a_hook_denied_and_another_asked_about() -> None:
    """DEC-1: a merge letting c2's ask outrank its deny left c2 waiting for a free slot, to ask
    for approval, where the model denies it at the gate; the abort found it unstarted. A denied
    call held at the gate reads the same until then, so the rule stays DEC-1, and the words now
    say a hook asked too, and what a merge letting the ask win does (HOOK-2)."""
    assert_found(
        ASK_OVER_DENY_FOUND_BY_AN_ABORT,
        "a denied call passes the gate without waiting for a free slot",
        "a hook asked about it too: a loop whose merge lets the ask win (HOOK-2 says deny > ask",
    )


_real_resolve_call = rewrite.resolve_call


def _judged_beside_a_deny(
    call: ToolCallBlock, votes: tuple[HookVote, ...], config: LoopConfig
) -> rewrite.Resolution:
    """A denied call refused for the input its other hooks supplied, where that is refused."""
    resolved = _real_resolve_call(call, votes, config)
    if resolved.decision != DENY:
        return resolved
    others = tuple(vote for vote in votes if not isinstance(vote.verdict, Deny))
    kept = _real_resolve_call(call, others, config)
    return kept if kept.decision == DENY and kept.reason != resolved.reason else resolved


JUDGES_BESIDE_A_DENY = planted(
    rewrite,
    "resolve_call",
    _judged_beside_a_deny,
    "The model, except that an input other hooks supplied is judged beside a deny (HOOK-3).",
)


@pytest.mark.parametrize(
    ("bug", "rule", "says"),
    [
        (
            AskOutranksDeny,
            "HOOK-2",
            "Hook rewriter, whose input the target refuses, asked: the target's merge lets the "
            "ask outrank the deny, as the same call sent after it to tell shows",
        ),
        (
            JUDGES_BESIDE_A_DENY,
            "HOOK-3",
            "the target keeps a denied call's rewrite and judges it (the same call sent after it "
            "to tell, the same hooks answering alike but the asking one supplying no input, was "
            "denied",
        ),
    ],
    ids=["an ask outranking the deny", "a denied call's rewrite judged"],
)
def test_HOOK_3_HOOK_2_an_asking_hooks_input_refused_beside_a_deny_is_told_by_a_probe(
    bug: type[ModelTarget], rule: str, says: str
) -> None:
    """HOOK-2, HOOK-3: a merge letting an ask outrank a deny judged hook rewriter's input, given
    with its ask, and refused it, where hook guard's deny discards it (batches 4, 5, 13 and 19
    of 0-19 ended so); a loop keeping a denied call's rewrite and judging it does the same.
    The report named HOOK-3 for both, saying a valid input would tell; a probe now sends the
    same call again, the asking hook supplying no input: the first loop asks the user (HOOK-2,
    the rule it breaks), the second denies the call (HOOK-3)."""
    assert_found(
        (
            "an ask's invalid input judged beside a deny",
            bug,
            GUARDED_BASH,
            (
                SubmitUser(""),
                calls("c1", "bash", '{"command":""}'),
                *_answers(Deny(""), Ask(updated_input={})),
            ),
            rule,
        ),
        says,
    )


def test_HOOK_2_an_ask_outranking_a_deny_applies_an_earlier_hooks_input_behind_a_running_call() -> (
    None
):
    """HOOK-2: a merge letting an ask outrank a deny applied the asking hook's input to call c2
    and asked the user about it, while call c1 ran; the input is an earlier hook's than the
    last allowing one's, so the report named HOOK-3 (a rewrite other than the last won: batch 4
    of 0-19). A denied call keeps the model's arguments whatever hook's input is applied, and
    the target asked about it: the merge is the bug."""
    rewritten = {"file_path": "safe.txt", "content": "new"}
    assert_found(
        (
            "an ask outranking a deny, its input applied behind a running call",
            AskOutranksDeny,
            LoopConfig(
                tools=(ToolSpec("grep", concurrency_safe=True, required_keys=("pattern",)), WRITE),
                hooks=(
                    EVERY_TOOL,
                    HookSpec("everything", "PreToolUse", "*"),
                    HookSpec("final", "PreToolUse", "*"),
                ),
                max_parallel=1,
            ),
            (
                SubmitUser(""),
                _reply(
                    ("c1", "grep", '{"pattern":""}'),
                    ("c2", "write", '{"file_path":"","content":""}'),
                ),
                *_answers(Pass(), Pass(), Pass(), Deny(""), Ask(updated_input=rewritten)),
                *_answers(Allow(updated_input=rewritten)),
            ),
            "HOOK-2",
        ),
        "but hook late denied call c2",
        "once the calls before call c2 finished, the target asked the user about it",
    )


@pytest.mark.parametrize(
    ("member", "says"),
    [
        ("events", "an empty list is written [], never null (Go's encoding/json"),
        ("executed", "an empty list is written [], never null (Go's encoding/json"),
        ("presented", "a member with no value is left out, not written null (Rust's serde"),
    ],
)
def test_PROTO_1_a_list_written_null_is_told_whether_to_be_empty_or_left_out(
    member: str, says: str
) -> None:
    """PROTO-1: the Go loop's first answer, to a Crash sent before any event, carried
    "events": null, as encoding/json writes a nil slice. The report said a member with no
    value is left out (serde's skip_serializing_if), which for a required member is no answer
    either; for a required list it now says to write [], and how Go makes one."""
    answer: dict[str, object] = {"type": "observed", "seq": 0, "accepted": True,
                                 "events": [], "commits": [], "executed": []}  # fmt: skip
    answer[member] = None
    wrong = process_target._most_specific_error(answer)
    assert says in process_target._null_hint(wrong)


def _aborts_the_first_unstarted_call(draft: Draft, phase: Dispatching) -> Dispatching:
    """An abort that ends the first call not started and forgets the others (a `break` too
    many in the loop marking them)."""
    slots = list(phase.slots)
    for index in range(phase.gate, len(slots)):
        slot = slots[index]
        if slot.status == ASKING:
            draft.add(ApprovalDecided, slot.approval_id or "", "cancelled")
        if slot.status in (WAITING, ASKING):
            aborted = dispatch._aborted_before_dispatch()
            slots[index] = attrs.evolve(slot, status=READY, result=aborted)
            break
    return attrs.evolve(phase, slots=tuple(slots), gate=len(slots))


def _every_hooks_reason(votes: tuple[HookVote, ...], rank: int) -> str | None:
    """Every hook's reason joined, whatever its hook decided (an allow's too)."""
    texts = [text for vote in votes if (text := rewrite.verdict_reason(vote.verdict))]
    return "; ".join(texts) if texts else None


class WritesTheReasonAsStderr(ModelTarget):
    """The model, except that a hook's reason is its audit's stderrSummary also when the answer
    comes with an audit that has none."""

    def apply(self, command: Command) -> Observation:
        if isinstance(command, HookAnswers) and command.audit is not None:
            reason = rewrite.verdict_reason(command.verdict)
            if command.audit.stderr_summary is None and reason is not None:
                audit = attrs.evolve(command.audit, stderr_summary=reason)
                command = attrs.evolve(command, audit=audit)
        return super().apply(command)


@pytest.mark.parametrize(
    ("target", "rule"),
    [
        (CapOneOff, "SCHED-1"),
        (
            planted(
                dispatch,
                "_abort_unstarted",
                _aborts_the_first_unstarted_call,
                _aborts_the_first_unstarted_call.__doc__ or "",
            ),
            "ABORT-1",
        ),
        (
            planted(rewrite, "_reasons", _every_hooks_reason, "The model, joining every reason."),
            "DEC-1",
        ),
        (WritesTheReasonAsStderr, "TEXT-2"),
    ],
    ids=[
        "a cap letting one call more run",
        "an abort ending only the first call not started",
        "a denial joining an allowing hook's reason",
        "an audit's missing stderrSummary filled with the reason",
    ],
)
def test_SCHED_1_ABORT_1_DEC_1_TEXT_2_round_13s_late_bugs_are_found_by_targeted_programs(
    target: type[ModelTarget], rule: str
) -> None:
    """SCHED-1, ABORT-1, DEC-1, TEXT-2: four of the Go loop's bugs were found only after 57 to
    123 random programs on one seed or both, and no targeted program the Go loop could take
    showed them (the one giving an audit without stderrSummary needs post-hooks); one targeted
    program now makes all four situations: a call denied beside an allowing hook's reason, whose
    answer comes with such an audit, two calls at a cap of 2, and two waiting for a slot when an
    abort lands."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(target, GO_LOOP_CAPABILITIES)
    divergence = found.value.divergence
    assert divergence.rule_id == rule, divergence.what


class QueuesContextsAsBodiesFinish(QueuesContexts):
    """The model, except that a body's contexts are queued when it finishes, also when its
    result is the abort's (a success landing after an abort), and so delivered after the next
    step/start, the next turn's first."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not observed.accepted:
            return observed
        events = copied(observed)
        aborted = any(e["data"].get("error", {}).get("code") == "ABORTED" for e in events)
        if aborted and isinstance(command, ToolFinishes):
            outcome = command.outcome
            self.queued += outcome.contexts if isinstance(outcome, ToolSucceeded) else ()
        return self.delivered(observed, events)


ABORTED_SUCCESS_CONTEXT_QUEUED: FreshBug = (
    "an aborted success's context queued as its body finished",
    QueuesContextsAsBodiesFinish,
    LoopConfig(tools=(READ,), max_parallel=1),
    (
        SubmitUser(""),
        calls("c1", "read", '{"file_path":""}'),
        Abort("user"),
        ToolFinishes("c1", ToolSucceeded("", ("d",))),
        SubmitUser(""),
    ),
    "ADJ-4",
)


def test_ADJ_4_a_context_of_a_success_the_abort_made_aborted_is_named_so() -> None:
    """ADJ-4: the Go loop queued a body's contexts as the body finished, so a body succeeding
    after an abort, whose result is ABORTED, still had its context delivered in the next turn.
    The words said that messages a turn left queued open the next turn, which the loop did;
    they now name the context, its call and that contexts join the queue when the result
    commits."""
    assert_found(
        ABORTED_SUCCESS_CONTEXT_QUEUED,
        'the target delivers "d", a context that call c1\'s body gave when it settled after the '
        "abort",
        lacks=("those the last turn left queued",),
    )


def test_EXE_4_an_integer_a_go_loop_read_as_a_float64_is_told_how_to_keep_it() -> None:
    """EXE-4: the Go loop decoding without UseNumber read a result meta's integer past 2^53 into
    a float64 and wrote it back with zeros; the note named JavaScript's JSON.parse alone, and now
    Go's encoding/json and its cure too."""
    note = number_note([("events[0].data.meta.bytes", 98765432109876543210, 98765432109876540000)])
    assert note is not None
    assert "and Go's encoding/json into an interface{} (a float64)" in note
    assert "Go: json.Decoder's UseNumber" in note
