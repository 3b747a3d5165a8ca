"""HOOK-1: the decision word a hook's audit records agrees with the verdict the loop acted on.

The audit's word is what the log shows the hook said, and check reads it (a "block" denies,
a "defer" asks, an "allow" or "ask" carrying an input supplies it). A word contradicting the
verdict made the model write logs its own invariants reject (found by the impl machine: a
pass audited "block" beside another hook's rewrite read as RW-2), so the model refuses it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from spec_helpers import clean, run, wire, with_hooks

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
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
    audit_words,
    post_audit_words,
)
from loopspec.model.config import HookSpec
from loopspec.model.errors import InvalidEventError
from loopspec.model.facts import HOOK_DECISIONS
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.cli.main import main
from loopspec.properties.conformance.reduce import smaller_candidates
from loopspec.properties.stateful.impl_machine import audited_post_verdicts

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
    assert json.dumps(word) in str(refused.value)


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


def test_HOOK_1_reduction_drops_an_audit_word_the_simpler_verdict_cannot_record() -> None:
    """Cutting a case down tries a plainer verdict for each hook answer; an exit-2 deny's
    "block" would contradict a pass, so that candidate goes without the audit (it raised)."""
    exit_2 = HookAudit(decision="block", exit_code=2, duration_ms=12.5)
    program = (SubmitUser("clean"), ModelReplies((BASH,)), HookAnswers(Deny("no"), exit_2))
    answers = [
        candidate[-1]
        for _config, candidate in smaller_candidates(GUARDED, program)
        if len(candidate) == 3 and isinstance(candidate[-1], HookAnswers)
    ]
    plainer = [a for a in answers if not isinstance(a.verdict, Deny)]
    assert plainer
    assert all(a.audit is None for a in plainer)
    assert HookAnswers(Deny("no")) in answers  # the audit alone dropped, as before


# Exit code 2 is a hook's blocking exit: whatever its stdout says, it cannot allow, ask or add a
# context alone (a context Claude Code reads after exit 2 rides on the block); Codex reads one
# without a reason as a failed hook, a pass audited "error".
@pytest.mark.parametrize(
    "build",
    [
        lambda: HookAnswers(Allow(), HookAudit(exit_code=2)),
        lambda: HookAnswers(Ask("sure?"), HookAudit(decision="ask", exit_code=2)),
        lambda: HookAnswers(Pass(), HookAudit(exit_code=2)),
        lambda: ToolFinishes("c1", ToolSucceeded("A"), (PostContext("n", HookAudit(None, 2)),)),
        lambda: ToolFinishes("c1", ToolSucceeded("A"), (PostPass(HookAudit("pass", 2)),)),
    ],
    ids=["allow", "ask", "pass", "post-context", "post-pass"],
)
def test_HOOK_1_an_exit_code_2_that_does_not_block_is_refused(build: Callable[[], object]) -> None:
    """HOOK-1: an audit saying the hook exited 2 goes with a deny or a block; any other verdict
    is one no hook can give that way (the dsh adapter would have run it as a block)."""
    with pytest.raises(InvalidEventError) as refusal:
        build()
    assert refusal.value.rule_id == "HOOK-1"
    assert "exit code 2" in str(refusal.value)


def test_HOOK_1_an_exit_code_2_block_or_failed_hook_is_accepted_and_logged() -> None:
    """HOOK-1: exit 2 with a deny, a block, or a pass audited "error" (a failed hook) keeps its
    exit code in the log, which the invariants accept."""
    post = with_hooks(HookSpec("guard", "PreToolUse", "bash"), HookSpec("p", "PostToolUse", "*"))
    for answer, judged in (
        (HookAnswers(Deny("no"), HookAudit("block", 2)), ()),
        (HookAnswers(Pass(), HookAudit("error", 2)), (PostBlock("bad", HookAudit("block", 2)),)),
        (HookAnswers(Pass()), (PostPass(HookAudit("error", 2)),)),
    ):
        program: list[Command] = [SubmitUser("go"), ModelReplies((BASH,)), answer]
        if not isinstance(answer.verdict, Deny):
            program.append(ToolFinishes("c1", ToolSucceeded("done"), judged))
        state = run(post, program)
        assert clean(state.log) == []
        assert 2 in [getattr(e, "exit_code", None) for e in state.log]


def test_HOOK_1_reduction_drops_an_exit_code_the_simpler_verdict_cannot_have() -> None:
    """A plainer verdict tried for an exit-2 deny with no audit word goes without the audit:
    a pass that exited 2 would be refused."""
    program = (
        SubmitUser("clean"),
        ModelReplies((BASH,)),
        HookAnswers(Deny("no"), HookAudit(exit_code=2)),
    )
    answers = [
        candidate[-1]
        for _config, candidate in smaller_candidates(GUARDED, program)
        if len(candidate) == 3 and isinstance(candidate[-1], HookAnswers)
    ]
    assert HookAnswers(Pass()) in answers
    assert all(a.audit is None for a in answers if not isinstance(a.verdict, Deny))


# PostToolUse words (HOOK-1): a block's words are `block` and `deny` (and `error` or `stop`),
# and only a block's; a pass's or a context's never are; no post hook asks or defers.
POST_HOOKED = with_hooks(HookSpec("audit", "PostToolUse", "bash"))
POST_VERDICTS: list[PostVerdict] = [PostPass(), PostContext("note"), PostBlock("withheld")]


def _with_word(verdict: PostVerdict, word: str) -> PostVerdict:
    return attrs.evolve(verdict, audit=HookAudit(decision=word))


@pytest.mark.parametrize(
    ("verdict", "word"),
    [
        (PostBlock("withheld"), "allow"),
        (PostBlock("withheld"), "pass"),
        (PostPass(), "block"),
        (PostContext("note"), "deny"),
        (PostContext("note"), "error"),
        (PostPass(), "ask"),
        (PostBlock("withheld"), "defer"),
    ],
)
def test_HOOK_1_a_post_audit_word_contradicting_the_verdict_is_refused(
    verdict: PostVerdict, word: str
) -> None:
    """A block audited `allow` was accepted, and the log then showed no hook blocking a result
    the loop replaced with the block's reason (and a pass audited `block` the other way)."""
    with pytest.raises(InvalidEventError) as refused:
        ToolFinishes("c1", ToolSucceeded("A"), (_with_word(verdict, word),))
    assert refused.value.rule_id == "HOOK-1"
    assert json.dumps(word) in str(refused.value)


