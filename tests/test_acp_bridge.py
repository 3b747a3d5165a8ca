"""The ACP bridge and its strict validator: rules ACP-1 .. ACP-3 and VIEW-4."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from acp.schema import SessionNotification
from hypothesis import given
from hypothesis import strategies as st
from view_strategies import (
    call_views,
    json_values,
    result_contents,
    result_metas,
    result_views,
    session_cwds,
    terminal_result_views,
    tool_calls,
)

from loopspec.model.acp import (
    ALLOW_ONCE,
    REJECT_ONCE,
    permission_request,
    tool_call_notification,
    tool_result_notification,
)
from loopspec.model.jsonvalue import FrozenMap, JsonValue, freeze, thaw
from loopspec.model.messages import OpaqueBlock, ResultContentBlock, TextBlock
from loopspec.model.presenters import present_call, present_result
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
from loopspec.properties.conformance.run import spec_text
from loopspec.properties.validators.acp_strict import (
    validate_permission_request,
    validate_session_update,
)

SESSION = "sess-1"
CALL = "call-1"


def update_of(params: dict[str, object]) -> dict[str, object]:
    update = params["update"]
    assert isinstance(update, dict)
    return update


def call_update(
    view: ToolCallView,
    *,
    arguments: JsonValue = None,
    cwd: str = "/w",
    capable: bool = False,
) -> dict[str, object]:
    params = tool_call_notification(
        SESSION, CALL, view, arguments=arguments, session_cwd=cwd, terminal_capable=capable
    )
    assert validate_session_update(params) == []
    return update_of(params)


def result_update(
    view: ToolResultView, *, is_error: bool = False, capable: bool = False, cwd: str = "/w"
) -> dict[str, object]:
    params = tool_result_notification(
        SESSION, CALL, view, is_error=is_error, terminal_capable=capable, session_cwd=cwd
    )
    assert validate_session_update(params) == []
    return update_of(params)


# --- ACP-1: everything the bridge emits validates strictly --------------------------------------


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@given(tool_calls(), session_cwds, st.booleans())
def test_ACP_1_every_presented_call_maps_to_a_valid_tool_call(
    call: tuple[str, JsonValue], cwd: str, capable: bool
) -> None:
    """ACP-1: each presented call becomes a strictly valid in-progress `tool_call` update."""
    name, arguments = call
    view = present_call(name, arguments)
    params = tool_call_notification(
        SESSION, CALL, view, arguments=arguments, session_cwd=cwd, terminal_capable=capable
    )
    assert validate_session_update(params) == []
    update = update_of(params)
    assert update["sessionUpdate"] == "tool_call"
    assert update["status"] == "in_progress"


@pytest.mark.no_cover
@given(call_views, json_values, session_cwds, st.booleans())
def test_ACP_1_every_call_view_maps_to_a_valid_tool_call(
    view: ToolCallView, arguments: JsonValue, cwd: str, capable: bool
) -> None:
    """ACP-1: any call view at all, not only the presenters' ones, maps to a valid update."""
    params = tool_call_notification(
        SESSION, CALL, view, arguments=arguments, session_cwd=cwd, terminal_capable=capable
    )
    assert validate_session_update(params) == []


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@given(result_views, st.booleans(), st.booleans(), session_cwds)
def test_ACP_1_every_result_view_maps_to_a_valid_tool_call_update(
    view: ToolResultView, is_error: bool, capable: bool, cwd: str
) -> None:
    """ACP-1: any result view maps to a valid `tool_call_update`, failed exactly on error."""
    params = tool_result_notification(
        SESSION, CALL, view, is_error=is_error, terminal_capable=capable, session_cwd=cwd
    )
    assert validate_session_update(params) == []
    assert update_of(params)["status"] == ("failed" if is_error else "completed")


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@given(tool_calls(), result_contents, st.booleans(), result_metas, st.booleans())
def test_ACP_1_every_presented_result_maps_to_a_valid_update(
    call: tuple[str, JsonValue],
    content: tuple[ResultContentBlock, ...],
    is_error: bool,
    meta: JsonValue,
    capable: bool,
) -> None:
    """ACP-1: the presented result of any call maps to a strictly valid update."""
    name, arguments = call
    view = present_result(name, arguments, present_call(name, arguments), content, is_error, meta)
    params = tool_result_notification(
        SESSION, CALL, view, is_error=is_error, terminal_capable=capable, session_cwd="/w"
    )
    assert validate_session_update(params) == []


