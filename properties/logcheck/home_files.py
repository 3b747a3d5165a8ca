"""JSONL files in a CLI's home folder that are not session logs, recognised from their first record.

Users point `loopspec check` at a whole home folder (`~/.claude`, `~/.codex`), and `check DIR`
reads every `*.jsonl` below it. Beside the transcripts and rollouts, those folders hold JSONL
files that record no loop at all; read as a dsh log, each gave exit 2 with "not a session
header" (LOG-5), which reads as if the user's log were broken. Known shapes (facts from the
CLIs' public documentation and issue threads; the headless runs of the pinned versions,
Claude Code 2.1.332 and Codex 0.171.0, write none of them):

- Claude Code's prompt history, `~/.claude/history.jsonl`: one record per prompt typed in
  its terminal, `{display, pastedContents, timestamp, project[, sessionId]}`, no `type`.
- Codex's prompt history, `~/.codex/history.jsonl` (and a project's `.codex/history.jsonl`):
  `{session_id, ts, text}`.
- Codex's session index, `~/.codex/session_index.jsonl`: a thread's name,
  `{id, thread_name, updated_at}`.
- Claude Code's note on a subagent it started, `<session>/subagents/agent-*.meta.json` beside
  that subagent's transcript (observed with 2.1.332): one object `{agentType, description,
  toolUseId, ...}`, no `type`. A folder walk reads only `*.jsonl`, so only naming it (a
  `subagents/*` glob) meets it.
- Claude Code's log of an MCP server's connection,
  `~/.cache/claude-cli-nodejs/<project>/mcp-logs-<server>/<time>.jsonl` (observed with 2.1.332):
  `{debug | error, timestamp, sessionId, cwd}`, a line per step of the connection (started,
  connected, each tool called and finished, closed), no `type`; read as a dsh log it was a
  LOG-5 header error.

And what a headless run prints, which users save beside their logs (observed with the pinned
CLIs): Claude Code's `claude -p --output-format stream-json` (records with a snake_case
`session_id`, a transcript's carry `sessionId`; it shows neither a hook's `updatedInput` nor what
ran, so read as a transcript it passed RW-1 it could not show) and Codex's `codex exec --json`
(first record `thread.started`; it was read as a dsh log with a LOG-5 header error). Each is named
with the session or thread whose transcript or rollout to check instead.

Found while walking a directory, such a file is skipped with a notice saying what it is (the
report counts it); named on the command line, it is an input error saying the same, since the
user asked for that file to be checked.
"""

from __future__ import annotations

# collections.abc's own source, loaded with the interpreter (see `claude_code`)
from _collections_abc import Mapping

from loopspec.model import PlainRecord

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: see `HomeFile`
if TYPE_CHECKING:
    from typing import Any


class HomeFile(PlainRecord):
    """A kind of file that is not a session log: its report name and what it holds. (A plain
    record, not a NamedTuple: `loopspec check ~/.claude` meets a prompt history, and typing,
    with the re and collections it imports, took longer to import than the interpreter to
    start.)"""

    __slots__ = ("kind", "what")

    def __init__(self, kind: str, what: str) -> None:
        self.kind = kind
        self.what = what


CLAUDE_CODE_PROMPTS = HomeFile(
    "claude-code-prompt-history",
    "Claude Code's prompt history (the prompts typed in its terminal, across sessions; the "
    "transcripts are under ~/.claude/projects/)",
)
CODEX_PROMPTS = HomeFile(
    "codex-prompt-history",
    "Codex's prompt history (the prompts typed, across sessions; the rollouts are under "
    "~/.codex/sessions/)",
)
CODEX_SESSION_INDEX = HomeFile(
    "codex-session-index",
    "Codex's session index (thread names; the rollouts are under ~/.codex/sessions/)",
)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# The record types of Claude Code's stream-json output.
_CLAUDE_STREAM_TYPES = frozenset({"system", "user", "assistant", "result", "stream_event"})


def _saved_output(record: Mapping[str, Any]) -> HomeFile | None:
    """A headless run's printed events, by their first record (see above)."""
    kind = record.get("type")
    session = record.get("session_id")
    if (
        isinstance(kind, str)
        and kind in _CLAUDE_STREAM_TYPES
        and isinstance(session, str)
        and "sessionId" not in record
    ):
        return HomeFile(
            "claude-code-stream-json",
            "Claude Code's stream-json output (claude -p --output-format stream-json), which "
            "shows neither a hook's updatedInput nor what ran; its session's transcript is "
            f"~/.claude/projects/*/{session}.jsonl",
        )
    thread = record.get("thread_id")
    if kind == "thread.started" and isinstance(thread, str):
        return HomeFile(
            "codex-exec-json",
            "Codex's event stream (codex exec --json); its thread's rollout is "
            f"~/.codex/sessions/*/*/*/rollout-*-{thread}.jsonl",
        )
    return None


def home_file_of(record: Any) -> HomeFile | None:
    """What a file whose first record is `record` is, when it is a known non-log; else None."""
    if not isinstance(record, Mapping) or "seq" in record:
        return None
    if "type" in record:
        return _saved_output(record)
    if (
        isinstance(record.get("display"), str)
        and _number(record.get("timestamp"))
        and isinstance(record.get("project"), str)
    ):
        return CLAUDE_CODE_PROMPTS
    if (
        isinstance(record.get("session_id"), str)
        and _number(record.get("ts"))
        and isinstance(record.get("text"), str)
    ):
        return CODEX_PROMPTS
    if isinstance(record.get("id"), str) and isinstance(record.get("thread_name"), str):
        return CODEX_SESSION_INDEX
    said = record.get("debug", record.get("error"))
    session = record.get("sessionId")
    if (
        isinstance(said, str)
        and isinstance(record.get("timestamp"), str)
        and isinstance(session, str)
    ):
        return HomeFile(
            "claude-code-mcp-log",
            "Claude Code's log of an MCP server's connection (mcp-logs-<server>), which records "
            "no loop; its session's transcript is "
            f"~/.claude/projects/*/{session}.jsonl",
        )
    call = record.get("toolUseId")
    if isinstance(record.get("agentType"), str) and isinstance(call, str):
        return HomeFile(
            "claude-code-subagent-note",
            f"Claude Code's note on a subagent it started (the Task or Agent call {call}; its "
            "transcript is the agent-*.jsonl beside it)",
        )
    return None
