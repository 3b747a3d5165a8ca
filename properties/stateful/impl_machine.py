"""The conformance machine: an implementation and the model, driven by the same commands.

`ConformanceMachine` extends the model's own machine
(`loopspec.properties.stateful.model_machine`), so it draws
the command programs the model is tested with (the model's state picks what fits), plus hook
answers that carry an audit (exit code, stderr, duration, decision word). Every command goes to
the model and, through a `LoopAdapter`, to the implementation. After every step it checks:

- both accepted the command, or both refused it (rule MODEL-1; a refusal changes nothing, which
  the next comparison sees);
- the implementation's durable log is the model's log, event for event in wire form, `time`
  aside, and its commit units end exactly where the model's commits end (rule LOG-8);
- its derived history is `derive_messages` of the model's log (rule HIST-1);
- what it showed live, views and ACP payloads, is `present_log` of the model's log, and so is
  what replaying its own log shows (rules ACP-1, VIEW-2);
- every tool body received exactly the arguments the model executed (rule RW-1);
- every log invariant holds on the implementation's log.

An adapter that can say what each command added (`ImplAdapter.observe_added`) is checked on
that delta after each step — its new events, commit ends, body runs and the invariants over its
log, fed incrementally — and on its whole state (history, presentation live and replayed, and
everything above again) when the program ends; any other adapter on its whole state every step.

`conformance_machine(adapter_factory, name)` builds the machine for one implementation. A
failure prints the shrunk command program: each command is noted as it is applied.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar, assert_never

import attrs
from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from loopspec.model.commands import (
    ApprovalAnswers,
    Command,
    Crash,
    HookAnswers,
    HookAudit,
    ModelReplies,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    Recover,
    SubmitUser,
    ToolFinishes,
    audit_words,
    exits_as,
    post_audit_words,
)
from loopspec.model.config import POST_TOOL_USE
from loopspec.model.derive import derive_messages
from loopspec.model.errors import TransitionRefused, tagged
from loopspec.model.events import AssistantMessageRecorded, ToolCallRecorded
from loopspec.model.facts import facts_of
from loopspec.model.invariants import LogMonitor, check_log
from loopspec.model.jsonvalue import parse_arguments
from loopspec.model.messages import ToolCallBlock
from loopspec.model.replay import ApprovalShown, CallShown, ResultShown, Shown, present_log
from loopspec.model.state import (
    RUNNING,
    AwaitingModel,
    Crashed,
    Dispatching,
    Idle,
    LoopState,
    Rewriting,
)
from loopspec.model.transitions import step
from loopspec.model.wire import event_from_wire, event_to_wire
from loopspec.properties.conformance.impl_adapter import (
    AdapterFactory,
    AdapterRefused,
    Added,
    ImplAdapter,
    LoopAdapter,
    Observation,
    ShownItem,
)
from loopspec.properties.stateful import strategies as gen
from loopspec.properties.stateful.model_machine import ModelMachine

# (phase, command, outcome) -> how often the conformance machine exercised it; outcome is
# "accepted" or the model's refusal rule ID.
CONFORMANCE_HITS: Counter[tuple[str, str, str]] = Counter()


def _exit_fitting(verdict: PreVerdict | PostVerdict, audit: HookAudit) -> HookAudit:
    """`audit`, its exit code 2 made 0 where no hook could give `verdict` by exiting 2 (HOOK-1,
    `commands.exits_as`). Fitted after the draw: mapping the strategy moved the fixed batch."""
    return audit if exits_as(verdict, audit) else attrs.evolve(audit, exit_code=0)


def _audits_recording(words: frozenset[str]) -> st.SearchStrategy[HookAudit]:
    return st.builds(
        HookAudit,
        decision=st.sampled_from([None, *sorted(words)]),
        exit_code=st.sampled_from([None, 0, 2]),
        stderr_summary=st.sampled_from([None, "", "hook said no"]),
        duration_ms=st.sampled_from([0.0, 12.5]),
    )


def pre_hook_audits(verdict: PreVerdict) -> st.SearchStrategy[HookAudit]:
    """An audit for a PreToolUse `verdict`: its decision word one the verdict allows
    (`audit_words`), or none (the verdict's own tag is recorded); its exit code is fitted to
    the verdict after the draw (`_exit_fitting`)."""
    return _audits_recording(audit_words(verdict))


# Per PostToolUse verdict kind, its audits: a word the verdict allows (`post_audit_words`, HOOK-1;
# a "block" on a pass or an "allow" on a block was drawn before), or none. Built once.
_POST_AUDITS: dict[type, st.SearchStrategy[HookAudit]] = {
    kind: _audits_recording(post_audit_words(example))
    for kind, example in (
        (PostPass, PostPass()),
        (PostContext, PostContext("")),
        (PostBlock, PostBlock("")),
    )
}


def _with_audit(verdict: PostVerdict, audit: HookAudit) -> PostVerdict:
    audit = _exit_fitting(verdict, audit)
    match verdict:
        case PostPass():
            return PostPass(audit)
        case PostContext():
            return PostContext(verdict.text, audit)
        case PostBlock():
            return PostBlock(verdict.reason, audit)
        case _:
            assert_never(verdict)


@st.composite
def _audited_post_verdicts(draw: st.DrawFn) -> PostVerdict:
    verdict = draw(gen.post_verdicts)
    return _with_audit(verdict, draw(_POST_AUDITS[type(verdict)]))


audited_post_verdicts = _audited_post_verdicts()


class ConformanceMachine(ModelMachine):
    """The model's command programs, applied to the model and to an implementation."""

    ADAPTER_FACTORY: ClassVar[AdapterFactory]
    EXACT_COMMITS: ClassVar[bool] = True
    """Whether commit units must end exactly where the model's commits end. SPEC LOG-8 lets an
    implementation commit more finely; without this, only the reply-with-calls unit is held."""

    def __init__(self) -> None:
        super().__init__()
        self.workdir = Path(tempfile.mkdtemp(prefix="loopspec-conformance-"))
        self.adapter: LoopAdapter | None = None
        # How much of the implementation's log and body runs the per-step checks have seen.
        self.compared = _Compared()

    @initialize(config=st.sampled_from(gen.CONFIGS))
    def configure(self, config: object) -> None:
        """Pick a bundled configuration; start the implementation with it."""
        super().configure(config)
        self.adapter = type(self).ADAPTER_FACTORY(self.state.config, self.workdir)

    def teardown(self) -> None:
        """Compare the whole state once more (see the module docstring); release everything."""
        try:
            if self.adapter is not None and isinstance(self.adapter, ImplAdapter):
                compare(self.state, self.adapter.observe(), exact_commits=self.EXACT_COMMITS)
        finally:
            if self.adapter is not None:
                self.adapter.close()
            shutil.rmtree(self.workdir, ignore_errors=True)

    # -- the model's rules, with what only an implementation can get wrong -------------------

    @precondition(lambda self: isinstance(self.state.phase, Rewriting))
    @rule(data=st.data())
    def hook_answers(self, data: st.DataObject) -> None:
        """The next PreToolUse hook answers, sometimes reporting how it ran (its audit)."""
        phase = self.state.phase
        assert isinstance(phase, Rewriting)
        call = phase.reply.tool_calls[phase.queue[0].call_index]
        verdict = data.draw(gen.pre_verdicts_for(call.name), label="verdict")
        audit = data.draw(st.none() | pre_hook_audits(verdict), label="audit")
        self.apply(HookAnswers(verdict, None if audit is None else _exit_fitting(verdict, audit)))

    @precondition(
        lambda self: (
            isinstance(self.state.phase, Dispatching)
            and any(s.status == RUNNING for s in self.state.phase.slots)
        )
    )
    @rule(data=st.data())
    def tool_finishes(self, data: st.DataObject) -> None:
        """A running call settles; its PostToolUse hooks may report how they ran.

        Now and then something the batch must refuse comes first (see `_misfire_in_batch`).
        """
        phase = self.state.phase
        assert isinstance(phase, Dispatching)
        if data.draw(st.sampled_from([False] * 5 + [True]), label="misfire first"):
            self._misfire_in_batch(data, phase)
            if not isinstance(self.state.phase, Dispatching):
                return
            phase = self.state.phase
            if not any(s.status == RUNNING for s in phase.slots):
                return
        running = [s for s in phase.slots if s.status == RUNNING]
        slot = data.draw(st.sampled_from(running), label="settles")
        hooks = self.state.config.hooks_for(POST_TOOL_USE, slot.name)
        judged = gen.post_verdicts | audited_post_verdicts
        post = tuple(data.draw(judged) for _ in hooks)
        self.apply(ToolFinishes(slot.call_id, data.draw(gen.tool_outcomes), post))

    @precondition(lambda self: not isinstance(self.state.phase, Crashed))
    @rule(data=st.data())
    def disrupt(self, data: st.DataObject) -> None:
        """The model machine's disruptions, plus misfires: commands the phase must refuse."""
        kind = data.draw(
            st.sampled_from(
                ["none"] * 5 + ["interject", "arbitrary", "abort", "misfire", "crash", "misfire"]
            )
        )
        if kind == "none":
            return
        if kind == "interject":
            self.apply(SubmitUser(data.draw(gen.texts)))
        elif kind == "abort" and not isinstance(self.state.phase, Idle):
            self.apply(gen.abort_on(len(self.state.log)))
        elif kind == "crash":
            self.apply(Crash())
        elif kind == "misfire":
            self._misfire(data)
        else:
            self.apply(data.draw(gen.any_commands, label="arbitrary"))

    @precondition(lambda self: isinstance(self.state.phase, Crashed))
    @rule(data=st.data())
    def recover(self, data: st.DataObject) -> None:
        """The session is reopened; before that, now and then, something it must refuse."""
        if data.draw(st.booleans(), label="misfire first"):
            self.apply(data.draw(gen.any_commands.filter(lambda c: not isinstance(c, Recover))))
        self.apply(Recover())

    def _misfire(self, data: st.DataObject) -> None:
        """Repeated call ids (EXE-1), or a misfire inside a batch; elsewhere anything at all."""
        phase = self.state.phase
        if isinstance(phase, AwaitingModel) and data.draw(st.booleans(), label="repeat ids"):
            twice = ToolCallBlock("c0", "read", '{"file_path":"a.txt"}')
            self.apply(ModelReplies((twice, twice)))
        elif isinstance(phase, Dispatching):
            self._misfire_in_batch(data, phase)
        else:
            self.apply(data.draw(gen.any_commands, label="arbitrary"))

    def _misfire_in_batch(self, data: st.DataObject, phase: Dispatching) -> None:
        """An outcome for a call that is not running (EXE-4), the wrong number of PostToolUse
        verdicts (HOOK-5), a second abort (ABORT-1), or an approval nobody asked for (DEC-2)."""
        kind = data.draw(st.sampled_from(["settled", "verdicts", "abort twice", "approval"]))
        running = [slot for slot in phase.slots if slot.status == RUNNING]
        if kind == "verdicts" and running:
            slot = data.draw(st.sampled_from(running))
            hooks = self.state.config.hooks_for(POST_TOOL_USE, slot.name)
            post = (PostPass(),) * (len(hooks) + 1)
            self.apply(ToolFinishes(slot.call_id, data.draw(gen.tool_outcomes), post))
        elif kind == "abort twice":
            if phase.aborting is None:
                self.apply(gen.abort_on(len(self.state.log)))
            if isinstance(self.state.phase, Dispatching):
                self.apply(gen.abort_on(len(self.state.log)))
        elif kind == "approval":
            self.apply(ApprovalAnswers(data.draw(gen.approval_outcomes)))
        else:
            idle = [slot.call_id for slot in phase.slots if slot.status != RUNNING]
            call_id = data.draw(st.sampled_from([*idle, "nope"]))
            self.apply(ToolFinishes(call_id, data.draw(gen.tool_outcomes)))

    # -- every command goes to both ------------------------------------------------------------

    def apply(self, command: Command) -> None:
        """Step the model and the implementation; both accept or both refuse."""
        assert self.adapter is not None
        before = self.state
        note(f"{type(command).__name__}: {command!r}")
        model_refusal: TransitionRefused | None = None
        try:
            after = step(before, command)
        except TransitionRefused as refusal:
            model_refusal, after = refusal, before
        impl_refusal: AdapterRefused | None = None
        try:
            self.adapter.apply(command)
        except AdapterRefused as refusal:
            impl_refusal = refusal
        outcome = "accepted" if model_refusal is None else model_refusal.rule_id
        CONFORMANCE_HITS[(before.phase.NAME, command.NAME, outcome)] += 1
        assert (model_refusal is None) == (impl_refusal is None), (
            f"MODEL-1: in phase {before.phase.NAME}, {command.NAME} was "
            f"{'accepted' if model_refusal is None else 'refused'} by the model "
            f"({model_refusal}) and {'accepted' if impl_refusal is None else 'refused'} by "
            f"the implementation ({impl_refusal})"
        )
        if model_refusal is not None:
            self.refusals += 1
            note(f"both refused: model [{model_refusal.rule_id}], implementation {impl_refusal}")
        self.state = after
        for event in after.log[len(before.log) :]:
            if isinstance(event, ToolCallRecorded):
                self.next_call = max(self.next_call, int(event.call_id[1:]) + 1)

    @invariant()
    def implementation_agrees_with_model(self) -> None:
        """The implementation's log, history, presentation and executions are the model's."""
        if isinstance(self.adapter, ImplAdapter):
            added = self.adapter.observe_added()
            compare_added(self.state, added, self.compared, exact_commits=self.EXACT_COMMITS)
        elif self.adapter is not None:
            compare(self.state, self.adapter.observe(), exact_commits=self.EXACT_COMMITS)


class _Compared:
    """What the per-step comparisons have covered: events, body runs, and the invariants'
    monitor over the implementation's log so far."""

    def __init__(self) -> None:
        self.events = 0
        self.runs = 0
        self.monitor = LogMonitor()


def compare_added(
    state: LoopState, added: Added, compared: _Compared, *, exact_commits: bool = True
) -> None:
    """Assert that what an implementation added with the last command is what the model added."""
    start = compared.events
    expected_log = [_timeless(event_to_wire(event)) for event in state.log[start:]]
    actual_log = [_timeless(wire) for wire in added.events]
    for index, (want, got) in enumerate(zip(expected_log, actual_log, strict=False)):
        assert got == want, f"LOG-1: event {start + index} differs\n model: {want}\n  impl: {got}"
    assert len(actual_log) == len(expected_log), (
        f"LOG-1: the implementation has {start + len(actual_log)} events, "
        f"the model {start + len(expected_log)}"
    )
    compared.events += len(actual_log)
    if exact_commits:
        expected_ends = tuple(end for end in state.commit_ends if end > start)
        assert added.unit_ends == expected_ends, (
            f"LOG-8: new commit units end at {added.unit_ends}, the model's new commits at "
            f"{expected_ends}"
        )
    violations = [
        v for wire in added.events for v in compared.monitor.feed(facts_of(event_from_wire(wire)))
    ]
    assert not violations, "\n".join(
        tagged(v.rule_id, f"seq {v.seq}: {v.message}") for v in violations
    )
    expected_runs = [
        (r.turn, r.step, r.call_id, r.arguments) for r in state.executions[compared.runs :]
    ]
    actual_runs = [(r.turn, r.step, r.call_id, r.raw_arguments) for r in added.executions]
    _same_items(actual_runs, expected_runs, "RW-1", "new tool body run")
    compared.runs += len(actual_runs)
    for run in added.executions:
        assert same_json(run.parsed_arguments, parse_arguments(run.raw_arguments)), (
            f"RW-1: call {run.call_id} received {run.parsed_arguments!r}, "
            f"not its sealed arguments {run.raw_arguments!r}"
        )


def compare(state: LoopState, seen: Observation, *, exact_commits: bool = True) -> None:
    """Assert that an observation of an implementation matches the model state."""
    expected_log = [_timeless(event_to_wire(event)) for event in state.log]
    actual_log = [_timeless(wire) for wire in seen.log]
    _same_items(actual_log, expected_log, "LOG-1", "event")
    if exact_commits:
        assert seen.unit_ends == state.commit_ends, (
            f"LOG-8: commit units end at {seen.unit_ends}, the model's commits at "
            f"{state.commit_ends}"
        )
    else:
        _replies_commit_whole(state, seen.unit_ends)
    violations = check_log([event_from_wire(wire) for wire in seen.log])
    assert not violations, "\n".join(
        tagged(v.rule_id, f"seq {v.seq}: {v.message}") for v in violations
    )
    assert seen.history == derive_messages(state.log), "HIST-1: the derived histories differ"
    expected_shown = [expected_item(item) for item in present_log(state.log)]
    _same_items(list(seen.shown_live), expected_shown, "ACP-1", "live item")
    _same_items(list(seen.shown_on_replay), expected_shown, "ACP-1", "replayed item")
    expected_runs = [(r.turn, r.step, r.call_id, r.arguments) for r in state.executions]
    actual_runs = [(r.turn, r.step, r.call_id, r.raw_arguments) for r in seen.executions]
    _same_items(actual_runs, expected_runs, "RW-1", "tool body run")
    for run in seen.executions:
        assert same_json(run.parsed_arguments, parse_arguments(run.raw_arguments)), (
            f"RW-1: call {run.call_id} received {run.parsed_arguments!r}, "
            f"not its sealed arguments {run.raw_arguments!r}"
        )


def _replies_commit_whole(state: LoopState, unit_ends: tuple[int, ...]) -> None:
    """LOG-8: no unit ends between a reply with calls and the last of its `tool/call`s."""
    for index, event in enumerate(state.log):
        if isinstance(event, AssistantMessageRecorded) and event.message.tool_calls:
            last_record = index + len(event.message.tool_calls)
            inside = [end for end in unit_ends if index < end <= last_record]
            assert not inside, f"LOG-8: a unit ends at {inside[0]}, inside the reply at {index}"


def expected_item(shown: Shown) -> ShownItem:
    """The model's presentation item, in the comparable form."""
    match shown:
        case CallShown():
            return ShownItem("call", shown.seq, shown.call_id, shown.view, shown.notification)
        case ApprovalShown():
            return ShownItem("approval", shown.seq, shown.call_id, None, shown.request)
        case ResultShown():
            return ShownItem("result", shown.seq, shown.call_id, shown.view, shown.notification)
        case _:
            assert_never(shown)


def same_json(left: object, right: object) -> bool:
    """Equality of JSON values, whichever immutable mapping type each side uses."""
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(same_json(left[k], right[k]) for k in left)
    if isinstance(left, tuple) and isinstance(right, tuple):
        return len(left) == len(right) and all(map(same_json, left, right))
    return type(left) is type(right) and left == right


def _timeless(wire: Mapping[str, object]) -> dict[str, object]:
    return {key: value for key, value in wire.items() if key != "time"}


def _same_items(
    actual: Sequence[object], expected: Sequence[object], rule_id: str, what: str
) -> None:
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        assert got == want, f"{rule_id}: {what} {index} differs\n model: {want}\n  impl: {got}"
    assert len(actual) == len(expected), (
        f"{rule_id}: the implementation has {len(actual)} {what}s, the model {len(expected)}"
    )


def conformance_machine(
    factory: AdapterFactory, name: str, *, exact_commits: bool = True
) -> type[ConformanceMachine]:
    """A machine class checking the implementation that `factory` builds adapters for."""
    members = {"ADAPTER_FACTORY": staticmethod(factory), "EXACT_COMMITS": exact_commits}
    return type(name, (ConformanceMachine,), members)
