"""Hook bridge settings: the Claude Code shape, both dialects, ids, and clear errors (HOOK-1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopspec.impl.hookbridge import (
    DEFAULT_TIMEOUT_S,
    HookBridge,
    HookSettingsError,
    load_settings,
    parse_settings,
)
from loopspec.model.config import POST_TOOL_USE, PRE_TOOL_USE, HookSpec, LoopConfig
from loopspec.model.errors import NO_RULE_BROKEN, LoopSpecError

CLAUDE_SETTINGS = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash|Write",
                "hooks": [
                    {"type": "command", "command": "guard.sh", "timeout": 5},
                    {"type": "command", "command": "rewrite.sh"},
                ],
            },
            {"hooks": [{"type": "command", "command": "audit.sh", "failClosed": True}]},
        ],
        "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "scan.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}],
    }
}


def _write(tmp_path: Path, document: object, name: str = "settings.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_HOOK_1_settings_become_hook_specs_with_ids_in_configured_order(tmp_path: Path) -> None:
    """HOOK-1: ids are <dialect>:<point>:<n>, n counting across a point's matcher groups."""
    settings = load_settings(_write(tmp_path, CLAUDE_SETTINGS))
    bridge = HookBridge(settings, session_id="s", cwd=tmp_path)
    assert bridge.specs() == (
        HookSpec("claude-code:PreToolUse:1", PRE_TOOL_USE, "Bash|Write", "claude-code"),
        HookSpec("claude-code:PreToolUse:2", PRE_TOOL_USE, "Bash|Write", "claude-code"),
        HookSpec("claude-code:PreToolUse:3", PRE_TOOL_USE, "*", "claude-code"),
        HookSpec("claude-code:PostToolUse:1", POST_TOOL_USE, "*", "claude-code"),
    )
    assert [h.command for h in settings.hooks] == ["guard.sh", "rewrite.sh", "audit.sh", "scan.sh"]
    assert [h.timeout_s for h in settings.hooks] == [5.0, DEFAULT_TIMEOUT_S, 60.0, 60.0]
    assert bridge.command("claude-code:PreToolUse:3").declared.fail_closed is True
    assert settings.skipped_events == ("Stop",)
    config = LoopConfig(hooks=bridge.specs())
    assert [h.handler_id for h in config.hooks_for(PRE_TOOL_USE, "Read")] == [
        "claude-code:PreToolUse:3"
    ]


def test_HOOK_1_matchers_match_whole_tool_names_as_the_model_does(tmp_path: Path) -> None:
    """HOOK-1: the bridge selects exactly the hooks `LoopConfig.hooks_for` expects answers from."""
    bridge = HookBridge(parse_settings(CLAUDE_SETTINGS), session_id="s", cwd=tmp_path)
    config = LoopConfig(hooks=bridge.specs())
    for tool in ("Bash", "Write", "BashOutput", "Read", "bash"):
        selected = [h.handler_id for h in bridge.matching(PRE_TOOL_USE, tool)]
        assert selected == [h.handler_id for h in config.hooks_for(PRE_TOOL_USE, tool)]
    assert len(bridge.matching(PRE_TOOL_USE, "Bash")) == 3
    assert len(bridge.matching(PRE_TOOL_USE, "BashOutput")) == 1


@pytest.mark.parametrize("how", ["file", "loader"])
def test_HOOK_1_codex_dialect_is_declared_by_the_file_or_the_loader(
    tmp_path: Path, how: str
) -> None:
    """HOOK-1: a top-level "dialect" key or the loader's argument selects the Codex dialect."""
    document = dict(CLAUDE_SETTINGS, dialect="codex") if how == "file" else CLAUDE_SETTINGS
    dialect = "codex" if how == "loader" else None
    settings = load_settings(_write(tmp_path, document, "hooks.json"), dialect=dialect)
    assert [h.handler_id for h in settings.hooks][:2] == [
        "codex:PreToolUse:1",
        "codex:PreToolUse:2",
    ]
    assert {h.spec().dialect for h in settings.hooks} == {"codex"}


def test_HOOK_1_combined_files_keep_every_id_unique() -> None:
    """HOOK-1: a Claude Code file and a Codex file together; numbering continues per dialect."""
    claude = parse_settings(CLAUDE_SETTINGS)
    both = claude.combine(parse_settings(CLAUDE_SETTINGS, dialect="codex"), claude)
    ids = [h.handler_id for h in both.hooks]
    assert len(set(ids)) == len(ids)
    assert "claude-code:PreToolUse:6" in ids
    assert "codex:PreToolUse:3" in ids
    LoopConfig(hooks=tuple(h.spec() for h in both.hooks))


