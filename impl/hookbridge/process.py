"""Run one hook command as a subprocess: bounded in time and in output.

The command runs under `/bin/sh -c` in a new session, so it leads its own process group and a
timeout, an output overflow or a cancellation can kill everything it started (a backgrounded
child would otherwise keep the pipes open and outlive the hook). Its environment carries a fresh
token (`reaping`), so children that left the group with `setsid` are found and killed too. The
hook's answer is complete when the hook itself exits: its leftovers are killed then, and only
then are the pipes read to their end (rule SAFE-3).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping

import attrs

from loopspec.impl.hookbridge.reaping import kill_marked, marked_environment, new_token

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


class _ExitAwareProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """The stream protocol of `create_subprocess_exec`, telling when the process itself exits."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=READ_CHUNK, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


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


async def run_shell(
    command: str,
    *,
    stdin: bytes,
    cwd: str,
    env: Mapping[str, str],
    timeout_s: float,
    output_cap: int,
) -> ProcessOutcome:
    """Run `command` under `/bin/sh -c`; never raises for anything the command does.

    When it returns, the hook and everything it started are gone (rule SAFE-3): its process
    group is killed, and so is every process carrying its token (`reaping`), which catches
    children that left the group with `setsid`.
    """
    started = time.monotonic()
    token = new_token()
    loop = asyncio.get_running_loop()
    try:
        transport, protocol = await loop.subprocess_exec(
            lambda: _ExitAwareProtocol(loop),
            SHELL,
            "-c",
            command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=marked_environment(env, token),
            start_new_session=True,
        )
    except OSError as error:
        return ProcessOutcome(None, None, b"", b"", _elapsed_ms(started), spawn_error=str(error))
    process = asyncio.subprocess.Process(transport, protocol, loop)
    captures = (_Capture("stdout"), _Capture("stderr"))
    overflowed: list[str] = []

    async def read(stream: asyncio.StreamReader | None, capture: _Capture) -> None:
        await _read_capped(stream, capture, output_cap, overflowed)
        if overflowed:
            # Stop the writer now rather than at the timeout; the other stream then ends too.
            _kill_group(process)

    # The answer is complete when the hook exits: a child it left behind may hold the pipes
    # open as long as it likes, so the readers are collected after the leftovers are killed.
    readers = asyncio.gather(read(process.stdout, captures[0]), read(process.stderr, captures[1]))
    feeder = asyncio.ensure_future(_feed(process.stdin, stdin))
    timed_out = finished = False
    try:
        # `process.wait()` would also wait for the pipes, which a leftover child may hold.
        await asyncio.wait_for(asyncio.shield(protocol.exited), timeout_s)
        finished = True
    except TimeoutError:
        timed_out = True
    finally:
        # Also reached on cancellation (the loop aborted): nothing the hook started survives.
        _kill_group(process)
        await protocol.exited
        duration_ms = _elapsed_ms(started)
        await loop.run_in_executor(None, kill_marked, token)
        # The pipes' last holders are gone: what the hook wrote before exiting is read now.
        await _finish(readers, feeder)
        await _release_pipes(process)
    finished = finished and not overflowed
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


async def _finish(readers: asyncio.Future[tuple[None, None]], feeder: asyncio.Future[None]) -> None:
    """Let the readers and the stdin feeder end, within a bound; cancel what does not."""
    done, not_done = await asyncio.wait((readers, feeder), timeout=PIPE_RELEASE_S)
    for future in not_done:
        future.cancel()
    for future in (*done, *not_done):
        with contextlib.suppress(asyncio.CancelledError, OSError):
            await future


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
