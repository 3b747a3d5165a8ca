"""Checking a recorded ACP stream: the JSON-RPC messages between an editor and an ACP agent.

A recording holds one JSON-RPC 2.0 message per line, both directions in the order they passed
(what a tee of the agent's stdin and stdout gives): the editor's `session/prompt`, the agent's
`session/update` notifications and `session/request_permission` requests, the editor's answers.
Nothing in it says what the loop behind the agent ran or what its model history holds, so of the
rules it shows only what an editor sees of tool calls (the report lists the rest as not
checkable, with why):

- ACP-1: every `tool_call` and `tool_call_update` update and every permission request is
  strictly valid ACP (`validators.acp_strict`: the pinned schema and the SDK's round trip), and
  so is an update naming no kind (it may be a card), and one whose kind, or a method whose name
  (either side's), misspells one the pinned ACP has. Other updates (message chunks, plans,
  command lists) of a kind the pinned ACP has are held to its schema alone. A `tool_call` naming
  a call whose card ended, outside a `session/load` replaying the history, is another call
  reusing its id, which ACP makes unique in a session. The agent's other messages are held to
  the schema: its answer to each of the editor's requests (a prompt's stop reason,
  `session/new`'s `sessionId`, `initialize`'s protocol version; a JSON-RPC error's code and
  message; an answer holding both or neither, or a second answer), its `fs/*` and `terminal/*`
  requests' params (and its requests' ids: a request has one, a session/update none). The
  editor's messages are not judged: check judges the agent. A file path that is not absolute (an
  `fs/*` request's path, a terminal's or session's cwd: a session given a relative one is blamed
  alone, not the agent's paths under it) breaks ACP's paths, a card's location or diff path not
  (VIEW-4 keeps it as the call's arguments give it); an `fs/*` request the editor's `initialize`
  did not declare it serves, a card showing a terminal no `terminal/create` answered (for an
  editor that declared terminals, and not Zed's `_meta.terminal_output`), a prompt answered
  twice, or answered `cancelled` while the editor sent no cancel after it (ACP's cancelled says
  the editor cancelled the turn; a `$/cancel_request` naming an id that a request of the agent's
  awaiting its answer holds too is the agent withdrawing that request), a `tool_call` after a
  `session/load` was answered and before the next prompt (ACP has the replay before the answer),
  or after a prompt was answered, or the session opened, and before the next (a call in no
  turn),
  a permission request sent with a pending one's id or asking about another input for a call
  whose request is pending (two calls under one id), an agent's message naming a session the
  editor never named nor was given (once a session, for a recording holding `initialize`) or
  closed (`session/close` answered: once a close; the close cancels the turn, as
  `session/cancel` does), a
  write naming a session none of whose open cards shows the file while one of another session
  does, and a terminal request naming a terminal the agent released are ACP-1's too.
- ABORT-1, in part: a call started (a `terminal/create`, an `fs/write_text_file`, or a card
  shown then ending `completed`) after the agent had read the editor's `session/cancel`,
  which a message naming a terminal the editor created after the cancel shows (the cancel
  and the agent's messages cross on the pipe). Once a cancel; a call the recording shows
  running before that message (a terminal of its card's made, a write of its own) started
  before, and its further terminals and writes are not blamed.
- ACP-2, in part: a card showing a terminal, or a `terminal/create`, while the editor's
  `initialize` declared no terminal (nor, for a card, `_meta.terminal_output`, under which the
  agent streams the terminal itself).
- RW-1, in part: a call ends (its card gets `completed` or `failed`) while its card shows another
  `rawInput` than the one its permission request approved (the editor showed one input and asked
  approval for another, so one of them is not what ran), or showing diffs only of files the
  editor was not asked to write for it while it was asked to write another, or, on a card
  whose `rawInput` holds a string `command`, while a terminal the card embeds, or embedded in
  an earlier update, was created (`terminal/create`, without `args` or as a shell's `-c` line)
  for another command, or while the card shows a `diff` of a
  file, shown before the editor was asked to write that file (`fs/write_text_file`) while the call
  was open, whose `newText` is not in what was written (the write is the card's when it is the one
  open card of its session showing a diff of that path that could have run by then, or, with
  none, whose `rawInput` names the path, or becomes so
  when the others are first asked permission after it; a write left to several is blamed once they
  have all ended when none shows what it holds), or while its diff of a file, shown before the
  write, replaces a text that the file did not hold when it was written (as a whole read of it
  while the card was open says) or that the diff of the file the card ends with does not hold.
  What ran otherwise is not recorded.
- DEC-2: a call whose permission request the editor refused (an option of a `reject_*` kind,
  `cancelled`, or none it offered: no outcome, an id not offered) ends `completed`, shows a
  terminal created after the refusal, or is the one
  open card showing a file the editor is then asked to write, or the command a terminal is then
  created for (as is one whose request is unanswered; with no open card showing it, the one
  card of the turn that ended after the refusal showing it, the write's change or the
  command); a call that asked permission
  ends showing a terminal created, or having had its file written, before the editor answered
  (a write no open card showed is the card's that then shows that file and the change the
  write made), or ends `completed` with the request unanswered; a request offering
  an option that allows and one that refuses under one `optionId` (the answer names the id
  alone); or a request asks about a call whose card already ended, or is left unanswered
  (not withdrawn) when its turn's prompt is answered otherwise than `cancelled`.
- ADJ-2: a `tool_call_update` names no call a `tool_call` showed earlier in the session, or
  changes a card that ended (reopens it, ends it otherwise, replaces its content): the call
  answered again. A turn answered `cancelled` ends the cards it left unfinished (the editor
  marks them cancelled; ACP has an agent send a cancelled turn's updates before that answer).
  Blamed once per card.
- REC-1, in part: a `session/load` answered with a result while a card its replay showed never
  got `completed` or `failed` (a call of the history without a result, which a reopened
  session answers; the editor shows it running with no turn to end it). Once a load; the card
  stays open, so an end sent later is not blamed again. A terminal made, a file written or a
  permission asked while a load replays is a recorded call run again: REC-1 too, once a load.
- ADJ-3: a prompt turn ends (its `session/prompt` is answered) with a card that never got
  `completed` or `failed`, for any stop reason but `cancelled`: after a cancel ACP has the editor
  mark the unfinished cards cancelled itself (one answered otherwise after the editor's cancel
  is held to ADJ-3, its words naming the cancel). A prompt answered with a JSON-RPC error ended
  its turn with `error`, which ADJ-3 exempts.

A second `tool_call` for a call already shown replaces its card, as Zed's editor reads it: Zed's
Claude Code bridge sends one as the model starts the call (an empty `rawInput`) and another when
its input is whole. A card message that is not valid ACP still updates the card by what the ACP
SDK reads of it, as a lenient editor shows it: a later end is judged by what the editor shows.
A `tool_call` the SDK cannot read at all still shows its call, so its updates are not blamed
on ADJ-2 for naming an unknown call.
Lines are the report's events: a recording has no seq. A last line cut short (no newline: the
editor or the recorder was stopped as it wrote) is a notice, the lines before it checked.
"""

from __future__ import annotations

import posixpath  # (os imported it: free)

from loopspec.model.invariants import rule_ids
from loopspec.model.json_text import json_dumps, same_json
from loopspec.model.prefix import Violation
from loopspec.properties.logcheck.checker import (
    ACP_DIALECT,
    ErrorKind,
    Limits,
    LogReport,
    Notice,
    NoticeKind,
    RestOfLog,
    lines_follow,
    value_cut_short,
)

# The foreign logs' reader of lines, and its stop (one handler ends a read by either).
from loopspec.properties.logcheck.harness_logs import _Stop, bounded_lines
from loopspec.properties.logcheck.unreadable_lines import not_utf8_words, torn_line_words

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from typing import Any, BinaryIO

NAME = ACP_DIALECT
# The `session/update` kinds whose messages section 12 of SPEC.md speaks about.
CARD_UPDATES = frozenset({"tool_call", "tool_call_update"})
FINAL_STATUSES = frozenset({"completed", "failed"})
ALLOW_KINDS = frozenset({"allow_once", "allow_always"})
_CANCELLED = "cancelled"

CHECKED_IN_PART = {
    "ACP-1": (
        "tool_call and tool_call_update updates and permission requests are judged strictly, "
        "the agent's other session updates, answers and file-system and terminal requests by "
        "the schema alone, its file paths and file-system requests against what the editor "
        "declared; the editor's messages are not judged, nor a method or update kind the pinned "
        "ACP lacks unless its name misspells one it has"
    ),
    "ACP-2": (
        "a card's terminal and a terminal/create against the editor's initialize; what a "
        "client without terminals is shown instead is not judged"
    ),
    "RW-1": (
        "a recording shows only the card, the input approved, the command of the terminal a "
        "card embeds, what the editor was asked to write and what it read: a call that ran "
        "with none of them is not judged, nor one whose write another card that shows what was "
        "written could have made"
    ),
    "DEC-2": (
        "only what the editor saw: a refused call's card ending completed, its terminal or "
        "write after the refusal or before the answer, and a request about a call that ended; "
        "a call run without asking is not judged (the bridge may have no need to ask)"
    ),
    "ABORT-1": (
        "a call started after the agent had read the editor's session/cancel, which only a "
        "message naming a terminal the editor created after the cancel shows (the cancel and "
        "the agent's messages cross on the pipe); a call started before is not judged, nor "
        "its further terminals and writes, nor a terminal no card embeds while such a call runs"
    ),
    "REC-1": (
        "only a loaded session's replay: a card it leaves neither completed nor failed when the "
        "load is answered (a call of the history without a result), a terminal made or a file "
        "written while it replays (a call run again); the rest of a reopen is the agent's own"
    ),
    "ADJ-3": (
        "a turn ended by a cancel leaves its unfinished cards to the editor, and one whose "
        "prompt was answered with a JSON-RPC error ended with error, which ADJ-3 exempts"
    ),
}
_WHY_NOT = "an ACP recording shows what the editor was sent, not the loop's log or history"


def looks_like(record: object) -> bool:
    """Whether a log's first record is a JSON-RPC 2.0 message: an ACP recording."""
    return isinstance(record, dict) and record.get("jsonrpc") == "2.0"


def _not_checkable() -> dict[str, str]:
    judged = {*CHECKED_IN_PART, "ADJ-2"}
    return {rule: _WHY_NOT for rule in rule_ids() if rule not in judged}


class _Card:
    """What the editor shows of one call: its `rawInput` (None: none sent), its status, the
    line that set each, the input approved for it (with the request's line), the terminal it
    embeds (with the line that embedded it), the diffs its content shows and what the editor
    was asked to write to their files while it was open."""

    __slots__ = (
        "answered_line",
        "approved",
        "asked",
        "blamed",
        "content",
        "diffs",
        "dropped_status",
        "editor_ended",
        "ended_line",
        "ended_status",
        "final",
        "first_write",
        "held",
        "old_texts",
        "raw_input",
        "raw_line",
        "refused",
        "requested_only",
        "reshown",
        "run_blamed",
        "shown_line",
        "shown_new",
        "shown_old",
        "started",
        "status",
        "terminal",
        "terminals",
        "unread",
        "written",
    )

    def __init__(self, line: int) -> None:
        self.shown_line = line
        self.raw_input: Any = None
        self.raw_line = line
        self.status = "pending"
        self.final = False
        self.ended_line = line
        self.ended_status = ""
        # Whether its end was blamed (RW-1): a write found to be its own later is not blamed
        # on it again.
        self.blamed = False
        # Whether it was blamed on DEC-2 for running (a terminal or a write the editor was
        # asked for it, where asked, or its end): not blamed on DEC-2 again for that run, nor
        # for a request left unanswered.
        self.run_blamed = False
        # The input a permission request showed, its line, and whether it was allowed.
        self.asked: tuple[Any, int] | None = None
        self.approved = False
        # How the editor refused its last permission request (an option's kind, or
        # `cancelled`) and the line of that answer; None once a request is allowed.
        self.refused: tuple[str, int] | None = None
        # The line of the editor's answer to its last permission request (None: unanswered).
        self.answered_line: int | None = None
        # The line of the permission request that showed it, when no tool_call had.
        self.requested_only: int | None = None
        # Whether a tool_call showed it again after it ended (`session/load` replaying it), or
        # an update changed it after its end (blamed once): what follows is not judged again.
        self.reshown = False
        # The content its last message set (None: none sent).
        self.content: Any = None
        # A status its messages sent that ACP does not have (the SDK drops it), and the line.
        self.dropped_status: tuple[Any, int] | None = None
        # Whether only a message the ACP SDK could not read showed it: a turn ending before
        # any other does is not blamed on ADJ-3 (that message's fault is ACP-1's).
        self.unread = False
        self.terminal: tuple[str, int] | None = None
        # Every terminal it embedded, in order, with the line that first did: an update's
        # content replaces the card's, but a terminal once shown ran for the call.
        self.terminals: list[tuple[str, int]] = []
        # The first line showing the call running: the terminal/create of a terminal its card
        # embeds, or a write found its own (None: none shows it).
        self.started: int | None = None
        # Each `diff` item of the card's content: its path, its newText and the line showing it.
        self.diffs: list[tuple[str, str, int]] = []
        # The path of each file the editor was asked to write for the call -> the last content
        # and its line.
        self.written: dict[str, tuple[str, int]] = {}
        # The path and line of the first write found to be its own.
        self.first_write: tuple[str, int] | None = None
        # Each `diff` item's oldText (None: a new file), as `diffs` holds its newText; and per
        # path, the oldText the last message before the file was written showed, with its line
        # (the change the editor showed as the call ran), when it showed one diff of the path
        # and did not end the call (the end's diff is the agent's account of what it did).
        self.old_texts: list[tuple[str, str | None, int]] = []
        self.shown_old: dict[str, tuple[str, int]] = {}
        # The same of each `diff` item's newText: the new text the editor showed as the call
        # ran, which a later message may replace (an account given after the write).
        self.shown_new: dict[str, tuple[str, int]] = {}
        # Per path, what the file held when the call's first write of it was asked for, as a
        # whole read of it while the card was open said (writes since counted in), the read's
        # line and the write's.
        self.held: dict[str, tuple[str, int, int]] = {}
        # Whether the card was left unfinished by a turn answered `cancelled`, which the editor
        # then marks cancelled (its end, `ended_line`, is that answer's line).
        self.editor_ended = False

    def wrote(
        self, path: str, content: str, line: int, held: tuple[str, int] | None = None
    ) -> None:
        """The editor was asked to write `content` to `path` at `line` for this call; `held`:
        what the file then held, read at the line given, if read while the card was open."""
        self.written[path] = (content, line)
        self.ran_at(line)
        if self.first_write is None or line < self.first_write[1]:
            self.first_write = (path, line)
        if held is not None and held[1] > self.shown_line:
            self.held.setdefault(path, (*held, line))

    def ran_at(self, line: int) -> None:
        """The recording shows the call running at `line` (a terminal made, a file written)."""
        if self.started is None or line < self.started:
            self.started = line


