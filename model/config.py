"""What a loop is configured with: its tools, its hooks, its parallelism.

The configuration is part of the model state, so the same commands mean the same thing to the
model and to any implementation configured alike.
"""

from __future__ import annotations

import re

import attrs

from loopspec.model.errors import InvalidEventError
from loopspec.model.jsonvalue import FrozenMap, JsonValue
from loopspec.model.wording import MISSING_KEYS, NOT_AN_OBJECT, quoted_keys

# The latest clock start a log header can record: JavaScript's largest exact integer, above
# which dsh refuses a header timestamp (LOG-5).
_LATEST_EPOCH_MS = 2**53 - 1

PRE_TOOL_USE = "PreToolUse"
POST_TOOL_USE = "PostToolUse"
HOOK_POINTS = frozenset({PRE_TOOL_USE, POST_TOOL_USE})


@attrs.frozen
class ToolSpec:
    """A registered tool: its name, whether parallel runs are safe, and its input contract.

    The input contract is deliberately small (a JSON object with these keys present): enough to
    decide whether a hook's rewrite is acceptable (rule HOOK-6) without a schema language.
    """

    name: str
    concurrency_safe: bool = False
    required_keys: tuple[str, ...] = ()

    def input_problem(self, value: JsonValue) -> str | None:
        """Why `value` is not an acceptable input for this tool, or None when it is."""
        if not isinstance(value, FrozenMap):
            return NOT_AN_OBJECT
        missing = [key for key in self.required_keys if key not in value]
        if missing:
            return MISSING_KEYS.format(keys=quoted_keys(missing))
        return None


MATCH_ALL = ("", "*")
_LITERAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:/@")
_ESCAPABLE = frozenset("\\.^$|?*+()[]{}/-")
_ESCAPES = "".join(sorted(_ESCAPABLE))
_QUANTIFIER = re.compile(r"[*+?]|\{\d+(,\d*)?\}")


def matcher_problem(matcher: str) -> str | None:
    """Why `matcher` is outside the portable subset (rule HOOK-8), or None when it is inside.

    The subset is where Python's `re` and ECMAScript `RegExp` agree: literal names, escaped
    punctuation, `.`, alternation, plain and non-capturing groups, greedy or lazy quantifiers
    after an atom, and bracket classes of literals and ranges, with an optional leading `(?i)`.
    """
    if matcher in MATCH_ALL:
        return None
    pattern = matcher.removeprefix("(?i)")
    index = 0
    depth = 0
    quantifiable = False
    while index < len(pattern):
        char = pattern[index]
        if char in _LITERAL or char == ".":
            index, quantifiable = index + 1, True
        elif char == "\\":
            if index + 1 >= len(pattern) or pattern[index + 1] not in _ESCAPABLE:
                return (
                    f"escape at {index} is not one of \\ followed by {''.join(sorted(_ESCAPABLE))}"
                )
            index, quantifiable = index + 2, True
        elif char == "|":
            index, quantifiable = index + 1, False
        elif char == "(":
            index += 3 if pattern.startswith("(?:", index) else 1
            if pattern.startswith("?", index):
                return f"group at {index - 1} uses a (? form other than (?:"
            depth, quantifiable = depth + 1, False
        elif char == ")":
            if depth == 0:
                return f"unbalanced ) at {index}"
            depth, index, quantifiable = depth - 1, index + 1, True
        elif char == "[":
            end = _class_end(pattern, index)
            if end < 0:
                return f"character class at {index} is not a class of literals and ranges"
            index, quantifiable = end, True
        else:
            quantifier = _QUANTIFIER.match(pattern, index)
            if quantifier is None:
                return f"{char!r} at {index} is outside the portable subset"
            if not quantifiable:
                return f"quantifier at {index} follows nothing it can repeat"
            index = quantifier.end() + (1 if pattern.startswith("?", quantifier.end()) else 0)
            quantifiable = False
    if depth:
        return "unbalanced ("
    return None


