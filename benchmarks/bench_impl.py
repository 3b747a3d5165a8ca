"""Benchmark `impl`: commit throughput against bare appends, and the rewrite transaction's cost.

Run by hand: `.venv/bin/python benchmarks/bench_impl.py [--turns N]`. It prints

1. events committed per second by `impl`'s session log and durable writer, with fsync off
   (every commit written) and on (every commit fdatasync'ed), next to a bare file append of
   exactly the same bytes in the same units (one `write`, plus `fdatasync` when on, per unit);
   and, as the ceiling any writer using the standard library's JSON encoder can reach, the
   same bare append against encoding those events' wire objects alone (no validation, no
   event-to-wire mapping, no write); and, as the ceiling of `impl`'s own writer, the same bare
   append against writing those events' lines alone from their fields (`OPEN_LINE_WRITERS`,
   the generated writers with their checks, and the UTF-8 encoding, no log bookkeeping, no framing,
   no write): a commit costs at least that; and, as the floor of a writer of this shape (one
   generated f-string per class, strings escaped and numbers printed by the interpreter's C
   code), the same writers with every exact-type check left out (wrong for events they
   should refuse, so never used to write a log);
2. where a commit's time per event goes, from those same runs: the bare write, the floor
   writer, what its type checks add (lines alone less the floor), and the log's bookkeeping
   (commit less lines alone less the write). Then the arithmetic of the target: a commit
   makes the lines and writes the bytes, so a log with a writer of this shape cannot do
   better than bare / (bare + floor), even with no checks and no bookkeeping; it prints that
   bound (0.25x needs bare / (bare + floor) >= 0.25, that is the floor <= 3 bare appends);
3. the cost per tool call of a whole loop round (reply, call, result) with and without a
   PreToolUse hook rewriting the call (the rewrite transaction), fsync off; each run starts a
   new session in a fresh log file, so no run resumes (and re-reads) an earlier run's log.
   For scale, it also runs the same hook answering "allow" without new input: what asking a
   hook costs (one more outside answer, one more commit, two audit events) before any rewrite.

Every figure is a ratio of runs interleaved in this process, each side's fastest CPU time (a
shared machine's load only ever adds time). With `--instructions` (valgrind installed), the
parts of a commit per event (floor writer, type checks, bookkeeping) and the loop's three
variants per call are also counted in instructions (callgrind, a fresh interpreter per run, a
short run's count subtracted to leave out start-up and imports, hash seed fixed): a view that
the load of a shared machine does not move, though it leaves out the kernel's share (most of a
write's cost).
Targets: commits at least 0.25x a bare append with fsync off; a rewritten call at most 1.3x a
plain one.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial
from pathlib import Path

from callgrind import instructions_running

from loopspec.impl.clock import FixedClock
from loopspec.impl.event_lines import OPEN_LINE_WRITERS, unchecked_line_writers
from loopspec.impl.framing import encode_event
from loopspec.impl.log_reader import read_log
from loopspec.impl.log_writer import SYNCED, WRITTEN, Durability
from loopspec.impl.opening import SessionInfo, open_log
from loopspec.model.commands import (
    Allow,
    Command,
    HookAnswers,
    ModelReplies,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.events import Event
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.model.wire import event_to_wire
from loopspec.properties.conformance.impl_adapter import ImplAdapter

CALLS_PER_REPLY = 4
TOOLS = (ToolSpec("bash", concurrency_safe=True, required_keys=("command",)),)
PLAIN = LoopConfig(tools=TOOLS)
REWRITING = LoopConfig(tools=TOOLS, hooks=(HookSpec("rewriter", "PreToolUse", "bash"),))


def turn(number: int, *, rewrite: bool, hook_keeps_input: bool = False) -> list[Command]:
    """One turn: a reply with several calls, each (maybe) rewritten, each finishing.

    With `hook_keeps_input`, the hook is asked about every call (`rewrite` must be set, the
    config must have the hook) but allows it unchanged."""
    ids = [f"t{number}c{index}" for index in range(CALLS_PER_REPLY)]
    blocks = [ToolCallBlock(call_id, "bash", '{"command":"make build"}') for call_id in ids]
    program: list[Command] = [
        SubmitUser("build it"),
        ModelReplies((TextBlock("Building."), *blocks)),
    ]
    if rewrite:
        safer = Allow(None if hook_keeps_input else FrozenMap({"command": "make build --dry-run"}))
        program += [HookAnswers(safer) for _ in ids]
    program += [ToolFinishes(call_id, ToolSucceeded("ok\n[exit code: 0]")) for call_id in ids]
    program.append(ModelReplies((TextBlock("Built."),)))
    return program


_RUNS = itertools.count()


def run_loop(
    config: LoopConfig,
    turns: int,
    *,
    rewrite: bool,
    workdir: Path,
    log_name: str | None = None,
    hook_keeps_input: bool = False,
) -> float:
    """Seconds to run `turns` turns through the whole loop (fsync off), in a new log."""
    name = log_name or f"loop-{rewrite}-{next(_RUNS)}.jsonl"
    adapter = ImplAdapter(config, workdir, durability=WRITTEN, log_name=name)
    program = [
        command
        for number in range(turns)
        for command in turn(number, rewrite=rewrite, hook_keeps_input=hook_keeps_input)
    ]
    gc.collect()  # so no run pays for collecting the garbage an earlier one left
    started = time.process_time()  # fsync off: CPU time, steadier on a shared machine
    for command in program:
        adapter.apply(command)
    took = time.process_time() - started
    adapter.close()
    return took


def recorded_units(workdir: Path, turns: int) -> list[list[Event]]:
    """The commit units a rewriting session produces, to replay into a fresh log."""
    name = f"recorded-{next(_RUNS)}.jsonl"  # a new log: an old one would be resumed
    run_loop(REWRITING, turns, rewrite=True, workdir=workdir, log_name=name)
    parsed = read_log(workdir / name)
    starts = (0, *parsed.unit_ends[:-1])
    return [list(parsed.events[a:b]) for a, b in zip(starts, parsed.unit_ends, strict=True)]


def commit_all(units: Sequence[Sequence[Event]], durability: Durability, path: Path) -> float:
    """Seconds for `impl`'s log to add and durably commit every unit (into a new file)."""
    path.unlink(missing_ok=True)
    opened = open_log(path, durability, SessionInfo("bench", "/w"), FixedClock(0))
    log = opened.log
    clock = _clock(durability.sync_every_commit)
    started = clock()
    for unit in units:
        for event in unit:
            log.add(event)
        log.commit()
    took = clock() - started
    opened.writer.close()
    return took


