"""Notes on a hook answer its dialect reads without a fault but that loses what the hook meant.

Claude Code ignores stdout that does not start with `{`, JSON on stdout after exit 2 (Codex
too), stderr after exit 0 (noted when it reads like a refusal), and keys it does not define
(Codex refuses unknown keys: a fault there). Each is the documented outcome, so it stays no
fault (fail-closed does not deny it), but a hook author would otherwise see a bare `pass` or
`allow` where their rewrite or denial vanished. The note goes into the audit's summary beside
the decision word.
"""

from __future__ import annotations

import difflib
import re

from loopspec.impl.hookbridge.output import SPECIFIC, stdout_document
from loopspec.impl.hookbridge.post_tool_use import CODEX_SPECIFIC_KEYS as POST_SPECIFIC_KEYS
from loopspec.impl.hookbridge.pre_tool_use import CODEX_SPECIFIC_KEYS as PRE_SPECIFIC_KEYS
from loopspec.impl.hookbridge.pre_tool_use import CODEX_TOP_KEYS
from loopspec.impl.hookbridge.process import ProcessOutcome
from loopspec.impl.hookbridge.settings import CLAUDE_CODE, CODEX
from loopspec.model.config import PRE_TOOL_USE
from loopspec.model.jsonvalue import FrozenMap

# Where each dialect says stdout goes unread after exit 2. Claude Code 2.1.332 was seen taking
# a JSON deny's reason on exit 2 all the same; its documentation, which the bridge follows, says
# stdout is ignored then. Codex's hook runner (codex-rs/hooks, events/pre_tool_use.rs and
# post_tool_use.rs) reads only stderr on exit 2.
_EXIT_2_READS = {
    CLAUDE_CODE: "as Claude Code documents",
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
    by_case = {name.lower(): name for name in known}
    close = by_case.get(key.lower()) or next(iter(difflib.get_close_matches(key, known, 1)), None)
    return f"{path} (did you mean {close}?)" if close else path