class _Write:
    """An `fs/write_text_file` that more than one open card could have asked for: each shows a
    diff of its file and could have run by then. It becomes the card's that is left when the
    others are ruled out (a call asks before it runs, so one first asked after the write did
    not make it)."""

    __slots__ = ("candidates", "content", "held", "line", "path", "session")

    def __init__(
        self,
        session: str,
        path: str,
        content: str,
        line: int,
        candidates: set[tuple[str, str]],
        *,
        held: tuple[str, int] | None,
    ) -> None:
        self.session = session
        self.path = path
        self.content = content
        self.line = line
        self.candidates = candidates
        self.held = held


# A permission request awaiting its answer: the card's key, the ids of its options that allow,
# the kind of each that refuses, and the request's line.
_Asking = tuple[tuple[str, str], set[str], dict[str, str], int]


class _Recording:
    """The judge of one recording, fed one message at a time."""

    def __init__(self) -> None:
        self.cards: dict[tuple[str, str], _Card] = {}
        # Per session, the cards shown since its last prompt (in order), each once.
        self.turn_cards: dict[str, list[tuple[str, str]]] = {}
        # Permission requests awaiting the editor's answer: request id -> for each request
        # sent with that id, in order, the card's key, the ids of the request's options that
        # allow, the kind of each that refuses, and the request's line. One id is held by two
        # requests only when the agent reused it (ACP-1); the first answer is read as the
        # first request's.
        self.asking: dict[str, list[_Asking]] = {}
        # Prompts awaiting their answer: request id -> session; and the line of each prompt,
        # with the line of its answer once answered.
        self.prompts: dict[str, str] = {}
        self.prompt_lines: dict[str, int] = {}
        self.prompt_answers: dict[str, int] = {}
        # `terminal/create` requests awaiting their answer: request id -> the command and the
        # line (None for a command split into `args` otherwise than as a shell's `-c` line,
        # which a card's command cannot be held to).
        self.creating: dict[str, tuple[str, int] | None] = {}
        # The line of each `terminal/create` request, awaiting its answer and once answered
        # (by terminal id), with or without `args`: when the terminal was made.
        self.creating_lines: dict[str, int] = {}
        self.terminal_lines: dict[str, int] = {}
        # Terminals created: id -> the command they run and the line that asked for it.
        self.terminals: dict[str, tuple[str, int] | None] = {}
        # The editor's answers to a `terminal/create` that gave no `terminalId` (`terminal_id`,
        # say): the answer's line, the request's, and the result. No terminal was made: a card
        # showing one names the answer that left it with nothing behind it.
        self.shapeless_creations: list[tuple[int, int, Mapping[str, Any]]] = []
        # The lines of `terminal/create` requests blamed on DEC-2 as a refused or unanswered
        # call's run: the card embedding that terminal is not blamed for it again.
        self.blamed_creations: set[int] = set()
        # Writes not yet known to be one card's, in the order they came.
        self.unowned: list[_Write] = []
        # `session/load` requests awaiting their answer: request id -> session. The history
        # a load replays shows calls that ended again.
        self.loads: dict[str, str] = {}
        # Per session, the line answering its last prompt, or the request that opened it
        # (session/new, session/fork), with that method, until its next prompt (-1 once a call
        # shown in between was blamed): a call shown then is in no turn.
        self.idle: dict[str, tuple[int, str]] = {}
        # `session/close` requests awaiting their answer: request id -> session. And the
        # sessions closed: the close's line, its answer's, and whether a message of the agent
        # naming it since was blamed.
        self.closing: dict[str, str] = {}
        self.closed: dict[str, tuple[int, int, bool]] = {}
        # The `session/load` requests (by id) during whose replay a call was run (blamed).
        self.replay_runs: set[str] = set()
        # Per session a load is replaying or replayed last, the cards its replay showed.
        self.replayed: dict[str, list[tuple[str, str]]] = {}
        # What the editor's `initialize` said it can do (None: the recording holds none).
        self.client: Mapping[str, Any] | None = None
        self.initialize_line = 0
        # Whether the editor gave a session a relative cwd (blamed there): the agent's paths
        # under it are then not judged, each a consequence of that one.
        self.relative_cwd = False
        # `fs/read_text_file` requests of a whole file awaiting their answer: request id ->
        # session and path.
        self.reading: dict[str, tuple[str, str]] = {}
        # What each file (session, path) last held as far as the recording says, and the line
        # of the last whole read of it (None: never read): a write since is counted in.
        self.files: dict[tuple[str, str], tuple[str, int | None]] = {}
        # The sessions the editor named or was given, and those only the agent named (each
        # with the line first naming it, blamed there).
        self.sessions: set[str] = set()
        self.unknown_sessions: dict[str, int] = {}
        # Per session, the line of the editor's `session/cancel` since its last prompt.
        self.cancels: dict[str, int] = {}
        # Per call id, the first card message naming it in such a session, and its line.
        self.astray: dict[str, tuple[str, int]] = {}
        # The line of the editor's answer to each `terminal/create` (by terminal id): a later
        # message of the agent naming the terminal shows it read the editor's input that far.
        self.terminal_answers: dict[str, int] = {}
        # Per session, since its editor's `session/cancel`: the line of the agent's first
        # message showing it had read past the cancel (naming a terminal the editor created
        # after it), the terminal and the line creating it; and whether a call started since
        # was blamed (ABORT-1, once a cancel).
        self.read_cancel: dict[str, tuple[int, str, int]] = {}
        self.started_after_cancel: set[str] = set()
        # A `terminal/create` sent after that, while a call already running then could have
        # asked for it (a call's second terminal) and no card's command tells whose it is:
        # by request id, then by the terminal's id once made, its session, words and line.
        # The card embedding the terminal says whether a call started.
        self.unplaced_creations: dict[str, tuple[str, str, int]] = {}
        self.unplaced_terminals: dict[str, tuple[str, str, int]] = {}
        # Per session, the line answering its `session/load`, until its next prompt: the
        # replay is over, and a call shown then is in no turn.
        self.loaded: dict[str, int] = {}
        # Per session, the writes of its turn that no open card showed, in order: the path,
        # the text, the line and what the file then held (read at the line given).
        self.unshown_writes: dict[str, list[tuple[str, str, int, tuple[str, int] | None]]] = {}
        # Requests of the agent awaiting the editor's answer (by id), with their line: a
        # `$/cancel_request` naming one is the agent's withdrawing it.
        self.agent_requests: dict[str, int] = {}
        self.agent_request_methods: dict[str, str] = {}
        # Per session, a `$/cancel_request` read as the agent's that named its prompt's id too:
        # its line and the agent's request's.
        self.withdrawn: dict[str, tuple[int, int]] = {}
        # The agent's requests awaiting their answer that it withdrew (`$/cancel_request`).
        self.withdrawn_requests: set[str] = set()
        # Terminals the agent released (`terminal/release`), with the line: their id names
        # no terminal for ACP's other terminal requests since.
        self.released: dict[str, int] = {}
        # The editor's requests awaiting the agent's answer (by id): the method and the line.
        # And the ids of requests awaiting their answer whose method the pinned ACP lacks (an
        # extension's, sent by either side).
        self.editor_requests: dict[str, tuple[str, int]] = {}
        self.other_requests: set[str] = set()
        # The editor's requests the agent answered (by id, until the editor reuses the id):
        # the method, the request's line and the answer's.
        self.answered_requests: dict[str, tuple[str, int, int]] = {}

    @property
    def loading(self) -> set[str]:
        """The sessions a `session/load` is replaying."""
        return set(self.loads.values())

    def feed(self, message: Mapping[str, Any], line: int) -> list[Violation]:
        method = message.get("method")
        if method is not None and not isinstance(method, str):
            message_words = f"the message's method is {_json_kind(method)}, not a string"
            return [Violation("ACP-1", line, f"{message_words}: JSON-RPC names a method by one")]
        if method is not None and method not in _COMMON_METHODS:
            misspelt = self._misspelt(method, message, line)
            if misspelt:
                return misspelt
        return [*_agent_envelope(method, message, line), *self._named(method, message, line)]

    def _misspelt(self, method: str, message: Mapping[str, Any], line: int) -> list[Violation]:
        """ACP-1 for a method the pinned ACP lacks, no extension's (`_` first), whose name is
        a misspelling of one it has (`session/prompts`, `fs/read_text`), whichever side sent
        it: the other side answers it method-not-found, or drops it, and does nothing it asks.
        A name close to none is a newer ACP's, not judged. Its answer is not judged either,
        and a `tool_call` it carried (a misspelt `session/update`) still shows its call, so
        its updates are not blamed on ADJ-2 as naming an unknown one."""
        from loopspec.properties.validators.acp_strict import (  # noqa: PLC0415 (with its models)
            misspelt_method,
        )

        nearest = misspelt_method(method)
        if nearest is None:
            return []
        if "id" in message:
            self.other_requests.add(_request_key(message["id"]))
        params = message.get("params")
        if nearest[0] == "session/update" and isinstance(params, dict):
            update = params.get("update")
            kind = update.get("sessionUpdate") if isinstance(update, dict) else None
            self._shown_unread(params, update, kind, line)
        real, side = nearest
        sender = "" if side == "either side" else f"the {side}'s "
        answered = "answers it with an error (method not found)" if "id" in message else "drops it"
        message_words = (
            f"the method {json_dumps(method)} is none the pinned ACP has, nor an extension's "
            f"(whose names begin with _): the nearest is {sender}{real}, and the other side "
            f"{answered}, doing nothing it asks"
        )
        return [Violation("ACP-1", line, message_words)]

    def _named(self, method: str | None, message: Mapping[str, Any], line: int) -> list[Violation]:
        """The message judged, once the sessions it names are noted."""
        params = message.get("params")
        session = params.get("sessionId") if isinstance(params, dict) else None
        if isinstance(method, str) and isinstance(session, str):
            if method in _AGENT_METHODS:
                found = self._unknown_session(method, session, line)
                if session in self.closed:
                    found.extend(self._closed_session(method, session, line))
                    if method == "session/update":
                        return found  # the editor shows none: not judged further
                return [*found, *self._message(method, message, params, line)]
            self.sessions.add(session)  # the editor names it: a session it knows
            if method != "session/close":
                self.closed.pop(session, None)  # opened again (a load, a resume)
        result = message.get("result")
        if method is None and isinstance(result, dict) and isinstance(result.get("sessionId"), str):
            self.sessions.add(result["sessionId"])  # a session/new's (or a fork's) answer
        return self._message(method, message, params, line)

    def _closed_session(self, method: str, session: str, line: int) -> list[Violation]:
        """ACP-1 for an agent's message naming a session the editor closed (`session/close`
        answered), once a close: the agent cancels a closed session's work and frees it, and
        the editor shows nothing more of it."""
        closed = self.closed.get(session)
        if closed is None or closed[2]:
            return []
        self.closed[session] = (*closed[:2], True)
        asked, answered, _blamed = closed
        message = (
            f"the {method} names the session {json_dumps(session)}, which the editor closed "
            f"(session/close at line {asked}, answered at line {answered}): an agent ends a "
            "closed session's work, and the editor shows nothing more of it"
        )
        return [Violation("ACP-1", line, message, (line, answered, asked))]

    def _unknown_session(self, method: str, session: str, line: int) -> list[Violation]:
        """ACP-1 for an agent's message naming a session the editor never named nor was given
        (by a `session/new` answer or any other), once a session: the editor shows nothing
        of it. A recording without the editor's `initialize`, which may start mid-way, is not
        judged."""
        if self.client is None or session in self.sessions or session in self.unknown_sessions:
            return []
        self.unknown_sessions[session] = line
        message = (
            f"the {method} names the session {json_dumps(session)}, which the editor never "
            "named nor was given by an answer (session/new's sessionId): an editor shows "
            "nothing of a session it does not know"
        )
        return [Violation("ACP-1", line, message)]

    def _message(
        self, method: Any, message: Mapping[str, Any], params: Any, line: int
    ) -> list[Violation]:
        """One message judged by what it is (`feed` has noted the sessions it names)."""
        if method in _AGENT_REQUESTS and "id" in message:
            self.agent_requests[_request_key(message["id"])] = line
            self.agent_request_methods[_request_key(message["id"])] = method
            self.withdrawn_requests.discard(_request_key(message["id"]))
        elif isinstance(method, str) and "id" in message and _agent_answers(method):
            self.editor_requests[_request_key(message["id"])] = (method, line)
            self.answered_requests.pop(_request_key(message["id"]), None)
        elif isinstance(method, str) and "id" in message and method not in _AGENT_METHODS:
            self.other_requests.add(_request_key(message["id"]))
        if method == "session/update":
            if not isinstance(params, dict):
                return [Violation("ACP-1", line, "a session/update's params must be an object")]
            return self._update(params, line)
        if method == "session/request_permission" and isinstance(params, dict):
            return self._permission(message.get("id"), params, line)
        if method == "initialize" and isinstance(params, dict):
            capabilities = params.get("clientCapabilities")
            self.client = capabilities if isinstance(capabilities, dict) else {}
            self.initialize_line = line
            return []
        if method in {"session/new", "session/load"} and isinstance(params, dict):
            what = f"the {method} request's cwd"
            found = _relative_path(params.get("cwd"), what, line, _RELATIVE_CWD)
            self.relative_cwd = self.relative_cwd or bool(found)
            if method == "session/load":
                self.loads[_request_key(message.get("id"))] = str(params.get("sessionId"))
                self.replayed[str(params.get("sessionId"))] = []
                self.replay_runs.discard(_request_key(message.get("id")))
            return found
        if isinstance(method, str) and method in _CLIENT_METHODS:
            shape = _client_request_shape(method, params, line)
            return [*shape, *self._undeclared(method, line), *self._client_request(message, line)]
        if method == "session/prompt" and isinstance(params, dict):
            session = str(params.get("sessionId"))
            self.prompts[_request_key(message.get("id"))] = session
            self.prompt_lines[_request_key(message.get("id"))] = line
            self.prompt_answers.pop(_request_key(message.get("id")), None)  # an id used anew
            self.turn_cards[session] = []
            self.unowned = [write for write in self.unowned if write.session != session]
            self.cancels.pop(session, None)
            self.read_cancel.pop(session, None)
            self.started_after_cancel.discard(session)
            self._unplaced_dropped(session)
            self.loaded.pop(session, None)
            self.idle.pop(session, None)
            self.unshown_writes.pop(session, None)
            self.withdrawn.pop(session, None)
            return []
        if method in {"session/cancel", "session/close"} and isinstance(params, dict):
            # ACP's close cancels the session's turn first, as session/cancel does.
            self.cancels[str(params.get("sessionId"))] = line
            if method == "session/close":
                self.closing[_request_key(message.get("id"))] = str(params.get("sessionId"))
            return []
        if method == "$/cancel_request" and isinstance(params, dict):
            request = _request_key(params.get("requestId"))
            if request in self.agent_requests:
                self.withdrawn_requests.add(request)
            cancelled = self.prompts.get(request)
            if cancelled is not None and request in self.agent_requests:
                # Each side counts its own ids, so the agent's request and the editor's
                # prompt may share one: an agent withdraws its own request (ACP's cancel of a
                # turn is session/cancel), and the editor answers it.
                self.withdrawn.setdefault(cancelled, (line, self.agent_requests[request]))
            elif cancelled is not None:
                self.cancels[cancelled] = line
            return []
        found_answer: list[Violation] = []
        answered = _request_key(message.get("id"))
        editor_awaits = answered in self.editor_requests or answered in self.prompts
        # Whether the answer is read as the agent's, to the editor's request of that id: the
        # agent's own request of that id still awaits the editor's answer.
        agents_answer = False
        if method is None and "id" in message:
            found_answer, agents_answer = self._agent_answer(answered, message, line)
        if method is None and agents_answer:
            loaded = self.loads.pop(answered, None)
            if loaded is not None:
                self.loaded[loaded] = line
            if loaded is not None and "result" in message:
                asked = self.answered_requests[answered][1]
                found_answer.extend(self._replayed_open(loaded, asked, line))
            opened = self.answered_requests[answered][0]
            session_id = _result_session(message)
            if opened in _OPENING and session_id is not None and session_id not in self.idle:
                self.idle[session_id] = (line, opened)
            closed = self.closing.pop(answered, None)
            if closed is not None and "result" in message:
                self.closed[closed] = (self.answered_requests[answered][1], line, False)
        if method is None and ("result" in message or "error" in message):
            result = message.get("result")
            if not agents_answer and not (isinstance(result, dict) and "stopReason" in result):
                self.agent_requests.pop(answered, None)
                self.agent_request_methods.pop(answered, None)
        # A prompt answered with an error, not a result, ended its turn with `error`, which
        # ADJ-3 exempts (SPEC.md): its unfinished cards are not judged.
        if method is None and "result" in message:
            answered_result = self._answer(
                answered, message["result"], line, editor_awaits=editor_awaits
            )
            return [*found_answer, *answered_result]
        return found_answer

    def _agent_answer(
        self, answered: str, message: Mapping[str, Any], line: int
    ) -> tuple[list[Violation], bool]:
        """ACP-1 for the agent's answer to an editor's request (`initialize`, `session/new`,
        `session/load`, ...) that the pinned ACP schema refuses: its result for that method, or
        its JSON-RPC error, or an answer holding both or neither. A prompt's result is judged with
        its turn (`_prompt_answer`). An answer under an id that a request of the agent's
        awaiting its answer holds too (each side numbers its own) is read as the editor's when
        it fits that request (an error does); one under an id a request of a method the pinned
        ACP lacks holds too (whoever sent it) is read as that one's unless it is a result that
        fits the editor's request. Either way the editor's request waits for the next answer.
        Also whether the answer was read as the agent's to the editor's request."""
        asked = self.editor_requests.get(answered)
        if asked is None:
            if answered in self.other_requests:
                self.other_requests.discard(answered)
                return [], False
            return self._answered_again(answered, line), False
        from loopspec.properties.validators.acp_strict import (  # noqa: PLC0415 (slow: pydantic)
            answer_schema_problems,
            error_schema_problems,
            fits_editor_answer,
        )

        method, asked_line = asked
        result = message.get("result")
        answers_once = ("result" in message) != ("error" in message)
        if answered in self.agent_requests and (
            "result" not in message
            or fits_editor_answer(self.agent_request_methods[answered], result)
        ):
            return [], False  # the editor's answer to the agent's request of that id, as likely
        if not answers_once:
            said = "both a result and an error" if "result" in message else "no result nor error"
            problems, what = [f"it holds {said}, where JSON-RPC has exactly one"], "answer to"
        elif "error" in message:
            problems, what = error_schema_problems(message["error"]), "error answering"
        elif method == "session/prompt" and isinstance(result, dict) and "stopReason" in result:
            problems, what = [], "answer to"  # judged with its turn, by `_prompt_answer`
        else:
            problems, what = answer_schema_problems(method, result), "answer to"
        if answered in self.other_requests and (problems or "error" in message):
            self.other_requests.discard(answered)
            return [], False  # as likely the answer to that other request
        del self.editor_requests[answered]
        self.answered_requests[answered] = (method, asked_line, line)
        if not problems:
            return [], True
        message_words = (
            f"the agent's {what} the editor's {method} (line {asked_line}) is not valid ACP: "
            f"{problems[0]}"
        )
        return [Violation("ACP-1", line, message_words, (line, asked_line))], True

    def _client_request(self, message: Mapping[str, Any], line: int) -> list[Violation]:
        """A request of the agent to the editor's file system or terminals: ACP-1 for a path
        or working directory that is not absolute."""
        method, params = message["method"], message.get("params")
        if not isinstance(params, dict):
            return []
        key = "cwd" if method == "terminal/create" else "path"
        found = self._relative(params.get(key), f"the {method} request's {key}", line)
        session = str(params.get("sessionId"))
        if isinstance(params.get("terminalId"), str):
            self._names_terminal(session, params["terminalId"], line)
            found.extend(self._released(method, params["terminalId"], line))
        if method == "fs/write_text_file":
            what = f"the agent asked the editor to write {json_dumps(params.get('path'))}"
            found.extend(self._run_in_replay(session, what, line))
            return [*found, *self._writing(params, line)]
        if method == "fs/read_text_file":
            path = params.get("path")
            # A read of some lines only does not say what the whole file held.
            whole = params.get("line") is None and params.get("limit") is None
            if isinstance(path, str) and whole:
                session = str(params.get("sessionId"))
                self.reading[_request_key(message.get("id"))] = (session, path)
        elif method == "terminal/create":
            ran = json_dumps(params.get("command"))
            what = f"the agent asked the editor to create a terminal running {ran}"
            found.extend(self._run_in_replay(session, what, line))
            command = _shell_command(params.get("command"), params.get("args"))
            owners = self._open_with_command(session, command) if command is not None else []
            started = self._after_cancel(session, what, line, owners or None)
            if started is None:  # a running call's own, perhaps: its card will tell
                placed = (session, what, line)
                self.unplaced_creations[_request_key(message.get("id"))] = placed
            found.extend(started or ())
            plain = (command, line) if command is not None else None
            self.creating[_request_key(message.get("id"))] = plain
            self.creating_lines[_request_key(message.get("id"))] = line
            if command is not None:
                found = [*found, *self._creating(session, command, line)]
        return found

    def _run_in_replay(self, session: str, what: str, line: int) -> list[Violation]:
        """REC-1 for a call run (`what`: a terminal made, a file written, permission asked to
        run it) while a
        `session/load` of its session replays the history, before the load is answered: a
        reopened session shows its recorded calls again, it does not run them again (one may
        have run already). Once a load."""
        loading = [request for request, each in self.loads.items() if each == session]
        if not loading or loading[0] in self.replay_runs:
            return []
        self.replay_runs.add(loading[0])
        asked = self.editor_requests.get(loading[0], ("", 0))[1]
        message = (
            f"{what} while the session/load at line {asked} replayed the history, before it "
            "was answered: a reopened session shows its recorded calls again and does not run "
            "them again (one may have run already)"
        )
        return [Violation("REC-1", line, message, (line, asked))]

    def _released(self, method: str, terminal: str, line: int) -> list[Violation]:
        """ACP-1 for a terminal request naming a terminal the agent released: ACP makes its id
        invalid for every terminal request after the release (the editor answers an error)."""
        released = self.released.get(terminal)
        if method == "terminal/release" and released is None:
            self.released[terminal] = line
            return []
        if released is None:
            return []
        message = (
            f"the {method} names the terminal {json_dumps(terminal)}, which the agent released "
            f"at line {released}: a released terminal's id names none for any terminal request"
        )
        return [Violation("ACP-1", line, message, (line, released))]

    def _names_terminal(self, session: str, terminal: str, line: int) -> None:
        """The agent names `terminal` at `line`: when the editor created it after its cancel of
        the session's turn, the agent had read that cancel (it reads its input in order)."""
        cancel = self.cancels.get(session)
        answered = self.terminal_answers.get(terminal)
        if cancel is None or answered is None or answered < cancel:
            return
        self.read_cancel.setdefault(session, (line, terminal, answered))

    def _after_cancel(
        self,
        session: str,
        what: str,
        line: int,
        owners: list[tuple[str, str]] | None,
        *,
        at: int | None = None,
    ) -> list[Violation] | None:
        """ABORT-1 for a call started (`what`, at `line`; reported at `at`, where its owner
        came to be known) after the agent had read the editor's `session/cancel` of the turn,
        once a cancel. The cancel and the agent's messages cross on the pipe, so only a message
        naming what the editor answered after the cancel shows the agent had read it. `owners`:
        the cards whose call it may be (None: unknown). A call the recording shows running
        before that message (a terminal it embeds made, a write of its own) started before
        the agent may have read the cancel, and its further terminal or write is no call
        started; with the owner unknown while such a call is open, nothing is said (None
        returned: the caller may learn the owner later)."""
        read = self.read_cancel.get(session)
        if read is None or session in self.started_after_cancel:
            return []
        proof, terminal, answered = read
        if owners is None and self._running_before(session, proof):
            return None
        if owners is not None and any(self._ran_before(key, proof) for key in owners):
            return []
        self.started_after_cancel.add(session)
        cancel = self.cancels[session]
        message = (
            f"{what} after the editor's session/cancel (line {cancel}), which it had read: line "
            f"{proof} names the terminal {json_dumps(terminal)}, created by the editor's answer "
            f"at line {answered}, after the cancel: after a cancel no call starts"
        )
        if at is None:
            return [Violation("ABORT-1", line, message, (line, cancel, proof))]
        return [Violation("ABORT-1", at, message, (at, line, cancel, proof))]

    def _ran_before(self, key: tuple[str, str], line: int) -> bool:
        """Whether the recording shows the card's call running before `line`."""
        return _started_before(self.cards[key], line)

    def _open_cards(self, session: str, shows: Callable[[_Card], bool]) -> list[tuple[str, str]]:
        """The open cards of the session's turn that `shows` holds of."""
        cards = self.cards
        return [
            key
            for key in self.turn_cards.get(session, [])
            if not cards[key].final and shows(cards[key])
        ]

    def _running_before(self, session: str, line: int) -> list[tuple[str, str]]:
        """The open cards of the session's turn whose call ran before `line`."""
        return self._open_cards(session, lambda card: _started_before(card, line))

    def _open_with_command(self, session: str, command: str) -> list[tuple[str, str]]:
        """The open cards of the session's turn whose `rawInput` holds `command`."""
        return self._open_cards(
            session,
            lambda card: (
                isinstance(card.raw_input, dict) and card.raw_input.get("command") == command
            ),
        )

    def _unplaced_dropped(self, session: str) -> None:
        """A new turn of the session: its last turn's terminals of no known call are left."""
        for unplaced in (self.unplaced_creations, self.unplaced_terminals):
            for key in [key for key, each in unplaced.items() if each[0] == session]:
                del unplaced[key]

    def _placed(self, key: tuple[str, str], terminal: str, line: int) -> list[Violation]:
        """The card `key` embeds `terminal`, made after the agent read the cancel while a call
        already running could have asked for it: ABORT-1 unless the card's is that call."""
        unplaced = self.unplaced_terminals.pop(terminal, None)
        if unplaced is None:
            return []
        session, what, created = unplaced
        return self._after_cancel(session, what, created, [key], at=line) or []

    def _uncreated(self, call: str, terminal: str, line: int) -> list[Violation]:
        """ACP-1 for a card showing a terminal no `terminal/create` made, when the editor
        declared terminals and not Zed's `_meta.terminal_output` (under which the agent runs
        the terminal itself and names it as it likes): the editor has no such terminal."""
        if self.client is None or self.client.get("terminal") is not True:
            return []
        extension = self.client.get("_meta")
        if isinstance(extension, dict) and extension.get("terminal_output") is True:
            return []
        if terminal in self.terminals:
            return []
        shown = f"{call}'s card shows the terminal {json_dumps(terminal)}"
        if not self.shapeless_creations:
            message = (
                f"{shown}, which no terminal/create answered: an editor shows only a terminal it "
                "created"
            )
            return [Violation("ACP-1", line, message)]
        # The answer that names this terminal, if one does, else the latest: the one the agent
        # most likely read the id from.
        naming = [each for each in self.shapeless_creations if terminal in each[2].values()]
        answered, asked, result = (naming or self.shapeless_creations)[-1]
        message = (
            f"{shown}, but the editor's answer at line {answered} to the terminal/create at line "
            f"{asked} gave no terminalId ACP reads ({_result_shown(result)}): no terminal was "
            f"made, and the card's {json_dumps(terminal)} has nothing behind it; an editor shows "
            "only a terminal it created"
        )
        return [Violation("ACP-1", line, message, (line, answered, asked))]

    def _relative(self, path: object, what: str, line: int) -> list[Violation]:
        return [] if self.relative_cwd else _relative_path(path, what, line)

    def _undeclared(self, what: str, line: int) -> list[Violation]:
        """ACP-2 for a terminal, ACP-1 for a file-system method, that the editor's
        `initialize` did not declare it has (a recording with no `initialize` is not judged).
        A terminal's other requests (output, wait, kill, release) follow its creation, the
        fault blamed once there."""
        if self.client is None:
            return []
        client = self.client
        terminal = client.get("terminal") is True
        extension = client.get("_meta")
        match what:
            case "terminal":  # a card's terminal: created, or its output sent in `_meta`
                streamed = isinstance(extension, dict) and extension.get("terminal_output") is True
                declared, rule = terminal or streamed, "ACP-2"
                said = "neither terminal nor _meta.terminal_output"
                shown = "a card shows a terminal"
            case "terminal/create":
                declared, rule, said = terminal, "ACP-2", "no terminal"
                shown = f"the agent sent {what}"
            case "fs/read_text_file" | "fs/write_text_file":
                name = "readTextFile" if what == "fs/read_text_file" else "writeTextFile"
                file_system = client.get("fs")
                has = isinstance(file_system, dict) and file_system.get(name) is True
                declared, rule, said = has, "ACP-1", f"no fs.{name}"
                shown = f"the agent sent {what}"
            case _:
                return []
        if declared:
            return []
        message = (
            f"{shown}, but the editor's initialize (line {self.initialize_line}) declared {said} "
            "among its clientCapabilities: an agent uses only what the editor declared"
        )
        return [Violation(rule, line, message, (line, self.initialize_line))]

    def _update(self, params: Mapping[str, Any], line: int) -> list[Violation]:
        update = params.get("update")
        kind = update.get("sessionUpdate") if isinstance(update, dict) else None
        from loopspec.properties.validators.acp_strict import (  # noqa: PLC0415 (slow: pydantic)
            read_session_update,
            validate_session_update,
        )

        # Another update (a message chunk, a plan) is held to the schema alone; one that names
        # no kind may be a card, and is not valid ACP whatever it is.
        if isinstance(kind, str) and kind not in CARD_UPDATES:
            # The schema costs about 2.5 ms a message (a union of every kind), the SDK's reading
            # 20 us: a stream's many message chunks are each given back unchanged by the SDK,
            # and only an update it changes is asked of the schema.
            read = read_session_update(params)
            if read == params:
                return []
            if read is None:
                misspelt = self._misspelt_kind(params, kind, line)
                if misspelt:
                    return misspelt
            return _other_update(kind, validate_session_update(params), line)

        found: list[Violation] = []
        problems = validate_session_update(params)
        if problems:
            what = _update_words(kind if isinstance(kind, str) else "session")
            message = f"{what} is not valid ACP: {problems[0]}"
            found.append(Violation("ACP-1", line, message))
            # The card as the editor shows it on (what the SDK reads of the message): judged by
            # a card the message left stale, the call's end would be blamed on what the message
            # did change (Zed's Write card, refused for its `"oldText": null` before that was
            # read as ACP's own, was blamed RW-1 against its first, empty, rawInput).
            read = read_session_update(params)
            if read is None or read["update"].get("sessionUpdate") not in CARD_UPDATES:
                self._shown_unread(params, update, kind, line)
                return found
            sent = update.get("status") if isinstance(update, dict) else None
            dropped = sent is not None and "status" not in read["update"]
            params, update = read, read["update"]
            kind = update["sessionUpdate"]
        else:
            dropped, sent = False, None
        assert isinstance(update, dict)  # (validated, or as the SDK read it)
        key = (str(params["sessionId"]), str(update["toolCallId"]))
        card = self.cards.get(key)
        if dropped and card is not None:
            card.dropped_status = (sent, line)
        if key[0] in self.unknown_sessions:
            self.astray.setdefault(key[1], (key[0], line))
        if kind == "tool_call":
            loaded = self.loaded.get(key[0])
            if loaded is not None and (card is None or card.final):
                # Blamed once a load: the replay's other cards come from the same fault.
                self.loaded[key[0]] = -1
                if loaded >= 0:
                    found.append(_after_load(key[1], loaded, line))
            elif (idle := self.idle.get(key[0])) is not None and (card is None or card.final):
                if key[0] not in self.loading:
                    # Blamed once between two turns, as after a load.
                    self.idle[key[0]] = (-1, idle[1])
                    if idle[0] >= 0:
                        found.append(_between_turns(key[1], idle, line))
            elif card is not None and card.final and key[0] not in self.loading:
                found.append(_reused(key[1], card, line))
            if card is not None and card.final and key[0] not in self.loading:
                card = None  # another call: a card of its own, judged as any
            if card is None:
                card = self.cards[key] = _Card(line)
                shown = self.turn_cards.setdefault(key[0], [])
                if key not in shown:
                    shown.append(key)
            replayed = self.replayed.get(key[0]) if key[0] in self.loading else None
            if replayed is not None and key not in replayed:
                replayed.append(key)
            elif card.final:
                card.reshown = True
        elif card is None and key[0] in self.unknown_sessions:
            return found  # the session's fault, blamed once (ACP-1), not each of its calls'
        elif card is None:
            message = f"the tool_call_update for {key[1]} names no call a tool_call showed"
            # The same id shown in another session: the update names the wrong session.
            other = next((k for k in self.cards if k[1] == key[1] and k[0] != key[0]), None)
            if other is not None:
                message += (
                    f" in session {json_dumps(key[0])}: a tool_call showed it in session "
                    f"{json_dumps(other[0])} (line {self.cards[other].shown_line})"
                )
            return [*found, Violation("ADJ-2", line, message)]
        elif card.final and not card.reshown:
            changed = _changed_after_end(key[1], card, update, line)
            card.reshown = bool(changed)
            found.extend(changed)
        card.unread = False
        if any(item["type"] == "terminal" for item in update.get("content") or ()):
            found.extend(self._undeclared("terminal", line))
        if "rawInput" in update:
            card.raw_input, card.raw_line = update["rawInput"], line
        if "content" in update:  # ACP: an update's content replaces the card's
            card.content = update["content"]
            card.diffs = [
                (str(item["path"]), str(item["newText"]), line)
                for item in update["content"]
                if item["type"] == "diff"
            ]
            card.old_texts = [
                (str(item["path"]), item.get("oldText"), line)
                for item in update["content"]
                if item["type"] == "diff"
            ]
            ends = update.get("status") in FINAL_STATUSES
            for path, old_text in _one_diff_each(card.old_texts).items():
                if old_text and not ends and path not in card.written:
                    card.shown_old[path] = (old_text, line)
            if not ends:
                for path, new_text in _one_diff_each(card.diffs).items():
                    if path not in card.written and new_text is not None:
                        card.shown_new[path] = (new_text, line)
            if not card.final:
                self._shown_after_write(key[0], card)
        for item in update.get("content") or ():
            if item["type"] == "terminal":
                card.terminal = (str(item["terminalId"]), line)
                if all(shown != card.terminal[0] for shown, _line in card.terminals):
                    card.terminals.append(card.terminal)
                found.extend(self._placed(key, card.terminal[0], line))
                created = self.terminal_lines.get(card.terminal[0])
                if created is not None:
                    card.ran_at(created)
                self._names_terminal(key[0], card.terminal[0], line)
                found.extend(self._uncreated(key[1], card.terminal[0], line))
        status = update.get("status", "pending" if kind == "tool_call" else card.status)
        card.status = status
        if status in FINAL_STATUSES and not card.final:
            card.final, card.ended_line, card.ended_status = True, line, status
            cancel_read = self.read_cancel.get(key[0])
            if status == "completed" and cancel_read and card.shown_line > cancel_read[0]:
                what = f"{key[1]} ended completed, its card first shown at line {card.shown_line}"
                found.extend(self._after_cancel(key[0], what, line, [key]) or ())
            blamed = self._ended(key[1], card, line)
            card.blamed = bool(blamed)
            return [*found, *blamed, *self._settled(line)]
        return found

    def _replayed_open(self, session: str, asked: int, line: int) -> list[Violation]:
        """REC-1 for a `session/load` answered while a card its replay showed never got
        `completed` or `failed`: the history holds a call without a result, which a reopened
        session answers (an error, its card failed), and the editor shows it running with no
        turn to end it. The card stays open: an end sent later is not blamed again."""
        open_cards = [key for key in self.replayed.pop(session, []) if not self.cards[key].final]
        if not open_cards:
            return []
        first = self.cards[open_cards[0]]
        names = ", ".join(key[1] for key in open_cards)
        message = (
            f"the session/load at line {asked} is answered with {names}, which its replay "
            f"showed (line {first.shown_line}), still {first.status}: a reopened session gives "
            "each call of its history without a result one (an error, its card failed), and the "
            "editor "
            "shows this card running with no turn to end it"
        )
        related = (line, *(self.cards[key].shown_line for key in open_cards), asked)
        return [Violation("REC-1", line, message, related)]

    def _misspelt_kind(self, params: Mapping[str, Any], kind: str, line: int) -> list[Violation]:
        """ACP-1 for an update whose `sessionUpdate` the pinned ACP lacks and misspells one it
        has (`tool_cal`, `agent_message`): the editor drops it. A kind close to none is a newer
        ACP's, not judged. A misspelt card's message is the call's one fault: a `tool_call`
        still shows its call, and a `tool_call_update` leaves the card's turn unblamed on ADJ-3
        for the end it may have carried, until a readable message updates it."""
        from loopspec.properties.validators.acp_strict import (  # noqa: PLC0415 (slow: pydantic)
            misspelt_update_kind,
        )

        nearest = misspelt_update_kind(kind)
        if nearest is None:
            return []
        update = params["update"]
        if nearest == "tool_call":
            self._shown_unread(params, update, nearest, line)
        card = self.cards.get((str(params.get("sessionId")), str(update.get("toolCallId"))))
        if nearest == "tool_call_update" and card is not None and not card.final:
            card.unread = True
        message = (
            f"the session/update's sessionUpdate {json_dumps(kind)} is no kind the pinned ACP "
            f"has: the nearest is {json_dumps(nearest)}, and an editor drops an update of a kind "
            "it does not know"
        )
        return [Violation("ACP-1", line, message)]

    def _shown_after_write(self, session: str, card: _Card) -> None:
        """A card of the session shows diffs: a write of its turn that no open card showed,
        of a file the card now shows, that made each change the card shows of it, was the
        card's own, made before its card showed it (asked after it, DEC-2 says so)."""
        writes = self.unshown_writes.get(session)
        if not writes:
            return
        kept = []
        for path, content, write_line, held in writes:
            shown = [
                (old_text, new_text)
                for (each, new_text, _line), (_path, old_text, _at) in zip(
                    card.diffs, card.old_texts, strict=True
                )
                if each == path
            ]
            made = all(_made(content, old, new) for old, new in shown)
            if shown and made and path not in card.written:
                card.wrote(path, content, write_line, held)
            else:
                kept.append((path, content, write_line, held))
        self.unshown_writes[session] = kept

    def _settled(self, line: int) -> list[Violation]:
        """RW-1 for a write that several cards could have made, once they have all ended, when
        each ends showing a diff of the file, shown before the write, whose new text the write
        does not hold: whichever card's write it was, that card showed another change."""
        found: list[Violation] = []
        for write in self.unowned:
            keys = sorted(write.candidates)
            cards = [self.cards[key] for key in keys]
            if not all(card.final for card in cards):
                continue
            write.candidates = set()  # nothing can rule a card out any more: dropped below
            unwritten = []
            for card in cards:
                own = card.written.get(write.path)  # a later write is its own, compared at its end
                diff = _unwritten_diff(card, write.path, write.content, write.line)
                if card.blamed or diff is None or (own is not None and own[1] > write.line):
                    break
                unwritten.append((card, diff))
            else:
                names = " and ".join(key[1] for key in keys)
                message = (
                    f"{names} ended each showing a diff of {json_dumps(write.path)} whose new "
                    f"text is not in {_clipped(write.content)}, which the editor was asked to "
                    "write there for one of them: the editor showed one change while another "
                    "was made"
                )
                related = [line]
                for card, (_new_text, shown_line) in unwritten:
                    related += [card.ended_line, shown_line]
                    card.blamed = True
                found.append(Violation("RW-1", line, message, (*related, write.line)))
        self.unowned = [write for write in self.unowned if write.candidates]
        return found

    def _shown_unread(
        self, params: Mapping[str, Any], update: object, kind: object, line: int
    ) -> None:
        """A card message the ACP SDK cannot read, which names a call no tool_call showed and
        may be the call's `tool_call` (it says so, or names no kind): the call is taken as
        shown by it, so that its updates are judged by what they say and not each blamed on
        ADJ-2 as naming an unknown call, the message's one fault being ACP-1's."""
        if not isinstance(update, dict) or (isinstance(kind, str) and kind != "tool_call"):
            return
        call = update.get("toolCallId")
        key = (str(params.get("sessionId")), str(call))
        if not isinstance(call, str):
            return
        if key in self.cards:
            # Shown again: a replay, or another call reusing the id, which ACP-1's one
            # fault here leaves unjudged rather than blamed on the call that ended.
            self.cards[key].reshown = self.cards[key].final
            return
        card = self.cards[key] = _Card(line)
        self.turn_cards.setdefault(key[0], []).append(key)
        card.raw_input = update.get("rawInput")
        card.unread = True

    def _ran_refused(self, call: str, card: _Card, line: int) -> list[Violation]:
        """DEC-2 when a call whose permission request the editor refused ends `completed`, or
        shows a terminal created after the refusal: it ran, which only an allow lets it."""
        if card.refused is None:
            return []
        answer, answer_line = card.refused
        if card.status == "completed":
            message = (
                f"{call} ended completed, but its permission request was answered {answer} "
                f"(line {answer_line}): only an allowed call runs, and a refused one ends failed"
            )
            return [Violation("DEC-2", line, message, (line, answer_line))]
        created = self._own_terminal_line(card)
        if created is None or created < answer_line:
            return []
        message = (
            f"{call} ended showing a terminal created (line {created}) after its permission "
            f"request was answered {answer} (line {answer_line}): a refused call never runs"
        )
        return [Violation("DEC-2", line, message, (line, created, answer_line))]

    def _ran_unasked(self, call: str, card: _Card, line: int) -> list[Violation]:
        """DEC-2 when a call that asked permission ends `completed` before that request was
        answered, or showing a terminal created, or having had the editor write its file,
        before it was: it ran unapproved."""
        if card.asked is None:
            return []
        asked_line, answered = card.asked[1], card.answered_line
        if answered is None and card.status == "completed":
            message = (
                f"{call} ended completed while its permission request (line {asked_line}) was "
                "unanswered: a call runs only once allowed"
            )
            return [Violation("DEC-2", line, message, (line, asked_line))]
        # What it made happen in the editor, each with its line.
        made = []
        if card.first_write is not None:
            path, written = card.first_write
            made.append((f"the editor asked to write {json_dumps(path)} (line {written})", written))
        created = self._own_terminal_line(card)
        if created is not None:
            made.insert(0, (f"a terminal created (line {created})", created))
        for what, made_line in made:
            if made_line < asked_line:
                when = f"before its permission request (line {asked_line})"
            elif answered is None or made_line < answered:
                when = f"while its permission request (line {asked_line}) was unanswered"
            else:
                continue
            message = f"{call} ended with {what} {when}: a call runs only once allowed"
            return [Violation("DEC-2", line, message, (line, made_line, asked_line))]
        return []

    def _own_terminal_line(self, card: _Card) -> int | None:
        """The line of the `terminal/create` that made the terminal the card shows, when that
        terminal may be the call's own: not one made for another command than the card's
        (RW-1 blames that card for showing another call's run, which says nothing of when
        this call ran)."""
        if card.terminal is None:
            return None
        ran = self.terminals.get(card.terminal[0])
        shown = card.raw_input.get("command") if isinstance(card.raw_input, dict) else None
        if ran is not None and isinstance(shown, str) and ran[0] != shown:
            return None
        created = self.terminal_lines.get(card.terminal[0])
        return None if created in self.blamed_creations else created

    def _ended(self, call: str, card: _Card, line: int) -> list[Violation]:
        refused = (
            []
            if card.run_blamed
            else self._ran_refused(call, card, line) or self._ran_unasked(call, card, line)
        )
        if refused:
            card.run_blamed = True
            return refused
        if card.asked is not None and card.approved:
            approved, asked_line = card.asked
            # (As section 2 compares inputs: `1.0` is 1, `true` is not 1, as Python's != has it.)
            if approved is not None and not same_json(approved, card.raw_input):
                message = (
                    f"{call} ended showing the input {_shown(card.raw_input)} on its card, but "
                    f"the permission request approved {_shown(approved)}: the editor showed one "
                    "input and asked approval for another"
                )
                return [Violation("RW-1", line, message, (line, card.raw_line, asked_line))]
        shown = card.raw_input.get("command") if isinstance(card.raw_input, dict) else None
        if isinstance(shown, str):
            # Each terminal it embedded, not its last alone: one made for the model's input
            # before a rewrite's ran that input too.
            for terminal, embedded in card.terminals:
                ran = self.terminals.get(terminal)
                if ran is None or ran[0] == shown:
                    continue
                which = (
                    "it shows"
                    if len(card.terminals) == 1
                    else f"{json_dumps(terminal)} it showed at line {embedded}"
                )
                message = (
                    f"{call} ended showing the command {json_dumps(shown)} on its card, but the "
                    f"terminal {which} ran {json_dumps(ran[0])}: the editor showed one command "
                    "while another ran"
                )
                return [Violation("RW-1", line, message, (line, card.raw_line, ran[1], embedded))]
        return self._diff_not_written(call, card, line)

    def _diff_not_written(self, call: str, card: _Card, line: int) -> list[Violation]:
        """RW-1 when the card ends showing a diff, shown before the file was written, whose new
        text the file was not given."""
        for path, _text, _line in card.diffs:
            if path not in card.written:
                continue
            content, write_line = card.written[path]
            unwritten = _unwritten_diff(card, path, content, write_line)
            if unwritten is None:
                shown = card.shown_new.get(path)
                # A diff shown as the call ran, replaced after the write: the editor showed
                # it when the file was written.
                if shown is None or shown[1] > write_line or _plain(shown[0]) in _plain(content):
                    continue
                new_text, shown_line = shown
                message = (
                    f"{call} showed a diff of {json_dumps(path)} whose new text is "
                    f"{_clipped(new_text)} (line {shown_line}) when the editor was asked to "
                    f"write {_clipped(content)} there (line {write_line}), and only then showed "
                    "another: the editor showed one change while another was made"
                )
                return [Violation("RW-1", line, message, (line, shown_line, write_line))]
            new_text, shown_line = unwritten
            message = (
                f"{call} ended showing a diff of {json_dumps(path)} whose new text is "
                f"{_clipped(new_text)}, but the editor was asked to write {_clipped(content)} "
                "there: the editor showed one change while another was made"
            )
            related = (line, card.ended_line, shown_line, write_line)
            return [Violation("RW-1", line, message, related)]
        return _other_file_shown(call, card, line) or _stale_old_text(call, card, line)

    def _writing(self, params: Mapping[str, Any], line: int) -> list[Violation]:
        """An `fs/write_text_file` request: what the editor was asked to write, for the open
        card of its session that shows a diff of the file and could have run by then (not one
        whose permission request was refused or is unanswered). With several, the write waits
        until all but one are ruled out (`_Write`). With none, and one open card showing the
        file whose permission request was refused, that refused call wrote it (DEC-2)."""
        path, content = params.get("path"), params.get("content")
        if not isinstance(path, str) or not isinstance(content, str):
            return []
        session = str(params.get("sessionId"))
        open_showing = self._open_showing(session, path)
        named: list[Violation] = []
        if not open_showing:
            # The one open card of another session showing the file: the request named
            # another session than its call's (ACP-1), and the write is that card's. Not one
            # of a session the editor does not know: that card named the wrong one (blamed).
            others = [
                key
                for other in self.turn_cards
                if other != session and other not in self.unknown_sessions
                for key in self._open_showing(other, path)
            ]
            if len(others) == 1:
                named = [self._write_in_other_session(session, others[0], path, line)]
                session = others[0][0]
                open_showing = others
        shows = "shows a diff of"
        if not open_showing:
            # A card showing a diff of another path (resolved against another folder, say)
            # whose input names the file written.
            open_showing, shows = self._open_naming(session, path), "names in its rawInput"
        what = f"the agent asked the editor to write {json_dumps(path)}"
        named.extend(self._after_cancel(session, what, line, open_showing or None) or ())
        known = self.files.get((session, path))
        read_line = known[1] if known is not None else None
        self.files[(session, path)] = (content, read_line)
        held = (known[0], read_line) if known is not None and read_line is not None else None
        if not open_showing:
            refused = self._ended_refused(
                session,
                lambda card: any(
                    each == path and _made(content, old_text, new_text)
                    for (each, new_text, _at), (_path, old_text, _shown) in zip(
                        card.diffs, card.old_texts, strict=True
                    )
                ),
            )
            if refused:
                what = f"the editor was asked to write {json_dumps(path)}"
                shows = f"shows a diff of, ended {self._ended_words(refused)}"
                return [*named, *self._ran_barred(refused[0], what, shows, line)]
            self.unshown_writes.setdefault(session, []).append((path, content, line, held))
        showing = {
            key for key in open_showing if self.cards[key].asked is None or self.cards[key].approved
        }
        if len(showing) == 1:
            self.cards[next(iter(showing))].wrote(path, content, line, held)
        elif showing:
            self.unowned.append(_Write(session, path, content, line, showing, held=held))
        # The open cards showing the file that could not have run: refused, or still asking.
        barred = [key for key in open_showing if key not in showing]
        if showing or len(barred) != 1:
            return named
        what = f"the editor was asked to write {json_dumps(path)}"
        return [*named, *self._ran_barred(barred[0], what, shows, line)]

    def _ran_barred(
        self, key: tuple[str, str], what: str, shows: str, line: int
    ) -> list[Violation]:
        """DEC-2 for `what` the editor was asked to do at `line` (a write, a terminal) that
        only the open card `key` shows, and that card could not have run: its permission
        request was refused or is unanswered."""
        card = self.cards[key]
        assert card.asked is not None
        if card.refused is not None:
            answer, decided = card.refused
            why = (
                f"after its permission request was answered {answer} (line {decided}): a "
                "refused call never runs"
            )
        elif card.answered_line is None:
            decided = card.asked[1]
            why = (
                f"while its permission request (line {decided}) was unanswered: a call runs "
                "only once allowed"
            )
        else:
            return []
        message = f"{what}, which only {key[1]}'s card {shows}, {why}"
        card.run_blamed = True
        return [Violation("DEC-2", line, message, (line, decided))]

    def _creating(self, session: str, command: str, line: int) -> list[Violation]:
        """A `terminal/create` running `command`: DEC-2 when the one open card of the session
        whose `rawInput` holds that `command` could not have run (refused, or still asking)
        and no card that could have shows it. Blamed here, the terminal is not blamed again
        when the card embeds it."""
        showing = self._open_with_command(session, command)
        could = [
            key for key in showing if self.cards[key].asked is None or self.cards[key].approved
        ]
        what = f"the editor was asked to create a terminal running {json_dumps(command)}"
        if not showing:
            refused = self._ended_refused(
                session,
                lambda card: (
                    isinstance(card.raw_input, dict) and card.raw_input.get("command") == command
                ),
            )
            shows = f"shows as its command, ended {self._ended_words(refused)}"
            found = self._ran_barred(refused[0], what, shows, line) if refused else []
        elif could or len(showing) != 1:
            return []
        else:
            found = self._ran_barred(showing[0], what, "shows as its command", line)
        if found:
            self.blamed_creations.add(line)
        return found

    def _ended_refused(self, session: str, shows: Callable[[_Card], bool]) -> list[tuple[str, str]]:
        """The one card of the session's turn that ended after the editor refused its
        permission request and `shows` the run at hand (a diff of the file written, the
        command a terminal runs), not yet blamed for running (empty: none, or several): a
        bridge that ends a refused card failed and then runs the call anyway."""
        ended = [
            key
            for key in self.turn_cards.get(session, [])
            if self.cards[key].final
            and self.cards[key].refused is not None
            and not self.cards[key].run_blamed
            and shows(self.cards[key])
        ]
        return ended if len(ended) == 1 else []

    def _ended_words(self, keys: list[tuple[str, str]]) -> str:
        """How the first card of `keys` ended: `failed at line 9` (empty for none)."""
        if not keys:
            return ""
        card = self.cards[keys[0]]
        return f"{card.ended_status} at line {card.ended_line}"

    def _open_naming(self, session: str, path: str) -> list[tuple[str, str]]:
        """The open cards of the session's turn whose `rawInput` holds `path` as a value."""
        return self._open_cards(
            session,
            lambda card: isinstance(card.raw_input, dict) and path in card.raw_input.values(),
        )

    def _open_showing(self, session: str, path: str) -> list[tuple[str, str]]:
        """The open cards of the session's turn that show a diff of `path`."""
        return self._open_cards(
            session, lambda card: any(shown == path for shown, _text, _line in card.diffs)
        )

    def _write_in_other_session(
        self, session: str, key: tuple[str, str], path: str, line: int
    ) -> Violation:
        """ACP-1 for an `fs/write_text_file` naming a session none of whose open cards shows
        the file, while one open card of another session does: the agent named another
        session than its call's, in whose folder or buffers an editor may write it."""
        card = self.cards[key]
        message = (
            f"the fs/write_text_file names the session {json_dumps(session)}, but the one open "
            f"card showing a diff of {json_dumps(path)} is {key[1]}'s, in the session "
            f"{json_dumps(key[0])} (line {card.shown_line}): a request names its call's session"
        )
        return Violation("ACP-1", line, message, (line, card.shown_line))

    def _asked_first(self, key: tuple[str, str], line: int) -> list[Violation]:
        """A call's first permission request: it had not run, so a write before it is not its.
        A write left with one card that could have made it becomes that card's, judged at
        once if the card has ended."""
        found: list[Violation] = []
        for write in self.unowned:
            if key not in write.candidates:
                continue
            write.candidates.discard(key)
            if len(write.candidates) != 1:
                continue
            owner = next(iter(write.candidates))
            card = self.cards[owner]
            earlier = card.written.get(write.path)
            if earlier is None or earlier[1] < write.line:
                card.wrote(write.path, write.content, write.line, write.held)
            if card.final and not card.blamed:
                blamed = self._diff_not_written(owner[1], card, line)
                card.blamed = bool(blamed)
                found.extend(blamed)
        self.unowned = [write for write in self.unowned if len(write.candidates) > 1]
        return found

    def _permission(self, request_id: Any, params: Mapping[str, Any], line: int) -> list[Violation]:
        from loopspec.properties.validators.acp_strict import (  # noqa: PLC0415 (slow: pydantic)
            read_permission_request,
            validate_permission_request,
        )

        found: list[Violation] = []
        problems = validate_permission_request(params)
        if problems:
            message = f"the permission request is not valid ACP: {problems[0]}"
            found.append(Violation("ACP-1", line, message))
            # The request as the editor shows it, as for a card message (`_update`).
            read = read_permission_request(params)
            if read is None:
                return found
            params = read
        tool_call = params["toolCall"]
        found.extend(_shared_option_ids(params["options"], line))
        key = (str(params["sessionId"]), str(tool_call["toolCallId"]))
        what = f"the agent asked the editor's permission to run {key[1]}"
        found.extend(self._run_in_replay(key[0], what, line))
        card = self.cards.get(key)
        if card is None:  # ACP lets a request show the call itself
            card = self.cards[key] = _Card(line)
            self.turn_cards.setdefault(key[0], []).append(key)
            card.raw_input = tool_call.get("rawInput")
            card.requested_only = line
        elif card.final and not card.reshown:
            message = (
                f"the permission request names {key[1]}, whose card ended {card.status} (line "
                f"{card.ended_line}): a call is asked before it runs, never after its end"
            )
            found.append(Violation("DEC-2", line, message, (line, card.ended_line)))
        if card.asked is None:
            found.extend(self._asked_first(key, line))
        elif card.answered_line is None and _another_input(card.asked[0], tool_call):
            found.append(_two_calls_asking(key[1], card.asked[1], line))
        card.asked = (tool_call.get("rawInput"), line)
        card.approved = False
        card.answered_line = None
        allowing = {
            option["optionId"] for option in params["options"] if option.get("kind") in ALLOW_KINDS
        }
        refusing = {
            option["optionId"]: option["kind"]
            for option in params["options"]
            if isinstance(option.get("kind"), str) and option["kind"] not in ALLOW_KINDS
        }
        pending = self.asking.setdefault(_request_key(request_id), [])
        if pending:
            found.append(_request_id_reused(request_id, pending[-1][3], line))
        pending.append((key, allowing, refusing, line))
        return found

    def _left_asking(self, session: str, prompt: str, stop: Any, line: int) -> list[Violation]:
        """DEC-2 for a prompt answered (otherwise than `cancelled`, after which the editor
        answers the requests itself) while a permission request the agent sent in its turn is
        unanswered and not withdrawn: a request is pending no longer than its call's turn, and
        the editor still asks the user about a call of a turn that ended. Once a turn."""
        asked = self.prompt_lines[prompt]
        left = sorted(
            (ask_line, key[1])
            for request, pending in self.asking.items()
            if request in self.agent_requests and request not in self.withdrawn_requests
            for key, _allowing, _refusing, ask_line in pending
            # A call blamed for running unapproved: the bridge's not waiting, blamed once.
            if key[0] == session and ask_line > asked and not self.cards[key].run_blamed
        )
        if not left:
            return []
        ask_line, call = left[0]
        message = (
            f"the session/prompt at line {asked} is answered {json_dumps(stop)} while the "
            f"permission request about {call} (line {ask_line}) is unanswered: a request is "
            "pending no longer than its call's turn, and the editor still asks about it (an "
            "agent that stops waiting withdraws it with $/cancel_request)"
        )
        return [Violation("DEC-2", line, message, (line, ask_line, asked))]

    @staticmethod
    def _cancelled(open_cards: list[_Card], line: int) -> None:
        """A turn answered `cancelled`: the editor marks its unfinished cards cancelled, so
        they end there (an update after it changes a card that ended: ADJ-2). A permission
        request still unanswered is not judged: the editor answers it `cancelled` after its
        cancel, and Zed's bridge answers the prompt without waiting for that answer (its call
        never runs)."""
        for card in open_cards:
            card.final, card.editor_ended = True, True
            card.status = card.ended_status = _CANCELLED
            card.ended_line = line

    def _answered_again(self, answered: str, line: int) -> list[Violation]:
        """ACP-1 for an answer under the id of an editor's request the agent answered already
        (a prompt's is judged with its turn): JSON-RPC answers a request once. One that a
        request of the agent's awaiting its answer holds too is the editor's answer to it."""
        earlier = self.answered_requests.get(answered)
        if earlier is None or answered in self.agent_requests:
            return []
        method, asked_line, answer_line = earlier
        if method == "session/prompt":
            return []
        message = (
            f"the editor's {method} at line {asked_line} is answered again, after its answer at "
            f"line {answer_line}: a JSON-RPC request is answered once"
        )
        return [Violation("ACP-1", line, message, (line, answer_line, asked_line))]

    def _answer(
        self, request: str, result: Any, line: int, *, editor_awaits: bool
    ) -> list[Violation]:
        if not isinstance(result, dict):
            return []
        # Without an outcome, an answer is the request's when no request of the editor's
        # awaited its answer under that id (the editor's answer then reads as choosing none).
        if request in self.asking and ("outcome" in result or not editor_awaits):
            key, allowing, refusing, _line = self.asking[request].pop(0)
            if not self.asking[request]:
                del self.asking[request]
            card = self.cards[key]
            outcome = result.get("outcome")
            chosen = outcome.get("optionId") if isinstance(outcome, dict) else None
            card.approved = isinstance(chosen, str) and chosen in allowing
            card.answered_line = line
            if card.approved:
                card.refused = None
            elif isinstance(outcome, dict) and outcome.get("outcome") == _CANCELLED:
                card.refused = (_CANCELLED, line)
            elif isinstance(chosen, str) and chosen in refusing:
                # The option as the bridge named it too: an id that reads as an allow, under a
                # refusing kind, is the bridge's own mistake to find.
                kind = refusing[chosen]
                said = (
                    kind
                    if chosen == kind
                    else f"with {json_dumps(chosen)}, an option of kind {kind}"
                )
                card.refused = (said, line)
            else:  # no option it offered: the agent's SDK reads no choice, nothing allows it
                answer = outcome if "outcome" in result else result
                card.refused = (f"choosing none of its options ({_shown(answer)})", line)
            return []
        if "content" in result and request in self.reading:
            session, path = self.reading.pop(request)
            if isinstance(result["content"], str):
                self.files[(session, path)] = (result["content"], line)
            return []
        if "terminalId" in result and request in self.creating:
            terminal = str(result["terminalId"])
            self.terminal_answers[terminal] = line
            self.terminals[terminal] = self.creating.pop(request)
            self.terminal_lines[terminal] = self.creating_lines.pop(request)
            unplaced = self.unplaced_creations.pop(request, None)
            if unplaced is not None:
                self.unplaced_terminals[terminal] = unplaced
            return []
        if request in self.creating and not editor_awaits:
            # The editor's answer, not in ACP's shape: no terminal was made. (Under an id a
            # request of the editor's awaits too, it may be the agent's answer to that one.)
            del self.creating[request]
            self.shapeless_creations.append((line, self.creating_lines.pop(request), result))
            return []
        if "stopReason" in result and request in self.prompt_answers:
            asked, answered = self.prompt_lines[request], self.prompt_answers[request]
            message = (
                f"the session/prompt at line {asked} is answered again, after its answer at "
                f"line {answered}: a JSON-RPC request is answered once"
            )
            return [Violation("ACP-1", line, message, (line, answered, asked))]
        if "stopReason" in result and request in self.prompts:
            session = self.prompts.pop(request)
            self.prompt_answers[request] = line
            self.idle[session] = (line, "session/prompt")
            self.read_cancel.pop(session, None)
            found = _prompt_answer(result, line)
            open_cards = [
                (key, self.cards[key])
                for key in self.turn_cards.pop(session, [])
                if not self.cards[key].final and not self.cards[key].unread
            ]
            if result["stopReason"] == _CANCELLED:
                self._cancelled([card for _key, card in open_cards], line)
                if session in self.cancels:
                    return found
                asked = self.prompt_lines[request]
                message = (
                    f"the session/prompt at line {asked} is answered cancelled, but the editor "
                    "sent no session/cancel for its session since: ACP's cancelled says the "
                    "editor cancelled the turn (one the agent ends itself has another stop "
                    "reason, or a JSON-RPC error)"
                )
                related: tuple[int, ...] = (line, asked)
                withdrawn = self.withdrawn.get(session)
                if withdrawn is not None:
                    message += (
                        f"; the $/cancel_request at line {withdrawn[0]} withdrew the agent's "
                        f"request of that id (line {withdrawn[1]}): each side numbers its own"
                    )
                    related = (*related, *withdrawn)
                return [*found, Violation("ACP-1", line, message, related)]
            found.extend(self._left_asking(session, request, result["stopReason"], line))
            if not open_cards:
                return found
            names = ", ".join(
                key[1] + _why_open(card, self.astray.get(key[1])) for key, card in open_cards
            )
            message = (
                f"the prompt turn ended ({json_dumps(result['stopReason'])}) with {names} still "
                f"{open_cards[0][1].status}: no update gave the card completed or failed"
            )
            cancel = self.cancels.get(session)
            if cancel is not None:
                # The answer may have crossed the cancel on the pipe, or followed it.
                message += (
                    f"; the editor's session/cancel (line {cancel}) came before this answer: "
                    "an agent that read it answers the prompt cancelled (the editor then ends "
                    "the cards itself), and one that had not ends every card first"
                )
            related = (line, *(card.shown_line for _key, card in open_cards))
            if cancel is not None:
                related = (*related, cancel)
            return [*found, Violation("ADJ-3", line, message, related)]
        return []


