"""Reading a file a user names: bounded in size, JSON bounded in depth (rule SAFE-4).

A path on a command line may be anything: `/dev/zero`, a directory, a FIFO nobody writes, a
100,000-deep array, a number with 400 digits. `read_user_file` refuses what is neither a regular
file nor a pipe the user chose, and reads at most `cap` bytes (one more, to tell that the file is
over). `parse_user_json` parses strictly (no NaN or Infinity) and refuses nesting deeper than
`MAX_JSON_DEPTH`, so no later recursive reader can run out of stack, lone surrogates, which
no log or terminal can carry, and a key given twice in one object (`RepeatedKey`), whose first
value a parser drops silently. Both raise `UserFileError`,
a `ValueError`, with a message that names the file. `read_user_json` does both for a reader of
a user's JSON file (a scenario, hooks), in the one wording they share, and raises `NotJsonText`
for a file that is no JSON text.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Final

from loopspec.impl.json_fault_words import edit_fault
from loopspec.impl.system_words import system_reason
from loopspec.model.errors import NO_RULE_BROKEN
from loopspec.model.json_location import line_and_column, offset_past_depth
from loopspec.model.json_text import json_refusal
from loopspec.model.repeated_keys import RepeatedKey, given_twice, repeated_key

MAX_JSON_DEPTH: Final = 200
"""Arrays and objects nested deeper than this are refused (a loop's documents need a dozen)."""
_CHUNK: Final = 1 << 16
_MIB: Final = 1 << 20
STDIN_NAME: Final = "-"
"""The name that reads standard input (`loopspec replay -`, as `loopspec check -`), and names
it in messages."""
STDIN_PATH: Final = "/dev/stdin"
STDIN_PATHS: Final = (STDIN_PATH, "/dev/fd/0", "/proc/self/fd/0")
"""The paths naming standard input: read from the descriptor when it is a socket, which no
path opens (`properties.logcheck.files.STDIN_PATHS` says the same for check)."""


def shown(text: str, limit: int = 200) -> str:
    """Text a user supplied (a file's member, a command line), safe in a one-line message:
    control characters escaped, cut to `limit` characters."""
    escaped = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:limit])
    return escaped + ("..." if len(text) > limit else "")


class UserFileError(ValueError):
    """A user-supplied file loopspec will not read; the message names it. `unreadable` when the
    system refused it (no such file, no permission): no rule says what the file must be, as
    opposed to a device or a file over the cap, which SAFE-4 refuses."""

    def __init__(
        self, message: str, *, unreadable: bool = False, at: tuple[int, int] | None = None
    ) -> None:
        super().__init__(message)
        self.unreadable = unreadable
        self.at = at
        """The line and column of the fault in the file's text, where it has one."""

    @property
    def rule_id(self) -> str:
        """The rule a command cites for this refusal: SAFE-4 for what it refuses unread, none
        (`NO_RULE_BROKEN`) when the system refused the file."""
        return NO_RULE_BROKEN if self.unreadable else "SAFE-4"


def refused_by_system(path: object, doing: str, error: OSError) -> str:
    """`path: cannot <doing>: <the system's reason>`, the one wording of a file the system will
    not let loopspec read or write (no rule is broken)."""
    return f"{path}: cannot {doing}: {system_reason(error)}"


