"""A case file travels: Alice's `conform` saves it, Bob replays it in another folder.

What Bob reads must stand on its own: the report's diff reads as one indented block, the case
says which loopspec wrote it and what the target declared, replay says which profile it applied
and why, and an error in a hand-edited case names the file, the line and the rule.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest
from jsonschema import Draft202012Validator
from test_blame_matrix import FIRST_USER

import loopspec
from loopspec.model.json_location import leading_path, line_of
from loopspec.properties.cli import conform as conform_cli
from loopspec.properties.cli.conform_run import (
    counterexample_lines,
    quoted_rule,
    with_saved_program,
    write_case_file,
)
from loopspec.properties.cli.main import main
from loopspec.properties.conformance import process_target
from loopspec.properties.conformance.case_format import BUNDLED_IMPL, CASE_MEMBERS
from loopspec.properties.conformance.case_portable import portable
from loopspec.properties.conformance.case_text import holds_a_case
from loopspec.properties.conformance.command_codec import config_to_json
from loopspec.properties.conformance.compare import Divergence
from loopspec.properties.conformance.run import (
    PYTEST_OPTIONS,
    RunReport,
    TargetError,
    load_case,
    replay_case,
    resolve_target,
)
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles import PROFILES
from loopspec.properties.stateful.strategies import CONFIGS

TURN_5 = FIRST_USER[0]


def turn_end_reason_as_text() -> ModelTarget:
    """An `--impl` factory: the model, writing turn/end reasons as bare strings (TURN-5)."""
    return TURN_5.target()


def _failed_report(capabilities: frozenset[str] = frozenset()) -> RunReport:
    """A counterexample report without a search: the TURN-5 program, replayed."""
    replay = replay_case(TURN_5.target, TURN_5.config, list(TURN_5.program))
    assert replay.divergence is not None
    return RunReport("turn-end reason as text", capabilities, 1, len(TURN_5.program), 0.0,
                     replay.divergence, TURN_5.program, TURN_5.config, {}, {})  # fmt: skip


@pytest.fixture
def here(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make this module importable by `--impl test_case_sharing:...`."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))


def _diff_block(out: str) -> list[str]:
    """The lines of the report from the diff's first header to the SPEC quote."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "--- model")
    end = next(i for i, line in enumerate(lines) if line.strip() == "SPEC.md says:")
    return [line for line in lines[start:end] if line]


def test_MODEL_1_the_replayed_diff_is_indented_as_one_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], here: None
) -> None:
    """MODEL-1: in replay's and conform's reports the diff sits under the rule it illustrates,
    every line indented alike; only its `--- model` header was indented, the rest began at
    column 0."""
    report = _failed_report()
    saved = write_case_file(report, tmp_path, {"impl": "mine:make"})
    assert main(["replay", str(saved), "--impl", "test_case_sharing:turn_end_reason_as_text"]) == 1
    conform_lines = "\n".join(counterexample_lines(report, saved, {"impl": "mine:make"}))
    for out in (capsys.readouterr().out, conform_lines):
        block = _diff_block(out)
        assert block[:2] == ["  --- model", "  +++ target"]
        assert all(line.startswith("  ") for line in block), block


def test_SAFE_1_the_quoted_rule_names_no_loopspec_internals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], here: None
) -> None:
    """SAFE-1: the SPEC text replay's and conform's reports quote is the rule's statement and
    reason, and says where the whole rule is; its Where line named model functions and
    invariants (`records.open_step`, `test_TURN_5_*`) a reader with the report cannot map."""
    report = _failed_report()
    saved = write_case_file(report, tmp_path, {"impl": "mine:make"})
    assert main(["replay", str(saved), "--impl", "test_case_sharing:turn_end_reason_as_text"]) == 1
    conform_lines = "\n".join(counterexample_lines(report, saved, {"impl": "mine:make"}))
    for out in (capsys.readouterr().out, conform_lines):
        quoted = out[out.index("SPEC.md says:") :]
        assert "**Rule.**" in quoted
        assert "**Where.**" not in quoted
        assert "test_TURN_5_" not in quoted
        assert "`loopspec spec TURN-5`" in quoted


def test_SAFE_1_a_quoted_rule_leaves_out_its_where_list_too() -> None:
    """SAFE-1: a long Where is a line and a list of pointers (REC-1's); the quote leaves out the
    list with its line, and keeps the rule's statement and reason."""
    quoted = quoted_rule("REC-1")
    assert "**Rule.**" in quoted
    assert "**Why.**" in quoted
    assert "`impl/clock.py`" not in quoted
    assert "repair_closers_follow_each_other" not in quoted
    assert "`loopspec spec REC-1`" in quoted