def _class_end(pattern: str, start: int) -> int:
    """The index after the `]` closing the class at `start`, or -1 when it is not portable."""
    index = start + 1
    if pattern.startswith("^", index):
        index += 1
    members = 0
    while index < len(pattern) and pattern[index] != "]":
        char = pattern[index]
        if char == "\\":
            if index + 1 >= len(pattern) or pattern[index + 1] not in _ESCAPABLE:
                return -1
            index += 2
        elif char in _LITERAL or char == ".":
            if char == "-" and members == 0:
                return -1
            index += 1
        else:
            return -1
        members += 1
    return index + 1 if index < len(pattern) and members > 0 else -1


def handler_id(dialect: str, point: str, number: int) -> str:
    """The id of the `number`th hook (from 1) of `dialect` at `point` in configured order, as a
    settings file's hooks are named: by the bundled loop and by `loopspec run --harness`."""
    return f"{dialect}:{point}:{number}"


@attrs.frozen
class HookSpec:
    """A configured hook handler. `matcher` is a regex over the tool name; "" or "*" match all."""

    handler_id: str
    point: str = PRE_TOOL_USE
    matcher: str = "*"
    dialect: str = "claude-code"

    def __attrs_post_init__(self) -> None:
        if self.point not in HOOK_POINTS:
            raise InvalidEventError(f"unknown hook point {self.point!r}", rule_id="HOOK-1")
        if not self.handler_id:
            raise InvalidEventError("a hook needs a handler id", rule_id="HOOK-1")
        if self.matcher not in MATCH_ALL:
            # Both refusals are HOOK-8's, as the hooks settings reader's are: a matcher is a
            # portable regular expression, and one Python's `re` cannot compile (a range out
            # of order, `[z-a]`, `a{3,2}`, which ECMAScript refuses too) is none.
            try:
                re.compile(self.matcher)
            except re.error as error:
                msg = f"hook {self.handler_id} has a matcher that is not a valid regex: {error}"
                raise InvalidEventError(msg, rule_id="HOOK-8") from error
            problem = matcher_problem(self.matcher)
            if problem is not None:
                msg = f"hook {self.handler_id} has a matcher outside the portable subset: {problem}"
                raise InvalidEventError(msg, rule_id="HOOK-8")

    def matches(self, tool_name: str) -> bool:
        """Whether this hook fires for `tool_name`."""
        if self.matcher in MATCH_ALL:
            return True
        return re.fullmatch(self.matcher, tool_name) is not None


@attrs.frozen
class LoopConfig:
    """The loop's configuration. Hooks of a point run and combine in this order (HOOK-4, HOOK-3)."""

    tools: tuple[ToolSpec, ...] = ()
    hooks: tuple[HookSpec, ...] = ()
    max_parallel: int = 10
    provider: str = "scripted"
    model: str = "scripted-model"
    epoch_ms: int = 1_700_000_000_000

    def __attrs_post_init__(self) -> None:
        if self.max_parallel < 1:
            raise InvalidEventError("max_parallel must be at least 1", rule_id="SCHED-1")
        if not 0 <= self.epoch_ms <= _LATEST_EPOCH_MS:
            # The session header's createdAt is this clock's start: a log that could not be
            # reopened (Recover) blamed the loop for the configuration's value.
            raise InvalidEventError(
                f"epoch_ms must be from 0 to 2^53 - 1 (the session header's createdAt), "
                f"got {self.epoch_ms}",
                rule_id="LOG-5",
            )
        handler_ids = [hook.handler_id for hook in self.hooks]
        if len(set(handler_ids)) != len(handler_ids):
            raise InvalidEventError("hook handler ids must be unique", rule_id="HOOK-1")

    def tool(self, name: str) -> ToolSpec | None:
        """The registered tool called `name`, if any."""
        return next((tool for tool in self.tools if tool.name == name), None)

    def hooks_for(self, point: str, tool_name: str) -> tuple[HookSpec, ...]:
        """The hooks that fire at `point` for `tool_name`, in configured order."""
        return tuple(h for h in self.hooks if h.point == point and h.matches(tool_name))
