"""The closed unions are enforced by the type checker (rules VIEW-1, HIST-1).

Each union gets a `match` that forgets one variant and ends in `assert_never`: mypy must reject
it and name the forgotten class. The complete switch is the control that mypy accepts, so a
failure here cannot come from a broken snippet or a broken environment.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from mypy import api

ROOT = Path(__file__).resolve().parent.parent


def switch_snippet(module: str, union: str, variants: list[str]) -> str:
    """A function switching over `union` with one `case` per name in `variants`."""
    cases = "".join(f"        case {name}():\n            return {name!r}\n" for name in variants)
    return textwrap.dedent(
        f"""\
        from typing import assert_never

        from {module} import {union}, {", ".join(variants)}


        def render(value: {union}) -> str:
            match value:
        """
    ) + (cases + "        case _:\n            assert_never(value)\n")


def run_mypy(snippet: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    # An empty config keeps the project's `files` setting out of a `-c` run.
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MYPYPATH", str(ROOT))
    stdout, stderr, status = api.run(
        [
            "--config-file",
            str(config),
            "--strict",
            "--no-incremental",
            "--enable-error-code",
            "exhaustive-match",
            "--cache-dir",
            str(tmp_path / "cache"),
            "-c",
            snippet,
        ]
    )
    return status, stdout + stderr


UNIONS = {
    "call-views": (
        "loopspec.model.views",
        "ToolCallView",
        ["GenericCallView", "TerminalCallView"],
        "DiffCallView",
    ),
    "result-views": (
        "loopspec.model.views",
        "ToolResultView",
        ["GenericResultView", "DiffResultView"],
        "TerminalResultView",
    ),
    "messages": (
        "loopspec.model.messages",
        "Message",
        ["UserMessage", "AssistantMessage"],
        "ToolResultMessage",
    ),
}


def assert_missing_variant_rejected(
    union_key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, union, handled, missing = UNIONS[union_key]
    status, output = run_mypy(switch_snippet(module, union, handled), tmp_path, monkeypatch)
    assert status == 1, output
    assert f'"{missing}"' in output, output
    assert "assert_never" in output, output


def assert_complete_switch_accepted(
    union_key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, union, handled, missing = UNIONS[union_key]
    status, output = run_mypy(
        switch_snippet(module, union, [*handled, missing]), tmp_path, monkeypatch
    )
    assert status == 0, output


def test_VIEW_1_call_view_switch_missing_a_variant_fails_type_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """VIEW-1: a switch over ToolCallView without DiffCallView is a type error naming it."""
    assert_missing_variant_rejected("call-views", tmp_path, monkeypatch)


def test_VIEW_1_complete_call_view_switch_type_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """VIEW-1: control: the switch over all three call views passes."""
    assert_complete_switch_accepted("call-views", tmp_path, monkeypatch)


def test_VIEW_1_result_view_switch_missing_a_variant_fails_type_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """VIEW-1: a switch over ToolResultView without TerminalResultView is a type error naming it."""
    assert_missing_variant_rejected("result-views", tmp_path, monkeypatch)


def test_VIEW_1_complete_result_view_switch_type_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """VIEW-1: control: the switch over all three result views passes."""
    assert_complete_switch_accepted("result-views", tmp_path, monkeypatch)


def test_HIST_1_message_switch_missing_a_variant_fails_type_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HIST-1: a switch over Message without ToolResultMessage is a type error naming it."""
    assert_missing_variant_rejected("messages", tmp_path, monkeypatch)


def test_HIST_1_complete_message_switch_type_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HIST-1: control: the switch over all three message classes passes."""
    assert_complete_switch_accepted("messages", tmp_path, monkeypatch)


UNIONS.update(
    {
        "phases": (
            "loopspec.model.state",
            "Phase",
            ["Idle", "AwaitingModel", "Rewriting", "Crashed"],
            "Dispatching",
        ),
        "pre-verdicts": ("loopspec.model.commands", "PreVerdict", ["Pass", "Allow", "Deny"], "Ask"),
        "surface-ops": ("loopspec.model.events", "SurfaceOp", ["SurfaceAppend"], "SurfaceReplace"),
    }
)


@pytest.mark.parametrize("union_key", ["phases", "pre-verdicts", "surface-ops"])
def test_MODEL_1_model_union_switches_are_checked_exhaustively(
    union_key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MODEL-1: the model's own closed unions (phases, hook verdicts, surface ops) are closed
    for the type checker too: a forgotten variant is rejected, the complete switch passes."""
    assert_missing_variant_rejected(union_key, tmp_path, monkeypatch)
    assert_complete_switch_accepted(union_key, tmp_path, monkeypatch)
