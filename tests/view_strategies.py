"""Hypothesis strategies for tool arguments, durable results and views.

Argument strategies cover each tool's well-formed shape and the ways real calls go wrong: the
raw string of invalid JSON, a missing key, a wrong type, or any JSON value at all.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from loopspec.model.jsonvalue import FrozenMap, JsonValue, freeze
from loopspec.model.messages import OpaqueBlock, ResultContentBlock, TextBlock
from loopspec.model.views import (
    TOOL_KINDS,
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

KNOWN_TOOLS = ("bash", "read", "write", "edit", "todo")


def _not_negative_zero(value: float) -> bool:
    return not (value == 0.0 and math.copysign(1.0, value) < 0)


plain_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False).filter(_not_negative_zero)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
"""Any JSON value in plain dict/list form (what `json.loads` returns)."""

json_values: st.SearchStrategy[JsonValue] = plain_json.map(freeze)

_segments = st.sampled_from(["a", "b", "src", "..", ".", "", "..cache", "w"]) | st.text(
    alphabet="abcxyz. ", min_size=1, max_size=4
)
absolute_paths = st.lists(_segments, max_size=5).map(lambda parts: "/" + "/".join(parts))
relative_paths = st.lists(_segments, min_size=1, max_size=4).map("/".join)
paths = absolute_paths | relative_paths | st.text(max_size=10)
session_cwds = absolute_paths | st.sampled_from(["/w", "/", "/w/sub"])

_optional_text = st.none() | st.text(max_size=20)

_WELL_FORMED: dict[str, st.SearchStrategy[dict[str, object]]] = {
    "bash": st.fixed_dictionaries(
        {"command": st.text(max_size=30)},
        optional={
            "description": _optional_text,
            "cwd": st.none() | paths,
            "run_in_background": st.none() | st.booleans(),
        },
    ),
    "read": st.fixed_dictionaries(
        {"file_path": paths},
        optional={
            "offset": st.none() | st.integers(0, 10**6),
            "limit": st.none() | st.integers(1, 10**6),
        },
    ),
    "write": st.fixed_dictionaries({"file_path": paths, "content": st.text(max_size=30)}),
    "edit": st.fixed_dictionaries(
        {"file_path": paths, "old_string": st.text(max_size=20), "new_string": st.text()},
        optional={"replace_all": st.none() | st.booleans()},
    ),
    "todo": st.fixed_dictionaries(
        {
            "todos": st.lists(
                st.fixed_dictionaries(
                    {
                        "content": st.text(max_size=20),
                        "status": st.sampled_from(["pending", "in_progress", "completed"]),
                    }
                ),
                max_size=3,
            )
        }
    ),
}


def well_formed_arguments(tool: str) -> st.SearchStrategy[JsonValue]:
    """Arguments of the documented shape for `tool`, frozen as the log stores them."""
    return _WELL_FORMED[tool].map(freeze)


def _damaged(arguments: dict[str, object]) -> st.SearchStrategy[JsonValue]:
    """The same arguments with one key removed or set to an arbitrary JSON value."""
    if not arguments:
        return json_values
    key = st.sampled_from(sorted(arguments))
    removed = key.map(lambda k: freeze({n: v for n, v in arguments.items() if n != k}))
    replaced = st.tuples(key, plain_json).map(lambda kv: freeze({**arguments, kv[0]: kv[1]}))
    return removed | replaced


invalid_json_text = st.text(max_size=20).map(lambda text: "{" + text)
"""A raw argument string that is not JSON; `parse_arguments` keeps it as the string."""


def malformed_arguments(tool: str) -> st.SearchStrategy[JsonValue]:
    """Arguments that may not fit `tool`'s shape."""
    return _WELL_FORMED[tool].flatmap(_damaged) | json_values | invalid_json_text


tool_names = st.sampled_from(KNOWN_TOOLS) | st.text(max_size=10)


