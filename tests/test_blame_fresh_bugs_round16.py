"""Fresh bugs of session 35, found by the programs and blamed on the rule their author must fix.

Session 35 wrote a loop in C (C11, gcc 12, libc alone, its JSON reader and writer its own,
numbers kept as their text, strings as counted bytes) outside the project, from README.md,
docs/ and SPEC.md, the way the tutorial grows one: declaring nothing first, then one capability
at a time in the order docs/tutorial.md section 5 lists them, `loopspec conform` on seeds 1 and
2 after each. Then one-line bugs, the C kind among them, were planted in copies of it at each
stage, the rule each should be named by written before the run. Planted here in the model and
played (the C loop is not kept: the suite runs no gcc):

- a loop declaring no capability was told that rules it can break need a capability it lacks:
  ADJ-4 "not applicable (needs queued-input)", where a body's contexts are queued with none (an
  empty context delivered was named ADJ-4 on both seeds, the table still reading not
  applicable); STEP-4 "(needs max-tokens)", where a completed reply's reasoning and blank blocks
  are its; SCHED-1 "(needs parallel)", where a call waits for the one running with one slot
  too; RW-3 "(needs rewrite)", where every PreToolUse answer is audited before the reply, a
  rewrite or none; and ABORT-2 "(needs abort)", where a reply finishing cancelled (max-tokens)
  is one; DEC-1 read "checked, situation never generated" with no hook to deny a call, where it
  needs pre-hooks;
- a loop declaring parallel (with pre-hooks too) letting one call past the cap passed both
  seeds, the only program holding a call at the cap needing abort as well; and one declaring
  approval too that let a later call through the gate when an earlier call settled while one
  between them waited for its approval passed both, no program settling a call then: targeted
  programs needing what each declares now show them;
- PreToolUse hooks run for a call with invalid input: named HOOK-4 on seed 1 and EXE-2 on seed
  2 (a later call's arguments held a lone surrogate escape, read as a strict parser's skip);
- a blocked failure keeping the body's error info (code ""): named EXE-4 in words saying the
  body failed without a code; now DEC-3, which says a block drops it;
- the C kind: a JSON writer leaving U+001F unescaped was told to write its debugging output to
  stderr, and a reader with a 4096-byte line buffer was told only that the process ended its
  output; each is now told what to fix. A loop never flushing stdout was told four languages'
  flush, and now C's too. Strings cut at a NUL (a prompt, a body's text) or in a 32-byte buffer
  (a failure's message) passed both seeds, no program drawing either, and a tool outcome refused
  with EXE-4 while idle passed seed 2: targeted programs needing no capability now send them,
  and a text cut at its NUL or to a buffer's size is named so.

Of 54 bugs planted at five stages (no capability; parallel; pre-hooks; approval; post-hooks),
52 were found on both seeds at the end, 49 by the rule expected before the run (four, LOG-2
and PROTO-1, as a broken target's error, exit 2) and 3 by one SPEC.md gives the situation
(TURN-2 for a turn ended with its step open, HOOK-4 for hooks of an invalid call, HOOK-1 for a
decision word no audit takes); the two left pass as the spec allows (a whole time written
`1.7e+12`; a denied call held for a slot, which only an abort shows).
"""

from __future__ import annotations

import json

import attrs
import pytest
from fresh_bugs import CapOneOff, FreshBug, assert_found, planted

from loopspec.model import dispatch, handlers
from loopspec.model.commands import (
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    PostBlock,
    PostPass,
    PostVerdict,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.model.state import (
    ASKING,
    RUNNING,
    WAITING,
    CallSlot,
    Dispatching,
    Idle,
    PreparedResult,
)
from loopspec.properties.conformance.capability_needs import (
    hook_capabilities,
    needed_capabilities,
)
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.process_target import (
    UNFLUSHED,
    _not_json_cause,
    long_line_note,
)
from loopspec.properties.conformance.run import rule_needs
from loopspec.properties.conformance.situation_sweep import SITUATIONS, Situation, sweep_situations
from loopspec.properties.conformance.situations import program_exercises
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.conformance.text_changes import how_text_changed
from loopspec.properties.stateful.strategies import TOOLS

_GUARDED = LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "bash"),))
_BASH = ModelReplies((ToolCallBlock("c1", "bash", '{"command":"ls"}'),))

