"""Fresh bugs of session 26, found by the programs and blamed on the rule their author must fix.

Session 26 wrote twenty-seven more wrong loops outside the project (copies of `impl/` and of
`examples/js-loop/`, each with one bug) and ran `loopspec conform` on each. Where no program
showed the bug, or the report named another rule than the one the bug breaks, the difference is
planted here in the model and the programs that must show it are played:

- a UI that keeps the first card it rendered for a call id, so a later step's call reusing the
  id (local models' call_0) gets its result shown with the earlier call's view: never caught,
  as the targeted program that reuses an id called the same tool twice, whose result card
  (a read's raw content) does not depend on the arguments; that program's second call is now
  a shell command, whose result card is a terminal's, and conform names VIEW-2.
"""

from __future__ import annotations

from typing import Any

from fresh_bugs import (
    FreshBug,
    assert_blamed_on,
    assert_passes_on_model,
    assert_report_says,
    planted,
    swept,
)

from loopspec.model import handlers
from loopspec.model.commands import FINISH_CANCELLED, ModelReplies, SubmitUser
from loopspec.model.config import LoopConfig
from loopspec.model.messages import ContentBlock, ReasoningBlock, TextBlock
from loopspec.properties.conformance.target import ModelTarget


class _FirstCardKept(dict[str, Any]):
    """A presenter's table of calls that keeps the first entry given for each call id."""

    def __setitem__(self, call_id: str, card: Any) -> None:
        if call_id not in self:
            super().__setitem__(call_id, card)


class KeepsTheFirstCardPerId(ModelTarget):
    """The model, except that its UI remembers the first call it showed for each call id: a
    later call reusing the id has its result (and approval) shown with the earlier call's
    view."""

    def reset(self, config: LoopConfig) -> frozenset[str]:
        capabilities = super().reset(config)
        self._presenter._calls = _FirstCardKept()
        return capabilities


def _keeps_every_text(blocks: tuple[ContentBlock, ...]) -> tuple[ContentBlock, ...]:
    return tuple(block for block in blocks if isinstance(block, TextBlock | ReasoningBlock))


KeepsBlankInterruptedText = planted(
    handlers,
    "_delivered_prefix",
    _keeps_every_text,
    "The model, except that an interrupted reply keeps its blank text and reasoning blocks (a "
    "test for an empty string where a blank one was meant).",
)

BLANK_REASONING: FreshBug = (
    "an interrupted reply keeps its blank reasoning",
    KeepsBlankInterruptedText,
    LoopConfig(),
    (SubmitUser(""), ModelReplies((ReasoningBlock(" "),), FINISH_CANCELLED)),
    "ABORT-2",
)


def test_ABORT_2_a_kept_blank_block_is_reported_as_blank_not_as_no_text() -> None:
    """ABORT-2: the reply kept a reasoning block of one space; the words say that blank blocks
    are dropped (where they said the reply had no text, which it had)."""
    assert_blamed_on(BLANK_REASONING)
    assert_passes_on_model(BLANK_REASONING)
    assert_report_says(
        [BLANK_REASONING],
        "an interrupted reply keeps its blank reasoning",
        "text and reasoning blocks that are not blank",
        "only whitespace as EXE-2 reads it",
        lacks=("without text",),
    )


def test_VIEW_2_a_result_shown_with_an_earlier_calls_card_is_found_and_reported_so() -> None:
    """VIEW-2: the targeted programs find the bug, and the words name the earlier call with the
    same id and the one the result answers (where they said the client lacked terminals,
    ACP-2, which sent the author elsewhere)."""
    divergence = swept(KeepsTheFirstCardPerId)
    what = divergence.what
    assert divergence.rule_id == "VIEW-2", what
    assert "as a result of the earlier call call_0 (tool read) would show" in what, what
    assert "the latest tool/call with its id" in what, what
    assert "without terminals" not in what, what
