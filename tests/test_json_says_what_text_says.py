"""What conform's and replay's text reports tell a person, their `--format json` documents tell a
CI step or an editor, each in a member `loopspec schema` describes: one row per kind of line
the text can print that a document lacked (Ctrl-C or cutting down's own bounds ending the
shrinking, an --exhaustive pass that found nothing or was skipped, each outcome of
`replay --reduce`, the cut-down program it could not save)."""

from __future__ import annotations

import errno
import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest
from test_case_travel import _failed_report

from loopspec.properties.cli import conform_run
from loopspec.properties.cli.main import main
from loopspec.properties.conformance.report_documents import document_schema

BUGGY = ["--impl", "test_case_travel:turn_end_reason_as_text"]
MODEL = ["--impl", "loopspec.properties.conformance.target:ModelTarget"]


@functools.cache
def _validator(verb: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(document_schema(verb))


def _conform_report(**changed: Any) -> tuple[str, dict[str, Any]]:
    """The text and the JSON document of a TURN-5 counterexample's report, `changed` so."""
    report = attrs.evolve(_failed_report(), **changed)
    conform_run._text_report(report, Path("case.json"), {"impl": "mine:make"})
    document = conform_run.json_report(report, Path("case.json"), {"impl": "mine:make"})
    return "", document


def _replay_reduce(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    target: list[str],
    *,
    cut: int = 0,
    read_only: pytest.MonkeyPatch | None = None,
) -> tuple[str, dict[str, Any]]:
    """`replay CASE --reduce` on `target` in text, then in JSON, of a case saved `cut` times
    cut down already (the text run's cut-down case is found again by the JSON run), in a
    folder then `read_only`."""
    saved = conform_run.write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    for _ in range(cut):
        assert main(["replay", str(saved), *target, "--reduce"]) == 1
        saved = sorted(tmp_path.iterdir())[-1]
    if read_only is not None:
        _unwritable(read_only)
    capsys.readouterr()
    status = main(["replay", str(saved), *target, "--reduce"])
    text = capsys.readouterr().out
    assert main(["replay", str(saved), *target, "--reduce", "--format", "json"]) == status
    return text, json.loads(capsys.readouterr().out)


def _hand_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, dict[str, Any]]:
    """A case written by hand (no target, no rule: a question) replayed on the model, in text
    then in JSON."""
    saved = conform_run.write_case_file(_failed_report(), tmp_path, {})
    case = json.loads(saved.read_text(encoding="utf-8"))
    question = tmp_path / "question.json"
    kept = ("loopspec", "version", "config", "commands")
    question.write_text(json.dumps({key: case[key] for key in kept}), encoding="utf-8")
    assert main(["replay", str(question), "--bundled"]) == 0
    text = capsys.readouterr().out
    assert main(["replay", str(question), "--bundled", "--format", "json"]) == 0
    return text, json.loads(capsys.readouterr().out)


def _recorded_as(
    rule: str,
    target: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    **recorded: object,
) -> tuple[str, dict[str, Any]]:
    """A TURN-5 case said to record `rule` (and the members `recorded`), replayed on `target`,
    text and JSON."""
    saved = conform_run.write_case_file(_failed_report(), tmp_path, {"impl": "mine:make"})
    case = json.loads(saved.read_text(encoding="utf-8"))
    saved.write_text(json.dumps({**case, "rule": rule, **recorded}), encoding="utf-8")
    assert main(["replay", str(saved), *target]) == 0
    text = capsys.readouterr().out
    assert main(["replay", str(saved), *target, "--format", "json"]) == 0
    return text, json.loads(capsys.readouterr().out)


def _recorded_hist_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[str, dict[str, Any]]:
    """A case recording HIST-1 replayed, passing, on a loop that does not declare history."""
    return _recorded_as("HIST-1", ["--impl", "plugin_targets:declares_nothing"], tmp_path, capsys)


