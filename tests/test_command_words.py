"""Conform's and replay's reports list a program in plain words (PROTO-1), one line per command,
with the driver protocol JSON beneath: a reader outside the repo learns what the program does
without the protocol's schema. Texts are shortened and escaped as SAFE-1 says."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from loopspec.model.commands import (
    COMMAND_NAMES,
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    HookAudit,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.properties.cli.command_words import (
    ApprovalTurn,
    HookTurn,
    answers_for,
    command_words,
)
from loopspec.properties.cli.conform_run import replay_verdict_lines
from loopspec.properties.conformance.command_codec import command_to_json
from loopspec.properties.conformance.run import Case, Replay, load_case, replay_case
from loopspec.properties.stateful.strategies import CONFIGS, TOOLS

IN_WORDS: tuple[tuple[Command, str], ...] = (
    (SubmitUser("hi"), 'the user sends "hi"'),
    (
        ModelReplies(
            (
                ReasoningBlock("plan"),
                TextBlock("looking"),
                ToolCallBlock("c1", "bash", '{"command": "ls"}'),
                ToolCallBlock("c2", "read", ""),
            )
        ),
        'the model replies: reasoning "plan"; text "looking"; calls c1 bash {"command": "ls"}; '
        "calls c2 read (no arguments)",
    ),
    (ModelReplies((), "max-tokens"), "the model replies: nothing (cut off: max tokens)"),
    (
        ModelReplies((TextBlock("pa"),), "cancelled"),
        'the model replies: text "pa" (cancelled part-way)',
    ),
    (ModelFails("busy", "OVERLOADED"), 'the model request fails: OVERLOADED "busy"'),
    (HookAnswers(Pass()), "the next PreToolUse hook answers: pass (no opinion)"),
    (
        HookAnswers(Allow({"command": "ls -a"}, "safe")),
        'the next PreToolUse hook answers: allow, input becomes {"command": "ls -a"}, '
        'reason "safe"',
    ),
    (HookAnswers(Ask("check")), 'the next PreToolUse hook answers: ask the user, reason "check"'),
    (
        HookAnswers(Deny("no"), HookAudit(decision="block", exit_code=2)),
        'the next PreToolUse hook answers: deny, reason "no" (audited: decision "block", exit '
        "code 2)",
    ),
    (ApprovalAnswers("rejected"), "the user answers the approval: rejected"),
    (
        ToolFinishes("c1", ToolSucceeded("a.txt", ("note",), {"lines": 1})),
        'call c1\'s tool succeeds: "a.txt", context "note", meta {"lines": 1}',
    ),
    (
        ToolFinishes("c1", ToolSucceeded("", ("a", ""))),
        'call c1\'s tool succeeds: "", contexts "a", ""',
    ),
    (
        ToolFinishes(
            "c2",
            ToolFailed("gone", "ENOENT", "FileError"),
            (PostPass(), PostContext("see"), PostBlock("hidden")),
        ),
        'call c2\'s tool fails: FileError "gone", code "ENOENT"; its PostToolUse hooks answer: '
        'pass; context "see"; block, reason "hidden"',
    ),
    (Abort("user"), "the turn is aborted (cause: user)"),
    (Crash(), "the loop's process crashes"),
    (Recover(), "the session is reopened after the crash"),
)


def test_PROTO_1_every_kind_of_command_reads_in_plain_words() -> None:
    """PROTO-1: each kind of command, and each verdict, outcome and block it carries, reads as a
    sentence; every kind of the command union is among the examples."""
    assert {command.NAME for command, _ in IN_WORDS} == set(COMMAND_NAMES)
    for command, words in IN_WORDS:
        assert command_words(command) == words


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (SubmitUser("a\nb\x1b[2J"), 'the user sends "a\\nb\\x1b[2J"'),
        (SubmitUser("x" * 100), f'the user sends "{"x" * 60}..."'),
        (
            ModelReplies((ToolCallBlock("c\t1", "bash", '{"c": "' + "y" * 90 + '"}'),)),
            'the model replies: calls c\\t1 bash {"c": "' + "y" * 73 + "...",
        ),
    ],
    ids=["control characters", "long text", "long arguments"],
)
def test_SAFE_1_a_command_s_texts_are_escaped_and_shortened_in_words(
    command: Command, words: str
) -> None:
    """SAFE-1: a text in a listing line has its control characters escaped (a terminal escape
    in a case from elsewhere is shown, not obeyed) and is cut short: one command, one line."""
    assert command_words(command) == words


def test_PROTO_1_a_hook_s_answer_names_the_hook_and_the_call_it_answers_for() -> None:
    """PROTO-1: a HookAnswers command says only "the next pending hook"; the listing names the
    hook and the call, as the model runs the program (model order, then configured order),
    and a command the model refuses (an answer with no hook pending) names none."""
    reply = ModelReplies(
        (
            ToolCallBlock("c1", "bash", '{"command": "ls"}'),
            ToolCallBlock("c2", "write", '{"file_path": "a", "content": "b"}'),
            ToolCallBlock("c3", "read", '{"file_path": "a"}'),
        )
    )
    answer = HookAnswers(Pass())
    program: list[Command] = [answer, SubmitUser("hi"), reply, answer, answer, answer, answer]
    # CONFIGS[1]: PreToolUse hooks guard (bash|write) and rewriter (bash), in that order.
    assert answers_for(CONFIGS[1], program) == {
        3: HookTurn("guard", "c1"),
        4: HookTurn("rewriter", "c1"),
        5: HookTurn("guard", "c2"),
    }
    assert command_words(answer, HookTurn("guard", "c1")) == (
        "PreToolUse hook guard on call c1 answers: pass (no opinion)"
    )


def test_PROTO_1_an_approval_answer_names_the_call_it_answers_for() -> None:
    """PROTO-1: an ApprovalAnswers command says only "the pending approval"; the listing names
    the call (and its tool) whose approval request it answers, as the model runs the program.
    It read "the user answers the approval: rejected" whichever call was asked about."""
    reply = ModelReplies(
        (
            ToolCallBlock("c1", "write", '{"file_path": "a", "content": "b"}'),
            ToolCallBlock("c2", "bash", '{"command": "ls"}'),
        )
    )
    ask, allow = HookAnswers(Ask("why?")), HookAnswers(Allow())
    rejected = ApprovalAnswers("rejected")
    # CONFIGS[1]: guard (bash|write) then rewriter (bash): guard asks about c1.
    program: list[Command] = [SubmitUser("hi"), reply, ask, allow, allow, rejected, rejected]
    answered = answers_for(CONFIGS[1], program)
    assert answered[5] == ApprovalTurn("c1", "write")
    assert 6 not in answered  # refused by the model: nothing is pending
    assert command_words(rejected, answered[5]) == (
        "the user answers the approval for call c1 (write): rejected"
    )


def test_PROTO_1_the_first_divergence_names_the_hook_a_hook_answer_answers_for() -> None:
    """PROTO-1: when the first divergence comes after a HookAnswers, the line saying so names
    the hook and the call, as the program listing does; it read "after command #3: the next
    PreToolUse hook answers: pass", and the reader had to work out which hook from the JSON."""
    from mutants import MUTANTS, MutantTarget  # noqa: PLC0415 -- the tests' own zoo

    twice = next(m for m in MUTANTS if m.name == "hooks-run-twice")
    config = LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "bash"),))
    reply = ModelReplies((ToolCallBlock("c1", "bash", '{"command": "ls"}'),))
    commands: list[Command] = [SubmitUser("hi"), reply, HookAnswers(Pass())]
    replay = replay_case(lambda: MutantTarget(twice), config, commands)
    assert replay.divergence is not None
    assert replay.divergence.index == 2
    case = Case({}, config, commands)
    lines = replay_verdict_lines("case.json", case, None, replay, bundled=False)
    said = "first divergence after command #3: PreToolUse hook guard on call c1 answers: pass"
    assert any(line.strip().startswith(said) for line in lines), lines