@pytest.mark.parametrize(
    ("verdict", "word"),
    [(verdict, word) for verdict in POST_VERDICTS for word in sorted(post_audit_words(verdict))],
)
def test_HOOK_1_a_log_with_an_allowed_post_audit_word_passes_the_invariants(
    verdict: PostVerdict, word: str
) -> None:
    program: list[Command] = [
        SubmitUser("clean"),
        ModelReplies((BASH,)),
        ToolFinishes("c1", ToolSucceeded("done"), (_with_word(verdict, word),)),
    ]
    assert clean(run(POST_HOOKED, program).log) == []


def _post_audited_log(tmp_path: Path, word: str) -> Path:
    """A log where the PostToolUse hook passed a successful result, its audit then edited to
    record `word`."""
    program: list[Command] = [
        SubmitUser("clean"),
        ModelReplies((BASH,)),
        ToolFinishes("c1", ToolSucceeded("done"), (PostPass(),)),
        ModelReplies((TextBlock("finished"),)),
    ]
    lines = [json.dumps({"type": "session", "version": 0, "id": "s", "createdAt": 0, "cwd": "/"})]
    for event in wire(run(POST_HOOKED, program).log):
        data = event["data"]
        assert isinstance(data, dict)
        if event["type"] == "hook/result" and data["point"] == "PostToolUse":
            data["decision"] = word
        lines.append(json.dumps(event))
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("word", "said"), [("block", "whose result is not an error"), ("ask", "nothing to approve")]
)
def test_HOOK_1_check_flags_a_post_audit_word_the_result_contradicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], word: str, said: str
) -> None:
    """`loopspec check`: a PostToolUse audit recording a block on a result that is no error, or
    an ask, breaks HOOK-1 in a dsh-format log (the block was accepted for every loop, as Claude
    Code and Codex write it so: their profiles name it); with the unedited word it passes."""
    assert main(["check", str(_post_audited_log(tmp_path, "pass"))]) == 0
    capsys.readouterr()
    assert main(["check", str(_post_audited_log(tmp_path, word))]) == 1
    out = capsys.readouterr().out
    assert "HOOK-1" in out
    assert said in out


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(max_examples=200, derandomize=True, database=None)
@given(audited_post_verdicts)
def test_HOOK_1_the_impl_machine_draws_post_audits_that_fit_their_verdicts(
    verdict: PostVerdict,
) -> None:
    """The conformance machine drew `block`, `defer` or `error` for any PostToolUse verdict (a
    pass audited `block`); it draws only words the verdict allows, so its programs are ones the
    model accepts."""
    assert verdict.audit is not None
    assert verdict.audit.decision in (None, *post_audit_words(verdict))
    ToolFinishes("c1", ToolSucceeded("A"), (verdict,))
