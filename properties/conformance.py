"""Conformance: drive any target and the model with the same commands; the first difference wins.

`conformance_machine(factory)` builds a Hypothesis `RuleBasedStateMachine` that generates command
programs from the *model's* state (so programs stay meaningful), sends every command to the
model and to the target, and compares their observations after each one. Commands that need a
capability the target does not declare are never generated, and their rules are reported as
not applicable. A difference raises `DivergenceFound`, which carries the command program so far,
the first diverging observation and the rule it breaks; Hypothesis then shrinks the program.

Comparison ignores `time` and message ids (implementations may use clocks and UUIDs).
"""

from __future__ import annotations

import copy
import difflib
import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import attrs
from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    HookAnswers,
    ModelFails,
    ModelReplies,
    PreVerdict,
    Recover,
    SubmitUser,
    ToolFinishes,
)
from model.config import POST_TOOL_USE, PRE_TOOL_USE, LoopConfig
from model.events import CORE_TYPES
from model.facts import fact_from_wire
from model.invariants import LogMonitor
from model.state import ASKING, RUNNING, AwaitingModel, Crashed, Dispatching, Idle, Rewriting
from model.transitions import transition_for
from properties import strategies as gen
from properties.process_target import normalized
from properties.target import ConformanceTarget, ModelTarget, Observation

TargetFactory = Callable[[], ConformanceTarget]

# Which rules an appended event of each type exercises (beyond the transition's own rules).
RULES_BY_EVENT: dict[str, tuple[str, ...]] = {
    "turn/start": ("LOG-1", "TURN-1", "TURN-3"),
    "turn/end": ("LOG-1", "TURN-2", "TURN-5", "ADJ-3"),
    "step/start": ("LOG-1", "STEP-1"),
    "step/end": ("LOG-1", "STEP-2"),
    "user/message": ("LOG-1", "LOG-2", "LOG-4", "ADJ-1", "HIST-1"),
    "assistant/message": ("LOG-1", "LOG-2", "LOG-4", "ORD-1", "EXE-1", "STEP-3", "HIST-1"),
    "tool/call": ("LOG-1", "LOG-4", "ORD-1", "ORD-2", "RW-1", "EXE-2", "STEP-3"),
    "tool/result": ("LOG-1", "LOG-2", "LOG-6", "ORD-2", "ORD-3", "ADJ-2", "STEP-3", "DEC-1"),
    "hook/invoked": ("LOG-1", "HOOK-1", "TURN-3"),
    "hook/result": ("LOG-1", "HOOK-1"),
    "approval/asked": ("LOG-1", "DEC-2", "RW-4"),
    "approval/decided": ("LOG-1", "DEC-2"),
}

# (phase, command, outcome) -> hits, over every conformance run in this process.
TRANSITION_HITS: Counter[tuple[str, str, str]] = Counter()
RULE_HITS: Counter[str] = Counter()


@attrs.frozen
class Divergence:
    """The first observation where the target and the model disagree."""

    index: int
    command: Command
    rule_id: str
    what: str
    expected: Observation
    actual: Observation

    def diff(self) -> str:
        """A readable unified diff of the two observations (normalized)."""

        def lines(observation: Observation) -> list[str]:
            return json.dumps(
                normalized_observation(observation), indent=1, sort_keys=True
            ).splitlines()

        return "\n".join(
            difflib.unified_diff(
                lines(self.expected), lines(self.actual), "model", "target", lineterm="", n=2
            )
        )


class DivergenceFound(AssertionError):
    """Raised inside the machine; carries the program and the divergence."""

    def __init__(
        self, divergence: Divergence, config: LoopConfig, program: tuple[Command, ...]
    ) -> None:
        self.divergence = divergence
        self.config = config
        self.program = program
        super().__init__(
            f"[{divergence.rule_id}] after command #{divergence.index + 1} "
            f"({divergence.command.NAME}): {divergence.what}"
        )


def _as_value(raw: object) -> object:
    """Arguments text as the JSON value it denotes, so serialization style cannot differ."""
    if not isinstance(raw, str):
        return raw
    try:
        return {"$json": json.loads(raw)}
    except (ValueError, RecursionError):
        return raw


