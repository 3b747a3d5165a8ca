"""What a failure report says to a harness author who reads it without loopspec's source: the
rule the loop broke, in the words of SPEC.md, not the protocol schema's or Python's."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from fresh_bugs import GUARDED_BASH, AskOutranksDeny, CapOneOff, planted

from loopspec.model import dispatch, handlers, rewrite
from loopspec.model.commands import (
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig, ToolSpec
from loopspec.model.events import RewriteSidecar
from loopspec.model.jsonvalue import dumps
from loopspec.model.messages import ToolCallBlock
from loopspec.model.state import DENY
from loopspec.properties.cli import conform_run
from loopspec.properties.cli.main import main
from loopspec.properties.conformance.blame import results
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError
from loopspec.properties.conformance.run import RunReport, replay_case
from loopspec.properties.conformance.target import ModelTarget, Observation


def _bash_call(call_id: str) -> ToolCallBlock:
    return ToolCallBlock(call_id, "bash", '{"command":""}')


def _answering(event: dict[str, object]) -> ProcessTarget:
    """A process target that answers its first command with `event` alone."""
    ready = {"type": "ready", "implementation": "fake", "capabilities": []}
    answer = {"type": "observed", "seq": 0, "accepted": True, "events": [event]}
    answer |= {"commits": [1], "executed": []}
    code = (
        f"import sys; sys.stdin.readline(); print({json.dumps(ready)!r}, flush=True);"
        f"sys.stdin.readline(); print({json.dumps(answer)!r}, flush=True); sys.stdin.read()"
    )
    return ProcessTarget([sys.executable, "-c", code], name="fake")


def test_LOG_2_an_off_surface_event_with_surface_metadata_names_LOG_2_not_the_schema() -> None:
    """LOG-2: a loop that wrote `surfaceOp` on a turn/start was stopped as PROTO-1 with the
    schema validator's words: the event as a Python dict and "should not be valid under
    {'anyOf': ...", a slice of the schema. The model's reader refuses the event under LOG-2,
    as check does the same line of a log: conform says that."""
    event = {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}}
    event["surfaceOp"] = "append"
    target = _answering(event)
    target.reset(LoopConfig())
    with pytest.raises(ProcessTargetError) as caught:
        target.apply(SubmitUser("hi"))
    said = str(caught.value)
    assert caught.value.rule_id == "LOG-2", said
    assert "turn/start is not a surface event and must not carry surfaceOp" in said, said
    assert "should not be valid under" not in said, said
    assert "{'type'" not in said, said


_RESOLVE_CALL = rewrite.resolve_call


def _keeps_a_denied_call_s_rewrite(call: Any, votes: Any, config: LoopConfig) -> Any:
    resolved = _RESOLVE_CALL(call, votes, config)
    suppliers = [v for v in votes if rewrite.supplied_input(v.verdict) is not None]
    if resolved.decision != DENY or not suppliers:
        return resolved
    applied = dumps(rewrite.supplied_input(suppliers[-1].verdict))
    sidecar = RewriteSidecar(call.arguments, tuple(v.handler_id for v in suppliers))
    return attrs.evolve(resolved, arguments=applied, sidecar=sidecar)


class DeniesButKeepsTheRewrite(ModelTarget):
    """The model, except that a denied call keeps a hook's input (HOOK-3 broken)."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "resolve_call", _keeps_a_denied_call_s_rewrite)
            return super().apply(command)


def _judges_a_rewrite_beside_a_deny(call: Any, votes: Any, config: LoopConfig) -> Any:
    """A denied call refused for the input another hook supplied, as if no hook had denied it."""
    resolved = _RESOLVE_CALL(call, votes, config)
    others = tuple(vote for vote in votes if not isinstance(vote.verdict, Deny))
    judged = _RESOLVE_CALL(call, others, config)
    return judged if resolved.decision == DENY and judged.decision == DENY else resolved


def _held_at_the_gate(asking_input: str) -> list[Command]:
    """Call c1 runs while c2, whose hooks answer ask (with `asking_input` as its command) and
    deny, waits at the gate."""
    return [
        SubmitUser(""),
        ModelReplies((_bash_call("c1"), _bash_call("c2"))),
        HookAnswers(Pass()),
        HookAnswers(Pass()),
        HookAnswers(Ask("", {"command": asking_input})),
        HookAnswers(Deny("")),
    ]


# The model's own input back (a sidecar the target's log shows on a denied call, RW-2), or
# another (the arguments differ from the model's).
ASKING_INPUTS = pytest.mark.parametrize(
    "asking_input", ["", "e"], ids=["the model's input", "another input"]
)


@ASKING_INPUTS
def test_HOOK_2_a_rewrite_kept_on_a_call_held_at_the_gate_is_blamed_on_the_merge(
    asking_input: str,
) -> None:
    """HOOK-2: a loop that merged a deny and an ask to an ask applied the asking hook's input,
    and an earlier call holding the gate kept its ask out of sight. The report named HOOK-3 and
    said "the call is denied as it must be", which nothing showed: its author looked for a
    rewrite kept after a deny where the merge was wrong. The target is sent the earlier call's
    finish, then asks about the call: HOOK-2, saying so."""
    replay = replay_case(AskOutranksDeny, GUARDED_BASH, _held_at_the_gate(asking_input))
    assert replay.divergence is not None
    what = replay.divergence.what
    assert replay.divergence.rule_id == "HOOK-2", what
    assert "denied as it must be" not in what, what
    assert "once the calls before call c2 finished, the target asked the user about it" in what


@ASKING_INPUTS
def test_HOOK_3_a_rewrite_kept_on_a_denied_call_held_at_the_gate_stays_HOOK_3(
    asking_input: str,
) -> None:
    """HOOK-3: control: a loop that denies the call but keeps a hook's input is still blamed on
    HOOK-3 there, its denial shown once the earlier call finished, without a word of HOOK-2."""
    program = _held_at_the_gate(asking_input)
    replay = replay_case(DeniesButKeepsTheRewrite, GUARDED_BASH, program)
    assert replay.divergence is not None
    what = replay.divergence.what
    assert replay.divergence.rule_id == "HOOK-3", what
    assert "a deny discards every rewrite" in what, what
    assert "HOOK-2" not in what, what


class IgnoresEveryInput(ModelTarget):
    """The model, except that no hook's input is ever applied (RW-2 broken)."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rewrite, "winning_rewrite", lambda _supplied, _merged: -1)
            return super().apply(command)


def test_RW_2_the_report_names_the_event_that_carries_the_wrong_arguments() -> None:
    """RW-2: "the call's arguments in the model history are not the effective ones" named
    SPEC's reader, not the event a loop's author finds in their code: it names
    assistant/message too (and tool/call beside "the audit record"). A loop that applies no
    hook's input keeps the model's arguments in every reader and the run: RW-2 since round 18
    (RW-1 was named, though nothing disagreed)."""
    program: list[Command] = [
        SubmitUser(""),
        ModelReplies((_bash_call("c1"),)),
        HookAnswers(Pass()),
        HookAnswers(Allow({"command": "ls"})),
    ]
    replay = replay_case(IgnoresEveryInput, GUARDED_BASH, program)
    assert replay.divergence is not None
    what = replay.divergence.what
    assert replay.divergence.rule_id == "RW-2", what
    assert "arguments in the model history (assistant/message), its tool/call and" in what


_ANSWER_APPROVAL = dispatch.answer_approval


class RunsRejectedCalls(ModelTarget):
    """The model, except that a call whose approval is rejected runs as if allowed (DEC-2)."""

    def apply(self, command: Command) -> Observation:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(
                handlers,
                "answer_approval",
                lambda draft, phase, _outcome: _ANSWER_APPROVAL(draft, phase, "allowed-once"),
            )
            return super().apply(command)


def test_PROTO_1_the_json_report_says_the_command_and_what_each_side_did_in_words() -> None:
    """PROTO-1: conform's `--format json` divergence held the command as protocol JSON and both
    observations whole; the text report's "the user answers the approval for call c1 (bash):
    rejected" and "the target appended approval/decided; started running call c1", which a CI
    job posting the failure wants, were in no key: a reader diffed `expected` and `actual` by
    eye. They are `commandWords`, `modelDid` and `targetDid` (keys added within /1)."""
    config = attrs.evolve(GUARDED_BASH, hooks=GUARDED_BASH.hooks[:1])
    program: list[Command] = [
        SubmitUser(""),
        ModelReplies((_bash_call("c1"),)),
        HookAnswers(Ask()),
        ApprovalAnswers("rejected"),
    ]
    replay = replay_case(RunsRejectedCalls, config, program)
    assert replay.divergence is not None
    report = RunReport(
        "runs rejected calls", frozenset(), 1, len(program), 0.0, replay.divergence,
        tuple(program), config, {}, {},
    )  # fmt: skip
    document = conform_run.json_report(report, None, {})
    divergence = document["divergence"]
    assert (
        divergence["commandWords"] == "the user answers the approval for call c1 (bash): rejected"
    )
    assert divergence["modelDid"] == (
        'appended approval/decided, tool/result c1: "Error: the user rejected tool bash", '
        "step/end, step/start"
    )
    assert divergence["targetDid"] == "appended approval/decided; started running call c1"


def _sample_block(doc: Path, heading: str) -> list[str]:
    """The lines of the first ```text block after `heading` in `doc`."""
    after = doc.read_text(encoding="utf-8").split(heading, 1)[1]
    return after.split("```text\n", 1)[1].split("\n```", 1)[0].splitlines()


def _follows(sample: list[str], printed: list[str]) -> None:
    """Each line of `sample` is a line of `printed`, in order: `...` alone stands for lines
    left out, and a line ending in `...` for one that goes on."""
    at = 0
    for line in sample:
        if line.strip() == "...":
            continue
        shown = line.removesuffix("...")
        while at < len(printed) and not (
            printed[at] == line or (shown != line and printed[at].startswith(shown))
        ):
            at += 1
        assert at < len(printed), f"not printed, or out of order: {line!r}\n" + "\n".join(printed)
        at += 1


def test_PROTO_1_the_sample_counterexample_in_docs_conform_is_what_conform_prints() -> None:
    """PROTO-1: docs/conform.md shows a counterexample report and says how to read it (what a
    seq, events[0], a hunk's `the target's ...` and the model's and target's lines are): a
    stranger learns the layout there, so the sample must be what conform prints, line for line
    where it does not say `...`."""
    from mutants import MUTANTS, MutantTarget  # noqa: PLC0415 -- the tests' own zoo

    commits_as_finished = next(m for m in MUTANTS if m.name == "completion-order-results")
    config = LoopConfig(
        tools=(ToolSpec("read", concurrency_safe=True, required_keys=("file_path",)),)
    )
    reads = (
        ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),
        ToolCallBlock("c2", "read", '{"file_path":"b.txt"}'),
    )
    program = (
        SubmitUser("read both"),
        ModelReplies(reads),
        ToolFinishes("c2", ToolSucceeded("beta")),
    )
    replay = replay_case(lambda: MutantTarget(commits_as_finished), config, list(program))
    assert replay.divergence is not None
    report = RunReport(
        "node my_loop.mjs", frozenset(), 1, len(program), 0.0, replay.divergence, program,
        config, {}, {},
    )  # fmt: skip
    printed = conform_run.counterexample_lines(
        report, Path("loopspec-cases/case-ORD-3-0.json"), {"cmd": "node my_loop.mjs"}
    )
    doc = Path(__file__).parent.parent / "docs" / "conform.md"
    _follows(_sample_block(doc, "## Reading a counterexample"), printed)


def test_PROTO_1_the_sample_report_in_docs_check_is_what_check_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: docs/check.md shows a report and says how to read it (what the bracketed seqs
    are, which a reader took for line numbers): the sample is what check prints of the same
    log, every line."""
    fixture = Path(__file__).parent / "fixtures" / "logs" / "violations" / "DEC-1.jsonl"
    (tmp_path / "session.jsonl").write_bytes(fixture.read_bytes())
    monkeypatch.chdir(tmp_path)
    assert main(["check", "session.jsonl"]) == 1
    printed = capsys.readouterr().out.splitlines()
    doc = Path(__file__).parent.parent / "docs" / "check.md"
    assert _sample_block(doc, "## Reading a report") == printed
    related = printed[0].rsplit("[events ", 1)[1].rstrip("]").split(", ")
    assert related[1] == "25 (line 27)"
    # The line named is the one an editor opens: the hook/result the verdict rests on.
    shown = (tmp_path / "session.jsonl").read_text(encoding="utf-8").splitlines()
    assert '"seq": 25,' in shown[27 - 1]
    assert '"type": "hook/result"' in shown[27 - 1], shown[27 - 1]


def test_SCHED_1_a_call_started_over_the_cap_says_what_the_cap_is() -> None:
    """SCHED-1: "a safe call waits ... for fewer than maxParallel to run" left the reader to
    find maxParallel in the configuration line; the sentence says its value."""
    read = ToolSpec("read", concurrency_safe=True, required_keys=("file_path",))
    config = LoopConfig(tools=(read,), max_parallel=2)
    calls = tuple(ToolCallBlock(f"c{n}", "read", '{"file_path":""}') for n in (1, 2, 3))
    replay = replay_case(CapOneOff, config, [SubmitUser(""), ModelReplies(calls)])
    assert replay.divergence is not None
    what = replay.divergence.what
    assert replay.divergence.rule_id == "SCHED-1", what
    assert "the target starts the body of call c3" in what, what
    assert "for fewer than maxParallel (2 here) to run" in what, what


def test_HOOK_3_an_allowing_hooks_input_judged_beside_a_deny_sends_the_target_no_probe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HOOK-3: the probe telling an ask's merge from a kept rewrite (the call sent again) ran
    when no hook asked, sending the target a call whose answer the report never reads."""
    probed: list[object] = []
    monkeypatch.setattr(
        results, "merge_without_the_askers_input", lambda *given: probed.append(given)
    )
    judges = planted(rewrite, "resolve_call", _judges_a_rewrite_beside_a_deny, "judged first")
    program: list[Command] = [
        SubmitUser(""),
        ModelReplies((_bash_call("c1"),)),
        HookAnswers(Deny("")),
        HookAnswers(Allow({"x": 1})),
    ]
    replay = replay_case(judges, GUARDED_BASH, program)
    assert replay.divergence is not None
    what = replay.divergence.what
    assert replay.divergence.rule_id == "HOOK-3", what
    assert "a loop judges it when its merge does not make the call denied" in what, what
    assert probed == []


def test_HOOK_2_a_call_refused_for_an_asking_hooks_input_beside_a_deny_names_the_merge() -> None:
    """HOOK-2: a loop that merged a deny and an ask to an ask judged the asking hook's input,
    which its tool cannot take, and denied the call for it: "Error: hook guard rewrote the
    input of bash: ...". The report read DEC-1, "a denied call's result is ... the reasons of
    the denying hook", sending its author to how reasons are joined; then HOOK-3, the input
    never to be judged. A probe making the call again, the asking hook with no input, is asked
    about: the merge is what the loop got wrong."""
    program: list[Command] = [
        SubmitUser(""),
        ModelReplies((_bash_call("c1"),)),
        HookAnswers(Ask("", {})),
        HookAnswers(Deny("")),
    ]
    replay = replay_case(AskOutranksDeny, GUARDED_BASH, program)
    assert replay.divergence is not None
    what = replay.divergence.what
    assert replay.divergence.rule_id == "HOOK-2", what
    assert "the target refuses an input a hook supplied" in what, what
    assert "but hook rewriter denied call c1: a deny discards every rewrite" in what, what
    assert "the target's merge lets the ask outrank the deny" in what, what