# The agent's requests to the editor's file system and terminals (ACP's client methods).
_CLIENT_METHODS = frozenset(
    {
        "fs/read_text_file",
        "fs/write_text_file",
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/release",
    }
)
# The methods most messages carry, which `feed` need not look for a misspelling of.
_COMMON_METHODS = frozenset(
    {
        "initialize",
        "session/new",
        "session/load",
        "session/prompt",
        "session/cancel",
        "session/update",
        "session/request_permission",
        *_CLIENT_METHODS,
    }
)
# The messages the agent sends naming a session: the editor's methods, and its requests.
_AGENT_METHODS = frozenset({"session/update", "session/request_permission", *_CLIENT_METHODS})
_AGENT_REQUESTS = frozenset({"session/request_permission", *_CLIENT_METHODS})


def _is_absolute(path: str) -> bool:
    """A POSIX path from its root, or a Windows one from a drive or a share."""
    return path.startswith(("/", "\\\\")) or (
        len(path) > 2 and path[0].isalpha() and path[1] == ":" and path[2] in "\\/"
    )


_RELATIVE_PATH = "an editor resolves a relative one against its own working folder"
_RELATIVE_CWD = "the agent's paths under it are not judged"


def _agent_answers(method: str) -> bool:
    """Whether `method` is an editor's request the pinned ACP has the agent answer: another
    (an extension's, a newer ACP's, the agent's own) has no answer to hold it to, and its
    answer may be the editor's."""
    from loopspec.properties.validators.acp_strict import (  # noqa: PLC0415 (with its models)
        answered_by_agent,
    )

    return answered_by_agent(method)


