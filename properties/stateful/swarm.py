"""Swarm testing for conformance programs: each program leans on a few features, hard.

Drawing every command from one fixed mixture makes each feature rare in the same way in every
program: a rewrite needs a hooked configuration, a call its hook matches and a verdict with an
input, so programs with several rewrites, or a rewrite that an approval then shows, are few.
Swarm testing (Groce et al., 2012) draws per program which features are *on*; the features that
are on get most of the program's choices. Over many programs every combination turns up, and
each feature is frequent in the programs that have it on.

The situations a rule governs and the generator reaches on purpose:

- rewrites (RW-1, RW-2, RW-4): PreToolUse verdicts with an updated input, mostly one that fits the
  tool; *identity* rewrites, whose input equals the call's own arguments (a loop must still record
  them as rewrites); rewrites under `Ask`, so the approval shows the effective input;
- several hooks on one call (HOOK-3, HOOK-4): the hooked configurations, drawn more often;
- tool names an unanchored matcher would match in part (`bash_session` for the matcher `bash`,
  `preread` for `read`): `PARTIAL_NAMES_CONFIG` (HOOK-2);
- parallel calls (ORD-3, SCHED-1, ADJ-1): replies with two to four calls;
- approvals and denials (DEC-1, DEC-2), aborts (ABORT-1, ABORT-2), crashes (REC-1, REC-2),
  input typed mid-turn (queued input, ADJ-1): each a disruption or verdict with its own weight;
- contexts a body or a PostToolUse hook defers while later results of the batch are due (ADJ-1);
- outcomes for calls that already settled (EXE-4): a `ToolFinishes` for a call of the batch that
  is no longer running, which every loop must refuse;
- aborts over a partly finished batch: with aborts on, a disruption comes mostly after some call
  settled while an earlier one still runs;
- replies that repeat a call id (EXE-1), which every loop must refuse whole: in a quarter of the
  programs, now and then, a reply's last call takes its first call's id.

Programs are then driven to a quiet end (the conformance machine's `settle`), so what is still
queued is delivered and compared too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TypeVar

import attrs

from loopspec.model.commands import (
    FINISH_CANCELLED,
    FINISH_COMPLETED,
    FINISH_MAX_TOKENS,
    Allow,
    Ask,
    Deny,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    ReplyBlock,
    ToolFailed,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.jsonvalue import FrozenMap, JsonValue, parse_arguments
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.model.state import READY, RUNNING, Dispatching
from loopspec.properties.stateful import strategies as gen

_Picked = TypeVar("_Picked")


@attrs.frozen
class Swarm:
    """Which features one program leans on."""

    rewrites: bool
    identity_rewrites: bool
    approvals: bool
    parallel: bool
    aborts: bool
    crashes: bool
    interjections: bool
    settled_outcomes: bool
    denials: bool
    contexts: bool
    repeated_ids: bool


def _usually(choose: Choose) -> bool:
    # Drawn as "off?", so the simplest draw (0), which Hypothesis tries first and shrinks
    # towards, turns the feature on: early and shrunk programs use every feature.
    return choose(2) == 0


def _rarely(choose: Choose) -> bool:
    return choose(4) == 3


def _half_the_time(choose: Choose) -> bool:
    return choose(2) == 1


# Identity rewrites are on in half the programs (and off in the simplest): a loop that drops the
# sidecar shows it there and nowhere else, but the same drop on a real rewrite also shows what
# the loop runs. Repeated ids are on in a quarter: a refused reply ends nothing else's story.
FEATURE_ODDS: dict[str, Callable[[Choose], bool]] = {
    "identity_rewrites": _half_the_time,
    "repeated_ids": _rarely,
}


def swarms(choose: Choose) -> Swarm:
    """Which features a program leans on, each drawn with its odds (one choice each)."""
    features = (FEATURE_ODDS.get(field.name, _usually) for field in attrs.fields(Swarm))
    return Swarm(*(odds(choose) for odds in features))


# Tools whose names contain another tool's name, and hooks whose matchers name the shorter one:
# a loop that searches the matcher in the name (instead of matching the whole name) runs them.
PARTIAL_TOOLS = (
    ToolSpec("bash_session", concurrency_safe=False, required_keys=("command",)),
    ToolSpec("preread", concurrency_safe=True, required_keys=("file_path",)),
)
PARTIAL_NAMES_CONFIG = LoopConfig(
    tools=(*gen.TOOLS, *PARTIAL_TOOLS),
    hooks=(
        HookSpec("bash-guard", "PreToolUse", "bash"),
        HookSpec("read-audit", "PreToolUse", "read"),
        HookSpec("read-after", "PostToolUse", "read"),
    ),
    max_parallel=2,
)
PARTIAL_ARGUMENTS = {
    "bash_session": gen.ARGUMENTS["bash"],
    "preread": gen.ARGUMENTS["read"],
}
# The bundled configurations, hooked ones twice (rewrites, several hooks and approvals need a
# hook), and the partial-names one.
CONFIGS = (*gen.CONFIGS, *gen.CONFIGS[1:], PARTIAL_NAMES_CONFIG)


def _arguments_for(name: str) -> list[str]:
    return gen.ARGUMENTS.get(name) or PARTIAL_ARGUMENTS.get(name) or ['{"x":1}']


# A program's commands are drawn as flat choices: each is one index below a small bound
# (`Choose`), which Hypothesis records as one integer and shrinks towards 0, instead of nested
# strategies (composites, `one_of` over `builds`), each of whose draws costs a span, a
# validation and a label besides its choices; and nothing is drawn only to be thrown away (a
# reply's calls were drawn twice, a hook's verdict before the leaning that replaced it). Index
# 0 is the simplest choice, which shrinking moves towards: a reply without calls ends its turn,
# so a shrunk program's turns are short (were a reply with calls the simplest, the simplest
# program would be one endless turn, which no deletion of a few choices shortens).
Choose = Callable[[int], int]
"""Draws an index in [0, bound): one choice; a bound of 1 draws nothing and gives 0."""


def pick(choose: Choose, options: Sequence[_Picked]) -> _Picked:
    """One of `options`, each alike likely."""
    return options[choose(len(options))]


@functools.cache
def _names(config: LoopConfig, parallel: bool) -> tuple[str, ...]:
    """The tool names a call of `config` is drawn from (safe ones weighted up when parallel)."""
    names = [tool.name for tool in config.tools] + ["missing_tool"]
    if parallel:
        # Calls run together only when they are concurrency-safe; drawn uniformly, two safe
        # calls in a row are rare, and so are a later call finishing first and an abort over a
        # partly finished batch.
        names += [tool.name for tool in config.tools if tool.concurrency_safe] * 2
    return tuple(names)


@functools.cache
def _arguments(name: str) -> tuple[str, ...]:
    return tuple(_arguments_for(name))


# One call in ten has arguments that are not a JSON object (or not JSON).
_MALFORMED_ONE_IN = 10


def tool_calls(
    choose: Choose, swarm: Swarm, config: LoopConfig, first_id: int
) -> tuple[ToolCallBlock, ...]:
    """Calls with ids `c<first_id>...`: several when `parallel` is on; with `repeated_ids`, the
    last sometimes repeats the first's id."""
    names = _names(config, swarm.parallel)
    count = 2 + choose(3) if swarm.parallel else 1 + choose(2)
    calls = []
    for offset in range(count):
        name = pick(choose, names)
        variant = choose(_MALFORMED_ONE_IN)
        if variant == _MALFORMED_ONE_IN - 1:
            arguments = pick(choose, gen.MALFORMED_ARGUMENTS)
        else:
            pool = _arguments(name)
            arguments = pool[variant % len(pool)]
        calls.append(ToolCallBlock(f"c{first_id + offset}", name, arguments))
    if swarm.repeated_ids and len(calls) > 1 and choose(3) == 2:
        calls[-1] = attrs.evolve(calls[-1], id=calls[0].id)
    return tuple(calls)


