"""Hold one thread of a running CLI still while the rest of it runs (Linux ptrace).

A signal stops a whole process (SIGSTOP stops every thread), so it cannot decide which of two
threads of one CLI wins a race between them. `ptrace` can: a thread seized and interrupted
(PTRACE_SEIZE, PTRACE_INTERRUPT) stops alone, its process's other threads running on. The
real-CLI tests use it to force the orderings a CPU-starved machine produces now and then, such
as Claude Code's exit on SIGINT finishing before its HTTP client thread has reported the
aborted model request (then it writes the interrupt nowhere), every run.

The thread is held by a thread of this test process (a tracee obeys only the thread that seized
it) until `thaw`, or until its process ends: a tracee that exits must be waited for by its
tracer, or its process stays a zombie its parent never reaps.
"""

from __future__ import annotations

import ctypes
import errno
import os
import threading
from pathlib import Path

_PTRACE_DETACH = 17
_PTRACE_SEIZE = 0x4206
_PTRACE_INTERRUPT = 0x4207
_WALL = 0x40000000  # waitpid: a thread of another process as well as a child
_POLL = 0.01

_libc = ctypes.CDLL(None, use_errno=True)
_libc.ptrace.restype = ctypes.c_long
_libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]


class FreezeError(Exception):
    """The thread could not be held (no such thread, or ptrace refused)."""


def threads_named(pid: int, name: str) -> list[int]:
    """The ids of process `pid`'s threads whose names (`comm`, as `top -H` shows them) begin
    with `name` (Bun's file pool is `Bun Pool 0`, `Bun Pool 1`, ..., one per core)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            if (task / "comm").read_text(encoding="utf-8").startswith(name):
                found.append(int(task.name))
        except OSError:
            continue  # it ended meanwhile
    if not found:
        raise FreezeError(f"process {pid} has no thread whose name begins with {name!r}")
    return sorted(found)


def descendants_named(ancestor: int, name: str) -> list[int]:
    """The live processes called `name` whose ancestry includes process `ancestor`."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8")
        except OSError:
            continue
        comm, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :]
        names[int(entry.name)] = comm
        parents[int(entry.name)] = int(rest.split()[1])
    found = []
    for pid, comm in names.items():
        above = parents.get(pid, 0)
        while above not in (0, 1, ancestor):
            above = parents.get(above, 0)
        if comm == name and above == ancestor:
            found.append(pid)
    return found


class FrozenThread:
    """Thread `tid` of another process, stopped alone until `thaw()` or its process's end."""

    def __init__(self, tid: int) -> None:
        self.tid = tid
        self.ended = False  # its process ended while it was held
        self._held = threading.Event()
        self._thaw = threading.Event()
        self._failure = ""
        self._tracer = threading.Thread(target=self._hold, daemon=True)
        self._tracer.start()
        if not self._held.wait(5.0) or self._failure:
            raise FreezeError(self._failure or f"thread {tid} did not stop within 5 s")

    def _hold(self) -> None:
        if _libc.ptrace(_PTRACE_SEIZE, self.tid, None, None) != 0:
            code = ctypes.get_errno()
            self._failure = f"ptrace could not seize thread {self.tid}: {errno.errorcode[code]}"
            self._held.set()
            return
        _libc.ptrace(_PTRACE_INTERRUPT, self.tid, None, None)
        os.waitpid(self.tid, _WALL)
        self._held.set()
        while not self._thaw.wait(_POLL):
            try:
                waited, status = os.waitpid(self.tid, _WALL | os.WNOHANG)
            except ChildProcessError:  # reaped already
                self.ended = True
                return
            if waited and (os.WIFEXITED(status) or os.WIFSIGNALED(status)):
                self.ended = True
                return
        _libc.ptrace(_PTRACE_DETACH, self.tid, None, None)

    def thaw(self) -> None:
        """Let it run again (nothing to do once its process has ended)."""
        self._thaw.set()
        self._tracer.join(5.0)
