"""What tracing connects costs a real-harness session's threads (issue #15 item 7).

`loopspec run --harness` runs each turn of the real CLI under `strace -f -e trace=connect
--seccomp-bpf` (`harnesses.session.connect_tracer`), so the report can say every connect went to
the mock model. With --seccomp-bpf the kernel should stop a tracee only at a connect; this
measures whether it does, for the process strace starts and for a thread of it, since the
Codex CLI does its work on tokio and sqlite threads.

Run by hand: `.venv/bin/python benchmarks/bench_connect_tracer.py [--calls N] [--rounds R]`.
Each case is a Python child making N cheap system calls (`os.getppid`) in its main thread or in
a second thread, run bare and under the tracer, interleaved R times; printed: the least CPU of
each (user+sys of the child and the tracer, all reaped here), the CPU per call the tracer adds,
and the ratio traced / bare. strace (6.1, Debian's, on this machine) steps a new thread or forked
child at every system call until its first seccomp stop, not knowing before that it has the
filter: a thread that never connected cost 5.7us a call (ratio 9.5) where the main thread cost
nothing more. The tracer now also traces a system call each new process or thread makes as it
starts (`session._STARTS`), so each reaches that stop at once: 0.2us a call, ratio 1.2 (2026-12-05,
3 rounds), and a two-turn Codex run under `run --harness` 0.95 s of CPU where it took 2.23 s.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys

from loopspec.properties.harnesses.session import connect_tracer

CHILD = """
import os, sys, threading
calls = int(sys.argv[1])
def work():
    for _ in range(calls):
        os.getppid()
if sys.argv[2] == "thread":
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
else:
    work()
"""


def cpu_of(argv: list[str]) -> float:
    """User plus system CPU seconds of `argv` and every process it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    """Interleave bare and traced runs of each case; print the least CPU of each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000, help="system calls per run")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    args = parser.parse_args()
    if shutil.which("strace") is None:
        print("strace is not installed: harness runs do not trace connects here")
        return 0
    tracer = [*connect_tracer(), "-o", "/dev/null", "--"]
    print(f"tracer: {' '.join(tracer)}")
    cases = {"main": "main thread", "thread": "a second one"}
    least: dict[tuple[str, bool], float] = {}
    for _ in range(args.rounds):
        for case in cases:
            for traced in (False, True):
                child = [sys.executable, "-S", "-c", CHILD, str(args.calls), case]
                seconds = cpu_of([*tracer, *child] if traced else child)
                key = (case, traced)
                least[key] = min(least.get(key, seconds), seconds)
    print(f"{args.calls} getppid calls, least of {args.rounds} interleaved rounds (CPU seconds)")
    print(f"{'calls made in':14} {'bare':>7} {'traced':>7} {'added/call':>11} {'ratio':>6}")
    for case, label in cases.items():
        bare, under_tracer = least[case, False], least[case, True]
        added = (under_tracer - bare) / args.calls * 1e6
        ratio = under_tracer / bare if bare else float("inf")
        print(f"{label:14} {bare:7.2f} {under_tracer:7.2f} {added:9.1f}us {ratio:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
