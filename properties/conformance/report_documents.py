"""The `--format json` documents of `loopspec conform` and `loopspec replay`, as attrs classes.

`document_schema.converter` writes them; `loopspec schema conform` and `loopspec schema
replay` print their JSON Schema, generated from these same fields (`document_schema`), so a CI
step can validate what a run wrote. What each key means is said here once, in its field's
metadata, and shown in the schema's descriptions; `python -m pydoc
loopspec.properties.cli.conform` shows a document with comments.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import attrs

from loopspec.properties.conformance.case_format import BUNDLED_TARGET_NAME
from loopspec.properties.conformance.document_schema import member, schema_of
from loopspec.properties.conformance.verdicts import RUN_VERDICTS, Verdict

CONFORM_FORMAT: Final = "loopspec-conform/1"
EXHAUSTIVE_FORMAT: Final = "loopspec-conform-exhaustive/1"
REPLAY_FORMAT: Final = "loopspec-replay/1"
REPLAY_CASES_FORMAT: Final = "loopspec-replay-cases/1"

REPLAY_OUTCOMES: Final = ("without divergence", "diverging", "skipped", "unusable")
"""How the replay of one case of several went, as the text report's last line tallies them."""

RULE_STATUSES: Final = (
    "exercised",
    "checked, situation never generated",
    "not reached by the generator",
    "not applicable",
    "not observable by conform (model tests)",
    "known divergence",
    "VIOLATED",
)
"""What a run says of a rule: docs/conform.md, "What a run reports"."""

_OBSERVATION: Final = (
    "an observation of that command: {accepted, events, executed: [{callId, arguments}], "
    "presented when the target presents, history: {kept, appended} when it reports its "
    "history}, or {accepted: false, refusal: {rule, message}}"
)


@attrs.frozen
class RuleRow:
    """One rule of SPEC.md, in SPEC order: what the run did to it."""

    rule: str = attrs.field(metadata=member("the rule's ID"))
    status: str = attrs.field(metadata=member("what the run says of it", choices=RULE_STATUSES))
    count: int = attrs.field(metadata=member("the same as generated"))
    generated: int = attrs.field(metadata=member("situations the rule governs, created"))
    checked: int = attrs.field(metadata=member("comparisons that covered its events"))
    needs: str | None = attrs.field(
        default=None,
        metadata=member("the capability that gates it (A or B: either)", omitted_empty=True),
    )
    known: list[str] = attrs.field(
        factory=list,
        metadata=member(
            "under --profile: the known divergences that touched it", omitted_empty=True
        ),
    )
    unreachable: str | None = attrs.field(
        default=None,
        metadata=member("the part of the rule no program reaches, and why", omitted_empty=True),
    )
    unobservable: str | None = attrs.field(
        default=None,
        metadata=member(
            "what conform cannot see the target do: the protocol does not carry it",
            omitted_empty=True,
        ),
    )


@attrs.frozen
class KnownDivergenceRow:
    """One known divergence of the run's profile."""

    key: str = attrs.field(metadata=member("its name in the profile"))
    rules: list[str] = attrs.field(metadata=member("the rules it touches"))
    programs: int = attrs.field(metadata=member("programs that showed it"))
    what: str = attrs.field(metadata=member("what it is"))
    cuts_programs: bool = attrs.field(
        metadata=member(
            "whether it sends the two runs different ways: each program it showed in was "
            "compared only up to it"
        )
    )


@attrs.frozen
class UnplayedSituation:
    """A targeted program a profile kept from being compared."""

    situation: str = attrs.field(metadata=member("the situation it was written for"))
    reason: str = attrs.field(metadata=member("why it was not compared"))


@attrs.frozen
class _RuleBroken:
    """What every document says first of a divergence: the rule, and where."""

    rule: str = attrs.field(metadata=member('the rule broken, or "NO-RULE": a gap in SPEC.md'))
    what: str = attrs.field(metadata=member("how, in one sentence"))
    spec_text: str = attrs.field(metadata=member("the rule as SPEC.md states it"))
    command_index: int = attrs.field(
        metadata=member("the diverging command, 0-based in the program the document holds")
    )