def file_kind(mode: int) -> str:
    """What a file of this `st_mode` is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a regular file"


def read_user_file(path: Path, *, cap: int, what: str = "file", too_large: str = "") -> bytes:
    """The bytes of `path`, a regular file or a pipe (or standard input, a socket too, named
    `-` or by a path), at most `cap` of them; `too_large` ends the refusal of a larger one,
    saying what to do ("; a case conform saves is ...")."""
    standard_input = str(path) == STDIN_NAME
    if sys.stdin is None and (standard_input or str(path) in STDIN_PATHS):
        # Closed when loopspec started (`<&-`): descriptor 0 may since be a pipe loopspec made
        # for itself, and reading it waited for ever.
        raise UserFileError(f"{path}: standard input is closed", unreadable=True)
    try:
        mode = os.fstat(0).st_mode if standard_input else os.stat(path).st_mode
    except OSError as error:
        message = refused_by_system(path, f"read the {what}", error)
        raise UserFileError(message, unreadable=True) from error
    # Standard input may be a socket (a Node parent's pipe is a socket pair), which cannot be
    # opened by name: read from its descriptor, as through a pipe.
    piped_in = stat.S_ISSOCK(mode) and (standard_input or str(path) in STDIN_PATHS)
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or piped_in):
        raise UserFileError(f"{path}: the {what} is {file_kind(mode)}, not a file")
    from_descriptor = piped_in or standard_input
    try:
        with open(0 if from_descriptor else path, "rb", closefd=not from_descriptor) as stream:
            data = bytearray()
            while len(data) <= cap and (chunk := stream.read(min(_CHUNK, cap + 1 - len(data)))):
                data += chunk
    except OSError as error:
        message = refused_by_system(path, f"read the {what}", error)
        raise UserFileError(message, unreadable=True) from error
    if len(data) > cap:
        raise UserFileError(
            f"{path}: the {what} is larger than {cap} bytes ({cap / _MIB:g} MiB), the most "
            f"loopspec reads{too_large}"
        )
    return bytes(data)


def not_utf8(path: object, data: bytes, error: UnicodeDecodeError, what: str) -> str:
    """The one wording of a user's file that is not UTF-8: where its first bad byte is."""
    before = data[: error.start].decode("utf-8")
    line = before.count("\n") + 1
    column = len(before) - before.rfind("\n")
    return (
        f"{path}:{line}: the {what} is not UTF-8 text: byte 0x{data[error.start]:02x} at "
        f"column {column}; save it as UTF-8"
    )


def not_json(path: object, error: json.JSONDecodeError, what: str, reason: str = "") -> str:
    """The one wording of a user's file that is not JSON: `path:line: ...: column c` (`reason`
    in place of the edit's words when the caller knows better). An empty file says so: the
    parser's "Expecting value: column 1" sent its reader looking for a fault on line 1. Every
    other refusal is said as the hand edit that left it (`edit_fault`), at the place it names."""
    if not error.doc.strip():
        return f"{path}: the {what} is empty"
    said, at = (reason, error.pos) if reason else edit_fault(error, what)
    line, column = line_and_column(error.doc, at)
    return f"{path}:{line}: the {what} is not JSON: {said}: column {column}"


def refused_json(path: object, error: UserFileError, what: str) -> str:
    """The one wording of JSON `parse_user_json` refuses past its bounds (nested too deeply, a
    lone surrogate): SAFE-4's, as `error.rule_id` says."""
    if error.at is None:
        return f"{path}: the {what} is refused: {error}"
    line, column = error.at
    return f"{path}:{line}: the {what} is refused: {error}: column {column}"


class NotJsonText(ValueError):
    """A user's file that is no JSON text: not UTF-8, not JSON, or holding NaN or Infinity. Its
    message names the file (and the line where the parser says); it carries no rule, and its
    readers (a scenario, a hooks file, a case file) name none either: no rule of SPEC.md states
    a user's file's JSON text, so a tag would send the reader to a rule the file does not break."""


def read_user_json(path: Path, *, cap: int, what: str) -> object:
    """The JSON document in the user's file `path` (`read_user_file`, `parse_user_json`), every
    refusal in the one wording each reader of such a file uses: `UserFileError` for a file not
    read or JSON past SAFE-4's bounds (its `rule_id` says which), `NotJsonText` for the rest."""
    return read_user_json_text(path, cap=cap, what=what)[0]