def normalized_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event without what implementations may choose freely.

    Free: `time` and message ids (`process_target.normalized` drops those), and how effective
    arguments are serialized (key order, spacing, number spelling) — arguments are compared as
    the JSON values they denote.
    """
    event = copy.deepcopy(normalized(event))
    data = event.get("data")
    if not isinstance(data, dict):
        return event
    if event.get("type") in ("tool/call", "approval/asked") and "arguments" in data:
        data["arguments"] = _as_value(data["arguments"])
    message = data.get("message")
    if isinstance(message, dict):
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool-call":
                block["arguments"] = _as_value(block.get("arguments"))
    return event


def in_scope(event: dict[str, Any]) -> bool:
    """Whether the spec speaks about this event type (SPEC §4: other types are opaque)."""
    return event.get("type") in CORE_TYPES


def normalized_observation(observation: Observation) -> dict[str, Any]:
    """The comparable part of an observation.

    Events outside the spec's vocabulary (plugin events, streaming chunks) are left out, and
    so are seqs and seq citations: they count those events too. The target's own log is still
    held to LOG-1 and ORD-2 by the invariants, event by event.
    """
    if not observation.accepted:
        return {"accepted": False}
    return {
        "accepted": True,
        "events": [_positional(normalized_event(e)) for e in observation.events if in_scope(e)],
        "executed": [
            [call_id, _as_value(arguments)] for call_id, arguments in observation.executed
        ],
    }


def _positional(event: dict[str, Any]) -> dict[str, Any]:
    event.pop("seq", None)
    event.pop("sourceEventSeqs", None)
    return event


def split_units(expected: Observation, actual: Observation) -> list[tuple[int, int]]:
    """The model's atomic units that the target's commit boundaries cut through (LOG-8).

    A target may commit more finely than the model, one event at a time even, except inside
    the units the spec names.
    """
    total = sum(actual.commits)
    if actual.events and total != len(actual.events):
        return [(0, len(actual.events))]
    # Commit boundaries, counted in in-scope events (the model's units index those).
    boundaries, kept = set(), 0
    sizes = iter(actual.commits)
    next_end = next(sizes, None)
    for raw_end, event in enumerate(actual.events, start=1):
        kept += in_scope(event)
        if raw_end == next_end:
            boundaries.add(kept)
            next_end = raw_end + next(sizes, 0)
    return [(s, e) for s, e in expected.atomic if any(s < b < e for b in boundaries)]


def _first_event_difference(
    expected: tuple[dict[str, Any], ...], actual: tuple[dict[str, Any], ...]
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    expected = tuple(e for e in expected if in_scope(e))
    actual = tuple(e for e in actual if in_scope(e))
    for want, got in zip(expected, actual, strict=False):
        if _positional(normalized_event(want)) != _positional(normalized_event(got)):
            return want, got
    if len(expected) > len(actual):
        return expected[len(actual)], None
    if len(actual) > len(expected):
        return None, actual[len(expected)]
    return None, None


def _supplied_inputs(events: tuple[dict[str, Any], ...]) -> list[Any]:
    return [
        e["data"]["updatedInput"]
        for e in events
        if e.get("type") == "hook/result" and "updatedInput" in e.get("data", {})
    ]


def _call_arguments(event: dict[str, Any]) -> list[Any]:
    data = event.get("data", {})
    if event.get("type") == "tool/call":
        raw = [data.get("arguments")]
    else:
        content = data.get("message", {}).get("content", [])
        raw = [b.get("arguments") for b in content if b.get("type") == "tool-call"]
    parsed = []
    for text in raw:
        try:
            parsed.append(json.loads(text))
        except (TypeError, ValueError):
            parsed.append(text)
    return parsed


def _other_rewrite_won(want: dict[str, Any], got: dict[str, Any], supplied: list[Any]) -> bool:
    """Whether the target applied an earlier hook's rewrite where the model applied the last."""
    if len(supplied) < 2:
        return False
    wanted, applied = _call_arguments(want), _call_arguments(got)
    if any(a != w and a in supplied[:-1] for w, a in zip(wanted, applied, strict=False)):
        return True
    sidecars = [e["data"].get("rewrite") for e in (want, got) if e.get("type") == "tool/call"]
    return (
        len(sidecars) == 2
        and all(isinstance(x, dict) for x in sidecars)
        and sidecars[0]["handlerIds"] != sidecars[1]["handlerIds"]
    )


