"""The offline log checker behind `loopspec check`.

It holds recorded session logs to the rules a log invariant carries, streaming, with the invariant
registry the model's own tests run (`loopspec.model.invariants`). `files` finds and opens logs
(`.jsonl`, `.jsonl.zst`, directories, stdin), `compact_rows` unfolds dsh's compact chunk rows,
`checker` judges, `report` prints text or JSON and picks the exit code.
`synth` writes logs in the same wire format from the model, for tests and benchmarks.

The checker's default bounds are here, in the package every part of it imports, so that
`loopspec check --help` shows them without importing the checker (and the model it runs), and
a check imports no module for them alone (each module costs a small log's check a hundredth of
the interpreter's start); so are the dsh session-log layouts the checker reads, and how it
recognises the ones it does not (`header_version`, `legacy_marker`), which every dsh log's
check needs.

Supported: header `version` 0 with the event layout of dsh 0.1.0-rc (the layout
`loopspec.model.wire` encodes) — messages inside `data` (`data.message` on replies and
results), `surfaceOp` and `sourceEventSeqs` on the three surface events — including

- compact chunk rows (`text-chunks`, `reasoning-chunks`, `tool-call-chunks`; see
  `loopspec.properties.logcheck.compact_rows`);
- plugin and bookkeeping events the rules do not read (`agent/inbox/spliced`, `session/title`,
  `request/header`, `compaction/*`, `tool/code-dispatch*`, ...): they keep their seq and, for the
  few the rules list as in-turn, their enclosure; nothing else is judged;
- normalised snapshot values: `{{cwd}}`, `{{sessionId}}` and other placeholders, `createdAt` 0.

Not covered: the June-2026 layout (`context/message` and `steering/message` events, a flat
`tool/result` carrying `callId`/`content`/`isError` in `data`, `assistant/message` carrying
`content` in `data`, `turn/start` with a `trigger`). Its relations differ (no surface ops, results
cite no call), so holding it to these rules would report violations it never broke: such a log is
reported as not covered, and none of its violations are kept. A header `version` other than 0
and 1 is not covered either (dsh opens no log but version 0): an error naming it, nothing judged.

Version 1 (the logs `loopspec run` writes) is the same layout, every event of a commit of
several events marked `unit: [k, n]`; those markers are held to LOG-8
(`loopspec.properties.logcheck.commit_units`). A version 0 log has none, and is not.

Logs of other loops are recognised before any of this, from their first record
(`loopspec.properties.logcheck.foreign`): Claude Code transcripts and Codex rollouts are read by
`loopspec.properties.logcheck.claude_code` and `loopspec.properties.logcheck.codex` and judged by
the rules such a log can show (`loopspec.properties.logcheck.harness_logs`).
"""

from __future__ import annotations

# collections.abc's own source, loaded with the interpreter: importing collections.abc imports
# collections, which costs check a fifth of the interpreter's start (tests/test_check_startup.py)
from _collections_abc import Mapping

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    from typing import Any

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_VIOLATIONS = 1000
INVARIANT_RULES = (
    *("ABORT-1", "ABORT-2", "ABORT-3", "ADJ-1", "ADJ-2", "ADJ-3", "ADJ-4", "DEC-1", "DEC-2"),
    *("EXE-1", "EXE-2", "HOOK-1", "HOOK-4", "HOOK-5", "HOOK-6", "LOG-1", "LOG-2", "LOG-7"),
    *("ORD-1", "ORD-2", "ORD-3", "REC-1", "RW-1", "RW-2", "RW-3", "RW-4", "STEP-1"),
    *("STEP-2", "STEP-3", "TURN-1", "TURN-2", "TURN-3"),
)
"""Every rule a log invariant enforces, sorted (`model.invariants.rule_ids()`), spelt here so
that a report names the rules checked without the rule registry, which a clean log is checked
without (`checker._monitor`; a test holds them equal)."""
MAX_TRACKED_HOOKS = 1000
"""Distinct hook ids whose runs are counted (`hook_faults.HookRuns`, and the checker's judge of
hook/result before it); a log naming more (none configures so many) gets its later hooks'
faults noted without a count of their runs, so memory stays bounded."""

