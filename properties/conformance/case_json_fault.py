"""Why a case file's text is not JSON, said as what a chat client, a mail or a web page did to it.

A case travels pasted into a chat or a mail and copied back out. What comes back may hold
typographic quotes or invisible spaces the client put in, a Markdown code fence around it, a
mail's `> ` quoting, HTML's `&quot;`, or may stop where the message's length limit cut it. The
parser's own words ("Expecting property name enclosed in double quotes") name none of these,
and the character at fault may not even be where the parser stopped (a key whose closing quote
alone was curled reads on to the next straight one), so the character is named, where it is.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Final

from loopspec.impl.json_fault_words import trailing_comma
from loopspec.impl.user_files import not_json
from loopspec.model.json_location import line_and_column
from loopspec.properties.typographic import CURLED_QUOTES

# Characters JSON does not read as space that show as space, or as nothing.
_INVISIBLE: Final = "\u00a0\u202f\u2007\u2009\u200a\u200b\u200c\u200d\u2060\ufeff\u2028\u2029"
_HTML_ENTITY: Final = re.compile(r"&(?:quot|amp|lt|gt|#\d+|#x[0-9a-fA-F]+);")
_FENCE: Final = re.compile(r"(?m)^[ \t]*(?:```|~~~)")
_MAIL_QUOTE: Final = re.compile(r"(?m)^[ \t]*>")
_COMMENT: Final = re.compile(r"//|/\*|#")
_SEND_WHOLE: Final = "send the case as a file (an attachment), not as pasted text"


def _named(character: str) -> str:
    """`“ (U+201C LEFT DOUBLE QUOTATION MARK)`, or the code alone for an invisible one."""
    code = f"U+{ord(character):04X} {unicodedata.name(character, 'unnamed')}"
    return code if character in _INVISIBLE else f"{character} ({code})"


_STRAIGHTENED: Final = str.maketrans(
    dict.fromkeys(CURLED_QUOTES, '"') | dict.fromkeys(_INVISIBLE, " ")
)


def _parses_further(text: str, stop: int) -> bool:
    """Whether `text`, its curled quotes straightened and its invisible spaces made spaces,
    parses, or parses past `stop`: then those characters are the fault, and not a curled quote
    a message's text holds (which straightening breaks sooner)."""
    try:
        json.loads(text.translate(_STRAIGHTENED))
    except json.JSONDecodeError as error:
        return error.pos > stop
    except (ValueError, RecursionError):  # refused past where the first parse stopped
        return True
    return True


def _culprit(text: str, stop: int) -> int | None:
    """The offset of the first curled quote or invisible space on the line where the parser
    stopped, up to where it stopped, when it is the fault: a quote the client curled is the
    fault wherever on that line the parser noticed it (a key's closing quote curled alone reads
    on to the next straight one)."""
    line_start = text.rfind("\n", 0, stop) + 1
    for offset in range(line_start, min(stop + 1, len(text))):
        if text[offset] in CURLED_QUOTES or text[offset] in _INVISIBLE:
            return offset if _parses_further(text, stop) else None
    return None


_LINE_OPENING_AN_OBJECT: Final = re.compile(r"(?m)^[ \t]*\{")


def _case_after_words(text: str, error: json.JSONDecodeError) -> int | None:
    """Where the case starts, when the text opens with words that are no JSON (a chat message's
    "Here is the case:") and a line later on opens an object holding `commands`, or None."""
    if not error.msg.startswith("Expecting value") or error.pos != len(text) - len(text.lstrip()):
        return None
    decoder = json.JSONDecoder()
    for opening in _LINE_OPENING_AN_OBJECT.finditer(text, error.pos):
        brace = opening.end() - 1
        try:
            value, _ = decoder.raw_decode(text, brace)
        except (ValueError, RecursionError):
            continue  # a brace inside the case, or a case the client also broke
        if isinstance(value, dict) and "commands" in value:
            return brace
    return None