# A program creating each rule's situation with as few capabilities as it can, and the
# capabilities any one of which the rule table then reads the rule applicable with.
FEW_CAPABILITIES: tuple[tuple[str, LoopConfig, tuple[Command, ...], tuple[str, ...]], ...] = (
    (
        "ADJ-4",
        LoopConfig(tools=TOOLS),
        (SubmitUser(""), _BASH, ToolFinishes("c1", ToolSucceeded("", ("ctx",)))),
        (),
    ),
    (
        "STEP-4",
        LoopConfig(tools=TOOLS),
        (SubmitUser(""), ModelReplies((ReasoningBlock("why"), TextBlock("")))),
        (),
    ),
    (
        "SCHED-1",
        LoopConfig(tools=TOOLS),
        (
            SubmitUser(""),
            ModelReplies(
                (
                    ToolCallBlock("c1", "bash", '{"command":"ls"}'),
                    ToolCallBlock("c2", "bash", '{"command":"pwd"}'),
                )
            ),
        ),
        (),
    ),
    ("DEC-1", _GUARDED, (SubmitUser(""), _BASH, HookAnswers(Deny("no"))), ("pre-hooks",)),
    ("RW-3", _GUARDED, (SubmitUser(""), _BASH, HookAnswers(Pass())), ("pre-hooks",)),
    (
        "ABORT-2",
        LoopConfig(tools=TOOLS),
        (SubmitUser(""), ModelReplies((), "cancelled")),
        ("abort", "max-tokens"),
    ),
)


def _capabilities_needed(config: LoopConfig, program: tuple[Command, ...]) -> set[str]:
    """What a target must declare to be sent `program` from `config`."""
    model = ModelTarget()
    model.reset(config)
    needed = set(hook_capabilities(config))
    for command in program:
        assert model.state is not None
        needed |= set(needed_capabilities(command, idle=isinstance(model.state.phase, Idle)))
        assert model.apply(command).accepted, command
    return needed


@pytest.mark.parametrize(
    ("rule", "config", "program", "needs"),
    FEW_CAPABILITIES,
    ids=[row[0] for row in FEW_CAPABILITIES],
)
def test_ADJ_4_STEP_4_SCHED_1_DEC_1_RW_3_ABORT_2_apply_with_the_capabilities_their_programs_need(
    rule: str, config: LoopConfig, program: tuple[Command, ...], needs: tuple[str, ...]
) -> None:
    """The rule table reads a rule not applicable when the target declares none of the
    capabilities `rule_needs` names: each of these is broken by a loop declaring only what its
    program needs (none for ADJ-4, STEP-4 and SCHED-1), which is one of those."""
    assert program_exercises(rule, config, program, presenting=False)
    assert rule_needs(rule) == needs
    needed = _capabilities_needed(config, program)
    assert not needs or set(needs) & needed, (rule, needs, needed)


@pytest.mark.parametrize("character", ["\x1f", "\x00", "\x0b"])
def test_PROTO_1_an_answer_holding_a_raw_control_character_is_told_to_escape_it(
    character: str,
) -> None:
    """PROTO-1: the C loop's JSON writer escaped `"`, `\\` and some control characters, and
    wrote U+001F (a call's arguments drawn blank to Python alone) as itself. The report said
    the line is no JSON and to write debugging output to stderr; the line was the answer, and
    it now says which character to escape, after which text, and how."""
    line = '{"seq":2,"events":[{"text":"ab' + character + 'cd"}]}\n'
    with pytest.raises(json.JSONDecodeError) as refused:
        json.loads(line)
    said = _not_json_cause(line.encode(), refused.value)
    code = f"{ord(character):04x}"
    assert said.startswith(
        f"a string in it holds U+{code.upper()} as itself, after "
        """'{"seq":2,"events":[{"text":"ab': JSON writes each character """
        f"U+0000..U+001F in a string as an escape, \\u{code} (or \\n, \\t, \\r, \\b, \\f); "
    )
    assert "debugging output" not in said


