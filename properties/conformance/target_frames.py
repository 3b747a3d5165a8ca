"""Where an in-process target's own code raised: its frames, told from loopspec's and Python's.

A target that raises says nothing about the rules (SAFE-5), and no Python traceback is printed
of it: a report names the innermost frame of the target's own (`innermost_of_target`), and
below its first line (the pytest plugin's, conform's, replay's), the target's own frames as a
traceback shows them (`target_traceback`), with the exceptions that caused it: a loop that
wraps a `KeyError` in an error of its own showed the wrapper alone, at the line that raised it.
"""

from __future__ import annotations

import os
import sysconfig
import traceback
from pathlib import Path
from types import TracebackType

import loopspec

# Frames in these folders are loopspec's own or Python's: not where a target's bug is. (In a
# checkout, loopspec/model etc. are links to the folders at the top: both sides are resolved.)
_PACKAGE = Path(loopspec.__file__).parent
_NOT_THE_TARGETS = tuple(
    str(folder.resolve()) + os.sep
    for folder in (
        _PACKAGE,
        *(_PACKAGE / part for part in ("model", "impl", "properties")),
        Path(sysconfig.get_paths()["stdlib"]),
    )
)

TRACEBACK_HEADING = "the target's traceback (its own frames, innermost last):"
"""The line above an in-process target's frames in an error's message (`target_traceback`)."""

FRAMES_SHOWN = 5
"""The target's frames a traceback shows of each exception, the innermost ones: where the
bug is (a loop's deep call chain pushed the report off a CI log's screen)."""

CAUSES_SHOWN = 3
"""The exceptions of a chain shown below the one the target raised: its cause, that one's..."""


def target_file(filename: str) -> str | None:
    """`filename` as a report names it (from the current folder when inside it), or None when
    it is loopspec's own or Python's: not where a target's bug is."""
    path = Path(filename)
    if not path.is_absolute() or str(path.resolve()).startswith(_NOT_THE_TARGETS):
        return None
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def innermost_of_target(chain: TracebackType | None) -> str | None:
    """The innermost frame of `chain` outside loopspec and the standard library, as
    `at file:line, in function`."""
    for frame in reversed(traceback.extract_tb(chain)):
        shown = target_file(frame.filename)
        if shown is not None:
            return f"at {shown}:{frame.lineno}, in {frame.name}"
    return None


def target_traceback(error: BaseException) -> list[str]:
    """The lines that show where the target's own code raised `error`, below a report's first
    line (which names `error` and its innermost frame): the target's last `FRAMES_SHOWN` frames,
    as Python's traceback writes them, then each exception that caused it (`raise ... from`,
    or one raised while handling another), with its own frames. [] where no frame is the
    target's and nothing caused it (loopspec refusing what the target returned)."""
    lines = _frames_of_target(error.__traceback__)
    own = {
        frame.filename
        for frame in traceback.extract_tb(error.__traceback__)
        if target_file(frame.filename)
    }
    seen = {id(error)}
    current, link = _cause(error, own)
    for _ in range(CAUSES_SHOWN):
        if current is None or id(current) in seen:  # a context chain may loop back
            break
        seen.add(id(current))
        lines += [f"{link} {exception_line(current)}", *_frames_of_target(current.__traceback__)]
        current, link = _cause(current, own)
    if not lines:
        return []
    return [TRACEBACK_HEADING, *lines]


def _frames_of_target(chain: TracebackType | None) -> list[str]:
    """The target's own frames of `chain`, the last `FRAMES_SHOWN`, two lines each."""
    frames = [frame for frame in traceback.extract_tb(chain) if target_file(frame.filename)]
    lines = []
    if len(frames) > FRAMES_SHOWN:
        left = len(frames) - FRAMES_SHOWN
        lines.append(f"  ... {left} outer frame{'' if left == 1 else 's'} left out")
    for frame in frames[-FRAMES_SHOWN:]:
        shown = target_file(frame.filename)
        lines.append(f'  File "{shown}", line {frame.lineno}, in {frame.name}')
        if frame.line:
            lines.append(f"    {frame.line.strip()}")
    return lines


def _cause(error: BaseException, own: set[str]) -> tuple[BaseException | None, str]:
    """The exception that caused `error`, as Python's traceback chains them, and how a report
    says the link. One it was merely raised while handling is shown only when raised in a file
    of `own`, the target's: the target is called while its runner (Hypothesis) may be handling
    an exception of its own, which said nothing of the target."""
    if error.__cause__ is not None:
        return error.__cause__, "caused by"
    context = None if error.__suppress_context__ else error.__context__
    if context is None:
        return None, ""
    files = {frame.filename for frame in traceback.extract_tb(context.__traceback__)}
    return (context, "raised while handling") if files & own else (None, "")


def exception_line(error: BaseException) -> str:
    """`Type: message`, its message's first line (a report's one line of an exception)."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
