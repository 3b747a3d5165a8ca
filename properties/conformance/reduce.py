"""Cutting a counterexample down until nothing more can be taken from it.

Hypothesis shrinks the choices a program was drawn from, not the program, and stops where no
smaller choice sequence fails alike. That left a call, a hook answer or a command the divergence
did not need in 11 of the 13 bundled mutants' counterexamples (and in a planted RW-1 bug of the
JavaScript loop): a reply's calls number two to four while the swarm's `parallel` feature is on,
and on is the simplest draw (`swarming.Swarm`), which shrinking moves towards, not away from;
and a call's hook answers, approval and outcome are drawn apart from it, so no deletion of one
run of choices removes the call with them. `reduce_program` then replays smaller candidates
(greedy delta debugging) and keeps each that still diverges alike, until no single step below
keeps it: the program is then 1-minimal for those steps.

The steps, biggest first; each one lowers `weight`, which bounds the search:

- delete a run of commands (halves first, then quarters, down to single commands);
- delete one block of a reply: text, reasoning, or a tool call together with the hook answers,
  approval answer and outcomes that answer for it (the model's state before each command says
  which call that is);
- delete a hook of the configuration with its answers (a PreToolUse hook's `HookAnswers`, a
  PostToolUse hook's verdict in each outcome), or a tool no call names;
- every command at once in its simplest form (what taking the first simpler value below,
  again and again, gives), then each command alone in it: one replay where the steps one by
  one take one each, which a process target that hangs on every kept candidate waits on;
- a simpler value: a prompt, text, reason, message or context emptied or cut to its first
  character; a reply that finishes `completed`; a call's arguments or a hook's new input (a
  JSON object) less a key its tool does not require, or with a string value emptied or cut so
  (an input that is not an object, or malformed arguments, are left as they are: what makes
  them so is the situation, HOOK-6); a PreToolUse verdict `Pass`, an ask an allow, a verdict
  without its new input or reason; an approval answer `allowed-once`, else `rejected`; an
  abort by the user; an outcome without a deferred context, its metadata or its error code; a
  PostToolUse verdict `PostPass`; no hook audit.

Last, the call ids are renumbered c1, c2, ... in order of appearance, if the program still
diverges alike so.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator, Mapping
from typing import assert_never

import attrs

from loopspec.model.commands import (
    APPROVAL_OUTCOMES,
    Abort,
    Allow,
    ApprovalAnswers,
    ApprovalOutcome,
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
    audit_words,
    exits_as,
)
from loopspec.model.config import POST_TOOL_USE, HookSpec, LoopConfig
from loopspec.model.errors import LoopSpecError
from loopspec.model.jsonvalue import FrozenMap, JsonValue
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.model.state import Dispatching, LoopState, Rewriting
from loopspec.model.transitions import step
from loopspec.properties.conformance.command_codec import command_to_json, config_to_json
from loopspec.properties.conformance.json_values import lone_surrogates_escaped

Program = tuple[Command, ...]
# Whether a configuration and program still diverge the way the counterexample did.
StillDiverges = Callable[[LoopConfig, Program], bool]


@attrs.frozen
class Reduction:
    """A reduced configuration and program, and what reducing them cost."""

    config: LoopConfig
    program: Program
    replays: int  # candidates replayed
    complete: bool  # False: the budget ran out, or Ctrl-C came, before every step was tried
    interrupted: bool = False  # Ctrl-C stopped it (and not the budget)


def weight(config: LoopConfig, program: Program) -> tuple[int, ...]:
    """The order reduction descends, most telling first: commands, hooks, tools, how much the
    answers ask of a reader (an approval more than an allow, an allow more than a pass; a
    refused or cancelled approval more than an allowed one; an abort by anyone but the user),
    then the length of the whole as JSON."""
    text = json.dumps([config_to_json(config), *map(command_to_json, program)])
    answers = sum(map(_answer_rank, program))
    return len(program), len(config.hooks), len(config.tools), answers, len(text)


_VERDICT_RANK: dict[type[PreVerdict], int] = {Pass: 0, Allow: 1, Deny: 1, Ask: 2}


def _approval_rank(outcome: ApprovalOutcome) -> int:
    """Simplest first: the approved call runs as asked; a refusal says why; the rest say less."""
    match outcome:
        case "allowed-once":
            return 0
        case "rejected":
            return 1
        case "cancelled" | "unavailable":
            return 2
        case _:
            assert_never(outcome)


# Built from the model's own list, so every outcome an ApprovalAnswers can carry has a rank.
_APPROVAL_RANK: dict[str, int] = {outcome: _approval_rank(outcome) for outcome in APPROVAL_OUTCOMES}
_BY_THE_USER = Abort().cause


def _answer_rank(command: Command) -> int:
    match command:
        case HookAnswers(verdict=verdict):
            return _VERDICT_RANK[type(verdict)]
        case ApprovalAnswers(outcome=outcome):
            return _APPROVAL_RANK[outcome]
        case Abort(cause=cause):
            return 0 if cause == _BY_THE_USER else 1
        case SubmitUser() | ModelReplies() | ModelFails() | ToolFinishes() | Crash() | Recover():
            return 0
        case _:
            assert_never(command)


def reduce_program(
    config: LoopConfig,
    program: Program,
    still_diverges: StillDiverges,
    *,
    max_replays: int,
    max_seconds: float,
) -> Reduction:
    """`config` and `program` cut down while `still_diverges` holds (assumed of the two given),
    then their call ids numbered c1, c2, ... in order of appearance if that still holds.
    Stops early, with what it has, after `max_replays` candidates or `max_seconds`, or when
    interrupted (Ctrl-C)."""
    started = time.monotonic()
    replays = 0
    current = (config, program)
    # Candidates that did not diverge alike: after a step, the same candidate comes up again
    # (a tenth of the replays on the mutants' unshrunk programs).
    rejected: set[tuple[LoopConfig, Program]] = set()

    def spent() -> bool:
        return replays >= max_replays or time.monotonic() - started > max_seconds

    try:
        while True:
            current_weight = weight(*current)
            smaller = None
            for candidate in smaller_candidates(*current):
                if weight(*candidate) >= current_weight or candidate in rejected:
                    continue
                if spent():
                    return Reduction(*current, replays, False)
                replays += 1
                if still_diverges(*candidate):
                    smaller = candidate
                    break
                rejected.add(candidate)
            if smaller is None:  # no step keeps the divergence: 1-minimal
                break
            current = smaller
        renumbered = _renumbered(current[1])
        if renumbered != current[1]:
            if spent():
                return Reduction(*current, replays, False)
            replays += 1
            if still_diverges(current[0], renumbered):
                current = (current[0], renumbered)
    except KeyboardInterrupt:
        # Stopped by hand (a target that hangs in-process can be stopped no other way): the
        # counterexample found so far is still one, and worth its report.
        return Reduction(*current, replays, False, interrupted=True)
    return Reduction(*current, replays, True)


def smaller_candidates(
    config: LoopConfig, program: Program
) -> Iterator[tuple[LoopConfig, Program]]:
    """Candidates one step smaller than `config` and `program` (some may not be: the caller
    compares weights), the biggest steps first."""
    for smaller in _without_runs(program):
        yield config, smaller
    concerns = _concerns(config, program)
    for index, command in enumerate(program):
        if not isinstance(command, ModelReplies):
            continue
        for block_index, block in enumerate(command.blocks):
            blocks = command.blocks[:block_index] + command.blocks[block_index + 1 :]
            rest = program[index + 1 :]
            if isinstance(block, ToolCallBlock):
                # With the call go the commands that answer for it.
                rest = tuple(
                    later
                    for later, concern in zip(rest, concerns[index + 1 :], strict=True)
                    if concern.call != block.id
                )
            yield config, (*program[:index], attrs.evolve(command, blocks=blocks), *rest)
    for hook in config.hooks:
        yield _without_hook(config, program, concerns, hook)
    # Only tools no call names: a call to a tool taken away would be a call to an unknown tool,
    # another situation than the one found.
    called = {call.name for c in program if isinstance(c, ModelReplies) for call in c.tool_calls}
    uncalled = [tool for tool in config.tools if tool.name not in called]
    if len(uncalled) > 1:
        yield (
            attrs.evolve(config, tools=tuple(t for t in config.tools if t not in uncalled)),
            program,
        )
    for tool in uncalled:
        yield attrs.evolve(config, tools=tuple(t for t in config.tools if t != tool)), program
    inputs = [_Inputs(config, concern) for concern in concerns]
    simplest = tuple(map(_simplest, program, inputs))
    yield config, simplest
    for index in range(len(program)):
        yield config, (*program[:index], simplest[index], *program[index + 1 :])
    for index, command in enumerate(program):
        for simpler in _simpler_commands(command, inputs[index]):
            yield config, (*program[:index], simpler, *program[index + 1 :])


def _without_runs(program: Program) -> Iterator[Program]:
    """`program` less a run of commands: halves first, then quarters, ... then each one."""
    size = len(program) // 2
    while size >= 1:
        for start in range(0, len(program) - size + 1, size):
            yield program[:start] + program[start + size :]
        size //= 2


@attrs.frozen
class _Concern:
    """What a command answers for: the call (a hook answer, approval answer or outcome), the
    PreToolUse hook answering, and the call's tool."""

    call: str | None = None
    hook: HookSpec | None = None
    tool: str | None = None


