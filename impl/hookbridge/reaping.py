"""Ending everything a started process started, including what left its session (rule SAFE-3).

Killing a child's process group ends what it started in that group, but a grandchild that
called `setsid` (or `setpgid`) has left the group, and after its parent exits it is reparented
to init, out of reach of any group or parent-child bookkeeping. What it cannot leave behind is
its environment: every process loopspec starts gets a fresh `LOOPSPEC_PROCESS_TOKEN`, inherited
by everything it starts, and `kill_marked(token)` finds them all by scanning `/proc/*/environ`
(readable for one's own processes, without any privilege or cgroup). A process that both leaves
the session and clears its environment can still escape; a hook runs arbitrary code as the user,
so only accidents can be caught, not a process that means to hide.

A program about to exit can close even that gap: `become_subreaper()` (Linux) makes orphans of
its descendants reparent to it instead of init, so they stay below it in the process tree, and
`kill_descendants()` then kills and reaps everything below it. Only the process's own entry
point may do this, since it ends every child the process has, not only loopspec's.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final

TOKEN_VARIABLE: Final = "LOOPSPEC_PROCESS_TOKEN"
PROC: Final = Path("/proc")
PR_SET_CHILD_SUBREAPER: Final = 36
KILL_SETTLE_S: Final = 1.0
"""How long `kill_marked` waits for killed processes to disappear from /proc."""
EMPTY_SCANS: Final = 2
"""Scans in a row that must find no marked process before `kill_marked` trusts that none is left."""


def new_token() -> str:
    """A token no other process tree carries."""
    return uuid.uuid4().hex


def marked_environment(env: Mapping[str, str], token: str) -> dict[str, str]:
    """`env` plus the token, for a process whose descendants must be findable later."""
    return {**env, TOKEN_VARIABLE: token}


def _pids() -> Iterator[int]:
    with contextlib.suppress(OSError):
        for entry in os.scandir(PROC):
            if entry.name.isdigit():
                yield int(entry.name)


def _proc_file(pid: int, name: str) -> bytes | None:
    """`/proc/PID/NAME`'s bytes, or None when the process is gone or not ours to read.

    `kill_marked` reads a file of every process on the machine, twice for each hook that ends,
    so its cost grows with what else the machine runs: a raw `os.open`/`os.read` takes an eighth
    of the user CPU `Path.read_bytes` took per file (path objects and a buffered file)."""
    try:
        fd = os.open(f"{PROC}/{pid}/{name}", os.O_RDONLY)
    except OSError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return b"".join(chunks)


def _alive(pid: int) -> bool:
    """Running (not gone, and not a zombie waiting to be reaped)."""
    stat = _proc_file(pid, "stat")
    if stat is None:
        return False
    # The state follows the command name, which is in parentheses and may contain anything.
    state = stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3]
    return state not in (b"Z", b"X", b"x")


def marked_processes(token: str) -> set[int]:
    """Every live process whose environment carries `token`."""
    # One whole NUL-separated entry of the environment, not a part of a longer one.
    entry = f"\0{TOKEN_VARIABLE}={token}\0".encode()
    found = set()
    own = os.getpid()
    for pid in _pids():
        if pid == own:
            continue
        environ = _proc_file(pid, "environ")  # None: gone, or not ours to read
        if environ is not None and entry in b"\0" + environ + b"\0" and _alive(pid):
            found.add(pid)
    return found


def kill_marked(token: str) -> set[int]:
    """SIGKILL every process carrying `token`, wait (bounded) until they are gone; their pids.

    Call it after the process started with the token has been waited for: the ones found are
    then orphans, which init reaps, so nothing here waits on another owner's child.
    """
    if not PROC.is_dir():
        return set()
    killed: set[int] = set()
    deadline = time.monotonic() + KILL_SETTLE_S
    quiet_scans = 0
    while True:
        found = marked_processes(token)
        if not found:
            # A process in the middle of exec (a `setsid` a hook left running) can show no
            # environment for a moment; only a second empty scan, a little later, says none is left.
            quiet_scans += 1
            if quiet_scans == EMPTY_SCANS or time.monotonic() > deadline:
                return killed
            time.sleep(0.01)
            continue
        quiet_scans = 0
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed |= found
        if time.monotonic() > deadline:
            return killed
        time.sleep(0.01)


def become_subreaper() -> bool:
    """Make orphaned descendants reparent to this process (Linux); whether it took effect."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _parents() -> dict[int, int]:
    """Every live process's parent."""
    parents = {}
    for pid in _pids():
        stat = _proc_file(pid, "stat")
        if stat is None:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if fields and fields[0] not in (b"Z", b"X", b"x"):
            parents[pid] = int(fields[1])
    return parents


def descendants(root: int) -> set[int]:
    """Every live process below `root` in the process tree."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    pending = list(children.get(root, ()))
    while pending:
        pid = pending.pop()
        if pid not in found:
            found.add(pid)
            pending.extend(children.get(pid, ()))
    return found


def end_descendants(grace: float = KILL_SETTLE_S) -> set[int]:
    """Ask every process below this one to end (SIGTERM), wait up to `grace` seconds for them
    to go, then `kill_descendants()`: a process killed at once cannot remove what it made (a
    conform driver's session folders)."""
    asked = descendants(os.getpid()) if PROC.is_dir() else set()
    for pid in asked:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while asked and descendants(os.getpid()) and time.monotonic() < deadline:
        _reap_children()
        time.sleep(0.01)
    return asked | kill_descendants()


def kill_descendants() -> set[int]:
    """SIGKILL every process below this one and reap the ones that are (or became) its children.

    For a program's exit path only: it ends every child, whoever started it.
    """
    if not PROC.is_dir():
        return set()
    own = os.getpid()
    killed: set[int] = set()
    deadline = time.monotonic() + KILL_SETTLE_S
    while (found := descendants(own)) and time.monotonic() < deadline:
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed |= found
        time.sleep(0.01)
        _reap_children()
    _reap_children()
    return killed


def _reap_children() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
