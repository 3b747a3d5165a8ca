"""Which files of a folder are its cases, for `replay DIR` and the pytest plugin's
`--loopspec-cases DIR`.

A case is a file whose name ends in `.json`, in any case (`x.JSON`, as some systems save it). A
file whose name holds `.json` with more after it (`x.json.txt`, as a mail client or a browser
saves an attachment; `x.json.bak`) is not read, but is said to have been passed over: skipped in
silence, a case a colleague sent would look replayed and passing.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

CASE_SUFFIX = ".json"


class FolderCases(NamedTuple):
    """The case files of a folder, by name, and the files named like one that are not read."""

    cases: list[Path]
    passed_over: list[Path]


def folder_cases(folder: Path) -> FolderCases:
    """The files of `folder` (not its subfolders) read as cases, and those passed over."""
    cases: list[Path] = []
    passed_over: list[Path] = []
    for path in sorted(folder.iterdir()):
        if not path.is_file():
            continue
        name = path.name.lower()
        if name.endswith(CASE_SUFFIX):
            cases.append(path)
        elif CASE_SUFFIX + "." in name:
            passed_over.append(path)
    return FolderCases(cases, passed_over)


def passed_over_words(folder: str, passed_over: list[Path]) -> str:
    """One line naming the files of `folder` named like a case but not read as one."""
    count = len(passed_over)
    names = ", ".join(path.name for path in passed_over)
    files = "1 file" if count == 1 else f"{count} files"
    one = "it" if count == 1 else "one"
    return (
        f"{folder}: {files} named like a case but not ending in .json, not replayed: {names} "
        f"(rename {one} to end in .json to replay it)"
    )