def test_ACP_1_text_and_media_blocks_map_to_content_items() -> None:
    """ACP-1: text and image blocks map to content items; unknown blocks become a placeholder
    rather than vanishing or breaking validation."""
    image = OpaqueBlock("image", FrozenMap({"data": "AAAA", "mimeType": "image/png"}))
    widget = OpaqueBlock("x-widget", FrozenMap({"any": 1}))
    view = GenericCallView(title="t", content=(TextBlock("hi"), image, widget))
    assert call_update(view)["content"] == [
        {"type": "content", "content": {"type": "text", "text": "hi"}},
        {"type": "content", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}},
        {"type": "content", "content": {"type": "text", "text": "[x-widget content]"}},
    ]


def test_ACP_1_absent_fields_are_omitted_not_null() -> None:
    """ACP-1: a new-file diff omits oldText and a bare generic card omits every optional field
    (in an ACP update a null would mean "unchanged")."""
    update = call_update(DiffCallView(title="Write /w/a", diffs=(FileDiff("/w/a", None, "x"),)))
    assert update["content"] == [{"type": "diff", "path": "/w/a", "newText": "x"}]
    bare = call_update(GenericCallView(title="t"))
    assert set(bare) == {"sessionUpdate", "toolCallId", "title", "kind", "status"}
    assert bare["kind"] == "other"


def _valid_call() -> dict[str, object]:
    view = GenericCallView(
        title="Read /w/a",
        kind="read",
        content=(TextBlock("x"),),
        locations=(FileLocation("/w/a", line=3),),
    )
    return tool_call_notification(
        SESSION, CALL, view, arguments=None, session_cwd="/", terminal_capable=False
    )


def _set_kind(update: dict[str, object]) -> None:
    update["kind"] = "card"


def _diff_without_new_text(update: dict[str, object]) -> None:
    update["content"] = [{"type": "diff", "path": "/w/a", "oldText": "x"}]


def _unknown_content_type(update: dict[str, object]) -> None:
    update["content"] = [{"type": "card", "card": "generic"}]


def _negative_line(update: dict[str, object]) -> None:
    update["locations"] = [{"path": "/w/a", "line": -1}]


def _bad_status(update: dict[str, object]) -> None:
    update["status"] = "running"


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (_set_kind, "$.update.kind"),
        (_diff_without_new_text, '"newText" is a required property'),
        (_unknown_content_type, "$.update.content[0]"),
        (_negative_line, "less than the minimum of 0"),
        (_bad_status, "$.update.status"),
    ],
    ids=["bad-kind", "diff-without-newText", "unknown-content-type", "negative-line", "bad-status"],
)
def test_ACP_1_strict_validator_rejects_what_model_validate_accepts(
    damage: Callable[[dict[str, object]], None], expected: str
) -> None:
    """ACP-1: the lenient ACP models accept these broken payloads (salvaging or dropping the bad
    part); the strict validator rejects each, naming where, so it is not vacuous."""
    params = copy.deepcopy(_valid_call())
    damage(update_of(params))
    SessionNotification.model_validate(params)  # lenient: does not raise
    problems = validate_session_update(params)
    assert any(expected in problem for problem in problems), problems
    assert any(problem.startswith("round trip:") for problem in problems), problems


