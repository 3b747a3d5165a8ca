"""Fresh bugs of session 37, taken from what real harnesses were reported to do wrong.

Rounds 3 to 17 planted bugs their authors imagined. Round 18 read public bug reports of agent
loops (Claude Code, Codex, Copilot CLI, Qwen Code, Hermes, OpenCode, Gemini CLI, ...) in the
area loopspec governs, wrote down for each the behaviour and the rule it breaks before running
anything, planted each as a one-to-few-line change in a copy of examples/js-loop (kept outside
the project), and ran `loopspec conform` on seeds 1 and 2 at the default example count, and
`loopspec check` on the log where the bug is about what was written. Each bug is planted here
in the model and replayed on a short program; the comment of each row cites the report (facts
taken from it, not its code or prose). Found wrong and now named right:

- a single hook's `updatedInput` dropped in every reader and the run (Claude Code #79321):
  named RW-1, though every reader agreed; now RW-2 (an input a hook supplied is applied and
  recorded, or the call refused), as check names such a log;
- a passthrough answering after a rewrite erasing it (Claude Code #15897): RW-1 with HOOK-3
  in the words; now HOOK-3 where every reader and the run keep the model's arguments;
- an input merged into the model's arguments (the patch Claude Code #30770 asked for): RW-1;
  now RW-2 naming the keys kept from the model's, as check names it;
- a call interrupted while it ran told the user rejected it (Claude Code #86001): "after an
  abort it is an ABORTED error", though it was one; now TEXT-1 with the words it should say;
- a denied, blocked or failed call's card never ended (Hermes #114395): PROTO-1, as if the
  wire were wrong; now ADJ-3, as check names an ACP recording's card no update ended;
- arguments "" read as no object (Brave #56601): a traceback (exit 3); now EXE-2;
- text that is no JSON run as {} (HolmesGPT #906 review): EXE-5; now EXE-2;
- hooks skipped for a tool that is not registered, run for a registered tool's call after it
  (WebMCP #283's hallucinated tools): HOOK-8, as a glob reading `.*`; now EXE-5, as where no
  other call follows.

Of 36 bugs, 35 were found on both seeds (the blank arguments crashed loopspec, exit 3, on
both), 27 by the rule written before the run on both. After the fixes 34 are, the passthrough's
too where its call waits for a slot (the probe that settles earlier calls now shows it run or
asked); the other two by a rule SPEC.md gives the situation: ABORT-1 for a permission request
an abort left unanswered (ABORT-3 expected: both rules say it, ABORT-1 first), ADJ-3 for the
card never ended (VIEW-2 expected). Rows for duplicate call ids accepted (crush #3121, EXE-1)
and for ACP titles and statuses (Gemini CLI #14957, zeph #928, VIEW-2) are left to the survey:
the model has no place to plant them in one line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest
from fresh_bugs import FreshBug, assert_found, calls, names, planted, presenting_with
from mutants import MUTANTS, MutantTarget

from loopspec.model import dispatch, handlers, rewrite, wording
from loopspec.model.commands import (
    Abort,
    Allow,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import (
    ApprovalAsked,
    Event,
    ToolCallRecorded,
    ToolResultRecorded,
)
from loopspec.model.jsonvalue import FrozenMap, JsonValue, dumps, parse_arguments
from loopspec.model.messages import ToolCallBlock
from loopspec.model.records import open_step
from loopspec.model.repair import interrupted_turn_closers
from loopspec.model.replay import LogPresenter, Shown
from loopspec.model.state import ASK, ASKING, DENY, READY, WAITING, Dispatching, QueuedMessage
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.stateful.strategies import TOOLS

READ = '{"file_path":"a.txt"}'
ONE_HOOK = LoopConfig(tools=TOOLS, hooks=(HookSpec("rewriter", "PreToolUse", "read"),))
TWO_HOOKS = LoopConfig(
    tools=TOOLS,
    hooks=(HookSpec("first", "PreToolUse", "read"), HookSpec("second", "PreToolUse", "read")),
)
POST = LoopConfig(tools=TOOLS, hooks=(HookSpec("audit", "PostToolUse", "read"),))
PLAIN = LoopConfig(tools=TOOLS)


def _mutant(name: str) -> type[ModelTarget]:
    """The wrong loop of tests/mutants.py named `name`, as a target type."""
    mutant = next(m for m in MUTANTS if m.name == name)

    class Planted(MutantTarget):
        def __init__(self) -> None:
            super().__init__(mutant)

    Planted.__doc__ = mutant.describe
    return Planted


def _read_hooked(*verdicts: PreVerdict, arguments: str = READ) -> tuple[Command, ...]:
    """The user's message, a reply calling read (c1), and its hooks' answers."""
    return (SubmitUser(""), calls("c1", "read", arguments), *map(HookAnswers, verdicts))


def _to(path: str) -> FrozenMap:
    return FrozenMap({"file_path": path})


# -- what a hook supplied ---------------------------------------------------------------------


def _last_answer_decides(supplied: tuple[bool, ...], merged: int) -> int:
    """A rewrite wins only when the last hook to answer supplied it (a passthrough erases)."""
    return len(supplied) - 1 if supplied and supplied[-1] and merged != 3 else -1


def _allow_alone_supplies(verdict: PreVerdict) -> JsonValue:
    return verdict.updated_input if isinstance(verdict, Allow) else None


_REAL_RESOLVE = rewrite.resolve_call


def _merged_resolve(call: ToolCallBlock, votes: Any, config: LoopConfig) -> rewrite.Resolution:
    """`resolve_call`, except that a hook's input is merged into the model's arguments."""
    resolution = _REAL_RESOLVE(call, votes, config)
    original = parse_arguments(call.arguments)
    if resolution.sidecar is None or not isinstance(original, FrozenMap):
        return resolution
    given = parse_arguments(resolution.arguments)
    assert isinstance(given, FrozenMap)
    merged = dumps(FrozenMap({**original, **given}))
    return attrs.evolve(resolution, arguments=merged)


def _ask_denies(call: ToolCallBlock, votes: Any, config: LoopConfig) -> rewrite.Resolution:
    """`resolve_call`, except that an ask denies the call (Qwen Code's ask as a deny)."""
    resolution = _REAL_RESOLVE(call, votes, config)
    if resolution.decision != ASK:
        return resolution
    return attrs.evolve(resolution, decision=DENY, reason=resolution.reason or "denied")


# -- what a PostToolUse hook said -------------------------------------------------------------

_REAL_PREPARE = dispatch.prepare_result
_REAL_POST_AUDIT = dispatch._append_post_audit


def _post_read_as(kind: type[PostVerdict]) -> Callable[..., Any]:
    """`prepare_result`, except that verdicts of `kind` are read as passes."""

    def prepare(slot: Any, outcome: Any, post: Any, aborting: str | None) -> Any:
        kept = tuple((hook, PostPass() if isinstance(v, kind) else v) for hook, v in post)
        return attrs.evolve(_REAL_PREPARE(slot, outcome, kept, aborting), post=post)

    return prepare


def _post_audited_twice(draft: Any, turn: int, slot: Any, result: Any) -> None:
    _REAL_POST_AUDIT(draft, turn, slot, result)
    _REAL_POST_AUDIT(draft, turn, slot, result)


# -- what an abort did ------------------------------------------------------------------------


def _abort_answers_nothing(draft: Any, phase: Dispatching) -> Dispatching:
    """Nothing starts after the abort, and the calls that never started get no result."""
    return attrs.evolve(phase, gate=len(phase.slots))


def _abort_forgets_the_approval(draft: Any, phase: Dispatching) -> Dispatching:
    """The abort's drain, except that a pending approval request is never answered."""
    slots = list(phase.slots)
    for index in range(phase.gate, len(slots)):
        if slots[index].status in (WAITING, ASKING):
            slots[index] = attrs.evolve(
                slots[index], status=READY, result=dispatch._aborted_before_dispatch()
            )
    return attrs.evolve(phase, slots=tuple(slots), gate=len(slots))


# -- what a crash repair appended -------------------------------------------------------------

_REAL_CLOSERS = interrupted_turn_closers


def _renumbered(closers: tuple[Event, ...], first: int) -> tuple[Event, ...]:
    return tuple(attrs.evolve(event, seq=first + n) for n, event in enumerate(closers))


def _closers_without_unknown(log: tuple[Event, ...]) -> tuple[Event, ...]:
    """Repair closing the step and turn, but answering no recorded call."""
    closers = [
        event
        for event in _REAL_CLOSERS(log)
        if not (isinstance(event, ToolResultRecorded) and event.sources is not None)
    ]
    return _renumbered(tuple(closers), len(log))


def _closers_answering_again(log: tuple[Event, ...]) -> tuple[Event, ...]:
    """Repair answering every call of the open step, those already answered too."""
    unanswered = tuple(e for e in log if not isinstance(e, ToolResultRecorded))
    return _renumbered(_REAL_CLOSERS(unanswered), len(log))


def _closers_all_unstarted(log: tuple[Event, ...]) -> tuple[Event, ...]:
    """Repair telling every call it never started, the recorded ones too."""
    unrecorded = tuple(e for e in log if not isinstance(e, ToolCallRecorded))
    return _renumbered(_REAL_CLOSERS(unrecorded), len(log))


# -- what the user typed ----------------------------------------------------------------------


class DeliversTypedInputAtOnce(ModelTarget):
    """The model, except that what the user types while calls await their results is appended
    at once, between a reply's calls and their results (stakpak/agent PR #488)."""

    def apply(self, command: Command) -> Observation:
        busy = self.state is not None and isinstance(self.state.phase, Dispatching)
        observed = super().apply(command)
        if not (busy and isinstance(command, SubmitUser) and observed.accepted):
            return observed
        assert self.state is not None
        typed = {
            "type": "user/message",
            "seq": len(self.state.log),
            "time": self.state.log[-1].time,
            "data": {"role": "user", "content": [{"type": "text", "text": command.text}],
                     "source": {"kind": "user"}, "id": "typed"},
            "surfaceOp": "append",
        }  # fmt: skip
        return attrs.evolve(observed, events=(typed,), commits=(1,))


_REAL_OPEN_STEP = open_step


def _typed_input_held(draft: Any, turn: int, step: int, queued: tuple[QueuedMessage, ...]) -> None:
    """The next step opens with the queued contexts alone: what the user typed waits for the
    turn's end (kolega-code PR #255 before its fix)."""
    _REAL_OPEN_STEP(draft, turn, step, tuple(m for m in queued if m.plugin is not None))


# -- what the editor was shown ----------------------------------------------------------------


class _EndsNoRefusedCard(LogPresenter):
    """Sends no update for a result that failed without a code (a denial, a block, a body's
    failure): its card is left in_progress (Hermes #114395)."""

    def feed(self, event: Event) -> Shown | None:
        if (
            isinstance(event, ToolResultRecorded)
            and event.message.result.is_error
            and not event.error
        ):
            return None
        return super().feed(event)


class _AsksWithNoInput(LogPresenter):
    """Asks permission showing rawInput {} (OpenCode #7370)."""

    def feed(self, event: Event) -> Shown | None:
        if isinstance(event, ApprovalAsked) and event.call_id is not None:
            name, _arguments, view = self._calls[event.call_id]
            self._calls[event.call_id] = (name, FrozenMap({}), view)
        return super().feed(event)


class _CardsWithNoInput(LogPresenter):
    """Shows each call's card before its input is known, as {} (OpenCode #23947)."""

    def feed(self, event: Event) -> Shown | None:
        if isinstance(event, ToolCallRecorded):
            return super().feed(attrs.evolve(event, arguments="{}"))
        return super().feed(event)


# -- how the arguments were read --------------------------------------------------------------


def _blank_is_no_object(raw: str) -> Any:
    return raw if not raw.strip() else parse_arguments(raw)


def _no_json_is_empty(raw: str) -> Any:
    value = parse_arguments(raw)
    return FrozenMap({}) if isinstance(value, str) else value


_REAL_HOOKS_FOR = LoopConfig.hooks_for


def _hooks_for_registered(config: LoopConfig, point: str, name: str) -> tuple[HookSpec, ...]:
    return _REAL_HOOKS_FOR(config, point, name) if config.tool(name) is not None else ()


TODO = LoopConfig(tools=(ToolSpec("todo"),))
LOOSE_BASH = LoopConfig(tools=(ToolSpec("bash"),))
GUARDED = LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "*"),))
TWO_READS = ModelReplies((ToolCallBlock("c1", "read", READ), ToolCallBlock("c2", "read", READ)))
TWO_BASH = ModelReplies(
    (ToolCallBlock("c1", "bash", '{"command":"a"}'), ToolCallBlock("c2", "bash", '{"command":"b"}'))
)

