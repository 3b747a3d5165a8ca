"""Presenters and their pure helpers: rules VIEW-1 .. VIEW-4."""

from __future__ import annotations

import posixpath

import pytest
from hypothesis import given
from hypothesis import strategies as st
from view_strategies import (
    KNOWN_TOOLS,
    absolute_paths,
    bash_output,
    json_values,
    malformed_arguments,
    paths,
    result_contents,
    result_metas,
    tool_calls,
    well_formed_arguments,
)

from loopspec.impl.presenters import StoredResult, call_view, result_view
from loopspec.model.errors import InvalidEventError
from loopspec.model.jsonvalue import FrozenMap, JsonValue, dumps, freeze, parse_arguments
from loopspec.model.messages import OpaqueBlock, TextBlock
from loopspec.model.presenters import (
    DurableResult,
    apply_call_presenter,
    apply_result_presenter,
    present_call,
    present_result,
)
from loopspec.model.pure.presentation import (
    fenced_console,
    parse_exit_marker,
    relativize_title,
    resolve_terminal_cwd,
    workspace_relative,
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
)

CALL_CLASSES = (GenericCallView, TerminalCallView, DiffCallView)
RESULT_CLASSES = (GenericResultView, TerminalResultView, DiffResultView)
RAW = (TextBlock("raw output"),)


def args(**fields: object) -> JsonValue:
    return freeze(fields)


# --- VIEW-1: closed unions, invalid combinations unrepresentable --------------------------------


def test_VIEW_1_every_variant_carries_its_wire_card() -> None:
    """VIEW-1: each call and result variant names its card; the two unions use the same tags."""
    assert [cls.CARD for cls in CALL_CLASSES] == ["generic", "terminal", "diff"]
    assert [cls.CARD for cls in RESULT_CLASSES] == ["generic", "terminal", "diff"]


@pytest.mark.parametrize(
    "build",
    [
        lambda: TerminalResultView(exit_code=1, signal="SIGKILL"),
        lambda: GenericCallView(title="t", kind="card"),
        lambda: FileLocation("/a", line=-1),
    ],
    ids=["exit-code-and-signal", "unknown-kind", "negative-line"],
)
def test_VIEW_1_invalid_combinations_cannot_be_built(build: object) -> None:
    """VIEW-1: a terminal result with both exit code and signal, an unknown kind, or a negative
    line is refused at construction."""
    assert callable(build)
    with pytest.raises(InvalidEventError) as refused:
        build()
    assert refused.value.rule_id == "VIEW-1"


# --- VIEW-2: pure, replay-deterministic presenters ----------------------------------------------


@pytest.mark.no_cover
@given(tool_calls())
def test_VIEW_2_present_call_never_raises_and_is_deterministic(call: tuple[str, JsonValue]) -> None:
    """VIEW-2: for any name and arguments, well formed or not, present_call returns a call view,
    the same one every time."""
    name, arguments = call
    view = present_call(name, arguments)
    assert isinstance(view, CALL_CLASSES)
    assert present_call(name, arguments) == view


@given(tool_calls())
def test_VIEW_2_replay_from_the_logged_argument_string_gives_the_same_view(
    call: tuple[str, JsonValue],
) -> None:
    """VIEW-2: the view computed live equals the view recomputed from the logged JSON text."""
    name, arguments = call
    assert present_call(name, parse_arguments(dumps(arguments))) == present_call(name, arguments)


@pytest.mark.no_cover
@given(
    st.none() | st.sampled_from(KNOWN_TOOLS) | st.text(max_size=8),
    st.data(),
    result_contents,
    st.booleans(),
    result_metas,
)
def test_VIEW_2_present_result_never_raises_and_is_deterministic(
    name: str | None,
    data: st.DataObject,
    content: tuple[TextBlock | OpaqueBlock, ...],
    is_error: bool,
    meta: JsonValue,
) -> None:
    """VIEW-2: for any paired or unpaired result, present_result returns a result view that
    depends only on the arguments, the call view and the durable result."""
    arguments = data.draw(
        well_formed_arguments(name) | malformed_arguments(name)
        if name in KNOWN_TOOLS
        else json_values
    )
    call_view = data.draw(st.none() | st.just(present_call(name or "", arguments)))
    view = present_result(name, arguments, call_view, content, is_error, meta)
    assert isinstance(view, RESULT_CLASSES)
    assert present_result(name, arguments, call_view, content, is_error, meta) == view
    if isinstance(view, GenericResultView) and content:
        assert view.content, "a generic result is never blank when raw content exists"