def _concerns(config: LoopConfig, program: Program) -> list[_Concern]:
    """Per command, what it answers for, as the model's state before it says."""
    state = LoopState(config)
    tools: dict[str, str] = {}
    concerns: list[_Concern] = []
    for command in program:
        phase = state.phase
        concern = _Concern()
        match command:
            case ModelReplies():
                for call in command.tool_calls:
                    tools.setdefault(call.id, call.name)
            case HookAnswers() if isinstance(phase, Rewriting) and phase.queue:
                pending = phase.queue[0]
                call = phase.reply.tool_calls[pending.call_index]
                concern = _Concern(call.id, pending.hook, call.name)
            case ApprovalAnswers() if isinstance(phase, Dispatching):
                if phase.gate < len(phase.slots):
                    slot = phase.slots[phase.gate]
                    concern = _Concern(slot.call_id, tool=slot.name)
            case ToolFinishes():
                concern = _Concern(command.call_id, tool=tools.get(command.call_id))
            case _:
                pass
        concerns.append(concern)
        with contextlib.suppress(LoopSpecError):  # a refused command changes nothing
            state = step(state, command)
    return concerns


def _without_hook(
    config: LoopConfig, program: Program, concerns: list[_Concern], hook: HookSpec
) -> tuple[LoopConfig, Program]:
    """`config` without `hook`, and `program` without its answers: a PreToolUse hook's
    `HookAnswers`, a PostToolUse hook's verdict in each outcome of a call it matches."""
    smaller = attrs.evolve(config, hooks=tuple(h for h in config.hooks if h != hook))
    kept: list[Command] = []
    for command, concern in zip(program, concerns, strict=True):
        if isinstance(command, HookAnswers) and concern.hook == hook:
            continue
        kept.append(command)
        if isinstance(command, ToolFinishes) and hook.point == POST_TOOL_USE and concern.tool:
            matching = config.hooks_for(POST_TOOL_USE, concern.tool)
            if hook in matching and len(command.post) == len(matching):
                at = matching.index(hook)
                kept[-1] = attrs.evolve(command, post=command.post[:at] + command.post[at + 1 :])
    return smaller, tuple(kept)


