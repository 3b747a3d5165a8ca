"""loopspec as a step of a user's CI: exit statuses a script can tell apart, and output a CI log
can follow (docs/conform.md, "loopspec in CI")."""

from __future__ import annotations

import pytest

from loopspec.properties.cli import schema as cli_schema
from loopspec.properties.cli.main import INTERNAL_ERROR_STATUS, VERBS, main


def test_a_bug_in_loopspec_exits_3_with_its_traceback_not_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception no verb expected is loopspec's bug: Python's own status for it, 1, is what a
    CI step reads as "the checked loop broke a rule". It ends with 3, its traceback and a line
    saying whose bug it is."""

    def broken_schema() -> dict[str, object]:
        raise ZeroDivisionError("a bug planted by the test")

    monkeypatch.setattr(cli_schema, "protocol_schema", broken_schema)
    status = main(["schema"])
    err = capsys.readouterr().err
    assert status == INTERNAL_ERROR_STATUS == 3
    assert "Traceback" in err
    assert "ZeroDivisionError: a bug planted by the test" in err
    assert (
        err.rstrip()
        .splitlines()[-1]
        .startswith("loopspec: internal error: the traceback above is a bug in loopspec")
    )


@pytest.mark.parametrize("verb", [None, *(verb.name for verb in VERBS)])
def test_every_help_names_the_status_of_a_bug_in_loopspec(
    verb: str | None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`loopspec --help` and each verb's say what 3 means, beside 0, 1 and 2."""
    monkeypatch.setenv("COLUMNS", "200")  # one line per paragraph
    with pytest.raises(SystemExit):
        main(["--help"] if verb is None else [verb, "--help"])
    status_paragraph = capsys.readouterr().out.split("exit status: ", 1)[1]
    assert "3 loopspec itself failed" in " ".join(status_paragraph.split())
