"""The Codex rollout dialect (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`).

Every record is `{timestamp, type, payload}`, its payload an object (another is refused at its
line: Codex writes none). Records read (every other type — `session_meta`,
`turn_context`, `world_state`, `token_usage_record`, other `event_msg`s — carries nothing the
rules read):

- `response_item` — the model history as Codex keeps it. A run of consecutive model items
  (`function_call`, `custom_tool_call`, `local_shell_call`, `reasoning`, assistant `message`)
  is one reply; a call's `call_id`, `name` and `arguments` (a JSON string, parsed as every reader
  parses it) are what the history and the rollout's call record hold. `function_call_output`
  and `custom_tool_call_output` are results, in the order written (one for a call the rollout
  has not shown, ADJ-2's, ends no reply for a call written right after it). A `message` from
  the user, the developer or the system is model-visible; one from the user written while
  calls await outputs, with no task_started before it (a converter that keeps response_items
  only), is read as a transcript's prompt: REC-1 when the next reply comes before their outputs.
- `event_msg` `item_completed` whose item is a `CommandExecution` a call ran (its `source`
  `agent` or `unified_exec_startup`, or none; the user's `!` command, `user_shell`, is no
  call's): `item.id` is the call id and `item.command` the argv that ran
  (`["/bin/bash", "-lc", CMD]`, or that argv joined into one shell-quoted string); CMD is
  compared with the call's `cmd` (`exec_command`) or `command` (`shell`). Codex writes no hook
  records, so a difference is also an unrecorded rewrite (RW-2). One naming no call the
  rollout has shown ran what neither the history nor the call record holds (RW-1).
- `event_msg` `item_completed` whose item is an `McpToolCall`: an MCP server's tool (the
  `function_call` of `namespace` `mcp__<server>`, its `name` the tool's) ran as call `item.id`
  with `item.arguments`, compared whole with the call's; a PreToolUse hook matching
  `mcp__<server>__<tool>` rewrites them unrecorded (RW-1, RW-2), as a command's.
- `compacted`: a compaction replaced the history with its summary, which the model reads
  next: model-visible, as a message is (between a call and its output, ADJ-1).
- `event_msg` `thread_rolled_back`: the history loses its last `num_turns` user turns (Codex
  rebuilds it without them, counting user messages from the end): calls made there await no
  result, and a turn started after it opens over none (REC-1).
- `event_msg` `task_started`: a turn begins. Calls still awaiting results then were left by a
  turn that ended without answering them — Codex killed mid-call and resumed gives the model a
  synthetic "aborted" result but writes none to the rollout (REC-1).
"""

from __future__ import annotations

# collections.abc's own source (see `claude_code`)
from _collections_abc import Mapping

from loopspec.model.json_text import loads, same_json
from loopspec.properties.logcheck.harness_logs import (
    Call,
    Dialect,
    Executed,
    Observation,
    RecordError,
    Reply,
    Result,
    RolledBack,
    TurnStart,
    Visible,
    record_id,
    shown,
)

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: see `claude_code`
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

NAME = "codex"
CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
RESULT_TYPES = frozenset({"function_call_output", "custom_tool_call_output"})
SHELL_FLAGS = frozenset({"-lc", "-c"})
# The `source` of a CommandExecution a model's call ran (`item.id` its call_id). Another (the
# user's `!` shell command, `user_shell`; input written to a running one) runs for no call.
CALL_SOURCES = frozenset({"agent", "unified_exec_startup"})

_NO_EVENTS = "the rollout has no turn-numbered step events"
_NO_HOOKS = "the rollout records no hook invocations or answers"
NOT_CHECKABLE = {
    "LOG-1": "the rollout has no seq",
    "LOG-2": "the rollout has no surface operations",
    "LOG-7": "the rollout records no surface replacements",
    "TURN-1": "task_started/task_complete carry turn ids, not numbers",
    "TURN-2": _NO_EVENTS,
    "TURN-3": _NO_EVENTS,
    "STEP-1": _NO_EVENTS,
    "STEP-2": _NO_EVENTS,
    "STEP-3": _NO_EVENTS,
    "ADJ-4": "no record marks where a step begins, so not whether a message waited for one",
    "ORD-1": "no record marks where a reply ends and its calls begin",
    "ORD-2": "the rollout has no call record apart from the reply's function_call",
    "RW-3": _NO_HOOKS,
    "RW-4": "approval requests are not recorded",
    "HOOK-1": _NO_HOOKS,
    "HOOK-3": _NO_HOOKS,
    "HOOK-4": _NO_HOOKS,
    "HOOK-5": _NO_HOOKS,
    "HOOK-6": _NO_HOOKS,
    "HOOK-7": (
        "the rollout records no hook run, so not a hook that crashed, printed broken JSON, timed "
        "out or answered what Codex does not support (an ask: the call runs); `loopspec run "
        "--harness codex` shows each hook's answer"
    ),
    "DEC-1": _NO_HOOKS,
    "DEC-2": "approval requests and answers are not recorded",
    "ABORT-3": "approval requests and answers are not recorded",
    "ABORT-1": (
        "an abort's answers to the running calls are plain output ('aborted by user'), with no "
        "code saying an abort wrote them, and no record marks how a turn ended"
    ),
    "ABORT-2": "interrupted replies are not marked",
    "EXE-2": (
        "an output is plain text with no error flag, so a call whose arguments are no JSON "
        "object cannot be told to have run from Codex's refusal of it"
    ),
}


