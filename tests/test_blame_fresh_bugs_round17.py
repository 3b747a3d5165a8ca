"""Fresh bugs of session 36, found by the programs and blamed on the rule their author must fix.

Session 36 wrote a loop in bash and jq 1.6 (a bash loop passing each message to one jq
coprocess that holds the session, `jq -r -R -n --unbuffered`, its state one JSON value)
outside the project, from README.md, docs/ and SPEC.md, the way the tutorial grows one:
declaring nothing first, then parallel, pre-hooks, rewrite, approval, post-hooks, abort,
max-tokens with queued-input, crash-repair with result-meta, and history, `loopspec conform`
on seeds 1 and 2 after each (all CONFORMANT at the end). Its own bugs on the way: jq 1.6 refuses
a lone surrogate escape, which EXE-2 reads as valid JSON; it reads NaN, Infinity and 1e400 as
numbers (an infinity as the largest double) and -0.0 as -0; it reads every integer as a double
(an integer past 2^53 in a hook's input or a result's meta came back with zeros: RW-2, EXE-4,
the note naming JavaScript and Go, and now jq); a jq filter's argument is evaluated against
the input of the call (`$s | safe(.name)` reads `.name` of `$s`), so a matcher that never
matched made the loop commit every reply at once, told RW-3 without a word of which hook was
due. Then 50 one-line bugs were planted in copies of the finished loop, the rule each should
be named by written before the run. Planted here in the model and played (the bash loop is not
kept; the suite runs one bash for the process tests alone):

- a matcher test that never matches (the loop runs no PreToolUse hook): RW-3, whose words now
  name the hook that was due, its matcher and the call it matches;
- arguments holding -0.0 (or 1e400, NaN) read as an object by jq, so a PreToolUse hook runs
  for the call: named HOOK-4 ("call c1's input is invalid: the input must be a JSON object"),
  where the reply waits for it and where its hook answers before a valid call's, now EXE-2
  with the words of a lossy number, as a result for such a call already was;
- jq run without --unbuffered in a bash coprocess: told only that no answer came within 10 s,
  and to wait longer (`--answer-timeout`); every process of the loop then waits to read, none
  of them loopspec's pipe (`_reads_its_input` looks at fd 0 alone), and the report now says the
  answer sits in a coprocess's buffer and how jq, sed, grep, awk and python3 flush;
- the answer printed with `printf "$answer\\n"` (its backslashes read as escapes, a `\\"` left
  a bare quote): told to write debugging output to stderr; now that a quote ends a string its
  text goes on after, and what to print with; `echo -e "$answer"` (a `\\n` turned into a line
  break) got the control-character words, which now say the same;
- `read` without -r (the message's `\\"` read as `"`, jq dying on it): told only that the
  output ended; now that its stderr quotes the message without its backslashes;
- a hook/result's durationMs written null where the answer had no audit: told that a member
  with no value is left out, where a required one must have a value; now told that;
- a blocked success after an abort keeping its ABORTED error info: named EXE-4 on seed 2, in
  words saying the body failed without a code; now DEC-3, as a blocked failure keeping its
  own error info was since round 16.

Of the 50 bugs (the shell's own: read without -r, jq without --unbuffered, echo -e and printf
"$answer" printing the answer, big integers tagged too late; jq's: a lossy number let through,
blank read as Oniguruma's \\s, a matcher without $ or without the i flag; and the loop's
rules), 49 were found on both seeds; 40 by the rule written before the run on both, 2 (the
lossy hook, HOOK-4, and the blocked ABORTED info, EXE-4) on one seed and now on both, and 7
by a rule SPEC.md gives the situation the shrunk program shows: RW-1 for rewritten arguments
holding jq's tag, EXE-4 for a meta integer read as a double (the same bug meeting meta
first), EXE-5 for a required key given null, DEC-3 for contexts queued at the body's end
(a blocked result's then delivered), DEC-1 and DEC-2 for the words they state, DEC-1 for an
invalid call held for a slot (a denied one held too). The one missed, an infinity bound of
1e400 where 1e309 is infinite already, passed both seeds: the programs draw 1e400 alone.
"""