FIXED: tuple[FreshBug, ...] = (
    # github.com/anthropics/claude-code/issues/79321 (also #81340, github/copilot-cli#2013)
    (
        "a single hook's input dropped everywhere",
        planted(rewrite, "winning_rewrite", lambda _s, _m: -1, "no hook's input is applied"),
        ONE_HOOK,
        _read_hooked(Allow(updated_input=_to("b.txt"))),
        "RW-2",
    ),
    # github.com/anthropics/claude-code/issues/15897 (also #16117)
    (
        "a passthrough after a rewrite erases it",
        planted(rewrite, "winning_rewrite", _last_answer_decides, "the last answer decides"),
        TWO_HOOKS,
        _read_hooked(Allow(updated_input=_to("b.txt")), Pass()),
        "HOOK-3",
    ),
    # The same, the call held behind an earlier one: the probe lets it run (seeds 1 and 2).
    (
        "a passthrough erases the rewrite of a call that waits",
        planted(rewrite, "winning_rewrite", _last_answer_decides, "the last answer decides"),
        LoopConfig(tools=TOOLS, hooks=(HookSpec("first"), HookSpec("second"))),
        (
            SubmitUser(""),
            TWO_BASH,
            HookAnswers(Pass()),
            HookAnswers(Pass()),
            HookAnswers(Allow(updated_input=FrozenMap({"command": "z"}))),
            HookAnswers(Pass()),
        ),
        "HOOK-3",
    ),
    # The same, the call asking once a slot frees (seeds 1 and 2 again, after that fix).
    (
        "a passthrough erases the rewrite of a call that asks once a slot frees",
        planted(rewrite, "winning_rewrite", _last_answer_decides, "the last answer decides"),
        LoopConfig(tools=TOOLS, hooks=(HookSpec("first"), HookSpec("second")), max_parallel=1),
        (
            SubmitUser(""),
            TWO_READS,
            HookAnswers(Pass()),
            HookAnswers(Pass()),
            HookAnswers(Ask(updated_input=_to("b.txt"))),
            HookAnswers(Pass()),
        ),
        "HOOK-3",
    ),
    # github.com/anthropics/claude-code/issues/30770 (a patch asked for; the docs replace)
    (
        "a hook's input merged into the model's arguments",
        planted(rewrite, "resolve_call", _merged_resolve, "inputs merge into the arguments"),
        ONE_HOOK,
        _read_hooked(Allow(updated_input=_to("b.txt")), arguments='{"file_path":"a","limit":1}'),
        "RW-2",
    ),
    # github.com/anthropics/claude-code/issues/86001 (also #47282)
    (
        "a call interrupted while it ran told the user rejected it",
        planted(
            wording,
            "ABORTED_WHILE_RUNNING",
            "the user rejected tool read",
            "an interrupted call worded as a rejected one",
        ),
        PLAIN,
        (
            SubmitUser(""),
            calls("c1", "read", READ),
            Abort(),
            ToolFinishes("c1", ToolSucceeded("done")),
        ),
        "TEXT-1",
    ),
    # github.com/NousResearch/hermes-agent/issues/114395
    (
        "a failed call's card never ended",
        presenting_with(_EndsNoRefusedCard, _EndsNoRefusedCard.__doc__ or ""),
        PLAIN,
        (SubmitUser(""), calls("c1", "read", READ), ToolFinishes("c1", ToolFailed("boom"))),
        "ADJ-3",
    ),
    # github.com/brave/brave-browser/issues/56601
    (
        "blank arguments read as no object",
        planted(rewrite, "parse_arguments", _blank_is_no_object, "blank is not {}"),
        TODO,
        (SubmitUser(""), calls("c1", "todo", "")),
        "EXE-2",
    ),
    # github.com/HolmesGPT/holmesgpt/pull/906 (review)
    (
        "arguments that are no JSON run as {}",
        planted(rewrite, "parse_arguments", _no_json_is_empty, "a parse error reads as {}"),
        LOOSE_BASH,
        (SubmitUser(""), calls("c1", "bash", '{"command": ')),
        "EXE-2",
    ),
    # The same as FOUND's last row, a registered tool's call after it (seed 2): the hook ran
    # for that call, so its matcher was read right; HOOK-8 was named, for a glob reading `.*`.
    (
        "hooks skipped for a tool that is not registered, run for the next call",
        planted(LoopConfig, "hooks_for", _hooks_for_registered, "only registered tools are hooked"),
        LoopConfig(tools=TOOLS, hooks=(HookSpec("late", "PreToolUse", ".*"),)),
        (
            SubmitUser(""),
            ModelReplies(
                (ToolCallBlock("c1", "missing_tool", "{}"), ToolCallBlock("c2", "read", READ))
            ),
            HookAnswers(Pass()),
        ),
        "EXE-5",
    ),
)