def _renumbered(program: Program) -> Program:
    """`program` with its call ids c1, c2, ... in order of first appearance."""
    names: dict[str, str] = {}

    def new(call_id: str) -> str:
        return names.setdefault(call_id, f"c{len(names) + 1}")

    def renamed(command: Command) -> Command:
        if isinstance(command, ModelReplies):
            blocks = tuple(
                attrs.evolve(b, id=new(b.id)) if isinstance(b, ToolCallBlock) else b
                for b in command.blocks
            )
            return attrs.evolve(command, blocks=blocks)
        if isinstance(command, ToolFinishes):
            return attrs.evolve(command, call_id=new(command.call_id))
        return command

    return tuple(map(renamed, program))


def _shorter(text: str) -> list[str]:
    return [shorter for shorter in ("", text[:1]) if len(shorter) < len(text)]


@attrs.frozen
class _Inputs:
    """What a command's tool inputs must keep: the keys each tool requires (`ToolSpec`)."""

    config: LoopConfig
    concern: _Concern

    def required(self, tool_name: str | None) -> tuple[str, ...] | None:
        """The keys a call of `tool_name` must keep; None when which tool is not known (a
        hook answer the model did not take): then no key is taken away. A tool the
        configuration lacks requires none (its calls fail as unknown whatever they carry)."""
        if tool_name is None:
            return None
        tool = next((t for t in self.config.tools if t.name == tool_name), None)
        return () if tool is None else tool.required_keys