BAD_SETTINGS: list[tuple[object, str, str]] = [
    ([], "$", "must be a JSON object"),
    ({"dialect": "gemini"}, "$.dialect", "must be one of"),
    ({"hooks": []}, "$.hooks", "must be an object"),
    ({"hooks": {"PreToolUse": {}}}, "$.hooks.PreToolUse", "list of matcher groups"),
    ({"hooks": {"PreToolUse": ["Bash"]}}, "$.hooks.PreToolUse[0]", "must be an object"),
    ({"hooks": {"PreToolUse": [{"matcher": 3}]}}, "$.hooks.PreToolUse[0].matcher", "a string"),
    (
        {"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": []}]}},
        "$.hooks.PreToolUse[0].matcher",
        "not a valid regex",
    ),
    ({"hooks": {"PostToolUse": [{"matcher": "x"}]}}, "$.hooks.PostToolUse[0].hooks", "list"),
    (
        {"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "is it safe?"}]}]}},
        "$.hooks.PreToolUse[0].hooks[0].type",
        "only command hooks",
    ),
    (
        {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": " "}]}]}},
        "$.hooks.PreToolUse[0].hooks[0].command",
        "non-empty string",
    ),
    (
        {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}},
        "$.hooks.PreToolUse[0].hooks[0].timeout",
        "positive",
    ),
    (
        {
            "hooks": {
                "PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": "9"}]}]
            }
        },
        "$.hooks.PreToolUse[0].hooks[0].timeout",
        "number of seconds",
    ),
    (
        {
            "hooks": {
                "PreToolUse": [
                    {"hooks": [{"type": "command", "command": "x"}]},
                    {"hooks": [{"type": "command", "command": "y", "failClosed": "yes"}]},
                ]
            }
        },
        "$.hooks.PreToolUse[1].hooks[0].failClosed",
        "true or false",
    ),
]


@pytest.mark.parametrize(("document", "json_path", "problem"), BAD_SETTINGS)
def test_SAFE_4_HOOK_8_invalid_settings_name_the_file_and_the_json_path_and_no_other_rule(
    tmp_path: Path, document: object, json_path: str, problem: str
) -> None:
    """SAFE-4, HOOK-8: an unusable settings file is refused with its name and the offending JSON
    path; a matcher's problem names HOOK-8, the rule of matchers, and any other names no rule
    (it named HOOK-1, the hook audit's rule, which says nothing of a settings file: no rule of
    SPEC.md states the peers' settings format, so the file and path alone say where)."""
    path = _write(tmp_path, document)
    with pytest.raises(HookSettingsError) as raised:
        load_settings(path)
    error = raised.value
    assert isinstance(error, LoopSpecError)
    matcher = json_path.endswith(".matcher")
    assert error.rule_id == ("HOOK-8" if matcher else NO_RULE_BROKEN)
    # (written on one line: its line is 1; tests/test_hand_edits.py names others)
    located = f"{path}:1: {json_path}: {error.problem}"
    assert str(error) == ("[HOOK-8] " if matcher else "") + located
    assert problem in error.problem


def test_SAFE_4_unreadable_and_non_json_files_are_refused(tmp_path: Path) -> None:
    """SAFE-4: a missing file or one that is not JSON gets the same error type; one that is
    not JSON is named at its line, as a case file or a scenario is, and names no rule (it
    said [HOOK-1], the hook audit's rule)."""
    with pytest.raises(HookSettingsError, match="cannot read"):
        load_settings(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"hooks": ', encoding="utf-8")
    with pytest.raises(HookSettingsError) as raised:
        load_settings(broken)
    assert str(raised.value).startswith(f"{broken}:1: the hooks file is not JSON: ")


def test_HOOK_1_file_and_loader_must_agree_on_the_dialect(tmp_path: Path) -> None:
    """HOOK-1: a Codex file loaded as Claude Code is an error, not a silent reinterpretation."""
    path = _write(tmp_path, {"dialect": "codex", "hooks": {}})
    with pytest.raises(HookSettingsError, match="the file says 'codex'"):
        load_settings(path, dialect="claude-code")
    assert load_settings(path, dialect="codex").hooks == ()