def case_json_fault(path: object, text: str, error: json.JSONDecodeError) -> str:
    """The one-line refusal of the case file `path`, whose text `text` the JSON parser refused
    with `error`: `path:line: the case file is not JSON: what: column c`."""
    if not text.strip():
        return f"{path}: the case file is empty (a download or a paste that held nothing?)"
    fence = _FENCE.search(text)
    if fence is not None and fence.start() <= error.pos:
        line, column = line_and_column(text, fence.end() - 3)
        return (
            f"{path}:{line}: the case file is not JSON: a Markdown code fence (```), which a chat "
            f"client adds around pasted code: delete the fence's lines: column {column}"
        )
    opening = _case_after_words(text, error)
    if opening is not None:
        # A chat message copied whole: the parser's "Expecting value" named its first word.
        where = f"which starts at line {line_and_column(text, opening)[0]}"
        fence = _FENCE.search(text, 0, opening)
        if fence is not None:
            where += (
                f", and a Markdown code fence (```) at line {line_and_column(text, fence.end())[0]}"
            )
        return (
            f"{path}:{error.lineno}: the case file is not JSON: words before the case, {where} "
            "(a chat message copied whole?): keep only the case, from its opening { to its "
            f"closing }}: column {error.colno}"
        )
    found = _culprit(text, error.pos)
    if found is not None:
        character = text[found]
        if character in _INVISIBLE:
            what = f"an invisible {_named(character)}, which JSON does not read as a space"
        else:
            what = f'{_named(character)} where JSON needs a straight double quote (")'
        line, column = line_and_column(text, found)
        return f"{path}:{line}: the case file is not JSON: {what}; {_SEND_WHOLE}: column {column}"
    quoted = _MAIL_QUOTE.search(text)
    if quoted is not None and quoted.start() <= error.pos:
        line, column = line_and_column(text, quoted.end() - 1)
        return (
            f"{path}:{line}: the case file is not JSON: a mail's quoting (>) before the line; "
            f"{_SEND_WHOLE}: column {column}"
        )
    entity = _HTML_ENTITY.match(text, error.pos)
    if entity is not None:
        what = f"the HTML escape {entity.group()}, as a web page's source holds it; {_SEND_WHOLE}"
        return not_json(path, error, "case file", what)
    rest = text[error.pos :]
    unterminated = error.msg.startswith("Unterminated string") and "\n" not in rest
    if unterminated or (error.msg != "Extra data" and not rest.strip()):
        what = (
            "the text ends before the case does: it was cut off (a message's length limit?); "
            + _SEND_WHOLE
        )
        return not_json(path, error, "case file", what)
    if trailing_comma(error) is not None:
        # A command or member cut from a case by hand, its comma left behind (before a comment
        # or a quote is asked about: the parser names the closing bracket on the next line).
        return not_json(path, error, "case file")
    comment = _COMMENT.match(text, error.pos)
    # Only inside the case's braces: a file opening with a comment is no case at all (a
    # script named where the case goes, `replay --cmd node loop.mjs case.json`).
    if comment is not None and error.pos > len(text) - len(text.lstrip()):
        # A note a colleague wrote into the case (JSON with comments, as an editor's settings
        # are): the parser named the property or comma it expected there instead.
        what = (
            f"a comment ({comment.group()}), which JSON does not have: delete it (a note for "
            "people can go in the case's summary string)"
        )
        return not_json(path, error, "case file", what)
    if text.startswith("'", error.pos):  # a Python dict printed, or JavaScript's own quoting
        what = "a single quote ('), where JSON needs a straight double quote (\")"
        return not_json(path, error, "case file", what)
    if error.msg == "Extra data":  # a stray brace, a second copy pasted, a mail's signature
        return not_json(path, error, "case file", "more follows the case's closing brace")
    if error.msg.startswith("Invalid control character") and text[error.pos] in "\r\n":
        # A case sent in a mail's body comes back with its long lines wrapped.
        what = "a line break inside a string (was the line wrapped, by a mail client?)"
        return not_json(path, error, "case file", what)
    return not_json(path, error, "case file")