def test_VIEW_2_foreground_bash_is_a_terminal_card() -> None:
    """VIEW-2: a foreground bash call renders as a terminal with the command as title."""
    view = present_call("bash", args(command="make test", description="Run tests", cwd="sub"))
    assert view == TerminalCallView(title="make test", description="Run tests", cwd="sub")


def test_VIEW_2_bash_result_parses_the_exit_marker() -> None:
    """VIEW-2: the trailing `[exit code: N]` line becomes exit_code and leaves the output."""
    arguments = args(command="false")
    call = present_call("bash", arguments)
    result = present_result("bash", arguments, call, (TextBlock("oops\n[exit code: 1]"),), True)
    assert result == TerminalResultView(output="oops", exit_code=1)
    killed = present_result("bash", arguments, call, (TextBlock("[signal: SIGKILL]\n"),), True)
    assert killed == TerminalResultView(output="", signal="SIGKILL")


def test_VIEW_2_background_bash_is_a_generic_execute_card_with_fenced_result() -> None:
    """VIEW-2: a background bash call is generic (kind execute, raw input the command), and its
    result is one fenced console text block."""
    arguments = args(command="sleep 9", description="Wait", run_in_background=True)
    call = present_call("bash", arguments)
    assert call == GenericCallView(
        title="sleep 9", kind="execute", raw_input="sleep 9", content=(TextBlock("Wait"),)
    )
    result = present_result("bash", arguments, call, (TextBlock("started\n\n"),), False)
    assert result == GenericResultView(content=(TextBlock("```console\nstarted\n```"),))


@pytest.mark.parametrize(
    ("offset", "limit", "title", "line"),
    [
        (None, None, "Read /w/a.py", 1),
        (10, 5, "Read /w/a.py (10 - 14)", 10),
        (None, 3, "Read /w/a.py (1 - 3)", 1),
        (7, None, "Read /w/a.py (from line 7)", 7),
    ],
)
def test_VIEW_2_read_title_and_location(
    offset: int | None, limit: int | None, title: str, line: int
) -> None:
    """VIEW-2: read is a generic read card titled with its line range, located at its offset."""
    fields: dict[str, object] = {"file_path": "/w/a.py"}
    fields |= {"offset": offset} if offset is not None else {}
    fields |= {"limit": limit} if limit is not None else {}
    arguments = freeze(fields)
    view = present_call("read", arguments)
    assert view == GenericCallView(
        title=title,
        kind="read",
        raw_input=arguments,
        locations=(FileLocation("/w/a.py", line=line),),
    )
    assert present_result("read", arguments, view, RAW, False) == GenericResultView(content=RAW)


def test_VIEW_2_write_diffs_at_call_and_result_time() -> None:
    """VIEW-2: write shows a new-file diff; its result prefers the recorded `meta.diffs`."""
    arguments = args(file_path="/w/a.txt", content="new\n")
    call = present_call("write", arguments)
    whole_file = FileDiff("/w/a.txt", None, "new\n")
    assert call == DiffCallView(
        title="Write /w/a.txt", diffs=(whole_file,), locations=(FileLocation("/w/a.txt"),)
    )
    assert present_result("write", arguments, call, RAW, False) == DiffResultView(
        "Write /w/a.txt", (whole_file,)
    )
    meta = freeze({"diffs": [{"path": "/w/a.txt", "oldText": "old\n", "newText": "new\n"}]})
    applied = FileDiff("/w/a.txt", "old\n", "new\n")
    assert present_result("write", arguments, call, RAW, False, meta) == DiffResultView(
        "Write /w/a.txt", (applied,)
    )


