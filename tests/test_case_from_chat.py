"""A case file that went through a chat: Ana gets Bo's case pasted into a chat or a mail and
copied back out, with what the client did to it, and replays it.

(tests/test_case_travel.py covers a case that comes back from Windows or packed, and
tests/test_case_sharing.py one replayed in another folder.)
"""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

from loopspec.properties.cli.main import main

# Bo's case, as conform wrote it: an unknown tool's result (EXE-5), replayed on the bundled
# loop, which keeps the rule.
BO_S_CASE = """{
  "loopspec": "case",
  "version": 1,
  "rule": "EXE-5",
  "config": {
    "tools": [],
    "hooks": [],
    "maxParallel": 10,
    "provider": "scripted",
    "model": "scripted-model",
    "epochMs": 1700000000000
  },
  "commands": [
    {
      "kind": "SubmitUser",
      "text": "tidy up"
    },
    {
      "kind": "ModelReplies",
      "blocks": [{"type": "tool-call", "id": "c1", "name": "missing_tool", "arguments": "{}"}],
      "finish": "completed"
    }
  ]
}
"""
SEND_WHOLE = "send the case as a file (an attachment), not as pasted text"
QUOTE_WANTED = 'where JSON needs a straight double quote ("); ' + SEND_WHOLE
NOT_A_SPACE = "which JSON does not read as a space; " + SEND_WHOLE


