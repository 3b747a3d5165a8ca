"""`loopspec schema check`: the JSON Schema of `check --format json`, made from the shapes the
writer writes from (`logcheck.report`), admits every document check writes over the repo's
logs, and every key of it is written somewhere: a key written outside those shapes, or one the
shapes hold that no log shows, fails here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from check_fixtures import FIXTURES

from loopspec.properties.cli.main import main
from loopspec.properties.logcheck import report
from loopspec.properties.logcheck.check_example import commented_example
from loopspec.properties.logcheck.report_schema import check_schema

# Each run of the whole set: the options that add keys (--known, --strict-known,
# --fail-on-hook-faults) and a bound that leaves violations unlisted.
OPTION_SETS = (
    (),
    ("--known", "claude-code", "--strict-known"),
    ("--known", "codex,RW-1", "--fail-on-hook-faults", "--max-violations", "1"),
)
ACP_RECORDINGS = FIXTURES.parent / "acp"
LOGS = sorted(
    path
    for folder in (FIXTURES, ACP_RECORDINGS)
    for path in folder.rglob("*")
    if path.is_file() and ".jsonl" in path.name
)


def _printed_schema(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["schema", "check"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert isinstance(schema, dict)
    return schema


def _documents(capsys: pytest.CaptureFixture[str], home: Path) -> list[dict[str, Any]]:
    """What `check --format json` writes of each log alone, of the whole folder with a home
    folder holding a prompt history (skipped), and of a folder with no log, under each option
    set."""
    empty = home.parent / "no-log-here"  # a folder named with no log under it
    empty.mkdir()
    inputs = [[str(log)] for log in LOGS] + [
        [str(FIXTURES), str(ACP_RECORDINGS), str(home)],
        [str(empty)],
    ]
    documents = []
    for options in OPTION_SETS:
        for paths in inputs:
            status = main(["check", "--format", "json", *options, *paths])
            document = json.loads(capsys.readouterr().out)
            assert document["summary"]["exit_code"] == status
            documents.append(document)
    return documents


def _home(tmp_path: Path) -> Path:
    claude = tmp_path / "home" / ".claude"
    claude.mkdir(parents=True)
    (claude / "history.jsonl").write_text('{"display": "hi", "timestamp": 1, "project": "/w"}\n')
    return claude


def _keys_written(value: object, schema: dict[str, Any], where: str, seen: set[str]) -> None:
    """Add to `seen` each `OBJECT.KEY` of `value`, an instance of the object `where` names."""
    if isinstance(value, list):
        for item in value:
            _keys_written(item, schema, where, seen)
        return
    assert isinstance(value, dict)
    described = schema if where == "document" else schema["$defs"][where]
    # Written in the order the schema lists them (and report.py's example shows them).
    order = [key for key in described["properties"] if key in value]
    assert list(value) == order, where
    for key, held in value.items():
        seen.add(f"{where}.{key}")
        inner = described["properties"][key]
        inner = inner.get("items", inner.get("additionalProperties", inner))
        if isinstance(inner, dict) and "$ref" in inner:
            nested = inner["$ref"].removeprefix("#/$defs/")
            is_map = "additionalProperties" in described["properties"][key]
            # A map (rule or loop -> object): its values are the objects.
            _keys_written(list(held.values()) if is_map else held, schema, nested, seen)


def _keys_described(schema: dict[str, Any]) -> set[str]:
    described = {f"document.{key}" for key in schema["properties"]}
    for name, definition in schema["$defs"].items():
        described |= {f"{name}.{key}" for key in definition["properties"]}
    return described


@pytest.mark.no_cover
def test_every_document_check_writes_over_the_repo_logs_validates_and_shows_every_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Every log of tests/fixtures (dsh logs valid, broken, bad and crashed, Claude Code
    transcripts, Codex rollouts, ACP recordings), alone and together with a prompt history to
    skip, under the options that add keys: each document is valid, and together they hold every
    key the schema describes (so a key the writer adds on any of these paths, outside the
    shapes, is refused by `additionalProperties: false`)."""
    schema = _printed_schema(capsys)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    seen: set[str] = set()
    documents = _documents(capsys, _home(tmp_path))
    for document in documents:
        errors = sorted(validator.iter_errors(document), key=lambda error: list(error.path))
        assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:3]]
        _keys_written(document, schema, "document", seen)
    assert seen == _keys_described(schema)


def test_a_key_written_beside_the_shapes_fails_validation(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The schema is closed: a log entry with a key no `Key` names (a writer that grew one by
    hand) is refused, as is one missing a required key."""
    validator = jsonschema.Draft202012Validator(_printed_schema(capsys))
    main(["check", "--format", "json", str(FIXTURES / "violations" / "ADJ-1.jsonl")])
    document = json.loads(capsys.readouterr().out)
    assert validator.is_valid(document)
    grown = json.loads(json.dumps(document))
    grown["logs"][0]["violations"][0]["column"] = 3
    assert not validator.is_valid(grown)
    shrunk = json.loads(json.dumps(document))
    del shrunk["summary"]["exit_code"]
    assert not validator.is_valid(shrunk)


def test_the_schema_says_what_each_key_means_and_keeps_the_documented_format() -> None:
    """Each object and key is described, `format` is the one constant the document holds, and
    the optional keys are those the format's documentation says appear only sometimes."""
    schema = check_schema()
    assert schema["properties"]["format"]["const"] == report.FORMAT == "loopspec-check/1"
    for definition in [schema, *schema["$defs"].values()]:
        assert definition["description"]
        assert all(key["description"] for key in definition["properties"].values())
    optional = {
        f"{name}.{key}"
        for name, definition in schema["$defs"].items()
        for key in definition["properties"]
        if key not in definition["required"]
    }
    assert optional == {
        "log.known_divergences",
        "log.known_divergences_omitted",
        "log.known_rules",
        "summary.known_divergences",
        "summary.known_divergences_by_rule",
        "summary.known_divergence_hints",
        "summary.known_lists",
        "summary.strict_known",
        "summary.hook_faults_fail",
        "summary.skipped",
        "summary.skipped_by_kind",
        "violation.not_known",
    }
    assert schema["required"] == ["format", "logs", "summary"]


def test_the_documented_example_is_made_from_the_keys_meanings() -> None:
    """What each key means was written twice, in the shapes the schema is made from and in
    report.py's commented example, and the two drifted (`summary.logs`: "a folder with no log
    is none" there, "is in logs for its error only" here). The example is now made from the
    shapes; report.py's documentation holds it as made (paste `python -m
    loopspec.properties.logcheck.check_example` after a change)."""
    assert commented_example() in (report.__doc__ or "")


def test_the_flags_that_raise_the_exit_code_follow_it_in_the_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`strict_known` and `hook_faults_fail` say why `exit_code` is what it is: they follow it,
    where `hook_faults_fail` came after the whole of `known_lists`, far from the status it
    explains. The order is the schema's (the test above holds every document to it)."""
    log = str(FIXTURES / "violations" / "ADJ-1.jsonl")
    options = ["--known", "claude-code", "--strict-known", "--fail-on-hook-faults"]
    main(["check", "--format", "json", *options, log])
    summary = list(json.loads(capsys.readouterr().out)["summary"])
    at = summary.index("exit_code")
    assert summary[at : at + 3] == ["exit_code", "strict_known", "hook_faults_fail"], summary