def test_VIEW_2_edit_diffs_from_arguments_and_meta() -> None:
    """VIEW-2: edit shows old_string -> new_string (empty old means a new file); its result is
    the recorded diff."""
    arguments = args(file_path="/w/a.py", old_string="x = 1", new_string="x = 2")
    call = present_call("edit", arguments)
    assert isinstance(call, DiffCallView)
    assert call.diffs == (FileDiff("/w/a.py", "x = 1", "x = 2"),)
    creation = present_call("edit", args(file_path="/w/n.py", old_string="", new_string="y"))
    assert isinstance(creation, DiffCallView)
    assert creation.diffs == (FileDiff("/w/n.py", None, "y"),)
    meta = freeze({"diffs": [{"path": "/w/a.py", "oldText": "x = 1", "newText": "x = 2"}]})
    assert present_result("edit", arguments, call, RAW, False, meta) == DiffResultView(
        "Edit /w/a.py", (FileDiff("/w/a.py", "x = 1", "x = 2"),)
    )


def test_VIEW_2_todo_is_a_think_card() -> None:
    """VIEW-2: todo is a generic think card titled "Update todos"."""
    arguments = args(todos=[{"content": "ship", "status": "pending"}])
    view = present_call("todo", arguments)
    assert view == GenericCallView(title="Update todos", kind="think", raw_input=arguments)


# --- VIEW-3: fallbacks --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("grep", args(pattern="x")),
        ("bash", parse_arguments('{"command": "ls"')),
        ("bash", args(description="no command")),
        ("read", args(file_path="/a", limit=0)),
        ("read", args(file_path="/a", offset=True)),
        ("write", args(file_path="/a")),
        ("edit", args(file_path="/a", old_string=1, new_string="b")),
        ("todo", args(todos=["not an object"])),
        ("todo", None),
        ("read", None),
        ("write", parse_arguments("[]")),
        ("edit", None),
        ("todo", args(todos="not an array")),
        ("bash", args(command="ls", description=1)),
        ("bash", args(command="ls", run_in_background="yes")),
    ],
    ids=[
        "unknown-tool",
        "invalid-json",
        "missing-key",
        "zero-limit",
        "bool-offset",
        "missing-content",
        "wrong-type",
        "bad-todo",
        "null-args",
        "read-null-args",
        "write-array-args",
        "edit-null-args",
        "todo-string-list",
        "bash-number-description",
        "bash-string-background",
    ],
)
def test_VIEW_3_calls_that_do_not_fit_fall_back_to_generic(name: str, arguments: JsonValue) -> None:
    """VIEW-3: unknown tools and arguments of the wrong shape render as the generic fallback
    (title = tool name, kind other, raw input = the parsed arguments)."""
    assert present_call(name, arguments) == GenericCallView(
        title=name, kind="other", raw_input=arguments
    )


def test_VIEW_3_a_raising_call_presenter_falls_back_to_generic() -> None:
    """VIEW-3: a presenter that raises gives the generic fallback instead of an error."""

    def broken(arguments: JsonValue) -> ToolCallView:
        raise RuntimeError("presenter bug")

    arguments = args(command="ls")
    assert apply_call_presenter(broken, "bash", arguments) == GenericCallView(
        title="bash", kind="other", raw_input=arguments
    )


def test_VIEW_3_unpaired_result_shows_raw_content() -> None:
    """VIEW-3: a result with no known call (tool name None) is generic with the raw content."""
    assert present_result(None, None, None, RAW, False) == GenericResultView(content=RAW)


@pytest.mark.parametrize(
    "call_view",
    [None, GenericCallView(title="bash"), DiffCallView(title="x", diffs=())],
    ids=["no-call-view", "generic-call", "diff-call"],
)
def test_VIEW_3_orphan_terminal_result_becomes_generic(call_view: ToolCallView | None) -> None:
    """VIEW-3: a terminal result is honored only when its call rendered as a terminal."""
    content = (TextBlock("hi\n[exit code: 0]"),)
    view = present_result("bash", args(command="echo hi"), call_view, content, False)
    assert view == GenericResultView(content=content)


def test_VIEW_3_blank_generic_result_gets_the_raw_content() -> None:
    """VIEW-3: a generic result without content is filled with the raw content."""

    def blank(arguments: JsonValue, result: DurableResult) -> GenericResultView:
        return GenericResultView(title="Done")

    view = apply_result_presenter(blank, None, None, DurableResult(RAW, False))
    assert view == GenericResultView(title="Done", content=RAW)