HOOKS_FOR_INVALID_INPUT: FreshBug = (
    "PreToolUse hooks run for a call with invalid input",
    planted(handlers, "input_problem", lambda _call, _config: None, "every call's hooks run"),
    LoopConfig(tools=TOOLS, hooks=(HookSpec("everything", "PreToolUse", "*"),)),
    (
        SubmitUser(""),
        ModelReplies(
            (
                ToolCallBlock("c1", "read", "{}"),
                ToolCallBlock("c2", "read", '{"file_path":"a\\udc00.txt"}'),
            )
        ),
        HookAnswers(Pass()),
    ),
    "HOOK-4",
)


@pytest.mark.parametrize(
    ("config", "reply", "says"),
    [
        (
            LoopConfig(tools=TOOLS, hooks=(HookSpec("late", "PreToolUse", ".*"),)),
            (ToolCallBlock("c1", "read", '{"file_path":-Infinity}'),),
            "call c1's arguments are JSON without a lossless value",
        ),
        (
            LoopConfig(tools=TOOLS, hooks=(HookSpec("everything", "PreToolUse", "*"),)),
            (
                ToolCallBlock("c1", "read", '{"file_path":1e309}'),
                ToolCallBlock("c2", "grep", '{"pattern":""}'),
            ),
            "the target runs hook everything for call c1, whose arguments are JSON without",
        ),
        (
            LoopConfig(tools=TOOLS, hooks=(HookSpec("everything", "PreToolUse", "*"),)),
            (
                ToolCallBlock("c1", "missing_tool", "[]"),
                ToolCallBlock("c2", "read", '{"file_path":""}'),
            ),
            "the target runs hook everything for call c1, whose input is invalid",
        ),
    ],
    ids=["its only call", "before a valid call", "an unregistered tool's"],
)
def test_HOOK_4_hooks_run_whatever_the_input_are_told_from_a_reader_by_a_probe(
    config: LoopConfig, reply: tuple[ToolCallBlock, ...], says: str
) -> None:
    """HOOK-4: the same loop running its hook for a read whose arguments hold -Infinity or
    1e309 (no object to EXE-2) was named EXE-2, a reader taking the value for a number (5 of
    seeds 30-49 of rounds 13 and 16), and for an unregistered tool's [] EXE-5, a loop judging
    a registered tool's input alone (2 of seeds 30-49 last session); a read made with [] after
    it, no object to any reader, has its hook run too: the loop runs hooks whatever the
    input."""
    answered = (HookAnswers(Pass()),) if len(reply) > 1 else ()
    program: tuple[Command, ...] = (SubmitUser(""), ModelReplies(reply), *answered)
    assert_found(
        (
            "PreToolUse hooks run whatever the input",
            HOOKS_FOR_INVALID_INPUT[1],
            config,
            program,
            "HOOK-4",
        ),
        says,
        "the target runs PreToolUse hooks for a call whatever its input",
        "a reply calling read with [] after it",
    )


def test_HOOK_4_hooks_run_for_an_invalid_call_before_a_lone_surrogate_are_named_so() -> None:
    """HOOK-4: the C loop queued PreToolUse hooks for every call, call c1's input missing the
    key read requires too, so the first answer named c1 where the model's names c2. Seed 1 named
    HOOK-4 (a call with invalid input gets no hook); on seed 2, c2's arguments holding a lone
    surrogate escape, the report named EXE-2 in words saying c2's arguments are a JSON object
    (a strict parser's bug), which says nothing of the hook the target ran for c1."""
    assert_found(
        HOOKS_FOR_INVALID_INPUT,
        "the target runs hook everything for call c1, whose input is invalid (invalid input "
        "for tool read: missing required 'file_path')",
        lacks=("lone surrogate",),
    )


def test_SCHED_1_a_call_past_the_cap_is_found_on_a_loop_declaring_parallel_alone() -> None:
    """SCHED-1: the C loop declaring parallel (then pre-hooks too) let one call more than
    maxParallel run, and passed 200 programs on seeds 1 and 2: the only targeted program that
    holds a call at the cap needs pre-hooks and abort as well. One needing parallel alone now
    holds the third of three safe calls at a cap of two."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(CapOneOff, frozenset({"parallel"}))
    divergence = found.value.divergence
    assert divergence.rule_id == "SCHED-1", divergence.what
    assert "fewer than maxParallel (2 here) to run" in divergence.what


def test_PROTO_1_a_target_dying_on_a_long_line_is_told_its_length_and_a_fixed_buffer() -> None:
    """PROTO-1: the C loop read lines with fgets into a 4096-byte array, so a result's text of
    20,000 characters came in pieces, the first no JSON that ends, and it died. The report said
    the process ended its output, with the command; it now gives the line's length and names
    the fixed buffer, and a short line gets no such note. One that never flushed its stdout is
    told C's fflush beside Perl's, Python's, Java's and Rust's."""
    text = "x" * 20_000
    message = {"type": "command", "seq": 7, "command": {"kind": "SubmitUser", "text": text}}
    size = len(json.dumps(message)) + 1
    assert long_line_note(message) == (
        f" (its line was {size:,} bytes: a loop reading lines into a fixed buffer, C's fgets "
        "into an array, reads it in pieces; read each line whole, C's getline)"
    )
    assert long_line_note({"type": "command", "seq": 7, "command": {"kind": "Crash"}}) == ""
    assert "C: fflush(stdout) after each line" in UNFLUSHED


