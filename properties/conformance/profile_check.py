"""Conformance under a profile: whole runs compared, the target's known divergences erased.

Without a profile, conformance compares the model and the target command by command, and the
first difference is a counterexample. A real harness differs from the model in known ways — it
records a call when the call starts, runs hooks after the reply is logged, words errors its own
way — and some of those move events between commands. So, under a profile, the two runs are
compared *whole*, at every quiet point (the model idle, or waiting for the model's reply: every
step before it has settled), after the profile's erasers have removed each known difference
(`loopspec.properties.profiles.known`). A hard known divergence (one that sends the runs different
ways)
is recognized by its symptom on the command where it shows; the program stops there, reported
as that known divergence. Anything else that differs is a counterexample, blamed on a rule as
without the profile: read with only the divergences the target shows erased
(`ProfileChecker._focused_difference`), so an eraser that takes out what tells two rules apart
does not change the rule named.

At the end of a program, repeated `settling_command`s drive both to a quiet point, so the
program's tail is compared too. Which known divergences a program really showed is computed
once, at its end (`ProfileChecker.shown`): those without which its runs would differ.

A target that reports its history (capability "history") has it compared after every command
with the history its own log derives, not the model's (`history_own_log` says why).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from typing import Any, assert_never

import attrs

from loopspec.model.commands import (
    ApprovalAnswers,
    Command,
    HookAnswers,
    ModelReplies,
    Pass,
    PostPass,
    Recover,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, LoopConfig
from loopspec.model.events import CORE_TYPES
from loopspec.model.json_text import same_json
from loopspec.model.messages import TextBlock
from loopspec.model.prefix import Violation
from loopspec.model.state import (
    ASKING,
    RUNNING,
    AwaitingModel,
    Crashed,
    Dispatching,
    Idle,
    Phase,
    Rewriting,
)
from loopspec.properties.conformance.blame.classify import classify
from loopspec.properties.conformance.command_codec import command_to_json
from loopspec.properties.conformance.compare import Divergence
from loopspec.properties.conformance.history_own_log import OwnLogHistory
from loopspec.properties.conformance.target import Observation
from loopspec.properties.profiles.known import Profile
from loopspec.properties.profiles.runs import (
    Earlier,
    Json,
    Obs,
    Pair,
    Run,
    RunNormalizer,
    sent_arguments,
    with_arguments_as_sent,
    with_call_ids,
)

QUIET_PHASES = frozenset({Idle.NAME, AwaitingModel.NAME})
# Erasers read the target's events by shape; a shape they cannot read is a difference too.
SHAPE_ERRORS = (KeyError, TypeError, IndexError, AttributeError, ValueError)


def _spoken(event_type: str) -> bool:
    return event_type in CORE_TYPES


@attrs.frozen
class KnownStop:
    """A hard known divergence showed at command `index`; the program stops there."""

    key: str
    index: int


class ProfileChecker:
    """Feeds one program's commands and observations; finds what the profile does not explain."""

    def __init__(self, profile: Profile, config: LoopConfig) -> None:
        self.profile = profile
        self.config = config  # what both loops run: a symptom may read it (`runs.Earlier`)
        self.commands: list[Command] = []
        self.phases: list[str] = []
        self.stop: KnownStop | None = None
        self._wire_commands: list[Json] = []
        self._runs: Pair = ([], [])
        self._normalizers = (RunNormalizer(_spoken), RunNormalizer(_spoken))
        self._sent: dict[str, str] = {}  # each call's arguments as the model sent them
        self._history: list[dict[str, Any]] = []
        self._history_ends: list[int] = []  # [i]: how many of `_history` commands[: i + 1] made
        self._quiet_length = 0  # the longest prefix found equal, erased, at a quiet point
        self._tolerated = profile.tolerated_facets
        # A history that differs from what the target's own log derives waits for the next
        # quiet-point comparison: when the log itself breaks a rule, that rule names the fault,
        # where a history held to a wrong log says only that the two disagree.
        self._unsent: Divergence | None = None
        self._own_history = OwnLogHistory(profile.history_erasers)

    def feed(
        self,
        command: Command,
        *,
        phase_before: str,
        phase_after: str,
        expected: Observation,
        actual: Observation,
        violations: Sequence[Violation] = (),
    ) -> Divergence | None:
        """Take one command's observations; the divergence they show, if it is not known."""
        index = len(self.commands)
        self.commands.append(command)
        self.phases.append(phase_before)
        self._history.extend(expected.events)
        self._history_ends.append(len(self._history))
        # A reply the model took: a call id it reuses names its new call from here on, in the
        # runs and in the commands the profile reads (a ToolFinishes for it finishes that call).
        introduced = (
            [call.id for call in command.tool_calls]
            if isinstance(command, ModelReplies) and expected.accepted
            else []
        )
        want = self._normalizers[0].add(expected, introduced)
        got = self._normalizers[1].add(actual, introduced)
        wire = with_call_ids(command_to_json(command), self._normalizers[0].names)
        # Arguments are compared as values (SPEC section 2): a call's, spelt otherwise, as sent.
        self._sent.update(sent_arguments(wire))
        want = with_arguments_as_sent(want, self._sent)
        got = with_arguments_as_sent(got, self._sent)
        self._wire_commands.append(wire)
        if not want["accepted"] and not got["accepted"] and got["rule"] is None:
            got = {**got, "rule": want["rule"]}  # a target may refuse without naming a rule
        self._runs[0].append(want)
        self._runs[1].append(got)
        earlier = Earlier(
            self._runs[0][:index], self._runs[1][:index], self._wire_commands[:index], self.config
        )
        if violations and self._tolerated:
            # A facet of a rule the loop is known to break in its log (HOOK-1's block without
            # the error flag): its divergence's eraser or symptom judges the runs instead.
            violations = [v for v in violations if v.facet_name not in self._tolerated]
        for known in self.profile.hard:
            try:
                shows = known.shows(wire, want, got, earlier)
            except SHAPE_ERRORS as error:
                return self._misshapen(index, error)
            # The target's log may break more rules after the known one in the same command
            # (a repeated id also gives a second result): what it breaks first must be known.
            if shows and (not violations or violations[0].rule_id in known.rules):
                # A history that differed before is no known divergence's. This command's is
                # not compared: the known divergence may show in it too (Claude Code's DEC-3
                # sends a PostToolUse block as a reminder on the result its transcript keeps
                # without one: tests/regressions/claude-code-DEC-3.json was blamed on HIST-1).
                if self._unsent is not None:
                    return self._unsent
                self.stop = KnownStop(known.key, index)
                return None
        if violations:
            first = violations[0]
            what = (
                f"the target's own log breaks {first.rule_id} at its seq {first.seq}: "
                f"{first.message}"
            )
            return Divergence(index, command, first.rule_id, what, expected, actual)
        sent = self._own_history.feed(actual)
        if sent is not None and self._unsent is None:
            rule_id, what = sent
            what = (
                f"{what} (under the {self.profile.name} profile a history is held to what the "
                "target's own log derives)"
            )
            self._unsent = Divergence(index, command, rule_id, what, expected, actual)
        if phase_after in QUIET_PHASES:
            return self._compare() or self._unsent
        return None

    def unsent_history(self) -> Divergence | None:
        """At a program's end (a case may end before a quiet point): the history difference
        no comparison of the runs came to explain, if any."""
        return self._unsent

    def shown(self) -> frozenset[str]:
        """The known divergences this program showed (call at its end)."""
        length = self._quiet_length
        pair = (self._runs[0][:length], self._runs[1][:length])
        soft = frozenset(d.key for d in self.profile.divergences if not d.hard)
        try:
            shown = self.profile.needed(pair, self._wire_commands[:length], self.config, soft)
        except SHAPE_ERRORS:
            shown = frozenset()
        shown |= self._own_history.shown
        return shown | ({self.stop.key} if self.stop is not None else set())

    def _compare(self) -> Divergence | None:
        try:
            model, target = self.profile.erased(self._runs, self._wire_commands, self.config)
        except SHAPE_ERRORS as error:
            return self._misshapen(len(self.commands) - 1, error)
        if _same_runs(model, target):
            self._quiet_length = len(self.commands)
            return None
        try:
            focused = self._focused_difference()
        except SHAPE_ERRORS:
            focused = None
        return focused if focused is not None else self._first_difference(model, target)

    def _focused_difference(self) -> Divergence | None:
        """The difference read with only the known divergences the target shows erased, or
        None when that reading finds none.

        An eraser maps both runs to one form, and may take out what tells one rule from
        another (TEXT-1's drops a result's error code, dsh's hook-audit-shape a hook's callId):
        with every divergence erased, a bug no divergence explains may be blamed on another
        rule than without a profile. So blame erases the divergences the target shows (those
        that, left in, add to what one run holds and the other lacks or to the places where
        the two differ: `_shown_beside_a_bug`), the hard ones, and the
        rule-less ones (an adapter's observation shapes and limits: what a target cannot report
        as the model does). A divergence whose rule that reading names is erased too (a known
        difference at the very command of the bug, which alone adds nothing), until the rule
        named is no left-in divergence's.
        """
        always = frozenset(d.key for d in self.profile.divergences if d.hard or not d.rules)
        keys = always | self._shown_beside_a_bug(always)
        while True:
            erased = self.profile.erased(self._runs, self._wire_commands, self.config, keys)
            if _same_runs(*erased):
                return None
            found = self._first_difference(*erased, focused=self._erased_here(keys))
            named = {
                d.key
                for d in self.profile.divergences
                if d.key not in keys and found.rule_id in d.rules
            }
            if not named:
                return found
            keys |= named

    def _erased_here(self, keys: frozenset[str]) -> tuple[str, ...]:
        """Of `keys`, the divergences whose eraser changes the runs, in profile order: those a
        focused reading erased, as its report names them."""
        changed: list[str] = []
        pair = self._runs
        for divergence in self.profile.divergences:
            if divergence.key in keys:
                after = divergence.erase(pair, self._wire_commands, self.config)
                if after != pair:
                    changed.append(divergence.key)
                pair = after
        return tuple(changed)

    def _shown_beside_a_bug(self, erased: frozenset[str]) -> frozenset[str]:
        """The divergences not in `erased` that, left in where every other is erased, add to
        what one run holds and the other lacks (`_unshared`: an event added or lost), or to
        the places where the two differ (`_misplaced`: events moved, say a call's record
        before an earlier call's result, even where the events moved differ anyway): those
        the target shows, whatever else differs. (One the target does not show changes both
        runs alike, or neither.)"""
        divergences = self.profile.divergences
        commands = self._wire_commands
        # steps[i]: the runs with divergences[:i] erased.
        steps = [self._runs]
        for divergence in divergences:
            steps.append(divergence.erase(steps[-1], commands, self.config))
        unshared, misplaced = _unshared(*steps[-1]), _misplaced(*steps[-1])
        shown: set[str] = set()
        for index, divergence in enumerate(divergences):
            if divergence.key in erased or steps[index + 1] == steps[index]:
                continue  # an eraser that changes nothing where it runs: left in, the same
            left_in = steps[index]
            for later in divergences[index + 1 :]:
                left_in = later.erase(left_in, commands, self.config)
            if _unshared(*left_in) > unshared or _misplaced(*left_in) > misplaced:
                shown.add(divergence.key)
        return frozenset(shown)

    def _first_difference(
        self,
        model: Run,
        target: Run,
        *,
        focused: tuple[str, ...] | None = None,
        unreadable: tuple[tuple[str, ...], str] | None = None,
    ) -> Divergence:
        """The first erased observation that differs, classified like an unprofiled one: as
        the command at its position (the last command fed, for a record a profile merged every
        command's events into), with the history the model had appended up to that command;
        `focused`: erased of only these divergences, those the target shows
        (`_focused_difference`); `unreadable`: erased of all but these, which cannot read the
        target's events, and the error saying why (`_misshapen`)."""
        last = len(self.commands) - 1
        position = next(
            (
                i
                for i, (want, got) in enumerate(zip(model, target, strict=False))
                if not _alike(want, got)
            ),
            min(len(model), len(target)),
        )
        index = min(position, last)
        overlap = _overlap_difference(model, target, position)
        if overlap is not None:
            return Divergence(
                last,
                self.commands[last],
                "SCHED-1",
                f"{overlap} (with the {self.profile.name} profile's known divergences erased)",
                self._as_observation(model, position),
                self._as_observation(target, position),
                # The flat records agree but for this, which no observation shows.
                (
                    {"ranTogether": model[position].get("overlapping")},
                    {"ranTogether": target[position].get("overlapping")},
                ),
            )
        expected = self._as_observation(model, position)
        actual = self._as_observation(target, position)
        if expected.accepted and not actual.accepted:
            # The target refuses what the model accepts: its state went wrong earlier, where
            # the quiet-point comparison could not see it; the first raw difference since the
            # last quiet point shows how (unless it is only a known divergence's).
            raw = next(
                (
                    i
                    for i in range(self._quiet_length, position)
                    if self._runs[0][i] != self._runs[1][i]
                ),
                None,
            )
            if raw is not None:
                index = raw
                # Read with the divergences that keep each command's events in its place
                # erased (commit sizes, wording), so what differs there is not read as one of
                # them: dsh's per-event commits were blamed as the reply's envelope (NO-RULE).
                try:
                    in_place = self._erased_in_place()
                except SHAPE_ERRORS:
                    in_place = self._runs
                runs = in_place if in_place[0][raw] != in_place[1][raw] else self._runs
                expected = self._as_observation(runs[0], raw)
                actual = self._as_observation(runs[1], raw)
        # The command classified is commands[index]: what the model appended up to it and with
        # it is its history, as without a profile (a later approval's answer, say, would read
        # a call the target started too early as one that no longer waits for it).
        rule_id, what = classify(
            self.commands[index],
            self.phases[index],
            expected,
            actual,
            target_violations=[],
            history=tuple(self._history[: self._history_ends[index]]),
            program=tuple(self.commands[: index + 1]),
        )
        since = self._quiet_length + 1
        where = f"commands #{since}..#{last + 1}" if since <= last else f"command #{last + 1}"
        name = self.profile.name
        if unreadable is not None:
            left, error = unreadable
            erased = (
                f"with the {name} profile's known divergences erased but {', '.join(left)}, "
                f"which cannot read the target's events {error}"
            )
        elif focused is None:
            erased = f"with the {name} profile's known divergences erased"
        elif focused:
            erased = (
                f"with the {name} profile's known divergences {', '.join(focused)} erased, "
                "the others left in as leaving them in adds no difference"
            )
        else:
            erased = (
                f"with none of the {name} profile's known divergences erased, as leaving them "
                "in adds no difference"
            )
        what = f"{what} ({erased}; {where})"
        return Divergence(last, self.commands[last], rule_id, what, expected, actual)

    def _erased_in_place(self) -> Pair:
        """The runs with every soft divergence erased whose eraser leaves each command's
        events with that command (none that merges every command's into one record)."""
        keys = frozenset(
            d.key
            for d in self.profile.divergences
            if not d.hard
            and not any(
                obs.get("flattened")
                for run in d.erase(self._runs, self._wire_commands, self.config)
                for obs in run
            )
        )
        return self.profile.erased(self._runs, self._wire_commands, self.config, keys)

    def _as_observation(self, run: Run, position: int) -> Observation:
        return _as_observation(run, position, self._normalizers[0].originals)

    def _misshapen(self, index: int, error: Exception) -> Divergence:
        """A target's event that a divergence of the profile cannot read, up to command
        `index`: the runs compared with every other divergence erased and blamed as usual, what
        differs shown (a valid event of a shape no eraser expects, a result whose content holds
        no text, was blamed on LOG-4 with nothing shown). LOG-4 only where nothing else
        differs."""
        unread = f"({type(error).__name__}: {error})"
        pair, unreadable = self._runs, []
        for divergence in self.profile.divergences:
            try:
                pair = divergence.erase(pair, self._wire_commands, self.config)
            except SHAPE_ERRORS:
                unreadable.append(divergence.key)
        if _same_runs(*pair):
            what = (
                f"the target's events do not have the shape the {self.profile.name} profile "
                f"reads {unread}"
            )
            return Divergence(
                index,
                self.commands[index],
                "LOG-4",
                what,
                self._as_observation(self._runs[0], index),
                self._as_observation(self._runs[1], index),
            )
        return self._first_difference(*pair, unreadable=(tuple(unreadable), unread))


