"""Instruction counts for the benchmarks' `--instructions` views (valgrind's callgrind).

A count does not move with the load other processes put on a shared machine, as times do; each
benchmark runs itself again under callgrind (`--count-run ...`) in a fresh interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path


def instructions_running(script: str, args: Sequence[str], out: Path) -> tuple[int, str]:
    """The instructions a fresh interpreter executes running `script --count-run *args`, and
    what it printed. The hash seed is fixed so that two runs of one side compare.

    The same command runs once first, uncounted, with the bytecode of what it imports kept in a
    private cache beside `out` (whatever PYTHONDONTWRITEBYTECODE says), and the counted run
    reads that cache: compiling modules is counted in neither, where a module imported only
    inside the run (lazily) was compiled in the counted run alone, not in the run of nothing
    the benchmarks subtract."""
    command = [sys.executable, script, "--count-run", *args]
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env |= {"PYTHONHASHSEED": "0", "PYTHONPYCACHEPREFIX": str(out.parent / "pycache")}
    subprocess.run(command, check=True, capture_output=True, env=env)
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1]), done.stdout
    raise SystemExit(f"no instruction total in {out}")


def instructions_of_command(
    argv: Sequence[str], status: int, out: Path, env: dict[str, str]
) -> int:
    """The instructions the command `argv` executes (its children not counted), with `env`
    and the hash seed fixed; it must exit with `status` (a command that fails early would be
    counted as cheap)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv],
        check=False,
        capture_output=True,
        env={**env, "PYTHONHASHSEED": "0"},
    )
    if done.returncode != status:
        raise SystemExit(f"{' '.join(argv)}: exit status {done.returncode}, expected {status}")
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit(f"no instruction total in {out}")
