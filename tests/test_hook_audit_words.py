"""HOOK-1: the decision word a hook's audit records agrees with the verdict the loop acted on.

The audit's word is what the log shows the hook said, and check reads it (a "block" denies,
a "defer" asks, an "allow" or "ask" carrying an input supplies it). A word contradicting the
verdict made the model write logs its own invariants reject (found by the impl machine: a
pass audited "block" beside another hook's rewrite read as RW-2), so the model refuses it.
"""

from __future__ import annotations

import pytest
from spec_helpers import clean, run, with_hooks

from loopspec.model.commands import (
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Deny,
    HookAnswers,
    HookAudit,
    ModelReplies,
    Pass,
    PreVerdict,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
    audit_words,
)
from loopspec.model.config import HookSpec
from loopspec.model.errors import InvalidEventError
from loopspec.model.facts import HOOK_DECISIONS
from loopspec.model.messages import ToolCallBlock

BASH = ToolCallBlock("c1", "bash", '{"command":"rm -rf build"}')
SAFE = {"command": "rm -rf ./build --one-file-system"}
GUARDED = with_hooks(HookSpec("guard", "PreToolUse", "bash"))
VERDICTS: list[PreVerdict] = [
    Pass(),
    Allow(),
    Allow(SAFE),
    Ask(),
    Ask(updated_input=SAFE),
    Deny("no"),
]


@pytest.mark.parametrize(
    ("verdict", "word"),
    [
        (Pass(), "block"),
        (Allow(SAFE), "defer"),
        (Allow(SAFE), "approve"),
        (Ask(), "deny"),
        (Ask(updated_input=SAFE), "defer"),
        (Deny("no"), "allow"),
    ],
)
def test_HOOK_1_an_audit_word_contradicting_the_verdict_is_refused(
    verdict: PreVerdict, word: str
) -> None:
    with pytest.raises(InvalidEventError) as refused:
        HookAnswers(verdict, HookAudit(decision=word))
    assert refused.value.rule_id == "HOOK-1"
    assert repr(word) in str(refused.value)


def test_HOOK_1_every_verdict_may_record_its_own_word_and_only_known_words() -> None:
    for verdict in VERDICTS:
        assert audit_words(verdict) <= HOOK_DECISIONS
    assert {"pass", "allow", "ask", "deny"} <= set().union(*map(audit_words, VERDICTS))


@pytest.mark.parametrize(
    ("verdict", "word"),
    [(verdict, word) for verdict in VERDICTS for word in sorted(audit_words(verdict))],
)
def test_HOOK_1_RW_2_DEC_2_a_log_with_an_allowed_audit_word_passes_the_invariants(
    verdict: PreVerdict, word: str
) -> None:
    """Every word the model accepts for a verdict gives a log check accepts, to the result."""
    program: list[Command] = [
        SubmitUser("clean"),
        ModelReplies((BASH,)),
        HookAnswers(verdict, HookAudit(decision=word, exit_code=0)),
    ]
    if isinstance(verdict, Ask):
        program.append(ApprovalAnswers("allowed-once"))
    if not isinstance(verdict, Deny):
        program.append(ToolFinishes("c1", ToolSucceeded("done")))
    state = run(GUARDED, program)
    assert clean(state.log) == []
