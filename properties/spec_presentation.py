"""SPEC.md's presentation tables: what a UI is sent for each tool call, rendered by the model.

Every row is produced by feeding a `tool/call`, an `approval/asked` and a `tool/result` built
from its example to `loopspec.model.replay.LogPresenter`, the fold `loopspec conform` takes the
model's presented messages from (capability `presentation`, rule PROTO-1): a client that is not
terminal-capable, session cwd `/workspace`. A change to a presenter, to the ACP bridge or to the
title helpers changes a row, and `loopspec spec --check SPEC.md` fails until SPEC is rewritten.
"""

from __future__ import annotations

import json

import attrs

from loopspec.model.acp import CARD_STATUSES, STATUS_IN_PROGRESS
from loopspec.model.events import ApprovalAsked, Event, ToolCallRecorded, ToolResultRecorded
from loopspec.model.jsonvalue import JsonValue, freeze, parse_arguments, thaw
from loopspec.model.messages import TextBlock, ToolResultBlock, ToolResultMessage, tool_source
from loopspec.model.pure.presentation import longest_backtick_run
from loopspec.model.replay import ApprovalShown, CallShown, LogPresenter, ResultShown
from loopspec.model.replay import presented_wire as presented_message
from loopspec.model.views import CALL_CARDS, RESULT_CARDS, TOOL_KINDS

CALL_ID = "c1"
APPROVAL_ID = "a1"
ABSENT = "—"


@attrs.frozen
class CallExample:
    """A call to show: what it illustrates, the tool name, the raw argument string."""

    case: str
    tool: str
    arguments: str


@attrs.frozen
class ResultExample:
    """A result to show after its call: the body's text, its error flag and its meta."""

    case: str
    tool: str
    arguments: str
    text: str
    is_error: bool = False
    meta: object = None


CALL_EXAMPLES = (
    CallExample("foreground command", "bash", '{"command": "ls -la"}'),
    CallExample(
        "description; cwd is for terminals only",
        "bash",
        '{"command": "make test", "description": "Run the tests", "cwd": "build"}',
    ),
    CallExample(
        "an empty description shows nothing", "bash", '{"command": "ls", "description": ""}'
    ),
    CallExample(
        "background command",
        "bash",
        '{"command": "sleep 60", "description": "Wait", "run_in_background": true}',
    ),
    CallExample("whole file, relative path", "read", '{"file_path": "a.txt"}'),
    CallExample(
        "inside the workspace, offset and limit",
        "read",
        '{"file_path": "/workspace/src/a.py", "offset": 10, "limit": 5}',
    ),
    CallExample(
        "outside the workspace, offset only", "read", '{"file_path": "/etc/hosts", "offset": 3}'
    ),
    CallExample("the session cwd itself is not inside it", "read", '{"file_path": "/workspace/"}'),
    CallExample(
        "., .. and empty segments resolved lexically",
        "read",
        '{"file_path": "/workspace/./src/..//a.txt"}',
    ),
    CallExample("offset 0 is line 1", "read", '{"file_path": "a.txt", "offset": 0, "limit": 1}'),
    CallExample("limit only: from line 1", "read", '{"file_path": "a.txt", "limit": 20}'),
    CallExample(
        "the empty path names no file: no space after Read",
        "read",
        '{"file_path": "", "limit": 20}',
    ),
    CallExample(
        "an offset past 2^64 and a limit past 2^32 are integers all the same",
        "read",
        '{"file_path": "a.txt", "offset": 18446744073709551616, "limit": 4294967296}',
    ),
    CallExample(
        "whole new content",
        "write",
        '{"file_path": "/workspace/notes.md", "content": "# Notes\\n"}',
    ),
    CallExample(
        "replace text",
        "edit",
        '{"file_path": "/workspace/a.py", "old_string": "x = 1", "new_string": "x = 2", '
        '"replace_all": true}',
    ),
    CallExample(
        "empty old_string creates",
        "edit",
        '{"file_path": "b.py", "old_string": "", "new_string": "pass"}',
    ),
    CallExample(
        "the empty path names no file: no space after Write",
        "write",
        '{"file_path": "", "content": "x"}',
    ),
    CallExample(
        "the empty path names no file: no space after Edit",
        "edit",
        '{"file_path": "", "old_string": "a", "new_string": "b"}',
    ),
    CallExample(
        "todo list", "todo", '{"todos": [{"content": "Write tests", "status": "pending"}]}'
    ),
    CallExample(
        "an integer past 2^53 stays exact in rawInput (extra keys aside)",
        "bash",
        '{"command": "ls", "timeout": 9007199254740993}',
    ),
    CallExample("fallback (VIEW-3): unknown tool", "grep", '{"pattern": "TODO"}'),
    CallExample("fallback (VIEW-3): required key missing", "read", '{"path": "a.txt"}'),
    CallExample(
        "fallback (VIEW-3): value out of range", "read", '{"file_path": "a.txt", "limit": 0}'
    ),
    CallExample("fallback (VIEW-3): wrong type", "bash", '{"command": ["ls"]}'),
    CallExample(
        "fallback (VIEW-3): 1.0 is no integer (JavaScript's JSON.parse cannot tell)",
        "read",
        '{"file_path": "a.txt", "offset": 1.0}',
    ),
    CallExample(
        "fallback (VIEW-3): true is no integer (Python's bool is an int)",
        "read",
        '{"file_path": "a.txt", "offset": true}',
    ),
    CallExample("fallback (VIEW-3): not an object", "bash", '["ls"]'),
    CallExample("fallback (VIEW-3): not JSON (rawInput is the string)", "bash", '{"command": '),
    CallExample("fallback (VIEW-3): empty arguments are {}", "todo", ""),
    CallExample("fallback (VIEW-3): JSON null has no value, so no rawInput", "bash", "null"),
)

