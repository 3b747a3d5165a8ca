"""What a JSON parser's refusal of a hand-edited file means, said as the edit and its mend.

Python's parser names what it expected where it stopped ("Expecting ',' delimiter",
"Expecting value", "Invalid \\escape"), not what the person typed there: a comma left out
between two members, Python's `True`, a name without its quotes, a tab or a Windows path's
backslash inside a string. Each refusal is said here as the edit, with what to type instead;
one this module does not know keeps the parser's words.
"""

from __future__ import annotations

import json
import re
from typing import Final

# A word where JSON takes a value or a member's name: an identifier, as a person types one.
_BARE_WORD: Final = re.compile(r"[A-Za-z_$][\w$.-]*")
# Python's (and other languages') spellings of JSON's three literals.
_LITERALS: Final = {
    "True": "true",
    "False": "false",
    "None": "null",
    "TRUE": "true",
    "FALSE": "false",
    "NULL": "null",
    "Null": "null",
    "nil": "null",
    "undefined": "null",
}


def edit_fault(error: json.JSONDecodeError, what: str) -> tuple[str, int]:
    """The words for `error`, the parser's refusal of the user's `what` ("case file"), and the
    offset they point at: a comma left before a closing bracket where a member was cut (the
    parser names the bracket that follows), else where the parser stopped."""
    comma = trailing_comma(error)
    if comma is not None:
        closer = error.doc[comma + 1 :].lstrip()[:1]
        return (
            f"a comma before the closing {closer} (left behind when what followed it was "
            "cut?): delete it",
            comma,
        )
    if _quote_left_unescaped(error):
        # The parser names a missing delimiter: the string's own quote ended it early.
        said = 'a string\'s closing quote (") is followed by more text: a " inside a string'
        return said + ' is written \\"', error.pos
    return parser_fault(error, what), error.pos


def trailing_comma(error: json.JSONDecodeError) -> int | None:
    """The offset of a comma right before a closing `]` or `}` where the parser stopped there
    (Python 3.13 says "Illegal trailing comma", earlier ones "Expecting value" or "Expecting
    property name"), or None."""
    text = error.doc
    if not error.msg.startswith(("Expecting value", "Expecting property name", "Illegal trailing")):
        return None
    if error.pos < len(text) and text[error.pos] == ",":
        comma = error.pos
    else:
        before = text[: error.pos].rstrip()
        if not before.endswith(","):
            return None
        comma = len(before) - 1
    return comma if text[comma + 1 :].lstrip()[:1] in ("]", "}") else None


def _quote_left_unescaped(error: json.JSONDecodeError) -> bool:
    """Whether the parser stopped right after a string, at a character that can go on no
    string (`"say "hi""`: the second quote ended it): a quote meant inside it."""
    if not error.msg.startswith(("Expecting ',' delimiter", "Expecting ':' delimiter")):
        return False
    text = error.doc
    return (
        error.pos < len(text)
        and text[error.pos - 1 : error.pos] == '"'
        and text[error.pos] not in ' \t\r\n,:]}"'
    )


def parser_fault(error: json.JSONDecodeError, what: str) -> str:
    """The words for the parser's other refusals, at the place it stopped; the parser's own
    message when no edit explains it."""
    text, at = error.doc, error.pos
    rest = text[at:]
    if error.msg.startswith("Expecting"):
        if not rest.strip():
            return f"the text ends before the {what} does: was it cut short?"
        if at == len(text) - len(text.lstrip()) and not rest.startswith(("{", "[")):
            # The first thing in the file is no JSON at all: a script or notes in its place.
            return f"a {what} starts with {{, and this file does not: is it the right file?"
    word = _BARE_WORD.match(text, at)
    if error.msg.startswith("Expecting ',' delimiter"):
        return _no_delimiter(text, at)
    if error.msg.startswith("Expecting ':' delimiter"):
        return "a colon (:) is missing between a member's name and its value: add it"
    if error.msg.startswith("Expecting property name"):
        if rest.startswith(","):
            return "two commas in a row: delete one"
        if word is not None:
            name = word.group()
            return f'a member\'s name without its double quotes: write "{name}"'
        return 'a member\'s name, in double quotes ("name"), belongs here'
    if error.msg.startswith("Expecting value"):
        if word is not None and word.group() in _LITERALS:
            spelt = word.group()
            return f"{spelt} is not JSON's spelling: write {_LITERALS[spelt]}"
        if word is not None:
            return f'a bare word ({word.group()}): a string is written in double quotes, "..."'
        if rest.startswith(","):
            return "a value is missing before this comma (two commas in a row?)"
        return "a value belongs here"
    if error.msg.startswith("Invalid control character"):
        return _control_character(text[at])
    if error.msg.startswith("Invalid \\escape"):
        return (
            "a backslash (\\) that starts no escape (a Windows path?): write each backslash "
            "inside a string as \\\\"
        )
    if error.msg.startswith("Invalid \\uXXXX escape"):
        return "\\u not followed by four hexadecimal digits"
    if error.msg.startswith("Unterminated string"):
        return 'a string without its closing double quote (")'
    if error.msg.startswith("Extra data"):
        return f"more follows the end of the {what}'s JSON: delete it"
    return error.msg


def _no_delimiter(text: str, at: int) -> str:
    """Where the parser wanted a comma: a bracket closing over one still open inside it, a
    number written with a leading zero, or (only where one mends it) a comma left out."""
    rest = text[at:]
    if rest.startswith(("]", "}")):
        opener, opened_at = _innermost_open_bracket(text, at)
        if opener:
            line = text.count("\n", 0, opened_at) + 1
            return (
                f"this {rest[0]} comes while the {opener} opened on line {line} is still open: "
                f"add its {_CLOSER[opener]} before this {rest[0]}"
            )
    if rest[:1].isdigit() and text[at - 1 : at] == "0":
        start = at - 2 if text[at - 2 : at - 1] == "-" else at - 1
        number = re.match(r"-?\d+", text[start:])
        typed = number.group() if number else text[start : at + 1]
        return (
            f"a number with a leading zero ({typed}), which JSON does not write: write {int(typed)}"
        )
    if rest[:1] in ('"', "{", "[", "-") or rest[:1].isalnum():
        return "no comma (,) between this member or item and the one before it: add one"
    return "a comma (,) or a closing bracket belongs here"


_CLOSER: Final = {"{": "}", "[": "]"}


def _innermost_open_bracket(text: str, before: int) -> tuple[str, int]:
    """The innermost { or [ still open at `before`, and where it opened; ("", -1) if none.
    Brackets inside strings are text, not structure."""
    still_open: list[tuple[str, int]] = []
    in_string = escaped = False
    for index, character in enumerate(text[:before]):
        if in_string:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                in_string = False
        elif character == '"':
            in_string = True
        elif character in _CLOSER:
            still_open.append((character, index))
        elif character in "]}" and still_open:
            still_open.pop()
    return still_open[-1] if still_open else ("", -1)


def _control_character(character: str) -> str:
    """A control character typed inside a string, which JSON writes as an escape."""
    if character == "\t":
        return "a tab inside a string: write it as \\t"
    if character in "\r\n":
        return "a line break inside a string: write it as \\n"
    return (
        f"a control character (U+{ord(character):04X}) inside a string: write it as "
        f"\\u{ord(character):04x}"
    )
