"""Presenters: the render intent of each tool call and result (rules VIEW-2, VIEW-3).

A presenter is a pure function of the parsed arguments (plus, for a result, the durable result
projection `{content, is_error, meta}`), so live streaming and log replay produce the same view.
Presenters never do I/O: whatever a result needs beyond its content arrives in `meta`, which the
log stores with the result.

The fallbacks wrap every presenter, so a missing presenter, arguments of the wrong shape, or a
presenter that raises all degrade to a generic view and never break the caller.

Tool shapes (optional fields may be absent or null):
- bash  {command, description?, cwd?, run_in_background?}
- read  {file_path, offset? (>= 0), limit? (>= 1)}
- write {file_path, content}
- edit  {file_path, old_string, new_string, replace_all?}
- todo  {todos: [{content, status}]}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import assert_never

import attrs

from loopspec.model.jsonvalue import FrozenMap, JsonValue
from loopspec.model.messages import ResultContentBlock, TextBlock
from loopspec.model.pure.presentation import (
    fenced_console,
    file_title,
    first_line,
    parse_exit_marker,
    read_title,
)
from loopspec.model.toolargs import (
    ArgumentShapeError,
    object_fields,
    optional_bool,
    optional_int,
    optional_str,
    required_array,
    required_str,
)
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


@attrs.frozen
class DurableResult:
    """The part of a tool result the log keeps, and so the only part a result presenter sees."""

    content: tuple[ResultContentBlock, ...]
    is_error: bool
    meta: JsonValue = None


CallPresenter = Callable[[JsonValue], ToolCallView]
"""Maps parsed arguments to a call view; raises (typically `ArgumentShapeError`) to fall back."""

ResultPresenter = Callable[[JsonValue, DurableResult], ToolResultView | None]
"""Maps arguments and the durable result to a result view; None means "show the raw content"."""


def result_text(content: tuple[ResultContentBlock, ...]) -> str:
    """The text blocks of a result joined by newlines (opaque blocks carry no text)."""
    return "\n".join(block.text for block in content if isinstance(block, TextBlock))


# --- bash ---------------------------------------------------------------------------------------


@attrs.frozen
class _BashArgs:
    command: str
    description: str | None
    cwd: str | None
    background: bool


def _bash_args(arguments: JsonValue) -> _BashArgs:
    fields = object_fields(arguments)
    return _BashArgs(
        command=required_str(fields, "command"),
        description=optional_str(fields, "description"),
        cwd=optional_str(fields, "cwd"),
        background=optional_bool(fields, "run_in_background") is True,
    )


def _present_bash_call(arguments: JsonValue) -> ToolCallView:
    bash = _bash_args(arguments)
    if bash.background:
        # A background job has no live terminal to embed, so it is a generic execute card.
        described = (TextBlock(bash.description),) if bash.description else ()
        return GenericCallView(
            title=bash.command, kind="execute", raw_input=bash.command, content=described
        )
    return TerminalCallView(title=bash.command, description=bash.description, cwd=bash.cwd)


def _present_bash_result(arguments: JsonValue, result: DurableResult) -> ToolResultView:
    bash = _bash_args(arguments)
    text = result_text(result.content)
    if bash.background:
        return GenericResultView(content=(TextBlock(fenced_console(text)),))
    output, exit_code, signal = parse_exit_marker(text)
    return TerminalResultView(output=output, exit_code=exit_code, signal=signal)


# --- read ---------------------------------------------------------------------------------------


def _present_read_call(arguments: JsonValue) -> ToolCallView:
    fields = object_fields(arguments)
    path = required_str(fields, "file_path")
    offset = optional_int(fields, "offset", minimum=0)
    limit = optional_int(fields, "limit", minimum=1)
    return GenericCallView(
        title=read_title(path, offset, limit),
        kind="read",
        raw_input=arguments,
        locations=(FileLocation(path, line=first_line(offset)),),
    )


def _present_raw_result(arguments: JsonValue, result: DurableResult) -> ToolResultView:
    return GenericResultView(content=result.content)


# --- write and edit -----------------------------------------------------------------------------


def _present_write_call(arguments: JsonValue) -> ToolCallView:
    fields = object_fields(arguments)
    path = required_str(fields, "file_path")
    # The presenter cannot read the old file, so the call-time diff is in new-file style.
    whole_file = FileDiff(path, None, required_str(fields, "content"))
    return DiffCallView(
        title=file_title("Write", path), diffs=(whole_file,), locations=(FileLocation(path),)
    )


def _present_write_result(arguments: JsonValue, result: DurableResult) -> ToolResultView | None:
    if result.is_error:
        return None
    fields = object_fields(arguments)
    path = required_str(fields, "file_path")
    diffs = diffs_from_meta(result.meta) or (FileDiff(path, None, required_str(fields, "content")),)
    return DiffResultView(title=file_title("Write", path), diffs=diffs)


@attrs.frozen
class _EditArgs:
    path: str
    old_string: str
    new_string: str


def _edit_args(arguments: JsonValue) -> _EditArgs:
    fields = object_fields(arguments)
    # Checked for shape only: one edit site or all of them, the call-time diff is the same.
    optional_bool(fields, "replace_all")
    return _EditArgs(
        path=required_str(fields, "file_path"),
        old_string=required_str(fields, "old_string"),
        new_string=required_str(fields, "new_string"),
    )


def _present_edit_call(arguments: JsonValue) -> ToolCallView:
    edit = _edit_args(arguments)
    # An empty old_string creates the file, which a diff shows as "no old text".
    diff = FileDiff(edit.path, edit.old_string or None, edit.new_string)
    return DiffCallView(
        title=file_title("Edit", edit.path), diffs=(diff,), locations=(FileLocation(edit.path),)
    )


def _present_edit_result(arguments: JsonValue, result: DurableResult) -> ToolResultView | None:
    edit = _edit_args(arguments)
    # Without recorded hunks the applied change is unknown, so the raw content is shown instead.
    diffs = () if result.is_error else diffs_from_meta(result.meta)
    return DiffResultView(title=file_title("Edit", edit.path), diffs=diffs) if diffs else None


def diffs_from_meta(meta: JsonValue) -> tuple[FileDiff, ...]:
    """The applied diffs a write or edit recorded as `meta.diffs`; () when absent or malformed.

    One malformed entry discards them all: a partial diff would misstate what was applied.
    """
    if not isinstance(meta, FrozenMap):
        return ()
    entries = meta.get("diffs")
    if not isinstance(entries, tuple):
        return ()
    diffs: list[FileDiff] = []
    for entry in entries:
        if not isinstance(entry, FrozenMap):
            return ()
        path, old_text, new_text = entry.get("path"), entry.get("oldText"), entry.get("newText")
        if not (isinstance(path, str) and isinstance(new_text, str)):
            return ()
        if not (old_text is None or isinstance(old_text, str)):
            return ()
        diffs.append(FileDiff(path, old_text, new_text))
    return tuple(diffs)


# --- todo ---------------------------------------------------------------------------------------


def _present_todo_call(arguments: JsonValue) -> ToolCallView:
    for item in required_array(object_fields(arguments), "todos"):
        if not isinstance(item, FrozenMap):
            raise ArgumentShapeError("each todo must be an object")
        required_str(item, "content")
        required_str(item, "status")
    return GenericCallView(title="Update todos", kind="think", raw_input=arguments)


# --- registry and fallbacks ---------------------------------------------------------------------

CALL_PRESENTERS: Mapping[str, CallPresenter] = MappingProxyType(
    {
        "bash": _present_bash_call,
        "read": _present_read_call,
        "write": _present_write_call,
        "edit": _present_edit_call,
        "todo": _present_todo_call,
    }
)

RESULT_PRESENTERS: Mapping[str, ResultPresenter] = MappingProxyType(
    {
        "bash": _present_bash_result,
        "read": _present_raw_result,
        "write": _present_write_result,
        "edit": _present_edit_result,
        "todo": _present_raw_result,
    }
)


def generic_call_fallback(tool_name: str, arguments: JsonValue) -> GenericCallView:
    """The view of a call no presenter could render: its name, kind other, the parsed input."""
    return GenericCallView(title=tool_name, kind="other", raw_input=arguments)


def apply_call_presenter(
    presenter: CallPresenter | None, tool_name: str, arguments: JsonValue
) -> ToolCallView:
    """Run `presenter`, falling back to the generic view when it is missing or raises."""
    if presenter is None:
        return generic_call_fallback(tool_name, arguments)
    try:
        return presenter(arguments)
    except Exception:
        # A presenter failure must never break streaming or replay (rule VIEW-3).
        return generic_call_fallback(tool_name, arguments)


def apply_result_presenter(
    presenter: ResultPresenter | None,
    arguments: JsonValue,
    call_view: ToolCallView | None,
    result: DurableResult,
) -> ToolResultView:
    """Run `presenter` and apply the result fallbacks of rule VIEW-3.

    Missing, raising or declining presenters show the raw content; a terminal result is honored
    only when its call rendered as a terminal (the orphan guard); a generic result with no
    content gets the raw content, so the card is never blanked.
    """
    raw = GenericResultView(content=result.content)
    if presenter is None:
        return raw
    try:
        view = presenter(arguments, result)
    except Exception:
        # Same reason as for calls: rendering is best effort, the result itself is durable.
        return raw
    if view is None:
        return raw
    match view:
        case TerminalResultView():
            return view if isinstance(call_view, TerminalCallView) else raw
        case GenericResultView():
            return view if view.content else GenericResultView(view.title, result.content)
        case DiffResultView():
            return view
        case _:
            assert_never(view)


def present_call(tool_name: str, arguments: JsonValue) -> ToolCallView:
    """The render intent of a call to `tool_name` with the parsed `arguments` (never raises)."""
    return apply_call_presenter(CALL_PRESENTERS.get(tool_name), tool_name, arguments)


def present_result(  # noqa: PLR0917 - positional order is the shared public signature
    tool_name: str | None,
    arguments: JsonValue,
    call_view: ToolCallView | None,
    content: tuple[ResultContentBlock, ...],
    is_error: bool,
    meta: JsonValue = None,
) -> ToolResultView:
    """The render intent of a result (never raises).

    `tool_name` is None when the result could not be paired with its call; `call_view` is the
    view the paired call rendered as, which the orphan guard checks.
    """
    presenter = None if tool_name is None else RESULT_PRESENTERS.get(tool_name)
    return apply_result_presenter(
        presenter, arguments, call_view, DurableResult(content, is_error, meta)
    )
