"""The driver-protocol adapter of the real Claude Code and Codex CLIs (`loopspec conform --cmd`).

`examples/claude-code-adapter/run.sh` and `examples/codex-adapter/run.sh` start
`python -m loopspec.properties.harnesses.conform_driver claude-code|codex`, which speaks the
driver protocol (`loopspec.properties.conformance.driver_protocol`) on stdin/stdout and plays
each command on the pinned binary, offline (inside `unshare -n` with loopback only when the
kernel allows it, and with every proxy variable pointing at a closed port):

- `SubmitUser` starts a headless turn (`claude -p`, `codex exec`); a later one resumes the
  session (`--continue`, `resume --last`).
- `ModelReplies` and `ModelFails` answer the model request the CLI has pending at a mock model
  server on 127.0.0.1 (streamed Anthropic Messages / OpenAI Responses; a failure is an HTTP 400,
  and the CLI's retries of that request fail the same way).
  Every tool call of a reply reaches the CLI as a call of its shell tool whose command runs the
  blocking tool of `control_client` with the call id, the tool name and the arguments.
- `HookAnswers`: every PreToolUse hook of the configuration is a real hook command of the CLI
  (`control_client hook`) that blocks and asks this adapter. The answer goes to the hook the
  model asks next (a shadow copy of the model routes it: the command names no hook). A call's
  hooks are released once all have their answer, last configured first, each once the one
  before has ended: the first configured hook is the slowest, so a loop that applies the
  rewrite of the hook that finished last instead of the last configured one shows it (HOOK-3),
  however slowly a loaded machine runs each hook process. The release waits until
  every hook of the call has asked (both CLIs start a call's hooks together; a loop that ran
  them one after the other would wait here). A matcher is applied by this adapter to the tool
  name the call names, because the CLI sees only its shell tool: a hook the configuration does
  not match for that tool is answered at once with nothing and leaves no audit.
- `ToolFinishes` releases the blocking tool of that call with the outcome (text on stdout and
  exit 0, or the message on stderr and exit 1), and holds its `post` verdicts for the call's
  PostToolUse hooks: each PostToolUse hook of the configuration is a real hook command too
  (registered for Claude Code's PostToolUseFailure as well, which it runs after a failed
  command) and prints nothing, `hookSpecificOutput.additionalContext`, or `decision: block` with
  the reason. A call's PostToolUse hooks are released once all have asked, in configured order
  (the model audits them so); one asked for a call whose body never ran says nothing and is
  audited as it ran (HOOK-5 gives it none). A `ToolFinishes` whose `post` verdicts are not one
  for each of the call's PostToolUse hooks is refused with HOOK-5, as the model refuses it. A
  body's own contexts (`ToolSucceeded.contexts`) have no way through a shell command and reach
  no CLI.

Parallel calls: Claude Code runs a reply's calls together only when it reads their commands as
read-only, so a call of a concurrency-safe tool reaches it as `tac CALL NAME ARGUMENTS`, `tac`
being the blocking tool program first on the CLI's PATH (Claude Code 2.1.332 reads `tac`, `rev`
and `nl` commands as read-only; an absolute path it does not; a call id, tool name or
arguments holding a `'` travel as hex, `cli_wire.program_word`, since quoted they could make
the command look unsafe to it).
The adapter sets its cap, `CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY`, to the configuration's, which
a headless run does not honour (three ran at once under 2: SCHED-1 of its profile); under a
cap of 1 every call runs the absolute path, so calls run one at a time there as in the model.
Codex runs every shell call of a reply at once whatever its tool, and has no cap (the profile's
known SCHED-1).

PostToolUse contexts and blocks, as the logs show them: Claude Code writes a
`hook_additional_context` attachment after the result and sends its rendered system reminder
inside that tool_result, so the result's text blocks after the output are those reminders
(ADJ-4 of its profile); a block leaves the output and adds a `hook_blocking_error` reminder
(DEC-3). Codex writes a context as a developer message before the call's output (read as a
tool-context user/message there: ADJ-1) and a block as the output, the reasons joined by blank
lines.

Declared capabilities: `abort`, `history`, `parallel`, `post-hooks`, `pre-hooks` and `rewrite`.
`history` is what the CLI's model requests really carried, as the mock model received them, read
back into the protocol's messages (`request_history` says how, what of the CLI's own text it
drops, and what is reported after a command whose change no request has carried yet). An `Abort`
is Ctrl-C: SIGINT to the CLI's process group; the adapter waits for the CLI to end (killed after
ABORT_GRACE) and reads its log, whose interrupt record (Codex's `turn_aborted` event; Claude
Code's user text "[Request interrupted by user]" or "... for tool use]") ends the turn
`aborted`, cause `user` (neither CLI records another). Each CLI answers the running calls at
once (Codex "aborted by user", Claude Code as rejected by the user) and writes a user message of
its own (`<turn_aborted>...`, "[Request interrupted by user...]"), reported as the user/message
its log holds. Not declared, so `conform` never sends them, reports their rules not applicable
and its guarantee does not cover them:
`crash-repair` (a headless CLI repairs a crashed session only when it is resumed with a new
prompt, so `Recover` has no action of its own: it would be the next `SubmitUser`), `approval`
(a headless run asks no one: Claude Code's `-p` and `codex exec` have no prompt to answer),
`max-tokens`, `queued-input`, `result-meta`, `presentation`.

What each command reports is observed, never taken from the command: after a command the
adapter waits until the CLI blocks on something only the program can release (a hook without
its answer, a running tool, a pending model request) or exits, its log holds what it did (the
turn's prompt, the results its model request carries (with the PostToolUse contexts Claude Code
sends inside them), the calls whose hooks or tools run, the result of each call the program's
answers ended (its tool released, or a hook denying it: Claude Code writes each at once, Codex
a reply's in the order of its calls), and the start of each other call whose PreToolUse hooks
are answered: a CLI writes its log after it acts), and no new observation came for a moment,
however long that takes (conform's answer timeout bounds it, and stderr says what is awaited);
then it turns what it observed, in time order, into events:

- the CLI's own log (Claude Code transcript, Codex rollout): the user's prompt (turn/start,
  step/start, user/message), each reply (assistant/message, and a tool/call per call record
  with the name and arguments its shell command carries), each result (tool/result);
- the mock model: a second or later model request of a turn (step/end, step/start);
- the hook processes: each invocation, once it answered (hook/invoked and hook/result, one
  audit record per invocation, as `hook_audit` writes them; PostToolUse ones at that point);
- the blocking tools: each start (`executed`, with the arguments that really ran);
- the CLI process: its exit (step/end, turn/end: completed, aborted when the log recorded
  an interrupt or the adapter interrupted it (it waited on the program), or error when it
  failed).

and its `history` from the last model request the mock model received, held to the log's
history, followed by the log's messages after that request's end
(`request_history.RequestHistory`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NoReturn, assert_never

import attrs

from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, PRE_TOOL_USE, HookSpec, LoopConfig
from loopspec.model.jsonvalue import FrozenMap, JsonValue, dumps, thaw
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.model.state import RUNNING, Dispatching, Rewriting
from loopspec.properties.cli.prompt_ending import end_promptly
from loopspec.properties.conformance.command_codec import command_from_json, config_from_json
from loopspec.properties.conformance.driver_protocol import CANNOT_RUN_HERE, PROTOCOL_VERSION
from loopspec.properties.conformance.target import ModelTarget
from loopspec.properties.harnesses import control_client
from loopspec.properties.harnesses.cli_wire import (
    ABORT_NOTICE,
    CLAUDE_ABORT_NOTICE,
    SAFE_TOOL_PROGRAM,
    TOOL_PROGRAM,
    decoded_call,
    shell_command_of,
    tagged_context,
    text_of,
    text_of_word,
    tool_command,
)
from loopspec.properties.harnesses.mock_model import (
    asks_the_model,
    replies_in_anthropic_history,
    replies_in_responses_history,
)
from loopspec.properties.harnesses.model_stream import (
    StreamBlock,
    StreamReasoning,
    StreamText,
    reply_events,
    shell_call,
)
from loopspec.properties.harnesses.request_history import RequestHistory, sent_messages
from loopspec.properties.harnesses.script import (
    DRIVEN_CAPABILITIES,
    Harness,
    HarnessScript,
    runs_as_read_only,
)
from loopspec.properties.harnesses.session import (
    HarnessError,
    SessionRequest,
    binary_of,
    cli_setup,
    default_adapter_dir,
    network_namespace_works,
    turn_argv,
)
from loopspec.properties.target_signals import children_start_with_default_interrupts

CAPABILITIES = DRIVEN_CAPABILITIES
HOOK_PROGRAM = "loopspec-hook"
# Claude Code's hook event after a command that failed (a PostToolUse hook of the model's).
POST_FAILURE = "PostToolUseFailure"
ABORT_GRACE = 15.0  # seconds an interrupted CLI gets to end before it is killed
QUIET = 0.35  # seconds without a new observation, while blocked, before a command is settled
WAIT_NOTE = 3.0  # seconds a command may take before the adapter says on stderr what it awaits
POLL = 0.03
HOOK_RELEASE_GAP = 0.15  # seconds between one hook's end and the release of the call's next
HOOK_END_LIMIT = 5.0  # seconds a released hook may take to end before the next is released anyway
INSIDE = "LOOPSPEC_CONFORM_DRIVER_INSIDE"
IMPLEMENTATIONS = {
    Harness.CLAUDE_CODE: "@anthropic-ai/claude-code@2.1.332 through examples/claude-code-adapter",
    Harness.CODEX: "@openai/codex@0.171.0 through examples/codex-adapter",
}


# ---------------------------------------------------------------------------------------------
# How a model call travels through the CLI's shell tool (`cli_wire` reads it back).


def call_program(harness: Harness, config: LoopConfig, name: str, bin_dir: Path) -> str:
    """The program a call of tool `name` runs: for one the CLI is to read as read-only
    (`runs_as_read_only`), the read-only-looking name on PATH, so it may run beside others;
    every other call gets the program the CLI runs one at a time."""
    if runs_as_read_only(harness, config, name):
        return SAFE_TOOL_PROGRAM
    return str(bin_dir / TOOL_PROGRAM)


def tool_request_read(request: dict[str, Any]) -> dict[str, Any]:
    """A tool program's request with its call id, tool name and arguments read back from the
    words `tool_command` wrote (`text_of_word`); a key the request lacks stays absent (it
    became the text "None")."""
    if request.get("kind") == "tool":
        for key in ("call", "name", "arguments"):
            if key in request:
                request[key] = text_of_word(str(request[key]))
    return request


# ---------------------------------------------------------------------------------------------
# Observations, in the order they happened.


@attrs.frozen
class Prompt:
    """The log records the user's prompt."""

    at: float
    text: str