class PassesTheGateWhileAsking(ModelTarget):
    """The model, except that a result settling while a call waits for its approval starts the
    first call waiting behind it too (reported started): the gate left open past the ask."""

    def apply(self, command: Command) -> Observation:
        before = self.state
        observed = super().apply(command)
        phase = None if before is None else before.phase
        if not isinstance(command, ToolFinishes) or not isinstance(phase, Dispatching):
            return observed
        statuses = [slot.status for slot in phase.slots]
        if ASKING not in statuses:
            return observed
        behind = [s for s in phase.slots[statuses.index(ASKING) :] if s.status == WAITING]
        if not behind:
            return observed
        started = (behind[0].call_id, behind[0].arguments)
        return attrs.evolve(observed, executed=(*observed.executed, started))


def test_SCHED_2_a_call_passing_the_gate_while_an_earlier_one_asks_is_found() -> None:
    """SCHED-2: the C loop declaring parallel, pre-hooks and approval let a later call pass
    the gate when a result settled while an earlier call waited for its approval, and passed
    200 programs on seeds 1 and 2: none settled a call while a later one waited, a third behind
    it. A targeted program needing those three capabilities now does."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(PassesTheGateWhileAsking, frozenset({"pre-hooks", "approval", "parallel"}))
    divergence = found.value.divergence
    assert divergence.rule_id == "SCHED-2", divergence.what
    assert "call c2 waits for its approval answer, and no later call passes the gate" in (
        divergence.what
    )


_PREPARE_RESULT = dispatch.prepare_result


def _keeps_failure_info(
    slot: CallSlot,
    outcome: ToolSucceeded | ToolFailed,
    post: tuple[tuple[HookSpec, PostVerdict], ...],
    aborting: str | None,
) -> PreparedResult:
    """`prepare_result`, except that a blocked failure keeps the body's {name, code}."""
    result = _PREPARE_RESULT(slot, outcome, post, aborting)
    if isinstance(outcome, ToolFailed) and outcome.code is not None and result.error_info is None:
        info = FrozenMap({"name": outcome.error_name, "code": outcome.code})
        return attrs.evolve(result, error_info=info)
    return result


BLOCK_KEEPS_FAILURE_INFO: FreshBug = (
    "a blocked failure keeping the body's error info",
    planted(handlers, "prepare_result", _keeps_failure_info, _keeps_failure_info.__doc__ or ""),
    LoopConfig(tools=TOOLS, hooks=(HookSpec("after-all", "PostToolUse", "*"),)),
    (
        SubmitUser(""),
        ModelReplies((ToolCallBlock("c1", "grep", '{"pattern":""}'),)),
        ToolFinishes("c1", ToolFailed("", "", "ToolError"), (PostBlock(""),)),
    ),
    "DEC-3",
)


