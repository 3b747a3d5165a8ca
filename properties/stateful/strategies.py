"""Hypothesis strategies for commands and configurations.

The strategies draw commands that *fit* a state most of the time (so runs go deep: parallel
batches, approvals, rewrites, aborts mid-batch) and, separately, arbitrary commands (so refusals
are exercised too). Tool names, call ids and hook answers are drawn from small pools on purpose:
collisions and repeats are where loops break.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import strategies as st

from loopspec.model.commands import (
    ABORT_CAUSES,
    APPROVAL_OUTCOMES,
    FINISH_CANCELLED,
    FINISH_COMPLETED,
    FINISH_MAX_TOKENS,
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    Recover,
    ReplyBlock,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.jsonvalue import FrozenMap, JsonValue
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock

TOOLS = (
    ToolSpec("read", concurrency_safe=True, required_keys=("file_path",)),
    ToolSpec("grep", concurrency_safe=True, required_keys=("pattern",)),
    ToolSpec("bash", concurrency_safe=False, required_keys=("command",)),
    ToolSpec("write", concurrency_safe=False, required_keys=("file_path", "content")),
)
TOOL_NAMES = (*(tool.name for tool in TOOLS), "missing_tool")

CONFIGS = (
    LoopConfig(tools=TOOLS),
    LoopConfig(
        tools=TOOLS,
        hooks=(
            HookSpec("guard", "PreToolUse", "bash|write"),
            HookSpec("rewriter", "PreToolUse", "bash"),
            HookSpec("audit", "PostToolUse", "read"),
        ),
        max_parallel=2,
    ),
    LoopConfig(
        tools=TOOLS,
        hooks=(HookSpec("everything", "PreToolUse", "*"), HookSpec("late", "PreToolUse", ".*")),
        max_parallel=1,
    ),
)

TEXTS = ("", " ", "ok", "reading the files", "done", "ctx")
texts = st.sampled_from(TEXTS)

ARGUMENTS = {
    "read": ['{"file_path":"a.txt"}', '{"file_path":"b.txt","offset":3}', "{}"],
    "grep": ['{"pattern":"TODO"}', '{"pattern":"x","path":"src"}'],
    "bash": ['{"command":"ls"}', '{"command":"rm -rf build"}', '{"command":"echo hi"}'],
    "write": ['{"file_path":"a.txt","content":"new"}', '{"file_path":"b.txt"}'],
    "missing_tool": ['{"x":1}'],
}
# The model's own machine draws from wider pools: some arguments render as another card kind
# than their tool's usual one (a background bash job is a generic card, a write whose content
# is not text falls back to generic), and rewrites move between them and change `cwd` and
# `run_in_background`, so presentation is checked across card kinds (rule RW-1). Other
# machines keep the narrow pools, whose fixed example sequences their coverage budgets assume.
WIDE_ARGUMENTS = {
    **ARGUMENTS,
    "bash": [*ARGUMENTS["bash"], '{"command":"make","run_in_background":true}'],
    "write": [*ARGUMENTS["write"], '{"file_path":"c.txt","content":3}'],
}
# Blank arguments mean {} (EXE-2), blank as Python's `str.strip` reads it: "\x1c".."\x1f" and
# "\x85" are blank to it and not to JavaScript's `trim`, "\ufeff" the other way round, so a
# loop that trims the JavaScript way parses them otherwise (the empty string alone never showed
# that).
PYTHON_ONLY_BLANK = "\x1c\x1d\x1e\x1f\x85"
JAVASCRIPT_ONLY_BLANK = "\ufeff"
BLANK_TO_ONE_READER = (PYTHON_ONLY_BLANK, JAVASCRIPT_ONLY_BLANK)
MALFORMED_ARGUMENTS = ["", PYTHON_ONLY_BLANK, JAVASCRIPT_ONLY_BLANK, "not json", "[1,2]", '"text"']


# Strategies built once and reused (see `_cached`): Hypothesis validates a strategy and works out
# its properties on its first draw, which costs more than the draw itself.
_BOOLEANS = st.booleans()
_ONE_TO_FOUR = st.integers(min_value=1, max_value=4)
_ONE_IN_TEN = st.integers(0, 9)
_ONE_IN_THREE = st.integers(0, 2)
_TOOL_NAMES = st.sampled_from(TOOL_NAMES)
_FINISHES = st.sampled_from([FINISH_COMPLETED] * 6 + [FINISH_MAX_TOKENS, FINISH_CANCELLED])
_MALFORMED = st.sampled_from(MALFORMED_ARGUMENTS)

_Drawn = TypeVar("_Drawn")
# (what, key, id of the pool) -> (the pool, the strategy). The pool is kept so its id stays its.
_CACHE: dict[tuple[str, object, int], tuple[object, st.SearchStrategy[Any]]] = {}


def _cached(
    what: str, key: object, pool: object, build: Callable[[], st.SearchStrategy[_Drawn]]
) -> st.SearchStrategy[_Drawn]:
    """The strategy `build()` makes for `key` and `pool`, built once. Reusing a strategy changes
    nothing that is drawn; it saves Hypothesis validating a new one at every draw."""
    found = _CACHE.get((what, key, id(pool)))
    if found is not None and found[0] is pool:
        return found[1]
    made = build()
    _CACHE[(what, key, id(pool))] = (pool, made)
    return made


def _arguments_of(name: str, arguments: dict[str, list[str]]) -> st.SearchStrategy[str]:
    return _cached("arguments", name, arguments, lambda: st.sampled_from(arguments[name]))


def _maybe_malformed(name: str, arguments: dict[str, list[str]]) -> st.SearchStrategy[str]:
    return _cached(
        "maybe malformed",
        name,
        arguments,
        lambda: st.one_of(_arguments_of(name, arguments), _MALFORMED),
    )


@st.composite
def _tool_calls(
    draw: st.DrawFn, first_id: int, arguments: dict[str, list[str]]
) -> tuple[ToolCallBlock, ...]:
    count = draw(_ONE_TO_FOUR)
    calls = []
    for offset in range(count):
        name = draw(_TOOL_NAMES)
        raw = draw(
            _maybe_malformed(name, arguments)
            if draw(_ONE_IN_TEN) == 0
            else _arguments_of(name, arguments)
        )
        calls.append(ToolCallBlock(f"c{first_id + offset}", name, raw))
    return tuple(calls)


def tool_calls(
    first_id: int, arguments: dict[str, list[str]] = ARGUMENTS
) -> st.SearchStrategy[tuple[ToolCallBlock, ...]]:
    """Up to four calls with distinct ids `c<first_id>...` in model order."""
    return _cached("tool calls", first_id, arguments, lambda: _tool_calls(first_id, arguments))


@st.composite
def _model_replies(draw: st.DrawFn, first_id: int, arguments: dict[str, list[str]]) -> ModelReplies:
    blocks: list[ReplyBlock] = []
    if draw(_BOOLEANS):
        blocks.append(ReasoningBlock(draw(texts)))
    if draw(_BOOLEANS):
        blocks.append(TextBlock(draw(texts)))
    if draw(_ONE_IN_THREE) > 0:
        blocks.extend(draw(tool_calls(first_id, arguments)))
    finish = draw(_FINISHES)
    return ModelReplies(tuple(blocks), finish)


def model_replies(
    first_id: int, arguments: dict[str, list[str]] = ARGUMENTS
) -> st.SearchStrategy[ModelReplies]:
    """A reply: optional reasoning and text, maybe tool calls, and a finish reason."""
    return _cached("replies", first_id, arguments, lambda: _model_replies(first_id, arguments))


# Inputs a hook may put in place of any call's (some fit no tool, one is not an object).
ANY_REWRITES: tuple[JsonValue, ...] = (
    FrozenMap({"command": "echo rewritten"}),
    FrozenMap({"command": "ls -la", "timeout": 5}),
    FrozenMap({"file_path": "safe.txt", "content": "new"}),
    FrozenMap({"file_path": "a.txt"}),
    FrozenMap({"unrelated": True}),
    "not an object",
)


def _rewrites() -> st.SearchStrategy[JsonValue]:
    return st.one_of(st.sampled_from(ANY_REWRITES), st.none())


pre_verdicts: st.SearchStrategy[PreVerdict] = st.one_of(
    st.builds(Allow, updated_input=_rewrites()),
    st.builds(Ask, reason=st.sampled_from([None, "needs a look"]), updated_input=_rewrites()),
    st.just(Pass()),
    st.builds(Deny, reason=st.sampled_from(["blocked by policy", "no", ""])),
)

REWRITES: dict[str, list[JsonValue]] = {
    "read": [FrozenMap({"file_path": "safe.txt"}), FrozenMap({"file_path": "a.txt", "limit": 5})],
    "grep": [FrozenMap({"pattern": "FIXME"})],
    "bash": [FrozenMap({"command": "echo rewritten"}), FrozenMap({"command": "ls -la"})],
    "write": [FrozenMap({"file_path": "safe.txt", "content": "new"})],
    "missing_tool": [FrozenMap({"x": 2})],
}
WIDE_REWRITES: dict[str, list[JsonValue]] = {
    **REWRITES,
    "bash": [
        *REWRITES["bash"],
        FrozenMap({"command": "ls", "cwd": "/tmp/sandbox"}),
        FrozenMap({"command": "make", "run_in_background": True}),
        FrozenMap({"command": "make", "run_in_background": False, "cwd": "/w"}),
    ],
    "write": [*REWRITES["write"], FrozenMap({"file_path": "safe.txt", "content": 0})],
}


def pre_verdicts_for(
    tool_name: str, rewrites: dict[str, list[JsonValue]] | None = None
) -> st.SearchStrategy[PreVerdict]:
    """Hook answers for a call of `tool_name`: rewrites mostly fit the tool, sometimes not."""
    chosen = REWRITES if rewrites is None else rewrites
    return _cached("pre verdicts", tool_name, chosen, lambda: _pre_verdicts(tool_name, chosen))


def _pre_verdicts(
    tool_name: str, rewrites: dict[str, list[JsonValue]]
) -> st.SearchStrategy[PreVerdict]:
    pool = rewrites.get(tool_name, [FrozenMap({"x": 1})])
    fitting = st.sampled_from(pool)
    inputs: st.SearchStrategy[JsonValue] = st.one_of(fitting, fitting, _rewrites())
    return st.one_of(
        st.builds(Allow, updated_input=inputs),
        st.builds(Ask, reason=st.sampled_from([None, "needs a look"]), updated_input=inputs),
        st.just(Pass()),
        st.builds(Deny, reason=st.sampled_from(["blocked by policy", "no", ""])),
    )


post_verdicts: st.SearchStrategy[PostVerdict] = st.one_of(
    st.just(PostPass()),
    st.builds(PostContext, text=st.sampled_from(["note from hook"])),
    st.builds(PostBlock, reason=st.sampled_from(["output withheld"])),
)

tool_outcomes: st.SearchStrategy[ToolOutcome] = st.one_of(
    st.builds(
        ToolSucceeded,
        text=st.sampled_from(["A", "B", "file contents"]),
        contexts=st.lists(st.sampled_from(["deferred context"]), max_size=2).map(tuple),
        meta=st.sampled_from([None, FrozenMap({"lines": 3})]),
    ),
    st.builds(
        ToolFailed,
        message=st.sampled_from(["boom", "permission denied"]),
        code=st.sampled_from([None, "EACCES"]),
    ),
)

approval_outcomes = st.sampled_from(sorted(APPROVAL_OUTCOMES))

any_commands: st.SearchStrategy[Command] = st.one_of(
    st.builds(SubmitUser, text=texts),
    model_replies(900),
    st.builds(ModelFails, message=st.just("overloaded")),
    st.builds(HookAnswers, verdict=pre_verdicts),
    st.builds(ApprovalAnswers, outcome=approval_outcomes),
    st.builds(
        ToolFinishes,
        call_id=st.sampled_from(["c1", "c2", "c900", "nope"]),
        outcome=tool_outcomes,
        post=st.lists(post_verdicts, max_size=2).map(tuple),
    ),
    st.builds(Abort),
    st.just(Crash()),
    st.just(Recover()),
)


# Every cause an Abort may carry, in a fixed order (ABORT_CAUSES is a set).
ABORT_CAUSE_CYCLE = tuple(sorted(ABORT_CAUSES))


def abort_on(log_length: int, landing: str | None = None) -> Abort:
    """An Abort whose cause cycles with the length of the log it lands on (ABORT-3); one sent
    while the abort with cause `landing` still drains takes a cause neither `landing` nor the
    user's.

    Derived, not drawn: programs send every cause, yet draw what they drew before, since a draw
    of its own would move every seeded batch (tests/batches.py). The cause changes only the
    aborted turn's turn/end reason, which no later draw reads. A second abort, refused, most
    often lands on the log the first left (nothing settled between), whose length gave the
    first its cause: it carried that cause again, and a loop taking a second abort's cause (or
    refusing only a repeat of the first) passed every program. Nor the user's: a loop recording
    every abort as the user's then ends the turn with a cause no command sent (ABORT-3), where
    a second abort of the user's cause read as that abort, refused, taken all the same (MODEL-3).
    """
    cause = ABORT_CAUSE_CYCLE[log_length % len(ABORT_CAUSE_CYCLE)]
    if landing is None:
        return Abort(cause)
    others = tuple(other for other in ABORT_CAUSE_CYCLE if other not in (landing, "user"))
    return Abort(cause if cause in others else others[log_length % len(others)])


# A failed request's messages, an empty one too: the turn/end error carries the message as given,
# an empty string included (TEXT-2), where a loop that leaves an empty one out passed every
# program while every failure said "overloaded".
FAILURE_MESSAGES = ("overloaded", "")
# A failed request's codes: a code is any string, carried as given (TEXT-2), the model's default
# `UNKNOWN` too, where a loop mapping codes it does not know to one of its own, or leaving out
# the default, passed every program while every failure said OVERLOADED; and the empty string,
# which a loop reading it as no code (`code || "UNKNOWN"`) replaced unseen. The code changes
# every other log length, the message every one: every pairing comes.
FAILURE_CODES = ("OVERLOADED", "RATE_LIMITED", "UNKNOWN", "")


def failure_on(log_length: int) -> ModelFails:
    """A failed model request whose message and code cycle with the length of the log it lands on.

    Derived, not drawn, as `abort_on`'s cause is: they change only the failed turn's turn/end,
    which no later draw reads."""
    return ModelFails(
        FAILURE_MESSAGES[log_length % len(FAILURE_MESSAGES)],
        FAILURE_CODES[log_length // len(FAILURE_MESSAGES) % len(FAILURE_CODES)],
    )
