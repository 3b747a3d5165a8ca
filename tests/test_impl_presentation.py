"""`impl`'s presenters, ACP bridge and replay render exactly what the model's do (VIEW, ACP)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from view_strategies import (
    bash_output,
    call_views,
    paths,
    result_contents,
    result_metas,
    result_views,
    session_cwds,
    tool_calls,
)

from loopspec.impl.acp_bridge import call_update, permission_prompt, result_update
from loopspec.impl.presentation import Audience, replay
from loopspec.impl.presenters import StoredResult, call_view, result_view
from loopspec.impl.text_shapes import (
    console_block,
    inside_workspace,
    read_title,
    relative_title,
    split_exit_marker,
    terminal_directory,
)
from loopspec.model.acp import permission_request, tool_call_notification, tool_result_notification
from loopspec.model.jsonvalue import JsonValue
from loopspec.model.messages import ResultContentBlock
from loopspec.model.presenters import present_call, present_result
from loopspec.model.pure import presentation as pure
from loopspec.model.replay import present_log
from loopspec.model.state import LoopState
from loopspec.model.transitions import step
from loopspec.model.views import ToolCallView, ToolResultView
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.conformance.impl_adapter import shown_item
from loopspec.properties.stateful.impl_machine import expected_item


@given(tool_calls())
def test_VIEW_2_call_cards_match_the_model(call: tuple[str, JsonValue]) -> None:
    """VIEW-2, VIEW-3: every call, well formed or not, renders as the model renders it."""
    name, arguments = call
    assert call_view(name, arguments) == present_call(name, arguments)


@pytest.mark.no_cover
@given(tool_calls(), result_contents, st.booleans(), result_metas, st.booleans())
def test_VIEW_2_result_cards_match_the_model(
    call: tuple[str, JsonValue],
    content: tuple[ResultContentBlock, ...],
    failed: bool,
    meta: JsonValue,
    paired: bool,
) -> None:
    """VIEW-2, VIEW-3: every result renders as the model renders it, paired or orphaned."""
    name, arguments = call
    shown_as = present_call(name, arguments) if paired else None
    tool = name if paired else None
    ours = result_view(tool, arguments, shown_as, StoredResult(content, failed, meta))
    assert ours == present_result(tool, arguments, shown_as, content, failed, meta)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@given(call_views, st.text(max_size=8), tool_calls(), session_cwds, st.booleans())
def test_ACP_1_call_updates_match_the_model(
    view: ToolCallView, call_id: str, call: tuple[str, JsonValue], cwd: str, terminal: bool
) -> None:
    """ACP-1, ACP-2, ACP-3: `tool_call` updates and permission prompts, field for field."""
    arguments = call[1]
    ours = call_update("s", call_id, view, arguments, cwd, terminal=terminal)
    theirs = tool_call_notification(
        "s", call_id, view, arguments=arguments, session_cwd=cwd, terminal_capable=terminal
    )
    assert ours == theirs
    prompt = permission_prompt("s", call_id, view, arguments, cwd)
    assert prompt == permission_request("s", call_id, view, arguments=arguments, session_cwd=cwd)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@given(result_views, st.text(max_size=8), session_cwds, st.booleans(), st.booleans())
def test_ACP_1_result_updates_match_the_model(
    view: ToolResultView, call_id: str, cwd: str, failed: bool, terminal: bool
) -> None:
    """ACP-1, ACP-2: `tool_call_update` payloads, field for field."""
    ours = result_update("s", call_id, view, cwd, failed=failed, terminal=terminal)
    theirs = tool_result_notification(
        "s", call_id, view, is_error=failed, terminal_capable=terminal, session_cwd=cwd
    )
    assert ours == theirs


@given(bash_output)
def test_VIEW_2_exit_markers_split_as_the_model_splits_them(text: str) -> None:
    """VIEW-2: `[exit code: N]` / `[signal: S]` parsing, canonical spellings only."""
    assert split_exit_marker(text) == pure.parse_exit_marker(text)
    assert split_exit_marker(text + "\n\n") == pure.parse_exit_marker(text + "\n\n")


@given(st.text(alphabet="ab`\n", max_size=12))
def test_ACP_2_console_fences_match_the_model(output: str) -> None:
    """ACP-2: the fence outgrows any backtick run in the output."""
    assert console_block(output) == pure.fenced_console(output)


@given(paths, session_cwds, st.text(max_size=6))
def test_VIEW_4_paths_relativize_as_the_model_does(path: str, cwd: str, prefix: str) -> None:
    """VIEW-4: workspace-relative titles and terminal directories."""
    assert inside_workspace(path, cwd) == pure.workspace_relative(path, cwd)
    title = f"{prefix}{path}"
    assert relative_title(title, path, cwd) == pure.relativize_title(title, path, cwd)
    assert terminal_directory(path or None, cwd) == pure.resolve_terminal_cwd(path or None, cwd)


@pytest.mark.no_cover
@given(
    paths,
    st.none() | st.integers(0, 10**6),
    st.none() | st.integers(1, 10**6),
)
def test_VIEW_2_read_titles_match_the_model(
    path: str, offset: int | None, limit: int | None
) -> None:
    """VIEW-2: read titles name the line range."""
    assert read_title(path, offset, limit) == pure.read_title(path, offset, limit)


def test_ACP_1_replaying_a_log_shows_what_the_model_shows() -> None:
    """ACP-1: impl's replay of the demo log equals the model's presentation of it."""
    state = LoopState(DEMO_CONFIG)
    for command in DEMO_COMMANDS:
        state = step(state, command)
    for audience in (Audience(), Audience("other", "/", terminal=True)):
        ours = [shown_item(item) for item in replay(state.log, audience)]
        theirs = [
            expected_item(item)
            for item in present_log(
                state.log,
                session_id=audience.session_id,
                session_cwd=audience.cwd,
                terminal_capable=audience.terminal,
            )
        ]
        assert ours == theirs
