"""The ACP bridge: views to Agent Client Protocol wire JSON (rules ACP-1 .. ACP-3, VIEW-4).

Pure functions from a view to the params object of a `session/update` notification or a
`session/request_permission` request, in wire shape (camelCase keys, plain dicts and lists).
Absent fields are omitted, never sent as null: in an ACP update a null means "unchanged".

rawInput: every call card carries `rawInput` = the effective parsed arguments of the call, the
input the tool will actually run with. ACP clients treat `rawInput` as the thing being approved,
so a terminal card sends the whole argument object rather than just the command string, and a
generic card sends the arguments even when its presenter chose a narrower `raw_input` to display
(that field is for consumers that render the view themselves). A rewritten call therefore shows
its rewritten input in every card and every permission prompt.

Terminal embedding (rule ACP-2): only a terminal-capable client gets the terminal content block
and the `terminal_info` / `terminal_output` / `terminal_exit` meta; any other client gets the
output as one fenced console text block, built here rather than by the tool.
"""

from __future__ import annotations

from typing import assert_never

from loopspec.model.jsonvalue import JsonValue, thaw
from loopspec.model.messages import OpaqueBlock, ResultContentBlock, TextBlock
from loopspec.model.pure.presentation import fenced_console, relativize_title, resolve_terminal_cwd
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

ALLOW_ONCE = "allow_once"
REJECT_ONCE = "reject_once"
PERMISSION_OPTIONS: tuple[tuple[str, str], ...] = (
    (ALLOW_ONCE, "Allow once"),
    (REJECT_ONCE, "Reject"),
)
"""(optionId, label) of the options a permission request offers; each id is also its kind."""

# ACP's tool-call statuses the model sends (never ACP's `pending`): a card opens in progress at
# its call, one awaiting approval too, as dsh's ACP bridge sent it (SPEC.md section 12), and the
# one update its result gets closes it.
STATUS_IN_PROGRESS = "in_progress"
STATUS_COMPLETED = "completed"
STATUS_FAILED = "failed"
CARD_STATUSES = frozenset({STATUS_IN_PROGRESS, STATUS_COMPLETED, STATUS_FAILED})

_MEDIA_TYPES = frozenset({"image", "audio"})

TERMINAL_META_KEYS = ("terminal_info", "terminal_output", "terminal_exit")
"""The `_meta` keys the model writes (for a terminal-capable client only, ACP-2). ACP reserves
`_meta` for extensions: every other key is a bridge's own, and no rule here speaks about it."""


def text_content(text: str) -> dict[str, object]:
    """A tool-call content item holding one text block."""
    return {"type": "content", "content": {"type": "text", "text": text}}


def _block_content(block: ResultContentBlock) -> dict[str, object]:
    match block:
        case TextBlock():
            return text_content(block.text)
        case OpaqueBlock():
            return _opaque_content(block)
        case _:
            assert_never(block)


def _opaque_content(block: OpaqueBlock) -> dict[str, object]:
    """Media blocks pass through; any other opaque block becomes a placeholder, never dropped."""
    data, mime_type = block.data.get("data"), block.data.get("mimeType")
    if block.type in _MEDIA_TYPES and isinstance(data, str) and isinstance(mime_type, str):
        media: dict[str, object] = {"type": block.type, "data": data, "mimeType": mime_type}
        uri = block.data.get("uri")
        if block.type == "image" and isinstance(uri, str):
            media["uri"] = uri
        return {"type": "content", "content": media}
    return text_content(f"[{block.type} content]")


def _diff_content(diff: FileDiff) -> dict[str, object]:
    # Paths stay raw (rule VIEW-4); a missing oldText is how ACP says "new file".
    item: dict[str, object] = {"type": "diff", "path": diff.path, "newText": diff.new_text}
    if diff.old_text is not None:
        item["oldText"] = diff.old_text
    return item


def _location(location: FileLocation) -> dict[str, object]:
    item: dict[str, object] = {"path": location.path}
    if location.line is not None:
        item["line"] = location.line
    return item


def _display_title(title: str, anchor: str | None, session_cwd: str) -> str:
    """The title relativized against the card's first path; cards without a path keep theirs."""
    return title if anchor is None else relativize_title(title, anchor, session_cwd)


def _put_list(fields: dict[str, object], key: str, items: list[dict[str, object]]) -> None:
    if items:
        fields[key] = items


