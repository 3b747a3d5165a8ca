"""The usual `loopspec check` command line, read without argparse.

`loopspec check PATH...`, with `--format`, `--max-line-bytes`, `--max-violations`, `--known`,
`--strict-known`, `--fail-on-hook-faults` and `-v` spelt out in full and given valid values
(`--known` a plain word: `cli.check` reads it), is read here; any other command line (help, a usage
error, an abbreviated or `=`-joined option, paths on both sides of an option) gives None and is left
to argparse (`cli.parser`), so that help and every error message stay argparse's. What is
read here is what argparse reads from the same arguments (a test holds the two together):
argparse's import, with the gettext and locale lookups its messages make, cost each check
about 3 ms of start-up, more than reading a small log.
"""

from __future__ import annotations

from loopspec.properties.logcheck import DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_VIOLATIONS

TYPE_CHECKING = False  # typing's flag, read by type checkers by name: check imports no typing
if TYPE_CHECKING:
    # collections (which collections.abc imports) costs check a fifth of the interpreter's start
    from collections.abc import Sequence

FORMATS = ("text", "json")
LIMIT_CEILING = 1 << 30
"""The largest --max-line-bytes / --max-violations accepted (rule SAFE-4)."""
_LIMITS = {"--max-line-bytes": "max_line_bytes", "--max-violations": "max_violations"}
_VERBOSE = ("-v", "--verbose")
_FAIL_ON_HOOK_FAULTS = "--fail-on-hook-faults"
_STRICT_KNOWN = "--strict-known"


class CheckArguments:
    """check's options, as argparse's namespace holds them (`cli.check.register`)."""

    __slots__ = (
        "fail_on_hook_faults",
        "format",
        "known",
        "max_line_bytes",
        "max_violations",
        "paths",
        "strict_known",
        "verbose",
    )

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self.format = "text"
        self.max_line_bytes = DEFAULT_MAX_LINE_BYTES
        self.max_violations = DEFAULT_MAX_VIOLATIONS
        self.verbose = False
        self.known: list[str] | None = None  # as argparse's `append` leaves it
        self.fail_on_hook_faults = False
        self.strict_known = False


def usual_check_arguments(arguments: Sequence[str]) -> CheckArguments | None:
    """check's options from the arguments after `check`, or None where argparse must read
    them."""
    read = CheckArguments([])
    paths_ended = False  # an option came after the paths: argparse refuses paths after it
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if argument == "-" or not argument.startswith("-"):
            if paths_ended:
                return None
            read.paths.append(argument)
            continue
        paths_ended = bool(read.paths)
        if argument in _VERBOSE:
            read.verbose = True
            continue
        if argument == _FAIL_ON_HOOK_FAULTS:
            read.fail_on_hook_faults = True
            continue
        if argument == _STRICT_KNOWN:
            read.strict_known = True
            continue
        if index == len(arguments):
            return None
        value = arguments[index]
        index += 1
        if argument == "--format" and value in FORMATS:
            read.format = value
        elif argument in _LIMITS and _is_limit(value):
            setattr(read, _LIMITS[argument], int(value))
        elif argument == "--known" and _is_word(value):
            read.known = [*(read.known or []), value]
        else:
            return None
    return read if read.paths else None


def _is_limit(text: str) -> bool:
    """Whether `text` is a limit argparse takes, written plainly (`int` reads more: signs,
    spaces, underscores, other scripts' digits; those are left to argparse)."""
    return text.isascii() and text.isdigit() and 1 <= int(text) <= LIMIT_CEILING


def _is_word(text: str) -> bool:
    """Whether `text` is a `--known` value argparse reads as a value, not as an option: letters,
    digits, `-` and `,`, starting with a letter (the rule IDs and loop names it takes)."""
    return (
        text[:1].isascii()
        and text[:1].isalpha()
        and all(c.isascii() and (c.isalnum() or c in "-,") for c in text)
    )