def _simpler_objects(
    value: Mapping[str, JsonValue], required: tuple[str, ...] | None
) -> Iterator[dict[str, JsonValue]]:
    """`value` less one key `required` does not name, or with one string value shorter."""
    if required is not None:
        for key in value:
            if key not in required:
                yield {k: v for k, v in value.items() if k != key}
    for key, item in value.items():
        if isinstance(item, str):
            for shorter in _shorter(item):
                yield {**value, key: shorter}


def _simpler_arguments(arguments: str, required: tuple[str, ...] | None) -> Iterator[str]:
    """Simpler arguments text, when `arguments` is a JSON object (malformed ones stay)."""
    try:
        parsed = json.loads(arguments)
        # Written back only as they were read: not a number beyond a float's range (inf).
        json.dumps(parsed, allow_nan=False)
    except (ValueError, RecursionError):  # nested deeper than the stack: kept as they are
        return
    if isinstance(parsed, dict):
        for simpler in _simpler_objects(parsed, required):
            text = json.dumps(simpler, ensure_ascii=False, separators=(",", ":"))
            escaped = lone_surrogates_escaped(text)
            # Halves a shortening brought together would read back as one character.
            if escaped == text or json.loads(escaped) == simpler:
                yield escaped


def _simplest(command: Command, inputs: _Inputs) -> Command:
    """`command` simplified by its first simpler value, again, until it has none."""
    # Each step makes the JSON shorter or an answer plainer (`weight`): it ends.
    while (simpler := next(_simpler_commands(command, inputs), None)) is not None:
        command = simpler
    return command


def _simpler_commands(command: Command, inputs: _Inputs) -> Iterator[Command]:
    match command:
        case SubmitUser(text=text):
            for shorter in _shorter(text):
                yield SubmitUser(shorter)
        case ModelReplies():
            if command.finish != "completed":
                yield attrs.evolve(command, finish="completed")
            for index, block in enumerate(command.blocks):
                simpler_blocks: list[ReplyBlock] = []
                if isinstance(block, TextBlock | ReasoningBlock):
                    simpler_blocks = [attrs.evolve(block, text=t) for t in _shorter(block.text)]
                else:
                    required = inputs.required(block.name)
                    simpler_blocks = [
                        attrs.evolve(block, arguments=arguments)
                        for arguments in _simpler_arguments(block.arguments, required)
                    ]
                for simpler_block in simpler_blocks:
                    blocks = (*command.blocks[:index], simpler_block, *command.blocks[index + 1 :])
                    yield attrs.evolve(command, blocks=blocks)
        case ModelFails(message=message):
            for shorter in _shorter(message):
                yield attrs.evolve(command, message=shorter)
        case HookAnswers(verdict=verdict, audit=audit):
            if audit is not None:
                yield attrs.evolve(command, audit=None)
            for simpler in _simpler_verdicts(verdict, inputs.required(inputs.concern.tool)):
                # An audit for the old verdict may contradict the simpler one (a "block" on a
                # pass, an exit code 2 on an allow, HOOK-1): then the candidate goes without it.
                fits = audit is None or (
                    audit.decision in (None, *audit_words(simpler)) and exits_as(simpler, audit)
                )
                yield HookAnswers(simpler, audit if fits else None)
        case ToolFinishes(outcome=outcome, post=post):
            for simpler_outcome in _simpler_outcomes(outcome):
                yield attrs.evolve(command, outcome=simpler_outcome)
            for index, post_verdict in enumerate(post):
                for simpler_post in _simpler_posts(post_verdict):
                    yield attrs.evolve(
                        command, post=(*post[:index], simpler_post, *post[index + 1 :])
                    )
        case ApprovalAnswers(outcome=answered):
            for simpler_answer in sorted(_APPROVAL_RANK, key=_APPROVAL_RANK.__getitem__):
                if _APPROVAL_RANK[simpler_answer] < _APPROVAL_RANK[answered]:
                    yield ApprovalAnswers(simpler_answer)
        case Abort(cause=cause):
            if cause != _BY_THE_USER:
                yield Abort()
        case Crash() | Recover():
            pass
        case _:
            assert_never(command)