FOUND: tuple[FreshBug, ...] = (
    # real-harnesses.md: Claude Code 2.1.332 and Codex 0.171.0 (also claude-code #77851)
    ("a rewrite applied to execution alone", _mutant("execution-only-rewrite"), ONE_HOOK,
     _read_hooked(Allow(updated_input=_to("b.txt"))), "RW-1"),
    # github.com/anthropics/claude-code/issues/83353, github.com/openai/codex/issues/35713
    ("the first of two rewrites wins", _mutant("last-finisher-wins"), TWO_HOOKS,
     _read_hooked(Allow(updated_input=_to("b.txt")), Allow(updated_input=_to("c.txt"))),
     "HOOK-3"),
    # github.com/anthropics/claude-code/issues/75915
    ("a rewrite beside an ask approved and run as the original", _mutant("ask-shows-original"),
     TWO_HOOKS, _read_hooked(Allow(updated_input=_to("b.txt")), Ask()), "RW-4"),
    # github.com/openai/codex/pull/20527 (an input accepted only with allow)
    ("an input given with an ask dropped",
     planted(rewrite, "supplied_input", _allow_alone_supplies, "only an allow supplies"),
     ONE_HOOK, _read_hooked(Ask(updated_input=_to("b.txt"))), "RW-2"),
    # github.com/anthropics/claude-code/issues/4669 (also #37210)
    ("a deny ignored", _mutant("deny-still-executes"), ONE_HOOK, _read_hooked(Deny("no")),
     "DEC-1"),
    # github.com/anthropics/claude-code/issues/77212 (also #89561)
    ("an ask run unasked", planted(dispatch, "ASK", "never", "an ask reads as an allow"),
     ONE_HOOK, _read_hooked(Ask()), "DEC-2"),
    # github.com/QwenLM/qwen-code/issues/6321
    ("an ask read as a deny", planted(rewrite, "resolve_call", _ask_denies, "an ask denies"),
     ONE_HOOK, _read_hooked(Ask()), "DEC-2"),
    # github.com/genai-io/gen-code/issues/441
    ("a later allow outranks a deny",
     planted(rewrite, "merged_rank", lambda ranks: ranks[-1] if ranks else 0, "last one wins"),
     TWO_HOOKS, _read_hooked(Deny("no"), Allow()), "HOOK-2"),
    # github.com/agentforce314/clawcodex/pull/655
    ("a deny's reason ignored",
     planted(rewrite, "_reasons", lambda _votes, _rank: None, "reasons are never read"),
     ONE_HOOK, _read_hooked(Deny("not in this folder")), "DEC-1"),
    # github.com/openclaw/openclaw/issues/15502 (also NousResearch/hermes-agent#17611)
    ("a PreToolUse hook run twice", _mutant("hooks-run-twice"), ONE_HOOK, _read_hooked(Pass()),
     "HOOK-4"),
    # github.com/openclaw/openclaw/pull/27283
    ("a PostToolUse hook run twice",
     planted(dispatch, "_append_post_audit", _post_audited_twice, "audited twice"), POST,
     (SubmitUser(""), calls("c1", "read", READ),
      ToolFinishes("c1", ToolSucceeded("x"), (PostPass(),))), "HOOK-5"),
    # github.com/openai/codex/pull/28365 (also vinhnx/VTCode#374's review)
    ("a PostToolUse block ignored",
     planted(handlers, "prepare_result", _post_read_as(PostBlock), "a block reads as a pass"),
     POST, (SubmitUser(""), calls("c1", "read", READ),
            ToolFinishes("c1", ToolSucceeded("x"), (PostBlock("secret"),))), "DEC-3"),
    # github.com/anthropics/claude-code/issues/55889 (also #19432)
    ("a PostToolUse context never delivered",
     planted(handlers, "prepare_result", _post_read_as(PostContext), "contexts are dropped"),
     POST, (SubmitUser(""), calls("c1", "read", READ),
            ToolFinishes("c1", ToolSucceeded("x"), (PostContext("note"),))), "ADJ-4"),
    # github.com/stakpak/agent/pull/488
    ("what the user typed lands between a call and its result", DeliversTypedInputAtOnce,
     PLAIN, (SubmitUser(""), calls("c1", "read", READ), SubmitUser("also b")), "ADJ-1"),
    # github.com/cline/cline/pull/13297 (interleaved messages break the pairing)
    ("a body's context lands right after its result", _mutant("context-between-call-and-result"),
     PLAIN, (SubmitUser(""), TWO_READS, ToolFinishes("c1", ToolSucceeded("x", ("note",)))),
     "ADJ-1"),
    # github.com/kolega-ai/kolega-code/pull/255
    ("what the user typed held to the turn's end",
     planted(dispatch, "open_step", _typed_input_held, "typed input waits for the turn"),
     PLAIN, (SubmitUser(""), calls("c1", "read", READ), SubmitUser("also b"),
             ToolFinishes("c1", ToolSucceeded("x"))), "ADJ-4"),
    # github.com/anthropics/claude-code/issues/21906 (also can1357/oh-my-pi#11179)
    ("results committed in completion order", _mutant("completion-order-results"), PLAIN,
     (SubmitUser(""), TWO_READS, ToolFinishes("c2", ToolSucceeded("x"))), "ORD-3"),
    # github.com/anthropics/claude-code/issues/1956 (also NousResearch/hermes-agent#76460)
    ("an abort leaves unstarted calls unanswered",
     planted(dispatch, "_abort_unstarted", _abort_answers_nothing, "no result after an abort"),
     PLAIN, (SubmitUser(""), TWO_BASH, Abort(), ToolFinishes("c1", ToolSucceeded("x"))),
     "ABORT-1"),
    # github.com/anthropics/claude-code/issues/63859
    ("a success after an abort kept",
     planted(handlers, "prepare_result",
             lambda slot, outcome, post, _aborting: _REAL_PREPARE(slot, outcome, post, None),
             "the abort is not read"),
     PLAIN, (SubmitUser(""), calls("c1", "read", READ), Abort(),
             ToolFinishes("c1", ToolSucceeded("x"))), "ABORT-1"),
    # github.com/google-gemini/gemini-cli/pull/29439
    ("an abort leaves a permission request unanswered",
     planted(dispatch, "_abort_unstarted", _abort_forgets_the_approval, "no cancelled answer"),
     ONE_HOOK, (*_read_hooked(Ask()), Abort()), "ABORT-1"),
    # github.com/nexus-research-lab/nexus/issues/226 (also QwenLM/qwen-code#9573)
    ("repair answers no recorded call",
     planted(handlers, "interrupted_turn_closers", _closers_without_unknown, "no repair result"),
     PLAIN, (SubmitUser(""), calls("c1", "read", READ), Crash(), Recover()), "REC-1"),
    # github.com/tetsuo-ai/agenc-core/pull/2187
    ("repair answers an answered call again",
     planted(handlers, "interrupted_turn_closers", _closers_answering_again, "answers again"),
     PLAIN, (SubmitUser(""), TWO_READS, ToolFinishes("c1", ToolSucceeded("x")), Crash(),
             Recover()), "REC-1"),
    # github.com/anthropics/claude-code/issues/86001 (a call that ran told it did not)
    ("repair tells a recorded call it never started",
     planted(handlers, "interrupted_turn_closers", _closers_all_unstarted, "never started"),
     PLAIN, (SubmitUser(""), calls("c1", "read", READ), Crash(), Recover()), "REC-1"),
    # github.com/anomalyco/opencode/issues/7370
    ("a permission request showing rawInput {}",
     presenting_with(_AsksWithNoInput, _AsksWithNoInput.__doc__ or ""), ONE_HOOK,
     _read_hooked(Ask()), "ACP-3"),
    # github.com/anomalyco/opencode/issues/23947
    ("a card showing rawInput {}", presenting_with(_CardsWithNoInput, _CardsWithNoInput.__doc__
     or ""), PLAIN, (SubmitUser(""), calls("c1", "read", READ)), "RW-1"),
    # github.com/GoogleChromeLabs/webmcp-tools/issues/283 (hallucinated tool names)
    ("hooks skipped for a tool that is not registered",
     planted(LoopConfig, "hooks_for", _hooks_for_registered, "only registered tools are hooked"),
     GUARDED, (SubmitUser(""), calls("c1", "missing_tool", "{}")), "EXE-5"),
)  # fmt: skip