@attrs.frozen
class Reply:
    """The log records a reply: (kind, payload) blocks, kind text, reasoning or call."""

    at: float
    blocks: tuple[tuple[str, Any], ...]
    model: str = ""  # the model the log names for the reply (Claude Code does; Codex not)


@attrs.frozen
class Result:
    """The log records a call's result."""

    at: float
    call_id: str
    text: str
    is_error: bool
    # What Claude Code appends to the result the model reads: each PostToolUse hook's
    # additionalContext, as the system reminder its transcript's attachment renders.
    reminders: tuple[str, ...] = ()


@attrs.frozen
class HookContext:
    """The rollout records a PostToolUse hook's `additionalContext` for the model: Codex writes
    a developer message between the call and its output."""

    at: float
    text: str


@attrs.frozen
class AbortNotice:
    """The log records a user message the CLI wrote at an interrupt (Codex's
    `<turn_aborted>`): the model reads it as the user's, who never typed it."""

    at: float
    text: str


@attrs.frozen
class TurnAborted:
    """The log records that the turn was interrupted (Codex's `turn_aborted` event)."""

    at: float


@attrs.frozen
class ModelAsked:
    """The CLI sent a model request whose history holds `replies` model replies."""

    at: float
    replies: int
    body: Any = attrs.field(default=None, eq=False, repr=False)  # the request as it came


@attrs.frozen
class HookAnswered:
    """A hook process asked (at `asked_at`) and got its answer, what it prints (at `at`)."""

    at: float
    handler: str
    call_id: str
    decision: str
    updated_input: Any
    reason: str | None
    asked_at: float
    point: str = PRE_TOOL_USE


@attrs.frozen
class Exited:
    """The CLI process of the turn ended."""

    at: float
    code: int
    message: str


LogItem = Prompt | Reply | Result | HookContext | AbortNotice | TurnAborted
Observed = LogItem | ModelAsked | HookAnswered | Exited


def _stamp(text: object) -> float:
    if isinstance(text, str):
        with contextlib.suppress(ValueError):
            return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    return time.time()


def _add_reminders(items: list[LogItem], attachment: dict[str, Any], rendered: object) -> None:
    """Fold a hook_additional_context attachment into the result it follows: Claude Code sends
    its rendered system reminder inside that tool_result."""
    call_id = str(attachment.get("toolUseID"))
    if isinstance(rendered, list) and rendered:
        texts = [str(part.get("content", "")) for part in rendered if isinstance(part, dict)]
    else:
        event = attachment.get("hookName", "PostToolUse:Bash")
        texts = [
            f"<system-reminder>\n{event} hook additional context: {context}\n</system-reminder>"
            for context in attachment.get("content") or []
        ]
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if isinstance(item, Result) and item.call_id == call_id:
            items[index] = attrs.evolve(item, reminders=(*item.reminders, *texts))
            return


def claude_log_items(text: str) -> list[LogItem]:
    """What a Claude Code transcript records, in order (one reply spans its records)."""
    items: list[LogItem] = []
    reply_id: object = None
    for line in text.split("\n"):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict) or record.get("isSidechain"):
            continue
        message = record.get("message")
        at = _stamp(record.get("timestamp"))
        attachment = record.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "hook_additional_context":
            _add_reminders(items, attachment, record.get("rendered"))
            continue
        if record.get("type") == "assistant" and isinstance(message, dict):
            blocks: list[tuple[str, Any]] = []
            for block in message.get("content") or []:
                kind = block.get("type")
                if kind == "text":
                    blocks.append(("text", str(block.get("text", ""))))
                elif kind == "thinking":
                    blocks.append(("reasoning", str(block.get("thinking", ""))))
                elif kind == "tool_use":
                    blocks.append(("call", (str(block["id"]), block.get("input"))))
            previous = items[-1] if items else None
            if message.get("id") == reply_id and isinstance(previous, Reply):
                items[-1] = attrs.evolve(previous, blocks=previous.blocks + tuple(blocks))
            else:
                items.append(Reply(at, tuple(blocks), str(message.get("model", ""))))
            reply_id = message.get("id")
            continue
        if record.get("type") != "user" or not isinstance(message, dict):
            continue
        reply_id = None
        content = message.get("content")
        if isinstance(content, str) and not record.get("isMeta"):
            items.append(Prompt(at, content))
        elif isinstance(content, list):
            for block in content:
                said = block.get("text") if isinstance(block, dict) else None
                if isinstance(said, str) and said.startswith(CLAUDE_ABORT_NOTICE):
                    items += [AbortNotice(at, said), TurnAborted(at)]
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    items.append(
                        Result(
                            at,
                            str(block.get("tool_use_id")),
                            text_of(block.get("content")),
                            bool(block.get("is_error")),
                        )
                    )
    return items


def _hook_context(payload: dict[str, Any]) -> bool:
    """Whether a Codex rollout message is a hook's additional context (a developer message)."""
    meta = payload.get("internal_chat_message_metadata_passthrough")
    kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
    return isinstance(kinds, list) and "hooks.additional_context" in kinds


def codex_log_items(text: str) -> list[LogItem]:
    """What a Codex rollout records, in order (a run of model items is one reply)."""
    items: list[LogItem] = []
    for line in text.split("\n"):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        payload = record.get("payload") if isinstance(record, dict) else None
        if not isinstance(payload, dict):
            continue
        at = _stamp(record.get("timestamp"))
        if record.get("type") == "event_msg" and payload.get("type") == "turn_aborted":
            items.append(TurnAborted(at))
            continue
        if record.get("type") != "response_item":
            continue
        kind = payload.get("type")
        block: tuple[str, Any] | None = None
        if kind == "message" and payload.get("role") == "user":
            said = text_of(payload.get("content"))
            if said.startswith(ABORT_NOTICE):
                items.append(AbortNotice(at, said))
            elif not tagged_context(said):
                items.append(Prompt(at, said))
            continue
        if kind == "message" and _hook_context(payload):
            items.append(HookContext(at, text_of(payload.get("content"))))
            continue
        if kind == "message" and payload.get("role") == "assistant":
            block = ("text", text_of(payload.get("content")))
        elif kind == "reasoning":
            summary = payload.get("summary") or []
            block = ("reasoning", text_of(summary))
        elif kind == "function_call":
            try:
                arguments = json.loads(str(payload.get("arguments")))
            except ValueError:
                arguments = payload.get("arguments")
            block = ("call", (str(payload.get("call_id")), arguments))
        elif kind == "function_call_output":
            output = payload.get("output")
            items.append(Result(at, str(payload.get("call_id")), text_of(output), False))
            continue
        if block is None:
            continue
        previous = items[-1] if items else None
        if isinstance(previous, Reply):
            items[-1] = attrs.evolve(previous, blocks=(*previous.blocks, block))
        else:
            items.append(Reply(at, (block,)))
    return items