def test_PROTO_1_a_new_case_is_numbered_after_its_rule_s_cases_only(tmp_path: Path) -> None:
    """PROTO-1: the first case of a rule saved beside other files is number 0, the next one
    after the highest of that rule's: the folder's every file was counted, so after a
    colleague's ana-ord3.json the first ORD-3 case saved was case-ORD-3-1.json."""
    (tmp_path / "ana-ord3.json").write_text("{}\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("mine\n", encoding="utf-8")
    (tmp_path / "case-TURN-2-7.json").write_text("{}\n", encoding="utf-8")
    first = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    assert first.name == "case-TURN-5-0.json"
    (tmp_path / "case-TURN-5-4.json").write_text("{}\n", encoding="utf-8")
    assert write_case_file(_failed_report(), tmp_path, {"impl": "b:m"}).name == "case-TURN-5-5.json"


DSH_CASE = Path(__file__).parent / "regressions" / "dsh-duplicate-call-ids.json"


@pytest.mark.parametrize(
    ("options", "said", "profiled"),
    [
        ((), "  profile: dsh, as the case names (--profile none compares whole)\n", True),
        (("--profile", "dsh"), "  profile: dsh (--profile, as the case names)\n", True),
        (
            ("--profile", "codex"),
            "  profile: codex (--profile; the case was recorded with dsh)\n",
            True,
        ),
        (
            ("--profile", "none"),
            "  profile: none (--profile; the case was recorded with dsh)\n",
            False,
        ),
    ],
    ids=["the case's", "the same", "another", "none"],
)
def test_PROTO_1_replay_says_which_profile_it_applied_and_why(
    capsys: pytest.CaptureFixture[str], options: tuple[str, ...], said: str, profiled: bool
) -> None:
    """PROTO-1: a profile erases divergences, so replay says which one it applied: the one
    the case names unless `--profile` replaces it (`none` compares whole). It applied the
    case's silently, and `--profile codex` on a dsh case raised no eyebrow."""
    main(["replay", str(DSH_CASE), "--bundled", *options])
    out = capsys.readouterr().out
    assert said in out
    assert ("known divergences shown:" in out) == profiled


def test_PROTO_1_replay_of_a_case_without_a_profile_says_nothing_of_profiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a case recorded without a profile, replayed without one, has no profile line."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    for options in ((), ("--profile", "none")):
        assert main(["replay", str(saved), "--bundled", *options]) == 0
        assert "profile" not in capsys.readouterr().out
    assert main(["replay", str(saved), "--bundled", "--profile", "dsh"]) == 0
    assert "  profile: dsh (--profile; the case names none)\n" in capsys.readouterr().out


def _declared() -> frozenset[str]:
    """What the TURN-5 target declares for the case's configuration."""
    target = turn_end_reason_as_text()
    try:
        return target.reset(TURN_5.config)
    finally:
        target.close()


def test_PROTO_1_a_saved_case_says_which_loopspec_wrote_it_and_what_the_target_declared(
    tmp_path: Path,
) -> None:
    """PROTO-1: a case file stands on its own in a bug report: it names the loopspec version
    that wrote it and the capabilities its target declared (they decide which commands conform
    sent); it named neither, so a colleague on another build could not tell why it differed."""
    capabilities = frozenset({"rewrite", "pre-hooks"})
    saved = write_case_file(_failed_report(capabilities), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    assert document["loopspecVersion"] == loopspec.__version__
    assert document["capabilities"] == ["pre-hooks", "rewrite"]
    assert load_case(saved).capabilities == capabilities


def test_PROTO_1_conform_s_json_names_its_target_as_replay_takes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], here: None
) -> None:
    """PROTO-1: conform's document named an --impl target by the name it gives itself ("model"),
    replay's by its MODULE:FACTORY, so a CI step could not pass conform's `target` to replay's
    --impl, nor see that both documents speak of one loop. Both write MODULE:FACTORY now, and
    conform keeps the name its text report's first line shows as `targetName`."""
    factory = "plugin_targets:declares_nothing"
    run = ["--examples", "1", "--steps", "2", "--format", "json", "--case-dir", str(tmp_path)]
    assert main(["conform", "--impl", factory, *run]) == 0
    conformed = json.loads(capsys.readouterr().out)
    assert (conformed["target"], conformed["targetName"]) == (factory, "model")
    saved = write_case_file(_failed_report(), tmp_path, {"impl": factory})
    assert main(["replay", str(saved), "--impl", conformed["target"], "--format", "json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert (replayed["target"], replayed["sameTarget"]) == (conformed["target"], True)
    said = []  # and the schemas say so in the same words
    for verb, document in (("conform", "ConformDocument"), ("replay", "ReplayDocument")):
        assert main(["schema", verb]) == 0
        schema = json.loads(capsys.readouterr().out)["$defs"][document]
        said.append(schema["properties"]["target"]["description"])
    assert said[0] == said[1]
    assert "as conform's and replay's documents both name it" in said[0]


@pytest.mark.no_cover
def test_SAFE_1_the_json_documents_name_the_bundled_implementation_as_their_docs_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: conform's pydoc showed the bundled implementation's `target` as its factory's
    import path, which no run writes (conform writes "impl (bundled)"); replay wrote "" for
    it, so a CI step comparing the two documents' targets saw two loops. Replay writes conform's
    spelling now, however the bundled implementation was named (no option, --bundled, or
    --impl with its factory), and says it is the target the case records; the pydoc and the
    schema's descriptions say so."""
    run = ["--examples", "1", "--steps", "3", "--format", "json", "--case-dir", str(tmp_path)]
    assert main(["conform", *run]) == 0
    conformed = json.loads(capsys.readouterr().out)["target"]
    assert conformed == "impl (bundled)"
    assert f'"target": "{conformed}",' in (conform_cli.__doc__ or "")
    saved = write_case_file(_failed_report(), tmp_path, {})
    for named in ([], ["--bundled"], ["--impl", BUNDLED_IMPL]):
        assert main(["replay", str(saved), "--format", "json", *named]) == 0
        replayed = json.loads(capsys.readouterr().out)
        assert (replayed["target"], replayed["sameTarget"]) == (conformed, True), named
    assert main(["schema", "replay"]) == 0
    said = json.dumps(json.loads(capsys.readouterr().out))
    assert f"or {conformed} for loopspec's bundled" in said
    assert "empty string" not in said


def test_SAFE_1_a_case_found_on_the_bundled_implementation_replays_there_with_no_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-1: conform without --impl or --cmd recorded its target as
    {"impl": "loopspec.properties.conformance.impl_target:bundled_target"}, so Bob's plain
    `loopspec replay CASE` was refused (exit 2, "pass that --impl ... or --bundled") and with
    --bundled its pass read "not the recorded target". The case records {} now, as the case
    format says, and one saved the earlier way reads as {}: both replay where they were found."""
    _factory, target = resolve_target(None, None)
    assert target == {}
    bundled_note = "loopspec's bundled implementation, the same target as this replay's"
    saved = write_case_file(_failed_report(), tmp_path, target)
    document = json.loads(saved.read_text(encoding="utf-8"))
    assert document["target"] == {}
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({**document, "target": {"impl": BUNDLED_IMPL}}), "utf-8")
    for case in (saved, earlier):
        for named in ([], ["--impl", BUNDLED_IMPL]):
            assert main(["replay", str(case), *named]) == 0
            out = capsys.readouterr().out.splitlines()
            assert out[1] == f"  the case was found on {bundled_note}"
            assert out[-1].endswith("no divergence: passes now (the case recorded TURN-5)")


@pytest.mark.parametrize(
    ("target", "replay"),
    [
        ({"impl": "mine:make"}, "`loopspec replay CASE --impl mine:make`, CASE this file and the "
         "--impl naming your copy of the loop"),
        ({"cmd": "env API_TOKEN=s3cr3t node loop.mjs"},
         "`loopspec replay CASE --cmd 'env API_TOKEN=<hidden> node loop.mjs'`, CASE this file "
         "and the --cmd naming your copy of the loop, each <hidden> put back as the secret it "
             "stands for"),
        ({}, "`loopspec replay CASE`, CASE this file"),
    ],
)  # fmt: skip
def test_SAFE_1_a_saved_case_says_in_itself_how_to_replay_it(
    tmp_path: Path, case_schema: Draft202012Validator, target: dict[str, str], replay: str
) -> None:
    """SAFE-1: a case sent alone, attached to a bug report, named its rule and its target but
    not the verb that reads it: a colleague who never saw the sender's `rerun:` line opened a
    JSON file with no way in. Its `summary` says the rule and the replay command (the secret
    hidden as in `target`), and the case still replays as the schema reads it."""
    saved = write_case_file(_failed_report(), tmp_path, target)
    document = json.loads(saved.read_text(encoding="utf-8"))
    summary = document["summary"]
    assert "break TURN-5 (`loopspec spec TURN-5` prints the rule) on this program" in summary
    assert summary.endswith(f"; replay it with {replay}")
    assert "s3cr3t" not in saved.read_text(encoding="utf-8")
    case_schema.validate(document)


def test_PROTO_1_a_program_saved_again_is_not_copied_and_a_case_is_never_overwritten(
    tmp_path: Path,
) -> None:
    """PROTO-1: a counterexample whose case file is already in the folder, byte for byte, names
    that file instead of adding a copy (the pytest plugin replays a committed case, the random
    suite finds the same program and added case-TURN-5-1.json to the user's cases on every
    run); another program still gets a new file, and no file is overwritten."""
    first = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    assert write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"}) == first
    other = write_case_file(_failed_report(), tmp_path, {"impl": "theirs:make"})
    assert other != first
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([first.name, other.name])
    assert json.loads(first.read_text(encoding="utf-8"))["target"] == {"impl": "mine:make"}


def test_PROTO_1_replay_says_when_the_target_declares_other_capabilities_than_the_case_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], here: None
) -> None:
    """PROTO-1: replayed on a target that declares other capabilities than the one the case was
    found on, replay says both; on one that declares the same, nothing."""
    impl = ["--impl", "test_case_sharing:turn_end_reason_as_text"]
    other = write_case_file(_failed_report(frozenset({"abort"})), tmp_path, {"impl": "mine:make"})
    assert main(["replay", str(other), *impl]) == 1
    declared = ", ".join(sorted(_declared()))
    assert (
        "  capabilities: the case was found on a target declaring abort; this one declares "
        f"{declared}\n"
    ) in capsys.readouterr().out
    same = write_case_file(_failed_report(_declared()), tmp_path, {"impl": "mine:make"})
    assert main(["replay", str(same), *impl]) == 1
    assert "capabilities:" not in capsys.readouterr().out


@pytest.mark.usefixtures("here")
def test_PROTO_1_a_replay_diverging_on_another_rule_than_the_recorded_one_says_so_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a colleague's loop of another version breaks another rule on the program of a
    case: the verdict line says so, where "diverges; the case recorded ADJ-4" above a "rule
    TURN-5" read as the recorded bug still there; the same rule keeps its line."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    document["rule"] = "ADJ-4"
    saved.write_text(json.dumps(document), encoding="utf-8")
    buggy = ["--impl", "test_case_sharing:turn_end_reason_as_text"]
    assert main(["replay", str(saved), *buggy]) == 1
    assert f"{saved}: diverges on TURN-5, not ADJ-4 as the case recorded\n" in (
        capsys.readouterr().out
    )
    document["rule"] = "TURN-5"
    saved.write_text(json.dumps(document), encoding="utf-8")
    assert main(["replay", str(saved), *buggy]) == 1
    assert f"{saved}: diverges; the case recorded TURN-5\n" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("version", "advice"),
    [
        (2, "it was written by a newer loopspec: replay it with loopspec 9.1"),
        ("1", "the format version is a whole number, 1 for this loopspec"),
    ],
    ids=["newer", "a string"],
)
def test_PROTO_1_a_case_of_another_version_names_the_loopspec_that_wrote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], version: object, advice: str
) -> None:
    """PROTO-1: a case of a newer format names the loopspec that wrote it, so the colleague
    knows which to install; a version spelt as a string is not called older (it was told to
    record the program anew, which it cannot: the loop is not theirs)."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    document.update(version=version, loopspecVersion="9.1")
    saved.write_text(json.dumps(document), encoding="utf-8")
    assert main(["replay", str(saved)]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: {saved}:1: $.version is {json.dumps(version)}; this loopspec "
        f"reads case files of version 1: {advice}\n"
    )


@pytest.mark.parametrize(
    ("edit", "fault"),
    [
        # A newer release's command kind, field and member, each read here as a misspelling.
        (
            lambda case: case["commands"][0].update(kind="SubmitUserAt"),
            "$.commands[0].kind must be SubmitUser, ModelReplies, ModelFails, HookAnswers, "
            'ApprovalAnswers, ToolFinishes, Abort, Crash or Recover, not "SubmitUserAt" (did you '
            "mean SubmitUser?)",
        ),
        (
            lambda case: case["commands"][0].update(images=[]),
            "$.commands[0].images is not a field here; the fields here are kind, text",
        ),
        (
            lambda case: case.update(replayWith="loopspec replay"),
            f"$.replayWith is not a member of a case file; its members are "
            f"{', '.join(CASE_MEMBERS)}",
        ),
        (
            lambda case: case.update(summaries=[]),
            "$.summaries is not a member of a case file (did you mean summary?); its members "
            f"are {', '.join(CASE_MEMBERS)}",
        ),
    ],
)
def test_PROTO_1_a_fault_in_a_case_of_another_release_names_both_releases(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[dict[str, Any]], None],
    fault: str,
) -> None:
    """PROTO-1: a case loopspec 9.1 wrote holding a command, field or member this release does
    not know was refused as a typo ("did you mean SubmitUser?"), and the colleague edited a file
    that was right; the refusal now says which release wrote it and to replay it with that one,
    and offers no nearest name beside it (it did: two answers, one wrong). A case of this
    release is refused as before, with the nearest name, a typo being the likely cause."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    edit(document)
    unguessed = re.sub(r" \(did you mean \w+\?\)", "", fault)
    for written_by, said in (
        ("9.1", f"{unguessed}; the case was written by loopspec 9.1 and this is "
         f"{loopspec.__version__}: if the file is as that release wrote it, replay it with that "
         "release"),
        (loopspec.__version__, fault),
    ):  # fmt: skip
        saved.write_text(json.dumps({**document, "loopspecVersion": written_by}), "utf-8")
        assert main(["replay", str(saved), "--bundled"]) == 2
        assert capsys.readouterr().err.endswith(f":1: {said}\n")


def test_PROTO_1_a_case_the_target_cannot_replay_is_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a case needing a capability the target lacks is refused naming the case file,
    as every other error about a case is (it said only "command #3 of the case")."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    document["commands"].insert(1, {"kind": "Abort", "cause": "user"})
    saved.write_text(json.dumps(document), encoding="utf-8")
    assert main(["replay", str(saved), "--impl", "plugin_targets:declares_nothing"]) == 2
    assert capsys.readouterr().err.startswith(
        f"loopspec: error: {saved}:1: command #2 of the case (Abort) needs the capability abort"
    )


def test_PROTO_1_a_capability_refusal_names_the_line_of_what_needs_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a case needing a capability the target lacks is refused in one sentence naming
    the file and the line of the command (or of the configuration's hooks) that needs it, the
    command, and the capability, as a fault in a hand-edited case is; it named the command's
    number alone, and the configuration's refusal read "conform never configures it so, so"."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    document["commands"].insert(1, {"kind": "Abort", "cause": "user"})
    saved.write_text(json.dumps(document, indent=2), encoding="utf-8")
    lines = saved.read_text(encoding="utf-8").splitlines()
    abort_line = next(n for n, text in enumerate(lines, start=1) if '"Abort"' in text) - 1
    assert lines[abort_line - 1].strip() == "{"
    plain = ["--impl", "plugin_targets:declares_nothing"]
    assert main(["replay", str(saved), *plain]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: {saved}:{abort_line}: command #2 of the case (Abort) "
        "needs the capability abort, which model does not declare, so "
        "the case cannot be replayed on it (conform sends a loop only commands it declares)\n"
    )
    del document["commands"][1]
    document["config"]["hooks"] = [config_to_json(CONFIGS[1])["hooks"][0]]
    saved.write_text(json.dumps(document, indent=2), encoding="utf-8")
    lines = saved.read_text(encoding="utf-8").splitlines()
    hooks_line = next(n for n, text in enumerate(lines, start=1) if '"hooks"' in text)
    assert main(["replay", str(saved), *plain]) == 2
    assert capsys.readouterr().err.startswith(
        f"loopspec: error: {saved}:{hooks_line}: the case's configuration (its hooks) "
        "needs the capability pre-hooks, which model does not "
        "declare, so the case cannot be replayed on it"
    )
    assert main(["replay", str(tmp_path), *plain]) == 0
    assert f"{saved}:{hooks_line}: skipped: the case's configuration" in capsys.readouterr().out


def _three_cases(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A folder of two cases (one recorded diverging on TURN-5, one needing the capability
    abort) and, beside it, a case of a later format version: the folder and the three."""
    folder = tmp_path / "cases"
    diverging = write_case_file(_failed_report(), folder, {"impl": "mine:make"})
    document = json.loads(diverging.read_text(encoding="utf-8"))
    aborting = folder / "aborts.json"
    aborting.write_text(
        json.dumps(
            {**document, "commands": [document["commands"][0], {"kind": "Abort", "cause": "user"}]}
        ),
        encoding="utf-8",
    )
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**document, "version": 2}), encoding="utf-8")
    return folder, diverging, aborting, newer


