"""A Claude Code transcript's record of a hook run, read for its fault (HOOK-7).

Claude Code 2.1.332 writes an `attachment` for each PreToolUse or PostToolUse hook run that
printed something or failed (observed offline, tests/fixtures/logs/claude-code/README.md):

- `hook_success`: exit 0 (or exit 2 with output), with `stdout`, `stderr` and `exitCode`; the
  stdout of a hook that printed broken JSON is kept too, and read by Claude Code as no decision;
- `hook_non_blocking_error`: another exit code, or an answer its schema refused; `stderr` is
  then Claude Code's own words (`Failed with non-blocking status code: ...`, `Hook JSON output
  validation failed ...`), not only the hook's;
- `hook_cancelled`: a PreToolUse hook that ran past its timeout, with `timedOut` and
  `timeoutMs`; a PostToolUse hook that did, with only its `hookName`, point and call. An
  interrupt during either point's hook writes no record (observed offline, 2026-12-06).

A run that printed nothing leaves no record, so how often a hook ran is not known. Each record is
read as the bundled loop reads the Claude Code dialect (`impl.hookbridge`), as `run --harness`
reads the same hook's output, so `check` words a fault as `run` does (a timeout excepted: the
transcript shows Claude Code cancelled the hook, not how).

That reader imports attrs and the model, which `check` otherwise never needs on a transcript
(tests/test_check_startup.py): `plainly_answered` passes the usual answers without it, and is
held to the reader by tests/test_harness_logs.py.
"""

from __future__ import annotations

# collections.abc's own source (see `claude_code`)
from _collections_abc import Mapping

from loopspec.model.json_text import loads_refusing

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: see `claude_code`
if TYPE_CHECKING:
    from typing import Any

PRE_TOOL_USE = "PreToolUse"
POST_TOOL_USE = "PostToolUse"
SUCCESS = "hook_success"
NON_BLOCKING_ERROR = "hook_non_blocking_error"
CANCELLED = "hook_cancelled"
HOOK_RECORDS = frozenset({SUCCESS, NON_BLOCKING_ERROR, CANCELLED})

# How Claude Code begins the stderr of `hook_non_blocking_error`: its words, then the hook's.
_EXIT_PREFIX = "Failed with non-blocking status code: "
_NO_STDERR = "No stderr output"
# Claude Code's schema message replaces the hook's stderr: the fault is read from stdout.
_VALIDATION_PREFIX = "Hook JSON output validation failed"

# The keys of a usual answer, which the reader takes with neither fault nor note.
_PLAIN_SPECIFIC_KEYS = {
    PRE_TOOL_USE: frozenset(
        {"hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput"}
    ),
    POST_TOOL_USE: frozenset({"hookEventName", "additionalContext"}),
}
_PLAIN_DECISIONS = frozenset({"allow", "deny", "ask"})


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def plainly_answered(record: Mapping[str, Any], event: str) -> bool:
    """Whether a `hook_success` record holds an answer the dialect reads with no fault and no
    note: exit 0, no stderr, and nothing printed or one usual JSON answer. Anything else goes
    to the reader, which decides."""
    exit_code = record.get("exitCode", 0)
    if record.get("type") != SUCCESS or exit_code != 0 or _text(record.get("stderr")).strip():
        return False
    printed = _text(record.get("stdout")).strip()
    if not printed:
        return True
    try:
        answer = loads_refusing(printed, _no_constant)
    except (ValueError, RecursionError):
        return False
    if not isinstance(answer, dict) or set(answer) != {"hookSpecificOutput"}:
        return False
    specific = answer["hookSpecificOutput"]
    if not isinstance(specific, dict) or specific.get("hookEventName") != event:
        return False
    if not set(specific) <= _PLAIN_SPECIFIC_KEYS[event]:
        return False
    decision = specific.get("permissionDecision", "allow")
    return (
        isinstance(decision, str)
        and decision in _PLAIN_DECISIONS
        and isinstance(specific.get("permissionDecisionReason", ""), str)
        and isinstance(specific.get("updatedInput", {}), dict)
        and isinstance(specific.get("additionalContext", ""), str)
    )


def _no_constant(name: str) -> object:
    # NaN and Infinity are no JSON: the reader finds the answer invalid (so does Claude Code).
    raise ValueError(f"{name} is not JSON")


def _hook_event(kind: Any, event: Any) -> str | None:
    """The hook point of a record of a hook run this module reads, else None (a damaged record
    may hold any JSON value in `type` and `hookEvent`, a list among them)."""
    if not isinstance(kind, str) or kind not in HOOK_RECORDS:
        return None
    return event if isinstance(event, str) and event in _PLAIN_SPECIFIC_KEYS else None


