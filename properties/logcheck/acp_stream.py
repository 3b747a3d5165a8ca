"""Checking a recorded ACP stream: the JSON-RPC messages between an editor and an ACP agent.

A recording holds one JSON-RPC 2.0 message per line, both directions in the order they passed
(what a tee of the agent's stdin and stdout gives): the editor's `session/prompt`, the agent's
`session/update` notifications and `session/request_permission` requests, the editor's answers.
Nothing in it says what the loop behind the agent ran or what its model history holds, so of the
rules it shows only what an editor sees of tool calls (the report lists the rest as not
checkable, with why):

- ACP-1: every `tool_call` and `tool_call_update` update and every permission request is strictly
  valid ACP (`validators.acp_strict`: the pinned schema and the SDK's round trip), and so is an
  update naming no kind (it may be a card). Other updates (message chunks, plans, command lists)
  are not judged.
- RW-1, in part: a call ends (its card gets `completed` or `failed`) while its card shows another
  `rawInput` than the one its permission request approved (the editor showed one input and asked
  approval for another, so one of them is not what ran), or, on a card whose `rawInput` holds a
  string `command`, while the terminal the card embeds was created (`terminal/create`, without
  `args`) for another command, or while the card shows a `diff` of a file, shown before the
  editor was asked to write that file (`fs/write_text_file`) while the call was open, whose
  `newText` is not in what was written (the write is the card's when it is the one open card of
  its session showing a diff of that path that could have run by then, or becomes so when the
  others are first asked permission after it; a write left to several is blamed once they have
  all ended when none shows what it holds). What ran otherwise is not recorded.
- ADJ-2: a `tool_call_update` names no call a `tool_call` showed earlier in the session.
- ADJ-3: a prompt turn ends (its `session/prompt` is answered) with a card that never got
  `completed` or `failed`, for any stop reason but `cancelled`: after a cancel ACP has the editor
  mark the unfinished cards cancelled itself. A prompt answered with a JSON-RPC error ended its
  turn with `error`, which ADJ-3 exempts.

A second `tool_call` for a call already shown replaces its card, as Zed's editor reads it: Zed's
Claude Code bridge sends one as the model starts the call (an empty `rawInput`) and another when
its input is whole. A card message that is not valid ACP still updates the card by what the ACP
SDK reads of it, as a lenient editor shows it: a later end is judged by what the editor shows.
Lines are the report's events: a recording has no seq. A last line cut short (no newline: the
editor or the recorder was stopped as it wrote) is a notice, the lines before it checked.
"""

from __future__ import annotations

from loopspec.model.invariants import Violation, rule_ids
from loopspec.model.jsonvalue import json_dumps
from loopspec.properties.logcheck.checker import (
    ErrorKind,
    Limits,
    LogReport,
    Notice,
    NoticeKind,
    RestOfLog,
    lines_follow,
    not_utf8_words,
    torn_line_words,
)

# The foreign logs' reader of lines, and its stop (one handler ends a read by either).
from loopspec.properties.logcheck.harness_logs import _Stop, bounded_lines

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any, BinaryIO

NAME = "acp"
# The `session/update` kinds whose messages section 12 of SPEC.md speaks about.
CARD_UPDATES = frozenset({"tool_call", "tool_call_update"})
FINAL_STATUSES = frozenset({"completed", "failed"})
ALLOW_KINDS = frozenset({"allow_once", "allow_always"})
_CANCELLED = "cancelled"

