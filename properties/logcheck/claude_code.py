"""The Claude Code transcript dialect (`~/.claude/projects/<project>/<session>.jsonl`).

Records read (every other type — `queue-operation`, `api-request*`, `cost-state`, ... — carries
nothing the rules read):

- `assistant`: one content block per record; the records of one reply share `message.id`, and
  the `requestRef` of its request where the CLI wrote one (two replies a server gave one id are
  two replies; a record holding two calls of one id is no CLI's writing: `check --known
  claude-code` sets EXE-1 aside only where each call is a record of its own). A `tool_use`
  block is a call (`id`, `name`, `input`): what the model history and the transcript's call
  record hold. Text of a new reply is model-visible. A record marked
  `isApiErrorMessage` (model `<synthetic>`: "API Error: ...", written when a request fails or
  the stream breaks) is shown to the user and never sent to the model: it is no reply (that
  the transcript holds it is the HIST-1 divergence `loopspec run` and `conform` report). Another
  record of model `<synthetic>` is sent to the model as its own: written right after a crash
  repair (below), or right after a user record the model never answered (no call awaited a repair;
  a crash, or a failed request or an interrupt whose mark the transcript lacks, cut the turn while
  the model was asked, and the report does not guess which), it breaks REC-1 (a turn cut short
  closes adding no reply); written after an interrupt's notice (`No response requested.`, on
  resuming), ABORT-1 (an abort adds no reply) when the notice says the interrupt came during the
  calls (`... for tool use]`), else ABORT-2 (it cut the model's reply short, which keeps only what
  the model delivered); written while a call awaits its result, with none of those before it,
  REC-1 (a turn cut short left without the repair) unless that call's result follows it (then it
  is read as a reply: ADJ-3). One marked `closesQuietTurn` is not judged.
- `user`: `message.content` a string (the user's prompt: model-visible) or blocks; each
  `tool_result` block (`tool_use_id`) is a result, in the order written. Claude Code names the
  record of the call each result answers (`sourceToolAssistantUUID`), which a converter
  plausibly drops: `check --known claude-code` sets ORD-3 aside only for a result so named.
  Text blocks that ride with results belong to the result message; without results they are a
  user message. One
  marked `isCompactSummary` is a compaction's summary: model-visible, opening no turn. The
  record's `permissionDecision.decision` is `reject` when the permission check (or a hook)
  turned the call down: it never ran, whatever input a hook supplied. A PreToolUse hook that
  denies (in JSON, by a legacy block or by exit 2) leaves no record of its own: the denial shows
  only here (`source` `hook`, `reasonCode` `hook:PreToolUse`, the winning reason after
  `PreToolUse:<tool> hook error: ` in the result's text), not which hook gave it (2.1.332,
  observed offline 2026-12-06). Its `toolUseResult` says
  what a `Write` (`filePath`, `content`) or an `Edit` (`filePath`, `newString`, `replaceAll`)
  did: what ran, compared with the call (a PermissionRequest hook's `updatedInput` runs, and
  only its decision is recorded, an `attachment` of `hookEvent` PermissionRequest naming the
  call, written just before the result, whose `permissionDecision.source` is then `hook`:
  `check --known claude-code` sets aside another input run only for a call a hook's record
  answers; a Bash result records no command, so such a hook's rewrite of a Bash call is not
  seen). An Edit's `oldString` is the text the tool matched, which
  may differ from the call's (it matches straight quotes to curly ones), so it is not compared;
  a result the user modified is skipped. `toolDenialKind` `interrupted` marks the repair
  result Claude Code writes on resume for a call a crash left without one. A user message of
  text alone starting `[Request interrupted by user` is the notice an interrupt (Ctrl-C,
  Escape) writes last in the turn it ends.
- `attachment` of type `hook_success` with `hookEvent` PreToolUse: `toolUseID`, `hookName`,
  `command` and the hook's raw `stdout`, whose `hookSpecificOutput.updatedInput` is the input the
  hook supplied (Claude Code runs it: the observed behaviour of 2.1.332; an Edit's input without
  `replace_all` is the call's when the call's is false, the default 2.1.332 records where the
  model left it out, and a file tool's input naming the call's file by its absolute path is the
  call's, the relative path the model gave resolved against the record's `cwd`, as 2.1.332
  hands its hooks that path). That attachment,
  `hook_non_blocking_error` and `hook_cancelled` also show a hook's own fault (a crash, broken
  JSON, a timeout: HOOK-7), noted, never a violation (`claude_code_hooks`). Other attachments
  are folded by Claude Code into the next user message and are not judged.
- A prompt's `parentUuid` says which branch it goes on (a rewind, `--resume-session-at`, writes
  one on in the same file, the other branch's records left where they were): the calls of the
  records it hangs from, back to the last user record, await results on that branch whatever
  the other branch wrote (forked or rewound at a call not yet answered, Claude Code sends the
  model a result no result record holds: REC-1); calls made after the record it hangs from were
  never made on it (`harness_logs.Judge._branch`). Hung from a record of results (each hangs
  from its own call's record), the branch holds the calls of their reply and the results
  written up to the record it hangs from, as Claude Code reads it: a call whose result came
  later awaits one on it (the same REC-1).
- Claude Code reads one record per `uuid` when it resumes, the last written: a record whose
  `uuid` and every byte the last of that `uuid` has is read once, and one with other content is
  noted (`harness_logs._Repeats`).
- Records marked `isSidechain` belong to a subagent's conversation. A log holds one
  conversation, the one its first message belongs to: in a main transcript the subagent records
  Claude Code wrote inline are skipped; a subagent's own transcript
  (`<session>/subagents/agent-*.jsonl`, every record marked) is judged as that conversation.
"""

