"""The probes a blame sends the target after a divergence to tell two readings apart
(`probe_for`, `LoggedProbe`, `LOSS_PROBE`), and what an unregistered tool's probe shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import attrs

from loopspec.model.commands import Command, Recover, SubmitUser
from loopspec.properties.conformance.call_again import Probe
from loopspec.properties.conformance.compare import in_scope
from loopspec.properties.conformance.event_fields import Event
from loopspec.properties.conformance.target import ConformanceTarget, Observation

_UNREGISTERED_PROBE_SHOWS = {
    "unknown": "a reply calling {name} with {arguments} after it, sent to tell, was answered "
    "UNKNOWN_TOOL",
    "hooked": "a reply calling {name} with {arguments} after it, sent to tell, had its hooks run",
}


def unregistered_probe_shows(shown: str, name: str, arguments: str = "[]") -> str:
    """What the call of tool `name` with `arguments` made again to tell showed (`shown`,
    `no_object_call_judged`'s "unknown" or "hooked"), in words."""
    return _UNREGISTERED_PROBE_SHOWS[shown].format(name=name, arguments=arguments)


# What the target is sent when its repair appends nothing where the model's closes a turn
# (`repair_or_loss`): the seq its next turn opens at tells which of two bugs it has.
LOSS_PROBE = SubmitUser("probe")


def logged(events: Sequence[Event], probe: Probe | None) -> list[Event]:
    """`events`, what the target logged, then what the probes blaming this divergence made it
    log so far (`LoggedProbe`): a hook an earlier probe passed commits a reply whose calls a
    probe must settle before it makes a call of its own."""
    return [*events, *(probe.seen if isinstance(probe, LoggedProbe) else ())]


@attrs.define
class LoggedProbe:
    """A probe that keeps what the target logged for each command it took (`seen`): the
    probes blaming one divergence share the target, each after the ones before, and one
    settling the calls the target logged must know the calls an earlier probe made it log."""

    probe: Probe
    seen: list[Event] = attrs.field(factory=list)

    def __call__(self, command: Command) -> Observation | None:
        observed = self.probe(command)
        if observed is not None and observed.accepted:
            self.seen += observed.events
        return observed


@runtime_checkable
class _Probing(Protocol):
    """A target that takes a probe without counting its failure as the run's (`GuardedTarget`)."""

    def probe(self, command: Command) -> Observation | None: ...


def probe_for(target: ConformanceTarget) -> Probe:
    """How to send `target` one command after a divergence: a failure then is None, not an
    error, since the divergence is already found and the probe only sharpens its blame."""
    if isinstance(target, _Probing):
        return target.probe

    def probe(command: Command) -> Observation | None:
        try:
            return target.apply(command)
        except Exception:  # whatever a target raises, the probe tells nothing then
            return None

    return probe


def repair_or_loss(
    command: Command,
    expected: Observation,
    actual: Observation,
    history: Sequence[Event],
    probe: Probe,
) -> tuple[str, str] | None:
    """LOG-8, when the target's repair appends nothing where the model closes the tail turn
    because the crash lost the commits that opened it: the log it reopened was balanced, so
    there was nothing to repair. A target that does not repair (REC-1) and one whose log lost
    those commits append the same nothing; the turn the target opens next tells them apart
    (seqs continue from the log it reopened). None when it does not show a loss: REC-1 then."""
    if not (
        isinstance(command, Recover)
        and expected.accepted
        and actual.accepted
        and any(map(in_scope, expected.events))
        and not any(map(in_scope, actual.events))
    ):
        return None
    probed = probe(LOSS_PROBE)
    first = next((e for e in probed.events if in_scope(e)), None) if probed else None
    seq = first.get("seq") if first is not None else None
    due = len(history) - len(expected.events)
    if type(seq) is not int or seq >= due:
        return None
    return "LOG-8", (
        f"the target's crash repair appends nothing, and the turn it opens next starts at seq "
        f"{seq}, where {due} was due: the crash lost {due - seq} committed event(s), which a "
        "crash must keep; the log it reopened ended balanced, so there was nothing to repair"
    )
