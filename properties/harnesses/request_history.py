"""The history a real CLI's model requests carried, as driver-protocol messages (capability
`history`, rule HIST-1).

The mock model (`conform_driver.PendingMock`) receives every request Claude Code (Anthropic
Messages) and Codex (OpenAI Responses) really send, their history included. The driver reports
that history in the shape the protocol asks for, messages as events carry them, the shape the
CLI's log is reported in; under the CLI's profile conform compares it with what that log derives
(`loopspec.properties.conformance.history_own_log`). So HIST-1 asks of a real CLI: does each
request carry what its own transcript or rollout says the conversation holds?

Reading a request back (`sent_messages`), the way `conform_driver` reads the log:

- Claude Code: an assistant turn is one assistant message (`thinking` is reasoning, `text`
  text, a `tool_use` the call its shell command carries); in a user turn each text block is a
  user message and each `tool_result` a tool result whose text is cut where Claude Code appends
  a system reminder (`\\n\\n<system-reminder>`).
- Codex: a run of model items (reasoning, an assistant message, function calls) is one
  assistant message; a user message is one; a `function_call_output` is a tool result; a
  developer message whose text a PostToolUse hook of the session gave is that hook's context
  (read as a tool-context user message, as the rollout reader reads it).

What is dropped: the CLI's own text, which is not the loop's history (the system prompt and
Codex's `instructions` are outside `messages`/`input` and never read):

- Claude Code: every `<system-reminder>` text block of a user turn (its environment, model,
  deferred tools, agents, skills, token budget, date, attribution, "no visible output" and
  ToolSearch notices); in a tool result, every system reminder but a hook's
  (`PostToolUse:Bash hook additional context: ...`, `... hook blocking error ...`), which the
  loop's log holds; and the one newline Claude Code adds to a user text block when it joins the
  next user message to it in one turn.
- Codex: every developer message but a hook's context (its instructions, skills), and its own
  tagged user context (`<environment_context>`, dropped by the rollout reader too).

An item or block of a kind neither reader knows is reported as a user message holding its JSON
(source plugin `wire:<type>`), so it shows instead of being dropped unseen.

Comparing (`wire_form`, `as_sent`). A provider projection loses what its API cannot carry, so
the reading back is not unique: ids, sources (which model wrote a reply), a blank text (the
Anthropic API refuses one: Claude Code leaves it out, as `loopspec.model.projections` does),
the whitespace around a tool result's text (Claude Code trims it as it sends it). A
history is therefore compared on the wire: the request is lined up with the log's history (the
longest run of messages whose wire forms are equal, in order), each message so matched is
reported as the log holds it, and so is one the wire cannot carry at all (an assistant message
of blank text, for Claude Code); a log message the request leaves out is left out, and one the
log lacks is reported as the request holds it, so conform names that message. A request that
ends on a message the log holds otherwise (a tool result of the same call with other text, say)
reports it in the log's message's place, so conform names what changed, not an added message.

Timing (`RequestHistory`). A CLI shows its history only when it asks the model, and the log
gains a reply, a result or an interrupt's notice before the CLI next asks. So after a command
the driver reports the last request's history, and, where that request ends before the log
does, the log's messages after it: what the next request is to add. A request is thus held to
be the log's history up to some point, nothing left out, added or changed on the way; the
messages after that point are held to the next request that carries them. (Whether a request
came before or after a log record cannot be told from their times: Codex stamps a result in its
rollout after it has sent the request carrying it.) What no request ever carries (a turn's last
reply, unless the session is resumed) is reported as the log holds it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from loopspec.model.derive import derive_messages
from loopspec.model.errors import InvalidEventError
from loopspec.model.wire import event_from_wire, message_to_wire
from loopspec.properties.harnesses.cli_wire import (
    ABORT_NOTICE,
    decoded_call,
    shell_command_of,
    tagged_context,
    text_of,
)
from loopspec.properties.harnesses.script import Harness

WireMessage = dict[str, Any]

SYSTEM_REMINDER = "<system-reminder>"
# Where Claude Code appends a system reminder to a tool result's text.
_REMINDER_CUT = re.compile(r"\n\n(?=<system-reminder>\n)")
# A system reminder that renders a hook's output (the loop's: ADJ-4, DEC-3), e.g.
# "PostToolUse:Bash hook additional context: ...".
_HOOK_REMINDER = re.compile(
    r"^<system-reminder>\n(PreToolUse|PostToolUse|PostToolUseFailure):\S+ hook "
)
# Codex's model items: a run of them is one reply (as `mock_model` counts replies).
_CODEX_MODEL_ITEMS = frozenset({"reasoning", "function_call"})


def _user(text: str) -> WireMessage:
    return {"role": "user", "content": [{"type": "text", "text": text}], "source": {"kind": "user"}}


def _unread(item: object, kind: object) -> WireMessage:
    """An item no reader knows, shown as the JSON it is."""
    message = _user(json.dumps(item, sort_keys=True, ensure_ascii=False))
    return {**message, "source": {"kind": "plugin", "plugin": f"wire:{kind}"}}


def _context(text: str) -> WireMessage:
    return {**_user(text), "source": {"kind": "plugin", "plugin": "tool-context"}}


def _result(call_id: str, texts: Sequence[str], is_error: bool) -> WireMessage:
    return {
        "role": "user",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": call_id,
                "content": [{"type": "text", "text": text} for text in texts],
                "isError": is_error,
            }
        ],
        "source": {"kind": "tool", "callId": call_id},
    }


def _assistant(harness: Harness, model: str, blocks: list[dict[str, Any]]) -> WireMessage:
    source = {"kind": "model", "provider": harness.value, "model": model}
    return {"role": "assistant", "content": blocks, "source": source}


def _call_block(call_id: str, tool_input: object) -> dict[str, Any]:
    """A shell call read back as the call of the model's tool its command carries."""
    decoded = decoded_call(shell_command_of(tool_input))
    name, arguments = decoded if decoded else ("shell", json.dumps(tool_input))
    return {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}