@pytest.mark.parametrize(
    "damage",
    [
        lambda update: update.__setitem__("rawInput", None),
        lambda update: update.__setitem__("name", "read"),
        lambda update: update.__setitem__("locations", [{"path": "/w/a", "line": "3"}]),
    ],
    ids=["explicit-null", "unknown-key", "coerced-string-line"],
)
def test_ACP_1_round_trip_catches_what_the_schema_allows(
    damage: Callable[[dict[str, object]], None],
) -> None:
    """ACP-1: explicit nulls, keys the pinned schema lacks and coercible values slip past one
    half of the check; the round-trip half rejects them."""
    params = copy.deepcopy(_valid_call())
    damage(update_of(params))
    problems = validate_session_update(params)
    assert any(problem.startswith("round trip:") for problem in problems), problems


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (
            {"type": "text", "text": "hello"},
            'type "text" is none of "content", "diff", "terminal" (a content block goes inside '
            '{"type": "content", "content": {...}})',
        ),
        (
            {"type": "content", "content": {"type": "txt", "text": "hello"}},
            'at $.update.content[0].content: type "txt" is none of "text", "image",',
        ),
    ],
    ids=["bare-text-block", "misspelt-block-type"],
)
def test_ACP_1_an_item_of_no_known_type_names_its_type_and_the_types_allowed(
    item: dict[str, object], expected: str
) -> None:
    """ACP-1: a bridge that put a bare text block in a tool call's content (ACP wraps it as
    {type: content, content: block}) was told only that the item 'is not valid under any of the
    given schemas'; the report now names the type sent and the ones the union takes."""
    params = copy.deepcopy(_valid_call())
    update_of(params)["content"] = [item]
    problems = validate_session_update(params)
    assert any(expected in problem for problem in problems), problems


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (
            lambda params: update_of(params).pop("sessionUpdate"),
            "schema: at $.update: no sessionUpdate: it names the variant, one of "
            '"user_message_chunk", "agent_message_chunk", ',
        ),
        (
            lambda params: update_of(params).__setitem__("content", [{"content": {}}]),
            'schema: at $.update.content[0]: no type: it names the variant, one of "content", '
            '"diff", "terminal"',
        ),
    ],
    ids=["update-without-its-tag", "content-item-without-its-tag"],
)
def test_ACP_1_a_union_member_without_its_tag_is_told_so_once(
    damage: Callable[[dict[str, object]], object], expected: str
) -> None:
    """ACP-1: an update without `sessionUpdate` was told every variant's own missing fields, 24
    lines beginning "'content' is a required property", as if it were a message chunk; it is now
    one line naming the missing tag and the values it takes."""
    params = copy.deepcopy(_valid_call())
    damage(params)
    schema_lines = [
        problem for problem in validate_session_update(params) if problem.startswith("schema:")
    ]
    assert len(schema_lines) == 1, schema_lines
    assert schema_lines[0].startswith(expected), schema_lines


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (
            lambda params: params.__setitem__("update", 3),
            'schema: at $.update: 3 is not of type "object"',
        ),
        (
            lambda params: update_of(params).__setitem__("content", ["some text"]),
            'schema: at $.update.content[0]: "some text" is not of type "object"',
        ),
    ],
    ids=["update-not-an-object", "content-item-a-string"],
)
def test_ACP_1_a_value_every_arm_refuses_alike_is_told_so_once(
    damage: Callable[[dict[str, object]], object], expected: str
) -> None:
    """ACP-1: a value of the wrong type fails each arm of its union with the same words; the
    report said them once per arm (13 lines for an update that is no object, 3 for a content
    item that is a string)."""
    params = copy.deepcopy(_valid_call())
    damage(params)
    schema_lines = [
        problem for problem in validate_session_update(params) if problem.startswith("schema:")
    ]
    assert schema_lines == [expected]


def _snake_cased(update: dict[str, object], key: str) -> None:
    update[{"toolCallId": "tool_call_id", "rawInput": "raw_input"}[key]] = update.pop(key, {})


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (
            "toolCallId",
            'schema: at $.update: "toolCallId" is a required property (tool_call_id is ACP\'s '
            "toolCallId: its keys are camelCase)",
        ),
        (
            "rawInput",
            "round trip: $.update.raw_input is not a key of ACP's JSON, which spells it rawInput",
        ),
    ],
    ids=["required-key", "optional-key"],
)
def test_ACP_1_a_snake_case_key_is_told_its_camel_case_spelling(key: str, expected: str) -> None:
    """ACP-1: a bridge that wrote `tool_call_id` (a Python or Rust bridge's own spelling) was
    told "'toolCallId' is a required property" and, of `raw_input`, "not a key the pinned ACP
    schema defines, or holds a value the ACP SDK's parser discards", though the SDK's parser
    reads both: the report now names the key sent and ACP's spelling of it."""
    params = copy.deepcopy(_valid_call())
    _snake_cased(update_of(params), key)
    assert validate_session_update(params)[0] == expected