from __future__ import annotations

import posixpath  # (loaded with the interpreter, as os.path)

# collections.abc's own source, loaded with the interpreter: collections.abc, and typing, import
# collections and re, several times the interpreter's start (tests/test_check_startup.py)
from _collections_abc import Mapping

from loopspec.model.json_text import loads, same_json
from loopspec.properties.logcheck.claude_code_hooks import hook_fault
from loopspec.properties.logcheck.harness_logs import (
    Call,
    Dialect,
    Executed,
    HookFailed,
    HookRewrite,
    Invented,
    InventedAfterAbort,
    Observation,
    Record,
    Reply,
    Result,
    Visible,
    record_id,
)

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: see above
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

NAME = "claude-code"

# How a hook command `loopspec run --harness` wrapped for its audit names its hook
# (`hook_audit.HOOK_VARIABLE`, assigned; a test holds them equal): a transcript's own hooks are
# named without importing the audit's wrapper, and the package of the harness driver with it.
WRAPPED_HOOK_MARK = "LOOPSPEC_HOOK="

# The parent `_Reader.placed` gives a user record: a prompt's branch is walked back no further.
_USER = object()

# The model an assistant record names when Claude Code wrote it itself, not the model.
SYNTHETIC_MODEL = "<synthetic>"

# How the user message an interrupt writes begins (`[Request interrupted by user]`, `... for tool
# use]`): the same prefix `properties.harnesses.cli_wire` waits for, spelt here so check does not
# import the harness driver.
ABORT_NOTICE = "[Request interrupted by user"
# How that notice begins when the interrupt came while the reply's calls ran (or their hooks):
# the plain notice is an interrupt of the model's reply (ABORT-2's).
BATCH_ABORT_NOTICE = ABORT_NOTICE + " for tool use"