# ---------------------------------------------------------------------------------------------
# Claude Code: Anthropic Messages.


def _claude_result(block: dict[str, Any]) -> WireMessage:
    content = block.get("content")
    if isinstance(content, list):
        text = "\n".join(
            str(part.get("text", "")) if part.get("type") == "text" else json.dumps(part)
            for part in content
            if isinstance(part, dict)
        )
    else:
        text = str(content if content is not None else "")
    output, *reminders = _REMINDER_CUT.split(text)
    hooks = [reminder for reminder in reminders if _HOOK_REMINDER.match(reminder)]
    return _result(str(block.get("tool_use_id")), [output, *hooks], bool(block.get("is_error")))


def _claude_user_turn(content: object) -> list[WireMessage]:
    if isinstance(content, str):
        return [] if content.startswith(SYSTEM_REMINDER) else [_user(content)]
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    messages: list[WireMessage] = []
    for index, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "tool_result":
            messages.append(_claude_result(block))
        elif kind == "text":
            text = str(block.get("text", ""))
            if text.startswith(SYSTEM_REMINDER):
                continue
            if index + 1 < len(blocks):  # the newline of Claude Code's join with the next one
                text = text.removesuffix("\n")
            messages.append(_user(text))
        else:
            messages.append(_unread(block, kind))
    return messages


def _claude_assistant_turn(content: object, model: str) -> WireMessage:
    blocks: list[dict[str, Any]] = []
    parts = content if isinstance(content, list) else [{"type": "text", "text": str(content)}]
    for block in parts:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            blocks.append({"type": "text", "text": str(block.get("text", ""))})
        elif kind == "thinking":
            blocks.append({"type": "reasoning", "text": str(block.get("thinking", ""))})
        elif kind == "tool_use":
            blocks.append(_call_block(str(block.get("id")), block.get("input")))
        else:
            text = json.dumps(block, sort_keys=True, ensure_ascii=False)
            blocks.append({"type": "text", "text": f"wire:{kind} {text}"})
    return _assistant(Harness.CLAUDE_CODE, model, blocks)


def _claude_messages(body: dict[str, Any]) -> list[WireMessage]:
    model = str(body.get("model", ""))
    messages: list[WireMessage] = []
    for turn in body.get("messages") or []:
        if not isinstance(turn, dict):
            messages.append(_unread(turn, type(turn).__name__))
        elif turn.get("role") == "assistant":
            messages.append(_claude_assistant_turn(turn.get("content"), model))
        else:
            messages.extend(_claude_user_turn(turn.get("content")))
    return messages


# ---------------------------------------------------------------------------------------------
# Codex: OpenAI Responses.


def _codex_model_block(item: dict[str, Any]) -> dict[str, Any]:
    kind = item.get("type")
    if kind == "reasoning":
        return {"type": "reasoning", "text": text_of(item.get("summary") or [])}
    if kind == "function_call":
        try:
            arguments = json.loads(str(item.get("arguments")))
        except ValueError:
            arguments = item.get("arguments")
        return _call_block(str(item.get("call_id")), arguments)
    return {"type": "text", "text": text_of(item.get("content"))}


