"""Where the real-harness tests leave the reports they produced, for `make test` to print.

`make test` used to run every scenario on both real CLIs a second time after pytest only to
print the reports (about 90 s of CPU). Instead the Makefile's pytest run sets
LOOPSPEC_HARNESS_REPORTS to a directory; the tests write there the output of each `loopspec run`,
`loopspec check` and `loopspec replay` they ran, and the Makefile prints those files in order
(failing when one is missing). Unset, nothing is written.
"""

from __future__ import annotations

import os
from pathlib import Path

REPORTS_DIR_VARIABLE = "LOOPSPEC_HARNESS_REPORTS"


def reports_dir() -> Path | None:
    """The directory `make test` asked the reports to be saved in, or None."""
    named = os.environ.get(REPORTS_DIR_VARIABLE)
    return Path(named) if named else None


def save_report(name: str, text: str) -> None:
    """Write one report under the reports directory, when one was asked for."""
    directory = reports_dir()
    if directory is None:
        return
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(text, encoding="utf-8")
