"""`loopspec check ~/.claude` or `~/.codex`: the JSONL files of a CLI's home folder that are no
session log (prompt histories, Codex's session index) are skipped with a line saying what they
are, counted, and never read as a broken dsh log (LOG-5 "not a session header", exit 2); named on
the command line, such a file is an input error saying what it is. Every file here is written by
hand with invented content in the shape the CLIs' documentation gives (`logcheck.home_files`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from loopspec.properties.cli.main import main

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "logs"
TRANSCRIPT = FIXTURES / "claude-code" / "valid" / "two-calls-in-order.jsonl"
ROLLOUT = FIXTURES / "codex" / "valid" / "parallel-calls-in-issue-order.jsonl"

CLAUDE_PROMPTS = [
    {"display": "fix the flaky test", "pastedContents": {}, "timestamp": 1767225600000,
     "project": "/home/user/repo", "sessionId": "00000000-0000-4000-8000-000000000001"},
    {"display": "now run it", "pastedContents": {}, "timestamp": 1767225660000,
     "project": "/home/user/repo"},
]  # fmt: skip
CODEX_PROMPTS = [
    {"session_id": "00000000-0000-4000-8000-000000000002", "ts": 1767225600, "text": "list files"},
]
CODEX_INDEX = [
    {"id": "00000000-0000-4000-8000-000000000002", "thread_name": "listing",
     "updated_at": "2026-01-01T00:00:00Z"},
]  # fmt: skip


def _jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def _homes(root: Path) -> tuple[Path, Path]:
    """A Claude Code and a Codex home folder: one session log each, and the non-logs beside."""
    claude, codex = root / ".claude", root / ".codex"
    (claude / "projects" / "-home-user-repo").mkdir(parents=True)
    shutil.copy(TRANSCRIPT, claude / "projects" / "-home-user-repo" / "s1.jsonl")
    _jsonl(claude / "history.jsonl", CLAUDE_PROMPTS)
    (codex / "sessions" / "2026" / "01" / "01").mkdir(parents=True)
    shutil.copy(ROLLOUT, codex / "sessions" / "2026" / "01" / "01" / "rollout-x.jsonl")
    _jsonl(codex / "history.jsonl", CODEX_PROMPTS)
    _jsonl(codex / "session_index.jsonl", CODEX_INDEX)
    return claude, codex


def test_LOG_5_a_home_folders_prompt_histories_are_skipped_not_read_as_broken_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check ~/.claude ~/.codex`: the transcript and the rollout are checked (exit 0); each
    history and the session index gets one line saying what it is and that it holds no loop,
    and the summary counts them (before: three LOG-5 errors, exit 2)."""
    claude, codex = _homes(tmp_path)
    assert main(["check", str(claude), str(codex)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert not [line for line in out if "LOG-5" in line or " error " in line]
    assert (
        f"{claude / 'history.jsonl'}: skipped claude-code-prompt-history: Claude Code's prompt "
        "history (the prompts typed in its terminal, across sessions; the transcripts are under "
        "~/.claude/projects/): not a session log, no loop to check in it"
    ) in out
    assert any(line.startswith(f"{codex / 'history.jsonl'}: skipped codex-prompt-history: ")
               for line in out)  # fmt: skip
    index = f"{codex / 'session_index.jsonl'}: skipped codex-session-index: Codex's session index"
    assert any(line.startswith(index) for line in out)
    assert out[-1].startswith("checked 2 logs, ")
    assert out[-1].endswith(
        "skipped 3 files, no session log (claude-code-prompt-history: 1, codex-prompt-history: "
        "1, codex-session-index: 1)"
    )


def test_LOG_5_skipped_files_are_listed_apart_in_the_json_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """loopspec-check/1 stays compatible: `logs` holds the checked logs only, with their usual
    keys and statuses; the skipped files are a new `skipped` list and summary counts."""
    claude, codex = _homes(tmp_path)
    assert main(["check", "--format", "json", str(claude), str(codex)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["format"] == "loopspec-check/1"
    assert [(log["dialect"], log["status"]) for log in report["logs"]] == [
        ("claude-code", "ok"),
        ("codex", "ok"),
    ]
    assert [(entry["path"], entry["kind"]) for entry in report["skipped"]] == [
        (str(claude / "history.jsonl"), "claude-code-prompt-history"),
        (str(codex / "history.jsonl"), "codex-prompt-history"),
        (str(codex / "session_index.jsonl"), "codex-session-index"),
    ]
    assert all("no loop to check" in entry["message"] for entry in report["skipped"])
    summary = report["summary"]
    assert (summary["logs"], summary["exit_code"], summary["skipped"]) == (2, 0, 3)
    assert summary["logs_by_status"] == {"ok": 2}
    assert summary["skipped_by_kind"] == {
        "claude-code-prompt-history": 1,
        "codex-prompt-history": 1,
        "codex-session-index": 1,
    }


def test_LOG_5_a_prompt_history_named_on_the_command_line_is_an_error_saying_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user asked for that file: exit 2 with one line naming it and what it is (not a
    broken session header), and nothing is skipped silently."""
    history = _jsonl(tmp_path / ".codex" / "history.jsonl", CODEX_PROMPTS)
    assert main(["check", str(history)]) == 2
    captured = capsys.readouterr()
    lines = [line for line in captured.out.splitlines() if line.startswith(str(history))]
    assert lines == [
        f"{history}: error not-a-session-log: Codex's prompt history (the prompts typed, across "
        "sessions; the rollouts are under ~/.codex/sessions/): not a session log, no loop to "
        "check in it; name a transcript or rollout, or a folder (files like this one are "
        "skipped there)"
    ]
    assert "Traceback" not in captured.out + captured.err


# What a headless run prints (invented content, in the shape the pinned CLIs print).
CLAUDE_STREAM: list[dict[str, Any]] = [
    {"type": "system", "subtype": "init", "cwd": "/home/user/repo",
     "session_id": "00000000-0000-4000-8000-000000000003", "tools": ["Bash"], "uuid": "u0"},
    {"type": "assistant", "message": {"id": "msg_1", "role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_a", "name": "Bash", "input": {"command": "ls"}}]},
     "session_id": "00000000-0000-4000-8000-000000000003", "uuid": "u1"},
    {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "src"}]},
     "session_id": "00000000-0000-4000-8000-000000000003", "uuid": "u2"},
]  # fmt: skip
CODEX_EVENTS: list[dict[str, Any]] = [
    {"type": "thread.started", "thread_id": "00000000-0000-4000-8000-000000000004"},
    {"type": "turn.started"},
]


def test_LOG_5_a_saved_stream_json_or_exec_json_is_named_with_the_log_to_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What `claude -p --output-format stream-json` printed was read as a transcript, and
    passed: it shows neither a hook's updatedInput nor what ran, so RW-1 could not fail. What
    `codex exec --json` printed read as a broken dsh log (LOG-5). Each is now named, with the
    transcript or rollout of its session to check instead; in a folder, skipped."""
    stream = _jsonl(tmp_path / "out" / "claude.jsonl", CLAUDE_STREAM)
    events = _jsonl(tmp_path / "out" / "codex.jsonl", CODEX_EVENTS)
    assert main(["check", str(stream)]) == 2
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith(str(stream))]
    assert line.startswith(
        f"{stream}: error not-a-session-log: Claude Code's stream-json output (claude -p "
        "--output-format stream-json), which shows neither a hook's updatedInput nor what ran; "
        "its session's transcript is "
        "~/.claude/projects/*/00000000-0000-4000-8000-000000000003.jsonl: not a session log"
    )
    assert main(["check", str(events)]) == 2
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith(str(events))]
    assert line.startswith(
        f"{events}: error not-a-session-log: Codex's event stream (codex exec --json); its "
        "thread's rollout is "
        "~/.codex/sessions/*/*/*/rollout-*-00000000-0000-4000-8000-000000000004.jsonl: "
    )
    shutil.copy(TRANSCRIPT, tmp_path / "out" / "transcript.jsonl")
    assert main(["check", str(tmp_path / "out")]) == 0
    assert (
        capsys.readouterr()
        .out.splitlines()[-1]
        .endswith(
            "skipped 2 files, no session log (claude-code-stream-json: 1, codex-exec-json: 1)"
        )
    )


def test_LOG_5_a_jsonl_of_another_shape_in_a_folder_is_still_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the known shapes are skipped: a record that merely resembles one (a `display`
    without a `project`) is still read as a log, and its missing header is LOG-5."""
    _jsonl(tmp_path / "notes.jsonl", [{"display": "x", "timestamp": 1}])
    assert main(["check", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "error bad-header LOG-5" in out
    assert "skipped" not in out


def test_LOG_5_a_folder_holding_only_files_that_are_no_session_log_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check ~/.codex` where no rollout was ever written: the history is skipped as anywhere,
    and, as for a folder with no log file at all, the run fails saying none was found (a CI job
    must not pass having checked nothing)."""
    codex = tmp_path / ".codex"
    _jsonl(codex / "history.jsonl", CODEX_PROMPTS)
    assert main(["check", str(codex)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{codex / 'history.jsonl'}: skipped codex-prompt-history: ")
    assert out[1] == (
        f"{codex}: error unreadable: no session log under it: its one file is not one "
        "(skipped, see above)"
    )
    assert out[2].startswith("checked 0 logs, 0 events, found no log under 1 folder: ")


def test_LOG_5_a_subagents_metadata_file_named_on_the_command_line_says_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check <session>/subagents/*` (observed with Claude Code 2.1.332) names each
    `agent-*.meta.json` beside the subagent's transcript: one JSON object about the agent, which
    read as a dsh log whose session header was broken (LOG-5). It is now named, with the
    transcript to check instead; the transcript beside it is still checked."""
    subagents = tmp_path / "session-1" / "subagents"
    meta = _jsonl(
        subagents / "agent-a1.meta.json",
        [{"agentType": "general-purpose", "description": "look around", "toolUseId": "toolu_t1",
          "spawnDepth": 1, "finished": True}],
    )  # fmt: skip
    assert main(["check", str(meta)]) == 2
    captured = capsys.readouterr()
    (line,) = [x for x in captured.out.splitlines() if x.startswith(str(meta))]
    assert line == (
        f"{meta}: error not-a-session-log: Claude Code's note on a subagent it started (the "
        "Task or Agent call toolu_t1; its transcript is the agent-*.jsonl beside it): not a "
        "session log, no loop to check in it; name a transcript or rollout, or a folder (files "
        "like this one are skipped there)"
    )
    assert "LOG-5" not in captured.out
    assert "Traceback" not in captured.out + captured.err


def test_LOG_5_claude_codes_mcp_server_log_is_named_with_its_sessions_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code 2.1.332 logs each MCP server's connection as JSONL under
    `~/.cache/claude-cli-nodejs/<project>/mcp-logs-<server>/` (observed offline): `check` on
    that folder, or on one of its files, read it as a dsh log with a broken session header
    (LOG-5, exit 2). Named, it is said what it is, with the transcript to check instead; in a
    folder, skipped."""
    session = "00000000-0000-4000-8000-000000000005"
    logs = tmp_path / "claude-cli-nodejs" / "-home-user-repo" / "mcp-logs-echo"
    records = [
        {"debug": step, "timestamp": "2026-01-01T00:00:00.000Z", "sessionId": session,
         "cwd": "/home/user/repo"}
        for step in ("Starting connection with timeout of 30000ms", "Calling MCP tool: shout")
    ]  # fmt: skip
    log = _jsonl(logs / "2026-01-01T00-00-00-000Z.jsonl", records)
    assert main(["check", str(log)]) == 2
    captured = capsys.readouterr()
    (line,) = [x for x in captured.out.splitlines() if x.startswith(str(log))]
    assert line.startswith(
        f"{log}: error not-a-session-log: Claude Code's log of an MCP server's connection "
        "(mcp-logs-<server>), which records no loop; its session's transcript is "
        f"~/.claude/projects/*/{session}.jsonl: not a session log"
    )
    assert "LOG-5" not in captured.out
    shutil.copy(TRANSCRIPT, tmp_path / "claude-cli-nodejs" / "transcript.jsonl")
    assert main(["check", str(tmp_path / "claude-cli-nodejs")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].endswith("skipped 1 file, no session log (claude-code-mcp-log: 1)")