def _codex_item(item: dict[str, Any], hook_contexts: frozenset[str]) -> WireMessage | None:
    """The message an item other than a model item is, or None for Codex's own."""
    kind, role = item.get("type"), item.get("role")
    said = text_of(item.get("content"))
    if kind == "message" and role == "user":
        return _user(said) if said.startswith(ABORT_NOTICE) or not tagged_context(said) else None
    if kind == "message" and role == "developer":
        return _context(said) if said in hook_contexts else None
    if kind == "function_call_output":
        return _result(str(item.get("call_id")), [text_of(item.get("output"))], False)
    return _unread(item, kind)


def _codex_messages(body: dict[str, Any], hook_contexts: frozenset[str]) -> list[WireMessage]:
    messages: list[WireMessage] = []
    reply: list[dict[str, Any]] | None = None  # the blocks of the reply being read
    for item in body.get("input") or []:
        if not isinstance(item, dict):
            messages.append(_unread(item, type(item).__name__))
            reply = None
            continue
        kind = item.get("type")
        if kind in _CODEX_MODEL_ITEMS or (kind == "message" and item.get("role") == "assistant"):
            if reply is None:
                reply = []
                messages.append(_assistant(Harness.CODEX, "", reply))
            reply.append(_codex_model_block(item))
            continue
        reply = None
        message = _codex_item(item, hook_contexts)
        if message is not None:
            messages.append(message)
    return messages


def sent_messages(
    harness: Harness, body: object, hook_contexts: Iterable[str] = ()
) -> list[WireMessage]:
    """The loop's messages a request body carries, read back (the module docstring says how);
    `hook_contexts` are the texts the session's PostToolUse hooks gave as context."""
    messages: list[WireMessage]
    if not isinstance(body, dict):
        messages = [_unread(body, type(body).__name__)]
    else:
        match harness:
            case Harness.CLAUDE_CODE:
                messages = _claude_messages(body)
            case Harness.CODEX:
                messages = _codex_messages(body, frozenset(hook_contexts))
    # The wire keeps no message ids (a tool result names its call); ids are free in a history.
    return [{**message, "id": f"sent{index}"} for index, message in enumerate(messages)]


# ---------------------------------------------------------------------------------------------
# Comparing on the wire.


def _value(arguments: object) -> object:
    if isinstance(arguments, str):
        try:
            return json.dumps(json.loads(arguments), sort_keys=True)
        except ValueError:
            return arguments
    return json.dumps(arguments, sort_keys=True)


def _block_form(block: object) -> tuple[object, ...]:
    if not isinstance(block, dict):
        return ("?", json.dumps(block, sort_keys=True))
    kind = block.get("type")
    if kind in ("text", "reasoning"):
        return (kind, block.get("text"))
    if kind == "tool-call":
        return ("call", block.get("id"), block.get("name"), _value(block.get("arguments")))
    return (str(kind), json.dumps(block, sort_keys=True))


def wire_form(harness: Harness, message: WireMessage) -> object:
    """What of a message the CLI's API carries, or None when it carries none of it (a blank
    text on the Anthropic API, which refuses one)."""
    drops_blanks = harness == Harness.CLAUDE_CODE
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    if message.get("role") == "assistant":
        forms = tuple(
            _block_form(b)
            for b in blocks
            if not (
                drops_blanks
                and isinstance(b, dict)
                and b.get("type") == "text"
                and not str(b.get("text", "")).strip()
            )
        )
        return ("assistant", forms) if forms else None
    results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool-result"]
    if results:
        result = results[0]
        texts = tuple(_block_form(part) for part in result.get("content") or [])
        if harness == Harness.CLAUDE_CODE:
            # Claude Code trims a result's text when it sends it, not in its transcript
            # (measured: "  x" sent as "x", a denial "PreToolUse:Bash hook error:  " as "...:").
            texts = tuple(
                (form[0], str(form[1]).strip()) if form[0] == "text" else form for form in texts
            )
        # Codex's function_call_output carries no error flag.
        flag = bool(result.get("isError")) if harness == Harness.CLAUDE_CODE else None
        return ("result", result.get("toolCallId"), texts, flag)
    source = message.get("source")
    kind = source.get("kind") if isinstance(source, dict) else None
    plugin = source.get("plugin") if isinstance(source, dict) else None
    forms = tuple(_block_form(b) for b in blocks)
    said = "".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))
    if drops_blanks and not said.strip():
        return None
    return ("user", kind, plugin, forms)