@attrs.frozen
class _DivergenceHead(_RuleBroken):
    """What conform's and replay's documents say first of a divergence."""

    command_words: str = attrs.field(metadata=member("that command in words"))
    model_did: str = attrs.field(metadata=member("what the model did with it, in words"))
    target_did: str = attrs.field(metadata=member("what the target did with it, in words"))


@attrs.frozen
class ConformDivergence(_DivergenceHead):
    """The counterexample: its rule, where it diverged and how, and its saved case."""

    config: dict[str, Any] = attrs.field(
        metadata=member("the loop configuration (driver protocol CONFIG)", protocol_def="config")
    )
    program: list[dict[str, Any]] = attrs.field(
        metadata=member("the shrunk commands, cut down (driver protocol)", protocol_def="command")
    )
    expected: dict[str, Any] = attrs.field(metadata=member(f"the model's {_OBSERVATION}"))
    actual: dict[str, Any] = attrs.field(metadata=member(f"the target's {_OBSERVATION}"))
    diff: str = attrs.field(metadata=member("the two observations' unified diff"))
    case: str | None = attrs.field(metadata=member("the case file saved, or null when none was"))
    replay: str | None = attrs.field(
        metadata=member("the command that replays the case, or null when none was saved")
    )
    case_already_saved: bool = attrs.field(
        metadata=member(
            "true when the case folder held this case already (an earlier run saved it, and "
            "case names that file; nothing was written), false when case was written now or "
            "none was saved"
        ),
    )


@attrs.frozen
class ExhaustivePass:
    """The bounded-exhaustive pass of `--exhaustive K` when no program of it diverged."""

    k: int = attrs.field(metadata=member("the K given"))
    skipped_for: list[str] = attrs.field(
        metadata=member(
            "the capabilities the pass needs that the target does not declare: when any is "
            "listed the pass was skipped and the rest of this member is 0 or null"
        )
    )
    guarantee: str | None = attrs.field(
        metadata=member(
            "what the pass establishes, in one sentence; null when it was skipped or the "
            "budget ended it"
        )
    )
    out_of_time: bool = attrs.field(
        metadata=member(
            "the --max-seconds budget ended the pass before its last program: runs counts "
            "those it ran, none diverging, and no random program follows"
        )
    )
    programs: int = attrs.field(metadata=member("programs of at most K commands it covers"))
    runs: int = attrs.field(
        metadata=member("programs run: a run compares every prefix of its program on the way")
    )
    commands: int = attrs.field(metadata=member("commands sent in all"))


TARGET_WORDS: Final = (
    "what ran, as conform's and replay's documents both name it and replay's --impl or --cmd "
    "takes it: the --impl MODULE:FACTORY or the --cmd as given (paths and secrets written as a "
    f"saved case writes them), or {BUNDLED_TARGET_NAME} for loopspec's bundled implementation"
)
"""The `target` of conform's and of replay's document, one spelling (a CI step passes one to
the other)."""


