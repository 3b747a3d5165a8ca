"""TEXT-1:output-shape: what the real CLIs' shell tools make of a long or padded output.

Observed on the pinned binaries through their adapters (a tool's output printed by the control
client, the result read from the transcript or rollout and from the model requests, which agree):

- Codex 0.171.0 keeps an output of up to 10,000 UTF-8 bytes whole, a final newline too; a longer
  one becomes `Warning: truncated output (original token count: T)`, `Total output lines: L`, a
  blank line, then its first 5,000 bytes, `…N chars truncated…` and its last 5,000 bytes (T: the
  bytes over 4 rounded up, N: the characters left out);
- Claude Code 2.1.332 drops an output's leading blank lines and trailing whitespace, and saves one
  of more than 30,000 bytes to a file, sending a `<persisted-output>` notice with its size in KB
  and a preview of at most its first 2,000 characters, cut back to a line's end.

Each test plays a loop written here (the model, its results shaped by hand as a CLI shapes them,
or shaped wrongly) under a profile: the CLI's own shaping passes, anything else is still blamed.
The real binaries replay `tests/regressions/{claude-code,codex}-TEXT-1-output-shape.json`
(tests/test_real_harness_conform.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import attrs
import pytest

from loopspec.model.commands import (
    Command,
    ModelReplies,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.conformance.compare import DivergenceFound
from loopspec.properties.conformance.driver_protocol import CAPABILITIES
from loopspec.properties.conformance.run import Replay, replay_case
from loopspec.properties.conformance.situation_sweep import (
    SITUATIONS,
    settled_program,
    sweep_situations,
)
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.profiles import PROFILES
from loopspec.properties.stateful import strategies as gen

# 99 characters and a newline a line: LONG is 12,000 bytes, past Codex's 10,000.
LINE = "0123456789" * 9 + "abcdefghi\n"
LONG = LINE * 60 * 2
Shape = Callable[[str], str]


def _program(outcome: ToolOutcome) -> list[Command]:
    return [
        SubmitUser("hi"),
        ModelReplies((ToolCallBlock("c1", "read", gen.ARGUMENTS["read"][0]),)),
        ToolFinishes("c1", outcome),
        ModelReplies((TextBlock("done"),)),
    ]


def _shaping(shape: Shape, codex: bool) -> type[ModelTarget]:
    """The model, but each result's output (after a failure's `Error: `) shaped by `shape`, in
    Codex's envelope for `codex`."""

    class Shaping(ModelTarget):
        name = "shaping"

        def reset(self, config: LoopConfig) -> frozenset[str]:
            # Its history would be the model's, unshaped: a CLI's requests carry its log's.
            self.reporting_history = False
            return super().reset(config) - {"history"}

        def apply(self, command: Command) -> Observation:
            observation = super().apply(command)
            events = [copy.deepcopy(event) for event in observation.events]
            for event in events:
                if event["type"] == "tool/result":
                    text = event["data"]["message"]["content"][0]["content"][0]
                    failed = text["text"].startswith("Error: ")
                    output = shape(text["text"].removeprefix("Error: "))
                    if codex:
                        text["text"] = _codex_envelope(output, exit_code=int(failed))
                    else:
                        text["text"] = f"Error: {output}" if failed else output
            return attrs.evolve(observation, events=tuple(events))

    return Shaping


def _codex_envelope(output: str, exit_code: int) -> str:
    tokens = (len(output.encode()) + 3) // 4
    return (
        f"Chunk ID: 1a2b3c\nWall time: 0.2500 seconds\nProcess exited with code {exit_code}\n"
        f"Original token count: {tokens}\nOutput:\n{output}"
    )


def _codex_cut(output: str, keep: int = 5_000, past: int = 10_000) -> str:
    """An output as Codex cuts it, `keep` bytes at each end past `past` bytes (ASCII here)."""
    if len(output.encode()) <= past:
        return output
    head, tail = output[:keep], output[-keep:]
    tokens = (len(output.encode()) + 3) // 4
    return (
        f"Warning: truncated output (original token count: {tokens})\n"
        f"Total output lines: {len(output.splitlines())}\n\n"
        f"{head}…{len(output) - len(head) - len(tail)} chars truncated…{tail}"
    )


def _persisted(output: str, preview: str, size: str | None = None) -> str:
    kilobytes = size or f"{len(output.encode()) / 1024:.1f}"
    return (
        f"<persisted-output>\nOutput too large ({kilobytes}KB). Full output saved to: "
        "/tmp/home/.claude/projects/work/tool-results/b1.txt\n\n"
        f"Preview (first 2KB):\n{preview}\n...\n</persisted-output>"
    )


def _claude_code(output: str) -> str:
    lines = output.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    trimmed = "\n".join(lines).rstrip()
    if len(output.encode()) <= 30_000:
        return trimmed
    preview = trimmed[:2_000]
    return _persisted(output, preview[: preview.rfind("\n")] if "\n" in preview else preview)