def _agent_envelope(method: str | None, message: Mapping[str, Any], line: int) -> list[Violation]:
    """ACP-1 for an agent's request sent with no id or an id ACP's `RequestId` is not (an
    integer, a string or null), or its `session/update` sent with an id: the editor cannot
    answer the one, and answers the other, which ACP makes a notification."""
    if method == "session/update" and "id" in message:
        said = "carries an id: ACP's session/update is a notification, which no one answers"
        return [Violation("ACP-1", line, f"the agent's session/update {said}")]
    if method not in _AGENT_REQUESTS:
        return []
    if "id" not in message:
        said = "carries no id: a JSON-RPC request without one is a notification, never answered"
        return [Violation("ACP-1", line, f"the agent's {method} {said}")]
    request_id = message["id"]
    if request_id is None or isinstance(request_id, str):
        return []
    if isinstance(request_id, int) and not isinstance(request_id, bool):
        return []
    said = f"{json_dumps(request_id)}, which is no integer nor string as ACP's request ids are"
    return [Violation("ACP-1", line, f"the agent's {method} carries the id {said}")]


def _client_request_shape(method: str, params: object, line: int) -> list[Violation]:
    """ACP-1 for an agent's file-system or terminal request whose params the pinned ACP
    schema refuses (a missing sessionId or path, a command that is no string)."""
    from loopspec.properties.validators.acp_strict import (  # noqa: PLC0415 (slow: pydantic)
        agent_request_schema_problems,
    )

    problems = agent_request_schema_problems(method, params)
    if not problems:
        return []
    return [
        Violation("ACP-1", line, f"the agent's {method} request is not valid ACP: {problems[0]}")
    ]