def test_ACP_1_strict_validator_rejects_a_bad_permission_option() -> None:
    """ACP-1: the permission-request validator is strict too (bad option kind, missing name)."""
    params = permission_request(
        SESSION, CALL, GenericCallView(title="t"), arguments=None, session_cwd="/w"
    )
    assert validate_permission_request(params) == []
    broken = copy.deepcopy(params)
    broken["options"] = [{"optionId": "x", "kind": "allow_forever"}]
    problems = validate_permission_request(broken)
    assert any('"name" is a required property' in problem for problem in problems), problems
    assert any("$.options[0].kind" in problem for problem in problems), problems


# --- ACP-2: terminal embedding only for capable clients -----------------------------------------


def test_ACP_1_a_result_title_is_sent_when_set_and_omitted_when_absent() -> None:
    """ACP-1: a result view's title, when it has one, becomes the update's title (generic,
    terminal, diff alike); without one the update has no title, and a generic result without
    content sends none (a null or empty list would wipe the card)."""
    generic = result_update(GenericResultView(title="Done"))
    assert generic["title"] == "Done"
    assert "content" not in generic
    terminal = result_update(TerminalResultView(title="make", output="ok\n"), capable=True)
    assert terminal["title"] == "make"
    untitled = result_update(DiffResultView(None, (FileDiff("/w/a", "x", "y"),)))
    assert "title" not in untitled
    assert untitled["content"] == [{"type": "diff", "path": "/w/a", "oldText": "x", "newText": "y"}]


def test_ACP_2_capable_client_gets_terminal_block_and_info_meta() -> None:
    """ACP-2: a terminal-capable client gets the terminal block and terminal_info with the
    resolved cwd; the description stays a text block."""
    view = TerminalCallView(title="make", description="Build", cwd="sub")
    update = call_update(view, arguments=freeze({"command": "make"}), capable=True)
    assert update["kind"] == "execute"
    assert update["title"] == "make"
    assert update["content"] == [
        {"type": "content", "content": {"type": "text", "text": "Build"}},
        {"type": "terminal", "terminalId": CALL},
    ]
    assert update["_meta"] == {"terminal_info": {"terminal_id": CALL, "cwd": "/w/sub"}}


def test_ACP_2_incapable_client_gets_no_terminal_block_or_meta() -> None:
    """ACP-2: a client without terminal support sees only the description."""
    update = call_update(TerminalCallView(title="make", description="Build"), capable=False)
    assert update["content"] == [{"type": "content", "content": {"type": "text", "text": "Build"}}]
    assert "_meta" not in update


@pytest.mark.parametrize(
    ("view", "exit_meta"),
    [
        (TerminalResultView(output="ok\n", exit_code=0), {"exit_code": 0}),
        (TerminalResultView(output="", signal="SIGKILL"), {"signal": "SIGKILL"}),
        (TerminalResultView(output="?"), None),
    ],
    ids=["exit-code", "signal", "neither"],
)
def test_ACP_2_capable_client_gets_output_and_exit_as_meta_without_content(
    view: TerminalResultView, exit_meta: dict[str, object] | None
) -> None:
    """ACP-2: a capable client's result carries terminal_output and terminal_exit meta and no
    content, which would replace the embedded terminal."""
    update = result_update(view, capable=True)
    assert "content" not in update
    expected: dict[str, object] = {"terminal_output": {"terminal_id": CALL, "data": view.output}}
    if exit_meta is not None:
        expected["terminal_exit"] = {"terminal_id": CALL, **exit_meta}
    assert update["_meta"] == expected


def test_ACP_2_incapable_client_gets_the_fenced_console_fallback() -> None:
    """ACP-2: without terminal support the output arrives as one fenced console text block."""
    update = result_update(TerminalResultView(output="a\nb\n\n", exit_code=1), capable=False)
    assert "_meta" not in update
    fenced = "```console\na\nb\n```"
    assert update["content"] == [{"type": "content", "content": {"type": "text", "text": fenced}}]


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@given(terminal_result_views, st.booleans())
def test_ACP_2_terminal_results_split_cleanly_by_capability(
    view: ToolResultView, capable: bool
) -> None:
    """ACP-2: for every terminal result, exactly one of meta (capable) or content (not) is sent."""
    update = result_update(view, capable=capable)
    assert ("_meta" in update) == capable
    assert ("content" in update) == (not capable)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@given(call_views.filter(lambda v: not isinstance(v, TerminalCallView)), st.booleans())
