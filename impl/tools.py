"""The tool registry and `ToolExecution`, the sealed identity of one call (rules EXE-1 .. EXE-4).

A `ToolExecution` is sealed when the model's reply is committed, after the PreToolUse rewrite
phase and before any pre-execute policy: from then on its call id, tool and arguments are fixed.
It is a named tuple whose fields cannot be rebound (not even with `object.__setattr__`), and its
`arguments` are a deep-frozen snapshot (see `loopspec.impl.snapshot`) that shares nothing with the
caller's object. Its `stages` only move forward, each at most once, in the order of `Stage`;
anything else raises `StageOrderError`.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import NamedTuple

import attrs

from loopspec.impl.errors import StageOrderError
from loopspec.impl.framing import compact_json
from loopspec.impl.snapshot import Snapshot, plain, snapshot
from loopspec.model.commands import ToolOutcome
from loopspec.model.jsonvalue import FrozenMap


class Stage(enum.IntEnum):
    """The life of a tool execution, in order. Paths may skip stages, never go back."""

    SEALED = 0
    """Identity fixed: call id, tool name, effective arguments."""
    DECIDED = 1
    """The pre-execute decision was applied (allowed, denied, refused, or the user answered)."""
    STARTED = 2
    """The body was dispatched with the sealed arguments."""
    FINISHED = 3
    """The body settled (returned or failed)."""
    JUDGED = 4
    """PostToolUse hooks ruled on the result."""
    COMMITTED = 5
    """The `tool/result` is in the log."""


class StageTracker:
    """The stages one execution went through; each at most once, strictly in order."""

    def __init__(self) -> None:
        self._reached: list[Stage] = [Stage.SEALED]

    @property
    def current(self) -> Stage:
        """The last stage reached."""
        return self._reached[-1]

    @property
    def reached(self) -> tuple[Stage, ...]:
        """Every stage reached, in order."""
        return tuple(self._reached)

    def enter(self, stage: Stage) -> None:
        """Move to `stage`; `StageOrderError` if it is not after the current one."""
        if stage <= self.current:
            msg = f"cannot enter {stage.name} after {self.current.name}"
            raise StageOrderError(msg)
        self._reached.append(stage)


class ToolExecution(NamedTuple):
    """One sealed call: what runs, with exactly which arguments."""

    turn: int
    step: int
    call_id: str
    tool_name: str
    raw_arguments: str
    """The effective arguments exactly as `tool/call` records them."""
    arguments: Snapshot
    """The parsed arguments, deep-frozen; what the body works with."""
    stages: StageTracker

    def enter(self, stage: Stage) -> None:
        """Record that the execution reached `stage`."""
        self.stages.enter(stage)


ToolBody = Callable[[ToolExecution], Awaitable[ToolOutcome]]
"""A tool's implementation: given the sealed execution, settle with a `ToolOutcome`."""


@attrs.frozen
class RegisteredTool:
    """A tool the loop can run: its body, whether parallel runs are safe, its input contract."""

    name: str
    body: ToolBody
    concurrency_safe: bool = False
    required_keys: tuple[str, ...] = ()
    key_types: tuple[tuple[str, str], ...] = ()
    """(key, JSON type) pairs: where the key is present, its value must have that type
    (`string`, `number`, `integer`, `boolean`, `object`, `array` or `null`)."""

    def input_problem(self, value: object) -> str | None:
        """Why `value` cannot be this tool's input: not a JSON object, a required key missing,
        or a key's value of another type than the tool declares (rule HOOK-6)."""
        # A frozen map (what a hook proposes) skips the slower abstract-class check.
        if type(value) is not FrozenMap and not isinstance(value, Mapping):
            return "the input must be a JSON object"
        missing = [key for key in self.required_keys if key not in value]
        if missing:
            return "missing required " + ", ".join(repr(key) for key in missing)
        for key, expected in self.key_types:
            if key in value and not json_type_matches(value[key], expected):
                return f"{key!r} must be {expected}, not {json_type_name(value[key])}"
        return None


JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")


def json_type_name(value: object) -> str:
    """The JSON Schema type of a frozen or plain JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    return "array"


def json_type_matches(value: object, expected: str) -> bool:
    """Whether `value` has the JSON Schema type `expected` (an integer is also a number)."""
    actual = json_type_name(value)
    return actual == expected or (expected == "number" and actual == "integer")


class ToolRegistry:
    """The loop's tools by name."""

    def __init__(self, tools: Iterable[RegisteredTool]) -> None:
        self._tools: dict[str, RegisteredTool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"tool {tool.name!r} is registered twice")
            self._tools[tool.name] = tool

    def get(self, name: str) -> RegisteredTool | None:
        """The tool called `name`, if registered."""
        return self._tools.get(name)

    @property
    def tools(self) -> tuple[RegisteredTool, ...]:
        """Every registered tool, in registration order."""
        return tuple(self._tools.values())


def read_arguments(raw: str) -> Snapshot:
    """Parse raw argument text as every reader must (rule EXE-2), into a frozen snapshot.

    Blank text means `{}`; text that is not lossless JSON stays the raw string, so a malformed
    call still has exactly one well-defined value.
    """
    if not raw.strip():
        return snapshot({})
    try:
        return snapshot(json.loads(raw))
    except (ValueError, RecursionError):
        return raw


def seal(
    turn: int,
    step: int,
    call_id: str,
    tool_name: str,
    arguments: str | Mapping[str, object],
    *,
    parsed: Snapshot | None = None,
) -> ToolExecution:
    """Fix a call's identity. `arguments` is the raw JSON text or a mapping (copied, never kept);
    with the text, `parsed` may give its snapshot (`read_arguments(arguments)`) when known."""
    if isinstance(arguments, str):
        raw, frozen = arguments, read_arguments(arguments) if parsed is None else parsed
    else:
        frozen = snapshot(arguments)
        raw = compact_json(plain(frozen))  # the snapshot refused what JSON cannot carry
    return ToolExecution(turn, step, call_id, tool_name, raw, frozen, StageTracker())
