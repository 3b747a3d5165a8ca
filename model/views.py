"""The closed render-intent unions (rules VIEW-1 .. VIEW-3).

A tool declares how each call and each result renders by returning exactly one view. The unions
are closed: a new card kind needs bridge code to render it, so every consumer switches with
`match` and ends in `assert_never`, and adding a variant is a type error at every switch.

Variants are discriminated by class, not by a `Literal` tag field (CrossHair cannot build
`Literal`-typed values); each class still carries its wire tag as the class constant `CARD`.
"""

from __future__ import annotations

from typing import ClassVar, get_args

import attrs

from loopspec.model.errors import InvalidEventError
from loopspec.model.jsonvalue import JsonValue
from loopspec.model.messages import ResultContentBlock

TOOL_KINDS = frozenset(
    {
        "read",
        "edit",
        "delete",
        "move",
        "search",
        "execute",
        "think",
        "fetch",
        "switch_mode",
        "other",
    }
)


def _valid_kind(_instance: object, _attribute: object, value: str | None) -> None:
    if value is not None and value not in TOOL_KINDS:
        raise InvalidEventError(f"unknown tool kind {value!r}", rule_id="VIEW-1")


def _valid_line(_instance: object, _attribute: object, value: int | None) -> None:
    if value is not None and value < 0:
        raise InvalidEventError(f"location line {value} is negative", rule_id="VIEW-1")


@attrs.frozen
class FileLocation:
    """A follow-along location; `path` stays raw (never relativized)."""

    path: str
    line: int | None = attrs.field(default=None, validator=_valid_line)


@attrs.frozen
class FileDiff:
    """One file change; `old_text` None means a new file (or an overwrite seen at call time)."""

    path: str
    old_text: str | None
    new_text: str


@attrs.frozen
class GenericCallView:
    """Any call: a title, a kind, the raw input, optional content and locations.

    `raw_input` None means "not shown": a JSON `null` argument value is not distinguished.
    """

    CARD: ClassVar[str] = "generic"
    title: str
    kind: str | None = attrs.field(default=None, validator=_valid_kind)
    raw_input: JsonValue = None
    content: tuple[ResultContentBlock, ...] = ()
    locations: tuple[FileLocation, ...] = ()


@attrs.frozen
class TerminalCallView:
    """A foreground shell command: the title is the command."""

    CARD: ClassVar[str] = "terminal"
    title: str
    description: str | None = None
    cwd: str | None = None


@attrs.frozen
class DiffCallView:
    """A file write or edit shown as a diff before it runs."""

    CARD: ClassVar[str] = "diff"
    title: str
    diffs: tuple[FileDiff, ...]
    locations: tuple[FileLocation, ...] = ()


ToolCallView = GenericCallView | TerminalCallView | DiffCallView
CALL_CARDS: frozenset[str] = frozenset(view.CARD for view in get_args(ToolCallView))
"""The card tags a call view may carry, one per variant of the closed union."""


@attrs.frozen
class GenericResultView:
    """Any result; `content` None means "use the raw result content"."""

    CARD: ClassVar[str] = "generic"
    title: str | None = None
    content: tuple[ResultContentBlock, ...] | None = None


@attrs.frozen
class TerminalResultView:
    """A finished shell command. `exit_code` and `signal` are mutually exclusive."""

    CARD: ClassVar[str] = "terminal"
    title: str | None = None
    output: str | None = None
    exit_code: int | None = None
    signal: str | None = None

    def __attrs_post_init__(self) -> None:
        if self.exit_code is not None and self.signal is not None:
            msg = "a terminal result has an exit code or a signal, never both"
            raise InvalidEventError(msg, rule_id="VIEW-1")


@attrs.frozen
class DiffResultView:
    """The change a write or edit applied."""

    CARD: ClassVar[str] = "diff"
    title: str | None
    diffs: tuple[FileDiff, ...]


ToolResultView = GenericResultView | TerminalResultView | DiffResultView
RESULT_CARDS: frozenset[str] = frozenset(view.CARD for view in get_args(ToolResultView))
"""The card tags a result view may carry, one per variant of the closed union."""
