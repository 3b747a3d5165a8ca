"""The targeted programs of rare situations (`situation_sweep`): each creates its situation, the
bundled loop passes them all, and a loop wrong in that situation is blamed on the rule it breaks.

Random programs reached these situations seldom or never within 200 programs when realistic
wrong loops were planted in a copy of the bundled implementation (h4, session 16): denying hooks'
reasons joined with ", " passed 200 programs on one seed, a loop aborting a call that had
finished before the abort passed 200 on every seed tried.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import attrs
import pytest
from fresh_bugs import GUARDED_BASH
from mutants import MUTANTS, MutantTarget
from test_blame_matrix import (
    _AbortsFinishedBodies,
    _blocked_contexts,
    _result_text,
    _same,
    changed,
)

from loopspec.model import handlers
from loopspec.model.commands import (
    FINISH_CANCELLED,
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    PostContext,
    ReplyBlock,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig
from loopspec.model.jsonvalue import JAVASCRIPT_TRIMMED
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.properties.cli.conform_run import _text_report, json_report
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.exhaustive import run_program
from loopspec.properties.conformance.impl_target import bundled_target
from loopspec.properties.conformance.run import replay_case, run_conformance
from loopspec.properties.conformance.situation_sweep import (
    SITUATIONS,
    situations_for,
    skipped_under,
    sweep_situations,
)
from loopspec.properties.conformance.situations import SITUATION_HITS
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles import PROFILES
from loopspec.properties.stateful.strategies import TOOLS

ALL = frozenset(CAPABILITIES)


def _events_of(situation_name: str) -> list[dict[str, object]]:
    """Every event the model appends for the named situation's program."""
    (situation,) = [s for s in SITUATIONS if s.name == situation_name]
    seen: list[Observation] = []
    run_program(ModelTarget(), situation.config, situation.program, observe=seen.append)
    return [event for observation in seen for event in observation.events]


def _mutant(name: str) -> Callable[[], MutantTarget]:
    (mutant,) = [m for m in MUTANTS if m.name == name]
    return lambda: MutantTarget(mutant)


@pytest.mark.no_cover
def test_MODEL_1_the_bundled_loop_passes_every_rare_situation() -> None:
    """MODEL-1: control: the bundled loop agrees with the model in every targeted program."""
    played: list[tuple[Command, ...]] = []
    sweep_situations(bundled_target, ALL, played=played.append)
    assert len(played) == len(SITUATIONS)


def test_PROTO_1_a_situation_is_played_only_with_the_capabilities_it_needs() -> None:
    """PROTO-1: commands needing an undeclared capability are never sent."""
    assert [s.name for s in situations_for(ALL)] == [s.name for s in SITUATIONS]
    without = list(situations_for(ALL - {"abort", "approval"}))
    assert without
    assert all(not s.needs & {"abort", "approval"} for s in without)
    assert len(without) < len(SITUATIONS)


def test_DEC_2_a_tool_approved_once_is_asked_about_again_in_the_next_turn() -> None:
    """DEC-2: the situation's program asks twice for one tool, in two turns (a loop that
    remembers an approval across turns would run the second call unasked)."""
    events = _events_of("a tool approved once is asked about again in the next turn")
    asked = [e for e in events if e["type"] == "approval/asked"]
    turns = [e for e in events if e["type"] == "turn/start"]
    assert (len(asked), len(turns)) == (2, 2)


