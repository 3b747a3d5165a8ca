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

import attrs
from hypothesis import strategies as st

from loopspec.model.commands import (
    Allow,
    Ask,
    Deny,
    ModelReplies,
    PostContext,
    PostVerdict,
    PreVerdict,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.jsonvalue import FrozenMap, JsonValue, parse_arguments
from loopspec.model.messages import ToolCallBlock
from loopspec.model.state import READY, RUNNING, Dispatching
from loopspec.properties.stateful import strategies as gen


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


def _usually() -> st.SearchStrategy[bool]:
    # Drawn as "off?", so the simplest draw (False), which Hypothesis tries first and shrinks
    # towards, turns the feature on: early and shrunk programs use every feature.
    return st.booleans().map(lambda off: not off)


def _rarely() -> st.SearchStrategy[bool]:
    return st.integers(0, 3).map(lambda n: n == 3)


def _half_the_time() -> st.SearchStrategy[bool]:
    return st.integers(0, 1).map(lambda n: n == 1)


# Identity rewrites are on in half the programs (and off in the simplest): a loop that drops the
# sidecar shows it there and nowhere else, but the same drop on a real rewrite also shows what
# the loop runs. Repeated ids are on in a quarter: a refused reply ends nothing else's story.
FEATURE_ODDS = {"identity_rewrites": _half_the_time, "repeated_ids": _rarely}
swarms: st.SearchStrategy[Swarm] = st.builds(
    Swarm,
    **{field.name: FEATURE_ODDS.get(field.name, _usually)() for field in attrs.fields(Swarm)},
)


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


# The strategies a draw needs are built once and reused: Hypothesis validates a strategy and
# works out its properties on its first draw, which costs more than the draw itself. Reusing
# one changes nothing that is drawn.
_TWO_TO_FOUR = st.integers(2, 4)
_ONE_OR_TWO = st.integers(1, 2)
_ONE_IN_TEN = st.integers(0, 9)
_ONE_IN_THREE = st.integers(0, 2)
_ONE_IN_FOUR = st.integers(0, 3)
_MALFORMED = st.sampled_from(gen.MALFORMED_ARGUMENTS)


@functools.cache
def _names(config: LoopConfig, parallel: bool) -> st.SearchStrategy[str]:
    """The tool names a call of `config` is drawn from (safe ones weighted up when parallel)."""
    names = [tool.name for tool in config.tools] + ["missing_tool"]
    if parallel:
        # Calls run together only when they are concurrency-safe; drawn uniformly, two safe
        # calls in a row are rare, and so are a later call finishing first and an abort over a
        # partly finished batch.
        names += [tool.name for tool in config.tools if tool.concurrency_safe] * 2
    return st.sampled_from(names)


@functools.cache
def _arguments(name: str) -> st.SearchStrategy[str]:
    return st.sampled_from(_arguments_for(name))


@st.composite
def tool_calls(
    draw: st.DrawFn, swarm: Swarm, config: LoopConfig, first_id: int
) -> tuple[ToolCallBlock, ...]:
    """Calls with ids `c<first_id>...`: several when `parallel` is on; with `repeated_ids`, the
    last sometimes repeats the first's id."""
    names = _names(config, swarm.parallel)
    count = draw(_TWO_TO_FOUR if swarm.parallel else _ONE_OR_TWO, label="calls")
    calls = []
    for offset in range(count):
        name = draw(names, label="tool")
        pool = _arguments(name)
        if draw(_ONE_IN_TEN, label="malformed") == 0:
            pool = _MALFORMED
        calls.append(ToolCallBlock(f"c{first_id + offset}", name, draw(pool)))
    if swarm.repeated_ids and len(calls) > 1 and draw(_ONE_IN_THREE, label="repeat id") == 0:
        calls[-1] = attrs.evolve(calls[-1], id=calls[0].id)
    return tuple(calls)


@st.composite
def _model_replies(
    draw: st.DrawFn, swarm: Swarm, config: LoopConfig, first_id: int
) -> ModelReplies:
    reply = draw(gen.model_replies(first_id), label="reply")
    if not reply.tool_calls and draw(_ONE_IN_THREE, label="no calls") == 0:
        return reply
    others = tuple(block for block in reply.blocks if not isinstance(block, ToolCallBlock))
    calls = draw(tool_calls(swarm, config, first_id))
    return ModelReplies((*others, *calls), reply.finish)


@functools.lru_cache(maxsize=4096)
def model_replies(
    swarm: Swarm, config: LoopConfig, first_id: int
) -> st.SearchStrategy[ModelReplies]:
    """A reply as `strategies.model_replies` draws it, its calls drawn for the swarm."""
    return _model_replies(swarm, config, first_id)


def _identity(arguments: str) -> JsonValue | None:
    """The call's own arguments as an input object, when they are one."""
    parsed = parse_arguments(arguments)
    return parsed if isinstance(parsed, FrozenMap) else None


_LEANINGS: dict[tuple[str, ...], st.SearchStrategy[str]] = {}
_DENY_REASONS = st.sampled_from(["blocked by policy", "no"])
_ASK_REASONS = st.sampled_from([None, "needs a look"])
_BOOLEANS = st.booleans()


@functools.cache
def _fitting(name: str) -> st.SearchStrategy[JsonValue]:
    return st.sampled_from(gen.REWRITES.get(name) or [FrozenMap({"x": 1})])


@st.composite
def _pre_verdicts(draw: st.DrawFn, swarm: Swarm, call: ToolCallBlock) -> PreVerdict:
    verdict = draw(gen.pre_verdicts_for(call.name), label="verdict")
    identity = _identity(call.arguments)
    leaning: list[str] = []
    if swarm.rewrites:
        leaning += ["rewrite"] * 3
    if swarm.identity_rewrites and identity is not None:
        leaning += ["identity"] * 2
    if swarm.approvals:
        leaning += ["ask"] * 2
    if swarm.denials:
        leaning += ["deny"] * 2
    if not leaning or draw(_ONE_IN_FOUR, label="lean") == 0:
        return verdict
    leanings = _LEANINGS.setdefault(tuple(leaning), st.sampled_from(leaning))
    lean = draw(leanings, label="leaning")
    if lean == "deny":
        return Deny(reason=draw(_DENY_REASONS, label="reason"))
    new_input: JsonValue = (
        identity if lean == "identity" else draw(_fitting(call.name), label="input")
    )
    if lean == "ask" or (swarm.approvals and draw(_BOOLEANS, label="ask")):
        reason = draw(_ASK_REASONS, label="reason")
        keep = lean != "ask" or draw(_ONE_IN_THREE, label="with input") > 0
        return Ask(reason=reason, updated_input=new_input if keep else None)
    return Allow(updated_input=new_input)


@functools.lru_cache(maxsize=4096)
def pre_verdicts(swarm: Swarm, call: ToolCallBlock) -> st.SearchStrategy[PreVerdict]:
    """A PreToolUse answer for `call`: rewrites, identity rewrites, asks and denials as the
    swarm says (identity rewrites in half the programs, leaning on them there)."""
    return _pre_verdicts(swarm, call)


@functools.cache
def _deferring_outcomes() -> st.SearchStrategy[ToolOutcome]:
    deferring = st.builds(
        ToolSucceeded,
        text=st.sampled_from(["A", "B"]),
        contexts=st.lists(st.sampled_from(["deferred context"]), min_size=1, max_size=2).map(tuple),
        meta=st.sampled_from([None, FrozenMap({"lines": 3})]),
    )
    return st.one_of(deferring, deferring, gen.tool_outcomes)


def tool_outcomes(swarm: Swarm) -> st.SearchStrategy[ToolOutcome]:
    """Body outcomes; with `contexts` on, successes mostly defer a context."""
    return _deferring_outcomes() if swarm.contexts else gen.tool_outcomes


@functools.cache
def _contextual_post_verdicts() -> st.SearchStrategy[PostVerdict]:
    context = st.builds(PostContext, text=st.just("note from hook"))
    return st.one_of(context, context, gen.post_verdicts)


def post_verdicts(swarm: Swarm) -> st.SearchStrategy[PostVerdict]:
    """PostToolUse answers; with `contexts` on, mostly a context."""
    return _contextual_post_verdicts() if swarm.contexts else gen.post_verdicts


def later_call_waits(phase: object) -> bool:
    """Whether a call of the batch finished while an earlier one still runs (it waits for it)."""
    if not isinstance(phase, Dispatching):
        return False
    statuses = [slot.status for slot in phase.slots]
    return READY in statuses and RUNNING in statuses[: statuses.index(READY)]


def disruptions(swarm: Swarm) -> st.SearchStrategy[str]:
    """Which disruption comes next: the swarm's features are each several times more likely."""
    return _disruptions(swarm.interjections, swarm.aborts, swarm.crashes, swarm.settled_outcomes)


@functools.cache
def _disruptions(
    interjections: bool, aborts: bool, crashes: bool, settled_outcomes: bool
) -> st.SearchStrategy[str]:
    weights = {
        "none": 6,
        "interject": 4 if interjections else 1,
        "abort": 4 if aborts else 1,
        "crash": 3 if crashes else 1,
        "settled": 3 if settled_outcomes else 0,
        "arbitrary": 1,
    }
    return st.sampled_from([kind for kind, weight in weights.items() for _ in range(weight)])