def _replay(shape: Shape, outcome: ToolOutcome, harness: str) -> Replay:
    return replay_case(
        _shaping(shape, codex=harness == "codex"),
        LoopConfig(tools=gen.TOOLS),
        _program(outcome),
        PROFILES[harness],
    )


def _passes(replay: Replay) -> bool:
    assert replay.stopped_by is None
    assert not replay.refused
    return replay.divergence is None and "TEXT-1:output-shape" in replay.known


@pytest.mark.parametrize(
    "outcome",
    [
        ToolSucceeded(LONG),
        ToolSucceeded("é" * 5_001 + "\n"),  # 10,003 bytes: bytes count, not characters
        ToolFailed(LONG),
    ],
)
def test_TEXT_1_codex_s_cut_of_a_long_output_is_known(outcome: ToolOutcome) -> None:
    """Codex cuts an output past 10,000 bytes to its first and last 5,000 (ASCII here; the
    two-byte case is cut at 2,500 characters each end) and says so: its profile knows that."""

    def codex(output: str) -> str:
        size = len(output.encode())
        keep = 5_000 * len(output) // size
        return _codex_cut(output, keep=keep)

    assert _passes(_replay(codex, outcome, "codex"))


def test_TEXT_1_codex_keeps_an_output_s_final_newline() -> None:
    """An output of at most 10,000 bytes is Codex's result whole, a final newline too. The profile
    dropped one final newline of the CLI's output only, so a loop keeping it, as Codex does and
    the model does, was blamed on EXE-4."""
    replay = _replay(str, ToolSucceeded(LINE * 99), "codex")
    assert replay.stopped_by is None
    assert replay.divergence is None, replay.divergence.what


@pytest.mark.parametrize(
    ("outcome", "shape"),
    [
        # A cut at 8,000 bytes, not 10,000: a loop cutting short is not Codex.
        (ToolSucceeded(LONG[:9_000]), lambda o: _codex_cut(o, keep=4_000, past=8_000)),
        # Head only.
        (ToolSucceeded(LONG), lambda o: _codex_cut(o).split("…")[0] + "…2000 chars truncated…"),
        # The right form, a wrong count of what it cut.
        (ToolSucceeded(LONG), lambda o: _codex_cut(o).replace("…2000 ", "…1999 ")),
        # Claude Code's trimming is not Codex's.
        (ToolSucceeded("A\n"), str.rstrip),
    ],
)
def test_TEXT_1_an_output_cut_otherwise_than_codex_does_is_blamed(
    outcome: ToolOutcome, shape: Shape
) -> None:
    replay = _replay(shape, outcome, "codex")
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-4", replay.divergence.what


@pytest.mark.parametrize(
    "outcome",
    [
        ToolSucceeded("\n  \n out\tput  \n\n"),
        ToolFailed("boom\n"),
        ToolSucceeded(LINE * 302),  # 30,200 bytes
        ToolSucceeded("a" * 30_001),  # a preview of 2,000 characters: no line ends in it
        ToolSucceeded("é" * 15_001),  # 30,002 bytes in 15,001 characters
        ToolSucceeded(LINE * 300 + "\n\n"),  # trimmed to 29,999 bytes, persisted by its size
        ToolSucceeded("abc def\n" * 4_000),  # 31.25 KB, which Claude Code words 31.3KB
    ],
)
def test_TEXT_1_claude_code_s_trimming_and_persisted_output_are_known(
    outcome: ToolOutcome,
) -> None:
    def claude_code(output: str) -> str:
        size = len(output.encode()) / 1024
        words = f"{size:.2f}".endswith("5") and f"{size + 0.01:.1f}"
        shaped = _claude_code(output)
        return shaped.replace(f"({size:.1f}KB)", f"({words}KB)") if words else shaped

    assert _passes(_replay(claude_code, outcome, "claude-code"))


@pytest.mark.parametrize(
    ("outcome", "shape"),
    [
        # Persisted at 25,500 bytes, not past 30,000.
        (ToolSucceeded(LINE * 255), lambda o: _persisted(o, o[:1_999])),
        # A preview that is not the output's start.
        (ToolSucceeded(LINE * 302), lambda o: _persisted(o, o[5:2_004])),
        # A preview cut inside a line, short of 2,000 characters.
        (ToolSucceeded(LINE * 302), lambda o: _persisted(o, o[:1_500])),
        # A wrong size.
        (ToolSucceeded(LINE * 302), lambda o: _persisted(o, o[:1_999], size="12.0")),
        # Leading whitespace of a line that has text is kept.
        (ToolSucceeded("  indented"), str.strip),
        # Codex's cut is not Claude Code's.
        (ToolSucceeded(LONG), _codex_cut),
    ],
)
def test_TEXT_1_an_output_shaped_otherwise_than_claude_code_does_is_blamed(
    outcome: ToolOutcome, shape: Shape
) -> None:
    replay = _replay(shape, outcome, "claude-code")
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-4", replay.divergence.what