def _call_fields(
    call_id: str,
    view: ToolCallView,
    *,
    arguments: JsonValue,
    session_cwd: str,
    terminal_capable: bool,
) -> dict[str, object]:
    """The ToolCall fields every call card shares between `tool_call` and a permission request."""
    fields: dict[str, object] = {"toolCallId": call_id}
    match view:
        case GenericCallView():
            anchor = view.locations[0].path if view.locations else None
            fields["title"] = _display_title(view.title, anchor, session_cwd)
            fields["kind"] = view.kind or "other"
            _put_list(fields, "content", [_block_content(block) for block in view.content])
            _put_list(fields, "locations", [_location(location) for location in view.locations])
        case DiffCallView():
            paths = [location.path for location in view.locations] + [d.path for d in view.diffs]
            fields["title"] = _display_title(view.title, paths[0] if paths else None, session_cwd)
            fields["kind"] = "edit"
            _put_list(fields, "content", [_diff_content(diff) for diff in view.diffs])
            _put_list(fields, "locations", [_location(location) for location in view.locations])
        case TerminalCallView():
            fields["title"] = view.title
            fields["kind"] = "execute"
            content = [text_content(view.description)] if view.description else []
            if terminal_capable:
                content.append({"type": "terminal", "terminalId": call_id})
                cwd = resolve_terminal_cwd(view.cwd, session_cwd)
                fields["_meta"] = {"terminal_info": {"terminal_id": call_id, "cwd": cwd}}
            _put_list(fields, "content", content)
        case _:
            assert_never(view)
    if arguments is not None:
        fields["rawInput"] = thaw(arguments)
    return fields


def tool_call_notification(
    session_id: str,
    call_id: str,
    view: ToolCallView,
    *,
    arguments: JsonValue,
    session_cwd: str,
    terminal_capable: bool,
) -> dict[str, object]:
    """`session/update` params announcing a call as a `tool_call` in progress."""
    fields = _call_fields(
        call_id,
        view,
        arguments=arguments,
        session_cwd=session_cwd,
        terminal_capable=terminal_capable,
    )
    update = {"sessionUpdate": "tool_call", **fields, "status": STATUS_IN_PROGRESS}
    return {"sessionId": session_id, "update": update}


def _terminal_result_meta(call_id: str, view: TerminalResultView) -> dict[str, object]:
    meta: dict[str, object] = {
        "terminal_output": {"terminal_id": call_id, "data": view.output or ""}
    }
    if view.signal is not None:
        meta["terminal_exit"] = {"terminal_id": call_id, "signal": view.signal}
    elif view.exit_code is not None:
        meta["terminal_exit"] = {"terminal_id": call_id, "exit_code": view.exit_code}
    return meta


def result_status(*, is_error: bool) -> str:
    """The status a result's `tool_call_update` closes its card with."""
    return STATUS_FAILED if is_error else STATUS_COMPLETED


def tool_result_notification(
    session_id: str,
    call_id: str,
    view: ToolResultView,
    *,
    is_error: bool,
    terminal_capable: bool,
    session_cwd: str,
) -> dict[str, object]:
    """`session/update` params finishing a call as a `tool_call_update` (completed or failed).

    Any `content` sent here replaces the card's content collection on the client.
    """
    update: dict[str, object] = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": call_id,
        "status": result_status(is_error=is_error),
    }
    match view:
        case GenericResultView():
            if view.title is not None:
                update["title"] = view.title
            if view.content is not None:
                update["content"] = [_block_content(block) for block in view.content]
        case TerminalResultView():
            if view.title is not None:
                update["title"] = view.title
            if terminal_capable:
                # No content: it would replace the live terminal the card already embeds.
                update["_meta"] = _terminal_result_meta(call_id, view)
            else:
                update["content"] = [text_content(fenced_console(view.output or ""))]
        case DiffResultView():
            if view.title is not None:
                anchor = view.diffs[0].path if view.diffs else None
                update["title"] = _display_title(view.title, anchor, session_cwd)
            update["content"] = [_diff_content(diff) for diff in view.diffs]
        case _:
            assert_never(view)
    return {"sessionId": session_id, "update": update}


def permission_request(
    session_id: str,
    call_id: str,
    view: ToolCallView,
    *,
    arguments: JsonValue,
    session_cwd: str,
) -> dict[str, object]:
    """`session/request_permission` params asking to run the call with its effective input.

    `rawInput` is the effective arguments (after any rewrite), so the user approves exactly what
    will run (rule ACP-3). No terminal is embedded: none exists before the call is allowed.
    """
    tool_call = _call_fields(
        call_id, view, arguments=arguments, session_cwd=session_cwd, terminal_capable=False
    )
    options = [
        {"optionId": option_id, "name": label, "kind": option_id}
        for option_id, label in PERMISSION_OPTIONS
    ]
    return {"sessionId": session_id, "toolCall": tool_call, "options": options}