@pytest.mark.parametrize("row", FOUND, ids=names(FOUND))
def test_MODEL_1_a_reported_bug_of_a_real_harness_is_blamed_on_the_rule_it_breaks(
    row: FreshBug,
) -> None:
    """MODEL-1 (RW-1, RW-2, RW-4, HOOK-2..5, DEC-1..3, ADJ-1, ADJ-4, ORD-3, ABORT-1, REC-1,
    ACP-3, EXE-5): each reported bug conform found right on both seeds is found on its short
    program and named by the rule it breaks; the program passes on the model."""
    assert_found(row)


@pytest.mark.parametrize(
    ("row", "phrases"),
    [
        (FIXED[0], ("its tool/call and the arguments it runs with are the model's", "dropped")),
        (FIXED[1], ("hook second answered after hook first without an input", "(RW-2)")),
        (FIXED[2], ("hook second answered after hook first without an input", "(RW-2)")),
        (FIXED[3], ("or asks about them; hook second answered after hook first",)),
        (FIXED[4], ('merged into the model\'s arguments (the keys "limit" kept',)),
        (FIXED[5], ('the text "Error: tool call aborted"', "approval answered rejected")),
        (FIXED[6], ("no update gives the card completed or failed",)),
        (FIXED[7], ('call c1\'s arguments are blank ("")',)),
        (FIXED[8], ("are no JSON, which EXE-2 keeps as the raw string",)),
        (FIXED[9], ("skips hook late for call c1, whose tool missing_tool is not registered",)),
    ],
    ids=names(FIXED),
)  # fmt: skip
def test_RW_2_HOOK_3_TEXT_1_ADJ_3_EXE_2_EXE_5_a_reported_bug_named_wrong_is_named_right(
    row: FreshBug, phrases: tuple[str, ...]
) -> None:
    """RW-2, HOOK-3, TEXT-1, ADJ-3, EXE-2, EXE-5: the bugs conform named by another rule than
    the one they break (or crashed on), named by it now, in words that say what to fix."""
    assert_found(row, *phrases)


