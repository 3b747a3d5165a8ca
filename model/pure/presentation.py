"""String helpers behind the presenters and the ACP bridge (rules VIEW-3, VIEW-4, ACP-2).

Every function is total over its documented preconditions and carries PEP 316 contracts
(`pre:` / `post:`) that `crosshair check loopspec.model.pure.presentation` verifies. Paths are
POSIX.
"""

from __future__ import annotations

# Named so contracts can mention a newline (CrossHair reads docstrings without unescaping).
NEWLINE = "\n"
_DIGITS = "0123456789"
_SIGNAL_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_EXIT_PREFIX = "[exit code: "
_SIGNAL_PREFIX = "[signal: "
# Exit codes are small; the bound also keeps `int()` far from its digit limit.
_MAX_EXIT_DIGITS = 10


def is_absolute(path: str) -> bool:
    """Whether `path` is an absolute POSIX path.

    post: __return__ == path.startswith("/")
    """
    return path.startswith("/")


def normalize_absolute(path: str) -> str:
    """`path` with empty, "." and ".." segments resolved lexically (no symlinks are read).

    pre: path.startswith("/")
    post: __return__.startswith("/")
    post: "//" not in __return__
    post: __return__ == "/" or not __return__.endswith("/")
    post: "/../" not in __return__ + "/" and "/./" not in __return__ + "/"
    post: len(__return__) <= len(path)
    """
    kept: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if kept:
                kept.pop()
            continue
        kept.append(segment)
    return "/" + "/".join(kept)


def _segments(normalized: str) -> list[str]:
    return [segment for segment in normalized.split("/") if segment]


def workspace_relative(path: str, cwd: str) -> str:
    """`path` relative to `cwd` when it lies strictly inside the workspace, else "".

    Inside means: both paths are absolute, the relative form is non-empty, and its first segment
    is not ".." (a name such as "..cache" is still inside).

    post: __return__ == "" or (path.startswith("/") and cwd.startswith("/"))
    post: not __return__.startswith("/")
    post: __return__.split("/")[0] != ".."
    post: __return__ == "" or normalize_absolute(cwd + "/" + __return__) == normalize_absolute(path)
    """
    if not (is_absolute(path) and is_absolute(cwd)):
        return ""
    target = _segments(normalize_absolute(path))
    base = _segments(normalize_absolute(cwd))
    common = 0
    while common < min(len(target), len(base)) and target[common] == base[common]:
        common += 1
    relative = "/".join([".."] * (len(base) - common) + target[common:])
    if relative == "" or relative.split("/")[0] == "..":
        return ""
    return relative


def relativize_title(title: str, path: str, cwd: str) -> str:
    """`title` with every occurrence of `path` replaced by its workspace-relative form.

    The title is left alone unless `workspace_relative` finds `path` inside `cwd` (rule VIEW-4).

    post: path.startswith("/") and cwd.startswith("/") or __return__ == title
    post: path in title or __return__ == title
    post: __return__ == title or len(__return__) < len(title)
    post: __return__ == title or __return__ == title.replace(path, workspace_relative(path, cwd))
    """
    relative = workspace_relative(path, cwd)
    if relative == "":
        return title
    return title.replace(path, relative)


def resolve_terminal_cwd(view_cwd: str | None, session_cwd: str) -> str:
    """The directory a terminal card shows: absolute as given, relative resolved, absent = session.

    An empty `view_cwd` counts as absent.

    post: bool(view_cwd) or __return__ == session_cwd
    post: view_cwd is None or not view_cwd.startswith("/") or __return__ == view_cwd
    post: not session_cwd.startswith("/") or __return__.startswith("/")
    """
    if not view_cwd:
        return session_cwd
    if is_absolute(view_cwd):
        return view_cwd
    if is_absolute(session_cwd):
        return normalize_absolute(session_cwd + "/" + view_cwd)
    # A relative session cwd is not expected; join without pretending to resolve it.
    return f"{session_cwd.rstrip('/')}/{view_cwd}" if session_cwd else view_cwd


def longest_backtick_run(text: str) -> int:
    """The length of the longest run of consecutive backticks in `text`.

    post: __return__ >= 0
    post: "`" * __return__ in text
    post: "`" * (__return__ + 1) not in text
    """
    longest = 0
    current = 0
    for char in text:
        current = current + 1 if char == "`" else 0
        longest = max(longest, current)
    return longest