@attrs.frozen
class ConformDocument:
    """What `loopspec conform --format json` writes on stdout when the run finished."""

    format: Literal["loopspec-conform/1"] = attrs.field(metadata=member("this document's format"))
    target: str = attrs.field(metadata=member(TARGET_WORDS))
    target_name: str = attrs.field(
        metadata=member(
            "what ran, as the text report's first line names it: an --impl target's own name "
            "(its name attribute), else as target"
        )
    )
    conformant: bool = attrs.field(metadata=member("no divergence was found (exit 0)"))
    verdict: str = attrs.field(
        metadata=member(
            "the verdict in the text report's words (its first line, after the target): "
            f"{RUN_VERDICTS[0]} (exit 0), {RUN_VERDICTS[1]} (exit 1), or {RUN_VERDICTS[2]} "
            "(exit 2: see unrepeated)",
            choices=tuple(RUN_VERDICTS),
        )
    )
    capabilities: list[str] = attrs.field(metadata=member("what the target declared, sorted"))
    examples: int = attrs.field(metadata=member("programs run to their end"))
    retries: int = attrs.field(metadata=member("programs Hypothesis abandoned and replaced"))
    shrink_runs: int = attrs.field(metadata=member("runs spent shrinking the counterexample"))
    reduce_runs: int = attrs.field(metadata=member("smaller programs replayed to cut it down"))
    steps: int = attrs.field(
        metadata=member("commands sent in all, the sweeps' and the --exhaustive pass's too")
    )
    seconds: float = attrs.field(metadata=member("the run's duration, the --exhaustive pass's too"))
    max_seconds: float | None = attrs.field(metadata=member("--max-seconds as given, or null"))
    out_of_time: bool = attrs.field(
        metadata=member("that budget ended the search or, with a divergence, its shrinking")
    )
    stopped_by_ctrl_c: bool = attrs.field(
        metadata=member(
            "Ctrl-C ended the shrinking or cutting down of the divergence: its program is the "
            "smallest found by then, and `loopspec replay CASE --reduce` cuts it further"
        )
    )
    cut_short: bool = attrs.field(
        metadata=member(
            "cutting the divergence's program down stopped at its own bounds (60 s or 2000 "
            "replays), not at the smallest program: `loopspec replay CASE --reduce` cuts it "
            "further"
        )
    )
    unrepeated: bool = attrs.field(
        metadata=member(
            "the divergence did not happen again when conform ran its program again: the "
            "target answered one program two ways (exit 2, not 1); the program is the first "
            "run's, not shrunk, and a replay of its case may pass"
        )
    )
    presentation_examples: int = attrs.field(
        metadata=member("SPEC.md section 12's examples played before the search")
    )
    situation_examples: int = attrs.field(
        metadata=member(
            "targeted programs of rare situations played after the search; what they covered "
            "is counted in `rules` and `transitions` as the random programs' is"
        )
    )
    rules: list[RuleRow] = attrs.field(metadata=member("one row per rule of SPEC.md"))
    transitions: dict[str, int] = attrs.field(
        metadata=member("phase + command -> outcome: how often")
    )
    profile: str | None = attrs.field(
        default=None, metadata=member("the --profile applied", omitted_empty=True)
    )
    exhaustive: ExhaustivePass | None = attrs.field(
        default=None,
        metadata=member(
            "with --exhaustive K: the bounded-exhaustive pass run before the search, in which "
            "no program diverged; what its runs covered is counted in `rules`, `transitions`, "
            "`steps` and `seconds` as the random programs' is",
            omitted_empty=True,
        ),
    )
    known_divergences: list[KnownDivergenceRow] | None = attrs.field(
        default=None, metadata=member("with --profile: one per divergence", omitted_empty=True)
    )
    situations_unplayed: list[UnplayedSituation] | None = attrs.field(
        default=None,
        metadata=member(
            "with --profile: targeted programs not played or stopped at a known divergence",
            omitted_empty=True,
        ),
    )
    divergence: ConformDivergence | None = attrs.field(
        default=None, metadata=member("only when not conformant", omitted_empty=True)
    )


@attrs.frozen
class RefusedCommand:
    """A command of the case the model refused."""

    command_index: int = attrs.field(metadata=member("0-based, in the case's commands"))
    rule: str | None = attrs.field(metadata=member("the rule the refusal names"))
    line: int = attrs.field(
        metadata=member("the line of the case file the command starts on, 1-based")
    )


@attrs.frozen
class ReplayDivergence(_DivergenceHead):
    """Where the replayed case diverged, and how."""

    command: dict[str, Any] = attrs.field(
        metadata=member("that command (driver protocol)", protocol_def="command")
    )
    expected: dict[str, Any] = attrs.field(metadata=member(f"the model's {_OBSERVATION}"))
    actual: dict[str, Any] = attrs.field(metadata=member(f"the target's {_OBSERVATION}"))
    diff: str = attrs.field(metadata=member("the two observations' unified diff"))