def test_HOOK_2_a_pass_after_a_deny_of_an_unregistered_tool_is_named_HOOK_2() -> None:
    """HOOK-2: the last-answer-wins merge, shown on a call of a tool the configuration lacks (as
    a program cut down on seed 57 shows it): answered UNKNOWN_TOOL, as a call no hook denied is
    where its body would start, it read as DEC-1, a denial's reason worded wrong."""
    _name, last_one_wins, *_ = next(row for row in FOUND if row[0].startswith("a later allow"))
    hooked = LoopConfig(hooks=(HookSpec("first"), HookSpec("second")))
    row = (
        "a later pass outranks a deny of an unregistered tool's call",
        last_one_wins,
        hooked,
        (
            SubmitUser(""),
            calls("c1", "missing_tool", "{}"),
            HookAnswers(Deny("")),
            HookAnswers(Pass()),
        ),
        "HOOK-2",
    )
    assert_found(row, "the target answers it UNKNOWN_TOOL", "hook second said pass")


def test_ADJ_3_a_card_never_ended_for_a_call_no_presenter_renders_is_named_ADJ_3() -> None:
    """ADJ-3: the card no update ends, for a call of grep, which the generic card shows (as
    seeds 50 and 67 of 50-69 cut it down): it read as VIEW-3, a call the target shows nothing
    for, though the target sent its card."""
    _name, unended, config, _program, _rule = next(
        row for row in FIXED if row[0].startswith("a failed call's card never ended")
    )
    program = (
        SubmitUser(""),
        calls("c1", "grep", '{"pattern":"x"}'),
        ToolFinishes("c1", ToolFailed("boom")),
    )
    row = ("a grep call's card never ended", unended, config, program, "ADJ-3")
    assert_found(row, "no update gives the card completed or failed")


