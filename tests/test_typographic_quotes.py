"""PROTO-1: typographic quotes, wherever a user's line or file holds them, are named as such.

A rerun line copied from a chat keeps the quotes the chat curled; the shell and `shlex` take
them for letters. The parser said so of the words argparse left over, and the case file reader
of a pasted case; a target command whose words held them (`--cmd "\u2018python3\u2019 x.py"`)
got only the system's "no such file or directory". One list of quotes serves every reader.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from loopspec.model.config import LoopConfig
from loopspec.model.errors import NO_RULE_BROKEN
from loopspec.properties.cli.main import main
from loopspec.properties.conformance.case_json_fault import case_json_fault
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError
from loopspec.properties.typographic import CURLED_QUOTES, curled_quotes_hint

HINT = (
    " (the quotes \u2018\u2019 are typographic, letters to the shell, not quotes: the line was "
    "copied from a chat or a document; type them as ' or \")"
)


def test_PROTO_1_a_target_command_whose_program_is_curled_says_the_quotes_are_at_fault(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """PROTO-1: `conform --cmd "\u2018python3\u2019 x.py"` cannot start `\u2018python3\u2019`;
    the refusal said only "no such file or directory". The user's quoting is at fault, not the
    target, so it blames no rule, as `--impl` with such quotes does: it read [PROTO-1]."""
    assert main(["conform", "--cmd", "\u2018python3\u2019 x.py", "--examples", "1"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "loopspec: error: '\u2018python3\u2019' x.py: "
        "cannot start '\u2018python3\u2019': no such file or directory" + HINT
    )


def test_PROTO_1_a_target_whose_argument_is_curled_says_so_beside_its_own_words() -> None:
    """PROTO-1: a program started with a curled quote in an argument fails in its own words
    (Python: "can't open file '\u2018x.py\u2019'"), which name the file, not the quotes."""
    target = ProcessTarget(f"{shlex.quote(sys.executable)} \u2018x.py\u2019", name="curled")
    with pytest.raises(ProcessTargetError) as refused:
        target.reset(LoopConfig())
    first = refused.value.message.splitlines()[0]
    assert first == (
        "curled: the process exited at start-up, before answering its first message (reset)" + HINT
    )
    assert refused.value.rule_id == NO_RULE_BROKEN  # before any answer: the quoting's fault


def test_PROTO_1_a_curled_target_that_answered_is_blamed_for_a_later_fault(
    tmp_path: Path,
) -> None:
    """PROTO-1: once the target answered, its command line worked: a later fault is its own
    (PROTO-1), though the hint still names the quotes."""
    driver = tmp_path / "driver.py"
    ready = {"type": "ready", "implementation": "x", "capabilities": []}
    # The first reset is answered; the second with a line that is not JSON.
    driver.write_text(
        "import sys\n"
        f"print({json.dumps(json.dumps(ready))}, flush=True) if sys.stdin.readline() else None\n"
        "print('not json', flush=True) if sys.stdin.readline() else None\n"
    )
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(driver))} \u2018x\u2019"
    target = ProcessTarget(command, name="curled")
    target.reset(LoopConfig())
    with pytest.raises(ProcessTargetError) as refused:
        target.reset(LoopConfig())
    assert refused.value.rule_id == "PROTO-1"
    assert refused.value.message.splitlines()[0].endswith(HINT)


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("\u2018plugin_targets:turn_end_with_step_open\u2019", "No module named"),
        ("plugin_targets:turn_end_with_step_open\u2019", "has no attribute"),
        ("\u2018plugin_targets\u2019", "--impl must be MODULE:FACTORY"),
    ],
    ids=["module", "factory", "no-factory"],
)
def test_PROTO_1_an_impl_target_whose_name_is_curled_says_the_quotes_are_at_fault(
    capsys: pytest.CaptureFixture[str], target: str, said: str
) -> None:
    """PROTO-1: `conform --impl \u2018mod:make\u2019` (a rerun line copied from a chat) was told
    only "No module named '\u2018mod'", as a --cmd target was before: the module's or the
    factory's name holds the quotes, and the hint names them."""
    assert main(["conform", "--impl", target, "--examples", "1"]) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert said in last, last
    hint = curled_quotes_hint([target])
    assert hint.startswith(" (the quotes "), hint
    assert last.endswith(hint), last
    # The user's input written wrongly blames no target: the line carries no rule's tag.
    assert "[PROTO-1]" not in last, last


@pytest.mark.parametrize(
    "quote", list(CURLED_QUOTES), ids=[f"U+{ord(q):04X}" for q in CURLED_QUOTES]
)
def test_PROTO_1_every_curled_quote_is_named_on_the_command_line_and_in_a_case_file(
    quote: str,
) -> None:
    """PROTO-1: the command line's hint and the case file reader know the same quotes (two
    lists of their own differed: U+201B was named only on the command line, the primes
    U+2032 and U+2033 only in a case file)."""
    assert quote in curled_quotes_hint(["--cmd", f"{quote}node", "main.mjs"])
    text = '{"loopspec": "case",\n' + quote + 'version": 1}'
    with pytest.raises(json.JSONDecodeError) as refused:
        json.loads(text)
    said = case_json_fault("bo.json", text, refused.value)
    assert f"bo.json:2: the case file is not JSON: {quote} (U+{ord(quote):04X} " in said
