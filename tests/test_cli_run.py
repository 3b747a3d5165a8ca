"""`loopspec run` with real hook processes (rules HOOK-3, RW-1, RW-4, ACP-3, PROTO-1)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from loopspec.impl.presentation import ApprovalPrompt, CallCard
from loopspec.model.events import ToolCallRecorded
from loopspec.model.invariants import check_log
from loopspec.model.jsonvalue import thaw
from loopspec.properties.cli import scenario as scenario_format
from loopspec.properties.cli.main import main
from loopspec.properties.cli.scenario import load_scenario, run_scenario
from loopspec.properties.validators.acp_strict import (
    validate_permission_request,
    validate_session_update,
)

HOOKS = Path(__file__).resolve().parent / "hooks"


def _hook(script: str, *arguments: str) -> str:
    """The shell command running one of the hooks in tests/hooks, quoted for a checkout (or a
    Python) whose path holds a space."""
    return shlex.join([sys.executable, str(HOOKS / script), *arguments])


SCENARIO = {
    "tools": [{"name": "bash", "concurrencySafe": False, "requiredKeys": ["command"]}],
    "turns": [
        {
            "user": "clean the build",
            "replies": [
                {
                    "blocks": [
                        {
                            "type": "tool-call",
                            "id": "c1",
                            "name": "bash",
                            "arguments": '{"command": "rm -rf build"}',
                        }
                    ],
                    "finish": "completed",
                },
                {"blocks": [{"type": "text", "text": "done"}], "finish": "completed"},
            ],
        }
    ],
    "results": {"c1": {"ok": True, "text": "removed"}},
    "approvals": {"c1": "allowed-once"},
}


def _settings(tmp_path: Path, first_sleeps: float, second_sleeps: float) -> Path:
    hooks = [
        {"type": "command", "command": _hook("rewrite.py", "echo first", str(first_sleeps))},
        {"type": "command", "command": _hook("rewrite.py", "echo second", str(second_sleeps))},
        {"type": "command", "command": shlex.join(["bash", str(HOOKS / "ask.sh")])},
    ]
    path = tmp_path / f"settings-{first_sleeps}-{second_sleeps}.json"
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": hooks}]}}))
    return path


def _scenario(tmp_path: Path) -> Path:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({**SCENARIO, "cwd": str(tmp_path)}))
    return path


def _audit_of_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], hooks: list[Any]) -> str:
    """The hook audit `run` prints for the scenario with these PreToolUse hooks on `bash`."""
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": hooks}]}})
    )
    argv = ["run", str(_scenario(tmp_path)), "--hooks", str(settings)]
    assert main([*argv, "--log", str(tmp_path / "out.jsonl")]) == 0
    return capsys.readouterr().out.split("== hooks (audit) ==\n", 1)[1].split("\n\n", 1)[0]


def test_HOOK_3_finishing_order_does_not_change_the_outcome(tmp_path: Path) -> None:
    """HOOK-3, RW-1: two real rewriting hooks, finishing order swapped: identical outcome."""
    scenario = load_scenario(_scenario(tmp_path))
    runs = []
    for first, second in ((0.4, 0.0), (0.0, 0.4)):
        result = run_scenario(
            scenario,
            hooks=_settings(tmp_path, first, second),
            log_path=tmp_path / f"log-{first}.jsonl",
        )
        assert check_log(result.events) == []
        (record,) = [e for e in result.events if isinstance(e, ToolCallRecorded)]
        runs.append((record.arguments, record.rewrite))
    assert runs[0] == runs[1]
    arguments, sidecar = runs[0]
    assert json.loads(arguments) == {"command": "echo second"}
    assert sidecar is not None
    assert sidecar.original_arguments == '{"command": "rm -rf build"}'


def test_RW_4_ACP_3_an_ask_on_a_rewritten_call_shows_and_runs_the_rewrite(tmp_path: Path) -> None:
    """RW-4, ACP-3: the approval prompt and the card show the effective input, strictly valid."""
    result = run_scenario(
        load_scenario(_scenario(tmp_path)),
        hooks=_settings(tmp_path, 0.0, 0.0),
        log_path=tmp_path / "log.jsonl",
    )
    prompts = [s for s in result.shown if isinstance(s, ApprovalPrompt)]
    cards = [s for s in result.shown if isinstance(s, CallCard)]
    assert [thaw(p.arguments) for p in prompts] == [{"command": "echo second"}]
    assert [thaw(c.arguments) for c in cards] == [{"command": "echo second"}]
    assert validate_permission_request(prompts[0].request) == []
    assert validate_session_update(cards[0].update) == []


def test_PROTO_1_run_prints_every_reader_and_rejects_bad_scenarios(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: the CLI shows history, audit and UI; a broken scenario exits 2, no traceback."""
    code = main(
        [
            "run",
            str(_scenario(tmp_path)),
            "--hooks",
            str(_settings(tmp_path, 0, 0)),
            "--log",
            str(tmp_path / "out.jsonl"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "rewritten by claude-code:PreToolUse:1, claude-code:PreToolUse:2" in out
    assert (tmp_path / "out.jsonl").read_text().startswith('{"type":"session"') or (
        tmp_path / "out.jsonl"
    ).read_text().startswith('{"type": "session"')
    broken = tmp_path / "broken.json"
    # The reply is whole but for its finish, so the error can only be about the finish.
    broken.write_text(
        '{"turns": [{"user": "x", "replies": [{"blocks": [], "finish": "sideways"}]}]}'
    )
    assert main(["run", str(broken), "--log", str(tmp_path / "b.jsonl")]) == 2
    assert "sideways" in capsys.readouterr().err


def test_HOOK_8_run_says_why_no_hook_ran_when_no_matcher_matches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """HOOK-8: a Claude Code settings.json matches `Bash`, the scenario's tool is `bash`: the
    hook audit is empty, and says the matchers match none of the tools called (it printed an
    empty section, as if the hooks had run and said nothing)."""
    hooks = [{"type": "command", "command": shlex.join(["bash", str(HOOKS / "ask.sh")])}]
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}})
    )
    argv = ["run", str(_scenario(tmp_path)), "--hooks", str(settings)]
    assert main([*argv, "--log", str(tmp_path / "out.jsonl")]) == 0
    out = capsys.readouterr().out
    audit = out.split("== hooks (audit) ==\n", 1)[1].split("\n\n", 1)[0]
    assert audit == (
        f"  (no hook ran: the matchers of {settings} (PreToolUse 'Bash') match none of the tools "
        "called (bash); a matcher is a regular expression over the whole tool name, "
        "case-sensitive unless it starts with (?i): HOOK-8)"
    )


