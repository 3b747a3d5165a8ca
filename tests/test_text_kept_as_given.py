"""TEXT-2: a message holds the text given, code point for code point, and conform finds a loop
that changes it on its way (normalizes it, writes it in another encoding, drops characters past
U+FFFF or cuts it counting UTF-16 units) and says how.

Every text of the random programs was ASCII, and each of these loops passed 200 programs; a
changed prompt was then blamed on ADJ-4 (the queue's order), a changed reply on no rule."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import attrs
import pytest
from batches import BATCH_SEED

from loopspec.model.commands import (
    Command,
    ModelReplies,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.properties.conformance.run import replay_case, run_conformance
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.conformance.text_changes import how_text_changed
from loopspec.properties.stateful import strategies as gen
from loopspec.properties.stateful.swarm import EXACTING_TEXTS

Change = Callable[[str], str]


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _without_astral(text: str) -> str:
    return "".join(char for char in text if ord(char) <= 0xFFFF)


def _as_latin1(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


def _cut_in_utf16_units(text: str) -> str:
    """`text` cut at its length in code points, counted in UTF-16 units (as a Java loop told a
    Python peer's length cuts with `substring`): one unit short per character past U+FFFF."""
    return text.encode("utf-16-le")[: 2 * len(text)].decode("utf-16-le", "replace")


def _astral_escaped_whole(text: str) -> str:
    """`text` as a loop writing every character as `\\u{:04x}` of its code point reads back:
    one past U+FFFF (`\\u1f4c2`) becomes the character of its first four hex digits and the
    digits left over."""
    return "".join(
        chr(int(f"{ord(char):x}"[:4], 16)) + f"{ord(char):x}"[4:] if ord(char) > 0xFFFF else char
        for char in text
    )


def _changing(change: Change, *, prompts: bool, replies: bool, results: bool) -> type[ModelTarget]:
    """The model, except that the texts chosen are changed by `change` before it sees them."""

    class Changing(ModelTarget):
        def apply(self, command: Command) -> Observation:
            match command:
                case SubmitUser(text=text) if prompts:
                    command = attrs.evolve(command, text=change(text))
                case ModelReplies(blocks=blocks) if replies:
                    changed = tuple(
                        attrs.evolve(block, text=change(block.text))
                        if isinstance(block, TextBlock | ReasoningBlock)
                        else block
                        for block in blocks
                    )
                    command = attrs.evolve(command, blocks=changed)
                case ToolFinishes(outcome=ToolSucceeded(text=text) as outcome) if results:
                    command = attrs.evolve(
                        command, outcome=attrs.evolve(outcome, text=change(text))
                    )
                case ToolFinishes(outcome=ToolFailed(message=text) as outcome) if results:
                    outcome = attrs.evolve(outcome, message=change(text))
                    command = attrs.evolve(command, outcome=outcome)
                case _:
                    pass
            return super().apply(command)

    return Changing


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_nfc, "NFC-normalized"),
        (_without_astral, "characters past U+FFFF dropped"),
        (_as_latin1, "another encoding than UTF-8"),
        (_cut_in_utf16_units, "UTF-16 units"),
        (_astral_escaped_whole, "written as \\u1f"),
    ],
)
@pytest.mark.parametrize("where", ["prompts", "replies"])
def test_TEXT_2_a_prompt_or_reply_changed_on_its_way_is_blamed_and_told_how(
    change: Change, words: str, where: str
) -> None:
    """A prompt so changed was blamed on ADJ-4 (queued messages' order), a reply on no rule;
    so was one whose character past U+FFFF a loop escaped whole, until that change was named."""
    text = EXACTING_TEXTS["reading the files"]
    program: list[Command] = (
        [SubmitUser(text)]
        if where == "prompts"
        else [SubmitUser("go"), ModelReplies((ReasoningBlock(text), TextBlock(text)))]
    )
    changing = _changing(
        change, prompts=where == "prompts", replies=where == "replies", results=False
    )
    replay = replay_case(changing, LoopConfig(tools=gen.TOOLS), program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "TEXT-2", replay.divergence.what
    assert words in replay.divergence.what, replay.divergence.what


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_nfc, "NFC-normalized"),
        (_cut_in_utf16_units, "UTF-16 units"),
        (_astral_escaped_whole, "written as \\u1f"),
    ],
)
@pytest.mark.parametrize("failed", [False, True])
def test_EXE_4_a_result_changed_on_its_way_is_told_how(
    change: Change, words: str, failed: bool
) -> None:
    """A result is the body's text (EXE-4): the report said only that it differs from what the
    body returned, not that the target normalized it or cut it counting UTF-16 units."""
    text = EXACTING_TEXTS["file contents"]
    outcome = ToolFailed(text, None) if failed else ToolSucceeded(text, (), None)
    program: list[Command] = [
        SubmitUser("go"),
        ModelReplies((ToolCallBlock("c1", "read", '{"file_path":"a.txt"}'),)),
        ToolFinishes("c1", outcome),
    ]
    changing = _changing(change, prompts=False, replies=False, results=True)
    replay = replay_case(changing, LoopConfig(tools=gen.TOOLS), program)
    assert replay.divergence is not None
    assert replay.divergence.rule_id == "EXE-4", replay.divergence.what
    assert words in replay.divergence.what, replay.divergence.what


def test_TEXT_2_text_all_ascii_or_changed_otherwise_is_left_to_other_rules() -> None:
    """Only the changes that touch what ASCII lacks are named: another text (a message delivered
    out of order, ADJ-4) or a trimmed one is no such change."""
    prompt, reply = EXACTING_TEXTS["reading the files"], EXACTING_TEXTS["done"]
    assert how_text_changed(prompt, reply) is None
    assert how_text_changed(" ok ", "ok") is None
    assert how_text_changed(prompt, prompt.strip("r")) is None
    assert how_text_changed(prompt, _nfc(prompt)) is not None


@pytest.mark.no_cover
@pytest.mark.parametrize(
    ("change", "where", "rule"),
    [
        (_nfc, "prompts", "TEXT-2"),
        (_without_astral, "replies", "TEXT-2"),
        (_nfc, "results", "EXE-4"),
        (_cut_in_utf16_units, "results", "EXE-4"),
        (_as_latin1, "prompts", "TEXT-2"),
    ],
)
def test_TEXT_2_random_programs_catch_a_loop_changing_text(
    change: Change, where: str, rule: str
) -> None:
    """Each of these loops passed 200 random programs while every text was ASCII; the first
    batch now finds each, blamed on the rule of the event holding the text."""
    target = _changing(
        change, prompts=where == "prompts", replies=where == "replies", results=where == "results"
    )
    report = run_conformance(
        target, examples=200, seed_value=BATCH_SEED, show_progress=False, shrink=False
    )
    assert report.divergence is not None, f"{change.__name__} on {where} passed"
    assert report.divergence.rule_id == rule, report.divergence.what