@pytest.mark.parametrize(
    ("rule", "capability"), [("VIEW-2", "presentation"), ("HIST-1", "history")]
)
def test_PROTO_1_a_pass_on_a_target_that_cannot_report_the_recorded_rule_is_not_called_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], here: None, rule: str, capability: str
) -> None:
    """PROTO-1: a case found breaking VIEW-2 (an ACP card) on a loop declaring presentation,
    replayed on a colleague's build without it, said "passes now (the case recorded VIEW-2)":
    that target reports no cards, so nothing VIEW-2 is about was compared. It says so; on a
    target declaring the capability the pass reads as before."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    saved.write_text(json.dumps({**document, "rule": rule}), encoding="utf-8")
    assert main(["replay", str(saved), "--impl", "plugin_targets:declares_nothing"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"{saved}: 2 commands replayed, no divergence; the case recorded {rule}, which this "
        f"target cannot show: it does not declare {capability}, so nothing {rule} speaks about "
        "was compared"
    )
    # The bundled implementation declares both; named by its factory, it is not called the
    # recorded target (it was: "passes now").
    assert main(["replay", str(saved), "--impl", BUNDLED_IMPL]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"{saved}: 2 commands replayed, no divergence on loopspec's bundled implementation (not "
        f"the recorded target); the case recorded {rule}"
    )


def test_PROTO_1_replay_of_a_folder_replays_every_case_as_a_regression_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], here: None
) -> None:
    """PROTO-1: `replay` takes several cases or a folder (its *.json) and replays each on one
    target, as the pytest plugin does before its random programs: a project run without pytest
    (a loop in another language, over --cmd) gets the same regression step. Each case says how
    it went; one needing a capability the target does not declare is skipped, one that cannot be
    read is named on stderr; the last line tallies them; exit 2 when one could not be used, 1
    when one diverges. It took one case file. (Its JSON: `test_replay_of_a_folder_writes_...`.)"""
    folder, diverging, aborting, newer = _three_cases(tmp_path)
    plain = ["--impl", "plugin_targets:declares_nothing"]
    assert main(["replay", str(folder), str(newer), *plain]) == 2
    said = capsys.readouterr()
    # The loop named does what the model does: said as a pass, the recorded rule beside it.
    passes = (
        f"{diverging}: 2 commands replayed, no divergence: passes now (the case recorded TURN-5)"
    )
    assert passes in said.out
    assert f"{aborting}:1: skipped: command #2 of the case (Abort) needs the capability abort" in (
        said.out
    )
    assert f"loopspec: error: {newer}:1: $.version is 2" in said.err
    # On stdout, a pointer that holds there alone: the error is not "above" in stdout's file.
    assert f"{newer}: cannot be used (the error is on stderr)\n" in said.out
    assert said.out.endswith(
        "replayed 3 cases against plugin_targets:declares_nothing: 1 skipped, 1 without "
        "divergence, 1 unusable\n"
    )
    buggy = ["--impl", "test_case_sharing:turn_end_reason_as_text"]
    assert main(["replay", str(diverging), str(aborting), *buggy]) == 1
    said = capsys.readouterr()
    assert f"{diverging}: diverges; the case recorded TURN-5" in said.out
    # The case still diverging and its rule named on the last line, what a CI log shows.
    assert said.out.endswith(
        "replayed 2 cases against test_case_sharing:turn_end_reason_as_text: 1 diverging, 1 "
        f"without divergence (diverging: {diverging}, TURN-5)\n"
    )
    # Four still diverging: the first three named, the rest counted (each was named).
    copies = [folder / f"copy-{n}.json" for n in (1, 2, 3)]
    for copy in copies:
        copy.write_bytes(diverging.read_bytes())
    assert main(["replay", str(diverging), *map(str, copies), *buggy]) == 1
    assert capsys.readouterr().out.endswith(
        f"4 diverging (diverging: {diverging}, TURN-5; {copies[0]}, TURN-5; {copies[1]}, "
        "TURN-5; and 1 more)\n"
    )
    for copy in copies:
        copy.unlink()
    # With no target named, the bundled loop by name, as one case's header says (f703816):
    # the factory's module path means nothing to a reader who never saw the source.
    assert main(["replay", str(folder), "--bundled"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert (
        last == "replayed 2 cases against loopspec's bundled implementation: 2 without divergence"
    )
    assert main(["replay", str(folder), str(tmp_path / "typo")]) == 2
    assert f"{tmp_path / 'typo'}: no such case file or directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["replay", str(tmp_path / "empty")]) == 2
    says = f"{tmp_path / 'empty'}: a directory without case files (*.json)"
    assert says in capsys.readouterr().err


def test_PROTO_1_a_folder_replayed_without_a_target_says_why_its_cases_were_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a colleague's folder of cases, each found on their loop, replayed with no
    --impl or --cmd, ended "replayed 2 cases against loopspec's bundled implementation: 1
    unusable, ...", which read as broken files: the tally now says the refused ones record a
    loop the command does not name, and what to pass. A case found on the bundled
    implementation replays there."""
    folder = tmp_path / "from-alice"
    folder.mkdir()
    write_case_file(_failed_report(), folder, {"impl": "alice_loop:make"})
    write_case_file(_failed_report(), folder, {"cmd": "node ./loop.mjs"})
    write_case_file(_failed_report(), folder, {})
    assert main(["replay", str(folder)]) == 2
    assert capsys.readouterr().out.splitlines()[-1] == (
        "replayed 3 cases against loopspec's bundled implementation: 2 unusable, 1 without "
        "divergence (2 found on a loop this command does not name: pass --impl or --cmd naming "
        "your copy of it, or --bundled)"
    )
    # None replayed: the line said "replayed 2 cases against loopspec's bundled implementation:
    # 2 unusable", though nothing ran there.
    next(path for path in folder.glob("*.json") if not load_case(path).target).unlink()
    assert main(["replay", str(folder)]) == 2
    assert capsys.readouterr().out.splitlines()[-1] == (
        "replayed none of 2 cases: each was found on a loop this command does not name: pass "
        "--impl or --cmd naming your copy of it, or --bundled"
    )