def test_HOOK_1_run_reads_codexs_own_hooks_json_in_the_dialect_dialect_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """HOOK-1: a Codex hooks.json has the Claude Code shape and no "dialect" key, and Codex
    0.171.0 runs no hook from a file holding one (observed), so the README's advice to add
    the key broke the user's real hooks. `--dialect codex` reads the file as it is: an `ask`,
    which Codex does not support, is the hook's fault and the call runs, as in Codex; read as
    Claude Code it asked the user. With `--harness`, only the harness's own dialect is taken."""
    hooks = [{"type": "command", "command": shlex.join(["bash", str(HOOKS / "ask.sh")])}]
    settings = tmp_path / "hooks.json"
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": hooks}]}})
    )
    scenario = str(_scenario(tmp_path))
    argv = ["run", scenario, "--hooks", str(settings), "--dialect", "codex"]
    assert main([*argv, "--log", str(tmp_path / "out.jsonl")]) == 0
    audit = capsys.readouterr().out.split("== hooks (audit) ==\n", 1)[1]
    assert audit.startswith(
        "  PreToolUse  codex:PreToolUse:1         call c1: error (unsupported: "
        "permissionDecision:ask is not supported)"
    )
    argv = ["run", scenario, "--hooks", str(settings), "--dialect", "codex"]
    assert main([*argv, "--harness", "claude-code", "--log", str(tmp_path / "h.jsonl")]) == 2
    assert capsys.readouterr().err == (
        "loopspec: error: --dialect codex with --harness claude-code: the real CLI reads its "
        "hooks in its own dialect\n"
    )
    assert not (tmp_path / "h.jsonl").exists()


def test_run_names_the_events_whose_hooks_it_does_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A settings file's Stop and PostToolUseFailure hooks, events loopspec does not model,
    were passed over without a word: the audit read as if they had run and answered nothing."""
    own = [{"hooks": [{"type": "command", "command": "true"}]}]
    settings = tmp_path / "settings.json"
    hooks = {"Stop": own, "PostToolUseFailure": own}  # (no hook to start: a cheap run)
    settings.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    argv = ["run", str(_scenario(tmp_path)), "--hooks", str(settings)]
    assert main([*argv, "--log", str(tmp_path / "out.jsonl")]) == 0
    audit = capsys.readouterr().out.split("== hooks (audit) ==\n", 1)[1].split("\n\n", 1)[0]
    assert audit.endswith(
        "\n  not run: the hooks of Stop, PostToolUseFailure (loopspec runs PreToolUse and "
        "PostToolUse; the others are the harness's own)"
    ), audit


def test_HOOK_7_run_names_the_command_of_each_hook_and_its_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hook's fault is shown beside its id, and the id is tied to its command and settings
    entry: with several hooks, `claude-code:PreToolUse:2` alone did not say which script
    printed two JSON objects."""
    rewrite = _hook("rewrite.py", "echo first", "0")
    twice = "cat >/dev/null; echo '{}'; echo '{}'"
    hooks = [{"type": "command", "command": rewrite}, {"type": "command", "command": twice}]
    audit = _audit_of_run(tmp_path, capsys, hooks)
    settings = tmp_path / "settings.json"
    assert "claude-code:PreToolUse:2   call c1: error (invalid-json: stdout holds more" in audit
    where, note = audit.split("\n  HOOK-7: ")
    assert where.endswith(
        "  where:\n"
        f"    claude-code:PreToolUse:1 = {rewrite} ({settings}: $.hooks.PreToolUse[0].hooks[0])\n"
        f"    claude-code:PreToolUse:2 = {twice} ({settings}: $.hooks.PreToolUse[0].hooks[1])"
    )
    assert note.startswith(
        "hook claude-code:PreToolUse:2 failed in its only run: its own output or process went "
        "wrong (call c1, invalid-json: stdout holds more"
    )


