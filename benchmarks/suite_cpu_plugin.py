"""A pytest plugin writing each test's CPU, and collection's, to the JSON Lines file
$LOOPSPEC_CPU_PER_TEST (benchmarks/bench_suite_cpu.py --per-test loads it with `-p`).

A test's CPU is what this process, its reaped children and its live descendants (read from
/proc) spent from its set-up's start to its teardown's end, user plus system: a process a
session fixture shares (the real CLIs' conform drivers, tests/real_cli_drivers.py) counts in
each test it works for; one a test leaves behind, reparented away, stops counting
(bench_suite_cpu's total counts it). A session- or module-scoped fixture's set-up counts in the
first test that asks for it, as pytest's own durations count it, and its teardown at the
session's end in a row of its own."""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Generator
from typing import IO

import pytest

OUT_VARIABLE = "LOOPSPEC_CPU_PER_TEST"
_OUT = pytest.StashKey[IO[str]]()
_SESSION_TEARDOWN = pytest.StashKey[float]()


_TICK = os.sysconf("SC_CLK_TCK")


def _live_descendants_cpu(pid: int) -> float:
    """CPU so far of `pid`'s live descendants and of the children they reaped (Linux's /proc;
    0 elsewhere): a process a session fixture shares, reaped only at the session's end, counts
    in each test it works for."""
    total = 0.0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as listed:
                children = listed.read().split()
        except OSError:
            continue
        for child in children:
            try:
                with open(f"/proc/{child}/stat", encoding="utf-8", errors="replace") as stat:
                    # After the command name's closing parenthesis: utime, stime, cutime, cstime
                    # are the 12th to 15th fields.
                    fields = stat.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            total += sum(int(ticks) for ticks in fields[11:15]) / _TICK
            total += _live_descendants_cpu(int(child))
    return total


def _cpu_now() -> float:
    """User plus system seconds of this process, its reaped children and its live
    descendants so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    return spent + _live_descendants_cpu(os.getpid())


def _write(config: pytest.Config, name: str, spent: float) -> None:
    """A row, when an output file is open."""
    out = config.stash.get(_OUT, None)
    if out is not None:
        out.write(json.dumps({"test": name, "cpu": round(spent, 4)}) + "\n")
        out.flush()


def pytest_configure(config: pytest.Config) -> None:
    """Open the output file the environment names (nothing is written without one)."""
    path = os.environ.get(OUT_VARIABLE)
    if path:
        config.stash[_OUT] = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed below


def pytest_unconfigure(config: pytest.Config) -> None:
    out = config.stash.get(_OUT, None)
    if out is not None:
        out.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, None, None]:
    """Collection (importing every test module) as one row, `<collection>`."""
    started = _cpu_now()
    yield
    _write(session.config, "<collection>", _cpu_now() - started)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    """Each test's set-up, call and teardown as one row named by its node id."""
    started = _cpu_now()
    yield
    session_end = item.config.stash.get(_SESSION_TEARDOWN, 0.0)
    _write(item.config, item.nodeid, _cpu_now() - started - session_end)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, None, None]:
    """The last test's teardown ends every session fixture (the real CLIs' shared drivers,
    reaped there with all their CPU): a row of its own, `<session teardown>`, not the test's."""
    started = _cpu_now()
    yield
    if nextitem is None:
        spent = _cpu_now() - started
        item.config.stash[_SESSION_TEARDOWN] = spent
        _write(item.config, "<session teardown>", spent)
