"""The closed unions are enforced by the type checker (rules VIEW-1, HIST-1).

Each union gets a `match` that forgets one variant and ends in `assert_never`: mypy must reject
it and name the forgotten class. The complete switch is the control that mypy accepts, so a
failure here cannot come from a broken snippet or a broken environment.
"""

from __future__ import annotations

import re
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


def mypy_verdicts(snippets: dict[str, str], directory: Path) -> dict[str, tuple[int, str]]:
    """mypy's exit status and messages for each snippet as if it were checked alone, from one
    run: each snippet is its own module, so its messages are told apart by file name, and
    loopspec.model is loaded and checked once rather than once per snippet. An error outside
    the snippets (in the model itself) counts against every snippet, as it would alone."""
    # An empty config keeps the project's `files` setting out of the run.
    config = directory / "mypy.ini"
    config.write_text("[mypy]\n")
    paths = {name: directory / f"switch_{name}.py" for name in snippets}
    for name, path in paths.items():
        path.write_text(snippets[name])
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        patch.setenv("MYPYPATH", str(ROOT))
        stdout, stderr, status = api.run(
            [
                "--config-file",
                str(config),
                "--strict",
                "--no-incremental",
                "--enable-error-code",
                "exhaustive-match",
                "--cache-dir",
                str(directory / "cache"),
                *(str(path) for path in paths.values()),
            ]
        )
    output = stdout + stderr
    assert status in (0, 1), output  # 2: mypy itself failed
    located = [line for line in output.splitlines() if re.match(r"[^:\s]+:\d+: ", line)]
    snippet_files = {path.name for path in paths.values()}
    elsewhere = [
        line
        for line in located
        if Path(line.split(":", 1)[0]).name not in snippet_files and ": error:" in line
    ]
    verdicts = {}
    for name, path in paths.items():
        own = [line for line in located if Path(line.split(":", 1)[0]).name == path.name]
        lines = own + elsewhere
        failed = any(": error:" in line for line in lines)
        verdicts[name] = (1 if failed else 0, "\n".join(lines))
    return verdicts


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


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str]]:
    """mypy's verdict on every union's switch, missing one variant and complete (one run)."""
    snippets = {}
    for key, (module, union, handled, missing) in UNIONS.items():
        name = key.replace("-", "_")
        snippets[f"{name}_missing"] = switch_snippet(module, union, handled)
        snippets[f"{name}_complete"] = switch_snippet(module, union, [*handled, missing])
    return mypy_verdicts(snippets, tmp_path_factory.mktemp("switches"))


def assert_missing_variant_rejected(union_key: str, verdicts: dict[str, tuple[int, str]]) -> None:
    _module, _union, _handled, missing = UNIONS[union_key]
    status, output = verdicts[f"{union_key.replace('-', '_')}_missing"]
    assert status == 1, output
    assert f'"{missing}"' in output, output
    assert "assert_never" in output, output


def assert_complete_switch_accepted(union_key: str, verdicts: dict[str, tuple[int, str]]) -> None:
    status, output = verdicts[f"{union_key.replace('-', '_')}_complete"]
    assert status == 0, output


def test_VIEW_1_call_view_switch_missing_a_variant_fails_type_check(
    verdicts: dict[str, tuple[int, str]],
) -> None:
    """VIEW-1: a switch over ToolCallView without DiffCallView is a type error naming it."""
    assert_missing_variant_rejected("call-views", verdicts)


def test_VIEW_1_complete_call_view_switch_type_checks(
    verdicts: dict[str, tuple[int, str]],
) -> None:
    """VIEW-1: control: the switch over all three call views passes."""
    assert_complete_switch_accepted("call-views", verdicts)


def test_VIEW_1_result_view_switch_missing_a_variant_fails_type_check(
    verdicts: dict[str, tuple[int, str]],
) -> None:
    """VIEW-1: a switch over ToolResultView without TerminalResultView is a type error naming it."""
    assert_missing_variant_rejected("result-views", verdicts)


def test_VIEW_1_complete_result_view_switch_type_checks(
    verdicts: dict[str, tuple[int, str]],
) -> None:
    """VIEW-1: control: the switch over all three result views passes."""
    assert_complete_switch_accepted("result-views", verdicts)


def test_HIST_1_message_switch_missing_a_variant_fails_type_check(
    verdicts: dict[str, tuple[int, str]],
) -> None:
    """HIST-1: a switch over Message without ToolResultMessage is a type error naming it."""
    assert_missing_variant_rejected("messages", verdicts)


def test_HIST_1_complete_message_switch_type_checks(
    verdicts: dict[str, tuple[int, str]],
) -> None:
    """HIST-1: control: the switch over all three message classes passes."""
    assert_complete_switch_accepted("messages", verdicts)


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
        # Switched over by the reports' plain-words listing (properties/cli/command_words.py).
        "commands": (
            "loopspec.model.commands",
            "Command",
            [
                "SubmitUser",
                "ModelReplies",
                "ModelFails",
                "HookAnswers",
                "ApprovalAnswers",
                "ToolFinishes",
                "Abort",
                "Crash",
            ],
            "Recover",
        ),
    }
)


@pytest.mark.parametrize("union_key", ["phases", "pre-verdicts", "surface-ops", "commands"])
def test_MODEL_1_model_union_switches_are_checked_exhaustively(
    union_key: str, verdicts: dict[str, tuple[int, str]]
) -> None:
    """MODEL-1: the model's own closed unions (phases, hook verdicts, surface ops) are closed
    for the type checker too: a forgotten variant is rejected, the complete switch passes."""
    assert_missing_variant_rejected(union_key, verdicts)
    assert_complete_switch_accepted(union_key, verdicts)
