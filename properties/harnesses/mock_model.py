"""A scripted model server on 127.0.0.1: streamed Anthropic Messages or OpenAI Responses.

Claude Code posts to `/v1/messages` and reads Anthropic server-sent events; Codex posts to
`/v1/responses` and reads OpenAI Responses events (both encoded by `model_stream`). Each request
gets the scripted reply whose index is the number of model replies its history already holds,
so a retried request gets the same answer as the first try (an assistant message Claude Code
wrote itself, text no reply of the script holds, is not one; the text Claude Code sends in
place of a reply it emptied, `[Tool use interrupted]` where every call reused an earlier
reply's call id, is). A history that stops growing would have the same reply asked for again
and again until the run's timeout: once one reply is asked for more than `MAX_ASKS` times the
mock answers that request, and every later one, with text that ends the turn, and keeps the
reply in `stuck`, so the run ends at once with an error naming it. Claude Code's `/compact`
replaces the history (`CompactionTracker`): its summary request gets the reply after the last one
served, and the requests after it the replies that follow, counted past its record of the
command. Every request body is kept: it is
the history the model saw. Anything else (another path, another method) is answered 404 and
recorded, so the report can show that the binary asked for nothing else.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs

from loopspec.properties.harnesses.cli_wire import CLAUDE_EMPTIED_REPLY
from loopspec.properties.harnesses.compaction import after_compaction, asks_for_a_summary
from loopspec.properties.harnesses.model_stream import reply_events, scripted_blocks
from loopspec.properties.harnesses.script import Harness, ScriptedReply, ScriptedText

EXHAUSTED_TEXT = "(the scenario has no more replies)"
STUCK_TEXT = "(the run is stopped: this reply was asked for too many times)"
# Requests one reply may get: a retry asks again (Claude Code retries a failed request up to
# 10 times), a resumed turn may ask for a reply its crash cut; more is a history not growing.
MAX_ASKS = 12


@attrs.frozen
class StuckReply:
    """A reply the harness kept asking for: its index in the script and the requests for it."""

    index: int
    asks: int


@attrs.frozen
class SeenRequest:
    """One request the mock received: method, path and the parsed JSON body (None if not)."""

    method: str
    path: str
    body: Any


def replies_in_anthropic_history(body: Any, served: frozenset[str] | None = None) -> int:
    """How many assistant messages an Anthropic Messages request already carries; given the
    texts the mock may have `served`, not those of text alone that it never served: the loop
    wrote them itself (Claude Code's `No response requested.` on resuming after an interrupt or
    a crash), and counted they made the next turn skip its scripted reply."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return 0
    return sum(
        1
        for m in messages
        if isinstance(m, dict)
        and m.get("role") == "assistant"
        and (served is None or not _invented(m.get("content"), served))
    )


def _invented(content: Any, served: frozenset[str]) -> bool:
    """Whether an assistant message's content is text alone, none of it text the mock served
    nor Claude Code's stand-in for a served reply whose calls it left out."""
    served = served | {CLAUDE_EMPTIED_REPLY}
    if isinstance(content, str):
        return content not in served
    if not isinstance(content, list) or not content:
        return False
    texts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return len(texts) == len(content) and not any(t in served for t in texts)


class CompactionTracker:
    """Which scripted reply a Claude Code request asks for once `/compact` replaced the history,
    which no longer counts the replies before it: the summary is the reply after the last one
    served (a retried summary request gets it again), and a request after the compaction gets
    the reply after the summary's, past the replies its history holds since the command."""

    def __init__(self) -> None:
        self.last_served = -1
        self.summary: int | None = None
        self._summarizing = False

    def index(self, body: Any, counted: Callable[[Any], int]) -> int:
        """The reply `body` asks for; `counted` counts the replies a history holds."""
        if asks_for_a_summary(body):
            if not self._summarizing:
                self.summary = self.last_served + 1
                self._summarizing = True
            assert self.summary is not None
            return self.summary
        self._summarizing = False
        since = after_compaction(body) if self.summary is not None else None
        if since is None or self.summary is None:
            return counted(body)
        return self.summary + 1 + counted(since)

    def served(self, index: int) -> None:
        """Note that reply `index` was served."""
        self.last_served = max(self.last_served, index)