def read_user_json_text(path: Path, *, cap: int, what: str) -> tuple[object, str]:
    """`read_user_json`'s document and the text it was read from: a fault its reader finds in
    the document names the line it is on (`loopspec.model.json_location`)."""
    data = read_user_file(path, cap=cap, what=what)
    try:
        text = data.decode("utf-8")
        return parse_user_json(text), text
    except UnicodeDecodeError as error:
        raise NotJsonText(not_utf8(path, data, error, what)) from error
    except json.JSONDecodeError as error:
        if error.msg == "Extra data" and _json_lines(error.doc):
            # A transcript or session log named where a scenario or a hooks file goes.
            raise NotJsonText(
                f"{path}: one JSON value per line (JSON Lines, a session log or transcript?), "
                f"not a {what}; a session log is checked with `loopspec check`"
            ) from error
        raise NotJsonText(not_json(path, error, what)) from error
    except UserFileError as error:  # nested too deeply, a lone surrogate
        raise UserFileError(refused_json(path, error, what)) from error
    except RepeatedKey as error:
        said = given_twice(shown(error.path, 80))
        raise NotJsonText(f"{path}:{error.line}: {said}: keep one") from error
    except ValueError as error:  # NaN, Infinity, an integer too long to read
        raise NotJsonText(f"{path}: the {what} is not JSON: {json_refusal(error)}") from error


def _json_lines(text: str) -> bool:
    """Whether `text` starts with two lines that are each one JSON object: JSON Lines."""
    lines = [line for line in text.splitlines() if line.strip()][:2]
    try:
        values = [json.loads(line) for line in lines]
    except (ValueError, RecursionError):
        return False
    return len(values) == 2 and all(isinstance(value, dict) for value in values)


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def parse_user_json(data: bytes | str, *, max_depth: int = MAX_JSON_DEPTH) -> object:
    """`data` parsed as strict JSON, nesting at most `max_depth` deep; `ValueError` otherwise."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise _nested_too_deeply(text, max_depth) from None
    repeat = repeated_key(text, value)
    if repeat is not None:  # the parser kept the last of two values silently
        raise repeat
    if json_depth(value) > max_depth:
        raise _nested_too_deeply(text, max_depth)
    try:
        # A lone surrogate (`"\ud800"`) is valid JSON but not text: it could not be logged or
        # printed later.
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise UserFileError(
            "JSON holds a lone surrogate (\\uD800-\\uDFFF), not text", at=_lone_surrogate_at(text)
        ) from None
    return value


# A string's escapes, one at a time: `\\` whole, so that `\\ud800` (a backslash, then text) is
# not read as an escape.
_ESCAPE: Final = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)


def _lone_surrogate_at(text: str) -> tuple[int, int] | None:
    """The line and column of the first lone surrogate in JSON `text`: a `\\uD800`-`\\uDBFF`
    escape not followed by a `\\uDC00`-`\\uDFFF` one, or one of those after no such, or
    (in text not read from UTF-8) the character itself; None where none is found."""
    pending: int | None = None  # the offset of a high surrogate's escape awaiting its low half
    for escape in _ESCAPE.finditer(text):
        code = int(escape.group(1), 16) if escape.group(1) else None
        if pending is not None:
            paired = escape.start() == pending + 6 and code is not None and code >= 0xDC00
            if not (paired and code is not None and code <= 0xDFFF):
                return line_and_column(text, pending)
            pending = None  # its pair: one character written as two escapes
            continue
        if code is not None and 0xD800 <= code <= 0xDBFF:
            pending = escape.start()
        elif code is not None and 0xDC00 <= code <= 0xDFFF:
            return line_and_column(text, escape.start())
    if pending is not None:
        return line_and_column(text, pending)
    raw = re.search("[\ud800-\udfff]", text)
    return None if raw is None else line_and_column(text, raw.start())


def _nested_too_deeply(text: str, max_depth: int) -> UserFileError:
    """SAFE-4's refusal of `text` for its nesting, at the bracket that goes too deep: a file
    edited by hand names its line, as every other fault in it does."""
    offset = offset_past_depth(text, max_depth)
    at = None if offset is None else line_and_column(text, offset)
    return UserFileError(f"JSON nested deeper than {max_depth} levels", at=at)


def json_depth(value: object) -> int:
    """How deeply arrays and objects nest in `value` (0 for a scalar), without recursion."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        pending.extend((child, depth + 1) for child in children)
    return deepest