def append_bare(chunks: Sequence[bytes], *, sync: bool, path: Path) -> float:
    """Seconds to append the same bytes unit by unit with plain `write` (and `fdatasync`)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_TRUNC, 0o644)
    clock = _clock(sync)
    started = clock()
    for chunk in chunks:
        os.write(descriptor, chunk)
        if sync:
            os.fdatasync(descriptor)
    took = clock() - started
    os.close(descriptor)
    return took


def _clock(sync: bool) -> Callable[[], float]:
    """Wall time when waiting on the disk counts; otherwise this process's CPU time, which other
    processes' load on a shared machine leaves alone."""
    return time.perf_counter if sync else time.process_time


def unit_bytes(path: Path, units: Sequence[Sequence[Event]]) -> list[bytes]:
    """The exact bytes of each unit as `impl` wrote them (header line excluded)."""
    lines = path.read_bytes().splitlines(keepends=True)[1:]
    chunks, at = [], 0
    for unit in units:
        chunks.append(b"".join(lines[at : at + len(unit)]))
        at += len(unit)
    return chunks


def best_of_interleaved(repeats: int, *runs: Callable[[], float]) -> list[float]:
    """The fastest of several runs of each, alternating, so all see the same machine weather."""
    rounds = [[run() for run in runs] for _ in range(repeats)]
    return [min(times) for times in zip(*rounds, strict=True)]


def encode_only(wires: Sequence[Sequence[Mapping[str, object]]]) -> float:
    """CPU seconds to encode every event's wire object with the writer's own JSON encoder."""
    started = time.process_time()
    for unit in wires:
        for wire in unit:
            encode_event(wire)
    return time.process_time() - started


def lines_only(units: Sequence[Sequence[Event]]) -> float:
    """CPU seconds to write every event's line from its fields, as `impl`'s log does on `add`
    (the writer looked up in place; the events are plain, so none takes the reference path)."""
    started = time.process_time()
    for unit in units:
        for event in unit:
            OPEN_LINE_WRITERS[type(event)](event).encode()
    return time.process_time() - started


@cache  # generated once per process, so a counted run of several parts pays for it once
def _unchecked_writers() -> Mapping[type, Callable[[Event], str]]:
    return unchecked_line_writers()


def unchecked_lines_only(units: Sequence[Sequence[Event]]) -> float:
    """CPU seconds to write every event's line, as bytes, with writers that check nothing."""
    writers = _unchecked_writers()
    started = time.process_time()
    for unit in units:
        for event in unit:
            writers[type(event)](event).encode()
    return time.process_time() - started


# ---------------------------------------------------------------------------------------------
# Instructions, counted by callgrind in a fresh interpreter per run.