def _replay_refusal(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """What `loopspec replay` says of a case file holding `text`; it must refuse it (exit 2)."""
    monkeypatch.chdir(tmp_path)
    Path("bo.json").write_text(text, encoding="utf-8")
    assert main(["replay", "bo.json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err


@pytest.mark.parametrize(
    ("pasted", "said"),
    [
        (
            # Every quote curled, as a chat client or a word processor does outside a code block:
            # refused as "Expecting property name enclosed in double quotes".
            BO_S_CASE.replace('"kind": "SubmitUser"', "\u201ckind\u201d: \u201cSubmitUser\u201d"),
            f"bo.json:15: the case file is not JSON: \u201c (U+201C LEFT DOUBLE QUOTATION MARK) "
            f"{QUOTE_WANTED}: column 7",
        ),
        (
            # One key's closing quote curled alone: the key reads on to the next straight quote,
            # and the parser stopped at "Expecting ':' delimiter", after the quote at fault.
            BO_S_CASE.replace('"rule":', '"rule\u201d:'),
            f"bo.json:4: the case file is not JSON: \u201d (U+201D RIGHT DOUBLE QUOTATION MARK) "
            f"{QUOTE_WANTED}: column 8",
        ),
        (
            # Indentation pasted as no-break spaces, which show as spaces.
            BO_S_CASE.replace('  "version"', '\u00a0\u00a0"version"'),
            f"bo.json:3: the case file is not JSON: an invisible U+00A0 NO-BREAK SPACE, "
            f"{NOT_A_SPACE}: column 1",
        ),
        (
            BO_S_CASE.replace('"rule"', '\u200b"rule"'),
            f"bo.json:4: the case file is not JSON: an invisible U+200B ZERO WIDTH SPACE, "
            f"{NOT_A_SPACE}: column 3",
        ),
        (
            # Copied with the code block's fence around it: "Expecting value".
            "```json\n" + BO_S_CASE + "```\n",
            "bo.json:1: the case file is not JSON: a Markdown code fence (```), which a chat "
            "client adds around pasted code: delete the fence's lines: column 1",
        ),
        (
            # A chat message copied whole, its words and the code block's fence around the case:
            # "Expecting value: column 1", which sent the reader to the case's first line.
            "Here is the case that fails:\n\n```json\n" + BO_S_CASE + "```\nThanks!\n",
            "bo.json:1: the case file is not JSON: words before the case, which starts at line "
            "4, and a Markdown code fence (```) at line 3 (a chat message copied whole?): keep "
            "only the case, from its opening { to its closing }: column 1",
        ),
        (
            # The same without a fence: a mail's body, or a chat's plain text.
            "Bo says:\n" + BO_S_CASE,
            "bo.json:1: the case file is not JSON: words before the case, which starts at line "
            "2 (a chat message copied whole?): keep only the case, from its opening { to its "
            "closing }: column 1",
        ),
        (
            # Quoted in a mail's reply.
            "> " + BO_S_CASE.replace("\n", "\n> "),
            f"bo.json:1: the case file is not JSON: a mail's quoting (>) before the line; "
            f"{SEND_WHOLE}: column 1",
        ),
        (
            # Copied from a web page's source.
            BO_S_CASE.replace('"', "&quot;"),
            "bo.json:2: the case file is not JSON: the HTML escape &quot;, as a web page's "
            f"source holds it; {SEND_WHOLE}: column 3",
        ),
        (
            # Cut at a message's length limit: "Expecting property name enclosed in double
            # quotes" at the end, as if a quote were wrong.
            BO_S_CASE[: BO_S_CASE.index('"config"')],
            "bo.json:5: the case file is not JSON: the text ends before the case does: it was "
            f"cut off (a message's length limit?); {SEND_WHOLE}: column 3",
        ),
        (
            # Cut inside a string, with no line end after it: "Unterminated string".
            BO_S_CASE[: BO_S_CASE.index("missing_tool") + 4],
            "bo.json:20: the case file is not JSON: the text ends before the case does: it was "
            f"cut off (a message's length limit?); {SEND_WHOLE}: column 60",
        ),
        (
            # A download that saved nothing: "Expecting value: column 1".
            "\n",
            "bo.json: the case file is empty (a download or a paste that held nothing?)",
        ),
        (
            # The last command cut by hand, its comma left: "Expecting value" at the ] below.
            BO_S_CASE[: BO_S_CASE.index('    {\n      "kind": "ModelReplies"')].rstrip()
            + "\n  ]\n}\n",
            "bo.json:17: the case file is not JSON: a comma before the closing ] (left behind "
            "when what followed it was cut?): delete it: column 6",
        ),
        (
            # A member cut from the configuration, its comma left: "Expecting property name".
            BO_S_CASE.replace(',\n    "epochMs": 1700000000000', ","),
            "bo.json:10: the case file is not JSON: a comma before the closing } (left behind "
            "when what followed it was cut?): delete it: column 30",
        ),
    ],
    ids=[
        "curled-quotes",
        "one-closing-quote-curled",
        "no-break-spaces",
        "zero-width-space",
        "markdown-fence",
        "chat-words-and-fence",
        "words-before",
        "mail-quoting",
        "html-escapes",
        "cut-off",
        "cut-off-in-a-string",
        "empty",
        "a-command-cut-by-hand",
        "a-member-cut-by-hand",
    ],
)
def test_PROTO_1_a_case_pasted_through_a_chat_names_what_the_client_put_in(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    pasted: str,
    said: str,
) -> None:
    """PROTO-1: a case that went through a chat or a mail was refused in the JSON parser's
    words, at the place it stopped ("Expecting property name enclosed in double quotes"),
    which name neither the curled quote, the invisible space, the fence nor the cut. The
    refusal names what the client put in, with its line, and says to send the file whole."""
    assert _replay_refusal(pasted, tmp_path, monkeypatch, capsys) == f"loopspec: error: {said}\n"


def test_PROTO_1_a_curled_quote_inside_a_message_is_not_blamed_for_another_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: a user's text may hold curled quotes; a fault elsewhere on its line (a comma
    missing) is named in the parser's words, not blamed on the quotes."""
    broken = BO_S_CASE.replace('"text": "tidy up"', '"text": "\u201ctidy\u201d" "up"')
    assert _replay_refusal(broken, tmp_path, monkeypatch, capsys) == (
        "loopspec: error: bo.json:16: the case file is not JSON: no comma (,) between this "
        "member or item and the one before it: add one: column 24\n"
    )
    # The same quotes in a case with no other fault replay: they are the user's text.
    Path("bo.json").write_text(broken.replace('" "up"', ' up"'), encoding="utf-8")
    assert main(["replay", "bo.json"]) == 0


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le"])
def test_PROTO_1_a_case_saved_as_unicode_without_a_byte_order_mark_replays(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    encoding: str,
) -> None:
    """PROTO-1: a case saved as UTF-16 or UTF-32 without a byte order mark was read as UTF-8
    and refused at its first zero byte ("Expecting property name enclosed in double quotes:
    column 2"). JSON text starts with ASCII, so its zero bytes say the encoding: it replays
    as the original does."""
    monkeypatch.chdir(tmp_path)
    Path("bo.json").write_text(BO_S_CASE, encoding="utf-8")
    Path("unmarked.json").write_bytes(BO_S_CASE.encode(encoding))
    assert not Path("unmarked.json").read_bytes().startswith((codecs.BOM_UTF16_LE, b"\xfe\xff"))
    assert main(["replay", "bo.json"]) == main(["replay", "unmarked.json"]) == 0
    out = capsys.readouterr().out
    assert out.count("2 commands replayed, no divergence") == 2
    # Read whole, not cut at a zero byte: a fault in it still names its line.
    broken = json.loads(BO_S_CASE)
    del broken["commands"][1]["finish"]
    Path("unmarked.json").write_bytes(json.dumps(broken, indent=2).encode(encoding))
    assert main(["replay", "unmarked.json"]) == 2
    assert capsys.readouterr().err == (
        "loopspec: error: [PROTO-1] unmarked.json:18: $.commands[1].finish is missing; it must "
        "be a string\n"
    )


@pytest.mark.parametrize(
    "dashed", [("\u2014", "EM DASH"), ("\u2013", "EN DASH"), ("\u2212\u2212", "MINUS SIGN")]
)
@pytest.mark.parametrize("verb", ["replay", "conform"])
def test_PROTO_1_a_rerun_line_whose_hyphens_became_a_dash_names_the_dash(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    dashed: tuple[str, str],
    verb: str,
) -> None:
    """PROTO-1: Bo's rerun line, pasted through a chat or a mail that makes `--` a dash, gives
    replay `\u2014impl` as a case to read: it said "no such case file or directory" and that
    a rerun line names the case from another folder, which sent Ana looking for the file
    (conform said only "unrecognized arguments"). A usage error names the dash and the option."""
    dash, named = dashed
    monkeypatch.chdir(tmp_path)
    Path("bo.json").write_text(BO_S_CASE, encoding="utf-8")
    case = ["bo.json"] if verb == "replay" else []
    with pytest.raises(SystemExit) as stopped:
        main([verb, *case, f"{dash}impl", "bo_loop:make"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"loopspec: error: {dash}impl: it begins with {dash[0]} (U+{ord(dash[0]):04X} "
        f"{named}), which a chat or a word processor makes of two hyphens; type the option as "
        "--impl"
    )


NO_COMMENTS = (
    "which JSON does not have: delete it (a note for people can go in the case's summary string)"
)


@pytest.mark.parametrize(
    ("edited", "said"),
    [
        (
            BO_S_CASE.replace('"version": 1,', '"version": 1,  // as Bo sent it'),
            f"bo.json:3: the case file is not JSON: a comment (//), {NO_COMMENTS}: column 18",
        ),
        (
            BO_S_CASE.replace('"rule": "EXE-5",', '"rule": "EXE-5" /* fails here too */,'),
            f"bo.json:4: the case file is not JSON: a comment (/*), {NO_COMMENTS}: column 19",
        ),
        (
            BO_S_CASE.replace('  "rule"', '  # Ana: still fails on 0.1.0\n  "rule"'),
            f"bo.json:4: the case file is not JSON: a comment (#), {NO_COMMENTS}: column 3",
        ),
        (
            # A command written as Python prints a dict.
            BO_S_CASE.replace('"kind": "SubmitUser"', "'kind': 'SubmitUser'"),
            "bo.json:15: the case file is not JSON: a single quote ('), where JSON needs a "
            'straight double quote ("): column 7',
        ),
        (
            # A member added by hand without the comma after the one before it.
            BO_S_CASE.replace('"version": 1,', '"version": 1'),
            "bo.json:4: the case file is not JSON: no comma (,) between this member or item and "
            "the one before it: add one: column 3",
        ),
        (
            # The commands' closing ] lost: no comma mends it, the missing ] does.
            BO_S_CASE.replace("    }\n  ]\n}", "    }\n}"),
            "bo.json:23: the case file is not JSON: this } comes while the [ opened on line 13 "
            "is still open: add its ] before this }: column 1",
        ),
        (
            BO_S_CASE.replace('"maxParallel": 10', '"maxParallel": 010'),
            "bo.json:8: the case file is not JSON: a number with a leading zero (010), which "
            "JSON does not write: write 10: column 21",
        ),
        (
            BO_S_CASE.replace('"maxParallel": 10', '"maxParallel": None'),
            "bo.json:8: the case file is not JSON: None is not JSON's spelling: write null: "
            "column 20",
        ),
        (
            BO_S_CASE.replace('"rule": "EXE-5"', 'rule: "EXE-5"'),
            "bo.json:4: the case file is not JSON: a member's name without its double quotes: "
            'write "rule": column 3',
        ),
        (
            BO_S_CASE.replace('"version": 1,', '"version": 1,,'),
            "bo.json:3: the case file is not JSON: two commas in a row: delete one: column 16",
        ),
        (
            BO_S_CASE.replace('"tidy up"', '"tidy\tup"'),
            "bo.json:16: the case file is not JSON: a tab inside a string: write it as \\t: "
            "column 20",
        ),
        (
            BO_S_CASE.replace('"tidy up"', '"tidy C:\\Users\\bo"'),
            "bo.json:16: the case file is not JSON: a backslash (\\) that starts no escape (a "
            "Windows path?): write each backslash inside a string as \\\\: column 23",
        ),
    ],
    ids=[
        "line-comment",
        "block-comment",
        "hash-comment",
        "single-quotes",
        "comma-left-out",
        "bracket-left-open",
        "leading-zero",
        "python-none",
        "unquoted-name",
        "two-commas",
        "tab-typed",
        "windows-path",
    ],
)
def test_PROTO_1_a_note_or_quote_written_into_a_case_by_hand_is_named(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    edited: str,
    said: str,
) -> None:
    """PROTO-1: a colleague who notes something in a case they received (`// fails here
    too`), or writes a command with Python's quotes, was told "Expecting property name
    enclosed in double quotes", pointing at a note they meant to be there. The refusal names
    the comment or the quote, with its line."""
    assert _replay_refusal(edited, tmp_path, monkeypatch, capsys) == f"loopspec: error: {said}\n"


def test_PROTO_1_a_script_named_as_the_case_is_not_told_to_delete_its_comment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PROTO-1: `replay --cmd node loop.mjs case.json` takes loop.mjs for a case; it opens with
    a `//` comment, and the refusal said to delete the comment, as of a note written into a
    case. A comment is named only inside the case's braces."""
    script = "// the loop\nimport { main } from './main.mjs';\n"
    said = _replay_refusal(script, tmp_path, monkeypatch, capsys)
    assert said == (
        "loopspec: error: bo.json:1: the case file is not JSON: a case file starts with {, and "
        "this file does not: is it the right file?: column 1\n"
    )