def _rewrite_refusal_blames_another_hook(
    want: dict[str, Any] | None, got: dict[str, Any] | None, history: tuple[dict[str, Any], ...]
) -> bool:
    """Both refuse a call's rewrite, but name different hooks: the merge order differs."""
    if want is None or got is None:
        return False
    texts = [json.dumps(e.get("data", {}).get("message", {})) for e in (want, got)]
    rewriters = {
        str(e["data"].get("handlerId"))
        for e in history
        if e.get("type") == "hook/result" and "updatedInput" in e.get("data", {})
    }
    named = [{h for h in rewriters if f"hook {h} rewrote" in text} for text in texts]
    return bool(named[0]) and bool(named[1]) and named[0] != named[1]


def classify(
    command: Command,
    phase: str,
    expected: Observation,
    actual: Observation,
    *,
    target_violations: list[str],
    history: tuple[dict[str, Any], ...] = (),
) -> tuple[str, str]:
    """The rule a divergence breaks, and one sentence saying how.

    `history` is every event the model appended so far, this command's included.
    """
    if target_violations:
        return target_violations[0], "the target's log breaks an invariant"
    if expected.accepted != actual.accepted:
        if actual.accepted:
            return (
                expected.refusal_rule or "MODEL-1",
                f"the model refuses {command.NAME} here ({expected.refusal_message}); "
                "the target accepted it",
            )
        return "MODEL-3", (
            f"the target refused {command.NAME} ({actual.refusal_rule}); the model accepts it"
        )
    if not expected.accepted:
        return "MODEL-1", (
            f"both refuse; the model with {expected.refusal_rule}, the target "
            f"with {actual.refusal_rule}"
        )
    want, got = _first_event_difference(expected.events, actual.events)
    kinds = {str(e.get("type")) for e in (want, got) if e is not None}
    if want is not None and got is not None and kinds <= {"assistant/message", "tool/call"}:
        if _other_rewrite_won(want, got, _supplied_inputs(history)):
            return "HOOK-3", "a rewrite other than the last one in configured order won"
        if kinds == {"tool/call"} and want["data"].get("arguments") == got["data"].get("arguments"):
            return "RW-2", "the tool/call rewrite sidecar differs"
        where = "audit record" if kinds == {"tool/call"} else "model history"
        return "RW-1", f"the call's arguments in the {where} differ from the model's"
    if any(kind.startswith("hook/") for kind in kinds):
        return "HOOK-4", "the hooks that ran (or their audit) differ"
    if "approval/asked" in kinds:
        return "RW-4", "the approval request differs"
    if kinds == {"user/message"}:
        return "ADJ-4", "the messages queued for this step differ"
    if "tool/result" in kinds:
        if _rewrite_refusal_blames_another_hook(want, got, history):
            return "HOOK-3", "a rewrite other than the last one in configured order decided"
        return "ORD-3", "a different result is committed here"
    if kinds:
        row = transition_for(phase, command.NAME)
        rules = row.rules if row is not None else ("MODEL-1",)
        return rules[0], f"the appended events differ at {sorted(kinds)[0]}"
    if expected.executed != actual.executed:
        expected_ids = {call_id for call_id, _ in expected.executed}
        if any(call_id not in expected_ids for call_id, _ in actual.executed):
            return "DEC-1", "a body ran that the model never dispatched"
        return "EXE-3", "a body ran with other arguments than its sealed identity"
    return "LOG-8", "a unit the spec requires to be atomic was split across commits"


def _command_rules(command: Command, observation: Observation) -> tuple[str, ...]:
    """Rules a command exercises that its events alone do not show."""
    rules: list[str] = []
    if isinstance(command, ModelReplies) and command.finish != "completed":
        rules.append("STEP-4")
    if isinstance(command, ToolFinishes) and command.post:
        rules.append("HOOK-5")
    if any("rewrote the input of" in json.dumps(e.get("data")) for e in observation.events):
        rules.append("HOOK-6")
    return tuple(rules)


