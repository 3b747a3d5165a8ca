"""docs/tutorial.md stays true: its loop is the one in examples/tutorial-loop/, its sample log
is what the model writes, and that loop is CONFORMANT."""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from batches import BATCH_SEED

from loopspec.model.commands import Command, ModelReplies, SubmitUser, ToolFinishes, ToolSucceeded
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.cli.conform_run import rule_row_text
from loopspec.properties.cli.main import main
from loopspec.properties.conformance.command_codec import command_from_json, config_from_json
from loopspec.properties.conformance.report_documents import RULE_STATUSES
from loopspec.properties.conformance.run import replay_case, run_conformance
from loopspec.properties.conformance.target import ModelTarget
from loopspec.properties.conformance.target_frames import TRACEBACK_HEADING
from loopspec.properties.stateful.strategies import CONFIGS

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial.md"
LOOP = ROOT / "examples" / "tutorial-loop" / "tutorial_loop.py"


@pytest.fixture
def tutorial_loop() -> Iterator[Any]:
    """The tutorial's loop class, imported from its folder as the tutorial runs it."""
    sys.path.insert(0, str(LOOP.parent))
    try:
        yield importlib.import_module("tutorial_loop").TutorialLoop
    finally:
        sys.path.remove(str(LOOP.parent))


def _fenced(marker: str) -> str:
    text = TUTORIAL.read_text(encoding="utf-8")
    found = re.search(re.escape(marker) + r".*?\n```[a-z]*\n(.*?)```", text, re.S)
    assert found is not None, f"no fenced block after {marker!r}"
    return found.group(1)


def test_MODEL_1_the_tutorial_quotes_its_loop_verbatim() -> None:
    """MODEL-1: the code the tutorial shows is the code the tests run."""
    quoted = _fenced("<!-- quoted from examples/tutorial-loop/tutorial_loop.py")
    assert quoted == LOOP.read_text(encoding="utf-8")


def test_MODEL_1_the_tutorials_sample_log_is_what_the_model_writes() -> None:
    """MODEL-1: the sample turn in section 2 is the model's log for the program it describes."""
    sample = _fenced("## 2. What the log looks like")
    model = ModelTarget()
    model.reset(CONFIGS[0])
    program: list[Command] = [
        SubmitUser("list the files"),
        ModelReplies((TextBlock("Looking."), ToolCallBlock("c1", "bash", '{"command":"ls"}'))),
        ToolFinishes("c1", ToolSucceeded("a.txt")),
        ModelReplies((TextBlock("One file: a.txt."),)),
    ]
    events = [event for command in program for event in model.apply(command).events]
    assert [json.loads(line) for line in sample.splitlines()] == events


def test_LOG_5_the_tutorials_sample_log_with_its_header_passes_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LOG-5: the sample events under the header line the tutorial gives are a log `loopspec
    check` finds no fault in; pasted without it, check names the header's fields (it said only
    'the first line must be the {"type": "session"} header', then 'session.id must be a
    string' for that line)."""
    header = _fenced("starts with one more line, the session header")
    sample = _fenced("## 2. What the log looks like")
    log = tmp_path / "tutorial.jsonl"
    log.write_text(header + sample, encoding="utf-8")
    assert main(["check", str(log)]) == 0, capsys.readouterr().out
    capsys.readouterr()
    log.write_text(sample, encoding="utf-8")
    assert main(["check", str(log)]) == 2
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"{log}:1: error bad-header LOG-5: ")
    assert all(field in first for field in ('"version"', '"id"', '"createdAt"', '"cwd"'))


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_MODEL_1_the_tutorial_loop_is_conformant(tutorial_loop: Any) -> None:
    """MODEL-1: the loop written from the tutorial passes `loopspec conform`, and replays the
    tutorial's sample program exactly like the model."""
    report = run_conformance(
        tutorial_loop, examples=150, seed_value=BATCH_SEED, show_progress=False
    )
    assert report.conformant, report.divergence and report.divergence.what
    assert report.capabilities == frozenset()
    # Section 4 quotes the count of targeted programs a run of this loop plays after its own.
    played = f"then {report.situation_examples} targeted programs of rare situations"
    assert played in " ".join(TUTORIAL.read_text(encoding="utf-8").split())
    program: list[Command] = [
        SubmitUser("list the files"),
        ModelReplies((TextBlock("Looking."), ToolCallBlock("c1", "bash", '{"command":"ls"}'))),
        ToolFinishes("c1", ToolSucceeded("a.txt")),
        ModelReplies((TextBlock("One file: a.txt."),)),
    ]
    assert replay_case(tutorial_loop, CONFIGS[0], program).divergence is None