def _simpler_inputs(new_input: JsonValue, required: tuple[str, ...] | None) -> Iterator[JsonValue]:
    """A hook's simpler new input: an object's (one that is not stays, HOOK-6)."""
    if isinstance(new_input, FrozenMap):
        for simpler in _simpler_objects(new_input, required):
            yield FrozenMap(simpler)


def _simpler_verdicts(
    verdict: PreVerdict, required: tuple[str, ...] | None
) -> Iterator[PreVerdict]:
    match verdict:
        case Pass():
            pass
        case Allow(updated_input=new_input, reason=reason):
            yield Pass()
            if new_input is not None:
                yield attrs.evolve(verdict, updated_input=None)
            if reason is not None:
                yield attrs.evolve(verdict, reason=None)
            for simpler_input in _simpler_inputs(new_input, required):
                yield attrs.evolve(verdict, updated_input=simpler_input)
        case Ask(updated_input=new_input, reason=reason):
            yield Pass()
            yield Allow(updated_input=new_input)  # the same call, without the approval
            if new_input is not None:
                yield attrs.evolve(verdict, updated_input=None)
            if reason is not None:
                yield attrs.evolve(verdict, reason=None)
            for simpler_input in _simpler_inputs(new_input, required):
                yield attrs.evolve(verdict, updated_input=simpler_input)
        case Deny(reason=reason):
            yield Pass()
            for shorter in _shorter(reason):
                yield Deny(shorter)
        case _:
            assert_never(verdict)


def _simpler_outcomes(outcome: ToolOutcome) -> Iterator[ToolOutcome]:
    match outcome:
        case ToolSucceeded(text=text, contexts=contexts, meta=meta):
            for index in range(len(contexts)):
                yield attrs.evolve(outcome, contexts=contexts[:index] + contexts[index + 1 :])
            if meta is not None:
                yield attrs.evolve(outcome, meta=None)
            for shorter in _shorter(text):
                yield attrs.evolve(outcome, text=shorter)
            for index, context in enumerate(contexts):
                for shorter in _shorter(context):
                    shorter_contexts = (*contexts[:index], shorter, *contexts[index + 1 :])
                    yield attrs.evolve(outcome, contexts=shorter_contexts)
        case ToolFailed(message=message, code=code):
            if code is not None:
                yield attrs.evolve(outcome, code=None)
            for shorter in _shorter(message):
                yield attrs.evolve(outcome, message=shorter)
        case _:
            assert_never(outcome)


def _simpler_posts(verdict: PostVerdict) -> Iterator[PostVerdict]:
    match verdict:
        case PostPass(audit=audit):
            if audit is not None:
                yield PostPass()
        case PostContext(text=text):
            yield PostPass()
            for shorter in _shorter(text):
                yield attrs.evolve(verdict, text=shorter)
        case PostBlock(reason=reason):
            yield PostPass()
            for shorter in _shorter(reason):
                yield attrs.evolve(verdict, reason=shorter)
        case _:
            assert_never(verdict)