def log_lacks(
    items: list[LogItem],
    *,
    since: float,
    carried: set[str],
    running: set[str],
    released: Mapping[str, int],
    gated: set[str],
    issue_order: bool,
    contexts: Mapping[str, int] | None = None,
) -> str | None:
    """What a running CLI did that its log `items` do not hold yet, or None: the prompt of
    its turn (one recorded at or after `since`, when the CLI process started), the result of
    each call in `carried` (its pending model request carries them), as many PostToolUse
    contexts folded into that result as `contexts` counts for its call (the request carries
    them inside it: Claude Code), the call record of each
    call in `running` (its hook or tool waits on the program), as many results recorded
    since then of each call in `released` as the program's answers ended it (its tool
    released, or its hooks denying it; a call id the model reused, or a reply repeated, runs
    more than one), and a result recorded since then of each call in `gated`: its PreToolUse
    hooks are answered and no tool of it started, so the CLI either starts one (which settles
    nothing while it has not) or records why not. With `issue_order` (Codex) a reply's results
    are written in the order of its calls: a released call's is due once each call before it
    in its reply has one."""
    if not any(isinstance(item, Prompt) and item.at >= since for item in items):
        return "the turn's prompt"
    results = {item.call_id for item in items if isinstance(item, Result)}
    logged = Counter(
        item.call_id for item in items if isinstance(item, Result) and item.at >= since
    )
    replies = [
        [payload[0] for kind, payload in item.blocks if kind == "call"]
        for item in items
        if isinstance(item, Reply)
    ]
    calls = {call for reply in replies for call in reply}
    earlier = {call: reply[:index] for reply in replies for index, call in enumerate(reply)}

    def due(call: str) -> bool:
        return not issue_order or all(logged[before] for before in earlier.get(call, []))

    unlogged = sorted(c for c, count in released.items() if logged[c] < count and due(c))
    if carried - results:
        return f"the result of call {min(carried - results)}, which its model request carries"
    folded: Counter[str] = Counter()  # the most any of its results holds (an id reused: several)
    for item in items:
        if isinstance(item, Result):
            folded[item.call_id] = max(folded[item.call_id], len(item.reminders))
    unfolded = sorted(c for c, n in (contexts or {}).items() if c in carried and folded[c] < n)
    if unfolded:
        return (
            f"the PostToolUse context of call {unfolded[0]}, which its model request carries"
            " inside the result"
        )
    if running - calls:
        return f"the call record of {min(running - calls)}, whose hook or tool is running"
    if unlogged:
        return f"the result of call {unlogged[0]}, which the program's answer ended"
    undecided = sorted(gated - set(logged))
    if undecided:
        return (
            f"the result of call {undecided[0]}, or its tool to start: its PreToolUse hooks"
            " are answered"
        )
    return None


# Claude Code's system reminder for a PostToolUse hook's context, inside the result it judges.
_CONTEXT_REMINDER = re.compile(r"^<system-reminder>\nPostToolUse(?:Failure)?:\S+ hook additional ")


def _contexts_carried(sent: list[dict[str, Any]]) -> dict[str, int]:
    """How many PostToolUse contexts each call's result carries in a request's messages `sent`
    (`request_history.sent_messages`): Claude Code's system reminders after the output (the
    most of any of its results, where a call id the model reused has several)."""
    carried: dict[str, int] = {}
    for message in sent:
        if message["source"]["kind"] != "tool":
            continue
        call_id = str(message["source"].get("callId"))
        for block in message["content"]:
            parts = [str(part.get("text", "")) for part in block.get("content", [])[1:]]
            count = sum(1 for text in parts if _CONTEXT_REMINDER.match(text))
            carried[call_id] = max(carried.get(call_id, 0), count)
    return carried


# ---------------------------------------------------------------------------------------------
# The mock model: one pending request at a time, answered by the program.


@attrs.define
class PendingRequest:
    """A model request the CLI waits on; `answer` is set by the program."""

    body: Any
    at: float
    answered: threading.Event = attrs.field(factory=threading.Event)
    answer: ModelReplies | ModelFails | None = None
    index: int = 0
    replies: int = 0  # model replies its history holds: a retry holds as many as the last
    process: int = 0  # the CLI process (turn) that sent it


class _QuietServer(ThreadingHTTPServer):
    """A server that says nothing when a CLI drops its connection (an interrupted CLI does)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class PendingMock:
    """A model server that holds each request until the program answers it."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self.requests: list[PendingRequest] = []
        self.other_requests = 0
        # The program a call of a tool runs (the session sets the real one).
        self.program_of: Any = lambda name: TOOL_PROGRAM
        self.process = 0  # the session counts the CLI processes it starts
        self.lock = threading.Lock()
        self.closing = threading.Event()
        self.activity = time.monotonic()
        self.server = _QuietServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        """Where it listens."""
        return int(self.server.server_address[1])

    def replies_in(self, body: Any) -> int:
        """How many model replies a request's history holds."""
        if self.harness == Harness.CLAUDE_CODE:
            return replies_in_anthropic_history(body)
        return replies_in_responses_history(body)

    def pending(self) -> PendingRequest | None:
        """The unanswered request, if any."""
        with self.lock:
            return next((r for r in self.requests if not r.answered.is_set()), None)

    def close(self) -> None:
        """Release every waiting request and stop."""
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

            def do_GET(self) -> None:
                mock.other_requests += 1
                self._status(404, {"error": {"type": "not_found", "message": "mock model"}})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = None
                if not asks_the_model(mock.harness, "POST", self.path):
                    mock.other_requests += 1
                    self._status(404, {"error": {"type": "not_found", "message": "mock model"}})
                    return
                request = PendingRequest(
                    body, time.time(), replies=mock.replies_in(body), process=mock.process
                )
                with mock.lock:
                    request.index = len(mock.requests)
                    # A retry of a request the model failed fails the same way at once.
                    failed = [
                        r.answer
                        for r in mock.requests
                        if (r.process, r.replies) == (request.process, request.replies)
                        and isinstance(r.answer, ModelFails)
                    ]
                    if failed:
                        request.answer = failed[0]
                        request.answered.set()
                    mock.requests.append(request)
                    mock.activity = time.monotonic()
                while not request.answered.wait(0.1):
                    if mock.closing.is_set():
                        return
                answer = request.answer
                if answer is None:  # its CLI process ended (an abort): nothing to send
                    return
                if isinstance(answer, ModelFails):
                    self._status(
                        400,
                        {
                            "type": "error",
                            "error": {"type": "invalid_request_error", "message": answer.message},
                        },
                    )
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                blocks = mock.wire_blocks(answer)
                stream = reply_events(mock.harness, blocks, request.index, body)
                with contextlib.suppress(OSError):
                    for chunk in stream:
                        self.wfile.write(chunk)
                    self.wfile.flush()
                self.close_connection = True

            def _status(self, status: int, document: Any) -> None:
                payload = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        return Handler

    def wire_blocks(self, reply: ModelReplies) -> list[StreamBlock]:
        """The reply's blocks as the CLI's API carries them (calls go to the shell tool)."""
        blocks: list[StreamBlock] = []
        for block in reply.blocks:
            match block:
                case TextBlock(text=text):
                    blocks.append(StreamText(text))
                case ReasoningBlock(text=text):
                    blocks.append(StreamReasoning(text))
                case ToolCallBlock(id=call_id, name=name, arguments=arguments):
                    command = tool_command(self.program_of(name), call_id, name, arguments)
                    blocks.append(shell_call(self.harness, call_id, {"command": command}))
        return blocks


# ---------------------------------------------------------------------------------------------
# The control socket: hook and tool processes block here.


@attrs.define
class Waiting:
    """A hook or tool process waiting for its answer."""

    kind: str  # "hook" or "tool"
    request: dict[str, Any]
    at: float
    answered: threading.Event = attrs.field(factory=threading.Event)
    answer: dict[str, Any] = attrs.field(factory=dict)
    ended: threading.Event = attrs.field(factory=threading.Event)  # its process closed


SOCKET_PATH_BYTES = 107
"""The longest path a Unix socket's address holds on Linux (`sun_path`: 108 bytes, its NUL)."""