def test_DEC_2_an_ask_read_as_a_deny_behind_an_exclusive_call_is_named_DEC_2() -> None:
    """DEC-2: an ask read as a deny, for a write waiting behind a read: the later read the
    denial let through started first (as seed 68 of 50-69 cut it down) and read as SCHED-1;
    the report now says the asked call was denied unasked, told by settling the read."""
    _name, asks_deny, *_ = next(row for row in FOUND if row[0].startswith("an ask read as a deny"))
    config = LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "write"),))
    reply = ModelReplies(
        (
            ToolCallBlock("c1", "read", READ),
            ToolCallBlock("c2", "write", '{"file_path":"a.txt","content":""}'),
            ToolCallBlock("c3", "read", READ),
        )
    )
    row = (
        "an ask read as a deny",
        asks_deny,
        config,
        (SubmitUser(""), reply, HookAnswers(Ask())),
        "DEC-2",
    )
    assert_found(row, "hook guard asked about call c2", "target denies it once the calls before")


def test_EXE_5_hooks_skipped_for_an_unregistered_tools_blank_call_are_named_EXE_5() -> None:
    """EXE-5: hooks skipped for a tool that is not registered, on a call whose arguments only
    Python's strip calls blank (as seeds 59, 61, 63 and 64 of 50-69 cut it down): it read as
    EXE-2, a reader taking them for no JSON; a call of the tool made again with {} tells."""
    _name, unhooked, *_ = next(row for row in FOUND if row[0].startswith("hooks skipped for"))
    config = LoopConfig(hooks=(HookSpec("late", "PreToolUse", ".*"),))
    program = (SubmitUser(""), calls("c1", "missing_tool", "\x1c\x85"))
    row = (
        "hooks skipped for an unregistered tool's blank call",
        unhooked,
        config,
        program,
        "EXE-5",
    )
    assert_found(row, "with {} after it, sent to tell, was answered UNKNOWN_TOOL with no hook")