def _relative_path(
    path: object, what: str, line: int, why: str = _RELATIVE_PATH
) -> list[Violation]:
    """ACP-1 when `path` is a string that is not absolute, as ACP has every file path."""
    if not isinstance(path, str) or _is_absolute(path):
        return []
    message = (
        f"{what} is {json_dumps(path)}, a relative path: ACP's file paths are absolute ({why})"
    )
    return [Violation("ACP-1", line, message)]


def _request_id_reused(request_id: Any, earlier: int, line: int) -> Violation:
    """ACP-1 for a permission request sent with the id of one still unanswered: JSON-RPC
    pairs an answer with its request by id alone, so the editor's answer to either reads as
    the other's."""
    message = (
        f"the session/request_permission reuses the id {json_dumps(request_id)} of the "
        f"permission request at "
        f"line {earlier}, still unanswered: an answer names its request by id alone, so the "
        "editor's answer to either reads as the other's"
    )
    return Violation("ACP-1", line, message, (line, earlier))


def _another_input(asked: Any, tool_call: Mapping[str, Any]) -> bool:
    """Whether a permission request's `toolCall` shows another `rawInput` than `asked`, an
    earlier request's (a request without one shows none to compare)."""
    shown = tool_call.get("rawInput")
    return asked is not None and shown is not None and not same_json(shown, asked)