def control_socket_path(root: Path) -> Path:
    """`control.sock` in the session's folder `root`; where that path is too long for a Unix
    socket (a TMPDIR of more than about 55 characters: the bind failed, "AF_UNIX path too
    long", and so did every harness run), in a folder of its own in /tmp."""
    path = root / "control.sock"
    if len(os.fsencode(path)) <= SOCKET_PATH_BYTES:
        return path
    return Path(tempfile.mkdtemp(prefix="loopspec-", dir="/tmp")) / path.name


class Control:
    """A Unix socket server: each connection is one blocked hook or tool."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.waiting: list[Waiting] = []
        self.lock = threading.Lock()
        self.activity = time.monotonic()
        self.closing = threading.Event()
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        self.server.listen(64)
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.closing.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with connection:
            received = b""
            while not received.endswith(b"\n"):
                chunk = connection.recv(65536)
                if not chunk:
                    return
                received += chunk
            request = tool_request_read(json.loads(received.decode("utf-8")))
            waiting = Waiting(str(request.get("kind")), request, time.time())
            with self.lock:
                self.waiting.append(waiting)
                self.activity = time.monotonic()
            while not waiting.answered.wait(0.1):
                if self.closing.is_set():
                    return
            with contextlib.suppress(OSError):
                connection.sendall(json.dumps(waiting.answer).encode("utf-8") + b"\n")
                self._until_closed(connection)
            waiting.ended.set()

    def _until_closed(self, connection: socket.socket) -> None:
        """Return once the process at the other end has ended (`control_client` holds its
        connection until then), or the control socket closes."""
        connection.settimeout(0.1)
        while not self.closing.is_set():
            try:
                if not connection.recv(1):
                    return
            except TimeoutError:
                continue

    def release(self, waiting: Waiting, answer: dict[str, Any]) -> None:
        """Let a waiting process go with `answer`."""
        waiting.answer = answer
        waiting.answered.set()
        with self.lock:
            self.activity = time.monotonic()

    def close(self) -> None:
        """Release everything (the processes see a closed socket) and stop."""
        self.closing.set()
        with contextlib.suppress(OSError):
            self.server.close()


# ---------------------------------------------------------------------------------------------
# One session (one `reset`).


def hook_input_encoder(
    harness: Harness, config: LoopConfig, bin_dir: Path, call_id: str, name: str
) -> Callable[[JsonValue], object]:
    """How a PreToolUse hook hands the CLI an input it supplied for call `call_id` of tool
    `name`: wrapped in the shell command that runs the tool's program with it (every tool is
    the CLI's shell tool), but an input the tool cannot take (HOOK-6) nor the shell (no object
    with a string `command`, or no object at all) handed as it is: wrapped, each CLI ran it,
    where it is refused (Codex; Claude Code an object) or ignored (Claude Code, no object: the
    model's input runs) as a hook's own output is."""
    program = call_program(harness, config, name, bin_dir)

    def encode(updated: JsonValue) -> object:
        if handed_as_is(config, name, updated):
            return thaw(updated)
        return {"command": tool_command(program, call_id, name, dumps(updated))}

    return encode


def handed_as_is(config: LoopConfig, name: str, updated: JsonValue) -> bool:
    """Whether a hook's input for a call of tool `name` reaches the CLI as it is
    (`hook_input_encoder`): one the tool cannot take (HOOK-6) nor the CLI's shell tool (no
    object with a string `command`)."""
    tool = config.tool(name)
    shell_takes = isinstance(updated, FrozenMap) and isinstance(updated.get("command"), str)
    return tool is not None and tool.input_problem(updated) is not None and not shell_takes


def _hook_output(verdict: Pass | Allow | Ask | Deny, encode: Any) -> dict[str, Any]:
    """What a hook process prints for a verdict (Claude Code's PreToolUse JSON, which Codex
    reads too): nothing for pass, a decision with the replacing input or the reason."""
    match verdict:
        case Pass():
            return {"stdout": "", "exitCode": 0}
        case (
            Allow(updated_input=updated, reason=reason) | Ask(updated_input=updated, reason=reason)
        ):
            specific: dict[str, Any] = {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
            }
            if reason is not None:
                specific["permissionDecisionReason"] = reason
            if updated is not None:
                specific["updatedInput"] = encode(updated)
            return {"stdout": json.dumps({"hookSpecificOutput": specific}), "exitCode": 0}
        case Deny(reason=reason):
            specific = {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
            return {"stdout": json.dumps({"hookSpecificOutput": specific}), "exitCode": 0}


def _post_hook_output(verdict: PostVerdict, event: str) -> dict[str, Any]:
    """What a PostToolUse hook process prints for a verdict (`event` is the hook event the CLI
    ran it for: Claude Code runs PostToolUseFailure after a failed command): nothing for pass,
    the context as `additionalContext`, a block as `decision: block` with its reason."""
    match verdict:
        case PostPass():
            return {"stdout": "", "exitCode": 0}
        case PostContext(text=text):
            specific = {"hookEventName": event, "additionalContext": text}
            return {"stdout": json.dumps({"hookSpecificOutput": specific}), "exitCode": 0}
        case PostBlock(reason=reason):
            return {"stdout": json.dumps({"decision": "block", "reason": reason}), "exitCode": 0}
        case _:
            assert_never(verdict)


def _point_of(waiting: Waiting) -> str:
    """The model's hook point of a hook's ask: PostToolUse for Claude Code's PostToolUseFailure
    too (the model's PostToolUse hooks judge failed results as well)."""
    seen = waiting.request.get("stdin")
    event = seen.get("hook_event_name") if isinstance(seen, dict) else None
    return POST_TOOL_USE if event in (POST_TOOL_USE, POST_FAILURE) else PRE_TOOL_USE


def _verdict_decision(verdict: Pass | Allow | Ask | Deny) -> str:
    match verdict:
        case Pass():
            return "pass"
        case Allow() | Ask():
            return "allow"
        case Deny():
            return "deny"


class RefusedByRule(Exception):
    """A command the adapter refuses, as the model does, with the model's rule (not MODEL-1)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


class Session:
    """A fresh CLI session: its HOME, mock model, control socket, and what was observed."""

    def __init__(self, harness: Harness, config: LoopConfig) -> None:
        self.harness = harness
        self.config = config
        self.root = Path(tempfile.mkdtemp(prefix=f"loopspec-conform-{harness.value}-"))
        self.process: subprocess.Popen[bytes] | None = None
        self.control_folder: Path | None = None  # the socket's own folder in /tmp, if any
        LIVE_SESSIONS.add(self)  # from here on, a signal's end removes what it made
        self.home, self.work, self.bin = self.root / "home", self.root / "work", self.root / "bin"
        for folder in (self.home / "tmp", self.work, self.bin):
            folder.mkdir(parents=True)
        socket_path = control_socket_path(self.root)
        if not socket_path.is_relative_to(self.root):
            self.control_folder = socket_path.parent
        self.control = Control(socket_path)
        self.mock = PendingMock(harness)
        self.mock.program_of = lambda name: call_program(harness, config, name, self.bin)
        self._write_programs()
        self.argv, self.env = self._setup()
        self.shadow = ModelTarget()
        self.shadow.reset(config)
        self.turns_started = 0
        self.started_at = 0.0  # when the current CLI process started (time.time())
        # What has been turned into events so far.
        self.seen_log_items: dict[Path, int] = {}
        self.seen_items: set[str] = set()
        self.seen_requests = 0
        self.exit_reported = True
        self.events: list[dict[str, Any]] = []
        self.turn = 0
        self.step = 0
        self.requests_in_turn = 0
        self.last_request_replies = -1
        self.turn_opened = False  # the current process's log recorded the prompt
        self.turn_aborted = False  # the current process's log recorded an interrupt
        self.interrupted = False  # the adapter interrupted the current process (an Abort)
        self.refused: str | None = None  # why the last process started no turn
        self.call_seqs: dict[str, int] = {}
        # Answers waiting for their hook: (call id, handler id) -> verdict.
        self.answers: dict[tuple[str, str], Pass | Allow | Ask | Deny] = {}
        self.answered_tools: dict[str, str] = {}  # the tool of each call `answers` names
        self.post_answers: dict[tuple[str, str], PostVerdict] = {}
        self.hook_records: list[HookAnswered] = []
        self.released_calls: set[str] = set()
        # What its model requests carried (capability "history"), and the contexts its
        # PostToolUse hooks gave, which Codex sends as developer messages.
        self.history = RequestHistory(harness)
        self.hook_contexts: set[str] = set()

    # -- setup -----------------------------------------------------------------------------------

    def _write_programs(self) -> None:
        client = Path(control_client.__file__).resolve()
        sock = self.control.path
        for program, kind in (
            (TOOL_PROGRAM, "tool"),
            (SAFE_TOOL_PROGRAM, "tool"),
            (HOOK_PROGRAM, "hook"),
        ):
            path = self.bin / program
            path.write_text(
                "#!/bin/sh\nexec "
                + shlex.join([sys.executable, str(client), kind, str(sock)])
                + ' "$@"\n',
                encoding="utf-8",
            )
            path.chmod(0o755)

    def _setup(self) -> tuple[list[str], dict[str, str]]:
        request = SessionRequest(
            self.harness, HarnessScript("", ()), None, default_adapter_dir(self.harness)
        )
        audit = self.root / "audit"
        audit.mkdir()
        hooks = {
            event: [{"matcher": "Bash", "hooks": handlers}]
            for event, handlers in self._hook_handlers().items()
            if handlers
        }
        argv, env = cli_setup(request, self.home, self.work, audit, self.mock.port)
        match self.harness:
            case Harness.CLAUDE_CODE:
                env["CLAUDE_CODE_MAX_RETRIES"] = "0"  # a failed model request ends the turn
                # Safe calls run `tac` from here; they run together (the cap is not honoured).
                env["PATH"] = f"{self.bin}{os.pathsep}{env['PATH']}"
                env["CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY"] = str(self.config.max_parallel)
                settings = self.home / ".claude" / "settings.json"
                settings.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
            case Harness.CODEX:
                hooks_file = self.work / ".codex" / "hooks.json"
                hooks_file.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
        return list(argv), dict(env)

    def _hook_handlers(self) -> dict[str, list[dict[str, str]]]:
        """The hook commands of each CLI hook event: every hook of the configuration asks this
        adapter. A PostToolUse hook judges failed results too, which Claude Code hands to
        PostToolUseFailure hooks (Codex runs PostToolUse for every command)."""

        def handlers(point: str) -> list[dict[str, str]]:
            program = str(self.bin / HOOK_PROGRAM)
            return [
                {"type": "command", "command": shlex.join([program, h.handler_id])}
                for h in self.config.hooks
                if h.point == point
            ]

        events = {PRE_TOOL_USE: handlers(PRE_TOOL_USE), POST_TOOL_USE: handlers(POST_TOOL_USE)}
        if self.harness == Harness.CLAUDE_CODE:
            events[POST_FAILURE] = handlers(POST_TOOL_USE)
        return events

    def close(self) -> None:
        """End the CLI and everything it started; remove the session's files."""
        self.control.close()
        self.mock.close()
        self.remove_leftovers()

    def remove_leftovers(self) -> None:
        """Kill the CLI's process group (its hooks and tools) and remove the session's folders:
        what would outlive the driver (SAFE-3). The only part of closing safe in a signal
        handler, where the servers' threads may hold the locks a clean close takes."""
        LIVE_SESSIONS.discard(self)
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        shutil.rmtree(self.root, ignore_errors=True)
        if self.control_folder is not None:
            shutil.rmtree(self.control_folder, ignore_errors=True)

    # -- commands --------------------------------------------------------------------------------

    def _not_running(self, call_id: str) -> str:
        """The refusal of an outcome for call `call_id`, which runs in no tool of the CLI's: the
        model's EXE-4 where its step has no such call running either (one settled already, or
        never started), raised as the model words it; else MODEL-1's words (the CLI is behind
        the model, a divergence the comparison shows)."""
        state = self.shadow.state
        phase = state.phase if state is not None else None
        if isinstance(phase, Dispatching) and not any(
            slot.call_id == call_id and slot.status == RUNNING for slot in phase.slots
        ):
            raise RefusedByRule("EXE-4", f"no running call {call_id!r} in this step")
        return f"no tool of call {call_id} is running"

    def apply(self, command: Command) -> dict[str, Any]:
        """Play one command; the observed answer (without seq)."""
        before = len(self.events)
        executed_before = self._executed_count()
        try:
            refusal = self._play(command)
        except RefusedByRule as refused:
            return {"accepted": False, "refusal": {"rule": refused.rule, "message": str(refused)}}
        if refusal is not None:
            return {"accepted": False, "refusal": {"rule": "MODEL-1", "message": refusal}}
        self._settle()
        if isinstance(command, SubmitUser) and self.refused is not None:
            message = f"the CLI started no turn: {self.refused}"
            self.refused = None
            return {"accepted": False, "refusal": {"rule": "TURN-1", "message": message}}
        self.shadow.apply(command)
        events = self.events[before:]
        # The calls that started in this command, in the order of the reply's calls: the
        # adapter sees a start when the tool process connects, and which of several processes
        # started together connects first is a race between them, not the CLI's order.
        started = self._executed()[executed_before:]
        executed = sorted(started, key=lambda x: self.call_seqs.get(x[0], len(self.events)))
        return {
            "accepted": True,
            "events": events,
            "commits": [1] * len(events),
            "executed": [{"callId": c, "arguments": a} for c, a in executed],
            "history": self.history.change(self.events, self.hook_contexts),
        }

    def _play(self, command: Command) -> str | None:
        """Do what the command asks of the real loop; a refusal's message when it cannot."""
        match command:
            case SubmitUser(text=text):
                if self.process is not None and self.process.poll() is None:
                    return "the CLI's turn is still running (queued input is not driven)"
                self._start_turn(text)
            case ModelReplies() | ModelFails():
                pending = self._wait_for(self.mock.pending)
                if pending is None:
                    return "the CLI has no model request pending"
                pending.answer = command
                pending.answered.set()
            case HookAnswers(verdict=verdict):
                phase = self.shadow.state.phase if self.shadow.state else None
                if not isinstance(phase, Rewriting):
                    return "no PreToolUse hook is waiting for an answer"
                head = phase.queue[0]
                call = phase.reply.tool_calls[head.call_index]
                self.answers[(call.id, head.hook.handler_id)] = verdict
                self.answered_tools[call.id] = call.name
            case ToolFinishes(call_id=call_id, outcome=outcome):
                if any(w.request.get("call") == call_id for w in self._tools()):
                    running = self._running_tool(call_id)
                else:  # not started yet: the CLI may still be getting there
                    running = self._wait_for(lambda: self._running_tool(call_id))
                if running is None:
                    return self._not_running(call_id)
                # The call's PostToolUse hooks get these verdicts when they ask: one each.
                name = str(running.request.get("name"))
                hooks = self.config.hooks_for(POST_TOOL_USE, name)
                if len(command.post) != len(hooks):
                    given = (
                        f"{len(hooks)} PostToolUse hook(s) match, {len(command.post)} verdict(s)"
                    )
                    raise RefusedByRule("HOOK-5", f"{given} given")
                match outcome:
                    case ToolSucceeded(text=text):
                        answer = {"stdout": text, "exitCode": 0}
                    case ToolFailed(message=message):
                        answer = {"stderr": message, "exitCode": 1}
                for hook, post in zip(hooks, command.post, strict=True):
                    self.post_answers[(call_id, hook.handler_id)] = post
                self.control.release(running, answer)
            case Abort():
                if self.process is None or self.process.poll() is not None:
                    return "no turn of the CLI is running"
                self._interrupt()
            case ApprovalAnswers() | Crash() | Recover():
                return f"{command.NAME} is not driven on a real CLI (capability not declared)"
            case _:
                assert_never(command)
        return None

    def _interrupt(self) -> None:
        """Ctrl-C: SIGINT to the CLI's process group, then wait for it to end (killed after
        ABORT_GRACE). What it killed no longer waits on the program."""
        assert self.process is not None
        self.interrupted = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGINT)
        try:
            self.process.wait(timeout=ABORT_GRACE)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self._abandon_waits()

    def _abandon_waits(self) -> None:
        """Mark the hooks, tools and model requests of an ended CLI process as answered: no
        command can release them any more (a later ToolFinishes for one is refused)."""
        for waiting in [*self._tools(), *self._hooks()]:
            waiting.answered.set()
        with self.mock.lock:
            for request in self.mock.requests:
                request.answered.set()

    def _wait_for(self, probe: Any, limit: float = 5.0) -> Any:
        """`probe()` once it is not None (the CLI may still be getting there), or None."""
        deadline = time.monotonic() + limit
        while True:
            self._drive_hooks()
            found = probe()
            if found is not None or time.monotonic() > deadline:
                return found
            if self.process is not None and self.process.poll() is not None:
                return probe()
            time.sleep(POLL)

    def _session_id(self) -> str | None:
        """The id of the CLI's session, as its first log file names it (Codex:
        `rollout-<time>-<id>.jsonl`), or None (`--last` then finds it)."""
        if self.harness != Harness.CODEX:
            return None
        paths = self._log_paths()
        found = (
            re.search(r"-([0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})\.jsonl$", paths[0].name)
            if paths
            else None
        )
        return found.group(1) if found else None

    def _start_turn(self, text: str) -> None:
        first = self.turns_started == 0
        argv = turn_argv(self.harness, self.argv, text, first=first, session=self._session_id())
        self.turns_started += 1
        self.mock.process = self.turns_started
        self.started_at = time.time()
        out = open(self.root / f"turn-{self.turns_started}.out", "wb")  # noqa: SIM115
        err = open(self.root / f"turn-{self.turns_started}.err", "wb")  # noqa: SIM115
        # The SIGINT of an abort (`_interrupt`) reaches the CLI however the adapter was started.
        children_start_with_default_interrupts()
        with out, err:
            self.process = subprocess.Popen(
                argv,
                cwd=self.work,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        self.exit_reported = False
        self.turn_opened = False
        self.turn_aborted = False
        self.interrupted = False

    # -- hooks and tools -------------------------------------------------------------------------

    def _tools(self) -> list[Waiting]:
        with self.control.lock:
            return [w for w in self.control.waiting if w.kind == "tool"]

    def _hooks(self) -> list[Waiting]:
        with self.control.lock:
            return [w for w in self.control.waiting if w.kind == "hook"]

    def _running_tool(self, call_id: str) -> Waiting | None:
        for waiting in self._tools():
            if waiting.request.get("call") == call_id and not waiting.answered.is_set():
                return waiting
        return None

    def _executed(self) -> list[tuple[str, str]]:
        return [(str(w.request["call"]), str(w.request["arguments"])) for w in self._tools()]

    def _executed_count(self) -> int:
        return len(self._tools())

    def _hook_call(self, waiting: Waiting) -> tuple[str, str | None]:
        """(call id, tool name the call names) of a hook's ask."""
        seen = waiting.request.get("stdin")
        seen = seen if isinstance(seen, dict) else {}
        decoded = decoded_call(shell_command_of(seen.get("tool_input")))
        return str(seen.get("tool_use_id")), decoded[0] if decoded else None

    def _spec(self, handler: str) -> HookSpec | None:
        return next((h for h in self.config.hooks if h.handler_id == handler), None)

    def _drive_hooks(self) -> None:
        """Answer hooks the model's configuration does not match at once (the CLI matched only
        its shell tool); release a call's hooks once each has its answer, last configured
        first."""
        by_call: dict[str, list[Waiting]] = {}
        after_call: dict[str, list[Waiting]] = {}
        for waiting in self._hooks():
            if waiting.answered.is_set():
                continue
            call_id, name = self._hook_call(waiting)
            point = _point_of(waiting)
            spec = self._spec(str(waiting.request.get("handler")))
            if spec is None or name is None or spec.point != point or not spec.matches(name):
                # Not a hook of this call in the configuration: it ran, and said nothing.
                self.control.release(waiting, {"stdout": "", "exitCode": 0})
                continue
            if point == POST_TOOL_USE and not self._started(call_id):
                # A body that never ran gets no PostToolUse hook in the model (HOOK-5): this
                # one is reported as it ran, and says nothing.
                self._record_hook(waiting, call_id, "pass", (None, None), POST_TOOL_USE)
                self.control.release(waiting, {"stdout": "", "exitCode": 0})
            elif point == POST_TOOL_USE:
                after_call.setdefault(call_id, []).append(waiting)
            else:
                by_call.setdefault(call_id, []).append(waiting)
        for call_id, waiting_hooks in after_call.items():
            self._release_post_hooks(call_id, waiting_hooks)
        order = [h.handler_id for h in self.config.hooks]
        for call_id, waiting_hooks in by_call.items():
            name = self._hook_call(waiting_hooks[0])[1] or ""
            expected = [h.handler_id for h in self.config.hooks_for(PRE_TOOL_USE, name)]
            asked = [str(w.request.get("handler")) for w in waiting_hooks]
            if sorted(asked) != sorted(expected):
                continue
            if not all((call_id, handler) in self.answers for handler in asked):
                continue
            encode = self._encoder(call_id, name)
            for waiting in sorted(waiting_hooks, key=lambda w: -order.index(w.request["handler"])):
                handler = str(waiting.request["handler"])
                verdict = self.answers[(call_id, handler)]
                updated = verdict.updated_input if isinstance(verdict, Allow | Ask) else None
                reason = verdict.reason if isinstance(verdict, Deny | Allow | Ask) else None
                decision = _verdict_decision(verdict)
                self._record_hook(waiting, call_id, decision, (updated, reason), PRE_TOOL_USE)
                self.control.release(waiting, _hook_output(verdict, encode))
                # The next one only once this one has ended: after a fixed gap, a hook process
                # starved of CPU (two suites on two cores) could end after the next, and the CLI
                # applied the other rewrite (the HOOK-3 case then showed no HOOK-3).
                waiting.ended.wait(HOOK_END_LIMIT)
                time.sleep(HOOK_RELEASE_GAP)

    def _started(self, call_id: str) -> bool:
        return any(w.request.get("call") == call_id for w in self._tools())

    def _record_hook(
        self, waiting: Waiting, call_id: str, decision: str, said: tuple[Any, Any], point: str
    ) -> None:
        """Audit one hook invocation as answered now; `said` is (input supplied, reason)."""
        handler = str(waiting.request.get("handler"))
        updated, reason = said
        answered = HookAnswered(
            time.time(), handler, call_id, decision, updated, reason, waiting.at, point
        )
        self.hook_records.append(answered)

    def _release_post_hooks(self, call_id: str, waiting_hooks: list[Waiting]) -> None:
        """Answer a call's PostToolUse hooks with the verdicts its ToolFinishes gave, once every
        one of them has asked, in configured order (the model audits them so)."""
        name = self._hook_call(waiting_hooks[0])[1] or ""
        expected = [h.handler_id for h in self.config.hooks_for(POST_TOOL_USE, name)]
        asked = {str(w.request.get("handler")): w for w in waiting_hooks}
        if sorted(asked) != sorted(expected):
            return
        if not all((call_id, handler) in self.post_answers for handler in expected):
            return
        for handler in expected:
            waiting = asked[handler]
            verdict = self.post_answers[(call_id, handler)]
            reason = verdict.reason if isinstance(verdict, PostBlock) else None
            if isinstance(verdict, PostContext):
                self.hook_contexts.add(verdict.text)
            self._record_hook(waiting, call_id, verdict.TAG, (None, reason), POST_TOOL_USE)
            event = str(waiting.request["stdin"].get("hook_event_name") or POST_TOOL_USE)
            self.control.release(waiting, _post_hook_output(verdict, event))

    def _encoder(self, call_id: str, name: str) -> Any:
        return hook_input_encoder(self.harness, self.config, self.bin, call_id, name)

    # -- settling and events ---------------------------------------------------------------------

    def _blocked(self) -> bool:
        """Whether the CLI waits on the program (or has ended)."""
        if self.process is None or self.process.poll() is not None:
            return True
        if self.mock.pending() is not None:
            return True
        if any(not w.answered.is_set() for w in self._tools()):
            return True
        return any(not w.answered.is_set() for w in self._hooks())

    def _settle(self) -> None:
        """Wait until the CLI waits on the program (or ended), its log holds what it did, and
        nothing new came for QUIET seconds, however long that takes.

        conform's answer timeout bounds the wait and says so. The adapter answered anyway after
        30 s: under a longer `--answer-timeout`, a CLI that slow was reported half way through
        the command, blamed on the rule of what was missing. After WAIT_NOTE seconds stderr says
        what is awaited, which the report of a timeout shows."""
        started = time.monotonic()
        last_size = -1
        quiet_since = started
        noted: set[str] = set()
        while True:
            self._drive_hooks()
            size = self._log_size()
            activity = max(self.mock.activity, self.control.activity)
            awaited = "the CLI to wait on the program or end"
            if size != last_size or activity > quiet_since:
                last_size = size
                quiet_since = time.monotonic()
            elif self._blocked():
                lag = self._log_lag() if time.monotonic() - quiet_since >= QUIET else ""
                if lag is None:
                    break
                awaited = f"its log to hold {lag}" if lag else "a quiet moment"
            waited = time.monotonic() - started
            if waited >= WAIT_NOTE and awaited not in noted:
                noted.add(awaited)
                sys.stderr.write(f"conform_driver: waiting for {awaited} ({waited:.0f} s so far)\n")
                sys.stderr.flush()
            time.sleep(POLL)
        self._observe()

    def _log_lag(self) -> str | None:
        """What the running CLI did that its log does not hold yet (`log_lacks`), or None.

        A CLI writes its log after it acts: Claude Code 2.1.332 sends a turn's first model
        request before its transcript holds the prompt. A CLI starved of CPU right then (two
        test suites on two cores) was observed waiting on the model with no prompt logged: the
        command reported no turn/start, blamed on TURN-1, and the prompt came with the next.
        Its transcript writer appends what it queued every 100 ms, so a result and its
        PostToolUse context's attachment, which follows it, may land in two appends (not seen
        in 10 starved runs, each one append): settled between them, the result would be
        reported without the context the request carries inside it, and the context, folded
        later into a result already reported, lost."""
        if self.process is None or self.process.poll() is not None:
            return None  # an ended CLI has written all it will
        items = [item for path in self._log_paths() for item in self._log_items(path)]
        tools = self._tools()
        carried: set[str] = set()
        contexts: dict[str, int] = {}
        pending = self.mock.pending()
        if pending is not None and pending.process == self.turns_started:
            # The results of the calls that ran in this process (an older one's are its log's).
            ran = {str(w.request.get("call")) for w in tools if w.at >= self.started_at}
            sent = sent_messages(self.harness, pending.body, self.hook_contexts)
            carried = {
                str(m["source"].get("callId")) for m in sent if m["source"]["kind"] == "tool"
            }
            carried &= ran
            contexts = _contexts_carried(sent)
        running = {str(w.request.get("call")) for w in tools if not w.answered.is_set()}
        hooks = self._hooks()
        hooked = {self._hook_call(w)[0] for w in hooks if not w.answered.is_set()}
        gated = self._gated(tools, hooks) - hooked
        # A call Codex denies, or refuses for a hook's input, gets its output in issue order, as
        # a released one does (a refused write beside a running grep waited out the timeout).
        denied = (
            gated & (self._denied() | self._refused()) if self.harness == Harness.CODEX else set()
        )
        return log_lacks(
            items,
            since=self.started_at,
            carried=carried,
            running=running | hooked,
            released=self._released(tools, hooked) + Counter(denied),
            gated=gated - denied,
            issue_order=self.harness == Harness.CODEX,
            contexts=contexts,
        )

    def _released(self, tools: list[Waiting], hooked: set[str]) -> Counter[str]:
        """How many tools of each call this CLI process ran that the program released, whose
        result its log must hold before a command is settled.

        Claude Code writes a result as its command ends, also while calls beside it still run
        (its ORD-3); Codex writes a reply's outputs in the order of its calls, each once those
        before it have theirs (`log_lacks`' `issue_order`). Settled on a quiet moment before a
        CPU-starved CLI had written it, the result of a call released while another ran came
        with the next command, ahead of that one's, and the ORD-3 case was blamed on ORD-3 out
        of order (about one run in six in a loaded suite). A call whose PostToolUse hook still
        asks has no result yet; the hook's release makes it awaited."""
        return Counter(
            call
            for w in tools
            if w.at >= self.started_at and w.answered.is_set()
            for call in [str(w.request.get("call"))]
            if call not in hooked
        )

    def _denied(self) -> set[str]:
        """The calls a PreToolUse hook's answer denied."""
        return {call for (call, _), verdict in self.answers.items() if isinstance(verdict, Deny)}

    def _refused(self) -> set[str]:
        """The calls a PreToolUse hook's answer supplied an input the CLI is handed as it is,
        which Codex refuses (unless another hook's input, finishing last, starts its tool)."""
        return {
            call
            for (call, _), verdict in self.answers.items()
            if isinstance(verdict, Allow | Ask)
            and verdict.updated_input is not None
            and handed_as_is(self.config, self.answered_tools.get(call, ""), verdict.updated_input)
        }

    def _gated(self, tools: list[Waiting], hooks: list[Waiting]) -> set[str]:
        """The calls of this CLI process whose PreToolUse hooks the program answered and whose
        tool has not started: the CLI starts it, or records why it will not.

        Settled on a quiet moment before a CPU-starved CLI had done either, the call's start,
        or its denial's result, came with the next command (a `HookAnswers` for the read beside
        it), where the model has the call start with its own hooks' answers."""
        started = {str(w.request.get("call")) for w in tools if w.at >= self.started_at}
        gated = {
            self._hook_call(w)[0]
            for w in hooks
            if w.at >= self.started_at and w.answered.is_set() and _point_of(w) == PRE_TOOL_USE
        }
        return gated - started

    def _log_items(self, path: Path) -> list[LogItem]:
        text = path.read_text(encoding="utf-8", errors="replace")
        if self.harness == Harness.CLAUDE_CODE:
            return claude_log_items(text)
        return codex_log_items(text)

    def _log_paths(self) -> list[Path]:
        """The session's log files, oldest first."""
        match self.harness:
            case Harness.CLAUDE_CODE:
                found = list((self.home / ".claude" / "projects").glob("*/*.jsonl"))
            case Harness.CODEX:
                found = list((self.home / ".codex" / "sessions").glob("**/rollout-*.jsonl"))
        return sorted(found, key=lambda p: p.stat().st_mtime_ns)

    def _log_size(self) -> int:
        return sum(path.stat().st_size for path in self._log_paths())

    def _observe(self) -> None:
        """Turn what happened since the last command into events, in time order."""
        observed: list[Observed] = []
        # A resumed session may go on in a new log file (Codex after a failed turn starts a
        # new session): read every file, oldest first, each record once.
        for path in self._log_paths():
            items = self._log_items(path)
            for item in items[self.seen_log_items.get(path, 0) :]:
                key = repr(item)
                if key not in self.seen_items:
                    self.seen_items.add(key)
                    observed.append(item)
            self.seen_log_items[path] = len(items)
        with self.mock.lock:
            requests = list(self.mock.requests)
        observed.extend(ModelAsked(r.at, r.replies, r.body) for r in requests[self.seen_requests :])
        self.seen_requests = len(requests)
        observed.extend(self.hook_records)
        self.hook_records = []
        if not self.exit_reported and self.process is not None and self.process.poll() is not None:
            self.exit_reported = True
            if not self.turn_aborted and not any(isinstance(o, TurnAborted) for o in observed):
                observed.extend(self._interrupt_in_output())
            observed.append(Exited(time.time(), self.process.returncode, self._failure()))
        observed.sort(key=lambda o: o.at)
        for seen in observed:
            self._events_of(seen)

    def _interrupt_in_output(self) -> list[LogItem]:
        """The interrupt of a Claude Code process the adapter interrupted, as its output (its
        stream-json, the transcript's records) says it, when its transcript does not: Claude
        Code prints it at once and leaves its transcript's copy to a pool thread, and its exit
        on SIGINT does not wait for that thread. On a loaded machine it exited before its
        transcript held the interrupt (1 of 25 aborts under load 18; every time with its pool
        threads held), and the turn was reported completed, blamed on ABORT-2."""
        if self.harness != Harness.CLAUDE_CODE or not self.interrupted:
            return []
        out = self.root / f"turn-{self.turns_started}.out"
        text = out.read_text(encoding="utf-8", errors="replace") if out.exists() else ""
        return [i for i in claude_log_items(text) if isinstance(i, AbortNotice | TurnAborted)]

    def _note_unrecorded_interrupt(self) -> None:
        """A CLI interrupted while it waited on the program (its model request, a tool, a hook)
        ended at once, as it does, but neither its log nor its output held the
        interrupt. Claude Code on SIGINT starts its exit at once and does not wait for
        what records the interrupt: interrupted while its model request is pending, it
        writes the interrupt once its HTTP client thread has reported the cancelled
        request, and a loaded machine keeping that thread from the CPU for about 100 ms
        has it exit 0 having written the interrupt nowhere (once in some 30 aborts under
        load; every time with the thread held); interrupted while a call runs, it
        answers the call once its file pool threads have done their part, and with them
        held it exits 0 having written neither that answer nor the interrupt. Nothing
        answered its request or released its tool or hook, so its turn cannot have
        completed: the interrupt ended it, reported aborted (the user's Ctrl-C) without
        a notice or result the CLI did not write, where it was reported completed and
        blamed on ABORT-2 or ADJ-3. Stderr says so."""
        sys.stderr.write(
            "conform_driver: the CLI, interrupted while it waited on the program, exited 0"
            " recording no interrupt; its turn is reported aborted\n"
        )
        sys.stderr.flush()

    def _failure(self) -> str:
        """The last line the failed turn printed (its error), or ''."""
        out = self.root / f"turn-{self.turns_started}.out"
        err = self.root / f"turn-{self.turns_started}.err"
        lines = []
        for path in (out, err):
            with contextlib.suppress(OSError):
                lines += path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        return lines[-1][:500] if lines else ""

    def _emit(self, kind: str, data: dict[str, Any], **extra: Any) -> int:
        seq = len(self.events)
        self.events.append(
            {"type": kind, "seq": seq, "time": int(time.time() * 1000), "data": data, **extra}
        )
        return seq

    def _events_of(self, item: Observed) -> None:
        match item:
            case Prompt(text=text):
                self.turn_opened = True
                self.turn += 1
                self.step = 1
                self.requests_in_turn = 0
                self._emit("turn/start", {"turn": self.turn})
                self._emit("step/start", {"turn": self.turn, "step": self.step})
                message = {
                    "role": "user",
                    "content": [{"type": "text", "text": text}],
                    "source": {"kind": "user"},
                    "id": f"u{len(self.events)}",
                }
                self._emit("user/message", message, surfaceOp="append")
            case ModelAsked(replies=replies, body=body):
                self.history.asked(body)
                retry = replies == self.last_request_replies
                self.last_request_replies = replies
                self.requests_in_turn += 1
                if self.requests_in_turn > 1 and not retry:
                    self._emit("step/end", {"turn": self.turn, "step": self.step})
                    self.step += 1
                    self._emit("step/start", {"turn": self.turn, "step": self.step})
            case Reply(blocks=blocks, model=model):
                self._reply_events(blocks, model)
            case HookAnswered(handler=handler, call_id=call_id, decision=decision):
                # One audit record per invocation, written when the hook finished (hooks of
                # one call, and in Codex of every call of a reply, run at the same time).
                invoked = {
                    "turn": self.turn,
                    "point": item.point,
                    "dialect": "claude-code",  # the hook protocol both CLIs speak
                    "handlerId": handler,
                    "matcher": "Bash",  # the CLI's matcher: every call is a shell call
                    "callId": call_id,
                }
                self._emit("hook/invoked", invoked)
                result: dict[str, Any] = {
                    "turn": self.turn,
                    "point": item.point,
                    "handlerId": handler,
                    "decision": decision,
                    "durationMs": round((item.at - item.asked_at) * 1000, 1),
                    "callId": call_id,
                }
                if item.updated_input is not None:
                    result["updatedInput"] = thaw(item.updated_input)
                if item.reason is not None:
                    result["reason"] = item.reason
                self._emit("hook/result", result)
            case Result(call_id=call_id, text=text, is_error=is_error, reminders=reminders):
                message = {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool-result",
                            "toolCallId": call_id,
                            "content": [
                                {"type": "text", "text": part} for part in (text, *reminders)
                            ],
                            "isError": is_error,
                        }
                    ],
                    "source": {"kind": "tool", "callId": call_id},
                    "id": f"r{len(self.events)}",
                }
                cites = [self.call_seqs[call_id]] if call_id in self.call_seqs else []
                self._emit(
                    "tool/result",
                    {"turn": self.turn, "step": self.step, "message": message},
                    surfaceOp="append",
                    sourceEventSeqs=cites,
                )
            case HookContext(text=text):
                context = {
                    "role": "user",
                    "content": [{"type": "text", "text": text}],
                    "source": {"kind": "plugin", "plugin": "tool-context"},
                    "id": f"x{len(self.events)}",
                }
                self._emit("user/message", context, surfaceOp="append")
            case AbortNotice(text=text):
                notice = {
                    "role": "user",
                    "content": [{"type": "text", "text": text}],
                    "source": {"kind": "user"},  # the rollout's role: the user's, as it reads
                    "id": f"n{len(self.events)}",
                }
                self._emit("user/message", notice, surfaceOp="append")
            case TurnAborted():
                self.turn_aborted = True
            case Exited(code=code, message=failure):
                if not self.turn_opened:
                    self.refused = failure or f"exit {code}"
                    return
                self._emit("step/end", {"turn": self.turn, "step": self.step})
                reason: dict[str, Any] = {"kind": "completed"}
                if code == 0 and self.interrupted and not self.turn_aborted:
                    self._note_unrecorded_interrupt()
                if self.turn_aborted or (code == 0 and self.interrupted):
                    # The CLI's interrupt is Ctrl-C: the user's (it records no other cause).
                    reason = {"kind": "aborted", "reason": {"kind": "user"}}
                elif code != 0:
                    reason = {"kind": "error", "error": {"message": failure}}
                self._emit("turn/end", {"turn": self.turn, "reason": reason})
            case _:
                assert_never(item)

    def _reply_events(self, blocks: tuple[tuple[str, Any], ...], model: str) -> None:
        content: list[dict[str, Any]] = []
        calls: list[tuple[str, str, str]] = []
        for kind, payload in blocks:
            if kind == "call":
                call_id, tool_input = payload
                decoded = decoded_call(shell_command_of(tool_input))
                name, arguments = decoded if decoded else ("shell", json.dumps(tool_input))
                content.append(
                    {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}
                )
                calls.append((call_id, name, arguments))
            else:
                content.append({"type": kind, "text": payload})
        message = {
            "role": "assistant",
            "content": content,
            "source": {"kind": "model", "provider": self.harness.value, "model": model},
            "id": f"a{len(self.events)}",
        }
        self._emit(
            "assistant/message",
            {"turn": self.turn, "step": self.step, "message": message},
            surfaceOp="append",
        )
        for call_id, name, arguments in calls:
            self.call_seqs[call_id] = self._emit(
                "tool/call",
                {
                    "turn": self.turn,
                    "step": self.step,
                    "callId": call_id,
                    "name": name,
                    "arguments": arguments,
                },
            )