def test_VIEW_3_a_raising_result_presenter_shows_raw_content() -> None:
    """VIEW-3: a result presenter that raises gives the generic view of the raw content."""

    def broken(arguments: JsonValue, result: DurableResult) -> GenericResultView:
        raise KeyError("presenter bug")

    assert apply_result_presenter(broken, None, None, DurableResult(RAW, True)) == (
        GenericResultView(content=RAW)
    )


@pytest.mark.parametrize(
    ("is_error", "meta"),
    [
        (True, freeze({"diffs": [{"path": "/a", "newText": "b"}]})),
        (False, None),
        (False, freeze({"diffs": [{"path": "/a"}]})),
    ],
    ids=["errored", "no-meta", "malformed-meta"],
)
def test_VIEW_3_edit_without_recorded_diff_shows_raw_content(
    is_error: bool, meta: JsonValue
) -> None:
    """VIEW-3: an edit result that errored or recorded no (well-formed) diff shows raw content."""
    arguments = args(file_path="/a", old_string="a", new_string="b")
    view = present_result("edit", arguments, present_call("edit", arguments), RAW, is_error, meta)
    assert view == GenericResultView(content=RAW)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("write", None),
        ("write", args(content="b")),
        ("bash", args(command="ls", run_in_background="yes")),
        ("bash", args(command="ls", cwd=1)),
    ],
    ids=["write-null-args", "write-no-path", "bash-string-background", "bash-number-cwd"],
)
def test_VIEW_3_a_result_whose_arguments_do_not_fit_shows_raw_content(
    name: str, arguments: JsonValue
) -> None:
    """VIEW-3: a successful result of a call whose arguments have the wrong shape shows its raw
    content (its presenter cannot read the arguments)."""
    view = present_result(name, arguments, present_call(name, arguments), RAW, False)
    assert view == GenericResultView(content=RAW)


def test_VIEW_3_failed_write_shows_raw_content() -> None:
    """VIEW-3: a write that errored shows its raw content, not the diff it meant to apply."""
    arguments = args(file_path="/a", content="b")
    view = present_result("write", arguments, present_call("write", arguments), RAW, True)
    assert view == GenericResultView(content=RAW)


# --- helpers: exit marker and console fence -----------------------------------------------------


@given(st.text(max_size=40), st.integers(-(10**9), 10**9), st.sampled_from(["", "\n", "\n\n"]))
def test_VIEW_2_exit_marker_round_trips(output: str, code: int, tail: str) -> None:
    """VIEW-2: the output before a canonical exit marker line comes back exactly, with the code."""
    assert parse_exit_marker(f"{output}\n[exit code: {code}]{tail}") == (output, code, None)


@pytest.mark.parametrize(
    "text",
    ["[exit code: 007]", "[exit code: -0]", "[exit code: 1 ]", "[signal: kill]", "[exit code: 1]x"],
)
def test_VIEW_2_non_canonical_markers_are_output(text: str) -> None:
    """VIEW-2: a line that is not exactly a canonical marker is ordinary output."""
    assert parse_exit_marker(text) == (text, None, None)


@given(bash_output)
def test_VIEW_2_fenced_console_is_never_closed_by_its_output(output: str) -> None:
    """VIEW-2: the fence is longer than any backtick run in the output and strips trailing
    newlines, so the output comes back verbatim from between the fences."""
    fenced = fenced_console(output + "``````")
    fence, _, rest = fenced.partition("console\n")
    assert set(fence) == {"`"}
    assert len(fence) >= 3
    assert rest == f"{(output + '``````').rstrip(chr(10))}\n{fence}"
    assert fence not in rest[: -len(fence)]


# --- VIEW-4: title relativization helpers -------------------------------------------------------


@given(absolute_paths, absolute_paths)
def test_VIEW_4_workspace_relative_agrees_with_posix_relpath(path: str, cwd: str) -> None:
    """VIEW-4: the relative form matches posixpath.relpath, and is only given for paths strictly
    inside the workspace (non-empty, first segment not "..")."""
    expected = posixpath.relpath(path, cwd)
    inside = expected != "." and expected.split("/")[0] != ".."
    assert workspace_relative(path, cwd) == (expected if inside else "")


