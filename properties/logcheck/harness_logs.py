"""Checking logs the real Claude Code and Codex loops write, by the rules such a log can show.

A Claude Code transcript (`~/.claude/projects/*/*.jsonl`) and a Codex rollout
(`~/.codex/sessions/**/rollout-*.jsonl`) have no seq, no turn or step events and no `tool/call`
record, so most of the dsh rules have nothing to hold them to. What they do show is the order in
which the model's calls, their results and other model-visible messages were written, and —
Claude Code in the `hook_success` attachment, Codex in the `CommandExecution` event — what a hook
rewrote a call into or what actually ran. Each dialect module (`claude_code`, `codex`) turns its
records into the neutral `Observation`s below; `Judge` holds them to:

- EXE-1: a reply's calls have distinct ids (a repeated id is still a call: it may get a
  result of its own, and runs its own input);
- ADJ-1: no other model-visible message lands while a reply's calls await results;
- ADJ-2: every result answers a call that awaits one, once (a result for a call already blamed
  for having none, ADJ-3 or REC-1, is that fault written late, not blamed again);
- ADJ-3: no reply follows while an earlier call is unanswered;
- ORD-3: a reply's results are written in the order of its calls;
- RW-1: the input that ran (a hook's `updatedInput` that was applied, the executed command, or
  what a file tool's result records) is the input the model history and the log's call record
  hold; a call is reported once; a run with a record of its own (Codex) names a call the log
  made: of a run and a result naming one it never made, the first written is blamed (RW-1,
  ADJ-2), the other only follows from that missing call;
- RW-2 (Codex): an applied rewrite is recorded with the hook that supplied it;
- HOOK-4 (Claude Code): each PreToolUse hook answers once per call, before its call's result,
  and answers a call its step's reply makes: the reply whose calls await results, or, written
  while none do, the next one (the model audits a call's hooks before its reply). A call
  whose id an earlier reply's call had (local models number each reply's calls anew) is a new
  call, with hooks and a result of its own: a hook naming the id written after the earlier
  call's result is the new call's if the next reply makes the id, else the earlier call's,
  late (Claude Code writes a hook's record after its call's; a converter, before);
- REC-1 (Codex): a new turn never starts while calls await results. A crashed turn's calls get
  a repair result on reopen; a resumed rollout that starts the next turn without one lacks it.
  (Claude Code): a crash repair adds results only; an assistant message the loop wrote itself
  right after the repair result, which the next request carries as the model's, breaks it. A
  transcript marks a turn's start by its prompt alone: a prompt written while calls await is
  held until the next record says which it is, REC-1 when the next reply comes before any of
  their results (a turn opened over a crash left unrepaired), ADJ-1 otherwise (a rollout's
  user message too, for one whose task_started is missing); a rollout's turn start too, REC-1
  when a reply comes before any of their results, else no fault (the messages between are
  ADJ-1's); and an assistant message the loop wrote itself while calls await, REC-1
  unless a result of one of them follows it (a reply, ADJ-3);
- ABORT-1 (Claude Code), in part: an abort ends the turn adding no reply; an assistant message
  the loop wrote itself after an interrupt of a batch, which the next request carries as the
  model's, breaks it. What ran when the abort landed is not recorded (`Dialect.checked_in_part`).
- ABORT-2 (Claude Code), in part: an interrupted reply keeps only the text the model delivered;
  such a message after an interrupt that cut the reply short (no batch ran) breaks it. Which of
  the reply's text was delivered is not recorded.

A hook whose own output or process went wrong (a crash, broken JSON, a timeout: HOOK-7) breaks
no rule: as in a dsh log, the report notes each such hook once (Claude Code: `claude_code_hooks`;
a Codex rollout records no hook run).

Every other rule a dsh log is checked by (`rules_checked` of a dsh log) is listed as not
checkable, with the reason, never as passed. In the reports of these logs `seq` and the related
events are line numbers: the logs have no seq.

A call still waiting for its result when the log ends is a crash tail (a notice), as in dsh logs.
"""

from __future__ import annotations

from loopspec.model import PlainRecord
from loopspec.model.json_text import (
    NOT_JSON,
    json_dumps,
    json_refusal,
    loads_refusing,
    spelled,
    value_of,
)
from loopspec.model.prefix import (
    NO_KNOWN_SHAPE,
    NON_OBJECT_INPUT_RAN,
    UNREPAIRED_TURN,
    Violation,
    calls_awaiting,
)
from loopspec.properties.logcheck import INVARIANT_RULES
from loopspec.properties.logcheck.checker import (
    DEPTH_FREE_CHARS,
    TOO_DEEP_WORDS,
    ErrorKind,
    Limits,
    LogReport,
    Notice,
    NoticeKind,
    RestOfLog,
    lines_follow,
    nested_deeper,
    too_long_words,
    value_cut_short,
)

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: see the records below
if TYPE_CHECKING:
    import json
    from collections.abc import Callable, Iterable, Iterator, Mapping
    from typing import Any, BinaryIO

    from loopspec.properties.logcheck.hook_faults import HookRuns

# Rules a foreign log is weighed against: the log rules `check` judges, HOOK-3, which users of
# these loops ask about most, and HOOK-7, the hook faults `check` notes (a log that records no
# hook run says it cannot show them).
RULES_CONSIDERED = (*INVARIANT_RULES, "HOOK-3", "HOOK-7")
# A report shows a hook's command in up to this many characters, its start and its end (the
# program, then the script or the options that tell one hook from another); hooks are told
# apart by the whole command.
MAX_HOOK_SHOWN = 60
_HOOK_SHOWN_START = 30
# What REC-1 asks of a turn that ends with no reply from the model, in words that do not guess
# what cut it short: a transcript shows the same records after a crash as after a failed
# request whose notice lost its `isApiErrorMessage` mark or an interrupt whose notice is missing.
RESUMED_TURN = (
    "resuming a session adds no reply: crash repair only answers the calls awaiting results"
)
CUT_SHORT_TURN = (
    "a turn cut short (by a crash, or by a failed request or an interrupt the log does not mark) "
    "closes adding no reply: crash repair only answers the calls awaiting results"
)


# Plain records (`PlainRecord`), not attrs classes nor NamedTuples: `loopspec check` on a Claude
# Code or Codex log imports neither attrs (it takes longer to import than the interpreter to
# start) nor typing (which imports re, enum, collections: as long again).
class Call(PlainRecord):
    """A tool call as the model history and the log record it: id, tool name, input."""

    __slots__ = ("call_id", "name", "arguments")  # noqa: RUF023 (the fields' order)

    def __init__(self, call_id: str, name: str, arguments: Any) -> None:
        self.call_id = call_id
        self.name = name
        self.arguments = arguments


class Reply(PlainRecord):
    """A model reply (one request's answer) that made `calls`; `key` tells replies apart.
    `invented`: an assistant message the loop wrote itself, sent to the model as its own, in no
    place a resume or an interrupt explains (`Invented` is the one after a crash's repair);
    its text, else None."""

    __slots__ = ("key", "calls", "line", "invented")  # noqa: RUF023 (the fields' order)

    def __init__(
        self, key: str, calls: tuple[Call, ...], line: int, invented: str | None = None
    ) -> None:
        self.key = key
        self.calls = calls
        self.line = line
        self.invented = invented


class Result(PlainRecord):
    """The result of call `call_id` written to the history; `refused` when the log says the
    call never ran (a permission check turned it down); `names_its_call` when its record names
    the record of the call it answers, as the loop itself writes every result (a transcript's
    `sourceToolAssistantUUID`, which a converter plausibly drops); `failed` when the log marks
    it an error (a transcript's `is_error`)."""

    __slots__ = ("call_id", "line", "refused", "names_its_call", "failed")  # noqa: RUF023

    def __init__(
        self,
        call_id: str,
        line: int,
        refused: bool = False,
        names_its_call: bool = False,
        failed: bool = False,
    ) -> None:
        self.call_id = call_id
        self.line = line
        self.refused = refused
        self.names_its_call = names_its_call
        self.failed = failed


