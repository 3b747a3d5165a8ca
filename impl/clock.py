"""Time, injected: event times and hook durations come from a `Clock`, never from globals.

A real loop uses `SystemClock`. Tests and the crash driver use `FixedClock`, under which a
command program always produces the same bytes (every event at one instant, every hook taking
0 ms), so two runs can be compared byte for byte. Conformance runs use `TickingClock`, as
deterministic, under which no two events share a time.
"""

from __future__ import annotations

import time
from typing import Protocol

import attrs


class Clock(Protocol):
    """Wall-clock milliseconds for event times, monotonic milliseconds for durations."""

    def wall_ms(self) -> int:
        """Milliseconds since the Unix epoch."""

    def monotonic_ms(self) -> float:
        """Milliseconds on a clock that never goes back (only differences mean anything)."""


class SystemClock:
    """The machine's clocks."""

    def wall_ms(self) -> int:
        """Milliseconds since the Unix epoch."""
        return time.time_ns() // 1_000_000

    def monotonic_ms(self) -> float:
        """`time.perf_counter` in milliseconds."""
        return time.perf_counter() * 1000.0


@attrs.frozen
class FixedClock:
    """A clock stopped at `epoch_ms`: deterministic logs for tests."""

    epoch_ms: int

    def wall_ms(self) -> int:
        """Always `epoch_ms`."""
        return self.epoch_ms

    def monotonic_ms(self) -> float:
        """Always 0, so every measured duration is 0 ms."""
        return 0.0


class TickingClock:
    """A clock that moves on one millisecond each time an event is stamped, from `epoch_ms`:
    deterministic as `FixedClock` is, yet no two readings agree, so a time copied from another
    event (crash repair's closers carry the last event's, REC-1) differs from a fresh one."""

    def __init__(self, epoch_ms: int) -> None:
        self._next_ms = epoch_ms

    def wall_ms(self) -> int:
        """`epoch_ms` at the first reading, one more at each after it."""
        now = self._next_ms
        self._next_ms += 1
        return now

    def monotonic_ms(self) -> float:
        """Always 0, so every measured duration is 0 ms."""
        return 0.0