_LS = '{"command": "ls"}'
_NOTES = '{"file_path": "/workspace/notes.md", "content": "# Notes\\n"}'
_EDIT = '{"file_path": "/workspace/a.py", "old_string": "x = 1", "new_string": "x = 2"}'
_EDITED = {
    "diffs": [{"path": "/workspace/a.py", "oldText": "x = 1\ny = 1\n", "newText": "x = 2\ny = 1\n"}]
}
_OVERWRITTEN = {
    "diffs": [{"path": "/workspace/notes.md", "oldText": "old\n", "newText": "# Notes\n"}]
}

RESULT_EXAMPLES = (
    ResultExample("exit marker stripped", "bash", _LS, "a.txt\nb.txt\n[exit code: 0]"),
    ResultExample(
        "exit marker before trailing newlines: still stripped",
        "bash",
        _LS,
        "a.txt\n[exit code: 0]\n\n",
    ),
    ResultExample(
        "failed command", "bash", _LS, "Error: ls: cannot access\n[exit code: 2]", is_error=True
    ),
    ResultExample("killed", "bash", _LS, "Error: partial\n[signal: SIGKILL]", is_error=True),
    ResultExample("no marker: all output", "bash", _LS, "a.txt"),
    ResultExample(
        "exit code not in canonical decimal: no marker", "bash", _LS, "a.txt\n[exit code: 01]"
    ),
    ResultExample(
        "output with a backtick run: a longer fence",
        "bash",
        '{"command": "cat README.md"}',
        "```sh\nmake\n```\n[exit code: 0]",
    ),
    ResultExample(
        "background: whole text",
        "bash",
        '{"command": "sleep 60", "run_in_background": true}',
        "started\n[exit code: 0]",
    ),
    ResultExample("raw content", "read", '{"file_path": "a.txt"}', "hello"),
    ResultExample("error", "read", '{"file_path": "a.txt"}', "Error: no such file", is_error=True),
    ResultExample("no meta: diff from the arguments", "write", _NOTES, "Wrote 8 bytes"),
    ResultExample(
        "meta.diffs: the applied diffs", "write", _NOTES, "Wrote 8 bytes", meta=_OVERWRITTEN
    ),
    ResultExample(
        "empty meta.diffs: diff from the arguments",
        "write",
        _NOTES,
        "Wrote 8 bytes",
        meta={"diffs": []},
    ),
    ResultExample(
        "one malformed meta.diffs entry: none taken, diff from the arguments",
        "write",
        _NOTES,
        "Wrote 8 bytes",
        meta={"diffs": [_OVERWRITTEN["diffs"][0], {"path": "/workspace/b.md"}]},
    ),
    ResultExample("error: raw content", "write", _NOTES, "Error: read-only", is_error=True),
    ResultExample("meta.diffs: the applied diffs", "edit", _EDIT, "Edited", meta=_EDITED),
    ResultExample(
        "meta.diffs naming another path: the title keeps the arguments' path as given",
        "edit",
        _EDIT,
        "Edited",
        meta={"diffs": [{"path": "/workspace/b.py", "oldText": "y = 1\n", "newText": "y = 2\n"}]},
    ),
    ResultExample("no meta: raw content", "edit", _EDIT, "Edited"),
    ResultExample("raw content", "todo", '{"todos": []}', "Todos updated"),
    ResultExample(
        "unknown tool: raw content",
        "grep",
        '{"pattern": "TODO"}',
        "Error: unknown tool grep",
        is_error=True,
    ),
    ResultExample(
        "bad arguments: raw content", "bash", '{"command": 1}', "Error: boom", is_error=True
    ),
)