def _matched(
    harness: Harness, sent: Sequence[WireMessage], logged: Sequence[WireMessage]
) -> list[tuple[int, int]]:
    """The longest run of (log index, request index) pairs whose wire forms are equal, in
    order: how the request lines up with the log (messages the wire cannot carry aside)."""
    forms = [wire_form(harness, message) for message in logged]
    carried = [index for index, form in enumerate(forms) if form is not None]
    theirs = [wire_form(harness, message) for message in sent]
    # longest[a][b]: the longest common run of carried[a:] and theirs[b:].
    longest = [[0] * (len(theirs) + 1) for _ in range(len(carried) + 1)]
    for a in range(len(carried) - 1, -1, -1):
        for b in range(len(theirs) - 1, -1, -1):
            longest[a][b] = (
                longest[a + 1][b + 1] + 1
                if forms[carried[a]] == theirs[b]
                else max(longest[a + 1][b], longest[a][b + 1])
            )
    pairs: list[tuple[int, int]] = []
    a = b = 0
    while a < len(carried) and b < len(theirs):
        if forms[carried[a]] == theirs[b]:
            pairs.append((carried[a], b))
            a, b = a + 1, b + 1
        elif longest[a + 1][b] >= longest[a][b + 1]:
            a += 1
        else:
            b += 1
    return pairs


def as_sent(
    harness: Harness, sent: Sequence[WireMessage], logged: Sequence[WireMessage]
) -> list[WireMessage]:
    """The history a request carried (`sent`, read back) lined up with the log's (`logged`):
    each message the wire cannot tell from the log's as the log holds it, one the wire cannot
    carry in its place, a log message the request leaves out left out, one the log lacks as
    the request holds it; then the log's messages after the request's end, less those the
    request's last messages stand in for: each of its messages after the last one lined up, in
    order, where the log's next message is of its slot (`_slot`: a result of the same call, a
    reply of the same calls, a user message of the same source), is that message changed."""
    out: list[WireMessage] = []
    next_log = next_sent = 0
    for log_index, sent_index in _matched(harness, sent, logged):
        out += [m for m in logged[next_log:log_index] if wire_form(harness, m) is None]
        out += sent[next_sent:sent_index]
        out.append(logged[log_index])
        next_log, next_sent = log_index + 1, sent_index + 1
    sent_tail, log_tail = sent[next_sent:], logged[next_log:]
    # The request's last messages in the places of the log's next ones of the same slot: sent
    # changed, so the comparison says what the log holds there and what was sent, where they
    # followed the log's and read as messages the log lacks.
    changed = 0
    while (
        changed < min(len(sent_tail), len(log_tail))
        and _slot(harness, sent_tail[changed]) is not None
        and _slot(harness, sent_tail[changed]) == _slot(harness, log_tail[changed])
    ):
        changed += 1
    return [*out, *sent_tail, *log_tail[changed:]]


def _slot(harness: Harness, message: WireMessage) -> object:
    """What a message is, not what it says: a tool result's call, an assistant message's calls
    (ids and names), a user message's source; None for one the wire does not carry."""
    form = wire_form(harness, message)
    if not isinstance(form, tuple):
        return None
    match form[0]:
        case "assistant":
            return ("assistant", tuple(block[:3] for block in form[1] if block[0] == "call"))
        case "result":
            return form[:2]
        case _:
            return form[:3]


def log_history(events: Sequence[dict[str, Any]]) -> list[WireMessage] | None:
    """The history the driver's log derives (`derive_messages`), or None when loopspec cannot
    read one of its events (the log's own rules report that)."""
    try:
        messages = derive_messages(event_from_wire(event) for event in events)
    except InvalidEventError:
        return None
    return [message_to_wire(message) for message in messages]


class RequestHistory:
    """One session's requests and the history reported so far (see the module docstring)."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self._asked = False
        self._last: object = None  # the last request's body
        self._reported: list[WireMessage] = []

    def asked(self, body: object) -> None:
        """The CLI sent a model request."""
        self._asked, self._last = True, body

    def now(
        self, events: Sequence[dict[str, Any]], hook_contexts: Iterable[str]
    ) -> list[WireMessage]:
        """The history of the last request, followed by what the log gained after it."""
        logged = log_history(events)
        if not self._asked:
            return logged if logged is not None else []
        sent = sent_messages(self.harness, self._last, hook_contexts)
        return sent if logged is None else as_sent(self.harness, sent, logged)

    def change(
        self, events: Sequence[dict[str, Any]], hook_contexts: Iterable[str]
    ) -> dict[str, Any]:
        """The `history` member of an accepted answer: `{kept, appended}` from the last one."""
        whole = self.now(events, hook_contexts)
        kept = 0
        common = min(len(whole), len(self._reported))
        while kept < common and whole[kept] == self._reported[kept]:
            kept += 1
        self._reported = whole
        return {"kept": kept, "appended": whole[kept:]}
