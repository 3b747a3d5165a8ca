"""Notes on a hook answer its dialect reads without a fault but that loses what the hook meant.

Claude Code ignores stdout that does not start with `{`, JSON on stdout after exit 2 unless
it is a deny, a block or a context (Codex reads none), stderr after exit 0 (noted when it reads
like a refusal), and keys it does not define (Codex refuses unknown keys: a fault there). Each
is the documented outcome, so it stays no fault (fail-closed does not deny it), but a hook
author would otherwise see a bare `pass` or `allow` where their rewrite or denial vanished. A
JSON deny, block or context after exit 2, which Claude Code 2.1.332 reads although its
documentation says it does not, is noted too. The note goes into the audit's summary beside
the decision word.
"""

from __future__ import annotations

import re
from typing import assert_never

from loopspec.impl.hookbridge.output import SPECIFIC, stdout_document
from loopspec.impl.hookbridge.post_tool_use import CODEX_SPECIFIC_KEYS as POST_SPECIFIC_KEYS
from loopspec.impl.hookbridge.post_tool_use import json_after_exit_2
from loopspec.impl.hookbridge.pre_tool_use import CODEX_SPECIFIC_KEYS as PRE_SPECIFIC_KEYS
from loopspec.impl.hookbridge.pre_tool_use import CODEX_TOP_KEYS, json_deny_after_exit_2
from loopspec.impl.hookbridge.process import ProcessOutcome
from loopspec.impl.hookbridge.settings import CLAUDE_CODE, CODEX
from loopspec.model.commands import PostBlock, PostContext, PostPass
from loopspec.model.config import PRE_TOOL_USE
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.near_miss import did_you_mean

# What each dialect reads of stdout after exit 2. Claude Code 2.1.332 reads a JSON deny, block
# or context then too (observed with the pinned CLI), although its documentation says stdout
# goes unread; the bridge reads what the CLI does (`json_deny_after_exit_2`,
# `json_after_exit_2`). Codex's hook runner (codex-rs/hooks, events/pre_tool_use.rs and
# post_tool_use.rs) reads only stderr on exit 2.
_EXIT_2_READS = {
    CLAUDE_CODE: "Claude Code reads a deny, a block or a context from it, no other answer",
    CODEX: "Codex reads only stderr after exit 2",
}

# Words of a hook that meant to refuse. Many hooks only log to stderr after exit 0 (a formatter,
# an audit trail): a note on each would bury the one hook whose refusal really went unheard.
_REFUSAL = re.compile(
    r"\b(den(y|ied|ying)|block(ed|ing|s)?|refus\w*|reject\w*|forbid\w*|disallow\w*|"
    r"prohibit\w*|not allowed|not permitted)\b",
    re.IGNORECASE,
)


def _reads_like_a_refusal(stderr: bytes) -> bool:
    return _REFUSAL.search(stderr.decode("utf-8", errors="replace")) is not None


def answer_note(dialect: str, point: str, outcome: ProcessOutcome) -> str | None:
    """What the hook's answer lost without a fault, or None; only for an answer (exit 0 or 2)."""
    stdout = outcome.stdout.decode("utf-8", errors="replace")
    if outcome.exit_code == 2:
        if not stdout.lstrip().startswith("{"):
            return None
        read = _read_after_exit_2(point, outcome) if dialect == CLAUDE_CODE else None
        if read is not None:
            return (
                f"exit 2 with a JSON {read}: Claude Code 2.1.332 reads it all the same, though "
                "its documentation says stdout goes unread after exit 2; exit 0 to answer in JSON"
            )
        reason = "the reason is stderr" + ("" if outcome.stderr.strip() else ", which is empty")
        return (
            f"exit 2: the JSON on stdout is not read ({_EXIT_2_READS[dialect]}), {reason}; "
            "exit 0 to answer in JSON"
        )
    if outcome.exit_code != 0:
        return None
    found = stdout_document(dialect, outcome.stdout)
    if isinstance(found, FrozenMap):
        return _unknown_keys(dialect, point, found)
    if found is not None or stdout.lstrip().startswith("{"):
        return None
    json_line = next(
        (n for n, line in enumerate(stdout.splitlines(), 1) if line.lstrip().startswith("{")),
        None,
    )
    if json_line is not None:
        return (
            "stdout does not start with '{', so none of it is an answer: the JSON object on "
            f"line {json_line} was ignored; print the JSON object alone"
        )
    if not stdout.strip() and _reads_like_a_refusal(outcome.stderr):
        outcome_of_2 = "deny the call" if point == PRE_TOOL_USE else "block the result"
        return (
            "exit 0 with nothing on stdout is no decision: stderr is only logged (exit 2 "
            f"would {outcome_of_2} with it as the reason)"
        )
    return None


def _read_after_exit_2(point: str, outcome: ProcessOutcome) -> str | None:
    """What Claude Code takes from a JSON answer printed before exit 2, in words, or None."""
    if point == PRE_TOOL_USE:
        denied = json_deny_after_exit_2(outcome) is not None
        return "deny, whose reason the model is told instead of stderr" if denied else None
    reading = json_after_exit_2(outcome)
    match None if reading is None else reading.verdict:
        case None | PostPass():
            return None
        case PostBlock():
            return "block, whose reason the model is told instead of stderr"
        case PostContext():
            return "context, which reaches the model beside stderr's block"
        case _:
            assert_never(reading.verdict)


def _unknown_keys(dialect: str, point: str, document: FrozenMap) -> str | None:
    if dialect != CLAUDE_CODE:
        return None  # Codex refuses unknown keys: an invalid-output fault says so
    # Codex's key lists name every key Claude Code reads as well, so they serve here.
    specific_keys = PRE_SPECIFIC_KEYS if point == PRE_TOOL_USE else POST_SPECIFIC_KEYS
    unknown = [
        _hint(f"$.{key}", key, CODEX_TOP_KEYS) for key in document if key not in CODEX_TOP_KEYS
    ]
    specific = document.get(SPECIFIC)
    if isinstance(specific, FrozenMap):
        unknown += [
            _hint(f"$.{SPECIFIC}.{key}", key, specific_keys)
            for key in specific
            if key not in specific_keys
        ]
    if not unknown:
        return None
    return f"ignored, not a key Claude Code reads: {'; '.join(unknown)}"


def _hint(path: str, key: str, known: tuple[str, ...]) -> str:
    return f"{path}{did_you_mean(key, known)}"
