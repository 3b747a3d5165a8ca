"""Crash consistency: `impl` killed with SIGKILL anywhere, then reopened (LOG-8, REC-1, REC-2).

`impl_crash_driver.py` runs long command programs with every commit fdatasync'ed and written
line by line with pauses, forking one child per kill point; this test kills each child at a
random moment (after a random number of acknowledged commits, plus a random delay, so kills
land between commits, inside multi-event units, inside the rewrite transaction and inside a
single line), then reopens the log with `impl` and checks that

- the killed file was only ever a byte prefix of the log the program writes when nobody kills
  it (same program, same fixed clock);
- every acknowledged event survives reopening, byte for byte (rule LOG-8);
- no prefix shows a partial unit: a reply with calls always has all its `tool/call`s;
- what a reader of the killed file sees (torn line and unfinished unit dropped) shows the same
  calls in history, audit record and presentation, and the checker flags none of it;
- reopening cut exactly the torn tail, appended exactly the model's repair closers (REC-1,
  REC-2), and every invariant holds on the result.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from impl_programs import PROGRAM_CONFIG, random_program

from loopspec.impl.log_reader import parse_log
from loopspec.model.events import AssistantMessageRecorded, ToolCallRecorded
from loopspec.model.invariants import check_log
from loopspec.model.repair import interrupted_turn_closers
from loopspec.properties.conformance.impl_adapter import ImplAdapter
from loopspec.properties.stateful.state_checks import readers_disagree

ROOT = Path(__file__).resolve().parent.parent
DRIVER = Path(__file__).resolve().parent / "impl_crash_driver.py"

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
KILL_POINTS = 1000 if THOROUGH else 200
PROGRAMS = 8
PROGRAM_LENGTH = 60
PAUSE_S = 0.0002
MOST_ACKS_BEFORE_KILL = 40
LINE_TIMEOUT_S = 30.0


class DriverOutput:
    """Lines from the driver's stdout, with a timeout so a stuck child fails the test."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        self._fd = process.stdout.fileno()
        self._buffer = b""

    def line(self) -> str:
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([self._fd], [], [], LINE_TIMEOUT_S)
            assert ready, "the crash driver went silent"
            chunk = os.read(self._fd, 65536)
            assert chunk, "the crash driver exited"
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode()


def reference_log(seed: int, workdir: Path) -> bytes:
    """The bytes the seed's program writes when nobody interrupts it."""
    adapter = ImplAdapter(PROGRAM_CONFIG, workdir, log_name=f"reference-{seed}.jsonl")
    for command in random_program(seed, PROGRAM_LENGTH):
        adapter.apply(command)
    adapter.close()
    return (workdir / f"reference-{seed}.jsonl").read_bytes()


def kill_once(
    driver: subprocess.Popen[bytes], output: DriverOutput, path: Path, seed: int, rng: random.Random
) -> list[int]:
    """Run one program in a child, kill it at a random point; the acknowledged seqs."""
    assert driver.stdin is not None
    request = {"path": str(path), "seed": seed, "length": PROGRAM_LENGTH, "pause": PAUSE_S}
    driver.stdin.write((json.dumps(request) + "\n").encode())
    driver.stdin.flush()
    kind, pid = output.line().split()
    assert kind == "CHILD"
    wanted = rng.randint(0, MOST_ACKS_BEFORE_KILL)
    acknowledged: list[int] = []
    line = ""
    while len(acknowledged) < wanted:
        line = output.line()
        if not line.startswith("ACK"):
            break
        acknowledged.append(int(line.split()[2]))
    if not line.startswith("DONE"):
        time.sleep(rng.uniform(0, 24 * PAUSE_S))
        with contextlib.suppress(ProcessLookupError):  # it may have just finished
            os.kill(int(pid), signal.SIGKILL)
    while not line.startswith("REAPED"):
        line = output.line()
        if line.startswith("ACK"):
            acknowledged.append(int(line.split()[2]))
    return acknowledged