# ---------------------------------------------------------------------------------------------
# The protocol loop.

LIVE_SESSIONS: set[Session] = set()
"""Sessions whose CLI and folders are not removed yet: what a signal's end removes."""

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""conform ending a driver that missed its deadline, a CI job cancelled, Ctrl-C, a closed
terminal: each would end the driver on the spot (SIGINT, in a thread's wait, or not at all),
leaving the CLI, in a session of its own, running and the session's folders in TMPDIR."""


def end_cleanly_on_signals() -> None:
    """On each of `ENDING_SIGNALS`, remove what every live session made, then exit 128 + the
    signal's number, as a shell reports a program that signal ended."""

    def end(signum: int) -> NoReturn:
        for session in list(LIVE_SESSIONS):
            session.remove_leftovers()
        os._exit(128 + signum)

    # Promptly: the main thread spends its time blocked reading stdin, where a signal that lands
    # just before the read (or that a server thread takes) waited for the next line, which
    # conform, ending the driver, never sends; it killed the driver a second later instead.
    end_promptly(ENDING_SIGNALS, end)


def serve(harness: Harness, lines: Iterator[str], write: Any) -> int:
    """Answer each protocol line; 0 at shutdown or end of input."""
    session: Session | None = None
    try:
        for line in lines:
            if not line.strip():
                continue
            message = json.loads(line)
            kind = message.get("type")
            if kind == "reset":
                if message.get("protocol") != PROTOCOL_VERSION:
                    sys.stderr.write(
                        f"driver protocol {message.get('protocol')!r} is not supported "
                        f"(this adapter speaks {PROTOCOL_VERSION})\n"
                    )
                    return 2
                if session is not None:
                    session.close()
                config = config_from_json(message["config"])
                session = Session(harness, config)
                write(
                    {
                        "type": "ready",
                        "implementation": IMPLEMENTATIONS[harness],
                        "capabilities": list(CAPABILITIES),
                    }
                )
            elif kind == "command":
                assert session is not None, "command before reset"
                command = command_from_json(message["command"])
                write({"type": "observed", "seq": message["seq"], **session.apply(command)})
            elif kind == "shutdown":
                write({"type": "bye"})
                return 0
    finally:
        if session is not None:
            session.close()
    return 0


def main(argv: list[str]) -> int:
    """`python -m loopspec.properties.harnesses.conform_driver claude-code|codex`."""
    if len(argv) != 1 or argv[0] not in {h.value for h in Harness}:
        sys.stderr.write("usage: conform_driver claude-code|codex\n")
        return 2
    harness = Harness(argv[0])
    try:
        binary_of(harness, default_adapter_dir(harness))
    except HarnessError as error:
        # The status that makes loopspec say "not installed here" (no rule), not PROTO-1.
        sys.stderr.write(f"{error}\n")
        return CANNOT_RUN_HERE
    if os.environ.get(INSIDE) != "1" and network_namespace_works():
        # Again, inside a network namespace where only loopback exists.
        inner = ["unshare", "-n", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]
        inner += [sys.executable, "-m", "loopspec.properties.harnesses.conform_driver", argv[0]]
        os.execvpe(inner[0], inner, {**os.environ, INSIDE: "1"})

    end_cleanly_on_signals()

    def write(answer: Mapping[str, Any]) -> None:
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()

    return serve(harness, iter(sys.stdin.readline, ""), write)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