# 0: dsh's logs. 1: loopspec's own (`loopspec run`, `impl/`): the same layout, every event of a
# multi-event commit carrying a `unit: [k, n]` envelope field (`impl/framing.py`), which the
# invariants never read: `logcheck.commit_units` holds the markers to LOG-8 (whole commits, a
# reply's calls recorded in its commit) on a version 1 log only.
MARKED_VERSION = 1
UNIT_KEY = "unit"
"""The envelope field of a version-1 log's commit markers: `impl.framing.UNIT_KEY`, which
writes it (tests/test_commit_units.py holds them equal), named here so that a marked log is
read without importing `impl`."""
SUPPORTED_VERSIONS = frozenset({0, MARKED_VERSION})
LEGACY_TYPES = frozenset({"context/message", "steering/message"})
LAYOUT_NAME = "the June-2026 dsh layout"


def legacy_marker(obj: Mapping[str, Any]) -> str | None:
    """What shows that an event is in the June-2026 layout, or None when nothing does."""
    kind = obj.get("type")
    if not isinstance(kind, str):
        return None
    data = obj.get("data")
    fields = data if isinstance(data, Mapping) else {}
    if kind in LEGACY_TYPES:
        return f"a {kind} event"
    if kind == "turn/start" and "trigger" in fields:
        return "turn/start carries a trigger"
    if kind == "tool/result" and "message" not in fields and "callId" in fields:
        return "tool/result carries callId and content in data"
    if kind == "assistant/message" and "message" not in fields and "content" in fields:
        return "assistant/message carries content in data"
    return None


def is_header(obj: Mapping[str, Any]) -> bool:
    """Whether a parsed line is (meant to be) the session header."""
    return obj.get("type") == "session" and "seq" not in obj and "seq0" not in obj


# The header fields the model's codec names; any other field is kept as an extra.
_HEADER_FIELDS = frozenset({"type", "version", "id", "createdAt", "cwd"})
# The largest `createdAt` the codec reads (JavaScript's largest exact integer, as dsh asks).
_MAX_SAFE_INTEGER = 2**53 - 1
# Extra values the codec keeps as they are, whatever they hold (see `jsonvalue.freeze`); an
# integer too, as long as it is written with fewer digits than Python converts (`_plain_extra`).
_PLAIN_EXTRA_TYPES = (str, bool, type(None))


def _plain_extra(value: object) -> bool:
    """Whether the codec keeps a header's extra `value` as it is: every dsh header holds one
    integer, `delegationDepth` (SPEC LOG-5), and reading a header the codec's way imports the
    event model, attrs and cattrs, ten times the interpreter's start."""
    return type(value) in _PLAIN_EXTRA_TYPES or (
        type(value) is int and -_MAX_SAFE_INTEGER <= value <= _MAX_SAFE_INTEGER
    )


def header_version(obj: Mapping[str, Any]) -> int:
    """The version of a header, validated by the model's wire codec (`header_from_wire`);
    `InvalidEventError` when malformed.

    A header of the usual shape — the codec's fields with the types it requires, extras only of
    kinds it keeps unchanged — is one the codec accepts, so it is read here (`usual_version`),
    and the codec (with the event model and cattrs behind it) is imported only for another: a
    small log then starts at interpreter speed. `tests/test_check_startup.py` holds both ways
    to the same answers.
    """
    version = usual_version(obj)
    return _codec_header_version(obj) if version is None else version


def usual_version(obj: Mapping[str, Any]) -> int | None:
    """The version of a header of the usual shape (see `header_version`), which the codec
    accepts; None for any other, which only the codec can judge (and may refuse)."""
    if (
        type(obj) is dict
        and obj.get("type") == "session"
        and type(obj.get("version")) is int
        and type(obj.get("id")) is str
        and type(obj.get("createdAt")) is int
        and 0 <= obj["createdAt"] <= _MAX_SAFE_INTEGER
        and type(obj.get("cwd")) is str
        and all(_plain_extra(value) for key, value in obj.items() if key not in _HEADER_FIELDS)
    ):
        version: int = obj["version"]
        return version
    return None


def _codec_header_version(obj: Mapping[str, Any]) -> int:
    """`header_version` by the model's wire codec itself."""
    # (the model's errors with it: the usual header is read without them)
    from loopspec.model.errors import InvalidEventError  # noqa: PLC0415 -- see `header_version`
    from loopspec.model.wire import header_from_wire  # noqa: PLC0415 -- see `header_version`

    try:
        return header_from_wire(obj).version
    except RecursionError as error:
        raise InvalidEventError("the header nests too deeply", rule_id="LOG-4") from error