INSTRUCTION_TURNS = 20
_SHORT_TURNS = 2
# Each loop variant: the config, whether the hook is asked, whether it keeps the input.
_LOOP_VARIANTS: dict[str, tuple[LoopConfig, bool, bool]] = {
    "plain": (PLAIN, False, False),
    "asked": (REWRITING, True, True),
    "rewrite": (REWRITING, True, False),
}


# Each part of a commit counted alone: what it runs over the recorded units.
_COMMIT_PARTS: dict[str, Callable[[Sequence[Sequence[Event]], Path], float]] = {
    "floor": lambda units, _path: unchecked_lines_only(units),
    "lines": lambda units, _path: lines_only(units),
    "commit": lambda units, path: commit_all(units, WRITTEN, path),
    # What `commit` pays besides its commits (opening a new log, closing it), subtracted.
    "open": lambda _units, path: commit_all((), WRITTEN, path),
}
_PART_TURNS = 5  # the session whose units each counted part runs over
_PART_REPEATS = 4  # the part's runs counted, over what one run (start-up, recording) costs


def count_run(variant: str, turns: int) -> None:
    """What a counted interpreter does: run `turns` turns of one loop variant, or (for a part
    of a commit) record a session's units once and run the part over them `turns` times."""
    with tempfile.TemporaryDirectory(prefix="bench-impl-count-") as name:
        workdir = Path(name)
        if variant in _COMMIT_PARTS:
            units = recorded_units(workdir, _PART_TURNS)
            for _ in range(turns):
                _COMMIT_PARTS[variant](units, workdir / "counted.jsonl")
            return
        config, rewrite, keeps = _LOOP_VARIANTS[variant]
        run_loop(config, turns, rewrite=rewrite, workdir=workdir, hook_keeps_input=keeps)


def instructions_of(variant: str, turns: int, out: Path) -> int:
    """The instructions a fresh interpreter executes importing this module and running."""
    return instructions_running(__file__, [variant, str(turns)], out)[0]


def instructions_per_call(tmp: Path) -> dict[str, float] | None:
    """Each loop variant's instructions per tool call; None without valgrind."""
    if shutil.which("valgrind") is None:
        print("instructions: valgrind not installed")
        return None
    per_call = {}
    for variant in _LOOP_VARIANTS:
        long, short = (
            instructions_of(variant, turns, tmp / f"callgrind-{variant}-{turns}.out")
            for turns in (_SHORT_TURNS + INSTRUCTION_TURNS, _SHORT_TURNS)
        )
        per_call[variant] = (long - short) / (INSTRUCTION_TURNS * CALLS_PER_REPLY)
    plain = per_call["plain"]
    print(f"instructions per tool call (callgrind, {INSTRUCTION_TURNS} turns, less start-up):")
    for variant, label in (("plain", "without a hook"), ("asked", "hook allows, input unchanged")):
        print(f"  {label:31}{per_call[variant] / 1e3:8.0f}k   {per_call[variant] / plain:.2f}x")
    print(f"  {'hook rewrites the input':31}{per_call['rewrite'] / 1e3:8.0f}k", end="")
    print(f"   {per_call['rewrite'] / plain:.2f}x")
    return per_call