@pytest.mark.parametrize(
    ("target", "rule"),
    [
        (changed(_result_text(lambda text, _: text.replace("; ", ", "))), "DEC-1"),
        (_AbortsFinishedBodies, "ABORT-1"),
        (changed(_blocked_contexts(keep_body=False)), "DEC-3"),
        (changed(_blocked_contexts(keep_body=True)), "DEC-3"),
        (_mutant("completion-order-results"), "ORD-3"),
        (_mutant("missing-sidecar"), "RW-2"),
        (_mutant("last-finisher-wins"), "HOOK-3"),
    ],
    ids=[
        "reasons joined with a comma",
        "a finished body aborted",
        "a block drops its hooks' contexts",
        "a block keeps the body's contexts",
        "results in completion order",
        "no sidecar",
        "the first rewrite wins",
    ],
)
def test_MODEL_1_a_loop_wrong_in_a_rare_situation_is_blamed_on_its_rule(
    target: Callable[[], ModelTarget], rule: str
) -> None:
    """MODEL-1, DEC-1, ABORT-1, DEC-3, ORD-3, RW-2, HOOK-3: the sweep finds each wrong loop and
    names the rule it breaks."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(target, ALL)
    assert found.value.divergence.rule_id == rule, found.value.divergence.what


@pytest.mark.no_cover
def test_MODEL_1_conform_plays_the_rare_situations_after_the_search_and_counts_them() -> None:
    """MODEL-1: a clean run plays every targeted program its target can take, and the report
    counts them apart from section 12's examples."""
    report = run_conformance(ModelTarget, examples=2, seed_value=1, show_progress=False)
    assert report.divergence is None
    assert report.situation_examples == len(SITUATIONS)
    document = json_report(report, None, {})
    assert document["situationExamples"] == len(SITUATIONS)
    found = run_conformance(
        _AbortsFinishedBodies, examples=2, seed_value=1, show_progress=False, shrink=False
    )
    assert found.divergence is not None
    assert found.divergence.rule_id == "ABORT-1", found.divergence.what


@pytest.mark.no_cover
def test_MODEL_1_the_sweeps_commands_count_among_the_commands_sent_and_in_the_tables() -> None:
    """MODEL-1: `steps` ("commands sent in all", divided by `seconds` into the commands/s the
    report prints) counts the commands of section 12's examples and of the targeted programs,
    settling tails included, as `seconds` counts their time: it counted the random programs'
    alone, a tenth fewer commands than a run sends on the bundled loop. The targeted programs'
    transitions, rules checked and situations are counted too: after one random program the
    verdict named 46 targeted programs while the rule table read "not reached by the
    generator" for 19 rules they reach."""
    from loopspec.properties.conformance import machine  # noqa: PLC0415
    from loopspec.properties.conformance.presentation_sweep import (  # noqa: PLC0415
        SWEEP_CONFIG,
        sweep_programs,
    )

    swept = sum(
        len(run_program(ModelTarget(), SWEEP_CONFIG, program)[1]) for program in sweep_programs(ALL)
    )
    machine.reset_coverage()
    targeted = sum(
        len(
            run_program(ModelTarget(), each.config, each.program, count=machine.program_counter())[
                1
            ]
        )
        for each in situations_for(ALL)
    )
    machine.count_observed()
    alone = (dict(machine.TRANSITION_HITS), dict(SITUATION_HITS))
    assert sum(alone[0].values()) == targeted
    assert swept > len(list(sweep_programs(ALL))) * 2  # the tails count too
    report = run_conformance(ModelTarget, examples=2, seed_value=1, show_progress=False)
    assert report.divergence is None
    assert report.presentation_examples
    assert report.situation_examples
    counted = sum(report.transitions.values())  # the random programs' and the targeted
    assert counted > targeted
    assert report.steps == counted + swept
    transitions, situations = alone
    for (phase, command, outcome), hits in transitions.items():
        assert report.transitions[f"{phase} + {command} -> {outcome}"] >= hits
    short = {rule: n for rule, n in situations.items() if report.situations.get(rule, 0) < n}
    assert not short, f"situations the targeted programs created, not all counted: {short}"
    played: list[tuple[Command, ...]] = []
    sweep_situations(ModelTarget, ALL, played=played.append)
    assert sum(map(len, played)) == targeted