def _recorded_dec_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[str, dict[str, Any]]:
    """A TURN-5 case said to record DEC-1, replayed, passing: no command of it denies a call."""
    return _recorded_as("DEC-1", list(MODEL), tmp_path, capsys)


def _unwritable(monkeypatch: pytest.MonkeyPatch) -> None:
    def read_only(document: object, folder: Path) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(folder / "case-TURN-5-1.json"))

    monkeypatch.setattr(conform_run, "_save_case_document", read_only)


Shown = Callable[[Path, pytest.CaptureFixture[str], pytest.MonkeyPatch], tuple[str, dict[str, Any]]]

# Each kind of line: how to make the text print it, the words it prints, the verb whose schema
# the document follows, and what the document says of it.
LINE_KINDS: dict[str, tuple[Shown, str, str, Callable[[dict[str, Any]], object], object]] = {
    "conform: Ctrl-C ended the shrinking": (
        lambda _tmp, _out, _patch: _conform_report(stopped_by_ctrl_c=True),
        "  Ctrl-C stopped the shrinking: the smallest program found by then is shown",
        "conform",
        lambda document: (document["stoppedByCtrlC"], document["cutShort"]),
        (True, False),
    ),
    "conform: cutting down stopped at its own bounds": (
        lambda _tmp, _out, _patch: _conform_report(cut_short=True),
        "  cutting the program down stopped after 60 s or 2000 replays",
        "conform",
        lambda document: (document["stoppedByCtrlC"], document["cutShort"]),
        (False, True),
    ),
    "conform: a divergence not repeated when rerun": (
        lambda _tmp, _out, _patch: _conform_report(unrepeated=True),
        ": DIVERGED ONCE, NOT WHEN RERUN: TURN-5 (loopspec spec TURN-5)\n",
        "conform",
        lambda document: (document["verdict"], document["unrepeated"]),
        ("DIVERGED ONCE, NOT WHEN RERUN", True),
    ),
    "replay: a hand-written case's answers": (
        lambda tmp, out, _patch: _hand_written(tmp, out),
        "  the model answered, and the target alike:\n    #1 the user sends ",
        "replay",
        lambda document: [
            (answer["commandIndex"], answer["answerWords"].startswith("appended "))
            for answer in document["answers"]
        ],
        [(0, True), (1, True)],
    ),
    "replay: a pass on a target that cannot show the recorded rule": (
        lambda tmp, out, _patch: _recorded_hist_1(tmp, out),
        "the case recorded HIST-1, which this target cannot show: it does not declare history",
        "replay",
        lambda document: (document["recordedRule"], document["recordedRuleUnseen"]),
        ("HIST-1", "history"),
    ),
    "replay: a pass whose program no longer sets up the recorded rule": (
        lambda tmp, out, _patch: _recorded_dec_1(tmp, out),
        "no divergence: passes, but this program no longer sets up DEC-1, the rule the case",
        "replay",
        lambda document: (document["recordedRule"], document["recordedRuleUnreached"]),
        ("DEC-1", True),
    ),
    "replay: a pass of a case saved from a divergence not repeated": (
        lambda tmp, out, _patch: _recorded_as("TURN-5", MODEL, tmp, out, unrepeated=True),
        "no divergence: passes this time, but the case was saved from a divergence (TURN-5) its "
        "loop did not repeat when conform ran the program again\n  the loop answered this "
        "program two ways",
        "replay",
        lambda document: (document["recordedRule"], document["recordedUnrepeated"]),
        ("TURN-5", True),
    ),
    "replay --reduce: saved": (
        lambda tmp, out, _patch: _replay_reduce(tmp, out, BUGGY),
        "commands still diverge on TURN-5",
        "replay",
        lambda document: (
            document["reduced"]["outcome"],
            document["reduced"]["rule"],
            len(document["reduced"]["program"]) == document["reduced"]["commands"] == 2,
        ),
        # The text run saved it: found again by the JSON run.
        ("already saved", "TURN-5", True),
    ),
    "replay --reduce: not saved, the cut-down program shown": (
        lambda tmp, out, patch: _replay_reduce(tmp, out, BUGGY, read_only=patch),
        "not saved (the error is on stderr); the cut-down case:\n  configuration: {",
        "replay",
        lambda document: (
            document["reduced"]["outcome"],
            document["reduced"]["case"],
            len(document["reduced"]["program"]),
            document["reduced"]["error"].endswith("read-only file system"),
        ),
        ("not saved", None, 2, True),
    ),
    "replay --reduce: nothing can be cut": (
        lambda tmp, out, _patch: _replay_reduce(tmp, out, BUGGY, cut=1),
        "reduced: nothing can be cut: each of its 2 commands",
        "replay",
        lambda document: (
            document["reduced"]["outcome"],
            document["reduced"]["commands"],
            "program" in document["reduced"],
        ),
        ("nothing can be cut", 2, False),
    ),
    "replay --reduce: the case passes": (
        lambda tmp, out, _patch: _replay_reduce(tmp, out, MODEL),
        "reduced: nothing: the case passes on this target",
        "replay",
        lambda document: (document["reduced"]["outcome"], document["reduced"]["rule"]),
        ("case passes", None),
    ),
}