def test_ACP_2_only_terminal_cards_ever_embed_a_terminal(view: ToolCallView, capable: bool) -> None:
    """ACP-2: generic and diff cards never carry terminal content or meta."""
    update = call_update(view, capable=capable)
    assert "_meta" not in update
    content = update.get("content", [])
    assert isinstance(content, list)
    assert all(item["type"] != "terminal" for item in content)


# --- ACP-3: permission requests carry the effective input ---------------------------------------


@pytest.mark.no_cover
@given(tool_calls(), session_cwds)
def test_ACP_3_permission_request_carries_the_effective_input(
    call: tuple[str, JsonValue], cwd: str
) -> None:
    """ACP-3: the permission request's rawInput is exactly the arguments the call will run with,
    and the request validates strictly."""
    name, arguments = call
    params = permission_request(
        SESSION, CALL, present_call(name, arguments), arguments=arguments, session_cwd=cwd
    )
    assert validate_permission_request(params) == []
    tool_call = params["toolCall"]
    assert isinstance(tool_call, dict)
    if arguments is None:
        assert "rawInput" not in tool_call
    else:
        assert tool_call["rawInput"] == thaw(arguments)
    options = params["options"]
    assert isinstance(options, list)
    assert [option["kind"] for option in options] == [ALLOW_ONCE, REJECT_ONCE]


def test_ACP_3_an_ask_on_a_rewritten_call_shows_the_rewritten_input() -> None:
    """ACP-3: after a rewrite, the prompt's title and rawInput both show the rewritten command,
    never the original."""
    original = freeze({"command": "rm -rf build", "description": "Clean"})
    rewritten = freeze({"command": "rm -rf ./build --one-file-system", "description": "Clean"})
    params = permission_request(
        SESSION, CALL, present_call("bash", rewritten), arguments=rewritten, session_cwd="/w"
    )
    assert validate_permission_request(params) == []
    tool_call = params["toolCall"]
    assert isinstance(tool_call, dict)
    assert tool_call["rawInput"] == thaw(rewritten) != thaw(original)
    assert tool_call["title"] == "rm -rf ./build --one-file-system"
    assert tool_call["kind"] == "execute"
    assert "_meta" not in tool_call  # no terminal exists before the call is allowed


def test_ACP_3_terminal_card_raw_input_is_the_argument_object() -> None:
    """ACP-3: a terminal card's rawInput is the whole effective argument object, not only the
    command string, so cwd and flags the user approves are visible."""
    arguments = freeze({"command": "ls", "cwd": "/tmp"})
    update = call_update(present_call("bash", arguments), arguments=arguments, capable=True)
    assert update["rawInput"] == {"command": "ls", "cwd": "/tmp"}


# --- VIEW-4: relativized titles, raw paths ------------------------------------------------------


def test_VIEW_4_diff_title_is_relativized_but_paths_stay_raw() -> None:
    """VIEW-4: the diff card's title is workspace-relative; diff and location paths stay raw."""
    arguments = freeze({"file_path": "/w/src/a.py", "old_string": "a", "new_string": "b"})
    update = call_update(present_call("edit", arguments), arguments=arguments)
    assert update["title"] == "Edit src/a.py"
    assert update["content"] == [
        {"type": "diff", "path": "/w/src/a.py", "oldText": "a", "newText": "b"}
    ]
    assert update["locations"] == [{"path": "/w/src/a.py"}]


def test_VIEW_4_read_title_is_relativized_by_its_location() -> None:
    """VIEW-4: a generic card with a location relativizes its title by that location."""
    arguments = freeze({"file_path": "/w/a.py", "offset": 5})
    update = call_update(present_call("read", arguments), arguments=arguments)
    assert update["title"] == "Read a.py (from line 5)"
    assert update["locations"] == [{"path": "/w/a.py", "line": 5}]