def test_SAFE_1_a_listing_s_json_line_escapes_what_a_terminal_does_not_show() -> None:
    """SAFE-1, PROTO-1: the JSON beneath a command's words is what a reader copies into a case
    by hand. It held U+0085 (which the random programs draw, EXE-2), a no-break space or U+FEFF
    raw, which a terminal shows as nothing, so the copy tested other arguments; each is now a
    JSON escape, the line still the command's JSON, and a visible letter stays as it is."""
    from mutants import MUTANTS, MutantTarget  # noqa: PLC0415 -- the tests' own zoo

    twice = next(m for m in MUTANTS if m.name == "hooks-run-twice")
    config = LoopConfig(tools=TOOLS, hooks=(HookSpec("guard", "PreToolUse", "bash"),))
    arguments = '{"command": "ls\x85\xa0\ufeff\u200b é"}'
    reply = ModelReplies((ToolCallBlock("c1", "bash", arguments),))
    commands: list[Command] = [SubmitUser("hi"), reply, HookAnswers(Pass())]
    replay = replay_case(lambda: MutantTarget(twice), config, commands)
    assert replay.divergence is not None
    lines = replay_verdict_lines(
        "case.json", Case({}, config, commands), None, replay, bundled=False
    )
    (at,) = [i for i, line in enumerate(lines) if line.strip().startswith("#2 ")]
    json_line = lines[at + 1].strip()
    assert json.loads(json_line) == command_to_json(reply)
    assert all(character.isprintable() for character in json_line), json_line
    assert "\\u0085" in json_line
    assert "é" in json_line


