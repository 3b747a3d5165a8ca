"""Fresh bugs of session 25, blamed on the rule their author must fix, in words that say what.

Session 25 wrote twenty-five more wrong loops outside the project (copies of `impl/` and of
`examples/js-loop/`, each with one bug) and ran `loopspec conform` on each. Where the report
named another rule than the one the bug breaks, or no program showed the bug, the difference is
planted here in the model and a fixed program that shows it is replayed:

- two hooks' inputs merged key by key (each hook patching the one before), where the last input
  replaces the arguments whole: read as arguments that are not the effective ones (RW-1) where
  the merge is what is wrong (HOOK-3);
- a PostToolUse block whose audit records `error` (a hook that failed under fail-closed) taken
  for no decision, the body's result kept: never caught, as no program drew such an audit, then
  read as a result that differs from the body's (EXE-4) where the block is what was ignored
  (DEC-3); a PreToolUse deny audited so and let through was caught by the same new program
  and read as a result held back (ORD-3) where the denied call ran (DEC-1);
- crash repair that runs a recorded call again (a retry), besides answering it
  TOOL_OUTCOME_UNKNOWN: read as a call started though it is answered at the gate (DEC-1) where
  crash repair starts no body (REC-1);
- a matcher tested against the NFKC form of the tool name, so a call spelling `read` in
  fullwidth letters runs the `read` hook: never caught, as every generated name is ASCII, then
  read as a reply left out (ORD-1) where the matcher is what is wrong (HOOK-8);
- tools looked up by their lowercased name (`Bash` runs bash), presenters chosen so (`Bash` gets
  the shell's card), tool results cut short in the history only, and user input typed while an
  approval is pending appended at once: never caught, or on one seed at the 107th program, as
  no program called a tool in capitals, returned a long result or typed during an approval; the
  targeted programs of rare situations now hold each, which conform names EXE-5, VIEW-3, HIST-1
  and ADJ-1.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from typing import Any

import attrs
import pytest
from fresh_bugs import (
    GUARDED_BASH,
    FreshBug,
    assert_blamed_on,
    assert_passes_on_model,
    bash_answered,
    calls,
    names,
    report,
    row_named,
)

from loopspec.model import presenters, rewrite
from loopspec.model.commands import (
    Allow,
    Command,
    Crash,
    Deny,
    HookAnswers,
    HookAudit,
    Pass,
    PostBlock,
    PostPass,
    PostVerdict,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import ApprovalAsked, ApprovalDecided, ToolCallRecorded
from loopspec.model.messages import ToolCallBlock
from loopspec.model.rewrite import Resolution
from loopspec.model.state import DENY, HookVote
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.history_change import HistoryChange
from loopspec.properties.conformance.situation_sweep import sweep_situations
from loopspec.properties.conformance.target import ModelTarget, Observation

READ = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
REVIEWED_READS = LoopConfig(tools=(READ,), hooks=(HookSpec("review", "PostToolUse", "read"),))
FAILED_CLOSED = HookAudit(decision="error", duration_ms=60000.0)
FULLWIDTH_READ = "\uff52\uff45\uff41\uff44"


_RESOLVE = rewrite.resolve_call


def _merging_inputs(
    call: ToolCallBlock, votes: tuple[HookVote, ...], config: LoopConfig
) -> Resolution:
    resolved = _RESOLVE(call, votes, config)
    ordered = rewrite.in_configured_order(votes, config)
    inputs = [rewrite.supplied_input(vote.verdict) for vote in ordered]
    objects = [value for value in inputs if isinstance(value, Mapping)]
    if resolved.decision == DENY or len(objects) < 2:
        return resolved
    merged: dict[str, Any] = {}
    for value in objects:
        merged.update(value)
    return attrs.evolve(resolved, arguments=json.dumps(merged, separators=(",", ":")))


class MergesRewrites(ModelTarget):
    """The model, except that a hook's input is merged over the inputs hooks before it supplied
    (later keys win) instead of replacing them."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "resolve_call", _merging_inputs)
            return super().apply(command)


def _fail_open(verdict: PostVerdict) -> PostVerdict:
    if isinstance(verdict, PostBlock) and verdict.audit == FAILED_CLOSED:
        return PostPass(verdict.audit)
    return verdict


class PostErrorFailsOpen(ModelTarget):
    """The model, except that a PostToolUse block audited `error` is taken for no decision: the
    body's result stands."""

    def apply(self, command: Command) -> Observation:
        if isinstance(command, ToolFinishes):
            command = attrs.evolve(command, post=tuple(_fail_open(v) for v in command.post))
        return super().apply(command)


_MATCHES = HookSpec.matches


def _matches_compatibility_form(hook: HookSpec, name: str) -> bool:
    return _MATCHES(hook, unicodedata.normalize("NFKC", name))