TERMINAL_EXAMPLE = ResultExample(
    "terminal-capable client",
    "bash",
    '{"command": "make test", "description": "Run the tests", "cwd": "build"}',
    "ok\n[exit code: 0]",
)

WORKED_EXAMPLE = ResultExample(
    "approval asked, then the result",
    "read",
    '{"file_path": "/workspace/src/a.py", "offset": 10, "limit": 2}',
    "10\tx = 1\n11\ty = 2",
)


def _call_event(tool: str, arguments: str) -> ToolCallRecorded:
    return ToolCallRecorded(0, 0, 1, 1, CALL_ID, tool, arguments)


def _approval_event(tool: str) -> ApprovalAsked:
    return ApprovalAsked(1, 0, APPROVAL_ID, tool, CALL_ID)


def _result_event(example: ResultExample) -> ToolResultRecorded:
    block = ToolResultBlock(CALL_ID, (TextBlock(example.text),), example.is_error)
    message = ToolResultMessage("r1", block, tool_source(CALL_ID))
    meta: JsonValue = None if example.meta is None else freeze(example.meta)
    return ToolResultRecorded(2, 0, 1, 1, message, meta=meta)


def presented_for(
    events: tuple[Event, ...], *, terminal_capable: bool = False
) -> list[dict[str, object]]:
    """The `{method, params}` messages the model presents for `events`, as conform compares them."""
    presenter = LogPresenter(terminal_capable=terminal_capable)
    shown = [presenter.feed(event) for event in events]
    return [presented_message(item) for item in shown if item is not None]


def worked_example_messages() -> list[dict[str, object]]:
    """The three messages of the worked example: card, permission request, result update."""
    example = WORKED_EXAMPLE
    events = (
        _call_event(example.tool, example.arguments),
        _approval_event(example.tool),
        _result_event(example),
    )
    return presented_for(events)


def _code(text: str) -> str:
    """`text` as one Markdown code span inside a table cell."""
    fence = "`" * (longest_backtick_run(text) + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}".replace("|", "\\|")


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _cell(fields: dict[str, object], key: str) -> str:
    return _code(_json(fields[key])) if key in fields else ABSENT


def _words(values: frozenset[str]) -> str:
    """`values` sorted, each in backticks: `a`, `b` or `c`."""
    *head, last = (f"`{value}`" for value in sorted(values))
    return f"{', '.join(head)} or {last}" if head else last


def render_call_cards() -> str:
    """Per example call: the view and the `tool_call` update's title, kind, locations, content."""
    lines = [
        "| tool | `arguments` | case | view | `title` | `kind` | `locations` | `content` |",
        "|---|---|---|---|---|---|---|---|",
    ]
    shared: list[str] = []
    for example in CALL_EXAMPLES:
        call = _call_event(example.tool, example.arguments)
        presenter = LogPresenter()
        shown = presenter.feed(call)
        asked = presenter.feed(_approval_event(example.tool))
        assert isinstance(shown, CallShown)
        assert isinstance(asked, ApprovalShown)
        card = shown.notification["update"]
        assert isinstance(card, dict)
        same_fields = {k: v for k, v in card.items() if k not in {"sessionUpdate", "status"}}
        raw_input = thaw(parse_arguments(example.arguments))
        if (
            asked.request["toolCall"] == same_fields
            and card.get("rawInput") == raw_input
            and card.get("status") == STATUS_IN_PROGRESS
        ):
            shared.append(example.case)
        arguments = _code(example.arguments) if example.arguments else "(empty)"
        lines.append(
            f"| `{example.tool}` | {arguments} | {example.case} | {shown.view.CARD}"
            f" | {_cell(card, 'title')} | {_cell(card, 'kind')}"
            f" | {_cell(card, 'locations')} | {_cell(card, 'content')} |"
        )
    exceptions = [example.case for example in CALL_EXAMPLES if example.case not in shared]
    lines.append("")
    if exceptions:
        lines.append(
            f"Rows whose status, permission request or `rawInput` differ: {', '.join(exceptions)}."
        )
    else:
        lines.append(
            f"In every row `status` is `{STATUS_IN_PROGRESS}`, `rawInput` is the parsed "
            "arguments (left out for `null`, which has no value, never written as `null`), and the "
            "permission request's `toolCall` has exactly the card's fields without "
            "`sessionUpdate` and `status`."
        )
    kinds = ", ".join(f"`{kind}`" for kind in sorted(TOOL_KINDS))
    lines.append(f"A card's `kind` is one of ACP's tool kinds, {kinds} (VIEW-1 refuses any other).")
    lines.append(f"A call's view is one of the call views, {_words(CALL_CARDS)} (VIEW-1).")
    return "\n".join(lines)