def _two_calls_asking(call: str, earlier: int, line: int) -> Violation:
    """ACP-1 for a permission request about another input for a call whose request about
    one is still unanswered: two calls were given one id, which ACP makes unique in a
    session (the editor shows one card for both)."""
    message = (
        f"the permission request asks about {call} with another rawInput than its request at "
        f"line {earlier}, still unanswered: two calls were given one toolCallId, which is "
        "unique within its session, and the editor shows one card for both"
    )
    return Violation("ACP-1", line, message, (line, earlier))


def _shared_option_ids(options: list[Any], line: int) -> list[Violation]:
    """DEC-2 when an option that allows and one that refuses share an optionId: the editor
    answers with the id alone, so a refusal reads as an allow (or the other way round)."""
    kinds: dict[str, set[bool]] = {}
    for option in options:
        if isinstance(option, dict) and isinstance(option.get("optionId"), str):
            allows = option.get("kind") in ALLOW_KINDS
            kinds.setdefault(option["optionId"], set()).add(allows)
    shared = [option_id for option_id, allows in kinds.items() if len(allows) == 2]
    if not shared:
        return []
    message = (
        f"the permission request offers an option that allows and one that refuses under one "
        f"optionId, {json_dumps(shared[0])}: the editor answers with the id alone, so the "
        "bridge cannot tell a refusal from an allow"
    )
    return [Violation("DEC-2", line, message)]


