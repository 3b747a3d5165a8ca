"""A case file's text from its bytes, as a case comes back from other machines and editors.

A case is JSON in UTF-8. It may come back with a byte order mark (JSON lets a reader ignore
it), in UTF-16 with one (what Windows PowerShell 5 writes with `>` or `Out-File`, and editors
call "Unicode") or without one, or packed by a mail client or a bug tracker: the text is read
from the first three, and a packed file is refused saying how to unpack it (replay reads no
archive, so one it cannot read whole is never taken for a case). `holds_a_case` tells a case
from other files by that text, for the pytest plugin, given one as a plain path.
"""

from __future__ import annotations

import codecs
import json
import re
import shlex
import stat
from pathlib import Path
from typing import Final

from loopspec.impl.user_files import not_utf8

# Byte order marks and their encodings, the 4-byte UTF-32 ones first (UTF-32-LE's starts with
# UTF-16-LE's).
_MARKED: Final = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# The first bytes of what packs a file, and the command that unpacks one to standard output.
_PACKED: Final = (
    (b"\x1f\x8b", "gzip-compressed", "gunzip -c"),
    (b"PK\x03\x04", "a zip archive", "unzip -p"),
    (b"(\xb5/\xfd", "zstd-compressed", "zstd -dc"),
    (b"BZh", "bzip2-compressed", "bunzip2 -c"),
    (b"\xfd7zXZ\x00", "xz-compressed", "xz -dc"),
)


# What makes a file a case, wherever it lies and whatever its name: its `loopspec` member, its
# quotes straight or (pasted through a chat) curled, so that replay names the damage.
_CASE_MARK: Final = re.compile(
    r'["\u201c\u201d]loopspec["\u201c\u201d]\s*:\s*["\u201c\u201d]case["\u201c\u201d]'
)
# A case is a few kilobytes; a file far larger named on pytest's command line is not read whole.
_CASE_SIZE_AT_MOST: Final = 16 * 1024 * 1024
_HEAD_BYTES: Final = 4096


class NotCaseText(ValueError):
    """Bytes that hold no case file's text; the message names the file (and the line where
    it can). No rule states a case file's encoding."""


def case_text(path: Path, data: bytes) -> str:
    """The text of the case file `path`, whose bytes are `data`."""
    for magic, packed, unpack in _PACKED:
        if data.startswith(magic):
            quoted = shlex.quote(str(path))
            raise NotCaseText(
                f"{path}: the case file is {packed}, not JSON text: unpack it "
                f"({unpack} {quoted} > case.json) or replay <({unpack} {quoted})"
            )
    encoding, body, said_by = "utf-8", data, "its byte order mark says"
    for mark, marked in _MARKED:
        if data.startswith(mark):
            encoding, body = marked, data[len(mark) :]
            break
    else:
        if b"\x00" in data[:4]:
            # UTF-16 or UTF-32 without a mark (a mark-less "Unicode" save): JSON text starts
            # with ASCII, so where its zero bytes fall says which (RFC 4627, section 3). UTF-8
            # JSON holds no zero byte, and read as UTF-8 these were refused at column 2.
            encoding, said_by = json.detect_encoding(data), "its zero bytes say"
    try:
        return body.decode(encoding)
    except UnicodeDecodeError as error:
        if encoding == "utf-8":
            raise NotCaseText(not_utf8(path, body, error, "case file")) from error
        raise NotCaseText(
            f"{path}: the case file is not {encoding.upper()} text, as {said_by}: "
            f"{error.reason} at byte {error.start + len(data) - len(body)}; save it as UTF-8"
        ) from error


def holds_a_case(path: Path) -> bool:
    """Whether the file `path` holds a loopspec case, by its content (`"loopspec": "case"`),
    not its name: a colleague's case may come back named `alice-case`, `case.JSON` or
    `case.txt`. Unreadable or not text: no; too large, by its first 4 KiB."""
    try:
        found = path.stat()
        if not stat.S_ISREG(found.st_mode):
            return False  # a FIFO would be read to its writer's end (or block): a file only
        if found.st_size > _CASE_SIZE_AT_MOST:
            # Its head alone, where conform writes the marker: a case past the cap is one, which
            # replay refuses naming the cap, where pytest said "not found" of it.
            with path.open("rb") as opened:
                head = opened.read(_HEAD_BYTES).decode("utf-8", errors="replace")
            return _CASE_MARK.search(head) is not None
        text = case_text(path, path.read_bytes())
    except (OSError, NotCaseText):
        return False
    return _CASE_MARK.search(text) is not None
