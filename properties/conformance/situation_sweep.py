"""Targeted programs for situations the random search creates rarely, played after it.

Realistic wrong loops planted in a copy of the bundled implementation (session 16) showed the
random search reaching some situations seldom or never within 200 programs: a reply whose call two
hooks deny with reasons of their own (a loop joining them with ", " passed 200 programs on one seed
and was found at the 171st on another), an abort landing after a later parallel call finished and
before an earlier one did (a loop aborting the finished call passed 200 programs on every seed
tried), an approval asked again for a tool approved in an earlier turn, a result that two
PostToolUse hooks block and add a context to. A loop matching a hook's matcher against part of a
tool name (JavaScript's `new RegExp(matcher).test(name)`, no `^` or `$`), or dropping a leading
`(?i)`, passed every program on every seed tried (session 23): no generated tool name extends a
generated matcher, nor is spelt in another case (nor did one matching every matcher as if it began
with `(?i)`); so did one delivering an empty context a body
deferred ("", which is none, ADJ-4), the programs drawing none then (they draw one now, as they
draw a PostToolUse hook's; its situation below makes it certain, whatever the budget); and one
dropping a deny's reason of whitespace, or writing an ask's empty reason on its approval request:
the programs draw neither (nor a PostToolUse block's reason of whitespace, which a loop dropping it
passed on every seed tried, session 24, nor a crash while an approval waits, where a repair
answering the approval passed one seed and was found at the 199th program of another, nor a call
id an earlier reply used, as local models' `call_0` is, which a loop refusing it passed); and one
reading NaN, 1e400 or -0.0 in arguments as numbers (as `json.loads` and `JSON.parse` do), where
EXE-2 keeps such arguments as their raw string: none is drawn. Nor did any program call a tool
spelt in capitals or fullwidth letters, return a result of a few thousand characters, type while
an approval waits, or answer with a hook that failed closed (session 25: loops that look tools
and presenters up case-blind, match NFKC forms, cut results in the history, append such input at
once, or take an audit's error for no decision passed every seed tried). Nor was a reply cancelled
after text of no-break spaces (session 26: a Java loop testing `isBlank` for ABORT-2's
"non-blank" passed every seed, and dsh keeping U+0085 and dropping U+FEFF as JavaScript's
`trim` does went unseen), nor result meta holding a number a `double` or a `long`
changes (a Java loop reading meta as Gson does passed every seed). The random programs now
draw some of these too (session 27: reasons of only whitespace, NaN, Infinity and 1e400 in
arguments, a call id an earlier reply used, absolute paths in titles), which stay here: a
targeted program shows its situation whatever the budget. Session 28's loops passed every seed
taking the cause of a second abort they refused (the programs' second abort carries the first
one's cause), allowing a tool for the rest of a reply once a call of it was allowed, dropping a
result of empty text from the history, or repairing a call whose approval was refused as never
started; and one seed dropping what the user typed before a reply cut off at max-tokens, or
showing a permission request's title with the raw path its card made relative. Session 29's
passed a seed settling a call that waited for its approval when its tool's outcome came.
Session 32's Go loop was found only after 57 to 123 programs joining an allowing hook's reason
into a denial, filling an audit's missing stderrSummary with the reason, letting one call past
the cap, or ending only the first of the calls an abort found unstarted (session 35's C loop
letting one call past the cap, declaring parallel but not abort, which that program needs,
passed every seed, and so did one passing a later call through the gate when an earlier call
settled while one between them waited for its approval). Session 33's Perl loop was found only
after 7 to 73 answering a call with invalid input that an abort found behind a pending approval
as invalid input, letting an ask outrank a deny, keeping a hook's rewrite on a denied call's
record, keeping its queue across a crash, or ending the turn on a reply without calls while a
message was queued. Each
situation below is one short program, compared with the model as any program is
(`exhaustive.run_program`, which drives it to a quiet end); a program needing a capability the
target does not declare is not played.
`run_conformance` plays them after the random search found nothing (section 12's examples,
`presentation_sweep`, come before it), so the search draws what it drew before. Under a profile
each is replayed as a case is, compared whole with the profile's known divergences erased: one
whose command the profile's target is cut at when sent, or that no real CLI can be put in (hooks
failing closed), is not played (`skipped_under`), and the
report says so, as it says of one stopped at a known divergence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Set

import attrs

from loopspec.model.commands import (
    FINISH_CANCELLED,
    FINISH_MAX_TOKENS,
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    HookAudit,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.properties.conformance.exhaustive import SETTLE_LIMIT, CommandCounter, play_each
from loopspec.properties.conformance.profile_check import settling_command
from loopspec.properties.conformance.target import ConformanceTarget, ModelTarget, Observation
from loopspec.properties.profiles.known import Profile
from loopspec.properties.stateful.strategies import TOOLS
from loopspec.properties.stateful.swarm import PARTIAL_TOOLS

_BASH = '{"command":"ls"}'
_READ = '{"file_path":"a.txt"}'
_JAVA_KEEPS = "\xa0\u2007\u202f"
"""No-break spaces: blank to Python's `str.strip` and to JavaScript's `trim`, not to Java's
`String.isBlank` and `strip` (U+0085 neither, which JavaScript's `trim` keeps too: the
situation after this one plays it)."""
_JAVASCRIPT_READS_OTHERWISE = ("\x85", "\x1c\x1f", "\ufeff")
"""Blank to Python's `str.strip` and not to JavaScript's `trim` (U+0085, U+001C..U+001F), and
the other way round (U+FEFF): real dsh 0.1.0-rc.8 keeps and drops them in a cancelled reply as
`trim` reads them, a known divergence of its profile (interrupted-blank-is-javascript-trim)."""
_NUMBERS_META = FrozenMap({"bytes": 12345678901234567890123, "ratio": 0.30000000000000004})
"""Meta a JSON library reading every number as a double (Gson's default), or integers as a
64-bit `long`, cannot give back: the programs draw only `{"lines": 3}`."""
_FAILED_CLOSED = HookAudit(decision="error", duration_ms=60000.0)
"""A hook that failed (timed out, printed invalid JSON) under fail-closed (HOOK-7): its verdict
denies or blocks, its audit records error."""
_FAILED_OPEN = HookAudit(decision="error", duration_ms=60000.0)
"""A hook that failed (killed at its timeout) under its dialect's default, no decision (HOOK-7):
its verdict passes, its audit records error. The programs' audits record only an exit-2 deny, and
a loop reading the audit's word (failing closed by default) passed every one."""
_FULLWIDTH_READ = "\uff52\uff45\uff41\uff44"
"""`read` in fullwidth letters, which Unicode's NFKC form turns into `read`: another name."""
_LONG_OUTPUT = "".join(f"line {n:02d} " + ("x" * 95 + "y" * 96) * 4 + "\n" for n in range(40))
"""A result longer than a loop may think worth sending (30,920 bytes in 40 lines, the last
ending in a newline), sent whole. Past what either real CLI's shell tool sends whole (Codex cuts
an output past 10,000 bytes, Claude Code persists one past 30,000 and trims its final newline):
their profiles know those shapes (TEXT-1:output-shape), so a loop cutting it anywhere else, or
dropping the newline, is still blamed."""

_LONG_REPLY = "".join(f"line {n:04d}: " + "x" * 60 + "\n" for n in range(1000))
"""A reply's text of 72,000 characters, its command's line over 64 KiB: past what a reader
capped there takes (Go's bufio.Scanner unless given Scanner.Buffer), which the random programs'
lines, 31 KB at most, never reach."""


@attrs.frozen
class Situation:
    """One rare situation: what it is, the rules it puts to the test, the capabilities it
    needs, and the configuration and program that create it."""

    name: str
    rules: tuple[str, ...]
    needs: frozenset[str]
    config: LoopConfig
    program: tuple[Command, ...]
    unplayable_under_profiles: str | None = None
    """Why no profile's real CLI can be put in the situation (None: each can), said in the
    report of a run under a profile, which does not play it."""


def _pre(*hooks: tuple[str, str]) -> tuple[HookSpec, ...]:
    return tuple(HookSpec(handler, "PreToolUse", matcher) for handler, matcher in hooks)


_REVIEWED_READS = LoopConfig(
    tools=TOOLS,
    hooks=(HookSpec("review", "PostToolUse", "read"), HookSpec("notes", "PostToolUse", "read")),
)
"""Two PostToolUse hooks judge every read, review then notes."""


SITUATIONS: tuple[Situation, ...] = (
    Situation(
        "two hooks deny one call, each with its reason",
        ("DEC-1", "HOOK-2", "TEXT-1"),
        frozenset({"pre-hooks"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("guard", "bash"), ("policy", "bash|write"))),
        (
            SubmitUser("list the files"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH),)),
            HookAnswers(Deny("blocked by policy")),
            HookAnswers(Deny("no shell today")),
        ),
    ),
    Situation(
        "an abort after a later parallel call finished, before an earlier one did",
        ("ABORT-1", "ORD-3"),
        frozenset({"parallel", "abort"}),
        LoopConfig(tools=TOOLS, max_parallel=2),
        (
            SubmitUser("read both"),
            ModelReplies((ToolCallBlock("c1", "read", _READ), ToolCallBlock("c2", "read", _READ))),
            ToolFinishes("c2", ToolSucceeded("second")),
            Abort("user"),
            ToolFinishes("c1", ToolSucceeded("first")),
        ),
    ),
    Situation(
        "a tool approved once is asked about again in the next turn",
        ("DEC-2",),
        frozenset({"pre-hooks", "approval"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("gate", "*"))),
        (
            SubmitUser("list the files"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH),)),
            HookAnswers(Ask("check")),
            ApprovalAnswers("allowed-once"),
            ToolFinishes("c1", ToolSucceeded("a.txt")),
            ModelReplies((TextBlock("done"),)),
            SubmitUser("again"),
            ModelReplies((ToolCallBlock("c2", "bash", _BASH),)),
            HookAnswers(Ask("check")),
        ),
    ),
    Situation(
        "two PostToolUse hooks block a result and add a context; the body defers one",
        ("DEC-3", "ADJ-4", "HOOK-5"),
        frozenset({"post-hooks"}),
        _REVIEWED_READS,
        (
            SubmitUser("read it"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            ToolFinishes(
                "c1",
                ToolSucceeded("secret", ("from the body",)),
                (PostBlock("output withheld"), PostContext("from a hook")),
            ),
        ),
    ),
    Situation(
        "three concurrency-safe calls finish in reverse order",
        ("ORD-3", "SCHED-1"),
        frozenset({"parallel"}),
        LoopConfig(tools=TOOLS),
        (
            SubmitUser("look around"),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", _READ),
                    ToolCallBlock("c2", "grep", '{"pattern":"TODO"}'),
                    ToolCallBlock("c3", "read", '{"file_path":"b.txt"}'),
                )
            ),
            ToolFinishes("c3", ToolSucceeded("three")),
            ToolFinishes("c2", ToolSucceeded("two")),
            ToolFinishes("c1", ToolSucceeded("one")),
        ),
    ),
    Situation(
        "three concurrency-safe calls at a cap of two: the third waits for a slot",
        ("SCHED-1", "ORD-3"),
        frozenset({"parallel"}),
        LoopConfig(tools=TOOLS, max_parallel=2),
        # The program below holding calls at the cap needs pre-hooks and abort too: a C loop
        # declaring parallel alone let one call past the cap on every seed tried (session 35).
        (
            SubmitUser("look around"),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", _READ),
                    ToolCallBlock("c2", "grep", '{"pattern":"TODO"}'),
                    ToolCallBlock("c3", "read", '{"file_path":"b.txt"}'),
                )
            ),
            ToolFinishes("c2", ToolSucceeded("two")),
            ToolFinishes("c1", ToolSucceeded("one")),
            ToolFinishes("c3", ToolSucceeded("three")),
        ),
    ),
    Situation(
        'a body answers "0" and defers an empty context, one of whitespace and "0"',
        ("ADJ-4",),
        frozenset(),
        LoopConfig(tools=TOOLS),
        (
            SubmitUser("read it"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            # "0" is false to Perl and PHP, which then drop it as they drop "", and a number
            # once compared as one, which Perl's JSON::PP then writes as the number 0.
            ToolFinishes("c1", ToolSucceeded("0", ("", " ", "0"))),
        ),
    ),
    Situation(
        "a call misses required keys Python's repr quotes otherwise than a simple escaper",
        ("EXE-5",),
        frozenset(),
        LoopConfig(tools=(PARTIAL_TOOLS[1],)),
        (
            SubmitUser("read it"),
            # The random programs name such keys only in a configuration with hooks, which a
            # loop declaring none never gets: one quoting each key in plain quotes passed.
            ModelReplies((ToolCallBlock("c1", PARTIAL_TOOLS[1].name, _READ),)),
        ),
    ),
    Situation(
        "calls give a required key the value null and the empty string",
        ("EXE-5", "EXE-2"),
        frozenset(),
        LoopConfig(tools=TOOLS),
        (
            SubmitUser("look around"),
            # The keys are there: a loop testing a key's value (Perl's `defined`, JavaScript's
            # `!input[key]`) finds them missing.
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", '{"file_path":null}'),
                    ToolCallBlock("c2", "bash", '{"command":""}'),
                )
            ),
            ToolFinishes("c1", ToolSucceeded("A")),
        ),
    ),
    Situation(
        "a PostToolUse hook adds an empty context",
        ("ADJ-4", "HOOK-5"),
        frozenset({"post-hooks"}),
        LoopConfig(tools=TOOLS, hooks=(HookSpec("notes", "PostToolUse", "read"),)),
        (
            SubmitUser("read it"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            ToolFinishes("c1", ToolSucceeded("A"), (PostContext(""),)),
        ),
    ),
    Situation(
        "a call denied by a hook whose reason is whitespace and by one without a reason",
        ("DEC-1", "TEXT-1"),
        frozenset({"pre-hooks"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("guard", "bash"), ("policy", "bash|write"))),
        (
            SubmitUser("list the files"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH),)),
            HookAnswers(Deny(" ")),
            HookAnswers(Deny("")),
        ),
    ),
    Situation(
        "a result blocked by a PostToolUse hook whose reason is whitespace, and by one without",
        ("DEC-3", "TEXT-1"),
        frozenset({"post-hooks"}),
        _REVIEWED_READS,
        (
            SubmitUser("read it"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            ToolFinishes("c1", ToolSucceeded("secret"), (PostBlock(" "), PostBlock(""))),
        ),
    ),
    Situation(
        "the loop crashes after the first of two parallel calls has its result, and is reopened",
        ("REC-1", "ADJ-2"),
        frozenset({"parallel", "crash-repair"}),
        LoopConfig(tools=TOOLS),
        (
            SubmitUser("read both"),
            ModelReplies((ToolCallBlock("c1", "read", _READ), ToolCallBlock("c2", "read", _READ))),
            ToolFinishes("c1", ToolSucceeded("first")),
            Crash(),
            Recover(),
        ),
    ),
    Situation(
        "the loop crashes while a call waits for its approval, and is reopened",
        ("REC-1", "DEC-2"),
        frozenset({"pre-hooks", "approval", "crash-repair"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("gate", "*"))),
        (
            SubmitUser("list the files"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH),)),
            HookAnswers(Ask("check")),
            Crash(),
            Recover(),
        ),
    ),
    Situation(
        "a later step's reply reuses the call id of an earlier step's call, for another tool",
        ("EXE-1", "ADJ-2", "ORD-2", "VIEW-2"),
        frozenset(),
        LoopConfig(tools=TOOLS),
        # The second call is a shell command, whose result card (terminal) is not the read's
        # (raw content): a UI that kept the first call's card per id shows the wrong one.
        (
            SubmitUser("read, then list"),
            ModelReplies((ToolCallBlock("call_0", "read", _READ),)),
            ToolFinishes("call_0", ToolSucceeded("first")),
            ModelReplies((ToolCallBlock("call_0", "bash", _BASH),)),
            ToolFinishes("call_0", ToolSucceeded("second")),
        ),
    ),
    Situation(
        "the loop crashes while a call reusing an earlier step's call id runs, and is reopened",
        ("REC-1", "ORD-2"),
        frozenset({"crash-repair"}),
        LoopConfig(tools=TOOLS),
        # Repair cites the tool/call of the open step's call: a loop looking the id up from
        # the log's start cites the earlier step's record.
        (
            SubmitUser("read, then list"),
            ModelReplies((ToolCallBlock("call_0", "read", _READ),)),
            ToolFinishes("call_0", ToolSucceeded("first")),
            ModelReplies((ToolCallBlock("call_0", "bash", _BASH),)),
            Crash(),
            Recover(),
        ),
    ),
    Situation(
        "a hook asks with an empty reason",
        ("DEC-2",),
        frozenset({"pre-hooks", "approval"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("gate", "*"))),
        (
            SubmitUser("read it"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            HookAnswers(Ask("")),
            ApprovalAnswers("rejected"),
        ),
    ),
    Situation(
        "calls whose arguments are JSON without a lossless value: -0.0, 1e400, NaN",
        ("EXE-2", "EXE-5"),
        frozenset(),
        LoopConfig(tools=TOOLS),
        (
            SubmitUser("look around"),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", '{"file_path":"a.txt","limit":-0.0}'),
                    ToolCallBlock("c2", "grep", '{"pattern":"TODO","max":1e400}'),
                    ToolCallBlock("c3", "bash", '{"command":"ls","timeout":NaN}'),
                )
            ),
        ),
    ),
    Situation(
        "a hook's matcher is the start of a called tool's name; another's is (?i) and upper case",
        ("HOOK-8", "HOOK-4"),
        frozenset({"pre-hooks"}),
        LoopConfig(
            tools=(*TOOLS, ToolSpec("bash_session", concurrency_safe=False, required_keys=())),
            hooks=_pre(("shell-guard", "bash"), ("reader", "(?i)READ")),
        ),
        (
            SubmitUser("look around"),
            ModelReplies(
                (ToolCallBlock("c1", "bash_session", _BASH), ToolCallBlock("c2", "read", _READ))
            ),
            HookAnswers(Pass()),
        ),
    ),
    Situation(
        "a hook's matcher is empty, which matches every tool",
        ("HOOK-8", "HOOK-4"),
        frozenset({"pre-hooks"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("everything", ""))),
        (
            SubmitUser("look around"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            HookAnswers(Pass()),
        ),
    ),
    Situation(
        "a hook's matcher differs from a called tool's name only in letter case",
        ("HOOK-8", "HOOK-4"),
        frozenset({"pre-hooks"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("cased", "Read"), ("reader", "read"))),
        (
            SubmitUser("look around"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            HookAnswers(Pass()),
        ),
    ),
    Situation(
        "two calls of one reply rewritten, one of them by two hooks",
        ("RW-1", "RW-2", "HOOK-3"),
        frozenset({"pre-hooks", "rewrite"}),
        # Configured against their ids' order: a loop merging by id is not right by chance.
        LoopConfig(tools=TOOLS, hooks=_pre(("everything", "*"), ("anything", ".*"))),
        (
            SubmitUser("clean up"),
            ModelReplies(
                (
                    ToolCallBlock("c1", "bash", _BASH),
                    ToolCallBlock("c2", "write", '{"file_path":"a.txt","content":"x"}'),
                )
            ),
            HookAnswers(Allow(FrozenMap({"command": "ls -la"}))),
            HookAnswers(Allow(FrozenMap({"command": "pwd"}))),
            HookAnswers(Allow(FrozenMap({"file_path": "safe.txt", "content": "x"}))),
            HookAnswers(Pass()),
        ),
    ),
    Situation(
        "hooks that fail closed: a deny and a PostToolUse block whose audits record error",
        ("HOOK-7", "DEC-1", "DEC-3"),
        frozenset({"pre-hooks", "post-hooks"}),
        LoopConfig(
            tools=TOOLS,
            hooks=(
                HookSpec("guard", "PreToolUse", "bash"),
                HookSpec("review", "PostToolUse", "read"),
            ),
        ),
        (
            SubmitUser("look around"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH), ToolCallBlock("c2", "read", _READ))),
            HookAnswers(Deny("hook guard timed out"), _FAILED_CLOSED),
            ToolFinishes(
                "c2",
                ToolSucceeded("secret"),
                (PostBlock("hook review printed invalid JSON", _FAILED_CLOSED),),
            ),
        ),
        unplayable_under_profiles=(
            "a real CLI's adapter answers each hook with its verdict, which the CLI records "
            "in its own word: none fails closed"
        ),
    ),
    Situation(
        "a hook that timed out failing open: a pass whose audit records error, then the body",
        ("HOOK-7", "HOOK-2"),
        frozenset({"pre-hooks"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("guard", "bash"))),
        (
            SubmitUser("list the files"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH),)),
            HookAnswers(Pass(), _FAILED_OPEN),
            ToolFinishes("c1", ToolSucceeded("a.txt")),
        ),
        unplayable_under_profiles=(
            "a real CLI's adapter answers each hook with its verdict, which the CLI records "
            "in its own word: none times out"
        ),
    ),
    Situation(
        "calls of tools spelt as registered ones in capitals or fullwidth letters",
        ("EXE-5", "VIEW-2"),
        frozenset(),
        LoopConfig(tools=TOOLS),
        (
            SubmitUser("look around"),
            ModelReplies(
                (
                    ToolCallBlock("c1", "Bash", _BASH),
                    ToolCallBlock("c2", "READ", _READ),
                    ToolCallBlock("c3", _FULLWIDTH_READ, _READ),
                )
            ),
        ),
    ),
    Situation(
        "a hook's matcher is a tool's name, which a call spells in fullwidth letters",
        ("HOOK-8", "HOOK-4"),
        frozenset({"pre-hooks"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("reader", "read"))),
        (
            SubmitUser("look around"),
            ModelReplies((ToolCallBlock("c1", _FULLWIDTH_READ, _READ),)),
        ),
    ),
    Situation(
        "the user types while a call waits for its approval",
        ("ADJ-1", "ADJ-4", "SCHED-2"),
        frozenset({"pre-hooks", "approval", "queued-input"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("gate", "*"))),
        (
            SubmitUser("list the files"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH),)),
            HookAnswers(Ask("check")),
            SubmitUser("and then read a.txt"),
            ApprovalAnswers("allowed-once"),
            ToolFinishes("c1", ToolSucceeded("a.txt")),
        ),
    ),
    Situation(
        "a body returns a long result",
        ("HIST-1", "VIEW-2"),
        frozenset(),
        LoopConfig(tools=TOOLS),
        (
            SubmitUser("read it"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            ToolFinishes("c1", ToolSucceeded(_LONG_OUTPUT)),
        ),
    ),
    Situation(
        "the model replies with a text whose line is over 64 KiB",
        ("STEP-4", "TEXT-2"),
        frozenset(),
        LoopConfig(tools=TOOLS),
        (SubmitUser("tell me everything"), ModelReplies((TextBlock(_LONG_REPLY),))),
        unplayable_under_profiles=(
            "its point is a line past 64 KiB reaching the loop's own reader, and a real CLI's "
            "adapter reads the driver's lines in Python (dsh's with node's readline), which "
            "takes a line of any length"
        ),
    ),
    Situation(
        "a reply is cancelled after blocks of no-break spaces",
        ("ABORT-2", "EXE-2"),
        frozenset({"max-tokens"}),
        LoopConfig(tools=TOOLS),
        (
            SubmitUser("stop there"),
            ModelReplies(
                (TextBlock(_JAVA_KEEPS), ReasoningBlock(_JAVA_KEEPS), TextBlock("stopping")),
                FINISH_CANCELLED,
            ),
        ),
    ),
    Situation(
        "a cancelled reply holds blocks blank to one of Python's strip and JavaScript's trim",
        ("ABORT-2",),
        frozenset({"max-tokens"}),
        LoopConfig(tools=TOOLS),
        (
            SubmitUser("stop there"),
            ModelReplies(
                (
                    TextBlock(_JAVASCRIPT_READS_OTHERWISE[0]),
                    ReasoningBlock(_JAVASCRIPT_READS_OTHERWISE[1]),
                    ReasoningBlock(_JAVASCRIPT_READS_OTHERWISE[2]),
                    TextBlock("stopping"),
                ),
                FINISH_CANCELLED,
            ),
        ),
    ),
    Situation(
        "U+0000 in text typed, replied and returned, and a failure's message of 300 characters",
        ("TEXT-2", "EXE-4"),
        frozenset(),
        # One body at a time, as a loop without parallel runs them: its two reads queue.
        LoopConfig(tools=TOOLS, max_parallel=1),
        # Kept as given: a C loop holding strings as NUL-ended char arrays cuts each at the
        # NUL, and one writing a message into a fixed buffer cuts it there; no program drew
        # either, and both passed every seed (session 35).
        (
            SubmitUser("read a\x00b"),
            ModelReplies(
                (
                    TextBlock("reading\x00"),
                    ToolCallBlock("c1", "read", _READ),
                    ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),
                )
            ),
            ToolFinishes("c1", ToolSucceeded("one\x00two")),
            ToolFinishes("c2", ToolFailed("disk error " + "x" * 289, "EIO", "IOError")),
        ),
        unplayable_under_profiles=(
            "a real CLI is given its prompt as a command-line argument, which cannot hold U+0000"
        ),
    ),
    Situation(
        "a tool outcome comes while the model is awaited, and again once the turn has ended",
        ("MODEL-1", "MODEL-3"),
        frozenset(),
        LoopConfig(tools=TOOLS),
        # Both refused (MODEL-1: the phase is judged first, no batch is open): a C loop
        # refusing them with EXE-4, as an outcome for a call not running, passed a seed
        # (session 35), the random programs seldom sending one outside a batch.
        (
            SubmitUser("read it"),
            ToolFinishes("c1", ToolSucceeded("a.txt")),
            ModelReplies((TextBlock("nothing to read"),)),
            ToolFinishes("c1", ToolSucceeded("a.txt")),
        ),
    ),
    Situation(
        "a call finishes with one PostToolUse verdict too many, refused, then with its one",
        ("HOOK-5", "MODEL-3"),
        frozenset({"post-hooks"}),
        LoopConfig(tools=TOOLS, hooks=(HookSpec("notes", "PostToolUse", "read"),)),
        (
            SubmitUser("read it"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            # Refused (HOOK-5): a loop that settles the call before it counts the verdicts
            # has changed its state, which a refusal never does.
            ToolFinishes("c1", ToolSucceeded("A"), (PostPass(), PostContext("extra"))),
            ToolFinishes("c1", ToolSucceeded("B"), (PostPass(),)),
        ),
    ),
    Situation(
        "a call's tool finishes while the call waits for its approval, refused, then runs",
        ("EXE-4", "DEC-2"),
        frozenset({"pre-hooks", "approval"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("gate", "bash"))),
        (
            SubmitUser("list the files"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH),)),
            HookAnswers(Ask("check")),
            # Refused (EXE-4): the call has not started. A loop that looks the call up among
            # those asking too settles it unapproved (it passed every program of a seed).
            ToolFinishes("c1", ToolSucceeded("a.txt")),
            ApprovalAnswers("allowed-once"),
            ToolFinishes("c1", ToolSucceeded("a.txt")),
        ),
    ),
    Situation(
        "a hook's rewrite gives a key the value null",
        ("HOOK-3", "RW-1", "RW-2"),
        frozenset({"pre-hooks", "rewrite"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("rewriter", "bash"))),
        (
            SubmitUser("list the files"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH),)),
            # A null is a value the input keeps: a loop dropping such keys (in place, on the
            # object its audit holds too) runs and records another input.
            HookAnswers(Allow(FrozenMap({"command": "ls", "timeout": None}))),
        ),
    ),
    Situation(
        "a hook's rewrite gives a required key the value null",
        ("HOOK-6", "EXE-5"),
        frozenset({"pre-hooks", "rewrite"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("rewriter", "bash"))),
        (
            SubmitUser("list the files"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH),)),
            # The key is there, so the tool takes the input: a loop that checks a rewrite's
            # keys by their value (JavaScript's `input.get(key) == null`) refuses it (HOOK-6),
            # where the model's own arguments, checked by another path, pass.
            HookAnswers(Allow(FrozenMap({"command": None}))),
        ),
    ),
    Situation(
        "a call's context is queued, then the user types, before the batch's last result",
        ("ADJ-4", "ADJ-1"),
        frozenset({"queued-input"}),
        LoopConfig(tools=TOOLS),
        (
            SubmitUser("list, then read"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH), ToolCallBlock("c2", "read", _READ))),
            ToolFinishes("c1", ToolSucceeded("a.txt", ("from the shell",))),
            # Typed after the context was queued: the next step delivers both in that order.
            SubmitUser("and b.txt"),
            ToolFinishes("c2", ToolSucceeded("A")),
        ),
    ),
    Situation(
        "a body's result meta holds an integer past 2^64 and a double",
        ("EXE-4", "PROTO-1"),
        frozenset({"result-meta"}),
        LoopConfig(tools=TOOLS),
        (
            SubmitUser("read it"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            ToolFinishes("c1", ToolSucceeded("a.txt", meta=_NUMBERS_META)),
        ),
    ),
    Situation(
        "a second abort, with another cause, lands while the first one's call drains",
        ("MODEL-3", "ABORT-1", "ABORT-3"),
        frozenset({"abort"}),
        LoopConfig(tools=TOOLS),
        # Refused (ABORT-1): the turn ends with the first abort's cause. A loop that takes
        # the second one's before refusing it has changed its state, which a refusal never does.
        (
            SubmitUser("read it"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            Abort("user"),
            Abort("parent"),
            ToolFinishes("c1", ToolSucceeded("A")),
        ),
    ),
    Situation(
        "a hook asks about a read of an absolute path inside the workspace",
        ("VIEW-4", "ACP-3", "DEC-2"),
        frozenset({"pre-hooks", "approval"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("gate", "read"))),
        # The permission request's title is the card's, its path made relative: a UI building
        # the request on its own path shows the raw one.
        (
            SubmitUser("read it"),
            ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"/workspace/src/a.txt"}'),)),
            HookAnswers(Ask("check")),
        ),
    ),
    Situation(
        "two calls of one tool in a reply are each asked about, the first allowed",
        ("DEC-2", "SCHED-2"),
        frozenset({"pre-hooks", "approval"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("gate", "*"))),
        # An approval is one call's: a loop allowing the tool for the rest of the reply
        # starts the second call unasked.
        (
            SubmitUser("list, then show where"),
            ModelReplies(
                (
                    ToolCallBlock("c1", "bash", _BASH),
                    ToolCallBlock("c2", "bash", '{"command":"pwd"}'),
                )
            ),
            HookAnswers(Ask("check")),
            HookAnswers(Ask("check")),
            ApprovalAnswers("allowed-once"),
            ToolFinishes("c1", ToolSucceeded("a.txt")),
        ),
    ),
    Situation(
        "an earlier call settles while a later one waits for its approval, a third behind it",
        ("SCHED-2", "DEC-2"),
        frozenset({"pre-hooks", "approval", "parallel"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("gate", "read")), max_parallel=3),
        # The gate stays with the waiting call when a result frees a slot: a C loop letting
        # the third call pass then passed every seed (session 35), no program settling a
        # call while a later one waited for its answer.
        (
            SubmitUser("read both, then search"),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", _READ),
                    ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),
                    ToolCallBlock("c3", "grep", '{"pattern":"TODO"}'),
                )
            ),
            HookAnswers(Pass()),
            HookAnswers(Ask("check")),
            ToolFinishes("c1", ToolSucceeded("one")),
            ApprovalAnswers("allowed-once"),
            ToolFinishes("c3", ToolSucceeded("three")),
            ToolFinishes("c2", ToolSucceeded("two")),
        ),
    ),
    Situation(
        "a body succeeds with no output, and a later one fails with an empty message",
        ("HIST-1", "TEXT-1", "VIEW-3"),
        frozenset(),
        LoopConfig(tools=TOOLS),
        # A result of empty text is still the call's result: a history dropping it (a
        # provider refuses an empty text block) leaves the call unanswered.
        (
            SubmitUser("read, then list"),
            ModelReplies((ToolCallBlock("c1", "read", _READ),)),
            ToolFinishes("c1", ToolSucceeded("")),
            ModelReplies((ToolCallBlock("c2", "bash", _BASH),)),
            ToolFinishes("c2", ToolFailed("")),
        ),
    ),
    Situation(
        "the user types while the model replies, and the reply is cut off at max-tokens",
        ("ADJ-4", "STEP-4"),
        frozenset({"max-tokens", "queued-input"}),
        LoopConfig(tools=TOOLS),
        # The message is parked for the next turn's first step, before the user's own.
        (
            SubmitUser("read it"),
            SubmitUser("and b.txt"),
            ModelReplies((TextBlock("reading"),), FINISH_MAX_TOKENS),
            SubmitUser("go on"),
        ),
    ),
    Situation(
        "a call denied beside an allowing hook's reason, two calls at the cap and two waiting "
        "for a slot when an abort lands",
        ("DEC-1", "TEXT-2", "SCHED-1", "ABORT-1"),
        frozenset({"pre-hooks", "parallel", "abort"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("audit", "bash"), ("guard", "bash")), max_parallel=2),
        # A Go loop joining the allowing hook's reason into the denial, writing a reason as the
        # stderrSummary of an audit that has none, letting one call past the cap, or aborting
        # only the first call not started, was found after 57 to 123 random programs on one
        # seed or both, and by no other targeted program (session 32).
        (
            SubmitUser("look around"),
            ModelReplies(
                (
                    ToolCallBlock("c1", "bash", _BASH),
                    ToolCallBlock("c2", "read", _READ),
                    ToolCallBlock("c3", "read", '{"file_path":"b.txt"}'),
                    ToolCallBlock("c4", "read", '{"file_path":"c.txt"}'),
                    ToolCallBlock("c5", "grep", '{"pattern":"TODO"}'),
                )
            ),
            HookAnswers(
                Allow(reason="looks harmless"),
                HookAudit(decision="allow", exit_code=0, duration_ms=12.0),
            ),
            HookAnswers(Deny("no shell today")),
            Abort("user"),
            ToolFinishes("c3", ToolSucceeded("B")),
            ToolFinishes("c2", ToolSucceeded("A")),
        ),
        unplayable_under_profiles=(
            "a real CLI's adapter does not hold the CLI to a cap of 2 calls at once, and "
            "answers each hook with its verdict, which the CLI records in its own word"
        ),
    ),
    Situation(
        "the loop crashes after an approval was refused and another cancelled by an abort, "
        "while an earlier call runs, and is reopened",
        ("REC-1", "DEC-2", "ABORT-3"),
        frozenset({"pre-hooks", "approval", "parallel", "abort", "crash-repair"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("gate", "read"))),
        # Every call was recorded, and none has a result yet: repair says of each that it may
        # have run, and ends the turn interrupted, whatever the log shows of the abort.
        (
            SubmitUser("read all three"),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", _READ),
                    ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),
                    ToolCallBlock("c3", "read", '{"file_path":"c.txt"}'),
                )
            ),
            HookAnswers(Pass()),
            HookAnswers(Ask("check")),
            HookAnswers(Ask("check")),
            ApprovalAnswers("rejected"),
            Abort("user"),
            Crash(),
            Recover(),
        ),
    ),
    Situation(
        "a call with invalid input waits behind a pending approval when an abort lands",
        ("ABORT-1", "EXE-5", "SCHED-2"),
        frozenset({"pre-hooks", "approval", "abort"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("gate", "bash"))),
        # The invalid call has not reached the gate: the abort finds it not started. A Perl
        # loop answering it INVALID_TOOL_INPUT there was found after 52 and 73 random programs
        # (session 33).
        (
            SubmitUser("list, then read"),
            ModelReplies((ToolCallBlock("c1", "bash", _BASH), ToolCallBlock("c2", "read", "{}"))),
            HookAnswers(Ask("check")),
            Abort("user"),
        ),
    ),
    Situation(
        "a hook asks about a call another denies, and one rewrites a call another denies",
        ("HOOK-2", "HOOK-3", "DEC-1"),
        frozenset({"pre-hooks", "rewrite", "approval"}),
        LoopConfig(tools=TOOLS, hooks=_pre(("guard", "bash"), ("rewriter", "bash"))),
        # A deny outranks an ask and discards every rewrite: a Perl loop letting the ask win,
        # or keeping the rewrite on the denied call's record, was found after 12 to 31 random
        # programs (session 33).
        (
            SubmitUser("list, then show where"),
            ModelReplies(
                (
                    ToolCallBlock("c1", "bash", _BASH),
                    ToolCallBlock("c2", "bash", '{"command":"pwd"}'),
                )
            ),
            HookAnswers(Ask("check")),
            HookAnswers(Deny("no shell today")),
            HookAnswers(Deny("policy")),
            HookAnswers(Allow(FrozenMap({"command": "ls -a"}))),
        ),
    ),
    Situation(
        "a call's context is queued when the loop crashes, and the user types once reopened",
        ("ADJ-4", "REC-1"),
        frozenset({"crash-repair"}),
        LoopConfig(tools=TOOLS, max_parallel=1),
        # A crash loses what is queued (section 3): a Perl loop delivering the context in the
        # next turn was found after 7 and 25 random programs (session 33).
        (
            SubmitUser("read both"),
            ModelReplies(
                (
                    ToolCallBlock("c1", "read", _READ),
                    ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),
                )
            ),
            ToolFinishes("c1", ToolSucceeded("one", ("remember this",))),
            Crash(),
            Recover(),
            SubmitUser("again"),
        ),
    ),
    Situation(
        "the user types while the model is asked, and the reply makes no call",
        ("STEP-4", "ADJ-4"),
        frozenset({"queued-input"}),
        LoopConfig(tools=TOOLS),
        # A message is queued: the turn goes on with a step delivering it. A Perl loop ending
        # the turn was found after 10 and 26 random programs (session 33).
        (
            SubmitUser("read it"),
            SubmitUser("and b.txt"),
            ModelReplies((TextBlock("nothing to read"),)),
        ),
    ),
)