@pytest.mark.parametrize(
    "row",
    [
        BLOCK_KEEPS_FAILURE_INFO,
        (
            "a blocked failure keeping the body's error info, its result held",
            BLOCK_KEEPS_FAILURE_INFO[1],
            BLOCK_KEEPS_FAILURE_INFO[2],
            (
                SubmitUser(""),
                ModelReplies(
                    (
                        ToolCallBlock("c1", "read", '{"file_path":""}'),
                        ToolCallBlock("c2", "grep", '{"pattern":""}'),
                    )
                ),
                ToolFinishes("c2", ToolFailed("", "", "ToolError"), (PostBlock(""),)),
                ToolFinishes("c1", ToolSucceeded(""), (PostPass(),)),
            ),
            "DEC-3",
        ),
    ],
    ids=["its own outcome", "held behind an earlier call"],
)
def test_DEC_3_a_blocked_failure_keeping_the_bodys_error_info_is_named_the_block(
    row: FreshBug,
) -> None:
    """DEC-3: the C loop, declaring post-hooks, replaced a blocked failure's content and kept
    the body's {name, code} (code ""). The report named EXE-4 in words saying the body failed
    without a code, which it did not; a block replaces the result whole (DEC-3 now says its
    error info too), and the words say so; also where the result commits once an earlier
    call's does, on another command than its outcome (EXE-4 again on batches 18 and 29 of
    10-29)."""
    assert_found(
        row,
        "the target keeps the failed body's error info, "
        '{"name": "ToolError", "code": ""}, on a result a PostToolUse hook blocked',
        lacks=("failed without a code",),
    )


class RefusesStrayOutcomesWithExe4(ModelTarget):
    """The model, except that a tool outcome outside a batch is refused with EXE-4 (a call not
    running), where the phase is judged first (MODEL-1)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if isinstance(command, ToolFinishes) and observed.refusal_rule == "MODEL-1":
            return attrs.evolve(observed, refusal_rule="EXE-4")
        return observed


def test_MODEL_1_a_stray_tool_outcome_refused_with_exe_4_is_found_declaring_nothing() -> None:
    """MODEL-1: the C loop looked the call up before the phase and refused a tool outcome
    while idle with EXE-4; it was found on seed 1 and passed 200 programs on seed 2, none
    sending an outcome outside a batch. A targeted program needing no capability sends two."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(RefusesStrayOutcomesWithExe4, frozenset())
    divergence = found.value.divergence
    assert divergence.rule_id == "MODEL-1", divergence.what


class CutsTextTheCWay(ModelTarget):
    """The model, except that what the user types is cut at its first U+0000 (a NUL-ended
    `char *`) and a failure's message at 255 characters (`snprintf` into `char msg[256]`)."""

    def apply(self, command: Command) -> Observation:
        match command:
            case SubmitUser():
                command = SubmitUser(command.text.partition("\x00")[0])
            case ToolFinishes(outcome=ToolFailed() as failed):
                command = attrs.evolve(
                    command, outcome=attrs.evolve(failed, message=failed.message[:255])
                )
            case _:
                pass
        return super().apply(command)


def test_TEXT_2_EXE_4_text_cut_at_a_nul_or_a_fixed_buffer_is_found_declaring_nothing() -> None:
    """TEXT-2, EXE-4: the C loop holding the user's text as a NUL-ended string, or a failure's
    message in a 32-byte buffer, passed 200 programs on seeds 1 and 2: no program drew U+0000
    in a text nor a message longer than a few dozen characters. A targeted program needing no
    capability draws both; the first difference is the user's message cut at its NUL."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(CutsTextTheCWay, frozenset())
    divergence = found.value.divergence
    assert divergence.rule_id == "TEXT-2", divergence.what
    assert '"read a", the text cut at its first U+0000, as a NUL-ended string ends' in (
        divergence.what
    )
    cut = how_text_changed("disk error " + "x" * 289, "disk error " + "x" * 244)
    assert cut is not None
    assert "the text cut after 255 of its 300 characters, as a buffer of 256 bytes" in cut


@pytest.mark.parametrize(
    "situation",
    [each for each in SITUATIONS if "parallel" not in each.needs],
    ids=lambda each: each.name,
)
def test_SCHED_1_a_targeted_program_for_a_loop_without_parallel_runs_one_body_at_a_time(
    situation: Situation,
) -> None:
    """SCHED-1: a loop declaring no `parallel` runs one body at a time (the tutorial's does),
    and conform configures it with maxParallel 1; the targeted programs keep their own
    configuration, maxParallel 10 unless they say otherwise. Round 16's program of two reads
    found the tutorial loop holding the second, which the model ran: no such program may
    overlap two bodies."""
    model = ModelTarget()
    model.reset(situation.config)
    for command in situation.program:
        model.apply(command)
        assert model.state is not None
        phase = model.state.phase
        running = isinstance(phase, Dispatching) and sum(
            slot.status == RUNNING for slot in phase.slots
        )
        assert running <= 1, command