def _milliseconds(value: Any, otherwise: float) -> float:
    """A record's count of milliseconds; `otherwise` for anything else (a damaged record)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return otherwise
    try:
        return float(value)
    except OverflowError:
        return otherwise


def _hooks_own_stderr(record: Mapping[str, Any]) -> str:
    stderr = _text(record.get("stderr"))
    if record.get("type") != NON_BLOCKING_ERROR:
        return stderr
    if stderr.startswith(_VALIDATION_PREFIX):
        return ""
    stderr = stderr.removeprefix(_EXIT_PREFIX)
    return "" if stderr == _NO_STDERR else stderr


def hook_fault(record: Mapping[str, Any]) -> tuple[str, str] | None:
    """(decision word, audit summary) of the hook run `record` holds when the run is a fault
    (HOOK-7): the word is what Claude Code took from it (no decision, `error`, from a record of
    an error or a cancelled run). None for a run that answered, a PreToolUse run cancelled
    without a timeout (not the hook's fault), or a record of another kind."""
    kind = record.get("type")
    event = _hook_event(kind, record.get("hookEvent"))
    if event is None:
        return None
    if kind == SUCCESS and plainly_answered(record, event):
        return None
    read = read_hook_run(record)
    if read is None:
        return None
    word, summary = read
    from loopspec.impl.recorded_faults import FAILED_WORD, recorded_fault  # noqa: PLC0415

    if recorded_fault(word, summary) is None:
        return None
    if kind == CANCELLED:
        # The bundled loop's words ("its process group was killed") say what it does; the
        # transcript shows only that Claude Code cancelled the hook at its timeout.
        waited_ms = _milliseconds(record.get("timeoutMs"), -1.0)
        limit = f"within {waited_ms / 1000:g} s" if waited_ms >= 0 else "within its timeout"
        summary = f"timeout: no exit {limit}; Claude Code cancelled it"
    # Claude Code took no decision from an error or a cancelled run, whatever it printed (an
    # `allow` beside a non-object `updatedInput` is refused whole, and the call runs as asked).
    return (word if kind == SUCCESS else FAILED_WORD), summary or ""


def read_hook_run(record: Mapping[str, Any]) -> tuple[str, str | None] | None:
    """(decision word, audit summary) the bundled loop's audit gives the output `record`
    holds, read as `run --harness` reads a hook's output; None for a record that holds no run
    to read (another kind or point, a cancelled PreToolUse run that did not time out)."""
    kind = record.get("type")
    event = _hook_event(kind, record.get("hookEvent"))
    if event is None:
        return None
    # The reader, with attrs and the model: only for a run that may be a fault.
    from loopspec.impl.hookbridge.audit import run_audit  # noqa: PLC0415 (see above)
    from loopspec.impl.hookbridge.post_tool_use import read_post_tool_use  # noqa: PLC0415
    from loopspec.impl.hookbridge.pre_tool_use import read_pre_tool_use  # noqa: PLC0415
    from loopspec.impl.hookbridge.process import ProcessOutcome  # noqa: PLC0415
    from loopspec.impl.hookbridge.settings import CLAUDE_CODE  # noqa: PLC0415

    duration_ms = _milliseconds(record.get("durationMs"), 0.0)
    timeout_s = _milliseconds(record.get("timeoutMs"), float("inf")) / 1000
    if kind == CANCELLED:
        # A PostToolUse hook's timeout is recorded without `timedOut` (see above).
        if record.get("timedOut") is not True and event != POST_TOOL_USE:
            return None
        outcome = ProcessOutcome(None, None, b"", b"", duration_ms, timed_out=True)
    else:
        exit_code = record.get("exitCode", 0)
        if not isinstance(exit_code, int) or isinstance(exit_code, bool):
            return None
        outcome = ProcessOutcome(
            exit_code,
            None,
            _text(record.get("stdout")).encode(),
            _hooks_own_stderr(record).encode(),
            duration_ms,
        )
    # No output cap: Claude Code kept what the hook printed.
    if event == PRE_TOOL_USE:
        pre = read_pre_tool_use(CLAUDE_CODE, outcome, timeout_s, 1 << 62)
        word, fault = pre.decision, pre.fault
    else:
        post = read_post_tool_use(CLAUDE_CODE, outcome, timeout_s, 1 << 62)
        word, fault = post.decision, post.fault
    audit = run_audit(
        outcome,
        handler_id="",
        point=event,
        dialect=CLAUDE_CODE,
        call_id=_text(record.get("toolUseID")),
        decision=word,
        fault=fault,
    )
    return word, audit.as_hook_audit().stderr_summary
