"""Run one hook command as a subprocess: bounded in time and in output.

The command runs under `/bin/sh -c` in a new session, so it leads its own process group and a
timeout, an output overflow or a cancellation can kill everything it started (a backgrounded
child would otherwise keep the pipes open and outlive the hook).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping

import attrs

SHELL = "/bin/sh"
READ_CHUNK = 64 * 1024
PIPE_RELEASE_S = 2.0


@attrs.frozen
class ProcessOutcome:
    """How the process ended and what it printed (each stream cut at the cap)."""

    exit_code: int | None
    """The exit status; None when it was killed, died by a signal, or never started."""
    signal: int | None
    stdout: bytes
    stderr: bytes
    duration_ms: float
    timed_out: bool = False
    overflowed: str | None = None
    """`stdout` or `stderr` when that stream went over the cap."""
    spawn_error: str | None = None


class _Capture:
    """One output stream's bytes so far; kept outside the reader so a timeout keeps them."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.data = bytearray()


def _kill_group(process: asyncio.subprocess.Process) -> None:
    # The hook is its group's leader (new session), so its pid is the group id.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def _feed(pipe: asyncio.StreamWriter | None, data: bytes) -> None:
    if pipe is None:
        return
    # A hook may exit without reading its stdin; that is its right, not a fault.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        pipe.write(data)
        await pipe.drain()
    pipe.close()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        await pipe.wait_closed()


async def _read_capped(
    stream: asyncio.StreamReader | None, capture: _Capture, cap: int, overflowed: list[str]
) -> None:
    if stream is None:
        return
    while chunk := await stream.read(READ_CHUNK):
        room = cap - len(capture.data)
        if len(chunk) > room:
            capture.data.extend(chunk[:room])
            overflowed.append(capture.name)
            return
        capture.data.extend(chunk)


async def _communicate(
    process: asyncio.subprocess.Process,
    stdin: bytes,
    captures: tuple[_Capture, _Capture],
    cap: int,
    overflowed: list[str],
) -> None:
    stdout, stderr = captures

    async def read(stream: asyncio.StreamReader | None, capture: _Capture) -> None:
        await _read_capped(stream, capture, cap, overflowed)
        if overflowed:
            # Stop the writer now rather than at the timeout; the other stream then ends too.
            _kill_group(process)

    await asyncio.gather(
        _feed(process.stdin, stdin),
        read(process.stdout, stdout),
        read(process.stderr, stderr),
    )
    await process.wait()


async def run_shell(
    command: str,
    *,
    stdin: bytes,
    cwd: str,
    env: Mapping[str, str],
    timeout_s: float,
    output_cap: int,
) -> ProcessOutcome:
    """Run `command` under `/bin/sh -c`; never raises for anything the command does."""
    started = time.monotonic()
    try:
        process = await asyncio.create_subprocess_exec(
            SHELL,
            "-c",
            command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
        )
    except OSError as error:
        return ProcessOutcome(None, None, b"", b"", _elapsed_ms(started), spawn_error=str(error))
    captures = (_Capture("stdout"), _Capture("stderr"))
    overflowed: list[str] = []
    timed_out = finished = False
    try:
        await asyncio.wait_for(
            _communicate(process, stdin, captures, output_cap, overflowed), timeout_s
        )
        finished = not overflowed
    except TimeoutError:
        timed_out = True
    finally:
        # Also reached on cancellation (the loop aborted): nothing the hook started survives.
        if not finished:
            _kill_group(process)
        await process.wait()
        duration_ms = _elapsed_ms(started)
        await _release_pipes(process)
    code = process.returncode
    return ProcessOutcome(
        exit_code=code if finished and code is not None and code >= 0 else None,
        signal=-code if code is not None and code < 0 else None,
        stdout=bytes(captures[0].data),
        stderr=bytes(captures[1].data),
        duration_ms=duration_ms,
        timed_out=timed_out,
        overflowed=overflowed[0] if overflowed else None,
    )


async def _discard(stream: asyncio.StreamReader | None) -> None:
    while stream is not None and await stream.read(READ_CHUNK):
        pass


async def _release_pipes(process: asyncio.subprocess.Process) -> None:
    """Read the pipes to their end so asyncio can close the process transport.

    After a kill the reads were abandoned mid-stream; unread pipes keep the transport open
    past the event loop. A child that left the process group could hold them forever, hence
    the bound.
    """
    if process.stdin is not None:
        process.stdin.close()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(
            asyncio.gather(_discard(process.stdout), _discard(process.stderr)), PIPE_RELEASE_S
        )


def _elapsed_ms(started: float) -> float:
    return max(0.0, (time.monotonic() - started) * 1000.0)
