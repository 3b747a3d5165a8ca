"""The nearest known name offered for a misspelt one: the same words and measure everywhere.

Ten places spelt the offer out, each with its own `difflib` call: two at a ratio of 0.8, the
rest at difflib's 0.6, one matching letter case alone first, one quoting the name. `model/
near_miss.py` decides both now, and these tests hold every place to it.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from loopspec.impl.hookbridge.notes import _hint
from loopspec.model.facts import unknown_decision
from loopspec.model.near_miss import (
    CLOSE,
    MISSPELT,
    did_you_mean,
    nearest,
    offered,
    without_offer,
)
from loopspec.properties.cli.main import main
from loopspec.properties.conformance.command_codec import ProtocolError, command_from_json
from loopspec.properties.conformance.run import _capabilities
from loopspec.properties.logcheck.known_divergences import parse_known

ROOT = Path(__file__).resolve().parent.parent
HELPER = ROOT / "model" / "near_miss.py"

# (word, known names, cutoff, the name offered or None)
NEAREST: list[tuple[str, tuple[str, ...], float, str | None]] = [
    # Letter case alone: difflib's ratio of `pretooluse` to `PreToolUse` is 0.7, under 0.8, so
    # a hooks file naming the event in lower case was offered nothing.
    ("pretooluse", ("PostToolUse", "PreToolUse"), MISSPELT, "PreToolUse"),
    ("PreToolUs", ("PostToolUse", "PreToolUse"), MISSPELT, "PreToolUse"),
    # A real event of Claude Code's is no misspelling of one loopspec runs.
    ("PostToolUseFailure", ("PostToolUse", "PreToolUse"), MISSPELT, None),
    ("maxParalel", ("maxParallel", "tools"), CLOSE, "maxParallel"),
    ("zzz", ("maxParallel", "tools"), CLOSE, None),
    # Letter case aside in the ratio too: `MAXPARALEL` is as near as `maxparalel`.
    ("MAXPARALEL", ("maxParallel", "tools"), CLOSE, "maxParallel"),
]


@pytest.mark.parametrize(("word", "known", "cutoff", "meant"), NEAREST)
def test_the_nearest_name_is_one_letter_case_alone_sets_apart_or_the_most_alike(
    word: str, known: tuple[str, ...], cutoff: float, meant: str | None
) -> None:
    """A name differing in letter case alone is offered before any other; else the most alike
    at the cutoff, letter case aside; else none."""
    assert nearest(word, known, cutoff=cutoff) == meant
    assert did_you_mean(word, known, cutoff=cutoff) == ("" if meant is None else offered(meant))


def test_an_offer_is_taken_out_whole_and_only_an_offer() -> None:
    """`without_offer` takes out each offer and leaves brackets that only start alike (it
    replaced a regular expression the case reader kept beside the words it had to match)."""
    said = f"$.a is not a member{offered('b')}; $.c (did you mean (d)?) stays{offered('e')}"
    assert without_offer(said) == "$.a is not a member; $.c (did you mean (d)?) stays"


def _decision() -> str:
    return unknown_decision("alow")


def _hook_answer_key() -> str:
    return _hint("$.hookSpecificOutput.updatedinput", "updatedinput", ("updatedInput", "reason"))


def _command_kind() -> str:
    with pytest.raises(ProtocolError) as refused:
        command_from_json({"kind": "SubmitUsr", "text": "hi"})
    return refused.value.message


def _capability() -> str:
    with pytest.raises(Exception) as refused:  # noqa: PT011 (the words are what is tested)
        _capabilities({"pre_hooks"})
    return str(refused.value)


def _known_value() -> str:
    with pytest.raises(ValueError, match="names neither") as refused:
        parse_known(["claude"])  # (0.7 alike: refused anyway, so any likely guess is offered)
    return str(refused.value)


def _spec_rule() -> str:
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        assert main(["spec", "RW1"]) == 2
    return said.getvalue()


def _impl_factory() -> str:
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        impl = "loopspec.properties.conformance.impl_target:bundled_targt"
        assert main(["conform", "--impl", impl]) == 2
    return said.getvalue()


def _invalid_choice() -> str:
    said = io.StringIO()
    with contextlib.redirect_stderr(said), pytest.raises(SystemExit):
        main(["conform", "--profile", "claude"])
    return said.getvalue()


# A place that offers a nearest name, what it says for a misspelling, and the offer it holds.
PLACES: dict[str, tuple[Callable[[], str], str]] = {
    "a hook's decision (check, HOOK-1)": (_decision, offered(json.dumps("allow"))),
    "a hook answer's key (run's notes)": (_hook_answer_key, offered("updatedInput")),
    "a command's kind (conform, replay, PROTO-1)": (_command_kind, offered("SubmitUser")),
    "a capability a target declares": (_capability, offered("pre-hooks")),
    # Offered nothing before: a loop or rule `check --known` names, a rule `spec` prints.
    "check --known": (_known_value, offered("claude-code")),
    "spec RULE": (_spec_rule, offered("RW-1")),
    # Offered nothing before: a factory --impl misspells (test_case_sharing.py: the module too).
    "--impl's factory (conform, replay, PROTO-1)": (_impl_factory, offered("bundled_target")),
    # argparse's own "invalid choice" of any verb's option or the verb itself.
    "an option's choice": (_invalid_choice, offered("claude-code")),
}


@pytest.mark.parametrize("place", PLACES)
def test_PROTO_1_HOOK_1_each_place_offers_the_nearest_name_in_the_same_words(place: str) -> None:
    """PROTO-1, HOOK-1: each place offers the nearest name through the one helper (the scenario,
    case, hooks file, driver message and ACP places are held by test_hand_edits.py,
    test_case_sharing.py, test_command_codec.py and test_acp_recording.py in the same words)."""
    said, offer = PLACES[place]
    assert offer in said()


def _offers_by_itself(path: Path) -> list[str]:
    """Where a module offers a nearest name without the helper: a `get_close_matches` call, or
    a string (no docstring) holding the offer's words. Only a file whose text holds either is
    parsed (parsing every module cost 5 s)."""
    text = path.read_text(encoding="utf-8")
    if "get_close_matches" not in text and "did you mean" not in text:
        return []
    tree = ast.parse(text)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "get_close_matches":
            found.append(f"{path.name}:{node.lineno}: get_close_matches")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and "did you mean" in node.value
            and id(node) not in docstrings
        ):
            found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    return found


def test_no_module_but_the_helper_offers_a_nearest_name() -> None:
    """Every offer goes through model/near_miss.py: a module calling difflib or spelling the
    words itself would drift from the others' measure or wording again."""
    sources = [
        path
        for folder in ("model", "impl", "properties")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path != HELPER
    ]
    assert [found for path in sources for found in _offers_by_itself(path)] == []