_LIMITED = FrozenMap({"file_path": "a", "limit": 1})
_LS = '{"command":"ls","description":""}'

# Seeds 50-69 cut these down to programs whose supplied input either equals the model's
# arguments (only the missing sidecar shows) or is one the tool cannot take (the model refuses
# the call): read as RW-2 and HOOK-6, the call made again with an input its tool takes, unlike
# the model's, tells what the loop does with a hook's input.
INPUT_TOLD_AGAIN: tuple[FreshBug, ...] = (
    # seed 66: the input equals the model's arguments
    ("a rewrite equal to the model's input applied to execution alone",
     _mutant("execution-only-rewrite"), ONE_HOOK, _read_hooked(Allow(updated_input=_to("a.txt"))),
     "RW-1"),
    # seed 66 again, the call behind a running grep: its settling, done once, serves both probes
    ("a rewrite equal to the model's input applied to execution alone, behind a running call",
     _mutant("execution-only-rewrite"),
     LoopConfig(tools=TOOLS, hooks=(HookSpec("rewriter", "PreToolUse", "bash"),)),
     (SubmitUser(""), ModelReplies((ToolCallBlock("c1", "grep", '{"pattern":""}'),
                                    ToolCallBlock("c2", "bash", _LS))),
      HookAnswers(Allow(updated_input=parse_arguments(_LS)))),
     "RW-1"),
    # seed 50: the ask's input is {}, which read cannot take
    ("an input its tool cannot take given with an ask dropped",
     planted(rewrite, "supplied_input", _allow_alone_supplies, "only an allow supplies"),
     ONE_HOOK, _read_hooked(Ask(updated_input=FrozenMap({}))), "RW-2"),
    # seeds 61 and 68: the allow's input is {}
    ("a passthrough erases an input its tool cannot take",
     planted(rewrite, "winning_rewrite", _last_answer_decides, "the last answer decides"),
     TWO_HOOKS, _read_hooked(Allow(updated_input=FrozenMap({})), Pass()), "HOOK-3"),
    # seed 68: the merge equals the earlier hook's input, read as that input winning (HOOK-3)
    ("a hook's input merged into the model's arguments, equal to an earlier hook's",
     planted(rewrite, "resolve_call", _merged_resolve, "inputs merge into the arguments"),
     TWO_HOOKS, _read_hooked(Allow(updated_input=_LIMITED), Allow(updated_input=_to("a")),
                             arguments=dumps(_LIMITED)), "RW-2"),
)  # fmt: skip


