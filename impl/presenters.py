"""How each tool's calls and results render (rules VIEW-2, VIEW-3).

A presenter sees only what the log keeps: the parsed arguments of the `tool/call`, and for a
result its content, error flag and `meta`. Rendering is therefore the same live and on replay.
Presenters never break the caller: a missing presenter, arguments of the wrong shape or any
exception fall back to a generic card (for a result, the raw content). Tool shapes:

- bash  {command, description?, cwd?, run_in_background?}
- read  {file_path, offset? (>= 0), limit? (>= 1)}
- write {file_path, content}
- edit  {file_path, old_string, new_string, replace_all?}
- todo  {todos: [{content, status}]}

(optional fields may be absent or null).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import assert_never

import attrs

from loopspec.impl.text_shapes import console_block, file_title, read_title, split_exit_marker
from loopspec.model.jsonvalue import JsonValue
from loopspec.model.messages import ResultContentBlock, TextBlock
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


class WrongShape(ValueError):
    """The arguments do not have the shape the tool's presenter reads."""


@attrs.frozen
class StoredResult:
    """What the log keeps of a result, so all a result presenter may look at."""

    content: tuple[ResultContentBlock, ...]
    is_error: bool
    meta: JsonValue = None


# --- reading arguments --------------------------------------------------------------------------


class Fields:
    """Typed access to an argument object; every wrong shape raises `WrongShape`."""

    def __init__(self, arguments: object) -> None:
        if not isinstance(arguments, Mapping):
            raise WrongShape("the arguments are not an object")
        self._values: Mapping[str, object] = arguments

    def text(self, key: str) -> str:
        value = self._values.get(key)
        if not isinstance(value, str):
            raise WrongShape(f"{key} must be a string")
        return value

    def maybe_text(self, key: str) -> str | None:
        value = self._values.get(key)
        if value is not None and not isinstance(value, str):
            raise WrongShape(f"{key} must be a string or absent")
        return value

    def maybe_flag(self, key: str) -> bool | None:
        value = self._values.get(key)
        if value is not None and not isinstance(value, bool):
            raise WrongShape(f"{key} must be a boolean or absent")
        return value

    def maybe_count(self, key: str, at_least: int) -> int | None:
        value = self._values.get(key)
        if value is None:
            return None
        # A JSON integer only: bool is an int in Python, and 2.0 is not a line number.
        if type(value) is not int or value < at_least:
            raise WrongShape(f"{key} must be an integer >= {at_least} or absent")
        return value

    def items(self, key: str) -> tuple[object, ...]:
        value = self._values.get(key)
        if not isinstance(value, tuple):
            raise WrongShape(f"{key} must be an array")
        return value


def _text_of(content: tuple[ResultContentBlock, ...]) -> str:
    return "\n".join(block.text for block in content if isinstance(block, TextBlock))


# --- the tools ----------------------------------------------------------------------------------


def _bash_call(arguments: JsonValue) -> ToolCallView:
    fields = Fields(arguments)
    command, description = fields.text("command"), fields.maybe_text("description")
    cwd = fields.maybe_text("cwd")
    if fields.maybe_flag("run_in_background") is True:
        # Nothing runs in the foreground to embed, so the card is a generic execute card.
        shown = (TextBlock(description),) if description else ()
        return GenericCallView(command, "execute", command, shown)
    return TerminalCallView(command, description, cwd)


def _bash_result(arguments: JsonValue, result: StoredResult) -> ToolResultView | None:
    fields = Fields(arguments)
    fields.text("command")
    fields.maybe_text("description")
    fields.maybe_text("cwd")
    text = _text_of(result.content)
    if fields.maybe_flag("run_in_background") is True:
        return GenericResultView(content=(TextBlock(console_block(text)),))
    output, exit_code, signal = split_exit_marker(text)
    return TerminalResultView(output=output, exit_code=exit_code, signal=signal)


def _read_call(arguments: JsonValue) -> ToolCallView:
    fields = Fields(arguments)
    path = fields.text("file_path")
    offset = fields.maybe_count("offset", 0)
    limit = fields.maybe_count("limit", 1)
    location = FileLocation(path, offset or 1)
    return GenericCallView(read_title(path, offset, limit), "read", arguments, (), (location,))


def _raw_result(arguments: JsonValue, result: StoredResult) -> ToolResultView | None:
    return GenericResultView(content=result.content)


