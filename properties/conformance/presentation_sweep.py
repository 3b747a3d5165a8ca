"""SPEC.md section 12's examples, played on a target that declares `presentation`.

The random programs draw a few argument shapes (relative paths, no `edit` or `todo` call, no
`meta.diffs`, no `description`), so a bridge that never relativizes a title, swaps an edit's
old and new text or ignores the applied diffs passed 500 of them. Every row of section 12's
tables is a program of its own here — the user asks, the model calls the row's tool with the
row's arguments, the body settles with the row's result — compared with the model as any
program is (`exhaustive.run_program`). `run_conformance` plays them before the random search:
they take a program's time each, and a bridge bug only they show was reported minutes late
after 500 programs. Loaded first, the examples' literals (absolute paths, edit texts) join the
constants Hypothesis mixes into the search's draws.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Set

from loopspec.model.commands import (
    Command,
    ModelReplies,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig, ToolSpec
from loopspec.model.messages import ToolCallBlock
from loopspec.model.wording import ERROR_PREFIX
from loopspec.properties.conformance.exhaustive import play_each
from loopspec.properties.conformance.target import ConformanceTarget, Observation

# Every presenter's tool, registered without required keys: a call the tables show falling back
# to the generic card still runs, so its result update is compared too. `grep` stays unknown.
SWEEP_CONFIG = LoopConfig(
    tools=tuple(
        ToolSpec(name, concurrency_safe=False) for name in ("bash", "read", "write", "edit", "todo")
    )
)
CALL_ID = "c1"


def _outcome(text: str, is_error: bool, meta: object) -> ToolOutcome:
    if is_error:
        return ToolFailed(text.removeprefix(ERROR_PREFIX))
    return ToolSucceeded(text, meta=meta)


def _program(tool: str, arguments: str, outcome: ToolOutcome | None) -> tuple[Command, ...]:
    asked = (
        SubmitUser("show the tool"),
        ModelReplies((ToolCallBlock(CALL_ID, tool, arguments),)),
    )
    registered = any(spec.name == tool for spec in SWEEP_CONFIG.tools)
    if outcome is None or not registered:  # an unknown tool's result is the loop's own
        return asked
    return (*asked, ToolFinishes(CALL_ID, outcome))


def sweep_programs(capabilities: Set[str]) -> Iterator[tuple[Command, ...]]:
    """One program per row of section 12's tables; a result with meta only for a target that
    declares `result-meta` (to another, meta never reaches the result)."""
    from loopspec.properties import spec_presentation as examples  # noqa: PLC0415 (see above)

    for call in examples.CALL_EXAMPLES:
        yield _program(call.tool, call.arguments, None)
    for result in examples.RESULT_EXAMPLES:
        if result.meta is not None and "result-meta" not in capabilities:
            continue
        outcome = _outcome(result.text, result.is_error, result.meta)
        yield _program(result.tool, result.arguments, outcome)


def sweep_presentation(
    make_target: Callable[[], ConformanceTarget],
    capabilities: Set[str],
    observe: Callable[[Observation], None] | None = None,
    played: Callable[[tuple[Command, ...]], None] | None = None,
) -> None:
    """Play every program of `sweep_programs` on a fresh session of one target, `played` told
    of each run the commands it sent. Raises `DivergenceFound` for the first that diverges."""
    programs = ((SWEEP_CONFIG, program) for program in sweep_programs(capabilities))
    play_each(make_target, programs, observe, played)