def check_recovery(
    path: Path, reference: bytes, acknowledged: list[int], seen: Counter[str]
) -> None:
    """Reopen the killed log and check everything the crash must not have broken."""
    killed = path.read_bytes() if path.exists() else b""  # killed before the file existed
    assert reference.startswith(killed), "the file holds bytes the program never wrote"
    before = parse_log(killed)
    last_acknowledged = max(acknowledged, default=-1)
    assert len(before.events) > last_acknowledged, "LOG-8: an acknowledged event was cut"
    cut_short = len(killed) > before.valid_bytes
    seen["torn line"] += bool(before.damage.torn_bytes)
    seen["inside a unit"] += bool(before.damage.unfinished_unit_events)
    seen["inside a rewrite"] += cut_short and _rewrite_unit_at(reference, before.valid_bytes)
    seen["kills"] += 1
    # What a reader of the crashed file sees (the torn line and unfinished unit dropped): the
    # three readers agree on it, and the checker finds nothing wrong with it (RW-1, LOG-8).
    assert not readers_disagree(before.events), readers_disagree(before.events)
    assert not check_log(before.events), "a crashed prefix of a valid log was flagged"

    ImplAdapter(PROGRAM_CONFIG, path.parent, log_name=path.name).close()

    reopened = path.read_bytes()
    assert reopened[: before.valid_bytes] == killed[: before.valid_bytes], (
        "LOG-8: reopening changed committed bytes"
    )
    after = parse_log(reopened)
    assert after.damage.clean
    repaired = after.events[len(before.events) :]
    assert repaired == interrupted_turn_closers(before.events), "REC-1: wrong repair closers"
    assert not interrupted_turn_closers(after.events), "REC-2: a turn is still open"
    violations = check_log(after.events)
    assert not violations, [f"[{v.rule_id}] seq {v.seq}: {v.message}" for v in violations]
    _no_partial_rewrite(after.events, after.unit_ends)


def _rewrite_unit_at(reference: bytes, offset: int) -> bool:
    """Whether the unit starting at byte `offset` of the full log is a rewrite transaction."""
    end = offset
    while True:
        line_end = reference.index(b"\n", end) + 1
        line = json.loads(reference[end:line_end])
        end = line_end
        if line["type"] == "tool/call":
            return True
        marker = line.get("unit")
        if marker is None or marker[0] == marker[1]:
            return False


def _no_partial_rewrite(events: tuple[object, ...], unit_ends: tuple[int, ...]) -> None:
    """RW-3 / LOG-8: a reply with calls and every one of its tool/calls share one unit."""
    for index, event in enumerate(events):
        if not isinstance(event, AssistantMessageRecorded) or not event.message.tool_calls:
            continue
        calls = event.message.tool_calls
        unit_end = next(end for end in unit_ends if end > index)
        following = events[index + 1 : index + 1 + len(calls)]
        assert index + len(calls) < unit_end, f"seq {index}: the reply's unit ends early"
        assert [e.call_id for e in following if isinstance(e, ToolCallRecorded)] == [
            call.id for call in calls
        ], f"seq {index}: the reply's tool/calls are not all there"


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@pytest.mark.skipif(not hasattr(os, "fork"), reason="the driver forks a child per kill point")
def test_LOG_8_REC_1_REC_2_kills_anywhere_lose_nothing_acknowledged(tmp_path: Path) -> None:
    """SIGKILL at >= 200 random points: nothing acknowledged lost, nothing partial, repaired."""
    started = time.perf_counter()
    references = {seed: reference_log(seed, tmp_path) for seed in range(PROGRAMS)}
    environment = {k: v for k, v in os.environ.items() if not k.startswith("COV_CORE")}
    driver = subprocess.Popen(
        [sys.executable, str(DRIVER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env=environment,
    )
    output = DriverOutput(driver)
    rng = random.Random(20261130)
    seen: Counter[str] = Counter()
    try:
        for kill in range(KILL_POINTS):
            seed = kill % PROGRAMS
            path = tmp_path / f"killed-{kill}.jsonl"
            acknowledged = kill_once(driver, output, path, seed, rng)
            check_recovery(path, references[seed], acknowledged, seen)
            path.unlink()
    finally:
        assert driver.stdin is not None
        driver.stdin.close()
        driver.wait(timeout=30)
    took = time.perf_counter() - started
    print(f"crash test: {dict(seen)} in {took:.1f} s")
    assert seen["kills"] >= 200
    assert seen["inside a rewrite"] >= 10, "too few kills landed inside the rewrite transaction"
    assert seen["inside a unit"] >= 20
    assert seen["torn line"] >= 20