def _is_model_item(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    kind = item.get("type")
    if kind in ("function_call", "reasoning", "custom_tool_call", "local_shell_call"):
        return True
    return kind == "message" and item.get("role") == "assistant"


def replies_in_responses_history(body: Any) -> int:
    """How many model replies an OpenAI Responses request's `input` already carries: runs of
    consecutive model items (assistant messages, calls, reasoning), each run one reply."""
    items = body.get("input") if isinstance(body, dict) else None
    if not isinstance(items, list):
        return 0
    runs, inside = 0, False
    for item in items:
        model = _is_model_item(item)
        if model and not inside:
            runs += 1
        inside = model
    return runs


def asks_the_model(harness: Harness, method: str, path: str) -> bool:
    """Whether a request the CLI sent asks the model for a reply: a POST to its endpoint."""
    match harness:
        case Harness.CLAUDE_CODE:
            endpoint = "/v1/messages"
        case Harness.CODEX:
            endpoint = "/v1/responses"
    return method == "POST" and path.partition("?")[0] == endpoint


class MockModel:
    """The server; `start()` binds 127.0.0.1 on a free port, `close()` stops it."""

    def __init__(self, harness: Harness, replies: Sequence[ScriptedReply]) -> None:
        self.harness = harness
        self.replies = tuple(replies)
        # Every text a reply of this mock may hold: an assistant message of other text alone
        # is one the loop wrote itself, no reply of the script.
        self._served = frozenset(
            [EXHAUSTED_TEXT, STUCK_TEXT]
            + [b.text for r in self.replies for b in r.blocks if isinstance(b, ScriptedText)]
        )
        self.requests: list[SeenRequest] = []
        self._asks: dict[int, int] = {}
        self.stuck: StuckReply | None = None
        self._compactions = CompactionTracker()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._server.server_address[1])

    def start(self) -> MockModel:
        """Serve in a background thread."""
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port."""
        self._server.shutdown()
        self._server.server_close()

    def model_requests(self) -> list[SeenRequest]:
        """The requests that asked the model for a reply, in arrival order."""
        with self._lock:
            return [r for r in self.requests if asks_the_model(self.harness, r.method, r.path)]

    def _record(self, request: SeenRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _stream(self, body: Any) -> Iterator[bytes]:
        match self.harness:
            case Harness.CLAUDE_CODE:
                with self._lock:
                    index = self._compactions.index(
                        body, lambda b: replies_in_anthropic_history(b, self._served)
                    )
                    self._compactions.served(index)
            case Harness.CODEX:
                index = replies_in_responses_history(body)
        blocks = scripted_blocks(self.harness, self._reply(index))
        return reply_events(self.harness, blocks, index, body)

    def _reply(self, index: int) -> ScriptedReply:
        with self._lock:
            asks = self._asks[index] = self._asks.get(index, 0) + 1
            if self.stuck is None and asks > MAX_ASKS:
                self.stuck = StuckReply(index, asks)
            if self.stuck is not None:
                return ScriptedReply((ScriptedText(STUCK_TEXT),))
        if index < len(self.replies):
            return self.replies[index]
        return ScriptedReply((ScriptedText(EXHAUSTED_TEXT),))

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the report lists the requests."""

            def do_GET(self) -> None:
                mock._record(SeenRequest("GET", self.path, None))
                self._not_found()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = None
                mock._record(SeenRequest("POST", self.path, body))
                if not asks_the_model(mock.harness, "POST", self.path):
                    self._not_found()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in mock._stream(body):
                    self.wfile.write(chunk)
                self.wfile.flush()
                self.close_connection = True

            def _not_found(self) -> None:
                payload = b'{"error": {"type": "not_found", "message": "mock model"}}'
                self.send_response(404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        return Handler