class Visible(PlainRecord):
    """A model-visible message that is neither a reply nor a result (`what` says which);
    `hook_context` when the log marks it as a PostToolUse hook's additionalContext; `prompt`
    when it is a user's prompt, which may open a turn no other record marks (a Claude Code
    transcript's; a rollout's, where its task_started is missing). `forked_at`: the calls a
    prompt's record names as its branch's last (a transcript's `parentUuid` naming the record of
    a call, or of what hangs from it, with no result between): Claude Code forks or rewinds a
    session there, sending the model a result for each that no result record holds. `parent_line`:
    the line of the record a prompt's record names as its parent, None where it names none
    the log holds: a prompt hung from a record written before the calls awaiting results is a
    branch on which they were never made (a rewind to an earlier point of the session).
    `among_results`: the prompt's record hangs from a record of results (the reply of
    `forked_at`, when some result came after it): its branch holds the reply's calls and the
    results written by `parent_line`, no other."""

    # The fields' order.
    __slots__ = (  # noqa: RUF023
        "what",
        "line",
        "hook_context",
        "prompt",
        "forked_at",
        "parent_line",
        "among_results",
    )

    def __init__(
        self,
        what: str,
        line: int,
        hook_context: bool = False,
        prompt: bool = False,
        *,
        forked_at: tuple[str, ...] = (),
        parent_line: int | None = None,
        among_results: bool = False,
    ) -> None:
        self.what = what
        self.line = line
        self.hook_context = hook_context
        self.prompt = prompt
        self.forked_at = forked_at
        self.parent_line = parent_line
        self.among_results = among_results


class HookRewrite(PlainRecord):
    """A PreToolUse hook answered for `call_id`; `hook` names it (its whole command: two hooks
    differ in it); `updated_input` is None when it supplied none, or none that is a JSON object;
    `denied` when its decision was deny; `non_object_input` the input it supplied that is no
    JSON object (a string, a number, a boolean, an array: HOOK-6), else None."""

    __slots__ = (  # noqa: RUF023 (the fields' order)
        "call_id",
        "hook",
        "updated_input",
        "denied",
        "line",
        "non_object_input",
    )

    def __init__(
        self,
        call_id: str,
        hook: str,
        updated_input: Any,
        denied: bool,
        line: int,
        *,
        non_object_input: Any = None,
    ) -> None:
        self.call_id = call_id
        self.hook = hook
        self.updated_input = updated_input
        self.denied = denied
        self.line = line
        self.non_object_input = non_object_input


class Executed(PlainRecord):
    """What ran for `call_id`, as the log records it (`ran`, in the call's own shape when the
    dialect can say), and the model's input it is compared against by `same_input`.
    `own_record`: the run has a record of its own (a rollout's CommandExecution), not the
    call's result's (whose call, when the log made none, is ADJ-2's already).
    `hook_decided`: a hook the judge reads no record of answered the call (a transcript's
    PermissionRequest decision, whose updatedInput the transcript does not keep)."""

    __slots__ = ("call_id", "ran", "line", "own_record", "hook_decided")  # noqa: RUF023

    def __init__(
        self,
        call_id: str,
        ran: Any,
        line: int,
        own_record: bool = False,
        hook_decided: bool = False,
    ) -> None:
        self.call_id = call_id
        self.ran = ran
        self.line = line
        self.own_record = own_record
        self.hook_decided = hook_decided


class Invented(PlainRecord):
    """An assistant message the loop wrote itself, sent to the model as its own, right after
    the repair results of `repaired` (calls a crash left unanswered, answered on resume), or,
    with none repaired, right after the user record at `repair_line` the model never replied
    to (Claude Code resuming a turn a crash cut while the model was asked, or a failed request
    or an interrupt whose mark the log lacks: the log cannot tell which). `replaced_line`: the
    model did reply to that record, at that line, and the message hangs from the record in its
    place, on the branch the session resumes (Claude Code 2.1.332 resuming after a reply holding
    no text, which it leaves off the branch)."""

    __slots__ = ("text", "repaired", "line", "repair_line", "replaced_line")  # noqa: RUF023

    def __init__(
        self,
        text: str,
        repaired: tuple[str, ...],
        line: int,
        repair_line: int,
        replaced_line: int | None = None,
    ) -> None:
        self.text = text
        self.repaired = repaired
        self.line = line
        self.repair_line = repair_line
        self.replaced_line = replaced_line


class InventedAfterAbort(PlainRecord):
    """An assistant message the loop wrote itself, sent to the model as its own, after the
    interrupt notice at `abort_line` ended the turn (Claude Code's `No response requested.` on
    resuming): an interrupt of a batch (`in_batch`, ABORT-1) or of the model's reply (ABORT-2)."""

    __slots__ = ("text", "line", "abort_line", "in_batch")  # noqa: RUF023 (the fields' order)

    def __init__(self, text: str, line: int, abort_line: int, in_batch: bool) -> None:
        self.text = text
        self.line = line
        self.abort_line = abort_line
        self.in_batch = in_batch


class RecordError(Exception):
    """A record of the kind a rule reads lacks what pairs it (a call's or a result's id), or
    holds it in a shape the CLI never writes: an input error at its line, not a guess."""


def record_id(value: Any, what: str) -> str:
    """`value` as the id of a call or a result; `RecordError` naming `what` when it is no
    non-empty string (read as text, "None" or "7" named a call the model never made)."""
    if isinstance(value, str) and value:
        return value
    raise RecordError(f"{what} must be a non-empty string, not {shown(value)}")