@pytest.mark.parametrize(
    ("path", "cwd", "title"),
    [
        ("/w/src/a.py", "/w", "Edit src/a.py"),
        ("/w/..cache/x", "/w", "Edit ..cache/x"),
        ("/other/a.py", "/w", "Edit /other/a.py"),
        ("/w/../etc/passwd", "/w", "Edit /w/../etc/passwd"),
        ("/w", "/w", "Edit /w"),
        ("src/a.py", "/w", "Edit src/a.py"),
        ("/w/src/a.py", "w", "Edit /w/src/a.py"),
    ],
    ids=["inside", "dotdot-name", "outside", "climbs-out", "the-cwd", "relative-path", "rel-cwd"],
)
def test_VIEW_4_titles_are_relativized_only_inside_the_workspace(
    path: str, cwd: str, title: str
) -> None:
    """VIEW-4: a title is relativized only when path and cwd are absolute and the path lies
    strictly inside the workspace."""
    assert relativize_title(f"Edit {path}", path, cwd) == title


@given(paths, paths, st.text(max_size=10))
def test_VIEW_4_relativizing_only_replaces_the_path(path: str, cwd: str, prefix: str) -> None:
    """VIEW-4: relativization changes nothing but the occurrences of the path in the title."""
    title = f"{prefix}{path} and {path}"
    relative = workspace_relative(path, cwd)
    expected = title.replace(path, relative) if relative else title
    assert relativize_title(title, path, cwd) == expected


@pytest.mark.parametrize(
    ("view_cwd", "resolved"),
    [(None, "/w"), ("", "/w"), ("/abs", "/abs"), ("sub/../b", "/w/b"), ("./x", "/w/x")],
)
def test_VIEW_4_terminal_cwd_resolves_against_the_session(
    view_cwd: str | None, resolved: str
) -> None:
    """VIEW-4: an absent terminal cwd is the session cwd; a relative one is resolved against it."""
    assert resolve_terminal_cwd(view_cwd, "/w") == resolved


def test_VIEW_3_opaque_blocks_survive_the_raw_fallback() -> None:
    """VIEW-3: the raw-content fallback keeps non-text blocks, it does not flatten them."""
    image = OpaqueBlock("image", FrozenMap({"data": "AAAA", "mimeType": "image/png"}))
    assert present_result(None, None, None, (image,), False) == GenericResultView(content=(image,))


@pytest.mark.parametrize(
    ("fields", "title"),
    [({}, "Read"), ({"limit": 20}, "Read (1 - 20)"), ({"offset": 3}, "Read (from line 3)")],
)
def test_VIEW_2_a_read_of_the_empty_path_is_titled_read_with_no_trailing_space(
    fields: dict[str, object], title: str
) -> None:
    """VIEW-2: `{"file_path": ""}` names no file: its card was titled "Read " with a trailing
    space, by the model and loopspec's loop alike; it is "Read", as SPEC's table now says."""
    arguments = freeze({"file_path": ""} | fields)
    view = present_call("read", arguments)
    assert isinstance(view, GenericCallView)
    assert view.title == title


@pytest.mark.parametrize(
    ("tool", "fields", "title"),
    [
        ("write", {"content": "x"}, "Write"),
        ("edit", {"old_string": "a", "new_string": "b"}, "Edit"),
    ],
)
def test_VIEW_2_a_write_or_edit_of_the_empty_path_is_titled_with_no_trailing_space(
    tool: str, fields: dict[str, object], title: str
) -> None:
    """VIEW-2: `{"file_path": ""}` names no file: Write and Edit cards, at call and at result,
    were titled "Write " and "Edit " with a trailing space (Read's was mended before), by the
    model and loopspec's loop alike; they are "Write" and "Edit", as SPEC's table now says."""
    arguments = freeze({"file_path": ""} | fields)
    meta = freeze({"diffs": [{"path": "", "newText": "b"}]})
    call = present_call(tool, arguments)
    result = present_result(tool, arguments, call, RAW, False, meta)
    assert isinstance(call, DiffCallView)
    assert isinstance(result, DiffResultView)
    assert (call.title, result.title) == (title, title)
    stored = StoredResult(RAW, False, meta)
    assert call_view(tool, arguments) == call
    assert result_view(tool, arguments, call, stored) == result