def _prompt_answer(result: Mapping[str, Any], line: int) -> list[Violation]:
    """ACP-1 for a `session/prompt` answer the pinned ACP schema refuses (a stop reason ACP
    does not have): an editor cannot read how the turn ended."""
    from loopspec.properties.validators.acp_strict import (  # noqa: PLC0415 (slow: pydantic)
        prompt_response_validator,
    )

    problems = prompt_response_validator().problems(result)
    schema = [problem for problem in problems if problem.startswith("schema: ")]
    if not schema:
        return []
    message = f"the session/prompt answer is not valid ACP: {schema[0]}"
    return [Violation("ACP-1", line, message)]


def _one_diff_each(diffs: Sequence[tuple[str, str | None, int]]) -> dict[str, str | None]:
    """The oldText (or newText) of each path that `diffs` shows one diff of (several diffs of
    a file, a unified diff's hunks or edits one after another, need not each hold another's
    text)."""
    counts: dict[str, int] = {}
    for path, _text, _line in diffs:
        counts[path] = counts.get(path, 0) + 1
    return {path: text for path, text, _line in diffs if counts[path] == 1}


# Typographic quotes, which Claude Code's Edit matches to the straight ones a model writes.
_STRAIGHT_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _holds(text: str, part: str) -> bool:
    """Whether `text` holds `part`, line breaks and typographic quotes aside: an editor may
    hand a file's CRLF lines to an agent whose edit names them LF, and a diff's old text may
    end with a line break that a hunk's text, its lines joined, does not."""
    return _plain(part).strip("\n") in _plain(text)


def _plain(text: str) -> str:
    return text.replace("\r\n", "\n").translate(_STRAIGHT_QUOTES)


def _stale_old_text(call: str, card: _Card, line: int) -> list[Violation]:
    """RW-1 when the card's diff of a file replaces a text that the file did not hold when
    the editor was asked to write it for the call (a whole read of it while the card was open
    said what it held), or that the diff the card ends with does not hold: the change shown
    was not the one made. The last diff of a path shown before the write, by a message that
    did not end the call, is the change the editor showed; a diff shown after it, or with the
    end, is the agent's account of what it did."""
    final = _one_diff_each(card.old_texts)
    for path, (old_text, shown_line) in card.shown_old.items():
        held = card.held.get(path)
        if held is not None and shown_line < held[2] and not _holds(held[0], old_text):
            content, read_line, write_line = held
            message = (
                f"{call} ended showing a diff of {json_dumps(path)} that replaces "
                f"{_clipped(old_text)}, but the file held {_clipped(content)} when the editor "
                f"was asked to write it (line {write_line}; read at line {read_line}): the "
                "editor showed one change while another was made"
            )
            related = (line, shown_line, read_line, write_line)
            return [Violation("RW-1", line, message, related)]
        ended_with = final.get(path)
        if not ended_with:
            continue
        ended_line = next(shown for each, _text, shown in card.old_texts if each == path)
        if ended_line != shown_line and not _holds(ended_with, old_text):
            message = (
                f"{call} ended showing a diff of {json_dumps(path)} that replaced "
                f"{_clipped(ended_with)}, but its card showed it replacing {_clipped(old_text)} "
                f"(line {shown_line}), which that text does not hold: the editor showed one "
                "change while another was made"
            )
            return [Violation("RW-1", line, message, (line, ended_line, shown_line))]
    return []