def shown(value: Any) -> str:
    """A record's malformed value as JSON, cut short: an error line names it, not quotes it."""
    text = json_dumps(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


class TurnStart(PlainRecord):
    """A new turn begins: the turn before it is over, whatever ended it. `what` names it in
    the log's own terms (a Codex rollout's task_started and its turn id)."""

    __slots__ = ("line", "what")

    def __init__(self, line: int, what: str) -> None:
        self.line = line
        self.what = what


class RolledBack(PlainRecord):
    """The history loses its last turns (a Codex rollout's `thread_rolled_back`): from `cut`,
    the line of the first prompt taken out, on, what the log holds is no longer in it (calls
    awaiting results there await none)."""

    __slots__ = ("cut", "line")

    def __init__(self, cut: int, line: int) -> None:
        self.cut = cut
        self.line = line


Observation = (
    Reply
    | Result
    | Visible
    | HookRewrite
    | Executed
    | Invented
    | InventedAfterAbort
    | TurnStart
    | RolledBack
)


class HookFailed(PlainRecord):
    """A run of `hook` for `call_id` whose own output or process went wrong (HOOK-7): no rule
    is broken, but the report notes it. `word` and `summary` are what the bundled loop's audit
    records for the same output (`hook_faults.HookRuns.see`)."""

    __slots__ = ("hook", "call_id", "word", "summary", "line")  # noqa: RUF023 (the fields' order)

    def __init__(self, hook: str, call_id: str, word: str, summary: str, line: int) -> None:
        self.hook = hook
        self.call_id = call_id
        self.word = word
        self.summary = summary
        self.line = line


Record = Observation | HookFailed
"""What a dialect reads from a record: observations the rules judge, and hook faults noted."""


# The shapes a violation of a rule takes in these logs (`Violation.facet`): how
# `check --known claude-code` tells the loop's known divergence of a rule from another break of it
# (`known_divergences.KNOWN_SHAPES`, which spells them as strings so that a check without --known
# does not import it, nor one with --known over dsh logs this module; a test holds them here).
RAN_HOOK_INPUT = "ran-hook-input"
"""RW-1: a call ran (it has a result) with a PreToolUse hook's updatedInput, which differs
from the input the history and the call record keep."""
RAN_OTHER_INPUT = "ran-other-input"
"""RW-1: what the log records ran for a call (a rollout's CommandExecution, a file tool's
result) differs from the call's input, in a log that records no hook's input: a rollout
records no hook; a transcript, a PermissionRequest hook's decision on the call alone."""
RAN_UNHOOKED_INPUT = "ran-unhooked-input"
"""RW-1: what a transcript's file tool result records ran differs from the call's input, and
no hook's record answers the call (a PreToolUse hook's updatedInput that ran is
`RAN_HOOK_INPUT`)."""
RAN_FOR_NO_CALL = "ran-for-no-call"
"""RW-1: a run's own record (a rollout's CommandExecution) names no call the log made."""
RAN_UNRECORDED_REWRITE = "ran-unrecorded-rewrite"
"""RW-2: a call ran another input than its own (`RAN_OTHER_INPUT`), no record naming the hook
that supplied it."""
REPEATED_CALL_ID = "repeated-call-id"
"""EXE-1: a reply carries a call id twice, each call in a record of its own, as both CLIs write
a reply's calls (a record holding both, as a converter writing whole messages would, has no
facet)."""
RESULT_BEFORE_EARLIER_CALLS = "result-before-earlier-calls"
"""ORD-3: a reply's result written before the results of calls it made earlier, its record
naming the record of its call (`Result.names_its_call`), as Claude Code writes every result;
one without that mark, a converter's, has no facet."""
INVENTED_AFTER_ABORT = "invented-after-abort"
"""ABORT-1, ABORT-2: after an interrupt's notice, an assistant message the loop wrote itself,
sent to the model as its own."""
HOOK_CONTEXT_LANDED = "hook-context-landed"
"""ADJ-1: the message that lands while calls await results is one the log marks as a
PostToolUse hook's additionalContext (a rollout's developer message so marked)."""
TURN_STARTED_OVER_CALLS = "turn-started-over-calls"
"""REC-1: a turn's start record (a rollout's task_started) while calls await results, the
next reply before any of them: the repair was never written."""
PROMPT_OPENED_OVER_CALLS = "prompt-opened-over-calls"
"""REC-1: a user's prompt marked by no turn start (a transcript's; a rollout's without its
task_started) while calls await results, the next reply before any of them."""
INVENTED_ON_RESUME = "invented-on-resume"
"""REC-1: on resuming, an assistant message the loop wrote itself right after the crash's
repair results, or after the user record a crash left without the model's reply, in the loop's
own words (`RESUME_WORDS`); in other words (an API error's that lost its mark, a converter's),
the violation has no facet."""
RESUME_WORDS = "No response requested."
"""What Claude Code (2.1.332) writes as the model's on resuming a turn a crash cut: the only
text of a message of its own seen there."""
INVENTED_WITHOUT_REPAIR = "invented-without-repair"
"""REC-1: on resuming, an assistant message the loop wrote itself while calls await results,
no repair result written for them."""
UNRECORDED_REPAIR_ON_FORK = "unrecorded-repair-on-fork"
"""REC-1: a user's prompt whose record names the record of a call awaiting its result as its
parent (`Visible.forked_at`), or of results of its reply written before the call's
(`Visible.among_results`), the next reply before that result: Claude Code forking or rewinding
a session at a call not yet answered (`--fork-session`, `--resume-session-at`), which sends the
model a result for it (`[Tool result missing due to internal error]`) that no result record
holds (only the bookkeeping `api-request-blob` of the request shows it)."""


FACETS = (
    RAN_HOOK_INPUT,
    RAN_OTHER_INPUT,
    RAN_UNHOOKED_INPUT,
    RAN_FOR_NO_CALL,
    RAN_UNRECORDED_REWRITE,
    REPEATED_CALL_ID,
    RESULT_BEFORE_EARLIER_CALLS,
    INVENTED_AFTER_ABORT,
    HOOK_CONTEXT_LANDED,
    TURN_STARTED_OVER_CALLS,
    PROMPT_OPENED_OVER_CALLS,
    INVENTED_ON_RESUME,
    INVENTED_WITHOUT_REPAIR,
    UNRECORDED_REPAIR_ON_FORK,
    NON_OBJECT_INPUT_RAN,
)
"""Every shape above."""


_LOOP_NAMES = {"claude-code": "Claude Code", "codex": "Codex"}
"""How a note names the loop that wrote a log of each dialect."""

SITUATIONS = {
    "ORD-3": "a reply's several calls were all answered",
    "ADJ-1": "a PostToolUse hook's additionalContext was written",
}
"""The rules whose situation a log shows whether or not the loop breaks them there, with what
that situation is (`Judge.situations` counts them). A rule not here shows its situation only
where it is broken, so `check --known` never says a known divergence of it did not occur: a
rewrite that reached the history looks like a hook that supplied the model's own input (RW-1;
a rollout records no hook at all), a repeated call id refused would leave no record (EXE-1),
and a crash's repair is written only where REC-1 holds."""


class Dialect(PlainRecord):
    """A log layout: its name, the rules it cannot show (with why), how to read a record, how
    to compare an executed input with a call's input, and the rules no dsh log invariant
    carries that it shows a part of (with which part). `identity`: the key of each record's
    own id, when records have one (a transcript's `uuid`) and the loop reads one record per id
    (`_Repeats`)."""

    __slots__ = (  # noqa: RUF023 (the fields' order)
        "name",
        "not_checkable",
        "observe",
        "same_input",
        "rewrites_are_recorded",
        "checked_in_part",
        "identity",
    )

    def __init__(
        self,
        name: str,
        not_checkable: Mapping[str, str],
        observe: Callable[[Mapping[str, Any], int], Iterable[Record]],
        same_input: Callable[[Call, Any], bool],
        *,
        rewrites_are_recorded: bool,
        checked_in_part: Mapping[str, str],
        identity: str | None = None,
    ) -> None:
        self.name = name
        self.not_checkable = not_checkable
        self.observe = observe
        self.same_input = same_input
        self.rewrites_are_recorded = rewrites_are_recorded
        self.checked_in_part = checked_in_part
        self.identity = identity


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json_dumps(value, sort_keys=True)


def fork_words(calls: int) -> str:
    """What a REC-1 of Claude Code's fork shape (`UNRECORDED_REPAIR_ON_FORK`) adds to its words,
    for `calls` calls left awaiting results."""
    each = "it" if calls == 1 else "each"
    return (
        "; a fork or rewind there (--fork-session, --resume-session-at) sends the model a result "
        f"for {each} that no result record holds"
    )


def _resumed(text: str) -> str:
    """The facet of a message the loop wrote itself on resuming, by its words (`RESUME_WORDS`)."""
    return INVENTED_ON_RESUME if text == RESUME_WORDS else NO_KNOWN_SHAPE


def _after_its_result(hook: HookRewrite, answered: Result) -> Violation:
    """HOOK-4: `hook`'s record is written after the result of the call it names."""
    message = (
        f"PreToolUse hook `{_hook_shown(hook.hook)}` is recorded for call {hook.call_id} after "
        f"that call's result (line {answered.line}): a PreToolUse hook answers before its call "
        "runs"
    )
    return Violation("HOOK-4", hook.line, message, (answered.line,))


def _hook_shown(hook: str) -> str:
    if len(hook) <= MAX_HOOK_SHOWN:
        return hook
    return hook[:_HOOK_SHOWN_START] + "..." + hook[_HOOK_SHOWN_START - MAX_HOOK_SHOWN :]


class _Pending:
    """A reply whose calls still await results."""

    __slots__ = ("line_of_call", "repeated", "reply", "waiting")

    def __init__(self, reply: Reply, waiting: list[str], line_of_call: dict[str, int]) -> None:
        self.reply = reply
        self.waiting = waiting
        self.line_of_call = line_of_call
        # Ids the reply repeated (EXE-1), once per repetition: a result for one is not a second
        # answer, and none is owed (results pair by id).
        self.repeated: list[str] = []

    def answered_repeats(self) -> list[str]:
        """Repeated ids whose first call has its result."""
        return [c for c in self.repeated if c not in self.waiting]


class _UnmadeHook:
    """A PreToolUse hook naming a call no reply had made when it was written. While a reply's
    calls await results (`running`) its hooks run, so the call is one of that reply's, in a
    later record of it; else it is the next reply's (the model audits a call's hooks before
    committing its reply), whose `key` and `line` the first record of that reply gives.
    `after`: the result of an earlier call with the hook's id, written before the hook's
    record, when that reply made the id anew may follow (a local model's `call_0`): the record
    is the new call's, written before its reply, if that reply makes the id, else the earlier
    call's, written after its result."""

    __slots__ = ("after", "hook", "key", "line", "running")

    def __init__(
        self, hook: HookRewrite, pending: _Pending | None, after: Result | None = None
    ) -> None:
        self.hook = hook
        self.after = after
        self.running = pending is not None and bool(pending.waiting)
        self.key = pending.reply.key if pending is not None and self.running else None
        self.line = pending.reply.line if pending is not None and self.running else None


class Judge:
    """Holds a stream of observations to the rules above; `feed` returns the violations."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        # Every call made with an id (a reply may repeat one: EXE-1), with its reply's line.
        self.calls: dict[str, list[tuple[Call, int]]] = {}
        self.open: _Pending | None = None
        self.rewrites: dict[str, list[HookRewrite]] = {}
        # Each call's result (the first: another is ADJ-2's), by id.
        self.answered: dict[str, Result] = {}
        # Calls already blamed for having no result (ADJ-3 at a later reply, REC-1 at a turn
        # start): a result written for one later is that same fault, not ADJ-2's too.
        self.abandoned: set[str] = set()
        # Calls already reported under RW-1: a hook record and what the result says ran tell
        # one story.
        self.rewritten: set[str] = set()
        # Ids of no call the log made, blamed at a record of their own, a run (RW-1) or a
        # result (ADJ-2), with which: the other of the pair only follows from the missing call,
        # and is not blamed again.
        self.uncalled: dict[str, Result | Executed] = {}
        # Per rule, how often the log held a situation in which a known divergence of that rule
        # shows when the loop has it (`SITUATIONS`), broken or not: `check --known` says a
        # divergence did not occur only where its situation came up.
        self.situations: dict[str, int] = {}
        # A prompt written while calls await: ADJ-1 if one of them is answered after it, REC-1
        # if the next reply comes first (a turn opened over a crash left unrepaired). Which one
        # the record after it says.
        self.held: Visible | None = None
        # A turn start (a rollout's task_started) while calls await, and the messages after it:
        # REC-1 if a reply comes before any of their results (a turn opened over a crash left
        # unrepaired); if a result comes first, the last turn's results were written late,
        # which a log with no turn-numbered events does not judge, and each message between
        # landed while the calls awaited them (ADJ-1).
        self.held_turn: TurnStart | None = None
        # A message of the loop's own (`Reply.invented`) while calls await: REC-1 unless a
        # result for one of them comes next.
        self.held_reply: Reply | None = None
        self.held_since: list[Visible] = []
        # PreToolUse hooks naming a call no reply had made yet (`_UnmadeHook`).
        self.unmade: list[_UnmadeHook] = []
        # Of those written after an earlier call's result, the ones a reply showed to be its
        # new call's (`_UnmadeHook.after`): being adopted by the reply being read, then adopted
        # (the same hook recorded again for the new call shows the first record was the
        # earlier call's after all).
        self.adopting: list[_UnmadeHook] = []
        self.adopted: list[_UnmadeHook] = []

    def _saw(self, rule: str) -> None:
        self.situations[rule] = self.situations.get(rule, 0) + 1

    def feed(self, observation: Observation) -> list[Violation]:
        """The violations `observation` commits (or a prompt held before it: `held`); each is
        at its own line."""
        if type(observation) is RolledBack:
            self._roll_back(observation.cut)
            return []
        if self.held_turn is not None:
            return self._after_held_turn(observation)
        if self.held_reply is not None:
            return self._after_held_reply(observation)
        held = self.held
        if held is None or isinstance(observation, (Executed, HookRewrite)):
            return self._feed(observation)  # what ran, a hook's answer: judged as they come
        self.held = None
        if isinstance(observation, Reply) and (
            self.open is None or self.open.reply.key != observation.key
        ):
            return self._prompt_opened(held) + self._feed(observation)
        if isinstance(observation, TurnStart):
            # The turn's start written after its prompt (records ordered by a time they share):
            # held as the prompt was, over the same calls, with the prompt as its message.
            self.held_turn = observation
            self.held_since.append(held)
            return []
        return self._landed(held) + self._feed(observation)

    def _roll_back(self, cut: int) -> None:
        """Take what the log holds from line `cut` on out of the history: calls made there
        await no result (a turn opened after it opens over none), a prompt or a turn start
        held there opened nothing."""
        if self.held is not None and self.held.line >= cut:
            self.held = None
        if self.held_turn is not None and self.held_turn.line >= cut:
            self.held_turn, self.held_since = None, []
        pending = self.open
        if pending is not None and all(pending.line_of_call[c] >= cut for c in pending.waiting):
            self.open = None

    def _after_held_turn(self, observation: Observation) -> list[Violation]:
        """`observation` after a turn start held while calls await (`held_turn`)."""
        turn = self.held_turn
        assert turn is not None
        if isinstance(observation, Visible):
            self.held_since.append(observation)
            return []
        pending = self.open
        answers = isinstance(observation, Result) and (
            pending is not None and observation.call_id in pending.waiting
        )
        if not answers and not isinstance(observation, (Reply, TurnStart, Invented)):
            return self._feed(observation)  # what ran, a hook's answer: judged as it comes
        self.held_turn = None
        since, self.held_since = self.held_since, []
        if answers:
            found = [v for visible in since for v in self._landed(visible)]
            return found + self._feed(observation)
        found = self._turn_start(turn.line, turn.what, TURN_STARTED_OVER_CALLS)
        for visible in since:
            found.extend(self._feed(visible))
        return found + self._feed(observation)

    def finish(self) -> list[Violation]:
        """What a prompt still held at the end of the log commits: it landed while calls
        awaited, and no reply followed it; a turn start held, that it opened a turn over calls
        a crash left without results; a hook naming a call no reply made, that it answered
        none."""
        return self._finish_held() + self._unmade_hooks(None)

    def _finish_held(self) -> list[Violation]:
        if self.held_reply is not None:
            reply, self.held_reply = self.held_reply, None
            return self._new_reply(reply, resumed=True)
        if self.held_turn is not None:
            turn, self.held_turn = self.held_turn, None
            since, self.held_since = self.held_since, []
            found = self._turn_start(turn.line, turn.what, TURN_STARTED_OVER_CALLS)
            for visible in since:
                found.extend(self._feed(visible))
            return found
        held, self.held = self.held, None
        return [] if held is None else self._landed(held)

    def _prompt_opened(self, prompt: Visible) -> list[Violation]:
        """REC-1: `prompt` opens a turn while calls await results, the next reply before any of
        them; in Claude Code's fork or rewind shape when its record names a call's as its
        parent (`Visible.forked_at`), or results of their reply (`Visible.among_results`)."""
        pending = self.open
        if pending is None or not (
            prompt.among_results or any(c in pending.waiting for c in prompt.forked_at)
        ):
            return self._turn_start(
                prompt.line, "a turn (a user's prompt)", PROMPT_OPENED_OVER_CALLS
            )
        if prompt.among_results:
            what = (
                f"a turn (a user's prompt whose parentUuid names line {prompt.parent_line}, "
                "a branch holding only the results written by then)"
            )
        else:
            shown = calls_awaiting(prompt.forked_at).partition(" await")[0]
            what = f"a turn (a user's prompt whose parentUuid names the record of {shown})"
        why = fork_words(len(pending.waiting))
        return self._turn_start(prompt.line, what, UNRECORDED_REPAIR_ON_FORK, why)

    def _landed(self, visible: Visible) -> list[Violation]:
        """ADJ-1: `visible` landed while the open reply's calls await their results."""
        if self.open is None or not self.open.waiting:
            return []
        lines = tuple(self.open.line_of_call[c] for c in self.open.waiting)
        message = f"{visible.what} lands while {calls_awaiting(self.open.waiting)}"
        facet = HOOK_CONTEXT_LANDED if visible.hook_context else NO_KNOWN_SHAPE
        return [Violation("ADJ-1", visible.line, message, lines, facet)]

    def _feed(self, observation: Observation) -> list[Violation]:
        match observation:
            case Reply():
                return self._reply(observation)
            case Result():
                return self._result(observation)
            case Visible(hook_context=hook_context, prompt=prompt):
                if hook_context:
                    self._saw("ADJ-1")
                if prompt and (observation.forked_at or (self.open and self.open.waiting)):
                    self._branch(observation)  # a branch may change what awaits results
                if prompt and self.open is not None and self.open.waiting:
                    self.held = observation
                    return []
                return self._landed(observation)
            case HookRewrite():
                return self._rewrite(observation)
            case Executed():
                return self._executed(observation)
            case Invented(
                text=text,
                repaired=(),
                line=line,
                repair_line=repair_line,
                replaced_line=int(replaced),
            ):
                message = (
                    f"the model's reply at line {replaced} to line {repair_line} is left off the "
                    f"branch the session resumes, and an assistant message it never wrote "
                    f"({_show(text)}) hangs from line {repair_line} in its place, sent to it as "
                    f"its own: {RESUMED_TURN}"
                )
                related = (repair_line, replaced)
                return [Violation("REC-1", line, message, related, _resumed(text))]
            case Invented(text=text, repaired=(), line=line, repair_line=repair_line):
                message = (
                    f"the model never replied to line {repair_line}, and an assistant message "
                    f"it never wrote ({_show(text)}) follows, sent to it as its own: "
                    f"{CUT_SHORT_TURN}"
                )
                return [Violation("REC-1", line, message, (repair_line,), _resumed(text))]
            case Invented(text=text, repaired=repaired, line=line, repair_line=repair_line):
                calls = (
                    f"call {repaired[0]}" if len(repaired) == 1 else f"calls {', '.join(repaired)}"
                )
                message = (
                    f"the crash repair of {calls} is followed by an assistant message the model "
                    f"never wrote ({_show(text)}): a repair adds results only"
                )
                return [Violation("REC-1", line, message, (repair_line,), _resumed(text))]
            case InventedAfterAbort(text=text, line=line, abort_line=abort_line, in_batch=True):
                message = (
                    f"after the interrupt at line {abort_line}, an assistant message the model "
                    f"never wrote ({_show(text)}) is sent to it as its own: an abort answers "
                    "the calls and ends the turn, adding no reply"
                )
                return [Violation("ABORT-1", line, message, (abort_line,), INVENTED_AFTER_ABORT)]
            case InventedAfterAbort(text=text, line=line, abort_line=abort_line):
                message = (
                    f"after the interrupt at line {abort_line}, which came before the model's "
                    f"reply ended, an assistant message the model never wrote ({_show(text)}) is "
                    "sent to it as its own: an interrupted reply keeps only the text the model "
                    "delivered"
                )
                return [Violation("ABORT-2", line, message, (abort_line,), INVENTED_AFTER_ABORT)]
            case TurnStart(line=line, what=what):
                if self.open is not None and self.open.waiting:
                    self.held_turn = observation
                    return []
                return self._turn_start(line, what, TURN_STARTED_OVER_CALLS)
            case RolledBack(cut=cut):
                self._roll_back(cut)
                return []
            case _:
                from typing import assert_never  # noqa: PLC0415 (never run: see the records)

                return assert_never(observation)

    def _branch(self, prompt: Visible) -> None:
        """Read the calls awaiting results as the branch `prompt` goes on says (Claude Code
        writes a rewind's branch on in the same file, the other branch's records left where
        they were): those whose record it hangs from (`Visible.forked_at`) await results on it,
        though the other branch answered them; calls of a reply written after the record it
        hangs from were never made on it, and await nothing."""
        pending = self.open
        waiting = pending.waiting if pending is not None else []
        forked = [c for c in prompt.forked_at if c in self.calls]
        cut = prompt.parent_line
        if prompt.among_results and cut is not None:
            # The calls of the reply written by that line, with no result written by then.
            answered = self.answered
            forked = [
                c
                for c in forked
                if self.calls[c][-1][1] <= cut and (c not in answered or answered[c].line > cut)
            ]
        if forked and set(forked) != set(waiting):
            line_of_call = {c: self.calls[c][-1][1] for c in forked}
            calls = tuple(self.calls[c][-1][0] for c in forked)
            first = min(line_of_call.values())
            reply = Reply(
                f"the reply at line {first}, on the branch of line {prompt.line}", calls, first
            )
            self.open = _Pending(reply, forked, line_of_call)
            for call_id in forked:
                # The other branch's result and blame are not this branch's.
                self.answered.pop(call_id, None)
                self.abandoned.discard(call_id)
        elif (
            not forked
            and pending is not None
            and waiting
            and prompt.parent_line is not None
            and prompt.parent_line < min(pending.line_of_call[c] for c in waiting)
        ):
            self.open = None  # the other branch's calls: never sent on this one

    def _reply(self, reply: Reply) -> list[Violation]:
        if self.open is not None and self.open.reply.key == reply.key:
            # A later record of the reply being written: its calls join the reply.
            return self._more_calls(self.open, reply)
        if self.open is not None and self.open.waiting and reply.invented is not None:
            # Claude Code resuming a session a crash cut while calls ran, without their repair,
            # unless a result for one of them comes next (`held_reply`): what it adds is no
            # model reply (ADJ-3 would say the model went on).
            self.held_reply = reply
            return []
        return self._new_reply(reply)

    def _after_held_reply(self, observation: Observation) -> list[Violation]:
        """`observation` after a message of the loop's own held while calls await: a result
        for one of them shows no crash came (the message is a reply like any, ADJ-3); anything
        else, a resume without the repair (REC-1)."""
        reply, self.held_reply = self.held_reply, None
        assert reply is not None
        pending = self.open
        if (
            isinstance(observation, Result)
            and pending is not None
            and observation.call_id in pending.waiting
        ):
            return self._new_reply(reply) + self._feed(observation)
        return self._new_reply(reply, resumed=True) + self._feed(observation)

    def _new_reply(self, reply: Reply, *, resumed: bool = False) -> list[Violation]:
        """A reply after the open one: ADJ-3 when calls of that one await results; REC-1 when
        it is a message of the loop's own (`resumed`: a resume without the repair)."""
        found: list[Violation] = []
        if self.open is not None and self.open.waiting:
            waiting = self.open.waiting
            lines = tuple(self.open.line_of_call[c] for c in waiting)
            if resumed:
                message = (
                    f"an assistant message the model never wrote ({_show(reply.invented)}) "
                    f"comes where {calls_awaiting(waiting, 'still')}, and no repair answered "
                    f"it: {CUT_SHORT_TURN}"
                )
                found.append(
                    Violation("REC-1", reply.line, message, lines, INVENTED_WITHOUT_REPAIR)
                )
            else:
                calls = (
                    f"call {waiting[0]} was"
                    if len(waiting) == 1
                    else f"calls {', '.join(waiting)} were"
                )
                message = f"a new model reply comes while {calls} never answered"
                found.append(Violation("ADJ-3", reply.line, message, lines))
            self.abandoned.update(waiting)
        self.open = _Pending(reply, [], {})
        return found + self._more_calls(self.open, reply)

    def _more_calls(self, pending: _Pending, reply: Reply) -> list[Violation]:
        found = self._unmade_hooks(reply) if self.unmade else []
        for call in reply.calls:
            if call.call_id in pending.line_of_call:
                message = f"the reply carries call id {call.call_id} twice"
                related = (pending.line_of_call[call.call_id],)
                # Each call its own record (line): how both CLIs write a reply's calls.
                own_record = related[0] != reply.line
                facet = REPEATED_CALL_ID if own_record else NO_KNOWN_SHAPE
                found.append(Violation("EXE-1", reply.line, message, related, facet))
                pending.repeated.append(call.call_id)
            else:
                pending.line_of_call[call.call_id] = reply.line
                pending.waiting.append(call.call_id)
                if call.call_id in self.calls:
                    self._forget(call.call_id)
                self.calls[call.call_id] = []
                early = self.uncalled.get(call.call_id) if self.uncalled else None
                if isinstance(early, Result):
                    # Its result came before it (ADJ-2 there): it answers the call, which is
                    # not blamed again (ORD-3 at a later result, ADJ-3 at the next reply).
                    del self.uncalled[call.call_id]
                    pending.waiting.remove(call.call_id)
                    self.answered[call.call_id] = early
            self.calls[call.call_id].append((call, reply.line))
        for unmade in self.adopting:
            self.rewrites.setdefault(unmade.hook.call_id, []).append(unmade.hook)
            self.adopted.append(unmade)
        self.adopting = []
        return found

    def _forget(self, call_id: str) -> None:
        """An earlier reply's call with the id a new call reuses: ids are unique only within a
        reply (EXE-1), and local models number each reply's calls anew (`call_0`), so what its
        hooks answered, its result and its blame are not the new call's."""
        self.rewrites.pop(call_id, None)
        self.adopted = [u for u in self.adopted if u.hook.call_id != call_id]
        self.answered.pop(call_id, None)
        self.abandoned.discard(call_id)
        self.rewritten.discard(call_id)

    def _unmade_hooks(self, reply: Reply | None) -> list[Violation]:
        """HOOK-4 for each hook naming a call its reply does not make, once a record of another
        reply shows that reply over (`reply`; None: the log ended)."""
        found = []
        kept = []
        for unmade in self.unmade:
            if reply is not None:
                if any(call.call_id == unmade.hook.call_id for call in reply.calls):
                    if unmade.after is not None:
                        self.adopting.append(unmade)  # once the reply's new call is made
                    continue
                if unmade.key is None:
                    unmade.key, unmade.line = reply.key, reply.line  # the next reply's, then
                if unmade.key == reply.key:
                    kept.append(unmade)
                    continue
            if unmade.after is not None:
                # No reply made the id anew: the earlier call's hook, recorded after its result.
                found.extend(self._hook_answers(unmade.hook))
                continue
            self.rewrites[unmade.hook.call_id].remove(unmade.hook)
            if unmade.line is None:
                whose = "no reply makes before the log ends"
            elif unmade.running:
                whose = f"the reply being run (line {unmade.line}) does not make"
            else:
                whose = f"the next reply (line {unmade.line}) does not make"
            hook = unmade.hook
            message = (
                f"PreToolUse hook `{_hook_shown(hook.hook)}` answers call {hook.call_id}, which "
                f"{whose}: a PreToolUse hook answers a call of its step's reply"
            )
            related = () if unmade.line is None else (unmade.line,)
            found.append(Violation("HOOK-4", hook.line, message, related))
        self.unmade = kept
        return found

    def _result(self, result: Result) -> list[Violation]:
        pending = self.open
        if pending is not None and result.call_id in pending.answered_repeats():
            # The loop ran a repeated id's call too: EXE-1 already names the reply.
            pending.repeated.remove(result.call_id)
            return self._ran_rewrite(result, result.line)
        if pending is None or result.call_id not in pending.waiting:
            if result.call_id in self.abandoned:
                # Written late: ADJ-3 (or REC-1) already named the call left without it.
                self.abandoned.discard(result.call_id)
                self.answered.setdefault(result.call_id, result)
                return self._ran_rewrite(result, result.line)
            first = self.answered.get(result.call_id)
            if first is not None:
                message = f"a result for call {result.call_id}, which is already answered"
                return [Violation("ADJ-2", result.line, message, (first.line,))]
            if result.call_id not in self.calls:
                if isinstance(self.uncalled.pop(result.call_id, None), Executed):
                    return []  # its run was blamed for having no call (RW-1)
                self.uncalled[result.call_id] = result
            message = f"a result for call {result.call_id}, which is not awaited"
            return [Violation("ADJ-2", result.line, message)]
        found = []
        position = pending.waiting.index(result.call_id)
        if position > 0:
            earlier = ", ".join(pending.waiting[:position])
            message = (
                f"the result for call {result.call_id} is written before the results for "
                f"{earlier}, which the model called first"
            )
            lines = tuple(pending.line_of_call[c] for c in pending.waiting[:position])
            facet = RESULT_BEFORE_EARLIER_CALLS if result.names_its_call else NO_KNOWN_SHAPE
            found.append(Violation("ORD-3", result.line, message, lines, facet))
        pending.waiting.remove(result.call_id)
        if not pending.waiting and len(pending.line_of_call) > 1:
            self._saw("ORD-3")
        self.answered[result.call_id] = result
        found.extend(self._ran_rewrite(result, result.line))
        found.extend(self._ran_non_object(result))
        return found

    def _ran_non_object(self, result: Result) -> list[Violation]:
        """HOOK-6 at a success `result`: every PreToolUse hook of its call that supplied an
        input supplied one that is no JSON object, and none denied it, so the input in effect
        (the last in configured order, which the log does not record) is no object, which
        denies the call. A call whose hooks supplied an object too is not judged (which ran
        last the log does not say)."""
        rewrites = self.rewrites.get(result.call_id)
        if not rewrites or result.refused or result.failed or any(r.denied for r in rewrites):
            return []  # (a success despite a deny is DEC-1's, which these logs do not show)
        supplied = [
            r for r in rewrites if r.updated_input is not None or r.non_object_input is not None
        ]
        if not supplied or any(r.non_object_input is None for r in supplied):
            return []
        last = supplied[-1]
        given = last.non_object_input
        kinds = {list: "an array", str: "a string", bool: "a boolean"}
        kind = kinds.get(type(given), "a number")
        message = (
            f"hook `{_hook_shown(last.hook)}` supplied an input for {result.call_id} that is "
            f"{kind}, {spelled(given)}, yet its result reports success: an input in effect "
            "that is not a JSON object denies the call, with a reason naming the hook, and the "
            "call never runs"
        )
        return [Violation("HOOK-6", result.line, message, (last.line,), NON_OBJECT_INPUT_RAN)]

    def _rewrite(self, rewrite: HookRewrite) -> list[Violation]:
        pending = self.open
        answered = self.answered.get(rewrite.call_id)
        if answered is not None and (
            pending is None or not pending.waiting or rewrite.call_id not in pending.line_of_call
        ):
            # Written after its call's result, outside the reply being run: the next reply may
            # make the id anew (local models number each reply's calls `call_0` on), and a hook
            # written before its reply is that reply's call's (`_UnmadeHook.after`).
            self.unmade.append(_UnmadeHook(rewrite, pending, answered))
            return []
        if rewrite.call_id not in self.calls:
            self.unmade.append(_UnmadeHook(rewrite, pending))
        return self._hook_answers(rewrite)

    def _hook_answers(self, rewrite: HookRewrite) -> list[Violation]:
        """HOOK-4 for a hook's record answering its call again or after the call's result."""
        found = []
        earlier = self.rewrites.setdefault(rewrite.call_id, [])
        again = [r for r in earlier if r.hook == rewrite.hook]
        answered = self.answered.get(rewrite.call_id)
        late = [u for u in self.adopted if again and u.hook is again[0] and u.after is not None]
        if late and late[0].after is not None:
            # The record before this call's reply, taken for this call, was the earlier call's,
            # written after its result: this one, in its place, is this call's.
            earlier.remove(late[0].hook)
            self.adopted.remove(late[0])
            found.append(_after_its_result(late[0].hook, late[0].after))
        elif again:
            # One record out of place, blamed once: a second answer, late too where it is.
            shown = _hook_shown(rewrite.hook)
            lines = tuple(r.line for r in again)
            message = f"PreToolUse hook `{shown}` answers call {rewrite.call_id} again"
            if answered is not None:
                first = ", ".join(str(line) for line in lines)
                message += (
                    f" (line {first}), after that call's result (line {answered.line}): a "
                    "PreToolUse hook answers once per call, before its call runs"
                )
                lines += (answered.line,)
            found.append(Violation("HOOK-4", rewrite.line, message, lines))
        earlier.append(rewrite)
        if answered is not None:
            # A PreToolUse hook answers before its call runs: recorded after the call's result,
            # the record is out of place; what it supplied is still held to RW-1.
            if not again:
                found.append(_after_its_result(rewrite, answered))
            if rewrite.call_id not in self.rewritten:
                found.extend(self._ran_rewrite(answered, rewrite.line))
        return found

    def _ran_rewrite(self, result: Result, line: int) -> list[Violation]:
        """RW-1 from a hook record, at `line` (the result's, or a hook record's written after
        it): the call ran (it has a result, neither a hook nor the permission check refused it),
        and a hook's `updatedInput` differs from what the history and the call record hold."""
        known = self.calls.get(result.call_id)
        rewrites = self.rewrites.get(result.call_id, [])
        if not known or not rewrites or result.refused or any(r.denied for r in rewrites):
            return []
        call, call_line = known[0]
        applied = [
            r
            for r in rewrites
            if r.updated_input is not None
            and not any(self.dialect.same_input(c, r.updated_input) for c, _ in known)
        ]
        if not applied:
            return []
        last = applied[-1]
        self.rewritten.add(call.call_id)
        message = (
            f"call {call.call_id} ran with the input that hook `{_hook_shown(last.hook)}` supplied "
            f"({_show(last.updated_input)}), but the model history and the log's call record "
            f"keep the model's input ({_show(call.arguments)})"
        )
        related = (last.line, call_line) if line == result.line else (result.line, call_line)
        return [Violation("RW-1", line, message, related, RAN_HOOK_INPUT)]

    def _executed(self, executed: Executed) -> list[Violation]:
        known = self.calls.get(executed.call_id)
        if not known and executed.own_record:
            if isinstance(self.uncalled.pop(executed.call_id, None), Result):
                return []  # its result was blamed for answering no call (ADJ-2)
            # A body ran for no call the history holds: no reader but the tool has its input.
            self.uncalled[executed.call_id] = executed
            message = (
                f"a command ran as call {executed.call_id} ({_show(executed.ran)}), which no "
                "call before it in the log makes: neither the model history nor the log's call "
                "record holds what ran"
            )
            return [Violation("RW-1", executed.line, message, (), RAN_FOR_NO_CALL)]
        if not known or any(self.dialect.same_input(c, executed.ran) for c, _ in known):
            return []
        if executed.call_id in self.rewritten:
            return []
        call, call_line = known[0]
        message = (
            f"call {call.call_id} ran {_show(executed.ran)}, but the model history and the "
            f"log's call record keep {_show(call.arguments)}"
        )
        # Where the log records hooks' input, another input no hook's record answers is no
        # hook's rewrite (one whose updatedInput ran is `_ran_rewrite`'s).
        recorded = self.dialect.rewrites_are_recorded and not executed.hook_decided
        facet = RAN_UNHOOKED_INPUT if recorded else RAN_OTHER_INPUT
        found = [Violation("RW-1", executed.line, message, (call_line,), facet)]
        hooked = any(r.updated_input is not None for r in self.rewrites.get(call.call_id, []))
        if not self.dialect.rewrites_are_recorded and not hooked:
            message = (
                f"call {call.call_id} ran another input than the model's, and no record says "
                "which hook supplied it"
            )
            found.append(
                Violation("RW-2", executed.line, message, (call_line,), RAN_UNRECORDED_REWRITE)
            )
        return found

    def _turn_start(self, line: int, what: str, facet: str, why: str = "") -> list[Violation]:
        """REC-1: the turn before ended (a crash, when its calls still await results) and this
        one starts without the repair that answers them. They are closed here, so the messages
        and the reply that follow are not blamed on ADJ-1 and ADJ-3 as well. Worded as a dsh
        log's (`turns_numbered_and_unnested`), in the rollout's own terms; `facet` says what
        started it (a turn's start record, or a prompt alone)."""
        if self.open is None or not self.open.waiting:
            return []
        waiting = self.open.waiting
        lines = tuple(self.open.line_of_call[c] for c in waiting)
        message = f"{what} starts, where {calls_awaiting(waiting, 'still')}{UNREPAIRED_TURN}{why}"
        self.abandoned.update(waiting)
        self.open = None
        return [Violation("REC-1", line, message, lines, facet)]

    def open_calls(self) -> list[tuple[str, int]]:
        """Calls still awaiting results, with the line of their reply."""
        if self.open is None:
            return []
        return [(c, self.open.line_of_call[c]) for c in self.open.waiting]


# ---------------------------------------------------------------------------------------------
# Reading a foreign log.


class _Stop(Exception):
    """The log cannot be read further; the report says why."""


def bounded_lines(
    report: LogReport, stream: BinaryIO, limits: Limits
) -> Iterator[tuple[int, bytes]]:
    """Each line of `stream` that is not blank, with its number (counted in `report.lines`); an
    input error (SAFE-4), then `_Stop`, at a line longer than `limits` allows or nested deeper
    than check reads on every Python (`checker.MAX_LOG_DEPTH`)."""
    size = limits.max_line_bytes + 1
    line = 0
    while raw := stream.readline(size):
        line += 1
        report.lines = line
        if len(raw) == size and not raw.endswith(b"\n"):
            report.fail(line, ErrorKind.LINE_TOO_LONG, too_long_words(limits), "SAFE-4")
            RestOfLog(stream.readline).skip_line()
            raise _Stop
        if len(raw) > DEPTH_FREE_CHARS and nested_deeper(raw) and not value_cut_short(raw):
            # (One cut short is a torn write at any depth: its reader says so.)
            report.fail(line, ErrorKind.INVALID_JSON, TOO_DEEP_WORDS, "SAFE-4")
            raise _Stop
        if raw.strip():
            yield line, raw


def _records(
    report: LogReport, stream: BinaryIO, limits: Limits, loop: str
) -> Iterator[tuple[int, bytes, Any]]:
    for line, raw in bounded_lines(report, stream, limits):
        try:
            record = _record_of(raw)
        except (ValueError, RecursionError) as error:
            from loopspec.properties.logcheck.unreadable_lines import (  # noqa: PLC0415 (such a line)
                not_utf8_words,
                torn_line_words,
                torn_write,
            )

            if torn_write(raw, error):
                # What a crash leaves: resuming the session, the CLI skips the line (Claude Code
                # 2.1.332 and Codex 0.171.0 were seen to) and writes on after it, so such a line
                # may stand anywhere in the log, and nothing it held is in the session.
                message = (
                    f"{torn_line_words(raw, line)}: a write a crash cut off, which {loop} skips "
                    "when it reads the log to resume the session; check skips it too"
                )
                report.notices.append(Notice(line, NoticeKind.TORN_COMMIT, message, "LOG-8"))
                continue
            if isinstance(error, UnicodeDecodeError):
                message = not_utf8_words(raw, error)
                report.fail(line, ErrorKind.INVALID_UTF8, message)
            elif raw.startswith(b"\xef\xbb\xbf"):  # (json's words: "decode using utf-8-sig")
                message = (
                    f"the line starts with a UTF-8 byte order mark (BOM), which {loop} never "
                    "writes: a tool that saved or joined the file added it; write it back as "
                    "plain UTF-8"
                )
                report.fail(line, ErrorKind.INVALID_JSON, message)
            elif isinstance(error, _json_decode_error()):
                # Worded as a dsh log's: Python's "line 1 column 1 (char 0)" counts within the
                # line, whose number in the file is another.
                message = f"invalid JSON at column {error.colno}: {error.msg}"
                report.fail(line, ErrorKind.INVALID_JSON, message)
            else:
                report.fail(line, ErrorKind.INVALID_JSON, f"invalid JSON: {json_refusal(error)}")
            raise _Stop from None
        yield line, raw, record


class _Repeats:
    """The lines that give an earlier record's id (`Dialect.identity`). Claude Code 2.1.332,
    resuming a session, reads one record per `uuid`, the last written (observed 2026-12-05: a
    record written twice, next to itself or at the end of the file, was sent to the model once;
    one written again with other content, the later content, wherever it stood). A line that
    repeats the last record of its id whole, every byte, is set aside, so check reads it once;
    one with other content is read as the record it is, so the rules judge it, and noted: the
    session's next request sends it in place of what the model was sent (LOG-3: a value that
    changes after it was logged makes the log lie)."""

    def __init__(self, identity: str, loop: str) -> None:
        self.identity = identity
        self.loop = loop
        # Each id's last line and a hash of its bytes: a line is compared only with the one
        # whose id it gives, so a hash equal by chance is as good as never met.
        self.last: dict[str, tuple[int, int]] = {}
        self.repeated: list[tuple[int, int]] = []  # (line, the line it repeats)
        self.rewritten: list[tuple[int, int]] = []  # (line, the line whose record it replaces)

    def whole_again(self, record: Mapping[str, Any], raw: bytes, line: int) -> bool:
        """Whether `record`, at `line`, repeats the last record of its id whole (then noted:
        one with other content is noted too, and read)."""
        identity = record.get(self.identity)
        if not isinstance(identity, str):
            return False
        # The last line may lack its newline: the same record all the same.
        fingerprint = hash(raw if raw.endswith(b"\n") else raw + b"\n")
        last = self.last.get(identity)
        if last is not None and last[1] == fingerprint:
            self.repeated.append((line, last[0]))
            return True
        if last is not None:
            self.rewritten.append((line, last[0]))
        self.last[identity] = (line, fingerprint)
        return False

    def notices(self) -> list[Notice]:
        """One notice for the lines set aside, one for those with other content, each at the
        first such line."""
        found = []
        if self.repeated:
            message = (
                "is line {first} written again, {identity} and all: {loop} reads one record per "
                "{identity} when it resumes the session, so check reads it once"
            )
            found.append(self._notice(self.repeated, NoticeKind.REPEATED_RECORD, message, None))
        if self.rewritten:
            message = (
                "gives the {identity} of line {first} with other content: resuming the session, "
                "{loop} sends the model the later record in place of the one it was sent; check "
                "reads both"
            )
            found.append(
                self._notice(self.rewritten, NoticeKind.REWRITTEN_RECORD, message, "LOG-3")
            )
        return found

    def _notice(
        self, lines: list[tuple[int, int]], kind: str, words: str, rule: str | None
    ) -> Notice:
        (line, first), *more = lines
        said = words.format(first=first, identity=self.identity, loop=self.loop)
        message = f"line {line} {said}"
        if more:
            shown = ", ".join(str(again) for again, _ in more[:_REPEATS_SHOWN])
            rest = ", ..." if len(more) > _REPEATS_SHOWN else ""
            message += f"; so do {len(more)} more line(s): {shown}{rest}"
        return Notice(line, kind, message, rule, line)


# How many more repeating lines the notice of `_Repeats` names.
_REPEATS_SHOWN = 5


def _record_of(raw: bytes) -> object:
    """`loads_refusing(raw.decode(), _not_json)`, save that a line without its newline (the log's
    last) that json's scanner cannot read raises a ValueError of no words: `torn_write` finds it
    torn whatever json would say, and json (with the re, enum and collections it imports) is not
    imported to say it. A text naming NaN or Infinity is left to `loads_refusing`, which refuses
    what json's scanner reads."""
    text = raw.decode()
    if raw.endswith(b"\n") or "NaN" in text or "Infinity" in text:
        return loads_refusing(text, _not_json)
    try:
        record = value_of(text)
    except RecursionError:  # left to json, as `loads` leaves it
        return loads_refusing(text, _not_json)
    if record is NOT_JSON:
        raise ValueError("a last line json's scanner cannot read")
    return record


def _json_decode_error() -> type[json.JSONDecodeError]:
    """json's error for a text that is no JSON (json was imported to word it: `loads`)."""
    import json  # noqa: PLC0415 (only for a line in error)

    return json.JSONDecodeError


def _not_json(name: str) -> object:
    # NaN and Infinity are no JSON: the CLI's own reader (JSON.parse, serde_json) refuses the
    # line, so check does not read a record the CLI never could.
    raise ValueError(f"{name} is not JSON")


def check_foreign(path: str, stream: BinaryIO, limits: Limits, dialect: Dialect) -> LogReport:
    """Check one Claude Code transcript or Codex rollout; never raises on bad input."""
    report = LogReport(path)
    report.dialect = dialect.name
    report.not_checkable = dict(dialect.not_checkable)
    report.checked_in_part = dict(dialect.checked_in_part)
    judge = Judge(dialect)
    loop = _LOOP_NAMES.get(dialect.name, dialect.name)
    # Made at the first hook fault: a log with none is checked without `hook_faults`.
    hook_runs: HookRuns | None = None
    repeats = None if dialect.identity is None else _Repeats(dialect.identity, loop)
    try:
        for line, raw, record in _records(report, stream, limits, loop):
            if not isinstance(record, dict):
                message = f"a {dialect.name} record must be a JSON object"
                report.fail(line, ErrorKind.BAD_EVENT, message)
                raise _Stop
            if repeats is not None and repeats.whole_again(record, raw, line):
                continue
            report.events += 1
            try:
                observations = list(dialect.observe(record, line))
            except RecordError as error:
                report.fail(line, ErrorKind.BAD_EVENT, f"a {dialect.name} record: {error}")
                raise _Stop from None
            for observation in observations:
                if isinstance(observation, HookFailed):
                    if hook_runs is None:
                        hook_runs = _hook_runs(loop)
                    hook_runs.see(
                        observation.hook,
                        observation.word,
                        observation.summary,
                        call_id=observation.call_id,
                        line=line,
                    )
                    continue
                for found in judge.feed(observation):
                    report.record(found.seq, [found], limits)
    except _Stop:
        report.lines_unread = lines_follow(RestOfLog(stream.readline))
        _notes(report, hook_runs, repeats)
        return report
    except OSError as error:
        report.fail(report.lines + 1, ErrorKind.UNREADABLE, str(error))
        _notes(report, hook_runs, repeats)
        return report
    for found in judge.finish():
        report.record(found.seq, [found], limits)
    _notes(report, hook_runs, repeats)
    report.situations = judge.situations
    if report.events == 0:
        report.fail(None, ErrorKind.EMPTY, "the log is empty")
    waiting = judge.open_calls()
    if waiting:
        awaiting = calls_awaiting([call for call, _ in waiting], still="still")
        message = f"{awaiting} at the end of the log: a crash tail"
        line = waiting[0][1]
        report.notices.append(Notice(line, NoticeKind.CRASH_TAIL, message, "REC-2", line))
    return report


def _hook_runs(loop: str) -> HookRuns:
    """The tally of `loop`'s hook faults in one log."""
    from loopspec.properties.logcheck.hook_faults import HookRuns  # noqa: PLC0415 (see above)

    # Only some runs are recorded (a Claude Code hook that printed nothing leaves no record).
    return HookRuns(runs_known=False, loop=loop)


def _notes(report: LogReport, hook_runs: HookRuns | None, repeats: _Repeats | None) -> None:
    """The notices of the lines read: hook faults, records given again (`_Repeats`)."""
    _note_hook_faults(report, hook_runs)
    if repeats is not None:
        report.notices.extend(repeats.notices())


def _note_hook_faults(report: LogReport, hook_runs: HookRuns | None) -> None:
    """A notice per hook that failed in the lines read, as `check` notes one in a dsh log: a
    fault breaks no rule, but "0 violations" alone would tell the hook's author all went well."""
    if hook_runs is None:
        return
    for first, message in hook_runs.notes():
        notice = Notice(first.line, NoticeKind.HOOK_FAULT, message, "HOOK-7", first.line)
        report.notices.append(notice)
