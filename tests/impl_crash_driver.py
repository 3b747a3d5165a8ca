"""Crash-test driver: runs command programs against `impl` in children the test can SIGKILL.

Started once as a subprocess (`python tests/impl_crash_driver.py`), it reads one JSON request
per line on stdin, `{"path": str, "seed": int, "length": int, "pause": float}`, and forks a
child for each, so every kill point costs a fork rather than an interpreter start. The child
opens the log with every commit fdatasync'ed (and written line by line, `pause` seconds between
half lines, so kills land inside units and lines), runs the seed's program, and writes
`ACK <pid> <seq>` after each commit is durable, then `DONE <pid>`. The driver writes
`CHILD <pid>` after the fork and `REAPED <pid> <status>` once the child is gone.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from impl_programs import PROGRAM_CONFIG, random_program

from loopspec.impl.log_writer import Durability
from loopspec.model.events import Event
from loopspec.properties.conformance.impl_adapter import ImplAdapter


def _say(line: str) -> None:
    # One write per line: the parent reads lines, and children share this pipe.
    os.write(1, (line + "\n").encode())


def run_child(path: Path, seed: int, length: int, pause: float) -> None:
    """Run one program against a fresh log at `path`, acknowledging every durable commit."""
    me = os.getpid()

    def acknowledge(unit: Sequence[Event]) -> None:
        _say(f"ACK {me} {unit[-1].seq}")

    durability = Durability(sync_every_commit=True, split_write_pause_s=pause)
    adapter = ImplAdapter(
        PROGRAM_CONFIG,
        path.parent,
        durability=durability,
        on_commit=acknowledge,
        log_name=path.name,
    )
    for command in random_program(seed, length):
        adapter.apply(command)
    _say(f"DONE {me}")


def serve() -> None:
    """Fork one child per request line; report each child's pid and its end."""
    # What the driver imported, kept out of every collection: a child's collections then write
    # to none of the pages it shares with the driver, which the fork would copy.
    gc.freeze()
    for line in sys.stdin:
        request = json.loads(line)
        child = os.fork()
        if child == 0:
            status = 0
            try:
                run_child(
                    Path(request["path"]), request["seed"], request["length"], request["pause"]
                )
            except BaseException:
                traceback.print_exc()
                status = 1
            finally:
                os._exit(status)
        _say(f"CHILD {child}")
        _pid, status = os.waitpid(child, 0)
        _say(f"REAPED {child} {status}")


if __name__ == "__main__":
    serve()
