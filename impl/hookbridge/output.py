"""Reading what a hook process left behind: its exit, its stdout document, its fields.

Shared by the PreToolUse and PostToolUse readers. Schema problems are raised as
`OutputProblem` so a reader stays a straight line; its caller turns one into a fault.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable, Iterable
from typing import TypeVar

from loopspec.impl.hook_fault_kinds import FaultKind
from loopspec.impl.hookbridge.faults import HookFault
from loopspec.impl.hookbridge.process import ProcessOutcome
from loopspec.impl.hookbridge.settings import CLAUDE_CODE, CODEX
from loopspec.impl.user_files import MAX_JSON_DEPTH, json_depth
from loopspec.model.jsonvalue import FrozenMap, JsonValue, NotJsonError, freeze

Reading = TypeVar("Reading")  # what a hook point's reader makes of an answer

STDERR_SUMMARY_CHARS = 200
SPECIFIC = "hookSpecificOutput"
PYTHON_TRACEBACK = "Traceback (most recent call last):"


class OutputProblem(Exception):
    """The hook's JSON answer cannot be honoured; `fault` says why."""

    def __init__(self, fault: HookFault) -> None:
        self.fault = fault
        super().__init__(fault.describe())


def invalid(detail: str) -> OutputProblem:
    """The answer breaks the dialect's output schema."""
    return OutputProblem(HookFault(FaultKind.INVALID_OUTPUT, detail))


def unsupported(detail: str) -> OutputProblem:
    """A well-formed answer the dialect (Codex) marks Failed."""
    return OutputProblem(HookFault(FaultKind.UNSUPPORTED, detail))


def process_fault(outcome: ProcessOutcome, timeout_s: float, cap: int) -> HookFault | None:
    """The fault in how the process ended, if any; exit 0 and exit 2 are answers, not faults."""
    if outcome.spawn_error is not None:
        return HookFault(FaultKind.SPAWN_FAILED, outcome.spawn_error)
    if outcome.timed_out:
        detail = f"no exit within {timeout_s:g} s; its process group was killed"
        return HookFault(FaultKind.TIMEOUT, detail)
    if outcome.overflowed is not None:
        detail = f"{outcome.overflowed} went over {cap} bytes; its process group was killed"
        return HookFault(FaultKind.OUTPUT_TOO_LARGE, detail)
    if outcome.signal is not None:
        return HookFault(FaultKind.CRASH, f"killed by signal {outcome.signal}")
    if outcome.exit_code not in (0, 2):
        return HookFault(FaultKind.CRASH, f"exit code {outcome.exit_code}")
    return None


def stderr_text(outcome: ProcessOutcome) -> str:
    """stderr as text, trimmed (undecodable bytes replaced: it is only ever shown)."""
    return outcome.stderr.decode("utf-8", errors="replace").strip()


def stderr_summary(outcome: ProcessOutcome) -> str | None:
    """The first non-empty stderr line, cut to a readable length; None when stderr is empty.
    Of a Python traceback, its last line: the first only says a traceback follows."""
    lines = [line.strip() for line in stderr_text(outcome).splitlines() if line.strip()]
    first = lines[0] if lines else None
    if first == PYTHON_TRACEBACK and len(lines) > 1:
        first = f"Python traceback, ending: {lines[-1]}"
    if first is not None and len(first) > STDERR_SUMMARY_CHARS:
        return first[: STDERR_SUMMARY_CHARS - 1] + "…"
    return first


