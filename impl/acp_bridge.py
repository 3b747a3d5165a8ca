"""Cards to Agent Client Protocol JSON (rules ACP-1 .. ACP-3, VIEW-4).

Builds the params of `session/update` notifications (`tool_call`, `tool_call_update`) and of
`session/request_permission`, as plain wire dicts. Absent fields are left out, never sent as
null (in an update, null means "unchanged").

- `rawInput` of every call card and permission prompt is the call's effective parsed arguments:
  what will actually run, so a rewritten call shows (and is approved with) its rewritten input.
- Titles show workspace paths relative to the session cwd; paths in locations and diffs stay raw.
- Only a terminal-capable client gets an embedded terminal and the terminal meta; any other
  client gets a terminal result as a fenced console text block.
"""

from __future__ import annotations

from typing import assert_never

from loopspec.impl.snapshot import plain, snapshot
from loopspec.impl.text_shapes import console_block, relative_title, terminal_directory
from loopspec.model.jsonvalue import JsonValue
from loopspec.model.messages import OpaqueBlock, ResultContentBlock, TextBlock
from loopspec.model.views import (
    DiffCallView,
    DiffResultView,
    FileDiff,
    FileLocation,
    GenericCallView,
    GenericResultView,
    TerminalCallView,
    TerminalResultView,
    ToolCallView,
    ToolResultView,
)

Wire = dict[str, object]

PERMISSION_OPTIONS: tuple[Wire, ...] = (
    {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
)


def text_item(text: str) -> Wire:
    """A content item carrying one text block."""
    return {"type": "content", "content": {"type": "text", "text": text}}


def block_item(block: ResultContentBlock) -> Wire:
    """A content item for a result block; media passes through, other blocks are named."""
    match block:
        case TextBlock():
            return text_item(block.text)
        case OpaqueBlock():
            data, mime = block.data.get("data"), block.data.get("mimeType")
            if block.type in ("image", "audio") and isinstance(data, str) and isinstance(mime, str):
                media: Wire = {"type": block.type, "data": data, "mimeType": mime}
                uri = block.data.get("uri")
                if block.type == "image" and isinstance(uri, str):
                    media["uri"] = uri
                return {"type": "content", "content": media}
            return text_item(f"[{block.type} content]")
        case _:
            assert_never(block)


def diff_item(diff: FileDiff) -> Wire:
    """A diff content item; no oldText means a new file."""
    item: Wire = {"type": "diff", "path": diff.path, "newText": diff.new_text}
    if diff.old_text is not None:
        item["oldText"] = diff.old_text
    return item


def location_item(location: FileLocation) -> Wire:
    """A follow-along location."""
    item: Wire = {"path": location.path}
    if location.line is not None:
        item["line"] = location.line
    return item


def _titled(title: str, anchor: str | None, cwd: str) -> str:
    return title if anchor is None else relative_title(title, anchor, cwd)


def _nonempty(fields: Wire, key: str, items: list[Wire]) -> None:
    if items:
        fields[key] = items


def call_fields(
    call_id: str, view: ToolCallView, arguments: JsonValue, cwd: str, *, terminal: bool
) -> Wire:
    """The ToolCall fields a `tool_call` update and a permission prompt share."""
    fields: Wire = {"toolCallId": call_id}
    match view:
        case GenericCallView():
            anchor = view.locations[0].path if view.locations else None
            fields["title"] = _titled(view.title, anchor, cwd)
            fields["kind"] = view.kind or "other"
            _nonempty(fields, "content", [block_item(block) for block in view.content])
            _nonempty(fields, "locations", [location_item(loc) for loc in view.locations])
        case DiffCallView():
            paths = [loc.path for loc in view.locations] + [diff.path for diff in view.diffs]
            fields["title"] = _titled(view.title, paths[0] if paths else None, cwd)
            fields["kind"] = "edit"
            _nonempty(fields, "content", [diff_item(diff) for diff in view.diffs])
            _nonempty(fields, "locations", [location_item(loc) for loc in view.locations])
        case TerminalCallView():
            fields["title"] = view.title
            fields["kind"] = "execute"
            content = [text_item(view.description)] if view.description else []
            if terminal:
                content.append({"type": "terminal", "terminalId": call_id})
                where = terminal_directory(view.cwd, cwd)
                fields["_meta"] = {"terminal_info": {"terminal_id": call_id, "cwd": where}}
            _nonempty(fields, "content", content)
        case _:
            assert_never(view)
    if arguments is not None:
        fields["rawInput"] = plain(snapshot(arguments))
    return fields


def call_update(
    session_id: str,
    call_id: str,
    view: ToolCallView,
    arguments: JsonValue,
    cwd: str,
    *,
    terminal: bool,
) -> Wire:
    """`session/update` params announcing a call, in progress."""
    fields = call_fields(call_id, view, arguments, cwd, terminal=terminal)
    update = {"sessionUpdate": "tool_call", **fields, "status": "in_progress"}
    return {"sessionId": session_id, "update": update}


def result_update(
    session_id: str, call_id: str, view: ToolResultView, cwd: str, *, failed: bool, terminal: bool
) -> Wire:
    """`session/update` params finishing a call; sent content replaces the card's content."""
    update: Wire = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": call_id,
        "status": "failed" if failed else "completed",
    }
    match view:
        case GenericResultView():
            if view.title is not None:
                update["title"] = view.title
            if view.content is not None:
                update["content"] = [block_item(block) for block in view.content]
        case TerminalResultView():
            if view.title is not None:
                update["title"] = view.title
            if terminal:
                # Content would replace the live terminal the card embeds; meta carries it.
                update["_meta"] = _terminal_meta(call_id, view)
            else:
                update["content"] = [text_item(console_block(view.output or ""))]
        case DiffResultView():
            if view.title is not None:
                anchor = view.diffs[0].path if view.diffs else None
                update["title"] = _titled(view.title, anchor, cwd)
            update["content"] = [diff_item(diff) for diff in view.diffs]
        case _:
            assert_never(view)
    return {"sessionId": session_id, "update": update}


def _terminal_meta(call_id: str, view: TerminalResultView) -> Wire:
    meta: Wire = {"terminal_output": {"terminal_id": call_id, "data": view.output or ""}}
    if view.signal is not None:
        meta["terminal_exit"] = {"terminal_id": call_id, "signal": view.signal}
    elif view.exit_code is not None:
        meta["terminal_exit"] = {"terminal_id": call_id, "exit_code": view.exit_code}
    return meta


def permission_prompt(
    session_id: str, call_id: str, view: ToolCallView, arguments: JsonValue, cwd: str
) -> Wire:
    """`session/request_permission` params: approve this call with its effective input."""
    # No terminal exists before the call is allowed, so none is embedded.
    tool_call = call_fields(call_id, view, arguments, cwd, terminal=False)
    return {
        "sessionId": session_id,
        "toolCall": tool_call,
        "options": [dict(option) for option in PERMISSION_OPTIONS],
    }