from __future__ import annotations

import json
import platform
import subprocess
import time
from collections.abc import Callable

import attrs
import pytest
from fresh_bugs import FreshBug, assert_found, planted

from loopspec.model import dispatch, handlers
from loopspec.model.commands import (
    Abort,
    HookAnswers,
    ModelReplies,
    Pass,
    PostBlock,
    PostVerdict,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import ToolCallBlock
from loopspec.model.rewrite import input_problem
from loopspec.model.state import CallSlot, PreparedResult
from loopspec.properties.conformance.process_target import (
    _every_process_reads,
    _most_specific_error,
    _not_json_cause,
    _null_hint,
    _reads_its_input,
    _waiting_calls,
    backslashes_lost_note,
)
from loopspec.properties.conformance.value_notes import number_note
from loopspec.properties.stateful.strategies import TOOLS

MATCHER_NEVER_MATCHES: FreshBug = (
    "a matcher test that never matches",
    planted(LoopConfig, "hooks_for", lambda _config, _point, _name: (), "no hook ever runs"),
    LoopConfig(tools=TOOLS, hooks=(HookSpec("late", "PreToolUse", "read"),)),
    (SubmitUser(""), ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),))),
    "RW-3",
)


def test_RW_3_a_reply_committed_with_no_hook_run_names_the_hook_that_was_due() -> None:
    """RW-3: the jq loop's matcher test read `.matcher` of the tool name and never matched, so
    it committed every reply at once. The report said the reply waits for the hooks its calls
    match, not which one: it now names the hook, its matcher and the call it matches. (Its
    matcher `.*` now reads as one a glob reader skips, HOOK-8, since round 15's fix; a plain
    name, which a glob matches too, is RW-3's.)"""
    assert_found(
        MATCHER_NEVER_MATCHES,
        'here hook late, matcher "read", matches call c1\'s tool read: HOOK-8 says how a '
        "matcher matches",
    )


def _lossy_read_as_numbers(call: ToolCallBlock, config: LoopConfig) -> str | None:
    """`input_problem`, except that arguments json.loads reads as an object (-0.0, 1e400 and
    NaN taken as numbers, as jq 1.6 takes them) are an object."""
    try:
        parsed = json.loads(call.arguments)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and all(key in parsed for key in _required(config, call.name)):
        return None
    return input_problem(call, config)


def _required(config: LoopConfig, name: str) -> tuple[str, ...]:
    tool = config.tool(name)
    return () if tool is None else tool.required_keys


LOSSY_ARGUMENTS_HOOKED: FreshBug = (
    "arguments holding -0.0 read as an object, a hook run for them",
    planted(handlers, "input_problem", _lossy_read_as_numbers, "-0.0 read as a number"),
    LoopConfig(tools=TOOLS, hooks=(HookSpec("rewriter", "PreToolUse", "bash"),)),
    (
        SubmitUser(""),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command":"","timeout":-0.0}'),)),
    ),
    "EXE-2",
)


def test_EXE_2_a_hook_run_for_arguments_without_a_lossless_value_is_named_exe_2() -> None:
    """EXE-2: the jq loop's check for lossy numbers missed -0.0, so it ran a PreToolUse hook
    for the call where the model ends it INVALID_TOOL_INPUT. The report named HOOK-4, saying
    the input is invalid as if any reader saw that; it names EXE-2 now, as it did for such a
    call's result, with the words of a lossy number."""
    assert_found(
        LOSSY_ARGUMENTS_HOOKED,
        "call c1's arguments are JSON without a lossless value",
        lacks=("HOOK-4",),
    )


def test_PROTO_1_an_integer_jq_read_as_a_double_is_said_so() -> None:
    """PROTO-1: jq 1.6 reads every number as a double; an integer past 2^53 in a hook's input
    came back with zeros, and the note named JavaScript and Go alone."""
    note = number_note(
        [("events[1].data.updatedInput.timeout", 98765432109876543210, 98765432109876540000)]
    )
    assert note is not None
    assert "and jq 1.6 with any number" in note
    assert "jq: 1.7 or later" in note