def test_MODEL_1_a_slip_in_the_tutorial_loop_is_blamed_on_its_rule(tutorial_loop: Any) -> None:
    """MODEL-1, TEXT-1: a loop that forgets the `Error: ` prefix of an unknown tool's result is
    caught and blamed on TEXT-1, whose wording it gets wrong (it was blamed on EXE-5, whose
    verdict, UNKNOWN_TOOL, it gets right)."""

    def forgetful() -> Any:
        loop = tutorial_loop()
        commit = loop._commit

        def without_prefix(slot: dict[str, Any]) -> None:
            texts, is_error, error = slot["result"]
            slot["result"] = ([t.removeprefix("Error: ") for t in texts], is_error, error)
            commit(slot)

        loop._commit = without_prefix
        return loop

    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", "nope", '{"x": 1}'),)),
    ]
    replay = replay_case(forgetful, CONFIGS[0], program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "TEXT-1", replay.divergence.what


# The shape of the one line conform prints for a loop that raised (docs/tutorial.md section 4).
BROKEN_LINE = re.compile(
    r"loopspec: error: \[PROTO-1\] the target failed in apply: \w+: .+ "
    r"\(at [\w./-]+\.py:\d+, in \w+\); at command #\d+ of a program "
    r"\(call \S+'s tool (succeeds|fails): .+\); "
    r"rerun it: loopspec replay loopspec-cases/case-PROTO-1-\d+\.json --impl \S+"
)
# And below it, the loop's own frames, each its file, line and function, then its code.
BROKEN_FRAMES = re.compile(
    re.escape(TRACEBACK_HEADING) + r'(\n  File "[\w./-]+\.py", line \d+, in \w+\n    \S.*)+'
)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_SAFE_5_the_tutorials_broken_loop_line_is_what_conform_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-5: the line the tutorial shows for a loop that raises, and the loop's frames below
    it, have the shape of what conform prints for the tutorial loop made to raise in
    `_finish`, run from its folder."""
    shown, frames = _fenced("A run can also end with your loop **broken**").strip().split("\n", 1)
    assert BROKEN_LINE.fullmatch(shown), shown
    assert BROKEN_FRAMES.fullmatch(frames), frames
    source = LOOP.read_text(encoding="utf-8")
    # Its frames show the loop's own lines, but the innermost, the line the text says it
    # rewrote (they showed a `self.running` the loop does not have).
    shown_lines = re.findall(r'File "tutorial_loop.py", line (\d+), in \w+\n    (.*)', frames)
    lines = source.splitlines()
    *outer, (innermost, rewritten) = shown_lines
    assert [(number, lines[int(number) - 1].strip()) for number, _ in outer] == outer
    page = " ".join(TUTORIAL.read_text(encoding="utf-8").split())
    assert f"with its line {innermost} written `{rewritten}`" in page, rewritten
    assert lines[int(innermost) - 2].strip().startswith("def _finish("), innermost
    broken = source.replace(
        "    def _finish(self, finished: ToolFinishes) -> str | None:\n",
        "    def _finish(self, finished: ToolFinishes) -> str | None:\n"
        "        raise KeyError(finished.call_id)\n",
    )
    assert broken != source
    (tmp_path / "broken_loop.py").write_text(broken, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["conform", "--impl", "broken_loop:TutorialLoop", "--examples", "20"]) == 2
    printed, frames = capsys.readouterr().err.strip().split("\n", 1)
    assert BROKEN_LINE.fullmatch(printed), printed
    assert "(at broken_loop.py:" in printed
    assert BROKEN_FRAMES.fullmatch(frames), frames
    assert frames.endswith("in _finish\n    raise KeyError(finished.call_id)"), frames


def test_PROTO_1_the_tutorials_hand_written_case_replays_on_the_model_and_the_loop(
    tutorial_loop: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: the case file section 4 shows how to write by hand (to ask the model what it
    does where SPEC.md leaves one unsure) is one `loopspec replay` accepts as written, it asks
    the question its text says (the invalid call's result, after the running one's), and the
    tutorial's loop answers as the model does. No page said how a case file is made."""
    question = tmp_path / "question.json"
    question.write_text(_fenced("asks what a call with invalid input says"), encoding="utf-8")
    assert main(["replay", str(question)]) == 0
    assert main(["replay", str(question), "--impl", "tutorial_loop:TutorialLoop"]) == 0
    # The answer is printed, as the page shows it: the replay said "no divergence" alone.
    printed = capsys.readouterr().out.splitlines()
    page = TUTORIAL.read_text(encoding="utf-8")
    shown = page[page.index("  the model answered, and the target alike:") :].split("```")[0]
    answer = [line for line in shown.splitlines() if line.strip() not in ("", "...")]
    assert answer[0] in printed
    at = printed.index(answer[1])
    assert printed[at : at + len(answer) - 1] == answer[1:]
    # Arguments nested past what json reads are no JSON object to the model (EXE-2): the
    # loop's json.loads raised RecursionError, which `except ValueError` let through, and the
    # replay of such a case said the target failed in apply.
    deep = question.read_text(encoding="utf-8").replace('"{}"', json.dumps("[" * 20_000))
    question.write_text(deep, encoding="utf-8")
    assert main(["replay", str(question), "--impl", "tutorial_loop:TutorialLoop"]) == 0
    question.write_text(_fenced("asks what a call with invalid input says"), encoding="utf-8")
    case = json.loads(question.read_text(encoding="utf-8"))
    model = ModelTarget()
    model.reset(config_from_json(case["config"]))
    events = [e for c in case["commands"] for e in model.apply(command_from_json(c)).events]
    results = [e["data"]["message"]["content"][0] for e in events if e["type"] == "tool/result"]
    assert [(r["toolCallId"], r["content"][0]["text"]) for r in results] == [
        ("c1", "a.txt"),
        ("c2", "Error: invalid input for tool read: missing required 'file_path'"),
    ]


def test_SCHED_1_a_case_running_two_bodies_at_once_is_skipped_on_the_sequential_loop(
    tutorial_loop: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SCHED-1: a case found on a loop declaring `parallel` (two reads running at once under
    maxParallel 10), replayed on the tutorial's loop, which declares none, needs a capability
    that loop does not declare, as the README says such a case is: refused naming the line of
    the reply that starts them (skipped in a folder), where it diverged, blamed on SCHED-1 for
    running one body at a time as conform configures it to."""
    read = {"name": "read", "concurrencySafe": True, "requiredKeys": ["file_path"]}
    path = json.dumps({"file_path": "a.txt"})
    calls = [{"type": "tool-call", "id": c, "name": "read", "arguments": path} for c in "ab"]
    config = {"tools": [read], "hooks": [], "maxParallel": 10, "provider": "scripted",
              "model": "scripted-model", "epochMs": 1700000000000}  # fmt: skip
    commands: list[dict[str, Any]] = [
        {"kind": "SubmitUser", "text": "read both"},
        {"kind": "ModelReplies", "finish": "completed", "blocks": calls},
    ]
    case = {"loopspec": "case", "version": 1, "config": config, "commands": commands}
    saved = tmp_path / "cases" / "parallel.json"
    saved.parent.mkdir()
    saved.write_text(json.dumps(case, indent=1), encoding="utf-8")
    lines = saved.read_text(encoding="utf-8").splitlines()
    reply_line = next(n for n, text in enumerate(lines, 1) if '"ModelReplies"' in text) - 1
    loop = ["--impl", "tutorial_loop:TutorialLoop"]
    assert main(["replay", str(saved), *loop]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: {saved}:{reply_line}: command #2 of the case (ModelReplies) needs "
        "the capability parallel, which tutorial loop does not declare, so the case cannot be "
        "replayed on it (the model runs calls a, b at once under the case's maxParallel 10; "
        "conform configures a loop without parallel with maxParallel 1)\n"
    )
    assert main(["replay", str(saved.parent), *loop]) == 0
    assert f"{saved}:{reply_line}: skipped: command #2" in capsys.readouterr().out
    commands[1]["blocks"] = calls[:1]  # one call: it runs alike, one body at a time
    saved.write_text(json.dumps(case), encoding="utf-8")
    assert main(["replay", str(saved), *loop]) == 0


def test_MODEL_1_a_finish_whose_call_was_cut_is_refused_with_the_rule_the_tutorial_names(
    tutorial_loop: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """MODEL-1: cutting the tutorial's hand-written case down as its text says, a finish whose
    call is gone is refused with EXE-4 while a batch is open (the other call still running)
    and with MODEL-1 when none is (the reply deleted): the tutorial named EXE-4 alone, and a
    reader who deleted the reply saw MODEL-1."""
    text = TUTORIAL.read_text(encoding="utf-8")
    case = json.loads(_fenced("asks what a call with invalid input says"))
    refused_line = "refused by the model (and so by the target): #{} ToolFinishes ({})"
    running = json.loads(json.dumps(case))  # c1 still runs: a finish for a call it never made
    running["commands"][1]["blocks"].append(
        {"type": "tool-call", "id": "c3", "name": "bash", "arguments": '{"command":"pwd"}'}
    )
    running["commands"][2]["callId"] = "c9"
    no_reply = json.loads(json.dumps(case))
    del no_reply["commands"][1]
    for name, edited, said in [
        ("running", running, refused_line.format(3, "EXE-4")),
        ("no-reply", no_reply, refused_line.format(2, "MODEL-1")),
    ]:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(edited), encoding="utf-8")
        assert main(["replay", str(path), "--impl", "tutorial_loop:TutorialLoop"]) == 0
        assert said in capsys.readouterr().out
    quoted = " ".join(text.split())
    assert f'"{refused_line.format(3, "EXE-4")}"' in quoted
    assert "(MODEL-1 when no batch is open for it, as after deleting the reply" in quoted


def _rule_table_statuses() -> set[str]:
    """Every status word `rule_rows` can give a row, read from its source (the literals it
    assigns to `status`, and the not-observable status by its constant)."""
    import ast  # noqa: PLC0415 (only this helper reads source)

    from loopspec.properties.conformance import run  # noqa: PLC0415

    tree = ast.parse(Path(run.__file__).read_text(encoding="utf-8"))
    (table,) = (
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == "rule_rows"
    )
    statuses = {run.NOT_OBSERVABLE_STATUS}
    for node in ast.walk(table):
        if isinstance(node, ast.Assign):
            targets = node.targets[0]
            names = targets.elts if isinstance(targets, ast.Tuple) else [targets]
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for name, value in zip(names, values, strict=False):
                named_status = isinstance(name, ast.Name) and name.id == "status"
                if named_status and isinstance(value, ast.Constant):
                    statuses.add(str(value.value))
    return statuses


def test_MODEL_1_every_status_of_conforms_rule_table_is_explained_in_the_docs() -> None:
    """Each word a row of conform's rule table can read is explained in docs/conform.md, and
    each but VIOLATED and known divergence (a failing run, a profile) in the tutorial's section
    4: neither said what "not reached by the generator" meant, which a run stopped at its first
    counterexample prints for most rules."""
    statuses = _rule_table_statuses()
    assert "not reached by the generator" in statuses
    assert len(statuses) == 7
    # The JSON Schema's enum of a row's status names the same words the code gives.
    assert statuses == set(RULE_STATUSES)
    words = " ".join((ROOT / "docs" / "conform.md").read_text(encoding="utf-8").split())
    assert [status for status in statuses if status not in words] == []
    both = {"rule": "ORD-3", "status": "VIOLATED", "generated": 0, "checked": 0}
    both_words = rule_row_text({**both, "known": ["ORD-3:denied-at-once"]}).split("ORD-3    ")[1]
    assert f"`{both_words}`" in words
    tutorial = " ".join(TUTORIAL.read_text(encoding="utf-8").split())
    first_run = {status.split(" (")[0] for status in statuses} - {"VIOLATED", "known divergence"}
    assert [status for status in first_run if f"*{status}" not in tutorial] == []


@pytest.mark.parametrize(
    ("status", "known", "says"),
    [
        (
            "VIOLATED",
            ["ORD-3:denied-at-once"],
            "VIOLATED, besides the known divergence ORD-3:denied-at-once",
        ),
        ("VIOLATED", ["a", "b"], "VIOLATED, besides the known divergences a, b"),
        ("VIOLATED", [], "VIOLATED"),
        ("known divergence", ["ORD-3:denied-at-once"], "known divergence: ORD-3:denied-at-once"),
    ],
)
def test_ORD_3_a_violated_rule_a_known_divergence_touched_too_says_it_is_not_that_one(
    status: str, known: list[str], says: str
) -> None:
    """ORD-3: under the claude-code profile a counterexample's rule that a known divergence had
    touched read "VIOLATED: ORD-3:denied-at-once", as if the violation were the known one
    (docs/conform.md quotes the row: the test above)."""
    row = {"rule": "ORD-3", "status": status, "generated": 0, "checked": 9, "known": known}
    if not known:
        del row["known"]
    assert rule_row_text(row) == f"  ORD-3    {says} (checked x9)"


def test_PROTO_1_the_tutorials_protocol_summary_names_what_ready_requires() -> None:
    """PROTO-1: section 6's one-line summary of the driver protocol names each member a `ready`
    (and an `observed`) answer must carry: it said "`ready` (with the capabilities)", and a
    loop written from it answered without `implementation` and was refused at its first
    message."""
    from loopspec.properties.conformance.driver_protocol import (  # noqa: PLC0415
        protocol_schema,
    )

    answers = protocol_schema()["$defs"]["fromImplementation"]["allOf"]
    (ready,) = (
        answer["then"]
        for answer in answers
        if answer["if"]["properties"]["type"].get("const") == "ready"
    )
    text = TUTORIAL.read_text(encoding="utf-8")
    section = " ".join(text[text.index("## 6. Another language") :].split())
    summary = section[: section.index("`shutdown` → `bye`")]
    assert "`reset` → `ready`" in summary
    named = [member for member in ready["required"] if member != "type"]
    assert named == ["implementation", "capabilities"]
    assert "`implementation`" in summary
    assert "capabilities" in summary
    # And each member an accepted `observed` must carry: a loop written from the summary
    # answered without `seq` and was refused at its first command.
    (observed,) = (
        answer["then"]["allOf"][0]["then"]
        for answer in answers
        if answer["if"]["properties"]["type"].get("const") == "observed"
    )
    assert observed["required"] == ["type", "seq", "accepted", "events", "commits", "executed"]
    assert "`command` → `observed` (the command's `seq` given back, `accepted`," in summary


def test_MODEL_1_the_tutorial_names_every_command_with_its_fields() -> None:
    """MODEL-1: sections 1 and 5 name every command a Python loop is given, and each verdict and
    outcome a command carries, with its fields in order: a loop written from them alone had to
    find `ToolCallBlock`, `HookAnswers`' verdict classes and `HookAudit`'s fields by
    introspection, the docs naming none of them."""
    import typing  # noqa: PLC0415

    import attrs  # noqa: PLC0415

    from loopspec.model import commands  # noqa: PLC0415
    from loopspec.model.messages import ReasoningBlock  # noqa: PLC0415

    carried = (
        commands.PreVerdict,
        commands.PostVerdict,
        commands.ToolOutcome,
        TextBlock | ReasoningBlock | ToolCallBlock,
    )
    classes = [*typing.get_args(commands.Command), commands.HookAudit]
    classes += [member for union in carried for member in typing.get_args(union)]
    text = " ".join(TUTORIAL.read_text(encoding="utf-8").split())
    unnamed = []
    for kind in classes:
        fields = [field.name for field in attrs.fields(kind) if field.name != "extra"]
        spelled = f"`{kind.__name__}({', '.join(fields)})`"
        if spelled not in text:
            unnamed.append(spelled)
    assert not unnamed, unnamed
    # Section 1 names each field of the configuration `reset` gets, with its tools' and hooks'
    # (epoch_ms went unnamed, which a case written by hand holds as epochMs).
    from loopspec.model.config import HookSpec, LoopConfig, ToolSpec  # noqa: PLC0415

    section_1 = text[: text.index("## 2. What the log looks like")]
    fields = [f.name for kind in (LoopConfig, ToolSpec, HookSpec) for f in attrs.fields(kind)]
    assert [name for name in fields if name != "name" and f"`{name}`" not in section_1] == []
