"""Which version of loopspec this copy is (`loopspec.__version__`, `loopspec --version`), found
without importing importlib.metadata where its answer can be read directly. A module apart from
the package's `__init__`, which every command imports: a check never asks its version.
"""

from __future__ import annotations

import os
import sys


def version() -> str:
    """This copy's version: its wheel's metadata beside it, else what importlib.metadata finds."""
    return version_beside(_SITE) or version_on_path(sys.path) or _version_from_metadata()


_SITE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The folder this package was installed into (site-packages, for a wheel)."""


def version_beside(folder: str) -> str | None:
    """The version in the metadata of the one loopspec wheel installed in `folder`
    (`loopspec-X.dist-info/METADATA`, which pip writes from pyproject's version), or None when
    `folder` holds none, or more than one. Read directly, it costs ~0.2 ms; importing
    importlib.metadata, which finds the same file, costs ~40 ms."""
    try:
        names = [
            name
            for name in os.listdir(folder)
            if name.startswith("loopspec-") and name.endswith(".dist-info")
        ]
    except OSError:
        return None
    return _wheel_version(os.path.join(folder, names[0])) if len(names) == 1 else None


def _wheel_version(dist_info: str, file_name: str = "METADATA") -> str | None:
    """The version a metadata folder `dist_info`'s `file_name` (a wheel's METADATA, an egg's
    PKG-INFO: the same headers) says, or None where it says none."""
    try:
        with open(os.path.join(dist_info, file_name), encoding="utf-8") as metadata:
            for line in metadata:
                if line == "\n":  # the headers end: the description follows
                    break
                if line.startswith("Version:"):
                    return line.removeprefix("Version:").strip() or None
    except (OSError, UnicodeDecodeError):
        return None
    return None


def version_on_path(folders: list[str]) -> str | None:
    """The version importlib.metadata finds for loopspec where this copy has no wheel's
    metadata beside it (an editable install: it lies in site-packages, the package in the
    checkout), found as its finder finds it: in the first folder of `folders` (`sys.path`) that
    holds metadata named loopspec. Read directly where that is one metadata folder alone (a
    `.dist-info`, or the `.egg-info` a build leaves in a checkout); None, so that
    importlib.metadata is asked, wherever it might find another: an egg-info file, two copies,
    an entry that is a zip file, a finder of distributions besides the path's."""
    if any(_finds_distributions(finder) for finder in sys.meta_path):
        return None
    for folder in folders:
        try:
            names = os.listdir(folder or ".")
        except NotADirectoryError:  # a zip file, whose insides importlib.metadata searches
            return None
        except OSError:  # missing or unreadable: importlib.metadata passes it by too
            continue
        # importlib.metadata's match: the name before the version, case aside (a name it
        # normalizes to loopspec is spelt loopspec, there being no separators in it to fold).
        ours = [
            name
            for name in names
            if name.lower().endswith((".dist-info", ".egg-info"))
            and name.lower().rpartition(".")[0].partition("-")[0] == "loopspec"
        ]
        if ours:
            return (
                _metadata_folder_version(os.path.join(folder or ".", ours[0]))
                if len(ours) == 1
                else None
            )
    return None


def _metadata_folder_version(path: str) -> str | None:
    """The version a metadata folder says as importlib.metadata reads it: METADATA, else
    PKG-INFO (an `.egg-info` folder, which a checkout's `pip wheel` or `setup.py` run leaves
    beside the package); None for an `.egg-info` file, which importlib.metadata reads whole,
    so that it is asked."""
    if not os.path.isdir(path):
        return None
    return _wheel_version(path) or _wheel_version(path, "PKG-INFO")


def _finds_distributions(finder: object) -> bool:
    """Whether an import finder other than the path's own finds distributions too."""
    return getattr(finder, "__name__", None) != "PathFinder" and hasattr(
        finder, "find_distributions"
    )


def _version_from_metadata() -> str:
    """The version as importlib.metadata finds it (an editable install, a source tree)."""
    from importlib import metadata  # noqa: PLC0415

    try:
        return metadata.version("loopspec")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"