def test_PROTO_1_an_answer_whose_escapes_were_read_by_printf_is_told_so() -> None:
    """PROTO-1: `printf "$answer\\n"` read the answer's `\\"` as an escape, leaving a bare
    quote inside a call's arguments. The report said stdout carries only the protocol's
    messages (debugging output); the line was the answer, and it now says so and how to print
    it. A line holding a control character (`echo -e` turning a `\\n` back) is told the same."""
    line = '{"type":"observed","seq":7,"events":[{"data":{"arguments":"{"file_path":"a"}"}}]}'
    with pytest.raises(json.JSONDecodeError) as refused:
        json.loads(line)
    said = _not_json_cause(line.encode(), refused.value)
    assert said.startswith("a string in it ends at a quote its text goes on after, after ")
    assert """printf '%s\\n' "$answer\"""" in said
    assert "debugging output" not in said
    broken = '{"type":"observed","seq":7,"events":[{"text":"a\nb"}]}'
    with pytest.raises(json.JSONDecodeError) as refused:
        json.loads(broken)
    assert 'bash: echo -e "$answer"' in _not_json_cause(broken.encode(), refused.value)


def test_PROTO_1_a_message_read_without_its_backslashes_is_named() -> None:
    """PROTO-1: bash's `read` without -r took the message's backslashes away, and jq died on
    the line it got, quoting it on stderr. The report said the output ended; it now says the
    stderr quotes the message without its backslashes, and names read -r. A stderr quoting the
    message as sent gets no such note."""
    message = {
        "type": "command",
        "seq": 10,
        "command": {
            "kind": "ModelReplies",
            "blocks": [{"type": "tool-call", "id": "c1", "name": "read", "arguments": '{"a":""}'}],
            "finish": "completed",
        },
    }
    sent = json.dumps(message)
    read = sent.replace("\\", "")
    assert "IFS= read -r line" in backslashes_lost_note(message, f"jq: error: '{read}'")
    assert backslashes_lost_note(message, f"jq: error: '{sent}'") == ""


def _settled(
    popen: subprocess.Popen[bytes], check: Callable[[subprocess.Popen[bytes]], bool]
) -> bool:
    """Whether `check(popen)` holds within two seconds (the shell starts its coprocess)."""
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        if check(popen):
            return True
        time.sleep(0.02)
    return False


def test_PROTO_1_a_loop_waiting_on_its_coprocess_is_told_where_the_answer_sits() -> None:
    """PROTO-1: the bash loop ran jq as a coprocess without --unbuffered; jq's answer sat in its
    stdout buffer while it waited for its next line, and bash waited to read that answer. Its
    report said no answer came within 10 s, and to wait longer. Every process of it waits to
    read, none of them loopspec's pipe: that is now found (and a loop sleeping is not)."""
    script = 'coproc cat; IFS= read -r line <&"${COPROC[0]}"'
    popen = subprocess.Popen(["bash", "-c", script], stdin=subprocess.PIPE)
    try:
        assert _settled(popen, _every_process_reads)
        assert not _reads_its_input(popen)
    finally:
        popen.kill()
        popen.wait()
    sleeping = subprocess.Popen(["sleep", "5"], stdin=subprocess.PIPE)
    try:
        time.sleep(0.05)
        assert not _every_process_reads(sleeping)
    finally:
        sleeping.kill()
        sleeping.wait()


def test_PROTO_1_a_required_number_written_null_is_told_to_have_a_value() -> None:
    """PROTO-1: the jq loop wrote a hook/result's durationMs as the audit's own, null where
    the answer had no audit. The report said a member with no value is left out, which for a
    required member is no answer either; it now says the member is required and its type."""
    hook_result = {"type": "hook/result", "seq": 3, "time": 3,
                   "data": {"turn": 1, "point": "PreToolUse", "handlerId": "h",
                            "decision": "pass", "durationMs": None}}  # fmt: skip
    answer = {"type": "observed", "seq": 0, "accepted": True, "events": [hook_result],
              "commits": [1], "executed": []}  # fmt: skip
    wrong = _most_specific_error(answer)
    said = _null_hint(wrong)
    assert said.startswith("; durationMs is required, a number: write one, never null"), said