@attrs.frozen
class ReplayAnswer:
    """What the model answered one command of a case written by hand that passes, the target
    alike: the case's question, answered."""

    command_index: int = attrs.field(metadata=member("0-based, in the case's commands"))
    command_words: str = attrs.field(metadata=member("that command in words"))
    answer_words: str = attrs.field(
        metadata=member(
            "what the model did with it, in words: refused it (RULE), or the events it "
            "appended, each result with its call, error code and words"
        )
    )
    answer: dict[str, Any] = attrs.field(metadata=member(f"the model's {_OBSERVATION}"))


REDUCTION_OUTCOMES: Final = (
    "saved",
    "already saved",
    "not saved",
    "nothing can be cut",
    "nothing cut",
    "case passes",
)
"""What `replay --reduce` made of a case, as its text report's `reduced:` line says it."""


@attrs.frozen
class ReplayReduction:
    """What `replay --reduce` did: the case cut down on the target replayed, and where it went."""

    outcome: str = attrs.field(
        metadata=member(
            "saved (a new case beside it), already saved (found beside it, nothing written), "
            "not saved (the folder cannot be written: error says why, and config and program "
            "hold the cut-down case), nothing can be cut (every command and detail is "
            "needed), nothing cut (cutting stopped before a smaller program diverged alike), "
            "case passes (the case does not diverge on this target: nothing to cut by)",
            choices=REDUCTION_OUTCOMES,
        )
    )
    rule: str | None = attrs.field(
        metadata=member("the rule the cut-down program still breaks, or null: the case passes")
    )
    commands: int = attrs.field(
        metadata=member("commands in the cut-down program (the case's own when nothing was cut)")
    )
    replays: int = attrs.field(metadata=member("smaller programs replayed to cut it down"))
    stopped_by_ctrl_c: bool = attrs.field(
        metadata=member("Ctrl-C stopped the cutting: --reduce on the result cuts it further")
    )
    cut_short: bool = attrs.field(
        metadata=member(
            "the cutting stopped at its own bounds (60 s or 2000 replays): --reduce on the "
            "result cuts it further"
        )
    )
    case: str | None = attrs.field(
        metadata=member("the cut-down case file, saved now or already, or null when none is")
    )
    config: dict[str, Any] = attrs.field(
        factory=dict,
        metadata=member(
            "the cut-down program's configuration (driver protocol CONFIG), when one was cut",
            omitted_empty=True,
            protocol_def="config",
        ),
    )
    program: list[dict[str, Any]] = attrs.field(
        factory=list,
        metadata=member(
            "the cut-down program's commands (driver protocol), when one was cut",
            omitted_empty=True,
            protocol_def="command",
        ),
    )
    error: str | None = attrs.field(
        default=None,
        metadata=member("not saved: why, as stderr says it", omitted_empty=True),
    )