# Finish reasons: mostly completed.
_FINISHES = (FINISH_COMPLETED,) * 6 + (FINISH_MAX_TOKENS, FINISH_CANCELLED)


def model_replies(choose: Choose, swarm: Swarm, config: LoopConfig, first_id: int) -> ModelReplies:
    """A reply: optional reasoning and text, calls (in eight replies of nine) drawn for the
    swarm, and a finish reason."""
    blocks: list[ReplyBlock] = []
    shape = choose(4)  # reasoning and text, each in half the replies
    if shape & 1:
        blocks.append(ReasoningBlock(pick(choose, gen.TEXTS)))
    if shape & 2:
        blocks.append(TextBlock(pick(choose, gen.TEXTS)))
    if choose(9) > 0:
        blocks.extend(tool_calls(choose, swarm, config, first_id))
    return ModelReplies(tuple(blocks), pick(choose, _FINISHES))


def _identity(arguments: str) -> JsonValue | None:
    """The call's own arguments as an input object, when they are one."""
    parsed = parse_arguments(arguments)
    return parsed if isinstance(parsed, FrozenMap) else None


@functools.cache
def _leanings(swarm: Swarm, identity: bool) -> tuple[str, ...]:
    leaning: list[str] = []
    if swarm.rewrites:
        leaning += ["rewrite"] * 3
    if swarm.identity_rewrites and identity:
        leaning += ["identity"] * 2
    if swarm.approvals:
        leaning += ["ask"] * 2
    if swarm.denials:
        leaning += ["deny"] * 2
    return tuple(leaning)


# "" is a hook denying without a reason: the result then says `denied` (TEXT-1).
_DENY_REASONS = ("blocked by policy", "no", "")
_ASK_REASONS = (None, "needs a look")