def test_PROTO_1_a_replay_a_known_divergence_stopped_counts_the_commands_it_sent() -> None:
    """PROTO-1: a profile's case whose replay stopped at its known divergence (at command #3
    of 4; nothing after it is sent) said "4 commands replayed, no divergence; the case recorded
    the known divergence ADJ-1" above "known divergences shown: ADJ-1": it counted a command
    never sent, and called a divergence it showed none. It counts those sent, and says no
    divergence the profile does not know."""
    case = load_case(Path(__file__).parent / "regressions" / "codex-ADJ-1.json")
    assert case.profile is not None
    assert len(case.commands) == 4
    stopped = Replay(None, frozenset({"ADJ-1", "LOG-8"}), stopped_by="ADJ-1", stopped_at=2)
    lines = replay_verdict_lines("case.json", case, case.profile, stopped, bundled=False)
    assert lines[0] == (
        "case.json: 3 of 4 commands replayed, no divergence the codex profile does not know; "
        "the case recorded the known divergence ADJ-1"
    )
    assert lines[1:] == [
        "  stopped at command #3 by a known divergence: ADJ-1 (the runs go different ways from "
        "there)",
        "  known divergences shown: ADJ-1, LOG-8",
    ]
    whole = replay_verdict_lines("case.json", case, case.profile, Replay(None), bundled=False)
    assert whole[0].startswith("case.json: 4 commands replayed, no divergence; "), whole
    # That it is a profile's case is read from the case, not from the words replay shows of it.
    assert case.known_divergence == "ADJ-1"
    reworded = attrs.evolve(case, rule="ADJ-1")
    again = replay_verdict_lines("case.json", reworded, case.profile, Replay(None), bundled=False)
    assert again[0] == "case.json: 4 commands replayed, no divergence; the case recorded ADJ-1"
    # Stopped at the last command, every one was sent ("4 of 4 commands replayed" read odd).
    last = Replay(None, frozenset({"ADJ-1"}), stopped_by="ADJ-1", stopped_at=3)
    at_last = replay_verdict_lines("case.json", case, case.profile, last, bundled=False)
    assert at_last[0].startswith("case.json: 4 commands replayed, no divergence the "), at_last


def test_PROTO_1_the_command_a_known_divergence_stopped_at_is_not_refused_by_both() -> None:
    """PROTO-1: a Codex case of the known divergence EXE-1 (Codex runs a reply the model
    refuses) said "refused by the model (and so by the target): #2 ModelReplies (EXE-1)" above
    "stopped at command #2 by a known divergence: EXE-1": the target had accepted it, which is
    the divergence. A command refused before the stop is still named."""
    case = load_case(Path(__file__).parent / "regressions" / "codex-EXE-1.json")
    assert len(case.commands) == 2
    first = case.line_of_command(0)  # (read from its file: the command's line is named)
    for refused, named in (
        (((1, "EXE-1"),), []),
        (((0, "TURN-1"), (1, "EXE-1")), ["  refused by the model (and so by the target): #1 "
                                         f"SubmitUser (TURN-1) at case.json:{first}"]),
    ):  # fmt: skip
        stopped = Replay(None, frozenset({"EXE-1"}), "EXE-1", 1, refused=refused)
        lines = replay_verdict_lines("case.json", case, case.profile, stopped, bundled=False)
        assert [line for line in lines if "refused by the model" in line] == named, lines
