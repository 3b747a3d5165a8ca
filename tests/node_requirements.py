"""Which tests need Node.js or npm, and the one decision of whether this machine can run them.

`make demo` and most of `make test` need only python3. The JavaScript loop and the dsh loop run
under node, and `npm ci` installs dsh's packages and the pinned Claude Code and Codex CLIs (both
native executables, which then run without node). A test needing one of them carries
`@pytest.mark.needs(Need.X)` (`Need.ITS_HARNESS`: the real CLI its `harness` or `name`
parameter names); tests/conftest.py skips it, with `unavailable`'s reason, where the machine
lacks node or npm, and ends the run by saying how many were skipped and what they would have
checked.

Only a machine without node or npm skips: with both on PATH every such test runs, and a CLI or
dsh package that `npm ci` failed to install fails it (the install is broken, not missing).
"""

from __future__ import annotations

import enum
import functools
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from loopspec.properties.harnesses.script import Harness
from loopspec.properties.harnesses.session import BINARIES, default_adapter_dir

# In the folder `make test` gives pytest for the real CLIs' reports (tests/harness_reports.py),
# the run's summary of what was skipped, and `<harness>.skipped.txt` for each real CLI whose
# tests were skipped: the Makefile's saved-harness-reports prints them in the reports' stead.
SKIPPED_SUMMARY_FILE = "skipped-for-want-of-node.txt"
GET_NODE = "install Node.js 20 or later with npm (https://nodejs.org)"
OLDEST_NODE = 20


class Need(enum.Enum):
    """What a test drives that only Node.js or npm provides; the value says what it checks."""

    NODE = "the JavaScript loop (examples/js-loop) and the targets relaying to it"
    DSH = "the dsh loop (examples/dsh-adapter)"
    CLAUDE_CODE = "the real Claude Code CLI"
    CODEX = "the real Codex CLI"
    ITS_HARNESS = "the real CLI the test's `harness` (or `name`) parameter names"


HARNESS_NEEDS: Mapping[Harness, Need] = {
    Harness.CLAUDE_CODE: Need.CLAUDE_CODE,
    Harness.CODEX: Need.CODEX,
}
# The real CLI each of their needs names.
HARNESSES_NEEDED: Mapping[Need, Harness] = {need: cli for cli, need in HARNESS_NEEDS.items()}


def _not_on_path(programs: tuple[str, ...], path: str | None) -> str | None:
    """ "`node` is" or "`node` and `npm` are" (those of `programs` not on PATH), or None."""
    missing = [f"`{name}`" for name in programs if shutil.which(name, path=path) is None]
    if not missing:
        return None
    return f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'}"


@functools.cache
def _node_version(node: str) -> str:
    """What `node --version` prints (v20.20.2), once per run."""
    return subprocess.run(
        [node, "--version"], capture_output=True, text=True, check=False, timeout=30
    ).stdout.strip()


def unavailable(need: Need, path: str | None = None, adapter_dir: Path | None = None) -> str | None:
    """Why the tests needing `need` cannot run on this machine (PATH `path`, os.environ's when
    None), as a skip reason naming what is missing and how to get it; None when they can run.

    A real CLI already installed in `adapter_dir` (the checkout's adapter folder when None)
    runs without node; one that is not is installed by `npm ci`, which needs node and npm."""
    match need:
        case Need.NODE:
            missing = _not_on_path(("node",), path)
            if missing is not None:
                return f"{missing} not on PATH, so {need.value} cannot run: {GET_NODE}"
            return None
        case Need.DSH:
            missing = _not_on_path(("node", "npm"), path)
            if missing is not None:
                return f"{missing} not on PATH, so {need.value} cannot run: {GET_NODE}"
            node = shutil.which("node", path=path)
            assert node is not None
            version = _node_version(node)
            found = re.match(r"v(\d+)\.", version)
            if found is None or int(found.group(1)) < OLDEST_NODE:
                return (
                    f"{need.value} needs Node.js {OLDEST_NODE} or later, {node} is {version!r}: "
                    f"{GET_NODE}"
                )
            return None
        case Need.CLAUDE_CODE | Need.CODEX:
            harness = Harness.CLAUDE_CODE if need is Need.CLAUDE_CODE else Harness.CODEX
            folder = adapter_dir if adapter_dir is not None else default_adapter_dir(harness)
            missing = _not_on_path(("node", "npm"), path)
            if missing is None or (folder / BINARIES[harness]).is_file():
                return None
            return (
                f"{missing} not on PATH, so {need.value} cannot be installed (npm ci in "
                f"{folder}): {GET_NODE}, then run make harnesses"
            )
        case Need.ITS_HARNESS:
            raise ValueError("Need.ITS_HARNESS names a parameter: resolve it with harness_need")


def harness_need(harness: object) -> Need:
    """The need of a test whose `harness` parameter is `harness` (a Harness or its value)."""
    return HARNESS_NEEDS[harness if isinstance(harness, Harness) else Harness(str(harness))]


def need_skipped(reason: str) -> Need | None:
    """The need a skip reason `unavailable` gave names, read back from a test's report; None
    for a skip of another kind."""
    if GET_NODE not in reason:
        return None
    return next((need for need in Need if need.value in reason), None)


def skipped_summary(counts: Mapping[Need, int], path: str | None = None) -> list[str]:
    """The lines that end a run where tests were skipped for want of node or npm: how many,
    what they would have checked, and how to run them."""
    total = sum(counts.values())
    if total == 0:
        return []
    missing = _not_on_path(("node", "npm"), path) or "node or npm is"
    lines = [
        f"{total} tests were SKIPPED for want of Node.js/npm ({missing} not on PATH): "
        "this run is NOT full coverage. Not checked here:"
    ]
    lines += [f"  {counts[need]:4d}  {need.value}" for need in Need if counts.get(need, 0)]
    lines.append(f"To run them: {GET_NODE}, then make test.")
    return lines


NPM_CI_TIMEOUT = 900.0


def npm_ci_problem(folder: Path, what: str) -> str | None:
    """Why `npm ci` in `folder` (installing `what`) failed, or None once it succeeded."""
    npm = shutil.which("npm")
    if npm is None:
        return f"{what}: npm is not on PATH, so `npm ci` in {folder} cannot run"
    env = {
        **os.environ,
        "npm_config_audit": "false",
        "npm_config_fund": "false",
        "npm_config_update_notifier": "false",
        "npm_config_fetch_retries": "1",
    }
    try:
        done = subprocess.run(
            [npm, "ci", "--prefer-offline", "--no-audit", "--no-fund"],
            cwd=folder,
            capture_output=True,
            text=True,
            check=False,
            timeout=NPM_CI_TIMEOUT,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{what}: npm ci in {folder} could not run: {error}"
    if done.returncode != 0:
        tail = " | ".join(done.stderr.strip().splitlines()[-8:])
        return f"{what}: npm ci in {folder} failed ({done.returncode}): {tail}"
    return None


@functools.cache
def install_problem(harness: Harness) -> str | None:
    """Why the real CLI `harness` cannot run here, after `npm ci` in its adapter's folder where
    it is not installed yet (a bare `pytest` run, without `make harnesses`), or None. Once per
    run: every test needing the CLI asks, and a test finding it missing would hang or fail on
    what the CLI never answered, where this says why."""
    adapter = default_adapter_dir(harness)
    if (adapter / BINARIES[harness]).is_file():
        return None
    problem = npm_ci_problem(adapter, harness.value)
    if problem is None and not (adapter / BINARIES[harness]).is_file():
        return f"{harness.value}: npm ci succeeded but {BINARIES[harness]} is missing"
    return problem
