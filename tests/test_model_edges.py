"""Deterministic tests of model branches that only random programs used to reach.

Found with benchmarks/coverage_owners.py: before these, an empty reply, a crash with no turn open
and a result whose meta carries no diff list were reached only by Hypothesis programs, so the
tests drawing them could not run with the coverage tracer off without the report depending on
what a random run happened to draw.
"""

from __future__ import annotations

from spec_helpers import PLAIN, run, types

from loopspec.model.commands import Crash, ModelReplies, Recover, SubmitUser
from loopspec.model.derive import derive_messages
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import TextBlock, UserMessage
from loopspec.model.presenters import diffs_from_meta
from loopspec.model.state import Idle


def test_HIST_1_an_empty_reply_is_logged_but_not_sent_back() -> None:
    """HIST-1: a reply with no blocks is recorded (assistant/message) and closes the turn, but
    the next request's history carries only the user's message: an empty assistant message
    is not part of the surface the model sees again."""
    state = run(PLAIN, [SubmitUser("a"), ModelReplies(())])
    assert types(state.log) == [
        "turn/start",
        "step/start",
        "user/message",
        "assistant/message",
        "step/end",
        "turn/end",
    ]
    (only,) = derive_messages(state.log)
    assert isinstance(only, UserMessage)
    assert only.content == (TextBlock("a"),)


def test_REC_1_recovering_with_no_turn_open_appends_nothing() -> None:
    """REC-1: repair closes the tail turn only if one is open; a crash between turns recovers
    to Idle with the committed log unchanged."""
    finished = run(PLAIN, [SubmitUser("a"), ModelReplies(())])
    recovered = run(PLAIN, [SubmitUser("a"), ModelReplies(()), Crash(), Recover()])
    assert isinstance(recovered.phase, Idle)
    assert recovered.log == finished.log
    assert run(PLAIN, [Crash(), Recover()]).log == run(PLAIN, []).log


def test_VIEW_3_a_result_meta_without_a_diff_list_shows_no_diff() -> None:
    """VIEW-3: meta that is not an object, lacks `diffs` or holds something else there yields
    no diff rather than failing."""
    assert diffs_from_meta(None) == ()
    assert diffs_from_meta(FrozenMap({})) == ()
    assert diffs_from_meta(FrozenMap({"diffs": "not a list"})) == ()
    assert diffs_from_meta(FrozenMap({"diffs": FrozenMap({"path": "a"})})) == ()