@pytest.mark.parametrize("kind", LINE_KINDS)
def test_PROTO_1_TURN_5_each_line_of_the_text_report_is_a_member_of_the_json_document(
    kind: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PROTO-1, of a TURN-5 case: conform's JSON said neither that Ctrl-C nor cutting down's own
    bounds (60 s, 2000 replays) ended the shrinking, which its text says under the counts;
    `replay --reduce --format json` said nothing of the cutting, so a CI step never learnt the
    cut-down case's name, nor, when it could not be saved, its program (printed nowhere, text
    or JSON); a hand-written case's answers, which its text prints, were in no member, nor
    that a pass could not show the rule the case recorded (the target lacks its capability).
    Each is a member now, in the schema `loopspec schema` prints."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    monkeypatch.chdir(tmp_path)
    make, words, verb, member, expected = LINE_KINDS[kind]
    text, document = make(tmp_path, capsys, monkeypatch)
    text = text or capsys.readouterr().out
    assert words in text
    _validator(verb).validate(document)
    assert member(document) == expected


@pytest.mark.parametrize("declares", ["everything", "nothing"])
def test_PROTO_1_conform_json_carries_its_exhaustive_pass_s_guarantee_or_skip(
    declares: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PROTO-1: `conform --exhaustive K --format json` put the pass's guarantee ("every program
    of at most K commands ... agrees with the model"), or that it was skipped for capabilities
    the target lacks, on stderr alone: the document a CI step keeps did not say the pass ran.
    (The random search after the pass is a canned clean report: its sweeps cost a second.)"""
    clean = attrs.evolve(_failed_report(), divergence=None)
    monkeypatch.setattr(conform_run, "run_conformance", lambda *_args, **_kwargs: clean)
    target = [] if declares == "everything" else ["--impl", "plugin_targets:declares_nothing"]
    run = ["conform", "--exhaustive", "1", "--examples", "1", "--steps", "1", *target]
    run += ["--case-dir", str(tmp_path), "--format", "json"]
    assert main(run) == 0
    said = capsys.readouterr()
    document = json.loads(said.out)
    _validator("conform").validate(document)
    exhaustive = document["exhaustive"]
    assert exhaustive["k"] == 1
    if declares == "everything":
        assert said.err.startswith(f"exhaustive: {exhaustive['guarantee']}; ")
        assert f"{exhaustive['runs']} runs" in said.err
        assert exhaustive["skippedFor"] == []
    else:
        assert exhaustive["guarantee"] is None
        assert said.err.startswith("exhaustive: skipped, the target does not declare ")
        assert ", ".join(exhaustive["skippedFor"]) in said.err