def _result_input(example: ResultExample) -> str:
    parts = [f"text {_code(_json(example.text))}"]
    if example.is_error:
        parts.append("`isError`")
    if example.meta is not None:
        parts.append(f"meta {_code(_json(example.meta))}")
    return ", ".join(parts)


def render_result_updates() -> str:
    """Per example result: the view and the `tool_call_update`'s status, title and content."""
    lines = [
        "| tool | `arguments` | case | result | view | `status` | `title` | `content` |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for example in RESULT_EXAMPLES:
        presenter = LogPresenter()
        presenter.feed(_call_event(example.tool, example.arguments))
        shown = presenter.feed(_result_event(example))
        assert isinstance(shown, ResultShown)
        update = shown.notification["update"]
        assert isinstance(update, dict)
        extra = sorted(set(update) - {"sessionUpdate", "toolCallId", "status", "title", "content"})
        content = _cell(update, "content") + (f" (and {', '.join(extra)})" if extra else "")
        lines.append(
            f"| `{example.tool}` | {_code(example.arguments)} | {example.case}"
            f" | {_result_input(example)} | {shown.view.CARD} | {_cell(update, 'status')}"
            f" | {_cell(update, 'title')} | {content} |"
        )
    lines.append("")
    lines.append(f"A result's view is one of the result views, {_words(RESULT_CARDS)} (VIEW-1).")
    return "\n".join(lines)


def _status(notification: dict[str, object]) -> str:
    update = notification["update"]
    assert isinstance(update, dict)
    status = update["status"]
    assert isinstance(status, str)
    return status


def render_statuses() -> str:
    """Each tool message's `status`, as the model sends it for every example of both tables,
    and the set of statuses the model declares (`acp.CARD_STATUSES`)."""
    sent: dict[tuple[str, str], list[str]] = {}

    def note(message: str, occasion: str, status: str) -> None:
        statuses = sent.setdefault((message, occasion), [])
        if status not in statuses:
            statuses.append(status)

    for call in CALL_EXAMPLES:
        shown = LogPresenter().feed(_call_event(call.tool, call.arguments))
        assert isinstance(shown, CallShown)
        note("`tool_call`", "its `tool/call`", _status(shown.notification))
    for example in sorted(RESULT_EXAMPLES, key=lambda example: example.is_error):
        presenter = LogPresenter()
        presenter.feed(_call_event(example.tool, example.arguments))
        result = presenter.feed(_result_event(example))
        assert isinstance(result, ResultShown)
        flag = "with" if example.is_error else "without"
        note(
            "`tool_call_update`",
            f"its `tool/result` {flag} `isError`",
            _status(result.notification),
        )
    lines = ["| message | sent at the call's | `status` |", "|---|---|---|"]
    for (message, occasion), statuses in sent.items():
        lines.append(f"| {message} | {occasion} | {', '.join(f'`{s}`' for s in statuses)} |")
    lines.append("")
    lines.append(
        f"A card's `status` is {_words(CARD_STATUSES)}, never ACP's `pending`; a permission "
        "request's `toolCall` carries none."
    )
    return "\n".join(lines)


def _json_block(messages: list[dict[str, object]]) -> str:
    body = "\n".join(_json(message) for message in messages)
    return f"```json\n{body}\n```"


def render_terminal_example() -> str:
    """A foreground command's card and result update for a terminal-capable client (ACP-2)."""
    example = TERMINAL_EXAMPLE
    events = (_call_event(example.tool, example.arguments), _result_event(example))
    intro = (
        f"Call `{CALL_ID}` to `{example.tool}` with {_code(example.arguments)}, result text "
        f"{_code(_json(example.text))}, session cwd `/workspace`, a terminal-capable client:"
    )
    return f"{intro}\n\n{_json_block(presented_for(events, terminal_capable=True))}"


def render_worked_example() -> str:
    """The full messages, one per line, for a call that asks for approval and then succeeds."""
    example = WORKED_EXAMPLE
    intro = (
        f"Call `{CALL_ID}` to `{example.tool}` with {_code(example.arguments)}; a PreToolUse hook "
        f"asks, so `approval/asked` follows; the result text is {_code(_json(example.text))}. "
        "`tool_call` at the `tool/call`, `session/request_permission` at the `approval/asked`, "
        "`tool_call_update` at the `tool/result`:"
    )
    return f"{intro}\n\n{_json_block(worked_example_messages())}"
