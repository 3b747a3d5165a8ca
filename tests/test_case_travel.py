"""A case file travels further: Omar posts one to a public tracker, gets it back from a Windows
colleague or a mail client, replays one another loopspec wrote, or one that is no case at all.

(tests/test_case_sharing.py covers Alice saving a case and Bob replaying it in another folder.)
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from jsonschema import Draft202012Validator
from node_requirements import Need
from test_blame_matrix import FIRST_USER

import loopspec
from loopspec.model.config import LoopConfig
from loopspec.properties.cli.conform_run import (
    counterexample_lines,
    json_report,
    replay_header,
    with_saved_program,
    write_case_file,
)
from loopspec.properties.cli.main import main
from loopspec.properties.conformance.case_portable import labelled, portable
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError
from loopspec.properties.conformance.run import (
    RunReport,
    TargetError,
    close_factory,
    load_case,
    replay_case,
    resolve_target,
)
from loopspec.properties.pytest_plugin import rerun_command

TURN_5 = FIRST_USER[0]
JS_LOOP = Path(__file__).resolve().parent.parent / "examples" / "js-loop" / "main.mjs"


def _failed_report() -> RunReport:
    """A counterexample report without a search: the TURN-5 program, replayed."""
    replay = replay_case(TURN_5.target, TURN_5.config, list(TURN_5.program))
    assert replay.divergence is not None
    return RunReport("turn-end reason as text", frozenset(), 1, len(TURN_5.program), 0.0,
                     replay.divergence, TURN_5.program, TURN_5.config, {}, {})  # fmt: skip


@pytest.fixture
def omar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Omar's project folder, inside his home folder, as the working directory."""
    home = tmp_path / "home" / "omar"
    project = home / "work" / "loop"
    project.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    return project


def test_SAFE_1_a_saved_case_names_neither_omar_s_folders_nor_his_secrets(omar: Path) -> None:
    """SAFE-1: a case is made for a public bug report, and replay never runs the target it
    records: the `--cmd` it records, and a broken target's error line that repeats it, held
    the working folder's and the home folder's absolute paths (the user's name) and the value
    of an API_TOKEN=... word, which a replayer does not need. A path in the working folder is
    written from it (./), one elsewhere in the home folder from ~, a secret's value hidden."""
    home = omar.parent.parent
    cmd = f"env API_TOKEN=s3cret MODE=fast node {omar}/loop.mjs --config {home}/loop.json"
    portable = "env API_TOKEN=<hidden> MODE=fast node ./loop.mjs --config ~/loop.json"
    saved = write_case_file(_failed_report(), omar / "cases", {"cmd": cmd})
    broke = TargetError(
        f"the target failed in apply: {cmd}: the process ended its output\nstderr: {home}",
        config=TURN_5.config,
        program=TURN_5.program,
    )
    with_saved_program(broke, omar / "cases", {"cmd": cmd}, None)
    broken = next((omar / "cases").glob("case-PROTO-1-*.json"))
    for case in (saved, broken):
        text = case.read_text(encoding="utf-8")
        assert "s3cret" not in text
        assert "omar" not in text
        assert json.loads(text)["target"] == {"cmd": portable}
    what = json.loads(broken.read_text(encoding="utf-8"))["what"]
    assert what == f"the target failed in apply: {portable}: the process ended its output"
    # Replayed with the command typed as before, in the same folder: the recorded one.
    header = replay_header(str(saved), {"cmd": cmd}, load_case(saved), profile_note=None)
    assert header[1] == (
        f"  the case was found on --cmd {shlex.quote(portable)}, the same command as this replay's"
    )


def _windows_copy(case: Path, destination: Path) -> None:
    """`case` as a Windows colleague sends it back: re-indented with its keys sorted, CRLF line
    ends, saved by PowerShell 5's `>` (UTF-16 with a byte order mark)."""
    document = json.loads(case.read_text(encoding="utf-8"))
    text = json.dumps(document, indent=4, sort_keys=True).replace("\n", "\r\n")
    destination.write_bytes(text.encode("utf-16"))


def test_SAFE_1_a_path_up_from_the_working_folder_is_written_as_typed_from_it(omar: Path) -> None:
    """SAFE-1: `--cmd "node $PWD/../jsloop/main.mjs"` was recorded `node ./../jsloop/main.mjs`
    (the working folder written `.` and the rest kept): a reader, and a colleague pasting the
    rerun line, sees the path as it is typed from there, `../jsloop/main.mjs`."""
    assert portable(f"node {omar}/../jsloop/main.mjs") == "node ../jsloop/main.mjs"
    assert portable(f"node {omar}/.. {omar}/./x.mjs") == "node .. ./x.mjs"