_NO_EVENTS = "the transcript has no turn or step events"
_NO_SEQ = "the transcript has no seq: records form a tree by uuid/parentUuid"
NOT_CHECKABLE = {
    "LOG-1": _NO_SEQ,
    "LOG-2": "the transcript has no surface operations",
    "LOG-7": "the transcript records no surface replacements",
    "TURN-1": _NO_EVENTS,
    "TURN-2": _NO_EVENTS,
    "TURN-3": _NO_EVENTS,
    "STEP-1": _NO_EVENTS,
    "STEP-2": _NO_EVENTS,
    "STEP-3": _NO_EVENTS,
    "ADJ-4": "no record marks where a step begins, so not whether a message waited for one",
    "ORD-1": "each content block is its own record; no record marks a reply's end",
    "ORD-2": "the transcript has no call record apart from the reply's tool_use block",
    "RW-2": (
        "the hook_success attachments keep every hook's output, but nothing records which "
        "supplied input was applied"
    ),
    "RW-3": "hooks run after the reply is written; the transcript has no commit units",
    "RW-4": "headless runs ask no approval; approval prompts are not recorded",
    "HOOK-1": "only finished hooks are recorded (hook_success); invocations are not",
    "HOOK-3": (
        "the transcript records neither the configured hook order nor which supplied input ran"
    ),
    "HOOK-5": (
        "only hooks that printed something or failed are recorded (hook_success), so not every "
        "PostToolUse hook's run, nor which result it judged"
    ),
    "DEC-1": (
        "a denying PreToolUse hook leaves no record of its own: its denial shows only as its "
        "call's result (permissionDecision source hook), which is read as the call refused, so "
        "no result is held to a hook's deny"
    ),
    "DEC-2": "approval requests and answers are not recorded",
    "ABORT-3": "approval requests and answers are not recorded",
    "EXE-2": "a tool_use block's input is written as a JSON object, so no call's is another value",
}
CHECKED_IN_PART = {
    "RW-1": (
        "a PreToolUse hook's updatedInput, and what a Write's or an Edit's result records it "
        "ran; the input a PermissionRequest hook's allow supplies runs and is recorded nowhere "
        "(2.1.332 records its decision alone), so its rewrite of a call whose result does not "
        "record what ran, a Bash command's, is not seen"
    ),
    "HOOK-6": (
        "only an input that is no JSON object, the one every hook that supplied an input for a "
        "call supplied (the transcript records no configured order, so not which of several "
        "was in effect); a missing key or a value of another type is not seen, the transcript "
        "not recording what the tool requires"
    ),
    "ABORT-1": (
        "only an assistant message Claude Code writes itself (model <synthetic>) after an "
        "interrupt's notice, which the next request carries as the model's; the transcript does "
        "not record which calls ran when the abort landed"
    ),
    "ABORT-2": (
        "only an assistant message Claude Code writes itself (model <synthetic>) after an "
        "interrupt that cut the model's reply short, which the next request carries as the "
        "model's; the transcript does not mark which of the reply's text was delivered"
    ),
}


