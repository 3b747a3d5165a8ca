"""String shapes the presenters and the ACP bridge need (rules VIEW-2, VIEW-4, ACP-2).

Paths are POSIX and handled lexically: nothing here touches the file system.
"""

from __future__ import annotations

import re

_EXIT_LINE = re.compile(r"\[exit code: (-?)([0-9]{1,10})\]")
_SIGNAL_LINE = re.compile(r"\[signal: (SIG[A-Z0-9]+)\]")
_BACKTICK_RUNS = re.compile(r"`+")


def path_segments(path: str) -> list[str]:
    """The segments of an absolute path after resolving `.`, `..` and empty segments."""
    resolved: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if resolved:
                resolved.pop()
        elif segment not in ("", "."):
            resolved.append(segment)
    return resolved


def inside_workspace(path: str, cwd: str) -> str:
    """`path` relative to `cwd` when it lies strictly below it (both absolute), else ""."""
    if not (path.startswith("/") and cwd.startswith("/")):
        return ""
    target, base = path_segments(path), path_segments(cwd)
    if len(target) <= len(base) or target[: len(base)] != base:
        return ""
    return "/".join(target[len(base) :])


def relative_title(title: str, path: str, cwd: str) -> str:
    """`title` with `path` shown workspace-relative, when the path is inside the workspace."""
    relative = inside_workspace(path, cwd)
    return title.replace(path, relative) if relative else title


def terminal_directory(view_cwd: str | None, session_cwd: str) -> str:
    """Where a terminal runs: an absolute cwd as given, a relative one under the session's."""
    if not view_cwd:
        return session_cwd
    if view_cwd.startswith("/"):
        return view_cwd
    if session_cwd.startswith("/"):
        return "/" + "/".join(path_segments(f"{session_cwd}/{view_cwd}"))
    return f"{session_cwd.rstrip('/')}/{view_cwd}" if session_cwd else view_cwd


def console_block(output: str) -> str:
    """`output` (trailing newlines dropped) in a console fence its backticks cannot close."""
    body = output.rstrip("\n")
    longest = max((len(run) for run in _BACKTICK_RUNS.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}console\n{body}\n{fence}"


def split_exit_marker(text: str) -> tuple[str, int | None, str | None]:
    """(output, exit code, signal) of a shell result ending in `[exit code: N]`/`[signal: S]`.

    Only the canonical spellings count (no leading zeros, no `-0`); otherwise, and without a
    marker line, the whole text is output.
    """
    before, _newline, last = text.rstrip("\n").rpartition("\n")
    exit_match = _EXIT_LINE.fullmatch(last)
    if exit_match is not None:
        sign, digits = exit_match.groups()
        canonical = digits == "0" or not digits.startswith("0")
        if canonical and not (sign and digits == "0"):
            return before, int(sign + digits), None
        return text, None, None
    signal_match = _SIGNAL_LINE.fullmatch(last)
    if signal_match is not None:
        return before, None, signal_match.group(1)
    return text, None, None


def file_title(verb: str, path: str) -> str:
    """`<verb> <path>`, a file card's title, or the verb alone for an empty path (no file)."""
    return f"{verb} {path}" if path else verb


def read_title(path: str, offset: int | None, limit: int | None) -> str:
    """`Read <path>` (`Read` for an empty path), with the line range of a limited read or the
    start of an offset one."""
    first = offset or 1
    title = file_title("Read", path)
    if limit is not None:
        return f"{title} ({first} - {first + limit - 1})"
    if offset is not None:
        return f"{title} (from line {first})"
    return title