def _alike(want: Obs, got: Obs) -> bool:
    """Whether two observations of the runs are alike: equal, each body's arguments the same
    JSON value as SPEC section 2 compares them (`same_json`: `true` is not `1`, which Python's
    == holds: a loop running {"offset": true} for the model's 1 passed under every profile)."""
    return want == got and _executed_alike(want, got)


def _executed_alike(want: Obs, got: Obs) -> bool:
    """Of two equal observations, whether their bodies' arguments are the same JSON values."""
    return all(
        same_json(ran, also)
        for (_, ran), (_, also) in zip(
            want.get("executed", ()), got.get("executed", ()), strict=True
        )
    )


def _same_runs(model: Run, target: Run) -> bool:
    """Whether two runs are alike, observation by observation (`_alike`)."""
    return model == target and all(map(_executed_alike, model, target))


def _unshared(model: Run, target: Run) -> int:
    """How much one run holds that the other lacks: its events, its executions and the rest of
    its observations (a refusal and its rule, what a flattened record adds), each kind in run
    order, aligned as `difflib` aligns two sequences. An event one run adds or lacks counts
    once, not once for every event after it (as comparing them position by position did), and
    a changed event twice (the one lacking, the other added)."""
    unshared = 0
    for items in (_events_in_order, _executions_in_order, _rest_in_order):
        ours, theirs = items(model), items(target)
        matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
        shared = sum(block.size for block in matcher.get_matching_blocks())
        unshared += len(ours) + len(theirs) - 2 * shared
    return unshared