class _Reader:
    """Turns records into observations; remembers the reply being written."""

    def __init__(self) -> None:
        self.reply_id: str | None = None
        # Each call's tool name and input, by id: what a file tool's result is compared with.
        self.inputs: dict[str, tuple[str, Any]] = {}
        # The folder each call was made in (its record's `cwd`), by id: where a file tool runs a
        # relative path (`same_input`).
        self.cwd_of_call: dict[str, str] = {}
        # Whether the log's conversation is a subagent's: set by its first message.
        self.sidechain: bool | None = None
        # The calls and line of the crash repair records just read (REC-1), until the
        # next user or assistant record.
        self.repair: tuple[tuple[str, ...], int] | None = None
        # The line of the interrupt notice just read (ABORT-1, ABORT-2), until the next prompt
        # or reply, and whether the interrupt came while the reply's calls ran (ABORT-1's).
        self.abort_line: int | None = None
        self.abort_in_batch = False
        # The line of the last user record (a prompt, results), until a reply follows it: a
        # message of Claude Code's own there resumes a turn a crash cut before the reply (REC-1).
        self.unreplied: int | None = None
        # The line of the model's first reply to each user record it replied to, by the user
        # record's line: a message of Claude Code's own hung from such a record takes that
        # reply's place on the branch the session resumes (REC-1).
        self.replied: dict[int, int] = {}
        # Calls a PermissionRequest hook decided (an attachment naming the call): its
        # updatedInput runs unrecorded, so a file tool's result recording another input than
        # the call's is that hook's rewrite (RW-1 as Claude Code is known to break it).
        self.permission_decided: set[str] = set()
        # The calls of each assistant record, by its uuid, with the calls of its whole reply (one
        # list per reply, which its records share): a result Claude Code wrote names the record
        # of its call (`sourceToolAssistantUUID`), and a branch from a result holds its reply.
        self.calls_of_record: dict[str, tuple[tuple[str, ...], list[str]]] = {}
        # The calls of the last reply that made some, and its key.
        self.reply_calls: list[str] = []
        self.calls_key: str | None = None
        # The line of the last record of results.
        self.results_line = 0
        # Each record's line and parent (`parentUuid`), by its uuid, the parent `_USER` for a
        # user record (a prompt, results), or for one of results its reply's calls: where the
        # record a prompt hangs from stands, and how far back its branch runs without a result
        # (`_forked_at`). Kept for every record: about 2% of a check of a transcript's
        # instructions (callgrind, 15,000 records).
        self.placed: dict[str, tuple[int, Any]] = {}

    def observe(self, record: Mapping[str, Any], line: int) -> Iterator[Record]:
        kind = record.get("type")
        sidechain = record.get("isSidechain") is True
        if self.sidechain is None and kind in ("user", "assistant"):
            self.sidechain = sidechain
        if sidechain != bool(self.sidechain):
            return  # another conversation's record
        message = record.get("message")
        uuid = record.get("uuid")
        parent = record.get("parentUuid")
        if isinstance(uuid, str):
            self.placed[uuid] = (line, _USER if kind == "user" else parent)
        repair = self.repair
        abort_line = self.abort_line
        unreplied = self.unreplied
        if kind in ("user", "assistant"):
            self.repair = None  # only the message right after a repair is read as its own
            self.abort_line = None  # nor after an interrupt
            # An API error notice answers the prompt too: resuming, Claude Code adds nothing.
            self.unreplied = line if kind == "user" else None
        if kind == "assistant" and isinstance(message, Mapping):
            if record.get("isApiErrorMessage") is True:
                return  # Claude Code's own error notice, not in any later request's history
            if unreplied is not None and message.get("model") != SYNTHETIC_MODEL:
                self.replied.setdefault(unreplied, line)
            invented = None
            # A quiet turn's close (`closesQuietTurn`) is no resume: not judged.
            if (
                message.get("model") == SYNTHETIC_MODEL
                and record.get("closesQuietTurn") is not True
            ):
                if repair is not None:
                    yield Invented(_text_of(message), repair[0], line, repair[1])
                elif abort_line is not None:
                    text = _text_of(message)
                    yield InventedAfterAbort(text, line, abort_line, self.abort_in_batch)
                elif unreplied is not None:
                    yield Invented(_text_of(message), (), line, unreplied)
                elif (hung := self._hung_beside_a_reply(parent)) is not None:
                    yield Invented(_text_of(message), (), line, *hung)
                else:
                    invented = _text_of(message)  # REC-1 where calls await results
            key = _reply_key(message, record.get("requestRef"), line)
            cwd = record.get("cwd")
            for observed in self._assistant(message, line, invented, record.get("uuid"), key):
                if isinstance(observed, Reply) and isinstance(cwd, str):
                    for call in observed.calls:
                        self.cwd_of_call[call.call_id] = cwd
                yield observed
        elif kind == "user" and isinstance(message, Mapping):
            content = message.get("content")
            said = content if isinstance(content, str) else _text_of(message)
            if said.startswith(ABORT_NOTICE):
                self.abort_line = line
                self.abort_in_batch = said.startswith(BATCH_ABORT_NOTICE)
            summary = record.get("isCompactSummary") is True
            source = record.get("sourceToolAssistantUUID")
            of_source = self.calls_of_record.get(source) if isinstance(source, str) else None
            named = () if of_source is None else of_source[0]
            # A prompt's branch: walked back only for a prompt, the one record forked from.
            prompt = isinstance(content, str)
            placed = self.placed.get(parent) if prompt and isinstance(parent, str) else None
            parent_line = None if placed is None else placed[0]
            forked_at, among_results = (
                self._forked_at(parent, parent_line) if prompt else ((), False)
            )
            results = list(
                _user(
                    content,
                    line,
                    _refused(record),
                    summary,
                    named,
                    forked_at=forked_at,
                    parent_line=parent_line,
                    among_results=among_results,
                )
            )
            yield from results
            if results and not prompt and isinstance(uuid, str):
                # A branch that hangs from a record of results holds the calls of its reply
                # (of the record of its call: named, or the one it hangs from).
                if of_source is None and isinstance(parent, str):
                    of_source = self.calls_of_record.get(parent)
                of_call = of_source
                if of_call is not None:
                    self.placed[uuid] = (line, of_call[1])
                    self.results_line = line
            if record.get("toolDenialKind") == "interrupted" and results:
                # A repair answering several calls may write one record per call.
                earlier = repair[0] if repair is not None else ()
                calls = tuple(r.call_id for r in results if isinstance(r, Result))
                self.repair = (earlier + calls, line) if calls else repair
            ran = self._file_tool_ran(results, record.get("toolUseResult"), line)
            if ran is not None:
                yield ran
        elif kind == "attachment":
            attachment = record.get("attachment")
            decided = _permission_decided(attachment)
            if decided is not None:
                self.permission_decided.add(decided)
            rewrite = _hook_rewrite(attachment, line)
            if rewrite is not None:
                yield rewrite
            failed = _hook_failed(attachment, line)
            if failed is not None:
                yield failed

    def _hung_beside_a_reply(self, parent: Any) -> tuple[int, int] | None:
        """The line of the user record `parent` names and of the model's reply to it, where the
        model replied to that record: a message hung from it goes on a branch without that
        reply (Claude Code 2.1.332, resuming after a reply holding no text, leaves the reply
        off and hangs its own message from the record before it, seen 2026-12-06)."""
        placed = self.placed.get(parent) if isinstance(parent, str) else None
        if placed is None or placed[0] not in self.replied:
            return None
        return placed[0], self.replied[placed[0]]

    def _forked_at(self, parent: Any, cut: int | None) -> tuple[tuple[str, ...], bool]:
        """The calls a prompt's branch may leave awaiting results, and whether it goes on from
        results of their reply (`Visible.among_results`). Its `parentUuid` hangs it from a
        record, at line `cut`: back from it to the last user record, the calls of the records
        passed, which a fork or rewind at a call not yet answered leaves without a result. Hung
        from a record of results (or what hangs from one), the calls of their reply where a
        result came after `cut`, the judge keeping those written by then: for
        `--resume-session-at` one of a reply's results, Claude Code 2.1.332 sends every call of
        the reply, the results written up to that record, and for each other call an error
        result no record holds (observed offline, 2026-12-05); none else (a call that never had
        a result awaits it still). Claude Code hangs a prompt from the record before it, so an
        ordinary one names none (a reply's text, or what hangs from its results)."""
        calls: list[str] = []
        for _ in range(len(self.placed)):  # a parentUuid loop ends where the records do
            placed = self.placed.get(parent) if isinstance(parent, str) else None
            if placed is None or placed[1] is _USER:
                break
            if isinstance(placed[1], list):  # a record of results
                if calls or cut is None:
                    break
                # Every result written by then: calls awaiting one still await it.
                return (() if cut >= self.results_line else tuple(placed[1])), True
            of_record = self.calls_of_record.get(parent)
            if of_record is not None:
                calls[:0] = of_record[0]
            parent = placed[1]
        return tuple(calls), False

    def _assistant(
        self, message: Mapping[str, Any], line: int, invented: str | None, uuid: Any, key: str
    ) -> Iterator[Observation]:
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        calls = tuple(
            Call(
                record_id(b.get("id"), "a tool_use block's id"), str(b.get("name")), b.get("input")
            )
            for b in blocks
            if isinstance(b, Mapping) and b.get("type") == "tool_use"
        )
        for call in calls:
            self.inputs[call.call_id] = (call.name, call.arguments)
        if calls and isinstance(uuid, str):
            ids = tuple(call.call_id for call in calls)
            if key != self.calls_key:
                self.calls_key = key
                self.reply_calls = []
            self.reply_calls.extend(ids)
            self.calls_of_record[uuid] = (ids, self.reply_calls)
        if key != self.reply_id or calls:
            # A later block of the reply being written joins it (same key).
            self.reply_id = key
            yield Reply(key, calls, line, invented)

    def _file_tool_ran(
        self, results: list[Observation], outcome: Any, line: int
    ) -> Executed | None:
        """What a Write or an Edit ran, from the `toolUseResult` of the record holding its one
        result: the call's input with the fields the result records put in."""
        if len(results) != 1 or not isinstance(results[0], Result):
            return None
        if not isinstance(outcome, Mapping) or outcome.get("userModified") is True:
            return None
        name, arguments = self.inputs.get(results[0].call_id, ("", None))
        fields = _FILE_TOOL_FIELDS.get(name)
        if fields is None or not isinstance(arguments, Mapping):
            return None
        ran = dict(arguments)
        for recorded, argument in fields:
            if recorded not in outcome:
                return None  # not the shape this reader knows: nothing to compare
            if argument == "replace_all" and argument not in ran and outcome[recorded] is False:
                continue  # the default the model left out
            ran[argument] = outcome[recorded]
        call_id = results[0].call_id
        return Executed(call_id, ran, line, hook_decided=call_id in self.permission_decided)