class MatchesTheCompatibilityForm(ModelTarget):
    """The model, except that a matcher is tested against the NFKC form of the tool name."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(HookSpec, "matches", _matches_compatibility_form)
            return super().apply(command)


def _pre_fail_open(command: Command) -> Command:
    if (
        isinstance(command, HookAnswers)
        and isinstance(command.verdict, Deny)
        and command.audit == FAILED_CLOSED
    ):
        return HookAnswers(Pass(), command.audit)
    return command


class PreErrorFailsOpen(ModelTarget):
    """The model, except that a PreToolUse deny audited `error` is taken for no decision: the
    call runs."""

    def apply(self, command: Command) -> Observation:
        return super().apply(_pre_fail_open(command))


class RepairRerunsCalls(ModelTarget):
    """The model, except that crash repair runs again each recorded call it answers
    TOOL_OUTCOME_UNKNOWN (a retry, so a crash loses no work)."""

    def apply(self, command: Command) -> Observation:
        if not isinstance(command, Recover) or self.state is None:
            return super().apply(command)
        recorded = {
            e.call_id: e.arguments for e in self.state.log if isinstance(e, ToolCallRecorded)
        }
        observed = super().apply(command)
        events = observed.events
        rerun = [
            (call_id, recorded[call_id])
            for event in events
            if (event["data"].get("error") or {}).get("code") == "TOOL_OUTCOME_UNKNOWN"
            for call_id in [event["data"]["message"]["source"]["callId"]]
        ]
        return attrs.evolve(observed, executed=(*observed.executed, *rerun))


PROGRAMS: list[FreshBug] = [
    (
        "two hooks' inputs merged key by key",
        MergesRewrites,
        GUARDED_BASH,
        bash_answered(
            '{"command":"ls"}',
            Allow(updated_input={"command": "ls", "timeout": 5}),
            Allow(updated_input={"command": "pwd"}),
        ),
        "HOOK-3",
    ),
    (
        "a PostToolUse block audited error taken for no decision",
        PostErrorFailsOpen,
        REVIEWED_READS,
        (
            SubmitUser(""),
            calls("c1", "read", '{"file_path":""}'),
            ToolFinishes("c1", ToolSucceeded("secret"), (PostBlock("timed out", FAILED_CLOSED),)),
        ),
        "DEC-3",
    ),
    (
        "a PreToolUse deny audited error taken for no decision",
        PreErrorFailsOpen,
        LoopConfig(tools=(READ,), hooks=(HookSpec("guard", "PreToolUse", "read"),)),
        (
            SubmitUser(""),
            calls("c1", "read", '{"file_path":""}'),
            HookAnswers(Deny("timed out"), FAILED_CLOSED),
        ),
        "DEC-1",
    ),
    (
        "crash repair runs a recorded call again",
        RepairRerunsCalls,
        LoopConfig(tools=(READ,)),
        (SubmitUser(""), calls("c1", "read", '{"file_path":""}'), Crash(), Recover()),
        "REC-1",
    ),
    (
        "a matcher tested against the NFKC form of the tool name",
        MatchesTheCompatibilityForm,
        LoopConfig(tools=(READ,), hooks=(HookSpec("reader", "PreToolUse", "read"),)),
        (SubmitUser(""), calls("c1", FULLWIDTH_READ, '{"file_path":""}')),
        "HOOK-8",
    ),
]


@pytest.mark.parametrize("row", PROGRAMS, ids=names(PROGRAMS))
def test_MODEL_1_a_fresh_bug_of_round_6_is_blamed_on_the_rule_its_author_must_fix(
    row: FreshBug,
) -> None:
    """MODEL-1 (HOOK-3, DEC-3, DEC-1, REC-1, HOOK-8): the first divergence names the rule
    broken."""
    assert_blamed_on(row)


@pytest.mark.parametrize("row", PROGRAMS, ids=names(PROGRAMS))
def test_MODEL_1_the_round_6_programs_pass_on_the_model(row: FreshBug) -> None:
    """MODEL-1: control: without the bug, no program diverges."""
    assert_passes_on_model(row)


_TOOL = LoopConfig.tool


def _tool_by_lowercased_name(config: LoopConfig, name: str) -> ToolSpec | None:
    return _TOOL(config, name.lower())


class LooksToolsUpInLowerCase(ModelTarget):
    """The model, except that a call's tool is looked up by its lowercased name."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(LoopConfig, "tool", _tool_by_lowercased_name)
            return super().apply(command)


class _LowercasedKeys:
    """A presenter table read by the lowercased tool name."""

    def __init__(self, table: Mapping[str, Any]) -> None:
        self._table = table

    def get(self, name: str) -> Any:
        return self._table.get(name.lower())


class PresentsByLowercasedName(ModelTarget):
    """The model, except that a call's presenter is chosen by its tool's lowercased name."""

    def apply(self, command: Command) -> Observation:
        lowercased = _LowercasedKeys(presenters.CALL_PRESENTERS)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(presenters, "CALL_PRESENTERS", lowercased)
            return super().apply(command)


