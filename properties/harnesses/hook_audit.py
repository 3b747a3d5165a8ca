"""Runs one configured hook command and records what it saw and answered, for the hook audit.

Every hook command of a harness run is wrapped as `python hook_audit.py AUDIT_DIR HOOK_ID --
COMMAND`: the wrapper gives the real command the harness's stdin, passes its stdout, stderr and
exit code through unchanged, and writes one JSON record per invocation into AUDIT_DIR (stdin,
stdout, exit code, start and finish times). It imports nothing from loopspec, so it starts as
fast as Python can; the harness waits for it as for the hook itself.
"""

from __future__ import annotations

import os
import sys
import time

# The variable naming the hook in the wrapped command; `hook_of` finds it again in a transcript.
HOOK_VARIABLE = "LOOPSPEC_HOOK"
# The suffix of the record of a hook that started and has not exited (yet, or ever).
UNFINISHED = ".unfinished"


def wrapped(command: str, hook_id: str, audit_dir: str, hooks_dir: str) -> str:
    """The shell command that runs `command` through this wrapper as hook `hook_id`."""
    import shlex  # noqa: PLC0415 (it imports re, which `check` reads a transcript without)

    return shlex.join(
        [
            "env",
            f"{HOOK_VARIABLE}={hook_id}",
            f"LOOPSPEC_HOOKS_DIR={hooks_dir}",
            sys.executable,
            os.path.abspath(__file__),
            audit_dir,
            hook_id,
            "--",
            command,
        ]
    )


def hook_of(command: str) -> tuple[str, str] | None:
    """(hook id, the user's own command) of a command `wrapped` built, else None: a transcript
    records the wrapped command, and a report should name the hook the user configured."""
    if HOOK_VARIABLE + "=" not in command:  # as `wrapped` writes it, quoted or not
        return None  # (a transcript's own hooks: read without shlex, and the re it imports)
    import shlex  # noqa: PLC0415 (see `wrapped`)

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 4 or words[0] != "env" or not words[1].startswith(HOOK_VARIABLE + "="):
        return None
    if words[-2] != "--":
        return None
    return words[1].removeprefix(HOOK_VARIABLE + "="), words[-1]


def _write_whole(path: str, record: dict[str, object]) -> None:
    # Written aside and renamed, so a kill mid-write leaves no torn record under `path`.
    import json  # noqa: PLC0415 (see `wrapped`)

    aside = path + ".part"
    with open(aside, "w", encoding="utf-8") as out:
        json.dump(record, out)
    os.replace(aside, path)


def main(argv: list[str]) -> int:
    """Run the wrapped command; exit with its exit code."""
    audit_dir, hook_id, separator, command = argv[0], argv[1], argv[2], argv[3]
    if separator != "--":
        sys.stderr.write("usage: hook_audit.py AUDIT_DIR HOOK_ID -- COMMAND\n")
        return 2
    stdin = sys.stdin.buffer.read()
    import subprocess  # noqa: PLC0415 (only the wrapper runs commands; `check` reads `hook_of`)

    started = time.time()
    seen = {"hook": hook_id, "command": command, "stdin": stdin.decode("utf-8", "replace")}
    # Left behind only when the harness kills this wrapper (its hook timeout, an abort): the
    # report then says the hook never answered instead of showing nothing.
    marker = os.path.join(audit_dir, f"{started:.6f}-{os.getpid()}{UNFINISHED}")
    _write_whole(marker, {**seen, "started": started})
    done = subprocess.run(command, shell=True, input=stdin, capture_output=True, check=False)
    finished = time.time()
    record = {
        **seen,
        "stdout": done.stdout.decode("utf-8", "replace"),
        "stderr": done.stderr.decode("utf-8", "replace"),
        "exitCode": done.returncode,
        "started": started,
        "finished": finished,
    }
    _write_whole(os.path.join(audit_dir, f"{finished:.6f}-{os.getpid()}.json"), record)
    os.remove(marker)
    sys.stdout.buffer.write(done.stdout)
    sys.stderr.buffer.write(done.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