def _reply_key(message: Mapping[str, Any], request: Any, line: int) -> str:
    """What tells an assistant record's reply from another: its `message.id`, and the
    `requestRef` of the request it answers (2.1.332 writes it on every assistant record), since
    a server in front of the model may give two replies one id (a scripted mock numbering its
    replies by the assistant messages a request holds does, when Claude Code leaves a reused
    call id's call out of the request)."""
    message_id = str(message.get("id", f"line-{line}"))
    return message_id if not isinstance(request, str) else f"{message_id} ({request})"


def _text_of(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    return "".join(str(b.get("text", "")) for b in blocks if isinstance(b, Mapping))


def _refused(record: Mapping[str, Any]) -> bool:
    """Whether a result record says its call was turned down before it ran."""
    decision = record.get("permissionDecision")
    return isinstance(decision, Mapping) and decision.get("decision") == "reject"


# Which `toolUseResult` field records which input of a file tool.
_FILE_TOOL_FIELDS = {
    "Write": (("filePath", "file_path"), ("content", "content")),
    "Edit": (
        ("filePath", "file_path"),
        ("newString", "new_string"),
        ("replaceAll", "replace_all"),
    ),
}


def _user(
    content: Any,
    line: int,
    refused: bool,
    summary: bool,
    named: tuple[str, ...],
    *,
    forked_at: tuple[str, ...],
    parent_line: int | None,
    among_results: bool,
) -> Iterator[Observation]:
    """What a user record holds; `named`: the calls of the record its `sourceToolAssistantUUID`
    names (Claude Code names the record of the call each result answers); `forked_at`, a
    prompt's, `parent_line` and `among_results` (`Visible`)."""
    if summary:  # a compaction's summary (`isCompactSummary`) opens no turn
        yield Visible("a compaction summary (isCompactSummary)", line)
        return
    if isinstance(content, str):  # a prompt: the turn it opens is marked by nothing else
        yield Visible(
            "a user message",
            line,
            prompt=True,
            forked_at=forked_at,
            parent_line=parent_line,
            among_results=among_results,
        )
        return
    blocks = [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []
    results = [b for b in blocks if b.get("type") == "tool_result"]
    for block in results:
        call_id = record_id(block.get("tool_use_id"), "a tool_result's tool_use_id")
        failed = block.get("is_error") is True
        yield Result(call_id, line, refused, names_its_call=call_id in named, failed=failed)
    if not results and blocks:
        yield Visible("a user message", line)


def _hook_label(command: str) -> str:
    """The hook as its user configured it: a command loopspec's run wrapped for its hook audit
    is named by its id and the user's own command, not by the wrapper."""
    if WRAPPED_HOOK_MARK not in command:
        return command
    from loopspec.properties.harnesses import hook_audit  # noqa: PLC0415 (see WRAPPED_HOOK_MARK)

    audited = hook_audit.hook_of(command)
    return command if audited is None else f"{audited[0]} {audited[1]}"


def _hook_rewrite(attachment: Any, line: int) -> HookRewrite | None:
    """A PreToolUse hook's answer for a call: a `hook_success` attachment's, or a
    `hook_non_blocking_error`'s whose `updatedInput` is no JSON object (Claude Code's schema
    refuses that answer, and the call runs the model's input: HOOK-6)."""
    if not isinstance(attachment, Mapping) or attachment.get("hookEvent") != "PreToolUse":
        return None
    kind = attachment.get("type")
    if kind not in ("hook_success", "hook_non_blocking_error"):  # (a tuple: kind may be a list)
        return None
    try:
        answer = loads(str(attachment.get("stdout") or "null"))
    except ValueError:
        answer = None
    output = answer.get("hookSpecificOutput") if isinstance(answer, Mapping) else None
    specific = output if isinstance(output, Mapping) else {}
    updated = specific.get("updatedInput")
    # (JSON null supplies none, as the Claude Code dialect reads it: `impl.hookbridge`)
    non_object = None if updated is None or isinstance(updated, Mapping) else updated
    if kind != "hook_success" and non_object is None:
        return None
    denied = specific.get("permissionDecision") == "deny" or (
        isinstance(answer, Mapping) and answer.get("decision") == "block"
    )
    hook = _hook_label(str(attachment.get("command") or attachment.get("hookName") or "?"))
    return HookRewrite(
        record_id(attachment.get("toolUseID"), "a PreToolUse hook_success's toolUseID"),
        hook,
        updated if isinstance(updated, Mapping) else None,
        denied,
        line,
        non_object_input=non_object,
    )


def _permission_decided(attachment: Any) -> str | None:
    """The call a PermissionRequest hook's attachment names (`hook_permission_decision`), or
    None."""
    if not isinstance(attachment, Mapping) or attachment.get("hookEvent") != "PermissionRequest":
        return None
    call_id = attachment.get("toolUseID")
    return call_id if isinstance(call_id, str) and call_id else None


def _hook_failed(attachment: Any, line: int) -> HookFailed | None:
    """The fault of the hook run an attachment records (HOOK-7), or None."""
    if not isinstance(attachment, Mapping):
        return None
    fault = hook_fault(attachment)
    if fault is None:
        return None
    word, summary = fault
    command = _hook_label(str(attachment.get("command") or attachment.get("hookName") or "?"))
    # The same command may run at both points: each is its own hook, as in the bundled audit.
    hook = f"`{command}` ({attachment.get('hookEvent')})"
    return HookFailed(hook, str(attachment.get("toolUseID")), word, summary, line)


# The keys of a file tool's input that name its file: Claude Code runs a relative one as the
# absolute path under the folder it runs in (each record's `cwd`), and hands its hooks that path
# (2.1.332, Read, Write and Edit, observed offline 2026-12-06), so a hook handing back the input
# it saw names the call's file by another spelling.
_PATH_KEYS = ("file_path", "notebook_path")


def same_file_input(arguments: Mapping[str, Any], cwd: str | None) -> dict[str, Any]:
    """A Claude Code call's input as two spellings of it are compared (check's transcript and
    `run --harness`'s report): each file it names as one absolute path, normalized (a relative
    one joined to `cwd`, the folder the call was made in, when that is absolute), and without an
    Edit's `replace_all: false` (2.1.332 records it, in the history too, where the model left it
    out; a hook's input without it runs as false: observed offline, 2026-12-05)."""
    compared = {k: v for k, v in arguments.items() if not (k == "replace_all" and v is False)}
    absolute = cwd is not None and cwd.startswith("/")
    for key in _PATH_KEYS:
        path = compared.get(key)
        if isinstance(path, str) and path and (absolute or path.startswith("/")):
            compared[key] = posixpath.normpath(posixpath.join(cwd or "/", path))
    return compared


def _same_input(call: Call, ran: Any, cwd: str | None = None) -> bool:
    """Whether `ran` is `call`'s input, file paths and an Edit's default compared as Claude Code
    runs them (`same_file_input`; `cwd`, the folder the call was made in)."""
    if same_json(call.arguments, ran):
        return True
    arguments = call.arguments
    if not isinstance(arguments, Mapping) or not isinstance(ran, Mapping):
        return False
    return same_json(same_file_input(arguments, cwd), same_file_input(ran, cwd))


def dialect() -> Dialect:
    """A fresh reader for one transcript."""
    reader = _Reader()
    return Dialect(
        NAME,
        NOT_CHECKABLE,
        reader.observe,
        lambda call, ran: _same_input(call, ran, reader.cwd_of_call.get(call.call_id)),
        rewrites_are_recorded=True,
        checked_in_part=CHECKED_IN_PART,
        identity="uuid",
    )