@pytest.mark.parametrize("row", INPUT_TOLD_AGAIN, ids=names(INPUT_TOLD_AGAIN))
def test_RW_1_RW_2_HOOK_3_what_a_loop_does_with_an_input_is_told_by_the_call_made_again(
    row: FreshBug,
) -> None:
    """RW-1, RW-2, HOOK-3: an input that changes nothing, or one the model refuses, shows only
    a missing sidecar or a missing refusal; the call made again with another input shows it run
    alone, or dropped (by a later passthrough: HOOK-3), and the words say so."""
    assert_found(row, "the call made again, sent to tell")


def test_EXE_2_blank_arguments_read_as_no_object_behind_a_running_call_are_named_EXE_2() -> None:
    """EXE-2: blank arguments read as no object, for a call beside a running one (seed 57 of
    50-69): its INVALID_TOOL_INPUT result waits behind that call's, and the target only does not
    start it, which read as SCHED-1 (the schedule lets it start); settling the call before it
    shows the result, and how the arguments were read is named."""
    _name, blank_invalid, *_ = next(row for row in FIXED if row[0].startswith("blank arguments"))
    config = LoopConfig(tools=(ToolSpec("read", True, ("file_path",)), ToolSpec("list_dir", True)))
    reply = ModelReplies(
        (ToolCallBlock("c1", "read", '{"file_path":""}'), ToolCallBlock("c2", "list_dir", " "))
    )
    row = ("blank arguments read as no object beside a running call", blank_invalid, config,
           (SubmitUser(""), reply), "EXE-2")  # fmt: skip
    assert_found(row, 'call c2\'s arguments are blank (" ")', "once the calls before it settle")
