"""The hooks whose own output or process went wrong (HOOK-7), and the one note said of each.

A fault breaks no rule: the loop gives the hook its dialect's outcome (Claude Code and Codex: no
decision), or a deny under fail-closed, and records the fault in `hook/result`. But a report
that says "0 violations" and nothing else of a log whose hook crashed on every call tells its
author all went well. `loopspec check` (a notice per hook), `loopspec run` and `run --harness`
(a line after the hook audit) word each such hook with `HookRuns.notes`, so the three say the
same of the same fault; of a Claude Code transcript, what Claude Code took from it rather than
what the bundled loop records. A well-formed answer its dialect does not support (Codex's
`ask`) is said to be one, not a hook gone wrong.

A plain class, no attrs: `check` imports it (`tests/test_check_startup.py`).
"""

from __future__ import annotations

from loopspec.model.facts import FAILED_DECISION
from loopspec.properties.logcheck import MAX_TRACKED_HOOKS

UNSUPPORTED = "unsupported"
"""The fault kind of a well-formed answer its dialect does not support (`FaultKind`; not
imported: `check` runs without enum)."""


class FirstFault:
    """Where a hook first failed: the line (None outside a log), seq, call and fault."""

    __slots__ = ("call_id", "detail", "kind", "line", "seq")

    def __init__(
        self, line: int | None, seq: int | None, call_id: str | None, kind: str, detail: str
    ) -> None:
        self.line, self.seq, self.call_id = line, seq, call_id
        self.kind, self.detail = kind, detail


class HookRuns:
    """How often each hook ran and failed, in the order the hooks first failed."""

    __slots__ = ("_failed", "_first", "_loop", "_outcomes", "_runs_known", "run_counts")

    def __init__(
        self,
        *,
        runs_known: bool = True,
        loop: str | None = None,
        run_counts: dict[str, int] | None = None,
    ) -> None:
        # False for a log that records only some runs (a Claude Code transcript keeps no record
        # of a hook that printed nothing): its notes then count failures, not runs.
        self._runs_known = runs_known
        # The loop that wrote the log, when the log is its own (a Claude Code transcript): the
        # notes then say what it took from the hook, not what the bundled loop records.
        self._loop = loop
        self.run_counts: dict[str, int] = {} if run_counts is None else run_counts
        """Runs per hook id (`run_counts`, the runs counted so far, when given); the checker's
        fast path counts a run that records no fault here itself
        (`clean_events._HookResultJudge`), the rest go through `see`."""
        self._failed: dict[str, int] = {}
        self._first: dict[str, FirstFault] = {}
        self._outcomes: dict[str, dict[str, int]] = {}

    def see(
        self,
        hook_id: str,
        decision: str,
        summary: str | None,
        *,
        call_id: str | None = None,
        line: int | None = None,
        seq: int | None = None,
    ) -> None:
        """Count one run of `hook_id`: its audit's decision word and summary."""
        runs = self.run_counts
        count = runs.get(hook_id)
        if count is not None:
            runs[hook_id] = count + 1
        elif len(runs) < MAX_TRACKED_HOOKS:
            runs[hook_id] = 1
        # Imported for the first run read on the full path: a log without hooks is checked
        # without `impl` (tests/test_check_startup.py).
        from loopspec.impl.recorded_faults import recorded_fault  # noqa: PLC0415

        fault = recorded_fault(decision, summary)
        if fault is None:
            return
        if hook_id not in self._first:
            if len(self._first) >= MAX_TRACKED_HOOKS:
                return
            self._first[hook_id] = FirstFault(line, seq, call_id, *fault)
            self._failed[hook_id] = 0
            self._outcomes[hook_id] = {}
        self._failed[hook_id] += 1
        outcomes = self._outcomes[hook_id]
        outcomes[decision] = outcomes.get(decision, 0) + 1

    def see_wire(self, data: object, line: int, seq: object) -> None:
        """Count the run a `hook/result` event's `data` records (a malformed one counts not:
        the checker reports it)."""
        if type(data) is not dict:
            return
        hook_id, decision = data.get("handlerId"), data.get("decision")
        summary, call_id = data.get("stderrSummary"), data.get("callId")
        if type(hook_id) is not str or type(decision) is not str:
            return
        self.see(
            hook_id,
            decision,
            summary if type(summary) is str else None,
            call_id=call_id if type(call_id) is str else None,
            line=line,
            seq=seq if type(seq) is int else None,
        )

    def notes(self) -> list[tuple[FirstFault, str]]:
        """Each failed hook's first fault and its note, in the order the hooks first failed."""
        found = []
        for hook_id, first in self._first.items():
            runs = self.run_counts.get(hook_id) if self._runs_known else None
            outcomes = self._outcomes[hook_id]
            failed = self._failed[hook_id]
            found.append(
                (first, fault_note(hook_id, failed, runs, first, outcomes, loop=self._loop))
            )
        return found


def fault_note(
    hook_id: str,
    failed: int,
    runs: int | None,
    first: FirstFault,
    outcomes: dict[str, int],
    *,
    loop: str | None = None,
) -> str:
    """What `check` and `run` say of a hook that failed `failed` times in `runs` runs (None:
    not counted); `outcomes` counts the decision words its failed runs were recorded with;
    `loop` names the loop whose own log this is (None: a log the bundled loop's audit wrote)."""
    if runs is None:
        how_often = f"{failed} time" + ("" if failed == 1 else "s")
    elif failed == runs:
        how_often = "in its only run" if runs == 1 else f"in all {runs} of its runs"
    else:
        how_often = f"in {failed} of its {runs} runs"
    call = f"call {first.call_id}, " if first.call_id is not None else ""
    which = "" if failed == 1 else "first: "
    words = [_outcome(word) for word in outcomes]
    read = (
        words[0]
        if len(words) == 1
        else ", ".join(f"{_outcome(word)} x{count}" for word, count in outcomes.items())
    )
    # An unsupported answer is well formed (Codex's `ask`): the dialect, not the hook, refuses it.
    what = (
        "its answer is well formed but one its dialect does not support"
        if first.kind == UNSUPPORTED
        else "its own output or process went wrong"
    )
    outcome = (
        f"the loop recorded {read}, the outcome HOOK-7 gives a fault (its dialect's, or a deny "
        "under fail-closed)"
        if loop is None
        else f"{loop} took {read} from it (a fault's outcome in its dialect, HOOK-7)"
    )
    return (
        f"hook {hook_id} failed {how_often}: {what} ({which}{call}{first.kind}: "
        f"{first.detail}); {outcome}: no rule is broken, but the hook's answer was not "
        + ("acted on" if first.kind == UNSUPPORTED else "read")
    )


def _outcome(word: str) -> str:
    return "no decision" if word == FAILED_DECISION else f"'{word}'"