def test_VIEW_4_paths_outside_the_workspace_and_cards_without_paths_keep_their_title() -> None:
    """VIEW-4: a path outside the workspace, a terminal card and a result of a diff outside it
    all keep their titles unchanged."""
    outside = present_call("write", freeze({"file_path": "/etc/hosts", "content": ""}))
    assert call_update(outside)["title"] == "Write /etc/hosts"
    assert call_update(TerminalCallView(title="cat /w/a.py"))["title"] == "cat /w/a.py"
    result = DiffResultView("Edit /w/a.py", (FileDiff("/w/a.py", "a", "b"),))
    assert result_update(result)["title"] == "Edit a.py"
    assert result_update(result, cwd="/elsewhere")["title"] == "Edit /w/a.py"


def test_VIEW_4_the_cwd_itself_and_a_path_resolving_outside_keep_their_title_unresolved() -> None:
    """VIEW-4: only a path strictly inside the cwd once resolved is relativized; the cwd itself
    (written as `/w/a/..` too) and a path whose `..` leaves it keep the title as the arguments
    give it. The rule said "inside", leaving a reader to guess `.` for the cwd, or the
    resolved `/etc/x`; section 12 said "strictly inside", VIEW-4 now says all three."""
    for path in ("/w", "/w/a/..", "/w/a/../../etc/x"):
        card = present_call("write", freeze({"file_path": path, "content": ""}))
        assert call_update(card)["title"] == f"Write {path}"
    inside = present_call("write", freeze({"file_path": "/w/a/../../w/b", "content": ""}))
    assert call_update(inside)["title"] == "Write b"
    assert "the cwd itself (`/workspace/a/..` too)" in spec_text("VIEW-4")


@given(call_views, session_cwds)
def test_VIEW_4_location_and_diff_paths_are_never_rewritten(view: ToolCallView, cwd: str) -> None:
    """VIEW-4: whatever the session cwd, every location and diff path on the wire is raw."""
    update = call_update(view, cwd=cwd)
    locations = update.get("locations", [])
    assert isinstance(locations, list)
    if isinstance(view, GenericCallView | DiffCallView):
        assert [item["path"] for item in locations] == [loc.path for loc in view.locations]
    if isinstance(view, DiffCallView):
        content = update.get("content", [])
        assert isinstance(content, list)
        assert [item["path"] for item in content] == [diff.path for diff in view.diffs]


def test_ACP_1_a_round_trip_failure_names_the_ACP_parser_and_what_to_send() -> None:
    """ACP-1: a round-trip failure read '$.update.rawInput was dropped or nulled by the model',
    which in a conform report means loopspec's reference model; it is the ACP SDK's parser that
    dropped the value, and the message says what to send instead (no key for no value; only
    keys the pinned schema defines)."""
    nulled = copy.deepcopy(_valid_call())
    update_of(nulled)["rawInput"] = None
    problems = validate_session_update(nulled)
    assert "round trip: $.update.rawInput is null: leave the key out" in problems[-1], problems
    unknown = copy.deepcopy(_valid_call())
    update_of(unknown)["name"] = "read"
    problems = validate_session_update(unknown)
    assert "$.update.name is not a key the pinned ACP schema defines" in problems[-1], problems
    assert not any("by the model" in problem for problem in problems), problems


def test_ACP_1_a_new_files_diff_may_say_its_old_text_is_null_as_acps_rust_crate_writes_it() -> None:
    """ACP-1: ACP's own Rust crate writes a new file's diff with `"oldText": null` (as Zed's
    Claude Code bridge does), which the pinned schema allows and the SDK reads as no old text:
    valid, where the round trip that leaves it out reported every such Write card. A null
    anywhere else on the diff is still refused."""
    params = copy.deepcopy(_valid_call())
    diff = {"type": "diff", "path": "/w/new.txt", "oldText": None, "newText": "hello\n"}
    update_of(params)["content"] = [diff]
    assert validate_session_update(params) == []
    update_of(params)["content"] = [{**diff, "_meta": None}]
    problems = validate_session_update(params)
    assert "round trip: $.update.content[0]._meta is null: leave the key out" in problems[-1]