def _other_file_shown(call: str, card: _Card, line: int) -> list[Violation]:
    """RW-1 when the card ends showing diffs of files, none of which the editor was asked to
    write for the call, while it was asked to write another: the card shows another call's
    change (a relative diff path, which VIEW-4 lets a card keep, is not compared)."""
    if not card.written or not card.diffs:
        return []
    shown = {path for path, _text, _line in card.diffs}
    if not all(_is_absolute(path) for path in shown):
        return []
    written = {_normal(path) for path in card.written}
    if any(_normal(path) in written for path in shown):
        return []
    path, write_line = min(
        ((each, at) for each, (_content, at) in card.written.items()), key=lambda item: item[1]
    )
    other = sorted(shown)[0]
    message = (
        f"{call} ended showing a diff of {json_dumps(other)}, but the editor was asked to "
        f"write {json_dumps(path)} for it (line {write_line}), a file its card does not end "
        "showing: the editor showed one change while another was made"
    )
    related = (line, next(at for each, _text, at in card.diffs if each == other), write_line)
    return [Violation("RW-1", line, message, related)]


def _normal(path: str) -> str:
    """An absolute path with its `.`, `..` and empty segments resolved lexically."""
    return posixpath.normpath(path)


def _update_words(kind: str) -> str:
    """A session update named by its kind: `the plan update`, `the tool_call_update`."""
    return f"the {kind}" if kind.endswith("_update") else f"the {kind} update"


def _why_open(card: _Card, astray: tuple[str, int] | None) -> str:
    """What the report says of a card left open that a fault of another rule explains;
    `astray`: a session the editor does not know where a card message named the call, and
    that message's line."""
    if astray is not None:
        shown = (
            f"shown by the permission request at line {card.requested_only} alone: "
            if card.requested_only is not None
            else ""
        )
        return (
            f" ({shown}line {astray[1]} named it under the session {json_dumps(astray[0])}, "
            "which the editor does not know)"
        )
    if card.requested_only is not None:
        return (
            f" (shown by the permission request at line {card.requested_only} alone: no "
            "tool_call showed it)"
        )
    if card.dropped_status is not None:
        sent, line = card.dropped_status
        return f" (line {line} sent the status {json_dumps(sent)}, which ACP does not have)"
    return ""


def _other_update(kind: str, problems: list[str], line: int) -> list[Violation]:
    """ACP-1 for a session update other than a card's that the pinned ACP schema refuses (a
    plan entry's status ACP does not have, a message chunk whose content names no type), which
    an editor drops. The SDK's round trip is not asked of it: Zed's bridge writes a command
    without input as `"input": null`, which the schema allows and the SDK leaves out. A kind
    the pinned ACP does not have is a newer ACP's, not judged."""
    schema = [problem for problem in problems if problem.startswith("schema: ")]
    if not schema or any(
        problem.startswith("schema: at $.update: sessionUpdate ") for problem in schema
    ):
        return []
    message = f"{_update_words(kind)} is not valid ACP: {schema[0]}"
    return [Violation("ACP-1", line, message)]


def _changed_after_end(
    call: str, card: _Card, update: Mapping[str, Any], line: int
) -> list[Violation]:
    """ADJ-2 when a `tool_call_update` changes a card that already ended: its status (the
    call reopened, or ended again otherwise) or its content (another result shown). A call is
    answered once; an update repeating the end, or carrying only `_meta`, changes nothing."""
    status = update.get("status")
    if status is not None and status != card.ended_status:
        again = "" if card.editor_ended else " again,"
        change = (
            f"ends it{again} {status}{again[-1:]}"
            if status in FINAL_STATUSES
            else f"reopens it as {status}"
        )
    elif "content" in update and update["content"] != card.content:
        change = "replaces its content"
    else:
        return []
    if card.editor_ended:
        message = (
            f"the tool_call_update for {call} {change} after its turn was answered cancelled "
            f"(line {card.ended_line}), where the editor marks its unfinished cards cancelled: "
            "an agent sends a cancelled turn's updates before it answers the prompt"
        )
    else:
        message = (
            f"the tool_call_update for {call} {change} after its card ended "
            f"{card.ended_status} (line {card.ended_line}): a call is answered once, and what "
            "its card shows at its end stays"
        )
    return [Violation("ADJ-2", line, message, (line, card.ended_line))]


def _reused(call: str, card: _Card, line: int) -> Violation:
    """ACP-1 for a `tool_call` naming a call whose card ended, outside a `session/load`
    replaying it: another call given the same id, which ACP makes unique in a session (an
    editor updates the earlier card in place of showing a new one)."""
    message = (
        f"the tool_call for {call} reuses the id of a call whose card ended {card.ended_status} "
        f"(line {card.ended_line}): a toolCallId is unique within its session, and an editor "
        "updates the earlier card instead of showing this call"
    )
    return Violation("ACP-1", line, message, (line, card.ended_line))


def _made(content: str, old_text: str | None, new_text: str) -> bool:
    """Whether a file written with `content` shows the change a diff shows: a new file's text
    (no `oldText`) whole, or an edit's new text with its old text gone (unless the new text
    holds it), so that a write of the file by another call, which may hold a short new text
    already, is not taken for it."""
    if old_text is None:
        return _plain(content).strip("\n") == _plain(new_text).strip("\n")
    return _holds(content, new_text) and (
        _holds(new_text, old_text) or not _holds(content, old_text)
    )


def _after_load(call: str, answered: int, line: int) -> Violation:
    """ACP-1 for a `tool_call` after the session's `session/load` was answered and before
    its next prompt: ACP has an agent replay the history before it answers the load, and a
    call shown after it is in no turn (an editor may show it nowhere, or as a new call)."""
    message = (
        f"the tool_call for {call} comes after the session/load was answered (line "
        f"{answered}) and before any prompt: an agent replays a loaded session's history "
        "before it answers the load, and shows a new call only within a prompt turn"
    )
    return Violation("ACP-1", line, message, (line, answered))


def _between_turns(call: str, idle: tuple[int, str], line: int) -> Violation:
    """ACP-1 for a `tool_call` after the session's prompt was answered (or the session was
    opened) and before its next prompt: a call is shown within a prompt turn, which the answer
    ended (an editor may show it nowhere, or left running with no turn to end it)."""
    answered, method = idle
    before = "the next prompt" if method == "session/prompt" else "any prompt"
    message = (
        f"the tool_call for {call} comes after the {method} was answered (line {answered}) "
        f"and before {before}: an agent shows a call only within a prompt turn, which its "
        "answer ends, and the editor has no turn to end this card"
    )
    return Violation("ACP-1", line, message, (line, answered))


# The editor's requests whose answer opens a session, named by its sessionId (a load replays
# before it answers, and is told apart; a resume's answer names none).
_OPENING = frozenset({"session/new", "session/fork"})


def _result_session(message: Mapping[str, Any]) -> str | None:
    """The sessionId an answer's result names, if any."""
    result = message.get("result")
    session = result.get("sessionId") if isinstance(result, dict) else None
    return session if isinstance(session, str) else None


def _unwritten_diff(
    card: _Card, path: str, content: str, write_line: int
) -> tuple[str, int] | None:
    """The new text and line of the card's diff of `path`, shown before the write at
    `write_line`, when `content` (what was written) does not hold that text."""
    shown = [(new_text, line) for diff_path, new_text, line in card.diffs if diff_path == path]
    # Several diffs of one file (one edit after another) need not each survive.
    if len(shown) != 1:
        return None
    new_text, shown_line = shown[0]
    # A diff shown after the write is the agent's account of it, which the write's text cannot
    # check: Zed's bridge parses its own unified diff back, and a file without a last newline
    # gets jsdiff's "\ No newline at end of file" as a line. Line breaks and typographic quotes
    # aside: an agent keeps a file's CRLF lines, and Claude Code its quotes, where the model's
    # text, which the diff shows, has LF and straight ones.
    if _plain(new_text) in _plain(content) or shown_line > write_line:
        return None
    return shown[0]


# Shells a bridge may run a card's command line with, as `SHELL -c LINE` (`-lc`: a login
# shell, as Codex runs its commands).
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
_SHELL_FLAGS = frozenset({"-c", "-lc", "-ic", "-cl"})


def _shell_command(command: object, args: object) -> str | None:
    """The command line a `terminal/create` runs, to hold a card's `command` to: its `command`
    without `args`, or LINE of a shell run as `SHELL -c LINE`; None for any other split, which
    a card's one string cannot be compared with."""
    if not isinstance(command, str):
        return None
    if not args:
        return command
    shell = command.rsplit("/", 1)[-1]
    if (
        isinstance(args, list)
        and len(args) == 2
        and shell in _SHELLS
        and isinstance(args[0], str)  # (a flag of another type is no shell's, nor hashable)
        and args[0] in _SHELL_FLAGS
        and isinstance(args[1], str)
    ):
        return args[1]
    return None


def _json_kind(value: object) -> str:
    """What JSON value `value` is, in words: `an array`, `an object`, `a number`."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "an array" if isinstance(value, list) else "an object"


def _request_key(value: object) -> str:
    """A JSON-RPC id as a key: ids are strings or numbers, but a recording may hold any value."""
    return repr(value)


def _shown(value: Any) -> str:
    return "none" if value is None else json_dumps(value, sort_keys=True)


def _result_shown(result: Mapping[str, Any]) -> str:
    """An answer's result, as JSON while it is short, else by its members' names."""
    whole = json_dumps(result, sort_keys=True)
    if len(whole) <= _CLIP_CHARS:
        return f"its result: {whole}"
    return f"its result's members: {', '.join(map(json_dumps, sorted(result)))}"


_CLIP_CHARS = 120


def _clipped(text: str) -> str:
    """`text` as JSON writes it, cut past `_CLIP_CHARS` characters: a file's whole text can be
    long, and the report shortens a message from its end."""
    if len(text) <= _CLIP_CHARS:
        return json_dumps(text)
    return f"{json_dumps(text[:_CLIP_CHARS])}... ({len(text) - _CLIP_CHARS} more characters)"


def _messages(report: LogReport, stream: BinaryIO, limits: Limits) -> Iterator[tuple[int, Any]]:
    """Each line's JSON value with its number; an input error, then `_Stop`, at the first line
    that is not one. A recording is no log a loop resumes from: a line cut short, wherever it
    stands, is refused like any other that is not JSON."""
    import json  # noqa: PLC0415 (a recording is checked with pydantic anyway: json is cheap)

    for line, raw in bounded_lines(report, stream, limits):
        try:
            # Without its line break: json counts a column on the line it breaks onto.
            value = json.loads(raw.decode().rstrip("\r\n"))
        except UnicodeDecodeError as error:
            message = not_utf8_words(raw, error)
            report.fail(line, ErrorKind.INVALID_UTF8, message, "ACP-1")
            raise _Stop from None
        except (json.JSONDecodeError, RecursionError) as error:
            cut = isinstance(error, json.JSONDecodeError) or value_cut_short(raw)
            if cut and not raw.endswith(b"\n"):  # the file's last line: cut as it was written
                message = (
                    f"{torn_line_words(raw, line)}: the recording was cut off as it was "
                    "written (the editor or the recorder stopped); the lines before it are checked"
                )
                report.notices.append(Notice(line, NoticeKind.TORN_COMMIT, message))
                raise _Stop from None
            if isinstance(error, RecursionError) and not cut:
                message = "invalid JSON: nested too deeply to read"
                report.fail(line, ErrorKind.INVALID_JSON, message, "SAFE-4")
                raise _Stop from None
            message = (
                "invalid JSON: the line stops before its value ends"
                if isinstance(error, RecursionError)  # (json's stack ran out first)
                else f"invalid JSON at column {error.colno}: {error.msg}"
            )
            report.fail(line, ErrorKind.INVALID_JSON, message, "ACP-1")
            raise _Stop from None
        yield line, value


def check_recording(path: str, stream: BinaryIO, limits: Limits) -> LogReport:
    """Check one ACP recording; never raises on bad input."""
    report = LogReport(path)
    report.dialect = NAME
    report.not_checkable = _not_checkable()
    report.checked_in_part = dict(CHECKED_IN_PART)
    recording = _Recording()
    try:
        for line, record in _messages(report, stream, limits):
            if not looks_like(record):
                message = (
                    "a line of an ACP recording must be a JSON-RPC 2.0 message "
                    '({"jsonrpc": "2.0", ...})'
                )
                report.fail(line, ErrorKind.BAD_EVENT, message, "ACP-1")
                raise _Stop
            report.events += 1
            try:
                found = recording.feed(record, line)
            except RecursionError:  # a value nested past what the ACP validators can walk
                message = "a value nested too deeply to validate"
                report.fail(line, ErrorKind.BAD_EVENT, message, "SAFE-4")
                raise _Stop from None
            for each in found:
                report.record(each.seq, [each], limits)
    except _Stop:
        report.lines_unread = lines_follow(RestOfLog(stream.readline))
        return report
    except OSError as error:
        report.fail(report.lines + 1, ErrorKind.UNREADABLE, str(error))
        return report
    if report.events == 0:
        report.fail(None, ErrorKind.EMPTY, "the log is empty")
    return report


def _started_before(card: _Card, line: int) -> bool:
    """Whether the recording shows the card's call running before `line`."""
    return card.started is not None and card.started < line