CHECKED_IN_PART = {
    "ACP-1": "only tool_call and tool_call_update updates and permission requests are judged",
    "RW-1": (
        "a recording shows only the card, the input approved, the command of the terminal a "
        "card embeds and what the editor was asked to write: a call that ran with none of them "
        "is not judged, nor one whose write another card that shows what was written could "
        "have made"
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
        "approved",
        "asked",
        "blamed",
        "diffs",
        "ended_line",
        "final",
        "raw_input",
        "raw_line",
        "shown_line",
        "status",
        "terminal",
        "written",
    )

    def __init__(self, line: int) -> None:
        self.shown_line = line
        self.raw_input: Any = None
        self.raw_line = line
        self.status = "pending"
        self.final = False
        self.ended_line = line
        # Whether its end was blamed (RW-1): a write found to be its own later is not blamed
        # on it again.
        self.blamed = False
        # The input a permission request showed, its line, and whether it was allowed.
        self.asked: tuple[Any, int] | None = None
        self.approved = False
        self.terminal: tuple[str, int] | None = None
        # Each `diff` item of the card's content: its path, its newText and the line showing it.
        self.diffs: list[tuple[str, str, int]] = []
        # The path of each file the editor was asked to write for the call -> the last content
        # and its line.
        self.written: dict[str, tuple[str, int]] = {}


class _Write:
    """An `fs/write_text_file` that more than one open card could have asked for: each shows a
    diff of its file and could have run by then. It becomes the card's that is left when the
    others are ruled out (a call asks before it runs, so one first asked after the write did
    not make it)."""

    __slots__ = ("candidates", "content", "line", "path", "session")

    def __init__(
        self, session: str, path: str, content: str, line: int, candidates: set[tuple[str, str]]
    ) -> None:
        self.session = session
        self.path = path
        self.content = content
        self.line = line
        self.candidates = candidates


class _Recording:
    """The judge of one recording, fed one message at a time."""

    def __init__(self) -> None:
        self.cards: dict[tuple[str, str], _Card] = {}
        # Per session, the cards shown since its last prompt (in order), each once.
        self.turn_cards: dict[str, list[tuple[str, str]]] = {}
        # Permission requests awaiting the editor's answer: request id -> the card's key and
        # the ids of the request's options that allow.
        self.asking: dict[str, tuple[tuple[str, str], set[str]]] = {}
        # Prompts awaiting their answer: request id -> session.
        self.prompts: dict[str, str] = {}
        # `terminal/create` requests awaiting their answer: request id -> the command and the
        # line (None for a command given with `args`, which a card's command cannot be held to).
        self.creating: dict[str, tuple[str, int] | None] = {}
        # Terminals created: id -> the command they run and the line that asked for it.
        self.terminals: dict[str, tuple[str, int] | None] = {}
        # Writes not yet known to be one card's, in the order they came.
        self.unowned: list[_Write] = []

    def feed(self, message: Mapping[str, Any], line: int) -> list[Violation]:
        method = message.get("method")
        params = message.get("params")
        if method == "session/update":
            if not isinstance(params, dict):
                return [Violation("ACP-1", line, "a session/update's params must be an object")]
            return self._update(params, line)
        if method == "session/request_permission" and isinstance(params, dict):
            return self._permission(_request_key(message.get("id")), params, line)
        if method == "session/prompt" and isinstance(params, dict):
            session = str(params.get("sessionId"))
            self.prompts[_request_key(message.get("id"))] = session
            self.turn_cards[session] = []
            self.unowned = [write for write in self.unowned if write.session != session]
            return []
        if method == "fs/write_text_file" and isinstance(params, dict):
            self._writing(params, line)
            return []
        if method == "terminal/create" and isinstance(params, dict):
            command = params.get("command")
            plain = (command, line) if isinstance(command, str) and not params.get("args") else None
            self.creating[_request_key(message.get("id"))] = plain
            return []
        # A prompt answered with an error, not a result, ended its turn with `error`, which
        # ADJ-3 exempts (SPEC.md): its unfinished cards are not judged.
        if method is None and "result" in message:
            return self._answer(_request_key(message.get("id")), message["result"], line)
        return []

    def _update(self, params: Mapping[str, Any], line: int) -> list[Violation]:
        update = params.get("update")
        kind = update.get("sessionUpdate") if isinstance(update, dict) else None
        # Another update (a message chunk, a plan) is not judged; one that names no kind may be
        # a card, and is not valid ACP whatever it is.
        if isinstance(kind, str) and kind not in CARD_UPDATES:
            return []
        from loopspec.properties.validators.acp_strict import (  # noqa: PLC0415 (slow: pydantic)
            read_session_update,
            validate_session_update,
        )

        found: list[Violation] = []
        problems = validate_session_update(params)
        if problems:
            what = kind if isinstance(kind, str) else "session"
            message = f"the {what} update is not valid ACP: {problems[0]}"
            found.append(Violation("ACP-1", line, message))
            # The card as the editor shows it on (what the SDK reads of the message): judged by
            # a card the message left stale, the call's end would be blamed on what the message
            # did change (Zed's Write card, refused for its `"oldText": null` before that was
            # read as ACP's own, was blamed RW-1 against its first, empty, rawInput).
            read = read_session_update(params)
            if read is None or read["update"].get("sessionUpdate") not in CARD_UPDATES:
                return found
            params, update = read, read["update"]
            kind = update["sessionUpdate"]
        assert isinstance(update, dict)  # (validated, or as the SDK read it)
        key = (str(params["sessionId"]), str(update["toolCallId"]))
        card = self.cards.get(key)
        if kind == "tool_call":
            if card is None:
                card = self.cards[key] = _Card(line)
                self.turn_cards.setdefault(key[0], []).append(key)
        elif card is None:
            message = f"the tool_call_update for {key[1]} names no call a tool_call showed"
            return [*found, Violation("ADJ-2", line, message)]
        if "rawInput" in update:
            card.raw_input, card.raw_line = update["rawInput"], line
        if "content" in update:  # ACP: an update's content replaces the card's
            card.diffs = [
                (str(item["path"]), str(item["newText"]), line)
                for item in update["content"]
                if item["type"] == "diff"
            ]
        for item in update.get("content") or ():
            if item["type"] == "terminal":
                card.terminal = (str(item["terminalId"]), line)
        status = update.get("status", "pending" if kind == "tool_call" else card.status)
        card.status = status
        if status in FINAL_STATUSES and not card.final:
            card.final, card.ended_line = True, line
            blamed = self._ended(key[1], card, line)
            card.blamed = bool(blamed)
            return [*found, *blamed, *self._settled(line)]
        return found

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

    def _ended(self, call: str, card: _Card, line: int) -> list[Violation]:
        if card.asked is not None and card.approved:
            approved, asked_line = card.asked
            if approved is not None and approved != card.raw_input:
                message = (
                    f"{call} ended showing the input {_shown(card.raw_input)} on its card, but "
                    f"the permission request approved {_shown(approved)}: the editor showed one "
                    "input and asked approval for another"
                )
                return [Violation("RW-1", line, message, (line, card.raw_line, asked_line))]
        shown = card.raw_input.get("command") if isinstance(card.raw_input, dict) else None
        ran = self.terminals.get(card.terminal[0]) if card.terminal is not None else None
        if card.terminal is None or ran is None or not isinstance(shown, str) or ran[0] == shown:
            return self._diff_not_written(call, card, line)
        message = (
            f"{call} ended showing the command {json_dumps(shown)} on its card, but the "
            f"terminal it shows ran {json_dumps(ran[0])}: the editor showed one command while "
            "another ran"
        )
        related = (line, card.raw_line, ran[1], card.terminal[1])
        return [Violation("RW-1", line, message, related)]

    def _diff_not_written(self, call: str, card: _Card, line: int) -> list[Violation]:
        """RW-1 when the card ends showing a diff, shown before the file was written, whose new
        text the file was not given."""
        for path, _text, _line in card.diffs:
            if path not in card.written:
                continue
            content, write_line = card.written[path]
            unwritten = _unwritten_diff(card, path, content, write_line)
            if unwritten is None:
                continue
            new_text, shown_line = unwritten
            message = (
                f"{call} ended showing a diff of {json_dumps(path)} whose new text is "
                f"{_clipped(new_text)}, but the editor was asked to write {_clipped(content)} "
                "there: the editor showed one change while another was made"
            )
            related = (line, card.ended_line, shown_line, write_line)
            return [Violation("RW-1", line, message, related)]
        return []

    def _writing(self, params: Mapping[str, Any], line: int) -> None:
        """An `fs/write_text_file` request: what the editor was asked to write, for the open
        card of its session that shows a diff of the file and could have run by then (not one
        whose permission request was refused or is unanswered). With several, the write waits
        until all but one are ruled out (`_Write`)."""
        path, content = params.get("path"), params.get("content")
        if not isinstance(path, str) or not isinstance(content, str):
            return
        session = str(params.get("sessionId"))
        showing = {
            key
            for key in self.turn_cards.get(session, [])
            if not self.cards[key].final
            and (self.cards[key].asked is None or self.cards[key].approved)
            and any(shown == path for shown, _text, _line in self.cards[key].diffs)
        }
        if len(showing) == 1:
            self.cards[showing.pop()].written[path] = (content, line)
        elif showing:
            self.unowned.append(_Write(session, path, content, line, showing))

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
                card.written[write.path] = (write.content, write.line)
            if card.final and not card.blamed:
                blamed = self._diff_not_written(owner[1], card, line)
                card.blamed = bool(blamed)
                found.extend(blamed)
        self.unowned = [write for write in self.unowned if len(write.candidates) > 1]
        return found

    def _permission(self, request: str, params: Mapping[str, Any], line: int) -> list[Violation]:
        from loopspec.properties.validators.acp_strict import (  # noqa: PLC0415 (slow: pydantic)
            validate_permission_request,
        )

        problems = validate_permission_request(params)
        if problems:
            return [
                Violation("ACP-1", line, f"the permission request is not valid ACP: {problems[0]}")
            ]
        tool_call = params["toolCall"]
        key = (str(params["sessionId"]), str(tool_call["toolCallId"]))
        card = self.cards.get(key)
        if card is None:  # ACP lets a request show the call itself
            card = self.cards[key] = _Card(line)
            self.turn_cards.setdefault(key[0], []).append(key)
            card.raw_input = tool_call.get("rawInput")
        found = self._asked_first(key, line) if card.asked is None else []
        card.asked = (tool_call.get("rawInput"), line)
        card.approved = False
        allowing = {
            option["optionId"] for option in params["options"] if option["kind"] in ALLOW_KINDS
        }
        self.asking[request] = (key, allowing)
        return found

    def _answer(self, request: str, result: Any, line: int) -> list[Violation]:
        if not isinstance(result, dict):
            return []
        if "outcome" in result and request in self.asking:
            key, allowing = self.asking.pop(request)
            outcome = result["outcome"]
            chosen = outcome.get("optionId") if isinstance(outcome, dict) else None
            self.cards[key].approved = isinstance(chosen, str) and chosen in allowing
            return []
        if "terminalId" in result and request in self.creating:
            self.terminals[str(result["terminalId"])] = self.creating.pop(request)
            return []
        if "stopReason" in result and request in self.prompts:
            session = self.prompts.pop(request)
            open_cards = [
                (key, self.cards[key])
                for key in self.turn_cards.pop(session, [])
                if not self.cards[key].final
            ]
            if not open_cards or result["stopReason"] == _CANCELLED:
                return []
            names = ", ".join(key[1] for key, _card in open_cards)
            message = (
                f"the prompt turn ended ({json_dumps(result['stopReason'])}) with {names} still "
                f"{open_cards[0][1].status}: no update gave the card completed or failed"
            )
            related = (line, *(card.shown_line for _key, card in open_cards))
            return [Violation("ADJ-3", line, message, related)]
        return []


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
    # gets jsdiff's "\ No newline at end of file" as a line.
    if new_text in content or shown_line > write_line:
        return None
    return shown[0]


def _request_key(value: object) -> str:
    """A JSON-RPC id as a key: ids are strings or numbers, but a recording may hold any value."""
    return repr(value)


def _shown(value: Any) -> str:
    return "none" if value is None else json_dumps(value, sort_keys=True)


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
        except json.JSONDecodeError as error:
            if not raw.endswith(b"\n"):  # the file's last line: cut as it was written
                message = (
                    f"{torn_line_words(raw, line)}: the recording was cut off as it was "
                    "written (the editor or the recorder stopped); the lines before it are checked"
                )
                report.notices.append(Notice(line, NoticeKind.TORN_COMMIT, message))
                raise _Stop from None
            message = f"invalid JSON at column {error.colno}: {error.msg}"
            report.fail(line, ErrorKind.INVALID_JSON, message, "ACP-1")
            raise _Stop from None
        except RecursionError:
            message = "invalid JSON: nested too deeply to read"
            report.fail(line, ErrorKind.INVALID_JSON, message, "SAFE-4")
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