def _misplaced(model: Run, target: Run) -> int:
    """At how many places two runs differ, each command's observations compared event by
    event: an event moved makes the places between where it was and where it is differ."""
    places = abs(len(model) - len(target))
    for want, got in zip(model, target, strict=False):
        if want == got:
            continue
        if not (want["accepted"] and got["accepted"]):
            places += 1
            continue
        wanted, given = want["events"], got["events"]
        places += abs(len(wanted) - len(given))
        places += sum(a != b for a, b in zip(wanted, given, strict=False))
        places += sum(want.get(k) != got.get(k) for k in want.keys() | got.keys() if k != "events")
    return places


def _events_in_order(run: Run) -> list[str]:
    return [_key(event) for obs in run if obs["accepted"] for event in obs["events"]]


def _executions_in_order(run: Run) -> list[str]:
    return [_key(execution) for obs in run if obs["accepted"] for execution in obs["executed"]]


def _rest_in_order(run: Run) -> list[str]:
    return [_key({k: v for k, v in obs.items() if k not in ("events", "executed")}) for obs in run]


def _key(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _overlap_difference(model: Run, target: Run, position: int) -> str | None:
    """What differs when the runs differ only in which calls ran at the same time (a flat
    record's `overlapping`, kept where a profile merges every command's executions), or None."""
    if position >= min(len(model), len(target)):
        return None
    want, got = model[position], target[position]
    if want.get("overlapping") == got.get("overlapping"):
        return None
    if {**want, "overlapping": None} != {**got, "overlapping": None}:
        return None
    wanted, seen = want.get("overlapping") or [], got.get("overlapping") or []
    # Name the side that ran them together: either loop may be the one that did.
    sides = [
        f"calls {_together(only)} ran at the same time in the {loop}, not in the {other}"
        for only, loop, other in (
            ([group for group in seen if group not in wanted], "target", "model"),
            ([group for group in wanted if group not in seen], "model", "target"),
        )
        if only
    ]
    said = "; ".join(sides) or "calls ran at the same time in other groups"
    return f"{said}: model {wanted}, target {seen}"


def _together(groups: list[list[str]]) -> str:
    return "; ".join(" and ".join(group) for group in groups)


def _as_observation(run: Run, position: int, originals: Mapping[str, str]) -> Observation:
    """An erased observation (or nothing, past the end) as an `Observation` for the report,
    each reused call id as the loop wrote it (`originals`: the runs' names for them)."""
    if position >= len(run):
        return Observation(True)
    obs: Obs = run[position]
    if not obs["accepted"]:
        return Observation(False, refusal_rule=obs.get("rule"))
    return Observation(
        True,
        events=tuple(with_call_ids(obs["events"], originals)),
        executed=tuple(
            (originals.get(str(call_id), str(call_id)), _as_text(arguments))
            for call_id, arguments in obs["executed"]
        ),
    )


def _as_text(arguments: object) -> str:
    """A run's executed arguments (`runs` parsed them) as text again: JSON for a parsed value,
    where repr wrote a Python dict (`{'command': 'ls'}`) into the report; text no JSON parser
    read as itself. (A JSON string's value shows as that text, as the report shows it anyway.)"""
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def settling_command(phase: Phase, config: LoopConfig) -> Command | None:
    """The command that moves a program toward a quiet end, or None when it is idle.

    The model replies with text only, hooks pass, approvals are rejected, running calls
    succeed, a crashed session is recovered.
    """
    match phase:
        case Idle():
            return None
        case Crashed():
            return Recover()
        case AwaitingModel():
            return ModelReplies((TextBlock("done"),))
        case Rewriting():
            return HookAnswers(Pass())
        case Dispatching():
            if any(slot.status == ASKING for slot in phase.slots):
                return ApprovalAnswers("rejected")
            for slot in phase.slots:
                if slot.status == RUNNING:
                    hooks = config.hooks_for(POST_TOOL_USE, slot.name)
                    return ToolFinishes(
                        slot.call_id, ToolSucceeded("ok"), tuple(PostPass() for _ in hooks)
                    )
            return None
        case _:
            assert_never(phase)