def test_PROTO_1_replay_of_a_folder_prints_an_unusable_case_s_error_right_above_its_line(
    tmp_path: Path,
) -> None:
    """PROTO-1: a case replay cannot use is named on stderr, then "cannot be used (the error is
    on stderr)" on stdout. In a CI log (both streams to one pipe, stdout buffered as Python
    buffers a pipe) every such error came first, above the whole report, away from its case."""
    folder = tmp_path / "cases"
    write_case_file(_failed_report(), folder, {"impl": "mine:make"})
    broken = folder / "zz-broken.json"
    broken.write_text("{", encoding="utf-8")
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run(
        [sys.executable, "-m", "loopspec", "replay", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
        timeout=120,
        env=buffered,
    )
    assert done.returncode == 2
    lines = done.stdout.splitlines()
    unusable = lines.index(f"{broken}: cannot be used (the error is on stderr)")
    assert lines[unusable - 1].startswith(f"loopspec: error: {broken}:"), done.stdout


_BLOCK = {"decision": "block"}


def _line_holding(text: str, needle: str) -> int:
    (line,) = [n for n, row in enumerate(text.splitlines(), start=1) if needle in row]
    return line


@pytest.mark.parametrize(
    ("edit", "needle", "said"),
    [
        (
            lambda doc: doc["commands"][1].update(finsh=doc["commands"][1].pop("finish")),
            '"finsh"',
            ("PROTO-1", "$.commands[1].finsh is not a field here (did you mean finish?)"),
        ),
        (
            lambda doc: doc["commands"][1].pop("finish"),
            '"kind": "ModelReplies"',  # the object it is missing from, opened a line above
            ("PROTO-1", "$.commands[1].finish is missing"),
        ),
        (
            lambda doc: doc["config"].update(maxParallel=0),
            '"maxParallel"',
            ("PROTO-1", "$.config.maxParallel"),
        ),
        (
            lambda doc: doc["commands"].insert(
                1,
                {"kind": "HookAnswers", "verdict": {"decision": "pass"}, "audit": _BLOCK},
            ),
            '"HookAnswers"',
            ("HOOK-1", '$.commands[1]: an audit recording "block" contradicts the hook\'s Pass'),
        ),
        (
            lambda doc: doc.update(profile="dhs"),
            '"profile"',
            ("", '$.profile is "dhs"; known profiles'),
        ),
        (lambda doc: doc.update(loopspec="cases"), '"loopspec"', ("", '$.loopspec is "cases"')),
        (
            lambda doc: doc.update(capabilities=["parallel", "paralel"]),
            '"paralel"',
            ("", '$.capabilities[1] is "paralel", which is no capability (did you mean parallel?)'),
        ),
        (
            lambda doc: doc.update(unrepeated="yes"),
            '"unrepeated"',
            ("", '$.unrepeated must be true or false, not "yes"'),
        ),
        (
            lambda doc: doc.update(target={"module": "mine:make"}),
            '"module"',
            ("", "$.target.module is not a member of a target; a target is"),
        ),
        (
            lambda doc: doc.update(target={"impl": "mine:make", "cmd": "node loop.mjs"}),
            '"target"',
            ("", "$.target names both impl and cmd"),
        ),
    ],
    ids=[
        "misspelt",
        "missing",
        "out of range",
        "audit word",
        "unknown profile",
        "marker",
        "capability",
        "unrepeated",
        "target's kind",
        "two targets",
    ],
)
def test_PROTO_1_HOOK_1_a_fault_in_a_hand_edited_case_names_its_line_and_its_rule(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[dict[str, Any]], object],
    needle: str,
    said: tuple[str, str],
) -> None:
    """PROTO-1, HOOK-1: a case is edited by hand in an editor, so a fault names the line of the
    field (the one-line error is `file:line: $.path ...`, as `check`'s are); it named only the
    JSON path, to be counted out by hand in a file of a hundred lines. It names the rule the
    file breaks: PROTO-1 for the shape of a command or the configuration, the model's rule for
    a value the model refuses (an audit word contradicting its verdict is HOOK-1's), and none
    for the case format's own members, which no rule states. Every fault said [PROTO-1]."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    if len(document["commands"]) < 2 or document["commands"][1]["kind"] != "ModelReplies":
        pytest.fail("the TURN-5 program's second command is a reply")
    edit(document)
    text = json.dumps(document, indent=2)
    saved.write_text(text, encoding="utf-8")
    assert main(["replay", str(saved)]) == 2
    rule, complaint = said
    line = _line_holding(text, needle) - ("missing" in complaint or rule == "HOOK-1")
    err = capsys.readouterr().err
    tag = f"[{rule}] " if rule else ""
    assert err.startswith(f"loopspec: error: {tag}{saved}:{line}: {complaint}"), err
    assert err.count("\n") == 1


def test_PROTO_1_a_case_that_is_not_json_names_the_line_it_breaks_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a truncated case (a paste cut short) names the line where the JSON broke, in
    the same `file:line:` form (it was in the parser's words at the end of the line)."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    text = saved.read_text(encoding="utf-8")
    cut = text.index('"kind": "SubmitUser"') + len('"kind": "Sub')
    saved.write_text(text[:cut], encoding="utf-8")
    assert main(["replay", str(saved)]) == 2
    line = _line_holding(text, '"kind": "SubmitUser"')
    err = capsys.readouterr().err
    assert err.startswith(f"loopspec: error: {saved}:{line}: the case file is not JSON")


@pytest.mark.parametrize(
    ("edit", "needle", "complaint"),
    [
        (
            lambda text: text.replace('"version": 1,', '"version": 1,\n  "version": 1,', 1),
            '"version"',  # the second of the two lines holding it
            "$.version is given twice in its object; a JSON reader keeps only the last",
        ),
        (
            lambda text: re.sub(r'"maxParallel": \d+', '"maxParallel": NaN', text),
            '"maxParallel"',
            "the case file is not JSON: NaN is no JSON value: column {column}",
        ),
        (
            lambda text: re.sub(r'"epochMs": \d+', '"epochMs": 1' + "0" * 5000, text),
            '"epochMs"',
            "the case file is not JSON: an integer of 5001 digits, more than the 4300 a case may "
            "hold: column {column}",
        ),
        (
            lambda text: text.replace('"provider": "', '"provider": "\udcff', 1),
            '"provider"',
            "the case file is not UTF-8 text: byte 0xff at column {column}; save it as UTF-8",
        ),
        (
            lambda text: text.replace('"what": "', '"what": "wrapped\n by mail ', 1),
            '"what"',
            "the case file is not JSON: a line break inside a string (was the line wrapped, by "
            "a mail client?): column {column}",
        ),
        (
            lambda text: text + "-- \nAna\n",
            "-- ",
            "the case file is not JSON: more follows the case's closing brace: column 1",
        ),
    ],
    ids=["repeated key", "NaN", "integer too long", "not UTF-8", "wrapped line", "signature"],
)
def test_PROTO_1_a_case_json_reads_wrongly_names_the_line_of_the_value(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[str], str],
    needle: str,
    complaint: str,
) -> None:
    """PROTO-1: what a hand edit can do to the JSON itself names its line too. A key given
    twice in one object was read silently, the last one kept (a pasted second "commands"
    dropped the first without a word); NaN, an integer Python will not convert and a byte
    that is not UTF-8 named no line (a byte offset, or Python's advice to call
    sys.set_int_max_str_digits). A case sent in a mail's body comes back with long lines
    wrapped: the parser said only "Invalid control character at". Anything after the case's
    object (a mail's signature, a stray brace) was called a session log, with no line."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    text = edit(saved.read_text(encoding="utf-8"))
    saved.write_bytes(text.encode("utf-8", "surrogateescape"))
    assert main(["replay", str(saved)]) == 2
    line, row = [(n, row) for n, row in enumerate(text.splitlines(), start=1) if needle in row][-1]
    value = re.search(r"NaN|10{5000}|\udcff", row)  # where the refused value starts
    said = complaint.format(column=value.start() + 1 if value else len(row) + 1)
    err = capsys.readouterr().err
    assert err.startswith(f"loopspec: error: {saved}:{line}: {said}"), err
    assert err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ((), 1),
        (("a",), 2),
        (("a", 1), 4),
        (("a", 1, "two"), 5),
        (("a", 1, 'b"}'), 6),
        (("a", 1, "missing"), 4),  # a missing member: the object it is missing from
        (("a", 7), 2),  # past the end: the array
        (("c",), 9),  # a repeated key: the last, the one a parser keeps
        (("d", 0, 0), 11),
    ],
)
def test_PROTO_1_line_of_finds_the_deepest_part_of_a_path(
    path: tuple[str | int, ...], line: int
) -> None:
    """PROTO-1: the line of a path's deepest part the text holds, through strings holding
    brackets and quotes, repeated keys, nested arrays and missing members."""
    text = (
        '{\n "a": [\n  1,\n  {"x": "]}{\\"",\n   "two": 2,\n   "b\\"}": true}\n ],\n "c": 1,\n'
        ' "c": 2,\n "d": [\n  [3]\n ]\n}\n'
    )
    json.loads(text)
    assert line_of(text, path) == line
    assert leading_path("$.a[1].b must be") == ("a", 1, "b")
    assert leading_path("no path here") is None