@st.composite
def tool_calls(draw: st.DrawFn) -> tuple[str, JsonValue]:
    """A tool name with arguments that are well formed, damaged, or anything at all."""
    name = draw(tool_names)
    if name in _WELL_FORMED:
        arguments = draw(well_formed_arguments(name) | malformed_arguments(name))
    else:
        arguments = draw(json_values | invalid_json_text)
    return name, arguments


# --- results ------------------------------------------------------------------------------------

_opaque_blocks = st.builds(
    OpaqueBlock,
    type=st.sampled_from(["image", "audio", "resource", "x-plugin"]),
    data=(
        st.fixed_dictionaries({"data": st.text(max_size=8), "mimeType": st.text(max_size=8)})
        .map(FrozenMap)
        .filter(bool)
    )
    | json_values.filter(lambda value: isinstance(value, FrozenMap)),
)
content_blocks: st.SearchStrategy[ResultContentBlock] = (
    st.builds(TextBlock, text=st.text(max_size=30)) | _opaque_blocks
)

_markers = st.integers(-300, 300).map(lambda code: f"[exit code: {code}]") | st.sampled_from(
    ["[signal: SIGKILL]", "[signal: SIGTERM]", "[exit code: 007]", "[exit code: -0]"]
)
bash_output = st.text(max_size=30) | st.tuples(st.text(max_size=30), _markers).map("\n".join)

result_contents: st.SearchStrategy[tuple[ResultContentBlock, ...]] = st.lists(
    content_blocks | bash_output.map(TextBlock), max_size=3
).map(tuple)

_meta_diffs = st.fixed_dictionaries(
    {"path": paths, "newText": st.text(max_size=20)},
    optional={"oldText": _optional_text},
)
result_metas: st.SearchStrategy[JsonValue] = (
    st.none()
    | st.fixed_dictionaries({"diffs": st.lists(_meta_diffs, max_size=2)}).map(freeze)
    | json_values
)

# --- views --------------------------------------------------------------------------------------

_locations = st.builds(FileLocation, path=paths, line=st.none() | st.integers(0, 10**6))
_diffs = st.builds(FileDiff, path=paths, old_text=_optional_text, new_text=st.text(max_size=20))
_blocks = st.lists(content_blocks, max_size=3).map(tuple)

call_views: st.SearchStrategy[ToolCallView] = st.one_of(
    st.builds(
        GenericCallView,
        title=st.text(max_size=30),
        kind=st.none() | st.sampled_from(sorted(TOOL_KINDS)),
        raw_input=json_values,
        content=_blocks,
        locations=st.lists(_locations, max_size=2).map(tuple),
    ),
    st.builds(
        TerminalCallView,
        title=st.text(max_size=30),
        description=_optional_text,
        cwd=st.none() | paths,
    ),
    st.builds(
        DiffCallView,
        title=st.text(max_size=30),
        diffs=st.lists(_diffs, max_size=2).map(tuple),
        locations=st.lists(_locations, max_size=2).map(tuple),
    ),
)

_exit = st.one_of(
    st.tuples(st.none(), st.none()),
    st.tuples(st.integers(-300, 300), st.none()),
    st.tuples(st.none(), st.sampled_from(["SIGKILL", "SIGINT"])),
)

# Drawn directly by tests about terminal results (a filter of `result_views` rejected two
# draws in three).
terminal_result_views: st.SearchStrategy[TerminalResultView] = st.builds(
    lambda title, output, code_signal: TerminalResultView(title, output, *code_signal),
    _optional_text,
    _optional_text,
    _exit,
)

result_views: st.SearchStrategy[ToolResultView] = st.one_of(
    st.builds(GenericResultView, title=_optional_text, content=st.none() | _blocks),
    terminal_result_views,
    st.builds(DiffResultView, title=_optional_text, diffs=st.lists(_diffs, max_size=2).map(tuple)),
)
