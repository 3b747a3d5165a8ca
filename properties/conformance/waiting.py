"""Signs of life from inside a run: each command sent to a target, and each moment spent waiting
for a target's answer, are told to whoever listens (conform's progress line).

A program that runs for minutes (a real CLI's commands, a slow `--cmd` loop) printed nothing
between two programs, and CI systems end a job silent for ten minutes. No timer thread: the
listener runs in the thread that sends and waits, between two of its own steps, so a signal
handler never meets it half-way through a line.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

Listener = Callable[[int | None], None]
"""Told the number of the command just sent in its program (from 1), or None while an answer
is awaited."""

_LISTENERS: list[Listener] = []


def command_sent(number: int) -> None:
    """The command `number` of a program (from 1) is being sent to the target."""
    for listener in _LISTENERS:
        listener(number)


def still_waiting() -> None:
    """An answer from the target is still awaited (called at each poll of the wait)."""
    for listener in _LISTENERS:
        listener(None)


@contextlib.contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Tell `listener` of every command sent and every wait until the block ends."""
    _LISTENERS.append(listener)
    try:
        yield
    finally:
        _LISTENERS.remove(listener)
