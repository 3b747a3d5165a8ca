"""Known divergences: how a real implementation is allowed to differ from the model, and proof.

A harness is not the model. A *profile* lists, for one implementation, every known way it
differs — each a `KnownDivergence` naming the SPEC rules it touches, what the implementation
does, and how to remove exactly that difference from a (model, target) pair of runs:

- a *soft* divergence has an **eraser**: it rewrites both runs so that this one difference (a
  wording, a label, a commit granularity, where an event sits) is gone, and nothing else;
- a *hard* divergence sends the two runs down different paths (one refuses what the other
  accepts, one opens a turn the other does not). It has a **symptom**, checked on one command
  (the command, the model's and the target's normalized observations, and both runs and the
  commands before it: `runs.Earlier`); where it shows, both runs are cut there (or at the reply
  that started the batch), after which nothing can be compared.

A profile is a tolerance, not a prediction: "this implementation may differ this way". An
eraser maps the model's behaviour and the known difference to one form and is applied to both
runs alike, and a symptom shows only where the target's observation really differs, so a loop
that does what the model does passes under the profile and shows none of its divergences.
(An eraser that rewrote the model's run only blamed such a loop for lacking the difference.)

`Profile.erased(pair, commands, config)` applies them in the profile's order; `Profile.needed` says
which of them a pair really shows (without it, the pair would differ). A hard divergence that a
single command shows at once (the target refuses what the model accepts) may name that command
as one to `avoid`: random programs then leave it out (`Profile.avoids`), since the cut would end
them there, and reach what lies beyond; replayed cases still send it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.properties.profiles.runs import Earlier, Json, Obs, Pair

# (command, model's observation, target's observation, both runs and the commands before it)
Symptom = Callable[[Json, Obs, Obs, Earlier], bool]
Eraser = Callable[[Pair], Pair]
# An eraser that needs the program too (what its commands gave the loop), in JSON.
ProgramEraser = Callable[[Pair, Sequence[Json]], Pair]
# Both whole histories (`observed.history`'s messages, as JSON: what the target's own log
# derives, then what the target reports) without a known divergence's messages: see
# KnownDivergence.erase_history. It sees both, so what it erases from the reported history can
# be tied to what the log holds (a placeholder only where the log holds what it stands for).
HistoryEraser = Callable[[Sequence[Json], Sequence[Json]], tuple[list[Json], list[Json]]]
# Whether a command, sent under a configuration, is one whose known divergence shows at once
# (see KnownDivergence.avoid).
Avoid = Callable[[Command, LoopConfig], bool]


def _rule_ids(value: Sequence[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class KnownDivergence:
    """One way an implementation differs from the model, with how to erase or detect it."""

    key: str
    rules: tuple[str, ...] = attrs.field(converter=_rule_ids)
    what: str
    erase_pair: Eraser | None = None
    symptom: Symptom | None = None
    erase_program: ProgramEraser | None = None
    # A hard divergence's cut: at the command showing it, or at the reply that began its batch
    # (when the model logs nothing of that batch before the symptom shows).
    cut_at_reply: bool = False
    # A hard divergence's command: one whose symptom shows as soon as it is sent (the target
    # refuses it, or the program is cut at it). Random programs do not send it (the cut would
    # end them at that command, so a target cut at a common command would rarely be driven
    # further); replayed cases still do.
    avoid: Avoid | None = None
    # The facets (`Violation.facet_name`, `RULE:facet`) the target's own log breaks wherever
    # this divergence shows: set aside by conform's log check under the profile (the eraser or
    # symptom still says whether it showed), so they do not read as a new problem first.
    tolerates: tuple[str, ...] = ()
    # What the divergence puts in the target's own log and not in its model requests (or the
    # other way round): removed from both histories when conform holds the history a target
    # reports to its own log (`history_own_log`); beside the eraser or symptom of its runs.
    erase_history: HistoryEraser | None = None

    def __attrs_post_init__(self) -> None:
        erasers = (self.erase_pair is not None) + (self.erase_program is not None)
        # A divergence only of the history a target reports (its runs agree) needs neither.
        history_only = erasers == 0 and self.symptom is None and self.erase_history is not None
        if erasers + (self.symptom is not None) != 1 and not history_only:
            msg = (
                f"known divergence {self.key!r} needs exactly one of an eraser and a symptom, "
                "or only a history eraser"
            )
            raise ValueError(msg)
        if self.avoid is not None and self.symptom is None:
            msg = f"known divergence {self.key!r}: only a hard divergence has commands to avoid"
            raise ValueError(msg)

    @property
    def hard(self) -> bool:
        """Whether it sends the runs down different paths (a symptom, not an eraser)."""
        return self.symptom is not None

    def shows(self, command: Json, model: Obs, target: Obs, earlier: Earlier) -> bool:
        """Whether this (hard) divergence shows on one command."""
        return self.symptom is not None and self.symptom(command, model, target, earlier)

    def cut_index(self, commands: Sequence[Json], index: int) -> int:
        """Where both runs are cut when the symptom shows at command `index`."""
        if not self.cut_at_reply:
            return index
        replies = [i for i in range(index + 1) if commands[i].get("kind") == "ModelReplies"]
        return replies[-1] if replies else index

    def erase(self, pair: Pair, commands: Sequence[Json], config: LoopConfig) -> Pair:
        """The pair without this difference (`commands` run with `config`)."""
        if self.symptom is not None:
            model, target = pair
            for index, (command, want, got) in enumerate(
                zip(commands, model, target, strict=False)
            ):
                before = Earlier(model[:index], target[:index], commands[:index], config)
                if self.shows(command, want, got, before):
                    cut = self.cut_index(commands, index)
                    return model[:cut], target[:cut]
            return pair
        if self.erase_program is not None:
            return self.erase_program(pair, commands)
        if self.erase_pair is None:  # a divergence only of the reported history
            return pair
        return self.erase_pair(pair)


@attrs.frozen
class Profile:
    """Everything known about how one implementation differs from the model."""

    name: str
    implementation: str
    divergences: tuple[KnownDivergence, ...]
    # The capabilities that implementation's adapter declares (PROTO-1), None when unstated: the
    # profile knows only what conform sends it, so a command or configuration needing another
    # is outside what its divergences describe (a false blame there, not an erased one).
    capabilities: frozenset[str] | None = None

    def undeclared(self, needed: Sequence[str]) -> list[str]:
        """The capabilities of `needed` the profile's implementation does not declare."""
        if self.capabilities is None:
            return []
        return [capability for capability in needed if capability not in self.capabilities]

    def __attrs_post_init__(self) -> None:
        keys = [d.key for d in self.divergences]
        if len(set(keys)) != len(keys):
            msg = f"profile {self.name!r} lists a divergence twice"
            raise ValueError(msg)

    def divergence(self, key: str) -> KnownDivergence:
        """The divergence called `key`."""
        for divergence in self.divergences:
            if divergence.key == key:
                return divergence
        msg = f"profile {self.name!r} has no divergence {key!r}"
        raise KeyError(msg)

    @property
    def keys(self) -> frozenset[str]:
        """Every divergence's key."""
        return frozenset(d.key for d in self.divergences)

    @property
    def history_erasers(self) -> tuple[tuple[str, HistoryEraser], ...]:
        """Each divergence's key and history eraser, for those that have one, in order."""
        return tuple(
            (d.key, d.erase_history) for d in self.divergences if d.erase_history is not None
        )

    @property
    def tolerated_facets(self) -> frozenset[str]:
        """The log facets (`RULE:facet`) a divergence of the profile names as its own."""
        return frozenset(facet for d in self.divergences for facet in d.tolerates)

    @property
    def hard(self) -> tuple[KnownDivergence, ...]:
        """The divergences detected by a symptom, in order."""
        return tuple(d for d in self.divergences if d.hard)

    @property
    def avoiding(self) -> bool:
        """Whether any divergence names commands random programs should not send."""
        return any(d.avoid is not None for d in self.divergences)

    def avoids(self, command: Command, config: LoopConfig) -> bool:
        """Whether random programs run with `config` should not send `command` (a hard known
        divergence would cut them there at once)."""
        return any(d.avoid is not None and d.avoid(command, config) for d in self.divergences)

    def erased(
        self,
        pair: Pair,
        commands: Sequence[Json],
        config: LoopConfig,
        keys: frozenset[str] | None = None,
    ) -> Pair:
        """`pair` with the divergences in `keys` (default: all) erased, in profile order."""
        for divergence in self.divergences:
            if keys is None or divergence.key in keys:
                pair = divergence.erase(pair, commands, config)
        return pair

    def needed(
        self, pair: Pair, commands: Sequence[Json], config: LoopConfig, keys: frozenset[str]
    ) -> frozenset[str]:
        """Which of `keys` the pair really shows: erasing all but that one leaves a difference."""
        chosen = [d for d in self.divergences if d.key in keys]
        # steps[i]: the pair with chosen[:i] erased; steps[-1] is `self.erased(..., keys)`.
        steps = [pair]
        for divergence in chosen:
            steps.append(divergence.erase(steps[-1], commands, config))
        differs_with_all = steps[-1][0] != steps[-1][1]
        # A key the profile lacks, or whose eraser changes nothing where it runs, is skipped
        # without changing any later eraser's input: leaving it out erases the same as `keys`.
        shown = {key for key in keys - self.keys if differs_with_all}
        for index, divergence in enumerate(chosen):
            if steps[index + 1] == steps[index]:
                if differs_with_all:
                    shown.add(divergence.key)
                continue
            model, target = steps[index]
            for later in chosen[index + 1 :]:
                model, target = later.erase((model, target), commands, config)
            if model != target:
                shown.add(divergence.key)
        return frozenset(shown)