def situations_for(capabilities: Set[str]) -> Iterator[Situation]:
    """The situations a target declaring `capabilities` can be put in."""
    return (situation for situation in SITUATIONS if situation.needs <= capabilities)


def sweep_situations(
    make_target: Callable[[], ConformanceTarget],
    capabilities: Set[str],
    observe: Callable[[Observation], None] | None = None,
    played: Callable[[tuple[Command, ...]], None] | None = None,
    counter: Callable[[], CommandCounter] | None = None,
) -> None:
    """Play every situation's program the target can take on one target, `played` told
    of each run the commands it sent, its commands counted with what `counter` makes. Raises
    `DivergenceFound` for the first that diverges."""
    programs = ((each.config, each.program) for each in situations_for(capabilities))
    play_each(make_target, programs, observe, played, counter)


def skipped_under(situation: Situation, profile: Profile) -> str | None:
    """Why `situation`'s program is not played under `profile`, or None when it is: no real
    CLI can be put in it, or a command of it is one the profile's target is cut at as soon as
    it is sent (`Profile.avoids`), so the situation would never arise. (A program that
    reaches its situation and stops at a known divergence there is played, and reported
    stopped: which divergence shows is seen only by playing it.)"""
    if situation.unplayable_under_profiles is not None:
        return situation.unplayable_under_profiles
    for number, command in enumerate(situation.program, start=1):
        cut = [
            d.key
            for d in profile.divergences
            if d.avoid is not None and d.avoid(command, situation.config)
        ]
        if cut:
            return (
                f"its command #{number} ({command.NAME}) is one the {profile.name} profile's "
                f"target is cut at when sent ({', '.join(cut)}), before the situation arises"
            )
    return None


def settled_program(situation: Situation) -> tuple[Command, ...]:
    """The situation's program and the settling commands that drive the model to a quiet end
    after it (`run_program` sends them as it goes; a replay under a profile needs them known)."""
    oracle = ModelTarget()
    oracle.reset(situation.config)
    for command in situation.program:
        oracle.apply(command)
    tail: list[Command] = []
    while len(tail) < SETTLE_LIMIT:
        assert oracle.state is not None
        settle = settling_command(oracle.state.phase, situation.config)
        if settle is None:
            break
        oracle.apply(settle)
        tail.append(settle)
    return (*situation.program, *tail)