def _one_of(value: Any, names: frozenset[str]) -> bool:
    """Whether `value` is one of `names` (a record may hold any JSON value there)."""
    return isinstance(value, str) and value in names


def _is_model_item(item: Mapping[str, Any]) -> bool:
    kind = item.get("type")
    return (
        _one_of(kind, CALL_TYPES)
        or kind == "reasoning"
        or (kind == "message" and item.get("role") == "assistant")
    )


def _parsed(raw: Any) -> Any:
    """A call's arguments as every reader parses them: empty is {}, invalid JSON stays raw."""
    if not isinstance(raw, str):
        return raw
    if not raw.strip():
        return {}
    try:
        return loads(raw)
    except ValueError:
        return raw


def _call(item: Mapping[str, Any]) -> Call:
    kind = item.get("type")
    call_id = record_id(item.get("call_id") or item.get("id"), f"a {kind}'s call_id")
    if kind == "local_shell_call":
        action = item.get("action")
        command = action.get("command") if isinstance(action, Mapping) else None
        return Call(call_id, "local_shell", {"command": command})
    raw = item.get("arguments") if kind == "function_call" else item.get("input")
    return Call(call_id, str(item.get("name")), _parsed(raw))


class _Reader:
    """Turns records into observations; remembers whether a reply is being written."""

    def __init__(self) -> None:
        self.replies = 0
        self.in_reply = False
        # Every call id the rollout has shown: an output for none of them (ADJ-2's) ends no
        # reply for a call written next (`stray`), still its reply's, not a new one (ADJ-3).
        self.calls: set[str] = set()
        self.stray = False
        # The line of each user message still in the history: a rollback of n turns takes out
        # everything from the n-th last on (`thread_rolled_back`).
        self.prompts: list[int] = []

    def observe(self, record: Mapping[str, Any], line: int) -> Iterator[Observation]:
        payload = record.get("payload")
        if not isinstance(payload, Mapping):
            # Codex writes every record's payload as an object, of a type it does not read too.
            found = shown(payload) if "payload" in record else "missing"
            raise RecordError(
                "a rollout record is {timestamp, type, payload}: its payload must be a JSON "
                f"object ({{}} where nothing in it is read), not {found}"
            )
        kind = record.get("type")
        if kind == "response_item":
            yield from self._item(payload, line)
        elif kind == "compacted":
            # The history is replaced by its summary from here: model-visible, as a message is.
            self.in_reply = False
            yield Visible("a compaction summary (compacted)", line)
        elif kind == "event_msg" and payload.get("type") == "task_started":
            self.in_reply = False
            turn_id = payload.get("turn_id")
            named = f"turn {turn_id} " if isinstance(turn_id, str) and turn_id else "a turn "
            yield TurnStart(line, f"{named}(task_started)")
        elif kind == "event_msg" and payload.get("type") == "thread_rolled_back":
            # Codex rebuilds the history without the last `num_turns` user turns, counting user
            # messages from the end (a resumed or forked thread's model reads it so).
            turns = payload.get("num_turns")
            if type(turns) is int and turns > 0:
                self.in_reply = False
                cut = self.prompts[-turns] if turns <= len(self.prompts) else 0
                del self.prompts[len(self.prompts) - min(turns, len(self.prompts)) :]
                yield RolledBack(cut, line)
        elif kind == "event_msg" and payload.get("type") == "item_completed":
            item = payload.get("item")
            if isinstance(item, Mapping) and item.get("type") == "CommandExecution":
                ran = _shell_command(_argv(item))
                source = item.get("source")
                if source is None or _one_of(source, CALL_SOURCES):
                    call_id = record_id(item.get("id"), "a CommandExecution's id")
                    yield Executed(call_id, ran, line, own_record=True)
            elif isinstance(item, Mapping) and item.get("type") == "McpToolCall":
                # An MCP tool's call ran with `arguments`, after any PreToolUse hook's rewrite
                # (Codex 0.171.0 runs a hook matching `mcp__<server>__<tool>`); arguments that are
                # no object, which no call's parsed input holds, are not compared.
                arguments = item.get("arguments")
                if isinstance(arguments, Mapping):
                    call_id = record_id(item.get("id"), "an McpToolCall's id")
                    yield Executed(call_id, dict(arguments), line, own_record=True)

    def _item(self, item: Mapping[str, Any], line: int) -> Iterator[Observation]:
        stray, self.stray = self.stray, False
        if _is_model_item(item):
            if stray and not _one_of(item.get("type"), CALL_TYPES):
                self.in_reply = False
            if not self.in_reply:
                self.replies += 1
                self.in_reply = True
            calls = (_call(item),) if _one_of(item.get("type"), CALL_TYPES) else ()
            self.calls.update(call.call_id for call in calls)
            yield Reply(f"reply-{self.replies}", calls, line)
            return
        if _one_of(item.get("type"), RESULT_TYPES):
            call_id = record_id(item.get("call_id"), f"a {item.get('type')}'s call_id")
            if call_id in self.calls:
                self.in_reply = False
            else:
                self.stray = self.in_reply
            yield Result(call_id, line)
            return
        self.in_reply = False
        if item.get("type") == "message":
            role = item.get("role", "unknown")
            # A user's message opens a turn when its task_started is missing (a resume, a
            # converter that drops event_msgs): held, as a transcript's prompt is, by `Judge`.
            prompt = role == "user"
            if prompt:
                self.prompts.append(line)
            yield Visible(f"a {role} message", line, _hook_context(item), prompt)


