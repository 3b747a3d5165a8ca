"""A small tool-call loop, written from docs/tutorial.md, that `loopspec conform` finds CONFORMANT.

It declares no optional capability, so loopspec drives it with configurations without hooks and
with one call running at a time: the user opens a turn, the model replies (with text, or with
tool calls whose bodies loopspec settles one by one), or the model request fails.

Run it:  loopspec conform --impl tutorial_loop:TutorialLoop   (from this folder)
"""

from __future__ import annotations

import json
import math
from typing import Any

from loopspec.model.commands import (
    Command,
    ModelFails,
    ModelReplies,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig
from loopspec.model.messages import ToolCallBlock
from loopspec.properties.conformance.target import Observation

Event = dict[str, Any]


class TutorialLoop:
    """One session of the loop, driven by loopspec's commands (a `ConformanceTarget`)."""

    name = "tutorial loop"

    def reset(self, config: LoopConfig) -> frozenset[str]:
        """Start a fresh session with an empty log; declare no optional capability."""
        self.config = config
        self.log: list[Event] = []
        self.phase = "idle"  # idle -> awaiting-model -> dispatching -> ...
        self.turn = self.step = 0
        self.calls: list[dict[str, Any]] = []  # the open batch, in model order
        self.inbox: list[str] = []  # tool contexts waiting for the next step/start
        return frozenset()

    # -- the log ------------------------------------------------------------------------------

    def _append(self, kind: str, data: dict[str, Any], **envelope: Any) -> int:
        seq = len(self.log)  # LOG-1: seq is the index
        self.log.append({"type": kind, "seq": seq, "time": seq, "data": data, **envelope})
        return seq

    def _message(self, role: str, content: list[Any], source: dict[str, Any]) -> dict[str, Any]:
        return {"role": role, "content": content, "source": source, "id": f"m{len(self.log)}"}

    def _user_message(self, text: str, source: dict[str, Any]) -> None:
        message = self._message("user", [{"type": "text", "text": text}], source)
        self._append("user/message", message, surfaceOp="append")

    def _open_step(self) -> None:
        self.step += 1
        self._append("step/start", {"turn": self.turn, "step": self.step})
        for text in self.inbox:  # ADJ-4: queued messages right after step/start, FIFO
            self._user_message(text, {"kind": "plugin", "plugin": "tool-context"})
        self.inbox = []

    def _end_turn(self, reason: dict[str, Any]) -> None:
        self._append("step/end", {"turn": self.turn, "step": self.step})
        self._append("turn/end", {"turn": self.turn, "reason": reason})
        self.phase = "idle"

    # -- commands -----------------------------------------------------------------------------

    def apply(self, command: Command) -> Observation:
        """Apply one command; report the events it appended and the bodies it started."""
        before = len(self.log)
        self.started: list[tuple[str, str]] = []  # bodies started by this command
        refusal = self._handle(command)
        if refusal is not None:  # MODEL-3: a refused command changes nothing
            del self.log[before:]
            return Observation(False, refusal_message=refusal)
        events = tuple(self.log[before:])
        return Observation(
            True,
            events=events,
            commits=(len(events),) if events else (),  # LOG-8: one commit per command
            executed=tuple(self.started),
        )

    def _handle(self, command: Command) -> str | None:
        match command:
            case SubmitUser() if self.phase == "idle":
                self.turn, self.step = self.turn + 1, 0
                self._append("turn/start", {"turn": self.turn})
                self._open_step()
                self._user_message(command.text, {"kind": "user"})
                self.phase = "awaiting-model"
            case ModelReplies() if self.phase == "awaiting-model":
                return self._reply(command)
            case ModelFails() if self.phase == "awaiting-model":
                failure = {"message": command.message, "code": command.code}
                self._end_turn({"kind": "error", "error": failure})
            case ToolFinishes() if self.phase == "dispatching":
                return self._finish(command)
            case _:
                return f"{command.NAME} is not accepted while {self.phase}"
        return None

    def _reply(self, reply: ModelReplies) -> str | None:
        ids = [call.id for call in reply.tool_calls]
        if len(ids) != len(set(ids)):
            return "tool call ids repeat within one reply"  # EXE-1
        content = [_block(block) for block in reply.blocks]
        source = {"kind": "model", "provider": self.config.provider, "model": self.config.model}
        message = self._message("assistant", content, source)
        self._append(
            "assistant/message",
            {"turn": self.turn, "step": self.step, "message": message},
            surfaceOp="append",
        )
        if not reply.tool_calls:
            self._end_turn({"kind": "completed"})  # STEP-4
            return None
        self.calls = []
        for call in reply.tool_calls:  # ORD-2: one tool/call per call, in model order
            data = {"turn": self.turn, "step": self.step, "callId": call.id, "name": call.name}
            seq = self._append("tool/call", {**data, "arguments": call.arguments})
            self.calls.append({"call": call, "seq": seq, "state": "waiting", "result": None})
        self.phase = "dispatching"
        self._advance()
        return None

    def _finish(self, finished: ToolFinishes) -> str | None:
        slot = next((s for s in self.calls if s["call"].id == finished.call_id), None)
        if slot is None or slot["state"] != "running":
            return f"call {finished.call_id} is not running"  # EXE-4
        outcome = finished.outcome
        match outcome:
            case ToolSucceeded():
                slot["result"] = ([outcome.text], False, None)
                slot["contexts"] = [text for text in outcome.contexts if text]  # "" is none
            case ToolFailed():
                error = None if outcome.code is None else (outcome.error_name, outcome.code)
                slot["result"] = ([f"Error: {outcome.message}"], True, error)
        slot["state"] = "ready"
        self._advance()
        return None

    # -- the batch: judge and start calls in model order, commit results in model order -------

    def _advance(self) -> None:
        for slot in self.calls:
            if slot["state"] == "running":
                break  # SCHED-1: one body at a time (no `parallel` capability)
            if slot["state"] == "waiting":
                self._start(slot)
                if slot["state"] == "running":
                    break
        while self.calls and self.calls[0]["state"] == "ready":  # ORD-3: model order
            self._commit(self.calls.pop(0))
        if not self.calls:
            self._append("step/end", {"turn": self.turn, "step": self.step})
            self._open_step()
            self.phase = "awaiting-model"

    def _start(self, slot: dict[str, Any]) -> None:
        call: ToolCallBlock = slot["call"]
        tool = next((t for t in self.config.tools if t.name == call.name), None)
        problem = _input_problem(call.arguments, tool.required_keys if tool else ())
        if problem is not None:  # EXE-5 (1): invalid input first, known tool or not
            text = f"Error: invalid input for tool {call.name}: {problem}"
            slot["result"] = ([text], True, ("InvalidToolInputError", "INVALID_TOOL_INPUT"))
        elif tool is None:  # EXE-5 (3): an unknown tool is found where its body would start
            text = f"Error: unknown tool {call.name}"
            slot["result"] = ([text], True, ("UnknownToolError", "UNKNOWN_TOOL"))
        else:
            self.started.append((call.id, call.arguments))
            slot["state"] = "running"
            return
        slot["state"] = "ready"

    def _commit(self, slot: dict[str, Any]) -> None:
        texts, is_error, error = slot["result"]
        block = {
            "type": "tool-result",
            "toolCallId": slot["call"].id,
            "content": [{"type": "text", "text": text} for text in texts],
            "isError": is_error,
        }
        message = self._message("user", [block], {"kind": "tool", "callId": slot["call"].id})
        data: dict[str, Any] = {"turn": self.turn, "step": self.step, "message": message}
        if error is not None:
            data["error"] = {"name": error[0], "code": error[1]}
        self._append("tool/result", data, surfaceOp="append", sourceEventSeqs=[slot["seq"]])
        self.inbox += slot.get("contexts", [])  # ADJ-4: queued as its result commits, in order

    def close(self) -> None:
        """Nothing to release."""


def _block(block: Any) -> dict[str, Any]:
    if isinstance(block, ToolCallBlock):
        call = {"id": block.id, "name": block.name, "arguments": block.arguments}
        return {"type": "tool-call", **call}
    return {"type": block.TYPE, "text": block.text}


def _input_problem(arguments: str, required: tuple[str, ...]) -> str | None:
    """EXE-2: blank means {}, invalid JSON stays the raw string, and so does JSON without a
    lossless value (NaN, 1e400, -0.0), which json.loads would read; then the input contract."""
    value: Any = {}
    if arguments.strip():
        try:
            value = json.loads(arguments, parse_float=_lossless, parse_constant=_lossless)
        except (ValueError, RecursionError):  # nested past what json reads: not JSON here
            value = arguments
    if not isinstance(value, dict):
        return "the input must be a JSON object"
    missing = [key for key in required if key not in value]
    if missing:
        return "missing required " + ", ".join(repr(key) for key in missing)
    return None


def _lossless(text: str) -> float:
    """A number written back as it was read: not NaN, an infinity or a negative zero."""
    value = float(text)
    if not math.isfinite(value) or (value == 0 and math.copysign(1.0, value) < 0):
        raise ValueError(f"{text} has no lossless value")
    return value