class MatchesOtherwise(ModelTarget):
    """The model, its hooks' matchers read another way: `prefix`, a matcher matches the start of
    a tool name (JavaScript's `new RegExp(matcher).test(name)` anchored only by a `^`);
    `ignore_case`, every matcher matches in any letter case; otherwise a leading `(?i)` is
    dropped, and the rest matches as written. Its audit names each hook's configured matcher, as
    a loop that only reads matchers wrongly does."""

    def __init__(self, *, prefix: bool, ignore_case: bool = False) -> None:
        super().__init__()
        self.prefix = prefix
        self.ignore_case = ignore_case
        self.configured: dict[str, str] = {}

    def reset(self, config: LoopConfig) -> frozenset[str]:
        """Start the model on the configuration with each matcher read this loop's way."""
        self.configured = {hook.handler_id: hook.matcher for hook in config.hooks}
        hooks = tuple(attrs.evolve(hook, matcher=self._read(hook.matcher)) for hook in config.hooks)
        return super().reset(attrs.evolve(config, hooks=hooks))

    def _read(self, matcher: str) -> str:
        if matcher in ("", "*"):
            return matcher
        if self.ignore_case:
            return "(?i)" + matcher.removeprefix("(?i)")
        if self.prefix:
            flag, rest = ("(?i)", matcher[4:]) if matcher.startswith("(?i)") else ("", matcher)
            return f"{flag}(?:{rest}).*"
        return matcher.removeprefix("(?i)")

    def apply(self, command: Command) -> Observation:
        """Step the model; its hook audit names the configured matchers."""
        observed = super().apply(command)
        events = tuple(self._audited(event) for event in observed.events)
        return attrs.evolve(observed, events=events)

    def _audited(self, event: dict[str, object]) -> dict[str, object]:
        data = event.get("data")
        if event.get("type") != "hook/invoked" or not isinstance(data, dict):
            return event
        return {**event, "data": {**data, "matcher": self.configured[data["handlerId"]]}}