@attrs.frozen
class ReplayDocument:
    """What `loopspec replay CASE --format json` writes on stdout when the case was replayed."""

    format: Literal["loopspec-replay/1"] = attrs.field(metadata=member("this document's format"))
    case: str = attrs.field(metadata=member("the case file, as given"))
    target: str = attrs.field(metadata=member(TARGET_WORDS))
    recorded_target: dict[str, str] = attrs.field(
        metadata=member("the target the case names ({}: the bundled implementation)")
    )
    same_target: bool = attrs.field(
        metadata=member(
            "true when what ran is the target the case names: the bundled implementation both "
            "times, the same --impl, or the same --cmd (a path's leading ./ aside); false: "
            "the verdict is another target's"
        )
    )
    recorded_rule: str | None = attrs.field(
        metadata=member("what the run that saved it found, or null")
    )
    recorded_rule_unseen: str | None = attrs.field(
        default=None,
        kw_only=True,
        metadata=member(
            "only when the case passes on a target that cannot show its recorded rule: the "
            "capability it does not declare, so nothing the rule speaks about was compared "
            "(the pass says nothing of the rule)",
            omitted_empty=True,
        ),
    )
    recorded_rule_unreached: bool = attrs.field(
        default=False,
        kw_only=True,
        metadata=member(
            "only when the case passes and no command the model takes creates the situation "
            "its recorded rule governs: true (the pass says nothing of the rule, a loop that "
            "still has the bug passing too; a hand cut may have taken the situation away)",
            omitted_empty=True,
        ),
    )
    recorded_unrepeated: bool = attrs.field(
        default=False,
        kw_only=True,
        metadata=member(
            "only when the case passes and was saved from a divergence its loop did not repeat "
            "when conform ran the program again (the case's unrepeated): true (the loop "
            "answered one program two ways, so the pass may be chance, not a fix)",
            omitted_empty=True,
        ),
    )
    # A verdict unlike the recorded one may come from another release's rules: the text report
    # names both releases, and a bug tracker reading this document needs them as much.
    case_loopspec_version: str | None = attrs.field(
        metadata=member("the loopspec release that wrote the case, or null")
    )
    loopspec_version: str = attrs.field(metadata=member("this loopspec, which replayed it"))
    profile: str | None = attrs.field(metadata=member("the profile applied, or null"))
    case_profile: str | None = attrs.field(metadata=member("the profile the case names, or null"))
    capabilities: list[str] = attrs.field(metadata=member("what the replayed target declared"))
    case_capabilities: list[str] | None = attrs.field(
        metadata=member("what the case's target declared, or null")
    )
    commands: int = attrs.field(metadata=member("commands in the case"))
    config: dict[str, Any] = attrs.field(
        metadata=member("the case's configuration (driver protocol CONFIG)", protocol_def="config")
    )
    program: list[dict[str, Any]] = attrs.field(
        metadata=member(
            "the case's commands, all of them (driver protocol)", protocol_def="command"
        )
    )
    diverges: bool = attrs.field(metadata=member("the case still diverges (exit 1)"))
    known_shown: list[str] = attrs.field(
        metadata=member("under a profile: known divergences shown")
    )
    stopped_by: str | None = attrs.field(
        metadata=member("under a profile: the known divergence that ended the comparison")
    )
    stopped_at: int | None = attrs.field(
        metadata=member("the command it ended at, 0-based, or null")
    )
    model_refused: list[RefusedCommand] = attrs.field(metadata=member("commands the model refused"))
    divergence: ReplayDivergence | None = attrs.field(
        metadata=member("null when the case does not diverge")
    )
    reduced: ReplayReduction | None = attrs.field(
        default=None, metadata=member("with --reduce: what it made of the case", omitted_empty=True)
    )
    answers: list[ReplayAnswer] = attrs.field(
        factory=list,
        metadata=member(
            "of a case written by hand (it names no target and no rule) that passes: what the "
            "model answered each command compared, the target alike",
            omitted_empty=True,
        ),
    )


@attrs.frozen
class ReplayedCase:
    """One case of a replay of several, and how its replay went."""

    case: str = attrs.field(metadata=member("the case file, as found (a folder's: by name)"))
    outcome: str = attrs.field(metadata=member("how its replay went", choices=REPLAY_OUTCOMES))
    reason: str | None = attrs.field(
        default=None,
        metadata=member(
            "skipped: the capability the target does not declare; unusable: why (the error "
            "replay prints on stderr)",
            omitted_empty=True,
        ),
    )
    replay: ReplayDocument | None = attrs.field(
        default=None,
        metadata=member(
            "when it was replayed to a verdict: what `loopspec replay CASE --format json` "
            "writes of it",
            omitted_empty=True,
        ),
    )