def instructions_per_event(tmp: Path, events: int) -> None:
    """Each part of a commit in instructions per event (`events`: how many a run of
    `_PART_TURNS` turns records); the kernel's share of the write is not counted."""
    if shutil.which("valgrind") is None:
        return  # instructions_per_call says so
    per_event = {}
    for part in _COMMIT_PARTS:
        long, short = (
            instructions_of(part, runs, tmp / f"callgrind-{part}-{runs}.out")
            for runs in (1 + _PART_REPEATS, 1)
        )
        per_event[part] = (long - short) / (_PART_REPEATS * events)
    commits = per_event["commit"] - per_event["open"]
    print("a commit per event in instructions (callgrind; the kernel's part of a write not seen):")
    rows = (
        ("lines, no type checks (floor)", per_event["floor"]),
        ("the writers' type checks", per_event["lines"] - per_event["floor"]),
        ("log bookkeeping (add, commit)", commits - per_event["lines"]),
        ("commit, in all", commits),
    )
    for label, count in rows:
        print(f"  {label:32}{count / 1e3:7.1f}k")


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=150, help="turns per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="runs per measurement (best kept)")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count commits' and the loop's instructions with callgrind (minutes more)",
    )
    parser.add_argument(
        "--count-run", nargs=2, metavar=("VARIANT", "TURNS"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.count_run:
        variant, turns = args.count_run
        count_run(variant, int(turns))
        return
    with tempfile.TemporaryDirectory(prefix="bench-impl-") as name:
        workdir = Path(name)
        units = recorded_units(workdir, args.turns)
        events = sum(len(unit) for unit in units)
        log_path = workdir / "commits.jsonl"
        commit_all(units, WRITTEN, log_path)
        chunks = unit_bytes(log_path, units)
        size = sum(len(chunk) for chunk in chunks)
        bare_path = workdir / "bare.jsonl"
        print(f"{events} events in {len(units)} commit units, {size / 1024:.0f} KiB")
        print(f"{'':24}{'impl ev/s':>12}{'bare ev/s':>12}{'impl/bare':>12}")
        bare_off = partial(append_bare, chunks, sync=False, path=bare_path)
        synced = best_of_interleaved(
            args.repeats,
            partial(commit_all, units, SYNCED, log_path),
            partial(append_bare, chunks, sync=True, path=bare_path),
        )
        wires = [[event_to_wire(event) for event in unit] for unit in units]
        # fsync off: the commits, the bare append and each part alone, interleaved, so the
        # breakdown below subtracts times measured under the same load.
        commits, bare, encoded, lines, floor = best_of_interleaved(
            args.repeats,
            partial(commit_all, units, WRITTEN, log_path),
            bare_off,
            partial(encode_only, wires),
            partial(lines_only, units),
            partial(unchecked_lines_only, units),
        )
        for label, ours, theirs, note in (
            ("fsync off", commits, bare, ""),
            ("fsync on", *synced, ""),
            ("json encoding alone", encoded, bare, "the ceiling for a stdlib-json writer"),
            ("lines alone", lines, bare, "the ceiling for impl's writer"),
            ("lines, no type checks", floor, bare, "the floor of this writer's shape"),
        ):
            print(
                f"{label:24}{events / ours:12.0f}{events / theirs:12.0f}{theirs / ours:12.3f}"
                + (f"   ({note})" if note else "")
            )
        commit_ratio = bare / commits
        _print_breakdown(events, commits=commits, bare=bare, lines=lines, floor=floor)
        calls = args.turns * CALLS_PER_REPLY
        plain, rewritten, asked = best_of_interleaved(
            args.repeats,
            partial(run_loop, PLAIN, args.turns, rewrite=False, workdir=workdir),
            partial(run_loop, REWRITING, args.turns, rewrite=True, workdir=workdir),
            partial(
                run_loop,
                REWRITING,
                args.turns,
                rewrite=True,
                workdir=workdir,
                hook_keeps_input=True,
            ),
        )
        per_plain, per_rewrite, per_asked = (
            took / calls * 1e6 for took in (plain, rewritten, asked)
        )
        rewrite_ratio = per_rewrite / per_plain
        print(f"per tool call, whole loop round, fsync off ({calls} calls):")
        print(f"  without a hook                 {per_plain:8.1f} us")
        print(
            f"  hook allows, input unchanged   {per_asked:8.1f} us   {per_asked / per_plain:.2f}x"
        )
        print(f"  hook rewrites the input        {per_rewrite:8.1f} us   {rewrite_ratio:.2f}x")
        print(f"  the rewrite itself (rewrites / unchanged): {per_rewrite / per_asked:.2f}x")
        counted = None
        if args.instructions:
            part_events = sum(map(len, recorded_units(workdir, _PART_TURNS)))
            instructions_per_event(workdir, part_events)
            counted = instructions_per_call(workdir)
        print("targets")
        met = _verdict(commit_ratio >= 0.25)
        print(f"  commits >= 0.25x bare, fsync off: {commit_ratio:.3f}x  {met}")
        met = _verdict(rewrite_ratio <= 1.3)
        print(f"  rewrite call <= 1.3x plain:       {rewrite_ratio:.2f}x  {met}")
        if counted is not None:
            counted_ratio = counted["rewrite"] / counted["plain"]
            met = _verdict(counted_ratio <= 1.3)
            print(f"  (a second view) in instructions:  {counted_ratio:.2f}x  {met}")


def _print_breakdown(
    events: int, *, commits: float, bare: float, lines: float, floor: float
) -> None:
    """Where a commit's time per event goes (fsync off), and the bound the floor writer sets."""
    per_event = {
        "the write (bare append)": bare,
        "lines, no type checks (floor)": floor,
        "the writers' type checks": lines - floor,
        "log bookkeeping (add, commit)": commits - lines - bare,
    }
    print("a commit per event, fsync off (parts measured alone, interleaved):")
    for label, took in per_event.items():
        print(f"  {label:32}{took / events * 1e6:7.2f} us  {took / commits:6.1%}")
    print(f"  {'commit, in all':32}{commits / events * 1e6:7.2f} us")
    bound = bare / (bare + floor)
    print(
        f"  bound: bare / (bare + floor) = {bound:.3f}x: with no checks and no bookkeeping,"
        f" this writer's shape {'reaches' if bound >= 0.25 else 'cannot reach'} 0.25x"
    )


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


if __name__ == "__main__":
    main()