def _no_constants(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def stdout_document(dialect: str, stdout: bytes) -> FrozenMap | HookFault | None:
    """The JSON object a hook printed, a fault when it only looks like one, or None.

    Claude Code reads stdout as JSON when it starts with `{`; Codex also when it starts with
    `[`. Anything else is plain text, which no dialect treats as an answer. Leading ASCII
    whitespace is skipped; for Claude Code then one UTF-8 byte order mark and the ASCII
    whitespace after it: 2.1.332 took a deny printed after a byte order mark, where Codex
    0.171.0 read it as text and ran the call (observed offline, 2026-12-06). Other Unicode
    spaces (a no-break space) are not skipped: none was observed either way.
    """
    text = stdout.lstrip()
    if dialect == CLAUDE_CODE:
        text = text.removeprefix(codecs.BOM_UTF8).lstrip()
    looks_like_json = text[:1] == b"{" or (dialect == CODEX and text[:1] == b"[")
    if not looks_like_json:
        return None
    try:
        value = json.loads(text.decode("utf-8"), parse_constant=_no_constants)
    except json.JSONDecodeError as error:
        if error.msg == "Extra data":
            # Two objects printed (an answer, then a debug line): Claude Code reads neither.
            detail = f"stdout holds more than one JSON value (the next at line {error.lineno})"
            return HookFault(FaultKind.INVALID_JSON, f"{detail}; print one object")
        return HookFault(FaultKind.INVALID_JSON, f"stdout is not valid JSON: {error}")
    except (UnicodeDecodeError, ValueError) as error:
        return HookFault(FaultKind.INVALID_JSON, f"stdout is not valid JSON: {error}")
    except RecursionError:
        value = None  # nested beyond the parser's stack: reported with the depth limit below
    if value is None or json_depth(value) > MAX_JSON_DEPTH:
        detail = f"stdout is JSON nested deeper than {MAX_JSON_DEPTH} levels"
        return HookFault(FaultKind.INVALID_JSON, detail)
    if not isinstance(value, dict):
        return HookFault(FaultKind.INVALID_JSON, "stdout is JSON but not an object")
    try:
        # A lone surrogate (`"\ud800"`) is valid JSON but no text: no log, tool or terminal
        # could carry it.
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return HookFault(FaultKind.INVALID_JSON, "stdout holds a lone surrogate, not text")
    try:
        document = freeze(value)
    except NotJsonError as error:
        return HookFault(FaultKind.INVALID_JSON, str(error))
    assert isinstance(document, FrozenMap)
    return document


def claude_code_json_after_exit_2(
    outcome: ProcessOutcome, read: Callable[[FrozenMap], Reading]
) -> Reading | None:
    """What `read` makes of the JSON object a Claude Code hook printed before exiting 2, or None
    when it printed none, one that says `continue: false`, or one `read` refuses. Claude Code
    2.1.332 reads such an answer (observed; its documentation says stdout goes unread then);
    each hook point decides which answers count beside exit 2's block."""
    found = stdout_document(CLAUDE_CODE, outcome.stdout)
    if not isinstance(found, FrozenMap) or found.get("continue") is False:
        return None
    try:
        return read(found)
    except OutputProblem:
        return None


def text_field(obj: FrozenMap, key: str, where: str) -> str | None:
    """An optional string field."""
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise invalid(f"{where}.{key} must be a string")
    return value


def flag_field(obj: FrozenMap, key: str, where: str, *, default: bool) -> bool:
    """An optional boolean field."""
    value = obj.get(key, default)
    if not isinstance(value, bool):
        raise invalid(f"{where}.{key} must be true or false")
    return value


def choice_field(obj: FrozenMap, key: str, allowed: tuple[str, ...], where: str) -> str | None:
    """An optional string field restricted to `allowed`."""
    value = text_field(obj, key, where)
    if value is not None and value not in allowed:
        raise invalid(f"{where}.{key} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def specific_output(document: FrozenMap) -> FrozenMap | None:
    """The raw `hookSpecificOutput` object, whatever event it names."""
    value = document.get(SPECIFIC)
    if value is not None and not isinstance(value, FrozenMap):
        raise invalid(f"$.{SPECIFIC} must be an object")
    return value


def for_point(specific: FrozenMap | None, point: str) -> tuple[FrozenMap | None, HookFault | None]:
    """`specific` when it names the firing point; otherwise nothing, and a wrong-event fault."""
    if specific is None:
        return None, None
    event = specific.get("hookEventName")
    if event == point:
        return specific, None
    detail = f"{SPECIFIC}.hookEventName is {event!r}, not {point!r}; its fields were ignored"
    return None, HookFault(FaultKind.WRONG_EVENT, detail)


def reject_unknown(obj: FrozenMap | None, known: Iterable[str], where: str) -> None:
    """Codex's output schema allows no other keys."""
    if obj is None:
        return
    unknown = sorted(set(obj) - set(known))
    if unknown:
        raise invalid(f"{where} has keys the dialect does not define: {', '.join(unknown)}")


def non_object_fault(supplied: JsonValue) -> HookFault | None:
    """A fault when a supplied `updatedInput` is not a JSON object (rule HOOK-6)."""
    if supplied is None or isinstance(supplied, FrozenMap):
        return None
    detail = f"updatedInput must be a JSON object, got {_json_type(supplied)}"
    return HookFault(FaultKind.NON_OBJECT_INPUT, detail)


def _json_type(value: JsonValue) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array"


def nonblank(text: str | None) -> str | None:
    """`text` trimmed, or None when nothing is left."""
    if text is None:
        return None
    return text.strip() or None


def with_context(reason: str, context: str | None) -> str:
    """A block reason carrying the context the same hook asked the model to see."""
    return f"{reason}\n\n{context}" if context else reason