def fenced_console(output: str) -> str:
    """`output` without trailing newlines inside a ```console fenced block.

    The fence grows past the longest backtick run in the output, so the output can never close
    the block early (plain output gets the usual three backticks).

    post: __return__.startswith("```")
    post: __return__.endswith("```")
    post: NEWLINE + output.rstrip(NEWLINE) + NEWLINE in __return__
    post: __return__.partition("console" + NEWLINE)[0] not in output.rstrip(NEWLINE)
    """
    body = output.rstrip("\n")
    fence = "`" * max(3, longest_backtick_run(body) + 1)
    return f"{fence}console\n{body}\n{fence}"


def exit_code_of(line: str) -> int | None:
    """The N of a canonical `[exit code: N]` line (decimal, optional minus, no leading zeros).

    post: __return__ is None or line == "[exit code: " + str(__return__) + "]"
    """
    if not (line.startswith(_EXIT_PREFIX) and line.endswith("]")):
        return None
    number = line[len(_EXIT_PREFIX) : -1]
    digits = number.removeprefix("-")
    if not 1 <= len(digits) <= _MAX_EXIT_DIGITS:
        return None
    if any(char not in _DIGITS for char in digits):
        return None
    # Only the canonical spelling counts, so the marker round-trips exactly.
    if (digits.startswith("0") and digits != "0") or number == "-0":
        return None
    return int(number)


def signal_of(line: str) -> str | None:
    """The name of a `[signal: SIGNAME]` line (SIG followed by upper-case letters or digits).

    post: __return__ is None or line == "[signal: " + __return__ + "]"
    post: __return__ is None or (__return__.startswith("SIG") and len(__return__) > 3)
    """
    if not (line.startswith(_SIGNAL_PREFIX) and line.endswith("]")):
        return None
    name = line[len(_SIGNAL_PREFIX) : -1]
    if not name.startswith("SIG") or len(name) <= 3:
        return None
    if any(char not in _SIGNAL_NAME_CHARS for char in name):
        return None
    return name


def parse_exit_marker(text: str) -> tuple[str, int | None, str | None]:
    """Split a bash result text into (output, exit code, signal).

    The bash tool ends its text with one marker line, `[exit code: N]` or `[signal: SIGNAME]`;
    newlines after the marker are ignored. The output is the text before the marker line,
    without the newline that separates them. Text without a marker is all output.

    post: __return__[1] is None or __return__[2] is None
    post: text.startswith(__return__[0])
    post: (__return__[1] is None and __return__[2] is None) == (__return__[0] == text)
    """
    head, _, last = text.rstrip("\n").rpartition("\n")
    code = exit_code_of(last)
    signal = None if code is not None else signal_of(last)
    if code is None and signal is None:
        return text, None, None
    return head, code, signal


def first_line(offset: int | None) -> int:
    """The 1-based first line a read starts at: the offset, with absent or 0 meaning line 1.

    pre: offset is None or offset >= 0
    post: __return__ >= 1
    post: offset is None or offset == 0 or __return__ == offset
    """
    return offset or 1


def file_title(verb: str, path: str) -> str:
    """ "<verb> <path>", a file card's title ("Read a.txt", "Write notes.md"), or the verb alone
    for the empty path, which names no file.

    pre: verb and not verb.endswith(" ")
    post: __return__.startswith(verb)
    post: __return__ == verb or __return__ == verb + " " + path
    post: (__return__ == verb) == (path == "")
    post: not __return__.endswith(" ") or path.endswith(" ")
    """
    return f"{verb} {path}" if path else verb


def read_title(path: str, offset: int | None, limit: int | None) -> str:
    """ "Read <path>" ("Read" alone for the empty path, which names no file), plus " (a - b)"
    for a limited read or " (from line a)" for an offset only.

    pre: offset is None or offset >= 0
    pre: limit is None or limit >= 1
    post: __return__.startswith("Read " + path if path else "Read")
    post: (limit is None and offset is None) == (__return__ in ("Read " + path, "Read"))
    post: limit is None or __return__.endswith(" - " + str(first_line(offset) + limit - 1) + ")")
    post: not __return__.endswith(" ") or (path.endswith(" ") and limit is None and offset is None)
    """
    title = file_title("Read", path)
    if limit is not None:
        first = first_line(offset)
        return f"{title} ({first} - {first + limit - 1})"
    if offset is not None:
        return f"{title} (from line {first_line(offset)})"
    return title