_PREPARE_RESULT = dispatch.prepare_result


def _keeps_aborted_info(
    slot: CallSlot,
    outcome: ToolSucceeded | ToolFailed,
    post: tuple[tuple[HookSpec, PostVerdict], ...],
    aborting: str | None,
) -> PreparedResult:
    """`prepare_result`, except that a success after an abort keeps its ABORTED error info
    when a PostToolUse hook blocks it."""
    result = _PREPARE_RESULT(slot, outcome, post, aborting)
    blocked = any(isinstance(verdict, PostBlock) for _hook, verdict in post)
    if aborting is not None and isinstance(outcome, ToolSucceeded) and blocked:
        aborted = FrozenMap({"name": "AbortError", "code": "ABORTED"})
        return attrs.evolve(result, error_info=aborted)
    return result


BLOCK_KEEPS_ABORTED_INFO: FreshBug = (
    "a blocked success after an abort keeping its ABORTED error info",
    planted(handlers, "prepare_result", _keeps_aborted_info, _keeps_aborted_info.__doc__ or ""),
    LoopConfig(tools=TOOLS, hooks=(HookSpec("after-all", "PostToolUse", "*"),)),
    (
        SubmitUser(""),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path":""}'),)),
        Abort("user"),
        ToolFinishes("c1", ToolSucceeded(""), (PostBlock(""),)),
    ),
    "DEC-3",
)


def test_DEC_3_a_blocked_success_after_an_abort_keeping_aborted_info_is_named_the_block() -> None:
    """DEC-3: the jq loop, blocking a result, kept its error info; a success landing after an
    abort (ABORTED) then blocked kept {AbortError, ABORTED}. The report named EXE-4 in words
    saying the body failed without a code, which it did not (it succeeded); a block replaces
    the result whole, and the words now say so."""
    assert_found(
        BLOCK_KEEPS_ABORTED_INFO,
        'the target keeps the error info {"name": "AbortError", "code": "ABORTED"} of a success '
        "that landed after the abort",
        lacks=("failed without a code",),
    )


LOSSY_ARGUMENTS_HOOKED_FIRST: FreshBug = (
    "arguments holding -0.0 read as an object, their hook run before a valid call's",
    planted(handlers, "input_problem", _lossy_read_as_numbers, "-0.0 read as a number"),
    LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "bash|write"),)),
    (
        SubmitUser(""),
        ModelReplies(
            (
                ToolCallBlock("c1", "bash", '{"command":"","timeout":-0.0}'),
                ToolCallBlock("c2", "bash", '{"command":""}'),
            )
        ),
        HookAnswers(Pass()),
    ),
    "EXE-2",
)


def test_EXE_2_a_hook_run_for_lossy_arguments_before_a_valid_call_is_named_exe_2() -> None:
    """EXE-2: seed 2 of the same bug drew a valid call after the lossy one, so the first
    answer named c1 where the model's names c2: the report named HOOK-4 (a hook run for a call
    with invalid input) as if any reader saw the input invalid; it names EXE-2 now."""
    assert_found(
        LOSSY_ARGUMENTS_HOOKED_FIRST,
        "the target runs hook guard for call c1, whose arguments are JSON without a lossless value",
        lacks=("HOOK-4",),
    )


def test_PROTO_1_no_waiting_hint_on_a_machine_whose_system_calls_loopspec_does_not_know(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PROTO-1: the hints that a loop waits on its own buffer read /proc's system call numbers,
    which were x86_64's alone: elsewhere a thread blocked in another call would have been read
    as one reading. On an architecture loopspec does not know, no hint is given."""
    script = 'coproc cat; IFS= read -r line <&"${COPROC[0]}"'
    popen = subprocess.Popen(["bash", "-c", script], stdin=subprocess.PIPE)
    try:
        assert _settled(popen, _every_process_reads)  # this machine's numbers, known
        monkeypatch.setattr(platform, "machine", lambda: "riscv64")
        _waiting_calls.cache_clear()
        assert not _every_process_reads(popen)
    finally:
        popen.kill()
        popen.wait()
        monkeypatch.undo()
        _waiting_calls.cache_clear()