def test_PROTO_1_replay_json_is_one_documented_document_for_a_bug_tracker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], here: None
) -> None:
    """PROTO-1: `replay --format json` writes one `loopspec-replay/1` document on stdout and
    nothing else, exit 1 when it diverges and 0 when not, every key documented where `--help`
    points; replay had no JSON at all, so a bug report could carry only the text."""
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    # argparse wraps lines at spaces and after hyphens: undo both.
    shown = " ".join(re.sub(r"-\n\s+", "-", capsys.readouterr().out).split())
    assert "loopspec-replay/1" in shown
    assert "python -m pydoc loopspec.properties.cli.conform" in shown
    saved = write_case_file(_failed_report(_declared()), tmp_path, {"impl": "mine:make"})
    impl = ["--impl", "test_case_sharing:turn_end_reason_as_text"]
    assert main(["replay", str(saved), *impl, "--format", "json"]) == 1
    diverged = json.loads(capsys.readouterr().out)
    assert diverged["format"] == "loopspec-replay/1"
    assert diverged["diverges"] is True
    assert diverged["recordedTarget"] == {"impl": "mine:make"}
    assert diverged["capabilities"] == diverged["caseCapabilities"] == sorted(_declared())
    assert diverged["divergence"]["rule"] == diverged["recordedRule"] == "TURN-5"
    assert diverged["divergence"]["command"] == json.loads(saved.read_text())["commands"][-1]
    assert main(["replay", str(saved), "--bundled", "--format", "json", "--profile", "dsh"]) == 0
    passed = json.loads(capsys.readouterr().out)
    assert (passed["diverges"], passed["divergence"], passed["profile"]) == (False, None, "dsh")
    documented = conform_cli.__doc__ or ""
    for key in {*diverged, *diverged["divergence"]}:
        assert f'"{key}"' in documented, key


def test_PROTO_1_replay_json_names_the_release_that_wrote_the_case_as_the_text_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: replayed by another release, the text report says "written by loopspec 9.1;
    this is loopspec ..." before its verdict, since the releases' rules may explain it; the
    `loopspec-replay/1` document a bug tracker keeps named neither release."""
    saved = write_case_file(_failed_report(), tmp_path, {})
    document = json.loads(saved.read_text(encoding="utf-8"))
    for written_by in ("9.1", None):
        if written_by is None:
            document.pop("loopspecVersion")
        else:
            document["loopspecVersion"] = written_by
        saved.write_text(json.dumps(document), encoding="utf-8")
        assert main(["replay", str(saved), "--format", "json"]) == 0
        replayed = json.loads(capsys.readouterr().out)
        assert replayed["caseLoopspecVersion"] == written_by
        assert replayed["loopspecVersion"] == loopspec.__version__


def test_PROTO_1_replay_json_writes_nothing_on_stdout_when_the_case_cannot_be_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a case replay cannot use exits 2 with its one line on stderr; stdout stays
    empty, so a tracker reading it never takes half a document for a verdict."""
    broken = tmp_path / "broken.json"
    broken.write_text('{"loopspec": "case"', encoding="utf-8")
    assert main(["replay", str(broken), "--format", "json"]) == 2
    shown = capsys.readouterr()
    assert shown.out == ""
    assert shown.err.startswith(f"loopspec: error: {broken}:1: ")


REGRESSIONS = sorted((Path(__file__).parent / "regressions").glob("*.json"))


@pytest.fixture(scope="module")
def case_schema() -> Draft202012Validator:
    """`loopspec schema case`, checked as a schema, as one validator for the module: checking
    the schema and validating with a fresh validator cost each of 21 tests about 1.2 s of CPU."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["schema", "case"]) == 0
    schema = json.loads(printed.getvalue())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
def test_PROTO_1_every_saved_case_satisfies_the_case_schema(
    tmp_path: Path, case_schema: Draft202012Validator
) -> None:
    """PROTO-1: `loopspec schema case` is the JSON Schema of a case file: what conform saves
    and every shipped regression case satisfy it. `loopspec schema` printed only the driver
    protocol, so a case edited by hand could be checked against nothing short of replaying it."""
    saved = write_case_file(_failed_report(_declared()), tmp_path, {"cmd": "node loop.mjs"})
    for path in (saved, *REGRESSIONS):
        errors = [error.message for error in case_schema.iter_errors(json.loads(path.read_text()))]
        assert errors == [], (path.name, errors)
    assert len(REGRESSIONS) > 10


MEMBER_EDITS: list[tuple[str, Callable[[dict[str, Any]], object]]] = [
    ("unchanged", lambda doc: None),
    ("misspelt member", lambda doc: doc.update(profle="dsh")),
    ("a note in summary", lambda doc: doc.update(summary="Bob's minimal program")),
    ("what is a number", lambda doc: doc.update(what=3)),
    ("rule is null", lambda doc: doc.update(rule=None)),
    ("unknown rule", lambda doc: doc.update(rule="XX-1")),
    ("no rule", lambda doc: doc.pop("rule")),
    ("NO-RULE", lambda doc: doc.update(rule="NO-RULE")),
    ("unknown profile", lambda doc: doc.update(profile="nope")),
    ("known profile", lambda doc: doc.update(profile="dsh")),
    (
        "a divergence its profile lists",
        lambda doc: doc.update(profile="dsh", divergence="per-event-commits"),
    ),
    (
        # Replay refused it; the schema took any string.
        "a divergence its profile does not list",
        lambda doc: doc.update(profile="dsh", divergence="ADJ-1"),
    ),
    ("a divergence without a profile", lambda doc: doc.update(divergence="anything")),
    ("capabilities not strings", lambda doc: doc.update(capabilities=[1])),
    ("misspelt capability", lambda doc: doc.update(capabilities=["paralel"])),
    ("known capabilities", lambda doc: doc.update(capabilities=["abort", "parallel"])),
    ("rules is a string", lambda doc: doc.update(rules="EXE-1")),
    ("target is a list", lambda doc: doc.update(target=[])),
    ("target value not a string", lambda doc: doc.update(target={"impl": 1})),
    ("no target", lambda doc: doc.pop("target")),
    ("target misspelt", lambda doc: doc.update(target={"module": "x:y"})),
    ("two targets", lambda doc: doc.update(target={"impl": "x:y", "cmd": "z"})),
    ("empty target", lambda doc: doc.update(target={})),
    ("version spelt as a string", lambda doc: doc.update(version="1")),
    # Replay read `true` as 1, as Python compares them; the schema refused it.
    ("version is true", lambda doc: doc.update(version=True)),
    ("version written 1.0", lambda doc: doc.update(version=1.0)),
    ("no config", lambda doc: doc.pop("config")),
    ("no commands", lambda doc: doc.update(commands=[])),
    ("expect is anything", lambda doc: doc.update(expect=[1, {"a": None}])),
    ("loopspecVersion is a number", lambda doc: doc.update(loopspecVersion=1)),
    # Replay refused a whole number written with a fraction or an exponent, which the schema
    # reads, as JSON Schema does, as the integer it is.
    ("maxParallel written 2.0", lambda doc: doc["config"].update(maxParallel=2.0)),
    ("epochMs written 1.7e12", lambda doc: doc["config"].update(epochMs=1.7e12)),
    ("maxParallel written 2.5", lambda doc: doc["config"].update(maxParallel=2.5)),
    ("maxParallel a string", lambda doc: doc["config"].update(maxParallel="2")),
    ("a prompt a number", lambda doc: doc["commands"][0].update(text=1)),
]


@pytest.mark.parametrize(("name", "edit"), MEMBER_EDITS, ids=[name for name, _ in MEMBER_EDITS])
def test_PROTO_1_replay_reads_exactly_the_cases_the_case_schema_accepts(
    tmp_path: Path,
    case_schema: Draft202012Validator,
    name: str,
    edit: Callable[[dict[str, Any]], object],
) -> None:
    """PROTO-1: replay refuses a case exactly when the schema does; a member neither defines
    (a misspelt `profle`) is refused, not ignored: it was, and the case replayed without the
    profile its editor meant to give it."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    edit(document)
    saved.write_text(json.dumps(document, indent=2), encoding="utf-8")
    if case_schema.is_valid(document):
        load_case(saved)
        return
    with pytest.raises(TargetError) as refused:
        load_case(saved)
    assert refused.value.message.startswith(f"{saved}:"), refused.value.message
    if name == "a divergence its profile does not list":
        assert '$.divergence is "ADJ-1", which the dsh profile does not list' in str(
            refused.value.message
        )
    if name == "misspelt member":
        assert "$.profle is not a member of a case file (did you mean profile?)" in str(
            refused.value.message
        )


TUTORIAL = Path(__file__).parent.parent / "docs" / "tutorial.md"