def test_PROTO_1_a_case_saved_again_on_windows_as_utf16_replays(
    omar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a case written back by Windows PowerShell 5 (`>`, `Out-File`) is UTF-16 with a
    byte order mark; replay refused it ("not UTF-8 text: byte 0xff"). It replays as the
    original does, and a fault in it names its line."""
    saved = write_case_file(_failed_report(), omar, {"impl": "mine:make"})
    copy = omar / "bug-1234.json"
    _windows_copy(saved, copy)
    bundled = ["--bundled"]  # the case records another target (SAFE-1)
    assert main(["replay", str(copy), *bundled]) == main(["replay", str(saved), *bundled]) == 0
    capsys.readouterr()
    document = json.loads(saved.read_text(encoding="utf-8"))
    del document["commands"][1]["finish"]
    saved.write_text(json.dumps(document), encoding="utf-8")
    _windows_copy(saved, copy)
    lines = json.dumps(document, indent=4, sort_keys=True).splitlines()
    # The reply's keys sorted, its opening brace is the line above its "blocks".
    start = next(n for n, line in enumerate(lines, 1) if '"blocks"' in line) - 1
    assert lines[start - 1].strip() == "{"
    assert main(["replay", str(copy), "--bundled"]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: [PROTO-1] {copy}:{start}: $.commands[1].finish is missing; "
        "it must be a string\n"
    )


def test_PROTO_1_a_packed_case_is_refused_saying_how_to_unpack_it(
    omar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a case a tracker or a mail client gzipped was refused as "not UTF-8 text: byte
    0x8b ... save it as UTF-8", advice that does not fit. It is refused naming the packing and
    the command that unpacks it, without a tag (no rule states a case file's encoding)."""
    saved = write_case_file(_failed_report(), omar, {"impl": "mine:make"})
    packed = omar / "bug-1234.json.gz"
    packed.write_bytes(gzip.compress(saved.read_bytes()))
    assert main(["replay", str(packed)]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: {packed}: the case file is gzip-compressed, not JSON text: unpack "
        f"it (gunzip -c {packed} > case.json) or replay <(gunzip -c {packed})\n"
    )


def test_PROTO_1_a_case_from_another_loopspec_says_which_one_wrote_it(
    omar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a case records the loopspec that wrote it, and replay said it nowhere: a
    verdict unlike the recorded one could be the versions', not the loop's. Replay names both
    versions; and a rule this loopspec does not know, in a case a newer one wrote, names the
    version to replay it with (it said only "no rule of this loopspec's SPEC.md")."""
    saved = write_case_file(_failed_report(), omar, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    document["loopspecVersion"] = "0.0.9"
    saved.write_text(json.dumps(document, indent=2), encoding="utf-8")
    assert main(["replay", str(saved), "--bundled"]) == 0
    assert (
        f"  written by loopspec 0.0.9; this is loopspec {loopspec.__version__} (its rules may "
        "differ: replay with that version to see the case as it was found)\n"
    ) in capsys.readouterr().out
    document.update(loopspecVersion="9.1", rule="LEASE-1")
    saved.write_text(json.dumps(document, indent=2), encoding="utf-8")
    rule_line = saved.read_text(encoding="utf-8").splitlines().index('  "rule": "LEASE-1",') + 1
    assert main(["replay", str(saved), "--bundled"]) == 2
    assert capsys.readouterr().err == (
        f'loopspec: error: {saved}:{rule_line}: $.rule is "LEASE-1", which is no rule of this '
        "loopspec's SPEC.md; the case was written by loopspec 9.1: replay it with that version "
        f"(this is {loopspec.__version__})\n"
    )


# A case as loopspec's first `conform` wrote it (November 2026): no loopspecVersion, no
# capabilities; written by hand here from that version's case_document.
FIRST_CONFORM_S_CASE = {
    "loopspec": "case",
    "version": 1,
    "target": {"cmd": "node loop.mjs"},
    "rule": "EXE-5",
    "what": "the result of call c1 differs",
    "config": {
        "tools": [{"name": "read", "concurrencySafe": True, "requiredKeys": ["file_path"]}],
        "hooks": [
            {"handlerId": "guard", "point": "PreToolUse", "matcher": "", "dialect": "claude-code"}
        ],
        "maxParallel": 10,
        "provider": "scripted",
        "model": "scripted-model",
        "epochMs": 1700000000000,
    },
    "commands": [
        {"kind": "SubmitUser", "text": "read it"},
        {
            "kind": "ModelReplies",
            "finish": "completed",
            "blocks": [{"type": "tool-call", "id": "c1", "name": "nope", "arguments": "[]"}],
        },
    ],
}


def test_PROTO_1_a_case_the_first_conform_wrote_still_replays(
    omar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a case saved by loopspec's first conform, before cases recorded the loopspec
    that wrote them and the target's capabilities, is read by today's replay as it was written:
    the format's version is still 1, so a member made required since would strand every case
    already attached to a bug report."""
    old = omar / "from-november.json"
    old.write_text(json.dumps(FIRST_CONFORM_S_CASE, indent=2), encoding="utf-8")
    assert main(["replay", str(old), "--bundled"]) == 0
    out = capsys.readouterr().out
    assert f"{old}: 2 commands replayed, no divergence on loopspec's bundled " in out
    assert "written by loopspec" not in out  # nothing recorded to compare with
    # `loopspec schema case`, which a colleague checks a case with, takes it too.
    assert main(["schema", "case"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert list(Draft202012Validator(schema).iter_errors(FIRST_CONFORM_S_CASE)) == []


@pytest.mark.parametrize(
    ("document", "said"),
    [
        (
            {"turns": [{"user": "hi", "replies": []}], "tools": []},
            "this is a scenario: `loopspec run SCENARIO --hooks SETTINGS` runs it, --harness "
            "claude-code or codex in that CLI",
        ),
        (
            {"hooks": {"PreToolUse": []}},
            "this reads as a hooks settings file: `loopspec run SCENARIO --hooks SETTINGS` "
            "runs those hooks",
        ),
        (
            {"format": "loopspec-conform/1", "divergence": {"case": "cases/case-ADJ-4-0.json"}},
            "this is the report `loopspec conform --format json` writes: the case it saved is "
            "cases/case-ADJ-4-0.json, named from the folder conform ran in: replay that file",
        ),
        (
            # A divergence whose case was not saved (--no-save): no replay, but no pass either.
            {"format": "loopspec-conform/1", "divergence": {"rule": "ADJ-4", "case": None}},
            "this is the report `loopspec conform --format json` writes: it found a divergence "
            "(ADJ-4) but saved no case",
        ),
        (
            {"format": "loopspec-conform/1", "divergence": None},
            "this is the report `loopspec conform --format json` writes: it found no "
            "divergence and saved no case",
        ),
        (
            {"format": "loopspec-replay/1", "case": "alice-case.json", "diverges": True},
            "this is the report `loopspec replay --format json` writes of alice-case.json: "
            "replay that file",
        ),
        (
            {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "case file"},
            "this is a JSON Schema, as `loopspec schema` prints one, not a case",
        ),
        (
            {"type": "turn/start", "seq": 0, "time": 1700000000000, "data": {"turn": 1}},
            "this is one line of a session log or transcript: `loopspec check` reads a log",
        ),
    ],
    ids=[
        "scenario",
        "settings",
        "conform-report",
        "conform-report-unsaved",
        "conform-report-passed",
        "replay-report",
        "schema",
        "log-line",
    ],
)
def test_PROTO_1_a_run_input_sent_as_a_case_says_what_reads_it(
    omar: Path, capsys: pytest.CaptureFixture[str], document: dict[str, object], said: str
) -> None:
    """PROTO-1: a hook bug found with `loopspec run --harness claude-code` travels as its
    scenario and hooks settings (run writes no case); replayed, either was told only that
    `$.loopspec` is missing. So were a conform or replay report (`--format json`) attached to
    a bug in its case's place, a JSON Schema and a log's line. The error says what the file is
    and which command reads it (or where its case is)."""
    shared = omar / "hooks-bug.json"
    shared.write_text(json.dumps(document), encoding="utf-8")
    assert main(["replay", str(shared)]) == 2
    assert capsys.readouterr().err == (
        f'loopspec: error: {shared}:1: $.loopspec is missing; a case file has "case" there '
        f"({said})\n"
    )


def turn_end_reason_as_text() -> object:
    """An `--impl` factory: the model, writing turn/end reasons as bare strings (TURN-5)."""
    return TURN_5.target()


def test_PROTO_1_a_case_cut_down_by_hand_names_a_command_left_answering_nothing(
    omar: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: Omar deletes commands to find the smallest failing case. A deletion that
    leaves a command answering nothing (a ToolFinishes whose call is gone) makes it a command
    both sides refuse, which tests nothing: a passing replay named it, a diverging one did not,
    so the case looked minimal with a dead command in it. Both name it, with the rule. The
    program still ends a turn, the situation TURN-5 governs (the buggy loop still breaks it),
    so a loop that passes it keeps TURN-5: it passes (exit 0), as conform's own case passes
    once the loop is fixed when it holds a command conform sent for both sides to refuse (its
    shrinking cut short by --max-seconds), which was refused as cut by hand (exit 2)."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    saved = write_case_file(_failed_report(), omar, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    orphan = {"kind": "ToolFinishes", "callId": "c1", "outcome": {"ok": True, "text": "A"}}
    document["commands"].insert(1, orphan)
    saved.write_text(json.dumps(document, indent=2), encoding="utf-8")
    # At its line in the file (the `{` opening it), where the person cutting it deletes it.
    line = saved.read_text(encoding="utf-8").splitlines().index('      "kind": "ToolFinishes",')
    said = (
        "  refused by the model (and so by the target): "
        f"#2 ToolFinishes (MODEL-1) at {saved}:{line}\n"
    )
    assert main(["replay", str(saved), "--impl", "test_case_travel:turn_end_reason_as_text"]) == 1
    out = capsys.readouterr().out
    assert said in out
    assert out.index(said) < out.index("  rule TURN-5: ")
    assert main(["replay", str(saved), "--bundled"]) == 0
    out, err = capsys.readouterr()
    assert f"{saved}: 3 commands replayed, no divergence " in out
    assert said in out
    assert err == ""


def test_PROTO_1_a_case_cut_by_hand_to_a_refused_command_is_no_valid_program(
    omar: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: Omar deletes the first command of his TURN-5 case, the prompt: the reply left
    is refused by the model (no turn asked for it) and by his loop, which still has the bug,
    and replay said `passes now (the case recorded TURN-5)`, exit 0. It names the command the
    model refuses and why, exit 2, in a folder of cases too. A case whose bug is that refusal
    (its rule the one the case records, or MODEL-3's) still passes once the loop is fixed."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    saved = write_case_file(_failed_report(), omar, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    del document["commands"][0]
    saved.write_text(json.dumps(document, indent=2), encoding="utf-8")
    buggy = "test_case_travel:turn_end_reason_as_text"
    assert main(["replay", str(saved), "--impl", buggy]) == 2
    out, err = capsys.readouterr()
    assert "passes now" not in out
    assert err == (
        f"loopspec: error: [MODEL-1] {saved}:51: not a valid program at command #1 "
        "(ModelReplies): the model refuses it there (ModelReplies in phase Idle: ModelReplies "
        "is not accepted in phase Idle), so the replay's pass says nothing of TURN-5, the rule "
        "the case recorded: a command both sides refuse tests nothing, as one a cut left "
        "answering nothing (the reply that made its call, or its turn, deleted); put back what "
        "it answers, or take it out too\n"
    )
    assert main(["replay", str(omar), "--impl", buggy]) == 2
    assert "1 unusable" in capsys.readouterr().out
    for recorded in ("MODEL-1", "MODEL-3"):
        document["rule"] = recorded
        saved.write_text(json.dumps(document, indent=2), encoding="utf-8")
        assert main(["replay", str(saved), "--impl", buggy]) == 0
        assert f"passes now (the case recorded {recorded})" in capsys.readouterr().out


_READ = {"name": "read", "concurrencySafe": True, "requiredKeys": ["file_path"]}
_READ_CALL = {"type": "tool-call", "name": "read", "arguments": '{"file_path":""}'}


def _finishes(call_id: str, contexts: list[str]) -> dict[str, object]:
    outcome = {"ok": True, "text": "", "contexts": contexts}
    return {"kind": "ToolFinishes", "callId": call_id, "outcome": outcome, "post": []}


# Programs conform found on wrong loops (session 34, a JS loop and a Python one): the later
# call's denial committed before the earlier call's result, an empty context delivered.
_ORD_3_BY_A_DENIAL = (
    {"tools": [_READ], "maxParallel": 1, "hooks": [
        {"handlerId": "late", "point": "PreToolUse", "matcher": ".*", "dialect": "claude-code"}]},
    [{"kind": "SubmitUser", "text": ""},
     {"kind": "ModelReplies", "finish": "completed",
      "blocks": [{**_READ_CALL, "id": "c1"}, {**_READ_CALL, "id": "c2"}]},
     {"kind": "HookAnswers", "verdict": {"decision": "pass"}},
     {"kind": "HookAnswers", "verdict": {"decision": "deny", "reason": ""}}],
)  # fmt: skip
_ADJ_4_BY_AN_EMPTY_CONTEXT = (
    {"tools": [_READ], "maxParallel": 1, "hooks": []},
    [{"kind": "SubmitUser", "text": ""},
     {"kind": "ModelReplies", "finish": "completed", "blocks": [{**_READ_CALL, "id": "c1"}]},
     _finishes("c1", [""])],
)  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "program"),
    [("ORD-3", _ORD_3_BY_A_DENIAL), ("ADJ-4", _ADJ_4_BY_AN_EMPTY_CONTEXT)],
    ids=["ORD-3", "ADJ-4"],
)
def test_ORD_3_ADJ_4_a_case_holding_a_refused_command_passes_when_its_program_shows_the_rule(
    omar: Path,
    capsys: pytest.CaptureFixture[str],
    rule: str,
    program: tuple[dict[str, object], list[dict[str, object]]],
) -> None:
    """ORD-3, ADJ-4: Alice's case of a loop committing a later call's denial before an earlier
    call's result (ORD-3), or delivering an empty context (ADJ-4), with a finish she added for
    a call no reply made: replayed on a loop that does what the model does, it was refused as
    no valid program (exit 2, "the replay's pass says nothing of ORD-3"), since neither was
    counted as its rule's situation (only bodies finishing out of order, only a non-empty
    context). Its pass says the rule was kept, naming the refused command."""
    config, commands = program
    scripted = {"provider": "scripted", "model": "scripted-model", "epochMs": 1700000000000}
    case = {"loopspec": "case", "version": 1, "rule": rule, "config": {**config, **scripted},
            "commands": [*commands, _finishes("c9", [])]}  # fmt: skip
    saved = omar / "alice-case.json"
    saved.write_text(json.dumps(case, indent=2), encoding="utf-8")
    assert main(["replay", str(saved)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert f"passes now (the case recorded {rule})\n" in out
    assert f"refused by the model (and so by the target): #{len(commands) + 1} ToolFinishes" in out


def test_ORD_3_a_hand_cut_taking_the_rule_s_situation_away_passes_saying_so(
    omar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ORD-3: Alice cuts her ORD-3 case's last command, the denial committed too early: no
    command is refused, and her loop, still broken, "passed now (the case recorded ORD-3)",
    exit 0, the cut having taken away what showed the bug. The pass says this program no
    longer sets ORD-3 up, still exit 0 (the program is valid, and the loop did what the model
    does with it), in text and in JSON; the whole case still "passes now" once fixed."""
    config, commands = _ORD_3_BY_A_DENIAL
    scripted = {"provider": "scripted", "model": "scripted-model", "epochMs": 1700000000000}
    case = {"loopspec": "case", "version": 1, "rule": "ORD-3", "config": {**config, **scripted},
            "commands": commands[:-1]}  # fmt: skip
    saved = omar / "alice-case.json"
    saved.write_text(json.dumps(case, indent=2), encoding="utf-8")
    assert main(["replay", str(saved)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "passes now" not in out
    assert out.splitlines()[-2:] == [
        f"{saved}: 3 commands replayed, no divergence: passes, but this program no longer sets "
        "up ORD-3, the rule the case recorded",
        "  no command the model takes creates the situation ORD-3 governs, so this pass says "
        "nothing of ORD-3: a loop that still breaks it passes too. A hand cut may have taken "
        "the situation away: replay the case as it was saved (`loopspec spec ORD-3` says what "
        "the rule governs)",
    ]
    assert main(["replay", str(saved), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["recordedRuleUnreached"] is True
    saved.write_text(json.dumps({**case, "commands": commands}), encoding="utf-8")
    assert main(["replay", str(saved), "--format", "json"]) == 0
    assert "recordedRuleUnreached" not in json.loads(capsys.readouterr().out)


@pytest.mark.needs(Need.NODE)
def test_SAFE_1_replay_json_for_a_tracker_names_neither_omar_s_folders_nor_his_secrets(
    omar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: the `loopspec-replay/1` document is meant for a bug tracker, and held the case's
    path and the `--cmd` replayed as typed: the home folder's path and an API_TOKEN's value.
    Both are written as a saved case writes its target."""
    saved = write_case_file(_failed_report(), omar / "cases", {"impl": "mine:make"})
    (omar / "loop.py").write_text(
        f"import os\nos.execvp('node', ['node', {str(JS_LOOP)!r}])\n", encoding="utf-8"
    )
    cmd = f"env API_TOKEN=s3cret {shlex.quote(sys.executable)} {omar}/loop.py"
    assert main(["replay", str(saved), "--cmd", cmd, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["case"] == f"./cases/{saved.name}"
    # A path outside both folders as typed, as conform's document has it: a CI step passes
    # that on to replay's --cmd, which refuses `<path>`.
    python = portable(shlex.quote(sys.executable))
    assert document["target"] == f"env API_TOKEN=<hidden> {python} ./loop.py"


def test_SAFE_1_a_case_path_from_home_as_replay_s_document_writes_it_replays(
    omar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: replay's JSON document writes a case in the home folder from `~`
    (`~/Downloads/alice-case.json`), and `loopspec replay "$(jq -r .case replay.json)"` was
    refused, 'no such file or directory': a `~` a shell does not expand (quoted, or not at a
    word's start) is the home folder, as in a --cmd and the plugin's --loopspec-cases."""
    downloads = omar.parents[1] / "Downloads"
    saved = write_case_file(_failed_report(), downloads, {})  # found on the bundled loop
    assert main(["replay", str(saved), "--format", "json"]) == 0
    named = json.loads(capsys.readouterr().out)["case"]
    assert named == f"~/Downloads/{saved.name}"
    assert main(["replay", named]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert f"{saved}: 2 commands replayed, no divergence: passes now" in out


def test_SAFE_4_a_case_named_as_a_fifo_says_replay_waits_for_its_writer(
    omar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-4: a FIFO named as the case is read as `cat` reads one (`replay <(gunzip -c F)`
    must work), so with no writer replay waits; it waited without a word until killed. It
    says on stderr that it waits, then replays what the writer sends."""
    saved = write_case_file(_failed_report(), omar, {"impl": "mine:make"})
    fifo = omar / "case.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(saved.read_bytes()), daemon=True)
    writer.start()
    try:
        assert main(["replay", str(fifo), "--bundled"]) == 0
    finally:
        writer.join(timeout=10)
    assert capsys.readouterr().err == (
        f"loopspec replay: {fifo} is a FIFO: reading the case waits for its writer (Ctrl-C stops)\n"
    )


def test_PROTO_1_replay_reduce_cuts_a_hand_written_case_down_and_saves_it_beside(
    omar: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: Omar writes a case by hand from a bug report, longer than it needs to be;
    conform cuts down what it finds, but a hand-written case could only be cut by hand,
    replaying after each deletion. `replay --reduce` cuts a diverging case as conform does and
    saves it beside the original under a new name, the original untouched."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    folder = omar / "bug-1234"
    saved = write_case_file(_failed_report(), folder, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    document["commands"] += [
        {"kind": "SubmitUser", "text": "again"},
        {"kind": "ModelReplies", "blocks": [], "finish": "completed"},
    ]
    written = folder / "from-the-report.json"
    written.write_text(json.dumps(document, indent=2), encoding="utf-8")
    saved.unlink()
    impl = ["--impl", "test_case_travel:turn_end_reason_as_text"]
    assert main(["replay", str(written), *impl, "--reduce"]) == 1
    reduced = folder / "case-TURN-5-0.json"
    last = capsys.readouterr().out.splitlines()[-1]
    said = r"reduced: 2 of 4 commands still diverge on TURN-5 \(\d+ replays\); saved as (.*)"
    matched = re.fullmatch(said, last)
    assert matched is not None, last
    assert matched[1] == str(reduced)
    cut_down = json.loads(reduced.read_text(encoding="utf-8"))
    cut = cut_down["commands"]
    assert [command["kind"] for command in cut] == ["SubmitUser", "ModelReplies"]
    # It diverges on the loop it was cut on, and says so: it recorded mine:make, the case's
    # target, beside what test_case_travel's loop declared, and a summary naming the first.
    assert cut_down["target"] == {"impl": "test_case_travel:turn_end_reason_as_text"}
    replay_line = "`loopspec replay CASE --impl test_case_travel:turn_end_reason_as_text`"
    assert replay_line in cut_down["summary"]
    assert json.loads(written.read_text(encoding="utf-8")) == document
    assert main(["replay", str(folder), "--reduce"]) == 2
    assert capsys.readouterr().err == "loopspec: error: --reduce takes one case file\n"


# A driver-protocol process that answers `reset` and ends at the first command: a target that
# breaks at once, so conform saves the program and says how to rerun it.
_BREAKS_AT_ONCE = """
import json, sys
for line in sys.stdin:
    if json.loads(line)["type"] != "reset":
        sys.exit(3)
    print(json.dumps({"type": "ready", "implementation": "breaks", "capabilities": []}), flush=True)
"""


def test_SAFE_1_conform_s_console_names_a_cmd_as_the_case_records_it(
    omar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: a case hid an API_TOKEN=... value, but conform's console printed the `--cmd` as
    typed in its `rerun:` line, its report's first line and a broken target's error, all of
    which land in CI logs; replay's header and the pytest plugin's rerun line did too. Each
    names the command as the case records it, and a rerun line says to put the secret back,
    in its label (`rerun (with each <hidden> put back ...): loopspec replay ...`): said after
    the command, it made the line, copied from its colon on, a shell syntax error."""
    (omar / "loop.py").write_text(_BREAKS_AT_ONCE, encoding="utf-8")
    cmd = f"env API_TOKEN=s3cret {shlex.quote(sys.executable)} {omar}/loop.py"
    recorded = f"env API_TOKEN=<hidden> {shlex.quote(sys.executable)} ./loop.py"
    put_back = " (with each <hidden> put back as the secret it stands for)"
    assert main(["conform", "--cmd", cmd, "--case-dir", "cases", "--examples", "1"]) == 2
    err = capsys.readouterr().err
    assert "s3cret" not in err
    assert f"the target failed in apply: {recorded}: " in err
    broken = next((omar / "cases").glob("case-PROTO-1-*.json"))
    rerun = f"loopspec replay cases/{broken.name} --cmd {shlex.quote(recorded)}"
    assert f"rerun it{put_back}: {rerun}\n" in err
    # A counterexample's report, text and JSON.
    saved = write_case_file(_failed_report(), omar / "cases", {"cmd": cmd})
    text = "\n".join(counterexample_lines(_failed_report(), saved, {"cmd": cmd}))
    assert "s3cret" not in text
    assert f"rerun{put_back}: loopspec replay {saved} --cmd {shlex.quote(recorded)}" in text
    document = json_report(_failed_report(), saved, {"cmd": cmd})
    assert (
        document["divergence"]["replay"] == f"loopspec replay {saved} --cmd {shlex.quote(recorded)}"
    )
    # Replay's header; the name reports and errors give a --cmd target.
    header = replay_header(str(saved), {"cmd": cmd}, load_case(saved), profile_note=None)
    assert header[0] == f"{saved}: replaying against {recorded}"
    factory, _ = resolve_target(None, cmd)
    try:
        assert factory().name == recorded
    finally:
        close_factory(factory)
    # The pytest plugin's line that replays a case alone.
    options = {"--loopspec-cmd": cmd, "--loopspec-answer-timeout": None}
    config = SimpleNamespace(getoption=options.get, rootpath=omar)
    line = rerun_command(cast("pytest.Config", config), saved)
    named = f"cases/{saved.name}"
    argv = ["pytest", named, f"--loopspec-cmd={recorded}"]
    assert line == shlex.join(argv)
    # The note is in the label: a line copied whole from its colon on was a shell syntax
    # error at the note's `(`, after the command.
    for copied in (rerun, line):
        labelled_line = labelled("rerun", copied)
        assert labelled_line.startswith(f"rerun{put_back}: ")
        pasted = labelled_line.split(": ", 1)[1]
        assert subprocess.run(["sh", "-n", "-c", pasted], check=False).returncode == 0


@pytest.mark.parametrize(
    "tail",
    [
        # A word starting `~`: conform splits --cmd itself, with no shell to expand it, so
        # `python ~/work/loop/loop.py` ran literally and never reached the loop.
        "{python} ~/work/loop/loop.py",
        # A `~` after `=` or `:` (`PYTHONPATH=~/work/loop`), as a shell expands in NAME=VALUE:
        # only a word starting `~` was expanded, and `python -m loop` found no module.
        "env PYTHONPATH=/nowhere:~/work/loop {python} -m loop",
    ],
    ids=["word-starts-with-tilde", "tilde-after-equals-or-colon"],
)
def test_SAFE_1_a_rerun_line_naming_a_path_from_home_starts_the_same_target(
    omar: Path, capsys: pytest.CaptureFixture[str], tail: str
) -> None:
    """SAFE-1: the console and a case show a `--cmd` path under the home folder from `~`, at
    the start of a word or inside one (`PYTHONPATH=~/work/loop`, `--config=~/c.json`): the
    rerun line, pasted as printed from another folder, must start the same target."""
    (omar / "loop.py").write_text(_BREAKS_AT_ONCE, encoding="utf-8")
    other = omar.parent / "elsewhere"
    other.mkdir()
    os.chdir(other)
    cmd = tail.format(python=shlex.quote(sys.executable))
    assert main(["conform", "--cmd", cmd, "--case-dir", "cases", "--examples", "1"]) == 2
    err = capsys.readouterr().err
    assert f"the target failed in apply: {cmd}: " in err


def test_SAFE_1_a_command_that_cannot_start_hides_its_secret() -> None:
    """SAFE-1: `API_TOKEN=... node loop.mjs` without `env` cannot start, and the error repeated
    the whole command line, token and all. It says why it cannot, as a shell would have run it,
    and the way that works, the token still left out."""
    target = ProcessTarget("API_TOKEN=s3cret /nonexistent/loop", name="missing")
    with pytest.raises(ProcessTargetError) as refused:
        target.reset(LoopConfig())
    assert refused.value.message == (
        "missing: cannot start API_TOKEN=<hidden>: no such file or directory"
        " (`API_TOKEN=...` sets a variable only in a shell, and this command runs in none:"
        " begin it with `env`, `env API_TOKEN=... PROGRAM ...`)"
    )


def test_PROTO_1_a_variable_set_as_in_a_shell_is_not_taken_for_a_relative_path() -> None:
    """PROTO-1: `PYTHONPATH=src/lib python3 loop.py` fails because no shell reads the assignment,
    not because a program `PYTHONPATH=src/lib` is missing from the current folder."""
    target = ProcessTarget("PYTHONPATH=src/lib python3 loop.py", name="loop")
    with pytest.raises(ProcessTargetError) as refused:
        target.reset(LoopConfig())
    assert "`env PYTHONPATH=... PROGRAM ...`" in refused.value.message
    assert "relative to the current directory" not in refused.value.message


@pytest.mark.parametrize(
    ("recorded", "named"),
    [
        ({"cmd": "env API_TOKEN=<hidden> node ./loop.mjs"}, "--cmd 'env API_TOKEN=<hidden> node"),
        ({"impl": "mine:make"}, "--impl mine:make"),
    ],
    ids=["cmd", "impl"],
)
def test_SAFE_1_replay_naming_no_target_refuses_a_case_found_on_one(
    omar: Path, capsys: pytest.CaptureFixture[str], recorded: dict[str, str], named: str
) -> None:
    """SAFE-1: `replay CASE` without --cmd or --impl ran a case found on another loop on the
    bundled one and passed (exit 0), a note in its verdict line the only sign: a CI step that
    forgot its --cmd stayed green whatever the loop did. It is refused (exit 2) in one line
    naming the recorded target to pass, or --bundled, which replays there as before; a case
    found on the bundled loop (target {}) replays there unasked."""
    saved = write_case_file(_failed_report(), omar / "cases", recorded)
    assert main(["replay", str(saved)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"loopspec: error: {saved}: the case was found on {named}")
    assert "or --bundled to replay on loopspec's bundled implementation" in err
    assert err.count("\n") == 1
    # What to put back belongs to the recorded --cmd, before the copy offered instead (it
    # read "pass that --cmd, each <hidden> put back ..., (or your copy of the loop) to").
    put_back = "--cmd with each <hidden> put back as the secret it stands for (or your copy of"
    assert (put_back in err) is ("cmd" in recorded)
    assert main(["replay", str(saved), "--format", "json"]) == 2
    assert main(["replay", str(omar / "cases")]) == 2  # a folder of cases: that one unusable
    assert "cannot be used (the error is on stderr)" in capsys.readouterr().out
    assert main(["replay", str(saved), "--bundled"]) == 0
    said = "no divergence on loopspec's bundled implementation (not the recorded target)"
    assert said in capsys.readouterr().out
    found_on_the_bundled_loop = write_case_file(_failed_report(), omar / "bundled", {})
    assert main(["replay", str(found_on_the_bundled_loop)]) == 0


def test_SAFE_1_a_case_keeps_only_the_last_name_of_a_path_outside_home_and_folder(
    omar: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: Alice's loop lies outside her home and the folder conform ran in (`--cmd "node
    /srv/alice/loops/main.mjs"`, a share mounted as /Volumes/alice-work): the case kept the
    path as typed, her name and her organisation's layout in a file made to be posted. It keeps
    the file's name, `<path>/main.mjs`; a program in a system `bin` folder stays whole. Her
    console's rerun line still names the path (it runs where she typed it), a replay with a
    command of that file's name may be hers (not "the same target": Bob's was not), and
    `<path>` pasted as a --cmd is refused before it starts."""
    loops = tmp_path / "srv" / "alice" / "loops"
    cmd = f"/usr/bin/env node {loops}/main.mjs --log /dev/null"
    recorded = "/usr/bin/env node <path>/main.mjs --log /dev/null"
    saved = write_case_file(_failed_report(), omar / "cases", {"cmd": cmd})
    text = saved.read_text(encoding="utf-8")
    assert "alice" not in text
    assert str(tmp_path) not in text
    document = json.loads(text)
    assert document["target"] == {"cmd": recorded}
    assert "each <path> put back as the folder it stands for" in document["summary"]
    lines = "\n".join(counterexample_lines(_failed_report(), saved, {"cmd": cmd}))
    assert f"rerun: loopspec replay {saved} --cmd {shlex.quote(cmd)}" in lines
    # Her own command, Bob's /opt/bob/main.mjs or his copy in his own folder (it was "not
    # this replay's command", "as conform was given it"): the case cannot tell which is its loop.
    bobs = "/usr/bin/env node /opt/bob/main.mjs --log /dev/null"
    bobs_here = "/usr/bin/env node mine/main.mjs --log /dev/null"
    for typed in (cmd, bobs, bobs_here):
        header = replay_header(str(saved), {"cmd": typed}, load_case(saved), profile_note=None)
        assert header[1] == (
            f"  the case was found on --cmd {shlex.quote(recorded)}, which may be this replay's "
            "command: the case keeps no folder of a path outside the one conform ran in and the "
            f"home folder (<path>), so the program runs on {typed} as given"
        )
    assert main(["replay", str(saved), "--cmd", recorded]) == 2
    assert capsys.readouterr().err == (
        "loopspec: error: --cmd holds <path>, which a case writes in place of the "
        "folders of a path outside the folder conform ran in and the home folder: write where "
        "that file is on this machine\n"
    )
    assert main(["replay", str(saved)]) == 2
    assert "pass that --cmd with each <path> put back as the folder it stands for (or" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["replay", "case.json", "--bundled", "--examples", "5"],
            "loopspec: error: unrecognized arguments: --examples 5 (--examples is "
            "conform's option: replay runs the case's own program as it stands, where conform "
            "draws new programs)",
        ),
        (
            ["conform", "--reduce"],
            "loopspec: error: unrecognized arguments: --reduce (--reduce is replay's "
            "option: conform cuts its counterexamples down itself)",
        ),
        (
            # A colleague's case given to conform, as if it replayed one.
            ["conform", "alice case.json", "--impl", "mine:make"],
            "loopspec: error: unrecognized arguments: alice case.json (conform takes no file: "
            "it draws programs of its own; loopspec replay (a case file) reads it: loopspec "
            "replay 'alice case.json')",
        ),
        (
            # The loop's own script given to conform: replay would refuse it as no case.
            ["conform", "main.mjs"],
            "loopspec: error: unrecognized arguments: main.mjs (conform takes no file: it "
            "draws programs of its own and runs the loop named by --cmd 'COMMAND' or --impl "
            "MODULE:FACTORY)",
        ),
    ],
    ids=["examples-to-replay", "reduce-to-conform", "case-to-conform", "script-to-conform"],
)
def test_PROTO_1_an_option_of_conform_given_to_replay_says_whose_it_is(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: list[str],
    said: str,
) -> None:
    """PROTO-1: Carol, who had learnt conform, asked replay for `--examples 5` and was told
    only "unrecognized arguments: --examples 5", as if replay could draw more programs under
    another name. The error says whose option it is and what replay does instead; and a case
    file given to conform, which named the file alone, says which verb reads it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "alice case.json").write_text('{"loopspec": "case"}', encoding="utf-8")
    (tmp_path / "main.mjs").write_text("// the loop\n", encoding="utf-8")
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == said


def test_PROTO_1_the_conform_page_names_every_member_a_saved_case_holds(omar: Path) -> None:
    """PROTO-1: Carol reads a case by eye with docs/conform.md's "Sharing a case" beside it: the
    section named what the program was and the members around it, but not `loopspec`,
    `version`, `config`, `commands` or `profile`, which the file holds too."""
    saved = write_case_file(_failed_report(), omar, {"impl": "mine:make"})
    members = {*json.loads(saved.read_text(encoding="utf-8")), "profile"}
    page = (Path(__file__).parent.parent / "docs" / "conform.md").read_text(encoding="utf-8")
    opening = page.split("## Sharing a case\n\n", 1)[1].split("\n\n", 1)[0]
    assert [member for member in sorted(members) if f"`{member}`" not in opening] == []