@pytest.mark.parametrize(
    ("prefix", "ignore_case"),
    [(True, False), (False, False), (False, True)],
    ids=["matches a prefix", "drops (?i)", "ignores case"],
)
def test_HOOK_8_a_loop_reading_matchers_otherwise_is_found_by_the_sweep(
    prefix: bool, ignore_case: bool
) -> None:
    """HOOK-8: a matcher matches the whole tool name, case-sensitively unless it starts with
    `(?i)`. A loop matching only a name's start, or dropping `(?i)`, passed every random program
    on every seed tried: no generated tool name extends a generated matcher or changes its case.
    The sweep's program calls `bash_session` beside a `bash` hook and `read` beside `(?i)READ`;
    another calls `read` beside a `Read` hook, which a loop matching in any case runs."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(lambda: MatchesOtherwise(prefix=prefix, ignore_case=ignore_case), ALL)
    assert found.value.divergence.rule_id == "HOOK-8", found.value.divergence.what


# A context no program draws: a loop delivering it delivers this in its place, then blanks it.
_STAND_IN = "(an empty context, delivered)"


class DeliversEmptyContexts(ModelTarget):
    """The model, except that an empty context, a body's (`bodies`) or a PostToolUse hook's, is
    queued and delivered as a message of its own, as a loop that queues every context it is
    given."""

    def __init__(self, *, bodies: bool) -> None:
        super().__init__()
        self.bodies = bodies

    def apply(self, command: Command) -> Observation:
        """Step the model with each empty context as a stand-in, then blank the stand-in."""
        if isinstance(command, ToolFinishes):
            outcome = command.outcome
            if isinstance(outcome, ToolSucceeded) and self.bodies:
                contexts = tuple(text or _STAND_IN for text in outcome.contexts)
                outcome = attrs.evolve(outcome, contexts=contexts)
            post = tuple(
                PostContext(_STAND_IN) if verdict == PostContext("") else verdict
                for verdict in command.post
            )
            command = attrs.evolve(command, outcome=outcome, post=post)
        observed = super().apply(command)
        events = tuple(self._blanked(event) for event in observed.events)
        return attrs.evolve(observed, events=events)

    @staticmethod
    def _blanked(event: dict[str, object]) -> dict[str, object]:
        data = event.get("data")
        if event.get("type") != "user/message" or not isinstance(data, dict):
            return event
        if data.get("content") != [{"type": "text", "text": _STAND_IN}]:
            return event
        return {**event, "data": {**data, "content": [{"type": "text", "text": ""}]}}


@pytest.mark.parametrize(
    ("bodies", "capabilities"),
    [(True, frozenset()), (False, ALL)],
    ids=["a body's, beside one of whitespace", "a PostToolUse hook's, alone"],
)
def test_ADJ_4_a_loop_delivering_an_empty_context_is_found_and_told_so(
    bodies: bool, capabilities: frozenset[str]
) -> None:
    """ADJ-4: an empty context is no context: nothing is queued for it. A loop queuing every
    context a body defers passed every random program (none drew an empty one then), the
    tutorial's loop among them; the sweep now finds it, a body's or a hook's, and the report
    says what is wrong with the message (in place of the model's, or one more), where it said
    that messages arising mid-step wait for the next step/start."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(lambda: DeliversEmptyContexts(bodies=bodies), capabilities)
    divergence = found.value.divergence
    assert divergence.rule_id == "ADJ-4", divergence.what
    assert 'an empty context (""), which is no context' in divergence.what


class DropsDenyReasons(ModelTarget):
    """The model, except that every denial says `denied`, whatever reason its hooks gave."""

    def apply(self, command: Command) -> Observation:
        """Step the model, then word each denial without its reasons."""
        observed = super().apply(command)
        events = tuple(_reason_dropped(event) for event in observed.events)
        return attrs.evolve(observed, events=events)


def _reason_dropped(event: dict[str, object]) -> dict[str, object]:
    data = event.get("data")
    if event.get("type") != "tool/result" or not isinstance(data, dict):
        return event
    text = re.sub(r'"Error: (?!denied")[^"]+"', '"Error: denied"', json.dumps(data))
    return {**event, "data": json.loads(text)}


def test_DEC_1_a_deny_reason_dropped_is_not_told_whitespace_is_a_reason() -> None:
    """DEC-1: a loop saying `denied` where its denying hook gave a reason ("not here") was told
    that "a denying hook's reason of whitespace is a reason", words for a loop trimming
    reasons, false of this one."""
    program: list[Command] = [
        SubmitUser(""),
        ModelReplies((ToolCallBlock("c1", "bash", '{"command":"ls"}'),)),
        HookAnswers(Deny("not here")),
        HookAnswers(Pass()),
    ]
    replay = replay_case(DropsDenyReasons, GUARDED_BASH, program)
    assert replay.divergence is not None
    what = replay.divergence.what
    assert replay.divergence.rule_id == "DEC-1", what
    assert "whitespace" not in what, what
    assert "the result carries the denying hooks' reasons" in what, what


class ReasonsTrimmed(ModelTarget):
    """The model, except for reasons read as `trim` would have them: a deny whose reasons are
    only whitespace says `denied` (`deny`), or an ask whose reason is empty still writes one on
    its approval request (`ask`)."""

    def __init__(self, *, deny: bool) -> None:
        super().__init__()
        self.deny = deny

    def apply(self, command: Command) -> Observation:
        """Step the model, then word its denial or its approval request this loop's way."""
        observed = super().apply(command)
        events = tuple(self._worded(event) for event in observed.events)
        return attrs.evolve(observed, events=events)

    def _worded(self, event: dict[str, object]) -> dict[str, object]:
        data = event.get("data")
        if not isinstance(data, dict):
            return event
        if self.deny and event.get("type") == "tool/result":
            text = json.dumps(data).replace('"Error:  "', '"Error: denied"')
            return {**event, "data": json.loads(text)}
        if not self.deny and event.get("type") == "approval/asked" and "reason" not in data:
            return {**event, "data": {**data, "reason": ""}}
        return event


@pytest.mark.parametrize(
    ("deny", "rule"),
    [(True, "DEC-1"), (False, "DEC-2")],
    ids=["a deny's reason of whitespace dropped", "an ask's empty reason written"],
)
def test_DEC_1_DEC_2_a_reason_read_as_trimmed_is_found_by_the_sweep(deny: bool, rule: str) -> None:
    """DEC-1, DEC-2: a denial's reasons are the denying hooks' non-empty reasons (whitespace is
    not empty), an approval request's reason the asking hooks' (absent when there are none).
    The random programs draw no reason of whitespace and no ask with an empty reason, so a loop
    reading reasons as trimmed, or writing an empty one, passed them all."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(lambda: ReasonsTrimmed(deny=deny), ALL)
    divergence = found.value.divergence
    assert divergence.rule_id == rule, divergence.what
    # It said the denying hooks' reasons are joined with '; ': they were, the one there was.
    assert ("reason of whitespace is a reason" in divergence.what) == deny, divergence.what


# Each lossy number and a lossless one in its place, as a reader taking it for a number has it.
_READ_AS_NUMBERS = {"-0.0": "0", "1e400": "1", "NaN": "2"}


class ReadsLossyNumbers(ModelTarget):
    """The model, except that arguments holding NaN, 1e400 or -0.0 are read as numbers, as
    `json.loads` and `JSON.parse` read them: such a call is an object, and may run. The events
    and bodies keep the arguments as the model wrote them."""

    def apply(self, command: Command) -> Observation:
        """Step the model on the arguments with numbers in place, then put the text back."""
        if not isinstance(command, ModelReplies):
            return super().apply(command)
        swapped: dict[str, str] = {}
        blocks: list[ReplyBlock] = []
        for block in command.blocks:
            if not isinstance(block, ToolCallBlock):
                blocks.append(block)
                continue
            read = block.arguments
            for lossy, number in _READ_AS_NUMBERS.items():
                read = read.replace(lossy, number)
            swapped[read] = block.arguments
            blocks.append(attrs.evolve(block, arguments=read))
        observed = super().apply(attrs.evolve(command, blocks=tuple(blocks)))
        text = json.dumps(observed.events)
        for read, written in swapped.items():
            text = text.replace(json.dumps(read)[1:-1], json.dumps(written)[1:-1])
        executed = tuple(
            (call, swapped.get(arguments, arguments)) for call, arguments in observed.executed
        )
        return attrs.evolve(observed, events=tuple(json.loads(text)), executed=executed)


def test_EXE_2_a_loop_reading_lossy_numbers_is_found_and_told_why() -> None:
    """EXE-2: JSON without a lossless value (NaN, an infinity such as 1e400, a negative zero
    such as -0.0) stays the raw string, no object, so the call ends INVALID_TOOL_INPUT. A loop
    parsing with json.loads or JSON.parse, the tutorial's among them, passed every random
    program (none draws such arguments); its report, once found, said EXE-5 "the target does
    not append the model's tool/result", or for NaN that the two sides' identical arguments
    differed (NaN is unequal to itself)."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(ReadsLossyNumbers, frozenset())
    divergence = found.value.divergence
    assert divergence.rule_id == "EXE-2", divergence.what
    assert "without a lossless value" in divergence.what


@pytest.mark.parametrize("tool", ["read", "missing_tool"])
@pytest.mark.parametrize("lossy", list(_READ_AS_NUMBERS))
def test_EXE_2_each_lossy_number_read_as_a_number_is_blamed_on_EXE_2(lossy: str, tool: str) -> None:
    """EXE-2: each of NaN, 1e400 and -0.0 alone. With NaN the report said the call's arguments
    in the model history differed from the model's: both sides wrote the same text, whose
    parse, NaN, is unequal to itself; NaN and Infinity are now compared as the text they are.
    In a call of a tool that is not registered (random programs send such calls), the loop
    judges the tool of what it took for an object (UNKNOWN_TOOL), where the model ends the call
    INVALID_TOOL_INPUT: the report said EXE-5, the order calls are judged in, which it keeps."""
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", tool, f'{{"file_path":"a.txt","x":{lossy}}}'),)),
    ]
    replay = replay_case(ReadsLossyNumbers, LoopConfig(tools=TOOLS), program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-2", replay.divergence.what
    assert "without a lossless value" in replay.divergence.what, replay.divergence.what


def test_EXE_2_a_lossy_number_in_arguments_missing_a_key_is_blamed_for_its_cause() -> None:
    """EXE-2: random programs send `{"command":"ls","timeout":-0.0}`, which the model keeps as
    the raw string (not an object) and a loop reading -0.0 as a number finds an object missing a
    required key: both end the call INVALID_TOOL_INPUT, in other words. The report said only
    that the arguments "parse to another value here (blank means {}, invalid JSON stays the raw
    string)", which names neither -0.0 nor why it stays a string, as the targeted program's
    report does."""
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", "read", '{"timeout":-0.0}'),)),
    ]
    replay = replay_case(ReadsLossyNumbers, LoopConfig(tools=TOOLS), program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-2", replay.divergence.what
    assert "without a lossless value" in replay.divergence.what, replay.divergence.what
    assert "a negative zero such as -0.0" in replay.divergence.what, replay.divergence.what


def _execution_only_rewrite() -> MutantTarget:
    return _mutant("execution-only-rewrite")()


@pytest.mark.no_cover
@pytest.mark.parametrize("name", sorted(PROFILES))
def test_MODEL_1_under_a_profile_the_targeted_programs_are_played_and_those_kept_back_named(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """MODEL-1: under a profile the bundled loop passes every targeted program its profile's
    capabilities allow; one whose command the profile's target is cut at when sent (a call a
    CLI runs that the model settles unrun) is not played, and the report says which and why."""
    profile = PROFILES[name]
    report = run_conformance(
        ModelTarget, examples=2, seed_value=1, show_progress=False, profile=profile
    )
    assert report.divergence is None, report.divergence
    takeable = list(situations_for(profile.capabilities or ALL))
    skipped = {s.name for s in takeable if skipped_under(s, profile) is not None}
    assert report.situation_examples == len(takeable) - len(skipped) > 0
    assert {u.name for u in report.situations_unplayed} == skipped
    # Their commands are counted in the transitions (and the rule table) as the random ones'.
    assert report.steps == sum(report.transitions.values())
    document = json_report(report, None, {})
    assert [u["situation"] for u in document["situationsUnplayed"]] == [
        u.name for u in report.situations_unplayed
    ]
    if skipped:
        _text_report(report, None, {})
        assert "kept from being compared" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["claude-code", "codex"])
def test_DEC_1_under_a_profile_a_targeted_program_finds_reasons_joined_with_a_comma(
    name: str,
) -> None:
    """DEC-1: a loop joining two denying hooks' reasons with ", " passes two random programs;
    under each CLI's profile the targeted program of two denying hooks finds it and names
    DEC-1 (no targeted program was played under a profile before)."""
    wrong = changed(_result_text(lambda text, _: text.replace("; ", ", ")))
    report = run_conformance(
        wrong, examples=2, seed_value=1, show_progress=False, profile=PROFILES[name], shrink=False
    )
    assert report.divergence is not None
    assert report.situation_examples == 1  # the first targeted program
    assert report.divergence.rule_id == "DEC-1", report.divergence.what


@pytest.mark.no_cover
def test_RW_1_a_targeted_program_stopped_at_a_known_divergence_is_reported_so() -> None:
    """RW-1: a loop running a hook's rewrite while recording the model's input (the CLIs' known
    RW-1) is stopped there in the targeted program of two rewritten calls; the run passes under
    the profile, counts RW-1 as shown, and says the program was stopped at it."""
    report = run_conformance(
        _execution_only_rewrite,
        examples=2,
        seed_value=1,
        show_progress=False,
        profile=PROFILES["claude-code"],
    )
    assert report.divergence is None, report.divergence
    assert report.known.get("RW-1", 0) >= 1
    # (Another targeted program with a rewrite, one holding a null, may be stopped there too.)
    stopped = {u.name: u.reason for u in report.situations_unplayed if "stopped" in u.reason}
    assert (
        "known divergence RW-1"
        in stopped["two calls of one reply rewritten, one of them by two hooks"]
    )


def _keeping(blank: Callable[[str], bool]) -> Callable[[], ModelTarget]:
    """The model, but a cancelled reply keeps the text and reasoning blocks `blank` says are
    not blank."""

    def delivered(blocks: tuple[ReplyBlock, ...]) -> tuple[ReplyBlock, ...]:
        kept = (b for b in blocks if isinstance(b, TextBlock | ReasoningBlock))
        return tuple(b for b in kept if not blank(b.text))

    return changed(_same, lambda: [(handlers, "_delivered_prefix", delivered)])


_TRIMMED_AS_JAVASCRIPT = _keeping(lambda text: not text.strip(JAVASCRIPT_TRIMMED))
_TRIMMED_AS_ASCII = _keeping(lambda text: not text.strip(" \t\n\r"))
_JAVASCRIPT_SITUATION = (
    "a cancelled reply holds blocks blank to one of Python's strip and JavaScript's trim"
)


def test_ABORT_2_a_loop_reading_blank_as_javascript_s_trim_is_found_by_the_sweep() -> None:
    """ABORT-2: a loop keeping a cancelled reply's blocks of U+0085 and U+001C..U+001F, and
    dropping one of U+FEFF, as JavaScript's `trim` reads blank (real dsh does), passed every
    other targeted program; the sweep finds it and names ABORT-2."""
    with pytest.raises(DivergenceFound) as found:
        sweep_situations(_TRIMMED_AS_JAVASCRIPT, ALL)
    assert found.value.divergence.rule_id == "ABORT-2", found.value.divergence.what


@pytest.mark.parametrize(
    ("target", "known"),
    [(_TRIMMED_AS_JAVASCRIPT, "interrupted-blank-is-javascript-trim"), (_TRIMMED_AS_ASCII, None)],
    ids=["JavaScript's trim", "ASCII whitespace only"],
)
def test_ABORT_2_the_dsh_profile_tolerates_javascript_s_blank_and_no_other(
    target: Callable[[], ModelTarget], known: str | None
) -> None:
    """ABORT-2: under the dsh profile the targeted program of blocks blank to one reader passes
    a loop that reads blank as JavaScript's `trim` (dsh's known divergence, shown), and still
    blames ABORT-2 on a loop that keeps a block of U+00A0 or U+3000, blank to both readers."""
    (situation,) = [s for s in SITUATIONS if s.name == _JAVASCRIPT_SITUATION]
    program = [*situation.program, SubmitUser("again"), ModelReplies(
        (TextBlock("\xa0\u3000"), TextBlock("bye")), FINISH_CANCELLED)]  # fmt: skip
    replay = replay_case(target, situation.config, program, PROFILES["dsh"])
    if known is None:
        assert replay.divergence is not None
        assert replay.divergence.rule_id == "ABORT-2", replay.divergence.what
        return
    assert replay.divergence is None, replay.divergence
    assert known in replay.known
    bare = replay_case(target, situation.config, program)
    assert bare.divergence is not None
    assert bare.divergence.rule_id == "ABORT-2", bare.divergence.what