def test_PROTO_1_the_tutorial_says_what_every_member_of_a_saved_case_means(
    tmp_path: Path,
) -> None:
    """PROTO-1: the tutorial's "Sharing a case" table names every member conform writes, and
    only members a case file has: a colleague editing a case learns each from the page."""
    section = TUTORIAL.read_text(encoding="utf-8").split("### Sharing a case", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    named = {name for row in rows for name in re.findall(r"`([A-Za-z]+)`", row.split("|")[1])}
    # Every member it may write: a profile's, and `unrepeated` (a divergence not repeated).
    report = attrs.evolve(_failed_report(_declared()), profile=PROFILES["dsh"], unrepeated=True)
    saved = write_case_file(report, tmp_path, {"impl": "mine:make"})
    assert set(json.loads(saved.read_text(encoding="utf-8"))) == named
    assert named <= set(CASE_MEMBERS)


def test_PROTO_1_the_tutorials_sample_error_is_what_replay_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: the one-line error the tutorial shows for a hand-edited case is replay's, but
    for the file's name and line."""
    (sample,) = re.findall(
        r"^loopspec: error: \[PROTO-1\] \S+:\d+: .*$", TUTORIAL.read_text(), re.M
    )
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    del document["commands"][1]["finish"]
    saved.write_text(json.dumps(document, indent=2), encoding="utf-8")
    assert main(["replay", str(saved)]) == 2
    printed = capsys.readouterr().err.strip()
    assert re.sub(r"\] \S+:\d+: ", "] FILE:LINE: ", printed) == re.sub(
        r"\] \S+:\d+: ", "] FILE:LINE: ", sample
    )


def test_SAFE_5_a_saved_broken_program_names_the_module_path_not_this_machine_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAFE-5: a program a target broke in is saved as a case naming the file it raised in by
    its module path (`alicepkg/loop.py`), not by where it lies here: the absolute path, with the
    user's home and folders, went into a file made to be shared. The terminal line keeps it."""
    package = tmp_path / "site" / "alicepkg"
    package.mkdir(parents=True)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    raised_at = f"(at {package / 'loop.py'}:41, in _finish)"
    broke = TargetError(
        f"the target failed in apply: KeyError: 'c2' {raised_at}\nstderr of the target",
        config=TURN_5.config,
        program=TURN_5.program,
    )
    shown = with_saved_program(broke, tmp_path / "cases", {"impl": "alicepkg.loop:make"}, None)
    (case,) = (tmp_path / "cases").iterdir()
    assert json.loads(case.read_text(encoding="utf-8"))["what"] == (
        "the target failed in apply: KeyError: 'c2' (at alicepkg/loop.py:41, in _finish)"
    )
    assert str(tmp_path) not in case.read_text(encoding="utf-8")
    assert raised_at in shown.message


@pytest.mark.parametrize("script", ["loop/main.py", "main.py"])
def test_PROTO_1_a_cmd_whose_script_is_not_here_says_where_it_was_looked_for(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    script: str,
) -> None:
    """PROTO-1: a shared case replayed with the `--cmd` it records, from another folder, starts
    the interpreter, which dies on a script path that only resolved where the case was found:
    the error says which argument names no file from here, and where here is (it said only that
    the process ended its output, and the interpreter's own stderr), and how to name one's own
    copy of the loop (it said nothing of that). A script named without a folder (`python3
    main.py`, as a pytest setting names it and pytest is run from `tests/`) is one too: it was
    not said when no `/` marked the word as a path."""
    command = f"{shlex.quote(sys.executable)} {script}"
    saved = write_case_file(_failed_report(), tmp_path, {"cmd": command})
    document = json.loads(saved.read_text(encoding="utf-8"))
    # As the colleague's `python3`: the command is the one replayed, word for word.
    saved.write_text(json.dumps({**document, "target": {"cmd": command}}), encoding="utf-8")
    elsewhere = tmp_path / "bob"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["replay", str(saved), "--cmd", command]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    copy = portable(f"{shlex.quote(sys.executable)} PATH/TO/{os.path.basename(script)}")
    assert first.endswith(
        f"the process exited at start-up, before answering its first message (reset) ({script}: "
        f"no such file relative to the current directory, {elsewhere}); the case records the "
        f"command it was found with, in a folder holding {script}: replay it from that folder, "
        f"or name your copy of the loop, --cmd {shlex.quote(copy)}"
    ), first


def test_PROTO_1_a_case_s_cmd_whose_program_is_not_here_says_how_to_name_your_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: a shared case's recorded `--cmd ./run.sh`, pasted where no `run.sh` is, cannot
    start: replay names the file, the folder it was looked for in and, the command being the
    case's, the `--cmd` that names one's own copy of the loop (it named the file alone)."""
    saved = write_case_file(_failed_report(), tmp_path, {"cmd": "./run.sh --fast"})
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(saved), "--cmd", "./run.sh --fast"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith(
        f"cannot start ./run.sh: no such file or directory (looked for relative to the current "
        f"directory, {tmp_path}); the case records the command it was found with, in a folder "
        "holding ./run.sh: replay it from that folder, or name your copy of the loop, --cmd "
        "'PATH/TO/run.sh --fast'"
    ), first


def test_PROTO_1_a_profile_case_replayed_without_loopspec_s_repository_says_where_its_adapter_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: a profile's case records the real harness's adapter from loopspec's repository
    (`examples/dsh-adapter/run.sh`); replayed with that --cmd where the installed package alone
    is, it was told to "name your copy of the loop, --cmd PATH/TO/run.sh", a copy no reader of
    a dsh case has. It names the repository, what to install, and --bundled."""
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(DSH_CASE), "--cmd", "examples/dsh-adapter/run.sh"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith(
        "; the case records the command it was found with, examples/dsh-adapter/run.sh, an "
        "adapter in loopspec's repository (its examples/ folder), which the installed package "
        "does not hold: replay it from a clone of loopspec, the harness installed there (`npm ci` "
        "in the adapter's folder, `make harnesses` for Claude Code and Codex), or with --bundled "
        "on loopspec's bundled loop"
    ), first


@pytest.mark.parametrize("dead_before_reset", [False, True], ids=["as-it-runs", "exited-first"])
def test_PROTO_1_a_cmd_path_split_at_its_space_says_to_quote_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    dead_before_reset: bool,
) -> None:
    """PROTO-1: a colleague keeps the loop in `my loops/` and replays with `--cmd "python3 my
    loops/loop.py"`: split as a shell would, the interpreter got `my`, and the error named
    `loops/loop.py`, which they never typed alone and whose folder they could see. It now names
    the path the words make together, quoted as `--cmd` needs it. Also when the interpreter had
    exited before reset was written (a broken pipe, not an ended output: a fresh clone's run
    said only "stopped reading its input before reset (broken pipe)"), in the same words. The
    loop never started: the interpreter could not open `my`, its script, which a word with
    neither a `/` nor a script's ending was not taken for, and the line blamed PROTO-1."""
    if dead_before_reset:
        send = process_target._Process.send

        def send_after_its_exit(process: process_target._Process, line: str) -> None:
            process.popen.wait(timeout=30)
            send(process, line)

        monkeypatch.setattr(process_target._Process, "send", send_after_its_exit)
    saved = write_case_file(_failed_report(), tmp_path, {"cmd": "python3 loop.py"})
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my loops").mkdir()
    (tmp_path / "my loops" / "loop.py").write_text("", encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} my loops/loop.py"
    assert main(["replay", str(saved), "--cmd", command]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first == (
        f"loopspec: error: {saved}: {command}: the process exited at "
        "start-up, before answering its first message (reset) (my: no such file relative to the "
        "current directory, "
        f"{tmp_path}; my loops/loop.py is one: quote a path holding a space, as a shell reads it "
        "('my loops/loop.py'))"
    ), first


@pytest.mark.parametrize(
    ("argv", "read_as"),
    [
        (["replay", "alice-case.json", "--cmd", "node", "loop.mjs"], "an argument replay does"),
        (["replay", "--cmd", "node", "loop.mjs", "alice-case.json"], "a case file"),
        (["replay", "--cmd=node", "loop.mjs", "alice-case.json"], "a case file"),
        (["conform", "--cmd", "node", "loop.mjs"], "an argument conform does"),
    ],
)
def test_PROTO_1_a_cmd_typed_unquoted_says_to_quote_it_whole(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    read_as: str,
) -> None:
    """PROTO-1: `--cmd node loop.mjs`, unquoted, gave --cmd `node` alone: replay said only
    "unrecognized arguments: loop.mjs", or took loop.mjs for a case and refused it as JSON
    (after the line above, starting node with no script). It names the split and the quoting."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as usage_error:
        main(argv)
    assert usage_error.value.code == 2
    assert capsys.readouterr().err.endswith(
        f"error: --cmd got node alone, and loop.mjs was read as {read_as}"
        f"{' not take' if read_as != 'a case file' else ''}: --cmd takes the whole command as "
        "one argument, quoted (--cmd 'node loop.mjs')\n"
    )


def test_PROTO_1_an_impl_not_found_here_says_how_to_name_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: a colleague keeps Alice's loop in another folder than the one they replay
    from: the error said where the module was looked for, not how to point there, nor which
    folder below holds it (`src/`, a receiver's `myloop/`). And a loop that loads but imports
    a package this Python lacks was said to be looked for in the current directory, where it
    was found."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "alice_loop:make"})
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "alice_loop.py").write_text("import alices_sdk\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(saved), "--impl", "alice_loop:make"]) == 2
    assert capsys.readouterr().err.endswith(
        f"No module named 'alice_loop' (looked in the current directory, {tmp_path}, then "
        "sys.path: run loopspec in src, which holds alice_loop, or put src on PYTHONPATH)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    assert main(["replay", str(saved), "--impl", "alice_loop:make"]) == 2
    assert capsys.readouterr().err.endswith(
        f"No module named 'alices_sdk' (imported by alice_loop: is it installed where loopspec "
        f"runs, {sys.prefix}?)\n"
    )


def test_PROTO_1_a_module_of_a_package_misnamed_names_the_package_not_a_missing_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1 (not broken): `--impl loops.agnet:make` where the package `loops` holds
    `agent.py` was read as a module found that imports what this Python lacks: "[PROTO-1] ...
    (imported by loops.agnet: is it installed ...?)". The package is found; the name is wrong."""
    (tmp_path / "loops").mkdir()
    (tmp_path / "loops" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "loops" / "agent.py").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "loops", raising=False)
    assert main(["conform", "--impl", "loops.agnet:make"]) == 2
    err = capsys.readouterr().err
    assert "PROTO-1" not in err, err
    assert err.endswith(
        f"No module named 'loops.agnet' (loops, in {tmp_path / 'loops'}, holds no module agnet"
        " (did you mean agent?))\n"
    ), err