@attrs.frozen
class ReplayTotals:
    """How many cases went each way."""

    cases: int = attrs.field(metadata=member("cases replayed or tried"))
    without_divergence: int = attrs.field(metadata=member("cases that no longer diverge"))
    diverging: int = attrs.field(metadata=member("cases that still diverge (exit 1)"))
    skipped: int = attrs.field(
        metadata=member("cases needing a capability the target does not declare")
    )
    unusable: int = attrs.field(
        metadata=member("cases that could not be used, or broke the target (exit 2)")
    )


@attrs.frozen
class ReplayCasesDocument:
    """What `loopspec replay DIR --format json` (or naming several cases) writes on stdout: each
    case in the order replayed, and the totals."""

    format: Literal["loopspec-replay-cases/1"] = attrs.field(
        metadata=member("this document's format")
    )
    target: str = attrs.field(metadata=member("what ran, as in loopspec-replay/1"))
    cases: list[ReplayedCase] = attrs.field(metadata=member("one per case file, in order"))
    totals: ReplayTotals = attrs.field(metadata=member("how many went each way"))
    closing_error: str | None = attrs.field(
        default=None,
        metadata=member(
            "the target's failure at shutdown, after every case (exit 2)", omitted_empty=True
        ),
    )


@attrs.frozen
class ExhaustiveDocument(_RuleBroken):
    """What `loopspec conform --exhaustive K --format json` writes on stdout when a program of
    the bounded-exhaustive pass diverged (no random search follows)."""

    format: Literal["loopspec-conform-exhaustive/1"] = attrs.field(
        metadata=member("this document's format")
    )
    exhaustive: int = attrs.field(metadata=member("the K given"))
    conformant: Literal[False] = attrs.field(metadata=member("always false: a program diverged"))
    verdict: str = attrs.field(
        metadata=member(
            f"the verdict in the text report's words (its first and last lines): always "
            f"{Verdict.COUNTEREXAMPLE}, as loopspec-conform/1's for a program that diverged "
            "(exit 1)",
            choices=(Verdict.COUNTEREXAMPLE,),
        )
    )
    config: dict[str, Any] = attrs.field(
        metadata=member(
            "the alphabet's configuration, less what it does not need", protocol_def="config"
        )
    )
    program: list[dict[str, Any]] = attrs.field(
        metadata=member("the commands sent up to the diverging one", protocol_def="command")
    )
    reduce_runs: int = attrs.field(metadata=member("smaller programs replayed to cut it down"))
    stopped_by_ctrl_c: bool = attrs.field(
        metadata=member(
            "Ctrl-C ended the cutting down: its program is the smallest found by then, and "
            "`loopspec replay CASE --reduce` cuts it further"
        )
    )
    cut_short: bool = attrs.field(
        metadata=member(
            "cutting the program down stopped at its own bounds (60 s or 2000 replays), not at "
            "the smallest program: `loopspec replay CASE --reduce` cuts it further"
        )
    )
    diff: str = attrs.field(metadata=member("the two observations' unified diff"))
    case: str | None = attrs.field(metadata=member("the case file saved, or null when none was"))
    replay: str | None = attrs.field(
        metadata=member("the command that replays the case, or null when none was saved")
    )
    case_already_saved: bool = attrs.field(
        metadata=member(
            "true when the case folder held this case already (an earlier run saved it, and "
            "case names that file; nothing was written), false when case was written now or "
            "none was saved"
        ),
    )


DOCUMENTS: Final[dict[str, tuple[type, ...]]] = {
    "conform": (ConformDocument, ExhaustiveDocument),
    "replay": (ReplayDocument, ReplayCasesDocument),
}
"""The documents `loopspec schema NAME` prints the JSON Schema of: what `loopspec NAME --format
json` may write."""


def document_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of the document `loopspec NAME --format json` writes."""
    from loopspec.properties.conformance.driver_protocol import protocol_schema  # noqa: PLC0415

    return schema_of(DOCUMENTS[name], f"loopspec {name} --format json", protocol_schema()["$defs"])