def _cut(message: Any) -> Any:
    copy = json.loads(json.dumps(message))
    for block in copy.get("content", ()):
        for part in block.get("content", ()) if isinstance(block, dict) else ():
            if part.get("type") == "text" and len(part["text"]) > 2000:
                part["text"] = part["text"][:2000] + "\n[truncated]"
    return copy


class TruncatesResultsInTheHistory(ModelTarget):
    """The model, except that a tool result's text longer than 2000 characters is cut short in
    the history its next model request carries (the log keeps it whole)."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if observed.history is None:
            return observed
        appended = tuple(_cut(message) for message in observed.history.appended)
        return attrs.evolve(observed, history=HistoryChange(observed.history.kept, appended))


class AppendsInputDuringAnApproval(ModelTarget):
    """The model, except that what the user types while an approval is pending is appended at
    once as a user/message."""

    def apply(self, command: Command) -> Observation:
        observed = super().apply(command)
        if not isinstance(command, SubmitUser) or not self._approval_pending():
            return observed
        assert self.state is not None
        text = [{"type": "text", "text": command.text}]
        message: dict[str, Any] = {"role": "user", "content": text}
        message |= {"source": {"kind": "user"}, "id": "typed"}
        event = {"type": "user/message", "seq": len(self.state.log), "time": 0, "data": message}
        event["surfaceOp"] = "append"
        return attrs.evolve(observed, events=(*observed.events, event))

    def _approval_pending(self) -> bool:
        assert self.state is not None
        asked = {e.id for e in self.state.log if isinstance(e, ApprovalAsked)}
        return bool(asked - {e.id for e in self.state.log if isinstance(e, ApprovalDecided)})


WORDS: list[tuple[str, tuple[str, ...]]] = [
    (
        "two hooks' inputs merged",
        (
            "are the inputs hooks guard, rewriter supplied merged key by key",
            "hook rewriter's, replaces the arguments whole",
        ),
    ),
    (
        "a PostToolUse block audited error",
        (
            "a PostToolUse hook blocked it, so the block reasons replace it",
            "a hook that failed under fail-closed blocks the result (HOOK-7)",
        ),
    ),
    (
        "a PreToolUse deny audited error",
        (
            "the target runs it, but hook guard denied it",
            "a hook that failed under fail-closed denies the call (HOOK-7)",
        ),
    ),
    ("crash repair runs a recorded call again", ("crash repair starts no body",)),
    (
        "a matcher tested against the NFKC form",
        (
            'hook reader\'s matcher "read" for tool \uff52\uff45\uff41\uff44',
            "the name's Unicode compatibility form, NFKC",
        ),
    ),
]
"""Each row of PROGRAMS its report's words must say: which hooks, what the loop must do."""


@pytest.mark.parametrize(("name", "phrases"), WORDS, ids=[name for name, _ in WORDS])
def test_MODEL_1_a_round_6_report_says_what_to_fix(name: str, phrases: tuple[str, ...]) -> None:
    """MODEL-1 (HOOK-3, DEC-3, DEC-1, REC-1, HOOK-8): the words name the hooks involved and the
    rule's demand: the last input replaces the arguments whole; a hook that failed closed
    denies or blocks, its audit's word aside (HOOK-7); crash repair starts no body; the
    matcher fits only the name's NFKC form."""
    said = report(*row_named(PROGRAMS, name)[1:4])
    for phrase in phrases:
        assert phrase in said, said


SWEPT: list[tuple[type[ModelTarget], str]] = [
    (MatchesTheCompatibilityForm, "HOOK-8"),
    (PostErrorFailsOpen, "DEC-3"),
    (PreErrorFailsOpen, "DEC-1"),
    (LooksToolsUpInLowerCase, "EXE-5"),
    (PresentsByLowercasedName, "VIEW-3"),
    (TruncatesResultsInTheHistory, "HIST-1"),
    (AppendsInputDuringAnApproval, "ADJ-1"),
]
"""The wrong loops no random program showed (or one in 400), and the rule each breaks: a call
spelling `read` in fullwidth letters, hooks failing closed (audited error), a call of `Bash`
(not registered, no presenter), a result of 28,890 characters, the user typing while a call
waits for its approval."""


@pytest.mark.parametrize(("target", "rule"), SWEPT, ids=[rule for _target, rule in SWEPT])
def test_MODEL_1_a_round_6_bug_no_program_showed_is_found_by_the_targeted_programs(
    target: type[ModelTarget], rule: str
) -> None:
    """MODEL-1 (HOOK-8, DEC-3, DEC-1, EXE-5, VIEW-3, HIST-1, ADJ-1): the targeted programs of
    rare situations find each bug and name the rule it breaks."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(target, frozenset(CAPABILITIES))
    divergence = found.value.divergence
    assert divergence.rule_id == rule, divergence.what


def test_MODEL_1_the_targeted_programs_pass_on_the_model() -> None:
    """Control: the targeted programs, this round's included, do not diverge on the model."""
    sweep_situations(ModelTarget, frozenset(CAPABILITIES))