@pytest.mark.parametrize(
    ("impl", "offer"),
    [
        # The tutorial's module named alone: its one factory, as --impl names it.
        ("tutorial_loop_h", " (did you mean --impl tutorial_loop_h:TutorialLoop?)"),
        ("tutorial_loop_h:", " (did you mean --impl tutorial_loop_h:TutorialLoop?)"),
        ("tutorial_loop_h:Tutorial_Loop", " (did you mean TutorialLoop?)"),
        ("tutorial_loop_h:Loop", "; tutorial_loop_h defines: TutorialLoop"),
        ("tutorial_lop_h:TutorialLoop", " (did you mean tutorial_loop_h?)"),
        ("tutorial_loop_h:VERSION", " is not callable; tutorial_loop_h defines: TutorialLoop"),
        # The loop itself, made once in the module, where conform makes one for each run.
        (
            "tutorial_loop_h:LOOP",
            " is not callable: it is a TutorialLoop made once; name what makes one for each "
            "run, its class (--impl tutorial_loop_h:TutorialLoop)",
        ),
        # In a src layout, on the import path (pytest's `pythonpath`) and not in the current
        # folder: a misspelt module was offered nothing, told to name the folder it named.
        ("src/ tutorial_lop_h:TutorialLoop", " (did you mean tutorial_loop_h?)"),
    ],
)
def test_PROTO_1_an_impl_misnamed_is_offered_the_factory_or_module_meant(
    impl: str,
    offer: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PROTO-1: `--impl tutorial_loop` (no `:TutorialLoop`) was refused as "must be
    MODULE:FACTORY" alone, and a misspelt factory or module was offered nothing: the module's
    own public callables (not what it imports, nor its `_private` ones) are offered; a module
    is sought in the current folder, then in the import path's folders outside Python's own."""
    folder, _, impl = impl.rpartition(" ")
    (tmp_path / folder).mkdir(exist_ok=True)
    (tmp_path / folder / "tutorial_loop_h.py").write_text(
        "from json import dumps\n\nVERSION = 1\n\nclass TutorialLoop:\n    pass\n\n"
        "def _helper():\n    pass\n\nLOOP = TutorialLoop()\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path / folder))
    monkeypatch.delitem(sys.modules, "tutorial_loop_h", raising=False)
    assert main(["conform", "--impl", impl]) == 2
    err = capsys.readouterr().err
    assert err.endswith(f"{offer}\n"), err
    assert err.count("\n") == 1, err


def test_PROTO_1_a_loop_made_once_is_offered_its_class_by_the_option_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: under pytest, a loop made once (`LOOP = TutorialLoop()`) was offered its class
    as `--impl tutorial_loop_h:TutorialLoop`, an option pytest does not take."""
    (tmp_path / "tutorial_loop_h.py").write_text(
        "class TutorialLoop:\n    pass\n\nLOOP = TutorialLoop()\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tutorial_loop_h", raising=False)
    with pytest.raises(TargetError) as refused:
        resolve_target("tutorial_loop_h:LOOP", None, PYTEST_OPTIONS)
    assert str(refused.value).endswith(
        "its class (--loopspec-impl tutorial_loop_h:TutorialLoop)"
    ), refused.value


def test_PROTO_1_a_word_that_is_no_script_is_not_taken_for_a_missing_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: a module name (`-m loop`) or a value with a dot (`--model=gpt-4.1`) names no
    file: a process that dies is not said to miss it."""
    saved = write_case_file(_failed_report(), tmp_path, {"cmd": "python3 -m loop"})
    monkeypatch.chdir(tmp_path)
    command = f"{shlex.quote(sys.executable)} -m loop_not_here --model=gpt-4.1 v1.2"
    assert main(["replay", str(saved), "--cmd", command]) == 2
    assert "no such file" not in capsys.readouterr().err.splitlines()[0]


def test_PROTO_1_an_option_s_value_the_process_never_named_is_not_called_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: a script that is here and dies was said to miss every word after it that held a
    `/` or ended like a script: the file it would write (`--out logs/run.jsonl`), a URL, a sed
    expression, an option's value. Past the script, a word is named only when the process's
    stderr names it, as the one it failed to open."""
    saved = write_case_file(_failed_report(), tmp_path, {"cmd": "python3 loop.py"})
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.py").write_text(
        "import sys\nif '--config' in sys.argv:\n    open(sys.argv[-1])\nsys.exit(3)\n",
        encoding="utf-8",
    )
    python = shlex.quote(sys.executable)
    words = "--out logs/run.jsonl --url http://host/v1 --name helper.py s/x/y/"
    assert main(["replay", str(saved), "--cmd", f"{python} loop.py {words}"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith(
        "the process exited at start-up, before answering its first message (reset)"
    ), first
    assert main(["replay", str(saved), "--cmd", f"{python} loop.py {words} --config conf/a.json"])
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith(
        "the process exited at start-up, before answering its first message (reset) (conf/a.json: "
        "no such file "
        f"relative to the current directory, {tmp_path})"
    ), first


def test_PROTO_1_replay_help_says_where_the_case_format_is(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: `replay --help` says a case may be written by hand and where its schema is."""
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    shown = " ".join(re.sub(r"-\n\s+", "-", capsys.readouterr().out).split())
    assert "or by hand (its JSON Schema: loopspec schema case)" in shown


def _event(kind: str) -> dict[str, Any]:
    return {"type": kind, "seq": 0, "time": 0, "data": {}}


def _report_of(expected: Observation, actual: Observation) -> str:
    divergence = Divergence(2, TURN_5.program[-1], "ADJ-1", "what", expected, actual)
    report = attrs.evolve(_failed_report(), divergence=divergence)
    return "\n".join(counterexample_lines(report, None, {}))


def test_MODEL_1_a_report_says_in_words_which_events_each_side_appended() -> None:
    """MODEL-1: when the two sides appended other events, or one refused, the report says what
    each did in a line each (the model appended tool/result, the target user/message and
    tool/result) before the diff, whose sorted JSON puts an event's type last and cut off."""
    result, context = _event("tool/result"), _event("user/message")
    shown = _report_of(
        Observation(True, events=(result,)),
        Observation(True, events=(context, result), executed=(("c2", "{}"),)),
    )
    assert "\n    the model appended tool/result\n" in shown
    said = "\n    the target appended user/message, tool/result; started running call c2\n"
    assert said in shown
    refused = _report_of(
        Observation(False, refusal_rule="EXE-4", refusal_message="not running"),
        Observation(True),
    )
    assert "\n    the model refused it (EXE-4)\n    the target appended nothing\n" in refused
    # The same events on both sides: the difference is inside them, and the diff shows it.
    same = _report_of(Observation(True, events=(result,)), Observation(True, events=(result,)))
    assert "the model appended" not in same


def test_PROTO_1_replay_names_the_commands_the_model_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a command both sides refuse compares equal and tests nothing, so a replay that
    passes names the commands the model refused, with the rule: a hand edit that renamed the
    call a ToolFinishes settles passed as "no divergence" and said nothing more."""
    program = [
        {"kind": "SubmitUser", "text": "hi"},
        {
            "kind": "ModelReplies",
            "finish": "completed",
            "blocks": [
                {"type": "tool-call", "id": "c1", "name": "read", "arguments": '{"key": "a"}'}
            ],
        },
        {"kind": "ToolFinishes", "callId": "c9", "outcome": {"ok": True, "text": "A"}},
    ]
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    document.update(commands=program, config=json.loads(DSH_CASE.read_text())["config"])
    del document["rule"]
    saved.write_text(json.dumps(document, indent=2), encoding="utf-8")
    assert main(["replay", str(saved), "--bundled"]) == 0
    out = capsys.readouterr().out
    # Named at its line in the file (the `{` opening it), where a hand cut puts back or deletes.
    line = saved.read_text(encoding="utf-8").splitlines().index('      "callId": "c9",') - 1
    said = f"#3 ToolFinishes (EXE-4) at {saved}:{line}\n"
    assert f"  refused by the model (and so by the target): {said}" in out
    assert main(["replay", str(saved), "--bundled", "--format", "json"]) == 0
    refused = json.loads(capsys.readouterr().out)["modelRefused"]
    assert refused == [{"commandIndex": 2, "rule": "EXE-4", "line": line}]


def test_PROTO_1_replay_shows_the_case_s_configuration_and_program_up_to_the_divergence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], here: None
) -> None:
    """PROTO-1: a diverging replay shows the case's configuration and numbered program, and
    which commands it did not send, the runs differing already: a colleague reads what the
    program does from the report (conform's shows its program). It showed only the command
    after which the runs differed, and the configuration (tool contracts, hooks, maxParallel)
    behind it nowhere, so the case had to be opened to understand the report."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    document = json.loads(saved.read_text(encoding="utf-8"))
    document["commands"].append({"kind": "SubmitUser", "text": "again"})
    saved.write_text(json.dumps(document, indent=2), encoding="utf-8")
    target = "test_case_sharing:turn_end_reason_as_text"
    assert main(["replay", str(saved), "--impl", target]) == 1
    out = capsys.readouterr().out
    config = json.dumps(document["config"], ensure_ascii=False)
    shown = (
        f"{saved}: diverges; the case recorded TURN-5\n"
        f"  configuration: {config}\n"
        f"  program, {len(document['commands'])} commands (each in words, then as driver "
        "protocol JSON, command #N is $.commands[N-1]):\n"
        '    #1 the user sends "hi"\n'
        '       {"kind": "SubmitUser", "text": "hi"}\n'
        '    #2 the model replies: text "ok"\n'
        '       {"kind": "ModelReplies", "blocks": [{"type": "text", "text": "ok"}], '
        '"finish": "completed"}\n'
        "    not sent, the runs differing after #2:\n"
        '    #3 the user sends "again"\n'
        '       {"kind": "SubmitUser", "text": "again"}\n'
        "  rule TURN-5: "
    )
    assert shown in out, out


def _undescribed_fields(node: object, path: str = "$") -> list[str]:
    """The properties under `node` (a JSON Schema) without a description, tags aside."""
    found: list[str] = []
    if isinstance(node, dict):
        for name, field in node.get("properties", {}).items():
            tag = "const" in field or (
                "enum" in field and name in {"kind", "type", "decision", "ok"}
            )
            if not tag and "description" not in field:
                found.append(f"{path}.{name}")
        for key, child in node.items():
            found += _undescribed_fields(child, f"{path}.{key}" if key != "properties" else path)
    elif isinstance(node, list):
        for child in node:
            found += _undescribed_fields(child, path)
    return found


def test_PROTO_1_the_case_schema_says_what_every_field_of_config_and_commands_means(
    case_schema: Draft202012Validator,
) -> None:
    """PROTO-1: someone reading a colleague's case learns what every field of its
    configuration and commands means from `loopspec schema case` (the tutorial sends them
    there): epochMs, maxParallel, requiredKeys, finish, post, errorName... had a type and no
    word, the classes' one-line descriptions covering a few."""
    definitions = case_schema.schema["$defs"]
    missing = _undescribed_fields(definitions["config"]) + _undescribed_fields(
        definitions["command"]
    )
    assert missing == [], missing


def test_PROTO_1_replay_json_carries_the_case_s_configuration_and_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], here: None
) -> None:
    """PROTO-1: the `loopspec-replay/1` document, meant for a bug tracker, holds the case's
    configuration and program as the text report shows them, so the report stands without the
    file (it held only the number of commands; conform's document holds both)."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    case = json.loads(saved.read_text(encoding="utf-8"))
    impl = ["--impl", "test_case_sharing:turn_end_reason_as_text"]
    assert main(["replay", str(saved), *impl, "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["config"] == case["config"]
    assert document["program"] == case["commands"]
    assert document["commands"] == len(case["commands"])


def test_PROTO_1_a_one_line_case_pasted_twice_is_named_a_case_not_a_session_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a case written on one line (as `jq -c` writes it) and pasted twice is two lines
    of one JSON value each, which replay took for a session log ('one JSON value per line (JSON
    Lines, a session log?)', no line). A first line that is a case is a case: the error names
    the line where more follows it."""
    saved = write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    one_line = json.dumps(json.loads(saved.read_text(encoding="utf-8")))
    saved.write_text(f"{one_line}\n{one_line}\n", encoding="utf-8")
    assert main(["replay", str(saved)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"loopspec: error: {saved}:2: the case file is not JSON: more follows the "
        "case's closing brace: column 1\n"
    )


def test_SAFE_4_a_case_file_that_cannot_be_read_names_no_rule_and_a_device_names_SAFE_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SAFE-4, PROTO-1: a missing case file, a path with no case file, or a folder without
    one breaks no rule, and replay says so without a tag, as `check` reports a missing log
    ("error unreadable", no rule); each was tagged [PROTO-1], the driver protocol's rule. A
    device where a case file should be is refused unread under SAFE-4, the rule that says so,
    and so is a file past the cap, saying what the cap is and that a case is kilobytes; only
    what the file holds is PROTO-1's."""
    missing = tmp_path / "missing.json"
    assert main(["replay", str(missing)]) == 2
    said = f"loopspec: error: {missing}: cannot read the case file: no such file or directory\n"
    assert capsys.readouterr().err == said
    (tmp_path / "empty").mkdir()
    for argv, error in [
        ([str(tmp_path / "empty")], f"{tmp_path / 'empty'}: a directory without case files"),
        ([str(missing), str(missing)], f"{missing}: no such case file or directory"),
    ]:
        assert main(["replay", *argv]) == 2
        assert capsys.readouterr().err.startswith(f"loopspec: error: {error}")
    assert main(["replay", os.devnull]) == 2
    device = f"loopspec: error: [SAFE-4] {os.devnull}: the case file is a character device, "
    assert capsys.readouterr().err.startswith(device)
    # Over the cap, it said the bound in bytes alone: now what the bound is, and what to do.
    huge = tmp_path / "huge.json"
    with huge.open("wb") as sparse:
        sparse.truncate(16 * 1024 * 1024 + 1)
    assert main(["replay", str(huge)]) == 2
    assert capsys.readouterr().err == (
        f"loopspec: error: [SAFE-4] {huge}: the case file is larger than 16777216 bytes (16 MiB), "
        "the most loopspec reads; a case conform saves is a few kilobytes: is this the file you "
        "meant?\n"
    )
    # Named to pytest as a path, such a file is a case by its head (pytest said "not found").
    assert not holds_a_case(huge)
    huge.write_text('{"loopspec": "case", "version": 1,', encoding="utf-8")
    with huge.open("r+b") as sparse:
        sparse.truncate(16 * 1024 * 1024 + 1)
    assert holds_a_case(huge)


def test_replay_of_a_folder_writes_one_json_document_a_ci_step_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], here: None
) -> None:
    """`replay DIR --format json` (it was refused: one document per run) writes one
    loopspec-replay-cases/1 document, valid against `loopspec schema replay`: each case with its
    outcome, the loopspec-replay/1 document of each replayed to a verdict, why one was skipped or
    could not be used (said on stderr too), and the totals; the exit status is the text run's.
    Its stdout holds the document alone."""
    folder, diverging, aborting, newer = _three_cases(tmp_path)
    assert main(["schema", "replay"]) == 0
    validator = jsonschema.Draft202012Validator(json.loads(capsys.readouterr().out))
    plain = ["--impl", "plugin_targets:declares_nothing", "--format", "json"]
    assert main(["replay", str(folder), str(newer), *plain]) == 2
    said = capsys.readouterr()
    written = json.loads(said.out)
    validator.validate(written)
    assert written["format"] == "loopspec-replay-cases/1"
    assert written["target"] == "plugin_targets:declares_nothing"
    by_case = {case["case"]: case for case in written["cases"]}
    assert [case["case"] for case in written["cases"]] == [
        str(aborting),
        str(diverging),
        str(newer),
    ]
    assert by_case[str(diverging)]["outcome"] == "without divergence"
    replayed = by_case[str(diverging)]["replay"]
    assert (replayed["format"], replayed["diverges"], replayed["recordedRule"]) == (
        "loopspec-replay/1",
        False,
        "TURN-5",
    )
    skipped = by_case[str(aborting)]
    assert skipped["outcome"] == "skipped"
    assert "replay" not in skipped
    assert skipped["reason"].startswith(f"{aborting}:1: command #2 of the case (Abort) needs")
    unusable = by_case[str(newer)]
    assert unusable["outcome"] == "unusable"
    assert f"{newer}:1: $.version is 2" in unusable["reason"]
    assert f"loopspec: error: {newer}:1: $.version is 2" in said.err
    assert written["totals"] == {
        "cases": 3,
        "withoutDivergence": 1,
        "diverging": 0,
        "skipped": 1,
        "unusable": 1,
    }
    buggy = ["--impl", "test_case_sharing:turn_end_reason_as_text", "--format", "json"]
    assert main(["replay", str(diverging), str(aborting), *buggy]) == 1
    written = json.loads(capsys.readouterr().out)
    validator.validate(written)
    first = written["cases"][0]
    assert (first["outcome"], first["replay"]["divergence"]["rule"]) == ("diverging", "TURN-5")
    assert written["totals"]["diverging"] == 1
    # The one-case document is unchanged, and valid against the same schema.
    assert main(["replay", str(diverging), *buggy]) == 1
    validator.validate(json.loads(capsys.readouterr().out))