def _hook_context(item: Mapping[str, Any]) -> bool:
    """Whether a message is a PostToolUse hook's additionalContext: Codex 0.171.0 marks its
    developer message so (ADJ-1 of its known divergences writes it between a call and its
    output)."""
    meta = item.get("internal_chat_message_metadata_passthrough")
    kinds = meta.get("content_item_kinds") if isinstance(meta, Mapping) else None
    return isinstance(kinds, list) and "hooks.additional_context" in kinds


def _argv(item: Mapping[str, Any]) -> str | list[str]:
    """The command a CommandExecution ran: a string, or its argv (read as `null` or `[1, 2]`,
    it was compared with the call's and blamed on RW-1 as another command)."""
    command = item.get("command")
    if isinstance(command, str) or (
        isinstance(command, list) and all(isinstance(word, str) for word in command)
    ):
        return command
    raise RecordError(
        f"a CommandExecution's command must be a string or an array of strings, not "
        f"{shown(command)}"
    )


def _shell_command(argv: Any) -> Any:
    """The script of `[shell, -lc, SCRIPT]`, or of that argv joined into one shell-quoted string
    (as Codex's app-server reports a command, `/bin/bash -lc 'echo hi'`); anything else as it
    is."""
    if isinstance(argv, str) and any(f" {flag} " in argv for flag in SHELL_FLAGS):
        import shlex  # noqa: PLC0415 (it imports re: only for a command in that form)

        try:
            words = shlex.split(argv)
        except ValueError:  # unbalanced quotes: no argv of that form
            return argv
        return words[2] if len(words) == 3 and words[1] in SHELL_FLAGS else argv
    if isinstance(argv, list) and len(argv) == 3 and _one_of(argv[1], SHELL_FLAGS):
        return argv[2]
    return argv


def _same_input(call: Call, ran: Any) -> bool:
    arguments = call.arguments
    if isinstance(ran, Mapping):
        return same_json(arguments, ran)  # an MCP tool's arguments: held whole to the call's
    if not isinstance(arguments, Mapping):
        return True  # not a shell call's input: nothing to compare the command with
    asked = arguments.get("cmd", arguments.get("command"))
    if asked is None:
        return True
    return bool(_shell_command(asked) == ran or asked == ran)


def dialect() -> Dialect:
    """A fresh reader for one rollout."""
    reader = _Reader()
    return Dialect(
        NAME,
        NOT_CHECKABLE,
        reader.observe,
        _same_input,
        rewrites_are_recorded=False,
        checked_in_part={},
    )