def _write_call(arguments: JsonValue) -> ToolCallView:
    fields = Fields(arguments)
    path = fields.text("file_path")
    # The old file is unknown at call time, so the diff is shown as a new file.
    diff = FileDiff(path, None, fields.text("content"))
    return DiffCallView(file_title("Write", path), (diff,), (FileLocation(path),))


def _write_result(arguments: JsonValue, result: StoredResult) -> ToolResultView | None:
    if result.is_error:
        return None
    fields = Fields(arguments)
    path = fields.text("file_path")
    diffs = recorded_diffs(result.meta)
    if not diffs:
        diffs = (FileDiff(path, None, fields.text("content")),)
    return DiffResultView(file_title("Write", path), diffs)


def _edit_fields(arguments: JsonValue) -> tuple[str, str, str]:
    fields = Fields(arguments)
    fields.maybe_flag("replace_all")  # checked for shape; the call-time diff is the same
    return fields.text("file_path"), fields.text("old_string"), fields.text("new_string")


def _edit_call(arguments: JsonValue) -> ToolCallView:
    path, old, new = _edit_fields(arguments)
    # An empty old_string creates the file: a diff without old text.
    return DiffCallView(
        file_title("Edit", path), (FileDiff(path, old or None, new),), (FileLocation(path),)
    )


def _edit_result(arguments: JsonValue, result: StoredResult) -> ToolResultView | None:
    path, _old, _new = _edit_fields(arguments)
    diffs = () if result.is_error else recorded_diffs(result.meta)
    # Without recorded hunks the applied change is unknown: show the raw content instead.
    return DiffResultView(file_title("Edit", path), diffs) if diffs else None


def _todo_call(arguments: JsonValue) -> ToolCallView:
    for item in Fields(arguments).items("todos"):
        todo = Fields(item)
        todo.text("content")
        todo.text("status")
    return GenericCallView("Update todos", "think", arguments)


def recorded_diffs(meta: JsonValue) -> tuple[FileDiff, ...]:
    """The diffs a write or edit recorded in `meta.diffs`; () when absent or any is malformed."""
    if not isinstance(meta, Mapping):
        return ()
    entries = meta.get("diffs")
    if not isinstance(entries, tuple):
        return ()
    diffs = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            return ()
        path, old, new = entry.get("path"), entry.get("oldText"), entry.get("newText")
        if not isinstance(path, str) or not isinstance(new, str):
            return ()
        if old is not None and not isinstance(old, str):
            return ()
        diffs.append(FileDiff(path, old, new))
    return tuple(diffs)


CallPresenter = Callable[[JsonValue], ToolCallView]
ResultPresenter = Callable[[JsonValue, StoredResult], ToolResultView | None]

PRESENTERS: dict[str, tuple[CallPresenter, ResultPresenter]] = {
    "bash": (_bash_call, _bash_result),
    "read": (_read_call, _raw_result),
    "write": (_write_call, _write_result),
    "edit": (_edit_call, _edit_result),
    "todo": (_todo_call, _raw_result),
}


# --- with fallbacks -----------------------------------------------------------------------------


def call_view(tool_name: str, arguments: JsonValue) -> ToolCallView:
    """The card of a call (never raises)."""
    presenters = PRESENTERS.get(tool_name)
    if presenters is not None:
        try:
            return presenters[0](arguments)
        except Exception:
            pass  # rendering is best effort (rule VIEW-3)
    return GenericCallView(tool_name, "other", arguments)


def result_view(
    tool_name: str | None, arguments: JsonValue, shown_as: ToolCallView | None, result: StoredResult
) -> ToolResultView:
    """The card update of a result (never raises); `shown_as` is how its call rendered.

    A terminal result is honored only on a terminal card; a generic result without content
    shows the raw content; anything missing, raising or declining shows the raw content.
    """
    raw = GenericResultView(content=result.content)
    presenters = None if tool_name is None else PRESENTERS.get(tool_name)
    if presenters is None:
        return raw
    try:
        view = presenters[1](arguments, result)
    except Exception:
        return raw
    match view:
        case None:
            return raw
        case TerminalResultView():
            return view if isinstance(shown_as, TerminalCallView) else raw
        case GenericResultView():
            return view if view.content else GenericResultView(view.title, result.content)
        case DiffResultView():
            return view
        case _:
            assert_never(view)