def test_HOOK_6_run_says_on_each_hook_line_what_became_of_its_rewrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rewrite HOOK-6 refused, and one a later hook's overrode, were shown as a plain
    `allow -> INPUT`, as if the call ran with it; the refusal showed only on the call line."""
    rewrite = _hook("rewrite.py", "echo first", "0")
    bare = _hook("non_object_input.py")
    hooks = [{"type": "command", "command": rewrite}, {"type": "command", "command": bare}]
    first, second = _audit_of_run(tmp_path, capsys, hooks).splitlines()[:2]
    assert first.endswith(
        'allow -> {"command":"echo first"}, overridden by claude-code:PreToolUse:2\'s, '
        "later in configured order"
    )
    assert second.endswith(
        '-> "rm -rf /", refused (HOOK-6): not an input the tool takes, so the call is'
    )


def test_HOOK_3_run_says_a_rewrite_beside_a_deny_is_unused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rewrite = _hook("rewrite.py", "echo first", "0")
    deny = shlex.join(["bash", str(HOOKS / "deny_json.sh")])
    hooks = [{"type": "command", "command": rewrite}, {"type": "command", "command": deny}]
    first = _audit_of_run(tmp_path, capsys, hooks).splitlines()[0]
    assert first.endswith('allow -> {"command":"echo first"}, unused: the call is denied')


def test_ADJ_4_run_shows_a_post_tool_use_context_by_its_text_after_the_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PostToolUse hook's context is a user message after the result; the history section
    printed it as 'user: 1 block(s)', so its author could not see what the model was told."""
    post = [{"type": "command", "command": _hook("post_context.py")}]
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PostToolUse": [{"hooks": post}]}}))
    argv = ["run", str(_scenario(tmp_path)), "--hooks", str(settings)]
    assert main([*argv, "--log", str(tmp_path / "out.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "HOOK-7" not in out  # a hook that answered well gets no word about faults
    history = out.split("== model history (what the next request carries) ==\n", 1)[1]
    assert history.split("\n\n", 1)[0].splitlines() == [
        "  user: 'clean the build'",
        '  assistant calls c1 bash {"command": "rm -rf build"}',
        "  result c1: 'removed'",
        "  user (plugin tool-context): \"bash said {'output': 'removed'}\"",
    ]


def test_PROTO_1_run_help_says_where_the_scenario_format_is(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: `run --help` names the module whose documentation is the scenario format (an
    installed loopspec has no properties/cli/scenario.py beside the user to open)."""
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "(its format: python -m pydoc loopspec.properties.cli.scenario)" in shown
    assert scenario_format.__doc__ is not None
    assert '"turns": [' in scenario_format.__doc__


def test_HOOK_7_run_says_nothing_of_faults_when_a_sound_hook_logs_a_fault_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """HOOK-7: a hook that answers `{}` and logs 'crash: ...' on stderr has no fault; `run`
    read the fault from the summary's first word and told its author the output went wrong. The
    audit marks such stderr as stderr, so the log too tells it from a fault."""
    logs = "cat >/dev/null; echo 'crash: recovered from a cache miss' >&2; echo '{}'"
    audit = _audit_of_run(tmp_path, capsys, [{"type": "command", "command": logs}])
    assert "call c1: pass (stderr: crash: recovered from a cache miss)" in audit
    assert "HOOK-7" not in audit


def test_a_scenario_with_an_integer_too_long_to_read_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scenario holding a number of 5,000 digits was refused with Python's advice to
    call sys.set_int_max_str_digits(); the error names the file and the number loopspec does
    not read."""
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(SCENARIO).replace('"removed"', "7" * 5000), encoding="utf-8")
    assert main(["run", str(scenario)]) == 2
    said = capsys.readouterr().err
    assert (
        f"{scenario}: the scenario is not JSON: an integer of 5000 digits, more than the " in said
    )
    assert "set_int_max_str_digits" not in said