def _cut_past_9_000_bytes(output: str) -> str:
    return output if len(output.encode()) <= 9_000 else output[:9_000] + "\n[cut]"


@pytest.mark.parametrize("harness", [None, "claude-code", "codex"])
def test_EXE_4_the_long_result_targeted_program_finds_a_loop_cutting_past_9_000_bytes(
    harness: str | None,
) -> None:
    """The targeted program "a body returns a long result" returns an output past both CLIs'
    limits, with a final newline. It kept under 8,000 characters without one (the profiles did
    not know the CLIs' shapes), so a loop cutting results between 8,000 and 10,000 bytes passed
    every sweep; it is found now, without a profile and under each CLI's."""
    (situation,) = [s for s in SITUATIONS if s.name == "a body returns a long result"]
    program = list(settled_program(situation))
    if harness is None:
        with pytest.raises(DivergenceFound) as found:
            sweep_situations(_shaping(_cut_past_9_000_bytes, codex=False), frozenset(CAPABILITIES))
        assert found.value.divergence.rule_id == "EXE-4", found.value.divergence.what
        return
    target = _shaping(_cut_past_9_000_bytes, codex=harness == "codex")
    replay = replay_case(target, situation.config, program, PROFILES[harness])
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-4", replay.divergence.what


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_TEXT_1_the_long_result_targeted_program_passes_as_each_cli_shapes_it(
    harness: str,
) -> None:
    """Control: the same program on a loop shaping the output as the CLI does passes under its
    profile, the shape known."""
    (situation,) = [s for s in SITUATIONS if s.name == "a body returns a long result"]
    program = list(settled_program(situation))

    def codex(output: str) -> str:
        return _codex_cut(output)

    shape = codex if harness == "codex" else _claude_code
    replay = replay_case(
        _shaping(shape, codex=harness == "codex"), situation.config, program, PROFILES[harness]
    )
    assert _passes(replay)


def _said_empty(output: str) -> str:
    return "(Bash completed with no output)" if not output.strip() else output


@pytest.mark.parametrize("outcome", [ToolSucceeded(""), ToolSucceeded("\n \n")])
def test_TEXT_1_claude_code_s_word_for_a_command_with_no_output_is_known(
    outcome: ToolOutcome,
) -> None:
    """A command that succeeds printing nothing (or only whitespace) is, to Claude Code's model,
    `(Bash completed with no output)`: its profile knows that (it blamed EXE-4)."""
    assert _passes(_replay(_said_empty, outcome, "claude-code"))


@pytest.mark.parametrize(
    ("outcome", "harness"),
    [
        (ToolFailed(""), "claude-code"),  # a failure with no output is `Exit code N` alone
        (ToolSucceeded(""), "codex"),  # Codex sends an empty output as it is
    ],
)
def test_TEXT_1_no_output_said_so_elsewhere_is_blamed(outcome: ToolOutcome, harness: str) -> None:
    replay = _replay(_said_empty, outcome, harness)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-4", replay.divergence.what


def _claude_code_error(output: str, shown: int = 10_000, kept: int = 30_000) -> str:
    """A failure's error output as Claude Code's result has it after `Exit code 1` and its
    newline: its first `kept` characters, trimmed, the whole text cut past `shown` characters."""
    text = "Exit code 1\n" + output[:kept].rstrip()
    if len(text) > shown:
        cut = len(text) - shown
        half = shown // 2
        text = f"{text[:half]}\n\n... [{cut} characters truncated] ...\n\n{text[-half:]}"
    return text.removeprefix("Exit code 1\n")


@pytest.mark.parametrize(
    "outcome",
    [ToolFailed(LONG), ToolFailed("x" * 29_000 + "\n" + "y" * 1_001), ToolFailed(LINE * 302)],
)
def test_TEXT_1_claude_code_s_cut_of_a_long_error_output_is_known(outcome: ToolOutcome) -> None:
    """A failed command's error output: its first 30,000 characters, the text with its `Exit
    code N` line cut past 10,000 characters to the first and last 5,000 (it blamed EXE-4)."""
    assert _passes(_replay(_claude_code_error, outcome, "claude-code"))


@pytest.mark.parametrize(
    "shape",
    [
        lambda o: _claude_code_error(o, shown=8_000),  # cut short
        lambda o: _claude_code_error(o, kept=len(o)),  # the error output's whole tail kept
    ],
)
def test_TEXT_1_an_error_output_cut_otherwise_than_claude_code_does_is_blamed(
    shape: Shape,
) -> None:
    outcome = ToolFailed("x" * 29_000 + "\n" + "y" * 1_001)
    replay = _replay(shape, outcome, "claude-code")
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-4", replay.divergence.what