def conformance_machine(factory: TargetFactory) -> type[RuleBasedStateMachine]:
    """A state machine class that checks the target made by `factory` against the model."""

    class ConformanceMachine(RuleBasedStateMachine):
        """Random command programs; the model is the oracle."""

        def __init__(self) -> None:
            super().__init__()
            self.oracle = ModelTarget()
            self.target = factory()
            self.capabilities = frozenset[str]()
            self.program: list[Command] = []
            self.config = gen.CONFIGS[0]
            self.next_call = 1
            self.monitor = LogMonitor()
            self.history: list[dict[str, Any]] = []

        @property
        def phase(self) -> object:
            assert self.oracle.state is not None
            return self.oracle.state.phase

        def has(self, capability: str) -> bool:
            return capability in self.capabilities

        @initialize(data=st.data())
        def configure(self, data: st.DataObject) -> None:
            """Reset both with a configuration the target can run."""
            probe = self.target.reset(gen.CONFIGS[0])
            configs = [c for c in gen.CONFIGS if _fits(c, probe)] or [
                _reduced(gen.CONFIGS[0], probe)
            ]
            self.config = data.draw(st.sampled_from(configs), label="config")
            self.capabilities = self.target.reset(self.config)
            self.oracle.reset(self.config)
            note(f"target {self.target.name} declares {sorted(self.capabilities)}")

        def apply(self, command: Command) -> None:
            """Send one command to both; compare."""
            assert self.oracle.state is not None
            phase = self.oracle.state.phase.NAME
            self.program.append(command)
            note(f"#{len(self.program)} {command!r}")
            expected = self.oracle.apply(command)
            actual = self.target.apply(command)
            outcome = "accepted" if expected.accepted else (expected.refusal_rule or "?")
            TRANSITION_HITS[(phase, command.NAME, outcome)] += 1
            row = transition_for(phase, command.NAME)
            if expected.accepted and row is not None:
                RULE_HITS.update(row.rules)
                for event in expected.events:
                    RULE_HITS.update(RULES_BY_EVENT.get(str(event.get("type")), ("LOG-1",)))
                    data = event.get("data") or {}
                    if isinstance(data, dict) and data.get("rewrite"):
                        RULE_HITS.update(("RW-2", "HOOK-3"))
                    if event.get("type") == "tool/result" and isinstance(data, dict):
                        code = (data.get("error") or {}).get("code")
                        if code in ("TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED"):
                            RULE_HITS.update(("REC-1",))
                if expected.executed:
                    RULE_HITS.update(("EXE-3", "SCHED-1", "EXE-4"))
                RULE_HITS.update(_command_rules(command, expected))
            elif not expected.accepted:
                RULE_HITS.update(("MODEL-1", "MODEL-3"))
            violations = [
                v.rule_id for e in actual.events for v in self.monitor.feed(fact_from_wire(e))
            ]
            self.history.extend(expected.events)
            split = split_units(expected, actual)
            same_refusal = (
                expected.accepted
                or actual.refusal_rule is None
                or actual.refusal_rule == expected.refusal_rule
            )
            if (
                normalized_observation(expected) == normalized_observation(actual)
                and same_refusal
                and not split
                and not violations
            ):
                for event in expected.events:
                    if str(event.get("type")) == "tool/call":
                        self.next_call = max(
                            self.next_call, int(str(event["data"]["callId"])[1:] or 0) + 1
                        )
                return
            rule_id, what = classify(
                command,
                phase,
                expected,
                actual,
                target_violations=violations,
                history=tuple(self.history),
            )
            divergence = Divergence(len(self.program) - 1, command, rule_id, what, expected, actual)
            raise DivergenceFound(divergence, self.config, tuple(self.program))

        @precondition(lambda self: isinstance(self.phase, Idle))
        @rule(text=gen.texts)
        def submit_user(self, text: str) -> None:
            """The user starts a turn."""
            self.apply(SubmitUser(text))

        @precondition(lambda self: isinstance(self.phase, AwaitingModel))
        @rule(data=st.data())
        def model_replies(self, data: st.DataObject) -> None:
            """The model answers (or fails)."""
            if data.draw(st.integers(0, 11), label="fails") == 0:
                self.apply(ModelFails("overloaded", "OVERLOADED"))
                return
            reply = data.draw(gen.model_replies(self.next_call), label="reply")
            if not self.has("max-tokens") and reply.finish != "completed":
                reply = ModelReplies(reply.blocks)
            self.next_call += len(reply.tool_calls)
            self.apply(reply)

        @precondition(lambda self: isinstance(self.phase, Rewriting))
        @rule(data=st.data())
        def hook_answers(self, data: st.DataObject) -> None:
            """The next PreToolUse hook answers."""
            phase = self.phase
            assert isinstance(phase, Rewriting)
            call = phase.reply.tool_calls[phase.queue[0].call_index]
            verdict: PreVerdict = data.draw(gen.pre_verdicts_for(call.name), label="verdict")
            if not self.has("rewrite") and isinstance(verdict, Allow | Ask):
                verdict = attrs.evolve(verdict, updated_input=None)
            if not self.has("approval") and isinstance(verdict, Ask):
                verdict = Allow()
            self.apply(HookAnswers(verdict))

        @precondition(
            lambda self: (
                isinstance(self.phase, Dispatching)
                and any(s.status == ASKING for s in self.phase.slots)
            )
        )
        @rule(outcome=gen.approval_outcomes)
        def approval_answers(self, outcome: str) -> None:
            """The user answers the approval prompt."""
            self.apply(ApprovalAnswers(outcome))

        @precondition(
            lambda self: (
                isinstance(self.phase, Dispatching)
                and any(s.status == RUNNING for s in self.phase.slots)
            )
        )
        @rule(data=st.data())
        def tool_finishes(self, data: st.DataObject) -> None:
            """A running call settles, in any order."""
            phase = self.phase
            assert isinstance(phase, Dispatching)
            running = [s for s in phase.slots if s.status == RUNNING]
            slot = data.draw(st.sampled_from(running), label="settles")
            hooks = self.config.hooks_for(POST_TOOL_USE, slot.name)
            post = tuple(data.draw(gen.post_verdicts, label="post") for _ in hooks)
            self.apply(
                ToolFinishes(slot.call_id, data.draw(gen.tool_outcomes, label="outcome"), post)
            )

        @precondition(lambda self: not isinstance(self.phase, Crashed | Idle))
        @rule(data=st.data())
        def disrupt(self, data: st.DataObject) -> None:
            """Stop, crash, or type mid-turn — each only when the target can."""
            kind = data.draw(
                st.sampled_from(["none"] * 6 + ["interject", "abort", "crash", "arbitrary"]),
                label="disruption",
            )
            if kind == "abort" and self.has("abort"):
                self.apply(Abort())
            elif kind == "crash" and self.has("crash-repair"):
                self.apply(Crash())
            elif kind == "interject" and self.has("queued-input"):
                self.apply(SubmitUser(data.draw(gen.texts, label="text")))
            elif kind == "arbitrary":
                command = data.draw(gen.any_commands, label="arbitrary")
                if self.supports(command):
                    self.apply(command)

        def supports(self, command: Command) -> bool:
            """Whether the target declared what `command` needs."""
            needs = {
                "Abort": "abort",
                "Crash": "crash-repair",
                "Recover": "crash-repair",
                "ApprovalAnswers": "approval",
                "HookAnswers": "pre-hooks",
            }.get(command.NAME)
            if needs is not None and not self.has(needs):
                return False
            if isinstance(command, ModelReplies) and command.finish != "completed":
                return self.has("max-tokens")
            if isinstance(command, SubmitUser):
                return isinstance(self.phase, Idle) or self.has("queued-input")
            if isinstance(command, HookAnswers) and isinstance(command.verdict, Allow | Ask):
                return command.verdict.updated_input is None or self.has("rewrite")
            return not (
                isinstance(command, ToolFinishes) and command.post and not self.has("post-hooks")
            )

        @precondition(lambda self: isinstance(self.phase, Crashed))
        @rule()
        def recover(self) -> None:
            """The session is reopened."""
            self.apply(Recover())

        def teardown(self) -> None:
            self.target.close()

    ConformanceMachine.__name__ = "ConformanceMachine"
    return ConformanceMachine


def _fits(config: LoopConfig, capabilities: frozenset[str]) -> bool:
    has_pre = any(h.point == PRE_TOOL_USE for h in config.hooks)
    has_post = any(h.point == POST_TOOL_USE for h in config.hooks)
    if has_pre and "pre-hooks" not in capabilities:
        return False
    if has_post and "post-hooks" not in capabilities:
        return False
    return not (config.max_parallel > 1 and "parallel" not in capabilities)


def _reduced(config: LoopConfig, capabilities: frozenset[str]) -> LoopConfig:
    """The simplest configuration a target without optional features can run."""
    return attrs.evolve(
        config, hooks=(), max_parallel=config.max_parallel if "parallel" in capabilities else 1
    )