@functools.cache
def _fitting(name: str) -> tuple[JsonValue, ...]:
    return tuple(gen.REWRITES.get(name) or [FrozenMap({"x": 1})])


def _any_input(choose: Choose, name: str) -> JsonValue:
    """An input for a verdict without a leaning: mostly one that fits the tool, else any
    rewrite or none (as `strategies.pre_verdicts_for` draws it)."""
    if choose(3) < 2:
        return pick(choose, _fitting(name))
    which = choose(2 * len(gen.ANY_REWRITES))
    return gen.ANY_REWRITES[which] if which < len(gen.ANY_REWRITES) else None


def pre_verdicts(choose: Choose, swarm: Swarm, call: ToolCallBlock) -> PreVerdict:
    """A PreToolUse answer for `call`: in three answers of four, one the swarm leans on
    (rewrites, identity rewrites in half the programs, asks, denials); otherwise (and most
    simply) any verdict, its rewrites mostly fitting the tool."""
    identity = _identity(call.arguments)
    leaning = _leanings(swarm, identity is not None)
    if not leaning or choose(4) == 0:
        match choose(4):
            case 0:
                return Allow(updated_input=_any_input(choose, call.name))
            case 1:
                reason = pick(choose, _ASK_REASONS)
                return Ask(reason=reason, updated_input=_any_input(choose, call.name))
            case 2:
                return Pass()
            case _:
                return Deny(reason=pick(choose, _DENY_REASONS))
    lean = pick(choose, leaning)
    if lean == "deny":
        return Deny(reason=pick(choose, _DENY_REASONS))
    new_input = identity if lean == "identity" else pick(choose, _fitting(call.name))
    if lean == "ask" or (swarm.approvals and choose(2) == 1):
        reason = pick(choose, _ASK_REASONS)
        keep = lean != "ask" or choose(3) < 2
        return Ask(reason=reason, updated_input=new_input if keep else None)
    return Allow(updated_input=new_input)


_SUCCESS_TEXTS = ("A", "B", "file contents")
_DEFERRED = "deferred context"
_META: tuple[JsonValue, ...] = (None, FrozenMap({"lines": 3}))
_FAILURE_MESSAGES = ("boom", "permission denied")
_FAILURE_CODES = (None, "EACCES")


def any_tool_outcome(choose: Choose) -> ToolOutcome:
    """A body's outcome: success (with up to two deferred contexts) or failure, as
    `strategies.tool_outcomes` draws them."""
    if choose(2) == 0:
        text = pick(choose, _SUCCESS_TEXTS)
        contexts = (_DEFERRED,) * choose(3)
        return ToolSucceeded(text, contexts, pick(choose, _META))
    return ToolFailed(pick(choose, _FAILURE_MESSAGES), pick(choose, _FAILURE_CODES))


def tool_outcomes(choose: Choose, swarm: Swarm) -> ToolOutcome:
    """Body outcomes; with `contexts` on, successes mostly defer a context."""
    if swarm.contexts and choose(3) < 2:
        text = pick(choose, _SUCCESS_TEXTS[:2])
        contexts = (_DEFERRED,) * (1 + choose(2))
        return ToolSucceeded(text, contexts, pick(choose, _META))
    return any_tool_outcome(choose)


_POST_VERDICTS: tuple[PostVerdict, ...] = (
    PostPass(),
    PostContext("note from hook"),
    PostBlock("output withheld"),
)


def post_verdicts(choose: Choose, swarm: Swarm) -> PostVerdict:
    """PostToolUse answers; with `contexts` on, mostly a context."""
    if swarm.contexts and choose(3) < 2:
        return _POST_VERDICTS[1]
    return pick(choose, _POST_VERDICTS)


def later_call_waits(phase: object) -> bool:
    """Whether a call of the batch finished while an earlier one still runs (it waits for it)."""
    if not isinstance(phase, Dispatching):
        return False
    statuses = [slot.status for slot in phase.slots]
    return READY in statuses and RUNNING in statuses[: statuses.index(READY)]


def disruptions(choose: Choose, swarm: Swarm) -> str:
    """Which disruption comes next: the swarm's features are each several times more likely."""
    table = _disruptions(swarm.interjections, swarm.aborts, swarm.crashes, swarm.settled_outcomes)
    return pick(choose, table)


@functools.cache
def _disruptions(
    interjections: bool, aborts: bool, crashes: bool, settled_outcomes: bool
) -> tuple[str, ...]:
    weights = {
        "none": 6,
        "interject": 4 if interjections else 1,
        "abort": 4 if aborts else 1,
        "crash": 3 if crashes else 1,
        "settled": 3 if settled_outcomes else 0,
        "arbitrary": 1,
    }
    return tuple(kind for kind, weight in weights.items() for _ in range(weight))
